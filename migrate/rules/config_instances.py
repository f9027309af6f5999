"""What every instance of a class holds: whether ``<self>.<name>`` is set before any other
method runs (the ``__init__`` in effect, a dataclass's generated one) and what the
constructions of a dataclass hand its field.
"""

from __future__ import annotations

import ast
import functools

from ppo_migrate.rules.config_model import _FUNCTIONS
from ppo_migrate.rules.config_syntax import _is_dataclass, _walk_here, _worst
from ppo_migrate.rules.targets import dotted_parts


class InstanceState:
    """Whether an instance surely has an attribute, and a dataclass field's trust.

    A part of :class:`ppo_migrate.rules.configs.ConfigFinder` (mixed into it, which holds
    the state: ``module``, ``scopes``, ``finder``, ``names``, ``parents``, ``classes``,
    ``follow_values`` and the memo, evidence and origins of the judgement under way);
    it uses :class:`ppo_migrate.rules.config_classes.ClassConstruction` and
    :class:`ppo_migrate.rules.config_positive.PositiveConfig`.
    """

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
