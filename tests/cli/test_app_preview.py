"""``apply --thread-config --diff`` through the command line: one multi-file diff that
``git apply`` turns into exactly what ``apply --thread-config`` writes, with nothing in the
tree touched and nothing copied: the rewrite's steps stage their edits in the run's
snapshot's overlay (:meth:`ppo_migrate.project.snapshot.Snapshot.overlay`, issue 26 step 7)."""

from __future__ import annotations

import multiprocessing
import shutil
import subprocess
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from cli_helpers import SUBPROCESS_ENV, declare_verl, run_cli
from ppo_migrate.cli import runner
from ppo_migrate.edits.unified_diff import unified_diff
from ppo_migrate.cli.modes import FORCE_POOL_ENV, Mode
from ppo_migrate.project.snapshot import Snapshot, current
from ppo_migrate.cli.settings import load_settings

DATA = Path(__file__).resolve().parents[1] / "data" / "preview"

IMP = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
SERVER = IMP + "\n\ndef init_ray(address):\n    return get_ppo_ray_runtime_env()\n"
LAUNCH = (
    IMP + "\nfrom pkg.server import init_ray\n\n\n"
    "def run(config):\n    env = get_ppo_ray_runtime_env()\n    return init_ray(config.address), env\n"
)
LONE = IMP + "\n\ndef helper():\n    return get_ppo_ray_runtime_env()\n"  # no caller: stays


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.py"))}


def _write(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "server.py").write_text(SERVER)
    (root / "pkg" / "launch.py").write_text(LAUNCH)
    (root / "tools.py").write_text(LONE)
    return declare_verl(root)  # issue 26: the tree declares the verl it runs


def _git_apply(patch: bytes, root: Path) -> None:
    subprocess.run(["git", "init", "-q", "."], cwd=root, check=True)
    r = subprocess.run(["git", "apply", "-"], input=patch, cwd=root, capture_output=True)
    assert r.returncode == 0, r.stderr.decode()


@pytest.mark.parametrize("fmt", ["concise", "json"])
def test_thread_config_diff_is_one_patch_equal_to_the_real_rewrite(tmp_path: Path, fmt: str) -> None:
    previewed, applied = _write(tmp_path / "previewed"), _write(tmp_path / "applied")
    before = _tree(previewed)
    proc = run_cli("apply", "--thread-config", "--diff", "--output-format", fmt, ".", cwd=previewed)
    assert proc.returncode == 1, proc.stderr  # a change would be made
    assert _tree(previewed) == before  # nothing written
    assert not list(tmp_path.rglob(".ppo-migrate-*"))
    err = proc.stderr
    patch = (proc.stdout if fmt == "concise" else err[err.index("--- a/"): err.rindex("Would rewrite")]).encode()
    assert patch.count(b"\n--- a/") + patch.startswith(b"--- a/") == 2  # both files, one patch
    assert b"+def init_ray(address, config=None):\n" in patch
    assert b"+    return init_ray(config.address, config=config), env\n" in patch
    real = run_cli("apply", "--thread-config", ".", cwd=applied)
    assert real.returncode == 1  # tools.py's helper has no caller: a PPO002 remains
    _git_apply(patch, previewed)
    assert _tree(previewed) == _tree(applied)
    assert _tree(applied)["pkg/server.py"] != before["pkg/server.py"]
    if fmt == "concise":
        assert proc.stderr.splitlines()[:2] == [
            "Would thread the config through pkg/launch.py",
            "Would thread the config through pkg/server.py",
        ]
        assert proc.stderr.splitlines()[-1] == (
            # launch.py's own safe fix, and server.py's call that threading reaches
            "Would rewrite 2 calls in 2 files; would thread the config through 2 files; "
            "1 finding remains."
        )
        assert "tools.py:5:12: PPO002" in proc.stderr


