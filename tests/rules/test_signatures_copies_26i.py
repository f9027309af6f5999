"""Trial 26i, family 1: a lone module file put in the place of verl's at run time.

I-B5: the project declares ``verl>=0.9.0`` (the installed verl takes a config) and keeps a
hotfix as a lone ``patches/constants_ppo.py`` whose ``get_ppo_ray_runtime_env`` takes no
config. When the project runs, a copy of the installed verl is made (``shutil.copytree`` of
``find_spec("verl")``'s folder in the launcher, ``cp -r`` in a launch script), the hotfix is
copied over its ``trainer/constants_ppo.py`` and the copy is put first on ``sys.path``. The
tool took the pin's verl as certain (``PPO001 [*]``), and the fixed call raised ``TypeError``.
Now a file named as the module, in no copy of verl, that defines the function without a
config makes the fix unsafe, naming that file's definition
(:meth:`ppo_migrate.rules.signatures.SignatureResolver._lone_module_file`).

Every project is *run*: before (in a copy, so what the entry leaves behind is not seen by the
tool), after a plain ``apply`` and after ``apply --thread-config``; the oracle, the call
rewritten by hand in a copy, fails with ``TypeError``. The installed verl (on ``PYTHONPATH``)
takes a config, as the pin says.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run_cli, verl_stub
from ppo_migrate.project.tree import lone_module_files, repository_listing

PIN = '[project]\nname = "proj"\nversion = "0"\ndependencies = ["verl>=0.9.0", "omegaconf"]\n'
#: the hotfix's definition sits on line 4, so that a reason naming line 1 would fail
OLD = "import os\n\n\ndef get_ppo_ray_runtime_env():\n    return {'env_vars': {'CUDA_DEVICE_MAX_CONNECTIONS': '1'}}\n"
#: the installed verl: takes a config (verl >= 0.9.0)
INSTALLED = "def get_ppo_ray_runtime_env(config=None):\n    return {'env_vars': {}}\n"
MODULE_ENTRY = (
    "import boot  # noqa: F401\n"
    "from omegaconf import OmegaConf\n"
    "from verl.trainer import constants_ppo as cp\n\n\n"
    "def main(config):\n    env = cp.get_ppo_ray_runtime_env()\n    assert 'env_vars' in env\n    print('OK')\n\n\n"
    "if __name__ == '__main__':\n    main(OmegaConf.create({'trainer': {'n_gpus_per_node': 1}}))\n"
)
NAME_ENTRY = (
    "from omegaconf import OmegaConf\n"
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def main(config):\n    env = get_ppo_ray_runtime_env()\n    assert 'env_vars' in env\n    print('OK')\n\n\n"
    "if __name__ == '__main__':\n    main(OmegaConf.create({'trainer': {'n_gpus_per_node': 1}}))\n"
)

#: trial 26i's scratch/h1 launcher: the hotfix named by its path
COPY_BOOT = (
    '"""Hotfix overlay: run the installed verl with our patched files on top."""\n'
    "import importlib.util\nimport pathlib\nimport shutil\nimport sys\n\n"
    "ROOT = pathlib.Path(__file__).resolve().parent\n"
    "_src = pathlib.Path(importlib.util.find_spec('verl').submodule_search_locations[0])\n"
    "_dst = ROOT / '.overlay' / 'verl'\n"
    "shutil.rmtree(_dst, ignore_errors=True)\n"
    "shutil.copytree(_src, _dst)\n"
    "shutil.copy(ROOT / 'patches' / 'constants_ppo.py', _dst / 'trainer' / 'constants_ppo.py')\n"
    "sys.path.insert(0, str(_dst.parent))\n"
)
#: every file of a hotfix folder copied over the module of the same name: none is named
GLOB_BOOT = (
    "import importlib.util\nimport pathlib\nimport shutil\nimport sys\nimport tempfile\n\n"
    "_src = pathlib.Path(importlib.util.find_spec('verl').submodule_search_locations[0])\n"
    "_stage = pathlib.Path(tempfile.mkdtemp(prefix='overlay-'))\n"
    "shutil.copytree(_src, _stage / 'verl')\n"
    "for _p in (pathlib.Path(__file__).resolve().parent / 'hotfix' / 'trainer_fixes').glob('*.py'):\n"
    "    shutil.copy(_p, _stage / 'verl' / 'trainer' / _p.name)\n"
    "sys.path.insert(0, str(_stage))\n"
)
#: the same in a launch script
RUN_SH = (
    "set -e\nrm -rf .overlay && mkdir -p .overlay\n"
    "cp -r \"$(python -c 'import importlib.util; print(importlib.util.find_spec(\"verl\").submodule_search_locations[0])')\" "
    ".overlay/verl\n"
    "cp ops/constants_ppo.py .overlay/verl/trainer/constants_ppo.py\n"
    "PYTHONPATH=$PWD/.overlay:$PYTHONPATH python train.py\n"
)

#: the hotfix kept under another name, its path read from a file at run time: not evaluated
READ_BOOT = COPY_BOOT.replace(
    "shutil.copy(ROOT / 'patches' / 'constants_ppo.py', ",
    "import json\n\nshutil.copy(ROOT / json.loads((ROOT / 'overlay.json').read_text())['ray_env'], ",
)

#: name -> (files, entry command, calling file, the hotfix)
PROJECTS: dict[str, tuple[dict[str, str], str, str, str]] = {
    "I-B5 shutil.copy over a run-time copy of verl": (
        {"boot.py": COPY_BOOT, "train.py": MODULE_ENTRY, "patches/constants_ppo.py": OLD, ".gitignore": ".overlay/\n"},
        "python train.py", "train.py", "patches/constants_ppo.py",
    ),
    "I-B5b a hotfix folder copied file by file": (
        {"train.py": GLOB_BOOT + NAME_ENTRY, "hotfix/trainer_fixes/constants_ppo.py": OLD},
        "python train.py", "train.py", "hotfix/trainer_fixes/constants_ppo.py",
    ),
    "I-B5c cp in a launch script": (
        {"run.sh": RUN_SH, "train.py": NAME_ENTRY, "ops/constants_ppo.py": OLD, ".gitignore": ".overlay/\n"},
        "bash run.sh", "train.py", "ops/constants_ppo.py",
    ),
}

#: name -> (files, calling file, the ``(unsafe fix: ...)`` text)
RENAMED_HOTFIX: dict[str, tuple[dict[str, str], str]] = {
    "I-B5d a hotfix of another name copied to constants_ppo.py": (
        {"boot.py": COPY_BOOT.replace("'patches' / 'constants_ppo.py'", "'patches' / 'ray_env_080.py'"),
         "train.py": MODULE_ENTRY, "patches/ray_env_080.py": OLD, ".gitignore": ".overlay/\n"},
        "`patches/ray_env_080.py:4` defines `get_ppo_ray_runtime_env()` without a config parameter (pre verl "
        "PR #6976): `boot.py:12` (shutil.copy) copies `patches/ray_env_080.py` to a file named as verl's module "
        "`verl/trainer/constants_ppo.py` when the project runs, besides the verl that `pyproject.toml:4 "
        "verl>=0.9.0` names; if that file is in the module's place (a copy of verl made by the launcher), "
        "passing the config raises TypeError; update the file copied, or run with --use-ppo-runtime",
    ),
    "I-B5e a hotfix whose path is read at run time": (
        {"boot.py": READ_BOOT, "train.py": MODULE_ENTRY, "patches/ray_env_080.py": OLD,
         "overlay.json": '{"ray_env": "patches/ray_env_080.py"}\n', ".gitignore": ".overlay/\n"},
        "`boot.py:14` (shutil.copy) writes a file the tool cannot read to a file named as verl's module "
        "`verl/trainer/constants_ppo.py` when the project runs, besides the verl that `pyproject.toml:4 "
        "verl>=0.9.0` names; if that file is in the module's place (a copy of verl made by the launcher) and "
        "its `get_ppo_ray_runtime_env` takes no config, passing the config raises TypeError; copy a file "
        "whose `get_ppo_ray_runtime_env` takes a config, or run with --use-ppo-runtime",
    ),
}

LONE = (
    "PPO001 `{call}` called without the config in scope; pass `config` (unsafe fix: `{hotfix}:4` "
    "defines `get_ppo_ray_runtime_env()` without a config parameter (pre verl PR #6976): `{hotfix}` "
    "is named as verl's module `verl/trainer/constants_ppo.py` but lies in no copy of verl, besides "
    "the verl that `pyproject.toml:4 verl>=0.9.0` names; if anything puts it in that module's place "
    "when the project runs (copied over a copy of verl made by the launcher, a `__path__` entry, an "
    "import hook), passing the config raises TypeError; update or remove that file, or run with "
    "--use-ppo-runtime)"
)


def _write(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True)
    for name, text in {"pyproject.toml": PIN, **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _run(root: Path, command: str, site: Path) -> subprocess.CompletedProcess[str]:
    """The entry as the project runs it: ``python`` is this interpreter, the installed verl
    (taking a config) is ``site``."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(site)
    env.pop("PYTHONSAFEPATH", None)
    return subprocess.run(command, shell=True, cwd=root, env=env, capture_output=True, text=True, timeout=120)


