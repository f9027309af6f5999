"""What a parameter's (or an assignment's) type annotation says of a training config:
``DictConfig``, nothing (``Any``, a type variable, a string), or another type (evidence
against: the table of :mod:`ppo_migrate.rules.configs`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from ppo_migrate.rules.config_model import (
    _BLOCKS, _OPEN_NAMES, _OPEN_WORDS, _WRAPPERS, DICTCONFIG_NAMES,
)
from ppo_migrate.rules.scopes import Scope
from ppo_migrate.rules.targets import dotted_parts


class AnnotationKinds:
    """The kind of a type annotation: ``"dictconfig"``, ``"open"`` or ``"other"``.

    A part of :class:`ppo_migrate.rules.configs.ConfigFinder` (mixed into it, which holds
    the state: ``module``, ``scopes``, ``finder``, ``names``, ``parents``, ``classes``,
    ``follow_values`` and the memo, evidence and origins of the judgement under way);
    it uses :class:`ppo_migrate.rules.config_lookup.NameLookup`.
    """

    def _annotation(self, annotation: ast.expr, scope: Scope) -> str:
        """``"dictconfig"``, ``"open"`` (``Any``, ``object``, a type variable, a string) or
        ``"other"`` (evidence against a training config)."""
        atoms = list(self._atoms(annotation))
        kinds = [self._atom_kind(a) for a in atoms]
        if "dictconfig" in kinds:
            return "dictconfig"
        if all(k == "open" for k in kinds):
            return "open"
        return "other"

    def _atoms(self, node: ast.expr) -> Iterator[ast.expr | str]:
        if isinstance(node, ast.Constant):
            if node.value is not None:
                yield node.value if isinstance(node.value, str) else node
            return
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            yield from self._atoms(node.left)
            yield from self._atoms(node.right)
            return
        if isinstance(node, ast.Subscript):
            names = self._qualified(node.value)
            if names & _WRAPPERS:
                inner = node.slice
                elts = inner.elts if isinstance(inner, ast.Tuple) else [inner]
                if names & {"typing.Annotated", "typing_extensions.Annotated"}:
                    elts = elts[:1]
                for e in elts:
                    yield from self._atoms(e)
                return
        yield node

    def _atom_kind(self, atom: ast.expr | str) -> str:
        if isinstance(atom, str):  # a string annotation: judged by the names it spells
            # (no binding resolves its names: never a reason to pass a name, but a string
            # naming another type -- ``"PretrainedConfig"`` -- is evidence against one)
            words = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", atom))
            return "open" if "DictConfig" in words or words <= _OPEN_WORDS else "other"
        base = atom.value if isinstance(atom, ast.Subscript) else atom
        if isinstance(base, ast.Name):
            holder = self.scopes.scope_of(base).lookup(base.id)
            if holder is None:
                # bound nowhere in the module: a builtin (``dict``, ``int``: another type),
                # or a name the file never imports (``DictConfig``, ``Any``: nothing to go on)
                return "open" if base.id in ("object", "Any", "DictConfig") else "other"
            if holder.kind not in _BLOCKS:
                return "open"  # a PEP 695 type parameter (``def run[T](config: T)``)
        names = self._qualified(atom)
        if names & DICTCONFIG_NAMES:
            return "dictconfig"
        if names and names <= _OPEN_NAMES:
            return "open"
        if isinstance(atom, ast.Name) and self._is_type_var(atom):
            return "open"
        return "other"

    def _is_type_var(self, atom: ast.Name) -> bool:
        holder = self.scopes.scope_of(atom).lookup(atom.id)
        if holder is None:
            return False
        for b in self.finder.bindings_in(holder, atom.id):
            parent = self.parents.get(id(b.node))
            if isinstance(parent, ast.Assign) and isinstance(parent.value, ast.Call):
                parts = dotted_parts(parent.value.func)
                if parts and parts[-1] == "TypeVar":
                    return True
        return False
