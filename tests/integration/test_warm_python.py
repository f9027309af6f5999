"""The warm interpreter the sample projects run in (tests/warm_python.py) against a real
process: for every form the suite uses, the same exit status, stdout and stderr."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import warm_python

PROBE = (
    "import os, sys\n"
    "print(sys.argv, sys.path[:3], os.getcwd(), os.environ.get('X'), sys.dont_write_bytecode)\n"
    "print(__name__, globals().get('__file__'), 'ppo_migrate' in sys.modules)\n"
)

CASES = {
    "c-exit-3": (["-c", PROBE + "sys.exit(3)", "a", "b"], {}),
    "c-exit-message": (["-c", "import sys; sys.exit('bye')"], {}),
    "c-exit-none": (["-c", "raise SystemExit"], {}),
    "c-stdin": (["-c", "import sys; print(sys.stdin.read() * 2)"], {"input": "ab"}),
    "c-uncaught": (["-c", "def f():\n    raise ValueError('boom')\nf()"], {}),
    "c-keyboard-interrupt": (["-c", "raise KeyboardInterrupt"], {}),
    "c-thread-and-atexit": ([
        "-c", ("import atexit, threading, time\natexit.register(print, 'atexit')\n"
               "threading.Thread(target=lambda: (time.sleep(0.2), print('thread'))).start()\n"),
    ], {}),
    "c-os-exit": (["-c", "import os, sys\nprint('out', flush=True)\nos._exit(4)"], {}),
    "script": (["train.py", "x"], {}),
    "script-syntax-error": (["broken.py"], {}),
    "module": (["-m", "pkg.main", "q"], {}),
    "module-missing": (["-m", "pkg.nothing"], {}),
    "pytest": (["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], {}),
    "c-bytes": (["-c", "import sys; sys.stdout.buffer.write(b'\\xe9\\n')"], {"text": False}),
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "main.py").write_text(PROBE)
    (tmp_path / "train.py").write_text(PROBE + "import pkg\nprint(pkg.__file__)\n")
    (tmp_path / "broken.py").write_text("def f(:\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(
        "import os\n\ndef test_env():\n    assert os.environ['X'] == '1'\n\n"
        "def test_fails():\n    assert 1 == 2\n"
    )
    (tmp_path / "extra").mkdir()
    return tmp_path


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_warm_run_is_a_real_run(project: Path, name: str) -> None:
    args, options = CASES[name]
    options = {"text": True, **options}
    env = {"X": "1", "PATH": "/usr/bin:/bin", "PYTHONPATH": f"{project / 'extra'}",
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    request = warm_python._request([sys.executable, *args], project, env)
    assert request is not None  # started warm, not passed on to a real process
    real = subprocess.run([sys.executable, *args], cwd=project, env=env, capture_output=True,
                          timeout=60, check=False, **options)
    warm = warm_python.run([sys.executable, *args], cwd=project, env=env, capture_output=True,
                           timeout=60, **options)
    def same(out: str | bytes) -> str | bytes:  # pytest's summary line times the run
        return re.sub(r" in [0-9.]+s", " in <t>s", out) if name == "pytest" else out

    assert (warm.returncode, same(warm.stdout), warm.stderr) == (
        real.returncode, same(real.stdout), real.stderr)
    assert real.returncode == {
        "c-exit-3": 3, "c-exit-message": 1, "c-uncaught": 1, "c-keyboard-interrupt": -2,
        "c-os-exit": 4, "script-syntax-error": 1, "module-missing": 1, "pytest": 1,
    }.get(name, 0)


def test_a_warm_run_times_out_as_a_real_one(project: Path) -> None:
    with pytest.raises(subprocess.TimeoutExpired):
        warm_python.run([sys.executable, "-c", "import time; time.sleep(30)"], cwd=project,
                        env={"PATH": "/usr/bin:/bin"}, capture_output=True, timeout=0.5)
    # the server goes on
    done = warm_python.run([sys.executable, "-c", "print(1)"], cwd=project,
                           env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "1\n")


@pytest.mark.parametrize(
    ("args", "env", "shadow"),
    [
        (["-S", "-c", "pass"], {}, None),                      # an interpreter option
        (["-c", "pass"], {"PYTHONSTARTUP": "x.py"}, None),       # start-up read from the environment
        (["-c", "pass"], {"PYTHONIOENCODING": "latin-1"}, None),
        (["-c", "pass"], {"PYTHONPATH": "relative/dir"}, None),  # a relative path entry
        (["-c", "pass"], {}, "omegaconf/__init__.py"),           # a module the server has loaded
        (["-c", "pass"], {}, "sitecustomize.py"),
        (["missing.py"], {}, None),
    ],
)
def test_what_a_warm_run_cannot_reproduce_runs_as_a_real_process(
    tmp_path: Path, args: list[str], env: dict[str, str], shadow: str | None
) -> None:
    if shadow:
        (tmp_path / shadow).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / shadow).write_text("")
    assert warm_python._request([sys.executable, *args], tmp_path, {"PATH": "/usr/bin", **env}) is None
    assert warm_python._request(["python3", "-c", "pass"], tmp_path, {}) is None


def test_quick_runs_never_wait_for_their_timeout(project: Path) -> None:
    """Bug: the server's two replies (the child's pid, then its status) of a command that
    ends at once can arrive in one read; a buffered reader held the second where
    ``select`` could not see it, and the run waited out its whole timeout."""
    import time

    started = time.monotonic()
    for _ in range(30):
        done = warm_python.run([sys.executable, "-c", "pass"], cwd=project,
                               env={"PATH": "/usr/bin:/bin"}, capture_output=True, timeout=20)
        assert done.returncode == 0
    assert time.monotonic() - started < 15


def test_server_pids_are_this_process_s_warm_interpreters(project: Path) -> None:
    warm_python.run([sys.executable, "-c", "pass"], cwd=project, env={"PATH": "/usr/bin"},
                    capture_output=True)
    pids = warm_python.server_pids()
    assert pids and all(Path(f"/proc/{pid}").exists() for pid in pids)
