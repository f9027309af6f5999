"""The scout: file discovery and the byte prefilter in a forked child, while the parent analyses.

``check`` of a tree reads every file for the prefilter and analyses the few that name a target
(issue 13, item 6: the verl 0.5-0.8 tree, 1,446 files, 8 candidates). Done one after the other,
the run waits for the walk, then for every read, then for the analysis modules to import, then
for the analyses. With a scout, a forked child walks the tree and reads the files, sending each
candidate to the parent as soon as it is found; the parent imports the analysis modules
meanwhile and analyses each candidate as it arrives. Two cores then overlap the three.

The child sends, through a pipe, messages framed by their length (4 bytes), each a kind byte and
fields separated by NUL (paths as ``os.fsencode`` gives them, so any name survives):

- ``C size NUL path``: a file whose bytes name a target (size -1: unreadable);
- ``E path NUL message``: a directory the walk could not read (or a temporary file it could not
  remove), as :func:`ppo_migrate.project.discovery.discover_files` reports it to ``on_error``;
- ``S path NUL path ...``: files turned away whose bytes hold a star import
  (:data:`ppo_migrate.prefilter.STAR_IMPORT`), in order, up to ``_FILES_PER_MESSAGE`` a
  message, after the last candidate: the parent's look-out for re-exports reads these
  alone rather than every file again (benchmark item 1: 2,285 files, 46 MB, ~0.1 s);
- ``F path NUL path ...``: discovered files, sorted, as ``discover_files`` returns them, in
  order, up to ``_FILES_PER_MESSAGE`` a message;
- ``D``: done (every file has been sent);
- ``R name NUL message``: discovery refused the paths given (``name``: ``FileNotFoundError``,
  ``NotADirectoryError`` or ``PermissionError``).

No pickle: the child imports nothing it does not need (issue 13, item 6: every millisecond
of its walk is one of the run's).

The child writes no file and prints nothing: it only reads, and the parent reports what it
sends. It ends with ``os._exit``, running no exit handler. Linux only (``fork`` elsewhere is
unsafe, or spawns and re-imports everything).
"""

from __future__ import annotations

import os
import struct
from collections.abc import Sequence

TYPE_CHECKING = False  # ``typing`` is ~3 ms of a plain ``check``'s start: annotations only
if TYPE_CHECKING:
    from typing import Any

_LENGTH = struct.Struct("<I")
# The discovered files go in messages of this many paths: the parent decodes each as it comes
# (one message of 10,000 paths held ~2 MB of copies at once: peak RSS, issue 6's item 4).
_FILES_PER_MESSAGE = 1024
_REFUSALS = {e.__name__: e for e in (FileNotFoundError, NotADirectoryError, PermissionError)}


def applies(jobs: int | None, paths: Sequence[str]) -> bool:
    """Whether a ``check`` of ``paths`` runs with a scout.

    Args:
        jobs: ``--jobs`` (``None``: :func:`ppo_migrate.cli.modes.default_jobs`); 2 or more.
        paths: the command line's paths; a directory must be among them (a list of files,
            as pre-commit passes, is read faster than a process forks).

    Also: not with the pool forced (:data:`ppo_migrate.cli.modes.FORCE_POOL_ENV`, for the pool's
    own tests), on Linux only, where ``fork`` copies the process cheaply and safely, and
    only while no other thread runs.
    """
    import sys

    from ppo_migrate.cli.modes import FORCE_POOL_ENV, default_jobs

    if (jobs or default_jobs()) < 2 or os.environ.get(FORCE_POOL_ENV, "") == "1":
        return False
    if sys.platform != "linux" or not hasattr(os, "fork"):
        return False
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return False
    return any(p != "-" and os.path.isdir(p) for p in paths)


class Scout:
    """The parent's end of a scout: its pid and the pipe it writes to.

    Read with :meth:`messages` until it returns ``None`` (the pipe has ended) or the
    ``"done"`` message, then :meth:`finish`; :meth:`kill` stops it early (Ctrl-C).
    """

    def __init__(self, pid: int, reader: int) -> None:
        self.pid = pid
        self.reader = reader
        self._buffer = bytearray()
        self._ended = False

    def messages(self, wait: bool) -> list[tuple[Any, ...]] | None:
        """The messages that have arrived whole, without waiting; with ``wait``, at least
        one, waiting for it. ``None`` once the pipe has ended and none is left (a message
        cut short is dropped: :meth:`finish` then reports the failure).

        Each is ``("candidate", path, size)``, ``("error", path, message)``,
        ``("stars", paths)`` (the next files turned away that hold a star import),
        ``("files", paths)`` (the next discovered files, in order), ``("done",)`` or
        ``("refused", exception)``.

        Raises:
            ValueError: a message this module never sends.
        """
        import select

        out: list[tuple[Any, ...]] = []
        while True:
            self._parse(out)
            if self._ended or self.reader < 0:
                return out or None
            timeout = None if wait and not out else 0.0
            if not select.select([self.reader], [], [], timeout)[0]:
                return out
            chunk = os.read(self.reader, 1 << 16)
            if not chunk:
                self._ended = True
            self._buffer += chunk

    def _parse(self, out: list[tuple[Any, ...]]) -> None:
        buffer = self._buffer
        start = 0
        while len(buffer) - start >= _LENGTH.size:
            (n,) = _LENGTH.unpack_from(buffer, start)
            end = start + _LENGTH.size + n
            if len(buffer) < end:
                break
            out.append(_decode(bytes(buffer[start + _LENGTH.size : end])))
            start = end
        del buffer[:start]

    def finish(self) -> bool:
        """Reap the child, then close the pipe; ``True`` when it exited cleanly (status 0).

        In this order: the child ends itself (status 1) when it sees the pipe's reading end
        closed, which it could see between its last message and its own exit."""
        _, status = os.waitpid(self.pid, 0)  # a Ctrl-C here: the caller's kill() reaps it
        self.pid = -1
        self._close()
        return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0

    def kill(self) -> None:
        """Stop the child now (it writes nothing, so nothing is left half done) and reap it."""
        self._close()
        if self.pid > 0:
            import signal

            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass
            self.pid = -1

    def _close(self) -> None:
        if self.reader >= 0:
            os.close(self.reader)
            self.reader = -1


