"""What the run's other files pass for a parameter a safe fix rests on.

A safe fix passes ``config`` because ``config`` is certainly bound and positively a
training config where it is used. When it is a parameter of a module-level function
(``def run_ppo(config)``) or of a method, ``self.config`` set from a parameter of a
class's ``__init__`` (or a dataclass field), or a module global, it is whatever every
caller passes (or another module writes), and the analysis of one file sees only that
file's uses (:meth:`ppo_migrate.rules.configs.ConfigFinder._callers_trust`).
A caller in another file may pass a section of the config or a plain dict
(``Worker(config=self.config.actor_rollout_ref)``, ``launch({"num_gpus": 8})``), and
verl's function raises on a dict (``OmegaConf.select``). So after the per-file phase,
:func:`judge_callers` reads the run's other files that spell the function's or class's
name, resolves each reference with the same core (:func:`ppo_migrate.rules.callers.reference_fqs`),
and judges what each call passes there with that file's own rules
(:meth:`ConfigFinder._passed_trust`). A fix with a caller passing anything not
positively a config, or a reference other than a call (the class handed to
``ray.remote``, a subclass, ``f = run_ppo``), becomes an unsafe fix
(:func:`with_verdicts`); callers outside the run's files stay unseen.
"""

from __future__ import annotations

import ast
import functools
import itertools
import os
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ppo_migrate.rules.callers import reference_fqs
from ppo_migrate.rules.check import ModuleAnalysis
from ppo_migrate.rules.configs import _UNPACKED, _passed_value
from ppo_migrate.rules.module import parsed_source
from ppo_migrate.rules.scopes import frames
from ppo_migrate.rules.targets import dotted_parts
from ppo_migrate.diagnostics import CallerOrigin, Diagnostic, Reason, Related, qualname
from ppo_migrate.files import decode_source, utf8_source
from ppo_migrate.patterns import lazy_pattern
from ppo_migrate.prefilter import is_candidate
from ppo_migrate.project.references import current_references, package_root
from ppo_migrate.project.snapshot import active, current
from ppo_migrate.project.modules import (
    module_name,
    module_package,
    namespace_prefixes,
    package_for_relative_imports,
)

if TYPE_CHECKING:
    from ppo_migrate.settings_model import Settings

#: Above this many names, a file's identifiers are collected once instead of searching
#: the bytes for each name.
_MANY_NAMES = 8
#: Files whose analysis a judgement keeps for its second pass (more are parsed again: memory).
_KEEP_PARSED = 4
#: Analyses made between two runs of the cycle collector (:func:`_collect`).
_COLLECT_EVERY = 4
_WORD = lazy_pattern(rb"[A-Za-z0-9_]")
_WORD_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
#: every byte but a letter, a digit or ``_`` made a space (:func:`_words`)
_WORDS_ONLY = bytes(b if b in _WORD_BYTES else 32 for b in range(256))
#: Up to this many bytes, a file asked of many names is split into its words
#: (:func:`_spelled`); a larger one is scanned with the names' regex.
_WORDS_UP_TO = 16_384


def pending_origins(diagnostics: Iterable[Diagnostic], verdicts: Mapping | None) -> set[CallerOrigin]:
    """The origins of safe fixes in ``diagnostics`` that ``verdicts`` does not judge yet."""
    known = verdicts or {}
    return {
        o
        for d in diagnostics
        if d.fix is not None and d.fix.applicability == "safe"
        for o in d.fix.origins
        if o not in known
    }


def with_verdicts(
    diagnostics: Sequence[Diagnostic], verdicts: Mapping[CallerOrigin, str | None]
) -> list[Diagnostic]:
    """``diagnostics`` with each safe fix a caller in another file argues against made
    unsafe (ruff's applicability: ``apply`` makes it only with ``--unsafe-fixes``), the
    reason added to its message.

    Args:
        diagnostics: one file's diagnostics.
        verdicts: :func:`judge_callers`'s answer: ``None`` for an origin no caller argues
            against, else the reason (``"b.py:12 passes `{'num_gpus': 8}`"``).
    """
    out: list[Diagnostic] = []
    for d in diagnostics:
        fix = d.fix
        reasons = (
            [verdicts[o] for o in fix.origins if verdicts.get(o) is not None]
            if fix is not None and fix.applicability == "safe"
            else []
        )
        if reasons and fix is not None:
            d = d._replace(
                message=f"{d.message} (unsafe fix: {reasons[0]})",
                fix=fix._replace(applicability="unsafe"),
                reason=_caller_reason(d, reasons[0]),
            )
        out.append(d)
    return out


class CallerVerdict(str):
    """:func:`judge_callers`'s reason against an origin: the text
    ``"<path>:<line> <what>"`` (a ``str``, as the messages quote it), with its parts kept
    for the structured :class:`Reason` (``path`` empty when no one place decided:
    ``"its uses reach further than followed"``)."""

    path: str
    line: int
    what: str

    def __new__(cls, path: str, line: int, what: str) -> CallerVerdict:
        self = super().__new__(cls, f"{path}:{line} {what}" if path else what)
        self.path, self.line, self.what = path, line, what
        return self

    def __getnewargs__(self) -> tuple[str, int, str]:  # type: ignore[override]
        return (self.path, self.line, self.what)


def _caller_reason(d: Diagnostic, verdict: str) -> Reason:
    """The ``caller-passes`` reason of a fix a caller in another file argues against."""
    expression = d.fix.message.removeprefix("Pass ") if d.fix is not None else "the config"
    path, line, what = (
        (verdict.path, verdict.line, verdict.what)
        if isinstance(verdict, CallerVerdict)
        else ("", 0, verdict)
    )
    if not path:
        return Reason(
            "caller-passes",
            f"{expression} comes from a parameter whose uses in other files were not all "
            f"followed ({what})",
        )
    if " in subclass `" in what or what.startswith("subclasses `"):
        # :meth:`_FileJudge._subclass`: no caller's argument, a subclass's own binding
        text = f"{expression} may hold another value: a subclass in another file rebinds or redefines it"
    else:
        text = (
            f"{expression} comes from a parameter that a caller in another file fills "
            "with something else than a training config"
        )
    return Reason("caller-passes", text, (Related(path, line, 1, what),))


class _At(str):
    """A verdict's words and the line that argues (``self.config = ...`` in a subclass, not
    the ``class`` line naming the base: trial 27, r12)."""

    line: int

    def __new__(cls, text: str, line: int) -> _At:
        made = super().__new__(cls, text)
        made.line = line
        return made


class _Wanted(NamedTuple):
    """A function, class or module global whose uses in other files decide an origin.

    Attributes:
        origin: the fix's :class:`CallerOrigin` the uses are judged for.
        position, keyword: where calls pass it (a subclass's own ``__init__``, a function
            handing its parameter on, may take it at another position, by another name).
        skip: the file whose own analysis judged these uses already (absolute path), or
            ``None`` (found here: every file counts).
        kind: as :attr:`CallerOrigin.kind`.
        method: for ``"method"``/``"staticmethod"``: the method's name (the key is its class).
        home: the file it was found in (a subclass, a re-export, a function handing the
            parameter on): read next round whatever it spells, as it may use it itself.
    """

    origin: CallerOrigin
    position: int | None
    keyword: str
    skip: str | None
    kind: str = "call"
    method: str = ""
    home: str = ""


#: Rounds of re-exports, subclasses and parameters handed on followed before giving up.
_MAX_ROUNDS = 6
_METHOD_KINDS = ("method", "staticmethod")


