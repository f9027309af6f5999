"""ppo-migrate: a LibCST codemod and lint for configless ``get_ppo_ray_runtime_env()`` calls."""

__version__ = "0.1.0"
