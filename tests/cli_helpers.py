"""Shared helpers: run the real ``ppo-migrate`` executable as a subprocess."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path


REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"


def ppo_migrate_exe() -> list[str]:
    """The installed console script, or ``python -m ppo_migrate`` beside this interpreter."""
    exe = shutil.which("ppo-migrate", path=str(Path(sys.executable).parent)) or shutil.which(
        "ppo-migrate"
    )
    return [exe] if exe else [sys.executable, "-m", "ppo_migrate"]


def run_cli(*args: str, cwd: Path | str | None = None, input: bytes | None = None, env=None):
    """Run ``ppo-migrate ARGS`` and return the CompletedProcess (text output)."""
    full_env = {k: v for k, v in os.environ.items() if k != "CI"}
    full_env.update(env or {})
    proc = subprocess.run(
        [*ppo_migrate_exe(), *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        env=full_env,
        timeout=300,
    )
    proc.stdout = proc.stdout.decode("utf-8", "replace")  # type: ignore[assignment]
    proc.stderr = proc.stderr.decode("utf-8", "replace")  # type: ignore[assignment]
    return proc
