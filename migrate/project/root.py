"""One function decides the project root (issue 26): :func:`project_root`. The other
answers a run needs about where things end are functions of that root, or of git's layout,
each named for the question it answers, and made nowhere else.

* :func:`project_root`: the git top level (the nearest directory at or above the analysed
  paths holding ``.git``, a directory or a worktree's file), else the nearest directory
  above every analysed path holding a project marker (:data:`PROJECT_MARKERS`: a Python
  project's packaging files, ``.gitmodules``). The caller phase walks it for files that
  may override a method it would thread.
  A run decides it once, from its paths (``Snapshot.root``,
  :mod:`ppo_migrate.project.snapshot`); every other place asks the snapshot.
* :func:`search_bound`: where one file's searches for copies of verl and test doubles end,
  a function of that root: the nearest git top level between the file and the root (a
  submodule), else the root; only without a root the highest directory above the file
  holding a dependency file (:func:`is_marked`), so that a sub-folder with its own
  ``requirements.txt`` or tools-only ``pyproject.toml`` does not end the search.
* :func:`git_root`: the git work tree alone (SARIF and GitHub paths are relative to it).
* :func:`display_root`: the folder paths are shown relative to, as ruff shows them.

Every other module that needs git's layout asks the small helpers here, so the spelling of
``.git`` and the rule for a worktree's or submodule's ``.git`` file live in one place:
:func:`is_git_top` (does a directory start a work tree), :func:`lists_git` (the same, from a
listing a walk already made), :func:`git_top` and :func:`up_to_git_top` (the walk up to it),
:func:`git_dir` / :func:`git_common_dir` (where the repository's own files are: ``info/exclude``).

``.gitmodules`` is a project marker too: without ``.git``, a sub-folder's own pin does not
end the search below the root whose submodule holds the copy of verl in effect.
Only names are listed and tested, except a ``pyproject.toml`` on the walk up of
:func:`project_root`, read for its tables; nothing is executed.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from ppo_migrate.files import decode_text
from ppo_migrate.patterns import lazy_pattern

#: The entry that makes a directory the top of a git work tree: a directory, or a file
#: ``gitdir: <path>`` for a worktree or a submodule (git's ``gitrepository-layout``). The
#: only spelling of it in the package (``tests/project/test_root.py`` guards that).
GIT_ENTRY = ".git"

#: Files that make a directory a project's root when no git work tree holds it (the design
#: note's rule: a requirements file or a lock alone marks a folder of dependencies, not a
#: project; a test tree's ``requirements.txt`` beside other trees does not join them).
PROJECT_MARKERS: tuple[str, ...] = ("pyproject.toml", "setup.py", "setup.cfg", ".gitmodules")
#: Files that make a directory one whose dependency files may declare verl.
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
#: Patterns of file names that make a directory one of dependency files; so does a
#: ``requirements/`` folder holding files of these suffixes (``-r requirements/base.txt``).
MARKER_PATTERNS: tuple[str, ...] = ("*requirements*.txt", "*requirements*.in")
_PATTERN = re.compile("|".join(fnmatch.translate(p) for p in MARKER_PATTERNS))
_REQUIREMENTS_FOLDER = "requirements"
_REQUIREMENTS_SUFFIXES = (".txt", ".in")


def _marks(directory: str) -> tuple[bool, bool]:
    """``(holds .git, holds .git or a dependency marker)`` for ``directory``: one listing."""
    try:
        names = os.listdir(directory)
    except OSError:
        names = []
    git = GIT_ENTRY in names
    marked = git or any(
        (n in MARKERS or _PATTERN.match(n)) and os.path.isfile(os.path.join(directory, n)) for n in names
    )
    if not marked and _REQUIREMENTS_FOLDER in names:
        marked = _holds_requirement_files(os.path.join(directory, _REQUIREMENTS_FOLDER))
    return git, marked


def _holds_requirement_files(folder: str) -> bool:
    try:
        with os.scandir(folder) as entries:
            return any(e.name.endswith(_REQUIREMENTS_SUFFIXES) and e.is_file() for e in entries)
    except OSError:
        return False


def is_marked(directory: str | os.PathLike[str]) -> bool:
    """Whether ``directory``'s own files may declare verl: it holds ``.git``, a dependency
    file (:data:`MARKERS`, :data:`MARKER_PATTERNS`) or a ``requirements/`` folder of
    requirement files."""
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


def is_git_top(directory: str | os.PathLike[str]) -> bool:
    """Whether ``directory`` is the top of a git work tree: it holds :data:`GIT_ENTRY`, a
    directory or a worktree's or submodule's ``gitdir:`` file (even a dangling link counts,
    as in a listing).

    Args:
        directory: a directory path, absolute or relative to the working directory.

    Returns:
        ``True`` when the entry exists; ``False`` otherwise or when it cannot be looked at.
    """
    return os.path.lexists(os.path.join(os.fspath(directory), GIT_ENTRY))


def lists_git(names: Iterable[str]) -> bool:
    """:func:`is_git_top` from a listing the caller already made (a walk's ``os.scandir``):
    whether ``names``, a directory's entry names, hold :data:`GIT_ENTRY`.

    Args:
        names: entry names of one directory (a set is fastest).
    """
    return GIT_ENTRY in names


def up_to_git_top(
    start: str | os.PathLike[str], stop: str | os.PathLike[str] | None = None
) -> Iterator[str]:
    """The directories a walk up from ``start`` visits, nearest first: ``start`` itself, then
    each parent, ending with the first that is a git top level (:func:`is_git_top`), ``stop``
    (when reached), or the filesystem root. Each is yielded before the test, so a caller looks
    in the top level too (pytest's ini files, a pin beside ``.git``).

    Args:
        start: a directory; made absolute, not resolved (symlinks stay as written).
        stop: the last directory to visit; one that is not an ancestor of ``start`` never
            ends the walk.

    Yields:
        Absolute directory paths as strings.
    """
    last = os.path.abspath(os.fspath(stop)) if stop is not None else None
    for directory in _ancestors(os.path.abspath(os.fspath(start))):
        yield directory
        if directory == last or is_git_top(directory):
            return


def git_top(directory: str | os.PathLike[str]) -> str | None:
    """The git top level at or above ``directory`` (the nearest one holding
    :data:`GIT_ENTRY`), as an absolute string; ``None`` outside any work tree.

    Args:
        directory: a directory (absolute, or relative to the working directory).
    """
    for here in _ancestors(os.path.abspath(os.fspath(directory))):
        if is_git_top(here):
            return here
    return None


def git_root(path: str | os.PathLike[str]) -> Path | None:
    """The git top level holding ``path`` (a file: its folder; :func:`git_top`), or ``None``."""
    top = git_top(_directory(path))
    return Path(top) if top is not None else None


def git_dir(repo: str | os.PathLike[str]) -> str | None:
    """The git directory of the work tree whose top is ``repo``: ``repo/.git`` when that is a
    directory, else the path a worktree's or submodule's ``.git`` file names on its first
    line ``gitdir: <path>`` (relative to ``repo`` when not absolute, as git reads it).

    Args:
        repo: a git top level (:func:`git_top`).

    Returns:
        The directory path (not checked to exist); ``None`` when ``repo`` has no ``.git``,
        or its ``.git`` file cannot be read or does not start with ``gitdir:``.
    """
    dotgit = os.path.join(os.fspath(repo), GIT_ENTRY)
    if os.path.isdir(dotgit):
        return dotgit
    try:
        with open(dotgit, encoding="utf-8", errors="replace") as handle:
            line = handle.readline().strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    return os.path.join(os.fspath(repo), line[len("gitdir:") :].strip())


def git_common_dir(repo: str | os.PathLike[str]) -> str | None:
    """The directory holding the files a repository's worktrees share (``info/exclude``,
    ``config``): :func:`git_dir`, followed through its ``commondir`` file when it has one
    (a linked worktree: ``commondir`` names the main ``.git``, relative to the git dir).

    Args:
        repo: a git top level.

    Returns:
        The directory path; ``None`` as :func:`git_dir`.
    """
    gitdir = git_dir(repo)
    if gitdir is None:
        return None
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as handle:
            return os.path.join(gitdir, handle.read().strip())
    except OSError:
        return gitdir


def project_root(paths: Iterable[str | os.PathLike[str]]) -> Path | None:
    """The project root of a run on ``paths`` (files or directories).

    Args:
        paths: the analysed paths (relative to the working directory or absolute).

    Returns:
        The git top level of the paths' common directory, else the nearest directory at or
        above it holding a project marker (:data:`PROJECT_MARKERS`; a ``pyproject.toml``
        counts when it declares a project or a build, :func:`_declares_project`), else the
        highest one holding a tools-only ``pyproject.toml`` (a sub-folder's ``[tool.ruff]``
        never ends the search: the design note's rule); ``None`` when there is none of these.
    """
    directories = [_directory(p) for p in paths] or [os.getcwd()]
    try:
        common = os.path.commonpath(directories)
    except ValueError:  # different drives (Windows)
        return None
    top = git_root(common)
    if top is not None:
        return top
    tools_only: str | None = None
    for directory in _ancestors(common):
        for marker in PROJECT_MARKERS:
            path = os.path.join(directory, marker)
            if not os.path.isfile(path):
                continue
            if marker != "pyproject.toml" or _declares_project(path):
                return Path(directory)
            tools_only = directory
    return Path(tools_only) if tools_only is not None else None


#: A ``pyproject.toml`` table that makes its folder a project (PEP 621, PEP 518, Poetry).
_PROJECT_TABLE = lazy_pattern(r"^\s*\[(project|tool\.poetry|build-system)\]", re.MULTILINE)


def _declares_project(pyproject: str) -> bool:
    """Whether the ``pyproject.toml`` at ``pyproject`` has a ``[project]``,
    ``[build-system]`` or ``[tool.poetry]`` table (the rule of
    ``signatures._package_project``); one that cannot be read counts as declaring one
    (the nearer root, as before the rule). Decoded by its byte-order mark when it has one
    (:func:`ppo_migrate.files.decode_text`, trial 26d)."""
    try:
        with open(pyproject, "rb") as handle:
            text = decode_text(handle.read(), "replace")
    except OSError:
        return True
    return _PROJECT_TABLE.search(text) is not None


#: pytest's configuration files, each with the table or section that makes it pytest's
#: (pytest's documentation, "Initialization: determining rootdir and configfile"; a
#: ``pytest.ini`` is one even empty, a ``pyproject.toml`` or ``tox.ini`` only with its table)
_PYTEST_CONFIGS: tuple[tuple[str, re.Pattern[str] | None], ...] = (
    ("pytest.ini", None),
    (".pytest.ini", None),
    ("pytest.toml", None),
    (".pytest.toml", None),
    ("pyproject.toml", re.compile(r"(?m)^\s*\[tool\.pytest(\.ini_options)?\]")),
    ("tox.ini", re.compile(r"(?m)^\s*\[pytest\]")),
    ("setup.cfg", re.compile(r"(?m)^\s*\[tool:pytest\]")),
)


def _is_pytest_config(path: str, table: re.Pattern[str] | None) -> bool:
    if not os.path.isfile(path):
        return False
    if table is None:
        return True
    try:
        with open(path, "rb") as handle:
            text = decode_text(handle.read(1 << 20), "replace")
    except OSError:
        return False
    return table.search(text) is not None


def pytest_rootdir(path: str | os.PathLike[str]) -> Path | None:
    """The folder pytest takes for its rootdir when run on ``path`` (a test folder or file):
    the nearest folder at or above it holding one of pytest's configuration files
    (:data:`_PYTEST_CONFIGS`), looked for up to the git top level (pytest's search goes
    higher only in odd set-ups, left aside). pytest loads the ``conftest.py`` of every
    folder from there down to a test's (its ``confcutdir``), so a double in one above the
    project root (:func:`project_root`: a sub-folder's own ``[project]`` table, no git) is
    loaded all the same (trial 26h, H-B4).

    Args:
        path: a file or directory (absolute or relative to the working directory).

    Returns:
        The folder, or ``None`` when no folder up to the git top level (or the filesystem
        root) holds such a file. Only names are listed and files read; never raises.
    """
    for directory in up_to_git_top(_directory(path)):
        for name, table in _PYTEST_CONFIGS:
            if _is_pytest_config(os.path.join(directory, name), table):
                return Path(directory)
    return None


def display_root(configured: str | os.PathLike[str] | None) -> Path:
    """The folder a run's paths are shown relative to: the folder of the ``pyproject.toml``
    the settings came from (``configured``), else the working directory, as ruff shows them.
    Not :func:`project_root`: a path is never shown relative to a folder above the ones the
    user named or configured (SARIF and GitHub output start from it for :func:`git_root`)."""
    return Path(configured) if configured else Path.cwd()


def _within(directory: str, top: str) -> bool:
    return directory == top or directory.startswith(top.rstrip(os.sep) + os.sep)


def search_bound(
    path: str | os.PathLike[str],
    root: str | os.PathLike[str] | None,
    stop: str | os.PathLike[str] | None = None,
) -> Path | None:
    """Where one file's searches end (the walk up for copies of verl, the repository's
    listing for copies and test doubles), given the run's root: not a second root, a
    function of :func:`project_root`'s answer.

    * ``path`` at or below ``root``: the nearest git top level between ``path`` and
      ``root`` (a submodule or a repository nested in the run's is a project of its own,
      with its own copies), else ``root`` itself. A sub-folder's own ``requirements.txt``
      or ``pyproject.toml`` below the root never ends the search (verl's
      ``verl/experimental/vla/requirements_vla.txt`` hid the root copy, issue 26).
    * no root, or ``path`` outside it (a tree with neither git nor a project marker: a
      folder of scripts with a ``requirements.txt``): the highest directory at or above
      ``path`` holding a dependency file (:func:`is_marked`); ``stop``, when reached
      first, ends the walk and counts as marked.

    Args:
        path: a file or directory (absolute or relative to the working directory).
        root: the run's root (``Snapshot.root_of(path)``, :mod:`ppo_migrate.project.snapshot`),
            or ``None``.
        stop: the last directory of the fallback walk (the settings' folder), or ``None``.

    Returns:
        A directory, or ``None`` when there is no root and no dependency file above ``path``
        (and no ``stop`` on the way).
    """
    start = _directory(path)
    if root is not None:
        top = os.path.abspath(os.fspath(root))
        if _within(start, top):
            for directory in _ancestors(start):
                if directory == top or is_git_top(directory):
                    return Path(directory)
    last = os.path.abspath(os.fspath(stop)) if stop is not None else None
    highest: str | None = None
    for directory in _ancestors(start):
        git, marked = _marks(directory)
        if git:
            return Path(directory)
        if marked or directory == last:
            highest = directory
        if directory == last:
            break
    return Path(highest) if highest is not None else None
