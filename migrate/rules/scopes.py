"""The scope tree of a module, built on ``ast`` and equal to the compiler's ``symtable``.

One walk over the tree reproduces CPython's ``Python/symtable.c`` (3.10/3.11 rules, and
the 3.12+ type-parameter scopes when ``ast.TypeVar`` exists): the same blocks in the same
order, the same definition flags per name (assigned, parameter, imported, used, ``global``,
``nonlocal``), private-name mangling inside classes, walrus targets of comprehensions bound
in the enclosing function, ``super()`` counting as a use of ``__class__``, and then the
compiler's ``analyze_block`` pass that decides local / cell / free / global for every name
(class bodies do not enclose the functions nested in them). Identifiers come out of
``ast.parse`` already NFKC-normalised, exactly as the compiler stores them, so
``ｃonfig = 2`` binds ``config``.

The test oracle is :func:`symtable.symtable` itself (``tests/rules/test_scopes.py``
compares every scope and every flag of every name over the standard library, torch and
verl); ``symtable`` is never used at run time, so the cost is one walk of the tree.
"""

from __future__ import annotations

import ast
import enum
import sys
from collections.abc import Iterator
from typing import NamedTuple

__all__ = ["Scope", "ScopeKind", "ScopeTree", "Symbol", "frames", "mangle", "resolve_binding"]

# Definition flags and scopes, as in CPython's Include/internal/pycore_symtable.h.
DEF_GLOBAL = 1
DEF_LOCAL = 2
DEF_PARAM = 4
DEF_NONLOCAL = 8
USE = 16
DEF_FREE = 32
DEF_FREE_CLASS = 64
DEF_IMPORT = 128
DEF_ANNOT = 256
DEF_COMP_ITER = 512
DEF_BOUND = DEF_LOCAL | DEF_PARAM | DEF_IMPORT

LOCAL, GLOBAL_EXPLICIT, GLOBAL_IMPLICIT, FREE, CELL = 1, 2, 3, 4, 5

_HAS_TYPE_PARAMS = hasattr(ast, "TypeVar")  # Python 3.12+: annotation scopes for type params


class ScopeKind(str, enum.Enum):
    """What kind of code block a scope is (symtable's ``get_type`` refined)."""

    MODULE = "module"
    CLASS = "class"
    FUNCTION = "function"
    LAMBDA = "lambda"
    COMPREHENSION = "comprehension"
    ANNOTATION = "annotation"  # 3.12+ type-parameter / type-alias scopes


class Symbol(NamedTuple):
    """One name of one scope, with the flags ``symtable.Symbol`` reports for it.

    ``is_local``/``is_global`` follow ``symtable`` exactly, including its module rule
    (a name bound at module level is both local and global there).
    """

    name: str
    is_local: bool
    is_global: bool
    is_declared_global: bool
    is_nonlocal: bool
    is_free: bool
    is_parameter: bool
    is_assigned: bool
    is_referenced: bool
    is_imported: bool


