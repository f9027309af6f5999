"""A configless call on a branch chosen by verl's version (trial 26f): the code's own path
for a verl before 0.9, where passing a config raises TypeError. Where the other branch
passes a config the call is a shim (PPO004, no fix); where none does, the fix is unsafe and
says so (``version-gated``). A plain ``apply`` leaves both, and the project still runs on an
old verl."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import VERL_08, check_findings, project_ran, run_cli, verl_stub, write_tree

GATED = {
    "metadata": (
        "from importlib.metadata import version\n",
        'tuple(map(int, version("verl").split(".")[:2])) >= (0, 9)',
    ),
    "dunder": ("import verl\n", 'not verl.__version__.startswith("0.8")'),
    "feature": ("from verl.trainer import constants_ppo\n", 'hasattr(constants_ppo, "_uses_megatron")'),
    # trial 26f: the test is a function of the module reading the version
    "helper": (
        'from importlib.metadata import version\n\n\ndef _verl_09():\n'
        '    try:\n        return version("verl") >= "0.9"\n    except ValueError:\n        return False\n\n\n',
        "_verl_09()",
    ),
    "bound_once": (
        'import importlib.metadata\nVERL = importlib.metadata.distribution("verl").version\n',
        'VERL >= "0.9"',
    ),
}
TRAIN = '''\
{imports}from omegaconf import OmegaConf
from verl.trainer.constants_ppo import get_ppo_ray_runtime_env


def main(config):
    if {test}:
        return get_ppo_ray_runtime_env(config)
    return get_ppo_ray_runtime_env()


if __name__ == "__main__":
    print("ran", main(OmegaConf.create({{"trainer": {{}}}})))
'''


def _project(tmp_path: Path, form: str) -> tuple[Path, Path]:
    imports, test = GATED[form]
    root = write_tree(tmp_path / "p", {
        "pyproject.toml": '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n',
        "train.py": TRAIN.format(imports=imports, test=test),
    })
    site = verl_stub(tmp_path / "site", VERL_08)  # the cluster still runs verl 0.8.0
    (site / "verl" / "__init__.py").write_text('__version__ = "0.8.0"\n')
    meta = site / "verl-0.8.0.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: verl\nVersion: 0.8.0\n")
    return root, site


@pytest.mark.parametrize("form", sorted(set(GATED) - {"bound_once"}))
def test_a_call_on_verl_s_old_branch_beside_one_passing_a_config_is_a_shim(tmp_path: Path, form: str) -> None:
    root, site = _project(tmp_path, form)
    before = project_ran(root, site)
    assert before == "ran None"
    text = (root / "train.py").read_text()
    (finding,) = check_findings(root, "--show-shims")
    assert (finding["code"], finding["fix"]) == ("PPO004", None), finding
    for args in (("apply", "."), ("apply", "--thread-config", ".")):
        run_cli(*args, cwd=root)
        assert (root / "train.py").read_text() == text
        assert project_ran(root, site) == before


@pytest.mark.parametrize("form", sorted(GATED))
def test_a_call_on_verl_s_old_branch_alone_gets_an_unsafe_fix_and_still_runs(tmp_path: Path, form: str) -> None:
    root, site = _project(tmp_path, form)
    # no branch passes a config: the old path alone, the new one left to the default
    source = (root / "train.py").read_text().replace(
        "        return get_ppo_ray_runtime_env(config)\n", "        return {}\n"
    )
    (root / "train.py").write_text(source)
    before = project_ran(root, site)
    assert before == "ran None"
    (finding,) = check_findings(root)
    lines = (root / "train.py").read_text().splitlines()
    test_row = next(i for i, line in enumerate(lines, 1) if line.startswith("    if "))
    assert (finding["code"], finding["location"]["row"]) == ("PPO001", test_row + 2)
    assert finding["fix"]["applicability"] == "unsafe"
    assert finding["reason"]["kind"] == "version-gated"
    (line,) = finding["reason"]["lines"]
    assert line["location"]["row"] == test_row and line["message"].endswith("tests verl's version")
    text = (root / "train.py").read_text()
    for args in (("apply", "."), ("apply", "--thread-config", ".")):
        run_cli(*args, cwd=root)
        assert (root / "train.py").read_text() == text
        assert project_ran(root, site) == before


def test_a_test_of_another_package_s_version_is_no_gate(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {
        "pyproject.toml": '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n',
        "train.py": TRAIN.format(
            imports="from importlib.metadata import version\n", test='version("torch") >= "2"'
        ),
    })
    (finding,) = check_findings(root)
    assert (finding["code"], finding["fix"]["applicability"], finding.get("reason")) == ("PPO001", "safe", None)


def test_a_test_that_does_not_end_its_branch_gates_nothing_after_it(tmp_path: Path) -> None:
    source = TRAIN.format(imports="import verl\n", test='verl.__version__ < "0.9"').replace(
        "        return get_ppo_ray_runtime_env(config)\n", "        print('old verl')\n"
    )
    root = write_tree(tmp_path / "p", {
        "pyproject.toml": '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n',
        "train.py": source,
    })
    (finding,) = check_findings(root)
    assert (finding["location"]["row"], finding["fix"]["applicability"]) == (9, "safe")
