"""Guards for the performance work of issue 6 -- behaviour only, never timings.

* lazy imports: ``--help`` and ``check`` without candidates never import LibCST;
  ``import ppo_runtime`` imports neither torch nor ray;
* the progress bar: only on a TTY, never in CI or piped, off with ``--no-progress``;
* Ctrl-C: exit 130 promptly, no temp file left, every file whole;
* the pool: ``--jobs 1`` and ``--jobs 2`` give identical output; a file that fails
  to parse, crashes the analysis or kills its worker never stops the others;
* the syntactic second prefilter of ``check`` skips LibCST's analysis only where
  that analysis finds nothing.

Timing lives in ``benchmarks/run.py``; the machine is too noisy for assertions here.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_helpers import declare_verl, group_left_after, kill_group

from ppo_migrate.cli import runner
from ppo_migrate.cli.runner import Mode
from ppo_migrate.settings_model import Settings

#: Ctrl-C and kill tests stop real runs part-way: one worker runs them (and the few timings)
#: one at a time
pytestmark = pytest.mark.xdist_group("quiet")

REPO = Path(__file__).resolve().parents[2]
PPO = [sys.executable, "-m", "ppo_migrate"]
#: ``--jobs 2`` runs here test the worker pool: pinned to it, small trees included
POOL = {runner.FORCE_POOL_ENV: "1"}


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(extra)
    return env


def _modules_after(code: str, cwd: Path | None = None, env: dict | None = None) -> set[str]:
    """Top-level package names in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    script = (
        "import sys\n"
        + code
        + "\nprint('\\n'.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=cwd,
        env=env or _env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return set(out.stdout.split())


# ----------------------------------------------------------------------------- sources

TRAINER = '''\
"""Trainer {i}."""
import ray
from verl.trainer.constants_ppo import get_ppo_ray_runtime_env


def run_ppo_{i}(config):
    ray.init(runtime_env=get_ppo_ray_runtime_env(), num_cpus=config.num_cpus)


class Runner{i}:
    def __init__(self, config):
        self.config = config

    def start(self):
        return get_ppo_ray_runtime_env(None)


def debug_{i}():
    ray.init(runtime_env=get_ppo_ray_runtime_env())
'''

#: :data:`TRAINER` with configs made where they are used (a written-out mapping with a verl
#: section: ``OmegaConf.load(path)`` of a path not known is weak since issue 27): no fix rests on a parameter,
#: so ``apply`` writes each file as it finishes it (a fix passing a parameter waits for the
#: judgement of the callers in other files, after every file: ``runner.run``), which the
#: Ctrl-C tests below need to stop a run part-way through its writes
LOADED_TRAINER = TRAINER.replace(
    "def run_ppo_{i}(config):\n", "def run_ppo_{i}(path):\n    config = OmegaConf.create({{'trainer': path}})\n"
).replace(
    "    def __init__(self, config):\n        self.config = config\n",
    "    def __init__(self, path):\n        self.config = OmegaConf.create({{'trainer': path}})\n",
).replace("import ray\n", "import ray\nfrom omegaconf import OmegaConf\n")

MIGRATED = '''\
"""Already migrated: every call passes the config."""
import ray
from verl.trainer.constants_ppo import get_ppo_ray_runtime_env


def run_ppo(config):
    ray.init(runtime_env=get_ppo_ray_runtime_env(config))
'''

PLAIN = '''\
"""Does not name the runtime function."""
import os


def main():
    return os.getcwd()
'''


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return declare_verl(root)  # issue 26: the tree declares the verl it runs


def _trainers(
    root: Path, n: int, extra: dict[str, str] | None = None, template: str = TRAINER
) -> Path:
    files = {f"pkg/trainer_{i:03d}.py": template.format(i=i) for i in range(n)}
    files["pkg/__init__.py"] = ""
    files.update(extra or {})
    return _write(root, files)


# ----------------------------------------------------------------------------- lazy imports


def test_help_does_not_import_libcst() -> None:
    mods = _modules_after(
        "from ppo_migrate.cli.app import main\n"
        "for args in (['--help'], ['check', '--help'], ['apply', '--help']):\n"
        "    try:\n"
        "        main(args)\n"
        "    except SystemExit:\n"
        "        pass\n"
    )
    assert "ppo_migrate" in mods
    assert "libcst" not in mods


def test_check_without_candidates_does_not_import_libcst(tmp_path: Path) -> None:
    _write(tmp_path, {f"pkg/m{i}.py": PLAIN for i in range(30)})
    _write(tmp_path, {"pkg/doc.md": "get_ppo_ray_runtime_env() in a non-Python file\n"})
    code = (
        "from ppo_migrate.cli.app import main\n"
        "try:\n"
        "    main(['check', '--jobs', '2', 'pkg'])\n"
        "except SystemExit as e:\n"
        "    assert not e.code, e.code\n"
    )
    mods = _modules_after(code, cwd=tmp_path)
    assert "libcst" not in mods


def test_check_never_parses_yaml_that_does_not_name_the_function(tmp_path: Path) -> None:
    """Hydra configs (PPO006, :mod:`ppo_migrate.rules.hydra_targets`) are read by the byte
    prefilter like the Python files: a tree whose YAML files never name the function (benchmark
    item 1's case) parses none of them, so PyYAML is never even imported."""
    _write(tmp_path, {f"pkg/m{i}.py": PLAIN for i in range(10)})
    _write(tmp_path, {f"pkg/conf/model{i}.yaml": "model:\n  _target_: torch.nn.Linear\n" for i in range(10)})
    code = (
        "from ppo_migrate.cli.app import main\n"
        "for jobs in ('1', '2'):\n"
        "    try:\n"
        "        main(['check', '--jobs', jobs, 'pkg'])\n"
        "    except SystemExit as e:\n"
        "        assert not e.code, e.code\n"
    )
    mods = _modules_after(code, cwd=tmp_path)
    assert "ppo_migrate" in mods
    assert "yaml" not in mods


def test_check_of_plain_candidates_does_not_import_libcst(tmp_path: Path) -> None:
    """Migrated files and PPO001s are decided by the analysis core on Python's AST alone."""
    _write(tmp_path, {f"pkg/migrated{i}.py": MIGRATED for i in range(10)})
    _write(
        tmp_path,
        {
            "pkg/plain.py": "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
            "def run(config):\n    return get_ppo_ray_runtime_env()\n"
        },
    )
    code = (
        "from ppo_migrate.cli.app import main\n"
        "try:\n"
        "    main(['check', '--jobs', '2', '--output-format', 'json', 'pkg'])\n"
        "except SystemExit as e:\n"
        "    assert e.code == 1, e.code\n"
        "assert 'ppo_migrate.rules.check' in sys.modules\n"
    )
    mods = _modules_after(code, cwd=tmp_path)
    assert "libcst" not in mods


def test_check_with_entry_points_and_their_callers_does_not_import_libcst(tmp_path: Path) -> None:
    """PPO002 hints (the caller phase) run on the analysis core's ast parse (issue 13)."""
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/ray_setup.py": "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
            "def init_ray(address):\n    return get_ppo_ray_runtime_env()\n",
            "pkg/main.py": "from pkg.ray_setup import init_ray\n"
            "def run(config):\n    init_ray('auto')\n",
        },
    )
    code = (
        "from ppo_migrate.cli.app import main\n"
        "try:\n"
        "    main(['check', '--jobs', '1', 'pkg'])\n"
        "except SystemExit as e:\n"
        "    assert e.code == 1, e.code\n"
        "assert 'ppo_migrate.rules.callers' in sys.modules\n"
    )
    mods = _modules_after(code, cwd=tmp_path)
    assert "libcst" not in mods


