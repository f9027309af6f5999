"""Issue 26's acceptance: each file is read once and parsed once by ``ast`` per run, counted
at the snapshot (:mod:`ppo_migrate.project.snapshot`), and LibCST parses only the files that
get a structural edit.

The tree: two files calling the runtime function (``app/train.py`` with its config in scope,
``app/helpers.py`` without), a caller of the latter passing its config to ``main(cfg)``
(``app/main.py``), a test patching the function, a ``pyproject.toml`` declaring ``verl>=0.9``
and a stub verl 0.9 package. Each command runs in this process (``run_cli``, ``--jobs 1``)
inside :func:`ppo_migrate.project.snapshot.recorded`, which hands over the run's snapshot.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_helpers import SUBPROCESS_ENV, run_cli
from ppo_migrate.rules.module import parsed_source
from ppo_migrate.files import UnreadableFile
from ppo_migrate.project import snapshot as snapshots
from ppo_migrate.project.snapshot import Snapshot

TREE = {
    "pyproject.toml": '[project]\nname = "trainer"\nversion = "0.1.0"\ndependencies = ["verl>=0.9"]\n',
    "verl/__init__.py": '__version__ = "0.9.0"\n',
    "verl/trainer/__init__.py": "",
    "verl/trainer/constants_ppo.py": 'def get_ppo_ray_runtime_env(config=None):\n    return {"env_vars": {}}\n',
    "app/__init__.py": "",
    "app/train.py": (
        "import ray\n\nfrom verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
        "def run(config):\n    ray.init(runtime_env=get_ppo_ray_runtime_env())\n"
    ),
    "app/helpers.py": (
        "import ray\n\nfrom verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
        "def start():\n    ray.init(runtime_env=get_ppo_ray_runtime_env())\n"
    ),
    "app/main.py": "from app.helpers import start\n\n\ndef main(cfg):\n    start()\n",
    "tests/test_helpers.py": (
        "from unittest import mock\n\n\ndef test_env_is_patched():\n"
        '    with mock.patch("app.helpers.get_ppo_ray_runtime_env", return_value={}) as fake:\n'
        "        assert fake() == {}\n"
    ),
}
PYTHON_FILES = sorted(p for p in TREE if p.endswith(".py"))
#: The files ``--thread-config`` changes with LibCST (a parameter added, a config passed).
THREADED = {"app/helpers.py", "app/main.py"}


@pytest.fixture(autouse=True)
def _in_process(monkeypatch) -> None:
    monkeypatch.delenv(SUBPROCESS_ENV, raising=False)  # the snapshot is this process's


def _tree(root: Path) -> Path:
    for rel, text in TREE.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _run(root: Path, *args: str):
    """``ppo-migrate ARGS --jobs 1 .`` in ``root``: the result and the run's one snapshot."""
    with snapshots.recorded() as made:
        proc = run_cli(*args, "--jobs", "1", "--no-progress", ".", cwd=root)
    assert proc.returncode in (0, 1), proc.stderr
    assert len(made) == 1, "one snapshot for the whole command"
    return proc, made[0]


def _relative(snapshot: Snapshot, root: Path) -> dict[str, snapshots.Counts]:
    """The snapshot's counts by path relative to ``root`` (a preview, ``apply --thread-config
    --diff``, reads and stages at the files' own paths: there is no copy). Paths the run
    only stat-ed or listed (:attr:`Snapshot.fs`), never read, parsed or wrote, are left out
    (:func:`test_a_run_stats_and_lists_each_path_once` counts those)."""
    out: dict[str, snapshots.Counts] = {}
    base = os.path.realpath(root)
    for key, counts in snapshot.counts.items():
        if not (counts.reads or counts.writes or counts.ast_parses or counts.cst_parses
                or counts.rewritten_parses):
            continue
        real = os.path.realpath(key)
        out[os.path.relpath(real, base) if real.startswith(base + os.sep) else key] = counts
    return out


