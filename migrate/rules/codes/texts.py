"""Texts several rules share: what a configless call costs (PPO001, PPO002), and the fix
safety of the file-level rules (PPO901-PPO904)."""

# What a configless call costs at run time; the facts and their sources:
# - verl PR #6976: get_ppo_ray_runtime_env(config) adds CUDA_DEVICE_MAX_CONNECTIONS=1 only
#   when a component runs Megatron on a GPU of compute capability below 10 (pre-Blackwell).
# - Megatron-LM megatron/training/arguments.py validate_args (run by initialize_megatron):
#   with tensor_model_parallel_size > 1 or context_parallel_size > 1 on compute capability
#   < 10, and neither Torch-FSDP2/Megatron-FSDP nor overlap_moe_expert_parallel_comm, it
#   asserts os.environ["CUDA_DEVICE_MAX_CONNECTIONS"] == "1" (an AssertionError at start-up).
# - megatron.core tensor_parallel/layers.py, which verl's Megatron workers use directly
#   (they never call validate_args): with sequence parallelism or async grad all-reduce it
#   only warns "it is recommended to set the environment variable
#   CUDA_DEVICE_MAX_CONNECTIONS to 1 for maximum speedup" and runs on, slower.
EFFECT = (
    "Without a config the function cannot see the strategy, so the workers of a Megatron run "
    "on a GPU of compute capability below 10 start without CUDA_DEVICE_MAX_CONNECTIONS=1 "
    "(verl PR #6976 made it conditional). What that costs depends on the setup. Fails "
    "loudly: a worker that goes through Megatron-LM's megatron.training (initialize_megatron "
    "-> validate_args) with tensor or context parallelism > 1, without Torch-FSDP2, "
    "Megatron-FSDP or overlap_moe_expert_parallel_comm: validate_args asserts the variable "
    "is 1 and the run stops at start-up with an AssertionError. Loses speed: verl's own "
    "Megatron workers, which build megatron.core models directly and never call "
    "validate_args; with sequence parallelism or async gradient all-reduce, megatron.core "
    "only warns that the variable is recommended \"for maximum speedup\": communication "
    "kernels are no longer queued in launch order ahead of the GEMMs they should overlap. Unaffected: FSDP and "
    "other non-Megatron strategies, and GPUs of compute capability 10 or more (Blackwell), "
    "where the requirement no longer exists."
)

SAFETY_NONE_FILE = "No fix: the file could not be analysed (or written); nothing in it is changed."


__all__ = ["EFFECT", "SAFETY_NONE_FILE"]
