"""Trial 26i: replacements of the function the tool did not see (families 4 and 5).

Each project is *run* (its pytest tests) before and after a plain ``apply`` and
``apply --thread-config``: what ran still runs, because the call is left alone with an
unsafe fix whose reason names the replacement's file and line; the oracle: the fix made
anyway (``--unsafe-fixes``) fails the tests.

1. A verl package's ``__path__`` written (I-B1): a folder put first serves verl's module.
2. A module put in ``sys.modules`` under a key the tool does not read (I-B2), or under
   ``__name__`` of a fork's package holding verl's module (I-B7).
3. ``exec`` into verl's namespace reached through a module given by name, or through a
   function's ``__globals__`` (I-B3, I-B3b).
4. An item of verl's namespace keyed by a string built at run time, or by
   ``monkeypatch.setitem`` (I-B4).
5. ``__code__`` written through a ``for`` target (I-B6).
6. A module ``__getattr__`` given to verl's package, or defined by a fork's, serving its
   submodule (I-B8).
7. A dotted target built at run time (I-B9); ``vars(cp).update(run_path(p))`` (I-B10).

And the forms that certainly name something else keep the fix safe.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from cli_helpers import run_cli
from ppo_migrate.rules.patches import _another_function, _imported_modules, _module_key, replacements, string_env
from test_patches_doubles import CFG, DIRECT, FAKED_TEST, OMEGA, _line_of, _pytest, _write
from test_patches_doubles_26g import FAKE_MODULE

#: a launcher importing the boot module first, then verl's function
BOOTED = "import app.boot  # noqa: F401\n" + DIRECT
#: a launcher calling through the module, after the boot module
BOOTED_CP = (
    "import app.boot  # noqa: F401\nfrom verl.trainer import constants_ppo as cp\n\n\n"
    "def launch(config):\n    return cp.get_ppo_ray_runtime_env()\n"
)
#: a zero-argument function beside the boot module's replacement
LEGACY_FN = "def _legacy():\n    return {'fake': 1}\n\n\n"
#: the folder of the boot module, as a string
HERE = "str(pathlib.Path(__file__).resolve().parent / 'legacy')"


def _booted(boot: str, extra: dict[str, str] | None = None, launcher: str = BOOTED) -> dict[str, str]:
    return {"app/launcher.py": launcher, "app/boot.py": boot, "tests/test_launcher.py": FAKED_TEST, **(extra or {})}


#: name -> (files, (the file holding the replacement, text on its line), the calling file)
DOUBLES_26I: dict[str, tuple[dict[str, str], tuple[str, str], str]] = {
    # -- 1. a verl package's __path__ written (I-B1) ------------------------------------
    "path-of-verl-trainer-inserted": (_booted(
        f"import pathlib\n\nimport verl.trainer\n\nverl.trainer.__path__.insert(0, {HERE})\n",
        {"app/legacy/constants_ppo.py": FAKE_MODULE},
    ), ("app/boot.py", "__path__.insert"), "app/launcher.py"),
    "path-sliced-through-sys-modules": (_booted(
        f"import pathlib\nimport sys\n\nimport verl.trainer  # noqa: F401\n\n"
        f"sys.modules['verl.trainer'].__path__[:0] = [{HERE}]\n",
        {"app/legacy/constants_ppo.py": FAKE_MODULE},
    ), ("app/boot.py", "__path__[:0]"), "app/launcher.py"),
    "path-assigned-on-a-package-given-by-name": (_booted(
        f"import importlib\nimport pathlib\n\n_pkg = importlib.import_module('verl.trainer')\n"
        f"_pkg.__path__ = [{HERE}, *_pkg.__path__]\n",
        {"app/legacy/constants_ppo.py": FAKE_MODULE},
    ), ("app/boot.py", "_pkg.__path__ ="), "app/launcher.py"),
    # -- 2. sys.modules under a key not read (I-B2) -------------------------------------
    "sys-modules-keyed-by-a-helper-s-parameter": (_booted(
        "import importlib.util\nimport pathlib\nimport sys\n\n_MOD = 'constants_ppo'\n\n\n"
        "def _load(name, path):\n"
        "    spec = importlib.util.spec_from_file_location(name, path)\n"
        "    module = importlib.util.module_from_spec(spec)\n"
        "    spec.loader.exec_module(module)\n"
        "    sys.modules[name] = module\n"
        "    return module\n\n\n"
        "_load(f'verl.trainer.{_MOD}', pathlib.Path(__file__).resolve().parent / 'compat' / 'legacy.py')\n",
        {"app/compat/legacy.py": FAKE_MODULE},
    ), ("app/boot.py", "sys.modules[name]"), "app/launcher.py"),
    "sys-modules-keyed-by-a-spec-s-name": (_booted(
        "import importlib.util\nimport pathlib\nimport sys\n\n_MOD = 'constants_ppo'\n"
        "spec = importlib.util.spec_from_file_location(f'verl.trainer.{_MOD}', "
        "pathlib.Path(__file__).resolve().parent / 'compat' / 'legacy.py')\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "sys.modules[spec.name] = module\n",
        {"app/compat/legacy.py": FAKE_MODULE},
    ), ("app/boot.py", "sys.modules[spec.name]"), "app/launcher.py"),
    # -- 3. exec into a namespace reached by name or through __globals__ (I-B3, I-B3b) --
    "exec-into-getattr-dict-of-import-module": (_booted(
        "import importlib\nimport pathlib\n\n_T = importlib.import_module('verl.trainer.constants_ppo')\n"
        "for p in sorted(pathlib.Path(__file__).resolve().parent.joinpath('patches').glob('*.py')):\n"
        "    exec(p.read_text(), getattr(_T, '__dict__'))\n",
        {"app/patches/ray_env.py": FAKE_MODULE},
    ), ("app/boot.py", "exec("), "app/launcher.py"),
    "exec-into-vars-of-dunder-import-fromlist": (_booted(
        "import pathlib\n\n_T = __import__('verl.trainer.constants_ppo', fromlist=['_'])\n"
        "for p in sorted(pathlib.Path(__file__).resolve().parent.joinpath('patches').glob('*.py')):\n"
        "    exec(p.read_text(), vars(_T))\n",
        {"app/patches/ray_env.py": FAKE_MODULE},
    ), ("app/boot.py", "exec("), "app/launcher.py"),
    "exec-into-vars-of-sys-modules-get": (_booted(
        "import pathlib\nimport sys\n\nimport verl.trainer.constants_ppo  # noqa: F401\n\n"
        "_T = sys.modules.get('verl.trainer.constants_ppo')\n"
        "for p in sorted(pathlib.Path(__file__).resolve().parent.joinpath('patches').glob('*.py')):\n"
        "    exec(p.read_text(), vars(_T))\n",
        {"app/patches/ray_env.py": FAKE_MODULE},
    ), ("app/boot.py", "exec("), "app/launcher.py"),
    "exec-into-the-function-s-globals": (_booted(
        "import pathlib\n\nimport verl.trainer.constants_ppo as cp\n\n"
        "for p in sorted(pathlib.Path(__file__).resolve().parent.joinpath('patches').glob('*.py')):\n"
        "    exec(p.read_text(), cp.get_ppo_ray_runtime_env.__globals__)\n",
        {"app/patches/ray_env.py": FAKE_MODULE}, BOOTED_CP,
    ), ("app/boot.py", "exec("), "app/launcher.py"),
    "exec-into-getattr-globals-held-by-a-name": (_booted(
        "import pathlib\n\nimport verl.trainer.constants_ppo as cp\n\n"
        "_ns = getattr(cp.get_ppo_ray_runtime_env, '__globals__')\n"
        "for p in sorted(pathlib.Path(__file__).resolve().parent.joinpath('patches').glob('*.py')):\n"
        "    exec(p.read_text(), _ns)\n",
        {"app/patches/ray_env.py": FAKE_MODULE}, BOOTED_CP,
    ), ("app/boot.py", "exec("), "app/launcher.py"),
    # -- 4. a namespace's item keyed by a string built at run time (I-B4) ---------------
    "vars-item-keyed-by-a-concatenation": (_booted(
        "import verl.trainer.constants_ppo as cp\n\n\n" + LEGACY_FN
        + "vars(cp)['get_ppo_ray_' + 'runtime_env'] = _legacy\n", None, BOOTED_CP,
    ), ("app/boot.py", "vars(cp)["), "app/launcher.py"),
    "dict-item-keyed-by-an-f-string": (_booted(
        "import verl.trainer.constants_ppo as cp\n\nKIND = 'runtime'\n\n\n" + LEGACY_FN
        + "cp.__dict__[f'get_ppo_ray_{KIND}_env'] = _legacy\n", None, BOOTED_CP,
    ), ("app/boot.py", "cp.__dict__["), "app/launcher.py"),
    "vars-item-keyed-by-a-loop-variable": (_booted(
        "import verl.trainer.constants_ppo as cp\n\n\n" + LEGACY_FN
        + "for _name in [n for n in dir(cp) if n.endswith('_runtime_env')]:\n    vars(cp)[_name] = _legacy\n",
        None, BOOTED_CP,
    ), ("app/boot.py", "vars(cp)[_name]"), "app/launcher.py"),
    "setitem-of-vars-keyed-by-a-concatenated-constant": ({  # a test double
        "app/launcher.py": DIRECT,
        "tests/conftest.py": "import pytest\n\nfrom app import launcher\n\n_FN = 'get_ppo_ray_' + 'runtime_env'\n\n\n"
        "@pytest.fixture(autouse=True)\ndef cpu_env(monkeypatch):\n"
        "    monkeypatch.setitem(vars(launcher), _FN, lambda: {'fake': 1})\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("tests/conftest.py", "monkeypatch.setitem("), "app/launcher.py"),
    "patch-dict-of-vars-keyed-by-a-concatenation": ({  # a test double
        "app/launcher.py": DIRECT,
        "tests/test_launcher.py": "from unittest import mock\n\n" + OMEGA + "from app import launcher\n\n"
        "KIND = 'runtime'\n\n\ndef test_launch():\n"
        "    with mock.patch.dict(vars(launcher), {'get_ppo_ray_' + KIND + '_env': lambda: {'fake': 1}}):\n"
        f"        assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "mock.patch.dict("), "app/launcher.py"),
    "namespace-updated-from-run-path": (_booted(
        "import pathlib\nimport runpy\n\nimport verl.trainer.constants_ppo as cp\n\n"
        "for _p in sorted(pathlib.Path(__file__).resolve().parent.joinpath('patches').glob('*.py')):\n"
        "    vars(cp).update(runpy.run_path(str(_p)))\n",
        {"app/patches/ray_env.py": FAKE_MODULE}, BOOTED_CP,
    ), ("app/boot.py", "vars(cp).update("), "app/launcher.py"),
    "dict-of-import-module-updated-from-run-path": (_booted(
        "import importlib\nimport pathlib\nimport runpy\n\n"
        "_ns = runpy.run_path(str(pathlib.Path(__file__).resolve().parent / 'patches' / 'ray_env.py'))\n"
        "importlib.import_module('verl.trainer.constants_ppo').__dict__.update(_ns)\n",
        {"app/patches/ray_env.py": FAKE_MODULE}, BOOTED_CP,
    ), ("app/boot.py", ".__dict__.update("), "app/launcher.py"),
    # -- 4b. a dotted target built at run time (I-B9) -----------------------------------
    "monkeypatch-setattr-of-an-f-string-target": ({
        "app/launcher.py": DIRECT,
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\nKIND = 'runtime'\n\n\n"
        "def test_launch(monkeypatch):\n"
        "    monkeypatch.setattr(f'app.launcher.get_ppo_ray_{KIND}_env', lambda: {'fake': 1})\n"
        f"    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "monkeypatch.setattr("), "app/launcher.py"),
    "monkeypatch-setattr-of-a-target-read-from-the-environment": ({
        "app/launcher.py": DIRECT,
        "tests/test_launcher.py": "import os\n\n" + OMEGA + "from app import launcher\n\n\n"
        "def test_launch(monkeypatch):\n"
        "    kind = os.environ.get('RAY_ENV_KIND', 'runtime')\n"
        "    monkeypatch.setattr('app.launcher.get_ppo_ray_' + kind + '_env', lambda: {'fake': 1})\n"
        f"    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "monkeypatch.setattr("), "app/launcher.py"),
    # -- 5. __code__ written through a for target (I-B6) --------------------------------
    "code-swapped-through-a-for-target": (_booted(
        "import verl.trainer.constants_ppo as cp\n\n\n" + LEGACY_FN
        + "for _fn in (cp.get_ppo_ray_runtime_env,):\n    _fn.__code__ = _legacy.__code__\n", None, BOOTED_CP,
    ), ("app/boot.py", "_fn.__code__"), "app/launcher.py"),
    # -- 6. a fork's package registering a legacy module under its own name (I-B7) ------
    "fork-package-registers-legacy-under-its-name": ({
        "stub/verl/trainer/__init__.py": "import sys\n\nfrom . import legacy\n\n"
        "sys.modules[f'{__name__}.constants_ppo'] = legacy\n",
        "stub/verl/trainer/legacy.py": FAKE_MODULE,
        "app/launcher.py": DIRECT,
        "tests/test_launcher.py": FAKED_TEST,
    }, ("stub/verl/trainer/__init__.py", "sys.modules["), "app/launcher.py"),
    # -- 7. a module __getattr__ given to verl's package (I-B8) --------------------------
    "fork-package-getattr-serving-a-kept-module": ({
        "stub/verl/trainer/__init__.py": "import importlib\n\n_ALIASES = {'constants_ppo': '._legacy'}\n\n\n"
        "def __getattr__(name):\n    if name in _ALIASES:\n"
        "        return importlib.import_module(_ALIASES[name], __name__)\n    raise AttributeError(name)\n",
        "stub/verl/trainer/_legacy.py": FAKE_MODULE,
        "app/launcher.py": "from verl.trainer import constants_ppo\n\n\n"
        "def launch(config):\n    return constants_ppo.get_ppo_ray_runtime_env()\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("stub/verl/trainer/__init__.py", "def __getattr__"), "app/launcher.py"),
    "package-getattr-assigned-serving-a-legacy-module": (_booted(
        "import importlib.util\nimport pathlib\n\nimport verl.trainer\n\n"
        "_spec = importlib.util.spec_from_file_location('ray_env_legacy', "
        "pathlib.Path(__file__).resolve().parent / 'legacy' / 'ray_env.py')\n"
        "_legacy = importlib.util.module_from_spec(_spec)\n_spec.loader.exec_module(_legacy)\n\n\n"
        "def _lazy(name):\n    if name == 'constants_ppo':\n        return _legacy\n    raise AttributeError(name)\n\n\n"
        "verl.trainer.__getattr__ = _lazy\n", {"app/legacy/ray_env.py": FAKE_MODULE}, BOOTED_CP,
    ), ("app/boot.py", "__getattr__ ="), "app/launcher.py"),
}


#: the rows whose boot module stores the function in a collection (PPO006 beside the call's)
STORED = {"code-swapped-through-a-for-target"}


@pytest.mark.parametrize("name", sorted(DOUBLES_26I))
def test_a_replacement_the_table_did_not_read_keeps_running_after_apply(tmp_path: Path, name: str) -> None:
    """Trial 26i (I-B1 to I-B6): the project's tests pass before and after ``apply`` and
    ``apply --thread-config``; the call's fix is unsafe, its message naming the
    replacement's file and line; the oracle: the fix made anyway fails the tests."""
    files, (rel, marker), caller = DOUBLES_26I[name]
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
    assert run_cli("apply", "--unsafe-fixes", ".", cwd=tmp_path).returncode == (1 if name in STORED else 0)
    assert (tmp_path / caller).read_text() != original
    broken = _pytest(tmp_path)
    assert broken.returncode == 1 and "positional argument" in broken.stdout, broken.stdout


