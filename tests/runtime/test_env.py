"""get_ppo_ray_runtime_env and explain_ppo_ray_runtime_env (issue 2, rules 1-6 and 8)."""

from __future__ import annotations

import copy
import json
import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from omegaconf import OmegaConf
from ppo_runtime import (
    BASE_ENV_VARS,
    PPO_RAY_RUNTIME_ENV,
    RAY_JOB_CONFIG_JSON_ENV_VAR,
    Reason,
    VariableDecision,
    explain_ppo_ray_runtime_env,
    get_ppo_ray_runtime_env,
    ppo_ray_runtime_env_report,
)

CUDA = "CUDA_DEVICE_MAX_CONNECTIONS"

#: verl 0.9.1's base set (verl/trainer/constants_ppo.py), in its order: no
#: NCCL_CUMEM_ENABLE since verl #5522, HSA_NO_SCRATCH_RECLAIM since #6062.
EXPECTED_BASE = {
    "TOKENIZERS_PARALLELISM": "true",
    "NCCL_DEBUG": "WARN",
    "VLLM_LOGGING_LEVEL": "WARN",
    "VLLM_ALLOW_RUNTIME_LORA_UPDATING": "true",
    "VLLM_DISABLE_COMPILE_CACHE": "1",
    "HCCL_HOST_SOCKET_PORT_RANGE": "auto",
    "HCCL_NPU_SOCKET_PORT_RANGE": "auto",
    "HSA_NO_SCRATCH_RECLAIM": "1",
}

#: The determinism variables verl writes on every call (driver value or "0").
DETERMINISM_DEFAULTS = {
    "VERL_FULL_DETERMINISM": "0",
    "VLLM_BATCH_INVARIANT": "0",
    "VERL_RL_INSIGHT_ENABLE": "0",
}

#: What a run gets with nothing set in the driver and no Megatron.
EXPECTED_DEFAULT = {**EXPECTED_BASE, **DETERMINISM_DEFAULTS}


# --- rule 1: base variables, read-only constant, fresh dicts --------------------------


def test_base_variables_exactly():
    assert dict(PPO_RAY_RUNTIME_ENV["env_vars"]) == EXPECTED_BASE
    assert list(PPO_RAY_RUNTIME_ENV["env_vars"]) == list(EXPECTED_BASE)
    assert dict(BASE_ENV_VARS) == EXPECTED_BASE
    assert list(PPO_RAY_RUNTIME_ENV) == ["env_vars"]


def test_no_config_gives_the_base_variables_and_no_working_dir():
    assert get_ppo_ray_runtime_env() == {"env_vars": EXPECTED_DEFAULT, "working_dir": None}


def test_constant_is_a_plain_dict_like_upstreams():
    # Older trainers pass it to ray.init, copy it, dump it or wrap it in OmegaConf.
    assert type(PPO_RAY_RUNTIME_ENV) is dict and type(PPO_RAY_RUNTIME_ENV["env_vars"]) is dict
    assert copy.deepcopy(PPO_RAY_RUNTIME_ENV) == {"env_vars": EXPECTED_BASE}
    assert json.loads(json.dumps(PPO_RAY_RUNTIME_ENV)) == {"env_vars": EXPECTED_BASE}
    assert OmegaConf.to_container(OmegaConf.create(PPO_RAY_RUNTIME_ENV)) == {
        "env_vars": EXPECTED_BASE
    }
    with pytest.raises(TypeError):
        BASE_ENV_VARS["X"] = "1"  # type: ignore[index]


def test_mutating_the_constant_changes_nothing_returned(monkeypatch):
    monkeypatch.setitem(PPO_RAY_RUNTIME_ENV["env_vars"], "NCCL_DEBUG", "TRACE")
    assert get_ppo_ray_runtime_env()["env_vars"]["NCCL_DEBUG"] == "WARN"


