"""``apply --thread-config``'s structural edits with LibCST, driven by the caller plan.

:func:`ppo_migrate.callers.plan` (the analysis core, Python's ``ast``) decides which
functions get a config parameter and which callers pass what; :func:`thread` makes
those edits with LibCST (a keyword parameter appended as the file's own layout
allows, ``config=<expr>`` at each caller, the config passed at the runtime call),
the only part of the caller phase that needs LibCST. :class:`_FileVisitor` finds
the same definitions and calls as the plan's index, as LibCST nodes to edit.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import libcst as cst
from libcst.metadata import (
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
    QualifiedNameSource,
    ScopeProvider,
)

from ppo_migrate.callers import (
    _TRANSPARENT_DECORATORS,
    CallSite,
    FunctionInfo,
    Plan,
    module_name,
)
from ppo_migrate.codemod import parse_module
from ppo_migrate.constants import CONFIG_PARAMETER
from ppo_migrate.diagnostics import Diagnostic, qualname
from ppo_migrate.files import FileChanged, atomic_write, decode_source, encode_source, read_source
from ppo_migrate.settings import Settings
from ppo_migrate.targets import module_package, resolve_relative


class _FileVisitor(cst.CSTVisitor):
    """Collects function definitions, calls of followed functions and value references."""

    METADATA_DEPENDENCIES = (
        QualifiedNameProvider,
        ScopeProvider,
        PositionProvider,
        ParentNodeProvider,
    )

    def __init__(self, path: str, module: str, package: tuple[str, ...], wanted: set[str], settings: Settings, wrapper: MetadataWrapper, tree: cst.Module) -> None:
        super().__init__()
        self.path = path
        self.module = module
        self.package = package
        self.wanted = wanted
        self.settings = settings
        self._wrapper = wrapper
        self._tree = tree
        self._stack: list[tuple[str, str, cst.CSTNode]] = []
        self._analysis = None  # the core's analysis of the module, built on first need
        self._ast_calls: dict[tuple[int, int], object] = {}
        self.defs: dict[str, tuple[cst.FunctionDef, FunctionInfo]] = {}
        self._def_lines: dict[str, list[int]] = defaultdict(list)
        self.sites: list[tuple[cst.Call, CallSite]] = []
        self.values: list[tuple[str, int]] = []
        self.values_fq: list[str] = []
        self.exported: set[str] = set()

    # -- scope bookkeeping ------------------------------------------------------
    def _qualname(self, extra: str | None = None) -> str:
        frames = [(k, n) for k, n, _ in self._stack] + ([("function", extra)] if extra else [])
        return qualname(frames)

    def _caller(self) -> str | None:
        if not self._stack or self._stack[-1][0] != "function" or self._stack[-1][1] == "<lambda>":
            return None
        return f"{self.module}.{self._qualname()}"

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        for d in node.decorators:
            d.visit(self)
        node.params.visit(self)
        qualname = self._qualname(node.name.value)
        fq = f"{self.module}.{qualname}"
        pos = self.get_metadata(PositionProvider, node)
        param = _param_name(node)
        cls = self._qualname() if self._stack and self._stack[-1][0] == "class" else None
        self._def_lines[fq].append(pos.start.line)
        self.defs[fq] = (
            node,
            FunctionInfo(fq, self.path, qualname, pos.start.line, self._block(node, qualname, param), param, cls),
        )
        self._stack.append(("function", node.name.value, node))
        node.body.visit(self)
        self._stack.pop()
        return False

    def leave_Module(self, original_node: cst.Module) -> None:
        # ``if ...: def f() / else: def f()`` or a redefinition: which one runs
        # (and so which one a call reaches) is not known here.
        for fq, lines in self._def_lines.items():
            if len(lines) > 1:
                shown = ", ".join(map(str, lines[:-1])) + f" and {lines[-1]}"
                self.defs[fq][1].block = f"it is defined more than once (lines {shown})"

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        for d in node.decorators:
            d.visit(self)
        for a in (*node.bases, *node.keywords):
            a.visit(self)
        self._stack.append(("class", node.name.value, node))
        node.body.visit(self)
        self._stack.pop()
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        node.params.visit(self)
        self._stack.append(("function", "<lambda>", node))
        node.body.visit(self)
        self._stack.pop()
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._stack:
            return
        for t in node.targets:
            if isinstance(t.target, cst.Name) and t.target.value == "__all__":
                for element in getattr(node.value, "elements", ()):
                    if isinstance(element.value, cst.SimpleString):
                        value = element.value.evaluated_value
                        if isinstance(value, str):
                            self.exported.add(value)

    def _block(self, node: cst.FunctionDef, qualname: str, param: str) -> str | None:
        for d in node.decorators:
            expr = d.decorator
            name = expr.value if isinstance(expr, cst.Name) else None
            if name not in _TRANSPARENT_DECORATORS:
                code = cst.Module(body=()).code_for_node(expr)
                return f"it is decorated with `@{code}`, so its calls cannot all be found"
        if "<lambda>" in qualname:
            return "it is defined inside a lambda"
        star_kwarg = node.params.star_kwarg
        if isinstance(star_kwarg, cst.Param):
            return (
                f"it takes `**{star_kwarg.name.value}`, so a `{param}=` keyword "
                "may already flow through it"
            )
        return None

    # -- calls and references ---------------------------------------------------
    def _fqs(self, node: cst.BaseExpression) -> set[str]:
        if (
            isinstance(node, cst.Attribute)
            and isinstance(node.value, cst.Name)
            and node.value.value == "self"
        ):
            cls = self._self_class()
            return {f"{self.module}.{cls}.{node.attr.value}"} if cls else set()
        out: set[str] = set()
        for q in self.get_metadata(QualifiedNameProvider, node, set()):
            if q.source is QualifiedNameSource.LOCAL:
                out.add(f"{self.module}.{q.name}")
            elif q.source is QualifiedNameSource.IMPORT:
                r = resolve_relative(q.name, self.package)
                if r is not None:
                    out.add(r)
        return out

    def _self_class(self) -> str | None:
        """The qualified name of the class whose method binds ``self`` here."""
        for i in range(len(self._stack) - 1, 0, -1):
            kind, _, node = self._stack[i]
            if kind == "function" and isinstance(node, cst.FunctionDef) and self._stack[i - 1][0] == "class":
                params = node.params.params
                if params and params[0].name.value == "self":
                    return qualname([(k, n) for k, n, _ in self._stack[:i]])
                return None
        return None

    def visit_Call(self, node: cst.Call) -> None:
        fqs = self._fqs(node.func) & self.wanted
        if not fqs:
            return
        found = self._config_at(node)
        pos = self.get_metadata(PositionProvider, node).start
        keywords = frozenset(a.keyword.value for a in node.args if a.keyword is not None)
        unpacked = next(
            (a.star + cst.Module(body=()).code_for_node(a.value) for a in node.args if a.star),
            None,
        )
        for fq in sorted(fqs):
            self.sites.append(
                (
                    node,
                    CallSite(
                        self.path,
                        pos.line,
                        pos.column + 1,
                        fq,
                        self._caller(),
                        self._qualname(),
                        found,
                        keywords,
                        unpacked,
                    ),
                )
            )

    def _config_at(self, node: cst.Call) -> str | None:
        """The config the analysis core would pass at this call (a safe fix's; an unsafe
        one's too with ``unsafe_fixes``), found through the ``ast`` call at the same place."""
        import ast

        from ppo_migrate.analysis.check import ModuleAnalysis
        from ppo_migrate.analysis.module import SourceProblem

        if self._analysis is None:
            try:
                self._analysis = ModuleAnalysis(self._tree.code, self.path, self.settings, package=self.package)
            except SourceProblem:
                self._analysis = False  # type: ignore[assignment]
                return None
            m = self._analysis.module
            self._ast_calls = {m.start(c): c for c in ast.walk(m.tree) if isinstance(c, ast.Call)}
        if self._analysis is False:
            return None
        pos = self.get_metadata(PositionProvider, node).start
        call = self._ast_calls.get((pos.line, pos.column + 1))
        if call is None:
            return None
        choice = self._analysis.config_at(call)  # type: ignore[union-attr]
        if choice is None:
            return None
        if choice.applicability != "safe" and not getattr(self.settings, "unsafe_fixes", False):
            return None
        return choice.expression

    def _reference(self, node: cst.BaseExpression) -> None:
        """Record a use of a followed function that is not a call of it."""
        parent = self.get_metadata(ParentNodeProvider, node, None)
        if isinstance(parent, cst.Call) and parent.func is node:
            return  # a call: recorded by visit_Call
        if isinstance(parent, cst.FunctionDef) and parent.name is node:
            return  # the definition itself
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            return  # ``x.name``: judged as the Attribute node
        for fq in self._fqs(node) & self.wanted:
            self.values.append((self.path, self.get_metadata(PositionProvider, node).start.line))
            self.values_fq.append(fq)

    def visit_Name(self, node: cst.Name) -> None:
        self._reference(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._reference(node)


def _param_name(node: cst.FunctionDef) -> str:
    """``config``, or the first of ``ppo_config``, ``ppo_config_2``… not used in the function."""
    used: set[str] = set()

    class _Names(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            used.add(n.value)

    node.visit(_Names())
    for candidate in (CONFIG_PARAMETER, "ppo_config", *(f"ppo_config_{i}" for i in range(2, 100))):
        if candidate not in used:
            return candidate
    return "ppo_config_thread"  # pragma: no cover


def _parse(path: str):
    source = read_source(Path(path))
    text, encoding, bom = decode_source(source.data)
    tree = parse_module(text)  # guarded: deep nesting would crash LibCST's native parser
    return source, text, encoding, bom, tree


def _visit(path: str, wanted: set[str], settings: Settings):
    source, text, encoding, bom, tree = _parse(path)
    wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
    visitor = _FileVisitor(path, module_name(path), module_package(path), wanted, settings, wrapper, tree)
    wrapper.visit(visitor)
    return source, text, encoding, bom, tree, wrapper, visitor


def _append_item(items: Sequence, new_item, *, opening_ws):
    """Append a parameter/argument keeping a trailing-comma, one-per-line layout."""
    if not items:
        return (new_item,)
    last = items[-1]
    comma = last.comma
    if isinstance(comma, cst.Comma) and "\n" in cst.Module(body=()).code_for_node(comma):
        if len(items) >= 2 and isinstance(items[-2].comma, cst.Comma):
            between = items[-2].comma
        else:
            between = cst.Comma(whitespace_after=opening_ws)
        return (*items[:-1], last.with_changes(comma=between), new_item.with_changes(comma=comma))
    return (*items, new_item)


class _ThreadTransformer(cst.CSTTransformer):
    def __init__(self, params: dict[cst.FunctionDef, str], runtime: dict[cst.Call, str], callers: dict[cst.Call, tuple[str, str]], keyword: bool) -> None:
        super().__init__()
        self.params = params
        self.runtime = runtime
        self.callers = callers
        self.keyword = keyword

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        name = self.params.get(original_node)
        if name is None:
            return updated_node
        p = updated_node.params
        new = cst.Param(
            cst.Name(name),
            default=cst.Name("None"),
            equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
        )
        ws = updated_node.whitespace_before_params
        if isinstance(p.star_arg, (cst.Param, cst.ParamStar)):
            if p.kwonly_params:
                p = p.with_changes(kwonly_params=_append_item(p.kwonly_params, new, opening_ws=ws))
            else:
                p = p.with_changes(kwonly_params=(new,))
        else:
            p = p.with_changes(params=_append_item(p.params, new, opening_ws=ws))
        return updated_node.with_changes(params=p)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if original_node in self.runtime:
            from ppo_migrate.codemod import configless_kind, rewrite_call

            kind = configless_kind(original_node) or "empty"
            return rewrite_call(updated_node, kind, self.runtime[original_node], keyword=self.keyword)
        if original_node in self.callers:
            name, expr = self.callers[original_node]
            if any(a.keyword is not None and a.keyword.value == name for a in updated_node.args):
                return updated_node  # never a duplicate keyword (plan refuses such calls)
            arg = cst.Arg(
                cst.parse_expression(expr),
                keyword=cst.Name(name),
                equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
            )
            args = updated_node.args
            if args and not isinstance(args[-1].comma, cst.Comma):
                args = (*args[:-1], args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
                return updated_node.with_changes(args=(*args, arg))
            return updated_node.with_changes(args=_append_item(args, arg, opening_ws=updated_node.whitespace_before_args))
        return updated_node


def thread(the_plan: Plan, settings: Settings) -> tuple[list[str], list[Diagnostic]]:
    """Rewrite the files of a plan: add parameters, pass them on, pass configs at callers.

    Args:
        the_plan: from :func:`plan`; only ``threadable`` functions are changed.
        settings: the run's settings (``keyword``).

    Returns:
        ``(changed_paths, problems)``: the files written, and PPO904/PPO901
        diagnostics for files that changed on disk or could not be written.
    """
    if not the_plan.threadable:
        return [], []
    files: dict[str, None] = {}
    for fq in sorted(the_plan.threadable):
        files[the_plan.index.functions[fq].path] = None
        for s in the_plan.index.sites.get(fq, ()):
            files[s.path] = None
    changed: list[str] = []
    problems: list[Diagnostic] = []
    wanted = set(the_plan.threadable)
    for path in sorted(files):
        source, text, encoding, bom, tree, wrapper, visitor = _visit(path, wanted, settings)
        params: dict[cst.FunctionDef, str] = {}
        runtime: dict[cst.Call, str] = {}
        callers: dict[cst.Call, tuple[str, str]] = {}
        for fq, (node, info) in visitor.defs.items():
            if fq in the_plan.threadable:
                params[node] = the_plan.index.functions[fq].param
        if params:
            from ppo_migrate.analysis.check import analyse

            diagnostics = analyse(tree.code, path, settings)
            positions = wrapper.resolve(PositionProvider)
            calls = {(positions[n].start.line, positions[n].start.column + 1): n for n in positions if isinstance(n, cst.Call)}
            mod = module_name(path)
            for d in diagnostics:
                fq = f"{mod}.{d.scope}"
                if d.code == "PPO002" and fq in the_plan.threadable and (d.line, d.column) in calls:
                    runtime[calls[(d.line, d.column)]] = the_plan.index.functions[fq].param
        for call, site in visitor.sites:
            if site.callee not in the_plan.threadable:
                continue
            param = the_plan.index.functions[site.callee].param
            if site.config is not None:
                callers[call] = (param, site.config)
            elif site.caller in the_plan.threadable:
                callers[call] = (param, the_plan.index.functions[site.caller].param)
        if not (params or runtime or callers):
            continue
        printed = tree.code
        if not text.startswith(printed):  # LibCST would change bytes beyond the edits
            problems.append(
                Diagnostic(
                    path, 1, 1, 1, 1, "PPO902",
                    "cannot rewrite exactly: LibCST does not reproduce this file byte for byte",
                )
            )
            continue
        new_text = tree.visit(_ThreadTransformer(params, runtime, callers, settings.keyword)).code
        new_text += text[len(printed):]  # a tail LibCST drops (a final CR) is kept
        if new_text == text:
            continue
        try:
            atomic_write(Path(path), encode_source(new_text, encoding, bom), expected=source)
        except FileChanged as exc:
            problems.append(Diagnostic(path, 1, 1, 1, 1, "PPO904", f"not rewritten: {exc}"))
            continue
        except OSError as exc:
            problems.append(Diagnostic(path, 1, 1, 1, 1, "PPO901", f"cannot write: {exc.strerror or exc}"))
            continue
        changed.append(path)
    return changed, problems


__all__ = ["thread"]
