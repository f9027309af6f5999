"""``python -m ppo_migrate`` never imports from the tree it is run in, and still runs when that
tree is where its own dependencies are installed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click


def _version(cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-m", "ppo_migrate", "--version"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_module_of_the_working_directory_shadows_nothing(tmp_path: Path) -> None:
    for name in ("ast.py", "tokenize.py", "click.py"):
        (tmp_path / name).write_text("raise SystemExit('imported from the analysed tree')\n")
    proc = _version(tmp_path)
    assert (proc.returncode, proc.stdout.strip()) == (0, "ppo-migrate, version 0.1.0"), proc.stderr


def test_run_inside_site_packages_it_still_imports_its_dependencies() -> None:
    """The working directory is also on the path as ``site-packages``: only the entry
    ``-m`` added is dropped (it dropped both: "No module named 'pathspec'")."""
    proc = _version(Path(click.__file__).resolve().parent.parent)
    assert (proc.returncode, proc.stdout.strip()) == (0, "ppo-migrate, version 0.1.0"), proc.stderr
