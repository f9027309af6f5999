"""Trial 26c, section E (family 4): a replacement of the runtime function written in a
doctest (``>>> launcher.get_ppo_ray_runtime_env = lambda: ...``), run by pytest's
``--doctest-modules`` (the project's ``addopts``). Doctest lines are test code: the
replacement table reads them (:func:`ppo_migrate.rules.patches.doctest_tree`), in the
calling module and in another module that loads it. Trial 26d: so is every documentation
file holding such an example, which a test may load with ``doctest.testfile`` or a Makefile
run with ``python -m doctest`` (:mod:`ppo_migrate.rules.doc_doctests`). Each project's
doctests are *run* before and after a plain ``apply``."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run_cli
from ppo_migrate.rules.patches import doctest_tree

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


#: trial 26d: a test loads a documentation file as a doctest by itself
TEST_DOCS = (
    "import doctest\n"
    "from pathlib import Path\n"
    "\n"
    "\n"
    "def test_usage_doc():\n"
    "    result = doctest.testfile(str(Path(__file__).parents[1] / 'docs' / 'usage.rst'), module_relative=False)\n"
    "    assert result.failed == 0\n"
)
TEST_LAUNCH = (
    "import launcher\n"
    "\n"
    "\n"
    "def test_launch_real():\n"
    "    assert 'env_vars' in launcher.launch({'trainer': {}})\n"
)
#: the same example in a Markdown code block, as ``python -m doctest docs/usage.md`` runs it
MD_DOCTEST = "# Usage\n\n```pycon\n" + TEXT_DOCTEST.split("\n", 2)[2] + "\n```\n"


def _python_doctest(root: Path, name: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    env["PYTHONPATH"] = str(root)
    return subprocess.run([sys.executable, "-m", "doctest", name], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("runner", ["doctest-testfile", "python-m-doctest"])
def test_a_documentation_file_a_test_loads_makes_the_fix_unsafe(tmp_path: Path, runner: str) -> None:
    """Trial 26d: no ``--doctest-glob`` names the file; ``tests/test_docs.py`` loads
    ``docs/usage.rst`` with ``doctest.testfile`` (and the replacement then also reaches the
    next test of the session), or a Makefile runs ``python -m doctest docs/usage.md``. Every
    documentation file holding an example that spells the function is test code: the fix is
    unsafe, its reason names the file and line, and the doctest runs after a plain ``apply``
    and ``apply --thread-config`` as before (it failed with ``TypeError`` before the rule)."""
    if runner == "doctest-testfile":
        name = "docs/usage.rst"
        files = {"docs/usage.rst": "Usage\n=====\n\nStub the env::\n\n" + "".join(
            f"    {line}\n" for line in TEXT_DOCTEST.splitlines()[2:]),
            "tests/test_docs.py": TEST_DOCS, "tests/test_launch.py": TEST_LAUNCH, "pytest.ini": "[pytest]\n"}
        line = 7

        def runs() -> subprocess.CompletedProcess:
            return _doctests(root)
    else:
        name, line = "docs/usage.md", 5
        files = {name: MD_DOCTEST, "pytest.ini": "[pytest]\n", "Makefile": f"test:\n\tPYTHONPATH=. python -m doctest {name}\n"}

        def runs() -> subprocess.CompletedProcess:
            return _python_doctest(root, name)
    root = _project(tmp_path / "proj", {"launcher.py": PLAIN_LAUNCHER, **files})
    before = runs()
    assert before.returncode == 0, before.stdout + before.stderr
    if runner == "doctest-testfile":
        assert "2 passed" in before.stdout, before.stdout
    proc = run_cli("check", "--output-format", "concise", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "launcher.py:7:12: PPO001 `get_ppo_ray_runtime_env()`" in proc.stdout, proc.stdout
    assert f"unsafe fix: {name}:{line} replaces the runtime function" in proc.stdout, proc.stdout
    launcher = (root / "launcher.py").read_text()
    for extra in ((), ("--thread-config",)):
        run_cli("apply", *extra, ".", cwd=root)
        assert (root / "launcher.py").read_text() == launcher
        after = runs()
        assert after.returncode == 0, after.stdout + after.stderr


@pytest.mark.parametrize("case", ["call-only", "no-example", "too-large", "replaces"])
def test_which_documentation_files_count(tmp_path: Path, case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``notes.txt`` matches no pytest pattern: its example replacing the function counts
    all the same (trial 26d: a test may load it with ``doctest.testfile``); an example that
    only calls it, a file without examples, and a file larger than
    :data:`ppo_migrate.rules.doc_doctests.MAX_DOC_BYTES` (data) leave the fix safe."""
    from ppo_migrate.rules import doc_doctests

    text = {
        "call-only": ">>> import launcher\n>>> launcher.get_ppo_ray_runtime_env()\n",
        "no-example": "launcher.get_ppo_ray_runtime_env = lambda: {}\n",
        "too-large": TEXT_DOCTEST + "x" * 200 + "\n",
        "replaces": TEXT_DOCTEST,
    }[case]
    monkeypatch.setattr(doc_doctests, "MAX_DOC_BYTES", 200)
    root = _project(tmp_path / "proj", {"launcher.py": PLAIN_LAUNCHER, "notes.txt": text, "pytest.ini": "[pytest]\n"})
    proc = run_cli("check", "--output-format", "json", "--exit-zero", ".", cwd=root)
    found = [(f["code"], (f["fix"] or {}).get("applicability")) for f in json.loads(proc.stdout)]
    assert found == [("PPO001", "unsafe" if case == "replaces" else "safe")], proc.stdout
    if case == "replaces":
        assert "notes.txt:4 replaces the runtime function" in json.loads(proc.stdout)[0]["message"]
