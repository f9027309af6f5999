"""Safe and unsafe fixes through the real executable (issue 13): ``apply --unsafe-fixes``,
``unsafe-fixes = true``, ``check``'s summary, and ``applicability`` in JSON and SARIF."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import declare_verl, run_cli

IMP = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
SAFE = IMP + "def run(config):\n    return get_ppo_ray_runtime_env()\n"
UNSAFE = IMP + (
    "def run(flag, load):\n    if flag:\n        config = load()\n"
    "    return get_ppo_ray_runtime_env()\n"
)


def _tree(root: Path, pyproject: str | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "safe.py").write_text(SAFE)
    (root / "unsafe.py").write_text(UNSAFE)
    if pyproject is not None:
        (root / "pyproject.toml").write_text(pyproject)
    return declare_verl(root)  # issue 26: the tree declares the verl it runs


def test_check_counts_unsafe_fixes_apart(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    proc = run_cli("check", "--no-progress", "--output-format", "concise", ".", cwd=root)
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        "safe.py:3:12: PPO001 [*] `get_ppo_ray_runtime_env()` called without the config in scope; "
        "pass `config`",
        "unsafe.py:5:12: PPO001 `get_ppo_ray_runtime_env()` called without the config in scope; "
        "pass `config` (`config` is only possibly bound at the call (unsafe.py:4))",
        "Found 2 errors.",
        "[*] 1 fixable with `ppo-migrate apply`.",
        "1 more fixable with --unsafe-fixes.",
    ]


def test_check_says_why_a_fix_is_unsafe_in_the_default_full_format(tmp_path: Path) -> None:
    """Issue 28: ``full`` is the default; the unsafe fix's block names the assignment under
    the ``if`` by its line."""
    root = _tree(tmp_path / "t")
    proc = run_cli("check", "--no-progress", ".", cwd=root)
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        "safe.py:3:12: PPO001 [*] `get_ppo_ray_runtime_env()` called without the config in scope; "
        "pass `config`",
        "  |",
        "3 |     return get_ppo_ray_runtime_env()",
        "  |            ^^^^^^^^^^^^^^^^^^^^^^^^^ PPO001",
        "  |",
        "  = help: Pass `config`",
        "  = note: nothing in the project shows what `config` of `run` holds: trusted by its name",
        "    safe.py:2",
        "",
        "unsafe.py:5:12: PPO001 `get_ppo_ray_runtime_env()` called without the config in scope; "
        "pass `config`",
        "  |",
        "5 |     return get_ppo_ray_runtime_env()",
        "  |            ^^^^^^^^^^^^^^^^^^^^^^^^^ PPO001",
        "  |",
        "  = help: Pass `config` (unsafe fix: made only with `--unsafe-fixes`)",
        "  = note: `config` is only possibly bound at the call",
        "    unsafe.py:4: `config` is assigned under the `if` at line 3",
        "",
        "Found 2 errors.",
        "[*] 1 fixable with `ppo-migrate apply`.",
        "1 more fixable with --unsafe-fixes.",
    ]


def test_apply_names_unsafe_fixes_that_remain(tmp_path: Path) -> None:
    """Issue 28: ``apply`` says ``N more fixable with --unsafe-fixes.`` as ``check`` does,
    and not once they are made."""
    root = _tree(tmp_path / "t")
    proc = run_cli("apply", "--no-progress", "--output-format", "concise", ".", cwd=root)
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        "Rewrote safe.py (1 call)",
        "unsafe.py:5:12: PPO001 `get_ppo_ray_runtime_env()` called without the config in scope; "
        "pass `config` (`config` is only possibly bound at the call (unsafe.py:4))",
        "Rewrote 1 call in 1 file; 1 finding remains.",
        "1 more fixable with --unsafe-fixes.",
    ]
    proc = run_cli("apply", "--no-progress", "--unsafe-fixes", "--output-format", "concise", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "more fixable" not in proc.stdout


def test_json_and_sarif_carry_the_applicability(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    as_json = json.loads(run_cli("check", "--output-format", "json", ".", cwd=root).stdout)
    assert {(d["filename"].rsplit("/", 1)[-1], d["fix"]["applicability"]) for d in as_json} == {
        ("safe.py", "safe"),
        ("unsafe.py", "unsafe"),
    }
    sarif = json.loads(run_cli("check", "--output-format", "sarif", ".", cwd=root).stdout)
    fixes = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r["fixes"][0]
        for r in sarif["runs"][0]["results"]
    }
    assert {uri.rsplit("/", 1)[-1]: f["properties"]["applicability"] for uri, f in fixes.items()} == {
        "safe.py": "safe",
        "unsafe.py": "unsafe",
    }


def test_apply_makes_only_safe_fixes_unless_asked(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    proc = run_cli("apply", "--no-progress", ".", cwd=root)
    assert proc.returncode == 1
    assert (root / "safe.py").read_text() == SAFE.replace("env()", "env(config)")
    assert (root / "unsafe.py").read_text() == UNSAFE
    assert "Rewrote 1 call in 1 file; 1 finding remains." in proc.stdout
    proc = run_cli("apply", "--no-progress", "--unsafe-fixes", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (root / "unsafe.py").read_text() == UNSAFE.replace("env()", "env(config)")


def test_unsafe_fixes_setting_and_its_override(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t", "[tool.ppo-migrate]\nunsafe-fixes = true\n")
    diff = run_cli("apply", "--diff", "--no-unsafe-fixes", ".", cwd=root)
    assert "+++ b/safe.py" in diff.stdout and "+++ b/unsafe.py" not in diff.stdout
    assert "Would rewrite 1 call in 1 file; 1 finding remains." in diff.stderr  # patch-only stdout
    proc = run_cli("apply", "--no-progress", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (root / "unsafe.py").read_text() == UNSAFE.replace("env()", "env(config)")
    bad = _tree(tmp_path / "bad", "[tool.ppo-migrate]\nunsafe-fixes = 'yes'\n")
    proc = run_cli("check", ".", cwd=bad)
    assert proc.returncode == 2
    assert "unsafe-fixes" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_check_fix_makes_unsafe_fixes_only_when_asked(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    proc = run_cli("check", "--fix", "--no-progress", ".", cwd=root)
    assert proc.returncode == 1
    assert (root / "unsafe.py").read_text() == UNSAFE
    assert (root / "safe.py").read_text() == SAFE.replace("env()", "env(config)")
    proc = run_cli("check", "--fix", "--unsafe-fixes", "--no-progress", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (root / "unsafe.py").read_text() == UNSAFE.replace("env()", "env(config)")


def test_with_unsafe_fixes_on_every_report_counts_them_as_fixable(tmp_path: Path) -> None:
    """A fresh user's finding: ``check --unsafe-fixes`` still said "1 more fixable with
    --unsafe-fixes", and --statistics / --show-fixes counted an unsafe fix as fixable
    without it."""
    root = _tree(tmp_path / "t")
    on = run_cli("check", "--no-progress", "--unsafe-fixes", "--output-format", "concise", ".", cwd=root)
    assert on.stdout.splitlines()[-2:] == [
        "Found 2 errors.",
        "[*] 2 fixable with `ppo-migrate apply --unsafe-fixes`.",
    ]
    assert on.stdout.splitlines()[1].startswith("unsafe.py:5:12: PPO001 [*] ")
    stats = run_cli("check", "--no-progress", "--statistics", "--output-format", "json", "unsafe.py", cwd=root)
    assert json.loads(stats.stdout) == [
        {"code": "PPO001", "name": "configless-call-with-config", "count": 1, "fixable": False}
    ]
    stats_on = run_cli(
        "check", "--no-progress", "--statistics", "--output-format", "json", "--unsafe-fixes", "unsafe.py", cwd=root
    )
    assert json.loads(stats_on.stdout)[0]["fixable"] is True
    shown = run_cli("check", "--no-progress", "--show-fixes", ".", cwd=root)
    assert sum("× PPO001" in line for line in shown.stdout.splitlines()) == 1  # safe.py only
    shown_on = run_cli("check", "--no-progress", "--show-fixes", "--unsafe-fixes", ".", cwd=root)
    assert sum("× PPO001" in line for line in shown_on.stdout.splitlines()) == 2
