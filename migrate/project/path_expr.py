"""The path an expression builds from literals, ``__file__``, ``os.getcwd()``,
``os.pardir``/``os.curdir``/``os.sep`` (``..``, ``.``, ``/``: their values on POSIX, as
the ``os.path`` docs give them), ``os.path.join/dirname/abspath/realpath/normpath`` (a
starred literal list ``os.path.join(*[a, b])`` too), ``pathlib.Path`` (``/``, ``.parent``,
``.parents[n]``, ``.resolve()``, ``.joinpath()``, ``.with_name()``), ``str()``/``os.fspath()``,
f-strings, ``'%s/x' % a`` (``%s`` only), ``os.environ.get(NAME, default)`` /
``os.getenv(NAME, default)`` (the default: what runs when the variable is not set), a
package's own folder in its ``__init__.py`` (``__path__[0]``,
``__spec__.submodule_search_locations[0]``, ``importlib.resources.files(__name__)``) and
names bound once to such an expression, read with :mod:`ast` only (nothing is run).

Shared by the declared import roots (``sys.path.insert(0, os.path.join(ROOT, "verl"))``:
:mod:`ppo_migrate.project.import_roots`) and the files a module's ``OmegaConf.load`` reads
(:mod:`ppo_migrate.rules.configs`).
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable

_CWD_CALLS = frozenset({"getcwd", "cwd", "getcwdb"})
#: ``os.<name>``/``os.path.<name>`` constants a path may be spelled with (POSIX values)
_OS_CONSTANTS = {"pardir": "..", "curdir": ".", "sep": "/"}
_SAME = frozenset({"abspath", "realpath", "normpath", "resolve", "absolute", "expanduser", "str", "fspath", "Path", "PurePath", "PosixPath"})


class PathEvaluator:
    """The path an expression builds (:mod:`ast` only), or ``None`` when it cannot be told.

    Args:
        path: the file the expression is in (what ``__file__`` is).
        names: the expression a name read in it stands for (its one assigned value), or
            ``None`` when it cannot be told.
    """

    def __init__(self, path: str, names: Callable[[ast.Name], ast.expr | None]) -> None:
        self.path = path
        self.names = names
        self.depth = 0

    def __call__(self, node: ast.expr) -> str | None:
        if self.depth > 20:
            return None
        self.depth += 1
        try:
            return self._value(node)
        finally:
            self.depth -= 1

    def _value(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str) else None
        if isinstance(node, ast.Name):
            if node.id == "__file__":
                return self.path
            value = self.names(node)
            return self(value) if value is not None else None
        if isinstance(node, ast.JoinedStr):
            parts = []
            for value in node.values:
                inner = value.value if isinstance(value, ast.FormattedValue) else value
                text = self(inner)
                if text is None:
                    return None
                parts.append(text)
            return "".join(parts)
        if (
            isinstance(node, ast.Attribute) and node.attr in _OS_CONSTANTS and _is_os(node.value)
        ):  # ``os.pardir``, ``os.path.curdir``, ``os.sep``
            return _OS_CONSTANTS[node.attr]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            return self._percent(node)
        if isinstance(node, ast.BinOp):
            left, right = self(node.left), self(node.right)
            if left is None or right is None:
                return None
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Div):
                return os.path.join(left, right)
            return None
        if isinstance(node, ast.Attribute) and node.attr == "parent":
            inner = self(node.value)
            return os.path.dirname(os.path.normpath(inner)) if inner is not None else None
        if isinstance(node, ast.Subscript) and _own_folder(node, self.path):
            return os.path.dirname(self.path)  # ``__path__[0]`` in a package's ``__init__.py``
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "parents":
            inner = self(node.value.value)
            index = node.slice
            if inner is None or not (isinstance(index, ast.Constant) and isinstance(index.value, int)):
                return None
            inner = os.path.normpath(inner)
            for _ in range(index.value + 1):
                inner = os.path.dirname(inner)
            return inner
        if isinstance(node, ast.Call):
            return self._call(node)
        return None

    def _percent(self, node: ast.BinOp) -> str | None:
        """``'%s/vendor' % HERE`` (or a tuple of values): only ``%s`` (and ``%%``)."""
        template = self(node.left)
        items = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        values = [self(v) for v in items]
        if template is None or None in values:
            return None
        pieces = re.split(r"(%%|%s)", template)
        if "%" in "".join(pieces[0::2]) or sum(p == "%s" for p in pieces) != len(values):
            return None  # another conversion (``%d``, ``%(name)s``): not read
        out, it = [], iter(values)
        for piece in pieces:
            out.append("%" if piece == "%%" else next(it) if piece == "%s" else piece)
        return "".join(out)  # type: ignore[arg-type]

    def _call(self, node: ast.Call) -> str | None:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if name is None or node.keywords:
            return None
        if (  # ``importlib.resources.files(__name__)`` in a package's ``__init__.py``
            name == "files" and len(node.args) == 1 and isinstance(node.args[0], ast.Name)
            and node.args[0].id in ("__name__", "__package__") and _is_init(self.path)
        ):
            return os.path.dirname(self.path)
        if name in _CWD_CALLS and not node.args:
            return os.curdir
        if _is_environ_get(func) and len(node.args) == 2:  # the default, when the variable is unset
            return self(node.args[1])
        if isinstance(func, ast.Attribute) and name == "with_name" and len(node.args) == 1:
            receiver, other = self(func.value), self(node.args[0])
            if receiver is None or other is None:
                return None
            return os.path.join(os.path.dirname(os.path.normpath(receiver)), other)
        if any(isinstance(a, ast.Starred) for a in node.args):  # ``os.path.join(*[a, b])``
            spread: list[ast.expr] = []
            for a in node.args:
                if not isinstance(a, ast.Starred):
                    spread.append(a)
                elif isinstance(a.value, (ast.List, ast.Tuple)):
                    spread.extend(a.value.elts)
                else:
                    return None
            node = ast.Call(func=func, args=spread, keywords=[])
        method = isinstance(func, ast.Attribute) and name in ("resolve", "absolute", "expanduser", "joinpath")
        receiver = None
        if method:  # ``Path(...).resolve()``: the receiver is the path (``os.path.x`` is a module)
            receiver = self(func.value)
            if receiver is None:
                method = False
        if method:
            if name == "joinpath":
                args = [self(a) for a in node.args]
                return None if None in args else os.path.join(receiver, *args)  # type: ignore[arg-type]
            return receiver
        args = [self(a) for a in node.args]
        if None in args:
            return None
        if name == "dirname" and len(args) == 1:
            return os.path.dirname(os.path.normpath(args[0]))  # type: ignore[arg-type]
        if name in ("join", "joinpath") and args:
            return os.path.join(*args)  # type: ignore[arg-type]
        if name in _SAME and len(args) <= 1:
            return args[0] if args else os.curdir  # type: ignore[return-value]
        return None


def _is_os(node: ast.expr) -> bool:
    """``os`` or ``os.path``."""
    if isinstance(node, ast.Name):
        return node.id == "os"
    return isinstance(node, ast.Attribute) and node.attr == "path" and isinstance(node.value, ast.Name) and node.value.id == "os"


def _is_environ_get(func: ast.expr) -> bool:
    """``os.environ.get`` or ``os.getenv`` (also imported bare: ``getenv``)."""
    if isinstance(func, ast.Name):
        return func.id == "getenv"
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr == "getenv":
        return isinstance(func.value, ast.Name) and func.value.id == "os"
    return (
        func.attr == "get" and isinstance(func.value, ast.Attribute) and func.value.attr == "environ"
        and isinstance(func.value.value, ast.Name) and func.value.value.id == "os"
    )


__all__ = ["PathEvaluator"]


def _is_init(path: str) -> bool:
    """Whether ``path`` is a package's ``__init__.py`` (whose ``__path__`` is its folder)."""
    return os.path.basename(path) == "__init__.py"


def _own_folder(node: ast.Subscript, path: str) -> bool:
    """Whether ``node`` is ``__path__[0]`` or ``__spec__.submodule_search_locations[0]`` in a
    package's ``__init__.py`` ``path``: the package's own folder, as ``os.path.dirname(__file__)``
    (trial 26d: pip's ``_vendor`` style ``sys.path.insert(0, __path__[0])``).

    Args:
        node: a subscript expression.
        path: the file it is in.
    """
    index = node.slice
    if not (isinstance(index, ast.Constant) and index.value == 0 and _is_init(path)):
        return False
    value = node.value
    if isinstance(value, ast.Name):
        return value.id == "__path__"
    return (
        isinstance(value, ast.Attribute) and value.attr == "submodule_search_locations"
        and isinstance(value.value, ast.Name) and value.value.id == "__spec__"
    )
