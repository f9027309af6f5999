"""``ppo_migrate.rules.patches``: another file (a test) replacing the runtime function makes
the fixes it may reach unsafe. Each end-to-end case runs the test before and after ``apply``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import warm_python
from cli_helpers import declare_verl, run_cli
from ppo_migrate.rules.patches import patched_at, target_patches
from ppo_migrate.settings_model import Settings

IMP = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
LIB = IMP + "\n\ndef launch(config):\n    return get_ppo_ray_runtime_env()\n"
STRICT_VERL = (
    "def get_ppo_ray_runtime_env(config=None):\n"
    "    if config is not None and 'trainer' not in config:\n"
    "        raise TypeError(f'not a config: {config!r}')\n"
    "    return {}\n"
)

#: How a test replaces the function (the fake takes no argument), and which modules it reaches.
TESTS = {
    # the object patched is ``lib`` of ``from pkg import lib``: pkg/lib.py's fixes only
    "monkeypatch-object": ("monkeypatch.setattr(lib, 'get_ppo_ray_runtime_env', fake)", "pkg.lib"),
    "monkeypatch-string": ("monkeypatch.setattr('pkg.lib.get_ppo_ray_runtime_env', fake)", "pkg.lib"),
    "mock-patch-module": ("mock.patch('pkg.lib.get_ppo_ray_runtime_env', fake).start()", "pkg.lib"),
    "mock-patch-verl": ("mock.patch('verl.trainer.constants_ppo.get_ppo_ray_runtime_env', fake).start()", "*"),
    "patch-object": ("mock.patch.object(lib, 'get_ppo_ray_runtime_env', fake).start()", "pkg.lib"),
    "patch-multiple": ("mock.patch.multiple(lib, get_ppo_ray_runtime_env=fake).start()", "pkg.lib"),
    # the namespace's owner is ``lib``: one table of forms reads ``lib.__dict__`` and
    # ``vars(lib)`` as ``lib`` (issue 26)
    "patch-dict": ("mock.patch.dict(lib.__dict__, {'get_ppo_ray_runtime_env': fake}).start()", "pkg.lib"),
    "assignment": ("lib.get_ppo_ray_runtime_env = fake", "pkg.lib"),
    # a third tester's forms: the patcher under another name, the target in a variable,
    # an f-string, a helper's default, the namespace updated, an object not an import
    "patch-alias": ("P('pkg.lib.get_ppo_ray_runtime_env', fake).start()", "pkg.lib"),
    "target-constant": ("TARGET = 'pkg.lib.get_ppo_ray_runtime_env'; mock.patch(TARGET, fake).start()", "pkg.lib"),
    "f-string": ("FN = 'get_ppo_ray_runtime_env'; mock.patch(f'{lib.__name__}.{FN}', fake).start()", "*"),
    "helper-default": (
        "install = lambda mp, m, name='get_ppo_ray_runtime_env': mp.setattr(m, name, fake); "
        "install(monkeypatch, lib)", "*",
    ),
    "vars-update": ("vars(lib).update(get_ppo_ray_runtime_env=fake)", "pkg.lib"),
    "computed-owner": (
        "FN = 'get_ppo_ray_runtime_env'; "
        # any module's attribute (``*``); and, since the line is a dynamic patcher's
        # (``setattr`` of a computed name on a module got by name) naming ``pkg.lib``
        # beside the function's name, that module too (trial 26h, fresh user 40 B5)
        "monkeypatch.setattr(importlib.import_module('pkg.lib'), FN, fake)", ("*", "pkg.lib"),
    ),
}


#: above every test: the imports the forms use
_HEAD = (
    "import importlib\nfrom unittest import mock\nfrom unittest.mock import patch as P\n"
    "from omegaconf import OmegaConf\nfrom pkg import lib\n\n\n"
)


def _where(patches) -> list[tuple[str, str, int]]:
    """``(module, path, line)`` of each patch."""
    return [(p.module, p.path, p.line) for p in patches]


def _test_file(line: str) -> str:
    return (
        _HEAD + "def fake():\n    return {'fake': 1}\n\n\n"
        f"def test_x(monkeypatch):\n    {line}\n"
        "    assert lib.launch(OmegaConf.create({'trainer': {}})) == {'fake': 1}\n"
    )


def _tree(root: Path, line: str) -> None:
    for rel, text in {
        "pkg/__init__.py": "", "pkg/lib.py": LIB, "tests/test_x.py": _test_file(line),
        "stub/verl/__init__.py": "", "stub/verl/trainer/__init__.py": "",
        "stub/verl/trainer/constants_ppo.py": STRICT_VERL, "pyproject.toml": "",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    declare_verl(root)  # issue 26: the tree declares the verl it runs


@pytest.mark.parametrize("name", sorted(TESTS))
def test_target_patches_finds_each_form_and_the_module_it_names(tmp_path: Path, name: str, monkeypatch) -> None:
    line, module = TESTS[name]
    _tree(tmp_path, line)
    monkeypatch.chdir(tmp_path)
    files = ["pkg/__init__.py", "pkg/lib.py", "tests/test_x.py"]
    at = _test_file(line).splitlines().index("    " + line) + 1
    modules = module if isinstance(module, tuple) else (module,)
    assert _where(target_patches(files, files, Settings())) == [(m, "tests/test_x.py", at) for m in modules]
    reason = f"tests/test_x.py:{at} replaces the runtime function, whose replacement may take no config"
    assert patched_at(target_patches(files, files, Settings()), "pkg/lib.py") == reason
    assert patched_at(target_patches(files, files, Settings()), "tests/test_x.py") is None  # its own


def test_a_patch_of_another_module_leaves_a_module_s_fixes_safe(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    for rel, text in {"pkg/__init__.py": "", "pkg/lib.py": LIB, "pkg/other.py": LIB,
                      "t.py": "from unittest import mock\nmock.patch('pkg.other.get_ppo_ray_runtime_env')\n"}.items():
        (tmp_path / rel).write_text(text)
    files = ["pkg/__init__.py", "pkg/lib.py", "pkg/other.py", "t.py"]
    patches = target_patches(files, files, Settings())
    assert _where(patches) == [("pkg.other", "t.py", 2)]
    assert patched_at(patches, "pkg/lib.py") is None
    assert patched_at(patches, "pkg/other.py") is not None
    # an object imported by its dotted name is that module (a third tester: every module's
    # fixes were made unsafe by ``monkeypatch.setattr(lib, ...)``)
    for spelled in ("import pkg.other as lib", "from pkg import other as lib", "import pkg.other"):
        owner = "pkg.other" if spelled == "import pkg.other" else "lib"
        (tmp_path / "t.py").write_text(
            f"{spelled}\n\n\ndef test(monkeypatch):\n"
            f"    monkeypatch.setattr({owner}, 'get_ppo_ray_runtime_env', lambda: 1)\n"
        )
        patches = target_patches(files, files, Settings())
        assert _where(patches) == [("pkg.other", "t.py", 5)], spelled
        assert patched_at(patches, "pkg/lib.py") is None
    # a name bound twice may be either module: any
    (tmp_path / "t.py").write_text(
        "import pkg.other as lib\nif x:\n    import pkg.lib as lib\n"
        "setattr(lib, 'get_ppo_ray_runtime_env', f)\n"
    )
    assert _where(target_patches(files, files, Settings())) == [("*", "t.py", 4)]
    # a file without a patcher or the name written is not even parsed
    (tmp_path / "t.py").write_text("get_ppo_ray_runtime_env = 1\nx.get_ppo_ray_runtime_env == 2\n")
    assert target_patches(files, files, Settings()) == ()


#: The oracle's runs by the tree's content: the two lanes of a case run the same trees
_PYTEST_RUNS: dict[str, subprocess.CompletedProcess] = {}


def _pytest_of(root: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """``python -m pytest tests`` in ``root`` (a fresh interpreter), run once per content of
    the tree: the outcome is a function of the files, and the other lane's run of the same
    files (before the fix, and after the unsafe one) is reused."""
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    key = digest.hexdigest()
    if key not in _PYTEST_RUNS:
        _PYTEST_RUNS[key] = warm_python.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
            cwd=root, env=env, capture_output=True, text=True, timeout=120,
        )
    return _PYTEST_RUNS[key]


@pytest.mark.parametrize(
    "name",
    ["monkeypatch-object", "mock-patch-module", "patch-multiple", "patch-alias", "target-constant",
     "helper-default", "vars-update"],
)
@pytest.mark.parametrize("lane", [("check", "."), ("check", "--no-progress", "pkg", "tests")])
def test_a_test_replacing_the_function_keeps_passing_after_apply(
    tmp_path: Path, name: str, lane: tuple[str, ...]
) -> None:
    """A fresh tester: ``apply`` made the safe fix in ``pkg/lib.py`` and the test, whose fake
    takes no argument, failed after it. ``check`` says why in both lanes (the plain
    ``check .`` analyses files as its scout finds them, the other before any)."""
    _tree(tmp_path, TESTS[name][0])
    at = _test_file(TESTS[name][0]).splitlines().index("    " + TESTS[name][0]) + 1
    # the sample project's own pytest: not the plugins installed here (xdist, hypothesis,
    # benchmark, ...), whose loading was two thirds of each run's start-up
    env = {"PYTHONPATH": f"{tmp_path / 'stub'}:{tmp_path}", "PATH": "/usr/bin:/bin",
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}

    def pytest_run() -> subprocess.CompletedProcess:
        return _pytest_of(tmp_path, env)

    assert pytest_run().returncode == 0
    checked = run_cli(*lane, cwd=tmp_path)
    assert checked.stdout.splitlines()[0] == (
        "pkg/lib.py:5:12: PPO001 `get_ppo_ray_runtime_env()` called without the config in scope; "
        f"pass `config` (unsafe fix: tests/test_x.py:{at} replaces the runtime function, whose "
        "replacement may take no config)"
    ), checked.stdout
    applied = run_cli("apply", ".", cwd=tmp_path)
    assert applied.returncode == 1
    assert (tmp_path / "pkg/lib.py").read_text() == LIB
    assert pytest_run().returncode == 0
    # the oracle: the fix, made anyway, fails the test
    assert run_cli("apply", "--unsafe-fixes", ".", cwd=tmp_path).returncode == 0
    after = pytest_run()
    assert after.returncode == 1 and "takes 0 positional arguments but 1 was given" in after.stdout


def _replaced(source: str) -> list[tuple[str, str | None, str | None, str]]:
    """``(name, owner as written, module, space)`` of each replacement of the one table."""
    import ast

    from ppo_migrate.rules.patches import replacements

    return sorted(
        (r.name, ast.unparse(r.owner) if r.owner is not None else None, r.module, r.space)
        for r in replacements(ast.parse(source))
    )


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("setattr(lib, 'f', g)", [("f", "lib", None, "attribute")]),
        ("monkeypatch.setattr(lib, 'f', g)", [("f", "lib", None, "attribute")]),
        ("monkeypatch.setattr('pkg.lib.f', g)", [("f", None, "pkg.lib", "attribute")]),
        ("monkeypatch.delattr(lib, 'f')", [("f", "lib", None, "attribute")]),
        ("monkeypatch.setattr(lib, NAME, g)", [("*", "lib", None, "attribute")]),
        ("mock.patch('pkg.lib.f', g)", [("f", None, "pkg.lib", "attribute")]),
        ("mocker.patch(target='pkg.lib.f')", [("f", None, "pkg.lib", "attribute")]),
        ("mock.patch(TARGET, g)", [("*", None, None, "attribute")]),
        ("requests.patch(url)", []),
        ("mock.patch.object(lib, 'f', g)", [("f", "lib", None, "attribute")]),
        ("mock.patch.multiple(lib, f=g, h=k)", [("f", "lib", None, "attribute"), ("h", "lib", None, "attribute")]),
        ("mock.patch.multiple('pkg.lib', f=g)", [("f", None, "pkg.lib", "attribute")]),
        ("mock.patch.dict(lib.__dict__, {'f': g})", [("f", "lib", None, "attribute")]),
        ("mock.patch.dict(sys.modules, {'a.b': m})", [("b", None, "a", "modules")]),
        ("mock.patch.dict('sys.modules', a=m)", [("a", None, None, "modules")]),
        ("mock.patch.dict(os.environ, {'f': '1'})", []),
        ("vars(lib).update(f=g)", [("f", "lib", None, "attribute")]),
        ("globals().update({'f': g})", [("f", None, None, "globals")]),
        ("config.update(f=g)", []),
        ("monkeypatch.setitem(sys.modules, 'verl', m)", [("verl", None, None, "modules")]),
        ("monkeypatch.setitem(vars(lib), 'f', g)", [("f", "lib", None, "attribute")]),
        ("monkeypatch.setitem(cfg, 'f', g)", []),
        ("sys.modules.setdefault('a.b.c', m)", [("c", None, "a.b", "modules")]),
        ("globals().__setitem__('f', g)", [("f", None, None, "globals")]),
        ("lib.f = g", [("f", "lib", None, "attribute")]),
        ("a.f, b.h = g, k", [("f", "a", None, "attribute"), ("h", "b", None, "attribute")]),
        ("globals()['f'] = g", [("f", None, None, "globals")]),
        ("sys.modules['a.b'] = m", [("b", None, "a", "modules")]),
        ("sys.modules[key] = m", [("*", None, None, "modules")]),
        ("cfg['f'] = g", []),
        # trial 26f: the other statements binding a target
        ("for lib.f in fakes:\n    pass", [("f", "lib", None, "attribute")]),
        ("with ctx(g) as lib.f:\n    pass", [("f", "lib", None, "attribute")]),
        ("with a() as x, b() as (lib.f, y):\n    pass", [("f", "lib", None, "attribute")]),
        ("[0 for lib.f in fakes]", [("f", "lib", None, "attribute")]),
        ("async def t():\n    async for lib.f in fakes:\n        pass", [("f", "lib", None, "attribute")]),
        ("for globals()['f'] in fakes:\n    pass", [("f", None, None, "globals")]),
        ("for x in lib.f():\n    pass", []),
        ("with open(p) as fh:\n    pass", []),
    ],
)
def test_the_one_table_reads_each_form(source: str, expected: list) -> None:
    """Issue 26: one table of replacement forms (``PATCHERS`` and the two statement forms)
    for the look-out, a module's own analysis and the caller plan."""
    assert _replaced(source) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # trial 26f (g4_code_object_swap, g5_code_object_swap_boot): the function object's
        # code or defaults written: the function itself replaced, in every module holding it
        ("lib.f.__code__ = (lambda: {}).__code__", ("f", "__code__", "an assignment")),
        ("f.__code__ = g.__code__", ("f", "__code__", "an assignment")),
        ("pkg.lib.f.__defaults__ = ()", ("f", "__defaults__", "an assignment")),
        ("setattr(lib.f, '__code__', g.__code__)", ("f", "__code__", "setattr")),
        ("setattr(f, '__kwdefaults__', {})", ("f", "__kwdefaults__", "setattr")),
        ("monkeypatch.setattr(lib.f, '__code__', c)", ("f", "__code__", "monkeypatch.setattr")),
        ("monkeypatch.setattr('pkg.lib.f.__code__', c)", ("f", "__code__", "monkeypatch.setattr")),
        ("mock.patch.object(lib.f, '__defaults__', ())", ("f", "__defaults__", "mock.patch.object")),
        ("mock.patch('pkg.lib.f.__code__', c)", ("f", "__code__", "mock.patch")),
        # a function the table cannot name: any
        ("make().__code__ = c", ("*", "__code__", "an assignment")),
        ("fns[0].__code__ = c", ("*", "__code__", "an assignment")),
    ],
)
def test_a_function_s_code_or_defaults_written_replaces_the_function(source: str, expected: tuple) -> None:
    """A write of ``__code__``/``__defaults__``/``__kwdefaults__`` is a replacement of the
    function named before it, on no owner and no module (any module may hold the object)."""
    import ast

    from ppo_migrate.rules.patches import replacements

    (r,) = replacements(ast.parse(source))
    assert (r.name, r.swapped, r.form) == expected
    assert (r.owner, r.module, r.space) == (None, None, "attribute")


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # another attribute of the function: the attribute itself, on the function
        ("lib.f.__doc__ = 'x'", [("__doc__", "lib.f", None, "attribute")]),
        ("setattr(lib.f, '__name__', 'g')", [("__name__", "lib.f", None, "attribute")]),
    ],
)
def test_other_writes_to_a_function_are_no_swap(source: str, expected: list) -> None:
    assert _replaced(source) == expected


