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

from collections.abc import Iterable, Sequence

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import Assignment, MetadataWrapper, QualifiedNameProvider, ScopeProvider

PPO_RUNTIME = "ppo_runtime"
FUNCTION = "get_ppo_ray_runtime_env"
VERL_MODULES = frozenset({"verl.trainer.constants_ppo", "verl.trainer.main_ppo"})


def _dotted(node: cst.BaseExpression | None) -> str:
    if node is None:
        return ""
    return cst.Module(body=()).code_for_node(node).replace(" ", "")


def _binds_ppo_runtime_package(alias: cst.ImportAlias) -> bool:
    """Whether ``import <alias>`` binds ``ppo_runtime`` to the ``ppo_runtime`` package."""
    dotted = _dotted(alias.name)
    if alias.asname is None:
        return dotted.split(".")[0] == PPO_RUNTIME
    return dotted == PPO_RUNTIME


def _name_is_taken(wrapper: MetadataWrapper) -> bool:
    """Whether the module binds or uses ``ppo_runtime`` other than as the package.

    Every binding of the name in every scope must be ``import ppo_runtime[...]``
    (each alias of that statement binding the name imports the package itself), and
    every use of it must resolve to such an import only.
    """

    def allowed(assignment: object) -> bool:
        if not isinstance(assignment, Assignment) or not isinstance(assignment.node, cst.Import):
            return False
        binding = [
            a for a in assignment.node.names
            if (_dotted(a.asname.name) if a.asname else _dotted(a.name).split(".")[0]) == PPO_RUNTIME
        ]
        return all(_binds_ppo_runtime_package(a) for a in binding)

    scopes = {s for s in wrapper.resolve(ScopeProvider).values() if s is not None}
    for scope in scopes:
        for assignment in scope.assignments:
            if assignment.name == PPO_RUNTIME and not allowed(assignment):
                return True
        for access in scope.accesses:
            if not (isinstance(access.node, cst.Name) and access.node.value == PPO_RUNTIME):
                continue
            if not access.referents or not all(allowed(r) for r in access.referents):
                return True
    return False


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


class _Collect(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (QualifiedNameProvider,)

    def __init__(self, targets: frozenset[str]) -> None:
        super().__init__()
        self.targets = targets
        self.attributes: set[cst.Attribute] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value != FUNCTION:
            return
        names = {q.name for q in self.get_metadata(QualifiedNameProvider, node, set())}
        if names and names <= self.targets:
            self.attributes.add(node)


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
            out.append(cst.SimpleStatementLine(body=(_ppo_runtime_import(),)))
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


def use_ppo_runtime(module: cst.Module, targets: Iterable[str] | None = None) -> tuple[cst.Module, int]:
    """Make ``module`` import the runtime function from ``ppo_runtime``.

    Args:
        module: a parsed module.
        targets: verl qualified names of the runtime function (default:
            ``<m>.get_ppo_ray_runtime_env`` for ``m`` in :data:`VERL_MODULES`).

    Returns:
        ``(new_module, count)``: the rewritten module and how many imports or
        references were changed (0 means ``new_module`` is ``module``).
    """
    verl_targets = frozenset(targets or (f"{m}.{FUNCTION}" for m in VERL_MODULES))
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    collect = _Collect(verl_targets)
    wrapper.visit(collect)
    attributes = collect.attributes
    if attributes and _name_is_taken(wrapper):
        # ``ppo_runtime.<f>`` would not be the runtime here: leave module access alone
        attributes = set()
    context = CodemodContext()
    rewrite = _Rewrite(attributes, context)
    new = module.visit(rewrite)
    if rewrite.count == 0:
        return module, 0
    if context.scratch.get(AddImportsVisitor.CONTEXT_KEY):
        new = AddImportsVisitor(context).transform_module(new)
    return new, rewrite.count
