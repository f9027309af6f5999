"""``ppo-migrate apply`` through the real executable: ``--diff`` output that patch tools
apply, where the diff goes with a machine-readable output format, standard input via
``--stdin-filename`` alone, and a reader that goes away (a closed pipe)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import warm_python
from cli_helpers import declare_verl, ppo_migrate_exe, run_cli, verl_stub

IMP = b"from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
CALL, FIXED = b"get_ppo_ray_runtime_env()", b"get_ppo_ray_runtime_env(config)"


def _module(eol: bytes, final: bool, head: bytes = b"", body: bytes = b"") -> bytes:
    lines = [IMP.rstrip(b"\n"), b"", b"def main(config):", body or b"    x = 1",
             b"    return " + CALL]
    return head + eol.join(lines) + (eol if final else b"")


# Every file gets the same rewrite; each tests one way a diff can be unappliable.
DIFF_CASES: dict[str, bytes] = {
    "lf.py": _module(b"\n", True),
    "no_final_newline.py": _module(b"\n", False),
    "crlf_no_final_newline.py": _module(b"\r\n", False),
    "cr_only.py": _module(b"\r", True),
    "cr_only_no_final_newline.py": _module(b"\r", False),
    "form_feed.py": _module(b"\n", False, body=b"    x = 1\x0c  # page"),
    "bom.py": _module(b"\n", True, head=b"\xef\xbb\xbf"),
    "latin1.py": _module(b"\n", False, head=b"# -*- coding: latin-1 -*-\n", body=b'    x = "\xe9"'),
}


def _apply_patch(patch_text: bytes, tree: Path) -> None:
    """Apply a ``-p1`` diff with GNU patch, or with ``git apply`` where patch is missing."""
    if shutil.which("patch"):
        proc = subprocess.run(
            ["patch", "-p1", "--batch", "--fuzz=0", "--no-backup-if-mismatch"],
            input=patch_text, cwd=tree, capture_output=True, check=False,
        )
    else:
        if not shutil.which("git"):
            pytest.skip("neither patch nor git is installed")
        subprocess.run(["git", "init", "-q", "."], cwd=tree, check=True)
        proc = subprocess.run(["git", "apply", "-p1", "-"], input=patch_text, cwd=tree,
                              capture_output=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert b"fuzz" not in proc.stdout.lower() and b"offset" not in proc.stdout.lower()


def test_diff_applies_with_patch_and_reproduces_apply(tmp_path: Path) -> None:
    """Bug: a file with no final newline (or CR-only line endings) got a broken diff:
    ``-old+new`` on one line, no ``\\ No newline at end of file``, the next file's header
    glued on; ``patch -p1`` refused it."""
    declare_verl(tmp_path)  # issue 26: the tree declares the verl it runs
    src = tmp_path / "diffed" / "src"
    src.mkdir(parents=True)
    for name, data in DIFF_CASES.items():
        (src / name).write_bytes(data)
    expected = tmp_path / "applied"
    shutil.copytree(tmp_path / "diffed", expected)

    proc = run_cli("apply", "--diff", "src", cwd=tmp_path / "diffed", text=False)
    assert proc.returncode == 1, proc.stderr
    patch_text = proc.stdout
    for name, data in DIFF_CASES.items():  # --diff writes nothing
        assert (src / name).read_bytes() == data
    assert patch_text.count(b"\n--- a/src/") == len(DIFF_CASES) - 1
    assert b"Would rewrite 8 calls in 8 files" in proc.stderr  # stdout: the patch alone
    body = patch_text.rstrip(b"\n")
    for line in body.split(b"\n"):  # every line is a header, hunk, context, -/+ or marker
        assert line[:1] in (b"-", b"+", b" ", b"@", b"\\"), line
    # the last line changes in every file: a marker after its - and its + line
    assert patch_text.count(b"\n\\ No newline at end of file\n") == 2 * sum(
        not data.endswith(b"\n") for data in DIFF_CASES.values()
    )

    assert run_cli("apply", "src", cwd=expected).returncode == 0
    _apply_patch(body + b"\n", tmp_path / "diffed")
    for name in DIFF_CASES:
        assert (src / name).read_bytes() == (expected / "src" / name).read_bytes(), name
        assert FIXED in (src / name).read_bytes()


@pytest.mark.parametrize("fmt", ["json", "sarif", "github", "junit"])
def test_diff_goes_to_stderr_with_a_machine_readable_format(tmp_path: Path, fmt: str) -> None:
    """Bug: ``apply --diff --output-format json`` printed the diff into the JSON on stdout."""
    declare_verl(tmp_path)  # issue 26: the tree declares the verl it runs
    (tmp_path / "a.py").write_bytes(_module(b"\n", True))
    (tmp_path / "server.py").write_bytes(IMP + b"def init_ray(address):\n    return " + CALL + b"\n")
    proc = run_cli("apply", "--diff", "--output-format", fmt, ".", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "--- a/a.py" not in proc.stdout and "+++ b/a.py" not in proc.stdout
    assert "--- a/a.py\n+++ b/a.py\n" in proc.stderr
    assert "+    return get_ppo_ray_runtime_env(config)\n" in proc.stderr
    if fmt in ("json", "sarif"):
        json.loads(proc.stdout)  # nothing but the document
    if fmt == "json":
        assert [d["code"] for d in json.loads(proc.stdout)] == ["PPO002"]
    stdin = run_cli("apply", "--diff", "--output-format", "json", "-", "--stdin-filename", "a.py",
                    cwd=tmp_path, input=_module(b"\n", True))
    assert json.loads(stdin.stdout) == []
    assert "+++ b/a.py" in stdin.stderr
    concise = run_cli("apply", "--diff", ".", cwd=tmp_path)  # concise: the diff is the output
    assert concise.stdout.startswith("--- a/a.py\n+++ b/a.py\n")


def test_stdin_filename_alone_reads_standard_input(tmp_path: Path) -> None:
    """Bug: ``--stdin-filename x.py`` without ``-`` processed the current directory."""
    declare_verl(tmp_path)  # issue 26: the tree declares the verl it runs
    (tmp_path / "on_disk.py").write_bytes(_module(b"\n", True))
    proc = run_cli("apply", "--stdin-filename", "x.py", cwd=tmp_path, input=_module(b"\n", True))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.encode() == _module(b"\n", True).replace(CALL, FIXED)
    assert (tmp_path / "on_disk.py").read_bytes() == _module(b"\n", True)  # untouched
    diff = run_cli("apply", "--diff", "--stdin-filename", "x.py", cwd=tmp_path,
                   input=_module(b"\n", True))
    assert diff.returncode == 1
    assert "+++ b/x.py" in diff.stdout and "on_disk.py" not in diff.stdout + diff.stderr


def run_into_closed_pipe(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """Run ``ppo-migrate ARGS`` with standard output a pipe whose reader is already gone."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        env = {k: v for k, v in os.environ.items() if k != "CI"}
        return subprocess.run([*ppo_migrate_exe(), *args], stdout=write_end,
                              stderr=subprocess.PIPE, cwd=cwd, env=env, timeout=300, check=False)
    finally:
        os.close(write_end)


