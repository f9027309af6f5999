"""Trial 26h: replacements of the function the tool did not see (families 4 and 5).

Each project is *run* (its pytest tests) before and after a plain ``apply`` and
``apply --thread-config``: what ran still runs, because the call is left alone with an
unsafe fix whose reason names the replacement's file and line; the oracle: the fix made
anyway (``--unsafe-fixes``) fails the tests.

1. An import hook (``sys.path_hooks``, ``sys.meta_path``) serving verl's module from fakes
   (H-B3): it may serve any module with any text.
2. A dynamic patcher (``setattr(importlib.import_module(module), attr, fn)``) given a string
   naming the function (H-B5): both in the repository is enough.
3. ``eval`` of code compiled for ``exec`` in verl's module namespace (H-B6).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from cli_helpers import run_cli
from ppo_migrate.rules.patches import _qualified_mentions, call_replacements, dynamic_patchers, replacements
from test_patches_doubles import DIRECT, FAKED_TEST, THROUGH_COMPAT, _line_of, _pytest, _write
from test_patches_doubles_26g import FAKE_MODULE, LAZY

#: a conftest whose autouse fixture puts a path entry finder serving ``verl.*`` first: the
#: package and ``verl.trainer`` empty, ``constants_ppo`` filled from ``tests/fakes/cpu_rl.py``
PATH_HOOK_CONFTEST = (
    "import importlib\nimport importlib.abc\nimport importlib.machinery\nimport sys\n\nimport pytest\n\n\n"
    "class _Loader(importlib.abc.Loader):\n"
    "    def create_module(self, spec):\n        return None\n\n"
    "    def exec_module(self, module):\n"
    "        if module.__name__.endswith('.constants_ppo'):\n"
    "            module.__dict__.update(vars(importlib.import_module('tests.fakes.cpu_rl')))\n\n\n"
    "class _Finder(importlib.abc.PathEntryFinder):\n"
    "    def find_spec(self, fullname, target=None):\n"
    "        if fullname.split('.')[0] != 'verl':\n            return None\n"
    "        package = fullname in ('verl', 'verl.trainer')\n"
    "        spec = importlib.machinery.ModuleSpec(fullname, _Loader(), is_package=package)\n"
    "        if package:\n            spec.submodule_search_locations = ['<fakes>']\n"
    "        return spec\n\n\n"
    "def _hook(entry):\n"
    "    if entry == '<fakes>':\n        return _Finder()\n"
    "    raise ImportError(entry)\n\n\n"
    "@pytest.fixture(autouse=True)\n"
    "def cpu_verl(monkeypatch):\n"
    "    monkeypatch.setattr(sys, 'path_hooks', [_hook, *sys.path_hooks])\n"
    "    monkeypatch.syspath_prepend('<fakes>')\n"
)

#: a patcher setting the attribute its caller names on the module its caller names
OVERRIDE = (
    "import importlib\n\n\n"
    "def override(target):\n"
    "    module, _, attr = target.partition(':')\n\n"
    "    def deco(fn):\n"
    "        setattr(importlib.import_module(module), attr, fn)\n"
    "        return fn\n\n"
    "    return deco\n"
)

#: name -> (files, (the file holding the replacement, text on its line), the calling file)
DOUBLES_26H: dict[str, tuple[dict[str, str], tuple[str, str], str]] = {
    # -- 1. import hooks ---------------------------------------------------------------
    "path-hooks-entry-serving-a-fake-verl": ({  # H-B3
        "app/launcher.py": LAZY,
        "tests/__init__.py": "",
        "tests/fakes/__init__.py": "",
        "tests/fakes/cpu_rl.py": FAKE_MODULE,
        "tests/conftest.py": PATH_HOOK_CONFTEST,
        "tests/test_launcher.py": FAKED_TEST,
    }, ("tests/conftest.py", "'path_hooks'"), "app/launcher.py"),
    "meta-path-assigned-with-a-finder-first": ({  # the assignment form of sys.meta_path
        "app/launcher.py": "import app.compat  # noqa: F401\n" + LAZY,
        "app/legacy.py": FAKE_MODULE,
        "app/compat.py": "import importlib.abc\nimport importlib.util\nimport os\nimport sys\n\n\n"
        "class Redirect(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name == 'verl.trainer.constants_ppo':\n"
        "            legacy = os.path.join(os.path.dirname(__file__), 'legacy.py')\n"
        "            return importlib.util.spec_from_file_location(name, legacy)\n"
        "        return None\n\n\nsys.meta_path = [Redirect(), *sys.meta_path]\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("app/compat.py", "sys.meta_path ="), "app/launcher.py"),
    # -- 2. a dynamic patcher given a string naming the function ------------------------
    "decorator-override-by-module-attr-string": ({  # H-B5
        "app/launcher.py": THROUGH_COMPAT,
        "app/compat.py": OVERRIDE + "\n\n@override('verl.trainer.constants_ppo:get_ppo_ray_runtime_env')\n"
        "def legacy():\n    return {'fake': 1}\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("app/compat.py", "@override("), "app/launcher.py"),
    "patcher-in-another-file-given-module-and-name": ({  # the module and name apart
        "app/launcher.py": THROUGH_COMPAT,
        "app/registry.py": "import sys\nfrom importlib import import_module\n\n\n"
        "def _owner(module):\n    return sys.modules.get(module) or import_module(module)\n\n\n"
        "def replace(module, attr, fn):\n    owner = _owner(module)\n    setattr(owner, attr, fn)\n",
        "app/compat.py": "from app.registry import replace\n\n\n"
        "def legacy():\n    return {'fake': 1}\n\n\n"
        "replace('verl.trainer.constants_ppo', 'get_ppo_ray_runtime_env', legacy)\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("app/compat.py", "replace('verl"), "app/launcher.py"),
    # -- 3. eval of code compiled for exec ----------------------------------------------
    "eval-compile-exec-into-verl-s-namespace": ({  # H-B6
        "app/launcher.py": "import app.boot  # noqa: F401\n" + DIRECT,
        "app/patches/ray_env.py": FAKE_MODULE,
        "app/boot.py": "import pathlib\n\nfrom verl.trainer import constants_ppo\n\n"
        "for p in (pathlib.Path(__file__).parent / 'patches').glob('*.py'):\n"
        "    eval(compile(p.read_text(), str(p), 'exec'), vars(constants_ppo))\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("app/boot.py", "eval(compile("), "app/launcher.py"),
    "builtins-exec-of-a-file-into-verl-s-module-dict": ({  # H-B6, narrowed: a file's text, no constant
        "app/launcher.py": "import app.boot  # noqa: F401\n" + DIRECT,
        "app/patches/ray_env.py": FAKE_MODULE,
        "app/boot.py": "import builtins\nimport pathlib\n\nfrom verl.trainer import constants_ppo\n\n"
        "for p in (pathlib.Path(__file__).parent / 'patches').glob('*.py'):\n"
        "    with open(p) as fh:\n"
        "        builtins.exec(fh.read(), constants_ppo.__dict__)\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("app/boot.py", "builtins.exec("), "app/launcher.py"),
}


@pytest.mark.parametrize("name", sorted(DOUBLES_26H))
def test_a_replacement_the_table_did_not_read_keeps_running_after_apply(tmp_path: Path, name: str) -> None:
    """Trial 26h (H-B3, H-B5, H-B6): the project's tests pass before and after ``apply``
    and ``apply --thread-config``; the call's fix is unsafe, its message naming the
    replacement's file and line; the oracle: the fix made anyway fails the tests."""
    files, (rel, marker), caller = DOUBLES_26H[name]
    where = f"{rel}:{_line_of(files, rel, marker)}"
    _write(tmp_path, files)
    before = _pytest(tmp_path)
    assert before.returncode == 0, before.stdout + before.stderr
    checked = run_cli("check", "--output-format", "json", ".", cwd=tmp_path)
    found = [d for d in json.loads(checked.stdout) if d["filename"].endswith(caller)]
    assert [(d["code"], d["fix"]["applicability"]) for d in found] == [("PPO001", "unsafe")], found
    assert f"(unsafe fix: {where} " in found[0]["message"], found[0]["message"]
    original = (tmp_path / caller).read_text()
    assert run_cli("apply", ".", cwd=tmp_path).returncode == 1
    assert (tmp_path / caller).read_text() == original
    after = _pytest(tmp_path)
    assert after.returncode == 0, after.stdout + after.stderr
    run_cli("apply", "--thread-config", ".", cwd=tmp_path)
    assert (tmp_path / caller).read_text() == original
    threaded = _pytest(tmp_path)
    assert threaded.returncode == 0, threaded.stdout + threaded.stderr
    # the oracle: the replacement takes no config, so the fix made anyway fails the tests
    assert run_cli("apply", "--unsafe-fixes", ".", cwd=tmp_path).returncode == 0
    assert (tmp_path / caller).read_text() != original
    broken = _pytest(tmp_path)
    assert broken.returncode == 1 and "positional argument" in broken.stdout, broken.stdout