def test_mutating_a_returned_dict_changes_nothing(megatron_cfg):
    first = get_ppo_ray_runtime_env(megatron_cfg, device_capability=(9, 0))
    first["env_vars"]["NCCL_DEBUG"] = "TRACE"
    first["env_vars"].pop("TOKENIZERS_PARALLELISM")
    first["env_vars"]["NEW"] = "x"
    first["working_dir"] = "/tmp/elsewhere"
    second = get_ppo_ray_runtime_env(megatron_cfg, device_capability=(9, 0))
    assert second == {
        "env_vars": {**EXPECTED_BASE, CUDA: "1", **DETERMINISM_DEFAULTS},
        "working_dir": None,
    }
    assert second is not first and second["env_vars"] is not first["env_vars"]
    assert dict(PPO_RAY_RUNTIME_ENV["env_vars"]) == EXPECTED_BASE


def test_result_is_json_serialisable_plain_dicts(megatron_cfg):
    env = get_ppo_ray_runtime_env(megatron_cfg, device_capability=(9, 0))
    assert type(env) is dict and type(env["env_vars"]) is dict
    assert json.loads(json.dumps(env)) == env


# --- rule 2: CUDA_DEVICE_MAX_CONNECTIONS ------------------------------------------------


@pytest.mark.parametrize("capability", [(7, 0), (7, 5), (8, 0), (8, 6), (8, 9), (9, 0)])
def test_megatron_below_blackwell_gets_the_variable(megatron_cfg, capability):
    env = get_ppo_ray_runtime_env(megatron_cfg, device_capability=capability)
    assert env["env_vars"] == {**EXPECTED_BASE, CUDA: "1", **DETERMINISM_DEFAULTS}


@pytest.mark.parametrize("capability", [(10, 0), (10, 3), (12, 0)])
def test_megatron_on_blackwell_or_newer_does_not(megatron_cfg, capability):
    env = get_ppo_ray_runtime_env(megatron_cfg, device_capability=capability)
    assert env["env_vars"] == EXPECTED_DEFAULT


@pytest.mark.parametrize(
    "name", ["ppo_trainer.yaml", "ppo_veomni_trainer.yaml", "ppo_torchtitan_trainer.yaml"]
)
def test_non_megatron_trainers_never_get_it(load_config, name):
    env = get_ppo_ray_runtime_env(load_config(name), device_capability=(9, 0))
    assert env["env_vars"] == EXPECTED_DEFAULT


def test_megatron_fsdp_everywhere_does_not_get_it(megatron_cfg):
    for section in (
        megatron_cfg.actor_rollout_ref.actor,
        megatron_cfg.actor_rollout_ref.ref,
        megatron_cfg.critic,
    ):
        section.megatron.use_megatron_fsdp = True
    env = get_ppo_ray_runtime_env(megatron_cfg, device_capability=(9, 0))
    assert CUDA not in env["env_vars"]


def test_only_the_ref_on_megatron_gets_it(fsdp_cfg):
    fsdp_cfg.actor_rollout_ref.ref.strategy = "megatron"  # the PR's _uses_megatron missed this
    assert CUDA not in get_ppo_ray_runtime_env(fsdp_cfg, device_capability=(9, 0))["env_vars"]
    fsdp_cfg.actor_rollout_ref.actor.use_kl_loss = True  # now verl builds the ref
    env = get_ppo_ray_runtime_env(fsdp_cfg, device_capability=(9, 0))
    assert env["env_vars"][CUDA] == "1"


def test_only_a_legacy_reward_model_on_megatron_gets_it(fsdp_cfg):
    # A legacy config (no reward section): pre-0.9 verl ran the top-level reward model
    # with its strategy. With a reward section, verl 0.9.1 ignores it.
    fsdp_cfg.reward_model = {"enable": True, "strategy": "megatron"}
    assert CUDA not in get_ppo_ray_runtime_env(fsdp_cfg, device_capability=(8, 0))["env_vars"]
    del fsdp_cfg["reward"]
    env = get_ppo_ray_runtime_env(fsdp_cfg, device_capability=(8, 0))
    assert env["env_vars"][CUDA] == "1"


