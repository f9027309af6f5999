"""Tests for ppo_migrate.files: reading, atomic writes, encodings."""

from __future__ import annotations

import codecs
import os
import socket
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from ppo_migrate import files
from ppo_migrate.files import (
    TEMP_PREFIX,
    TEMP_SUFFIX,
    FileChanged,
    SourceFile,
    UnreadableFile,
    UnwritableFile,
    atomic_write,
    decode_source,
    encode_source,
    is_temp_file,
    read_source,
)

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def leftovers(directory: Path) -> list[str]:
    return sorted(n for n in os.listdir(directory) if n.startswith(TEMP_PREFIX))


def write(path: Path, data: bytes, mode: int | None = None) -> Path:
    path.write_bytes(data)
    if mode is not None:
        os.chmod(path, mode)
    return path


# ------------------------------------------------------------------ temp names


def test_is_temp_file() -> None:
    assert is_temp_file(".ppo-migrate-a.py.k2j4_x9q.tmp")
    assert is_temp_file(".ppo-migrate-weird name.py.abcdefgh.tmp")
    assert not is_temp_file(".ppo-migrate-a.py.tmp")  # no random part
    assert not is_temp_file(".ppo-migrate-a.py.ABCDEFGH.tmp")  # mkstemp uses lower case
    assert not is_temp_file(".ppo-migrate-a.py.abcdefg.tmp")  # 7 characters
    assert not is_temp_file("ppo-migrate-a.py.abcdefgh.tmp")
    assert not is_temp_file(".ppo-migrate-a.py.abcdefgh.tmp.py")
    assert not is_temp_file("a.py")


def test_temp_name_used_by_atomic_write_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = write(tmp_path / "mod.py", b"a\n")
    seen: list[str] = []
    real_replace = os.replace

    def spy(src: str, dst: str) -> None:
        seen.append(os.path.basename(src))
        real_replace(src, dst)

    monkeypatch.setattr(files.os, "replace", spy)
    atomic_write(p, b"b\n", expected=read_source(p))
    assert len(seen) == 1
    assert seen[0].startswith(TEMP_PREFIX + "mod.py.") and seen[0].endswith(TEMP_SUFFIX)
    assert is_temp_file(seen[0])


# ------------------------------------------------------------------ read_source


def test_read_source(tmp_path: Path) -> None:
    p = write(tmp_path / "a.py", b"x = 1\r\ny = 2\r")
    src = read_source(p)
    assert src == SourceFile(p, b"x = 1\r\ny = 2\r", src.stat)
    assert src.stat.st_size == 13 and stat.S_ISREG(src.stat.st_mode)


def test_read_source_follows_symlink(tmp_path: Path) -> None:
    target = write(tmp_path / "real.py", b"pass\n")
    link = tmp_path / "link.py"
    link.symlink_to("real.py")
    src = read_source(link)
    assert src.path == link and src.data == b"pass\n"
    assert src.stat.st_ino == os.stat(target).st_ino  # the target's stat, not the link's


def test_read_empty_and_large(tmp_path: Path) -> None:
    assert read_source(write(tmp_path / "e.py", b"")).data == b""
    big = b"x = 1\n" * 3_000_000  # 18 MB
    assert read_source(write(tmp_path / "big.py", big)).data == big


def unreadable(path: Path) -> str:
    with pytest.raises(UnreadableFile) as e:
        read_source(path)
    return str(e.value)


def test_read_errors(tmp_path: Path) -> None:
    (tmp_path / "dir.py").mkdir()
    assert unreadable(tmp_path / "dir.py") == "cannot read: is a directory"

    os.mkfifo(tmp_path / "fifo.py")  # would block forever if opened
    assert unreadable(tmp_path / "fifo.py") == "cannot read: not a regular file (FIFO)"

    (tmp_path / "broken.py").symlink_to("missing.py")
    assert unreadable(tmp_path / "broken.py") == "cannot read: broken symlink"

    (tmp_path / "loop.py").symlink_to("loop.py")
    assert unreadable(tmp_path / "loop.py") == "cannot read: symlink loop"

    assert unreadable(tmp_path / "gone.py") == "cannot read: no such file"
    assert unreadable(Path("/dev/null")) == "cannot read: not a regular file (character device)"


def test_read_socket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # AF_UNIX paths are short: bind a relative name
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind("sock.py")
        assert unreadable(Path("sock.py")) == "cannot read: not a regular file (socket)"
    finally:
        s.close()


def test_read_fifo_via_symlink(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "f.py").symlink_to("fifo")
    assert unreadable(tmp_path / "f.py") == "cannot read: not a regular file (FIFO)"


