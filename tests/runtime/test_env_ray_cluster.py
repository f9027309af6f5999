"""A real two-node Ray cluster and drivers started with get_ppo_ray_runtime_env(...): what
do workers see?

One local Ray cluster -- a head node and a second node, one CPU each, no dashboard -- is
started for the module with ``ray.cluster_utils.Cluster`` in a clean environment, and
shut down after. The second node's raylet has its own ``NCCL_CUMEM_ENABLE=1`` (as a
node image may), which its workers inherit unless the runtime_env overrides it. Each case
connects a new driver with ``ray.init(address=..., runtime_env=...)`` -- a runtime_env is
fixed per job, i.e. per ``ray.init`` -- runs one remote task that reports ``os.environ``,
and disconnects. Nothing is mocked.

Because the node was started before the test set anything in the driver's environment,
it stands in for a remote node that never saw the driver's shell: only the runtime_env
can carry a value to its workers. (A node started by ``ray.init`` itself would inherit
the driver's environment and hide what forwarding does.) Connecting a driver to a
running cluster also keeps the module at a few seconds per case instead of a full
cluster start per case.
"""

from __future__ import annotations

import json
import os

import pytest
from ppo_runtime import (
    ALWAYS_FORWARDED_ENV_VARS,
    BASE_ENV_VARS,
    FORWARDED_WHEN_SET_ENV_VARS,
    RAY_JOB_CONFIG_JSON_ENV_VAR,
    get_ppo_ray_runtime_env,
)

#: one two-node Ray cluster for the module: its tests share one worker (pytest-xdist)
pytestmark = pytest.mark.xdist_group("ray-cluster")

ray = pytest.importorskip("ray")

CUDA = "CUDA_DEVICE_MAX_CONNECTIONS"
NAMES = (
    *BASE_ENV_VARS,
    CUDA,
    "NCCL_CUMEM_ENABLE",
    *ALWAYS_FORWARDED_ENV_VARS,
    *FORWARDED_WHEN_SET_ENV_VARS,
)


@ray.remote(num_cpus=0)
def _worker_environ(names):
    return {name: os.environ.get(name) for name in names}


@pytest.fixture(scope="module")
def cluster():
    """A local Ray cluster started without any of the managed variables in its environment."""
    from ray.cluster_utils import Cluster

    with pytest.MonkeyPatch.context() as mp:
        for name in (*NAMES, RAY_JOB_CONFIG_JSON_ENV_VAR):
            mp.delenv(name, raising=False)
        head = Cluster(
            initialize_head=True,
            head_node_args={"num_cpus": 1, "include_dashboard": False, "resources": {"head": 1}},
        )
        head.add_node(
            num_cpus=1, resources={"second": 1}, env_vars={"NCCL_CUMEM_ENABLE": "1"}
        )
        head.wait_for_nodes()
    try:
        yield head
    finally:
        if ray.is_initialized():
            ray.shutdown()
        head.shutdown()


@pytest.fixture
def seen_by_worker(cluster):
    """``seen_by_worker(runtime_env, node="head")``: the managed variables as a Ray worker
    on that node (``"head"`` or ``"second"``) sees them."""

    def run(runtime_env, node="head"):
        assert not ray.is_initialized()
        ray.init(address=cluster.address, runtime_env=runtime_env, log_to_driver=False)
        try:
            task = _worker_environ.options(resources={node: 1})
            return ray.get(task.remote(NAMES), timeout=120)
        finally:
            ray.shutdown()

    return run


def test_megatron_on_hopper_worker_sees_1(seen_by_worker, megatron_cfg):
    env = get_ppo_ray_runtime_env(megatron_cfg, device_capability=(9, 0))
    assert env["working_dir"] is None  # ray.init accepts the dict as is
    seen = seen_by_worker(env)
    assert seen[CUDA] == "1"
    assert {k: seen[k] for k in BASE_ENV_VARS} == dict(BASE_ENV_VARS)


def test_megatron_on_blackwell_worker_sees_nothing(seen_by_worker, megatron_cfg):
    seen = seen_by_worker(get_ppo_ray_runtime_env(megatron_cfg, device_capability=(10, 0)))
    assert seen[CUDA] is None
    assert seen["NCCL_CUMEM_ENABLE"] is None  # no longer forced (verl #5522)


def test_fsdp_worker_sees_nothing(seen_by_worker, fsdp_cfg):
    seen = seen_by_worker(get_ppo_ray_runtime_env(fsdp_cfg, device_capability=(9, 0)))
    assert seen[CUDA] is None
    assert seen["TOKENIZERS_PARALLELISM"] == "true"