def start(paths: Sequence[str], settings) -> Scout:
    """Fork a scout for ``paths`` (the command line's) and ``settings``.

    Args:
        paths: files and directories as given (see :func:`ppo_migrate.project.discovery.discover_files`).
        settings: the run's :class:`ppo_migrate.settings_model.Settings`.

    Returns:
        The parent's :class:`Scout`. Call only where :func:`applies` is true.

    Raises:
        OSError: the pipe or the fork failed (too many processes, no memory).
    """
    reader, writer = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(reader)
        os.close(writer)
        raise
    if pid == 0:  # pragma: no cover - the child, which ends in os._exit (tested through the CLI)
        _child(paths, settings, reader, writer)
    os.close(writer)
    return Scout(pid, reader)


#: the files :func:`ppo_migrate.project.entry_points.spells_elsewhere` may answer ``True`` for
_ENTRY_POINT_HOLDERS = ("setup.cfg", "pyproject.toml", "setup.py")


def spells_elsewhere(path: str, data: bytes, names: Sequence[bytes]) -> bool:
    """:func:`ppo_migrate.project.entry_points.spells_elsewhere`, the prefilter's
    ``elsewhere`` for the scout and the runner, importing it (and :mod:`ast`) only at the
    first packaging file: a run that meets none starts without them (~6 ms, benchmark
    item 14's empty folder)."""
    if not path.endswith(_ENTRY_POINT_HOLDERS):
        return False
    from ppo_migrate.project.entry_points import spells_elsewhere as read

    return read(path, data, names)


def entry_point_holders(path: str, cache: dict) -> list[str]:
    """:func:`ppo_migrate.project.entry_points.entry_point_holders`, discovery's ``holders``
    for the scout and ``check``/``apply`` (fresh41, M3: a named ``ep.cfg`` is checked through
    the ``setup.cfg`` naming it), importing it only for a named file that is no source."""
    from ppo_migrate.project.entry_points import entry_point_holders as holders

    return holders(path, cache)


def _child(paths: Sequence[str], settings, reader: int, writer: int) -> None:  # pragma: no cover
    """The scout's whole life: discover, prefilter, send, ``_exit``."""
    code = 1
    try:
        import gc
        import signal

        gc.disable()  # a short life that leaves no cycles worth collecting
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C: the parent stops the run
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.close(reader)
        _end_with_parent(writer)
        from ppo_migrate.project.discovery import discover_files
        from ppo_migrate.prefilter import iter_candidates

        def on_error(path, message: str) -> None:
            _send(writer, b"E" + os.fsencode(path) + b"\0" + message.encode("utf-8", "replace"))

        try:
            files = discover_files(paths, settings, on_error=on_error, holders=entry_point_holders)
        except (FileNotFoundError, NotADirectoryError, PermissionError) as exc:
            _send(writer, f"R{type(exc).__name__}\0{exc}".encode("utf-8", "replace"))
        else:
            stars: list[str] = []
            for path, size in iter_candidates(files, settings, stars, spells_elsewhere):
                _send(writer, b"C%d\0" % size + os.fsencode(path))
            for kind, paths in ((b"S", stars), (b"F", files)):
                for start in range(0, len(paths), _FILES_PER_MESSAGE):
                    part = paths[start : start + _FILES_PER_MESSAGE]
                    _send(writer, kind + b"\0".join(map(os.fsencode, part)))
            _send(writer, b"D")
        code = 0
    except BaseException:  # noqa: BLE001 - the parent sees the failure and runs without a scout
        code = 1
    finally:
        os._exit(code)


def _end_with_parent(writer: int) -> None:  # pragma: no cover - in the child
    """End this child as soon as the parent has gone (killed, even with SIGKILL): the pipe's
    reading end closes and a thread polling the writing end sees it at once, where the
    walk would notice only at its next message (a tree without a candidate: at its end)."""
    import select
    import threading

    poller = select.poll()
    poller.register(writer, 0)  # POLLERR/POLLHUP are always reported

    def watch() -> None:
        while not poller.poll():
            pass
        os._exit(1)

    threading.Thread(target=watch, name="ppo-migrate-scout-lifeline", daemon=True).start()


def _send(fd: int, body: bytes) -> None:
    view = memoryview(_LENGTH.pack(len(body)) + body)
    while view:
        view = view[os.write(fd, view) :]


def _decode(body: bytes) -> tuple[Any, ...]:
    """A message's tuple (see :meth:`Scout.messages`) from its bytes."""
    kind, rest = body[:1], body[1:]
    if kind == b"C":
        size, path = rest.split(b"\0", 1)
        return ("candidate", os.fsdecode(path), int(size))
    if kind == b"E":
        path, message = rest.split(b"\0", 1)
        return ("error", os.fsdecode(path), message.decode("utf-8"))
    if kind == b"F":
        return ("files", [os.fsdecode(p) for p in rest.split(b"\0")])
    if kind == b"S":
        return ("stars", [os.fsdecode(p) for p in rest.split(b"\0")])
    if kind == b"D":
        return ("done",)
    if kind == b"R":
        name, message = rest.decode("utf-8").split("\0", 1)
        return ("refused", _REFUSALS[name](message))
    raise ValueError(f"scout: unknown message {body[:20]!r}")
