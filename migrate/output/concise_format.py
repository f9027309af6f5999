"""``concise``: ruff's default text output.

``path:line:col: CODE [*] message`` per finding (``[*]`` marks a fixable one),
then ``Found N errors.`` and ``[*] M fixable with `ppo-migrate apply`.``
Informational findings (PPO004 compatibility shims, listed with ``--show-shims``)
are listed but not counted as errors: ``N compatibility shims listed (not errors).``
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


def emit(
    diagnostics: Sequence[Diagnostic],
    stream: TextIO,
    *,
    root: Path,
    fixed: int | None = None,
    summary: bool = True,
) -> None:
    """Write the findings and the summary lines (nothing but the summary when clean).

    Informational findings are listed but counted apart from the errors.

    Args:
        fixed: with ``check --fix``, the findings fixed: the summary is ruff's
            ``Found N errors (F fixed, R remaining).``
        summary: ``False`` for ``check --quiet``: the findings only.
    """
    for d in diagnostics:
        stream.write(format_line(d) + "\n")
    if not summary:
        return
    errors = [d for d in diagnostics if not d.informational]
    n = len(errors)
    if fixed:
        total = n + fixed
        stream.write(
            f"Found {total} error{'s' if total != 1 else ''} ({fixed} fixed, {n} remaining).\n"
        )
    elif n == 0:
        stream.write("All checks passed!\n")
    else:
        stream.write(f"Found {n} error{'s' if n != 1 else ''}.\n")
    if n:
        fixable = sum(1 for d in errors if d.fixable)
        if fixable:
            stream.write(f"[*] {fixable} fixable with `ppo-migrate apply`.\n")
    shims = len(diagnostics) - n
    if shims:
        stream.write(
            f"{shims} compatibility shim{'s' if shims != 1 else ''} listed "
            f"(not {'errors' if shims != 1 else 'an error'}).\n"
        )
