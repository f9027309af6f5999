"""Fixtures for the ppo_runtime tests: a clean driver environment and verl-shaped configs."""

from __future__ import annotations

from pathlib import Path

import pytest
from ppo_runtime import (
    BASE_ENV_VARS,
    CUDA_DEVICE_MAX_CONNECTIONS,
    RAY_JOB_CONFIG_JSON_ENV_VAR,
)
from ppo_runtime.device import probe_device_capability

CONFIGS = Path(__file__).resolve().parent.parent / "data" / "configs"

#: Every variable ppo_runtime reads from the driver's environment.
MANAGED_VARS = (*BASE_ENV_VARS, CUDA_DEVICE_MAX_CONNECTIONS, RAY_JOB_CONFIG_JSON_ENV_VAR)


@pytest.fixture(autouse=True)
def clean_driver_env(monkeypatch):
    """Unset the managed variables (a developer's shell may set NCCL_DEBUG) and forget
    any cached device probe, before and after each test."""
    for name in MANAGED_VARS:
        monkeypatch.delenv(name, raising=False)
    probe_device_capability.cache_clear()
    yield
    probe_device_capability.cache_clear()


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
