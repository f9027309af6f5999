"""``ppo-migrate apply fixtures/legacy`` reproduces ``fixtures/migrated`` byte for byte."""

from __future__ import annotations

import shutil
from pathlib import Path

from cli_helpers import FIXTURES, run_cli

EXPECTED_REMAINING = [
    "tests/test_ray_runtime_env.py:9:11: PPO002",
    "tests/test_ray_runtime_env.py:15:32: PPO002",
    "verl/trainer/ppo_compat.py:12:12: PPO003",
    "verl/workers/rollout/server.py:16:21: PPO002",
]
EXPECTED_REWRITTEN = [
    "recipe/dapo/main_dapo.py",
    "recipe/prime/main_prime.py",
    "recipe/spin/main_spin.py",
    "scripts/launch_offline.py",
    "verl/trainer/main_eval.py",
    "verl/trainer/main_ppo.py",
    "verl/utils/ray_utils.py",
]


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_apply_reproduces_migrated_tree_byte_for_byte(tmp_path: Path) -> None:
    work = tmp_path / "legacy"
    shutil.copytree(FIXTURES / "legacy", work)
    proc = run_cli("apply", ".", "--jobs", "2", cwd=work, env={"PPO_MIGRATE_TEST_FORCE_POOL": "1"})
    assert proc.returncode == 1, proc.stderr
    assert _tree(work) == _tree(FIXTURES / "migrated")
    rewritten = [line.split()[1] for line in proc.stdout.splitlines() if line.startswith("Rewrote ") and "(" in line and ":" not in line]
    # printed as each file is replaced: in the order the workers finish them
    assert sorted(rewritten) == EXPECTED_REWRITTEN
    remaining = [" ".join(line.split()[:2]) for line in proc.stdout.splitlines() if ": PPO" in line and not line.startswith(" ")]
    assert remaining == EXPECTED_REMAINING
    assert "Rewrote 7 calls in 7 files; 4 findings remain." in proc.stdout

    second = run_cli("apply", ".", cwd=work)
    assert second.returncode == 1
    assert "Rewrote 0 calls in 0 files; 4 findings remain." in second.stdout
    assert _tree(work) == _tree(FIXTURES / "migrated")


def test_check_on_legacy_lists_fixable_and_remaining() -> None:
    proc = run_cli("check", "fixtures/legacy", cwd=FIXTURES.parent)
    assert proc.returncode == 1
    lines = [line for line in proc.stdout.splitlines() if ": PPO" in line and not line.startswith(" ")]
    assert len(lines) == 11
    assert sum(" PPO001 [*] " in line for line in lines) == 7
    assert proc.stdout.rstrip().endswith("[*] 7 fixable with `ppo-migrate apply`.")


def test_diff_writes_nothing(tmp_path: Path) -> None:
    work = tmp_path / "legacy"
    shutil.copytree(FIXTURES / "legacy", work)
    before = _tree(work)
    proc = run_cli("apply", "--diff", ".", cwd=work)
    assert proc.returncode == 1
    assert _tree(work) == before
    assert "--- a/verl/trainer/main_ppo.py" in proc.stdout
    assert "+        default_runtime_env = get_ppo_ray_runtime_env(config)" in proc.stdout
    assert "Would rewrite 7 calls in 7 files" in proc.stderr  # stdout: the patch alone
    assert "Would rewrite" not in proc.stdout and ": PPO" not in proc.stdout


def test_migrated_tree_only_keeps_the_entry_points() -> None:
    proc = run_cli("check", "fixtures/migrated", cwd=FIXTURES.parent)
    assert proc.returncode == 1
    found = [" ".join(line.split()[:2]) for line in proc.stdout.splitlines() if ": PPO" in line and not line.startswith(" ")]
    assert found == [f"fixtures/migrated/{x}" for x in EXPECTED_REMAINING]


def _readme_examples() -> dict[str, str]:
    """The ``console`` blocks of README.md and docs/apply.md, docs/check.md: each command
    (after ``$ ``) -> the output shown up to the next command."""
    import re

    found = {}
    for name in ("README.md", "docs/apply.md", "docs/check.md"):
        text = (FIXTURES.parent / name).read_text(encoding="utf-8")
        for block in re.findall(r"```console\n(.*?)```", text, re.S):
            for command, output in re.findall(r"^\$ (.*?)\n(.*?)(?=^\$ |\Z)", block, re.S | re.M):
                found[command] = output
    return found


def _written_in_path_order(stdout: str) -> str:
    """apply prints each "Rewrote <file>" line as the file is replaced, in the order the
    worker processes finish them; the README shows them in path order."""
    lines = stdout.splitlines(keepends=True)
    n = 0
    while n < len(lines) and lines[n].startswith("Rewrote ") and lines[n].rstrip().endswith(")"):
        n += 1
    return "".join(sorted(lines[:n]) + lines[n:])


def test_readme_apply_example_is_the_real_output(tmp_path: Path) -> None:
    """Bug: the README's ``apply src/`` output was not what the tool prints (the PPO002 hint
    about callers was missing); run it on a copy of fixtures/legacy named src/."""
    shutil.copytree(FIXTURES / "legacy", tmp_path / "src")
    proc = run_cli("apply", "--output-format", "concise", "src/", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    shown = _readme_examples()["ppo-migrate apply --output-format concise src/"]
    assert shown == _written_in_path_order(proc.stdout)
    check_cmd = next(c for c in _readme_examples() if c.startswith("ppo-migrate check --output-format concise fixtures/legacy/verl/trainer/main_ppo.py "))
    check = run_cli(*check_cmd.split()[1:], cwd=FIXTURES.parent)
    assert _readme_examples()[check_cmd] == check.stdout


def test_readme_documents_thread_config_with_diff_and_links_the_rules() -> None:
    docs = FIXTURES.parent / "docs"
    threading = (docs / "threading.md").read_text(encoding="utf-8")
    assert "`--thread-config --diff` previews the whole multi-file change as one unified\ndiff" in threading
    assert "[docs/rules.md](docs/rules.md)" in (FIXTURES.parent / "README.md").read_text(encoding="utf-8")
    check = (docs / "check.md").read_text(encoding="utf-8")
    from ppo_migrate.rules.codes import RULES

    for code, rule in RULES.items():  # the rules table links each rule's page
        assert f"[{code}](rules/{code}.md)" in check
        assert rule.url.endswith(f"/docs/rules/{code}.md")
    proc = run_cli("apply", "--diff", "--thread-config", "fixtures/legacy", cwd=FIXTURES.parent)
    assert proc.returncode == 1, proc.stderr  # a preview now (tests/cli/test_app_preview.py), not an error
    assert "+++ b/fixtures/legacy/verl/trainer/main_ppo.py" in proc.stdout
