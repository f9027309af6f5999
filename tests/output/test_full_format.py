"""The ``full`` output format (issue 28): ruff's header line, code frame, ``help:`` and the
reason's ``note:`` with the places that decided it; ``concise``'s summary lines."""

from __future__ import annotations

import io
from pathlib import Path

from ppo_migrate.diagnostics import Diagnostic, Edit, Fix, Reason, Related
from ppo_migrate.output import emit
from ppo_migrate.output.full_format import SourceLines, block, frame

SOURCE = (
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
    "def run(flag, p):\n"
    "    if flag:\n"
    "        config = load(p)\n"
    "    return get_ppo_ray_runtime_env()\n"
)
UNSAFE = Diagnostic(
    "a.py", 5, 12, 5, 37, "PPO001",
    "`get_ppo_ray_runtime_env()` called without the config in scope; pass `config`",
    fix=Fix("Pass `config`", (Edit("config", 5, 36, 5, 36),), "unsafe"),
    reason=Reason(
        "possibly-bound",
        "`config` is only possibly bound at the call",
        (Related("a.py", 4, 9, "`config` is assigned under the `if` at line 3"),),
    ),
)
SAFE = UNSAFE._replace(fix=UNSAFE.fix._replace(applicability="safe"), reason=None)  # type: ignore[union-attr]


def test_block_of_an_unsafe_fix_with_its_reason() -> None:
    assert block(UNSAFE, SOURCE.splitlines()).splitlines() == [
        "a.py:5:12: PPO001 `get_ppo_ray_runtime_env()` called without the config in scope; pass `config`",
        "  |",
        "5 |     return get_ppo_ray_runtime_env()",
        "  |            ^^^^^^^^^^^^^^^^^^^^^^^^^ PPO001",
        "  |",
        "  = help: Pass `config` (unsafe fix: made only with `--unsafe-fixes`)",
        "  = note: `config` is only possibly bound at the call",
        "    a.py:4: `config` is assigned under the `if` at line 3",
    ]


def test_a_safe_fix_is_marked_and_its_help_says_nothing_more() -> None:
    lines = block(SAFE, SOURCE.splitlines()).splitlines()
    assert lines[0].startswith("a.py:5:12: PPO001 [*] ")
    assert lines[-1] == "  = help: Pass `config`"
    assert not any("note:" in line for line in lines)


def test_a_finding_without_a_fix_gets_its_rule_s_remedy_as_help() -> None:
    """Issue 28: every finding of ``full`` says what to do; one with no fix (a PPO002, an
    unreadable file) says it in its rule's words (the first sentence of ``Rule.fix``)."""
    no_fix = UNSAFE._replace(code="PPO002", fix=None, reason=None, message="no config in scope")
    assert block(no_fix, SOURCE.splitlines()).splitlines()[-1] == (
        "  = help: Give the enclosing function the training config (a parameter, or load it) "
        "and pass it: get_ppo_ray_runtime_env(config).")
    unreadable = Diagnostic("b.py", 1, 1, 1, 1, "PPO901", "cannot read b.py: permission denied")
    assert block(unreadable, None).splitlines() == [
        "b.py:1:1: PPO901 cannot read b.py: permission denied",
        "  = help: Fix the file's permissions or encoding, or exclude it.",
    ]


def test_a_multi_line_range_has_carets_on_each_line() -> None:
    text = "x = 1\ncall(\n    a,\n)\n"
    d = Diagnostic("m.py", 2, 1, 4, 2, "PPO002", "no config")
    assert frame(d, text.splitlines()) == [
        "  |",
        "2 | call(",
        "  | ^^^^^",
        "3 |     a,",
        "  |     ^^",
        "4 | )",
        "  | ^ PPO002",
        "  |",
    ]


def test_no_source_no_frame() -> None:
    assert frame(UNSAFE, None) == []
    assert frame(UNSAFE._replace(line=40, end_line=40), SOURCE.splitlines()) == []


def test_emit_frames_from_the_text_given_then_concise_summary() -> None:
    out = io.StringIO()
    from ppo_migrate.output.full_format import emit as emit_full

    emit_full([SAFE, UNSAFE], out, root=Path("."), sources={"a.py": SOURCE})
    text = out.getvalue()
    assert text.count("5 |     return get_ppo_ray_runtime_env()\n") == 2
    assert text.endswith(
        "\nFound 2 errors.\n[*] 1 fixable with `ppo-migrate apply`.\n1 more fixable with --unsafe-fixes.\n"
    )
    assert "\n\na.py:5:12: PPO001 `get_ppo" in text  # a blank line between blocks


def test_each_file_is_read_once(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "a.py"
    path.write_text(SOURCE)
    reads: list[str] = []
    real = Path.read_bytes

    def counted(self: Path) -> bytes:
        reads.append(str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", counted)
    texts = SourceLines()
    assert texts.of(str(path)) == SOURCE.splitlines()
    assert texts.of(str(path)) == SOURCE.splitlines()
    assert reads == [str(path)]
    assert SourceLines({"-": "x"}).of("-") == ["x"] and SourceLines().of("-") is None


def test_the_registered_emitter_is_full() -> None:
    out = io.StringIO()
    emit("full", [UNSAFE._replace(path="gone/nowhere.py")], out, root=Path("."))
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("gone/nowhere.py:5:12: PPO001 ")
    assert lines[1] == "  = help: Pass `config` (unsafe fix: made only with `--unsafe-fixes`)"


def test_concise_adds_the_short_reason() -> None:
    out = io.StringIO()
    emit("concise", [UNSAFE, SAFE], out, root=Path("."))
    assert out.getvalue().splitlines()[:2] == [
        (
            "a.py:5:12: PPO001 `get_ppo_ray_runtime_env()` called without the config in scope; "
            "pass `config` (`config` is only possibly bound at the call (a.py:4))"
        ),
        "a.py:5:12: PPO001 [*] `get_ppo_ray_runtime_env()` called without the config in scope; pass `config`",
    ]


def test_a_fifo_or_a_directory_gets_no_frame_and_no_read(tmp_path: Path) -> None:
    """A finding on a named pipe (PPO901) must not block the output reading it."""
    import os

    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    assert SourceLines().of(str(fifo)) is None  # returns at once: never opened
    assert SourceLines().of(str(tmp_path)) is None
    big = tmp_path / "big.py"
    big.write_text("x = 1\n" * 200_000)
    assert SourceLines().of(str(big)) is None


def test_a_file_that_does_not_decode_is_framed_with_replacement_characters(tmp_path: Path) -> None:
    """A fresh user's trial: a Latin-1 byte in a file with no coding line (PPO901 "cannot
    decode") got no frame. It is framed as ruff shows it, U+FFFD for the bad byte."""
    path = tmp_path / "latin.py"
    path.write_bytes(b"# caf\xe9\nx = 1\n")
    d = Diagnostic(str(path), 1, 6, 1, 7, "PPO901", "cannot decode: invalid continuation byte (utf-8)")
    lines = block(d, SourceLines().of(str(path))).splitlines()
    assert lines[:5] == [
        f"{path}:1:6: PPO901 cannot decode: invalid continuation byte (utf-8)",
        "  |",
        "1 | # caf\ufffd",
        "  |      ^ PPO901",
        "  |",
    ]