def _concise(root: Path) -> list[str]:
    proc = run_cli("check", "--output-format", "concise", "--show-notices", ".", cwd=root)
    return [line for line in proc.stdout.splitlines() if ": PPO00" in line]


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_a_lone_module_file_put_over_verl_s_is_never_given_a_config(name: str, tmp_path: Path) -> None:
    files, command, caller, hotfix = PROJECTS[name]
    root = _write(tmp_path / "proj", files)
    site = verl_stub(tmp_path / "site", INSTALLED)
    call = "cp.get_ppo_ray_runtime_env()" if "cp." in files[caller] else "get_ppo_ray_runtime_env()"
    line = files[caller].splitlines().index(f"    env = {call}") + 1
    assert _concise(root) == [f"{caller}:{line}:11: {LONE.format(call=call, hotfix=hotfix)}"]

    before = tmp_path / "before"  # what the entry leaves behind is not the tool's to see
    shutil.copytree(root, before)
    proc = _run(before, command, site)
    assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr
    oracle = tmp_path / "oracle"  # the fix made by hand: the hotfix is the module in effect
    shutil.copytree(root, oracle)
    text = (oracle / caller).read_text()
    (oracle / caller).write_text(text.replace(call, call.replace("()", "(config)")))
    proc = _run(oracle, command, site)
    assert proc.returncode != 0 and "TypeError: get_ppo_ray_runtime_env() takes 0 positional arguments" in proc.stderr

    text = (root / caller).read_text()
    for extra in ((), ("--thread-config",)):
        run_cli("apply", *extra, ".", cwd=root)
        assert (root / caller).read_text() == text
        proc = _run(root, command, site)
        assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr
        shutil.rmtree(root / ".overlay", ignore_errors=True)  # the next apply sees a fresh clone


