"""The repository's other files: what a run on a few files must still see (issue 26).

A test double lives in a test file, and a pre-commit hook passes only the files staged
(``ppo-migrate apply launcher.py``): the test monkeypatching ``launcher``'s call with a
zero-argument fake is then not among the run's files, so the fix was made and the test
then failed. The issue asks for the doubles to be found "from the whole repository":
:func:`repository_files` lists the repository's Python files that a run on ``paths``
does not hold, walked as discovery walks (``.gitignore``, ruff's default ``exclude``), so that the
look-out for replacements (:func:`ppo_migrate.rules.patches.target_patches`) reaches
the same answer whichever files the command line names. Only names are listed here; the
files are read (their bytes, prefiltered) by the look-out.

A user's own ``exclude``/``extend-exclude`` keeps files out of the lint, not out of the
project: ``extend-exclude = ["tests"]`` still leaves the tests running in CI, with their
doubles (trial 26e). The walk here honours only the default exclusions (environments,
caches, VCS folders) and ``.gitignore``; a build-output name among them (``dist``,
``_build``, ``buck-out``) below a folder of test doubles (``tests/dist/``, run by ``pytest
tests/dist``) is project code all the same: its Python files are listed
(:func:`test_build_files`), but for environments in it (trial 26e, G).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from ppo_migrate.project.filesystem import working_directory
from ppo_migrate.project.root import is_git_top, pytest_rootdir, search_bound
from ppo_migrate.project.snapshot import current
from ppo_migrate.project.tree import repository_listing
from ppo_migrate.settings_model import DEFAULT_EXCLUDES


def _folder(path: str) -> str:
    path = os.path.abspath(path)
    return path if os.path.isdir(path) else os.path.dirname(path)


def _covers(given: Sequence[str], root: str) -> bool:
    """Whether a path given on the command line is the directory ``root`` or one above it
    (its walk then listed every file of the repository already)."""
    prefix = root if root.endswith(os.sep) else root + os.sep
    for path in given:
        if path == "-":
            continue
        real = os.path.abspath(path)
        if os.path.isdir(real) and (real == root or prefix.startswith(real.rstrip(os.sep) + os.sep)):
            return True
    return False


def files_holding(
    candidates: Sequence[str],
    name_test: Callable[[str], bool],
    words: Sequence[bytes],
    max_bytes: int,
    read: Callable[[str], bytes],
) -> Iterator[tuple[str, str, bytes]]:
    """The files of the repository the look-out for test doubles walks (:func:`doubles_root`
    of ``candidates``) whose name ``name_test`` takes, at most ``max_bytes`` long, whose
    bytes hold one of ``words``: the one walk of the doctest, data-file and embedded-code
    look-outs (:mod:`ppo_migrate.rules.doc_doctests`, :mod:`ppo_migrate.rules.data_targets`,
    :mod:`ppo_migrate.rules.embedded_python`).

    Args:
        candidates: the files naming the runtime function (the prefilter's; ``"-"``,
            standard input, is left out). None: nothing is read.
        name_test: ``name_test(file name)``: whether the file is one to read.
        words: bytes one of which the file must hold.
        max_bytes: a larger file is left out.
        read: the run's reader (:meth:`ppo_migrate.project.snapshot.Snapshot.read_bytes`).

    Yields:
        ``(absolute path, display path, bytes)`` in the listing's order; the display path
        relative to the working directory when below it. A file that cannot be read is left
        out: never raises ``OSError``.
    """
    originals = [p for p in candidates if p != "-"]
    if not originals or not words:
        return
    root = doubles_root(originals)
    if root is None:
        return
    snapshot = current()
    fs = snapshot.fs
    cwd = working_directory().rstrip(os.sep) + os.sep
    for path in repository_listing(root).files(name_test):
        try:
            if snapshot.holds(path):  # its bytes held (an overlaid rewrite): no stat again
                data = read(path)
                if len(data) > max_bytes:
                    continue
            else:
                if fs.stat(path).st_size > max_bytes:
                    continue
                data = read(path)
        except (OSError, ValueError):
            continue
        if any(w in data for w in words):
            yield path, os.path.relpath(path, cwd) if path.startswith(cwd) else path, data


def doubles_root(originals: Sequence[str]) -> Path | None:
    """The folder whose Python files the look-out for test doubles walks, for a run on
    ``originals``: the run's root when it holds them (``Snapshot.root_of``: decided once a
    run by :func:`ppo_migrate.project.root.project_root`). A tree with no git and no
    packaging file (a requirements.txt, or nothing at all) still has tests beside the
    named files: the highest folder of dependency files above them
    (:func:`ppo_migrate.project.root.search_bound` without a root), else the working
    directory when it holds the files (never wider than the project, never nothing: a
    double missed is a rewrite that breaks a test). When that folder is no git top
    level, pytest's rootdir above it (:func:`ppo_migrate.project.root.pytest_rootdir` of
    the files' folder) widens it: pytest loads the ``conftest.py`` files from there down
    (a monorepo's root ``conftest.py`` and ``[tool.pytest.ini_options]`` above
    ``services/pyproject.toml``'s ``[project]``, checked out without ``.git``; trial 26h).

    Args:
        originals: the run's files (at least one; absolute or relative to the working
            directory).

    Returns:
        The folder, or ``None`` when none of the above holds the files.
    """
    # the folder of the files' common path: the common path of their folders (the common
    # path of two files or more is a folder above them; of one file, the file), with one
    # ``stat`` instead of one a file (torch's 2,285: ~15 ms, benchmark item 1); and the
    # common path of normalised absolute paths is that of the first and the last in order
    # (every path between them shares their prefix), not a split of every path (~6 ms)
    absolute = [os.path.abspath(o) for o in originals]
    common = _folder(os.path.commonpath([min(absolute), max(absolute)]))
    root = current().root_of(common) or search_bound(common, None)
    if root is None:
        here = os.getcwd()
        if all(os.path.abspath(o).startswith(here.rstrip(os.sep) + os.sep) for o in originals):
            root = Path(here)
    if root is not None and not is_git_top(root):
        # no git: pytest's rootdir above the root (its ini beside the root's conftest.py;
        # ``services/pyproject.toml``'s own [project] made ``services`` the root) bounds
        # the conftest.py files its tests load (trial 26h, H-B4)
        rootdir = pytest_rootdir(common)
        if rootdir is not None and _above(os.fspath(rootdir), os.fspath(root)):
            root = rootdir
    return root


def _above(top: str, folder: str) -> bool:
    """Whether ``top`` is a folder strictly above ``folder`` (both absolute)."""
    return folder != top and folder.startswith(top.rstrip(os.sep) + os.sep)


#: ruff's default excludes that name build output, not environments, caches or VCS: below
#: a folder of test doubles they hold tests (``tests/dist/``: distributed tests)
BUILD_NAMES: frozenset[str] = frozenset({"dist", "_build", "buck-out"})


def test_build_files(root: str) -> list[str]:
    """The Python files under the folders the repository's walk skipped by name
    (:attr:`ppo_migrate.project.tree.Listing.skipped`) that are named for build output
    (:data:`BUILD_NAMES`) and lie below a folder of test doubles
    (:data:`ppo_migrate.project.tree.DOUBLES_FOLDERS`): ``tests/dist/test_x.py``.

    Args:
        root: the repository root (absolute).

    Returns:
        Absolute paths, sorted; below them, environments (a folder holding ``pyvenv.cfg``
        or ``conda-meta``), ruff's other default excludes and caches are not entered.
        Never raises.
    """
    from ppo_migrate.project.tree import ENVIRONMENT_MARKERS, NO_CHECKOUT, in_doubles_folder

    found: list[str] = []
    skip = (frozenset(DEFAULT_EXCLUDES) - BUILD_NAMES) | NO_CHECKOUT
    for top in repository_listing(root).skipped:
        if os.path.basename(top) not in BUILD_NAMES or not in_doubles_folder(top, root):
            continue
        for directory, dirs, names in os.walk(top):
            if any(m in names or m in dirs for m in ENVIRONMENT_MARKERS):
                dirs[:] = []
                continue
            dirs[:] = sorted(d for d in dirs if d not in skip and not d.endswith(".egg-info"))
            found += [os.path.join(directory, n) for n in names if n.endswith(".py")]
    return sorted(found)


def repository_files(
    files: Sequence[str], settings, given: Sequence[str] | None = None
) -> list[str]:
    """The Python files of the repository holding ``files`` that the run does not hold.

    Args:
        files: the run's files (display paths, as :func:`ppo_migrate.project.discovery.discover_files`
            gives them).
        settings: the run's :class:`ppo_migrate.settings_model.Settings`
            (``respect_gitignore`` and ``project_root`` are honoured as discovery does;
            ``exclude`` and ``extend_exclude`` are not: the walk skips only ruff's default
            exclusions, as an excluded test still runs).
        given: the command line's paths, when known: a directory among them that is the
            root (or above it) means the run's files are the repository's already, and
            nothing is walked, unless the settings exclude more than the defaults.
            ``None``: not known (an explicit list of files).

    Returns:
        Display paths (relative to the working directory, ``../tests/t.py`` for a root
        above it), sorted, none of them among ``files``. Empty when
        no root is found (no git top level, no project marker, no dependency file above
        the files and a working directory that does not hold them); only the files of
        :func:`test_build_files` (``tests/dist/``) when the run covers the root. The root is the run's (``Snapshot.root_of``: decided once a run by
        :func:`ppo_migrate.project.root.project_root`) when it holds the files.

    Raises:
        Nothing: a directory that cannot be read is left out (discovery logs it).
    """
    from ppo_migrate.project.discovery import discover_files, is_entry_point_file, is_yaml_file

    paths = [f for f in files if f != "-"]
    if not paths:
        return []
    originals = [os.path.abspath(f) for f in paths]
    root = doubles_root(originals)
    if root is None:
        return []
    top = os.fspath(root)
    held = set(originals)
    # ``tests/dist/``: project code the default excludes skip (trial 26e, G)
    tests = [_shown(f) for f in test_build_files(os.path.abspath(top)) if f not in held]
    own_excludes = tuple(settings.exclude) != tuple(DEFAULT_EXCLUDES) or bool(settings.extend_exclude)
    if given is not None and not own_excludes and _covers(given, top):
        return tests
    if own_excludes:
        settings = settings.replace(exclude=DEFAULT_EXCLUDES, extend_exclude=())
    try:
        display = os.path.relpath(top)
    except ValueError:  # another drive (Windows)
        display = top
    try:
        found = discover_files([display], settings, on_error=lambda *_: None)
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return tests
    # the walk collects YAML files and packaging files too (Hydra configs, entry points:
    # PPO006 of the run's own); the look-outs beyond the run read Python
    listed = [
        f for f in found
        if os.path.abspath(f) not in held and not is_yaml_file(f) and not is_entry_point_file(f)
    ]
    known = {os.path.abspath(f) for f in listed}
    return sorted(listed + [f for f in tests if os.path.abspath(f) not in known])


def _shown(path: str) -> str:
    """``path`` relative to the working directory (as discovery shows paths)."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return path


__all__ = ["BUILD_NAMES", "doubles_root", "repository_files", "test_build_files"]
