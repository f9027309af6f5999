"""Parse a module once with Python's own compiler; positions in code points; size guards.

Every other part of :mod:`ppo_migrate.rules` works on the :class:`ParsedModule`
this returns. Python's ``ast`` gives each node a 1-based line and a 0-based
column counted in UTF-8 *bytes* of that line; reports and edits speak 1-based
columns in Unicode *code points* (ruff's JSON, SARIF ``unicodeCodePoints``,
LibCST's ``PositionProvider``), which :meth:`ParsedModule.column` converts.
Lines are split at ``\\r\\n``, ``\\r`` and ``\\n`` — the line breaks of Python's
tokenizer, and of :func:`ppo_migrate.edits.text_edits.apply_edits` — never at the other
characters ``str.splitlines`` breaks at (form feed, ``\\x1c``, ``\\u2028``...).
"""

from __future__ import annotations

import ast
import warnings
import weakref

from ppo_migrate.constants import MAX_NESTING, MAX_SOURCE_CHARS
from ppo_migrate.patterns import lazy_pattern

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ppo_migrate.project.snapshot import SourceFile

_LINE_SPLIT = lazy_pattern(r"\r\n|\r|\n")


class SourceProblem(ValueError):
    """The text cannot be analysed; reported as PPO902 (``syntax error: ...`` or
    ``cannot parse: ...``).

    Attributes:
        message: one line without the path, as the PPO902 message shows it, e.g.
            ``"syntax error: invalid syntax"`` or ``"cannot parse: nested too deeply
            (depth > 500)"``.
        line: 1-based line of the problem (1 when unknown).
        column: 1-based column in code points (1 when unknown).
    """

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class ParsedModule:
    """One module's source and its ``ast``, parsed once.

    Attributes:
        text: the decoded source (no newline translation).
        path: the display path (``"-"`` for standard input).
        tree: the module's ``ast.Module``.
        lines: the source lines without their line breaks (index 0 is line 1).
        facts: what one walk of the tree collected (:class:`ModuleFacts`); walked here
            when not given.

    A plain class, not a dataclass: one ``@dataclass`` costs ~1 ms at import, a share of
    every run's start (issue 13, item 6).
    """

    def __init__(
        self,
        text: str,
        path: str,
        tree: ast.Module,
        lines: list[str],
        facts: ModuleFacts | None = None,
    ) -> None:
        self.text = text
        self.path = path
        self.tree = tree
        self.lines = lines
        if facts is None:
            problem, facts = facts_of(tree)
        self.facts: ModuleFacts = facts

    def column(self, line: int, byte_offset: int) -> int:
        """0-based code-point column of an ``ast`` position.

        Args:
            line: 1-based line (``node.lineno``).
            byte_offset: the node's ``col_offset``/``end_col_offset``: UTF-8 bytes
                from the start of that line.

        Returns:
            The same position counted in code points (add 1 for a report column).
        """
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if text.isascii():
            return byte_offset
        return len(text.encode("utf-8")[:byte_offset].decode("utf-8", "replace"))

    def start(self, node: ast.AST) -> tuple[int, int]:
        """``(line, column)`` of a node's start: 1-based line, 1-based code-point column."""
        line = node.lineno  # type: ignore[attr-defined]
        return line, self.column(line, node.col_offset) + 1  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> tuple[int, int]:
        """``(line, column)`` just after a node: 1-based line, 1-based code-point column."""
        line = node.end_lineno  # type: ignore[attr-defined]
        return line, self.column(line, node.end_col_offset) + 1  # type: ignore[attr-defined]

    def ancestors(self, node: ast.AST) -> list[ast.AST]:
        """The nodes enclosing ``node``, from the module down to its parent (``[]`` for the
        module itself or a node not in the tree).

        Found by descending from the module through the children whose source range
        holds the node's start, so it costs the depth times the siblings on the way,
        not a map of the whole tree.
        """
        target = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        end = (getattr(node, "end_lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0)
        chain: list[ast.AST] = []
        current: ast.AST = self.tree
        while current is not node:
            chain.append(current)
            nxt = None
            for child in ast.iter_child_nodes(current):
                if child is node:
                    return chain
                span = _span(child)
                if span is not None and span[0] <= target and end <= span[1]:
                    nxt = child  # siblings' ranges do not overlap
                    break
            if nxt is None:
                return []
            current = nxt
        return chain

    def source_of(self, node: ast.AST) -> str:
        """The exact source text of a node (``ast.get_source_segment`` in code points)."""
        (l1, c1), (l2, c2) = self.start(node), self.end(node)
        if l1 == l2:
            return self.lines[l1 - 1][c1 - 1 : c2 - 1]
        parts = [self.lines[l1 - 1][c1 - 1 :], *self.lines[l1 : l2 - 1], self.lines[l2 - 1][: c2 - 1]]
        return "\n".join(parts)


def _span(node: ast.AST) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """A node's source range; for the position-less ones (arguments, comprehension,
    withitem, match_case, ...) the range of their positioned children."""
    if hasattr(node, "lineno"):
        start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
        # a decorated ``def``/``class`` starts at its ``def``/``class`` keyword (the
        # compiler's position), its decorators above it (trial 26i, I-C1: a reference in
        # ``@print(cp.get_...)`` had no enclosing nodes)
        for decorator in getattr(node, "decorator_list", ()):
            start = min(start, (decorator.lineno, decorator.col_offset))
        return (start, (node.end_lineno or 0, node.end_col_offset or 0))  # type: ignore[attr-defined]
    spans = [s for s in map(_span, ast.iter_child_nodes(node)) if s is not None]
    if not spans:
        return None
    return min(s[0] for s in spans), max(s[1] for s in spans)


def all_parents(tree: ast.AST) -> dict[int, ast.AST]:
    """``id(child) -> parent`` for every node of ``tree`` (one walk; for the caller phase)."""
    out: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            out[id(child)] = node
    return out


def split_lines(text: str) -> list[str]:
    """Lines as Python's tokenizer counts them (``\\r\\n``, ``\\r``, ``\\n``), without endings."""
    if "\r" not in text:  # nearly every file: str.split is ~10x faster than the pattern's
        return text.split("\n")
    return _LINE_SPLIT.split(text)


def parse(text: str, path: str, tree_of=None) -> ParsedModule:
    """Parse ``text`` once (``compile(..., ast.PyCF_ONLY_AST)``) behind the size and nesting guards.

    Args:
        text: the decoded module source.
        path: the display path (only used in the compiler's messages).
        tree_of: what gives ``text``'s tree, raising as ``compile`` raises, when it is
            made elsewhere (:meth:`ppo_migrate.project.snapshot.SourceFile.tree`: once a run).

    Returns:
        The :class:`ParsedModule`.

    Raises:
        SourceProblem: the text is longer than ``constants.MAX_SOURCE_CHARS``
            (``cannot parse: too large to parse (N characters; the limit is M)``),
            Python rejects it (``syntax error: <Python's message>`` at Python's
            position), or it nests deeper than ``constants.MAX_NESTING`` (counting
            each operand of ``a or b or ...`` and each part of a dotted import, as
            the LibCST pass did: ``cannot parse: nested too deeply (depth > 500)``).
    """
    if len(text) > MAX_SOURCE_CHARS:
        raise SourceProblem(
            f"cannot parse: too large to parse ({len(text)} characters; "
            f"the limit is {MAX_SOURCE_CHARS})"
        )
    try:
        if tree_of is not None:
            tree = tree_of()
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # e.g. invalid escape sequences
                tree = compile(text, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as exc:
        raise syntax_problem(exc) from None
    except (RecursionError, MemoryError):
        raise SourceProblem(f"cannot parse: nested too deeply (depth > {MAX_NESTING})") from None
    except (ValueError, OverflowError) as exc:  # a NUL byte (Python < 3.12)
        raise SourceProblem(f"syntax error: {exc}") from None
    lines = split_lines(text)
    problem, facts = facts_of(tree)
    module = ParsedModule(text, path, tree, lines, facts)
    if problem is not None:  # a copy: the walk's answer is kept with the tree
        column = problem.column
        if 0 < problem.line <= len(lines):  # the byte column, in code points
            column = module.column(problem.line, column - 1) + 1
        raise SourceProblem(problem.message, problem.line, column)
    return module


def parsed_source(source: SourceFile, path: str) -> ParsedModule:
    """The run's snapshot's file ``source`` parsed as :func:`parse` parses it, for the display
    path ``path``: made once a run, on the snapshot's tree (one tree, and one walk of it,
    for every path it is asked for), and kept with it
    (:meth:`ppo_migrate.project.snapshot.SourceFile.derived`).

    Raises:
        SourceProblem: as :func:`parse` raises it.
        UnicodeDecodeError, SyntaxError, LookupError: the bytes do not decode.
    """
    modules: dict[str, ParsedModule] = source.derived(_PARSED, _by_path)
    found = modules.get(path)
    if found is None:
        if modules:
            other = next(iter(modules.values()))
            found = ParsedModule(other.text, path, other.tree, other.lines, other.facts)
        else:
            # looked up when called: a test logging the run's parses replaces this module's
            found = parse(source.text, path, tree_of=source.tree)
        modules[path] = found
    return found


#: :func:`parsed_source`'s kind in a snapshot's file: its :class:`ParsedModule` by display path
_PARSED = "ppo_migrate.rules.module.ParsedModule"


def _by_path(source: SourceFile) -> dict[str, ParsedModule]:
    return {}


def syntax_problem(exc: SyntaxError) -> SourceProblem:
    """A PPO902 :class:`SourceProblem` from Python's ``SyntaxError`` (its message and position).

    CPython's own nesting limits (``too many nested parentheses``, ``too complex``)
    read ``cannot parse: nested too deeply (<message>)``.
    """
    msg = exc.msg or "invalid syntax"
    line, column = exc.lineno or 1, max(exc.offset or 1, 1)
    if msg.startswith("too many nested") or "too complex" in msg:
        return SourceProblem(f"cannot parse: nested too deeply ({msg})", line, column)
    return SourceProblem(f"syntax error: {msg}", line, column)


class ModuleFacts:
    """What one walk of a module's tree collects for the rest of the analysis.

    Attributes:
        parents: ``id(name) -> parent node`` for every ``ast.Name`` (the other nodes'
            ancestors: :meth:`ParsedModule.ancestors`, :func:`all_parents`).
        calls: every ``ast.Call`` (in no particular order).
        imports: every ``ast.Import`` and ``ast.ImportFrom``.
        binders: every node that may bind a name: ``Name`` in a store context,
            ``def``/``class``/``lambda``, ``except ... as``, match captures.
        loads: identifier -> the ``Name`` nodes reading it.
        attributes: every ``ast.Attribute``.
        declarations: the module holds a ``global`` or ``nonlocal`` statement.
        comprehensions: every ``ast.comprehension`` (the ``for ... in ...`` clauses of
            comprehensions and generator expressions).
        table: the nodes the replacements' table looks at
            (:mod:`ppo_migrate.rules.patches`' ``_Nodes``): calls, ``=``/``+=``/annotated
            assignments, ``for``/``async for``/``with``/``async with`` statements,
            comprehension clauses, subscripts, imports and constants, in the walk's order
            (:func:`walk_facts`); :meth:`table_in_walk_order` gives them in
            ``ast.walk``'s.
        levels: ``levels[i]`` is ``table[i]``'s depth in the tree (the module is 0; one
            level a node, unlike the nesting measure of :func:`walk_facts`).
    """

    def __init__(self) -> None:
        self.parents: dict[int, ast.AST] = {}
        self.calls: list[ast.Call] = []
        self.imports: list[ast.stmt] = []
        self.binders: list[ast.AST] = []
        self.loads: dict[str, list[ast.Name]] = {}
        self.attributes: list[ast.Attribute] = []
        self.declarations: bool = False
        self.comprehensions: list[ast.comprehension] = []
        self.table: list[ast.AST] = []
        self.levels: list[int] = []

    def table_in_walk_order(self) -> list[ast.AST]:
        """:attr:`table` in ``ast.walk``'s order (breadth first, each node's children in
        field order), from the one walk's order without another walk.

        :func:`walk_facts` walks depth first, the last child first: of two nodes at the
        same depth, the one ``ast.walk`` meets first (the smaller path of child indices)
        is met last. So ``ast.walk``'s order is by depth, then the walk's order
        reversed: one pass putting the nodes in a bucket per depth.
        """
        buckets: dict[int, list[ast.AST]] = {}
        for node, level in zip(self.table, self.levels):
            bucket = buckets.get(level)
            if bucket is None:
                buckets[level] = [node]
            else:
                bucket.append(node)
        out: list[ast.AST] = []
        for level in sorted(buckets):
            out.extend(reversed(buckets[level]))
        return out


_BINDERS = (
    ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ExceptHandler,
    ast.MatchAs, ast.MatchStar, ast.MatchMapping,
)


#: What :func:`walk_facts` does with a node of each type: a kind (``_K_*``), the fields
#: that may hold child nodes other than leaf singletons (``ctx``: ``Load()``; ``op``,
#: ``ops``: ``Add()``, ``Eq()``), which are not walked (see :func:`walk_facts`), and of
#: :data:`_NON_NODE_FIELDS`, and whether
#: it goes to :attr:`ModuleFacts.table` (:data:`_TABLE_TYPES`).
_NODE_SPECS: dict[type, tuple[int, tuple[str, ...], bool]] = {}

#: node type -> the fields of it that never hold a node: identifiers, strings, numbers
#: and constants (the grammar of Python's ``ast`` module, 3.10 to 3.13), whatever a
#: node's other fields hold. The walk does not look into them (it would find no node
#: there): a ``Constant``, an ``alias`` and most of an ``Attribute``, an ``arg`` or a
#: ``keyword`` is then no look-up at all.
_NON_NODE_FIELDS: dict[type, frozenset[str]] = {
    ast.Constant: frozenset({"value", "kind"}),
    ast.Attribute: frozenset({"attr"}),
    ast.alias: frozenset({"name", "asname"}),
    ast.arg: frozenset({"arg", "type_comment"}),
    ast.keyword: frozenset({"arg"}),
    ast.FunctionDef: frozenset({"name", "type_comment"}),
    ast.AsyncFunctionDef: frozenset({"name", "type_comment"}),
    ast.ClassDef: frozenset({"name"}),
    ast.ImportFrom: frozenset({"module", "level"}),
    ast.Global: frozenset({"names"}),
    ast.Nonlocal: frozenset({"names"}),
    ast.Assign: frozenset({"type_comment"}),
    ast.AnnAssign: frozenset({"simple"}),
    ast.For: frozenset({"type_comment"}),
    ast.AsyncFor: frozenset({"type_comment"}),
    ast.With: frozenset({"type_comment"}),
    ast.AsyncWith: frozenset({"type_comment"}),
    ast.ExceptHandler: frozenset({"name"}),
    ast.comprehension: frozenset({"is_async"}),
    ast.FormattedValue: frozenset({"conversion"}),
}

#: the node types of :attr:`ModuleFacts.table`: every type the replacements' table
#: (:mod:`ppo_migrate.rules.patches`' ``_Nodes``) sorts, a subscript and a constant
#: whatever their key or value (it keeps those by a string)
_TABLE_TYPES = (
    ast.Call, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.comprehension,
    ast.With, ast.AsyncWith, ast.Subscript, ast.Import, ast.ImportFrom, ast.Constant,
)
_K_OTHER, _K_CALL, _K_ATTRIBUTE, _K_BOOLOP, _K_IMPORT, _K_BINDER, _K_DECLARATION, _K_COMPREHENSION = range(8)
_LEAF_FIELDS = frozenset({"ctx", "op", "ops"})


def _node_spec(t: type) -> tuple[int, tuple[str, ...], bool]:
    """The :data:`_NODE_SPECS` entry of node type ``t`` (computed once per type)."""
    if issubclass(t, ast.Call):
        kind = _K_CALL
    elif issubclass(t, ast.Attribute):
        kind = _K_ATTRIBUTE
    elif issubclass(t, ast.BoolOp):
        kind = _K_BOOLOP
    elif issubclass(t, (ast.Import, ast.ImportFrom)):
        kind = _K_IMPORT
    elif issubclass(t, _BINDERS):
        kind = _K_BINDER
    elif issubclass(t, (ast.Global, ast.Nonlocal)):
        kind = _K_DECLARATION
    elif issubclass(t, ast.comprehension):
        kind = _K_COMPREHENSION
    else:
        kind = _K_OTHER
    skipped = _LEAF_FIELDS | _NON_NODE_FIELDS.get(t, frozenset())
    fields = tuple(f for f in getattr(t, "_fields", ()) if f not in skipped)
    spec = (kind, fields, issubclass(t, _TABLE_TYPES))
    _NODE_SPECS[t] = spec
    return spec


def _children(node: ast.AST) -> list[ast.AST]:
    """Every child node of ``node`` (leaf singletons included), in field order."""
    out: list[ast.AST] = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            out.append(value)
        elif type(value) is list:
            out.extend(item for item in value if isinstance(item, ast.AST))
    return out


def walk_facts(tree: ast.AST) -> tuple[SourceProblem | None, ModuleFacts]:
    """One iterative walk of ``tree``: its :class:`ModuleFacts`, and the PPO902 of a tree
    nested deeper than ``constants.MAX_NESTING`` (else ``None``).

    Depth counts one level a node, each operand of a ``BoolOp`` chain and each
    part of a dotted import name (the measure the LibCST pass used, so the same
    files are refused). Never recurses.

    The walk is depth-first, the last child first; the first node deeper than the
    limit that is not a ``Name`` is the one reported. Leaf singletons (contexts,
    operators) have no children, so they are looked at only when the children of a
    node are too deep, in the order a walk of every node would pop them.

    The same walk keeps the nodes of the replacements' table with their depths
    (:attr:`ModuleFacts.table`): :mod:`ppo_migrate.rules.patches` asks them of the
    tree instead of walking it again (:func:`facts_of`). A walk stopped by a PPO902
    leaves the facts incomplete.
    """
    facts = ModuleFacts()
    parents, calls, imports, binders, loads = (
        facts.parents, facts.calls, facts.imports, facts.binders, facts.loads
    )
    table_add, level_add = facts.table.append, facts.levels.append
    problem: SourceProblem | None = None
    name_t, store_t, const_t, alias_t = ast.Name, ast.Store, ast.Constant, ast.alias
    attributes = facts.attributes
    specs = _NODE_SPECS
    max_nesting = MAX_NESTING
    AST = ast.AST
    stack: list[tuple[ast.AST, int, ast.AST | None, int]] = [(tree, 0, None, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth, parent, level = pop()
        t = type(node)
        if t is name_t:
            parents[id(node)] = parent  # type: ignore[assignment]
            if type(node.ctx) is store_t:  # type: ignore[attr-defined]
                binders.append(node)
            else:
                loads.setdefault(node.id, []).append(node)  # type: ignore[attr-defined]
            continue  # a Name's only child is its context
        if t is const_t or t is alias_t:  # frequent, and no child node to walk
            if t is const_t:
                table_add(node)
                level_add(level)
            if depth > max_nesting:
                problem = _too_deep(node)
                break
            continue
        spec = specs.get(t)
        if spec is None:
            spec = _node_spec(t)
        kind, fields, tabled = spec
        if tabled:
            table_add(node)
            level_add(level)
        if kind:
            if kind == _K_CALL:
                calls.append(node)  # type: ignore[arg-type]
            elif kind == _K_ATTRIBUTE:
                attributes.append(node)  # type: ignore[arg-type]
            elif kind == _K_BOOLOP:
                depth += len(node.values) - 1  # type: ignore[attr-defined]
            elif kind == _K_IMPORT:
                imports.append(node)  # type: ignore[arg-type]
                module = getattr(node, "module", None) or ""
                depth += max(n.count(".") for n in (module, *(a.name for a in node.names)))  # type: ignore[attr-defined]
            elif kind == _K_BINDER:
                binders.append(node)
            elif kind == _K_COMPREHENSION:
                facts.comprehensions.append(node)  # type: ignore[arg-type]
            else:
                facts.declarations = True
        if depth > max_nesting:
            problem = _too_deep(node)
            break
        depth += 1
        if depth > max_nesting:
            # every child is too deep: the first popped that is not a Name is reported
            for child in reversed(_children(node)):
                if type(child) is name_t:
                    parents[id(child)] = node
                    if type(child.ctx) is store_t:  # type: ignore[attr-defined]
                        binders.append(child)
                    else:
                        loads.setdefault(child.id, []).append(child)  # type: ignore[attr-defined]
                    continue
                problem = _too_deep(child)
                break
            if problem is not None:
                break
            continue
        level += 1
        for name in fields:
            value = getattr(node, name, None)
            if isinstance(value, AST):
                push((value, depth, node, level))
            elif type(value) is list:
                for item in value:
                    if isinstance(item, AST):
                        push((item, depth, node, level))
    return problem, facts


#: tree -> :func:`walk_facts`'s answer, while the tree lives (a run's snapshot keeps a
#: file's tree for every phase that asks: the look-out for test doubles walks it before
#: the file's own analysis does)
_FACTS: weakref.WeakKeyDictionary[ast.AST, tuple[SourceProblem | None, ModuleFacts]] = (
    weakref.WeakKeyDictionary()
)


def facts_of(tree: ast.AST) -> tuple[SourceProblem | None, ModuleFacts]:
    """:func:`walk_facts` of ``tree``, walked once however often asked while the tree lives.

    Args:
        tree: any ``ast`` node (a module's tree, a doctest's, an embedded script's); it is
            read, never changed (the answer is kept by its identity).

    Returns:
        ``(problem, facts)`` as :func:`walk_facts` gives them: ``problem`` is not ``None``
        when the tree nests deeper than ``constants.MAX_NESTING`` (then ``facts`` are
        incomplete). The answer is shared: not to be changed.
    """
    found = _FACTS.get(tree)
    if found is None:
        found = walk_facts(tree)
        try:
            _FACTS[tree] = found
        except TypeError:  # a node type that takes no weak reference: walked each time
            pass
    return found


def _too_deep(node: ast.AST) -> SourceProblem:
    """The PPO902 of a node nested deeper than the limit (1:1 for one without a position)."""
    line = getattr(node, "lineno", 1)
    col = getattr(node, "col_offset", 0)
    return SourceProblem(f"cannot parse: nested too deeply (depth > {MAX_NESTING})", line, col + 1)


def nesting_problem(tree: ast.AST) -> SourceProblem | None:
    """A PPO902 for a tree nested deeper than ``constants.MAX_NESTING``, else ``None``
    (see :func:`walk_facts`)."""
    return walk_facts(tree)[0]


__all__ = [
    "ModuleFacts",
    "all_parents",
    "facts_of",
    "ParsedModule",
    "SourceProblem",
    "nesting_problem",
    "parse",
    "parsed_source",
    "split_lines",
    "syntax_problem",
    "walk_facts",
]
