"""Compatibility shims on Python's ``ast``: configless calls that are right where they are.

Code that must run against both the old and the new verl often reads::

    if inspect.signature(get_ppo_ray_runtime_env).parameters:
        env = get_ppo_ray_runtime_env(config)
    else:
        env = get_ppo_ray_runtime_env()          # old verl: no parameter

or::

    try:
        env = get_ppo_ray_runtime_env(config)
    except TypeError:                             # old verl
        env = get_ppo_ray_runtime_env()

or, as most public code spells it, through variables::

    signature = inspect.signature(get_ppo_ray_runtime_env)
    if len(signature.parameters) == 0:
        return get_ppo_ray_runtime_env()

Or by the release (trial 26f, ``h8_version_gated_compat_branch``)::

    if tuple(map(int, version("verl").split(".")[:2])) >= (0, 9):
        env = get_ppo_ray_runtime_env(config)
    else:
        env = get_ppo_ray_runtime_env()          # verl 0.8 clusters

A configless call on the branch chosen when the runtime function has no
parameters, in an ``except TypeError`` handler whose ``try`` passes a config, or
in one branch of an ``if`` whose test asks which verl runs (a ``__version__``,
``version("verl")``, ``hasattr(module, ...)``, in the test or a function of the
module it calls) while its other branch passes a config, is a *shim*: ppo-migrate leaves it alone and reports it only with
``check --show-shims`` (rule PPO004). A test is evaluated under "the function
has no parameters": ``inspect.signature(f)``, ``.parameters`` (and ``.keys()``,
``list(...)``), ``inspect.getfullargspec(f)``/``getargspec`` and their ``.args``,
``f.__code__`` and its ``co_argcount``, ``len``, ``not``, comparisons, ``in``,
``is None``, and a name bound exactly once by ``name = <expr>`` in the scope it
resolves to (a local, else a module global; never a parameter, a rebound name or
one declared ``global``/``nonlocal``). Anything else is unknown: not a shim.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Iterator, Mapping

#: Words one of which every shim's test or handler spells (``inspect.signature``,
#: ``__code__.co_argcount``, ``except TypeError``): a module whose text holds none of
#: them has no shim, and the detector is not run on it. A new shim form must add its word.
MARKERS = ("signature", "co_argcount", "TypeError", "argspec", "__code__", "version", "hasattr")

_UNKNOWN = object()
#: Functions that read an installed distribution's version (its name the first argument).
_VERSION_FUNCS = frozenset({
    "importlib.metadata.version", "importlib_metadata.version", "importlib.metadata.distribution",
    "importlib_metadata.distribution", "pkg_resources.get_distribution", "pkg_resources.require",
})
#: Words one of which a test reading verl's version spells (:meth:`ShimDetector.version_gate`).
VERSION_MARKERS = ("version", "hasattr", "getattr", "get_distribution", "require")
_SIGNATURE_FUNCS = frozenset({"inspect.signature"})
_ARGSPEC_FUNCS = frozenset({"inspect.getfullargspec", "inspect.getargspec"})
#: Builtins a test may wrap a parameter collection in; they keep its length and members.
_COLLECTIONS = {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset, "dict": dict, "bool": bool}
#: How many local-variable hops one test may take (``p = s.parameters`` after ``s = signature(f)``).
_MAX_HOPS = 8
_COMPARE = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}
_TERMINATORS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
#: why a configless call on the old-release branch of a version test is a shim (trial 26f)
_RELEASE_BRANCH = "on the branch a test of verl's release chooses when its other branch passes a config"


class _Signature:
    """Stands for ``inspect.signature(f)`` of a function with no parameters."""

    parameters: dict = {}


class _ArgSpec:
    """Stands for ``inspect.getfullargspec(f)`` of a function with no parameters."""

    args: list = []
    varargs = None
    varkw = None
    defaults = None
    kwonlyargs: list = []
    kwonlydefaults = None
    keywords = None  # getargspec's name for varkw


class _Code:
    """Stands for ``f.__code__`` of a function with no parameters."""

    co_argcount = 0
    co_posonlyargcount = 0
    co_kwonlyargcount = 0
    co_varnames: tuple = ()


_MODELS = (_Signature, _ArgSpec, _Code)


class ShimDetector:
    """Decides whether a configless target call is a compatibility shim.

    Args:
        ancestors: callable giving the nodes around a call, from the module down to
            its parent (:meth:`ppo_migrate.rules.module.ParsedModule.ancestors`).
        qualified_names: callable giving the absolute qualified names (``set[str]``)
            of an expression (relative imports resolved).
        is_target: callable telling whether a set of qualified names is a target.
        is_configless: callable telling whether a call passes no config.
        may_probe: whether the module may ask about the runtime function's parameters
            at all (``inspect.signature``, ``getfullargspec``, ``getargspec``,
            ``__code__``); when it cannot, no test is evaluated (each would be unknown)
            and only the ``except TypeError`` form is looked for.
    """

    def __init__(
        self,
        ancestors: Callable[[ast.AST], list[ast.AST]],
        qualified_names: Callable[[ast.expr], set[str]],
        is_target: Callable[[set[str]], bool],
        is_configless: Callable[[ast.Call], bool],
        *,
        may_probe: bool = True,
    ) -> None:
        self._ancestors = ancestors
        self._parents: Mapping[int, ast.AST] = {}
        self._qnames = qualified_names
        self._is_target = is_target
        self._is_configless = is_configless
        self._saw_target = False
        self._may_probe = may_probe
        # id(scope) -> (scope, name -> its binders, names declared global/nonlocal):
        # each scope's own code is walked once however many names its tests read
        self._scope_binders: dict[int, tuple[ast.AST, dict[str, list[ast.AST]], set[str]]] = {}

    def why(self, call: ast.Call) -> str | None:
        """Why ``call`` is a shim (a short phrase), or ``None`` when it is not one."""
        chain = [*self._ancestors(call), call]
        self._parents = {id(c): p for p, c in zip(chain, chain[1:])}
        verdicts: list[bool] = []
        reason = None
        branch = "on the branch taken when the runtime function has no parameters"
        for node, taken, other in _guards(chain):
            if isinstance(node, ast.ExceptHandler):
                if _catches_type_error(node) and self._try_passes_config(node):
                    return "in an `except TypeError` fallback of a call that passes a config"
                continue
            value = self._evaluate_test(node)
            if value is not _UNKNOWN:
                verdicts.append(bool(value) == taken)
                reason = branch
            elif self._passes_config(other) and self._probes_verl(node):
                return _RELEASE_BRANCH
        if verdicts and all(verdicts):
            return reason
        return None

    def version_gate(self, call: ast.Call) -> ast.expr | None:
        """The test of an ``if`` (or conditional expression) around ``call``, or of an
        ``if <test>: return ...`` before it in its block, that reads verl's version or
        probes a verl module for an attribute (trial 26f): the branch may be the code's own
        path for a verl before 0.9, whose function takes no config; ``None`` when no test
        does. Read as verl's version: ``importlib.metadata.version("verl")`` (and
        ``importlib_metadata``'s, ``pkg_resources.get_distribution("verl")``),
        ``verl.__version__`` (of any module of verl), ``hasattr(<a verl module>, ...)``,
        also through a name bound once (``VERL = version("verl")``)."""
        for node, _, _ in _guards([*self._ancestors(call), call]):
            if not isinstance(node, ast.ExceptHandler) and self._reads_verl_version(node):
                return node
        return None

    def _reads_verl_version(self, test: ast.AST, hops: int = 0) -> bool:
        for node in ast.walk(test):
            if isinstance(node, ast.Call) and node.args:
                first = node.args[0]
                if (
                    self._qnames(node.func) & _VERSION_FUNCS
                    and isinstance(first, ast.Constant)
                    and isinstance(first.value, str)
                    and first.value.strip().lower() == "verl"
                ):
                    return True
                if (
                    isinstance(node.func, ast.Name) and node.func.id in ("hasattr", "getattr")
                    and _of_verl(self._qnames(first))
                ):
                    return True
            elif isinstance(node, ast.Attribute) and node.attr == "__version__":
                if _of_verl(self._qnames(node.value)):
                    return True
            elif isinstance(node, ast.Name) and hops < _MAX_HOPS:
                value = self._single_assignment(node)
                if value is not None and self._reads_verl_version(value, hops + 1):
                    return True
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and hops < _MAX_HOPS:
                # ``if _verl_09():`` with ``def _verl_09(): return version("verl") >= ...`` in
                # the module (trial 26f): its body reads the version
                helper = self._module_function(node.func)
                if helper is not None and any(
                    self._reads_verl_version(stmt, hops + 1) for stmt in helper.body
                ):
                    return True
        return False

    def _module_function(self, name: ast.Name) -> ast.FunctionDef | None:
        """The module-level ``def`` of ``name``'s module that ``name`` calls, when the module
        binds the name once, by that ``def``; ``None`` otherwise."""
        chain = self._ancestors(name)
        module = chain[0] if chain else None
        if not isinstance(module, ast.Module):
            return None
        cached = self._scope_binders.get(id(module))
        if cached is None:
            cached = self._scope_binders[id(module)] = (module, *_all_binders(module))
        binders = cached[1].get(name.id, ())
        if len(binders) == 1 and isinstance(binders[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
            return binders[0]  # type: ignore[return-value]
        return None

    def _passes_config(self, branch: ast.AST | list[ast.stmt]) -> bool:
        """Whether ``branch`` (an ``if``'s other block, an ``IfExp``'s other value) calls the
        runtime function with a config."""
        for stmt in branch if isinstance(branch, list) else [branch]:
            for c in ast.walk(stmt):
                if isinstance(c, ast.Call) and self._is_target(self._qnames(c.func)) and not self._is_configless(c):
                    return True
        return False

    def _probes_verl(self, test: ast.expr) -> bool:
        """Whether ``test`` asks which verl runs (trial 26f, ``h8_version_gated_compat_branch``):
        :meth:`_reads_verl_version` (verl's version, read directly, through a name bound once
        or in a function of the module the test calls; a feature of a verl module)."""
        return self._reads_verl_version(test)

    def _try_passes_config(self, handler: ast.ExceptHandler) -> bool:
        node = self._parents.get(id(handler))
        if not isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            return False
        for stmt in node.body:
            for c in ast.walk(stmt):
                if isinstance(c, ast.Call) and self._is_target(self._qnames(c.func)):
                    if not self._is_configless(c):
                        return True
        return False

    # -- evaluating a test under "the runtime function has no parameters" ---------
    def _evaluate_test(self, node: ast.expr) -> object:
        """The test's value under that assumption; unknown unless it asks about the function."""
        self._saw_target = False
        if not self._may_probe:  # nothing can set ``_saw_target``
            return _UNKNOWN
        self._hops = 0
        value = self._evaluate(node)
        return value if self._saw_target else _UNKNOWN

    def _evaluate(self, node: ast.expr) -> object:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool):
                return _UNKNOWN  # LibCST's detector read ``True``/``False`` as names
            if isinstance(node.value, (int, str)) or node.value is None:
                return node.value
            return _UNKNOWN
        if isinstance(node, ast.Name):
            # a local (or module) variable bound exactly once, by ``name = <expr>``
            value = self._single_assignment(node)
            if value is None or self._hops >= _MAX_HOPS:
                return _UNKNOWN
            self._hops += 1
            return self._evaluate(value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            v = self._evaluate(node.operand)
            return _UNKNOWN if v is _UNKNOWN else not v
        if isinstance(node, ast.BoolOp):
            values = [self._evaluate(v) for v in node.values]
            if any(v is _UNKNOWN for v in values):
                return _UNKNOWN
            result = values[0]
            for v in values[1:]:
                result = (result and v) if isinstance(node.op, ast.And) else (result or v)
            return result
        if isinstance(node, ast.Compare):
            left = self._evaluate(node.left)
            if left is _UNKNOWN:
                return _UNKNOWN
            for op_node, comparator in zip(node.ops, node.comparators):
                op = _COMPARE.get(type(op_node))
                right = self._evaluate(comparator)
                if op is None or right is _UNKNOWN:
                    return _UNKNOWN
                try:
                    if not op(left, right):
                        return False
                except TypeError:
                    return _UNKNOWN
                left = right
            return True
        if isinstance(node, ast.Call):
            one_arg = (
                len(node.args) == 1 and not node.keywords and not isinstance(node.args[0], ast.Starred)
            )
            if one_arg:
                called = self._qnames(node.func)
                for funcs, model in ((_SIGNATURE_FUNCS, _Signature), (_ARGSPEC_FUNCS, _ArgSpec)):
                    if called & funcs and self._is_target(self._qnames(node.args[0])):
                        self._saw_target = True
                        return model()
            if isinstance(node.func, ast.Name) and one_arg:
                v = self._evaluate(node.args[0])
                if v is _UNKNOWN:
                    return _UNKNOWN
                if node.func.id == "len":
                    return len(v) if hasattr(v, "__len__") else _UNKNOWN  # type: ignore[arg-type]
                if node.func.id in _COLLECTIONS and isinstance(v, (dict, list, tuple, set, frozenset)):
                    return _COLLECTIONS[node.func.id](v)
                return _UNKNOWN
            if (  # ``sig.parameters.keys()`` / ``.values()`` / ``.items()``
                isinstance(node.func, ast.Attribute)
                and node.func.attr in ("keys", "values", "items")
                and not node.args
                and not node.keywords
            ):
                v = self._evaluate(node.func.value)
                return list(getattr(v, node.func.attr)()) if isinstance(v, dict) else _UNKNOWN
            return _UNKNOWN
        if isinstance(node, ast.Attribute):
            if node.attr == "__code__":  # ``f.__code__`` of the runtime function
                if self._is_target(self._qnames(node.value)):
                    self._saw_target = True
                    return _Code()
                return _UNKNOWN
            v = self._evaluate(node.value)
            if isinstance(v, _MODELS) and hasattr(type(v), node.attr):
                value = getattr(v, node.attr)
                return type(value)(value) if isinstance(value, (dict, list, tuple)) else value
            return _UNKNOWN
        return _UNKNOWN

    def _single_assignment(self, name: ast.Name) -> ast.expr | None:
        """The value of ``name`` when the scope it resolves to binds it exactly once, by a
        plain ``name = <expr>`` (a local of the enclosing function, else a module global);
        ``None`` for anything else (bound twice, a parameter, a loop target, ``global``...)."""
        scopes = [
            n for n in self._ancestors(name)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        ]
        for scope in reversed(scopes):  # innermost first; class bodies do not enclose
            cached = self._scope_binders.get(id(scope))
            if cached is None:
                cached = self._scope_binders[id(scope)] = (scope, *_all_binders(scope))
            _, by_name, declared = cached
            if name.id in declared:
                return None  # ``global``/``nonlocal``: resolved elsewhere, not followed
            binders = by_name.get(name.id, ())
            if not binders:
                continue
            if len(binders) == 1 and isinstance(binders[0], ast.Assign):
                return binders[0].value
            return None
        return None


def _all_binders(scope: ast.AST) -> tuple[dict[str, list[ast.AST]], set[str]]:
    """Every statement or node of ``scope``'s own code that binds a name (nested
    functions, classes, lambdas and comprehensions excluded), for every name at once:
    one walk of the scope. An ``ast.Assign`` appears only when its single target is the
    plain name; the function itself stands for its parameters.

    Returns:
        ``(binders, declared)``: name -> the nodes that bind it (in no particular
        order), and the names the scope declares ``global`` or ``nonlocal`` (resolved
        elsewhere: never followed).
    """
    found: dict[str, list[ast.AST]] = {}
    declared: set[str] = set()

    def add(name: str, node: ast.AST) -> None:
        found.setdefault(name, []).append(node)

    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        args = scope.args
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        for name in dict.fromkeys(a.arg for a in params if a is not None):
            add(name, scope)
    body = scope.body if isinstance(scope.body, list) else [scope.body]
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            add(node.targets[0].id, node)
            stack.append(node.value)
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            add(node.name, node)
            stack.extend(node.decorator_list)
            continue  # its body is another scope
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            # another scope, but a walrus in a comprehension binds in this one
            walrus = {
                n.target.id for n in ast.walk(node)
                if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name)
            }
            for name in walrus:
                add(name, node)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            add(node.id, node)
        elif isinstance(node, ast.alias):
            add(node.asname or node.name.split(".")[0], node)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            add(node.name, node)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            add(node.name, node)
        stack.extend(ast.iter_child_nodes(node))
    return found, declared