def test_read_mode_000(tmp_path: Path) -> None:
    p = write(tmp_path / "secret.py", b"x = 1\n", mode=0o000)
    if IS_ROOT:
        # Root bypasses permission bits: the file is simply read. (The message for
        # an ordinary user is covered by the fault-injection test below.)
        assert read_source(p).data == b"x = 1\n"
    else:
        assert unreadable(p) == "cannot read: permission denied"


def test_read_permission_denied_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = write(tmp_path / "secret.py", b"x = 1\n")

    def denied(*args: object, **kwargs: object) -> int:  # fault injection: EACCES on open
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(files.os, "open", denied)
    assert unreadable(p) == "cannot read: permission denied"


# ------------------------------------------------------------------ atomic_write


def test_atomic_write_replaces_and_keeps_mode(tmp_path: Path) -> None:
    p = write(tmp_path / "run.py", b"old\n", mode=0o751)
    atomic_write(p, b"new\r\n", expected=read_source(p))
    assert p.read_bytes() == b"new\r\n"
    assert stat.S_IMODE(os.stat(p).st_mode) == 0o751
    assert leftovers(tmp_path) == []


def test_atomic_write_long_name(tmp_path: Path) -> None:
    p = write(tmp_path / ("m" * 240 + ".py"), b"old\n")
    atomic_write(p, b"new\n", expected=read_source(p))
    assert p.read_bytes() == b"new\n" and leftovers(tmp_path) == []


def test_atomic_write_through_symlink(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = write(tmp_path / "real" / "mod.py", b"old\n", mode=0o640)
    link = tmp_path / "link.py"
    link.symlink_to("real/mod.py")
    chain = tmp_path / "chain.py"
    chain.symlink_to("link.py")

    atomic_write(chain, b"new\n", expected=read_source(chain))
    assert chain.is_symlink() and os.readlink(chain) == "link.py"
    assert link.is_symlink() and os.readlink(link) == "real/mod.py"
    assert target.read_bytes() == b"new\n" and not target.is_symlink()
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert leftovers(tmp_path) == [] and leftovers(tmp_path / "real") == []


def test_atomic_write_read_only_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = write(tmp_path / "ro.py", b"old\n", mode=0o444)
    if IS_ROOT:
        # Root could open it for writing in place, so it is rewritten; mode stays 0o444.
        atomic_write(p, b"new\n", expected=read_source(p))
        assert p.read_bytes() == b"new\n"
        assert stat.S_IMODE(os.stat(p).st_mode) == 0o444
        p = write(tmp_path / "ro2.py", b"old\n", mode=0o444)
        # Fault injection: what an ordinary user's access(W_OK) answers.
        monkeypatch.setattr(files.os, "access", lambda path, mode: False)
    with pytest.raises(UnwritableFile) as e:
        atomic_write(p, b"new\n", expected=read_source(p))
    assert isinstance(e.value, PermissionError) and e.value.errno == 13
    assert e.value.strerror == "read-only file"
    assert str(e.value) == "cannot write: read-only file"
    assert p.read_bytes() == b"old\n" and leftovers(tmp_path) == []


def refused(p: Path, src: SourceFile) -> str:
    with pytest.raises(FileChanged) as e:
        atomic_write(p, b"NEW\n", expected=src)
    return str(e.value)


def test_refuses_when_size_changed(tmp_path: Path) -> None:
    p = write(tmp_path / "a.py", b"old\n")
    src = read_source(p)
    with open(p, "ab") as f:
        f.write(b"more\n")
    assert refused(p, src) == "changed on disk since it was read (size)"
    assert p.read_bytes() == b"old\nmore\n" and leftovers(tmp_path) == []


def test_refuses_when_mtime_changed(tmp_path: Path) -> None:
    p = write(tmp_path / "a.py", b"old\n")
    src = read_source(p)
    os.utime(p, ns=(src.stat.st_atime_ns, src.stat.st_mtime_ns + 1_000_000_000))
    assert refused(p, src) == "changed on disk since it was read (mtime)"
    assert p.read_bytes() == b"old\n"


def test_refuses_when_content_changed_same_size_and_mtime(tmp_path: Path) -> None:
    p = write(tmp_path / "a.py", b"old\n")
    src = read_source(p)
    with open(p, "r+b") as f:  # same inode, same size ...
        f.write(b"OLD\n")
    os.utime(p, ns=(src.stat.st_atime_ns, src.stat.st_mtime_ns))  # ... and the old mtime
    assert refused(p, src) == "changed on disk since it was read (content)"
    assert p.read_bytes() == b"OLD\n" and leftovers(tmp_path) == []


def test_refuses_when_replaced_or_deleted(tmp_path: Path) -> None:
    p = write(tmp_path / "a.py", b"old\n")
    src = read_source(p)
    write(tmp_path / "other", b"old\n")
    os.replace(tmp_path / "other", p)  # an editor's atomic save: a new inode
    assert refused(p, src) == "replaced on disk since it was read"
    src = read_source(p)
    p.unlink()
    assert refused(p, src) == "deleted since it was read"
    assert leftovers(tmp_path) == []


def test_refuses_when_changed_just_before_replace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = write(tmp_path / "a.py", b"old\n")
    src = read_source(p)
    real_fsync = os.fsync

    def fsync_then_concurrent_write(fd: int) -> None:
        # Fault injection: another writer changes the file while ours is being fsynced.
        real_fsync(fd)
        with open(p, "ab") as f:
            f.write(b"theirs\n")

    monkeypatch.setattr(files.os, "fsync", fsync_then_concurrent_write)
    assert refused(p, src) == "changed on disk since it was read (size)"
    assert p.read_bytes() == b"old\ntheirs\n" and leftovers(tmp_path) == []


def test_no_temp_file_after_replace_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = write(tmp_path / "a.py", b"old\n")
    src = read_source(p)

    def broken_replace(src_: str, dst: str) -> None:  # fault injection
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "replace", broken_replace)
    with pytest.raises(OSError, match="No space left"):
        atomic_write(p, b"new\n", expected=src)
    assert p.read_bytes() == b"old\n" and leftovers(tmp_path) == []


