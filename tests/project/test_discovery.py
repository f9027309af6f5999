"""Tests for ppo_migrate.project.discovery: walking, excludes, .gitignore, named paths, symlinks."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pathspec
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from ppo_migrate.project.discovery import _Matcher, discover, discover_files
from ppo_migrate.settings_model import DEFAULT_EXCLUDES, Settings


def touch(root: Path, *names: str) -> None:
    for name in names:
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("")


def strs(paths: list[Path]) -> list[str]:
    return [str(p) for p in paths]


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


S = Settings()


# ------------------------------------------------------------------ basics


def test_walk_collects_py_sorted_relative(tree: Path) -> None:
    touch(
        tree,
        "b.py",
        "a.py",
        "src/z.py",
        "src/pkg/__init__.py",
        "src/pkg/m.py",
        "src/notes.txt",
        "src/stub.pyi",
        "src/pkg/data.json",
        "A.py",
    )
    assert strs(discover(["."], S)) == [
        "A.py",
        "a.py",
        "b.py",
        "src/pkg/__init__.py",
        "src/pkg/m.py",
        "src/z.py",
    ]
    assert strs(discover(["src"], S)) == ["src/pkg/__init__.py", "src/pkg/m.py", "src/z.py"]
    assert strs(discover(["./src/"], S)) == strs(discover(["src"], S))
    assert strs(discover([tree / "src" / "pkg"], S)) == [
        f"{tree}/src/pkg/__init__.py",
        f"{tree}/src/pkg/m.py",
    ]
    assert all(isinstance(p, Path) for p in discover(["."], S))
    # what check and apply use: the same display strings, without the Path objects
    assert discover_files(["src", "./src/pkg"], S) == [
        "src/pkg/__init__.py",
        "src/pkg/m.py",
        "src/z.py",
    ]
    assert all(type(p) is str for p in discover_files(["."], S))


def test_duplicates_removed(tree: Path) -> None:
    touch(tree, "src/a.py", "src/pkg/b.py")
    assert strs(discover(["src", "src/a.py", "./src/pkg", "src//a.py"], S)) == [
        "src/a.py",
        "src/pkg/b.py",
    ]


def test_missing_path_raises_one_line(tree: Path) -> None:
    touch(tree, "a.py")
    with pytest.raises(FileNotFoundError) as e:
        discover(["a.py", "nope/b.py"], S)
    assert str(e.value) == "nope/b.py: no such file or directory"


def test_stdin_dash_is_skipped(tree: Path) -> None:
    touch(tree, "a.py")
    assert strs(discover(["-", "a.py"], S)) == ["a.py"]


def test_special_entries_named_py(tree: Path) -> None:
    touch(tree, "pkg.py/inner.py")  # a directory named *.py is walked like any other
    os.mkfifo(tree / "pipe.py")  # returned (never opened here) so reading reports it
    assert strs(discover(["."], S)) == ["pipe.py", "pkg.py/inner.py"]


def test_empty_directory(tree: Path) -> None:
    (tree / "empty").mkdir()
    assert discover(["empty"], S) == []


# ------------------------------------------------------------------ excludes


def test_default_excludes_skip_each_directory(tree: Path) -> None:
    for name in DEFAULT_EXCLUDES:
        touch(tree, f"{name}/x.py", f"src/{name}/deep/y.py")
    touch(tree, "src/ok.py", "src/venvs/ok.py", "src/dist_tools/ok.py")
    assert strs(discover(["."], S)) == [
        "src/dist_tools/ok.py",
        "src/ok.py",
        "src/venvs/ok.py",
    ]


def test_default_excludes_off_when_exclude_emptied(tree: Path) -> None:
    touch(tree, "venv/x.py", "src/a.py")
    s = S.replace(exclude=())
    assert strs(discover(["."], s)) == ["src/a.py", "venv/x.py"]


def test_extend_exclude_patterns_relative_to_project_root(tree: Path) -> None:
    touch(
        tree,
        "repo/src/a.py",
        "repo/src/msg_pb2.py",
        "repo/src/gen/x.py",
        "repo/src/legacy/old.py",
        "repo/src/legacy/sub/keep.py",
        "repo/legacy/old.py",
        "repo/tests/gen/t.py",
    )
    s = S.replace(extend_exclude=("*_pb2.py", "/src/gen/", "src/legacy/*.py"), project_root=tree / "repo"
    )
    assert strs(discover(["repo"], s)) == [
        "repo/legacy/old.py",  # "src/legacy/*.py" is anchored at the project root
        "repo/src/a.py",
        "repo/src/legacy/sub/keep.py",  # "*" does not cross "/"
        "repo/tests/gen/t.py",  # "/src/gen/" is anchored
    ]
    # Walking from inside the project gives the same files.
    assert strs(discover(["repo/src"], s)) == ["repo/src/a.py", "repo/src/legacy/sub/keep.py"]


def test_exclude_relative_to_cwd_without_project_root(tree: Path) -> None:
    touch(tree, "src/gen/x.py", "other/src/gen/y.py")
    s = S.replace(extend_exclude=("src/gen",))
    assert strs(discover(["."], s)) == ["other/src/gen/y.py"]


def test_negated_exclude(tree: Path) -> None:
    touch(tree, "a_test.py", "keep_test.py", "b.py")
    s = S.replace(exclude=("*_test.py", "!keep_test.py"))
    assert strs(discover(["."], s)) == ["b.py", "keep_test.py"]


def test_paths_outside_project_root_match_by_name(tree: Path) -> None:
    touch(tree, "proj/a.py", "outside/dist/x.py", "outside/src/gen/y.py", "outside/z.py")
    s = S.replace(extend_exclude=("src/gen",), project_root=tree / "proj")
    # "dist" (a plain name) applies anywhere; the anchored "src/gen" only inside proj/.
    assert strs(discover(["outside"], s)) == ["outside/src/gen/y.py", "outside/z.py"]


# ------------------------------------------------------------------ named paths


def test_named_files_always_processed(tree: Path) -> None:
    touch(tree, "venv/lib/x.py", "build/gen.py", "scripts/tool", ".gitignore")
    (tree / ".git").mkdir()
    (tree / ".gitignore").write_text("build/\n")
    named = ["venv/lib/x.py", "build/gen.py", "scripts/tool"]
    assert strs(discover(named, S)) == ["build/gen.py", "scripts/tool", "venv/lib/x.py"]
    # scripts/tool is not excluded, only not *.py: named, it is kept under force-exclude.
    assert strs(discover(named, S.replace(force_exclude=True))) == ["scripts/tool"]


def test_named_excluded_directory_is_walked_unless_force_exclude(tree: Path) -> None:
    touch(tree, "dist/a.py", "dist/sub/b.py", "dist/venv/c.py", "src/d.py")
    assert strs(discover(["dist"], S)) == ["dist/a.py", "dist/sub/b.py"]
    assert strs(discover(["dist", "src"], S.replace(force_exclude=True))) == ["src/d.py"]


def test_force_exclude_checks_parent_directories(tree: Path) -> None:
    touch(tree, "node_modules/pkg/x.py", "src/gen/y.py", "src/z.py")
    s = S.replace(force_exclude=True, extend_exclude=("src/gen",))
    assert discover(["node_modules/pkg/x.py", "src/gen/y.py", "node_modules/pkg"], s) == []
    assert strs(discover(["src/z.py"], s)) == ["src/z.py"]


# ------------------------------------------------------------------ .gitignore


@pytest.fixture
def repo(tree: Path) -> Path:
    (tree / ".git" / "info").mkdir(parents=True)
    (tree / ".git" / "config.py").write_text("")  # never entered
    (tree / ".gitignore").write_text("# build output\nbuild/\n*.gen.py\n/top_only.py\n")
    touch(
        tree,
        "build/a.py",
        "src/build/b.py",
        "src/x.gen.py",
        "src/keep.py",
        "top_only.py",
        "src/top_only.py",
        "src/pkg/local.py",
        "src/pkg/keep.gen.py",
        "src/pkg/m.py",
        "src/pkg/deeper/local.py",
        "scratch/s.py",
        "ok.py",
    )
    (tree / "src" / "pkg" / ".gitignore").write_text("local.py\n!keep.gen.py\n")
    (tree / ".git" / "info" / "exclude").write_text("scratch/\n")
    return tree


REPO_FILES = ["ok.py", "src/keep.py", "src/pkg/keep.gen.py", "src/pkg/m.py", "src/top_only.py"]


def test_gitignore_root_nested_and_info_exclude(repo: Path) -> None:
    assert strs(discover(["."], S)) == REPO_FILES


def test_gitignore_of_parent_directories_applies_to_subdir_walk(repo: Path) -> None:
    assert strs(discover(["src/pkg"], S)) == ["src/pkg/keep.gen.py", "src/pkg/m.py"]
    assert strs(discover(["src"], S)) == [f for f in REPO_FILES if f.startswith("src/")]


def test_gitignore_from_another_cwd(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo / "src")
    assert strs(discover(["."], S)) == ["keep.py", "pkg/keep.gen.py", "pkg/m.py", "top_only.py"]
    assert strs(discover([".."], S)) == ["../" + f for f in REPO_FILES]


def test_respect_gitignore_false(repo: Path) -> None:
    got = strs(discover(["."], S.replace(respect_gitignore=False)))
    assert got == sorted(
        REPO_FILES
        + [
            "build/a.py",
            "scratch/s.py",
            "src/build/b.py",
            "src/pkg/deeper/local.py",
            "src/pkg/local.py",
            "src/x.gen.py",
            "top_only.py",
        ]
    )


def test_gitignored_named_file_kept_unless_force_exclude(repo: Path) -> None:
    named = ["build/a.py", "src/pkg/local.py", "scratch/s.py", "src/x.gen.py"]
    assert strs(discover(named, S)) == sorted(named)
    assert discover(named, S.replace(force_exclude=True)) == []
    assert strs(discover(["build"], S)) == ["build/a.py"]  # named ignored dir: walked
    assert discover(["build"], S.replace(force_exclude=True)) == []


def test_gitignore_needs_a_git_repository(tree: Path) -> None:
    # As git (and ruff) see it: outside a repository .gitignore means nothing.
    (tree / ".gitignore").write_text("*.py\n")
    touch(tree, "a.py")
    assert strs(discover(["."], S)) == ["a.py"]


def test_nested_repository_starts_afresh(repo: Path) -> None:
    (repo / "vendor" / "lib" / ".git").mkdir(parents=True)
    touch(repo, "vendor/lib/x.gen.py", "vendor/lib/build/y.py")
    (repo / "vendor" / "lib" / ".gitignore").write_text("y.py\n")
    # The outer "*.gen.py" and "build/" do not apply inside the nested repository.
    assert strs(discover(["vendor"], S)) == ["vendor/lib/x.gen.py"]


def test_git_worktree_file_info_exclude(tree: Path) -> None:
    gitdir = tree / "main.git" / "worktrees" / "wt"
    gitdir.mkdir(parents=True)
    (gitdir / "commondir").write_text("../..\n")
    (tree / "main.git" / "info").mkdir()
    (tree / "main.git" / "info" / "exclude").write_text("tmp_*.py\n")
    (tree / "wt").mkdir()
    (tree / "wt" / ".git").write_text(f"gitdir: {gitdir}\n")
    touch(tree, "wt/a.py", "wt/tmp_b.py")
    assert strs(discover(["wt"], S)) == ["wt/a.py"]


def test_whitelist_gitignore_idiom(tree: Path) -> None:
    (tree / ".git").mkdir()
    (tree / ".gitignore").write_text("*\n!*/\n!*.py\n")
    touch(tree, "a.py", "notes.md", "src/b.py")
    assert strs(discover(["."], S)) == ["a.py", "src/b.py"]


# ------------------------------------------------------------------ symlinks


def test_symlink_loop_and_outside_dir_not_followed(tree: Path) -> None:
    touch(tree, "proj/src/a.py", "outside/o.py")
    os.symlink("..", tree / "proj" / "src" / "loop")
    os.symlink("../src", tree / "proj" / "src" / "again.py")  # a dir link named *.py
    os.symlink(tree / "outside", tree / "proj" / "ext")
    assert strs(discover(["proj"], S)) == ["proj/src/a.py"]


def test_symlinked_files_inside_and_outside_the_walk(tree: Path) -> None:
    touch(tree, "proj/src/real.py", "proj/impl/tool_impl", "secret.py")
    os.symlink("real.py", tree / "proj" / "src" / "alias.py")  # target collected too
    os.symlink("../impl/tool_impl", tree / "proj" / "src" / "tool.py")  # target not *.py
    os.symlink(tree / "secret.py", tree / "proj" / "src" / "leak.py")  # outside the walk
    os.symlink("missing.py", tree / "proj" / "src" / "broken.py")
    os.symlink("self.py", tree / "proj" / "src" / "self.py")  # a link loop
    assert strs(discover(["proj"], S)) == [
        "proj/src/broken.py",
        "proj/src/real.py",
        "proj/src/self.py",
        "proj/src/tool.py",
    ]
    # Walking only src/: tool.py's target is now outside the walk.
    assert strs(discover(["proj/src"], S)) == [
        "proj/src/broken.py",
        "proj/src/real.py",
        "proj/src/self.py",
    ]


def test_named_symlinks_are_followed(tree: Path) -> None:
    touch(tree, "real/a.py", "file.py")
    os.symlink("real", tree / "linkdir")
    os.symlink("file.py", tree / "linkfile.py")
    assert strs(discover(["linkdir"], S)) == ["linkdir/a.py"]
    assert strs(discover(["linkfile.py"], S)) == ["linkfile.py"]
    # Named together with its target: one of them, the real file.
    assert strs(discover(["linkfile.py", "file.py"], S)) == ["file.py"]


# ------------------------------------------------------------------ leftover temp files


def test_leftover_temp_file_skipped_and_removed(tree: Path) -> None:
    touch(
        tree,
        "src/a.py",
        "src/.ppo-migrate-a.py.k2j4_x9q.tmp",
        "src/sub/.ppo-migrate-b.py.abcdefgh.tmp",
        "src/.ppo-migrate-notes.tmp",
        "src/.ppo-migrate-x.py.abcdefgh.tmp.py",
    )
    assert strs(discover(["src"], S)) == ["src/.ppo-migrate-x.py.abcdefgh.tmp.py", "src/a.py"]
    assert not (tree / "src" / ".ppo-migrate-a.py.k2j4_x9q.tmp").exists()
    assert not (tree / "src" / "sub" / ".ppo-migrate-b.py.abcdefgh.tmp").exists()
    # Not our exact pattern: left alone.
    assert (tree / "src" / ".ppo-migrate-notes.tmp").exists()


def test_named_temp_file_skipped_not_deleted(tree: Path) -> None:
    touch(tree, ".ppo-migrate-a.py.abcdefgh.tmp")
    assert discover([".ppo-migrate-a.py.abcdefgh.tmp"], S) == []
    assert (tree / ".ppo-migrate-a.py.abcdefgh.tmp").exists()



def test_named_config_files_are_skipped_but_packaging_files_kept(tree: Path) -> None:
    """A ``tox.ini``, ``ruff.toml``, ``Pipfile``, ``.flake8`` or ``mypy.cfg`` named on the
    command line (as the pre-commit hooks name every staged TOML and INI file) is never
    Python: it is skipped, not parsed (a false PPO902); ``pyproject.toml`` and ``setup.cfg``
    are kept for their entry points, and a named extensionless script still counts."""
    names = ["tox.ini", "ruff.toml", "Pipfile", ".flake8", "mypy.cfg", "CONF.TOML",
             "pyproject.toml", "setup.cfg", "scripts/tool"]
    touch(tree, *names)
    assert strs(discover(names, S)) == ["pyproject.toml", "scripts/tool", "setup.cfg"]

# ------------------------------------------------------------------ unreadable directories


def test_unlistable_directory_reported_not_fatal(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    touch(tree, "a.py", "locked/b.py")
    real_scandir = os.scandir

    def fake_scandir(path: str):  # fault injection: listing "locked" fails
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", fake_scandir)
    errors: list[tuple[Path, str]] = []
    assert strs(discover(["."], S, on_error=lambda p, m: errors.append((p, m)))) == ["a.py"]
    assert errors == [(Path("locked"), "cannot read directory: permission denied")]


# ------------------------------------------------------------------ speed


@pytest.mark.xdist_group("quiet")  # a timing: one at a time with the others
def test_2300_files_discover_fast(tree: Path) -> None:
    (tree / ".git").mkdir()
    (tree / ".gitignore").write_text("*.egg-info/\nbuild/\n__pycache__/\n*.log\n/docs/_build/\n")
    for i in range(46):
        for j in range(5):
            d = tree / f"pkg{i}" / f"sub{j}"
            d.mkdir(parents=True)
            for k in range(10):
                (d / f"m{k}.py").write_bytes(b"")
            (d / "data.json").write_bytes(b"")
    discover(["."], S)  # warm the OS cache and imports
    times = []
    for _ in range(5):  # the best of 5, in this process's CPU time (user + system: the
        # walk's own work, not the time other processes held the cores: a parallel run)
        t0 = time.process_time()
        found = discover(["."], S)
        times.append(time.process_time() - t0)
    assert len(found) == 2300
    assert min(times) < 0.1, times


def test_discovery_does_not_import_libcst() -> None:
    import subprocess
    import sys

    code = "import sys, ppo_migrate.project.discovery; print('libcst' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ------------------------------------------------------------------ the matcher vs pathspec

PATTERNS = [
    "a",
    "b",
    "c.py",
    "*.py",
    "a*",
    "?",
    "*",
    "a/",
    "/a",
    "a/b",
    "**/b",
    "a/**",
    "!a",
    "!*.py",
    "!b/",
    "/b/c.py",
    "a/*.py",
    "[ab].py",
    "b/**/c.py",
    "a/**/",
    "!a/**",
    "**/b/**",
    "a/*/",
    # base-name globs matched without pathspec (discovery's _SIMPLE_GLOB)
    "*.egg-info/",
    ".*",
    "?.py/",
    "a?*",
    "!.*",
    "*b",
    # anchored path globs matched without pathspec (discovery's _GLOB_PATH)
    "/a*/",
    "*/b",
    "/?b/c.py",
    "a/*",
    "!b/*b",
    "/*.py",
]
PARTS = ["a", "b", "c.py", "x.py", "ab", ".h", "x.egg-info"]


@hsettings(max_examples=100, deadline=None)
@given(
    patterns=st.lists(st.sampled_from(PATTERNS), max_size=6),
    parts=st.lists(st.sampled_from(PARTS), min_size=1, max_size=3),
)
def test_matcher_agrees_with_pathspec_for_files(patterns: list[str], parts: list[str]) -> None:
    """For a file whose parent directories no pattern matches (what a walk
    checks), the per-entry matcher gives GitIgnoreSpec's answer. (For
    directories pathspec and git differ — ``*`` + ``!*.py`` ignores a directory
    ``c.py`` for pathspec, not for git — so those are checked against git below.)"""
    spec = pathspec.GitIgnoreSpec.from_lines(patterns)
    for i in range(1, len(parts)):
        if spec.check_file("/".join(parts[:i]) + "/").index is not None:
            return
    rel = "/".join(parts)
    assert bool(_Matcher(patterns).match(rel, parts[-1], False)) == spec.match_file(rel)


def _git_check_ignore(cwd: Path, paths: list[str]) -> dict[str, bool]:
    """``git check-ignore`` verdicts: path -> ignored."""
    import subprocess

    out = subprocess.run(
        ["git", "check-ignore", "--stdin", "-v", "-n"],
        cwd=cwd,
        input="\n".join(paths) + "\n",
        capture_output=True,
        text=True,
    ).stdout
    verdicts = {}
    for line in out.splitlines():
        source, _, path = line.partition("\t")
        pattern = source.split(":", 2)[2] if source.count(":") >= 2 else ""
        verdicts[path] = bool(pattern) and not pattern.startswith("!")
    return verdicts


@pytest.fixture(scope="module")
def git_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path_factory.mktemp("gitrepo")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


_example = iter(range(10**9))


@hsettings(max_examples=50, deadline=None)
@given(
    patterns=st.lists(st.sampled_from(PATTERNS), max_size=6),
    parts=st.lists(st.sampled_from(PARTS), min_size=1, max_size=3),
    is_dir=st.booleans(),
)
def test_matcher_agrees_with_git_for_walked_entries(
    git_repo: Path, patterns: list[str], parts: list[str], is_dir: bool
) -> None:
    """For an entry whose parent directories git does not ignore (the only
    entries a walk checks), the matcher's verdict is ``git check-ignore``'s."""
    base = git_repo / f"e{next(_example)}"
    base.mkdir()
    (base / ".gitignore").write_text("\n".join(patterns) + "\n")
    entry = base.joinpath(*parts)
    if is_dir:
        entry.mkdir(parents=True)
    else:
        entry.parent.mkdir(parents=True, exist_ok=True)
        entry.write_text("")
    rels = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    git = _git_check_ignore(base, rels)
    if any(git[r] for r in rels[:-1]):
        return  # a parent is ignored: a walk never gets here
    assert bool(_Matcher(patterns).match(rels[-1], parts[-1], is_dir)) == git[rels[-1]]


GIT_CASES = {
    ".gitignore": (
        "a\n!*.py\nbuild/\n/top.py\ndocs/*.py\n!docs/keep.py\nfoo/**\n**/deep\n*.gen.py\n"
    ),
    "dirs": ["c.py/a", "build", "src/build", "docs/sub", "foo/x", "x/y/deep", "lib"],
    "files": [
        "top.py",
        "src/top.py",
        "docs/a.py",
        "docs/keep.py",
        "docs/sub/b.py",
        "foo/f.py",
        "x.gen.py",
        "src/y.gen.py",
        "src/a",
        "lib/a.py",
        "c.py/b",
    ],
}


def test_matcher_agrees_with_git(tmp_path: Path) -> None:
    """The per-entry answers equal ``git check-ignore`` for a walk's entries."""
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text(GIT_CASES[".gitignore"])
    for d in GIT_CASES["dirs"]:
        (tmp_path / d).mkdir(parents=True, exist_ok=True)
    for f in GIT_CASES["files"]:
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("")
    entries = [(d, True) for d in GIT_CASES["dirs"]] + [(f, False) for f in GIT_CASES["files"]]
    git = _git_check_ignore(tmp_path, [e for e, _ in entries])
    m = _Matcher(GIT_CASES[".gitignore"].splitlines())
    ours = {e: bool(m.match(e, e.rsplit("/", 1)[-1], is_dir)) for e, is_dir in entries}
    assert ours == git


