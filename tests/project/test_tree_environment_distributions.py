"""Trial 26d (WRONG): the repository's ``.venv`` holds an editable verl 0.8.0 (what ``uv pip
install -e work/src/upstream/verl`` leaves: a ``verl-0.8.0.dist-info``, an ``__editable__``
``.pth`` and a PEP 660 finder, no ``verl/`` folder), and nothing else says which verl runs.
``check`` said "nothing says which verl runs (..., no installed verl)". The environment's
metadata now decides (:func:`ppo_migrate.project.tree.environment_distributions`): PPO005
naming it, and the launcher, run with that environment's verl, keeps running."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import LAUNCHER, VERL_08, VERL_09, launcher_ran, only_finding, run_cli, verl_stub, write_tree
from ppo_migrate.project.snapshot import run_scope
from ppo_migrate.project.tree import environment_distributions, repository_listing

SITE = ".venv/lib/python3.11/site-packages"


def _environment(root: Path, version: str, marker: str = "pyvenv.cfg") -> None:
    (root / ".venv").mkdir(parents=True, exist_ok=True)
    if marker == "conda-meta":
        (root / ".venv" / "conda-meta").mkdir()
    else:
        (root / ".venv" / marker).write_text("home = /usr/bin\nversion = 3.11.7\n")
    info = root / SITE / f"verl-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: verl\nVersion: {version}\n\nVersion: 9.9.9\n")
    (root / SITE / f"__editable__.verl-{version}.pth").write_text("import __editable___verl_finder\n")


@pytest.mark.parametrize(("body", "version", "code"), [(VERL_08, "0.8.0", "PPO005"), (VERL_09, "0.9.1", "PPO001")])
def test_the_repository_s_environment_decides_when_nothing_else_does(
    tmp_path: Path, body: str, version: str, code: str
) -> None:
    root = write_tree(tmp_path / "project", {"train.py": LAUNCHER, ".gitignore": "/.venv/\n"})
    _environment(root, version)
    editable = verl_stub(tmp_path / "upstream", body)  # where the editable finder points
    assert launcher_ran(root, editable) == "ran None"
    found = only_finding(root)
    assert found["code"] == code
    if code == "PPO005":
        assert found["fix"] is None
        assert f"the project runs verl {version} (`verl {version} (installed in .venv)`)" in found["message"]
        assert run_cli("apply", "--exit-zero", ".", cwd=root).returncode == 0
        assert (root / "train.py").read_text() == LAUNCHER
        assert launcher_ran(root, editable) == "ran None"
    else:  # the environment's verl takes a config: the fix is safe, and the rewritten call runs
        assert found["fix"]["applicability"] == "safe"
        assert run_cli("apply", ".", cwd=root).returncode == 0
        assert launcher_ran(root, editable) == "ran {'trainer': 2}"


@pytest.mark.parametrize("marker", ["pyvenv.cfg", "conda-meta"])
def test_the_metadata_s_first_version_header_is_read(tmp_path: Path, marker: str) -> None:
    root = write_tree(tmp_path / "repo", {})
    _environment(root, "0.7.1", marker)
    (root / SITE / "verl_tools-1.0.dist-info").mkdir()  # another project: not verl's
    with run_scope():
        found = environment_distributions(repository_listing(root), "verl")
    assert [(d.version, d.metadata, d.environment) for d in found] == [
        ("0.7.1", str(root / SITE / "verl-0.7.1.dist-info" / "METADATA"), str(root / ".venv"))
    ]


def test_a_folder_without_an_environment_marker_is_no_environment(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "repo", {})
    _environment(root, "0.8.0")
    (root / ".venv" / "pyvenv.cfg").unlink()
    with run_scope():
        assert environment_distributions(repository_listing(root), "verl") == []
