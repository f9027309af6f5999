"""Per-file pipeline: read, prefilter, parse, analyse, rewrite; over a process pool.

Most files stop at the byte prefilter: a file whose bytes contain none of the
targets' last names cannot refer to a target (every static reference to a
function names it), so it is never decoded or parsed and LibCST is never
imported for it. Candidates go through :func:`process_file`, in this process or
in a pool of worker processes; results come back in path order whatever the
worker count.
"""

from __future__ import annotations

import difflib
import enum
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ppo_migrate.diagnostics import Diagnostic
from ppo_migrate.files import (
    FileChanged,
    SourceFile,
    UnreadableFile,
    atomic_write,
    decode_source,
    encode_source,
    read_source,
)
from ppo_migrate.settings import Settings

# Below this many candidate files a pool costs more (worker start-up) than it saves.
POOL_MIN_CANDIDATES = 8


class Mode(enum.Enum):
    """What the run does with each candidate file."""

    CHECK = "check"  #: diagnostics only
    APPLY = "apply"  #: rewrite files in place (atomically)
    DIFF = "diff"  #: compute the rewrite, print a unified diff, write nothing
    ADD_NOQA = "add-noqa"  #: append ``# noqa: CODE`` to each remaining finding
    FIX_STDOUT = "fix-stdout"  #: compute the rewrite and return its bytes (standard input)


@dataclass(frozen=True)
class FileOutcome:
    """What happened to one file.

    Attributes:
        path: the display path.
        candidate: the file's bytes named a target (it was parsed).
        diagnostics: remaining findings, sorted.
        fixed: calls rewritten (written with APPLY; would be, with DIFF).
        diff: the unified diff (DIFF mode), else ``None``.
        written: the file was replaced on disk.
        noqa_added: ``# noqa`` comments written (ADD_NOQA mode).
        internal_error: a crash of ppo-migrate itself on this file (exit code 2).
        new_data: the rewritten bytes (FIX_STDOUT mode; the input when unchanged).
        imports: imports moved to ``ppo_runtime`` (``apply --use-ppo-runtime``).
    """

    path: str
    candidate: bool = False
    diagnostics: tuple[Diagnostic, ...] = ()
    fixed: int = 0
    diff: str | None = None
    written: bool = False
    noqa_added: int = 0
    internal_error: str | None = None
    new_data: bytes | None = None
    imports: int = 0


