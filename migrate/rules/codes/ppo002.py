"""PPO002 configless-call-without-config: get_ppo_ray_runtime_env() is called where no training config is in scope.

The rule's record (:class:`ppo_migrate.rules.codes.rule.Rule`): its name, texts, example and fix
safety, from which ``docs/rules/PPO002.md`` is generated (``python -m ppo_migrate.rules_doc --write
docs``).
"""

from ppo_migrate.rules.codes.rule import Rule
from ppo_migrate.rules.codes.texts import EFFECT

_FIX_SAFETY = (
    "No fix, neither safe nor unsafe: nothing at the call holds a training config, and where "
    "it should come from is a decision no rewrite can make. `ppo-migrate apply "
    "--thread-config` adds a `config=None` parameter and passes the config from callers that "
    "have one, only where every call of the function can be found and changed; otherwise "
    "the PPO002 says why the function cannot be threaded."
)

_WHY = (
    "Nothing at the call holds the training config, so whatever this entry point starts "
    "(a Ray cluster for a server, a script, a test) always gets the runtime_env of a "
    "configless call, whatever strategy the run is configured with. " + EFFECT + " A test "
    "written this way only ever checks the non-Megatron environment. No rewrite can be "
    "made safely: someone must decide where the config comes from (a parameter, a loaded "
    "file, a caller that has it)."
)

RULE = Rule(
    "PPO002",
    "configless-call-without-config",
    "get_ppo_ray_runtime_env() is called where no training config is in scope",
    "Finds a configless call of the runtime function where no training config is "
    "visible: an entry point (a server's init_ray(address), a test, a script) "
    "that must obtain the config before it can pass it. A `python -c` string of "
    "`pyproject.toml` (a task runner's command: pdm's or poe's `cmd`, hatch's `scripts`) "
    "that calls it is judged as a module and reported at the call in the string, with no "
    "fix (the command is not rewritten).\n\n" + _WHY,
    "Give the enclosing function the training config (a parameter, or load it) "
    "and pass it: get_ppo_ray_runtime_env(config). Where the caller has it, "
    "`ppo-migrate apply --thread-config` threads it through.",
    "import ray\n"
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def init_ray(address):\n"
    "    ray.init(address, runtime_env=get_ppo_ray_runtime_env())  # PPO002\n\n\n"
    "def init_ray_fixed(address, config):\n"
    "    ray.init(address, runtime_env=get_ppo_ray_runtime_env(config))  # fixed\n",
    fix_safety=_FIX_SAFETY,
)