@pytest.mark.parametrize("where", ["fsync", "fchmod", "replace"])
def test_no_temp_file_after_keyboard_interrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    p = write(tmp_path / "a.py", b"old\n")
    src = read_source(p)

    def interrupted(*args: object) -> None:  # fault injection: Ctrl-C at this step
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, where, interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(p, b"new\n", expected=src)
    assert p.read_bytes() == b"old\n" and leftovers(tmp_path) == []


def test_directory_fsync_is_best_effort(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = write(tmp_path / "a.py", b"old\n")
    src = read_source(p)
    real_open = os.open

    def no_dir_open(path: str, flags: int, *args: object) -> int:  # fault injection
        if os.path.isdir(path):
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args)

    monkeypatch.setattr(files.os, "open", no_dir_open)
    atomic_write(p, b"new\n", expected=src)
    assert p.read_bytes() == b"new\n"


# ------------------------------------------------------------------ encodings


def test_decode_examples() -> None:
    assert decode_source(b"x = 1\r\ny = 2\rz\n") == ("x = 1\r\ny = 2\rz\n", "utf-8", False)
    assert decode_source(codecs.BOM_UTF8 + "é = 1\n".encode()) == ("é = 1\n", "utf-8", True)
    latin = b"# -*- coding: latin-1 -*-\ns = '\xe9'\n"
    assert decode_source(latin) == ("# -*- coding: latin-1 -*-\ns = 'é'\n", "iso-8859-1", False)
    cp = b"#!/usr/bin/env python\n# coding: cp1252\ns = '\x80'\n"
    assert decode_source(cp) == (
        "#!/usr/bin/env python\n# coding: cp1252\ns = '€'\n",
        "cp1252",
        False,
    )
    assert decode_source(b"") == ("", "utf-8", False)


def test_decode_finds_the_cookie_on_lines_split_as_python_splits_them() -> None:
    """Bug: with CR-only line endings ``tokenize.detect_encoding`` (fed lines split at
    ``\\n``) took the whole file for line 1 and refused its Latin-1 bytes (PPO901),
    though Python, which splits at ``\\r\\n``, ``\\r`` and ``\\n``, runs it."""
    cr = b"# -*- coding: latin-1 -*-\rs = '\xe9'\rt = 1\r"
    assert decode_source(cr) == ("# -*- coding: latin-1 -*-\rs = '\xe9'\rt = 1\r", "iso-8859-1", False)
    assert encode_source(*decode_source(cr)) == cr
    second = b"#!/usr/bin/env python\r# coding: cp1252\rs = '\x80'"  # the cookie on line 2
    assert decode_source(second) == ("#!/usr/bin/env python\r# coding: cp1252\rs = '\u20ac'", "cp1252", False)
    crlf = b"# coding: latin-1\r\ns = '\xe9'\r\n"
    assert decode_source(crlf)[1] == "iso-8859-1"
    # line 3 is too late for a cookie, also when lines end in CR (Python refuses it too)
    with pytest.raises(UnicodeDecodeError):
        decode_source(b"a = 1\rb = 2\r# coding: latin-1\rs = '\xe9'\r")


