"""``tree.relative_parts``: its string comparison of plain absolute paths gives what
``os.path.relpath`` gives, and other paths still go through ``relpath``."""

import itertools
import os

import pytest
from ppo_migrate.project import tree
from ppo_migrate.project.tree import in_doubles_folder, relative_parts

posix_only = pytest.mark.skipif(os.sep != "/", reason="the string comparison is POSIX's")


def _by_relpath(path: str, root: str) -> list[str]:
    """The answer before the string comparison: ``relpath``'s parts, ``[]`` outside."""
    rel = os.path.relpath(path, root)
    if rel == os.curdir or rel.startswith(os.pardir):
        return []
    return rel.split(os.sep)


@posix_only
@pytest.mark.parametrize(
    ("path", "root", "parts"),
    [
        ("/repo/src/pkg/mod.py", "/repo", ["src", "pkg", "mod.py"]),
        ("/repo", "/repo", []),
        ("/repository/a.py", "/repo", []),  # a sibling sharing the root's spelling
        ("/other/a.py", "/repo", []),
        ("/repo/a.py", "/", ["repo", "a.py"]),
        ("/", "/", []),
        ("/repo/tests/fakes/verl/x.py", "/repo", ["tests", "fakes", "verl", "x.py"]),
        # not plain: through relpath, which normalises them
        ("/repo/./src//a.py", "/repo", ["src", "a.py"]),
        ("/repo/src/../a.py", "/repo", ["a.py"]),
        ("/repo/.hidden/a.py", "/repo/", [".hidden", "a.py"]),
        ("/repo/..a/b.py", "/repo", []),  # relpath's answer starts with ".."
    ],
)
def test_relative_parts_values(path, root, parts):
    assert relative_parts(path, root) == parts
    assert relative_parts(path, root) == _by_relpath(path, root)


@posix_only
def test_relative_parts_matches_relpath_on_every_combination():
    names = ["a", "ab", ".", "..", ".git", "..a", ""]
    paths = {"/"}
    for depth in range(1, 4):
        for combo in itertools.product(names, repeat=depth):
            paths.add("/" + "/".join(combo))
    paths |= {p + "/" for p in list(paths)}
    roots = sorted(p for p in paths if p.count("/") <= 2)
    checked = 0
    for root in roots:
        for path in sorted(paths):
            assert relative_parts(path, root) == _by_relpath(path, root), (path, root)
            checked += 1
    assert checked == len(roots) * len(paths) > 40_000


@posix_only
def test_plain_absolute_says_no_to_what_normpath_would_change():
    assert tree._plain_absolute("/repo/src/a.py")
    assert tree._plain_absolute("/")
    for path in ("repo/a.py", "/repo/", "/repo//a.py", "/repo/./a.py", "/repo/../a.py", "/repo/.git",
                 "//repo", "/repo/a\0b", b"/repo"):
        assert not tree._plain_absolute(path), path


@posix_only
def test_in_doubles_folder_by_the_parts_below_the_root():
    assert in_doubles_folder("/repo/tests/fakes/verl/trainer.py", "/repo") is True
    assert in_doubles_folder("/work/repo/fakes/verl/trainer.py", "/work/repo") is True
    assert not in_doubles_folder("/repo/src/verl/trainer.py", "/repo")
    assert not in_doubles_folder("/fakes/verl/trainer.py", "/repo")  # outside the root
