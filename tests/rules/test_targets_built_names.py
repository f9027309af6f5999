"""Calls of the runtime function ``check`` never reported (earlier trials' MISSED rows):
a ``getattr``/``vars``/``__dict__`` name built from parts, a loop variable over verl's
module, a module named by ``import_module`` of an expression whose default is verl's, and
the callers of a ``functools.wraps`` forwarder.

Each project runs before and after a plain ``apply`` and ``apply --thread-config``; each
form is a PPO003 with no fix at the call (the exact line and column), and ``apply`` leaves
the file byte-identical. ``vars(cp)[names.X]()`` reads the constant as
``getattr(cp, names.X)()`` does, with the same guards: a safe fix, and the rewritten
project runs with the config passed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_helpers import VERL_09, check_findings, project_ran, run_cli, verl_stub, write_tree

PIN_09 = '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n'
NAME = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"

TRAIN = '''\
import enum
import importlib
import os

from verl.trainer import constants_ppo as cp

KIND = "runtime"
{prelude}

def main(config):
    return {call}


if __name__ == "__main__":
    print("ran", type(main({{"trainer": 1}})).__name__)
'''

ENUM = '''

class Names(enum.Enum):
    ENV = "get_ppo_ray_runtime_env"

'''

#: name -> (the call, the text before it, why the message gives)
FORMS: dict[str, tuple[str, str, str]] = {
    "concatenated": ('getattr(cp, "get_ppo_ray_" + "runtime_env")()', "",
                     '`getattr` with a name computed at run time (`"get_ppo_ray_" + "runtime_env"`)'),
    "f-string-of-a-constant": ('getattr(cp, f"get_ppo_ray_{KIND}_env")()', "",
                               '`getattr` with a name computed at run time (`f"get_ppo_ray_{KIND}_env"`)'),
    "enum-member-value": ("getattr(cp, Names.ENV.value)()", ENUM,
                          "`getattr` with a name computed at run time (`Names.ENV.value`)"),
    "partition": ('getattr(cp, "x.get_ppo_ray_runtime_env".partition(".")[2])()', "",
                  '`getattr` with a name computed at run time (`"x.get_ppo_ray_runtime_env".partition(".")[2]`)'),
    "str-join": ('getattr(cp, "_".join(["get", "ppo", "ray", "runtime", "env"]))()', "",
                 '`getattr` with a name computed at run time (`"_".join(["get", "ppo", "ray", "runtime", "env"])`)'),
    "vars-built": ('vars(cp)["get_ppo_ray_" + KIND + "_env"]()', "",
                   '`vars(...)` with a name computed at run time (`"get_ppo_ray_" + KIND + "_env"`)'),
    "dict-built": ('cp.__dict__[f"get_ppo_ray_{KIND}_env"]()', "",
                   '`__dict__` with a name computed at run time (`f"get_ppo_ray_{KIND}_env"`)'),
    "loop-variable": ("[m.get_ppo_ray_runtime_env() for m in (cp,)][0]", "",
                      "`m`, a loop variable over `(cp,)`"),
    "import-module-env-default": (
        'importlib.import_module(os.environ.get("ENV_MOD", "verl.trainer.constants_ppo")).get_ppo_ray_runtime_env()',
        "", 'a module named at run time (`os.environ.get("ENV_MOD", "verl.trainer.constants_ppo")`)'),
}


def _position(text: str, call: str) -> tuple[int, int]:
    """1-based line and column of the reported call in ``text``: the call itself, or for a
    comprehension the call inside it."""
    inner = "m.get_ppo_ray_runtime_env()" if call.startswith("[m.") else call
    at = text.index(inner)
    return text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)


def _applied_leaves_it(root: Path, site: Path, name: str, expected: str) -> None:
    """A plain ``apply`` and ``apply --thread-config`` leave ``name`` byte-identical (exit 1:
    a finding remains) and the project runs as before (``expected``)."""
    before = (root / name).read_bytes()
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", *extra, ".", cwd=root)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert (root / name).read_bytes() == before
        assert project_ran(root, site) == expected


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_form_check_missed_is_ppo003_with_no_fix(tmp_path: Path, form: str) -> None:
    call, prelude, why = FORMS[form]
    text = TRAIN.format(call=call, prelude=prelude)
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, "train.py": text})
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran NoneType"  # called with no config: verl 0.9's None
    row, column = _position(text, call)
    written = "m.get_ppo_ray_runtime_env()" if form == "loop-variable" else call
    found = [(f["filename"], f["location"]["row"], f["location"]["column"], f["code"], f["fix"], f["message"])
             for f in check_findings(root)]
    assert found == [(str(root / "train.py"), row, column, "PPO003", None,
                      f"`{written}` may be the runtime function ({NAME}) through {why}, which the tool "
                      "does not follow; not rewritten")]
    _applied_leaves_it(root, site, "train.py", "ran NoneType")


def test_the_built_name_alone_passes_the_prefilter(tmp_path: Path) -> None:
    """A file spelling no target's name whole (the byte prefilter's word) is still read when
    it names verl's module and reads an attribute by name: each of its built calls is found."""
    calls = [FORMS[f][0] for f in ("concatenated", "f-string-of-a-constant", "str-join")]
    text = TRAIN.format(call="(" + ", ".join(calls) + ")", prelude="")
    assert "get_ppo_ray_runtime_env" not in text
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, "train.py": text})
    found = [(f["location"]["row"], f["location"]["column"], f["code"], f["fix"]) for f in check_findings(root)]
    row = text.count("\n", 0, text.index("return ")) + 1
    columns = [text.index(c) - text.rfind("\n", 0, text.index(c)) for c in calls]
    assert found == [(row, c, "PPO003", None) for c in columns]


