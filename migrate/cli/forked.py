"""Shares of a run's per-file phase analysed by forked children, their outcomes sent back.

:func:`ppo_migrate.cli.runner.run` forks children here when two or more processes may run
(``--jobs``) and the phase's work pays for them: each child inherits the process as it is at
the fork (the snapshot's bytes and trees, the reference index, the modules imported and the
one-time look-ups made), analyses the files of its share one after the other and writes the
pickled list of their outcomes to a pipe of its own, then ends through ``os._exit``. The
process goes on with its own work meanwhile (the look-out for the test doubles, its own share
of the files: :func:`ppo_migrate.cli.runner._run_overlapped`) and collects the lists when it
is done. Unlike the worker pool (:func:`ppo_migrate.cli.runner._run_pool`) no task or outcome
crosses a queue one at a time (~1 ms a file there, of the order of a file's analysis on
benchmark items 9 and 10) and the children start before the look-outs end.

Nothing here knows what a file's analysis is: the caller gives the function a child runs
on each file of its share (``analyse``) and one it runs first (``child_init``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence

#: How long :meth:`Children.collect` waits for a child's bytes before it looks at a stop
#: request again, in seconds.
POLL_SECONDS = 0.2


class Children:
    """Children forked by :func:`fork`, one per share, and what came back from them.

    Attributes:
        shares: each child's files, in the order it analyses them.
        pids: each child's process id (``None`` once reaped).
    """

    def __init__(self, shares: list[list[str]], pids: list[int], readers: list[int],
                 ticks: int | None) -> None:
        self.shares = shares
        self.pids: list[int | None] = list(pids)
        self._readers = readers
        self._ticks = ticks
        self._chunks: list[list[bytes]] = [[] for _ in shares]
        self._open = set(range(len(shares)))
        self.ticked = 0

    def poll_ticks(self) -> int:
        """How many files the children have finished so far by their progress bytes (never
        more than their shares hold; 0 when no progress is shown)."""
        if self._ticks is not None:
            with contextlib.suppress(BlockingIOError, OSError):
                self.ticked += len(os.read(self._ticks, 65536))
        return min(self.ticked, sum(len(s) for s in self.shares))

    def collect(
        self,
        check_stop: Callable[[], None],
        on_tick: Callable[[], None] | None = None,
        idle: Iterator[None] | None = None,
    ) -> list[list | None]:
        """Each child's list of outcomes (one per file of its share, in its order), or
        ``None`` for a child that did not end cleanly (killed, crashed) or sent anything
        else: its files are the caller's to analyse again. Reaps every child.

        Args:
            check_stop: called at least every :data:`POLL_SECONDS` while waiting; what it
                raises (``KeyboardInterrupt``) propagates, the children still running
                (:meth:`kill` them).
            on_tick: called when progress bytes came.
            idle: steps of other work taken one at a time while nothing came (``next``
                of it; none once it is exhausted).
        """
        import select

        by_fd = {self._readers[i]: i for i in self._open}
        while by_fd:
            watched = [*by_fd, *([self._ticks] if self._ticks is not None else [])]
            ready, _, _ = select.select(watched, [], [], 0 if idle is not None else POLL_SECONDS)
            check_stop()
            if not ready and idle is not None:
                if next(idle, True) is True:  # no more steps
                    idle = None
                continue
            if self._ticks is not None and self._ticks in ready and on_tick is not None:
                on_tick()
            for fd in ready:
                i = by_fd.get(fd)
                if i is None:
                    continue
                chunk = os.read(fd, 1 << 20)
                if chunk:
                    self._chunks[i].append(chunk)
                else:
                    del by_fd[fd]
                    self._open.discard(i)
        return [self._outcomes(i) for i in range(len(self.shares))]

    def _outcomes(self, i: int) -> list | None:
        """Child ``i``'s list, its process reaped; ``None`` as :meth:`collect` says."""
        status = 1
        pid = self.pids[i]
        if pid is not None:
            with contextlib.suppress(ChildProcessError):
                _, status = os.waitpid(pid, 0)
            self.pids[i] = None
        message = b"".join(self._chunks[i])
        self._chunks[i] = []
        if status != 0 or not message:
            return None
        import pickle

        try:
            done = pickle.loads(message)
        except Exception:  # noqa: BLE001 - a cut message: the files are analysed again
            return None
        if not isinstance(done, list) or [getattr(o, "path", None) for o in done] != self.shares[i]:
            return None
        return done

    def kill(self) -> None:
        """Kill and reap the children still running; close the pipes. Safe to call twice."""
        for i, pid in enumerate(self.pids):
            if pid is None:
                continue
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.waitpid(pid, 0)
            self.pids[i] = None
        for fd in [*self._readers, *([self._ticks] if self._ticks is not None else [])]:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._readers, self._ticks = [], None


