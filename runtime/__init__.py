"""Config-aware Ray runtime environment for PPO trainers (``import ppo_runtime``).

A drop-in for verl's ``verl.trainer.constants_ppo`` that tracks the newest verl release
(:data:`TRACKED_VERL_VERSION`) and decides from the components verl really builds::

    import ray
    from ppo_runtime import get_ppo_ray_runtime_env

    ray.init(runtime_env=get_ppo_ray_runtime_env(config))

Public API:

* :func:`get_ppo_ray_runtime_env` -- the runtime_env dict for ``ray.init``.
* :func:`explain_ppo_ray_runtime_env` -- per variable: value (or left out) and why.
* :func:`ppo_ray_runtime_env_report` -- both, plus components and capability.
* :data:`PPO_RAY_RUNTIME_ENV` (a plain dict, like upstream's), :data:`BASE_ENV_VARS`
  (read-only) -- the base variables.
* :func:`decide_components`, :class:`Component` -- which components verl builds and why;
  :func:`uses_megatron`, :func:`megatron_components`, :func:`mindspeed_components`.
* :func:`inspect_components`, :data:`COMPONENTS` -- what the config says of each engine.
* :func:`probe_device_capability`, :func:`resolve_device_capability`,
  :func:`parse_capability`, :data:`CAPABILITY_UNKNOWN`, :func:`torch_hip_version` --
  the device probe.

Importing this package imports neither torch, ray nor omegaconf: torch is imported
only by the device probe, which runs only when a rule needs the capability and no
``device_capability`` was given; omegaconf only to resolve interpolations.
"""

from .components import (
    Component,
    decide_components,
    megatron_components,
    mindspeed_components,
    uses_megatron,
)
from .device import (
    CAPABILITY_UNKNOWN,
    CapabilityOverride,
    CapabilityProbe,
    parse_capability,
    probe_device_capability,
    resolve_device_capability,
    torch_hip_version,
)
from .engines import (
    COMPONENTS,
    ComponentEngine,
    check_config_type,
    inspect_components,
)
from .env import (
    ALWAYS_FORWARDED_ENV_VARS,
    BASE_ENV_VARS,
    CUDA_DEVICE_MAX_CONNECTIONS,
    FORWARDED_WHEN_SET_ENV_VARS,
    MEGATRON_MAX_CONNECTIONS_BELOW_MAJOR,
    NVTX_INJECTION_DISABLED,
    NVTX_INJECTION_ENV,
    PPO_RAY_RUNTIME_ENV,
    RAY_JOB_CONFIG_JSON_ENV_VAR,
    TRACKED_VERL_VERSION,
    Reason,
    RuntimeEnvReport,
    VariableDecision,
    explain_ppo_ray_runtime_env,
    get_ppo_ray_runtime_env,
    ppo_ray_runtime_env_report,
)

__all__ = [
    "ALWAYS_FORWARDED_ENV_VARS",
    "BASE_ENV_VARS",
    "CAPABILITY_UNKNOWN",
    "COMPONENTS",
    "CUDA_DEVICE_MAX_CONNECTIONS",
    "FORWARDED_WHEN_SET_ENV_VARS",
    "MEGATRON_MAX_CONNECTIONS_BELOW_MAJOR",
    "NVTX_INJECTION_DISABLED",
    "NVTX_INJECTION_ENV",
    "PPO_RAY_RUNTIME_ENV",
    "RAY_JOB_CONFIG_JSON_ENV_VAR",
    "TRACKED_VERL_VERSION",
    "CapabilityOverride",
    "CapabilityProbe",
    "Component",
    "ComponentEngine",
    "Reason",
    "RuntimeEnvReport",
    "VariableDecision",
    "check_config_type",
    "decide_components",
    "explain_ppo_ray_runtime_env",
    "get_ppo_ray_runtime_env",
    "inspect_components",
    "megatron_components",
    "mindspeed_components",
    "parse_capability",
    "ppo_ray_runtime_env_report",
    "probe_device_capability",
    "resolve_device_capability",
    "torch_hip_version",
    "uses_megatron",
]
