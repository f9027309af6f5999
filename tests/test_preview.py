"""``apply --thread-config --diff`` (``ppo_migrate.preview``) through the real executable:
one multi-file diff that ``git apply`` turns into exactly what ``apply --thread-config``
writes, with nothing in the tree touched."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from cli_helpers import run_cli

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
    return root


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
            "Would rewrite 1 call in 1 file; would thread the config through 2 files; "
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
