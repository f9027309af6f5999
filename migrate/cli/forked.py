"""A run's per-file phase analysed by forked children and this process, files handed out on
demand, the children's outcomes sent back.

:func:`ppo_migrate.cli.runner.run` forks children here when two or more processes may run
(``--jobs``) and the phase's work pays for them: each child inherits the process as it is at
the fork (the snapshot's bytes and trees, the reference index, the modules imported and the
one-time look-ups made), takes the run's files one at a time from a queue it shares with the
others (:class:`Children`: a pipe of file numbers, filled before the fork), analyses each,
and once the queue is empty writes the pickled list of its outcomes to a pipe of its own,
then ends through ``os._exit``. The process goes on with its own work meanwhile (the look-out
for the test doubles: :func:`ppo_migrate.cli.runner._run_overlapped`), then takes files from
the same queue (:meth:`Children.take`) until it is empty and collects the lists. Unlike the
worker pool (:func:`ppo_migrate.cli.runner._run_pool`) no task or outcome crosses a queue of
pickles one at a time (~1 ms a file there, of the order of a file's analysis on benchmark
items 9 and 10) and the children start before the look-outs end.

The queue balances the processes whatever each file costs: shares cut up front from an
estimate of each file's work (before: this process's share after its look-out, the rest
split among the children) left the child of benchmark item 12 (200 modules of 15 calls)
with ~60 ms more CPU than this process, time the run waited for on two free cores. A file
number is 4 bytes, taken by one ``os.read`` of 4 bytes: a pipe's reads are atomic, so each
number goes to exactly one process, and a process killed meanwhile holds no lock.

Nothing here knows what a file's analysis is: the caller gives the function a child runs
on each file it takes (``analyse``) and one it runs first (``child_init``).
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
#: At most this many numbers in the queue (4 bytes each: 4 kB, ``PIPE_BUF``, which an empty
#: pipe takes in one write whatever its capacity, filled before the fork with no reader
#: yet); above it each number stands for a run of consecutive files (:func:`_span`).
MAX_TOKENS = 1024


def _span(files: int) -> int:
    """How many consecutive files one number of the queue stands for, for ``files`` files:
    1 up to :data:`MAX_TOKENS` files, more above."""
    return max(1, -(-files // MAX_TOKENS))


class Children:
    """Children forked by :func:`fork`, the queue of files they share with this process, and
    what came back from them.

    Attributes:
        paths: the run's files; the queue hands out their numbers (positions).
        pids: each child's process id (``None`` once reaped).
    """

    def __init__(self, paths: list[str], pids: list[int], readers: list[int],
                 ticks: int | None, queue: int | None) -> None:
        self.paths = paths
        self.pids: list[int | None] = list(pids)
        self._readers = readers
        self._ticks = ticks
        self._queue = queue
        self._chunks: list[list[bytes]] = [[] for _ in pids]
        self._open = set(range(len(pids)))
        self.ticked = 0

    def take(self) -> range | None:
        """The numbers of the next files for this process to analyse (one, or a run of
        them: :func:`_span`), taken from the queue the children take theirs from; ``None``
        once it is empty."""
        if self._queue is None:
            return None
        return _take(self._queue, len(self.paths))

    def poll_ticks(self) -> int:
        """How many files the children have finished so far by their progress bytes (never
        more than the run holds; 0 when no progress is shown)."""
        if self._ticks is not None:
            with contextlib.suppress(BlockingIOError, OSError):
                self.ticked += len(os.read(self._ticks, 65536))
        return min(self.ticked, len(self.paths))

    def collect(
        self,
        check_stop: Callable[[], None],
        on_tick: Callable[[], None] | None = None,
        idle: Iterator[None] | None = None,
    ) -> list[list[tuple[int, object]] | None]:
        """Each child's outcomes, as ``(number, outcome)`` pairs in the order it analysed its
        files, or ``None`` for a child that did not end cleanly (killed, crashed) or sent
        anything else: which files it had taken is not known; the ones no other process
        answered for are the caller's to analyse again. Reaps every child.

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
        return [self._outcomes(i) for i in range(len(self.pids))]

    def _outcomes(self, i: int) -> list[tuple[int, object]] | None:
        """Child ``i``'s pairs, its process reaped; ``None`` as :meth:`collect` says."""
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
        if not isinstance(done, list):
            return None
        n = len(self.paths)
        for pair in done:
            if not (
                isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], int)
                and 0 <= pair[0] < n and getattr(pair[1], "path", None) == self.paths[pair[0]]
            ):
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
        fds = [*self._readers, *([self._ticks] if self._ticks is not None else [])]
        fds += [self._queue] if self._queue is not None else []
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._readers, self._ticks, self._queue = [], None, None


