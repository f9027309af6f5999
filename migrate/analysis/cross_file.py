"""What the run's other files pass for a parameter a safe fix rests on.

A safe fix passes ``config`` because ``config`` is certainly bound and positively a
training config where it is used. When it is a parameter of a module-level function
(``def run_ppo(config)``) or ``self.config`` set from a parameter of a class's
``__init__``, it is whatever every caller passes, and the analysis of one file sees
only that file's callers (:meth:`ppo_migrate.analysis.configs.ConfigFinder._callers_trust`).
A caller in another file may pass a section of the config or a plain dict
(``Worker(config=self.config.actor_rollout_ref)``, ``launch({"num_gpus": 8})``), and
verl's function raises on a dict (``OmegaConf.select``). So after the per-file phase,
:func:`judge_callers` reads the run's other files that spell the function's or class's
name, resolves each reference with the same core (:func:`ppo_migrate.analysis.callers.reference_fqs`),
and judges what each call passes there with that file's own rules
(:meth:`ConfigFinder._passed_trust`). A fix with a caller passing anything not
positively a config, or a reference other than a call (the class handed to
``ray.remote``, a subclass, ``f = run_ppo``), becomes an unsafe fix
(:func:`with_verdicts`); callers outside the run's files stay unseen.
"""

from __future__ import annotations

import ast
import os
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple

from ppo_migrate.diagnostics import CallerOrigin, Diagnostic
from ppo_migrate.settings import Settings

#: Above this many names, a file's identifiers are collected once instead of searching
#: the bytes for each name.
_MANY_NAMES = 32
_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


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
            )
        out.append(d)
    return out


class _Wanted(NamedTuple):
    """A function or class whose calls pass a value to a judged origin.

    Attributes:
        origin: the fix's :class:`CallerOrigin` the calls are judged for.
        position, keyword: where the calls pass it (a subclass's own ``__init__`` may take
            it at another position, under another name).
        skip: the file whose own analysis judged these calls already (absolute path), or
            ``None`` (a subclass found here: every file counts).
    """

    origin: CallerOrigin
    position: int | None
    keyword: str
    skip: str | None


#: Rounds of subclasses followed (a subclass of a subclass ...) before giving up.
_MAX_ROUNDS = 6


def judge_callers(
    origins: Iterable[CallerOrigin], paths: Sequence[str], settings: Settings
) -> dict[CallerOrigin, str | None]:
    """Judge the calls and references in ``paths`` of each origin's function or class.

    Args:
        origins: the parameters safe fixes rest on (:attr:`ppo_migrate.diagnostics.Fix.origins`).
        paths: every file of the run (display paths). Each origin's own file is left out
            (its callers were judged with it).
        settings: the run's settings (the config names, the targets).

    Returns:
        origin -> ``None`` when no reference in another file argues against it, else the
        first reason by path and line: ``"<path>:<line> passes `<value>`, which may not be
        a training config"`` (a dict, a section ``cfg.actor_rollout_ref``, unpacked
        ``*args``), or ``"<path>:<line> hands `<name>` on, ..."`` (any reference but a call,
        ``.remote(...)``, an annotation, ``isinstance``, ``except`` or a comparison).
        A subclass in another file is followed: without an ``__init__`` of its own, its
        calls are judged the same way; with one, what it passes to the base's
        (``super().__init__(...)``), and if that is its own parameter, its calls.
        A file that cannot be read, decoded or parsed is left out (it cannot run either).
    """
    from ppo_migrate.analysis.callers import module_name

    wanted: dict[str, list[_Wanted]] = defaultdict(list)
    verdicts: dict[CallerOrigin, str | None] = {}
    for o in origins:
        verdicts[o] = None
        wanted[f"{module_name(o.path)}.{o.qualname}"].append(
            _Wanted(o, o.position, o.keyword, os.path.abspath(o.path))
        )
    found: dict[CallerOrigin, list[tuple[str, int, str]]] = defaultdict(list)
    parsed: dict[str, object] = {}
    for _ in range(_MAX_ROUNDS):
        if not wanted:
            break
        short = {fq.rsplit(".", 1)[-1] for fq in wanted}
        more: dict[str, list[_Wanted]] = defaultdict(list)
        for path in paths:
            here = os.path.abspath(path)
            if all(w.skip == here for entries in wanted.values() for w in entries):
                continue  # only origins of this file, whose own analysis judged its calls
            data = _read(path)
            if data is None or not _mentions(data, short):
                continue
            if path not in parsed:
                parsed[path] = _analysis(path, data, settings)
            if parsed[path] is None:
                continue
            judge = _FileJudge(path, parsed[path], wanted, short)
            for origin, line, reason in judge.reasons():
                found[origin].append((path, line, reason))
            for fq, entries in judge.subclasses.items():
                more[fq].extend(entries)
        wanted = more
    else:
        for entries in wanted.values():
            for w in entries:
                found[w.origin].append(("", 0, "subclasses nest deeper than followed"))
    for origin, reasons in found.items():
        path, line, reason = min(reasons)
        verdicts[origin] = f"{path}:{line} {reason}" if path else reason
    return verdicts