def test_the_reasons_name_the_hook_the_key_the_namespace_and_the_swap(tmp_path: Path) -> None:
    """The reasons say what was found: the package's ``__path__`` and its form, a
    ``sys.modules`` key not known, the namespace unknown code runs in, the name written
    at run time, the function not known whose body is swapped."""
    expected = {
        "path-of-verl-trainer-inserted": "app/boot.py:5 adds an import hook (verl.trainer.__path__.insert), "
        "which may serve verl's module with a function taking no config",
        "path-sliced-through-sys-modules": "app/boot.py:6 adds an import hook "
        "(sys.modules['verl.trainer'].__path__[...] assigned), which may serve verl's module",
        "sys-modules-keyed-by-a-spec-s-name": "app/boot.py:9 puts a module under a name not known before "
        "it runs in sys.modules, whose function may take no config",
        "exec-into-vars-of-dunder-import-fromlist": "app/boot.py:5 runs code not known before it runs in "
        "the namespace of `_T`",
        "exec-into-the-function-s-globals": "app/boot.py:6 runs code not known before it runs in the "
        "namespace of `cp.get_ppo_ray_runtime_env.__globals__`",
        "vars-item-keyed-by-a-loop-variable": "app/boot.py:9 replaces an attribute of `cp` named at run "
        "time (an assignment)",
        "fork-package-registers-legacy-under-its-name": "stub/verl/trainer/__init__.py:5 puts a stand-in for "
        "`verl.trainer.constants_ppo` in sys.modules, whose function may take no config",
        "package-getattr-assigned-serving-a-legacy-module": "app/boot.py:17 gives `verl.trainer` a module "
        "`__getattr__` (an assignment), which may serve verl's module or the runtime function as one taking no config",
        "monkeypatch-setattr-of-a-target-read-from-the-environment": "tests/test_launcher.py:9 replaces an "
        "attribute of `app.launcher` named at run time (monkeypatch.setattr)",
        "fork-package-getattr-serving-a-kept-module": "stub/verl/trainer/__init__.py:6 defines a module "
        "`__getattr__` of `verl.trainer` (PEP 562), which may serve its submodule holding the runtime function",
        "dict-of-import-module-updated-from-run-path": "app/boot.py:6 replaces an attribute of "
        "`verl.trainer.constants_ppo` named at run time",
        "code-swapped-through-a-for-target": "app/boot.py:9 replaces the `__code__` of `_fn`, a function not "
        "known before it runs, which may be the runtime function, with one that may take no config",
    }
    for name, reason in expected.items():
        root = tmp_path / name
        root.mkdir()
        files, _, caller = DOUBLES_26I[name]
        _write(root, files)
        checked = run_cli("check", "--output-format", "json", ".", cwd=root)
        messages = [d["message"] for d in json.loads(checked.stdout) if d["filename"].endswith(caller)]
        assert len(messages) == 1 and reason in messages[0], (name, messages)


