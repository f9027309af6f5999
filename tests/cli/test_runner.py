"""``ppo_migrate.cli.runner``: a Ctrl-C the interpreter would lose still stops the run."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cli_helpers import declare_verl

# Run in a fresh interpreter: a real SIGINT to itself, Python's default handler
# installed, the real runner on real files. After the first file, the signal is
# handled inside a finalizer (a ``__del__`` run by ``del``), where the interpreter
# prints "Exception ignored" and drops the KeyboardInterrupt -- as it does when the
# signal lands in a generator the garbage collector closes while LibCST works.
SCRIPT = textwrap.dedent(
    """
    import os, signal, sys, time
    from ppo_migrate.cli.runner import Mode, run
    from ppo_migrate.cli.settings import load_settings

    class SignalledInFinalizer:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGINT)
            deadline = time.monotonic() + 2
            while time.monotonic() < deadline:  # bytecode: the handler runs here
                pass

    fired = []

    def on_progress(done, total, path):  # not on_outcome: that runs with Ctrl-C held back
        if not fired:
            fired.append(path)
            obj = SignalledInFinalizer()
            del obj

    files = sorted(str(p) for p in __import__("pathlib").Path("pkg").glob("*.py"))
    settings = load_settings(["pkg"])
    result = run(files, settings, Mode.APPLY, jobs=int(sys.argv[1]), progress=on_progress)
    written = sum(o.written for o in result.outcomes)
    print(result.interrupted, len(result.outcomes), written, len(files))
    """
)

#: the config is loaded where it is used, so the fix rests on no parameter and each file is
#: written in the per-file phase (a fix passing a parameter is written after the callers in
#: other files are judged, once every file is done: see ``runner.run``)
TRAINER = (
    "from omegaconf import OmegaConf\n"
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def run_ppo_{i}():\n    config = OmegaConf.create({{'trainer': {{'n_gpus_per_node': 1}}}})\n    return get_ppo_ray_runtime_env()\n"
)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_lost_in_a_finalizer_still_stops_the_run(
    tmp_path: Path, jobs: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bug (the Ctrl-C flake of test_performance_guards): a SIGINT handled while a
    finalizer ran raised KeyboardInterrupt there, Python dropped it, and the run went on
    to the last file. The handler also records the request, checked after every file."""
    declare_verl(tmp_path)  # issue 26: the tree declares the verl it runs
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    for i in range(30):
        (pkg / f"t{i:02d}.py").write_text(TRAINER.format(i=i))
    monkeypatch.setenv("PPO_MIGRATE_TEST_FORCE_POOL", "1")  # jobs 2: the pool, small as it is
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, jobs], cwd=tmp_path, capture_output=True, text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    if jobs == "1":
        assert "Exception ignored" in proc.stderr  # the interpreter did drop the exception
    else:  # in the pool the handler only records the request: nothing raised, nothing dropped
        assert "SignalledInFinalizer" not in proc.stderr
    interrupted, outcomes, written, total = proc.stdout.split()
    assert interrupted == "True"
    assert int(total) == 30
    assert int(outcomes) < 30 and int(written) == int(outcomes)  # stopped part-way
    rewritten = [p for p in pkg.glob("*.py") if "get_ppo_ray_runtime_env(config)" in p.read_text()]
    assert len(rewritten) == int(written)


