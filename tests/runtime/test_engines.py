"""Which components run Megatron (issue 2, rules 2 and 6), on verl-shaped configs."""

from __future__ import annotations

import dataclasses
import enum
from collections import OrderedDict
from types import MappingProxyType

import pytest
from omegaconf import OmegaConf
from ppo_runtime import (
    COMPONENTS,
    inspect_components,
    megatron_components,
    uses_megatron,
)


def test_components_are_all_five_engine_bearing_sections():
    assert COMPONENTS == (
        "actor_rollout_ref.actor",
        "actor_rollout_ref.ref",
        "critic",
        "reward_model",
        "reward.reward_model",
    )


# --- the four verl trainer shapes -----------------------------------------------------


def test_fsdp_trainer_runs_no_megatron(fsdp_cfg):
    assert megatron_components(fsdp_cfg) == ()
    assert uses_megatron(fsdp_cfg) is False
    by_path = {c.path: c for c in inspect_components(fsdp_cfg)}
    assert by_path["actor_rollout_ref.ref"].strategy == "fsdp"  # interpolation resolved
    assert by_path["reward.reward_model"].enabled is False
    assert by_path["reward_model"].present is False


def test_megatron_trainer_actor_ref_and_critic(megatron_cfg):
    # reward_model has strategy megatron but enable: false, so it does not count.
    assert megatron_components(megatron_cfg) == (
        "actor_rollout_ref.actor",
        "actor_rollout_ref.ref",
        "critic",
    )
    by_path = {c.path: c for c in inspect_components(megatron_cfg)}
    assert by_path["reward_model"].strategy == "megatron"
    assert by_path["reward_model"].enabled is False
    assert by_path["reward_model"].runs_megatron is False


@pytest.mark.parametrize(
    "name, strategy",
    [("ppo_veomni_trainer.yaml", "veomni"), ("ppo_torchtitan_trainer.yaml", "torchtitan")],
)
def test_veomni_and_torchtitan_trainers_run_no_megatron(load_config, name, strategy):
    cfg = load_config(name)
    assert uses_megatron(cfg) is False
    by_path = {c.path: c for c in inspect_components(cfg)}
    assert by_path["actor_rollout_ref.actor"].strategy == strategy
    assert by_path["actor_rollout_ref.ref"].strategy == strategy


def test_ref_follows_the_actor_through_its_interpolation(fsdp_cfg):
    fsdp_cfg.actor_rollout_ref.actor.strategy = "megatron"
    fsdp_cfg.actor_rollout_ref.actor.use_kl_loss = True  # verl builds the ref only with KL
    # The ref's strategy is ${actor_rollout_ref.actor.strategy}: it follows.
    assert megatron_components(fsdp_cfg) == ("actor_rollout_ref.actor", "actor_rollout_ref.ref")


# --- each component on its own (the PR checked only actor and critic) -----------------


@pytest.mark.parametrize("path", [p for p in COMPONENTS if p != "reward.reward_model"])
def test_each_component_alone_counts(fsdp_cfg, path):
    fsdp_cfg.actor_rollout_ref.ref.strategy = "fsdp"  # cut the ref's link to the actor
    if path == "reward_model":
        del fsdp_cfg["reward"]  # the legacy (pre-0.9) shape: the top-level reward model counts
    OmegaConf.update(fsdp_cfg, f"{path}.strategy", "megatron", force_add=True)
    OmegaConf.update(fsdp_cfg, f"{path}.enable", True, force_add=True)
    fsdp_cfg.actor_rollout_ref.actor.use_kl_loss = True  # verl builds the ref only with KL
    assert megatron_components(fsdp_cfg) == (path,)


def test_reward_model_new_location_never_counts(fsdp_cfg):
    # verl 0.9.x serves reward.reward_model with an inference server (RewardModelConfig
    # has no strategy), so no training engine runs it, enabled or not.
    fsdp_cfg.reward.reward_model.strategy = "megatron"
    assert megatron_components(fsdp_cfg) == ()  # enable: false in the fixture
    fsdp_cfg.reward.reward_model.enable = True
    assert megatron_components(fsdp_cfg) == ()


# --- enable and Megatron-FSDP -------------------------------------------------------


@pytest.mark.parametrize(
    "enable, counts", [(False, False), ("false", True), ("", False), (None, True), (True, True)]
)
def test_enable_flag(megatron_cfg, enable, counts):
    megatron_cfg.critic.enable = enable
    assert ("critic" in megatron_components(megatron_cfg)) is counts


def test_enable_missing_counts_as_enabled():
    cfg = {"critic": {"strategy": "megatron"}}
    assert megatron_components(cfg) == ("critic",)


def test_megatron_fsdp_does_not_count(megatron_cfg):
    megatron_cfg.actor_rollout_ref.actor.megatron.use_megatron_fsdp = True
    assert megatron_components(megatron_cfg) == ("actor_rollout_ref.ref", "critic")
    megatron_cfg.actor_rollout_ref.ref.megatron.use_megatron_fsdp = True
    megatron_cfg.critic.megatron.use_megatron_fsdp = True
    assert megatron_components(megatron_cfg) == ()
    assert uses_megatron(megatron_cfg) is False


def test_megatron_fsdp_through_interpolation():
    cfg = OmegaConf.create(
        {
            "actor_rollout_ref": {
                "actor": {"strategy": "megatron", "megatron": {"use_megatron_fsdp": True}},
                "ref": {
                    "strategy": "${actor_rollout_ref.actor.strategy}",
                    "megatron": {
                        "use_megatron_fsdp": "${oc.select:actor_rollout_ref.actor.megatron.use_megatron_fsdp,false}"
                    },
                },
            }
        }
    )
    assert megatron_components(cfg) == ()


