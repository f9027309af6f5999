"""Calls whose callee is read by name with a default, or from ``globals()`` (trial 26f,
g6_getattr_with_default and h6_globals_subscript_call: calls ``check`` did not mention).

Each project runs before and after ``apply`` and ``apply --thread-config``: a call that only
the function can answer is fixed (the run then passes the config to verl 0.9's stub, which
returns it); one that a ``getattr`` default may answer instead is ambiguous (PPO003) and left.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from cli_helpers import VERL_09, check_findings, project_ran, run_cli, verl_stub, write_tree

HEAD = (
    "from omegaconf import OmegaConf\n"
    "from verl.trainer import constants_ppo\n"
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
)
MAIN = "\n\nif __name__ == '__main__':\n    print('ran', main(OmegaConf.create({'trainer': 1})))\n"
NEW = "ran {'trainer': 1}"  # verl 0.9's stub returns the config it is given

#: name -> (the body, the findings ``(code, line, applicability)``, the call as ``apply``
#: leaves it, what the run prints after ``apply``)
BY_NAME = {
    # the attribute is there: the default is never called; ambiguous all the same (PPO003)
    "getattr-with-a-lambda-default": ("""
        def main(config):
            return getattr(constants_ppo, "get_ppo_ray_runtime_env", lambda *a: {})()
        """, [("PPO003", 6, None)],
        'getattr(constants_ppo, "get_ppo_ray_runtime_env", lambda *a: {})()', "ran None"),
    # a default that is the function itself, or None (which raises as the missing name would)
    "getattr-with-the-function-as-default": ("""
        def main(config):
            return getattr(constants_ppo, "get_ppo_ray_runtime_env", get_ppo_ray_runtime_env)()
        """, [("PPO001", 6, "safe")],
        'getattr(constants_ppo, "get_ppo_ray_runtime_env", get_ppo_ray_runtime_env)(config)', NEW),
    "getattr-with-a-none-default": ("""
        def main(config):
            return getattr(constants_ppo, "get_ppo_ray_runtime_env", None)()
        """, [("PPO001", 6, "safe")],
        'getattr(constants_ppo, "get_ppo_ray_runtime_env", None)(config)', NEW),
    # ``globals()["f"]``: the module's binding, a local of the same name notwithstanding
    "globals-subscript": ("""
        def main(config):
            get_ppo_ray_runtime_env = dict
            return globals()["get_ppo_ray_runtime_env"]()
        """, [("PPO001", 7, "safe")], 'globals()["get_ppo_ray_runtime_env"](config)', NEW),
}


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_a_callee_read_by_name_with_a_default_or_from_globals_is_found(tmp_path: Path, name: str) -> None:
    """The run passes before and after ``apply`` (and ``apply --thread-config``); the call is
    reported, fixed where nothing but the function can be called."""
    body, found, left, after = BY_NAME[name]
    root = write_tree(tmp_path / "proj", {
        "requirements.txt": "verl>=0.9\n", "app.py": HEAD + textwrap.dedent(body) + MAIN,
    })
    stub = verl_stub(tmp_path / "stub", VERL_09)
    assert project_ran(root, stub, cmd=("app.py",)) == "ran None"
    assert [
        (f["code"], f["location"]["row"], (f["fix"] or {}).get("applicability")) for f in check_findings(root)
    ] == found
    assert run_cli("apply", "--exit-zero", ".", cwd=root).returncode == 0
    assert left in (root / "app.py").read_text()
    assert project_ran(root, stub, cmd=("app.py",)) == after
    assert run_cli("apply", "--exit-zero", "--thread-config", ".", cwd=root).returncode == 0
    assert project_ran(root, stub, cmd=("app.py",)) == after


@pytest.mark.parametrize(
    ("source", "parts", "defaults", "from_globals"),
    [
        ('getattr(cp, "f", d)', ["cp", "f"], [("d", True)], False),
        ('getattr(cp, "f", None)', ["cp", "f"], [], False),
        ('getattr(cp, "f", lambda *a: {}).__call__', ["cp", "f"], [("lambda *a: {}", True)], False),
        ('getattr(getattr(app, "cp", fallback), "f")', ["app", "cp", "f"], [("fallback", False)], False),
        ('globals()["f"]', ["f"], [], True),
        ('globals()["cp"].f', ["cp", "f"], [], True),
        ('getattr(cp, "f")', ["cp", "f"], [], False),
        ('globals()[name]', None, [], True),
        ('globals()["not a name"]', None, [], True),
        ('locals()["f"]', None, [], False),
    ],
)
def test_the_callee_s_spellings_by_name(source: str, parts, defaults, from_globals: bool) -> None:
    """:func:`callee_parts` reads ``getattr`` with a default and ``globals()[...]``; the
    defaults a callee may reach instead and whether its head is the module's binding."""
    import ast

    from ppo_migrate.rules.targets import callee_parts, getattr_defaults, reads_globals

    func = ast.parse(source, mode="eval").body
    assert callee_parts(func) == parts
    assert [(ast.unparse(d), outermost) for d, outermost in getattr_defaults(func)] == defaults
    assert reads_globals(func) is from_globals
