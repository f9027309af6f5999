"""The built wheel installs into a fresh virtual environment and its console script runs."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

#: one worker runs these (pytest-xdist): the wheel is built once
pytestmark = pytest.mark.xdist_group("packaging")

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(REPO)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    (built,) = out.glob("ppo_migrate-*.whl")
    return built


def test_wheel_ships_the_two_import_packages_only(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"ppo_runtime", "ppo_migrate"}
    assert "ppo_runtime/py.typed" in names and "ppo_migrate/py.typed" in names
    assert "ppo_migrate/output/sarif_format.py" in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "ppo-migrate = ppo_migrate.cli.entry:main" in text


@pytest.mark.slow
def test_wheel_installs_in_a_fresh_venv_and_runs(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    # system site packages provide the dependencies (libcst, click, ...) without a download;
    # this interpreter's pip installs into it (`pip --python`): the venv's own copy of pip,
    # unpacked by ensurepip, was 6 s of CPU and is no part of what is tested
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)],
                   check=True, timeout=300)
    py = venv / "bin" / "python"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", "--force-reinstall",
         str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    help_out = subprocess.run([str(venv / "bin" / "ppo-migrate"), "--help"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert help_out.returncode == 0, help_out.stderr
    assert "Migrate configless get_ppo_ray_runtime_env() calls" in help_out.stdout
    where = subprocess.run(
        [str(py), "-c", "import ppo_migrate, ppo_runtime; print(ppo_migrate.__file__); print(ppo_runtime.__file__)"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    files = where.stdout.split()
    assert all(str(venv) in f for f in files), files
    module = subprocess.run([str(py), "-m", "ppo_migrate", "rule", "PPO001"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert module.returncode == 0 and "configless-call-with-config" in module.stdout


def test_the_wheel_carries_the_apache_license_pyproject_declares(wheel: Path) -> None:
    """pyproject.toml declares Apache-2.0: the repository and the wheel hold its full text."""
    import tomllib

    declared = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert declared["project"]["license"] == {"text": "Apache-2.0"}
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License\n                           Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text and len(text.splitlines()) == 202
    zf = zipfile.ZipFile(wheel)
    shipped = [n for n in zf.namelist() if ".dist-info/" in n and n.rsplit("/", 1)[-1] == "LICENSE"]
    assert shipped and zf.read(shipped[0]).decode() == text