# --- config types (rule 6) -----------------------------------------------------------


def test_none_config():
    assert megatron_components(None) == ()
    assert all(not c.present for c in inspect_components(None))


def test_struct_mode_dictconfig_with_missing_keys(fsdp_cfg):
    OmegaConf.set_struct(fsdp_cfg, True)
    del_cfg = OmegaConf.create({"actor_rollout_ref": {"actor": {"strategy": "megatron"}}})
    OmegaConf.set_struct(del_cfg, True)
    assert megatron_components(fsdp_cfg) == ()
    assert megatron_components(del_cfg) == ("actor_rollout_ref.actor",)


def test_missing_value_marker_is_not_an_error():
    # verl's base critic.yaml has `strategy: ???` until a concrete critic fills it.
    cfg = OmegaConf.create({"critic": {"strategy": "???", "enable": None}})
    assert inspect_components(cfg)[2].strategy is None
    assert megatron_components(cfg) == ()


def test_plain_dict_with_interpolation_is_resolved():
    cfg = {
        "actor_rollout_ref": {
            "actor": {"strategy": "megatron", "use_kl_loss": True},
            "ref": {"strategy": "${actor_rollout_ref.actor.strategy}"},
        }
    }
    assert megatron_components(cfg) == ("actor_rollout_ref.actor", "actor_rollout_ref.ref")


def test_plain_dict_oc_select_default():
    cfg = {
        "actor_rollout_ref": {
            "ref": {"strategy": "${oc.select:actor_rollout_ref.actor.strategy,megatron}"}
        },
        "algorithm": {"use_kl_in_reward": True},
    }
    assert megatron_components(cfg) == ("actor_rollout_ref.ref",)


def test_other_mappings():
    inner = MappingProxyType({"strategy": "megatron"})
    cfg = OrderedDict(critic=inner)
    assert megatron_components(cfg) == ("critic",)


@dataclasses.dataclass
class _Engine:
    use_megatron_fsdp: bool = False


@dataclasses.dataclass
class _Actor:
    strategy: str = "fsdp"
    use_kl_loss: bool = True
    megatron: _Engine = dataclasses.field(default_factory=_Engine)


@dataclasses.dataclass
class _ARR:
    actor: _Actor = dataclasses.field(default_factory=_Actor)
    ref: dict = dataclasses.field(
        default_factory=lambda: {"strategy": "${actor_rollout_ref.actor.strategy}"}
    )


@dataclasses.dataclass
class _Trainer:
    actor_rollout_ref: _ARR = dataclasses.field(default_factory=_ARR)
    critic: dict | None = None


def test_dataclass_instance():
    cfg = _Trainer()
    assert megatron_components(cfg) == ()
    cfg.actor_rollout_ref.actor.strategy = "megatron"
    assert megatron_components(cfg) == ("actor_rollout_ref.actor", "actor_rollout_ref.ref")
    cfg.actor_rollout_ref.actor.megatron.use_megatron_fsdp = True
    assert megatron_components(cfg) == ("actor_rollout_ref.ref",)


def test_str_enum_strategy():
    class Strategy(str, enum.Enum):
        MEGATRON = "megatron"

    assert megatron_components({"critic": {"strategy": Strategy.MEGATRON}}) == ("critic",)


@pytest.mark.parametrize(
    "bad, type_name",
    [([1, 2], "list"), ("actor.strategy=megatron", "str"), (42, "int"), (_Trainer, "type")],
)
def test_unsupported_config_type_raises_type_error_naming_it(bad, type_name):
    with pytest.raises(TypeError, match=rf"\b{type_name}\b"):
        uses_megatron(bad)


def test_listconfig_raises_type_error():
    with pytest.raises(TypeError, match="ListConfig"):
        uses_megatron(OmegaConf.create([{"strategy": "megatron"}]))


def test_unresolvable_strategy_raises_value_error_naming_the_key():
    cfg = OmegaConf.create(
        {"actor_rollout_ref": {"ref": {"strategy": "${actor_rollout_ref.actor.strategy}"}}}
    )
    with pytest.raises(ValueError, match=r"'actor_rollout_ref\.ref\.strategy'"):
        uses_megatron(cfg)


def test_unresolvable_strategy_in_plain_dict_names_the_key():
    cfg = {"critic": {"strategy": "${nowhere.strategy}"}}
    with pytest.raises(ValueError, match=r"'critic\.strategy'.*nowhere\.strategy"):
        uses_megatron(cfg)


def test_unknown_resolver_raises_value_error():
    cfg = OmegaConf.create({"critic": {"strategy": "${no_such_resolver:megatron}"}})
    with pytest.raises(ValueError, match=r"'critic\.strategy'"):
        uses_megatron(cfg)


def test_describe():
    cfg = {"critic": {"strategy": "megatron", "enable": False}}
    assert (
        inspect_components(cfg)[2].describe()
        == "critic: strategy=megatron, disabled (enable: false)"
    )
    assert inspect_components(cfg)[0].describe() == "actor_rollout_ref.actor: not configured"


def test_dictconfig_nested_in_a_plain_dict_resolves_against_the_whole_config():
    arr = OmegaConf.create(
        {
            "actor": {"strategy": "megatron", "use_kl_loss": True},
            "ref": {"strategy": "${actor_rollout_ref.actor.strategy}"},
        }
    )
    cfg = {"actor_rollout_ref": arr, "critic": {"strategy": "fsdp"}}
    assert megatron_components(cfg) == ("actor_rollout_ref.actor", "actor_rollout_ref.ref")