@settings(max_examples=60, deadline=None)
@given(
    major=st.integers(min_value=0, max_value=20),
    minor=st.integers(min_value=0, max_value=9),
    actor=st.sampled_from(["fsdp", "fsdp2", "megatron", "veomni", "torchtitan"]),
    critic=st.sampled_from(["fsdp", "megatron"]),
    critic_enabled=st.booleans(),
)
def test_variable_iff_megatron_and_major_below_10(major, minor, actor, critic, critic_enabled):
    cfg = {
        "actor_rollout_ref": {
            "actor": {"strategy": actor},
            "ref": {"strategy": "${actor_rollout_ref.actor.strategy}"},
        },
        "critic": {"strategy": critic, "enable": critic_enabled},
    }
    megatron = actor == "megatron" or (critic == "megatron" and critic_enabled)
    env = get_ppo_ray_runtime_env(cfg, device_capability=(major, minor))
    assert (CUDA in env["env_vars"]) == (megatron and major < 10)
    assert {k: v for k, v in env["env_vars"].items() if k != CUDA} == EXPECTED_DEFAULT


# --- rule 3 (the decision part): unknown capability warns once ---------------------


def test_megatron_with_unknown_capability_sets_it_and_warns_once(megatron_cfg, caplog):
    caplog.set_level(logging.WARNING, logger="ppo_runtime")
    env = get_ppo_ray_runtime_env(megatron_cfg, device_capability="unknown")
    assert env["env_vars"][CUDA] == "1"
    records = [r for r in caplog.records if r.name == "ppo_runtime"]
    assert len(records) == 1
    message = records[0].getMessage()
    assert records[0].levelno == logging.WARNING
    assert "actor_rollout_ref.actor, actor_rollout_ref.ref, critic" in message
    assert "unknown" in message
    assert "device_capability=(major, minor)" in message  # how to decide otherwise
    assert "Blackwell" in message and "Hopper" in message  # why


@pytest.mark.skipif(
    __import__("torch").cuda.is_available(), reason="needs a machine without a CUDA GPU"
)
def test_megatron_on_this_cpu_machine_probes_unknown_and_warns(megatron_cfg, caplog):
    caplog.set_level(logging.WARNING, logger="ppo_runtime")
    env = get_ppo_ray_runtime_env(megatron_cfg)
    assert env["env_vars"][CUDA] == "1"
    (record,) = [r for r in caplog.records if r.name == "ppo_runtime"]
    assert "torch.cuda.is_available() is False" in record.getMessage()


def test_no_warning_when_capability_known_or_no_megatron(megatron_cfg, fsdp_cfg, caplog):
    caplog.set_level(logging.DEBUG, logger="ppo_runtime")
    get_ppo_ray_runtime_env(megatron_cfg, device_capability=(9, 0))
    get_ppo_ray_runtime_env(megatron_cfg, device_capability=(10, 0))
    get_ppo_ray_runtime_env(fsdp_cfg, device_capability="unknown")
    assert [r for r in caplog.records if r.name == "ppo_runtime"] == []


def test_explain_does_not_log(megatron_cfg, caplog):
    caplog.set_level(logging.DEBUG, logger="ppo_runtime")
    decisions = explain_ppo_ray_runtime_env(megatron_cfg, device_capability="unknown")
    assert _by_name(decisions)[CUDA].reason is Reason.CAPABILITY_UNKNOWN
    assert [r for r in caplog.records if r.name == "ppo_runtime"] == []


# --- rule 4: the driver's environment ----------------------------------------------------


def test_driver_value_is_forwarded(monkeypatch, fsdp_cfg):
    monkeypatch.setenv("NCCL_DEBUG", "INFO")
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    env = get_ppo_ray_runtime_env(fsdp_cfg)
    assert env["env_vars"] == {
        **EXPECTED_DEFAULT,
        "NCCL_DEBUG": "INFO",
        "TOKENIZERS_PARALLELISM": "false",
    }


def test_driver_value_is_dropped_without_forwarding(monkeypatch, fsdp_cfg):
    monkeypatch.setenv("NCCL_DEBUG", "INFO")
    env = get_ppo_ray_runtime_env(fsdp_cfg, forward_driver_env=False)
    expected = dict(EXPECTED_DEFAULT)
    del expected["NCCL_DEBUG"]
    assert env["env_vars"] == expected


