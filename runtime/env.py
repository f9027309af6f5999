"""The Ray ``runtime_env`` for PPO training, decided from the training config.

Origin: ``verl/trainer/constants_ppo.py``. Upstream sets
``CUDA_DEVICE_MAX_CONNECTIONS=1`` for every run; verl PR #6976 ("only set
CUDA_DEVICE_MAX_CONNECTIONS=1 for megatron in Hopper/Ampere") made it depend on the
config and the GPU. This module implements that rule with the gaps the PR and its
review left open closed:

* every engine-bearing component is checked (actor, ref, critic, both reward-model
  locations), not only actor and critic -- see :mod:`ppo_runtime.engines`;
* Megatron-FSDP and disabled components do not count;
* the threshold is "compute capability major below 10", not "8 or 9": Megatron-LM's
  ``validate_args`` (``megatron/training/arguments.py``) asserts
  ``os.environ.get("CUDA_DEVICE_MAX_CONNECTIONS") == "1"`` whenever tensor or context
  parallelism is used and ``get_device_arch_version() < 10`` ("requirement no longer
  exists since the Blackwell architecture"), so Volta (7.x) and Turing (7.5) need it
  too. The same block only *warns* for Megatron-FSDP, which "requires not setting
  CUDA_DEVICE_MAX_CONNECTIONS=1 for better parallelization" -- hence the FSDP rule;
* the device is probed lazily and can be overridden (:mod:`ppo_runtime.device`);
* variables already set in the driver's environment are forwarded with the driver's
  value instead of dropped, because remote Ray nodes do not inherit the driver's shell.

Shapes:

* ``runtime_env``: ``{"env_vars": {NAME: VALUE, ...}}`` plus ``"working_dir": None``
  when the Ray job config names no working_dir -- the dict ``ray.init(runtime_env=...)``
  takes.
* :class:`VariableDecision`: one per variable, for :func:`explain_ppo_ray_runtime_env`.
* :class:`RuntimeEnvReport`: the runtime_env and every decision behind it.
"""

from __future__ import annotations

import enum
import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .device import CapabilityOverride, CapabilityProbe, resolve_device_capability
from .engines import ComponentEngine, inspect_components

__all__ = [
    "BASE_ENV_VARS",
    "CUDA_DEVICE_MAX_CONNECTIONS",
    "MEGATRON_MAX_CONNECTIONS_BELOW_MAJOR",
    "PPO_RAY_RUNTIME_ENV",
    "RAY_JOB_CONFIG_JSON_ENV_VAR",
    "Reason",
    "RuntimeEnvReport",
    "VariableDecision",
    "explain_ppo_ray_runtime_env",
    "get_ppo_ray_runtime_env",
    "ppo_ray_runtime_env_report",
]

logger = logging.getLogger("ppo_runtime")

#: The variable verl PR #6976 made conditional.
CUDA_DEVICE_MAX_CONNECTIONS = "CUDA_DEVICE_MAX_CONNECTIONS"

#: Megatron needs ``CUDA_DEVICE_MAX_CONNECTIONS=1`` on compute capability majors below
#: this (everything before Blackwell); see the module docstring.
MEGATRON_MAX_CONNECTIONS_BELOW_MAJOR = 10

#: The name of the environment variable in which Ray's job supervisor passes the job
#: config (JSON) to the driver. The value of
#: ``ray._private.runtime_env.constants.RAY_JOB_CONFIG_JSON_ENV_VAR`` (Ray 2.x; it is
#: read in ``ray._private.worker.init``), hard-coded so that importing this module
#: does not import ray.
RAY_JOB_CONFIG_JSON_ENV_VAR = "RAY_JOB_CONFIG_JSON_ENV_VAR"

_BASE = {
    "TOKENIZERS_PARALLELISM": "true",
    "NCCL_DEBUG": "WARN",
    "VLLM_LOGGING_LEVEL": "WARN",
    "VLLM_ALLOW_RUNTIME_LORA_UPDATING": "true",
    "NCCL_CUMEM_ENABLE": "0",
    "VLLM_DISABLE_COMPILE_CACHE": "1",
    "HCCL_HOST_SOCKET_PORT_RANGE": "auto",
    "HCCL_NPU_SOCKET_PORT_RANGE": "auto",
}

