"""Which components verl builds for a training config, and which engine each runs.

:mod:`ppo_runtime.engines` reads what the config *says* about each component's engine
(``strategy``, ``enable``, ``megatron.use_megatron_fsdp``). A component verl never
builds runs nothing, however it is configured: an unused ``megatron_critic`` in a GRPO
run must not set ``CUDA_DEVICE_MAX_CONNECTIONS``. This module decides what verl builds,
with verl's own rules (``verl/trainer/ppo/utils.py`` and ``verl/trainer/main_ppo.py`` of
verl 0.9.1):

* **actor** (``actor_rollout_ref.actor``): always built.
* **reference policy** (``actor_rollout_ref.ref``): verl ``need_reference_policy``:
  built when ``algorithm.use_kl_in_reward`` or ``actor_rollout_ref.actor.use_kl_loss``
  is true (both default to false in verl's YAML) -- unless verl computes the ref inside
  the actor (``ref_in_actor``: LoRA, ``actor_rollout_ref.model.lora.rank > 0``,
  ``lora_rank > 0`` or ``lora_adapter_path``; ``trainer_base.py`` ~234-237, 799-807),
  when no separate ref is built and its strategy never counts. The ref has its own
  ``megatron.use_megatron_fsdp``; verl's ``megatron_ref.yaml`` does not interpolate it
  from the actor.
* **critic**: verl ``need_critic``: ``critic.enable`` when it is not null, otherwise
  built exactly when ``algorithm.adv_estimator`` is ``"gae"`` (verl's default
  estimator, so a config without the key builds one).
* **reward model**, decided by the config's shape. A config with a ``reward`` section
  follows verl 0.9.1 ``need_reward_model``: built when ``reward.reward_model.enable`` is
  true, the top-level ``reward_model`` ignored (only ``fully_async_main`` migrates it).
  A 0.9.x reward model is served by an inference server (``RewardModelConfig`` has no
  ``strategy``; ``RewardLoopManager`` runs it on a rollout), so it never runs Megatron.
  A legacy config (no ``reward`` section) keeps pre-0.9 verl's rule: the top-level
  ``reward_model`` is built when its ``enable`` is true, and its ``strategy`` counts.
* **teacher** (``distillation``): verl ``need_teacher_policy``: built only when
  ``distillation.enabled`` is true. verl serves the teacher with an inference engine,
  so it has no training strategy here.

An explicit ``enable: false`` on any component is honoured (not built), even on the
actor and the ref, which verl builds regardless: a disabled component is the user's
clear statement, and leaving a variable out there is what the user asked for.

Public names: :class:`Component`, :func:`decide_components`,
:func:`megatron_components`, :func:`mindspeed_components`, :func:`uses_megatron`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .engines import (
    MISSING,
    ComponentEngine,
    ConfigReader,
    as_flag,
    as_strategy,
    check_section,
    inspect_components,
    told_flag,
    verl_truth,
)

__all__ = [
    "ROLES",
    "Component",
    "decide_components",
    "megatron_components",
    "mindspeed_components",
    "uses_megatron",
]

#: The path of each component and its name in verl's ``Role`` terms.
ROLES: dict[str, str] = {
    "actor_rollout_ref.actor": "actor",
    "actor_rollout_ref.ref": "ref",
    "critic": "critic",
    "reward_model": "reward model",
    "reward.reward_model": "reward model",
    "distillation": "teacher",
}

#: verl's default ``algorithm.adv_estimator`` (``verl/trainer/config/ppo_trainer.yaml``).
DEFAULT_ADV_ESTIMATOR = "gae"


@dataclass(frozen=True)
class Component:
    """One component: what its config says, whether verl builds it, and why.

    Attributes:
        engine: the :class:`~ppo_runtime.engines.ComponentEngine` read from the config.
        built: whether verl builds the component for this config.
        why: one phrase, e.g. ``"critic not built: adv_estimator grpo"`` or
            ``"ref built: actor_rollout_ref.actor.use_kl_loss is true"``.
    """

    engine: ComponentEngine
    built: bool
    why: str
    #: Served by an inference engine (verl 0.9.x reward model, the teacher): its
    #: ``strategy`` never selects a training engine, so it never counts.
    inference_served: bool = False

    @property
    def path(self) -> str:
        """The component's dotted config path, e.g. ``"critic"``."""
        return self.engine.path

    @property
    def role(self) -> str:
        """``"actor"``, ``"ref"``, ``"critic"``, ``"reward model"`` or ``"teacher"``."""
        return ROLES[self.engine.path]

    @property
    def runs_megatron(self) -> bool:
        """Built, trained (not :attr:`inference_served`), ``strategy: megatron`` and not
        Megatron-FSDP."""
        return self.built and not self.inference_served and self.engine.runs_megatron

    @property
    def runs_mindspeed(self) -> bool:
        """Built and ``strategy: mindspeed`` (verl #7040: MindSpeed asserts on the variable)."""
        return (
            self.built
            and not self.inference_served
            and self.engine.enabled
            and self.engine.strategy == "mindspeed"
        )

    @property
    def engine_name(self) -> str | None:
        """What the component runs, for display: ``"megatron"``, ``"megatron-fsdp"``,
        the strategy otherwise (``"fsdp"``, ``"mindspeed"``...), ``None`` when unknown."""
        strategy = self.engine.strategy
        if strategy == "megatron" and self.engine.use_megatron_fsdp:
            return "megatron-fsdp"
        return None if strategy is None else str(strategy)

    def describe(self) -> str:
        """``"<why>; strategy=megatron"`` (the engine only for a built component)."""
        if not self.built or self.inference_served or self.engine_name is None:
            return self.why
        return f"{self.why}; strategy={self.engine_name}"


