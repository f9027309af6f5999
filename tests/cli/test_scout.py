"""``ppo_migrate.cli.scout``: ``check`` walks and prefilters in a forked process (issue 13, item 6).

Real forks, real files, the CLI as a subprocess. The oracle is the same run in one process
(``--jobs 1``, which never forks a scout): the output must be the same, byte for byte, and no
process may be left behind, whatever happens to the scout.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from cli_helpers import group_left_after, kill_group, ppo_migrate_exe
from ppo_migrate.cli import scout as scouting
from ppo_migrate.project.discovery import discover_files
from ppo_migrate.cli.modes import Mode
from ppo_migrate.prefilter import iter_candidates
from ppo_migrate.cli.runner import ScoutFailed, run, run_scouted
from ppo_migrate.cli.settings import load_settings

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the scout forks on Linux only")

IMPORT = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
FIXABLE = IMPORT + "\n\ndef run_ppo(config):\n    return get_ppo_ray_runtime_env()\n"
ENTRY = IMPORT + "\n\ndef init_ray(address):\n    return get_ppo_ray_runtime_env()\n"
PLAIN = "def f(x):\n    return x + 1\n"


def _tree(root: Path, n: int = 60) -> Path:
    """``n`` plain modules, fixable and entry-point calls spread among them, a file that
    spells the name with full-width letters (NFKC), a syntax error, a FIFO named ``*.py``, a
    ``.gitignore``d directory and a symlink to a candidate."""
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "ignored").mkdir()
    (root / ".gitignore").write_text("ignored/\n")
    (root / ".git").mkdir()  # a repository root, so that .gitignore applies
    for i in range(n):
        text = FIXABLE if i % 7 == 0 else ENTRY if i % 11 == 0 else PLAIN
        (root / "pkg" / ("sub" if i % 2 else "") / f"m{i:03d}.py").write_text(text)
    (root / "pkg" / "wide.py").write_text(
        IMPORT.replace("import get_", "import ｇet_") + "\n\ndef go(config):\n    return ｇet_ppo_ray_runtime_env()\n",
        encoding="utf-8",
    )
    (root / "pkg" / "broken.py").write_text(IMPORT + "def (:\n")
    (root / "ignored" / "hidden.py").write_text(FIXABLE)
    os.mkfifo(root / "pkg" / "pipe.py")
    (root / "pkg" / "link.py").symlink_to(root / "pkg" / "m000.py")
    return root


def _cli(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    full = {**os.environ, "NO_COLOR": "1", **(env or {})}
    full.pop("CI", None)
    return subprocess.run(
        [*ppo_migrate_exe(), *args], cwd=cwd, capture_output=True, env=full, timeout=120
    )


def test_the_scout_sends_what_discovery_and_the_prefilter_find(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    settings = load_settings([str(root)])
    files = discover_files([str(root)], settings)
    expected = list(iter_candidates(files, settings))
    scout = scouting.start([str(root)], settings)
    messages = []
    while (got := scout.messages(wait=True)) is not None:
        messages.extend(got)
    assert scout.finish()
    kinds = [m[0] for m in messages]
    assert kinds == ["candidate"] * len(expected) + ["files", "done"]
    assert [(m[1], m[2]) for m in messages[:-2]] == expected
    assert messages[-2][1] == files
    paths = {Path(p).name for p, _ in expected}
    # the plain name, the NFKC spelling, the syntax error and the FIFO (unreadable: size -1)
    assert {"m000.py", "m011.py", "wide.py", "broken.py", "pipe.py"} <= paths
    assert dict((Path(p).name, s) for p, s in expected)["pipe.py"] == -1
    assert not any("ignored" in p for p in files)


def test_the_scout_lists_the_star_importers_it_turned_away(tmp_path: Path) -> None:
    """The files not naming a target that hold ``import *`` come in ``stars`` messages, from
    the scout's one read (the parent's look-out for re-exports reads those alone)."""
    root = _tree(tmp_path, n=8)
    (root / "pkg" / "star.py").write_text("from os.path import *\n")
    (root / "pkg" / "sub" / "star2.py").write_text("from verl.trainer.constants_ppo import *\n")
    (root / "pkg" / "named_star.py").write_text(IMPORT + "from os import *\n")
    (root / "pkg" / "spaced.py").write_text("from os import  *\n")  # not the bytes searched
    settings = load_settings([str(root)])
    scout = scouting.start([str(root)], settings)
    messages = []
    while (got := scout.messages(wait=True)) is not None:
        messages.extend(got)
    assert scout.finish()
    kinds = [m[0] for m in messages]
    assert kinds[-3:] == ["stars", "files", "done"]
    stars = [p for m in messages if m[0] == "stars" for p in m[1]]
    assert [Path(p).relative_to(root).as_posix() for p in stars] == ["pkg/star.py", "pkg/sub/star2.py"]
    candidates = {Path(m[1]).name for m in messages if m[0] == "candidate"}
    assert "named_star.py" in candidates


def test_a_scouted_run_gives_the_one_process_result(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    settings = load_settings([str(root)])
    scout = scouting.start([str(root)], settings)
    pid = scout.pid
    files, scouted = run_scouted(scout, settings, Mode.CHECK, jobs=2)
    plain = run(discover_files([str(root)], settings), settings, Mode.CHECK, jobs=1)
    assert files == discover_files([str(root)], settings)
    assert scouted.diagnostics == plain.diagnostics
    assert [o.path for o in scouted.outcomes] == [o.path for o in plain.outcomes]
    codes = sorted(d.code for d in scouted.diagnostics)
    assert codes.count("PPO001") == 9 + 1  # m000, m007, ... m056 and wide.py
    assert "PPO002" in codes and "PPO902" in codes
    # the scout was reaped: it is no child of this process any more (asked by its pid:
    # the worker may hold other children, tests/warm_python.py's servers among them)
    children = {int(p) for p in Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read_text().split()}
    assert pid not in children
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


@pytest.mark.parametrize("fmt", ["concise", "json", "github", "sarif", "junit"])
def test_check_output_is_the_same_with_and_without_the_scout(tmp_path: Path, fmt: str) -> None:
    root = _tree(tmp_path)
    (root / "pyproject.toml").write_text("[tool.ppo-migrate]\n")
    with_scout = _cli("check", "--output-format", fmt, "pkg", "ignored", cwd=root)
    alone = _cli("check", "--jobs", "1", "--output-format", fmt, "pkg", "ignored", cwd=root)
    assert with_scout.returncode == alone.returncode == 1, with_scout.stderr
    assert with_scout.stdout == alone.stdout
    assert with_scout.stderr == alone.stderr
    assert b"m000.py" in with_scout.stdout and b"hidden.py" in with_scout.stdout


def test_a_missing_path_is_refused_as_without_the_scout(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    with_scout = _cli("check", "pkg", "nowhere", cwd=root)
    alone = _cli("check", "--jobs", "1", "pkg", "nowhere", cwd=root)
    assert with_scout.returncode == alone.returncode == 2
    assert with_scout.stderr == alone.stderr == b"ppo-migrate: error: nowhere: no such file or directory\n"
    settings = load_settings([str(root)])
    scout = scouting.start([str(root / "pkg"), str(root / "nowhere")], settings)
    with pytest.raises(FileNotFoundError, match="nowhere: no such file or directory"):
        run_scouted(scout, settings, Mode.CHECK, jobs=2)


def test_a_directory_the_walk_cannot_list_is_reported_once(tmp_path: Path) -> None:
    """A path longer than PATH_MAX cannot be listed (ENAMETOOLONG), even by root: the scout
    sends the walk's error, the parent logs it as the walk would."""
    root = _tree(tmp_path, n=3)
    deep = root / "pkg"
    name = "d" * 250
    fd = os.open(deep, os.O_RDONLY)
    try:
        for _ in range(18):  # 18 * 251 bytes: past 4096
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with open(os.open("m.py", os.O_WRONLY | os.O_CREAT, dir_fd=fd), "w") as f:
            f.write(FIXABLE)
    finally:
        os.close(fd)
    with_scout = _cli("check", "pkg", cwd=root)
    alone = _cli("check", "--jobs", "1", "pkg", cwd=root)
    assert with_scout.returncode == alone.returncode == 1
    assert with_scout.stdout == alone.stdout
    assert with_scout.stderr == alone.stderr
    assert with_scout.stderr.count(b"cannot read directory: file name too long") == 1


