"""The Fixit rule ``ppo_migrate.fixit:ConfiglessRuntimeEnvCall``.

Its VALID/INVALID cases run through Fixit's own test generator, and the rule is
exercised through the real ``fixit lint`` / ``fixit fix`` on a project that
enables it in ``pyproject.toml``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import unittest
from pathlib import Path

import pytest

fixit = pytest.importorskip("fixit")

from fixit.testing import add_lint_rule_tests_to_module, generate_lint_rule_test_cases  # noqa: E402

from cli_helpers import DECLARES_VERL  # noqa: E402
from ppo_migrate.fixit import ConfiglessRuntimeEnvCall  # noqa: E402

# Fixit's own generator: one unittest method per VALID/INVALID case, collected by
# pytest. (It names the class after the rule, so keep it out of this namespace.)
_generated: dict[str, type] = {}
add_lint_rule_tests_to_module(_generated, [ConfiglessRuntimeEnvCall()])


@pytest.fixture
def in_declaring_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fixit lints each case as ``valid.py``/``invalid.py`` of the working directory: run it
    in a tree whose own ``requirements.txt`` declares ``verl>=0.9`` (:data:`DECLARES_VERL`),
    so the INVALID cases' autofixes are safe fixes (issue 26: where nothing says which verl
    runs, a fix passing the config is unsafe and Fixit would get no replacement)."""
    monkeypatch.chdir(DECLARES_VERL)


TestConfiglessRuntimeEnvCallCases = pytest.mark.usefixtures("in_declaring_tree")(_generated["ConfiglessRuntimeEnvCall"])
TestConfiglessRuntimeEnvCallCases.__module__ = __name__

IMPORT = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
TRAINER = IMPORT + "\n\ndef run_ppo(config):\n    ray.init(runtime_env=get_ppo_ray_runtime_env())\n"
SERVER = IMPORT + "\n\ndef init_ray(address):\n    ray.init(address, runtime_env=get_ppo_ray_runtime_env())\n"
CLEAN = IMPORT + "\n\ndef main(config):\n    return get_ppo_ray_runtime_env(config)\n"
# a relative import, resolvable only from the file's package (the rule gets the path)
RELATIVE = (
    "from .constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "class Trainer:\n"
    "    def __init__(self, config):\n"
    "        self.config = config\n\n"
    "    def start(self):\n"
    "        return get_ppo_ray_runtime_env()\n"
)
# a target added in [tool.ppo-migrate]
EXTENDED = "from mylib.env import get_ppo_ray_runtime_env\n\nget_ppo_ray_runtime_env()\n"

PYPROJECT = """\
[tool.fixit]
root = true
enable = ["ppo_migrate.fixit:ConfiglessRuntimeEnvCall"]

[tool.ppo-migrate]
extend-targets = ["mylib.env.get_ppo_ray_runtime_env"]
"""

REPORT = re.compile(r"^(?P<path>\S+)@(?P<line>\d+):(?P<col>\d+) ConfiglessRuntimeEnvCall: (?P<code>PPO\d+) ")


def test_every_case_is_generated_and_passes(in_declaring_tree: None) -> None:
    rule = ConfiglessRuntimeEnvCall()
    assert len(rule.VALID) >= 4 and len(rule.INVALID) >= 4
    assert ConfiglessRuntimeEnvCall.AUTOFIX  # INVALID cases carry expected replacements
    (case_class,) = generate_lint_rule_test_cases([rule])
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(case_class)
    assert suite.countTestCases() == len(rule.VALID) + len(rule.INVALID)
    result = unittest.TestResult()
    suite.run(result)
    assert result.wasSuccessful(), result.failures + result.errors


def test_public_name() -> None:
    import ppo_migrate.fixit as public

    assert public.ConfiglessRuntimeEnvCall.__name__ == "ConfiglessRuntimeEnvCall"
    assert str(ConfiglessRuntimeEnvCall()) == "ppo_migrate.adapters.fixit_rule:ConfiglessRuntimeEnvCall"
    assert "fixit" in sys.modules and sys.modules["fixit"] is fixit  # the real Fixit


def test_settings_from_pyproject_and_fallback(tmp_path: Path) -> None:
    from ppo_migrate.adapters.fixit_rule import settings_for
    from ppo_migrate.settings_model import Settings

    good, bad = tmp_path / "good", tmp_path / "bad"
    good.mkdir()
    bad.mkdir()
    (good / "pyproject.toml").write_text('[tool.ppo-migrate]\nconfig-names = ["conf"]\n')
    (bad / "pyproject.toml").write_text("[tool.ppo-migrate]\nno-such-key = 1\n")
    assert settings_for(str(good)).config_names == ("conf",)
    assert settings_for(str(bad)) == Settings()  # logged, not raised: Fixit keeps going
    assert settings_for(None) == Settings()


def _fixit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``fixit ARGS`` in ``cwd``. A lint of a directory is the real ``fixit`` process: Fixit
    lints several files in a pool of spawned interpreters, each importing the rule afresh.
    The rest (a lint of one file, and ``fix``, which Fixit always runs in its own process)
    run Fixit's command line in this process: the same command, without the ~1.3 s of CPU
    an interpreter spends importing Fixit, LibCST and ppo_migrate."""
    paths = [a for a in args[1:] if not a.startswith("-")]
    if args[0] == "lint" and any((cwd / p).is_dir() for p in paths):
        return _fixit_process(*args, cwd=cwd)
    return _fixit_in_process(*args, cwd=cwd)


def _fixit_in_process(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Fixit's console script (``fixit.cli:main``) called here, in ``cwd``, with the caches
    a new process would start without emptied (the rule's settings per folder: a test
    edits ``pyproject.toml`` between two runs)."""
    import traceback

    from click.testing import CliRunner
    from cli_helpers import _fresh_caches
    from fixit.cli import main as fixit_main

    from ppo_migrate.adapters.fixit_rule import settings_for

    settings_for.cache_clear()
    _fresh_caches()
    here = os.getcwd()
    try:
        os.chdir(cwd)
        result = CliRunner(mix_stderr=False).invoke(fixit_main, list(args))
    finally:
        os.chdir(here)
        settings_for.cache_clear()
        _fresh_caches()
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(result.exception))  # as the process prints it
    return subprocess.CompletedProcess(["fixit", *args], result.exit_code, result.stdout, stderr)