#: boot modules that certainly replace something else: the fix stays safe
OTHERS: dict[str, str] = {
    "a-project-package-s-path": "import pathlib\n\nimport app\n\napp.__path__.insert(0, str(pathlib.Path(__file__).parent))\n",
    "a-package-s-own-extend-path": "import pkgutil\n\n__path__ = pkgutil.extend_path([], __name__)\n",
    "stubs-for-a-list-of-named-modules": "import sys\nimport types\n\n"
    "for _n in ('fake_torch', 'fake_torch.cuda'):\n    sys.modules[_n] = types.ModuleType(_n)\n",
    "a-module-under-the-running-module-s-name": "import json\nimport sys\n\nsys.modules[__name__ + '.rt'] = json\n",
    "a-plugin-under-a-prefix-of-its-own": "import sys\nimport types\n\n"
    "for n in ['a', 'b']:\n    sys.modules[f'plugins.{n}'] = types.ModuleType(n)\n",
    "a-module-made-under-another-name": "import sys\nimport types\n\n"
    "_m = types.ModuleType('app_compat_rt')\nsys.modules[_m.__name__] = _m\n",
    "another-attribute-by-a-concatenation": "import verl.trainer.constants_ppo as cp\n\n"
    "vars(cp)['DEBUG' + '_FLAG'] = True\n",
    "a-function-of-the-file-swapped": "def helper():\n    return 1\n\n\ndef _new():\n    return 2\n\n\n"
    "helper.__code__ = _new.__code__\n",
    "exec-into-another-module-given-by-name": "import importlib\n\n"
    "_J = importlib.import_module('json')\nexec('x = 1', vars(_J))\n",
    "a-project-package-s-getattr": "import app\n\n\ndef _g(name):\n    raise AttributeError(name)\n\n\n"
    "app.__getattr__ = _g\n",
    "another-item-set-by-a-concatenated-key": "import verl.trainer.constants_ppo as cp\n\n"
    "K = 'DEBUG' + '_FLAG'\nvars(cp).setdefault(K, True)\n",
    # verl 0.9's own ``verl/tools/function_tool.py``: a key led by literal text no module
    # holding the function starts with
    "a-tool-loaded-under-a-literal-prefix": "import importlib.util\nimport sys\n\n\n"
    "def load(path):\n    module_name = '_app_tools_' + str(path).replace('/', '_')\n"
    "    spec = importlib.util.spec_from_file_location(module_name, path)\n"
    "    module = importlib.util.module_from_spec(spec)\n    sys.modules[module_name] = module\n"
    "    spec.loader.exec_module(module)\n    return module\n",
    # verl's own ``verl/utils/modelopt/qat_utils.py``: a list of the file's named ``modules``
    "a-list-named-modules": "modules = [1, 2]\nfor i in range(len(modules)):\n    modules[i] = modules[i] + 1\n",
    # verl 0.9's own ``verl/tools/tool_registry.py``: importlib's recipe, the module the
    # import system finds for the name put under that name
    "a-module-found-by-its-own-name": "import importlib.util\nimport sys\n\n\n"
    "def get_class(cls_name):\n    module_name, class_name = cls_name.rsplit('.', 1)\n"
    "    if module_name not in sys.modules:\n        spec = importlib.util.find_spec(module_name)\n"
    "        module = importlib.util.module_from_spec(spec)\n        sys.modules[module_name] = module\n"
    "        spec.loader.exec_module(module)\n    else:\n        module = sys.modules[module_name]\n"
    "    return getattr(module, class_name)\n",
}


