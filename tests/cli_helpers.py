"""Shared helpers: run the real ``ppo-migrate`` executable as a subprocess."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path


REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"


def ppo_migrate_exe() -> list[str]:
    """The installed console script, or ``python -m ppo_migrate`` beside this interpreter."""
    exe = shutil.which("ppo-migrate", path=str(Path(sys.executable).parent)) or shutil.which(
        "ppo-migrate"
    )
    return [exe] if exe else [sys.executable, "-m", "ppo_migrate"]


def run_cli(*args: str, cwd: Path | str | None = None, input: bytes | None = None, env=None):
    """Run ``ppo-migrate ARGS`` and return the CompletedProcess (text output)."""
    full_env = {k: v for k, v in os.environ.items() if k != "CI"}
    full_env.update(env or {})
    proc = subprocess.run(
        [*ppo_migrate_exe(), *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        env=full_env,
        timeout=300,
    )
    proc.stdout = proc.stdout.decode("utf-8", "replace")  # type: ignore[assignment]
    proc.stderr = proc.stderr.decode("utf-8", "replace")  # type: ignore[assignment]
    return proc


#: verl 0.9's signature and verl 0.5-0.8's, for stubs the rewritten code is run against
VERL_09 = "def get_ppo_ray_runtime_env(config=None):\n    return config\n"
VERL_08 = "def get_ppo_ray_runtime_env():\n    return None\n"


def verl_stub(root: Path, body: str = VERL_09) -> Path:
    """Write a stub ``verl`` package (``verl/trainer/constants_ppo.py`` holding ``body``)
    under ``root`` and return ``root``, the directory to put on ``PYTHONPATH``."""
    trainer = root / "verl" / "trainer"
    trainer.mkdir(parents=True, exist_ok=True)
    (root / "verl" / "__init__.py").write_text("")
    (trainer / "__init__.py").write_text("")
    (trainer / "constants_ppo.py").write_text(body)
    return root


def run_python(code: str, cwd: Path, *paths: Path) -> subprocess.CompletedProcess:
    """Run ``python -c code`` in ``cwd`` with only ``paths`` on ``PYTHONPATH``."""
    env = {"PYTHONPATH": os.pathsep.join(map(str, paths)), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def live_in_group(pgid: int) -> list[str]:
    """The pids of process group ``pgid`` that are not zombies (read from /proc, Linux)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()  # after "pid (comm) "
        if int(fields[2]) == pgid and fields[0] != "Z":
            out.append(stat.parent.name)
    return out


def group_left_after(pgid: int, seconds: float) -> list[str]:
    """:func:`live_in_group` once the group is empty or ``seconds`` have passed."""
    import time

    deadline = time.monotonic() + seconds
    while live_in_group(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return live_in_group(pgid)


def kill_group(pgid: int) -> None:
    """SIGKILL what is left of process group ``pgid`` (a test's cleanup; none left is fine)."""
    import signal

    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


#: A folder whose ``requirements.txt`` declares ``verl>=0.9``: a file analysed "in" it runs a
#: verl whose function takes a config. Issue 26: where nothing says which verl runs, a fix
#: passing the config is unsafe, so a test of a safe fix names its file in a declaring tree.
DECLARES_VERL = Path(__file__).resolve().parent / "data" / "declares_verl"


def declared(name: str = "m.py") -> str:
    """The path of a (not written) file ``name`` inside :data:`DECLARES_VERL`."""
    return str(DECLARES_VERL / name)


def declare_verl(root: Path, requirement: str = "verl>=0.9") -> Path:
    """Make the tree at ``root`` declare the verl it runs: write ``root/requirements.txt``
    holding ``requirement`` (added to one that declares no verl yet) and return ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / "requirements.txt"
    text = path.read_text() if path.exists() else ""
    if "verl" not in text:
        path.write_text(text + ("" if not text or text.endswith("\n") else "\n") + requirement + "\n")
    return root
