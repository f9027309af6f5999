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
        # the raw value's truth, as ``bool(config.critic.enable)`` (fresh user 44, W2)
        ("false", "gae", True, "critic built: critic.enable is 'false' (str), true to verl"),
        ("", "gae", False, "critic not built: critic.enable is '' (str), false to verl"),
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


@pytest.mark.parametrize(
    "enable, built, why",
    [(True, True, "built: reward_model.enable is true"), (False, False, "not built: reward_model.enable is false"),
     (None, False, "not built: reward_model.enable is null")],
)
def test_legacy_reward_model_is_built_only_when_enabled_and_its_strategy_counts(enable, built, why):
    # A legacy (pre-0.9) config: no reward section, a top-level reward_model whose
    # RewardModelWorker ran the configured strategy.
    cfg = OmegaConf.create({"reward_model": {"strategy": "megatron", "enable": enable}})
    rm = _by_role(cfg)["reward_model"]
    assert (rm.built, rm.why) == (built, "reward model " + why)
    assert ("reward_model" in megatron_components(cfg)) is built


@pytest.mark.parametrize(
    "enable, built, why",
    [
        (True, True, "built: reward.reward_model.enable is true (served by an inference server, never Megatron)"),
        (False, False, "not built: reward.reward_model.enable is false"),
        (None, False, "not built: reward.reward_model.enable is null"),
    ],
)
def test_reward_model_of_verl_0_9_is_an_inference_server_and_never_megatron(enable, built, why):
    # verl 0.9.1 RewardModelConfig has no strategy: the reward model runs on a rollout
    # server (RewardLoopManager), so even strategy: megatron there selects no engine.
    cfg = OmegaConf.create({"reward": {"reward_model": {"strategy": "megatron", "enable": enable}}})
    rm = _by_role(cfg)["reward.reward_model"]
    assert (rm.built, rm.why) == (built, "reward model " + why)
    assert megatron_components(cfg) == ()
    assert rm.describe() == rm.why  # no "strategy=megatron" shown for an inference server


def test_top_level_reward_model_is_ignored_when_the_config_has_a_reward_section():
    # verl 0.9.1 need_reward_model reads only config.reward.reward_model.enable.
    cfg = {
        "reward": {"reward_model": {"enable": False}},
        "reward_model": {"strategy": "megatron", "enable": True},
    }
    legacy = _by_role(cfg)["reward_model"]
    assert legacy.built is False
    assert legacy.why == (
        "reward model not built: the config has a reward section, so verl 0.9.1 reads only "
        "reward.reward_model.enable (only fully_async_main migrates the top-level reward_model)"
    )
    assert megatron_components(cfg) == ()
    del cfg["reward"]
    assert megatron_components(cfg) == ("reward_model",)


LORA_MODELS = [
    ({"lora": {"rank": 8}}, "actor_rollout_ref.model.lora.rank is 8"),
    ({"lora_rank": 16}, "actor_rollout_ref.model.lora_rank is 16"),
    ({"lora": {"rank": 0}, "lora_rank": 4}, "actor_rollout_ref.model.lora_rank is 4"),
    ({"lora_adapter_path": "/ckpt/adapter"}, "actor_rollout_ref.model.lora_adapter_path is '/ckpt/adapter'"),
]


@pytest.mark.parametrize(("model", "lora"), LORA_MODELS)
def test_lora_computes_the_ref_inside_the_actor_so_the_ref_never_counts(model, lora):
    # verl ref_in_actor (trainer_base.py ~234-237, 799-807; main_ppo_v0.py ~47).
    cfg = {
        "actor_rollout_ref": {
            "model": model,
            "actor": {"strategy": "fsdp", "use_kl_loss": True},
            "ref": {"strategy": "megatron"},
        },
    }
    ref = _by_role(cfg)["actor_rollout_ref.ref"]
    assert ref.built is False
    assert ref.why == (
        f"ref not built: actor_rollout_ref.actor.use_kl_loss is true, but {lora}, "
        "so verl computes the ref inside the actor (ref_in_actor)"
    )
    assert megatron_components(cfg) == ()


def test_lora_rank_zero_and_no_adapter_keep_the_separate_ref():
    cfg = {
        "actor_rollout_ref": {
            "model": {"lora": {"rank": 0}, "lora_rank": 0, "lora_adapter_path": None},
            "actor": {"strategy": "fsdp", "use_kl_loss": True},
            "ref": {"strategy": "megatron"},
        },
    }
    assert megatron_components(cfg) == ("actor_rollout_ref.ref",)


