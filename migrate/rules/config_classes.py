"""Classes the config finder follows: a class's constructions (what reaches its
``__init__``), its same-file subclasses, its base classes in this or another file of the
project (:class:`ppo_migrate.rules.index.ClassIndex`) and the attributes a class and
its bases bind.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ppo_migrate.rules.config_memo import JudgementMemo
from ppo_migrate.rules.config_model import _FUNCTIONS, _STATEMENT_BLOCKS
from ppo_migrate.rules.config_syntax import _ATTRIBUTE, _ESCAPES, _UNPACKED, _passed_value
from ppo_migrate.rules.scopes import Scope, ScopeKind
from ppo_migrate.rules.targets import dotted_parts
from ppo_migrate.project.modules import resolve_relative

if TYPE_CHECKING:
    from ppo_migrate.rules.configs import ConfigFinder


def _own_attributes(cls: ast.ClassDef, comprehensions: bool = True) -> dict[str, list]:
    """Attribute name -> ``(assigned value, annotation)`` pairs (``None`` when not known) of
    one class: names the
    class body binds, and ``<self>.X`` targets in its methods (``<self>`` being each
    method's own first parameter; functions nested in a method included, nested classes not).

    Args:
        cls: the ``class`` statement.
        comprehensions: ``False`` when the class holds no comprehension (its module's
            :attr:`ppo_migrate.rules.module.ModuleFacts.comprehensions` says so): the
            walk of the whole class for their attribute targets is skipped.
    """
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
    if not comprehensions:
        return out
    for node in ast.walk(cls):  # ``[0 for self.config in sweep]``: whatever it iterates
        if isinstance(node, ast.comprehension):
            for t in ast.walk(node.target):
                if isinstance(t, ast.Attribute):
                    out.setdefault(t.attr, []).append((None, None))
    return out


class ClassConstruction:
    """A class's constructions, subclasses, bases and bound attributes.

    A part of :class:`ppo_migrate.rules.configs.ConfigFinder` (mixed into it, which holds
    the state: ``module``, ``scopes``, ``finder``, ``names``, ``parents``, ``classes``,
    ``follow_values`` and the memo, evidence and origins of the judgement under way);
    it uses :class:`ppo_migrate.rules.config_callers.CallerValues` (the calls
    of a class). A base in another file is judged by that file's finder.
    """

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
        # the only calls the loop below can take a value from, kept with the finder (the
        # same for every class; benchmark item 9 asked :meth:`_builds_instance` of each
        # of the module's calls): a callee ``x.__class__``/``x.__init__``, ``type(x)``, or
        # a name that may be a classmethod's ``cls`` (:attr:`_constructor_params`)
        calls = self.__dict__.get("_construction_calls")
        if calls is None:
            params = self._constructor_params
            calls = self.__dict__["_construction_calls"] = [
                call for call in self.module.facts.calls
                if (type(f := call.func) is ast.Attribute and f.attr in ("__class__", "__init__"))
                or (type(f) is ast.Name and f.id in params)
                or (type(f) is ast.Call and type(f.func) is ast.Name and f.func.id == "type")
            ]
        for call in calls:
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

    def _subclasses(self, cls: Scope) -> list[ast.ClassDef]:
        """The same-file classes that inherit from ``cls`` (bases by plain name,
        transitively), whatever their own ``__init__``."""
        assert isinstance(cls.node, ast.ClassDef) and cls.parent is not None
        found: list[tuple[str, Scope, ast.ClassDef]] = [(cls.node.name, cls.parent, cls.node)]
        seen = {id(cls.node)}
        classes = _derived_classes(self)  # the only ones that may inherit from ``cls``
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
        classes = _derived_classes(self)  # the only ones that may inherit from ``cls``
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

    def _class_calls(self, cls: Scope) -> Iterator[ast.Call]:
        for name, bound_in in self._classes_inheriting_init(cls):
            for load in self.module.facts.loads.get(name, ()):
                if self.scopes.scope_of(load).lookup(name) is bound_in:
                    call = self._call_through(load)
                    if isinstance(call, ast.Call) and call is not _ESCAPES and call is not _ATTRIBUTE:
                        yield call

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
        for k, v in _own_attributes(cls, self._holds_comprehension(cls)).items():
            out.setdefault(k, []).extend((self, value, annotation) for value, annotation in v)
        self._attrs[id(cls)] = out
        return out

    def _holds_comprehension(self, cls: ast.ClassDef) -> bool:
        """Whether a comprehension of this module may lie inside ``cls`` (its decorators,
        bases and body): one whose target starts on a line the class statement spans,
        decorators included (a superset, from the module's one walk)."""
        found = self.module.facts.comprehensions
        if not found:
            return False
        first = min([cls.lineno, *(d.lineno for d in cls.decorator_list)])
        last = cls.end_lineno or cls.lineno
        return any(first <= c.target.lineno <= last for c in found)

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


def _derived_classes(finder: ClassConstruction) -> list[ast.ClassDef]:
    """The module's ``class`` statements with a base spelled as a plain name, in the
    walk's order: the only classes :meth:`ClassConstruction._subclasses` and
    :meth:`ClassConstruction._classes_inheriting_init` can find inheriting from a class
    (bases by plain name). Listed once per module and kept with the finder (both scanned
    every binding of the module for each class asked about; benchmark item 9's classes
    have no base, so both now end at once).

    Args:
        finder: the module's :class:`ppo_migrate.rules.configs.ConfigFinder`.
    """
    known = finder.__dict__.get("_derived_classes")
    if known is None:
        known = finder.__dict__["_derived_classes"] = [
            n for n in finder.module.facts.binders  # type: ignore[attr-defined]
            if isinstance(n, ast.ClassDef) and any(isinstance(b, ast.Name) for b in n.bases)
        ]
    return known
