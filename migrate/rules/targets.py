"""Which calls are target calls: the callee's qualified name through every import form.

A call is a *target call* when the name its callee starts with resolves, by
Python's own lookup at that call (:meth:`ppo_migrate.rules.scopes.Scope.lookup`:
locals, closures skipping class bodies, ``global``/``nonlocal``, NFKC-normalised
names), to bindings that are all imports of a target (``from m import f``,
``from m import f as g``, ``import a.b.m as c; c.f()``, ``import a; a.b.m.f()``,
relative imports resolved against the file's package with
:func:`ppo_migrate.project.modules.resolve_relative`, ``from <target module> import *``).
The verdict is :meth:`ppo_migrate.rules.targets.TargetMatcher.classify`'s:

* every binding of the name in the scope it resolves to is a target → TARGET;
* some are and others are not (``try: from verl... import f`` / ``except ImportError:
  def f(): ...``) → AMBIGUOUS (PPO003, never rewritten);
* a relative import climbing past the top-level package → UNRESOLVABLE (PPO903);
* otherwise (a parameter, a local ``def``, another module, an unbound name) → OTHER.

All bindings of the name in that scope count, wherever they are in it (Python
may run any of them before the call): the conservative reading the earlier LibCST
pass had.
"""

from __future__ import annotations

import ast
import functools
import enum
import os
import re
import weakref
import sys as _sys
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import NamedTuple

from ppo_migrate.rules.module import ParsedModule
from ppo_migrate.rules.scopes import Scope, ScopeKind, ScopeTree
from ppo_migrate.constants import CONFIG_PARAMETER
from ppo_migrate.project.modules import resolve_relative
from ppo_migrate.project.snapshot import current
from ppo_migrate.rules.stars import BINDS, NOT_BOUND, UNKNOWN, star_binds


class Verdict(enum.Enum):
    """What a callee is, as far as static analysis can tell."""

    TARGET = "target"  #: every binding resolves to a target
    AMBIGUOUS = "ambiguous"  #: some bindings are a target, others are not (PPO003)
    UNRESOLVABLE = "unresolvable"  #: a relative import past the top package (PPO903)
    OTHER = "other"  #: not the runtime function


@functools.lru_cache(maxsize=32)
def _last_names(targets: frozenset[str]) -> frozenset[str]:
    """:attr:`TargetMatcher.names` of ``targets``, made once (asked twice a file, of targets
    that grow with the project's re-exports)."""
    return frozenset(t.rsplit(".", 1)[-1] for t in targets)


@functools.lru_cache(maxsize=32)
def _dotted_by_last(targets: frozenset[str]) -> tuple[tuple[str, frozenset[str], re.Pattern[str], dict], ...]:
    """The dotted targets grouped by their last name, made once per set of targets (for
    :func:`spelled_targets`): ``(last name, the targets ending with it, a pattern matching
    a run of their characters, the targets each such run seen ends with)``."""
    groups: dict[str, set[str]] = {}
    for t in targets:
        if "." in t:
            groups.setdefault(t.rsplit(".", 1)[-1], set()).add(t)
    out = []
    for last, group in sorted(groups.items()):
        characters = "".join(sorted(set("".join(group))))
        out.append((last, frozenset(group), re.compile(f"[{re.escape(characters)}]*"), {}))
    return tuple(out)


def spelled_targets(targets: frozenset[str], text: str) -> frozenset[str]:
    """The dotted targets (``a.b.f``) that occur in ``text`` as substrings: exactly
    ``{t for t in targets if "." in t and t in text}``.

    Found from the places the targets' last names occur (a few a file) instead of a
    search of the whole text for each target (76 on benchmark item 9's tree: ~0.14 ms a
    file). A target occurs iff it ends where an occurrence of its last name ends, and
    then it lies in the run of its own characters that ends there (the longest run of
    characters of the targets of that last name): it occurs iff one such run ends with
    it. The runs are matched backwards on the reversed text, and the targets a run ends
    with are kept per run (the same few runs recur from file to file).

    Args:
        targets: the run's targets (:attr:`TargetMatcher.targets`).
        text: a module's source.
    """
    found: set[str] = set()
    reversed_text: str | None = None
    length = len(text)
    for last, group, characters, known in _dotted_by_last(targets):
        start = text.find(last) if last else -1
        if not last:  # ``a.``: no last name to look for
            found.update(t for t in group if t in text)
            continue
        size = len(last)
        while start >= 0:
            if reversed_text is None:
                reversed_text = text[::-1]
            run = characters.match(reversed_text, length - start - size).group()
            ends = known.get(run)
            if ends is None:
                forward = run[::-1]
                if len(known) > 4096:
                    known.clear()
                ends = known[run] = frozenset(t for t in group if forward.endswith(t))
            found.update(ends)
            start = text.find(last, start + 1)
    return frozenset(found)


#: ``[targets, matcher]``: the tuple :meth:`TargetMatcher.of` last built a matcher of, and it
_last_matcher: list = []


class TargetMatcher(NamedTuple):
    """Classifies callees by their qualified names.

    Attributes:
        targets: fully qualified names of the runtime function (``a.b.f``).
    """

    targets: frozenset[str]

    @classmethod
    def of(cls, targets: Iterable[str]) -> TargetMatcher:
        """Build a matcher from dotted target names; the last one built is given again for
        the same tuple of names (the settings' targets, asked once a file: hundreds of
        names once the project's re-exports join them)."""
        last = _last_matcher
        if last and last[0] is targets:
            return last[1]
        matcher = cls(frozenset(targets))
        if isinstance(targets, tuple):  # immutable: the same object is the same names
            _last_matcher[:] = [targets, matcher]
        return matcher

    @property
    def names(self) -> frozenset[str]:
        """The targets' last components: the words the byte prefilter looks for."""
        return _last_names(self.targets)

    @property
    def modules(self) -> frozenset[str]:
        """The modules that define or re-export a target."""
        return frozenset(t.rsplit(".", 1)[0] for t in self.targets if "." in t)

    def classify(
        self, qualified_names: Iterable[str], package: tuple[str, ...]
    ) -> tuple[Verdict, tuple[str, ...]]:
        """Classify a callee from its possible qualified names.

        Args:
            qualified_names: the callee's possible qualified names (one per
                reachable binding; relative names start with dots).
            package: the file's package, for relative names.

        Returns:
            ``(verdict, names)`` where ``names`` are the absolute names (sorted),
            or the unresolvable relative ones for :attr:`Verdict.UNRESOLVABLE`.

        The answer is a function of the targets, the names and the package: kept for the
        same three (:data:`_CLASSIFIED`; every trainer module of a project imports the
        function the same way, so its calls ask the same names).
        """
        names = tuple(qualified_names)
        key = (self.targets, names, tuple(package))
        found = _CLASSIFIED.get(key)
        if found is None:
            if len(_CLASSIFIED) > 4096:
                _CLASSIFIED.clear()
            found = _CLASSIFIED[key] = self._classify(names, package)
        return found

    def _classify(self, qualified_names: tuple[str, ...], package: tuple[str, ...]) -> tuple[Verdict, tuple[str, ...]]:
        """:meth:`classify`, worked out."""
        resolved: list[str] = []
        unresolvable: list[str] = []
        for q in qualified_names:
            r = resolve_relative(q, package)
            if r is None:
                unresolvable.append(q)
            else:
                resolved.append(r)
        hits = [r for r in resolved if r in self.targets]
        if unresolvable and any(q.rsplit(".", 1)[-1] in self.names for q in unresolvable):
            return Verdict.UNRESOLVABLE, tuple(sorted(unresolvable))
        if not hits:
            return Verdict.OTHER, tuple(sorted(resolved))
        if len(hits) == len(resolved) and not unresolvable:
            return Verdict.TARGET, tuple(sorted(set(resolved)))
        return Verdict.AMBIGUOUS, tuple(sorted(set(resolved) | set(unresolvable)))


#: :meth:`TargetMatcher.classify`'s answers by ``(targets, names, package)`` (emptied past
#: 4,096 keys: a run asks a few distinct ones per project)
_CLASSIFIED: dict[tuple[frozenset[str], tuple[str, ...], tuple[str, ...]], tuple[Verdict, tuple[str, ...]]] = {}

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


class Held(NamedTuple):
    """A callee read through an attribute a class body binds (issue 26, family 6):
    ``Env.cp.get_ppo_ray_runtime_env()`` or ``self.cp.get_...()`` with ``cp =
    constants_ppo`` in ``class Env``; ``Env.make()`` with ``make = get_...`` or
    ``make = staticmethod(get_...)`` there (``self.make()`` too for the latter).

    Attributes:
        owner: the ``class`` statement whose body binds the attribute.
        attribute: the attribute read (``"cp"``).
        bindings: the class body's bindings of it (one, but for ``if ...: cp = other``).
        values: for each binding, the expression it binds that the call reaches (for
            ``staticmethod(f)``: ``f``), the qualified name an import in the class body
            binds (``"verl.trainer.constants_ppo"`` of ``from verl.trainer import
            constants_ppo as cp``; relative ones keep their dots), or ``None`` for another
            binding (a ``def``, a value that is no dotted name, a function that is a bound
            method here): two bindings one of which is ``None`` make the call ambiguous
            (PPO003).
        receiver: what the attribute is read on: ``"class"`` (the class itself, by its
            name), ``"cls"`` (a ``classmethod``'s first parameter: the class or a
            subclass) or ``"self"`` (an instance method's first parameter: an instance
            of the class or of a subclass).
        rest: the attributes read after it (``("get_ppo_ray_runtime_env",)``; ``()`` when
            the attribute itself is called).
    """

    owner: ast.ClassDef
    attribute: str
    bindings: tuple[ast.AST, ...]
    values: tuple[ast.expr | str | None, ...]
    receiver: str
    rest: tuple[str, ...]


class TargetCall(NamedTuple):
    """A call whose callee may be the runtime function.

    Attributes:
        call: the ``ast.Call`` node.
        verdict: :class:`ppo_migrate.rules.targets.Verdict` (never ``OTHER``).
        names: the callee's absolute qualified names, sorted (for UNRESOLVABLE:
            the relative names that climb too far, e.g. ``"...constants_ppo.f"``).
        callee: the callee as written, e.g. ``"c.get_ppo_ray_runtime_env"`` or ``"(f)"``
            (for ``methodcaller("f")(x)``, the method it calls: ``"x.f"``).
        kind: how the call omits its config (:func:`configless_kind` of
            :func:`passed_arguments`: for ``methodcaller("f")(x)``, of the arguments
            inside ``methodcaller(...)``), ``None`` when it passes one.
        held: the class attribute the callee is read through (``Env.cp.f()``,
            ``self.make()``: :meth:`TargetFinder.held_by_class`), ``None`` for any other
            callee.
        uncertain: see below.
    """

    call: ast.Call
    verdict: Verdict
    names: tuple[str, ...]
    callee: str
    kind: str | None
    held: Held | None = None
    #: for a callee the tool reads but cannot follow with certainty (:meth:`TargetFinder.uncertain`:
    #: ``functools.reduce(getattr, [...], verl)``, ``inspect.getattr_static``, a module made by
    #: a loader function), why, as PPO003 says it; the verdict is then AMBIGUOUS (never a fix)
    uncertain: str | None = None


def configless_kind(call: ast.Call) -> str | None:
    """How a call omits its config (verl PR #6976 added ``config=None`` as first parameter).

    Args:
        call: a target call.

    Returns:
        ``"empty"`` for ``f()``, ``"unpacked"`` for a call whose every argument is an
        empty literal unpacking (``f(*())``, ``f(*[], **{})``: the same call as ``f()``),
        ``"keywords"`` for ``f(other=...)`` without a config, ``"none"`` for ``f(None)``,
        ``"config=None"`` for ``f(config=None)``; ``None`` when a config (or
        ``*args``/``**kwargs``, which may hold one) is passed.
    """
    if not call.args and not call.keywords:
        return "empty"
    if all(_empty_unpacking(a) for a in call.args) and all(
        k.arg is None and isinstance(k.value, ast.Dict) and not k.value.keys for k in call.keywords
    ):
        return "unpacked"
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    if call.args:  # positional arguments come first when nothing is unpacked
        return "none" if _is_none(call.args[0]) else None
    for k in call.keywords:
        if k.arg == CONFIG_PARAMETER:
            return "config=None" if _is_none(k.value) else None
    return "keywords"


def _empty_unpacking(node: ast.expr) -> bool:
    """``*()`` or ``*[]``: an unpacking that passes nothing."""
    return isinstance(node, ast.Starred) and isinstance(node.value, (ast.Tuple, ast.List)) \
        and not node.value.elts


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def dotted_parts(func: ast.expr) -> list[str] | None:
    """``["c", "get_env"]`` for ``c.get_env``; ``None`` unless a plain dotted name."""
    parts: list[str] = []
    node = func
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    parts.reverse()
    return parts


#: the head :func:`callee_parts` gives a module loaded by name (``importlib.import_module``)
LOADED = "\0"


def forwarded_callee(node: ast.AST, decorated: bool = False) -> ast.expr | None:
    """The callee a *forwarding function* passes every argument on to, else ``None``.

    A forwarding function (trial 26d, family 6: ``def ray_env(*args, **kwargs): return
    get_ppo_ray_runtime_env(*args, **kwargs)``) is a plain, undecorated ``def`` whose only
    parameters are ``*args`` (required: a positional config must reach the callee) and
    optionally ``**kwargs``, and whose body (a docstring aside) is one ``return`` or
    expression statement calling a dotted name with exactly ``*args`` (and ``**kwargs``).
    Calling it is calling that callee with the same arguments, so it is followed as an
    alias of it (``make_env = get_ppo_ray_runtime_env``): a configless ``ray_env()`` is a
    configless call of the runtime function, fixed as ``ray_env(config)``.

    A lambda of the same shape (trial 26e, family 6: ``make_env = lambda *a, **k:
    get_ppo_ray_runtime_env(*a, **k)``) forwards the same way: its body is the call.

    Args:
        node: a binding node, or the value of an assignment (any node: only an
            ``ast.FunctionDef`` or an ``ast.Lambda`` can forward).
        decorated: read a decorated ``def`` too (its decorators are the caller's to judge:
            :meth:`TargetFinder._wrapped_forwarders`).
    """
    if isinstance(node, ast.Lambda):
        a = node.args
        call = node.body
    elif isinstance(node, ast.FunctionDef) and (decorated or not node.decorator_list):
        a = node.args
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        if len(body) != 1 or not isinstance(body[0], (ast.Return, ast.Expr)):
            return None
        call = body[0].value
    else:
        return None
    if a.posonlyargs or a.args or a.kwonlyargs or a.vararg is None:
        return None
    if not isinstance(call, ast.Call) or len(call.args) != 1:
        return None
    star = call.args[0]
    if not (isinstance(star, ast.Starred) and isinstance(star.value, ast.Name) and star.value.id == a.vararg.arg):
        return None
    wanted_keywords = [a.kwarg.arg] if a.kwarg is not None else []
    if [k.value.id for k in call.keywords if k.arg is None and isinstance(k.value, ast.Name)] != wanted_keywords \
            or len(call.keywords) != len(wanted_keywords):
        return None
    return call.func if dotted_parts(call.func) else None


