"""The compute-capability probe (issue 2, rules 3 and 7).

No Hopper or Blackwell can be had on a CI machine. The real probe is exercised as it
is on this CPU-only machine; the GPU branches are exercised by monkeypatching
``torch.cuda.is_available`` / ``torch.cuda.get_device_capability``, which **stand in
for a GPU** -- the only thing in these tests that is not real.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from ppo_runtime import (
    CAPABILITY_UNKNOWN,
    get_ppo_ray_runtime_env,
    parse_capability,
    probe_device_capability,
    resolve_device_capability,
    torch_hip_version,
)


class _LazyTorch:
    """``torch``, imported on first use (~3 s of CPU): collecting this module on each
    pytest-xdist worker no longer imports it; the tests share one worker (below)."""

    def __getattr__(self, name: str):
        import torch as real

        return getattr(real, name)


torch = _LazyTorch()
#: one worker imports torch for these tests (pytest-xdist)
pytestmark = pytest.mark.xdist_group("torch")


def _fake_gpu(monkeypatch, capability):
    """Stand in for a CUDA GPU of the given compute capability; count the probes."""
    calls = []

    def get_device_capability(device=None):
        calls.append(device)
        return capability

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_capability", get_device_capability)
    return calls


# --- the real probe -------------------------------------------------------------------


@pytest.mark.skipif("torch.cuda.is_available()", reason="this test is for CPU-only machines")
def test_real_probe_on_this_cpu_machine_is_unknown():
    probe = probe_device_capability()
    assert probe.capability is None
    assert probe.source == "unknown"
    assert probe.detail == "torch.cuda.is_available() is False (no CUDA GPU visible)"
    assert probe.describe() == "unknown"


def test_probe_is_cached(monkeypatch):
    first = probe_device_capability()
    assert probe_device_capability() is first
    calls = _fake_gpu(monkeypatch, (9, 0))  # stands in for a Hopper
    assert probe_device_capability() is first  # still the cached answer
    assert calls == []
    probe_device_capability.cache_clear()
    assert probe_device_capability().capability == (9, 0)
    assert len(calls) == 1


# --- the probe's branches, with a stand-in GPU -----------------------------------------


@pytest.mark.parametrize("capability", [(7, 0), (8, 0), (8, 6), (9, 0), (10, 0), (12, 0)])
def test_probe_reports_the_stand_in_gpu(monkeypatch, capability):
    _fake_gpu(monkeypatch, capability)
    probe = probe_device_capability()
    assert probe.capability == capability
    assert probe.source == "torch.cuda"
    assert probe.detail == f"torch.cuda reports {capability[0]}.{capability[1]}"


def test_rocm_build_is_unknown(monkeypatch):
    calls = _fake_gpu(monkeypatch, (9, 4))  # an MI300 reports gfx942 as (9, 4)
    monkeypatch.setattr(torch.version, "hip", "6.2.41133")
    probe = probe_device_capability()
    assert probe.capability is None
    assert "ROCm" in probe.detail and "6.2.41133" in probe.detail
    assert calls == []


def test_broken_driver_is_unknown_not_a_crash(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)

    def boom(device=None):
        raise RuntimeError("CUDA driver initialization failed")

    monkeypatch.setattr(torch.cuda, "get_device_capability", boom)
    probe = probe_device_capability()
    assert probe.capability is None
    assert "CUDA driver initialization failed" in probe.detail


def test_torch_not_importable_is_unknown(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # makes `import torch` raise ImportError
    probe = probe_device_capability()
    assert probe.capability is None
    assert probe.detail.startswith("torch is not importable")


def test_probe_decides_the_variable(monkeypatch):
    cfg = {"actor_rollout_ref": {"actor": {"strategy": "megatron"}}}
    _fake_gpu(monkeypatch, (9, 0))  # stand-in Hopper
    assert get_ppo_ray_runtime_env(cfg)["env_vars"]["CUDA_DEVICE_MAX_CONNECTIONS"] == "1"
    probe_device_capability.cache_clear()
    _fake_gpu(monkeypatch, (10, 0))  # stand-in Blackwell
    assert "CUDA_DEVICE_MAX_CONNECTIONS" not in get_ppo_ray_runtime_env(cfg)["env_vars"]


def test_no_probe_without_megatron(monkeypatch, fsdp_cfg):
    calls = _fake_gpu(monkeypatch, (9, 0))
    get_ppo_ray_runtime_env(fsdp_cfg)
    get_ppo_ray_runtime_env(None)
    assert calls == []


def test_override_skips_the_probe(monkeypatch, megatron_cfg):
    calls = _fake_gpu(monkeypatch, (9, 0))
    env = get_ppo_ray_runtime_env(megatron_cfg, device_capability=(10, 0))
    assert "CUDA_DEVICE_MAX_CONNECTIONS" not in env["env_vars"]
    env = get_ppo_ray_runtime_env(megatron_cfg, device_capability=CAPABILITY_UNKNOWN)
    assert env["env_vars"]["CUDA_DEVICE_MAX_CONNECTIONS"] == "1"
    assert calls == []


# --- overrides ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "override, expected",
    [((9, 0), (9, 0)), ([8, 6], (8, 6)), ("10.0", (10, 0)), ("7", (7, 0)), (" 12.1 ", (12, 1))],
)
def test_resolve_override(override, expected):
    probe = resolve_device_capability(override)
    assert probe.capability == expected
    assert probe.source == "override"


def test_resolve_unknown():
    probe = resolve_device_capability("unknown")
    assert probe.capability is None and probe.source == "unknown"


@pytest.mark.parametrize("bad", [(9,), (9, 0, 1), (9, -1), (9.0, 0), (True, 0), "9.x", "", "sm_90"])
def test_bad_override_raises_value_error(bad):
    with pytest.raises(ValueError, match="capability"):
        resolve_device_capability(bad)


def test_bad_override_type_raises_type_error():
    with pytest.raises(TypeError, match="float"):
        resolve_device_capability(9.0)


def test_bad_override_is_rejected_even_without_megatron(fsdp_cfg):
    with pytest.raises(ValueError):
        get_ppo_ray_runtime_env(fsdp_cfg, device_capability=(9,))


def test_parse_capability():
    assert parse_capability("9.0") == (9, 0)
    assert parse_capability("8.9") == (8, 9)
    with pytest.raises(ValueError, match="MAJOR.MINOR"):
        parse_capability("hopper")


# --- rule 7: nothing heavy at import --------------------------------------------------


def _run(code: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    return proc.stdout.strip()


def test_import_imports_neither_torch_nor_ray_nor_omegaconf():
    out = _run(
        "import sys, ppo_runtime\n"
        "print(sorted(m for m in ('torch', 'ray', 'omegaconf', 'hydra') if m in sys.modules))"
    )
    assert out == "[]"


def test_fsdp_dict_config_never_imports_torch():
    out = _run(
        "import sys\n"
        "from ppo_runtime import get_ppo_ray_runtime_env\n"
        "env = get_ppo_ray_runtime_env({'actor_rollout_ref': {'actor': {'strategy': 'fsdp'}}})\n"
        "print('CUDA_DEVICE_MAX_CONNECTIONS' in env['env_vars'], 'torch' in sys.modules, 'ray' in sys.modules)"
    )
    assert out == "False False False"


def test_megatron_with_override_never_imports_torch():
    out = _run(
        "import sys\n"
        "from ppo_runtime import get_ppo_ray_runtime_env\n"
        "env = get_ppo_ray_runtime_env({'critic': {'strategy': 'megatron'}}, device_capability=(9, 0))\n"
        "print(env['env_vars']['CUDA_DEVICE_MAX_CONNECTIONS'], 'torch' in sys.modules)"
    )
    assert out == "1 False"


# --- one probe under concurrency (single-flight) -----------------------------------------


def test_32_concurrent_first_calls_probe_once_and_warn_once(monkeypatch, caplog):
    import logging
    import threading
    import time

    calls = []

    def slow_capability(device=None):
        calls.append(device)
        time.sleep(0.2)  # every other thread arrives while the first one probes
        return (9, 0)

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_capability", slow_capability)
    cfg = {"actor_rollout_ref": {"actor": {"strategy": "megatron"}}}
    barrier = threading.Barrier(32)
    results = []

    def call():
        barrier.wait()
        results.append(get_ppo_ray_runtime_env(cfg)["env_vars"]["CUDA_DEVICE_MAX_CONNECTIONS"])

    threads = [threading.Thread(target=call) for _ in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert results == ["1"] * 32
    assert len(calls) == 1

    # And with an unknown capability: 32 calls, one warning.
    probe_device_capability.cache_clear()
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    caplog.set_level(logging.WARNING, logger="ppo_runtime")
    barrier = threading.Barrier(32)
    threads = [threading.Thread(target=call) for _ in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len([r for r in caplog.records if r.name == "ppo_runtime"]) == 1


# --- ROCm: torch.version.hip, read without importing torch --------------------------------


def test_hip_version_of_an_imported_torch(monkeypatch):
    assert torch_hip_version() is None  # this machine's CPU build
    monkeypatch.setattr(torch.version, "hip", "6.2.41133")
    assert torch_hip_version() == "6.2.41133"


def test_hip_version_is_read_from_torch_version_py_without_importing_torch():
    out = _run(
        "import sys\n"
        "from ppo_runtime import torch_hip_version\n"
        "print(torch_hip_version(), 'torch' in sys.modules)"
    )
    assert out == "None False"


@pytest.mark.parametrize(
    "line, expected",
    [
        ("hip: Optional[str] = None", None),
        ("hip: Optional[str] = '6.2.41133'", "6.2.41133"),
        ("hip = '5.7.31921'", "5.7.31921"),
    ],
)
def test_hip_version_file_forms(tmp_path, monkeypatch, line, expected):
    # A stand-in torch package whose generated version.py says what a ROCm build says.
    pkg = tmp_path / "torch"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("raise ImportError('must not be imported')\n")
    (pkg / "version.py").write_text(f"from typing import Optional\n__version__ = '2.5.0'\n{line}\n")
    monkeypatch.delitem(sys.modules, "torch")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert torch_hip_version() == expected
