"""project/tree.py: copies of verl in the folders the repository's walk does not enter
(trial 26c, D): folders git ignores and the virtual environments skipped by name.

Each test writes a tree, walks it with :func:`repository_listing` and asserts exactly which
copies :func:`unlisted_copies` finds (install root, folder, kind), and what it costs in
folders listed and entries read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ppo_migrate.project import tree

MODULE = "verl.trainer.constants_ppo"


def _files(root: Path, names: list[str]) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    return root


def _copy(prefix: str) -> list[str]:
    prefix = f"{prefix}/" if prefix else ""
    return [f"{prefix}verl/__init__.py", f"{prefix}verl/trainer/__init__.py", f"{prefix}verl/trainer/constants_ppo.py"]


def _found(root: Path, module: str = MODULE) -> list[tuple[str, str, str]]:
    tree._LISTINGS.clear()
    tree._UNLISTED.clear()
    listing = tree.repository_listing(root)
    return [
        (Path(c.root).relative_to(root).as_posix(), Path(c.folder).relative_to(root).as_posix(), c.kind)
        for c in tree.unlisted_copies(listing, "verl", module)
    ]


def test_the_walk_records_ignored_folders_and_environments(tmp_path: Path) -> None:
    root = _files(tmp_path / "p", [
        ".gitignore", "work/rl/x.py", "data/a.bin", ".venv/pyvenv.cfg", "node_modules/x/y.js", "src/app.py",
    ])
    (root / ".gitignore").write_text("/work/\ndata/\n")
    tree._LISTINGS.clear()
    listing = tree.repository_listing(root)
    assert [Path(p).relative_to(root).as_posix() for p in listing.ignored] == ["data", "work"]
    assert [Path(p).relative_to(root).as_posix() for p in listing.environments] == [".venv"]
    # not respecting .gitignore: the folders are walked, none is recorded as ignored
    assert tree.repository_listing(root, respect_gitignore=False).ignored == ()


def test_copies_in_ignored_folders_up_to_the_depth(tmp_path: Path) -> None:
    """Depth 0 (the ignored folder holds ``verl/``) to :data:`IGNORED_DEPTH` (6); deeper is
    not looked at; a ``verl/`` inside a package is that package's; the ignored ``verl/``
    itself; hidden folders and a clone's top folder named ``verl`` are entered (trial 26d);
    VCS internals, ``node_modules`` and test data are not."""
    root = _files(tmp_path / "p", [
        ".gitignore",
        *_copy("libs"),                      # depth 0
        *_copy("work/rl"),                   # depth 1
        *_copy("deps/a/b/c"),                # depth 3
        *_copy("deep/a/b/c/d"),              # depth 4: found
        *_copy("deeper/a/b/c/d/e/f"),        # depth 6: found
        *_copy("deepest/a/b/c/d/e/f/g"),     # depth 7: not looked at
        *_copy("cache/mylib"), "cache/mylib/__init__.py",   # mylib.verl
        *_copy("third_party"),               # third_party/verl/ itself ignored
        *_copy("other/.hidden"), *_copy("other/node_modules/x"), *_copy("other/fixtures/old"),
        *_copy("other/.git/modules"),
        # trial 26d: a clone named ``verl`` holding ``verl/``, in a hidden folder or not
        *_copy("vendor/src/github/verl"), "vendor/keep.py",
        *_copy(".deps/checkouts/volcengine/verl"),
        # a clone holding a second copy further down: not searched further
        *_copy("clones/verl"), *_copy("clones/verl/examples/old"),
        # a namespace copy (no ``verl/__init__.py``)
        "ns/verl/trainer/constants_ppo.py",
    ])
    (root / ".gitignore").write_text(
        "/libs/\n/work/\n/deps/\n/deep/\n/deeper/\n/deepest/\n/cache/\n/other/\nthird_party/verl/\n"
        "/vendor/src/\n/.deps/\n/clones/\n/ns/\n"
    )
    assert _found(root) == [
        (".deps/checkouts/volcengine/verl", ".deps", "ignored"),
        ("clones/verl", "clones", "ignored"),
        ("deep/a/b/c/d", "deep", "ignored"),
        ("deeper/a/b/c/d/e/f", "deeper", "ignored"),
        ("deps/a/b/c", "deps", "ignored"),
        ("libs", "libs", "ignored"),
        ("ns", "ns", "ignored"),
        ("other/.hidden", "other", "ignored"),
        ("third_party", "third_party/verl", "ignored"),
        ("vendor/src/github/verl", "vendor/src", "ignored"),
        ("work/rl", "work", "ignored"),
    ]
    # a module the copies do not hold: none
    assert _found(root, "verl.trainer.main_ppo") == []


def test_copies_in_folders_skipped_by_name(tmp_path: Path) -> None:
    """The folders the walk skips by name that may hold a checkout (``dist/``,
    ``__pypackages__/``, ``site-packages/``), ignored by git or not, are looked into;
    ``node_modules/``, ``.git/``, caches, ``.tox/`` and test data are not."""
    root = _files(tmp_path / "p", [
        ".gitignore", "app.py",
        *_copy("dist/verl-0.8.0"), *_copy("__pypackages__/3.11/lib"), *_copy("layer/site-packages"),
        *_copy("node_modules/x"), *_copy(".mypy_cache/x"), *_copy(".tox/x"), *_copy("fixtures/x"),
        "src/app.egg-info/PKG-INFO",
    ])
    (root / ".gitignore").write_text("dist/\n")
    tree._LISTINGS.clear()
    listing = tree.repository_listing(root)
    assert [Path(p).relative_to(root).as_posix() for p in listing.skipped] == [
        "__pypackages__", "dist", "layer/site-packages"]
    assert _found(root) == [
        ("__pypackages__/3.11/lib", "__pypackages__", "skipped"),
        ("dist/verl-0.8.0", "dist", "skipped"),
        ("layer/site-packages", "layer/site-packages", "skipped"),
    ]


def test_environments_site_packages(tmp_path: Path) -> None:
    """``.venv`` (skipped by name), a direnv environment under ``.direnv/``, an ignored
    ``env/`` holding ``pyvenv.cfg`` and a conda environment (``conda-meta``); ``.tox`` is not
    looked into (tox rebuilds it from its read configuration)."""
    root = _files(tmp_path / "p", [
        ".gitignore",
        ".venv/pyvenv.cfg", *_copy(".venv/lib/python3.11/site-packages"),
        ".direnv/python-3.11.4/pyvenv.cfg", *_copy(".direnv/python-3.11.4/lib/python3.11/site-packages"),
        "env/pyvenv.cfg", *_copy("env/lib/python3.12/site-packages"),
        "envs/gpu/conda-meta/history", *_copy("envs/gpu/lib/python3.10/site-packages"),
        ".tox/py311/pyvenv.cfg", *_copy(".tox/py311/lib/python3.11/site-packages"),
    ])
    (root / ".gitignore").write_text("env/\nenvs/\n")
    assert _found(root) == [
        (".direnv/python-3.11.4/lib/python3.11/site-packages", ".direnv/python-3.11.4", "environment"),
        (".venv/lib/python3.11/site-packages", ".venv", "environment"),
        ("env/lib/python3.12/site-packages", "env", "environment"),
        ("envs/gpu/lib/python3.10/site-packages", "envs/gpu", "environment"),
    ]


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Record each folder :func:`tree._scan` lists and the entries it reads."""
    scans: list[tuple[str, int]] = []
    scan = tree._scan

    def counting(folder: str, limit: int):
        got = scan(folder, limit)
        scans.append((folder, got[2]))
        return got

    monkeypatch.setattr(tree, "_scan", counting)
    return scans


