"""Where a config comes from: what an OmegaConf or Hydra maker's call (``create``,
``merge``, ``structured``, ``load``, ``from_dotlist``, ``compose``, a copy of one) shows
of the config it makes, and helpers that return a section of their argument (issue 27).
"""

from __future__ import annotations

import ast
from pathlib import Path

from ppo_migrate.rules.config_model import _CONFIG_MAKERS, _COPIES
from ppo_migrate.rules.config_syntax import (
    _dataclass_fields, _display, _dotlist_keys, _part_of, _worst,
)
from ppo_migrate.rules.evidence import VERL_SECTIONS
from ppo_migrate.rules.targets import all_args


class MakerEvidence:
    """The evidence of a maker's call: its mapping's keys, its parts, its dataclass's
    fields (files and composed configs: :class:`ppo_migrate.rules.config_files.ConfigFileEvidence`).

    A part of :class:`ppo_migrate.rules.configs.ConfigFinder` (mixed into it, which holds
    the state: ``module``, ``scopes``, ``finder``, ``names``, ``parents``, ``classes``,
    ``follow_values`` and the memo, evidence and origins of the judgement under way);
    it uses :class:`ppo_migrate.rules.config_trust.BindingTrust` for a part's
    value and :class:`ppo_migrate.rules.config_classes.ClassConstruction` for a dataclass.
    """

    def _mapping_keys(self, value: ast.expr) -> frozenset[str] | None:
        """The top-level keys of a mapping written out here: a dict literal (no ``**``
        spread), ``dict(a=...)``, ``OmegaConf.create``/``DictConfig`` of one, ``merge`` of
        such (every key of each); ``None`` when they cannot all be read."""
        if isinstance(value, ast.Dict):
            if not all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in value.keys):
                return None
            return frozenset(k.value for k in value.keys)  # type: ignore[union-attr]
        if not isinstance(value, ast.Call):
            return None
        names = self._library_names(value.func) | self._builtin(value.func)
        if names & {"dict", "builtins.dict"}:
            if value.args or any(k.arg is None for k in value.keywords):
                return None
            return frozenset(k.arg for k in value.keywords if k.arg is not None)
        if names & {"omegaconf.OmegaConf.create", "omegaconf.DictConfig",
                    "omegaconf.dictconfig.DictConfig"}:
            if len(value.args) != 1 or value.keywords and not all(
                k.arg in ("flags", "parent") for k in value.keywords
            ):
                return None
            return self._mapping_keys(value.args[0])
        if names & {"omegaconf.OmegaConf.merge", "omegaconf.OmegaConf.unsafe_merge"}:
            if not value.args:
                return None
            keys: set[str] = set()
            for a in value.args:
                found = self._mapping_keys(a)
                if found is None:
                    return None
                keys |= found
            return frozenset(keys)
        return None

    def _maker_evidence(self, call: ast.Call) -> str | None:
        """What an OmegaConf/Hydra maker's call shows of the config it makes (issue 27):
        ``"strong"`` when its content has a verl section, ``"against"`` when its content
        is read and has none, ``"weak"`` when it cannot be read (an unsafe fix at best:
        ``OmegaConf.load(sys.argv[1])``, ``OmegaConf.from_cli()``); ``None``: no maker
        (always, without :attr:`follow_values`). The content is read from

        * a mapping written out (``OmegaConf.create({"level": "INFO"})``, ``DictConfig``);
        * ``OmegaConf.load(<path>)`` of a file of the repository, the path a literal, a
          name bound once to one, a path built from ``__file__`` (``os.path.join``,
          ``pathlib.Path``, f-strings: :class:`ppo_migrate.project.path_expr.PathEvaluator`)
          or a file object ``open(<path>)`` gives (:meth:`_loaded_file_evidence`);
        * ``merge``/``unsafe_merge``: ``"strong"`` when any part shows a verl section,
          ``"against"`` when every part is read and none has one, else ``"weak"``;
        * ``create``/``DictConfig``/``copy.deepcopy``/``copy.copy`` of another value: that
          value's (:meth:`_part_evidence`);
        * ``structured(<dataclass or instance>)``: the dataclass's fields
          (:meth:`_structured_evidence`);
        * ``from_dotlist([...])`` (``from_cli([...])``) of literals: the first key of each;
        * Hydra's ``compose``: the composed file (:meth:`_compose_evidence`).
        """
        if not self.follow_values:
            return None
        names = self._library_names(call.func)
        if names & _COPIES:
            if len(call.args) == 1 and not call.keywords and isinstance(call.args[0], ast.Call) and (
                self._library_names(call.args[0].func) & (_CONFIG_MAKERS | _COPIES)
            ):
                return self._maker_evidence(call.args[0])  # ``copy.deepcopy(OmegaConf.load(p))``
            return None
        if not names & _CONFIG_MAKERS:
            return None
        spelled = self._spelled(call)
        if names & {"omegaconf.OmegaConf.load"}:
            return self._loaded_file_evidence(call)
        if names & {"hydra.compose", "hydra.experimental.compose"}:
            found = self._compose_evidence(call)
            if found is None:
                self._note("unread", f"`{spelled}`: which config it composes cannot be told here", call)
                return "weak"
            return found
        if names & {"omegaconf.OmegaConf.from_cli", "omegaconf.OmegaConf.from_dotlist"}:
            items = call.args[0] if len(call.args) == 1 and not call.keywords else None
            if items is None and "omegaconf.OmegaConf.from_cli" in names and not call.args:
                self._note(
                    "unread", f"`{spelled}` reads the command line: what it holds cannot be read here", call
                )
                return "weak"
            keys = _dotlist_keys(items)
            if keys is None:
                self._note("unread", f"`{spelled}`: the keys it sets cannot be read here", call)
                return "weak"
            return self._keys_evidence(call, keys)
        if names & {"omegaconf.OmegaConf.structured"}:
            return self._structured_evidence(call)
        if names & {"omegaconf.OmegaConf.merge", "omegaconf.OmegaConf.unsafe_merge"}:
            if not call.args or call.keywords:
                self._note("unread", f"`{spelled}`: what it merges cannot be read here", call)
                return "weak"
            keys = self._mapping_keys(call)
            if keys:  # every part a mapping written out
                return self._keys_evidence(call, keys)
            if keys is not None:  # ``merge({}, {})``: filled in later, by code not read here
                return None
            trusts = [self._part_evidence(a) for a in call.args]
            if "strong" in trusts:
                return "strong"
            if all(t == "against" for t in trusts):
                return "against"
            return "weak"
        # ``OmegaConf.create(...)``, ``DictConfig(...)``
        keys = self._mapping_keys(call)
        if keys:
            return self._keys_evidence(call, keys)
        if keys is None and len(call.args) == 1 and all(
            k.arg in ("flags", "parent") for k in call.keywords
        ):
            return self._part_evidence(call.args[0])
        if keys is not None or not call.args:
            return None  # ``OmegaConf.create()``, ``create({})``: filled in later, by code not read here
        self._note("unread", f"`{spelled}`: what it holds cannot be read here", call)
        return "weak"

    def maker_against(self, value: ast.expr | None) -> str | None:
        """The words of the evidence against a training config a maker's call shows
        (``OmegaConf.load("logging.yaml")`` of a file without a verl section), or ``None``
        (not a maker, or not evidence against); nothing is noted."""
        if not isinstance(value, ast.Call):
            return None
        noted = len(self._evidence)
        try:
            if self._maker_evidence(value) != "against":
                return None
            return next((e[1] for e in self._evidence[noted:] if e[0] == "against"), None)
        finally:
            del self._evidence[noted:]

    def _quiet_maker_evidence(self, call: ast.Call) -> str | None:
        """:meth:`_maker_evidence` without noting its evidence (a question asked on the way)."""
        noted = len(self._evidence)
        try:
            return self._maker_evidence(call)
        finally:
            del self._evidence[noted:]

    def _keys_evidence(self, call: ast.AST, keys: frozenset[str]) -> str:
        """``"strong"`` or ``"against"`` for a maker whose top-level keys are ``keys``."""
        spelled = self._spelled(call)
        if keys & VERL_SECTIONS:
            self._note("strong", f"`{spelled}` has a verl section", call)
            return "strong"
        self._note(
            "against",
            f"`{spelled}` has no verl section (keys: {', '.join(sorted(keys)) or 'none'})",
            call,
        )
        return "against"

    def _part_evidence(self, value: ast.expr) -> str:
        """What one argument of a maker (a part of a merge, the value ``create`` copies)
        shows: a maker's own evidence (:meth:`_maker_evidence`); a mapping written out;
        ``"strong"`` for a value positively a training config (a config name, a
        parameter judged by its callers: :meth:`_positively_config`); ``"against"`` for
        evidence against one; else ``"weak"``, noted."""
        if isinstance(value, ast.Call):
            made = self._maker_evidence(value)
            if made is not None:
                return made
        keys = self._mapping_keys(value)
        if keys is not None:
            if not keys:
                return "against"  # ``{}`` adds nothing
            return self._keys_evidence(value, keys)
        if isinstance(value, ast.Name) and value.id in self.names:
            # ``OmegaConf.merge(config, overrides)``: the config name vouches, as for the
            # function's own bindings; what its bindings show against it is judged there
            return "strong"
        if isinstance(value, ast.Name) and not self._guarded(0, id(value)):
            # ``CFG = {"trainer": {}}`` ... ``OmegaConf.create(CFG)``: what it is bound to
            holder = self.scopes.scope_of(value).lookup(value.id)
            bindings = list(self.finder.bindings_in(holder, value.id)) if holder is not None else []
            values = [self._single_value_of(b.node) for b in bindings]
            if bindings and all(v is not None for v in values):
                self._visiting[id(value)] = self._tick()
                try:
                    trusts = [self._part_evidence(v) for v in values]  # type: ignore[arg-type]
                finally:
                    del self._visiting[id(value)]
                return _worst(trusts) or "weak"
        noted = len(self._evidence)
        trust = self.value_trust(value)
        if trust == "against":
            return "against"
        if trust == "strong" and self._positively_config(value):
            return "strong"
        if not any(e[0] in ("weak", "unread") for e in self._evidence[noted:]):
            self._note("unread", f"what `{self._spelled(value)}` holds cannot be read here", value)
        return "weak"

    def _structured_evidence(self, call: ast.Call) -> str:
        """``OmegaConf.structured(X)``/``(X(...))``: the fields of dataclass ``X`` of this
        module (or, through an import, of another module of the project) decide;
        ``"weak"`` when it cannot be found or read."""
        spelled = self._spelled(call)
        first = call.args[0] if len(call.args) == 1 else None
        if first is not None and self._mapping_keys(first) is not None:
            return self._part_evidence(first)
        cls_expr = first.func if isinstance(first, ast.Call) else first
        found = self._base_class(cls_expr) if isinstance(cls_expr, (ast.Name, ast.Attribute)) else None
        fields = _dataclass_fields(found, set()) if found is not None else None
        if fields is None:
            self._note(
                "unread", f"`{spelled}`: the fields of the class it is given cannot be read here", call
            )
            return "weak"
        finder, class_def = found  # type: ignore[misc]
        where = (_display(Path(finder.module.path)), class_def.lineno)
        if fields & VERL_SECTIONS:
            self._note("strong", f"`{spelled}` has a verl section (dataclass `{class_def.name}`)", where)
            return "strong"
        self._note(
            "against",
            f"`{spelled}` has no verl section (the fields of dataclass `{class_def.name}`: "
            f"{', '.join(sorted(fields)) or 'none'})",
            where,
        )
        return "against"

    def _helper_returns_section(self, call: ast.Call) -> bool:
        """Whether ``call`` calls a function (of this module, or of another module of the
        project found through its import) every ``return`` of which gives a section or an
        attribute of one of its parameters (``def logging_section(cfg): return cfg.logging``):
        what it hands back is part of the config it is given, not the config (never
        without :attr:`follow_values`)."""
        if not self.follow_values:
            return False
        found = self._function_def(call.func)
        if found is None:
            return False
        where, func = found
        values = self._returns_of(func)
        if not values:
            return False
        params = {a.arg for a in all_args(func.args)}
        for v in values:
            if not _part_of(v, params):
                return False
        self._note(
            "against",
            f"`{self._spelled(call)}` returns a part of its argument "
            f"(`{func.name}` at {where[0]}:{func.lineno} returns "
            f"`{' '.join(ast.unparse(values[0]).split())}`)",
            (where[0], func.lineno),
        )
        return True

    def _function_def(self, func: ast.expr) -> tuple[tuple[str, int], ast.FunctionDef] | None:
        """The ``def`` a call's callee names: a function bound only by ``def`` in this
        module, or a top-level function of a project module it imports (through the
        cross-file index); ``None`` otherwise."""
        if isinstance(func, ast.Name):
            holder = self.scopes.scope_of(func).lookup(func.id)
            if holder is not None:
                defs = [b.node for b in self.finder.bindings_in(holder, func.id)]
                if len(defs) == 1 and isinstance(defs[0], ast.FunctionDef):
                    return (self.module.path, defs[0].lineno), defs[0]
        if self.classes is None or not self._library_names(func):
            return None
        for qualified in sorted(self._library_names(func)):
            found = self.classes.find_function(qualified)
            if found is not None:
                analysis, d = found
                return (_display(Path(analysis.path)), d.lineno), d
        return None


def yaml_text(judge, value: ast.expr) -> bool:
    """Whether ``value`` is ``OmegaConf.create(<str>)``: a string literal, or a name each
    binding of which assigns one (``YAML = \"\"\"...\"\"\"`` at module level). OmegaConf
    parses such a string as YAML (OmegaConf's documentation, "Creating": "From a YAML
    string"), which ppo-migrate does not read: whether it is a training config cannot be
    told (trial 26g, ``k7_env_interpolation_driver_real090``). The trust stays what it
    was; only the words of its reason change.

    Args:
        judge: the module's :class:`ppo_migrate.rules.configs.ConfigFinder` (its library
            names, scopes and bindings).
        value: the value a caller passes.
    """
    if not (isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords):
        return False
    if "omegaconf.OmegaConf.create" not in judge._library_names(value.func):
        return False
    text = value.args[0]
    if isinstance(text, ast.Constant):
        return isinstance(text.value, str)
    if not isinstance(text, ast.Name):
        return False
    holder = judge.scopes.scope_of(text).lookup(text.id)
    bindings = list(judge.finder.bindings_in(holder, text.id)) if holder is not None else []
    values = [judge._single_value_of(b.node) for b in bindings]
    return bool(values) and all(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in values)