class Scope:
    """A code block: the module, a class body, a function, lambda or comprehension.

    ``symbols`` maps each (NFKC-normalised, private-mangled) name the compiler records in
    this block to its :class:`Symbol`. ``private`` is the class name used for mangling
    ``__names`` in this block (``None`` outside classes). ``flags`` and ``resolution``: each
    name's compiler flags (``DEF_*``) and resolved scope (``LOCAL`` ...), as ``symtable``'s.

    A plain class, not a dataclass: one ``@dataclass`` costs ~1 ms at import, a share of
    every run's start (issue 13, item 6).
    """

    __slots__ = (
        "kind", "name", "node", "parent", "children", "private", "flags", "resolution",
        "is_comprehension", "_symbols", "_global_bound", "_lookups", "_frames",
    )

    def __init__(
        self,
        kind: ScopeKind,
        name: str,
        node: ast.AST,
        parent: Scope | None,
        children: list[Scope] | None = None,
        private: str | None = None,
        flags: dict[str, int] | None = None,
        resolution: dict[str, int] | None = None,
        is_comprehension: bool = False,
    ) -> None:
        self.kind = kind
        self.name = name
        self.node = node
        self.parent = parent
        self.children: list[Scope] = [] if children is None else children
        self.private = private
        self.flags: dict[str, int] = {} if flags is None else flags
        self.resolution: dict[str, int] = {} if resolution is None else resolution
        self.is_comprehension = is_comprehension
        self._symbols: dict[str, Symbol] | None = None
        self._global_bound: set[str] | None = None  # the module's: see resolve_binding
        #: :meth:`lookup`'s answers, per name (made on first use; the table is final once
        #: :meth:`ScopeTree.build` returns, and the analysis asks the same names again and
        #: again: each call's callee, ``self``, the config names at each call)
        self._lookups: dict[str, Scope | None] | None = None
        self._frames: tuple[tuple[str, str], ...] | None = None  # :func:`frames`' answer

    @property
    def symbols(self) -> dict[str, Symbol]:
        """Each name of this block -> its :class:`Symbol` (made on first use: the
        analysis itself reads ``flags`` and ``resolution``)."""
        if self._symbols is None:
            self._symbols = _make_symbols(self)
        return self._symbols

    @property
    def is_function_like(self) -> bool:
        """A compiler ``FunctionBlock`` (function, lambda or comprehension in 3.10/3.11)."""
        return self.kind in (ScopeKind.FUNCTION, ScopeKind.LAMBDA, ScopeKind.COMPREHENSION)

    def mangled(self, name: str) -> str:
        """``name`` as the compiler spells it in this scope (``__x`` → ``_Cls__x``)."""
        return mangle(self.private, name)

    def lookup(self, name: str) -> Scope | None:
        """Where a LOAD of ``name`` evaluated in this scope resolves at run time.

        Returns the scope holding the binding: ``self`` for a local (a class body's own
        names included), the nearest enclosing function scope for a free variable (class
        bodies skipped, as the compiler does), the module for a global or implicit global
        that the module binds (at module level or through ``global`` in any scope), and
        ``None`` for a name bound nowhere (a builtin, or a NameError when run). Works for a
        name this scope never mentions, as if a load of it were added here.
        """
        lookups = self._lookups
        if lookups is None:
            lookups = self._lookups = {}
        elif name in lookups:
            return lookups[name]
        mangled = self.mangled(name)
        how, owner = resolve_binding(self, mangled)
        if how == "global" and mangled not in _global_bindings(owner):
            owner = None
        lookups[name] = owner
        return owner

    def _module(self) -> Scope:
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope


def resolve_binding(scope: Scope, name: str) -> tuple[str, Scope]:
    """How a LOAD of ``name`` (already mangled) evaluated in ``scope`` is resolved.

    Returns ``("local", scope)`` for the scope's own binding (a class body's included),
    ``("free", E)`` for a variable of the enclosing function ``E`` (class bodies skipped),
    ``("global", module)`` otherwise. Works for names the scope never mentions, as if a load
    were added there (the case of a call that a rewrite would pass the name to). Rule source:
    CPython ``Python/symtable.c`` ``analyze_name`` / ``analyze_block``.
    """
    flags = scope.flags.get(name, 0)
    module = scope._module()
    if scope.kind is ScopeKind.MODULE or flags & DEF_GLOBAL:
        return "global", module
    if flags & DEF_BOUND and not flags & DEF_NONLOCAL:
        return "local", scope
    parent = scope.parent
    while parent is not None and parent.kind is not ScopeKind.MODULE:
        if parent.kind is not ScopeKind.CLASS:  # class bodies do not enclose
            pflags = parent.flags.get(name, 0)
            if pflags & DEF_GLOBAL:
                return "global", module
            if pflags & DEF_BOUND and not pflags & DEF_NONLOCAL:
                return "free", parent
        parent = parent.parent
    return "global", module


def _global_bindings(module: Scope) -> set[str]:
    cached = module._global_bound
    if cached is None:
        cached = set()
        stack = [module]
        while stack:
            s = stack.pop()
            for n, f in s.flags.items():
                r = s.resolution.get(n)
                if s is module and f & DEF_BOUND:
                    cached.add(n)
                elif r == GLOBAL_EXPLICIT and f & DEF_BOUND:
                    cached.add(n)
            stack.extend(s.children)
        # a module-level walrus in a comprehension records DEF_GLOBAL on the module only
        for s in _walk_scopes(module):
            if s.is_comprehension:
                for n, f in s.flags.items():
                    if f & DEF_GLOBAL and f & DEF_LOCAL:
                        cached.add(n)
        module._global_bound = cached
    return cached