def judge_callers(
    origins: Iterable[CallerOrigin], paths: Sequence[str], settings: Settings
) -> dict[CallerOrigin, str | None]:
    """Judge the uses in ``paths`` of each origin's function, class or module global.

    Args:
        origins: the parameters safe fixes rest on (:attr:`ppo_migrate.diagnostics.Fix.origins`).
        paths: every file of the run (display paths). Each origin's own file is left out
            (its own analysis judged it).
        settings: the run's settings (the config names, the targets).

    Returns:
        origin -> ``None`` when no use in another file argues against it, else the first
        reason by path and line: ``"<path>:<line> passes `<value>`, which may not be a
        training config"`` (a dict, a section ``cfg.actor_rollout_ref``, unpacked
        ``*args``); ``"... hands `<name>` on ..."`` (any reference but a call,
        ``.remote(...)``, an annotation, ``isinstance``, ``except`` or a comparison);
        ``"... names `<name>` in a string ..."`` (``getattr(mod, "launch")``);
        ``"... writes `<expr>` ..."`` (``t.config = d``, ``pkg.mod.config = d``,
        ``setattr(...)``). Followed to what they reach: re-exports (``pkg/__init__.py``
        importing the function, ``from .lib import *``), a parameter of another file's
        function handed on to the call (``def go(c): launch(c)``: ``go``'s calls), and
        a subclass (without an ``__init__``, its calls; with one, what it passes to the
        base's ``super().__init__(...)``). A method's calls ``<obj>.run(...)`` are judged
        in the files that name its class. A file that cannot be read, decoded or parsed
        is left out (it cannot run either).
    """
    import gc

    gc.freeze()  # the collections of :func:`_collect` walk the judgement's objects only
    try:
        return _judge(origins, paths, settings)
    finally:
        gc.unfreeze()


def _judge(
    origins: Iterable[CallerOrigin], paths: Sequence[str], settings: Settings
) -> dict[CallerOrigin, str | None]:
    wanted: dict[str, list[_Wanted]] = defaultdict(list)
    verdicts: dict[CallerOrigin, str | None] = {}
    run_modules: set[str] | None = None  # the module names of ``paths``, once needed
    #: origin file -> (its module, its absolute path, the namespace prefixes of its module,
    #: the shorter names of its module): the same for every origin of a file (15 a file on
    #: benchmark item 12's tree, whose 3,000 origins asked them one by one: ~0.1 s of the
    #: judgement's 0.28 s)
    modules_of: dict[str, tuple[str, str, list[str], list[str]]] = {}
    for o in origins:
        verdicts[o] = None
        known = modules_of.get(o.path)
        if known is None:
            module = module_name(o.path)
            # ``ns/lib.py`` in a folder without ``__init__.py`` is ``lib`` to a script beside
            # it and ``ns.lib`` to one above it (a namespace package): its callers may spell
            # either
            prefixes = namespace_prefixes(o.path)
            # and ``pkg/lib.py`` is ``lib`` to a script that put ``pkg`` on ``sys.path``
            # (``sys.path.insert(0, "pkg"); from lib import launch``), unless the run has a
            # module of that name itself (a top-level ``lib.py``: ``import lib`` is that one)
            parts = module.split(".")
            if len(parts) > 1 and run_modules is None:
                run_modules = {module_name(p) for p in paths}
            shorter = [
                ".".join(parts[k:]) for k in range(1, len(parts))
                if ".".join(parts[k:]) not in run_modules
            ]
            known = modules_of[o.path] = (module, os.path.abspath(o.path), prefixes, shorter)
        module, here, prefixes, shorter = known
        fq = f"{module}.{o.qualname}"
        method = ""
        if o.kind in _METHOD_KINDS:
            fq, _, method = fq.rpartition(".")
        w = _Wanted(o, o.position, o.keyword, here, o.kind, method)
        wanted[fq].append(w)
        for prefix in prefixes:
            wanted[f"{prefix}.{fq}"].append(w)
        inner = fq[len(module) + 1:]
        for name in shorter:
            wanted[f"{name}.{inner}"].append(w)
    found: dict[CallerOrigin, list[tuple[str, int, str]]] = defaultdict(list)
    parsed: dict[str, object] = {}
    #: ``pkg.launch`` -> ``pkg.lib.launch``: a module re-exporting a wanted name as it is
    aliases: dict[str, str] = {}
    #: every (name, use) wanted so far, made when a use found is first to be added (most
    #: judgements find none: 15,000 pairs hashed for nothing on benchmark item 12's tree)
    seen: set[tuple[str, _Wanted]] = set()
    first = wanted

    def first_time(fq: str, w: _Wanted) -> bool:
        """Whether ``(fq, w)`` is wanted for the first time (it is from now on)."""
        if not seen:
            seen.update((name, use) for name, uses in first.items() for use in uses)
        if (fq, w) in seen:
            return False
        seen.add((fq, w))
        return True

    for origin, line, reason in _decorators(verdicts, paths, settings, parsed):
        found[origin].append(line + (reason,))
    for _ in range(_MAX_ROUNDS):
        if not wanted:
            break
        # a file is read further only when it spells a wanted function, class or global: a
        # method's calls are judged in the files that name its class (``run`` alone is
        # spelled by most files of a tree, verl's: 355 of 825 parsed for nothing)
        gate, modules, packages = _name_sets(wanted)
        short = gate | {w.method for ws in wanted.values() for w in ws if w.method}
        more: dict[str, list[_Wanted]] = defaultdict(list)
        # a use from another file names the module too (``from pkg.lib import launch``,
        # ``from . import lib``, ``import_module("pkg.lib")``, ``pkg.lib.launch``; a
        # re-export's own file does), or a package above it that re-exports the name
        # (``from pkg import launch``)
        # (each name with its own module: a file spelling ``config``, the name of a script's
        # global, and ``utils``, the package of another wanted function, reaches neither)
        parts_of = _module_parts(wanted, paths)
        parts = set().union(*parts_of.values())
        imports_module = _module_import_pattern(modules)
        # each set of names prepared once for the round's files (:func:`_spelled`)
        gate_names, parts_names = _names(frozenset(gate)), _names(frozenset(parts))
        packages_names, modules_names = _names(frozenset(packages)), _names(frozenset(modules))
        # a relative import (``from .lib import launch``) reaches a wanted module only from a
        # file inside that module's outermost package (none reaches a script's module)
        roots = _package_roots(wanted)
        # name -> the one file whose own analysis judged every use of it there (skipped)
        skips: dict[str, set[str | None]] = defaultdict(set)
        for fq, entries in wanted.items():
            for w in entries:
                skips[w.method or fq.rpartition(".")[2]].add(w.skip)
        own = {n: next(iter(k)) for n, k in skips.items() if len(k) == 1 and None not in k}
        # the files a wanted subclass, re-export or function was found in (it may be used there)
        homes = {w.home for entries in wanted.values() for w in entries if w.home}
        renamed: list[tuple[str, str, str]] = []
        #: files with references a re-export found later may resolve: judged again then
        unresolved: dict[str, set[str]] = {}
        judged = 0

        def judge_file(  # the round's lists, bound now (ruff B023)
            path: str, analysis, wanted=wanted, short=short, renamed=renamed, more=more,
            unresolved=unresolved,
        ) -> None:
            judge = _FileJudge(path, analysis, wanted, short, settings, aliases)
            renamed.extend((new, target, path) for new, target in judge.collect_reexports())
            for origin, line, reason in judge.reasons():
                found[origin].append((path, line, reason))
            for fq, entries in judge.more.items():
                for w in entries:
                    if first_time(fq, w):
                        more[fq].append(w)
            if judge.unresolved:
                unresolved[path] = judge.unresolved

        for path in paths:
            raw = _read(path)
            # the gate reads UTF-8 (names are): a cookie's ``latin-1`` file re-encoded
            data = utf8_source(raw) if raw is not None else None
            if data is None:
                continue
            spelled = _spelled(data, gate_names)
            if spelled:
                here = os.path.abspath(path)
                spelled = {n for n in spelled if own.get(n) != here}  # not only its own names
            if not (
                (spelled is None or spelled)
                and (
                    (b"from ." in data and _inside(path, roots)) or path in homes
                    or _names_with_their_modules(data, spelled, parts_of, parts_names)
                    or (_loads_by_name(data) and _mentions(data, packages_names))
                )
                or b"import *" in data  # ``from .lib import *`` re-exports names it never spells
                # ``from pkg.sub import lib as engine``: a module re-exported, names unspelled
                or (b"import" in data and imports_module.search(data) is not None)
                or (b"getattr(" in data and _mentions(data, modules_names))  # ``getattr(lib, "la" + "unch")``
            ):
                continue
            analysis = parsed[path] if path in parsed else _analysis(path, raw, settings)
            if analysis is None:
                continue
            if len(parsed) < _KEEP_PARSED:
                parsed[path] = analysis  # a small run parses each file once
            judge_file(path, analysis)
            del analysis
            judged += 1
            if judged % _COLLECT_EVERY == 0:
                _collect()
        # a file judged before the re-export it uses was met (``from pkg import launch``
        # read before ``pkg/__init__.py``): judged again, now that the alias is known
        for path, names in list(unresolved.items()):
            if any(_resolved(fq, wanted, aliases) in wanted for fq in names):
                analysis = parsed[path] if path in parsed else _analysis(path, _read(path) or b"", settings)
                if analysis is not None:
                    judge_file(path, analysis)
        for exported, target, where in renamed:
            # ``from .lib import launch as start``: ``pkg.start`` is wanted next round, and
            # ``mypkg/api.py: from pkg.lib import launch``: ``mypkg.api.launch`` (its users
            # name ``api``, not ``lib``: this round's look did not read them)
            for w in wanted.get(_resolved(target, wanted, aliases), ()):
                follow = w._replace(skip=None, home=where)
                if first_time(exported, follow):  # once: the re-export is met each round
                    more[exported].append(follow)
        wanted = more
    else:
        for entries in wanted.values():
            for w in entries:
                found[w.origin].append(("", 0, "its uses reach further than followed"))
    for origin, reasons in found.items():
        path, line, reason = min(reasons)
        verdicts[origin] = CallerVerdict(path, line, reason)
    return verdicts