def test_the_reasons_name_the_hook_the_patcher_and_the_namespace(tmp_path: Path) -> None:
    """The reasons say what was found: the hook and its form, the string and the patcher's
    ``path:line``, the namespace code of unknown text runs in."""
    expected = {
        "path-hooks-entry-serving-a-fake-verl": "tests/conftest.py:37 adds an import hook "
        "(monkeypatch.setattr of sys.path_hooks), which may serve verl's module with a function taking no config",
        "decorator-override-by-module-attr-string": "app/compat.py:14 names the runtime function "
        "(`verl.trainer.constants_ppo:get_ppo_ray_runtime_env`) where a patcher setting attributes named "
        "at run time on modules imported by name (app/compat.py:8) may be given it",
        "patcher-in-another-file-given-module-and-name": "app/compat.py:8 names the runtime function "
        "(`verl.trainer.constants_ppo, get_ppo_ray_runtime_env`) where a patcher setting attributes named "
        "at run time on modules imported by name (app/registry.py:11) may be given it",
        "eval-compile-exec-into-verl-s-namespace": "app/boot.py:6 runs code not known before it runs in "
        "the namespace of `constants_ppo` (`exec`, or `eval` of code compiled for `exec`)",
    }
    for name, reason in expected.items():
        root = tmp_path / name
        root.mkdir()
        files, _, caller = DOUBLES_26H[name]
        _write(root, files)
        checked = run_cli("check", "--output-format", "json", ".", cwd=root)
        messages = [d["message"] for d in json.loads(checked.stdout) if d["filename"].endswith(caller)]
        assert len(messages) == 1 and reason in messages[0], (name, messages)