def callee_parts(func: ast.expr, constant: Callable[[ast.expr], str | None] | None = None) -> list[str] | None:
    """:func:`dotted_parts`, also through the spellings that read an attribute by a literal
    name: ``getattr(cp, "get_...")``, ``vars(cp)["get_..."]``, ``cp.__dict__["get_..."]``
    (``["cp", "get_..."]``), and a module loaded by a literal name:
    ``importlib.import_module("a.b").f`` and ``__import__("a.b", fromlist=[...]).f``
    (``[LOADED + "a.b", "f"]``; ``__import__`` without a ``fromlist`` gives the top
    package), and a module looked up in ``sys.modules["a.b"]`` (the same), and an attribute
    path read by ``operator.attrgetter("a.b")(x)`` (``[..x, "a", "b"]``), and a module's
    own name read by ``globals()["f"]`` (``["f"]``). A trailing ``.__call__`` is the function itself (``f.__call__()`` calls
    ``f``). ``None`` for anything else.

    ``constant``, when given, reads the name given to ``getattr`` (trial 26e, M3:
    ``getattr(cp, RAY_ENV_FN)`` with ``RAY_ENV_FN = "get_..."``; fresh user 41, W6: a
    module's attribute, ``getattr(cp, names.FACTORY)``): the string a name at that place
    always holds, else ``None`` (:meth:`TargetFinder.constant_of`)."""
    parts: list[str] = []
    node = func
    while type(node) is _ATTRIBUTE and node.attr == "__call__":  # type: ignore[attr-defined]
        node = node.value  # type: ignore[attr-defined]  # ``f.__call__()`` calls ``f``
    while True:
        # by the node's exact type (``ast.parse`` makes no subclass of these): asked of
        # every call of a module, mostly a name or a dotted name
        t = type(node)
        if t is _ATTRIBUTE:
            parts.append(node.attr)  # type: ignore[attr-defined]
            node = node.value  # type: ignore[attr-defined]
            continue
        if t is _NAME:
            parts.append(node.id)  # type: ignore[attr-defined]
            break
        if t is _SUBSCRIPT:
            key = node.slice
            inner = node.value
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                # ``vars(cp)[names.X]`` (fixmiss): the name a constant always holds, read as
                # ``getattr(cp, names.X)``'s is; any other key is not followed here
                text = constant(key) if constant is not None and isinstance(key, (ast.Name, ast.Attribute)) \
                    and (isinstance(inner, ast.Attribute) and inner.attr == "__dict__" or (
                        isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)
                        and inner.func.id == "vars")) else None
                if not (isinstance(text, str) and text.isidentifier()):
                    return None
                key = ast.Constant(text)
            if isinstance(inner, ast.Attribute) and inner.attr == "modules" \
                    and isinstance(inner.value, ast.Name) and inner.value.id == "sys" \
                    and key.value and all(p.isidentifier() for p in key.value.split(".")):
                parts.append(LOADED + key.value)  # ``sys.modules["a.b"].f``: the loaded module
                break
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "vars" \
                    and len(inner.args) == 1 and not inner.keywords:
                parts.append(key.value)
                node = inner.args[0]
                continue
            if isinstance(inner, ast.Attribute) and inner.attr == "__dict__":
                parts.append(key.value)
                node = inner.value
                continue
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) \
                    and inner.func.id == "globals" and not inner.args and not inner.keywords \
                    and key.value.isidentifier():
                # ``globals()["get_..."]()`` (trial 26f, MISSED): the module's own name; a
                # local of the same name in the calling function would be taken instead
                parts.append(key.value)
                break
            return None
        if t is _CALL:
            path = _attrgetter_path(node)
            if path is not None:  # ``attrgetter("a.b")(x)`` reads ``x.a.b`` (trial 26e, M5)
                parts.extend(reversed(path))
                node = node.args[0]
                continue
            last = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            args = node.args
            if last == "getattr" and isinstance(node.func, ast.Name) and len(args) in (2, 3) \
                    and not node.keywords and not any(isinstance(a, ast.Starred) for a in args):
                # ``getattr(cp, "get_...", default)`` (trial 26f): the attribute, which verl's
                # module has; its default is the check's (:func:`getattr_default`)
                key = args[1]  # a literal, a name or a module's attribute (``names.FACTORY``)
                text = key.value if isinstance(key, ast.Constant) else (
                    constant(key) if constant is not None and isinstance(key, (ast.Name, ast.Attribute)) else None)
                if not (isinstance(text, str) and text.isidentifier()):
                    return None
                parts.append(text)
                node = args[0]
                continue
            loaded = loaded_by_name(node)
            if loaded is not None:  # trial 26h: ``sys.modules.get``, ``resolve_name``, ``package=``
                parts.extend(reversed(loaded[1:]))
                parts.append(LOADED + loaded[0])
                break
            if last in ("import_module", "__import__") and args and isinstance(args[0], ast.Constant) \
                    and isinstance(args[0].value, str) and args[0].value \
                    and all(p.isidentifier() for p in args[0].value.split(".")):
                name = args[0].value
                if last == "import_module":
                    if len(args) > 1 or node.keywords:
                        return None  # a package for a relative name
                else:
                    fromlist = args[3] if len(args) > 3 else next(
                        (k.value for k in node.keywords if k.arg == "fromlist"), None)
                    if not (isinstance(fromlist, (ast.List, ast.Tuple)) and fromlist.elts):
                        name = name.split(".", 1)[0]
                parts.append(LOADED + name)
                break
            return None
        return None
    parts.reverse()
    return parts


_NAME, _ATTRIBUTE, _SUBSCRIPT, _CALL = ast.Name, ast.Attribute, ast.Subscript, ast.Call


#: the standard library's loaders by name, last name -> qualified name (fresh40, B7)
_STANDARD_LOADERS: dict[str, str] = {
    "resolve_name": "pkgutil.resolve_name", "import_module": "importlib.import_module", "get": "sys.modules.get",
}


def _module_name(text: object) -> bool:
    """Whether ``text`` is a string of identifiers joined by dots (an absolute module name)."""
    return isinstance(text, str) and bool(text) and all(p.isidentifier() for p in text.split("."))


def loaded_by_name(node: ast.Call) -> list[str] | None:
    """``[module, *attributes]`` for a call that gives a module, or an object of one, named
    by literal strings only (trial 26h, MISSED rows H-M4 to H-M6), else ``None``:

    - ``sys.modules.get("a.b")`` (``["a.b"]``): the loaded module, as ``sys.modules["a.b"]``
      (:func:`callee_parts`) is; a default given to ``get`` may be called instead when the
      module is not loaded, so only the one-argument form is read;
    - ``importlib.import_module(".b", package="a")`` (``["a.b"]``; also ``package`` given by
      position): the relative name resolved against a literal package, as
      :func:`importlib.import_module` does (``importlib.util.resolve_name``: each leading
      dot after the first climbs one package);
    - ``pkgutil.resolve_name("a.b:f")`` (``["a.b", "f"]``) and ``pkgutil.resolve_name("a.b.f")``
      (``["a.b", "f"]``: the object is the same whichever prefix is the module). Source: the
      :mod:`pkgutil` documentation, ``resolve_name(name)``: ``W(.W)*`` imports as much as it
      can then walks attributes, ``W(.W)*:(W(.W)*)?`` imports the part before the colon.

    The callee is read by its spelling (``sys.modules``, a name or attribute
    ``import_module``, ``resolve_name``), as :func:`callee_parts` reads ``import_module``;
    the names resolve through the run's targets (:meth:`TargetMatcher.classify`), so a
    function of the project's own spelled so names nothing of verl's.

    Args:
        node: a call.
    """
    func, args, keywords = node.func, node.args, node.keywords
    if any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in keywords):
        return None
    last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    first = args[0].value if args and isinstance(args[0], ast.Constant) else None
    if last == "get" and isinstance(func, ast.Attribute) and dotted_parts(func.value) == ["sys", "modules"]:
        return [first] if len(args) == 1 and not keywords and _module_name(first) else None  # type: ignore[list-item]
    if last == "import_module" and isinstance(first, str) and first.startswith("."):
        package = args[1] if len(args) == 2 and not keywords else (
            keywords[0].value if len(args) == 1 and len(keywords) == 1 and keywords[0].arg == "package" else None)
        if not (isinstance(package, ast.Constant) and _module_name(package.value)):
            return None
        level = len(first) - len(first.lstrip("."))
        base = package.value.split(".")  # type: ignore[union-attr]
        if level > len(base):
            return None  # "beyond top-level package": ImportError
        rest = first[level:]
        name = ".".join(base[: len(base) - level + 1] + ([rest] if rest else []))
        return [name] if _module_name(name) else None
    if last == "resolve_name" and isinstance(func, (ast.Attribute, ast.Name)) and len(args) == 1 and not keywords \
            and (not isinstance(func, ast.Attribute) or dotted_parts(func.value) == ["pkgutil"]):
        if not isinstance(first, str):
            return None
        module, colon, attributes = first.partition(":")
        if colon:
            if not _module_name(module) or (attributes and not _module_name(attributes)):
                return None
            return [module, *(attributes.split(".") if attributes else [])]
        if not _module_name(first) or "." not in first:
            return None
        module, _, attribute = first.rpartition(".")
        return [module, attribute]
    return None


def getattr_default(func: ast.expr) -> ast.expr | None:
    """The default of ``getattr(owner, "name", default)`` when ``func`` is such a call (the
    callee of ``getattr(cp, "get_...", default)()``): where the owner lacks the attribute,
    the default is called instead, with what the call passes; ``None`` for any other callee."""
    if (
        isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id == "getattr"
        and len(func.args) == 3 and not func.keywords
    ):
        return func.args[2]
    return None


def _attrgetter_path(node: ast.Call) -> list[str] | None:
    """The dotted attribute path ``operator.attrgetter("a.b")(x)`` reads of ``x``
    (``["a", "b"]``), for a call of ``attrgetter`` (``operator.attrgetter``, or the name
    ``attrgetter``) with one literal string of identifiers joined by dots, applied to one
    positional argument; ``None`` for anything else (several names give a tuple, a name
    not literal cannot be read).

    Source: the :mod:`operator` documentation, "``attrgetter('name.first')``: the call
    ``f(b)`` returns ``b.name.first``" (trial 26e, M5).

    Args:
        node: the outer call (``attrgetter(...)(x)``).
    """
    getter = node.func
    if not isinstance(getter, ast.Call) or len(node.args) != 1 or node.keywords \
            or isinstance(node.args[0], ast.Starred):
        return None
    func = getter.func
    named = (isinstance(func, ast.Name) and func.id == "attrgetter") or (
        isinstance(func, ast.Attribute) and func.attr == "attrgetter"
        and isinstance(func.value, ast.Name) and func.value.id == "operator"
    )
    if not named or len(getter.args) != 1 or getter.keywords:
        return None
    text = getter.args[0]
    if not (isinstance(text, ast.Constant) and isinstance(text.value, str)):
        return None
    path = text.value.split(".")
    return path if all(p.isidentifier() for p in path) else None


def methodcaller_call(
    call: ast.Call, constant: Callable[[ast.expr], str | None] | None = None
) -> tuple[ast.Call, ast.expr, str] | None:
    """``(getter, receiver, name)`` for a call ``operator.methodcaller("name", *a, **k)(x)``
    (the getter spelled by any name or ``<name>.methodcaller``: ``mc`` after ``from
    operator import methodcaller as mc``, ``op.methodcaller`` after ``import operator as
    op``; whether it is :mod:`operator`'s is decided by its qualified name, by
    :meth:`TargetFinder.classify`, not by its spelling; trial 26h), which calls ``x.name(*a,
    **k)``: the ``methodcaller(...)`` call (whose arguments after the name are the ones
    the method gets), ``x`` and the literal method name; ``None`` for anything else (a
    name not literal cannot be read; ``x`` unpacked or given by keyword is not one
    receiver).

    Source: the :mod:`operator` documentation, "``methodcaller(name, /, *args,
    **kwargs)``: after ``f = methodcaller('name', 'foo', bar=1)``, the call ``f(b)``
    returns ``b.name('foo', bar=1)``" (trial 26f, MISSED).

    Args:
        call: the outer call (``methodcaller(...)(x)``).
        constant: reads a name given for the method's (:func:`methodcaller_name`).
    """
    getter = call.func
    if not isinstance(getter, ast.Call) or len(call.args) != 1 or call.keywords \
            or isinstance(call.args[0], ast.Starred):
        return None
    name = methodcaller_name(getter, constant)
    return (getter, call.args[0], name) if name is not None else None


def methodcaller_name(getter: ast.expr, constant: Callable[[ast.expr], str | None] | None = None) -> str | None:
    """The literal method name of a call that may be ``operator.methodcaller("name", ...)``
    (its callee a name, or ``<name>.methodcaller``: :func:`methodcaller_call`), ``None``
    for any other expression. The callee's qualified name is not checked here.

    ``constant``, when given, reads a name given for the method's (trial 26h, H-M2:
    ``methodcaller(FACTORY)`` with ``FACTORY = "get_..."`` bound once at module level), or
    a module's attribute (``methodcaller(names.FACTORY)``, fresh user 41, W6): the string
    it always holds (:meth:`TargetFinder.constant_of`), as ``getattr(cp, NAME)`` is read
    (:func:`callee_parts`).

    Args:
        getter: the expression (``methodcaller("get_ppo_ray_runtime_env")``).
        constant: see above; ``None`` reads literal names only.
    """
    if not isinstance(getter, ast.Call) or not getter.args:
        return None
    func = getter.func
    named = isinstance(func, ast.Name) or (
        isinstance(func, ast.Attribute) and func.attr == "methodcaller" and isinstance(func.value, ast.Name)
    )
    if not named:
        return None
    text = getter.args[0]
    if isinstance(text, (ast.Name, ast.Attribute)) and constant is not None:
        value = constant(text)  # ``FACTORY``, or ``names.FACTORY`` of a module (fresh user 41, W6)
        return value if isinstance(value, str) and value.isidentifier() else None
    if not (isinstance(text, ast.Constant) and isinstance(text.value, str) and text.value.isidentifier()):
        return None
    return text.value


def passed_arguments(call: ast.Call, constant: Callable[[ast.expr], str | None] | None = None) -> ast.Call:
    """The call whose ``args`` and ``keywords`` are what the runtime function gets at the
    target call ``call``: ``call`` itself, or for ``methodcaller("f", *a, **k)(x)``
    (:func:`methodcaller_call`) a ``Call`` made here holding the ``methodcaller(...)``
    call's own argument nodes after the name (their positions are the source's; the
    made node is no node of the tree); ``constant`` as :func:`methodcaller_name` takes it."""
    found = methodcaller_call(call, constant)
    if found is None:
        return call
    getter = found[0]
    return ast.Call(func=getter.func, args=getter.args[1:], keywords=getter.keywords)


class _Binding(NamedTuple):
    node: ast.AST  # the node that binds (a Name, an alias's statement, a def, a parameter)
    qualified: str | None  # for an import: the qualified name it binds (relative: leading dots)


