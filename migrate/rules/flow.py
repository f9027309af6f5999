"""Definite assignment: is a name certainly, possibly or not bound where an expression runs.

:func:`bound_at` follows Python's own lookup from the scope that evaluates the expression
(:meth:`ScopeTree.scope_of`) and then runs a flow analysis over that scope's code, one pass
per (scope, name), with the state of the single name as a two-bit set {bound, unbound}
(empty: unreachable). The rules, construct by construct, are in :func:`bound_at`; where the
analysis cannot be exact it over-approximates the set of states, so it may say POSSIBLE where
the truth is CERTAIN, never CERTAIN where a path leaves the name unbound.
"""

from __future__ import annotations

import ast
import enum
import sys

from ppo_migrate.rules.scopes import (
    DEF_GLOBAL,
    DEF_IMPORT,
    DEF_LOCAL,
    DEF_NONLOCAL,
    DEF_PARAM,
    Scope,
    ScopeKind,
    ScopeTree,
    mangle,
    resolve_binding,
)

__all__ = ["Bound", "bound_at", "resolve_binding"]

_B = 1  # on some path the name is bound
_U = 2  # on some path the name is unbound


class Bound(enum.Enum):
    """The answer of :func:`bound_at`: bound on every path, on some, or on none."""

    CERTAIN = "certain"
    POSSIBLE = "possible"
    UNBOUND = "unbound"


def _bound(bits: int) -> Bound:
    if bits == _B:
        return Bound.CERTAIN
    if bits & _B:
        return Bound.POSSIBLE
    return Bound.UNBOUND


# -- the flow pass ----------------------------------------------------------------------------
class _Loop:
    __slots__ = ("brk", "cont", "node")

    def __init__(self, node: ast.AST) -> None:
        self.node = node
        self.brk = 0
        self.cont = 0


class _Catch:
    """A region whose exceptions may be caught (try with handlers, a `with` body)."""

    __slots__ = ("exc",)

    def __init__(self, state: int) -> None:
        self.exc = state


class _Finally:
    __slots__ = ("abnormal", "kinds")

    def __init__(self) -> None:
        self.abnormal = 0
        self.kinds: set[str] = set()


