"""Reading source bytes and writing them back atomically.

Guarantees (issue 5):

* :func:`read_source` never opens something that is not a regular file (a FIFO
  would block, a device could be endless); every failure is an
  :class:`UnreadableFile` with a one-line reason.
* :func:`atomic_write` writes a temporary file in the same directory, fsyncs
  it, gives it the original's mode bits (and owner, best effort), checks the
  original did not change since it was read, ``os.replace``-s it over the
  original and fsyncs the directory. A file is therefore either untouched or
  completely rewritten; the temporary file is removed on any exception,
  including ``KeyboardInterrupt``. A leftover from a killed run is recognised by
  :func:`is_temp_file` (discovery skips and deletes it).
* :func:`decode_source` / :func:`encode_source` are exact inverses, so bytes the
  codemod does not touch come back unchanged (encoding cookies, BOM, CRLF/CR).

Decisions:

* Symlinks: :func:`atomic_write` writes through a symlink to its final target;
  the link itself stays a link.
* Read-only files: the replacement is done only when the file could have been
  opened for writing in place (``os.access(target, os.W_OK)``), i.e. exactly
  when ruff, black or LibCST's ``open(path, "wb")`` would have succeeded. A
  read-only file (mode ``0o444``) is refused with :class:`UnwritableFile` for an
  ordinary user — the rename trick must not bypass a protection the user set;
  root may write it, and its mode stays ``0o444``.
"""

import codecs
import errno
import os
import re
import stat as _stat
from pathlib import Path

from ppo_migrate.patterns import lazy_pattern

__all__ = [
    "TEMP_PREFIX",
    "TEMP_SUFFIX",
    "is_temp_file",
    "SourceFile",
    "UnreadableFile",
    "UnwritableFile",
    "FileChanged",
    "read_source",
    "atomic_write",
    "decode_source",
    "utf8_source",
    "encode_source",
    "text_bom",
    "decode_text",
    "utf8_text",
]

TEMP_PREFIX = ".ppo-migrate-"
TEMP_SUFFIX = ".tmp"
# Longest part of the original name kept in a temp name, so that
# ".ppo-migrate-" + name + "." + 8 random chars + ".tmp" stays under NAME_MAX (255).
_MAX_NAME_IN_TEMP = 200
# tempfile.mkstemp's random part: 8 characters of [a-z0-9_].
_TEMP_RE = lazy_pattern(r"\.ppo-migrate-.+\.[a-z0-9_]{8}\.tmp\Z", re.DOTALL)


def is_temp_file(name: str) -> bool:
    """Whether ``name`` (a base name, not a path) is one of :func:`atomic_write`'s temp files.

    Args:
        name: a file name such as ``".ppo-migrate-a.py.k2j4_x9q.tmp"``.

    Returns:
        True only for the exact pattern
        ``.ppo-migrate-{original name}.{8 random [a-z0-9_]}.tmp``.
    """
    return name.startswith(TEMP_PREFIX) and _TEMP_RE.match(name) is not None


class SourceFile:
    """The bytes of a source file and the stat they were read under.

    Attributes:
        path: the path as given (may be a symlink).
        data: the file's bytes.
        stat: ``os.stat_result`` of the file that was read (the symlink's
            target), taken before reading; :func:`atomic_write` compares it.

    A plain class, not a ``typing.NamedTuple``: the scout process imports this module (for
    the temporary files' names) and ``typing`` is ~3 ms of its start (issue 13, item 6).
    """

    __slots__ = ("data", "path", "stat")

    def __init__(self, path: Path, data: bytes, stat: os.stat_result) -> None:
        self.path = path
        self.data = data
        self.stat = stat

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SourceFile):
            return NotImplemented
        return (self.path, self.data, self.stat) == (other.path, other.data, other.stat)

    __hash__ = None  # type: ignore[assignment]  # compared by value, as the tuple was

    def __repr__(self) -> str:
        return f"SourceFile(path={self.path!r}, data=<{len(self.data)} bytes>, stat={self.stat!r})"


class UnreadableFile(Exception):
    """The file cannot be read (rule PPO901).

    ``str(err)`` is one line such as ``"cannot read: permission denied"``;
    the path is not part of the message, the caller adds it.
    """


class UnwritableFile(PermissionError):
    """The file may not be written (read-only for this user); a :class:`PermissionError`.

    ``err.errno`` is ``EACCES``, ``err.strerror`` ``"read-only file"`` and
    ``str(err)`` one line without the path: ``"cannot write: read-only file"``.
    """

    def __str__(self) -> str:
        return f"cannot write: {self.strerror}"