def test_import_ppo_runtime_imports_neither_torch_nor_ray() -> None:
    mods = _modules_after("import ppo_runtime\nppo_runtime.get_ppo_ray_runtime_env")
    assert "ppo_runtime" in mods
    assert not mods & {"torch", "ray", "libcst"}
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import ppo_runtime"],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    imported = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines()}
    assert "ppo_runtime" in imported
    assert not {m for m in imported if m.split(".")[0] in ("torch", "ray")}
    # json, logging and the torch probe's pathlib load only when they are used (the
    # interpreter's own start, an editable install's finder included, is not ours)
    bare = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "pass"],
        env=_env(), capture_output=True, text=True, timeout=300,
    )
    at_start = {line.rsplit("|", 1)[-1].strip() for line in bare.stderr.splitlines()}
    ours = imported - at_start
    assert not ours & {"json", "logging", "pathlib", "importlib.util"}, ours


def test_the_runtime_s_lazy_imports_load_when_used(monkeypatch, caplog) -> None:
    """A warning still reaches the ``ppo_runtime`` logger; a Ray job config is still read."""
    from ppo_runtime import env as runtime_env

    monkeypatch.setattr(runtime_env, "_WARNED", set())
    with caplog.at_level("WARNING", logger="ppo_runtime"):
        runtime_env._warn_once("a lazily logged warning")
        runtime_env._warn_once("a lazily logged warning")
    assert [r.getMessage() for r in caplog.records] == ["a lazily logged warning"]
    assert caplog.records[0].name == "ppo_runtime"


