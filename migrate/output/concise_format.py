"""``concise``: ruff's default text output.

``path:line:col: CODE [*] message`` per finding (``[*]`` marks one with a safe
fix; its reason's short form, :meth:`Reason.short`, in parentheses after the message
when it has one), then ``Found N errors.``, ``[*] M fixable with `ppo-migrate apply`.`` and,
as ruff says it, ``K more fixable with --unsafe-fixes.`` for unsafe fixes (a
config only possibly bound at the call).
Informational findings (PPO004 compatibility shims, listed with ``--show-shims``)
are listed but not counted as errors: ``N compatibility shims listed (not errors).``
Notices (PPO005, calls whose callee takes no config) are listed only with
``--show-notices`` but always summed up, one line per reason::

    4 calls left as they are: `verl/verl/trainer/constants_ppo.py:38` defines
    `get_ppo_ray_runtime_env()` without a config parameter (pre verl PR #6976);
    update that copy, or run with --use-ppo-runtime
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from ppo_migrate.diagnostics import NOTICE_CODES, NOTICE_SEPARATOR, Diagnostic


def header_line(d: Diagnostic, unsafe_fixes: bool = False) -> str:
    """One finding as ``path:line:col: CODE [*] message`` (``[*]``: a fix ``apply`` makes;
    an unsafe one only with ``unsafe_fixes``): the ``full`` format's first line."""
    mark = " [*]" if d.applicable(unsafe_fixes) else ""
    return f"{d.path}:{d.position}: {d.code}{mark} {d.message}"


def format_line(d: Diagnostic, unsafe_fixes: bool = False) -> str:
    """One finding as ``concise`` writes it: :func:`header_line`, then the short form of
    its reason in parentheses when it has one (:func:`short_reason`)::

        a.py:7:12: PPO001 `...` called without the config in scope; pass `config` (`config` is only possibly bound at the call (a.py:6))
    """
    line = header_line(d, unsafe_fixes)
    short = short_reason(d)
    if short:
        line += f" ({short})"
    return line


def short_reason(d: Diagnostic) -> str:
    """:meth:`Reason.short` of ``d``'s reason, or ``""`` when it has none, when the finding's
    fix is safe (a one-line format says why a fix is *not* made; ``full`` and JSON carry every
    reason, ``trusted-by-name`` included), or when its message already says it (the reason's
    text, or its first place: ``(unsafe fix: tests/test_x.py:13 replaces the runtime
    function, ...)``, said before reasons were structured)."""
    reason = d.reason
    if reason is None or (d.fix is not None and d.fix.applicability == "safe"):
        return ""
    # the message may join the reason to its remedy with ``;`` where the reason has ``:``
    if reason.text in d.message or reason.text.replace(": ", "; ") in d.message:
        return ""
    if reason.lines:
        first = reason.lines[0]
        if f"{first.path}:{first.line} " in d.message:
            return ""
    return reason.short()


def notice_summary(diagnostics: Sequence[Diagnostic]) -> list[str]:
    """One line per distinct reason of the notices (PPO005) among ``diagnostics``.

    Returns:
        e.g. ``["4 calls left as they are: <reason>; <remedy>"]``, in the order
        the reasons first occur; ``[]`` without notices.
    """
    counts: dict[str, int] = {}
    for d in diagnostics:
        if d.code in NOTICE_CODES:
            reason = d.message.partition(NOTICE_SEPARATOR)[2] or d.message
            counts[reason] = counts.get(reason, 0) + 1
    return [
        f"{n} call{'s' if n != 1 else ''} left as {'they are' if n != 1 else 'it is'}: {reason}"
        for reason, n in counts.items()
    ]


def listed(diagnostics: Sequence[Diagnostic], *, show_notices: bool) -> list[Diagnostic]:
    """The findings the concise output lists: notices only with ``show_notices``."""
    if show_notices:
        return list(diagnostics)
    return [d for d in diagnostics if d.code not in NOTICE_CODES]


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
    render: Callable[[Diagnostic, bool], str] | None = None,
    unanalysed: int = 0,
) -> None:
    """Write the findings and the summary lines (nothing but the summary when clean).

    Informational findings are listed but counted apart from the errors; notices
    (PPO005) are listed only with ``show_notices`` and always summed up.

    Args:
        show_notices: list the notices too (``--show-notices``).
        fixed: with ``check --fix``, the findings fixed: the summary is ruff's
            ``Found N errors (F fixed, R remaining).``
        summary: ``False`` for ``check --quiet``: the findings only.
        unsafe_fixes: unsafe fixes are made too (``--unsafe-fixes``): marked ``[*]`` and
            counted as fixable, with no "more fixable" line.
        before_summary: called between the findings and the summary (``--show-fixes``
            writes its block there, as ruff does).
        unanalysed: files whose analysis ended in an internal error (their messages are
            written after the summary, on stderr): a run with such a file never says "All
            checks passed!" (trial 26i, I-C1).
        render: how one finding is written (``(diagnostic, unsafe_fixes) -> text``, a
            newline added): :func:`format_line` by default; the ``full`` format's block.
    """
    write_one = render or format_line
    for d in listed(diagnostics, show_notices=show_notices):
        stream.write(write_one(d, unsafe_fixes) + "\n")
    if before_summary is not None:
        before_summary()
    if not summary:
        return
    errors = [d for d in diagnostics if not d.informational]
    n = len(errors)
    if fixed:
        total = n + fixed
        stream.write(
            f"Found {total} error{'s' if total != 1 else ''} ({fixed} fixed, {n} remaining).\n"
        )
    elif n == 0 and unanalysed:
        stream.write(
            f"No errors found in the files analysed; {unanalysed} file"
            f"{'s' if unanalysed != 1 else ''} could not be analysed.\n"
        )
    elif n == 0:
        stream.write("All checks passed!\n")
    else:
        stream.write(f"Found {n} error{'s' if n != 1 else ''}.\n")
    if n:
        fixable = sum(1 for d in errors if d.applicable(unsafe_fixes))
        if fixable:
            how = "`ppo-migrate apply --unsafe-fixes`" if unsafe_fixes else "`ppo-migrate apply`"
            stream.write(f"[*] {fixable} fixable with {how}.\n")
        unsafe = sum(1 for d in errors if d.fixable and not d.applicable(unsafe_fixes))
        if unsafe:
            stream.write(f"{unsafe} more fixable with --unsafe-fixes.\n")
    shims = sum(1 for d in diagnostics if d.informational and d.code not in NOTICE_CODES)
    if shims:
        stream.write(
            f"{shims} compatibility shim{'s' if shims != 1 else ''} listed "
            f"(not {'errors' if shims != 1 else 'an error'}).\n"
        )
    for line in notice_summary(diagnostics):
        stream.write(line + "\n")
