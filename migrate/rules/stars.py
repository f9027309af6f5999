"""Whether ``from M import *`` binds a name (trial 26e, M1: a star import after the verl
import silenced the call, whatever the star's module held).

Python's rule (the language reference, "The import statement"): ``from M import *`` binds
every name of ``M.__all__`` when ``M`` defines it, else every name of ``M``'s namespace not
starting with ``_``. The module is read, never imported:

* a module of the project (the file ``import`` loads from the importing file's import
  root: :func:`ppo_migrate.project.references.module_file`), read through the run's
  snapshot;
* a module of the standard library (``sys.stdlib_module_names``), read from the running
  interpreter's own ``stdlib`` folder (``sysconfig``); ``os.path`` is ``posixpath`` or
  ``ntpath``, both read;
* anything else (an installed package, an extension module, a file that does not parse)
  cannot be read: :data:`UNKNOWN`.

A literal ``__all__`` (a list or tuple of strings, never changed after) decides; another
``__all__`` is unknown. Without one, a name bound at the module's top level (an assignment,
``def``, ``class``, import, ``for``/``with`` target, at any depth of ``if``/``try``) is
bound; a star import of the module is followed (depth 8 at most); a module that writes its
namespace at run time (``globals()``, ``vars()``, ``__dict__``, ``setattr``,
``sys.modules``, ``global`` in a function) or a package holding a submodule of that name is
unknown.
"""

from __future__ import annotations

import ast
import sys
import sysconfig
from pathlib import Path

#: :func:`star_binds`'s answers
BINDS, NOT_BOUND, UNKNOWN = "binds", "not-bound", "unknown"

#: how many star imports of star imports are followed
_DEPTH = 8

#: spellings of a module writing its own namespace at run time
_DYNAMIC = ("globals()", "vars()", "__dict__", "setattr(", "sys.modules", "exec(")


def star_binds(path: str, package: tuple[str, ...], module: str, name: str) -> str:
    """Whether ``from module import *`` in the file ``path`` binds ``name``.

    Args:
        path: the importing file's path (its import root is where a module of the project
            is looked for).
        package: the importing file's package parts.
        module: the star import's absolute module name.
        name: the name looked for (``"get_ppo_ray_runtime_env"``).

    Returns:
        :data:`BINDS`, :data:`NOT_BOUND`, or :data:`UNKNOWN` when the module cannot be
        read (see the module's docstring).
    """
    from ppo_migrate.project.references import package_root

    root = package_root(path, package) if path and path != "-" else None
    return _binds(root, module, name, 0, set())


def _binds(root: Path | None, module: str, name: str, depth: int, seen: set[str]) -> str:
    if depth > _DEPTH or module in seen:
        return UNKNOWN if depth > _DEPTH else NOT_BOUND  # a cycle adds nothing new
    seen.add(module)
    files = _files(root, module)
    if not files:
        return UNKNOWN
    answers = {_file_binds(root, f, module, name, depth, seen) for f in files}
    if len(answers) == 1:
        return answers.pop()
    return UNKNOWN


def _files(root: Path | None, module: str) -> list[Path]:
    """The source files ``import module`` may load: the project's, else the standard
    library's (``os.path``: both ``posixpath`` and ``ntpath``); ``[]`` when none is known."""
    from ppo_migrate.project.references import module_file

    if root is not None:
        found = module_file(root, module)
        if found is not None:
            return [found]
    if module.split(".", 1)[0] not in getattr(sys, "stdlib_module_names", ()):
        return []
    stdlib = sysconfig.get_paths().get("stdlib")
    if not stdlib:
        return []
    names = ["posixpath", "ntpath"] if module == "os.path" else [module]
    files = [module_file(stdlib, n) for n in names]
    return [f for f in files if f is not None] if all(files) else []


def _tree(file: Path) -> ast.Module | None:
    from ppo_migrate.project.snapshot import current

    try:
        return current().source(str(file)).tree()
    except Exception:  # noqa: BLE001 - unreadable, undecodable or no Python: not known
        return None


def _file_binds(root: Path | None, file: Path, module: str, name: str, depth: int, seen: set[str]) -> str:
    tree = _tree(file)
    if tree is None:
        return UNKNOWN
    exported = _literal_all(tree)
    if exported is not None:
        return BINDS if name in exported else NOT_BOUND
    if _names_all(tree):
        return UNKNOWN  # an ``__all__`` not read as a literal
    if name.startswith("_"):
        return NOT_BOUND
    from ppo_migrate.project.snapshot import current

    try:
        text = current().source(str(file)).text
    except Exception:  # noqa: BLE001
        return UNKNOWN
    if any(word in text for word in _DYNAMIC):
        return UNKNOWN
    fs = current().fs
    if file.name == "__init__.py" and (fs.exists(file.parent / f"{name}.py") or fs.is_dir(file.parent / name)):
        return UNKNOWN  # a submodule imported before the star import is bound too
    bound, stars = _top_level(tree, name)
    if bound:
        return BINDS
    package = module.split(".") if file.name == "__init__.py" else module.split(".")[:-1]
    answer = NOT_BOUND
    for level, base in stars:
        if level:
            if level - 1 > len(package) or (level - 1 == len(package) and not base):
                return UNKNOWN
            parts = package[: len(package) - (level - 1)]
            base = ".".join([*parts, base] if base else parts)
        if not base:
            return UNKNOWN
        inner = _binds(root, base, name, depth + 1, seen)
        if inner == BINDS:
            return BINDS
        if inner == UNKNOWN:
            answer = UNKNOWN
    return answer


def _literal_all(tree: ast.Module) -> frozenset[str] | None:
    """The strings of a top-level ``__all__ = [...]``/``(...)`` that is the module's only
    mention of ``__all__`` as a target or receiver, else ``None``."""
    found = None
    for stmt in tree.body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                if found is not None or len(targets) != 1:
                    return None
                value = stmt.value
                if not isinstance(value, (ast.List, ast.Tuple)) or not all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
                ):
                    return None
                found = frozenset(e.value for e in value.elts)  # type: ignore[attr-defined]
    if found is None:
        return None
    mentions = sum(
        1 for node in ast.walk(tree)
        if isinstance(node, ast.Name) and node.id == "__all__"
    )
    return found if mentions == 1 else None


def _names_all(tree: ast.Module) -> bool:
    return any(isinstance(node, ast.Name) and node.id == "__all__" for node in ast.walk(tree))


def _top_level(tree: ast.Module, name: str) -> tuple[bool, list[tuple[int, str]]]:
    """Whether the module's top level binds ``name`` (or a function declares it
    ``global``), and its star imports (``(level, module)``)."""
    stars: list[tuple[int, str]] = []
    bound = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Global) and name in node.names:
            bound = True
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound = bound or node.name == name
            todo.extend(node.decorator_list)
            continue  # its body is another scope
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.name == "*":
                    stars.append((node.level or 0, node.module or ""))
                elif (a.asname or a.name) == name:
                    bound = True
            continue
        if isinstance(node, ast.Import):
            bound = bound or any((a.asname or a.name.split(".", 1)[0]) == name for a in node.names)
            continue
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            bound = True
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name == name:
            bound = True
        elif isinstance(node, ast.ExceptHandler) and node.name == name:
            bound = True
        todo.extend(ast.iter_child_nodes(node))
    return bound, stars


__all__ = ["BINDS", "NOT_BOUND", "UNKNOWN", "star_binds"]