def _walk_scopes(scope: Scope) -> Iterator[Scope]:
    stack = [scope]
    while stack:
        s = stack.pop()
        yield s
        stack.extend(reversed(s.children))


def mangle(private: str | None, name: str) -> str:
    """Private-name mangling as CPython's ``_Py_Mangle``: ``__x`` in class ``_C`` → ``_C__x``."""
    if private is None or not name.startswith("__"):
        return name
    if name.endswith("__") or "." in name:
        return name
    stripped = private.lstrip("_")
    if not stripped:
        return name
    return "_" + stripped + name


def _future_annotations(tree: ast.Module) -> bool:
    """Whether the module starts with ``from __future__ import annotations`` (future.c)."""
    body = tree.body
    i = 0
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        i = 1
    while i < len(body):
        s = body[i]
        if not (isinstance(s, ast.ImportFrom) and s.module == "__future__" and not s.level):
            break
        if any(a.name == "annotations" for a in s.names):
            return True
        i += 1
    return False


#: Node type -> its fields other than ``ctx``/``op``/``ops``, which hold only leaf
#: singletons (``Load()``, ``Add()``) that :meth:`_Builder.any` passes over anyway.
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(t: type) -> tuple[str, ...]:
    """The :data:`_CHILD_FIELDS` entry of node type ``t`` (computed once per type)."""
    fields = tuple(f for f in getattr(t, "_fields", ()) if f not in ("ctx", "op", "ops"))
    _CHILD_FIELDS[t] = fields
    return fields


_COMP_NAMES = {ast.ListComp: "listcomp", ast.SetComp: "setcomp", ast.DictComp: "dictcomp",
               ast.GeneratorExp: "genexpr"}


