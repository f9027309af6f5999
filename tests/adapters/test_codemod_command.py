"""The same transform through LibCST's own runner: ``python -m libcst.tool codemod``."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from cli_helpers import FIXTURES


def test_libcst_tool_codemod_command(tmp_path: Path) -> None:
    work = tmp_path / "legacy"
    shutil.copytree(FIXTURES / "legacy", work)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "libcst.tool",
            "codemod",
            "-x",
            "ppo_migrate.codemod.PassConfigCommand",
            "--no-format",
            "-j",
            "1",
            ".",
        ],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    for p in sorted((FIXTURES / "migrated").rglob("*.py")):
        rel = p.relative_to(FIXTURES / "migrated")
        assert (work / rel).read_bytes() == p.read_bytes(), rel
    assert "PPO002" in proc.stderr  # entry points without a config are warned about
