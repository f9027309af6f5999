"""``apply --use-ppo-runtime``: import the runtime function from ``ppo_runtime``.

Projects pinned to a verl release older than PR #6976 (or one whose check
misses the reference policy and reward model) get the corrected behaviour by
importing ``get_ppo_ray_runtime_env`` from ``ppo_runtime`` instead of verl:

* ``from verl.trainer.constants_ppo import get_ppo_ray_runtime_env as g`` becomes
  ``from ppo_runtime import get_ppo_ray_runtime_env as g`` (aliases kept, the
  statement edited in place);
* when the statement imports other names too, only the runtime function is
  taken out of it and imported from ``ppo_runtime`` with LibCST's
  ``AddImportsVisitor``;
* ``c.get_ppo_ray_runtime_env`` through a module import becomes
  ``ppo_runtime.get_ppo_ray_runtime_env`` with ``import ppo_runtime`` added --
  unless the module binds or uses the name ``ppo_runtime`` for anything but an
  import of the ``ppo_runtime`` package (a parameter, a global, a local, another
  module imported under that name): there ``ppo_runtime.<f>`` would not be the
  runtime, so such references are left alone;
* ``from verl.trainer.constants_ppo import *`` is followed by
  ``from ppo_runtime import get_ppo_ray_runtime_env`` (the later binding wins).

Nothing else in the file changes: when one alias is taken out of an import, every
other alias keeps its comma and comment.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import MetadataWrapper, PositionProvider

from ppo_migrate.rules.names import ModuleNames
from ppo_migrate.edits.import_sections import ImportSections, import_sections

PPO_RUNTIME = "ppo_runtime"
FUNCTION = "get_ppo_ray_runtime_env"
VERL_MODULES = frozenset({"verl.trainer.constants_ppo", "verl.trainer.main_ppo"})


def _dotted(node: cst.BaseExpression | None) -> str:
    """A dotted name as Python reads it: spaces dropped, NFKC-normalised (``ｇet_...`` is
    ``get_...`` to Python, as to the analysis core)."""
    if node is None:
        return ""
    text = cst.Module(body=()).code_for_node(node).replace(" ", "")
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def _is_ppo_runtime_import(statement: cst.BaseSmallStatement) -> bool:
    """``from ppo_runtime import get_ppo_ray_runtime_env`` (unaliased)."""
    return (
        isinstance(statement, cst.ImportFrom)
        and not statement.relative
        and _dotted(statement.module) == PPO_RUNTIME
        and not isinstance(statement.names, cst.ImportStar)
        and any(_dotted(a.name) == FUNCTION and a.asname is None for a in statement.names)
    )


def _is_verl_star(statement: cst.BaseSmallStatement) -> bool:
    return (
        isinstance(statement, cst.ImportFrom)
        and not statement.relative
        and _dotted(statement.module) in VERL_MODULES
        and isinstance(statement.names, cst.ImportStar)
    )


def _ppo_runtime_import() -> cst.ImportFrom:
    return cst.ImportFrom(module=cst.Name(PPO_RUNTIME), names=(cst.ImportAlias(cst.Name(FUNCTION)),))


def _join(
    before: cst.BaseParenthesizableWhitespace, after: cst.BaseParenthesizableWhitespace
) -> cst.BaseParenthesizableWhitespace:
    """The whitespace left when the item between ``before`` and ``after`` is removed.

    In a multi-line list ``before`` ends with the removed item's indentation and
    ``after`` starts with the removed item's own comment: keep ``before``'s comment
    (it belongs to the item before) and ``after``'s indentation (it belongs to
    whatever follows).
    """
    if isinstance(before, cst.ParenthesizedWhitespace):
        last = after.last_line if isinstance(after, cst.ParenthesizedWhitespace) else after
        return before.with_changes(last_line=last)
    if isinstance(after, cst.ParenthesizedWhitespace):
        return after.with_changes(first_line=cst.TrailingWhitespace(newline=after.first_line.newline))
    return before


def _remove_alias(node: cst.ImportFrom, i: int) -> cst.ImportFrom:
    """``node`` without its ``i``-th alias; every other alias keeps its comma and comment."""
    names = list(node.names)  # type: ignore[arg-type]
    removed = names.pop(i)
    parenthesized = node.lpar is not None
    has_comma = isinstance(removed.comma, cst.Comma)
    if not parenthesized:
        if i == len(names):  # the last alias went: drop the now-trailing comma
            names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return node.with_changes(names=tuple(names))
    assert node.lpar is not None and node.rpar is not None
    if i == 0:
        assert isinstance(removed.comma, cst.Comma)  # another alias follows
        lpar = node.lpar.with_changes(
            whitespace_after=_join(node.lpar.whitespace_after, removed.comma.whitespace_after)
        )
        return node.with_changes(names=tuple(names), lpar=lpar)
    before = names[i - 1]
    assert isinstance(before.comma, cst.Comma)
    if has_comma:
        assert isinstance(removed.comma, cst.Comma)
        comma = before.comma.with_changes(
            whitespace_after=_join(before.comma.whitespace_after, removed.comma.whitespace_after)
        )
        names[i - 1] = before.with_changes(comma=comma)
        return node.with_changes(names=tuple(names))
    # the last alias, with no trailing comma, went: what followed it now follows ``before``
    rpar_ws = node.rpar.whitespace_before
    if not isinstance(before.comma.whitespace_after, cst.ParenthesizedWhitespace) and not isinstance(
        rpar_ws, cst.ParenthesizedWhitespace
    ):  # all on one line: ``(A, f)`` -> ``(A)``
        names[i - 1] = before.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return node.with_changes(names=tuple(names))
    comma = before.comma.with_changes(whitespace_after=_join(before.comma.whitespace_after, rpar_ws))
    names[i - 1] = before.with_changes(comma=comma)
    rpar = node.rpar.with_changes(whitespace_before=cst.SimpleWhitespace(""))
    return node.with_changes(names=tuple(names), rpar=rpar)


def _attributes_at(module: cst.Module, ends: set[tuple[int, int]]) -> set[cst.Attribute]:
    """The ``cst.Attribute`` nodes whose attribute name ends at one of ``ends`` (1-based
    line and code-point column, as :meth:`ModuleNames.attribute_references` gives them)."""
    if not ends:
        return set()
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    out: set[cst.Attribute] = set()
    for node, where in positions.items():
        if isinstance(node, cst.Attribute) and node.attr.value == FUNCTION:
            end = positions[node.attr].end
            if (end.line, end.column + 1) in ends:
                out.add(node)
    return out


class _Rewrite(cst.CSTTransformer):
    def __init__(self, attributes: set[cst.Attribute], context: CodemodContext) -> None:
        super().__init__()
        self.attributes = attributes
        self.context = context
        self.count = 0

    def leave_ImportFrom(
        self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom
    ) -> cst.ImportFrom:
        if updated_node.relative or _dotted(updated_node.module) not in VERL_MODULES:
            return updated_node
        if isinstance(updated_node.names, cst.ImportStar):
            return updated_node
        ours = [a for a in updated_node.names if _dotted(a.name) == FUNCTION]
        if not ours:
            return updated_node
        self.count += len(ours)
        if len(ours) == len(updated_node.names):
            return updated_node.with_changes(module=cst.Name(PPO_RUNTIME))
        new = updated_node
        for i in reversed(range(len(updated_node.names))):
            if _dotted(updated_node.names[i].name) == FUNCTION:
                new = _remove_alias(new, i)
        for alias in ours:
            asname = _dotted(alias.asname.name) if alias.asname else None
            AddImportsVisitor.add_needed_import(self.context, PPO_RUNTIME, FUNCTION, asname)
        return new

    # -- ``from verl... import *``: follow it with ``from ppo_runtime import f`` ----
    def _after_stars(self, statements: Sequence[cst.BaseSmallStatement], *, last: bool) -> list:
        """Insert the ppo_runtime import after each verl star import of one line's statements.

        ``last``: also after a star import that ends the list (a suite, ``if x: from m import *``);
        one that ends a statement line gets a line of its own instead (see :meth:`_block`).
        """
        out: list[cst.BaseSmallStatement] = []
        for k, statement in enumerate(statements):
            out.append(statement)
            is_last = k + 1 == len(statements)
            if not _is_verl_star(statement) or (is_last and not last):
                continue
            if not is_last and _is_ppo_runtime_import(statements[k + 1]):
                continue
            self.count += 1
            new = _ppo_runtime_import().with_changes(semicolon=statement.semicolon)
            if is_last:  # ``...import *`` or ``...import *;`` -> ``...import *; new`` (``;`` kept)
                out[-1] = statement.with_changes(
                    semicolon=cst.Semicolon(
                        whitespace_before=cst.SimpleWhitespace(""),
                        whitespace_after=cst.SimpleWhitespace(" "),
                    )
                )
            out.append(new)
        return out

    def _block(self, body: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        for k, line in enumerate(body):
            out.append(line)
            if not isinstance(line, cst.SimpleStatementLine) or not line.body:
                continue
            if not _is_verl_star(line.body[-1]):
                continue  # one with statements after it on its line: leave_SimpleStatementLine
            following = body[k + 1] if k + 1 < len(body) else None
            if (
                isinstance(following, cst.SimpleStatementLine)
                and following.body
                and _is_ppo_runtime_import(following.body[0])
            ):
                continue
            self.count += 1
            # Its place after the star import decides which binding wins, so import
            # sorters must leave it there: ``# isort: skip`` (isort and ruff's I001 honour
            # it) on a line of its own block (a blank line before it), so that the
            # imports around it still sort cleanly.
            out.append(
                cst.SimpleStatementLine(
                    body=(_ppo_runtime_import(),),
                    leading_lines=(cst.EmptyLine(indent=False),),
                    trailing_whitespace=cst.TrailingWhitespace(
                        whitespace=cst.SimpleWhitespace("  "),
                        comment=cst.Comment("# isort: skip (must follow the star import)"),
                    ),
                )
            )
        return out

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        if not any(_is_verl_star(s) for s in updated_node.body[:-1]):
            return updated_node
        return updated_node.with_changes(body=tuple(self._after_stars(updated_node.body, last=False)))

    def leave_SimpleStatementSuite(
        self, original_node: cst.SimpleStatementSuite, updated_node: cst.SimpleStatementSuite
    ) -> cst.SimpleStatementSuite:
        if not any(_is_verl_star(s) for s in updated_node.body):
            return updated_node
        return updated_node.with_changes(body=tuple(self._after_stars(updated_node.body, last=True)))

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        return updated_node.with_changes(body=tuple(self._block(updated_node.body)))

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return updated_node.with_changes(body=tuple(self._block(updated_node.body)))

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        if original_node not in self.attributes:
            return updated_node
        self.count += 1
        AddImportsVisitor.add_needed_import(self.context, PPO_RUNTIME)
        return updated_node.with_changes(value=cst.Name(PPO_RUNTIME))


# -- leaving lint-clean code lint-clean ------------------------------------------


def _blank_prefix(lines: Sequence[cst.EmptyLine]) -> int:
    n = 0
    while n < len(lines) and lines[n].comment is None:
        n += 1
    return n


def _merge_leading(removed: Sequence[cst.EmptyLine], following: Sequence[cst.EmptyLine]) -> tuple:
    """The lines above a statement whose predecessor ``removed``'s lines go with it.

    Blank lines are not added up (a section's separating blank line and the two
    before a ``def`` make two, not three); comments are kept.
    """
    rb, fb = _blank_prefix(removed), _blank_prefix(following)
    return (*(cst.EmptyLine(indent=False),) * max(rb, fb), *removed[rb:], *following[fb:])


def _import_line(line: cst.BaseStatement) -> tuple[str, bool, bool] | None:
    """``(module, is_from, relative)`` of a line holding exactly one import, else ``None``."""
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    statement = line.body[0]
    if isinstance(statement, cst.Import):
        return _dotted(statement.names[0].name), False, False
    if isinstance(statement, cst.ImportFrom):
        return _dotted(statement.module), True, bool(statement.relative)
    return None


def _is_our_line(line: cst.BaseStatement, before: set[str]) -> bool:
    info = _import_line(line)
    return info is not None and info[0] == PPO_RUNTIME and not info[2] and (
        cst.Module(body=()).code_for_node(line.with_changes(leading_lines=())) not in before
    )


def _ppo_runtime_lines(module: cst.Module) -> set[str]:
    """The top-level ``ppo_runtime`` import lines of ``module`` (without the lines above)."""
    empty = cst.Module(body=())
    return {
        empty.code_for_node(line.with_changes(leading_lines=()))
        for line in module.body
        if (info := _import_line(line)) is not None and info[0] == PPO_RUNTIME
    }


def _place_imports(module: cst.Module, before: set[str], sections: ImportSections) -> cst.Module:
    """Move each top-level ``ppo_runtime`` import this run made to where isort/ruff put it.

    The first run of top-level import lines is the import block; the new line goes
    into its section (:mod:`ppo_migrate.edits.import_sections`) at its sorted place, a new
    section getting one blank line before it. Imports elsewhere (in a ``try``, a
    function, after other code) stay where they are.
    """
    body = list(module.body)
    for _ in range(len(body)):
        index = next((i for i, line in enumerate(body) if _is_our_line(line, before)), None)
        if index is None:
            break
        saved = list(body)
        line = body.pop(index)
        before = before | {cst.Module(body=()).code_for_node(line.with_changes(leading_lines=()))}
        if index < len(body):
            body[index] = body[index].with_changes(
                leading_lines=_merge_leading(line.leading_lines, body[index].leading_lines)
            )
        start = next((i for i, b in enumerate(body) if _import_line(b) is not None), None)
        if start is None:
            body = saved
            continue
        end = start
        while end < len(body) and _import_line(body[end]) is not None:
            end += 1
        info = _import_line(line)
        assert info is not None
        ours = sections.key(info[0], is_from=info[1])
        keys = []
        for b in body[start:end]:
            module_name, is_from, relative = _import_line(b)  # type: ignore[misc]
            keys.append(sections.key(module_name, is_from=is_from, relative=relative))
        j = next((k for k, key in enumerate(keys) if key > ours), len(keys))
        at = start + j
        if not _may_move(line, body[min(at, index):max(at, index)]):
            body = saved  # its place decides which binding wins: it stays
            continue
        same_before = j > 0 and keys[j - 1][0] == ours[0]
        same_after = j < len(keys) and keys[j][0] == ours[0]
        if same_before:
            line = line.with_changes(leading_lines=())
        elif same_after or j == 0:  # first of its section: it takes the lines above the next
            nxt = body[at]
            line = line.with_changes(leading_lines=nxt.leading_lines)
            body[at] = nxt.with_changes(leading_lines=() if same_after else (cst.EmptyLine(indent=False),))
        else:  # a new section after another one
            line = line.with_changes(leading_lines=(cst.EmptyLine(indent=False),))
        body.insert(at, line)
    return module.with_changes(body=tuple(body))


def _bound_by(line: cst.BaseStatement) -> set[str] | None:
    """The names a line's imports bind; ``None`` for a star import (any name)."""
    names: set[str] = set()
    if not isinstance(line, cst.SimpleStatementLine):
        return names
    for statement in line.body:
        if not isinstance(statement, (cst.Import, cst.ImportFrom)):
            continue
        if isinstance(statement.names, cst.ImportStar):
            return None
        for alias in statement.names:
            if alias.asname is not None:
                names.add(_dotted(alias.asname.name))
            elif isinstance(statement, cst.ImportFrom):
                names.add(_dotted(alias.name))
            else:
                names.add(_dotted(alias.name).split(".")[0])
    return names


