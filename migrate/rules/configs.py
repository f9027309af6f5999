"""Which config expression to pass at a configless target call, and whether the fix is safe.

Candidates, in Python's lookup order at the call (innermost scope first; in one
scope the ``config-names`` setting in its order, then parameters annotated
``DictConfig``; then ``<self>.<name>`` in the innermost instance method; then
module globals):

* a **config name** (``config``, ``cfg`` by default): the binding Python's lookup
  finds at the call (:meth:`ppo_migrate.rules.scopes.Scope.lookup`: a name a
  class body or a ``global`` statement hides is never taken);
* a parameter annotated ``DictConfig`` (``omegaconf.DictConfig`` by qualified
  name, also inside ``Optional[...]``/``... | None``), under any name;
* ``<self>.<name>`` for a config name: only in a method (not ``staticmethod``/
  ``classmethod``) whose first parameter ``<self>`` nothing rebinds or deletes,
  the call not in a nested function, lambda or comprehension that binds its own
  ``<self>``; the attribute declared in the class body or assigned to
  ``<self>.<name>`` in a method of the class or of a base class defined in the
  same file or, through an import, in another file of the project
  (:mod:`ppo_migrate.rules.index`).

Whether a name is bound at the call is :func:`ppo_migrate.rules.flow.bound_at`'s
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
import operator
from collections.abc import Iterator

from ppo_migrate.rules.config_annotations import AnnotationKinds
from ppo_migrate.rules.config_attributes import SelfAttributes
from ppo_migrate.rules.config_callers import _DOUBLE_QUOTED as _DOUBLE_QUOTED
from ppo_migrate.rules.config_callers import _SINGLE_QUOTED as _SINGLE_QUOTED
from ppo_migrate.rules.config_callers import CallerValues
from ppo_migrate.rules.config_classes import ClassConstruction
from ppo_migrate.rules.config_entry_points import EntryPointEvidence
from ppo_migrate.rules.config_files import ConfigFileEvidence
from ppo_migrate.rules.config_instances import InstanceState
from ppo_migrate.rules.config_lookup import NameLookup
from ppo_migrate.rules.config_makers import MakerEvidence
from ppo_migrate.rules.config_memo import JudgementMemo, _Frame, _Memo
from ppo_migrate.rules.config_model import _FUNCTIONS, DICTCONFIG_NAMES, ConfigChoice, Why
from ppo_migrate.rules.config_model import _PATH_CALLS as _PATH_CALLS
from ppo_migrate.rules.config_notes import EvidenceNotes
from ppo_migrate.rules.config_positive import PositiveConfig
from ppo_migrate.rules.config_returns import CalleeReturns
from ppo_migrate.rules.config_syntax import _UNPACKED as _UNPACKED
from ppo_migrate.rules.config_syntax import _default_of as _default_of
from ppo_migrate.rules.config_syntax import _passed_value as _passed_value
from ppo_migrate.rules.config_syntax import _repository_top as _repository_top
from ppo_migrate.rules.config_syntax import _stringish as _stringish
from ppo_migrate.rules.config_trust import BindingTrust
from ppo_migrate.rules.evidence import VERL_SECTIONS
from ppo_migrate.rules.flow import Bound, bound_at
from ppo_migrate.rules.index import ClassIndex
from ppo_migrate.rules.module import ParsedModule
from ppo_migrate.rules.scopes import Scope, ScopeKind, ScopeTree
from ppo_migrate.rules.targets import TargetFinder, all_args
from ppo_migrate.diagnostics import CallerOrigin, Reason


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
    ClassConstruction,
    InstanceState,
    SelfAttributes,
):
    """Decides the config to pass at each configless target call of one module.

    Args:
        module: the parsed module.
        scopes: its scope tree.
        finder: the module's :class:`ppo_migrate.rules.targets.TargetFinder`
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

    This class holds the finder's state and its answer (:meth:`find`, the candidates in
    lookup order, a name's check); the judgements are split by concern (issue 26), one
    class each, mixed in here:

    * :class:`~ppo_migrate.rules.config_memo.JudgementMemo`: the memo of the recursive
      judgements and their cycle guards;
    * :class:`~ppo_migrate.rules.config_notes.EvidenceNotes`: the evidence noted and the
      :class:`ppo_migrate.diagnostics.Reason` kept (:meth:`reason`);
    * :class:`~ppo_migrate.rules.config_lookup.NameLookup`: qualified names, builtins,
      imports, single values;
    * :class:`~ppo_migrate.rules.config_annotations.AnnotationKinds`: what an
      annotation says;
    * :class:`~ppo_migrate.rules.config_trust.BindingTrust`: a binding's and a value's
      trust (:meth:`value_trust`);
    * :class:`~ppo_migrate.rules.config_returns.CalleeReturns`: what a same-file callee
      returns;
    * :class:`~ppo_migrate.rules.config_makers.MakerEvidence`,
      :class:`~ppo_migrate.rules.config_files.ConfigFileEvidence`,
      :class:`~ppo_migrate.rules.config_entry_points.EntryPointEvidence`: where a
      config comes from (an OmegaConf/Hydra maker, a YAML file, a CLI decorator);
    * :class:`~ppo_migrate.rules.config_callers.CallerValues`,
      :class:`~ppo_migrate.rules.config_positive.PositiveConfig`: what callers pass
      (:meth:`caller_values`), and what is positively a training config;
    * :class:`~ppo_migrate.rules.config_classes.ClassConstruction`,
      :class:`~ppo_migrate.rules.config_instances.InstanceState`,
      :class:`~ppo_migrate.rules.config_attributes.SelfAttributes`: classes, what every
      instance holds, and the ``<self>.<name>`` candidate.

    The vocabulary (the evidence table's names, :class:`ConfigChoice`, :class:`Why`) is
    :mod:`ppo_migrate.rules.config_model`'s; the pure AST helpers are
    :mod:`ppo_migrate.rules.config_syntax`'s.
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
        """``(expression, kind, () -> Bound)`` in Python's lookup order (each check made
        when its candidate is reached: :meth:`find` stops at the first certain one)."""
        scope = self.scopes.scope_of(call)
        chain: list[Scope] = []
        s: Scope | None = scope
        while s is not None:
            chain.append(s)
            s = s.parent
        names = self.names
        # (depth, order, name, kind, the scope holding it or the method)
        ranked: list[tuple[float, int, str, str, Scope]] = []
        for order, name in enumerate(names):
            holder = scope.lookup(name)
            if holder is None:
                continue
            for depth, s in enumerate(chain):
                if s is holder:
                    ranked.append((depth, order, name, "name", holder))
                    break
        for i, s in enumerate(chain):
            node = s.node
            if s.kind is not ScopeKind.FUNCTION or not isinstance(node, _FUNCTIONS):
                continue
            for k, a in enumerate(all_args(node.args)):
                if a.annotation is None or a.arg in names:
                    continue
                if self._annotation(a.annotation, s) != "dictconfig":
                    continue
                if scope.lookup(a.arg) is not s:
                    continue  # hidden by an inner binding of the same name
                ranked.append((i, len(names) + k, a.arg, "dictconfig", s))
        method = self._method(chain)
        if method is not None:
            module_depth = len(chain) - 1
            for order, name in enumerate(names):
                ranked.append((module_depth - 0.5, order, name, "attribute", method))
        if len(ranked) > 1:
            ranked.sort(key=_RANK)
        for _, _, name, kind, where in ranked:
            if kind == "attribute":
                yield f"{self._first_param(where)}.{name}", kind, self._attribute_check(where, name, call)
            else:
                yield name, kind, self._name_check(name, where, call)

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


#: a candidate's place in the lookup order: its depth (the call's own scope first), then
#: its order in that scope (:meth:`ConfigFinder._candidates`)
_RANK = operator.itemgetter(0, 1)

__all__ = ["DICTCONFIG_NAMES", "VERL_SECTIONS", "ConfigChoice", "ConfigFinder"]