def _name_sets(wanted: Mapping[str, list[_Wanted]]) -> tuple[set[str], set[str], set[str]]:
    """``(names, modules, packages)`` of the wanted fully qualified names: their last parts
    (``launch`` of ``pkg.lib.launch``), their modules' last parts (``lib``) and every part of
    their modules (``pkg``, ``lib``: a module loaded by a name built at run time,
    ``import_module("pkg." + name)``, may be any module under a package it names). Each
    module is split once (benchmark item 12: 15,000 names in 1,000 module spellings)."""
    names: set[str] = set()
    modules: set[str] = set()
    packages: set[str] = set()
    seen: set[str] = set()
    for fq in wanted:
        module, _, name = fq.rpartition(".")
        names.add(name)
        if module in seen:
            continue
        seen.add(module)
        modules.add(module.rpartition(".")[2])
        packages.update(p for p in module.split(".") if p)
    return names, modules, packages


def _decorators(
    origins: Iterable[CallerOrigin], paths: Sequence[str], settings: Settings, parsed: dict
) -> Iterator[tuple[CallerOrigin, tuple[str, int], str]]:
    """A function origin decorated by a decorator another file of the run defines
    (:attr:`CallerOrigin.decorators`): that file's ``def`` must hand the arguments on
    unchanged, as a same-file decorator must
    (:meth:`ppo_migrate.rules.configs.ConfigFinder.def_passes_through`). A decorator
    factory (``@deprecated("...")``) is trusted, as one of another package is. Decorators of other packages
    (``hydra.main``, ``ray.remote``) are trusted, their code not being here."""
    modules: dict[str, str] | None = None
    for origin in origins:
        for spec in origin.decorators:
            if spec.endswith("()"):
                # a factory, ``@deprecated("...")`` (verl's own wraps ``main`` and reads the
                # function's name, so no simple rule of its body holds): trusted, as before
                continue
            fq = spec
            if modules is None:
                modules = {module_name(p): p for p in paths}
            where = modules.get(fq.rpartition(".")[0])
            if where is None or os.path.abspath(where) == os.path.abspath(origin.path):
                continue  # not a file of the run, or the defining file (judged there)
            other = _parsed(where, settings, parsed)
            if other is None:
                continue
            defs = [
                s for s in other.module.tree.body
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == fq.rpartition(".")[2]
            ]
            if not defs or not all(other.configs.def_passes_through(d) for d in defs):
                yield origin, (where, min((d.lineno for d in defs), default=0)), (
                    f"defines the decorator `{fq.rpartition('.')[2]}`, which does not hand the "
                    "arguments on unchanged"
                )


def _parsed(path: str, settings: Settings, parsed: dict):
    """The analysis of ``path``, parsed once per judgement (``None``: it cannot be had)."""
    if path not in parsed:
        data = _read(path)
        parsed[path] = _analysis(path, data, settings) if data is not None else None
    return parsed[path]


def _collect() -> None:
    """Free the analyses judged so far: their trees and scopes hold reference cycles,
    which only the cycle collector frees, and many of them would pile up meanwhile
    (the peak memory of a run on 10,000 files). Cheap while the run's older objects are
    frozen (:func:`judge_callers`), as the collector then walks only the new ones."""
    import gc

    gc.collect()


def _read(path: str) -> bytes | None:
    try:
        return current().read_bytes(path)  # read once a run
    except (OSError, ValueError):
        return None


def _module_import_pattern(modules: set[str]) -> re.Pattern[bytes]:
    """A file importing one of ``modules`` itself, the module object (``from pkg import lib``,
    ``from pkg import (a,\n lib)``, ``import pkg.lib as l``), which it could hand on under
    another name; not ``from pkg.lib import x``, which imports a name of it. Built once a
    round, searched in each file's bytes."""
    names = b"|".join(re.escape(m.encode("utf-8", "surrogateescape")) for m in sorted(modules))
    return re.compile(
        rb"\bimport[ \t]+[^\n;#]*\b(?:" + names + rb")\b|\bimport[ \t]*\([^)]*\b(?:" + names + rb")\b"
    )


def _package_roots(wanted: dict[str, list[_Wanted]]) -> set[str] | None:
    """The directories of the outermost packages holding the wanted names' modules (the
    files they were found in: :attr:`_Wanted.skip` or :attr:`_Wanted.home`); ``None`` when
    one's file is not known (then any file may reach it)."""
    roots: set[str] = set()
    seen: set[str] = set()  # a file holds many wanted names (15 calls a file: 9,000 entries)
    for entries in wanted.values():
        for w in entries:
            where = w.home or w.skip
            if not where:
                return None
            if where in seen:
                continue
            seen.add(where)
            package = module_package(where)
            if package:  # a module in no package is reached by no relative import
                # the folder the outermost package lives in (the index's package root), and
                # that package's own folder below it
                root = package_root(where, package)
                if root is not None:
                    roots.add(os.path.join(os.fspath(root), package[0]))
    return roots


def _inside(path: str, roots: set[str] | None) -> bool:
    """Whether ``path`` lies in one of ``roots`` (any path when ``roots`` is ``None``)."""
    if roots is None:
        return True
    here = os.path.abspath(path)
    return any(here.startswith(root + os.sep) for root in roots)


def _loads_by_name(data: bytes) -> bool:
    """Whether the file may load a module by a name in a string (``importlib.import_module``,
    ``__import__``, ``sys.modules[...]``)."""
    return b"import_module" in data or b"__import__" in data or b"sys.modules" in data


