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

The copy holds the files of the run only (and the ``__init__.py`` files that make
their packages), not the project around them: ``pyproject.toml``, requirements and
lock files, an in-tree copy of verl, ruff's settings. Whatever reads the project
around a file therefore asks :func:`ppo_migrate.scratch.original_path` (and :func:`ppo_migrate.scratch.original_cwd`) for
the real tree's path, so that the preview decides exactly as the real run does.
While the job runs, the mapping is kept in the environment (:data:`PREVIEW_ENV`),
which the run's worker processes inherit however they are started.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from ppo_migrate.scratch import PREVIEW_ENV

T = TypeVar("T")

class NotPreviewable(ValueError):
    """A path the scratch copy cannot mirror (outside the working directory)."""


def _inside(f: str, cwd: Path) -> Path:
    """``f`` relative to ``cwd``; :class:`NotPreviewable` when it is not inside it.

    A relative path must not climb out; an absolute one is taken as written when it is
    below ``cwd`` (and names the same file there), else with its directory's symlinks
    resolved (``$PWD/pkg`` from a shell whose working directory is reached through a
    symlink).
    """
    if not os.path.isabs(f):
        rel = Path(os.path.normpath(f))
        if rel.parts and rel.parts[0] == os.pardir:
            raise NotPreviewable(
                f"{f}: with --diff, --thread-config needs paths inside the working directory"
            )
        return rel
    absolute = Path(os.path.normpath(f))
    for base, candidate in (
        (cwd, absolute),
        (cwd.resolve(), absolute.parent.resolve() / absolute.name),
    ):
        try:
            rel = candidate.relative_to(base)
        except ValueError:
            continue
        try:
            same = os.path.samefile(cwd / rel, f)
        except OSError:
            same = False
        if rel.parts and same:
            return rel
    raise NotPreviewable(
        f"{f}: with --diff, --thread-config needs paths inside the working directory"
    )


def _package_chain(directory: Path) -> list[Path]:
    """``directory`` and its ancestors while each holds ``__init__.py``, innermost first."""
    chain: list[Path] = []
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        chain.append(directory)
        directory = directory.parent
    return chain


def run_in_copy(files: Sequence[str], job: Callable[[list[str]], T]) -> tuple[T, bytes]:
    """Copy ``files`` to a scratch directory, run ``job(copies)`` there, return its result and the diff.

    Args:
        files: display paths as discovered: relative to the working directory, or
            absolute paths inside it.
        job: runs ``apply`` on ``copies``, the paths of ``files`` relative to the
            working directory (they name the copies while it runs, in the order of
            ``files``); it may use worker processes, which inherit the directory
            and :data:`PREVIEW_ENV`.

    Returns:
        ``(job's result, diff)``: the diff (bytes) of every file whose bytes differ after
        the job, in path order, with ``a/``/``b/`` prefixes on the display paths as
        given in ``files`` (what ``apply --diff`` prints for them).

    Raises:
        NotPreviewable: a path lies outside the working directory.
    """
    from ppo_migrate.edits.unified_diff import unified_diff
    from ppo_migrate.project.snapshot import current

    snapshot = current()  # the run's: each file read once, for the copy and for the diff

    def copy(source: Path, target: Path) -> None:
        try:
            data = snapshot.read_bytes(source, keep=True)  # kept: the diff needs it at the end
        except OSError:
            shutil.copyfile(source, target)  # what it says of a file it cannot read
            return
        target.write_bytes(data)

    cwd = Path.cwd()
    relative = {f: str(_inside(f, cwd)) for f in files}
    copies = list(dict.fromkeys(relative.values()))
    scratch = Path(tempfile.mkdtemp(prefix="ppo-migrate-preview-"))
    try:
        work = scratch
        chain = _package_chain(cwd)
        for d in reversed(chain):  # outermost package first
            work = work / d.name
            work.mkdir()
            copy(d / "__init__.py", work / "__init__.py")
        if not chain:
            work = scratch / "work"
            work.mkdir()
        for f in copies:
            target = work / f
            target.parent.mkdir(parents=True, exist_ok=True)
            copy(cwd / f, target)
            parent = Path(f).parent
            while parent != Path("."):  # the packages between the working directory and f
                init = cwd / parent / "__init__.py"
                if init.is_file() and not (work / parent / "__init__.py").exists():
                    copy(init, work / parent / "__init__.py")
                parent = parent.parent
        before = os.environ.get(PREVIEW_ENV)
        os.chdir(work)
        os.environ[PREVIEW_ENV] = json.dumps([os.getcwd(), str(cwd)])
        try:
            result = job(copies)
        finally:
            os.chdir(cwd)
            if before is None:
                os.environ.pop(PREVIEW_ENV, None)
            else:
                os.environ[PREVIEW_ENV] = before
        patches: dict[str, bytes] = {}  # one diff per copy, under the first spelling in order
        for f in sorted(files):
            rel = relative[f]
            old, new = snapshot.read_bytes(cwd / rel), snapshot.read_bytes(work / rel)
            if rel not in patches and old != new:
                patches[rel] = unified_diff(old, new, f)
        patch = b"".join(patches.values())
        return result, patch
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
