"""Trial 26h, family 1: copies of verl the tool did not take as plausibly in effect.

Each project declares ``verl>=0.9.0`` and holds a zero-argument copy of verl that the entry
imports when it runs, by a way the pin does not show:

* H-B1, H-B1b, H-B1c: ``app/verl/`` inside a package folder (``app/__init__.py``) is
  ``app.verl`` from the root, but ``python app/train.py`` (or ``cd app && python -m train``,
  or ``python src/proj/cli.py``) puts the script's folder first on ``sys.path``, where
  ``app/verl`` *is* ``verl``. Now PPO005 naming the copy's definition and its folder.
* H-B2, H-B2b, H-B2c, H-B2d: a fork kept as ``third_party/rlcore/`` becomes ``verl`` at run
  time (``ln -s`` in a launch script or a Makefile rule, ``os.symlink`` or
  ``shutil.copytree`` in the launcher, then ``PYTHONPATH``/``sys.path.insert``). A copy is
  now recognised by its content: an unsafe fix naming the fork's definition.

Every project is *run*: before (in a copy, so what the entry leaves behind is not seen by
the tool), after a plain ``apply`` and after ``apply --thread-config``; the oracle, the call
rewritten by hand in a copy, fails with ``TypeError``. The installed verl (on
``PYTHONPATH``) takes a config, as the pin says.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import VERL_09, run_cli, verl_stub

PIN = '[project]\nname = "proj"\nversion = "0"\ndependencies = ["verl>=0.9.0", "omegaconf"]\n'
#: the copy's definition sits on line 4, so that a reason naming line 1 would fail
OLD = "import os\n\n\ndef get_ppo_ray_runtime_env():\n    return {'env_vars': {}}\n"
NEW = "import os\n\n\ndef get_ppo_ray_runtime_env(config=None):\n    return {'env_vars': {}}\n"
ENTRY = (
    "from omegaconf import OmegaConf\n"
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def main(config):\n    env = get_ppo_ray_runtime_env()\n    assert 'env_vars' in env\n    print('OK')\n\n\n"
    "if __name__ == '__main__':\n    main(OmegaConf.create({'trainer': {'n_gpus_per_node': 1}}))\n"
)
CALL = "get_ppo_ray_runtime_env()"


def _copy(folder: str, body: str = OLD) -> dict[str, str]:
    """A copy of verl's package in ``folder`` (``app/verl`` or ``third_party/rlcore``)."""
    return {f"{folder}/__init__.py": "", f"{folder}/trainer/__init__.py": "", f"{folder}/trainer/constants_ppo.py": body}


def _boot(body: str) -> str:
    """``ENTRY`` with ``body`` run first (the launcher making the fork ``verl``)."""
    return body + ENTRY


SYMLINK_BOOT = (
    "import os\nimport pathlib\nimport sys\n\n"
    "ROOT = pathlib.Path(__file__).resolve().parent\n_py = ROOT / '.cache' / 'py'\n"
    "_py.mkdir(parents=True, exist_ok=True)\n"
    "if not (_py / 'verl').exists():\n    os.symlink(ROOT / 'third_party' / 'rlcore', _py / 'verl')\n"
    "sys.path.insert(0, str(_py))\n"
)
COPYTREE_BOOT = (
    "import pathlib\nimport shutil\nimport sys\nimport tempfile\n\n"
    "_stage = pathlib.Path(tempfile.mkdtemp(prefix='rl-'))\n"
    "shutil.copytree(pathlib.Path(__file__).resolve().parent / 'third_party' / 'rlcore', _stage / 'verl')\n"
    "sys.path.insert(0, str(_stage))\n"
)

