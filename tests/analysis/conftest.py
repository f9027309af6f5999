"""Fixtures for the analysis-core tests: real source corpora (stdlib, torch, verl wheels)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

VERL_VERSIONS = ("0.8.0", "0.9.1")


@pytest.fixture(scope="session")
def verl_sources(tmp_path_factory) -> dict[str, Path]:
    """verl 0.8.0 and 0.9.1 wheels (downloaded once into the shared wheel cache of
    ``tests/verl_wheels.py``), unpacked once per session: version → root."""
    from verl_wheels import wheel

    base = tmp_path_factory.mktemp("verl_wheels")
    roots = {}
    for version in VERL_VERSIONS:
        dest = base / version
        with zipfile.ZipFile(wheel(version)) as zf:
            zf.extractall(dest / "src")
        roots[version] = dest / "src"
    return roots
