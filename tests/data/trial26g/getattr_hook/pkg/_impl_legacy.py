from verl.trainer.constants_ppo import get_ppo_ray_runtime_env  # noqa: F401
