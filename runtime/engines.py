"""What a training config says about each component's engine.

Whether verl *builds* a component is decided in :mod:`ppo_runtime.components`; this
module only reads the engine settings.

verl PR #6976 added ``_uses_megatron(config)``, which looks at
``actor_rollout_ref.actor.strategy`` and ``critic.strategy`` only. Its review (left
unresolved) asked for the reference policy and the reward model too, and the PR's own
comment says Megatron-FSDP must not get ``CUDA_DEVICE_MAX_CONNECTIONS`` while its code
never checks for it. This module reads every component in :data:`COMPONENTS`.

A component's engine **runs Megatron** (if verl builds it) when all three hold:

1. ``<component>.strategy``, with interpolations resolved (verl's ``ref.yaml`` has
   ``strategy: ${actor_rollout_ref.actor.strategy}``), equals ``"megatron"``;
2. it is not disabled: ``<component>.enable`` is not false (missing or ``null``
   counts as enabled -- verl's ``critic.enable: null`` means "decide later");
3. it does not use Megatron-FSDP: ``<component>.megatron.use_megatron_fsdp`` is not
   true.

Configs may be ``None``, any :class:`~collections.abc.Mapping` (``dict``, verl's
``BaseConfig``), an OmegaConf ``DictConfig`` (struct mode too) or a dataclass
instance; nested levels may mix these. Missing keys are not errors. omegaconf is
imported only when the config is a ``DictConfig`` (then it is already imported) or a
looked-up value in a plain mapping holds an ``${...}`` interpolation.
"""

from __future__ import annotations

import dataclasses
import enum
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "COMPONENTS",
    "MISSING",
    "ConfigReader",
    "as_flag",
    "verl_truth",
    "as_strategy",
    "ComponentEngine",
    "check_config_type",
    "check_section",
    "inspect_components",
]

#: The config paths of every component that can run a training engine:
#: the actor, the reference policy, the critic, the reward model of older verl
#: (``reward_model``) and of newer verl (``reward.reward_model``).
COMPONENTS: tuple[str, ...] = (
    "actor_rollout_ref.actor",
    "actor_rollout_ref.ref",
    "critic",
    "reward_model",
    "reward.reward_model",
)

#: The sentinel :meth:`ConfigReader.get` returns for a key the config does not have.
MISSING: Any = object()
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


@dataclass(frozen=True)
class ComponentEngine:
    """What the config says about one component's engine.

    Attributes:
        path: the component's dotted config path, one of :data:`COMPONENTS`.
        present: whether the config has a node at ``path`` at all.
        strategy: the resolved ``<path>.strategy`` value (normally a ``str`` such as
            ``"fsdp"``, ``"fsdp2"``, ``"megatron"``, ``"veomni"``, ``"torchtitan"``),
            or ``None`` when missing.
        enabled: ``False`` only when ``<path>.enable`` is false.
        use_megatron_fsdp: ``<path>.megatron.use_megatron_fsdp`` (``False`` when missing).
    """

    path: str
    present: bool
    strategy: Any
    enabled: bool
    use_megatron_fsdp: bool

    @property
    def runs_megatron(self) -> bool:
        """Megatron strategy, enabled, and not Megatron-FSDP."""
        return self.strategy == "megatron" and self.enabled and not self.use_megatron_fsdp

    def describe(self) -> str:
        """One line, e.g. ``"critic: strategy=megatron, disabled (enable: false)"``."""
        if not self.present:
            return f"{self.path}: not configured"
        parts = [f"strategy={self.strategy}"]
        if not self.enabled:
            parts.append("disabled (enable: false)")
        if self.use_megatron_fsdp:
            parts.append("Megatron-FSDP (megatron.use_megatron_fsdp: true)")
        return f"{self.path}: " + ", ".join(parts)


def _omegaconf_types() -> tuple[type, ...]:
    """``(DictConfig, ListConfig)`` if omegaconf is already imported, else ``()``.

    A config cannot be a DictConfig unless omegaconf was imported, so this never
    imports it.
    """
    om = sys.modules.get("omegaconf")
    if om is None:
        return ()
    return (om.DictConfig, om.ListConfig)


def _is_dictconfig(obj: Any) -> bool:
    om = sys.modules.get("omegaconf")
    return om is not None and isinstance(obj, om.DictConfig)


def _is_dataclass_instance(obj: Any) -> bool:
    return dataclasses.is_dataclass(obj) and not isinstance(obj, type)


