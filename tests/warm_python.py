"""Shared helper: run a sample project's own ``python`` in a child forked from a warm
interpreter (issue 28).

Hundreds of tests run a sample project before and after ``apply`` (``python -c``, a
script, ``python -m pytest``), each in a fresh interpreter: ~0.15 s of start-up, and
~0.4 s more for its pytest. :func:`run` takes the same arguments as ``subprocess.run``
and gives the same :class:`subprocess.CompletedProcess`, but starts the command in a
child forked from one server interpreter per test process, started once, that has
imported the interpreter's own start-up modules and pytest, OmegaConf and PyYAML (what
the sample projects import from site-packages) and nothing else: no ``ppo_migrate``, no
``verl``, nothing of a sample project. The child then does what the interpreter's start
does for the command line (Python's "Command line and environment" documentation):

* ``os.environ`` is the given environment (``putenv`` included), the working directory
  the given one, ``sys.dont_write_bytecode`` follows ``PYTHONDONTWRITEBYTECODE``;
* ``sys.path`` is ``[first, *PYTHONPATH, *the interpreter's own entries]``, ``first``
  being ``''`` for ``-c``, the working directory for ``-m``, the script's real directory
  for a script (as ``site`` does, entries are absolute and duplicates dropped);
* ``sys.argv`` is ``['-c', ...]``, ``['-m', ...]`` (``runpy`` fills in the module's
  file, as ``python -m`` does) or ``[script, ...]``; the code runs in a fresh
  ``__main__`` module;
* the exit status is what the interpreter gives: ``SystemExit``'s code, 1 and the
  traceback on ``sys.excepthook`` for an uncaught exception (``KeyboardInterrupt``: killed
  by ``SIGINT``), after non-daemon threads are joined and ``atexit`` functions run;
  stdout and stderr are captured to files; stdin is empty (or ``input``).

A command the child cannot reproduce exactly runs as a real process instead: any other
executable, interpreter options (``-S``, ``-I``, ``-X``, ...), ``PYTHON*`` variables
that change start-up (``PYTHONHOME``, ``PYTHONSTARTUP``, ``PYTHONIOENCODING``, a
relative or empty ``PYTHONPATH`` entry, ...), a ``sitecustomize``/``usercustomize``
module on the path, or a module the server has imported shadowed by a sample project's
file. ``PPO_MIGRATE_TESTS_COLD=1`` runs every command as a real process (the same suite,
to compare).
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

#: ``PYTHON*`` variables the child reproduces; any other one makes the command a real process.
_HANDLED_VARIABLES = frozenset({"PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED"})
#: Top-level packages the server imports; a sample project's own module of one of these
#: names (a file or folder on its path) makes the command a real process.
_PRELOADED = ("pytest", "_pytest", "pluggy", "iniconfig", "omegaconf", "yaml", "antlr4")

_SERVER = r"""
import atexit, json, os, struct, sys, types
import pytest, _pytest.config, _pytest.main, _pytest.python, _pytest.assertion.rewrite
import omegaconf, yaml
import importlib
for _name in sys.argv[1:]:  # the caller's heavy imports (torch), once for all its runs
    try:
        importlib.import_module(_name)
    except Exception:
        pass
for _name in _pytest.config.default_plugins:  # what each pytest run loads first
    try:
        importlib.import_module("_pytest." + _name)
    except ImportError:
        pass
import _pytest.pytester, _pytest.fixtures, _pytest.terminal, _pytest.capture, _pytest.logging
requests, replies = os.dup(0), os.dup(1)
null = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)
base_path = list(sys.path[1:])
import gc
gc.freeze()  # what is loaded now is never collected: a child's collections walk its own objects
def read_exact(n):
    data = b""
    while len(data) < n:
        chunk = os.read(requests, n - len(data))
        if not chunk:
            return None
        data += chunk
    return data
def reply(obj):
    data = json.dumps(obj).encode()
    os.write(replies, struct.pack("<I", len(data)) + data)
def report(exc):
    tb = exc.__traceback__  # as the interpreter prints it: without this server's frame
    while tb is not None and tb.tb_frame.f_code.co_name == "child" and tb.tb_frame.f_globals is globals():
        tb = tb.tb_next
    sys.excepthook(type(exc), exc.with_traceback(tb), tb)