@pytest.mark.parametrize("name", sorted(RENAMED_HOTFIX))
def test_a_file_written_over_verl_s_module_is_never_given_a_config(name: str, tmp_path: Path) -> None:
    files, why = RENAMED_HOTFIX[name]
    root = _write(tmp_path / "proj", files)
    site = verl_stub(tmp_path / "site", INSTALLED)
    call = "cp.get_ppo_ray_runtime_env()"
    assert _concise(root) == [
        f"train.py:7:11: PPO001 `{call}` called without the config in scope; pass `config` (unsafe fix: {why})"
    ]
    before = tmp_path / "before"
    shutil.copytree(root, before)
    proc = _run(before, "python train.py", site)
    assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr
    oracle = tmp_path / "oracle"
    shutil.copytree(root, oracle)
    (oracle / "train.py").write_text(files["train.py"].replace(call, "cp.get_ppo_ray_runtime_env(config)"))
    proc = _run(oracle, "python train.py", site)
    assert proc.returncode != 0 and "TypeError: get_ppo_ray_runtime_env() takes 0 positional arguments" in proc.stderr
    for extra in ((), ("--thread-config",)):
        run_cli("apply", *extra, ".", cwd=root)
        assert (root / "train.py").read_text() == files["train.py"]
        proc = _run(root, "python train.py", site)
        assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr
        shutil.rmtree(root / ".overlay", ignore_errors=True)


