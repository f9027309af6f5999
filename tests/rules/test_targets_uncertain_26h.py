"""Calls of the runtime function through forms the tool reads but cannot follow with
certainty (trial 26h, MISSED rows H-M1, H-M7, H-M8): ``functools.reduce(getattr, [...],
verl)()``, ``inspect.getattr_static(cp, "get_...")()`` and ``cp.get_...()`` with ``cp`` bound
to a loader function's module (the ``LazyLoader`` recipe of :mod:`importlib`'s documentation).
Each was "All checks passed!"; each is now a PPO003 with no fix that names the form (and, for
the loader, the file and line binding ``cp``), and ``apply`` leaves the project as it was.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_helpers import VERL_09, check_findings, project_ran, run_cli, verl_stub, write_tree

PIN_09 = '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n'

TRAIN = '''\
import functools
import importlib.util
import inspect

from omegaconf import OmegaConf
import verl
import verl.trainer.constants_ppo


def lazy_import(name):
    spec = importlib.util.find_spec(name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


cp = lazy_import("verl.trainer.constants_ppo")


def main(config):
    return [type(v).__name__ for v in (
        {call},
    )]


if __name__ == "__main__":
    print("ran", main(OmegaConf.create({{"trainer": {{"n_gpus_per_node": 1}}}})))
'''

NAME = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"
CASES = [
    ('functools.reduce(getattr, ["trainer", "constants_ppo", "get_ppo_ray_runtime_env"], verl)()',
     "through `functools.reduce(getattr, ...)`, which the tool does not follow; not rewritten"),
    ('inspect.getattr_static(verl.trainer.constants_ppo, "get_ppo_ray_runtime_env")()',
     "through `inspect.getattr_static`, which reads the module's `__dict__` only; not rewritten"),
    ("cp.get_ppo_ray_runtime_env()",
     ('through `cp`, bound to `lazy_import("verl.trainer.constants_ppo")` (train.py:19), a module the '
     "tool cannot tell; not rewritten")),
]


@pytest.mark.parametrize(("call", "why"), CASES)
def test_an_uncertain_form_is_ppo003_with_no_fix(tmp_path: Path, call: str, why: str) -> None:
    text = TRAIN.format(call=call)
    if call.startswith("cp."):  # a lazy module of a module loaded already raises at first use
        text = text.replace("import verl.trainer.constants_ppo\n", "import verl.trainer\n")
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, "train.py": text})
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran ['NoneType']"
    found = [(f["location"]["row"], f["location"]["column"], f["code"], f["fix"], f["message"])
             for f in check_findings(root)]
    assert found == [(24, 9, "PPO003", None, f"`{call}` may be the runtime function ({NAME}) {why}")]
    before = (root / "train.py").read_text()
    proc = run_cli("apply", ".", cwd=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (root / "train.py").read_text() == before
    assert project_ran(root, site) == "ran ['NoneType']"


@pytest.mark.parametrize("call", [
    'functools.reduce(getattr, ["trainer", "constants_ppo", "get_ppo_ray_runtime_env"], verl)(config)',
    'inspect.getattr_static(verl.trainer.constants_ppo, "get_ppo_ray_runtime_env")(config)',
    "cp.get_ppo_ray_runtime_env(config)",
    # not verl's: another name, a reducer of the project's own, another module's string
    'functools.reduce(getattr, ["trainer", "constants_ppo", "keys"], verl)',
    'functools.reduce(lambda o, n: o, ["trainer", "constants_ppo", "get_ppo_ray_runtime_env"], verl)',
    'lazy_import("json").get_ppo_ray_runtime_env',
])
def test_a_config_passed_or_another_callee_is_not_reported(tmp_path: Path, call: str) -> None:
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, "train.py": TRAIN.format(call=call)})
    assert check_findings(root) == []


INIT = '''\
import sys

import verl.trainer.constants_ppo as _constants
{other}
# stable import path for our code: proj.runtime is verl's constants module
sys.modules[__name__ + ".runtime"] = {value}
'''

USERS = {
    "from": "from proj.runtime import get_ppo_ray_runtime_env\n\n\n"
            "def main(config):\n    return type(get_ppo_ray_runtime_env()).__name__\n",
    # ``import proj.runtime`` binds no attribute ``runtime`` of ``proj`` for a module found in
    # ``sys.modules``; ``from proj import runtime`` falls back to it
    "import": "from proj import runtime\n\n\n"
              "def main(config):\n    return type(runtime.get_ppo_ray_runtime_env()).__name__\n",
}
TAIL = '\n\nif __name__ == "__main__":\n    print("ran", main({"trainer": 1}))\n'


@pytest.mark.parametrize("user", sorted(USERS))
def test_verl_module_registered_under_a_project_name_is_ppo003(tmp_path: Path, user: str) -> None:
    """``sys.modules[__name__ + ".runtime"] = constants_ppo`` in ``proj/__init__.py`` (trial
    26h, H-M3): ``proj.runtime`` is verl's module, which no file of the project is."""
    root = write_tree(tmp_path / "p", {
        "pyproject.toml": PIN_09, "proj/__init__.py": INIT.format(other="", value="_constants"),
        "train.py": USERS[user] + TAIL,
    })
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran NoneType"
    found = [(f["location"]["row"], f["code"], f["fix"], f["message"]) for f in check_findings(root)]
    callee = "get_ppo_ray_runtime_env" if user == "from" else "runtime.get_ppo_ray_runtime_env"
    assert found == [(5, "PPO003", None,
                      (f"`{callee}()` may be the runtime function ({NAME}) through `proj.runtime`, which "
                      "proj/__init__.py:6 registers in `sys.modules` as verl's `verl.trainer.constants_ppo`, "
                      "a module the tool does not follow; not rewritten"))]
    assert run_cli("apply", ".", cwd=root).returncode == 1
    assert project_ran(root, site) == "ran NoneType"


