"""The LibCST pass: one walk per file yields both the edits and the diagnostics.

``check`` and ``apply`` both call :func:`process_source`, so they can never
disagree about what is configless. The same transform is a LibCST codemod
command, :class:`PassConfigCommand`, for ``python -m libcst.tool codemod``.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import (
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
    ScopeProvider,
)

from ppo_migrate.analysis.signatures import callee_signature
from ppo_migrate.constants import CONFIG_PARAMETER, MAX_NESTING, MAX_SOURCE_CHARS
from ppo_migrate.diagnostics import Diagnostic, Edit, Fix, is_suppressed, qualname
from ppo_migrate.output.concise_format import NOTICE_SEPARATOR
from ppo_migrate.scope import ConfigInScope, ConfigResolver
from ppo_migrate.settings import Settings
from ppo_migrate.shims import ShimDetector
from ppo_migrate.targets import TargetMatcher, Verdict, module_package, resolve_relative

_LINE_SPLIT = re.compile(r"\r\n|\r|\n")  # LibCST's line breaks (PositionProvider's NEWLINE_RE)
#: CPython's limit on nested brackets (``MAXLEVEL`` in its tokenizer, 3.8 to 3.13).
_MAX_BRACKETS = 200
_BRACKET_SCAN = re.compile(
    r"#[^\r\n]*"
    r"|[rRbBuUfF]{0,2}(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\""
    r"|'(?:\\.|[^'\\\r\n])*'|\"(?:\\.|[^\"\\\r\n])*\")"
    r"|[()\[\]{}]"
)


class UnparsableSource(ValueError):
    """LibCST is not given (or cannot be trusted with) this text; reported as PPO902.

    Raised by :func:`parse_module` for text too large or too deeply nested for
    LibCST, and by :func:`process_text` when LibCST's round trip of the text is
    not exact where an edit would have to be placed.

    Attributes:
        message: one line without the path, e.g. ``"nested too deeply (depth > 500)"``.
        line: 1-based line of the problem (1 when unknown).
        column: 1-based column in code points (1 when unknown).
    """

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


@dataclass(frozen=True)
class FileResult:
    """What the pass found and did in one file.

    Attributes:
        path: the file path as displayed.
        diagnostics: findings after ``# noqa`` and ``--select``/``--ignore``, sorted.
        new_text: the rewritten source text, or ``None`` when nothing changed.
        fixed: how many calls the rewrite changed.
        imports: how many imports/references ``use_ppo_runtime`` moved to ``ppo_runtime``.
    """

    path: str
    diagnostics: tuple[Diagnostic, ...] = ()
    new_text: str | None = None
    fixed: int = 0
    imports: int = 0


@dataclass
class _Finding:
    call: cst.Call
    code: str
    message: str
    scope: str
    config: ConfigInScope | None = None
    fix_node: cst.Call | None = None
    edit: Edit | None = None
    function: cst.CSTNode | None = None  # the innermost def/class/lambda around a PPO002
    callee: str = ""  # which definition the call binds to (analysis.signatures)


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=()).code_for_node(node)


def _spelled(call: cst.Call) -> str:
    """The call as written, on one line (runs of whitespace, newlines included, become
    one space; none after ``(`` or before ``)``), for messages:
    ``get_ppo_ray_runtime_env(None)``."""
    one_line = " ".join(_code(call).split())
    return one_line.replace("( ", "(").replace(" )", ")")


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def configless_kind(call: cst.Call) -> str | None:
    """How a target call omits its config.

    Args:
        call: a call of the runtime function.

    Returns:
        ``"empty"`` for ``f()``, ``"keywords"`` for ``f(other=...)`` without a
        config, ``"none"`` for ``f(None)``, ``"config=None"`` for
        ``f(config=None)``; ``None`` when a config (or ``*args``/``**kwargs``,
        which may hold one) is passed.
    """
    args = call.args
    if not args:
        return "empty"
    if any(a.star for a in args):
        return None
    positional = [a for a in args if a.keyword is None]
    if positional:
        first = positional[0]
        return "none" if _is_none(first.value) and args[0] is first else None
    for a in args:
        if a.keyword is not None and a.keyword.value == CONFIG_PARAMETER:
            return "config=None" if _is_none(a.value) else None
    return "keywords"


def rewrite_call(call: cst.Call, kind: str, expression: str, *, keyword: bool) -> cst.Call:
    """Pass ``expression`` as the config of a configless call.

    Args:
        call: the call node.
        kind: as returned by :func:`configless_kind`.
        expression: Python source of the config expression, e.g. ``"self.config"``.
        keyword: write ``config=<expression>`` instead of a positional argument.

    Returns:
        The new call node; whitespace and comments inside the parentheses are kept.
    """
    value = cst.parse_expression(expression)
    kw = cst.Name(CONFIG_PARAMETER) if keyword else None
    equal = (
        cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        )
        if keyword
        else cst.MaybeSentinel.DEFAULT
    )
    if kind == "empty":
        return call.with_changes(args=(cst.Arg(value=value, keyword=kw, equal=equal),))
    if kind == "keywords":
        first = cst.Arg(
            value=value,
            keyword=kw,
            equal=equal,
            comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")),
        )
        return call.with_changes(args=(first, *call.args))
    new_args = []
    done = False
    for a in call.args:
        if not done and kind == "none" and a.keyword is None:
            a = a.with_changes(value=value, keyword=kw, equal=equal)
            done = True
        elif (
            not done
            and kind == "config=None"
            and a.keyword is not None
            and a.keyword.value == CONFIG_PARAMETER
        ):
            a = a.with_changes(value=value)
            done = True
        new_args.append(a)
    return call.with_changes(args=tuple(new_args))


class _Pass(cst.CSTVisitor):
    """Visits every call once and records findings."""

    METADATA_DEPENDENCIES = (
        QualifiedNameProvider,
        ScopeProvider,
        PositionProvider,
        ParentNodeProvider,
    )

    def __init__(
        self,
        matcher: TargetMatcher,
        settings: Settings,
        package: tuple[str, ...],
        resolver_factory,
        path: str = "-",
    ) -> None:
        super().__init__()
        self.path = path
        self.matcher = matcher
        self.settings = settings
        self.package = package
        self._resolver_factory = resolver_factory
        self._resolver: ConfigResolver | None = None
        self.findings: list[_Finding] = []
        self._stack: list[tuple[str, str]] = []
        self._defs: list[cst.CSTNode] = []
        self._star_modules: set[str] = set()
        self.comments: dict[int, str] = {}  # line -> comment text, for ``# noqa``
        self._shim_detector: ShimDetector | None = None

    def _qualname(self) -> str:
        return qualname(self._stack)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        # decorators and defaults run in the enclosing scope: visit them first
        for d in node.decorators:
            d.visit(self)
        node.params.visit(self)
        if node.returns is not None:
            node.returns.visit(self)
        self._stack.append(("function", node.name.value))
        self._defs.append(node)
        node.body.visit(self)
        self._defs.pop()
        self._stack.pop()
        return False  # type: ignore[return-value]

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        for d in node.decorators:
            d.visit(self)
        for a in (*node.bases, *node.keywords):
            a.visit(self)
        self._stack.append(("class", node.name.value))
        self._defs.append(node)
        node.body.visit(self)
        self._defs.pop()
        self._stack.pop()
        return False  # type: ignore[return-value]

    def visit_Lambda(self, node: cst.Lambda) -> None:
        node.params.visit(self)
        self._stack.append(("function", "<lambda>"))
        self._defs.append(node)
        node.body.visit(self)
        self._defs.pop()
        self._stack.pop()
        return False  # type: ignore[return-value]

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            dots = "." * len(node.relative)
            module = _code(node.module) if node.module is not None else ""
            resolved = resolve_relative(dots + module, self.package)
            if resolved is not None:
                self._star_modules.add(resolved)

    def visit_Comment(self, node: cst.Comment) -> None:
        line = self.get_metadata(PositionProvider, node).start.line
        self.comments[line] = node.value

    def _callee_names(self, call: cst.Call) -> set[str]:
        if not isinstance(call.func, (cst.Name, cst.Attribute)):
            return set()  # ``f()()`` calls the result of a call, not the function
        names = {q.name for q in self.get_metadata(QualifiedNameProvider, call.func, set())}
        if not names and isinstance(call.func, cst.Name) and call.func.value in self.matcher.names:
            # an unbound name: ``from <target module> import *`` may provide it
            for module in self._star_modules:
                candidate = f"{module}.{call.func.value}"
                if candidate in self.matcher.targets:
                    names.add(candidate)
        return names

    def visit_Call(self, node: cst.Call) -> None:
        names = self._callee_names(node)
        if not names:
            return
        verdict, resolved = self.matcher.classify(names, self.package)
        if verdict is Verdict.OTHER:
            return
        callee = _code(node.func)
        scope = self._qualname()
        if verdict is Verdict.UNRESOLVABLE:
            self.findings.append(
                _Finding(
                    node,
                    "PPO903",
                    f"`{callee}` comes from a relative import that climbs past the top-level "
                    f"package ({', '.join(resolved)}); cannot tell if it is the runtime function",
                    scope,
                )
            )
            return
        kind = configless_kind(node)
        if kind is None:
            return
        if verdict is Verdict.AMBIGUOUS:
            self.findings.append(
                _Finding(
                    node,
                    "PPO003",
                    f"`{callee}()` may or may not be the runtime function: it is bound to "
                    + " or ".join(
                        n if "." in n else f"a local `{n}`" for n in resolved
                    )
                    + "; not rewritten",
                    scope,
                )
            )
            return
        shim = self._shims().why(node)
        if shim is not None:
            self.findings.append(
                _Finding(
                    node,
                    "PPO004",
                    f"`{callee}()` is a compatibility shim ({shim}); left as it is",
                    scope,
                )
            )
            return
        callee_in_effect = callee_signature(self.path, resolved, self.settings)
        if not callee_in_effect.accepts_config:
            self.findings.append(
                _Finding(
                    node,
                    "PPO005",
                    f"`{_spelled(node)}`{NOTICE_SEPARATOR}{callee_in_effect.reason}; "
                    f"{callee_in_effect.remedy}",
                    scope,
                    callee=callee_in_effect.detail,
                )
            )
            return
        config = self.resolver().find(node)
        if config is None:
            where = "at module level" if scope == "<module>" else f"in `{scope}`"
            self.findings.append(
                _Finding(
                    node,
                    "PPO002",
                    f"`{_spelled(node)}` called without a config and no config is in scope {where}; "
                    "this entry point must obtain the training config and pass it",
                    scope,
                    function=self._defs[-1] if self._defs else None,
                    callee=callee_in_effect.detail,
                )
            )
            return
        new_call = rewrite_call(node, kind, config.expression, keyword=self.settings.keyword)
        self.findings.append(
            _Finding(
                node,
                "PPO001",
                f"`{callee}()` called without the config in scope; pass `{config.expression}`",
                scope,
                config=config,
                callee=callee_in_effect.detail,
                fix_node=new_call,
                edit=self._edit(node, kind, config.expression),
            )
        )

    def resolver(self) -> ConfigResolver:
        """The module's :class:`ConfigResolver`, built on first need."""
        if self._resolver is None:
            self._resolver = self._resolver_factory()
        return self._resolver

    def absolute_names(self, node: cst.CSTNode) -> set[str]:
        """Absolute qualified names of an expression (relative imports resolved)."""
        out = set()
        for q in self.get_metadata(QualifiedNameProvider, node, set()):
            r = resolve_relative(q.name, self.package)
            if r is not None:
                out.add(r)
        return out

    def _shims(self) -> ShimDetector:
        if self._shim_detector is None:
            self._shim_detector = ShimDetector(
                self.metadata[ParentNodeProvider],  # type: ignore[arg-type]
                self.absolute_names,
                lambda names: bool(names) and names <= self.matcher.targets,
                lambda call: configless_kind(call) is not None,
            )
        return self._shim_detector

    def _edit(self, call: cst.Call, kind: str, expression: str) -> Edit:
        """The minimal text edit that :func:`rewrite_call` makes, in file positions."""
        text = f"{CONFIG_PARAMETER}={expression}" if self.settings.keyword else expression
        if kind == "empty":
            end = self.get_metadata(PositionProvider, call).end  # just after ``)``
            return Edit(text, end.line, end.column, end.line, end.column)
        if kind == "keywords":
            start = self.get_metadata(PositionProvider, call.args[0]).start
            return Edit(f"{text}, ", start.line, start.column + 1, start.line, start.column + 1)
        if kind == "none":
            arg = next(a for a in call.args if a.keyword is None)
        else:
            arg = next(
                a for a in call.args if a.keyword is not None and a.keyword.value == CONFIG_PARAMETER
            )
            text = expression
        rng = self.get_metadata(PositionProvider, arg.value)
        return Edit(text, rng.start.line, rng.start.column + 1, rng.end.line, rng.end.column + 1)