def test_thread_config_diff_inside_a_package_keeps_module_names(tmp_path: Path) -> None:
    """Run from inside a package: the package above the working directory is the real one,
    so ``from pkg.server import init_ray`` still resolves."""
    root = _write(tmp_path / "outer")
    inside = root / "pkg"
    before = _tree(inside)
    proc = run_cli("apply", "--thread-config", "--diff", ".", cwd=inside)
    assert proc.returncode == 1, proc.stderr
    assert "+def init_ray(address, config=None):" in proc.stdout
    assert _tree(inside) == before
    _git_apply(proc.stdout.encode(), inside)
    assert "init_ray(config.address, config=config)" in (inside / "launch.py").read_text()


def test_thread_config_diff_takes_paths_outside_the_working_directory(tmp_path: Path) -> None:
    """The scratch copy could mirror only the working directory's files, and such a path was
    refused; the overlay stages the edits at the files' own paths: the patch names them as
    plain ``apply --diff`` does (``a/../pkg/launch.py``) and is what the real run writes."""
    root = _write(tmp_path / "t")
    applied = _write(tmp_path / "a")
    (root / "sub").mkdir()
    (applied / "sub").mkdir()
    before = _tree(root)
    proc = run_cli("apply", "--thread-config", "--diff", "../pkg", cwd=root / "sub")
    assert proc.returncode == 1, proc.stderr
    assert _tree(root) == before
    real = run_cli("apply", "--thread-config", "../pkg", cwd=applied / "sub")
    assert real.returncode == 0, real.stdout
    assert proc.stdout == _patch(before, applied, "../")
    assert proc.stdout.startswith("--- a/../pkg/launch.py\n+++ b/../pkg/launch.py\n")
    assert proc.stdout.count("\n--- a/../pkg/") == 1  # launch.py, then server.py
    assert shutil.which("git")


# -- the preview decides as the real run does: the project around the files is the real one

_PINS = {
    "pyproject-0.8": ("pyproject.toml", '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl==0.8.0"]\n'),
    "requirements-0.8": ("requirements.txt", "verl==0.8.0\n"),
    "setting-0.8": ("pyproject.toml", '[tool.ppo-migrate]\nverl-version = "0.8.0"\n'),
    "in-tree-0.8": ("verl/trainer/constants_ppo.py", "def get_ppo_ray_runtime_env():\n    return {}\n"),
    "pyproject-0.9": ("pyproject.toml", '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9"]\n'),
}


def _pinned(root: Path, pin: str) -> Path:
    _write(root)
    name, text = _PINS[pin]
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(text)
    if name.startswith("verl/"):
        (root / "verl" / "__init__.py").write_text("")
        (root / "verl" / "trainer" / "__init__.py").write_text("")
    return root


@pytest.mark.parametrize("paths", [("pkg",), (".",)])
@pytest.mark.parametrize("pin", sorted(_PINS))
def test_thread_config_diff_reads_the_real_projects_verl(tmp_path: Path, pin: str, paths) -> None:
    """The pins, locks, settings and the verl copy are read in the real tree (the preview runs
    there, its edits in the overlay), so it shows exactly what the real run writes (nothing
    against verl 0.8, whose function takes no config)."""
    previewed, applied = _pinned(tmp_path / "previewed", pin), _pinned(tmp_path / "applied", pin)
    before = _tree(previewed)
    proc = run_cli("apply", "--thread-config", "--diff", "--exit-zero", *paths, cwd=previewed)
    assert proc.returncode == 0, proc.stderr
    assert _tree(previewed) == before
    real = run_cli("apply", "--thread-config", "--exit-zero", *paths, cwd=applied)
    assert real.returncode == 0, real.stderr
    if pin.endswith("0.8"):
        assert proc.stdout == ""
        assert _tree(applied) == before
        assert " calls left as they are: " in proc.stderr
        # the notice names what decided as the real run does (paths relative to the real tree)
        assert [l for l in proc.stderr.splitlines() if "left as" in l] == [
            l for l in real.stdout.splitlines() if "left as" in l  # apply reports on stdout
        ]
    else:
        assert "+def init_ray(address, config=None):" in proc.stdout
        _git_apply(proc.stdout.encode(), previewed)
        assert _tree(previewed) == _tree(applied) != before


