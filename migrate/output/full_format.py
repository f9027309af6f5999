"""``full``: ruff's ``full`` text output, the default format (issue 28).

Each finding is the ``concise`` header line (``path:line:col: CODE [*] message``), then a
code frame (the finding's source lines behind a line-number gutter, carets under its
range), its fix as ``= help:`` (with ``(unsafe fix: ...)`` when ``apply`` makes it only
with ``--unsafe-fixes``; a finding with no fix gets the first sentence of its rule's remedy,
:attr:`ppo_migrate.diagnostics.Rule.fix`, so every finding says what to do) and why it is what it is as ``= note:`` (:class:`Reason`), the
places that decided it listed below as ``path:line: what``; then a blank line::

    a.py:7:12: PPO001 `get_ppo_ray_runtime_env()` called without the config in scope; pass `config`
      |
    7 |     return get_ppo_ray_runtime_env()
      |            ^^^^^^^^^^^^^^^^^^^^^^^^^ PPO001
      |
      = help: Pass `config` (unsafe fix: made only with `--unsafe-fixes`)
      = note: `config` is only possibly bound at the call
        a.py:6: `config` is assigned under the `if` at line 5

The summary lines are ``concise``'s (:func:`ppo_migrate.output.concise_format.emit`).

The source of a frame is the text the caller hands in (``sources``: what the run already
holds, standard input's text); a file it does not hold is read once, here at the edge,
when its first finding is written (never by the analysis). A file that cannot be read
(gone, standard input without its text) gets no frame: the rest of the block stays.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TextIO

from ppo_migrate.diagnostics import NOT_REWRITTEN, Diagnostic
from ppo_migrate.rules.codes import RULES
from ppo_migrate.files import decode_source
from ppo_migrate.output.concise_format import emit as emit_concise
from ppo_migrate.output.concise_format import header_line
from ppo_migrate.project.snapshot import active

#: the ``= help:`` of a notebook's finding whose fix a ``.py`` file would get (trial 26e, M4)
NOT_REWRITTEN_HELP = "Pass the config in the cell by hand: notebooks are not rewritten"

#: Lines of a long finding shown at its start and its end (the rest elided as ``...``).
_MAX_FRAME_LINES = 6


class SourceLines:
    """The lines of the files findings are in, each file read at most once.

    Args:
        sources: display path -> text the run already holds (not read again).
    """

    def __init__(self, sources: Mapping[str, str] | None = None) -> None:
        self._lines: dict[str, list[str] | None] = {
            path: text.splitlines() for path, text in (sources or {}).items()
        }
        self._notebooks: dict[str, dict[int, list[str]] | None] = {}

    def of(self, path: str) -> list[str] | None:
        """The lines of ``path`` (without line endings), or ``None`` when it cannot be read."""
        if path not in self._lines:
            self._lines[path] = _read_lines(path)
        return self._lines[path]

    def framed(self, d: Diagnostic) -> list[str] | None:
        """The lines ``d``'s frame shows: its cell's in a notebook (:meth:`cell`), else its
        file's (:meth:`of`)."""
        return self.cell(d.path, d.cell) if d.cell else self.of(d.path)

    def cell(self, path: str, cell: int) -> list[str] | None:
        """The source lines of ``cell`` of the notebook ``path`` (trial 26e, M4: a notebook's
        finding is framed in its cell, as ruff frames it), or ``None`` when the notebook
        cannot be read."""
        from ppo_migrate.project.notebooks import NotebookError, notebook_module

        if path not in self._notebooks:
            lines = self.of(path)
            try:
                self._notebooks[path] = notebook_module("\n".join(lines)).cells if lines else None
            except NotebookError:
                self._notebooks[path] = None
        cells = self._notebooks[path]
        return None if cells is None else cells.get(cell)

    def file_line(self, d: Diagnostic) -> int:
        """``d``'s line in its file: :attr:`Diagnostic.line`, or for a notebook's finding
        the line of the notebook's JSON text holding it
        (:func:`ppo_migrate.project.notebooks.file_line`): what GitHub annotations and SARIF
        regions point at."""
        if not d.cell:
            return d.line
        from ppo_migrate.project.notebooks import file_line

        lines = self.of(d.path)
        return file_line("\n".join(lines), d.cell, d.line) if lines else 1


#: Files larger than this get no frame (the analysis does not parse them either: PPO902).
_MAX_BYTES = 1 << 20


