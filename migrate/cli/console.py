"""The process's standard streams and exit, without click: error lines, crashes, closed outputs.

Shared by the click command line (:mod:`ppo_migrate.cli.app`) and the console script's lane for a
plain ``check`` (:mod:`ppo_migrate.cli.entry`), so that both print the same lines and exit with the
same codes. Exit codes follow ruff: 0 nothing found, 1 findings remain, 2 usage or
configuration errors and internal crashes, 130 interrupted by Ctrl-C.
"""

import functools
import io
import os
import sys

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130


def say(message: str) -> None:
    """Print ``message`` (one line, without its newline) on standard error, flushed."""
    stream = sys.stderr
    if stream is None:  # started without one (``2>&-``): nowhere to say it
        return
    stream.write(message + "\n")
    stream.flush()


def fail(message: str):
    """Print ``ppo-migrate: error: MESSAGE`` on standard error and exit 2.

    Raises:
        SystemExit: always, with code 2.
    """
    say(f"ppo-migrate: error: {message}")
    sys.exit(EXIT_ERROR)


def guard(func, passthrough: tuple[type[BaseException], ...] = ()):
    """``func`` wrapped: Ctrl-C is exit 130, a closed pipe a quiet exit 1, standard output
    refusing the report a one-line error with exit 2, and any other exception a one-line
    internal error with exit 2 (never a pass).

    Args:
        func: a command's body.
        passthrough: exception types raised on unchanged (click's usage errors and exits,
            which click itself reports).
    """

    @functools.wraps(func)
    def guarded(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except KeyboardInterrupt:
            say("ppo-migrate: interrupted")
            sys.exit(EXIT_INTERRUPTED)
        except SystemExit:
            raise
        except passthrough:
            raise
        except BrokenPipeError:
            exit_on_broken_pipe()
        except OSError as exc:
            if not output_failed(exc):
                say(f"ppo-migrate: internal error: {type(exc).__name__}: {exc}")
                sys.exit(EXIT_ERROR)
            output_error(exc)
        except Exception as exc:  # noqa: BLE001 - an internal crash is exit 2, never a pass
            say(f"ppo-migrate: internal error: {type(exc).__name__}: {exc}")
            sys.exit(EXIT_ERROR)

    return guarded


def exit_on_broken_pipe():
    """Standard output's reader went away (``ppo-migrate rule --all | head -1``): exit 1 quietly.

    Python's documented recipe (the ``signal`` module's note on SIGPIPE): point
    standard output at devnull, so that flushing what is still buffered at exit
    cannot raise again, and exit 1 without a message.

    Raises:
        SystemExit: always, with code 1.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file descriptor (tests)
        pass
    sys.exit(EXIT_FINDINGS)


def output_failed(exc: OSError) -> bool:
    """Whether ``exc`` is standard output refusing what was printed (a full disk, a quota,
    an I/O error, a closed descriptor) rather than a crash: a user's own files are written
    through :func:`ppo_migrate.files.atomic_write`, whose errors are reported file by file."""
    import errno

    return exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EBADF)


def output_error(exc: OSError):
    """One line on standard error and exit 2, as ruff does (``ruff failed``): standard
    output could not take the report; what it held is dropped, never written again.

    Raises:
        SystemExit: always, with code 2.
    """
    try:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - the exit flushes it, harmlessly
    except OSError:
        pass
    say(f"ppo-migrate: error: cannot write the output: {exc.strerror or exc}")
    sys.exit(EXIT_ERROR)


class _ClosedOutput(io.TextIOBase):
    """Standard output when the process started without one (``ppo-migrate check src >&-``:
    Python sets ``sys.stdout`` to ``None``). Writing to it fails as writing to a closed
    descriptor does (EBADF): the run ends with "cannot write the output", exit 2, as on a
    full disk, instead of an internal error; a run that prints nothing (``-s``) is fine."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        import errno

        raise OSError(errno.EBADF, "standard output is closed")


def keep_undecodable_names(stream) -> None:
    """Print a path that is not valid in the file system's encoding as its own bytes.

    Python decodes such a name with ``surrogateescape`` (``bad\\xff.py`` is
    ``"bad\\udcff.py"``); a standard output with ``strict`` errors (a UTF-8 locale, or
    ``PYTHONIOENCODING=utf-8``) then raised on the first finding in that file and the run
    ended as an internal error, its other findings unprinted (a tester's file name with a
    ``\\xff`` byte). ``surrogateescape`` writes the name's bytes back as they are on disk.
    """
    if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
        try:
            stream.reconfigure(errors="surrogateescape")
        except (OSError, ValueError):  # a stream already written to in another encoding
            pass


def run_command(body, *, process_ends: bool, finally_=None) -> None:
    """Run ``body()`` as the whole command: standard output prepared first, flushed here.

    Standard output is flushed here, not at interpreter exit, so that a reader that went
    away (a closed pipe) is a quiet exit 1 rather than a traceback, and a full disk or a
    closed descriptor is "cannot write the output", exit 2.

    Args:
        body: the command (click's ``main``, or the plain ``check``); it exits with
            ``sys.exit`` (returning is exit 0).
        process_ends: the console script or ``python -m`` (not a test calling
            ``main(argv)``): the process then ends at once, without Python's teardown
            (:func:`exit_without_teardown`).
        finally_: called after ``body`` whatever happened (the scout's cleanup).

    Raises:
        SystemExit: the command's exit code.
    """
    if sys.stdout is None:
        sys.stdout = _ClosedOutput()
    if sys.stderr is None:  # started without one (``2>&-``): its lines are dropped, the
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - report on stdout still printed
    keep_undecodable_names(sys.stdout)
    try:
        try:
            body()
            sys.exit(EXIT_OK)  # as click ends a command that returns
        finally:
            if finally_ is not None:
                finally_()
            sys.stdout.flush()
    except BrokenPipeError:
        exit_on_broken_pipe()
    except OSError as exc:  # the last flush of standard output
        if not output_failed(exc):
            raise
        output_error(exc)
    except SystemExit as exc:
        if process_ends:
            exit_without_teardown(exc)
        raise


def exit_without_teardown(exc: SystemExit) -> None:
    """End the process at once with ``exc``'s status when nothing is left to do at exit.

    Python's own exit frees every object of every module one by one, ~10 ms after a
    ``check`` (issue 13, item 6); ``os._exit`` skips it. Only when it skips nothing else:
    no ``atexit`` handler is registered (``weakref.finalize``, ``multiprocessing`` and
    ``logging`` register one) and no other thread runs. Standard output and error are
    flushed first. Not under a tracer or profiler (a debugger, coverage, ``python -m cProfile
    -m ppo_migrate``: they report at exit). Otherwise (or when the flush fails) this returns
    and ``exc`` is raised as usual, the cycle collector's objects frozen first
    (:func:`_freeze_for_exit`).
    """
    import atexit

    handlers = getattr(atexit, "_ncallbacks", None)  # CPython's count; elsewhere: exit as usual
    threading = sys.modules.get("threading")
    if handlers is None or handlers() or (threading and threading.active_count() > 1):
        _freeze_for_exit()
        return
    if sys.gettrace() is not None or sys.getprofile() is not None:
        _freeze_for_exit()
        return  # under a debugger, coverage or a profiler (``python -m cProfile -m ...``)
    code = exc.code
    if code is not None and not isinstance(code, int):
        _freeze_for_exit()
        return  # a message to print: Python's own exit prints it
    try:
        sys.stdout.flush()
        if sys.stderr is not None:
            sys.stderr.flush()
    except (OSError, ValueError):
        _freeze_for_exit()
        return
    os._exit(code or 0)


def _freeze_for_exit() -> None:
    """Move every object the cycle collector tracks to its permanent generation
    (:func:`gc.freeze`) before Python's own exit, which the process takes when an ``atexit``
    handler is registered (``logging``'s, once anything imports it; a ``.pth`` file's, on
    some machines).

    That exit collects every generation once more before it frees the modules: with the
    run's trees and analyses still held (the snapshot keeps the trees for the run), the
    collection walked them all for nothing, ~0.1 s of CPU time at the end of a ``check``
    of benchmark items 9 and 10 (a tenth of the run). The permanent generation is left out
    of every collection; the objects are freed as before, by their reference counts, when
    the modules are torn down. The ``atexit`` handlers run first, as always.
    """
    import gc

    gc.freeze()
