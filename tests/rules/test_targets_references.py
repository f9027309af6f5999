"""References to the runtime function that are not plain calls (issue 15), through the real CLI.

A plain alias (``make_env = get_ppo_ray_runtime_env``, chains of them) is followed: its calls
are target calls, checked and fixed like direct ones, and the rewritten code still runs. Any
other value reference (``functools.partial``, a default argument, a dict value, a class
attribute) is PPO006 at its own position; introspection is not reported.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from cli_helpers import run_cli

IMP = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
NEW_VERL = {  # an in-tree definition taking a config, so that rewrites are allowed
    "verl/__init__.py": "",
    "verl/trainer/__init__.py": "",
    "verl/trainer/constants_ppo.py": "def get_ppo_ray_runtime_env(config=None):\n    return {'config': config}\n",
}


def _project(root: Path, source: str) -> Path:
    for rel, text in {**NEW_VERL, "m.py": IMP + textwrap.dedent(source)}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root / "m.py"


def _findings(root: Path) -> list[tuple[int, int, str, str]]:
    proc = run_cli("check", "m.py", "--output-format", "json", cwd=root)
    return [
        (d["location"]["row"], d["location"]["column"], d["code"], d["message"])
        for d in json.loads(proc.stdout)
    ]


def _run(path: Path, root: Path, function: str) -> object:
    import sys

    sys.path.insert(0, str(root))
    try:
        namespace: dict = {"__name__": "m"}
        exec(compile(path.read_text(), str(path), "exec"), namespace)
        return namespace[function]({"trainer": {}})
    finally:
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if n == "verl" or n.startswith("verl.")]:
            del sys.modules[name]


def test_plain_aliases_are_followed_and_the_rewrite_runs(tmp_path: Path) -> None:
    path = _project(tmp_path, """
        make_env = get_ppo_ray_runtime_env
        again = make_env


        def run(config):
            return make_env(), again()
        """)
    assert [f[:3] for f in _findings(tmp_path)] == [(8, 12, "PPO001"), (8, 24, "PPO001")]
    assert _run(path, tmp_path, "run") == ({"config": None}, {"config": None})
    proc = run_cli("apply", "m.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "    return make_env(config), again(config)\n" in path.read_text()
    assert _run(path, tmp_path, "run") == ({"config": {"trainer": {}}}, {"config": {"trainer": {}}})


def test_an_alias_rebound_to_something_else_is_ambiguous(tmp_path: Path) -> None:
    _project(tmp_path, """
        import os

        make_env = get_ppo_ray_runtime_env
        if os.environ.get("OLD"):
            make_env = dict


        def run(config):
            return make_env()
        """)
    assert [f[2] for f in _findings(tmp_path)] == ["PPO003"]


def test_other_value_references_are_reported_where_they_are(tmp_path: Path) -> None:
    path = _project(tmp_path, """
        import functools
        import inspect
        from verl.trainer import constants_ppo as c

        HOOKS = {"env": c.get_ppo_ray_runtime_env}


        def start(config, factory=get_ppo_ray_runtime_env):
            p = functools.partial(get_ppo_ray_runtime_env)
            return factory(), p()


        class Launcher:
            env = get_ppo_ray_runtime_env


        def introspect():
            return inspect.signature(get_ppo_ray_runtime_env), get_ppo_ray_runtime_env.__code__, callable(get_ppo_ray_runtime_env)
        """)
    found = _findings(tmp_path)
    assert [(line, col, code) for line, col, code, _ in found] == [
        (7, 17, "PPO006"),
        (10, 27, "PPO006"),
        (11, 27, "PPO006"),
        (16, 11, "PPO006"),
    ]
    assert [message.split(";")[0] for *_, message in found] == [
        "`c.get_ppo_ray_runtime_env` is stored in a dict",
        "`get_ppo_ray_runtime_env` is a default argument",
        "`get_ppo_ray_runtime_env` is passed to `functools.partial(...)`",
        "`get_ppo_ray_runtime_env` is stored as a class attribute (called as a method, it gets `self`)",
    ]
    proc = run_cli("check", "m.py", cwd=tmp_path)
    assert proc.returncode == 1
    before = path.read_text()
    run_cli("apply", "m.py", cwd=tmp_path)
    assert path.read_text() == before  # nothing to rewrite: a reference has no fix
    quiet = run_cli("check", "m.py", "--ignore", "PPO006", cwd=tmp_path)
    assert quiet.returncode == 0 and quiet.stdout.strip() == "All checks passed!"


def test_a_reference_can_be_suppressed_with_noqa(tmp_path: Path) -> None:
    _project(tmp_path, """
        import functools

        ENV = functools.partial(get_ppo_ray_runtime_env, None)  # noqa: PPO006
        """)
    assert _findings(tmp_path) == []


def test_a_del_of_the_function_is_no_reference(tmp_path: Path) -> None:
    """``del get_...`` (a package dropping verl's name for its own ``__getattr__``; trial
    26, f5s_getattr_pep562) hands the function to nothing: no PPO006."""
    _project(tmp_path, """
        del get_ppo_ray_runtime_env
        """)
    assert _findings(tmp_path) == []