@pytest.mark.parametrize(
    "args",
    [("rule", "--all"), ("rule", "PPO001"), ("apply", "--diff", "."), ("check", "."),
     ("check", "--output-format", "json", "."), ("--help",)],
)
def test_closed_pipe_is_a_quiet_exit_1(tmp_path: Path, args: tuple[str, ...]) -> None:
    """Bug: ``ppo-migrate rule --all | head -1`` printed "internal error: BrokenPipeError", exit 2."""
    declare_verl(tmp_path)  # issue 26: the tree declares the verl it runs
    for i in range(3):
        (tmp_path / f"m{i}.py").write_bytes(_module(b"\n", True))
    proc = run_into_closed_pipe(*args, cwd=tmp_path)
    assert proc.stderr == b""
    assert proc.returncode == 1
    for i in range(3):  # apply --diff still wrote nothing
        assert (tmp_path / f"m{i}.py").read_bytes() == _module(b"\n", True)


def test_concise_diff_prints_only_the_patch_on_stdout(tmp_path: Path) -> None:
    """``ppo-migrate apply --diff src > fix.patch`` is a clean patch: the findings and the
    summary go to standard error (before, they followed the patch on stdout and
    ``git apply`` rejected the file)."""
    declare_verl(tmp_path)  # issue 26: the tree declares the verl it runs
    src = tmp_path / "repo" / "src"
    src.mkdir(parents=True)
    (src / "a.py").write_bytes(_module(b"\n", True))
    (src / "b.py").write_bytes(_module(b"\r\n", False))
    (src / "server.py").write_bytes(IMP + b"def init_ray(address):\n    return " + CALL + b"\n")
    before = {p.name: p.read_bytes() for p in src.iterdir()}
    proc = run_cli("apply", "--diff", "--output-format", "concise", "src", cwd=tmp_path / "repo", text=False)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith(b"--- a/src/a.py\n+++ b/src/a.py\n")
    assert b"PPO002" not in proc.stdout and b"Would rewrite" not in proc.stdout
    err = proc.stderr.decode()
    assert err.splitlines() == [
        "src/server.py:3:12: PPO002 `get_ppo_ray_runtime_env()` called without a config and no "
        "training config is in scope in `init_ray`; this entry point must obtain the training config "
        "and pass it",
        "Would rewrite 2 calls in 2 files; 1 finding remains.",
    ]
    (tmp_path / "fix.patch").write_bytes(proc.stdout)
    subprocess.run(["git", "init", "-q", "."], cwd=tmp_path / "repo", check=True)
    r = subprocess.run(["git", "apply", "--whitespace=nowarn", str(tmp_path / "fix.patch")],
                       cwd=tmp_path / "repo", capture_output=True, check=False)
    assert r.returncode == 0, r.stderr
    assert (src / "a.py").read_bytes() == before["a.py"].replace(CALL, FIXED)
    assert (src / "b.py").read_bytes() == before["b.py"].replace(CALL, FIXED)
    assert (src / "server.py").read_bytes() == before["server.py"]