@dataclass
class RunResult:
    """All outcomes of a run, in path order.

    Attributes:
        outcomes: one per processed file.
        interrupted: the run was stopped by Ctrl-C.
    """

    outcomes: list[FileOutcome] = field(default_factory=list)
    interrupted: bool = False

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Every remaining diagnostic, sorted by path, line, column."""
        out = [d for o in self.outcomes for d in o.diagnostics]
        out.sort(key=Diagnostic.sort_key)
        return out

    @property
    def internal_errors(self) -> list[str]:
        """One line per file on which ppo-migrate itself crashed."""
        return [f"{o.path}: {o.internal_error}" for o in self.outcomes if o.internal_error]


def _file_diag(path: str, code: str, message: str, line: int = 1, column: int = 1) -> Diagnostic:
    return Diagnostic(path, line, column, line, column, code, message)


def is_candidate(data: bytes, names: Sequence[bytes]) -> bool:
    """The byte prefilter: does the file name any target?

    Args:
        data: the file's raw bytes.
        names: the targets' last names, encoded (e.g. ``b"get_ppo_ray_runtime_env"``).
    """
    return any(n in data for n in names)


def _line_of_offset(data: bytes, offset: int) -> tuple[int, int]:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


def process_file(path: str, settings: Settings, mode: Mode) -> FileOutcome:
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
        source = read_source(Path(path))
    except UnreadableFile as exc:
        return FileOutcome(path, diagnostics=(_file_diag(path, "PPO901", str(exc)),))
    return process_data(path, source.data, settings, mode, source=source)


def process_data(
    path: str, data: bytes, settings: Settings, mode: Mode, *, source: SourceFile | None = None
) -> FileOutcome:
    """Run the pipeline on bytes already read (a file, or standard input).

    Args:
        path: the display path; it also decides the module's package.
        data: the source bytes.
        settings: the run's settings.
        mode: what to do; APPLY and ADD_NOQA need ``source`` to write back.
        source: the file read, for the atomic write's change check.

    Returns:
        A :class:`FileOutcome` (see :func:`process_file`).
    """
    names = [n.encode() for n in settings.target_names]
    if not is_candidate(data, names):
        return FileOutcome(path, new_data=data if mode is Mode.FIX_STDOUT else None)
    try:
        text, encoding, bom = decode_source(data)
    except UnicodeDecodeError as exc:
        line, col = _line_of_offset(data, exc.start)
        return FileOutcome(
            path,
            True,
            (_file_diag(path, "PPO901", f"cannot decode: {exc.reason} ({exc.encoding})", line, col),),
        )
    except (SyntaxError, LookupError) as exc:
        msg = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        return FileOutcome(path, True, (_file_diag(path, "PPO901", f"cannot decode: {msg}"),))

    from libcst import ParserSyntaxError

    from ppo_migrate.codemod import process_text

    try:
        result = process_text(text, path, settings, fix=mode in (Mode.APPLY, Mode.DIFF, Mode.FIX_STDOUT)
        )
    except ParserSyntaxError as exc:
        message = str(exc.message).splitlines()[0] if exc.message else "invalid syntax"
        line, column = exc.raw_line, exc.raw_column + 1
        precise = _python_syntax_error(text, path)
        if precise is not None:  # LibCST's native parser points at the next token
            message, line, column = precise
        return FileOutcome(
            path, True, (_file_diag(path, "PPO902", f"syntax error: {message}", line, column),)
        )
    except RecursionError:
        return FileOutcome(
            path, True, (_file_diag(path, "PPO902", "cannot parse: nested too deeply"),)
        )
    except Exception as exc:  # LibCST raises a few unusual exceptions on odd input
        if _is_parse_failure(exc):
            first = str(exc).splitlines()[0] if str(exc) else ""
            return FileOutcome(
                path,
                True,
                (_file_diag(path, "PPO902", f"cannot parse: {type(exc).__name__}: {first}"),),
            )
        return FileOutcome(path, True, internal_error=f"internal error: {type(exc).__name__}: {exc}")

    diagnostics = result.diagnostics
    if mode is Mode.FIX_STDOUT:
        new = data if result.new_text is None else encode_source(result.new_text, encoding, bom)
        return FileOutcome(path, True, diagnostics, result.fixed, new_data=new)
    if mode is Mode.DIFF and result.new_text is not None:
        diff = "".join(
            difflib.unified_diff(
                text.splitlines(keepends=True),
                result.new_text.splitlines(keepends=True),
                fromfile=f"a/{path}",
                tofile=f"b/{path}",
            )
        )
        return FileOutcome(path, True, diagnostics, result.fixed, diff=diff, imports=result.imports)
    if mode is Mode.APPLY and result.new_text is not None and source is not None:
        try:
            atomic_write(Path(path), encode_source(result.new_text, encoding, bom), expected=source)
        except FileChanged as exc:
            diag = _file_diag(path, "PPO904", f"not rewritten: {exc}")
            return FileOutcome(path, True, (diag, *diagnostics))
        except (OSError, UnicodeEncodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            diag = _file_diag(path, "PPO901", f"cannot write: {reason}")
            return FileOutcome(path, True, (diag, *diagnostics))
        return FileOutcome(
            path, True, diagnostics, result.fixed, written=True, imports=result.imports
        )
    if mode is Mode.ADD_NOQA and diagnostics and source is not None:
        from ppo_migrate.noqa import add_noqa

        new_text, added = add_noqa(text, diagnostics)
        if added:
            try:
                atomic_write(Path(path), encode_source(new_text, encoding, bom), expected=source)
            except FileChanged as exc:
                return FileOutcome(
                    path, True, (_file_diag(path, "PPO904", f"not rewritten: {exc}"),)
                )
            except OSError as exc:
                return FileOutcome(
                    path, True, (_file_diag(path, "PPO901", f"cannot write: {exc.strerror}"),)
                )
        return FileOutcome(path, True, (), written=bool(added), noqa_added=added)
    return FileOutcome(path, True, diagnostics)


def _python_syntax_error(text: str, path: str) -> tuple[str, int, int] | None:
    """Python's own message and 1-based position for a syntax error, if it sees one.

    LibCST's native parser reports the line after the error with column 0 (its
    message names the next token), so the position of a PPO902 comes from the
    running interpreter's parser when it also rejects the text.

    Args:
        text: the decoded source.
        path: the display path (for the compile call only).

    Returns:
        ``(message, line, column)`` (column in code points), or ``None`` when
        Python accepts the text or gives no position.
    """
    import ast

    try:
        compile(text, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as exc:
        if not exc.lineno:
            return None
        return exc.msg or "invalid syntax", exc.lineno, max(exc.offset or 1, 1)
    except (ValueError, RecursionError, MemoryError, OverflowError):
        return None
    return None


def _is_parse_failure(exc: Exception) -> bool:
    """LibCST's parser raises ``Exception`` subclasses beyond ParserSyntaxError."""
    module = type(exc).__module__ or ""
    return module.startswith("libcst") or isinstance(exc, (ValueError, IndexError, TypeError))