def fork(
    shares: Sequence[Sequence[str]],
    analyse: Callable[[str], object],
    child_init: Callable[[], None] = lambda: None,
    ticks: bool = False,
) -> Children:
    """Fork one child per share (``shares``: non-empty lists of paths). Each child runs
    ``child_init()``, then ``analyse(path)`` on each path of its share in order, writing a
    byte to a progress pipe after each when ``ticks``, then writes the pickled list of the
    answers to its pipe and ends with status 0 (1 on any failure: the parent analyses its
    files again) through ``os._exit`` (no ``atexit`` handler, no flush of buffers it
    inherited, no collection at exit). A child ignores SIGINT (Ctrl-C is the parent's) and
    ends itself when the parent dies, however (:func:`ppo_migrate.cli.scout._end_with_parent`).

    Returns:
        The :class:`Children`; the caller collects or kills them (``try``/``finally``).
    """
    shares = [list(s) for s in shares]
    for stream in (sys.stdout, sys.stderr):  # nothing buffered here is written twice
        with contextlib.suppress(Exception):
            stream.flush()
    tick_pipe = os.pipe() if ticks else None
    readers: list[int] = []
    pids: list[int] = []
    try:
        for share in shares:
            reader, writer = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: never returns
                inherited = [*readers, *([tick_pipe[0]] if tick_pipe else []), reader]
                _child(share, analyse, child_init, writer, tick_pipe[1] if tick_pipe else None, inherited)
            os.close(writer)
            readers.append(reader)
            pids.append(pid)
    except BaseException:
        Children(shares[: len(pids)], pids, readers, None).kill()
        if tick_pipe is not None:
            for fd in tick_pipe:
                with contextlib.suppress(OSError):
                    os.close(fd)
        raise
    if tick_pipe is not None:
        os.close(tick_pipe[1])
        os.set_blocking(tick_pipe[0], False)
    return Children(shares, pids, readers, tick_pipe[0] if tick_pipe else None)


def _child(
    paths: list[str],
    analyse: Callable[[str], object],
    child_init: Callable[[], None],
    writer: int,
    ticks: int | None,
    inherited: list[int],
):  # pragma: no cover - runs in the forked child
    """A child of :func:`fork`: never returns."""
    status = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        for fd in inherited:  # the other children's pipes: their ends must close with them
            with contextlib.suppress(OSError):
                os.close(fd)
        from ppo_migrate.cli.scout import _end_with_parent

        _end_with_parent(writer)  # a parent killed (SIGKILL included) ends the child at once
        if ticks is not None:
            os.set_blocking(ticks, False)  # a full pipe drops a byte, never waits
        child_init()
        import pickle

        done = []
        for p in paths:
            done.append(analyse(p))
            if ticks is not None:
                with contextlib.suppress(BlockingIOError):
                    os.write(ticks, b".")
        view = memoryview(pickle.dumps(done, protocol=pickle.HIGHEST_PROTOCOL))
        while view:
            view = view[os.write(writer, view):]
        status = 0
    finally:
        os._exit(status)