def _read(path: str) -> bytes | None:
    from ppo_migrate.runner import _read_bytes

    try:
        return _read_bytes(path)
    except (OSError, ValueError):
        return None


def _mentions(data: bytes, names: set[str]) -> bool:
    """Whether the file spells one of ``names`` as an identifier (``train`` is not in
    ``trainer``); a non-ASCII file also when it may spell one otherwise (NFKC)."""
    from ppo_migrate.runner import is_candidate

    encoded = [n.encode() for n in names]
    if not data.isascii():
        return is_candidate(data, encoded)
    if len(encoded) > _MANY_NAMES:
        return not set(encoded).isdisjoint(_IDENTIFIER.findall(data))
    if not any(n in data for n in encoded):
        return False
    return re.search(rb"\b(?:" + b"|".join(map(re.escape, encoded)) + rb")\b", data) is not None


def _analysis(path: str, data: bytes, settings: Settings):
    """The core's analysis of another file, or ``None`` when it cannot be had."""
    from ppo_migrate.analysis.check import ModuleAnalysis
    from ppo_migrate.files import decode_source

    try:
        return ModuleAnalysis(decode_source(data)[0], path, settings)
    except Exception:  # noqa: BLE001 -- undecodable or unparsable: it cannot run either
        return None


class _FileJudge:
    """The references of one file to the wanted functions and classes."""

    def __init__(self, path: str, analysis, wanted: Mapping[str, list[_Wanted]], short: set[str]) -> None:
        from ppo_migrate.analysis.callers import module_name
        from ppo_migrate.targets import module_package

        self.path = path
        self.here = os.path.abspath(path)
        self.analysis = analysis
        self.wanted = wanted
        self.short = short
        self.module = module_name(path)
        self.package = module_package(path)
        self.parents: dict[int, ast.AST] = {}
        #: subclass fq -> what its calls pass, to be judged next round
        self.subclasses: dict[str, list[_Wanted]] = defaultdict(list)

    def reasons(self) -> Iterator[tuple[CallerOrigin, int, str]]:
        """``(origin, line, reason)`` for each reference arguing against an origin."""
        import unicodedata

        from ppo_migrate.analysis.callers import reference_fqs

        tree = self.analysis.module.tree
        looked_for = set(self.short)
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[id(child)] = node
            if isinstance(node, ast.ImportFrom):
                # ``from pkg.mod import run_ppo as rp``: ``rp(...)`` calls it
                looked_for.update(a.asname for a in node.names if a.asname and a.name in self.short)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                spelled = unicodedata.normalize("NFKC", node.id)
            elif isinstance(node, ast.Attribute):
                spelled = unicodedata.normalize("NFKC", node.attr)
            else:
                continue
            if spelled not in looked_for:
                continue
            fqs = reference_fqs(self.analysis, self.module, self.package, node)
            for fq in fqs & self.wanted.keys():
                for w in self.wanted[fq]:
                    if w.skip == self.here:
                        continue  # the defining file: its own analysis judged these calls
                    reason = self._argues_against(node, w)
                    if reason is not None:
                        yield w.origin, node.lineno, reason

    def _argues_against(self, node: ast.expr, w: _Wanted) -> str | None:
        """Why the reference ``node`` makes the origin's fix unsafe, or ``None``."""
        parent = self.parents.get(id(node))
        call = None
        if isinstance(parent, ast.Call) and parent.func is node:
            call = parent
        elif isinstance(parent, ast.Attribute) and parent.attr == "remote":
            up = self.parents.get(id(parent))
            if isinstance(up, ast.Call) and up.func is parent:
                call = up  # ``Worker.remote(config)``: a Ray actor built with these arguments
        if call is not None:
            return self._passes(call, w.position, w.keyword)
        if isinstance(parent, ast.ClassDef) and node in parent.bases:
            return self._subclass(parent, w)
        if _harmless(node, parent, self.parents):
            return None
        return f"hands `{self.analysis.module.source_of(node)}` on, to be called with arguments not seen"

    def _passes(self, call: ast.Call, position: int | None, keyword: str) -> str | None:
        from ppo_migrate.analysis.configs import _UNPACKED, _passed_value

        value = _passed_value(call, position, keyword)
        if value is None:
            return None  # passes nothing there: the parameter's default
        if value is _UNPACKED:
            return "passes unpacked arguments, which may not hold a training config"
        if self.analysis.configs._passed_trust(value) in (None, "strong"):
            return None
        return f"passes `{_shown(self.analysis.module.source_of(value))}`, which may not be a training config"

    def _subclass(self, cls: ast.ClassDef, w: _Wanted) -> str | None:
        """A subclass of a wanted class: its own ``__init__`` judged, its calls wanted next."""
        from ppo_migrate.analysis.scopes import frames
        from ppo_migrate.diagnostics import qualname

        scope = self.analysis.scopes.scope_for_node(cls)
        outer = frames(scope.parent) if scope is not None else (("function", "?"),)
        if any(kind == "function" for kind, _ in outer):
            return f"subclasses `{cls.name}` inside a function, called with arguments not seen"
        names = set(self.analysis.settings.config_names)
        for node in ast.walk(cls):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, (ast.Store, ast.Del))
                and node.attr in names
            ):
                return f"sets `{self.analysis.module.source_of(node)}` in subclass `{cls.name}`"
        fq = f"{self.module}.{qualname((*outer, ('class', cls.name)))}"
        init = next(
            (s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"),
            None,
        )
        if init is None:
            # its calls run the base's ``__init__`` with the same arguments
            self.subclasses[fq].append(_Wanted(w.origin, w.position, w.keyword, None))
            return None
        calls = [c for c in ast.walk(init) if isinstance(c, ast.Call) and self._calls_base_init(c, init)]
        if not calls:
            return f"subclass `{cls.name}` has an `__init__` that does not call the base's"
        params = [*init.args.posonlyargs, *init.args.args]
        for c in calls:
            explicit = not isinstance(c.func.value, ast.Call)  # ``Base.__init__(self, ...)``
            position = None if w.position is None else w.position + (1 if explicit else 0)
            reason = self._passes(c, position, w.keyword)
            if reason is not None:
                return f"(subclass `{cls.name}`) {reason}"
            from ppo_migrate.analysis.configs import _passed_value

            value = _passed_value(c, position, w.keyword)
            if isinstance(value, ast.Name):
                own = next((i for i, a in enumerate(params) if a.arg == value.id), None)
                if own is not None and own > 0:
                    self.subclasses[fq].append(_Wanted(w.origin, own - 1, value.id, None))
                elif any(a.arg == value.id for a in init.args.kwonlyargs):
                    self.subclasses[fq].append(_Wanted(w.origin, None, value.id, None))
        return None

    @staticmethod
    def _calls_base_init(call: ast.Call, init: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """``super().__init__(...)``, ``super(C, self).__init__(...)`` or
        ``<Base>.__init__(self, ...)`` (any base: which one is the wanted class's is not
        decided here, so each is judged)."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr == "__init__"):
            return False
        owner = func.value
        if isinstance(owner, ast.Call):
            return isinstance(owner.func, ast.Name) and owner.func.id == "super"
        first = (init.args.posonlyargs or init.args.args or [None])[0]
        return (
            first is not None
            and bool(call.args)
            and isinstance(call.args[0], ast.Name)
            and call.args[0].id == first.arg
        )


def _harmless(node: ast.AST, parent: ast.AST | None, parents) -> bool:
    """A reference that neither calls nor hands on the function or class: an annotation,
    ``isinstance(x, C)``/``issubclass``, ``except C``, a comparison (``type(x) is C``)."""
    if isinstance(parent, ast.Compare):
        return True
    if isinstance(parent, ast.ExceptHandler) and parent.type is node:
        return True
    if (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Name)
        and parent.func.id in ("isinstance", "issubclass")
        and len(parent.args) == 2
        and parent.args[1] is node
    ):
        return True
    # in an annotation: climb to the statement and see which field holds the chain
    child, up = node, parent
    while up is not None and not isinstance(up, (ast.stmt, ast.arg)):
        child, up = up, parents.get(id(up))
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


__all__ = ["judge_callers", "pending_origins", "with_verdicts"]
