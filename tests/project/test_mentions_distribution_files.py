"""Trial 26d (d1_wheelhouse_glob_extract): a project keeps verl 0.8.0's wheel in the
repository (``wheelhouse/verl-0.8.0-py3-none-any.whl``); its trainer extracts the wheel found
by ``glob`` and puts it first on ``sys.path``, while ``pyproject.toml`` says ``verl>=0.9.0``.
The wheel's name is a mention of that release
(:func:`ppo_migrate.project.mentions.distribution_files`): the fix is unsafe and names it, and
a plain ``apply`` leaves the launcher running. Executed before and after."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from cli_helpers import LAUNCHER, VERL_08, VERL_09, launcher_ran, only_finding, run_cli, verl_stub, write_tree
from ppo_migrate.project.mentions import distribution_files
from ppo_migrate.project.snapshot import run_scope

#: the shared launcher, run after putting the repository's wheel, extracted, first on the path
WHEEL_FIRST = (
    "import glob, os, sys, tempfile, zipfile\n"
    "HERE = os.path.dirname(os.path.abspath(__file__))\n"
    "WHEEL = sorted(glob.glob(os.path.join(HERE, 'wheelhouse', 'verl-*.whl')))[-1]\n"
    "CACHE = tempfile.mkdtemp()  # outside the repository: only the wheel's name shows it\n"
    "zipfile.ZipFile(WHEEL).extractall(CACHE)\n"
    "sys.path.insert(0, CACHE)\n"
)
CALL_LINE = WHEEL_FIRST.count("\n") + 6  # the shared launcher's call is its line 6


def _wheel(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr("verl/__init__.py", "")
        wheel.writestr("verl/trainer/__init__.py", "")
        wheel.writestr("verl/trainer/constants_ppo.py", body)


def test_a_wheel_kept_in_the_repository_makes_the_fix_unsafe_and_the_launcher_keeps_running(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "project", {
        "train.py": WHEEL_FIRST + LAUNCHER,
        "pyproject.toml": '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n',
    })
    _wheel(root / "wheelhouse" / "verl-0.8.0-py3-none-any.whl", VERL_08)
    site = verl_stub(tmp_path / "site", VERL_09)  # what pyproject.toml installs: never imported
    assert launcher_ran(root, site) == "ran None"
    found = only_finding(root)
    assert (found["code"], found["location"]["row"], found["fix"]["applicability"]) == ("PPO001", CALL_LINE, "unsafe")
    # read inside (fresh user 43, B3): the definition the archive carries names it
    assert (
        "`wheelhouse/verl-0.8.0-py3-none-any.whl/verl/trainer/constants_ppo.py:1` defines "
        "`get_ppo_ray_runtime_env()` without a config parameter" in found["message"]
    )
    assert "`wheelhouse/verl-0.8.0-py3-none-any.whl` carries its own verl module" in found["message"]
    before = (root / "train.py").read_text()
    assert run_cli("apply", ".", cwd=root).returncode == 1  # the finding remains
    assert (root / "train.py").read_text() == before
    assert launcher_ran(root, site) == "ran None"


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("verl-0.8.0-py3-none-any.whl", True),
        ("verl-0.8.0.tar.gz", True),
        ("VERL-0.7.1.zip", True),
        ("verl-recipe-0.1.0.tar.gz", False),  # another project
        ("myverl-0.8.0.tar.gz", False),
        ("verl-0.8.0.txt", False),
    ],
)
def test_which_names_are_distribution_files_of_verl(tmp_path: Path, name: str, found: bool) -> None:
    root = write_tree(tmp_path / "repo", {f"wheelhouse/{name}": "x"})
    with run_scope():
        paths = distribution_files(root)
    assert paths == ([str(root / "wheelhouse" / name)] if found else [])