class _Flow:
    """One flow pass over the code of ``scope`` for one (mangled) ``name``.

    Records, for every statement and expression of the scope's code, the union of the
    states on every path that evaluates it (``at``), and the binding events in walk order
    (``events``: (loops around the event, new bits)) to answer "rebound after a point" for
    closures; one pass answers every query about this (scope, name).
    """

    def __init__(self, tree: ScopeTree, scope: Scope, name: str) -> None:
        self.tree = tree
        self.scope = scope
        self.name = name
        self.private = scope.private
        self.at: dict[int, int] = {}
        self.first_event: dict[int, int] = {}  # node → number of events before first reached
        self.loops_at: dict[int, tuple[int, ...]] = {}
        self.loops: list[int] = []
        self.stack: list[object] = []
        self.events: list[tuple[tuple[int, ...], int]] = []  # (loops, new bits)
        self.unanalysed = False

    # names
    def is_name(self, ident: str | None) -> bool:
        if ident is None:
            return False
        if ident[:2] == "__":
            ident = mangle(self.private, ident)
        return ident == self.name

    def record(self, node: ast.AST, s: int) -> None:
        if s:
            key = id(node)
            at = self.at
            at[key] = at.get(key, 0) | s
            if key not in self.first_event:
                self.first_event[key] = len(self.events)
                self.loops_at[key] = tuple(self.loops)

    def bits(self, node: ast.AST) -> int:
        """The states on the paths that evaluate ``node`` (0: never evaluated)."""
        if self.unanalysed:
            return _B | _U
        return self.at.get(id(node), 0)

    def rebound_after(self, node: ast.AST) -> bool:
        """Whether a binding or deletion of the name can run after ``node`` runs: later in
        the walk, or in a loop that also contains ``node``."""
        first = self.first_event.get(id(node))
        if first is None:
            return bool(self.events)
        if len(self.events) > first:
            return True
        loops = set(self.loops_at.get(id(node), ()))
        return any(loops.intersection(ev_loops) for ev_loops, _ in self.events)

    def set_bits(self, s: int, new: int) -> int:
        if not s:
            return 0
        self.events.append((tuple(self.loops), new))
        self.raise_from(new)
        return new

    def raise_from(self, s: int) -> None:
        """Any statement may raise: the state flows to the enclosing handlers/finally."""
        if not s:
            return
        for frame in reversed(self.stack):
            if isinstance(frame, _Catch):
                frame.exc |= s
            elif isinstance(frame, _Finally):
                frame.abnormal |= s
                frame.kinds.add("raise")
                return

    def jump(self, kind: str, s: int) -> None:
        if not s:
            return
        for frame in reversed(self.stack):
            if isinstance(frame, _Finally):
                frame.abnormal |= s
                frame.kinds.add(kind)
                return
            if isinstance(frame, _Loop) and kind != "return":
                if kind == "break":
                    frame.brk |= s
                else:
                    frame.cont |= s
                return

    # entry points
    def run(self) -> None:
        scope, node = self.scope, self.scope.node
        kind = scope.kind
        if kind is ScopeKind.MODULE or kind is ScopeKind.CLASS:
            self.stmts(node.body, _U)  # type: ignore[attr-defined]
        elif kind is ScopeKind.FUNCTION:
            entry = _B if scope.flags.get(self.name, 0) & DEF_PARAM else _U
            self.stmts(node.body, entry)  # type: ignore[attr-defined]
        elif kind is ScopeKind.LAMBDA:
            entry = _B if scope.flags.get(self.name, 0) & DEF_PARAM else _U
            self.expr(node.body, entry)  # type: ignore[attr-defined]
        elif kind is ScopeKind.COMPREHENSION:
            self.comprehension_code(node)
        else:  # 3.12 annotation scopes: not analysed; conservative
            self.unanalysed = True

    def comprehension_code(self, node: ast.AST) -> None:
        """Clause order, straight line: the first evaluation of each clause sees only the
        targets of the clauses before it (a later target is unbound there on the first
        iteration, which always comes first)."""
        s = _U
        gens = node.generators  # type: ignore[attr-defined]
        for i, g in enumerate(gens):
            if i:
                s = self.expr(g.iter, s)
            s = self.assign(g.target, s)
            for cond in g.ifs:
                s = self.expr(cond, s)
        if isinstance(node, ast.DictComp):
            s = self.expr(node.key, s)
            self.expr(node.value, s)
        else:
            self.expr(node.elt, s)  # type: ignore[attr-defined]

    # statements
    def stmts(self, body: list[ast.stmt], s: int) -> int:
        for st in body:
            s = self.stmt(st, s)
        return s

    def stmt(self, node: ast.stmt, s: int) -> int:  # noqa: C901 - one case per statement
        self.record(node, s)
        t = type(node)
        if t is ast.Expr:
            s = self.expr(node.value, s)
            if _never_returns(self.tree, node.value):  # sys.exit(): raises SystemExit
                self.raise_from(s)
                return 0
            return s
        if t is ast.Assign:
            s = self.expr(node.value, s)
            for tgt in node.targets:
                s = self.assign(tgt, s)
            return s
        if t is ast.AugAssign:
            tgt = node.target
            if isinstance(tgt, ast.Name):
                s = self.expr(tgt, s)
                s = self.expr(node.value, s)
                return self.set_bits(s, _B) if self.is_name(tgt.id) else s
            s = self.expr(tgt, s)
            return self.expr(node.value, s)
        if t is ast.AnnAssign:
            if node.value is not None:
                s = self.expr(node.value, s)
                s = self.assign(node.target, s)
            elif not isinstance(node.target, ast.Name):
                s = self.expr(node.target, s)
            self.expr(node.annotation, s)
            return s
        if t is ast.Return:
            if node.value is not None:
                s = self.expr(node.value, s)
            self.jump("return", s)
            return 0
        if t is ast.Raise:
            if node.exc is not None:
                s = self.expr(node.exc, s)
            if node.cause is not None:
                s = self.expr(node.cause, s)
            self.raise_from(s)
            return 0
        if t is ast.Break:
            self.jump("break", s)
            return 0
        if t is ast.Continue:
            self.jump("continue", s)
            return 0
        if t is ast.If:
            s = self.expr(node.test, s)
            if isinstance(node.test, ast.Constant):  # `if True:` / `if 0:`: one branch runs
                taken = bool(node.test.value)
                return self.stmts(node.body, s if taken else 0) | \
                    self.stmts(node.orelse, 0 if taken else s)
            return self.stmts(node.body, s) | self.stmts(node.orelse, s)
        if t is ast.While:
            return self.while_(node, s)
        if t is ast.For or t is ast.AsyncFor:
            return self.for_(node, s)
        if t is ast.With or t is ast.AsyncWith:
            return self.with_(node, s)
        if t is ast.Try or t.__name__ == "TryStar":
            return self.try_(node, s)
        if t is ast.Match:
            return self.match_(node, s)
        if t is ast.Delete:
            for tgt in node.targets:
                s = self.delete(tgt, s)
            return s
        if t is ast.Import or t is ast.ImportFrom:
            for a in node.names:
                if a.name == "*":
                    if s & _U:  # binds whatever the module exports: possibly this name
                        s = self.set_bits(s, s | _B)
                    continue
                if self.is_name(a.asname or a.name.split(".")[0]):
                    s = self.set_bits(s, _B)
            return s
        if t is ast.FunctionDef or t is ast.AsyncFunctionDef:
            for d in node.decorator_list:
                s = self.expr(d, s)
            s = self.arguments_defaults(node.args, s)
            if node.returns is not None:
                s = self.expr(node.returns, s)
            return self.set_bits(s, _B) if self.is_name(node.name) else s
        if t is ast.ClassDef:
            for d in node.decorator_list:
                s = self.expr(d, s)
            for b in node.bases:
                s = self.expr(b, s)
            for k in node.keywords:
                s = self.expr(k.value, s)
            return self.set_bits(s, _B) if self.is_name(node.name) else s
        if t is ast.Assert:
            # ``python -O`` strips asserts: a walrus in the test may never run
            after = self.expr(node.test, s)
            if node.msg is not None:
                self.expr(node.msg, after)
            return s | after
        # Pass, Global, Nonlocal, TypeAlias (3.12): no binding of a local here
        return s

    def arguments_defaults(self, a: ast.arguments, s: int) -> int:
        for d in a.defaults:
            s = self.expr(d, s)
        for d in a.kw_defaults:
            if d is not None:
                s = self.expr(d, s)
        for arg in (*a.posonlyargs, *a.args, a.vararg, *a.kwonlyargs, a.kwarg):
            if arg is not None and arg.annotation is not None:
                s = self.expr(arg.annotation, s)
        return s

    def assign(self, tgt: ast.expr, s: int) -> int:
        t = type(tgt)
        if t is ast.Name:
            self.record(tgt, s)
            return self.set_bits(s, _B) if self.is_name(tgt.id) else s
        if t is ast.Tuple or t is ast.List:
            for e in tgt.elts:
                s = self.assign(e, s)
            return s
        if t is ast.Starred:
            return self.assign(tgt.value, s)
        return self.expr(tgt, s)  # attribute / subscript: their parts are evaluated

    def delete(self, tgt: ast.expr, s: int) -> int:
        t = type(tgt)
        if t is ast.Name:
            return self.set_bits(s, _U) if self.is_name(tgt.id) else s
        if t is ast.Tuple or t is ast.List:
            for e in tgt.elts:
                s = self.delete(e, s)
            return s
        return self.expr(tgt, s)

    def loop(self, node: ast.AST, head: int, body) -> tuple[int, _Loop]:
        frame = _Loop(node)
        self.stack.append(frame)
        self.loops.append(id(node))
        while True:  # to the fixpoint: at most three passes (the state only grows)
            end = body(head)
            new = head | end | frame.cont
            if new == head:
                break
            head = new
        self.loops.pop()
        self.stack.pop()
        return head, frame

    def while_(self, node: ast.While, s: int) -> int:
        always = isinstance(node.test, ast.Constant) and bool(node.test.value)
        after_test = [0]

        def body(head: int) -> int:
            after_test[0] = self.expr(node.test, head)
            return self.stmts(node.body, after_test[0])

        _, frame = self.loop(node, s, body)
        exit_state = 0 if always else after_test[0]
        return self.stmts(node.orelse, exit_state) | frame.brk

    def for_(self, node: ast.For | ast.AsyncFor, s: int) -> int:
        s = self.expr(node.iter, s)

        def body(head: int) -> int:
            return self.stmts(node.body, self.assign(node.target, head))

        head, frame = self.loop(node, s, body)
        return self.stmts(node.orelse, head) | frame.brk

    def with_(self, node: ast.With | ast.AsyncWith, s: int) -> int:
        for item in node.items:
            s = self.expr(item.context_expr, s)
            if item.optional_vars is not None:
                s = self.assign(item.optional_vars, s)
        if all(_never_swallows(self.tree, item.context_expr) for item in node.items):
            return self.stmts(node.body, s)
        # The context manager's __exit__ may swallow an exception raised anywhere in the
        # body, so every state inside the body may reach the statement after the `with`.
        catch = _Catch(s)
        self.stack.append(catch)
        end = self.stmts(node.body, s)
        self.stack.pop()
        self.raise_from(catch.exc)  # or the exception propagates
        return end | catch.exc

    def try_(self, node: ast.Try, s: int) -> int:
        fin = _Finally() if node.finalbody else None
        if fin is not None:
            self.stack.append(fin)
        catch = _Catch(s) if node.handlers else None
        if catch is not None:
            self.stack.append(catch)
        self.raise_from(s)
        end = self.stmts(node.body, s)
        if catch is not None:
            self.stack.pop()
        out = self.stmts(node.orelse, end)
        star = type(node).__name__ == "TryStar"  # except*: several handlers may run in turn
        previous = 0
        for h in node.handlers:
            hs = catch.exc if catch is not None else 0
            if star:
                hs |= previous
            if h.type is not None:
                hs = self.expr(h.type, hs)
            named = self.is_name(h.name)
            if named:
                hs = self.set_bits(hs, _B)
            hs = self.stmts(h.body, hs)
            if named:  # `except E as name:` deletes the name when the handler ends
                hs = self.set_bits(hs, _U)
                if catch is not None and catch.exc:
                    self.raise_from(_U)
            previous |= hs
            out |= hs
        if fin is None:
            return out
        self.stack.pop()
        normal = self.stmts(node.finalbody, out)
        if fin.abnormal:
            after = self.stmts(node.finalbody, fin.abnormal)
            for kind in fin.kinds:
                if kind == "raise":
                    self.raise_from(after)
                else:
                    self.jump(kind, after)
        return normal

    def match_(self, node: ast.Match, s: int) -> int:
        cur = self.expr(node.subject, s)
        out = 0
        for case in node.cases:
            binds = self.pattern_binds(case.pattern)
            p = self.pattern_exprs(case.pattern, cur)
            matched = self.set_bits(p, _B) if binds else p
            g = self.expr(case.guard, matched) if case.guard is not None else matched
            out |= self.stmts(case.body, g)
            if _irrefutable(case.pattern):
                if case.guard is None:
                    return out
                cur = g  # the pattern always matches: only the guard can fail
                continue
            # a failed pattern or guard may leave some captures bound
            cur = cur | p | (matched if binds else 0) | g
        return out | cur

    def pattern_binds(self, p: ast.pattern) -> bool:
        for sub in ast.walk(p):
            if isinstance(sub, (ast.MatchAs, ast.MatchStar)) and self.is_name(sub.name):
                return True
            if isinstance(sub, ast.MatchMapping) and self.is_name(sub.rest):
                return True
        return False

    def pattern_exprs(self, p: ast.pattern, s: int) -> int:
        for sub in ast.walk(p):
            if isinstance(sub, ast.MatchValue):
                s = self.expr(sub.value, s)
            elif isinstance(sub, ast.MatchMapping):
                for k in sub.keys:
                    s = self.expr(k, s)
            elif isinstance(sub, ast.MatchClass):
                s = self.expr(sub.cls, s)
        return s

    # expressions, in evaluation order
    def expr(self, e: ast.expr, s: int) -> int:  # noqa: C901 - one case per expression
        self.record(e, s)
        t = type(e)
        if t is ast.Name or t is ast.Constant:
            return s
        if t is ast.NamedExpr:
            s = self.expr(e.value, s)
            return self.set_bits(s, _B) if self.is_name(e.target.id) else s
        if t is ast.BoolOp:
            acc = 0
            for v in e.values:
                s = self.expr(v, s)
                acc |= s
            return acc
        if t is ast.IfExp:
            s = self.expr(e.test, s)
            return self.expr(e.body, s) | self.expr(e.orelse, s)
        if t is ast.Compare:
            s = self.expr(e.left, s)
            acc = 0
            for c in e.comparators:
                s = self.expr(c, s)
                acc |= s
            return acc
        if t is ast.Lambda:
            return self.arguments_defaults_lambda(e.args, s)
        if t is ast.ListComp or t is ast.SetComp or t is ast.GeneratorExp or t is ast.DictComp:
            s = self.expr(e.generators[0].iter, s)
            if s & _U and self.comprehension_walrus(e):
                s = self.set_bits(s, s | _B)  # zero or more iterations
            return s
        if t is ast.Dict:
            for k, v in zip(e.keys, e.values):
                if k is not None:
                    s = self.expr(k, s)
                s = self.expr(v, s)
            return s
        if t is ast.Call:
            s = self.expr(e.func, s)
            for a in e.args:
                s = self.expr(a, s)
            for k in e.keywords:
                s = self.expr(k.value, s)
            return s
        for fname in e._fields:
            value = getattr(e, fname)
            if isinstance(value, ast.expr):
                s = self.expr(value, s)
            elif isinstance(value, list):
                for v in value:
                    if isinstance(v, ast.expr):
                        s = self.expr(v, s)
        return s

    def arguments_defaults_lambda(self, a: ast.arguments, s: int) -> int:
        for d in a.defaults:
            s = self.expr(d, s)
        for d in a.kw_defaults:
            if d is not None:
                s = self.expr(d, s)
        return s

    def comprehension_walrus(self, e: ast.expr) -> bool:
        """Whether a walrus in comprehension ``e`` (or one nested in it) binds our name here."""
        stack: list[ast.AST] = [e]
        while stack:
            n = stack.pop()
            if isinstance(n, ast.Lambda):
                continue
            if isinstance(n, ast.NamedExpr) and self.is_name(n.target.id):
                return True
            stack.extend(ast.iter_child_nodes(n))
        return False


