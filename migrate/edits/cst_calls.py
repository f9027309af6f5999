"""The call edit as a LibCST edit, and the guards for handing a text to LibCST.

The findings and fixes come from :func:`ppo_migrate.rules.check.analyse` (Python's
own ``ast``); this module only maps them onto LibCST nodes where LibCST does the
editing: the codemod command (:mod:`ppo_migrate.adapters.codemod_command`), the Fixit rule
(:mod:`ppo_migrate.adapters.fixit_rule`), ``--thread-config``
(:mod:`ppo_migrate.edits.thread_config`) and ``--use-ppo-runtime``
(:mod:`ppo_migrate.edits.imports`). :func:`parse_module` refuses a text LibCST's
native parser could crash on (too large, nested too deeply): :class:`UnparsableSource`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import libcst as cst

from ppo_migrate.constants import CONFIG_PARAMETER, MAX_NESTING, MAX_SOURCE_CHARS
from ppo_migrate.diagnostics import Diagnostic
from ppo_migrate.settings_model import Settings

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


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=()).code_for_node(node)


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _empty_unpacking(arg: cst.Arg) -> bool:
    """``*()``, ``*[]`` or ``**{}``: an unpacking that passes nothing."""
    if arg.star == "*":
        return isinstance(arg.value, (cst.Tuple, cst.List)) and not arg.value.elements
    return arg.star == "**" and isinstance(arg.value, cst.Dict) and not arg.value.elements


def _dotted(node: cst.BaseExpression) -> bool:
    """Whether ``node`` is a name or a dotted name (``FACTORY``, ``names.FACTORY``)."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def methodcaller_getter(call: cst.Call) -> cst.Call | None:
    """The ``methodcaller(...)`` call of a call ``operator.methodcaller("name", *a,
    **k)(x)`` (the getter a name or ``<name>.methodcaller``, a literal name, one
    positional receiver), whose arguments after the name are the ones the method gets;
    ``None`` for any other call. The same shape as
    :func:`ppo_migrate.rules.targets.methodcaller_call` reads in the ``ast`` (trial 26f):
    only calls the analysis found to be target calls are given here, and it decided by
    the getter's qualified name that it is :mod:`operator`'s, whatever its spelling (``mc``,
    ``op.methodcaller``; trial 26h: ``--thread-config`` put the config in place of the
    receiver of ``mc("get_...")(cp)``). The name may be a ``Name`` (``methodcaller(FACTORY)``,
    which the analysis read as a module-level string constant: trial 26h, H-M2) or a dotted
    name (``methodcaller(names.FACTORY)``, a module's: fresh user 41, W6)."""
    getter = call.func
    if not isinstance(getter, cst.Call) or len(call.args) != 1 or call.args[0].keyword is not None \
            or call.args[0].star:
        return None
    func = getter.func
    named = isinstance(func, cst.Name) or (
        isinstance(func, cst.Attribute) and func.attr.value == "methodcaller" and isinstance(func.value, cst.Name)
    )
    if not named or not getter.args:
        return None
    first = getter.args[0]
    if first.keyword is None and not first.star and _dotted(first.value):
        # trial 26h: a name the analysis read as a module-level string constant; fresh user
        # 41, W6: a module's attribute (``names.FACTORY``) read so
        return getter
    if first.keyword is not None or first.star or not isinstance(first.value, cst.SimpleString):
        return None
    value = first.value.evaluated_value
    return getter if isinstance(value, str) and value.isidentifier() else None


