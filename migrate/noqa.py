"""``--add-noqa``: write ``# noqa: CODE`` onto each remaining finding.

A comment can only go where a physical line ends outside a string, so the line
is chosen from the tokenizer: the diagnostic's last line if it ends in code,
otherwise its first line. An existing ``# noqa: ...`` comment on that line gets
the new code merged in; another comment gets ``  # noqa: CODE`` appended.

Some findings cannot take a comment: a call whose first and last lines both end
in a backslash continuation or inside a (multi-line) string. :func:`add_noqa`
returns those, and they stay findings.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections import defaultdict
from collections.abc import Iterable

from ppo_migrate.diagnostics import _NOQA, Diagnostic, is_suppressed, noqa_codes

_ENDINGS = re.compile(r"(\r\n|\r|\n)")


def _comments(text: str) -> tuple[set[int], dict[int, tuple[int, str]]]:
    """Lines (1-based) whose physical end lies outside any string, and the real
    comment of each line (``line -> (column, text)``, columns in code points)."""
    ok: set[int] = set()
    comments: dict[int, tuple[int, str]] = {}
    # The tokenizer ends lines at "\n" only; count lines as _ENDINGS (and LibCST's
    # positions) do, so that a file with CR-only or mixed line endings is numbered alike.
    normalized = _ENDINGS.sub("\n", text)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(normalized).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT):
                ok.add(tok.start[0])
            if tok.type == tokenize.COMMENT:
                comments[tok.start[0]] = (tok.start[1], tok.string)
            elif tok.type == tokenize.ENDMARKER:
                break
    except (tokenize.TokenError, SyntaxError):
        pass
    # a line that ends the file without a newline still ends outside a string
    return ok, comments


def add_noqa(
    text: str, diagnostics: Iterable[Diagnostic]
) -> tuple[str, int, tuple[Diagnostic, ...]]:
    """Append ``# noqa: CODE`` comments for the given diagnostics.

    Args:
        text: the module's source text (line endings kept as they are).
        diagnostics: findings in this text.

    Returns:
        ``(new_text, added, uncovered)``: the text with comments added, how many
        codes were added, and the diagnostics that no comment in ``new_text``
        suppresses (no line of theirs can hold a comment: a backslash
        continuation, a multi-line string). Line endings and every other byte
        stay as they were.
    """
    diagnostics = tuple(diagnostics)
    ok, comments = _comments(text)
    wanted: dict[int, set[str]] = defaultdict(set)
    for d in diagnostics:
        line = d.end_line if d.end_line in ok else d.line if d.line in ok else None
        if line is not None:
            wanted[line].add(d.code)
    pieces = _ENDINGS.split(text)  # [line, ending, line, ending, ..., last]
    added = 0
    for line, codes in wanted.items():
        index = (line - 1) * 2
        if index >= len(pieces):
            continue
        body = pieces[index]
        column, comment = comments.get(line, (len(body), ""))
        existing = noqa_codes(comment)  # a real comment, never text in a string
        if existing is not None and not existing:
            continue  # a bare ``# noqa`` suppresses everything already
        new_codes = sorted(codes - (existing or set()))
        if not new_codes:
            continue
        m = _NOQA.search(comment) if existing else None
        if m is not None:  # merge into the existing ``# noqa: ...``
            merged = ", ".join(sorted(existing | set(new_codes)))  # type: ignore[operator]
            comment = comment[: m.start()] + f"# noqa: {merged}" + comment[m.end() :]
            body = body[:column] + comment
        else:
            body = body.rstrip(" \t") + f"  # noqa: {', '.join(new_codes)}"
        pieces[index] = body
        added += len(new_codes)
    new_text = "".join(pieces) if added else text
    # what the comments now in place really suppress (as the LibCST pass will read them)
    _, after = _comments(new_text)
    line_count = len(pieces) // 2 + 1
    comment_lines = [after.get(i, (0, ""))[1] for i in range(1, line_count + 1)]
    uncovered = tuple(d for d in diagnostics if not is_suppressed(d, comment_lines))
    return new_text, added, uncovered