def _may_move(line: cst.BaseStatement, passed: Sequence[cst.BaseStatement]) -> bool:
    """Whether ``line`` may move past the import lines ``passed`` without changing which
    binding wins: none of them is a star import or binds a name ``line`` binds
    (``from verl.trainer.constants_ppo import *`` then ``from ppo_runtime import f`` must
    stay in that order)."""
    ours = _bound_by(line) or set()
    for other in passed:
        bound = _bound_by(other)
        if bound is None or bound & ours:
            return False
    return True


def _verl_module_bindings(names: ModuleNames) -> dict[str, int]:
    """Names bound at module level to a verl module holding the runtime function
    (``import verl.trainer.constants_ppo as c``, ``from verl.trainer import constants_ppo``),
    with how many times each is used (``import verl.trainer.constants_ppo``: its full
    name, used by every read of ``verl``)."""
    return names.module_import_uses(VERL_MODULES)


def _drop_imports(module: cst.Module, names: set[str]) -> cst.Module:
    """``module`` without the top-level import aliases binding ``names``."""
    body: list[cst.BaseStatement] = []
    pending: tuple = ()
    for line in module.body:
        if pending:
            line = line.with_changes(leading_lines=_merge_leading(pending, line.leading_lines))
            pending = ()
        info = _import_line(line)
        if info is None:
            body.append(line)
            continue
        statement = line.body[0]  # type: ignore[attr-defined]
        aliases = list(statement.names) if not isinstance(statement.names, cst.ImportStar) else []

        def bound(alias: cst.ImportAlias) -> str:
            if alias.asname is not None:
                return _dotted(alias.asname.name)
            return _dotted(alias.name)  # ``import a.b`` is known by its full name here

        drop = [i for i, a in enumerate(aliases) if bound(a) in names]
        if not drop:
            body.append(line)
        elif len(drop) == len(aliases):
            pending = line.leading_lines
        else:
            for i in reversed(drop):
                if isinstance(statement, cst.ImportFrom):
                    statement = _remove_alias(statement, i)
                else:
                    kept = [a for k, a in enumerate(statement.names) if k != i]
                    kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                    statement = statement.with_changes(names=tuple(kept))
            body.append(line.with_changes(body=(statement,)))
    return module.with_changes(body=tuple(body))


