"""Issue 26, families 4-6: test doubles and run-time rebinding the tool must see, and calls
through the project's own re-exports it must find.

Each project is *run* (its pytest tests) before and after a plain ``apply``: what ran still
runs. For families 4 and 5 the call is then left alone, or gets an unsafe fix whose reason
names the double (file and line); for family 6 ``check`` reports the call and ``apply``'s fix
reaches verl's definition with the config. Every project declares the verl it runs
(``requirements.txt``: ``verl>=0.9``) and carries a stub of it under ``stub/`` whose function
takes a config and rejects anything that is not one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import warm_python
from cli_helpers import run_cli
from tree_runs import run_per_tree

#: verl >= 0.9's signature (PR #6976): a config, checked; it says whether it got one
STRICT_VERL = (
    "def get_ppo_ray_runtime_env(config=None):\n"
    "    if config is not None and 'trainer' not in config:\n"
    "        raise TypeError(f'not a config: {config!r}')\n"
    "    return {'got_config': config is not None}\n"
)
BASE = {
    "requirements.txt": "verl>=0.9\n",
    "stub/verl/__init__.py": "",
    "stub/verl/trainer/__init__.py": "",
    "stub/verl/trainer/constants_ppo.py": STRICT_VERL,
    "app/__init__.py": "",
}
FROM_IMPORT = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
#: a launcher whose call goes through the module: ``constants_ppo.get_...()``
THROUGH_MODULE = (
    "from verl.trainer import constants_ppo\n\n\n"
    "def launch(config):\n    return constants_ppo.get_ppo_ray_runtime_env()\n"
)
DIRECT = FROM_IMPORT + "\n\ndef launch(config):\n    return get_ppo_ray_runtime_env()\n"
CFG = "OmegaConf.create({'trainer': {}})"
OMEGA = "from omegaconf import OmegaConf\n"
TEST_HEAD = "import sys\nimport types\nfrom unittest import mock\n\n"
FAKE = "def fake():\n    return {'fake': 1}\n\n\n"
CLASS_FAKE = (
    "class Fake:\n    @staticmethod\n    def get_ppo_ray_runtime_env():\n"
    "        return {'fake': 1}\n\n\n"
)

#: a launcher calling the function through the project's package (``pkg`` re-exports it)
VIA_PKG = "from pkg import get_ppo_ray_runtime_env\n\n\ndef launch(config):\n    return get_ppo_ray_runtime_env()\n"

#: a zero-argument function of the project's, and a launcher loading a module that
#: installs it at run time before importing verl's function
LEGACY = "def get_ppo_ray_runtime_env():\n    return {'fake': 1}\n"
THROUGH_COMPAT = "import app.compat  # noqa: F401\n" + DIRECT
#: a test expecting the launcher to reach the fake
FAKED_TEST = (
    OMEGA + "from app import launcher\n\n\n"
    f"def test_launch():\n    assert launcher.launch({CFG}) == {{'fake': 1}}\n"
)

#: a pytest plugin whose autouse fixture replaces the launcher's function
PLUGIN = (
    "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef stub(monkeypatch):\n"
    "    monkeypatch.setattr('app.launcher.get_ppo_ray_runtime_env', lambda: {'fake': 1})\n"
)

#: name -> (files, (the file holding the double, text on its line: the reason must name
#: that file and line), the file whose call must be left alone or made unsafe)
DOUBLES: dict[str, tuple[dict[str, str], tuple[str, str], str]] = {
    # -- family 4: test doubles ---------------------------------------------------------
    "sys-modules-namespace": ({
        "app/launcher.py": DIRECT,
        "tests/test_launcher.py": OMEGA + TEST_HEAD
        + "sys.modules['verl.trainer.constants_ppo'] = types.SimpleNamespace(\n"
        "    get_ppo_ray_runtime_env=lambda: {'fake': 1})\n"
        "from app import launcher  # noqa: E402\n\n\n"
        f"def test_launch():\n    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "sys.modules["), "app/launcher.py"),
    "sys-modules-importlib": ({
        "app/launcher.py": DIRECT,
        "tests/fake_constants.py": "def get_ppo_ray_runtime_env():\n    return {'fake': 1}\n",
        "tests/test_launcher.py": OMEGA + "import importlib.util\nimport pathlib\nimport sys\n\n"
        "spec = importlib.util.spec_from_file_location(\n"
        "    'verl.trainer.constants_ppo', pathlib.Path(__file__).with_name('fake_constants.py'))\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "sys.modules['verl.trainer.constants_ppo'] = module\n"
        "from app import launcher  # noqa: E402\n\n\n"
        f"def test_launch():\n    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "sys.modules["), "app/launcher.py"),
    "fake-package-on-sys-path": ({
        "app/launcher.py": DIRECT,
        "tests/conftest.py": "import pathlib\nimport sys\n\n"
        "sys.path.insert(0, str(pathlib.Path(__file__).parent / 'fakes'))\n",
        "tests/fakes/verl/__init__.py": "",
        "tests/fakes/verl/trainer/__init__.py": "",
        "tests/fakes/verl/trainer/constants_ppo.py": "def get_ppo_ray_runtime_env():\n"
        "    return {'fake': 1}\n",
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n"
        f"def test_launch():\n    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/fakes/verl/trainer/constants_ppo.py", "def "), "app/launcher.py"),
    "module-attribute-assigned": ({
        "app/launcher.py": THROUGH_MODULE,
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n" + CLASS_FAKE
        + "def test_launch():\n    launcher.constants_ppo = Fake\n"
        f"    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "= Fake"), "app/launcher.py"),
    "module-attribute-monkeypatched": ({
        "app/launcher.py": THROUGH_MODULE,
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n" + CLASS_FAKE
        + "def test_launch(monkeypatch):\n    monkeypatch.setattr(launcher, 'constants_ppo', Fake)\n"
        f"    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "monkeypatch.setattr"), "app/launcher.py"),
    "patched-alias": ({
        "app/launcher.py": FROM_IMPORT + "\nmake_env = get_ppo_ray_runtime_env\n\n\n"
        "def launch(config):\n    return make_env()\n",
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n"
        "def test_launch(monkeypatch):\n"
        "    monkeypatch.setattr(launcher, 'make_env', lambda: {'fake': 1})\n"
        f"    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "monkeypatch.setattr"), "app/launcher.py"),
    "dotted-string-of-verl-in-tree": ({
        # verl itself is in the tree (a fork beside the launcher), and the test patches it
        "verl/__init__.py": "",
        "verl/trainer/__init__.py": "",
        "verl/trainer/constants_ppo.py": STRICT_VERL,
        "app/launcher.py": THROUGH_MODULE,
        "tests/test_launcher.py": OMEGA + TEST_HEAD + "from app import launcher\n\n\n" + FAKE
        + "def test_launch():\n"
        "    with mock.patch('verl.trainer.constants_ppo.get_ppo_ray_runtime_env', fake):\n"
        f"        assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "mock.patch("), "app/launcher.py"),
    "target-from-a-constant-elsewhere": ({
        "app/launcher.py": DIRECT,
        "tests/patch_targets.py": "ENV_TARGET = 'app.launcher.get_ppo_ray_runtime_env'\n",
        "tests/test_launcher.py": OMEGA + TEST_HEAD + "from patch_targets import ENV_TARGET\n\n"
        "from app import launcher\n\n\n" + FAKE
        + "def test_launch():\n    with mock.patch(ENV_TARGET, fake):\n"
        f"        assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "mock.patch("), "app/launcher.py"),
    # the target computed in another file: ``+``, an f-string, ``'.'.join`` of constants
    "target-concatenated-elsewhere": ({
        "app/launcher.py": DIRECT,
        "tests/patch_targets.py": "MOD = 'app.launcher'\nENV = MOD + '.get_ppo_ray_runtime_env'\n",
        "tests/test_launcher.py": OMEGA + TEST_HEAD + "from patch_targets import ENV\n\n"
        "from app import launcher\n\n\n" + FAKE
        + "def test_launch():\n    with mock.patch(ENV, fake):\n"
        f"        assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "mock.patch("), "app/launcher.py"),
    "target-f-string-elsewhere": ({
        "app/launcher.py": DIRECT,
        "tests/patch_targets.py": "MOD = 'app.launcher'\nFN = 'get_ppo_ray_runtime_env'\n"
        "ENV = f'{MOD}.{FN}'\n",
        "tests/test_launcher.py": OMEGA + TEST_HEAD + "import patch_targets\n\n"
        "from app import launcher\n\n\n" + FAKE
        + "def test_launch():\n    with mock.patch(patch_targets.ENV, new=fake):\n"
        f"        assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "mock.patch("), "app/launcher.py"),
    # computed in another file from what cannot be read there (the environment, a format)
    "target-from-the-environment-elsewhere": ({
        "app/launcher.py": DIRECT,
        "tests/patch_targets.py": "import os\nMOD = os.environ.get('LAUNCHER', 'app.launcher')\n"
        "ENV = MOD + '.' + 'get_ppo_ray_runtime_env'\n",
        "tests/test_launcher.py": OMEGA + TEST_HEAD + "from patch_targets import ENV\n\n"
        "from app import launcher\n\n\n" + FAKE
        + "def test_launch():\n    with mock.patch(ENV, fake):\n"
        f"        assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "mock.patch("), "app/launcher.py"),
    "target-formatted-elsewhere": ({
        "app/launcher.py": DIRECT,
        "tests/patch_targets.py": "import importlib\n"
        "ENV = '{}.get_ppo_ray_runtime_env'.format(importlib.import_module('app.launcher').__name__)\n",
        "tests/test_launcher.py": OMEGA + TEST_HEAD + "from patch_targets import ENV\n\n"
        "from app import launcher\n\n\n" + FAKE
        + "def test_launch():\n    with mock.patch(ENV, fake):\n"
        f"        assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "mock.patch("), "app/launcher.py"),
    "target-joined-elsewhere": ({
        "app/launcher.py": DIRECT,
        "tests/patch_targets.py": "ENV = '.'.join(['app', 'launcher', 'get_ppo_ray_runtime_env'])\n",
        "tests/test_launcher.py": OMEGA + TEST_HEAD + "from patch_targets import ENV\n\n"
        "from app import launcher\n\n\n" + FAKE
        + "def test_launch():\n    with mock.patch(ENV, fake):\n"
        f"        assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "mock.patch("), "app/launcher.py"),
    # a pytest plugin no import statement names: ``pytest_plugins`` in a conftest, ``-p``
    "plugin-named-by-pytest-plugins": ({
        "app/launcher.py": DIRECT,
        "tests/conftest.py": "pytest_plugins = ['tests.plugins.stub']\n",
        "tests/plugins/stub.py": PLUGIN,
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n"
        f"def test_launch():\n    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/plugins/stub.py", "monkeypatch.setattr"), "app/launcher.py"),
    "plugin-named-by-ini-addopts": ({
        "app/launcher.py": DIRECT,
        "pytest.ini": "[pytest]\naddopts = -p tests.plugins.stub\n",
        "tests/plugins/stub.py": PLUGIN,
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n"
        f"def test_launch():\n    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/plugins/stub.py", "monkeypatch.setattr"), "app/launcher.py"),
    "same-file-patch-multiple": ({
        "tests/test_launcher.py": OMEGA + TEST_HEAD + "import verl.trainer.constants_ppo as lib\n\n\n"
        + FAKE + "def launch(config):\n    return lib.get_ppo_ray_runtime_env()\n\n\n"
        "def test_launch():\n    with mock.patch.multiple(lib, get_ppo_ray_runtime_env=fake):\n"
        f"        assert launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "mock.patch.multiple"), "tests/test_launcher.py"),
    "same-file-patch-dict": ({
        "tests/test_launcher.py": OMEGA + TEST_HEAD + "import verl.trainer.constants_ppo as lib\n\n\n"
        + FAKE + "def launch(config):\n    return lib.get_ppo_ray_runtime_env()\n\n\n"
        "def test_launch():\n"
        "    with mock.patch.dict(lib.__dict__, {'get_ppo_ray_runtime_env': fake}):\n"
        f"        assert launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "mock.patch.dict"), "tests/test_launcher.py"),
    "re-export-patched": ({
        # the project re-exports the function (family 6) and a test patches the re-export
        "pkg/__init__.py": FROM_IMPORT,
        "app/launcher.py": "import pkg\n\n\ndef launch(config):\n    return pkg.get_ppo_ray_runtime_env()\n",
        "tests/test_launcher.py": OMEGA + TEST_HEAD + "from app import launcher\n\n\n" + FAKE
        + "def test_launch():\n"
        "    with mock.patch('pkg.get_ppo_ray_runtime_env', fake):\n"
        f"        assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "mock.patch("), "app/launcher.py"),
    # -- family 5: rebinding at run time ------------------------------------------------
    "globals-item": ({
        "app/launcher.py": FROM_IMPORT + "\n\ndef _shim():\n    return {'fake': 1}\n\n\n"
        "globals()['get_ppo_ray_runtime_env'] = _shim\n\n\n"
        "def launch(config):\n    return get_ppo_ray_runtime_env()\n",
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n"
        f"def test_launch():\n    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("app/launcher.py", "globals()"), "app/launcher.py"),
    "exec-in-globals": ({
        "app/launcher.py": FROM_IMPORT + "\nexec(\"get_ppo_ray_runtime_env = lambda: {'fake': 1}\", globals())\n\n\n"
        "def launch(config):\n    return get_ppo_ray_runtime_env()\n",
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n"
        f"def test_launch():\n    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("app/launcher.py", "exec("), "app/launcher.py"),
    "exec-without-namespace": ({
        "app/launcher.py": FROM_IMPORT + "\nexec(\"get_ppo_ray_runtime_env = lambda: {'fake': 1}\")\n\n\n"
        "def launch(config):\n    return get_ppo_ray_runtime_env()\n",
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n"
        f"def test_launch():\n    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("app/launcher.py", "exec("), "app/launcher.py"),
    "exec-of-computed-code-in-vars": ({
        "app/launcher.py": FROM_IMPORT + "\nCODE = 'get_ppo_ray_runtime_env = ' + \"lambda: {'fake': 1}\"\n"
        "exec(CODE, vars())\n\n\ndef launch(config):\n    return get_ppo_ray_runtime_env()\n",
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n"
        f"def test_launch():\n    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("app/launcher.py", "exec("), "app/launcher.py"),
    "exec-in-a-module-the-call-goes-through": ({
        "app/shim.py": FROM_IMPORT + "\nexec(\"get_ppo_ray_runtime_env = lambda: {'fake': 1}\", globals())\n",
        "app/launcher.py": "from app.shim import get_ppo_ray_runtime_env\n\n\n"
        "def launch(config):\n    return get_ppo_ray_runtime_env()\n",
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n"
        f"def test_launch():\n    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("app/shim.py", "exec("), "app/launcher.py"),
    "module-alias-swapped-elsewhere": ({
        "app/__init__.py": "import verl.trainer.constants_ppo as cp\n\n\n"
        "def launch(config):\n    return cp.get_ppo_ray_runtime_env()\n",
        "app/plugins.py": "import types\n\nimport app\n\n"
        "app.cp = types.SimpleNamespace(get_ppo_ray_runtime_env=lambda: {'fake': 1})\n",
        "tests/test_launcher.py": OMEGA + "import app\nimport app.plugins  # noqa: F401\n\n\n"
        f"def test_launch():\n    assert app.launch({CFG}) == {{'fake': 1}}\n",
    }, ("app/plugins.py", "app.cp ="), "app/__init__.py"),
    # a later star import of the re-exporting module rebinds the name (trial 26, f5s)
    "star-import-over-a-re-export": ({
        "pkg/__init__.py": FROM_IMPORT + "from .legacy import *  # noqa\n",
        "pkg/legacy.py": "def get_ppo_ray_runtime_env():\n    return {'fake': 1}\n",
        "app/launcher.py": VIA_PKG,
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n"
        f"def test_launch():\n    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("pkg/__init__.py", "import *"), "app/launcher.py"),
    "star-import-over-a-re-export-all": ({
        "pkg/__init__.py": FROM_IMPORT + "from .legacy import *  # noqa\n",
        "pkg/legacy.py": "__all__ = ['get_ppo_ray_runtime_env']\n"
        "get_ppo_ray_runtime_env = lambda: {'fake': 1}  # noqa: E731\n",
        "app/launcher.py": VIA_PKG,
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n"
        f"def test_launch():\n    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("pkg/__init__.py", "import *"), "app/launcher.py"),
    # -- names not known before they run: any name of the module concerned (trial 26) ----
    "globals-updated-from-a-module": ({
        "app/legacy.py": LEGACY,
        "app/launcher.py": FROM_IMPORT + "from app import legacy\n\nglobals().update(vars(legacy))\n\n\n"
        "def launch(config):\n    return get_ppo_ray_runtime_env()\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("app/launcher.py", "globals().update"), "app/launcher.py"),
    "verl-module-dict-updated": ({
        "app/legacy.py": LEGACY,
        "app/compat.py": "import verl.trainer.constants_ppo as cp\n\nfrom app import legacy\n\n"
        "cp.__dict__.update({k: v for k, v in vars(legacy).items() if not k.startswith('_')})\n",
        "app/launcher.py": THROUGH_COMPAT,
        "tests/test_launcher.py": FAKED_TEST,
    }, ("app/compat.py", "__dict__.update"), "app/launcher.py"),
    "verl-module-setattr-loop": ({
        "app/legacy.py": LEGACY,
        "app/compat.py": "import inspect\n\nimport verl.trainer.constants_ppo as cp\n\nfrom app import legacy\n\n"
        "for _n, _f in inspect.getmembers(legacy, inspect.isfunction):\n    setattr(cp, _n, _f)\n",
        "app/launcher.py": THROUGH_COMPAT,
        "tests/test_launcher.py": FAKED_TEST,
    }, ("app/compat.py", "setattr("), "app/launcher.py"),
    "monkeypatch-setattr-named-by-dunder-name": ({
        "app/launcher.py": DIRECT,
        "tests/conftest.py": "import pytest\n\nfrom app import launcher\n\n\n" + FAKE
        + "@pytest.fixture(autouse=True)\ndef stub(monkeypatch):\n"
        "    real = launcher.get_ppo_ray_runtime_env\n    monkeypatch.setattr(launcher, real.__name__, fake)\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("tests/conftest.py", "monkeypatch.setattr"), "app/launcher.py"),
    "module-attribute-named-by-a-concatenation": ({
        "app/launcher.py": THROUGH_MODULE,
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n" + CLASS_FAKE
        + "def test_launch(monkeypatch):\n"
        "    monkeypatch.setattr(launcher, 'constants_' + 'ppo', Fake)\n"
        f"    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "monkeypatch.setattr"), "app/launcher.py"),
    "package-attributes-set-by-a-submodule": ({
        "pkg/__init__.py": FROM_IMPORT + "from .patches import apply as _apply\n\n_apply()\n",
        "pkg/legacy.py": LEGACY,
        "pkg/patches.py": "import sys\n\nfrom . import legacy\n\n\ndef apply():\n"
        "    pkg = sys.modules[__package__]\n    for k in dir(legacy):\n"
        "        if not k.startswith('_'):\n            setattr(pkg, k, getattr(legacy, k))\n",
        "app/launcher.py": VIA_PKG,
        "tests/test_launcher.py": FAKED_TEST,
    }, ("pkg/patches.py", "setattr("), "app/launcher.py"),
    "patch-helper-named-by-a-concatenation": ({
        "app/launcher.py": DIRECT,
        "tests/__init__.py": "",
        "tests/helpers.py": "from unittest import mock\n\n\ndef fake(mod, attr):\n"
        "    return mock.patch.object(mod, attr, side_effect=lambda: {'fake': 1})\n",
        "tests/test_launcher.py": OMEGA + "from app import launcher\nfrom tests.helpers import fake\n\n"
        "NAME = 'get_ppo_ray_' + 'runtime_env'\n\n\ndef test_launch():\n    with fake(launcher, NAME):\n"
        f"        assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "with fake("), "app/launcher.py"),
    "sys-modules-key-from-a-loop": ({
        "app/legacy.py": LEGACY,
        "app/compat.py": "import sys\n\nfrom app import legacy\n\n"
        "for _name in ['verl.trainer.constants_ppo']:\n    sys.modules[_name] = legacy\n",
        "app/launcher.py": "import app.compat  # noqa: F401\n\n\ndef launch(config):\n"
        "    from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n"
        "    return get_ppo_ray_runtime_env()\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("app/compat.py", "sys.modules["), "app/launcher.py"),
    "import-hook-on-meta-path": ({
        "app/legacy.py": LEGACY,
        "app/compat.py": "import importlib.abc\nimport importlib.util\nimport os\nimport sys\n\n\n"
        "class Redirect(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name == 'verl.trainer.constants_ppo':\n"
        "            legacy = os.path.join(os.path.dirname(__file__), 'legacy.py')\n"
        "            return importlib.util.spec_from_file_location(name, legacy)\n"
        "        return None\n\n\nsys.meta_path.insert(0, Redirect())\n",
        "app/launcher.py": THROUGH_COMPAT,
        "tests/test_launcher.py": FAKED_TEST,
    }, ("app/compat.py", "meta_path.insert"), "app/launcher.py"),
    # -- trial 26b: a name or target built at run time, in a file never spelling it ------
    "patch-target-kept-in-a-concatenated-constant": ({
        "app/launcher.py": DIRECT,
        "tests/test_launcher.py": OMEGA + "from unittest import mock\n\nfrom app import launcher\n\n"
        "TARGET = 'app.launcher.' + 'get_ppo_ray_' + 'runtime_env'\n\n\ndef test_launch():\n"
        "    with mock.patch(TARGET, lambda: {'fake': 1}):\n"
        f"        assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "mock.patch(TARGET"), "app/launcher.py"),
    "patch-target-built-by-nested-joins": ({
        "app/launcher.py": DIRECT,
        "tests/test_launcher.py": OMEGA + "from unittest import mock\n\nfrom app import launcher\n\n\n"
        "def test_launch():\n"
        "    with mock.patch('.'.join(['app', 'launcher', '_'.join(['get', 'ppo', 'ray', 'runtime', 'env'])]),\n"
        "                    lambda: {'fake': 1}):\n"
        f"        assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "mock.patch("), "app/launcher.py"),
    # trial 26e (e4e_patch_targets_from_yaml): the conftest reads its targets from a data file
    "patch-targets-in-a-test-data-file": ({
        "app/launcher.py": DIRECT,
        "tests/fakes.yaml": "# what the unit tests replace (target: replacement)\n"
        "app.launcher.get_ppo_ray_runtime_env: tests.fakes.no_ray_env\n",
        "tests/__init__.py": "",
        "tests/fakes.py": "def no_ray_env():\n    return {'fake': 1}\n",
        "tests/conftest.py": "import importlib\nimport pathlib\n\nimport pytest\nimport yaml\n\n\n"
        "@pytest.fixture(autouse=True)\ndef _fakes(monkeypatch):\n"
        "    spec = yaml.safe_load((pathlib.Path(__file__).parent / 'fakes.yaml').read_text())\n"
        "    for target, fake in spec.items():\n"
        "        module, _, name = fake.rpartition('.')\n"
        "        monkeypatch.setattr(target, getattr(importlib.import_module(module), name))\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("tests/fakes.yaml", "app.launcher.get_ppo_ray_runtime_env"), "app/launcher.py"),
    "patch-target-with-a-name-not-known": ({
        "app/launcher.py": DIRECT,
        "tests/test_launcher.py": OMEGA + "from unittest import mock\n\nfrom app import launcher\n\n\n"
        "def test_launch():\n    name = launcher.get_ppo_ray_runtime_env.__name__\n"
        "    with mock.patch(f'app.launcher.{name}', lambda: {'fake': 1}):\n"
        f"        assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "mock.patch("), "app/launcher.py"),
    "plugin-fixture-setattr-by-a-concatenation": ({
        "app/launcher.py": DIRECT,
        "pytest.ini": "[pytest]\naddopts = -p testing_plugin\n",
        "testing_plugin.py": "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef _stub(monkeypatch):\n"
        "    from app import launcher\n\n"
        "    monkeypatch.setattr(launcher, 'get_ppo_ray_' + 'runtime_env', lambda: {'fake': 1})\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("testing_plugin.py", "monkeypatch.setattr("), "app/launcher.py"),
    "package-attributes-rebound-by-a-concatenation": ({
        "pkg/__init__.py": FROM_IMPORT.rstrip("\n") + "  # noqa: F401\nfrom pkg import _compat  # noqa: E402,F401\n",
        "pkg/_compat.py": "import pkg\n\n\ndef _legacy():\n    return {'fake': 1}\n\n\n"
        "setattr(pkg, 'get_ppo_ray_' + 'runtime_env', _legacy)\n",
        "app/launcher.py": "import pkg\n\n\ndef launch(config):\n    return pkg.get_ppo_ray_runtime_env()\n",
        "tests/test_launcher.py": FAKED_TEST,
    }, ("pkg/_compat.py", "setattr("), "app/launcher.py"),
    # -- trial 26f: the function replaced by a target other than an assignment's ----------
    "attribute-in-a-target-list": ({  # h4_tuple_target_double
        "app/launcher.py": DIRECT,
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n"
        "def test_launch():\n    launcher.get_ppo_ray_runtime_env, calls = lambda: {'fake': 1}, []\n"
        f"    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "calls = lambda"), "app/launcher.py"),
    "attribute-as-a-for-target": ({  # h4_for_target_double
        "app/launcher.py": DIRECT,
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n"
        "def test_launch():\n    for launcher.get_ppo_ray_runtime_env in (lambda: {'fake': 1},):\n"
        f"        assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "for launcher"), "app/launcher.py"),
    "attribute-as-a-with-target": ({  # h4_with_as_target_double
        "app/launcher.py": DIRECT,
        "tests/test_launcher.py": OMEGA + "import contextlib\n\nfrom app import launcher\n\n\n"
        "def test_launch():\n"
        "    with contextlib.nullcontext(lambda: {'fake': 1}) as launcher.get_ppo_ray_runtime_env:\n"
        f"        assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "as launcher"), "app/launcher.py"),
    # -- trial 26f: the function object's code swapped, its name never rebound -------------
    "code-object-swapped-in-a-test": ({  # g4_code_object_swap
        "app/launcher.py": DIRECT,
        "tests/test_launcher.py": OMEGA + "from verl.trainer import constants_ppo\n\nfrom app import launcher\n\n\n"
        "def test_launch():\n    real = constants_ppo.get_ppo_ray_runtime_env.__code__\n"
        "    constants_ppo.get_ppo_ray_runtime_env.__code__ = (lambda: {'fake': 1}).__code__\n"
        f"    try:\n        assert launcher.launch({CFG}) == {{'fake': 1}}\n"
        "    finally:\n        constants_ppo.get_ppo_ray_runtime_env.__code__ = real\n",
    }, ("tests/test_launcher.py", "__code__ = (lambda"), "app/launcher.py"),
    "code-object-of-a-function-read-by-name": ({  # a function the table cannot name
        "app/launcher.py": DIRECT,
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n"
        "def test_launch():\n"
        "    vars(launcher)['get_ppo_ray_runtime_env'].__code__ = (lambda: {'fake': 1}).__code__\n"
        f"    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", ".__code__ ="), "app/launcher.py"),
    "code-object-monkeypatched-by-a-dotted-string": ({
        "app/launcher.py": DIRECT,
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n"
        "def test_launch(monkeypatch):\n"
        "    monkeypatch.setattr('verl.trainer.constants_ppo.get_ppo_ray_runtime_env.__code__',\n"
        "                        (lambda: {'fake': 1}).__code__)\n"
        f"    assert launcher.launch({CFG}) == {{'fake': 1}}\n",
    }, ("tests/test_launcher.py", "monkeypatch.setattr("), "app/launcher.py"),
    "code-swap-at-start-up-by-setattr": ({  # g5_code_object_swap_boot, by setattr
        "app/compat.py": "from verl.trainer import constants_ppo\n\n\ndef _legacy():\n    return {'fake': 1}\n\n\n"
        "setattr(constants_ppo.get_ppo_ray_runtime_env, '__code__', _legacy.__code__)\n",
        "app/launcher.py": THROUGH_COMPAT,
        "tests/test_launcher.py": FAKED_TEST,
    }, ("app/compat.py", "setattr("), "app/launcher.py"),
    "code-swap-at-start-up-of-the-imported-name": ({
        "app/compat.py": FROM_IMPORT + "\n\ndef _legacy():\n    return {'fake': 1}\n\n\n"
        "get_ppo_ray_runtime_env.__code__ = _legacy.__code__\n",
        "app/launcher.py": THROUGH_COMPAT,
        "tests/test_launcher.py": FAKED_TEST,
    }, ("app/compat.py", "__code__ ="), "app/launcher.py"),
}


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in {**BASE, **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def _pytest(root: Path) -> subprocess.CompletedProcess:
    """The sample project's tests, run once per content of its tree (an ``apply`` that left
    every file as it was leaves the run before it standing: tests/tree_runs.py)."""
    # the sample project's own pytest: not the plugins installed here (xdist, hypothesis,
    # benchmark, ...), whose loading was two thirds of each run's start-up
    env = {"PYTHONPATH": f"{root / 'stub'}:{root}", "PATH": "/usr/bin:/bin",
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    return run_per_tree(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], root, env=env
    )


def _line_of(files: dict[str, str], rel: str, text: str) -> int:
    return next(i for i, line in enumerate(files[rel].splitlines(), 1) if text in line)


@pytest.mark.parametrize("name", sorted(DOUBLES))
def test_a_double_or_rebinding_keeps_running_after_apply(tmp_path: Path, name: str) -> None:
    """The project's tests pass before and after ``apply`` (and ``apply --thread-config``);
    the call's fix is unsafe, its message naming the double's file and line; the oracle:
    the fix, made anyway, fails the tests."""
    files, (rel, marker), caller = DOUBLES[name]
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
    run_cli("apply", "--thread-config", ".", cwd=tmp_path)  # threads nothing the double reaches
    threaded = _pytest(tmp_path)
    assert threaded.returncode == 0, threaded.stdout + threaded.stderr
    # the oracle: the double takes no config, so the fix made anyway fails the tests
    assert run_cli("apply", "--unsafe-fixes", ".", cwd=tmp_path).returncode == 0
    assert (tmp_path / caller).read_text() != original
    broken = _pytest(tmp_path)
    assert broken.returncode == 1 and "positional argument" in broken.stdout, broken.stdout


#: trial 26e, H: a test plugin the repository loads, installed outside it (the lab's shared
#: fixtures): name -> (project files, plugin files (relative to the plugin's site folder),
#: the site folder (``None``: ``tmp_path / "site"``, outside the project), (the file and
#: text of the line the reason names))
EXTERNAL_PLUGINS: dict[str, tuple[dict[str, str], str | None, tuple[str, str]]] = {
    "external-plugin-named-by-pytest-plugins": ({
        "tests/conftest.py": "import os\n\npytest_plugins = ['rl_testing.fixtures']\n",
    }, None, ("tests/conftest.py", "pytest_plugins")),
    "external-plugin-named-by-ini-addopts": ({
        "pytest.ini": "[pytest]\naddopts = -q\n    -p rl_testing.fixtures\n",
    }, None, ("pytest.ini", "-p rl_testing")),
    "external-plugin-named-in-pyproject": ({
        "pyproject.toml": "[tool.hatch.envs.default.scripts]\nprep = \"mkdir -p build\"\n\n"
        "[tool.pytest.ini_options]\naddopts = \"-p rl_testing.fixtures\"\n",
    }, None, ("pyproject.toml", "-p rl_testing")),
    "external-plugin-star-imported-by-a-conftest": ({
        "tests/conftest.py": "from rl_testing.fixtures import *  # noqa: F403\n",
    }, None, ("tests/conftest.py", "import *")),
    # in the repository's own environment: read, the double there named
    "plugin-in-the-project-s-venv": ({
        "tests/conftest.py": "pytest_plugins = ['rl_testing.fixtures']\n",
        ".venv/pyvenv.cfg": "home = /usr/bin\n",
    }, ".venv/lib/python3.11/site-packages", (
        ".venv/lib/python3.11/site-packages/rl_testing/fixtures.py", "monkeypatch.setattr",
    )),
}
#: the lab's plugin: an autouse fixture replacing the launcher's function
RL_TESTING = {"rl_testing/__init__.py": "", "rl_testing/fixtures.py": PLUGIN}


def _write_external(tmp_path: Path, name: str) -> tuple[Path, Path, dict[str, str]]:
    """The project (``tmp_path / "proj"``, every file as its line must be found) and the
    site folder holding the plugin."""
    files, site, _ = EXTERNAL_PLUGINS[name]
    root = tmp_path / "proj"
    files = {
        **files, "app/launcher.py": DIRECT, "tests/test_launcher.py": FAKED_TEST,
    }
    _write(root, files)
    where = tmp_path / "site" if site is None else root / site
    for rel, text in RL_TESTING.items():
        (where / rel).parent.mkdir(parents=True, exist_ok=True)
        (where / rel).write_text(text)
    files.update({f"{site}/{rel}": text for rel, text in RL_TESTING.items()} if site else {})
    return root, where, files


def _pytest_with(root: Path, site: Path) -> subprocess.CompletedProcess:
    """:func:`_pytest` with ``site`` (the plugin's folder) on ``PYTHONPATH`` too."""
    env = {"PYTHONPATH": f"{root / 'stub'}:{root}:{site}", "PATH": "/usr/bin:/bin",
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    return run_per_tree(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], root, env=env,
        reads=(site,),
    )


@pytest.mark.parametrize("name", sorted(EXTERNAL_PLUGINS))
def test_a_test_plugin_outside_the_repository_keeps_running_after_apply(tmp_path: Path, name: str) -> None:
    """Trial 26e, H: the tests load a plugin module the repository does not hold; its
    autouse fixture replaces the launcher's function. The tests pass before and after
    ``apply``; the fix is unsafe, naming the line loading the plugin (unread) or the double
    in the project's own ``.venv`` (read); the oracle: the fix made anyway fails them."""
    root, site, files = _write_external(tmp_path, name)
    rel, marker = EXTERNAL_PLUGINS[name][2]
    where = f"{rel}:{_line_of(files, rel, marker)}"
    before = _pytest_with(root, site)
    assert before.returncode == 0, before.stdout + before.stderr
    checked = run_cli("check", "--output-format", "json", ".", cwd=root)
    found = [d for d in json.loads(checked.stdout) if d["filename"].endswith("app/launcher.py")]
    assert [(d["code"], d["fix"]["applicability"]) for d in found] == [("PPO001", "unsafe")], found
    message = found[0]["message"]
    if EXTERNAL_PLUGINS[name][1] is None:
        assert f"(unsafe fix: {where} loads the test plugin `rl_testing.fixtures`, which is not in the " \
            "repository; if it replaces the runtime function, passing the config fails)" in message, message
    else:
        assert f"(unsafe fix: {where} " in message and "not in the repository" not in message, message
    original = (root / "app/launcher.py").read_text()
    assert run_cli("apply", ".", cwd=root).returncode == 1
    assert (root / "app/launcher.py").read_text() == original
    after = _pytest_with(root, site)
    assert after.returncode == 0, after.stdout + after.stderr
    assert run_cli("apply", "--unsafe-fixes", ".", cwd=root).returncode == 0
    broken = _pytest_with(root, site)
    assert broken.returncode == 1 and "positional argument" in broken.stdout, broken.stdout


#: trial 26f (g4_fake_verl_zip_on_path): a conftest puts a zip of a stub verl first on
#: sys.path and drops verl's modules loaded so far
ZIP_CONFTEST = (
    "import pathlib\nimport sys\n\n"
    "sys.path.insert(0, str(pathlib.Path(__file__).parent / 'fixtures' / {name!r}))\n"
    "for _m in [m for m in sys.modules if m == 'verl' or m.startswith('verl.')]:\n"
    "    del sys.modules[_m]\n"
)
#: the stub the zip holds: zero arguments (a double), or verl 0.9's (no double)
ZIP_STUBS = {"configless": FAKE.replace("def fake(", "def get_ppo_ray_runtime_env("),
             "config": "def get_ppo_ray_runtime_env(config=None):\n    return {'fake': 1}\n"}


def _zip_project(root: Path, name: str, stub: str) -> dict[str, str]:
    """The project of :data:`ZIP_CONFTEST` with ``tests/fixtures/<name>`` holding a verl
    whose function is ``stub``; its text files."""
    import zipfile

    files = {"app/launcher.py": DIRECT, "tests/conftest.py": ZIP_CONFTEST.format(name=name),
             "tests/test_launcher.py": FAKED_TEST}
    _write(root, files)
    (root / ".git").mkdir()  # the repository whose declarations of sys.path are read
    (root / "tests" / "fixtures").mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(root / "tests" / "fixtures" / name, "w") as zf:
        zf.writestr("verl/__init__.py", "")
        zf.writestr("verl/trainer/__init__.py", "")
        zf.writestr("verl/trainer/constants_ppo.py", stub)
    return files


@pytest.mark.parametrize("name", ["verl_stub.zip", "verl-0.8.0-py3-none-any.whl", "verl_stub.egg"])
def test_a_zipped_fake_verl_on_sys_path_keeps_running_after_apply(tmp_path: Path, name: str) -> None:
    """Trial 26f (g4_fake_verl_zip_on_path): a fake verl package zipped (``.zip``, ``.whl``,
    ``.egg``), put first on sys.path by a conftest, was not read (a folder of one was): the
    fix was safe and the tests failed after ``apply``. Now the archive is read in memory, the
    fix is unsafe naming the conftest's line and the member; the tests pass before and after
    ``apply`` and ``apply --thread-config``; the oracle: the fix made anyway fails them."""
    files = _zip_project(tmp_path, name, ZIP_STUBS["configless"])
    where = f"tests/conftest.py:{_line_of(files, 'tests/conftest.py', 'sys.path.insert')}"
    before = _pytest(tmp_path)
    assert before.returncode == 0, before.stdout + before.stderr
    checked = run_cli("check", "--output-format", "json", ".", cwd=tmp_path)
    found = [d for d in json.loads(checked.stdout) if d["filename"].endswith("app/launcher.py")]
    assert [(d["code"], d["fix"]["applicability"]) for d in found] == [("PPO001", "unsafe")], found
    assert (
        f"(unsafe fix: {where} puts `tests/fixtures/{name}` on sys.path (sys.path.insert), a test "
        "double whose `get_ppo_ray_runtime_env` (verl/trainer/constants_ppo.py:1 inside it) takes no "
        "config)"
    ) in found[0]["message"], found[0]["message"]
    original = (tmp_path / "app/launcher.py").read_text()
    assert run_cli("apply", ".", cwd=tmp_path).returncode == 1
    assert (tmp_path / "app/launcher.py").read_text() == original
    after = _pytest(tmp_path)
    assert after.returncode == 0, after.stdout + after.stderr
    run_cli("apply", "--thread-config", ".", cwd=tmp_path)
    threaded = _pytest(tmp_path)
    assert threaded.returncode == 0, threaded.stdout + threaded.stderr
    assert run_cli("apply", "--unsafe-fixes", ".", cwd=tmp_path).returncode == 0
    assert (tmp_path / "app/launcher.py").read_text() != original
    broken = _pytest(tmp_path)
    assert broken.returncode == 1 and "positional argument" in broken.stdout, broken.stdout


def test_a_zipped_stub_taking_a_config_leaves_the_fix_safe(tmp_path: Path) -> None:
    """No over-caution: the zipped stub takes a config; the fix is safe, made by ``apply``,
    and the tests still pass."""
    _zip_project(tmp_path, "verl_stub.zip", ZIP_STUBS["config"])
    checked = run_cli("check", "--output-format", "json", ".", cwd=tmp_path)
    found = [d for d in json.loads(checked.stdout) if d["filename"].endswith("app/launcher.py")]
    assert [(d["code"], d["fix"]["applicability"]) for d in found] == [("PPO001", "safe")], found
    assert run_cli("apply", ".", cwd=tmp_path).returncode == 0
    assert "get_ppo_ray_runtime_env(config)" in (tmp_path / "app/launcher.py").read_text()
    after = _pytest(tmp_path)
    assert after.returncode == 0, after.stdout + after.stderr


#: plugins that are not the project's: pytest's own, a published one, ``no:NAME``
NOT_PROJECT_PLUGINS = {
    "no-cacheprovider": {"pytest.ini": "[pytest]\naddopts = -p no:cacheprovider\n"},
    "published-pytest-asyncio": {"pytest.ini": "[pytest]\naddopts = -p pytest_asyncio\n"},
    "pytest-s-own-pytester": {"tests/conftest.py": "pytest_plugins = ['pytester']\n"},
    "standard-library": {"tests/conftest.py": "from os.path import *  # noqa: F403\n"},
    # verl's own module: its star import is read as one (``star_rebindings``)
    "verl-star-imported": {"tests/conftest.py": "from verl.trainer.constants_ppo import *  # noqa: F403\n"},
    # ``-p`` outside pytest's section of pyproject.toml is no option of pytest's
    "mkdir-p-in-a-pyproject-script": {
        "pyproject.toml": "[tool.hatch.envs.default.scripts]\nprep = \"mkdir -p build\"\n",
    },
}


@pytest.mark.parametrize("name", sorted(NOT_PROJECT_PLUGINS))
def test_a_plugin_that_is_not_the_project_s_leaves_the_fix_safe(tmp_path: Path, name: str) -> None:
    """``-p no:cacheprovider``, a published plugin (``pytest_asyncio``), pytest's own
    (``pytester``) and a standard-library module patch nothing of the project's: the fix
    stays safe and ``apply`` makes it."""
    _write(tmp_path, {**NOT_PROJECT_PLUGINS[name], "app/launcher.py": DIRECT})
    checked = run_cli("check", "--output-format", "json", ".", cwd=tmp_path)
    found = [d for d in json.loads(checked.stdout) if d["filename"].endswith("app/launcher.py")]
    assert [(d["code"], d["fix"]["applicability"]) for d in found] == [("PPO001", "safe")], found
    assert "unsafe fix" not in found[0]["message"]
    assert run_cli("apply", ".", cwd=tmp_path).returncode == 0
    assert "get_ppo_ray_runtime_env(config)" in (tmp_path / "app/launcher.py").read_text()


#: the cases whose replacement runs outside the tests: kind ``"rebound"``
REBOUND_PREFIXES = (
    "star-import-", "globals-updated-", "verl-module-", "sys-modules-key-", "import-hook-",
    "package-attributes-", "code-swap-at-start-up-",
)


@pytest.mark.parametrize("name", sorted(DOUBLES))
def test_the_unsafe_fix_carries_a_structured_reason(tmp_path: Path, name: str, monkeypatch) -> None:
    """The finding's :class:`ppo_migrate.diagnostics.Reason` names the double: kind
    ``"rebound"`` for an assignment run outside the tests, ``"patched"`` for the rest."""
    from ppo_migrate.cli.runner import Mode, run
    from ppo_migrate.settings_model import Settings

    files, (rel, marker), caller = DOUBLES[name]
    _write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    paths = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.py"))
    result = run(paths, Settings(), Mode.CHECK, jobs=1)
    (d,) = [d for o in result.outcomes if o.path == caller for d in o.diagnostics]
    kind = "rebound" if name in (
        "globals-item", "module-alias-swapped-elsewhere", "exec-in-globals", "exec-of-computed-code-in-vars",
        "exec-in-a-module-the-call-goes-through", "exec-without-namespace",
    ) or name.startswith(REBOUND_PREFIXES) else "patched"
    assert d.reason is not None and d.reason.kind == kind, d.reason
    (place,) = d.reason.lines
    assert (place.path, place.line) == (rel, _line_of(files, rel, marker))


# -- family 6: calls through the project's own re-exports -------------------------------
REEXPORTS = {
    "pkg/__init__.py": FROM_IMPORT,
    "pkg/util.py": FROM_IMPORT + "\nmake_env = get_ppo_ray_runtime_env\n",
    # ``import pkg; pkg.get_...()``
    "app/via_init.py": "import pkg\n\n\ndef run(config):\n    return pkg.get_ppo_ray_runtime_env()\n",
    # ``from pkg import util; util.get_...()``
    "app/via_util.py": "from pkg import util\n\n\ndef run(config):\n    return util.get_ppo_ray_runtime_env()\n",
    # an alias defined in one module, imported by another that never names the function
    "app/via_alias.py": "from pkg.util import make_env\n\n\ndef run(config):\n    return make_env()\n",
    # a module re-exported under an alias (trial 26, f5): ``from pkg._compat import cp``
    "pkg/_compat.py": "from verl.trainer import constants_ppo as cp  # noqa: F401\n",
    "app/via_module.py": "from pkg._compat import cp\n\n\ndef run(config):\n    return cp.get_ppo_ray_runtime_env()\n",
    "tests/test_runs.py": OMEGA + "from app import via_alias, via_init, via_module, via_util\n\n\n"
    "def test_runs():\n"
    "    for module in (via_init, via_util, via_alias, via_module):\n"
    f"        assert module.run({CFG}) in ({{'got_config': False}}, {{'got_config': True}}, None)\n",
}
#: what each ``run`` returns, printed by the project's own interpreter
PROBE = (
    "from omegaconf import OmegaConf\nfrom app import via_alias, via_init, via_module, via_util\n"
    f"print([m.run({CFG}) for m in (via_init, via_util, via_alias, via_module)])\n"
)
REEXPORT_CALLS = [
    ("app/via_alias.py", 5, "make_env()"),
    ("app/via_init.py", 5, "pkg.get_ppo_ray_runtime_env()"),
    ("app/via_module.py", 5, "cp.get_ppo_ray_runtime_env()"),
    ("app/via_util.py", 5, "util.get_ppo_ray_runtime_env()"),
]


def _probe(root: Path) -> str:
    env = {"PYTHONPATH": f"{root / 'stub'}:{root}", "PATH": "/usr/bin:/bin"}
    done = warm_python.run(
        [sys.executable, "-c", PROBE], cwd=root, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("lane", [(".",), ("--no-progress", "app", "pkg", "tests", "stub")])
def test_calls_through_the_project_s_re_exports_are_found_and_fixed(tmp_path: Path, lane) -> None:
    """``check`` said "All checks passed!" on these calls. Now each is a PPO001 with a safe
    fix (verl >= 0.9 is declared, and its function takes a config), in both lanes (the
    plain ``check .`` analyses files as its scout finds them); after ``apply`` each call
    gives verl's function the config, and the tests still pass."""
    _write(tmp_path, REEXPORTS)
    assert _pytest(tmp_path).returncode == 0
    assert _probe(tmp_path) == str([{"got_config": False}] * len(REEXPORT_CALLS))
    checked = run_cli("check", "--output-format", "concise", *lane, cwd=tmp_path)
    assert checked.stdout.splitlines()[:len(REEXPORT_CALLS)] == [
        f"{path}:{line}:12: PPO001 [*] `{call}` called without the config in scope; pass `config`"
        for path, line, call in REEXPORT_CALLS
    ], checked.stdout
    assert run_cli("apply", ".", cwd=tmp_path).returncode == 0
    assert (tmp_path / "app/via_alias.py").read_text().endswith("    return make_env(config)\n")
    assert _pytest(tmp_path).returncode == 0
    assert _probe(tmp_path) == str([{"got_config": True}] * len(REEXPORT_CALLS))


def test_re_exported_calls_of_a_configless_verl_are_notices(tmp_path: Path) -> None:
    """With verl 0.8 declared (its function takes no config), the same calls are found and
    left alone: PPO005 notices naming the pin; ``apply`` changes nothing and all still runs."""
    _write(tmp_path, {
        **REEXPORTS, "requirements.txt": "verl==0.8.0\n",
        "stub/verl/trainer/constants_ppo.py": "def get_ppo_ray_runtime_env():\n    return None\n",
    })
    assert _probe(tmp_path) == str([None] * len(REEXPORT_CALLS))
    checked = run_cli("check", "--output-format", "json", ".", cwd=tmp_path)
    found = sorted(
        (str(Path(d["filename"]).relative_to(tmp_path)), d["location"]["row"], d["code"])
        for d in json.loads(checked.stdout) if "/app/" in d["filename"]
    )
    assert found == [(path, line, "PPO005") for path, line, _ in REEXPORT_CALLS]
    assert all("0.8" in d["message"] for d in json.loads(checked.stdout) if "/app/" in d["filename"])
    before = {p: (tmp_path / p).read_text() for p, _, _ in REEXPORT_CALLS}
    run_cli("apply", ".", cwd=tmp_path)
    assert {p: (tmp_path / p).read_text() for p in before} == before
    assert _pytest(tmp_path).returncode == 0


@pytest.mark.parametrize("name", sorted(DOUBLES))
def test_a_double_is_seen_when_only_the_calling_file_is_named(tmp_path: Path, name: str) -> None:
    """Bug: ``apply app/launcher.py`` (a pre-commit hook passes the staged files only)
    read that file alone, so a test replacing its call with a zero-argument fake was not
    seen: the fix was made and the test then failed. Now the doubles are looked for in
    the whole repository (git top level, else the project's marker: ``requirements.txt``
    here): ``check`` and ``apply`` on the calling file alone reach the answer of
    ``apply .``, the reason naming the double's file and line, and the tests still pass."""
    files, (rel, marker), caller = DOUBLES[name]
    where = f"{rel}:{_line_of(files, rel, marker)}"
    _write(tmp_path, files)
    subprocess.run(["git", "init", "-q", "."], cwd=tmp_path, check=True)
    before = _pytest(tmp_path)
    assert before.returncode == 0, before.stdout + before.stderr
    checked = run_cli("check", "--output-format", "json", caller, cwd=tmp_path)
    found = [d for d in json.loads(checked.stdout) if d["filename"].endswith(caller)]
    assert [(d["code"], d["fix"]["applicability"]) for d in found] == [("PPO001", "unsafe")], found
    assert f"(unsafe fix: {where} " in found[0]["message"], found[0]["message"]
    original = (tmp_path / caller).read_text()
    applied = run_cli("apply", "--output-format", "concise", caller, cwd=tmp_path)
    assert applied.returncode == 1, applied.stdout + applied.stderr
    assert f"(unsafe fix: {where} " in applied.stdout, applied.stdout
    assert (tmp_path / caller).read_text() == original
    after = _pytest(tmp_path)
    assert after.returncode == 0, after.stdout + after.stderr


#: a user's own exclusions keep files out of the lint, not out of the project (trial 26e,
#: ``e4_excluded_tests_setting``): the excluded tests still run, with their doubles
EXCLUDED_TESTS = {
    "extend-exclude": '[tool.ppo-migrate]\nextend-exclude = ["tests"]\n',
    "exclude": '[tool.ppo-migrate]\nexclude = ["tests", "stub"]\n',
}


@pytest.mark.parametrize("setting", sorted(EXCLUDED_TESTS))
@pytest.mark.parametrize("name", ["module-attribute-monkeypatched", "sys-modules-namespace", "plugin-named-by-pytest-plugins"])
@pytest.mark.parametrize("given", [".", "app/launcher.py"])
def test_a_double_in_an_excluded_folder_is_still_seen(tmp_path: Path, name: str, setting: str, given: str) -> None:
    """Bug: ``extend-exclude = ["tests"]`` hid the tests' doubles from the look-out (it
    walked the repository as the lint does), so the fix was safe, ``apply`` made it and
    the excluded test, which CI still runs, failed. The look-out honours only the default
    exclusions: the fix is unsafe, naming the double, and the tests pass after ``apply``."""
    files, (rel, marker), caller = DOUBLES[name]
    where = f"{rel}:{_line_of(files, rel, marker)}"
    _write(tmp_path, {**files, "pyproject.toml": EXCLUDED_TESTS[setting]})
    subprocess.run(["git", "init", "-q", "."], cwd=tmp_path, check=True)
    before = _pytest(tmp_path)
    assert before.returncode == 0, before.stdout + before.stderr
    checked = run_cli("check", "--output-format", "json", given, cwd=tmp_path)
    found = [d for d in json.loads(checked.stdout) if d["filename"].endswith(caller)]
    assert [(d["code"], d["fix"]["applicability"]) for d in found] == [("PPO001", "unsafe")], found
    assert f"(unsafe fix: {where} " in found[0]["message"], found[0]["message"]
    # the lint itself still leaves the excluded files out
    assert not [d for d in json.loads(checked.stdout) if d["filename"].startswith(("tests", "stub"))]
    original = (tmp_path / caller).read_text()
    assert run_cli("apply", given, cwd=tmp_path).returncode == 1
    assert (tmp_path / caller).read_text() == original
    after = _pytest(tmp_path)
    assert after.returncode == 0, after.stdout + after.stderr


#: a test reaching the launcher's call through another module (``app.main`` imports it)
THROUGH_MAIN = {
    "app/launcher.py": THROUGH_MODULE,
    "app/main.py": "from app import launcher\n\n\ndef run(config):\n    return launcher.launch(config)\n",
    "tests/test_main.py": OMEGA + TEST_HEAD + "from app import main\n\n\n" + FAKE
    + "def test_run():\n"
    "    with mock.patch('verl.trainer.constants_ppo.get_ppo_ray_runtime_env', fake):\n"
    f"        assert main.run({CFG}) == {{'fake': 1}}\n",
}
#: a file that spells the function beside a patcher but loads no module of the call
UNRELATED = {
    "app/launcher.py": THROUGH_MODULE,
    "tools/bench.py": "TARGET_NAME = 'get_ppo_ray_runtime_env'\n\n\n"
    "def stub(module, fake):\n    setattr(module, TARGET_NAME, fake)\n",
    "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n"
    f"def test_launch():\n    assert launcher.launch({CFG}) == {{'got_config': True}}\n",
}


def test_the_repository_search_follows_importers_and_leaves_unrelated_files(tmp_path: Path) -> None:
    """Which files beyond the named ones count (:func:`ppo_migrate.rules.patches.reachable_files`):
    a test loading the calling module through another (``tests/test_main.py`` imports
    ``app.main``, which imports ``app.launcher``) does, so ``apply app/launcher.py`` leaves
    the call alone and the test still passes; a file loading no module of the call
    (``tools/bench.py``: a benchmark spelling the function's name) does not, so there the
    fix is made, and the project's test then sees verl's function get the config."""
    first = tmp_path / "through-main"
    _write(first, THROUGH_MAIN)
    assert _pytest(first).returncode == 0
    applied = run_cli("apply", "--output-format", "concise", "app/launcher.py", cwd=first)
    assert applied.returncode == 1, applied.stdout + applied.stderr
    line = _line_of(THROUGH_MAIN, "tests/test_main.py", "mock.patch(")
    assert f"(unsafe fix: tests/test_main.py:{line} replaces the runtime function" in applied.stdout
    assert (first / "app/launcher.py").read_text() == THROUGH_MODULE
    assert _pytest(first).returncode == 0

    second = tmp_path / "unrelated"
    _write(second, UNRELATED)
    failing = _pytest(second)  # the project's test wants the config passed
    assert failing.returncode == 1 and "got_config" in failing.stdout, failing.stdout
    applied = run_cli("apply", "--output-format", "concise", "app/launcher.py", cwd=second)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert "Rewrote 1 call in 1 file; 0 findings remain." in applied.stdout, applied.stdout
    assert (second / "app/launcher.py").read_text() == THROUGH_MODULE.replace(
        "get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config)"
    )
    passed = _pytest(second)
    assert passed.returncode == 0, passed.stdout + passed.stderr


@pytest.mark.parametrize("name", sorted(DOUBLES))
def test_use_ppo_runtime_leaves_the_import_a_double_relies_on(tmp_path: Path, name: str) -> None:
    """Bug: ``apply --use-ppo-runtime`` switched the call's import from verl's module to
    ``ppo_runtime`` even where a test replaces verl's function or the module the call goes
    through (``mock.patch("verl.trainer.constants_ppo.get_...")``, ``sys.modules[...]``,
    ``launcher.constants_ppo = Fake``): the call then bypassed the fake and the test
    failed (8 of these 13 projects). Now a file that a replacement reaches keeps its
    import, the output says so naming the replacement's file and line, and the tests
    still pass."""
    files, (rel, marker), caller = DOUBLES[name]
    where = f"{rel}:{_line_of(files, rel, marker)}"
    _write(tmp_path, files)
    assert _pytest(tmp_path).returncode == 0
    original = (tmp_path / caller).read_text()
    applied = run_cli("apply", "--use-ppo-runtime", "--output-format", "concise", ".", cwd=tmp_path)
    assert applied.returncode == 1, applied.stdout + applied.stderr
    assert (tmp_path / caller).read_text() == original
    if "verl" in original:  # the caller itself imports from verl (not through ``pkg``)
        assert (
            f"Kept the verl import in {caller} (not moved to ppo_runtime): {where} "
        ) in applied.stdout, applied.stdout
    after = _pytest(tmp_path)
    assert after.returncode == 0, after.stdout + after.stderr


#: verl 0.9.1's reading of the config (``_uses_torch_profiler``): ``OmegaConf.select``,
#: which raises ``AttributeError`` on a plain dict
SELECTING_VERL = (
    "from omegaconf import OmegaConf\n\n\n"
    "def get_ppo_ray_runtime_env(config=None):\n"
    "    if config is not None:\n"
    "        OmegaConf.select(config, 'global_profiler.tool', default=None)\n"
    "    return {'got_config': config is not None}\n"
)


def test_a_caller_in_a_file_not_named_is_judged_too(tmp_path: Path) -> None:
    """Bug: ``apply app/launcher.py`` judged the callers of ``launch`` in the named files
    only, so ``app/main.py`` calling ``launch({"trainer": {...}})`` was not seen: the fix
    passed the plain dict on and verl 0.9's function raised on it. The callers are looked
    for among the repository's files that load the calling module too, as ``apply .``
    does: the fix is unsafe, the reason names ``app/main.py:3``, and ``main`` still runs."""
    _write(tmp_path, {
        "stub/verl/trainer/constants_ppo.py": SELECTING_VERL,
        "app/launcher.py": DIRECT,
        "app/main.py": "from app.launcher import launch\n\nRESULT = launch({'trainer': {'n_gpus_per_node': 8}})\n",
    })
    subprocess.run(["git", "init", "-q", "."], cwd=tmp_path, check=True)
    env = {"PYTHONPATH": f"{tmp_path / 'stub'}:{tmp_path}", "PATH": "/usr/bin:/bin"}

    def run_main() -> subprocess.CompletedProcess:
        return warm_python.run(
            [sys.executable, "-c", "import app.main as m; print(m.RESULT)"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
        )

    assert run_main().stdout.strip() == "{'got_config': False}"
    applied = run_cli("apply", "--output-format", "concise", "app/launcher.py", cwd=tmp_path)
    assert applied.returncode == 1, applied.stdout + applied.stderr
    assert "(unsafe fix: app/main.py:3 passes `{'trainer': {'n_gpus_per_node': 8}}`, a plain dict" in applied.stdout
    assert (tmp_path / "app/launcher.py").read_text() == DIRECT
    after = run_main()
    assert after.returncode == 0 and after.stdout.strip() == "{'got_config': False}", after.stderr


#: calls reading the function by a literal name (trial 26, f5): each one of verl's
SPELLINGS = {
    "getattr-alias": "from verl.trainer import constants_ppo\n\n"
    "make_env = getattr(constants_ppo, 'get_ppo_ray_runtime_env')\n\n\n"
    "def launch(config):\n    return make_env()\n",
    "vars-subscript": "from verl.trainer import constants_ppo\n\n\n"
    "def launch(config):\n    return vars(constants_ppo)['get_ppo_ray_runtime_env']()\n",
    "import-module": "import importlib\n\n\ndef launch(config):\n"
    "    cp = importlib.import_module('verl.trainer.constants_ppo')\n    return cp.get_ppo_ray_runtime_env()\n",
    "dunder-import": "def launch(config):\n"
    "    return __import__('verl.trainer.constants_ppo', fromlist=['_']).get_ppo_ray_runtime_env()\n",
}


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_calls_spelled_by_a_literal_name_are_found_and_fixed(tmp_path: Path, name: str) -> None:
    """``check`` said "All checks passed!" on ``getattr(cp, "get_...")``,
    ``vars(cp)["get_..."]()``, ``importlib.import_module("verl...").get_...()`` and
    ``__import__(...)``: each is now a PPO001 with a safe fix, and after ``apply`` verl's
    function gets the config."""
    _write(tmp_path, {
        "app/launcher.py": SPELLINGS[name],
        "tests/test_launcher.py": OMEGA + "from app import launcher\n\n\n"
        f"def test_launch():\n    assert launcher.launch({CFG}) == {{'got_config': True}}\n",
    })
    assert _pytest(tmp_path).returncode == 1  # verl's function wants the config
    checked = run_cli("check", "--output-format", "json", ".", cwd=tmp_path)
    found = [d for d in json.loads(checked.stdout) if d["filename"].endswith("app/launcher.py")]
    assert [(d["code"], d["fix"]["applicability"]) for d in found] == [("PPO001", "safe")], found
    assert run_cli("apply", ".", cwd=tmp_path).returncode == 0
    after = _pytest(tmp_path)
    assert after.returncode == 0, after.stdout + after.stderr


def test_a_re_export_deleted_and_served_by_getattr_is_no_re_export(tmp_path: Path) -> None:
    """``pkg/__init__.py`` star-importing verl's module, then ``del get_...`` and a module
    ``__getattr__`` serving its own zero-argument function (trial 26, f5s_getattr_pep562):
    ``from pkg import get_...`` is no call of verl's, so ``apply`` leaves it and the
    tests still pass."""
    _write(tmp_path, {
        "pkg/__init__.py": "from verl.trainer.constants_ppo import *  # noqa\n"
        "from . import legacy as _legacy\n\ndel get_ppo_ray_runtime_env  # noqa: F821\n\n\n"
        "def __getattr__(name):\n    return getattr(_legacy, name)\n",
        "pkg/legacy.py": LEGACY,
        "app/launcher.py": VIA_PKG,
        "tests/test_launcher.py": FAKED_TEST,
    })
    assert _pytest(tmp_path).returncode == 0
    checked = run_cli("check", "--output-format", "json", ".", cwd=tmp_path)
    assert not [d for d in json.loads(checked.stdout) if d["filename"].endswith("app/launcher.py")]
    run_cli("apply", ".", cwd=tmp_path)
    assert (tmp_path / "app/launcher.py").read_text() == VIA_PKG
    after = _pytest(tmp_path)
    assert after.returncode == 0, after.stdout + after.stderr


# -- trial 26b: a function --thread-config would thread, patched by a name built at run time
#: a wrapper without a config between the entry and the call: ``--thread-config`` would give
#: ``init_ray`` a config parameter and pass it at its call in ``launch``
WRAPPER = (
    FROM_IMPORT + "\n\ndef init_ray():\n    return get_ppo_ray_runtime_env()\n\n\n"
    "def launch(config):\n    return init_ray()\n"
)
#: name -> the test's body replacing ``init_ray`` with a zero-argument fake; the text on
#: the patch's line
THREAD_DOUBLES = {
    "patch-object-by-a-concatenation": (
        "    with mock.patch.object(launcher, 'init_' + 'ray', lambda: {'fake': 1}):\n",
        "mock.patch.object(",
    ),
    "patch-target-in-a-joined-constant": (
        "    with mock.patch(TARGET, lambda: {'fake': 1}):\n",
        "mock.patch(TARGET",
    ),
    "patch-object-of-a-name-not-known": (
        "    name = ''.join(reversed('yar_tini'))\n"
        "    with mock.patch.object(launcher, name, lambda: {'fake': 1}):\n",
        "mock.patch.object(",
    ),
}


@pytest.mark.parametrize("name", sorted(THREAD_DOUBLES))
def test_a_wrapper_patched_by_a_computed_name_is_not_threaded(tmp_path: Path, name: str) -> None:
    """``apply --thread-config`` refuses to thread ``init_ray`` when a test replaces it by a
    name built at run time (the test file never spells ``init_ray``), naming the patch's
    file and line; the tests pass before and after. The oracle: the threading written by
    hand makes the zero-argument fake fail the test."""
    body, marker = THREAD_DOUBLES[name]
    test = (
        OMEGA + "from unittest import mock\n\nfrom app import launcher\n\n"
        "TARGET = '.'.join(['app', 'launcher', 'init_' + 'ray'])\n\n\n"
        "def test_launch():\n" + body
        + f"        assert launcher.launch({CFG}) == {{'fake': 1}}\n"
    )
    files = {"app/launcher.py": WRAPPER, "tests/test_launcher.py": test}
    _write(tmp_path, files)
    assert "init_ray" not in test
    before = _pytest(tmp_path)
    assert before.returncode == 0, before.stdout + before.stderr
    done = run_cli("apply", "--thread-config", "--output-format", "concise", ".", cwd=tmp_path)
    line = _line_of(files, "tests/test_launcher.py", marker)
    assert f"`init_ray` cannot be threaded: tests/test_launcher.py:{line} binds `init_ray` at run time" \
        in done.stdout, done.stdout
    assert (tmp_path / "app/launcher.py").read_text() == WRAPPER
    after = _pytest(tmp_path)
    assert after.returncode == 0, after.stdout + after.stderr
    # the oracle: the threading refused, made by hand, fails the test
    (tmp_path / "app/launcher.py").write_text(
        WRAPPER.replace("def init_ray():\n    return get_ppo_ray_runtime_env()",
                        "def init_ray(config):\n    return get_ppo_ray_runtime_env(config)")
        .replace("return init_ray()", "return init_ray(config)")
    )
    broken = _pytest(tmp_path)
    assert broken.returncode == 1 and "positional argument" in broken.stdout, broken.stdout


# -- trial 26e (D, G): doubles in code the tool does not parse as a Python module -----------------

#: the check a smoke run makes: the launcher reaches the zero-argument fake (plain dicts: no
#: omegaconf needed, so that another interpreter runs it too)
SMOKE = (
    "from app import launcher\n"
    "launcher.get_ppo_ray_runtime_env = lambda: {'fake': 1}\n"
    "assert launcher.launch({'trainer': {}}) == {'fake': 1}\n"
)
SMOKE_ONE_LINE = "; ".join(SMOKE.strip().split("\n"))
#: a notebook as nbformat writes it (one source line a JSON line), the fake in its second cell
NOTEBOOK = json.dumps({
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# smoke\n"]},
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
         "source": ["%load_ext autoreload\n", *SMOKE.splitlines(keepends=True)]},
    ],
    "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
}, indent=1) + "\n"
#: how CI runs a notebook's code cells (nbmake/nbval stand-in: the cells in order, magics dropped)
RUN_NOTEBOOK = (
    "import json, sys; cells = json.load(open(sys.argv[1]))['cells']; "
    "exec('\\n'.join(l for c in cells if c['cell_type'] == 'code' for l in ''.join(c['source']).splitlines() "
    "if not l.startswith('%')))"
)
#: golden data that puts a test file over the tool's parse limit (1 MiB), not Python's
GOLDEN = "GOLDEN = [\n" + f"    '{'x' * 70}',\n" * 15000 + "]\n"
PY312 = next((str(p) for p in sorted(Path.home().glob(".pyenv/versions/3.12*/bin/python3.12"))), None)

#: name -> (files, (the file holding the double, text on its line), the command that runs it
#: from the project's folder (``{python}``: this interpreter), the interpreter it needs)
UNPARSED: dict[str, tuple[dict[str, str], tuple[str, str], list[str], str | None]] = {
    "makefile-python-c": ({
        "app/launcher.py": DIRECT,
        "Makefile": f'smoke:\n\t$(PY) -c "{SMOKE_ONE_LINE}"\n',
    }, ("Makefile", "-c"), ["make", "-s", "smoke", "PY={python}"], None),
    "shell-python-c-multiline": ({
        "app/launcher.py": DIRECT,
        "scripts/smoke.sh": "#!/bin/bash\nset -e\n\"$PY\" -c \"\n" + SMOKE + "\"\n",
    }, ("scripts/smoke.sh", "launcher.get_ppo_ray_runtime_env ="), ["bash", "scripts/smoke.sh"], None),
    # trial 26f (g4_heredoc_python_smoke): Python fed by a shell heredoc
    "shell-python-heredoc": ({
        "app/launcher.py": DIRECT,
        "scripts/smoke.sh": "#!/bin/bash\nset -euo pipefail\n\"$PY\" - <<'EOF'\n" + SMOKE + "EOF\n",
    }, ("scripts/smoke.sh", "launcher.get_ppo_ray_runtime_env ="), ["bash", "scripts/smoke.sh"], None),
    "shell-python-heredoc-tab-stripped-in-a-block": ({
        "app/launcher.py": DIRECT,
        "scripts/smoke.sh": "#!/bin/bash\nset -e\nif true; then\n\t\"$PY\" -u - smoke <<-PY\n"
        + "".join(f"\t{line}\n" for line in SMOKE.splitlines()) + "\tPY\nfi\n",
    }, ("scripts/smoke.sh", "launcher.get_ppo_ray_runtime_env ="), ["bash", "scripts/smoke.sh"], None),
    "shell-heredoc-piped-to-python": ({
        "app/launcher.py": DIRECT,
        "scripts/smoke.sh": "#!/bin/bash\nset -e\ncat <<EOF | \"$PY\" -\n" + SMOKE + "EOF\n",
    }, ("scripts/smoke.sh", "launcher.get_ppo_ray_runtime_env ="), ["bash", "scripts/smoke.sh"], None),
    "notebook-code-cell": ({
        "app/launcher.py": DIRECT,
        "notebooks/smoke.ipynb": NOTEBOOK,
    }, ("notebooks/smoke.ipynb", "launcher.get_ppo_ray_runtime_env ="),
        ["{python}", "-c", RUN_NOTEBOOK, "notebooks/smoke.ipynb"], None),
    "script-without-py-suffix": ({
        "app/launcher.py": DIRECT,
        "bin/smoke": "#!/usr/bin/env python3\n" + SMOKE,
    }, ("bin/smoke", "launcher.get_ppo_ray_runtime_env ="), ["{python}", "bin/smoke"], None),
    "newer-python-syntax": ({
        "app/launcher.py": DIRECT,
        "scripts/smoke.py": "type Env = dict[str, int]  # PEP 695: Python 3.12\n" + SMOKE,
    }, ("scripts/smoke.py", "launcher.get_ppo_ray_runtime_env ="), ["{python}", "scripts/smoke.py"], PY312),
    "over-the-parse-limit": ({
        "app/launcher.py": DIRECT,
        "tests/test_golden.py": "from app import launcher\n\n\ndef test_launch():\n"
        "    launcher.get_ppo_ray_runtime_env = lambda: {'fake': 1}\n"
        "    assert launcher.launch({'trainer': {}}) == {'fake': 1}\n\n\n" + GOLDEN,
    }, ("tests/test_golden.py", "launcher.get_ppo_ray_runtime_env ="),
        ["{python}", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], None),
    "tests-dist-folder": ({  # ``dist`` is a default exclude; pytest does not recurse into it
        "app/launcher.py": DIRECT,
        "tests/dist/test_launcher.py": "from app import launcher\n\n\ndef test_launch(monkeypatch):\n"
        "    monkeypatch.setattr(launcher, 'get_ppo_ray_runtime_env', lambda: {'fake': 1})\n"
        "    assert launcher.launch({'trainer': {}}) == {'fake': 1}\n",
    }, ("tests/dist/test_launcher.py", "monkeypatch.setattr"),
        ["{python}", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/dist"], None),
}


def _runs(root: Path, cmd: list[str], python: str) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": f"{root / 'stub'}:{root}", "PATH": "/usr/bin:/bin", "PY": python,
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    return subprocess.run([c.format(python=python) for c in cmd], cwd=root, env=env,
                          capture_output=True, text=True, timeout=180, check=False)


@pytest.mark.parametrize("name", sorted(UNPARSED))
def test_a_double_in_code_not_parsed_as_a_module_keeps_running_after_apply(tmp_path: Path, name: str) -> None:
    """Trial 26e (D, G): a zero-argument fake in a notebook's code cell, a ``python -c``
    string of a Makefile or a shell script, a script without ``.py``, a file of a newer
    Python's syntax, a test over the tool's parse limit or in ``tests/dist/`` (a default
    exclude) was not read: the fix was safe, and the smoke run failed after ``apply``. Now
    the fix is unsafe, its reason naming the double's file and line, and the run passes
    before and after ``apply`` and ``apply --thread-config``; the oracle: the fix made
    anyway fails it."""
    files, (rel, marker), cmd, python = UNPARSED[name]
    if python is None and name == "newer-python-syntax":
        pytest.skip("no Python 3.12 here")
    python = python or sys.executable
    if name == "makefile-python-c" and subprocess.run(["which", "make"], capture_output=True).returncode:
        pytest.skip("no make here")
    where = f"{rel}:{_line_of(files, rel, marker)}"
    _write(tmp_path, files)
    subprocess.run(["git", "init", "-q", "."], cwd=tmp_path, check=True)
    before = _runs(tmp_path, cmd, python)
    assert before.returncode == 0, before.stdout + before.stderr
    checked = run_cli("check", "--output-format", "json", ".", cwd=tmp_path)
    found = [d for d in json.loads(checked.stdout) if d["filename"].endswith("app/launcher.py")]
    assert [(d["code"], d["fix"]["applicability"]) for d in found] == [("PPO001", "unsafe")], found
    assert f"(unsafe fix: {where} " in found[0]["message"], found[0]["message"]
    assert [(Path(p["filename"]).resolve().relative_to(tmp_path.resolve()).as_posix(), p["location"]["row"])
            for p in found[0]["reason"]["lines"]] == [(rel, int(where.rsplit(":", 1)[1]))], found[0]["reason"]
    if name in ("newer-python-syntax", "over-the-parse-limit"):
        assert f"(unsafe fix: {where} could not be parsed: " in found[0]["message"], found[0]["message"]
    original = (tmp_path / "app/launcher.py").read_text()
    assert run_cli("apply", ".", cwd=tmp_path).returncode == 1
    assert (tmp_path / "app/launcher.py").read_text() == original
    after = _runs(tmp_path, cmd, python)
    assert after.returncode == 0, after.stdout + after.stderr
    run_cli("apply", "--thread-config", ".", cwd=tmp_path)
    threaded = _runs(tmp_path, cmd, python)
    assert threaded.returncode == 0, threaded.stdout + threaded.stderr
    # the oracle: the double takes no config, so the fix made anyway fails the run
    # (a file that does not parse is a PPO902 finding that remains)
    assert run_cli("apply", "--unsafe-fixes", ".", cwd=tmp_path).returncode in (0, 1)
    assert (tmp_path / "app/launcher.py").read_text() != original
    broken = _runs(tmp_path, cmd, python)
    assert broken.returncode != 0 and "positional argument" in broken.stdout + broken.stderr, broken.stdout
