"""The Ray ``runtime_env`` for PPO training, decided from the training config.

Origin: ``verl/trainer/constants_ppo.py``. This module tracks the newest verl release
(:data:`TRACKED_VERL_VERSION`) and does everything its ``get_ppo_ray_runtime_env`` does,
deciding from the components verl really builds (:mod:`ppo_runtime.components`):

* the base variables (:data:`BASE_ENV_VARS`): verl's set, which since verl #5522
  (2026-03-11) no longer holds ``NCCL_CUMEM_ENABLE=0`` and since #6062 holds
  ``HSA_NO_SCRATCH_RECLAIM=1``;
* platform rules: ``RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO=0`` when torch is a ROCm build;
  the GB200 opt-in (``TLLM_DISABLE_NVLS_MNNVL=1`` in the driver on compute capability
  >= 10 -> ``NCCL_NVLS_ENABLE=0``, ``NCCL_MNNVL_ENABLE=0``);
* ``CUDA_DEVICE_MAX_CONNECTIONS=1`` (verl PR #6976) when a component verl builds runs
  Megatron (not Megatron-FSDP) on a compute capability major below 10 -- Megatron-LM's
  ``validate_args`` asserts on it for every architecture before Blackwell, while
  Megatron-FSDP "requires not setting" it -- or runs MindSpeed at any capability
  (verl #7040, dropped upstream by #7374, kept here for configs that name it);
* the torch-profiler fix: with ``global_profiler.tool == "torch"``,
  ``NVTX_INJECTION64_PATH`` is set to an unloadable path even over an inherited value,
  unless ``VERL_KEEP_NVTX_INJECTION=1``, with verl's warning;
* determinism: ``VERL_FULL_DETERMINISM``, ``VLLM_BATCH_INVARIANT`` and
  ``VERL_RL_INSIGHT_ENABLE`` are written on every call with the driver's value at call
  time (default ``"0"``); ``PYTHONHASHSEED``, ``CUBLAS_WORKSPACE_CONFIG``,
  ``FLASH_ATTENTION_DETERMINISTIC``, ``NCCL_DETERMINISTIC`` and ``NCCL_ALGO`` are
  forwarded when the driver sets them. verl's ``main_ppo`` sets them just before the call.

What is kept better than upstream (each difference is in the table of docs/runtime.md,
which a differential test against the published wheels asserts): base and platform
variables the driver already sets are forwarded with the driver's value instead of
dropped (remote Ray nodes do not inherit the driver's shell); variables the Ray job's
own ``runtime_env.env_vars`` sets are left to the job (Ray refuses to merge a variable
twice: "Failed to merge"); an unknown capability sets the variable with a warning (each distinct message once
per process);
an explicit ``enable: false`` is honoured; the device is probed lazily, once.

Shapes:

* ``runtime_env``: ``{"env_vars": {NAME: VALUE, ...}}`` plus ``"working_dir": None``
  when the Ray job config names no working_dir -- the dict ``ray.init(runtime_env=...)``
  takes.
* :class:`VariableDecision`: one per variable, for :func:`explain_ppo_ray_runtime_env`.
* :class:`RuntimeEnvReport`: the runtime_env and every decision behind it.
"""

from __future__ import annotations

import enum
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .components import Component, decide_components
from .device import (
    CapabilityOverride,
    CapabilityProbe,
    resolve_device_capability,
    torch_hip_version,
)
from .engines import MISSING, ConfigReader

__all__ = [
    "ALWAYS_FORWARDED_ENV_VARS",
    "BASE_ENV_VARS",
    "CUDA_DEVICE_MAX_CONNECTIONS",
    "FORWARDED_WHEN_SET_ENV_VARS",
    "MEGATRON_MAX_CONNECTIONS_BELOW_MAJOR",
    "NVTX_INJECTION_DISABLED",
    "NVTX_INJECTION_ENV",
    "PPO_RAY_RUNTIME_ENV",
    "RAY_JOB_CONFIG_JSON_ENV_VAR",
    "TRACKED_VERL_VERSION",
    "Reason",
    "RuntimeEnvReport",
    "VariableDecision",
    "explain_ppo_ray_runtime_env",
    "get_ppo_ray_runtime_env",
    "ppo_ray_runtime_env_report",
]

