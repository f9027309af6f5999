"""Name resolution the config finder's judgements share: qualified names of an expression,
builtins, imports, class names and the single value a name is bound to.
"""

from __future__ import annotations

import ast
import functools

from ppo_migrate.rules.scopes import Scope, ScopeKind
from ppo_migrate.project.modules import resolve_relative


class NameLookup:
    """What a name or callee of the module resolves to (through the module's
    :class:`ppo_migrate.rules.targets.TargetFinder` and scope tree).

    A part of :class:`ppo_migrate.rules.configs.ConfigFinder` (mixed into it, which holds
    the state: ``module``, ``scopes``, ``finder``, ``names``, ``parents``, ``classes``,
    ``follow_values`` and the memo, evidence and origins of the judgement under way);
    it reads nothing of the other parts.
    """

    def _builtin(self, func: ast.expr) -> set[str]:
        """``{name}`` for a call of a builtin by its plain, unshadowed name, else empty."""
        if isinstance(func, ast.Name) and self.scopes.scope_of(func).lookup(func.id) is None:
            return {func.id}
        return set()

    def _single_value(self, name: ast.Name) -> ast.expr | None:
        """The value of a name bound once here by a plain assignment (``path = "a.yaml"``);
        ``None`` for a name bound otherwise or more than once."""
        holder = self.scopes.scope_of(name).lookup(name.id)
        if holder is None:
            return None
        bindings = list(self.finder.bindings_in(holder, name.id))
        if len(bindings) != 1:
            return None
        return self._single_value_of(bindings[0].node)

    def _single_value_of(self, node: ast.AST) -> ast.expr | None:
        """The value a binding node assigns by ``name = value`` (one target), else ``None``."""
        parent = self.parents.get(id(node)) if isinstance(node, ast.Name) else None
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and parent.targets[0] is node:
            return parent.value
        if isinstance(parent, ast.AnnAssign) and parent.target is node:
            return parent.value
        return None

    def _qualified(self, expr: ast.expr) -> set[str]:
        found = self.finder.qualified_names(expr)
        if found is None:
            return set()
        out = set()
        for n in found[0]:
            r = resolve_relative(n, self.finder.package)
            if r is not None:
                out.add(r)
        return out

    def _is_class_name(self, name: ast.Name) -> bool:
        """Whether ``name`` resolves to a binding made by a ``class`` statement. Only a name
        some ``class`` statement of the module binds can (:attr:`_class_names`): any other
        is answered without resolving it (every ``logger.info``, ``os.path`` of a module
        is asked about by :attr:`_class_attribute_reads`)."""
        if name.id not in self._class_names:
            return False
        holder = self.scopes.scope_of(name).lookup(name.id)
        return holder is not None and any(
            isinstance(b.node, ast.ClassDef) for b in self.finder.bindings_in(holder, name.id)
        )

    @functools.cached_property
    def _class_names(self) -> frozenset[str]:
        """The names the module's ``class`` statements bind (a class binding's node is its
        ``ClassDef``, named by it: :meth:`TargetFinder.bindings_in`)."""
        return frozenset(n.name for n in self.module.facts.binders if isinstance(n, ast.ClassDef))

    def _enclosing_class(self, node: ast.AST) -> ast.ClassDef | None:
        s: Scope | None = self.scopes.scope_of(node)
        while s is not None:
            if s.kind is ScopeKind.CLASS and isinstance(s.node, ast.ClassDef):
                return s.node
            s = s.parent
        return None

    def _imported(self, expr: ast.expr) -> bool:
        """Whether ``expr`` (``subprocess``, ``os.path``) reads a name bound by an import."""
        while isinstance(expr, ast.Attribute):
            expr = expr.value
        if not isinstance(expr, ast.Name):
            return False
        holder = self.scopes.scope_of(expr).lookup(expr.id)
        return holder is not None and any(
            isinstance(b.node, (ast.Import, ast.ImportFrom))
            for b in self.finder.bindings_in(holder, expr.id)
        )

    def _library_names(self, func: ast.expr) -> set[str]:
        """The qualified names of a callee bound only by imports (empty when any binding
        is not an import: ``class OmegaConf`` here may shadow omegaconf's); an
        ``x.OmegaConf.<maker>`` re-exported by an import
        (``from verl.trainer.constants_ppo import *``) counts as omegaconf's."""
        found = self.finder.qualified_names(func)
        if found is None or found[1]:
            return set()
        names = self._qualified(func)
        extra = {
            "omegaconf." + n[n.index("OmegaConf."):] for n in names
            if ".OmegaConf." in n and not n.startswith("omegaconf.")
        }
        return names | extra

    def _names_a_class(self, expr: ast.expr) -> bool:
        """A name bound only by ``class`` statements or imports (``OmegaConf.structured(PPOConfig)``)."""
        if isinstance(expr, ast.Attribute):
            return self._imported(expr)
        assert isinstance(expr, ast.Name)
        holder = self.scopes.scope_of(expr).lookup(expr.id)
        if holder is None:
            return False
        bindings = list(self.finder.bindings_in(holder, expr.id))
        return bool(bindings) and all(
            isinstance(b.node, (ast.ClassDef, ast.Import, ast.ImportFrom)) for b in bindings
        )
