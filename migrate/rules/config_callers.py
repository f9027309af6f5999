"""Values that flow into a parameter from the same file's calls: the calls of a function,
a method or a class, what each passes, whether the function escapes or is called by a
name spelled in a string, and the parameters recorded as origins for the cross-file
judgement (:class:`ppo_migrate.diagnostics.CallerOrigin`).
"""

from __future__ import annotations

import ast
import functools
import itertools
import re
from collections.abc import Iterable, Iterator

from ppo_migrate.rules.config_model import _FUNCTIONS
from ppo_migrate.rules.config_model import CANNOT_TELL
from ppo_migrate.rules.config_makers import yaml_text
from ppo_migrate.rules.config_syntax import (
    _ATTRIBUTE, _ESCAPES, _UNPACKED, _passed_value, _worst,
)
from ppo_migrate.rules.scopes import Scope, ScopeKind
from ppo_migrate.rules.scopes import frames as scope_frames
from ppo_migrate.rules.targets import dotted_parts
from ppo_migrate.diagnostics import CallerOrigin, qualname

#: a word between two double (single) quotes, the quotes not consumed: ``"a"b"`` holds two
#: a run of word characters between two ``"`` (two ``'``), group 1 the run: the opening
#: quote is matched, not looked behind for, so that ``re`` finds the quotes by their byte
#: (a look-behind is tried at every position of the text: ~13 times slower); the closing
#: quote is only looked ahead at, so it may open the next run (``"a"b"``: ``a``, ``b``)
#: as with the look-behind (:attr:`CallerValues._quoted_words`)
_DOUBLE_QUOTED = re.compile(r'"(\w+)(?=")')
_SINGLE_QUOTED = re.compile(r"'(\w+)(?=')")
#: how many names a module's text is searched for one by one before every quoted word of
#: it is found at once (:attr:`CallerValues._quoted_words`): each search reads the whole
#: text, the set is made by two scans of it
_DIRECT_ASKS = 8