@pytest.mark.parametrize("name", sorted(OTHERS))
def test_a_form_naming_something_else_leaves_the_fix_safe(tmp_path: Path, name: str) -> None:
    """Never refuse more than needed: a ``__path__`` of the project's own package, a key
    naming other modules (a ``for`` over constants, the running module's name, a prefix of
    its own, a module made under another name), a constant key naming another attribute,
    a function the file defines, unknown code run in another module: the fix stays safe,
    and the tests pass after it (the launcher gets verl's function with the config)."""
    files = {
        "app/launcher.py": BOOTED, "app/boot.py": OTHERS[name],
        "tests/test_launcher.py": FAKED_TEST.replace("== {'fake': 1}", "== {'got_config': True}"),
    }
    _write(tmp_path, files)
    checked = run_cli("check", "--output-format", "json", ".", cwd=tmp_path)
    found = [(d["filename"].rsplit("/", 1)[-1], d["code"], d["fix"]["applicability"])
             for d in json.loads(checked.stdout)]
    assert found == [("launcher.py", "PPO001", "safe")], checked.stdout
    assert run_cli("apply", ".", cwd=tmp_path).returncode == 0
    after = _pytest(tmp_path)
    assert after.returncode == 0, after.stdout + after.stderr


# -- the readers, alone ------------------------------------------------------------------