# ----------------------------------------------------------------------------- progress


def _run_on_pty(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, bytes, bytes]:
    """Run with stderr on a pseudo-terminal (stdout piped); return (code, stdout, tty bytes)."""
    import pty

    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=slave)
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        out = proc.stdout.read() if proc.stdout else b""
        code = proc.wait(timeout=600)
        return code, out, b"".join(chunks)
    finally:
        os.close(master)


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_progress_bar_on_a_real_terminal_only(tmp_path: Path) -> None:
    # 220 candidates (more than 200: a long run by count); already migrated, so
    # quick to check, and exit 0.
    _write(tmp_path, {f"pkg/m{i:03d}.py": MIGRATED for i in range(220)})
    args = [*PPO, "check", "--jobs", "1", "pkg"]
    code, out, tty = _run_on_pty(args, tmp_path, _env(TERM="dumb"))
    assert code == 0, (out, tty)
    assert b"Analysing  [" in tty  # click's bar: a label, the files, the time
    assert b"220/220 files  elapsed 00:00:" in tty
    assert tty.endswith(b"\r\x1b[K\x1b[?25h")  # erased at the end, cursor shown again
    code, out, tty = _run_on_pty(args, tmp_path, _env(CI="true", TERM="dumb"))
    assert code == 0
    assert b"/220" not in tty
    code, out, tty = _run_on_pty([*args, "--no-progress"], tmp_path, _env(TERM="dumb"))
    assert code == 0
    assert b"/220" not in tty
    piped = subprocess.run(args, cwd=tmp_path, env=_env(), capture_output=True, timeout=600)
    assert piped.returncode == 0
    assert b"/220" not in piped.stderr and b"/220" not in piped.stdout


# ----------------------------------------------------------------------------- Ctrl-C