class _Builder:
    """One pre-order walk in ``symtable.c`` order; records the scope of every node."""

    def __init__(self, tree: ast.Module) -> None:
        self.future_annotations = _future_annotations(tree)
        self.module = Scope(ScopeKind.MODULE, "top", tree, None)
        self.cur = self.module
        self.node_scope: dict[ast.AST, Scope] = {}  # keyed by the node itself: no id() a node
        self.comp_iter_target = False

    # -- definitions -------------------------------------------------------------------
    def add_def(self, name: str, flag: int, scope: Scope | None = None) -> None:
        scope = scope or self.cur
        private = self.cur.private
        if private is not None and name[:2] == "__":
            name = mangle(private, name)
        val = scope.flags.get(name, 0) | flag
        if scope is self.cur and self.comp_iter_target:
            val |= DEF_COMP_ITER
        scope.flags[name] = val
        if flag & DEF_GLOBAL and scope is not self.module:
            self.module.flags[name] = self.module.flags.get(name, 0) | flag

    def enter(self, kind: ScopeKind, name: str, node: ast.AST) -> Scope:
        scope = Scope(kind, name, node, self.cur, private=self.cur.private)
        self.cur.children.append(scope)
        self.cur = scope
        return scope

    def leave(self) -> None:
        assert self.cur.parent is not None
        self.cur = self.cur.parent

    def visit_children(self, node: ast.AST, t: type) -> None:
        """Visit ``node``'s child nodes (of type ``t``) in symtable's field order, each
        through :data:`_VISIT` by its exact type (a node no visitor takes is skipped)."""
        fields = _CHILD_FIELDS.get(t)
        if fields is None:
            fields = _child_fields(t)
        visit = _VISIT
        for fname in fields:
            value = getattr(node, fname)
            if type(value) is list:
                for v in value:
                    h = visit.get(type(v))
                    if h is not None:
                        h(self, v)
            elif value is not None:
                h = visit.get(type(value))
                if h is not None:
                    h(self, value)

    # -- statements --------------------------------------------------------------------
    def stmts(self, body: list[ast.stmt]) -> None:
        for s in body:
            self.stmt(s)

    def stmt(self, s: ast.stmt) -> None:
        self.node_scope[s] = self.cur
        t = type(s)
        handler = _STMT_DISPATCH.get(t)
        if handler is not None:
            handler(self, s)
            return
        self.visit_children(s, t)  # generic: fields in symtable order for the rest

    def any(self, node: ast.AST) -> None:
        """Visit ``node`` by its type (:data:`_VISIT`): an expression, a statement, an
        ``except`` clause, a ``with`` item, a ``case``, a pattern or a keyword argument;
        contexts, operators and type-ignores have nothing to visit."""
        h = _VISIT.get(type(node))
        if h is not None:
            h(self, node)

    def _handler(self, node: ast.ExceptHandler) -> None:
        self.node_scope[node] = self.cur
        if node.type is not None:
            self.expr(node.type)
        if node.name:
            self.add_def(node.name, DEF_LOCAL)
        self.stmts(node.body)

    def _withitem(self, node: ast.withitem) -> None:
        self.node_scope[node] = self.cur
        self.expr(node.context_expr)
        if node.optional_vars is not None:
            self.expr(node.optional_vars)

    def _match_case(self, node: ast.match_case) -> None:
        self.node_scope[node] = self.cur
        self.pattern(node.pattern)
        if node.guard is not None:
            self.expr(node.guard)
        self.stmts(node.body)

    def _keyword(self, node: ast.keyword) -> None:
        self.node_scope[node] = self.cur
        self.expr(node.value)

    def _try(self, s: ast.Try) -> None:
        self.stmts(s.body)
        self.stmts(s.orelse)
        for h in s.handlers:
            self.any(h)
        self.stmts(s.finalbody)

    def _assign(self, s: ast.Assign) -> None:
        for t in s.targets:
            self.expr(t)
        self.expr(s.value)

    def _ann_assign(self, s: ast.AnnAssign) -> None:
        target = s.target
        if isinstance(target, ast.Name):
            if s.simple:
                self.add_def(target.id, DEF_ANNOT | DEF_LOCAL)
            elif s.value is not None:
                self.add_def(target.id, DEF_LOCAL)
            self.node_scope[target] = self.cur
        else:
            self.expr(target)
        self.annotation(s.annotation)
        if s.value is not None:
            self.expr(s.value)

    def annotation(self, node: ast.expr) -> None:
        if self.future_annotations:  # 3.10/3.11: an unlisted block; nothing recorded
            t = type(node)
            if t is ast.Name:  # ``config: DictConfig``: the name and its context, as the walk
                self.node_scope[node] = self.node_scope[node.ctx] = self.cur
                return
            if t is ast.Constant:  # ``-> "T"``, ``-> None``: no child nodes
                self.node_scope[node] = self.cur
                return
            for sub in ast.walk(node):
                self.node_scope[sub] = self.cur
            return
        self.expr(node)

    def _import(self, s: ast.Import | ast.ImportFrom) -> None:
        for a in s.names:
            self.node_scope[a] = self.cur
            if a.name == "*":
                continue
            store = a.asname or a.name.split(".")[0]
            self.add_def(store, DEF_IMPORT)

    def _global(self, s: ast.Global) -> None:
        for n in s.names:
            self.add_def(n, DEF_GLOBAL)

    def _nonlocal(self, s: ast.Nonlocal) -> None:
        for n in s.names:
            self.add_def(n, DEF_NONLOCAL)

    def _function_def(self, s: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.add_def(s.name, DEF_LOCAL)
        a = s.args
        for d in a.defaults:
            self.expr(d)
        for d in a.kw_defaults:
            if d is not None:
                self.expr(d)
        type_params = getattr(s, "type_params", None) if _HAS_TYPE_PARAMS else None
        if type_params:
            for d in s.decorator_list:
                self.expr(d)
            self.enter(ScopeKind.ANNOTATION, s.name, s)  # 3.12: the type-params block
            self.type_params(type_params)
            self.arg_annotations(a, s.returns)
            self.enter(ScopeKind.FUNCTION, s.name, s)
            self.arguments(a)
            self.stmts(s.body)
            self.leave()
            self.leave()
            return
        self.arg_annotations(a, s.returns)
        for d in s.decorator_list:
            self.expr(d)
        self.enter(ScopeKind.FUNCTION, s.name, s)
        self.arguments(a)
        self.stmts(s.body)
        self.leave()

    def arg_annotations(self, a: ast.arguments, returns: ast.expr | None) -> None:
        for arg in (*a.posonlyargs, *a.args):
            if arg.annotation is not None:
                self.annotation(arg.annotation)
        if a.vararg is not None and a.vararg.annotation is not None:
            self.annotation(a.vararg.annotation)
        if a.kwarg is not None and a.kwarg.annotation is not None:
            self.annotation(a.kwarg.annotation)
        for arg in a.kwonlyargs:
            if arg.annotation is not None:
                self.annotation(arg.annotation)
        if returns is not None:
            self.annotation(returns)

    def arguments(self, a: ast.arguments) -> None:
        self.node_scope[a] = self.cur
        for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs):
            self.node_scope[arg] = self.cur  # a parameter belongs to its function
            self.add_def(arg.arg, DEF_PARAM)
        for arg in (a.vararg, a.kwarg):
            if arg is not None:
                self.node_scope[arg] = self.cur
                self.add_def(arg.arg, DEF_PARAM)

    def _class_def(self, s: ast.ClassDef) -> None:
        self.add_def(s.name, DEF_LOCAL)
        type_params = getattr(s, "type_params", None) if _HAS_TYPE_PARAMS else None
        if type_params:
            for d in s.decorator_list:
                self.expr(d)
            self.enter(ScopeKind.ANNOTATION, s.name, s)
            self.type_params(type_params)
        for b in s.bases:
            self.expr(b)
        for k in s.keywords:
            self.any(k)
        if not type_params:
            for d in s.decorator_list:
                self.expr(d)
        scope = self.enter(ScopeKind.CLASS, s.name, s)
        scope.private = s.name
        self.stmts(s.body)
        self.leave()
        if type_params:
            self.leave()

    def type_params(self, params: list) -> None:  # pragma: no cover - Python 3.12+
        for p in params:
            self.node_scope[p] = self.cur
            self.add_def(p.name, DEF_LOCAL)
            bound = getattr(p, "bound", None)
            if bound is not None:
                self.enter(ScopeKind.ANNOTATION, p.name, p)
                self.expr(bound)
                self.leave()

    def _type_alias(self, s) -> None:  # pragma: no cover - Python 3.12+
        self.expr(s.name)
        if s.type_params:
            self.enter(ScopeKind.ANNOTATION, s.name.id, s)
            self.type_params(s.type_params)
        self.enter(ScopeKind.ANNOTATION, s.name.id, s)
        self.expr(s.value)
        self.leave()
        if s.type_params:
            self.leave()

    # -- expressions -------------------------------------------------------------------
    def expr(self, e: ast.expr) -> None:
        self.node_scope[e] = self.cur
        t = type(e)
        if t is _NAME:  # :meth:`add_def` in the current scope, inlined (the most frequent node)
            cur = self.cur
            load = type(e.ctx) is _LOAD
            name = e.id
            private = cur.private
            if private is not None and name[:2] == "__":
                name = mangle(private, name)
            flags = cur.flags
            val = flags.get(name, 0) | (USE if load else DEF_LOCAL)
            if self.comp_iter_target:
                val |= DEF_COMP_ITER
            flags[name] = val
            if load and e.id == "super" and cur.is_function_like:
                self.add_def("__class__", USE)
            return
        if t is _CONSTANT:
            return
        if t is _ATTRIBUTE:
            self.expr(e.value)
            return
        if t is _CALL:  # the generic walk below, unrolled: func, args, keywords
            self.expr(e.func)
            for a in e.args:
                self.expr(a)
            if e.keywords:
                node_scope, cur = self.node_scope, self.cur
                for k in e.keywords:
                    node_scope[k] = cur
                    self.expr(k.value)
            return
        if t in _COMP_NAMES:
            self.comprehension(e)
            return
        if t is ast.Lambda:
            a = e.args
            for d in a.defaults:
                self.expr(d)
            for d in a.kw_defaults:
                if d is not None:
                    self.expr(d)
            self.enter(ScopeKind.LAMBDA, "lambda", e)
            self.arguments(a)
            self.expr(e.body)
            self.leave()
            return
        if t is ast.NamedExpr:
            if self.cur.is_comprehension:
                self.extend_namedexpr_scope(e.target)
            self.expr(e.value)
            self.expr(e.target)
            return
        if t is ast.Dict:
            for k in e.keys:
                if k is not None:
                    self.expr(k)
            for v in e.values:
                self.expr(v)
            return
        self.visit_children(e, t)

    def extend_namedexpr_scope(self, target: ast.Name) -> None:
        scope: Scope | None = self.cur
        while scope is not None:
            if scope.is_comprehension:
                scope = scope.parent
                continue
            if scope.is_function_like:
                if scope.flags.get(mangle(self.cur.private, target.id), 0) & DEF_GLOBAL:
                    self.add_def(target.id, DEF_GLOBAL)
                else:
                    self.add_def(target.id, DEF_NONLOCAL)
                saved, self.comp_iter_target = self.comp_iter_target, False
                self.add_def(target.id, DEF_LOCAL, scope)
                self.comp_iter_target = saved
                return
            if scope.kind is ScopeKind.MODULE:
                self.add_def(target.id, DEF_GLOBAL)
                self.add_def(target.id, DEF_GLOBAL, scope)
                return
            return  # class body: a SyntaxError for the compiler
        return

    def comprehension(self, e: ast.expr) -> None:
        gens: list[ast.comprehension] = e.generators  # type: ignore[attr-defined]
        first = gens[0]
        self.node_scope[first] = self.cur
        self.expr(first.iter)
        scope = self.enter(ScopeKind.COMPREHENSION, _COMP_NAMES[type(e)], e)
        scope.is_comprehension = True
        self.add_def(".0", DEF_PARAM)
        self.comp_iter_target = True
        self.expr(first.target)
        self.comp_iter_target = False
        for c in first.ifs:
            self.expr(c)
        for g in gens[1:]:
            self.node_scope[g] = self.cur
            self.comp_iter_target = True
            self.expr(g.target)
            self.comp_iter_target = False
            self.expr(g.iter)
            for c in g.ifs:
                self.expr(c)
        if isinstance(e, ast.DictComp):
            self.expr(e.value)
            self.expr(e.key)
        else:
            self.expr(e.elt)  # type: ignore[attr-defined]
        self.leave()

    def pattern(self, p: ast.pattern) -> None:
        self.node_scope[p] = self.cur
        if isinstance(p, ast.MatchValue):
            self.expr(p.value)
        elif isinstance(p, ast.MatchSequence):
            for q in p.patterns:
                self.pattern(q)
        elif isinstance(p, ast.MatchStar):
            if p.name:
                self.add_def(p.name, DEF_LOCAL)
        elif isinstance(p, ast.MatchMapping):
            for k in p.keys:
                self.expr(k)
            for q in p.patterns:
                self.pattern(q)
            if p.rest:
                self.add_def(p.rest, DEF_LOCAL)
        elif isinstance(p, ast.MatchClass):
            self.expr(p.cls)
            for q in (*p.patterns, *p.kwd_patterns):
                self.pattern(q)
        elif isinstance(p, ast.MatchAs):
            if p.pattern is not None:
                self.pattern(p.pattern)
            if p.name:
                self.add_def(p.name, DEF_LOCAL)
        elif isinstance(p, ast.MatchOr):
            for q in p.patterns:
                self.pattern(q)


