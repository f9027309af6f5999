"""Pure helpers of the config finder over Python's ``ast``: a function's returned values,
what a call passes for a parameter, the trust order, the literal paths, dotlists and
dataclass fields a maker reads. No binding is resolved here (that needs the finder's
scopes: :class:`ppo_migrate.rules.config_lookup.NameLookup`), except the bases of a
dataclass (:func:`_dataclass_fields` asks the finder it is given).
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ppo_migrate.rules.targets import dotted_parts
from ppo_migrate.project.root import git_top

if TYPE_CHECKING:
    from ppo_migrate.rules.configs import ConfigFinder


def _key_of(node: ast.Attribute | ast.Subscript) -> str | None:
    """The attribute (``x.critic``) or literal string key (``x["critic"]``) ``node`` reads."""
    if isinstance(node, ast.Attribute):
        return node.attr
    key = node.slice
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None


def _rebinds(stmt: ast.stmt, name: str) -> bool:
    """Whether ``stmt`` is ``name = value`` (one plain name as its only target)."""
    return (
        isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name
    )


def _walk_here(node: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk`` without descending into nested functions, classes and lambdas."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)


def _returns_of(func: ast.FunctionDef) -> list[ast.expr] | None:
    """The values ``func``'s ``return`` statements give (nested functions and classes
    aside), with a ``None`` constant for a bare ``return`` and for falling off the end
    (assumed possible unless the body ends in ``return``/``raise``); ``None`` for a
    generator (``yield`` in its body)."""
    values: list[ast.expr] = []
    stack: list[ast.AST] = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return None
        if isinstance(node, ast.Return):
            values.append(node.value if node.value is not None else ast.Constant(value=None))
        stack.extend(ast.iter_child_nodes(node))
    if not func.body or not isinstance(func.body[-1], (ast.Return, ast.Raise)):
        values.append(ast.Constant(value=None))
    return values


def _keyword_or_arg(call: ast.Call, keyword: str, position: int) -> ast.expr | None:
    """The argument ``call`` passes as ``keyword=``, else at ``position``."""
    for k in call.keywords:
        if k.arg == keyword:
            return k.value
    return call.args[position] if len(call.args) > position else None


def _literal_path(node: ast.expr) -> str | None:
    """A file name written as a string literal: ``"a.yaml"``, ``Path("a.yaml")``,
    ``os.path.join("conf", "a.yaml")`` of literals; ``None`` otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Call) and node.args and not node.keywords:
        last = (dotted_parts(node.func) or [""])[-1]
        if last in ("Path", "join", "PurePath") and all(
            isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args
        ):
            return os.path.join(*(a.value for a in node.args))  # type: ignore[misc]
    return None


def _dotlist_keys(items: ast.expr | None) -> frozenset[str] | None:
    """The top-level keys a dotlist written out sets (``["trainer.total_epochs=1"]``:
    ``trainer``); ``None`` when an item is not a string literal."""
    if not isinstance(items, (ast.List, ast.Tuple)):
        return None
    keys = set()
    for e in items.elts:
        if not (isinstance(e, ast.Constant) and isinstance(e.value, str)):
            return None
        key = e.value.split("=", 1)[0].strip().lstrip("+~").split(".", 1)[0]
        keys.add(key)
    return frozenset(keys)


def _dataclass_fields(found: tuple[ConfigFinder, ast.ClassDef], seen: set[int]) -> frozenset[str] | None:
    """The fields of a dataclass (its annotated class attributes, not ``ClassVar``s, and
    those of its dataclass bases); ``None`` when it is no dataclass or a base cannot be read."""
    finder, cls = found
    if id(cls) in seen or not _is_dataclass(cls):
        return None
    seen.add(id(cls))
    fields: set[str] = set()
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id == "object":
            continue
        inherited = finder._base_class(base)
        base_fields = _dataclass_fields(inherited, seen) if inherited is not None else None
        if base_fields is None:
            return None
        fields |= base_fields
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if "ClassVar" in ast.unparse(stmt.annotation):
                continue
            fields.add(stmt.target.id)
    return frozenset(fields)