#: name -> (files, entry command, calling file)
PROJECTS: dict[str, tuple[dict[str, str], str, str]] = {
    "H-B1 python app/train.py": (
        {"app/__init__.py": "", **_copy("app/verl"), "app/train.py": ENTRY},
        "python app/train.py", "app/train.py",
    ),
    "H-B1b cd app && python -m train": (
        {"app/__init__.py": "", **_copy("app/verl"), "app/train.py": ENTRY,
         "Makefile": "train:\n\tcd app && python -m train\n"},
        "make -s train", "app/train.py",
    ),
    "H-B1c python src/proj/cli.py": (
        {"src/proj/__init__.py": "", **_copy("src/proj/verl"), "src/proj/cli.py": ENTRY,
         "scripts/train.sh": '#!/bin/bash\npython src/proj/cli.py "$@"\n'},
        "bash scripts/train.sh", "src/proj/cli.py",
    ),
    "H-B2 run.sh ln -s": (
        {**_copy("third_party/rlcore"), "train.py": ENTRY, ".gitignore": "build/\n",
         "run.sh": "mkdir -p build/py && ln -sfn ../../third_party/rlcore build/py/verl\n"
                   "PYTHONPATH=$PWD/build/py:$PYTHONPATH python train.py\n"},
        "bash run.sh", "train.py",
    ),
    "H-B2b os.symlink in the launcher": (
        {**_copy("third_party/rlcore"), "train.py": _boot(SYMLINK_BOOT), ".gitignore": ".cache/\n"},
        "python train.py", "train.py",
    ),
    "H-B2c shutil.copytree in the launcher": (
        {**_copy("third_party/rlcore"), "train.py": _boot(COPYTREE_BOOT)},
        "python train.py", "train.py",
    ),
    "H-B2d Makefile ln -s": (
        {**_copy("third_party/rlcore"), "train.py": ENTRY, ".gitignore": "build/\n",
         "Makefile": "build/py/verl:\n\tmkdir -p build/py\n\tln -s ../../third_party/rlcore build/py/verl\n\n"
                     "train: build/py/verl\n\tPYTHONPATH=build/py:$$PYTHONPATH python train.py\n"},
        "make -s train", "train.py",
    ),
}