def _wait_for_first_rewrite(root: Path, originals: dict[Path, bytes], proc, limit: float) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the run ended before it could be interrupted"
        if any(p.read_bytes() != b for p, b in originals.items()):
            return
        time.sleep(0.01)
    pytest.fail("no file was rewritten in time")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_exits_130_promptly_and_leaves_no_temp_file(tmp_path: Path, jobs: str) -> None:
    root = _trainers(tmp_path / "tree", 400, template=LOADED_TRAINER)
    originals = {p: p.read_bytes() for p in root.rglob("trainer_*.py")}
    proc = subprocess.Popen(
        [*PPO, "apply", "--jobs", jobs, "tree"],
        cwd=tmp_path,
        env=_env(**POOL),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a shell job
    )
    try:
        # at once: the 400 files are written within ~0.5 s of the first (issue 13), so a
        # Ctrl-C 0.3 s later often came after the last write on a quiet machine
        _wait_for_first_rewrite(root, originals, proc, limit=300)
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert b"interrupted" in err
    assert b"Traceback" not in err
    time.sleep(0.2)
    with pytest.raises(ProcessLookupError):  # no worker outlives the run
        os.killpg(proc.pid, 0)
    assert not [p for p in tmp_path.rglob(".ppo-migrate-*")]
    changed = [p for p, b in originals.items() if p.read_bytes() != b]
    assert changed and len(changed) < len(originals)  # stopped part-way
    # an exact record: one "Rewrote" line per file replaced, printed as it was written
    printed = [line.split()[1] for line in out.decode().splitlines()]
    assert all(line.startswith("Rewrote tree/pkg/") for line in out.decode().splitlines())
    assert sorted(printed) == sorted(str(p.relative_to(tmp_path)) for p in changed)
    for p in changed:  # every rewritten file is whole
        text = p.read_text()
        compile(text, str(p), "exec")
        assert "get_ppo_ray_runtime_env(config)" in text


def test_sigint_to_the_parent_alone_stops_the_pool(tmp_path: Path) -> None:
    root = _trainers(tmp_path / "tree", 400, template=LOADED_TRAINER)
    originals = {p: p.read_bytes() for p in root.rglob("trainer_*.py")}
    proc = subprocess.Popen(
        [*PPO, "apply", "--jobs", "2", "tree"],
        cwd=tmp_path,
        env=_env(**POOL),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        _wait_for_first_rewrite(root, originals, proc, limit=300)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    time.sleep(0.2)
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)
    assert not [p for p in tmp_path.rglob(".ppo-migrate-*")]


# ----------------------------------------------------------------------------- the pool


def _mixed_tree(root: Path) -> Path:
    extra = {
        "pkg/broken.py": "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
        "def f(:\n    get_ppo_ray_runtime_env()\n",
        "pkg/migrated.py": MIGRATED,
        "pkg/plain.py": PLAIN,
        "scripts/launch.py": "import ray\n"
        "from ppo_runtime import get_ppo_ray_runtime_env as grte\n"
        "ray.init(runtime_env=grte())\n",
    }
    return _trainers(root, 40, extra)


@pytest.mark.parametrize(
    "args",
    [
        ["check"],
        ["check", "--output-format", "json"],
        ["apply", "--diff"],
    ],
)
def test_jobs_1_and_2_give_identical_output(tmp_path: Path, args: list[str]) -> None:
    _mixed_tree(tmp_path)
    one = subprocess.run(
        [*PPO, *args, "--jobs", "1", "pkg", "scripts"],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        timeout=900,
    )
    two = subprocess.run(
        [*PPO, *args, "--jobs", "2", "pkg", "scripts"],
        cwd=tmp_path,
        env=_env(**POOL),
        capture_output=True,
        timeout=900,
    )
    assert one.returncode == two.returncode == 1
    assert one.stdout == two.stdout
    assert one.stderr == two.stderr
    if args[0] == "check":
        assert b"PPO902" in one.stdout and b"PPO001" in one.stdout


def test_apply_jobs_1_and_2_write_identical_trees(tmp_path: Path) -> None:
    a, b = _mixed_tree(tmp_path / "a"), _mixed_tree(tmp_path / "b")
    runs = [
        subprocess.run(
            [*PPO, "apply", "--jobs", jobs, "."],
            cwd=root,
            env=_env(**POOL),
            capture_output=True,
            timeout=900,
        )
        for root, jobs in ((a, "1"), (b, "2"))
    ]
    assert runs[0].returncode == runs[1].returncode

    def written_in_any_order(out: bytes) -> tuple[list[bytes], list[bytes]]:
        # "Rewrote <file>" lines come as files are written: with workers, in their order
        lines = out.splitlines()
        rewrote = [x for x in lines if x.startswith(b"Rewrote ") and x.endswith(b")")]
        return sorted(rewrote), [x for x in lines if x not in rewrote]

    assert written_in_any_order(runs[0].stdout) == written_in_any_order(runs[1].stdout)
    assert written_in_any_order(runs[0].stdout)[0]  # files were rewritten
    files_a = {p.relative_to(a): p.read_bytes() for p in a.rglob("*.py")}
    files_b = {p.relative_to(b): p.read_bytes() for p in b.rglob("*.py")}
    assert files_a == files_b
    assert b"get_ppo_ray_runtime_env(config)" in files_a[Path("pkg/trainer_000.py")]


