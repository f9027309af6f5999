"""Compatibility shims: configless calls that are right where they are.

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
``check --show-shims`` (rule PPO004).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping

import libcst as cst

_UNKNOWN = object()
_SIGNATURE_FUNCS = frozenset({"inspect.signature"})
_COMPARE = {
    cst.Equal: operator.eq,
    cst.NotEqual: operator.ne,
    cst.LessThan: operator.lt,
    cst.LessThanEqual: operator.le,
    cst.GreaterThan: operator.gt,
    cst.GreaterThanEqual: operator.ge,
    cst.In: lambda a, b: a in b,
    cst.NotIn: lambda a, b: a not in b,
}


class _Signature:
    """Stands for ``inspect.signature(f)`` of a function with no parameters."""

    parameters: dict = {}


class ShimDetector:
    """Decides whether a configless target call is a compatibility shim.

    Args:
        parents: ``ParentNodeProvider`` results (node -> parent).
        qualified_names: callable giving the resolved absolute qualified names
            (``set[str]``) of an expression node.
        is_target: callable telling whether a set of qualified names is a target.
        is_configless: callable telling whether a call passes no config.
    """

    def __init__(
        self,
        parents: Mapping[cst.CSTNode, cst.CSTNode],
        qualified_names: Callable[[cst.CSTNode], set[str]],
        is_target: Callable[[set[str]], bool],
        is_configless: Callable[[cst.Call], bool],
    ) -> None:
        self._parents = parents
        self._qnames = qualified_names
        self._is_target = is_target
        self._is_configless = is_configless
        self._saw_target = False

    def why(self, call: cst.Call) -> str | None:
        """Why ``call`` is a shim (a short phrase), or ``None`` when it is not one."""
        verdicts: list[bool] = []
        child: cst.CSTNode = call
        parent = self._parents.get(child)
        reason = None
        while parent is not None:
            if isinstance(parent, (cst.If, cst.IfExp)):
                in_body = child is parent.body
                in_else = child is parent.orelse
                if in_body or in_else:
                    value = self._evaluate_test(parent.test)
                    if value is not _UNKNOWN:
                        verdicts.append(bool(value) == in_body)
                        reason = "on the branch taken when the runtime function has no parameters"
            elif isinstance(parent, (cst.IndentedBlock, cst.Module)) and isinstance(
                child, cst.BaseStatement
            ):
                # ``if <test>: return ...`` earlier in the block: what follows is its else
                for stmt in parent.body:
                    if stmt is child:
                        break
                    if isinstance(stmt, cst.If) and stmt.orelse is None and _terminates(stmt.body):
                        value = self._evaluate_test(stmt.test)
                        if value is not _UNKNOWN:
                            verdicts.append(not value)
                            reason = "on the branch taken when the runtime function has no parameters"
            elif isinstance(parent, cst.ExceptHandler) and child is parent.body:
                if self._catches_type_error(parent) and self._try_passes_config(parent):
                    return "in an `except TypeError` fallback of a call that passes a config"
            child, parent = parent, self._parents.get(parent)
        if verdicts and all(verdicts):
            return reason
        return None

    # -- except TypeError --------------------------------------------------------
    def _catches_type_error(self, handler: cst.ExceptHandler) -> bool:
        t = handler.type
        names = t.elements if isinstance(t, cst.Tuple) else [t] if t is not None else []
        for n in names:
            value = n.value if isinstance(n, cst.Element) else n
            if isinstance(value, cst.Name) and value.value == "TypeError":
                return True
        return False

    def _try_passes_config(self, handler: cst.ExceptHandler) -> bool:
        node = self._parents.get(handler)
        if not isinstance(node, cst.Try):
            return False
        finder = _CallFinder()
        node.body.visit(finder)
        return any(
            self._is_target(self._qnames(c)) and not self._is_configless(c) for c in finder.calls
        )

    # -- evaluating a test under "the runtime function has no parameters" ---------
    def _evaluate_test(self, node: cst.BaseExpression) -> object:
        """The test's value under that assumption; unknown unless it asks about the function.

        ``if 1:`` or ``if 0: return`` says nothing about the runtime function's
        signature, so a call they guard is no shim.
        """
        self._saw_target = False
        value = self._evaluate(node)
        return value if self._saw_target else _UNKNOWN

    def _evaluate(self, node: cst.BaseExpression) -> object:
        if isinstance(node, cst.Integer):
            return int(node.value, 0)
        if isinstance(node, cst.SimpleString):
            return node.evaluated_value
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            v = self._evaluate(node.expression)
            return _UNKNOWN if v is _UNKNOWN else not v
        if isinstance(node, cst.BooleanOperation):
            left, right = self._evaluate(node.left), self._evaluate(node.right)
            if left is _UNKNOWN or right is _UNKNOWN:
                return _UNKNOWN
            return (left and right) if isinstance(node.operator, cst.And) else (left or right)
        if isinstance(node, cst.Comparison):
            left = self._evaluate(node.left)
            if left is _UNKNOWN:
                return _UNKNOWN
            for target in node.comparisons:
                op = _COMPARE.get(type(target.operator))
                right = self._evaluate(target.comparator)
                if op is None or right is _UNKNOWN:
                    return _UNKNOWN
                try:
                    if not op(left, right):
                        return False
                except TypeError:
                    return _UNKNOWN
                left = right
            return True
        if isinstance(node, cst.Call):
            if self._qnames(node.func) & _SIGNATURE_FUNCS and len(node.args) == 1:
                if self._is_target(self._qnames(node.args[0].value)):
                    self._saw_target = True
                    return _Signature()
            if isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1:
                v = self._evaluate(node.args[0].value)
                return _UNKNOWN if v is _UNKNOWN or not hasattr(v, "__len__") else len(v)  # type: ignore[arg-type]
            return _UNKNOWN
        if isinstance(node, cst.Attribute):
            if node.attr.value == "parameters":
                v = self._evaluate(node.value)
                return {} if isinstance(v, _Signature) else _UNKNOWN
            if (
                node.attr.value == "co_argcount"
                and isinstance(node.value, cst.Attribute)
                and node.value.attr.value == "__code__"
                and self._is_target(self._qnames(node.value.value))
            ):
                self._saw_target = True
                return 0
            return _UNKNOWN
        return _UNKNOWN


def _terminates(block: cst.BaseSuite) -> bool:
    """Whether a suite always leaves its enclosing block (ends in return/raise/continue/break)."""
    body = block.body
    if not body:
        return False
    last = body[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return bool(last.body) and isinstance(
            last.body[-1], (cst.Return, cst.Raise, cst.Continue, cst.Break)
        )
    if isinstance(last, (cst.Return, cst.Raise, cst.Continue, cst.Break)):
        return True
    return False


class _CallFinder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)