#: name -> the line ``check --output-format concise --show-notices`` gives for the call
NESTED = (
    "PPO005 `get_ppo_ray_runtime_env()` left as it is: `{folder}/verl/trainer/constants_ppo.py:4` "
    "defines `get_ppo_ray_runtime_env()` without a config parameter (pre verl PR #6976); "
    "`{folder}/verl/` is a package `verl` inside the package folder `{folder}/`: a file of "
    "`{folder}/` run as a script (`python {folder}/<file>.py`, `cd {folder} && python -m <module>`) "
    "puts `{folder}/` first on sys.path, and then `{folder}/verl/` is the verl this call imports; "
    "update that copy, or run with --use-ppo-runtime"
)
RENAMED = (
    "PPO001 `get_ppo_ray_runtime_env()` called without the config in scope; pass `config` "
    "(unsafe fix: `third_party/rlcore/trainer/constants_ppo.py:4` defines `get_ppo_ray_runtime_env()` "
    "without a config parameter (pre verl PR #6976): `third_party/rlcore/` holds a copy of verl "
    "under another name (its `trainer/constants_ppo.py` binds `get_ppo_ray_runtime_env`), besides "
    "the verl that `pyproject.toml:4 verl>=0.9.0` names; if anything makes it `verl` when the "
    "project runs (a symbolic link or a copy named `verl` made by a launch script, a Makefile or "
    "the launcher, then sys.path or PYTHONPATH), passing the config raises TypeError; update or "
    "remove that copy, or run with --use-ppo-runtime)"
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
def test_a_copy_the_entry_imports_is_never_given_a_config(name: str, tmp_path: Path) -> None:
    files, command, caller = PROJECTS[name]
    root = _write(tmp_path / "proj", files)
    site = verl_stub(tmp_path / "site", VERL_09)
    folder = os.path.dirname(caller)
    expected = NESTED.format(folder=folder) if name.startswith("H-B1") else RENAMED
    line = files[caller].splitlines().index(f"    env = {CALL}") + 1
    column = 11
    assert _concise(root) == [f"{caller}:{line}:{column}: {expected}"]

    before = tmp_path / "before"  # what the entry leaves behind is not the tool's to see
    shutil.copytree(root, before, symlinks=True)
    proc = _run(before, command, site)
    assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr
    oracle = tmp_path / "oracle"  # the fix made by hand: the copy is the verl in effect
    shutil.copytree(root, oracle, symlinks=True)
    text = (oracle / caller).read_text()
    (oracle / caller).write_text(text.replace(CALL, "get_ppo_ray_runtime_env(config)"))
    proc = _run(oracle, command, site)
    assert proc.returncode != 0 and "TypeError: get_ppo_ray_runtime_env() takes 0 positional arguments" in proc.stderr

    text = (root / caller).read_text()
    for extra in ((), ("--thread-config",)):
        run_cli("apply", *extra, ".", cwd=root)
        assert (root / caller).read_text() == text
        proc = _run(root, command, site)
        assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr


def test_a_vendored_copy_s_own_calls_and_the_script_beside_it_agree(tmp_path: Path) -> None:
    """H-B1c: the vendored ``main_ppo.py`` got PPO005 (its own copy) while ``cli.py`` in the same
    folder got a safe fix; both are notices now."""
    main_ppo = (
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
        "def run_ppo(config):\n    return get_ppo_ray_runtime_env()\n"
    )
    root = _write(tmp_path / "proj", {
        "src/proj/__init__.py": "", **_copy("src/proj/verl"), "src/proj/verl/trainer/main_ppo.py": main_ppo,
        "src/proj/cli.py": ENTRY,
    })
    codes = [line.split(": ")[1].split(" ")[0] for line in _concise(root)]
    assert codes == ["PPO005", "PPO005"]


@pytest.mark.parametrize(
    "files, caller",
    [
        # the copy in the package folder takes a config: nothing to refuse
        ({"app/__init__.py": "", **_copy("app/verl", NEW), "app/train.py": ENTRY}, "app/train.py"),
        # a folder holding the module but binding another function is no copy of verl
        ({**_copy("third_party/rlcore", "def other():\n    return {}\n"), "train.py": ENTRY}, "train.py"),
        # a renamed fork taking a config
        ({**_copy("third_party/rlcore", NEW), "train.py": ENTRY}, "train.py"),
    ],
)
def test_copies_taking_a_config_keep_the_safe_fix(files: dict[str, str], caller: str, tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", files)
    assert _concise(root) == [
        f"{caller}:6:11: PPO001 [*] `get_ppo_ray_runtime_env()` called without the config in scope; pass `config`"
    ]


def test_a_copy_in_another_package_folder_makes_the_fix_unsafe(tmp_path: Path) -> None:
    """``lib/verl/`` (``lib/__init__.py``) is ``verl`` for a process running a file of ``lib/``
    as a script, and so for every module it imports: a stray copy for ``app/train.py``."""
    root = _write(tmp_path / "proj", {"lib/__init__.py": "", **_copy("lib/verl"), "app/train.py": ENTRY})
    assert _concise(root) == [
        "app/train.py:6:11: PPO001 `get_ppo_ray_runtime_env()` called without the config in scope; "
        "pass `config` (unsafe fix: `lib/verl/trainer/constants_ppo.py:4` defines "
        "`get_ppo_ray_runtime_env()` without a config parameter (pre verl PR #6976): `lib/verl/` is a "
        "package `verl` inside the package folder `lib/`, besides the verl that `pyproject.toml:4 "
        "verl>=0.9.0` names; a file of `lib/` run as a script puts `lib/` first on sys.path, and then "
        "`lib/verl/` is the verl of every module that process imports: passing the config raises "
        "TypeError; update or remove that copy, or run with --use-ppo-runtime)"
    ]


def test_a_fake_package_in_a_tests_package_stays_an_unsafe_fix(tmp_path: Path) -> None:
    """``tests/verl/`` beside ``tests/__init__.py`` is a fake: the doubles' rule (an unsafe fix
    naming it), never the notice a package folder's copy gives."""
    root = _write(tmp_path / "proj", {
        "tests/__init__.py": "", **_copy("tests/verl", "def get_ppo_ray_runtime_env():\n    return {}\n"),
        "tests/helper.py": ENTRY,
    })
    assert _concise(root) == [
        "tests/helper.py:6:11: PPO001 `get_ppo_ray_runtime_env()` called without the config in scope; "
        "pass `config` (unsafe fix: tests/verl/trainer/constants_ppo.py:1 defines a "
        "`get_ppo_ray_runtime_env` taking no config, which a test may put first on sys.path)"
    ]  # the doubles' table names it first since trial 26i (its reason, without the copies' remedy)
