"""Calls of the runtime function through a module or object named by literal strings only
(trial 26h, MISSED rows H-M4 to H-M6): ``pkgutil.resolve_name("a.b:f")()``,
``importlib.import_module(".b", package="a").f()`` and ``sys.modules.get("a.b").f()``.

Each names its callee with certainty, like the forms found before
(``importlib.import_module("a.b").f()``, ``sys.modules["a.b"].f()``), and gets the same
treatment: a safe fix that inserts the config into the call. Every project is executed before
and after ``apply`` against a fake verl 0.9 whose function returns the config it gets.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_helpers import VERL_09, check_findings, project_ran, run_cli, verl_stub, write_tree

PIN_09 = '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n'

TRAIN = '''\
import importlib
import pkgutil
import sys
from importlib import import_module
from pkgutil import resolve_name

from omegaconf import OmegaConf
import verl.trainer.constants_ppo


def main(config):
    return [type(v).__name__ for v in (
        {call},
    )]


if __name__ == "__main__":
    print("ran", main(OmegaConf.create({{"trainer": {{"n_gpus_per_node": 1}}}})))
'''

CALLS = [
    'pkgutil.resolve_name("verl.trainer.constants_ppo:get_ppo_ray_runtime_env")()',
    'resolve_name("verl.trainer.constants_ppo.get_ppo_ray_runtime_env")()',
    'pkgutil.resolve_name("verl.trainer:constants_ppo.get_ppo_ray_runtime_env")()',
    'importlib.import_module(".constants_ppo", package="verl.trainer").get_ppo_ray_runtime_env()',
    'import_module("..trainer.constants_ppo", "verl.utils").get_ppo_ray_runtime_env()',
    'sys.modules.get("verl.trainer.constants_ppo").get_ppo_ray_runtime_env()',
]


@pytest.mark.parametrize("call", CALLS)
def test_a_callee_named_by_literal_strings_is_found_and_fixed(tmp_path: Path, call: str) -> None:
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, "train.py": TRAIN.format(call=call)})
    site = verl_stub(tmp_path / "site", VERL_09)
    (site / "verl" / "utils").mkdir()
    (site / "verl" / "utils" / "__init__.py").write_text("")
    assert project_ran(root, site) == "ran ['NoneType']"
    found = [(f["location"]["row"], f["location"]["column"], f["code"], f["fix"]["applicability"])
             for f in check_findings(root)]
    assert found == [(13, 9, "PPO001", "safe")]
    proc = run_cli("apply", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    line = (root / "train.py").read_text().splitlines()[12]
    assert line == "        " + call[:-2] + "(config),"
    assert project_ran(root, site) == "ran ['DictConfig']"
    assert check_findings(root) == []


LEFT = [
    # a default given to ``get`` is called when the module is not loaded: not certain
    'sys.modules.get("verl.trainer.constants_ppo", verl.trainer.constants_ppo).get_ppo_ray_runtime_env()',
    # a package that is no literal: the module cannot be told
    'importlib.import_module(".constants_ppo", package=__package__ or "x").get_ppo_ray_runtime_env()',
    # another module's ``resolve_name``: no ``pkgutil``
    'mine.resolve_name("verl.trainer.constants_ppo:get_ppo_ray_runtime_env")()',
]


@pytest.mark.parametrize("call", LEFT)
def test_forms_that_are_not_certain_are_not_fixed(tmp_path: Path, call: str) -> None:
    text = TRAIN.format(call=call).replace("import sys\n", "import sys\nimport types\n\nmine = types.SimpleNamespace(resolve_name=lambda n: lambda: None)\n")
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, "train.py": text})
    assert [f for f in check_findings(root) if f["fix"] and f["fix"]["applicability"] == "safe"] == []


THREAD = '''\
import operator
import pkgutil
from omegaconf import OmegaConf
from verl.trainer import constants_ppo as cp

FACTORY = "get_ppo_ray_runtime_env"


def run():
    return [type(v).__name__ for v in (
        operator.methodcaller(FACTORY)(cp),
        pkgutil.resolve_name("verl.trainer.constants_ppo:get_ppo_ray_runtime_env")(),
    )]


def main(config):
    return run()


if __name__ == "__main__":
    print("ran", main(OmegaConf.create({"trainer": {"n_gpus_per_node": 1}})))
'''


def test_thread_config_reaches_a_constant_methodcaller_and_resolve_name(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, "train.py": THREAD})
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran ['NoneType', 'NoneType']"
    proc = run_cli("apply", "--thread-config", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = (root / "train.py").read_text().splitlines()
    assert lines[8:12] == [
        "def run(config=None):",
        "    return [type(v).__name__ for v in (",
        "        operator.methodcaller(FACTORY, config)(cp),",
        '        pkgutil.resolve_name("verl.trainer.constants_ppo:get_ppo_ray_runtime_env")(config),',
    ]
    assert lines[16] == "    return run(config=config)"
    assert project_ran(root, site) == "ran ['DictConfig', 'DictConfig']"


def test_a_project_function_spelled_resolve_name_is_not_pkgutils(tmp_path: Path) -> None:
    """Read by qualified name: ``from helpers import resolve_name`` is the project's, whose
    result takes no config; a fix would raise ``TypeError`` where the call runs today."""
    text = TRAIN.format(call='resolve_name("verl.trainer.constants_ppo:get_ppo_ray_runtime_env")()').replace(
        "from pkgutil import resolve_name\n", "from helpers import resolve_name\n")
    helpers = "def resolve_name(name):\n    return lambda: None\n"
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, "train.py": text, "helpers.py": helpers})
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran ['NoneType']"
    assert check_findings(root) == []
    assert run_cli("apply", ".", cwd=root).returncode == 0
    assert project_ran(root, site) == "ran ['NoneType']"
