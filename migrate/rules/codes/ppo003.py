"""PPO003 ambiguous-runtime-env-callee: the callee may or may not be get_ppo_ray_runtime_env.

The rule's record (:class:`ppo_migrate.rules.codes.rule.Rule`): its name, texts, example and fix
safety, from which ``docs/rules/PPO003.md`` is generated (``python -m ppo_migrate.rules_doc --write
docs``).
"""

from ppo_migrate.rules.codes.rule import Rule

_FIX_SAFETY = (
    "No fix: on some paths the callee is not the runtime function, and passing a config "
    "to it may raise TypeError where the call runs today."
)

_WHY = (
    "Which function runs depends on which import or definition succeeded at run time. If it "
    "is verl's, the call is configless and has the cost of PPO001/PPO002 (" + "the Megatron "
    "variable is dropped on pre-Blackwell GPUs"  + "); if it is the fallback, passing a config "
    "may raise TypeError where the call runs today. Neither rewriting nor leaving it is "
    "certainly right, so a person must decide, and until then the environment a run gets "
    "depends on what is installed."
)

RULE = Rule(
    "PPO003",
    "ambiguous-runtime-env-callee",
    "the callee may or may not be get_ppo_ray_runtime_env",
    "Finds a configless call whose callee is bound conditionally: on one path it is "
    "the runtime function, on another something else (a local fallback, another "
    "module's function). ppo-migrate does not rewrite it, because passing a config "
    "to the other function may be wrong. So is a call read through a module of the "
    "project whose module `__getattr__` cannot be read (`import pkg; "
    "pkg.get_ppo_ray_runtime_env()` or `from pkg import get_ppo_ray_runtime_env`, where "
    "`pkg/__init__.py` computes the module it returns the name from: "
    "`import_module(f\"._impl_{VERSION}\", __name__)`, `getattr(_backend(), name)`, "
    "lazy_loader's `attach`): the message names the hook; a literal lazy-import table "
    "(`_LAZY = {\"get_ppo_ray_runtime_env\": \"verl.trainer.constants_ppo\"}`) is read "
    "as a plain re-export instead. "
    "It also finds a call whose callee the tool reads "
    "but cannot follow with certainty, and says which form: `functools.reduce(getattr, "
    "[\"trainer\", \"constants_ppo\", \"get_ppo_ray_runtime_env\"], verl)()`, "
    "`inspect.getattr_static(constants_ppo, \"get_ppo_ray_runtime_env\")()`, and "
    "`cp.get_ppo_ray_runtime_env()` with `cp = lazy_import(\"verl.trainer.constants_ppo\")` "
    "bound once at module level to a function of the project given verl's module name (the "
    "`importlib.util.LazyLoader` recipe), naming the file and line that binds `cp`; and a "
    "function imported from a module of the project's name that a package registers in "
    "`sys.modules` as verl's module, or whose namespace is copied from verl's, naming that "
    "line. `operator.methodcaller(NAME)` applied to verl's module is such a form when its "
    "receiver is given unpacked (`methodcaller(FACTORY)(*[cp])`) or is a loop variable over "
    "a literal list, tuple or set holding the module (`[methodcaller(FACTORY)(m) for m in "
    "(cp,)]`), and when `NAME` holds the function's name on some paths only: assigned "
    "`\"get_ppo_ray_runtime_env\"` at module level and rebound under an `if`, a `try`, a loop "
    "or in a function under `global` (in the calling module or in the module it is imported "
    "from, `from pkg.names import FACTORY` or `names.FACTORY`), or assigned as an attribute "
    "in the calling file (`names.FACTORY = ...`); the message names the lines. So is "
    "`getattr(cp, NAME)()` with such a `NAME`. So are a name computed at run time from "
    "strings the tool reads, given to `getattr(cp, ...)`, `vars(cp)[...]` or "
    "`cp.__dict__[...]` (`\"get_ppo_ray_\" + \"runtime_env\"`, `f\"get_ppo_ray_{KIND}_env\"` "
    "with `KIND` a module constant, `\"_\".join([...])`, `\"x.get_ppo_ray_runtime_env\""
    ".partition(\".\")[2]`, an `Enum` member's `.value`); `m.get_ppo_ray_runtime_env()` with "
    "`m` a loop variable over a literal tuple holding verl's module; "
    "`importlib.import_module(os.environ.get(\"ENV_MOD\", \"verl.trainer.constants_ppo\"))"
    ".get_ppo_ray_runtime_env()`, whose module is decided at run time; and a configless call "
    "of a `*args` forwarder decorated with `@functools.wraps(get_ppo_ray_runtime_env)`, which "
    "the tool cannot fix without knowing each caller.\n\n" + _WHY,
    "Make the binding unambiguous, or pass the config by hand if both callees "
    "accept it; then suppress with `# noqa: PPO003` if needed.",
    "try:\n"
    "    from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
    "except ImportError:\n"
    "    def get_ppo_ray_runtime_env():\n"
    "        return {}\n"
    "get_ppo_ray_runtime_env()  # PPO003\n",
    fix_safety=_FIX_SAFETY,
)