@pytest.mark.parametrize("pin", sorted(_PINS))
def test_plain_diff_still_reads_the_projects_verl(tmp_path: Path, pin: str) -> None:
    root = _pinned(tmp_path / "t", pin)
    proc = run_cli("apply", "--diff", "--exit-zero", "pkg", cwd=root)
    assert proc.returncode == 0, proc.stderr
    if pin.endswith("0.8"):
        assert proc.stdout == ""
    else:
        assert proc.stdout.count("--- a/") == 1
        assert "+    env = get_ppo_ray_runtime_env(config)" in proc.stdout


def test_thread_config_diff_uses_the_real_projects_isort_settings(tmp_path: Path) -> None:
    """``--use-ppo-runtime`` places the new import by the project's ruff settings, read in
    the working directory when no ``[tool.ppo-migrate]`` names a project root."""

    def write(root: Path) -> Path:
        _write(root)
        (root / "pyproject.toml").write_text(
            '[tool.ruff.lint.isort]\nknown-first-party = ["ppo_runtime"]\n'
        )
        (root / "pkg" / "app.py").write_text(
            "import os\n\nfrom pkg import server\nfrom verl.trainer.constants_ppo import "
            "get_ppo_ray_runtime_env\n\n\ndef main(config):\n"
            "    return get_ppo_ray_runtime_env(), os, server\n"
        )
        return root

    previewed, applied = write(tmp_path / "previewed"), write(tmp_path / "applied")
    args = ("apply", "--thread-config", "--use-ppo-runtime", "--exit-zero")
    proc = run_cli(*args, "--diff", ".", cwd=previewed)
    assert proc.returncode == 0, proc.stderr
    real = run_cli(*args, ".", cwd=applied)
    assert real.returncode == 0, real.stderr
    _git_apply(proc.stdout.encode(), previewed)
    assert _tree(previewed) == _tree(applied)
    assert "from ppo_runtime import get_ppo_ray_runtime_env" in (applied / "pkg" / "app.py").read_text()


def test_thread_config_diff_accepts_absolute_paths_inside_the_working_directory(tmp_path: Path) -> None:
    previewed, applied = _write(tmp_path / "previewed"), _write(tmp_path / "applied")
    before = _tree(previewed)
    proc = run_cli("apply", "--thread-config", "--diff", str(previewed / "pkg"), cwd=previewed)
    assert proc.returncode == 1, proc.stderr
    assert _tree(previewed) == before
    # the file names plain `apply --diff` prints for these paths: a/<absolute path>
    plain = run_cli("apply", "--diff", str(previewed / "pkg"), cwd=previewed)
    assert f"--- a/{previewed / 'pkg' / 'launch.py'}\n" in plain.stdout
    assert proc.stdout.count(f"--- a/{previewed / 'pkg'}/") == 2
    assert f"--- a/{previewed / 'pkg' / 'launch.py'}\n+++ b/{previewed / 'pkg' / 'launch.py'}\n" in proc.stdout
    # outside the working directory: the same patch (the overlay needs no copy to mirror it)
    (previewed / "sub").mkdir()
    out = run_cli("apply", "--thread-config", "--diff", str(previewed / "pkg"), cwd=previewed / "sub")
    assert out.returncode == 1, out.stderr
    assert _tree(previewed) == before and out.stdout == proc.stdout
    run_cli("apply", "--thread-config", str(applied / "pkg"), cwd=applied)
    relative = proc.stdout.replace(f"a/{previewed}/", "a/").replace(f"b/{previewed}/", "b/")
    _git_apply(relative.encode(), previewed)
    assert _tree(previewed) == _tree(applied) != before