# A scout that dies: the child inherits this patch of the module it imports its prefilter
# from; the parent's runner, imported first, keeps the real one for the run it falls back to.
DYING_SCOUT = textwrap.dedent(
    """
    import os, signal, sys
    import ppo_migrate.cli.runner
    import ppo_migrate.prefilter as prefilter

    parent = os.getpid()
    real = prefilter.iter_candidates

    def dying(files, settings, *more):
        if os.getpid() != parent:
            {how}
        return real(files, settings, *more)

    prefilter.iter_candidates = dying
    from ppo_migrate.cli.app import main
    main(sys.argv[1:])
    """
)


@pytest.mark.parametrize(
    "how", ["os.kill(os.getpid(), signal.SIGKILL)", "raise MemoryError", "os._exit(0)"]
)
def test_a_scout_that_dies_leaves_the_run_to_one_process(tmp_path: Path, how: str) -> None:
    root = _tree(tmp_path)
    script = DYING_SCOUT.format(how=how)
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("CI", None)
    died = subprocess.run(
        [sys.executable, "-c", script, "check", "--output-format", "json", "pkg"],
        cwd=root, capture_output=True, env=env, timeout=120,
    )
    alone = _cli("check", "--jobs", "1", "--output-format", "json", "pkg", cwd=root)
    assert died.returncode == alone.returncode == 1, died.stderr
    assert died.stdout == alone.stdout
    assert b"PPO001" in died.stdout