def test_a_name_spelled_with_characters_python_folds_is_found(tmp_path) -> None:
    """``ｇet_ppo_ray_runtime_env`` (full-width g) is ``get_ppo_ray_runtime_env`` to Python
    (NFKC): the byte prefilter let such a file through unseen (a fresh tester's finding)."""
    declare_verl(tmp_path)  # issue 26: the tree declares the verl it runs
    from cli_helpers import run_cli, run_python, verl_stub
    from ppo_migrate.cli.runner import is_candidate, spells_otherwise

    name = [b"get_ppo_ray_runtime_env"]
    odd = "from verl.trainer.constants_ppo import \uff47et_ppo_ray_runtime_env\n# 中文，注释（１２）\n\n\ndef main(config):\n    return \uff47et_ppo_ray_runtime_env()\n"
    assert is_candidate(odd.encode(), name)
    # CJK comments with full-width punctuation and digits spell nothing: no candidate
    assert not spells_otherwise("# 中文，注释（１２）：ｘ\nprint(1)\n".encode(), name)
    assert not is_candidate("# 中文，注释\nget_ppo_ray_runtime\n".encode(), name)
    (tmp_path / "m.py").write_text(odd, encoding="utf-8")
    proc = run_cli("apply", "m.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert (tmp_path / "m.py").read_text(encoding="utf-8") == odd.replace("env()", "env(config)")
    stub = verl_stub(tmp_path / "stub")
    run = run_python("import m; print(m.main({'a': 1}))", tmp_path, tmp_path, stub)
    assert run.stdout.strip() == "{'a': 1}", run.stderr


def test_the_pool_is_used_only_where_its_work_pays_for_it(monkeypatch) -> None:
    """Issue 26: the pool was picked by the candidates' bytes (256 kB), so benchmark items 9
    and 10 (135 trainer modules; a 600-module chain of 224-byte files) ran in it at 1.4 and
    1.8 times a serial run's CPU time and no faster. The estimate now counts, per file, a
    fixed part, its bytes and the names it spells; the pool is used when two workers save
    more than it costs (1 ms a file, 100 ms a worker)."""
    from ppo_migrate.cli import runner
    from ppo_migrate.cli.runner import candidate_work, use_pool

    monkeypatch.delenv(runner.FORCE_POOL_ENV, raising=False)
    assert candidate_work(2231, 5) == 300 + 2231 * 300 // 1024 + 5 * 250 == 2203
    assert candidate_work(-1) == 300  # unreadable: the fixed part alone
    assert not use_pool(2, [candidate_work(224, 2)] * 600)  # item 10's chain: 865 us a file
    assert not use_pool(2, [candidate_work(2231, 5)] * 135)  # item 9: saves 162 ms < 200 ms
    assert not use_pool(2, [candidate_work(9054, 3)] * 30)  # 30 real-shaped candidates
    assert use_pool(2, [candidate_work(2282, 16)] * 200)  # item 12: 15 calls a file
    assert use_pool(2, [candidate_work(2278, 5)] * 2000)  # item 3's 2,000 trainer modules
    assert not use_pool(1, [candidate_work(2282, 16)] * 200)  # --jobs 1
    assert not use_pool(2, [10**9])  # one file: nothing to share
    # the pool forced (tests of the pool): from POOL_MIN_CANDIDATES files, whatever the work
    assert use_pool(2, [300] * runner.POOL_MIN_CANDIDATES, force=True)
    assert not use_pool(2, [300] * (runner.POOL_MIN_CANDIDATES - 1), force=True)


def test_the_work_estimate_counts_the_names_in_the_bytes_the_snapshot_holds(tmp_path) -> None:
    """:func:`ppo_migrate.cli.runner._works` reads no file: a file the run's snapshot holds
    counts its target names, one it does not hold its size alone."""
    from ppo_migrate.project.snapshot import run_scope
    from ppo_migrate.cli.runner import _works
    from ppo_migrate.cli.settings import Settings

    held, other = tmp_path / "held.py", tmp_path / "other.py"
    text = b"from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\nget_ppo_ray_runtime_env()\n"
    held.write_bytes(text)
    other.write_bytes(text)
    with run_scope() as snapshot:
        snapshot.read_bytes(held, keep=True)
        sizes = {str(held): len(text), str(other): len(text)}
        works = _works([str(held), str(other)], sizes, Settings())
        assert not snapshot.holds(other)
        assert snapshot.counts_of(other).reads == 0 and snapshot.counts_of(held).reads == 1
    assert works == [300 + len(text) * 300 // 1024 + 2 * 250, 300 + len(text) * 300 // 1024]


GC_SCRIPT = textwrap.dedent(
    """
    import gc, sys
    from ppo_migrate.cli import runner
    from ppo_migrate.cli.runner import FileOutcome, Mode, run
    from ppo_migrate.cli.settings import load_settings

    def seen(path, settings, mode):  # what the collector is set to where each file is analysed
        frozen = gc.get_freeze_count() > 0
        return FileOutcome(path, True, internal_error=f"{gc.get_threshold()[0]} {frozen}")

    runner.process_file = seen
    files = sorted(str(p) for p in __import__("pathlib").Path("pkg").glob("*.py"))
    result = run(files, load_settings(["pkg"]), Mode.CHECK, jobs=int(sys.argv[1]))
    print(sorted({o.internal_error for o in result.outcomes}), len(result.outcomes))
    print(gc.get_threshold()[0], gc.get_freeze_count())
    """
)


@pytest.mark.parametrize(("jobs", "where"), [("1", "20000 False"), ("2", "20000 True")])
def test_the_per_file_phase_collects_young_objects_less_often_and_workers_inherit_a_frozen_heap(
    tmp_path: Path, jobs: str, where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Benchmark item 12 (issue 26): the cycle collector's young collections every 700
    allocations scanned each analysis's nodes again and again and led to full collections
    of every tree kept (~0.28 s of a serial run on 200 files); a pool's workers also walked
    the parent's whole heap, inherited at the fork. Each file is now analysed with young
    collections every ``YOUNG_THRESHOLD`` allocations, serial or in a worker; the workers
    are forked from a frozen heap; the parent's collector is as it was once the run ends."""
    from ppo_migrate.cli import runner

    declare_verl(tmp_path)
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    for i in range(runner.POOL_MIN_CANDIDATES + 2):
        (pkg / f"t{i:02d}.py").write_text(TRAINER.format(i=i))
    monkeypatch.setenv("PPO_MIGRATE_TEST_FORCE_POOL", "1")
    proc = subprocess.run(
        [sys.executable, "-c", GC_SCRIPT, jobs], cwd=tmp_path, capture_output=True, text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert runner.YOUNG_THRESHOLD == 20_000
    assert proc.stdout.splitlines() == [f"['{where}'] {runner.POOL_MIN_CANDIDATES + 2}", "700 0"]


def test_the_pool_hands_out_files_a_few_a_task_and_single_files_last() -> None:
    """Benchmark item 12 (issue 26): each task of the pool cost the parent ~0.5 ms of its
    threads' CPU, taken from the workers' cores (~0.1 s for 200 one-file tasks; 63 tasks of
    up to 4 files: ~0.04 s, 44 of up to 8: ~0.03 s, 24 of up to 16: ~0.015 s). Files now
    go out up to ``_CHUNK_FILES`` a task while each worker has ``_CHUNKS_AHEAD`` tasks' worth
    left, then fewer, one at a time at the end (no worker waits on another's long task)."""
    from ppo_migrate.cli import runner

    def tasks(files: int, workers: int) -> list[int]:
        sizes = []
        while files:
            sizes.append(runner._chunk(files, workers))
            files -= sizes[-1]
        return sizes

    item_12 = tasks(200, 2)
    assert (runner._CHUNK_FILES, runner._CHUNKS_AHEAD) == (16, 2)
    assert item_12 == [16] * 9 + [14, 10, 8, 6, 4, 3, 2, 2] + [1] * 7
    assert len(item_12) == 24 and sum(item_12) == 200
    assert tasks(10, 2) == [2, 2, 1, 1, 1, 1, 1, 1]  # a small pool: a file or two a task
    assert tasks(40, 2) == [10, 7, 5, 4, 3, 2, 2] + [1] * 7


@pytest.mark.parametrize(
    ("data", "spelled"),
    [
        (b"from verl.trainer.constants_ppo import *\n", True),
        (b"from .x import *\nimport ppo_runtime\n", True),
        (b"from typing import *\n# overload, verl_tools, myverl, x.verl\n", False),
        (b"from torch.nn import *\n", False),
    ],
)
def test_only_a_star_importer_spelling_a_target_package_may_re_export(data: bytes, spelled: bool) -> None:
    """A tree that never names the function has re-exports only where a star importer
    imports from a target's package (:func:`ppo_migrate.cli.runner._spells_a_target_package`);
    without one the look-out stops before reading every module's imports (benchmark item 1:
    torch's sources)."""
    targets = ("verl.trainer.constants_ppo.get_ppo_ray_runtime_env", "ppo_runtime.get_ppo_ray_runtime_env")
    from ppo_migrate.cli import runner

    assert runner._spells_a_target_package([b"import os\n", data], targets) is spelled


def test_the_pool_parent_decides_the_callee_in_effect_before_the_fork(tmp_path: Path) -> None:
    """Benchmark item 12: each worker's first file decided which definition of the function
    is in effect (~30 ms: copies, pins, mentions, the installed verl), the second worker's
    a waste. The parent decides it for the first candidate's folder before it forks: the
    process's resolver holds the answer the workers inherit. A folder that cannot be read
    is the analysis's to report: nothing raised here."""
    from ppo_migrate.cli import runner
    from ppo_migrate.project.snapshot import run_scope
    from ppo_migrate.rules.signatures import resolver_for
    from ppo_migrate.settings_model import Settings

    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("verl>=0.9\n")
    (tmp_path / "pkg").mkdir()
    mod = tmp_path / "pkg" / "m.py"
    mod.write_text("from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n")
    settings = Settings(project_root=str(tmp_path))
    cache = resolver_for(settings)._cache
    key = (str(tmp_path / "pkg"), "verl.trainer.constants_ppo.get_ppo_ray_runtime_env")
    cache.pop(key, None)
    with run_scope():
        runner._warm_for_the_fork(str(mod), settings)
        runner._warm_for_the_fork(str(tmp_path / "missing" / "x.py"), settings)
    assert key in cache
    assert cache[key].accepts_config and cache[key].source == "declared"
    assert [k for k in cache if k[0] == str(tmp_path / "pkg")] == [key]  # verl's first target only


def test_a_scouted_check_names_the_same_reasons_as_jobs_1(tmp_path) -> None:
    """A fix made unsafe both by a test double and by an undecided verl (nothing declared):
    ``check --jobs 1`` names the double (the look-out's answer is known during the analysis),
    and a scouted ``check --jobs 2`` named the undecided verl, its look-out applied to safe
    fixes only. Both name the double now (a file it reaches is analysed again with it)."""
    from cli_helpers import run_cli

    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (tmp_path / ".git").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "launcher.py").write_text(
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
        "def run(config):\n    return get_ppo_ray_runtime_env()\n"
    )
    (pkg / "other.py").write_text(  # no double reaches it: nothing declares verl
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
        "def go(config):\n    return get_ppo_ray_runtime_env()\n"
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_launcher.py").write_text(
        "import pkg.launcher as launcher\n\n\n"
        "def test_run(monkeypatch):\n"
        "    monkeypatch.setattr(launcher, 'get_ppo_ray_runtime_env', lambda: {})\n"
    )
    outputs = [
        run_cli("check", "--output-format", "json", "--exit-zero", "--jobs", jobs, ".", cwd=tmp_path).stdout
        for jobs in ("1", "2")
    ]
    assert outputs[0] == outputs[1]
    import json

    found = {d["filename"].rsplit("/", 1)[-1]: d for d in json.loads(outputs[0])}
    assert found["launcher.py"]["fix"]["applicability"] == "unsafe"
    assert "tests/test_launcher.py:5 replaces the runtime function" in found["launcher.py"]["message"]
    assert "nothing says which verl runs" not in found["launcher.py"]["message"]
    assert found["other.py"]["fix"]["applicability"] == "unsafe"
    assert "nothing says which verl runs" in found["other.py"]["message"]