def test_a_file_taking_a_config_written_over_verl_s_module_keeps_the_safe_fix(tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {
        "boot.py": COPY_BOOT.replace("'patches' / 'constants_ppo.py'", "'patches' / 'ray_env.py'"),
        "train.py": MODULE_ENTRY, "patches/ray_env.py": INSTALLED,
        # a test writing the file is a test's fixture: the doubles table's
        "tests/test_overlay.py": "import shutil\n\n\ndef test_x(tmp_path):\n"
        "    shutil.copy('x.py', tmp_path / 'constants_ppo.py')\n",
    })
    assert _concise(root) == [
        "train.py:7:11: PPO001 [*] `cp.get_ppo_ray_runtime_env()` called without the config in scope; pass `config`"
    ]


@pytest.mark.parametrize(
    "hotfix",
    [
        # the hotfix takes a config: nothing to refuse
        "def get_ppo_ray_runtime_env(config=None):\n    return {'env_vars': {}}\n",
        # a project's wrapper module of the same name that re-exports verl's: no replacement
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n__all__ = ['get_ppo_ray_runtime_env']\n",
        # a module of the same name binding other functions only
        "def get_ppo_ray_runtime_env_legacy():\n    return {}\n",
    ],
)
def test_a_lone_module_file_that_is_no_zero_argument_definition_keeps_the_safe_fix(
    hotfix: str, tmp_path: Path
) -> None:
    root = _write(tmp_path / "proj", {"train.py": NAME_ENTRY, "patches/constants_ppo.py": hotfix})
    assert _concise(root) == [
        "train.py:6:11: PPO001 [*] `get_ppo_ray_runtime_env()` called without the config in scope; pass `config`"
    ]


def test_lone_module_files_leave_copies_and_verl_s_own_modules_to_their_rules(tmp_path: Path) -> None:
    """Only files named as the module outside any copy: ``X/trainer/constants_ppo.py`` is a
    (renamed) copy's module, ``verl/...`` is verl's own tree, test data is not walked, a fake
    under ``tests/`` is the doubles table's (it names the line loading it)."""
    root = _write(tmp_path / "proj", {
        "patches/constants_ppo.py": OLD,
        "constants_ppo.py": OLD,
        "third_party/rlcore/trainer/constants_ppo.py": OLD,
        "trainer/constants_ppo.py": OLD,
        "verl/utils/constants_ppo.py": OLD,
        "vendor/verl/legacy/constants_ppo.py": OLD,
        "fixtures/case/constants_ppo.py": OLD,
        "tests/fakes/constants_ppo.py": OLD,
        "patches/main_ppo.py": OLD,
    })
    listing = repository_listing(root)
    module = "verl.trainer.constants_ppo"
    found = [os.path.relpath(p, root) for p in lone_module_files(listing, "verl", module)]
    assert found == ["constants_ppo.py", os.path.join("patches", "constants_ppo.py")]
    assert lone_module_files(listing, "verl", "verl.constants_ppo") == []  # ``X/constants_ppo.py``: renamed
    assert lone_module_files(listing, "other", module) == []


# -- I-B7, I-B8: an in-tree fork's package serves another module in the file's place --------

FORK_NEW = "def get_ppo_ray_runtime_env(config=None):\n    return {'env_vars': {}}\n"
FORK_OLD = "def get_ppo_ray_runtime_env():\n    return {'env_vars': {'CUDA_DEVICE_MAX_CONNECTIONS': '1'}}\n"
FROM_PACKAGE_ENTRY = NAME_ENTRY.replace(
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n", "from verl.trainer import constants_ppo\n"
).replace("env = get_ppo_ray_runtime_env()", "env = constants_ppo.get_ppo_ray_runtime_env()")
LAZY_INIT = (
    "# Lab fork: lazy submodules; some names are served by our kept implementations.\n"
    "import importlib\n\n_ALIASES = {'constants_ppo': '._constants_ppo_080'}\n\n\n"
    "def __getattr__(name):\n    if name in _ALIASES:\n"
    "        return importlib.import_module(_ALIASES[name], __name__)\n"
    "    raise AttributeError(name)\n"
)


def _fork(init: str, legacy: str = "legacy") -> dict[str, str]:
    """An in-tree fork whose ``constants_ppo.py`` takes a config, whose ``trainer/__init__.py``
    is ``init`` and whose ``trainer/{legacy}.py`` does not take one."""
    return {
        "verl/__init__.py": "", "verl/trainer/__init__.py": init,
        "verl/trainer/constants_ppo.py": FORK_NEW, f"verl/trainer/{legacy}.py": FORK_OLD,
    }