SLOW_SCOUT = textwrap.dedent(
    """
    import os, sys, time
    import ppo_migrate.cli.runner
    import ppo_migrate.prefilter as prefilter

    parent = os.getpid()
    real = prefilter.read_bytes

    def slow(path):
        if os.getpid() != parent:
            time.sleep(0.01)  # 600 files: 6 s of walking
        return real(path)

    prefilter.read_bytes = slow
    print("ready", flush=True)
    if sys.argv[1] == "script":  # the console script's entry: a plain check, without click
        from ppo_migrate.cli.entry import main

        sys.argv[1:2] = []
        main()
    else:
        from ppo_migrate.cli.app import main

        main(sys.argv[2:])
    """
)


def _slow_scout(root: Path, entry: str = "cli") -> subprocess.Popen:
    """``check pkg`` in ``root`` with SLOW_SCOUT, in a session of its own, once it has
    started (0.5 s after the CLI has forked: the scout is reading).
    ``entry``: ``"script"`` runs the console script's entry (a plain ``check``, without
    click), ``"cli"`` the CLI's ``main`` (click's lane)."""
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("CI", None)
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_SCOUT, entry, "check", "pkg"],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        start_new_session=True,
    )
    assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
    # the CLI's imports take their time on a loaded machine (a parallel run): wait for the
    # fork itself, not a fixed time, then a little for the scout to be reading
    deadline = time.monotonic() + 60
    while not _forked(proc.pid) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _forked(proc.pid), "the CLI never forked its scout"
    time.sleep(0.5)
    return proc


def _forked(pid: int) -> bool:
    """Whether process ``pid`` has a child (read from /proc, Linux)."""
    try:
        return bool(Path(f"/proc/{pid}/task/{pid}/children").read_text().split())
    except OSError:
        return False


@pytest.mark.xdist_group("quiet")
@pytest.mark.parametrize("entry", ["cli", "script"])
@pytest.mark.parametrize("target", ["group", "parent"])
def test_ctrl_c_while_the_scout_walks_exits_130_and_leaves_no_process(
    tmp_path: Path, target: str, entry: str
) -> None:
    proc = _slow_scout(_tree(tmp_path, n=600), entry)
    started = time.monotonic()
    if target == "group":  # a terminal's Ctrl-C reaches the whole process group
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert time.monotonic() - started < 3
    assert b"ppo-migrate: interrupted" in err
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)  # nothing is left in the run's process group