def test_a_code_swap_reaches_every_module_and_names_its_line(tmp_path: Path, monkeypatch) -> None:
    """The look-out reads a code swap as a replacement of any module's calls (``"*"``): in a
    test a double, outside the tests a rebinding at run time; the caller plan's run-time
    bindings name the function."""
    import ast

    from ppo_migrate.rules.callers import _dynamic_names

    monkeypatch.chdir(tmp_path)
    files = {
        "pkg/__init__.py": "", "pkg/lib.py": LIB,
        "tests/test_x.py": "from verl.trainer import constants_ppo\n\n\ndef test():\n"
        "    constants_ppo.get_ppo_ray_runtime_env.__code__ = (lambda: {}).__code__\n",
        "pkg/boot.py": IMP + "\n\ndef _old():\n    return {}\n\n\n"
        "setattr(get_ppo_ray_runtime_env, '__code__', _old.__code__)\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    names = sorted(files)
    found = target_patches(names, names, Settings())
    assert [(p.module, p.path, p.line, p.kind, p.what) for p in found] == [
        ("*", "pkg/boot.py", 8, "rebound",
         "swaps the `__code__` of `get_ppo_ray_runtime_env` at run time, for one that may take no config"),
        ("*", "tests/test_x.py", 5, "patched",
         "replaces the `__code__` of `get_ppo_ray_runtime_env`, whose replacement may take no config"),
    ]
    assert patched_at(found, "pkg/lib.py") == (
        "pkg/boot.py:8 swaps the `__code__` of `get_ppo_ray_runtime_env` at run time, for one that may "
        "take no config"
    )
    call = ast.parse("setattr(launch, '__code__', c)").body[0].value
    assert _dynamic_names(call) == ["launch"]


#: a Git LFS pointer where the zip is (``git lfs pull`` not run here)
LFS_POINTER = "version https://git-lfs.github.com/spec/v1\noid sha256:0\nsize 540\n"


@pytest.mark.parametrize(
    ("archive", "content", "expected"),
    [
        # a zipped fake in a folder of test doubles: read inside, the member named
        ("tests/fixtures/verl_stub.zip", "def get_ppo_ray_runtime_env():\n    return {}\n",
         "a test double whose `get_ppo_ray_runtime_env` (verl/trainer/constants_ppo.py:1 inside it) "
         "takes no config"),
        # not a zip here: a double that cannot be read
        ("tests/fixtures/verl_stub.zip", LFS_POINTER,
         "a test double that cannot be read (no zip archive here); its runtime function may take no config"),
        ("tests/stubs/verl-0.8.whl", LFS_POINTER,
         "a test double that cannot be read (no zip archive here); its runtime function may take no config"),
        # the stub takes a config, or holds no verl module: no double
        ("tests/fixtures/verl_stub.zip", "def get_ppo_ray_runtime_env(config=None):\n    return {}\n", None),
        ("tests/fixtures/other.zip", None, None),
        # outside a folder of test doubles: a copy the callee in effect reads (PPO005)
        ("vendor/verl_stub.zip", "def get_ppo_ray_runtime_env():\n    return {}\n", None),
        # a data file on the path naming neither the package nor an archive: skipped by Python
        ("tests/fixtures/paths.txt", LFS_POINTER, None),
    ],
)
def test_an_archive_a_test_puts_on_sys_path_is_read_as_a_double(
    tmp_path: Path, monkeypatch, archive: str, content: str | None, expected: str | None
) -> None:
    """Trial 26f (g4_fake_verl_zip_on_path): the doubles table reads an archive a file puts on
    ``sys.path`` from a folder of test doubles, inside, in memory (``archive_doubles``)."""
    import zipfile

    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    files = {
        "pkg/__init__.py": "", "pkg/lib.py": LIB,
        "tests/conftest.py": f"import sys\n\nsys.path.insert(0, {archive!r})\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (tmp_path / archive).parent.mkdir(parents=True, exist_ok=True)
    if content is None or content.startswith("def "):
        with zipfile.ZipFile(tmp_path / archive, "w") as zf:
            zf.writestr("verl/__init__.py", "")
            if content is not None:
                zf.writestr("verl/trainer/__init__.py", "")
                zf.writestr("verl/trainer/constants_ppo.py", content)
    else:
        (tmp_path / archive).write_text(content)
    names = sorted(files)
    found = [(p.module, p.path, p.line, p.kind, p.what) for p in target_patches(names, names, Settings())]
    if expected is None:
        assert found == []
    else:
        assert found == [("*", "tests/conftest.py", 3, "patched",
                          f"puts `{archive}` on sys.path (sys.path.insert), {expected}")]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        # the byte gate before a file is parsed for replacements: a target other than ``x.f =``
        (b"launcher.get_env, calls = fake, []\n", True),
        (b"    (a.get_env, b) = fake, 1\n", True),
        (b"    [a.get_env] = [fake]\n", True),
        (b"for launcher.get_env in (fake,):\n", True),
        (b"for launcher.get_env\tin(fake,):\n", True),
        (b"    with nullcontext(fake) as launcher.get_env:\n", True),
        (b"def t():\n    return launcher.get_env(x, y=1)\n", False),
        (b"check(a.b, c=1)\nlauncher.get_env_other, x = 1, 2\n", False),
        (b"for k, v in d.items():\n    import a as b\n", False),
    ],
)
def test_a_file_binding_an_attribute_by_any_target_is_parsed(data: bytes, expected: bool) -> None:
    """The byte gate before a file is parsed for replacements: ``.get_env`` ending a target."""
    from ppo_migrate.rules.patches import _binds_as_target, _may_patch

    assert (_may_patch(data) or _binds_as_target(data, [b"get_env"])) is expected


