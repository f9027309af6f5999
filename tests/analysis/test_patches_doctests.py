"""Trial 26c, section E (family 4): a replacement of the runtime function written in a
doctest (``>>> launcher.get_ppo_ray_runtime_env = lambda: ...``), run by pytest's
``--doctest-modules`` (the project's ``addopts``). Doctest lines are test code: the
replacement table reads them (:func:`ppo_migrate.analysis.patches.doctest_tree`), in the
calling module and in another module that loads it. Each project's doctests are *run*
before and after a plain ``apply``."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run_cli
from ppo_migrate.analysis.patches import doctest_tree

VERL = "def get_ppo_ray_runtime_env(config=None):\n    return {'env_vars': {}}\n"
OWN = (
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
    "\n"
    "\n"
    "def launch(config):\n"
    '    """Build the Ray runtime env.\n'
    "\n"
    "    >>> import launcher\n"
    "    >>> launcher.get_ppo_ray_runtime_env = lambda: {'env_vars': {}}\n"
    "    >>> launcher.launch({'trainer': {}})\n"
    "    {'env_vars': {}}\n"
    '    """\n'
    "    return get_ppo_ray_runtime_env()\n"
)
PLAIN_LAUNCHER = OWN.split("    >>> import launcher")[0].rstrip() + '\n    """\n    return get_ppo_ray_runtime_env()\n'
OTHER = (
    '"""Helpers.\n'
    "\n"
    ">>> import launcher\n"
    ">>> with open('/dev/null') as _:\n"
    "...     launcher.get_ppo_ray_runtime_env = lambda: {'env_vars': {}}\n"
    ">>> launcher.launch({'trainer': {}})\n"
    "{'env_vars': {}}\n"
    '"""\n'
)


def _project(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True)
    base = {
        "pytest.ini": "[pytest]\naddopts = --doctest-modules\ntestpaths = launcher.py helpers.py\n",
        "verl/__init__.py": "", "verl/trainer/__init__.py": "", "verl/trainer/constants_ppo.py": VERL,
    }
    for name, text in {**base, **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _doctests(root: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:randomly"],
        cwd=root, env=env, capture_output=True, text=True, timeout=300,
    )


@pytest.mark.parametrize(
    ("files", "where"),
    [({"launcher.py": OWN}, "launcher.py:8"), ({"launcher.py": PLAIN_LAUNCHER, "helpers.py": OTHER}, "helpers.py:5")],
    ids=["own-docstring", "other-module"],
)
def test_a_replacement_in_a_doctest_makes_the_fix_unsafe(tmp_path: Path, files: dict[str, str], where: str) -> None:
    root = _project(tmp_path / "proj", files)
    before = _doctests(root)
    assert before.returncode == 0 and " passed" in before.stdout, before.stdout + before.stderr
    proc = run_cli("check", "--output-format", "json", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    found = [(f["filename"].replace(os.sep, "/").rsplit("proj/", 1)[-1], f["code"], f["location"]["row"],
              (f["fix"] or {}).get("applicability")) for f in json.loads(proc.stdout)]
    assert found == [("launcher.py", "PPO001", 12 if "helpers.py" not in files else 7, "unsafe")], proc.stdout
    assert where in proc.stdout
    launcher = (root / "launcher.py").read_text()
    assert run_cli("apply", ".", cwd=root).returncode in (0, 1)
    assert (root / "launcher.py").read_text() == launcher  # the unsafe fix is not made
    after = _doctests(root)
    assert after.returncode == 0, after.stdout + after.stderr


def test_doctest_examples_are_statements_at_their_lines() -> None:
    tree = doctest_tree(ast.parse(OWN))
    assert tree is not None
    assert [(type(s).__name__, s.lineno) for s in tree.body] == [("Import", 7), ("Assign", 8), ("Expr", 9)]
    other = doctest_tree(ast.parse(OTHER))
    assert [(type(s).__name__, s.lineno) for s in other.body] == [("Import", 3), ("With", 4), ("Expr", 6)]
    assert other.body[1].body[0].lineno == 5
    # no example, a prompt without its space, an example that does not parse: nothing
    assert doctest_tree(ast.parse('"""No example.\n\n>>>x = 1\n>>> def (\n"""\nx = 1\n')) is None
    # a class's and a method's docstrings count; a plain string does not
    src = 'class C:\n    """\n    >>> a = 1\n    """\n    def m(self):\n        """>>> b = 2"""\n\nS = """\n>>> c = 3\n"""\n'
    assert [(ast.unparse(s), s.lineno) for s in doctest_tree(ast.parse(src)).body] == [("a = 1", 3), ("b = 2", 6)]


TEXT_DOCTEST = (
    "The launcher, replaced:\n"
    "\n"
    ">>> import launcher\n"
    ">>> launcher.get_ppo_ray_runtime_env = lambda: {'env_vars': {}}\n"
    ">>> launcher.launch({'trainer': {}})\n"
    "{'env_vars': {}}\n"
)


@pytest.mark.parametrize(
    ("ini", "name"),
    [
        ("[pytest]\naddopts = --doctest-glob='*.rst'\n", "docs/usage.rst"),
        ("[pytest]\naddopts = -ra --doctest-glob *.md\n", "README.md"),
        ("[pytest]\n", "test_launcher.txt"),  # pytest's default pattern: test*.txt
    ],
)
def test_a_replacement_in_a_doctest_text_file_makes_the_fix_unsafe(tmp_path: Path, ini: str, name: str) -> None:
    """The text files pytest runs as doctests (``--doctest-glob`` in its ini options, and
    ``test*.txt`` without any) are test code too: the call's fix is unsafe, its reason
    names the file and line, and the doctest still passes after a plain ``apply``."""
    root = _project(tmp_path / "proj", {"launcher.py": PLAIN_LAUNCHER, name: TEXT_DOCTEST, "pytest.ini": ini})
    before = _doctests(root)
    assert before.returncode == 0 and "1 passed" in before.stdout, before.stdout + before.stderr
    proc = run_cli("check", "--output-format", "concise", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert f"launcher.py:7:12: PPO001 `get_ppo_ray_runtime_env()`" in proc.stdout, proc.stdout
    assert f"unsafe fix: {name}:4 replaces the runtime function" in proc.stdout, proc.stdout
    launcher = (root / "launcher.py").read_text()
    run_cli("apply", ".", cwd=root)
    assert (root / "launcher.py").read_text() == launcher
    assert _doctests(root).returncode == 0


def test_a_text_file_pytest_does_not_run_is_no_double(tmp_path: Path) -> None:
    """``notes.txt`` matches no doctest pattern: its example is no test, and the fix stays safe."""
    root = _project(tmp_path / "proj", {"launcher.py": PLAIN_LAUNCHER, "notes.txt": TEXT_DOCTEST, "pytest.ini": "[pytest]\n"})
    proc = run_cli("check", "--output-format", "json", "--exit-zero", ".", cwd=root)
    assert [(f["code"], (f["fix"] or {}).get("applicability")) for f in json.loads(proc.stdout)] == [("PPO001", "safe")]
