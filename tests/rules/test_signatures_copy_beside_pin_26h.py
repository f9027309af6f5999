"""Trial 26h, H-B7: an in-tree copy of verl that takes a config against a pin that takes none.

A 0.9-style ``verl/`` at the repository root (an upstream snapshot nobody installs) beside
``requirements.txt: verl==0.8.0``: ``python examples/train.py`` puts ``examples/``, not the
root, first on ``sys.path``, so the pinned release runs. The copy decided before and the call
was rewritten, and the script then raised ``TypeError``. The two plausible definitions
disagree: the call is a PPO005 naming both, and nothing is written. Each project is *run*
before and after a plain ``apply`` with the pinned release (a 0.8-style fake) on its path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run_cli

OLD = "def get_ppo_ray_runtime_env():\n    return {'env_vars': {}}\n"
NEW = "def get_ppo_ray_runtime_env(config=None):\n    return {'env_vars': {}}\n"
TRAIN = (
    "from omegaconf import OmegaConf\n"
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def main(config):\n    return get_ppo_ray_runtime_env()\n\n\n"
    "print(main(OmegaConf.create({})))\n"
)


def _package(root: Path, text: str) -> None:
    (root / "verl" / "trainer").mkdir(parents=True)
    (root / "verl" / "__init__.py").write_text("", encoding="utf-8")
    (root / "verl" / "trainer" / "__init__.py").write_text("", encoding="utf-8")
    (root / "verl" / "trainer" / "constants_ppo.py").write_text(text, encoding="utf-8")


def _project(tmp_path: Path, requirement: str) -> tuple[Path, Path]:
    """The repository (a git top level) and the folder of the installed release."""
    repo = tmp_path / "repo"
    _package(repo, NEW)
    (repo / "requirements.txt").write_text(requirement + "\n", encoding="utf-8")
    (repo / "examples").mkdir()
    (repo / "examples" / "train.py").write_text(TRAIN, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    installed = tmp_path / "site"
    _package(installed, OLD)
    return repo, installed


def _run(repo: Path, installed: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(installed)}
    return subprocess.run(
        [sys.executable, "examples/train.py"], cwd=repo, env=env, capture_output=True, text=True,
        check=False, timeout=120,
    )


@pytest.mark.parametrize("requirement", ["verl==0.8.0", "verl>=0.7,<0.9"])
def test_a_copy_taking_a_config_and_an_older_pin_disagree(tmp_path: Path, requirement: str) -> None:
    repo, installed = _project(tmp_path, requirement)
    before = _run(repo, installed)
    assert before.returncode == 0, before.stderr
    r = run_cli("check", "--output-format", "json", "--show-notices", ".", cwd=repo)
    (d,) = json.loads(r.stdout)
    assert (d["code"], d["location"]["row"], d["fix"]) == ("PPO005", 6, None)
    assert d["message"].startswith(
        "`get_ppo_ray_runtime_env()` left as it is: the in-tree copy "
        "`verl/trainer/constants_ppo.py:1` takes a config, but "
        f"`requirements.txt:1 {requirement}` declares a verl release whose "
        "`get_ppo_ray_runtime_env()` takes none"
    )
    assert [(Path(x["filename"]).name, x["location"]["row"]) for x in d["reason"]["lines"]] == [
        ("constants_ppo.py", 1), ("requirements.txt", 1),
    ]
    for extra in ((), ("--thread-config",)):
        run_cli("apply", *extra, ".", cwd=repo)
        assert (repo / "examples" / "train.py").read_text(encoding="utf-8") == TRAIN
        after = _run(repo, installed)
        assert after.returncode == 0, after.stderr


def test_a_copy_and_a_pin_that_agree_still_get_the_safe_fix(tmp_path: Path) -> None:
    """``verl>=0.9.0`` beside the same copy: both take a config; the call is rewritten and
    runs with a 0.9-style release installed."""
    repo, _ = _project(tmp_path, "verl>=0.9.0")
    newer = tmp_path / "site-new"
    _package(newer, NEW)
    r = run_cli("check", "--output-format", "json", ".", cwd=repo)
    (d,) = json.loads(r.stdout)
    assert (d["code"], d["fix"]["applicability"]) == ("PPO001", "safe")
    run_cli("apply", ".", cwd=repo)
    assert "get_ppo_ray_runtime_env(config)" in (repo / "examples" / "train.py").read_text(encoding="utf-8")
    after = _run(repo, newer)
    assert after.returncode == 0, after.stderr