#: name -> (files, calling file, the line of the fork's ``__init__.py``, its reason's middle)
FORKS: dict[str, tuple[dict[str, str], str, int, str]] = {
    "I-B7 sys.modules[f'{__name__}.constants_ppo']": (
        {**_fork("import sys\n\nfrom . import legacy\n\nsys.modules[f\"{__name__}.constants_ppo\"] = legacy\n"),
         "train.py": NAME_ENTRY},
        "train.py", 5,
        "a `sys.modules` entry (`sys.modules[...] =`, under `verl.trainer.constants_ppo`) that decides which "
        "`constants_ppo` is imported",
    ),
    "I-B7b sys.modules[__name__ + '.constants_ppo'] behind a constant": (
        {**_fork("import sys as _sys\n\nfrom . import legacy\n\n_MOD = 'constants_ppo'\n"
                 "_sys.modules.setdefault(__name__ + '.' + _MOD, legacy)\n"),
         "train.py": NAME_ENTRY},
        "train.py", 6,
        "a `sys.modules` entry (`sys.modules.setdefault`, under `verl.trainer.constants_ppo`) that decides "
        "which `constants_ppo` is imported",
    ),
    "I-B8b a package __getattr__ falling back to a kept package": (
        {**_fork("from . import legacy as _kept\n\n\ndef __getattr__(name):\n    return getattr(_kept, name)\n"),
         "verl/trainer/legacy.py": "from . import legacy_env as constants_ppo  # noqa: F401\n",
         "verl/trainer/legacy_env.py": FORK_OLD, "train.py": FROM_PACKAGE_ENTRY},
        "train.py", 4,
        "a module `__getattr__` of `verl.trainer` that may serve `constants_ppo` in place of its file",
    ),
    "I-B8 a lazy package __getattr__ serving a kept module": (
        {**_fork(LAZY_INIT, "_constants_ppo_080"), "train.py": FROM_PACKAGE_ENTRY},
        "train.py", 7,
        "a module `__getattr__` of `verl.trainer` that may serve `constants_ppo` in place of its file",
    ),
}


@pytest.mark.parametrize("name", sorted(FORKS))
def test_a_fork_package_serving_another_module_is_never_given_a_config(name: str, tmp_path: Path) -> None:
    files, caller, line, middle = FORKS[name]
    root = _write(tmp_path / "proj", files)
    site = verl_stub(tmp_path / "site", INSTALLED)
    call = "constants_ppo.get_ppo_ray_runtime_env()" if "constants_ppo." in files[caller] else "get_ppo_ray_runtime_env()"
    row = files[caller].splitlines().index(f"    env = {call}") + 1
    assert _concise(root) == [
        f"{caller}:{row}:11: PPO005 `{call}` left as it is: `verl/trainer/__init__.py:{line}` binds "
        f"`get_ppo_ray_runtime_env` by {middle}, so its signature cannot be read; make it a plain def, set "
        "verl-version if it is a verl release, or run with --use-ppo-runtime"
    ]

    proc = _run(root, "python train.py", site)
    assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr
    oracle = tmp_path / "oracle"  # the fix made by hand: the module served is the one in effect
    shutil.copytree(root, oracle)
    text = (oracle / caller).read_text()
    (oracle / caller).write_text(text.replace(call, call.replace("()", "(config)")))
    proc = _run(oracle, "python train.py", site)
    assert proc.returncode != 0 and "TypeError: get_ppo_ray_runtime_env() takes 0 positional arguments" in proc.stderr

    text = (root / caller).read_text()
    for extra in ((), ("--thread-config",)):
        run_cli("apply", *extra, ".", cwd=root)
        assert (root / caller).read_text() == text
        proc = _run(root, "python train.py", site)
        assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr


@pytest.mark.parametrize(
    "init",
    [
        # the lazy-import idiom serves the package's own file
        "import importlib\n\n\ndef __getattr__(name):\n    if name in {'constants_ppo'}:\n"
        "        return importlib.import_module('.' + name, __name__)\n    raise AttributeError(name)\n",
        "import importlib\n\n\ndef __getattr__(name):\n    return importlib.import_module(f'{__name__}.{name}')\n",
        # a deprecation alias serving a fixed name
        "import warnings\n\n_DEFAULTS = {'env_vars': {}}\n\n\n"
        "def __getattr__(name):\n    if name == 'OLD_DEFAULTS':\n        warnings.warn('OLD_DEFAULTS is deprecated')\n"
        "        return _DEFAULTS\n    raise AttributeError(name)\n",
        # an entry under another module's name
        "import sys\n\nfrom . import legacy\n\nsys.modules[__name__ + '.legacy_env'] = legacy\n",
        # reading sys.modules is no write
        "import sys\n\n_me = sys.modules[__name__]\n",
    ],
)
def test_a_fork_package_serving_its_own_file_keeps_the_safe_fix(init: str, tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {**_fork(init), "train.py": FROM_PACKAGE_ENTRY})
    assert _concise(root) == [
        "train.py:6:11: PPO001 [*] `constants_ppo.get_ppo_ray_runtime_env()` called without the config in "
        "scope; pass `config`"
    ]
    run_cli("apply", ".", cwd=root)
    proc = _run(root, "python train.py", verl_stub(tmp_path / "site", INSTALLED))
    assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr


@pytest.mark.parametrize(
    "statement, form, copied",
    [
        ("shutil.copy(HERE / 'fix.py', DST / 'trainer' / 'constants_ppo.py')", "shutil.copy", "fix.py"),
        ("copy2('fix.py', '.overlay/verl/trainer/constants_ppo.py')", "copy2", "fix.py"),
        ("os.replace(HERE / 'fix.py', os.path.join(DST, 'trainer', 'constants_ppo.py'))", "os.replace", "fix.py"),
        ("(DST / 'trainer' / 'constants_ppo.py').write_text(TEXT)", ".write_text", None),
        ("(DST / 'trainer' / 'constants_ppo.py').symlink_to(HERE / 'fix.py')", ".symlink_to", "fix.py"),
        ("(HERE / 'fix.py').rename(DST / 'trainer' / 'constants_ppo.py')", ".rename", "fix.py"),
    ],
)
def test_module_writes_reads_the_copy_and_write_forms(statement: str, form: str, copied: str | None, tmp_path: Path) -> None:
    from ppo_migrate.project.import_roots import module_writes

    boot = (
        "import os\nimport pathlib\nimport shutil\nfrom shutil import copy2\n\n"
        "HERE = pathlib.Path(__file__).resolve().parent\nDST = HERE / '.overlay' / 'verl'\nTEXT = 'x'\n"
        f"{statement}\n"
        "print('constants_ppo.py')\n"  # a mention alone writes nothing
    )
    root = _write(tmp_path / "proj", {"boot.py": boot, "fix.py": OLD})
    found = module_writes(root, "constants_ppo.py")
    assert [(os.path.basename(w.source), w.line, w.form) for w in found] == [("boot.py", 9, form)]
    assert found[0].copied == (str(root / copied) if copied else None)
    assert module_writes(root, "main_ppo.py") == ()


HOOK_BOOT = (
    "import importlib.util\nimport pathlib\n\nimport verl.trainer\n\n"
    "_spec = importlib.util.spec_from_file_location('ray_env_legacy', "
    "pathlib.Path(__file__).resolve().parent / 'legacy' / 'ray_env.py')\n"
    "_legacy = importlib.util.module_from_spec(_spec)\n_spec.loader.exec_module(_legacy)\n\n\n"
    "def _lazy(name):\n    if name == 'constants_ppo':\n        return _legacy\n    raise AttributeError(name)\n\n\n"
    "{assign}\n"
)


