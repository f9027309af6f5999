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


@pytest.mark.parametrize(
    ("works", "sizes", "processes", "shares"),
    [
        # item 12: the look-out (200 x (100 + 1,107) us) before this process's 88 files
        # (0.68 s), the child's 112 files with their parse (0.68 s)
        ([4_964] * 200, [2_268] * 200, 2, (88, [(88, 200)])),
        ([4_964] * 200, [2_268] * 200, 3, (46, [(46, 123), (123, 200)])),
        # the look-out outweighs a small share: every file to a child
        ([5, 1, 1, 1], [0] * 4, 2, (0, [(0, 4)])),
        ([1] * 5, [0] * 5, 8, (0, [(0, 1), (1, 2), (2, 4), (4, 5)])),
        # a heavy first file is this process's, the rest a child's (100.4 ms against 3 ms)
        ([100_000, 1_000, 1_000, 1_000], [0] * 4, 2, (1, [(1, 4)])),
        # 0.4 ms of look-out and two files here (20.4 ms), two in the child (20 ms)
        ([10_000] * 4, [0] * 4, 2, (2, [(2, 4)])),
    ],
)
def test_the_shares_even_out_the_look_out_and_the_files(works, sizes, processes, shares) -> None:
    from ppo_migrate.cli.runner import _overlap_shares

    assert _overlap_shares(works, sizes, processes) == shares


#: Runs ``run`` on the tree's modules (and ``tests/``) in this interpreter with the overlap
#: forced; prints the outcomes (path, codes, messages, applicability, diff), the forks made
#: and left unreaped, the progress calls, the order of ``on_outcome``'s calls and which
#: process analysed each file, as JSON. argv: jobs, mode, "die" (each child ends at once
#: with status 3) or "-".
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
        forked._child = lambda *args: os._exit(3)
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
    counting up to the total) are a serial run's; with three processes the two children
    share the files, none analysed twice."""
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
    for run in (two, three):
        assert [d for d, _ in run["shown"]] == list(range(1, 13))
        assert {t for _, t in run["shown"]} == {12}
        # each file analysed once, by this process (the first ones) or a child (the rest)
        assert sorted(path for who, path in run["analysed"]) == files
        mine = [path for who, path in run["analysed"] if who == "parent"]
        assert mine == files[: len(mine)] and len(mine) < 12
    assert "pkg/t11.py" not in [path for who, path in three["analysed"] if who == "parent"]


@pytest.mark.parametrize("mode", ["check", "diff"])
def test_a_child_s_file_a_test_double_reaches_is_analysed_again_with_it(tmp_path: Path, mode: str) -> None:
    """``tests/test_t10.py`` replaces the function in ``pkg/t10.py``: the child judged
    ``t10`` without the look-out's answer (a safe fix); this process judges it again with it
    (unsafe, naming the test), and only it: the outcomes are the serial run's."""
    files = _tree(tmp_path, double=True)
    serial = _run_script(tmp_path, 1, mode)
    two = _run_script(tmp_path, 2, mode)
    assert two["forks"] == 1 and two["left"] == []
    assert two["outcomes"] == serial["outcomes"]
    by_path = {o[0]: o for o in two["outcomes"]}
    (code, line, message, applicability), = by_path["pkg/t10.py"][3]
    assert (code, line, applicability) == ("PPO001", 5, "unsafe")
    assert "tests/test_t10.py:5" in message
    if mode == "diff":
        assert by_path["pkg/t10.py"][2] is None and "(config)" in by_path["pkg/t09.py"][2]
    # t10 is the child's (the last files are), analysed there and again here; no other twice
    analysed = [path for _, path in two["analysed"]]
    assert ["child", "pkg/t10.py"] in two["analysed"] and ["parent", "pkg/t10.py"] in two["analysed"]
    assert sorted(analysed) == sorted([*files, "pkg/t10.py", "tests/test_t10.py"])


def test_a_child_that_dies_has_its_files_analysed_through_the_pool(tmp_path: Path) -> None:
    """No finding is lost: a child that ends without its message (here at once, status 3)
    leaves its files to the pool's workers, forked after the look-out."""
    _tree(tmp_path, double=True)
    serial = _run_script(tmp_path, 1, "check")
    died = _run_script(tmp_path, 2, "check", "die")
    assert died["outcomes"] == serial["outcomes"]
    assert died["left"] == []
    assert died["forks"] >= 2  # the child, then the pool's workers
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
    assert len({r[0] for r in rows}) == 2  # this process's share and the child's
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
