from omegaconf import OmegaConf

import pkg


def launch(config):
    return pkg.get_ppo_ray_runtime_env()


if __name__ == "__main__":
    print("ran", launch(OmegaConf.create({"trainer": 2})))