#: Context managers whose ``__exit__`` returns None, so they never swallow an exception of
#: the ``with`` body: (module, name) as imported. Checked against the real objects by
#: ``tests/rules/test_flow.py::test_never_swallowing_table_matches_the_real_exit``.
NEVER_SWALLOWING: frozenset[tuple[str, str]] = frozenset({
    ("builtins", "open"), ("io", "open"), ("os", "fdopen"), ("tokenize", "open"),
    ("tempfile", "TemporaryDirectory"),
    ("hydra", "initialize"), ("hydra", "initialize_config_dir"),
    ("hydra", "initialize_config_module"),
    ("torch", "no_grad"), ("torch", "enable_grad"), ("torch", "inference_mode"),
})


def _module_imports(tree: ScopeTree) -> dict[str, tuple[str, str | None]]:
    """Names the module binds only by one top-level import: name → (module, attribute).

    ``import os`` → ``{"os": ("os", None)}``; ``from hydra import initialize as init`` →
    ``{"init": ("hydra", "initialize")}``. A name also bound any other way is left out.
    """
    cached = tree.flow_cache.get("imports")
    if cached is not None:
        return cached
    seen: dict[str, list[tuple[str, str | None]]] = {}
    for st in tree.module.node.body:  # type: ignore[attr-defined]
        if isinstance(st, ast.Import):
            for a in st.names:
                if a.asname:
                    seen.setdefault(a.asname, []).append((a.name, None))
                elif "." not in a.name:
                    seen.setdefault(a.name, []).append((a.name, None))
        elif isinstance(st, ast.ImportFrom) and st.module and not st.level:
            for a in st.names:
                seen.setdefault(a.asname or a.name, []).append((st.module, a.name))
    out = {}
    for name, origins in seen.items():
        flags = tree.module.flags.get(name, 0)
        if len(origins) == 1 and not flags & (DEF_LOCAL | DEF_GLOBAL):
            out[name] = origins[0]
    tree.flow_cache["imports"] = out
    return out