def _repository_top(directory: Path, root: Path | None) -> Path | None:
    """The git top level at or above ``directory`` (:func:`ppo_migrate.project.root.git_top`),
    else ``root`` (the package root) when it is above ``directory``, else ``None``."""
    top = git_top(directory)
    if top is not None:
        return Path(top)
    if root is not None and root == directory:
        # a script's folder is its own package root: no bound on where the project's files
        # are (``scripts/launch.py`` loading ``examples/conf/x.yaml`` from the top)
        return None
    return root


def _display(path: Path) -> str:
    """A path as a finding shows it: relative to the working directory when under it."""
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def _part_of(value: ast.expr, params: set[str]) -> bool:
    """``p.section``, ``p["section"]``, ``p.get("section")``, ``getattr(p, "section")``,
    ``OmegaConf.select(p, "a.b")`` for a parameter ``p``."""
    if isinstance(value, (ast.Attribute, ast.Subscript)):
        node: ast.expr = value
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        return isinstance(node, ast.Name) and node.id in params
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr in ("get", "select", "pop") and value.args:
            return _part_of(func.value, params) or (
                isinstance(func.value, ast.Name) and func.value.id in params
            ) or (func.attr == "select" and isinstance(value.args[0], ast.Name)
                  and value.args[0].id in params)
        if isinstance(func, ast.Name) and func.id == "getattr" and len(value.args) >= 2:
            first = value.args[0]
            return isinstance(first, ast.Name) and first.id in params
    return False


def _is_dataclass(cls: ast.ClassDef) -> bool:
    """Whether a ``@dataclass`` / ``@dataclasses.dataclass(...)`` decorator is on ``cls``."""
    return any(
        (dotted_parts(d.func if isinstance(d, ast.Call) else d) or [""])[-1] == "dataclass"
        for d in cls.decorator_list
    )


def _stringish(node: ast.expr) -> bool:
    """A ``/`` or ``+`` expression with a string literal in it (a path or a name being built)."""
    return isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.Add, ast.Mod)) and any(
        isinstance(n, (ast.Constant, ast.JoinedStr)) and isinstance(getattr(n, "value", ""), str)
        for n in ast.walk(node)
    )


def _worst(trusts: Iterable[str | None]) -> str | None:
    """The lowest of some trusts (``"against"`` < ``"weak"`` < ``"strong"``; ``None``, which
    says nothing, is skipped); ``None`` when there is none. Stops at the first ``"against"``."""
    worst = None
    for trust in trusts:
        if trust == "against":
            return trust
        if trust == "weak" or (trust == "strong" and worst is None):
            worst = trust
    return worst


#: :func:`_passed_value`'s answer for an argument unpacked from ``*args`` / ``**kwargs``.
_UNPACKED = ast.Starred(value=ast.Name(id="<unpacked>"))
#: :meth:`ConfigFinder._call_through`'s answer for a function handed on as a value.
_ESCAPES = ast.Call(func=ast.Name(id="<escapes>"), args=[], keywords=[])
#: :meth:`ConfigFinder._call_through`'s answer for an attribute of it read or written.
_ATTRIBUTE = ast.Call(func=ast.Name(id="<attribute>"), args=[], keywords=[])


def _passed_value(call: ast.Call, position: int | None, keyword: str) -> ast.expr | None:
    """The argument ``call`` passes for a parameter at ``position`` (``None``: keyword-only)
    named ``keyword``; ``None`` when it passes none; :data:`_UNPACKED` when it cannot be
    told (``*args`` at or before the position, ``**kwargs``)."""
    if position is not None:
        for i, a in enumerate(call.args):
            if isinstance(a, ast.Starred):
                return _UNPACKED
            if i == position:
                return a
    for k in call.keywords:
        if k.arg == keyword:
            return k.value
    if any(k.arg is None for k in call.keywords):
        return _UNPACKED
    return None


def _default_of(function: ast.AST, arg: ast.arg) -> ast.expr | None:
    """The default value of parameter ``arg`` of ``function`` (``None`` when it has none)."""
    args = getattr(function, "args", None)
    if not isinstance(args, ast.arguments):
        return None
    positional = [*args.posonlyargs, *args.args]
    if arg in positional:
        i = positional.index(arg) - (len(positional) - len(args.defaults))
        return args.defaults[i] if i >= 0 else None
    if arg in args.kwonlyargs:
        return args.kw_defaults[args.kwonlyargs.index(arg)]
    return None