BAD_VALUES = [
    (
        {"actor_rollout_ref": {"actor": {"strategy": "megatron", "megatron": {"use_megatron_fsdp": "maybe"}}}},
        "actor_rollout_ref.actor.megatron.use_megatron_fsdp: expected true, false or null, got 'maybe' (str)",
    ),
    ({"critic": "megatron"}, "critic: expected a mapping (a config section), got 'megatron' (str)"),
    ({"actor_rollout_ref": ["megatron"]}, "actor_rollout_ref: expected a mapping (a config section), got ['megatron'] (list)"),
    ({"actor_rollout_ref": {"actor": {"strategy": 5}}}, "actor_rollout_ref.actor.strategy: expected a string, got 5 (int)"),
    ({"critic": {"strategy": ["megatron"]}}, "critic.strategy: expected a string, got ['megatron'] (list)"),
    ({"algorithm": {"adv_estimator": 3}}, "algorithm.adv_estimator: expected a string, got 3 (int)"),
    ({"distillation": True}, "distillation: expected a mapping (a config section), got True (bool)"),
    (
        {"actor_rollout_ref": {"actor": {"use_kl_loss": "perhaps"}}},
        "actor_rollout_ref.actor.use_kl_loss: expected true, false or null, got 'perhaps' (str)",
    ),
    (
        {"actor_rollout_ref": {"model": {"lora_rank": "8"}, "actor": {"use_kl_loss": True}}},
        "actor_rollout_ref.model.lora_rank: expected an integer LoRA rank, got '8' (str)",
    ),
]


@pytest.mark.parametrize("as_omegaconf", [False, True])
@pytest.mark.parametrize(("cfg", "message"), BAD_VALUES)
def test_bad_values_raise_naming_the_key_instead_of_a_guess(cfg, message, as_omegaconf):
    config = OmegaConf.create(cfg) if as_omegaconf else cfg
    with pytest.raises(ValueError) as err:
        decide_components(config)
    assert str(err.value) == message


@pytest.mark.parametrize("value, enabled", [(True, True), ("false", True), ("", False), ("True", True), (0, False), (1, True), (None, True)])
def test_enable_values_count_by_their_truth_as_verl_reads_them(value, enabled):
    cfg = {"actor_rollout_ref": {"actor": {"strategy": "megatron", "enable": value}}}
    assert (megatron_components(cfg) == ("actor_rollout_ref.actor",)) is enabled


def test_strategy_compare_stays_exact_case_as_verl():
    assert megatron_components({"actor_rollout_ref": {"actor": {"strategy": "Megatron"}}}) == ()


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


@pytest.mark.parametrize(
    ("enable", "built", "told"),
    [
        ("false", True, "critic.enable is 'false' (str), true to verl"),
        ("0", True, "critic.enable is '0' (str), true to verl"),
        ("no", True, "critic.enable is 'no' (str), true to verl"),
        ("", False, "critic.enable is '' (str), false to verl"),
        (0, False, "critic.enable is 0 (int), false to verl"),
        (2, True, "critic.enable is 2 (int), true to verl"),
        (False, False, "critic.enable is false"),
        (True, True, "critic.enable is true"),
    ],
)
def test_enable_read_as_verl_reads_it(enable, built, told):
    """fresh user 44, W2: verl 0.9.1 ``need_critic`` is ``bool(config.critic.enable)`` on the raw
    value, so a quoted YAML ``"false"`` builds the critic there; reading it as YAML's false left a
    Megatron critic verl builds without ``CUDA_DEVICE_MAX_CONNECTIONS``. The same truth decides
    ``reward.reward_model.enable`` (``need_reward_model``) and ``distillation.enabled``."""
    cfg = {
        "algorithm": {"adv_estimator": "grpo"},
        "actor_rollout_ref": {"actor": {"strategy": "fsdp"}},
        "critic": {"strategy": "megatron", "enable": enable},
    }
    (critic,) = [c for c in decide_components(cfg) if c.path == "critic"]
    assert critic.built is built
    assert told in critic.why
    assert megatron_components(cfg) == (("critic",) if built else ())
    reward = {"reward": {"reward_model": {"enable": enable}}}
    (rm,) = [c for c in decide_components(reward) if c.path == "reward.reward_model"]
    assert rm.built is built
    teacher = {"distillation": {"enabled": enable}}
    (t,) = [c for c in decide_components(teacher) if c.path == "distillation"]
    assert t.built is built