def _take(queue: int, files: int) -> range | None:
    """The next numbers from the ``queue`` of ``files`` files (:class:`Children`), ``None``
    once it is empty (or cannot be read)."""
    try:
        token = os.read(queue, 4)
    except OSError:
        return None
    if len(token) < 4:  # the end of the queue (a pipe's read of 4 bytes never splits one)
        return None
    span = _span(files)
    start = int.from_bytes(token, "little") * span
    return range(start, min(files, start + span))


def fork(
    paths: Sequence[str],
    analyse: Callable[[str], object],
    child_init: Callable[[], None] = lambda: None,
    children: int = 1,
    ticks: bool = False,
) -> Children:
    """Fork ``children`` children (1 or more) sharing a queue of ``paths`` (non-empty) with
    this process. Each child runs ``child_init()``, then ``analyse(path)`` on each path it
    takes from the queue, writing a byte to a progress pipe after each when ``ticks``, and
    once the queue is empty writes the pickled list of its ``(number, answer)`` pairs to its
    pipe and ends with status 0 (1 on any failure) through ``os._exit`` (no ``atexit``
    handler, no flush of buffers it inherited, no collection at exit). This process takes
    its own files from the same queue (:meth:`Children.take`). A child ignores SIGINT
    (Ctrl-C is the parent's) and ends itself when the parent dies, however
    (:func:`ppo_migrate.cli.scout._end_with_parent`).

    Returns:
        The :class:`Children`; the caller collects or kills them (``try``/``finally``).
    """
    paths = list(paths)
    for stream in (sys.stdout, sys.stderr):  # nothing buffered here is written twice
        with contextlib.suppress(Exception):
            stream.flush()
    tokens = -(-len(paths) // _span(len(paths)))
    queue, filler = os.pipe()
    try:
        os.write(filler, b"".join(k.to_bytes(4, "little") for k in range(tokens)))
    finally:
        os.close(filler)  # the queue ends where its numbers end: no process holds this end
    tick_pipe = os.pipe() if ticks else None
    readers: list[int] = []
    pids: list[int] = []
    try:
        for _ in range(children):
            reader, writer = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: never returns
                inherited = [*readers, *([tick_pipe[0]] if tick_pipe else []), reader]
                _child(paths, queue, analyse, child_init, writer,
                       tick_pipe[1] if tick_pipe else None, inherited)
            os.close(writer)
            readers.append(reader)
            pids.append(pid)
    except BaseException:
        Children(paths, pids, readers, None, queue).kill()
        if tick_pipe is not None:
            for fd in tick_pipe:
                with contextlib.suppress(OSError):
                    os.close(fd)
        raise
    if tick_pipe is not None:
        os.close(tick_pipe[1])
        os.set_blocking(tick_pipe[0], False)
    return Children(paths, pids, readers, tick_pipe[0] if tick_pipe else None, queue)


def _child(
    paths: list[str],
    queue: int,
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
        while (taken := _take(queue, len(paths))) is not None:
            for k in taken:
                done.append((k, analyse(paths[k])))
                if ticks is not None:
                    with contextlib.suppress(BlockingIOError):
                        os.write(ticks, b".")
        view = memoryview(pickle.dumps(done, protocol=pickle.HIGHEST_PROTOCOL))
        while view:
            view = view[os.write(writer, view):]
        status = 0
    finally:
        os._exit(status)
