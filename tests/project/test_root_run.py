"""Issue 26: one function decides the project root, once a run (``Snapshot.root``), and every
place that used to decide a root of its own asks the snapshot.

The places: the caller phase's walk for overrides (``callers._project_root``), the look-out
for test doubles in the repository (``repository.doubles_root``), the walk up for copies of
verl (``signatures.install_levels``) and the repository listing for stray copies
(``SignatureResolver._repository_copies``, ``search_bound``). The answers before this change
are kept below as the old code (``_old_*``) and compared on each layout the issue names.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli_helpers import declare_verl
from ppo_migrate.rules import callers
from ppo_migrate.rules.signatures import install_levels
from ppo_migrate.cli.app import cli
from ppo_migrate.project.modules import module_package
from ppo_migrate.project import root as root_module
from ppo_migrate.project.repository import doubles_root
from ppo_migrate.project.root import _ancestors, _directory, _marks, project_root, search_bound
from ppo_migrate.project.snapshot import Snapshot, current, recorded, run_scope

CALLER = (
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def run_ppo(config):\n"
    "    return get_ppo_ray_runtime_env()\n"
)
VERL_RUNTIME = "def get_ppo_ray_runtime_env(config=None):\n    return {}\n"


def _touch(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")


# ------------------------------------------------------------------ the code before the change


def _old_search_root(path, stop=None):
    """``root.search_root`` as it was (commit 171accb)."""
    last = os.path.abspath(os.fspath(stop)) if stop is not None else None
    highest = None
    for directory in _ancestors(_directory(path)):
        git, marked = _marks(directory)
        if git:
            return Path(directory)
        if marked or directory == last:
            highest = directory
        if directory == last:
            break
    return Path(highest) if highest is not None else None


def _old_project_root(paths):
    """``root.project_root`` as it was (commit 171accb): any ``pyproject.toml`` was a marker."""
    common = os.path.commonpath([_directory(p) for p in paths])
    top = root_module.git_root(common)
    if top is not None:
        return top
    for directory in _ancestors(common):
        if any(os.path.isfile(os.path.join(directory, m)) for m in root_module.PROJECT_MARKERS):
            return Path(directory)
    return None


def _old_callers_root(path: str) -> Path:
    found = _old_project_root([path])
    if found is not None:
        return found
    root = Path(path).absolute().parent
    for _ in module_package(path):
        root = root.parent
    return root


def _old_repository_root(file: str):
    return _old_project_root([file]) or _old_search_root(os.path.dirname(os.path.abspath(file)))


def _old_copies_boundary(directory: Path, stop=None):
    return root_module.git_root(directory) or _old_search_root(directory, stop)


def _answers(run_paths: list[Path], file: Path) -> dict[str, Path | None]:
    """Each place's answer for ``file`` in a run on ``run_paths``."""
    with run_scope():
        current().analyse(run_paths)
        folder = file.parent
        return {
            "callers": callers._project_root(str(file)),
            "repository": doubles_root([str(file)]),
            "install_levels": search_bound(folder, current().root_of(folder)),
            "copies": search_bound(folder, current().root_of(folder)),
        }


def _old_answers(file: Path) -> dict[str, Path | None]:
    folder = file.parent
    return {
        "callers": _old_callers_root(str(file)),
        "repository": _old_repository_root(str(file)),
        "install_levels": _old_search_root(folder),
        "copies": _old_copies_boundary(folder),
    }


# ------------------------------------------------------------------ the layouts


