"""Shared helpers: verl's real published wheels, and running code against their runtime function.

``wheel(version)`` downloads ``verl==version`` once (``pip download --no-deps``) into a shared
cache directory; ``wheel_tree``/``unpack`` unpack it; ``load_constants_ppo`` executes a
release's ``verl/trainer/constants_ppo.py`` with only the device probe and the Ray constant
stubbed (the runtime's differential test); ``run_entry_point`` imports a trainer module in
a fresh interpreter against the definition it binds to (an in-tree copy, or a wheel's own
``verl/trainer/constants_ppo.py`` with only the device probe stubbed: this machine has no
GPU, so ``verl.utils.device.get_device_capability`` answers a Hopper's ``(9, 0)``) and calls
its entry point with a real OmegaConf config.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import types
import zipfile
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import warm_python

_CACHE = Path(os.environ.get("PPO_MIGRATE_WHEEL_CACHE", Path(tempfile.gettempdir()) / "ppo-migrate-verl-wheels"))

#: The two releases the differential test compares with: the tracked one and the one before.
VERSIONS = ("0.9.0", "0.9.1")

CONSTANTS = "verl/trainer/constants_ppo.py"

#: Python source a subprocess runs first, ``wheel`` bound to an unpacked wheel's root: verl's
#: packages without their ``__init__`` (the whole framework) and the device probe answering a
#: Hopper's ``(9, 0)`` (no GPU here), so that ``verl.trainer.constants_ppo`` imports as published.
VERL_STUBS = r"""
import types
for _name in ("verl", "verl.trainer", "verl.utils"):
    _m = types.ModuleType(_name); _m.__path__ = [wheel + "/" + _name.replace(".", "/")]; sys.modules[_name] = _m
_device = types.ModuleType("verl.utils.device")
_device.get_device_capability = lambda: (9, 0)
sys.modules["verl.utils.device"] = _device
"""


def wheel(version: str) -> Path:
    """The verl ``version`` wheel, downloaded on first use (fails the test when it cannot be).

    The cache is shared by the test processes of a parallel run (pytest-xdist): one downloads
    under a lock on the cache directory while the others wait for it."""
    import fcntl

    _CACHE.mkdir(parents=True, exist_ok=True)
    with open(_CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        found = sorted(_CACHE.glob(f"verl-{version}-*.whl"))
        if found:
            return found[0]
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(_CACHE), f"verl=={version}"],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if proc.returncode != 0:
            pytest.fail(f"could not download verl=={version}: {proc.stderr.strip().splitlines()[-1:]}")
        (path,) = _CACHE.glob(f"verl-{version}-*.whl")
        return path


def unpack(version: str, dest: Path) -> Path:
    """Unpack the wheel's ``verl/`` package into ``dest``; returns ``dest`` (the install root)."""
    with zipfile.ZipFile(wheel(version)) as zf:
        zf.extractall(dest, [n for n in zf.namelist() if n.startswith("verl/")])
    return dest


def extract(archive: Path, dest: Path) -> Path:
    """Unpack the wheel ``archive`` into ``dest`` (once); ``dest``."""
    if not (dest / CONSTANTS).exists():
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(dest)
    return dest


_TREES: dict[str, Path] = {}