def test_driver_cuda_value_wins_over_the_megatron_default(monkeypatch, megatron_cfg, caplog):
    monkeypatch.setenv(CUDA, "8")
    caplog.set_level(logging.WARNING, logger="ppo_runtime")
    assert get_ppo_ray_runtime_env(megatron_cfg, device_capability=(9, 0))["env_vars"][CUDA] == "8"
    assert get_ppo_ray_runtime_env(megatron_cfg, device_capability=(9, 0))["env_vars"][CUDA] == "8"
    # Forwarded where Megatron needs 1: warned, once for the two calls.
    (record,) = caplog.records
    assert (record.name, record.levelno) == ("ppo_runtime", logging.WARNING)
    assert record.getMessage() == (
        "Forwarding CUDA_DEVICE_MAX_CONNECTIONS=8 from the driver's environment to every Ray "
        "worker, but Megatron in actor_rollout_ref.actor, actor_rollout_ref.ref, critic on "
        "compute capability 9.0 (given; < 10), which needs CUDA_DEVICE_MAX_CONNECTIONS=1 "
        "(Megatron-LM's validate_args asserts on it before Blackwell). Unset it or set it to 1 "
        "in the launching shell, or pass forward_driver_env=False."
    )
    caplog.clear()
    assert (
        CUDA
        not in get_ppo_ray_runtime_env(
            megatron_cfg, device_capability=(9, 0), forward_driver_env=False
        )["env_vars"]
    )
    # The user decided, so an unknown capability needs no warning; nor does Blackwell,
    # nor a driver value of 1.
    assert (
        get_ppo_ray_runtime_env(megatron_cfg, device_capability="unknown")["env_vars"][CUDA] == "8"
    )
    assert CUDA not in get_ppo_ray_runtime_env(megatron_cfg, device_capability=(10, 0))["env_vars"]
    monkeypatch.setenv(CUDA, "1")
    assert get_ppo_ray_runtime_env(megatron_cfg, device_capability=(8, 0))["env_vars"][CUDA] == "1"
    assert caplog.records == []


def test_driver_cuda_value_is_not_forwarded_when_not_needed(monkeypatch, fsdp_cfg):
    # Only variables this function would set are forwarded.
    monkeypatch.setenv(CUDA, "1")
    env = get_ppo_ray_runtime_env(fsdp_cfg, device_capability=(9, 0))
    assert CUDA not in env["env_vars"]
    (decision,) = [d for d in explain_ppo_ray_runtime_env(fsdp_cfg) if d.name == CUDA]
    assert decision.value is None and decision.reason is Reason.NO_MEGATRON
    assert "driver's environment sets CUDA_DEVICE_MAX_CONNECTIONS=1" in decision.detail


def test_empty_driver_value_is_forwarded_as_empty(monkeypatch):
    monkeypatch.setenv("VLLM_LOGGING_LEVEL", "")
    assert get_ppo_ray_runtime_env()["env_vars"]["VLLM_LOGGING_LEVEL"] == ""


# --- rule 5: working_dir and the Ray job config ------------------------------------------


def test_job_config_without_working_dir_gives_none(monkeypatch):
    monkeypatch.setenv(RAY_JOB_CONFIG_JSON_ENV_VAR, json.dumps({"runtime_env": {"pip": ["x"]}}))
    assert get_ppo_ray_runtime_env()["working_dir"] is None


def test_job_config_with_working_dir_leaves_it_to_the_job(monkeypatch):
    monkeypatch.setenv(
        RAY_JOB_CONFIG_JSON_ENV_VAR,
        json.dumps({"runtime_env": {"working_dir": "gcs://_ray_pkg_abc.zip"}}),
    )
    env = get_ppo_ray_runtime_env()
    assert "working_dir" not in env
    assert env["env_vars"] == EXPECTED_DEFAULT


@pytest.mark.parametrize("raw", ["{not json", "", "[1, 2]", '{"runtime_env": 3}'])
def test_malformed_job_config_raises_value_error_naming_the_variable(monkeypatch, raw):
    monkeypatch.setenv(RAY_JOB_CONFIG_JSON_ENV_VAR, raw)
    with pytest.raises(ValueError, match=RAY_JOB_CONFIG_JSON_ENV_VAR):
        get_ppo_ray_runtime_env()


