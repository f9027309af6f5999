"""Trial 26h, H-B4: a test double in a ``conftest.py`` above the folder the tool is run on.

pytest loads every ``conftest.py`` in a test's folder and the folders above it, up to the
rootdir, before the test runs; a fixture there that replaces the runtime function reaches
the tests below it, whichever files import the calling module. ``ppo-migrate apply .`` run
inside ``services/`` of a monorepo whose root ``conftest.py`` does
``monkeypatch.setattr("svc.launcher.get_ppo_ray_runtime_env", lambda: {...})`` made the fix
(the root's conftest was not among the run's files, and no other file of the repository
imported ``svc.launcher``: the look-out wanted such an importer first), and ``python -m
pytest services`` then failed. So did a hook's ``apply app/launcher.py tests/unit/test_l.py``
with the double in ``tests/conftest.py``.

Each project is *run* (its pytest tests, from the repository root) before and after a plain
``apply`` and ``apply --thread-config`` on the sub-folder or files; the call is left alone,
its fix unsafe with the reason naming the conftest's file and line; the oracle: the fix
made anyway fails the tests. A root conftest that replaces nothing leaves the fix safe.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run_cli
from tree_runs import run_per_tree

#: verl >= 0.9's signature (PR #6976), checked: it says whether it got a config
STRICT_VERL = (
    "def get_ppo_ray_runtime_env(config=None):\n"
    "    if config is not None and 'trainer' not in config:\n"
    "        raise TypeError(f'not a config: {config!r}')\n"
    "    return {'got_config': config is not None}\n"
)
STUB = {
    "stub/verl/__init__.py": "",
    "stub/verl/trainer/__init__.py": "",
    "stub/verl/trainer/constants_ppo.py": STRICT_VERL,
}
LAUNCHER = (
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def launch(config):\n    return get_ppo_ray_runtime_env()\n"
)
#: the root's fixture: every test below it sees a zero-argument fake
ROOT_DOUBLE = (
    "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef fake(monkeypatch):\n"
    "    monkeypatch.setattr('svc.launcher.get_ppo_ray_runtime_env', lambda: {'fake': 1})\n"
)
SVC_TEST = (
    "from omegaconf import OmegaConf\nfrom svc import launcher\n\n\n"
    "def test_launch():\n    assert launcher.launch(OmegaConf.create({'trainer': {}})) == {'fake': 1}\n"
)
PIN = '[project]\nname = "svc"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n'
PYTEST_ROOT = '[tool.pytest.ini_options]\npythonpath = ["services"]\n'
#: the monorepo of H-B4: the root's pytest settings put ``services`` on the path
MONOREPO = {
    "pyproject.toml": PYTEST_ROOT,
    "conftest.py": ROOT_DOUBLE,
    "services/pyproject.toml": PIN,
    "services/svc/__init__.py": "",
    "services/svc/launcher.py": LAUNCHER,
    "services/svc/tests/test_l.py": SVC_TEST,
}

#: name -> (files, the tool's working directory, its paths, the test folder pytest runs
#: from the root, the reason's ``file:line``, the calling file)
CASES: dict[str, tuple[dict[str, str], str, tuple[str, ...], str, str, str]] = {
    "root-conftest-tool-in-services": (
        MONOREPO, "services", (".",), "services", "../conftest.py:6", "services/svc/launcher.py",
    ),
    "root-conftest-tool-in-the-package": (
        MONOREPO, "services/svc", (".",), "services", "../../conftest.py:6", "services/svc/launcher.py",
    ),
    "root-conftest-pin-at-the-root": (  # no services/pyproject.toml: the root pins verl
        {**{k: v for k, v in MONOREPO.items() if k != "services/pyproject.toml"},
         "pyproject.toml": PIN + "\n" + PYTEST_ROOT},
        "services", (".",), "services", "../conftest.py:6", "services/svc/launcher.py",
    ),
    "root-conftest-tool-run-from-the-root-on-services": (
        MONOREPO, ".", ("services",), "services", "conftest.py:6", "services/svc/launcher.py",
    ),
    # a checkout without ``.git`` (a build context): ``services/pyproject.toml``'s [project]
    # makes ``services`` the project root; pytest's rootdir (the root's ini) is above it
    "root-conftest-no-git-checkout": (
        MONOREPO, "services", (".",), "services", "../conftest.py:6", "services/svc/launcher.py",
    ),
    "tests-conftest-hook-stages-the-launcher-and-its-test": ({
        "pyproject.toml": PIN,
        "app/__init__.py": "",
        "app/launcher.py": LAUNCHER,
        "tests/conftest.py": ROOT_DOUBLE.replace("svc.launcher", "app.launcher"),
        "tests/unit/test_l.py": SVC_TEST.replace("from svc", "from app"),
    }, ".", ("app/launcher.py", "tests/unit/test_l.py"), "tests", "tests/conftest.py:6", "app/launcher.py"),
}


def _write(root: Path, files: dict[str, str], git: bool = True) -> None:
    for rel, text in {**STUB, **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    if git:
        subprocess.run(["git", "init", "-q", "."], cwd=root, check=True)


def _pytest(root: Path, folder: str) -> subprocess.CompletedProcess:
    """The project's tests, run from the repository root as its CI runs them."""
    env = {"PYTHONPATH": str(root / "stub"), "PATH": "/usr/bin:/bin", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    return run_per_tree([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", folder], root, env=env)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_conftest_above_the_analysed_folder_keeps_the_tests_running(tmp_path: Path, name: str) -> None:
    files, where, paths, tests, reason, caller = CASES[name]
    _write(tmp_path, files, git="no-git" not in name)
    cwd = tmp_path / where
    before = _pytest(tmp_path, tests)
    assert before.returncode == 0, before.stdout + before.stderr
    checked = run_cli("check", "--output-format", "json", *paths, cwd=cwd)
    found = [d for d in json.loads(checked.stdout) if d["filename"].endswith(caller)]
    assert [(d["code"], d["fix"]["applicability"]) for d in found] == [("PPO001", "unsafe")], found
    assert f"(unsafe fix: {reason} replaces the runtime function, whose replacement may take no config)" \
        in found[0]["message"], found[0]["message"]
    original = (tmp_path / caller).read_text()
    assert run_cli("apply", *paths, cwd=cwd).returncode == 1
    assert (tmp_path / caller).read_text() == original
    after = _pytest(tmp_path, tests)
    assert after.returncode == 0, after.stdout + after.stderr
    run_cli("apply", "--thread-config", *paths, cwd=cwd)
    assert (tmp_path / caller).read_text() == original
    threaded = _pytest(tmp_path, tests)
    assert threaded.returncode == 0, threaded.stdout + threaded.stderr
    # the oracle: the root's fake takes no config, so the fix made anyway fails the tests
    assert run_cli("apply", "--unsafe-fixes", *paths, cwd=cwd).returncode == 0
    assert "get_ppo_ray_runtime_env(config)" in (tmp_path / caller).read_text()
    broken = _pytest(tmp_path, tests)
    assert broken.returncode == 1 and "positional argument" in broken.stdout, broken.stdout


def test_a_conftest_above_that_replaces_nothing_leaves_the_fix_safe(tmp_path: Path) -> None:
    """The rule counts the root's ``conftest.py``; it is :func:`target_patches` that decides
    whether it replaces the function: a root fixture setting an environment variable does
    not, the fix stays safe, ``apply`` in ``services/`` makes it and verl's function then
    gets the config the test expects."""
    files = {
        **MONOREPO,
        "conftest.py": "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef env(monkeypatch):\n"
        "    monkeypatch.setenv('RAY_DEDUP_LOGS', '0')\n",
        "services/svc/tests/test_l.py": SVC_TEST.replace("{'fake': 1}", "{'got_config': True}"),
    }
    _write(tmp_path, files)
    failing = _pytest(tmp_path, "services")
    assert failing.returncode == 1 and "got_config" in failing.stdout, failing.stdout
    checked = run_cli("check", "--output-format", "json", ".", cwd=tmp_path / "services")
    assert [(d["filename"].rsplit("services/", 1)[-1], d["code"], d["fix"]["applicability"])
            for d in json.loads(checked.stdout)] == [("svc/launcher.py", "PPO001", "safe")], checked.stdout
    applied = run_cli("apply", "--output-format", "concise", ".", cwd=tmp_path / "services")
    assert "Rewrote 1 call in 1 file; 0 findings remain." in applied.stdout, applied.stdout
    passed = _pytest(tmp_path, "services")
    assert passed.returncode == 0, passed.stdout + passed.stderr


def test_reachable_files_counts_a_conftest_above_a_file_of_the_run(tmp_path: Path) -> None:
    """:func:`ppo_migrate.rules.patches.reachable_files`: a ``conftest.py`` at or above a
    calling file or a file of the run counts with no importer among the others; one beside
    them (``docs/conftest.py``) does not, nor does one below (``app/sub/conftest.py``
    is not above ``app/launcher.py``)."""
    from ppo_migrate.project.snapshot import run_scope
    from ppo_migrate.rules.patches import reachable_files

    rels = ["conftest.py", "app/launcher.py", "app/sub/conftest.py", "docs/conftest.py",
            "tests/unit/test_l.py", "tests/conftest.py"]
    for rel in rels:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    absolute = {rel: str(tmp_path / rel) for rel in rels}
    others = [absolute[r] for r in ("conftest.py", "app/sub/conftest.py", "docs/conftest.py", "tests/conftest.py")]
    with run_scope():
        alone = reachable_files([absolute["app/launcher.py"]], others)
        with_run = reachable_files([absolute["app/launcher.py"]], others, run=[absolute["tests/unit/test_l.py"]])
    assert alone == [absolute["conftest.py"]]
    assert with_run == [absolute["conftest.py"], absolute["tests/conftest.py"]]


@pytest.mark.parametrize(
    ("files", "start", "expected"),
    [
        # a tools-only table names pytest's rootdir; a sub-folder's [project] does not
        ({"pyproject.toml": PYTEST_ROOT, "services/pyproject.toml": PIN}, "services/svc", ""),
        ({"pytest.ini": "", "services/pyproject.toml": PIN}, "services", ""),
        ({"tox.ini": "[tox]\n\n[pytest]\naddopts = -q\n"}, "services", ""),
        ({"setup.cfg": "[metadata]\nname = x\n\n[tool:pytest]\n"}, "services", ""),
        ({"setup.cfg": "[metadata]\nname = x\n", "tox.ini": "[tox]\n"}, "services", None),
        # the nearest wins: a sub-folder's own [tool.pytest.ini_options]
        ({"pytest.ini": "", "services/pyproject.toml": PYTEST_ROOT}, "services/svc", "services"),
    ],
)
def test_pytest_rootdir_is_the_nearest_folder_with_pytest_s_configuration(
    tmp_path: Path, files: dict[str, str], start: str, expected: str | None
) -> None:
    from ppo_migrate.project.root import pytest_rootdir

    _write(tmp_path, {**files, f"{start}/x.py": ""})
    got = pytest_rootdir(tmp_path / start)
    assert got == (None if expected is None else tmp_path / expected if expected else tmp_path)
