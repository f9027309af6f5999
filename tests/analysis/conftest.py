"""Fixtures for the analysis-core tests: real source corpora (stdlib, torch, verl wheels)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

VERL_VERSIONS = ("0.8.0", "0.9.1")


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