_NAME, _LOAD, _CONSTANT, _ATTRIBUTE, _CALL = ast.Name, ast.Load, ast.Constant, ast.Attribute, ast.Call


def _node_types(base: type) -> list[type]:
    """``base`` and every class derived from it in :mod:`ast` (those ``ast.parse`` makes)."""
    out, stack = [], [base]
    while stack:
        t = stack.pop()
        out.append(t)
        stack.extend(t.__subclasses__())
    return out


#: statement type -> the :class:`_Builder` method for it (the other statements: the generic
#: walk of :meth:`_Builder.stmt`); made once, not for each module's builder
_STMT_DISPATCH: dict[type, object] = {
    ast.FunctionDef: _Builder._function_def, ast.AsyncFunctionDef: _Builder._function_def,
    ast.ClassDef: _Builder._class_def, ast.Assign: _Builder._assign,
    ast.AnnAssign: _Builder._ann_assign, ast.Import: _Builder._import,
    ast.ImportFrom: _Builder._import, ast.Global: _Builder._global,
    ast.Nonlocal: _Builder._nonlocal, ast.Try: _Builder._try,
}
if hasattr(ast, "TryStar"):
    _STMT_DISPATCH[ast.TryStar] = _Builder._try
if hasattr(ast, "TypeAlias"):  # pragma: no cover - Python 3.12+
    _STMT_DISPATCH[ast.TypeAlias] = _Builder._type_alias

