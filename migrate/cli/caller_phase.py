"""The caller phase of a run: caller hints on PPO002 and ``apply --thread-config``.

:func:`follow_callers` runs after the per-file phase: the analysis core's plan
(:func:`ppo_migrate.rules.callers.plan`, from the per-file phase's index records),
then, with ``apply``, the structural edits (:mod:`ppo_migrate.edits.thread_config`,
LibCST, imported only then), then the hints (:func:`ppo_migrate.rules.callers.hint`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ppo_migrate.cli.modes import fewer_young_collections
from ppo_migrate.rules.callers import DEFAULT_DEPTH, hint, plan
from ppo_migrate.diagnostics import Diagnostic
from ppo_migrate.project.discovery import python_files
from ppo_migrate.settings_model import Settings


def follow_callers(
    files: Sequence[str],
    diagnostics: Sequence[Diagnostic],
    settings: Settings,
    *,
    apply: bool,
    depth: int = DEFAULT_DEPTH,
    threading: bool | None = None,
) -> tuple[list[Diagnostic], list[str], list[Diagnostic]]:
    """Add caller hints to PPO002 diagnostics and, with ``apply``, thread the config.

    Args:
        files: every file of the run.
        diagnostics: the main pass's remaining diagnostics.
        settings: the run's settings.
        apply: thread the config (``apply --thread-config``).
        depth: bound on the call chain (default 3).
        threading: word the hints for a ``--thread-config`` run (default: ``apply``).

    Returns:
        ``(diagnostics, changed_paths, problems)``: the diagnostics with hints
        (those of changed files must be recomputed by the caller), the files
        rewritten, and write problems as diagnostics.
    """
    if not any(d.code == "PPO002" and d.scope != "<module>" for d in diagnostics):
        return list(diagnostics), [], []
    files = python_files(files)  # a YAML file (a Hydra config) holds no caller
    # young collections every 20,000 allocations, as in the per-file phase
    # (:func:`ppo_migrate.cli.modes.fewer_young_collections`): the plan and the hints
    # allocate by the thousand and keep most of it (a second-generation collection among
    # them at Python's 700: ~20 ms of benchmark item 10's 600-module chain)
    with fewer_young_collections():
        return _follow_callers(files, diagnostics, settings, apply=apply, depth=depth, threading=threading)


def _follow_callers(
    files: Sequence[str],
    diagnostics: Sequence[Diagnostic],
    settings: Settings,
    *,
    apply: bool,
    depth: int,
    threading: bool | None,
) -> tuple[list[Diagnostic], list[str], list[Diagnostic]]:
    """:func:`follow_callers`'s work once a PPO002 may have callers (the same arguments)."""
    # the per-file phase's records, so that no file is parsed twice: those the run's
    # reference index holds (the runner files them there after each run:
    # :attr:`ppo_migrate.project.references.References.per_file`)
    the_plan, entries = plan(files, diagnostics, settings, depth=depth)
    changed: list[str] = []
    problems: list[Diagnostic] = []
    if apply:
        from ppo_migrate.edits.thread_config import thread  # LibCST: imported only now

        changed, problems = thread(the_plan, settings)
    out = [
        hint(
            d,
            entries.get((d.path, d.line, d.column)),
            the_plan,
            threading=apply if threading is None else threading,
        )
        if d.code == "PPO002"
        else d
        for d in diagnostics
    ]
    return out, changed, problems


__all__ = ["follow_callers"]
