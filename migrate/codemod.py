"""Public path of the LibCST codemod command: ``ppo_migrate.codemod.PassConfigCommand``.

Use it as ``python -m libcst.tool codemod -x ppo_migrate.codemod.PassConfigCommand
--no-format PATH``. The command lives in :mod:`ppo_migrate.adapters.codemod_command` and is
defined on first access (importing this module does not import ``libcst.codemod``).
The names this module offered before the package was split into ``rules/``,
``edits/`` and ``adapters/`` stay importable from here.
"""

from __future__ import annotations

from ppo_migrate.adapters import codemod_command as codemod
from ppo_migrate.edits.cst_calls import (
    MAX_NESTING,
    MAX_SOURCE_CHARS,
    UnparsableSource,
    call_positions,
    configless_kind,
    fix_expression,
    parse_module,
    replacements,
    rewrite_call,
)
from ppo_migrate.edits.text_edits import FileResult, apply_edits, process_text


def __getattr__(name: str) -> object:
    """PEP 562: ``PassConfigCommand`` from :mod:`ppo_migrate.adapters.codemod_command`, built on first access."""
    if name == "PassConfigCommand":
        cls = codemod.PassConfigCommand
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "MAX_NESTING",
    "MAX_SOURCE_CHARS",
    "FileResult",
    "PassConfigCommand",
    "UnparsableSource",
    "apply_edits",
    "call_positions",
    "configless_kind",
    "fix_expression",
    "parse_module",
    "process_text",
    "replacements",
    "rewrite_call",
]
