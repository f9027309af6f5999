"""The unified diff ``apply --diff`` prints: ``git apply``/``patch -p1`` input.

The line matching is a patience diff (as ``git diff --patience``): lines that occur once
in both versions, in the longest order both keep, anchor the match, and only the short
stretches between anchors go to :class:`difflib.SequenceMatcher`. A rewrite changes a few
lines of a file whose other lines are mostly repeated (``return get_ppo_ray_runtime_env()``
5,519 times in a 1 MB module): ``SequenceMatcher`` on the whole file took 40 s there, its
popular-line heuristic ("autojunk") leaving it nothing to anchor on. The hunks are
grouped and written as :func:`difflib.unified_diff` writes them (3 lines of context).
"""

from __future__ import annotations

import os
from bisect import bisect_left
from collections.abc import Iterator, Sequence

#: (tag, i1, i2, j1, j2), as :meth:`difflib.SequenceMatcher.get_opcodes` returns them
Opcode = tuple[str, int, int, int, int]

_CONTEXT = 3


def diff_lines(data: bytes) -> list[bytes]:
    """Lines as ``patch`` and ``git apply`` see them: ended by ``\\n`` only.

    (``str.splitlines`` also breaks at ``\\r``, form feeds and other Unicode line
    breaks, which would print diff lines that no patch tool can apply; a file with
    CR-only line endings is one line to them.) A last line without ``\\n`` gets
    git's ``\\ No newline at end of file`` marker, so every diff line ends in ``\\n``.

    Args:
        data: a file's bytes.

    Returns:
        Its lines, each ending in ``\\n``.
    """
    lines = data.split(b"\n")
    out = [line + b"\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1] + b"\n\\ No newline at end of file\n")
    return out


def unified_diff(old: bytes, new: bytes, path: str) -> bytes:
    """The unified diff of one file (``a/path`` -> ``b/path``), empty when equal.

    Args:
        old: the file's bytes.
        new: the rewritten bytes (same encoding, BOM and line endings).
        path: the display path.

    Returns:
        The diff, bytes in the file's own encoding; ``patch -p1`` or ``git apply``
        turns ``old`` into ``new`` with it.
    """
    a, b = diff_lines(old), diff_lines(new)
    name = os.fsencode(path)
    out: list[bytes] = []
    for group in _grouped(opcodes(a, b), _CONTEXT):
        if not out:
            out += [b"--- " + header_name(b"a/", name), b"+++ " + header_name(b"b/", name)]
        first, last = group[0], group[-1]
        out.append(
            b"@@ -%s +%s @@\n"
            % (_range(first[1], last[2]), _range(first[3], last[4]))
        )
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [b" " + line for line in a[i1:i2]]
                continue
            if tag in ("replace", "delete"):
                out += [b"-" + line for line in a[i1:i2]]
            if tag in ("replace", "insert"):
                out += [b"+" + line for line in b[j1:j2]]
    return b"".join(out)


#: git's C-style escapes in a quoted path (``quote.c``); other control bytes are octal
_ESCAPES = {7: b"\\a", 8: b"\\b", 9: b"\\t", 10: b"\\n", 11: b"\\v", 12: b"\\f", 13: b"\\r",
            34: b'\\"', 92: b"\\\\"}


def header_name(prefix: bytes, name: bytes) -> bytes:
    """A ``---``/``+++`` line's path and line end, as ``git diff`` writes it: quoted in
    double quotes with C escapes when it holds a control byte, ``"`` or ``\\`` (``"a/a\\tb.py"``),
    else as it is, with a tab after it when it holds a space (``a/my dir.py\\t``, which GNU
    ``patch`` needs to find the name's end).

    Args:
        prefix: ``b"a/"`` or ``b"b/"``.
        name: the display path, as bytes.

    Returns:
        The rest of the header line, ``\\n`` included.
    """
    full = prefix + name
    if any(c < 32 or c == 127 or c in (34, 92) for c in full):
        quoted = b"".join(
            _ESCAPES.get(c) or (b"\\%03o" % c if c < 32 or c == 127 else bytes((c,))) for c in full
        )
        return b'"' + quoted + b'"\n'
    return full + (b"\t" if b" " in name else b"") + b"\n"


def opcodes(a: Sequence[bytes], b: Sequence[bytes]) -> list[Opcode]:
    """How ``a`` becomes ``b``: :meth:`difflib.SequenceMatcher.get_opcodes`'s form, with
    the lines unique to both versions (a patience diff's anchors) matched first.

    Args:
        a, b: the old and the new lines.

    Returns:
        Opcodes covering both sequences in order, adjacent ones never of the same tag.
    """
    out: list[Opcode] = []
    n, m = len(a), len(b)
    lo = 0
    while lo < n and lo < m and a[lo] == b[lo]:
        lo += 1
    hi_a, hi_b = n, m
    while hi_a > lo and hi_b > lo and a[hi_a - 1] == b[hi_b - 1]:
        hi_a -= 1
        hi_b -= 1
    _emit(out, "equal", 0, lo, 0, lo)
    i, j = lo, lo
    for ai, bj in _anchors(a, lo, hi_a, b, lo, hi_b):
        _between(out, a, i, ai, b, j, bj)
        _emit(out, "equal", ai, ai + 1, bj, bj + 1)
        i, j = ai + 1, bj + 1
    _between(out, a, i, hi_a, b, j, hi_b)
    _emit(out, "equal", hi_a, n, hi_b, m)
    return out


def _anchors(
    a: Sequence[bytes], alo: int, ahi: int, b: Sequence[bytes], blo: int, bhi: int
) -> list[tuple[int, int]]:
    """The lines occurring once in ``a[alo:ahi]`` and once in ``b[blo:bhi]``, the longest
    run of them in the same order in both: ``(index in a, index in b)`` pairs, ascending."""
    once_a: dict[bytes, int] = {}
    twice: set[bytes] = set()
    for i in range(alo, ahi):
        line = a[i]
        if line in once_a:
            twice.add(line)
        else:
            once_a[line] = i
    once_b: dict[bytes, int] = {}
    for j in range(blo, bhi):
        line = b[j]
        if line in once_a and line not in twice:
            if line in once_b:
                twice.add(line)
            else:
                once_b[line] = j
    pairs = sorted((once_a[line], j) for line, j in once_b.items() if line not in twice)
    # the longest increasing subsequence of their positions in b (patience sorting)
    tops: list[int] = []
    top_at: list[int] = []
    back: list[int] = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        pile = bisect_left(tops, j)
        if pile == len(tops):
            tops.append(j)
            top_at.append(k)
        else:
            tops[pile] = j
            top_at[pile] = k
        back[k] = top_at[pile - 1] if pile else -1
    chain: list[tuple[int, int]] = []
    k = top_at[-1] if top_at else -1
    while k != -1:
        chain.append(pairs[k])
        k = back[k]
    chain.reverse()
    return chain


def _between(
    out: list[Opcode], a: Sequence[bytes], alo: int, ahi: int, b: Sequence[bytes], blo: int, bhi: int
) -> None:
    """The opcodes of the stretch between two anchors, by :class:`difflib.SequenceMatcher`."""
    if alo == ahi or blo == bhi:
        _emit(out, "delete" if blo == bhi else "insert", alo, ahi, blo, bhi)
        return
    import difflib

    matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi])
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        _emit(out, tag, alo + i1, alo + i2, blo + j1, blo + j2)