@pytest.mark.parametrize(
    ("line", "patched"),
    [
        # trial 26f (W3): a look-up by name replaces nothing, beside a patcher or not
        ("return globals()['get_ppo_ray_runtime_env']()", False),
        ("return vars(lib)['get_ppo_ray_runtime_env']()", False),
        ("return getattr(lib, 'get_ppo_ray_runtime_env')()", False),
        ("return hasattr(lib, 'get_ppo_ray_runtime_env')", False),
        # a write by name does
        ("vars(lib)['get_ppo_ray_runtime_env'] = fake", True),
        ("globals()['get_ppo_ray_runtime_env'] = fake", True),
        # a string handed to anything else, in a file with a patcher: the generous rule
        ("return helper(lib, 'get_ppo_ray_runtime_env')", True),
    ],
)
def test_a_look_up_by_name_is_no_replacement(tmp_path: Path, monkeypatch, line: str, patched: bool) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/__init__.py").write_text("")
    (tmp_path / "pkg/lib.py").write_text(LIB)
    (tmp_path / "pkg/other.py").write_text(
        "from unittest import mock\n\nfrom pkg import lib\n\nmock.patch('os.getcwd', lambda: '/')\n\n\n"
        f"def fake():\n    return {{}}\n\n\ndef run(config):\n    {line}\n"
    )
    files = ["pkg/__init__.py", "pkg/lib.py", "pkg/other.py"]
    found = [(p.path, p.line) for p in target_patches(files, files, Settings())]
    assert found == ([("pkg/other.py", 13)] if patched else [])


