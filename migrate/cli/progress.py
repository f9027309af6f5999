"""The progress bar of long runs: click's progress bar on standard error.

Shown only when standard error is a terminal, ``CI`` is not set, ``--no-progress``
was not given, and the run is long: at least :data:`LONG_RUN_FILES` files to
analyse, or still running after :data:`LONG_RUN_SECONDS`. It reads
``Analysing  [#####-----]  52/80 files  elapsed 00:00:04  ETA 00:00:03``.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    import click

LONG_RUN_FILES = 200
LONG_RUN_SECONDS = 1.0
LABEL = "Analysing"


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}"


class Progress:
    """``progress(done, total, path)`` for :func:`ppo_migrate.cli.runner.run`.

    Args:
        stream: where the bar is drawn (standard error); nothing is drawn unless it is
            a terminal.
        no_progress: ``--no-progress``.

    The bar appears once the run is known to be long (``total`` files at least
    :data:`LONG_RUN_FILES`, or :data:`LONG_RUN_SECONDS` elapsed) and is erased when
    the last file is done. :meth:`clear` erases it before another line is printed on
    the same terminal (click redraws it at the next file).
    """

    def __init__(self, stream: TextIO | None = None, *, no_progress: bool = False) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = not no_progress and not os.environ.get("CI") and self.stream.isatty()
        self._start = time.monotonic()
        self._bar: click.progressbar | None = None  # type: ignore[valid-type]

    def __call__(self, done: int, total: int, path: str) -> None:
        if not self.enabled:
            return
        if self._bar is None:
            if total < LONG_RUN_FILES and time.monotonic() - self._start < LONG_RUN_SECONDS:
                return
            import click  # only for a bar drawn: a plain `check` runs without click

            self._bar = click.progressbar(
                length=total,
                label=LABEL,
                file=self.stream,
                show_pos=False,
                show_percent=False,
                show_eta=False,
                item_show_func=self._info,
                width=30,
            )
            self._bar.start = time.time() - (time.monotonic() - self._start)
            self._bar.__enter__()
        bar = self._bar
        if bar.length != total:
            bar.length = total
        bar.update(done - bar.pos, current_item=path)
        if done >= total:
            self.finish()

    def _info(self, _path: str | None) -> str:
        bar = self._bar
        assert bar is not None
        elapsed = time.monotonic() - self._start
        done, total = bar.pos, bar.length or 0
        text = f"{done}/{total} files  elapsed {_clock(elapsed)}"
        if 0 < done < total and elapsed >= LONG_RUN_SECONDS:  # the mean time per file so far
            text += f"  ETA {_clock(elapsed / done * (total - done))}"
        return text

    def clear(self) -> None:
        """Erase the bar's line (before printing a line to the same terminal)."""
        if self._bar is not None:
            self.stream.write("\r\x1b[K")
            self.stream.flush()

    def finish(self) -> None:
        """Erase the bar for good (the run is over or was interrupted)."""
        if self._bar is not None:
            # click's own finish prints a newline under the bar; erase the line and
            # show the cursor again (click hid it) instead
            self.stream.write("\r\x1b[K\x1b[?25h")
            self.stream.flush()
            self._bar.finished = True
            self._bar = None
        self.enabled = False