def configless_kind(call: cst.Call) -> str | None:
    """How a target call omits its config.

    Args:
        call: a call of the runtime function.

    Returns:
        ``"empty"`` for ``f()``, ``"unpacked"`` for a call whose every argument is an
        empty literal unpacking (``f(*())``, ``f(*[], **{})``), ``"keywords"`` for
        ``f(other=...)`` without a config, ``"none"`` for ``f(None)``, ``"config=None"``
        for ``f(config=None)``; ``None`` when a config (or ``*args``/``**kwargs``, which
        may hold one) is passed. The same answers as
        :func:`ppo_migrate.rules.targets.configless_kind` gives for the ``ast`` node. For
        ``methodcaller("f", ...)(x)`` (:func:`methodcaller_getter`), of the arguments
        inside ``methodcaller(...)`` after the name.
    """
    getter = methodcaller_getter(call)
    args = call.args if getter is None else getter.args[1:]
    if not args:
        return "empty"
    if all(_empty_unpacking(a) for a in args):
        return "unpacked"
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
        The new call node; whitespace and comments inside the parentheses are kept. For
        ``methodcaller("f")(x)`` the config goes inside ``methodcaller(...)``, after the
        name (``methodcaller("f", config)(x)``): the method gets those arguments.
    """
    getter = methodcaller_getter(call)
    if getter is not None:  # trial 26f: the arguments the method gets are methodcaller's
        name, rest = getter.args[0], getter.args[1:]
        passed = rewrite_call(getter.with_changes(args=rest), kind, expression, keyword=keyword).args
        if not rest:  # ``methodcaller("f")``: ``, config`` after the name, which gives the
            # config its own trailing comma (``"f",\n)`` keeps its layout)
            if isinstance(name.comma, cst.Comma) and passed:
                passed = (*passed[:-1], passed[-1].with_changes(comma=name.comma))
            name = name.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        return call.with_changes(func=getter.with_changes(args=(name, *passed)))
    value = cst.parse_expression(expression)
    kw = cst.Name(CONFIG_PARAMETER) if keyword else None
    equal = (
        cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        )
        if keyword
        else cst.MaybeSentinel.DEFAULT
    )
    if kind == "unpacked" and "#" in _code(call):  # a comment among them: kept, config first
        kind = "keywords"
    if kind in ("empty", "unpacked"):  # the empty unpackings give way to the config
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


class _Rewriter(cst.CSTTransformer):
    def __init__(self, replacements: dict[cst.Call, cst.Call]) -> None:
        super().__init__()
        self.replacements = replacements

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        new = self.replacements.get(original_node)
        if new is None:
            return updated_node
        if new.func is not original_node.func and isinstance(updated_node.func, cst.Call):
            # ``methodcaller("f", config)(x)``: the config went into the callee's call
            return updated_node.with_changes(func=updated_node.func.with_changes(args=new.func.args))
        return updated_node.with_changes(args=new.args)


def _nesting_problem(text: str, tree_of=None) -> UnparsableSource | None:
    """Why ``text`` must not reach LibCST's parser, judged by Python's own parser
    (``tree_of()``'s tree when given, raising as ``compile`` raises)."""
    import ast
    import warnings

    try:
        if tree_of is not None:
            tree = tree_of()
        else:
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


def parse_module(text: str, *, tree_of=None) -> cst.Module:
    """``libcst.parse_module`` behind guards for input that would crash or stall it.

    LibCST's native parser kills the whole process (SIGSEGV) on deeply nested
    input, takes minutes on long operator chains, and needs over a gigabyte of
    memory per megabyte of source. Text longer than :data:`MAX_SOURCE_CHARS` or
    nested deeper than :data:`MAX_NESTING` (as measured on Python's own AST, or
    by bracket depth where Python cannot parse the text) is refused before
    LibCST sees it.

    Args:
        text: the decoded module source.
        tree_of: what gives ``text``'s ``ast`` tree for the nesting guard, raising as
            ``compile`` raises (:meth:`ppo_migrate.project.snapshot.SourceFile.tree`), when
            it is made elsewhere; else the guard compiles the text itself.

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
    problem = _nesting_problem(text, tree_of)
    if problem is not None:
        raise problem
    return cst.parse_module(text)


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


def fix_expression(d: Diagnostic) -> str | None:
    """The config expression a PPO001's fix passes (``"self.config"``), or ``None``."""
    if d.fix is None:
        return None
    m = re.fullmatch(r"Pass `(.*)`", d.fix.message, re.S)
    return m.group(1) if m else None


def replacements(
    calls: dict[tuple[int, int], cst.Call],
    diagnostics: Sequence[Diagnostic],
    settings: Settings,
    *,
    unsafe: bool = False,
) -> dict[cst.Call, cst.Call]:
    """The core's fixes as LibCST node replacements.

    Args:
        calls: LibCST call nodes by their start ``(line, column)`` (1-based, code
            points, as ``PositionProvider`` gives them plus one on the column).
        diagnostics: :func:`ppo_migrate.rules.check.analyse`'s findings for the
            same text.
        settings: for ``keyword``.
        unsafe: also the unsafe fixes.

    Returns:
        Original call node -> the call with the config passed (:func:`rewrite_call`).
    """
    out: dict[cst.Call, cst.Call] = {}
    for d in diagnostics:
        expression = fix_expression(d)
        if expression is None or (d.fix.applicability != "safe" and not unsafe):  # type: ignore[union-attr]
            continue
        node = calls.get((d.line, d.column))
        kind = configless_kind(node) if node is not None else None
        if node is None or kind is None:
            continue
        out[node] = rewrite_call(node, kind, expression, keyword=settings.keyword)
    return out


def call_positions(wrapper) -> dict[tuple[int, int], cst.Call]:
    """Every ``cst.Call`` of a ``MetadataWrapper``'s module by its 1-based start position."""
    from libcst.metadata import PositionProvider

    positions = wrapper.resolve(PositionProvider)
    return {
        (r.start.line, r.start.column + 1): n for n, r in positions.items() if isinstance(n, cst.Call)
    }


__all__ = [
    "MAX_NESTING",
    "MAX_SOURCE_CHARS",
    "UnparsableSource",
    "call_positions",
    "configless_kind",
    "fix_expression",
    "methodcaller_getter",
    "parse_module",
    "replacements",
    "rewrite_call",
]
