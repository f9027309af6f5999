"""Which config expression to pass at a configless target call, and whether the fix is safe.

Candidates, in Python's lookup order at the call (innermost scope first; in one
scope the ``config-names`` setting in its order, then parameters annotated
``DictConfig``; then ``<self>.<name>`` in the innermost instance method; then
module globals):

* a **config name** (``config``, ``cfg`` by default): the binding Python's lookup
  finds at the call (:meth:`ppo_migrate.analysis.scopes.Scope.lookup`: a name a
  class body or a ``global`` statement hides is never taken);
* a parameter annotated ``DictConfig`` (``omegaconf.DictConfig`` by qualified
  name, also inside ``Optional[...]``/``... | None``), under any name;
* ``<self>.<name>`` for a config name: only in a method (not ``staticmethod``/
  ``classmethod``) whose first parameter ``<self>`` nothing rebinds or deletes,
  the call not in a nested function, lambda or comprehension that binds its own
  ``<self>``; the attribute declared in the class body or assigned to
  ``<self>.<name>`` in a method of the class or of a base class defined in the
  same file or, through an import, in another file of the project
  (:mod:`ppo_migrate.analysis.index`).

Whether a name is bound at the call is :func:`ppo_migrate.analysis.flow.bound_at`'s
answer: **certain** → a safe fix (``apply`` makes it), **possible** → an unsafe
fix (``apply --unsafe-fixes`` only), **unbound** → no candidate. A certain
candidate is preferred to a possible one found earlier in the order.

**Evidence against a training config** (the table in ``docs/rules/PPO001.md``)
makes a name no candidate at all when any binding of it in the scope it
resolves to has it:

=====================================  ==========================================
binding                                 example
=====================================  ==========================================
annotation with another concrete type  ``config: PretrainedConfig``, ``cfg: dict[str, int]``
value from ``*.from_pretrained(...)``   ``config = AutoConfig.from_pretrained(p)``
value from a ``transformers`` class    ``config = transformers.LlamaConfig()``
a list literal or comprehension         ``config = [a, b]``
a dict literal (or ``dict(...)``)       ``config = {"num_cpus": 4}`` — unless a key is a
without a verl top-level section key    section: ``actor_rollout_ref``, ``critic``,
                                        ``algorithm``, ``trainer``, ``data``,
                                        ``reward_model``, ``reward``
OmegaConf.create/merge/DictConfig of    ``OmegaConf.create({"level": "INFO"})`` (issue 27),
such a mapping (every part of a merge;  ``OmegaConf.merge(OmegaConf.load("logging.yaml"), {})``,
structured of such a dataclass; a       ``OmegaConf.structured(LogCfg)``,
dotlist of such keys)                   ``OmegaConf.from_dotlist(["level=INFO"])`` (trial 27)
a repository YAML without a section     ``OmegaConf.load("ray_cluster.yaml")``,
(loaded, the path built from            ``OmegaConf.load(Path(__file__).parent / "x.yaml")``,
``__file__`` or a name; composed by     ``@hydra.main(config_name="logging")``,
@hydra.main, or its ConfigStore node)   ``store(name="app", node=AppCfg)``
a CLI value                             ``@click.option("--config")``, a typer parameter
a helper returning a part of its arg    ``config = sections.logging_section(cfg)``
an attribute of a config                ``cfg = config.actor_rollout_ref.rollout``
a parameter a same-file caller passes   ``build(config.actor_rollout_ref)`` for
such a value (a class's instantiation   ``def build(cfg): ...``; ``Launcher({"a": 1})``
for ``__init__``)                       for ``Base.__init__(self, config)``
=====================================  ==========================================

A maker whose content cannot be read (``OmegaConf.load(sys.argv[1])``, a file not in the
repository, ``OmegaConf.from_cli()``) is no known training config: an unsafe fix whose reason
says what could not be read (trial 27).

The top-level sections are those of verl's ``ppo_trainer.yaml`` (verl
``verl/trainer/config``), the object ``get_ppo_ray_runtime_env(config)`` reads
(verl PR #6976, ``need_critic``/strategy lookups).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterator

from ppo_migrate.analysis.config_annotations import AnnotationKinds
from ppo_migrate.analysis.config_callers import _DOUBLE_QUOTED as _DOUBLE_QUOTED
from ppo_migrate.analysis.config_callers import _SINGLE_QUOTED as _SINGLE_QUOTED
from ppo_migrate.analysis.config_callers import CallerValues
from ppo_migrate.analysis.config_entry_points import EntryPointEvidence
from ppo_migrate.analysis.config_files import ConfigFileEvidence
from ppo_migrate.analysis.config_lookup import NameLookup
from ppo_migrate.analysis.config_makers import MakerEvidence
from ppo_migrate.analysis.config_memo import JudgementMemo, _Frame, _Memo
from ppo_migrate.analysis.config_model import (
    _FUNCTIONS, _STATEMENT_BLOCKS, DICTCONFIG_NAMES, ConfigChoice, Why,
)
from ppo_migrate.analysis.config_model import _PATH_CALLS as _PATH_CALLS
from ppo_migrate.analysis.config_notes import EvidenceNotes
from ppo_migrate.analysis.config_positive import PositiveConfig
from ppo_migrate.analysis.config_returns import CalleeReturns
from ppo_migrate.analysis.config_syntax import (
    _ATTRIBUTE, _ESCAPES, _is_dataclass, _walk_here, _worst,
)
from ppo_migrate.analysis.config_syntax import _UNPACKED as _UNPACKED
from ppo_migrate.analysis.config_syntax import _default_of as _default_of
from ppo_migrate.analysis.config_syntax import _passed_value as _passed_value
from ppo_migrate.analysis.config_syntax import _repository_top as _repository_top
from ppo_migrate.analysis.config_syntax import _stringish as _stringish
from ppo_migrate.analysis.config_trust import BindingTrust
from ppo_migrate.analysis.evidence import VERL_SECTIONS
from ppo_migrate.analysis.flow import Bound, bound_at
from ppo_migrate.analysis.index import ClassIndex
from ppo_migrate.analysis.module import ParsedModule
from ppo_migrate.analysis.scopes import Scope, ScopeKind, ScopeTree
from ppo_migrate.analysis.scopes import frames as scope_frames
from ppo_migrate.analysis.targets import TargetFinder, all_args, dotted_parts
from ppo_migrate.diagnostics import CallerOrigin, Reason, qualname
from ppo_migrate.targets import resolve_relative


class ConfigFinder(
    JudgementMemo,
    EvidenceNotes,
    NameLookup,
    AnnotationKinds,
    BindingTrust,
    CalleeReturns,
    MakerEvidence,
    ConfigFileEvidence,
    EntryPointEvidence,
    CallerValues,
    PositiveConfig,
):
    """Decides the config to pass at each configless target call of one module.

    Args:
        module: the parsed module.
        scopes: its scope tree.
        finder: the module's :class:`ppo_migrate.analysis.targets.TargetFinder`
            (it knows every binding and resolves qualified names).
        config_names: the ``config-names`` setting, in preference order.
        parents: ``id(name) -> parent node`` for the module's ``ast.Name`` nodes
            (``module.facts.parents``).
        classes: the cross-file index of the project's classes (base classes in
            other files); ``None``: this module's classes only.
        follow_values: ``True`` (the tool's judgement): a candidate's value decides, with
            the evidence issue 27 added. ``False``: the judgement that preceded issue 27,
            which trusts a config name the older evidence (the module's table, less issue
            27's rows) says nothing against: no OmegaConf/Hydra maker's mapping or YAML
            file is read (:meth:`_maker_evidence`), no decorator (click, typer,
            ``@hydra.main``) speaks (:meth:`_decorator_evidence`), no helper is taken to
            return a section (:meth:`_helper_returns_section`) and a class whose
            ``self.<name>`` its own ``__init__`` sets is no origin for other files'
            subclasses. Only the differential test sets it
            (``Settings.follow_values``): every fix safe that way must stay safe.
    """

    def __init__(
        self,
        module: ParsedModule,
        scopes: ScopeTree,
        finder: TargetFinder,
        config_names: tuple[str, ...],
        parents: dict[int, ast.AST],
        classes: ClassIndex | None = None,
        *,
        follow_values: bool = True,
    ) -> None:
        self.module = module
        self.follow_values = follow_values
        self.classes = classes
        self.scopes = scopes
        self.finder = finder
        self.names = tuple(config_names)
        self.parents = parents
        self._attrs: dict[int, dict[str, list[ast.AST]]] = {}
        #: (id of a class node, attribute) -> what decides ``self.<attribute>`` in its
        #: methods whatever the call: its writes (:meth:`_attribute_writes`), whether every
        #: instance has it (:meth:`_init_certain`), the fields' trust (:meth:`_field_trust`)
        self._attribute_facts: dict[tuple[int, str, str], tuple[object, tuple]] = {}
        # the cycle guards of the recursive judgements: ``id(node) -> tick`` of when it
        # was entered (:meth:`_tick`), so that a memo (:meth:`_recall`) can tell a guard
        # its own judgement set from one set on the path that led to it
        self._visiting: dict[int, int] = {}
        self._positive_visiting: dict[int, int] = {}
        self._returning: dict[int, int] = {}
        self._guards = (self._visiting, self._positive_visiting, self._returning)
        self._clock = 0
        #: the memoised judgements under way, innermost last (:meth:`_begin`)
        self._frames: list[_Frame] = []
        #: key -> the answers kept of a memoised judgement (:meth:`_recall`)
        self._memo: dict[tuple, list[_Memo]] = {}
        #: id of a ``def`` -> (the node, :func:`_returns_of` it), found once per resolver
        self._returns: dict[int, tuple[ast.AST, list[ast.expr] | None]] = {}
        #: the parameters judged while one candidate is (:meth:`find`); ``None`` otherwise
        self._origins: list[CallerOrigin] | None = None
        #: what the last candidate's check saw (its state and scope), set by the checks
        self._why: tuple[str, str, Scope | None] = ("unbound", "", None)
        #: the candidates :meth:`find` rejected at its last call, and why, in lookup order
        self.rejected: list[Why] = []
        #: the evidence met while one candidate is judged: ``(trust, text, node or
        #: (path, line))`` (:meth:`_note`), the first of each trust deciding its reason
        self._evidence: list[tuple[str, str, object]] = []
        #: ``(id(call), expression) -> Reason`` of the candidates judged (:meth:`reason`)
        self._reasons: dict[tuple[int, str], Reason] = {}
        #: ``id(call) -> (call, answer, rejected)`` of :meth:`find` (asked again by the
        #: caller index of a file whose diagnostics asked first: the judgement is the same)
        self._found: dict[int, tuple[ast.Call, ConfigChoice | None, list[Why]]] = {}

    # -- the answer -----------------------------------------------------------------

    def find(self, call: ast.Call) -> ConfigChoice | None:
        """The config to pass at ``call``, or ``None`` when no training config is visible.

        Args:
            call: a configless target call of this module.
        """
        known = self._found.get(id(call))
        if known is not None and known[0] is call:  # judged already: the same answer
            self.rejected = list(known[2])
            return known[1]
        answer = self._find(call)
        self._found[id(call)] = (call, answer, list(self.rejected))
        return answer

    def _find(self, call: ast.Call) -> ConfigChoice | None:
        """:meth:`find`'s judgement of the candidates, in lookup order."""
        possible: ConfigChoice | None = None
        rejected: list[Why] = []
        self.rejected = rejected
        for expression, kind, check in self._candidates(call):
            self._origins = []
            self._why = ("unbound", "", None)
            try:
                state = check()
                origins = tuple(dict.fromkeys(self._origins))
            finally:
                self._origins = None
            if state is Bound.CERTAIN:
                return ConfigChoice(expression, "safe", kind, origins)
            why = Why(expression, *self._why)
            if state is Bound.POSSIBLE:
                if possible is None:
                    possible = ConfigChoice(expression, "unsafe", kind, why=why)
            elif why.name:
                rejected.append(why)
        return possible

    def _candidates(self, call: ast.Call) -> Iterator[tuple[str, str, object]]:
        """``(expression, kind, () -> Bound)`` in Python's lookup order."""
        scope = self.scopes.scope_of(call)
        chain: list[Scope] = []
        s: Scope | None = scope
        while s is not None:
            chain.append(s)
            s = s.parent
        depth = {id(x): i for i, x in enumerate(chain)}
        ranked: list[tuple[int, int, str, str, object]] = []
        module_depth = len(chain) - 1
        for order, name in enumerate(self.names):
            holder = scope.lookup(name)
            if holder is None or id(holder) not in depth:
                continue
            ranked.append(
                (depth[id(holder)], order, name, "name", self._name_check(name, holder, call))
            )
        for i, s in enumerate(chain):
            if s.kind is not ScopeKind.FUNCTION or not isinstance(s.node, _FUNCTIONS):
                continue
            for k, a in enumerate(all_args(s.node.args)):
                if a.arg in self.names or a.annotation is None:
                    continue
                if self._annotation(a.annotation, s) != "dictconfig":
                    continue
                if scope.lookup(a.arg) is not s:
                    continue  # hidden by an inner binding of the same name
                ranked.append(
                    (i, len(self.names) + k, a.arg, "dictconfig", self._name_check(a.arg, s, call))
                )
        method = self._method(chain)
        if method is not None:
            for order, name in enumerate(self.names):
                ranked.append(
                    (module_depth - 0.5, order, name, "attribute",  # type: ignore[arg-type]
                     self._attribute_check(method, name, call))
                )
        ranked.sort(key=lambda r: (r[0], r[1]))
        for _, _, name, kind, check in ranked:
            if kind == "attribute":
                first = self._first_param(method)  # type: ignore[arg-type]
                yield f"{first}.{name}", kind, check
            else:
                yield name, kind, check

    # -- a name -----------------------------------------------------------------------
    def _name_check(self, name: str, holder: Scope, call: ast.Call):
        def check() -> Bound:
            self._evidence = []
            trust = self._keep_reason(
                call, name, self._trust(name, holder, self._overwritten_parameter(name, holder, call))
            )
            if trust == "against":
                self._why = ("against", name, holder)
                return Bound.UNBOUND
            state = bound_at(self.scopes, name, call)
            if state is Bound.CERTAIN and trust == "weak":
                self._why = ("weak", name, holder)
                return Bound.POSSIBLE  # bound for sure, but maybe not to a training config
            self._why = (state.value if state is not Bound.CERTAIN else "certain", name, holder)
            return state

        return check

    def _init_values(self, cls: Scope, position: int | None, keyword: str) -> Iterator[ast.expr]:
        """What each construction of the class (scope ``cls``) hands its ``__init__``
        parameter at ``position`` (``self`` not counted) or named ``keyword``: calls of
        the class and of same-file subclasses that inherit the ``__init__``
        (:meth:`_call_values`); ``cls(...)`` in a classmethod, ``type(x)(...)`` and
        ``x.__class__(...)`` anywhere in the module (each may build this class);
        ``super().__init__(...)`` in a same-file subclass and ``T.__init__(self, ...)``
        with ``T`` the class or such a subclass; ``x.__init__(...)`` on anything else
        that is not an import or another class. :data:`_UNPACKED` for a class named in a
        string (``getattr(mod, "T")(d)``)."""
        assert isinstance(cls.node, ast.ClassDef)
        classes = self._classes_inheriting_init(cls)
        yield from self._call_values(classes, position, keyword, True)
        if any(self._spelled_in_string(name) for name, _ in classes):
            yield _UNPACKED
        subclasses = {id(node) for node in self._subclasses(cls)}
        for call in self.module.facts.calls:
            func = call.func
            value = None
            if self._builds_instance(func):
                value = _passed_value(call, position, keyword)
            elif isinstance(func, ast.Attribute) and func.attr == "__init__":
                owner = func.value
                if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
                    enclosing = self._enclosing_class(call)
                    if enclosing is None or id(enclosing) not in subclasses:
                        continue  # another class's base
                    value = _passed_value(call, position, keyword)
                elif isinstance(owner, ast.Name) and self._is_class_name(owner):
                    holder = self.scopes.scope_of(owner).lookup(owner.id)
                    if not any(owner.id == name and holder is bound_in for name, bound_in in classes):
                        continue  # ``Other.__init__(self, ...)``
                    value = _passed_value(call, None if position is None else position + 1, keyword)
                elif self._imported(owner):
                    continue
                else:
                    value = _passed_value(call, position, keyword)  # ``self.__init__(d)``
            if value is not None:
                yield value

    def _builds_instance(self, func: ast.expr) -> bool:
        """``cls`` (a classmethod's first parameter), ``type(x)``, ``x.__class__``."""
        if isinstance(func, ast.Attribute):
            return func.attr == "__class__"
        if isinstance(func, ast.Call):
            return (
                isinstance(func.func, ast.Name) and func.func.id == "type" and len(func.args) == 1
                and self.scopes.scope_of(func.func).lookup("type") is None
            )
        if not isinstance(func, ast.Name) or func.id not in self._constructor_params:
            return False
        holder = self.scopes.scope_of(func).lookup(func.id)
        node = holder.node if holder is not None else None
        if not isinstance(node, _FUNCTIONS) or holder.parent is None or holder.parent.kind is not ScopeKind.CLASS:
            return False
        params = (*node.args.posonlyargs, *node.args.args)
        return bool(params) and params[0].arg == func.id and (
            node.name == "__new__"
            or any((dotted_parts(d) or [""])[-1] == "classmethod" for d in node.decorator_list)
        )

    @functools.cached_property
    def _constructor_params(self) -> frozenset[str]:
        """The first positional parameters of the module's ``__new__`` and
        ``classmethod``-decorated functions: the only names :meth:`_builds_instance` can
        find a class's ``cls`` in (a superset: where each function stands is not asked
        here), so that every other plain call of the module is answered without a lookup."""
        out = set()
        for node in self.module.facts.binders:
            if isinstance(node, _FUNCTIONS) and (
                node.name == "__new__"
                or any((dotted_parts(d) or [""])[-1] == "classmethod" for d in node.decorator_list)
            ):
                params = (*node.args.posonlyargs, *node.args.args)
                if params:
                    out.add(params[0].arg)
        return frozenset(out)

    @functools.cached_property
    def _may_delete(self) -> bool:
        """Whether the module's text holds the keyword ``del`` as a word (no word character,
        as ``re``'s ``\\w`` counts them, on either side): a ``del`` statement (the only
        ``ast.Delete``) is spelled so, a keyword being ASCII and standing between characters
        no identifier or number holds. Without one, no class of the module is walked for it
        (:meth:`_init_certain`)."""
        text = self.module.text
        at = text.find("del")
        while at != -1:  # ``str.find``: the word's neighbours tested only where it stands
            before = text[at - 1] if at else " "
            after = text[at + 3] if at + 3 < len(text) else " "
            if not (before.isalnum() or before == "_" or after.isalnum() or after == "_"):
                return True
            at = text.find("del", at + 3)
        return False

    def _subclasses(self, cls: Scope) -> list[ast.ClassDef]:
        """The same-file classes that inherit from ``cls`` (bases by plain name,
        transitively), whatever their own ``__init__``."""
        assert isinstance(cls.node, ast.ClassDef) and cls.parent is not None
        found: list[tuple[str, Scope, ast.ClassDef]] = [(cls.node.name, cls.parent, cls.node)]
        seen = {id(cls.node)}
        classes = [n for n in self.module.facts.binders if isinstance(n, ast.ClassDef)]
        i = 0
        while i < len(found):
            name, bound_in, _ = found[i]
            i += 1
            for node in classes:
                if id(node) in seen:
                    continue
                for base in node.bases:
                    if not (isinstance(base, ast.Name) and base.id == name):
                        continue
                    outer = self.scopes.scope_of(base)
                    if outer.lookup(name) is bound_in:
                        seen.add(id(node))
                        found.append((node.name, outer.lookup(node.name) or outer, node))
                        break
        return [node for _, _, node in found[1:]]

    def _classes_inheriting_init(self, cls: Scope) -> list[tuple[str, Scope]]:
        """``(name, scope binding it)`` of a class and of each same-file subclass (bases
        by plain name, transitively) that does not define its own ``__init__``."""
        assert isinstance(cls.node, ast.ClassDef) and cls.parent is not None
        found = [(cls.node.name, cls.parent)]
        seen = {id(cls.node)}
        classes = [n for n in self.module.facts.binders if isinstance(n, ast.ClassDef)]
        i = 0
        while i < len(found):
            name, bound_in = found[i]
            i += 1
            for node in classes:
                if id(node) in seen or any(
                    isinstance(b, _FUNCTIONS) and b.name == "__init__" for b in node.body
                ):
                    continue
                for base in node.bases:
                    if not (isinstance(base, ast.Name) and base.id == name):
                        continue
                    outer = self.scopes.scope_of(base)  # where the class statement runs
                    if outer.lookup(name) is bound_in:
                        seen.add(id(node))
                        found.append((node.name, outer.lookup(node.name) or outer))
                        break
        return found

    # -- <self>.<name> -------------------------------------------------------------------------
    def _method(self, chain: list[Scope]) -> Scope | None:
        """The innermost method around the call that has a first positional parameter
        (``None`` when there is none); whether a read of that parameter at the call is
        the method's own instance is :meth:`TargetFinder.instance_method_of`'s to say."""
        for s in chain:
            if s.kind is ScopeKind.FUNCTION and isinstance(s.node, _FUNCTIONS):
                parent = s.parent
                if parent is not None and parent.kind is ScopeKind.CLASS:
                    args = s.node.args
                    return s if (args.posonlyargs or args.args) else None
        return None

    @staticmethod
    def _first_param(method: Scope) -> str:
        node = method.node
        assert isinstance(node, _FUNCTIONS)
        return (*node.args.posonlyargs, *node.args.args)[0].arg

    def _attribute_check(self, method: Scope, name: str, call: ast.Call):
        def check() -> Bound:
            first = self._first_param(method)
            if self.finder.instance_method_of(call, first) is not method:
                # an inner def/lambda/comprehension binds its own, or the method
                # rebinds or deletes it somewhere
                return Bound.UNBOUND
            cls = method.parent
            assert cls is not None and isinstance(cls.node, ast.ClassDef)
            values = self._attribute_writes(cls, name)
            if values is None:
                return Bound.UNBOUND
            if any(
                (v is not None and (finder._value_against(v) or finder.maker_against(v)))
                or (a is not None and finder._annotation(a, method) == "other")
                for finder, v, a in values
            ):
                self._why = ("attribute-against", name, None)
                for finder, v, _ in values:  # trial 27: the file, as a local's reason names it
                    made = finder.maker_against(v) if v is not None else None
                    if made is not None:
                        self._reasons[(id(call), f"{first}.{name}")] = Reason(
                            "evidence-against", made, finder._related(v, made)
                        )
                        break
                return Bound.UNBOUND  # evidence against a training config (the table)
            if bound_at(self.scopes, first, call) is not Bound.CERTAIN:
                return Bound.UNBOUND
            weak = self._per_class("weak", cls, name, lambda: any(
                # a bare declaration (``cfg: DictConfig``) says nothing either way
                finder.value_trust(v) != "strong"
                for finder, v, a in values
                if not (v is None and a is not None)
                # ``self.config = None`` until ``run(config)`` sets it (verl's TaskRunner):
                # passing None is passing nothing
                and not (isinstance(v, ast.Constant) and v.value is None)
            ))
            fields = self._per_class(
                "fields", cls, name, lambda: self._field_trust(cls.node, name, set())
            )
            if fields == "against":
                self._why = ("attribute-against", name, None)
                return Bound.UNBOUND  # ``T("ppo.yaml")`` fills the dataclass field
            if weak or fields == "weak" or not self._per_class(
                "init", cls, name, lambda: self._init_certain(cls.node, name, {id(cls.node)})
            ):
                self._why = ("attribute" if not (weak or fields == "weak") else "attribute-weak", name, None)
                return Bound.POSSIBLE  # set somewhere, maybe not yet (or not to a config)
            # issue 27: a subclass in another file may rebind ``self.<name>`` after
            # ``super().__init__()`` (``self.config = LoggingConfig()``): the class is an
            # origin the cross-file judgement reads the run's other files for
            scope = self.scopes.scope_for_node(cls.node)
            if self.follow_values and self._origins is not None and scope is not None and not any(
                o.kind == "init" and o.qualname == qualname(scope_frames(scope))
                for o in self._origins
            ):  # (one origin per class: its ``__init__``'s parameter, if that set it)
                self._record_fields(cls.node, name, None)
            return Bound.CERTAIN

        return check

    def _per_class(self, what: str, cls: Scope, name: str, compute: Callable[[], object]):
        """``compute()``, once per class, attribute and question: the caller phase asks of
        every call in a file, and walking a large class (``ast.walk`` for its ``del``s, its
        ``__init__``, its subclasses' writes) for each was minutes on verl's tree (a
        tester's ``check`` of verl 0.9.1 beside a fork: 40 s)."""
        origins = self._origins
        if origins is None:  # outside :meth:`find`: nothing to record, nothing kept
            return compute()
        key = (id(cls.node), name, what)
        known = self._attribute_facts.get(key)
        if known is None:
            # the parameters the answer rests on (:meth:`find`'s origins, which the
            # cross-file judge checks) are recorded again with each answer given
            start = len(origins)
            known = self._attribute_facts[key] = (compute(), tuple(origins[start:]))
        else:
            origins.extend(known[1])
        return known[0]

    def _attribute_writes(self, cls: Scope, name: str) -> list | None:
        """``(finder, value, annotation)`` of every write of ``<self>.<name>`` for instances
        of ``cls``: its own and its bases' (:meth:`_class_attributes`), then the others
        (:meth:`_other_writes`); ``None`` when neither the class nor a base binds it."""

        def compute() -> list | None:
            values = self._class_attributes(cls.node, set()).get(name)
            return None if values is None else [*values, *self._other_writes(cls, name)]

        return self._per_class("writes", cls, name, compute)  # type: ignore[return-value]

    def _other_writes(self, cls: Scope, name: str) -> Iterator[tuple]:
        """``(finder, value, annotation)`` of the writes to ``<self>.<name>`` that
        :meth:`_class_attributes` does not see: a same-file subclass's own (its
        ``__init__``'s ``self.config = path``, a ``config`` property), and writes from
        outside the class on an object that may be an instance of it (``t.config = d``,
        ``setattr(t, "config", d)``, ``t.__dict__.update(...)``, ``vars(t)[k] = v``,
        ``del t.config``). An outside write of a value not positively a config counts as
        :data:`_UNPACKED` (an unsafe fix at most: which object it writes is not known);
        ``self.config = ...`` in a method is not outside: it is counted with its class,
        this one's or another's (``setattr(self, ...)`` and ``self.__dict__`` are counted
        here, whichever class they are in)."""
        assert isinstance(cls.node, ast.ClassDef)
        family = [cls.node, *self._subclasses(cls)]
        for sub in family[1:]:  # with its other bases: a mixin's ``config = Descriptor()``
            yield from self._class_attributes(sub, set()).get(name, ())
        for c in family:
            if any(isinstance(b, _FUNCTIONS) and b.name in ("__getattribute__", "__setattr__") for b in c.body):
                yield self, _UNPACKED, None  # every attribute read or write goes through it
            if not all(self._passes_through(d) for d in c.decorator_list):
                yield self, _UNPACKED, None  # a class decorator of this file that replaces ``__init__``
        borrowed = {
            id(b) for c in family for b in c.body if isinstance(b, _FUNCTIONS) and not any(
                (dotted_parts(d) or [""])[-1] in ("classmethod", "staticmethod") for d in b.decorator_list
            )
        }
        for attr in self._class_attribute_reads:
            # ``T.run(other)``, ``types.MethodType(T.run, other)``: a method of the class
            # called on an object that may be no instance of it
            if any(
                isinstance(b, _FUNCTIONS) and b.name == attr.attr and id(b) in borrowed
                for c in family for b in c.body
            ):
                yield self, _UNPACKED, None
                break
        for attr in self._attribute_stores:
            if attr.attr == "__dict__" or attr.attr == name:
                if attr.attr == name and self._an_instance_seen(attr.value):
                    continue  # ``self.config = ...``: its class's own attribute
                chain = self.module.ancestors(attr)
                up = chain[-1] if chain else None
                if attr.attr == "__dict__":
                    if not self._written_through(attr, up):
                        continue
                    yield self, _UNPACKED, None
                    continue
                value = up.value if isinstance(up, (ast.Assign, ast.AnnAssign)) else None
                if value is None or self._passed_trust(value) != "strong":
                    yield self, _UNPACKED, None
        for call in self._builtin_or_dunder_calls:
            func = call.func
            args = call.args
            if isinstance(func, ast.Attribute) and func.attr in ("__setattr__", "__delattr__"):
                # ``object.__setattr__(t, "config", d)`` (a frozen dataclass's
                # ``__post_init__``), ``t.__setattr__("config", d)``
                unbound = isinstance(func.value, ast.Name) and func.value.id in ("object", "super")
                args = args if unbound or isinstance(func.value, ast.Call) else [func.value, *args]
                func = ast.Name(id=func.attr.strip("_"), ctx=ast.Load())
            elif not isinstance(func, ast.Name) or self._builtin(func) == set():
                continue
            if func.id in ("setattr", "delattr") and args:
                key = args[1] if len(args) > 1 else None
                if isinstance(key, ast.Constant) and key.value != name:
                    continue
                value = args[2] if func.id == "setattr" and len(args) > 2 else None
                if value is None or self._passed_trust(value) != "strong":
                    yield self, _UNPACKED, None
            elif func.id == "vars" and len(args) == 1:
                chain = self.module.ancestors(call)
                if chain and self._written_through(call, chain[-1]):
                    yield self, _UNPACKED, None

    # The module's nodes :meth:`_other_writes` looks at, whatever the class and attribute
    # it is asked about (once per class and attribute: 441 times over the 60 files of
    # ``test_safe_fixes_on_real_files_are_never_flagged_by_basedpyright``, each time
    # resolving every attribute's object and every call's callee again). Each keeps the
    # module's order, and the tests it drops are pure lookups of the module's bindings.

    @functools.cached_property
    def _class_attribute_reads(self) -> list[ast.Attribute]:
        """``T.<attr>`` with ``T`` a name bound by a ``class`` statement, ``<attr>`` not
        ``__init__``, in source order."""
        return [
            attr for attr in self.module.facts.attributes
            if isinstance(attr.value, ast.Name) and attr.attr != "__init__" and self._is_class_name(attr.value)
        ]

    @functools.cached_property
    def _attribute_stores(self) -> list[ast.Attribute]:
        """Every ``<obj>.__dict__`` and every attribute written or deleted, in source order."""
        return [
            attr for attr in self.module.facts.attributes
            if attr.attr == "__dict__" or not isinstance(attr.ctx, ast.Load)
        ]

    @functools.cached_property
    def _builtin_or_dunder_calls(self) -> list[ast.Call]:
        """The calls of a builtin by its plain name and of ``<obj>.__setattr__``/
        ``<obj>.__delattr__``, in source order."""
        return [
            call for call in self.module.facts.calls
            if (isinstance(call.func, ast.Attribute) and call.func.attr in ("__setattr__", "__delattr__"))
            or (isinstance(call.func, ast.Name) and self._builtin(call.func) != set())
        ]

    def _written_through(self, mapping: ast.expr, up: ast.AST | None) -> bool:
        """Whether an instance's ``__dict__`` / ``vars(x)`` is written: assigned,
        ``.update(...)``/``.setdefault(...)``/``.__setitem__(...)``, or a key stored."""
        if isinstance(mapping, ast.Attribute) and not isinstance(mapping.ctx, ast.Load):
            return True
        if isinstance(up, ast.Attribute) and up.value is mapping:
            return up.attr in ("update", "setdefault", "__setitem__", "pop", "clear", "popitem")
        return isinstance(up, ast.Subscript) and up.value is mapping and not isinstance(up.ctx, ast.Load)

    def _an_instance_seen(self, obj: ast.expr) -> bool:
        """Whether ``obj`` is a method's own instance (``self``): its writes are that
        class's own attributes, counted with the class (or not this class's at all)."""
        return isinstance(obj, ast.Name) and self.finder.instance_method_of(obj, obj.id) is not None

    def _field_trust(self, cls: ast.ClassDef, name: str, seen: set[int]) -> str | None:
        """What the constructions of a dataclass hand its field ``name`` (its
        generated ``__init__`` takes one parameter per field, in declaration order)
        and the field's default (``= d``, ``field(default=d)``,
        ``field(default_factory=lambda: d)``), judged like a parameter's callers
        (:meth:`_passed_trust`); the field may be declared by a same-file base.
        ``dataclasses.replace(t, name=d)`` builds one too. ``None`` when no dataclass
        here declares it. A dataclass with bases has fields
        before its own: its positional arguments are not matched (``"weak"`` if any)."""
        seen.add(id(cls))
        if not _is_dataclass(cls):
            for base in cls.bases:
                found = self._base_class(base)
                if found is not None and found[0] is self and id(found[1]) not in seen:
                    trust = self._field_trust(found[1], name, seen)
                    if trust is not None:
                        return trust
            return None
        fields = [
            stmt for stmt in cls.body
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
            and "ClassVar" not in ast.unparse(stmt.annotation)
        ]
        declared = next((f for f in fields if f.target.id == name), None)  # type: ignore[union-attr]
        scope = self.scopes.scope_for_node(cls)
        if declared is None or scope is None:
            return None
        trusts: list[str | None] = []
        default = declared.value
        if isinstance(default, ast.Call) and (dotted_parts(default.func) or [""])[-1] == "field":
            for k in default.keywords:
                if k.arg == "default":
                    trusts.append(self._passed_trust(k.value))
                elif k.arg == "default_factory":
                    factory = k.value
                    trusts.append(
                        self._passed_trust(factory.body) if isinstance(factory, ast.Lambda)
                        else self._passed_trust(ast.Call(func=factory, args=[], keywords=[]))
                    )
        unknown = bool(cls.bases) or "KW_ONLY" in ast.unparse(cls)
        position = None if unknown else fields.index(declared)
        self._record_fields(cls, name, position)
        for value in self._init_values(scope, position, name):
            trusts.append(self._passed_trust(value))
        for call in self.module.facts.calls:  # ``dataclasses.replace(t, config=d)``: a copy
            if call.keywords and self._qualified(call.func) & {"dataclasses.replace", "copy.replace"}:
                trusts.extend(self._passed_trust(k.value) for k in call.keywords if k.arg in (name, None))
        if unknown:
            for call in self._class_calls(scope):
                if call.args:
                    trusts.append("weak")
        return _worst(trusts)

    def _class_calls(self, cls: Scope) -> Iterator[ast.Call]:
        for name, bound_in in self._classes_inheriting_init(cls):
            for load in self.module.facts.loads.get(name, ()):
                if self.scopes.scope_of(load).lookup(name) is bound_in:
                    call = self._call_through(load)
                    if isinstance(call, ast.Call) and call is not _ESCAPES and call is not _ATTRIBUTE:
                        yield call

    def _init_certain(self, cls: ast.ClassDef, name: str, seen: set[int]) -> bool:
        """Whether every instance has ``<self>.<name>`` before any other method runs: the
        class body binds it, or the ``__init__`` in effect (the class's own, else its first
        base's found in the analysed files) assigns it at its top level before any call of
        its own methods, directly or through ``super().__init__(...)`` /
        ``Base.__init__(self, ...)``; and nothing in the class deletes it."""
        if self._makes_bare_instances:
            return False  # ``cls.__new__(cls)`` makes instances no __init__ ran on
        for node in ast.walk(cls) if self._may_delete else ():
            if isinstance(node, ast.Delete) and any(
                isinstance(t, ast.Attribute) and t.attr == name for t in node.targets
            ):
                return False
        for stmt in cls.body:
            if isinstance(stmt, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in stmt.targets
            ):
                return True
            if isinstance(stmt, ast.AnnAssign) and stmt.value is not None and (
                isinstance(stmt.target, ast.Name) and stmt.target.id == name
            ):
                return True
        init = next((s for s in cls.body if isinstance(s, _FUNCTIONS) and s.name == "__init__"), None)
        if init is None and _is_dataclass(cls):
            # a dataclass's generated __init__ sets every field it declares (not ClassVar)
            return any(
                isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                and stmt.target.id == name and "ClassVar" not in ast.unparse(stmt.annotation)
                for stmt in cls.body
            )
        if init is None:
            return self._base_init_certain(cls, name, seen)
        params = (*init.args.posonlyargs, *init.args.args)
        if not params or init.decorator_list:
            return False
        me = params[0].arg
        for stmt in init.body:
            targets = (
                stmt.targets if isinstance(stmt, ast.Assign)
                else [stmt.target] if isinstance(stmt, ast.AnnAssign) and stmt.value is not None
                else []
            )
            if any(
                isinstance(t, ast.Attribute) and t.attr == name
                and isinstance(t.value, ast.Name) and t.value.id == me
                for t in targets
            ):
                return True
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                func = stmt.value.func
                if isinstance(func, ast.Attribute) and func.attr == "__init__":
                    if self._base_init_certain(cls, name, seen):
                        return True
                    if self._base_init_calls_methods(cls):
                        return False  # a hook a subclass overrides may read it unset
                    continue
            if isinstance(stmt, (ast.Return, ast.Raise)):
                return False
            properties = self._properties(cls)
            for node in _walk_here(stmt):
                if isinstance(node, ast.Return):
                    return False  # ``if config is None: return``: an instance without it
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == me
                ):
                    return False  # one of its own methods may read it unset
                if (
                    isinstance(node, ast.Attribute) and node.attr in properties
                    and isinstance(node.value, ast.Name) and node.value.id == me
                ):
                    return False  # a property may read it unset
        return False

    def _properties(self, cls: ast.ClassDef) -> set[str]:
        """Names of the methods of ``cls`` and its same-file bases read as attributes
        (``@property``, ``@functools.cached_property``, ``@x.setter``)."""
        out: set[str] = set()
        # each class with the finder of its own module: a base found in another file has
        # its own bases looked up there (this module's scopes do not hold its nodes: a
        # KeyError that ended verl's one-step-off trainer's analysis, a fresh tester's)
        stack: list[tuple[ConfigFinder, ast.ClassDef]] = [(self, cls)]
        seen: set[int] = set()
        while stack:
            finder, c = stack.pop()
            if id(c) in seen:
                continue
            seen.add(id(c))
            for b in c.body:
                if isinstance(b, _FUNCTIONS) and any(
                    (dotted_parts(d) or [""])[-1] in ("property", "cached_property", "setter", "getter")
                    for d in b.decorator_list
                ):
                    out.add(b.name)
            for base in c.bases:
                found = finder._base_class(base)
                if found is not None:
                    stack.append(found)
        return out

    def _base_init_calls_methods(self, cls: ast.ClassDef) -> bool:
        """Whether the ``__init__`` a ``super().__init__(...)`` of ``cls`` reaches (its
        first base's, found in the analysed files) calls a method of the instance or
        returns early: a subclass's override may run before the subclass sets its
        attributes (``Worker.__init__`` calling ``self._setup()``). ``False`` for a base
        outside the analysed files (its code is not here) and for ``object``."""
        for base in cls.bases:
            found = self._base_class(base)
            if found is None:
                return False
            finder, base_def = found
            init = next((b for b in base_def.body if isinstance(b, _FUNCTIONS) and b.name == "__init__"), None)
            if init is None:
                return finder._base_init_calls_methods(base_def) if base_def is not cls else False
            params = (*init.args.posonlyargs, *init.args.args)
            me = params[0].arg if params else None
            return any(
                isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and isinstance(n.func.value, ast.Name) and n.func.value.id == me
                and n.func.attr != "__init__"
                for n in ast.walk(init)
            )
        return False

    @functools.cached_property
    def _makes_bare_instances(self) -> bool:
        """Whether the module calls ``X.__new__(...)`` (instances no ``__init__`` ran on)."""
        return any(
            isinstance(c.func, ast.Attribute) and c.func.attr == "__new__"
            for c in self.module.facts.calls
        )

    def _base_init_certain(self, cls: ast.ClassDef, name: str, seen: set[int]) -> bool:
        for base in cls.bases:
            found = self._base_class(base)
            if found is None:
                return False  # a base outside the analysed files: its __init__ is unknown
            finder, base_def = found
            if id(base_def) in seen:
                return False
            return finder._init_certain(base_def, name, seen | {id(base_def)})
        return False

    def _class_attributes(self, cls: ast.ClassDef, seen: set[int]) -> dict[str, list]:
        """Attribute name -> ``(finder, assigned value, annotation)`` (``None`` for a bare
        declaration) of a class and its base classes: those defined in this module, and
        those another file of the project defines (through :attr:`classes`, the
        cross-file index), each value with the finder of its own module."""
        cached = self._attrs.get(id(cls))
        if cached is not None:
            return cached
        seen.add(id(cls))
        out: dict[str, list] = {}
        for base in cls.bases:
            found = self._base_class(base)
            if found is None:
                continue
            finder, base_def = found
            if id(base_def) in seen:
                continue
            for k, v in finder._class_attributes(base_def, seen).items():
                out.setdefault(k, []).extend(v)
        for k, v in _own_attributes(cls).items():
            out.setdefault(k, []).extend((self, value, annotation) for value, annotation in v)
        self._attrs[id(cls)] = out
        return out

    def _base_class(self, base: ast.expr) -> tuple[ConfigFinder, ast.ClassDef] | None:
        """The definition of a base class: in this module (a name bound once, by a
        ``class`` statement), or through an import in another file of the project."""
        parts = dotted_parts(base)
        if parts is None:
            return None
        if len(parts) == 1:
            holder = self.scopes.scope_of(base).lookup(parts[0])
            if holder is None:
                return None
            defs = [b.node for b in self.finder.bindings_in(holder, parts[0])]
            if len(defs) == 1 and isinstance(defs[0], ast.ClassDef):
                return self, defs[0]
        if self.classes is None:
            return None
        found = self.finder.qualified_names(base)
        if found is None or found[1] or len(found[0]) != 1:
            return None  # not one import: a local binding, or bound twice
        qualified = resolve_relative(found[0][0], self.finder.package)
        other = self.classes.find_class(qualified) if qualified else None
        if other is None:
            return None
        analysis, class_def = other
        finder = analysis.configs
        # what the other file's parameters vouch for is judged with this candidate's
        # callers in other files too (:meth:`_record_origin`)
        if finder._origins is not self._origins:
            finder._origins = self._origins
            JudgementMemo._retargets += 1
        return finder, class_def


def _own_attributes(cls: ast.ClassDef) -> dict[str, list]:
    """Attribute name -> ``(assigned value, annotation)`` pairs (``None`` when not known) of
    one class: names the
    class body binds, and ``<self>.X`` targets in its methods (``<self>`` being each
    method's own first parameter; functions nested in a method included, nested classes not)."""
    out: dict[str, list] = {}

    def target(t: ast.AST, value, selfname: str | None, in_method: bool, annotation=None) -> None:
        if isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                target(e, None, selfname, in_method)
        elif isinstance(t, ast.Starred):
            target(t.value, None, selfname, in_method)
        elif isinstance(t, ast.Attribute):
            if in_method and isinstance(t.value, ast.Name) and t.value.id == selfname:
                out.setdefault(t.attr, []).append((value, annotation))
        elif isinstance(t, ast.Name) and not in_method:
            out.setdefault(t.id, []).append((value, annotation))

    def walk(nodes, selfname: str | None, in_method: bool) -> None:
        for node in nodes:
            if isinstance(node, ast.ClassDef):
                continue
            if isinstance(node, _FUNCTIONS):
                if in_method:
                    walk(node.body, selfname, True)
                else:
                    # ``@property def config(self)``: whatever it returns (weak at best)
                    out.setdefault(node.name, []).append((_UNPACKED, None))
                    params = (*node.args.posonlyargs, *node.args.args)
                    walk(node.body, params[0].arg if params else None, True)
                continue
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    target(t, node.value, selfname, in_method)
            elif isinstance(node, ast.AnnAssign):
                target(node.target, node.value, selfname, in_method, node.annotation)
            elif isinstance(node, (ast.AugAssign, ast.For, ast.AsyncFor)):
                target(node.target, None, selfname, in_method)  # ``for self.config in sweep``
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if item.optional_vars is not None:
                        target(item.optional_vars, None, selfname, in_method)
            # assignments are statements: only nested blocks can hold more
            for block in _STATEMENT_BLOCKS:
                inner = getattr(node, block, None)
                if inner:
                    walk(inner, selfname, in_method)
            if isinstance(node, ast.Match):
                for case in node.cases:
                    walk(case.body, selfname, in_method)

    walk(cls.body, None, False)
    for node in ast.walk(cls):  # ``[0 for self.config in sweep]``: whatever it iterates
        if isinstance(node, ast.comprehension):
            for t in ast.walk(node.target):
                if isinstance(t, ast.Attribute):
                    out.setdefault(t.attr, []).append((None, None))
    return out


__all__ = ["DICTCONFIG_NAMES", "VERL_SECTIONS", "ConfigChoice", "ConfigFinder"]
