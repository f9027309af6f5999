"""ruff's ``check`` habits through the real executable: ``--fix``, ``--show-fixes``,
``--statistics``, ``-q``/``--quiet``, ``-s``/``--silent``, and the nearest option or
command suggested for a misspelt one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import declare_verl, run_cli

IMP = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
TWO_FIXABLE = IMP + "def run(config):\n    a = get_ppo_ray_runtime_env()\n    return get_ppo_ray_runtime_env(None)\n"
ONE_FIXABLE = IMP + "def main(cfg):\n    return get_ppo_ray_runtime_env()\n"
ENTRY = IMP + "def init_ray(address):\n    return get_ppo_ray_runtime_env()\n"
PPO002_LINE = (
    "server.py:5:12: PPO002 `get_ppo_ray_runtime_env()` called without a config and no training config "
    "is in scope in `init_ray`; this entry point must obtain the training config and pass it"
)


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.ppo-migrate]\n")
    (tmp_path / "a.py").write_text(TWO_FIXABLE)
    (tmp_path / "b.py").write_text(ONE_FIXABLE)
    (tmp_path / "server.py").write_text(ENTRY)
    return declare_verl(tmp_path)  # issue 26: the tree declares the verl it runs


def test_check_fix_applies_the_safe_fixes_and_reports_what_remains(tree: Path) -> None:
    proc = run_cli("check", "--fix", "--output-format", "concise", ".", cwd=tree)
    assert proc.returncode == 1, proc.stderr  # the PPO002 remains
    assert proc.stdout.splitlines() == [PPO002_LINE, "Found 4 errors (3 fixed, 1 remaining)."]
    assert (tree / "a.py").read_text() == TWO_FIXABLE.replace(
        "get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config)"
    ).replace("(None)", "(config)")
    assert (tree / "b.py").read_text() == ONE_FIXABLE.replace("env()", "env(cfg)")
    assert (tree / "server.py").read_text() == ENTRY
    # the same files as `apply` would have written: nothing left to fix
    again = run_cli("check", "--fix", "--show-fixes", "a.py", "b.py", cwd=tree)
    assert again.returncode == 0, again.stderr
    assert again.stdout == "All checks passed!\n"  # ruff writes no block when nothing was fixed


def test_show_fixes_lists_per_file_with_and_without_fix(tree: Path) -> None:
    """Between the findings and the summary, after a blank line, as ruff 0.17 writes it."""
    block = (
        "- a.py:\n    2 × PPO001 (configless-call-with-config)\n"
        "- b.py:\n    1 × PPO001 (configless-call-with-config)\n\n"
    )
    js = run_cli("check", "--show-fixes", "--output-format", "json", ".", cwd=tree)
    assert len(json.loads(js.stdout)) == 4  # stdout: the document; the block on stderr
    assert js.stderr == "Would fix 3 errors:\n" + block
    preview = run_cli("check", "--show-fixes", "--output-format", "concise", ".", cwd=tree)
    assert preview.returncode == 1
    lines = preview.stdout.splitlines()
    assert [line.split(": ")[1][:6] for line in lines[:4]] == ["PPO001"] * 3 + ["PPO002"]
    assert preview.stdout.split("\n", 4)[4] == (
        "\nWould fix 3 errors:\n" + block + "Found 4 errors.\n[*] 3 fixable with `ppo-migrate apply`.\n"
    )
    assert (tree / "a.py").read_text() == TWO_FIXABLE  # nothing written
    fixed = run_cli("check", "--fix", "--show-fixes", "--output-format", "concise", ".", cwd=tree)
    assert fixed.stdout == (
        PPO002_LINE + "\n\nFixed 3 errors:\n" + block + "Found 4 errors (3 fixed, 1 remaining).\n"
    )
    js = run_cli("check", "--show-fixes", "--output-format", "json", ".", cwd=tree)
    assert [d["code"] for d in json.loads(js.stdout)] == ["PPO002"]
    assert "fix" not in js.stderr  # all fixed above: no block


def test_statistics_counts_per_rule_code(tree: Path) -> None:
    text, js, sarif = (
        run_cli("check", "--statistics", *fmt, ".", cwd=tree)
        for fmt in ((), ("--output-format", "json"), ("--output-format", "sarif"))
    )
    assert text.returncode == 1
    assert text.stdout == (
        "3\tPPO001\t[*] configless-call-with-config\n"
        "1\tPPO002\t[ ] configless-call-without-config\n"
    )
    assert json.loads(js.stdout) == [
        {"code": "PPO001", "name": "configless-call-with-config", "count": 3, "fixable": True},
        {"code": "PPO002", "name": "configless-call-without-config", "count": 1, "fixable": False},
    ]
    assert sarif.returncode == 2 and "--statistics prints text (full, concise) or json" in sarif.stderr


def test_quiet_prints_findings_only_and_silent_prints_nothing(tree: Path) -> None:
    loud, quiet, q, silent, s = (
        run_cli("check", "--output-format", "concise", *flag, ".", cwd=tree)
        for flag in ((), ("--quiet",), ("-q",), ("--silent",), ("-s",))
    )
    assert loud.stdout.splitlines()[-2:] == [
        "Found 4 errors.", "[*] 3 fixable with `ppo-migrate apply`."
    ]
    assert quiet.stdout == q.stdout == "".join(loud.stdout.splitlines(True)[:-2])
    assert len(quiet.stdout.splitlines()) == 4
    assert silent.stdout == s.stdout == "" and silent.stderr == ""
    assert {p.returncode for p in (loud, quiet, q, silent, s)} == {1}  # the exit code tells
    clean = run_cli("check", "-s", "server.py", "--ignore", "PPO002", cwd=tree)
    assert clean.returncode == 0 and clean.stdout == ""


def test_misspelt_option_and_command_suggest_the_nearest(tree: Path) -> None:
    opt = run_cli("check", "--exit-zeor", ".", cwd=tree)
    assert opt.returncode == 2
    assert "No such option: --exit-zeor Did you mean --exit-zero?" in opt.stderr
    fix = run_cli("check", "--fixx", ".", cwd=tree)
    assert "Did you mean --fix?" in fix.stderr
    cmd = run_cli("aply", ".", cwd=tree)
    assert cmd.returncode == 2
    assert "No such command 'aply'. Did you mean 'apply'?" in cmd.stderr
    none = run_cli("xyzzy", cwd=tree)
    assert none.returncode == 2 and "No such command 'xyzzy'.\n" in none.stderr


def test_fix_refuses_what_it_cannot_do(tree: Path) -> None:
    both = run_cli("check", "--fix", "--add-noqa", ".", cwd=tree)
    assert both.returncode == 2 and "--fix and --add-noqa cannot be combined" in both.stderr
    stdin = run_cli("check", "--fix", "-", "--stdin-filename", "a.py", cwd=tree,
                    input=TWO_FIXABLE.encode())
    assert stdin.returncode == 2 and "ppo-migrate apply -" in stdin.stderr
    assert (tree / "a.py").read_text() == TWO_FIXABLE
