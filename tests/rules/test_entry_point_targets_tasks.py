"""Task runners that call the runtime function, which ``check`` never reported (earlier
trials' MISSED rows): pdm's ``call`` and poe's ``script`` tasks name a function the runner
calls with no arguments (a PPO006 at the value, as a console script's); a ``python -c``
string of a ``pyproject.toml`` (pdm's or poe's ``cmd``, hatch's ``scripts``) is judged as
a module (a PPO002 at the call in the string). No fix for either: ``apply`` leaves the
file byte-identical, and the command runs as before.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from cli_helpers import VERL_09, check_findings, run_cli, verl_stub, write_tree

REF = "verl.trainer.constants_ppo:get_ppo_ray_runtime_env"
CODE = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env; print(get_ppo_ray_runtime_env())"
PYPROJECT = f'''\
[project]
name = "p"
version = "0"
dependencies = ["verl>=0.9.0"]

[tool.pdm.scripts]
env = {{call = "{REF}"}}
env2 = {{call = "{REF}()"}}
given = {{call = "{REF}(1)"}}
smoke = {{cmd = "python -c '{CODE}'"}}

[tool.poe.tasks]
env = {{script = "{REF}()"}}

[tool.poe.tasks.env3]
script = "{REF}"

[tool.hatch.envs.default.scripts]
smoke = "python -c '{CODE}'"
other = "python -c 'import json; print(json.dumps(1))'"
'''


def _at(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """1-based line and column of the ``nth`` occurrence of ``needle`` in ``text``."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)


def test_task_runners_calling_the_function_are_reported_with_no_fix(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"pyproject.toml": PYPROJECT})
    text = PYPROJECT
    found = [(f["location"]["row"], f["location"]["column"], f["code"], f["fix"]) for f in check_findings(root)]
    call_at = [_at(text, "get_ppo_ray_runtime_env())", n) for n in range(2)]
    assert found == [
        (*_at(text, f'"{REF}"}}'), "PPO006", None),  # pdm call, no parentheses
        (*_at(text, f'"{REF}()"}}'), "PPO006", None),  # pdm call, empty parentheses
        (*call_at[0], "PPO002", None),  # pdm cmd's python -c
        (*_at(text, f'"{REF}()"}}', 1), "PPO006", None),  # poe script
        (*_at(text, f'"{REF}"\n'), "PPO006", None),  # poe script in its own table
        (*call_at[1], "PPO002", None),  # hatch script's python -c
    ]
    messages = [f["message"] for f in check_findings(root)]
    assert messages[0] == (
        f"`{REF}` is declared as the pdm task `env` (`call`), which calls it with no arguments: no edit "
        "of the source can pass the config there; make the task call a function that obtains the "
        "training config and passes it"
    )
    assert messages[3].startswith(f"`{REF}` is declared as the poe task `env` (`script`), which calls it")
    assert messages[2].endswith("(in a `python -c` string: not fixed, edit the command)")


def test_a_task_shifted_by_the_script_key_s_column(tmp_path: Path) -> None:
    """``[tool.poe.tasks.env3] script = "..."`` is placed at its value (column 10)."""
    root = write_tree(tmp_path / "p", {"pyproject.toml": PYPROJECT})
    rows = {(f["location"]["row"], f["location"]["column"]) for f in check_findings(root)}
    assert _at(PYPROJECT, f'"{REF}"\n') in rows
    assert _at(PYPROJECT, f'"{REF}"\n')[1] == 10


def test_apply_leaves_the_file_and_the_commands_run_as_before(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"pyproject.toml": PYPROJECT})
    site = verl_stub(tmp_path / "site", VERL_09)
    smoke = tomllib.loads(PYPROJECT)["tool"]["hatch"]["envs"]["default"]["scripts"]["smoke"]
    code = smoke.split("-c ", 1)[1].strip("'")

    def ran() -> str:
        proc = subprocess.run([sys.executable, "-c", code], cwd=root, env={"PYTHONPATH": str(site)},
                              capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.strip()

    assert ran() == "None"
    before = (root / "pyproject.toml").read_bytes()
    for extra in ((), ("--thread-config",), ("--unsafe-fixes",)):
        proc = run_cli("apply", *extra, ".", cwd=root)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert (root / "pyproject.toml").read_bytes() == before
    assert ran() == "None"


@pytest.mark.parametrize("tasks", [
    f'[tool.pdm.scripts]\nenv = {{call = "{REF}(1)"}}\n',  # arguments given by the task
    '[tool.pdm.scripts]\nenv = {call = "pkg.mod:other"}\n',
    f'[tool.poe.tasks]\nenv = {{script = "{REF}(cfg)"}}\n',
    f'[tool.hatch.envs.default.scripts]\nsmoke = "python -c \'{CODE.replace("env())", "env(1))")}\'"\n',
    f'[tool.hatch.envs.default.scripts]\nsmoke = "python -c \'{CODE.replace("; print", ": print")}\'"\n',
])
def test_a_task_passing_arguments_or_naming_another_function_is_not_reported(tmp_path: Path, tasks: str) -> None:
    root = write_tree(tmp_path / "p", {"pyproject.toml": '[project]\nname = "p"\nversion = "0"\n\n' + tasks})
    assert check_findings(root) == []
