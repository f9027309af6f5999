"""Shared helpers: run the ``ppo-migrate`` command line, in this process or as a real one.

:func:`run_cli` runs the console script's own entry (:func:`ppo_migrate.cli.entry.main`, which
takes both of its lanes: the plain ``check`` without click and click's command line) inside
the test process, ~10 times cheaper than a process (issue 28, part 3): ``sys.argv``, the
working directory, the environment and the standard streams are set as a process would have
them, and everything the command line may change for its process (signal handlers and mask,
the cycle collector, ``sys.path``, the caches of the analysis, warnings) is put back after.
``run_cli(..., process=True)`` (or :data:`SUBPROCESS_ENV` set to ``1`` for the whole run) runs
the installed executable instead: for what only a real process shows (the console script
itself, signals, closed streams, ttys, exit without teardown).
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import traceback
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import warm_python

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"

#: Set to ``1`` to run every :func:`run_cli` as a subprocess (to compare the two tiers).
SUBPROCESS_ENV = "PPO_MIGRATE_TEST_SUBPROCESS"


def ppo_migrate_exe() -> list[str]:
    """The installed console script, or ``python -m ppo_migrate`` beside this interpreter."""
    exe = shutil.which("ppo-migrate", path=str(Path(sys.executable).parent)) or shutil.which(
        "ppo-migrate"
    )
    return [exe] if exe else [sys.executable, "-m", "ppo_migrate"]


@dataclass
class Completed:
    """What :func:`run_cli` returns: as :class:`subprocess.CompletedProcess` has it."""

    args: list[str]
    returncode: int
    stdout: Any
    stderr: Any


def run_cli(
    *args: str,
    cwd: Path | str | None = None,
    input: bytes | None = None,
    env=None,
    process: bool = False,
    environ: dict[str, str] | None = None,
    blocked: tuple[str, ...] = (),
    text: bool = True,
):
    """Run ``ppo-migrate ARGS`` and return its exit code and output (decoded as UTF-8).

    Args:
        args: the command line after ``ppo-migrate``.
        cwd: the working directory (``None``: this one).
        input: standard input's bytes (``None``: empty in process; inherited as a process).
        env: variables set on top of this environment (``CI`` is always removed, so that
            progress and CI-only behaviour stay off as on a developer's machine).
        process: run the real executable as a subprocess (see the module's docstring).
        environ: the whole environment instead of this one's (``env`` still goes on top).
        blocked: top-level packages made unimportable (``sys.modules[name] = None``, as a
            process started with ``-c "import sys; sys.modules['hydra'] = None ..."``).
        text: decode the output (``False``: ``stdout`` and ``stderr`` are the bytes written).

    Returns:
        An object with ``returncode``, ``stdout`` and ``stderr`` (``str``, or ``bytes``
        without ``text``), as :class:`subprocess.CompletedProcess` has them.
    """
    if process or os.environ.get(SUBPROCESS_ENV) == "1":
        return run_exe(
            *args, cwd=cwd, input=input, env=env, environ=environ, blocked=blocked, text=text
        )
    done = _run_in_process(list(args), cwd=cwd, input=input, env=env, environ=environ, blocked=blocked)
    if text:
        done.stdout = done.stdout.decode("utf-8", "replace")
        done.stderr = done.stderr.decode("utf-8", "replace")
    return done


def run_exe(
    *args: str,
    cwd: Path | str | None = None,
    input: bytes | None = None,
    env=None,
    environ: dict[str, str] | None = None,
    blocked: tuple[str, ...] = (),
    text: bool = True,
):
    """Run the installed ``ppo-migrate`` executable as a subprocess (``blocked``: through
    ``python -c`` with those packages made unimportable); the
    :class:`subprocess.CompletedProcess`, its output decoded as UTF-8 (unless not ``text``)."""
    base = os.environ if environ is None else environ
    full_env = {k: v for k, v in base.items() if k not in ("CI", SUBPROCESS_ENV)}
    full_env.update(env or {})
    command = ppo_migrate_exe()
    if blocked:
        block = "".join(f"sys.modules[{name!r}] = None; " for name in blocked)
        command = [sys.executable, "-c", f"import sys; {block}\nfrom ppo_migrate.cli.entry import main; main()"]
    proc = subprocess.run(
        [*command, *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        env=full_env,
        timeout=300,
    )
    if text:
        proc.stdout = proc.stdout.decode("utf-8", "replace")  # type: ignore[assignment]
        proc.stderr = proc.stderr.decode("utf-8", "replace")  # type: ignore[assignment]
    return proc


#: Python's own warning filters at start-up (``python -W`` unset): what the process saw
_DEFAULT_FILTERS = [
    ("default", DeprecationWarning, "__main__"),
    ("ignore", DeprecationWarning, None),
    ("ignore", PendingDeprecationWarning, None),
    ("ignore", ImportWarning, None),
    ("ignore", ResourceWarning, None),
]


_ABSENT = object()


def _children() -> set[int]:
    """The pids of this process's children that have not been reaped (from /proc, Linux)."""
    me = os.getpid()
    out = set()
    for task in Path(f"/proc/{me}/task").glob("*/children"):
        try:
            out.update(int(p) for p in task.read_text().split())
        except OSError:
            continue
    return out


def _fresh_caches() -> None:
    """Empty the caches a new process would start without (keyed by path and time stamp, or
    by project root: a test rewriting a file or a setting between two runs must see it)."""
    from ppo_migrate.rules import install_pins, signatures, versions
    from ppo_migrate.edits import import_sections
    from ppo_migrate.project import import_roots, references, tree

    references.forget_outside()  # the class index's and caller phase's records outside a run
    import_sections._cached.cache_clear()
    signatures._RESOLVERS.clear()  # the callee in effect, per directory of a run
    versions._FOLDERS.clear()  # the folders holding dependency files, per project
    install_pins._PINS.clear()  # the install commands' pins, per repository
    install_pins._PROJECT_INSTALLS.clear()  # the installs of the project, per repository
    install_pins._UNINSTALLED_RUNS.clear()  # the images running the code uninstalled (trial 26f)
    tree._LISTINGS.clear()  # the one walk of a repository (copies of verl, import roots)
    tree._UNLISTED.clear()  # its search of ignored folders and environments
    tree._SEARCHED.clear()  # its searches for copies by place and by content
    import_roots._DECLARED.clear()  # the folders a repository's files put on sys.path
    import_roots._OPAQUE.clear()


@contextlib.contextmanager
def _process_state(argv: list[str], cwd, env, environ=None, blocked=()):
    """Set ``sys.argv``, the working directory and the environment as a process would have
    them, and put back after whatever the command line changes for its process."""
    from ppo_migrate.cli import console, runner

    saved_environ = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_argv = sys.argv
    saved_path = list(sys.path)
    saved_streams = (sys.stdin, sys.stdout, sys.stderr)
    saved_signals = {
        s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE)
    }
    saved_mask = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    saved_gc = (gc.isenabled(), gc.get_threshold())
    saved_recursion = sys.getrecursionlimit()
    saved_runner = (runner._on_written, runner._sigint_raises)
    saved_exit = console.exit_without_teardown
    children = _children()
    saved_modules = {name: sys.modules.get(name, _ABSENT) for name in blocked}
    try:
        if environ is not None:
            os.environ.clear()
            os.environ.update(environ)
        for name in blocked:
            sys.modules[name] = None  # type: ignore[assignment]
        os.environ.pop("CI", None)
        os.environ.pop(SUBPROCESS_ENV, None)
        os.environ.update(env or {})
        if cwd is not None:
            os.chdir(cwd)
        sys.argv = ["ppo-migrate", *argv]
        # the test process goes on: the command's exit is a SystemExit to catch, not os._exit
        console.exit_without_teardown = lambda exc: None
        _fresh_caches()
        with warnings.catch_warnings():
            warnings.resetwarnings()
            for action, category, module in reversed(_DEFAULT_FILTERS):
                warnings.filterwarnings(action, category=category, module=module or "")
            warnings.showwarning = warnings._showwarning_orig  # type: ignore[attr-defined]
            yield
    finally:
        console.exit_without_teardown = saved_exit
        for name, module in saved_modules.items():
            if module is _ABSENT:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
        runner._on_written, runner._sigint_raises = saved_runner
        sys.setrecursionlimit(saved_recursion)
        if gc.get_freeze_count():
            gc.unfreeze()
        gc.set_threshold(*saved_gc[1])
        (gc.enable if saved_gc[0] else gc.disable)()
        signal.pthread_sigmask(signal.SIG_SETMASK, saved_mask)
        for s, handler in saved_signals.items():
            signal.signal(s, handler)
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        sys.path[:] = saved_path
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_environ)
        _fresh_caches()
        _wait_for_children(children)