@pytest.mark.parametrize("call", [
    'getattr(cp, "get_ppo_ray_" + "runtime_env")(config)',  # the config passed
    'getattr(cp, "_".join(["get", "ppo", "ray", "other"]))',  # another name, not called
    'getattr(os, "get_ppo_ray_" + "runtime_env", None)',  # another module
    'getattr(cp, "get_ppo_ray_" + str(1), None)',  # a part the tool does not read
    '[m.get_ppo_ray_runtime_env(config) for m in (cp,)][0]',
    '[getattr(m, "get_ppo_ray_runtime_env", None) for m in (os,)][0]',
    'importlib.import_module(os.environ.get("ENV_MOD", "verl.trainer.constants_ppo")).get_ppo_ray_runtime_env(config)',
    'getattr(importlib.import_module(os.environ.get("ENV_MOD", "json")), "get_ppo_ray_runtime_env", None)',
])
def test_a_config_passed_or_another_callee_is_not_reported(tmp_path: Path, call: str) -> None:
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, "train.py": TRAIN.format(call=call, prelude="")})
    assert check_findings(root) == []


NAMES_MODULE = 'X = "get_ppo_ray_runtime_env"\n'
VARS_TRAIN = '''\
from omegaconf import OmegaConf
from verl.trainer import constants_ppo as cp

from app import names


def main(config):
    return {call}


if __name__ == "__main__":
    print("ran", type(main(OmegaConf.create({{"trainer": {{"n_gpus_per_node": 1}}}}))).__name__)
'''


@pytest.mark.parametrize("call", ["vars(cp)[names.X]()", "cp.__dict__[names.X]()"])
def test_a_key_held_by_a_module_constant_is_fixed_and_the_fix_runs(tmp_path: Path, call: str) -> None:
    """``vars(cp)[names.X]()`` is ``getattr(cp, names.X)()`` (fresh user 41, W6: a safe fix
    under the same guards); the rewritten project passes the config (verl 0.9's stub
    returns it)."""
    root = write_tree(tmp_path / "p", {
        "pyproject.toml": PIN_09, "app/__init__.py": "", "app/names.py": NAMES_MODULE,
        "train.py": VARS_TRAIN.format(call=call),
    })
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran NoneType"
    found = [(f["location"]["row"], f["location"]["column"], f["code"], f["fix"]["applicability"])
             for f in check_findings(root)]
    assert found == [(8, 12, "PPO001", "safe")]
    proc = run_cli("apply", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (root / "train.py").read_text() == VARS_TRAIN.format(call=call.replace("]()", "](config)"))
    assert project_ran(root, site) == "ran DictConfig"


def test_a_rebound_name_module_constant_leaves_vars_unfixed(tmp_path: Path) -> None:
    """The guards of ``getattr(cp, names.X)`` hold for the subscript: ``names.X`` rebound
    in this file is no constant, and ``vars(cp)[names.X]()`` gets no fix."""
    text = VARS_TRAIN.format(call="vars(cp)[names.X]()").replace(
        "\n\ndef main", "\nnames.X = 'keys'\n\n\ndef main")
    root = write_tree(tmp_path / "p", {
        "pyproject.toml": PIN_09, "app/__init__.py": "", "app/names.py": NAMES_MODULE, "train.py": text,
    })
    assert [f for f in check_findings(root) if f["fix"] is not None] == []


WRAPPED = '''\
import functools

from verl.trainer.constants_ppo import get_ppo_ray_runtime_env


@functools.wraps(get_ppo_ray_runtime_env)
def ray_env(*args, **kwargs):
    return get_ppo_ray_runtime_env(*args, **kwargs)


def main(config):
    return ray_env()


def other(config):
    return ray_env(config)


if __name__ == "__main__":
    print("ran", type(main({"trainer": 1})).__name__, type(other({"trainer": 1})).__name__)
'''


def test_a_wraps_forwarder_s_configless_caller_is_ppo003_with_no_fix(tmp_path: Path) -> None:
    """``@functools.wraps(get_...)`` over a ``*args`` forwarder: the forwarder itself is the
    PPO006 it was (the reference passed to ``wraps``); its configless caller is now a PPO003
    with no fix (the tool cannot fix a ``*args`` forwarder without knowing each caller),
    and the caller passing the config is not reported."""
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, "train.py": WRAPPED})
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran NoneType dict"
    found = [(f["location"]["row"], f["location"]["column"], f["code"], f["fix"], f["message"])
             for f in check_findings(root)]
    assert [f[:4] for f in found] == [(6, 18, "PPO006", None), (12, 12, "PPO003", None)]
    assert found[1][4] == (
        f"`ray_env()` may be the runtime function ({NAME}) through `ray_env`, a `functools.wraps` "
        "forwarder of it (line 7) whose `*args` the tool does not follow to each caller; not rewritten"
    )
    _applied_leaves_it(root, site, "train.py", "ran NoneType dict")


def test_a_wraps_of_the_project_s_own_or_another_function_is_not_reported(tmp_path: Path) -> None:
    own = WRAPPED.replace("import functools\n", "import functools\nimport json\n").replace(
        "@functools.wraps(get_ppo_ray_runtime_env)\ndef ray_env(*args, **kwargs):\n"
        "    return get_ppo_ray_runtime_env(*args, **kwargs)",
        "@functools.wraps(json.dumps)\ndef ray_env(*args, **kwargs):\n    return json.dumps(*args, **kwargs)")
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, "train.py": own})
    assert [f["code"] for f in check_findings(root)] == []
