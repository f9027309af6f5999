"""verl's published wheels for the runtime tests: download once per session, load
``verl/trainer/constants_ppo.py`` with only the device probe and the Ray constant stubbed."""

from __future__ import annotations

import subprocess
import sys
import types
import zipfile
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

#: The two releases the differential test compares with: the tracked one and the one before.
VERSIONS = ("0.9.0", "0.9.1")

CONSTANTS = "verl/trainer/constants_ppo.py"


def download_wheel(version: str, dest: Path) -> Path:
    """``pip download --no-deps verl==version`` into ``dest``; the wheel's path."""
    dest.mkdir(parents=True, exist_ok=True)
    found = list(dest.glob(f"verl-{version}-*.whl"))
    if found:
        return found[0]
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


def extract(wheel: Path, dest: Path) -> Path:
    """Unpack ``wheel`` into ``dest`` (once); ``dest``."""
    if not (dest / CONSTANTS).exists():
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(dest)
    return dest


_TREES: dict[str, Path] = {}


def wheel_tree(version: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The unpacked ``verl==version`` wheel, downloaded once per test session."""
    if version not in _TREES:
        root = tmp_path_factory.getbasetemp() / "verl-wheels"
        _TREES[version] = extract(download_wheel(version, root / "dl"), root / version)
    return _TREES[version]


def load_constants_ppo(
    source: str, *, capability: tuple[int, int] | None, hip: str | None, environ: dict[str, str]
) -> dict[str, Any]:
    """Execute verl's ``constants_ppo.py`` text as a fresh module and return its namespace.

    Stubbed: ``torch`` (only ``torch.version.hip``), ``verl.utils.device.get_device_capability``
    (returns ``capability`` or ``(None, None)`` as verl does without a GPU) and
    ``ray._private.runtime_env.constants.RAY_JOB_CONFIG_JSON_ENV_VAR``. The module reads
    ``TLLM_DISABLE_NVLS_MNNVL`` at import, so ``environ`` is applied while it runs.
    """
    torch = types.ModuleType("torch")
    torch.version = types.SimpleNamespace(hip=hip)  # type: ignore[attr-defined]
    device = types.ModuleType("verl.utils.device")
    device.get_device_capability = (  # type: ignore[attr-defined]
        lambda device_id=0: capability if capability is not None else (None, None)
    )
    constants = types.ModuleType("ray._private.runtime_env.constants")
    constants.RAY_JOB_CONFIG_JSON_ENV_VAR = "RAY_JOB_CONFIG_JSON_ENV_VAR"  # type: ignore[attr-defined]
    stubs = {
        "torch": torch,
        "ray": types.ModuleType("ray"),
        "ray._private": types.ModuleType("ray._private"),
        "ray._private.runtime_env": types.ModuleType("ray._private.runtime_env"),
        "ray._private.runtime_env.constants": constants,
        "verl": types.ModuleType("verl"),
        "verl.utils": types.ModuleType("verl.utils"),
        "verl.utils.device": device,
    }
    namespace: dict[str, Any] = {"__name__": "verl.trainer.constants_ppo"}
    with mock.patch.dict(sys.modules, stubs), mock.patch.dict("os.environ", environ):
        exec(compile(source, CONSTANTS, "exec"), namespace)
    return namespace
