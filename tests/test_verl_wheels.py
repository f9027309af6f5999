"""Real input: verl's published wheels still carry the legacy call.

``apply`` on the whole unpacked package changes exactly one call, in
``verl/trainer/main_ppo.py``, to ``get_ppo_ray_runtime_env(config)`` — the very
edit verl PR #6976 made by hand — and leaves every other byte of every file as
it was; ``check`` afterwards is clean. Needs the package index (CI has it).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from cli_helpers import run_cli

pytestmark = pytest.mark.network


def _download(version: str, dest: Path) -> Path:
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(dest), f"verl=={version}"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0:
        pytest.fail(f"could not download verl=={version}: {proc.stderr.strip().splitlines()[-1:]}")
    (wheel,) = dest.glob(f"verl-{version}-*.whl")
    return wheel


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize(
    ("version", "before", "after"),
    [
        (
            "0.8.0",
            b"        default_runtime_env = get_ppo_ray_runtime_env()\n",
            b"        default_runtime_env = get_ppo_ray_runtime_env(config)\n",
        ),
        (
            "0.5.0",
            b"            runtime_env=get_ppo_ray_runtime_env(),\n",
            b"            runtime_env=get_ppo_ray_runtime_env(config),\n",
        ),
    ],
)
def test_apply_on_published_verl_wheel(tmp_path: Path, version: str, before: bytes, after: bytes) -> None:
    wheel = _download(version, tmp_path / "dl")
    pristine = tmp_path / "pristine"
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(pristine)
    work = tmp_path / "work"
    shutil.copytree(pristine / "verl", work / "verl")
    original = _files(work)
    assert sum(name.endswith(".py") for name in original) > 250

    proc = run_cli("apply", "verl", cwd=work)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[0] == "Rewrote verl/trainer/main_ppo.py (1 call)"

    migrated = _files(work)
    assert migrated.keys() == original.keys()
    changed = sorted(k for k in original if original[k] != migrated[k])
    assert changed == ["verl/trainer/main_ppo.py"]
    old, new = original["verl/trainer/main_ppo.py"], migrated["verl/trainer/main_ppo.py"]
    assert old.count(before) == 1
    assert new == old.replace(before, after)

    check = run_cli("check", "verl", cwd=work)
    assert check.returncode == 0, check.stdout
    assert check.stdout.strip() == "All checks passed!"