#: node type -> the :class:`_Builder` method that visits a node of it, as :meth:`_Builder.any`
#: dispatches (one dict look-up instead of a chain of ``isinstance`` per child node);
#: contexts, operators and type-ignores are absent (nothing to visit)
_VISIT: dict[type, object] = {}
for _base, _method in (
    (ast.expr, _Builder.expr), (ast.stmt, _Builder.stmt), (ast.excepthandler, _Builder._handler),
    (ast.withitem, _Builder._withitem), (ast.match_case, _Builder._match_case),
    (ast.pattern, _Builder.pattern), (ast.keyword, _Builder._keyword),
):
    for _t in _node_types(_base):
        _VISIT[_t] = _method
del _base, _method, _t


# -- the compiler's analysis pass (symtable.c: analyze_block and friends) ------------------
def _analyze_name(scope: Scope, scopes: dict[str, int], name: str, flags: int,
                  bound: set[str] | None, local: set[str], free: set[str],
                  global_: set[str]) -> None:
    if flags & DEF_GLOBAL:
        scopes[name] = GLOBAL_EXPLICIT
        global_.add(name)
        if bound is not None:
            bound.discard(name)
        return
    if flags & DEF_NONLOCAL:
        scopes[name] = FREE
        free.add(name)
        return
    if flags & DEF_BOUND:
        scopes[name] = LOCAL
        local.add(name)
        global_.discard(name)
        return
    if bound is not None and name in bound:
        scopes[name] = FREE
        free.add(name)
        return
    scopes[name] = GLOBAL_IMPLICIT


