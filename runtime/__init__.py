"""Config-aware Ray runtime environment for PPO trainers (``import ppo_runtime``).

A drop-in for verl's ``verl.trainer.constants_ppo`` after verl PR #6976 ("only set
CUDA_DEVICE_MAX_CONNECTIONS=1 for megatron in Hopper/Ampere"), with the gaps its review
left open closed::

    import ray
    from ppo_runtime import get_ppo_ray_runtime_env

    ray.init(runtime_env=get_ppo_ray_runtime_env(config))

Public API:

* :func:`get_ppo_ray_runtime_env` -- the runtime_env dict for ``ray.init``.
* :func:`explain_ppo_ray_runtime_env` -- per variable: value (or left out) and why.
* :func:`ppo_ray_runtime_env_report` -- both, plus components and capability.
* :data:`PPO_RAY_RUNTIME_ENV`, :data:`BASE_ENV_VARS` -- the read-only base variables.
* :func:`uses_megatron`, :func:`megatron_components`, :func:`inspect_components`,
  :data:`COMPONENTS` -- which components run Megatron.
* :func:`probe_device_capability`, :func:`resolve_device_capability`,
  :func:`parse_capability`, :data:`CAPABILITY_UNKNOWN` -- the device probe.

Importing this package imports neither torch, ray nor omegaconf: torch is imported
only by the device probe, which runs only when a component runs Megatron and no
``device_capability`` was given; omegaconf only to resolve interpolations.
"""

from .device import (
    CAPABILITY_UNKNOWN,
    CapabilityOverride,
    CapabilityProbe,
    parse_capability,
    probe_device_capability,
    resolve_device_capability,
)
from .engines import (
    COMPONENTS,
    ComponentEngine,
    check_config_type,
    inspect_components,
    megatron_components,
    uses_megatron,
)
from .env import (
    BASE_ENV_VARS,
    CUDA_DEVICE_MAX_CONNECTIONS,
    MEGATRON_MAX_CONNECTIONS_BELOW_MAJOR,
    PPO_RAY_RUNTIME_ENV,
    RAY_JOB_CONFIG_JSON_ENV_VAR,
    Reason,
    RuntimeEnvReport,
    VariableDecision,
    explain_ppo_ray_runtime_env,
    get_ppo_ray_runtime_env,
    ppo_ray_runtime_env_report,
)

__all__ = [
    "BASE_ENV_VARS",
    "CAPABILITY_UNKNOWN",
    "COMPONENTS",
    "CUDA_DEVICE_MAX_CONNECTIONS",
    "MEGATRON_MAX_CONNECTIONS_BELOW_MAJOR",
    "PPO_RAY_RUNTIME_ENV",
    "RAY_JOB_CONFIG_JSON_ENV_VAR",
    "CapabilityOverride",
    "CapabilityProbe",
    "ComponentEngine",
    "Reason",
    "RuntimeEnvReport",
    "VariableDecision",
    "check_config_type",
    "explain_ppo_ray_runtime_env",
    "get_ppo_ray_runtime_env",
    "inspect_components",
    "megatron_components",
    "parse_capability",
    "ppo_ray_runtime_env_report",
    "probe_device_capability",
    "resolve_device_capability",
    "uses_megatron",
]