#: Calls that never return (typeshed's ``NoReturn``): ``sys.exit`` and the ``site`` builtins
#: raise SystemExit, ``os._exit``/``os.abort`` end the process. A statement that is such a
#: call ends its path like ``raise`` (handlers of ``BaseException`` may still catch it).
NEVER_RETURNING: frozenset[tuple[str, str]] = frozenset({
    ("sys", "exit"), ("os", "_exit"), ("os", "abort"),
    ("builtins", "exit"), ("builtins", "quit"),
})


def _never_returns(tree: ScopeTree, expr: ast.expr) -> bool:
    """Whether ``expr`` is a call of :data:`NEVER_RETURNING` (``exit``/``quit`` bound
    nowhere in the module; ``sys``/``os`` functions through the module's own import)."""
    return _call_of(tree, expr, NEVER_RETURNING, builtins=("exit", "quit"))


def _call_of(tree: ScopeTree, expr: ast.expr, table: frozenset[tuple[str, str]],
             builtins: tuple[str, ...] = ()) -> bool:
    """Whether ``expr`` calls a (module, name) of ``table``: a builtin of ``builtins`` the
    module never rebinds, a name from the module's own ``from M import N``, or ``M.N``
    through its own ``import M``; never a name rebound where the call runs."""
    if not isinstance(expr, ast.Call):
        return False
    func = expr.func
    scope = tree.scope_of(expr)
    imports = _module_imports(tree)
    if isinstance(func, ast.Name):
        how, _ = resolve_binding(scope, func.id)
        if how != "global":
            return False
        if func.id in builtins and not tree.module.flags.get(func.id, 0) & (DEF_LOCAL | DEF_GLOBAL) \
                and func.id not in imports and not _star_import(tree):
            return True
        origin = imports.get(func.id)
        return origin is not None and origin in table
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        how, _ = resolve_binding(scope, func.value.id)
        origin = imports.get(func.value.id)
        if how != "global" or origin is None or origin[1] is not None:
            return False
        return (origin[0], func.attr) in table
    return False