def wheel_tree(version: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The unpacked ``verl==version`` wheel, unpacked once per test session."""
    if version not in _TREES:
        root = tmp_path_factory.getbasetemp() / "verl-wheels"
        _TREES[version] = extract(wheel(version), root / version)
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

#: What verl 0.9's ``constants_ppo`` imports from outside verl (~4 s of CPU a fresh
#: interpreter): the warm interpreter the entry points run in imports it once
#: (tests/warm_python.py), as if each run had imported it itself.
PRELOAD = ("torch", "ray._private.runtime_env.constants")

#: Runs in a fresh interpreter: argv = root, stub (0/1), caller file, function, config JSON.
_RUNNER = r"""
import importlib.util, json, sys, types
root, stub, caller, function, config = sys.argv[1], sys.argv[2] == "1", sys.argv[3], sys.argv[4], sys.argv[5]
sys.path.insert(0, root)
if stub:  # a wheel: skip verl/__init__.py (it imports the whole framework); stub the GPU probe only
    for name in ("verl", "verl.trainer", "verl.utils"):
        module = types.ModuleType(name)
        module.__path__ = [root + "/" + name.replace(".", "/")]
        sys.modules[name] = module
    device = types.ModuleType("verl.utils.device")
    device.get_device_capability = lambda: (9, 0)  # stand-in for a Hopper GPU (none here)
    sys.modules["verl.utils.device"] = device
from omegaconf import OmegaConf
spec = importlib.util.spec_from_file_location("entry_point", caller)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
result = getattr(module, function)(OmegaConf.create(json.loads(config)))
print(json.dumps(result["runtime_env"]["env_vars"], sort_keys=True))
"""

#: Runs in one interpreter: argv = root, stub (0/1), jobs JSON ``[[caller, function, out,
#: err], ...]``, config JSON. The third-party modules the root's ``constants_ppo`` imports
#: (0.9.x: torch and Ray's constant, ~4 s of CPU a process) and OmegaConf are imported once;
#: each job then runs in a child forked from that state -- as in a fresh interpreter, no
#: job sees another's modules, ``verl`` included -- its output written to ``out``/``err``
#: and its exit status as :data:`_RUNNER` ends (1 on an uncaught exception).
_BATCH_RUNNER = r"""
import importlib.util, json, os, sys, traceback, types
root, stub, jobs, config = sys.argv[1], sys.argv[2] == "1", json.loads(sys.argv[3]), sys.argv[4]
sys.path.insert(0, root)
if stub:  # a wheel: skip verl/__init__.py (it imports the whole framework); stub the GPU probe only
    for name in ("verl", "verl.trainer", "verl.utils"):
        module = types.ModuleType(name)
        module.__path__ = [root + "/" + name.replace(".", "/")]
        sys.modules[name] = module
    device = types.ModuleType("verl.utils.device")
    device.get_device_capability = lambda: (9, 0)  # stand-in for a Hopper GPU (none here)
    sys.modules["verl.utils.device"] = device
import ast
constants_ppo = os.path.join(root, "verl", "trainer", "constants_ppo.py")
imported = []
if os.path.exists(constants_ppo):
    with open(constants_ppo, encoding="utf-8") as f:
        for node in ast.parse(f.read()).body:
            if isinstance(node, ast.Import):
                imported += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.append(node.module)
for heavy in imported:  # its third-party imports (torch, Ray's constant), once for all jobs
    if heavy.split(".")[0] != "verl":
        try:
            importlib.import_module(heavy)
        except Exception:
            pass
from omegaconf import OmegaConf
codes = []
for caller, function, out, err in jobs:
    sys.stdout.flush(); sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        for fd, path in ((1, out), (2, err)):
            os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
        code = 0
        try:
            spec = importlib.util.spec_from_file_location("entry_point", caller)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            result = getattr(module, function)(OmegaConf.create(json.loads(config)))
            print(json.dumps(result["runtime_env"]["env_vars"], sort_keys=True))
        except SystemExit as exc:  # as the interpreter ends on it
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if not isinstance(exc.code, (int, type(None))):
                print(exc.code, file=sys.stderr)
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stdout.flush(); sys.stderr.flush()
        os._exit(code)
    codes.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
print(json.dumps(codes))
"""

#: A Megatron actor on a Hopper: verl PR #6976 sets CUDA_DEVICE_MAX_CONNECTIONS=1 for it.
MEGATRON_CONFIG = {
    "num_cpus": 2,
    "actor_rollout_ref": {"actor": {"strategy": "megatron"}, "ref": {"strategy": "megatron"}},
    "critic": {"strategy": "megatron"},
    "trainer": {"device": "cuda"},
}


def run_entry_point(
    root: Path, caller: Path, function: str, *, stub: bool, config: dict | None = None
) -> subprocess.CompletedProcess:
    """Import ``caller`` with ``root`` first on ``sys.path`` and call ``function(config)``.

    Args:
        root: the install root holding ``verl/`` (an in-tree copy or an unpacked wheel).
        caller: the trainer module's file.
        function: the entry point's name; it must return ``{"runtime_env": ...}``.
        stub: ``root`` is an unpacked wheel (see the module docstring).
        config: the training config (default :data:`MEGATRON_CONFIG`).

    Returns:
        The finished process: ``stdout`` is the JSON of the ``env_vars`` on success.
    """
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_DEVICE_MAX_CONNECTIONS", "NCCL_DEBUG")}
    return warm_python.run(  # torch and Ray's constant imported once (tests/warm_python.py)
        [sys.executable, "-c", _RUNNER, str(root), "1" if stub else "0", str(caller), function,
         json.dumps(config or MEGATRON_CONFIG)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        preload=PRELOAD,
    )


def run_entry_points(
    root: Path, calls: list[tuple[Path, str]], *, stub: bool, config: dict | None = None
) -> list[subprocess.CompletedProcess]:
    """:func:`run_entry_point` for each ``(caller, function)``, with the same ``root``: one
    interpreter imports torch and Ray once, and each call runs in a child forked from it
    (see :data:`_BATCH_RUNNER`). One :class:`subprocess.CompletedProcess` per call."""
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_DEVICE_MAX_CONNECTIONS", "NCCL_DEBUG")}
    with tempfile.TemporaryDirectory() as tmp:
        jobs = [[str(caller), function, f"{tmp}/{i}.out", f"{tmp}/{i}.err"]
                for i, (caller, function) in enumerate(calls)]
        proc = warm_python.run(
            [sys.executable, "-c", _BATCH_RUNNER, str(root), "1" if stub else "0", json.dumps(jobs),
             json.dumps(config or MEGATRON_CONFIG)],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            preload=PRELOAD,
        )
        assert proc.returncode == 0, proc.stderr
        codes = json.loads(proc.stdout.splitlines()[-1])
        return [
            subprocess.CompletedProcess(
                [sys.executable, "-c", _RUNNER, str(root), "1" if stub else "0", caller, function],
                code,
                Path(out).read_text(encoding="utf-8"),
                Path(err).read_text(encoding="utf-8"),
            )
            for (caller, function, out, err), code in zip(jobs, codes)
        ]
