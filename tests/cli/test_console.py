"""The process's end (:func:`ppo_migrate.cli.console.run_command` with ``process_ends``)."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _end_of(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=60
    )


def test_an_exit_with_an_atexit_handler_freezes_the_collector_after_running_it() -> None:
    """With an ``atexit`` handler registered the process ends through Python's own exit:
    the handler runs (its line printed, the exit status kept) with every tracked object
    in the permanent generation, so the exit's last collection walks none of them."""
    done = _end_of(
        """
        import atexit, gc, sys
        from ppo_migrate.cli import console
        held = [[i] for i in range(50_000)]  # what a run holds at its end
        atexit.register(lambda: print("handler ran, frozen", gc.get_freeze_count() >= 50_000, flush=True))
        console.run_command(lambda: sys.exit(1), process_ends=True)
        """
    )
    assert (done.returncode, done.stdout, done.stderr) == (1, "handler ran, frozen True\n", "")


def test_a_test_calling_main_keeps_its_collector() -> None:
    """``process_ends=False`` (a test calling ``main(argv)``): the process goes on, nothing
    is frozen."""
    done = _end_of(
        """
        import gc, sys
        from ppo_migrate.cli import console
        try:
            console.run_command(lambda: sys.exit(0), process_ends=False)
        except SystemExit as exc:
            print(exc.code, gc.get_freeze_count())
        """
    )
    assert (done.returncode, done.stdout) == (0, "0 0\n")