def test_the_caller_plan_asks_the_same_table() -> None:
    """``--thread-config``'s run-time bindings are the table's names (was a list of its own
    without ``multiple``/``dict``/``update``/``sys.modules.setdefault``)."""
    import ast

    from ppo_migrate.rules.callers import _dynamic_names

    def names(source: str) -> list[str]:
        return _dynamic_names(ast.parse(source).body[0].value)

    assert names("mock.patch.multiple(lib, launch=fake)") == ["launch"]
    assert names("vars(lib).update(launch=fake)") == ["launch"]
    assert names("sys.modules.setdefault('app.lib', fake)") == ["lib"]
    assert names("monkeypatch.setattr(lib, name, fake)") == ["*"]
    assert names("type('C', (), {'launch': f})") == ["launch"]
    assert names("print('launch')") == []


@pytest.mark.parametrize(
    "test",
    [
        # not the function, nor a module its calls go through
        "class T:\n    def setup(self):\n        self.trainer = 1\n        self.constants_ppo = 2\n",
        "import sys\n\n\ndef test(monkeypatch):\n    monkeypatch.setitem(sys.modules, 'ray', object())\n",
        "from app import other\n\n\ndef test(monkeypatch):\n    monkeypatch.setattr(other, 'constants_ppo', 1)\n",
        "from unittest import mock\n\n\ndef test():\n    mock.patch('app.other.constants_ppo').start()\n",
        # ``env`` of the default target ``ppo_runtime.env``: no module the calls go through
        "from app import launcher\n\n\ndef test():\n    launcher.env = {}\n    launcher.trainer = 1\n",
        # a copy of verl's module outside any folder of test doubles is the project's copy
        # (its signature decides PPO005), not a fake a test puts first on sys.path
        "",
    ],
)
def test_what_replaces_nothing_the_call_reaches_leaves_the_fix_safe(tmp_path: Path, test: str, monkeypatch) -> None:
    """No over-caution from the new forms: a module's attribute of that name on ``self``, a
    module in ``sys.modules`` that is not verl's, another module's alias patched."""
    monkeypatch.chdir(tmp_path)
    launcher = "from verl.trainer import constants_ppo\n\n\ndef launch(config):\n    return constants_ppo.get_ppo_ray_runtime_env()\n"
    for rel, text in {"app/__init__.py": "", "app/launcher.py": launcher, "app/other.py": launcher,
                      "tests/test_x.py": test}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    legacy = tmp_path / "vendor/verl/trainer/constants_ppo.py"
    legacy.parent.mkdir(parents=True)
    legacy.write_text("def get_ppo_ray_runtime_env():\n    return {}\n")
    files = ["app/__init__.py", "app/launcher.py", "app/other.py", "tests/test_x.py",
             "vendor/verl/trainer/constants_ppo.py"]
    patches = target_patches(["app/launcher.py", "app/other.py", files[-1]], files, Settings())
    assert patched_at(patches, "app/launcher.py") is None
    # the same copy under tests/fakes/ is a fake
    fake = tmp_path / "tests/fakes/verl/trainer/constants_ppo.py"
    fake.parent.mkdir(parents=True)
    fake.write_text(legacy.read_text())
    patches = target_patches(["app/launcher.py", "tests/fakes/verl/trainer/constants_ppo.py"], files, Settings())
    assert patched_at(patches, "app/launcher.py") == (
        "tests/fakes/verl/trainer/constants_ppo.py:1 defines a `get_ppo_ray_runtime_env` taking "
        "no config, which a test may put first on sys.path"
    )


