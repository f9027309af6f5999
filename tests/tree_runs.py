"""Shared helper: run a sample project's own command (its tests, its launcher) once per
content of its tree.

Many tests run a sample project before ``apply``, after it, after ``apply --thread-config``
..., asserting each time that the project still runs; where ``apply`` left every file as it
was (what those tests assert it must, for the call they are about), the run after it is the
run before it: same files, same place, same command, same environment. :func:`run_per_tree`
starts the process only when that tuple has not been run yet in this test process, and
gives back the finished process otherwise (issue 28: these runs were a tenth of the suite).

A tree's content is every file under it, byte for byte, by relative path, ``__pycache__``
aside (bytecode the runs themselves write; Python checks it against its source). The key
holds the tree's own path too, so a run is never taken for another tree's: what counts is
that this tree did not change between two runs.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import warm_python

_RUNS: dict[tuple, subprocess.CompletedProcess] = {}


def tree_digest(root: Path) -> str:
    """A digest of every file under ``root`` (relative path and bytes), ``__pycache__`` aside."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if "__pycache__" not in p.parts):
        if path.is_symlink():
            digest.update(b"L" + str(path.relative_to(root)).encode() + b"\0"
                          + os.readlink(path).encode() + b"\0")
        elif path.is_file():
            digest.update(b"F" + str(path.relative_to(root)).encode() + b"\0"
                          + path.read_bytes() + b"\0")
        elif path.is_dir():
            digest.update(b"D" + str(path.relative_to(root)).encode() + b"\0")
    return digest.hexdigest()


def run_per_tree(
    cmd: list[str],
    root: Path,
    *,
    env: dict[str, str],
    cwd: Path | None = None,
    timeout: float = 120,
    reads: tuple[Path, ...] = (),
) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd, cwd=cwd or root, env=env, capture_output=True, text=True)``,
    run once per (content of ``root``, ``root``, ``cmd``, ``cwd``, ``env``, and the content
    of each folder of ``reads``: what the run reads outside ``root``, a stub's folder on
    its ``PYTHONPATH``)."""
    where = Path(cwd or root)
    key = (tree_digest(root), str(root), tuple(cmd), str(where), tuple(sorted(env.items())),
           tuple((str(p), Path(p).exists(), tree_digest(Path(p))) for p in reads))
    if key not in _RUNS:
        _RUNS[key] = warm_python.run(
            cmd, cwd=where, env=env, capture_output=True, text=True, timeout=timeout
        )
    return _RUNS[key]


def run_python_per_tree(code: str, cwd: Path, *paths: Path) -> subprocess.CompletedProcess:
    """:func:`cli_helpers.run_python` (``python -c code`` in ``cwd``, only ``paths`` on
    ``PYTHONPATH``), run once per content of ``cwd`` and of each of ``paths``."""
    import sys

    env = {"PYTHONPATH": os.pathsep.join(map(str, paths)), "PATH": "/usr/bin:/bin"}
    return run_per_tree([sys.executable, "-c", code], cwd, env=env, reads=tuple(paths))