def test_a_git_repository_the_same_answers_everywhere(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    _touch(repo, "svc/pyproject.toml", "svc/requirements.txt", "svc/pkg/__init__.py", "svc/pkg/mod.py")
    mod = repo / "svc" / "pkg" / "mod.py"
    expected = dict.fromkeys(("callers", "repository", "install_levels", "copies"), repo)
    assert _old_answers(mod) == expected
    assert _answers([mod], mod) == expected
    assert _answers([repo], mod) == expected
    assert _answers([repo / "svc"], mod) == expected


def test_a_git_worktree_its_git_file_is_the_top(tmp_path: Path) -> None:
    (tmp_path / "main" / ".git" / "worktrees" / "wt").mkdir(parents=True)
    wt = tmp_path / "wt"
    _touch(wt, "pyproject.toml", "pkg/__init__.py", "pkg/mod.py")
    (wt / ".git").write_text(f"gitdir: {tmp_path / 'main' / '.git' / 'worktrees' / 'wt'}\n")
    mod = wt / "pkg" / "mod.py"
    expected = dict.fromkeys(("callers", "repository", "install_levels", "copies"), wt)
    assert _old_answers(mod) == expected
    assert _answers([wt], mod) == expected
    assert _answers([mod], mod) == expected


def test_a_submodule_is_its_own_repository_for_copies(tmp_path: Path) -> None:
    """A run inside the submodule: every place answers the submodule's top, as before. A
    run on the superproject: its root is the superproject's top; the copies of verl are
    still looked for within the submodule (``search_bound``), the test doubles and the
    overrides in the whole superproject (the caller walk was the submodule's alone before:
    a subclass in the superproject now blocks threading, as issue 26 wants of a search)."""
    top = tmp_path / "super"
    (top / ".git" / "modules" / "sub").mkdir(parents=True)
    _touch(top, ".gitmodules", "app/launcher.py", "sub/setup.py", "sub/lib/__init__.py", "sub/lib/mod.py")
    sub = top / "sub"
    (sub / ".git").write_text("gitdir: ../.git/modules/sub\n")
    mod = sub / "lib" / "mod.py"
    expected = dict.fromkeys(("callers", "repository", "install_levels", "copies"), sub)
    assert _old_answers(mod) == expected
    assert _answers([sub], mod) == expected
    assert _answers([mod], mod) == expected
    assert _answers([top], mod) == {
        "callers": top, "repository": top, "install_levels": sub, "copies": sub,
    }
    assert _answers([top], top / "app" / "launcher.py") == dict.fromkeys(
        ("callers", "repository", "install_levels", "copies"), top
    )


def test_no_git_a_sub_folder_with_its_own_requirements_does_not_end_the_search(tmp_path: Path) -> None:
    """verl's ``verl/experimental/vla/requirements_vla.txt`` before PR #6976: the root copy
    is the one in effect for ``main_ppo.py`` there."""
    top = tmp_path / "verl_repo"
    _touch(top, "pyproject.toml", "verl/__init__.py", "verl/experimental/__init__.py")
    (top / "verl" / "trainer").mkdir(parents=True)
    (top / "verl" / "trainer" / "__init__.py").write_text("")
    (top / "verl" / "trainer" / "constants_ppo.py").write_text("def get_ppo_ray_runtime_env():\n    return {}\n")
    vla = top / "verl" / "experimental" / "vla"
    _touch(vla, "__init__.py", "requirements_vla.txt")
    (vla / "main_ppo.py").write_text(CALLER)
    mod = vla / "main_ppo.py"
    expected = dict.fromkeys(("callers", "repository", "install_levels", "copies"), top)
    assert _old_answers(mod) == expected
    assert _answers([top], mod) == expected
    assert _answers([vla], mod) == expected  # a run on the sub-folder alone: still the top
    with run_scope():
        current().analyse([vla])
        levels = install_levels(vla, "verl")
    assert [roots for roots, _ in levels] == [[top]]  # the root copy, found from the sub-folder


def test_no_git_a_sub_folder_with_a_tools_only_pyproject_does_not_end_the_search(tmp_path: Path) -> None:
    """The same with ``[tool.ruff]`` in a ``pyproject.toml`` of the sub-folder: the copies
    of verl are looked for up to the top as before; the caller walk, which stopped at the
    sub-folder's file, now covers the project (wider: an override elsewhere blocks threading)."""
    top = tmp_path / "verl_repo"
    _touch(top, "verl/__init__.py", "verl/experimental/__init__.py", "verl/experimental/vla/__init__.py")
    (top / "pyproject.toml").write_text('[build-system]\nrequires = ["setuptools"]\n')
    vla = top / "verl" / "experimental" / "vla"
    (vla / "pyproject.toml").write_text("[tool.ruff]\nline-length = 120\n")
    mod = vla / "main_ppo.py"
    mod.write_text(CALLER)
    assert _old_answers(mod) == {"callers": vla, "repository": vla, "install_levels": top, "copies": top}
    expected = dict.fromkeys(("callers", "repository", "install_levels", "copies"), top)
    assert _answers([vla], mod) == expected
    assert project_root([vla]) == top
    # tools-only files alone: the highest of them
    (top / "pyproject.toml").write_text("[tool.black]\n")
    assert project_root([mod]) == top
    (vla / "setup.cfg").write_text("[metadata]\nname = vla\n")  # a package of its own: nearest
    assert project_root([mod]) == vla


def test_no_marker_at_all_each_place_keeps_its_fallback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bare = tmp_path / "bare"
    _touch(bare, "pkg/__init__.py", "pkg/sub/__init__.py", "pkg/sub/mod.py")
    mod = bare / "pkg" / "sub" / "mod.py"
    if _old_project_root([mod]) is not None or _old_search_root(mod) is not None:
        pytest.skip("a marker above the temporary folder")
    expected = {"callers": bare, "repository": None, "install_levels": None, "copies": None}
    assert _old_answers(mod) == expected
    assert _answers([bare], mod) == expected
    monkeypatch.chdir(bare)  # the look-out's last resort: the working directory holding the files
    assert doubles_root([str(mod)]) == bare
    with run_scope():
        current().analyse([bare])
        assert current().root is None


def test_outside_a_run_each_path_gets_its_own_root(tmp_path: Path) -> None:
    """The codemod and Fixit adapters and a direct ``analyse()`` give the snapshot no paths:
    ``root_of`` decides by the same rule for the path at hand."""
    (tmp_path / "a" / ".git").mkdir(parents=True)
    _touch(tmp_path, "b/setup.cfg", "b/pkg/mod.py")
    snapshot = Snapshot()
    assert snapshot.root is None
    assert snapshot.root_of(tmp_path / "a" / "x.py") == tmp_path / "a"
    assert snapshot.root_of(tmp_path / "b" / "pkg" / "mod.py") == tmp_path / "b"
    assert snapshot.root_of(tmp_path / "b" / "pkg") == tmp_path / "b"  # the same folder: asked once
    assert snapshot.root_decisions == 2
    snapshot.analyse([tmp_path / "a"])
    snapshot.analyse([tmp_path / "b"])  # the first run's paths decide
    assert snapshot.root == tmp_path / "a" and snapshot.root_decisions == 3


# ------------------------------------------------------------------ once a run


@pytest.mark.parametrize("argv", [["check"], ["apply", "--diff"], ["apply", "--thread-config"]])
def test_the_root_is_decided_once_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    """A run over a git repository with a copy of verl, a caller without a config and a test
    module: ``project_root`` is called once, whichever places ask for the root."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    declare_verl(repo)
    _touch(repo, "pyproject.toml", "verl/__init__.py", "verl/trainer/__init__.py", "app/__init__.py")
    (repo / "verl" / "trainer" / "constants_ppo.py").write_text(VERL_RUNTIME)
    (repo / "app" / "launcher.py").write_text(
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
        "class Launcher:\n"
        "    def start(self):\n"
        "        return get_ppo_ray_runtime_env()\n\n\n"
        "def main(config):\n"
        "    return Launcher().start()\n"
    )
    (repo / "app" / "trainer.py").write_text(CALLER)
    (repo / "tests").mkdir()
    (repo / "tests" / "test_launcher.py").write_text("from app import launcher\n\n\ndef test_it():\n    pass\n")
    calls: list[tuple] = []
    decide = root_module.project_root

    def counted(paths):
        calls.append(tuple(os.fspath(p) for p in paths))
        return decide(paths)

    monkeypatch.setattr(root_module, "project_root", counted)
    asked: list[str] = []
    root_of = Snapshot.root_of

    def asking(self, path):
        asked.append(os.path.abspath(path))
        return root_of(self, path)

    monkeypatch.setattr(Snapshot, "root_of", asking)
    monkeypatch.chdir(repo)
    with recorded() as made:
        result = CliRunner().invoke(cli, [*argv, "--no-progress", "--jobs", "1", "app"])
    assert result.exit_code in (0, 1), result.output
    assert len(made) == 1 and made[0].root == repo
    assert len(calls) == 1 and Path(calls[0][0]).absolute() == repo / "app"
    assert made[0].root_decisions == 1
    # the places asked the snapshot: the copies of verl for app/, the test doubles' look-out
    assert str(repo / "app") in asked, asked
    if argv == ["check"]:
        assert "PPO001" in result.output  # the analysis ran: the caller without a config
