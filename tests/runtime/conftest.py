"""Fixtures for the ppo_runtime tests: a clean driver environment and verl-shaped configs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from ppo_runtime import (
    ALWAYS_FORWARDED_ENV_VARS,
    BASE_ENV_VARS,
    CUDA_DEVICE_MAX_CONNECTIONS,
    FORWARDED_WHEN_SET_ENV_VARS,
    NVTX_INJECTION_ENV,
    RAY_JOB_CONFIG_JSON_ENV_VAR,
)
from ppo_runtime import env as runtime_env_module
from ppo_runtime.device import probe_device_capability

CONFIGS = Path(__file__).resolve().parent.parent / "data" / "configs"

# The helpers shared with tests/ (verl_wheels.py) live one level up.
if str(CONFIGS.parent.parent) not in sys.path:
    sys.path.insert(0, str(CONFIGS.parent.parent))

#: Every variable ppo_runtime reads from the driver's environment.
MANAGED_VARS = (
    *BASE_ENV_VARS,
    "NCCL_NVLS_ENABLE",
    "NCCL_MNNVL_ENABLE",
    "RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO",
    CUDA_DEVICE_MAX_CONNECTIONS,
    NVTX_INJECTION_ENV,
    *ALWAYS_FORWARDED_ENV_VARS,
    *FORWARDED_WHEN_SET_ENV_VARS,
    RAY_JOB_CONFIG_JSON_ENV_VAR,
    "TLLM_DISABLE_NVLS_MNNVL",
    "VERL_KEEP_NVTX_INJECTION",
    "NCCL_CUMEM_ENABLE",
)

#: What every run gets with nothing set in the driver: the base set and verl's
#: determinism defaults (verl 0.9.1 writes them on every call).
EXPECTED_DEFAULT = {
    **BASE_ENV_VARS,
    "VERL_FULL_DETERMINISM": "0",
    "VLLM_BATCH_INVARIANT": "0",
    "VERL_RL_INSIGHT_ENABLE": "0",
}


@pytest.fixture(autouse=True)
def clean_driver_env(monkeypatch):
    """Unset the managed variables (a developer's shell may set NCCL_DEBUG), forget any
    cached device probe and the warnings already logged, before and after each test."""
    for name in MANAGED_VARS:
        monkeypatch.delenv(name, raising=False)
    probe_device_capability.cache_clear()
    runtime_env_module._WARNED.clear()
    yield
    probe_device_capability.cache_clear()
    runtime_env_module._WARNED.clear()


def _load(name: str):
    from omegaconf import OmegaConf

    return OmegaConf.load(CONFIGS / name)


@pytest.fixture
def load_config():
    """``load_config(name)``: an OmegaConf DictConfig from tests/data/configs/<name>."""
    return _load


@pytest.fixture
def fsdp_cfg():
    """verl's FSDP trainer config shape (ref.strategy interpolates the actor's)."""
    return _load("ppo_trainer.yaml")


@pytest.fixture
def megatron_cfg():
    """verl's Megatron trainer config shape: actor, ref (interpolated) and critic on Megatron."""
    return _load("ppo_megatron_trainer.yaml")
