"""``getattr(cp, "get_ppo_ray_runtime_env", default)()`` calls the runtime function where verl's
module has it, else the default (trial 26f, MISSED: ``check`` found only the two-argument
form). The call is found; the fix is safe only when the default takes what the call passes
(``lambda *a: ...``, ``lambda config=None: ...``, or ``None``, whose call fails either way)."""

from __future__ import annotations

from pathlib import Path

from cli_helpers import VERL_09, check_findings, project_ran, run_cli, verl_stub, write_tree

TRAIN = '''\
from omegaconf import OmegaConf
from verl.trainer import constants_ppo


def main(config):
    a = getattr(constants_ppo, "get_ppo_ray_runtime_env", lambda *a: {{}})()
    b = getattr(constants_ppo, "get_ppo_ray_runtime_env", lambda: {{}})()
    c = getattr(constants_ppo, "get_ppo_ray_runtime_env", None)()
    d = getattr(constants_ppo, "{other}", lambda: "x")()
    return [type(v).__name__ for v in (a, b, c, d)]


if __name__ == "__main__":
    print("ran", main(OmegaConf.create({{"trainer": {{"n_gpus_per_node": 1}}}})))
'''


def test_getattr_with_a_default_is_found_and_fixed_only_where_the_default_takes_it(tmp_path: Path) -> None:
    source = TRAIN.format(other="get_other_env")
    root = write_tree(tmp_path / "p", {
        "pyproject.toml": '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n',
        "train.py": source,
    })
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran ['NoneType', 'NoneType', 'NoneType', 'str']"
    found = [(f["location"]["row"], f["code"], f["fix"]["applicability"]) for f in check_findings(root)]
    assert found == [(6, "PPO001", "safe"), (7, "PPO001", "unsafe"), (8, "PPO001", "safe")]
    (unsafe,) = [f for f in check_findings(root) if f["location"]["row"] == 7]
    assert unsafe["reason"]["kind"] == "getattr-default"
    assert unsafe["reason"]["lines"][0]["message"] == "the default `lambda: {}`"
    proc = run_cli("apply", ".", cwd=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the unsafe one remains
    lines = (root / "train.py").read_text().splitlines()
    assert lines[5].endswith('lambda *a: {})(config)') and lines[7].endswith("None)(config)")
    assert lines[6].endswith("lambda: {})()")
    # the stub's function returns the config it is given: a DictConfig now, for a and c
    assert project_ran(root, site) == "ran ['DictConfig', 'NoneType', 'DictConfig', 'str']"
