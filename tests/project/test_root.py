"""migrate/project/root.py: the one place that decides the roots of a run (issue 26)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from ppo_migrate.rules import callers, versions
from ppo_migrate.output.sarif_format import repository_root
from ppo_migrate.rules import patches
from ppo_migrate.rules.configs import _repository_top
from ppo_migrate.project.root import (
    display_root,
    git_common_dir,
    git_dir,
    git_root,
    git_top,
    is_git_top,
    is_marked,
    lists_git,
    project_root,
    search_bound,
    up_to_git_top,
)


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
    project: requirement files and locks mark folders of dependencies (:func:`search_bound`),
    a project is marked by its packaging files (the design note)."""
    _touch(tmp_path, "requirements.txt", "proj/setup.cfg", "proj/pkg/mod.py", "loose/mod.py")
    assert project_root([tmp_path / "proj" / "pkg" / "mod.py"]) == tmp_path / "proj"
    found = project_root([tmp_path / "loose" / "mod.py"])
    assert found is None or found not in (tmp_path, tmp_path / "loose")
    assert search_bound(tmp_path / "loose" / "mod.py", None, tmp_path) == tmp_path  # the pins' bound


def test_a_requirements_folder_marks_a_folder_of_dependencies(tmp_path: Path) -> None:
    """pip's ``-r requirements/base.txt`` layout: the folder above it declares dependencies
    (what versions' walk called a project root of its own before)."""
    _touch(tmp_path, "app/requirements/base.txt", "app/src/mod.py", "other/requirements/notes.md")
    assert is_marked(tmp_path / "app")
    assert not is_marked(tmp_path / "other")
    assert search_bound(tmp_path / "app" / "src" / "mod.py", None) == tmp_path / "app"
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


def test_the_git_helpers_find_the_top_and_stop_there(tmp_path: Path) -> None:
    """One walk up for every caller: it yields the top level itself and nothing above it."""
    (tmp_path / "outer" / ".git").mkdir(parents=True)
    deep = tmp_path / "outer" / "repo" / "a" / "b"
    deep.mkdir(parents=True)
    assert not is_git_top(deep) and is_git_top(tmp_path / "outer")
    assert git_top(deep) == str(tmp_path / "outer")
    assert list(up_to_git_top(deep)) == [
        str(deep), str(deep.parent), str(tmp_path / "outer" / "repo"), str(tmp_path / "outer")
    ]
    # a worktree's ``.git`` file is a top level too (the nearer one wins)
    (tmp_path / "outer" / "repo" / ".git").write_text("gitdir: ../.git/worktrees/repo\n")
    assert git_top(deep) == str(tmp_path / "outer" / "repo")
    assert list(up_to_git_top(deep))[-1] == str(tmp_path / "outer" / "repo")
    # ``stop`` ends the walk first when it is reached first
    assert list(up_to_git_top(deep, deep.parent)) == [str(deep), str(deep.parent)]
    assert git_top(tmp_path) is None or not git_top(tmp_path).startswith(str(tmp_path))
    assert lists_git({"src", ".git"}) and not lists_git(["src", ".github", ".gitignore"])


def test_git_dir_reads_a_worktree_file_and_its_common_dir(tmp_path: Path) -> None:
    main = tmp_path / "main"
    (main / ".git" / "worktrees" / "wt").mkdir(parents=True)
    assert git_dir(main) == str(main / ".git")
    assert git_common_dir(main) == str(main / ".git")
    wt = tmp_path / "wt"
    wt.mkdir()
    (wt / ".git").write_text(f"gitdir: {main / '.git' / 'worktrees' / 'wt'}\n")
    assert git_dir(wt) == str(main / ".git" / "worktrees" / "wt")
    (main / ".git" / "worktrees" / "wt" / "commondir").write_text("../..\n")
    assert Path(git_common_dir(wt)).resolve() == (main / ".git").resolve()
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / ".git").write_text("gitdir: ../main/.git/modules/sub\n")  # relative, as submodules write it
    assert git_dir(sub) == str(sub / "../main/.git/modules/sub")
    assert git_common_dir(sub) == str(sub / "../main/.git/modules/sub")  # no commondir file
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / ".git").write_text("not a pointer\n")
    assert git_dir(tmp_path / "odd") is None and git_dir(tmp_path) is None


def test_the_analysis_walks_stop_at_the_git_top(tmp_path: Path) -> None:
    """pytest's ini options and ``OmegaConf.load``'s search end at the git top level, the
    same one :func:`git_top` finds (a ``pytest.ini`` above it is another project's)."""
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -p outside.plugin\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "pytest.ini").write_text("[pytest]\naddopts = -p tests.plugins.stub -p no:cacheprovider\n")
    (repo / "tests" / "unit").mkdir(parents=True)
    assert patches._ini_plugins([str(repo / "tests" / "unit")]) == {"tests.plugins.stub"}
    assert _repository_top(repo / "tests" / "unit", None) == repo
    assert _repository_top(tmp_path / "loose", tmp_path) == tmp_path


# ------------------------------------------------------------------ the guard: one spelling of .git

PACKAGE = Path(__file__).resolve().parents[2] / "migrate"
#: a string that names git's entry as a path: ``.git``, ``.git/info``, ``{d}/.git`` (an
#: f-string's constant part), not a regular expression (``r"\.git$"``) nor prose in a docstring
_GIT_PATH = re.compile(r"(?:.*/)?\.git(?:/.*)?")


def git_spellings(source: str, filename: str = "<test>") -> list[int]:
    """The lines of ``source`` where a string constant names ``.git`` as a path outside a
    literal tuple, list or set of plain names (a list of names to exclude, as settings'
    defaults, is data; a test of a directory's entries or a path joined to it is a walk
    that must ask :mod:`ppo_migrate.project.root`)."""
    tree = ast.parse(source, filename)
    allowed: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts
        ):
            allowed.update(id(e) for e in node.elts)
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and _GIT_PATH.fullmatch(node.value)
        and id(node) not in allowed
    )


def test_the_checker_finds_an_ad_hoc_git_test_and_spares_a_list_of_names() -> None:
    source = (
        "import os\n"
        "EXCLUDES = ('.git', '.venv', 'build')\n"  # 2: data, allowed
        "def walk(d, names):\n"
        "    if '.git' in names:\n"  # 4
        "        return os.path.join(d, '.git')\n"  # 5
        "    return f'{d}/.git/info/exclude', r'\\.git$', 'a .git folder'\n"  # 6: the f-string only
        "SKIP = {'.git', '.hg'}\n"  # 7: data, allowed
        "MIXED = ['.git', os.sep]\n"  # 8: not a list of plain names
    )
    assert git_spellings(source) == [4, 5, 6, 8]


def test_only_project_root_spells_the_git_entry() -> None:
    """Issue 26: one function decides the project root; every walk that looks for ``.git``
    asks :mod:`ppo_migrate.project.root` (``is_git_top``, ``up_to_git_top``, ``git_top``,
    ``lists_git``, ``GIT_ENTRY``, ``git_dir``)."""
    modules = sorted(PACKAGE.rglob("*.py"))
    assert PACKAGE / "project" / "root.py" in modules and len(modules) > 50
    assert git_spellings((PACKAGE / "project" / "root.py").read_text()) != []  # the checker sees it
    found = {
        str(path.relative_to(PACKAGE)): lines
        for path in modules
        if path != PACKAGE / "project" / "root.py"
        for lines in [git_spellings(path.read_text(encoding="utf-8"), str(path))]
        if lines
    }
    assert found == {}
