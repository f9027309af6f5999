"""``github``: GitHub Actions workflow commands, one annotation per finding.

::

    ::error title=ppo-migrate (PPO001),file=src/trainer.py,line=3,col=10,endLine=3,endColumn=34::PPO001 `get_ppo_ray_runtime_env()` called ...

``file`` is repository-relative with forward slashes, as annotations need:
relative to the git work tree holding ``root`` (see
:func:`ppo_migrate.output.sarif_format.repository_root`), else to ``root``; a file
outside it keeps the path as given. Informational findings (PPO004 compatibility
shims) are ``::notice`` annotations instead of ``::error``. Escaping is the Actions toolkit's: in the message
``%``, CR and LF become ``%25``, ``%0D``, ``%0A``; in property values ``:`` and
``,`` also become ``%3A`` and ``%2C``. Nothing is printed when there are no findings.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from ppo_migrate.diagnostics import Diagnostic
from ppo_migrate.output.concise_format import short_reason
from ppo_migrate.output.full_format import SourceLines
from ppo_migrate.output.sarif_format import relative_path, repository_root


def escape_data(text: str) -> str:
    """Escape a workflow-command message (``%``, CR, LF).

    Args:
        text: the message.

    Returns:
        The escaped text, safe after ``::``.
    """
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow-command property value (``%``, CR, LF, ``:``, ``,``).

    Args:
        text: the property value.

    Returns:
        The escaped value, safe between ``=`` and ``,``.
    """
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_line(d: Diagnostic, root: Path, texts: SourceLines | None = None) -> str:
    """One finding as an ``::error`` (``::notice`` if informational) workflow command
    (without the newline).

    A notebook's finding (:attr:`Diagnostic.cell`) points at the line of the notebook's JSON
    text that holds it (an annotation is on a line of the file; its cell's line and column
    are no column of that line) and its message starts with ruff's ``cell N:line:col:``.

    Args:
        d: the diagnostic.
        root: the repository root ``file`` is made relative to (use
            :func:`~ppo_migrate.output.sarif_format.repository_root` first).
        texts: the files' lines, read once a run (a notebook's, for its file lines).
    """
    file = relative_path(d.path, root) if d.path != "-" else None
    if file is None:
        file = d.path
    if d.cell:
        line = str((texts or SourceLines()).file_line(d))
        props = {"title": f"ppo-migrate ({d.code})", "file": file, "line": line, "endLine": line}
    else:
        props = {
            "title": f"ppo-migrate ({d.code})",
            "file": file,
            "line": str(d.line),
            "col": str(d.column),
            "endLine": str(d.end_line),
            "endColumn": str(d.end_column),
        }
    head = ",".join(f"{k}={escape_property(v)}" for k, v in props.items())
    command = "notice" if d.informational else "error"
    text = f"{d.code} {d.message}" if not d.cell else f"{d.position}: {d.code} {d.message}"
    short = short_reason(d)
    if short:
        text += f" ({short})"
    return f"::{command} {head}::{escape_data(text)}"


def emit(diagnostics: Sequence[Diagnostic], stream: TextIO, *, root: Path) -> None:
    """Write one ``::error`` (or ``::notice``) line per finding (nothing when clean).

    Args:
        diagnostics: the findings, sorted by path, line, column.
        stream: a text stream.
        root: the project root; ``file`` is relative to the git work tree
            holding it, else to it.
    """
    base = repository_root(root)
    texts = SourceLines()
    for d in diagnostics:
        stream.write(format_line(d, base, texts) + "\n")
