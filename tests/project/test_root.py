"""migrate/project/root.py: the one place that decides the roots of a run (issue 26)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ppo_migrate.analysis import callers, versions
from ppo_migrate.output.sarif_format import repository_root
from ppo_migrate.project.root import display_root, git_root, is_marked, project_root, search_root


def _touch(root: Path, *names: str) -> Path:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    return root


def test_the_project_root_is_the_git_top_level_over_a_nested_project(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    _touch(tmp_path / "repo", "svc/pyproject.toml", "svc/pkg/__init__.py", "svc/pkg/mod.py")
    assert project_root([tmp_path / "repo" / "svc" / "pkg" / "mod.py"]) == tmp_path / "repo"
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt" / ".git").write_text("gitdir: elsewhere\n")  # a worktree's .git file
    assert git_root(tmp_path / "wt") == tmp_path / "wt"


def test_without_git_the_nearest_project_marker_and_not_a_requirements_file(tmp_path: Path) -> None:
    """A test tree's ``requirements.txt`` beside other trees joins none of them into one
    project: requirement files and locks mark folders of dependencies (:func:`search_root`),
    a project is marked by its packaging files (the design note)."""
    _touch(tmp_path, "requirements.txt", "proj/setup.cfg", "proj/pkg/mod.py", "loose/mod.py")
    assert project_root([tmp_path / "proj" / "pkg" / "mod.py"]) == tmp_path / "proj"
    found = project_root([tmp_path / "loose" / "mod.py"])
    assert found is None or found not in (tmp_path, tmp_path / "loose")
    assert search_root(tmp_path / "loose" / "mod.py", tmp_path) == tmp_path  # the pins' bound


def test_a_requirements_folder_marks_a_folder_of_dependencies(tmp_path: Path) -> None:
    """pip's ``-r requirements/base.txt`` layout: the folder above it declares dependencies
    (what versions' walk called a project root of its own before)."""
    _touch(tmp_path, "app/requirements/base.txt", "app/src/mod.py", "other/requirements/notes.md")
    assert is_marked(tmp_path / "app")
    assert not is_marked(tmp_path / "other")
    assert search_root(tmp_path / "app" / "src" / "mod.py") == tmp_path / "app"
    (tmp_path / "app" / "requirements" / "base.txt").write_text("verl==0.8.0\n")
    declared = versions.declared_verl(tmp_path / "app" / "src" / "mod.py", tmp_path)
    assert declared is not None and str(declared.version) == "0.8.0"


def test_paths_are_shown_relative_to_the_configured_root_else_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert display_root(None) == Path.cwd()
    assert display_root(tmp_path / "proj") == tmp_path / "proj"


def test_sarif_and_the_caller_phase_ask_the_one_module(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    _touch(tmp_path / "repo", "svc/pyproject.toml", "svc/pkg/__init__.py", "svc/pkg/mod.py")
    assert repository_root(tmp_path / "repo" / "svc") == git_root(tmp_path / "repo" / "svc")
    mod = tmp_path / "repo" / "svc" / "pkg" / "mod.py"
    assert callers._project_root(str(mod)) == project_root([mod]) == tmp_path / "repo"
    # neither git nor a project marker: the folder of the file's top-level package
    _touch(tmp_path / "bare", "pkg/__init__.py", "pkg/sub/__init__.py", "pkg/sub/mod.py")
    found = project_root([tmp_path / "bare" / "pkg" / "sub" / "mod.py"])
    if found is None:
        assert callers._project_root(str(tmp_path / "bare" / "pkg" / "sub" / "mod.py")) == tmp_path / "bare"
