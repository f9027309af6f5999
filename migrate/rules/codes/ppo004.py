"""PPO004 compatibility-shim: a configless call that only runs against a runtime function without parameters.

The rule's record (:class:`ppo_migrate.rules.codes.rule.Rule`): its name, texts, example and fix
safety, from which ``docs/rules/PPO004.md`` is generated (``python -m ppo_migrate.rules_doc --write
docs``).
"""

from ppo_migrate.rules.codes.rule import Rule

_FIX_SAFETY = (
    "No fix, and none is needed: a notice (listed only with `check --show-shims`) that never "
    "fails a run. The call runs only against a runtime function without parameters, where "
    "passing a config would raise TypeError."
)

_WHY = (
    "Not a problem on its own: the call is right for verl releases before PR #6976, whose "
    "function takes no config, and never runs on later ones. It is listed (only with "
    "`check --show-shims`) because a shim hides the migration: on a deployment still "
    "running an old verl, the runtime_env is whatever that release's function returns, "
    "whatever the config says; once every deployment runs a verl "
    "with PR #6976 the shim is dead code to delete."
)

RULE = Rule(
    "PPO004",
    "compatibility-shim",
    "a configless call that only runs against a runtime function without parameters",
    "Lists a configless call on the branch taken when the runtime function has no "
    "parameters (an `if` testing inspect.signature(...).parameters, "
    "__code__.co_argcount or inspect.getfullargspec(...).args, directly or through "
    "variables bound once: `params = inspect.signature(f).parameters` then "
    "`if not params:`), in an `except TypeError:` fallback whose `try` passes "
    "a config, or on the branch of an `if` testing which verl runs (`version(\"verl\")`, "
    "`verl.__version__`, `hasattr(module, ...)`, in the test or a helper of the module it "
    "calls) whose other branch passes a config. Such a call is right for old verl releases and never runs on new ones, "
    "so it is neither rewritten nor reported unless `check --show-shims` asks for it; "
    "it never changes the exit code.\n\n" + _WHY,
    "Nothing to fix. Remove the shim once every deployment runs verl with PR #6976.",
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def runtime_env(config):\n"
    "    try:\n"
    "        return get_ppo_ray_runtime_env(config)\n"
    "    except TypeError:  # verl before PR #6976\n"
    "        return get_ppo_ray_runtime_env()  # PPO004 (shown with --show-shims)\n",
    availability=(
        "Fix is not available. Informational: listed only with `check --show-shims`; "
        "never fails a run."
    ),
    fix_safety=_FIX_SAFETY,
)