def test_a_module_s_own_compat_check_is_no_replacement() -> None:
    """``hasattr(m, "get_ppo_ray_runtime_env")`` names the function in a string, but replaces
    nothing: the module's own fixes stay safe (the generic string rule applies only beside a
    replacement whose name is computed)."""
    import ast

    from ppo_migrate.rules.patches import own_replacement

    text = (
        "from verl.trainer import constants_ppo\n\n\ndef launch(config):\n"
        "    if hasattr(constants_ppo, 'get_ppo_ray_runtime_env'):\n"
        "        return constants_ppo.get_ppo_ray_runtime_env()\n"
    )
    targets = Settings().targets
    assert own_replacement(ast.parse(text), text, targets, "app/launcher.py") is None
    text += "\n\ndef test(monkeypatch):\n    monkeypatch.setattr(constants_ppo, NAME, lambda: 1)\n"
    # a name computed beside a string spelling the function: it may be the function; named
    # at the patcher's line (the ``hasattr`` look-up itself replaces nothing: trial 26f, W3)
    found = own_replacement(ast.parse(text), text, targets, "tests/test_l.py")
    assert (found.path, found.line, found.kind) == ("tests/test_l.py", 10, "patched")


#: a launcher whose call a test patches through a target kept in a constant
CONSTANT_LAUNCHER = IMP + "\n\ndef launch(config):\n    return get_ppo_ray_runtime_env()\n"
CONSTANT_TEST_HEAD = "from unittest import mock\n\nfrom omegaconf import OmegaConf\n"
CONSTANT_TEST_BODY = (
    "\n\ndef test_launch():\n"
    "    with mock.patch(ENV_TARGET, lambda: {'fake': 1}):\n"
    "        assert launcher.launch(OmegaConf.create({'trainer': {}})) == {'fake': 1}\n"
)


