"""Trial 26d (d4_module_param_default_di, "check mentions 0 of 1 calls"): verl's module as a
parameter's default, ``def launch(config, cp=constants_ppo): return
cp.get_ppo_ray_runtime_env()``, and a test that passes a zero-argument double for ``cp``. The
call is the runtime function only when no argument is given: it is reported as ambiguous
(PPO003, no fix), and a plain ``apply`` leaves the test passing. Executed before and after."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import warm_python
from cli_helpers import check_findings, run_cli, verl_stub, write_tree

LAUNCHER = (
    "from verl.trainer import constants_ppo\n"
    "\n\n"
    "def launch(config, {param}):\n"
    "    return cp.get_ppo_ray_runtime_env()\n"
)
TEST = (
    "import types\n\nimport launcher\n\n\n"
    "def test_launch():\n"
    "    fake = types.SimpleNamespace(get_ppo_ray_runtime_env=lambda: {'env_vars': {}})\n"
    "    assert launcher.launch({'trainer': 1}, cp=fake) == {'env_vars': {}}\n"
    "    assert launcher.launch({'trainer': 1}) is None  # verl 0.9's stub: the config it got\n"
)


def _pytest(root: Path, stub: Path) -> None:
    env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{stub}", "PYTHONDONTWRITEBYTECODE": "1"}
    proc = warm_python.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=root,
                           env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("param", ["cp=constants_ppo", "*, cp=constants_ppo"])
def test_a_module_given_as_a_default_is_ambiguous_and_left_alone(tmp_path: Path, param: str) -> None:
    root = write_tree(tmp_path / "proj", {
        "requirements.txt": "verl>=0.9\n",
        "launcher.py": LAUNCHER.format(param=param),
        "tests/test_launch.py": TEST,
    })
    stub = verl_stub(tmp_path / "stub")
    _pytest(root, stub)
    found = [(f["code"], f["location"]["row"], f["fix"]) for f in check_findings(root)]
    assert found == [("PPO003", 5, None)]
    before = (root / "launcher.py").read_text()
    assert run_cli("apply", ".", cwd=root).returncode == 1  # the finding remains
    assert (root / "launcher.py").read_text() == before
    _pytest(root, stub)


def test_a_default_that_is_no_target_changes_nothing(tmp_path: Path) -> None:
    """``cp=None`` and ``cp=other_module``: the parameter is what it was, no target."""
    root = write_tree(tmp_path / "proj", {
        "requirements.txt": "verl>=0.9\n",
        "launcher.py": "import json\n\n\ndef launch(config, cp=json, other=None):\n"
                       "    return cp.get_ppo_ray_runtime_env(), other.get_ppo_ray_runtime_env()\n",
    })
    assert check_findings(root) == []
