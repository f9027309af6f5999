"""``--add-noqa``: write ``# noqa: CODE`` onto each remaining finding.

A comment can only go where a physical line ends outside a string, so the line
is chosen from the tokenizer: the diagnostic's last line if it ends in code,
otherwise its first line. An existing ``# noqa: ...`` on that line gets the new
code merged in; another comment gets ``  # noqa: CODE`` appended.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections import defaultdict
from collections.abc import Iterable

from ppo_migrate.diagnostics import Diagnostic, noqa_codes

_ENDINGS = re.compile(r"(\r\n|\r|\n)")
_NOQA_TAIL = re.compile(r"#\s*noqa(?::\s*[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)?\s*$", re.I)


def _commentable_lines(text: str) -> set[int]:
    """Lines (1-based) whose physical end lies outside any string."""
    ok: set[int] = set()
    # The tokenizer ends lines at "\n" only; count lines as _ENDINGS (and LibCST's
    # positions) do, so that a file with CR-only or mixed line endings is numbered alike.
    normalized = _ENDINGS.sub("\n", text)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(normalized).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT):
                ok.add(tok.start[0])
            elif tok.type == tokenize.ENDMARKER:
                break
    except (tokenize.TokenError, SyntaxError):
        pass
    # a line that ends the file without a newline still ends outside a string
    return ok


def add_noqa(text: str, diagnostics: Iterable[Diagnostic]) -> tuple[str, int]:
    """Append ``# noqa: CODE`` comments for the given diagnostics.

    Args:
        text: the module's source text (line endings kept as they are).
        diagnostics: findings in this text.

    Returns:
        ``(new_text, added)``: the text with comments added and how many codes
        were added. Line endings and every other byte stay as they were.
    """
    ok = _commentable_lines(text)
    wanted: dict[int, set[str]] = defaultdict(set)
    for d in diagnostics:
        line = d.end_line if d.end_line in ok else d.line if d.line in ok else None
        if line is not None:
            wanted[line].add(d.code)
    if not wanted:
        return text, 0
    pieces = _ENDINGS.split(text)  # [line, ending, line, ending, ..., last]
    added = 0
    for line, codes in wanted.items():
        index = (line - 1) * 2
        if index >= len(pieces):
            continue
        body = pieces[index]
        existing = noqa_codes(body)
        if existing is not None and not existing:
            continue  # a bare ``# noqa`` suppresses everything already
        new_codes = sorted(codes - (existing or set()))
        if not new_codes:
            continue
        m = _NOQA_TAIL.search(body) if existing else None
        if m is not None:
            merged = ", ".join(sorted(existing | set(new_codes)))  # type: ignore[operator]
            body = body[: m.start()] + f"# noqa: {merged}"
        else:
            body = body.rstrip(" \t") + f"  # noqa: {', '.join(new_codes)}"
        pieces[index] = body
        added += len(new_codes)
    return "".join(pieces), added
