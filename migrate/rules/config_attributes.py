"""The ``<self>.<name>`` candidate: the method around the call, every write of the
attribute for instances of its class (the class's, its bases', subclasses' and outside
writes), and the check that decides it.
"""

from __future__ import annotations

import ast
import functools
import operator
from collections.abc import Callable, Iterator

from ppo_migrate.rules.config_model import _FUNCTIONS
from ppo_migrate.rules.config_syntax import _UNPACKED
from ppo_migrate.rules.flow import Bound, bound_at
from ppo_migrate.rules.scopes import Scope, ScopeKind
from ppo_migrate.rules.scopes import frames as scope_frames
from ppo_migrate.rules.targets import dotted_parts
from ppo_migrate.diagnostics import Reason, qualname


class SelfAttributes:
    """The ``<self>.<name>`` candidate of a method.

    A part of :class:`ppo_migrate.rules.configs.ConfigFinder` (mixed into it, which holds
    the state: ``module``, ``scopes``, ``finder``, ``names``, ``parents``, ``classes``,
    ``follow_values`` and the memo, evidence and origins of the judgement under way);
    it uses :class:`ppo_migrate.rules.config_classes.ClassConstruction`,
    :class:`ppo_migrate.rules.config_instances.InstanceState` and the value judgements.
    """

    def _method(self, chain: list[Scope]) -> Scope | None:
        """The innermost method around the call that has a first positional parameter
        (``None`` when there is none); whether a read of that parameter at the call is
        the method's own instance is :meth:`TargetFinder.instance_method_of`'s to say."""
        for s in chain:
            if s.kind is ScopeKind.FUNCTION and isinstance(s.node, _FUNCTIONS):
                parent = s.parent
                if parent is not None and parent.kind is ScopeKind.CLASS:
                    args = s.node.args
                    return s if (args.posonlyargs or args.args) else None
        return None

    @staticmethod
    def _first_param(method: Scope) -> str:
        node = method.node
        assert isinstance(node, _FUNCTIONS)
        return (*node.args.posonlyargs, *node.args.args)[0].arg

    def _attribute_check(self, method: Scope, name: str, call: ast.Call):
        def check() -> Bound:
            first = self._first_param(method)
            if self.finder.instance_method_of(call, first) is not method:
                # an inner def/lambda/comprehension binds its own, or the method
                # rebinds or deletes it somewhere
                return Bound.UNBOUND
            cls = method.parent
            assert cls is not None and isinstance(cls.node, ast.ClassDef)
            values = self._attribute_writes(cls, name)
            if values is None:
                return Bound.UNBOUND
            if any(
                (v is not None and (finder._value_against(v) or finder.maker_against(v)))
                or (a is not None and finder._annotation(a, method) == "other")
                for finder, v, a in values
            ):
                self._why = ("attribute-against", name, None)
                for finder, v, _ in values:  # trial 27: the file, as a local's reason names it
                    made = finder.maker_against(v) if v is not None else None
                    if made is not None:
                        self._reasons[(id(call), f"{first}.{name}")] = Reason(
                            "evidence-against", made, finder._related(v, made)
                        )
                        break
                return Bound.UNBOUND  # evidence against a training config (the table)
            if bound_at(self.scopes, first, call) is not Bound.CERTAIN:
                return Bound.UNBOUND
            if _only_none(cls.node, values):
                # fresh user 44, W1: ``config = None`` in the class body, never set to anything
                # else: passing it passes nothing (a safe fix that hides the missing config)
                self._why = ("attribute-none", name, None)
                return Bound.UNBOUND
            weak = self._per_class("weak", cls, name, lambda: any(
                # a bare declaration (``cfg: DictConfig``) says nothing either way
                finder.value_trust(v) != "strong"
                for finder, v, a in values
                if not (v is None and a is not None)
                # ``self.config = None`` until ``run(config)`` sets it (verl's TaskRunner):
                # passing None is passing nothing
                and not (isinstance(v, ast.Constant) and v.value is None)
            ))
            fields = self._per_class(
                "fields", cls, name, lambda: self._field_trust(cls.node, name, set())
            )
            if fields == "against":
                self._why = ("attribute-against", name, None)
                return Bound.UNBOUND  # ``T("ppo.yaml")`` fills the dataclass field
            if weak or fields == "weak" or not self._per_class(
                "init", cls, name, lambda: self._init_certain(cls.node, name, {id(cls.node)})
            ):
                self._why = ("attribute" if not (weak or fields == "weak") else "attribute-weak", name, None)
                return Bound.POSSIBLE  # set somewhere, maybe not yet (or not to a config)
            # issue 27: a subclass in another file may rebind ``self.<name>`` after
            # ``super().__init__()`` (``self.config = LoggingConfig()``): the class is an
            # origin the cross-file judgement reads the run's other files for
            # (``cls`` is the scope the class opens: no look-up of it by its node)
            if self.follow_values and self._origins is not None and not any(
                o.kind == "init" and o.qualname == qualname(scope_frames(cls))
                for o in self._origins
            ):  # (one origin per class: its ``__init__``'s parameter, if that set it)
                self._record_fields(cls.node, name, None)
            return Bound.CERTAIN

        return check

    def _per_class(self, what: str, cls: Scope, name: str, compute: Callable[[], object]):
        """``compute()``, once per class, attribute and question: the caller phase asks of
        every call in a file, and walking a large class (``ast.walk`` for its ``del``s, its
        ``__init__``, its subclasses' writes) for each was minutes on verl's tree (a
        tester's ``check`` of verl 0.9.1 beside a fork: 40 s)."""
        origins = self._origins
        if origins is None:  # outside :meth:`find`: nothing to record, nothing kept
            return compute()
        key = (id(cls.node), name, what)
        known = self._attribute_facts.get(key)
        if known is None:
            # the parameters the answer rests on (:meth:`find`'s origins, which the
            # cross-file judge checks) are recorded again with each answer given
            start = len(origins)
            known = self._attribute_facts[key] = (compute(), tuple(origins[start:]))
        else:
            origins.extend(known[1])
        return known[0]

    def _attribute_writes(self, cls: Scope, name: str) -> list | None:
        """``(finder, value, annotation)`` of every write of ``<self>.<name>`` for instances
        of ``cls``: its own and its bases' (:meth:`_class_attributes`), then the others
        (:meth:`_other_writes`); ``None`` when neither the class nor a base binds it."""

        def compute() -> list | None:
            values = self._class_attributes(cls.node, set()).get(name)
            return None if values is None else [*values, *self._other_writes(cls, name)]

        return self._per_class("writes", cls, name, compute)  # type: ignore[return-value]

    def _other_writes(self, cls: Scope, name: str) -> Iterator[tuple]:
        """``(finder, value, annotation)`` of the writes to ``<self>.<name>`` that
        :meth:`_class_attributes` does not see: a same-file subclass's own (its
        ``__init__``'s ``self.config = path``, a ``config`` property), and writes from
        outside the class on an object that may be an instance of it (``t.config = d``,
        ``setattr(t, "config", d)``, ``t.__dict__.update(...)``, ``vars(t)[k] = v``,
        ``del t.config``). An outside write of a value not positively a config counts as
        :data:`_UNPACKED` (an unsafe fix at most: which object it writes is not known);
        ``self.config = ...`` in a method is not outside: it is counted with its class,
        this one's or another's (``setattr(self, ...)`` and ``self.__dict__`` are counted
        here, whichever class they are in)."""
        assert isinstance(cls.node, ast.ClassDef)
        family = [cls.node, *self._subclasses(cls)]
        for sub in family[1:]:  # with its other bases: a mixin's ``config = Descriptor()``
            yield from self._class_attributes(sub, set()).get(name, ())
        for c in family:
            if any(isinstance(b, _FUNCTIONS) and b.name in ("__getattribute__", "__setattr__") for b in c.body):
                yield self, _UNPACKED, None  # every attribute read or write goes through it
            if not all(self._passes_through(d) for d in c.decorator_list):
                yield self, _UNPACKED, None  # a class decorator of this file that replaces ``__init__``
        borrowed = {
            id(b) for c in family for b in c.body if isinstance(b, _FUNCTIONS) and not any(
                (dotted_parts(d) or [""])[-1] in ("classmethod", "staticmethod") for d in b.decorator_list
            )
        }
        reads = self._class_attribute_reads
        if reads:
            # ``T.run(other)``, ``types.MethodType(T.run, other)``: a method of the class
            # called on an object that may be no instance of it (only the reads named
            # like one of the family's methods are resolved)
            methods = {
                b.name for c in family for b in c.body
                if id(b) in borrowed and b.name != "__init__"  # type: ignore[attr-defined]
            }
            if any(self._is_class_name(attr.value) for m in methods for attr in reads.get(m, ())):  # type: ignore[arg-type]
                yield self, _UNPACKED, None
        stores = self._attribute_stores
        written = stores.get(name, ())
        if name != "__dict__" and "__dict__" in stores:
            written = sorted((*written, *stores["__dict__"]), key=_FIRST)  # source order
        for _, attr in written:
            if attr.attr == name and self._an_instance_seen(attr.value):
                continue  # ``self.config = ...``: its class's own attribute
            chain = self.module.ancestors(attr)
            up = chain[-1] if chain else None
            if attr.attr == "__dict__":
                if not self._written_through(attr, up):
                    continue
                yield self, _UNPACKED, None
                continue
            value = up.value if isinstance(up, (ast.Assign, ast.AnnAssign)) else None
            if value is None or self._passed_trust(value) != "strong":
                yield self, _UNPACKED, None
        for call in self._builtin_or_dunder_calls:
            func = call.func
            args = call.args
            if isinstance(func, ast.Attribute) and func.attr in ("__setattr__", "__delattr__"):
                # ``object.__setattr__(t, "config", d)`` (a frozen dataclass's
                # ``__post_init__``), ``t.__setattr__("config", d)``
                unbound = isinstance(func.value, ast.Name) and func.value.id in ("object", "super")
                args = args if unbound or isinstance(func.value, ast.Call) else [func.value, *args]
                func = ast.Name(id=func.attr.strip("_"), ctx=ast.Load())
            elif not isinstance(func, ast.Name) or self._builtin(func) == set():
                continue
            if func.id in ("setattr", "delattr") and args:
                key = args[1] if len(args) > 1 else None
                if isinstance(key, ast.Constant) and key.value != name:
                    continue
                value = args[2] if func.id == "setattr" and len(args) > 2 else None
                if value is None or self._passed_trust(value) != "strong":
                    yield self, _UNPACKED, None
            elif func.id == "vars" and len(args) == 1:
                chain = self.module.ancestors(call)
                if chain and self._written_through(call, chain[-1]):
                    yield self, _UNPACKED, None

    # The module's nodes :meth:`_other_writes` looks at, whatever the class and attribute
    # it is asked about (once per class and attribute: 441 times over the 60 files of
    # ``test_safe_fixes_on_real_files_are_never_flagged_by_basedpyright``, each time
    # resolving every attribute's object and every call's callee again). Each keeps the
    # module's order, and the tests it drops are pure lookups of the module's bindings.

    @functools.cached_property
    def _class_attribute_reads(self) -> dict[str, list[ast.Attribute]]:
        """``T.<attr>`` with ``T`` a name some ``class`` statement binds, ``<attr>`` not
        ``__init__``, by ``<attr>``, in source order; whether ``T`` resolves to the class
        (:meth:`_is_class_name`) is asked only of the reads named like a method of the
        family judged (benchmark item 9: ``TaskRunner.remote()`` resolved for each class,
        though no method is named ``remote``). A name no ``class`` statement binds is left
        out before it is resolved (most attributes read are ``self.<x>`` and
        ``logger.<x>``)."""
        class_names = self._class_names
        if not class_names:
            return {}
        name_t = ast.Name
        out: dict[str, list[ast.Attribute]] = {}
        for attr in self.module.facts.attributes:
            if type(value := attr.value) is name_t and value.id in class_names and attr.attr != "__init__":
                out.setdefault(attr.attr, []).append(attr)
        return out

    @functools.cached_property
    def _attribute_stores(self) -> dict[str, list[tuple[int, ast.Attribute]]]:
        """Every ``<obj>.__dict__`` and every attribute written or deleted, by attribute
        name, each with its place in the module's order (:meth:`_other_writes` merges an
        attribute's and ``__dict__``'s in that order)."""
        out: dict[str, list[tuple[int, ast.Attribute]]] = {}
        load = ast.Load
        for i, attr in enumerate(self.module.facts.attributes):
            if attr.attr == "__dict__" or type(attr.ctx) is not load:
                out.setdefault(attr.attr, []).append((i, attr))
        return out

    @functools.cached_property
    def _builtin_or_dunder_calls(self) -> list[ast.Call]:
        """The calls of the builtins ``setattr``, ``delattr`` and ``vars`` by their plain
        name and of ``<obj>.__setattr__``/``<obj>.__delattr__``, in source order (the only
        calls :meth:`_other_writes` reads: any other builtin's name is not resolved)."""
        return [
            call for call in self.module.facts.calls
            if (isinstance(call.func, ast.Attribute) and call.func.attr in ("__setattr__", "__delattr__"))
            or (isinstance(call.func, ast.Name) and call.func.id in ("setattr", "delattr", "vars")
                and self._builtin(call.func) != set())
        ]

    def _written_through(self, mapping: ast.expr, up: ast.AST | None) -> bool:
        """Whether an instance's ``__dict__`` / ``vars(x)`` is written: assigned,
        ``.update(...)``/``.setdefault(...)``/``.__setitem__(...)``, or a key stored."""
        if isinstance(mapping, ast.Attribute) and not isinstance(mapping.ctx, ast.Load):
            return True
        if isinstance(up, ast.Attribute) and up.value is mapping:
            return up.attr in ("update", "setdefault", "__setitem__", "pop", "clear", "popitem")
        return isinstance(up, ast.Subscript) and up.value is mapping and not isinstance(up.ctx, ast.Load)

    def _an_instance_seen(self, obj: ast.expr) -> bool:
        """Whether ``obj`` is a method's own instance (``self``): its writes are that
        class's own attributes, counted with the class (or not this class's at all)."""
        return isinstance(obj, ast.Name) and self.finder.instance_method_of(obj, obj.id) is not None


#: the place of a ``(place, node)`` pair (:attr:`SelfAttributes._attribute_stores`)
_FIRST = operator.itemgetter(0)


def _only_none(cls: ast.ClassDef, values: list) -> bool:
    """Whether every write of an attribute (``values``: :meth:`SelfAttributes._attribute_writes`)
    is ``None`` or a bare annotation, in a plain class (no base, decorator or keyword: no
    dataclass, ``NamedTuple``, attrs or pydantic model whose constructor fills a field, no base
    class that sets it): nothing ever makes it a config (fresh user 44, W1)."""
    if cls.bases or cls.keywords or cls.decorator_list:
        return False
    return all(v is None or (isinstance(v, ast.Constant) and v.value is None) for _, v, _ in values)
