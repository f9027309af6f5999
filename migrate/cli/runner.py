"""Per-file pipeline: read, prefilter, parse, analyse, rewrite; over a process pool.

Most files stop at the byte prefilter (:mod:`ppo_migrate.prefilter`): a file whose
bytes contain none of the targets' last names cannot refer to a target (every static
reference to a function names it), so it is never decoded or parsed and LibCST is never
imported for it. Candidates go through :func:`process_file`: the analysis core
(:mod:`ppo_migrate.rules`, Python's own ``ast``, a few milliseconds a file)
decides them and :mod:`ppo_migrate.edits.text_edits` splices the fixes into the original
text, in this process, in a pool of worker processes (``apply``: :func:`run`), in forked
children started before the test doubles' look-out (``check`` and ``apply --diff`` of files
the pool would pay for: :func:`_run_overlapped`, :mod:`ppo_migrate.cli.forked`), or, for
``check`` of a directory, as a forked scout sends them (:func:`run_scouted`,
:mod:`ppo_migrate.cli.scout`). LibCST is imported only for ``apply --use-ppo-runtime``.
Results come back in path order whatever the worker count.
"""

import contextlib
import gc
import os
import signal
import sys
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from ppo_migrate.diagnostics import NOT_REWRITTEN, Diagnostic
from ppo_migrate.files import (
    FileChanged,
    SourceFile,
    UnreadableFile,
    atomic_write,
    decode_source,
    encode_source,
)
from ppo_migrate.cli.modes import (
    FORCE_POOL_ENV,
    Mode,
    collector_paused,
    default_jobs,
    fewer_young_collections,
)
from ppo_migrate.prefilter import (  # noqa: F401 - prefilter, is_candidate: this module's API too
    Words,
    _prefilter,
    is_candidate,
    iter_candidates,
    prefilter,
    read_bytes as _read_bytes,
    spells_otherwise,
)
from ppo_migrate.project import references
from ppo_migrate.project.discovery import is_entry_point_file, is_notebook, is_yaml_file, python_files
from ppo_migrate.cli.scout import spells_elsewhere
from ppo_migrate.project.snapshot import SourceFile as SnapshotFile
from ppo_migrate.project.snapshot import active, current, enter_worker, run_scope
from ppo_migrate.settings_model import Settings

# the loader installs the model's reader of a folder's own settings when imported
# (:func:`ppo_migrate.settings_model.directory_settings`); imported here so that every
# worker has it, forked or spawned (the judging modules never import the loader)
import ppo_migrate.cli.settings  # noqa: E402,F401,I001

# The estimated CPU time of one candidate's analysis (:func:`candidate_work`), in
# microseconds: a fixed part, a part per byte and a part per time its bytes spell a
# target's name (each a reference to resolve, most a call to judge). Fitted to serial runs
# of benchmarks/run.py's trees on the 2-core machine of benchmarks/README.md (issue 26):
# 600 chain modules of 224 bytes naming the function twice, 0.6 ms a file; 135 trainer
# modules of 2.2 kB naming it 5 times, 1.9 ms; 200 modules of 2.3 kB naming it 16 times,
# 4.9 ms; 30 real-shaped modules of 9 kB naming it 3 times, 5.5 ms.
WORK_PER_FILE_US = 300
WORK_PER_KB_US = 300
WORK_PER_NAME_US = 250
# What the pool costs (:func:`use_pool`): per candidate, handing it to a worker and its
# outcome back and the worker's own look-ups the parent had made already (~1 ms a file on
# the 600-file chain, whose pool ran 1.8x the serial run's CPU time); once per worker,
# starting it. A pool whose candidates each take less than the first saves nothing.
POOL_COST_PER_FILE_US = 1000
POOL_START_US = 100_000
#: Set to ``1`` to take the per-file phase of ``check`` and ``apply --diff`` through the
#: overlap (:func:`_run_overlapped`) whatever the work, as long as ``jobs > 1`` and there
#: are two candidates or more: for the tests of its own paths on small trees.
FORCE_OVERLAP_ENV = "PPO_MIGRATE_TEST_FORCE_OVERLAP"
# With the pool forced (:data:`FORCE_POOL_ENV`), below this many candidate files no pool.
POOL_MIN_CANDIDATES = 8
# The cycle collector's youngest generation during the per-file phase, serial or in a
# worker: collected every this many allocations (:func:`_run_serial`).
YOUNG_THRESHOLD = 20_000
# Tasks handed to each worker ahead of time: one running, one queued.
_IN_FLIGHT_PER_WORKER = 2
# Files in one task of the pool (:func:`_chunk`): at most this many, and few enough that each
# worker still gets about this many tasks of what is left, so that the last ones are single
# files. Each task costs the parent ~0.5 ms of its threads' CPU (the executor's queues,
# pickles and wake-ups), which competes with the workers for the cores: 200 one-file tasks
# of benchmark item 12's files cost ~0.1 s of it (44 tasks of up to 8 files ~0.03 s; 24 of
# up to 16, each worker two tasks' worth ahead until the last single files, ~0.015 s).
_CHUNK_FILES = 16
_CHUNKS_AHEAD = 2
# How long stopped workers get to finish a write before they are killed.
_STOP_GRACE_SECONDS = 5.0
# How often the parent looks at a stop request while it waits for the workers.
_STOP_POLL_SECONDS = 0.2


class FileOutcome(NamedTuple):
    """What happened to one file.

    Attributes:
        path: the display path.
        candidate: the file's bytes named a target (it was parsed).
        diagnostics: remaining findings, sorted.
        fixed: calls rewritten (written with APPLY; would be, with DIFF).
        diff: the unified diff, as bytes in the file's encoding (DIFF mode), else ``None``.
        written: the file was replaced on disk.
        noqa_added: ``# noqa`` comments written (ADD_NOQA mode).
        internal_error: a crash of ppo-migrate itself on this file (exit code 2).
        new_data: the rewritten bytes (FIX_STDOUT mode; the input when unchanged).
        imports: imports moved to ``ppo_runtime`` (``apply --use-ppo-runtime``).
        index: the file's :class:`ppo_migrate.rules.callers.FileIndex` (check, apply, diff):
            what the caller phase needs of it, from the same parse, so that the file is
            never parsed again; ``None`` when the file was not analysed, was rewritten
            or has no PPO002 entry point (the caller phase indexes such a file itself
            when it needs it).
        pending: apply and diff only: the rewrite is held back (not written, its diff not
            yet final), because safe fixes in it rest on parameters whose callers in other
            files are judged only after the per-file phase (:func:`run` finishes it then).
        origins: those parameters (:class:`ppo_migrate.diagnostics.CallerOrigin`).
        source: with ``pending`` in apply: the file as read (the write checks it is unchanged);
            ``new_data`` then holds the rewritten bytes.
        kept_import: ``apply --use-ppo-runtime`` left the file's imports on verl: the
            reason (a replacement of the function reaches the file: ``FileResult.kept``).
    """

    path: str
    candidate: bool = False
    diagnostics: tuple[Diagnostic, ...] = ()
    fixed: int = 0
    diff: bytes | None = None
    written: bool = False
    noqa_added: int = 0
    internal_error: str | None = None
    new_data: bytes | None = None
    imports: int = 0
    index: object | None = None
    pending: bool = False
    origins: tuple = ()
    source: SourceFile | None = None
    kept_import: str | None = None