class TargetFinder:
    """Finds the target calls of one module.

    Args:
        module: the parsed module.
        scopes: its :class:`ppo_migrate.rules.scopes.ScopeTree`.
        matcher: the run's targets.
        package: the file's package parts (:func:`ppo_migrate.project.modules.module_package`).
    """

    def __init__(
        self,
        module: ParsedModule,
        scopes: ScopeTree,
        matcher: TargetMatcher,
        package: tuple[str, ...],
    ) -> None:
        self.module = module
        self.scopes = scopes
        self.matcher = matcher
        self.package = package
        self._bindings: dict[str, list[_Binding]] | None = None
        self._by_holder: dict[str, dict[int, list[_Binding]]] = {}
        self._star_modules: list[str] | None = None
        self._function_scopes: dict[int, Scope] | None = None
        self._wanted: set[str] | None = None
        self._following: set[int] = set()  # aliases being followed (a cycle ends as local)
        # the module body's statements (ids) and the lines of its star imports, for
        # :meth:`_last_top_level_import` (computed once, not per call)
        self._top: tuple[set[int], list[tuple[int, str | None]]] | None = None
        self._star_answers: dict[tuple[str, str], str] = {}
        self._constants: dict[tuple[str, str], str | None] = {}
        self._memos: dict[str, dict] = {}  # :meth:`memo`
        self._constant_names: dict[str, object] = {}  # :meth:`constant_of`, per module-level name
        self._possible: dict[str, object] = {}  # :meth:`possible_constant`, per module-level name
        #: :meth:`instance_method_of`'s answers, per ``(id(scope), name)`` of the read
        self._instance_methods: dict[tuple[int, str], Scope | None] = {}
        #: :meth:`_alias_of`'s answers, per ``id`` of a binding node of the tree
        self._aliases: dict[int, tuple[ast.Name | ast.FunctionDef | None, list[str]]] = {}
        #: :func:`callee_parts` of each call's callee (``id`` of a ``func`` of the tree),
        #: found by :meth:`calls` and read again by :meth:`qualified_names`
        self._parts: dict[int, list[str] | None] = {}
        #: :meth:`_wrapped_forwarders`' answer, found once
        self._wrappers: dict[str, ast.FunctionDef] | None = None

    def memo(self, name: str) -> dict:
        """A dict that lives as long as this finder (the module's analysis), for look-ups
        other modules make of this module's names (``name``: theirs, one dict each), so
        that a file's readers share them and none outlives its tree."""
        found = self._memos.get(name)
        if found is None:
            found = self._memos[name] = {}
        return found

    # -- the calls ------------------------------------------------------------------
    def wanted(self) -> set[str]:
        """The names a target call's callee may be spelled with: the targets' last names,
        import aliases of them and plain value aliases (``make_env = get_ppo_ray_runtime_env``,
        followed through chains of such assignments)."""
        if self._wanted is None:
            wanted = set(self.matcher.names) | self._import_aliases()
            aliases = [
                (target.id if isinstance(target, ast.Name) else target.name, parts)
                for target, parts in (self._alias_of(b) for b in self.module.facts.binders)
                if target is not None
            ]
            grew = True
            while grew:
                grew = False
                for name, parts in aliases:
                    if name not in wanted and (parts[-1] in wanted or parts[0] in wanted):
                        wanted.add(name)
                        grew = True
            self._wanted = wanted
        return self._wanted

    def _alias_of(self, node: ast.AST) -> tuple[ast.Name | ast.FunctionDef | None, list[str]]:
        """For a ``Name`` stored by ``name = a.b.c`` (or ``name: T = a.b.c``, or ``name =
        lambda *a, **k: a.b.c(*a, **k)``), the name and the dotted parts of its value (the
        lambda's callee); for a forwarding ``def`` (:func:`forwarded_callee`), the
        ``def`` and the parts of the callee it forwards to; ``(None, [])`` for any other
        binding."""
        known = self._aliases.get(id(node))  # asked of every binder (:meth:`wanted`), then again
        if known is None:  # of each callee's bindings (:meth:`alias_value`): once a node
            known = self._aliases[id(node)] = self._find_alias(node)
        return known

    def _find_alias(self, node: ast.AST) -> tuple[ast.Name | ast.FunctionDef | None, list[str]]:
        """:meth:`_alias_of`, found."""
        t = type(node)  # exact types, the binders' most frequent first: a name
        if t is _NAME:
            parent = self.module.facts.parents.get(id(node))
            pt = type(parent)
            if pt is ast.Assign and len(parent.targets) == 1 and parent.targets[0] is node:  # type: ignore[union-attr]
                value = parent.value  # type: ignore[union-attr]
            elif pt is ast.AnnAssign and parent.target is node and parent.value is not None:  # type: ignore[union-attr]
                value = parent.value  # type: ignore[union-attr]
            else:
                return None, []
            return self._alias_value_parts(node, value)
        if t is ast.FunctionDef:
            callee = forwarded_callee(node)
            if callee is None or self.scopes.scope_of(node).kind is ScopeKind.CLASS:
                return None, []  # a method's first argument is its instance
            parts = callee_parts(callee)
            return (node, parts) if parts else (None, [])
        if t is ast.MatchAs:
            captured = self._capture(node)  # type: ignore[arg-type]
            if captured is None:
                return None, []
            parts = callee_parts(captured[0], self.constant_of)
            return (node, [*parts, captured[1]]) if parts else (None, [])  # type: ignore[return-value]
        return None, []

    def _alias_value_parts(self, node: ast.Name, value: ast.expr) -> tuple[ast.Name | None, list[str]]:
        """:meth:`_alias_of` for a name ``node`` that an assignment of ``value`` binds."""
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
                and value.func.id == "staticmethod" and len(value.args) == 1 and not value.keywords:
            value = value.args[0]  # ``make = staticmethod(f)`` in a class body
        if isinstance(value, ast.Lambda):
            # ``make_env = lambda *a, **k: f(*a, **k)`` (trial 26e): an alias of ``f``, as the
            # forwarding ``def`` is; not in a class body, where an instance comes first
            value = forwarded_callee(value)
            if value is None or self.scopes.scope_of(node).kind is ScopeKind.CLASS:
                return None, []
        parts = callee_parts(value, self.constant_of)
        return (node, parts) if parts else (None, [])

    def alias_value(self, node: ast.AST) -> ast.expr | None:
        """The dotted value a plain alias binding assigns (see :meth:`wanted`), else ``None``."""
        target, _ = self._alias_of(node)
        if target is None or isinstance(target, ast.MatchAs):  # a capture: :meth:`_capture`
            return None
        if isinstance(target, ast.FunctionDef):
            return forwarded_callee(target)
        parent = self.module.facts.parents[id(node)]
        value = parent.value  # type: ignore[attr-defined]
        if isinstance(value, ast.Lambda):  # a forwarding lambda: the callee it forwards to
            return forwarded_callee(value)
        return value  # type: ignore[no-any-return]

    def _capture(self, node: ast.MatchAs) -> tuple[ast.expr, str] | None:
        """``(subject, attribute)`` when ``node`` captures an attribute of the ``match``
        statement's subject through a class pattern's keyword: ``match constants_ppo: case
        object(get_ppo_ray_runtime_env=make_env):`` binds ``make_env`` as ``make_env =
        constants_ppo.get_ppo_ray_runtime_env`` would (Python's reference, "Class patterns":
        each keyword pattern is matched against ``getattr(subject, keyword)``; trial 26g, M1).
        Only a class pattern that is the case's pattern (or an alternative of it, or under its
        ``as``) is read; ``None`` otherwise, and in a class body (as for an alias lambda)."""
        if not node.name or self.scopes.scope_of(node).kind is ScopeKind.CLASS:
            return None
        chain = self.module.ancestors(node)
        if not chain or not isinstance(chain[-1], ast.MatchClass):
            return None
        pattern = chain[-1]
        attribute = next(
            (a for a, p in zip(pattern.kwd_attrs, pattern.kwd_patterns) if p is node), None
        )
        if attribute is None:
            return None
        for outer in reversed(chain[:-1]):
            if isinstance(outer, ast.match_case):
                break
            if not isinstance(outer, (ast.MatchOr, ast.MatchAs)):
                return None  # nested in another pattern: not the subject's attribute
        else:
            return None
        statement = chain[chain.index(outer) - 1] if chain.index(outer) > 0 else None
        if not isinstance(statement, ast.Match):
            return None
        return statement.subject, attribute

    def _wrapped_forwarders(self) -> dict[str, ast.FunctionDef]:
        """The module-level ``def``s, by name, that forward every argument to a callee
        (:func:`forwarded_callee`'s shape) under one decorator, ``functools.wraps(...)``
        (``@functools.wraps(get_ppo_ray_runtime_env)``: earlier trials' MISSED rows); the
        name bound once, by that ``def``. Found once a module: none in a module without a
        ``wraps``."""
        if self._wrappers is None:
            self._wrappers = {}
            if "wraps" in self.module.text:
                for node in self.module.tree.body:
                    if isinstance(node, ast.FunctionDef) and len(node.decorator_list) == 1 \
                            and isinstance(node.decorator_list[0], ast.Call) \
                            and forwarded_callee(node, decorated=True) is not None:
                        self._wrappers[node.name] = node
        return self._wrappers

    def _through_wrapper(self, call: ast.Call) -> TargetCall | None:
        """An AMBIGUOUS :class:`TargetCall` (PPO003, never a fix) for ``call``, a call of a
        ``functools.wraps`` forwarder of the module (:meth:`_wrapped_forwarders`) whose
        callee is a target: a ``*args`` forwarder passes on what its callers give, and
        the tool leaves each caller to its author; ``None`` for any other call."""
        func = call.func
        node = self._wrapped_forwarders().get(func.id) if isinstance(func, ast.Name) else None
        if node is None or self.scopes.scope_of(func).lookup(func.id) is not self.scopes.module \
                or len(self.bindings_in(self.scopes.module, func.id)) != 1:
            return None
        decorator = node.decorator_list[0]
        wraps = self.qualified_names(decorator.func)  # type: ignore[attr-defined]
        if wraps is None or wraps[1] or wraps[0] != ["functools.wraps"]:
            return None
        callee = forwarded_callee(node, decorated=True)
        found = self.qualified_names(callee) if callee is not None else None
        if found is None or found[1] or not found[0]:
            return None
        verdict, resolved = self.matcher.classify(found[0], self.package)
        if verdict not in (Verdict.TARGET, Verdict.AMBIGUOUS):
            return None
        why = (f"`{func.id}`, a `functools.wraps` forwarder of it (line {node.lineno}) whose `*args` "
               "the tool does not follow to each caller")
        return TargetCall(call, Verdict.AMBIGUOUS, resolved, self.callee_text(call), configless_kind(call), None, why)

    def calls(self) -> list[TargetCall]:
        """Every call that is (or may be) a target call, in source order."""
        wanted = self.wanted()
        out: list[TargetCall] = []
        known = self._parts
        wrapped = self._wrapped_forwarders()
        for node in self.module.facts.calls:
            func = node.func
            if type(func) is _NAME and func.id not in wanted:  # type: ignore[attr-defined]
                if wrapped and func.id in wrapped:  # type: ignore[attr-defined]
                    found = self._through_wrapper(node)
                    if found is not None:
                        out.append(found)
                continue  # ``f(...)`` of a name not wanted (most calls): its parts are ``[f]``
            parts = known[id(func)] = callee_parts(func, self.constant_of)
            if parts is None and isinstance(node.func, ast.Call):
                called = methodcaller_call(node, self.constant_of)  # ``methodcaller("f")(cp)``: ``cp.f()``
                receiver = callee_parts(called[1], self.constant_of) if called is not None else None
                parts = [*receiver, called[2]] if receiver is not None else None  # type: ignore[index]
            if parts is None or parts[-1] not in wanted and parts[0] not in wanted:
                if isinstance(func, ast.Call) or parts is None and (
                    type(func) is _SUBSCRIPT or type(func) is _ATTRIBUTE and func.attr in wanted  # type: ignore[attr-defined]
                ):  # ``reduce(getattr, ...)()``, ``vars(cp)[<built>]()``: report, never fix
                    found = self.uncertain(node, parts)
                    if found is not None:
                        out.append(found)
                continue
            found = self.classify(node)
            if found is None and parts[-1] in wanted:
                found = self.uncertain(node, parts)
            if found is not None:
                out.append(found)
        out.sort(key=lambda t: (t.call.lineno, t.call.col_offset))
        return out

    def _import_aliases(self) -> set[str]:
        """Names bound by ``import ... as x`` / ``from ... import y as x`` where the
        imported name or module mentions a target's last name."""
        names = self.matcher.names
        out: set[str] = set()
        for node in self.module.facts.imports:
            if isinstance(node, ast.ImportFrom):
                parts = set((node.module or "").split("."))
                for a in node.names:
                    if a.asname and (parts | {a.name}) & names:
                        out.add(a.asname)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname and set(a.name.split(".")) & names:
                        out.add(a.asname)
        return out

    def qualified_names(self, func: ast.expr) -> tuple[list[str], bool] | None:
        """The callee's possible qualified names, as written in the imports.

        Args:
            func: a call's ``func``.

        Returns:
            ``(names, local)``: one name per binding the callee's head resolves to
            (relative ones keep their leading dots; a binding that is no import is
            the bare head name), and whether any binding is not an import;
            ``None`` when ``func`` is not a plain dotted name.
        """
        parts = self._parts.get(id(func), _UNKNOWN)  # a call's callee: read once by :meth:`calls`
        if parts is _UNKNOWN:
            parts = callee_parts(func, self.constant_of)
        if parts is None:
            return None
        head, rest = parts[0], parts[1:]  # type: ignore[index]
        if head.startswith(LOADED):  # ``importlib.import_module("a.b").f``
            return [".".join((head[len(LOADED):], *rest))], False
        holder = self.scopes.scope_of(func).lookup(head)
        names: list[str] = []
        local = False
        bindings = self.bindings_in(holder, head) if holder is not None else []
        stars = holder is None or holder is self.scopes.module
        star_list: list[str] | None = None  # the star imports that may bind ``head``
        if holder is self.scopes.module:
            last = self._last_top_level_import(func, bindings)
            if last == "*":  # a star import last: does it bind the name? (trial 26e, M1)
                bindings, stars, star_list = self._past_stars(func, bindings, head)
            elif last is not None:  # sequential top-level imports: the last one wins
                bindings, stars = [last], False
        if stars:
            if star_list is None:  # each star import but those that surely do not bind it
                star_list = [m for m in self.star_modules() if self.star_binds(m, head) != NOT_BOUND]
            for module in star_list:
                names.append(".".join((module, *parts)))
        if holder is not None:
            for b in bindings:
                value = self.alias_value(b.node) if b.qualified is None else None
                tail = rest
                if value is None and isinstance(b.node, ast.MatchAs):
                    captured = self._capture(b.node)  # ``case object(f=make_env)`` (trial 26g)
                    if captured is not None:
                        value, tail = captured[0], [captured[1], *rest]
                if value is not None and id(b.node) not in self._following:
                    # ``make_env = get_ppo_ray_runtime_env``: the names its value resolves to
                    self._following.add(id(b.node))
                    try:
                        inner = self.qualified_names(value)
                    finally:
                        self._following.discard(id(b.node))
                    if inner is not None and inner[0]:
                        names.extend(".".join((n, *tail)) for n in inner[0])
                        local = local or inner[1]
                        continue
                if b.qualified is None:
                    local = True
                    names.append(head)
                    default = _default_of(holder.node, b.node) if isinstance(b.node, ast.arg) else None
                    if default is not None and id(b.node) not in self._following:
                        # ``def launch(config, cp=constants_ppo): cp.get_...()`` (trial 26d):
                        # the default when no argument is given, the head's own name (what
                        # a caller passes: a test's double) besides it: ambiguous at best
                        self._following.add(id(b.node))
                        try:
                            inner = self.qualified_names(default)
                        finally:
                            self._following.discard(id(b.node))
                        if inner is not None:
                            names.extend(".".join((n, *rest)) for n in inner[0])
                else:
                    names.append(".".join((b.qualified, *rest)))
        return names, local

    def star_binds(self, module: str, name: str) -> str:
        """:func:`ppo_migrate.rules.stars.star_binds` for this file, once per question; a
        module of a target's own package (``from verl.trainer.constants_ppo import *``)
        binds it, as read before (which copy of verl runs is the callee in effect's
        question: :mod:`ppo_migrate.rules.signatures`)."""
        key = (module, name)
        found = self._star_answers.get(key)
        if found is None:
            if module.split(".", 1)[0] in {t.split(".", 1)[0] for t in self.matcher.targets}:
                found = BINDS
            else:
                found = star_binds(self.module.path, self.package, module, name)
            self._star_answers[key] = found
        return found

    def _past_stars(
        self, func: ast.expr, bindings: list[_Binding], head: str
    ) -> tuple[list[_Binding], bool, list[str] | None]:
        """``(bindings, stars, star modules)`` for :meth:`qualified_names` when a star import
        is the last top-level import of ``head`` before the call (trial 26e, M1: ``from
        helpers import *`` after verl's import silenced the call). From the last one back: a
        star import whose module surely does not bind ``head`` (:meth:`star_binds`) is
        passed over; one that binds it keeps the reading before (every star module, no
        binding); one whose module cannot be read counts besides the import found before
        it (the call is then ambiguous: PPO003 names the module, never silence)."""
        unknown: list[str] = []
        for item in reversed(self._timeline(func, bindings) or []):
            if isinstance(item, _Binding):  # an import binding the name: in effect
                return [item], bool(unknown), unknown
            module = item[1]
            answer = self.star_binds(module, head) if module else BINDS
            if answer == BINDS:
                return [], True, None
            if answer == UNKNOWN:
                unknown.append(module)
        return [], True, unknown

    def _last_top_level_import(self, func: ast.expr, bindings: list[_Binding]):
        """When every module-level binding of the callee's name is an unconditional
        top-level import (a star import included), the one in effect at the call: for a
        call inside a function (it runs after the module body) the last of them; for a
        call at module level the last one above it. ``"*"`` when that is a star import;
        ``None`` when anything else binds the name (then every binding counts)."""
        timeline = self._timeline(func, bindings)
        if not timeline:
            return None
        return timeline[-1] if isinstance(timeline[-1], _Binding) else "*"

    def _timeline(self, func: ast.expr, bindings: list[_Binding]) -> list | None:
        """The top-level imports :meth:`_last_top_level_import` reads, in order, up to the
        call (a call in a function: all of them): the bindings, and ``("*", module)`` for
        each star import (``module`` ``None`` when its relative name climbs too far);
        ``None`` when anything else binds the name."""
        if not bindings:
            return None
        top, stars = self._top_statements()
        if any(b.qualified is None or id(b.node) not in top for b in bindings):
            return None
        line = func.lineno if self.scopes.scope_of(func) is self.scopes.module else None
        timeline = sorted(
            [(b.node.lineno, b) for b in bindings]  # type: ignore[attr-defined]
            + [(n, ("*", module)) for n, module in stars],
            key=lambda item: item[0],
        )
        if line is not None:
            timeline = [item for item in timeline if item[0] < line]
        return [item for _, item in timeline]

    def _top_statements(self) -> tuple[set[int], list[tuple[int, str | None]]]:
        """The ids of the module body's statements and ``(line, module)`` of each of its
        star imports, in order (``module`` ``None`` when its relative name climbs too
        far): made once a module, for :meth:`_timeline` and :meth:`_module_constant_of`."""
        if self._top is None:
            body = self.module.tree.body
            self._top = (
                {id(stmt) for stmt in body},
                [
                    (stmt.lineno, resolve_relative("." * (stmt.level or 0) + (stmt.module or ""), self.package))
                    for stmt in body
                    if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names)
                ],
            )
        return self._top

    def classify(self, call: ast.Call) -> TargetCall | None:
        """The :class:`TargetCall` for ``call``, or ``None`` when it is not one.

        A callee read through a class attribute (:meth:`held_by_class`) resolves to what
        the class body binds it to; only here (the import move of ``--use-ppo-runtime``
        and the other questions :meth:`qualified_names` answers do not follow it)."""
        if isinstance(call.func, ast.Name) and (
                self.constant_of(call.func) is not None or self.possible_constant(call.func) is not None):
            return None  # a string (a re-exported constant's name: :mod:`reexports`): no function
        if not self._standard_loader(call.func):
            return None  # a project's own ``resolve_name``/``import_module`` (trial 26h forms)
        called = methodcaller_call(call, self.constant_of) if isinstance(call.func, ast.Call) else None
        if called is not None:  # ``methodcaller("f")(x)``: ``x.f``'s names (trial 26f)
            getter = self.qualified_names(called[0].func)
            if getter is None or getter[1] or not getter[0] or any(n != "operator.methodcaller" for n in getter[0]):
                return None  # a ``methodcaller`` of the project's own, a parameter, a local
            held = None
            found = self.qualified_names(called[1])
            if found is not None:
                found = [f"{n}.{called[2]}" for n in found[0]], found[1]
        else:
            held = self.held_by_class(call.func)
            found = self._through_class(held) if held is not None else None
            if found is None:
                held = None
                found = self.qualified_names(call.func)
        if found is None:
            return None
        names, _ = found
        if not names:
            return None
        verdict, resolved = self.matcher.classify(names, self.package)
        if verdict is Verdict.OTHER:
            return None
        if called is not None:  # the method called, as the messages name it: ``cp.get_...``
            kind = configless_kind(passed_arguments(call, self.constant_of))
            callee = f"{' '.join(self.module.source_of(called[1]).split())}.{called[2]}"
        else:
            kind, callee = configless_kind(call), self.callee_text(call)
        return TargetCall(call, verdict, resolved, callee, kind, held)

    def _standard_loader(self, func: ast.expr) -> bool:
        """``False`` when ``func`` reaches its module through a call of a loader by name
        (:func:`loaded_by_name`'s forms: ``resolve_name(...)``, ``pkgutil.resolve_name(...)``,
        ``sys.modules.get(...)``, ``import_module(".b", package="a")``; and
        ``importlib.import_module("a.b")``) or through ``sys.modules["a.b"]``, when that
        loader is not the standard library's: its qualified name in scope is not
        ``pkgutil.resolve_name``, ``importlib.import_module`` or ``sys.modules.get``
        (a function of the project's own spelled so, trial 26h; ``sys = Registry`` in the
        function, or a module-level ``pkgutil = ...``, fresh40 B7), or a module of the
        project beside the caller has the standard module's name (:meth:`_shadowed`);
        ``True`` otherwise (no such form, or the standard library's)."""
        node = func
        while isinstance(node, ast.Attribute):
            node = node.value
        if isinstance(node, ast.Subscript) and dotted_parts(node.value) == ["sys", "modules"]:
            found = self.qualified_names(node.value)  # ``sys.modules["a.b"].f``
            return found is not None and not found[1] and found[0] == ["sys.modules"]
        if not isinstance(node, ast.Call):
            return True
        last = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if last not in _STANDARD_LOADERS or not isinstance(node.func, (ast.Name, ast.Attribute)):
            return True
        if loaded_by_name(node) is None and last != "import_module":
            return True  # not a form read by name (read as before)
        found = self.qualified_names(node.func)
        if found is None or found[1] or not found[0] or any(n not in _STANDARD_LOADERS.values() for n in found[0]):
            return False
        return not any(self._shadowed(n.split(".", 1)[0]) for n in found[0])

    def _shadowed(self, module: str) -> bool:
        """Whether a module of the project named ``module`` (``pkgutil.py``, ``importlib/__init__.py``)
        sits in the caller's folder or a folder above it up to the project's root: run as a
        script from there, or with that folder as its import root, it is the module
        ``import module`` gives (``sys.path[0]``; fresh40, B7). ``sys`` is built in and
        never shadowed (the standard library's ``sys.builtin_module_names``).

        Args:
            module (str): a top-level module name.

        Raises:
            Nothing: a folder that cannot be read holds nothing.
        """
        if module in _sys.builtin_module_names or not self.module.path:
            return False
        snapshot = current()
        folder = os.path.dirname(os.path.abspath(self.module.path))
        root = snapshot.root_of(folder)
        top = os.fspath(root) if root is not None else folder
        while True:
            try:
                if snapshot.fs.is_file(os.path.join(folder, module + ".py")) \
                        or snapshot.fs.is_file(os.path.join(folder, module, "__init__.py")):
                    return True
            except (OSError, ValueError):
                pass
            parent = os.path.dirname(folder)
            if folder == top or parent == folder or not folder.startswith(top):
                return False
            folder = parent

    # -- callees read but not followed with certainty (trial 26h, MISSED) ------------------
    def uncertain(self, call: ast.Call, parts: list[str] | None) -> TargetCall | None:
        """A call whose callee may be the runtime function through a form the tool reads but
        does not follow with certainty, as an AMBIGUOUS :class:`TargetCall` (PPO003, never a
        fix) whose ``uncertain`` says why; ``None`` for any other call, and for one that
        passes a config. The forms (trial 26h, MISSED rows H-M1, H-M7, H-M8):

        - ``functools.reduce(getattr, ["trainer", "constants_ppo", "get_..."], verl)()``:
          ``verl.trainer.constants_ppo.get_...`` when ``reduce`` and ``getattr`` are the
          builtins it reads (a literal list of literal names); :func:`functools.reduce`'s
          documentation;
        - ``inspect.getattr_static(constants_ppo, "get_...")()``: the attribute as found in
          the module's ``__dict__`` (no module ``__getattr__`` is asked, no descriptor run);
        - ``cp.get_...()`` with ``cp`` bound once at module level to a call, of anything
          but an import function the tool reads, that is given a literal string naming a
          module that holds a target (``cp = lazy_import("verl.trainer.constants_ppo")``:
          the ``importlib.util.LazyLoader`` recipe of :mod:`importlib`'s documentation): the
          module that function returns cannot be told;
        - ``get_...()`` imported from ``proj.runtime`` where a package above it registers
          verl's module under that name, or ``rt.get_...()`` with ``rt`` a module whose
          namespace is copied from verl's (:func:`registered_module`, H-M3 and H-M3b);
        - ``operator.methodcaller(NAME)(x)`` read but not followed
          (:meth:`_methodcaller_uncertain`, fresh user 41, M7), and ``getattr(cp, NAME)()``
          with ``NAME`` holding the function's name on some paths only
          (:meth:`_getattr_uncertain`).

        Args:
            call: a call of the module.
            parts: :func:`callee_parts` of its callee (``None`` when it has none).
        """
        func = call.func
        found: tuple[list[str], str] | None = None
        if isinstance(func, ast.Call):
            found = self._reduce_or_static(func) or self._getattr_uncertain(func) or self._built_uncertain(func)
            if found is None:
                return self._methodcaller_uncertain(call)
        elif isinstance(func, ast.Subscript):
            found = self._built_uncertain(func)
        elif parts is not None and len(parts) == 2 and parts[1] in self.matcher.names \
                and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            found = self._loaded_by_call(func.value, parts[1]) or self._looped_receiver(func)
        elif parts is None and isinstance(func, ast.Attribute) and func.attr in self.matcher.names:
            found = self._loaded_at_run_time(func)
        if found is None and parts is not None and parts[-1] in self.matcher.names \
                and not parts[0].startswith(LOADED):
            found = self._registered_elsewhere(func, parts[-1])
        if found is None:
            return None
        names, why = found
        verdict, resolved = self.matcher.classify(names, self.package)
        if verdict not in (Verdict.TARGET, Verdict.AMBIGUOUS):
            return None
        kind = configless_kind(call)
        return TargetCall(call, Verdict.AMBIGUOUS, resolved, self.callee_text(call), kind, None, why)

    def _methodcaller_uncertain(self, call: ast.Call) -> TargetCall | None:
        """:meth:`uncertain`'s ``operator.methodcaller(NAME, *a, **k)(x)`` (the getter
        :mod:`operator`'s by its qualified name) that calls a target's function with no
        config on verl's module, in a form the tool reads but does not follow (fresh user
        41, M7: each was silent, and each calls the function configless at run time):

        - the receiver given unpacked (``methodcaller(NAME)(*[cp])``): the first element of
          a literal list or tuple unpacked first;
        - the receiver a loop variable (``[methodcaller(NAME)(m) for m in (cp,)]``, a
          ``for`` statement's) every binding of which in its scope iterates a literal list,
          tuple or set: each element may be it;
        - ``NAME`` a name or module attribute that may or may not hold the function's name
          (:meth:`possible_constant`: ``FACTORY`` rebound under an ``if``).

        An AMBIGUOUS :class:`TargetCall` (PPO003, never a fix) when an element or the
        receiver resolves to a module holding a target; ``None`` otherwise.

        Source: the :mod:`operator` documentation (``methodcaller(name, /, *args,
        **kwargs)``: ``f(b)`` returns ``b.name(*args, **kwargs)``).
        """
        getter = call.func
        if not isinstance(getter, ast.Call) or not getter.args or call.keywords:
            return None
        func = getter.func
        if not (isinstance(func, ast.Name) or (
                isinstance(func, ast.Attribute) and func.attr == "methodcaller" and isinstance(func.value, ast.Name))):
            return None
        qualified = self.qualified_names(func)
        if qualified is None or qualified[1] or not qualified[0] \
                or any(n != "operator.methodcaller" for n in qualified[0]):
            return None  # a ``methodcaller`` of the project's own, a parameter, a local
        named = getter.args[0]
        why = None
        name = methodcaller_name(getter, self.constant_of)
        if name is None and isinstance(named, (ast.Name, ast.Attribute)):
            possible = self.possible_constant(named)
            if possible is None:
                return None
            name, why = possible
        if name is None or name not in self.matcher.names:
            return None
        receivers: list[ast.expr] = []
        if call.args and isinstance(call.args[0], ast.Starred):
            first = call.args[0].value
            if not (isinstance(first, (ast.List, ast.Tuple)) and first.elts) or isinstance(first.elts[0], ast.Starred):
                return None
            receivers = [first.elts[0]]
            how = f"`{' '.join(self.module.source_of(call.args[0]).split())}`, a receiver given unpacked"
        elif len(call.args) == 1:
            receivers = [call.args[0]]
            how = None
            if isinstance(call.args[0], ast.Name):
                looped = self._loop_values(call.args[0])
                if looped is not None:
                    receivers = looped[0]
                    how = f"`{call.args[0].id}`, a loop variable over `{looped[1]}`"
            if how is None and why is None:
                return None  # a receiver read as it is: :meth:`classify`'s
        else:
            return None
        names: set[str] = set()
        for receiver in receivers:
            found = self.qualified_names(receiver) if dotted_parts(receiver) is not None else None
            if found is None or not found[0]:
                continue
            verdict, resolved = self.matcher.classify([f"{n}.{name}" for n in found[0]], self.package)
            if verdict in (Verdict.TARGET, Verdict.AMBIGUOUS):
                names.update(resolved)
        if not names:
            return None
        kind = configless_kind(ast.Call(func=func, args=getter.args[1:], keywords=getter.keywords))
        reason = " and ".join(r for r in (why, how) if r) + ", which the tool does not follow" if how else why
        return TargetCall(call, Verdict.AMBIGUOUS, tuple(sorted(names)), self.callee_text(call), kind, None, reason)

    def _getattr_uncertain(self, getter: ast.Call) -> tuple[list[str], str] | None:
        """``(names, why)`` for :meth:`uncertain`'s ``getattr(owner, NAME[, default])`` (the
        builtin: no binding of ``getattr`` in scope) whose ``NAME`` may or may not hold the
        function's name (:meth:`possible_constant`: ``FACTORY`` rebound under an ``if``),
        ``owner`` a module the imports name; else ``None``."""
        func = getter.func
        if not (isinstance(func, ast.Name) and func.id == "getattr") or len(getter.args) not in (2, 3) \
                or getter.keywords or any(isinstance(a, ast.Starred) for a in getter.args) \
                or not isinstance(getter.args[1], (ast.Name, ast.Attribute)) \
                or self.scopes.scope_of(func).lookup("getattr") is not None:
            return None
        possible = self.possible_constant(getter.args[1])
        if possible is None:
            return None
        found = self.qualified_names(getter.args[0]) if dotted_parts(getter.args[0]) is not None else None
        if found is None or found[1] or not found[0]:
            return None
        return [f"{n}.{possible[0]}" for n in found[0]], possible[1]

    # -- names built at run time and receivers the tool does not follow (fixmiss) -----------
    def built_name(self, node: ast.expr, depth: int = 0) -> str | None:
        """The string ``node`` evaluates to when it is built from strings the tool reads,
        else ``None`` (earlier trials' MISSED rows: a ``getattr`` name built from parts):

        - a literal, or a name or module attribute always holding one (:meth:`constant_of`);
        - ``a + b`` of such strings; an f-string whose fields are such strings, with no
          conversion or format spec (``f"get_ppo_ray_{kind}_env"``, ``kind = "runtime"``);
        - ``sep.join([...])`` of a literal list or tuple of them;
        - ``s.partition(sep)[i]`` and ``s.rpartition(sep)[i]`` (``i`` a literal 0-2);
        - ``C.M.value`` with ``C`` a module-level class whose one binding is its ``class``
          statement and whose body binds ``M`` once, to a literal (an ``Enum`` member's
          value: the ``enum`` documentation, "Programmatic access to enumeration members
          and their attributes"), and ``C.M`` of such a class (a plain class attribute).

        It says what the expression yields when the strings it reads are those; the
        callers report such a call and never fix it (a name read at run time).

        Args:
            node: an expression of this module.
            depth: the nesting already followed (past 8: ``None``).
        """
        if depth > 8:
            return None
        t = type(node)
        if t is ast.Constant:
            return node.value if isinstance(node.value, str) else None  # type: ignore[attr-defined]
        if t is _NAME:
            return self.constant_of(node)  # type: ignore[arg-type]
        if t is _ATTRIBUTE:
            if node.attr == "value" and type(node.value) is _ATTRIBUTE:  # type: ignore[attr-defined]
                member = self._enum_member(node.value)  # type: ignore[attr-defined]
                if member is not None:
                    return member
            return self.constant_of(node) or self._enum_member(node)  # type: ignore[arg-type]
        if t is ast.BinOp and isinstance(node.op, ast.Add):  # type: ignore[attr-defined]
            left = self.built_name(node.left, depth + 1)  # type: ignore[attr-defined]
            right = self.built_name(node.right, depth + 1) if left is not None else None  # type: ignore[attr-defined]
            return left + right if right is not None else None  # type: ignore[operator]
        if t is ast.JoinedStr:
            pieces = []
            for value in node.values:  # type: ignore[attr-defined]
                if isinstance(value, ast.FormattedValue):
                    if value.conversion != -1 or value.format_spec is not None:
                        return None
                    value = value.value
                piece = self.built_name(value, depth + 1)
                if piece is None:
                    return None
                pieces.append(piece)
            return "".join(pieces)
        if t is _CALL:
            func = node.func  # type: ignore[attr-defined]
            if isinstance(func, ast.Attribute) and func.attr == "join" and len(node.args) == 1 \
                    and not node.keywords and isinstance(node.args[0], (ast.List, ast.Tuple)):  # type: ignore[attr-defined]
                sep = self.built_name(func.value, depth + 1)
                items = [self.built_name(e, depth + 1) for e in node.args[0].elts]  # type: ignore[attr-defined]
                if sep is None or any(i is None for i in items):
                    return None
                return sep.join(items)  # type: ignore[arg-type]
            return None
        if t is _SUBSCRIPT:
            inner, key = node.value, node.slice  # type: ignore[attr-defined]
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) \
                    and inner.func.attr in ("partition", "rpartition") and len(inner.args) == 1 \
                    and not inner.keywords and isinstance(key, ast.Constant) and key.value in (0, 1, 2) \
                    and type(key.value) is int:
                text = self.built_name(inner.func.value, depth + 1)
                sep = self.built_name(inner.args[0], depth + 1) if text is not None else None
                if not sep:
                    return None
                return getattr(text, inner.func.attr)(sep)[key.value]
        return None

    def _enum_member(self, node: ast.Attribute) -> str | None:
        """The literal string ``C.M`` binds in ``C``'s body (``node`` is ``C.M``, ``C`` a
        name resolving to the module's scope whose one binding is a ``class`` statement,
        whose body assigns ``M`` once by a plain ``M = "..."``), else ``None``."""
        owner = node.value
        if not isinstance(owner, ast.Name) or self.scopes.scope_of(owner).lookup(owner.id) is not self.scopes.module:
            return None
        bindings = self.bindings_in(self.scopes.module, owner.id)
        if len(bindings) != 1 or not isinstance(bindings[0].node, ast.ClassDef):
            return None
        found = [
            s.value for s in bindings[0].node.body
            if isinstance(s, ast.Assign) and any(isinstance(x, ast.Name) and x.id == node.attr for x in s.targets)
        ]
        if len(found) != 1 or not (isinstance(found[0], ast.Constant) and isinstance(found[0].value, str)):
            return None
        return found[0].value

    def _built_uncertain(self, func: ast.expr) -> tuple[list[str], str] | None:
        """``(names, why)`` for :meth:`uncertain`'s callee read by a name built at run time
        (:meth:`built_name`) that names a target's function: ``getattr(owner, <built>)``
        (the builtin; a default too), ``vars(owner)[<built>]`` and
        ``owner.__dict__[<built>]``, ``owner`` a module the imports name; else ``None``."""
        if isinstance(func, ast.Call):
            name = func.func
            if not (isinstance(name, ast.Name) and name.id == "getattr") or len(func.args) not in (2, 3) \
                    or func.keywords or any(isinstance(a, ast.Starred) for a in func.args) \
                    or self.scopes.scope_of(name).lookup("getattr") is not None:
                return None
            owner, key, how = func.args[0], func.args[1], "`getattr`"
        elif isinstance(func, ast.Subscript):
            inner, key = func.value, func.slice
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "vars" \
                    and len(inner.args) == 1 and not inner.keywords \
                    and self.scopes.scope_of(inner.func).lookup("vars") is None:
                owner, how = inner.args[0], "`vars(...)`"
            elif isinstance(inner, ast.Attribute) and inner.attr == "__dict__":
                owner, how = inner.value, "`__dict__`"
            else:
                return None
        else:
            return None
        if isinstance(key, ast.Constant):
            return None  # a literal name: :func:`callee_parts`'s
        built = self.built_name(key)
        if built is None or built not in self.matcher.names:
            return None
        found = self.qualified_names(owner) if dotted_parts(owner) is not None else None
        if found is None or found[1] or not found[0]:
            return None
        spelled = " ".join(self.module.source_of(key).split())
        return [f"{n}.{built}" for n in found[0]], (
            f"{how} with a name computed at run time (`{spelled}`), which the tool does not follow"
        )

    def _loaded_at_run_time(self, func: ast.Attribute) -> tuple[list[str], str] | None:
        """``(names, why)`` for :meth:`uncertain`'s ``importlib.import_module(<expr>).f``
        (the standard loader by its qualified name, or the builtin ``__import__`` with a
        ``fromlist``) whose module name is not a literal but whose expression holds a
        literal naming a module that holds a target (``os.environ.get("ENV_MOD",
        "verl.trainer.constants_ppo")``: the default); else ``None``. The module in
        effect is decided at run time."""
        loader = func.value
        if not (isinstance(loader, ast.Call) and loader.args) or isinstance(loader.args[0], ast.Constant):
            return None
        last = loader.func.attr if isinstance(loader.func, ast.Attribute) else getattr(loader.func, "id", None)
        if last == "import_module":
            found = self.qualified_names(loader.func)
            if found is None or found[1] or found[0] != ["importlib.import_module"] or self._shadowed("importlib"):
                return None
        elif last == "__import__" and isinstance(loader.func, ast.Name):
            fromlist = loader.args[3] if len(loader.args) > 3 else next(
                (k.value for k in loader.keywords if k.arg == "fromlist"), None)
            if not (isinstance(fromlist, (ast.List, ast.Tuple)) and fromlist.elts) \
                    or self.scopes.scope_of(loader.func).lookup("__import__") is not None:
                return None
        else:
            return None
        modules = self.matcher.modules
        named = sorted({
            n.value for n in ast.walk(loader.args[0])
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in modules
        })
        if not named:
            return None
        spelled = " ".join(self.module.source_of(loader.args[0]).split())
        return [f"{m}.{func.attr}" for m in named], (
            f"a module named at run time (`{spelled}`), which the tool does not follow"
        )

    def _looped_receiver(self, func: ast.Attribute) -> tuple[list[str], str] | None:
        """``(names, why)`` for :meth:`uncertain`'s ``m.f()`` with ``m`` a loop variable over
        a literal list, tuple or set (:meth:`_loop_values`: ``for m in (cp,)``) one of whose
        elements is a module holding the target ``f``; else ``None``."""
        head = func.value
        if not isinstance(head, ast.Name):
            return None
        looped = self._loop_values(head)
        if looped is None:
            return None
        names: list[str] = []
        for element in looped[0]:
            found = self.qualified_names(element) if dotted_parts(element) is not None else None
            if found is not None and not found[1]:
                names += [f"{n}.{func.attr}" for n in found[0]]
        if not names:
            return None
        return names, f"`{head.id}`, a loop variable over `{looped[1]}`, which the tool does not follow"

    def _loop_values(self, name: ast.Name) -> tuple[list[ast.expr], str] | None:
        """``(elements, iterable as written)`` when every binding of ``name`` in the scope a
        read of it resolves to is the plain target of a ``for`` statement or comprehension
        iterating a literal list, tuple or set (``m`` of ``for m in (cp,)``), else ``None``."""
        holder = self.scopes.scope_of(name).lookup(name.id)
        if holder is None:
            return None
        bindings = self.bindings_in(holder, name.id)
        if not bindings:
            return None
        elements: list[ast.expr] = []
        spelled = []
        for b in bindings:
            chain = self.module.ancestors(b.node)
            loop = chain[-1] if chain else None
            if not (isinstance(loop, (ast.For, ast.AsyncFor, ast.comprehension)) and loop.target is b.node):
                return None
            iterable = loop.iter
            if not isinstance(iterable, (ast.List, ast.Tuple, ast.Set)):
                return None
            elements += [e for e in iterable.elts if not isinstance(e, ast.Starred)]
            spelled.append(" ".join(self.module.source_of(iterable).split()))
        return elements, "`, `".join(spelled)

    def _reduce_or_static(self, getter: ast.Call) -> tuple[list[str], str] | None:
        """``(names, why)`` for :meth:`uncertain`'s ``reduce(getattr, ...)`` and
        ``getattr_static(...)`` callees, else ``None``."""
        head = dotted_parts(getter.func)
        if head is None or getter.keywords or any(isinstance(a, ast.Starred) for a in getter.args):
            return None
        args = getter.args
        if head[-1] == "reduce" and head in (["reduce"], ["functools", "reduce"]) and len(args) == 3 \
                and isinstance(args[0], ast.Name) and args[0].id == "getattr" \
                and self.scopes.scope_of(args[0]).lookup("getattr") is None \
                and isinstance(args[1], (ast.List, ast.Tuple)) and args[1].elts:
            path = [e.value for e in args[1].elts if isinstance(e, ast.Constant)]
            if len(path) != len(args[1].elts) or not all(isinstance(p, str) and p.isidentifier() for p in path):
                return None
            owner, why = args[2], "`functools.reduce(getattr, ...)`, which the tool does not follow"
        elif head[-1] == "getattr_static" and head in (["getattr_static"], ["inspect", "getattr_static"]) \
                and len(args) in (2, 3):
            key = args[1]
            name = key.value if isinstance(key, ast.Constant) else (
                self.constant_of(key) if isinstance(key, ast.Name) else None)
            if not (isinstance(name, str) and name.isidentifier()):
                return None
            path = [name]
            owner, why = args[0], "`inspect.getattr_static`, which reads the module's `__dict__` only"
        else:
            return None
        found = self.qualified_names(owner)
        if found is None or found[1] or not found[0]:
            return None  # a parameter or local named ``verl`` is no module the tool knows
        return [".".join((n, *path)) for n in found[0]], why  # type: ignore[arg-type]

    def _registered_elsewhere(self, func: ast.expr, attribute: str) -> tuple[list[str], str] | None:
        """``(names, why)`` for :meth:`uncertain`'s callee imported from a module of the
        project's name that a package above it registers in ``sys.modules`` as verl's
        module (:func:`registered_module`), else ``None``."""
        found = self.qualified_names(func)
        if found is None or found[1] or not found[0]:
            return None
        for name in found[0]:
            absolute = resolve_relative(name, self.package)
            module, _, last = (absolute or "").rpartition(".")
            if last != attribute or not module or module in self.matcher.modules:
                continue
            registered = registered_module(self.module.path, self.package, module, self.matcher.modules)
            if registered is not None:
                verl, how = registered
                return [f"{verl}.{attribute}"], f"`{module}`, {how}, a module the tool does not follow"
        return None

    def _loaded_by_call(self, head: ast.Name, attribute: str) -> tuple[list[str], str] | None:
        """``(names, why)`` for :meth:`uncertain`'s ``cp.get_...()`` with ``cp =
        loader("verl.trainer.constants_ppo")``, else ``None``."""
        if self.scopes.scope_of(head).lookup(head.id) is not self.scopes.module:
            return None
        bindings = self.bindings_in(self.scopes.module, head.id)
        if len(bindings) != 1 or bindings[0].qualified is not None:
            return None
        node = bindings[0].node
        parent = self.module.facts.parents.get(id(node))
        if not (isinstance(parent, ast.Assign) and parent.targets == [node]) or parent not in self.module.tree.body:
            return None
        value = parent.value
        if not isinstance(value, ast.Call) or len(value.args) < 1 or callee_parts(value) is not None:
            return None
        text = value.args[0]
        modules = self.matcher.modules
        if not (isinstance(text, ast.Constant) and text.value in modules):
            return None
        spelled = " ".join(self.module.source_of(value).split())
        where = f"{self.module.path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{parent.lineno}"
        return [f"{text.value}.{attribute}"], (
            f"`{head.id}`, bound to `{spelled}` ({where}), a module the tool cannot tell"
        )

    # -- callees read through a class attribute (issue 26, family 6) ------------------------
    def held_by_class(self, func: ast.expr) -> Held | None:
        """The class attribute a call's callee ``func`` is read through, when a class body
        binds it by one plain assignment, else ``None``.

        The callee must start ``C.attr`` (``C`` bound once in its scope, by the ``class``
        statement), ``self.attr`` (an instance method's first parameter:
        :meth:`instance_method_of`) or ``cls.attr`` (a ``classmethod``'s), and ``C``'s body
        must bind ``attr`` by ``attr = <dotted name>``, ``attr = staticmethod(<dotted
        name>)`` or an import (``from verl.trainer import constants_ppo as cp``); every
        binding of it there counts (``if ...: cp = other`` too: the call is
        then ambiguous). Not followed, by Python's own rules: an attribute the class body
        binds only otherwise (a ``def``, a value that is no dotted name), a base class's attribute, and a plain
        function stored in the class and called on an instance (``self.make()`` with
        ``make = get_...``: a bound method, which passes ``self`` as the config; PPO006
        says so at the assignment).

        Args:
            func: a call's ``func``.
        """
        parts = callee_parts(func)
        if parts is None or len(parts) < 2 or parts[0].startswith(LOADED):
            return None
        head, attribute, rest = parts[0], parts[1], tuple(parts[2:])
        found = self._receiver(func, head)
        if found is None:
            return None
        body, receiver = found
        bindings = self.bindings_in(body, attribute)
        values: list[ast.expr | str | None] = []
        for b in bindings:
            if b.qualified is not None:  # an import in the class body
                values.append(None if not rest and receiver == "self" else b.qualified)
                continue
            value = self.alias_value(b.node)
            static = self._static_function(value, body) if value is not None else None
            if static is not None:
                value = None if rest else static
            elif value is not None and not rest and receiver == "self":
                value = None  # a function read on an instance is a bound method: ``self`` is passed
            values.append(value)
        if not any(v is not None for v in values):
            return None
        return Held(
            body.node, attribute, tuple(b.node for b in bindings), tuple(values), receiver, rest  # type: ignore[arg-type]
        )

    def _receiver(self, node: ast.expr, name: str) -> tuple[Scope, str] | None:
        """``(class body scope, receiver)`` for a read of ``name`` at ``node`` that is a class
        (by its name), an instance method's ``self`` or a classmethod's ``cls``
        (:class:`Held`'s ``receiver``); ``None`` otherwise."""
        holder = self.scopes.scope_of(node).lookup(name)
        if holder is None:
            return None
        bindings = self.bindings_in(holder, name)
        if len(bindings) == 1 and isinstance(bindings[0].node, ast.ClassDef):
            body = self.scopes.scope_for_node(bindings[0].node)
            return (body, "class") if body is not None else None
        if self.instance_method_of(node, name) is not None:
            return holder.parent, "self"  # type: ignore[return-value]
        method = holder.node
        if holder.parent is None or holder.parent.kind is not ScopeKind.CLASS \
                or not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        positional = (*method.args.posonlyargs, *method.args.args)
        if not positional or positional[0].arg != name:
            return None
        if not any(isinstance(d, ast.Name) and d.id == "classmethod" for d in method.decorator_list):
            return None
        if any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in method.decorator_list):
            return None
        if any(not isinstance(b.node, ast.arg) for b in bindings):
            return None
        return holder.parent, "cls"

    def _static_function(self, value: ast.expr, body: Scope) -> ast.expr | None:
        """``f`` of a class body's ``staticmethod(f)`` (the builtin: the name bound nowhere),
        else ``None``."""
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
                and value.func.id == "staticmethod" and len(value.args) == 1 \
                and not value.keywords and not isinstance(value.args[0], ast.Starred) \
                and body.lookup("staticmethod") is None:
            return value.args[0]
        return None

    def held_rebindings(self, held: Held, patchers: Iterable[str]) -> list[tuple[ast.AST, str]]:
        """What in this module may make ``held``'s attribute another object than the one its
        class body binds, so that a call read through it may reach a function taking no
        config; ``[]`` when nothing does. Read generously (a name too many makes a fix
        unsafe, never a finding wrong):

        * an attribute of that name assigned or deleted on anything (``self.cp = ...``,
          ``Env.cp = ...``, ``launcher.cp = fake``, ``del obj.cp``): an instance's
          attribute hides the class's, and the class's may be replaced;
        * a patcher (``patchers``: the last names of :data:`ppo_migrate.rules.patches.PATCHERS`,
          ``setattr``, ``mock.patch.object`` ...) given the name in a string
          (``"cp"``, ``"app.Env.cp"``) or as a keyword (``mock.patch.multiple(Env, cp=...)``),
          and ``setattr``/``delattr`` given a name not known before it runs;
        * for a read through ``self``/``cls``, another class body binding the name (a
          subclass may override it);
        * the class itself: a decorator (``@dataclass`` makes ``cp`` a field an instance
          may be given), a metaclass or other class keyword, a ``__getattribute__``, or a
          base class that is not a class of this module checked the same way (a base's
          ``__init__`` may set ``self.cp``; an ``Enum`` base makes ``cp`` a member).

        Args:
            held: :meth:`held_by_class`'s answer for a call of this module.
            patchers: the last names of the callables that replace an attribute.

        Returns:
            ``(node, what)`` pairs in source order: the node and what it does
            (``"assigns `self.cp`"``), as a reason's related place says it.
        """
        name, patcher_names = held.attribute, frozenset(patchers)
        out: list[tuple[ast.AST, str]] = []
        for node in self.module.facts.attributes:
            if node.attr == name and isinstance(node.ctx, (ast.Store, ast.Del)):
                verb = "deletes" if isinstance(node.ctx, ast.Del) else "assigns"
                out.append((node, f"{verb} `{self.module.source_of(node)}`"))
        for call in self.module.facts.calls:
            last = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
            if last not in patcher_names:
                continue
            if last in ("setattr", "delattr") and len(call.args) > 1 and not (
                isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str)
            ):
                out.append((call, f"calls `{last}` with a name not known before it runs"))
                continue
            named = any(k.arg == name for k in call.keywords) or any(
                isinstance(c, ast.Constant) and isinstance(c.value, str)
                and (c.value == name or c.value.endswith("." + name))
                for arg in (*call.args, *(k.value for k in call.keywords)) for c in ast.walk(arg)
            )
            if named:
                out.append((call, f"replaces `{name}` with `{last}`"))
        body = self.scopes.scope_for_node(held.owner)
        if held.receiver != "class":
            for b in self.bindings_of(name):
                where = self._landing(b, name)
                if where is not None and where is not body and where.kind is ScopeKind.CLASS:
                    out.append((b.node, f"binds `{name}` in class `{where.name}`, which may be a subclass"))
        out.extend(self._class_doubts(held.owner, name, set()))
        out.sort(key=lambda item: (getattr(item[0], "lineno", 0), getattr(item[0], "col_offset", 0)))
        return out

    def _class_doubts(self, owner: ast.ClassDef, name: str, seen: set[int]) -> list[tuple[ast.AST, str]]:
        """What about class ``owner`` (and, recursively, its bases of this module) may change
        how its attribute ``name`` is read: see :meth:`held_rebindings`."""
        if id(owner) in seen:
            return []
        seen.add(id(owner))
        out: list[tuple[ast.AST, str]] = []
        for d in owner.decorator_list:
            what = f"decorates class `{owner.name}` with `{self.module.source_of(d)}`, which may change or replace it"
            out.append((d, what))
        for k in owner.keywords:
            what = f"gives class `{owner.name}` `{self.module.source_of(k)}`, which may change how its attributes are read"
            out.append((k, what))
        for stmt in owner.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == "__getattribute__":
                out.append((stmt, f"defines `{owner.name}.__getattribute__`"))
        for base in owner.bases:
            if isinstance(base, ast.Name) and base.id == "object" and self.scopes.scope_of(base).lookup("object") is None:
                continue
            local = None
            if isinstance(base, ast.Name):
                holder = self.scopes.scope_of(base).lookup(base.id)
                bindings = self.bindings_in(holder, base.id) if holder is not None else []
                if len(bindings) == 1 and isinstance(bindings[0].node, ast.ClassDef):
                    local = bindings[0].node
            if local is None:
                what = (
                    f"gives class `{owner.name}` the base `{self.module.source_of(base)}`, whose "
                    "attributes, `__init__` or metaclass the tool does not follow"
                )
                out.append((base, what))
            else:
                out.extend(self._class_doubts(local, name, seen))
        return out

    def _through_class(self, held: Held) -> tuple[list[str], bool] | None:
        """:meth:`qualified_names`'s answer for a callee read through ``held``: the names of
        what the class body binds, followed by the attributes read after it (a binding
        that is no alias gives the attribute's bare name, as a local binding does)."""
        names: list[str] = []
        local = False
        for binding, value in zip(held.bindings, held.values):
            key = id(binding)
            inner = None
            if isinstance(value, str):
                inner = [value], False
            elif value is not None and key not in self._following:
                self._following.add(key)
                try:
                    inner = self.qualified_names(value)
                finally:
                    self._following.discard(key)
            if inner is None or not inner[0]:
                names.append(held.attribute)
                local = True
                continue
            names.extend(".".join((n, *held.rest)) for n in inner[0])
            local = local or inner[1]
        return names, local

    # -- names holding a constant string (trial 26e, M3) ------------------------------------
    def constant_of(self, name: ast.Name | ast.Attribute) -> str | None:
        """The string ``name`` (a load) always holds, else ``None``.

        An attribute of a module of the project (``names.FACTORY`` after ``from pkg import
        names`` or ``import pkg.names as names``, ``pkg.names.FACTORY`` after ``import
        pkg.names``) is read as :meth:`_attribute_constant` says (fresh user 41, W6).

        It must resolve to the module's scope, where one statement binds it: a top-level
        ``NAME = "..."`` (or ``NAME: Final = "..."``) of a string constant, or ``from m
        import NAME`` of a module of the project (:func:`module_constant`: the same rule
        there). Anything else binding it in the module (a second assignment, ``global
        NAME`` in a function, ``del``, a ``for`` target) or a star import after that
        statement (it may rebind the name) leaves it unknown.

        Args:
            name: an ``ast.Name`` of this module (a ``getattr``'s second argument), or an
                ``ast.Attribute`` (``methodcaller``'s first argument).

        A name the module never binds holds no constant wherever it resolves (the one
        binding it needs is missing): once the module's bindings are collected, such a
        name (a builtin's: ``len(...)``, ``print(...)``) is answered without its scope's
        look-up, asked for every call of a plain name.
        """
        if type(name) is _ATTRIBUTE:
            return self._attribute_constant(name)  # type: ignore[arg-type]
        bindings = self._bindings
        if bindings is not None and name.id not in bindings:
            return None
        holder = self.scopes.scope_of(name).lookup(name.id)
        if holder is not self.scopes.module:
            return None
        known = self._constant_names.get(name.id, _UNKNOWN)
        if known is _UNKNOWN:  # the answer is the module's binding's: once per name
            known = self._constant_names[name.id] = self._module_constant_of(name.id)
        return known  # type: ignore[return-value]

    def _module_constant_of(self, name: str) -> str | None:
        """:meth:`constant_of` for a load of ``name`` that resolves to the module's scope."""
        bindings = self.bindings_in(self.scopes.module, name)
        if len(bindings) != 1:
            return None
        b = bindings[0]
        if b.qualified is None:
            return _top_level_string(self.module.tree, b.node)
        statement = b.node
        # a statement of the module body, with no star import after it (the body's
        # statements and star imports found once a module, not scanned once a name)
        top, stars = self._top_statements()
        if id(statement) not in top or any(line > statement.lineno for line, _ in stars):  # type: ignore[attr-defined]
            return None
        owner, _, attribute = b.qualified.rpartition(".")
        module = resolve_relative(owner, self.package) if owner else None
        if not module or isinstance(statement, ast.Import):
            return None
        key = (module, attribute)
        if key not in self._constants:  # another file read once per name, not per call
            self._constants[key] = module_constant(self.module.path, self.package, module, attribute)
        return self._constants[key]

    def _constant_home(self, node: ast.Attribute) -> tuple[str, str] | None:
        """``(module, attribute)`` for ``node``, a read of an attribute of a module the
        imports bind (``names.FACTORY`` after ``from pkg import names``: ``("pkg.names",
        "FACTORY")``): its object is a plain dotted name whose head resolves to one import
        binding only (no local, parameter, second import or star import may bind it);
        else ``None``."""
        value = node.value
        if dotted_parts(value) is None:
            return None  # ``f().X``, ``sys.modules["m"].X``, ``getattr(m, "n").X``: not followed
        found = self.qualified_names(value)
        if found is None or found[1] or len(set(found[0])) != 1:
            return None
        module = resolve_relative(found[0][0], self.package)
        if not module or module.startswith(LOADED):
            return None
        return module, node.attr

    def _attribute_constant(self, node: ast.Attribute) -> str | None:
        """:meth:`constant_of` for ``names.FACTORY``: the string a module of the project
        always holds in that attribute when it is read (fresh user 41, W6: the attribute
        spelling was a PPO006 while ``from pkg.names import FACTORY`` was a fixed PPO001),
        else ``None``. The same rule as the imported name's (:func:`module_constant`: one
        top-level ``FACTORY = "..."`` in the module's file, no other store of the name, no
        star import after it, no ``globals()`` rebinding; the package a module of that name
        beside it is imported instead of it), and, since an attribute is read when the call
        runs, not when the import ran:

        - no package above the module may bind the module's name otherwise
          (:func:`package_binds`): ``from pkg import names`` takes ``pkg``'s attribute
          ``names`` before the submodule;
        - this file may not assign the attribute (:meth:`_attribute_rebound`:
          ``names.FACTORY = "other"``, ``setattr(names, "FACTORY", ...)``); another file's
          assignment makes the fix unsafe (the replacement table's, as for the imported
          name).

        Source: the language reference, "The import system" (5.4.2, submodules: the
        submodule is bound as an attribute of its parent package) and "The import
        statement" (``from package import name`` looks for an attribute first).
        """
        home = self._constant_home(node)
        if home is None:
            return None
        key = ("." + home[0], home[1])  # an attribute's answer, beside the imported names'
        if key in self._constants:
            return self._constants[key]
        value = module_constant(self.module.path, self.package, *home)
        if value is not None and (
            package_binds(self.module.path, self.package, home[0]) or self._attribute_rebound(*home) is not None
        ):
            value = None
        self._constants[key] = value
        return value

    def _attribute_rebound(self, module: str, attribute: str) -> tuple[str, int] | None:
        """``(path, line)`` of a store in this file that may change ``module``'s
        ``attribute`` before the call runs, else ``None``: an attribute store or ``del`` of
        ``attribute`` on any object, ``setattr``/``delattr`` of it by a literal name.

        Another file's store (``names.FACTORY = "other"`` in ``pkg/other.py``) is the
        replacement table's (:func:`ppo_migrate.rules.patches.target_patches`: the
        project's re-export ``pkg.names.FACTORY`` of the function's name is a target): it
        makes the fix unsafe, as it does for ``from pkg.names import FACTORY``, whichever
        way the run is split into processes (the table is not known yet when a worker
        judges)."""
        del module  # any object's: the store's object is not followed
        for node in ast.walk(self.module.tree):
            if isinstance(node, ast.Attribute) and node.attr == attribute and not isinstance(node.ctx, ast.Load):
                return self.module.path, node.lineno
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in ("setattr", "delattr") and len(node.args) >= 2 \
                    and isinstance(node.args[1], ast.Constant) and node.args[1].value == attribute:
                return self.module.path, node.lineno
        return None

    def possible_constant(self, node: ast.expr) -> tuple[str, str] | None:
        """``(string, why)`` when ``node`` (a ``Name`` or a module's attribute) may hold a
        string naming a target's function but not always (fresh user 41, M7: ``FACTORY``
        rebound under an ``if`` of its module, so ``methodcaller(FACTORY)(cp)`` got no
        finding at all), else ``None``; ``why`` says it for a PPO003 ("`FACTORY`, which may
        or may not name it: pkg/names.py:1 binds it to ..., pkg/names.py:4 rebinds it").

        The module that holds the name (this one for a module-level name, the module it is
        imported from for ``from m import NAME``, the attribute's module) must assign a
        target's last name to it by a statement of its module level (:func:`module_stores`),
        and bind it besides somewhere other than an unconditional statement of its body
        (under an ``if``, a ``try``, a loop, in a function under ``global``); names all of
        whose bindings are such statements are read as before (the last one is in effect
        when a function runs; a ``globals()`` rewrite or a star import after it leaves the
        name unknown, and not reported). A module attribute this file assigns
        (:meth:`_attribute_rebound`) may hold the string too.

        Args:
            node: the expression (``methodcaller``'s first argument).
        """
        if self.constant_of(node) is not None:  # type: ignore[arg-type]
            return None
        wanted = self.matcher.names
        if type(node) is _ATTRIBUTE:
            home = self._constant_home(node)  # type: ignore[arg-type]
            if home is None:
                return None
            value = module_constant(self.module.path, self.package, *home)
            if value is not None and value in wanted and not package_binds(self.module.path, self.package, home[0]):
                rebound = self._attribute_rebound(*home)
                if rebound is not None:
                    return value, (
                        f"`{' '.join(self.module.source_of(node).split())}`, which may or may not name it: "
                        f"{rebound[0]}:{rebound[1]} may assign it another value"
                    )
            found = module_possible(self.module.path, self.package, home[0], home[1], wanted)
        elif type(node) is _NAME:
            name = node.id  # type: ignore[attr-defined]
            if self.scopes.scope_of(node).lookup(name) is not self.scopes.module:
                return None
            bindings = self.bindings_in(self.scopes.module, name)
            imported = [b for b in bindings if b.qualified is not None]
            if len(bindings) == 1 and imported and isinstance(imported[0].node, ast.ImportFrom):
                owner, _, attribute = imported[0].qualified.rpartition(".")  # type: ignore[union-attr]
                module = resolve_relative(owner, self.package) if owner else None
                # only a name the re-exports' look-out kept (:mod:`reexports`: a module-level
                # string of the function's name there), never verl's own function
                found = module_possible(self.module.path, self.package, module, attribute, wanted) \
                    if module and f"{module}.{attribute}" in self.matcher.targets else None
            else:
                known = self._possible.get(name, _UNKNOWN)
                if known is _UNKNOWN:  # the module's answer for the name: once a name
                    known = self._possible[name] = possible_in(
                        self.module.tree, name, wanted, self.module.path
                    ) if quotes_any(self.module.text, wanted) else None
                found = known  # type: ignore[assignment]
        else:
            return None
        if found is None:
            return None
        return found[0], f"`{' '.join(self.module.source_of(node).split())}`, which may or may not name it: {found[1]}"

    def callee_text(self, call: ast.Call) -> str:
        """The callee as written (with parentheses around it, as in ``(f)()``)."""
        m = self.module
        (l1, c1), (l2, c2) = m.start(call), m.end(call.func)
        if l1 == l2:
            text = m.lines[l1 - 1][c1 - 1 : c2 - 1]
        else:
            text = "\n".join(
                [m.lines[l1 - 1][c1 - 1 :], *m.lines[l1 : l2 - 1], m.lines[l2 - 1][: c2 - 1]]
            )
        # ``(f)()``: the call starts at the parenthesis, the callee ends before its ``)``
        line = m.lines[l2 - 1]
        i = c2 - 1
        while text.count("(") > text.count(")") and i < len(line):
            text += line[i]
            i += 1
        return text.strip() if text.count("(") == text.count(")") else m.source_of(call.func)

    # -- bindings -----------------------------------------------------------------------
    def star_modules(self) -> list[str]:
        """Absolute modules of ``from M import *`` (only at module level in Python 3)."""
        if self._star_modules is None:
            out = []
            for stmt in self.module.facts.imports:
                if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
                    resolved = resolve_relative(
                        "." * (stmt.level or 0) + (stmt.module or ""), self.package
                    )
                    if resolved:
                        out.append(resolved)
            self._star_modules = out
        return self._star_modules

    def bindings_in(self, holder: Scope, name: str) -> list[_Binding]:
        """The bindings of ``name`` whose store lands in ``holder`` (``global``/``nonlocal``
        followed: a store in scope X lands where ``X.lookup(name)`` says)."""
        if self._bindings is None:
            self._bindings = self._collect()
        by_holder = self._by_holder.get(name)
        if by_holder is None:  # once per name: where each of its bindings lands
            by_holder = {}
            for b in self._bindings.get(name, ()):
                by_holder.setdefault(id(self._landing(b, name)), []).append(b)
            self._by_holder[name] = by_holder
        return list(by_holder.get(id(holder), ()))

    def instance_method_of(self, node: ast.AST, name: str) -> Scope | None:
        """The instance method whose first parameter a read of ``name`` at ``node`` is.

        The scope a load of ``name`` at ``node`` resolves to must be a ``def`` directly
        in a class body, neither ``staticmethod`` nor ``classmethod``, whose first
        positional parameter is ``name``, and nothing else in it may bind ``name``
        (an assignment, ``del``, a loop target...). ``None`` otherwise: an inner
        ``def``/``lambda``/comprehension binding its own ``name``, a rebinding, a
        module-level or unbound ``name``. The one rule for ``self`` (whatever its
        spelling) used by the config finder and the caller index.
        """
        scope = self.scopes.scope_of(node)
        key = (id(scope), name)
        known = self._instance_methods.get(key, _UNKNOWN)
        if known is _UNKNOWN:  # the answer is the scope's and the name's: once per pair
            known = self._instance_methods[key] = self._instance_method_in(scope, name)
        return known  # type: ignore[return-value]

    def _instance_method_in(self, scope: Scope, name: str) -> Scope | None:
        """:meth:`instance_method_of` for a read of ``name`` evaluated in ``scope``."""
        holder = scope.lookup(name)
        if holder is None or holder.parent is None or holder.parent.kind is not ScopeKind.CLASS:
            return None
        method = holder.node
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        positional = (*method.args.posonlyargs, *method.args.args)
        if not positional or positional[0].arg != name:
            return None
        for d in method.decorator_list:
            if isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod"):
                return None
        if any(not isinstance(b.node, ast.arg) for b in self.bindings_in(holder, name)):
            return None
        return holder

    def bindings_of(self, name: str) -> list[_Binding]:
        """Every binding of ``name`` in any scope of the module: imports,
        assignments, definitions, parameters, ``except ... as``, match captures."""
        if self._bindings is None:
            self._bindings = self._collect()
        return list(self._bindings.get(name, ()))

    def _landing(self, b: _Binding, name: str) -> Scope | None:
        node = b.node
        if isinstance(node, ast.arg):
            scope = self.function_scope(node)
            return scope
        return self.scopes.scope_of(node).lookup(name)

    def function_scope(self, arg: ast.arg) -> Scope | None:
        """The scope of the function or lambda that has ``arg`` as a parameter."""
        if self._function_scopes is None:
            table: dict[int, Scope] = {}
            for scope in self.scopes.scopes():
                node = scope.node
                if isinstance(node, _FUNCTIONS):
                    for a in all_args(node.args):
                        table[id(a)] = scope
            self._function_scopes = table
        return self._function_scopes.get(id(arg))

    def _collect(self) -> dict[str, list[_Binding]]:
        """Every binding of the module by name, in the order of its binders, then its
        imports (:attr:`ppo_migrate.rules.module.ModuleFacts.binders` and ``imports``).

        A ``_Binding`` is made by ``tuple.__new__`` (what its ``NamedTuple`` constructor
        does, without that constructor's Python frame): a module's every stored name is one
        (~2% of benchmark item 9's ``check`` was those frames). Plain names, most of the
        binders, are added inline."""
        out: dict[str, list[_Binding]] = defaultdict(list)
        new = tuple.__new__

        def add(name: str, node: ast.AST, qualified: str | None = None) -> None:
            # ``ast.parse`` has NFKC-normalised every identifier, as the compiler does
            out[name].append(new(_Binding, (node, qualified)))

        facts = self.module.facts
        name_t = ast.Name
        kinds = _BINDING_KINDS
        for node in (*facts.binders, *facts.imports):
            t = type(node)
            if t is name_t:
                out[node.id].append(new(_Binding, (node, None)))  # type: ignore[attr-defined]
                continue
            kind = kinds.get(t)  # by the node's exact type: one look-up, not a chain of tests
            if kind is None:
                kind = _binding_kind(t)
            if kind == _B_DEF:
                add(node.name, node)  # type: ignore[attr-defined]
                for a in all_args(node.args):  # type: ignore[attr-defined]
                    add(a.arg, a)
            elif kind == _B_CLASS:
                add(node.name, node)  # type: ignore[attr-defined]
            elif kind == _B_LAMBDA:
                for a in all_args(node.args):  # type: ignore[attr-defined]
                    add(a.arg, a)
            elif kind == _B_IMPORT:
                for a in node.names:  # type: ignore[attr-defined]
                    if a.asname:
                        add(a.asname, node, a.name)
                    else:
                        head = a.name.split(".", 1)[0]
                        add(head, node, head)
            elif kind == _B_IMPORT_FROM:
                prefix = "." * (node.level or 0) + (f"{node.module}." if node.module else "")  # type: ignore[attr-defined]
                for a in node.names:  # type: ignore[attr-defined]
                    if a.name != "*":
                        add(a.asname or a.name, node, prefix + a.name)
            elif kind == _B_NAMED:  # ``except ... as``, match captures
                if node.name:  # type: ignore[attr-defined]
                    add(node.name, node)  # type: ignore[attr-defined]
            elif kind == _B_REST:
                if node.rest:  # type: ignore[attr-defined]
                    add(node.rest, node)  # type: ignore[attr-defined]
            elif kind == _B_NAME:
                add(node.id, node)  # type: ignore[attr-defined]
        return out


