"""The run's file-system questions: asked of the disk once a run (issue 26)."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from ppo_migrate.project.snapshot import Snapshot, current, run_scope


def _tree(root: Path) -> None:
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "sub" / "mod.py").write_text("x = 1\n")
    (root / "other").mkdir()
    (root / "top.txt").write_text("t")


def test_a_folder_is_listed_once_a_run(tmp_path: Path) -> None:
    _tree(tmp_path)
    snapshot = Snapshot()
    fs = snapshot.fs
    assert fs.list_dir(tmp_path) == ["other", "pkg", "top.txt"]
    assert fs.list_dir(tmp_path) == ["other", "pkg", "top.txt"]
    assert fs.subdirectories(tmp_path) == [str(tmp_path / "other"), str(tmp_path / "pkg")]
    assert snapshot.counts_of(tmp_path).listings == 1
    walked = list(fs.walk(tmp_path))
    assert walked == [
        (str(tmp_path), ["other", "pkg"], ["top.txt"]),
        (str(tmp_path / "other"), [], []),
        (str(tmp_path / "pkg"), ["sub"], ["__init__.py"]),
        (str(tmp_path / "pkg" / "sub"), [], ["mod.py"]),
    ]
    list(fs.walk(tmp_path))
    assert snapshot.counts_of(tmp_path).listings == 1  # the walk reused the listing
    assert snapshot.counts_of(tmp_path / "pkg" / "sub").listings == 1


def test_walk_prunes_and_does_not_follow_links(tmp_path: Path) -> None:
    _tree(tmp_path)
    (tmp_path / "link").symlink_to(tmp_path / "pkg", target_is_directory=True)
    fs = Snapshot().fs
    seen = []
    for here, dirs, files in fs.walk(tmp_path):
        seen.append(os.path.relpath(here, tmp_path))
        dirs[:] = [d for d in dirs if d != "other"]
    assert seen == [".", "pkg", os.path.join("pkg", "sub")]  # "link" listed, not entered
    assert "link" in next(os.walk(tmp_path))[1]  # os.walk lists the link as a folder too
    assert sorted(next(fs.walk(tmp_path))[1]) == sorted(next(os.walk(tmp_path))[1])


def test_stat_questions_are_asked_once_and_follow_os_path(tmp_path: Path) -> None:
    _tree(tmp_path)
    snapshot = Snapshot()
    fs = snapshot.fs
    init = tmp_path / "pkg" / "__init__.py"
    assert fs.is_file(init) and not fs.is_dir(init) and fs.exists(init)
    assert fs.is_dir(tmp_path / "pkg") and not fs.is_file(tmp_path / "pkg")
    assert not fs.exists(tmp_path / "missing") and not fs.is_file(tmp_path / "missing")
    assert not fs.is_file("a\x00b")  # a NUL: False, as os.path.isfile
    assert snapshot.counts_of(init).stats == 1
    assert snapshot.counts_of(tmp_path / "missing").stats == 1
    with pytest.raises(FileNotFoundError):
        fs.stat(tmp_path / "missing")
    assert snapshot.counts_of(tmp_path / "missing").stats == 1
    assert fs.stat(init).st_size == 0
    # a file the run rewrites is stat-ed again
    init.write_text("x = 2\n")
    snapshot.written(init, b"x = 2\n")
    assert fs.stat(init).st_size == 6


def test_a_missing_folder_lists_as_an_error_once(tmp_path: Path) -> None:
    snapshot = Snapshot()
    with pytest.raises(FileNotFoundError):
        snapshot.fs.list_dir(tmp_path / "nope")
    with pytest.raises(FileNotFoundError):
        snapshot.fs.list_dir(tmp_path / "nope")
    assert snapshot.fs.subdirectories(tmp_path / "nope") == []
    assert list(snapshot.fs.walk(tmp_path / "nope")) == []
    assert snapshot.counts_of(tmp_path / "nope").listings == 1


def test_archive_members_are_read_in_memory_once(tmp_path: Path) -> None:
    archive = tmp_path / "verl.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("verl/__init__.py", "")
        zf.writestr("verl/trainer/constants_ppo.py", "def f(): pass\n")
        zf.writestr("verl/README.md", "no")
        zf.writestr("other/x.py", "")
        zf.writestr("verl/../evil.py", "")
    snapshot = Snapshot()
    before = set(os.listdir(tmp_path))
    members = snapshot.fs.archive_members(archive, "verl/", ".py", 1000)
    assert members == {"verl/__init__.py": b"", "verl/trainer/constants_ppo.py": b"def f(): pass\n"}
    assert snapshot.fs.archive_members(archive, "verl/", ".py", 1000) is members
    assert snapshot.counts_of(archive).archive_reads == 1
    assert set(os.listdir(tmp_path)) == before  # nothing extracted
    with pytest.raises(ValueError, match="too large"):
        snapshot.fs.archive_members(archive, "verl/", ".py", 5)
    (tmp_path / "bad.zip").write_bytes(b"not a zip")
    with pytest.raises(ValueError):
        snapshot.fs.archive_members(tmp_path / "bad.zip", "verl/", ".py", 1000)
    with pytest.raises(FileNotFoundError):
        snapshot.fs.archive_members(tmp_path / "none.zip", "verl/", ".py", 1000)


def test_outside_a_run_nothing_is_kept_and_inside_one_it_is(tmp_path: Path) -> None:
    _tree(tmp_path)
    assert current().fs is not current().fs
    with run_scope() as snapshot:
        current().fs.list_dir(tmp_path)
        current().fs.list_dir(tmp_path)
        assert current().fs is snapshot.fs
        assert snapshot.counts_of(tmp_path).listings == 1


def test_realpath_resolves_links_once_a_run(tmp_path: Path) -> None:
    _tree(tmp_path)
    (tmp_path / "alias").symlink_to(tmp_path / "pkg", target_is_directory=True)
    fs = Snapshot().fs
    assert fs.realpath(tmp_path / "alias" / "__init__.py") == os.path.realpath(tmp_path / "pkg" / "__init__.py")
    assert fs.realpath(tmp_path / "alias") is fs.realpath(tmp_path / "alias")  # kept
    assert fs.realpath(tmp_path / "missing") == os.path.realpath(tmp_path / "missing")


def test_an_absolute_path_is_worked_out_once_a_working_directory(tmp_path: Path, monkeypatch) -> None:
    """:func:`ppo_migrate.project.filesystem.absolute` is ``os.path.abspath``, kept per
    spelling and working directory: a change of directory gives the new answer."""
    from ppo_migrate.project.filesystem import absolute

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    monkeypatch.chdir(tmp_path / "a")
    assert absolute("src/../x.py") == os.path.join(str(tmp_path), "a", "x.py")
    assert absolute(Path("src/x.py")) == os.path.join(str(tmp_path), "a", "src", "x.py")
    monkeypatch.chdir(tmp_path / "b")
    assert absolute("src/../x.py") == os.path.join(str(tmp_path), "b", "x.py")
    assert absolute("/p/./q//r.py") == "/p/q/r.py"
    assert absolute(b"y.py") == os.path.join(os.fsencode(str(tmp_path)), b"b", b"y.py")
    assert Snapshot.key("src/../x.py") == os.path.join(str(tmp_path), "b", "x.py")


def test_a_run_asks_the_working_directory_once(tmp_path: Path, monkeypatch) -> None:
    """Inside :func:`ppo_migrate.project.snapshot.run_scope` the working directory is the
    one the run started in (asked once); outside, it is asked each time."""
    from ppo_migrate.project import filesystem
    from ppo_migrate.project.modules import absolute_parent
    from ppo_migrate.project.snapshot import run_scope

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    monkeypatch.chdir(tmp_path / "a")
    asked: list[int] = []
    real = os.getcwd

    def counted() -> str:
        asked.append(1)
        return real()

    monkeypatch.setattr(filesystem.os, "getcwd", counted)
    with run_scope():
        assert len(asked) == 1
        for _ in range(3):
            assert filesystem.absolute("src/x.py") == os.path.join(str(tmp_path), "a", "src", "x.py")
            assert absolute_parent("pkg/y.py") == f"{tmp_path}/a/pkg"
        assert filesystem.working_directory() == str(tmp_path / "a")
        # the run's start, and ``os.path.abspath`` working out the one new spelling once;
        # the two other rounds and the folder's spelling ask nothing
        assert len(asked) == 2
    asked.clear()
    monkeypatch.setattr(filesystem.os, "getcwd", real)
    monkeypatch.chdir(tmp_path / "b")
    assert filesystem.working_directory() == str(tmp_path / "b")
    assert filesystem.absolute("src/x.py") == os.path.join(str(tmp_path), "b", "src", "x.py")
