"""PPO006 for the runtime function declared as an entry point (trial 26f, MISSED).

A project that declares::

    [project.entry-points."proj.runtime_envs"]
    ray = "verl.trainer.constants_ppo:get_ppo_ray_runtime_env"

has it called by whatever loads that entry point (``entry_points(group="proj.runtime_envs")
["ray"].load()()``, a plugin host) with the arguments of the loader's choosing, and a
``[project.scripts]`` entry by the wrapper pip writes, which calls it with none. No Python file
names the function as an identifier and no edit of the source can pass a config there, exactly
as for a Hydra ``_target_`` (:mod:`ppo_migrate.rules.hydra_targets`): a PPO006
(``runtime-function-reference``) at the declared value, with no fix; ``apply`` changes nothing.

Pure: the declarations come from the run's snapshot
(:func:`ppo_migrate.project.entry_points.declared_entry_points`: ``pyproject.toml``,
``setup.cfg``; ``setup.py``'s through the module's own analysis) and are matched here against the
run's targets: verl's qualified names and every name the project's own re-exports give the
function (``mypkg:get_env`` where ``mypkg/__init__.py`` imports it; an entry point's module counts
as imported for that search: :func:`loaded_modules`).

``# noqa: PPO006`` on the value's line suppresses the finding in ``pyproject.toml`` (a TOML
comment) and ``setup.py``; ``setup.cfg`` has no comment after a value (``configparser``, as
setuptools uses it, keeps the ``#`` in the value), so none is read there, and ``--add-noqa``
writes none in either packaging file.

Sources: the packaging guide's "Entry points specification" (a value names ``module:qualname``;
"console_scripts ... the function is called with no arguments") and "pyproject.toml
specification"; setuptools' "Entry Points".
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable

from ppo_migrate.diagnostics import Diagnostic, is_suppressed
from ppo_migrate.project.entry_points import EntryPoint

#: the groups whose entry points become commands that call the object with no arguments
SCRIPT_GROUPS = frozenset({"console_scripts", "gui_scripts"})


def entry_point_message(entry: EntryPoint) -> str:
    """PPO006's message for ``entry``, which names the runtime function.

    Args:
        entry: the declaration (its value, name and group).
    """
    value = entry.value.strip()
    if entry.group in SCRIPT_GROUPS:
        return (
            f"`{value}` is declared as the script `{entry.name}` (`{entry.group}`), whose wrapper "
            "calls it with no arguments: no edit of the source can pass the config there; declare "
            "a function that obtains the training config and passes it instead"
        )
    return (
        f"`{value}` is declared as the entry point `{entry.name}` of group `{entry.group}`: "
        "whatever loads it (`entry_points(...).load()`) calls it with arguments of its choosing, "
        "and no edit of the source can pass the config there; make sure the loader passes it, or "
        "declare a function that obtains the training config and passes it"
    )


def entry_point_references(
    entries: Iterable[EntryPoint],
    path: str,
    targets: Collection[str],
    enabled: Callable[[str], bool] = lambda code: True,
    text: str | None = None,
) -> list[Diagnostic]:
    """PPO006 for every declared entry point whose object is one of the run's targets.

    Args:
        entries: the file's declarations
            (:func:`ppo_migrate.project.entry_points.declared_entry_points`).
        path: the file's display path.
        targets: the run's qualified names of the runtime function (verl's and the project's
            re-exports: the settings' ``targets``).
        enabled: whether a rule code is selected (``Settings.rule_enabled``).
        text: the file's text, for ``# noqa`` comments of a ``pyproject.toml``
            (:func:`toml_comment`); ``None`` reads none (a ``setup.py``'s are the module
            analysis's, a ``setup.cfg`` has none).

    Returns:
        The diagnostics, sorted by position; ``[]`` when PPO006 is not selected.
    """
    if not enabled("PPO006"):
        return []
    wanted = frozenset(targets)
    out = [
        Diagnostic(path, e.line, e.column, e.end_line, e.end_column, "PPO006", entry_point_message(e))
        for e in entries
        if e.qualified in wanted
    ]
    out.sort(key=Diagnostic.sort_key)
    if out and text is not None and "noqa" in text.lower() and os.path.basename(path) == "pyproject.toml":
        lines = text.splitlines()
        per_line = [toml_comment(line) for line in lines]
        out = [d for d in out if not is_suppressed(d, per_line)]
    return out


def toml_comment(line: str) -> str:
    """The comment a TOML line ends with (from its ``#`` outside any string), ``""`` for none.
    A line inside a multi-line string is read as any other (a ``#`` there after a closing
    quote counts): only a ``noqa`` would be taken for a comment it is not."""
    quote = None
    i = 0
    while i < len(line):
        c = line[i]
        if quote is None:
            if c == "#":
                return line[i:]
            if c in "\"'":
                quote = c
        elif c == "\\" and quote == '"':
            i += 1
        elif c == quote:
            quote = None
        i += 1
    return ""


def loaded_modules(entries: Iterable[EntryPoint]) -> frozenset[str]:
    """The modules the entry points load by name (each dotted prefix of a value's module:
    importing ``a.b`` imports ``a``): a re-export there counts as one the run uses
    (:func:`ppo_migrate.rules.reexports.project_reexports`'s ``loaded``), as a Hydra
    ``_target_``'s module does. An object path (``mod:Obj.f``) adds no module."""
    out: set[str] = set()
    for e in entries:
        module = e.module
        if module:
            parts = module.split(".")
            out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return frozenset(out)


__all__ = ["SCRIPT_GROUPS", "entry_point_message", "entry_point_references", "loaded_modules", "toml_comment"]
