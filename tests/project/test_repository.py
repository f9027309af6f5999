"""``ppo_migrate.project.repository``: the repository's files beyond the ones a run names,
walked as discovery walks them (issue 26: test doubles are found "from the whole
repository", whichever files a pre-commit hook passes)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ppo_migrate.project.repository import repository_files
from ppo_migrate.settings_model import Settings


def _tree(root: Path) -> None:
    for rel, text in {
        ".gitignore": "build/\n",
        "requirements.txt": "verl>=0.9\n",
        "app/launcher.py": "x = 1\n",
        "app/__init__.py": "",
        "tests/test_launcher.py": "y = 2\n",
        "build/lib/app/launcher.py": "z = 3\n",  # ignored by .gitignore
        "vendored/old.py": "w = 4\n",  # excluded by the settings below: from the lint only
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    subprocess.run(["git", "init", "-q", "."], cwd=root, check=True)


def test_the_other_files_of_the_repository_as_discovery_walks_them(tmp_path: Path, monkeypatch) -> None:
    """From a file named alone: every other Python file of the git top level, less what
    ``.gitignore`` leaves out, displayed from the working directory. A user's
    ``extend-exclude``/``exclude`` keeps files out of the lint, not out of the project
    (trial 26e: an excluded test still runs, with its doubles); the default exclusions
    (environments, caches, builds) still apply."""
    _tree(tmp_path)
    (tmp_path / ".venv/lib/site.py").parent.mkdir(parents=True)
    (tmp_path / ".venv/lib/site.py").write_text("")
    monkeypatch.chdir(tmp_path)
    settings = Settings(extend_exclude=("vendored",))
    expected = ["app/__init__.py", "tests/test_launcher.py", "vendored/old.py"]
    assert repository_files(["app/launcher.py"], settings) == expected
    assert repository_files(["app/launcher.py"], Settings(exclude=("tests",))) == expected
    # from a sub-folder: the root is above the working directory
    monkeypatch.chdir(tmp_path / "app")
    assert repository_files(["launcher.py"], settings) == [f"../{e}" for e in expected]


def test_nothing_is_walked_when_the_run_holds_the_root_or_no_root_is_found(tmp_path: Path, monkeypatch) -> None:
    """A directory given on the command line that is the root (or above it) means the run's
    files are the repository's already."""
    _tree(tmp_path / "repo")
    monkeypatch.chdir(tmp_path / "repo")
    assert repository_files(["app/launcher.py"], Settings(), given=["."]) == []
    # ... unless the settings exclude more than the defaults: the excluded files are walked
    assert repository_files(["app/launcher.py"], Settings(extend_exclude=("vendored",)), given=["."]) == [
        "app/__init__.py", "tests/test_launcher.py", "vendored/old.py"]
    assert repository_files(["app/launcher.py"], Settings(), given=["app"]) != []
    bare = tmp_path / "bare"
    (bare / "pkg").mkdir(parents=True)
    (bare / "pkg" / "a.py").write_text("")
    (bare / "pkg" / "b.py").write_text("")
    monkeypatch.chdir(bare)
    # no git, no marker: the working directory that holds the files bounds the search
    assert repository_files(["pkg/a.py"], Settings()) == ["pkg/b.py"]
    # ... but not a working directory beside them: nothing to bound it, nothing walked
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert repository_files([str(bare / "pkg" / "a.py")], Settings()) == []


def test_a_requirements_file_alone_bounds_the_search_without_git(tmp_path: Path, monkeypatch) -> None:
    """A project of a ``requirements.txt`` and no git: its tests are still found (a double
    missed there was a plain apply that broke the project's test)."""
    for rel, text in {"requirements.txt": "verl>=0.9\n", "app/launcher.py": "", "tests/test_launcher.py": ""}.items():
        (tmp_path / "proj" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "proj" / rel).write_text(text)
    monkeypatch.chdir(tmp_path / "proj" / "app")
    assert repository_files(["launcher.py"], Settings()) == ["../tests/test_launcher.py"]


def test_the_doubles_root_of_files_given_relative_and_absolute(tmp_path: Path, monkeypatch) -> None:
    """The folder above the run's files (one ``stat`` for all of them: benchmark item 1), the
    same whether the files are one, several in several folders, relative or absolute; a
    tree of no git and no marker: the highest folder of dependency files above them."""
    from ppo_migrate.project.repository import doubles_root

    for rel in ("proj/requirements.txt", "proj/a/x.py", "proj/a/b/y.py", "proj/c/z.py", "other/w.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    proj = tmp_path / "proj"
    monkeypatch.chdir(proj / "a")
    assert doubles_root(["x.py"]) == proj
    assert doubles_root(["b/y.py", str(proj / "c/z.py")]) == proj
    assert doubles_root(["b/y.py", "b/y.py"]) == proj
    monkeypatch.chdir(tmp_path)
    assert doubles_root(["other/w.py"]) == tmp_path  # no dependency file: the working directory
    monkeypatch.chdir(tmp_path / "other")
    assert doubles_root([str(proj / "c/z.py"), str(tmp_path / "other/w.py")]) is None