def _wait_for_children(before: set[int], seconds: float = 10.0) -> None:
    """Fail when the command line left a process of its own (a scout, a pool worker) running
    or unreaped: a real process would have left it behind as an orphan."""
    deadline = time.monotonic() + seconds
    while (left := _children() - before) and time.monotonic() < deadline:
        time.sleep(0.02)
    if left:
        raise AssertionError(f"ppo-migrate left child processes: {sorted(left)}")


def _run_in_process(argv: list[str], cwd, input: bytes | None, env, environ=None, blocked=()) -> Completed:
    """:func:`run_cli` inside this process (see the module's docstring)."""
    from ppo_migrate.cli import entry

    stdin = io.TextIOWrapper(io.BytesIO(input or b""), encoding="utf-8")
    out_bytes, err_bytes = io.BytesIO(), io.BytesIO()
    # as Python sets up a pipe's streams: UTF-8, strict on stdout, backslashreplace on stderr
    stdout = io.TextIOWrapper(out_bytes, encoding="utf-8", errors="strict", newline="\n")
    stderr = io.TextIOWrapper(
        err_bytes, encoding="utf-8", errors="backslashreplace", newline="\n", line_buffering=True
    )
    code: int
    with _process_state(argv, cwd, env, environ, blocked):
        sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
        try:
            entry.main()
            code = 0
        except SystemExit as exc:
            if exc.code is None:
                code = 0
            elif isinstance(exc.code, int):
                code = exc.code
            else:  # as Python's exit prints a message
                print(exc.code, file=sys.stderr)
                code = 1
        except KeyboardInterrupt:
            raise
        except BaseException:  # noqa: BLE001 - an uncaught exception: a traceback, exit 1
            traceback.print_exc(file=sys.stderr)
            code = 1
        for stream in (sys.stdout, sys.stderr, stdout, stderr):
            with contextlib.suppress(Exception):
                stream.flush()
    return Completed(["ppo-migrate", *argv], code, out_bytes.getvalue(), err_bytes.getvalue())


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


