"""``sarif``: SARIF 2.1.0, as GitHub code scanning accepts it.

One run whose ``tool.driver`` lists every rule of :data:`ppo_migrate.rules.codes.RULES`
(``id``, ``name``, ``shortDescription``, ``fullDescription``, ``help`` as text and
Markdown, ``helpUri``), so ``ruleIndex`` is stable across runs. Every result has
``ruleId``, ``ruleIndex``, ``level`` (``"error"``; ``"note"`` for informational
findings, PPO004 compatibility shims), ``message.text``, one location whose
``artifactLocation.uri`` is repository-relative (forward slashes, percent-encoded)
and a 1-based ``region``; a fixable result carries ``fixes`` (one
``artifactChange`` per file, ``deletedRegion`` + ``insertedContent`` per edit) and
related locations become ``relatedLocations``. Columns are Unicode code points
(``columnKind: "unicodeCodePoints"``). A file outside the repository gets an
absolute ``file://`` URI.

Repository-relative means relative to the git work tree that holds ``root`` (the
nearest directory at or above it with a ``.git`` entry), because that is what code
scanning resolves URIs against even when ``[tool.ppo-migrate]`` lives in a
sub-project's ``pyproject.toml``; outside any git work tree, relative to ``root``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any, TextIO
from urllib.parse import quote

from ppo_migrate import __version__
from ppo_migrate.diagnostics import INFORMATIONAL_CODES, Diagnostic
from ppo_migrate.rules.codes import RULES, Rule
from ppo_migrate.project.root import git_root

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
VERSION = "2.1.0"
INFORMATION_URI = "https://github.com/ppo-migrate/ppo-migrate"


def repository_root(root: Path) -> Path:
    """The git work tree holding ``root``, else ``root`` itself.

    Args:
        root: the project root (or working directory) the CLI passes.

    Returns:
        The nearest directory at or above ``root`` containing ``.git`` (a
        directory, or a file for worktrees and submodules:
        :func:`ppo_migrate.project.root.git_root`); ``root`` when there is none.
    """
    return git_root(root) or root


def relative_path(path: str, root: Path) -> str | None:
    """A display path relative to ``root``, with forward slashes.

    Args:
        path: the path as discovered (relative to the working directory, or absolute).
        root: the repository / project root.

    Returns:
        e.g. ``"src/trainer.py"``; ``None`` when the file is not under ``root``
        (also after resolving symlinks on both sides).
    """
    absolute = os.path.abspath(path)
    candidates = [(absolute, os.path.abspath(root))]
    try:
        candidates.append((str(Path(absolute).resolve()), str(Path(root).resolve())))
    except (OSError, RuntimeError):
        pass
    for file, base in candidates:
        try:
            rel = os.path.relpath(file, base)
        except ValueError:  # another drive on Windows
            continue
        if rel != os.pardir and not rel.startswith(os.pardir + os.sep) and not os.path.isabs(rel):
            return PurePosixPath(*Path(rel).parts).as_posix()
    return None


def artifact_uri(path: str, root: Path) -> str:
    """The SARIF ``artifactLocation.uri`` of a file.

    Args:
        path: the display path.
        root: the repository root.

    Returns:
        A percent-encoded URI reference relative to ``root`` (``"a%25b%2Cc/x.py"``
        for ``a%b,c/x.py``; the name's bytes on disk, so ``bad%FF.py`` for a name that
        is not UTF-8), or an absolute ``file://`` URI for a file outside it.
    """
    rel = relative_path(path, root)
    if rel is not None:
        return quote(os.fsencode(rel), safe="/")
    return Path(os.path.abspath(path)).as_uri()


def _region(line: int, column: int, end_line: int, end_column: int) -> dict[str, int]:
    return {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}


def _level(code: str) -> str:
    """SARIF ``level``: ``"note"`` for informational codes (never fail a run), else ``"error"``."""
    return "note" if code in INFORMATIONAL_CODES else "error"


def _rule(rule: Rule) -> dict[str, Any]:
    what, _, why = rule.description.partition("\n\n")
    markdown = f"**{rule.code}** ({rule.name}): {rule.summary}\n\n{what}\n\n"
    if why:
        markdown += f"*Why it matters:* {why}\n\n"
    markdown += f"*How to fix:* {rule.fix}\n"
    if rule.fix_safety:
        markdown += f"\n*Fix safety:* {rule.fix_safety}\n"
    if rule.example:
        markdown += f"\n```python\n{rule.example.rstrip()}\n```\n"
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.description},
        "help": {
            "text": f"{rule.description}\n\nHow to fix: {rule.fix}\n\nFix safety: {rule.fix_safety}",
            "markdown": markdown,
        },
        "helpUri": rule.url,
        "defaultConfiguration": {"level": _level(rule.code)},
        "properties": {"fixable": rule.fixable, "tags": ["ppo-migrate"]},
    }


def _result(d: Diagnostic, rule_index: dict[str, int], root: Path, texts=None) -> dict[str, Any]:
    uri = artifact_uri(d.path, root)
    region = _region(d.line, d.column, d.end_line, d.end_column)
    text = d.message
    if d.cell:  # a notebook's finding: the line of the JSON text holding it; the cell's place said
        from ppo_migrate.output.full_format import SourceLines

        region = {"startLine": (texts or SourceLines()).file_line(d)}
        text = f"{d.position}: {d.message}"
    result: dict[str, Any] = {
        "ruleId": d.code,
        "ruleIndex": rule_index[d.code],
        "level": _level(d.code),
        "message": {"text": text},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": uri},
                    "region": region,
                },
                "logicalLocations": [{"fullyQualifiedName": d.scope}],
            }
        ],
    }
    if d.fix is not None:
        result["fixes"] = [
            {
                "description": {"text": d.fix.message},
                "artifactChanges": [
                    {
                        "artifactLocation": {"uri": uri},
                        "replacements": [
                            {
                                "deletedRegion": _region(
                                    e.line, e.column, e.end_line, e.end_column
                                ),
                                "insertedContent": {"text": e.content},
                            }
                            for e in d.fix.edits
                        ],
                    }
                ],
                # ruff's applicability: "safe" (apply makes it) or "unsafe" (only
                # with --unsafe-fixes: the config is only possibly bound at the call)
                "properties": {"applicability": d.fix.applicability},
            }
        ]
    if d.reason is not None:
        # issue 28: why the finding is what it is, the places that decided it
        result["properties"] = {
            "reason": {
                "kind": d.reason.kind,
                "text": d.reason.text,
                "lines": [
                    {
                        "uri": artifact_uri(r.path, root),
                        "startLine": r.line,
                        "startColumn": r.column,
                        "message": r.message,
                    }
                    for r in d.reason.lines
                ],
            }
        }
    if d.related:
        result["relatedLocations"] = [
            {
                "id": i,
                "physicalLocation": {
                    "artifactLocation": {"uri": artifact_uri(r.path, root)},
                    "region": {"startLine": r.line, "startColumn": r.column},
                },
                "message": {"text": r.message},
            }
            for i, r in enumerate(d.related)
        ]
    return result


def to_sarif(diagnostics: Sequence[Diagnostic], root: Path) -> dict[str, Any]:
    """The SARIF log as a ``dict``.

    Args:
        diagnostics: the findings, sorted.
        root: the project root; URIs are relative to the git work tree holding
            it (see :func:`repository_root`), else to it.

    Returns:
        A SARIF 2.1.0 log with one run.
    """
    from ppo_migrate.output.full_format import SourceLines

    rule_index = {code: i for i, code in enumerate(RULES)}
    root = repository_root(root)
    texts = SourceLines()  # a notebook read once for all its findings' lines
    return {
        "$schema": SCHEMA,
        "version": VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "ppo-migrate",
                        "version": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": [_rule(r) for r in RULES.values()],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": [_result(d, rule_index, root, texts) for d in diagnostics],
            }
        ],
    }


def emit(diagnostics: Sequence[Diagnostic], stream: TextIO, *, root: Path) -> None:
    """Write the SARIF log (a run with no results when clean).

    Args:
        diagnostics: the findings, sorted by path, line, column.
        stream: a text stream.
        root: the project root (see :func:`to_sarif`).
    """
    json.dump(to_sarif(diagnostics, root), stream, indent=2)
    stream.write("\n")
