"""Which components verl builds (verl/trainer/ppo/utils.py of verl 0.9.1), and why."""

from __future__ import annotations

import pytest
from omegaconf import OmegaConf
from ppo_runtime import decide_components, megatron_components, mindspeed_components


def _by_role(config):
    return {c.path: c for c in decide_components(config)}


# verl need_critic: enable when not null, else adv_estimator == "gae".
@pytest.mark.parametrize(
    "enable, adv, built, why",
    [
        (True, "grpo", True, "critic built: critic.enable is true"),
        (False, "gae", False, "critic not built: critic.enable is false"),
        (None, "gae", True, "critic built: enable is null and adv_estimator gae"),
        (None, "grpo", False, "critic not built: adv_estimator grpo"),
        (None, "reinforce_plus_plus", False, "critic not built: adv_estimator reinforce_plus_plus"),
        ("false", "gae", False, "critic not built: critic.enable is false"),
    ],
)
def test_critic_is_built_as_verl_need_critic_decides(enable, adv, built, why):
    cfg = OmegaConf.create(
        {"critic": {"strategy": "megatron", "enable": enable}, "algorithm": {"adv_estimator": adv}}
    )
    critic = _by_role(cfg)["critic"]
    assert (critic.built, critic.why) == (built, why)
    assert ("critic" in megatron_components(cfg)) is built


def test_critic_without_an_estimator_uses_verls_default_gae():
    critic = _by_role({"critic": {"strategy": "megatron"}})["critic"]
    assert critic.built
    assert critic.why == "critic built: enable is null and adv_estimator gae (verl's default)"


@pytest.mark.parametrize(
    "kl_loss, kl_reward, built",
    [(False, False, False), (True, False, True), (False, True, True), (True, True, True)],
)
def test_ref_is_built_as_verl_need_reference_policy_decides(kl_loss, kl_reward, built):
    cfg = {
        "actor_rollout_ref": {
            "actor": {"strategy": "fsdp", "use_kl_loss": kl_loss},
            "ref": {"strategy": "megatron"},
        },
        "algorithm": {"use_kl_in_reward": kl_reward},
    }
    assert _by_role(cfg)["actor_rollout_ref.ref"].built is built
    assert megatron_components(cfg) == (("actor_rollout_ref.ref",) if built else ())


def test_ref_has_its_own_megatron_fsdp_flag():
    # verl's megatron_ref.yaml does not interpolate use_megatron_fsdp from the actor.
    cfg = {
        "actor_rollout_ref": {
            "actor": {"strategy": "megatron", "use_kl_loss": True, "megatron": {"use_megatron_fsdp": True}},
            "ref": {"strategy": "megatron", "megatron": {"use_megatron_fsdp": False}},
        }
    }
    assert megatron_components(cfg) == ("actor_rollout_ref.ref",)
    cfg["actor_rollout_ref"]["ref"]["megatron"]["use_megatron_fsdp"] = True
    assert megatron_components(cfg) == ()


@pytest.mark.parametrize("path", ["reward_model", "reward.reward_model"])
@pytest.mark.parametrize(
    "enable, built, why",
    [(True, True, "built: {}.enable is true"), (False, False, "not built: {}.enable is false"),
     (None, False, "not built: {}.enable is null")],
)
def test_reward_model_is_built_only_when_enabled(path, enable, built, why):
    cfg = OmegaConf.create({})
    OmegaConf.update(cfg, path, {"strategy": "megatron", "enable": enable}, force_add=True)
    rm = _by_role(cfg)[path]
    assert (rm.built, rm.why) == (built, "reward model " + why.format(path))
    assert (path in megatron_components(cfg)) is built


def test_teacher_is_built_with_distillation_and_runs_no_training_engine():
    on = _by_role({"distillation": {"enabled": True}})["distillation"]
    off = _by_role({"distillation": {"enabled": False}})["distillation"]
    assert (on.built, on.role, on.engine.strategy, on.runs_megatron) == (True, "teacher", None, False)
    assert off.built is False and off.why == "teacher not built: distillation.enabled is not true"


def test_actor_is_always_built_unless_disabled():
    assert _by_role({"actor_rollout_ref": {"actor": {"strategy": "megatron"}}})[
        "actor_rollout_ref.actor"
    ].why == "actor built: verl always builds the actor"
    disabled = _by_role({"actor_rollout_ref": {"actor": {"strategy": "megatron", "enable": False}}})
    assert disabled["actor_rollout_ref.actor"].built is False


def test_mindspeed_components_are_the_built_ones():
    cfg = {
        "actor_rollout_ref": {"actor": {"strategy": "mindspeed"}},
        "critic": {"strategy": "mindspeed"},
        "algorithm": {"adv_estimator": "grpo"},
    }
    assert mindspeed_components(cfg) == ("actor_rollout_ref.actor",)


def test_megatron_fsdp_grpo_example_builds_no_megatron_component(load_config):
    # The shape of verl's Megatron-FSDP GRPO examples: megatron engine everywhere,
    # Megatron-FSDP actor, GRPO (no critic), no KL (no ref).
    cfg = load_config("ppo_megatron_trainer.yaml")
    cfg.algorithm.adv_estimator = "grpo"
    cfg.actor_rollout_ref.actor.use_kl_loss = False
    cfg.actor_rollout_ref.actor.megatron.use_megatron_fsdp = True
    components = _by_role(cfg)
    assert components["critic"].why == "critic not built: adv_estimator grpo"
    assert components["actor_rollout_ref.ref"].built is False
    assert components["actor_rollout_ref.actor"].engine_name == "megatron-fsdp"
    assert megatron_components(cfg) == ()


def test_none_config_builds_nothing():
    assert all(not c.built for c in decide_components(None))
    assert [c.role for c in decide_components(None)] == [
        "actor", "ref", "critic", "reward model", "reward model", "teacher"
    ]
