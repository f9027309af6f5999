"""ruff-style summaries of a ``check`` run: ``--statistics`` and ``--show-fixes``.

``--statistics`` (ruff's ``check --statistics``) prints one line per rule code,
most frequent first: ``count<TAB>code<TAB>[*] name`` (``[*]`` when the rule's
findings carry a fix, ``[ ]`` otherwise), or with ``--output-format json`` a
JSON list of ``{"code", "name", "count", "fixable"}``. ``--show-fixes`` lists per
file how many findings ``--fix`` fixed (or, without ``--fix``, would fix):
``- path:`` then ``    N × CODE (name)``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TextIO

from ppo_migrate.diagnostics import Diagnostic
from ppo_migrate.rules.codes import RULES


def rule_counts(
    diagnostics: Sequence[Diagnostic], unsafe_fixes: bool = False
) -> list[tuple[str, int, bool]]:
    """``(code, count, fixable)`` per rule code: most frequent first, then by code.

    ``fixable`` is true when ``apply`` would fix any of the code's findings (an unsafe
    fix only with ``unsafe_fixes``).
    Informational findings (PPO004) are counted like the others: they were listed.
    """
    counts = Counter(d.code for d in diagnostics)
    fixable = {d.code for d in diagnostics if d.applicable(unsafe_fixes)}
    return [(c, n, c in fixable) for c, n in sorted(counts.items(), key=lambda x: (-x[1], x[0]))]


def write_statistics(
    diagnostics: Sequence[Diagnostic], stream: TextIO, fmt: str, unsafe_fixes: bool = False
) -> None:
    """Write ``--statistics`` in ``fmt`` (``"full"``/``"concise"`` text or ``"json"``).

    Raises:
        ValueError: another format (ruff offers the statistics as text or JSON only).
    """
    rows = rule_counts(diagnostics, unsafe_fixes)
    if fmt == "json":
        import json  # here: the concise summary needs none

        doc = [
            {"code": c, "name": RULES[c].name, "count": n, "fixable": f} for c, n, f in rows
        ]
        stream.write(json.dumps(doc, indent=2) + "\n")
        return
    if fmt not in ("full", "concise"):
        raise ValueError(f"--statistics prints text or json, not {fmt}")
    width = max((len(str(n)) for _, n, _ in rows), default=1)
    for code, n, fix in rows:
        stream.write(f"{n:>{width}}\t{code}\t{'[*]' if fix else '[ ]'} {RULES[code].name}\n")


def write_fixes(
    fixed: Sequence[tuple[str, int]], stream: TextIO, *, applied: bool, code: str = "PPO001"
) -> None:
    """Write the ``--show-fixes`` enumeration (ruff's block, then a blank line; nothing
    when no file has a fix, as ruff writes nothing then).

    Args:
        fixed: ``(path, number of findings fixed)`` per file, any order; files with 0
            are left out.
        stream: where to write.
        applied: the fixes were written (``--fix``), else they would be.
        code: the rule the fixes are for (PPO001, the rule whose fix ``apply`` makes).
    """
    rows = sorted((p, n) for p, n in fixed if n)
    total = sum(n for _, n in rows)
    if not rows:
        return
    verb = "Fixed" if applied else "Would fix"
    stream.write(f"{verb} {total} error{'s' if total != 1 else ''}:\n")
    for path, n in rows:
        stream.write(f"- {path}:\n    {n} \u00d7 {code} ({RULES[code].name})\n")
    stream.write("\n")