#: The verl release whose ``verl/trainer/constants_ppo.py`` this module tracks; the
#: differential test (tests/runtime/test_env_verl_differential.py) compares with it and the
#: release before it.
TRACKED_VERL_VERSION = "0.9.1"

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

#: verl 0.9.1 ``NVTX_INJECTION_ENV`` and ``_NVTX_INJECTION_DISABLED``: deliberately
#: non-empty and unloadable, so NVTX injection stays a no-op and Kineto can subscribe
#: to CUPTI (the torch-profiler fix).
NVTX_INJECTION_ENV = "NVTX_INJECTION64_PATH"
NVTX_INJECTION_DISABLED = "/nonexistent/verl-disabled-nvtx-injection.so"
_KEEP_NVTX = "VERL_KEEP_NVTX_INJECTION"

#: The driver variable of verl's opt-in GB200 NCCL workaround.
GB200_OPT_IN = "TLLM_DISABLE_NVLS_MNNVL"
_GB200_VARS = ("NCCL_NVLS_ENABLE", "NCCL_MNNVL_ENABLE")
_ROCM_VAR = "RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO"

_BASE = {
    "TOKENIZERS_PARALLELISM": "true",
    "NCCL_DEBUG": "WARN",
    "VLLM_LOGGING_LEVEL": "WARN",
    "VLLM_ALLOW_RUNTIME_LORA_UPDATING": "true",
    "VLLM_DISABLE_COMPILE_CACHE": "1",
    "HCCL_HOST_SOCKET_PORT_RANGE": "auto",
    "HCCL_NPU_SOCKET_PORT_RANGE": "auto",
    "HSA_NO_SCRATCH_RECLAIM": "1",
}

#: The variables set for every run: verl 0.9.1's ``PPO_RAY_RUNTIME_ENV["env_vars"]``
#: without its import-time platform entries (decided per call here). Read-only.
BASE_ENV_VARS: Mapping[str, str] = MappingProxyType(dict(_BASE))

#: ``{"env_vars": {...}}`` with the base variables: a plain dict like upstream's (so
#: ``ray.init(runtime_env=PPO_RAY_RUNTIME_ENV)``, ``copy.deepcopy``, ``json.dumps`` and
#: ``OmegaConf.create`` work). :func:`get_ppo_ray_runtime_env` never reads it, so
#: mutating it changes nothing that function returns; its dicts are fresh per call.
PPO_RAY_RUNTIME_ENV: dict[str, dict[str, str]] = {"env_vars": dict(_BASE)}

#: Written on every call with the driver's value at call time, default ``"0"`` (verl).
ALWAYS_FORWARDED_ENV_VARS: tuple[str, ...] = (
    "VERL_FULL_DETERMINISM",
    "VLLM_BATCH_INVARIANT",
    "VERL_RL_INSIGHT_ENABLE",
)

#: Forwarded only when the driver sets them ("empty string breaks vLLM", verl).
FORWARDED_WHEN_SET_ENV_VARS: tuple[str, ...] = (
    "PYTHONHASHSEED",
    "CUBLAS_WORKSPACE_CONFIG",
    "FLASH_ATTENTION_DETERMINISTIC",
    "NCCL_DETERMINISTIC",
    "NCCL_ALGO",
)

_WARNED: set[str] = set()
_WARNED_LOCK = threading.Lock()


def _warn_once(message: str) -> None:
    """Log ``message`` on the ``ppo_runtime`` logger once per process: each distinct
    message once (two different warnings are both logged, each a single time)."""
    with _WARNED_LOCK:
        if message in _WARNED:
            return
        _WARNED.add(message)
    import logging  # only when there is a warning: ``import ppo_runtime`` stays light (issue 6)

    logging.getLogger("ppo_runtime").warning(message)