def _process_star(args: tuple[str, Settings, Mode]) -> FileOutcome:
    path, settings, mode = args
    try:
        return process_file(path, settings, mode)
    except Exception as exc:  # one file's failure never kills the pool
        return FileOutcome(path, True, internal_error=f"internal error: {type(exc).__name__}: {exc}")


def prefilter(paths: Sequence[str], settings: Settings) -> tuple[list[str], list[FileOutcome]]:
    """Split files into candidates and outcomes of files settled already.

    Reads each file once; files that cannot be read become PPO901 outcomes.

    Returns:
        ``(candidates, settled)``.
    """
    names = [n.encode() for n in settings.target_names]
    candidates: list[str] = []
    settled: list[FileOutcome] = []
    for p in paths:
        try:
            with open(p, "rb") as fh:
                data = fh.read()
        except OSError:
            candidates.append(p)  # let process_file name the exact problem
            continue
        if any(n in data for n in names):
            candidates.append(p)
    return candidates, settled


def run(
    paths: Sequence[str],
    settings: Settings,
    mode: Mode,
    *,
    jobs: int | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> RunResult:
    """Process files and return their outcomes in path order.

    Args:
        paths: display paths of the files (from :func:`ppo_migrate.discovery.discover`).
        settings: the run's settings.
        mode: check, apply, diff or add-noqa.
        jobs: worker processes; ``None`` means ``os.cpu_count()``. A pool is used
            only when ``jobs > 1`` and there are at least ``POOL_MIN_CANDIDATES``
            candidates.
        progress: called as ``progress(done, total, path)`` after each candidate.

    Returns:
        A :class:`RunResult`; ``interrupted`` is set when Ctrl-C stopped it.
    """
    candidates, settled = prefilter([os.fspath(p) for p in paths], settings)
    result = RunResult(outcomes=settled)
    jobs = jobs or os.cpu_count() or 1
    total = len(candidates)
    try:
        if jobs > 1 and total >= POOL_MIN_CANDIDATES:
            result.outcomes.extend(_run_pool(candidates, settings, mode, jobs, progress))
        else:
            for i, p in enumerate(candidates, 1):
                result.outcomes.append(_process_star((p, settings, mode)))
                if progress is not None:
                    progress(i, total, p)
    except KeyboardInterrupt:
        result.interrupted = True
    result.outcomes.sort(key=lambda o: o.path)
    return result


def _run_pool(
    candidates: list[str],
    settings: Settings,
    mode: Mode,
    jobs: int,
    progress: Callable[[int, int, str], None] | None,
) -> list[FileOutcome]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    import ppo_migrate.codemod  # noqa: F401  (import once; forked workers inherit it)

    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    workers = min(jobs, len(candidates))
    chunksize = max(1, min(16, len(candidates) // (workers * 8)))
    outcomes: list[FileOutcome] = []
    executor = ProcessPoolExecutor(max_workers=workers, mp_context=context)
    try:
        work = [(p, settings, mode) for p in candidates]
        for i, outcome in enumerate(executor.map(_process_star, work, chunksize=chunksize), 1):
            outcomes.append(outcome)
            if progress is not None:
                progress(i, len(candidates), outcome.path)
    except BrokenProcessPool as exc:
        done = {o.path for o in outcomes}
        for p in candidates:
            if p not in done:
                outcomes.append(_process_star((p, settings, mode)))
        del exc
    except BaseException:
        executor.shutdown(wait=False, cancel_futures=True)
        for proc in list(getattr(executor, "_processes", {}).values()):
            proc.terminate()
        raise
    executor.shutdown(wait=True)
    return outcomes