#: :meth:`TargetFinder._collect`'s kinds of binders: node type -> ``_B_*`` (by the exact
#: type; a subclass is sorted as its base once, as the ``isinstance`` tests did)
_B_OTHER, _B_NAME, _B_DEF, _B_CLASS, _B_LAMBDA, _B_IMPORT, _B_IMPORT_FROM, _B_NAMED, _B_REST = range(9)
_BINDING_KINDS: dict[type, int] = {}


def _binding_kind(t: type) -> int:
    """The :data:`_BINDING_KINDS` entry of node type ``t`` (found once per type, in the order
    the ``isinstance`` tests of :meth:`TargetFinder._collect` were made)."""
    if issubclass(t, ast.Name):
        kind = _B_NAME
    elif issubclass(t, (ast.FunctionDef, ast.AsyncFunctionDef)):
        kind = _B_DEF
    elif issubclass(t, ast.ClassDef):
        kind = _B_CLASS
    elif issubclass(t, ast.Lambda):
        kind = _B_LAMBDA
    elif issubclass(t, ast.Import):
        kind = _B_IMPORT
    elif issubclass(t, ast.ImportFrom):
        kind = _B_IMPORT_FROM
    elif issubclass(t, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        kind = _B_NAMED
    elif issubclass(t, ast.MatchMapping):
        kind = _B_REST
    else:
        kind = _B_OTHER
    _BINDING_KINDS[t] = kind
    return kind

def _top_level_string(tree: ast.Module, node: ast.AST) -> str | None:
    """The string constant a top-level ``NAME = "..."``/``NAME: T = "..."`` binds, when
    ``node`` is its one target name, else ``None``; a star import after the statement
    (it may rebind the name) leaves it unknown."""
    for i, stmt in enumerate(tree.body):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and stmt.targets[0] is node:
            value = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.target is node and stmt.value is not None:
            value = stmt.value
        else:
            continue
        if any(isinstance(later, ast.ImportFrom) and any(a.name == "*" for a in later.names)
               for later in tree.body[i + 1:]):
            return None
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            return None
        return None if _rebinds_globals(tree) else value.value
    return None


#: :func:`_rebinds_globals`'s answers, by the tree (held weakly: a tree lives as long as
#: its run keeps it, never longer for this table)
_GLOBALS_REBOUND: weakref.WeakKeyDictionary[ast.Module, bool] = weakref.WeakKeyDictionary()


def _rebinds_globals(tree: ast.Module) -> bool:
    """Whether ``tree`` may rebind its module-level names without naming them:
    ``globals()`` anywhere (``globals().update(FACTORY="other")``,
    ``globals()[name] = ...``), a bare ``vars()`` at module level, or its own module object
    from ``sys.modules[__name__]``. A string constant of such a module is no certain value
    (fresh user 40, B8: ``methodcaller(FACTORY)(cp)`` was fixed, and after ``apply`` the
    rebound name called ``cp.other(config)``). Walked once a tree, only for a module whose
    string constant a call depends on."""
    known = _GLOBALS_REBOUND.get(tree)
    if known is not None:
        return known
    found = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args \
                and not node.keywords and node.func.id in ("globals", "vars"):
            found = True
            break
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) and node.slice.id == "__name__":
            found = True  # ``sys.modules[__name__]``: the module object itself
            break
        if isinstance(node, ast.Call) and any(isinstance(a, ast.Name) and a.id == "__name__" for a in node.args) \
                and (node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")) \
                in ("import_module", "__import__", "get"):
            found = True  # ``import_module(__name__)``, ``sys.modules.get(__name__)``
            break
    _GLOBALS_REBOUND[tree] = found
    return found


def module_constant(path: str, package: tuple[str, ...], module: str, name: str) -> str | None:
    """The string constant ``module``'s ``name`` always holds, read from the project's file
    of ``module`` (from the import root of the file at ``path``, whose package is
    ``package``), else ``None``.

    The module must bind ``name`` by exactly one statement, a top-level ``name = "..."``
    (or annotated) with no star import after it: every other store of the name anywhere in
    the file (an assignment in a function under ``global``, ``del``, an import, a ``def``)
    leaves it unknown. A module that is no file of the project (verl, an installed
    package, standard input's) and a file that does not parse give ``None``.

    Args:
        path: the importing file's path.
        package: the importing file's package parts.
        module: the absolute name of the module the constant is imported from.
        name: the constant's name in it.

    Asked of every call through an imported name (is it a string?): the module's file is
    looked for once a run per import root and module (600 times the same absent
    ``verl/trainer/constants_ppo.py`` on benchmark item 10's chain, ~8% of its
    ``check``), and a file's constants are found once while the run keeps its tree.
    """
    found = _module_source(path, package, module)
    if found is None:
        return None
    source, tree = found
    if not any(_assigns_top_level(stmt, name) for stmt in tree.body):
        return None  # no ``name = ...`` at the top: no constant, without a walk of the module
    # a file's constants found once while the run keeps its tree
    return source.derived(string_constants, lambda s: string_constants(s.tree())).get(name)


def _module_source(path: str, package: tuple[str, ...], module: str, text: Callable[[str], bool] | None = None):
    """``(source, tree)`` of the project's file of ``module`` from the import root of the
    file at ``path`` (its package ``package``: :func:`module_constant`), else ``None``
    (standard input, no such file, unreadable, not Python; ``text`` given and false of the
    file's text: not parsed)."""
    from ppo_migrate.project.modules import absolute_parent
    from ppo_migrate.project.references import module_file, package_root  # the run's view

    if not path or path == "-":
        return None
    snapshot = current()
    # the file of ``module`` from this file's import root, once a run per folder, package
    # depth and module (a run makes and removes no files: ``Snapshot.memo``); every file of
    # a project asks it of the same few modules (verl's, which no file of the project is)
    files = snapshot.memo(_MODULE_FILES)
    key = (absolute_parent(path), len(package), module)
    file = files.get(key, _UNKNOWN)
    if file is _UNKNOWN:
        root = package_root(path, package)
        file = files[key] = module_file(root, module) if root is not None else None
    if file is None:
        return None
    try:
        source = snapshot.source(str(file))
        if text is not None and not text(source.text):
            return None
        return source, source.tree()
    except Exception:  # noqa: BLE001 - unreadable or not Python: nothing is known
        return None


def _shown(path: str, package: tuple[str, ...], module: str) -> str:
    """The project's file of ``module`` as a message names it: from the import root
    (``pkg/names.py``), as :func:`registered_module` names a package's file."""
    from ppo_migrate.project.references import module_file, package_root  # the run's view

    root = package_root(path, package)
    file = module_file(root, module) if root is not None else None
    if root is None or file is None:
        return module
    return "/".join(file.parts[len(root.parts):])


def package_binds(path: str, package: tuple[str, ...], module: str) -> bool:
    """Whether a package above ``module`` (``pkg`` for ``pkg.names``), a file of the
    project, may give its attribute of the submodule's name (``names``) a value other
    than the submodule: it binds that name otherwise (an assignment, a ``def``, an import
    of something else, ``del``), defines or assigns a module ``__getattr__``, has a star
    import, or rewrites its globals (:func:`_rebinds_globals`). ``from pkg import names``
    and ``pkg.names`` read that attribute (the import statement's reference: "check if the
    imported module has an attribute by that name" before it imports a submodule);
    ``from . import names`` in ``pkg/__init__.py`` binds the submodule itself and counts
    for nothing. A package with no ``__init__.py`` (PEP 420) binds nothing. Unreadable:
    ``True``.

    Args:
        path: the importing file's path.
        package: the importing file's package parts.
        module: the absolute module name (``"pkg.names"``).
    """
    parts = module.split(".")
    for depth in range(1, len(parts)):
        owner, child = ".".join(parts[:depth]), parts[depth]
        found = _module_source(path, package, owner)
        if found is None:
            continue  # a namespace package (or none: then the import fails as it did)
        if os.path.basename(os.fspath(found[0].path)) != "__init__.py":
            return True  # ``pkg.py``: a module, no package; its attribute is what it binds
        tree = found[1]
        if _rebinds_globals(tree):
            return True
        own = tuple(owner.split("."))
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in (child, "__getattr__") and not isinstance(node.ctx, ast.Load):
                return True
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                    and node.name in (child, "__getattr__"):
                return True
            if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name == child:
                return True
            if isinstance(node, ast.Import) and any(
                    (a.asname or a.name.split(".", 1)[0]) == child for a in node.names):
                return True
            if isinstance(node, ast.ImportFrom):
                base = resolve_relative("." * (node.level or 0) + (node.module or ""), own)
                for a in node.names:
                    if a.name == "*":
                        return True
                    if (a.asname or a.name) == child and not (a.asname is None and base == owner):
                        return True
    return False


def module_stores(tree: ast.Module, name: str) -> list[tuple[ast.stmt, bool, str | None]]:
    """Each statement that binds ``name`` in the module's own namespace: ``(statement,
    top, string)``, ``top`` when it is an unconditional statement of the module body,
    ``string`` the string constant an assignment binds (``None`` for any other binding:
    an import, a ``def``, a loop target, ``del``, an augmented assignment). Statements
    under ``if``/``try``/``with``/loops/``match`` at module level count, and those of a
    function that declares ``global name``; a class body's and other functions' are their
    own namespaces'."""
    out: list[tuple[ast.stmt, bool, str | None]] = []

    def binds(stmt: ast.stmt) -> str | None | bool:
        value = getattr(stmt, "value", None)
        string = value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
            return string if len(stmt.targets) == 1 else None
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
            return string if stmt.value is not None else False
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return None if stmt.name == name else False
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            return None if any(
                (a.asname or a.name.split(".", 1)[0]) == name or a.name == "*" for a in stmt.names) else False
        for node in ast.walk(stmt):  # tuple targets, ``del``, ``+=``, walrus, ``with ... as``
            if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
                return None
            if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and getattr(node, "name", None) == name:
                return None
        return False

    def visit(body: list[ast.stmt], top: bool, in_function: bool = False) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if not in_function and binds(stmt) is not False:
                    out.append((stmt, top, None))
                if any(isinstance(n, ast.Global) and name in n.names for n in ast.walk(stmt)):
                    visit(stmt.body, False, True)
                continue
            if isinstance(stmt, ast.ClassDef):
                if binds(stmt) is not False:
                    out.append((stmt, top, None))
                continue
            nested = [getattr(stmt, f, None) for f in ("body", "orelse", "finalbody")]
            nested += [h.body for h in getattr(stmt, "handlers", ())]
            nested += [c.body for c in getattr(stmt, "cases", ())]
            nested = [b for b in nested if isinstance(b, list) and b]
            if nested:  # a compound statement: its head (loop target, ``with ... as``), its bodies
                head = [getattr(stmt, f, None) for f in ("target", "items", "subject", "test", "iter")]
                if any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
                       for h in head if h is not None
                       for n in (ast.walk(h) if isinstance(h, ast.AST) else (x for i in h for x in ast.walk(i)))):
                    out.append((stmt, False, None))
                for handler in getattr(stmt, "handlers", ()):
                    if handler.name == name:
                        out.append((stmt, False, None))
                for b in nested:
                    visit(b, False, in_function)
                continue
            found = binds(stmt)
            if found is not False:
                out.append((stmt, top, found))

    visit(tree.body, True)
    return out