def _analyze_block(scope: Scope, bound: set[str] | None, free: set[str],
                   global_: set[str]) -> None:
    local: set[str] = set()
    scopes: dict[str, int] = {}
    newglobal: set[str] = set()
    newfree: set[str] = set()
    newbound: set[str] = set()
    is_class = scope.kind is ScopeKind.CLASS
    # 3.12+ type-parameter scopes enclose like functions (their names are free inside)
    is_function = scope.is_function_like or scope.kind is ScopeKind.ANNOTATION
    if is_class:
        newglobal |= global_
        if bound is not None:
            newbound |= bound
    for name, flags in scope.flags.items():
        _analyze_name(scope, scopes, name, flags, bound, local, free, global_)
    if not is_class:
        if is_function:
            newbound |= local
        if bound is not None:
            newbound |= bound
        newglobal |= global_
    else:
        newbound.add("__class__")
    allfree: set[str] = set()
    for child in scope.children:
        temp_free = set(newfree)
        _analyze_block(child, set(newbound), temp_free, set(newglobal))
        allfree |= temp_free
    newfree |= allfree
    if is_function:
        for name, sc in scopes.items():
            if sc == LOCAL and name in newfree:
                scopes[name] = CELL
                newfree.discard(name)
    elif is_class:
        newfree.discard("__class__")
    # update_symbols
    for name in newfree:
        if name in scope.flags:
            if is_class and scope.flags[name] & (DEF_BOUND | DEF_GLOBAL):
                scope.flags[name] |= DEF_FREE_CLASS
            continue
        if bound is not None and name not in bound:
            continue
        scope.flags[name] = 0
        scopes[name] = FREE
    scope.resolution = scopes
    free |= newfree


def _make_symbols(scope: Scope) -> dict[str, Symbol]:
    module_scope = scope.kind is ScopeKind.MODULE
    out = {}
    for name, flags in scope.flags.items():
        sc = scope.resolution.get(name, 0)
        out[name] = Symbol(
            name=name,
            is_local=sc in (LOCAL, CELL) or bool(module_scope and flags & DEF_BOUND),
            is_global=sc in (GLOBAL_IMPLICIT, GLOBAL_EXPLICIT)
            or bool(module_scope and flags & DEF_BOUND),
            is_declared_global=sc == GLOBAL_EXPLICIT,
            is_nonlocal=bool(flags & DEF_NONLOCAL),
            is_free=sc == FREE,
            is_parameter=bool(flags & DEF_PARAM),
            is_assigned=bool(flags & DEF_LOCAL),
            is_referenced=bool(flags & USE),
            is_imported=bool(flags & DEF_IMPORT),
        )
    return out


