"""A file's module names and the modules its bytes import: the file -> module direction.

Issue 26 (step 5 of ``docs/design/project-model.md``, the reference index): the index
(:mod:`ppo_migrate.project.references`) answers "which files import a module" from these,
and so does the analysis; they lived in a top-level ``ppo_migrate.targets`` (now folded into
:mod:`ppo_migrate.rules.targets`), which the index could not import (it imported the
snapshot: an import cycle with ``ppo_migrate.project``). Module names follow
Python's import system: the ``__init__.py`` files above a file make its package; a folder
without one under an import root is a namespace package (PEP 420).
"""

from __future__ import annotations

import ast
import errno
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from ppo_migrate.project.filesystem import working_directory
from ppo_migrate.project.snapshot import active


def module_package(path: Path | str) -> tuple[str, ...]:
    """The package a file belongs to, from the ``__init__.py`` files above it.

    Args:
        path: the source file's path.

    Returns:
        The package's dotted parts, outermost first; ``()`` when the file's
        directory holds no ``__init__.py`` (a top-level module or script). For
        ``pkg/sub/mod.py`` and ``pkg/sub/__init__.py`` alike it is
        ``("pkg", "sub")``.
    """
    directory = absolute_parent(path)
    snapshot = active()
    memo = snapshot.memo(module_package) if snapshot is not None else None
    if memo is not None:
        found = memo.get(directory)
        if found is not None:
            return found
    start = directory
    parts: list[str] = []
    while _is_file(os.path.join(directory, "__init__.py")):
        parts.append(os.path.basename(directory))
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    package = tuple(reversed(parts))
    if memo is not None:  # asked several times a file, of the same few folders (issue 26)
        memo[start] = package
    return package


def absolute_parent(path: Path | str) -> str:
    """``str(Path(path).absolute().parent)``, without building ``Path`` objects for the
    common spellings (a file's directory is looked up several times per analysed file).

    Args:
        path: a file's path, relative (to the working directory) or absolute.

    Returns:
        The absolute directory, spelled as pathlib spells it (``..`` kept, no symlink
        resolved).
    """
    p = os.fspath(path)
    if type(p) is str and p:  # an answer kept already (only plain spellings are kept)
        found = _parents.get(p if p[0] == "/" else (working_directory(), p))
        if found is not None:
            return found
    if (
        os.sep != "/" or os.altsep is not None or not isinstance(p, str) or not p
        or p.startswith("//") or p.startswith("./") or "/./" in p or "//" in p
        or p.endswith("/") or p.endswith("/.") or p == "."
    ):
        return str(Path(p).absolute().parent)
    # kept per spelling and working directory (asked ~10 times a file: ``dirname`` is
    # Python code), as :func:`ppo_migrate.project.filesystem.absolute` keeps its answers
    key = p if p[0] == "/" else (working_directory(), p)
    found = _parents.get(key)
    if found is None:
        if p[0] != "/":
            cwd = key[0]
            p = cwd + p if cwd.endswith("/") else f"{cwd}/{p}"
        found = os.path.dirname(p)
        if len(_parents) >= _PARENTS_KEPT:
            del _parents[next(iter(_parents))]
        _parents[key] = found
    return found


#: :func:`absolute_parent`'s answers for the plain spellings (at most :data:`_PARENTS_KEPT`,
#: the oldest dropped first)
_parents: dict = {}
_PARENTS_KEPT = 1 << 16


