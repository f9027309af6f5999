"""``apply --thread-config --diff`` (``ppo_migrate.preview``) through the real executable:
one multi-file diff that ``git apply`` turns into exactly what ``apply --thread-config``
writes, with nothing in the tree touched."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from cli_helpers import declare_verl, run_cli

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
    """Run from inside a package: the scratch copy mirrors the package above the working
    directory, so ``from pkg.server import init_ray`` still resolves."""
    root = _write(tmp_path / "outer")
    inside = root / "pkg"
    before = _tree(inside)
    proc = run_cli("apply", "--thread-config", "--diff", ".", cwd=inside)
    assert proc.returncode == 1, proc.stderr
    assert "+def init_ray(address, config=None):" in proc.stdout
    assert _tree(inside) == before
    _git_apply(proc.stdout.encode(), inside)
    assert "init_ray(config.address, config=config)" in (inside / "launch.py").read_text()


def test_thread_config_diff_refuses_paths_outside_the_working_directory(tmp_path: Path) -> None:
    root = _write(tmp_path / "t")
    (root / "sub").mkdir()
    proc = run_cli("apply", "--thread-config", "--diff", "../pkg", cwd=root / "sub")
    assert proc.returncode == 2
    assert "with --diff, --thread-config needs paths inside the working directory" in proc.stderr
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
    """The scratch copy holds the run's files only: the pins, locks, settings and the verl
    copy are read in the real tree, so the preview shows exactly what the real run writes
    (nothing against verl 0.8, whose function takes no config)."""
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
    the real working directory (not in the scratch copy) when no ``[tool.ppo-migrate]``
    names a project root."""

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
    run_cli("apply", "--thread-config", str(applied / "pkg"), cwd=applied)
    relative = proc.stdout.replace(f"a/{previewed}/", "a/").replace(f"b/{previewed}/", "b/")
    _git_apply(relative.encode(), previewed)
    assert _tree(previewed) == _tree(applied) != before
    # outside the working directory: still refused
    (previewed / "sub").mkdir()
    out = run_cli("apply", "--thread-config", "--diff", str(previewed / "pkg"), cwd=previewed / "sub")
    assert out.returncode == 2
    assert "needs paths inside the working directory" in out.stderr


def test_the_preview_sees_the_project_files_outside_the_run_as_the_real_run_does(tmp_path: Path) -> None:
    """A fresh tester: ``--thread-config --diff`` threaded ``Launcher._init_ray`` although a
    subclass in ``ext/`` (in the project, outside the paths given) overrides it and the real
    ``apply --thread-config`` refused; the patch then broke ``ext/sub.py``. The preview now
    walks the real project, not its scratch copy."""
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