def check_config_type(config: Any) -> None:
    """Raise unless ``config`` is a supported training-config type.

    Args:
        config: ``None``, a :class:`~collections.abc.Mapping`, an OmegaConf
            ``DictConfig`` or a dataclass instance.

    Raises:
        TypeError: any other type (a ``ListConfig``, a list, a string, a dataclass
            *class*...), naming the type.
    """
    if config is None or _is_dictconfig(config):
        return
    if isinstance(config, Mapping) or _is_dataclass_instance(config):
        return
    raise TypeError(
        "config must be None, a mapping, an OmegaConf DictConfig or a dataclass instance, "
        f"got {type(config).__module__}.{type(config).__qualname__}"
    )


def _to_container(obj: Any, seen: frozenset[int] = frozenset()) -> Any:
    """Plain dicts/lists from mappings and dataclasses, for ``OmegaConf.create``."""
    if id(obj) in seen:
        return None  # a cycle: cut it (a training config has none)
    if _omegaconf_types() and isinstance(obj, _omegaconf_types()):
        return obj
    seen = seen | {id(obj)}
    if _is_dataclass_instance(obj):
        return {f.name: _to_container(getattr(obj, f.name), seen) for f in dataclasses.fields(obj)}
    if isinstance(obj, Mapping):
        return {k: _to_container(v, seen) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_to_container(v, seen) for v in obj]
    return obj


class ConfigReader:
    """Dotted-key lookups in any supported config, resolving interpolations."""

    def __init__(self, config: Any) -> None:
        check_config_type(config)
        self._config = config
        self._omega: Any = None  # a DictConfig view of a plain config, built on demand

    def get(self, key: str) -> Any:
        """The resolved value at ``key`` or ``MISSING``.

        Raises:
            ValueError: the value's interpolation cannot be resolved (names ``key``).
        """
        if self._config is None:
            return MISSING
        if _is_dictconfig(self._config):
            return _omega_select(self._config, key)
        node = self._config
        parts = key.split(".")
        for part in parts:
            if _is_dictconfig(node):
                # A DictConfig nested in a plain mapping: interpolations in it are
                # relative to the outer config, so resolve through the whole-config view.
                return _omega_select(self._as_omega(key), key)
            if isinstance(node, Mapping):
                try:
                    node = node[part]
                except (KeyError, TypeError):
                    return MISSING
            elif _is_dataclass_instance(node) and part in {
                f.name for f in dataclasses.fields(node)
            }:
                node = getattr(node, part)
            else:
                return MISSING
        if isinstance(node, str) and "${" in node:
            return _omega_select(self._as_omega(key), key)
        return node

    def _as_omega(self, key: str) -> Any:
        if self._omega is None:
            from omegaconf import OmegaConf

            try:
                self._omega = OmegaConf.create(
                    _to_container(self._config), flags={"allow_objects": True}
                )
            except Exception as exc:
                raise ValueError(
                    f"cannot resolve the interpolation at {key!r}: the config cannot be "
                    f"converted to OmegaConf ({type(exc).__name__}: {exc})"
                ) from exc
        return self._omega


def _omega_select(cfg: Any, key: str) -> Any:
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    try:
        return OmegaConf.select(
            cfg, key, default=MISSING, throw_on_resolution_failure=True, throw_on_missing=False
        )
    except OmegaConfBaseException as exc:
        first_line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(f"cannot resolve the interpolation at {key!r}: {first_line}") from exc


def as_flag(value: Any, default: bool, key: str | None = None) -> bool:
    """A config flag as a bool, as YAML and verl's dataclass configs read it.

    Args:
        value: the looked-up value: ``MISSING``/``None`` -> ``default``; a ``bool``; the
            ints ``0``/``1``; a string ``true``/``false`` (and yes/no/on/off/1/0, any case).
        default: the value for a missing or null key.
        key: the dotted key, named in the error (``None``: ``"the flag"``).

    Raises:
        ValueError: any other value (``"maybe"``, ``2``, a list...), naming ``key``:
            guessing would decide a variable on a value verl itself rejects.
    """
    if value is MISSING or value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        low = value.strip().lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
    raise ValueError(
        f"{key or 'the flag'}: expected true, false or null, got {_shown(value)}"
    )


def verl_truth(value: Any, default: bool) -> bool:
    """A component's ``enable`` flag as verl's trainer reads it: the raw config value's truth.

    verl 0.9.1 ``need_critic`` returns ``bool(config.critic.enable)``, ``need_reward_model``
    and ``is_distillation_enabled`` return the value for an ``if``: a quoted YAML
    ``"false"`` (or ``${oc.env:CRITIC,true}``, always a string) is a non-empty string, so
    verl builds the component (fresh user 44, W2). Deciding by the YAML reading instead
    would leave a Megatron critic verl builds without ``CUDA_DEVICE_MAX_CONNECTIONS``.

    Args:
        value: the looked-up value (any type).
        default: the value for a missing (``MISSING``) or null key.
    """
    if value is MISSING or value is None:
        return default
    return bool(value)