@pytest.mark.parametrize(
    "args",
    [
        ("check",), ("apply", "--diff"), ("apply",), ("apply", "--thread-config"),
        ("apply", "--thread-config", "--diff"),
    ],
    ids=lambda a: " ".join(a),
)
def test_each_file_is_read_once_and_parsed_once_per_run(tmp_path: Path, args: tuple[str, ...]) -> None:
    root = _tree(tmp_path / "project")
    proc, snapshot = _run(root, *args)
    counts = _relative(snapshot, root)
    for key, c in counts.items():
        assert c.reads == 1, (key, c)
        assert c.ast_parses <= 1, (key, c)
    preview = "--thread-config" in args and "--diff" in args
    # the run read every Python file of the tree and the dependency file, each once
    for rel in [*PYTHON_FILES, "pyproject.toml"]:
        assert counts[rel].reads == 1, rel
    # what it analysed, it parsed: the calling files, the caller, the test double, the copy of
    # verl whose definition decides the fix
    for rel in ("app/train.py", "app/helpers.py", "app/main.py", "tests/test_helpers.py"):
        assert counts[rel].ast_parses == 1, rel
    assert counts["verl/trainer/constants_ppo.py"].ast_parses == 1
    # LibCST only for the files --thread-config changes
    threaded = set(THREADED) if "--thread-config" in args else set()
    for key, c in counts.items():
        assert c.cst_parses == (1 if key in threaded else 0), (key, c)
    if args == ("apply",):
        assert "get_ppo_ray_runtime_env(config)" in (root / "app/train.py").read_text()
        assert counts["app/train.py"].writes == 1
    if preview:
        assert "+def start(config=None):" in proc.stdout
        assert "+    start(config=cfg)" in proc.stdout
        assert (root / "app/main.py").read_text() == TREE["app/main.py"]  # a preview writes nothing
        # its edits are in the overlay: the per-file fix of train.py, the threading of the
        # other two; the re-check read helpers.py's new text there (parsed as text the run
        # made, not read again; main.py names no target: the prefilter leaves it)
        assert set(snapshot.overlaid()) == {str(root / rel) for rel in ("app/train.py", *THREADED)}
        for rel in ("app/train.py", *THREADED):
            assert counts[rel].writes == 1, rel
            assert counts[rel].rewritten_parses == (1 if rel == "app/helpers.py" else 0), rel
            original, staged = snapshot.overlaid()[str(root / rel)]
            assert original == TREE[rel].encode() and staged != original
            assert snapshot.read_bytes(root / rel) == staged
    elif "--thread-config" in args:
        assert "start(config=cfg)" in (root / "app/main.py").read_text()
        for rel in THREADED:  # written once, and not read or parsed again after
            assert counts[rel].writes == 1, rel


def test_a_file_written_by_the_run_is_not_read_again(tmp_path: Path) -> None:
    root = _tree(tmp_path / "project")
    _, snapshot = _run(root, "apply", "--thread-config")
    counts = _relative(snapshot, root)
    for rel in THREADED:
        assert counts[rel].writes == 1
        assert counts[rel].reads == 1
        assert counts[rel].cst_parses == 1
    assert "def start(config=None):" in (root / "app/helpers.py").read_text()
    for key, c in counts.items():
        assert c.reads == 1 and c.ast_parses <= 1, (key, c)


def test_use_ppo_runtime_parses_with_libcst_only_the_files_whose_imports_move(tmp_path: Path) -> None:
    root = _tree(tmp_path / "project")
    _, snapshot = _run(root, "apply", "--use-ppo-runtime", "--diff")
    counts = _relative(snapshot, root)
    for key, c in counts.items():
        assert c.reads == 1 and c.ast_parses <= 1, (key, c)
        moved = key in ("app/train.py", "app/helpers.py")  # ``from verl... import get_...``
        assert c.cst_parses == (1 if moved else 0), (key, c)


# ----------------------------------------------------------------------------- the counts