@pytest.mark.parametrize("where", ["another-file", "same-file"])
def test_a_patch_through_a_constant_is_named_at_the_patch_s_line(tmp_path: Path, where: str) -> None:
    """Bug: a patch whose target a constant holds (``mock.patch(ENV_TARGET, fake)``) was
    reported at the constant's line (``tests/targets.py:3``: the string read as a
    replacement of its own, and first by path and line), not at the patch. Now the patch's
    line is the reason's place, and the constant is named beside it."""
    root = declare_verl(tmp_path)
    (root / "app").mkdir()
    (root / "app/__init__.py").write_text("")
    (root / "app/launcher.py").write_text(CONSTANT_LAUNCHER)
    (root / "tests").mkdir()
    if where == "another-file":
        # the constants' module says "patch" (its docstring): the look-out parses it
        (root / "tests/targets.py").write_text(
            '"""Targets for mock.patch, kept in one place."""\n\n'
            "ENV_TARGET = 'app.launcher.get_ppo_ray_runtime_env'\n"
        )
        test = CONSTANT_TEST_HEAD + "from targets import ENV_TARGET\n\nfrom app import launcher\n" + CONSTANT_TEST_BODY
        named = "`ENV_TARGET` (tests/targets.py:3)"
    else:
        test = (
            CONSTANT_TEST_HEAD + "\nfrom app import launcher\n\n"
            "ENV_TARGET = 'app.launcher.get_ppo_ray_runtime_env'\n" + CONSTANT_TEST_BODY
        )
        named = "`ENV_TARGET` (line 7)"
    (root / "tests/test_launcher.py").write_text(test)
    line = next(i for i, text in enumerate(test.splitlines(), 1) if "mock.patch(" in text)
    checked = run_cli("check", "--output-format", "concise", ".", cwd=root)
    assert checked.stdout.splitlines()[0] == (
        "app/launcher.py:5:12: PPO001 `get_ppo_ray_runtime_env()` called without the config in "
        f"scope; pass `config` (unsafe fix: tests/test_launcher.py:{line} replaces the runtime "
        f"function named by {named}, whose replacement may take no config)"
    ), checked.stdout