def test_path_writes_are_import_hooks_of_their_package() -> None:
    tree = ast.parse(
        "import importlib, sys, pkgutil\nimport verl.trainer, verl\n"
        "verl.trainer.__path__.insert(0, 'x')\n"  # 3
        "verl.trainer.__path__.extend(['x'])\n"  # 4
        "verl.trainer.__path__[:0] = ['x']\n"  # 5
        "verl.trainer.__path__ += ['x']\n"  # 6
        "verl.__path__ = pkgutil.extend_path(verl.__path__, 'verl')\n"  # 7
        "sys.modules['verl.trainer'].__path__.append('x')\n"  # 8
        "setattr(verl.trainer, '__path__', ['x'])\n"  # 9
        "__path__ = pkgutil.extend_path(__path__, __name__)\n"  # 10: the module's own
        "first = verl.trainer.__path__[0]\n"  # 11: a read
        "verl.trainer.__path__.remove('x')\n"  # 12: a removal adds no folder
    )
    got = sorted((r.line, r.name, ast.unparse(r.owner), r.space, r.form) for r in replacements(tree))
    assert got == [
        (3, "*", "verl.trainer", "modules", "import hook: verl.trainer.__path__.insert"),
        (4, "*", "verl.trainer", "modules", "import hook: verl.trainer.__path__.extend"),
        (5, "*", "verl.trainer", "modules", "import hook: verl.trainer.__path__[...] assigned"),
        (6, "*", "verl.trainer", "modules", "import hook: verl.trainer.__path__ assigned"),
        (7, "*", "verl", "modules", "import hook: verl.__path__ assigned"),
        (8, "*", "sys.modules['verl.trainer']", "modules",
         "import hook: sys.modules['verl.trainer'].__path__.append"),
        (9, "*", "verl.trainer", "modules", "import hook: verl.trainer.__path__ (setattr)"),
    ]