#: the launcher the executed callee tests run: it passes a config to verl 0.9's signature
#: only once a fix has rewritten the call (line 6), and prints its ``ran ...`` line
LAUNCHER = (
    "from omegaconf import OmegaConf\n"
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
    "\n"
    "\n"
    "def launch(config):\n"
    "    return get_ppo_ray_runtime_env()\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    print('ran', launch(OmegaConf.create({'trainer': 2})))\n"
)


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Make ``root`` a git top level (an empty ``.git``) holding ``files`` (path -> text);
    return ``root``."""
    (root / ".git").mkdir(parents=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def launcher_project(tmp_path: Path, files: dict[str, str], body: str = VERL_08) -> tuple[Path, Path]:
    """The project (``tmp_path/project``, a git top level holding :data:`LAUNCHER` as
    ``train.py`` and ``files``) and the folder of the verl (``body``) its interpreter has,
    to put on ``PYTHONPATH`` for the launcher only (ppo-migrate never sees it)."""
    root = write_tree(tmp_path / "project", {"train.py": LAUNCHER, **files})
    return root, verl_stub(tmp_path / "site", body)


def run_launcher(
    root: Path,
    site: Path | None = None,
    cmd: Sequence[str] = ("train.py",),
    *,
    pythonpath: Sequence[Path] | None = None,
    cwd: Path | None = None,
    python: str = sys.executable,
    timeout: float = 180,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``python cmd`` in ``cwd`` (default ``root``) as the project's interpreter would:
    ``PYTHONPATH`` is ``site`` (or ``pythonpath`` joined; unset when neither is given), plus
    ``env``."""
    environ = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
    if site is not None:
        environ["PYTHONPATH"] = str(site)
    elif pythonpath is not None:
        environ["PYTHONPATH"] = os.pathsep.join(map(str, pythonpath))
    return subprocess.run([python, *cmd], cwd=root if cwd is None else cwd, env=environ, capture_output=True,
                          text=True, timeout=timeout, check=False)


def launcher_ran(root: Path, site: Path | None = None, cmd: Sequence[str] = ("train.py",), *,
                 whole_output: bool = False, **how: Any) -> str:
    """:func:`run_launcher` (``how``: its keywords), which must exit 0; return its ``ran ...``
    line (its whole output, stripped, with ``whole_output``)."""
    proc = run_launcher(root, site, cmd, **how)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    if whole_output:
        return proc.stdout.strip()
    return next(line for line in proc.stdout.splitlines() if line.startswith("ran ")).strip()


def project_ran(root: Path, *paths: Path, cmd: Sequence[str] = ("train.py",)) -> str:
    """Run ``python cmd`` in ``root`` through the warm interpreter (:mod:`warm_python`) with
    ``root`` and ``paths`` on ``PYTHONPATH``; it must exit 0. Return its last line."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, (root, *paths))), "PYTHONDONTWRITEBYTECODE": "1"}
    proc = warm_python.run([sys.executable, *cmd], cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""


def check_findings(root: Path, *extra: str, launcher: str | None = None) -> list[dict]:
    """The findings of ``check --output-format json --exit-zero --show-notices *extra .`` in
    ``root`` (which must exit 0); only those of files ending with ``launcher`` when given."""
    proc = run_cli("check", "--output-format", "json", "--exit-zero", "--show-notices", *extra, ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)
    return found if launcher is None else [f for f in found if f["filename"].endswith(launcher)]


def only_finding(root: Path, launcher: str | None = None) -> dict:
    """The one finding of :func:`check_findings` (of ``launcher`` when given)."""
    (found,) = check_findings(root, launcher=launcher)
    return found


def run_python(code: str, cwd: Path, *paths: Path) -> subprocess.CompletedProcess:
    """Run ``python -c code`` in ``cwd`` with only ``paths`` on ``PYTHONPATH``."""
    env = {"PYTHONPATH": os.pathsep.join(map(str, paths)), "PATH": "/usr/bin:/bin"}
    return warm_python.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


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