def test_import_statements_match_the_pattern_everywhere() -> None:
    """:func:`import_statements` (the pattern run only around each ``import``) yields what
    ``IMPORT_STATEMENT.finditer`` over the whole bytes yields: on edge cases (a statement
    after ``;`` or ``:``, a parenthesised list over lines, ``import_module``/``__import__``,
    ``import`` in a name, a string or the last line without a newline) and on 400 files of
    the standard library (21,715 files of it and torch agreed when it was written)."""
    import random
    import sysconfig

    from ppo_migrate.rules.patches import IMPORT_STATEMENT, import_statements

    cases = [
        b"import os\nx = 1; import sys\nif x: import json\n",
        b"from pkg import (\n    util,  # the helper\n    make_env,\n)\nfrom a import b\n",
        b"m = importlib.import_module('pkg.util')\nn = __import__(\"x.y\")\n",
        b"important = 1\nreimport()\ns = 'import nothing'\nfrom . import (a\n",
        b"from x import (a, b)  ; import y\nimport z",
        b"",
    ]
    stdlib = sorted(Path(sysconfig.get_paths()["stdlib"]).rglob("*.py"))
    random.Random(26).shuffle(stdlib)
    datas = cases + [p.read_bytes() for p in stdlib[:400]]
    found = 0
    for data in datas:
        expected = [m.group(0) for m in IMPORT_STATEMENT.finditer(data)]
        assert list(import_statements(data)) == expected, data[:200]
        found += len(expected)
    assert found > 1000  # the files held import statements: not an empty comparison
    assert list(import_statements(cases[1]))[0] == b"from pkg import (\n    util,  # the helper\n    make_env,\n)"


