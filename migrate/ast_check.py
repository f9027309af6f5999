"""The fast path: decide simple files on Python's own AST, as the LibCST pass would.

LibCST's parse and scope metadata cost 0.2-0.5 s for a 250-line module; Python's
parser about 2 ms. ``check`` on a repository pays that for every file that names
the runtime function, so files whose every finding is plain are decided here and
only the rest go to the LibCST pass (:func:`ppo_migrate.codemod.process_text`).

:func:`decide` returns exactly the diagnostics the LibCST pass returns with
``fix=False`` (same codes, messages, positions, scopes and fixes), or ``None``
whenever it cannot be sure, and the caller then runs the LibCST pass.
``tests/test_ast_check.py`` asserts the equality on every fixture and on
generated modules. A file is decided here when:

* no call in it can be a finding (:func:`may_report` says no), or
* every call that may be a finding is a *plain* PPO001 or no finding at all:

  - its callee is ``n(...)`` or ``n.a.b(...)`` where ``n`` has exactly one
    binding in the whole file, an import at module level (so its qualified name
    is that of the import, as ``QualifiedNameProvider`` reports it);
  - it sits directly in a ``def`` body (not in a lambda, a comprehension, a
    class body or at module level);
  - the config it gets is a parameter of that ``def`` that nothing else in it
    binds, or, in an instance method that binds no config name and has no
    ``DictConfig``-annotated parameter, ``self.<name>`` for a name the class
    body declares or a method assigns to ``self.<name>``;
  - no ``# noqa`` is on its lines.

Everything else is left to the LibCST pass: shims (the file mentions
``signature``, ``co_argcount`` or ``TypeError``), star imports, ``global`` or
``nonlocal`` of a name that matters, names bound twice, calls with no config in
scope (PPO002 needs its callers), ambiguous callees (PPO003), relative imports
that climb too far (PPO903), and wherever LibCST sees the text differently from
Python: nesting deeper than 50 (counting each literal of an implicit string
concatenation and each part of a dotted import), identifiers Python renames
(NFKC), indentation mixing tabs and spaces, ``(x): int = 1``, lines holding only
a backslash, ``nonlocal`` at module level, and characters LibCST may not print
back exactly (form feeds, carriage returns, vertical tabs, NUL).
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ppo_migrate.constants import CONFIG_PARAMETER
from ppo_migrate.diagnostics import Diagnostic, Edit, Fix, qualname

if TYPE_CHECKING:
    from ppo_migrate.settings import Settings

#: Characters around which LibCST's positions or print-back may differ from the text.
_UNUSUAL = re.compile(r"[\f\r\v\x00]")
#: Words without which no call can be a compatibility shim (see ``shims.ShimDetector``).
_SHIM_WORDS = ("signature", "co_argcount", "TypeError")
#: Deeper than this (in this module's count: one level a node, a chain ``a or b or c``
#: one a operand), the LibCST pass decides. Its visitors recurse through several
#: Python frames a level and give up (PPO902) from about 95 nested lambda defaults
#: or 136 nested lists; real code stays below 30.
_MAX_DEPTH = 50
#: A line holding only a backslash continuation: valid Python LibCST's parser rejects.
_BACKSLASH_LINE = re.compile(r"^[ \t]*\\\n", re.MULTILINE)
#: Indentation mixing tabs and spaces on one line, and lines indented by each: CPython
#: compares columns, LibCST's tokenizer the characters (and prints one spelling back).
_MIXED_INDENT = re.compile(r"^[ ]*\t[\t ]* |^ +\t", re.MULTILINE)
_TAB_INDENT = re.compile(r"^\t", re.MULTILINE)
_SPACE_INDENT = re.compile(r"^ +\S", re.MULTILINE)
#: A string literal this long or spanning this many lines may be an implicit
#: concatenation, which LibCST nests one level a literal (Python's AST: one node).
_LONG_STRING_CHARS = 1000
_LONG_STRING_LINES = 20
#: Runs of characters that may stand in identifiers and are not all ASCII.
_NON_ASCII_RUN = re.compile(r"[\w\u0080-\U0010ffff]*[\u0080-\U0010ffff][\w\u0080-\U0010ffff]*")
_NOQA = re.compile(r"noqa", re.IGNORECASE)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class _Defer(Exception):
    """The LibCST pass must decide this file."""


@dataclass(frozen=True)
class _Binding:
    kind: str  # "param", "import", "other", "del"
    qualified: str = ""  # for imports: the qualified name LibCST gives the bound name
    dotted: bool = False  # ``import a.b`` binding ``a`` (the name is a prefix of ``qualified``)


@dataclass(eq=False)
class _Scope:
    kind: str  # "module", "class", "function", "lambda", "comprehension"
    node: ast.AST | None
    parent: _Scope | None
    bindings: dict[str, list[_Binding]] = field(default_factory=dict)

    def bind(self, name: str, binding: _Binding) -> None:
        self.bindings.setdefault(name, []).append(binding)


@dataclass(frozen=True)
class _Candidate:
    call: ast.Call
    scope: _Scope
    frames: tuple[tuple[str, str], ...]


def decide(
    text: str, path: str, settings: Settings, *, analyse: bool = True
) -> list[Diagnostic] | None:
    """The LibCST pass's diagnostics for ``text``, when this module can tell them.

    Args:
        text: the decoded module source (at most ``codemod.MAX_SOURCE_CHARS``).
        path: the display path (it decides the module's package; ``"-"`` is stdin).
        settings: the run's :class:`ppo_migrate.settings.Settings`.
        analyse: also decide files that have findings; with ``False`` only files
            in which no call can be a finding are decided (``[]``).

    Returns:
        The diagnostics (after ``# noqa`` and rule selection, sorted), equal to
        ``process_text(text, path, settings, fix=False).diagnostics``; ``None``
        when the LibCST pass must decide.
    """
    if _UNUSUAL.search(text) or _BACKSLASH_LINE.search(text) or _renamed_by_nfkc(text):
        return None
    if "\t" in text and (
        _MIXED_INDENT.search(text) or (_TAB_INDENT.search(text) and _SPACE_INDENT.search(text))
    ):
        return None  # LibCST rejects some of these, misplaces lines in others
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. invalid escape sequences
            tree = compile(text, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None  # the LibCST pass reports the PPO902
    names = settings.target_names
    try:
        walker = _Walker(names)
        walker.module(tree)
    except Exception:  # _Defer, RecursionError, or a bug here: LibCST decides
        return None
    if any(_text_at(text, node).startswith("(") for node in walker.annotated_targets):
        return None  # ``(x): int = 1``: valid Python LibCST's parser rejects
    if any(_literals(text, node) > _MAX_DEPTH for node in walker.long_strings):
        return None  # ``'a' 'b' 'c' ...``: LibCST nests each literal one level deeper
    if not walker.may_report(path):
        return []
    if not analyse or any(w in text for w in _SHIM_WORDS):
        return None
    try:
        return _Analysis(text, path, settings, walker).run()
    except Exception:  # _Defer, RecursionError, or a bug here: LibCST decides
        return None


def may_report(text: str, path: str, names: Iterable[str]) -> bool:
    """Whether the LibCST pass could report anything in this module (conservative).

    The pass reports only two kinds of call (see ``codemod._Pass.visit_Call``):
    a call of a target that omits its config (PPO001-PPO004), and a call whose
    callee comes from a relative import that climbs past the top-level package
    (PPO903). Both need a callee whose dotted name, as LibCST's
    ``QualifiedNameProvider`` builds it, ends in a target's last name. This
    checks that with Python's own parser and answers True whenever it cannot
    rule a finding out:

    * the text does not compile to an AST (LibCST reports the PPO902), or is
      nested deeper than this module follows;
    * a relative import climbs past the file's package;
    * a call's callee names a target's last name anywhere in its dotted name
      (``f()``, ``m.f()``, ``m.f[0]()``, ``f()()``), or a name bound by an
      ``import ... as`` whose imported name mentions one, and the call does not
      pass a config that is not ``None`` (as ``codemod.configless_kind`` decides).

    Args:
        text: the decoded module source.
        path: the display path (for the file's package; ``"-"`` is standard input).
        names: the targets' last names (``settings.target_names``).

    Returns:
        False only when no call in the module can be a finding.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = compile(text, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        walker = _Walker(frozenset(names))
        walker.module(tree)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError, _Defer):
        return True
    return walker.may_report(path)


def callee_parts(node: ast.AST) -> set[str]:
    """Identifiers in a callee's dotted name, read as LibCST's ``get_full_name_for_node`` does."""
    parts: set[str] = set()
    while True:
        if isinstance(node, ast.Name):
            parts.add(node.id)
            return parts
        if isinstance(node, ast.Attribute):
            parts.add(node.attr)
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Subscript):
            node = node.value
        else:
            return parts


def configless_kind(call: ast.Call) -> str | None:
    """``codemod.configless_kind`` on Python's AST: how a call omits its config.

    Returns:
        ``"empty"``, ``"keywords"``, ``"none"`` or ``"config=None"``; ``None``
        when a config (or ``*args``/``**kwargs``, which may hold one) is passed.
    """
    if not call.args and not call.keywords:
        return "empty"
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    if call.args:  # positional arguments always come first without a star
        return "none" if _is_none(call.args[0]) else None
    for k in call.keywords:
        if k.arg == CONFIG_PARAMETER:
            return "config=None" if _is_none(k.value) else None
    return "keywords"


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _renamed_by_nfkc(text: str) -> bool:
    """Whether an identifier may be spelled differently in Python's AST than in the text.

    Python normalizes identifiers to NFKC (``ｃonfig`` is ``config``, ``µs`` is
    ``μs``); LibCST keeps them as written, so the two analyses would bind
    different names. Looks at runs of identifier characters only, so full-width
    punctuation in a Chinese comment does not count.
    """
    if text.isascii():
        return False
    import unicodedata

    if unicodedata.is_normalized("NFKC", text):
        return False
    for m in _NON_ASCII_RUN.finditer(text):
        run: list[str] = []
        for c in m.group() + " ":
            if c.isascii() and c != " " or ("a" + c).isidentifier():
                run.append(c)
                continue
            if run and not unicodedata.is_normalized("NFKC", "".join(run)):
                return True
            run = []
    return False


def _literals(text: str, node: ast.expr) -> int:
    """How many string literals make up a (possibly implicitly concatenated) string node."""
    import io
    import tokenize

    assert node.end_lineno is not None
    lines = text.split("\n")[node.lineno - 1 : node.end_lineno]
    try:
        tokens = tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline)
        return sum(1 for t in tokens if t.type == tokenize.STRING)
    except (tokenize.TokenError, SyntaxError):
        return _MAX_DEPTH + 1  # cannot tell: treat it as too many


def _text_at(text: str, node: ast.stmt) -> str:
    """The source from a node's start to the end of its line."""
    line = text.split("\n", node.lineno)[node.lineno - 1]
    return line.encode("utf-8")[node.col_offset :].decode("utf-8", "replace")


class _Walker:
    """One walk of the module: scopes, bindings, imports and the calls that may report."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names
        self.wanted = set(names)  # target names and ``import ... as`` aliases of them
        self.climb = 0
        self.star = False
        self.declared: set[str] = set()  # names in ``global``/``nonlocal`` statements
        self.scopes: list[_Scope] = []
        self.calls: list[_Candidate] = []
        self.classes: dict[int, ast.ClassDef] = {}
        self.annotated_targets: list[ast.AnnAssign] = []  # ``x: T = v`` not a plain name
        self.long_strings: list[ast.expr] = []  # string nodes that may be concatenations

    # -- the walk -------------------------------------------------------------
    def module(self, tree: ast.Module) -> None:
        scope = self._new(_Scope("module", tree, None))
        for stmt in tree.body:
            self.visit(stmt, scope, (), 1)

    def _new(self, scope: _Scope) -> _Scope:
        self.scopes.append(scope)
        return scope

    def visit(self, node: ast.AST, scope: _Scope, frames: tuple, depth: int) -> None:
        if depth > _MAX_DEPTH:
            raise _Defer
        visit = self.visit
        inner = depth + 1
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                scope.bind(node.id, _Binding("other"))
            elif isinstance(node.ctx, ast.Del):
                scope.bind(node.id, _Binding("del"))
            return
        if isinstance(node, ast.Call):
            self.calls.append(_Candidate(node, scope, frames))
        elif isinstance(node, _FUNCTIONS):
            for d in node.decorator_list:
                visit(d, scope, frames, inner)
            self._arguments_outside(node.args, scope, frames, inner)
            if node.returns is not None:
                visit(node.returns, scope, frames, inner)
            scope.bind(node.name, _Binding("other"))
            body = self._new(_Scope("function", node, scope))
            self._params(node.args, body)
            framed = (*frames, ("function", node.name))
            for stmt in node.body:
                visit(stmt, body, framed, inner)
            return
        elif isinstance(node, ast.Lambda):
            self._arguments_outside(node.args, scope, frames, inner, annotations=False)
            body = self._new(_Scope("lambda", node, scope))
            self._params(node.args, body)
            visit(node.body, body, (*frames, ("function", "<lambda>")), inner)
            return
        elif isinstance(node, ast.ClassDef):
            for child in (*node.decorator_list, *node.bases, *node.keywords):
                visit(child, scope, frames, inner)
            scope.bind(node.name, _Binding("other"))
            body = self._new(_Scope("class", node, scope))
            self.classes[id(body)] = node
            framed = (*frames, ("class", node.name))
            for stmt in node.body:
                visit(stmt, body, framed, inner)
            return
        elif isinstance(node, _COMPREHENSIONS):
            generators = node.generators
            visit(generators[0].iter, scope, frames, inner)
            body = self._new(_Scope("comprehension", node, scope))
            for i, gen in enumerate(generators):
                visit(gen.target, body, frames, inner)
                if i:
                    visit(gen.iter, body, frames, inner)
                for cond in gen.ifs:
                    visit(cond, body, frames, inner)
            for part in (node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,):
                visit(part, body, frames, inner)
            return
        elif isinstance(node, ast.NamedExpr):
            home = scope
            while home.kind == "comprehension" and home.parent is not None:
                home = home.parent  # PEP 572: the walrus binds in the enclosing function
            home.bind(node.target.id, _Binding("other"))
            visit(node.value, scope, frames, inner)
            return
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            self._import(node, scope)
            return
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            if isinstance(node, ast.Nonlocal) and scope.kind == "module":
                raise _Defer  # a compile error on which LibCST's scopes raise
            self.declared.update(node.names)
            return
        elif isinstance(node, ast.AnnAssign) and not node.simple:
            self.annotated_targets.append(node)
        elif isinstance(node, ast.ExceptHandler):
            if node.name:
                scope.bind(node.name, _Binding("other"))
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)):
            if node.name:
                scope.bind(node.name, _Binding("other"))
        elif isinstance(node, ast.MatchMapping):
            if node.rest:
                scope.bind(node.rest, _Binding("other"))
        elif isinstance(node, (ast.Constant, ast.JoinedStr)):
            if isinstance(node, ast.JoinedStr) or isinstance(node.value, (str, bytes)):
                end = node.end_lineno or node.lineno
                if end - node.lineno >= _LONG_STRING_LINES or (
                    end == node.lineno
                    and (node.end_col_offset or 0) - node.col_offset >= _LONG_STRING_CHARS
                ):
                    self.long_strings.append(node)
            if isinstance(node, ast.Constant):
                return
        elif isinstance(node, ast.BoolOp):
            inner += len(node.values) - 1  # LibCST nests what Python's AST flattens
            if inner > _MAX_DEPTH:
                raise _Defer
        for child in ast.iter_child_nodes(node):
            visit(child, scope, frames, inner)

    def _arguments_outside(
        self, args: ast.arguments, scope: _Scope, frames: tuple, depth: int, annotations=True
    ) -> None:
        """Defaults and annotations run in the enclosing scope."""
        for d in (*args.defaults, *(d for d in args.kw_defaults if d is not None)):
            self.visit(d, scope, frames, depth)
        if annotations:
            for a in _all_args(args):
                if a.annotation is not None:
                    self.visit(a.annotation, scope, frames, depth)

    def _params(self, args: ast.arguments, scope: _Scope) -> None:
        for a in _all_args(args):
            scope.bind(a.arg, _Binding("param"))

    def _import(self, node: ast.Import | ast.ImportFrom, scope: _Scope) -> None:
        names = [a.name for a in node.names]
        if isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
        if any(n.count(".") >= _MAX_DEPTH for n in names):
            raise _Defer  # LibCST nests a dotted name one level a part
        if isinstance(node, ast.ImportFrom):
            level = node.level or 0
            self.climb = max(self.climb, level)
            module = node.module or ""
            from_parts = set(module.split("."))
            prefix = "." * level + (f"{module}." if module else "")
            for alias in node.names:
                if alias.name == "*":
                    self.star = True
                    continue
                if alias.asname and (from_parts | {alias.name}) & self.names:
                    self.wanted.add(alias.asname)
                scope.bind(alias.asname or alias.name, _Binding("import", prefix + alias.name))
            return
        for alias in node.names:
            if alias.asname:
                if set(alias.name.split(".")) & self.names:
                    self.wanted.add(alias.asname)
                scope.bind(alias.asname, _Binding("import", alias.name))
            else:
                head = alias.name.split(".", 1)[0]
                scope.bind(head, _Binding("import", alias.name, dotted="." in alias.name))

    # -- results ----------------------------------------------------------------
    def may_report(self, path: str) -> bool:
        """See :func:`may_report`; keeps only the calls that may report."""
        if self.climb:
            from ppo_migrate.targets import module_package

            package = module_package(path) if path and path != "-" else ()
            if self.climb > len(package):
                return True
        wanted = self.wanted
        self.calls = [
            c
            for c in self.calls
            if callee_parts(c.call.func) & wanted and configless_kind(c.call) is not None
        ]
        return bool(self.calls)


def _all_args(args: ast.arguments) -> list[ast.arg]:
    out = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    if args.vararg is not None:
        out.append(args.vararg)
    if args.kwarg is not None:
        out.append(args.kwarg)
    return out


class _Analysis:
    """Decides each call :class:`_Walker` kept, or raises :class:`_Defer`."""

    def __init__(self, text: str, path: str, settings: Settings, walker: _Walker) -> None:
        from ppo_migrate.targets import TargetMatcher

        self.text = text
        self.path = path
        self.settings = settings
        self.walker = walker
        self.matcher = TargetMatcher.of(settings.targets)
        self.lines = text.split("\n")
        self._package: tuple[str, ...] | None = None
        self._all: dict[str, list[tuple[_Scope, _Binding]]] = {}
        for scope in walker.scopes:
            for name, bindings in scope.bindings.items():
                self._all.setdefault(name, []).extend((scope, b) for b in bindings)

    @property
    def package(self) -> tuple[str, ...]:
        if self._package is None:
            from ppo_migrate.targets import module_package

            path = self.path
            self._package = module_package(path) if path and path != "-" else ()
        return self._package

    def run(self) -> list[Diagnostic]:
        if self.walker.star:
            raise _Defer  # ``from m import *`` may bind the callee
        out: list[Diagnostic] = []
        for candidate in self.walker.calls:
            diag = self._decide(candidate)
            if diag is not None and self.settings.rule_enabled(diag.code):
                out.append(diag)
        out.sort(key=Diagnostic.sort_key)
        return out

    # -- one call ---------------------------------------------------------------
    def _decide(self, candidate: _Candidate) -> Diagnostic | None:
        from ppo_migrate.targets import Verdict

        call = candidate.call
        qualified = self._qualified_name(call.func)
        verdict, _ = self.matcher.classify((qualified,), self.package)
        if verdict is Verdict.OTHER:
            return None
        if verdict is not Verdict.TARGET:
            raise _Defer
        kind = configless_kind(call)
        if kind is None:
            return None
        from dataclasses import replace

        from ppo_migrate.analysis.signatures import callee_signature

        from ppo_migrate.targets import resolve_relative

        absolute = resolve_relative(qualified, self.package)
        if absolute is None:
            raise _Defer
        callee = callee_signature(self.path, (absolute,), self.settings)
        if not callee.accepts_config:
            raise _Defer  # PPO005: the LibCST pass words it
        expression = self._config(candidate.scope)
        return replace(self._diagnostic(candidate, kind, expression), callee=callee.detail)

    def _qualified_name(self, func: ast.expr) -> str:
        """The callee's one qualified name, as ``QualifiedNameProvider`` gives it."""
        parts: list[str] = []
        node = func
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            raise _Defer  # ``f()()``, ``m[0].f()``: no plain dotted name
        head = node.id
        parts.append(head)
        parts.reverse()
        bindings = self._all.get(head, [])
        if head in self.walker.declared or len(bindings) != 1:
            raise _Defer
        scope, binding = bindings[0]
        if binding.kind != "import" or scope.kind != "module":
            raise _Defer
        if binding.dotted:  # ``import a.b`` binds ``a``; the access must spell ``a.b``
            dotted = ".".join(parts)
            if not (dotted == binding.qualified or dotted.startswith(binding.qualified + ".")):
                raise _Defer
            return dotted
        return ".".join((binding.qualified, *parts[1:]))

    def _config(self, scope: _Scope) -> str:
        """The config expression in scope at a call directly in ``scope``'s body.

        Python's lookup order, as ``scope.ConfigResolver.find`` follows it: the
        function and then its enclosing functions (class bodies skipped), in each
        the config names in order and then a ``DictConfig``-annotated parameter;
        then ``self.<name>`` in the innermost instance method. Only parameters
        are decided here: any other binding of a config name, a possible
        ``DictConfig`` annotation, a lambda or comprehension in the way, a module
        global or no config at all defer to the LibCST pass.
        """
        if scope.kind != "function":
            raise _Defer
        names = self.settings.config_names
        if any(name in self.walker.declared for name in names):
            raise _Defer
        method: _Scope | None = None
        s: _Scope | None = scope
        while s is not None and s.kind != "module":
            if s.kind == "class":
                s = s.parent
                continue
            if s.kind != "function":
                raise _Defer  # a lambda's or comprehension's own names
            for name in names:
                bindings = s.bindings.get(name)
                if not bindings:
                    continue
                if len(bindings) == 1 and bindings[0].kind == "param":
                    return name
                raise _Defer  # bound by an assignment: where and on which branch matters
            node = s.node
            assert isinstance(node, _FUNCTIONS)
            args = node.args
            for a in (*args.posonlyargs, *args.args, *args.kwonlyargs):
                if a.annotation is not None and self._may_be_dictconfig(a.annotation):
                    raise _Defer
            parent = s.parent
            if method is None and parent is not None and parent.kind == "class":
                if _is_instance_method(node):
                    method = s
            s = parent
        if method is not None:
            assert method.parent is not None
            attrs = _self_attributes(self.walker.classes[id(method.parent)])
            for name in names:
                if name in attrs:
                    return f"self.{name}"
        raise _Defer  # a module global, or no config (PPO002: its callers are looked up)

    def _may_be_dictconfig(self, annotation: ast.expr) -> bool:
        for n in ast.walk(annotation):
            if isinstance(n, ast.Attribute) and n.attr == "DictConfig":
                return True
            if isinstance(n, ast.Name):
                if n.id == "DictConfig":
                    return True
                for _, b in self._all.get(n.id, []):
                    if b.kind == "import" and (
                        "omegaconf" in b.qualified or "DictConfig" in b.qualified
                    ):
                        return True
        return False

    # -- the diagnostic -----------------------------------------------------------
    def _column(self, line: int, byte_offset: int) -> int:
        """0-based column in code points of a UTF-8 byte offset on a 1-based line."""
        text = self.lines[line - 1]
        if text.isascii():
            return byte_offset
        return len(text.encode("utf-8")[:byte_offset].decode("utf-8", "replace"))

    def _diagnostic(self, candidate: _Candidate, kind: str, expression: str) -> Diagnostic:
        call = candidate.call
        func = call.func
        if (call.lineno, call.col_offset) != (func.lineno, func.col_offset):
            raise _Defer  # ``(f)()``: LibCST spells the callee with its parentheses
        if func.lineno != func.end_lineno or call.end_lineno is None:
            raise _Defer
        line, end_line = call.lineno, call.end_lineno
        for n in {line, end_line}:
            if _NOQA.search(self.lines[n - 1]):
                raise _Defer
        line_text = self.lines[line - 1]
        start = self._column(line, call.col_offset)
        assert func.end_col_offset is not None and call.end_col_offset is not None
        callee = line_text[start : self._column(line, func.end_col_offset)]
        end = self._column(end_line, call.end_col_offset)
        text = f"{CONFIG_PARAMETER}={expression}" if self.settings.keyword else expression
        if kind == "empty":
            edit = Edit(text, end_line, end, end_line, end)
        elif kind == "keywords":
            first = call.keywords[0]
            col = self._column(first.lineno, first.col_offset) + 1
            edit = Edit(f"{text}, ", first.lineno, col, first.lineno, col)
        else:
            value = call.args[0] if kind == "none" else next(
                k.value for k in call.keywords if k.arg == CONFIG_PARAMETER
            )
            if kind == "config=None":
                text = expression
            edit = Edit(
                text,
                value.lineno,
                self._column(value.lineno, value.col_offset) + 1,
                value.end_lineno,  # type: ignore[arg-type]
                self._column(value.end_lineno, value.end_col_offset) + 1,  # type: ignore[arg-type]
            )
        return Diagnostic(
            path=self.path,
            line=line,
            column=start + 1,
            end_line=end_line,
            end_column=end + 1,
            code="PPO001",
            message=f"`{callee}()` called without the config in scope; pass `{expression}`",
            scope=qualname(candidate.frames),
            fix=Fix(message=f"Pass `{expression}`", edits=(edit,)),
        )


def _is_instance_method(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``scope.ConfigResolver._is_instance_method`` on Python's AST."""
    params = (*node.args.posonlyargs, *node.args.args)
    if not params or params[0].arg != "self":
        return False
    return not any(
        isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
        for d in node.decorator_list
    )


def _self_attributes(cls: ast.ClassDef) -> frozenset[str]:
    """``scope._SelfAttributes`` on Python's AST: class-body names and ``self.X`` targets."""
    names: set[str] = set()

    def target(t: ast.AST, depth: int) -> None:
        if isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                target(e, depth)
        elif isinstance(t, ast.Starred):
            target(t.value, depth)
        elif isinstance(t, ast.Attribute):
            if isinstance(t.value, ast.Name) and t.value.id == "self":
                names.add(t.attr)
        elif isinstance(t, ast.Name) and depth == 0:
            names.add(t.id)

    def walk(nodes: Iterable[ast.AST], depth: int) -> None:
        for node in nodes:
            if isinstance(node, ast.ClassDef):
                continue  # a nested class has its own ``self``
            d = depth + 1 if isinstance(node, _FUNCTIONS) else depth
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    target(t, d)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                target(node.target, d)
            walk(ast.iter_child_nodes(node), d)

    walk(cls.body, 0)
    return frozenset(names)
