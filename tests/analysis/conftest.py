"""Fixtures for the analysis-core tests: real source corpora (stdlib, torch, verl wheels)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

VERL_VERSIONS = ("0.8.0", "0.9.1")


def python_files(root: Path) -> list[Path]:
    """Every ``.py`` file under ``root``, sorted by path (deterministic samples)."""
    return sorted(p for p in root.rglob("*.py") if p.is_file())


def stdlib_files() -> list[Path]:
    """The standard library's own ``.py`` files (``site-packages`` excluded)."""
    root = Path(sysconfig.get_paths()["stdlib"])
    return [p for p in python_files(root) if "site-packages" not in p.parts]


def torch_files() -> list[Path]:
    """torch's ``.py`` files (the installed CPU wheel), or [] when torch is not installed."""
    spec = importlib.util.find_spec("torch")  # located, not imported (torch is slow to import)
    if spec is None or not spec.submodule_search_locations:  # pragma: no cover - a test extra
        return []
    return python_files(Path(next(iter(spec.submodule_search_locations))))


@pytest.fixture(scope="session")
def verl_sources(tmp_path_factory) -> dict[str, Path]:
    """verl 0.8.0 and 0.9.1 wheels, downloaded once per session and unpacked: version → root."""
    base = tmp_path_factory.mktemp("verl_wheels")
    roots = {}
    for version in VERL_VERSIONS:
        dest = base / version
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(dest / "dl"),
             f"verl=={version}"],
            capture_output=True, text=True, timeout=600,
        )
        if proc.returncode != 0:
            pytest.fail(f"could not download verl=={version}: {proc.stderr.strip()[-300:]}")
        (wheel,) = (dest / "dl").glob(f"verl-{version}-*.whl")
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(dest / "src")
        roots[version] = dest / "src"
    return roots
