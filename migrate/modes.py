"""What a run does and with how many processes: light enough to import before any work.

The CLI needs these before it decides how to run (:mod:`ppo_migrate.scout` forks before
:mod:`ppo_migrate.runner` and the analysis modules are imported).
"""

from __future__ import annotations

import enum
import os


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
