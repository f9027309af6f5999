"""Fixtures for the analysis-core tests: real source corpora (stdlib, torch, verl wheels)
and the one basedpyright run of the oracle tests."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from pyright_oracle import Answer, run_cases

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


@pytest.fixture(scope="session")
def basedpyright_cases(tmp_path_factory) -> dict[str, Answer]:
    """Every case of ``pyright_oracle`` written and checked by one basedpyright run: name →
    ``Answer(state, flagged)`` (the tests marked ``xdist_group("basedpyright")``)."""
    return run_cases(tmp_path_factory.mktemp("basedpyright"))
