"""Messages trial 26h found false (WRONG rows): PPO003 called a module-level global "a local"
(``make_env = None`` at module level, set to the runtime function by ``global make_env`` in
``setup()``). The finding was right; its text now names the module-level statement."""

from __future__ import annotations

from ppo_migrate.rules.check import analyse
from ppo_migrate.settings_model import Settings

M = "train.py"

GLOBAL = '''\
from verl.trainer.constants_ppo import get_ppo_ray_runtime_env

make_env = None


def setup():
    global make_env
    make_env = get_ppo_ray_runtime_env


def main(config):
    setup()
    return make_env()
'''


def test_ppo003_names_a_module_global_by_its_statement() -> None:
    (diag,) = analyse(GLOBAL, M, Settings())
    assert (diag.code, diag.line, diag.fix) == ("PPO003", 13, None)
    assert diag.message == (
        "`make_env()` may or may not be the runtime function: it is bound to the module-level "
        "`make_env = None` (line 3) or verl.trainer.constants_ppo.get_ppo_ray_runtime_env; not rewritten"
    )


def test_ppo003_still_says_local_for_a_function_local() -> None:
    text = (
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
        "def main(config, flag):\n"
        "    if flag:\n        make_env = get_ppo_ray_runtime_env\n"
        "    else:\n        make_env = dict\n"
        "    return make_env()\n"
    )
    (diag,) = analyse(text, M, Settings())
    assert (diag.code, diag.line) == ("PPO003", 9)
    assert "it is bound to a local `make_env` or verl.trainer" in diag.message
