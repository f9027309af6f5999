"""PPO006 runtime-function-reference: get_ppo_ray_runtime_env is used as a value whose calls cannot be checked.

The rule's record (:class:`ppo_migrate.rules.codes.rule.Rule`): its name, texts, example and fix
safety, from which ``docs/rules/PPO006.md`` is generated (``python -m ppo_migrate.rules_doc --write
docs``).
"""

from ppo_migrate.rules.codes.rule import Rule

_FIX_SAFETY = (
    "No fix: whoever calls the value decides what it is given, and no rewrite of the "
    "reference can see those calls."
)

RULE = Rule(
    "PPO006",
    "runtime-function-reference",
    "get_ppo_ray_runtime_env is used as a value whose calls cannot be checked",
    "Finds a reference to the runtime function that is neither a call nor a plain "
    "alias: `functools.partial(get_ppo_ray_runtime_env)`, a default argument "
    "`factory=get_ppo_ray_runtime_env`, a callback passed to another function, a value "
    "stored in a dict or an attribute. A plain alias (`make_env = "
    "get_ppo_ray_runtime_env`, chains of them too) is followed: its calls are checked "
    "and fixed like direct calls; introspection (`inspect.signature(f)`, "
    "`f.__code__`, `callable(f)`, comparisons) is no use of the function and is not "
    "reported, nor is a write of its code or defaults (`setattr(f, \"__code__\", "
    "g.__code__)`, like `f.__code__ = g.__code__`): that replaces the function, and "
    "makes the fixes of its calls unsafe. `operator.methodcaller(\"get_ppo_ray_runtime_env\")` "
    "(by any name bound to it: `from operator import methodcaller as mc`, `import operator "
    "as op`) made without a config and stored or passed (`f = methodcaller(...)`, "
    "`map(methodcaller(...), mods)`) is such a value too: it calls the function on whatever "
    "it is applied to, at call sites the tool cannot pin to one; applied at once "
    "(`methodcaller(\"get_ppo_ray_runtime_env\")(cp)`) it is a call (PPO001), fixed inside "
    "`methodcaller(...)`.\n\n"
    "The function named by its qualified name in a string is such a value too: a Hydra "
    "`_target_` in a YAML file of the analysed paths (`*.yaml`, `*.yml`; at any depth, "
    "in lists and flow mappings too), whose node `hydra.utils.call(node)` calls and "
    "`hydra.utils.instantiate(node)` calls or, with `_partial_: true`, returns as a "
    "partial, with the node's other keys only; and in Python a `{\"_target_\": "
    "\"...\"}` entry, a `_target_=` keyword (`dict(_target_=...)`) or the first "
    "argument of `hydra.utils.call/instantiate/get_method/get_object/get_class` or "
    "`pydoc.locate`. The names are verl's (`verl.trainer.constants_ppo."
    "get_ppo_ray_runtime_env`, the other targets) and each name the project's own "
    "re-exports give the function (`mypkg.get_env` where `mypkg/__init__.py` imports "
    "it; a `_target_`'s module counts as imported). The finding is at the YAML value; "
    "`# noqa: PPO006` on its line suppresses it, and `check --add-noqa` appends that "
    "comment where the file still loads the same. A YAML file is read only when it "
    "names the function; one that is no YAML is skipped, never reported; `apply` "
    "never writes it. A string given to a patcher (`mock.patch(\"...\")`, "
    "`monkeypatch.setattr(\"...\", f)`) is a test double, not a reference.\n\n"
    "An entry point the project declares naming the function is such a value too: "
    "`[project.scripts]`, `[project.gui-scripts]` and `[project.entry-points.\"group\"]` "
    "of `pyproject.toml` (Poetry's `[tool.poetry.scripts]`, a string or a table's "
    "`reference` or `callable`, and `[tool.poetry.plugins]` too; a value with `\\u` "
    "escapes is read decoded, as `tomllib` reads it), `[options.entry_points]` of "
    "`setup.cfg`, and `setup(entry_points=...)` in `setup.py` (a dict of lists of "
    "`\"name = module:attr\"` strings, a dict bound once at module level, "
    "`setup(**kw)` with such a dict, or the INI string form; `setup` by any name its "
    "import binds; strings folded from module-level string constants: `\"b = \" + EP`, "
    "`f\"b = {EP}\"`; a value built otherwise whose text spells the function's name is "
    "reported as \"cannot tell\"), with the value "
    "`verl.trainer.constants_ppo:get_ppo_ray_runtime_env` or `module:attr` of one of the "
    "project's re-exports (the entry point's module counts as imported). Whatever loads "
    "it (`entry_points(group=...)[name].load()()`, a plugin host) calls it with "
    "arguments of its own choosing, and the wrapper of a script with none: no edit of "
    "the source can pass a config there. The finding is at the value (a multi-line TOML "
    "string from its key's line to its closing quotes); `# noqa: PPO006` "
    "after it suppresses it in `pyproject.toml` (on the key's line or after the closing "
    "quotes) and `setup.py` (in `setup.cfg` a "
    "comment after a value is part of it, so none is read there); `apply` never writes "
    "a packaging file, and `--add-noqa` writes only `setup.py`'s comment (Python). Discovery collects `pyproject.toml` "
    "and `setup.cfg` beside the Python files (the same excludes); one that does not "
    "name the function is not parsed.\n\n"
    "Whoever calls the function through such a value decides whether it gets the "
    "config, and no static rule can follow every such call: a configless call hidden "
    "there loses CUDA_DEVICE_MAX_CONNECTIONS on Megatron runs (verl PR #6976) exactly "
    "like a direct one, while the lint would pass.",
    "Pass the config where the value is called (`factory(config)`, "
    "`functools.partial(get_ppo_ray_runtime_env, config)`), or call the function "
    "directly; then mark the reference `# noqa: PPO006`. For a Hydra `_target_`, "
    "pass the config where the node is called (`hydra.utils.call(node, config=config)`, "
    "`make_env(config)` for a `_partial_` one) and mark the YAML line "
    "`# noqa: PPO006`. For a stored `methodcaller`, pass the config inside it "
    "(`methodcaller(\"get_ppo_ray_runtime_env\", config)`) where it is applied to verl's "
    "module. For an entry point, have the loader pass the config, or declare a "
    "function of the project that obtains the training config and passes it (a script "
    "gets no arguments); its finding's help line says which.",
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def start(config, factory=get_ppo_ray_runtime_env):  # PPO006\n"
    "    return factory()\n\n\n"
    "make_env = get_ppo_ray_runtime_env  # an alias: followed, not reported\n\n\n"
    "def run(config):\n"
    "    return make_env()  # PPO001, like a direct call\n\n\n"
    "# file: conf/config.yaml\n"
    "ray:  # hydra.utils.call(config.ray.runtime_env) calls it with no config\n"
    "  runtime_env:\n"
    "    _target_: verl.trainer.constants_ppo.get_ppo_ray_runtime_env  # PPO006\n\n\n"
    "# file: pyproject.toml\n"
    "[project.entry-points.\"proj.runtime_envs\"]  # .load()() passes no config\n"
    "ray = \"verl.trainer.constants_ppo:get_ppo_ray_runtime_env\"  # PPO006\n",
    fix_safety=_FIX_SAFETY,
)