def told_flag(value: Any) -> str:
    """How a flag read by :func:`verl_truth` is named in a decision: ``"true"``/``"false"``
    for a bool, else the value and what verl makes of it (``"'false' (a string, true to
    verl)"``)."""
    if isinstance(value, bool):
        return str(value).lower()
    return f"{_shown(value)}, {'true' if value else 'false'} to verl"


def _shown(value: Any) -> str:
    """``'maybe' (str)``: the value's repr (cut at 60 characters) and its YAML-ish type."""
    kind = {"ListConfig": "list", "DictConfig": "dict"}.get(type(value).__name__, type(value).__name__)
    text = repr(list(value)) if kind == "list" and not isinstance(value, list) else repr(value)
    return f"{text[:60]}... ({kind})" if len(text) > 60 else f"{text} ({kind})"


def as_strategy(value: Any, key: str | None = None) -> Any:
    """A strategy (or estimator) value: ``MISSING``/``None`` -> ``None``, an Enum -> its
    value, a ``str`` as is (compared case-sensitively, as verl does).

    Raises:
        ValueError: a non-string value (``5``, a list, a mapping...), naming ``key``.
    """
    if value is MISSING or value is None:
        return None
    if isinstance(value, enum.Enum):
        value = value.value  # e.g. a str-Enum member such as Strategy.MEGATRON
    if not isinstance(value, str):
        raise ValueError(f"{key or 'the strategy'}: expected a string, got {_shown(value)}")
    return value


def check_section(node: Any, key: str) -> None:
    """Raise ``ValueError`` naming ``key`` when a config section is neither missing, null,
    a mapping, a ``DictConfig`` nor a dataclass instance (e.g. ``critic: megatron``)."""
    if node is MISSING or node is None:
        return
    if isinstance(node, Mapping) or _is_dictconfig(node) or _is_dataclass_instance(node):
        return
    raise ValueError(f"{key}: expected a mapping (a config section), got {_shown(node)}")


def inspect_components(config: Any) -> tuple[ComponentEngine, ...]:
    """Describe the engine of every component in :data:`COMPONENTS`.

    Args:
        config: ``None``, a mapping, an OmegaConf ``DictConfig`` (struct mode too) or a
            dataclass instance, shaped like verl's trainer config.

    Returns:
        One :class:`ComponentEngine` per entry of :data:`COMPONENTS`, in that order.

    Raises:
        TypeError: ``config`` has an unsupported type (the message names it).
        ValueError: a ``strategy``, ``enable`` or ``megatron.use_megatron_fsdp``
            interpolation cannot be resolved, a flag is not a boolean or null, a
            strategy is not a string, or a component section is not a mapping (the
            message names the key).
    """
    reader = ConfigReader(config)
    result = []
    for path in COMPONENTS:
        parts = path.split(".")
        # Top-down, so a non-mapping parent is named before a lookup through it fails.
        for depth in range(1, len(parts) + 1):
            section = ".".join(parts[:depth])
            check_section(reader.get(section), section)
        node = reader.get(path) if config is not None else MISSING
        check_section(reader.get(f"{path}.megatron"), f"{path}.megatron")
        # Resolve strategy first: an unresolvable strategy is an error even for a
        # disabled component, so a broken config never passes silently.
        strategy = as_strategy(reader.get(f"{path}.strategy"), f"{path}.strategy")
        enabled = verl_truth(reader.get(f"{path}.enable"), default=True)
        fsdp = as_flag(
            reader.get(f"{path}.megatron.use_megatron_fsdp"),
            default=False,
            key=f"{path}.megatron.use_megatron_fsdp",
        )
        result.append(
            ComponentEngine(
                path=path,
                present=node is not MISSING and node is not None,
                strategy=strategy,
                enabled=enabled,
                use_megatron_fsdp=fsdp,
            )
        )
    return tuple(result)


def __getattr__(name: str) -> Any:
    """``megatron_components`` and ``uses_megatron`` moved to :mod:`ppo_runtime.components`
    (they now count only the components verl builds); kept importable from here."""
    if name in ("megatron_components", "uses_megatron"):
        from . import components

        return getattr(components, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