def test_a_big_ignored_folder_costs_a_bounded_number_of_entries_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A data set of many folders: every folder down to :data:`IGNORED_DEPTH` (6) listed once,
    none below, a second search in the run lists nothing again; with a budget of 40 entries
    (:data:`MAX_IGNORED_ENTRIES`) or of 3 folders (:data:`MAX_IGNORED_FOLDERS`), the search
    stops there and the shallow copy in another ignored folder is still found."""
    names = [f"data/s{i:02}/t{j}/u/v/w/y/z/x.bin" for i in range(30) for j in range(3)]
    root = _files(tmp_path / "p", [".gitignore", *names, *_copy("data/zz"), *_copy("libs")])
    (root / ".gitignore").write_text("data/\nlibs/\n")
    tree._LISTINGS.clear()
    tree._UNLISTED.clear()
    listing = tree.repository_listing(root)
    scans = _counted(monkeypatch)
    found = tree.unlisted_copies(listing, "verl", MODULE)
    # every folder of depth <= 6: 1 + 31 + 5 * 90 = 482 listings in data/ (data/zz, a
    # copy, not searched further), 1 in libs/; none of depth 7 (data/s00/t0/u/v/w/y/z)
    assert [Path(c.root).relative_to(root).as_posix() for c in found] == ["data/zz", "libs"]
    assert len(scans) == len({f for f, _ in scans}) == 483
    assert not any(Path(f).relative_to(root).parts[7:] for f, _ in scans), scans
    assert tree.unlisted_copies(listing, "verl", MODULE) is found  # once a run
    assert len(scans) == 483
    monkeypatch.setattr(tree, "MAX_IGNORED_ENTRIES", 40)
    tree._UNLISTED.clear()
    scans.clear()
    # level by level: libs/ (depth 0) is listed before data/'s sub-folders spend the budget;
    # data/zz (depth 1, after s00..s29) lies past it
    found = tree.unlisted_copies(listing, "verl", MODULE)
    assert [Path(c.root).relative_to(root).as_posix() for c in found] == ["libs"]
    # each listing spends its entries + 1: data/ 32, libs/ 2, data/s00 4, data/s01 4 (42 >= 40)
    assert [(Path(f).relative_to(root).as_posix(), n) for f, n in scans] == [
        ("data", 31), ("libs", 1), ("data/s00", 3), ("data/s01", 3)]
    # the folders' budget (:data:`MAX_IGNORED_FOLDERS`) alike
    monkeypatch.setattr(tree, "MAX_IGNORED_ENTRIES", 10000)
    monkeypatch.setattr(tree, "MAX_IGNORED_FOLDERS", 3)
    tree._UNLISTED.clear()
    scans.clear()
    found = tree.unlisted_copies(listing, "verl", MODULE)
    assert [Path(c.root).relative_to(root).as_posix() for c in found] == ["libs"]
    assert [Path(f).relative_to(root).as_posix() for f, _ in scans] == ["data", "libs", "data/s00"]


def test_a_folder_of_more_entries_than_the_limit_is_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder of more than :data:`MAX_FOLDER_ENTRIES` entries is not looked into (its
    listing stops there, whatever the file system's order); one at the limit is."""
    monkeypatch.setattr(tree, "MAX_FOLDER_ENTRIES", 5)
    root = _files(tmp_path / "p", [".gitignore", *_copy("big"), *[f"big/f{i}" for i in range(5)],
                                   *_copy("small"), *[f"small/f{i}" for i in range(4)]])
    (root / ".gitignore").write_text("big/\nsmall/\n")
    scans = _counted(monkeypatch)
    assert _found(root) == [("small", "small", "ignored")]
    assert sorted((Path(f).name, n) for f, n in scans) == [("big", 6), ("small", 5)]
