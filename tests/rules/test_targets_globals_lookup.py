"""``globals()["get_ppo_ray_runtime_env"]()`` calls the module's own name (trial 26f, MISSED):
found and fixed as a plain call of the name, and the fixed code runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import VERL_09, check_findings, project_ran, run_cli, verl_stub, write_tree

TRAIN = '''\
from omegaconf import OmegaConf
from verl.trainer.constants_ppo import get_ppo_ray_runtime_env


def main(config):
    return globals()[{key!r}]()


if __name__ == "__main__":
    print("ran", type(main(OmegaConf.create({{"trainer": {{}}}}))).__name__)
'''


def _root(tmp_path: Path, key: str) -> Path:
    return write_tree(tmp_path / "p", {
        "pyproject.toml": '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n',
        "train.py": TRAIN.format(key=key),
    })


def test_a_module_name_read_through_globals_is_found_fixed_and_runs(tmp_path: Path) -> None:
    root = _root(tmp_path, "get_ppo_ray_runtime_env")
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran NoneType"
    (finding,) = check_findings(root)
    assert (finding["code"], finding["location"]["row"], finding["fix"]["applicability"]) == ("PPO001", 6, "safe")
    assert run_cli("apply", ".", cwd=root).returncode == 0
    assert "    return globals()['get_ppo_ray_runtime_env'](config)\n" in (root / "train.py").read_text()
    assert project_ran(root, site) == "ran DictConfig"


@pytest.mark.parametrize("key", ["main", "get ppo"])
def test_another_name_or_no_identifier_is_no_call_of_the_function(tmp_path: Path, key: str) -> None:
    assert check_findings(_root(tmp_path, key)) == []