def _never_swallows(tree: ScopeTree, expr: ast.expr) -> bool:
    """Whether ``expr`` certainly makes a context manager of :data:`NEVER_SWALLOWING`:
    a call of ``open`` (the builtin: bound nowhere in the module) or of a table entry reached
    through the module's own import, not rebound where the call runs."""
    return _call_of(tree, expr, NEVER_SWALLOWING, builtins=("open",))


def _star_import(tree: ScopeTree) -> bool:
    return any(isinstance(st, ast.ImportFrom) and any(a.name == "*" for a in st.names)
               for st in tree.module.node.body)  # type: ignore[attr-defined]


def _irrefutable(p: ast.pattern) -> bool:
    if isinstance(p, ast.MatchAs):
        return p.pattern is None or _irrefutable(p.pattern)
    if isinstance(p, ast.MatchOr):
        return any(_irrefutable(q) for q in p.patterns)
    return False


# -- putting it together ----------------------------------------------------------------------
def _run(tree: ScopeTree, scope: Scope, name: str) -> _Flow:
    key = (id(scope), name)
    cached = tree.flow_cache.get(key)
    if cached is not None:
        return cached
    flow = _Flow(tree, scope, name)
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(limit, 10_000))
        flow.run()
    finally:
        sys.setrecursionlimit(limit)
    tree.flow_cache[key] = flow
    return flow