def _flag(reader: ConfigReader, key: str) -> bool | None:
    """``True``/``False``, or ``None`` when the key is missing or null."""
    value = reader.get(key)
    if value is MISSING or value is None:
        return None
    return as_flag(value, default=False, key=key)


def _lora_rank(reader: ConfigReader, key: str) -> int:
    """An int LoRA rank (missing/null -> 0).

    Raises:
        ValueError: a non-integer rank, naming ``key`` (verl compares it with ``> 0``).
    """
    value = reader.get(key)
    if value is MISSING or value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key}: expected an integer LoRA rank, got {value!r} ({type(value).__name__})")
    return value


def ref_in_actor(reader: ConfigReader) -> str | None:
    """Why verl 0.9.1 computes the reference policy inside the actor, or ``None``.

    verl ``ref_in_actor`` (``verl/trainer/ppo/v1/trainer_base.py`` ~234-237 and 799-807,
    ``ray_trainer.py``, ``main_ppo_v0.py`` ~47): ``actor_rollout_ref.model.lora.rank > 0``,
    else ``actor_rollout_ref.model.lora_rank > 0``, or ``model.lora_adapter_path`` not
    null. The ref is then the actor without its LoRA adapter: no separate ref is built.

    Raises:
        ValueError: a non-integer rank or a ``model``/``lora`` section that is not a
            mapping, naming the key.
    """
    check_section(reader.get("actor_rollout_ref.model"), "actor_rollout_ref.model")
    check_section(reader.get("actor_rollout_ref.model.lora"), "actor_rollout_ref.model.lora")
    rank = _lora_rank(reader, "actor_rollout_ref.model.lora.rank")
    key = "actor_rollout_ref.model.lora.rank"
    if rank <= 0:
        rank = _lora_rank(reader, "actor_rollout_ref.model.lora_rank")
        key = "actor_rollout_ref.model.lora_rank"
    if rank > 0:
        return f"{key} is {rank}"
    adapter = reader.get("actor_rollout_ref.model.lora_adapter_path")
    if adapter is not MISSING and adapter is not None:
        return f"actor_rollout_ref.model.lora_adapter_path is {adapter!r}"
    return None


def _ref(reader: ConfigReader) -> tuple[bool, str]:
    reward_kl = _flag(reader, "algorithm.use_kl_in_reward")
    loss_kl = _flag(reader, "actor_rollout_ref.actor.use_kl_loss")
    if reward_kl:
        why = "algorithm.use_kl_in_reward is true"
    elif loss_kl:
        why = "actor_rollout_ref.actor.use_kl_loss is true"
    else:
        return False, "ref not built: neither actor.use_kl_loss nor algorithm.use_kl_in_reward is true"
    lora = ref_in_actor(reader)
    if lora is not None:
        return False, f"ref not built: {why}, but {lora}, so verl computes the ref inside the actor (ref_in_actor)"
    return True, f"ref built: {why}"


def _critic(reader: ConfigReader) -> tuple[bool, str]:
    raw = reader.get("critic.enable")
    if raw is not MISSING and raw is not None:  # verl ``need_critic``: ``bool(critic.enable)``
        enable = verl_truth(raw, False)
        return enable, f"critic {'built' if enable else 'not built'}: critic.enable is {told_flag(raw)}"
    raw = reader.get("algorithm.adv_estimator")
    estimator = (
        DEFAULT_ADV_ESTIMATOR
        if raw is MISSING or raw is None
        else as_strategy(raw, "algorithm.adv_estimator")
    )
    shown = estimator if raw is not MISSING and raw is not None else f"{estimator} (verl's default)"
    if estimator == DEFAULT_ADV_ESTIMATOR:
        return True, f"critic built: enable is null and adv_estimator {shown}"
    return False, f"critic not built: adv_estimator {shown}"