def possible_in(tree: ast.Module, name: str, wanted: Iterable[str], shown: str) -> tuple[str, str] | None:
    """``(string, places)`` when the module ``tree`` (its file named ``shown`` in a message)
    assigns one of ``wanted`` (a target's last name) to its ``name`` and binds the name
    besides somewhere other than an unconditional statement of its body
    (:func:`module_stores`), else ``None`` (:meth:`TargetFinder.possible_constant`);
    ``places`` says where ("pkg/names.py:1 binds it to `"get_..."`, pkg/names.py:4 rebinds
    it")."""
    stores = module_stores(tree, name)
    wanted = set(wanted)
    hits = [s for s in stores if s[2] in wanted]
    if not hits or all(top for _, top, _ in stores):
        return None
    first = hits[0]
    others = sorted({s[0].lineno for s in stores if s is not first})
    places = f"{shown}:{first[0].lineno} binds it to `\"{first[2]}\"`"
    if others:
        places += ", " + ", ".join(f"{shown}:{line}" for line in others) + " rebind" + ("s" if len(others) == 1 else "") + " it"
    else:
        places += " on some paths only"
    return first[2], places  # type: ignore[return-value]


def module_possible(
    path: str, package: tuple[str, ...], module: str, name: str, wanted: Iterable[str]
) -> tuple[str, str] | None:
    """:func:`possible_in` for ``module``'s ``name``, read from the project's file of
    ``module`` (:func:`module_constant`'s), else ``None`` (no such file, unreadable)."""
    wanted = frozenset(wanted)
    memo = current().memo(_POSSIBLE)
    key = (path, package, module, name, wanted)
    if key not in memo:  # once a run per importing folder, module and name
        found = _module_source(path, package, module, lambda text: quotes_any(text, wanted))
        memo[key] = possible_in(found[1], name, wanted, _shown(path, package, module)) \
            if found is not None else None
    return memo[key]