class ScopeTree:
    """The scopes of one parsed module, equal to ``symtable.symtable(source, path, "exec")``.

    Build with :meth:`build` (kept on the tree object, so it lives exactly as long as the
    tree: no process-wide cache holds trees a run is done with). ``module`` is the root
    scope.
    """

    _ATTRIBUTE = "_ppo_migrate_scope_tree"

    def __init__(self, tree: ast.Module, module: Scope, node_scope: dict[ast.AST, Scope]) -> None:
        self.tree = tree
        self.module = module
        self._node_scope = node_scope
        self._opened: dict[int, Scope] | None = None
        self.flow_cache: dict = {}

    @classmethod
    def build(cls, tree: ast.Module) -> ScopeTree:
        """The scope tree of ``tree`` (an ``ast.Module`` from ``ast.parse``), built once.

        One walk records every block, name and flag as ``Python/symtable.c`` does, then the
        compiler's ``analyze_block`` pass resolves each name. Raises ``TypeError`` when
        ``tree`` is not an ``ast.Module``. Code the compiler rejects (e.g. ``nonlocal`` with
        no binding) gets a best-effort tree, never an exception.
        """
        if not isinstance(tree, ast.Module):
            raise TypeError(f"ScopeTree.build needs an ast.Module, got {type(tree).__name__}")
        hit = getattr(tree, cls._ATTRIBUTE, None)
        if hit is not None:
            return hit
        limit = sys.getrecursionlimit()
        try:
            sys.setrecursionlimit(max(limit, 10_000))
            b = _Builder(tree)
            b.node_scope[tree] = b.module
            b.stmts(tree.body)
        finally:
            sys.setrecursionlimit(limit)
        _analyze_block(b.module, None, set(), set())
        result = cls(tree, b.module, b.node_scope)
        setattr(tree, cls._ATTRIBUTE, result)
        return result

    def scope_of(self, node: ast.AST) -> Scope:
        """The scope whose code evaluates ``node`` (a node of this tree).

        A decorator, default value, base class or annotation evaluates in the enclosing
        scope; the first iterable of a comprehension in the enclosing scope, the rest of the
        comprehension in its own scope. Raises ``KeyError`` for a node not in this tree.
        """
        try:
            return self._node_scope[node]
        except KeyError:
            raise KeyError(f"node {type(node).__name__} at line "
                           f"{getattr(node, 'lineno', '?')} is not in this tree") from None

    def scopes(self) -> Iterator[Scope]:
        """Every scope, pre-order (a parent before its children, children in source order)."""
        return _walk_scopes(self.module)

    def scope_for_node(self, node: ast.AST) -> Scope | None:
        """The scope that ``node`` (a def, class, lambda or comprehension) opens, if any."""
        index = self._opened
        if index is None:
            index = self._opened = {id(s.node): s for s in _walk_scopes(self.module)
                                    if s.kind is not ScopeKind.ANNOTATION}
        return index.get(id(node))


def frames(scope: "Scope | None") -> tuple[tuple[str, str], ...]:
    """The ``(kind, name)`` frames of the functions, lambdas and classes from the module
    down to ``scope`` (comprehensions do not count), as
    :func:`ppo_migrate.diagnostics.qualname` spells them: ``kind`` is ``"function"``
    (a lambda is a function named ``<lambda>``) or ``"class"``."""
    if scope is None:
        return ()
    known = scope._frames
    if known is not None:  # asked of each call, def and reference: once per scope
        return known
    out: list[tuple[str, str]] = []
    s = scope
    while s is not None:
        n = s.node
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append(("function", n.name))
        elif isinstance(n, ast.Lambda):
            out.append(("function", "<lambda>"))
        elif isinstance(n, ast.ClassDef):
            out.append(("class", n.name))
        s = s.parent
    scope._frames = result = tuple(reversed(out))
    return result