#: The variables set for every run: upstream ``PPO_RAY_RUNTIME_ENV["env_vars"]`` minus
#: ``CUDA_DEVICE_MAX_CONNECTIONS``. Read-only.
BASE_ENV_VARS: Mapping[str, str] = MappingProxyType(dict(_BASE))

#: ``{"env_vars": BASE_ENV_VARS}``, read-only at both levels. Dicts returned by
#: :func:`get_ppo_ray_runtime_env` are fresh copies, so mutating them never changes it.
PPO_RAY_RUNTIME_ENV: Mapping[str, Mapping[str, str]] = MappingProxyType({"env_vars": BASE_ENV_VARS})


class Reason(str, enum.Enum):
    """Why a variable has its value, or why it is left out.

    Included in ``env_vars``:

    * ``BASE_DEFAULT`` -- one of :data:`BASE_ENV_VARS`.
    * ``MEGATRON`` -- ``CUDA_DEVICE_MAX_CONNECTIONS=1``: a component runs Megatron on a
      known compute capability below 10.
    * ``CAPABILITY_UNKNOWN`` -- ``CUDA_DEVICE_MAX_CONNECTIONS=1``: a component runs
      Megatron and the capability is unknown (a warning is logged).
    * ``DRIVER_FORWARDED`` -- the driver's environment sets it; its value is forwarded.

    Left out:

    * ``NO_MEGATRON`` -- ``CUDA_DEVICE_MAX_CONNECTIONS``: no component runs Megatron.
    * ``CAPABILITY_10_OR_NEWER`` -- ``CUDA_DEVICE_MAX_CONNECTIONS``: Megatron on
      Blackwell or newer, which does not need it.
    * ``DRIVER_DROPPED`` -- the driver sets it and ``forward_driver_env=False`` (the
      upstream behaviour: only nodes that inherit the driver's shell see it).
    * ``JOB_RUNTIME_ENV`` -- the Ray job's own ``runtime_env.env_vars`` sets it; Ray
      refuses to merge a job runtime_env and a ``ray.init`` runtime_env that set the
      same variable, and the job's value reaches every worker anyway.
    """

    BASE_DEFAULT = "base-default"
    MEGATRON = "megatron"
    CAPABILITY_UNKNOWN = "capability-unknown"
    DRIVER_FORWARDED = "driver-forwarded"
    NO_MEGATRON = "no-megatron"
    CAPABILITY_10_OR_NEWER = "capability-10-or-newer"
    DRIVER_DROPPED = "driver-dropped"
    JOB_RUNTIME_ENV = "job-runtime-env"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class VariableDecision:
    """The decision about one environment variable.

    Attributes:
        name: the variable, e.g. ``"NCCL_DEBUG"``.
        value: its value in ``runtime_env["env_vars"]``, or ``None`` when left out.
        reason: a :class:`Reason` (a ``str`` enum; ``str(reason)`` is e.g.
            ``"base-default"``).
        detail: one human-readable sentence, e.g. ``"Megatron in actor_rollout_ref.actor
            on compute capability 9.0 (< 10)"``.
        default: what this function sets when the driver's environment does not
            interfere (``"1"`` for ``CUDA_DEVICE_MAX_CONNECTIONS`` when Megatron needs
            it), or ``None`` when it would not set the variable at all.
    """

    name: str
    value: str | None
    reason: Reason
    detail: str
    default: str | None = None

    @property
    def included(self) -> bool:
        """Whether the variable is in ``env_vars``."""
        return self.value is not None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"name", "value", "included", "reason", "detail", "default"}``."""
        return {
            "name": self.name,
            "value": self.value,
            "included": self.included,
            "reason": self.reason.value,
            "detail": self.detail,
            "default": self.default,
        }


@dataclass(frozen=True)
class RuntimeEnvReport:
    """A runtime_env and everything that decided it.

    Attributes:
        runtime_env: the dict :func:`get_ppo_ray_runtime_env` returns (a fresh one).
        variables: one :class:`VariableDecision` per variable: the base variables in
            :data:`BASE_ENV_VARS` order, then ``CUDA_DEVICE_MAX_CONNECTIONS``.
        components: one :class:`~ppo_runtime.engines.ComponentEngine` per component.
        megatron_components: paths of the components that run Megatron.
        capability: the capability used, or ``None`` when it was not needed (no
            component runs Megatron, so nothing was probed).
        working_dir: why ``runtime_env`` has ``"working_dir": None`` or not.
        warning: the warning :func:`get_ppo_ray_runtime_env` logs, or ``None``.
    """

    runtime_env: dict[str, Any]
    variables: tuple[VariableDecision, ...]
    components: tuple[ComponentEngine, ...]
    megatron_components: tuple[str, ...]
    capability: CapabilityProbe | None
    working_dir: str
    warning: str | None = field(default=None)


def _read_job_config(environ: Mapping[str, str]) -> tuple[Any, Mapping[str, Any], str]:
    """``(working_dir or None, job env_vars, detail)`` from the Ray job config JSON.

    Raises:
        ValueError: malformed JSON or a non-object, naming the variable.
    """
    raw = environ.get(RAY_JOB_CONFIG_JSON_ENV_VAR)
    if raw is None:
        return None, {}, f"{RAY_JOB_CONFIG_JSON_ENV_VAR} is not set"
    try:
        job = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{RAY_JOB_CONFIG_JSON_ENV_VAR} holds malformed JSON ({exc}): {raw[:80]!r}"
        ) from exc
    if not isinstance(job, dict):
        raise ValueError(
            f"{RAY_JOB_CONFIG_JSON_ENV_VAR} must hold a JSON object, got {type(job).__name__}"
        )
    runtime_env = job.get("runtime_env") or {}
    if not isinstance(runtime_env, dict):
        raise ValueError(
            f"{RAY_JOB_CONFIG_JSON_ENV_VAR}: runtime_env must be a JSON object, "
            f"got {type(runtime_env).__name__}"
        )
    env_vars = runtime_env.get("env_vars") or {}
    if not isinstance(env_vars, dict):
        raise ValueError(
            f"{RAY_JOB_CONFIG_JSON_ENV_VAR}: runtime_env.env_vars must be a JSON object, "
            f"got {type(env_vars).__name__}"
        )
    working_dir = runtime_env.get("working_dir")
    if working_dir is None:
        detail = f"{RAY_JOB_CONFIG_JSON_ENV_VAR} has no runtime_env.working_dir"
    else:
        detail = (
            f"the Ray job's runtime_env sets working_dir={working_dir!r}; "
            "left to the job (not repeated here)"
        )
    return working_dir, env_vars, detail


def _megatron_decision(
    comps: tuple[str, ...], device_capability: CapabilityOverride, override: CapabilityProbe | None
) -> tuple[str | None, Reason, str, CapabilityProbe | None]:
    """``(value or None, reason, detail, capability)`` for CUDA_DEVICE_MAX_CONNECTIONS."""
    if not comps:
        return (
            None,
            Reason.NO_MEGATRON,
            "no component runs Megatron (FSDP, veomni, torchtitan... overlap better without it)",
            None,
        )
    cap = override if override is not None else resolve_device_capability(device_capability)
    names = ", ".join(comps)
    how = {"override": "given", "torch.cuda": "probed with torch.cuda"}.get(cap.source, cap.source)
    if cap.capability is None:
        return (
            "1",
            Reason.CAPABILITY_UNKNOWN,
            f"Megatron in {names}, compute capability unknown, so set to be safe: {cap.detail}",
            cap,
        )
    major = cap.capability[0]
    if major < MEGATRON_MAX_CONNECTIONS_BELOW_MAJOR:
        return (
            "1",
            Reason.MEGATRON,
            f"Megatron in {names} on compute capability {cap.describe()} "
            f"({how}; < {MEGATRON_MAX_CONNECTIONS_BELOW_MAJOR})",
            cap,
        )
    return (
        None,
        Reason.CAPABILITY_10_OR_NEWER,
        f"Megatron in {names}, but compute capability {cap.describe()} "
        f"({how}; >= {MEGATRON_MAX_CONNECTIONS_BELOW_MAJOR}) does not need it",
        cap,
    )


def _unknown_capability_warning(comps: tuple[str, ...], cap: CapabilityProbe) -> str:
    return (
        f"Setting {CUDA_DEVICE_MAX_CONNECTIONS}=1 for the Ray workers because "
        f"{', '.join(comps)} run(s) Megatron and the GPU compute capability is unknown: "
        f"{cap.detail}. A missing variable breaks Megatron's communication/compute "
        "overlap on Hopper and older GPUs (compute capability < 10), while an extra one "
        "only costs a little throughput on Blackwell. To decide otherwise, pass "
        "device_capability=(major, minor) to get_ppo_ray_runtime_env(), e.g. (9, 0) for "
        "Hopper or (10, 0) for Blackwell (ppo-migrate env: --capability)."
    )


def ppo_ray_runtime_env_report(
    config: Any = None,
    *,
    device_capability: CapabilityOverride = None,
    forward_driver_env: bool = True,
) -> RuntimeEnvReport:
    """Decide the PPO Ray runtime_env and say why, without logging anything.

    :func:`get_ppo_ray_runtime_env` and :func:`explain_ppo_ray_runtime_env` are thin
    views of this; ``ppo-migrate env`` prints it.

    Args:
        config: the training config: ``None``, a mapping, an OmegaConf ``DictConfig``
            (struct mode too) or a dataclass instance, shaped like verl's trainer config.
        device_capability: ``None`` to probe torch lazily (only if some component runs
            Megatron); ``(major, minor)`` such as ``(9, 0)``; a string ``"9.0"``; or
            ``"unknown"`` (:data:`ppo_runtime.device.CAPABILITY_UNKNOWN`) to skip the
            probe and treat the capability as unknown.
        forward_driver_env: ``True`` (default) to forward variables already set in the
            driver's environment with the driver's value; ``False`` to drop them as
            upstream verl does.

    Returns:
        A :class:`RuntimeEnvReport`.

    Raises:
        TypeError: ``config`` (or ``device_capability``) has an unsupported type.
        ValueError: an unresolvable ``strategy``/``enable``/``use_megatron_fsdp``
            interpolation (naming the key); a malformed ``device_capability``; malformed
            JSON in ``RAY_JOB_CONFIG_JSON_ENV_VAR`` (naming the variable).
    """
    environ = os.environ
    # Validate an explicit override before anything else, even when no component
    # runs Megatron, so a typo never goes unnoticed.
    override = (
        resolve_device_capability(device_capability) if device_capability is not None else None
    )
    components = inspect_components(config)
    comps = tuple(c.path for c in components if c.runs_megatron)
    working_dir, job_env_vars, working_dir_detail = _read_job_config(environ)

    cuda_value, cuda_reason, cuda_detail, cap = _megatron_decision(
        comps, device_capability, override
    )
    wanted: list[tuple[str, str | None, Reason, str]] = [
        (name, value, Reason.BASE_DEFAULT, "set for every run (verl constants_ppo.py)")
        for name, value in _BASE.items()
    ]
    wanted.append((CUDA_DEVICE_MAX_CONNECTIONS, cuda_value, cuda_reason, cuda_detail))

    env_vars: dict[str, str] = {}
    decisions: list[VariableDecision] = []
    warning: str | None = None
    for name, default, reason, detail in wanted:
        driver_value = environ.get(name)
        # What the value would have been, for the details below.
        instead = (
            f"instead of the default {default}"
            if reason is Reason.BASE_DEFAULT
            else f"instead of {default}: {detail}"
        )
        if default is None:
            if driver_value is not None:
                detail += (
                    f"; the driver's environment sets {name}={driver_value}, which is not "
                    "forwarded (processes on the driver's node may still inherit it)"
                )
            decisions.append(VariableDecision(name, None, reason, detail, None))
            continue
        if name in job_env_vars:
            decisions.append(
                VariableDecision(
                    name,
                    None,
                    Reason.JOB_RUNTIME_ENV,
                    f"the Ray job's runtime_env sets {name}={job_env_vars[name]} and Ray "
                    f"refuses to merge it twice, so left to the job ({instead})",
                    default,
                )
            )
            continue
        if driver_value is not None:
            if forward_driver_env:
                env_vars[name] = driver_value
                decisions.append(
                    VariableDecision(
                        name,
                        driver_value,
                        Reason.DRIVER_FORWARDED,
                        f"the driver's environment sets it; forwarded to every node ({instead})",
                        default,
                    )
                )
            else:
                decisions.append(
                    VariableDecision(
                        name,
                        None,
                        Reason.DRIVER_DROPPED,
                        f"the driver's environment sets it to {driver_value} and "
                        "forward_driver_env=False leaves it out, as upstream does: nodes that "
                        f"do not inherit the driver's shell get neither value ({instead})",
                        default,
                    )
                )
            continue
        env_vars[name] = default
        decisions.append(VariableDecision(name, default, reason, detail, default))
        if reason is Reason.CAPABILITY_UNKNOWN:
            assert cap is not None
            warning = _unknown_capability_warning(comps, cap)

    runtime_env: dict[str, Any] = {"env_vars": env_vars}
    if working_dir is None:
        runtime_env["working_dir"] = None
    return RuntimeEnvReport(
        runtime_env=runtime_env,
        variables=tuple(decisions),
        components=components,
        megatron_components=comps,
        capability=cap,
        working_dir=working_dir_detail,
        warning=warning,
    )


def get_ppo_ray_runtime_env(
    config: Any = None,
    *,
    device_capability: CapabilityOverride = None,
    forward_driver_env: bool = True,
) -> dict[str, Any]:
    """The Ray ``runtime_env`` for PPO training: pass it to ``ray.init(runtime_env=...)``.

    Config-aware replacement for verl's ``verl.trainer.constants_ppo.get_ppo_ray_runtime_env``
    as changed by verl PR #6976:

    1. ``env_vars`` holds :data:`BASE_ENV_VARS` (upstream's variables minus
       ``CUDA_DEVICE_MAX_CONNECTIONS``).
    2. ``CUDA_DEVICE_MAX_CONNECTIONS="1"`` is added only when some component runs
       Megatron (:func:`ppo_runtime.engines.megatron_components`) on a compute
       capability major below 10. PR #6976 tests for majors 8 and 9 only; Megatron-LM's
       ``validate_args`` asserts on the variable for every architecture before
       Blackwell, so Volta and Turing get it too.
    3. The capability is probed lazily (only when Megatron is used) and cached, or
       taken from ``device_capability``. Megatron with an unknown capability (CPU-only
       head node, ROCm, NPU) gets the variable and **one warning** on the
       ``"ppo_runtime"`` logger saying why and how to decide otherwise.
    4. Variables this function would set that the driver's environment already sets
       are forwarded with the driver's value (``forward_driver_env=True``) or dropped
       (``False``, upstream behaviour). Variables the Ray job's own
       ``runtime_env.env_vars`` sets are always left to the job: Ray refuses to merge two
       runtime_envs that set the same variable.
    5. ``"working_dir": None`` is included when the job config JSON in
       ``RAY_JOB_CONFIG_JSON_ENV_VAR`` names no ``runtime_env.working_dir`` (as upstream).

    Args:
        config: ``None``, a mapping, an OmegaConf ``DictConfig`` (struct mode too) or a
            dataclass instance shaped like verl's trainer config. ``None`` means no
            component is known to run Megatron.
        device_capability: ``None`` (probe), ``(major, minor)``, ``"MAJOR.MINOR"``, or
            ``"unknown"`` to skip the probe.
        forward_driver_env: see rule 4.

    Returns:
        A new ``{"env_vars": {str: str}, ["working_dir": None]}`` dict on every call.

    Raises:
        TypeError: unsupported ``config`` type, naming it.
        ValueError: unresolvable strategy interpolation (naming the key), malformed
            ``device_capability``, or malformed JSON in ``RAY_JOB_CONFIG_JSON_ENV_VAR``.
    """
    report = ppo_ray_runtime_env_report(
        config, device_capability=device_capability, forward_driver_env=forward_driver_env
    )
    if report.warning is not None:
        logger.warning(report.warning)
    return report.runtime_env


def explain_ppo_ray_runtime_env(
    config: Any = None,
    *,
    device_capability: CapabilityOverride = None,
    forward_driver_env: bool = True,
) -> list[VariableDecision]:
    """For every variable, its value (or that it is left out) and the reason.

    Takes the same arguments and raises the same errors as
    :func:`get_ppo_ray_runtime_env`, and agrees with it by construction (both come from
    :func:`ppo_ray_runtime_env_report`). Unlike it, logs nothing: the
    "capability unknown" explanation is in the returned decision.

    Returns:
        A list of :class:`VariableDecision`: the base variables in
        :data:`BASE_ENV_VARS` order, then ``CUDA_DEVICE_MAX_CONNECTIONS``. Each has
        ``name``, ``value`` (``None`` when left out), ``reason`` (a :class:`Reason`),
        ``detail`` and ``default``.
    """
    report = ppo_ray_runtime_env_report(
        config, device_capability=device_capability, forward_driver_env=forward_driver_env
    )
    return list(report.variables)