PYENV_GITIGNORE = (
    "/shims\n/version\n/versions\n/sources\n/cache\n/libexec/*.dylib\n/src/Makefile\n"
    "/src/*.o\n/bats\n/bats-*/\n/default-packages\n.idea\n*.un~\n"
)


def test_anchored_path_globs_need_no_pathspec(tmp_path: Path) -> None:
    """pyenv's own ``.gitignore`` (``/libexec/*.dylib``, ``/src/*.o``, ``/bats-*/``) is
    matched without importing pathspec (~50 ms, in every walk below it: benchmark item 1),
    with git's verdicts."""
    import shutil
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from ppo_migrate.project.discovery import _Matcher\n"
        f"m = _Matcher({PYENV_GITIGNORE!r}.splitlines())\n"
        "print('pathspec' in sys.modules, len(m.path_rules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "11"]
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text(PYENV_GITIGNORE)
    entries = {
        "libexec": True, "libexec/a.dylib": False, "libexec/x/a.dylib": False,
        "libexec/a.dylib.py": False, "src": True, "src/m.o": False, "src/x/m.o": False,
        "src/Makefile": False, "bats-core": True, "bats-core.py": False, "x/bats-core": True,
        "versions": True, "x/versions": True, "plugins/a.py": False, ".idea": True,
        "x/.idea": False, "a.un~": False, "libexec/.dylib": False, "src/.o": True,
    }
    for entry, is_dir in entries.items():
        path = tmp_path / entry
        if is_dir:
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("")
    git = _git_check_ignore(tmp_path, list(entries))
    m = _Matcher(PYENV_GITIGNORE.splitlines())
    ours = {e: bool(m.match(e, e.rsplit("/", 1)[-1], d)) for e, d in entries.items()}
    assert ours == git
    assert {e for e, v in ours.items() if v} == {
        "libexec/a.dylib", "libexec/.dylib", "src/m.o", "src/Makefile", "bats-core",
        "versions", ".idea", "x/.idea", "a.un~", "src/.o",
    }
