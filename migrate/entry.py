"""The ``ppo-migrate`` console script's entry point (and ``python -m ppo_migrate``'s).

A ``check`` of the verl 0.5-0.8 tree (issue 13, item 6) spends a third of its time importing
click, the CLI and the analysis. Two things make that time count here:

- the scout of a plain ``check DIR`` starts first (:func:`ppo_migrate.scout.start_early`), so
  it walks and prefilters the tree while click and the CLI are imported;
- the cycle collector waits until the CLI is imported: the imports allocate ~20,000 objects
  that live as long as the process, and collecting among them was ~4 ms for nothing.

Everything else is :func:`ppo_migrate.cli.main`'s.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Run the command line in ``sys.argv``: the console script ``ppo-migrate``.

    Exits as :func:`ppo_migrate.cli.main` does (0 clean, 1 findings, 2 an error, 130 on
    Ctrl-C). A scout started here that the command does not take is killed before the exit.
    """
    try:
        from ppo_migrate.modes import collector_paused

        with collector_paused():
            from ppo_migrate import scout

            scout.start_early(sys.argv[1:])
            try:
                from ppo_migrate.cli import main as run
            except BaseException:  # leave no scout behind
                scout.drop_early()
                raise
    except KeyboardInterrupt:  # Ctrl-C before the CLI could take it: as the CLI says it
        sys.stderr.write("ppo-migrate: interrupted\n")
        sys.exit(130)
    run()