def test_modules_given_by_name_are_bound_as_imports() -> None:
    tree = ast.parse(
        "import importlib, sys\nM = 'verl.trainer.constants_ppo'\n"
        "a = importlib.import_module('verl.trainer.constants_ppo')\n"
        "b = __import__('verl.trainer.constants_ppo', fromlist=['x'])\n"
        "c = __import__('verl.trainer.constants_ppo')\n"  # the top package
        "d = sys.modules.get('verl.trainer')\n"
        "e = sys.modules['verl.trainer']\n"
        "f = importlib.import_module(M)\n"
        "g = importlib.import_module('.x', 'pkg')\n"  # relative: not read
        "h = importlib.import_module('a.b')\nh = 3\n"  # bound twice: not read
    )
    got = {k: v for k, v in _imported_modules(tree).items() if len(k) == 1}
    assert got == {
        "a": "verl.trainer.constants_ppo", "b": "verl.trainer.constants_ppo", "c": "verl",
        "d": "verl.trainer", "e": "verl.trainer", "f": "verl.trainer.constants_ppo",
    }


def test_sys_modules_keys_are_judged_on_the_tree() -> None:
    tree = ast.parse(
        "import sys, types\n"
        "for n in ('torch', 'torch.cuda'):\n    sys.modules[n] = object()\n"  # 3
        "sys.modules[__name__ + '.runtime'] = 1\n"  # 4
        "rt = types.ModuleType(__name__ + '.rt')\nsys.modules[rt.__name__] = rt\n"  # 6
        "sys.modules[f'plugins.{x}'] = 1\n"  # 7
        "m2 = types.ModuleType('verl.trainer.constants_ppo')\nsys.modules[m2.__name__] = m2\n"  # 9
        "def f(name):\n    sys.modules[name] = 1\n"  # 11
        "spec = spec_from_file_location(f'verl.{x}', p)\nsys.modules[spec.name] = 1\n"  # 13
    )
    env = string_env(tree)
    got = sorted((r.line, _module_key(r.key, tree, env)) for r in replacements(tree) if r.key is not None)
    assert got == [
        (3, ("known", frozenset({"torch", "torch.cuda"}))),
        (4, ("own", frozenset())),
        (6, ("own", frozenset())),
        (7, ("known", frozenset({"plugins"}))),
        (9, ("known", frozenset({"verl.trainer.constants_ppo"}))),
        (11, ("unknown", frozenset())),
        (13, ("known", frozenset({"verl"}))),
    ]


