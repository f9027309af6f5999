"""What a module's names are bound to, for ``apply --use-ppo-runtime``'s import move.

The move (:mod:`ppo_migrate.edits.imports`) edits imports and references with LibCST, but
every question about scoping and binding it has is answered here, by the same
resolver ``check`` uses (:mod:`ppo_migrate.rules.scopes` for where a load
resolves, :class:`ppo_migrate.rules.targets.TargetFinder` for the bindings a
name has there and the qualified names a dotted reference spells):

* :meth:`ModuleNames.attribute_references`: the ``c.get_ppo_ray_runtime_env``
  references (through a module import) whose every qualified name is a target;
* :meth:`ModuleNames.binds_only_package`: whether every binding and use of a name
  is an import of the package of that name (``ppo_runtime``);
* :meth:`ModuleNames.module_import_uses`: how often each module-level import of
  given modules is used (an import the move left unused is removed);
* :meth:`ModuleNames.lines_with_only_bound_names`: the lines on which every name
  read is bound by an import, a definition or a builtin (a ``# noqa: F405`` there
  suppresses nothing).

Positions are the core's: 1-based lines, 1-based code-point columns.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable

from ppo_migrate.rules.module import ParsedModule, parse
from ppo_migrate.rules.scopes import ScopeTree
from ppo_migrate.rules.targets import TargetFinder
from ppo_migrate.rules.targets import TargetMatcher

_BUILTINS = frozenset(dir(builtins))


class ModuleNames:
    """One module's names, resolved as Python resolves them.

    Args:
        text: the module's source.
        path: its display path (for messages).
        package: the file's package parts (relative imports); ``()`` when unknown.
        module: ``text`` already parsed (not parsed again).

    Raises:
        ppo_migrate.rules.module.SourceProblem: the text does not parse.
    """

    def __init__(
        self,
        text: str,
        path: str = "-",
        package: tuple[str, ...] = (),
        module: ParsedModule | None = None,
    ) -> None:
        self.module: ParsedModule = module if module is not None else parse(text, path)
        self.scopes = ScopeTree.build(self.module.tree)
        self.finder = TargetFinder(self.module, self.scopes, TargetMatcher.of(()), package)

    # -- loads ------------------------------------------------------------------------
    def _loads(self, name: str) -> list[ast.Name]:
        """Every ``Name`` reading (or deleting) ``name`` (``ast.parse`` has NFKC-normalised
        every identifier already, as the compiler does)."""
        return list(self.module.facts.loads.get(name, ()))

    def _annotation_uses(self, name: str) -> int:
        """How often ``name`` is read inside string annotations (``x: "c.T"``), which the
        compiler never sees but type checkers and ``typing.get_type_hints`` do."""
        annotations: list[ast.expr] = []
        for node in ast.walk(self.module.tree):
            if isinstance(node, ast.arg) and node.annotation is not None:
                annotations.append(node.annotation)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
                annotations.append(node.returns)
            elif isinstance(node, ast.AnnAssign):
                annotations.append(node.annotation)
        count = 0
        for annotation in annotations:
            for c in ast.walk(annotation):
                if isinstance(c, ast.Constant) and isinstance(c.value, str) and name in c.value:
                    try:
                        inner = ast.parse(c.value.strip(), mode="eval")
                    except SyntaxError:
                        count += 1  # unreadable: counted, so nothing it may name is dropped
                        continue
                    count += sum(
                        1 for n in ast.walk(inner) if isinstance(n, ast.Name) and n.id == name
                    )
        return count

    # -- the questions --------------------------------------------------------------
    def attribute_references(self, targets: Iterable[str], attr: str) -> set[tuple[int, int]]:
        """Where ``<module>.<attr>`` references of a target end.

        Args:
            targets: fully qualified names of the runtime function (``a.b.f``).
            attr: the function's name (the attribute read, ``f``).

        Returns:
            The end ``(line, column)`` of each ``ast.Attribute`` named ``attr`` whose
            qualified names (one per binding its head resolves to, followed through
            imports and plain aliases) are all in ``targets``; relative imports and
            names bound by anything but an import never qualify.
        """
        wanted = frozenset(targets)
        out: set[tuple[int, int]] = set()
        for node in self.module.facts.attributes:
            if node.attr != attr:
                continue
            found = self.finder.qualified_names(node)
            if found is None:
                continue
            names, local = found
            if names and not local and set(names) <= wanted:
                out.add(self.module.end(node))
        return out

    def binds_only_package(self, name: str) -> bool:
        """Whether ``name`` means the package ``name`` wherever the module binds or reads it.

        Every binding of ``name``, in any scope (``global``/``nonlocal`` followed), must
        be an ``import`` statement whose aliases binding it import the package itself
        (``import ppo_runtime``, ``import ppo_runtime.env``, ``import ppo_runtime as
        ppo_runtime``); and every read of it must resolve to a binding (not to a
        builtin or to nothing).
        """
        bindings = self.finder.bindings_of(name)
        for b in bindings:
            node = b.node
            if not isinstance(node, ast.Import):
                return False
            for alias in node.names:
                bound = alias.asname or alias.name.split(".", 1)[0]
                if bound != name:
                    continue
                imported = alias.name if alias.asname else alias.name.split(".", 1)[0]
                if imported != name:
                    return False
        for load in self._loads(name):
            if self.scopes.scope_of(load).lookup(name) is None:
                return False
        return True

    def module_import_uses(self, modules: Iterable[str]) -> dict[str, int]:
        """The module-level imports of ``modules`` and how often each is used.

        Args:
            modules: absolute dotted module names (``verl.trainer.constants_ppo``).

        Returns:
            ``{key: uses}`` where ``key`` is the bound name for ``import m as c`` and
            ``from a.b import m [as c]``, and ``m`` itself for ``import m`` (which binds
            its first part: every read of that part, anywhere, is a use of it). Uses are
            the reads that resolve to the module scope, plus reads in string annotations.
        """
        wanted = frozenset(modules)
        module_scope = self.scopes.module
        out: dict[str, int] = {}

        def uses(bound: str) -> int:
            reads = sum(
                1 for load in self._loads(bound)
                if self.scopes.scope_of(load).lookup(bound) is module_scope
            )
            return reads + self._annotation_uses(bound)

        for stmt in self.module.tree.body:
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.name not in wanted:
                        continue
                    if alias.asname is None:
                        out[alias.name] = out.get(alias.name, 0) + uses(alias.name.split(".", 1)[0])
                    else:
                        out[alias.asname] = out.get(alias.asname, 0) + uses(alias.asname)
            elif isinstance(stmt, ast.ImportFrom) and not stmt.level and stmt.module:
                for alias in stmt.names:
                    if alias.name == "*" or f"{stmt.module}.{alias.name}" not in wanted:
                        continue
                    bound = alias.asname or alias.name
                    out[bound] = out.get(bound, 0) + uses(bound)
        return out

    def lines_with_only_bound_names(self, name: str) -> set[int]:
        """The lines that read ``name`` and on which every name read resolves to a binding
        of the module (an import, an assignment, a definition: not a star import) or is a
        builtin."""
        by_line: dict[int, bool] = {}
        for key, nodes in self.module.facts.loads.items():
            for node in nodes:
                bound = key in _BUILTINS or self.scopes.scope_of(node).lookup(key) is not None
                line = node.lineno
                by_line[line] = by_line.get(line, True) and bound
        lines_of_name = {n.lineno for n in self._loads(name)}
        return {line for line in lines_of_name if by_line.get(line)}


__all__ = ["ModuleNames"]
