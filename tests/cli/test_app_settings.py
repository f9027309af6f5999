"""Targets and config names from ``[tool.ppo-migrate]`` and flags, through the real CLI."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_helpers import declare_verl, ppo_migrate_exe, run_cli

SRC = (
    "from mylab.launch import make_runtime_env\n"
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
    "def run(trainer_conf):\n"
    "    a = make_runtime_env()\n"
    "    b = get_ppo_ray_runtime_env()\n"
)


def _project(tmp_path: Path, table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n\n[tool.ppo-migrate]\n" + table)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text(SRC)
    declare_verl(tmp_path)  # issue 26: the tree declares the verl it runs
    return tmp_path / "src" / "m.py"


def test_extend_targets_and_config_names_from_pyproject(tmp_path: Path) -> None:
    f = _project(tmp_path, 'extend-targets = ["mylab.launch.make_runtime_env"]\nconfig-names = ["trainer_conf"]\n')
    proc = run_cli("apply", "src", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f.read_text() == SRC.replace("make_runtime_env()", "make_runtime_env(trainer_conf)").replace(
        "get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(trainer_conf)"
    )


def test_targets_replace_defaults(tmp_path: Path) -> None:
    f = _project(tmp_path, 'targets = ["mylab.launch.make_runtime_env"]\nconfig-names = ["trainer_conf"]\n')
    run_cli("apply", "src", cwd=tmp_path)
    assert f.read_text() == SRC.replace("make_runtime_env()", "make_runtime_env(trainer_conf)")


def test_flags_override_pyproject(tmp_path: Path) -> None:
    f = _project(tmp_path, 'config-names = ["nothing_here"]\n')
    proc = run_cli("check", "src", cwd=tmp_path)
    assert proc.returncode == 1 and "PPO002" in proc.stdout
    proc = run_cli(
        "apply", "--config-name", "trainer_conf", "--target", "mylab.launch.make_runtime_env", "--keyword", "src", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stdout
    assert f.read_text() == SRC.replace("make_runtime_env()", "make_runtime_env(config=trainer_conf)")


def test_bad_setting_is_a_one_line_error_naming_the_key(tmp_path: Path) -> None:
    _project(tmp_path, "targets = 3\n")
    proc = run_cli("check", "src", cwd=tmp_path)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "targets" in lines[0] and "pyproject.toml" in lines[0]


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    proc = run_cli("check", "does-not-exist", cwd=tmp_path)
    assert proc.returncode == 2
    assert "does-not-exist" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.skipif(shutil.which("capsh") is None, reason="capsh drops root's file access")
def test_an_unreadable_pyproject_is_an_error_not_silently_skipped(tmp_path: Path) -> None:
    """A ``pyproject.toml`` the run cannot read may hold ``[tool.ppo-migrate]``: running on
    as if it had none (a tester's ``select`` was ignored, a parent's used) is an error now,
    exit 2 and one line naming the file. Root reads any file: the capabilities that let it
    are dropped for the run (capsh)."""
    _project(tmp_path, 'select = ["PPO002"]\n')
    (tmp_path / "pyproject.toml").chmod(0)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    command = " ".join(["exec", *ppo_migrate_exe(), "check", "src"])
    r = subprocess.run(
        ["capsh", "--drop=cap_dac_override,cap_dac_read_search", "--", "-c", command],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120,
    )
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr == "ppo-migrate: error: pyproject.toml: cannot read: Permission denied\n"
    assert r.stdout == ""