def quotes_any(text: str, wanted: Iterable[str]) -> bool:
    """Whether ``text`` spells one of ``wanted`` as a string literal (``"get_..."`` or
    ``'get_...'``): the bytes a module must hold to assign that string (asked before its
    tree is walked for :func:`possible_in`)."""
    return any(f'"{w}"' in text or f"'{w}'" in text for w in wanted)


#: :func:`module_possible`'s memo in the run's snapshot
_POSSIBLE = "ppo_migrate.rules.targets.module_possible"


#: :func:`module_constant`'s memo in the run's snapshot, and its mark of an answer not known yet
_MODULE_FILES = "ppo_migrate.rules.targets.module_constant"
_UNKNOWN = object()


_REGISTERED = "ppo_migrate.rules.targets.registered_module"


def registered_module(
    path: str, package: tuple[str, ...], module: str, targets_modules: frozenset[str]
) -> tuple[str, str] | None:
    """``(verl's module, how)`` (``how``: "which proj/__init__.py:6 registers in
    `sys.modules` as verl's `...`", as PPO003 says it) when a package above ``module`` (``proj`` for
    ``proj.runtime``), a file of the project, registers one of ``targets_modules`` under
    ``module``'s name by a top-level ``sys.modules[KEY] = M`` (trial 26h, H-M3:
    ``sys.modules[__name__ + ".runtime"] = constants_ppo`` in ``proj/__init__.py``); else
    ``None``. ``KEY`` is a literal string or ``__name__ + "<literal>"`` (``__name__`` is the
    package's name); ``M`` a name a top-level import of that file binds to the module
    (``import verl.trainer.constants_ppo as M``, ``from verl.trainer import constants_ppo
    as M``). Importing ``proj.runtime`` runs ``proj/__init__.py`` first, and an import finds
    a name in ``sys.modules`` before any file (the :mod:`sys` documentation). Also a module
    ``proj.compat.rt`` that is a name ``rt`` of ``proj/compat.py`` whose namespace is copied
    from verl's module (:func:`_namespace_copy`, H-M3b).

    Args:
        path: the importing file's path (its import root is where the package is looked for).
        package: the importing file's package parts.
        module: the absolute module name imported from (``"proj.runtime"``).
        targets_modules: the modules that hold a target (:attr:`TargetMatcher.modules`).
    """
    from ppo_migrate.project.references import module_file, package_root  # the run's view
    from ppo_migrate.project.snapshot import current

    if not path or path == "-" or "." not in module:
        return None
    root = package_root(path, package)
    if root is None:
        return None
    memo = current().memo(_REGISTERED)
    key = (str(root), module)
    if key in memo:
        return memo[key]
    answer = None
    parts = module.split(".")
    for depth in range(len(parts) - 1, 0, -1):
        owner = ".".join(parts[:depth])
        file = module_file(root, owner)
        if file is None:
            continue
        try:
            source = current().source(str(file))
            if "modules" not in source.text and "update" not in source.text:
                continue
            tree = source.tree()
        except Exception:  # noqa: BLE001, S112 - unreadable or not Python: nothing is known
            continue
        shown = "/".join(file.parts[len(root.parts):])  # from the import root: ``proj/__init__.py``
        answer = _registration_in(tree, owner, module, targets_modules, shown)
        if answer is not None:
            break
    memo[key] = answer
    return answer