def _fixit_process(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("fixit")
    cmd = [exe] if exe else [sys.executable, "-m", "fixit"]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [*cmd, *args],
        check=False,
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    files = {
        "pyproject.toml": PYPROJECT,
        "trainer.py": TRAINER,
        "server.py": SERVER,
        "clean.py": CLEAN,
        "verl/__init__.py": "",
        "verl/trainer/__init__.py": "",
        "verl/trainer/constants_ppo.py": "def get_ppo_ray_runtime_env(config=None):\n    return {}\n",
        "verl/trainer/launcher.py": RELATIVE,
        "ext.py": EXTENDED,
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _reports(out: str) -> list[tuple[str, int, int, str]]:
    found = []
    for line in out.splitlines():
        m = REPORT.match(line)
        if m:
            path = m.group("path").replace(os.sep, "/")
            found.append((path, int(m.group("line")), int(m.group("col")), m.group("code")))
    return sorted(found)


def test_fixit_lint_then_fix(project: Path) -> None:
    r = _fixit("lint", ".", cwd=project)
    assert r.returncode != 0, r.stdout + r.stderr
    assert _reports(r.stdout) == [
        ("ext.py", 3, 0, "PPO002"),  # extend-targets from [tool.ppo-migrate]
        ("server.py", 5, 34, "PPO002"),
        ("trainer.py", 5, 25, "PPO001"),
        ("verl/trainer/launcher.py", 9, 15, "PPO001"),  # relative import resolved
    ], r.stdout
    assert "(has autofix)" in next(x for x in r.stdout.splitlines() if x.startswith("trainer.py@"))

    r = _fixit("fix", "--automatic", ".", cwd=project)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (project / "trainer.py").read_text(encoding="utf-8") == TRAINER.replace(
        "get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config)"
    )
    assert (project / "verl/trainer/launcher.py").read_text(encoding="utf-8") == RELATIVE.replace(
        "get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(self.config)"
    )
    assert (project / "server.py").read_text(encoding="utf-8") == SERVER  # nothing to pass
    assert (project / "clean.py").read_text(encoding="utf-8") == CLEAN

    r = _fixit("lint", "trainer.py", cwd=project)  # one file: Fixit lints it in-process
    assert r.returncode == 0, r.stdout + r.stderr
    assert _reports(r.stdout) == []


def test_fixit_lint_suppressed_by_noqa(project: Path) -> None:
    (project / "server.py").write_text(
        SERVER.replace("get_ppo_ray_runtime_env())", "get_ppo_ray_runtime_env())  # noqa: PPO002"),
        encoding="utf-8",
    )
    r = _fixit("lint", "server.py", cwd=project)
    assert r.returncode == 0, r.stdout + r.stderr
    assert _reports(r.stdout) == []


UNSAFE = IMPORT + (
    "\n\ndef run_ppo(flag, load):\n    if flag:\n        config = load()\n"
    "    ray.init(runtime_env=get_ppo_ray_runtime_env())\n"
)


def test_an_unsafe_fix_is_reported_without_autofix_unless_enabled(project: Path) -> None:
    """Issue 13: a config only possibly bound is an unsafe fix: Fixit reports it, fixes it
    only with ``unsafe-fixes = true`` in ``[tool.ppo-migrate]``."""
    (project / "unsafe.py").write_text(UNSAFE, encoding="utf-8")
    r = _fixit("lint", "unsafe.py", cwd=project)
    assert _reports(r.stdout) == [("unsafe.py", 7, 25, "PPO001")], r.stdout
    assert "(has autofix)" not in r.stdout
    r = _fixit("fix", "--automatic", "unsafe.py", cwd=project)
    assert (project / "unsafe.py").read_text(encoding="utf-8") == UNSAFE
    (project / "pyproject.toml").write_text(PYPROJECT + "unsafe-fixes = true\n", encoding="utf-8")
    r = _fixit("fix", "--automatic", "unsafe.py", cwd=project)
    assert (project / "unsafe.py").read_text(encoding="utf-8") == UNSAFE.replace(
        "get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config)"
    ), r.stdout + r.stderr


def test_a_notice_never_fails_fixit_lint(project: Path) -> None:
    """PPO005 (the callee in effect takes no config) is a notice: ``fixit lint`` stays
    clean and ``fixit fix`` leaves the call alone (a fresh user's finding)."""
    (project / "verl/trainer/constants_ppo.py").write_text(
        "def get_ppo_ray_runtime_env():\n    return {}\n", encoding="utf-8"
    )
    r = _fixit("lint", "trainer.py", cwd=project)
    assert r.returncode == 0, r.stdout + r.stderr
    assert _reports(r.stdout) == []
    r = _fixit("fix", "--automatic", "trainer.py", cwd=project)
    assert (project / "trainer.py").read_text(encoding="utf-8") == TRAINER
