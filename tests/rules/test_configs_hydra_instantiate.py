"""``hydra.utils.instantiate(cfg, _convert_="all")`` gives plain containers, not a config
(trial 26f): verl 0.9's function reads its config with ``OmegaConf.select``, which fails on
a plain dict, so the config to pass is the ``DictConfig`` that ``@hydra.main`` hands in."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import check_findings, project_ran, run_cli, write_tree

TRAIN = '''\
import _cpu_stubs  # noqa: F401
import hydra
from hydra.utils import instantiate
from omegaconf import DictConfig

from verl.trainer.constants_ppo import get_ppo_ray_runtime_env


@hydra.main(config_path="conf", config_name="train", version_base=None)
def main(cfg: DictConfig) -> None:
    config = instantiate(cfg, _convert_={convert!r})
    env = get_ppo_ray_runtime_env()
    print("OK", sorted(env["env_vars"])[:1], type(config).__name__)


if __name__ == "__main__":
    main()
'''
#: verl's package imports these GPU-side packages at module level; this CPU machine stands
#: them in (the project's own CI would have them)
CPU_STUBS = '''\
import sys, types


class _Anything(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return type(name, (), {})


for _name in ("tensordict", "tensordict.tensorclass", "transformers"):
    sys.modules.setdefault(_name, _Anything(_name))
'''


def _project(root: Path, convert: str) -> Path:
    return write_tree(root, {
        "pyproject.toml": '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n',
        "conf/train.yaml": "trainer:\n  n_gpus_per_node: 1\nactor_rollout_ref:\n  actor:\n    strategy: fsdp\n",
        "_cpu_stubs.py": CPU_STUBS,
        "train.py": TRAIN.format(convert=convert),
    })


@pytest.mark.parametrize("convert", ["all", "partial", "object"])
def test_instantiated_containers_are_not_passed_the_hydra_config_is(tmp_path: Path, convert: str) -> None:
    root = _project(tmp_path / "p", convert)
    (finding,) = check_findings(root)
    assert (finding["code"], finding["fix"]["applicability"]) == ("PPO001", "safe")
    assert finding["fix"]["edits"][0]["content"] == "cfg"


@pytest.mark.network
def test_the_rewritten_launcher_runs_on_verl_0_9_0(tmp_path: Path) -> None:
    from verl_wheels import unpack

    site = unpack("0.9.0", tmp_path / "site")
    root = _project(tmp_path / "p", "all")
    args = ("train.py", f"hydra.run.dir={tmp_path / 'run'}", "hydra.output_subdir=null")
    before = project_ran(root, site, cmd=args)
    assert before.startswith("OK ") and before.endswith(" dict")
    proc = run_cli("apply", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    text = (root / "train.py").read_text()
    assert "    env = get_ppo_ray_runtime_env(cfg)\n" in text
    assert text.replace("get_ppo_ray_runtime_env(cfg)", "get_ppo_ray_runtime_env()") == TRAIN.format(convert="all")
    assert project_ran(root, site, cmd=args) == before  # with `config` passed: AttributeError
