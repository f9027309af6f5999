"""``ppo_migrate.cli.commands``: a plain ``check PATH ...`` runs without click, as click would run it.

The oracle is click's own lane: the same command line given to :func:`ppo_migrate.cli.app.main`
(which always parses with click). Both run as real subprocesses; their exit codes, standard
output and standard error must be equal byte for byte.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ppo_migrate.cli import app as cli, commands
from ppo_migrate.cli.settings import load_settings

from cli_helpers import declare_verl, group_left_after, kill_group, ppo_migrate_exe, run_cli

IMPORT = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
FIXABLE = IMPORT + "\n\ndef run_ppo(config):\n    return get_ppo_ray_runtime_env()\n"
ENTRY = IMPORT + "\n\ndef init_ray(address):\n    return get_ppo_ray_runtime_env()\n"
CALLER = "from pkg.m011 import init_ray\n\n\ndef main(config):\n    init_ray(config.ray)\n"
PLAIN = "def f(x):\n    return x + 1\n"

# click's lane for any command line: ppo_migrate.cli.app.main parses it with click
CLICK_LANE = "import sys\nfrom ppo_migrate.cli.app import main\nmain(sys.argv[1:])\n"
# the console script, saying at exit whether click was imported and how many scouts forked
SCRIPT_LANE = textwrap.dedent(
    """
    import atexit, sys
    import ppo_migrate.cli.scout as scouting

    forked = []
    real_start = scouting.start
    scouting.start = lambda *args: forked.append(1) or real_start(*args)
    atexit.register(
        lambda: print(f"click={'click' in sys.modules} forked={len(forked)}", file=sys.stderr)
    )
    from ppo_migrate.cli.entry import main
    main()
    """
)


def _tree(root: Path, n: int = 40) -> Path:
    """A package with fixable calls, entry points with a caller (hints), a syntax error, a
    full-width spelling, a ``.gitignore``d directory and a name that is not UTF-8."""
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "ignored").mkdir()
    (root / ".git").mkdir()
    (root / ".gitignore").write_text("ignored/\n")
    declare_verl(root)  # issue 26: the tree declares the verl it runs
    (root / "pkg" / "__init__.py").write_text("")
    for i in range(n):
        text = FIXABLE if i % 7 == 0 else ENTRY if i % 11 == 0 else PLAIN
        (root / "pkg" / ("sub" if i % 2 else "") / f"m{i:03d}.py").write_text(text)
    (root / "pkg" / "m011.py").write_text(ENTRY)
    (root / "pkg" / "launch.py").write_text(CALLER)
    (root / "pkg" / "broken.py").write_text(IMPORT + "def (:\n")
    (root / "pkg" / "wide.py").write_text(
        IMPORT + "\n\ndef go(config):\n    return ｇet_ppo_ray_runtime_env()\n", encoding="utf-8"
    )
    (root / "ignored" / "hidden.py").write_text(FIXABLE)
    (root / os.fsdecode(b"pkg/bad\xff.py")).write_text(FIXABLE)
    (root / "clean").mkdir()  # migrated: the call passes its config
    (root / "clean" / "done.py").write_text(FIXABLE.replace("env()", "env(config)"))
    (root / "clean" / "plain.py").write_text(PLAIN)
    return root


def _env() -> dict[str, str]:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("CI", None)
    env.pop(commands.COMPLETION_ENV, None)
    return env


def _run(lane: list[str], args: tuple[str, ...], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*lane, *args], cwd=cwd, capture_output=True, env=_env(), timeout=120
    )


def _script(args: tuple[str, ...], cwd: Path) -> tuple[subprocess.CompletedProcess, bytes]:
    """The console script's lane, and what it said at exit (click imported, scouts)."""
    proc = _run([sys.executable, "-c", SCRIPT_LANE], args, cwd)
    body, _, said = proc.stderr.rpartition(b"click=")
    proc.stderr = body
    return proc, b"click=" + said


def _click(args: tuple[str, ...], cwd: Path) -> subprocess.CompletedProcess:
    return _run([sys.executable, "-c", CLICK_LANE], args, cwd)


