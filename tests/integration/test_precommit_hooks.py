"""``.pre-commit-hooks.yaml`` through the real ``pre-commit``.

pre-commit installs the hook repository into its own virtualenv (``pip install .``
of this project, so it needs the package index for the dependencies). The hook
repository is a snapshot of this working tree -- the files a build needs
(``pyproject.toml``, ``README.md``, ``runtime/``, ``migrate/``) and the hooks file,
committed into a fresh git repo -- rather than the checkout itself, so that
uncommitted changes are tested and untracked files are left out.

Each test runs ``pre-commit run --all-files`` with a configuration naming that
repository at ``rev: main`` and one hook, which is what ``pre-commit try-repo``
writes and runs; but ``try-repo`` keeps its store (the clone and the hook's
virtualenv) in a fresh temporary directory on every call, so each test paid a
``pip install`` of the project. Here one ``PRE_COMMIT_HOME`` serves the session,
and ``rev: main`` is also the README snippet's: the hook environment is built once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import warm_python

#: one worker runs these (pytest-xdist): the hook environment is built once
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("pre-commit")]

PROJECT = Path(__file__).resolve().parents[2]
SNAPSHOT_ITEMS = ("pyproject.toml", "README.md", "LICENSE", ".pre-commit-hooks.yaml", "runtime", "migrate")

IMPORT = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
TRAINER = IMPORT + "\n\ndef run_ppo(config):\n    ray.init(runtime_env=get_ppo_ray_runtime_env())\n"
CLEAN = IMPORT + "\n\ndef main(config):\n    return get_ppo_ray_runtime_env(config)\n"
SERVER = IMPORT + "\n\ndef init_ray(address):\n    ray.init(address, runtime_env=get_ppo_ray_runtime_env())\n"
PYPROJECT = '[tool.ppo-migrate]\nextend-exclude = ["vendored"]\n'

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}

#: issue 26: a sample project declares the verl it runs (else its fixes are unsafe)
DECLARES_VERL = "verl>=0.9\n"


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        env={**os.environ, **GIT_ENV},
    )


def _init_repo(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    _git("init", "-q", cwd=root)
    _git("add", "-A", cwd=root)
    _git("commit", "-q", "-m", "sample", cwd=root)
    return root


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repo holding this working tree's package and ``.pre-commit-hooks.yaml``."""
    if shutil.which("git") is None or shutil.which("pre-commit") is None:
        pytest.skip("git and pre-commit are needed")
    assert (PROJECT / ".pre-commit-hooks.yaml").is_file()
    snapshot = tmp_path_factory.mktemp("hook-repo") / "ppo-migrate"
    snapshot.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in SNAPSHOT_ITEMS:
        src = PROJECT / name
        if src.is_dir():
            shutil.copytree(src, snapshot / name, ignore=ignore)
        elif src.is_file():
            shutil.copy2(src, snapshot / name)
    _git("init", "-q", cwd=snapshot)
    _git("add", "-A", cwd=snapshot)
    _git("commit", "-q", "-m", "snapshot", cwd=snapshot)
    return snapshot


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One isolated pre-commit store for the session: the hook env is installed once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def try_repo(
    hook_repo: Path, home: Path, hook: str, cwd: Path, files: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """``pre-commit try-repo <hook_repo> <hook> --verbose`` on every file, or on ``files``
    only (as a commit staging them passes them), with the store in ``home``: the
    configuration ``try-repo`` writes (the repository at a revision, the one hook), kept
    outside the sample repository as ``try-repo`` keeps it, then ``run``."""
    config = cwd.parent / f"{cwd.name}-{hook}.pre-commit-config.yaml"
    config.write_text(
        f"repos:\n  - repo: {hook_repo}\n    rev: main\n    hooks:\n      - id: {hook}\n",
        encoding="utf-8",
    )
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("PRE_COMMIT", None)
    which = ["--files", *files] if files else ["--all-files"]
    return subprocess.run(
        ["pre-commit", "run", "--config", str(config), *which, "--verbose"],
        check=False,
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )


def test_check_hook_fails_on_a_configless_call(
    hook_repo: Path, pre_commit_home: Path, tmp_path: Path
) -> None:
    sample = _init_repo(
        tmp_path / "sample",
        {
            "pyproject.toml": PYPROJECT,
            "requirements.txt": DECLARES_VERL,
            "trainer.py": TRAINER,
            "clean.py": CLEAN,
            "vendored/server.py": SERVER,  # excluded: --force-exclude keeps it so
            "notes.txt": "get_ppo_ray_runtime_env()\n",  # not Python: never passed
        },
    )
    r = try_repo(hook_repo, pre_commit_home, "ppo-migrate-check", sample)
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert "ppo-migrate check" in out and "Failed" in out
    assert "trainer.py:5:26: PPO001 [*]" in out
    assert "vendored" not in out
    assert "notes.txt" not in out
    assert "clean.py:" not in out


def test_check_hook_reports_a_staged_hydra_target(
    hook_repo: Path, pre_commit_home: Path, tmp_path: Path
) -> None:
    """A Hydra config naming the function by ``_target_`` (PPO006) is passed to the hook
    (``types_or: [python, yaml]``); a config naming another function passes."""
    target = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"
    sample = _init_repo(
        tmp_path / "sample",
        {
            "pyproject.toml": PYPROJECT,
            "conf/ray.yaml": f"ray:\n  runtime_env:\n    _target_: {target}\n",
            "conf/model.yml": "model:\n  _target_: torch.nn.Linear\n",
        },
    )
    r = try_repo(hook_repo, pre_commit_home, "ppo-migrate-check", sample, ("conf/ray.yaml", "conf/model.yml"))
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert f"conf/ray.yaml:3:15: PPO006 `{target}` is named by a Hydra `_target_`" in out
    assert "model.yml" not in out


def test_hooks_report_staged_entry_points_and_never_write_them(
    hook_repo: Path, pre_commit_home: Path, tmp_path: Path
) -> None:
    """An entry point naming the function in a staged ``pyproject.toml`` or ``setup.cfg``
    is a PPO006 from either hook (``types_or`` has ``toml`` and ``ini``); ``apply`` leaves
    both files byte for byte as they were, and a ``tox.ini`` and ``ruff.toml`` naming the
    function are passed and skipped."""
    target = "verl.trainer.constants_ppo:get_ppo_ray_runtime_env"
    pyproject = PYPROJECT + f'\n[project.scripts]\nray-env = "{target}"\n'
    setup_cfg = f"[metadata]\nname = s\n\n[options.entry_points]\nconsole_scripts =\n    env2 = {target}\n"
    # a tox.ini command and a ruff.toml banned-api key naming the function are no Python:
    # passed by the hook, skipped (they were a false PPO902 syntax error)
    tox_ini = (
        "[tox]\nenvlist = py\n[testenv]\ncommands = python -c \"from verl.trainer.constants_ppo "
        "import get_ppo_ray_runtime_env as g; print(g())\"\n"
    )
    ruff_toml = f'[lint.flake8-tidy-imports.banned-api."{target.replace(":", ".")}"]\nmsg = "pass the config"\n'
    files = {"pyproject.toml": pyproject, "setup.cfg": setup_cfg, "tox.ini": tox_ini, "ruff.toml": ruff_toml}
    sample = _init_repo(tmp_path / "sample", files)
    line = pyproject.splitlines().index(f'ray-env = "{target}"') + 1
    for hook in ("ppo-migrate-check", "ppo-migrate-apply"):
        r = try_repo(hook_repo, pre_commit_home, hook, sample)
        out = r.stdout + r.stderr
        assert r.returncode == 1, out
        assert f"pyproject.toml:{line}:11: PPO006 `{target}` is declared as the script `ray-env`" in out
        assert f"setup.cfg:6:12: PPO006 `{target}` is declared as the script `env2`" in out
        assert "tox.ini" not in out and "ruff.toml" not in out and "PPO902" not in out
        assert "files were modified by this hook" not in out
        for name, text in files.items():
            assert (sample / name).read_text(encoding="utf-8") == text, (hook, name)


def test_check_hook_passes_on_a_clean_repo(
    hook_repo: Path, pre_commit_home: Path, tmp_path: Path
) -> None:
    sample = _init_repo(
        tmp_path / "sample",
        {"pyproject.toml": PYPROJECT, "clean.py": CLEAN, "vendored/server.py": SERVER},
    )
    r = try_repo(hook_repo, pre_commit_home, "ppo-migrate-check", sample)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "Passed" in out


def test_apply_hook_rewrites_the_file(
    hook_repo: Path, pre_commit_home: Path, tmp_path: Path
) -> None:
    sample = _init_repo(
        tmp_path / "sample",
        {"pyproject.toml": PYPROJECT, "requirements.txt": DECLARES_VERL, "trainer.py": TRAINER, "clean.py": CLEAN},
    )
    r = try_repo(hook_repo, pre_commit_home, "ppo-migrate-apply", sample)
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert "files were modified by this hook" in out
    assert (sample / "trainer.py").read_text(encoding="utf-8") == TRAINER.replace(
        "get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config)"
    )
    assert (sample / "clean.py").read_text(encoding="utf-8") == CLEAN
    # a second run finds nothing left to do
    again = try_repo(hook_repo, pre_commit_home, "ppo-migrate-apply", sample)
    assert again.returncode == 0, again.stdout + again.stderr


#: verl >= 0.9's function (PR #6976), for the sample's own tests
STUB_VERL = {
    "stub/verl/__init__.py": "",
    "stub/verl/trainer/__init__.py": "",
    "stub/verl/trainer/constants_ppo.py": "def get_ppo_ray_runtime_env(config=None):\n"
    "    return {'got_config': config is not None}\n",
}
LAUNCHER = IMPORT + "\n\ndef launch(config):\n    return get_ppo_ray_runtime_env()\n"
#: a test replacing the launcher's function with a zero-argument fake (line 6)
LAUNCHER_TEST = (
    "import launcher\n\n\n"
    "def test_launch(monkeypatch):\n"
    "    config = {'trainer': {}}\n"
    "    monkeypatch.setattr(launcher, 'get_ppo_ray_runtime_env', lambda: {'fake': 1})\n"
    "    assert launcher.launch(config) == {'fake': 1}\n"
)


def _sample_tests(root: Path) -> subprocess.CompletedProcess[str]:
    import sys

    # the sample project's own pytest: not the plugins installed here (xdist, hypothesis,
    # benchmark, ...), whose loading was two thirds of each run's start-up
    env = {"PYTHONPATH": f"{root / 'stub'}:{root}", "PATH": "/usr/bin:/bin",
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    return warm_python.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False,
    )


def test_apply_hook_on_the_staged_file_sees_the_test_double(
    hook_repo: Path, pre_commit_home: Path, tmp_path: Path
) -> None:
    """Bug: the hook passes the staged files only (``ppo-migrate apply launcher.py``), so
    the test monkeypatching the launcher's function with a zero-argument fake was not
    read: the fix was made and the test then failed. The double is looked for in the
    whole repository now: the hook leaves the call alone, says why, and the test passes."""
    sample = _init_repo(
        tmp_path / "sample",
        {
            "requirements.txt": DECLARES_VERL, "launcher.py": LAUNCHER,
            "tests/test_launcher.py": LAUNCHER_TEST, **STUB_VERL,
        },
    )
    assert _sample_tests(sample).returncode == 0
    r = try_repo(hook_repo, pre_commit_home, "ppo-migrate-apply", sample, files=("launcher.py",))
    out = r.stdout + r.stderr
    assert r.returncode == 1, out  # a finding remains: the unsafe fix is not made
    assert "files were modified by this hook" not in out, out
    assert (
        "launcher.py:5:12: PPO001 `get_ppo_ray_runtime_env()` called without the config in "
        "scope; pass `config` (unsafe fix: tests/test_launcher.py:6 replaces the runtime "
        "function, whose replacement may take no config)"
    ) in out, out
    assert (sample / "launcher.py").read_text(encoding="utf-8") == LAUNCHER
    after = _sample_tests(sample)
    assert after.returncode == 0, after.stdout + after.stderr


LAUNCH = "from server import init_ray\n\n\ndef run(config):\n    init_ray(config.address)\n"


def test_hooks_are_serial_so_one_run_sees_every_file(
    hook_repo: Path, pre_commit_home: Path, tmp_path: Path
) -> None:
    """Bug: with parallel batches one commit printed two "Found N errors" blocks, and the
    PPO002 caller hint appeared only when the caller's file shared the batch.

    24 files: pre-commit would split them into one batch per CPU without ``require_serial``.
    """
    files = {f"pkg/m{i:02d}.py": f"x = {i}\n" for i in range(20)}
    files.update(
        {"a_trainer.py": TRAINER, "pkg/server.py": SERVER, "zz_launch.py": LAUNCH.replace(
            "from server", "from pkg.server"), "pkg/__init__.py": ""}
    )
    sample = _init_repo(tmp_path / "sample", files)
    r = try_repo(hook_repo, pre_commit_home, "ppo-migrate-check", sample)
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert out.count("Found 2 errors.") == 1, out
    assert "Found 1 error." not in out
    assert "pkg/server.py:5:35: PPO002" in out
    assert "its caller `run` (zz_launch.py:5) has `config`" in out


def test_hooks_file_declares_serial_hooks() -> None:
    import yaml  # pre-commit's own dependency (PyYAML)

    hooks = yaml.safe_load((PROJECT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert {h["id"]: h["require_serial"] for h in hooks} == {
        "ppo-migrate-check": True,
        "ppo-migrate-apply": True,
    }
    # Hydra configs and declared entry points too: a ``_target_`` or an entry point naming
    # the function is a PPO006 (``types_or`` needs pre-commit 2.9.0, below the hooks' minimum)
    assert {h["id"]: h["types_or"] for h in hooks} == {
        "ppo-migrate-check": ["python", "yaml", "toml", "ini"],
        "ppo-migrate-apply": ["python", "yaml", "toml", "ini"],
    }
    assert all("types" not in h for h in hooks)


def test_readme_snippet_works_as_written(
    hook_repo: Path, pre_commit_home: Path, tmp_path: Path
) -> None:
    """Bug: the README (now docs/ci.md) said ``rev: v0.1.0``, a tag the repository does not have, so
    ``pre-commit`` failed at checkout. The snippet is run as written, with only the URL
    pointed at a local copy of this repository (whose default branch is ``main``)."""
    import re

    text = (PROJECT / "docs" / "ci.md").read_text(encoding="utf-8")
    (snippet,) = [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if "rev:" in b]
    url = "https://github.com/ppo-migrate/ppo-migrate"
    assert url in snippet
    sample = _init_repo(
        tmp_path / "sample",
        {
            ".pre-commit-config.yaml": snippet.replace(url, str(hook_repo)),
            "requirements.txt": DECLARES_VERL,
            "trainer.py": TRAINER,
            "clean.py": CLEAN,
        },
    )
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(pre_commit_home), "PRE_COMMIT_COLOR": "never"}
    env.pop("PRE_COMMIT", None)
    r = subprocess.run(
        ["pre-commit", "run", "--all-files"],
        cwd=sample, capture_output=True, text=True, env=env, timeout=900, check=False,
    )
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert "ppo-migrate check" in out and "Failed" in out
    assert "trainer.py:5:26: PPO001 [*]" in out


def test_docs_override_passes_a_staged_entry_points_file(
    hook_repo: Path, pre_commit_home: Path, tmp_path: Path
) -> None:
    """fresh41, M3: pre-commit tags ``ep.cfg`` ``text`` only, so the shipped ``types_or`` skip a
    commit changing only it; docs/ci.md's override (run as written) passes it, and the tool
    reports ``setup.cfg``'s finding at its ``file:`` reference, as ``check .`` does."""
    import re

    text = (PROJECT / "docs" / "ci.md").read_text(encoding="utf-8")
    (override,) = [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if "types_or:" in b]
    target = "verl.trainer.constants_ppo:get_ppo_ray_runtime_env"
    sample = _init_repo(tmp_path / "sample", {
        "setup.cfg": "[metadata]\nname = m3\nversion = 0.1\n[options]\npy_modules =\nentry_points = file: ep.cfg\n",
        "ep.cfg": f"[grp]\nx = {target}\n",
    })
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(pre_commit_home), "PRE_COMMIT_COLOR": "never"}
    env.pop("PRE_COMMIT", None)
    outs = []
    for hooks in ("      - id: ppo-migrate-check\n", override):
        config = tmp_path / "config.yaml"
        config.write_text(f"repos:\n  - repo: {hook_repo}\n    rev: main\n    hooks:\n{hooks}", encoding="utf-8")
        r = subprocess.run(["pre-commit", "run", "--config", str(config), "--files", "ep.cfg", "--verbose"],
                           cwd=sample, capture_output=True, text=True, env=env, timeout=900, check=False)
        outs.append((r.returncode, r.stdout + r.stderr))
    (shipped_rc, shipped), (rc, out) = outs
    assert shipped_rc == 0 and "(no files to check)Skipped" in shipped, shipped
    assert rc == 1, out
    assert f"setup.cfg:6:22: PPO006 `{target}` is declared in `ep.cfg` (line 2, read through this `file` " in out