def test_job_env_vars_are_left_to_the_job(monkeypatch, megatron_cfg):
    # `ray job submit --runtime-env-json '{"env_vars": {"NCCL_DEBUG": "INFO"}}'`: the job
    # supervisor puts the job's env_vars in the driver's environment *and* in the job
    # config. Forwarding it again would make ray.init refuse to merge the two runtime_envs.
    monkeypatch.setenv(
        RAY_JOB_CONFIG_JSON_ENV_VAR,
        json.dumps({"runtime_env": {"env_vars": {"NCCL_DEBUG": "INFO", CUDA: "1"}}}),
    )
    monkeypatch.setenv("NCCL_DEBUG", "INFO")
    monkeypatch.setenv(CUDA, "1")
    env = get_ppo_ray_runtime_env(megatron_cfg, device_capability=(9, 0))
    assert "NCCL_DEBUG" not in env["env_vars"] and CUDA not in env["env_vars"]
    reasons = {
        d.name: d.reason
        for d in explain_ppo_ray_runtime_env(megatron_cfg, device_capability=(9, 0))
    }
    assert reasons["NCCL_DEBUG"] is Reason.JOB_RUNTIME_ENV
    assert reasons[CUDA] is Reason.JOB_RUNTIME_ENV


# --- rule 6: config types ------------------------------------------------------------


def test_struct_mode_dictconfig(megatron_cfg):
    OmegaConf.set_struct(megatron_cfg, True)
    assert get_ppo_ray_runtime_env(megatron_cfg, device_capability=(9, 0))["env_vars"][CUDA] == "1"


def test_missing_keys_are_not_errors():
    assert get_ppo_ray_runtime_env({}, device_capability=(9, 0))["env_vars"] == EXPECTED_DEFAULT
    assert get_ppo_ray_runtime_env({"trainer": {"nnodes": 2}})["env_vars"] == EXPECTED_DEFAULT


def test_type_error_names_the_type():
    with pytest.raises(TypeError, match="tuple"):
        get_ppo_ray_runtime_env(("actor",))
    with pytest.raises(TypeError, match="ListConfig"):
        explain_ppo_ray_runtime_env(OmegaConf.create([1]))


def test_unresolvable_strategy_value_error_names_the_key():
    cfg = OmegaConf.create({"critic": {"strategy": "${model_engine}"}})
    with pytest.raises(ValueError, match=r"'critic\.strategy'"):
        get_ppo_ray_runtime_env(cfg)


# --- rule 8: explain ----------------------------------------------------------------


def _by_name(decisions):
    return {d.name: d for d in decisions}


def test_explain_covers_every_variable_in_order(fsdp_cfg):
    decisions = explain_ppo_ray_runtime_env(fsdp_cfg)
    assert isinstance(decisions, list)
    assert all(isinstance(d, VariableDecision) for d in decisions)
    assert [d.name for d in decisions] == [
        *EXPECTED_BASE,
        "NCCL_NVLS_ENABLE",
        "NCCL_MNNVL_ENABLE",
        "RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO",
        CUDA,
        "NVTX_INJECTION64_PATH",
        *DETERMINISM_DEFAULTS,
        "PYTHONHASHSEED",
        "CUBLAS_WORKSPACE_CONFIG",
        "FLASH_ATTENTION_DETERMINISTIC",
        "NCCL_DETERMINISTIC",
        "NCCL_ALGO",
    ]
    for d in decisions[: len(EXPECTED_BASE)]:
        assert d.value == EXPECTED_BASE[d.name]
        assert d.reason is Reason.BASE_DEFAULT
        assert d.included
    by_name = _by_name(decisions)
    for name in ("NCCL_NVLS_ENABLE", "RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO", "NVTX_INJECTION64_PATH"):
        assert (by_name[name].value, by_name[name].reason) == (None, Reason.NOT_APPLICABLE)
    for name in DETERMINISM_DEFAULTS:
        assert (by_name[name].value, by_name[name].reason) == ("0", Reason.DETERMINISM)
    assert (by_name["NCCL_ALGO"].value, by_name["NCCL_ALGO"].reason) == (None, Reason.NOT_APPLICABLE)
    cuda = by_name[CUDA]
    assert (cuda.value, cuda.reason, cuda.default, cuda.included) == (
        None,
        Reason.NO_MEGATRON,
        None,
        False,
    )


def test_explain_megatron_names_components_and_capability(megatron_cfg):
    cuda = _by_name(explain_ppo_ray_runtime_env(megatron_cfg, device_capability=(9, 0)))[CUDA]
    assert cuda.value == "1" and cuda.reason is Reason.MEGATRON
    assert cuda.detail == (
        "Megatron in actor_rollout_ref.actor, actor_rollout_ref.ref, critic "
        "on compute capability 9.0 (given; < 10)"
    )


