"""Targets and config names from ``[tool.ppo-migrate]`` and flags, through the real CLI."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
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
    # fresh user 44, B1: a target outside verl is decided by its definition in the tree only
    (tmp_path / "src" / "mylab").mkdir()
    (tmp_path / "src" / "mylab" / "__init__.py").write_text("")
    (tmp_path / "src" / "mylab" / "launch.py").write_text("def make_runtime_env(config=None):\n    return {}\n")
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


def test_target_outside_verl_without_definition_is_left_alone(tmp_path: Path) -> None:
    """fresh user 44, B1: an ``extend-targets`` function installed elsewhere (no definition in
    the tree) may take no config: the fix is unsafe, the file is untouched and still runs;
    the unsafe fix, made anyway, raises ``TypeError`` (the oracle)."""
    site = tmp_path / "site" / "mylab"
    site.mkdir(parents=True)
    (site / "__init__.py").write_text("")
    (site / "launch.py").write_text("def get_env():\n    return {'env_vars': {}}\n")
    project = tmp_path / "proj"
    project.mkdir()
    (project / "pyproject.toml").write_text(
        '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.1"]\n\n'
        '[tool.ppo-migrate]\nextend-targets = ["mylab.launch.get_env"]\n'
    )
    text = "from mylab.launch import get_env\n\n\ndef launch(config):\n    return get_env()\n"
    main = project / "main.py"
    main.write_text(text)
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}

    def run() -> subprocess.CompletedProcess:
        code = "import main; print(main.launch({'x': 1}))"
        return subprocess.run([sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True)

    assert run().stdout == "{'env_vars': {}}\n"
    check = run_cli("check", "--output-format", "concise", ".", cwd=project)
    assert check.returncode == 1
    assert "main.py:5:12: PPO001" in check.stdout
    assert "unsafe fix: `mylab.launch.get_env` has no definition in the tree and is not verl's" in check.stdout
    proc = run_cli("apply", ".", cwd=project)
    assert proc.returncode == 1 and main.read_text() == text
    assert run().stdout == "{'env_vars': {}}\n"
    run_cli("apply", "--unsafe-fixes", ".", cwd=project)
    assert "get_env(config)" in main.read_text()
    assert "TypeError" in run().stderr


@pytest.mark.parametrize(("definition", "fixed"), [("def get_env(config=None):\n    return config\n", True),
                                                    ("def get_env():\n    return None\n", False)])
def test_a_target_in_a_single_module_file_is_decided_by_it(tmp_path: Path, definition: str, fixed: bool) -> None:
    """A target outside verl whose module is one file beside the caller (``mylab_env.py``):
    its definition decides, as a package's does; one taking no config is a PPO005 naming it,
    and the file is left alone (run before and after)."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n\n[tool.ppo-migrate]\nextend-targets = ["mylab_env.get_env"]\n')
    (tmp_path / "mylab_env.py").write_text(definition)
    text = "from mylab_env import get_env\n\n\ndef launch(config):\n    return get_env()\n"
    (tmp_path / "main.py").write_text(text)
    code = "import main; print(main.launch({'x': 1}))"

    def run() -> str:
        return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True).stdout

    assert run() == "None\n"
    check = run_cli("check", "--output-format", "concise", "--show-notices", ".", cwd=tmp_path)
    if fixed:
        assert "main.py:5:12: PPO001 [*]" in check.stdout
    else:
        assert "main.py:5:12: PPO005 `get_env()` left as it is: `mylab_env.py:1` defines `get_env()` without a config parameter" in check.stdout
    run_cli("apply", ".", cwd=tmp_path)
    assert ((tmp_path / "main.py").read_text() != text) is fixed
    assert run() == ("{'x': 1}\n" if fixed else "None\n")