def top_level_imports(tree: ast.Module) -> dict[str, str]:
    """The names a module's top-level absolute imports bind, each to the qualified name it
    stands for: ``{"il": "importlib"}`` for ``import importlib as il``, ``{"os": "os"}`` for
    ``import os.path`` (the head it binds), ``{"import_module": "importlib.import_module"}``
    for ``from importlib import import_module``. Relative imports and imports under a
    statement other than the module body are left out; a later import of a name wins.

    Args:
        tree: the module's ``ast``.
    """
    names: dict[str, str] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    head = alias.name.split(".", 1)[0]
                    names[head] = head
        elif isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
            for alias in stmt.names:
                names[alias.asname or alias.name] = f"{stmt.module}.{alias.name}"
    return names


def _registration_in(
    tree: ast.Module, owner: str, module: str, targets_modules: frozenset[str], file_name: str
) -> tuple[str, str] | None:
    """:func:`registered_module` for one package file ``tree`` whose ``__name__`` is ``owner``."""
    imported = top_level_imports(tree)
    copied = _namespace_copy(tree, module[len(owner) + 1:], imported, targets_modules) \
        if module.startswith(owner + ".") else None
    if copied is not None:
        return copied[0], (
            f"whose namespace {file_name}:{copied[1]} copies from verl's `{copied[0]}`"
        )
    for stmt in tree.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Subscript)
                and dotted_parts(stmt.targets[0].value) == ["sys", "modules"]
                and isinstance(stmt.value, ast.Name)):
            continue
        key = stmt.targets[0].slice
        if isinstance(key, ast.Constant):
            name = key.value
        elif isinstance(key, ast.BinOp) and isinstance(key.op, ast.Add) and isinstance(key.left, ast.Name) \
                and key.left.id == "__name__" and isinstance(key.right, ast.Constant) \
                and isinstance(key.right.value, str):
            name = owner + key.right.value
        else:
            continue
        value = imported.get(stmt.value.id)
        if name == module and value in targets_modules:
            return value, (  # type: ignore[return-value]
                f"which {file_name}:{stmt.lineno} registers in `sys.modules` as verl's `{value}`"
            )
    return None


