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

import re
from collections import defaultdict
from collections.abc import Iterable

from ppo_migrate.diagnostics import _NOQA, Diagnostic, comment_lines, is_suppressed, noqa_codes

_ENDINGS = re.compile(r"(\r\n|\r|\n)")


def add_noqa(
    text: str, diagnostics: Iterable[Diagnostic], comments_of=comment_lines
) -> tuple[str, int, tuple[Diagnostic, ...]]:
    """Append ``# noqa: CODE`` comments for the given diagnostics.

    Args:
        text: the module's source text (line endings kept as they are).
        diagnostics: findings in this text.
        comments_of: ``comments_of(text) -> (lines ending outside a string, line ->
            (column, comment))``: Python's tokenizer
            (:func:`ppo_migrate.diagnostics.comment_lines`), or YAML's scanner
            (:func:`add_yaml_noqa`).

    Returns:
        ``(new_text, added, uncovered)``: the text with comments added, how many
        codes were added, and the diagnostics that no comment in ``new_text``
        suppresses (no line of theirs can hold a comment: a backslash
        continuation, a multi-line string). Line endings and every other byte
        stay as they were.
    """
    diagnostics = tuple(diagnostics)
    ok, comments = comments_of(text)
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
    _, after = comments_of(new_text)
    line_count = len(pieces) // 2 + 1
    texts = [after.get(i, (0, ""))[1] for i in range(1, line_count + 1)]
    uncovered = tuple(d for d in diagnostics if not is_suppressed(d, texts))
    return new_text, added, uncovered


def add_yaml_noqa(
    text: str, diagnostics: Iterable[Diagnostic]
) -> tuple[str, int, tuple[Diagnostic, ...]]:
    """:func:`add_noqa` for a YAML file (PPO006 on a Hydra ``_target_``): ``  # noqa: CODE``
    appended to the line of the value, where that line ends outside any scalar (a block
    scalar or a multi-line flow scalar cannot take it), or merged into its ``# noqa``.

    The comment is kept only if the file still means the same: the documents PyYAML's safe
    loader reads from the new text equal those of the old (a ``#`` that would not start a
    comment there, for example). Otherwise nothing is written and every finding stays.

    Args:
        text: the YAML file's text (line endings kept as they are).
        diagnostics: its findings.

    Returns:
        ``(new_text, added, uncovered)`` as :func:`add_noqa` gives them.
    """
    from ppo_migrate.rules.hydra_targets import same_documents, yaml_comment_lines

    diagnostics = tuple(diagnostics)
    new_text, added, uncovered = add_noqa(text, diagnostics, yaml_comment_lines)
    if added and not same_documents(text, new_text):
        return text, 0, diagnostics
    return new_text, added, uncovered