def _descendants(scope: Scope):
    stack = list(scope.children)
    while stack:
        s = stack.pop()
        yield s
        stack.extend(s.children)


def _runs_at_once(scope: Scope) -> bool:
    """A class body or a list/set/dict comprehension runs where it is defined; a def,
    lambda or generator expression runs later (a generator when it is iterated)."""
    if scope.kind is ScopeKind.CLASS:
        return True
    return scope.kind is ScopeKind.COMPREHENSION and not isinstance(scope.node, ast.GeneratorExp)


def _child_towards(ancestor: Scope, scope: Scope) -> tuple[Scope, bool]:
    """The child of ``ancestor`` containing ``scope``, and whether every scope from
    ``scope`` up to it runs at once (:func:`_runs_at_once`)."""
    immediate = True
    while scope.parent is not ancestor:
        immediate = immediate and _runs_at_once(scope)
        assert scope.parent is not None
        scope = scope.parent
    return scope, immediate and _runs_at_once(scope)


def _outside_writers(owner: Scope, name: str) -> list[Scope]:
    """Scopes under ``owner`` that assign or delete ``name`` of ``owner`` through
    ``nonlocal`` (function owner) or ``global`` (module owner), except walrus targets of
    comprehensions evaluated inline (the flow pass handles those where they run)."""
    out = []
    for d in _descendants(owner):
        f = d.flags.get(name, 0)
        if not f & DEF_LOCAL:
            continue
        if owner.kind is ScopeKind.MODULE:
            if not f & DEF_GLOBAL:
                continue
        elif not (f & DEF_NONLOCAL and resolve_binding(d, name)[1] is owner):
            continue
        inline = d
        while inline.is_comprehension and inline.parent is not owner:
            inline = inline.parent  # type: ignore[assignment]
        if inline.is_comprehension and inline.parent is owner:
            continue
        out.append(d)
    return out


def _has_binding(flow: _Flow) -> bool:
    return any(bits & _B for _, bits in flow.events)


def _deferred(tree: ScopeTree, owner: Scope, name: str, child: Scope) -> int:
    """A name of ``owner`` read from code that runs later (a nested def/lambda): bound on
    every path when certainly bound where ``child`` is defined and never rebound after.

    A parameter of a function or lambda ``owner`` that its own code never assigns,
    deletes, imports or declares (:func:`_pure_parameter`) is answered from
    :func:`_outside_writers` alone, without the flow pass: its pass would record no
    binding event, so the answer below is ``_B`` without a ``nonlocal`` writer and
    ``_B | _U`` with one, wherever ``child`` is defined (benchmark item 9: a launcher's
    closure over its ``cfg``)."""
    if owner.kind in (ScopeKind.FUNCTION, ScopeKind.LAMBDA) and _pure_parameter(owner, name):
        return _B | _U if _outside_writers(owner, name) else _B
    flow = _run(tree, owner, name)
    at_def = flow.bits(child.node)
    writers = _outside_writers(owner, name)
    if at_def == _B and not flow.rebound_after(child.node) and not writers:
        return _B
    if owner.kind in (ScopeKind.FUNCTION, ScopeKind.LAMBDA) and owner.flags.get(name, 0) & DEF_PARAM:
        if not writers and not any(bits & _U for _, bits in flow.events):
            return _B  # a parameter, never deleted: bound whenever the closure runs
    if _has_binding(flow) or writers or at_def & _B or \
            owner.flags.get(name, 0) & DEF_PARAM:
        return _B | _U
    return _U


def _immediate(tree: ScopeTree, owner: Scope, name: str, node: ast.AST) -> int:
    """A name of ``owner`` read by code that runs right where ``node`` is evaluated."""
    bits = _run(tree, owner, name).bits(node)
    if _outside_writers(owner, name) and bits:
        bits = _B | _U
    return bits


def _global_bits(tree: ScopeTree, scope: Scope, name: str, at: ast.AST) -> int:
    module = tree.module
    if scope is module:
        return _immediate(tree, module, name, at)
    child, immediate = _child_towards(module, scope)
    if immediate:
        return _immediate(tree, module, name, child.node)
    return _deferred(tree, module, name, child)