@pytest.mark.parametrize(
    "assign, line",
    [
        ("verl.trainer.__getattr__ = _lazy", 17),  # trial 26i's i5_boot_assigns_package_getattr
        ("setattr(sys.modules['verl.trainer'], '__getattr__', _lazy)", 17),
    ],
)
def test_a_package_getattr_set_from_outside_is_never_given_a_config(assign: str, line: int, tmp_path: Path) -> None:
    """I-B8c: a boot module sets ``verl.trainer.__getattr__``; ``from verl.trainer import
    constants_ppo`` gets the legacy module it serves, never the installed file."""
    boot = HOOK_BOOT.format(assign=assign).replace("import pathlib\n", "import pathlib\nimport sys\n" if "sys." in assign else "import pathlib\n")
    line += "sys." in assign
    entry = "import boot  # noqa: F401\n" + FROM_PACKAGE_ENTRY
    root = _write(tmp_path / "proj", {"boot.py": boot, "legacy/ray_env.py": FORK_OLD, "train.py": entry})
    site = verl_stub(tmp_path / "site", INSTALLED)
    call = "constants_ppo.get_ppo_ray_runtime_env()"
    # the test doubles' table names the assignment first (its reason makes the fix unsafe
    # before the callee in effect is asked: :meth:`ppo_migrate.rules.check.ModuleAnalysis`)
    form = "setattr" if "setattr" in assign else "an assignment"
    assert _concise(root) == [
        f"train.py:7:11: PPO001 `{call}` called without the config in scope; pass `config` (unsafe fix: "
        f"boot.py:{line} gives `verl.trainer` a module `__getattr__` ({form}), which may serve verl's "
        "module or the runtime function as one taking no config)"
    ]
    proc = _run(root, "python train.py", site)
    assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr
    oracle = tmp_path / "oracle"
    shutil.copytree(root, oracle)
    (oracle / "train.py").write_text(entry.replace(call, "constants_ppo.get_ppo_ray_runtime_env(config)"))
    proc = _run(oracle, "python train.py", site)
    assert proc.returncode != 0 and "TypeError: get_ppo_ray_runtime_env() takes 0 positional arguments" in proc.stderr
    for extra in ((), ("--thread-config",)):
        run_cli("apply", *extra, ".", cwd=root)
        assert (root / "train.py").read_text() == entry
        proc = _run(root, "python train.py", site)
        assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr


#: fresh user 43, B4: the hotfix re-exports a function of a module copied beside it
REEXPORT_BOOT = (
    "import importlib.util\nimport pathlib\nimport shutil\nimport sys\n\n"
    "ROOT = pathlib.Path(__file__).resolve().parent\n"
    "_src = pathlib.Path(importlib.util.find_spec('verl').submodule_search_locations[0])\n"
    "_dst = ROOT / '.overlay' / 'verl'\n"
    "shutil.rmtree(_dst, ignore_errors=True)\n"
    "shutil.copytree(_src, _dst)\n"
    "for _p in (ROOT / 'hot').glob('*.py'):\n"
    "    shutil.copy(_p, _dst / 'trainer' / _p.name)\n"
    "sys.path.insert(0, str(_dst.parent))\n"
)


def test_a_lone_module_file_re_exporting_a_module_beside_it_is_never_given_a_config(tmp_path: Path) -> None:
    """Fresh user 43, B4: ``hot/constants_ppo.py`` binds the function by ``from .legacy_env
    import ...``; copied with ``hot/legacy_env.py`` over verl's ``trainer/``, it gives a
    function taking no config. An unsafe fix naming the import, and the entry runs after
    ``apply``; a wrapper re-exporting verl's own function stays no hotfix."""
    files = {
        "boot.py": REEXPORT_BOOT, "train.py": MODULE_ENTRY, ".gitignore": ".overlay/\n",
        "hot/constants_ppo.py": "from .legacy_env import get_ppo_ray_runtime_env  # noqa: F401\n",
        "hot/legacy_env.py": OLD,
    }
    root = _write(tmp_path / "proj", files)
    site = verl_stub(tmp_path / "site", INSTALLED)
    (line,) = _concise(root)
    assert line.startswith("train.py:7:11: PPO001 `cp.get_ppo_ray_runtime_env()` called without the config in scope")
    assert "`hot/constants_ppo.py` is named as verl's module" in line
    assert "by `from .legacy_env import get_ppo_ray_runtime_env` (line 1)" in line
    before = tmp_path / "before"
    shutil.copytree(root, before)
    proc = _run(before, "python train.py", site)
    assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr
    text = (root / "train.py").read_text()
    run_cli("apply", ".", cwd=root)
    assert (root / "train.py").read_text() == text
    proc = _run(root, "python train.py", site)
    assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr

    wrapper = _write(tmp_path / "wrapper", {
        "train.py": NAME_ENTRY,
        "app/constants_ppo.py": "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env  # noqa: F401\n",
    })
    assert [line.split(": ")[1] for line in _concise(wrapper)] == ["PPO001 [*] `get_ppo_ray_runtime_env()` called without the config in scope; pass `config`"]