def test_another_module_registered_there_is_not_reported(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {
        "pyproject.toml": PIN_09,
        "proj/__init__.py": INIT.format(other="import json as _json\n", value="_json"),
        "train.py": USERS["from"] + TAIL,
    })
    assert check_findings(root) == []


COMPAT = '''\
import importlib
import sys
import types

# six.moves-style alias module: proj.compat.rt
rt = types.ModuleType(__name__ + ".rt")
rt.__dict__.update(vars(importlib.import_module("{module}")))
sys.modules[rt.__name__] = rt
'''


def test_a_namespace_copied_from_verl_is_ppo003(tmp_path: Path) -> None:
    """``rt.__dict__.update(vars(import_module("verl.trainer.constants_ppo")))`` in
    ``proj/compat.py`` (trial 26h, H-M3b): ``rt.get_...()`` in another module is verl's."""
    user = "from proj.compat import rt\n\n\ndef main(config):\n    return type(rt.get_ppo_ray_runtime_env()).__name__\n"
    root = write_tree(tmp_path / "p", {
        "pyproject.toml": PIN_09, "proj/__init__.py": "",
        "proj/compat.py": COMPAT.format(module="verl.trainer.constants_ppo"), "train.py": user + TAIL,
    })
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran NoneType"
    found = [(f["location"]["row"], f["code"], f["fix"], f["message"]) for f in check_findings(root)]
    assert found == [(5, "PPO003", None,
                      (f"`rt.get_ppo_ray_runtime_env()` may be the runtime function ({NAME}) through "
                      "`proj.compat.rt`, whose namespace proj/compat.py:7 copies from verl's "
                      "`verl.trainer.constants_ppo`, a module the tool does not follow; not rewritten"))]
    assert run_cli("apply", ".", cwd=root).returncode == 1
    assert project_ran(root, site) == "ran NoneType"
    (root / "proj/compat.py").write_text(COMPAT.format(module="json"))
    assert check_findings(root) == []
