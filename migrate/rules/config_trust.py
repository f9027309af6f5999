"""How far the bindings of a config name, and the values assigned to it, show a training
config: ``"against"``, ``"weak"`` or ``"strong"`` (:meth:`BindingTrust._trust`; the
table of :mod:`ppo_migrate.rules.configs`).
"""

from __future__ import annotations

import ast
import functools

from ppo_migrate.rules.config_model import (
    _FILE_OPENERS, _FUNCTIONS, _MAPPINGS, _NOT_CONFIG_CALLS, _NOT_CONFIG_METHODS,
    _NOT_CONFIG_VALUES, _OTHER_RESULTS, _PATH_CALLS, _PATH_SUFFIXES, _PLAIN_DATA,
)
from ppo_migrate.rules.config_syntax import (
    _ATTRIBUTE, _ESCAPES, _default_of, _key_of, _rebinds, _stringish, _worst,
)
from ppo_migrate.rules.evidence import VERL_SECTIONS
from ppo_migrate.rules.scopes import DEF_LOCAL, Scope, ScopeKind
from ppo_migrate.rules.targets import all_args, dotted_parts


class BindingTrust:
    """A binding's and a value's trust: the evidence of an annotation, an assignment, a
    loop or ``with`` target, a parameter (its decorators, callers and default), what a
    same-file callee returns, and the parts of a config (``config.critic``).

    A part of :class:`ppo_migrate.rules.configs.ConfigFinder` (mixed into it, which holds
    the state: ``module``, ``scopes``, ``finder``, ``names``, ``parents``, ``classes``,
    ``follow_values`` and the memo, evidence and origins of the judgement under way);
    it asks :class:`ppo_migrate.rules.config_makers.MakerEvidence` (a maker's
    content), :class:`ppo_migrate.rules.config_entry_points.EntryPointEvidence` (a
    parameter's decorators), :class:`ppo_migrate.rules.config_callers.CallerValues` (its
    callers) and :class:`ppo_migrate.rules.config_positive.PositiveConfig`.
    """

    def _overwritten_parameter(self, name: str, holder: Scope, call: ast.Call) -> ast.arg | None:
        """The parameter ``name`` of ``holder``'s function when a statement of the
        function's own body (not under a branch, a loop, a ``try`` or a ``with``) rebinds
        it, by ``name = value``, before the statement holding ``call``: the parameter's
        value never reaches the call (``config = OmegaConf.load(config)`` after a click
        option's string: trial 27, r11)."""
        func = holder.node
        if not isinstance(func, _FUNCTIONS):
            return None
        if not holder.flags.get(holder.mangled(name), 0) & DEF_LOCAL:
            # no ``name = value`` in the function's own code (its scope's flags): nearly
            # every parameter, told without looking for it (benchmark item 10)
            return None
        param = next((a for a in all_args(func.args) if a.arg == name), None)
        if param is None:
            return None
        if not any(_rebinds(stmt, name) for stmt in func.body):
            return None  # nearly every function: the call's ancestors are not looked for
        chain = self.module.ancestors(call)
        if func not in chain:
            return None
        index = chain.index(func)
        top = chain[index + 1] if index + 1 < len(chain) else call
        if top not in func.body or self.scopes.scope_of(call) is not holder:
            return None
        for stmt in func.body[: func.body.index(top)]:
            if _rebinds(stmt, name):
                return param
        return None

    def _trust(self, name: str, holder: Scope, overwritten: ast.arg | None = None) -> str:
        """How far the bindings of ``name`` in ``holder`` show a training config:
        ``"against"`` (evidence against it: the table, or a binding that is never a
        config -- an import, a ``def``/``class``, an ``except ... as``, ``with open(...) as``),
        ``"weak"`` (an unsafe fix at best: an unpacking, ``+=``, a dict spread without a
        verl section, another local's value) or ``"strong"`` (a safe fix when certainly bound)."""
        worst = "strong"
        if holder.kind in (ScopeKind.MODULE, ScopeKind.CLASS) and self._globals_rewritten:
            worst = "weak"  # ``globals()["config"] = d``, ``exec(...)``: not all bindings seen
        self._record_global(name, holder)
        against = conflict = False
        for b in self.finder.bindings_in(holder, name):
            if overwritten is not None and b.node is overwritten:
                continue  # rebound before the call on every path: its value never reaches it
            noted = len(self._evidence)
            trust = self._binding_trust(b.node, b.qualified, holder)
            if trust == "against":
                # evidence against one binding (or one caller's value): on that path the
                # value is not a training config (``launch(base if flag else {"a": 1})``)
                against = True
                conflict = conflict or self._conflict(self._evidence[noted:])
            elif trust == "weak":
                worst = trust
        if against and not conflict:
            return "against"
        # the same binding shows evidence for a training config too (one caller passes it,
        # another a dict; ``config or {...}``): the evidence conflicts, an unsafe fix at best
        # whose reason names both (issue 27). Another binding's evidence for does not count:
        # it may never reach the call (``config = str(config)`` after a config parameter).
        return "weak" if against else worst

    @functools.cached_property
    def _globals_rewritten(self) -> bool:
        """Whether the module may bind its globals in ways no statement shows:
        ``globals()``, ``vars()``, ``exec``, ``sys.modules`` (``setattr(sys.modules[__name__],
        ...)``), ``importlib`` (searched in the source text)."""
        text = self.module.text
        return any(
            w in text for w in ("globals()", "locals()", "vars()", "exec(", "sys.modules", "importlib")
        )

    def _binding_trust(self, node: ast.AST, qualified: str | None, holder: Scope) -> str:
        """How far one binding of a name in ``holder`` shows a training config (see
        :meth:`_trust`), memoised (:meth:`_recall`): keyed by the binding node, its
        qualified name, the scope and whether origins are recorded."""
        key = ("binding", id(node), qualified, id(holder), self._origins is not None)
        known = self._recall(key)
        if known is not None:
            return known.result  # type: ignore[return-value]
        frame = self._begin()
        try:
            trust = self._judge_binding(node, qualified, holder)
        finally:
            self._end(frame)
        self._keep(frame, key, (node, holder), trust)
        return trust

    def _judge_binding(self, node: ast.AST, qualified: str | None, holder: Scope) -> str:
        if isinstance(node, ast.arg):
            if node.annotation is not None and self._annotation(node.annotation, holder) == "other":
                self._note(
                    "against",
                    f"`{node.arg}` is annotated `{self._spelled(node.annotation)}`",
                    node.annotation,
                )
                return "against"
            if isinstance(holder.node, ast.Lambda):
                return "weak"  # ``lambda config: ...``: its callers are not followed
            args = getattr(holder.node, "args", None)
            if args is not None and node in (args.vararg, args.kwarg):
                return "against"  # ``*config`` is a tuple, ``**config`` a dict: never a DictConfig
            name = getattr(holder.node, "name", "")
            if name.startswith("__") and name.endswith("__") and name != "__init__":
                # ``__call__``, ``__new__``, ``__post_init__``, ``__getitem__``, ``__exit__``:
                # Python calls them with whatever the expression it runs gives
                return "weak"
            decorated = self._decorator_evidence(node, holder)
            if decorated == "against":
                return decorated  # a CLI option's string, a composed config without a section
            self._record_origin(node, holder)
            trusts = {self._callers_trust(node, holder), decorated}
            default = _default_of(holder.node, node)
            if default is not None:
                # ``def main(config="ppo.yaml")``: a path by default (against);
                # ``def main(cfg={"trainer": 1})``: a plain dict by default (weak)
                trusts.add(self._passed_trust(default))
            if trusts == {None}:
                self._note(
                    "name",
                    f"nothing in the project shows what `{node.arg}` of "
                    f"`{getattr(holder.node, 'name', '?')}` holds: trusted by its name",
                    node,
                )
            return _worst(trusts) or "strong"
        if qualified is not None or isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler, ast.Import, ast.ImportFrom)
        ):
            return "against"  # a module, a function, a class, an exception: never a config
        if not isinstance(node, ast.Name):
            return "weak"  # a match capture: a leaf, a list (``[*config]``), a dict (``**config``)
        parent = self.parents.get(id(node))
        if isinstance(parent, ast.AnnAssign) and parent.target is node:
            kind = self._annotation(parent.annotation, holder)
            if kind == "other":
                return "against"
            return self.value_trust(parent.value) if parent.value is not None else "strong"
        if isinstance(parent, ast.Assign) and any(t is node for t in parent.targets):
            return self.value_trust(parent.value)
        if isinstance(parent, ast.NamedExpr) and parent.target is node:
            return self.value_trust(parent.value)
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.target is node:
            it = parent.iter
            if isinstance(it, (ast.List, ast.Tuple, ast.Set)) and not any(
                isinstance(e, ast.Dict) for e in it.elts
            ):
                return "against"  # ``for config in ["a.yaml"]``: names, not configs
            if self._is_config_part(it) or self._sub_config(it):
                return "against"  # ``for config in config.rollouts``: parts of a config
            return "weak"  # ``for config in paths``: an element of anything
        if isinstance(parent, ast.withitem) and parent.optional_vars is node:
            call = parent.context_expr
            if isinstance(call, ast.Call) and (
                self._qualified(call.func) & _FILE_OPENERS
                or (
                    isinstance(call.func, ast.Name)
                    and call.func.id == "open"
                    and self.scopes.scope_of(call.func).lookup("open") is None
                )
            ):
                return "against"  # ``with open(p) as config``: a file
            return "weak"  # whatever ``__enter__`` returns
        return "weak"  # an unpacking, ``+=``

    def value_trust(self, value: ast.expr | None) -> str:
        """``"against"``, ``"weak"`` or ``"strong"`` for a value assigned to a config name
        (see :meth:`_trust`)."""
        if value is None or isinstance(value, ast.Starred):
            return "weak"  # unknown, or a marker (:data:`_UNPACKED`)
        if isinstance(value, ast.Call) and value is not _ESCAPES and value is not _ATTRIBUTE:
            made = self._maker_evidence(value)
            if made in ("against", "weak"):
                return made  # ``OmegaConf.create({"level": "INFO"})``, a YAML file without a section
        if self._value_against(value) or self._sub_config(value):
            return "against"
        if isinstance(value, ast.Attribute) and value.attr in self.names:
            # ``config = model.config`` is a model's (HuggingFace) config; ``self.config`` is ours
            owner = value.value
            return "strong" if isinstance(owner, ast.Name) and owner.id == "self" else "against"
        if isinstance(value, ast.Call):
            func = value.func
            if isinstance(func, ast.Attribute) and func.attr in _NOT_CONFIG_METHODS:
                return "against"  # ``LlamaConfig.from_dict(...)``, ``parser.parse_args()``
            if self._qualified(func) & _NOT_CONFIG_CALLS:
                return "against"
        if isinstance(value, (ast.Constant, ast.JoinedStr)):
            return "against"  # a number, a string, an f-string, None: never a training config
        if isinstance(value, ast.BinOp):
            return "against" if _stringish(value) else "weak"  # ``Path(root) / "ppo.yaml"``
        if isinstance(value, ast.Call) and self._qualified(value.func) & _PATH_CALLS:
            return "against"  # ``os.path.join(root, "ppo.yaml")``: a path
        if isinstance(value, ast.Call) and self._qualified(value.func) & _PLAIN_DATA:
            return "weak"  # ``yaml.safe_load(f)``: a plain dict, which verl's function rejects
        if isinstance(value, ast.Dict):
            return "weak"  # a plain dict: verl's own function needs an OmegaConf DictConfig
        if isinstance(value, (ast.Tuple, ast.Set, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.Lambda)):
            return "against"  # a sequence or a function: never a training config
        if isinstance(value, ast.DictComp):
            return "weak"
        if isinstance(value, (ast.BoolOp, ast.IfExp)):
            # ``config or {"num_cpus": 4}``: what any operand may be, the value may be
            operands = value.values if isinstance(value, ast.BoolOp) else (value.body, value.orelse)
            trusts = {self.value_trust(v) for v in operands}
            return _worst(trusts) or "strong"
        if isinstance(value, ast.Call):
            called = self._qualified(value.func) | self._builtin(value.func)
            if called & _NOT_CONFIG_VALUES:
                return "against"  # ``str(config)``, ``json.dumps(d)``, ``list(cfg)``
            if called & _MAPPINGS:
                return "weak"  # ``dict(config)``, ``OmegaConf.to_container(cfg)``, ``vars(args)``
            if isinstance(value.func, ast.Attribute) and value.func.attr in ("keys", "values", "items"):
                return "against"
            if (
                isinstance(value.func, ast.Attribute)
                and value.func.attr in ("get", "pop", "copy")
                and not self._config_copy(value)
            ):
                return "weak"  # ``kwargs.get("config")``, ``d.copy()``: an element, a copy of anything
        if isinstance(value, ast.Call):
            returned = self._judge_returns(value, self._returned_trust)
            if returned is not None:
                # ``config = load()`` with ``def load(): return {...}`` here: what it returns
                return _worst(returned) or "weak"
        if isinstance(value, (ast.Attribute, ast.Name)) and self._qualified(value) & {"os.environ", "sys.argv"}:
            return "weak"
        if isinstance(value, ast.Subscript):
            return "weak"  # ``kwargs["config"]``, ``args[0]``: an element of anything
        if isinstance(value, ast.Name):
            # ``self.config = c``, ``config = rollout``; ``self.config = config`` in an
            # ``__init__`` whose class is instantiated with a dict
            return self._name_value_trust(value)
        if self._positively_config(value) or self._transforms_config(value):
            return "strong"
        # anything else is of a type not known here: ``load_config()`` of another module,
        # ``pickle.load(f)``, ``copy.deepcopy(DEFAULTS)``, ``obj.attr``, ``await make()``
        return "weak"

    def _transforms_config(self, value: ast.expr) -> bool:
        """A call taken to hand back the config it is given: a plain or module function
        (``migrate_legacy_reward_impl(config)`` in verl's ``main``, ``utils.resolve(cfg)``)
        whose first argument is positively a config; not a builtin (``getattr(cfg, "a")``,
        ``len(cfg)``), not a method of the config (``cfg.setdefault(...)``), nothing of
        omegaconf's but its makers (``OmegaConf.missing_keys(cfg)`` is a set) and nothing
        of the standard modules that return other things (json, copy, typing, ...)."""
        if not isinstance(value, ast.Call) or not value.args or self._builtin(value.func):
            return False
        parts = dotted_parts(value.func)
        if parts is None:
            return False
        if len(parts) > 1:
            root = value.func
            while isinstance(root, ast.Attribute):
                root = root.value
            if not self._imported(root):
                return False  # a method of some object (the config's own, an instance's)
        names = self._qualified(value.func)
        if any(n.split(".", 1)[0] in _OTHER_RESULTS for n in names):
            return False
        first = value.args[0]
        if isinstance(first, ast.Name) and first.id not in self.names:
            # ``load_config(config_path)``, ``load(source)`` (trial 26f): a parameter the
            # config names do not vouch for is what its callers pass (a path, a string);
            # handed to a function of another module, what comes back is not known
            holder = self.scopes.scope_of(first).lookup(first.id)
            if holder is not None and any(
                isinstance(b.node, ast.arg) for b in self.finder.bindings_in(holder, first.id)
            ):
                return False
        return self._positively_config(first)

    def _returned_trust(self, value: ast.expr) -> str | None:
        """:meth:`value_trust` of a returned value; ``None`` (a ``None`` passes nothing) for ``None``."""
        if isinstance(value, ast.Constant) and value.value is None:
            return None
        return self.value_trust(value)

    def _name_value_trust(self, value: ast.Name) -> str:
        """The trust of another name's value: what its own bindings show (a parameter:
        strong; ``rollout = config.actor_rollout_ref``: against); a name spelled as a path
        (``config_path``, ``cfg_file``) is against."""
        if value.id.lower().endswith(_PATH_SUFFIXES):
            return "against"
        holder = self.scopes.scope_of(value).lookup(value.id)
        if holder is None or self._guarded(0, id(value)):
            return "weak"
        # memoised (:meth:`_recall`) by the name read and whether origins are recorded
        key = ("name", id(value), self._origins is not None)
        known = self._recall(key)
        if known is not None:
            return known.result  # type: ignore[return-value]
        frame = self._begin()
        self._visiting[id(value)] = self._tick()
        try:
            trusts = set()
            for b in self.finder.bindings_in(holder, value.id):
                trusts.add(self._binding_trust(b.node, b.qualified, holder))
        finally:
            del self._visiting[id(value)]
            self._end(frame)
        trust = (_worst(trusts) or "strong") if trusts else "weak"
        self._keep(frame, key, (value,), trust)
        return trust

    def _sub_config(self, value: ast.expr) -> bool:
        """A section taken out of a config by a call: ``copy.deepcopy(config.actor_rollout_ref)``,
        ``config.get("critic")``, ``getattr(config, "trainer")``,
        ``OmegaConf.select(config, "actor_rollout_ref.rollout")``."""
        if not isinstance(value, ast.Call):
            return False
        args = value.args
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr in ("get", "select", "pop") and args:
            owner = func.value
            first = args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                section = first.value.split(".", 1)[0]
                if section in VERL_SECTIONS and (
                    (isinstance(owner, ast.Name) and owner.id in self.names)
                    or self._is_config_part(owner)
                ):
                    return True
        if len(args) >= 2 and isinstance(args[1], ast.Constant) and isinstance(args[1].value, str):
            if args[1].value.split(".", 1)[0] in VERL_SECTIONS:
                return True  # ``getattr(config, "trainer")``, ``OmegaConf.select(config, "critic")``
        return any(self._is_config_part(a) or self._sub_config(a) for a in args if isinstance(a, ast.expr))

    def _value_against(self, value: ast.expr) -> bool:
        """Whether an assigned value is evidence against a training config (see the table)."""
        if isinstance(value, (ast.List, ast.ListComp)):
            self._note("against", f"`{self._spelled(value)}` is a list", value)
            return True
        if isinstance(value, ast.Dict):
            keys = {k.value for k in value.keys if isinstance(k, ast.Constant)}
            against = not (keys & VERL_SECTIONS) and all(k is not None for k in value.keys)
            if against:
                self._note("against", f"`{self._spelled(value)}` has no verl section", value)
            return against
        if isinstance(value, ast.Call):
            if self._helper_returns_section(value):
                return True
            func = value.func
            if isinstance(func, ast.Attribute) and func.attr == "from_pretrained":
                return True
            names = self._qualified(func)
            if any(n == "transformers" or n.startswith("transformers.") for n in names):
                return True
            builtin_dict = (
                isinstance(func, ast.Name)
                and func.id == "dict"
                and self.scopes.scope_of(func).lookup("dict") is None
            )
            if builtin_dict or names == {"builtins.dict"}:
                keys = {k.arg for k in value.keywords if k.arg is not None}
                return bool(keys) and not value.args and not (keys & VERL_SECTIONS)
            return False
        if isinstance(value, (ast.Attribute, ast.Subscript)):
            return self._is_config_part(value)
        return False

    def _is_config_part(self, value: ast.expr) -> bool:
        """``config.actor_rollout_ref.rollout``, ``cfg["critic"]``, ``self.config.trainer``, and
        a verl section of any other name (``root.actor_rollout_ref``, ``full["critic"]``: a
        fresh user's sub-configs passed by an unsafe fix; :data:`VERL_SECTIONS`)."""
        node = value
        depth = 0
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            inner = node.value
            if isinstance(inner, ast.Name) and inner.id in self.names:
                return True
            if isinstance(inner, ast.Name) and inner.id not in ("self", "cls") \
                    and _key_of(node) in VERL_SECTIONS:
                return True
            if (
                isinstance(node, ast.Attribute)
                and isinstance(inner, ast.Attribute)
                and inner.attr in self.names
                and isinstance(inner.value, ast.Name)
                and depth >= 0
            ):
                return True
            node = inner
            depth += 1
        return False
