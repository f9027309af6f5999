"""The config finder's vocabulary: the qualified names and words that are evidence for or
against a training config, and the records :class:`ppo_migrate.rules.configs.ConfigFinder`
answers with (:class:`ConfigChoice`, :class:`Why`).

The table of evidence these names serve is :mod:`ppo_migrate.rules.configs`' docstring
(and ``docs/rules/PPO001.md``).
"""

from __future__ import annotations

import ast
from typing import NamedTuple

from ppo_migrate.rules.scopes import Scope, ScopeKind
from ppo_migrate.diagnostics import CallerOrigin

#: Qualified names of omegaconf's ``DictConfig``.
DICTCONFIG_NAMES = frozenset({"omegaconf.DictConfig", "omegaconf.dictconfig.DictConfig"})
#: Annotations that say nothing against a config (``Any``, ``object``).
_OPEN_NAMES = frozenset({"typing.Any", "typing_extensions.Any", "object", "builtins.object"})
_WRAPPERS = frozenset(
    {"typing.Optional", "typing.Union", "typing.Annotated", "typing_extensions.Annotated",
     "typing_extensions.Optional", "typing_extensions.Union"}
)
#: Names a string annotation may spell and still say nothing against a config.
_OPEN_WORDS = frozenset({"Any", "object", "Optional", "typing", "None", "t"})
#: Calls whose result is a path.
_PATH_CALLS = frozenset({"os.path.join", "os.path.abspath", "os.path.expanduser", "pathlib.Path", "pathlib.PurePath", "str", "builtins.str", "os.fspath"})
#: Calls whose result is plain data (a dict): verl's own function needs an OmegaConf DictConfig.
_PLAIN_DATA = frozenset({"yaml.safe_load", "yaml.load", "yaml.full_load", "json.load", "json.loads", "tomllib.load", "tomllib.loads", "toml.load"})
#: Names that hold a path, not a config.
_PATH_SUFFIXES = ("path", "file", "dir", "filename", "yaml", "yml", "json", "url", "uri")
#: Methods whose result is another kind of object than a training config.
_NOT_CONFIG_METHODS = frozenset({
    "from_pretrained", "from_dict", "from_json_file", "from_json", "parse_args", "parse_known_args",
})
#: Calls whose result is another kind of object than a training config.
_NOT_CONFIG_CALLS = frozenset({"argparse.ArgumentParser", "argparse.Namespace", "builtins.open", "open"})
_FILE_OPENERS = frozenset({"builtins.open", "open", "io.open", "gzip.open", "pathlib.Path.open"})
#: Calls whose result is a string or a sequence: never a training config.
_NOT_CONFIG_VALUES = frozenset({
    "str", "builtins.str", "repr", "builtins.repr", "format", "builtins.format", "json.dumps", "yaml.dump",
    "yaml.safe_dump", "omegaconf.OmegaConf.to_yaml", "os.getenv", "os.environ.get",
    "list", "builtins.list", "tuple", "builtins.tuple", "set", "builtins.set",
    "frozenset", "builtins.frozenset", "sorted", "builtins.sorted",
})
#: Calls (and values) that give a plain dict or another mapping verl's function rejects.
_MAPPINGS = frozenset({
    "dict", "builtins.dict", "vars", "builtins.vars", "omegaconf.OmegaConf.to_container",
    "omegaconf.OmegaConf.to_object", "dataclasses.asdict", "collections.OrderedDict",
    "collections.defaultdict", "os.environ.copy", "types.SimpleNamespace",
})
#: Calls that return an OmegaConf config (verl's training config is one).
_CONFIG_MAKERS = frozenset({
    "omegaconf.OmegaConf.create", "omegaconf.OmegaConf.load", "omegaconf.OmegaConf.merge",
    "omegaconf.OmegaConf.unsafe_merge", "omegaconf.OmegaConf.structured",
    "omegaconf.DictConfig", "hydra.compose", "hydra.experimental.compose",
    "omegaconf.OmegaConf.from_cli", "omegaconf.OmegaConf.from_dotlist",
})
#: Top-level modules whose functions return things other than the config they are given.
#: ``hydra``: ``hydra.utils.instantiate(cfg, _convert_="all")`` gives plain dicts, on which
#: verl 0.9's function fails (``OmegaConf.select`` of a dict: AttributeError), and with a
#: ``_target_`` whatever that builds; its maker ``hydra.compose`` is one of
#: :data:`_CONFIG_MAKERS`, judged before this (trial 26f)
_OTHER_RESULTS = frozenset({
    "hydra", "omegaconf", "builtins", "copy", "json", "yaml", "pickle", "typing", "typing_extensions",
    "dataclasses", "os", "operator", "functools", "itertools", "collections", "inspect", "types",
})
#: Calls that return a copy of their first argument.
_COPIES = frozenset({"copy.deepcopy", "copy.copy"})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: said of a value whose content ppo-migrate does not read (``OmegaConf.create(YAML)``:
#: trial 26g), where "no training config" would claim what it cannot know
CANNOT_TELL = "ppo-migrate does not read: it cannot tell whether it is a training config"
_STATEMENT_BLOCKS = ("body", "orelse", "finalbody", "handlers")
_BLOCKS = frozenset(
    {ScopeKind.MODULE, ScopeKind.CLASS, ScopeKind.FUNCTION, ScopeKind.LAMBDA, ScopeKind.COMPREHENSION}
)


class ConfigChoice(NamedTuple):
    """The config expression to pass at one call.

    Attributes:
        expression: Python source, e.g. ``"config"`` or ``"self.config"``.
        applicability: ``"safe"`` (certainly bound) or ``"unsafe"`` (possibly bound),
            ruff's fix applicability.
        kind: how it was found: ``"name"``, ``"dictconfig"`` or ``"attribute"``.
        origins: the parameters of module-level functions and class ``__init__`` methods
            the value was judged through (:class:`ppo_migrate.diagnostics.CallerOrigin`):
            their callers in other files are judged after the per-file phase.
        why: for an unsafe choice, what made it unsafe (a :class:`Why`); ``None`` for a
            safe one. :mod:`ppo_migrate.rules.reasons` words it.
    """

    expression: str
    applicability: str
    kind: str
    origins: tuple[CallerOrigin, ...] = ()
    why: Why | None = None


class Why(NamedTuple):
    """What the finder saw of one candidate at one call: a small record kept so that the
    finding can say why (issue 28), worded only when a finding needs it
    (:mod:`ppo_migrate.rules.reasons`).

    Attributes:
        expression: the candidate, e.g. ``"config"``, ``"self.config"``.
        state: ``"against"`` (a binding is evidence against a training config),
            ``"unbound"`` (no path binds it before the call), ``"possible"`` (some paths
            bind it), ``"weak"`` (bound for sure, to a value not known to be a training
            config), ``"attribute"`` (``self.<name>``: set elsewhere, maybe not yet or not
            to a config), ``"attribute-against"`` (``self.<name>`` is written a value
            that is evidence against), ``"attribute-none"`` (``self.<name>`` is only ever
            ``None``: a class body's ``config = None`` and nothing else; fresh user 44, W1).
        name: the name (or attribute) looked up.
        holder: the scope whose bindings decided (``None`` for an attribute).
    """

    expression: str
    state: str
    name: str
    holder: Scope | None = None
