"""What a file's bytes spell: the byte-level primitives of the reference index's
"which files may refer to a name" (:meth:`ppo_migrate.project.references.References.referrers`).

Each answers from a file's bytes alone, before anything is parsed; a file that cannot
spell a name is never decoded or parsed for it. Two kinds of spelling:

- **substrings** (the caller phase's: ``launch`` is spelled by ``launcher``), read once a
  file for many words with :class:`ppo_migrate.prefilter.Words` and, in a file with
  non-ASCII bytes, in the forms NFKC folds into a name
  (:func:`ppo_migrate.prefilter.spells_otherwise`);
- **identifiers** (the cross-file judgement's: :func:`identifiers`, ``train`` is not in
  ``trainer``), with ``None`` for a non-ASCII file that may spell a name otherwise.

Moved here from ``rules/callers.py`` (``_spells``, ``_binds_by_name``) and
``rules/cross_file.py`` (``_spelled``, ``_words``, ``_any_of``, ``_names``, ``_mentions``,
``_module_import_pattern``, ``_loads_by_name``) unchanged in what they answer: the two
engines of issue 26's step 5 asked their own questions of the same bytes.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from ppo_migrate.prefilter import is_candidate, spells_otherwise

#: Above this many names, a file's identifiers are collected once instead of searching
#: the bytes for each name (:func:`identifiers`).
MANY_NAMES = 8
#: Up to this many bytes, a file asked of many names is split into its words
#: (:func:`identifiers`); a larger one is scanned with the names' regex.
WORDS_UP_TO = 16_384
_WORD = re.compile(rb"[A-Za-z0-9_]")
_WORD_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
#: every byte but a letter, a digit or ``_`` made a space (:func:`_words`)
_WORDS_ONLY = bytes(b if b in _WORD_BYTES else 32 for b in range(256))


def encoded(name: str) -> bytes:
    """``name`` as the bytes a UTF-8 file spells it with (a name that is not UTF-8, from a
    file name's undecodable bytes, keeps its bytes)."""
    return name.encode("utf-8", "surrogateescape")


# -- substrings -------------------------------------------------------------------------
def spells(data: bytes, word: bytes) -> bool:
    """Whether ``data`` holds ``word``, as it is or in a spelling NFKC folds into it."""
    return word in data or (not data.isascii() and spells_otherwise(data, [word]))


#: A file binding names at run time (``setattr``, a mock's ``patch``, a three-argument
#: ``type``, a namespace's items): it may rebind any wanted function, whatever it imports.
_BINDS_BY_NAME = re.compile(rb"setattr|delattr|\bpatch\b|\btype\s*\(|\b(?:globals|vars|locals)\s*\(|__dict__")
_BINDING_WORDS = [b"setattr", b"delattr", b"patch", b"type", b"globals", b"vars", b"locals", b"__dict__"]


def binds_by_name(data: bytes) -> bool:
    """Whether the file may bind a name at run time (``setattr``, ``delattr``, ``patch``,
    ``type(``, ``globals()``/``vars()``/``locals()``, ``__dict__``; in a non-ASCII file,
    any of those words in a form NFKC folds)."""
    return _BINDS_BY_NAME.search(data) is not None or (
        not data.isascii() and spells_otherwise(data, _BINDING_WORDS)
    )


# -- identifiers ------------------------------------------------------------------------
class Names(NamedTuple):
    """Names a file may spell (:func:`identifiers`), prepared once for many files.

    Attributes:
        encoded: the names as bytes (a name that is not UTF-8 keeps its bytes), sorted.
        plain: those made of ASCII letters, digits and ``_`` only (every identifier a
            file of ASCII bytes can hold): found among the file's words.
        other: the rest (a module named after a file name such as ``my-lib.py``).
    """

    encoded: tuple[bytes, ...]
    plain: frozenset[bytes]
    other: tuple[bytes, ...]


@functools.lru_cache(maxsize=8)
def names(wanted: frozenset[str]) -> Names:
    """``wanted`` prepared for :func:`identifiers` (a judgement round asks the same names of
    every file: benchmark item 12, 200 files asked of 3,000 names each)."""
    spelled = tuple(sorted(encoded(n) for n in wanted))
    plain = frozenset(n for n in spelled if not n.translate(None, _WORD_BYTES))
    return Names(spelled, plain, tuple(n for n in spelled if n not in plain))


def identifiers(data: bytes, wanted: set[str] | frozenset[str] | Names) -> set[str] | None:
    """The names of ``wanted`` the file spells as identifiers (``train`` is not in
    ``trainer``); ``None`` for a non-ASCII file that may spell one otherwise (NFKC).

    Args:
        data: the file's bytes (UTF-8).
        wanted: the names, or the same prepared once (:func:`names`) when asked of many files.
    """
    prepared = wanted if isinstance(wanted, Names) else names(frozenset(wanted))
    spelled = prepared.encoded
    if not data.isascii():
        return None if is_candidate(data, spelled) else set()
    found: set[str] = set()
    if len(spelled) > MANY_NAMES and len(data) <= WORDS_UP_TO:
        # the file's words, collected once (C's translate and split), met with the names:
        # a small file costs no regex over thousands of names (its compile ~25 ms for
        # benchmark item 12's 3,000, the scan ~150 us a file there)
        found.update(w.decode() for w in _words(data) & prepared.plain)
        for n in prepared.other:
            if any(_whole(data, *m.span()) for m in re.finditer(re.escape(n), data)):
                found.add(n.decode())
        return found
    if len(spelled) > MANY_NAMES:
        # one pass of a regex whose alternatives share their prefixes (``run_ppo_1``,
        # ``run_ppo_2``, ...), instead of one pass of the bytes per name: faster than the
        # words on a large file (~6 ns a byte against ~20)
        for m in _any_of(spelled).finditer(data):
            if _whole(data, *m.span()):
                found.add(m.group().decode())  # a whole identifier (``\\b`` would slow the scan)
        return found
    for n in spelled:
        if n in data and re.search(rb"\b" + re.escape(n) + rb"\b", data):
            found.add(n.decode())
    return found


def mentions(data: bytes, wanted: set[str] | frozenset[str] | Names) -> bool:
    """Whether the file spells one of ``wanted`` as an identifier (see :func:`identifiers`)."""
    spelled = identifiers(data, wanted)
    return spelled is None or bool(spelled)


def plain_word(name: str) -> bool:
    """Whether ``name`` is a word of ASCII letters, digits and ``_`` (not empty): the names a
    bytes pattern's ``\\b`` bounds as :func:`identifiers` does."""
    spelled = encoded(name)
    return bool(spelled) and not spelled.translate(None, _WORD_BYTES)


def _whole(data: bytes, start: int, end: int) -> bool:
    """Whether ``data[start:end]`` is a whole word: no letter, digit or ``_`` on either side."""
    return not (start and _WORD.match(data, start - 1)) and not _WORD.match(data, end)


def _words(data: bytes) -> frozenset[bytes]:
    """The words of an ASCII file: its runs of letters, digits and ``_``. The last file's are
    kept (held with its bytes, so that ``is`` tells the same object): a judgement round asks
    each file of two sets of names one after the other (the wanted names, then their
    modules: :meth:`ppo_migrate.project.references.References.referrers`), ~0.1 M
    instructions a split on benchmark item 12's modules."""
    last = _last_words
    if last[0] is data:
        return last[1]
    words = frozenset(data.translate(_WORDS_ONLY).split())
    _remember_words((data, words))
    return words


def _remember_words(pair: tuple[bytes, frozenset[bytes]]) -> None:
    """Keep ``(data, words)`` as :func:`_words`' last answer (one assignment: a thread
    reading it meanwhile sees the old pair or the new one, never half of each)."""
    global _last_words
    _last_words = pair


#: :func:`_words`' last file and its words
_last_words: tuple[bytes | None, frozenset[bytes]] = (None, frozenset())


@functools.lru_cache(maxsize=8)
def _any_of(words: tuple[bytes, ...]) -> re.Pattern[bytes]:
    """``word1|word2|...`` with the words' common prefixes factored out (a trie): the
    regex engine then skips to the next possible first byte in C."""
    trie: dict = {}
    for w in words:
        node = trie
        for byte in w:
            node = node.setdefault(byte, {})
        node[None] = True

    def pattern(node: dict) -> bytes:
        branches = [re.escape(bytes([b])) + pattern(sub) for b, sub in sorted((k, v) for k, v in node.items() if k is not None)]
        if not branches:
            return b""
        body = branches[0] if len(branches) == 1 else b"(?:" + b"|".join(branches) + b")"
        return b"(?:" + body + b")?" if None in node else body

    return re.compile(pattern(trie))


# -- import forms -----------------------------------------------------------------------
class ModuleImportForm:
    """:func:`module_import_pattern`'s answer: ``search(data)`` is not ``None`` exactly where
    the regular expression ``\\bimport[ \\t]+[^\\n;#]*\\b(?:<modules>)\\b|\\bimport[ \\t]*\\(
    [^)]*\\b(?:<modules>)\\b`` finds a match (a truthy value, not a match object).

    When every module is a plain word (:func:`plain_word`), the file's ``import`` words
    are read instead: a module stands where a whole word of the text after one (to the
    line's end, a ``;`` or a ``#``; in parentheses, to the ``)``) is one of them. The
    expression, an alternation of every module, took ~20 ms to compile (Python 3.11
    compiles a pattern in Python; benchmark item 9's 76 modules) for the few files it
    was searched in. Modules of other characters (``my-lib``) keep the expression,
    compiled when first searched.

    Args:
        modules: the modules' names.
    """

    __slots__ = ("_modules", "_pattern", "_words")

    def __init__(self, modules: set[str] | frozenset[str]) -> None:
        self._modules = frozenset(modules)
        plain = bool(modules) and all(plain_word(m) for m in modules)
        self._words = frozenset(encoded(m) for m in modules) if plain else None
        self._pattern: re.Pattern[bytes] | None = None

    def search(self, data: bytes) -> bool | None:
        """``True`` where the expression matches in ``data``, else ``None``."""
        words = self._words
        if words is None:
            if self._pattern is None:
                alternatives = b"|".join(re.escape(encoded(m)) for m in sorted(self._modules))
                self._pattern = re.compile(
                    rb"\bimport[ \t]+[^\n;#]*\b(?:" + alternatives + rb")\b|\bimport[ \t]*\([^)]*\b(?:"
                    + alternatives + rb")\b"
                )
            return True if self._pattern.search(data) is not None else None
        at = data.find(b"import")
        size = len(data)
        while at != -1:
            if not at or data[at - 1] not in _WORD_BYTES:  # ``\b`` before it
                after = at + 6
                if data[after:after + 1] in (b" ", b"\t"):  # ``import x``: to ``\n``, ``;`` or ``#``
                    end = min((e for e in (data.find(c, after) for c in (b"\n", b";", b"#")) if e != -1), default=size)
                    if not words.isdisjoint(data[after:end].translate(_WORDS_ONLY).split()):
                        return True
                opening = after
                while data[opening:opening + 1] in (b" ", b"\t"):
                    opening += 1
                if data[opening:opening + 1] == b"(":  # ``import (a,\n b)``: to the ``)``
                    end = data.find(b")", opening)
                    if not words.isdisjoint(data[opening + 1:size if end == -1 else end].translate(_WORDS_ONLY).split()):
                        return True
            at = data.find(b"import", at + 6)
        return None


def module_import_pattern(modules: set[str] | frozenset[str]) -> ModuleImportForm:
    """A file importing one of ``modules`` itself, the module object (``from pkg import lib``,
    ``from pkg import (a,\\n lib)``, ``import pkg.lib as l``), which it could hand on under
    another name; not ``from pkg.lib import x``, which imports a name of it. Built once for
    many files (a judgement round), searched in each file's bytes
    (:meth:`ModuleImportForm.search`)."""
    return ModuleImportForm(modules)


def loads_by_name(data: bytes) -> bool:
    """Whether the file may load a module by a name in a string (``importlib.import_module``,
    ``__import__``, ``sys.modules[...]``)."""
    return b"import_module" in data or b"__import__" in data or b"sys.modules" in data


def hands_on_unspelled(data: bytes) -> bool:
    """Whether a package's ``__init__.py`` may hand on names it never spells: a star import
    (``from .lib import *``) or a module ``__getattr__``."""
    return b"import *" in data or b"__getattr__" in data


__all__ = [
    "MANY_NAMES", "WORDS_UP_TO", "ModuleImportForm", "Names", "binds_by_name", "encoded", "hands_on_unspelled", "identifiers",
    "loads_by_name", "mentions", "module_import_pattern", "names", "plain_word", "spells",
]