def test_the_names_of_the_targets_are_made_once_and_each_file_s_own_are_kept_apart() -> None:
    """:func:`through_names` makes its patterns once per set of targets, and an alias one
    file binds (``make_env = get_ppo_ray_runtime_env``) is not another file's."""
    from ppo_migrate.rules import patches

    targets = ("verl.trainer.constants_ppo.get_ppo_ray_runtime_env", "pkg.util.get_ppo_ray_runtime_env")
    aliased = b"from verl.trainer import constants_ppo as cp\nmake_env = get_ppo_ray_runtime_env\n"
    first = patches.through_names([aliased], targets)
    assert first.functions == {"get_ppo_ray_runtime_env", "make_env"}
    assert first.through == {"cp", "constants_ppo"}
    forms = patches._target_forms(targets)
    plain = patches.through_names([IMP.encode()], list(targets))
    assert patches._target_forms(targets) is forms  # made once for these targets
    assert plain.functions == {"get_ppo_ray_runtime_env"}
    assert plain.through == set()
    assert plain.target_modules == {"verl.trainer.constants_ppo", "pkg.util"}
    assert forms.functions == {"get_ppo_ray_runtime_env"}  # the first file's alias not kept


def test_aliases_are_found_on_the_lines_holding_as_only() -> None:
    """:func:`through_names` reads `` as `` aliases line by line (a blank or a tab each
    side), the module's and the function's alike, wherever they stand in the file."""
    from ppo_migrate.rules.patches import through_names

    data = (
        b"import os\nfrom verl.trainer import constants_ppo\tas  cp\n\n"
        b"def f():\n    from verl.trainer.constants_ppo import get_ppo_ray_runtime_env as make\n"
        b"    return make()\nx = 'get_ppo_ray_runtime_env as'\n"
    )
    names = through_names([data], Settings().targets)
    assert names.functions == {"get_ppo_ray_runtime_env", "make"}
    assert names.through == {"cp", "constants_ppo"}
    assert through_names([b"import verl as v"], Settings().targets).through == {"v"}
    assert through_names([b"import verl as\nv"], Settings().targets).through == set()


@pytest.mark.parametrize(
    ("data", "found"),
    [
        (b"from a.b import c\n", True),
        (b"xfrom a.b import c\n", False),  # ``\\b`` before ``from``
        (b"x = 1\nfrom  a.b\timport (d,\n  c)\n", True),
        (b"from a.bc import c\nfrom a.b import d, c\n", True),  # the second ``from``
        (b"from a.b import cd\n", False),
        (b"", False),
    ],
)
def test_a_from_import_is_looked_for_where_from_stands(data: bytes, found: bool) -> None:
    """:func:`_from_search` answers as ``pattern.search`` does, trying the pattern only at
    each ``from``."""
    import re

    from ppo_migrate.rules.patches import _from_search

    pattern = re.compile(rb"\bfrom\s+a\.b\s+import\s+(?:\([^)]*|[^\n]*)\bc\b")
    assert (pattern.search(data) is not None) is found
    assert _from_search(pattern, data) is found


def test_the_packages_a_file_imports_from_are_those_each_pattern_finds() -> None:
    """:func:`_from_imported` gives, in one scan, the packages whose own ``from <package>
    import`` pattern finds a match (a ``from`` inside another statement's name included)."""
    import re

    from ppo_migrate.rules.patches import _from_imported

    data = (
        b"from a.b import c\nxfrom d import e\nfrom  f.g\n import h\nfrom i.j.k import (l)\n"
        b"# from m import\nfrom n import\n"
    )
    found = _from_imported(data)
    assert found == {b"a.b", b"f.g", b"i.j.k", b"m", b"n"}
    for package in (b"a.b", b"a", b"d", b"f.g", b"i.j", b"i.j.k", b"m", b"n"):
        pattern = re.compile(rb"\bfrom\s+" + re.escape(package) + rb"\s+import\s")
        assert (pattern.search(data) is not None) is (package in found)
