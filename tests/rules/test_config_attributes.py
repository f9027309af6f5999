"""``self.<name>`` as the config in scope (:mod:`ppo_migrate.rules.config_attributes`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cli_helpers import run_cli, verl_stub

#: verl 0.9's signature, returning what it was given so the run shows the config passed
VERL_09 = "def get_ppo_ray_runtime_env(config=None):\n    return {'config': config}\n"

LAUNCHER = (
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "class Launcher:\n    config = None\n\n"
    "    def helper(self):\n        return get_ppo_ray_runtime_env()\n\n"
    "    def launch(self, config):\n        return self.helper()\n"
)


def _project(tmp_path: Path, text: str) -> tuple[Path, dict[str, str]]:
    verl_stub(tmp_path / "site", VERL_09)
    project = tmp_path / "proj"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.1"]\n')
    (project / "m.py").write_text(text)
    return project, {**os.environ, "PYTHONPATH": f"{project}{os.pathsep}{tmp_path / 'site'}"}


def _config_passed(project: Path, env: dict[str, str]) -> str:
    code = "import m; print(m.Launcher().launch({'trainer': 1})['config'])"
    return subprocess.run([sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True, check=True).stdout


def test_an_attribute_only_ever_none_is_not_the_config(tmp_path: Path) -> None:
    """Fresh user 44, W1: a class body's ``config = None``, set nowhere else, was passed as a
    safe fix (``get_ppo_ray_runtime_env(self.config)``): always ``None``, so nothing changed at
    run time and ``check`` was clean after. Now a PPO002 whose hint names the caller that has
    the config; ``--thread-config`` passes that one (run: the function receives it)."""
    project, env = _project(tmp_path, LAUNCHER)
    assert _config_passed(project, env) == "None\n"
    check = run_cli("check", "--output-format", "concise", ".", cwd=project)
    assert check.stdout.startswith("m.py:8:16: PPO002 ")
    assert "its caller `Launcher.launch` (m.py:11) has `config`: run with --thread-config" in check.stdout
    plain = run_cli("apply", ".", cwd=project)
    assert (project / "m.py").read_text() == LAUNCHER and plain.returncode == 1
    run_cli("apply", "--thread-config", ".", cwd=project)
    assert "return self.helper(config=config)" in (project / "m.py").read_text()
    assert _config_passed(project, env) == "{'trainer': 1}\n"


def test_none_until_init_sets_it_stays_the_config(tmp_path: Path) -> None:
    """The other side: ``config = None`` in the class body and ``self.config = config`` in
    ``__init__`` (verl's ``TaskRunner`` shape) keeps its safe fix, which passes the config."""
    text = LAUNCHER.replace(
        "    def helper(self):", "    def __init__(self, config):\n        self.config = config\n\n    def helper(self):"
    )
    project, env = _project(tmp_path, text)
    check = run_cli("check", "--output-format", "concise", ".", cwd=project)
    assert "PPO001 [*]" in check.stdout and "pass `self.config`" in check.stdout
    run_cli("apply", ".", cwd=project)
    assert "get_ppo_ray_runtime_env(self.config)" in (project / "m.py").read_text()
    code = "import m; print(m.Launcher({'trainer': 2}).launch(None)['config'])"
    ran = subprocess.run([sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True, check=True)
    assert ran.stdout == "{'trainer': 2}\n"
