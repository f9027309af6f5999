from omegaconf import OmegaConf

from pkg import get_ppo_ray_runtime_env


def launch(config):
    return get_ppo_ray_runtime_env()


if __name__ == "__main__":
    print("ran", launch(OmegaConf.create({"trainer": 2})))