def test_explain_blackwell(megatron_cfg):
    cuda = _by_name(explain_ppo_ray_runtime_env(megatron_cfg, device_capability=(10, 0)))[CUDA]
    assert (cuda.value, cuda.reason) == (None, Reason.CAPABILITY_10_OR_NEWER)
    assert "10.0" in cuda.detail


def test_explain_unknown_capability(megatron_cfg):
    cuda = _by_name(explain_ppo_ray_runtime_env(megatron_cfg, device_capability="unknown"))[CUDA]
    assert (cuda.value, cuda.reason) == ("1", Reason.CAPABILITY_UNKNOWN)
    assert "compute capability unknown" in cuda.detail


def test_explain_driver_forwarded_and_dropped(monkeypatch, fsdp_cfg):
    monkeypatch.setenv("NCCL_DEBUG", "INFO")
    fwd = _by_name(explain_ppo_ray_runtime_env(fsdp_cfg))["NCCL_DEBUG"]
    assert (fwd.value, fwd.reason, fwd.default) == ("INFO", Reason.DRIVER_FORWARDED, "WARN")
    dropped = _by_name(explain_ppo_ray_runtime_env(fsdp_cfg, forward_driver_env=False))[
        "NCCL_DEBUG"
    ]
    assert (dropped.value, dropped.reason, dropped.default) == (None, Reason.DRIVER_DROPPED, "WARN")
    assert "INFO" in dropped.detail


def test_explain_agrees_with_get(monkeypatch, megatron_cfg):
    monkeypatch.setenv("VLLM_LOGGING_LEVEL", "DEBUG")
    for cap in [(9, 0), (10, 0), "unknown"]:
        for forward in (True, False):
            env = get_ppo_ray_runtime_env(
                megatron_cfg, device_capability=cap, forward_driver_env=forward
            )
            decisions = explain_ppo_ray_runtime_env(
                megatron_cfg, device_capability=cap, forward_driver_env=forward
            )
            assert env["env_vars"] == {d.name: d.value for d in decisions if d.included}


def test_decisions_are_frozen_and_json_ready(fsdp_cfg):
    d = explain_ppo_ray_runtime_env(fsdp_cfg)[0]
    with pytest.raises(AttributeError):
        d.value = "x"  # type: ignore[misc]
    assert d.to_dict() == {
        "name": "TOKENIZERS_PARALLELISM",
        "value": "true",
        "included": True,
        "reason": "base-default",
        "detail": "set for every run (verl constants_ppo.py)",
        "default": "true",
    }
    assert str(Reason.DRIVER_FORWARDED) == "driver-forwarded"


def test_report(megatron_cfg):
    report = ppo_ray_runtime_env_report(megatron_cfg, device_capability=(9, 0))
    assert report.megatron_components == (
        "actor_rollout_ref.actor",
        "actor_rollout_ref.ref",
        "critic",
    )
    assert report.capability is not None and report.capability.capability == (9, 0)
    assert report.warning is None
    assert report.working_dir == f"{RAY_JOB_CONFIG_JSON_ENV_VAR} is not set"
    assert ppo_ray_runtime_env_report(None).capability is None  # nothing probed


# --- verl 0.9.1's platform rules -----------------------------------------------------------


def test_rocm_build_sets_the_ray_accelerator_override(monkeypatch):
    env = get_ppo_ray_runtime_env(rocm=True)
    assert env["env_vars"]["RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO"] == "0"
    assert "RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO" not in get_ppo_ray_runtime_env(rocm=False)["env_vars"]
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.version, "hip", "6.2.41133")  # read from torch.version.hip
    (d,) = [d for d in explain_ppo_ray_runtime_env() if d.name == "RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO"]
    assert (d.value, d.reason) == ("0", Reason.ROCM)
    assert "torch.version.hip=6.2.41133" in d.detail


