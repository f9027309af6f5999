"""What a function of the module may return, judged value by value for a call of it
(``config = load()`` with ``def load(): return {...}`` here).
"""

from __future__ import annotations

import ast

from ppo_migrate.rules.config_model import _FUNCTIONS
from ppo_migrate.rules.config_syntax import _returns_of


class CalleeReturns:
    """The values a same-file callee returns, each judged, memoised and guarded against
    recursion (:class:`ppo_migrate.rules.config_memo.JudgementMemo`).

    A part of :class:`ppo_migrate.rules.configs.ConfigFinder` (mixed into it, which holds
    the state: ``module``, ``scopes``, ``finder``, ``names``, ``parents``, ``classes``,
    ``follow_values`` and the memo, evidence and origins of the judgement under way);
    the judge is the caller's (:meth:`BindingTrust._returned_trust`,
    :meth:`PositiveConfig._positively_config`).
    """

    def _judge_returns(self, call: ast.Call, judge) -> list | None:
        """``judge(value)`` for each value a call of a function defined in this module may
        return (a ``None`` constant for a bare ``return`` or for falling off the end): a
        plain name bound only by ``def`` statements here, or ``<self>.<name>(...)`` with
        a method of that name in one of the module's classes. ``None`` when the callee
        is no such function (an import, a variable), is a generator or a coroutine, or
        is being judged already (recursion)."""
        func = call.func
        defs: list[ast.AST] = []
        if isinstance(func, ast.Name):
            holder = self.scopes.scope_of(func).lookup(func.id)
            if holder is not None:
                defs = [b.node for b in self.finder.bindings_in(holder, func.id)]
        elif (
            isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and self.finder.instance_method_of(func.value, func.value.id) is not None
        ):
            defs = [
                stmt for cls in self.module.facts.binders if isinstance(cls, ast.ClassDef)
                for stmt in cls.body if isinstance(stmt, _FUNCTIONS) and stmt.name == func.attr
            ]
        if not defs or not all(isinstance(d, ast.FunctionDef) for d in defs):
            return None
        ids = {id(d) for d in defs}
        if any([self._guarded(2, i) for i in ids]):
            return None
        values: list[ast.expr] = []
        for d in defs:
            found = self._returns_of(d)  # type: ignore[arg-type]
            if found is None:
                return None  # a generator
            values.extend(found)
        # memoised (:meth:`_recall`) by the judge, the ``def``s in order and whether
        # origins are recorded: the values judged are those ``def``s' returns
        key = ("returns", judge.__name__, tuple(id(d) for d in defs), self._origins is not None)
        known = self._recall(key)
        if known is not None:
            return list(known.result)  # type: ignore[call-overload]
        frame = self._begin()
        for i in ids:
            self._returning[i] = self._tick()
        try:
            judged = []
            for v in values:
                judged.append(judge(v))
        finally:
            for i in ids:
                del self._returning[i]
            self._end(frame)
        self._keep(frame, key, tuple(defs), tuple(judged))
        return judged

    def _returns_of(self, func: ast.FunctionDef) -> list[ast.expr] | None:
        """:func:`_returns_of`, walked once per function (the same helper is asked about
        at every call of it: ``_pydecimal.py`` walked its functions 16,956 times)."""
        known = self._returns.get(id(func))
        if known is None or known[0] is not func:
            known = self._returns[id(func)] = (func, _returns_of(func))
        return known[1]