def test_a_dynamic_patcher_alone_leaves_the_fix_safe(tmp_path: Path) -> None:
    """A patcher of modules imported by name, with no string naming the function anywhere,
    replaces nothing the call reaches: the fix stays safe (and the tests still pass after
    it: the launcher gets verl's function)."""
    files = {
        "app/launcher.py": THROUGH_COMPAT,
        "app/compat.py": OVERRIDE + "\n\n@override('app.settings:DEBUG')\ndef debug():\n    return True\n",
        "app/settings.py": "DEBUG = False\n",
        "tests/test_launcher.py": FAKED_TEST.replace("== {'fake': 1}", "== {'got_config': True}"),
    }
    _write(tmp_path, files)
    checked = run_cli("check", "--output-format", "json", ".", cwd=tmp_path)
    found = [(d["code"], d["fix"]["applicability"]) for d in json.loads(checked.stdout)]
    assert found == [("PPO001", "safe")], checked.stdout
    assert run_cli("apply", ".", cwd=tmp_path).returncode == 0
    assert _pytest(tmp_path).returncode == 0


# -- the readers, alone ------------------------------------------------------------------

@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # import hooks: any module (``"*"`` in ``sys.modules``), the form naming the hook
        ("sys.meta_path.insert(0, Finder())", [("*", None, "modules", "import hook: sys.meta_path.insert")]),
        ("sys.path_hooks.append(hook)", [("*", None, "modules", "import hook: sys.path_hooks.append")]),
        ("sys.path_importer_cache.update({'<x>': f})",
         [("*", None, "modules", "import hook: sys.path_importer_cache.update")]),
        ("monkeypatch.setattr(sys, 'path_hooks', [h, *sys.path_hooks])",
         [("*", None, "modules", "import hook: monkeypatch.setattr of sys.path_hooks")]),
        ("mock.patch('sys.meta_path', [f])", [("*", None, "modules", "import hook: mock.patch of sys.meta_path")]),
        ("monkeypatch.setitem(sys.path_importer_cache, '<x>', f)",
         [("*", None, "modules", "import hook: monkeypatch.setitem of sys.path_importer_cache")]),
        ("importlib.machinery.FileFinder.path_hook((Loader, ['.py']))",
         [("*", None, "modules", "import hook: importlib.machinery.FileFinder.path_hook")]),
        # reading or removing a hook adds none; an attribute of another name is no hook
        ("sys.meta_path.remove(f)", []),
        ("len(sys.path_hooks)", []),
        ("monkeypatch.setattr(sys, 'argv', ['x'])", [("argv", "sys", "attribute", "monkeypatch.setattr")]),
        # eval as exec: code of unknown text in a module's namespace; a constant read
        ("eval(compile(text, path, 'exec'), vars(cp))", [("*", "cp", "attribute", "exec")]),
        ("eval(compile('get_ppo_ray_runtime_env = f', '<s>', 'exec'), cp.__dict__)",
         [("get_ppo_ray_runtime_env", "cp", "attribute", "exec")]),
        ("builtins.eval(code, vars(cp))", [("*", "cp", "attribute", "exec")]),
        ("eval('1 + 2', vars(cp))", []),
        # a bare eval of unknown text reads a value; compiled for statements, it is exec
        ("eval(args.expr)", []),
        ("eval(compile(text, p, 'eval'))", []),
        ("eval(compile(text, p, 'exec'))", [("*", None, "globals", "exec")]),
        ("eval('(get_ppo_ray_runtime_env := f)')", [("get_ppo_ray_runtime_env", None, "globals", "exec")]),
        ("eval(code, {})", []),
        ("model.eval()", []),
    ],
)
def test_import_hooks_and_eval_are_rows_of_the_table(source: str, expected: list) -> None:
    call = ast.parse(source).body[0].value
    got = [
        (r.name, ast.unparse(r.owner) if r.owner is not None else r.module, r.space, r.form)
        for r in call_replacements(call)
    ]
    assert got == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (b"exec(SRC, vars(cp))\n", True),
        (b"builtins.exec(open(p).read(), cp.__dict__)\n", True),
        (b"eval(compile(t, p, 'exec'), vars(cp))\n", True),
        (b"sys.path_hooks.insert(0, hook)\n", True),
        (b"monkeypatch.setattr(sys, 'meta_path', [f])\n", True),
        (b"model.eval()\nrunner.exec(cmd)\n", False),
        (b"x = compile_all(paths)\n", False),
    ],
)
def test_files_running_code_or_adding_hooks_are_read_by_the_look_out(text: bytes, expected: bool) -> None:
    """A file naming neither the function nor verl's module is parsed by the look-out when
    it may run code of unknown text or add an import hook (:func:`_unknown_forms`)."""
    from ppo_migrate.rules.patches import _unknown_forms

    assert _unknown_forms(text) is expected


