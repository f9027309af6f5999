"""``ppo_migrate.cli.progress``: click's progress bar, only on a terminal, outside CI, for long runs."""

from __future__ import annotations

import io

import pytest

from ppo_migrate.cli.progress import LONG_RUN_FILES, Progress


class _FakeStream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


@pytest.mark.parametrize(
    ("tty", "ci", "no_progress", "shown"),
    [
        (True, None, False, True),
        (False, None, False, False),  # piped / redirected
        (True, "true", False, False),  # CI
        (True, "1", False, False),
        (True, None, True, False),  # --no-progress
    ],
)
def test_progress_only_on_a_tty_outside_ci(monkeypatch, tty, ci, no_progress, shown) -> None:
    stream = _FakeStream(tty)
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    progress = Progress(stream, no_progress=no_progress)
    for done in range(1, 501):
        progress(done, 500, f"f{done}.py")
    out = stream.getvalue()
    assert ("Analysing" in out) is shown
    if shown:
        assert "Analysing  [" in out and "]  250/500 files  elapsed 00:00:00" in out
        assert "500/500 files" in out  # a long run (many files) shows the bar
        assert out.endswith("\r\x1b[K\x1b[?25h")  # and erases it at the end
    else:
        assert out == ""


def test_progress_waits_for_a_long_run(monkeypatch) -> None:
    stream = _FakeStream(True)
    monkeypatch.delenv("CI", raising=False)
    progress = Progress(stream)
    progress(1, LONG_RUN_FILES - 1, "a.py")  # few files, well under a second: nothing yet
    assert stream.getvalue() == ""
    progress.clear()  # nothing to erase
    assert stream.getvalue() == ""


def test_progress_after_a_second_even_for_few_files(monkeypatch) -> None:
    import ppo_migrate.cli.progress as mod

    stream = _FakeStream(True)
    monkeypatch.delenv("CI", raising=False)
    progress = Progress(stream)
    monkeypatch.setattr(mod.time, "monotonic", lambda: progress._start + 1.5)
    progress(3, 10, "c.py")
    out = stream.getvalue()
    assert "3/10 files  elapsed 00:00:01" in out
    assert "ETA 00:00:03" in out  # 1.5 s for 3 files: 7 more take 3.5 s