CASES = {
    "findings, hints and errors": ("check", "pkg", "ignored"),
    "CI's flags among the paths": ("check", "--no-progress", "pkg", "--exit-zero"),
    "the working directory": ("check",),
    "a file only (no scout)": ("check", "pkg/m000.py"),
    "a path that does not exist": ("check", "pkg", "nowhere"),
    "a clean directory": ("check", "clean"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_plain_check_runs_without_click_as_click_runs_it(tmp_path: Path, case: str) -> None:
    root = _tree(tmp_path)
    args = CASES[case]
    script, said = _script(args, root)
    oracle = _click(args, root)
    assert (script.returncode, script.stdout, script.stderr) == (
        oracle.returncode, oracle.stdout, oracle.stderr
    )
    assert said.startswith(b"click=False"), said
    expected = {  # what each case is, so that equal outputs cannot both be empty or wrong
        "findings, hints and errors": 1,
        "CI's flags among the paths": 0,  # --exit-zero
        "the working directory": 1,
        "a file only (no scout)": 1,
        "a path that does not exist": 2,
        "a clean directory": 0,
    }[case]
    assert script.returncode == expected, script.stderr
    if case == "findings, hints and errors":
        out = script.stdout.decode("utf-8", "surrogateescape")
        assert "pkg/m000.py:5:12: PPO001" in out and "bad\udcff.py" in out
        assert "pkg/m011.py:5:12: PPO002" in out and "launch.py" in out  # the caller's hint
        assert "hidden.py" in out  # named on the command line: not skipped
        assert "pkg/broken.py:2:5: PPO902 syntax error" in out
        assert out.endswith("Found 14 errors.\n[*] 9 fixable with `ppo-migrate apply`.\n")
        assert said == b"click=False forked=1\n"
    if case == "CI's flags among the paths":
        out = script.stdout.decode("utf-8", "surrogateescape")
        assert "pkg/m000.py:5:12: PPO001" in out and "hidden.py" not in out
        assert out.endswith("Found 13 errors.\n[*] 8 fixable with `ppo-migrate apply`.\n")
        assert said == b"click=False forked=1\n"
    if case == "the working directory":
        assert b"hidden.py" not in script.stdout and b"Found 13 errors." in script.stdout
    if case == "a clean directory":
        assert script.stdout == b"All checks passed!\n", script.stdout
    if case == "a path that does not exist":
        assert script.stderr == b"ppo-migrate: error: nowhere: no such file or directory\n"
    if case == "a file only (no scout)":
        assert said == b"click=False forked=0\n"


@pytest.mark.parametrize(
    "pyproject",
    [
        '[tool.ppo-migrate]\noutput-format = "json"\nconfig-names = ["config", "c"]\n',
        '[tool.ppo-migrate]\nkeyword = "yes"\n',  # invalid: a one-line error, exit 2
        '[tool.ppo-migrate]\nextend-exclude = ["pkg/sub"]\nunsafe-fixes = true\n',
    ],
)
def test_a_plain_check_reads_the_settings_as_click_does(tmp_path: Path, pyproject: str) -> None:
    root = _tree(tmp_path)
    (root / "pyproject.toml").write_text(pyproject)
    script, said = _script(("check", "pkg"), root)
    oracle = _click(("check", "pkg"), root)
    assert (script.returncode, script.stdout, script.stderr) == (
        oracle.returncode, oracle.stdout, oracle.stderr
    )
    assert said.startswith(b"click=False")
    if "json" in pyproject:
        codes = {d["code"] for d in json.loads(script.stdout)}
        assert {"PPO001", "PPO002"} <= codes
    elif "keyword" in pyproject:
        assert script.returncode == 2 and script.stdout == b""
        assert script.stderr.startswith(b"ppo-migrate: error: ") and b"keyword" in script.stderr
        assert script.stderr.count(b"\n") == 1
    else:
        assert b"pkg/sub/" not in script.stdout and b"pkg/m000.py" in script.stdout


def test_any_option_leaves_the_command_line_to_click(tmp_path: Path) -> None:
    root = _tree(tmp_path, n=8)
    for args in (
        ("check", "--statistics", "pkg"), ("check", "pkg", "-q"), ("check", "--", "pkg"),
        ("check", "--exit-zero", "--", "pkg"), ("check", "--no-progress=1", "pkg"),
    ):
        script, said = _script(args, root)
        assert said.startswith(b"click=True"), (args, said)
        oracle = _click(args, root)
        assert (script.returncode, script.stdout, script.stderr) == (
            oracle.returncode, oracle.stdout, oracle.stderr
        )
    quiet, _ = _script(("check", "pkg", "-q"), root)
    assert quiet.returncode == 1 and b"Found" not in quiet.stdout


def test_plain_check_recognises_only_check_and_paths(monkeypatch) -> None:
    monkeypatch.delenv(commands.COMPLETION_ENV, raising=False)
    assert commands.plain_check(["check", "src", "a b.py"]) == ("src", "a b.py")
    assert commands.plain_check(["check"]) == ()
    assert commands.plain_check(["check", "--no-progress", "src", "--exit-zero"]) == ("src",)
    assert commands.plain_check(["check", "--exit-zero"]) == ()
    for argv in (
        [],
        ["apply", "src"],
        ["rule", "PPO001"],
        ["check", "-"],  # standard input
        ["check", "--", "src"],
        ["check", "src", "--fix"],
        ["check", "-q", "src"],
        ["check", "--no-progress=1", "src"],  # click: the flag takes no value
        ["check", "--no-prog", "src"],
        ["check", "--exit-zero", "-", "src"],
        ["--version"],
        ["chek", "src"],  # click's "Did you mean" for a misspelt command
    ):
        assert commands.plain_check(argv) is None, argv
    monkeypatch.setenv(commands.COMPLETION_ENV, "bash_complete")  # click's shell completion
    assert commands.plain_check(["check", "src"]) is None


def test_click_parses_a_plain_command_line_into_the_plain_lanes_call(
    tmp_path: Path, monkeypatch
) -> None:
    """The one place the defaults could drift apart: the options and settings click's
    ``check`` hands to :func:`commands.check` for ``check PATH ...`` are exactly those the
    plain lane builds (``CheckOptions()``, with the flags of :data:`commands.PLAIN_FLAGS`
    set, and the settings for the paths alone)."""
    (tmp_path / "pyproject.toml").write_text('[tool.ppo-migrate]\nconfig-names = ["cfg"]\n')
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path)
    calls = []
    monkeypatch.setattr(commands, "check", lambda *a: calls.append(a))
    flags = [["check", "--no-progress", "src"], ["check", "--exit-zero", "x.py", "--no-progress"]]
    for argv in (["check", "src", "x.py"], ["check"], *flags):
        with pytest.raises(SystemExit) as exit_:
            cli.main(argv)
        assert exit_.value.code == 0
        paths, settings, options = calls.pop()
        assert paths == commands.plain_check(argv)
        assert options == commands.plain_options(argv)
        if argv in flags:
            assert (options.no_progress, options.exit_zero) == (True, "--exit-zero" in argv)
        else:
            assert options == commands.CheckOptions()
        assert settings == commands.load(paths, {}) == load_settings(list(paths) or ["."])
        assert settings.config_names == ("cfg",)
    # and a command line with options is different there (the comparison can fail)
    with pytest.raises(SystemExit):
        cli.main(["check", "--exit-zero", "-j", "1", "src"])
    _, _, options = calls.pop()
    assert options != commands.CheckOptions()
    assert (options.exit_zero, options.jobs) == (True, 1)


# Ctrl-C at an import: a finder raises it where a real one lands in the first milliseconds.
INTERRUPTED_IMPORT = textwrap.dedent(
    """
    import atexit, sys
    import ppo_migrate.cli.scout as scouting

    forked = []
    real_start = scouting.start
    scouting.start = lambda *args: forked.append(1) or real_start(*args)
    module = sys.argv.pop(1)

    class CtrlC:
        def find_spec(self, name, path=None, target=None):
            if name == module:
                raise KeyboardInterrupt
            return None

    sys.meta_path.insert(0, CtrlC())
    atexit.register(lambda: print(f"forked={len(forked)}", file=sys.stderr))
    from ppo_migrate.cli.entry import main
    main()
    """
)


@pytest.mark.skipif(sys.platform != "linux", reason="the scout forks on Linux only")
@pytest.mark.parametrize(
    ("module", "args", "forked"),
    [
        ("ppo_migrate.cli.runner", ("check", "pkg"), 1),  # plain: the scout has forked
        ("ppo_migrate.cli.app", ("check", "--jobs", "2", "pkg"), 0),  # click's: before the CLI
    ],
)
@pytest.mark.xdist_group("quiet")
def test_ctrl_c_during_the_imports_exits_130_and_leaves_no_process(
    tmp_path: Path, module: str, args: tuple[str, ...], forked: int
) -> None:
    root = _tree(tmp_path, n=300)
    proc = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTED_IMPORT, module, *args],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(),
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err
        assert out == b""
        assert err == b"ppo-migrate: interrupted\n" + f"forked={forked}\n".encode()
        assert group_left_after(proc.pid, 3) == []
    finally:
        kill_group(proc.pid)


