"""Trial 26g: test doubles and run-time rebinding in places the table did not read.

Three families, each a project *run* (its pytest tests) before and after a plain ``apply``
and ``apply --thread-config``: what ran still runs, because the call is left alone with an
unsafe fix whose reason names the double's file and line; the oracle: the fix made anyway
(``--unsafe-fixes``) fails the tests.

1. Python run from text the tool did not read as code: the ``import`` lines of a ``.pth``
   file (``site.addsitedir``), and string constants holding code that is ``exec``'d, written
   to a ``.pth`` or written as a fake ``constants_ppo.py`` put first on ``sys.path``.
2. The function replaced in a module's globals by other means: ``runpy``'s
   ``init_globals``, ``fn.__globals__[...]``, ``exec(code, vars(module))``.
3. A fake module loaded under verl's module name (``SourceFileLoader(...).load_module()``,
   ``spec_from_file_location`` + ``sys.modules[spec.name]``).
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest
from cli_helpers import run_cli
from ppo_migrate.rules.embedded_python import _pth_lines, string_code
from ppo_migrate.rules.patches import call_replacements
from test_patches_doubles import CFG, DIRECT, FAKED_TEST, OMEGA, _line_of, _pytest, _write

#: a launcher importing verl's function when it runs (a module loaded by a conftest under
#: verl's name is found in ``sys.modules`` then)
LAZY = (
    "def launch(config):\n    from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n"
    "    return get_ppo_ray_runtime_env()\n"
)
#: a module that binds verl's function only when the runner did not seed one (trial 26g, G-B9)
SEEDED = (
    "if 'get_ppo_ray_runtime_env' not in globals():\n"
    "    from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def launch(config):\n    return get_ppo_ray_runtime_env()\n"
)
#: a zero-argument fake module's text
FAKE_MODULE = "def get_ppo_ray_runtime_env():\n    return {'fake': 1}\n"

#: name -> (files, (the file holding the double, text on its line), the calling file)
DOUBLES_26G: dict[str, tuple[dict[str, str], tuple[str, str], str]] = {
    # -- 1. Python in text not read as code ---------------------------------------------
    "pth-file-added-by-a-conftest": ({  # G-B1
        "app/launcher.py": DIRECT,
        "tests/conftest.py": "import pathlib\nimport site\n\n"
        "site.addsitedir(str(pathlib.Path(__file__).parent / 'site'))\n",
        "tests/site/zz_fake.pth": "# a comment, then a folder, then code\nextra\n"
        "import app.launcher as _l; _l.get_ppo_ray_runtime_env = lambda: {'fake': 1}\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("tests/site/zz_fake.pth", "import app"), "app/launcher.py"),
    "pth-rebinding-verl-s-module": ({  # G-B10: the fake is the project's own legacy function
        "app/launcher.py": DIRECT,
        "app/compat.py": "def legacy():\n    return {'fake': 1}\n",
        "tests/conftest.py": "import os\nimport site\n\n"
        "site.addsitedir(os.path.join(os.path.dirname(__file__), os.pardir, 'site_extra'))\n",
        "site_extra/proj.pth": "import verl.trainer.constants_ppo as _c, app.compat; "
        "_c.get_ppo_ray_runtime_env = app.compat.legacy\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("site_extra/proj.pth", "import verl"), "app/launcher.py"),
    "pth-text-written-by-a-conftest": ({  # G-B7
        "app/launcher.py": DIRECT,
        "tests/conftest.py": "import os\nimport site\nimport tempfile\n\n"
        "LINE = \"import app.launcher as _l; _l.get_ppo_ray_runtime_env = lambda: {'fake': 1}\\n\"\n"
        "_d = tempfile.mkdtemp()\n"
        "with open(os.path.join(_d, 'fake.pth'), 'w') as fh:\n    fh.write(LINE)\n"
        "site.addsitedir(_d)\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("tests/conftest.py", "LINE ="), "app/launcher.py"),
    "exec-of-a-code-constant": ({  # G-B8
        "app/launcher.py": DIRECT,
        "tests/conftest.py": "import pytest\n\n"
        "FAKE_SRC = \"from app import launcher\\nlauncher.get_ppo_ray_runtime_env = lambda: {'fake': 1}\\n\"\n\n\n"
        "@pytest.fixture(autouse=True)\ndef _fake():\n    exec(FAKE_SRC, {})\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("tests/conftest.py", "FAKE_SRC ="), "app/launcher.py"),
    "fake-module-written-by-a-fixture": ({  # G-B6
        "app/launcher.py": LAZY,
        "tests/conftest.py": "import sys\nimport textwrap\n\nimport pytest\n\n"
        "STUB = textwrap.dedent('''\n"
        "    def get_ppo_ray_runtime_env():\n"
        "        return {'fake': 1}\n"
        "''')\n\n\n"
        "@pytest.fixture(autouse=True)\n"
        "def stub_verl(tmp_path, monkeypatch):\n"
        "    pkg = tmp_path / 'verl' / 'trainer'\n"
        "    pkg.mkdir(parents=True)\n"
        "    (tmp_path / 'verl' / '__init__.py').write_text('')\n"
        "    (pkg / '__init__.py').write_text('')\n"
        "    (pkg / 'constants_ppo.py').write_text(STUB)\n"
        "    for name in [m for m in sys.modules if m == 'verl' or m.startswith('verl.')]:\n"
        "        monkeypatch.delitem(sys.modules, name)\n"
        "    monkeypatch.syspath_prepend(str(tmp_path))\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("tests/conftest.py", "def get_ppo_ray_runtime_env"), "app/launcher.py"),
    "pth-added-by-sitecustomize": ({  # G-B15: sitecustomize on PYTHONPATH adds the folder
        "app/launcher.py": DIRECT,
        "sitecustomize.py": "import os\nimport site\n\n"
        "site.addsitedir(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'site.d'))\n",
        "site.d/00-compat.pth": "import verl.trainer.constants_ppo as c; "
        "c.get_ppo_ray_runtime_env = lambda: {'fake': 1}\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("site.d/00-compat.pth", "import verl"), "app/launcher.py"),
    "fake-package-copied-under-verl-s-name": ({  # G-B14: the fake's folder is not ``verl``
        "app/launcher.py": LAZY,
        "tests/fixtures/fake_rl/__init__.py": "",
        "tests/fixtures/fake_rl/trainer/__init__.py": "",
        "tests/fixtures/fake_rl/trainer/constants_ppo.py": FAKE_MODULE,
        "tests/conftest.py": "import pathlib\nimport shutil\nimport sys\n\nimport pytest\n\n\n"
        "@pytest.fixture(autouse=True)\n"
        "def stub_verl(tmp_path, monkeypatch):\n"
        "    shutil.copytree(pathlib.Path(__file__).parent / 'fixtures' / 'fake_rl', tmp_path / 'verl')\n"
        "    for name in [m for m in sys.modules if m == 'verl' or m.startswith('verl.')]:\n"
        "        monkeypatch.delitem(sys.modules, name)\n"
        "    monkeypatch.syspath_prepend(str(tmp_path))\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("tests/fixtures/fake_rl/trainer/constants_ppo.py", "def "), "app/launcher.py"),
    # -- 2. the function replaced in a module's globals by other means ------------------
    "runpy-run-module-init-globals": ({  # G-B9 (G-B4 is run_path's)
        "app/launcher.py": SEEDED,
        "tests/test_launcher.py": OMEGA + "import runpy\n\n\n"
        "def test_launch():\n"
        "    seeded = runpy.run_module('app.launcher', init_globals={'get_ppo_ray_runtime_env': lambda: {'fake': 1}})\n"
        f"    assert seeded['launch']({CFG}) == {{'fake': 1}}\n",
    }, ("app/launcher.py", "if 'get_ppo"), "app/launcher.py"),
    "runpy-seeds-not-known-before-it-runs": ({  # the runner's module and seeds computed
        "app/launcher.py": SEEDED,
        "tests/test_launcher.py": OMEGA + "import os\nimport runpy\n\n"
        "SEEDS = {'get_ppo_' + 'ray_runtime_env': lambda: {'fake': 1}}\n\n\n"
        "def test_launch():\n"
        "    seeded = runpy.run_module(os.environ.get('APP', 'app.launcher'), init_globals=SEEDS)\n"
        f"    assert seeded['launch']({CFG}) == {{'fake': 1}}\n",
    }, ("app/launcher.py", "if 'get_ppo"), "app/launcher.py"),
    "runpy-run-path-init-globals-after-name-error": ({  # G-B4
        "app/launcher.py": "try:\n    get_ppo_ray_runtime_env\nexcept NameError:\n"
        "    from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
        "def launch(config):\n    return get_ppo_ray_runtime_env()\n",
        "tests/test_launcher.py": OMEGA + "import runpy\n\n\n"
        "def test_launch():\n"
        "    seeded = runpy.run_path('app/launcher.py', init_globals=dict(get_ppo_ray_runtime_env=lambda: {'fake': 1}))\n"
        f"    assert seeded['launch']({CFG}) == {{'fake': 1}}\n",
    }, ("app/launcher.py", "    get_ppo_ray_runtime_env"), "app/launcher.py"),
    "function-globals-entry": ({  # G-B2
        "app/launcher.py": DIRECT,
        "tests/test_launcher.py": OMEGA + "import runpy\n\n\n"
        "def test_launch():\n"
        "    module = runpy.run_path('app/launcher.py')\n"
        "    module['launch'].__globals__['get_ppo_ray_runtime_env'] = lambda: {'fake': 1}\n"
        f"    assert module['launch']({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "__globals__"), "app/launcher.py"),
    "exec-in-a-module-s-namespace": ({  # k4_exec_into_module_dict
        "app/launcher.py": DIRECT,
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n"
        "def test_launch():\n"
        "    exec(\"get_ppo_ray_runtime_env = lambda: {'fake': 1}\", vars(launcher))\n"
        f"    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "exec("), "app/launcher.py"),
    "exec-of-a-constant-in-verl-s-namespace": ({  # k5_exec_into_verl_module_dict
        "app/launcher.py": "import app.boot  # noqa: F401\n" + DIRECT,
        "app/boot.py": "from verl.trainer import constants_ppo\n\n"
        "LEGACY_SRC = '''\ndef get_ppo_ray_runtime_env():\n    return {'fake': 1}\n'''\n\n"
        "exec(LEGACY_SRC, constants_ppo.__dict__)\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("app/boot.py", "def get_ppo_ray_runtime_env"), "app/launcher.py"),
    "override-table-in-a-data-file": ({  # G-B13: ``module:attr: module:attr`` applied at start-up
        "app/launcher.py": "import app.boot\n\napp.boot.apply_overrides()\n" + DIRECT,
        "app/compat.py": "def legacy():\n    return {'fake': 1}\n",
        "app/boot.py": "import importlib\nimport pathlib\n\nimport yaml\n\n\n"
        "def _resolve(spec):\n    module, _, attr = spec.partition(':')\n"
        "    return importlib.import_module(module), attr\n\n\n"
        "def apply_overrides():\n"
        "    path = pathlib.Path(__file__).parent.parent / 'conf' / 'overrides.yaml'\n"
        "    for target, source in yaml.safe_load(path.read_text()).items():\n"
        "        owner, name = _resolve(target)\n        home, attr = _resolve(source)\n"
        "        setattr(owner, name, getattr(home, attr))\n",
        "conf/overrides.yaml": "# legacy runtime env\n"
        "verl.trainer.constants_ppo:get_ppo_ray_runtime_env: app.compat:legacy\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("conf/overrides.yaml", "verl.trainer"), "app/launcher.py"),
    "interactive-interpreter-in-verl-s-namespace": ({  # n5_interactive_interpreter_runsource
        "app/launcher.py": "import app.boot  # noqa: F401\n" + DIRECT,
        "app/compat.py": "def legacy():\n    return {'fake': 1}\n",
        "app/boot.py": "import code\n\nfrom verl.trainer import constants_ppo\n\n"
        "code.InteractiveInterpreter(vars(constants_ppo)).runsource("
        "'from app.compat import legacy as get_ppo_ray_runtime_env')\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("app/boot.py", "runsource("), "app/launcher.py"),
    "module-class-swapped": ({  # n5_module_class_swap_property
        "app/launcher.py": "import app.boot  # noqa: F401\n" + DIRECT,
        "app/boot.py": "import sys\nimport types\n\nimport verl.trainer.constants_ppo  # noqa: F401\n\n\n"
        "def legacy():\n    return {'fake': 1}\n\n\n"
        "class _Compat(types.ModuleType):\n    @property\n    def get_ppo_ray_runtime_env(self):\n"
        "        return legacy\n\n\n"
        "sys.modules['verl.trainer.constants_ppo'].__class__ = _Compat\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("app/boot.py", "__class__ ="), "app/launcher.py"),
    # -- 3. a fake module loaded under verl's name --------------------------------------
    "source-file-loader-under-verl-s-name": ({  # G-B3
        "app/launcher.py": LAZY,
        "tests/fakes/constants_ppo.py": FAKE_MODULE,
        "tests/conftest.py": "import pathlib\nimport warnings\nfrom importlib.machinery import SourceFileLoader\n\n"
        "with warnings.catch_warnings():\n    warnings.simplefilter('ignore', DeprecationWarning)\n"
        "    SourceFileLoader('verl.trainer.constants_ppo', str(pathlib.Path(__file__).parent / 'fakes' / "
        "'constants_ppo.py')).load_module()\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("tests/conftest.py", "SourceFileLoader('verl"), "app/launcher.py"),
    "spec-from-file-location-put-by-its-name": ({  # G-B5's kin (``imp`` is gone in 3.12)
        "app/launcher.py": LAZY,
        "tests/fakes/constants_ppo.py": FAKE_MODULE,
        "tests/conftest.py": "import importlib.util\nimport pathlib\nimport sys\n\n"
        "spec = importlib.util.spec_from_file_location('verl.trainer.constants_ppo', "
        "pathlib.Path(__file__).parent / 'fakes' / 'constants_ppo.py')\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "sys.modules[spec.name] = module\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("tests/conftest.py", "sys.modules[spec.name]"), "app/launcher.py"),
}


#: the rows whose module reads the function's name as a value (PPO006 beside the call's finding)
VALUE_READ = frozenset({"runpy-run-path-init-globals-after-name-error"})


@pytest.mark.parametrize("name", sorted(DOUBLES_26G))
def test_a_double_the_table_did_not_read_keeps_running_after_apply(tmp_path: Path, name: str) -> None:
    """Trial 26g (G-B1..G-B10, k4/k5): the project's tests pass before and after ``apply``
    and ``apply --thread-config``; the call's fix is unsafe, its message naming the double's
    file and line; the oracle: the fix made anyway fails the tests."""
    files, (rel, marker), caller = DOUBLES_26G[name]
    where = f"{rel}:{_line_of(files, rel, marker)}"
    _write(tmp_path, files)
    before = _pytest(tmp_path)
    assert before.returncode == 0, before.stdout + before.stderr
    checked = run_cli("check", "--output-format", "json", ".", cwd=tmp_path)
    found = [d for d in json.loads(checked.stdout) if d["filename"].endswith(caller)]
    if name in VALUE_READ:  # the bare name read in ``try:``: a value the calls cannot be followed through
        assert [d["code"] for d in found if d["code"] == "PPO006"] == ["PPO006"], found
        found = [d for d in found if d["code"] != "PPO006"]
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
    # the oracle: the double takes no config, so the fix made anyway fails the tests
    # (a PPO006 finding remains where the name is read as a value)
    assert run_cli("apply", "--unsafe-fixes", ".", cwd=tmp_path).returncode == (1 if name in VALUE_READ else 0)
    assert (tmp_path / caller).read_text() != original
    broken = _pytest(tmp_path)
    assert broken.returncode == 1 and "positional argument" in broken.stdout, broken.stdout


# -- the readers, alone ------------------------------------------------------------------

WORDS = [b"get_ppo_ray_runtime_env"]


def test_a_pth_file_s_import_lines_are_code_at_their_lines() -> None:
    """``site`` runs a ``.pth`` line starting with ``import`` and a blank; folders, comments
    and lines naming nothing looked for are not read."""
    text = (
        "# comment get_ppo_ray_runtime_env\n"
        "some/folder\n"
        "import os; print('no name here')\n"
        "import\tverl.trainer.constants_ppo as c; c.get_ppo_ray_runtime_env = lambda: {}\n"
        "importlib_get_ppo_ray_runtime_env\n"
        "import x; get_ppo_ray_runtime_env = (\n"
    )
    found = list(_pth_lines("a.pth", text, WORDS))
    assert [(e.line, e.problem, e.form) for e in found] == [
        (4, None, "a .pth file's import line"),
        (6, "'(' was never closed (line 1)", "a .pth file's import line"),
    ]
    assert [s.lineno for s in found[0].tree.body] == [4, 4]
    assert ast.unparse(found[0].tree.body[1]) == "c.get_ppo_ray_runtime_env = lambda: {}"


def test_string_constants_holding_code_are_read_at_their_lines() -> None:
    """A constant naming the function that parses as statements is code; a patch target,
    a docstring, prose and a constant naming nothing looked for are not."""
    source = (
        '"""Docstring: launcher.get_ppo_ray_runtime_env = fake; x = 1."""\n'
        "TARGET = 'launcher.get_ppo_ray_runtime_env'\n"
        "PROSE = 'call get_ppo_ray_runtime_env; then wait'\n"
        "ONE = \"import launcher; launcher.get_ppo_ray_runtime_env = lambda: {}\"\n"
        "OTHER = 'import os; os.sep = 1'\n"
        "STUB = '''\n"
        "def get_ppo_ray_runtime_env():\n"
        "    return {}\n"
        "'''\n"
    )
    tree = ast.parse(source)
    found = [(line, [(type(s).__name__, s.lineno) for s in code.body])
             for code, line in string_code(tree, ["get_ppo_ray_runtime_env"])]
    assert found == [(4, [("Import", 4), ("Assign", 4)]), (6, [("FunctionDef", 7)])]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # loaders under verl's name: a sys.modules entry of ``constants_ppo`` in ``verl.trainer``
        ("SourceFileLoader('verl.trainer.constants_ppo', p)",
         [("constants_ppo", "verl.trainer", "modules", "SourceFileLoader")]),
        ("importlib.machinery.SourcelessFileLoader(name='verl.trainer.constants_ppo', path=p)",
         [("constants_ppo", "verl.trainer", "modules", "importlib.machinery.SourcelessFileLoader")]),
        ("imp.load_source('verl.trainer.constants_ppo', p)",
         [("constants_ppo", "verl.trainer", "modules", "imp.load_source")]),
        ("imp.load_package('verl', p)", [("verl", None, "modules", "imp.load_package")]),
        # a spec alone is in no sys.modules
        ("importlib.util.spec_from_file_location('verl.trainer.constants_ppo', p)", []),
        # a loader's own load_module() names nothing; a computed name is no entry
        ("loader.load_module()", []),
        ("imp.load_source(name, p)", []),
        # runpy's seeds: the names, in the module run (a path's module, or none)
        ("runpy.run_module('app.core', init_globals={'get_ppo_ray_runtime_env': f, 'x': 1})",
         [("get_ppo_ray_runtime_env", "app.core", "attribute", "runpy.run_module(init_globals=...)"),
          ("x", "app.core", "attribute", "runpy.run_module(init_globals=...)")]),
        ("run_path('train_core.py', dict(get_ppo_ray_runtime_env=f))",
         [("get_ppo_ray_runtime_env", "train_core", "attribute", "run_path(init_globals=...)")]),
        ("runpy.run_path(os.path.join(ROOT, 'train.py'), init_globals=seed)",
         [("*", None, "attribute", "runpy.run_path(init_globals=...)")]),
        ("runpy.run_path('train.py', run_name='__main__')", []),
        # exec in another object's namespace: that object's attribute
        ("exec('get_ppo_ray_runtime_env = f', vars(launcher))",
         [("get_ppo_ray_runtime_env", None, "attribute", "exec")]),
        ("exec(code, cp.__dict__)", [("*", None, "attribute", "exec")]),
        ("exec(code, {})", []),
        # ``code``'s interpreters run source in the namespace they were made with
        ("code.InteractiveInterpreter(vars(cp)).runsource('from c import f as get_ppo_ray_runtime_env')",
         [("get_ppo_ray_runtime_env", None, "attribute", "exec")]),
        ("InteractiveConsole(locals=vars(launcher)).push(line)", [("*", None, "attribute", "exec")]),
        ("InteractiveConsole(locals=ns).push(line)", []),
        ("shell.runsource(src)", []),
        # a module's class swapped by ``setattr``: any attribute of it
        ("setattr(cp, '__class__', Compat)", [("*", None, "attribute", "a `__class__` assignment")]),
    ],
)
def test_loaders_runners_and_exec_are_rows_of_the_table(source: str, expected: list) -> None:
    call = ast.parse(source).body[0].value
    got = [(r.name, r.module, r.space, r.form) for r in call_replacements(call)]
    assert got == expected


def test_exec_of_a_constant_reads_the_constant_s_code() -> None:
    """``exec(LEGACY_SRC, constants_ppo.__dict__)`` binds what ``LEGACY_SRC`` defines, on
    ``constants_ppo``."""
    from ppo_migrate.rules.patches import replacements

    tree = ast.parse(
        "from verl.trainer import constants_ppo\n"
        "LEGACY_SRC = 'def get_ppo_ray_runtime_env():\\n    return {}\\n'\n"
        "exec(LEGACY_SRC, constants_ppo.__dict__)\n"
    )
    got = [(r.name, ast.unparse(r.owner), r.space, r.line, r.form) for r in replacements(tree) if r.form == "exec"]
    assert got == [("get_ppo_ray_runtime_env", "constants_ppo", "attribute", 3, "exec")]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="imp is gone in Python 3.12")
def test_imp_load_source_keeps_running_after_apply(tmp_path: Path) -> None:
    """Trial 26g, G-B5: ``imp.load_source`` of a zero-argument fake under verl's name."""
    files = {
        "app/launcher.py": LAZY,
        "tests/fakes/constants_ppo.py": FAKE_MODULE,
        "tests/conftest.py": "import os\nimport warnings\n\n"
        "with warnings.catch_warnings():\n    warnings.simplefilter('ignore', DeprecationWarning)\n"
        "    import imp\n\n"
        "    imp.load_source('verl.trainer.constants_ppo', os.path.join(os.path.dirname(__file__), 'fakes', "
        "'constants_ppo.py'))\n",
        "tests/test_launcher.py": FAKED_TEST,
    }
    _write(tmp_path, files)
    assert _pytest(tmp_path).returncode == 0
    checked = run_cli("check", "--output-format", "json", ".", cwd=tmp_path)
    found = [d for d in json.loads(checked.stdout) if d["filename"].endswith("app/launcher.py")]
    line = _line_of(files, "tests/conftest.py", "imp.load_source")
    assert [(d["code"], d["fix"]["applicability"]) for d in found] == [("PPO001", "unsafe")], found
    assert f"(unsafe fix: tests/conftest.py:{line} puts a stand-in for `verl.trainer.constants_ppo` in sys.modules" \
        in found[0]["message"], found[0]["message"]
    assert run_cli("apply", ".", cwd=tmp_path).returncode == 1
    assert _pytest(tmp_path).returncode == 0


