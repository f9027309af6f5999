"""Config-aware Ray runtime environment for PPO trainers (``import ppo_runtime``)."""
