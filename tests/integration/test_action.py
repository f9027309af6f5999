"""``action.yml``: its run-steps, run in a shell the way GitHub's runner runs them.

The runner substitutes ``${{ inputs.* }}`` and ``${{ github.action_path }}`` into each
step's ``env``, runs ``run`` with ``bash -e``, and puts the lines a step appends to
``$GITHUB_PATH`` on the ``PATH`` of the steps after it. The install step builds a
fresh virtual environment and installs this project from a snapshot of the working
tree (the action's own source), so it needs the package index for the dependencies.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml  # PyYAML: pre-commit's dependency, in the test extras

from cli_helpers import declare_verl

pytestmark = [pytest.mark.slow, pytest.mark.network]

PROJECT = Path(__file__).resolve().parents[2]
SNAPSHOT_ITEMS = ("pyproject.toml", "README.md", "LICENSE", "action.yml", "runtime", "migrate")
IMP = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
TRAINER = IMP + "\n\ndef run_ppo(config):\n    ray.init(runtime_env=get_ppo_ray_runtime_env())\n"
SERVER = IMP + "\n\ndef init_ray(address):\n    return get_ppo_ray_runtime_env()\n"
CLEAN = IMP + "\n\ndef main(config):\n    return get_ppo_ray_runtime_env(config)\n"


def _substitute(value: str, inputs: dict[str, str], action_path: Path) -> str:
    def one(m: re.Match[str]) -> str:
        expr = m.group(1).strip()
        if expr == "github.action_path":
            return str(action_path)
        kind, _, name = expr.partition(".")
        assert kind == "inputs", expr
        return inputs[name]

    return re.sub(r"\$\{\{(.*?)\}\}", one, str(value))


def run_action(action_path: Path, workspace: Path, runner_temp: Path, *, installed: bool = False,
               **given: str):
    """Run every step of the composite action; return the last step's CompletedProcess.

    ``installed``: a later job on the same runner temp directory, which an earlier run
    installed into: its install step is skipped and the ``$GITHUB_PATH`` it wrote is kept
    (the install, a build and ``pip install`` of the project, is most of the test's time)."""
    action = yaml.safe_load((action_path / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    inputs = {k: given.get(k, v.get("default", "")) for k, v in action["inputs"].items()}
    github_path = runner_temp / "github_path"
    steps = action["runs"]["steps"]
    if installed:
        assert steps[0]["name"] == "Install ppo-migrate"
        steps = steps[1:]
        added = [line for line in github_path.read_text().splitlines() if line]
        path = os.pathsep.join([*reversed(added), os.environ["PATH"]])
    else:
        github_path.write_text("")
        path = os.environ["PATH"]
    proc = None
    for step in steps:
        assert step["shell"] == "bash"
        assert "${{" not in step["run"]  # inputs only through env: no script injection
        env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "CI"))}
        env.update({k: _substitute(v, inputs, action_path) for k, v in step.get("env", {}).items()})
        env.update(RUNNER_TEMP=str(runner_temp), GITHUB_PATH=str(github_path), PATH=path)
        proc = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=workspace, env=env,
                              capture_output=True, text=True, timeout=900, check=False)
        if proc.returncode != 0:
            return proc
        added = [line for line in github_path.read_text().splitlines() if line]
        path = os.pathsep.join([*reversed(added), os.environ["PATH"]])
    return proc


@pytest.fixture(scope="module")
def action_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    snapshot = tmp_path_factory.mktemp("action") / "ppo-migrate"
    snapshot.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in SNAPSHOT_ITEMS:
        src = PROJECT / name
        if src.is_dir():
            shutil.copytree(src, snapshot / name, ignore=ignore)
        else:
            shutil.copy2(src, snapshot / name)
    return snapshot


def test_action_annotates_each_finding_and_fails(action_path: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "trainer.py").write_text(TRAINER)
    (ws / "src" / "clean.py").write_text(CLEAN)
    (ws / "scripts").mkdir()
    (ws / "scripts" / "server.py").write_text(SERVER)
    declare_verl(ws)  # issue 26: the workspace declares the verl it runs
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    proc = run_action(action_path, ws, temp, args="src scripts --ignore PPO003")
    assert proc is not None
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the job fails
    assert proc.stdout.splitlines() == [
        "::error title=ppo-migrate (PPO002),file=scripts/server.py,line=5,col=12,endLine=5,"
        "endColumn=37::PPO002 `get_ppo_ray_runtime_env()` called without a config and no "
        "training config is in scope in `init_ray`; this entry point must obtain the training config "
        "and pass it",
        "::error title=ppo-migrate (PPO001),file=src/trainer.py,line=5,col=26,endLine=5,"
        "endColumn=51::PPO001 `get_ppo_ray_runtime_env()` called without the config in scope; "
        "pass `config`",
    ]
    assert (temp / "ppo-migrate-action" / "bin" / "ppo-migrate").exists()  # installed there
    # the default args ("."), on a clean tree: passes with no annotation
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "clean.py").write_text(CLEAN)
    ok = run_action(action_path, clean, temp, installed=True)
    assert ok is not None and ok.returncode == 0, ok.stdout + ok.stderr
    assert "::error" not in ok.stdout


def test_action_declares_the_inputs_and_runs_check_in_github_format() -> None:
    action = yaml.safe_load((PROJECT / "action.yml").read_text(encoding="utf-8"))
    assert set(action["inputs"]) == {"args", "version"}
    last = action["runs"]["steps"][-1]
    assert last["run"].startswith("ppo-migrate check --output-format github $PPO_MIGRATE_ARGS")
    assert last["env"]["PPO_MIGRATE_ARGS"] == "${{ inputs.args }}"