def _module_parts(wanted: dict[str, list[_Wanted]], paths: Sequence[str]) -> dict[str, set[str]]:
    """Wanted name -> the module parts a file using it from elsewhere must spell: the last
    part of its module (``lib`` for ``pkg.lib.launch``) and of each package above that
    module whose ``__init__.py`` is among ``paths`` and may hand the name on (it spells the
    name or its module's last part, ``from .lib import launch`` or ``from .sub import lib as
    engine``; imports ``*``; or defines a module ``__getattr__``). Only through such a
    package can a file reach ``pkg.lib.launch`` without naming ``lib``
    (``from pkg import launch``); the others need not be read for it. A package between
    that binds another package (``from . import sub``) hands on nothing by itself: a use
    through it names ``lib``, or a package below that is checked in turn.

    The packages above are walked once a module, not once a name (benchmark item 12's
    3,000 wanted functions live in 200 modules)."""
    #: module -> the wanted names in it
    names_in: dict[str, set[str]] = defaultdict(set)
    for fq in wanted:
        module, _, name = fq.rpartition(".")
        names_in[module].add(name)
    #: package -> the modules below it holding wanted names
    under: dict[str, list[str]] = defaultdict(list)
    parts_of: dict[str, set[str]] = defaultdict(set)
    for module, names in names_in.items():
        last = module.rpartition(".")[2]
        for name in names:
            parts_of[name].add(last)
        package = module
        while "." in package:
            package = package.rpartition(".")[0]
            under[package].append(module)
    for path in paths:
        if os.path.basename(path) != "__init__.py":
            continue
        package = module_name(path)
        if package not in under:
            continue
        raw = _read(path)
        data = utf8_source(raw) if raw is not None else None
        if data is None:
            continue
        part = package.rpartition(".")[2]
        if b"import *" in data or b"__getattr__" in data:
            spelled = None
        else:
            spelled = _spelled(data, set().union(
                *(names_in[m] for m in under[package]),
                (m.rpartition(".")[2] for m in under[package]),
            ))
        for module in under[package]:
            # the name itself, or its module's last part (which hands on all its names)
            names = names_in[module]
            if spelled is not None and module.rpartition(".")[2] not in spelled:
                names = names & spelled
            for name in names:
                parts_of[name].add(part)
    return parts_of


def _names_with_their_modules(
    data: bytes, spelled: set[str] | None, parts_of: dict[str, set[str]], parts: set[str] | _Names
) -> bool:
    """Whether the file spells a wanted name together with one of that name's module parts
    (:func:`_module_parts`); ``spelled``: the wanted names it spells (``None``: any)."""
    mentioned = _spelled(data, parts)
    if mentioned is None or spelled is None:
        return mentioned is None or bool(mentioned)
    return any(parts_of.get(n, set()) & mentioned for n in spelled)


def _mentions(data: bytes, names: set[str] | _Names) -> bool:
    """Whether the file spells one of ``names`` as an identifier (see :func:`_spelled`)."""
    spelled = _spelled(data, names)
    return spelled is None or bool(spelled)


class _Names(NamedTuple):
    """Names a file may spell (:func:`_spelled`), prepared once for many files.

    Attributes:
        encoded: the names as bytes (a name that is not UTF-8 keeps its bytes), sorted.
        plain: those made of ASCII letters, digits and ``_`` only (every identifier a
            file of ASCII bytes can hold): found among the file's words.
        other: the rest (a module named after a file name such as ``my-lib.py``).
    """

    encoded: tuple[bytes, ...]
    plain: frozenset[bytes]
    other: tuple[bytes, ...]


@functools.lru_cache(maxsize=8)
def _names(names: frozenset[str]) -> _Names:
    """``names`` prepared for :func:`_spelled` (a judgement round asks the same names of
    every file: benchmark item 12, 200 files asked of 3,000 names each)."""
    encoded = tuple(sorted(n.encode("utf-8", "surrogateescape") for n in names))
    plain = frozenset(n for n in encoded if not n.translate(None, _WORD_BYTES))
    return _Names(encoded, plain, tuple(n for n in encoded if n not in plain))


def _spelled(data: bytes, names: set[str] | _Names) -> set[str] | None:
    """The ``names`` the file spells as identifiers (``train`` is not in ``trainer``);
    ``None`` for a non-ASCII file that may spell one otherwise (NFKC).

    Args:
        data: the file's bytes.
        names: the names, or the same prepared once (:func:`_names`) when asked of many files.
    """
    prepared = names if isinstance(names, _Names) else _names(frozenset(names))
    encoded = prepared.encoded
    if not data.isascii():
        return None if is_candidate(data, encoded) else set()
    found: set[str] = set()
    if len(encoded) > _MANY_NAMES and len(data) <= _WORDS_UP_TO:
        # the file's words, collected once (C's translate and split), met with the names:
        # a small file costs no regex over thousands of names (its compile ~25 ms for
        # benchmark item 12's 3,000, the scan ~150 us a file there)
        found.update(w.decode() for w in _words(data) & prepared.plain)
        for n in prepared.other:
            if any(_whole(data, *m.span()) for m in re.finditer(re.escape(n), data)):
                found.add(n.decode())
        return found
    if len(encoded) > _MANY_NAMES:
        # one pass of a regex whose alternatives share their prefixes (``run_ppo_1``,
        # ``run_ppo_2``, ...), instead of one pass of the bytes per name: faster than the
        # words on a large file (~6 ns a byte against ~20)
        for m in _any_of(encoded).finditer(data):
            if _whole(data, *m.span()):
                found.add(m.group().decode())  # a whole identifier (``\\b`` would slow the scan)
        return found
    for n in encoded:
        if n in data and re.search(rb"\b" + re.escape(n) + rb"\b", data):
            found.add(n.decode())
    return found


def _whole(data: bytes, start: int, end: int) -> bool:
    """Whether ``data[start:end]`` is a whole word: no letter, digit or ``_`` on either side."""
    return not (start and _WORD.match(data, start - 1)) and not _WORD.match(data, end)


def _words(data: bytes) -> set[bytes]:
    """The words of an ASCII file: its runs of letters, digits and ``_``."""
    return set(data.translate(_WORDS_ONLY).split())


@functools.lru_cache(maxsize=8)
def _any_of(words: tuple[bytes, ...]) -> re.Pattern[bytes]:
    """``word1|word2|...`` with the words' common prefixes factored out (a trie): the
    regex engine then skips to the next possible first byte in C."""
    trie: dict = {}
    for w in words:
        node = trie
        for byte in w:
            node = node.setdefault(byte, {})
        node[None] = True

    def pattern(node: dict) -> bytes:
        branches = [re.escape(bytes([b])) + pattern(sub) for b, sub in sorted((k, v) for k, v in node.items() if k is not None)]
        if not branches:
            return b""
        body = branches[0] if len(branches) == 1 else b"(?:" + b"|".join(branches) + b")"
        return b"(?:" + body + b")?" if None in node else body

    return re.compile(pattern(trie))


def _analysis(path: str, data: bytes, settings: Settings):
    """The core's analysis of another file, or ``None`` when it cannot be had."""
    try:
        # a relative import in a folder without ``__init__.py`` (a namespace package) is
        # resolved against that folder: a caller it reaches is judged, not ignored
        package = package_for_relative_imports(path)
        source = _held(active(), path)
        if source is not None and (source.data is data or source.data == data):  # the run's parse
            return ModuleAnalysis(source.text, path, settings, package=package, module=parsed_source(source, path))
        return ModuleAnalysis(decode_source(data)[0], path, settings, package=package)
    except Exception:  # noqa: BLE001 -- undecodable or unparsable: it cannot run either
        return None


def _held(snapshot, path: str):
    """The snapshot's :class:`ppo_migrate.project.snapshot.SourceFile` of ``path`` (kept from
    now on: it is analysed), else ``None``."""
    if snapshot is None:
        return None
    try:
        return snapshot.source(path)
    except Exception:  # noqa: BLE001 - a read that failed
        return None