def _enabled_only(reader: ConfigReader, engine: ComponentEngine, key: str) -> tuple[bool, str]:
    role = ROLES[engine.path]
    if not engine.present:
        return False, f"{role} not built: {engine.path} is not configured"
    raw = reader.get(key)
    if verl_truth(raw, False):  # verl ``need_reward_model``: the value's truth
        return True, f"{role} built: {key} is {told_flag(raw)}"
    shown = "null" if raw is MISSING or raw is None else told_flag(raw)
    return False, f"{role} not built: {key} is {shown}"


def has_reward_section(reader: ConfigReader) -> bool:
    """Whether the config has verl >= 0.7's ``reward`` section (the 0.9.1 shape)."""
    node = reader.get("reward")
    return node is not MISSING and node is not None


def _reward_model(reader: ConfigReader, engine: ComponentEngine, new_shape: bool) -> tuple[bool, str]:
    """verl 0.9.1 ``need_reward_model`` reads only ``reward.reward_model.enable``; the top-level
    ``reward_model`` of pre-0.9 verl counts only in a config without a ``reward`` section."""
    if engine.path == "reward_model" and new_shape:
        if not engine.present:
            return False, "reward model not built: reward_model is not configured"
        return False, (
            "reward model not built: the config has a reward section, so verl 0.9.1 reads only "
            "reward.reward_model.enable (only fully_async_main migrates the top-level reward_model)"
        )
    built, why = _enabled_only(reader, engine, f"{engine.path}.enable")
    if built and engine.path == "reward.reward_model":
        why += " (served by an inference server, never Megatron)"
    return built, why


def _teacher_engine(reader: ConfigReader, config: Any) -> ComponentEngine:
    node = reader.get("distillation") if config is not None else MISSING
    check_section(node, "distillation")
    enabled = verl_truth(reader.get("distillation.enabled"), False)  # ``is_distillation_enabled``
    return ComponentEngine(
        path="distillation",
        present=node is not MISSING and node is not None,
        strategy=None,
        enabled=bool(enabled),
        use_megatron_fsdp=False,
    )


def decide_components(config: Any) -> tuple[Component, ...]:
    """Which components verl builds for ``config``, and why.

    Args:
        config: ``None``, a mapping, an OmegaConf ``DictConfig`` (struct mode too) or a
            dataclass instance, shaped like verl's trainer config. ``None`` builds nothing
            known (every component "not configured").

    Returns:
        One :class:`Component` per path of :data:`ppo_runtime.engines.COMPONENTS`, in
        that order, then the teacher (``"distillation"``).

    Raises:
        TypeError: ``config`` has an unsupported type (the message names it).
        ValueError: an interpolation the decision reads cannot be resolved (names the key).
    """
    engines = inspect_components(config)
    reader = ConfigReader(config)
    new_shape = config is not None and has_reward_section(reader)
    result = []
    for engine in engines:
        if config is None:
            built, why = False, f"{ROLES[engine.path]} not built: no config was given"
        elif engine.present and not engine.enabled:
            built, why = False, f"{ROLES[engine.path]} not built: {engine.path}.enable is {told_flag(reader.get(engine.path + '.enable'))}"
        elif engine.path == "actor_rollout_ref.actor":
            built, why = engine.present, (
                "actor built: verl always builds the actor"
                if engine.present
                else "actor not built: actor_rollout_ref.actor is not configured"
            )
        elif engine.path == "actor_rollout_ref.ref":
            built, why = _ref(reader)
        elif engine.path == "critic":
            built, why = _critic(reader)
        else:
            built, why = _reward_model(reader, engine, new_shape)
        result.append(
            Component(engine, built, why, inference_served=engine.path == "reward.reward_model")
        )
    teacher = _teacher_engine(reader, config)
    if config is None:
        result.append(Component(teacher, False, "teacher not built: no config was given"))
    else:
        built = teacher.enabled
        why = (
            "teacher built: distillation.enabled is true (served by an inference engine)"
            if built
            else "teacher not built: distillation.enabled is not true"
        )
        result.append(Component(teacher, built, why, inference_served=True))
    return tuple(result)


def megatron_components(config: Any) -> tuple[str, ...]:
    """The paths of the components verl builds that run Megatron (not Megatron-FSDP).

    Args:
        config: as for :func:`decide_components`.

    Returns:
        Paths in :data:`ppo_runtime.engines.COMPONENTS` order; empty when none.

    Raises:
        TypeError, ValueError: as :func:`decide_components`.
    """
    return tuple(c.path for c in decide_components(config) if c.runs_megatron)


def mindspeed_components(config: Any) -> tuple[str, ...]:
    """The paths of the components verl builds with ``strategy: mindspeed``.

    Raises:
        TypeError, ValueError: as :func:`decide_components`.
    """
    return tuple(c.path for c in decide_components(config) if c.runs_mindspeed)


def uses_megatron(config: Any) -> bool:
    """Whether any component verl builds runs Megatron (a superset of verl PR #6976's
    ``_uses_megatron``, which read actor and critic strategies only, built or not).

    Raises:
        TypeError, ValueError: as :func:`decide_components`.
    """
    return bool(megatron_components(config))
