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
import itertools
import os
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
from ppo_migrate.files import decode_source
from ppo_migrate.project.references import Wanted, current_references, reexported
from ppo_migrate.project.snapshot import active, current
from ppo_migrate.project.modules import (
    module_name,
    namespace_prefixes,
    package_for_relative_imports,
)

if TYPE_CHECKING:
    from ppo_migrate.settings_model import Settings

#: Files whose analysis a judgement keeps for its second pass (more are parsed again: memory).
_KEEP_PARSED = 4
#: Analyses made between two runs of the cycle collector (:func:`_collect`).
_COLLECT_EVERY = 4


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
    # the named tuples made without their ``__new__`` (Python code: a call each of the
    # 3,000 origins and 9,000 names asked on benchmark item 12), with every field given
    make = tuple.__new__
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
        w = make(_Wanted, (o, o.position, o.keyword, here, o.kind, method, ""))
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
        short: set[str] = set()
        more: dict[str, list[_Wanted]] = defaultdict(list)
        # name -> the one file whose own analysis judged every use of it there (skipped)
        skips: dict[str, set[str | None]] = defaultdict(set)
        # the files a wanted subclass, re-export or function was found in (it may be used there)
        homes: set[str] = set()
        # what the run's reference index is asked: each name with its module and the file it
        # was found in (a relative import reaches it from inside that file's package only)
        asked: set[Wanted] = set()
        # one pass over the wanted names, each split once (benchmark item 12: 9,000 entries,
        # split four times over in four passes: ~10 ms of the judgement's ~60 ms)
        ask = asked.add
        for fq, entries in wanted.items():
            module, _, last = fq.rpartition(".")
            short.add(last)
            for w in entries:
                method, home = w.method, w.home
                if method:
                    short.add(method)
                skips[method or last].add(w.skip)
                if home:
                    homes.add(home)
                ask(make(Wanted, (last, module, home or w.skip or "")))
        own = {n: next(iter(k)) for n, k in skips.items() if len(k) == 1 and None not in k}
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

        for ref in current_references().referrers(paths, asked, read=homes, skip=own):
            if not ref.refers:
                continue
            path = ref.path
            analysis = parsed[path] if path in parsed else _analysis(path, ref.raw, settings)
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
            if any(reexported(fq, wanted, aliases) in wanted for fq in names):
                if path in parsed:
                    analysis = parsed[path]
                else:
                    raw = _read(path)  # read once a run: judged before, so it was read
                    analysis = _analysis(path, raw, settings) if raw is not None else None
                if analysis is not None:
                    judge_file(path, analysis)
        for exported, target, where in renamed:
            # ``from .lib import launch as start``: ``pkg.start`` is wanted next round, and
            # ``mypkg/api.py: from pkg.lib import launch``: ``mypkg.api.launch`` (its users
            # name ``api``, not ``lib``: this round's look did not read them)
            for w in wanted.get(reexported(target, wanted, aliases), ()):
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
        return reexported(fq, self.wanted, self.aliases)

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