class _FileJudge:
    """The uses in one file of the wanted functions, classes and globals."""

    def __init__(
        self,
        path: str,
        analysis,
        wanted: Mapping[str, list[_Wanted]],
        short: set[str],
        settings: Settings,
        aliases: dict[str, str],
    ) -> None:
        self.aliases = aliases
        self.unresolved: set[str] = set()
        self.path = path
        self.here = os.path.abspath(path)
        self.analysis = analysis
        self.wanted = wanted
        self.short = short
        self.names = set(settings.config_names)
        self.module = module_name(path)
        self.package = package_for_relative_imports(path)
        self.parents: dict[int, ast.AST] = {}
        #: fq -> uses reached from here, judged next round (re-exports, subclasses, ...)
        self.more: dict[str, list[_Wanted]] = defaultdict(list)

    def _fqs(self, node: ast.AST) -> set[str]:
        return reference_fqs(self.analysis, self.module, self.package, node)

    def collect_reexports(self) -> list[tuple[str, str]]:
        """The module-level imports of wanted names (``pkg/__init__.py``: ``from .lib import
        launch``, ``from .lib import *``; a module holding one, ``import pkg.lib as L``):
        ``pkg.launch`` is ``pkg.lib.launch`` too. Under
        the same name it joins :attr:`aliases` (followed through chains). Both, and the
        renamed ones (``as start``), are returned as ``(new fq, imported fq)``: a file that
        imports the name from the re-exporting module (``from mypkg.api import launch``)
        names none of the original module's parts, so the next round looks for it."""
        renamed: list[tuple[str, str]] = []
        # the module-level imports, resolved, as the run's reference index gives them
        for record in current_references().module_imports(self.path, self.analysis.module.tree):
            if record.kind == "import":
                # a module holding a wanted name imported whole (``import pkg.lib as L``):
                # ``helpers.L.launch`` is ``pkg.lib.launch`` to ``from helpers import L``
                exported = f"{self.module}.{record.asname or record.name}"
                for fq in list(self.wanted):
                    if fq.rpartition(".")[0] == record.name:
                        via = f"{exported}.{fq.rpartition('.')[2]}"
                        self.aliases[via] = fq
                        renamed.append((via, fq))
                continue
            if record.kind == "star":
                for fq in self.wanted:
                    if record.source is not None and fq.rpartition(".")[0] == record.source:
                        exported = f"{self.module}.{fq.rpartition('.')[2]}"
                        self.aliases[exported] = fq
                        renamed.append((exported, fq))  # its users: next round too
                continue
            target = record.source
            if not target:
                continue
            exported = f"{self.module}.{record.asname or record.name}"
            for fq in list(self.wanted):
                # a module holding a wanted name re-exported (``from .sub import lib as
                # engine``): ``pkg.engine.launch`` is ``pkg.sub.lib.launch``
                if fq.rpartition(".")[0] == target:
                    via = f"{exported}.{fq.rpartition('.')[2]}"
                    self.aliases[via] = fq
                    renamed.append((via, fq))
            if record.asname is None or record.asname == record.name:
                if record.name in self.short:
                    self.aliases[exported] = target
                    renamed.append((exported, target))  # its users: next round too
            else:
                renamed.append((exported, target))
        return renamed

    def _walk(self) -> None:
        """Every node once (:attr:`nodes`), with its parent (:attr:`parents`), and the
        names ``from m import f as g`` gives the wanted ones (:attr:`looked_for`)."""
        self.looked_for = set(self.short)
        self.nodes: list[ast.AST] = []
        stack: list[ast.AST] = [self.analysis.module.tree]
        while stack:
            node = stack.pop()
            self.nodes.append(node)
            if isinstance(node, ast.ImportFrom):
                # ``from pkg.mod import run_ppo as rp``: ``rp(...)`` calls it
                self.looked_for.update(a.asname for a in node.names if a.asname and a.name in self.short)
            for field in node._fields:
                value = getattr(node, field, None)
                if isinstance(value, ast.AST):
                    stack.append(value)
                elif isinstance(value, list):
                    stack.extend(item for item in value if isinstance(item, ast.AST))

    def _parent(self, node: ast.AST) -> ast.AST | None:
        """``node``'s parent, found from the module down (``ParsedModule.ancestors``) and
        kept for the nodes on the way: no map of the whole tree (a 1 MB file's would be
        tens of megabytes)."""
        found = self.parents.get(id(node))
        if found is None:
            chain = self.analysis.module.ancestors(node)
            for up, down in itertools.pairwise(chain):
                self.parents[id(down)] = up
            if chain:
                found = self.parents[id(node)] = chain[-1]
        return found

    def _resolved(self, fq: str) -> str:
        return _resolved(fq, self.wanted, self.aliases)

    def reasons(self) -> Iterator[tuple[CallerOrigin, int, str]]:
        """``(origin, line, reason)`` for each use arguing against an origin
        (:meth:`collect_reexports` first)."""
        import unicodedata

        self._walk()
        tree = self.analysis.module.tree
        looked_for = self.looked_for
        referenced: set[tuple[str, _Wanted]] = set()
        for node in self.nodes:
            if isinstance(node, ast.Name):
                spelled = unicodedata.normalize("NFKC", node.id)
            elif isinstance(node, ast.Attribute):
                spelled = unicodedata.normalize("NFKC", node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                yield from self._in_string(node)
                continue
            elif isinstance(node, ast.Call):
                yield from self._computed_name(node)
                continue
            else:
                continue
            if spelled not in looked_for:
                continue
            fqs = self._fqs(node)
            matched = {self._resolved(fq) for fq in fqs} & self.wanted.keys()
            if not matched:
                # ``pkg.launch``: maybe a re-export another file of the run makes
                self.unresolved.update(fq for fq in fqs if fq.rpartition(".")[2] in self.short)
            if not matched and isinstance(node, ast.Attribute):
                # ``importlib.import_module("pkg.lib").launch``, ``sys.modules["pkg.lib"].launch``,
                # ``__import__("pkg.lib").lib.launch``: it may be the function
                modules = self._loaded_modules(node)
                matched = {
                    fq for fq in self.wanted
                    if fq.rpartition(".")[2] == spelled and modules is not None
                    and (not modules or any(_within(fq.rpartition(".")[0], m) for m in modules))
                }
            for fq in matched:
                for w in self.wanted[fq]:
                    if w.skip == self.here:
                        continue  # the defining file: its own analysis judged these uses
                    referenced.add((fq, w))
                    if w.kind in _METHOD_KINDS:
                        # judged below, by the method's calls in this file; a subclass runs
                        # the method too (``class Fast(Runner)``: ``Fast().run(d)``)
                        parent = self._parent(node)
                        if isinstance(parent, ast.ClassDef) and node in parent.bases:
                            reason = self._method_subclass(parent, w)
                            if reason is not None:
                                yield w.origin, node.lineno, reason
                        continue
                    reason = self._argues_against(node, w)
                    if reason is not None:
                        # the line of what argues (a subclass's rebinding), else the reference
                        yield w.origin, getattr(reason, "line", node.lineno), str(reason)
        for fq, w in sorted(referenced, key=lambda x: (x[0], repr(x[1].origin))):
            if w.kind in _METHOD_KINDS:
                yield from self._method_calls(tree, fq, w)
            elif w.kind == "init":
                yield from self._attribute_writes(tree, w)

    def _loaded_modules(self, node: ast.expr) -> set[str] | None:
        """For ``<loaded module>...name``: the modules it may be, as spelled in the string
        constants of ``importlib.import_module(...)``, ``__import__(...)`` or
        ``sys.modules[...]`` (empty: not known, any module), also through a name assigned
        such a value (``m = importlib.import_module("pkg.lib")``); ``None`` for anything
        else (imports resolve it, or it is not a module)."""
        obj: ast.expr = node.value if isinstance(node, ast.Attribute) else node
        while isinstance(obj, ast.Attribute):
            obj = obj.value
        if isinstance(obj, ast.Name):
            holder = self.analysis.scopes.scope_of(obj).lookup(obj.id)
            values = []
            for b in self.analysis.targets.bindings_in(holder, obj.id) if holder else []:
                up = self._parent(b.node)
                if isinstance(up, ast.Assign) and isinstance(up.value, (ast.Call, ast.Subscript)):
                    values.append(up.value)
            found: set[str] = set()
            for v in values:
                more = self._loaded_modules(v) if _loads_a_module(v) else None
                if more is not None:
                    if not more:
                        return set()
                    found |= more
            return found or None
        if not _loads_a_module(obj):
            return None
        args = obj.args if isinstance(obj, ast.Call) else [obj.slice]  # type: ignore[union-attr]
        found = {a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
        return found if found and len(found) == len(args) else set()

    def _import_bound(self, obj: ast.expr) -> bool:
        """Whether ``obj`` is a plain chain of names whose root only imports bind."""
        while isinstance(obj, ast.Attribute):
            obj = obj.value
        if not isinstance(obj, ast.Name):
            return False
        holder = self.analysis.scopes.scope_of(obj).lookup(obj.id)
        if holder is None:
            return False
        bindings = self.analysis.targets.bindings_in(holder, obj.id)
        return bool(bindings) and all(b.qualified is not None for b in bindings)

    def _in_string(self, node: ast.Constant) -> Iterator[tuple[CallerOrigin, int, str]]:
        """``getattr(mod, "launch")``, ``vars(mod)["launch"]``, ``mod.__dict__["launch"]`` (a
        function or class fetched by name from its module, or from an object of unknown
        kind) and ``setattr(mod, "config", d)``, ``vars(mod)["config"] = d`` (a module
        global written)."""
        value = node.value
        if not isinstance(value, str) or value not in self.short:
            return  # only a wanted name matters: no parent looked up for every string
        parent = self._parent(node)
        if (
            isinstance(parent, ast.Call)
            and isinstance(parent.func, ast.Name)
            and parent.func.id in ("getattr", "setattr", "delattr")
            and len(parent.args) >= 2
            and parent.args[1] is node
        ):
            how = label = parent.func.id
            owner = parent.args[0]
        elif isinstance(parent, ast.Subscript) and parent.slice is node:
            # the module's namespace by name: ``vars(mod)["launch"]``, ``mod.__dict__["launch"]``
            space = parent.value
            if (
                isinstance(space, ast.Call) and isinstance(space.func, ast.Name)
                and space.func.id == "vars" and len(space.args) == 1 and not space.keywords
            ):
                owner, label = space.args[0], "vars(...)[...]"
            elif isinstance(space, ast.Attribute) and space.attr == "__dict__":
                owner, label = space.value, "__dict__[...]"
            else:
                return
            how = "getattr" if isinstance(parent.ctx, ast.Load) else "setattr"
        else:
            return
        owners = self._fqs(owner) if isinstance(owner, (ast.Name, ast.Attribute)) else set()
        for fq, ws in self.wanted.items():
            module, _, name = fq.rpartition(".")
            if name != value or not (module in owners or not self._import_bound(owner)):
                continue
            for w in ws:
                if w.skip == self.here:
                    continue
                if w.kind == "global" and how != "getattr":
                    yield w.origin, node.lineno, f"writes `{value}` with `{label}`"
                elif w.kind in ("call", "init") and how == "getattr":
                    yield (
                        w.origin, node.lineno,
                        f"fetches `{value}` by name (`{label}`), to be called with arguments not seen",
                    )

    def _computed_name(self, call: ast.Call) -> Iterator[tuple[CallerOrigin, int, str]]:
        """``getattr(mod, "la" + "unch")``: a name computed at run time, fetched from a
        module holding a wanted function or class, known by an import or a constant string
        (any of its functions may be the one)."""
        if not (
            isinstance(call.func, ast.Name)
            and call.func.id == "getattr"
            and len(call.args) >= 2
            and not isinstance(call.args[1], ast.Constant)
        ):
            return
        owner = call.args[0]
        modules = self._fqs(owner) if isinstance(owner, (ast.Name, ast.Attribute)) else set()
        loaded = self._loaded_modules(owner)
        for fq, ws in self.wanted.items():
            module = fq.rpartition(".")[0]
            # a module named (an import, a constant string): ``getattr(module, name)`` of a
            # module and a name both computed at run time (a plugin loader, verl's
            # ``load_class_from_fqn``) is not taken for a call of every function
            if module in modules or (loaded and any(_within(module, m) for m in loaded)):
                for w in ws:
                    if w.skip != self.here and w.kind in ("call", "init"):
                        yield w.origin, call.lineno, (
                            f"fetches a name computed at run time from `{_shown(self.analysis.module.source_of(owner))}`"
                        )

    def _argues_against(self, node: ast.expr, w: _Wanted) -> str | None:
        """Why the reference ``node`` makes the origin's fix unsafe, or ``None``."""
        parent = self._parent(node)
        if w.kind == "global":
            if isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):
                return f"writes `{self.analysis.module.source_of(node)}`"
            return None
        call = self._called(node)
        if call is not None:
            return self._passes(call, w.position, w.keyword, w)
        if isinstance(parent, ast.ClassDef) and node in parent.bases:
            return self._subclass(parent, w)
        if _harmless(node, parent, self._parent):
            return None
        return f"hands `{self.analysis.module.source_of(node)}` on, to be called with arguments not seen"

    def _called(self, node: ast.expr) -> ast.Call | None:
        """The call of ``node(...)`` or ``node.remote(...)`` (a Ray actor or task), if any."""
        parent = self._parent(node)
        if isinstance(parent, ast.Call) and parent.func is node:
            return parent
        if isinstance(parent, ast.Attribute) and parent.attr == "options":
            # ``Actor.options(num_cpus=1).remote(config)``: the same actor, other resources
            call = self._parent(parent)
            if isinstance(call, ast.Call) and call.func is parent:
                parent = self._parent(call)
                node = call
        if isinstance(parent, ast.Attribute) and parent.attr == "remote" and parent.value is node:
            up = self._parent(parent)
            if isinstance(up, ast.Call) and up.func is parent:
                return up
        return None

    def _passes(self, call: ast.Call, position: int | None, keyword: str, w: _Wanted) -> str | None:
        value = _passed_value(call, position, keyword)
        if value is None:
            return None  # passes nothing there: the parameter's default
        if value is _UNPACKED:
            return "passes unpacked arguments, which may not hold a training config"
        if self.analysis.configs._passed_trust(value) not in (None, "strong"):
            from ppo_migrate.rules.reasons import DICT_RAISES, is_plain_dict

            shown = _shown(self.analysis.module.source_of(value))
            if is_plain_dict(self.analysis.configs, value):
                return f"passes `{shown}`, a plain dict: {DICT_RAISES}"
            return f"passes `{shown}`, which may not be a training config"
        self._handed_on(value, w)
        return None

    def _handed_on(self, value: ast.expr, w: _Wanted) -> None:
        """A parameter of this file's function passed on (``def go(c): launch(c)``): the
        calls of that function decide it too (next round)."""
        if not isinstance(value, ast.Name):
            return
        finder = self.analysis.configs
        holder = self.analysis.scopes.scope_of(value).lookup(value.id)
        if holder is None:
            return
        for b in self.analysis.targets.bindings_in(holder, value.id):
            if not isinstance(b.node, ast.arg):
                continue
            finder._origins = []
            try:
                finder._record_origin(b.node, holder)
                reached = finder._origins
            finally:
                finder._origins = None
            for o in reached:
                fq = f"{self.module}.{o.qualname}"
                method = ""
                if o.kind in _METHOD_KINDS:
                    fq, _, method = fq.rpartition(".")
                self.more[fq].append(_Wanted(w.origin, o.position, o.keyword, None, o.kind, method, self.path))

    def _method_calls(self, tree: ast.Module, cls_fq: str, w: _Wanted) -> Iterator[tuple[CallerOrigin, int, str]]:
        """``<obj>.method(...)`` / ``<obj>.method.remote(...)`` / ``Cls.method(obj, ...)`` in
        a file that names the class: what each passes (an object that is an import of
        something else, ``subprocess.run(cmd)``, is not it)."""
        for node in self.nodes:
            if not (isinstance(node, ast.Attribute) and node.attr == w.method):
                continue
            call = self._called(node)
            if call is None:
                continue
            if self._super_of(node, cls_fq):
                continue  # ``super().run(cfg)`` in a subclass: :meth:`_method_subclass` judged it
            obj_fqs = (
                {self._resolved(f) for f in self._fqs(node.value)}
                if isinstance(node.value, (ast.Name, ast.Attribute)) else set()
            )
            position = w.position
            if cls_fq in obj_fqs:
                if w.kind == "method" and position is not None:
                    position += 1  # ``Cls.run(obj, config)``: the instance comes first
            elif self._import_bound(node.value):
                continue  # an import of something else
            reason = self._passes(call, position, w.keyword, w)
            if reason is not None:
                yield w.origin, node.lineno, reason

    def _attribute_writes(self, tree: ast.Module, w: _Wanted) -> Iterator[tuple[CallerOrigin, int, str]]:
        """In a file that names the class: ``t.config = d``, ``setattr(t, "config", d)``,
        ``t.__dict__[...] = d``, ``vars(t)[...] = d`` (which object is ``t`` is not known
        here: any but a method's own ``self``)."""
        for node in self.nodes:
            if (
                isinstance(node, ast.Attribute)
                and node.attr in self.names
                and isinstance(node.ctx, (ast.Store, ast.Del))
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            ):
                yield w.origin, node.lineno, f"writes `{self.analysis.module.source_of(node)}`"
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("setattr", "delattr")
                and len(node.args) >= 2
                and not (isinstance(node.args[1], ast.Constant) and node.args[1].value not in self.names)
            ):
                yield w.origin, node.lineno, f"writes an attribute with `{node.func.id}`"
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
                inner = node.value
                if (isinstance(inner, ast.Attribute) and inner.attr == "__dict__") or (
                    isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "vars"
                ):
                    yield w.origin, node.lineno, f"writes `{self.analysis.module.source_of(node)}`"
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "update"
                and isinstance(node.func.value, (ast.Attribute, ast.Call))
                and (
                    getattr(node.func.value, "attr", None) == "__dict__"
                    or (isinstance(node.func.value, ast.Call) and getattr(node.func.value.func, "id", None) == "vars")
                )
            ):
                yield w.origin, node.lineno, f"writes `{self.analysis.module.source_of(node.func.value)}`"
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, (ast.Name, ast.Attribute))
                and (dotted_name(node.func) or "").rpartition(".")[2] == "replace"
                and any(k.arg in self.names or k.arg is None for k in node.keywords)
            ):
                reason = self._passes(node, None, next(k.arg for k in node.keywords if k.arg in self.names or k.arg is None) or w.keyword, w)
                if reason is not None:
                    yield w.origin, node.lineno, f"(`{dotted_name(node.func)}`) {reason}"

    def _subclass(self, cls: ast.ClassDef, w: _Wanted) -> str | None:
        """A subclass of a wanted class: its own ``__init__`` judged, its calls wanted next."""
        scope = self.analysis.scopes.scope_for_node(cls)
        outer = frames(scope.parent) if scope is not None else (("function", "?"),)
        if any(kind == "function" for kind, _ in outer):
            return f"subclasses `{cls.name}` inside a function, called with arguments not seen"
        for stmt in cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name in self.names:
                return _At(f"defines `{stmt.name}` in subclass `{cls.name}`", stmt.lineno)
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
            value = getattr(stmt, "value", None)
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and isinstance(value, (ast.Call, ast.Name, ast.Attribute)) and any(
                isinstance(t, ast.Name) and t.id in self.names for t in targets
            ):
                # ``config = property(...)``, a descriptor: it beats the instance's attribute
                # (a plain value, ``config = None``, is hidden by the one ``__init__`` sets)
                return _At(
                    f"defines `{next(t.id for t in targets if isinstance(t, ast.Name) and t.id in self.names)}` "
                    f"in subclass `{cls.name}`",
                    stmt.lineno,
                )
        fq = f"{self.module}.{qualname((*outer, ('class', cls.name)))}"
        init = next(
            (s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"),
            None,
        )
        params = [*init.args.posonlyargs, *init.args.args] if init is not None else []
        sets_its_own = False
        for node in ast.walk(cls):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, (ast.Store, ast.Del))
                and node.attr in self.names
            ):
                own = self._own_parameter_stored(node, init, params)
                if own is None:
                    return _At(f"sets `{self.analysis.module.source_of(node)}` in subclass `{cls.name}`", node.lineno)
                sets_its_own = True
                self.more[fq].append(_Wanted(w.origin, own[0], own[1], None, "init", "", self.path))
        if init is None:
            # its calls run the base's ``__init__`` with the same arguments
            self.more[fq].append(w._replace(skip=None, home=self.path))
            return None
        calls = [c for c in ast.walk(init) if isinstance(c, ast.Call) and self._calls_base_init(c, init)]
        if not calls:
            if sets_its_own:
                return None  # ``self.config = config`` from its own parameter: its calls decide
            return f"subclass `{cls.name}` has an `__init__` that does not call the base's"
        for c in calls:
            if _hands_all_on(c, init):
                # ``def __init__(self, *args, **kwargs): super().__init__(*args, **kwargs)``:
                # its calls pass the base's arguments as they are
                self.more[fq].append(w._replace(skip=None, home=self.path))
                continue
            explicit = not isinstance(c.func.value, ast.Call)  # ``Base.__init__(self, ...)``
            position = None if w.position is None else w.position + (1 if explicit else 0)
            reason = self._passes(c, position, w.keyword, w)
            if reason is not None:
                return f"(subclass `{cls.name}`) {reason}"
            value = _passed_value(c, position, w.keyword)
            if isinstance(value, ast.Name):
                own = next((i for i, a in enumerate(params) if a.arg == value.id), None)
                if own is not None and own > 0:
                    self.more[fq].append(_Wanted(w.origin, own - 1, value.id, None, "init", "", self.path))
                elif any(a.arg == value.id for a in init.args.kwonlyargs):
                    self.more[fq].append(_Wanted(w.origin, None, value.id, None, "init", "", self.path))
        return None

    def _super_of(self, node: ast.Attribute, cls_fq: str) -> bool:
        """Whether ``node`` is ``super().<method>`` (or ``super(C, self)``) inside a class
        whose bases name ``cls_fq`` here: a subclass's own method handing on to the base's,
        which :meth:`_method_subclass` judges with the subclass's calls. Elsewhere (a mixin
        whose ``super()`` is not known to reach the class) it is judged as any call."""
        value = node.value
        if not (
            isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super"
        ):
            return False
        chain = self.analysis.module.ancestors(node)
        cls = next((a for a in reversed(chain) if isinstance(a, ast.ClassDef)), None)
        if cls is None:
            return False
        return any(
            cls_fq in {self._resolved(f) for f in self._fqs(b)}
            for b in cls.bases if isinstance(b, (ast.Name, ast.Attribute))
        )

    def _method_subclass(self, cls: ast.ClassDef, w: _Wanted) -> str | None:
        """A subclass of the class whose method is wanted: without its own method, its
        instances run the base's, so its calls are wanted next round; its own method that
        calls the base's (``super().run(x)``) passes ``x`` on: judged here, and when ``x`` is
        its own parameter, that method's calls are wanted next round."""
        scope = self.analysis.scopes.scope_for_node(cls)
        outer = frames(scope.parent) if scope is not None else (("function", "?"),)
        if any(kind == "function" for kind, _ in outer):
            return f"subclasses `{cls.name}` inside a function, called with arguments not seen"
        fq = f"{self.module}.{qualname((*outer, ('class', cls.name)))}"
        own = next(
            (s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == w.method),
            None,
        )
        if own is None:
            self.more[fq].append(w._replace(skip=None, home=self.path))
            return None
        params = [*own.args.posonlyargs, *own.args.args]
        for call in ast.walk(own):
            if not (isinstance(call, ast.Call) and self._calls_base(call, own, w.method)):
                continue
            if _hands_all_on(call, own):  # ``def run(self, *a, **k): return super().run(*a, **k)``
                self.more[fq].append(w._replace(skip=None, home=self.path))
                continue
            explicit = not isinstance(call.func.value, ast.Call)  # ``Base.run(self, ...)``
            position = w.position
            if position is not None and w.kind == "method" and explicit:
                position += 1
            value = _passed_value(call, position, w.keyword)
            if isinstance(value, ast.Name):
                # its own parameter handed on (``super().run(cfg)``): its calls decide
                index = next((i for i, a in enumerate(params) if a.arg == value.id), None)
                shift = 1 if w.kind == "method" else 0  # ``self`` is no argument of a call
                if index is not None and index >= shift:
                    self.more[fq].append(_Wanted(
                        w.origin, index - shift, value.id, None, w.kind, w.method, self.path
                    ))
                    continue
                if any(a.arg == value.id for a in own.args.kwonlyargs):
                    self.more[fq].append(_Wanted(
                        w.origin, None, value.id, None, w.kind, w.method, self.path
                    ))
                    continue
            reason = self._passes(call, position, w.keyword, w)
            if reason is not None:
                return f"(subclass `{cls.name}`) {reason}"
        return None

    def _own_parameter_stored(self, node: ast.Attribute, init, params) -> tuple[int | None, str] | None:
        """``self.config = config`` directly in the subclass's ``__init__``, ``config`` one of
        its parameters: ``(position, name)`` of it (its calls decide it), else ``None``."""
        if init is None or not (isinstance(node.value, ast.Name) and params and node.value.id == params[0].arg):
            return None
        stmt = self._parent(node)
        if not (isinstance(stmt, ast.Assign) and stmt in init.body and isinstance(stmt.value, ast.Name)):
            return None
        name = stmt.value.id
        own = next((i for i, a in enumerate(params) if a.arg == name), None)
        if own is not None and own > 0:
            return own - 1, name
        if any(a.arg == name for a in init.args.kwonlyargs):
            return None, name
        return None

    @staticmethod
    def _calls_base_init(call: ast.Call, init: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """``super().__init__(...)``, ``super(C, self).__init__(...)`` or
        ``<Base>.__init__(self, ...)`` (any base: which one is the wanted class's is not
        decided here, so each is judged)."""
        return _FileJudge._calls_base(call, init, "__init__")

    @staticmethod
    def _calls_base(call: ast.Call, method: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
        """``super().<name>(...)``, ``super(C, self).<name>(...)`` or ``<Base>.<name>(self,
        ...)`` inside ``method`` (a base's method of that name called on the instance)."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr == name):
            return False
        owner = func.value
        if isinstance(owner, ast.Call):
            return isinstance(owner.func, ast.Name) and owner.func.id == "super"
        first = (method.args.posonlyargs or method.args.args or [None])[0]
        return (
            first is not None
            and bool(call.args)
            and isinstance(call.args[0], ast.Name)
            and call.args[0].id == first.arg
        )


def _hands_all_on(call: ast.Call, method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``call`` (the base's method, called from ``method``) passes ``method``'s own
    ``*args, **kwargs`` on unchanged and ``method`` takes nothing else but the instance:
    the base then gets exactly what ``method``'s callers pass (``super().__init__(*args,
    **kwargs)``, ``Base.run(self, *args, **kwargs)``)."""
    a = method.args
    if a.vararg is None or a.kwarg is None or a.kwonlyargs or a.posonlyargs or len(a.args) != 1:
        return False
    args = call.args
    explicit = not isinstance(call.func, ast.Attribute) or not isinstance(call.func.value, ast.Call)
    if explicit:  # ``Base.run(self, *args, **kwargs)``: the instance first
        if not (args and isinstance(args[0], ast.Name) and args[0].id == a.args[0].arg):
            return False
        args = args[1:]
    return (
        len(args) == 1
        and isinstance(args[0], ast.Starred)
        and isinstance(args[0].value, ast.Name)
        and args[0].value.id == a.vararg.arg
        and len(call.keywords) == 1
        and call.keywords[0].arg is None
        and isinstance(call.keywords[0].value, ast.Name)
        and call.keywords[0].value.id == a.kwarg.arg
    )


def _loads_a_module(node: ast.expr) -> bool:
    """``importlib.import_module(...)``, ``__import__(...)``, ``sys.modules[...]``."""
    if isinstance(node, ast.Call):
        name = dotted_name(node.func) or ""
        return name == "__import__" or name.rpartition(".")[2] == "import_module"
    return isinstance(node, ast.Subscript) and dotted_name(node.value) == "sys.modules"


#: Attributes whose replacement changes how the class builds its instances.
_CONSTRUCTION_ATTRIBUTES = frozenset({"__init__", "__new__", "__call__", "__init_subclass__", "__class__"})


def _resolved(fq: str, wanted: Mapping[str, list[_Wanted]], aliases: Mapping[str, str]) -> str:
    """``fq`` through the re-exports known (``pkg.launch`` -> ``pkg.mid.launch`` ->
    ``pkg.lib.launch``), up to a wanted name."""
    for _ in range(8):
        if fq in wanted or fq not in aliases:
            return fq
        fq = aliases[fq]
    return fq


def _within(module: str, name: str) -> bool:
    """Whether ``module`` is the module ``name`` or one inside it (``__import__("pkg")``
    hands back ``pkg``, whose ``.lib.launch`` follows)."""
    return module == name or module.startswith(name + ".")


def dotted_name(node: ast.expr) -> str | None:
    """``a.b.c`` for a chain of names, else ``None`` (:func:`ppo_migrate.rules.targets.dotted_parts`)."""
    parts = dotted_parts(node)
    return ".".join(parts) if parts else None


def _harmless(node: ast.AST, parent: ast.AST | None, parent_of) -> bool:
    """A reference that neither calls nor hands on the function or class: an annotation,
    ``isinstance(x, C)``/``issubclass``, ``except C``, a comparison (``type(x) is C``)."""
    if isinstance(parent, ast.Compare):
        return True
    if isinstance(parent, ast.ExceptHandler) and parent.type is node:
        return True
    if isinstance(parent, ast.Tuple) and isinstance(parent_of(parent), ast.Call):
        node, parent = parent, parent_of(parent)  # ``isinstance(x, (A, B))``
    if (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Name)
        and parent.func.id in ("isinstance", "issubclass")
        and len(parent.args) == 2
        and (parent.args[1] is node or (parent.func.id == "issubclass" and parent.args[0] is node))
    ):
        return True
    if (
        isinstance(parent, ast.Call)
        and parent.args
        and parent.args[0] is node
        and len(parent.args) >= 2
        and isinstance(parent.args[1], ast.Constant)
        and isinstance(parent.args[1].value, str)
        and parent.args[1].value not in _CONSTRUCTION_ATTRIBUTES
        and (dotted_name(parent.func) or "").rpartition(".")[2]
        in ("setattr", "delattr", "getattr", "hasattr", "object")
    ):
        # ``monkeypatch.setattr(Trainer, "fit", f)``, ``mock.patch.object(Trainer,
        # "init_ray")``: an attribute of the class replaced or read, nothing built
        return True
    # in an annotation: climb to the statement and see which field holds the chain
    child, up = node, parent
    while up is not None and not isinstance(up, (ast.stmt, ast.arg)):
        child, up = up, parent_of(up)
    if isinstance(up, ast.arg):
        return up.annotation is child
    if isinstance(up, ast.AnnAssign):
        return up.annotation is child
    if isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return up.returns is child
    return False


def _shown(source: str) -> str:
    """A value's source, on one line and at most 60 characters."""
    one = " ".join(source.split())
    return one if len(one) <= 60 else one[:57] + "..."


__all__ = ["CallerVerdict", "judge_callers", "pending_origins", "with_verdicts"]