def _bits_at(tree: ScopeTree, scope: Scope, name: str, at: ast.AST) -> int:
    how, owner = resolve_binding(scope, name)
    if how == "global":
        return _global_bits(tree, scope, name, at)
    assert owner is not None
    if how == "free":
        child, immediate = _child_towards(owner, scope)
        if immediate:
            return _immediate(tree, owner, name, child.node)
        return _deferred(tree, owner, name, child)
    if scope.kind is ScopeKind.CLASS:  # LOAD_NAME: the class namespace, then globals
        own = _run(tree, scope, name).bits(at)
        if not own & _U:
            return own
        other = _global_bits(tree, scope, name, at)
        return (own & _B) | other if other else own & _B
    return _immediate(tree, scope, name, at)


#: statements that always go on to the next one and bind no parameter left unbound by
#: the scope's flags (:func:`_parameter_reached`): a docstring is the only ``Expr`` (a
#: call may be ``sys.exit()``)
_FALLS_THROUGH = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Import, ast.ImportFrom, ast.Pass)
#: simple statements whose ``value`` the flow evaluates with the statement's own state
_VALUED = (ast.Return, ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign)
#: a parameter's flags that mean its function's own code may change it (an assignment,
#: ``del``, an import, a ``global``/``nonlocal`` declaration)
_CHANGED = DEF_LOCAL | DEF_GLOBAL | DEF_NONLOCAL | DEF_IMPORT


def _pure_parameter(scope: Scope, name: str) -> bool:
    """Whether ``name`` (mangled) is a parameter of ``scope`` that the scope's own code
    never assigns, deletes, imports or declares (its flags,
    :mod:`ppo_migrate.rules.scopes`): the flow pass of it records no binding event and
    only ever the state ``_B`` (or nothing, where the code is not reached)."""
    flags = scope.flags.get(name, 0)
    return bool(flags & DEF_PARAM) and not flags & _CHANGED


def _within(node: ast.AST, start: tuple[int, int], end: tuple[int, int]) -> bool:
    """Whether ``node``'s source range holds the range ``start``-``end``."""
    return (node.lineno, node.col_offset) <= start and \
        end <= (node.end_lineno or 0, node.end_col_offset or 0)  # type: ignore[attr-defined]


def _block_reached(tree: ScopeTree, body: list[ast.stmt], start: tuple[int, int],
                   end: tuple[int, int]) -> bool:
    """Whether the flow pass, entering the statement list ``body`` with the state ``_B``
    of a pure parameter (:func:`_pure_parameter`), certainly evaluates the node spanning
    ``start``-``end`` with that state: the statements before the one holding it always go
    on to the next (assignments, imports, ``pass``, an expression statement that is no
    call of :data:`NEVER_RETURNING`), and the one holding it evaluates it on entry (a
    simple statement's ``value``; an ``if``'s test or a branch its constant test does not
    rule out; a loop's header or body; a ``with``'s items or body; a ``try``'s body),
    looked into the same way. ``False``: not told here (an ``except``, ``else`` or
    ``finally`` clause, a ``match``, any other statement before it)."""
    for st in body:
        t = type(st)
        if (st.end_lineno or 0, st.end_col_offset or 0) < end:
            if t in _FALLS_THROUGH:
                continue
            if t is ast.Expr and not _never_returns(tree, st.value):  # type: ignore[attr-defined]
                continue
            return False
        if (st.lineno, st.col_offset) > start:
            return False  # (not in this block)
        if t in _VALUED:
            value = st.value  # type: ignore[attr-defined]
            return value is not None and _within(value, start, end)
        if t is ast.If:
            test = st.test  # type: ignore[attr-defined]
            if _within(test, start, end):
                return True
            constant = isinstance(test, ast.Constant)
            taken = constant and bool(test.value)
            if st.body and _within_block(st.body, start, end):  # type: ignore[attr-defined]
                return (taken or not constant) and _block_reached(tree, st.body, start, end)  # type: ignore[attr-defined]
            if st.orelse and _within_block(st.orelse, start, end):  # type: ignore[attr-defined]
                return not taken and _block_reached(tree, st.orelse, start, end)  # type: ignore[attr-defined]
            return False
        if t is ast.While:
            if _within(st.test, start, end):  # type: ignore[attr-defined]
                return True
        elif t is ast.For or t is ast.AsyncFor:
            if _within(st.iter, start, end) or _within(st.target, start, end):  # type: ignore[attr-defined]
                return True
        elif t is ast.With or t is ast.AsyncWith:
            if any(_within(i.context_expr, start, end)  # type: ignore[attr-defined]
                   or (i.optional_vars is not None and _within(i.optional_vars, start, end))
                   for i in st.items):  # type: ignore[attr-defined]
                return True
        elif t is not ast.Try:
            return False
        inner = st.body  # type: ignore[attr-defined]
        return bool(inner) and _within_block(inner, start, end) and _block_reached(tree, inner, start, end)
    return False


def _within_block(body: list[ast.stmt], start: tuple[int, int], end: tuple[int, int]) -> bool:
    """Whether the statement list ``body`` (not empty) spans ``start``-``end``."""
    first, last = body[0], body[-1]
    return (first.lineno, first.col_offset) <= start and \
        end <= (last.end_lineno or 0, last.end_col_offset or 0)


