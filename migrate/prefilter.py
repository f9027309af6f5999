"""The byte prefilter: which files can name a target, from their bytes alone.

Most files stop here: a file whose bytes contain none of the targets' last names cannot
refer to a target (every static reference to a function names it), so it is never decoded
or parsed. Python folds some non-ASCII spellings into ASCII names (NFKC), checked for files
with non-ASCII bytes (:func:`spells_otherwise`). Light to import: the scout process
(:mod:`ppo_migrate.cli.scout`) runs it without the runner or the analysis.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Sequence
from stat import S_ISREG


def is_candidate(
    data: bytes, names: Sequence[bytes], path: str | None = None, elsewhere=None, receivers: Sequence[bytes] = ()
) -> bool:
    """The byte prefilter: does the file name any target?

    Args:
        data: the file's raw bytes.
        names: the targets' last names, encoded (e.g. ``b"get_ppo_ray_runtime_env"``).
        path: the file's path, when known: a ``pyproject.toml`` may spell a name with
            TOML's ``\\u`` escapes (:func:`spells_escaped`).
        elsewhere: ``(path, data, names) -> bool``, what other files spell for this one
            (:func:`ppo_migrate.project.entry_points.spells_elsewhere`), asked with a path.

    A file with non-ASCII bytes may spell a name with characters Python folds into it
    (NFKC: ``ｇet_ppo_ray_runtime_env`` is ``get_ppo_ray_runtime_env`` to Python):
    see :func:`spells_otherwise`.

    ``receivers``: the longest part of each target's module name, encoded (``b"constants_ppo"``):
    a file naming one that reads an attribute by a computed name is a candidate too
    (:func:`builds_name`).
    """
    return any(n in data for n in names) or (not data.isascii() and spells_otherwise(data, names)) \
        or (path is not None and (
            spells_escaped(path, data, names) or (elsewhere is not None and elsewhere(path, data, names))
            or builds_name(data, receivers)
        ))


#: the spellings that read an attribute by a name computed at run time: ``getattr(cp,
#: "get_" + ...)``, ``vars(cp)[...]``, ``cp.__dict__[...]``
_BY_NAME = (b"getattr", b"vars", b"__dict__")


def builds_name(data: bytes, receivers: Sequence[bytes]) -> bool:
    """Whether ``data`` names one of ``receivers`` (the longest part of a target's module) and
    reads an attribute by name (:data:`_BY_NAME`): a call of the runtime function through
    a name built from parts (``getattr(cp, "get_ppo_ray_" + "runtime_env")()``,
    ``"_".join([...])``, an f-string of a constant) spells no target's name (earlier
    trials' MISSED rows). The receiver is looked for in the file's first
    :data:`RECEIVER_HEAD` bytes, where its imports stand: a file that imports it only
    further down (in a function) and spells no target's name is not read.

    Args:
        data: the file's raw bytes.
        receivers: the targets' modules' last names, encoded.
    """
    return any(data.find(r, 0, RECEIVER_HEAD) >= 0 for r in receivers) and any(w in data for w in _BY_NAME)


#: :func:`builds_name` looks for a receiver in a file's first bytes only, where its imports
#: stand: the whole file was one more search of every file a tree's no-hit files (+18 ms
#: of torch's 2,352 files, ~5% of benchmark item 1's ``check``), its first 8 kB +5 ms
RECEIVER_HEAD = 8192


#: the packaging file whose strings :mod:`tomllib` decodes (entry points, trial 26h)
_ESCAPING_FILE = "pyproject.toml"
_ESCAPES = re.compile(rb"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")


def spells_escaped(path: str, data: bytes, names: Sequence[bytes]) -> bool:
    """Whether a ``pyproject.toml`` spells one of ``names`` once its ``\\uXXXX`` and
    ``\\UXXXXXXXX`` escapes are read (``"...:get_ppo_ray_runtime_en\\u0076"``: TOML's basic
    strings decode them, and the entry point then names the function; trial 26h). Any other
    file, or one with no such escape, answers ``False`` at once. What another file spells
    for this one (an entry-points file a ``setup.cfg`` names, a module a ``setup.py``
    imports) is asked by the callers' ``elsewhere``
    (:func:`ppo_migrate.project.entry_points.spells_elsewhere`): this module reads no file
    but the one given, and imports nothing of the project.

    Args:
        path: the file's path (its base name decides).
        data: its raw bytes.
        names: the targets' last names, encoded.
    """
    if not path.endswith(_ESCAPING_FILE) or os.path.basename(path) != _ESCAPING_FILE:
        return False
    if b"\\u" not in data and b"\\U" not in data:
        return False

    def one(m: re.Match) -> bytes:
        code = int(m.group(1) or m.group(2), 16)
        if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            return m.group()
        return chr(code).encode("utf-8")

    read = _ESCAPES.sub(one, data)
    return any(n in read for n in names)


_ASCII_BYTES = bytes(range(128))


def spells_otherwise(data: bytes, names: Sequence[bytes]) -> bool:
    """Whether the NFKC form of a non-ASCII file's text holds one of ``names``.

    Python NFKC-normalises identifiers, so a name may be written with compatibility
    characters (full-width letters, ligatures, mathematical alphanumerics). Only
    non-ASCII characters that fold into a character of the names can be part of such
    a spelling, so the file's non-ASCII bytes alone (``bytes.translate``) are checked
    first: already in NFKC (``unicodedata.is_normalized``), or with no character
    folding into one of the names' (CJK comments, whose full-width punctuation and
    digits fold into other ASCII), they spell nothing. Only otherwise is the whole
    text folded.
    Undecodable bytes are replaced: a cookie-declared 8-bit encoding's identifiers do
    not fold into ASCII letters.
    """
    import unicodedata

    rest = data.translate(None, _ASCII_BYTES).decode("utf-8", "replace")
    if unicodedata.is_normalized("NFKC", rest):
        return False
    wanted = [n.decode("utf-8", "replace") for n in names]
    letters = set("".join(wanted))
    if not any(set(unicodedata.normalize("NFKC", c)) & letters for c in set(rest)):
        return False  # nothing folds into a character of the names
    folded = unicodedata.normalize("NFKC", data.decode("utf-8", "replace"))
    return any(n in folded for n in wanted)


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)


def read_bytes(path: str) -> bytes:
    """The file's bytes with one ``read`` for a regular file (no buffered file object).

    Raises:
        OSError: also for anything but a regular file; a FIFO is opened without
            blocking (``O_NONBLOCK``) and never read, so it cannot hang the run.
    """
    fd = os.open(path, _READ_FLAGS)
    try:
        st = os.fstat(fd)
        if not S_ISREG(st.st_mode):
            raise OSError(f"{path}: not a regular file")
        size = st.st_size
        data = os.read(fd, size + 1) if size else b""
        if size and len(data) <= size:
            return data  # a short read of a regular file is its end
        chunks = [data]
        while chunk := os.read(fd, 1 << 16):  # grew meanwhile, or /proc-like
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def prefilter(paths: Sequence[str], settings, elsewhere=None) -> list[str]:
    """The candidates among ``paths``: files whose bytes name a target.

    Reads each file once, holding one file's bytes at a time; a file that
    cannot be read is a candidate, so that :func:`process_file` reports it.

    Returns:
        The candidate paths, in the order given.
    """
    return _prefilter(paths, settings, elsewhere=elsewhere)[0]


def _prefilter(
    paths: Sequence[str], settings, read=None, rejected=None, elsewhere=None
) -> tuple[list[str], dict[str, int]]:
    """:func:`prefilter`, plus each candidate's size in bytes (-1 when unreadable);
    ``read`` and ``rejected`` as for :func:`iter_candidates`."""
    candidates: list[str] = []
    sizes: dict[str, int] = {}
    found = (
        iter_candidates(paths, settings, elsewhere=elsewhere)
        if read is None and rejected is None
        else _candidates(paths, settings, read or read_bytes, rejected, elsewhere=elsewhere)
    )
    for p, size in found:
        candidates.append(p)
        sizes[p] = size
    return candidates, sizes


#: a star import (``from verl.trainer.constants_ppo import *``): it re-exports the runtime
#: function without naming it (:func:`ppo_migrate.rules.reexports.project_reexports`)
STAR_IMPORT = b"import *"


def holds_star_import(data: bytes) -> bool:
    """``STAR_IMPORT in data``, three times faster on source text: each ``*`` (found with
    ``memchr``) is tested for ``import `` before it, where the substring search for the
    8 bytes of :data:`STAR_IMPORT`, of common letters, advances a byte or two at a time
    (torch's 2,285 files, 46 MB and ~41,000 ``*``: 46 ms -> 16 ms, the scout's share of
    benchmark item 1)."""
    at = data.find(b"*")
    while at >= 0:
        if at >= 7 and data.startswith(b"import ", at - 7):
            return True
        at = data.find(b"*", at + 1)
    return False


def iter_candidates(
    paths: Iterable[str], settings, star_importers: list[str] | None = None, elsewhere=None
) -> Iterator[tuple[str, int]]:
    """:func:`prefilter` as it goes: ``(path, size in bytes)`` of each candidate, in the
    order given, as soon as it is read (size -1: unreadable, a candidate so that
    :func:`process_file` reports it).

    Args:
        paths: the files, in order.
        settings: gives the targets' last names (``target_names``).
        star_importers: when given, each file turned away whose bytes hold
            :data:`STAR_IMPORT` is appended to it, from the same read (the scout's: the
            look-out for re-exports then reads those files alone, not the whole tree
            again; benchmark item 1).
        elsewhere: as for :func:`is_candidate`.
    """
    if star_importers is None:
        return _candidates(paths, settings, read_bytes, None, elsewhere=elsewhere)
    return _candidates(paths, settings, read_bytes, None, star_importers, elsewhere)


def _candidates(
    paths: Iterable[str], settings, read, rejected, stars: list[str] | None = None, elsewhere=None
) -> Iterator[tuple[str, int]]:
    """:func:`iter_candidates`, the bytes given by ``read(path)`` (the runner's read through
    the run's snapshot, :mod:`ppo_migrate.project.snapshot`); ``rejected(path)``, when given,
    is told of each file read and turned away; ``stars``, when given, gets those of them
    holding :data:`STAR_IMPORT`."""
    names = [n.encode() for n in settings.target_names]
    receivers = [n.encode() for n in getattr(settings, "receiver_words", ())]
    (only,) = names if len(names) == 1 else (None,)
    for p in paths:
        try:
            data = read(p)
        except (OSError, ValueError):  # ValueError: a NUL in the path
            yield p, -1  # let process_file name the exact problem
            continue
        if (
            (only in data or (not data.isascii() and spells_otherwise(data, names)))
            if only is not None  # the usual case, one target name: no generator per file
            else is_candidate(data, names)
        ) or spells_escaped(p, data, names) or (elsewhere is not None and elsewhere(p, data, names)) \
                or builds_name(data, receivers):
            yield p, len(data)
        else:
            if rejected is not None:
                rejected(p)
            if stars is not None and holds_star_import(data):
                stars.append(p)


#: a run of word characters in bytes (``[A-Za-z0-9_]``: a bytes pattern's ``\w`` is ASCII)
_WORD_RUN = re.compile(rb"\w+")

#: :class:`Words` looks for each word with ``bytes.__contains__`` (a ``memchr``-fast search
#: each) while the words are fewer than ``WORDS_BY_TOKEN + len(data) // BYTES_A_WORD``; with
#: more it reads the file's tokens once (measured on the benchmark trees: a 220-byte module
#: breaks even at ~40 words, a 2 kB one at ~140)
WORDS_BY_TOKEN = 32
BYTES_A_WORD = 20


class Words:
    """Which of many words a file's bytes hold as substrings, in time linear in the file
    and not in the words: ``Words(ws).any_in(data)`` is ``any(w in data for w in ws)``
    exactly, and :meth:`spelled` the set of those found.

    A word made of word characters only (``[A-Za-z0-9_]``: an identifier, a module's last
    name) lies, wherever it occurs, inside one run of word characters of the file (a
    token), so the file's tokens are read once, met against the words as a set, and each
    distinct token longer than the shortest word is cut into the slices of the words'
    lengths, met against them too; a token's answer is kept for the next file (tokens
    repeat across a project's files). Other words (``b"from ."``) are looked for one by
    one, and so is every word while they are few for the file's size
    (:data:`WORDS_BY_TOKEN`). The quadratic ``any(n in data for n in names)`` over a run's
    files and the caller phase's hundreds of wanted names was ~10% of a ``check`` on item
    10's 600-module chain (``benchmarks/README.md``).

    Args:
        words: the words (bytes).
    """

    __slots__ = ("_least", "_lengths", "_other", "_plain", "_tokens", "words")

    def __init__(self, words: Iterable[bytes]) -> None:
        self.words = frozenset(words)
        self._plain = frozenset(w for w in self.words if w.isascii() and _WORD_RUN.fullmatch(w))
        self._other = tuple(sorted(self.words - self._plain))
        self._lengths = sorted({len(w) for w in self._plain})
        self._least = self._lengths[0] if self._lengths else 0
        self._tokens: dict[bytes, frozenset[bytes]] = {}

    def by_token(self, data: bytes) -> bool:
        """Whether ``data``'s tokens are read (else each word is looked for in it)."""
        return len(self._plain) >= WORDS_BY_TOKEN + len(data) // BYTES_A_WORD

    def _in_token(self, token: bytes) -> frozenset[bytes]:
        """The plain words ``token`` holds (kept per token)."""
        found = self._tokens.get(token)
        if found is None:
            plain, n, hits = self._plain, len(token), set()
            for size in self._lengths:
                if size > n:
                    break
                for i in range(n - size + 1):
                    piece = token[i : i + size]
                    if piece in plain:
                        hits.add(piece)
            found = self._tokens[token] = frozenset(hits)
        return found

    def any_in(self, data: bytes) -> bool:
        """``any(w in data for w in words)``."""
        for w in self._other:
            if w in data:
                return True
        if not self._plain:
            return False
        if not self.by_token(data):
            return any(w in data for w in self._plain)
        tokens = set(_WORD_RUN.findall(data))
        if not tokens.isdisjoint(self._plain):
            return True  # a word that is a whole token
        least, in_token = self._least, self._in_token
        return any(len(t) > least and in_token(t) for t in tokens)

    def whole(self, data: bytes) -> set[bytes]:
        """The words ``data`` holds as whole tokens (a part of :meth:`spelled`, found
        without cutting tokens); ``set()`` while :meth:`by_token` is false."""
        if not self._plain or not self.by_token(data):
            return set()
        return self._plain.intersection(_WORD_RUN.findall(data))

    def spelled(self, data: bytes) -> set[bytes]:
        """``{w for w in words if w in data}``."""
        out = {w for w in self._other if w in data}
        if not self._plain:
            return out
        if not self.by_token(data):
            out.update(w for w in self._plain if w in data)
            return out
        least, in_token = self._least, self._in_token
        for token in set(_WORD_RUN.findall(data)):
            if len(token) >= least:
                out.update(in_token(token))
        return out
