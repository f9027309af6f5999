"""The run's snapshot of the project's files: each read once, decoded once, parsed once.

Issue 26 (step 4 of ``docs/design/project-model.md``). A :class:`Snapshot` holds, per path
(made absolute: ``app/x.py`` and ``/repo/app/x.py`` are one entry), a :class:`SourceFile`:
its bytes and the ``stat`` they were read under (read once, by :func:`ppo_migrate.files.read_source`'s
rules: nothing but a regular file is opened), its text (decoded once, by
:func:`ppo_migrate.files.decode_source`), its ``ast`` tree (compiled on the first demand and
kept), its LibCST module (parsed on the first demand: only a file that gets a structural
edit asks) and what the higher layers make of the tree (:meth:`SourceFile.derived`: the
analysis's :class:`ppo_migrate.rules.module.ParsedModule`, made once a run).
:attr:`Snapshot.counts` counts, per path, the reads, the ``ast`` parses and the LibCST
parses: the test of issue 26's acceptance reads them (``tests/project/test_snapshot.py``).

A low layer: the analysis and the edits read through it, so it imports neither (no import
cycle, ``tests/integration/test_architecture.py``). Their parsers are theirs and handed in
when asked for (:meth:`SourceFile.cst` takes LibCST's, :meth:`SourceFile.derived` any other
builder); the counting stays here.

Which files: every Python file a run reads (the prefilter's, the per-file phase's, the
re-exports' and the test doubles' searches, the cross-file judge, the caller phase and
``--thread-config``, the class index, the callee in effect's copies of verl, the ``full``
format's frames) and the dependency files the callee in
effect reads (``pyproject.toml``, requirements, ``setup.cfg``/``setup.py``, lock files,
``Pipfile``, ``pixi.toml``, ``environment.yml``, ``tox.ini``; ``.gitmodules`` and launch
scripts), as bytes (:meth:`Snapshot.read_bytes`) or as the text ``open()`` would give
(:meth:`Snapshot.read_text`).

How it is reached: **a run-scoped current snapshot** (a :mod:`contextvars` variable), not
a parameter: the readers sit at the bottom of deep call chains (the callee in effect is
decided inside each module's analysis, the class index inside the config finder), and
threading a parameter through them would touch most signatures of the analysis. The
commands (``check``, ``apply``; the plain ``check``) and :func:`ppo_migrate.cli.runner.run` enter
:func:`run_scope`, which makes a snapshot when none is current and clears it at the end;
the readers ask :func:`current`. Outside a run (the LibCST codemod command, the Fixit rule,
a test calling an analysis directly) :func:`current` hands out a fresh snapshot each time:
every read is then a read, as before. Worker processes of ``--jobs N`` are forked with the
parent's snapshot as it was at the fork (the prefilter's bytes, the trees parsed so far)
and go on with their own copy; they keep only the tree of the file at hand
(:attr:`Snapshot.keep_trees`), as nothing after the per-file phase runs there (a scouted
``check`` drops its trees before it forks them: each worker would carry them). A file a
worker rewrites is dropped from the parent's snapshot when its outcome comes back
(:meth:`Snapshot.forget`), so that the phases after read its new bytes. The scout of a
``check`` (:mod:`ppo_migrate.cli.scout`) reads in its own process, for the prefilter only, and
keeps nothing: a candidate is read there and once more in the parent.

**The overlay** (issue 26, step 7 of the design note): a preview (``apply --diff`` with
``--thread-config``) runs the real rewrite with the snapshot *staging*
(:func:`staged`): each replacement of a file the per-file phase or ``--thread-config`` makes
goes into the overlay instead of onto the disk (:meth:`Snapshot.overlay`), and every read through the snapshot (:meth:`Snapshot.source`,
:meth:`Snapshot.read_bytes`, :meth:`Snapshot.read_text`, the trees, :meth:`Snapshot.stamp`)
sees the overlaid bytes: the re-checks of edited text read them, and the preview is the diff
of :meth:`Snapshot.overlaid`'s originals against them. Nothing is written and nothing is
copied. An overlaid file is one the run read (a run rewrites files, it makes none), so it
exists on disk too; the overlay is its own dictionary, never dropped by the memory budgets.
Its ``stat`` is the file's with ``st_mtime_ns`` negative and unique in the process and
``st_size`` the overlaid size, so that the caches keyed by ``(mtime, size)`` (the caller
index's records, the class index) never take overlaid text for the file on disk or the
reverse. Worker processes get the overlay with the snapshot: forked ones inherit it, a
spawned one is handed :meth:`Snapshot.worker_state` and enters :func:`enter_worker`.

The run's root is kept here too: :meth:`Snapshot.analyse` decides it once from the run's
paths (:func:`ppo_migrate.project.root.project_root`), and :meth:`Snapshot.root_of` is what
every search that needs a root asks (the caller phase, the test doubles' look-out, the
copies of verl); :attr:`Snapshot.root_decisions` counts the decisions for the tests.

What is not counted as a read: :func:`ppo_migrate.files.atomic_write`'s check that the file
on disk is still the one read (a comparison before replacing it), and the roll-back of a
``--thread-config`` change that could not be written whole. A file the run writes is
recorded with the bytes written (:meth:`Snapshot.written`): it is not read again, and its
new text, a text the run made, is parsed under :attr:`Counts.rewritten_parses`, not
:attr:`Counts.ast_parses`.

Memory, bounded whatever the size of the tree: the bytes of the files the run analyses are
kept for the run; those of files read only for a search (the prefilter's rejects, the
searches of every file for callers and test doubles) up to :data:`OPTIONAL_BYTES`; trees up
to :data:`TREE_CHARS` characters of source, the first ones made (the phases go over the
files in the same order), a tree beyond only until the next is made (a tree is ~35 times
its source: issue 6's peak memory of a 10,000-file ``check``). An exception a read, a
decode or a parse raised is kept without its traceback (whose frames would hold their
callers' analyses) and raised again as a copy. A file read or parsed again after such a
drop counts again: the counts stay true; on a small run (a few dozen files) nothing is
dropped.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import os

from ppo_migrate.files import SourceFile as _ReadFile
from ppo_migrate.files import UnreadableFile, decode_source, decode_text, read_source
from ppo_migrate.project.filesystem import FileSystem, absolute, run_working_directory

TYPE_CHECKING = False  # ``typing`` is ~3 ms of a plain ``check``'s start: annotations only
if TYPE_CHECKING:
    import ast
    from collections.abc import Callable, Hashable, Iterable, Iterator
    from pathlib import Path
    from typing import Any, TypeVar

    _T = TypeVar("_T")

#: Bytes of files the prefilter turned away that a snapshot keeps (a later search for a
#: caller or a test double reads them from the snapshot); beyond it they are dropped.
OPTIONAL_BYTES = 8 << 20
#: Characters of source whose ``ast`` trees a snapshot keeps (least recently used dropped):
#: ~80 bytes of tree a character, so ~40 MB at most. At 128 KB, a tree of 135 trainer
#: modules (~400 KB, benchmark item 9) was parsed twice a file (the look-outs for re-exports
#: and test doubles, then the per-file phase): 15% of its CPU time.
TREE_CHARS = 512 << 10

#: The overlay's ``st_mtime_ns`` stamps: ``-next(_OVERLAY_STAMPS)``, unique in the process (the
#: caches keyed by ``(path, mtime, size)`` live as long as the process, across runs).
_OVERLAY_STAMPS = itertools.count(1)

#: Exceptions ``compile(..., ast.PyCF_ONLY_AST)`` raises for a text it cannot take.
_COMPILE_ERRORS = (SyntaxError, RecursionError, MemoryError, ValueError, OverflowError)


class Counts:
    """What a snapshot did for one path.

    Attributes:
        reads: reads of the file from disk.
        ast_parses: ``ast`` parses of the text as read.
        cst_parses: LibCST parses (of the text as read or as rewritten).
        writes: times the run replaced the file (on disk, or in the overlay while staging).
        rewritten_parses: ``ast`` parses of text the run wrote to the file.
        stats: ``os.stat`` calls on the path (:class:`ppo_migrate.project.filesystem.FileSystem`).
        listings: listings of the path as a folder (``os.scandir``, :class:`~ppo_migrate.project.filesystem.FileSystem`).
        archive_reads: openings of the path as a zip archive (:class:`~ppo_migrate.project.filesystem.FileSystem`).
    """

    __slots__ = (
        "archive_reads", "ast_parses", "cst_parses", "listings", "reads", "rewritten_parses", "stats",
        "writes",
    )

    def __init__(self) -> None:
        self.reads = 0
        self.stats = 0
        self.listings = 0
        self.archive_reads = 0
        self.ast_parses = 0
        self.cst_parses = 0
        self.writes = 0
        self.rewritten_parses = 0

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)}" for n in self.__slots__)
        return f"Counts({fields})"


class SourceFile(_ReadFile):
    """One file of the snapshot: :class:`ppo_migrate.files.SourceFile`'s bytes and ``stat``
    (so that :func:`ppo_migrate.files.atomic_write` takes it as what was read), and what is
    made of them, each once.

    Attributes:
        key: the absolute path the snapshot files it under.
        rewritten: the bytes are the run's own write, not a read.
    """

    __slots__ = ("_cst", "_decoded", "_derived", "_snapshot", "_tree", "key", "rewritten")

    def __init__(self, snapshot: Snapshot, key: str, read: _ReadFile, *, rewritten: bool = False) -> None:
        super().__init__(read.path, read.data, read.stat)
        self._snapshot = snapshot
        self.key = key
        self.rewritten = rewritten
        self._decoded: Any = None
        self._tree: Any = None
        self._derived: dict[Hashable, Any] = {}
        self._cst: Any = None

    def __reduce__(self):
        """Sent to another process (a pool worker's outcome) as the plain
        :class:`ppo_migrate.files.SourceFile`: the bytes and the ``stat``, never the snapshot."""
        return _ReadFile, (self.path, self.data, self.stat)

    # -- text -------------------------------------------------------------------------
    def decoded(self) -> tuple[str, str, bool]:
        """``(text, encoding, had_bom)`` (:func:`ppo_migrate.files.decode_source`), decoded once.

        Raises:
            UnicodeDecodeError, SyntaxError, LookupError: as ``decode_source`` (each time).
        """
        if self._decoded is None:
            try:
                self._decoded = decode_source(self.data)
            except (UnicodeDecodeError, SyntaxError, LookupError) as exc:
                self._decoded = _kept(exc)
        if isinstance(self._decoded, BaseException):
            raise _again(self._decoded)
        return self._decoded

    @property
    def text(self) -> str:
        """The decoded text (see :meth:`decoded`)."""
        return self.decoded()[0]

    # -- ast --------------------------------------------------------------------------
    def tree(self) -> ast.Module:
        """The ``ast`` of the text (``compile(..., ast.PyCF_ONLY_AST)``), compiled once.

        Raises:
            UnicodeDecodeError, SyntaxError, LookupError: the bytes do not decode.
            SyntaxError, RecursionError, MemoryError, ValueError, OverflowError: as
                ``compile`` raises them (each time).
        """
        if self._tree is None:
            import ast
            import warnings

            text = self.text
            self._snapshot._parsed(self)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # e.g. invalid escape sequences
                    self._tree = compile(text, self.key, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
            except _COMPILE_ERRORS as exc:
                self._tree = _kept(exc)
        self._snapshot._used(self)
        if isinstance(self._tree, BaseException):
            raise _again(self._tree)
        return self._tree

    def derived(self, kind: Hashable, build: Callable[[SourceFile], _T]) -> _T:
        """What ``build(self)`` makes of this file, made once and kept with its tree (the
        higher layers' own structures, built by their own code: the snapshot imports none
        of them). ``kind`` names what is asked for (its owner's module name, say); ``build``
        reaches the text and the tree through ``self`` (:attr:`text`, :meth:`tree`: parsed
        once, counted). Dropped with the trees (:meth:`release`).

        Raises:
            as ``build`` (each time; an exception is kept, and a copy raised again).
        """
        found = self._derived.get(kind, _MISSING)
        if found is _MISSING:
            try:
                found = build(self)
            except Exception as exc:  # noqa: BLE001 - kept, raised again for every asker
                found = _kept(exc)
            self._derived[kind] = found
        self._snapshot._used(self)
        if isinstance(found, BaseException):
            raise _again(found)
        return found

    # -- LibCST -----------------------------------------------------------------------
    def cst(self, parse: Callable[..., Any]) -> Any:
        """The LibCST module of the text, parsed once by ``parse(text, tree_of=self.tree)``
        (the edits' :func:`ppo_migrate.edits.cst_calls.parse_module`, handed in: its nesting
        guard judged on :meth:`tree`); counted in :attr:`Counts.cst_parses`.

        Raises:
            as ``parse`` (each time).
        """
        if self._cst is None:
            self._snapshot.counts_of(self.key).cst_parses += 1
            try:
                self._cst = parse(self.text, tree_of=self.tree)
            except Exception as exc:  # noqa: BLE001 - kept, raised again for every asker
                self._cst = _kept(exc)
        if isinstance(self._cst, BaseException):
            raise _again(self._cst)
        return self._cst

    def release(self) -> None:
        """Drop the trees (the bytes and the text stay)."""
        self._tree = self._cst = None
        self._derived = {}


#: :meth:`SourceFile.derived`'s "not made yet" (``None`` may be what a builder makes)
_MISSING = object()


class _Failed:
    """A read that failed: ``read_source``'s :class:`UnreadableFile` and the ``OSError`` an
    ``open`` would have raised (the system's, kept as the error's context; for a file that is
    not a regular one, ``IsADirectoryError`` or one made of the reason)."""

    __slots__ = ("error", "os_error")

    def __init__(self, error: UnreadableFile) -> None:
        original = error.__context__
        self.error = _kept(error)
        if isinstance(original, OSError):
            self.os_error = _kept(original)
        elif str(error).endswith("is a directory"):
            import errno

            self.os_error = IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        else:
            self.os_error = OSError(str(error))


def _kept(exc: BaseException) -> BaseException:
    """``exc`` to keep: without its traceback and context. A traceback holds the frames it
    went through, and each frame its callers' (an analysis, its tree, ...): kept with the
    exception, they would live as long as the snapshot."""
    exc.__context__ = exc.__cause__ = None
    return exc.with_traceback(None)


def _again(exc: BaseException) -> BaseException:
    """A copy of the kept ``exc`` to raise once more. Never the kept one itself: the
    traceback a raise gives it holds the frames it went through (an analysis and its
    tree), which the snapshot would then keep for the run."""
    import copy

    try:
        fresh = copy.copy(exc)
    except Exception:  # noqa: BLE001 - an exception that cannot be copied: raised as it is
        return exc.with_traceback(None)
    return fresh if type(fresh) is type(exc) else exc.with_traceback(None)


class Snapshot:
    """The files of one run, by absolute path (see the module docstring).

    Args:
        keep_trees: keep the ``ast`` trees parsed (up to :data:`TREE_CHARS`); a worker
            process keeps only the tree of the file at hand.

    Attributes:
        counts: absolute path -> :class:`Counts`.
        staging: the run's replacements of files go into the overlay (:meth:`overlay`), not
            onto the disk (a preview: :func:`staged`); the writers ask.
        fs: the run's questions about paths and folders (``stat``, listings, walks, an
            archive's members), each asked of the disk once
            (:class:`ppo_migrate.project.filesystem.FileSystem`): the analysis asks here,
            never ``os``.
    """

    def __init__(self, *, keep_trees: bool = True) -> None:
        self.keep_trees = keep_trees
        self.counts: dict[str, Counts] = {}
        self.staging = False
        #: absolute path -> (the bytes before the first overlay, the overlaid read)
        self._overlay: dict[str, tuple[bytes, _ReadFile]] = {}
        self.fs = FileSystem(self.counts_of)
        self._files: dict[str, SourceFile | _Failed] = {}
        self._optional: dict[str, int] = {}
        self._optional_bytes = 0
        self._trees: dict[str, int] = {}
        self._tree_chars = 0
        self._overflow: SourceFile | None = None  # the one tree kept beyond the budget
        self._memos: dict[Hashable, dict] = {}
        self._paths: tuple[str, ...] | None = None
        self._root: Path | None = None
        #: times this snapshot asked :func:`ppo_migrate.project.root.project_root` (the
        #: run's root once; a folder outside it once each): read by the tests.
        self.root_decisions = 0
        #: the run's reference index (:class:`ppo_migrate.project.references.References`),
        #: made by :func:`ppo_migrate.project.references.of` on the first demand (this
        #: module does not import it: the index sits above the snapshot)
        self.references: Any = None
        #: times the reference index was made for this snapshot (once): read by the tests
        self.reference_builds = 0

    # -- the root ---------------------------------------------------------------------
    def analyse(self, paths: Iterable[str | os.PathLike[str]]) -> None:
        """Record the run's paths and decide the run's root from them, once: the first
        call wins (a preview runs on the real paths with its edits in the overlay, so its
        root is the command's).

        Args:
            paths: the analysed paths (the command line's, else the discovered files);
                ``"-"`` (standard input) is left out, and no path at all stands for the
                working directory (as :func:`ppo_migrate.project.root.project_root` reads it).
        """
        if self._paths is not None:
            return
        self._paths = tuple(os.fspath(p) for p in paths if os.fspath(p) != "-")
        self._root = self._decide(self._paths)

    @property
    def root(self) -> Path | None:
        """The run's root (:func:`ppo_migrate.project.root.project_root` of the paths given
        to :meth:`analyse`, decided there once); ``None`` when the run has none or no paths
        were given (outside a run: see :meth:`root_of`)."""
        return self._root

    def root_of(self, path: str | os.PathLike[str]) -> Path | None:
        """The root that bounds the searches around ``path``: the run's :attr:`root` when
        ``path`` lies at or below it; else (outside a run, where no paths were given: the
        codemod and Fixit adapters, an ``analyse()`` called directly; or a path outside the
        run's root) :func:`ppo_migrate.project.root.project_root` of ``path`` alone, decided
        once per folder for this snapshot. The one rule either way: the git top level, else
        the nearest project marker.

        Args:
            path: a file or directory, absolute or relative to the working directory.

        Returns:
            A directory, or ``None`` when neither git nor a project marker holds ``path``.
        """
        key = absolute(path)  # each spelling worked out once (``abspath`` is Python code)
        root = self._root
        if root is not None:
            top = os.fspath(root)
            if key == top or key.startswith(top.rstrip(os.sep) + os.sep):
                return root
        folder = key if self.fs.is_dir(key) else os.path.dirname(key)  # stat-ed once a run
        roots = self.memo("ppo_migrate.project.root")
        if folder not in roots:
            roots[folder] = self._decide((folder,))
        return roots[folder]

    def _decide(self, paths: tuple[str, ...]) -> Path | None:
        from ppo_migrate.project import root as _root  # the module's attribute: tests count it

        self.root_decisions += 1
        return _root.project_root(paths)

    @staticmethod
    def key(path: str | os.PathLike[str]) -> str:
        """The absolute path ``path`` is filed under (:func:`ppo_migrate.project.filesystem.absolute`)."""
        return absolute(path)

    def counts_of(self, path: str | os.PathLike[str]) -> Counts:
        """The :class:`Counts` of ``path`` (zeros when the snapshot never saw it)."""
        key = self.key(path)
        found = self.counts.get(key)
        if found is None:
            found = self.counts[key] = Counts()
        return found

    # -- reading ----------------------------------------------------------------------
    def source(self, path: str | os.PathLike[str]) -> SourceFile:
        """The file's :class:`SourceFile`, read now if the snapshot does not hold it.

        Raises:
            UnreadableFile: as :func:`ppo_migrate.files.read_source` (each time; the
                failed read counts once).
            ValueError: a NUL in the path (nothing read).
        """
        key = self.key(path)
        found = self._files.get(key)
        if found is None and key in self._overlay:  # dropped by a budget: never read again
            found = self._files[key] = SourceFile(self, key, self._overlay[key][1], rewritten=True)
        if found is None:
            self.counts_of(key).reads += 1
            try:
                found = SourceFile(self, key, read_source(path))  # type: ignore[arg-type]
            except UnreadableFile as exc:
                found = _Failed(exc)
            self._files[key] = found
        elif key in self._optional:  # analysed now: kept for the run
            self._optional_bytes -= self._optional.pop(key)
        if isinstance(found, _Failed):
            raise _again(found.error)
        return found

    def read_bytes(self, path: str | os.PathLike[str], *, keep: bool = False) -> bytes:
        """The file's bytes. Read now, they are kept for the run with ``keep`` (as
        :meth:`source` keeps a file), else within :data:`OPTIONAL_BYTES`
        (:meth:`optional`): a search of every file of the run reads through here.

        Raises:
            OSError: the file cannot be read (the ``OSError`` the system gave, as ``open``
                raises it), or is not a regular file (a FIFO is never opened):
                ``IsADirectoryError`` for a directory, else ``read_source``'s reason.
            ValueError: a NUL in the path.
        """
        key = absolute(path)
        found = self._files.get(key)
        if type(found) is SourceFile:  # held: a repeated ask (~10 a file a run) is two look-ups
            return found.data
        if found is None and key in self._overlay:
            return self._overlay[key][1].data
        if found is None:
            try:
                data = self.source(path).data
            except UnreadableFile:
                found = self._files[key]
            else:
                if not keep:
                    self.optional(key)
                return data
        if isinstance(found, _Failed):
            raise _again(found.os_error) from None
        return found.data

    def read_text(
        self, path: str | os.PathLike[str], encoding: str | None = None, errors: str = "strict"
    ) -> str:
        """The text ``open(path, encoding=encoding, errors=errors).read()`` gives (universal
        newlines: ``\\r\\n`` and ``\\r`` read as ``\\n``), from the snapshot's bytes.

        Args:
            path: the file.
            encoding: a codec; ``None`` (the default, every dependency file's reader): by the
                file's byte-order mark, else UTF-8, the mark dropped
                (:func:`ppo_migrate.files.decode_text`, as pip reads a requirements file:
                trial 26d, a UTF-16 ``requirements.txt`` or a UTF-8 BOM before ``verl==0.8.0``).
            errors: the codec's error handler.

        Raises:
            OSError: as :meth:`read_bytes`. UnicodeDecodeError: as ``open`` would.
        """
        data = self.read_bytes(path)
        text = decode_text(data, errors) if encoding is None else data.decode(encoding, errors)
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        return text

    def memo(self, kind: Hashable) -> dict:
        """A dictionary kept for the run under ``kind`` (its owner's name, say): a higher
        layer's answers to questions about the file system that the run never changes the
        answer to (which folders hold an ``__init__.py``: a run rewrites files, it makes or
        removes none), asked once a run instead of once a file. Forked workers go on with a
        copy."""
        found = self._memos.get(kind)
        if found is None:
            found = self._memos[kind] = {}
        return found

    def holds(self, path: str | os.PathLike[str]) -> bool:
        """Whether the snapshot holds ``path``'s bytes (or its read failure)."""
        key = self.key(path)
        return key in self._files or key in self._overlay

    def stamp(self, path: str | os.PathLike[str]) -> tuple[int, int]:
        """``(st_mtime_ns, st_size)`` of ``path`` as the run sees it: an overlaid file's
        overlay stamp (see the module docstring), else the ``stat`` a held file's bytes were
        read under (:attr:`SourceFile.stat`, the one the per-file phase stamps its records
        with: the caller phase's check of 600 records on benchmark item 10 was 600 system
        calls), else ``os.stat``'s (links followed), asked once a run through :attr:`fs`
        (:meth:`ppo_migrate.project.filesystem.FileSystem.stat`).

        Raises:
            OSError: the path cannot be stat-ed. ValueError: a NUL in the path.
        """
        key = absolute(path)
        staged = self._overlay.get(key)
        if staged is not None:
            st = staged[1].stat
        else:
            held = self._files.get(key)
            st = held.stat if type(held) is SourceFile else self.fs.stat(path)
        return (st.st_mtime_ns, st.st_size)

    # -- the run's own changes --------------------------------------------------------
    def written(self, path: str | os.PathLike[str], data: bytes) -> SourceFile | None:
        """Record that the run replaced ``path`` with ``data``: later askers get those
        bytes (with the file's new ``stat``), not a read. ``None`` (and the file dropped
        from the snapshot) when the file cannot be stat-ed now."""
        key = self.key(path)
        self.counts_of(key).writes += 1
        self._drop(key)
        self.fs.forget(key)
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            return None
        from pathlib import Path

        found = SourceFile(self, key, _ReadFile(Path(path), data, st), rewritten=True)
        self._files[key] = found
        return found

    def overlay(self, path: str | os.PathLike[str], data: bytes) -> SourceFile:
        """Record ``data`` as ``path``'s bytes for the rest of the run, writing nothing:
        every read through the snapshot sees them (as a text the run made: its ``ast``
        parse counts in :attr:`Counts.rewritten_parses`), :meth:`stamp` gives them a stamp
        of their own, and :meth:`overlaid` keeps the bytes they replace.

        Args:
            path: a file the run read (it is read now if the snapshot does not hold it).
            data: its new bytes.

        Returns:
            The overlaid :class:`SourceFile`.

        Raises:
            UnreadableFile: ``path`` was never overlaid and cannot be read (its bytes
                before the overlay are needed for the diff).
        """
        key = self.key(path)
        staged = self._overlay.get(key)
        if staged is not None:
            original, before = staged[0], staged[1]
        else:
            before = self.source(path)
            original = before.data
        self.counts_of(key).writes += 1
        base = before.stat
        fields = tuple(base)
        st = os.stat_result(
            (*fields[:6], len(data), *fields[7:]),
            {
                "st_atime_ns": base.st_atime_ns,
                "st_mtime_ns": -next(_OVERLAY_STAMPS),
                "st_ctime_ns": base.st_ctime_ns,
            },
        )
        read = _ReadFile(before.path, data, st)
        self._drop(key)
        self.fs.forget(key)
        self._overlay[key] = (original, read)
        found = self._files[key] = SourceFile(self, key, read, rewritten=True)
        return found

    def overlaid(self) -> dict[str, tuple[bytes, bytes]]:
        """Every overlaid path (absolute, in the order first overlaid) -> ``(its bytes before
        the overlay, its overlaid bytes)``; a path overlaid back to its first bytes is kept."""
        return {key: (original, read.data) for key, (original, read) in self._overlay.items()}

    def worker_state(self) -> tuple[bool, dict[str, tuple[bytes, _ReadFile]]] | None:
        """What a spawned worker process needs of this snapshot (picklable): ``None`` when
        neither staging nor overlaid, else ``(staging, overlay)`` for :func:`enter_worker`."""
        if not self.staging and not self._overlay:
            return None
        return self.staging, dict(self._overlay)

    def forget(self, path: str | os.PathLike[str]) -> None:
        """Drop ``path`` (another process replaced it): its next asker reads it (an
        overlaid path: its overlaid bytes, which stay)."""
        self._drop(self.key(path))
        self.fs.forget(path)

    def optional(self, path: str | os.PathLike[str]) -> None:
        """``path`` was read for a search (the prefilter, which turned it away; a search of
        every file for callers or test doubles): its bytes are kept only while those of all
        such files stay within :data:`OPTIONAL_BYTES` (and until it is analysed:
        :meth:`source`)."""
        key = self.key(path)
        found = self._files.get(key)
        if not isinstance(found, SourceFile) or key in self._optional:
            return
        size = len(found.data)
        if self._optional_bytes + size > OPTIONAL_BYTES:
            self._drop(key)
            return
        self._optional[key] = size
        self._optional_bytes += size

    def release_trees(self) -> None:
        """Drop every tree held (the bytes stay)."""
        for key in list(self._trees):
            found = self._files.get(key)
            if isinstance(found, SourceFile):
                found.release()
        self._trees.clear()
        self._tree_chars = 0
        if self._overflow is not None:
            self._overflow.release()
            self._overflow = None

    # -- bookkeeping ------------------------------------------------------------------
    def _drop(self, key: str) -> None:
        found = self._files.pop(key, None)
        if isinstance(found, SourceFile):
            found.release()
        self._optional_bytes -= self._optional.pop(key, 0)
        self._tree_chars -= self._trees.pop(key, 0)
        if self._overflow is not None and self._overflow.key == key:
            self._overflow = None

    def _parsed(self, source: SourceFile) -> None:
        """``source`` is about to be compiled: count it."""
        counts = self.counts_of(source.key)
        if source.rewritten:
            counts.rewritten_parses += 1
        else:
            counts.ast_parses += 1

    def _used(self, source: SourceFile) -> None:
        """``source``'s tree was asked for: kept for the run while the trees kept stay within
        :data:`TREE_CHARS` (the first ones: a run's phases go over the files in the same
        order, where the least recently used would always be the next one asked for);
        beyond, kept only until another file's tree is made."""
        key = source.key
        if key in self._trees or source is self._overflow:
            return
        if self._files.get(key) is not source:
            return  # dropped or replaced meanwhile: nothing to account for
        size = len(source.data)
        if self.keep_trees and self._tree_chars + size <= TREE_CHARS:
            self._trees[key] = size
            self._tree_chars += size
            return
        previous, self._overflow = self._overflow, source
        if previous is not None and previous.key not in self._trees:
            previous.release()


_CURRENT: contextvars.ContextVar[Snapshot | None] = contextvars.ContextVar(
    "ppo_migrate_snapshot", default=None
)
#: Called with each snapshot :func:`run_scope` makes (tests: :func:`recorded`).
_observers: list[Callable[[Snapshot], None]] = []


def current() -> Snapshot:
    """The run's snapshot; outside a run, a fresh one (each call: nothing is kept)."""
    found = _CURRENT.get()
    return found if found is not None else Snapshot()


def active() -> Snapshot | None:
    """The run's snapshot, or ``None`` outside a run."""
    return _CURRENT.get()


@contextlib.contextmanager
def run_scope() -> Iterator[Snapshot]:
    """The current snapshot while the block runs: the one already current (a run inside
    a command), else a new one, cleared when the block ends."""
    found = _CURRENT.get()
    if found is not None:
        yield found
        return
    snapshot = Snapshot()
    for observe in _observers:
        observe(snapshot)
    token = _CURRENT.set(snapshot)
    try:
        with run_working_directory():  # the run's: it changes directory nowhere
            yield snapshot
    finally:
        _CURRENT.reset(token)


@contextlib.contextmanager
def staged(snapshot: Snapshot) -> Iterator[Snapshot]:
    """``snapshot`` staging while the block runs (:attr:`Snapshot.staging`): the run's
    replacements of files go into its overlay, nothing is written (a preview)."""
    before, snapshot.staging = snapshot.staging, True
    try:
        yield snapshot
    finally:
        snapshot.staging = before


def enter_worker(state: tuple[bool, dict] | None) -> None:
    """In a spawned worker process (which inherits no snapshot): make the run's snapshot
    current for the worker's life, with the parent's overlay and staging
    (:meth:`Snapshot.worker_state`); ``None``: nothing to carry, nothing done. A forked
    worker has the parent's snapshot already and does not call this."""
    if state is None or _CURRENT.get() is not None:
        return
    snapshot = Snapshot(keep_trees=False)
    snapshot.staging, snapshot._overlay = state[0], dict(state[1])
    _CURRENT.set(snapshot)


def scoped(func: Callable) -> Callable:
    """``func`` run inside :func:`run_scope` (the commands' decorator)."""
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with run_scope():
            return func(*args, **kwargs)

    return wrapper


@contextlib.contextmanager
def recorded() -> Iterator[list[Snapshot]]:
    """Collect every snapshot :func:`run_scope` makes while the block runs (for tests)."""
    made: list[Snapshot] = []
    _observers.append(made.append)
    try:
        yield made
    finally:
        _observers.remove(made.append)


__all__ = [
    "Counts", "OPTIONAL_BYTES", "Snapshot", "SourceFile", "TREE_CHARS", "active", "current",
    "enter_worker", "recorded", "run_scope", "scoped", "staged",
]