def test_a_second_read_through_the_snapshot_is_not_counted_but_a_fresh_snapshot_reads(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    snapshot = Snapshot()
    first = snapshot.source(path)
    assert snapshot.source(str(path)) is first  # one entry, however the path is spelt
    assert snapshot.read_bytes(path) == b"x = 1\n"
    assert snapshot.read_text(path) == "x = 1\n"
    assert snapshot.counts_of(path).reads == 1
    assert first.tree() is first.tree() and parsed_source(first, "m.py").tree is first.tree()
    assert snapshot.counts_of(path).ast_parses == 1
    path.write_text("x = 2\n")  # the snapshot keeps what it read
    assert snapshot.read_bytes(path) == b"x = 1\n"
    fresh = Snapshot()
    assert fresh.read_bytes(path) == b"x = 2\n"
    assert fresh.counts_of(path).reads == 1 and fresh.counts_of(path).ast_parses == 0
    fresh.source(path).tree()
    assert fresh.counts_of(path).ast_parses == 1


def test_a_repeated_ask_for_held_bytes_gives_them_without_a_read_whatever_the_spelling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Benchmark item 10 asks ``read_bytes`` ~11 times a file (the prefilter, the re-exports,
    the index's searches, the caller phase, the ``full`` format): every ask after the first
    is the held bytes, by any spelling of the path, and the run's own changes still win."""
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    monkeypatch.chdir(tmp_path)
    snapshot = Snapshot()
    assert snapshot.read_bytes("m.py") == b"x = 1\n"
    path.write_text("x = 2\n")
    assert [snapshot.read_bytes(p) for p in ("m.py", str(path), path, "./m.py")] == [b"x = 1\n"] * 4
    assert snapshot.counts_of(path).reads == 1
    snapshot.overlay(path, b"x = 3\n")
    assert snapshot.read_bytes("m.py") == b"x = 3\n" and snapshot.read_bytes(path) == b"x = 3\n"
    assert snapshot.counts_of(path).reads == 1
    assert snapshot.root_of("m.py") == snapshot.root_of(path)


def test_what_a_higher_layer_derives_is_made_once_and_dropped_with_the_trees(tmp_path: Path) -> None:
    """The snapshot imports no analysis: a layer above hands in its own builder
    (:func:`ppo_migrate.rules.module.parsed_source` does), made once a file; a failure is
    kept and raised again; all of it goes with the trees."""
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    snapshot = Snapshot()
    source = snapshot.source(path)
    built: list[str] = []

    def build(file):
        built.append(file.key)
        return len(file.tree().body)

    assert source.derived("test.kind", build) == 1
    assert source.derived("test.kind", build) == 1 and len(built) == 1
    assert snapshot.counts_of(path).ast_parses == 1

    def fail(file):
        built.append("failed")
        raise ValueError("no")

    for _ in range(2):
        with pytest.raises(ValueError, match="no"):
            source.derived("test.failing", fail)
    assert built.count("failed") == 1
    snapshot.release_trees()
    assert source.derived("test.kind", build) == 1 and len(built) == 3
    assert snapshot.counts_of(path).ast_parses == 2  # the tree went too: counted again


def test_the_search_for_import_roots_reads_through_the_snapshot(tmp_path: Path, monkeypatch) -> None:
    """The files a repository may put folders on ``sys.path`` with are the run's files too:
    read once a run (a FIFO never opened; a file beyond the search's limit read for its head
    only, and not kept)."""
    from ppo_migrate.project import import_roots

    monkeypatch.setattr(import_roots, "_MAX_BYTES", 16)
    path = tmp_path / "m.py"
    path.write_text("import sys\nsys.path.insert(0, 'x')\n")
    small = tmp_path / "s.py"
    small.write_text("x = 1\n")
    with snapshots.run_scope() as run:
        run.read_bytes(small, keep=True)  # the prefilter's
        small.write_text("y = 22\n")
        assert import_roots._read(str(small)) == b"x = 1\n"  # the run's bytes, not read again
        assert import_roots._read(str(path)) == b"import sys\nsys.p"
        assert not run.holds(path)
        os.mkfifo(tmp_path / "fifo.py")
        assert import_roots._read(str(tmp_path / "fifo.py")) is None
        assert import_roots._read(str(tmp_path / "gone.py")) is None
    assert run.counts_of(small).reads == 1
    assert run.counts_of(tmp_path / "fifo.py").reads == 0


def test_outside_a_run_every_read_is_a_read(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    assert snapshots.active() is None
    assert snapshots.current() is not snapshots.current()
    with snapshots.run_scope() as run:
        assert snapshots.current() is run
        with snapshots.run_scope() as inner:  # a run inside a command: the same snapshot
            assert inner is run
    assert snapshots.active() is None


def test_a_failed_read_is_counted_once_and_raised_each_time(tmp_path: Path) -> None:
    snapshot = Snapshot()
    missing = tmp_path / "gone.py"
    for _ in range(2):
        with pytest.raises(UnreadableFile, match="no such file"):
            snapshot.source(missing)
        with pytest.raises(FileNotFoundError):
            snapshot.read_bytes(missing)
    assert snapshot.counts_of(missing).reads == 1
    with pytest.raises(IsADirectoryError):
        snapshot.read_bytes(tmp_path)


def test_a_syntax_error_is_parsed_once(tmp_path: Path) -> None:
    from ppo_migrate.rules.module import SourceProblem

    path = tmp_path / "bad.py"
    path.write_text("def f(:\n")
    snapshot = Snapshot()
    source = snapshot.source(path)
    for _ in range(2):
        with pytest.raises(SyntaxError):
            source.tree()
        with pytest.raises(SourceProblem, match="syntax error"):
            parsed_source(source, "bad.py")
    assert snapshot.counts_of(path).ast_parses == 1


def test_read_text_reads_as_open_does(tmp_path: Path) -> None:
    path = tmp_path / "requirements.txt"
    path.write_bytes(b"verl>=0.9\r\nray\rtorch\n")
    snapshot = Snapshot()
    with open(path, encoding="utf-8") as f:
        assert snapshot.read_text(path) == f.read()
    path.write_bytes(b"\xff\n")
    with pytest.raises(UnicodeDecodeError):
        Snapshot().read_text(path)
    assert Snapshot().read_text(path, errors="replace") == "\ufffd\n"


def test_written_bytes_are_what_later_askers_get(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    snapshot = Snapshot()
    snapshot.source(path).tree()
    path.write_text("x = 22\n")  # as the run's atomic write would
    snapshot.written(path, b"x = 22\n")
    source = snapshot.source(path)
    assert source.data == b"x = 22\n" and source.stat.st_size == 7
    source.tree()
    counts = snapshot.counts_of(path)
    assert (counts.reads, counts.ast_parses, counts.rewritten_parses, counts.writes) == (1, 1, 1, 1)
    snapshot.forget(path)
    assert snapshot.read_bytes(path) == b"x = 22\n"
    assert counts.reads == 2  # dropped, then read: counted


def test_a_snapshot_file_goes_to_another_process_as_the_plain_file(tmp_path: Path) -> None:
    import pickle

    from ppo_migrate.files import SourceFile as ReadFile

    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    source = Snapshot().source(path)
    source.tree()
    sent = pickle.loads(pickle.dumps(source))
    assert type(sent) is ReadFile and sent == source


def test_trees_are_kept_within_the_budget_the_first_ones_first(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(snapshots, "TREE_CHARS", 10)
    paths = []
    for name in ("a", "b", "c"):
        path = tmp_path / f"{name}.py"
        path.write_text("x = 1\n")  # 6 bytes: the budget holds one
        paths.append(path)
    snapshot = Snapshot()
    a, b, c = (snapshot.source(p) for p in paths)
    for source in (a, b, c, a, b):
        source.tree()
    counts = [snapshot.counts_of(p).ast_parses for p in paths]
    assert counts == [1, 2, 1]  # a kept; b dropped when c's tree was made, parsed again
    assert a.tree() is a.tree() and b.tree() is b.tree()
    snapshot.release_trees()
    a.tree()
    assert snapshot.counts_of(paths[0]).ast_parses == 2


def test_search_reads_are_kept_within_their_budget(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(snapshots, "OPTIONAL_BYTES", 10)
    first, second = tmp_path / "a.py", tmp_path / "b.py"
    first.write_text("x = 1\n")
    second.write_text("y = 2\n")
    snapshot = Snapshot()
    assert snapshot.read_bytes(first) == b"x = 1\n"
    assert snapshot.read_bytes(second) == b"y = 2\n"  # over the budget: not kept
    assert snapshot.holds(first) and not snapshot.holds(second)
    snapshot.read_bytes(second, keep=True)  # analysed: kept whatever the budget
    assert snapshot.holds(second)
    assert snapshot.counts_of(second).reads == 2


def test_a_kept_failure_holds_no_frames(tmp_path: Path) -> None:
    snapshot = Snapshot()
    missing = tmp_path / "gone.py"
    for _ in range(2):
        with pytest.raises(OSError) as raised:
            snapshot.read_bytes(missing)
        assert raised.value.__traceback__ is not None  # the copy raised has one
    kept = snapshot._files[snapshot.key(missing)]
    assert kept.error.__traceback__ is None and kept.os_error.__traceback__ is None


# ----------------------------------------------------------------------------- the overlay


def test_the_overlay_is_what_every_read_sees_and_writes_nothing(tmp_path: Path) -> None:
    """Issue 26, step 7: ``overlay`` records new bytes; ``source``, ``read_bytes``,
    ``read_text``, the tree and ``stamp`` see them, a budget's drop does not lose them, the
    bytes before the first overlay are kept, and the disk is never touched."""
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\r\n")
    disk = os.stat(path)
    snapshot = Snapshot()
    assert snapshot.stamp(path) == (disk.st_mtime_ns, 7)
    assert snapshot.stamp(path) == (disk.st_mtime_ns, 7)
    assert snapshot.counts_of(path).stats == 1  # through the FileSystem, once a run
    snapshot.source(path).tree()
    snapshot.overlay(path, b"x = 22\n")
    snapshot.fs.stat(path)  # the overlay made the FileSystem forget the path's stat
    assert snapshot.counts_of(path).stats == 2
    staged = snapshot.source(path)
    assert (staged.data, snapshot.read_bytes(path), snapshot.read_text(path)) == (
        b"x = 22\n", b"x = 22\n", "x = 22\n"
    )
    assert staged.tree().body[0].value.value == 22
    first = snapshot.stamp(path)
    assert first[0] < 0 and first[1] == 7  # its own stamp: the overlaid size, no disk mtime
    snapshot.optional(path)
    snapshot.forget(path)  # dropped from the files held: the overlay stays
    assert snapshot.read_bytes(path) == b"x = 22\n" and snapshot.holds(path)
    snapshot.overlay(path, b"x = 333\n")
    second = snapshot.stamp(path)
    assert second[1] == 8 and second[0] < 0 and second != first
    assert snapshot.overlaid() == {str(path): (b"x = 1\r\n", b"x = 333\n")}
    c = snapshot.counts_of(path)
    assert (c.reads, c.ast_parses, c.rewritten_parses, c.writes) == (1, 1, 1, 2)
    assert path.read_bytes() == b"x = 1\r\n" and os.stat(path).st_mtime_ns == disk.st_mtime_ns
    assert Snapshot().read_bytes(path) == b"x = 1\r\n"  # another run: the disk
    state = snapshot.worker_state()
    assert state is not None and state[0] is False and set(state[1]) == {str(path)}
    assert Snapshot().worker_state() is None


@pytest.mark.parametrize("args", [("check",), ("apply", "--thread-config")], ids=" ".join)
def test_a_run_stats_and_lists_each_path_once(tmp_path: Path, args: tuple[str, ...]) -> None:
    """Issue 26: the analysis's questions about the file system go through the snapshot's
    FileSystem, which asks the disk once a run: no path is stat-ed twice, no folder listed
    twice, whatever the number of files asking (the callee in effect asks, for every calling
    file, whether ``verl/__init__.py`` exists at each level up to the root)."""
    root = _tree(tmp_path / "project")
    _, snapshot = _run(root, *args)
    stats = {k: c.stats for k, c in snapshot.counts.items() if c.stats}
    listings = {k: c.listings for k, c in snapshot.counts.items() if c.listings}
    assert stats and all(n == 1 for n in stats.values()), stats
    assert all(n == 1 for n in listings.values()), listings
    # the copy's package file was asked about (the levels' search), once
    assert snapshot.counts_of(root / "app" / "verl" / "__init__.py").stats == 1
