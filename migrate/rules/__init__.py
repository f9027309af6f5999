"""The analysis core: pure functions over Python's ``ast`` and ``symtable``.

No LibCST here: scopes, definite assignment, target calls, the callee's signature
in effect and the config to pass are decided on Python's own compiler, and the
LibCST adapters (codemod command, Fixit rule, structural edits) call into it.
"""


def __getattr__(name: str) -> object:
    """PEP 562: ``ppo_migrate.rules.analyse`` is :func:`ppo_migrate.rules.check.analyse`
    (imported on first use, so importing the package stays cheap)."""
    if name in ("analyse", "ModuleAnalysis"):
        from ppo_migrate.rules import check

        return getattr(check, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