class CallerValues:
    """What the same-file callers of a function pass for one of its parameters.

    A part of :class:`ppo_migrate.rules.configs.ConfigFinder` (mixed into it, which holds
    the state: ``module``, ``scopes``, ``finder``, ``names``, ``parents``, ``classes``,
    ``follow_values`` and the memo, evidence and origins of the judgement under way);
    it judges each value with
    :class:`ppo_migrate.rules.config_positive.PositiveConfig` and finds a class's
    constructions with :class:`ppo_migrate.rules.config_classes.ClassConstruction`.
    """

    def _callers_trust(self, arg: ast.arg, holder: Scope) -> str | None:
        """What the same-file calls of a function pass for its parameter ``arg``.

        ``"against"`` when any call passes a value that is evidence against a training
        config (:meth:`value_trust`: ``build(config.actor_rollout_ref)``,
        ``launch({"num_cpus": 4})``, ``run("ppo.yaml")``): passing the parameter on would
        hand that value to the runtime function on that call's path, and verl's own
        function raises on anything but an OmegaConf config (``OmegaConf.select`` of a
        dict: ``AttributeError``). ``"weak"`` when any passes a value not known to be a
        config (:meth:`_passed_trust`), unpacks ``*args``/``**kwargs`` there, or the
        function is handed on as a value; ``"strong"`` when every call passes a config;
        ``None`` when no call says anything (none found, or each passes ``None`` or nothing).

        The calls are those by the function's own plain name that resolve to its
        definition (:meth:`_call_values`; for ``__init__``: calls of its class, or of a
        same-file subclass that inherits it), and for a method ``<obj>.<name>(...)``
        (:meth:`_method_call_values`). Other calls (through a variable, another module)
        are not seen: a value they pass is not evidence either way.
        """
        func = holder.node
        parent = holder.parent
        if (
            isinstance(func, _FUNCTIONS) and parent is not None and parent.kind is not ScopeKind.CLASS
            and func.name not in self.module.facts.loads
        ):
            # a plain function whose name the module never reads: no call of it passes
            # anything here, and whether it may be called unseen reads no cycle guard and
            # notes nothing, so the memo has nothing to keep (benchmark item 10: nearly
            # every function of the chain)
            a = func.args
            if not any(p is arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)):
                return None  # ``*args`` / ``**kwargs`` (:meth:`caller_values`)
            return "weak" if self._called_unseen(func) else None  # :data:`_UNPACKED`'s trust
        # memoised (:meth:`_recall`) by the parameter, its scope and whether origins are recorded
        key = ("callers", id(arg), id(holder), self._origins is not None)
        known = self._recall(key)
        if known is not None:
            return known.result  # type: ignore[return-value]
        frame = self._begin()
        try:
            values = self.caller_values(arg, holder)
            trust = None if values is None else _worst(self._noted_passed_trust(v, arg) for v in values)
        finally:
            self._end(frame)
        self._keep(frame, key, (arg, holder), trust)
        return trust

    def caller_values(self, arg: ast.arg, holder: Scope) -> Iterable[ast.expr] | None:
        """What the same-file calls :meth:`_callers_trust` judges pass for ``arg`` (an
        :data:`_UNPACKED` marker for arguments this file does not show), or ``None``
        when ``arg`` is no parameter such calls fill (``*args``, ``self``, a nested def)."""
        func = holder.node
        parent = holder.parent
        if not isinstance(func, _FUNCTIONS) or parent is None:
            return None
        params = [*func.args.posonlyargs, *func.args.args]
        position = next((i for i, a in enumerate(params) if a is arg), None)
        if position is None and arg not in func.args.kwonlyargs:
            return None  # ``*args`` or ``**kwargs``
        values: Iterable[ast.expr]
        if parent.kind is ScopeKind.CLASS and func.name != "__init__":
            values = self._method_call_values(func, position, arg.arg)
        elif parent.kind is ScopeKind.CLASS:
            if position == 0 or not isinstance(parent.node, ast.ClassDef):
                return None
            if position is not None:
                position -= 1  # ``self`` is not passed
            values = self._init_values(parent, position, arg.arg)
        else:
            values = self._call_values([(func.name, parent)], position, arg.arg, False)
        if self._called_unseen(func):
            values = itertools.chain(values, (_UNPACKED,))
        return values

    def _noted_passed_trust(self, value: ast.expr, arg: ast.arg) -> str | None:
        """:meth:`_passed_trust`, noting a caller's value that is evidence against."""
        trust = self._passed_trust(value)
        if trust == "against" and hasattr(value, "lineno") and value is not _UNPACKED:
            text = f"a caller passes `{self._spelled(value)}` for `{arg.arg}` (line {value.lineno})"
            if yaml_text(self, value):  # trial 26g: YAML text, not read: "cannot tell", not "is not"
                text += f", whose YAML text {CANNOT_TELL}"
            self._note("against", text, value)
        return trust

    def _record_origin(self, arg: ast.arg, holder: Scope) -> None:
        """Note, while a candidate is judged, that its value rests on parameter ``arg`` of
        ``holder``: a module-level function (or one in a class body's class at module
        level), or the ``__init__`` of a class other files can import. Calls from other
        files pass it too (:class:`ppo_migrate.diagnostics.CallerOrigin`); methods reached
        through an instance, nested functions and lambdas cannot be called by name from
        another file."""
        if self._origins is None:
            return
        func = holder.node
        parent = holder.parent
        if not isinstance(func, _FUNCTIONS) or parent is None:
            return
        params = [*func.args.posonlyargs, *func.args.args]
        position = next((i for i, a in enumerate(params) if a is arg), None)
        if position is None and arg not in func.args.kwonlyargs:
            return  # ``*args``/``**kwargs``: judged as against where they are met
        kind = "call"
        if parent.kind is ScopeKind.CLASS:
            static = any(
                (dotted_parts(d) or [""])[-1] == "staticmethod" for d in func.decorator_list
            )
            if position == 0 and not static:
                return  # ``self`` / ``cls``
            if position is not None and not static:
                position -= 1  # ``self`` is not passed
            if func.name == "__init__":
                owner, kind = parent, "init"
            else:
                # ``<obj>.run(config)`` elsewhere (``Cls.run(config)`` for a static one)
                owner, kind = holder, "staticmethod" if static else "method"
        else:
            owner = holder
        frames = scope_frames(owner)
        outer = frames[:-2] if owner is holder and kind != "call" else frames[:-1]
        if any(k == "function" for k, _ in outer) or (
            owner is holder and kind == "call" and frames[-1][0] != "function"
        ):
            return  # inside a function: no other file can name it
        decorators: tuple[str, ...] = ()
        if kind == "call":
            decorators = tuple(sorted(
                q + ("()" if isinstance(d, ast.Call) else "")
                for d in func.decorator_list
                for q in self._qualified(d.func if isinstance(d, ast.Call) else d)
            ))
        self._origins.append(
            CallerOrigin(self.module.path, qualname(frames), position, arg.arg, kind, decorators)
        )

    def _record_global(self, name: str, holder: Scope) -> None:
        """Note that the candidate's value is the module global ``name``: another file
        may assign it (``pkg.mod.config = d``, ``setattr(mod, "config", d)``)."""
        if self._origins is not None and holder.kind is ScopeKind.MODULE:
            self._origins.append(CallerOrigin(self.module.path, name, None, name, "global"))

    def _record_fields(self, cls: ast.ClassDef, name: str, position: int | None) -> None:
        """Note that the candidate's value is dataclass ``cls``'s field ``name``: calls of
        the class in other files pass it (at ``position``, or by keyword)."""
        scope = self.scopes.scope_for_node(cls)
        if self._origins is None or scope is None:
            return
        frames = scope_frames(scope)
        if not any(k == "function" for k, _ in frames):
            self._origins.append(
                CallerOrigin(self.module.path, qualname(frames), position, name, "init")
            )

    def _called_unseen(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """Whether ``func`` may be called with arguments no call in the file shows: its
        name is spelled in a string (``globals()["launch"](d)``, ``getattr(mod,
        "launch")(d)``; ``__all__`` aside), or a decorator defined in this file does not
        simply pass its arguments through (``def with_cfg(f): return partial(f, d)``).
        Imported decorators (``@hydra.main``, ``@ray.remote``, verl's ``@deprecated``)
        are trusted to pass them through: their code is not here to read."""
        if self._spelled_in_string(func.name):
            return True
        return any(not self._passes_through(d) for d in func.decorator_list)

    def _spelled_in_string(self, name: str) -> bool:
        """Whether ``name`` is a string constant of the module (:attr:`_dynamic_names`);
        the source text is looked at first (``"name"`` or ``'name'`` in it), so most modules
        are never walked for it."""
        if name.isascii():  # every quoted word is found once (:attr:`_quoted_words`)
            if not _quoted(self, name):
                return False
        else:
            text = self.module.text
            if f'"{name}"' not in text and f"'{name}'" not in text:
                return False
        return name in self._dynamic_names

    @functools.cached_property
    def _quoted_words(self) -> frozenset[str]:
        """Every run of word characters the source text has between two ``"`` or two
        ``'`` (``"launch"``): an ASCII ``name`` is one exactly when ``"name"`` or
        ``'name'`` is in the text. Found once per module: searching the text once per
        function was quadratic (a 1 MB module of 5,519 functions: 8 s of its 10 s)."""
        text = self.module.text
        return frozenset(_DOUBLE_QUOTED.findall(text)) | frozenset(_SINGLE_QUOTED.findall(text))

    @functools.cached_property
    def _dynamic_names(self) -> frozenset[str]:
        """Identifiers spelled as string constants anywhere in the module (a call by
        name may use them), except in ``__all__`` (an export list names, it calls
        nothing) and in docstrings."""
        exported: set[int] = set()
        for node in self.module.tree.body:
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                    exported.update(id(n) for n in ast.walk(node))
        # one walk of the module for both the string constants and the data dicts' keys
        # (two walks were most of what ``_called_unseen`` cost); the keys are dropped
        # from the strings once the walk has seen every dict
        strings: list[ast.Constant] = []
        for node in ast.walk(self.module.tree):
            if isinstance(node, ast.Constant):
                if isinstance(node.value, str) and node.value.isidentifier():
                    strings.append(node)
            elif isinstance(node, ast.Dict) and not any(
                isinstance(v, (ast.Name, ast.Attribute, ast.Lambda)) for v in node.values
            ):
                # ``{"trainer": {...}}``: a key of data (a config's section); a table of
                # callables (``{"train": train}``) may be dispatched by name
                exported.update(id(k) for k in node.keys if k is not None)
        return frozenset(n.value for n in strings if id(n) not in exported)

    def _passes_through(self, decorator: ast.expr) -> bool:
        """Whether a decorator hands the decorated function's arguments on unchanged:
        one not defined in this module (its code cannot be read: trusted), or a
        ``def`` here whose parameter (the function) is only called with ``*args,
        **kwargs``, given to ``functools.wraps``, read for an attribute or returned.
        A decorator factory defined here (``@with_config(d)``) is not read: ``False``."""
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if not isinstance(target, ast.Name):
            return True
        holder = self.scopes.scope_of(target).lookup(target.id)
        if holder is None:
            return True
        defs = [b.node for b in self.finder.bindings_in(holder, target.id)]
        if not defs or not all(isinstance(d, _FUNCTIONS) for d in defs):
            return True  # an import, or something this module does not define as a function
        if isinstance(decorator, ast.Call):
            return False
        return all(self.def_passes_through(d) for d in defs)

    def def_passes_through(self, d: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """Whether decorator ``d`` (a ``def`` of this module) hands the decorated function's
        arguments on unchanged (see :meth:`_passes_through`); also asked of a decorator
        another file imports from this one (:mod:`ppo_migrate.rules.cross_file`)."""
        params = (*d.args.posonlyargs, *d.args.args)
        if not params:
            return False
        wrapped = params[0].arg
        for node in ast.walk(d):
            if not (isinstance(node, ast.Name) and node.id == wrapped and isinstance(node.ctx, ast.Load)):
                continue
            up = self.parents.get(id(node))
            if isinstance(up, ast.Call) and up.func is node:
                if all(isinstance(a, ast.Starred) for a in up.args) and all(
                    k.arg is None for k in up.keywords
                ):
                    continue  # ``f(*args, **kwargs)``
                return False
            if isinstance(up, ast.Call) and (dotted_parts(up.func) or [""])[-1] in (
                "wraps", "update_wrapper"
            ):
                continue
            if isinstance(up, ast.Attribute) and up.attr != "__call__" and isinstance(up.ctx, ast.Load):
                chain = self.module.ancestors(up)
                if not (chain and isinstance(chain[-1], ast.Assign) and chain[-1].value is up):
                    continue  # ``f.__name__`` (not ``orig = cls.__init__``: kept to be replaced)
                return False
            if isinstance(up, ast.Return):
                continue
            return False  # ``partial(f, d)``, ``f(d)``, stored, handed on
        return True

    def _call_values(
        self, callees: list[tuple[str, Scope]], position: int | None, keyword: str, is_class: bool
    ) -> Iterator[ast.expr]:
        """What each call of ``callees`` (``(name, scope binding it)``) passes for the
        parameter: :data:`_UNPACKED` when it cannot be told, or when the function is handed
        on as a value (``run = launch``, ``partial(launch, d)``, ``pool.submit(launch, d)``:
        called with arguments this file does not show; a class named as a base, in
        ``isinstance`` or an annotation is not)."""
        for name, bound_in in callees:
            for load in self.module.facts.loads.get(name, ()):
                if self.scopes.scope_of(load).lookup(name) is not bound_in:
                    continue  # another binding of the name
                call = self._call_through(load)
                if call is None:
                    continue  # ``f.__name__``: read, not called
                if call is _ATTRIBUTE:
                    if not is_class:  # a class's attribute (``T.make()``) is not the class
                        yield _UNPACKED  # ``launch.__wrapped__(d)``, ``launch.registry[...]``
                    continue
                if call is _ESCAPES:
                    if not is_class or not self._names_a_type(load):
                        yield _UNPACKED  # ``K = T; K(d)``, ``factory(T)``, ``ray.remote(T)``
                    continue
                value = _passed_value(call, position, keyword)
                if value is not None:  # None: nothing passed, the default applies
                    yield value

    def _names_a_type(self, load: ast.Name) -> bool:
        """Whether a class's name is read only as a type, not handed on to be built: a
        base in a ``class`` statement, an argument of ``isinstance``/``issubclass``/
        ``super``, an annotation, an ``except`` clause, a comparison (``type(x) is T``)."""
        node: ast.AST = load
        up = self.parents.get(id(load))
        while isinstance(up, (ast.Subscript, ast.Tuple)) or (
            isinstance(up, ast.BinOp) and isinstance(up.op, ast.BitOr)
        ):  # ``Optional[T]``, ``(A, T)``, ``T | None``
            chain = self.module.ancestors(up)
            node, up = up, (chain[-1] if chain else None)
        if isinstance(up, (ast.ClassDef, ast.Compare, ast.ExceptHandler, ast.arg)):
            return True
        if isinstance(up, (ast.AnnAssign, ast.FunctionDef, ast.AsyncFunctionDef)):
            return getattr(up, "annotation", None) is node or getattr(up, "returns", None) is node
        if isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func is not node:
            return up.func.id in ("isinstance", "issubclass", "super")
        return False

    def _method_call_values(
        self, func: ast.FunctionDef | ast.AsyncFunctionDef, position: int | None, keyword: str
    ) -> Iterator[ast.expr]:
        """:meth:`_call_values` for a method: every call ``<obj>.<name>(...)`` in the
        module whose object is not an import (``subprocess.run`` is not ``TaskRunner.run``)
        may be a call of it, ``self.run(d)`` and ``Launcher().run(d)`` alike;
        ``<obj>.<name>.remote(...)`` too (a Ray actor's method)."""
        static = any(
            (self._qualified(d) | self._builtin(d)) & {"staticmethod", "builtins.staticmethod"}
            for d in func.decorator_list
        )
        if position is not None and not static:
            if position == 0:
                return  # ``self`` / ``cls`` itself
            position -= 1
        calls, handed_on = self._method_uses.get(func.name, ((), ()))
        for call, callee in calls:
            if self._imported(callee.value):
                continue  # an imported module's or object's: ``subprocess.run(cmd)``
            value = _passed_value(call, position, keyword)
            if value is not None:
                yield value
        for attr in handed_on:
            if not self._imported(attr.value):
                yield _UNPACKED  # ``r = t.run; r(d)``: a bound method handed on

    @functools.cached_property
    def _method_uses(
        self,
    ) -> dict[str, tuple[list[tuple[ast.Call, ast.Attribute]], list[ast.Attribute]]]:
        """Method name -> (the calls ``<obj>.<name>(...)`` and ``<obj>.<name>.remote(...)``
        with their ``<obj>.<name>``, in source order; the reads ``<obj>.<name>`` that are
        not called). Indexed once per module for :meth:`_method_call_values`: scanning
        every call and attribute of the module once per method asked about was quadratic
        (``_pydecimal.py``: 58 s of its 59 s)."""
        uses: dict[str, tuple[list, list]] = {}
        called: set[int] = set()
        for call in self.module.facts.calls:
            callee = call.func
            called.add(id(callee))
            if isinstance(callee, ast.Attribute) and callee.attr == "remote":
                called.add(id(callee.value))
                callee = callee.value
            if isinstance(callee, ast.Attribute):
                uses.setdefault(callee.attr, ([], []))[0].append((call, callee))
        for attr in self.module.facts.attributes:
            if id(attr) not in called and isinstance(attr.ctx, ast.Load):
                uses.setdefault(attr.attr, ([], []))[1].append(attr)
        return uses

    def _call_through(self, load: ast.Name):
        """The call a use of a function's name makes: ``f(...)``, ``f.remote(...)`` and
        ``f.options(...).remote(...)`` (Ray: the same arguments); ``None`` for a read of
        an attribute (``f.__name__``); :data:`_ESCAPES` when the function itself is handed
        on (an alias, an argument, a decorator, a return value)."""
        parent = self.parents.get(id(load))
        if isinstance(parent, ast.Call) and parent.func is load:
            return parent
        if not (isinstance(parent, ast.Attribute) and parent.value is load):
            return _ESCAPES
        if parent.attr in ("__name__", "__qualname__", "__doc__", "__module__"):
            return None
        if parent.attr not in ("remote", "options", "__call__"):
            return _ATTRIBUTE  # ``f.__wrapped__(d)``, ``f.__defaults__ = (d,)``, ``T.make()``
        ups = self.__dict__.get("_callee_parents") or _callee_parents(self)
        node: ast.AST = parent
        while True:
            up = ups.get(id(node))  # the call whose callee, the attribute whose object, is ``node``
            if isinstance(up, ast.Call):
                if isinstance(node, ast.Attribute) and node.attr == "options":
                    node = up  # ``f.options(num_cpus=1)``: the call comes next
                    continue
                return up
            if not (isinstance(up, ast.Attribute) and up.attr == "remote"):
                return _ESCAPES
            node = up


def _callee_parents(finder: CallerValues) -> dict[int, ast.AST]:
    """``id(node) -> parent`` for the callee of each of the module's calls (the call) and
    the object of each attribute (the attribute): what :meth:`CallerValues._call_through`
    climbs through, built once per module and kept with the finder (``module.ancestors``
    descended from the module for each use of a name: ~26 us a class's construction in
    benchmark item 9). A node is one call's callee or one attribute's object, not both.

    Args:
        finder: the module's :class:`ppo_migrate.rules.configs.ConfigFinder`.
    """
    facts = finder.module.facts
    ups: dict[int, ast.AST] = {id(a.value): a for a in facts.attributes}
    ups.update((id(c.func), c) for c in facts.calls)
    finder.__dict__["_callee_parents"] = ups
    return ups


def _quoted(values: CallerValues, name: str) -> bool:
    """Whether the module's text holds ``"name"`` or ``'name'`` (``name``: ASCII word
    characters), as :attr:`CallerValues._quoted_words` answers: for the first
    :data:`_DIRECT_ASKS` names of a module by two searches of its text, then by that set,
    found once (benchmark item 9's modules ask once or twice: finding every quoted word
    of each was ~1% of its ``check``).

    Args:
        values: the module's finder (its ``__dict__`` keeps the count of names asked).
        name: the name looked for.
    """
    kept = values.__dict__
    if "_quoted_words" not in kept and kept.get("_quote_asks", 0) < _DIRECT_ASKS:
        kept["_quote_asks"] = kept.get("_quote_asks", 0) + 1
        text = values.module.text
        return f'"{name}"' in text or f"'{name}'" in text
    return name in values._quoted_words