def test_the_preview_sees_the_project_files_outside_the_run_as_the_real_run_does(tmp_path: Path) -> None:
    """A fresh tester: ``--thread-config --diff`` threaded ``Launcher._init_ray`` although a
    subclass in ``ext/`` (in the project, outside the paths given) overrides it and the real
    ``apply --thread-config`` refused; the patch then broke ``ext/sub.py``. The preview walks
    the real project (it once walked a scratch copy of the run's files)."""
    root = tmp_path / "t"
    (root / "proj" / "svc").mkdir(parents=True)
    (root / "ext").mkdir()
    (root / ".git").mkdir()  # the project's root marker
    declare_verl(root)  # issue 26: the tree declares the verl it runs
    (root / "proj" / "svc" / "__init__.py").write_text("")
    (root / "proj" / "svc" / "launcher.py").write_text(
        "from omegaconf import OmegaConf\n" + IMP + "\n\nclass Launcher:\n"
        "    def _init_ray(self):\n        return get_ppo_ray_runtime_env()\n\n"
        "    def launch(self):\n        config = OmegaConf.create({'trainer': {}})\n"
        "        return self._init_ray()\n"
    )
    (root / "ext" / "sub.py").write_text(
        "from svc.launcher import Launcher\n\n\nclass Quiet(Launcher):\n"
        "    def _init_ray(self):\n        return {}\n"
    )
    before = _tree(root)
    preview = run_cli("apply", "--thread-config", "--diff", ".", cwd=root / "proj")
    real = run_cli("apply", "--thread-config", ".", cwd=root / "proj")
    assert _tree(root) == before  # the real run refused too: nothing written
    assert preview.stdout == ""  # no patch
    reason = "`_init_ray` cannot be threaded: ../ext/sub.py mentions `_init_ray` but was not analysed"
    assert reason in preview.stderr and reason in real.stdout, (preview.stderr, real.stdout)
    assert preview.returncode == real.returncode == 1


# -- the overlay: main's output, no copy, pool workers -------------------------------------

TREE = {  # the tree tests/data/preview/*.std* were captured on (main at 171accb)
    "requirements.txt": "verl>=0.9\n",
    "pkg/__init__.py": "",
    "pkg/server.py": SERVER,
    "pkg/launch.py": LAUNCH,
    "pkg/app.py": (
        "import os\n\nfrom pkg import server\n" + IMP + "\n\ndef main(config):\n"
        "    return get_ppo_ray_runtime_env(), os, server\n"
    ),
    "tools.py": LONE,
}
FLAGS = {
    "thread": ("--thread-config",),
    "runtime": ("--use-ppo-runtime",),
    "both": ("--thread-config", "--use-ppo-runtime"),
}


def _fixture(root: Path, tree: dict[str, str] = TREE) -> Path:
    for rel, text in tree.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _patch(before: dict[str, bytes], applied: Path, prefix: str = "") -> str:
    """The unified diff (as ``apply --diff`` prints it) of ``before`` against the files of
    ``applied`` now: what a preview of the run that wrote them must print."""
    now = _tree(applied)
    return "".join(
        unified_diff(before[rel], now[rel], prefix + rel).decode()
        for rel in sorted(before) if now[rel] != before[rel]
    )


@pytest.mark.parametrize("name", sorted(FLAGS))
def test_the_preview_prints_what_main_printed_and_what_the_real_run_writes(
    tmp_path: Path, name: str
) -> None:
    """Byte for byte main's output before the overlay (``tests/data/preview``: the patch on
    standard output, the report on standard error), and the patch is the diff of the bytes
    the real ``apply`` then writes against the bytes before."""
    root, applied = _fixture(tmp_path / "p"), _fixture(tmp_path / "a")
    before = _tree(root)
    proc = run_cli("apply", *FLAGS[name], "--diff", "--jobs", "1", ".", cwd=root, text=False)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == (DATA / f"{name}.stdout").read_bytes()
    assert proc.stderr == (DATA / f"{name}.stderr").read_bytes()
    assert _tree(root) == before
    run_cli("apply", *FLAGS[name], "--jobs", "1", ".", cwd=applied)
    assert proc.stdout.decode() == _patch(before, applied)
    assert proc.stdout.count(b"--- a/") == (3 if name == "thread" else 4)