def _emit(out: list[Opcode], tag: str, i1: int, i2: int, j1: int, j2: int) -> None:
    """Append an opcode, merged into the last one when both are of the same tag (two
    changes that meet are one ``replace``, as ``SequenceMatcher`` reports them)."""
    if i1 == i2 and j1 == j2:
        return
    if out:
        last = out[-1]
        changed = {"replace", "delete", "insert"}
        if last[0] == tag or (last[0] in changed and tag in changed):
            merged = tag if last[0] == tag else "replace"
            out[-1] = (merged, last[1], i2, last[3], j2)
            return
    out.append((tag, i1, i2, j1, j2))


def _grouped(codes: list[Opcode], n: int) -> Iterator[list[Opcode]]:
    """The hunks: changes with up to ``n`` lines of context around them, two changes
    closer than ``2 * n`` equal lines sharing one hunk (as
    :meth:`difflib.SequenceMatcher.get_grouped_opcodes`)."""
    if not any(tag != "equal" for tag, *_ in codes):
        return
    codes = list(codes)
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - n), i2, max(j1, j2 - n), j2
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * n:
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _range(start: int, stop: int) -> bytes:
    """A hunk header's range, as :func:`difflib.unified_diff` writes it: ``start,length``
    (1-based; ``start`` alone for one line; the line before for none)."""
    beginning = start + 1
    length = stop - start
    if length == 1:
        return b"%d" % beginning
    if not length:
        beginning -= 1
    return b"%d,%d" % (beginning, length)


def overlay_diff(overlaid: dict[str, tuple[bytes, bytes]], files: Sequence[str]) -> bytes:
    """The one patch of a preview: every overlaid file whose bytes differ from what it held
    before (``apply --thread-config --diff``, whose edits are in the run's snapshot's overlay:
    :meth:`ppo_migrate.project.snapshot.Snapshot.overlaid`), as ``apply --diff`` prints a file.

    Args:
        overlaid: absolute path -> ``(bytes before, bytes overlaid)``.
        files: the run's display paths (relative to the working directory, or absolute, as
            discovered): a file's diff is named by its first spelling among them in sorted
            order, and the diffs come in that order; an overlaid file outside them comes
            after, named relative to the working directory.

    Returns:
        The concatenated unified diffs (:func:`unified_diff`), ``b""`` when nothing differs.
    """
    named: dict[str, str] = {}
    for f in sorted(files):
        named.setdefault(os.path.abspath(f), f)
    for key in sorted(overlaid):
        named.setdefault(key, os.path.relpath(key))
    out = []
    for key, name in named.items():
        old, new = overlaid.get(key, (b"", b""))
        if old != new:
            out.append(unified_diff(old, new, name))
    return b"".join(out)


__all__ = ["diff_lines", "header_name", "opcodes", "overlay_diff", "unified_diff"]