@pytest.mark.parametrize(
    ("text", "overrides", "expected"),
    [
        # an override table: the target, then a qualified replacement
        (b"verl.trainer.constants_ppo:get_ppo_ray_runtime_env: compat:legacy\n", True,
         [("verl.trainer.constants_ppo", 1)]),
        (b'{"launcher.get_ppo_ray_runtime_env": "compat.legacy"}\n', True, [("launcher", 1)]),
        (b"x = 1\nlauncher:get_ppo_ray_runtime_env = compat:legacy\n", True, [("launcher", 2)]),
        # outside the tests, a mention that maps to nothing is no override
        (b"entry: verl.trainer.constants_ppo:get_ppo_ray_runtime_env\n", True, []),
        (b"doc: see launcher.get_ppo_ray_runtime_env for details\n", True, []),
        # in the tests' data, every qualified target counts (``module:attr`` too)
        (b"fakes:\n  - launcher:get_ppo_ray_runtime_env\n", False, [("launcher", 2)]),
    ],
)
def test_data_files_name_targets_and_overrides(text: bytes, overrides: bool, expected: list) -> None:
    from ppo_migrate.rules.data_targets import dotted_targets

    assert list(dotted_targets(text, ["get_ppo_ray_runtime_env"], overrides)) == expected


def test_seeded_names_are_the_guards_of_a_binding() -> None:
    """``if NAME not in globals()`` and ``try: NAME / except NameError`` declare the name may
    be seeded; other tests and handlers do not."""
    from ppo_migrate.rules.patches import seeded_names

    tree = ast.parse(
        "if 'get_ppo_ray_runtime_env' not in globals():\n    pass\n"  # 1
        "if 'get_ppo_ray_runtime_env' in vars():\n    pass\n"  # 3
        "if 'other' not in globals():\n    pass\n"
        "if 'get_ppo_ray_runtime_env' in registry:\n    pass\n"
        "try:\n    get_ppo_ray_runtime_env\nexcept (ImportError, NameError):\n    pass\n"  # 10
        "try:\n    get_ppo_ray_runtime_env()\nexcept ValueError:\n    pass\n"
    )
    assert seeded_names(tree, ["get_ppo_ray_runtime_env"]) == [
        (1, "get_ppo_ray_runtime_env"), (3, "get_ppo_ray_runtime_env"), (10, "get_ppo_ray_runtime_env"),
    ]


def test_a_membership_test_of_globals_replaces_nothing_elsewhere(tmp_path: Path) -> None:
    """Trial 26g, G-W4: ``if NAME not in globals()`` in one module made another module's fix
    unsafe ("core.py:1 replaces the runtime function"); it reads the namespace only. That
    module's own call is unsafe (it may be seeded), the other's fix stays safe."""
    files = {"app/core.py": SEEDED, "app/launcher.py": DIRECT, "tests/test_launcher.py": FAKED_TEST.replace(
        "== {'fake': 1}", "== {'got_config': False}")}
    _write(tmp_path, files)
    checked = run_cli("check", "--output-format", "json", ".", cwd=tmp_path)
    found = sorted((d["filename"].rsplit("/", 2)[-2:][1], d["code"], d["fix"]["applicability"], d["message"])
                   for d in json.loads(checked.stdout))
    assert [f[:3] for f in found] == [("core.py", "PPO001", "unsafe"), ("launcher.py", "PPO001", "safe")], found
    assert "(unsafe fix: app/core.py:1 binds `get_ppo_ray_runtime_env` only where the module's globals lack it" in found[0][3]