def test_decode_errors() -> None:
    # Latin-1 bytes without a cookie: the same error on line 1 (where
    # tokenize.detect_encoding would say SyntaxError) as on line 3.
    with pytest.raises(UnicodeDecodeError) as e:
        decode_source(b"s = '\xe9'\n")
    assert e.value.start == 5
    with pytest.raises(UnicodeDecodeError) as e:
        decode_source(b"a = 1\nb = 2\ns = '\xe9'\n")
    assert e.value.start == 17
    with pytest.raises(SyntaxError):
        decode_source(b"# coding: no-such-codec\n")
    with pytest.raises(SyntaxError):
        decode_source(codecs.BOM_UTF8 + b"# coding: latin-1\n")
    with pytest.raises(UnicodeDecodeError):
        decode_source(b"# coding: cp1252\ns = '\x81'\n")  # undefined in cp1252


def test_encode_accepts_utf8_sig() -> None:
    assert encode_source("x\n", "utf-8-sig", False) == codecs.BOM_UTF8 + b"x\n"
    assert encode_source("x\n", "utf-8", True) == codecs.BOM_UTF8 + b"x\n"


# Source-like text: code points the encoding can represent, with every kind of line end.
_NO_SURROGATES = st.characters(blacklist_categories=("Cs",))
_CP1252_CHARS = sorted(
    {bytes([b]).decode("cp1252") for b in range(256) if b not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)}
)
_LINE_ENDS = st.sampled_from(["\n", "\r\n", "\r", ""])


def _source(chars: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    line = st.text(chars, max_size=20)
    return st.lists(st.tuples(line, _LINE_ENDS), max_size=6).map(
        lambda parts: "".join(a + b for a, b in parts)
    )


COOKIES = {
    "utf-8": "# -*- coding: utf-8 -*-\n",
    "iso-8859-1": "# -*- coding: latin-1 -*-\n",
    "cp1252": "# vim: set fileencoding=cp1252 :\r\n",
}


@hsettings(max_examples=100, deadline=None)
@given(
    data=st.one_of(
        st.tuples(st.just("utf-8"), st.booleans(), _source(_NO_SURROGATES)),
        st.tuples(st.just("iso-8859-1"), st.just(False), _source(st.characters(max_codepoint=255))),
        st.tuples(st.just("cp1252"), st.just(False), _source(st.sampled_from(_CP1252_CHARS))),
    )
)
def test_encoding_round_trip(data: tuple[str, bool, str]) -> None:
    encoding, bom, body = data
    text = COOKIES[encoding] + body
    raw = encode_source(text, encoding, bom)
    assert raw.startswith(codecs.BOM_UTF8) == bom
    assert decode_source(raw) == (text, encoding, bom)  # text -> bytes -> text
    assert encode_source(*decode_source(raw)) == raw  # bytes -> text -> bytes


@hsettings(max_examples=100, deadline=None)
@given(body=st.binary(max_size=200))
def test_latin1_bytes_round_trip(body: bytes) -> None:
    raw = b"# coding: latin-1\n" + body
    assert encode_source(*decode_source(raw)) == raw


def test_utf8_source_re_encodes_what_a_cookie_declares() -> None:
    """The caller phase searches names (UTF-8) in these bytes: a Latin-1 file's ``é`` and a
    UTF-7 file's ``+AGw-`` (``l``, in ASCII bytes: a fresh tester's caller was missed) are
    re-encoded; UTF-8 and plain ASCII are the bytes themselves; undecodable is ``None``."""
    from ppo_migrate.files import utf8_source

    plain = b"from pkg.lib import launch\n"
    assert utf8_source(plain) is plain
    utf8 = "# caf\u00e9\nfrom pkg.lib import launch\n".encode()
    assert utf8_source(utf8) is utf8
    assert utf8_source(b"# -*- coding: utf-7 -*-\nfrom pkg.+AGw-ib import launch\n") == (
        b"# -*- coding: utf-7 -*-\nfrom pkg.lib import launch\n"
    )
    assert utf8_source(b"# -*- coding: latin-1 -*-\ndef _\xe9nv(): pass\n") == (
        "# -*- coding: latin-1 -*-\ndef _\u00e9nv(): pass\n".encode()
    )
    assert utf8_source(b"x = '\xff'\n") is None  # not UTF-8, no cookie: it cannot run