class FileChanged(Exception):
    """The file changed on disk since it was read; it was not overwritten (rule PPO904).

    ``str(err)`` is one line without the path, e.g.
    ``"changed on disk since it was read (content)"``.
    """


_KIND = (
    (_stat.S_ISDIR, "is a directory"),
    (_stat.S_ISFIFO, "not a regular file (FIFO)"),
    (_stat.S_ISSOCK, "not a regular file (socket)"),
    (_stat.S_ISCHR, "not a regular file (character device)"),
    (_stat.S_ISBLK, "not a regular file (block device)"),
)


def _kind_problem(mode: int) -> str | None:
    if _stat.S_ISREG(mode):
        return None
    for test, what in _KIND:
        if test(mode):
            return what
    return "not a regular file"


def _os_reason(e: OSError, path: str | os.PathLike[str]) -> str:
    if e.errno == errno.ENOENT:
        return "broken symlink" if os.path.islink(path) else "no such file"
    if e.errno == errno.ELOOP:
        return "symlink loop"
    if e.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if e.errno == errno.EISDIR:
        return "is a directory"
    return (e.strerror or str(e)).lower()


def read_source(path: Path) -> SourceFile:
    """Read a source file's bytes.

    The file is stat-ed first (following symlinks) and opened only if it is a
    regular file, so a FIFO, socket or device is never opened. It is opened with
    ``O_NONBLOCK`` and checked again with ``fstat``, so a file swapped for a FIFO
    between the two calls cannot block the run either.

    Args:
        path: the file (a symlink is followed).

    Returns:
        A :class:`SourceFile` with the bytes and the ``stat`` of the file read.

    Raises:
        UnreadableFile: with ``"cannot read: <reason>"`` for a directory, a FIFO,
            socket or device, a broken symlink or symlink loop, a missing file,
            a permission error, or any other ``OSError``.
    """
    try:
        st = os.stat(path)
    except OSError as e:
        raise UnreadableFile(f"cannot read: {_os_reason(e, path)}") from None
    problem = _kind_problem(st.st_mode)
    if problem:
        raise UnreadableFile(f"cannot read: {problem}")
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        raise UnreadableFile(f"cannot read: {_os_reason(e, path)}") from None
    try:
        fst = os.fstat(fd)
        problem = _kind_problem(fst.st_mode)
        if problem:
            raise UnreadableFile(f"cannot read: {problem}")
        chunks = []
        while True:
            chunk = os.read(fd, max(fst.st_size + 1, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
        data = b"".join(chunks)
    except OSError as e:
        raise UnreadableFile(f"cannot read: {_os_reason(e, path)}") from None
    finally:
        os.close(fd)
    return SourceFile(Path(path), data, fst)


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _changed(
    target: str, expected: SourceFile, *, content: bool
) -> tuple[str | None, os.stat_result | None]:
    """Compare ``target`` with what was read; return (reason or None, current stat)."""
    try:
        st = os.stat(target)
    except FileNotFoundError:
        return "deleted since it was read", None
    except OSError as e:
        return f"cannot stat: {_os_reason(e, target)}", None
    old = expected.stat
    if (st.st_dev, st.st_ino) != (old.st_dev, old.st_ino):
        return "replaced on disk since it was read", st
    if st.st_size != old.st_size:
        return "changed on disk since it was read (size)", st
    if st.st_mtime_ns != old.st_mtime_ns:
        return "changed on disk since it was read (mtime)", st
    if content:
        try:
            now = _read_bytes(target)
        except OSError as e:
            return f"cannot re-read: {_os_reason(e, target)}", st
        if now != expected.data:
            return "changed on disk since it was read (content)", st
    return None, st


def _fsync_dir(directory: str) -> None:
    """fsync a directory so a rename in it is durable (best effort)."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes, *, expected: SourceFile) -> None:
    """Replace the file's content with ``data`` atomically.

    Steps: resolve a symlink to its target (the link stays a link); check the
    target still has the expected device/inode, size, ``mtime_ns`` and bytes;
    write ``data`` to ``.ppo-migrate-{name}.{random}.tmp`` in the target's
    directory, flush and fsync it, copy the mode bits (and owner/group, best
    effort); check the target's stat once more right before ``os.replace``
    (narrowing the race with other writers); replace; fsync the directory
    (best effort). The temp file is removed on any exception, including
    ``KeyboardInterrupt``.

    Args:
        path: the file to rewrite (as given; may be a symlink).
        data: the new bytes.
        expected: what :func:`read_source` returned for ``path``.

    Raises:
        FileChanged: the file was modified, replaced or deleted since it was read.
        UnwritableFile: the file is read-only for this user (see the module
            docstring); nothing was written.
        OSError: creating or writing the temp file or the replace failed (e.g.
            the directory is not writable, the disk is full); the original is
            untouched.
    """
    target = os.path.realpath(path) if os.path.islink(path) else os.fspath(path)
    reason, st = _changed(target, expected, content=True)
    if reason:
        raise FileChanged(reason)
    assert st is not None
    if not os.access(target, os.W_OK):
        raise UnwritableFile(errno.EACCES, "read-only file")

    directory, name = os.path.split(target)
    directory = directory or os.curdir
    tmp: str | None = None
    try:
        import tempfile  # here: only a write needs it (random, shutil, ...)

        fd, tmp = tempfile.mkstemp(
            prefix=TEMP_PREFIX + name[:_MAX_NAME_IN_TEMP] + ".",
            suffix=TEMP_SUFFIX,
            dir=directory,
        )
        with open(fd, "wb", closefd=True) as f:
            f.write(data)
            f.flush()
            try:
                os.fchown(f.fileno(), st.st_uid, st.st_gid)
            except OSError:
                pass  # not root: the temp file is ours, as a new file would be
            os.fchmod(f.fileno(), _stat.S_IMODE(st.st_mode))
            os.fsync(f.fileno())
        reason, _ = _changed(target, expected, content=False)
        if reason:
            raise FileChanged(reason)
        os.replace(tmp, target)
        tmp = None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    _fsync_dir(directory)


# --------------------------------------------------------------------------- text


# One line as Python's tokenizer ends it: at "\r\n", "\r" or "\n" (the last may have none).
_TOKENIZER_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)?")


def _tokenizer_lines(data: bytes):
    """A ``readline`` over ``data`` that splits lines as Python's tokenizer does; ``b""`` at the end.

    ``io.BytesIO.readline`` splits at ``"\\n"`` only, so for a file with CR-only line
    endings :func:`tokenize.detect_encoding` would take the whole file for its first line.
    """
    position = 0

    def readline() -> bytes:
        nonlocal position
        match = _TOKENIZER_LINE.match(data, position)
        line = match.group() if match else b""
        position += len(line)
        return line

    return readline


def decode_source(data: bytes) -> tuple[str, str, bool]:
    """Decode Python source bytes the way the interpreter would, without newline translation.

    The encoding comes from :func:`tokenize.detect_encoding` (PEP 263 cookie,
    UTF-8 BOM, default UTF-8), fed the first two lines as Python's tokenizer
    splits them: at ``"\\r\\n"``, ``"\\r"`` or ``"\\n"`` (a file with CR-only line
    endings has its cookie on its first line too). ``"\\r\\n"`` and ``"\\r"`` are
    kept as they are.

    Args:
        data: the file's bytes.

    Returns:
        ``(text, encoding, had_bom)``: the text (without the BOM), the codec name
        as normalised by ``tokenize`` (``"utf-8"``, ``"iso-8859-1"``,
        ``"cp1252"``, ...; never ``"utf-8-sig"``) and whether the bytes began
        with a UTF-8 BOM.

    Raises:
        UnicodeDecodeError: bytes not valid in the declared (or default UTF-8)
            encoding, on any line (``err.start`` is the byte offset).
        SyntaxError: a bad declaration: an unknown encoding in the cookie, or a
            BOM with a non-UTF-8 cookie (from ``tokenize.detect_encoding``).
    """
    import tokenize  # here: the scout (ppo_migrate.cli.scout) imports this module, never decodes

    try:
        encoding, _ = tokenize.detect_encoding(_tokenizer_lines(data))
    except SyntaxError:
        # detect_encoding reports bytes that are not UTF-8 in the first two
        # lines as a missing declaration; report them like invalid bytes on any
        # other line, as a UnicodeDecodeError with their position.
        if not data.startswith(codecs.BOM_UTF8):
            data.decode("utf-8")
        raise
    had_bom = data.startswith(codecs.BOM_UTF8)
    if had_bom:
        # detect_encoding says "utf-8-sig"; decode past the BOM with plain UTF-8.
        return data[len(codecs.BOM_UTF8) :].decode("utf-8"), "utf-8", True
    return data.decode(encoding), encoding, False


#: Where a PEP 263 cookie may stand: the first two lines, as Python's tokenizer splits them.
_FIRST_TWO_LINES = re.compile(rb"[^\r\n]*(?:\r\n?|\n)?[^\r\n]*")


def utf8_source(data: bytes) -> bytes | None:
    """A source file's bytes in UTF-8, for byte searches of names (which are UTF-8):
    ``data`` itself when it is ASCII or UTF-8 (a BOM kept), else its text re-encoded
    (a PEP 263 cookie's ``latin-1``: ``_énv`` is ``b"_\\xe9nv"`` there).

    Args:
        data: the file's bytes.

    Returns:
        The UTF-8 bytes, or ``None`` when the file does not decode (it cannot run).
    """
    if data.isascii() and b"coding" not in _FIRST_TWO_LINES.match(data).group():
        return data  # (a cookie's UTF-7 spells ``lib`` as ``+AGw-ib`` in ASCII bytes)
    try:
        text, encoding, _ = decode_source(data)
    except (UnicodeDecodeError, SyntaxError):
        return None
    return data if encoding == "utf-8" else text.encode("utf-8", "surrogateescape")


#: The byte-order marks a text file may open with and the codec each names, UTF-32's first:
#: UTF-32 LE's mark (``FF FE 00 00``) begins with UTF-16 LE's (``FF FE``).
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def text_bom(data: bytes) -> tuple[str, int]:
    """The codec a text file's byte-order mark names and the mark's length in bytes.

    Source of the rule: pip decodes a requirements file by its BOM (``auto_decode`` in
    ``pip/_internal/utils/encoding.py``: UTF-8, UTF-16 and UTF-32, either byte order), which
    is how Windows PowerShell 5's ``pip freeze > requirements.txt`` (UTF-16 LE) and an
    editor's UTF-8 BOM are read (trial 26d). The UTF-32 marks are tried first.

    Args:
        data: the file's bytes (its start is enough).

    Returns:
        ``(codec, length)``; ``("utf-8", 0)`` when the bytes open with no mark.
    """
    if data[:1] in (b"\xef", b"\xfe", b"\xff", b"\x00"):
        for bom, codec in _BOMS:
            if data.startswith(bom):
                return codec, len(bom)
    return "utf-8", 0


def decode_text(data: bytes, errors: str = "strict") -> str:
    """A dependency file's text (a requirements file, ``pyproject.toml``, ``setup.cfg``,
    ``environment.yml``, a Dockerfile, ...): decoded by its byte-order mark
    (:func:`text_bom`, as pip reads requirement files), else as UTF-8; the mark is not part
    of the text. Newlines are kept as they are.

    Args:
        data: the file's bytes.
        errors: the codec's error handler (``"strict"``, ``"replace"``).

    Returns:
        The text.

    Raises:
        UnicodeDecodeError: with ``errors="strict"``, bytes not valid in that encoding.
    """
    codec, skip = text_bom(data)
    return (data[skip:] if skip else data).decode(codec, errors)


def utf8_text(data: bytes) -> bytes:
    """A text file's bytes in UTF-8, for byte searches (``names_verl``, ``b"install" in
    data``): ``data`` itself unless it opens with a UTF-16 or UTF-32 byte-order mark
    (:func:`text_bom`), whose text (errors replaced) is re-encoded, its mark dropped.

    Args:
        data: the file's bytes.

    Returns:
        UTF-8 bytes (a UTF-8 file's mark kept: it is UTF-8 already).
    """
    codec, skip = text_bom(data)
    if codec == "utf-8":
        return data
    return data[skip:].decode(codec, "replace").encode("utf-8")


def encode_source(text: str, encoding: str, had_bom: bool) -> bytes:
    """Encode text back to bytes; the exact inverse of :func:`decode_source`.

    Args:
        text: the source text (no BOM).
        encoding: a codec name, as returned by :func:`decode_source`
            (``"utf-8-sig"`` is accepted and treated as UTF-8 with a BOM).
        had_bom: prepend a UTF-8 BOM.

    Returns:
        The bytes; ``encode_source(*decode_source(b)) == b`` for every ``b``
        that decodes.

    Raises:
        UnicodeEncodeError: ``text`` has characters the encoding cannot represent.
    """
    if codecs.lookup(encoding).name == "utf-8-sig":
        encoding, had_bom = "utf-8", True
    data = text.encode(encoding)
    return codecs.BOM_UTF8 + data if had_bom else data
