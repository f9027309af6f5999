"""``apply --thread-config --diff``: the multi-file rewrite made in a scratch copy, shown as one diff.

``--thread-config`` changes several files in steps that each read what the one
before wrote (the config passed at the calls, then parameters added and passed
through the callers). To preview it without touching the tree, the files of the
run are copied into a temporary directory -- at the same relative paths, under
the same chain of package directories, so that module names, display paths and
messages are the ones a real run prints -- and the real ``apply`` runs there with
that directory as the working directory. The result is the unified diff of every
file that changed, old bytes against new bytes, which ``git apply`` / ``patch -p1``
apply to the real tree.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from ppo_migrate.runner import unified_diff

T = TypeVar("T")


class NotPreviewable(ValueError):
    """A path the scratch copy cannot mirror (absolute, or outside the working directory)."""


def _package_chain(directory: Path) -> list[Path]:
    """``directory`` and its ancestors while each holds ``__init__.py``, innermost first."""
    chain: list[Path] = []
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        chain.append(directory)
        directory = directory.parent
    return chain


def run_in_copy(files: Sequence[str], job: Callable[[], T]) -> tuple[T, bytes]:
    """Copy ``files`` to a scratch directory, run ``job()`` there, return its result and the diff.

    Args:
        files: display paths relative to the working directory, as discovered.
        job: runs ``apply`` on ``files`` (relative paths: they name the copies while
            it runs); it may use worker processes, which inherit the directory.

    Returns:
        ``(job's result, diff)``: the diff (bytes) of every file whose bytes differ after
        the job, in path order, with ``a/``/``b/`` prefixes on the display paths.

    Raises:
        NotPreviewable: a path is absolute or climbs out of the working directory.
    """
    for f in files:
        if os.path.isabs(f) or os.path.normpath(f).split(os.sep)[0] == os.pardir:
            raise NotPreviewable(
                f"{f}: with --diff, --thread-config needs paths inside the working directory"
            )
    cwd = Path.cwd()
    scratch = Path(tempfile.mkdtemp(prefix="ppo-migrate-preview-"))
    try:
        work = scratch
        chain = _package_chain(cwd)
        for d in reversed(chain):  # outermost package first
            work = work / d.name
            work.mkdir()
            shutil.copyfile(d / "__init__.py", work / "__init__.py")
        if not chain:
            work = scratch / "work"
            work.mkdir()
        for f in files:
            target = work / f
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(cwd / f, target)
            parent = Path(f).parent
            while parent != Path("."):  # the packages between the working directory and f
                init = cwd / parent / "__init__.py"
                if init.is_file() and not (work / parent / "__init__.py").exists():
                    shutil.copyfile(init, work / parent / "__init__.py")
                parent = parent.parent
        os.chdir(work)
        try:
            result = job()
        finally:
            os.chdir(cwd)
        patch = b"".join(
            unified_diff(old, new, f)
            for f in sorted(files)
            if (old := (cwd / f).read_bytes()) != (new := (work / f).read_bytes())
        )
        return result, patch
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
