"""What another module's function makes of a parameter is not known (trial 26f): a
project's ``load_config(config_path)`` returning ``yaml.safe_load(...)`` is a plain dict,
on which verl 0.9's function fails (``OmegaConf.select``: AttributeError)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import check_findings, run_cli, write_tree

TRAIN = '''\
import sys

from verl.trainer.constants_ppo import get_ppo_ray_runtime_env

from myproj.config import load_config


def run({param}):
    config = load_config({param})
    env = get_ppo_ray_runtime_env()
    print("OK", config["trainer"], sorted(env))


if __name__ == "__main__":
    run(sys.argv[1])
'''
LOADER = '''\
import yaml


def load_config(path):
    with open(path) as fh:
        return yaml.safe_load(fh)
'''


def _project(root: Path, param: str) -> Path:
    return write_tree(root, {
        "pyproject.toml": '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n',
        "conf/train.yaml": "trainer:\n  n_gpus_per_node: 1\n",
        "myproj/__init__.py": "",
        "myproj/config.py": LOADER,
        "train.py": TRAIN.format(param=param),
    })


@pytest.mark.parametrize("param", ["config_path", "source"])
def test_another_module_s_result_of_a_parameter_is_no_config(tmp_path: Path, param: str) -> None:
    root = _project(tmp_path / "p", param)
    (finding,) = check_findings(root)
    assert (finding["code"], finding["fix"]["applicability"]) == ("PPO001", "unsafe")
    assert finding["fix"]["edits"][0]["content"] == "config"
    assert finding["reason"]["kind"] == "unknown-value"
    assert finding["reason"]["lines"][0]["message"] == (
        f"`config = load_config({param})`: a value of a type not known here"
    )
    proc = run_cli("apply", ".", cwd=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the unsafe fix is left: a finding remains
    assert (root / "train.py").read_text() == TRAIN.format(param=param)


def test_a_config_named_parameter_still_vouches(tmp_path: Path) -> None:
    # ``config = migrate_legacy_reward_impl(config)`` in verl's own main: the name vouches
    root = _project(tmp_path / "p", "cfg")
    (finding,) = check_findings(root)
    assert (finding["code"], finding["fix"]["applicability"]) == ("PPO001", "safe")
