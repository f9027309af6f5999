"""The run's questions about the file system, each asked of the disk once (issue 26).

The judging modules (:mod:`ppo_migrate.rules`) do no I/O of their own (the design note
``docs/design/project-model.md``: only *collect* and *emit* touch the file system). What
they need to know about folders (is there a ``verl/__init__.py`` here, which sub-folders does
this level hold, which files does this tree hold) they ask the run's snapshot's
:class:`FileSystem` (:attr:`ppo_migrate.project.snapshot.Snapshot.fs`), which answers from the
disk the first time and from its cache after: a folder is listed once a run, a path is
``stat``-ed once a run, an archive's members are read once a run, as a file's bytes are read
once (:meth:`ppo_migrate.project.snapshot.Snapshot.source`). The answers hold for the whole
run because a run never makes or removes a file or a folder: it rewrites files in place
(:meth:`ppo_migrate.project.snapshot.Snapshot.written` forgets the ``stat`` of a file it
rewrote, whose size and times changed).

Counted as the reads are (:class:`ppo_migrate.project.snapshot.Counts`): ``stats`` (each
``os.stat`` of a path), ``listings`` (each ``os.scandir`` of a folder) and ``archive_reads``
(each opening of an archive), so a test can show a folder is listed once a run
(``tests/project/test_filesystem.py``).

Outside a run, :func:`ppo_migrate.project.snapshot.current` hands out a fresh snapshot each
time, so every question is asked of the disk, as before.

Semantics follow the standard library's, named at each method: ``realpath`` is
:func:`os.path.realpath`, ``is_file``/``is_dir``/``exists`` are :func:`os.path.isfile`/:func:`os.path.isdir`/:func:`os.path.exists` (links
followed; any ``OSError`` or ``ValueError`` is ``False``), :meth:`FileSystem.walk` is
:func:`os.walk` top-down without following links to folders, and :meth:`FileSystem.archive_members`
reads a zip file (a ``.zip``, ``.whl`` or ``.egg`` on ``sys.path``: zipimport's format) in
memory with :mod:`zipfile`: nothing is extracted, no temporary folder is made.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import posixpath
import stat as _stat
from typing import NamedTuple

TYPE_CHECKING = False  # ``typing`` only for annotations (start-up cost, as snapshot.py)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from ppo_migrate.project.snapshot import Counts



#: :func:`absolute`'s answers: an absolute path by itself, a relative one with the working
#: directory it was asked in; at most :data:`_ABSOLUTE_KEPT`, the oldest dropped first
#: the working directory of the run under way (:func:`run_working_directory`), or ``None``
_RUN_CWD: contextvars.ContextVar[str | None] = contextvars.ContextVar("ppo_migrate_run_cwd", default=None)


def working_directory() -> str:
    """``os.getcwd()``, or the run's working directory inside a run
    (:func:`run_working_directory`): a run never changes directory, and a relative path is
    made absolute ~30 times a file (:func:`absolute`,
    :func:`ppo_migrate.project.modules.absolute_parent`), each a system call (20,000 on
    benchmark item 10's 600 modules, ~5 us each on a busy virtual machine).

    Raises:
        OSError: outside a run, the working directory is gone (as ``os.getcwd``).
    """
    found = _RUN_CWD.get()
    return found if found is not None else os.getcwd()


@contextlib.contextmanager
def run_working_directory() -> Iterator[None]:
    """Inside the block, :func:`working_directory` is the working directory it started in
    (asked once); when that cannot be read (the folder is gone), it is asked each time as
    outside (and raises there). For a run (:func:`ppo_migrate.project.snapshot.run_scope`),
    which changes directory nowhere."""
    try:
        cwd: str | None = os.getcwd()
    except OSError:
        cwd = None
    token = _RUN_CWD.set(cwd)
    try:
        yield
    finally:
        _RUN_CWD.reset(token)


_absolute: dict = {}
#: ``os.path.isabs`` of a str is ``startswith("/")`` (posixpath's)
_POSIX = os.path is posixpath
_ABSOLUTE_KEPT = 1 << 16


def absolute(path: str | os.PathLike[str]) -> str:
    """``os.path.abspath(path)``, each spelling worked out once a working directory: the
    snapshot files every answer under it, and a run asks it of the same few thousand
    paths ~20 times a file (``posixpath.normpath`` is Python code: ~5% of a ``check`` on
    600 modules). A relative path is kept with the working directory it was asked in
    (:func:`working_directory`: ``os.getcwd()``, asked each time outside a run), so a
    change of directory never gives a stale answer.

    Raises:
        OSError: a relative path while the working directory is gone (as ``abspath``).
        TypeError: ``path`` is no path (as ``abspath``).
    """
    path = os.fspath(path)
    if _POSIX and type(path) is str:  # ``os.path.isabs`` of a str, without its calls
        key = path if path[:1] == "/" else (working_directory(), path)
    else:
        key = path if os.path.isabs(path) else (working_directory(), path)
    found = _absolute.get(key)
    if found is None:
        found = os.path.abspath(path)
        if len(_absolute) >= _ABSOLUTE_KEPT:
            del _absolute[next(iter(_absolute))]
        _absolute[key] = found
    return found


class Entry(NamedTuple):
    """One name of a folder's listing.

    Attributes:
        name: the name in the folder.
        is_dir: :meth:`os.DirEntry.is_dir` (a link to a folder counts, as in :func:`os.walk`'s
            ``dirnames``).
        is_link: :meth:`os.DirEntry.is_symlink`.
    """

    name: str
    is_dir: bool
    is_link: bool


class FileSystem:
    """Cached answers about paths for one run (see the module docstring).

    Args:
        counts_of: ``path -> Counts`` (the snapshot's :meth:`~ppo_migrate.project.snapshot.Snapshot.counts_of`):
            where ``stats``, ``listings`` and ``archive_reads`` are counted.
    """

    def __init__(self, counts_of: Callable[[str], Counts]) -> None:
        self._counts_of = counts_of
        self._stats: dict[str, os.stat_result | BaseException] = {}
        self._listings: dict[str, tuple[Entry, ...] | BaseException] = {}
        self._archives: dict[tuple[str, str, str, int], dict[str, bytes] | BaseException] = {}
        self._real: dict[str, str] = {}
        self._zips: dict[str, bool] = {}

    @staticmethod
    def key(path: str | os.PathLike[str]) -> str:
        """The absolute path answers are filed under (as the snapshot's files)."""
        return absolute(path)

    # -- one path ---------------------------------------------------------------------
    def stat(self, path: str | os.PathLike[str]) -> os.stat_result:
        """``os.stat(path)`` (links followed), asked once a run.

        Raises:
            OSError: as ``os.stat`` raised it (each time; the failure is kept).
            ValueError: a NUL in the path (as ``os.stat``).
        """
        key = self.key(path)
        found = self._stats.get(key)
        if found is None:
            self._counts_of(key).stats += 1
            try:
                found = os.stat(key)
            except (OSError, ValueError) as exc:
                exc.__traceback__ = None
                found = exc
            self._stats[key] = found
        if isinstance(found, BaseException):
            raise _copy(found)
        return found

    def _mode(self, path: str | os.PathLike[str]) -> int | None:
        try:
            return self.stat(path).st_mode
        except (OSError, ValueError):
            return None

    def is_file(self, path: str | os.PathLike[str]) -> bool:
        """:func:`os.path.isfile`: a regular file (or a link to one)."""
        mode = self._mode(path)
        return mode is not None and _stat.S_ISREG(mode)

    def is_dir(self, path: str | os.PathLike[str]) -> bool:
        """:func:`os.path.isdir`: a folder (or a link to one)."""
        mode = self._mode(path)
        return mode is not None and _stat.S_ISDIR(mode)

    def exists(self, path: str | os.PathLike[str]) -> bool:
        """:func:`os.path.exists`: anything the path reaches (links followed)."""
        return self._mode(path) is not None

    def realpath(self, path: str | os.PathLike[str]) -> str:
        """:func:`os.path.realpath` (links resolved, an absolute path), asked once a run.

        Raises:
            ValueError: a NUL in the path (as ``os.path.realpath`` may).
        """
        key = self.key(path)
        found = self._real.get(key)
        if found is None:
            found = self._real[key] = os.path.realpath(key)
        return found

    def forget(self, path: str | os.PathLike[str]) -> None:
        """Drop the ``stat`` of ``path`` (the run rewrote the file: its size and times changed)."""
        self._stats.pop(self.key(path), None)

    # -- folders ----------------------------------------------------------------------
    def entries(self, path: str | os.PathLike[str]) -> tuple[Entry, ...]:
        """The folder's :class:`Entry` list, sorted by name, listed (``os.scandir``) once a run.

        Raises:
            OSError: as ``os.scandir`` raised it (not a folder, no permission; each time).
            ValueError: a NUL in the path.
        """
        key = self.key(path)
        found = self._listings.get(key)
        if found is None:
            self._counts_of(key).listings += 1
            try:
                out = []
                with os.scandir(key) as it:
                    for e in it:
                        try:
                            is_dir = e.is_dir()
                        except OSError:
                            is_dir = False
                        try:
                            is_link = e.is_symlink()
                        except OSError:
                            is_link = False
                        out.append(Entry(e.name, is_dir, is_link))
                found = tuple(sorted(out))
            except (OSError, ValueError) as exc:
                exc.__traceback__ = None
                found = exc
            self._listings[key] = found
        if isinstance(found, BaseException):
            raise _copy(found)
        return found

    def list_dir(self, path: str | os.PathLike[str]) -> list[str]:
        """:func:`os.listdir`'s names, sorted; the folder listed once a run.

        Raises:
            OSError, ValueError: as :meth:`entries`.
        """
        return [e.name for e in self.entries(path)]

    def subdirectories(self, path: str | os.PathLike[str]) -> list[str]:
        """The paths (``os.path.join(path, name)``) of the folder's sub-folders, links to
        folders included (``os.DirEntry.is_dir``), sorted; ``[]`` when it cannot be listed."""
        try:
            return [os.path.join(path, e.name) for e in self.entries(path) if e.is_dir]
        except (OSError, ValueError):
            return []

    def walk(
        self,
        top: str | os.PathLike[str],
        onerror: Callable[[OSError], None] | None = None,
    ) -> Iterator[tuple[str, list[str], list[str]]]:
        """:func:`os.walk` top-down without following links to folders: yields
        ``(dirpath, dirnames, filenames)``, ``dirnames`` and ``filenames`` sorted; a caller
        prunes by removing names from ``dirnames`` (as with ``os.walk``). Each folder is
        listed once a run (:meth:`entries`); ``dirpath`` is spelled from ``top`` as
        ``os.walk`` spells it.

        Raises:
            Nothing: a folder that cannot be listed is skipped (``onerror`` called with the
            ``OSError``, as ``os.walk``).
        """
        top = os.fspath(top)
        stack = [top]
        while stack:
            here = stack.pop()
            try:
                listed = self.entries(here)
            except OSError as exc:
                if onerror is not None:
                    onerror(exc)
                continue
            except ValueError:
                continue
            dirs = [e.name for e in listed if e.is_dir]
            files = [e.name for e in listed if not e.is_dir]
            links = {e.name for e in listed if e.is_dir and e.is_link}
            yield here, dirs, files
            for name in reversed(dirs):
                if name not in links:
                    stack.append(os.path.join(here, name))

    # -- archives ---------------------------------------------------------------------
    def is_zip(self, path: str | os.PathLike[str]) -> bool:
        """Whether ``path`` is a zip archive by its content (:func:`zipfile.is_zipfile`: a
        ``.pyz`` with a shebang line counts; Python's import system reads any file on
        ``sys.path`` that way, whatever its name), asked once a run; ``False`` when it cannot
        be read."""
        import zipfile

        key = self.key(path)
        if key not in self._zips:
            try:
                self._zips[key] = zipfile.is_zipfile(key)
            except (OSError, ValueError):
                self._zips[key] = False
        return self._zips[key]

    def archive_members(
        self, archive: str | os.PathLike[str], prefix: str, suffix: str, max_bytes: int
    ) -> dict[str, bytes]:
        """The members of the zip file ``archive`` whose names start with ``prefix`` and end
        with ``suffix``, read in memory (:mod:`zipfile`), once a run: ``{member name: bytes}``.
        Names holding a ``..`` part or starting with ``/`` are left out (zipimport never
        imports them).

        Raises:
            OSError: the archive cannot be opened or read.
            ValueError: the chosen members hold more than ``max_bytes`` uncompressed, or the
                archive is no zip file (:class:`zipfile.BadZipFile` is one), or is damaged
                (``RuntimeError``/``EOFError`` of :mod:`zipfile` are raised as ``ValueError``).
        """
        import zipfile

        key = (self.key(archive), prefix, suffix, max_bytes)
        found = self._archives.get(key)
        if found is None:
            self._counts_of(key[0]).archive_reads += 1
            try:
                with zipfile.ZipFile(key[0]) as zf:
                    members = [
                        m for m in zf.infolist()
                        if m.filename.startswith(prefix) and m.filename.endswith(suffix)
                        and ".." not in m.filename.split("/") and not m.filename.startswith("/")
                    ]
                    if sum(m.file_size for m in members) > max_bytes:
                        raise ValueError("too large")
                    found = {m.filename: zf.read(m) for m in members if not m.is_dir()}
            except (OSError, ValueError) as exc:
                exc.__traceback__ = None
                found = exc
            except (zipfile.BadZipFile, zipfile.LargeZipFile, RuntimeError, EOFError) as exc:
                found = ValueError(f"no readable zip file: {exc}")
            self._archives[key] = found
        if isinstance(found, BaseException):
            raise _copy(found)
        return found

    def archive_files_ending(
        self, archive: str | os.PathLike[str], suffix: str, max_bytes: int
    ) -> dict[str, bytes]:
        """The members of the zip or tar archive ``archive`` (a wheel, an sdist ``.tar.gz``,
        any compression :mod:`tarfile` reads) whose names are ``suffix`` or end with
        ``/suffix``, read in memory once a run (fresh user 43, B3: a hotfix wheel carrying
        ``verl/trainer/constants_ppo.py``): ``{member name: bytes}``; nothing is extracted.
        A zip is listed from its central directory; a tar archive is read as a stream, and
        only when the file holds at most ``max_bytes`` (its members' names are spread through
        it).

        Raises:
            OSError: the archive cannot be opened or read.
            ValueError: it is larger than ``max_bytes`` (a tar archive) or its chosen members
                hold more than ``max_bytes``, or it is neither a zip nor a tar archive, or is
                damaged.
        """
        import tarfile
        import zipfile

        key = (self.key(archive), "*" + suffix, "", max_bytes)
        found = self._archives.get(key)
        if found is None:
            self._counts_of(key[0]).archive_reads += 1

            def wanted(name: str) -> bool:
                return (name == suffix or name.endswith("/" + suffix)) and ".." not in name.split("/")

            try:
                if self.is_zip(key[0]):
                    with zipfile.ZipFile(key[0]) as zf:
                        members = [m for m in zf.infolist() if wanted(m.filename) and not m.is_dir()]
                        if sum(m.file_size for m in members) > max_bytes:
                            raise ValueError("too large")
                        found = {m.filename: zf.read(m) for m in members}
                else:
                    if self.stat(key[0]).st_size > max_bytes:
                        raise ValueError("too large")
                    found = {}
                    with tarfile.open(key[0], "r:*") as tf:
                        for m in tf:
                            if m.isfile() and wanted(m.name) and m.size <= max_bytes:
                                handle = tf.extractfile(m)
                                if handle is not None:
                                    found[m.name] = handle.read()
            except (OSError, ValueError) as exc:
                exc.__traceback__ = None
                found = exc
            except Exception as exc:  # BadZipFile, TarError, zlib.error, LZMAError, EOFError ...
                found = ValueError(f"no readable archive: {exc}")
            self._archives[key] = found
        if isinstance(found, BaseException):
            raise _copy(found)
        return found


def _copy(exc: BaseException) -> BaseException:
    """A copy of a kept exception to raise again (as the snapshot's ``_again``: the kept one
    would collect the traceback of each raise)."""
    import copy

    try:
        fresh = copy.copy(exc)
    except Exception:  # noqa: BLE001 - one that cannot be copied: raised as it is
        return exc.with_traceback(None)
    return fresh if type(fresh) is type(exc) else exc.with_traceback(None)


__all__ = ["Entry", "FileSystem"]
