"""``concise``: ruff's default text output.

``path:line:col: CODE [*] message`` per finding (``[*]`` marks a fixable one),
then ``Found N errors.`` and ``[*] M fixable with `ppo-migrate apply`.``
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from ppo_migrate.diagnostics import Diagnostic


def format_line(d: Diagnostic) -> str:
    """One finding as ``path:line:col: CODE [*] message``."""
    mark = " [*]" if d.fixable else ""
    return f"{d.path}:{d.line}:{d.column}: {d.code}{mark} {d.message}"


def emit(diagnostics: Sequence[Diagnostic], stream: TextIO, *, root: Path) -> None:
    """Write the findings and the summary lines (nothing but the summary when clean)."""
    for d in diagnostics:
        stream.write(format_line(d) + "\n")
    n = len(diagnostics)
    if n == 0:
        stream.write("All checks passed!\n")
        return
    stream.write(f"Found {n} error{'s' if n != 1 else ''}.\n")
    fixable = sum(1 for d in diagnostics if d.fixable)
    if fixable:
        stream.write(f"[*] {fixable} fixable with `ppo-migrate apply`.\n")
