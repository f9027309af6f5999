"""Whether a value is positively a training config (a config name, a parameter, an
OmegaConf maker's ``DictConfig``, a copy of one), and the trust of a value a caller passes.
"""

from __future__ import annotations

import ast

from ppo_migrate.rules.config_model import _CONFIG_MAKERS, _COPIES, _MAPPINGS, _NOT_CONFIG_VALUES
from ppo_migrate.rules.config_syntax import _UNPACKED


class PositiveConfig:
    """Positive evidence: what is known to be an OmegaConf training config.

    A part of :class:`ppo_migrate.rules.configs.ConfigFinder` (mixed into it, which holds
    the state: ``module``, ``scopes``, ``finder``, ``names``, ``parents``, ``classes``,
    ``follow_values`` and the memo, evidence and origins of the judgement under way);
    it uses :class:`ppo_migrate.rules.config_trust.BindingTrust` and
    :class:`ppo_migrate.rules.config_makers.MakerEvidence`.
    """

    def _passed_trust(self, value: ast.expr) -> str | None:
        """The trust of a value a call passes for a config parameter (or its default).

        ``None`` passes nothing (``None``); evidence against (:meth:`value_trust`) is
        ``"against"``; anything not positively a training config is ``"weak"``: the
        parameter's name vouches for what its own function binds, not for an expression
        of unknown type a caller hands it (``os.environ.copy()``, ``cfg.keys()``, a
        generator, ``OmegaConf.to_container(cfg)``), which verl's function would reject.
        """
        if isinstance(value, ast.Constant) and value.value is None:
            return None
        if value is _UNPACKED:
            return "weak"  # ``launch(*args)``: anything
        trust = self.value_trust(value)
        if trust != "strong":
            return trust
        return "strong" if self._positively_config(value) else "weak"

    def _positively_config(self, value: ast.expr) -> bool:
        """Whether ``value`` is known to be a training config: a config name
        (``config-names``), a parameter (its own callers are judged where it is used),
        ``self.<config name>``, another name every binding of which is such a value, ``OmegaConf.create/load/merge(...)``, ``hydra.compose(...)``, a
        copy of one, or a conditional expression both of whose values are one."""
        if isinstance(value, ast.IfExp):
            return self._positively_config(value.body) and self._positively_config(value.orelse)
        if isinstance(value, ast.Attribute):
            owner = value.value
            return isinstance(owner, ast.Name) and owner.id == "self" and value.attr in self.names
        if isinstance(value, ast.Call) and self._config_copy(value):
            return True  # ``base.copy()`` of a DictConfig is a DictConfig
        if isinstance(value, ast.Call):
            returned = self._judge_returns(value, self._positively_config)
            if returned:  # ``launch(load())`` with ``def load(): return OmegaConf.load(p)``
                return all(returned)
            names = self._library_names(value.func)
            if names & (_CONFIG_MAKERS | _COPIES) and self._quiet_maker_evidence(value) in (
                "against", "weak"
            ):
                return False  # what it makes is read, and is no training config (or unread)
            if names & _CONFIG_MAKERS:
                return self._makes_a_dictconfig(value, names)
            return bool(names & _COPIES) and len(value.args) == 1 and self._positively_config(
                value.args[0]
            )
        if not isinstance(value, ast.Name):
            return False
        if value.id in self.names:
            # the name vouches, as for the function's own bindings (``config =
            # migrate_legacy_reward_impl(config)`` in verl's ``main``); what its bindings
            # show against it is :meth:`value_trust`'s
            return True
        return self._every_binding(value, self._binding_positive)

    def _config_copy(self, call: ast.Call) -> bool:
        """``cfg.copy()`` of a value positively a config (``DictConfig.copy`` returns one)."""
        func = call.func
        return (
            isinstance(func, ast.Attribute)
            and func.attr == "copy"
            and not call.args
            and not call.keywords
            and self._positively_config(func.value)
        )

    def _every_binding(self, name: ast.Name, test) -> bool:
        """Whether ``name`` has bindings where it is read and ``test(node)`` holds for each
        (``False`` for a name met again while it is being judged: a cycle)."""
        holder = self.scopes.scope_of(name).lookup(name.id)
        if holder is None or self._guarded(1, id(name)):
            return False
        self._positive_visiting[id(name)] = self._tick()
        try:
            bindings = list(self.finder.bindings_in(holder, name.id))
            if test == self._binding_positive:
                for b in bindings:
                    if isinstance(b.node, ast.arg):
                        self._record_origin(b.node, holder)
            return bool(bindings) and all(test(b.node) for b in bindings)
        finally:
            del self._positive_visiting[id(name)]

    def _makes_a_dictconfig(self, call: ast.Call, names: set[str]) -> bool:
        """Whether a call of an OmegaConf/Hydra maker gives a ``DictConfig``, not a
        ``ListConfig``: ``OmegaConf.load(p)``, ``hydra.compose(...)``, ``DictConfig(...)``
        always (a config file is a mapping); ``OmegaConf.create()``; ``create``/``merge``
        of a mapping (a dict literal, ``dict(...)``, a config, a name bound only to those;
        not ``create([1, 2])``, ``create("- 1")``, ``create(json.loads(s))``);
        ``structured`` of a class or an instance (not of a list)."""
        if not names & {"omegaconf.OmegaConf.create", "omegaconf.OmegaConf.merge",
                        "omegaconf.OmegaConf.unsafe_merge", "omegaconf.OmegaConf.structured"}:
            return True
        if not call.args:
            return "omegaconf.OmegaConf.create" in names and not call.keywords
        first = call.args[0]
        if "omegaconf.OmegaConf.structured" in names:
            if isinstance(first, ast.Call):
                return not (self._qualified(first.func) | self._builtin(first.func)) & (
                    _NOT_CONFIG_VALUES | _MAPPINGS
                )
            if isinstance(first, (ast.Name, ast.Attribute)):
                return self._names_a_class(first)
            return False
        return self._a_mapping(first)

    def _a_mapping(self, value: ast.expr) -> bool:
        """A dict literal or comprehension, ``dict(...)``, ``OmegaConf.to_container`` of a
        config, a config, or a name every binding of which is one of those."""
        if isinstance(value, (ast.Dict, ast.DictComp)):
            return True
        if isinstance(value, ast.Call):
            called = self._qualified(value.func) | self._builtin(value.func)
            if called & {"dict", "builtins.dict"}:
                return True
            if "omegaconf.OmegaConf.to_container" in called:
                return bool(value.args) and self._positively_config(value.args[0])
            return self._positively_config(value)
        if not isinstance(value, ast.Name):
            return self._positively_config(value)
        if value.id in self.names:
            return True
        return self._every_binding(value, self._binding_a_mapping)

    def _binding_a_mapping(self, node: ast.AST) -> bool:
        if isinstance(node, ast.arg):
            return False  # a parameter: ``create(items)`` called with a list
        parent = self.parents.get(id(node)) if isinstance(node, ast.Name) else None
        return (
            isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is not None
            and self._a_mapping(parent.value)
        )

    def _binding_positive(self, node: ast.AST) -> bool:
        if isinstance(node, ast.arg):
            return True  # its callers: :meth:`_every_binding` notes it (:meth:`_record_origin`)
        parent = self.parents.get(id(node)) if isinstance(node, ast.Name) else None
        if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and parent.value is not None:
            return self._positively_config(parent.value)
        return False
