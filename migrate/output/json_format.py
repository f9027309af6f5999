"""``json``: a JSON array shaped like ruff's ``--output-format json``.

One object per finding, keys sorted as ruff writes them::

    {
      "code": "PPO001",
      "end_location": {"column": 34, "row": 3},
      "filename": "/abs/path/to/trainer.py",
      "fix": {
        "applicability": "safe",
        "edits": [{"content": "config", "end_location": {...}, "location": {...}}],
        "message": "Pass `config`"
      },
      "location": {"column": 10, "row": 3},
      "message": "...",
      "scope": "run_ppo",
      "url": "https://.../rules.md#ppo001"
    }

``fix`` is ``null`` when the finding has no fix. ``related`` (a list of
``{"filename", "location", "message"}``) appears only when the finding has
related locations; ``callee`` (a string) only when the call's definition in
effect was decided by something (an in-tree copy, ``verl-version``, the declared
or installed verl; PPO005 always has it). ``reason`` (why the finding is what it is,
issue 28: ``{"kind", "text", "lines": [{"filename", "location", "message"}]}``, the
places that decided it) appears only when the finding has one: a key absent, never
``null``, like ``related`` and ``callee``. In a notebook (``*.ipynb``, trial 26e, M4) a
finding has ``cell`` (the cell's number, 1-based among all the cells, as ruff's ``cell``)
and its ``location``/``end_location`` rows are lines of that cell, as ruff writes them;
``fix`` is ``null`` there (notebooks are not rewritten). ``row`` is 1-based; ``column`` is 1-based and counts Unicode
code points; ``end_location`` is exclusive.

``filename`` is absolute, like ruff's: the path as discovered made absolute
against the working directory with :func:`os.path.abspath` (normalised, symlinks
not resolved, so it names the file the way the user reached it). Standard input
without ``--stdin-filename`` keeps the name ``-``.

Non-ASCII text is written as ``\\uXXXX`` escapes (``json.dump``'s default), so
the output is plain ASCII and never fails on a stream with a narrow encoding.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from ppo_migrate.diagnostics import Diagnostic, Edit, Reason, Related
from ppo_migrate.rules.codes import RULES


def absolute_filename(path: str) -> str:
    """The absolute form of a display path (``-`` for standard input stays ``-``).

    Args:
        path: the path as discovered (relative to the working directory or absolute).

    Returns:
        A normalised absolute path string.
    """
    if path == "-":
        return path
    return os.path.abspath(path)


def _location(row: int, column: int) -> dict[str, int]:
    return {"column": column, "row": row}


def _edit(edit: Edit) -> dict[str, Any]:
    return {
        "content": edit.content,
        "end_location": _location(edit.end_line, edit.end_column),
        "location": _location(edit.line, edit.column),
    }


def _related(r: Related) -> dict[str, Any]:
    return {
        "filename": absolute_filename(r.path),
        "location": _location(r.line, r.column),
        "message": r.message,
    }


def to_dict(d: Diagnostic) -> dict[str, Any]:
    """One diagnostic as a ruff-shaped JSON object (a plain ``dict``).

    Args:
        d: the diagnostic.

    Returns:
        The object described in the module docstring.
    """
    fix = None
    if d.fix is not None:
        fix = {
            "applicability": d.fix.applicability,
            "edits": [_edit(e) for e in d.fix.edits],
            "message": d.fix.message,
        }
    out: dict[str, Any] = {
        "code": d.code,
        "end_location": _location(d.end_line, d.end_column),
        "filename": absolute_filename(d.path),
        "fix": fix,
        "location": _location(d.line, d.column),
        "message": d.message,
        "scope": d.scope,
        "url": RULES[d.code].url,
    }
    if d.related:
        out["related"] = [_related(r) for r in d.related]
    if d.callee:
        out["callee"] = d.callee
    if d.reason is not None:
        out["reason"] = reason_dict(d.reason)
    if d.cell:
        out["cell"] = d.cell
    return out


def reason_dict(reason: Reason) -> dict[str, Any]:
    """A :class:`Reason` as JSON: ``{"kind", "text", "lines"}``, each line a related
    location (``{"filename", "location", "message"}``, ``filename`` absolute)."""
    return {
        "kind": reason.kind,
        "lines": [_related(r) for r in reason.lines],
        "text": reason.text,
    }


def emit(diagnostics: Sequence[Diagnostic], stream: TextIO, *, root: Path) -> None:
    """Write ``diagnostics`` as a JSON array (``[]`` when clean), then a newline.

    Args:
        diagnostics: the findings, sorted by path, line, column.
        stream: a text stream.
        root: unused (``filename`` is absolute); accepted for the emitter signature.
    """
    del root
    json.dump([to_dict(d) for d in diagnostics], stream, indent=2, sort_keys=True)
    stream.write("\n")