def child(req):
    os.close(requests); os.close(replies)
    os.dup2(os.open(req["stdin"], os.O_RDONLY), 0)
    os.dup2(os.open(req["stdout"], os.O_WRONLY | os.O_TRUNC), 1)
    os.dup2(os.open(req["stderr"], os.O_WRONLY | os.O_TRUNC), 2)
    os.chdir(req["cwd"])
    os.environ.clear()
    os.environ.update(req["env"])
    sys.dont_write_bytecode = bool(req["env"].get("PYTHONDONTWRITEBYTECODE"))
    sys.path[:] = [req["first"], *req["pythonpath"], *[p for p in base_path if p not in req["pythonpath"]]]
    sys.path_importer_cache.clear()
    import importlib, runpy, threading, traceback, builtins
    importlib.invalidate_caches()
    argv = req["argv"]
    code = 0
    try:
        try:
            if argv[0] == "-m":
                sys.argv = ["-m", *argv[2:]]
                runpy._run_module_as_main(argv[1], alter_argv=True)
            else:
                main = types.ModuleType("__main__")
                main.__dict__["__builtins__"] = builtins
                sys.modules["__main__"] = main
                if argv[0] == "-c":
                    sys.argv = ["-c", *argv[2:]]
                    source, filename = argv[1], "<string>"
                else:
                    sys.argv = list(argv)
                    with open(argv[0], "rb") as f:
                        source = f.read()
                    filename = os.path.abspath(argv[0])  # as the interpreter has it since 3.9
                    main.__file__ = filename
                    main.__cached__ = None
                exec(compile(source, filename, "exec"), main.__dict__)
        finally:
            threading._shutdown()
    except SystemExit as exc:
        if exc.code is None:
            code = 0
        elif isinstance(exc.code, int):
            code = exc.code
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except KeyboardInterrupt as exc:
        report(exc)
        code = -2
    except BaseException as exc:
        report(exc)
        code = 1
    try:
        atexit._run_exitfuncs()
        sys.stdout.flush(); sys.stderr.flush()
    except BaseException:
        pass
    if code == -2:
        import signal
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(code & 0xFF)
while True:
    head = read_exact(4)
    if head is None:
        break
    req = json.loads(read_exact(struct.unpack("<I", head)[0]))
    sys.stdout.flush(); sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        child(req)
    reply({"pid": pid})
    reply({"status": os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])})
"""


class _Server:
    """One warm interpreter (a child of this test process) and its request pipes."""

    def __init__(self, preload: tuple[str, ...]) -> None:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _SERVER, *preload], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env=env, cwd="/", bufsize=0,
        )
        self.lock = threading.Lock()
        self.pending = b""

    def _send(self, obj: dict[str, Any]) -> None:
        data = json.dumps(obj).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(struct.pack("<I", len(data)) + data)
        self.proc.stdin.flush()

    def _receive(self, timeout: float | None) -> dict[str, Any] | None:
        """The server's next reply, or ``None`` when none came within ``timeout`` seconds.
        Read with ``os.read`` into this object's own buffer: a buffered reader could hold
        the next reply already, where ``select`` would not see it."""
        import select
        import time

        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if len(self.pending) >= 4:
                size = struct.unpack("<I", self.pending[:4])[0]
                if len(self.pending) >= 4 + size:
                    reply, self.pending = self.pending[4:4 + size], self.pending[4 + size:]
                    return json.loads(reply)
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([fd], [], [], left)[0]:
                    return None
            chunk = os.read(fd, 65536)
            if not chunk:
                raise RuntimeError("the warm interpreter ended")
            self.pending += chunk

    def run(self, request: dict[str, Any], timeout: float | None) -> tuple[int, bool]:
        """``(exit status, timed out)`` of one command; a command over ``timeout`` is killed."""
        import signal

        with self.lock:
            self._send(request)
            pid = self._receive(None)["pid"]  # type: ignore[index]
            answer = self._receive(timeout)
            if answer is None:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                answer = self._receive(None)
                return answer["status"], True  # type: ignore[index]
            return answer["status"], False


_SERVERS: dict[tuple[int, tuple[str, ...]], _Server] = {}


def _server(preload: tuple[str, ...]) -> _Server:
    """This process's warm interpreter that has imported ``preload`` too (a forked test
    process starts its own)."""
    key = (os.getpid(), preload)
    server = _SERVERS.get(key)
    if server is None or server.proc.poll() is not None:
        server = _SERVERS[key] = _Server(preload)
    return server


def server_pids() -> set[int]:
    """The pids of this process's warm interpreters (children of this process that a test
    counting its own children leaves aside)."""
    return {s.proc.pid for (owner, _), s in _SERVERS.items() if owner == os.getpid()
            and s.proc.poll() is None}


def _shadows(folder: str, preload: tuple[str, ...] = ()) -> bool:
    """Whether ``folder`` holds a module the server has imported, or a site customisation."""
    for name in (*_PRELOADED, *(p.split(".")[0] for p in preload), "sitecustomize", "usercustomize"):
        if os.path.exists(os.path.join(folder, name + ".py")) or os.path.isdir(os.path.join(folder, name)):
            return True
    return False


def _request(
    cmd: Any, cwd: Any, env: dict[str, str], preload: tuple[str, ...] = ()
) -> dict[str, Any] | None:
    """The server's request for ``cmd``, or ``None`` when only a real process gives its answer."""
    if not isinstance(cmd, (list, tuple)) or len(cmd) < 2 or str(cmd[0]) != sys.executable:
        return None
    argv = [str(a) for a in cmd[1:]]
    if any(k.startswith("PYTHON") and k not in _HANDLED_VARIABLES for k in env):
        return None
    where = os.path.abspath(os.fspath(cwd) if cwd is not None else os.getcwd())
    if argv[0] in ("-c", "-m"):
        if len(argv) < 2:
            return None
        first = "" if argv[0] == "-c" else where
    elif argv[0].startswith("-"):
        return None
    else:
        script = os.path.join(where, argv[0])
        if not os.path.isfile(script):
            return None
        first = os.path.dirname(os.path.realpath(script))
    entries = env.get("PYTHONPATH", "").split(os.pathsep) if env.get("PYTHONPATH") else []
    if any(not e or not os.path.isabs(e) for e in entries):
        return None
    pythonpath: list[str] = []
    for e in entries:
        e = os.path.normpath(e)
        if e not in pythonpath:
            pythonpath.append(e)
    if any(_shadows(folder, preload) for folder in (first or where, *pythonpath)):
        return None
    return {"argv": argv, "cwd": where, "env": dict(env), "first": first, "pythonpath": pythonpath}