def _read_lines(path: str) -> list[str] | None:
    """A regular file's lines; ``None`` for anything else (a FIFO would block the read, a
    device never end), a file too large or unreadable. A file that does not decode gets its
    UTF-8 reading with a replacement character for each bad byte (its PPO901 is framed)."""
    if path in ("-", ""):
        return None
    import os
    import stat

    snapshot = active()
    try:
        if snapshot is not None:  # in a run: the bytes it read (or wrote), read once a run
            data = snapshot.read_bytes(path)
        else:
            st = os.stat(path)
            if not stat.S_ISREG(st.st_mode) or st.st_size > _MAX_BYTES:
                return None
            data = Path(path).read_bytes()
    except (OSError, ValueError):
        return None
    if len(data) > _MAX_BYTES:
        return None
    try:
        if snapshot is not None:
            return snapshot.source(path).text.splitlines()
        return decode_source(data)[0].splitlines()
    except (OSError, ValueError, UnicodeDecodeError, SyntaxError, LookupError):
        # a file that does not decode (PPO901) is framed as UTF-8 with U+FFFD for each bad
        # byte, as ruff shows it: the finding's line and column still point into it
        return data.decode("utf-8", errors="replace").splitlines()


def frame(d: Diagnostic, lines: list[str] | None) -> list[str]:
    """The code frame of ``d``: its source lines behind a gutter and carets under its
    range (ruff's), or ``[]`` without the source (or with a range outside it)."""
    if not lines or not (1 <= d.line <= d.end_line <= len(lines)):
        return []
    numbers = list(range(d.line, d.end_line + 1))
    if len(numbers) > _MAX_FRAME_LINES:
        half = _MAX_FRAME_LINES // 2
        numbers = numbers[:half] + [0] + numbers[-half:]
    width = len(str(d.end_line))
    blank = " " * width
    out = [f"{blank} |"]
    for n in numbers:
        if n == 0:
            out.append(f"{'.' * min(width, 3):>{width}} |")
            continue
        text = lines[n - 1].expandtabs(1)  # one column per character, as the caret counts
        out.append(f"{n:>{width}} | {text}".rstrip())
        start = d.column if n == d.line else _indent(text) + 1
        end = d.end_column if n == d.end_line else len(text) + 1
        carets = max(end - start, 1)
        mark = f" {d.code}" if n == d.end_line else ""
        out.append(f"{blank} | {' ' * (start - 1)}{'^' * carets}{mark}")
    out.append(f"{blank} |")
    return out


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _first_sentence(text: str) -> str:
    """``text`` up to the end of its first sentence (a ``.`` before a space or the end)."""
    flat = " ".join(text.split())
    end = flat.find(". ")
    return flat if end < 0 else flat[: end + 1]


def block(d: Diagnostic, lines: list[str] | None, unsafe_fixes: bool = False) -> str:
    """One finding in the ``full`` format (without the trailing blank line)."""
    out = [header_line(d, unsafe_fixes), *frame(d, lines)]
    if d.cell and NOT_REWRITTEN in d.message:  # a notebook's finding that has a fix elsewhere
        out.append(f"  = help: {NOT_REWRITTEN_HELP}")
    elif d.fix is not None:
        help_line = f"  = help: {d.fix.message}"
        if d.fix.applicability != "safe":
            help_line += (
                " (unsafe fix: made with `--unsafe-fixes`)"
                if unsafe_fixes
                else " (unsafe fix: made only with `--unsafe-fixes`)"
            )
        out.append(help_line)
    else:  # no fix: what to do instead, the finding's own or the rule's first sentence
        remedy = d.help or (_first_sentence(RULES[d.code].fix) if d.code in RULES else "")
        if remedy:
            out.append(f"  = help: {remedy}")
    if d.reason is not None:
        out.append(f"  = note: {d.reason.text}")
        for r in d.reason.lines:
            where = f"{r.path}:{r.line}" if r.line else r.path
            # a place that only repeats the note's text is named by its location alone
            out.append(f"    {where}" if r.message == d.reason.text else f"    {where}: {r.message}")
    return "\n".join(out)


def emit(
    diagnostics: Sequence[Diagnostic],
    stream: TextIO,
    *,
    root: Path,
    show_notices: bool = True,
    fixed: int | None = None,
    summary: bool = True,
    unsafe_fixes: bool = False,
    before_summary: Callable[[], None] | None = None,
    sources: Mapping[str, str] | None = None,
    unanalysed: int = 0,
) -> None:
    """Write each finding's block and the summary lines (``concise``'s).

    Args: as :func:`ppo_migrate.output.concise_format.emit`, and ``sources`` (display path
        -> text the run holds; other files are read once each, for their frames).
    """
    texts = SourceLines(sources)
    emit_concise(
        diagnostics,
        stream,
        root=root,
        show_notices=show_notices,
        fixed=fixed,
        summary=summary,
        unsafe_fixes=unsafe_fixes,
        before_summary=before_summary,
        render=lambda d, unsafe: block(d, texts.framed(d), unsafe) + "\n",
        unanalysed=unanalysed,
    )