def test_names_known_to_be_another_function() -> None:
    tree = ast.parse(
        "from x import h\nimport m\n\ndef d():\n    pass\n\nf = m.legacy\ng = lambda: 1\n"
        "for l in ():\n    pass\nk = fns[0]\n\ndef p(q):\n    q.__code__ = 1\n"
    )
    got = {n: _another_function(tree, n) for n in ("h", "m", "d", "f", "g", "l", "k", "q", "unbound")}
    assert got == {"h": True, "m": True, "d": True, "f": True, "g": True,
                   "l": False, "k": False, "q": False, "unbound": False}


@pytest.mark.parametrize(
    "source, loads_itself",
    [
        # importlib's recipe (verl 0.9's ``verl/tools/tool_registry.py``): an import of ``name``
        ("def f(name):\n    spec = importlib.util.find_spec(name)\n"
         "    module = importlib.util.module_from_spec(spec)\n    sys.modules[name] = module\n", True),
        # a finder's own ``find_spec`` may serve anything (a fake verl)
        ("def f(name, finder):\n    spec = finder.find_spec(name)\n"
         "    module = importlib.util.module_from_spec(spec)\n    sys.modules[name] = module\n", False),
        # the key rebound between the spec and the write
        ("def f(name):\n    spec = importlib.util.find_spec(name)\n    name = 'verl.trainer.constants_ppo'\n"
         "    module = importlib.util.module_from_spec(spec)\n    sys.modules[name] = module\n", False),
        # a file's module under the name: no import of it
        ("def f(name, path):\n    spec = importlib.util.spec_from_file_location(name, path)\n"
         "    module = importlib.util.module_from_spec(spec)\n    sys.modules[name] = module\n", False),
    ],
)
def test_a_module_found_by_its_own_name_is_an_import(source: str, loads_itself: bool) -> None:
    from ppo_migrate.rules import patches

    tree = ast.parse(source)
    key = next(n for n in ast.walk(tree) if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store)).slice
    assert patches._loads_itself(key, tree) is loads_itself