class Reason(str, enum.Enum):
    """Why a variable has its value, or why it is left out.

    Included in ``env_vars``:

    * ``BASE_DEFAULT`` -- one of :data:`BASE_ENV_VARS`.
    * ``MEGATRON`` -- ``CUDA_DEVICE_MAX_CONNECTIONS=1``: a built component runs
      Megatron on a known compute capability below 10.
    * ``MINDSPEED`` -- ``CUDA_DEVICE_MAX_CONNECTIONS=1``: a built component runs
      MindSpeed (any capability; verl #7040).
    * ``CAPABILITY_UNKNOWN`` -- set because a rule needs the capability and it is
      unknown (a warning is logged).
    * ``ROCM`` -- ``RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO=0`` on a ROCm build of torch.
    * ``GB200`` -- ``NCCL_NVLS_ENABLE``/``NCCL_MNNVL_ENABLE=0``: the GB200 opt-in on
      compute capability >= 10.
    * ``TORCH_PROFILER`` -- ``NVTX_INJECTION64_PATH``: the torch-profiler fix.
    * ``DETERMINISM`` -- a determinism variable written as verl does.
    * ``DRIVER_FORWARDED`` -- the driver's environment sets it; its value is forwarded.

    Left out:

    * ``NO_MEGATRON`` -- ``CUDA_DEVICE_MAX_CONNECTIONS``: no built component runs
      Megatron or MindSpeed.
    * ``CAPABILITY_10_OR_NEWER`` -- ``CUDA_DEVICE_MAX_CONNECTIONS``: Megatron on
      Blackwell or newer, which does not need it.
    * ``NOT_APPLICABLE`` -- a conditional variable whose condition does not hold.
    * ``DRIVER_DROPPED`` -- the driver sets it and ``forward_driver_env=False`` (the
      upstream behaviour: only nodes that inherit the driver's shell see it).
    * ``JOB_RUNTIME_ENV`` -- the Ray job's own ``runtime_env.env_vars`` sets it; Ray
      refuses to merge a job runtime_env and a ``ray.init`` runtime_env that set the
      same variable, and the job's value reaches every worker anyway.
    """

    BASE_DEFAULT = "base-default"
    MEGATRON = "megatron"
    MINDSPEED = "mindspeed"
    CAPABILITY_UNKNOWN = "capability-unknown"
    ROCM = "rocm"
    GB200 = "gb200-opt-in"
    TORCH_PROFILER = "torch-profiler"
    DETERMINISM = "determinism"
    DRIVER_FORWARDED = "driver-forwarded"
    NO_MEGATRON = "no-megatron"
    CAPABILITY_10_OR_NEWER = "capability-10-or-newer"
    NOT_APPLICABLE = "not-applicable"
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
        variables: one :class:`VariableDecision` per variable, in verl's order: the base
            variables, the platform ones (GB200, ROCm), ``CUDA_DEVICE_MAX_CONNECTIONS``,
            ``NVTX_INJECTION64_PATH``, then the determinism variables.
        components: one :class:`~ppo_runtime.components.Component` per component:
            what verl builds and why.
        megatron_components: paths of the built components that run Megatron.
        mindspeed_components: paths of the built components that run MindSpeed.
        capability: the capability used, or ``None`` when no rule needed it (nothing
            was probed).
        rocm: whether torch is treated as a ROCm build.
        working_dir: why ``runtime_env`` has ``"working_dir": None`` or not.
        warnings: the warnings :func:`get_ppo_ray_runtime_env` logs (each once per
            process), in order.
    """

    runtime_env: dict[str, Any]
    variables: tuple[VariableDecision, ...]
    components: tuple[Component, ...]
    megatron_components: tuple[str, ...]
    capability: CapabilityProbe | None
    working_dir: str
    warnings: tuple[str, ...] = field(default=())
    mindspeed_components: tuple[str, ...] = field(default=())
    rocm: bool = False

    @property
    def warning(self) -> str | None:
        """The first warning, or ``None`` (kept for callers of the one-warning API)."""
        return self.warnings[0] if self.warnings else None


def _read_job_config(environ: Mapping[str, str]) -> tuple[Any, Mapping[str, Any], str]:
    """``(working_dir or None, job env_vars, detail)`` from the Ray job config JSON.

    Raises:
        ValueError: malformed JSON or a non-object, naming the variable.
    """
    raw = environ.get(RAY_JOB_CONFIG_JSON_ENV_VAR)
    if raw is None:
        return None, {}, f"{RAY_JOB_CONFIG_JSON_ENV_VAR} is not set"
    import json  # only with a Ray job config to read: ``import ppo_runtime`` stays light

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


@dataclass(frozen=True)
class _Wanted:
    """What a rule wants for one variable, before the driver and the job are consulted.

    ``kind``: ``"default"`` (the driver's value is forwarded or dropped, the job's wins),
    ``"override"`` (set even over the driver's value; the job's wins), ``"always"``
    (the driver's value or ``"0"``; the job's wins), ``"when_set"`` (the driver's value
    only when set; the job's wins).
    """

    name: str
    kind: str
    default: str | None
    reason: Reason
    detail: str
    warning: str | None = None


def _how(cap: CapabilityProbe) -> str:
    return {"override": "given", "torch.cuda": "probed with torch.cuda"}.get(cap.source, cap.source)


def _forwarded_max_connections_warning(value: str | None, need: str) -> str:
    """The warning for a driver's ``CUDA_DEVICE_MAX_CONNECTIONS`` other than ``1`` forwarded
    where a built Megatron (or MindSpeed) component needs ``1``."""
    return (
        f"Forwarding {CUDA_DEVICE_MAX_CONNECTIONS}={value} from the driver's environment to "
        f"every Ray worker, but {need}, which needs {CUDA_DEVICE_MAX_CONNECTIONS}=1 "
        "(Megatron-LM's validate_args asserts on it before Blackwell). Unset it or set it "
        "to 1 in the launching shell, or pass forward_driver_env=False."
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


def _cuda_wanted(
    megatron: tuple[str, ...], mindspeed: tuple[str, ...], cap: CapabilityProbe | None
) -> _Wanted:
    """``CUDA_DEVICE_MAX_CONNECTIONS``: MindSpeed at any capability, Megatron below 10."""
    name = CUDA_DEVICE_MAX_CONNECTIONS
    if mindspeed:
        return _Wanted(
            name,
            "default",
            "1",
            Reason.MINDSPEED,
            f"MindSpeed in {', '.join(mindspeed)}, which asserts it at any compute capability "
            "(verl #7040; upstream dropped the rule in #7374, kept for configs that name it)",
        )
    if not megatron:
        return _Wanted(
            name,
            "default",
            None,
            Reason.NO_MEGATRON,
            "no component verl builds runs Megatron (FSDP, Megatron-FSDP, veomni, torchtitan... "
            "overlap better without it)",
        )
    assert cap is not None
    names = ", ".join(megatron)
    if cap.capability is None:
        return _Wanted(
            name,
            "default",
            "1",
            Reason.CAPABILITY_UNKNOWN,
            f"Megatron in {names}, compute capability unknown, so set to be safe: {cap.detail}",
            _unknown_capability_warning(megatron, cap),
        )
    if cap.capability[0] < MEGATRON_MAX_CONNECTIONS_BELOW_MAJOR:
        return _Wanted(
            name,
            "default",
            "1",
            Reason.MEGATRON,
            f"Megatron in {names} on compute capability {cap.describe()} "
            f"({_how(cap)}; < {MEGATRON_MAX_CONNECTIONS_BELOW_MAJOR})",
        )
    return _Wanted(
        name,
        "default",
        None,
        Reason.CAPABILITY_10_OR_NEWER,
        f"Megatron in {names}, but compute capability {cap.describe()} "
        f"({_how(cap)}; >= {MEGATRON_MAX_CONNECTIONS_BELOW_MAJOR}) does not need it",
    )


def _gb200_wanted(opt_in: bool, cap: CapabilityProbe | None) -> list[_Wanted]:
    """verl's opt-in GB200 NCCL workaround, decided at call time (verl: at import)."""
    if not opt_in:
        return [
            _Wanted(
                n,
                "default",
                None,
                Reason.NOT_APPLICABLE,
                f"{GB200_OPT_IN} is not 1 in the driver (verl's opt-in GB200 NCCL workaround)",
            )
            for n in _GB200_VARS
        ]
    assert cap is not None
    if cap.capability is None:
        warning = (
            f"Setting {' and '.join(_GB200_VARS)}=0 for the Ray workers because "
            f"{GB200_OPT_IN}=1 asks for the GB200 NCCL workaround and the GPU compute "
            f"capability is unknown: {cap.detail}. verl applies it only on compute "
            "capability >= 10; pass device_capability=(major, minor) to decide "
            "(ppo-migrate env: --capability)."
        )
        return [
            _Wanted(
                n,
                "default",
                "0",
                Reason.CAPABILITY_UNKNOWN,
                f"{GB200_OPT_IN}=1 and compute capability unknown, so set as asked: {cap.detail}",
                warning,
            )
            for n in _GB200_VARS
        ]
    if cap.capability[0] >= 10:
        return [
            _Wanted(
                n,
                "default",
                "0",
                Reason.GB200,
                f"{GB200_OPT_IN}=1 on compute capability {cap.describe()} ({_how(cap)}; >= 10): "
                "NVLS and MNNVL off (GB200 nodes without IMEX)",
            )
            for n in _GB200_VARS
        ]
    return [
        _Wanted(
            n,
            "default",
            None,
            Reason.NOT_APPLICABLE,
            f"{GB200_OPT_IN}=1, but compute capability {cap.describe()} ({_how(cap)}) is below 10",
        )
        for n in _GB200_VARS
    ]


def _rocm_wanted(hip: str | None, rocm: bool | None) -> _Wanted:
    if rocm is not None:
        source = f"rocm={rocm} was passed"
    elif hip is not None:
        source = f"torch is a ROCm build (torch.version.hip={hip})"
    else:
        source = "torch is not a ROCm build (torch.version.hip is None or torch is not installed)"
    if rocm or (rocm is None and hip is not None):
        return _Wanted(
            _ROCM_VAR,
            "default",
            "0",
            Reason.ROCM,
            f"{source}: Ray must not clear the GPU visibility of num_gpus=0 actors",
        )
    return _Wanted(_ROCM_VAR, "default", None, Reason.NOT_APPLICABLE, source)


def _nvtx_wanted(tool: Any, environ: Mapping[str, str]) -> _Wanted:
    """The torch-profiler fix of verl 0.9.1."""
    if tool != "torch":
        return _Wanted(
            NVTX_INJECTION_ENV,
            "override",
            None,
            Reason.NOT_APPLICABLE,
            f"global_profiler.tool is {tool!r}, not 'torch'" if tool is not None
            else "global_profiler.tool is not set",
        )
    if environ.get(_KEEP_NVTX, "0") == "1":
        return _Wanted(
            NVTX_INJECTION_ENV,
            "override",
            None,
            Reason.NOT_APPLICABLE,
            f"global_profiler.tool is 'torch', but {_KEEP_NVTX}=1 keeps the inherited value",
        )
    inherited = environ.get(NVTX_INJECTION_ENV) or "unset"
    # verl 0.9.1's warning, word for word, so logs read the same under either runtime.
    warning = (
        f"global_profiler.tool=torch: setting {NVTX_INJECTION_ENV}={NVTX_INJECTION_DISABLED} "
        "for all workers so Kineto can subscribe to CUPTI and record GPU kernels. Set "
        f"{_KEEP_NVTX}=1 to keep the inherited value ({inherited}), at the cost of traces "
        "without CUDA activity."
    )
    return _Wanted(
        NVTX_INJECTION_ENV,
        "override",
        NVTX_INJECTION_DISABLED,
        Reason.TORCH_PROFILER,
        "global_profiler.tool is 'torch': an unloadable NVTX injection path, even over an "
        f"inherited value (now {inherited}), so Kineto records GPU kernels",
        warning,
    )


def _determinism_wanted(environ: Mapping[str, str]) -> list[_Wanted]:
    wanted = []
    for name in ALWAYS_FORWARDED_ENV_VARS:
        value = environ.get(name)
        detail = (
            "the driver's value at call time (verl writes it on every call)"
            if value is not None
            else "not set in the driver: 0, as verl writes on every call"
        )
        wanted.append(
            _Wanted(name, "always", value if value is not None else "0", Reason.DETERMINISM, detail)
        )
    for name in FORWARDED_WHEN_SET_ENV_VARS:
        value = environ.get(name)
        if value is None:
            wanted.append(
                _Wanted(
                    name,
                    "when_set",
                    None,
                    Reason.NOT_APPLICABLE,
                    "not set in the driver (forwarded only when set, as verl does)",
                )
            )
        else:
            wanted.append(
                _Wanted(
                    name,
                    "when_set",
                    value,
                    Reason.DETERMINISM,
                    "set in the driver; forwarded to every node, as verl does",
                )
            )
    return wanted


def _decide(
    w: _Wanted,
    environ: Mapping[str, str],
    job_env_vars: Mapping[str, Any],
    forward_driver_env: bool,
) -> tuple[VariableDecision, bool]:
    """The decision for one variable and whether its default (and warning) was used."""
    name, default, reason, detail = w.name, w.default, w.reason, w.detail
    driver_value = environ.get(name)
    if default is None:
        if driver_value is not None and w.kind in ("default", "override"):
            detail += (
                f"; the driver's environment sets {name}={driver_value}, which is not "
                "forwarded (processes on the driver's node may still inherit it)"
            )
        return VariableDecision(name, None, reason, detail, None), False
    instead = (
        f"instead of the default {default}"
        if reason is Reason.BASE_DEFAULT
        else f"instead of {default}: {detail}"
    )
    if name in job_env_vars:
        extra = (
            "; upstream writes it anyway and ray.init fails with 'Failed to merge'"
            if w.kind in ("always", "when_set")
            else ""
        )
        return (
            VariableDecision(
                name,
                None,
                Reason.JOB_RUNTIME_ENV,
                f"the Ray job's runtime_env sets {name}={job_env_vars[name]} and Ray refuses "
                f"to merge it twice, so left to the job ({instead}){extra}",
                default,
            ),
            False,
        )
    if w.kind == "default" and driver_value is not None:
        if forward_driver_env:
            return (
                VariableDecision(
                    name,
                    driver_value,
                    Reason.DRIVER_FORWARDED,
                    f"the driver's environment sets it; forwarded to every node ({instead})",
                    default,
                ),
                False,
            )
        return (
            VariableDecision(
                name,
                None,
                Reason.DRIVER_DROPPED,
                f"the driver's environment sets it to {driver_value} and "
                "forward_driver_env=False leaves it out, as upstream does: nodes that "
                f"do not inherit the driver's shell get neither value ({instead})",
                default,
            ),
            False,
        )
    return VariableDecision(name, default, reason, detail, default), True


def ppo_ray_runtime_env_report(
    config: Any = None,
    *,
    device_capability: CapabilityOverride = None,
    forward_driver_env: bool = True,
    rocm: bool | None = None,
    environ: Mapping[str, str] | None = None,
) -> RuntimeEnvReport:
    """Decide the PPO Ray runtime_env and say why, without logging anything.

    :func:`get_ppo_ray_runtime_env` and :func:`explain_ppo_ray_runtime_env` are thin
    views of this; ``ppo-migrate env`` prints it.

    Args:
        config: the training config: ``None``, a mapping, an OmegaConf ``DictConfig``
            (struct mode too) or a dataclass instance, shaped like verl's trainer config.
        device_capability: ``None`` to probe torch lazily (only if a built component
            runs Megatron or the GB200 opt-in is set); ``(major, minor)`` such as
            ``(9, 0)``; a string ``"9.0"``; or ``"unknown"``
            (:data:`ppo_runtime.device.CAPABILITY_UNKNOWN`) to skip the probe.
        forward_driver_env: ``True`` (default) to forward base and platform variables
            already set in the driver's environment with the driver's value; ``False``
            to drop them as upstream verl does. The determinism variables are forwarded
            either way, as upstream does.
        rocm: ``None`` to read ``torch.version.hip`` (without importing torch when it
            is not imported yet); ``True``/``False`` to decide.
        environ: the driver's environment at call time; ``None`` reads ``os.environ``.
            ``ppo-migrate env`` passes ``os.environ`` plus what verl ``main_ppo``'s
            ``run_ppo`` sets before its call.

    Returns:
        A :class:`RuntimeEnvReport`.

    Raises:
        TypeError: ``config`` (or ``device_capability``) has an unsupported type.
        ValueError: an unresolvable ``strategy``/``enable``/``use_megatron_fsdp``/
            ``adv_estimator``/``global_profiler.tool`` interpolation (naming the key); a
            malformed ``device_capability``; malformed JSON in
            ``RAY_JOB_CONFIG_JSON_ENV_VAR`` (naming the variable).
    """
    environ = os.environ if environ is None else environ
    # Validate an explicit override before anything else, even when no rule needs it,
    # so a typo never goes unnoticed.
    override = (
        resolve_device_capability(device_capability) if device_capability is not None else None
    )
    components = decide_components(config)
    megatron = tuple(c.path for c in components if c.runs_megatron)
    mindspeed = tuple(c.path for c in components if c.runs_mindspeed)
    tool = None
    if config is not None:
        raw_tool = ConfigReader(config).get("global_profiler.tool")
        tool = None if raw_tool is MISSING else raw_tool
    working_dir, job_env_vars, working_dir_detail = _read_job_config(environ)
    gb200_opt_in = environ.get(GB200_OPT_IN, "0") == "1"

    cap: CapabilityProbe | None = None
    if (megatron and not mindspeed) or gb200_opt_in:
        cap = override if override is not None else resolve_device_capability(None)
    hip = torch_hip_version() if rocm is None else None

    wanted = [
        _Wanted(name, "default", value, Reason.BASE_DEFAULT, "set for every run (verl constants_ppo.py)")
        for name, value in _BASE.items()
    ]
    wanted += _gb200_wanted(gb200_opt_in, cap)
    wanted.append(_rocm_wanted(hip, rocm))
    wanted.append(_cuda_wanted(megatron, mindspeed, cap))
    wanted.append(_nvtx_wanted(tool, environ))
    wanted += _determinism_wanted(environ)

    env_vars: dict[str, str] = {}
    decisions: list[VariableDecision] = []
    warnings: list[str] = []
    for w in wanted:
        decision, used_default = _decide(w, environ, job_env_vars, forward_driver_env)
        decisions.append(decision)
        if decision.value is not None:
            env_vars[w.name] = decision.value
        if used_default and w.warning is not None and w.warning not in warnings:
            warnings.append(w.warning)
        if (
            w.name == CUDA_DEVICE_MAX_CONNECTIONS
            and w.reason in (Reason.MEGATRON, Reason.MINDSPEED)
            and decision.reason is Reason.DRIVER_FORWARDED
            and decision.value != "1"
        ):
            warnings.append(_forwarded_max_connections_warning(decision.value, w.detail))

    runtime_env: dict[str, Any] = {"env_vars": env_vars}
    if working_dir is None:
        runtime_env["working_dir"] = None
    return RuntimeEnvReport(
        runtime_env=runtime_env,
        variables=tuple(decisions),
        components=components,
        megatron_components=megatron,
        capability=cap,
        working_dir=working_dir_detail,
        warnings=tuple(warnings),
        mindspeed_components=mindspeed,
        rocm=rocm if rocm is not None else hip is not None,
    )


def get_ppo_ray_runtime_env(
    config: Any = None,
    *,
    device_capability: CapabilityOverride = None,
    forward_driver_env: bool = True,
    rocm: bool | None = None,
) -> dict[str, Any]:
    """The Ray ``runtime_env`` for PPO training: pass it to ``ray.init(runtime_env=...)``.

    Config-aware replacement for verl's ``verl.trainer.constants_ppo.get_ppo_ray_runtime_env``
    (tracking verl :data:`TRACKED_VERL_VERSION`); the rules, in verl's order:

    1. :data:`BASE_ENV_VARS` (verl's base set).
    2. GB200 opt-in: ``TLLM_DISABLE_NVLS_MNNVL=1`` in the driver on compute capability
       >= 10 -> ``NCCL_NVLS_ENABLE=0``, ``NCCL_MNNVL_ENABLE=0``.
    3. ROCm build of torch -> ``RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO=0``.
    4. ``CUDA_DEVICE_MAX_CONNECTIONS=1`` when a component verl builds
       (:func:`ppo_runtime.components.decide_components`) runs MindSpeed (any
       capability), or runs Megatron (not Megatron-FSDP) on a compute capability major
       below 10. PR #6976 tests for majors 8 and 9 only; Megatron-LM asserts on the
       variable for every architecture before Blackwell, so Volta/Turing get it too.
    5. The capability is probed lazily (only when rule 2 or 4 needs it), once per
       process even under concurrency, or taken from ``device_capability``. An unknown
       capability (CPU-only head node, ROCm, NPU) sets the variable, with a warning
       on the ``"ppo_runtime"`` logger saying how to decide (each distinct warning
       message is logged once per process).
    6. Variables of rules 1-4 that the driver's environment already sets are forwarded
       with the driver's value (``forward_driver_env=True``) or dropped (``False``,
       upstream behaviour). A forwarded ``CUDA_DEVICE_MAX_CONNECTIONS`` other than
       ``"1"`` where rule 4 needs ``1`` is forwarded with a warning.
    7. ``global_profiler.tool == "torch"`` -> ``NVTX_INJECTION64_PATH`` set to an
       unloadable path even over the driver's value, unless
       ``VERL_KEEP_NVTX_INJECTION=1``; verl's warning is logged (once per distinct
       message per process; verl logs it on every call).
    8. :data:`ALWAYS_FORWARDED_ENV_VARS` with the driver's value or ``"0"``;
       :data:`FORWARDED_WHEN_SET_ENV_VARS` when the driver sets them.
    9. Any variable the Ray job's own ``runtime_env.env_vars`` sets is left to the job
       (Ray refuses to merge two runtime_envs that set the same variable).
    10. ``"working_dir": None`` when the job config JSON in
        ``RAY_JOB_CONFIG_JSON_ENV_VAR`` names no ``runtime_env.working_dir`` (as upstream).

    Args:
        config: ``None``, a mapping, an OmegaConf ``DictConfig`` (struct mode too) or a
            dataclass instance shaped like verl's trainer config. ``None`` means no
            component is known, so no Megatron and no profiler rule.
        device_capability: ``None`` (probe), ``(major, minor)``, ``"MAJOR.MINOR"``, or
            ``"unknown"`` to skip the probe.
        forward_driver_env: see rule 6.
        rocm: ``None`` (read ``torch.version.hip``), or ``True``/``False`` to decide.

    Returns:
        A new ``{"env_vars": {str: str}, ["working_dir": None]}`` dict on every call.

    Raises:
        TypeError: unsupported ``config`` type, naming it.
        ValueError: unresolvable interpolation (naming the key), malformed
            ``device_capability``, or malformed JSON in ``RAY_JOB_CONFIG_JSON_ENV_VAR``.
    """
    report = ppo_ray_runtime_env_report(
        config,
        device_capability=device_capability,
        forward_driver_env=forward_driver_env,
        rocm=rocm,
    )
    for message in report.warnings:
        _warn_once(message)
    return report.runtime_env


def explain_ppo_ray_runtime_env(
    config: Any = None,
    *,
    device_capability: CapabilityOverride = None,
    forward_driver_env: bool = True,
    rocm: bool | None = None,
) -> list[VariableDecision]:
    """For every variable, its value (or that it is left out) and the reason.

    Takes the same arguments and raises the same errors as
    :func:`get_ppo_ray_runtime_env`, and agrees with it by construction (both come from
    :func:`ppo_ray_runtime_env_report`). Unlike it, logs nothing: the warnings'
    explanations are in the returned decisions.

    Returns:
        A list of :class:`VariableDecision` in :attr:`RuntimeEnvReport.variables` order.
        Each has ``name``, ``value`` (``None`` when left out), ``reason`` (a
        :class:`Reason`), ``detail`` and ``default``.
    """
    report = ppo_ray_runtime_env_report(
        config,
        device_capability=device_capability,
        forward_driver_env=forward_driver_env,
        rocm=rocm,
    )
    return list(report.variables)