def test_the_console_script_is_the_plain_lane(tmp_path: Path) -> None:
    """The installed ``ppo-migrate`` (or ``python -m ppo_migrate``) takes the same lane."""
    root = _tree(tmp_path, n=8)
    installed = _run(ppo_migrate_exe(), ("check", "pkg"), root)
    oracle = _click(("check", "pkg"), root)
    assert (installed.returncode, installed.stdout, installed.stderr) == (
        oracle.returncode, oracle.stdout, oracle.stderr
    )
    assert installed.returncode == 1 and b"PPO001" in installed.stdout


@pytest.mark.skipif(shutil.which("capsh") is None, reason="capsh drops root's file access")
@pytest.mark.parametrize(
    "args",
    [
        ("check", "locked"),  # a directory without read permission
        ("check", "unread.py"),  # a file without read permission
        ("check", "pkg/m000.py", "locked"),  # a readable path beside it
        ("check", "unread.py", "nowhere"),  # beside a path that does not exist
    ],
)
def test_an_unreadable_path_is_clicks_usage_error_in_both_lanes(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """click's ``click.Path`` refuses a path that exists but cannot be read (a tester found the
    plain lane linting it instead: exit 0 for an unreadable directory). Such a command line is
    click's. Root reads anything: the capabilities that let it are dropped (capsh)."""
    root = _tree(tmp_path, n=8)
    (root / "locked").mkdir()
    (root / "locked" / "t.py").write_text(FIXABLE)
    (root / "locked").chmod(0)
    (root / "unread.py").write_text(FIXABLE)
    (root / "unread.py").chmod(0)
    bad = "locked" if "locked" in args else "unread.py"

    def under_capsh(lane: list[str]) -> subprocess.CompletedProcess:
        command = " ".join(["exec", *map(shlex.quote, lane), *args])
        return subprocess.run(
            ["capsh", "--drop=cap_dac_override,cap_dac_read_search", "--", "-c", command],
            cwd=root, capture_output=True, env=_env(), timeout=120,
        )

    try:
        script = under_capsh(ppo_migrate_exe())
        oracle = under_capsh([sys.executable, "-c", CLICK_LANE])
    finally:
        (root / "locked").chmod(0o755)
    assert (script.returncode, script.stdout, script.stderr) == (
        oracle.returncode, oracle.stdout, oracle.stderr
    )
    assert script.returncode == 2 and script.stdout == b""
    assert script.stderr.endswith(
        f"Error: Invalid value for '[PATHS]...': Path {bad!r} is not readable.\n".encode()
    ), script.stderr
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        mp.delenv(commands.COMPLETION_ENV, raising=False)
        assert commands.plain_check(list(args)) == args[1:]  # root may read it: plain here


# ------------------------------------------------ the test suite's in-process runner


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("check", "pkg", "ignored"), 1),  # the plain lane (no click), its scout forked
        (("check", "--jobs", "1", "--output-format", "json", "pkg"), 1),  # click's lane
        (("apply", "--diff", "pkg"), 1),
        (("check", "pkg", "nowhere"), 2),
        (("check", "clean"), 0),
        (("rule", "PPO001"), 0),
        (("check", "-"), 1),  # standard input
    ],
)
def test_run_cli_in_process_prints_what_the_console_script_prints(
    tmp_path: Path, args: tuple[str, ...], code: int
) -> None:
    """Issue 28: ``run_cli`` runs the CLI inside the test process (the console script's
    entry, both lanes); its exit code and output are the real executable's, byte for byte
    (a name that is not UTF-8 included), and it leaves nothing of the run behind."""
    import signal
    import sys

    root = _tree(tmp_path)
    stdin = FIXABLE.encode()
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    before = (os.getcwd(), dict(os.environ), list(sys.path), sys.stdout, sys.stderr)
    inside = run_cli(*args, cwd=root, input=stdin, env={"NO_COLOR": "1"})
    assert (os.getcwd(), dict(os.environ), list(sys.path), sys.stdout, sys.stderr) == before
    assert {s: signal.getsignal(s) for s in handlers} == handlers
    real = run_cli(*args, cwd=root, input=stdin, env={"NO_COLOR": "1"}, process=True)
    assert (inside.returncode, inside.stdout, inside.stderr) == (
        real.returncode, real.stdout, real.stderr
    )
    assert inside.returncode == code, inside.stderr
    assert inside.stdout or inside.stderr