def run(cmd: Any, *, preload: tuple[str, ...] = (), **kwargs: Any) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd, **kwargs)``, started from the warm interpreter when it can be
    (see the module docstring); otherwise a real process.

    Args:
        cmd: the command line; only ``[sys.executable, ...]`` is started warm.
        preload: modules the server imports too, before it forks (``("torch",)``: ~4 s of
            CPU a fresh interpreter); one server per distinct tuple.
        kwargs: ``subprocess.run``'s: ``cwd``, ``env`` (default: this process's),
            ``capture_output``, ``text``, ``timeout``, ``check``, ``input``; any other one
            (``stdout=``, ``encoding=``, ...) makes it a real process.

    Returns:
        The finished process, as ``subprocess.run`` returns it.

    Raises:
        subprocess.TimeoutExpired: the command ran over ``timeout`` seconds (it is killed).
        subprocess.CalledProcessError: ``check`` and a non-zero exit status.
    """
    allowed = {"cwd", "env", "capture_output", "text", "timeout", "check", "input"}
    env = dict(kwargs["env"]) if kwargs.get("env") is not None else dict(os.environ)
    request = None
    if (os.environ.get("PPO_MIGRATE_TESTS_COLD") != "1" and set(kwargs) <= allowed
            and kwargs.get("capture_output")):
        request = _request(cmd, kwargs.get("cwd"), env, preload)
    if request is None:
        return subprocess.run(cmd, **kwargs)  # noqa: PLW1510 (check is in kwargs when given)
    text = bool(kwargs.get("text"))
    given = kwargs.get("input")
    with tempfile.TemporaryDirectory(prefix="warm-python-") as scratch:
        files = {name: os.path.join(scratch, name) for name in ("stdin", "stdout", "stderr")}
        data = given.encode() if isinstance(given, str) else (given or b"")
        for name, path in files.items():
            Path(path).write_bytes(data if name == "stdin" else b"")
        status, timed_out = _server(preload).run({**request, **files}, kwargs.get("timeout"))
        out, err = Path(files["stdout"]).read_bytes(), Path(files["stderr"]).read_bytes()
    if timed_out:
        raise subprocess.TimeoutExpired(cmd, kwargs["timeout"], output=out, stderr=err)
    stdout: str | bytes = out
    stderr: str | bytes = err
    if text:  # as subprocess's text mode: the locale's encoding, universal newlines
        stdout = out.decode().replace("\r\n", "\n").replace("\r", "\n")
        stderr = err.decode().replace("\r\n", "\n").replace("\r", "\n")
    done = subprocess.CompletedProcess(cmd, status, stdout, stderr)
    if kwargs.get("check"):
        done.check_returncode()
    return done
