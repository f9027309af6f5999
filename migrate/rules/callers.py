"""Follow the config across functions: caller hints and ``apply --thread-config``.

A PPO002 ("no config in scope") usually sits in a small helper — ``init_ray(address)``,
a wrapper ``get_env()`` around the runtime function — whose callers do have the
config. This module finds, within the analysed paths, every call of the function
enclosing each PPO002 (by qualified name across files, and ``self.method()``
inside its class), says which callers have a config in scope, and with
``--thread-config`` adds a ``config=None`` keyword parameter to the helper,
passes it at the runtime call and passes ``config=<expression>`` at every caller,
up the call chain to a bounded depth.

A function is never changed when its calls cannot all be found: it is referenced
as a value, decorated (other than ``staticmethod``/``classmethod``), exported in
``__all__``, nested in a lambda, or has no call in the analysed paths (it may be
called from outside them). Nor when the new keyword could clash or miss: it takes
``**kwargs`` (a ``config=`` may already flow through it), a call of it already
passes that keyword or unpacks ``*args``/``**kwargs``, it is defined more than
once in its module, or it is a method that another class in the scanned files
also defines (an override would not get the parameter), or a method whose name is
called on an object the plan cannot tie to its class (``l.start()``: that call may
be one of it). The reason is reported instead.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ppo_migrate.rules.check import ModuleAnalysis
from ppo_migrate.rules.module import parsed_source
from ppo_migrate.rules.reexports import MODULE_NAMES
from ppo_migrate.rules.patches import FUNCTION_BODY, computed_bindings, replaced_names, string_env
from ppo_migrate.rules.scopes import ScopeKind, frames as scope_frames
from ppo_migrate.rules.targets import all_args
from ppo_migrate.constants import CONFIG_PARAMETER
from ppo_migrate.diagnostics import UNSURE_CALLEE_KINDS, Diagnostic, Related, qualname
from ppo_migrate.project.references import Wanted, current_references
from ppo_migrate.project.snapshot import current
from ppo_migrate.project.modules import (
    module_name,
    module_package,
    namespace_prefixes,
    package_for_relative_imports,
    resolve_relative,
)

if TYPE_CHECKING:
    from ppo_migrate.settings_model import Settings

DEFAULT_DEPTH = 3
_TRANSPARENT_DECORATORS = frozenset({"staticmethod", "classmethod"})


class FunctionInfo(NamedTuple):
    """A function that may be threaded.

    Attributes:
        fq: fully qualified name, ``module.qualname``.
        path: display path of its file.
        qualname: as ``__qualname__`` spells it, e.g. ``"Launcher.start"``.
        line: line of its ``def``.
        block: why it must not be changed, or ``None``.
        param: the parameter name to add (``config`` unless that name is taken).
        cls: for a method (a ``def`` directly in a class body), the class's
            qualified name within its module; ``None`` otherwise.
    """

    fq: str
    path: str
    qualname: str
    line: int
    block: str | None
    param: str
    cls: str | None = None


class CallSite(NamedTuple):
    """A call of a function being followed.

    Attributes:
        path, line, column: where the call is (1-based, code points).
        callee: fully qualified name of the called function.
        caller: fully qualified name of the enclosing function, or ``None`` at
            module level, in a class body or in a lambda.
        caller_scope: the enclosing scope as a qualified name (``<module>`` too).
        config: the config expression in scope at the call, or ``None``.
        keywords: the keyword names the call passes.
        unpacked: the first ``*args``/``**kwargs`` argument it passes, as written,
            or ``None``.
        others: the other functions the call may reach (its callee's name has several
            bindings there: ``from a import f`` and, conditionally, ``from b import f``).
    """

    path: str
    line: int
    column: int
    callee: str
    caller: str | None
    caller_scope: str
    config: str | None
    keywords: frozenset[str] = frozenset()
    unpacked: str | None = None
    others: tuple[str, ...] = ()


class _Index:
    """What :func:`plan` gathers across files (filled in as callers are followed)."""

    def __init__(self) -> None:
        self.functions: dict[str, FunctionInfo] = {}
        self.sites: dict[str, list[CallSite]] = defaultdict(list)
        self.values: dict[str, list[tuple[str, int]]] = defaultdict(list)
        self.scanned: set[str] = set()
        #: display path -> the record its functions and sites came from (its ``stamp`` says
        #: which bytes the positions belong to; ``--thread-config`` edits only those bytes)
        self.records: dict[str, FileIndex] = {}
        #: attribute name -> ``(path, line)`` of a binding other than by a ``def`` (see
        #: :attr:`FileIndex.assigned`), from every file scanned
        self.assigned: dict[str, tuple[str, int]] = {}
        #: name -> ``(path, line)`` of a run-time binding (see :attr:`FileIndex.dynamic`)
        self.dynamic: dict[str, tuple[str, int]] = {}
        #: attribute name -> ``(path, line, column)`` of each ``obj.name(...)`` call on an
        #: object (see :attr:`FileIndex.method_calls`), from every file scanned
        self.method_calls: dict[str, list[tuple[str, int, int]]] = defaultdict(list)


def _analysis(path: str, settings: Settings, package: tuple[str, ...], factory):
    """The core's analysis of ``path``, parsed now. Not kept: the caller phase keeps the
    small index record built from it (the run's reference index keeps it:
    :attr:`ppo_migrate.project.references.References.records`), so a file is still parsed once
    however many levels of callers are followed, and no tree outlives its record.

    The file is read and parsed through the run's snapshot (:mod:`ppo_migrate.project.snapshot`):
    once a run, however many phases ask.

    Raises:
        UnreadableFile, UnicodeDecodeError, SourceProblem, ...: as reading and parsing do.
    """
    source = current().source(path)
    return factory(source.text, path, settings, package=package, module=parsed_source(source, path))


class FileIndex(NamedTuple):
    """One file's part of the cross-file index, from the per-file phase's own parse.

    Built by :func:`index_file` in the process (a ``--jobs`` pool worker or the parent)
    that analysed the file, and returned with its outcome (small and picklable), so
    that the caller phase (:func:`plan`: hints, ``--thread-config``) never parses a file
    the run already analysed (issue 13). Only a file with a PPO002 entry point gets one
    in the per-file phase (:func:`ppo_migrate.edits.has_entry_point`); the caller phase
    indexes any other file it needs itself, once per process.

    Attributes:
        path: the display path.
        stamp: ``(st_mtime_ns, st_size)`` of the file as it was read; the record is
            used only while the file on disk still has them (a file rewritten by
            ``apply`` is parsed again: its text is no longer the one analysed).
        defs: fq name -> :class:`FunctionInfo` of every ``def`` (``__all__`` and
            duplicate definitions already accounted for).
        sites: every call whose callee resolves to a qualified name, one
            :class:`CallSite` per name it may call, in source order.
        values: fq -> the lines (in source order) of every other reference that
            resolves to it (read, assigned, deleted, an attribute, a parameter); grouped
            by name, as the caller phase looks them up (and each name is held once).
        assigned: attribute name -> the first line binding it other than by a ``def``
            (``Sub._env = f``, or ``_env = f`` in a class body): such a binding may
            override a method of that name.
        dynamic: name -> the first line binding it at run time (``setattr``, ``type``
            with a namespace, ``globals()[...] =``), ``"*"`` for any name: such a binding
            may replace any function or method of that name.
        decided: the callees whose sites and value references were collected, each site
            with its ``config`` decided (``None``: every callee's); the record holds
            nothing of another callee.
        method_calls: attribute name -> ``(line, column)`` of every call ``obj.name(...)``
            whose object is not a module (``l.start()``, ``self.runner.start()``,
            ``Sub(1).start()``): a call of a method of that name the plan may not
            attribute to it (a method whose calls cannot all be found is not threaded).
    """

    path: str
    stamp: tuple[int, int] | None
    defs: dict[str, FunctionInfo]
    sites: tuple[CallSite, ...]
    values: dict[str, tuple[int, ...]]
    assigned: dict[str, int]
    dynamic: dict[str, int]
    decided: frozenset[str] | None = None
    method_calls: dict[str, tuple[tuple[int, int], ...]] | None = None


def index_file(
    analysis,
    path: str,
    settings: Settings,
    stamp: tuple[int, int] | None,
    decide: frozenset[str] | None = None,
) -> FileIndex:
    """The :class:`FileIndex` of a module already analysed.

    Args:
        analysis: the file's :class:`ppo_migrate.rules.check.ModuleAnalysis` (its parse
            is reused; nothing is parsed again).
        path: the display path (it decides the module name, as in :func:`module_name`).
        settings: the run's settings (config names, ``unsafe_fixes``: which config each
            call site has).
        stamp: ``(st_mtime_ns, st_size)`` of the bytes analysed, or ``None`` (never reused).
        decide: collect the calls and references of these callees only, deciding the
            config at those calls (``None``: every callee's). Deciding the config is the
            dear part of a record (a file of verl's trainers holds hundreds of calls inside
            classes with a ``self.config``), resolving every reference the next.
    """
    facts = _AstFacts(path, None if decide is None else set(decide), settings, analysis, decide)
    defs: dict[str, FunctionInfo] = {}
    for fq, (_, info) in facts.defs.items():
        if info.qualname in facts.exported and "." not in info.qualname:
            info = info._replace(block="it is exported in `__all__`, so it may be called from outside")
        defs[fq] = info
    values: dict[str, list[int]] = defaultdict(list)
    for (_, line), fq in zip(facts.values, facts.values_fq):
        values[fq].append(line)
    return FileIndex(
        path, stamp, defs, tuple(site for _, site in facts.sites),
        {fq: tuple(lines) for fq, lines in values.items()},
        facts.assigned,
        facts.dynamic,
        decide,
        {name: tuple(at) for name, at in facts.method_calls.items()},
    )


#: :func:`_relative_package`'s memo among the run's (:meth:`ppo_migrate.project.snapshot.Snapshot.memo`;
#: :func:`run_module_name`'s is :data:`ppo_migrate.rules.reexports.MODULE_NAMES`, which
#: the re-exports' look-out fills first)
_RELATIVE_PACKAGES = "ppo_migrate.rules.callers.relative_packages"


def run_module_name(path: str) -> str:
    """:func:`ppo_migrate.project.modules.module_name` of ``path``, once a run per spelling
    (the run's snapshot keeps it: the re-exports' look-out, each file's caller record and
    the caller phase's plan ask it of the same files; the ``__init__.py`` files it is made
    from are the same all run long: a run rewrites files, it makes or removes none)."""
    memo = current().memo(MODULE_NAMES)
    found = memo.get(path)
    if found is None:
        found = memo[path] = module_name(path)
    return found


def _relative_package(path: str) -> tuple[str, ...]:
    """:func:`ppo_migrate.project.modules.package_for_relative_imports` of ``path``, once a
    run per spelling (as :func:`run_module_name`)."""
    memo = current().memo(_RELATIVE_PACKAGES)
    found = memo.get(path)
    if found is None:
        found = memo[path] = package_for_relative_imports(path)
    return found


def _stamp(path: str) -> tuple[int, int] | None:
    """``(st_mtime_ns, st_size)`` of ``path`` as the run sees it (an overlaid file's own
    stamp in a preview: :meth:`ppo_migrate.project.snapshot.Snapshot.stamp`); ``None``
    when it cannot be stat-ed."""
    try:
        return current().stamp(path)  # once a run
    except (OSError, ValueError):
        return None


class _AstFacts:
    """One file's part of the cross-file index, found by the analysis core on Python's
    ``ast`` (no LibCST parse): the file's function definitions, the calls of the ``wanted``
    functions (with the config each caller has, from the same resolver as ``check``),
    references to them as values, and the names ``__all__`` exports.

    Args:
        path: the display path.
        wanted: fq names whose calls and references are collected; ``None``: every
            name a call or reference resolves to (:func:`index_file`'s record).
        settings: the run's settings.
        analysis: the file's :class:`ppo_migrate.rules.check.ModuleAnalysis` when it
            is at hand (no parse here); otherwise the file is read and parsed, once per
            process (:func:`_analysis`).

    Attributes: ``defs`` (fq -> ``(None, FunctionInfo)``), ``sites`` (``(None,
    CallSite)`` pairs), ``values``/``values_fq`` (the path and line of each other
    reference, and the fq name it resolves to) and ``exported`` (``__all__``'s names).
    """

    def __init__(
        self,
        path: str,
        wanted: set[str] | None,
        settings: Settings,
        analysis=None,
        decide: frozenset[str] | None = None,
    ) -> None:
        import ast

        self.path = path
        self.decide = decide
        self.module = run_module_name(path)
        self.package = _relative_package(path)
        self.settings = settings
        if analysis is None:
            analysis = _analysis(path, settings, self.package, ModuleAnalysis)
        self.analysis = a = analysis
        #: ``id(frames) -> qualname(frames)`` (:meth:`_site`; the frames tuples are the
        #: analysis's, alive as long as it is)
        self._scope_names: dict[int, str] = {}
        self.defs: dict[str, tuple[None, FunctionInfo]] = {}
        self.sites: list[tuple[None, CallSite]] = []
        self.values: list[tuple[str, int]] = []
        self.values_fq: list[str] = []
        self.exported: set[str] = set()
        #: attribute name -> first line where it is bound other than by a ``def``: an
        #: attribute store (``Sub._env = f``) or a class-body assignment (``_env = f``)
        self.assigned: dict[str, int] = {}
        m = a.module
        def_lines: dict[str, list[int]] = defaultdict(list)
        functions = sorted(
            (n for n in m.facts.binders if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))),
            key=lambda n: (n.lineno, n.col_offset),
        )
        # a module that never spells ``config`` in ASCII text: no function of it can use
        # that name, and no function's text is cut out to ask
        plain = CONFIG_PARAMETER not in m.text and m.text.isascii()
        for node in functions:
            frames = a.frames(node)
            name = qualname((*frames, ("function", node.name)))
            fq = f"{self.module}.{name}"
            if plain:
                param = CONFIG_PARAMETER
            else:
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                segment = "\n".join(m.lines[first - 1 : node.end_lineno])
                # the text never spells ``config``: no identifier in it can be that name
                # (non-ASCII text may spell it otherwise: ``ｃonfig`` is ``config`` to Python)
                fast = CONFIG_PARAMETER not in segment and segment.isascii()
                param = CONFIG_PARAMETER if fast else _ast_param_name(node, segment)
            cls = qualname(frames) if frames and frames[-1][0] == "class" else None
            def_lines[fq].append(node.lineno)
            self.defs[fq] = (None, FunctionInfo(fq, path, name, node.lineno, self._block(node, name, param), param, cls))
        for fq, lines in def_lines.items():
            if len(lines) > 1:
                shown = ", ".join(map(str, lines[:-1])) + f" and {lines[-1]}"
                self.defs[fq] = (None, self.defs[fq][1]._replace(block=f"it is defined more than once (lines {shown})"))
        # ``__all__`` is spelled so in ASCII text (NFKC may make it of other characters)
        exports = "__all__" in m.text or not m.text.isascii()
        for stmt in _module_level_statements(m.tree) if exports else ():
            if isinstance(stmt, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets
            ):
                for e in getattr(stmt.value, "elts", ()):
                    if isinstance(e, ast.Constant) and isinstance(e.value, str):
                        self.exported.add(e.value)
        #: name -> first line of a binding made by name at run time (``setattr(o, "f", g)``,
        #: ``type("C", bases, {"f": g})``, ``globals()["f"] = g``); ``"*"`` when the name
        #: is not a literal (then any name may be bound)
        self.dynamic: dict[str, int] = {}
        env: dict[str, str] | None = None  # the file's strings, read for a name not literal only
        for call in m.facts.calls:
            bound = _dynamic_names(call)
            if "*" in bound:
                if env is None:
                    env = string_env(m.tree)
                bound = _dynamic_names(call, env)
            for name in bound:
                self.dynamic.setdefault(name, call.lineno)
        for node in m.facts.attributes:
            if isinstance(node.ctx, ast.Store):
                self.assigned.setdefault(node.attr, node.lineno)
                if node.attr in FUNCTION_BODY:  # ``launch.__code__ = old.__code__``: ``launch``
                    swapped = _full_name_parts(node.value)
                    if swapped:
                        self.dynamic.setdefault(swapped[-1], node.lineno)
        for node in m.facts.binders:
            if isinstance(node, ast.Name) and isinstance(m.facts.parents.get(id(node)), (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                if a.scopes.scope_of(node).kind is ScopeKind.CLASS:
                    line = self.assigned.get(node.id)
                    self.assigned[node.id] = min(line, node.lineno) if line else node.lineno
        for node in ast.walk(m.tree) if _spells_namespace(m.text) else ():
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and _is_namespace(node.value):
                key = node.slice
                name = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else "*"
                self.dynamic.setdefault(name, node.lineno)
        if wanted is not None and not wanted:
            return

        def chosen(fqs: set[str]) -> set[str]:
            return fqs if wanted is None else fqs & wanted

        # what the caller phase asks of a record is the sites and value references of
        # functions, each a ``def``'s fully qualified name (``module.qualname``) or one
        # under a namespace prefix (:func:`_scan`): a reference that resolves to a local
        # name only, whose head is no part of a ``def``'s qualified name here, names no
        # function (a parameter ``config``, its ``config.trainer``) and is not resolved
        self._def_parts: set[str] = {part for _, info in self.defs.values() for part in info.qualname.split(".")}
        self._import_names = {
            alias.asname or alias.name.split(".", 1)[0]
            for statement in m.facts.imports
            for alias in statement.names
            if alias.name != "*"
        }
        self._stars = bool(a.targets.star_modules())

        may_name = _name_filter(m.facts.imports, wanted)
        call_funcs = {id(c.func) for c in m.facts.calls}
        #: (see :attr:`FileIndex.method_calls`)
        self.method_calls: dict[str, list[tuple[int, int]]] = defaultdict(list)
        method_names = None if wanted is None else {fq.rsplit(".", 1)[-1] for fq in wanted}
        for call in sorted(m.facts.calls, key=lambda c: (c.lineno, c.col_offset)):
            func = call.func
            if (
                isinstance(func, ast.Attribute)
                and (method_names is None or func.attr in method_names)
                and not self._on_module(func.value)
            ):
                self.method_calls[func.attr].append(a.module.start(call))
            if not may_name(func) or self._local_only(func):
                continue
            every = self._fqs(func)
            if chosen(every):
                self._site(call, every, chosen(every))
        # every use that is not a call, as LibCST's visitor saw them: names read, assigned
        # or deleted (rebinding a function is a use too), attributes, parameter names
        refs = [n for names in m.facts.loads.values() for n in names]
        refs += [n for n in m.facts.binders if isinstance(n, ast.Name)]
        refs += m.facts.attributes
        args = [
            (a, f) for f in m.facts.binders
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            for a in all_args(f.args)
        ]
        seen: set[int] = set()
        for node in sorted(refs, key=lambda n: (n.lineno, n.col_offset)):
            if id(node) in seen:
                continue
            seen.add(id(node))
            if id(node) in call_funcs:
                continue  # a call: recorded as a site
            if not may_name(node) or self._local_only(node):
                continue
            for fq in sorted(chosen(self._fqs(node))):
                self.values.append((path, node.lineno))
                self.values_fq.append(fq)
        prefixes: dict[int, str] = {}  # a function's local prefix, once per function
        def_parts = self._def_parts
        for arg, func in args:
            if arg.arg not in def_parts:
                continue  # ``module.f.<locals>.config``: the name of no ``def`` here
            holder = a.targets.function_scope(arg)
            if holder is None:
                continue
            prefix = prefixes.get(id(holder))
            if prefix is None:
                prefix = prefixes[id(holder)] = f"{self.module}.{_local_prefix(a, holder)}"
            fq = prefix + arg.arg
            if wanted is None or fq in wanted:
                self.values.append((path, arg.lineno))
                self.values_fq.append(fq)

    def _block(self, node, name: str, param: str) -> str | None:
        import ast

        for d in node.decorator_list:
            if not (isinstance(d, ast.Name) and d.id in _TRANSPARENT_DECORATORS):
                code = self.analysis.module.source_of(d)
                return f"it is decorated with `@{code}`, so its calls cannot all be found"
        if "<lambda>" in name:
            return "it is defined inside a lambda"
        if node.args.kwarg is not None:
            return (
                f"it takes `**{node.args.kwarg.arg}`, so a `{param}=` keyword "
                "may already flow through it"
            )
        return None

    def _fqs(self, node) -> set[str]:
        return reference_fqs(self.analysis, self.module, self.package, node)

    def _local_only(self, node) -> bool:
        """Whether every name :func:`reference_fqs` may resolve ``node`` to is a local one
        of this module that no ``def`` of it has (so no function's, whichever file's: the
        caller phase asks a record only of the qualified names of defs), decided without
        resolving it: its head is bound by no import and is no part of a ``def``'s
        qualified name here, and no star import may bind it; for ``x.attr``, whose
        ``x`` may be a method's ``self`` (the class's ``attr``), ``attr`` is none either.
        ``False`` when unsure (then the reference is resolved)."""
        import ast

        def_parts = self._def_parts
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr in def_parts:
            return False
        parts = _full_name_parts(node)
        if parts is None:
            return True  # :func:`reference_fqs` resolves it to nothing
        head = parts[0]
        if head in def_parts or head in self._import_names:
            return False
        a = self.analysis
        holder = a.scopes.scope_of(node).lookup(head)
        if (holder is None or holder is a.scopes.module) and self._stars:
            return False  # ``from m import *`` may bind it: ``m.head``
        return True

    def _on_module(self, node) -> bool:
        """Whether ``node`` (the object of an attribute call) is a module: a name every
        binding of which is an ``import`` statement (``import os``, ``import a.b as c``),
        or an attribute of one (``os.path``). A ``from m import x`` may bind a class."""
        import ast

        while isinstance(node, ast.Attribute):
            node = node.value
        if not isinstance(node, ast.Name):
            return False
        a = self.analysis
        scope = a.scopes.scope_of(node)
        memo = a.targets.memo(_ON_MODULE)
        key = (id(scope), node.id)
        known = memo.get(key)
        if known is None:  # once per scope and name (``self.x.f()``, ``os.path.join()``: many)
            holder = scope.lookup(node.id)
            bindings = a.targets.bindings_in(holder, node.id) if holder is not None else []
            known = memo[key] = bool(bindings) and all(isinstance(b.node, ast.Import) for b in bindings)
        return known

    def _site(self, call, every: set[str], fqs: set[str]) -> None:
        import ast

        a = self.analysis
        frames = a.frames(call)
        # spelled once per scope (the frames are the analysis's, kept per scope: a file's
        # calls sit in a few functions)
        scope = self._scope_names.get(id(frames))
        if scope is None:
            scope = self._scope_names[id(frames)] = qualname(frames)
        caller = None
        if frames and frames[-1][0] == "function" and frames[-1][1] != "<lambda>":
            caller = f"{self.module}.{scope}"
        decided = self.decide is None or not self.decide.isdisjoint(fqs)
        choice = a.config_at(call) if decided else None
        config = None
        if choice is not None and (choice.applicability == "safe" or getattr(self.settings, "unsafe_fixes", False)):
            config = choice.expression
        keywords = frozenset(k.arg for k in call.keywords if k.arg is not None)
        starred = [(x.lineno, x.col_offset, a.module.source_of(x)) for x in call.args if isinstance(x, ast.Starred)]
        starred += [(k.lineno, k.col_offset, a.module.source_of(k)) for k in call.keywords if k.arg is None]
        unpacked = min(starred)[2] if starred else None
        line, column = a.module.start(call)
        for fq in sorted(fqs):
            others = tuple(sorted(every - {fq}))
            self.sites.append((None, CallSite(path=self.path, line=line, column=column, callee=fq, caller=caller, caller_scope=scope, config=config, keywords=keywords, unpacked=unpacked, others=others)))


def reference_fqs(analysis, module: str, package: tuple[str, ...], node) -> set[str]:
    """The fully qualified names a reference may resolve to, as the caller phase spells them.

    Args:
        analysis: the file's :class:`ppo_migrate.rules.check.ModuleAnalysis`.
        module: the file's dotted module name (:func:`module_name`).
        package: its package parts (:func:`ppo_migrate.project.modules.module_package`).
        node: an ``ast.Name``, ``ast.Attribute`` (or a call or subscript ending in one)
            of that file's tree.

    Returns:
        ``{"pkg.mod.run_ppo"}`` for ``run_ppo`` bound by ``from pkg.mod import run_ppo``
        (or ``mod.run_ppo`` with ``from pkg import mod``); ``"<module>.Cls.f"`` for
        ``self.f`` in a method of ``Cls``; a name bound by ``from m import *`` may be
        ``m``'s too; empty when nothing is known (a ``self`` that is not the method's own).
    """
    import ast

    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        # ``self.f`` (any spelling of an instance method's first parameter): the class's f
        method = analysis.targets.instance_method_of(node.value, node.value.id)
        if method is not None:
            return {f"{module}.{qualname(scope_frames(method.parent))}.{node.attr}"}
        if node.value.id == "self":
            return set()  # a ``self`` that is not the method's own: nothing known
    parts = _full_name_parts(node)
    if parts is None:
        return set()
    stars, qualified, local = _heads(analysis, module, analysis.scopes.scope_of(node), parts[0])
    out: set[str] = set()
    for star in stars:
        out.add(".".join((star, *parts)))
    for q in qualified:
        r = resolve_relative(".".join((q, *parts[1:])), package)
        if r is not None:
            out.add(r)
    if local is not None:
        out.add(local + ".".join(parts))
    return out


def _heads(analysis, module: str, scope, name: str) -> tuple[list[str], list[str], str | None]:
    """What a read of ``name`` evaluated in ``scope`` may stand for, as
    :func:`reference_fqs` joins it with the attributes read after it: the star-imported
    modules that may bind it, the qualified names its imports bind, and the local prefix
    (``"mod.Cls."``) when another statement binds it (``None``: none does).

    Once per file, scope and name (kept by the analysis's
    :class:`ppo_migrate.rules.targets.TargetFinder`: a file reads the same few names
    in each of its functions), as Python's lookup rules decide it
    (:meth:`ppo_migrate.rules.scopes.Scope.lookup`)."""
    a = analysis
    memo = a.targets.memo(_HEADS)
    key = (id(scope), name, module)
    known = memo.get(key)
    if known is not None:
        return known
    holder = scope.lookup(name)
    # ``from m import *`` may bind the name too (a later one rebinds it)
    stars = list(a.targets.star_modules()) if holder is None or holder is a.scopes.module else []
    qualified: list[str] = []
    local = None
    if holder is not None:
        for b in a.targets.bindings_in(holder, name):
            if b.qualified is not None:
                qualified.append(b.qualified)
            elif local is None:
                local = f"{module}.{_local_prefix(a, holder)}"
    memo[key] = known = (stars, qualified, local)
    return known


#: :meth:`_AstFacts._on_module`'s memo's name among the file's
_ON_MODULE = "ppo_migrate.rules.callers.on_module"
#: :func:`_heads`' memo's name among the file's (:meth:`ppo_migrate.rules.targets.TargetFinder.memo`)
_HEADS = "ppo_migrate.rules.callers.heads"


#: ``globals()``, ``vars(``, ``locals()``, ``.__dict__``: a file that spells none of them
#: stores no name through a namespace, and its tree is not walked for one (``env_vars``
#: alone, frequent in trainers, does not count)
_NAMESPACE_WORDS = re.compile(r"\b(?:globals|vars|locals)\s*\(|__dict__")


def _spells_namespace(text: str) -> bool:
    """Whether ``text`` matches :data:`_NAMESPACE_WORDS`: the pattern is tried only on a
    text holding one of its words (most files hold none, and a substring test is a
    fraction of the pattern's scan)."""
    if "__dict__" in text:
        return True
    if "globals" not in text and "vars" not in text and "locals" not in text:
        return False
    return _NAMESPACE_WORDS.search(text) is not None


def _folder(path: str) -> str:
    import os

    return os.path.dirname(os.path.abspath(path))


def _dynamic_names(call, env: dict[str, str] | None = None) -> list[str]:
    """The names ``call`` binds at run time: ``setattr(o, "f", v)`` -> ``["f"]``,
    ``type("C", bases, {"f": v, **d})`` -> ``["f", "*"]``; ``"*"`` for a name that is
    not a string literal. The patchers are the one table's
    (:data:`ppo_migrate.rules.patches.PATCHERS`: ``monkeypatch.setattr(lib, "f", g)``,
    ``mock.patch("pkg.lib.f", new=g)``, ``mock.patch.object(lib, "f")``,
    ``mock.patch.multiple(lib, f=g)``, ``mock.patch.dict(lib.__dict__, {...})``,
    ``monkeypatch.setitem(sys.modules, "app.lib", fake)``: ``"lib"``, the module itself
    replaced); each binds the last dotted part of the name it is given, read from the
    strings the file's names hold (``env``: :func:`ppo_migrate.rules.patches.string_env`)
    where it is built at run time (``"init_" + "ray"``)."""
    import ast

    names = replaced_names(call, env)
    if names:
        return names
    func = call.func
    if isinstance(func, ast.Name) and func.id == "type" and len(call.args) == 3:
        namespace = call.args[2]
        if not isinstance(namespace, ast.Dict):
            return ["*"]
        return [k.value if isinstance(k, ast.Constant) and isinstance(k.value, str) else "*" for k in namespace.keys]
    return []


def _name_filter(imports, wanted: set[str] | None):
    """``may_name(node)``: whether a reference could resolve to one of ``wanted`` (fq
    names; ``None``: any), judged on its last name before :func:`reference_fqs` resolves it.
    A qualified name it resolves to ends with the reference's last name (``mod.f``,
    ``self.f``, ``f``, ``Runner(cfg).f``), or, for a bare name an import binds, with the
    name imported (``from m import f as g``: ``g``). ``imports``: the module's import
    statements (:attr:`ppo_migrate.rules.module.ModuleFacts.imports`, from its one walk)."""
    import ast

    if wanted is None:
        return lambda node: True
    lasts = {fq.rsplit(".", 1)[-1] for fq in wanted}
    aliases: set[str] = set()
    for statement in imports:
        for alias in statement.names:
            bound = alias.asname or alias.name.split(".")[0]
            source = alias.name if alias.asname else alias.name.split(".")[0]
            if source.rsplit(".", 1)[-1] in lasts:
                aliases.add(bound)

    def may_name(node) -> bool:
        if isinstance(node, ast.Name):
            return node.id in lasts or node.id in aliases
        if isinstance(node, ast.Attribute):
            return node.attr in lasts
        parts = _full_name_parts(node)
        return parts is not None and (parts[-1] in lasts or (len(parts) == 1 and parts[0] in aliases))

    return may_name


def _is_namespace(node) -> bool:
    """``globals()``, ``vars(...)``, ``locals()`` or ``<x>.__dict__``: a mapping whose keys are names."""
    import ast

    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in ("globals", "vars", "locals")
    return isinstance(node, ast.Attribute) and node.attr == "__dict__"


def _full_name_parts(node) -> list[str] | None:
    """The dotted name LibCST's ``get_full_name_for_node`` reads (a call or subscript in the
    chain stands for what it calls or indexes: ``Runner(cfg).start`` is ``Runner.start``,
    ``make()()`` is ``make``), as parts; ``None`` when it does not end in a name. Counting
    such calls as calls of the named function keeps the plan conservative."""
    import ast

    parts: list[str] = []
    while True:
        if isinstance(node, ast.Name):
            parts.append(node.id)
            parts.reverse()
            return parts
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Subscript):
            node = node.value
        else:
            return None


def _local_prefix(analysis, holder) -> str:
    """LibCST's spelling of a local qualified name's prefix: ``""`` at module level,
    ``"Cls."`` in a class body, ``"outer.<locals>."`` in a function."""
    frames = scope_frames(holder)
    if not frames:
        return ""
    return qualname(frames) + (".<locals>." if frames[-1][0] == "function" else ".")


def _module_level_statements(tree):
    """Statements run at module level (inside if/try/with/for blocks too, not in defs or classes)."""
    import ast

    stack = list(reversed(tree.body))
    while stack:
        stmt = stack.pop()
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for block in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(stmt, block, None)
            if isinstance(inner, list):
                stack.extend(reversed([x for x in inner if isinstance(x, (ast.stmt, ast.excepthandler))]))


def _ast_param_name(node, text: str | None = None) -> str:
    """:func:`_param_name` on ``ast``: the first of ``config``, ``ppo_config``, ... that no
    identifier in the function uses (names, parameters, attributes, keywords, imports).

    Args:
        node: the function's ``ast`` node.
        text: its source text, if at hand: in ASCII text a name it does not spell is
            used by no identifier, so the walk stops as soon as the names before it are
            seen used (``def run(config)``: at its parameter).
    """
    plain = text is not None and text.isascii()
    # its parameters are identifiers it uses (the walk would meet them too): a ``def
    # run(config)`` is decided without a walk
    used: set[str] = {a.arg for a in all_args(node.args)} if hasattr(node, "args") else set()
    seen = _identifiers(node)
    for candidate in _PARAM_CANDIDATES:
        if candidate in used:
            continue
        if plain and candidate not in text:  # type: ignore[operator]
            return candidate
        for name in seen:  # the walk goes on where it stopped
            used.add(name)
            if name == candidate:
                break
        else:
            if candidate not in used:
                return candidate
    return "ppo_config_thread"  # pragma: no cover


def _identifiers(node) -> Iterator[str]:
    """Every identifier the function at ``node`` uses, in ``ast.walk``'s order (names,
    parameters, attributes, keywords, definitions, imported modules' parts and aliases,
    ``global``/``nonlocal``, handlers' and patterns' names)."""
    import ast

    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            yield n.id
        elif isinstance(n, ast.arg):
            yield n.arg
        elif isinstance(n, ast.Attribute):
            yield n.attr
        elif isinstance(n, ast.keyword) and n.arg:
            yield n.arg
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield n.name
        elif isinstance(n, ast.ImportFrom) and n.module:
            yield from n.module.split(".")
        elif isinstance(n, ast.alias):
            yield from n.name.split(".")
            if n.asname:
                yield n.asname
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            yield from n.names
        elif isinstance(n, ast.ExceptHandler) and n.name:
            yield n.name
        elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
            yield n.name
        elif isinstance(n, ast.MatchMapping) and n.rest:
            yield n.rest


#: the parameter names :func:`_ast_param_name` tries, in order (made once: the tuple
#: spelled in the loop formatted its 98 names again at every function naming ``config``)
_PARAM_CANDIDATES = (CONFIG_PARAMETER, "ppo_config", *(f"ppo_config_{i}" for i in range(2, 100)))


def _entry_functions(
    diagnostics: Iterable[Diagnostic], index_of, index: _Index, module_of=module_name,
) -> dict[tuple[str, int, int], str]:
    """Map each PPO002 (path, line, column) to the fq name of its enclosing function.
    ``module_of``: a path's module name (:func:`ppo_migrate.project.modules.module_name`;
    :func:`plan` hands in its own memo of it, which it asks of every file again)."""
    by_path: dict[str, list[Diagnostic]] = defaultdict(list)
    for d in diagnostics:
        if d.code == "PPO002" and d.scope != "<module>":
            by_path[d.path].append(d)
    result: dict[tuple[str, int, int], str] = {}
    for path, diags in by_path.items():
        found = index_of(path)
        if found is None:  # the file changed or cannot be parsed now: no hints for it
            continue
        index.records.setdefault(path, found)
        for fq, info in found.defs.items():
            index.functions.setdefault(fq, info)
        module = module_of(path)
        for d in diags:
            fq = f"{module}.{d.scope}"
            if fq in found.defs:
                result[(d.path, d.line, d.column)] = fq
    return result


_MISSING = object()


def _indexer(settings: Settings, given: Mapping[str, FileIndex] | None):
    """``index_of(path)``: the per-file phase's record of ``path`` while the file is
    unchanged (``given``, else those the run's reference index holds:
    :attr:`ppo_migrate.project.references.References.per_file`), else a record built here
    from one parse, kept by the index (:attr:`~ppo_migrate.project.references.References.records`;
    outside a run, the process's); ``None`` when the file cannot be read or parsed now."""
    index = current_references()
    given = given if given is not None else index.per_file

    def index_of(path: str, callees: set[str] | None = None) -> FileIndex | None:
        """``callees``: the sites' configs needed (``None``: all); a record kept from an
        earlier round that did not decide them is built again, deciding both."""
        stamp = _stamp(path)
        record = given.get(path)
        if record is not None and stamp is not None and record.stamp == stamp:
            return record
        key = (path, stamp, settings.targets, settings.config_names,
               bool(getattr(settings, "unsafe_fixes", False)))
        kept = index.records.get(key, _MISSING)
        if kept is not _MISSING and (
            kept is None or kept.decided is None
            or (callees is not None and callees <= kept.decided)
        ):
            return kept
        decide = None
        if callees is not None:
            decide = frozenset(callees) | (kept.decided if kept is not _MISSING else frozenset())
        try:
            analysis = _analysis(path, settings, _relative_package(path), ModuleAnalysis)
            built: FileIndex | None = index_file(analysis, path, settings, stamp, decide)
        except Exception:  # unreadable or unparsable: reported by the main pass already
            built = None
        index.keep_record(key, built)
        return built

    return index_of


def _scan(files: Sequence[str], wanted: set[str], index_of, index: _Index) -> None:
    """Find call sites and value references of ``wanted`` functions in ``files``: those the
    run's reference index says may call one
    (:meth:`ppo_migrate.project.references.References.referrers`) are indexed."""
    todo = wanted - index.scanned
    if not todo:
        return
    index.scanned |= todo
    # ``ns.lib.launch`` is ``lib.launch`` of ``ns/lib.py`` (a folder without
    # ``__init__.py``: :func:`namespace_prefixes`)
    as_wanted = {fq: fq for fq in todo}
    for fq in todo:
        info = index.functions.get(fq)
        for prefix in namespace_prefixes(info.path) if info is not None else ():
            as_wanted.setdefault(f"{prefix}.{fq}", fq)
    asked = set(as_wanted)
    for ref in current_references().referrers(files, _asked(todo, index), calls=True):
        if not ref.spells:
            # a file that never spells the name may still replace it by a name built at
            # run time (``mock.patch.object(launcher, "init_" + "ray", fake)``)
            for name, line in computed_bindings(ref.path, ref.data, todo):
                index.dynamic.setdefault(name, (ref.path, line))
            continue
        if not ref.refers:
            continue
        path = ref.path
        found = index_of(path, asked)
        if found is None:
            continue
        index.records.setdefault(path, found)
        for attr, line in found.assigned.items():
            index.assigned.setdefault(attr, (path, line))
        for name, line in found.dynamic.items():
            index.dynamic.setdefault(name, (path, line))
        for name, at in (found.method_calls or {}).items():
            index.method_calls[name].extend((path, line, column) for line, column in at)
        for fq, info in found.defs.items():
            index.functions.setdefault(fq, info)
        for site in found.sites:
            if site.callee in as_wanted:
                fq = as_wanted[site.callee]
                index.sites[fq].append(site if fq == site.callee else site._replace(callee=fq))
        for spelled in sorted(asked & found.values.keys()):
            index.values[as_wanted[spelled]].extend((path, line) for line in found.values[spelled])


def _asked(todo: set[str], index: _Index) -> list[Wanted]:
    """What the reference index is asked of the ``todo`` functions: each module-level
    function's name with its module and its file (another file calls ``pkg.mod.f`` or
    refers to it only through an import that names ``mod``; :func:`reference_fqs` does not
    follow re-exports); the names alone (no module) when one is a method (its calls
    ``obj.f()`` name no module) or not known yet."""
    out = []
    for fq in todo:
        info = index.functions.get(fq)
        if info is None or info.cls is not None or "<" in info.qualname:
            return [Wanted(fq.rsplit(".", 1)[-1]) for fq in todo]
        out.append(Wanted(info.qualname, fq[: -len(info.qualname) - 1], info.path))
    return out


class Plan(NamedTuple):
    """The outcome of following callers.

    Attributes:
        threadable: fq names of functions that get a config parameter.
        reasons: fq name -> why it cannot be threaded.
        index: everything found (functions, call sites, value references).
    """

    threadable: set[str]
    reasons: dict[str, str]
    index: _Index


def plan(
    files: Sequence[str],
    diagnostics: Sequence[Diagnostic],
    settings: Settings,
    *,
    depth: int = DEFAULT_DEPTH,
    indexes: Mapping[str, FileIndex] | None = None,
) -> tuple[Plan, dict[tuple[str, int, int], str]]:
    """Find the callers of every function enclosing a PPO002 and decide what can be threaded.

    Args:
        files: every file of the run (callers may sit in files that never name
            the runtime function).
        diagnostics: the main pass's diagnostics.
        settings: the run's settings (config names).
        depth: how many levels of callers may be threaded (default 3).
        indexes: display path -> :class:`FileIndex` from the per-file phase; a file
            with an up-to-date record is not parsed here (the others are, once).
            ``None``: those the run's reference index holds (the runner files them there:
            :meth:`ppo_migrate.project.references.References.file_records`).

    Returns:
        ``(plan, entries)`` where ``entries`` maps each PPO002's (path, line,
        column) to its enclosing function's fq name.
    """
    index = _Index()
    index_of = _indexer(settings, indexes)
    modules: dict[str, str] = {}  # path -> its module name, asked once a path here

    def module_of(path: str) -> str:
        found = modules.get(path)
        if found is None:
            found = modules[path] = run_module_name(path)
        return found

    entries = _entry_functions(diagnostics, index_of, index, module_of)
    frontier = set(entries.values())
    for _ in range(depth):
        if not frontier:
            break
        _scan(files, frontier, index_of, index)
        frontier = {
            s.caller
            for fq in frontier
            for s in index.sites.get(fq, ())
            if s.config is None and s.caller is not None and s.caller not in index.scanned
        }
    threadable: set[str] = set()
    reasons: dict[str, str] = {}
    unsure = {
        entries[key]: d.reason.text
        for d in diagnostics
        if d.code == "PPO002"
        and d.reason is not None
        and d.reason.kind in UNSURE_CALLEE_KINDS
        and (key := (d.path, d.line, d.column)) in entries
    }
    paths_of_module: dict[str, list[str]] = defaultdict(list)
    for path in files:
        paths_of_module[module_of(path)].append(path)
    methods: dict[str, list[FunctionInfo]] = defaultdict(list)
    for info in index.functions.values():
        if info.cls is not None:
            methods[info.fq.rsplit(".", 1)[-1]].append(info)

    def overridden(info: FunctionInfo) -> str | None:
        """Why a method may not be the one a call reaches (another class defines it too)."""
        if info.cls is None:
            return None
        owner = info.fq.rsplit(".", 1)[0]
        others = sorted(
            (m for m in methods[info.fq.rsplit(".", 1)[-1]] if m.fq.rsplit(".", 1)[0] != owner),
            key=lambda m: (m.path, m.line),
        )
        if others:
            o = others[0]
            return f"a method of the same name is defined in `{o.cls}` ({o.path}:{o.line}), which may override it"
        name = info.fq.rsplit(".", 1)[-1]
        if name in index.assigned:
            path, line = index.assigned[name]
            return f"`{name}` is assigned as an attribute at {path}:{line}, which may override it"
        # a subclass in a file outside the given paths (pre-commit passes only staged
        # files) would keep a signature without the new parameter
        outside = current_references().spelled_beyond(_project_root(os.path.abspath(info.path)), name, files)
        if outside:
            return (
                f"{outside} mentions `{name}` but was not analysed, so a subclass there may "
                "override it (run on the whole project)"
            )
        return None

    def rebound(info: FunctionInfo) -> str | None:
        """Why ``info``'s name may be bound to another function at run time."""
        name = info.fq.rsplit(".", 1)[-1]
        # a module-level function's module replaced too (``mock.patch("app.lib", fake)``:
        # ``app.lib.init_ray`` is then the fake's)
        module = info.fq[: -len(info.qualname) - 1].rpartition(".")[2]
        for key in (name, module, "*") if info.cls is None else (name, "*"):
            if key in index.dynamic:
                path, line = index.dynamic[key]
                what = f"`{key}`" if key != "*" else "a name not known before it runs"
                return f"{path}:{line} binds {what} at run time (setattr, a mock's patch, type or a namespace), which may replace it"
        return None

    def ambiguous_module(info: FunctionInfo) -> str | None:
        """Why the module of ``info`` may not be the one a call imports (two analysed files
        have that module name: scripts in different folders, each with its ``utils.py``)."""
        module = info.fq[: -len(info.qualname) - 1]
        paths = paths_of_module.get(module, [])
        others = sorted(p for p in paths if p != info.path)
        if not others:
            return None
        return f"its module `{module}` is also {others[0]}, so which file a call imports is not known"

    def unattributed(info: FunctionInfo) -> str | None:
        """Why a method's calls may not all be known: a call ``obj.name(...)`` on an object
        the plan did not attribute to it (``l = Launcher(1); l.start()``; a tester's
        ``--thread-config`` left that path without the config, and ``check`` then passed)."""
        if info.cls is None:
            return None
        name = info.fq.rsplit(".", 1)[-1]
        known = {(s.path, s.line, s.column) for s in index.sites.get(info.fq, ())}
        for path, line, column in sorted(index.method_calls.get(name, ())):
            if (path, line, column) not in known:
                return (
                    f"`.{name}(...)` is called at {path}:{line} on an object that may be of its "
                    "class, so its calls cannot all be found"
                )
        return None

    def clash(info: FunctionInfo, sites: Sequence[CallSite]) -> str | None:
        """Why passing ``param=`` at some call could clash with what it passes already, or
        may reach another function: a script module (in no package) is found through
        ``sys.path``, which starts with the running script's own folder."""
        script = not module_package(info.path)
        for s in sorted(sites, key=lambda s: (s.path, s.line, s.column)):
            if info.param in s.keywords:
                return f"its call at {s.path}:{s.line} already passes `{info.param}=`"
            if s.unpacked is not None:
                return f"its call at {s.path}:{s.line} passes `{s.unpacked}`, whose contents cannot be known"
            if s.others:
                return f"its call at {s.path}:{s.line} may reach `{s.others[0]}` instead (that name has several bindings there)"
            if script and _folder(s.path) != _folder(info.path):
                module = info.fq[: -len(info.qualname) - 1]
                return (
                    f"its call at {s.path}:{s.line} imports `{module}` from another folder, "
                    "so which file it reaches depends on sys.path"
                )
        return None

    def decide(fq: str, level: int, visiting: frozenset[str]) -> bool:
        if fq in threadable:
            return True
        if fq in reasons:
            return False
        if fq in unsure:  # issue 26: nothing says the verl in effect takes a config
            reasons[fq] = unsure[fq]
            return False
        info = index.functions.get(fq)
        name = fq.rsplit(".", 1)[-1]
        if info is None:
            reasons[fq] = f"the definition of `{name}` was not found"
            return False
        if info.block:
            reasons[fq] = info.block
            return False
        override = overridden(info) or ambiguous_module(info) or rebound(info) or unattributed(info)
        if override:
            reasons[fq] = override
            return False
        if index.values.get(fq):
            path, line = index.values[fq][0]
            reasons[fq] = f"it is referenced as a value at {path}:{line}, so its calls cannot all be found"
            return False
        sites = index.sites.get(fq, [])
        if not sites:
            reasons[fq] = "no call of it was found in the analysed paths (it may be called from outside them)"
            return False
        problem = clash(info, sites)
        if problem:
            reasons[fq] = problem
            return False
        # every caller is examined and every one that blocks is named, not just the first
        blocked: list[str] = []
        for s in sites:
            if s.config is not None:
                continue
            if s.caller is None:
                blocked.append(f"its caller at {s.path}:{s.line} ({s.caller_scope}) has no config in scope")
            elif s.caller in visiting:
                blocked.append(f"it is called recursively through `{s.caller_scope}`")
            elif level >= depth:
                blocked.append(
                    f"its caller `{s.caller_scope}` ({s.path}:{s.line}) has no config in scope "
                    f"and the call chain is deeper than {depth}"
                )
            elif not decide(s.caller, level + 1, visiting | {fq}):
                blocked.append(
                    f"its caller `{s.caller_scope}` ({s.path}:{s.line}) has no config in scope "
                    f"and cannot be threaded: {reasons[s.caller]}"
                )
        if blocked:
            reasons[fq] = _named(list(dict.fromkeys(blocked)))
            return False
        threadable.add(fq)
        return True

    for fq in sorted(set(entries.values())):
        decide(fq, 1, frozenset())
    return Plan(threadable, reasons, index), entries


def _project_root(path: str) -> Path:
    """The folder walked for files that may override a method of ``path``: the run's root
    (:meth:`ppo_migrate.project.snapshot.Snapshot.root_of`, decided once a run by
    :func:`ppo_migrate.project.root.project_root`: the git top level, else the nearest
    project marker); without one, the directory of ``path``'s top-level package."""
    found = current().root_of(path)
    if found is not None:
        return found
    root = Path(path).absolute().parent
    for _ in module_package(path):
        root = root.parent
    return root


def hint(diag: Diagnostic, fq: str | None, the_plan: Plan, *, threading: bool) -> Diagnostic:
    """The PPO002 diagnostic with caller hints added (message and related locations).

    Args:
        diag: a PPO002 diagnostic.
        fq: its enclosing function's fq name (``None`` at module level).
        the_plan: from :func:`plan`.
        threading: whether ``--thread-config`` was given (changes the advice).
    """
    if fq is None:
        return diag
    sites = the_plan.index.sites.get(fq, [])
    name = fq.rsplit(".", 1)[-1]
    related = tuple(
        Related(
            s.path,
            s.line,
            s.column,
            f"caller `{s.caller_scope}` has `{s.config}`" if s.config else f"caller `{s.caller_scope}` has no config in scope",
        )
        for s in sorted(sites, key=lambda s: (s.path, s.line, s.column))
    )
    with_config = list({(s.caller_scope, s.path, s.line, s.config): s for s in sites if s.config}.values())
    extra = ""
    if with_config:
        shown = ", ".join(f"`{s.caller_scope}` ({s.path}:{s.line}) has `{s.config}`" for s in with_config[:3])
        more = f" and {len(with_config) - 3} more" if len(with_config) > 3 else ""
        extra = f"; its caller{'s' if len(with_config) > 1 else ''} {shown}{more}"
    else:
        chain = _chain_to_config(fq, the_plan)
        if chain:
            middle, top = chain
            extra = (
                f"; its caller `{middle.caller_scope}` ({middle.path}:{middle.line}) has no config "
                f"in scope either, but `{top.caller_scope}` ({top.path}:{top.line}) further up "
                f"has `{top.config}`"
            )
    if fq in the_plan.threadable and not threading:
        extra += ": run with --thread-config to pass it through"
    elif fq in the_plan.reasons and (threading or sites or the_plan.index.values.get(fq)):
        extra += f"; `{name}` cannot be threaded: {the_plan.reasons[fq]}"
    if not extra:
        return diag
    return diag._replace(message=diag.message + extra, related=related)


def _chain_to_config(fq: str, the_plan: Plan) -> tuple[CallSite, CallSite] | None:
    """The first configless caller of ``fq`` and a call further up that has a config."""
    seen = {fq}
    for first in the_plan.index.sites.get(fq, ()):
        if first.config or first.caller is None:
            continue
        frontier = [first.caller]
        while frontier:
            current = frontier.pop(0)
            if current in seen:
                continue
            seen.add(current)
            for site in the_plan.index.sites.get(current, ()):
                if site.config:
                    return first, site
                if site.caller is not None:
                    frontier.append(site.caller)
    return None


# ----------------------------------------------------------------------------- rewriting


__all__ = ["CallSite", "FileIndex", "FunctionInfo", "index_file", "Plan", "hint", "module_name", "plan"]


#: How many blocking callers a "cannot be threaded" reason names before it counts the rest.
MAX_NAMED_CALLERS = 3


def _named(blocked: list[str]) -> str:
    """The reasons of the blocking callers, the first :data:`MAX_NAMED_CALLERS` in full and
    the rest counted, so that a function with many callers gets a message of a few lines
    (a fresh tester saw a 5,512-character one), not the whole call graph."""
    shown = "; ".join(blocked[:MAX_NAMED_CALLERS])
    more = len(blocked) - MAX_NAMED_CALLERS
    if more > 0:
        shown += f"; and {more} more caller{'s' if more != 1 else ''} without a config"
    return shown