class RunResult:
    """All outcomes of a run, in path order.

    Attributes:
        outcomes: one per processed file.
        interrupted: the run was stopped by Ctrl-C.

    A plain class, not a dataclass: one ``@dataclass`` costs ~1 ms at import, a share of
    every run's start (issue 13, item 6).
    """

    def __init__(self, outcomes: list[FileOutcome] | None = None, interrupted: bool = False) -> None:
        self.outcomes: list[FileOutcome] = [] if outcomes is None else outcomes
        self.interrupted = interrupted

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Every remaining diagnostic, sorted by path, line, column."""
        out = [d for o in self.outcomes for d in o.diagnostics]
        out.sort(key=Diagnostic.sort_key)
        return out

    @property
    def indexes(self) -> dict[str, object]:
        """Display path -> :class:`ppo_migrate.rules.callers.FileIndex` of every file analysed
        and left as read (for :func:`ppo_migrate.rules.callers.follow_callers`)."""
        return {o.path: o.index for o in self.outcomes if o.index is not None}

    @property
    def internal_errors(self) -> list[str]:
        """One line per file on which ppo-migrate itself crashed."""
        return [f"{o.path}: {o.internal_error}" for o in self.outcomes if o.internal_error]


def _file_diag(path: str, code: str, message: str, line: int = 1, column: int = 1) -> Diagnostic:
    return Diagnostic(path, line, column, line, column, code, message)


def _line_of_offset(data: bytes, offset: int) -> tuple[int, int]:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


def process_file(
    path: str, settings: Settings, mode: Mode
) -> FileOutcome:
    """Run the whole pipeline on one file; never raises for a bad file.

    Args:
        path: the file's display path (relative or absolute, as discovered).
        settings: the run's settings.
        mode: what to do with the file.

    Returns:
        A :class:`FileOutcome`. An unreadable file is a PPO901 finding, an
        unparsable candidate PPO902, a file changed during the run PPO904;
        a crash of the analysis itself is an ``internal_error``.
    """
    try:
        source = current().source(path)  # read once a run (issue 26)
    except UnreadableFile as exc:
        return FileOutcome(path, diagnostics=(_file_diag(path, "PPO901", str(exc)),))
    return process_data(
        path, source.data, settings, mode, source=source
    )


def process_data(
    path: str,
    data: bytes,
    settings: Settings,
    mode: Mode,
    *,
    source: SourceFile | None = None,
) -> FileOutcome:
    """Run the pipeline on bytes already read (a file, or standard input).

    Args:
        path: the display path; it also decides the module's package.
        data: the source bytes.
        settings: the run's settings.
        mode: what to do; APPLY and ADD_NOQA need ``source`` to write back.
        source: the file read, for the atomic write's change check; a
            :class:`ppo_migrate.project.snapshot.SourceFile` (the run's snapshot) gives its
            text and its parse too, each made once a run.

    Returns:
        A :class:`FileOutcome` (see :func:`process_file`).
    """
    names = [n.encode() for n in settings.target_names]
    receivers = [n.encode() for n in settings.receiver_words]
    if not is_candidate(data, names, path, spells_elsewhere, receivers):  # a pyproject.toml's escapes too (trial 26h)
        return FileOutcome(path, new_data=data if mode is Mode.FIX_STDOUT else None)
    try:
        text, encoding, bom = source.decoded() if isinstance(source, SnapshotFile) else decode_source(data)
    except UnicodeDecodeError as exc:
        line, col = _line_of_offset(data, exc.start)
        return FileOutcome(
            path,
            True,
            (
                _file_diag(
                    path, "PPO901", f"cannot decode: {exc.reason} ({exc.encoding})", line, col
                ),
            ),
        )
    except (SyntaxError, LookupError) as exc:
        msg = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        return FileOutcome(path, True, (_file_diag(path, "PPO901", f"cannot decode: {msg}"),))

    if is_yaml_file(path):  # a Hydra config: PPO006 only, never rewritten, never parsed as Python
        return _yaml_outcome(path, data, text, encoding, bom, settings, mode, source)
    if is_entry_point_file(path):  # pyproject.toml, setup.cfg: PPO006 of entry points only
        return _entry_points_outcome(path, data, text, settings, mode, source)
    if is_notebook(path):  # its code cells judged as one module, never rewritten
        return _notebook_outcome(path, data, text, settings, mode)
    stamp = None
    if source is not None and mode in (Mode.CHECK, Mode.APPLY, Mode.DIFF):
        stamp = (source.stat.st_mtime_ns, source.stat.st_size)
    result = _analyse(path, text, settings, mode, stamp, source)
    if isinstance(result, FileOutcome):
        return result
    diagnostics = result.diagnostics
    new_text, fixed, imports = result.new_text, result.fixed, result.imports
    # the record describes the text as read: kept unless that text is replaced on disk
    index = result.index if new_text is None or mode is not Mode.APPLY else None

    if mode is Mode.FIX_STDOUT:
        new = data if new_text is None else encode_source(new_text, encoding, bom)
        return FileOutcome(path, True, diagnostics, fixed, new_data=new, kept_import=result.kept)
    if mode is Mode.DIFF and new_text is not None:
        # the diff is of the file's bytes: its BOM and its encoding (a latin-1 file's
        # diff in UTF-8 would not apply), lines split at b"\n" as patch splits them
        from ppo_migrate.edits.unified_diff import unified_diff  # only --diff needs it

        diff = unified_diff(data, encode_source(new_text, encoding, bom), path)
        return FileOutcome(
            path, True, diagnostics, fixed, diff=diff, imports=imports, index=index,
            pending=bool(result.origins), origins=result.origins, kept_import=result.kept,
        )
    if mode is Mode.APPLY and new_text is not None and source is not None and result.origins:
        # held back until the callers in other files are judged (:func:`run`)
        try:
            held = encode_source(new_text, encoding, bom)
        except UnicodeEncodeError:
            held = None  # processed again then, and the write reports it
        return FileOutcome(
            path, True, diagnostics, fixed, new_data=held, imports=imports,
            pending=True, origins=result.origins, source=source, kept_import=result.kept,
        )
    if mode is Mode.APPLY and new_text is not None and source is not None:
        new = new_text
        written = FileOutcome(
            path, True, diagnostics, fixed, written=True, imports=imports, kept_import=result.kept
        )
        failed = _write_back(
            path, lambda: encode_source(new, encoding, bom), source, diagnostics, written
        )
        if failed is not None:
            return failed
        return written
    if mode is Mode.ADD_NOQA and diagnostics and source is not None:
        from ppo_migrate.edits.noqa import add_noqa

        # findings no comment could cover (a backslash continuation, a multi-line
        # string) stay findings
        new_text, added, uncovered = add_noqa(text, diagnostics)
        if added:
            noqa_text = new_text
            failed = _write_back(
                path, lambda: encode_source(noqa_text, encoding, bom), source, diagnostics
            )
            if failed is not None:
                return failed
        return FileOutcome(path, True, uncovered, written=bool(added), noqa_added=added)
    return FileOutcome(path, True, diagnostics, index=index, kept_import=result.kept)


def _yaml_outcome(
    path: str, data: bytes, text: str, encoding: str, bom: bool, settings: Settings, mode: Mode,
    source: SourceFile | None,
) -> FileOutcome:
    """A YAML file's outcome: the PPO006 of each Hydra ``_target_`` naming the runtime
    function (:func:`ppo_migrate.rules.hydra_targets.yaml_references`, with the run's
    targets, re-exports included). It has no fix: ``apply`` and ``--diff`` never write or
    show it; ``--add-noqa`` appends `` # noqa: PPO006`` where
    :func:`ppo_migrate.edits.noqa.add_yaml_noqa` can do so without changing what the file
    means, and leaves the other findings as they are."""
    from ppo_migrate.rules.hydra_targets import yaml_references

    diagnostics = tuple(yaml_references(text, path, settings.targets, settings.rule_enabled))
    if mode is Mode.FIX_STDOUT:
        return FileOutcome(path, True, diagnostics, new_data=data)
    if mode is Mode.ADD_NOQA and diagnostics and source is not None:
        from ppo_migrate.edits.noqa import add_yaml_noqa

        new_text, added, uncovered = add_yaml_noqa(text, diagnostics)
        if added:
            failed = _write_back(
                path, lambda: encode_source(new_text, encoding, bom), source, diagnostics
            )
            if failed is not None:
                return failed
        return FileOutcome(path, True, uncovered, written=bool(added), noqa_added=added)
    return FileOutcome(path, True, diagnostics)


def _entry_points_outcome(
    path: str, data: bytes, text: str, settings: Settings, mode: Mode, source: SourceFile | None,
) -> FileOutcome:
    """A packaging file's outcome (``pyproject.toml``, ``setup.cfg``; trial 26f): the PPO006
    of each entry point it declares naming the runtime function
    (:func:`ppo_migrate.rules.entry_point_targets.entry_point_references`, with the run's
    targets, re-exports included), its declarations read from the run's snapshot
    (:func:`ppo_migrate.project.entry_points.declared_entry_points`). No fix: no mode writes
    the file (``--add-noqa`` neither: a comment after a ``setup.cfg`` value is part of it)."""
    from ppo_migrate.project.entry_points import declared_entry_points, entry_points_of
    from ppo_migrate.rules.entry_point_targets import entry_point_references

    if isinstance(source, SnapshotFile):
        entries = declared_entry_points(source)
    else:
        entries = tuple(entry_points_of(os.path.basename(path), text))
    diagnostics = tuple(entry_point_references(entries, path, settings.targets, settings.rule_enabled, text))
    if os.path.basename(path) == "pyproject.toml" and "-c" in text:
        diagnostics = tuple(sorted((*diagnostics, *_command_findings(path, text, settings)), key=Diagnostic.sort_key))
    if mode is Mode.FIX_STDOUT:
        return FileOutcome(path, True, diagnostics, new_data=data)
    return FileOutcome(path, True, diagnostics)


def _command_findings(path: str, text: str, settings: Settings) -> list[Diagnostic]:
    """The findings of each ``python -c`` string of a ``pyproject.toml`` that spells a
    target's name (a task runner's command: pdm's ``[tool.pdm.scripts]`` ``cmd``, poe's
    ``[tool.poe.tasks]`` ``cmd``, hatch's ``[tool.hatch.envs.*.scripts]``; earlier trials'
    MISSED rows), each string judged by the same analysis as a ``.py`` file, as a
    notebook's cells are (:func:`_notebook_outcome`), its findings moved to the string's
    place in the file. Report only: no fix is offered (a shell string, quoted as the shell
    reads it, is not rewritten) and the message says so (:data:`COMMAND_NOT_REWRITTEN`).
    A string that does not parse as Python is left alone (the shell may fill it in)."""
    from ppo_migrate.diagnostics import COMMAND_NOT_REWRITTEN
    from ppo_migrate.rules.embedded_python import python_c_strings

    out: list[Diagnostic] = []
    for code, start, _ in python_c_strings(text, tuple(settings.target_names)):
        result = _analyse(path, code, settings, Mode.CHECK)
        if isinstance(result, FileOutcome):
            continue  # not Python as written (a shell variable in it): not judged
        first = text.count("\n", 0, start) + 1
        line_start = text.rfind("\n", 0, start) + 1
        inner = start + 1 if text[start:start + 1] in ("'", '"') else start
        head = code.split("\n", 1)[0]
        verbatim = text.startswith(head, inner)
        shift = inner - line_start  # the code's first column in the file, less one

        def moved(row: int, column: int) -> tuple[int, int]:
            if row != 1:
                return first + row - 1, column
            return first, shift + (column if verbatim else 1)

        for d in result.diagnostics:
            line, column = moved(d.line, d.column)
            end_line, end_column = moved(d.end_line, d.end_column)
            out.append(d._replace(
                line=line, column=column, end_line=end_line, end_column=end_column, fix=None,
                message=f"{d.message} ({COMMAND_NOT_REWRITTEN})", related=(), reason=None,
            ))
    return out


def _notebook_outcome(path: str, data: bytes, text: str, settings: Settings, mode: Mode) -> FileOutcome:
    """A notebook's outcome (trial 26e, M4): its code cells joined into one module
    (:func:`ppo_migrate.project.notebooks.notebook_module`), judged by the same analysis as
    a ``.py`` file, each finding moved to its cell and its line there
    (:func:`_in_cell`). Report only: no fix is offered and no mode writes the file (``apply``,
    ``--diff``, ``--add-noqa`` and standard input leave its bytes as they are), since
    rewriting a notebook would have to keep every byte of its JSON but the cell's source.
    A notebook that cannot be read is one PPO902 naming the file (never a crash)."""
    from ppo_migrate.project.notebooks import NotebookError, notebook_module

    same = data if mode is Mode.FIX_STDOUT else None
    try:
        notebook = notebook_module(text)
    except NotebookError as exc:
        diag = _file_diag(path, "PPO902", f"not a readable notebook: {exc.message}", exc.line, exc.column)
        return FileOutcome(path, True, (diag,), new_data=same)
    if not notebook.text:
        return FileOutcome(path, True, new_data=same)
    # judged as a check: the text is not the file's, so no snapshot parse, stamp or record
    result = _analyse(path, notebook.text, settings, Mode.CHECK)
    if isinstance(result, FileOutcome):  # a cell that does not parse (PPO902), or a crash
        moved = tuple(_in_cell(d, notebook) for d in result.diagnostics)
        return result._replace(diagnostics=moved, new_data=same)
    moved = sorted((_in_cell(d, notebook) for d in result.diagnostics), key=Diagnostic.sort_key)
    return FileOutcome(path, True, tuple(moved), new_data=same)


def _in_cell(d: Diagnostic, notebook) -> Diagnostic:
    """``d`` (a finding of a notebook's module text) at its cell and its lines in the cell
    (ruff's ``train.ipynb:cell 2:3:5``); a fix is dropped and the message says
    :data:`NOT_REWRITTEN` (with a safe fix, its reason goes too: it says why the fix would be
    safe, and none is offered); a related place or a reason's place in the same notebook is
    named by its line in its cell, the message saying which cell."""
    cell, line = notebook.position(d.line)
    end_cell, end_line = notebook.position(d.end_line)
    end_column = d.end_column
    if end_cell != cell:  # past the cell's end (a range never spans cells): end at its start line
        end_line, end_column = line, max(d.column + 1, 1)

    def place(r):
        if r.path != d.path or not r.line:
            return r
        at, row = notebook.position(r.line)
        return r._replace(line=row, message=f"(cell {at}) {r.message}")

    message = d.message if d.fix is None else f"{d.message} ({NOT_REWRITTEN})"
    reason = d.reason
    if d.fix is not None and d.fix.applicability == "safe":
        reason = None  # why the fix would be safe (``trusted-by-name``): no fix is offered
    if reason is not None and reason.lines:
        reason = reason._replace(lines=tuple(place(r) for r in reason.lines))
    return d._replace(
        line=line, end_line=end_line, end_column=end_column, cell=cell, fix=None, message=message,
        related=tuple(place(r) for r in d.related), reason=reason,
    )


# Told of each file the moment it has been replaced, while Ctrl-C (or a stopped
# worker's SIGTERM) is still held back: set by :func:`run` in this process and by
# :func:`_worker_init` in pool workers, so that an interrupted run still reports
# every file it wrote.
_on_written: Callable[[FileOutcome], None] | None = None


def _write_back(
    path: str,
    text: Callable[[], bytes],
    source: SourceFile,
    diagnostics: Sequence[Diagnostic],
    written: FileOutcome | None = None,
) -> FileOutcome | None:
    """Replace the file atomically with ``text()``, Ctrl-C held back meanwhile.

    ``written`` (the outcome of a rewrite) is handed to ``_on_written`` once the
    file is replaced, before a held-back signal can stop the process.

    In a preview (the run's snapshot staging: :func:`ppo_migrate.project.snapshot.staged`)
    the bytes go into the snapshot's overlay instead, and nothing is written.

    Returns:
        ``None`` when written; ``written`` with ``new_data`` (the bytes) when staged in the
        overlay (a pool worker's parent overlays them in its own snapshot); otherwise the
        file's outcome: PPO904 when it changed on disk since it was read (it is left as
        it is), PPO901 when it cannot be written or the new text cannot be encoded in the
        file's encoding.
    """
    try:
        with _signals_deferred():
            data = text()
            snapshot = current()
            if snapshot.staging:  # a preview: into the overlay, which later phases read
                snapshot.overlay(path, data)
                return None if written is None else written._replace(new_data=data)
            atomic_write(Path(path), data, expected=source)
            snapshot.written(path, data)  # later phases read these bytes, not the disk
            if written is not None and _on_written is not None:
                _on_written(written)
    except FileChanged as exc:
        diag = _file_diag(path, "PPO904", f"not rewritten: {exc}")
        return FileOutcome(path, True, (diag, *diagnostics))
    except (OSError, UnicodeEncodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        diag = _file_diag(path, "PPO901", f"cannot write: {reason}")
        return FileOutcome(path, True, (diag, *diagnostics))
    return None


def _analyse(
    path: str,
    text: str,
    settings: Settings,
    mode: Mode,
    stamp: tuple[int, int] | None = None,
    source: SourceFile | None = None,
):
    """The analysis (and, for apply/diff/stdin, the rewrite) of one decoded file
    (``source``: the snapshot's file the text is of, whose parse is used).

    Returns:
        The :class:`ppo_migrate.edits.text_edits.FileResult`, or a :class:`FileOutcome` with
        the PPO902 (or the internal error) when the text cannot be analysed.
    """
    from ppo_migrate.rules.module import SourceProblem
    from ppo_migrate.edits.text_edits import process_text

    try:
        return process_text(
            text,
            path,
            settings,
            fix=mode in (Mode.APPLY, Mode.DIFF, Mode.FIX_STDOUT),
            index_stamp=stamp,
            replaces_file=mode is Mode.APPLY,
            source=source if isinstance(source, SnapshotFile) else None,
        )
    except SourceProblem as exc:
        diag = _file_diag(path, "PPO902", exc.message, exc.line, exc.column)
        return FileOutcome(path, True, (diag,))
    except RecursionError:
        return FileOutcome(
            path, True, (_file_diag(path, "PPO902", "cannot parse: nested too deeply"),)
        )
    except Exception as exc:
        if not getattr(settings, "use_ppo_runtime", False):
            raise
        return _libcst_failure(path, text, exc)


def _libcst_failure(path: str, text: str, exc: Exception) -> FileOutcome:
    """The PPO902 for a file LibCST cannot take (``apply --use-ppo-runtime`` only)."""
    from ppo_migrate.edits.cst_calls import UnparsableSource

    if isinstance(exc, UnparsableSource):
        diag = _file_diag(path, "PPO902", f"cannot parse: {exc.message}", exc.line, exc.column)
        return FileOutcome(path, True, (diag,))
    if _is_parse_failure(exc):
        message = getattr(exc, "message", None) or _describe(exc)
        first = str(message).splitlines()[0] if message else "invalid syntax"
        line = getattr(exc, "raw_line", 1) or 1
        column = (getattr(exc, "raw_column", 0) or 0) + 1
        return FileOutcome(
            path, True, (_file_diag(path, "PPO902", f"cannot parse: {first}", line, column),)
        )
    return FileOutcome(path, True, internal_error=f"internal error: {_describe(exc)}")


def _describe(exc: BaseException) -> str:
    """``"TypeName: first line of the message"``, never raising, at most 300 characters.

    (LibCST's exceptions can hold a node whose ``repr`` nests as deep as the source:
    formatting one raises ``RecursionError``.)
    """
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001  (RecursionError included)
        text = ""
    first = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {first}"[:300]


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back while a file is being replaced.

    A Ctrl-C (or a stopped worker's SIGTERM) then lands after the atomic write
    has either replaced the file or removed its temp file, never in between, so
    an interrupted run leaves no ``.ppo-migrate-*.tmp`` behind.
    """
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not (
        threading.main_thread()
    ):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _is_parse_failure(exc: Exception) -> bool:
    """LibCST's parser raises ``Exception`` subclasses beyond ParserSyntaxError."""
    module = type(exc).__module__ or ""
    return module.startswith("libcst") or isinstance(exc, (ValueError, IndexError, TypeError))


def _process_star(
    args: tuple[str, Settings, Mode]
) -> FileOutcome:
    """:func:`process_file` that turns any crash into an ``internal_error`` outcome.

    Only Ctrl-C and exit requests propagate; everything else, including
    ``BaseException`` subclasses such as a Rust panic in LibCST's native parser,
    stays this file's problem, so one file never stops the run or the pool.
    """
    path, settings, mode = args
    try:
        return process_file(path, settings, mode)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001
        return FileOutcome(
            path, True, internal_error=f"internal error: {type(exc).__name__}: {exc}"
        )


def candidate_work(size: int, names: int = 0) -> int:
    """The estimated CPU time of analysing one candidate, in microseconds.

    Args:
        size: its size in bytes (-1 when unreadable: the fixed part alone).
        names: how many times its bytes spell a target's last name (0 when not known).

    Returns:
        ``WORK_PER_FILE_US + size * WORK_PER_KB_US / 1024 + names * WORK_PER_NAME_US``.
    """
    return WORK_PER_FILE_US + max(size, 0) * WORK_PER_KB_US // 1024 + names * WORK_PER_NAME_US


def use_pool(jobs: int, works: Sequence[int], force: bool | None = None) -> bool:
    """Whether a run of these candidates goes through the worker pool: when the time
    ``jobs`` workers save on the candidates' work is more than what the pool costs
    (:data:`POOL_COST_PER_FILE_US` a candidate, :data:`POOL_START_US` a worker), i.e.
    ``W * (n - 1) - files * POOL_COST_PER_FILE_US > n * POOL_START_US`` for ``n`` workers
    and ``W`` the sum of ``works``. Issue 26's benchmark items 9 and 10 (135 trainer
    modules, a 600-module chain) ran 1.4 and 1.8 times the CPU time of a serial run in the
    pool, and no faster; a pool pays on files of heavier analyses (200 modules of 15 calls
    each: 1.5 times faster on two cores).

    Args:
        jobs: worker processes allowed.
        works: each candidate's estimated work in microseconds (:func:`candidate_work`).
        force: use the pool for ``POOL_MIN_CANDIDATES`` or more candidates, whatever
            their work (tests of the pool only); ``None``: as :data:`FORCE_POOL_ENV` says.
    """
    if jobs <= 1 or len(works) < 2:
        return False
    if force is None:
        force = os.environ.get(FORCE_POOL_ENV, "") == "1"
    if force:
        return len(works) >= POOL_MIN_CANDIDATES
    workers = min(jobs, len(works))
    saved = sum(works) * (workers - 1) - len(works) * POOL_COST_PER_FILE_US
    return saved > workers * POOL_START_US


def _per_file_way(
    jobs: int, works: Sequence[int], mode: Mode, force_pool: bool | None = None
) -> str:
    """How a run on files (:func:`run`) takes its per-file phase: ``"overlap"``
    (:func:`_run_overlapped`), ``"pool"`` (:func:`_run_pool`) or ``"serial"``
    (:func:`_run_serial`).

    The pool when it is forced (``force_pool``, else :data:`FORCE_POOL_ENV`: its tests) and
    :func:`use_pool` agrees. Else, where :func:`use_pool` says more processes pay (benchmark
    items 3 and 12: files of heavy analyses), the overlap for ``check`` and ``apply --diff``
    (they write nothing; not while the snapshot stages a preview's rewrites): its children
    start before the test doubles' look-out, which the pool's workers wait for; ``apply``
    writes each file as soon as it is analysed and keeps the pool. Only on Linux, where
    the pool's workers are forked as well (``os.fork`` elsewhere is missing or, on macOS,
    unsafe beside some system frameworks: the pool spawns there). The overlap is also
    taken when :data:`FORCE_OVERLAP_ENV` is ``1`` and there are two candidates or more (its
    tests). Else serial.

    Args:
        jobs: processes allowed (``--jobs``).
        works: the candidates' estimated work (:func:`candidate_work`).
        mode: the run's mode.
        force_pool: as for :func:`use_pool`.
    """
    if force_pool is None:
        force_pool = os.environ.get(FORCE_POOL_ENV, "") == "1"
    if force_pool:
        return "pool" if use_pool(jobs, works, True) else "serial"
    pays = use_pool(jobs, works, False)
    if (
        jobs > 1 and len(works) >= 2 and mode in (Mode.CHECK, Mode.DIFF) and not current().staging
        and sys.platform == "linux"  # where the pool forks too (elsewhere it spawns)
        and (pays or os.environ.get(FORCE_OVERLAP_ENV, "") == "1")
    ):
        return "overlap"
    return "pool" if pays else "serial"


def _works(paths: Sequence[str], sizes: Mapping[str, int], settings: Settings) -> list[int]:
    """:func:`candidate_work` of each of ``paths`` (``sizes``: bytes, -1 unreadable), the
    target names counted in the bytes the run's snapshot holds (a file it does not hold is
    not read for this: its size alone counts)."""
    snapshot = current()
    names = [n.encode() for n in settings.target_names]
    works = []
    for p in paths:
        size = sizes.get(p, 0)
        spelled = 0
        if size > 0 and snapshot.holds(p):
            try:
                data = snapshot.read_bytes(p)
            except (OSError, ValueError):
                data = b""
            spelled = sum(data.count(n) for n in names)
        works.append(candidate_work(size, spelled))
    return works


def run(
    paths: Sequence[str],
    settings: Settings,
    mode: Mode,
    *,
    jobs: int | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    on_outcome: Callable[[FileOutcome], None] | None = None,
    force_pool: bool | None = None,
    given: Sequence[str] | None = None,
) -> RunResult:
    """Process files and return their outcomes in path order.

    Args:
        paths: display paths of the files (from :func:`ppo_migrate.project.discovery.discover_files`).
        settings: the run's settings.
        mode: check, apply, diff or add-noqa.
        jobs: worker processes; ``None`` means :func:`default_jobs`. More processes
            than this one are used only when ``jobs > 1`` and the candidates' estimated
            work pays for them (:func:`use_pool`): the pool for ``apply``, the overlap
            with the test doubles' look-out for ``check`` and ``apply --diff``
            (:func:`_per_file_way`).
        progress: called as ``progress(done, total, path)`` after each candidate.
        on_outcome: called in this process with each candidate's outcome as soon as
            it is known (a rewritten file has then been replaced on disk), in the
            order the files finish; ``apply`` prints its "Rewrote ..." lines from it.
        force_pool: for tests of the pool only: see :func:`use_pool` (``None``: as the
            :data:`FORCE_POOL_ENV` environment variable says).
        given: the command line's paths, if known (``None``: ``paths`` were named one by
            one). Replacements of the runtime function are looked for in the whole
            repository (:func:`ppo_migrate.project.repository.repository_files`), not in
            ``paths`` only; a directory of ``given`` that is the repository's root tells
            that ``paths`` hold it all already.

    Returns:
        A :class:`RunResult`; ``interrupted`` is set when Ctrl-C stopped it (the
        outcomes are then those of the files finished before the stop).

    Other files: a safe fix resting on a parameter of a module-level function, a method,
    a class's ``__init__`` or a module global (``Fix.origins``) is judged against their
    uses in all of ``paths`` once every candidate is done
    (:func:`ppo_migrate.rules.cross_file.judge_callers`); a caller passing a value not
    positively a config, a write, a use by name makes it unsafe. ``apply``/``diff`` leave such a file for then
    (``FileOutcome.pending``) and process it once more with the verdicts, so each file
    is still written at most once.
    """
    with _ctrl_c_recorded() as stop_requested, run_scope(), _run_tables(mode):
        _decide_root(given if given is not None else paths)
        result = _run(
            paths, settings, mode, jobs, progress, on_outcome, stop_requested, force_pool, given
        )
        references.of(current()).file_records(result.indexes)  # the caller phase's, after
        return result


@contextlib.contextmanager
def _run_tables(mode: Mode) -> Iterator[None]:
    """The reference index's tables are this run's while the block runs
    (:meth:`ppo_migrate.project.references.References.start_run`): for a run on files (check,
    apply, diff), nothing looked for yet and the callers in other files to be judged; for
    the others (standard input, ``add-noqa``), no table, as outside a run. Cleared when the
    run ends (:meth:`~ppo_migrate.project.references.References.end_run`): what the command
    does after it (the caller phase, ``--thread-config``'s re-checks) judged without them
    when they were settings of the run, and still does."""
    index = references.of(current())
    index.start_run(judged=mode in (Mode.CHECK, Mode.APPLY, Mode.DIFF))
    try:
        yield
    finally:
        index.end_run()


def _decide_root(paths: Sequence[str]) -> None:
    """Decide the run's root once, from its paths (the command line's when known, else the
    files), on the snapshot (:meth:`ppo_migrate.project.snapshot.Snapshot.analyse`: the first
    run of a command decides; a preview runs on the same paths, its edits in the overlay)."""
    current().analyse(paths)


class ScoutFailed(Exception):
    """The scout process of :func:`run_scouted` ended without sending all it found."""


def run_scouted(
    scout,
    settings: Settings,
    mode: Mode,
    *,
    jobs: int | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    given: Sequence[str] | None = None,
) -> tuple[list[str], RunResult]:
    """Run the files a scout (:func:`ppo_migrate.cli.scout.start`) discovers, analysing each
    candidate as it arrives while the scout walks and prefilters the rest.

    Args:
        scout: the started :class:`ppo_migrate.cli.scout.Scout`; stopped and reaped here
            whatever happens.
        settings, mode, jobs, progress, given: as for :func:`run` (``mode`` is ``check``).

    Returns:
        ``(files, result)``: the discovered files (as
        :func:`ppo_migrate.project.discovery.discover_files` returns them; each directory the walk
        could not read is logged as it would log it) and the run's :class:`RunResult`, the
        same as :func:`run` gives for them. Candidates left when the scout is done go
        through the pool when their work calls for it (:func:`use_pool`).

    Raises:
        FileNotFoundError, NotADirectoryError, PermissionError: as
            :func:`ppo_migrate.project.discovery.discover_files` raises them.
        ScoutFailed: the scout ended early (killed, crashed): nothing was reported; run
            without it.
    """
    try:
        assert mode is Mode.CHECK, mode  # a scout's run writes nothing
        # young collections every :data:`YOUNG_THRESHOLD` allocations for the whole run, as
        # in its per-file phase: the re-exports' look-out parses and walks every module
        # another may import and the cross-file judgement analyses files again (at Python's
        # 700: ~25 ms of benchmark items 9 and 10, a second-generation one among them)
        with _ctrl_c_recorded() as stop_requested, run_scope(), _run_tables(mode), \
                fewer_young_collections(YOUNG_THRESHOLD):
            _decide_root(given if given is not None else ["."])
            files, result = _run_with_scout(scout, settings, mode, jobs, progress, stop_requested, given)
            references.of(current()).file_records(result.indexes)  # the caller phase's, after
            return files, result
    finally:
        scout.kill()


def _run_with_scout(scout, settings, mode, jobs, progress, stop_requested, given=None):
    """:func:`run_scouted`'s work once the scout runs."""

    def check_stop() -> None:
        if stop_requested():
            raise KeyboardInterrupt

    with collector_paused():
        _import_analysis()  # while the scout walks the tree
        # and what the look-outs once it is done import (the repository's walk, the
        # re-exports'): ~9 ms the run waited for after the walk (benchmark item 1)
        import ppo_migrate.project.discovery
        import ppo_migrate.project.repository
        import ppo_migrate.rules.reexports  # noqa: F401
    # what exists now (the modules, the settings) lives as long as the run: the cycle
    # collector leaves it alone, its collections during the analyses are young ones only
    # (~6 ms of a run on the verl tree, issue 13, item 6)
    gc.freeze()
    result = RunResult()
    files: list[str] = []
    try:
        with fewer_young_collections():
            files, rest, stars = _follow_scout(
                scout, settings, mode, progress, result.outcomes, check_stop
            )
        jobs = jobs or default_jobs()
        sizes = dict(rest)
        # the scout's files came one by one: the project's re-exports of the runtime
        # function and its patches among them are looked for now that every file is known
        # (``check`` only: nothing was written). The candidates not analysed yet that the
        # re-exports send back to the analysis are analysed with them, once, rather than
        # without them and again with them (every file of a 600-file chain, benchmark
        # item 10: a third of its time)
        others = _repository(files, settings, mode, given)
        planned = _reexport_redo(
            [o.path for o in result.outcomes], files, settings, mode, others, pending=list(sizes),
            stars=stars,
        )
        # the trees the look-out parsed live as long as the run (the snapshot keeps them for
        # the per-file phase): frozen with the modules, so that the collections during the
        # analyses no longer walk them (a full one among the analyses of benchmark item 9's
        # 135 trainer modules: ~3% of its run). They are freed by their reference counts
        # as before; only what cycles were pending at this point wait for the run's end.
        gc.freeze()
        with_reexports = {p: planned[0] for p in planned[1] if p in sizes}
        if use_pool(jobs, _works(list(sizes), sizes, settings)):
            # the trees of the files analysed so far are no use to the workers, which are
            # forked with them: each would carry them (the peak memory of a large check)
            current().release_trees()
            biggest_first = sorted(sizes, key=lambda p: -sizes[p])
            _run_pool(
                biggest_first, settings, mode, jobs, _after(progress, len(result.outcomes)),
                result.outcomes, None, check_stop, settings_of=with_reexports,
            )
        else:
            _run_serial(
                list(sizes), settings, mode, _after(progress, len(result.outcomes)),
                result.outcomes, None, check_stop, settings_of=with_reexports,
            )
        settings = _reanalyse_for_reexports(
            result.outcomes, files, settings, mode, check_stop, others,
            planned=(planned[0], [p for p in planned[1] if p not in sizes]),
        )
        reaching = (
            _reaching(python_files(o.path for o in result.outcomes), others, settings, python_files(files))
            if any(d.fix is not None and d.fix.applicability == "safe"
                   for o in result.outcomes for d in o.diagnostics)
            else []
        )
        _apply_target_patches(result.outcomes, python_files(files), settings, reaching)
        _judge_across_files(
            result.outcomes, [*python_files(files), *reaching], settings, mode, None, check_stop
        )
    except KeyboardInterrupt:
        result.interrupted = True
    finally:
        gc.unfreeze()
    result.outcomes.sort(key=lambda o: o.path)
    return files, result


def _follow_scout(
    scout,
    settings: Settings,
    mode: Mode,
    progress: Callable[[int, int, str], None] | None,
    outcomes: list[FileOutcome],
    check_stop: Callable[[], None],
) -> tuple[list[str], list[tuple[str, int]], frozenset[str]]:
    """Analyse the scout's candidates as they arrive, appending to ``outcomes``, until it is
    done; returns the discovered files, the candidates not analysed yet (with sizes) and
    the files turned away that hold a star import (the scout's ``stars``).

    Raises:
        ScoutFailed: the scout ended without its last message, or not cleanly.
        FileNotFoundError, NotADirectoryError, PermissionError: discovery refused the paths.
    """
    from collections import deque

    pending: deque[tuple[str, int]] = deque()
    errors: list[tuple[str, str]] = []
    discovered: list[str] = []
    stars: list[str] = []
    files: list[str] | None = None
    while files is None:
        check_stop()
        messages = scout.messages(wait=not pending)
        if messages is None and not pending:
            break
        for message in messages or ():
            if message[0] == "candidate":
                pending.append((message[1], message[2]))
            elif message[0] == "error":
                errors.append((message[1], message[2]))
            elif message[0] == "files":
                discovered.extend(message[1])
            elif message[0] == "stars":
                stars.extend(message[1])
            elif message[0] == "done":
                files = discovered
            else:  # "refused"
                raise message[1]
        if pending and files is None:
            path, _ = pending.popleft()
            outcomes.append(_process_star((path, settings, mode)))
            if progress is not None:  # one more than known while the scout goes on
                progress(len(outcomes), len(outcomes) + len(pending) + 1, path)
    if files is None or not scout.finish():
        raise ScoutFailed("the scout process ended early")
    if errors:
        from ppo_migrate.project.discovery import warn

        for path, message in errors:
            warn(path, message)
    return files, list(pending), frozenset(stars)


def _run_serial(
    candidates: Sequence[str],
    settings: Settings,
    mode: Mode,
    progress: Callable[[int, int, str], None] | None,
    outcomes: list[FileOutcome],
    on_outcome: Callable[[FileOutcome], None] | None,
    check_stop: Callable[[], None],
    settings_of: Mapping[str, Settings] | None = None,
) -> None:
    """Process ``candidates`` one after the other in this process, appending to ``outcomes``
    (``settings_of``: path -> the settings of a file analysed with others than ``settings``).

    The cycle collector's youngest generation is collected every :data:`YOUNG_THRESHOLD`
    allocations meanwhile (:func:`ppo_migrate.cli.modes.fewer_young_collections`), as in a
    pool's workers (:func:`_worker_init`) and a scouted ``check``'s first files: an
    analysis allocates its module's nodes by the ten thousand, and collections every 700
    allocations scanned them again and again and promoted them, until full collections
    walked every tree the run keeps. On benchmark item 12's 200 files (serial) the
    collector took ~0.28 s (four full collections ~0.18 s of it), now ~0.1 s; in each of
    two workers ~85 ms, now ~45 ms (with :func:`_frozen_for_the_fork`)."""
    with fewer_young_collections(YOUNG_THRESHOLD):
        for i, p in enumerate(candidates, 1):
            outcome = _process_star((p, settings_of.get(p, settings) if settings_of else settings, mode))
            outcomes.append(outcome)
            if on_outcome is not None and not outcome.pending:
                on_outcome(outcome)
            if progress is not None:
                progress(i, len(candidates), p)
            check_stop()


def _run_overlapped(
    candidates: Sequence[str],
    settings: Settings,
    mode: Mode,
    jobs: int,
    progress: Callable[[int, int, str], None] | None,
    outcomes: list[FileOutcome],
    on_outcome: Callable[[FileOutcome], None] | None,
    check_stop: Callable[[], None],
    lookout: Callable[[], None],
) -> None:
    """The per-file phase of ``check`` and ``apply --diff`` on ``jobs`` processes, started
    before the test doubles' look-out (``lookout``: :func:`_with_target_patches`) and
    overlapping it; appends to ``outcomes`` the same outcomes, in the order of
    ``candidates``, as :func:`_with_target_patches` then :func:`_run_serial` would.

    Children are forked first (:func:`ppo_migrate.cli.forked.fork`: each inherits the
    snapshot, the re-exports, the modules a fixable call's judgement imports and the callee
    in effect for the first candidate's folder, :func:`_warm_for_the_fork`) and take the
    candidates one at a time from a queue they share with this process, analysing them
    without the look-out's answer, which does not exist yet: no replacement of another file
    is known to them. This process makes the look-out meanwhile, then takes candidates from
    the same queue and analyses them with its answer until none is left, then takes the
    children's outcomes back. The look-out only ever changes the outcome of a file that one
    of its replacements reaches (:meth:`ppo_migrate.rules.check.ModuleAnalysis.replacement`
    asks :func:`ppo_migrate.rules.patches.reaching_patch` and nothing else of it): such a
    file a child analysed, and any file not a Python module when a replacement was found,
    is analysed again here with the answer; the others' outcomes stand (on a tree no test
    double reaches, all of them).

    Before, the look-out (it parses every candidate) ran alone before the pool's workers
    started: on benchmark item 12 (200 modules of 15 configless calls) it was ~0.2 s of
    the run's ~0.55 s of serial CPU before the per-file phase, and ``--jobs 2`` was only
    1.2 times faster than ``--jobs 1``. Then each process had a share cut up front from the
    files' estimated work; the estimate put the look-out at ~0.25 s where it now takes
    ~0.05 s, and the child's 112 files took ~60 ms more CPU than this process's look-out and
    88 files. Taken on demand, the processes end within one file of each other.

    A child that dies or sends an unreadable message: the files no process answered for go
    through the pool (:func:`_run_pool`, which isolates a file that kills its worker).
    Ctrl-C: this process stops at its next file or within
    :data:`ppo_migrate.cli.forked.POLL_SECONDS` of waiting, kills the children and raises
    ``KeyboardInterrupt``.

    Args:
        candidates: the candidates, in the run's order.
        settings, mode: the run's (``mode`` writes nothing: check or diff).
        jobs: processes allowed, this one included.
        progress: as for :func:`run`; one call per file, counting up to the total.
        outcomes: appended to.
        on_outcome: called with each outcome appended that is not pending.
        check_stop: raises ``KeyboardInterrupt`` once Ctrl-C was pressed.
        lookout: the look-out to overlap.
    """
    from ppo_migrate.cli import forked

    index = references.of(current())
    provisional = index.target_patches is None  # the children judge without the answer
    total = len(candidates)
    shown = 0

    def show(path: str | None, children) -> None:
        """Progress up to this process's files and the children's bytes so far."""
        nonlocal shown
        if progress is None:
            return
        done = len(outcomes) - start + children.poll_ticks()
        while shown < min(done, total):
            shown += 1
            progress(shown, total, path if path is not None else candidates[shown - 1])

    def analyse(p: str) -> FileOutcome:
        return _process_star((p, settings, mode))

    def child_init() -> None:
        if provisional:
            index.target_patches = ()  # judged as if no other file replaced the function
        snapshot = active()
        if snapshot is not None:
            snapshot.keep_trees = False  # nothing after the per-file phase runs here
        gc.set_threshold(max(gc.get_threshold()[0], YOUNG_THRESHOLD), *gc.get_threshold()[1:])

    start = len(outcomes)
    _import_analysis(full=True, diff=mode is Mode.DIFF)
    _warm_for_the_fork(candidates[0], settings)
    thawed = _frozen_for_the_fork()
    children = forked.fork(
        candidates, analyse, child_init, max(1, min(jobs - 1, total - 1)), ticks=progress is not None
    )
    #: candidate number -> its outcome, once final
    final: dict[int, FileOutcome] = {}
    try:
        with fewer_young_collections(YOUNG_THRESHOLD):
            lookout()
            # the trees it parsed live as long as the run (the snapshot keeps them): frozen,
            # as at the fork, so that no full collection of this process's files or of the
            # children's outcomes being read walks them (a full collection while the
            # outcomes of benchmark item 12's child were read: ~40 ms, the read ~3 ms)
            gc.freeze()
            check_stop()
            while (taken := children.take()) is not None:
                for k in taken:
                    p = candidates[k]
                    outcome = final[k] = analyse(p)
                    outcomes.append(outcome)
                    if on_outcome is not None and not outcome.pending:
                        on_outcome(outcome)
                    show(p, children)
                    check_stop()
        with fewer_young_collections(YOUNG_THRESHOLD):
            answers = children.collect(check_stop, lambda: show(None, children))
        patches = index.target_patches if provisional else None
        theirs = sorted(pair for done in answers if done is not None for pair in done)
        with fewer_young_collections(YOUNG_THRESHOLD):
            for k, outcome in theirs:
                if k in final:  # never: each number is taken once
                    continue
                if patches and _reached(patches, outcome.path):
                    outcome = analyse(outcome.path)
                    check_stop()
                final[k] = outcome
                outcomes.append(outcome)
                if on_outcome is not None and not outcome.pending:
                    on_outcome(outcome)
                if progress is not None and shown < len(outcomes) - start:
                    shown = len(outcomes) - start
                    progress(shown, total, outcome.path)
        lost = [k for k in range(total) if k not in final]
        if lost:  # a child died: the files no process answered for, through the pool
            before = len(outcomes) - start
            again = None
            if progress is not None:  # counted on from what was shown, never backwards
                def again(i: int, _total: int, path: str, before=before) -> None:
                    nonlocal shown
                    if before + i > shown:
                        shown = before + i
                        progress(shown, total, path)
            fresh: list[FileOutcome] = []
            _run_pool([candidates[k] for k in lost], settings, mode, jobs, again, fresh, on_outcome, check_stop)
            numbers: dict[str, list[int]] = {}
            for k in lost:
                numbers.setdefault(candidates[k], []).append(k)
            for outcome in fresh:
                final[numbers[outcome.path].pop(0)] = outcome
        outcomes[start:] = [final[k] for k in range(total)]  # the run's order
    finally:
        children.kill()
        if thawed:
            gc.unfreeze()


def _reached(patches: Sequence, path: str) -> bool:
    """Whether the look-out's ``patches`` may change the outcome of the file at ``path``
    analysed without them (:func:`_run_overlapped`): one of them reaches it
    (:func:`ppo_migrate.rules.patches.reaching_patch`), or it is no Python module (a
    notebook's or a YAML file's analysis is not held to that one question)."""
    if not path.endswith((".py", ".pyw")):
        return True
    from ppo_migrate.rules.patches import reaching_patch

    return reaching_patch(patches, path) is not None


def _after(progress: Callable[[int, int, str], None] | None, done: int):
    """``progress`` for the rest of a run of which ``done`` files are done already."""
    if progress is None:
        return None
    return lambda i, total, path: progress(done + i, done + total, path)


def _import_analysis(full: bool = False, diff: bool = False) -> None:
    """Import the modules every candidate's analysis needs, once, before the first file (a
    scout's parent while the scout walks; the pool's parent before it forks its workers).

    Args:
        full: also those only a fixable call needs (the config resolver and its flow
            analysis, the shims' detector, the caller phase, the declared verl's readers): a
            pool's workers would each import them again.
        diff: also the unified diff's (``difflib``), which each worker of ``apply --diff``
            imported at its first diff.
    """
    import ppo_migrate.rules.check
    import ppo_migrate.rules.signatures
    import ppo_migrate.edits.text_edits  # noqa: F401

    if full:
        import ppo_migrate.rules.callers
        import ppo_migrate.rules.configs
        import ppo_migrate.rules.flow
        import ppo_migrate.rules.shims
        # which verl a project declares (``packaging``, ``tomllib``, ``importlib.metadata``)
        # and the roots it puts on sys.path: the first call of each worker asked them,
        # ~50 ms of imports per worker (benchmark items 9 and 10)
        import ppo_migrate.rules.versions
        import ppo_migrate.project.import_roots  # noqa: F401
    if diff:
        import difflib  # noqa: F401 - the matcher of a changed stretch, imported at its first use
        import ppo_migrate.edits.unified_diff  # noqa: F401


def _run(
    paths, settings, mode, jobs, progress, on_outcome, stop_requested, force_pool=None, given=None
) -> RunResult:
    """:func:`run`, with ``stop_requested()`` true once Ctrl-C was pressed."""

    def check_stop() -> None:
        if stop_requested():
            raise KeyboardInterrupt

    global _on_written
    candidates, sizes = _snapshot_prefilter([os.fspath(p) for p in paths], settings)
    # the YAML files (Hydra configs, PPO006) are judged in the per-file phase only, with the
    # re-exports known: the phases that read Python (re-exports, test doubles, callers) never
    # see them
    everything, paths = paths, python_files(paths)
    # the repository beyond the named paths, even when none of them names the function:
    # ``make_env()`` in ``app/b.py`` goes through ``pkg/util.py``'s re-export, which only
    # the repository shows (``check app/b.py``, a pre-commit hook's staged files)
    others = _repository(everything, settings, mode, given)
    settings, more = _with_reexports(settings, mode, candidates, everything, others)
    if more:  # an alias brought a new name (``make_env``): its callers are candidates too
        candidates, sizes = _snapshot_prefilter([os.fspath(p) for p in everything], settings)
    reaching = _reaching(python_files(candidates), others, settings, paths)
    jobs = jobs or default_jobs()
    works = _works(candidates, sizes, settings)
    way = _per_file_way(jobs, works, mode, force_pool)

    def lookout() -> None:  # the test doubles' look-out, before any file is final
        _with_target_patches(settings, mode, python_files(candidates), paths, reaching)

    if way != "overlap":
        lookout()
    result = RunResult()
    # files replaced whose outcome has not come back yet (a Ctrl-C right after the
    # write, or a worker stopped after its write): reported if the run is interrupted
    announced: dict[str, FileOutcome] = {}
    reported = on_outcome

    def report(outcome: FileOutcome) -> None:
        # Ctrl-C held back while a file leaves ``announced`` and is reported: a
        # KeyboardInterrupt between the two lost its "Rewrote" line (a full-suite run
        # of test_ctrl_c_exits_130_promptly_and_leaves_no_temp_file[1])
        with _signals_deferred():
            announced.pop(outcome.path, None)
            if reported is not None:
                reported(outcome)

    on_outcome = report
    previous, _on_written = _on_written, lambda o: announced.__setitem__(o.path, o)
    try:
        check_stop()
        if way == "overlap":
            _run_overlapped(
                candidates, settings, mode, jobs, progress, result.outcomes, on_outcome,
                check_stop, lookout,
            )
        elif way == "pool":
            # Largest first, so that no big file starts last and runs alone at the
            # end; the outcomes are sorted by path below whatever the order.
            biggest_first = sorted(candidates, key=lambda p: -sizes.get(p, 0))
            _run_pool(
                biggest_first, settings, mode, jobs, progress, result.outcomes, on_outcome,
                check_stop,
            )
        else:
            _run_serial(
                candidates, settings, mode, progress, result.outcomes, on_outcome, check_stop
            )
        _judge_across_files(
            result.outcomes, [*paths, *reaching], settings, mode, on_outcome, check_stop
        )
    except KeyboardInterrupt:
        result.interrupted = True
        for outcome in sorted(announced.values(), key=lambda o: o.path):
            result.outcomes.append(outcome)
            report(outcome)
    finally:
        _on_written = previous
    result.outcomes.sort(key=lambda o: o.path)
    return result


def _snapshot_prefilter(paths: list[str], settings: Settings) -> tuple[list[str], dict[str, int]]:
    """:func:`ppo_migrate.prefilter._prefilter` reading through the run's snapshot: each file
    is read once a run; those turned away are kept within the snapshot's budget for them
    (:meth:`ppo_migrate.project.snapshot.Snapshot.optional`)."""
    snapshot = current()

    def read(path: str) -> bytes:
        return snapshot.read_bytes(path, keep=True)

    return _prefilter(paths, settings, read, snapshot.optional, spells_elsewhere)


def _repository(paths, settings: Settings, mode: Mode, given=None) -> list[str]:
    """The repository's Python files beyond ``paths``
    (:func:`ppo_migrate.project.repository.repository_files`), for the look-outs that must
    see the whole project whichever files the command line names: the re-exports of the
    runtime function and its replacements (a pre-commit hook passes the staged files only,
    and the test holding the double is not among them). ``[]`` for the modes that do not
    look out (standard input, ``add-noqa``)."""
    if mode not in (Mode.CHECK, Mode.APPLY, Mode.DIFF):
        return []
    index = references.of(current())
    if index.reexports is not None and index.target_patches is not None:
        return []
    from ppo_migrate.project.repository import repository_files

    return repository_files([os.fspath(p) for p in paths], settings, given)


def _with_reexports(
    settings: Settings, mode: Mode, candidates, paths, others: Sequence[str] = (),
    stars: Collection[str] | None = None,
) -> tuple[Settings, bool]:
    """``settings`` with the project's own re-exports of the targets added to them, kept
    on the run's reference index (:attr:`ppo_migrate.project.references.References.reexports`;
    :func:`ppo_migrate.rules.reexports.project_reexports`: ``pkg/__init__.py``
    re-exporting the function, ``make_env = get_ppo_ray_runtime_env`` imported elsewhere;
    issue 26, family 6), and whether they bring a new last name (then the candidates are
    looked for again). Only for a run on files, as :func:`_with_target_patches`; the
    re-exporting module may be one of ``others`` (the repository's other files:
    :func:`_repository`) that names a target and that the run's files may import
    (:meth:`ppo_migrate.project.references.References.importers`).

    The YAML files among ``candidates`` and ``paths`` are no Python: a Hydra ``_target_``
    of theirs loads its module by name (:func:`ppo_migrate.rules.hydra_targets.loaded_modules`),
    which makes a re-export in that module count as one a file of the run uses
    (``_target_: mypkg.get_env`` where ``mypkg/__init__.py`` re-exports the function).

    ``stars``: the files of ``paths`` that are not candidates and hold a star import, when
    a scout read them all already (:func:`ppo_migrate.prefilter.iter_candidates`): the
    others of ``paths`` are not read again for it (a tree that never names the function:
    every file read a second time, ~0.1 s of torch's 2,285 files, benchmark item 1);
    ``None``: each file is read and searched here."""
    snapshot = current()
    index = references.of(snapshot)
    if mode not in (Mode.CHECK, Mode.APPLY, Mode.DIFF) or index.reexports is not None:
        return settings, False
    from ppo_migrate.rules.reexports import STAR_IMPORT, project_reexports

    named = python_files(candidates)
    files = python_files(os.fspath(p) for p in paths)
    searched = frozenset() if stars is None else frozenset(files)  # the scout's files
    # a re-export ends in a file that names a target: with none beyond the run's files
    # (a tree that never names the function) no module is followed
    beyond = bool(others) and bool(_snapshot_prefilter(list(others), settings)[0] or _star_importers(others))
    by_hydra = frozenset()
    if named or beyond:  # only then may a re-export exist for a _target_ to name
        by_hydra = _hydra_loaded([os.fspath(p) for p in paths if is_yaml_file(os.fspath(p))])
        # a notebook is no module the index reads: the modules its cells import count as
        # loaded, as a _target_'s do (``import mylib; mylib.ray_env()`` in a cell)
        by_hydra |= _notebook_loaded([os.fspath(p) for p in paths if is_notebook(os.fspath(p))])
        # an entry point's module is loaded by name, as a _target_'s is (``mypkg:get_env``)
        by_hydra |= _entry_point_loaded([os.fspath(p) for p in paths if _declares_entry_points(os.fspath(p))])
    if beyond:
        tops = {t.split(".", 1)[0] for t in settings.targets}
        loaded = index.importers(files, others, tops)
        if by_hydra:  # the modules a _target_ loads, beyond the run (``check conf/x.yaml``)
            lasts = {m.rsplit(".", 1)[-1] for m in by_hydra}
            known = set(files) | set(loaded)
            loaded += [p for p in others if p not in known and _module_last_name(p) in lasts]
        named += _snapshot_prefilter(loaded, settings)[0]
        files += loaded
    datas: dict[str, bytes] = {}
    for path in named:
        try:
            datas[path] = snapshot.read_bytes(path)
        except (OSError, ValueError):
            continue
    for path in files:  # a star import re-exports without naming the function
        if path not in datas and (path in stars if path in searched else True):
            try:
                data = snapshot.read_bytes(path)
            except (OSError, ValueError):
                continue
            if STAR_IMPORT in data:
                datas[path] = data
    if not named and not _spells_a_target_package(datas.values(), settings.targets):
        # every re-export ends in a file that names a target or imports from its package
        # (``from verl.trainer.constants_ppo import *``, ``import_module("verl...")``): a
        # tree of neither (torch's sources) has none, and its modules' imports are not read
        index.reexports = {}
        return settings, False
    imports = index.imports([*files, *named])
    # a module holding a target imported by its last name may be re-exported as a module
    # (``from verl.trainer import constants_ppo as cp`` in ``pkg/_compat.py``)
    module_words = {t.rsplit(".", 1)[0].rsplit(".", 1)[-1].encode() for t in settings.targets if "." in t}
    for path in files:
        if path not in datas and imports.get(path, frozenset()) & module_words:
            try:
                datas[path] = snapshot.read_bytes(path)
            except (OSError, ValueError):
                continue
    hooks: dict[str, tuple[str, int]] = {}  # names served by a module ``__getattr__`` (PPO003)
    found = project_reexports(
        datas, index.spelling(files, datas), settings.targets, imports=imports, loaded=by_hydra, hooks=hooks
    )
    index.reexports = dict(sorted(found.items()))
    index.getattr_hooks = hooks
    if not found:
        return settings, False
    names = settings.target_names
    added = tuple(n for n in sorted(found) if n not in settings.targets)
    extended = settings.replace(targets=(*settings.targets, *added))
    return extended, bool(extended.target_names - names)


def _hydra_loaded(paths: Sequence[str]) -> frozenset[str]:
    """The modules the YAML files ``paths`` load by a Hydra ``_target_``
    (:func:`ppo_migrate.rules.hydra_targets.loaded_modules` of their bytes, read through the
    run's snapshot; a file without ``_target_`` is not looked at further)."""
    if not paths:
        return frozenset()
    from ppo_migrate.rules.hydra_targets import loaded_modules

    return _modules_loaded_by(paths, lambda data, path: loaded_modules(data))


def _modules_loaded_by(paths: Sequence[str], load: Callable[[bytes, str], Iterable[str]]) -> frozenset[str]:
    """The union of ``load(bytes, path)`` over the data files ``paths``, each read through
    the run's snapshot (kept for the per-file phase); a file that cannot be read or decoded
    loads nothing (its own diagnostic comes from its own analysis)."""
    snapshot = current()
    out: set[str] = set()
    for path in paths:
        try:
            out.update(load(snapshot.read_bytes(path, keep=True), path))
        except (OSError, ValueError, UnreadableFile):
            continue
    return frozenset(out)


#: words one of which a packaging file declaring an entry point holds (``entry_points``,
#: ``[project.scripts]``, ``entry-points``, Poetry's ``plugins``)
_DECLARING = (b"entry_points", b"entry-points", b"scripts", b"plugins")


def _declares_entry_points(path: str) -> bool:
    """Whether ``path`` is a packaging file read for its entry points (``pyproject.toml``,
    ``setup.cfg``, ``setup.py``)."""
    return is_entry_point_file(path) or os.path.basename(path) == "setup.py"


def _entry_point_loaded(paths: Sequence[str]) -> frozenset[str]:
    """The modules the packaging files ``paths`` load by an entry point
    (:func:`ppo_migrate.rules.entry_point_targets.loaded_modules` of their declarations, read
    through the run's snapshot; a file whose bytes name none of the tables or keywords that
    declare one is not parsed)."""
    if not paths:
        return frozenset()
    from ppo_migrate.project.entry_points import declared_entry_points
    from ppo_migrate.rules.entry_point_targets import loaded_modules

    snapshot = current()

    def load(data: bytes, path: str) -> Iterable[str]:
        if not any(word in data for word in _DECLARING):
            return ()
        return loaded_modules(declared_entry_points(snapshot.source(path)))

    return _modules_loaded_by(paths, load)


def _notebook_loaded(paths: Sequence[str]) -> frozenset[str]:
    """The modules the code cells of the notebooks ``paths`` import (trial 26e, M4):
    ``import a.b`` gives ``a.b``, ``from a import b`` gives ``a`` and ``a.b`` (``b`` may be a
    module); relative imports and notebooks that cannot be read or parsed give nothing.
    Read through the run's snapshot (the prefilter read them already)."""
    if not paths:
        return frozenset()
    import ast

    from ppo_migrate.project.notebooks import NotebookError, notebook_module

    snapshot = current()
    out: set[str] = set()
    for path in paths:
        try:
            text = snapshot.read_bytes(path, keep=True).decode("utf-8")
            tree = ast.parse(notebook_module(text).text)
        except (OSError, ValueError, SyntaxError, RecursionError, NotebookError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                out.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                out.add(node.module)
                out.update(f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*")
    return frozenset(out)


def _module_last_name(path: str) -> str:
    """The last name of the module at ``path``: its stem, its folder's for ``__init__.py``."""
    head, name = os.path.split(path)
    stem = name.rsplit(".", 1)[0]
    return os.path.basename(head) if stem == "__init__" else stem


def _spells_a_target_package(datas: Iterable[bytes], targets: Iterable[str]) -> bool:
    """Whether one of ``datas`` (the star-importing files' bytes) spells, as a word, the
    top-level package of a target (``verl``, ``ppo_runtime``): only such a file can
    re-export a target without naming it."""
    tops = sorted({t.split(".", 1)[0] for t in targets if "." in t})
    if not tops:
        return False
    # each place a name stands, its neighbours tested (not preceded by a word character or
    # ``.``, not followed by a word character: ``\w`` of a bytes pattern is ASCII), rather
    # than a look-behind regex over the whole bytes: torch's 77 star-importing modules (1 MB,
    # ``overlap`` spelling ``verl`` in 8 of them) took ~20 ms of it (benchmark item 1)
    for data in datas:
        for top in tops:
            word = top.encode()
            at = data.find(word)
            while at >= 0:
                before = data[at - 1 : at] if at else b""
                after = data[at + len(word) : at + len(word) + 1]
                if not (before and (before.isalnum() or before in b"_.")) and not (
                    after and (after.isalnum() or after == b"_")
                ):
                    return True
                at = data.find(word, at + 1)
    return False


def _star_importers(paths: Sequence[str]) -> bool:
    """Whether a file of ``paths`` holds a star import (``from verl.trainer.constants_ppo
    import *`` re-exports the function without spelling it)."""
    from ppo_migrate.rules.reexports import STAR_IMPORT

    snapshot = current()
    for path in paths:
        try:
            if STAR_IMPORT in snapshot.read_bytes(path, keep=True):
                return True
        except (OSError, ValueError):
            continue
    return False


def _reexport_redo(
    analysed: Sequence[str], files: Sequence[str], settings: Settings, mode: Mode,
    others: Sequence[str] = (), pending: Sequence[str] = (), stars: Collection[str] | None = None,
) -> tuple[Settings, list[str]]:
    """``(settings, redo)``: ``settings`` with the project's re-exports (:func:`_with_reexports`)
    and the files of a scouted ``check`` to analyse with them: those that may call one (they
    spell its module's name) among the candidates ``analysed`` without them and ``pending``
    (not analysed yet), and the files only the re-exports make candidates. ``[]`` when the
    project re-exports nothing. ``stars``: as for :func:`_with_reexports`."""
    candidates = [*analysed, *pending]
    settings, _ = _with_reexports(settings, mode, candidates, files, others, stars)
    snapshot = current()
    found = references.of(snapshot).reexports
    if not found:
        return settings, []
    again, _ = _snapshot_prefilter(list(files), settings)
    before = set(candidates)
    # a file may reach a re-export only by naming its module (or relatively: ``from .``)
    words = {name.rsplit(".", 1)[0].rsplit(".", 1)[-1].encode() for name in found}
    words.add(b"from .")
    # each file's words read once, not once per re-exporting module (hundreds on a chain
    # of modules each importing the function: :class:`ppo_migrate.prefilter.Words`)
    spelling = Words(words)
    redo = []
    for path in again:
        try:
            data = snapshot.read_bytes(path)
        except (OSError, ValueError):
            continue
        if path not in before or spelling.any_in(data):
            redo.append(path)
    return settings, redo


def _reanalyse_for_reexports(
    outcomes: list[FileOutcome], files: Sequence[str], settings: Settings, mode: Mode, check_stop,
    others: Sequence[str] = (), planned: tuple[Settings, list[str]] | None = None,
) -> Settings:
    """A scouted ``check``'s outcomes (in place) as :func:`_with_reexports` would have made
    them: the files its scout analysed before the re-exports were known are analysed again
    with them when they may call one (they spell its name). Returns the settings.

    ``planned``: :func:`_reexport_redo`'s answer, made before the last candidates were
    analysed (with the re-exports where it said so: left out of its list)."""
    if planned is None:
        planned = _reexport_redo([o.path for o in outcomes], files, settings, mode, others)
    settings, redo = planned
    if not redo:
        return settings
    fresh: list[FileOutcome] = []
    _run_serial(redo, settings, mode, None, fresh, None, check_stop)
    by_path = {o.path: o for o in fresh}
    outcomes[:] = [by_path.pop(o.path, o) for o in outcomes] + list(by_path.values())
    return settings


def _with_target_patches(
    settings: Settings, mode: Mode, candidates, paths, reaching: Sequence[str] = ()
) -> None:
    """Where the repository's files replace the runtime function
    (:func:`ppo_migrate.rules.patches.target_patches`), kept on the run's reference index
    (:attr:`ppo_migrate.project.references.References.target_patches`), found before any file is
    analysed, so that a fix they reach is unsafe from the start (``apply`` writes a file
    as soon as it is done). Only for a run on files (not standard input, the codemod
    command, the Fixit rule). ``reaching``: the repository's other files that may reach
    the candidates' calls (:func:`_reaching`)."""
    index = references.of(current())
    if mode not in (Mode.CHECK, Mode.APPLY, Mode.DIFF) or index.target_patches is not None:
        return
    candidates, files = _with_reaching(candidates, [os.fspath(p) for p in paths], settings, reaching)
    from ppo_migrate.rules.patches import target_patches

    index.target_patches = target_patches(candidates, files, settings, index.reexports)


def _reaching(
    candidates: Sequence[str], others: Sequence[str], settings: Settings, run: Sequence[str] = ()
) -> list[str]:
    """Those of ``others`` (the repository's files beyond the run: :func:`_repository`)
    from which a replacement of the function may reach the candidates' calls, or a caller
    call the functions they are in (:func:`ppo_migrate.rules.patches.reachable_files`:
    a file loading a calling module, itself or through another, what it loads, a
    ``conftest.py`` above it or above a file of the run (``run``: its Python files; the
    repository root's, for a run on a sub-folder), a fake package beside it). A test
    double, or a caller passing a plain dict, lives in a file the command line may not
    name (a pre-commit hook passes the staged files only)."""
    if not candidates or not others:
        return []
    from ppo_migrate.rules.patches import reachable_files

    modules = {t.rsplit(".", 1)[0] for t in settings.targets if "." in t}
    return reachable_files(list(candidates), others, modules, run=[os.fspath(p) for p in run])


def _with_reaching(
    candidates: Sequence[str], files: list[str], settings: Settings, reaching: Sequence[str]
) -> tuple[list[str], list[str]]:
    """``(candidates, files)`` with ``reaching`` (:func:`_reaching`) added: those naming a
    target join the candidates (the look-out takes aliases and constants from them), the
    rest are read by the look-out's byte check."""
    candidates = list(candidates)
    if not candidates or not reaching:
        return candidates, files
    named, _ = _snapshot_prefilter(list(reaching), settings)
    return [*candidates, *named], [*files, *reaching]


def _apply_target_patches(
    outcomes: list[FileOutcome], files: Sequence[str], settings: Settings, reaching: Sequence[str] = ()
) -> None:
    """A scouted ``check``'s outcomes (in place) as :func:`_with_target_patches` would have
    made them: the look-out for the test doubles runs now, and each file that one of their
    replacements reaches and that holds a fix (PPO001) is analysed again with the look-out's
    answer, which the run's reference index keeps from here on, as a run without a scout
    holds it from the start. Its fixes then carry the reasons :meth:`ppo_migrate.rules.check.ModuleAnalysis`
    gives in that order: ``check --jobs 2`` (scouted) named another reason than
    ``--jobs 1`` for a fix both made unsafe (an undecided verl before the replacement),
    when only the safe ones were rewritten here, and none when no fix was safe."""
    index = references.of(current())
    if index.target_patches is not None or not any(
        d.code == "PPO001" and d.fix is not None for o in outcomes for d in o.diagnostics
    ):
        return
    from ppo_migrate.rules.patches import reaching_patch, target_patches

    candidates, everything = _with_reaching(
        python_files(o.path for o in outcomes), [os.fspath(f) for f in files], settings, reaching
    )
    patches = target_patches(candidates, everything, settings, index.reexports)
    if not patches:
        return
    index.target_patches = patches
    for i, outcome in enumerate(outcomes):
        if not any(d.code == "PPO001" and d.fix is not None for d in outcome.diagnostics):
            continue
        if reaching_patch(patches, outcome.path) is not None:
            outcomes[i] = _process_star((outcome.path, settings, Mode.CHECK))


def _judge_across_files(
    outcomes: list[FileOutcome],
    paths: Sequence[str],
    settings: Settings,
    mode: Mode,
    on_outcome: Callable[[FileOutcome], None] | None,
    check_stop: Callable[[], None],
) -> None:
    """The run's second phase (see :func:`run`): judge the callers in other files of the
    parameters safe fixes rest on; make the fixes they argue against unsafe in
    ``outcomes`` (in place) and process the pending files once more with the verdicts."""
    if not any(
        o.origins or any(d.fix is not None and d.fix.origins for d in o.diagnostics)
        for o in outcomes
    ):
        return  # most runs: nothing to judge, and the judge is not even imported
    from ppo_migrate.rules.cross_file import (
        judge_callers,
        pending_origins,
        with_verdicts,
    )

    origins = pending_origins((d for o in outcomes for d in o.diagnostics), None)
    origins.update(x for o in outcomes for x in o.origins)
    if not origins:
        return
    verdicts = judge_callers(origins, [os.fspath(p) for p in paths], settings)
    references.of(current()).caller_verdicts = dict(verdicts)  # a file processed again reads them
    for i, outcome in enumerate(outcomes):
        if outcome.pending:
            check_stop()
            outcomes[i] = _finish(outcome, verdicts, settings, mode)
            if on_outcome is not None:
                on_outcome(outcomes[i])
        elif any(d.fix is not None and d.fix.origins for d in outcome.diagnostics):
            outcomes[i] = outcome._replace(
                diagnostics=tuple(with_verdicts(outcome.diagnostics, verdicts))
            )


def _finish(outcome: FileOutcome, verdicts: dict, judged: Settings, mode: Mode) -> FileOutcome:
    """A held-back file once its callers in other files are judged: the rewrite made in
    the per-file phase when no verdict argues against its fixes (nothing parsed again),
    else the file processed once more with the verdicts (those fixes then unsafe: the
    run's reference index holds the verdicts, ``judged`` are the run's settings)."""
    kept = all(verdicts.get(o) is None for o in outcome.origins)
    if kept and mode is Mode.DIFF:
        return outcome._replace(pending=False, origins=())
    if kept and outcome.new_data is not None and outcome.source is not None:
        new = outcome.new_data
        written = outcome._replace(
            written=True, new_data=None, pending=False, origins=(), source=None
        )
        failed = _write_back(outcome.path, lambda: new, outcome.source, outcome.diagnostics, written)
        return written if failed is None else failed
    return process_file(outcome.path, judged, mode)


#: Whether the handler of :func:`_ctrl_c_recorded` raises ``KeyboardInterrupt`` at once;
#: :func:`_run_pool` turns it off: there the flag alone stops the run, at its next look.
_sigint_raises = True


@contextlib.contextmanager
def _ctrl_c_recorded() -> Iterator[Callable[[], bool]]:
    """Record Ctrl-C (SIGINT) in a flag as well as raising ``KeyboardInterrupt``.

    Yields ``stop_requested()``, which the run checks after every file and, while it
    waits for pool workers, every ``_STOP_POLL_SECONDS``.

    Why: Python runs a signal handler at whatever bytecode the main thread is at. When
    that is a finalizer -- a generator closed by the garbage collector, a ``__del__``,
    a weakref callback, all frequent while LibCST builds and drops its trees -- the
    ``KeyboardInterrupt`` raised there is printed as "Exception ignored" and lost, and
    the run went on to the last file (under load, long after the test's 30 s). The
    flag cannot be lost: the handler sets it before it raises.

    Only in the main thread with Python's default handler installed (as in the CLI);
    otherwise ``stop_requested()`` is always false and nothing is changed.
    """
    stop = threading.Event()
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield stop.is_set
        return

    def on_sigint(signum, frame):
        stop.set()
        if _sigint_raises:
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)
    try:
        yield stop.is_set
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _worker_init(
    written_queue=None, lifeline: tuple[int, int] | None = None, snapshot_state=None, tables=None
) -> None:
    """Pool workers leave Ctrl-C to the parent, which stops them with SIGTERM.

    Args:
        written_queue: a ``multiprocessing.SimpleQueue``; each rewrite's outcome is
            put on it as soon as the file is replaced (``put`` writes to the pipe
            before a held-back SIGTERM can end the worker), so the parent learns of
            a file written by a worker it stopped.
        lifeline: a forked worker's copy of :func:`_lifeline`'s pipe: the worker ends
            itself when the parent dies (see :func:`_watch_parent`).
        snapshot_state: a spawned worker's copy of the parent's overlay and staging
            (:meth:`ppo_migrate.project.snapshot.Snapshot.worker_state`, pickled; a forked
            worker inherits the snapshot itself): a preview's worker stages its rewrites.
        tables: a spawned worker's copy of the tables of the run's reference index
            (:meth:`ppo_migrate.project.references.References.tables`; a forked worker
            inherits the index).
    """
    global _on_written
    # the per-file phase's young collections, as in a serial run (:func:`_run_serial`)
    gc.set_threshold(max(gc.get_threshold()[0], YOUNG_THRESHOLD), *gc.get_threshold()[1:])
    enter_worker(snapshot_state)
    if tables is not None:  # the reference index's tables of the parent's run
        if active() is None:
            enter_worker((False, {}))
        references.of(current()).take_tables(tables)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    snapshot = active()  # the parent's, as it was at the fork: this worker's own copy
    if snapshot is not None:
        snapshot.keep_trees = False  # nothing after the per-file phase runs here
    if lifeline is not None:
        _watch_parent(*lifeline)
    if written_queue is not None:
        # without the diagnostics: a message of a few hundred bytes is one write(2)
        # to the pipe, which no signal can cut in two
        def announce(outcome: FileOutcome) -> None:
            written_queue.put(FileOutcome(
                outcome.path, True, (), outcome.fixed, written=True, imports=outcome.imports
            ))

        _on_written = announce


def _snapshot_state(context):
    """What a worker started by ``context`` must be handed of the run's snapshot: nothing
    when forked (it inherits the snapshot, overlay and staging included), else the overlay
    and staging, pickled (:meth:`ppo_migrate.project.snapshot.Snapshot.worker_state`)."""
    if context.get_start_method() == "fork":
        return None
    return current().worker_state()


def _index_tables(context):
    """What a worker started by ``context`` must be handed of the run's reference index:
    nothing when forked (it inherits it), else its tables, pickled
    (:meth:`ppo_migrate.project.references.References.tables`)."""
    if context.get_start_method() == "fork":
        return None
    return references.of(current()).tables()


def _lifeline(context) -> tuple[int, int] | None:
    """A pipe whose write end only this process keeps (each forked worker closes its copy):
    its reading end sees the end of the file when this process ends, however it ends
    (SIGKILL included). ``None`` where workers are not forked (they inherit no pipe)."""
    return os.pipe() if context.get_start_method() == "fork" else None


def _watch_parent(reader: int, writer: int) -> None:
    """In a forked worker: end the worker when the parent dies.

    A worker waiting for its next file blocks on the executor's queue, whose pipe every
    worker also holds open: killed with SIGKILL or SIGTERM, the parent left its workers
    waiting for ever (a tester's ``kill -TERM`` of a 6,000-candidate ``check``: two
    workers orphaned). A daemon thread waits on the lifeline instead and, at its end,
    sends SIGTERM to the worker's main thread: a worker replacing a file holds SIGTERM
    back until the file is whole (:func:`_signals_deferred`), then ends.
    """
    os.close(writer)
    main = threading.main_thread().ident

    def watch() -> None:
        try:
            while os.read(reader, 1):
                pass
        except OSError:
            pass
        signal.pthread_kill(main, signal.SIGTERM)

    # started with SIGTERM and SIGINT blocked, so that the kernel never hands the worker's
    # signals to this thread: a SIGTERM it took would end the worker in the middle of a
    # replacement the main thread holds it back for
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    try:
        threading.Thread(target=watch, name="ppo-migrate-lifeline", daemon=True).start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _run_pool(
    candidates: list[str],
    settings: Settings,
    mode: Mode,
    jobs: int,
    progress: Callable[[int, int, str], None] | None,
    outcomes: list[FileOutcome],
    on_outcome: Callable[[FileOutcome], None] | None = None,
    check_stop: Callable[[], None] = lambda: None,
    settings_of: Mapping[str, Settings] | None = None,
) -> None:
    """Process ``candidates`` in worker processes, appending to ``outcomes`` (``settings_of``:
    path -> the settings of a file analysed with others than ``settings``).

    Each worker holds at most ``_IN_FLIGHT_PER_WORKER`` tasks of a few files each
    (:func:`_chunk`), so when a worker dies (a segfault, the OOM killer) only those files are suspects: each is
    retried alone in a fresh worker, the one that kills it again gets an
    ``internal_error``, and the rest of the run continues in a new pool. On
    Ctrl-C the workers are stopped (a write in progress completes first) and
    ``KeyboardInterrupt`` propagates.
    """
    import multiprocessing

    global _sigint_raises
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    thawed = False
    if context.get_start_method() == "fork":
        # imported once here, inherited by every worker: each candidate needs them, and a
        # worker importing them itself repeats ~13 ms of imports per worker (issue 13's
        # profile of the verl tree)
        _import_analysis(full=True, diff=mode is Mode.DIFF)
        if candidates:
            first = candidates[0]
            _warm_for_the_fork(first, settings_of.get(first, settings) if settings_of else settings)
        thawed = _frozen_for_the_fork()
    written_queue = context.SimpleQueue()
    lifeline = _lifeline(context)
    # Ctrl-C only sets the flag here; check_stop() raises, every _STOP_POLL_SECONDS at most.
    # A KeyboardInterrupt raised inside concurrent.futures' wait() (which takes every
    # future's lock in turn) left a lock taken: at exit the executor's thread blocked on it
    # and the process never ended (a tester's SIGINT to a 6,000-candidate check).
    previous, _sigint_raises = _sigint_raises, False
    try:
        _feed_pool(
            candidates, settings, mode, jobs, progress, outcomes, on_outcome, check_stop,
            context, written_queue, lifeline, settings_of or {},
        )
    finally:
        _sigint_raises = previous
        for fd in lifeline or ():
            os.close(fd)
        if thawed:
            gc.unfreeze()


def _warm_for_the_fork(path: str, settings: Settings) -> None:
    """Make, before the pool's workers are forked, the one-time look-ups of a first
    candidate's analysis that every worker would otherwise make again: which definition of
    the runtime function is in effect for ``path``'s folder
    (:func:`ppo_migrate.rules.signatures.callee_signature`: the repository's copies of verl,
    its pins, its mentions of an old verl, the installed verl; ~30 ms) with the modules it
    imports and the regexes it compiles. Each worker inherits the answers; a serial run
    makes them once, in its first file, and two workers made them once each (benchmark
    item 12: ~30 ms of each worker's CPU, the second a waste).

    Args:
        path: the first candidate (the largest: the workers' first task).
        settings: its settings.

    Never raises: a failure here is the analysis's to report, in the worker.
    """
    from ppo_migrate.rules.signatures import callee_signature

    qualified = [t for t in settings.targets if "." in t][:1]  # verl's: the others reuse its look-ups
    if not qualified:
        return
    try:
        callee_signature(path, qualified, settings, references.of(current()).reexports)
    except Exception:  # noqa: BLE001 - the worker's analysis meets and reports it
        pass


def _frozen_for_the_fork() -> bool:
    """Freeze what this process holds before it forks the pool's workers (Python's advice
    for ``fork``, :func:`gc.freeze`): the modules, the snapshot's bytes and the trees the
    look-outs parsed. Each worker inherits them, and its full collections walked them all
    and wrote to the pages they live in (copy-on-write), ~12-35 ms of CPU a worker on
    benchmark item 12's 200 files, which a serial run does not have. Garbage cycles
    pending now stay uncollected in the workers (a worker's life is the run's).

    Returns:
        Whether the parent is to unfreeze after the pool (:func:`gc.unfreeze`): not when
        something was frozen already (a scouted ``check`` froze the run's objects and
        unfreezes them itself at its end: the objects frozen here go with them).
    """
    was_frozen = gc.get_freeze_count() > 0
    gc.freeze()
    return not was_frozen


def _feed_pool(
    candidates, settings, mode, jobs, progress, outcomes, on_outcome, check_stop,
    context, written_queue, lifeline, settings_of,
) -> None:
    """:func:`_run_pool`'s loop: pools of workers until every candidate is done."""
    from collections import deque
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    total = len(candidates)
    todo = deque(candidates)
    done_count = 0

    def drain_written() -> None:
        """Pass the workers' announcements of replaced files to ``_on_written``."""
        while not written_queue.empty():
            outcome = written_queue.get()
            if _on_written is not None:
                _on_written(outcome)

    snapshot = current()

    def finished(outcome: FileOutcome) -> None:
        nonlocal done_count
        if outcome.written and outcome.new_data is not None and snapshot.staging:
            # staged by a worker (a preview): into this process's overlay too
            snapshot.overlay(outcome.path, outcome.new_data)
            outcome = outcome._replace(new_data=None)
        elif outcome.written:  # by a worker: this process's snapshot holds the old bytes
            snapshot.forget(outcome.path)
        outcomes.append(outcome)
        if on_outcome is not None and not outcome.pending:
            on_outcome(outcome)
        done_count += 1
        if progress is not None:
            progress(done_count, total, outcome.path)

    while todo:
        workers = min(jobs, len(todo))
        executor = ProcessPoolExecutor(
            workers, context, initializer=_worker_init,
            initargs=(written_queue, lifeline, _snapshot_state(context), _index_tables(context)),
        )
        in_flight: dict[Future[list[FileOutcome]], list[str]] = {}
        suspects: list[str] = []
        try:
            while todo or in_flight:
                while todo and not suspects and len(in_flight) < workers * _IN_FLIGHT_PER_WORKER:
                    chunk = [todo.popleft() for _ in range(_chunk(len(todo), workers))]
                    task = [(p, settings_of.get(p, settings), mode) for p in chunk]
                    in_flight[executor.submit(_process_chunk, task)] = chunk
                if not in_flight:
                    break
                ready, _ = wait(in_flight, timeout=_STOP_POLL_SECONDS, return_when=FIRST_COMPLETED)
                drain_written()  # before the results: a result then clears its announcement
                check_stop()
                for future in sorted(ready, key=lambda f: in_flight[f]):
                    chunk = in_flight.pop(future)
                    try:
                        done = future.result()
                    except BrokenProcessPool:
                        suspects.extend(chunk)
                        continue
                    for outcome in done:
                        finished(outcome)
        except BaseException:
            _stop_pool(executor)
            drain_written()  # what the stopped workers wrote before they ended
            raise
        executor.shutdown(wait=True)
        for p in sorted(suspects):
            finished(_run_isolated(p, settings_of.get(p, settings), mode, context, check_stop, lifeline))
            check_stop()


def _chunk(left: int, workers: int) -> int:
    """How many of the ``left`` files still to hand out go into the next task: up to
    :data:`_CHUNK_FILES`, so that each of the ``workers`` gets about :data:`_CHUNKS_AHEAD`
    tasks of them (one file a task near the end: no worker waits long for another's last
    task). 200 files on two workers: 24 tasks, 9 of 16 files and the last 7 of one."""
    return max(1, min(_CHUNK_FILES, left // (workers * _CHUNKS_AHEAD)))


def _process_chunk(task: list[tuple[str, Settings, Mode]]) -> list[FileOutcome]:
    """:func:`_process_star` of each file of a pool's task, in order."""
    return [_process_star(args) for args in task]


def _run_isolated(
    path: str,
    settings: Settings,
    mode: Mode,
    context,
    check_stop: Callable[[], None],
    lifeline: tuple[int, int] | None = None,
) -> FileOutcome:
    """Process one file in a worker of its own; a dead worker is this file's internal error."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures import TimeoutError as FutureTimeout
    from concurrent.futures.process import BrokenProcessPool

    executor = ProcessPoolExecutor(
        1, context, initializer=_worker_init,
        initargs=(None, lifeline, _snapshot_state(context), _index_tables(context)),
    )
    future = executor.submit(_process_star, (path, settings, mode))
    try:
        while True:
            try:
                return future.result(timeout=_STOP_POLL_SECONDS)
            except FutureTimeout:
                check_stop()
    except BrokenProcessPool:
        return FileOutcome(
            path, True, internal_error="internal error: the worker process died on this file"
        )
    except BaseException:
        _stop_pool(executor)
        raise
    finally:
        executor.shutdown(wait=True)


def _stop_pool(executor) -> None:
    """Stop a pool now: SIGTERM the workers, kill stragglers, drop queued files."""
    import time

    # Futures are not cancelled here: the executor's own thread fails them all
    # with BrokenProcessPool once it sees the workers gone (and Python 3.11's
    # thread raises InvalidStateError on a future cancelled under its feet).
    processes = list((getattr(executor, "_processes", None) or {}).values())
    for proc in processes:
        with contextlib.suppress(Exception):
            proc.terminate()  # deferred while a worker replaces a file
    deadline = time.monotonic() + _STOP_GRACE_SECONDS
    for proc in processes:
        with contextlib.suppress(Exception):
            proc.join(max(0.0, deadline - time.monotonic()))
    for proc in processes:
        with contextlib.suppress(Exception):
            if proc.is_alive():
                proc.kill()
                proc.join(1.0)
    with contextlib.suppress(Exception):
        executor.shutdown(wait=False, cancel_futures=True)
    # Let the executor's manager thread finish closing its wakeup pipe now: at exit,
    # concurrent.futures' atexit hook writes to that pipe, and on Python 3.11 a write
    # racing the thread's close printed "Exception ignored ... BrokenPipeError" after
    # Ctrl-C (a full-suite run of test_no_temp_file_left_after_ctrl_c_of_a_real_run).
    manager = getattr(executor, "_executor_manager_thread", None)
    if manager is not None:
        with contextlib.suppress(Exception):
            manager.join(_STOP_GRACE_SECONDS)