def _is_file(path: str) -> bool:
    """``Path(path).is_file()``: false for a missing file, a non-directory on the way,
    a symlink loop or a bad name; other errors (a directory that may not be searched)
    raise as pathlib raises them."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError as exc:
        if exc.errno in _IGNORED_ERRNOS or getattr(exc, "winerror", None) in _IGNORED_WINERRORS:
            return False
        raise
    except ValueError:
        return False


# pathlib's own lists (``pathlib._ignore_error``)
_IGNORED_ERRNOS = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)
_IGNORED_WINERRORS = (21, 123, 1921)  # not ready, invalid name, cannot resolve the name


def resolve_relative(qualified_name: str, package: tuple[str, ...]) -> str | None:
    """Resolve a relative qualified name against a package.

    Args:
        qualified_name: e.g. ``".constants_ppo.get_ppo_ray_runtime_env"`` (one
            leading dot per level, as ``from .constants_ppo import ...`` spells it) or an
            absolute name, returned unchanged.
        package: the file's package parts (:func:`module_package`).

    Returns:
        The absolute dotted name, or ``None`` when the import climbs past the
        top-level package (Python raises ``ImportError`` there).
    """
    if not qualified_name.startswith("."):
        return qualified_name
    rest = qualified_name.lstrip(".")
    level = len(qualified_name) - len(rest)
    if level > len(package):
        return None
    base = package[: len(package) - (level - 1)]
    return ".".join((*base, rest)) if rest else ".".join(base)


def module_name(path: str | Path) -> str:
    """The dotted module name of a source file, from the ``__init__.py`` files above it.

    Args:
        path: a ``.py`` file's path.

    Returns:
        e.g. ``"verl.workers.rollout.server"``; ``"verl.workers"`` for
        ``verl/workers/__init__.py``; the bare stem for a file outside any package.
    """
    package = module_package(path)
    stem = _stem(path)
    if stem == "__init__" and package:
        return ".".join(package)
    return ".".join((*package, stem))


def _stem(path: str | Path) -> str:
    """``Path(path).stem``, without a ``Path`` for a plain spelling (asked of every file
    several times a run: :func:`absolute_parent`'s spellings)."""
    p = os.fspath(path)
    if (
        os.sep != "/" or os.altsep is not None or not isinstance(p, str) or not p
        or p.endswith(("/", "/.", "/..")) or p in (".", "..")
    ):
        return Path(p).stem
    name = p.rpartition("/")[2]
    i = name.rfind(".")
    return name[:i] if 0 < i < len(name) - 1 else name


def namespace_prefixes(path: str | Path, limit: int = 8) -> list[str]:
    """The prefixes under which the module of ``path`` may also be imported, nearest first:
    the folders above its outermost package (above the file, for a module in no package),
    each a package to a script further up, a namespace package or a regular one holding
    a namespace folder (``top/ns/lib.py``, module ``lib``: ``["ns", "top.ns"]``, as
    ``import ns.lib`` and ``import top.ns.lib`` both load it; ``pkg/ns/lib.py`` with
    ``pkg/__init__.py``: ``pkg.ns``). Stops at a folder whose name is no identifier, at
    the file system's root, or after ``limit`` folders.

    Args:
        path: a ``.py`` file's path.
        limit: how many folders up to look at most.

    The answer depends on the file's folder only (its package is the folder's,
    :func:`module_package`): in a run it is worked out once a folder (asked several times
    a file: 1,200 times of one folder on benchmark item 10's chain, up eight folders each).
    """
    import keyword

    directory = absolute_parent(path)
    snapshot = active()
    memo = snapshot.memo(namespace_prefixes) if snapshot is not None else None
    if memo is not None:
        found = memo.get((directory, limit))
        if found is not None:
            return list(found)
    start = directory
    for _ in module_package(path):
        directory = os.path.dirname(directory)
    out: list[str] = []
    prefix = ""
    for _ in range(limit):
        name = os.path.basename(directory)
        parent = os.path.dirname(directory)
        if parent == directory or not name.isidentifier() or keyword.iskeyword(name):
            break
        prefix = f"{name}.{prefix}" if prefix else name
        out.append(prefix)
        directory = parent
    if memo is not None:
        memo[(start, limit)] = tuple(out)
    return out


def module_names(path: str | Path, root: str | os.PathLike[str] | None = None) -> tuple[str, ...]:
    """Every name ``import`` may load the module of ``path`` under: its own
    (:func:`module_name`, from the ``__init__.py`` files above it), then, for a module in a
    folder without ``__init__.py`` (or in a package inside one), the same name under each
    folder above it as a namespace package, nearest first, up to the import root ``root``
    (PEP 420: a folder without ``__init__.py`` under an import root is a namespace
    package; ``<root>/myproj/env.py`` is ``env`` to a script beside it and ``myproj.env``
    to one at the root). The last name is the module's name under ``root``.

    Args:
        path: a ``.py`` file's path.
        root: the import root bounding the namespace folders (the run's root,
            :meth:`ppo_migrate.project.snapshot.Snapshot.root_of`); ``None``: as far as
            :func:`namespace_prefixes` goes.

    Returns:
        ``("env", "myproj.env")`` for ``<root>/myproj/env.py``; ``("pkg.mod",)`` for a file
        of a regular package whose folder is the root's child, or for a file at the root.
    """
    own = module_name(path)
    prefixes = namespace_prefixes(path)
    if root is not None:
        depth = _depth_below(path, root)
        if depth is None:
            return (own,)
        prefixes = prefixes[:depth]
    return (own, *(f"{prefix}.{own}" for prefix in prefixes))


def _depth_below(path: str | Path, root: str | os.PathLike[str]) -> int | None:
    """How many folders lie between the outermost package of ``path``'s module (or its
    folder, in no package) and ``root``, that folder included; ``None`` when it is
    ``root`` or not below it (:func:`module_names`). A function of the file's folder:
    worked out once a folder and root in a run."""
    folder = absolute_parent(path)
    root = os.fspath(root)
    snapshot = active()
    memo = snapshot.memo(_depth_below) if snapshot is not None and os.path.isabs(root) else None
    if memo is not None:
        found = memo.get((folder, root), _UNKNOWN)
        if found is not _UNKNOWN:
            return found
    directory = folder
    for _ in module_package(path):
        directory = os.path.dirname(directory)
    top = os.path.abspath(root)
    # the folders between the outermost package (or the file) and the root
    if directory == top or not directory.startswith(top.rstrip(os.sep) + os.sep):
        depth = None
    else:
        depth = len(os.path.relpath(directory, top).split(os.sep))
    if memo is not None:
        memo[(folder, root)] = depth
    return depth


#: not in a memo yet (:func:`_depth_below`'s answer may be ``None``)
_UNKNOWN = object()


def package_for_relative_imports(path: str | Path) -> tuple[str, ...]:
    """The package a file's relative imports are resolved against: its own
    (:func:`module_package`), or, for a file in a folder without
    ``__init__.py``, the folders above it as namespace packages, as far as
    :func:`namespace_prefixes` goes (``ns/sub/c.py``'s ``from ..lib import launch`` is
    ``ns.lib.launch`` under ``python -m ns.sub.c``; here ``<...>.ns.lib.launch``, one of
    the names :func:`namespace_prefixes` gives ``ns/lib.py``'s function). ``()`` when
    the folder's name is no identifier."""
    package = module_package(path)
    if package:
        return package
    chain = namespace_prefixes(path)
    return tuple(chain[-1].split(".")) if chain else ()


#: an import statement (``from pkg import (\n    a,\n    b,\n)`` whole) or a loader's
#: string (``import_module("pkg.lib")``), in bytes
IMPORT_STATEMENT = re.compile(
    rb"(?m)(?:^|[;:])[ \t]*(?:from[ \t]+[\w.]+[ \t]+import[ \t]*(?:\([^)]*\)?|[^\n]*)"
    rb"|import[ \t]+[^\n]*)"
    rb"|(?:import_module|__import__)[ \t]*\([ \t]*[rbuRBU]?['\"][\w.]*"
)
_WORDS = re.compile(rb"\w+")


def import_statements(data: bytes) -> Iterator[bytes]:
    """The matches of :data:`IMPORT_STATEMENT` in ``data``, in order, found ~10 times faster:
    the pattern (which begins with an alternation Python's ``re`` tries at every byte) runs
    only over the lines around each ``import`` (every form it matches spells it), a
    parenthesised ``from x import (...)`` up to its ``)``.

    Args:
        data: a file's bytes.

    Yields:
        Each matched statement's bytes (``match.group(0)``).
    """
    pos, size = 0, len(data)
    while True:
        i = data.find(b"import", pos)
        if i < 0:
            return
        start = data.rfind(b"\n", 0, i) + 1
        end = data.find(b"\n", i)
        end = size if end < 0 else end
        opening = data.find(b"(", i, end)
        if opening >= 0:  # a statement continued in parentheses: to the ``)``'s line end
            closing = data.find(b")", opening)
            if closing < 0:  # never closed: the pattern runs to the end
                end = size
            elif closing > end:
                end = data.find(b"\n", closing)
                end = size if end < 0 else end
        for m in IMPORT_STATEMENT.finditer(data, start, end):
            yield m.group(0)
        pos = end + 1


def import_words(data: bytes) -> frozenset[bytes]:
    """The words of ``data``'s import statements (:func:`import_statements`): the module
    names a file may import, by their parts."""
    return frozenset(w for statement in import_statements(data) for w in _WORDS.findall(statement))


class ModuleImport(NamedTuple):
    """An import statement's name run at a module's level (:func:`module_imports`).

    Attributes:
        kind: ``"import"`` (``import a.b`` / ``import a.b as c``), ``"from"`` (``from m
            import f`` / ``as g``) or ``"star"`` (``from m import *``).
        name: the name imported as written (``"a.b"``, ``"f"``; ``"*"`` for a star).
        asname: its ``as`` name, or ``None``.
        source: the absolute dotted name it stands for (``"a.b"``, ``"m.f"``, the star's
            module ``"m"``), relative imports resolved against the file's package; ``None``
            when a relative import climbs past the top package.
        line: the statement's line.
    """

    kind: str
    name: str
    asname: str | None
    source: str | None
    line: int


def module_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements run at module level: ``body`` and the blocks of its ``if``/``try``/
    ``with`` statements (``try: from .lib import launch`` / ``except ImportError``)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.If, ast.Try, ast.With)) or type(stmt).__name__ == "TryStar":
            for block in ("body", "orelse", "finalbody"):
                yield from module_level(getattr(stmt, block, []))
            for handler in getattr(stmt, "handlers", []):
                yield from module_level(handler.body)