@pytest.mark.parametrize(
    "capability, expected",
    [((10, 0), "0"), ((12, 0), "0"), ((9, 0), None), ("unknown", "0")],
)
def test_gb200_opt_in(monkeypatch, caplog, capability, expected):
    caplog.set_level(logging.WARNING, logger="ppo_runtime")
    assert "NCCL_NVLS_ENABLE" not in get_ppo_ray_runtime_env(device_capability=capability)["env_vars"]
    monkeypatch.setenv("TLLM_DISABLE_NVLS_MNNVL", "1")
    env = get_ppo_ray_runtime_env(device_capability=capability)["env_vars"]
    assert env.get("NCCL_NVLS_ENABLE") == expected
    assert env.get("NCCL_MNNVL_ENABLE") == expected
    warned = [r.getMessage() for r in caplog.records if r.name == "ppo_runtime"]
    assert len(warned) == (1 if capability == "unknown" else 0)


def test_gb200_opt_in_probes_the_device_without_megatron(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (10, 0))
    monkeypatch.setenv("TLLM_DISABLE_NVLS_MNNVL", "1")
    report = ppo_ray_runtime_env_report({"actor_rollout_ref": {"actor": {"strategy": "fsdp"}}})
    assert report.capability is not None and report.capability.capability == (10, 0)
    assert report.runtime_env["env_vars"]["NCCL_NVLS_ENABLE"] == "0"


# --- the torch-profiler fix -------------------------------------------------------------


def test_torch_profiler_sets_nvtx_over_the_driver_value_and_warns(monkeypatch, caplog):
    caplog.set_level(logging.WARNING, logger="ppo_runtime")
    monkeypatch.setenv("NVTX_INJECTION64_PATH", "/usr/local/cuda/lib64/libcupti.so")
    cfg = {"global_profiler": {"tool": "torch"}}
    env = get_ppo_ray_runtime_env(cfg)
    assert env["env_vars"]["NVTX_INJECTION64_PATH"] == "/nonexistent/verl-disabled-nvtx-injection.so"
    (record,) = [r for r in caplog.records if r.name == "ppo_runtime"]
    assert record.getMessage() == (
        "global_profiler.tool=torch: setting NVTX_INJECTION64_PATH="
        "/nonexistent/verl-disabled-nvtx-injection.so for all workers so Kineto can subscribe "
        "to CUPTI and record GPU kernels. Set VERL_KEEP_NVTX_INJECTION=1 to keep the inherited "
        "value (/usr/local/cuda/lib64/libcupti.so), at the cost of traces without CUDA activity."
    )


@pytest.mark.parametrize("tool, keep", [("nsys", "0"), (None, "0"), ("torch", "1")])
def test_nvtx_is_left_alone_otherwise(monkeypatch, tool, keep):
    monkeypatch.setenv("VERL_KEEP_NVTX_INJECTION", keep)
    monkeypatch.setenv("NVTX_INJECTION64_PATH", "/opt/libcupti.so")
    env = get_ppo_ray_runtime_env({"global_profiler": {"tool": tool}})
    assert "NVTX_INJECTION64_PATH" not in env["env_vars"]


def test_configless_call_loses_the_profiler_fix():
    # The second reason a configless call loses behaviour.
    assert "NVTX_INJECTION64_PATH" not in get_ppo_ray_runtime_env()["env_vars"]


# --- determinism --------------------------------------------------------------------------