def test_hook_assignments_are_import_hooks() -> None:
    tree = ast.parse(
        "import sys\n"
        "sys.meta_path = [F(), *sys.meta_path]\n"  # 2
        "sys.path_hooks += [h]\n"  # 3
        "sys.path_importer_cache['<x>'] = f\n"  # 4
        "self.meta_path = []\n"  # 5: not sys's
    )
    got = [(r.line, r.space, r.form) for r in replacements(tree) if r.space == "modules"]
    assert got == [
        (2, "modules", "import hook: sys.meta_path assigned"),
        (3, "modules", "import hook: sys.path_hooks assigned"),
        (4, "modules", "import hook: sys.path_importer_cache[...] assigned"),
    ]


def test_dynamic_patchers_set_attributes_named_at_run_time_on_modules_imported_by_name() -> None:
    tree = ast.parse(
        "import importlib, sys\n"
        "def a(m, n, f):\n    setattr(importlib.import_module(m), n, f)\n"  # 3
        "def b(m, n, f):\n    setattr(sys.modules[m], n, f)\n"  # 5
        "def _resolve(spec):\n    mod, _, attr = spec.partition(':')\n    return importlib.import_module(mod), attr\n"
        "def c(t, f):\n    owner, name = _resolve(t)\n    setattr(owner, name, f)\n"  # 11
        "def d(m, n, f):\n    vars(__import__(m, fromlist=['x']))[n] = f\n"  # 13
        "def e(m, f):\n    setattr(importlib.import_module(m), 'DEBUG', f)\n"  # a constant name: no
        "def g(o, n, f):\n    setattr(o, n, f)\n"  # an object not imported by name: no
    )
    assert dynamic_patchers(tree) == [3, 5, 11, 13]


def test_strings_naming_the_function_with_its_module() -> None:
    """Qualified (``.`` or ``:``), or the name beside a module's among one call's arguments;
    not a docstring, a bare name, a name read by ``getattr`` or prose."""
    tree = ast.parse(
        '"""verl.trainer.constants_ppo:get_ppo_ray_runtime_env"""\n'
        "A = 'verl.trainer.constants_ppo:get_ppo_ray_runtime_env'\n"  # 2
        "B = 'launcher.get_ppo_ray_runtime_env'\n"  # 3
        "replace('verl.trainer.constants_ppo', 'get_ppo_ray_runtime_env', f)\n"  # 4
        "C = 'get_ppo_ray_runtime_env'\n"
        "D = getattr(m, 'get_ppo_ray_runtime_env')\n"
        "E = 'call verl.get_ppo_ray_runtime_env first'\n"
    )
    got = list(_qualified_mentions(tree, frozenset({"get_ppo_ray_runtime_env"})))
    assert got == [
        ("verl.trainer.constants_ppo", 2, "verl.trainer.constants_ppo:get_ppo_ray_runtime_env"),
        ("launcher", 3, "launcher.get_ppo_ray_runtime_env"),
        ("verl.trainer.constants_ppo", 4, "verl.trainer.constants_ppo, get_ppo_ray_runtime_env"),
    ]