def module_imports(tree: ast.Module, package: tuple[str, ...]) -> list[ModuleImport]:
    """The imports run at ``tree``'s module level (:func:`module_level`), in order, each
    name resolved against ``package`` (:func:`resolve_relative`): what the module may hand
    on to its importers (a re-export). The reference index answers it for a file
    (:meth:`ppo_migrate.project.references.References.module_imports`).

    Args:
        tree: a parsed module.
        package: the package its relative imports resolve against
            (:func:`package_for_relative_imports`).
    """
    out: list[ModuleImport] = []
    for node in module_level(tree.body):
        if isinstance(node, ast.Import):
            out += [ModuleImport("import", a.name, a.asname, a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            for a in node.names:
                if a.name == "*":
                    out.append(ModuleImport("star", "*", None, resolve_relative(base, package), node.lineno))
                    continue
                source = resolve_relative(f"{base}.{a.name}" if base.strip(".") else base + a.name, package)
                out.append(ModuleImport("from", a.name, a.asname, source, node.lineno))
    return out


__all__ = [
    "IMPORT_STATEMENT", "ModuleImport", "module_imports", "module_level", "absolute_parent", "import_statements", "import_words", "module_name", "module_names",
    "module_package", "namespace_prefixes", "package_for_relative_imports", "resolve_relative",
]
