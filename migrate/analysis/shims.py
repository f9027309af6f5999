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

A configless call on the branch chosen when the runtime function has no
parameters, or in an ``except TypeError`` handler whose ``try`` passes a config,
is a *shim*: ppo-migrate leaves it alone and reports it only with
``check --show-shims`` (rule PPO004). A faithful port of the LibCST detector
(``ppo_migrate.shims``) that preceded it.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping

#: Words one of which every shim's test or handler spells (``inspect.signature``,
#: ``__code__.co_argcount``, ``except TypeError``): a module whose text holds none of
#: them has no shim, and the detector is not run on it. A new shim form must add its word.
MARKERS = ("signature", "co_argcount", "TypeError", "argspec", "getfullargspec")

_UNKNOWN = object()
_SIGNATURE_FUNCS = frozenset({"inspect.signature"})
_COMPARE = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_TERMINATORS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


class _Signature:
    """Stands for ``inspect.signature(f)`` of a function with no parameters."""

    parameters: dict = {}


class ShimDetector:
    """Decides whether a configless target call is a compatibility shim.

    Args:
        ancestors: callable giving the nodes around a call, from the module down to
            its parent (:meth:`ppo_migrate.analysis.module.ParsedModule.ancestors`).
        qualified_names: callable giving the absolute qualified names (``set[str]``)
            of an expression (relative imports resolved).
        is_target: callable telling whether a set of qualified names is a target.
        is_configless: callable telling whether a call passes no config.
    """

    def __init__(
        self,
        ancestors: Callable[[ast.AST], list[ast.AST]],
        qualified_names: Callable[[ast.expr], set[str]],
        is_target: Callable[[set[str]], bool],
        is_configless: Callable[[ast.Call], bool],
    ) -> None:
        self._ancestors = ancestors
        self._parents: Mapping[int, ast.AST] = {}
        self._qnames = qualified_names
        self._is_target = is_target
        self._is_configless = is_configless
        self._saw_target = False

    def why(self, call: ast.Call) -> str | None:
        """Why ``call`` is a shim (a short phrase), or ``None`` when it is not one."""
        chain = [*self._ancestors(call), call]
        self._parents = {id(c): p for p, c in zip(chain, chain[1:])}
        verdicts: list[bool] = []
        child: ast.AST = call
        parent = self._parents.get(id(child))
        reason = None
        branch = "on the branch taken when the runtime function has no parameters"
        while parent is not None:
            if isinstance(parent, (ast.If, ast.IfExp)):
                in_body = _in(child, parent.body)
                in_else = _in(child, parent.orelse)
                if in_body or in_else:
                    value = self._evaluate_test(parent.test)
                    if value is not _UNKNOWN:
                        verdicts.append(bool(value) == in_body)
                        reason = branch
            if isinstance(child, ast.stmt):
                # ``if <test>: return ...`` earlier in the same block: what follows is its else
                for block in _blocks(parent):
                    if child in block:
                        for stmt in block:
                            if stmt is child:
                                break
                            if isinstance(stmt, ast.If) and not stmt.orelse and _terminates(stmt.body):
                                value = self._evaluate_test(stmt.test)
                                if value is not _UNKNOWN:
                                    verdicts.append(not value)
                                    reason = branch
                        break
            if isinstance(parent, ast.ExceptHandler) and _in(child, parent.body):
                if _catches_type_error(parent) and self._try_passes_config(parent):
                    return "in an `except TypeError` fallback of a call that passes a config"
            child, parent = parent, self._parents.get(id(parent))
        if verdicts and all(verdicts):
            return reason
        return None

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
        value = self._evaluate(node)
        return value if self._saw_target else _UNKNOWN

    def _evaluate(self, node: ast.expr) -> object:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool):
                return _UNKNOWN  # LibCST's detector read ``True``/``False`` as names
            if isinstance(node.value, (int, str)):
                return node.value
            return _UNKNOWN
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
            if (
                self._qnames(node.func) & _SIGNATURE_FUNCS
                and len(node.args) == 1
                and not node.keywords
                and not isinstance(node.args[0], ast.Starred)
            ):
                if self._is_target(self._qnames(node.args[0])):
                    self._saw_target = True
                    return _Signature()
            if (
                isinstance(node.func, ast.Name)
                and node.func.id == "len"
                and len(node.args) == 1
                and not node.keywords
            ):
                v = self._evaluate(node.args[0])
                return _UNKNOWN if v is _UNKNOWN or not hasattr(v, "__len__") else len(v)  # type: ignore[arg-type]
            return _UNKNOWN
        if isinstance(node, ast.Attribute):
            if node.attr == "parameters":
                v = self._evaluate(node.value)
                return {} if isinstance(v, _Signature) else _UNKNOWN
            if (
                node.attr == "co_argcount"
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "__code__"
                and self._is_target(self._qnames(node.value.value))
            ):
                self._saw_target = True
                return 0
            return _UNKNOWN
        return _UNKNOWN


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


__all__ = ["MARKERS", "ShimDetector"]