class _Rewriter(cst.CSTTransformer):
    def __init__(self, replacements: dict[cst.Call, cst.Call]) -> None:
        super().__init__()
        self.replacements = replacements

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        new = self.replacements.get(original_node)
        if new is None:
            return updated_node
        return updated_node.with_changes(args=new.args)


def analyze(
    module: cst.Module, path: str, settings: Settings, *, package: tuple[str, ...] | None = None
) -> tuple[list[Diagnostic], dict[cst.Call, cst.Call]]:
    """Run the pass over a parsed module.

    Args:
        module: the parsed module (not copied: it must not be shared).
        path: the file's path, for diagnostics and for finding its package.
        settings: targets, config names, keyword mode, rule selection.
        package: the file's package parts; found from ``path`` when ``None``.

    Returns:
        ``(diagnostics, replacements)``: the diagnostics (suppressed and deselected
        ones removed) and, for every fixable one kept, the original call node
        mapped to its rewritten node.
    """
    matcher = TargetMatcher.of(settings.targets)
    if package is None:
        package = module_package(path) if path and path != "-" else ()
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)

    def make_resolver() -> ConfigResolver:
        return ConfigResolver(
            module,
            wrapper.resolve(ScopeProvider),
            wrapper.resolve(ParentNodeProvider),
            wrapper.resolve(PositionProvider),
            lambda node: visitor.get_metadata(QualifiedNameProvider, node, set()),
            settings.config_names,
        )

    visitor = _Pass(matcher, settings, package, make_resolver, path)
    wrapper.visit(visitor)
    positions = wrapper.resolve(PositionProvider)
    # ``# noqa`` counts only in a real comment, never inside a string
    line_count = module.code.count("\n") + module.code.count("\r") + 1
    lines = [visitor.comments.get(i, "") for i in range(1, line_count + 1)]
    diagnostics: list[Diagnostic] = []
    replacements: dict[cst.Call, cst.Call] = {}
    show_shims = getattr(settings, "show_shims", False)
    for f in visitor.findings:
        if not settings.rule_enabled(f.code) or (f.code == "PPO004" and not show_shims):
            continue
        rng = positions[f.call]
        fix = None
        if f.edit is not None:
            fix = Fix(message=f"Pass `{f.config.expression}`", edits=(f.edit,))  # type: ignore[union-attr]
        diag = Diagnostic(
            path=path,
            line=rng.start.line,
            column=rng.start.column + 1,
            end_line=rng.end.line,
            end_column=rng.end.column + 1,
            code=f.code,
            message=f.message,
            scope=f.scope,
            fix=fix,
            callee=f.callee,
        )
        if is_suppressed(diag, lines):
            continue
        diagnostics.append(diag)
        if f.fix_node is not None:
            replacements[f.call] = f.fix_node
    diagnostics.sort(key=Diagnostic.sort_key)
    return diagnostics, replacements


