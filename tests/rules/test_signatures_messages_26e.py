"""Trial 26e, WRONG messages (the outcome was safe, the text false):

* W1: an in-tree ``verl/`` whose ``trainer/constants_ppo.py`` takes a config but that has no
  ``trainer/main_ppo.py``; a call through ``from verl.trainer.main_ppo import ...`` was told
  "no in-tree copy". It now says what the copy lacks. (That project cannot run: the in-tree
  package hides any installed verl and has no ``main_ppo``; nothing is rewritten either.)
* W4: a namespace ``verl/`` (no ``__init__.py``) beside ``train.py`` was a copy "if anything
  puts it on sys.path"; ``python train.py`` does, and without a regular verl installed it is
  the one imported. The project is run before and after ``apply`` (and ``--thread-config``).
* W3: an unquoted ``pip install verl>=0.9.0`` in ``setup.sh`` was called a ``>=0.9.0`` pin;
  the shell reads ``>`` as a redirect (it installs any verl and writes a file ``=0.9.0``).
  The outcome (an unsafe fix) stays; the reason says it installs an unpinned verl.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import warm_python
from cli_helpers import run_cli


def _write(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _concise(root: Path) -> str:
    proc = run_cli("check", "--output-format", "concise", "--unsafe-fixes", ".", cwd=root)
    return proc.stdout.splitlines()[0]


def test_an_in_tree_copy_without_the_module_is_named(tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {
        "verl/__init__.py": "",
        "verl/trainer/__init__.py": "",
        "verl/trainer/constants_ppo.py": "def get_ppo_ray_runtime_env(config=None):\n    return {}\n",
        "train.py": (
            "from verl.trainer.main_ppo import get_ppo_ray_runtime_env\n\n\n"
            "def main(config):\n    return get_ppo_ray_runtime_env()\n"
        ),
    })
    assert _concise(root) == (
        "train.py:5:12: PPO001 [*] `get_ppo_ray_runtime_env()` called without the config in scope; "
        "pass `config` (unsafe fix: nothing says which verl runs (the in-tree copy `verl/` has no "
        "`verl/trainer/main_ppo.py`, no verl pin in a file ppo-migrate reads, no verl-version, no "
        "installed verl), so the config may not be accepted; declare the verl the project runs (e.g. "
        "`verl>=0.9` in requirements.txt or pyproject.toml), or pass --verl-version)"
    )
    before = (root / "train.py").read_text()
    assert run_cli("apply", ".", cwd=root).returncode == 1
    assert (root / "train.py").read_text() == before


NAMESPACE = {
    "pyproject.toml": '[project]\nname = "proj"\nversion = "0.1.0"\ndependencies = ["verl>=0.9.0"]\n',
    "verl/trainer/constants_ppo.py": "def get_ppo_ray_runtime_env():\n    return {'old': 1}\n",
    "train.py": (
        "from omegaconf import OmegaConf\n"
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
        "def main(config):\n    return get_ppo_ray_runtime_env()\n\n\n"
        "if __name__ == '__main__':\n    print('ran', main(OmegaConf.create({'trainer': 1})))\n"
    ),
}


def _ran(root: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    proc = warm_python.run([sys.executable, "train.py"], cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("thread", [False, True], ids=["apply", "apply-thread-config"])
def test_a_namespace_copy_beside_the_script_is_said_to_be_imported(tmp_path: Path, thread: bool) -> None:
    root = _write(tmp_path / "proj", NAMESPACE)
    assert _ran(root) == "ran {'old': 1}"  # no regular verl installed here: the copy runs
    assert _concise(root) == (
        "train.py:6:12: PPO001 [*] `get_ppo_ray_runtime_env()` called without the config in scope; "
        "pass `config` (unsafe fix: `verl/trainer/constants_ppo.py:1` defines "
        "`get_ppo_ray_runtime_env()` without a config parameter (pre verl PR #6976): `verl/` (no "
        "`__init__.py`: a namespace package) is in the calling file's folder, which `python <file>` "
        "puts first on sys.path: where no regular verl is installed it is the verl imported and "
        "passing the config raises TypeError (where the verl that `pyproject.toml:4 verl>=0.9.0` "
        "names is installed, that one wins); update or remove that copy, or run with --use-ppo-runtime)"
    )
    before = (root / "train.py").read_text()
    options = ("--thread-config",) if thread else ()
    assert run_cli("apply", *options, ".", cwd=root).returncode == 1
    assert (root / "train.py").read_text() == before
    assert _ran(root) == "ran {'old': 1}"


TRAIN = (
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def main(config):\n    return get_ppo_ray_runtime_env()\n"
)
UNSAFE_HEAD = (
    "train.py:5:12: PPO001 [*] `get_ppo_ray_runtime_env()` called without the config in scope; "
    "pass `config` (unsafe fix: nothing the project declares says which verl runs (no in-tree copy, "
    "verl pin of the project, verl-version or installed verl; "
)
UNSAFE_TAIL = (
    "), so the config may not be accepted; declare the verl the project runs (e.g. `verl>=0.9` in "
    "requirements.txt or pyproject.toml), or pass --verl-version)"
)


def test_an_unquoted_shell_pin_is_said_to_redirect(tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {"setup.sh": "#!/bin/sh\npip install verl>=0.9.0\n", "train.py": TRAIN})
    line = _concise(root)
    assert line == UNSAFE_HEAD + (
        "`setup.sh:2` installs an unpinned verl (the unquoted `>` of `verl>=0.9.0` redirects the "
        "output to a file named `=0.9.0`)"
    ) + UNSAFE_TAIL
    assert "is an environment's pin" not in line
    before = (root / "train.py").read_text()
    assert run_cli("apply", ".", cwd=root).returncode == 1  # unsafe: not made without the flag
    assert (root / "train.py").read_text() == before


@pytest.mark.parametrize("word", ['"verl>=0.9.0"', "'verl>=0.9.0'", "verl\\>=0.9.0"])
def test_a_quoted_shell_pin_is_still_a_pin(tmp_path: Path, word: str) -> None:
    root = _write(tmp_path / "proj", {"setup.sh": f"#!/bin/sh\npip install {word}\n", "train.py": TRAIN})
    assert _concise(root) == UNSAFE_HEAD + (
        "`setup.sh:2 verl>=0.9.0` is an environment's pin, which may only lower the release"
    ) + UNSAFE_TAIL


@pytest.mark.parametrize(
    ("body", "word", "target"),
    [
        (" verl>=0.9.0\n", "verl>=0.9.0", "=0.9.0"),
        (" ray verl>=0.9.0 torch\n", "verl>=0.9.0", "=0.9.0"),
        (" verl>>=0.9\n", "verl>>=0.9", "=0.9"),  # appends to the same file
        (" verl>=0.9.0,<1\n", "verl>=0.9.0,<1", "=0.9.0,"),  # ``<1``: input from a file
        (' "verl>=0.9.0"\n', "verl>=0.9.0", None),  # quoted: a pin
        (" 'verl>=0.9.0'\n", "verl>=0.9.0", None),
        (" verl==0.9.0\n", "verl==0.9.0", None),  # no ``>``
    ],
)
def test_the_file_an_unquoted_redirect_writes(body: str, word: str, target: str | None) -> None:
    from ppo_migrate.rules.install_pins import _redirect

    assert _redirect(body, word) == target