def _guards(chain: list[ast.AST]) -> Iterator[tuple[ast.AST, bool, object]]:
    """What decides whether the last node of ``chain`` (the module down to it) runs, from
    the innermost out: ``(test, taken, other)`` for an ``if`` or conditional expression
    around it (``taken``: whether it runs when the test is true; ``other``: the other
    branch) and for an ``if <test>: return ...`` without ``else`` before it in its block
    (what follows is that ``if``'s else: ``taken`` false, ``other`` its body), and
    ``(handler, False, None)`` for an ``except`` handler whose body holds it."""
    parents = {id(c): p for p, c in zip(chain, chain[1:])}
    child = chain[-1]
    parent = parents.get(id(child))
    while parent is not None:
        if isinstance(parent, (ast.If, ast.IfExp)):
            in_body = _in(child, parent.body)
            if in_body or _in(child, parent.orelse):
                yield parent.test, in_body, parent.orelse if in_body else parent.body
        if isinstance(child, ast.stmt):
            for block in _blocks(parent):
                if child in block:
                    for stmt in block:
                        if stmt is child:
                            break
                        if isinstance(stmt, ast.If) and not stmt.orelse and _terminates(stmt.body):
                            yield stmt.test, False, stmt.body
                    break
        if isinstance(parent, ast.ExceptHandler) and _in(child, parent.body):
            yield parent, False, None
        child, parent = parent, parents.get(id(parent))


def _of_verl(names: set[str]) -> bool:
    """Whether one of the qualified ``names`` is verl or one of its modules."""
    return any(n == "verl" or n.startswith("verl.") for n in names)


def _in(node: ast.AST, field: object) -> bool:
    """Whether ``node`` is the field (an expression) or one of its statements."""
    if isinstance(field, list):
        return any(n is node for n in field)
    return field is node


def _blocks(parent: ast.AST) -> list[list[ast.stmt]]:
    out = []
    for name in ("body", "orelse", "finalbody"):
        block = getattr(parent, name, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            out.append(block)
    return out


def _terminates(block: list[ast.stmt]) -> bool:
    """Whether a block's last statement is a return/raise/continue/break."""
    return bool(block) and isinstance(block[-1], _TERMINATORS)


def _catches_type_error(handler: ast.ExceptHandler) -> bool:
    t = handler.type
    names = t.elts if isinstance(t, ast.Tuple) else [t] if t is not None else []
    return any(isinstance(n, ast.Name) and n.id == "TypeError" for n in names)


__all__ = ["MARKERS", "VERSION_MARKERS", "ShimDetector"]