def _nesting_problem(text: str) -> UnparsableSource | None:
    """Why ``text`` must not reach LibCST's parser, judged by Python's own parser."""
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. invalid escape sequences
            tree = compile(text, "<source>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (RecursionError, MemoryError):
        return UnparsableSource(f"nested too deeply (depth > {MAX_NESTING})")
    except SyntaxError as exc:
        msg = exc.msg or ""
        if msg.startswith("too many nested") or "too complex" in msg:  # CPython's own limits
            line, col = exc.lineno or 1, max(exc.offset or 1, 1)
            return UnparsableSource(f"nested too deeply ({msg})", line, col)
        # Python 2, a broken file, or syntax newer than this interpreter: LibCST
        # decides; only keep bracket nesting CPython itself refuses away from it.
        depth, deepest = 0, 0
        for m in _BRACKET_SCAN.finditer(text):
            c = m.group()
            if c in "([{":
                depth += 1
                if depth > deepest:
                    deepest = depth
                    if deepest > _MAX_BRACKETS:
                        line, col = _position_of_offset(text, m.start())
                        return UnparsableSource(
                            f"nested too deeply (more than {_MAX_BRACKETS} nested brackets)",
                            line,
                            col,
                        )
            elif c in ")]}":
                depth = max(depth - 1, 0)
        return None
    except (ValueError, OverflowError):  # e.g. a NUL byte: LibCST reports it
        return None
    if len(text) <= MAX_NESTING:
        return None  # too short to nest that deep
    bool_op, children = ast.BoolOp, ast.iter_child_nodes
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        if isinstance(node, bool_op):  # LibCST nests what Python's AST flattens
            depth += len(node.values) - 1
        elif isinstance(node, (ast.Import, ast.ImportFrom)):  # and dotted names
            module = getattr(node, "module", None) or ""
            depth += max(n.count(".") for n in (module, *(a.name for a in node.names)))
        if depth > MAX_NESTING:
            line = getattr(node, "lineno", 1)
            col = getattr(node, "col_offset", 0)
            return UnparsableSource(f"nested too deeply (depth > {MAX_NESTING})", line, col + 1)
        depth += 1
        for child in children(node):
            push((child, depth))
    return None


def _position_of_offset(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column in code points) of a character offset, LibCST's way."""
    starts = _line_starts(text[:offset])
    return len(starts), offset - starts[-1] + 1


def _line_starts(text: str) -> list[int]:
    """Offsets at which each line of ``text`` starts, lines split as LibCST splits them."""
    return [0, *(m.end() for m in _LINE_SPLIT.finditer(text))]


def parse_module(text: str) -> cst.Module:
    """``libcst.parse_module`` behind guards for input that would crash or stall it.

    LibCST's native parser kills the whole process (SIGSEGV) on deeply nested
    input, takes minutes on long operator chains, and needs over a gigabyte of
    memory per megabyte of source. Text longer than :data:`MAX_SOURCE_CHARS` or
    nested deeper than :data:`MAX_NESTING` (as measured on Python's own AST, or
    by bracket depth where Python cannot parse the text) is refused before
    LibCST sees it.

    Args:
        text: the decoded module source.

    Returns:
        The parsed module.

    Raises:
        UnparsableSource: the text is too large or too deeply nested.
        libcst.ParserSyntaxError: LibCST rejects the text.
    """
    if len(text) > MAX_SOURCE_CHARS:
        raise UnparsableSource(
            f"too large to parse ({len(text)} characters; the limit is {MAX_SOURCE_CHARS})"
        )
    problem = _nesting_problem(text)
    if problem is not None:
        raise problem
    return cst.parse_module(text)


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """Splice edits into the original text; every other character stays as it was.

    Args:
        text: the text the edits' positions refer to.
        edits: non-overlapping edits; lines are split at ``\\r\\n``, ``\\r`` and
            ``\\n`` (as LibCST's positions count them), columns are 1-based code points.

    Returns:
        The edited text.

    Raises:
        ValueError: two edits overlap or one lies outside the text.
    """
    starts = _line_starts(text)

    def offset(line: int, column: int) -> int:
        if not 1 <= line <= len(starts):
            raise ValueError(f"edit outside the text: line {line}")
        line_end = starts[line] if line < len(starts) else len(text)
        at = starts[line - 1] + column - 1
        if not starts[line - 1] <= at <= line_end:
            raise ValueError(f"edit outside the text: line {line}, column {column}")
        return at

    spans = sorted(
        (offset(e.line, e.column), offset(e.end_line, e.end_column), e.content) for e in edits
    )
    out: list[str] = []
    last = 0
    for begin, end, content in spans:
        if begin < last or end < begin:
            raise ValueError("overlapping edits")
        out.append(text[last:begin])
        out.append(content)
        last = end
    out.append(text[last:])
    return "".join(out)


class _PositionMap:
    """Positions in LibCST's print of a module -> positions in the original text.

    LibCST does not print some modules back exactly: it drops a form feed before
    a statement at the start of a line (or moves it into the next block), drops
    backslash continuations and form feeds before the first statement, a final
    ``\\r``, a second BOM. Its positions then count in the printed ``code``, not
    in ``text``. The two are aligned line by line (:class:`difflib.SequenceMatcher`
    over lines split as LibCST splits them, endings left out); a position on a
    line that is the same in both moves to that line of ``text``, same column.
    """

    def __init__(self, text: str, code: str) -> None:
        import difflib

        def lines(s: str) -> list[str]:  # without their endings: a dropped final CR
            return _LINE_SPLIT.split(s)  # leaves its line the same

        self.lines: dict[int, int] = {}  # 1-based code line -> 1-based text line
        # code line -> (text line, the two lines): the same but for form feeds
        self.near: dict[int, tuple[int, str, str]] = {}
        code_lines, text_lines = lines(code), lines(text)
        matcher = difflib.SequenceMatcher(None, code_lines, text_lines, autojunk=False)
        for op, a1, a2, b1, b2 in matcher.get_opcodes():
            if op == "equal":
                for k in range(a2 - a1):
                    self.lines[a1 + k + 1] = b1 + k + 1
            elif op == "replace" and a2 - a1 == b2 - b1:
                for k in range(a2 - a1):
                    c, t = code_lines[a1 + k], text_lines[b1 + k]
                    if c.replace("\x0c", "") == t.replace("\x0c", ""):
                        self.near[a1 + k + 1] = (b1 + k + 1, c, t)

    def exact(self, line: int, column: int) -> tuple[int, int]:
        """The text position of a code position on an unchanged line.

        Raises:
            UnparsableSource: the line is not the same in ``text``.
        """
        mapped = self.lines.get(line)
        if mapped is None and line in self.near:  # count the characters that are not form feeds
            mapped, c, t = self.near[line]
            wanted = len(c[: column - 1].replace("\x0c", ""))
            seen = 0
            for i, ch in enumerate(t):
                if seen == wanted and ch != "\x0c":
                    return mapped, i + 1
                seen += ch != "\x0c"
            return mapped, len(t) + 1
        if mapped is None:
            raise UnparsableSource(
                "cannot rewrite exactly: LibCST does not reproduce this file byte for byte "
                f"(around line {line})",
                line,
            )
        return mapped, column

    def position(self, line: int, column: int) -> tuple[int, int]:
        """Best text position of a code position (for reports): same line, or the nearest above."""
        if line in self.lines or line in self.near:
            return self.exact(line, column)
        above = [k for k in self.lines if k < line]
        if not above:
            return line, column
        k = max(above)
        return self.lines[k] + (line - k), column

    def diagnostic(self, d: Diagnostic, *, strict: bool) -> Diagnostic:
        """``d`` with its positions (and its fix's) moved into ``text``.

        Raises:
            UnparsableSource: ``strict`` and a fix's edit lies on a line LibCST
                does not reproduce.
        """
        edit_position = self.exact if strict else self.position
        from dataclasses import replace

        line, column = self.position(d.line, d.column)
        end_line, end_column = self.position(d.end_line, d.end_column)
        fix = d.fix
        if fix is not None:
            edits = []
            for e in fix.edits:
                el, ec = edit_position(e.line, e.column)
                eel, eec = edit_position(e.end_line, e.end_column)
                edits.append(Edit(e.content, el, ec, eel, eec))
            fix = replace(fix, edits=tuple(edits))
        return replace(
            d, line=line, column=column, end_line=end_line, end_column=end_column, fix=fix
        )


def _exact_prefix(text: str, code: str) -> None:
    """Raise unless LibCST's ``code`` for ``text`` is ``text`` or a prefix of it.

    LibCST drops a few things when it prints a module back (a final ``\\r``; a
    backslash continuation or form feed at the very start; a second BOM), and its
    positions then no longer match the text. A lost tail is harmless (positions
    still hold, and the tail is kept by splicing); anything else is refused.
    """
    if text.startswith(code):
        return
    n = len(code) if len(code) < len(text) else len(text)
    i = next((k for k in range(n) if text[k] != code[k]), n)
    line, column = _position_of_offset(text, i)
    raise UnparsableSource(
        "cannot rewrite exactly: LibCST does not reproduce this file byte for byte "
        f"(first difference at line {line}, column {column})",
        line,
        column,
    )


def process_text(text: str, path: str, settings: Settings, *, fix: bool) -> FileResult:
    """Analyse (and with ``fix``, rewrite) one module's source text.

    Args:
        text: the decoded source (no newline translation).
        path: the display path.
        settings: the run's settings.
        fix: rewrite the fixable calls; the remaining diagnostics are returned.

    Returns:
        A :class:`FileResult`; with ``fix`` the PPO001 diagnostics that were fixed
        are left out of it.

    Raises:
        libcst.ParserSyntaxError: the text is not valid Python 3.
    """
    module = parse_module(text)
    diagnostics, replacements = analyze(module, path, settings)
    code = module.code
    # LibCST printed this module back with characters missing (see _PositionMap):
    # its positions count in what it printed; report and edit in the file's own.
    lossy = not text.startswith(code)
    if lossy:
        positions = _PositionMap(text, code)
        lossy_diagnostics = diagnostics
        diagnostics = [positions.diagnostic(d, strict=fix) for d in diagnostics]
    moved = 0
    if fix and getattr(settings, "use_ppo_runtime", False):
        from dataclasses import replace

        from ppo_migrate.import_sections import import_sections
        from ppo_migrate.imports import FUNCTION, PPO_RUNTIME, use_ppo_runtime

        targets = [t for t in settings.targets if t.startswith("verl.")]
        original = module
        module, moved = use_ppo_runtime(module, targets, import_sections(settings.project_root))
        if moved:  # the tree is new: find the same calls again in it
            _exact_prefix(text, original.code)
            # The moved calls now resolve to ppo_runtime's function, which
            # ``targets = [...]`` may not list: without it they were lost ("0 calls").
            moved_target = f"{PPO_RUNTIME}.{FUNCTION}"
            if moved_target not in settings.targets:
                settings = replace(settings, targets=(*settings.targets, moved_target))
            diagnostics, replacements = analyze(module, path, settings)
    if not fix or not (replacements or moved):
        return FileResult(path, tuple(diagnostics))
    remaining = tuple(d for d in diagnostics if d.fix is None)
    if moved:
        # LibCST prints the moved imports; a tail it drops (see _exact_prefix) is put back.
        new_module = module.visit(_Rewriter(replacements)) if replacements else module
        lost = len(original.code)
        return FileResult(path, remaining, new_module.code + text[lost:], len(replacements), moved)
    # The calls' edits are spliced into the original text, so no byte outside
    # them depends on LibCST printing the module back exactly.
    edits = [e for d in diagnostics if d.fix is not None for e in d.fix.edits]
    new_text = apply_edits(text, edits)
    if lossy:  # check the mapped edits: LibCST must print the result as it prints its own
        own = apply_edits(code, [e for d in lossy_diagnostics if d.fix for e in d.fix.edits])
        if parse_module(new_text).code != own:
            raise UnparsableSource(
                "cannot rewrite exactly: LibCST does not reproduce this file byte for byte"
            )
    return FileResult(path, remaining, new_text, len(replacements), moved)


def _pass_config_command() -> type:
    """Define :class:`PassConfigCommand` (imports ``libcst.codemod`` only now).

    ``libcst.codemod`` imports ``libcst.matchers``, about half a second of start-up
    that ``check`` and ``apply`` never need; only LibCST's own runner uses the class.
    """
    from libcst.codemod import CodemodContext, VisitorBasedCodemodCommand

    class PassConfigCommand(VisitorBasedCodemodCommand):
        """LibCST codemod command: pass the in-scope config to configless calls.

        Usable as ``python -m libcst.tool codemod -x ppo_migrate.codemod.PassConfigCommand
        --no-format PATH``. Same analysis as ``ppo-migrate apply``; calls with no config
        in scope are left alone and reported as warnings on the codemod context.
        """

        DESCRIPTION: str = (
            "Pass the training config in scope to configless get_ppo_ray_runtime_env() "
            "calls (verl PR #6976)."
        )

        def __init__(
            self,
            context: CodemodContext,
            targets: Sequence[str] | None = None,
            keyword: bool = False,
        ) -> None:
            super().__init__(context)
            from ppo_migrate.settings import DEFAULT_TARGETS

            self.settings = Settings(targets=tuple(targets or DEFAULT_TARGETS), keyword=keyword)

        @staticmethod
        def add_args(arg_parser: argparse.ArgumentParser) -> None:
            """Add ``--target`` (repeatable) and ``--keyword`` to libcst.tool's parser."""
            arg_parser.add_argument(
                "--target",
                dest="targets",
                action="append",
                default=None,
                help="qualified name of the runtime function (repeatable)",
            )
            arg_parser.add_argument(
                "--keyword", action="store_true", help="write config=<expr> instead of positional"
            )

        def transform_module_impl(self, tree: cst.Module) -> cst.Module:
            """Rewrite ``tree``; diagnostics without a fix become context warnings."""
            path = self.context.filename or "<unknown>"
            diagnostics, replacements = analyze(tree, path, self.settings)
            for d in diagnostics:
                if d.fix is None:
                    self.warn(f"{d.path}:{d.line}:{d.column}: {d.code} {d.message}")
            if not replacements:
                return tree
            return tree.visit(_Rewriter(replacements))

    PassConfigCommand.__module__ = __name__
    PassConfigCommand.__qualname__ = "PassConfigCommand"
    return PassConfigCommand


def __getattr__(name: str) -> object:
    """PEP 562: build ``PassConfigCommand`` on first access (see :func:`_pass_config_command`)."""
    if name == "PassConfigCommand":
        cls = _pass_config_command()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "MAX_NESTING",
    "MAX_SOURCE_CHARS",
    "FileResult",
    "PassConfigCommand",
    "UnparsableSource",
    "analyze",
    "apply_edits",
    "configless_kind",
    "parse_module",
    "process_text",
    "rewrite_call",
]