def _run_in_pool(paths: list[str], mode: Mode = Mode.CHECK) -> runner.RunResult:
    candidates = runner.prefilter(paths, Settings())
    assert len(candidates) >= runner.POOL_MIN_CANDIDATES  # really through the pool
    return runner.run(paths, Settings(), mode, jobs=2, force_pool=True)


def test_parse_failure_in_the_pool_is_a_finding(tmp_path: Path) -> None:
    _mixed_tree(tmp_path)
    paths = sorted(str(p) for p in tmp_path.rglob("*.py"))
    result = _run_in_pool(paths)
    assert not result.interrupted
    assert not result.internal_errors
    by_path = {o.path: o for o in result.outcomes}
    assert [d.code for d in by_path[str(tmp_path / "pkg/broken.py")].diagnostics] == ["PPO902"]
    trainers = [o for p, o in by_path.items() if "trainer_" in p]
    assert len(trainers) == 40
    assert all(o.diagnostics for o in trainers)
    assert [o.path for o in result.outcomes] == sorted(o.path for o in result.outcomes)


class _Panic(BaseException):
    """Like pyo3's PanicException: a BaseException, not an Exception."""


@pytest.mark.parametrize("crash", ["exception", "panic", "worker-dies"])
def test_a_crash_on_one_file_never_stops_the_others(tmp_path: Path, monkeypatch, crash) -> None:
    if sys.platform != "linux":
        pytest.skip("the monkeypatch reaches the workers through fork")
    _trainers(tmp_path, 20)
    victim = str(tmp_path / "pkg" / "trainer_007.py")
    from ppo_migrate.edits import text_edits as edits

    real = edits.process_text

    def process_text(text, path, settings, *, fix, **kwargs):
        if path == victim:
            if crash == "exception":
                raise ZeroDivisionError("boom")
            if crash == "panic":
                raise _Panic("rust panicked")
            os._exit(3)  # as a segfault or the OOM killer would end the worker
        return real(text, path, settings, fix=fix, **kwargs)

    monkeypatch.setattr(edits, "process_text", process_text)
    paths = sorted(str(p) for p in tmp_path.rglob("*.py"))
    result = _run_in_pool(paths)
    assert not result.interrupted
    errors = result.internal_errors
    assert len(errors) == 1 and errors[0].startswith(victim), errors
    others = [o for o in result.outcomes if o.path != victim and "trainer_" in o.path]
    assert len(others) == 19
    assert all(o.diagnostics and not o.internal_error for o in others)
    assert [o.path for o in result.outcomes] == sorted(o.path for o in result.outcomes)


def test_prefilter_reads_bytes_exactly(tmp_path: Path) -> None:
    big = tmp_path / "big.py"
    big.write_bytes(b"x = 1\n" * 300_000 + b"get_ppo_ray_runtime_env()\n")
    empty = tmp_path / "empty.py"
    empty.write_bytes(b"")
    missing = tmp_path / "missing.py"
    assert runner._read_bytes(str(big)) == big.read_bytes()
    assert runner._read_bytes(str(empty)) == b""
    candidates = runner.prefilter([str(big), str(empty), str(missing)], Settings())
    assert candidates == [str(big), str(missing)]  # unreadable: process_file reports it


