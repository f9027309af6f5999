"""``ppo_migrate.cli.runner``'s overlap of the per-file phase with the test doubles' look-out
(issue 26, benchmark item 12: ``apply --diff --jobs 2`` against ``--jobs 1``): children
forked before the look-out analyse their shares without its answer, this process makes the
look-out and its own share, and a child's file that a replacement found reaches is analysed
again here with it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import NamedTuple

import pytest

from cli_helpers import declare_verl, run_cli

#: PPO001 with a safe fix (the config is a parameter of a module-level function)
TRAINER = (
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def run_ppo_{i}(config):\n    return get_ppo_ray_runtime_env()\n"
)
#: PPO002: an entry point without a config in scope
ENTRY = (
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def main():\n    return get_ppo_ray_runtime_env()\n"
)
#: a test replacing the function in ``pkg/t10.py`` (family 4 of issue 26)
DOUBLE = (
    "import pkg.t10 as launcher\n\n\n"
    "def test_launch(monkeypatch):\n"
    "    monkeypatch.setattr(launcher, 'get_ppo_ray_runtime_env', lambda: {'fake': 1})\n"
)


def _tree(root: Path, files: int = 12, double: bool = False) -> list[str]:
    """``files`` modules under ``root/pkg`` (every fourth one an entry point), the verl it
    runs declared, and with ``double`` a test replacing the function in ``pkg/t10.py``; the
    paths of the modules relative to ``root``, sorted."""
    declare_verl(root)
    pkg = root / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for i in range(files):
        (pkg / f"t{i:02d}.py").write_text(ENTRY if i % 4 == 3 else TRAINER.format(i=i))
    if double:
        (root / "tests").mkdir()
        (root / "tests" / "test_t10.py").write_text(DOUBLE)
    return sorted(f"pkg/t{i:02d}.py" for i in range(files))


def test_the_overlap_takes_the_runs_the_pool_paid_for_that_write_nothing(monkeypatch) -> None:
    """Where more processes pay (:func:`use_pool`: item 12's 200 modules of 15 calls),
    ``check`` and ``apply --diff`` overlap the look-out; ``apply`` writes each file as soon as
    it is analysed and keeps the pool; what the pool would not pay for stays serial, and the
    pool's own tests still get the pool."""
    from ppo_migrate.cli import runner
    from ppo_migrate.cli.modes import Mode
    from ppo_migrate.cli.runner import _per_file_way, candidate_work
    from ppo_migrate.project.snapshot import run_scope, staged

    monkeypatch.delenv(runner.FORCE_POOL_ENV, raising=False)
    monkeypatch.delenv(runner.FORCE_OVERLAP_ENV, raising=False)
    item_12 = [candidate_work(2268, 16)] * 200  # 4,964 us a file
    item_9 = [candidate_work(2231, 5)] * 135  # 2,203 us a file: the pool does not pay
    with run_scope() as snapshot:
        assert _per_file_way(2, item_12, Mode.DIFF) == "overlap"
        assert _per_file_way(2, item_12, Mode.CHECK) == "overlap"
        assert _per_file_way(3, item_12, Mode.DIFF) == "overlap"
        assert _per_file_way(2, item_12, Mode.APPLY) == "pool"
        assert _per_file_way(1, item_12, Mode.DIFF) == "serial"
        assert _per_file_way(2, item_9, Mode.DIFF) == "serial"
        assert _per_file_way(2, [1_500] * 12, Mode.CHECK) == "serial"
        with staged(snapshot):  # a preview's rewrites are staged: the pool's workers stage them
            assert _per_file_way(2, item_12, Mode.DIFF) == "pool"
        assert _per_file_way(2, item_12, Mode.DIFF, force_pool=True) == "pool"
        monkeypatch.setenv(runner.FORCE_OVERLAP_ENV, "1")
        assert _per_file_way(2, [300, 300], Mode.CHECK) == "overlap"
        assert _per_file_way(2, [300], Mode.CHECK) == "serial"  # one file: nothing to share
        assert _per_file_way(2, [300, 300], Mode.APPLY) == "serial"
        monkeypatch.setattr(runner.sys, "platform", "darwin")  # the pool spawns there
        assert _per_file_way(2, item_12, Mode.DIFF) == "pool"
        monkeypatch.setattr(runner.sys, "platform", "linux")
        monkeypatch.setenv(runner.FORCE_POOL_ENV, "1")
        assert _per_file_way(2, item_12, Mode.DIFF) == "pool"


class _Done(NamedTuple):
    """What the children of :func:`test_the_queue_hands_each_file_to_one_process` send back."""

    path: str
    pid: int


def _take_all(paths: list[str], children: int) -> tuple[dict[int, int], list[int]]:
    """Fork ``children`` children over ``paths`` (each answers with its pid), take files here
    too; ``(number -> pid of the process that took it, the children's pids)``."""
    from ppo_migrate.cli import forked

    parent = os.getpid()
    got = forked.fork(paths, lambda p: _Done(p, os.getpid()), children=children)
    pids = [pid for pid in got.pids if pid is not None]
    took: dict[int, int] = {}
    try:
        while (taken := got.take()) is not None:
            for k in taken:
                assert k not in took
                took[k] = parent
        for done in got.collect(lambda: None):
            assert done is not None
            for k, outcome in done:
                assert k not in took and outcome.path == paths[k] and outcome.pid in pids
                took[k] = outcome.pid
    finally:
        got.kill()
    return took, pids


@pytest.mark.parametrize(("files", "children"), [(2, 1), (60, 1), (60, 3), (2_500, 2)])
def test_the_queue_hands_each_file_to_one_process(files: int, children: int) -> None:
    """Every file is analysed exactly once, by this process or a child, whichever takes it
    first; above :data:`ppo_migrate.cli.forked.MAX_TOKENS` files a number stands for a run
    of consecutive files (3 for 2,500), still each taken once."""
    from ppo_migrate.cli import forked

    paths = [f"m{i}.py" for i in range(files)]
    took, pids = _take_all(paths, children)
    assert sorted(took) == list(range(files))
    assert len(pids) == children
    assert set(took.values()) <= {os.getpid(), *pids}
    assert forked._span(files) == (3 if files == 2_500 else 1)
    assert forked._span(forked.MAX_TOKENS) == 1 and forked._span(forked.MAX_TOKENS + 1) == 2


def test_a_dead_child_s_files_are_the_ones_no_one_answered_for() -> None:
    """A child that dies sends nothing (``None``); the files it had taken are in no answer."""
    from ppo_migrate.cli import forked

    paths = [f"m{i}.py" for i in range(20)]

    def analyse(p: str) -> _Done:
        if p == "m3.py":
            os._exit(5)
        return _Done(p, os.getpid())

    got = forked.fork(paths, analyse, children=1)
    try:
        answers = got.collect(lambda: None)  # this process takes none: the child meets m3
        rest = []  # what the child had not taken is still in the queue, in order
        while (taken := got.take()) is not None:
            rest.extend(taken)
    finally:
        got.kill()
    assert answers == [None]
    assert rest == list(range(4, 20))  # m0-m3 went with the child: no one answered for them
    assert got.take() is None  # the queue closed with the children


#: Runs ``run`` on the tree's modules (and ``tests/``) in this interpreter with the overlap
#: forced; prints the outcomes (path, codes, messages, applicability, diff), the forks made
#: and left unreaped, the progress calls, the order of ``on_outcome``'s calls and which
#: process analysed each file, as JSON. argv: jobs, mode, "die" (each child takes two
#: files and ends with status 3 before this process takes any), "children" (this process takes no file from the queue: the children
#: analyse them all) or "-".
SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    from pathlib import Path
    from ppo_migrate.cli import forked, runner
    from ppo_migrate.cli.runner import Mode, run
    from ppo_migrate.cli.settings import load_settings

    forks, log, parent = [], Path(sys.argv[4]), os.getpid()
    real_fork, real_process = os.fork, runner.process_file

    def fork():
        pid = real_fork()
        if pid:
            forks.append(pid)
        return pid

    def process_file(path, settings, mode):
        with log.open("a") as out:
            out.write(f"{'parent' if os.getpid() == parent else 'child'} {path}\\n")
        return real_process(path, settings, mode)

    os.fork = fork
    runner.process_file = process_file
    if sys.argv[3] == "die":
        forked._child = lambda paths, queue, *rest: (os.read(queue, 8), os._exit(3))
        real_take = forked.Children.take

        def take(self):
            for i, pid in enumerate(self.pids):  # the children end first
                if pid is not None:
                    os.waitpid(pid, 0)
                    self.pids[i] = None
            return real_take(self)

        forked.Children.take = take
    if sys.argv[3] == "children":
        forked.Children.take = lambda self: None
    files = sorted(str(p) for p in Path(".").glob("*/*.py") if p.name != "__init__.py")
    shown, reported = [], []
    result = run(
        files, load_settings(["pkg"]), Mode(sys.argv[2]), jobs=int(sys.argv[1]),
        progress=lambda done, total, path: shown.append((done, total)),
        on_outcome=lambda o: reported.append(o.path),
    )
    outcomes = [
        [o.path, o.internal_error, o.diff.decode() if o.diff else None,
         [[d.code, d.line, d.message, d.fix.applicability if d.fix else None] for d in o.diagnostics]]
        for o in result.outcomes
    ]
    left = []
    for pid in forks:
        try:
            os.waitpid(pid, os.WNOHANG)
            left.append(pid)
        except ChildProcessError:  # reaped by the run
            pass
    print(json.dumps({"outcomes": outcomes, "forks": len(forks), "left": left,
                      "shown": shown, "reported": reported}))
    """
)


def _run_script(root: Path, jobs: int, mode: str, child: str = "-") -> dict:
    log = root / f"analysed-{jobs}-{mode}-{child}.log"
    env = {**os.environ, "PPO_MIGRATE_TEST_FORCE_OVERLAP": "1"}
    env.pop("PPO_MIGRATE_TEST_FORCE_POOL", None)
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(jobs), mode, child, str(log)], cwd=root,
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    out["analysed"] = [line.split() for line in log.read_text().splitlines()]
    return out


@pytest.mark.parametrize("mode", ["check", "diff"])
def test_an_overlapped_run_gives_the_serial_run_s_outcomes(tmp_path: Path, mode: str) -> None:
    """The outcomes, the order ``on_outcome`` sees them and the progress (one call a file,
    counting up to the total) are a serial run's, whichever process takes which file; with
    three processes the two children share the files, none analysed twice."""
    files = _tree(tmp_path)
    serial = _run_script(tmp_path, 1, mode)
    two = _run_script(tmp_path, 2, mode)
    three = _run_script(tmp_path, 3, mode)
    assert serial["forks"] == 0 and two["forks"] == 1 and three["forks"] == 2
    assert two["left"] == three["left"] == []
    assert two["outcomes"] == three["outcomes"] == serial["outcomes"]
    assert [o[0] for o in two["outcomes"]] == files
    codes = [[d[0] for d in o[3]] for o in two["outcomes"]]
    if mode == "check":
        assert codes == [["PPO002"] if i % 4 == 3 else ["PPO001"] for i in range(12)]
        assert two["outcomes"][10][3][0][3] == "safe"
    else:  # the fixes made, the entry points left
        assert codes == [["PPO002"] if i % 4 == 3 else [] for i in range(12)]
        assert "+    return get_ppo_ray_runtime_env(config)" in two["outcomes"][10][2]
    assert sorted(two["reported"]) == sorted(serial["reported"]) == files
    children = _run_script(tmp_path, 2, mode, "children")
    assert children["outcomes"] == serial["outcomes"]
    for run in (two, three, children):
        assert [d for d, _ in run["shown"]] == list(range(1, 13))
        assert {t for _, t in run["shown"]} == {12}
        # each file analysed once, by this process or a child, whichever took it
        assert sorted(path for who, path in run["analysed"]) == files
    assert {who for who, _ in children["analysed"]} == {"child"}


@pytest.mark.parametrize("mode", ["check", "diff"])
def test_a_child_s_file_a_test_double_reaches_is_analysed_again_with_it(tmp_path: Path, mode: str) -> None:
    """``tests/test_t10.py`` replaces the function in ``pkg/t10.py``: the child judged
    ``t10`` without the look-out's answer (a safe fix); this process judges it again with it
    (unsafe, naming the test), and only it: the outcomes are the serial run's. (The child
    takes every file here: this process takes none from the queue.)"""
    files = _tree(tmp_path, double=True)
    serial = _run_script(tmp_path, 1, mode)
    assert _run_script(tmp_path, 2, mode)["outcomes"] == serial["outcomes"]  # any taker
    two = _run_script(tmp_path, 2, mode, "children")
    assert two["forks"] == 1 and two["left"] == []
    assert two["outcomes"] == serial["outcomes"]
    by_path = {o[0]: o for o in two["outcomes"]}
    (code, line, message, applicability), = by_path["pkg/t10.py"][3]
    assert (code, line, applicability) == ("PPO001", 5, "unsafe")
    assert "tests/test_t10.py:5" in message
    if mode == "diff":
        assert by_path["pkg/t10.py"][2] is None and "(config)" in by_path["pkg/t09.py"][2]
    # t10 analysed by the child and again here; no other file twice
    analysed = [path for _, path in two["analysed"]]
    assert ["child", "pkg/t10.py"] in two["analysed"] and ["parent", "pkg/t10.py"] in two["analysed"]
    assert [path for who, path in two["analysed"] if who == "parent"] == ["pkg/t10.py"]
    assert sorted(analysed) == sorted([*files, "pkg/t10.py", "tests/test_t10.py"])


def test_a_child_that_dies_has_its_files_analysed_through_the_pool(tmp_path: Path) -> None:
    """No finding is lost: a child that ends without its message (here after taking two
    files, status 3) leaves the files it took to the pool's workers, forked after the
    look-out; this process takes the rest from the queue."""
    _tree(tmp_path, double=True)
    serial = _run_script(tmp_path, 1, "check")
    died = _run_script(tmp_path, 2, "check", "die")
    assert died["outcomes"] == serial["outcomes"]
    assert died["left"] == []
    assert died["forks"] >= 2  # the child, then the pool's workers
    mine = sorted(path for who, path in died["analysed"] if who == "parent")
    assert mine == sorted(o[0] for o in serial["outcomes"])[2:]  # the child took the first two
    assert [d for d, _ in died["shown"]][-1] == 13
    assert all(b >= a for a, b in zip(died["shown"], died["shown"][1:]))


#: ``apply --diff`` with the overlap forced, whose child never answers (it sleeps); a SIGINT
#: to this process one second in. Prints whether the run was interrupted, how long it took
#: and the child's fate.
CTRL_C = textwrap.dedent(
    """
    import os, signal, sys, threading, time
    from ppo_migrate.cli import forked
    from ppo_migrate.cli.runner import Mode, run
    from ppo_migrate.cli.settings import load_settings

    forks = []
    real_fork = os.fork

    def fork():
        pid = real_fork()
        if pid:
            forks.append(pid)
        return pid

    os.fork = fork
    forked._child = lambda *args: (time.sleep(60), os._exit(0))
    threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    files = sorted(str(p) for p in __import__("pathlib").Path("pkg").glob("t*.py"))
    start = time.monotonic()
    result = run(files, load_settings(["pkg"]), Mode.DIFF, jobs=2)
    took = time.monotonic() - start
    try:
        os.waitpid(forks[0], os.WNOHANG)
        fate = "left"
    except ChildProcessError:
        fate = "reaped"
    print(result.interrupted, took < 10, len(forks), fate)
    """
)


def test_ctrl_c_while_waiting_for_a_child_stops_it_and_the_run(tmp_path: Path) -> None:
    _tree(tmp_path)
    env = {**os.environ, "PPO_MIGRATE_TEST_FORCE_OVERLAP": "1"}
    env.pop("PPO_MIGRATE_TEST_FORCE_POOL", None)
    proc = subprocess.run(
        [sys.executable, "-c", CTRL_C], cwd=tmp_path, capture_output=True, text=True,
        timeout=120, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "True", "1", "reaped"]


#: Each file's counts at the snapshot where it was analysed, written by the process that
#: analysed it: ``pid path reads ast_parses``.
COUNTS = textwrap.dedent(
    """
    import os, sys
    from ppo_migrate.cli import runner
    from ppo_migrate.cli.entry import main
    from ppo_migrate.project.snapshot import current

    real, log_path = runner.process_file, sys.argv[1]

    def counted(path, settings, mode):
        outcome = real(path, settings, mode)
        counts = current().counts_of(path)
        with open(log_path, "a") as log:
            log.write(f"{os.getpid()} {path} {counts.reads} {counts.ast_parses}\\n")
        return outcome

    runner.process_file = counted
    with open(log_path, "a") as log:
        log.write(f"{os.getpid()} main - -\\n")
    sys.argv = ["ppo-migrate", "apply", "--diff", "--no-progress", "--jobs", "2", "--exit-zero", "pkg"]
    main()
    """
)


def test_a_child_reads_no_file_again_and_parses_each_of_its_files_once(tmp_path: Path) -> None:
    """Issue 26's "each file read once, parsed once", per process: the bytes were read
    before the fork (the child's counts are inherited); a child parses each file of its
    share once, for its analysis (this process's look-out parses them too, in its own
    snapshot: the one tree a process cannot hand another)."""
    files = _tree(tmp_path)
    log = tmp_path / "counts.log"
    env = {**os.environ, "PPO_MIGRATE_TEST_FORCE_OVERLAP": "1"}
    env.pop("PPO_MIGRATE_TEST_FORCE_POOL", None)
    proc = subprocess.run(
        [sys.executable, "-c", COUNTS, str(log)], cwd=tmp_path, capture_output=True, text=True,
        timeout=300, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    (main, *rows) = [line.split() for line in log.read_text().splitlines()]
    assert main[1] == "main"
    assert sorted(r[1] for r in rows) == files
    # this process's files and the child's (whichever took which: one of them may take all)
    assert len({r[0] for r in rows}) in (1, 2) and len(rows) == len(files)
    assert {(r[2], r[3]) for r in rows} == {("1", "1")}


def test_check_and_apply_diff_print_the_same_overlapped_as_with_jobs_1(tmp_path: Path) -> None:
    """The CLI's outputs, byte for byte, a test double among the files: ``apply --diff``
    (the overlap) and ``check --output-format json`` (a scouted run: no overlap)."""
    _tree(tmp_path, double=True)
    env = {"PPO_MIGRATE_TEST_FORCE_OVERLAP": "1"}
    for args in (("apply", "--diff"), ("check", "--output-format", "json")):
        one = run_cli(*args, "--jobs", "1", "--no-progress", ".", cwd=tmp_path)
        two = run_cli(*args, "--jobs", "2", "--no-progress", ".", cwd=tmp_path, env=env)
        assert (two.returncode, two.stdout, two.stderr) == (one.returncode, one.stdout, one.stderr)
        assert one.returncode == 1 and "pkg/t00.py" in one.stdout
