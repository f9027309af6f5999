"""The ``ppo-migrate`` console script's entry point (and ``python -m ppo_migrate``'s).

A plain ``ppo-migrate check [PATH ...]`` (no option but ``--no-progress`` and
``--exit-zero``: what CI and pre-commit hooks run) runs without click
(:func:`ppo_migrate.cli.commands.plain_check`): importing click and the CLI was a tenth of a
``check`` of the verl 0.5-0.8 tree (issue 13, item 6). Every other command line is click's
(:func:`ppo_migrate.cli.app.main`).

The cycle collector waits until the modules are imported: the imports allocate ~20,000
objects that live as long as the process, and collecting among them was ~4 ms for nothing.
"""

import sys


def main() -> None:
    """Run the command line in ``sys.argv``: the console script ``ppo-migrate``.

    Exits as :func:`ppo_migrate.cli.app.main` does (0 clean, 1 findings, 2 an error, 130 on
    Ctrl-C).
    """
    try:
        from ppo_migrate.cli.modes import collector_paused

        with collector_paused():
            from ppo_migrate.cli import commands

            paths = commands.plain_check(sys.argv[1:])
            if paths is None:
                from ppo_migrate.cli.app import main as run
            else:
                from ppo_migrate.cli import console

                options = commands.plain_options(sys.argv[1:])

                def run() -> None:
                    console.run_command(
                        lambda: commands.run_plain_check(paths, options), process_ends=True
                    )
    except KeyboardInterrupt:  # Ctrl-C before the command could take it: as the CLI says it
        sys.stderr.write("ppo-migrate: interrupted\n")
        sys.exit(130)
    run()