@pytest.mark.parametrize(
    "source, local",
    [
        ("modules = [1, 2]\nfor i in range(2):\n    modules[i] = 0\n", True),
        ("from sys import modules\nmodules[k] = v\n", False),
        ("import sys\nmodules = sys.modules\nmodules[k] = v\n", False),
    ],
)
def test_a_list_named_modules_is_no_sys_modules(source: str, local: bool) -> None:
    from ppo_migrate.rules import patches

    tree = ast.parse(source)
    key = next(n for n in ast.walk(tree) if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store)).slice
    assert patches._local_modules_name(key, tree) is local


@pytest.mark.parametrize(
    "key, other",
    [
        ("'_verl_function_tools_' + path", True),  # verl 0.9's ``function_tool.py``
        ("f'plugins_{name}'", True),
        ("'verl' + rest", False),  # may be ``verl.trainer.constants_ppo``
        ("f'verl.trainer.{name}'", False),
        ("prefix + 'x'", False),  # nothing literal leads
    ],
)
def test_a_key_led_by_other_text_names_no_module_of_verl(key: str, other: bool) -> None:
    from ppo_migrate.rules import patches

    tree = ast.parse(f"sys.modules[{key}] = m\n")
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.Subscript)).slice
    assert patches._other_module_key(node, tree, ["verl.trainer.constants_ppo"]) is other