def test_determinism_variables_are_read_at_call_time(monkeypatch):
    assert {k: get_ppo_ray_runtime_env()["env_vars"][k] for k in DETERMINISM_DEFAULTS} == (
        DETERMINISM_DEFAULTS
    )
    # verl's main_ppo sets these just before the call.
    monkeypatch.setenv("VERL_FULL_DETERMINISM", "1")
    monkeypatch.setenv("VLLM_BATCH_INVARIANT", "1")
    monkeypatch.setenv("PYTHONHASHSEED", "42")
    monkeypatch.setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    env = get_ppo_ray_runtime_env(forward_driver_env=False)["env_vars"]  # forwarded regardless
    assert env["VERL_FULL_DETERMINISM"] == "1" and env["VLLM_BATCH_INVARIANT"] == "1"
    assert env["VERL_RL_INSIGHT_ENABLE"] == "0"
    assert env["PYTHONHASHSEED"] == "42" and env["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
    assert "NCCL_ALGO" not in env and "FLASH_ATTENTION_DETERMINISTIC" not in env


def test_job_set_determinism_variable_is_left_to_the_job(monkeypatch):
    # Upstream writes it anyway and ray.init fails with "Failed to merge".
    monkeypatch.setenv(
        RAY_JOB_CONFIG_JSON_ENV_VAR,
        json.dumps({"runtime_env": {"env_vars": {"VERL_FULL_DETERMINISM": "1", "NCCL_ALGO": "Ring"}}}),
    )
    monkeypatch.setenv("VERL_FULL_DETERMINISM", "1")
    monkeypatch.setenv("NCCL_ALGO", "Ring")
    env = get_ppo_ray_runtime_env()["env_vars"]
    assert "VERL_FULL_DETERMINISM" not in env and "NCCL_ALGO" not in env
    assert env["VLLM_BATCH_INVARIANT"] == "0"


# --- MindSpeed (verl #7040, kept) ----------------------------------------------------------


@pytest.mark.parametrize("capability", [(9, 0), (10, 0), "unknown"])
def test_mindspeed_sets_it_at_any_capability(capability, caplog):
    caplog.set_level(logging.WARNING, logger="ppo_runtime")
    cfg = {"actor_rollout_ref": {"actor": {"strategy": "mindspeed"}}}
    env = get_ppo_ray_runtime_env(cfg, device_capability=capability)
    assert env["env_vars"][CUDA] == "1"
    assert _by_name(explain_ppo_ray_runtime_env(cfg))[CUDA].reason is Reason.MINDSPEED
    assert caplog.records == []  # no capability needed, so no warning


def test_unbuilt_mindspeed_critic_does_not_count():
    cfg = {"critic": {"strategy": "mindspeed"}, "algorithm": {"adv_estimator": "grpo"}}
    assert CUDA not in get_ppo_ray_runtime_env(cfg, device_capability=(9, 0))["env_vars"]


def test_unused_megatron_critic_in_grpo_does_not_count(megatron_cfg):
    megatron_cfg.actor_rollout_ref.actor.megatron.use_megatron_fsdp = True
    megatron_cfg.actor_rollout_ref.actor.use_kl_loss = False
    megatron_cfg.algorithm.adv_estimator = "grpo"
    assert CUDA not in get_ppo_ray_runtime_env(megatron_cfg, device_capability=(9, 0))["env_vars"]
    megatron_cfg.critic.enable = True  # asked for: built, so it counts again
    assert get_ppo_ray_runtime_env(megatron_cfg, device_capability=(9, 0))["env_vars"][CUDA] == "1"


def test_each_distinct_warning_is_logged_once_per_process(megatron_cfg, fsdp_cfg, caplog):
    # What the docs promise: once per distinct message, not one warning per process.
    caplog.set_level(logging.WARNING, logger="ppo_runtime")
    fsdp_cfg.actor_rollout_ref.actor.strategy = "megatron"  # a second set of components
    for _ in range(3):
        get_ppo_ray_runtime_env(megatron_cfg, device_capability="unknown")
        get_ppo_ray_runtime_env(fsdp_cfg, device_capability="unknown")
    messages = [r.getMessage() for r in caplog.records if r.name == "ppo_runtime"]
    assert len(messages) == 2 and len(set(messages)) == 2
    assert "because actor_rollout_ref.actor, actor_rollout_ref.ref, critic run(s) Megatron" in messages[0]
    assert "because actor_rollout_ref.actor run(s) Megatron" in messages[1]


def test_report_reads_the_given_environ_instead_of_os_environ(monkeypatch, fsdp_cfg):
    # ppo-migrate env passes os.environ plus what verl main_ppo sets before the call.
    from ppo_runtime import ppo_ray_runtime_env_report

    monkeypatch.setenv("NCCL_DEBUG", "INFO")
    report = ppo_ray_runtime_env_report(
        fsdp_cfg, device_capability=(9, 0), rocm=False,
        environ={"VERL_FULL_DETERMINISM": "1", "PYTHONHASHSEED": "7"},
    )
    env_vars = report.runtime_env["env_vars"]
    assert (env_vars["VERL_FULL_DETERMINISM"], env_vars["PYTHONHASHSEED"], env_vars["NCCL_DEBUG"]) == ("1", "7", "WARN")
