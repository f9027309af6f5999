"""``concise``: ruff's default text output.

``path:line:col: CODE [*] message`` per finding (``[*]`` marks one with a safe
fix), then ``Found N errors.``, ``[*] M fixable with `ppo-migrate apply`.`` and,
as ruff says it, ``K more fixable with --unsafe-fixes.`` for unsafe fixes (a
config only possibly bound at the call).
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
    mark = " [*]" if _safe(d) else ""
    return f"{d.path}:{d.line}:{d.column}: {d.code}{mark} {d.message}"


def _safe(d: Diagnostic) -> bool:
    return d.fix is not None and d.fix.applicability == "safe"


def emit(diagnostics: Sequence[Diagnostic], stream: TextIO, *, root: Path) -> None:
    """Write the findings and the summary lines (nothing but the summary when clean).

    Informational findings are listed but counted apart from the errors.
    """
    for d in diagnostics:
        stream.write(format_line(d) + "\n")
    errors = [d for d in diagnostics if not d.informational]
    n = len(errors)
    if n == 0:
        stream.write("All checks passed!\n")
    else:
        stream.write(f"Found {n} error{'s' if n != 1 else ''}.\n")
        fixable = sum(1 for d in errors if _safe(d))
        if fixable:
            stream.write(f"[*] {fixable} fixable with `ppo-migrate apply`.\n")
        unsafe = sum(1 for d in errors if d.fix is not None and not _safe(d))
        if unsafe:
            stream.write(f"{unsafe} more fixable with --unsafe-fixes.\n")
    shims = len(diagnostics) - n
    if shims:
        stream.write(
            f"{shims} compatibility shim{'s' if shims != 1 else ''} listed "
            f"(not {'errors' if shims != 1 else 'an error'}).\n"
        )
