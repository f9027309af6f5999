"""The ``concise`` output format: ruff's default text output and its summary lines."""

from __future__ import annotations

import io
from pathlib import Path

from ppo_migrate.diagnostics import Diagnostic, Edit, Fix
from ppo_migrate.output import emit

FIXABLE = Diagnostic(
    "src/trainer.py",
    4,
    26,
    4,
    51,
    "PPO001",
    "pass `config`",
    fix=Fix("Pass `config`", (Edit("config", 4, 50, 4, 50),)),
)
ENTRY = Diagnostic("server.py", 7, 35, 7, 60, "PPO002", "no config in scope")
SHIM = Diagnostic("shim.py", 8, 15, 8, 40, "PPO004", "a compatibility shim; left as it is")


def _emit(diagnostics) -> list[str]:
    out = io.StringIO()
    emit("concise", diagnostics, out, root=Path("."))
    return out.getvalue().splitlines()


def test_findings_and_summary() -> None:
    assert _emit([FIXABLE, ENTRY]) == [
        "src/trainer.py:4:26: PPO001 [*] pass `config`",
        "server.py:7:35: PPO002 no config in scope",
        "Found 2 errors.",
        "[*] 1 fixable with `ppo-migrate apply`.",
    ]


def test_clean() -> None:
    assert _emit([]) == ["All checks passed!"]


def test_compatibility_shims_are_listed_but_not_counted_as_errors() -> None:
    """Bug: a PPO004 (informational, never fails the run) made "Found 1 error."."""
    assert _emit([ENTRY, SHIM]) == [
        "server.py:7:35: PPO002 no config in scope",
        "shim.py:8:15: PPO004 a compatibility shim; left as it is",
        "Found 1 error.",
        "1 compatibility shim listed (not an error).",
    ]
    assert _emit([SHIM, SHIM]) == [
        "shim.py:8:15: PPO004 a compatibility shim; left as it is",
        "shim.py:8:15: PPO004 a compatibility shim; left as it is",
        "All checks passed!",
        "2 compatibility shims listed (not errors).",
    ]


def test_a_reason_the_message_already_says_with_a_semicolon_is_not_said_twice() -> None:
    """The message joins a reason to its remedy with ``;`` where the reason's own text has
    ``:`` ("nothing says which verl runs ...: declare ..."): the line said it twice."""
    from ppo_migrate.diagnostics import Reason

    said = "nothing says which verl runs, so the config may not be accepted"
    remedy = "declare the verl the project runs, or pass --verl-version"
    d = Diagnostic(
        "app/train.py", 7, 11, 7, 36, "PPO001", f"pass `config` (unsafe fix: {said}; {remedy})",
        fix=Fix("Pass `config`", (Edit("config", 7, 35, 7, 35),), applicability="unsafe"),
        reason=Reason("newest-assumed", f"{said}: {remedy}"),
    )
    assert _emit([d])[0] == f"app/train.py:7:11: PPO001 pass `config` (unsafe fix: {said}; {remedy})"


def test_a_file_not_analysed_is_never_all_checks_passed() -> None:
    """Trial 26i, I-C1: a run whose one file ended in an internal error said "All checks
    passed!" (and exited 2, the error on stderr)."""
    from ppo_migrate.output.concise_format import emit as emit_concise

    def run(diagnostics, unanalysed: int) -> list[str]:
        out = io.StringIO()
        emit_concise(diagnostics, out, root=Path("."), unanalysed=unanalysed)
        return out.getvalue().splitlines()

    assert run([], 1) == ["No errors found in the files analysed; 1 file could not be analysed."]
    assert run([SHIM], 2) == [
        "shim.py:8:15: PPO004 a compatibility shim; left as it is",
        "No errors found in the files analysed; 2 files could not be analysed.",
        "1 compatibility shim listed (not an error).",
    ]
    assert run([ENTRY], 1)[-1] == "Found 1 error."
    assert run([], 0) == ["All checks passed!"]