def test_driver_nccl_debug_reaches_the_worker(seen_by_worker, fsdp_cfg, monkeypatch):
    monkeypatch.setenv("NCCL_DEBUG", "INFO")
    assert seen_by_worker(get_ppo_ray_runtime_env(fsdp_cfg))["NCCL_DEBUG"] == "INFO"


def test_without_forwarding_the_driver_value_is_lost(seen_by_worker, fsdp_cfg, monkeypatch):
    # Upstream behaviour (forward_driver_env=False): a node that does not inherit the
    # driver's shell sees neither the user's INFO nor the WARN default.
    monkeypatch.setenv("NCCL_DEBUG", "INFO")
    env = get_ppo_ray_runtime_env(fsdp_cfg, forward_driver_env=False)
    assert seen_by_worker(env)["NCCL_DEBUG"] is None


def test_job_runtime_env_merges_without_conflict(seen_by_worker, megatron_cfg, monkeypatch):
    # As under `ray job submit --runtime-env-json '{"env_vars": {"NCCL_DEBUG": "INFO"}}'`:
    # the job config is in RAY_JOB_CONFIG_JSON_ENV_VAR and the driver's shell has the var.
    monkeypatch.setenv(
        RAY_JOB_CONFIG_JSON_ENV_VAR,
        json.dumps({"runtime_env": {"env_vars": {"NCCL_DEBUG": "INFO"}}}),
    )
    monkeypatch.setenv("NCCL_DEBUG", "INFO")
    env = get_ppo_ray_runtime_env(megatron_cfg, device_capability=(9, 0))
    assert "NCCL_DEBUG" not in env["env_vars"]
    seen = seen_by_worker(env)
    assert seen["NCCL_DEBUG"] == "INFO"  # from the job's runtime_env
    assert seen[CUDA] == "1"


def test_repeating_a_job_variable_is_what_ray_refuses(cluster, monkeypatch):
    # Why job variables are left out: Ray will not merge two runtime_envs that set the
    # same variable (ray.init fails before connecting).
    monkeypatch.setenv(
        RAY_JOB_CONFIG_JSON_ENV_VAR,
        json.dumps({"runtime_env": {"env_vars": {"NCCL_DEBUG": "INFO"}}}),
    )
    with pytest.raises(ValueError, match="Failed to merge"):
        ray.init(address=cluster.address, runtime_env={"env_vars": {"NCCL_DEBUG": "INFO"}})
    if ray.is_initialized():
        ray.shutdown()


# --- the node the driver did not start ----------------------------------------------------


def test_second_node_sees_determinism_keeps_its_own_cumem_and_gets_cuda(
    seen_by_worker, megatron_cfg, monkeypatch
):
    # verl's main_ppo sets these in the driver just before the call.
    monkeypatch.setenv("VERL_FULL_DETERMINISM", "1")
    monkeypatch.setenv("VLLM_BATCH_INVARIANT", "1")
    monkeypatch.setenv("PYTHONHASHSEED", "42")
    seen = seen_by_worker(get_ppo_ray_runtime_env(megatron_cfg, device_capability=(9, 0)), "second")
    assert (seen["VERL_FULL_DETERMINISM"], seen["VLLM_BATCH_INVARIANT"]) == ("1", "1")
    assert (seen["PYTHONHASHSEED"], seen["VERL_RL_INSIGHT_ENABLE"]) == ("42", "0")
    assert seen["NCCL_CUMEM_ENABLE"] == "1"  # the node's own value
    assert seen[CUDA] == "1"  # Megatron actor, ref and critic built, on 9.0


def test_second_node_megatron_fsdp_grpo_gets_no_cuda(seen_by_worker, megatron_cfg):
    megatron_cfg.actor_rollout_ref.actor.megatron.use_megatron_fsdp = True
    megatron_cfg.actor_rollout_ref.actor.use_kl_loss = False
    megatron_cfg.algorithm.adv_estimator = "grpo"
    seen = seen_by_worker(get_ppo_ray_runtime_env(megatron_cfg, device_capability=(9, 0)), "second")
    assert seen[CUDA] is None
    assert seen["VERL_FULL_DETERMINISM"] == "0"
    assert seen["NCCL_CUMEM_ENABLE"] == "1"


def test_the_plain_constant_is_accepted_by_ray_init(seen_by_worker):
    # Older trainers do ray.init(runtime_env=PPO_RAY_RUNTIME_ENV); a read-only mapping failed.
    from ppo_runtime import PPO_RAY_RUNTIME_ENV

    seen = seen_by_worker(PPO_RAY_RUNTIME_ENV, "second")
    assert {k: seen[k] for k in BASE_ENV_VARS} == dict(BASE_ENV_VARS)
