"""Trial fresh40, B5: a dynamic patcher given the function's name from outside the run's
Python strings.

A conftest sets an attribute named at run time on a module imported by name
(``monkeypatch.setattr(importlib.import_module(m), a, fake)``); the ``module:attr`` it is
given sits in a ``pytest.ini`` or ``tox.ini`` option read with ``getini``, in a root
``doubles.json``, or in ``"module attr".split()``. Each project is *run* (its pytest tests)
before and after a plain ``apply``: the call's fix is unsafe, its reason naming the file and
line of the name and the patcher's ``path:line``; the oracle: the fix made anyway
(``--unsafe-fixes``) fails the tests.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_cli
from ppo_migrate.rules.patches import line_mentions
from test_patches_doubles import FAKED_TEST, THROUGH_MODULE, _line_of, _pytest, _write

#: a conftest replacing each ``module:attr`` of the ini option ``fakes`` (``getini``)
INI_CONFTEST = (
    "import importlib\n\nimport pytest\n\n\n"
    "def pytest_addoption(parser):\n    parser.addini('fakes', '', type='linelist')\n\n\n"
    "@pytest.fixture(autouse=True)\n"
    "def fake(request, monkeypatch):\n"
    "    for t in request.config.getini('fakes'):\n"
    "        m, a = t.split(':')\n"
    "        monkeypatch.setattr(importlib.import_module(m), a, lambda: {'fake': 1})\n"
)

#: name -> (files, (the file naming the function, text on its line), (the patcher's file,
#: text on its line))
DYNAMIC: dict[str, tuple[dict[str, str], tuple[str, str], tuple[str, str]]] = {
    "pytest-ini-option": ({
        "pytest.ini": "[pytest]\nfakes =\n    verl.trainer.constants_ppo:get_ppo_ray_runtime_env\n",
        "conftest.py": INI_CONFTEST,
    }, ("pytest.ini", "constants_ppo:"), ("conftest.py", "monkeypatch.setattr(")),
    "tox-ini-option": ({
        "tox.ini": "[tox]\nenv_list = py\n\n[pytest]\nfakes =\n    verl.trainer.constants_ppo:get_ppo_ray_runtime_env\n",
        "conftest.py": INI_CONFTEST,
    }, ("tox.ini", "constants_ppo:"), ("conftest.py", "monkeypatch.setattr(")),
    "root-doubles-json": ({
        "doubles.json": '{"doubles": [["verl.trainer.constants_ppo", "get_ppo_ray_runtime_env"]]}\n',
        "conftest.py": "import importlib\nimport json\nimport pathlib\n\nimport pytest\n\n\n"
        "@pytest.fixture(autouse=True)\n"
        "def fake(monkeypatch):\n"
        "    table = json.loads((pathlib.Path(__file__).parent / 'doubles.json').read_text())\n"
        "    for m, a in table['doubles']:\n"
        "        monkeypatch.setattr(importlib.import_module(m), a, lambda: {'fake': 1})\n",
    }, ("doubles.json", "constants_ppo"), ("conftest.py", "monkeypatch.setattr(")),
    "space-separated-string-split": ({
        "conftest.py": "import sys\n\nimport pytest\nimport verl.trainer.constants_ppo  # noqa: F401\n\n\n"
        "@pytest.fixture(autouse=True)\n"
        "def fake(monkeypatch):\n"
        "    name, attr = 'verl.trainer.constants_ppo get_ppo_ray_runtime_env'.split()\n"
        "    monkeypatch.setattr(sys.modules[name], attr, lambda: {'fake': 1})\n",
    }, ("conftest.py", ".split()"), ("conftest.py", "monkeypatch.setattr(")),
}


@pytest.mark.parametrize("name", sorted(DYNAMIC))
def test_a_name_given_to_a_dynamic_patcher_from_any_file_keeps_running_after_apply(
    tmp_path: Path, name: str
) -> None:
    extra, (rel, marker), (patcher, patcher_marker) = DYNAMIC[name]
    files = {**extra, "app/launcher.py": THROUGH_MODULE, "tests/test_launcher.py": FAKED_TEST}
    _write(tmp_path, files)
    before = _pytest(tmp_path)
    assert before.returncode == 0, before.stdout + before.stderr
    checked = run_cli("check", "--output-format", "json", ".", cwd=tmp_path)
    found = [d for d in json.loads(checked.stdout) if d["filename"].endswith("app/launcher.py")]
    assert [(d["code"], d["fix"]["applicability"]) for d in found] == [("PPO001", "unsafe")], found
    where = f"{rel}:{_line_of(files, rel, marker)}"
    at = f"{patcher}:{_line_of(files, patcher, patcher_marker)}"
    assert f"(unsafe fix: {where} names the runtime function (`" in found[0]["message"], found[0]["message"]
    assert f"modules imported by name ({at}) may be given it" in found[0]["message"], found[0]["message"]
    original = (tmp_path / "app/launcher.py").read_text()
    assert run_cli("apply", ".", cwd=tmp_path).returncode == 1
    assert (tmp_path / "app/launcher.py").read_text() == original
    after = _pytest(tmp_path)
    assert after.returncode == 0, after.stdout + after.stderr
    # the oracle: the fake takes no config, so the fix made anyway fails the tests
    assert run_cli("apply", "--unsafe-fixes", ".", cwd=tmp_path).returncode == 0
    assert (tmp_path / "app/launcher.py").read_text() != original
    broken = _pytest(tmp_path)
    assert broken.returncode == 1 and "positional argument" in broken.stdout, broken.stdout


def test_documentation_naming_the_function_beside_a_patcher_leaves_the_fix_safe(tmp_path: Path) -> None:
    """Prose (``README.md``, ``docs/*.rst``) is no input of a patcher: with a patcher of an
    unrelated setting, the fix stays safe."""
    files = {
        "app/launcher.py": THROUGH_MODULE,
        "app/compat.py": "import importlib\n\n\ndef override(m, a, f):\n"
        "    setattr(importlib.import_module(m), a, f)\n",
        "README.md": "Call verl.trainer.constants_ppo:get_ppo_ray_runtime_env with the config.\n",
        "docs/usage.rst": "``verl.trainer.constants_ppo get_ppo_ray_runtime_env``\n",
    }
    _write(tmp_path, files)
    checked = run_cli("check", "--output-format", "json", ".", cwd=tmp_path)
    found = [(d["filename"].rsplit("/", 2)[-2:], d["code"], d["fix"]["applicability"])
             for d in json.loads(checked.stdout)]
    assert found == [(["app", "launcher.py"], "PPO001", "safe")], checked.stdout


def test_lines_naming_the_function_with_a_module_in_any_separator_form() -> None:
    functions = frozenset({"get_ppo_ray_runtime_env"})
    text = (
        "[pytest]\n"
        "fakes = verl.trainer.constants_ppo:get_ppo_ray_runtime_env\n"  # 1
        "a = verl.trainer.constants_ppo get_ppo_ray_runtime_env\n"  # 2
        "launcher, get_ppo_ray_runtime_env\n"  # 3
        '{"fn": "get_ppo_ray_runtime_env", "module": "verl.trainer.constants_ppo"}\n'  # 4
        "get_ppo_ray_runtime_env\n"  # the name alone: no module
        "return get_ppo_ray_runtime_env\n"  # a keyword is no module
        "my_get_ppo_ray_runtime_env = launcher.x\n"  # another name
    )
    assert list(line_mentions(text, functions)) == [
        ("verl.trainer.constants_ppo", 1, "fakes = verl.trainer.constants_ppo:get_ppo_ray_runtime_env"),
        ("verl.trainer.constants_ppo", 2, "a = verl.trainer.constants_ppo get_ppo_ray_runtime_env"),
        ("launcher", 3, "launcher, get_ppo_ray_runtime_env"),
        ("verl.trainer.constants_ppo", 4,
         '{"fn": "get_ppo_ray_runtime_env", "module": "verl.trainer.constants_ppo"}'),
    ]