def _parameter_reached(tree: ScopeTree, scope: Scope, name: str, at: ast.AST) -> bool:
    """Whether ``at`` finds parameter ``name`` of function ``scope`` certainly bound,
    told without the flow pass: the name is a parameter the function never assigns,
    deletes or declares (:func:`_pure_parameter`), no nested scope writes it through
    ``nonlocal``, and the flow pass certainly reaches ``at`` (:func:`_block_reached`:
    ``at`` in the ``value`` of a simple statement, or the test of an ``if``, in a branch,
    a loop, a ``with`` or a ``try`` body, each preceded only by statements that always go
    on to the next: assignments, imports, ``pass``, a docstring, a call that is no
    ``sys.exit()``). The flow pass then finds ``_B`` at ``at`` (the entry state of a
    parameter, never changed, on a path that reaches it); ``False`` means "not told
    here", not "unbound": :func:`bound_at` runs the flow. ~20 us a call saved (a flow
    pass per function and name: benchmark items 9 and 10 ask one per module; item 9's
    calls sit in an ``if`` after a docstring).

    Args:
        tree: the module's scopes; scope: a ``FUNCTION`` scope of it; name: mangled;
        at: a node that ``tree.scope_of`` puts in ``scope`` (only a call is told here).
    """
    if not _pure_parameter(scope, name):
        return False
    if type(at) is not ast.Call:
        return False  # (a call's every node is recorded; a walrus's target is not)
    start = (at.lineno, at.col_offset)
    end = (at.end_lineno or 0, at.end_col_offset or 0)
    if not _block_reached(tree, scope.node.body, start, end):  # type: ignore[attr-defined]
        return False
    return not (scope.children and _outside_writers(scope, name))


def bound_at(tree: ScopeTree, name: str, at: ast.AST) -> Bound:
    """Whether evaluating ``at`` (an expression node of ``tree``) finds ``name`` bound.

    ``name`` is an identifier as written (NFKC-normalised by the parser; mangled here inside
    classes). The lookup is Python's, from ``tree.scope_of(at)``:

    - a local of a function, lambda or comprehension → definite assignment over that scope's
      code up to ``at``: if/else (a constant test takes one branch; any other test either),
      try/except/else/finally (handlers entered with every state
      of the body; `finally` run for the normal and the abrupt exits), for/while loops to a
      fixpoint (``while True`` exits only by ``break``; ``else`` clauses), ``with`` (its
      ``__exit__`` may swallow the body's exceptions, so every body state reaches the next
      statement — except a call of a context manager whose ``__exit__`` is known to return
      None, :data:`NEVER_SWALLOWING`), match cases (captures bound in the guard; a failed
      case may leave captures bound; an irrefutable capture always binds), ``del``, ``return``/``raise``/``continue``/``break``, walrus (short-circuit
      and conditional expressions followed branch by branch), ``except ... as name``
      unbinding, a star import (possibly binds anything), a statement calling
      :data:`NEVER_RETURNING` (``sys.exit()``) ends its path like ``raise``, comprehension clause order (the
      first evaluation of a clause sees only earlier targets);
    - a class body's own name → the class body's flow, then (where it may be unbound) the
      globals, as ``LOAD_NAME`` does — never the enclosing function;
    - a free variable → CERTAIN when it is a never-deleted parameter of the enclosing
      function, or certainly bound where the nested def/lambda is defined and never rebound
      after it (for a class body or list/set/dict comprehension, which run at once: the
      state there; a generator expression runs when iterated, like a lambda);
    - a global → the module's flow up to the top-level statement that runs the code (for
      code inside a function: CERTAIN only if certainly bound before the def and never
      deleted or rebound later); ``global``/``nonlocal`` writers elsewhere make the answer
      POSSIBLE.

    UNBOUND when no path binds the name before ``at``; unreachable code is reported
    POSSIBLE when the name has a binding (never CERTAIN). Raises ``KeyError`` if ``at`` is
    not a node of ``tree``. Rule sources: CPython's ``symtable.c`` (lookup) and the
    language reference's "Naming and binding" and compound-statement semantics.
    """
    scope = tree.scope_of(at)
    key = mangle(scope.private, name)
    if scope.kind is ScopeKind.FUNCTION and _parameter_reached(tree, scope, key, at):
        return Bound.CERTAIN
    bits = _bits_at(tree, scope, key, at)
    if not bits:  # `at` is never evaluated: do not claim anything certain
        how, owner = resolve_binding(scope, key)
        owner = owner or tree.module
        flow = _run(tree, owner, key)
        return Bound.POSSIBLE if _has_binding(flow) or owner.flags.get(key, 0) & DEF_PARAM \
            else Bound.UNBOUND
    return _bound(bits)