def test_cr_only_file_with_an_encoding_cookie_is_checked_and_rewritten_byte_exact(tmp_path: Path) -> None:
    """Bug: CR-only line endings + ``# -*- coding: latin-1 -*-`` + Latin-1 bytes later gave
    ``PPO901 cannot decode (utf-8)``, though Python runs the file."""
    import sys

    verl = tmp_path / "verl" / "trainer"
    verl.mkdir(parents=True)
    (tmp_path / "verl" / "__init__.py").write_text("")
    (verl / "__init__.py").write_text("")
    (verl / "constants_ppo.py").write_text(
        "def get_ppo_ray_runtime_env(config=None):\n    return {'config': config}\n"
    )
    source = b"\r".join([
        b"# -*- coding: latin-1 -*-",
        b'"""Caf\xe9 launcher."""',
        IMP.rstrip(b"\n"),
        b"",
        b"",
        b"def main(config):",
        b'    name = "d\xe9j\xe0 vu"',
        b"    return name, " + CALL,
        b"",
        b"",
        b'if __name__ == "__main__":',
        b"    from omegaconf import OmegaConf",  # a string passed to main would be no config
        b'    print(ascii(__doc__), ascii(main(OmegaConf.create({"trainer": {"name": "cfg"}}))))',
        b"",
    ])
    script = tmp_path / "train.py"
    script.write_bytes(source)
    ran = warm_python.run([sys.executable, "train.py"], cwd=tmp_path, capture_output=True, check=True)
    assert ran.stdout == b"'Caf\\xe9 launcher.' ('d\\xe9j\\xe0 vu', {'config': None})\n"

    check = run_cli("check", "train.py", cwd=tmp_path)
    assert "PPO901" not in check.stdout + check.stderr
    assert check.stdout.startswith("train.py:8:18: PPO001 [*]"), check.stdout
    assert script.read_bytes() == source

    proc = run_cli("apply", "train.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Rewrote train.py (1 call)" in proc.stdout
    assert script.read_bytes() == source.replace(CALL, FIXED)  # only `config` inserted
    ran = warm_python.run([sys.executable, "train.py"], cwd=tmp_path, capture_output=True, check=True)
    assert ran.stdout == b"'Caf\\xe9 launcher.' ('d\\xe9j\\xe0 vu', {'config': {'trainer': {'name': 'cfg'}}})\n"


def test_use_ppo_runtime_notice_says_the_name_is_taken_instead_of_advising_the_flag(tmp_path: Path) -> None:
    """Bug: with --use-ppo-runtime, a call through ``c.get_ppo_ray_runtime_env`` in a module
    that binds ``ppo_runtime`` (so the move is skipped, rightly) kept PPO005's advice "or run
    with --use-ppo-runtime" and never said why the flag did nothing."""
    (tmp_path / "pyproject.toml").write_text('[tool.ppo-migrate]\nverl-version = "0.8.0"\n')
    taken = (
        "import verl.trainer.constants_ppo as c\n\n\n"
        "def helper():\n    ppo_runtime = 'mine'\n    return ppo_runtime\n\n\n"
        "def main(config):\n    return c.get_ppo_ray_runtime_env()\n"
    )
    (tmp_path / "taken.py").write_text(taken)
    (tmp_path / "free.py").write_text(taken.replace("ppo_runtime = 'mine'\n    return ppo_runtime", "return 1"))
    said = "`ppo_runtime` is bound to something else in this module, so the import cannot be moved"

    proc = run_cli("apply", "--use-ppo-runtime", "--show-notices", "--output-format", "concise", ".", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "taken.py").read_text() == taken  # left alone
    assert "import ppo_runtime" in (tmp_path / "free.py").read_text()  # moved and rewritten
    assert "ppo_runtime.get_ppo_ray_runtime_env(config)" in (tmp_path / "free.py").read_text()
    notices = [line for line in proc.stdout.splitlines() if "PPO005" in line]
    assert len(notices) == 1 and notices[0].startswith("taken.py:10:12: PPO005 "), proc.stdout
    assert said in notices[0]
    assert "or run with --use-ppo-runtime" not in proc.stdout
    assert f"1 call left as it is: `pyproject.toml: verl-version = 0.8.0`" in proc.stdout

    # without the flag, the flag is still the advice
    plain = run_cli("apply", "--diff", "--show-notices", "taken.py", cwd=tmp_path)
    assert "or run with --use-ppo-runtime" in plain.stderr and said not in plain.stderr


#: a call spelled with spaces around its dot (legal Python): ``cp .get_...()``
SPACED = (
    "import verl.trainer.constants_ppo as cp\n\n\n"
    "def launch(config):\n    return cp .get_ppo_ray_runtime_env()\n\n\n"
    "def launch_split(config):\n    return (cp\n            .get_ppo_ray_runtime_env())\n\n\n"
    "def launch_after(config):\n    return cp. get_ppo_ray_runtime_env ()\n"
)
#: verl >= 0.9's function, saying whether it got a config
SPACED_VERL = "def get_ppo_ray_runtime_env(config=None):\n    return {'got_config': config is not None}\n"


@pytest.mark.parametrize(
    ("options", "rewritten"),
    [
        ((), [
            "cp .get_ppo_ray_runtime_env(config)", "            .get_ppo_ray_runtime_env(config))",
            "cp. get_ppo_ray_runtime_env (config)",
        ]),
        (("--use-ppo-runtime",), [
            "ppo_runtime .get_ppo_ray_runtime_env(config)",
            "            .get_ppo_ray_runtime_env(config))",
            "ppo_runtime. get_ppo_ray_runtime_env (config)",
        ]),
    ],
    ids=["plain", "use-ppo-runtime"],
)
def test_a_call_spelled_with_a_space_before_the_dot_keeps_it(
    tmp_path: Path, options: tuple[str, ...], rewritten: list[str]
) -> None:
    """``cp .get_ppo_ray_runtime_env()`` (a space before the dot) and its kin are rewritten
    in place, the user's spacing kept, and the rewritten module, run, gives verl's
    function the config at every call."""
    root = declare_verl(tmp_path)
    for rel, text in {
        "stub/verl/__init__.py": "", "stub/verl/trainer/__init__.py": "",
        "stub/verl/trainer/constants_ppo.py": SPACED_VERL, "launcher.py": SPACED,
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    probe = (
        "import launcher\n"
        "print([f({'trainer': {}}) for f in (launcher.launch, launcher.launch_split, launcher.launch_after)])\n"
    )

    def run() -> str:
        import sys

        done = warm_python.run(
            [sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, timeout=60,
            env={**os.environ, "PYTHONPATH": f"{root / 'stub'}:{root}"},
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert run() == str([{"got_config": False}] * 3)
    applied = run_cli("apply", *options, "--output-format", "concise", "launcher.py", cwd=root)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    text = (root / "launcher.py").read_text()
    assert [line.removeprefix("    return ") for line in text.splitlines() if "get_ppo" in line] == rewritten
    if options:  # ppo_runtime's own function: a runtime_env, the config taken
        assert run().startswith("[{'env_vars'")
    else:
        assert run() == str([{"got_config": True}] * 3)


#: verl 0.8's function, trimmed: a variable the driver's shell sets is left to the driver
OLD_VERL = (
    "import os\n\n\ndef get_ppo_ray_runtime_env():\n"
    "    env = {'TOKENIZERS_PARALLELISM': 'true', 'NCCL_DEBUG': 'WARN'}\n"
    "    return {'env_vars': {k: v for k, v in env.items() if k not in os.environ}}\n"
)


def test_use_ppo_runtime_leaves_a_tests_import_on_verl(tmp_path: Path) -> None:
    """Fresh user 44, B2: a test asserting verl's own driver filter (as the bundled fixture's
    ``test_driver_value_is_not_overridden`` does) failed once ``--use-ppo-runtime`` moved its
    import, as ``ppo_runtime`` forwards the driver's value. The test's import stays on verl and
    the run says why; the launcher moves; the tests pass before and after (run with pytest)."""
    verl_stub(tmp_path / "site", OLD_VERL)
    project = tmp_path / "proj"
    (project / "app").mkdir(parents=True)
    (project / "tests").mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\ndependencies = ["verl==0.8.0"]\n')
    (project / "app" / "__init__.py").write_text("")
    (project / "app" / "launch.py").write_text(
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
        "def launch(config):\n    return get_ppo_ray_runtime_env()\n"
    )
    test = (
        "import os\n\nfrom verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
        "def test_driver_value_is_not_overridden(monkeypatch):\n"
        "    monkeypatch.setenv('NCCL_DEBUG', 'INFO')\n"
        "    assert 'NCCL_DEBUG' not in get_ppo_ray_runtime_env()['env_vars']\n"
    )
    (project / "tests" / "test_env.py").write_text(test)
    env = {**os.environ, "PYTHONPATH": f"{project}{os.pathsep}{tmp_path / 'site'}"}

    def tests() -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-n0", "tests"],
            cwd=project, env=env, capture_output=True, text=True,
        )

    assert tests().returncode == 0
    proc = run_cli("apply", "--use-ppo-runtime", ".", cwd=project)
    assert "Kept the verl import in tests/test_env.py (not moved to ppo_runtime): a test's file" in proc.stdout
    assert (project / "tests" / "test_env.py").read_text() == test
    assert (project / "app" / "launch.py").read_text().startswith("from ppo_runtime import get_ppo_ray_runtime_env\n")
    assert "get_ppo_ray_runtime_env(config)" in (project / "app" / "launch.py").read_text()
    after = tests()
    assert after.returncode == 0, after.stdout + after.stderr


def test_use_ppo_runtime_moves_nothing_where_the_project_adds_to_verls_constant(tmp_path: Path) -> None:
    """Fresh user 44, B3: a boot module adding a variable to verl's ``PPO_RAY_RUNTIME_ENV``
    (as projects set ``NCCL_NET``) lost it once ``--use-ppo-runtime`` moved the calls to
    ``ppo_runtime``, which never reads that constant: ``KeyError`` here, a variable silently
    missing on a cluster. Nothing moves and the run names the line; the launcher still runs
    and still sees the variable (run before and after)."""
    verl_stub(tmp_path / "site", (
        "PPO_RAY_RUNTIME_ENV = {'env_vars': {'TOKENIZERS_PARALLELISM': 'true'}}\n\n\n"
        "def get_ppo_ray_runtime_env():\n    return {'env_vars': dict(PPO_RAY_RUNTIME_ENV['env_vars'])}\n"
    ))
    project = tmp_path / "proj"
    (project / "app").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\ndependencies = ["verl==0.8.0"]\n')
    (project / "app" / "__init__.py").write_text("")
    boot = "from verl.trainer.constants_ppo import PPO_RAY_RUNTIME_ENV\n\nPPO_RAY_RUNTIME_ENV['env_vars']['NCCL_NET'] = 'IB'\n"
    (project / "app" / "boot.py").write_text(boot)
    launch = (
        "import app.boot  # noqa: F401\nfrom verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
        "def launch(config):\n    return get_ppo_ray_runtime_env()['env_vars']['NCCL_NET']\n"
    )
    (project / "app" / "launch.py").write_text(launch)
    env = {**os.environ, "PYTHONPATH": f"{project}{os.pathsep}{tmp_path / 'site'}"}

    def run() -> subprocess.CompletedProcess:
        code = "from app.launch import launch; print(launch({'x': 1}))"
        return subprocess.run([sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True)

    assert run().stdout == "IB\n"
    proc = run_cli("apply", "--use-ppo-runtime", ".", cwd=project)
    assert (
        "Kept the verl import in app/launch.py (not moved to ppo_runtime): `app/boot.py:1` names verl's "
        "PPO_RAY_RUNTIME_ENV, which ppo_runtime does not read" in proc.stdout
    ), proc.stdout
    assert (project / "app" / "launch.py").read_text() == launch
    assert run().stdout == "IB\n"
    # the oracle: without the boot module's edit, the same launcher moves
    (project / "app" / "boot.py").write_text("")
    (project / "app" / "launch.py").write_text(launch.replace("['env_vars']['NCCL_NET']", ""))
    run_cli("apply", "--use-ppo-runtime", ".", cwd=project)
    assert (project / "app" / "launch.py").read_text().count("from ppo_runtime import get_ppo_ray_runtime_env") == 1