def test_scout_applies_only_to_directories_with_two_jobs(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "a.py").write_text(PLAIN)
    assert scouting.applies(2, [str(tmp_path)])
    assert scouting.applies(None, [str(tmp_path)]) == (len(os.sched_getaffinity(0)) >= 2)
    assert not scouting.applies(1, [str(tmp_path)])
    assert not scouting.applies(2, [str(tmp_path / "a.py")])  # files only: pre-commit
    assert not scouting.applies(2, ["-"])
    monkeypatch.setenv("PPO_MIGRATE_TEST_FORCE_POOL", "1")
    assert not scouting.applies(2, [str(tmp_path)])


@pytest.mark.xdist_group("quiet")
def test_a_scout_killed_before_its_last_message_is_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ppo_migrate.prefilter as prefilter

    parent = os.getpid()
    real = prefilter.iter_candidates

    def stuck(files, settings, *more):  # the forked scout stops here until it is killed
        if os.getpid() != parent:
            time.sleep(60)
        return real(files, settings, *more)

    monkeypatch.setattr(prefilter, "iter_candidates", stuck)
    root = _tree(tmp_path, n=5)
    settings = load_settings([str(root)])
    scout = scouting.start([str(root)], settings)
    pid = scout.pid
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(ScoutFailed):
        run_scouted(scout, settings, Mode.CHECK, jobs=2)
    assert scout.pid == -1 and scout.reader == -1
    # the killed scout was reaped (no zombie left); asked by its pid, not "any child":
    # the worker may have other children of its own (tests/warm_python.py's server)
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


@pytest.mark.xdist_group("quiet")
@pytest.mark.parametrize("entry", ["cli", "script"])
def test_the_scout_ends_when_its_parent_is_killed(tmp_path: Path, entry: str) -> None:
    """A scout that finds no candidate sends nothing until its walk ends: killed with
    SIGKILL, the parent would leave it walking. It watches its pipe and ends at once."""
    root = tmp_path / "plain"
    (root / "pkg").mkdir(parents=True)
    for i in range(600):  # no candidate: the scout has nothing to send before its end
        (root / "pkg" / f"m{i:03d}.py").write_text(PLAIN)
    proc = _slow_scout(root, entry)  # a file each 10 ms: about 4.5 s of walking left
    try:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert group_left_after(proc.pid, 3) == []
    finally:
        kill_group(proc.pid)



# --------------------------------------------------------------- the console script


def test_the_console_script_without_options_gives_the_one_process_output(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    (root / "pyproject.toml").write_text('[tool.ppo-migrate]\nconfig-names = ["config", "c"]\n')
    plain = _cli("check", "pkg", "ignored", cwd=root)
    alone = _cli("check", "--jobs", "1", "pkg", "ignored", cwd=root)
    assert plain.returncode == alone.returncode == 1, plain.stderr
    assert (plain.stdout, plain.stderr) == (alone.stdout, alone.stderr)
    missing = _cli("check", "pkg", "nowhere", cwd=root)
    assert missing.returncode == 2
    assert missing.stderr == b"ppo-migrate: error: nowhere: no such file or directory\n"


@pytest.mark.parametrize(
    ("data", "held"),
    [
        (b"from os import *\n", True),
        (b"import *", True),
        (b"x = a * b\nfrom os import  *\n", False),
        (b"*import *", True),
        (b"import*", False),
        (b"mport *\n", False),
        (b"def f(*args, **kw):\n    return 2 * 3\n", False),
        (b"", False),
    ],
)
def test_the_star_test_is_the_substring_search(data: bytes, held: bool) -> None:
    """The scout's star test (each ``*`` tested for ``import `` before it: ~3 times faster
    than the substring search on torch's sources) answers ``STAR_IMPORT in data``."""
    from ppo_migrate.prefilter import STAR_IMPORT, holds_star_import

    assert holds_star_import(data) is held
    assert (STAR_IMPORT in data) is held