# A SIGINT that lands while concurrent.futures' wait() takes the futures' locks one by one:
# the wrapper sends it from inside wait() and records a KeyboardInterrupt coming out of it.
SIGINT_INSIDE_WAIT = """
import concurrent.futures, os, signal, sys
real = concurrent.futures.wait
seen = []

def wait(*args, **kwargs):
    try:
        if not seen:
            seen.append("sent")
            os.kill(os.getpid(), signal.SIGINT)
        return real(*args, **kwargs)
    except KeyboardInterrupt:
        seen.append("raised inside wait")
        raise

concurrent.futures.wait = wait
from pathlib import Path
from ppo_migrate.cli.runner import Mode, run
from ppo_migrate.settings_model import Settings

files = sorted(str(p) for p in Path("tree").rglob("*.py"))
result = run(files, Settings(), Mode.CHECK, jobs=2, force_pool=True)
print(result.interrupted, len(result.outcomes) < len(files), seen, flush=True)
"""


def test_ctrl_c_inside_the_pools_wait_is_taken_at_the_next_look(tmp_path: Path) -> None:
    """Bug (a tester's SIGINT to a 6,000-candidate check that never exited): raised inside
    ``concurrent.futures.wait``, the KeyboardInterrupt could leave a future's lock taken, and
    at exit the executor's thread waited for it forever. In the pool Ctrl-C now only sets
    the run's flag; the run stops at its next look (``_STOP_POLL_SECONDS``), outside any lock."""
    _trainers(tmp_path / "tree", 200)
    r = subprocess.run(
        [sys.executable, "-c", SIGINT_INSIDE_WAIT], cwd=tmp_path, env=_env(),
        capture_output=True, text=True, timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "True True ['sent']"


def _children(pid: int) -> int:
    n = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        if int(text[text.rindex(")") + 2 :].split()[1]) == pid:
            n += 1
    return n


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_workers_end_when_the_parent_is_killed(tmp_path: Path, sig: signal.Signals) -> None:
    """Bug (a tester's ``kill -TERM`` of a 6,000-candidate ``check``): the pool's workers,
    blocked on the executor's queue, outlived the parent for ever. Each now watches a pipe
    only the parent holds and ends itself when the parent is gone."""
    _trainers(tmp_path / "tree", 400)
    proc = subprocess.Popen(
        [*PPO, "check", "--jobs", "2", "tree"],
        cwd=tmp_path, env=_env(**POOL), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while _children(proc.pid) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert proc.poll() is None, "the run ended before its workers could be seen"
        os.kill(proc.pid, sig)
        proc.wait(timeout=30)
        assert group_left_after(proc.pid, 10) == []
    finally:
        kill_group(proc.pid)


# The scout of a plain ``check`` forks as early as it can: what it records is imported by then.
FORK_IMPORTS = """
import sys
at_start = set(sys.modules)  # the interpreter's own start (site's .pth files) is not ours
import ppo_migrate.cli.scout as scouting

real_start = scouting.start

def start(*args):
    heavy = ("click", "typing", "dataclasses", "inspect", "ast", "ppo_migrate.cli.runner")
    ours = [m for m in heavy if m in sys.modules and m not in at_start]
    print("at fork:", ours, file=sys.stderr, flush=True)
    return real_start(*args)

scouting.start = start
from ppo_migrate.cli.entry import main
main()
"""


@pytest.mark.skipif(sys.platform != "linux", reason="the scout forks on Linux only")
def test_a_plain_check_forks_its_scout_before_the_heavy_imports(tmp_path: Path) -> None:
    """Issue 13, item 6: the walk is the run's longest part; click, typing, dataclasses
    (inspect), ast and the runner are imported by the parent while the scout walks.

    A module the interpreter loaded before our code ran is not counted: a site ``.pth``
    file (certifi's, on CI machines) can import ``typing`` at start-up."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("x = 1\n")
    proc = subprocess.run(
        [sys.executable, "-c", FORK_IMPORTS, "check", "pkg"],
        cwd=tmp_path, capture_output=True, env=_env(), timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b"All checks passed!\n"
    assert proc.stderr.splitlines()[0] == b"at fork: []", proc.stderr