_NOQA_CODES = re.compile(r"(#\s*noqa\s*:\s*)([A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)", re.I)


class _DropCode(cst.CSTTransformer):
    """Remove one rule code from the ``# noqa: ...`` comments of some lines."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, lines: set[int], code: str) -> None:
        super().__init__()
        self.lines, self.code = lines, code

    def leave_TrailingWhitespace(
        self, original_node: cst.TrailingWhitespace, updated_node: cst.TrailingWhitespace
    ) -> cst.TrailingWhitespace:
        comment = original_node.comment
        if comment is None:
            return updated_node
        line = self.get_metadata(PositionProvider, comment).start.line
        match = _NOQA_CODES.search(comment.value)
        if line not in self.lines or match is None:
            return updated_node
        codes = [c for c in re.split(r"[\s,]+", match.group(2)) if c]
        kept = [c for c in codes if c.upper() != self.code]
        if len(kept) == len(codes):
            return updated_node
        if kept:
            text = comment.value[: match.start(2)] + ", ".join(kept) + comment.value[match.end(2):]
            return updated_node.with_changes(comment=cst.Comment(text))
        rest = comment.value[: match.start()].rstrip() + comment.value[match.end():]
        if rest.strip() and rest.strip() != "#":
            return updated_node.with_changes(comment=cst.Comment(rest.strip()))
        return updated_node.with_changes(comment=None, whitespace=cst.SimpleWhitespace(""))


def _drop_stale_f405(module: cst.Module) -> cst.Module:
    """Drop ``F405`` (name may come from a star import) from ``# noqa`` on lines where the
    runtime function, now imported by name, was the only name a star import could give."""
    stale = ModuleNames(module.code).lines_with_only_bound_names(FUNCTION)
    if not stale:
        return module
    return MetadataWrapper(module).visit(_DropCode(stale, "F405"))


def use_ppo_runtime(
    module: cst.Module,
    targets: Iterable[str] | None = None,
    sections: ImportSections | None = None,
    names: ModuleNames | None = None,
) -> tuple[cst.Module, int]:
    """Make ``module`` import the runtime function from ``ppo_runtime``.

    Lint-clean code stays lint-clean (ruff ``I001``, ``F401``, ``RUF100``): a
    top-level ``ppo_runtime`` import goes where isort/ruff would put it
    (:mod:`ppo_migrate.edits.import_sections`); a module-level import of a verl module
    that the move left unused (``import verl.trainer.constants_ppo as c``, ``from
    verl.trainer import constants_ppo``) is removed; and ``F405`` is dropped from a
    ``# noqa`` that now suppresses nothing (the function was the line's only name
    from a star import).

    Args:
        module: a parsed module.
        targets: verl qualified names of the runtime function (default:
            ``<m>.get_ppo_ray_runtime_env`` for ``m`` in :data:`VERL_MODULES`).
        sections: the project's import-sorting settings (default: none configured,
            the working directory as the source root).
        names: the core's view of ``module.code`` when it is at hand (a parse made
            already); else ``module.code`` is parsed here.

    Returns:
        ``(new_module, count)``: the rewritten module and how many imports or
        references were changed (0 means ``new_module`` is ``module``).
    """
    sections = sections or import_sections(None)
    ppo_lines_before = _ppo_runtime_lines(module)
    if names is None:
        names = ModuleNames(module.code)
    uses_before = _verl_module_bindings(names)
    new, count = _use_ppo_runtime(module, targets, names)
    if count == 0:
        return module, 0
    new = _place_imports(new, ppo_lines_before, sections)
    if uses_before and "__all__" not in new.code:
        uses_after = _verl_module_bindings(ModuleNames(new.code))
        unused = {n for n, k in uses_before.items() if k and not uses_after.get(n, 0)}
        if unused:
            new = _drop_imports(new, unused)
    if "F405" in new.code.upper() and any(_is_verl_star(s) for line in new.body
                                          if isinstance(line, cst.SimpleStatementLine)
                                          for s in line.body):
        new = _drop_stale_f405(new)
    return new, count


def _use_ppo_runtime(
    module: cst.Module, targets: Iterable[str] | None, names: ModuleNames
) -> tuple[cst.Module, int]:
    """The import/reference rewrite itself (see :func:`use_ppo_runtime`); ``names`` is
    the core's view of ``module``'s code."""
    verl_targets = frozenset(targets or (f"{m}.{FUNCTION}" for m in VERL_MODULES))
    ends = names.attribute_references(verl_targets, FUNCTION)
    if ends and not names.binds_only_package(PPO_RUNTIME):
        # ``ppo_runtime.<f>`` would not be the runtime here: leave module access alone
        ends = set()
    attributes = _attributes_at(module, ends)
    context = CodemodContext()
    rewrite = _Rewrite(attributes, context)
    new = module.visit(rewrite)
    if rewrite.count == 0:
        return module, 0
    if context.scratch.get(AddImportsVisitor.CONTEXT_KEY):
        new = AddImportsVisitor(context).transform_module(new)
    return new, rewrite.count
