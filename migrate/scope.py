"""Which config expression is visible at a call?

Built on LibCST's ``ScopeProvider`` (scopes, assignments, ``global``/``nonlocal``)
and ``QualifiedNameProvider`` (``DictConfig`` annotations), with the gaps LibCST
leaves filled here:

* LibCST's scope answers ignore source position: a binding counts here only when
  it comes before the call in source order (for module globals seen from inside
  a function, anywhere at module level), and a ``del`` in between undoes it;
* a walrus inside a comprehension binds in the enclosing function (PEP 572),
  LibCST puts it in the comprehension's scope;
* ``match`` captures (``case {"k": cfg}``, ``case Cfg() as cfg``) are not
  assignments in LibCST at all;
* ``except E as cfg`` binds only inside its handler;
* an annotation without a value (``cfg: DictConfig``) makes a name local but
  binds nothing;
* a name that is local to a function but not yet bound at the call hides the
  enclosing and global bindings of that name (Python raises
  ``UnboundLocalError`` there).

The search order is the one Python uses for name lookup: the innermost function
scope outwards (in each, the configured config names in order, then parameters
annotated ``DictConfig``), then ``self.<name>`` in a method, then module globals.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import (
    Assignment,
    BaseAssignment,
    ClassScope,
    CodeRange,
    ComprehensionScope,
    FunctionScope,
    GlobalScope,
    ImportAssignment,
    QualifiedName,
    Scope,
)

DICTCONFIG_NAMES = frozenset({"omegaconf.DictConfig", "omegaconf.dictconfig.DictConfig"})

Pos = tuple[int, int]  # (line 1-based, column 0-based), LibCST's CodeRange start/end
_ALWAYS: Pos = (0, 0)
_NEVER: Pos = (1 << 62, 0)
_END_OF_MODULE: Pos = (1 << 61, 0)  # "any time": later than every real position


@dataclass(frozen=True)
class ConfigInScope:
    """A config expression visible at a call.

    Attributes:
        expression: Python source of the expression, e.g. ``"cfg"`` or
            ``"self.config"``.
        kind: how it was found: ``"parameter"``, ``"local"``, ``"closure"``,
            ``"comprehension"``, ``"class"``, ``"attribute"`` or ``"global"``.
    """

    expression: str
    kind: str


@dataclass(frozen=True)
class _Event:
    """A binding (``bind=True``) or ``del`` of a name in one scope, in source order.

    ``start`` is when the name becomes bound; ``end`` when it stops (the end of an
    ``except ... as`` handler), ``_NEVER`` otherwise. ``guards`` are the branches
    (``if``/``else`` bodies, ``try`` bodies, ``except`` handlers, ``case`` bodies,
    conditional expressions) the binding sits in: it is certain only for code
    inside all of them.
    """

    start: Pos
    end: Pos
    bind: bool
    param: bool = False
    guards: tuple[cst.CSTNode, ...] = ()  # the binding happens only inside all of these


def _pos(code_range: CodeRange, end: bool = False) -> Pos:
    p = code_range.end if end else code_range.start
    return (p.line, p.column)


class ConfigResolver:
    """Answers "which config is in scope at this node?" for one parsed module.

    Args:
        module: the parsed module.
        scopes: ``ScopeProvider`` results (node -> scope).
        parents: ``ParentNodeProvider`` results (node -> parent).
        positions: ``PositionProvider`` results (node -> CodeRange).
        qualified_names: callable giving ``QualifiedNameProvider`` names for a node.
        config_names: names that hold a training config, in priority order
            (default setting: ``("config", "cfg")``).
    """

    def __init__(
        self,
        module: cst.Module,
        scopes: Mapping[cst.CSTNode, Scope | None],
        parents: Mapping[cst.CSTNode, cst.CSTNode],
        positions: Mapping[cst.CSTNode, CodeRange],
        qualified_names,
        config_names: Sequence[str],
    ) -> None:
        self._scopes = scopes
        self._parents = parents
        self._positions = positions
        self._qnames = qualified_names
        self._config_names = tuple(config_names)
        # Bindings LibCST misses (walrus in comprehensions, match captures) and dels.
        self._extra: dict[Scope, dict[str, list[_Event]]] = defaultdict(lambda: defaultdict(list))
        self._events_cache: dict[tuple[int, str], tuple[bool, list[_Event]]] = {}
        self._self_attrs: dict[cst.ClassDef, frozenset[str]] = {}
        module.visit(_ExtrasCollector(self))

    # -- public ---------------------------------------------------------------
    def find(self, node: cst.CSTNode) -> ConfigInScope | None:
        """The config expression visible at ``node``, or ``None``.

        Args:
            node: a node of the module (typically a ``cst.Call``).

        Returns:
            The first :class:`ConfigInScope` in Python's lookup order, or ``None``
            when no config is in scope (an entry point that needs one).
        """
        scope = self._scopes.get(node)
        if scope is None:
            return None
        at = _pos(self._positions[node])
        around = self._ancestors(node)
        chain = self._chain(scope)
        in_function = any(isinstance(s, FunctionScope) for s in chain)
        blocked: set[str] = set()
        method: FunctionScope | None = None
        for index, s in enumerate(chain):
            if isinstance(s, GlobalScope):
                break
            if isinstance(s, ClassScope) and index != 0:
                continue  # a class body is no enclosing scope for its methods or comprehensions
            closure = index > 0 and not all(
                isinstance(c, ComprehensionScope) for c in chain[:index]
            )
            for name in self._config_names:
                if name in blocked:
                    continue
                state = self._state(
                    s, name, at, always=isinstance(s, ComprehensionScope), around=around
                )
                if state == "bound":
                    return ConfigInScope(name, self._kind(s, name, closure))
                if state == "unbound-local" and not isinstance(s, ClassScope):
                    blocked.add(name)
            if isinstance(s, FunctionScope):
                found = self._annotated_param(s, blocked)
                if found is not None:
                    return ConfigInScope(found, "closure" if closure else "parameter")
                if method is None and self._is_instance_method(s):
                    method = s
        if method is not None:
            cls = self._class_of(method)
            attrs = self._self_attributes(cls)
            for name in self._config_names:
                if name in attrs:
                    return ConfigInScope(f"self.{name}", "attribute")
        glob = chain[-1]
        for name in self._config_names:
            if name in blocked:
                continue
            # from inside a function any module-level binding counts; at module level
            # only one that is certain to have run before the call
            state = self._state(
                glob,
                name,
                _END_OF_MODULE if in_function else at,
                always=False,
                around=None if in_function else around,
            )
            if state == "bound":
                return ConfigInScope(name, "global")
        return None

    # -- scope chain ----------------------------------------------------------
    def _chain(self, scope: Scope) -> list[Scope]:
        chain = [scope]
        while not isinstance(chain[-1], GlobalScope):
            parent = chain[-1].parent
            if parent is chain[-1]:
                break
            chain.append(parent)
        return chain

    def _kind(self, scope: Scope, name: str, closure: bool) -> str:
        if isinstance(scope, ComprehensionScope):
            return "comprehension"
        if isinstance(scope, ClassScope):
            return "class"
        if closure:
            return "closure"
        events = self._events(scope, name)[1]
        return "parameter" if any(e.param for e in events) else "local"

    # -- bindings -------------------------------------------------------------
    def _events(self, scope: Scope, name: str) -> tuple[bool, list[_Event]]:
        """(is the name local to the scope, its events sorted by position)."""
        key = (id(scope), name)
        cached = self._events_cache.get(key)
        if cached is not None:
            return cached
        local = False
        events: list[_Event] = []
        for assignment in scope.assignments[name] if name in scope.assignments else ():
            if assignment.scope is not scope:
                continue
            local = True
            event = self._event_for(assignment)
            if event is not None:
                events.append(event)
        extra = self._extra.get(scope, {}).get(name, [])
        if any(e.bind for e in extra):
            local = True
        events.extend(extra)
        events.sort(key=lambda e: (e.start, not e.bind))
        result = (local, events)
        self._events_cache[key] = result
        return result

    def _state(
        self,
        scope: Scope,
        name: str,
        at: Pos,
        *,
        always: bool,
        around: frozenset[int] | None = None,
    ) -> str:
        """``"bound"``, ``"unbound-local"`` (local but not bound at ``at``) or ``"free"``.

        ``around`` holds the ids of the call's ancestors: a binding inside a branch
        counts only when the call is inside that branch too (``None``: any binding).
        """
        local, events = self._events(scope, name)
        if not local:
            return "free"
        if always:
            return "bound" if any(e.bind for e in events) else "unbound-local"
        state = False
        for e in events:
            if e.start > at:
                break
            if e.bind:
                if around is not None and not all(id(g) in around for g in e.guards):
                    continue  # bound on another branch only: not certain at the call
                state = at < e.end  # an ``except ... as`` binding ends with its handler
            else:
                state = False
        return "bound" if state else "unbound-local"

    def _ancestors(self, node: cst.CSTNode) -> frozenset[int]:
        out: set[int] = set()
        current: cst.CSTNode | None = node
        while current is not None:
            out.add(id(current))
            current = self._parents.get(current)
        return frozenset(out)

    def guards(self, node: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
        """The conditional branches around ``node`` within its scope.

        Args:
            node: a binding's node (a Name target, an import, a def).

        Returns:
            The branch nodes (``If.body``, ``Else``, ``IfExp`` operands, the right
            operand of ``and``/``or``, ``Try.body``, ``ExceptHandler``, ``Try.orelse``,
            ``MatchCase``) between ``node`` and the enclosing function, class or
            module. Loop bodies are not counted (a ``for`` target and what a loop
            binds are taken as bound after the loop, as issue #3 asks).
        """
        out: list[cst.CSTNode] = []
        child: cst.CSTNode = node
        parent = self._parents.get(child)
        while parent is not None and not isinstance(
            parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)
        ):
            if isinstance(parent, (cst.If, cst.IfExp)) and (
                child is parent.body or child is parent.orelse
            ):
                out.append(child)
            elif isinstance(parent, cst.BooleanOperation) and child is parent.right:
                out.append(child)
            elif isinstance(parent, (cst.Try, cst.TryStar)) and (
                child is parent.body or child is parent.orelse
            ):
                out.append(child)
            elif isinstance(parent, (cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase)):
                out.append(parent)
            child, parent = parent, self._parents.get(parent)
        return tuple(out)

    def _event_for(self, assignment: BaseAssignment) -> _Event | None:
        event = self._bare_event_for(assignment)
        if event is None or event.param:
            return event
        return dataclasses.replace(event, guards=self.guards(assignment.node))

    def _bare_event_for(self, assignment: BaseAssignment) -> _Event | None:
        if isinstance(assignment, ImportAssignment):
            return _Event(_pos(self._positions[assignment.node], end=True), _NEVER, True)
        if not isinstance(assignment, Assignment):
            return None
        node = assignment.node
        if isinstance(node, cst.Param):
            return _Event(_ALWAYS, _NEVER, True, param=True)
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            return _Event(_pos(self._positions[node], end=True), _NEVER, True)
        if not isinstance(node, cst.Name):
            return _Event(_pos(self._positions[node], end=True), _NEVER, True)
        child: cst.CSTNode = node
        parent = self._parents.get(child)
        while parent is not None:
            if isinstance(parent, (cst.Assign, cst.AugAssign, cst.NamedExpr)):
                return _Event(_pos(self._positions[parent], end=True), _NEVER, True)
            if isinstance(parent, cst.AnnAssign):
                if parent.value is None:
                    return None  # ``cfg: DictConfig`` makes it local, binds nothing
                return _Event(_pos(self._positions[parent], end=True), _NEVER, True)
            if isinstance(parent, (cst.For, cst.With)):
                return _Event(_pos(self._positions[parent.body]), _NEVER, True)
            if isinstance(parent, cst.ExceptHandler) or isinstance(parent, cst.ExceptStarHandler):
                return _Event(
                    _pos(self._positions[parent.body]),
                    _pos(self._positions[parent], end=True),
                    True,
                )
            if isinstance(parent, cst.CompFor):
                return _Event(_ALWAYS, _NEVER, True)
            if isinstance(parent, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                break
            child, parent = parent, self._parents.get(parent)
        return _Event(_pos(self._positions[node], end=True), _NEVER, True)

    # -- parameters and methods ----------------------------------------------
    def _annotated_param(self, scope: FunctionScope, blocked: set[str]) -> str | None:
        node = scope.node
        if not isinstance(node, (cst.FunctionDef, cst.Lambda)):
            return None
        params = node.params
        for param in (
            *params.posonly_params,
            *params.params,
            *params.kwonly_params,
        ):
            if param.annotation is None or param.name.value in blocked:
                continue
            if self._is_dictconfig(param.annotation.annotation):
                return param.name.value
        return None

    def _is_dictconfig(self, annotation: cst.BaseExpression) -> bool:
        """Whether ``DictConfig`` (by qualified name) appears in an annotation.

        Covers ``DictConfig``, ``omegaconf.DictConfig``, ``Optional[DictConfig]``
        and ``DictConfig | None``.
        """
        stack: list[cst.CSTNode] = [annotation]
        while stack:
            n = stack.pop()
            if isinstance(n, (cst.Name, cst.Attribute)):
                names: set[QualifiedName] = self._qnames(n)
                if any(q.name in DICTCONFIG_NAMES for q in names):
                    return True
                if isinstance(n, cst.Name):
                    continue
            stack.extend(n.children)
        return False

    def _is_instance_method(self, scope: FunctionScope) -> bool:
        node = scope.node
        if not isinstance(node, cst.FunctionDef) or not isinstance(scope.parent, ClassScope):
            return False
        params = (*node.params.posonly_params, *node.params.params)
        if not params or params[0].name.value != "self":
            return False
        for decorator in node.decorators:
            d = decorator.decorator
            if isinstance(d, cst.Name) and d.value in ("staticmethod", "classmethod"):
                return False
        return True

    def _class_of(self, method: FunctionScope) -> cst.ClassDef:
        parent = method.parent
        assert isinstance(parent, ClassScope)
        return parent.node  # type: ignore[return-value]

    def _self_attributes(self, cls: cst.ClassDef) -> frozenset[str]:
        """Names declared in the class body plus ``self.<name>`` assigned in its methods."""
        cached = self._self_attrs.get(cls)
        if cached is None:
            collector = _SelfAttributes()
            cls.body.visit(collector)
            cached = self._self_attrs[cls] = frozenset(collector.names)
        return cached


class _SelfAttributes(cst.CSTVisitor):
    """Collects class-body declarations and ``self.X`` assignment targets."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self._depth = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._depth += 1

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._depth -= 1

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False  # nested classes have their own ``self``

    def _target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._target(element.value)
        elif isinstance(target, cst.StarredElement):
            self._target(target.value)
        elif (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == "self"
        ):
            self.names.add(target.attr.value)
        elif isinstance(target, cst.Name) and self._depth == 0:
            self.names.add(target.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            self._target(t.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)


class _ExtrasCollector(cst.CSTVisitor):
    """Records what LibCST's scopes miss: walrus in comprehensions, match captures, dels."""

    def __init__(self, resolver: ConfigResolver) -> None:
        self.r = resolver
        self._case_body: list[Pos] = []

    def _add(self, anchor: cst.CSTNode, name: str, event: _Event) -> None:
        scope = self.r._scopes.get(anchor)
        if scope is None:
            return
        while isinstance(scope, ComprehensionScope):
            scope = scope.parent
        self.r._extra[scope][name].append(event)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        scope = self.r._scopes.get(node)
        if isinstance(scope, ComprehensionScope) and isinstance(node.target, cst.Name):
            end = _pos(self.r._positions[node], end=True)
            self._add(node, node.target.value, _Event(end, _NEVER, True, guards=self.r.guards(node)))

    def visit_MatchCase(self, node: cst.MatchCase) -> None:
        self._case_body.append(_pos(self.r._positions[node.body]))

    def leave_MatchCase(self, original_node: cst.MatchCase) -> None:
        self._case_body.pop()

    def _capture(self, node: cst.CSTNode, name: cst.Name | None) -> None:
        if name is not None and self._case_body:
            self._add(
                node, name.value, _Event(self._case_body[-1], _NEVER, True, guards=self.r.guards(node))
            )

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        self._capture(node, node.name)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        self._capture(node, node.name)

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        self._capture(node, node.rest)

    def visit_Del(self, node: cst.Del) -> None:
        end = _pos(self.r._positions[node], end=True)
        stack: list[cst.BaseExpression] = [node.target]
        while stack:
            t = stack.pop()
            if isinstance(t, cst.Name):
                self._add(t, t.value, _Event(end, _NEVER, False))
            elif isinstance(t, (cst.Tuple, cst.List)):
                stack.extend(e.value for e in t.elements)