def test_a_preview_makes_no_temporary_folder_and_copies_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In this process, with every way to make a temporary file or folder or to copy a file
    made to fail: the preview still prints main's patch, and ``$TMPDIR`` stays empty."""
    monkeypatch.delenv(SUBPROCESS_ENV, raising=False)
    root = _fixture(tmp_path / "p")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))

    def refuse(*args, **kwargs):
        raise AssertionError("a preview made a temporary file or folder, or copied a file")

    for module, name in [
        (tempfile, "mkdtemp"), (tempfile, "mkstemp"), (tempfile, "TemporaryDirectory"),
        (tempfile, "NamedTemporaryFile"), (shutil, "copytree"), (shutil, "copyfile"),
        (shutil, "copy"), (shutil, "copy2"),
    ]:
        monkeypatch.setattr(module, name, refuse)
    proc = run_cli("apply", *FLAGS["both"], "--diff", "--jobs", "1", ".", cwd=root, text=False)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == (DATA / "both.stdout").read_bytes()
    assert list(scratch.iterdir()) == []


def test_pool_workers_hand_their_staged_rewrites_back(tmp_path: Path) -> None:
    """Ten files each with a fix of their own, a caller threaded across two of them: the
    forked workers stage their rewrites (nothing written) and the parent's overlay gets the
    bytes, so the threading reads them and the patch equals the serial run's and the real
    run's."""
    tree = dict(TREE)
    for i in range(10):
        tree[f"pkg/run{i}.py"] = IMP + f"\n\ndef run{i}(config):\n    return get_ppo_ray_runtime_env()\n"
    root, applied = _fixture(tmp_path / "p", tree), _fixture(tmp_path / "a", tree)
    before = _tree(root)
    pooled = run_cli(
        "apply", "--thread-config", "--diff", "--jobs", "2", ".", cwd=root, env={FORCE_POOL_ENV: "1"}
    )
    serial = run_cli("apply", "--thread-config", "--diff", "--jobs", "1", ".", cwd=root)
    assert pooled.returncode == serial.returncode == 1, pooled.stderr
    assert _tree(root) == before
    assert pooled.stdout == serial.stdout and pooled.stderr == serial.stderr
    assert pooled.stdout.count("--- a/pkg/run") == 10
    assert "+def init_ray(address, config=None):\n" in pooled.stdout
    run_cli("apply", "--thread-config", "--jobs", "1", ".", cwd=applied)
    assert pooled.stdout == _patch(before, applied)


def _staged_bytes(path: str) -> bytes:
    """In a worker: ``path``'s bytes as the worker's snapshot sees them."""
    return current().read_bytes(path)


def test_a_spawned_worker_gets_the_overlay_and_stages_its_rewrite(tmp_path: Path) -> None:
    """Where workers are spawned (not Linux), they inherit no snapshot: the parent hands
    them its overlay and staging, pickled, and a worker's rewrite comes back as bytes
    (``new_data``) instead of being written."""
    root = _fixture(tmp_path / "p")
    launch, server = root / "pkg" / "launch.py", root / "pkg" / "server.py"
    snapshot = Snapshot()
    snapshot.staging = True
    snapshot.overlay(server, b"# staged\n")
    state = snapshot.worker_state()
    assert state is not None and state[0] is True
    settings = load_settings([str(root)])
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        1, context, initializer=runner._worker_init, initargs=(None, None, state)
    ) as pool:
        outcome = pool.submit(runner._process_star, (str(launch), settings, Mode.APPLY)).result(120)
        seen = pool.submit(_staged_bytes, str(server)).result(120)
    assert seen == b"# staged\n"
    assert outcome.written and outcome.fixed == 1
    assert outcome.new_data == LAUNCH.replace("env = get_ppo_ray_runtime_env()", "env = get_ppo_ray_runtime_env(config)").encode()
    assert launch.read_text() == LAUNCH and server.read_text() == SERVER  # nothing written
