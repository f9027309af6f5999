"""One function decides the project root (issue 26).

The root is the git top level (the nearest directory at or above the analysed paths
holding ``.git``, a directory or a worktree's file), else the nearest directory holding a
project marker (:data:`MARKERS`, or a file matching :data:`MARKER_PATTERNS`) above every
analysed path. :func:`search_root` is the root for one file's searches (copies of verl,
pins): the git top level, else the highest marked directory above it, so that a sub-folder
with its own ``requirements.txt`` or tools-only ``pyproject.toml`` does not end the search.
``.gitmodules`` is a marker: without ``.git``, a sub-folder's own pin does not end the search
below the root whose submodule holds the copy of verl in effect. Only names are listed and
tested; nothing is read or executed.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable
from pathlib import Path

#: Files that make a directory a project root.
MARKERS: tuple[str, ...] = (
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "uv.lock",
    "poetry.lock",
    "pdm.lock",
    "Pipfile",
    "pixi.toml",
    "tox.ini",
    "environment.yml",
    "environment.yaml",
    "Pipfile.lock",
    ".gitmodules",  # submodules: the root of the repository they belong to (issue 26)
)
#: Patterns of file names that make a directory a project root.
MARKER_PATTERNS: tuple[str, ...] = ("*requirements*.txt", "*requirements*.in")
_PATTERN = re.compile("|".join(fnmatch.translate(p) for p in MARKER_PATTERNS))


def _marks(directory: str) -> tuple[bool, bool]:
    """``(holds .git, holds a project marker)`` for ``directory``: one listing."""
    try:
        names = os.listdir(directory)
    except OSError:
        names = []
    git = ".git" in names
    marked = git or any(
        (n in MARKERS or _PATTERN.match(n)) and os.path.isfile(os.path.join(directory, n)) for n in names
    )
    return git, marked


def is_marked(directory: str | os.PathLike[str]) -> bool:
    """Whether ``directory`` holds ``.git`` or a project marker (:data:`MARKERS`,
    :data:`MARKER_PATTERNS`)."""
    return _marks(os.fspath(directory))[1]


def _ancestors(directory: str):
    while True:
        yield directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return
        directory = parent


def _directory(path: str | os.PathLike[str]) -> str:
    path = os.path.abspath(os.fspath(path))
    return path if os.path.isdir(path) else os.path.dirname(path)


def git_root(path: str | os.PathLike[str]) -> Path | None:
    """The git top level holding ``path`` (the nearest ancestor with ``.git``), or ``None``."""
    for directory in _ancestors(_directory(path)):
        if _marks(directory)[0]:
            return Path(directory)
    return None


def project_root(paths: Iterable[str | os.PathLike[str]]) -> Path | None:
    """The project root of a run on ``paths`` (files or directories).

    Args:
        paths: the analysed paths (relative to the working directory or absolute).

    Returns:
        The git top level of the paths' common directory, else the nearest directory at or
        above it holding a project marker; ``None`` when there is neither.
    """
    directories = [_directory(p) for p in paths] or [os.getcwd()]
    try:
        common = os.path.commonpath(directories)
    except ValueError:  # different drives (Windows)
        return None
    top = git_root(common)
    if top is not None:
        return top
    for directory in _ancestors(common):
        if _marks(directory)[1]:
            return Path(directory)
    return None


def search_root(path: str | os.PathLike[str], stop: str | os.PathLike[str] | None = None) -> Path | None:
    """Where a search around ``path`` ends: the git top level, else the highest directory at
    or above ``path`` holding a project marker (``stop``, when reached first, ends the walk
    and counts as marked); ``None`` when there is none."""
    last = os.path.abspath(os.fspath(stop)) if stop is not None else None
    highest: str | None = None
    for directory in _ancestors(_directory(path)):
        git, marked = _marks(directory)
        if git:
            return Path(directory)
        if marked or directory == last:
            highest = directory
        if directory == last:
            break
    return Path(highest) if highest is not None else None
