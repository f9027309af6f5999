"""What a run does and with how many processes: light enough to import before any work.

The CLI needs these before it decides how to run (:mod:`ppo_migrate.cli.scout` forks before
:mod:`ppo_migrate.cli.runner` and the analysis modules are imported).
"""

from __future__ import annotations

import contextlib
import enum
import gc
import os
from collections.abc import Iterator


class Mode(enum.Enum):
    """What the run does with each candidate file."""

    CHECK = "check"  #: diagnostics only
    APPLY = "apply"  #: rewrite files in place (atomically)
    DIFF = "diff"  #: compute the rewrite, print a unified diff, write nothing
    ADD_NOQA = "add-noqa"  #: append ``# noqa: CODE`` to each remaining finding
    FIX_STDOUT = "fix-stdout"  #: compute the rewrite and return its bytes (standard input)


#: Set to ``1`` to use the pool whatever the work, as long as ``jobs > 1`` and there are at
#: least ``POOL_MIN_CANDIDATES`` candidates (the rule before issue 13's item 6). For the
#: tests only: those that kill, interrupt or crash the pool's workers run on small trees,
#: which would otherwise be analysed in the parent process.
FORCE_POOL_ENV = "PPO_MIGRATE_TEST_FORCE_POOL"


def default_jobs() -> int:
    """Worker processes when ``--jobs`` is not given: the CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No cycle collection inside: for imports, whose thousands of objects (functions,
    classes, constants) live as long as the process, so collections among them free
    nothing (~4 ms of a ``check``'s imports, issue 13, item 6). Restores the collector's
    state on exit, as it was (a caller may have disabled it)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextlib.contextmanager
def fewer_young_collections(threshold: int = 20_000) -> Iterator[None]:
    """Collect the youngest generation every ``threshold`` allocations instead of 700
    (Python's default) inside: an analysis allocates its module's AST nodes by the ten
    thousand and frees them whole, and each young collection scanned the live ones again
    (~2-3 ms of the 8 analyses of a ``check`` of the verl 0.5-0.8 tree). The garbage of
    cycles is freed as before, a little later."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], threshold), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)
