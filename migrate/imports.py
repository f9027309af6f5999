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
  ``ppo_runtime.get_ppo_ray_runtime_env`` with ``import ppo_runtime`` added.

Nothing else in the file changes.
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import MetadataWrapper, QualifiedNameProvider

PPO_RUNTIME = "ppo_runtime"
FUNCTION = "get_ppo_ray_runtime_env"
VERL_MODULES = frozenset({"verl.trainer.constants_ppo", "verl.trainer.main_ppo"})


def _dotted(node: cst.BaseExpression | None) -> str:
    if node is None:
        return ""
    return cst.Module(body=()).code_for_node(node).replace(" ", "")


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
        kept = [a for a in updated_node.names if _dotted(a.name) != FUNCTION]
        last = updated_node.names[-1]
        kept[-1] = kept[-1].with_changes(comma=last.comma)
        for alias in ours:
            asname = _dotted(alias.asname.name) if alias.asname else None
            AddImportsVisitor.add_needed_import(self.context, PPO_RUNTIME, FUNCTION, asname)
        return updated_node.with_changes(names=tuple(kept))

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
    context = CodemodContext()
    rewrite = _Rewrite(collect.attributes, context)
    new = module.visit(rewrite)
    if rewrite.count == 0:
        return module, 0
    if context.scratch.get(AddImportsVisitor.CONTEXT_KEY):
        new = AddImportsVisitor(context).transform_module(new)
    return new, rewrite.count