def _namespace_copy(
    tree: ast.Module, name: str, imported: dict[str, str], targets_modules: frozenset[str]
) -> tuple[str, int] | None:
    """``(verl's module, line)`` when ``tree``'s top level copies a target module's namespace
    into its name ``name`` (trial 26h, H-M3b, the six.moves style: ``rt =
    types.ModuleType(...)``; ``rt.__dict__.update(vars(importlib.import_module("verl...")))``,
    also ``vars(rt).update(...)`` and ``M.__dict__`` given, ``M`` imported by the file or
    loaded by ``import_module`` of a literal name); else ``None``. ``rt``'s attributes are
    then verl's functions, which :func:`registered_module` reports as not followed."""
    for stmt in tree.body:
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            continue
        call = stmt.value
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr == "update" and len(call.args) == 1
                and not call.keywords):
            continue
        holder = _namespace_of(func.value)
        if not (isinstance(holder, ast.Name) and holder.id == name):
            continue
        source = _namespace_of(call.args[0])
        if isinstance(source, ast.Name):
            value = imported.get(source.id)
        else:
            parts = callee_parts(source) if isinstance(source, ast.Call) else None
            value = parts[0][len(LOADED):] if parts and len(parts) == 1 and parts[0].startswith(LOADED) else None
        if value in targets_modules:
            return value, stmt.lineno  # type: ignore[return-value]
    return None


def _namespace_of(node: ast.expr) -> ast.expr | None:
    """``x`` of ``x.__dict__`` or ``vars(x)``, else ``None``."""
    if isinstance(node, ast.Attribute) and node.attr == "__dict__":
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "vars" \
            and len(node.args) == 1 and not node.keywords:
        return node.args[0]
    return None


def _assigns_top_level(stmt: ast.stmt, name: str) -> bool:
    """Whether ``stmt`` is ``name = ...`` (one target) or ``name: T = ...``: the only
    statements :func:`string_constants` finds a constant in."""
    if isinstance(stmt, ast.Assign):
        return len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name
    return isinstance(stmt, ast.AnnAssign) and stmt.value is not None \
        and isinstance(stmt.target, ast.Name) and stmt.target.id == name


def string_constants(tree: ast.Module) -> dict[str, str]:
    """The names a module binds by exactly one statement, a top-level ``NAME = "..."`` (or
    annotated) with no star import after it, each with its string: every other store of
    the name anywhere in the file (an assignment in a function under ``global``, ``del``,
    a ``for`` target, an import, a ``def``) leaves it out (see :func:`module_constant`).
    A module without a top-level string assignment has none, and is not walked."""
    if not any(
        isinstance(stmt, (ast.Assign, ast.AnnAssign))
        and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)
        for stmt in tree.body
    ):
        return {}
    counts: dict[str, int] = defaultdict(int)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            counts[node.id] += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            counts[node.name] += 1
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                counts[a.asname or a.name.split(".", 1)[0]] += 1
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            counts[node.target.id] += 1  # its target is a Store too: never once
    out: dict[str, str] = {}
    for stmt in tree.body:
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else (
            stmt.target if isinstance(stmt, ast.AnnAssign) and stmt.value is not None else None)
        if isinstance(target, ast.Name) and counts[target.id] == 1:
            text = _top_level_string(tree, target)
            if text is not None:
                out[target.id] = text
    return out


def _default_of(function: ast.AST | None, parameter: ast.arg) -> ast.expr | None:
    """The default value of ``function``'s ``parameter`` (a ``def`` or ``lambda``), else
    ``None`` (no default, or ``parameter`` is not one of its own)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return None
    a = function.args
    positional = [*a.posonlyargs, *a.args]
    for arg, default in zip(positional[len(positional) - len(a.defaults):], a.defaults):
        if arg is parameter:
            return default
    for arg, default in zip(a.kwonlyargs, a.kw_defaults):
        if arg is parameter:
            return default
    return None


def all_args(args: ast.arguments) -> list[ast.arg]:
    """Every parameter of a signature: positional-only, ordinary, ``*args``, keyword-only, ``**kw``."""
    out = [*args.posonlyargs, *args.args]
    if args.vararg is not None:
        out.append(args.vararg)
    out.extend(args.kwonlyargs)
    if args.kwarg is not None:
        out.append(args.kwarg)
    return out


__all__ = [
    "Held", "TargetCall", "TargetFinder", "all_args", "callee_parts", "configless_kind", "dotted_parts",
    "methodcaller_call", "methodcaller_name", "passed_arguments", "spelled_targets",
]
