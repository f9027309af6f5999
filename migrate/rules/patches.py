"""Replacements of the runtime function, or of a module or alias its calls go through: one
table of forms (:data:`PATCHERS`, :func:`replacements`) that every part of the tool asks.

``monkeypatch.setattr(lib, "get_ppo_ray_runtime_env", lambda: {...})`` in a test makes
``lib``'s call reach a callable taking no argument: a fix passing the config there would
make the test fail (a fresh tester's finding). So do ``sys.modules["verl.trainer.constants_ppo"]
= SimpleNamespace(...)``, a fake ``verl`` package a ``conftest.py`` puts first on
``sys.path``, ``launcher.constants_ppo = Fake`` (the module the call goes through),
``monkeypatch.setattr(launcher, "make_env", fake)`` (an alias of the function),
``globals()["get_ppo_ray_runtime_env"] = shim`` and ``app.cp = SimpleNamespace(...)`` run at
import time (issue 26, families 4 and 5).

Three users share the table:

- the run's look-out before the per-file phase (:func:`target_patches`): replacements in
  other files, each a :class:`Patch` naming the module it reaches (:func:`patched_at`);
- a module's own analysis (:func:`own_replacement`, used by
  :meth:`ppo_migrate.rules.check.ModuleAnalysis`): replacements in the calling module;
- ``--thread-config``'s refusal of a function rebound at run time
  (:func:`replaced_names`, used by :mod:`ppo_migrate.rules.callers`).
"""

from __future__ import annotations

import ast
import fnmatch
import keyword
import os
import re
import sys
import weakref
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ppo_migrate.rules.data_targets import MAX_DATA_BYTES, data_targets
from ppo_migrate.rules.doc_doctests import doc_doctest_files
from ppo_migrate.rules.embedded_python import embedded_python, string_code
from ppo_migrate.constants import MAX_SOURCE_CHARS
from ppo_migrate.diagnostics import Reason, Related
from ppo_migrate.files import decode_source, decode_text
from ppo_migrate.patterns import LazyPattern, lazy_pattern
from ppo_migrate.prefilter import Words
from ppo_migrate.rules.module import facts_of
from ppo_migrate.project.modules import (
    IMPORT_STATEMENT,
    import_statements,
    import_words,
)
from ppo_migrate.project.references import current_references, module_file
from ppo_migrate.project.mentions import COMPILED_SUFFIXES, PROSE_NAMES, PROSE_SUFFIXES
from ppo_migrate.project.mentions import DATA_SUFFIXES as MENTION_DATA_SUFFIXES
from ppo_migrate.project.repository import files_holding
from ppo_migrate.project.root import up_to_git_top
from ppo_migrate.project.snapshot import active, current
from ppo_migrate.project.tree import DOUBLES_FOLDERS, repository_listing
from ppo_migrate.project.modules import (
    module_name,
    module_package,
    namespace_prefixes,
    resolve_relative,
)

if TYPE_CHECKING:
    from ppo_migrate.settings_model import Settings

#: THE table of callables that replace an attribute or an item named by a string or a
#: keyword, by the last name of what they call, and how they name it:
#:
#: - ``"owner-key"``: ``setattr(o, "f", v)``, ``monkeypatch.setattr(o, "f", v)`` (or its
#:   ``monkeypatch.setattr("pkg.lib.f", v)``), ``monkeypatch.delattr``,
#:   ``mock.patch.object(o, "f", v)``;
#: - ``"dotted"``: ``mock.patch("pkg.lib.f", v)``, pytest-mock's ``mocker.patch``;
#: - ``"keywords"``: ``mock.patch.multiple(o, f=v)``;
#: - ``"namespace-items"``: ``mock.patch.dict(o.__dict__, {"f": v})``,
#:   ``vars(o).update(f=v)``, ``globals().update(...)``, ``sys.modules.update(...)``;
#: - ``"namespace-key"``: ``monkeypatch.setitem(vars(o), "f", v)``,
#:   ``monkeypatch.setitem(sys.modules, "pkg.lib", fake)``, ``sys.modules.setdefault(...)``,
#:   ``ns.__setitem__("f", v)``.
#:
#: Two statement forms complete it: an attribute assigned (``o.f = v``) and an item of a
#: namespace assigned (``globals()["f"] = v``, ``vars(o)["f"] = v``,
#: ``sys.modules["pkg.lib"] = v``).
#:
#: Each form also replaces a function in place when the attribute it writes is one of
#: :data:`FUNCTION_BODY`: ``lib.f.__code__ = (lambda: {}).__code__``,
#: ``setattr(f, "__code__", g.__code__)``, ``monkeypatch.setattr(lib.f, "__defaults__", ())``,
#: ``mock.patch("pkg.lib.f.__code__", ...)`` (trial 26f, g4_code_object_swap and
#: g5_code_object_swap_boot): a :class:`Replacement` of ``f`` itself (:func:`_swapped`).
PATCHERS: dict[str, str] = {
    "setattr": "owner-key",
    "delattr": "owner-key",
    "object": "owner-key",
    "patch": "dotted",
    "multiple": "keywords",
    "dict": "namespace-items",
    "update": "namespace-items",
    "setitem": "namespace-key",
    "setdefault": "namespace-key",
    "__setitem__": "namespace-key",
}

#: The attributes of a function whose writing changes what its calls run or which
#: parameters they bind (the language reference's data model, "Callable types",
#: user-defined functions: ``__code__`` is the compiled body and its parameters,
#: ``__defaults__``/``__kwdefaults__`` their defaults). A write to one replaces the
#: function object itself, so every module holding that object (verl's, and each importer
#: of the name) then calls the new body: no module can be told, the replacement reaches any.
FUNCTION_BODY: frozenset[str] = frozenset({"__code__", "__defaults__", "__kwdefaults__"})

#: Bytes a file replacing a name holds: a patcher of :data:`PATCHERS`, a namespace, or an
#: attribute assigned (``x.f = v``; the names are checked on the tree).
_BOUNDED_PATCH_WORDS = (
    rb"\bupdate\b|\bmodules\b|\bglobals\s*\(|\bvars\s*\(|\bexec\s*\(|(?<![\w.])(?:builtins\s*\.\s*)?eval\s*\("
    rb"|\b(?:meta_path|path_hooks?|path_importer_cache)\b"  # :data:`IMPORT_HOOKS` (trial 26h)
)
_PATCH_WORDS = (
    rb"setattr|delattr|patch|setitem|setdefault|__dict__|init_globals|__globals__|load_source|load_module|FileLoader|"
    rb"runsource|runcode|__path__|"
    + _BOUNDED_PATCH_WORDS
)
_ATTRIBUTE_STORE = rb"\.\s*(\w+)\s*=[^=]"
_ATTRIBUTE_STORE_RE = lazy_pattern(_ATTRIBUTE_STORE)
#: the alternatives of :data:`_PATCH_WORDS` that are plain words (a match wherever the
#: bytes hold them), and a pattern of the others (word boundaries, ``\s*(``) with their
#: literals: :func:`_patch_words`
_PLAIN_PATCH_WORDS = (
    b"setattr", b"delattr", b"patch", b"setitem", b"setdefault", b"__dict__",
    # :data:`RUNNERS`' keyword, a function's namespace, :data:`MODULE_LOADERS` (trial 26g)
    b"init_globals", b"__globals__", b"load_source", b"load_module", b"FileLoader",
    b"runsource", b"runcode",  # :data:`INTERPRETERS`
    b"__path__",  # a package's search path written (:func:`_path_hook`, trial 26i)
)
_BOUNDED_PATCH_LITERALS = (
    b"update", b"modules", b"globals", b"vars", b"exec", b"eval", b"meta_path", b"path_hook", b"path_importer_cache",
)
_BOUNDED_PATCH_WORDS_RE = lazy_pattern(_BOUNDED_PATCH_WORDS)


#: a replacement of a name not known before it runs (:func:`_unknown_name`): a setattr
#: whose name is no string literal, a namespace updated, ``sys.modules[name] = m``, an
#: import hook
_UNKNOWN_FORMS = lazy_pattern(
    rb"setattr\s*\(\s*[\w.]+\s*,\s*[^'\"\s]|__dict__\s*\)?\s*\.\s*update\s*\("
    # a name or target built at run time: ``setattr(o, "get_" + "...", f)``,
    # ``mock.patch.object(o, "init_" + "ray", f)``, ``mock.patch(TARGET, f)``,
    # ``mock.patch(".".join([...]), f)``, ``mock.patch("a." + b, f)`` (trial 26b)
    rb"|(?:setattr|delattr|patch\.object)\s*\(\s*[\w.]+\s*,\s*(?:[rbuRBU]?['\"][^'\"\n]*['\"]\s*[+%.]"
    rb"|[^'\"\s])"
    rb"|\bpatch\s*\(\s*(?:[^'\"\s)rbuRBU]|[rbuRBU](?!['\"])|[rbuRBU]?['\"][^'\"\n]*['\"]\s*[+%.])"
    rb"|\b(?:globals|vars)\s*\(\s*\)\s*\.\s*update\s*\(\s*[^{)\s]"
    rb"|\bmodules\s*\[\s*[^'\"\s]"
    # an import hook (:data:`IMPORT_HOOKS`, trial 26h, H-B3) and code run by ``exec`` or
    # ``eval`` (:data:`RUN_CODE`; not a method ``model.eval()``, H-B6): parsed wherever spelled
    rb"|\b(?:meta_path|path_hooks?|path_importer_cache)\b|(?<![\w.])(?:builtins\s*\.\s*)?(?:exec|eval)\s*\("
    # a namespace's item keyed by what is no plain string (``vars(cp)["get_" + "..."] = f``,
    # ``cp.__dict__[f"..."] = f``, ``vars(cp)[name] = f``: trial 26i, I-B4) and a package's
    # ``__path__`` written (``verl.trainer.__path__.insert(0, ...)``: I-B1)
    rb"|(?:\bvars\s*\(\s*[\w.]+\s*\)|__dict__|__globals__)\s*\[\s*(?:[^'\"\s\]]|[rbuRBU]?['\"][^'\"\n]*['\"]\s*[+%.])"
    rb"|__path__\s*(?:\.\s*(?:insert|append|extend)\b|\[|\+=|=[^=])|['\"]__path__['\"]"
    # ``monkeypatch.setitem(vars(launcher), NAME, f)``, ``sys.modules.__setitem__(name, m)``
    # with such a key (trial 26i, I-B4)
    rb"|\bsetitem\s*\(\s*(?:vars\s*\(|[\w.]*(?:__dict__|__globals__|\bmodules)\b)[^,\n]*,\s*"
    rb"(?:[^'\"\s]|[rbuRBU]?['\"][^'\"\n]*['\"]\s*[+%.])"
    rb"|(?:__dict__|__globals__|\bmodules|\))\s*\.\s*(?:__setitem__|setdefault)\s*\(\s*"
    rb"(?:[^'\"\s)]|[rbuRBU]?['\"][^'\"\n]*['\"]\s*[+%.])"
    # a dotted target built at run time given to a patcher (``monkeypatch.setattr(f"launcher.
    # get_ppo_ray_{KIND}_env", f)``, ``"launcher.get_" + KIND + "_env"``: I-B9), the keys of
    # ``mock.patch.dict(vars(launcher), {f"...": f})`` (I-B4) and ``vars(cp).update(...)`` (I-B10)
    rb"|\b(?:setattr|delattr)\s*\(\s*(?:[fF][rR]?|[rR][fF])['\"]"
    rb"|\b(?:setattr|delattr)\s*\(\s*[rbuRBU]?['\"][^'\"\n]*['\"]\s*[+%.]"
    rb"|\bpatch\s*\.\s*dict\s*\(\s*(?:vars\s*\(|[\w.]*(?:__dict__|__globals__))[^{\n]*\{\s*"
    rb"(?:[^'\"\s}]|[rbuRBU]?['\"][^'\"\n]*['\"]\s*[+%.])"
    rb"|\bvars\s*\([^)\n]*\)\s*\.\s*update\s*\("
)


_UNKNOWN_LITERALS = (
    b"setattr", b"__dict__", b"update", b"modules", b"meta_path", b"path_hook", b"path_importer_cache", b"patch",
    b"exec", b"eval", b"vars", b"__globals__", b"__path__", b"setitem", b"setdefault",
)


def _unknown_forms(data: bytes) -> bool:
    """Whether ``data`` may replace a name not known before it runs (:data:`_UNKNOWN_FORMS`),
    tried only on a file holding one of its literals."""
    if not any(w in data for w in _UNKNOWN_LITERALS):
        return False
    return _UNKNOWN_FORMS.search(data) is not None


def _may_patch(data: bytes) -> bool:
    """Whether ``re.search(_PATCH_WORDS + b"|" + _ATTRIBUTE_STORE, data)`` finds anything.

    The alternation of words is tried at every position of the file (~0.1 s a MB), so it
    runs only on a file holding one of its literals (``bytes.__contains__`` is ~100 times
    faster); the attribute store starts with a literal ``.``, which the engine skips to."""
    if _patch_words(data):
        return True
    return _ATTRIBUTE_STORE_RE.search(data) is not None


#: what may follow ``.f`` where a target other than ``x.f = v``'s binds it: in a target list
#: (``launcher.f, calls = fake, []``, ``(a.f, b) = ...``, ``[a.f] = ...``), a ``for``
#: target (``for launcher.f in fakes:``) or a ``with ... as launcher.f:`` (trial 26f)
_TARGET_ENDS = (b",", b")", b"]", b":")


def _binds_as_target(data: bytes, words: Iterable[bytes]) -> bool:
    """Whether ``data`` spells one of ``words`` as an attribute (``.f``) followed by what
    ends a target of a list, a ``for`` or a ``with`` (:data:`_TARGET_ENDS`, or ``in``):
    such a file is parsed for replacements even without an ``x.f = v``
    (:func:`_may_patch`). A byte search per occurrence (no regular expression: a long
    generated line costs one pass), generous (``g(launcher.f)`` counts: a parse too many)."""
    for word in words:
        needle = b"." + word
        at = data.find(needle)
        while at != -1:
            end = at + len(needle)
            rest = data[end:end + 8].lstrip(b" \t")
            if rest[:1] in _TARGET_ENDS or rest[:3] in (b"in ", b"in\t", b"in(", b"in["):
                return True
            at = data.find(needle, end)
    return False


def _patch_words(data: bytes) -> bool:
    """Whether ``re.search(_PATCH_WORDS, data)`` finds anything: a plain word of it held
    decides at once (``bytes.__contains__``); the alternation, tried at every position of
    a file that holds none (~0.15 ms a 2 kB trainer module, ~3% of benchmark item 9's
    ``check``), only for its bounded words, only in a file holding one of their literals."""
    if any(word in data for word in _PLAIN_PATCH_WORDS):
        return True
    return any(word in data for word in _BOUNDED_PATCH_LITERALS) and _BOUNDED_PATCH_WORDS_RE.search(data) is not None


def _lines_holding(data: bytes, words: Iterable[bytes]) -> list[tuple[int, int]]:
    """``(start, end)`` of each line (``\n``-ended, end excluded) holding one of
    ``words``, in order."""
    spans = set()
    for word in words:
        at = data.find(word)
        while at != -1:
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            end = len(data) if end == -1 else end
            spans.add((start, end))
            at = data.find(word, end)
    return sorted(spans)


class Replacement(NamedTuple):
    """One replacement of a name found in a tree (a form of :data:`PATCHERS`).

    Attributes:
        name: the attribute or item replaced (``"get_ppo_ray_runtime_env"``; the last
            part of a module for ``sys.modules``; ``"*"``: not known before it runs).
        owner: the object whose attribute it is, as written (``lib`` of
            ``setattr(lib, "f", v)``), or ``None``.
        module: the module a string names (``"pkg.lib"`` of ``"pkg.lib.f"``; for
            ``sys.modules["a.b.c"]``, ``"a.b"``), or ``None``.
        space: ``"attribute"``, ``"globals"`` (the module's own namespace) or
            ``"modules"`` (``sys.modules``: the module itself replaced).
        line: where.
        form: a short spelling of the form, for messages (``"monkeypatch.setattr"``).
        held: the name whose string gave the target or the name replaced
            (``TARGET`` of ``mock.patch(TARGET, f)``: :func:`string_env`), else ``None``.
        swapped: the attribute of :data:`FUNCTION_BODY` written when the function ``name``
            is replaced in place (``"__code__"`` of ``f.__code__ = g.__code__``; ``owner``
            and ``module`` are then ``None``: every module holding the object is reached),
            else ``None``.
        key: for a module put in ``sys.modules`` under a key not read here
            (``sys.modules[spec.name] = m``, ``monkeypatch.setitem(sys.modules, name, m)``;
            ``name == "*"``), the key's expression, judged on the file's tree
            (:func:`_module_key`; trial 26i, I-B2); for a function replaced in place
            through a name (``_fn.__code__ = ...``), that name (:func:`_another_function`,
            I-B6); else ``None``.
    """

    name: str
    owner: ast.expr | None
    module: str | None
    space: str
    line: int
    form: str
    held: str | None = None
    swapped: str | None = None
    key: ast.expr | None = None


def _swapped(function: ast.expr | None, attribute: str | None, line: int, form: str) -> Replacement | None:
    """The replacement in place of the function ``function`` names when ``attribute`` is one
    of :data:`FUNCTION_BODY` (``lib.get_ppo_ray_runtime_env`` and ``"__code__"`` of
    ``lib.get_ppo_ray_runtime_env.__code__ = ...``), else ``None``.

    Args:
        function: the expression whose attribute is written: a name or an attribute chain
            (``f``, ``lib.f``, ``pkg.lib.f``), or anything else (``fns[0]``, ``make()``):
            a function not known before it runs.
        attribute: the attribute written, as read (``None``: not known).
        line: the statement's line.
        form: the form's spelling (``"an assignment"``, ``"setattr"``, ...), as
            :attr:`Replacement.form`.

    Returns:
        ``Replacement(f, None, None, "attribute", line, form, swapped=attribute)``: the
        function's last name (``"*"`` for one not known before it runs), on no owner and
        no module (any module may hold the object).
    """
    if attribute not in FUNCTION_BODY or function is None:
        return None
    if isinstance(function, ast.Attribute):
        name = function.attr
    elif isinstance(function, ast.Name):
        # the name kept as :attr:`Replacement.key`: one bound otherwise than to another
        # function (a ``for`` target) may be the runtime function (:func:`_another_function`)
        return Replacement(function.id, None, None, "attribute", line, form, swapped=attribute, key=function)
    else:
        name = "*"  # ``fns[0].__code__ = ...``: whichever function it is
    return Replacement(name, None, None, "attribute", line, form, swapped=attribute)


def _swapped_dotted(text: str, line: int, form: str, held: str | None = None) -> Replacement | None:
    """:func:`_swapped` for a dotted target string (``"pkg.lib.f.__code__"`` of
    ``monkeypatch.setattr(...)`` or ``mock.patch(...)``), else ``None``."""
    rest, _, attribute = text.rpartition(".")
    name = rest.rpartition(".")[2]
    if attribute not in FUNCTION_BODY or not name.isidentifier():
        return None
    return Replacement(name, None, None, "attribute", line, form, held, attribute)


def _namespace(node: ast.AST) -> tuple[str, ast.expr | None] | None:
    """``("globals", None)`` for ``globals()``/``locals()``, ``("attribute", x)`` for
    ``vars(x)``/``x.__dict__``, ``("modules", None)`` for ``sys.modules``/``modules``
    (also the string ``"sys.modules"`` ``mock.patch.dict`` takes); else ``None``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in ("globals", "locals") and not node.args:
            return "globals", None
        if node.func.id == "vars":
            return ("attribute", node.args[0]) if node.args else ("globals", None)
        if node.func.id == "getattr" and len(node.args) == 2 and isinstance(node.args[1], ast.Constant) \
                and node.args[1].value in ("__dict__", "__globals__"):
            # ``getattr(_T, "__dict__")``, ``getattr(cp.f, "__globals__")`` (trial 26i, I-B3):
            # as the attribute spelled out
            return _namespace(ast.copy_location(ast.Attribute(node.args[0], node.args[1].value, ast.Load()), node))
    if isinstance(node, ast.Attribute):
        if node.attr == "__dict__":
            return "attribute", node.value
        if node.attr == "__globals__":
            # ``fn.__globals__["f"] = g`` (trial 26g, G-B2): the namespace of the module
            # defining ``fn``, which the imports cannot tell (any module); the owner is
            # the ``__globals__`` itself, whose function's module a name not known before
            # it runs is judged on (``exec(text, cp.f.__globals__)``: ``cp``'s, trial 26i,
            # I-B3b: :func:`_globals_module`)
            return "attribute", node
        if node.attr == "modules":
            return "modules", None
    if isinstance(node, ast.Name) and node.id == "modules":
        return "modules", None
    if isinstance(node, ast.Constant) and node.value == "sys.modules":
        return "modules", None
    return None


def _string(node: ast.AST | None, env: dict[str, str] | None = None) -> str | None:
    """The string ``node`` holds: a constant, or one built of constants and of the names of
    ``env`` (:func:`string_env`) by ``+``, an f-string or ``"sep".join([...])``
    (``"get_ppo_ray_" + "runtime_env"``, ``".".join(["launcher", NAME])``: :func:`_str_value`);
    ``None`` for anything else.

    Args:
        node: an expression, or ``None``.
        env: name -> the string it is bound to (``None``: names are not read)."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if node is None:
        return None
    return _str_value(node, env or {})


def _built_string(node: ast.AST | None) -> bool:
    """Whether ``node`` builds a string at run time: an f-string, a ``+`` or ``%`` whose
    leftmost operand is a string (``"launcher.get_" + kind``), or ``"...".format(...)``
    (a dotted target, not an object, for a patcher given one argument before the value)."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        left = node.left
        while isinstance(left, ast.BinOp) and isinstance(left.op, ast.Add):
            left = left.left
        return isinstance(left, ast.JoinedStr) or (isinstance(left, ast.Constant) and isinstance(left.value, str))
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"
        and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)
    )


def _leading_module(node: ast.AST | None, env: dict[str, str] | None) -> str | None:
    """The module a dotted target computed in part names: ``"launcher"`` of
    ``f"launcher.{name}"`` or ``"launcher." + name`` (the string's leading part read with
    :func:`_str_value`, up to its last dot); ``None`` when no dotted prefix can be read."""
    env = env or {}
    head = ""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = node
        while isinstance(left, ast.BinOp) and isinstance(left.op, ast.Add):
            left = left.left
        head = _str_value(left, env) or ""
    elif isinstance(node, ast.JoinedStr):
        for value in node.values:
            text = _str_value(value, env) if not isinstance(value, ast.FormattedValue) else None
            if text is None:
                break
            head += text
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join" \
            and len(node.args) == 1 and isinstance(node.args[0], (ast.List, ast.Tuple)):
        sep = _str_value(node.func.value, env)
        items = []
        for e in node.args[0].elts:
            text = _str_value(e, env)
            if text is None:
                break
            items.append(text)
        head = sep.join(items) + sep if sep is not None and items else ""
    module = head.rpartition(".")[0]
    return module if module and all(p.isidentifier() for p in module.split(".")) else None


#: tree -> :func:`string_env`'s answer, while the tree lives
_ENVS: weakref.WeakKeyDictionary[ast.AST, dict[str, str]] = weakref.WeakKeyDictionary()


def string_env(tree: ast.AST) -> dict[str, str]:
    """The names ``tree`` binds once (by ``=``, anywhere in it) to a string built of string
    constants and of such names (``TARGET = "launcher." + "get_ppo_ray_" + "runtime_env"``,
    ``NAME = "_".join(["get", ...])``): what a patcher given ``TARGET`` replaces. A name
    bound twice, or augmented, is left out; one bound in a function counts too (generous:
    a target too many only makes a fix unsafe). Cached per tree."""
    found = _ENVS.get(tree)
    if found is not None:
        return found
    assigns = _nodes(tree).assigns
    counts: dict[str, int] = {}
    for node in assigns:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            for t in _flat(target):
                if isinstance(t, ast.Name):
                    counts[t.id] = counts.get(t.id, 0) + (2 if isinstance(node, ast.AugAssign) else 1)
    env: dict[str, str] = {}
    for node in assigns:  # ``ast.walk``'s order: the module's statements first, in order
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if counts.get(name) == 1:
                text = _str_value(node.value, env)
                if text is not None:
                    env[name] = text
    _ENVS[tree] = env
    return env


def _keyed(
    space: str, owner: ast.expr | None, key: str | None, line: int, form: str, node: ast.expr | None = None
) -> Replacement:
    """A replacement of the item ``key`` of a namespace (``None``: computed).

    Args:
        space, owner: the namespace (:func:`_namespace`).
        key: the key as read (:func:`_string`), or ``None``.
        line, form: as :class:`Replacement`'s.
        node: the key's expression where one key is given (an item assigned,
            ``setitem``, ``setdefault``), else ``None`` (a mapping's items): kept as
            :attr:`Replacement.key` for a ``sys.modules`` key not read."""
    if key is None:
        return Replacement("*", owner, None, space, line, form, key=node if space == "modules" else None)
    if space == "modules":
        module, _, name = key.rpartition(".")
        return Replacement(name, None, module or None, space, line, form)
    return Replacement(key, owner, None, space, line, form)


def parse_bytes(data: bytes) -> ast.Module | None:
    """``ast.parse`` of a file's bytes, or ``None`` where the per-file phase reports it
    instead (longer than ``constants.MAX_SOURCE_CHARS``, undecodable, a syntax error, nested
    too deeply). Such a file may still run: a newer Python than the tool's reads syntax this
    one does not (PEP 695 on 3.11), and the parse limit is the tool's, not Python's (trial
    26e, G); :func:`target_patches` makes the fixes it may reach unsafe
    (:func:`parse_problem` says why)."""
    if len(data) > 4 * MAX_SOURCE_CHARS:
        return None
    try:
        text = decode_source(data)[0]
        if len(text) > MAX_SOURCE_CHARS:
            return None
        return ast.parse(text)
    except (SyntaxError, ValueError, UnicodeDecodeError, LookupError, RecursionError, MemoryError):
        return None


def parse_problem(data: bytes) -> str:
    """Why :func:`parse_bytes` gives ``None`` for ``data``, worded as the per-file phase's
    PPO902 (``"too large to parse (1360503 characters; the limit is 1048576)"``,
    ``"syntax error: invalid syntax (line 3)"``).

    Args:
        data: a file's bytes that :func:`parse_bytes` does not parse.
    """
    if len(data) > 4 * MAX_SOURCE_CHARS:
        return f"too large to parse ({len(data)} bytes; the limit is {MAX_SOURCE_CHARS} characters)"
    try:
        text = decode_source(data)[0]
    except (ValueError, UnicodeDecodeError, LookupError) as error:
        return f"cannot be decoded: {error}"
    if len(text) > MAX_SOURCE_CHARS:
        return f"too large to parse ({len(text)} characters; the limit is {MAX_SOURCE_CHARS})"
    try:
        ast.parse(text)
    except SyntaxError as error:
        return f"syntax error: {error.msg} (line {error.lineno})"
    except (ValueError, RecursionError, MemoryError) as error:
        return f"cannot parse: {error or type(error).__name__}"
    return "cannot parse"


#: what a file the look-out cannot read may do (trial 26e, G and D)
_UNPARSED = (
    "could not be parsed: {problem}; it spells `{word}`, so a replacement there taking no "
    "config cannot be ruled out"
)


def _unparsed(data: bytes, words: Sequence[bytes], problem: str) -> tuple[int, str]:
    """``(line, what)`` of a file (or a piece of code) that names one of ``words`` and does
    not parse: the first line spelling one, and the reason's text."""
    at = min((i for i in (data.find(w) for w in words) if i >= 0), default=0)
    word = next((w for w in words if data.startswith(w, at)), b"")
    line = data.count(b"\n", 0, at) + 1
    return line, _UNPARSED.format(problem=problem, word=word.decode("utf-8", "replace"))


def parse_file(path: str, data: bytes) -> ast.Module | None:
    """:func:`parse_bytes` of ``path``'s bytes ``data``, the tree made once a run: the run's
    snapshot's (:meth:`ppo_migrate.project.snapshot.SourceFile.tree`; the file kept from now
    on) when ``data`` are the bytes it holds for ``path``, else parsed here."""
    snapshot = active()
    if snapshot is None:
        return parse_bytes(data)
    try:
        source = snapshot.source(path)
    except Exception:  # noqa: BLE001 - its read failed: these bytes came from elsewhere
        return parse_bytes(data)
    if source.data is not data and source.data != data:
        return parse_bytes(data)
    if len(data) > 4 * MAX_SOURCE_CHARS:
        return None
    try:
        if len(source.text) > MAX_SOURCE_CHARS:
            return None
        return source.tree()
    except (SyntaxError, ValueError, UnicodeDecodeError, LookupError, RecursionError, MemoryError,
            OverflowError):
        return None


def _is_mock(func: ast.expr) -> bool:
    """``patch`` of ``unittest.mock``/pytest-mock, as called: ``patch(...)``,
    ``mock.patch(...)``, ``mocker.patch(...)``, ``unittest.mock.patch(...)``."""
    if isinstance(func, ast.Name):
        return func.id == "patch"
    value = func.value if isinstance(func, ast.Attribute) else None
    last = value.attr if isinstance(value, ast.Attribute) else getattr(value, "id", None)
    return last in ("mock", "mocker")


def call_replacements(call: ast.Call, env: dict[str, str] | None = None) -> list[Replacement]:
    """The replacements a call makes, by :data:`PATCHERS` (``[]`` for any other call).

    Args:
        call: any call.
        env: the strings the file's names hold (:func:`string_env`): a name or target
            built at run time from them (``mock.patch(TARGET, f)`` with ``TARGET =
            "launcher." + "get_..."``, ``".".join([...])``) is read as the string it spells
            (trial 26b, f4_target_concat, f4_join_target).

    Returns:
        One :class:`Replacement` per name it replaces; ``name == "*"`` for a name it
        cannot read (``monkeypatch.setattr(obj, name, f)``, ``mock.patch(target, f)``),
        with the module a target's readable dotted prefix names (``f"launcher.{name}"``:
        ``"launcher"``).
    """
    func = call.func
    last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if last in RUN_CODE and (isinstance(func, ast.Name) or _dotted(func) in (f"builtins.{last}", f"__builtins__.{last}")):
        # ``eval`` runs what ``exec`` runs when its code is not a constant expression
        # string: ``eval(compile(text, path, "exec"), vars(cp))`` (trial 26h, H-B6)
        if last == "eval" and not _eval_may_bind(call):
            return []
        return _exec_replacements(call, env)
    hook = _import_hook(call, last, env)
    if hook is not None:
        return [hook]
    if last in INTERPRETERS and isinstance(func, ast.Attribute):
        # ``code.InteractiveInterpreter(vars(cp)).runsource(src)``: ``exec(src, vars(cp))``
        ctor = func.value
        if isinstance(ctor, ast.Call) and _last(ctor.func) in INTERPRETER_CLASSES:
            space = ctor.args[0] if ctor.args else next((k.value for k in ctor.keywords if k.arg == "locals"), None)
            if space is not None and call.args:
                return _exec_replacements(ast.Call(ast.Name("exec", ast.Load()), [call.args[0], space], []), env, call.lineno)
        return []
    if last in MODULE_LOADERS:
        return _loader_replacements(call, last, env)
    if last in RUNNERS:
        return _runner_replacements(call, last, env)
    how = PATCHERS.get(last)
    if how is None:
        return []
    line = call.lineno
    form = last if isinstance(func, ast.Name) else f"{_dotted(func.value) or '...'}.{last}"
    args = call.args
    keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
    if how == "owner-key":
        first = args[0] if args else keywords.get("target")
        text = _string(first, env)
        if text is not None and "." in text and len(args) <= 2 and last != "object":
            # ``monkeypatch.setattr("pkg.lib.f", v)`` (``"pkg.lib.f.__code__"``: ``f`` in place)
            swapped = _swapped_dotted(text, line, form)
            if swapped is not None:
                return [swapped]
            module, _, name = text.rpartition(".")
            return [Replacement(name, None, module, "attribute", line, form)]
        if first is None:
            return []
        if text is None and len(args) == 2 and last != "object" and _built_string(first):
            # ``monkeypatch.setattr(f"launcher.get_ppo_ray_{kind}_env", f)`` with a part not
            # read: a target named at run time, on the module its readable prefix names, as
            # ``mock.patch``'s (trial 26i, I-B9)
            return [Replacement("*", None, _leading_module(first, env), "attribute", line, form)]
        key = args[1] if len(args) > 1 else keywords.get("attribute", keywords.get("name"))
        key_text = _string(key, env)
        if key_text == "__class__":  # ``setattr(cp, "__class__", Compat)``: as ``cp.__class__ = Compat``
            return [Replacement("*", first, None, "attribute", line, CLASS_FORM)]
        swapped = _swapped(first, key_text, line, form)  # ``setattr(lib.f, "__code__", g)``
        if swapped is not None:
            return [swapped]
        return [Replacement(key_text or "*", first, None, "attribute", line, form)]
    if how == "dotted":
        target = args[0] if args else keywords.get("target")
        text = _string(target, env)
        if text is not None:
            held = target.id if isinstance(target, ast.Name) else None
            swapped = _swapped_dotted(text, line, form, held)  # ``mock.patch("pkg.lib.f.__code__", ...)``
            if swapped is not None:
                return [swapped]
            module, _, name = text.rpartition(".")
            return [Replacement(name, None, module or None, "attribute", line, form, held)] if name.isidentifier() else []
        if target is not None and _is_mock(func):
            return [Replacement("*", None, _leading_module(target, env), "attribute", line, form)]
        return []
    if how == "keywords":  # ``mock.patch.multiple(o, f=v)``
        owner = args[0] if args else None
        module = _string(owner, env)
        if module is not None:
            owner = None
        return [
            Replacement(k.arg if k.arg is not None else "*", owner, module, "attribute", line, form)
            for k in call.keywords
            if k.arg not in ("spec", "spec_set", "create", "new_callable")
        ]
    # a namespace's items
    if how == "namespace-items":
        if last == "update":
            if not isinstance(func, ast.Attribute):
                return []
            space = _namespace(func.value)
            items = list(args)
        else:  # ``mock.patch.dict(ns, {...}, **kw)``
            space = _namespace(args[0]) if args else None
            items = list(args[1:2]) + ([keywords["values"]] if "values" in keywords else [])
        if space is None:
            return []
        kind, owner = space
        out = [_keyed(kind, owner, k.arg, line, form) for k in call.keywords if k.arg not in ("values", "clear")]
        for item in items:
            if isinstance(item, ast.Dict):
                out += [_keyed(kind, owner, _string(k, env) if k is not None else None, line, form) for k in item.keys]
            else:
                out.append(_keyed(kind, owner, None, line, form))
        return out
    # ``namespace-key``
    if last in ("setdefault", "__setitem__"):
        if not isinstance(func, ast.Attribute) or not args:
            return []
        space = _namespace(func.value)
        key = args[0]
    else:  # ``monkeypatch.setitem(ns, key, v)``
        if len(args) < 2:
            return []
        space = _namespace(args[0])
        key = args[1]
    if space is None:
        return []
    return [_keyed(space[0], space[1], _string(key, env), line, form, key)]


#: The builtins that run code in a namespace (the standard library's "Built-in Functions":
#: ``exec(source, globals, locals)``; ``eval`` runs a code object ``compile`` made in
#: ``"exec"`` mode as ``exec`` does, and a string's expression may bind names too, by
#: ``:=`` or a call). The same reading for both: a constant string's code is read for the
#: names it binds (an expression binding none replaces nothing), code of unknown text run
#: in a module's namespace may rebind any of its names; a bare ``eval(text)`` of unknown
#: text that is not compiled for statements reads a value (:func:`_eval_may_bind`; trial 26h, H-B6:
#: ``eval(compile(path.read_text(), str(path), "exec"), vars(constants_ppo))``).
RUN_CODE: frozenset[str] = frozenset({"exec", "eval"})

def _eval_may_bind(call: ast.Call) -> bool:
    """Whether an ``eval`` call may bind names as ``exec`` does: its code is a constant (read
    for what it binds: ``(f := g)``), or compiled by ``compile(...)`` in a mode other than
    ``"eval"`` (statements), or a namespace is given (``eval(code, vars(cp))``). A bare
    ``eval(text)`` of text not known before it runs evaluates an expression in the caller's
    scope, as reading a value does (``eval(args.expr)`` in a launcher): not counted."""
    if len(call.args) > 1 or any(k.arg in ("globals", "locals") for k in call.keywords):
        return True
    source = call.args[0] if call.args else None
    if isinstance(source, ast.Constant):
        return True
    if isinstance(source, ast.Call) and _last(source.func) == "compile":
        mode = source.args[2] if len(source.args) > 2 else next((k.value for k in source.keywords if k.arg == "mode"), None)
        return not (isinstance(mode, ast.Constant) and mode.value == "eval")
    return False


#: The interpreter's import hooks (the standard library's ``sys`` documentation and the
#: language reference's "The import system"): the finders of ``sys.meta_path``, the path
#: entry finder factories of ``sys.path_hooks`` and the finders ``sys.path_importer_cache``
#: keeps per path entry. A finder added to one may serve any module, verl's included, with
#: any text (trial 26h, H-B3: a conftest's ``PathEntryFinder`` serving ``verl.*`` from
#: fakes); ``importlib.machinery.FileFinder.path_hook(...)`` makes such a factory.
IMPORT_HOOKS: frozenset[str] = frozenset({"meta_path", "path_hooks", "path_importer_cache"})
#: the methods of a list or dictionary that add to it (an import hook added)
_HOOK_METHODS: frozenset[str] = frozenset({"append", "insert", "extend", "__setitem__", "__iadd__", "update", "setdefault"})


def _hook_name(node: ast.AST | None, env: dict[str, str] | None) -> str | None:
    """The import hook of :data:`IMPORT_HOOKS` ``node`` spells: ``sys.meta_path`` (any
    owner: generous), ``meta_path`` imported from ``sys``, the string ``"sys.path_hooks"``
    a dotted patcher takes; else ``None``."""
    if isinstance(node, ast.Attribute) and node.attr in IMPORT_HOOKS:
        return node.attr
    if isinstance(node, ast.Name) and node.id in IMPORT_HOOKS:
        return node.id
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
            and len(node.args) >= 2 and _dotted(node.args[0]) == "sys":
        # ``getattr(sys, "meta_path")`` (fresh40, B6)
        key = _string(node.args[1], env)
        return key if key in IMPORT_HOOKS else None
    if isinstance(node, ast.Subscript) and _namespace(node.value) is not None \
            and _namespace(node.value)[0] == "attribute" and _dotted(_namespace(node.value)[1]) == "sys":
        # ``vars(sys)["meta_path"]``, ``sys.__dict__["path_hooks"]`` (fresh40, B6)
        key = _string(node.slice, env)
        return key if key in IMPORT_HOOKS else None
    text = _string(node, env) if isinstance(node, (ast.Constant, ast.Name)) else None
    if text is not None:
        module, _, last = text.rpartition(".")
        if module == "sys" and last in IMPORT_HOOKS:
            return last
    return None


#: the start of an import hook's form: ``"import hook: sys.meta_path.insert"``
_HOOK_FORM = "import hook: "


def is_import_hook(r: Replacement) -> bool:
    """Whether ``r`` adds an import hook (:func:`_import_hook`'s, :data:`IMPORT_HOOKS`)."""
    return r.space == "modules" and r.name == "*" and r.module is None and r.form.startswith(_HOOK_FORM)


def _import_hook(call: ast.Call, last: str, env: dict[str, str] | None) -> Replacement | None:
    """The import hook a call adds (:data:`IMPORT_HOOKS`), as ``Replacement("*", None, None,
    "modules", ...)`` (any module may be served by it), else ``None``: a method adding to a
    hook (``sys.meta_path.insert(0, finder)``, ``sys.path_hooks.append(factory)``,
    ``sys.path_importer_cache[entry] = ...`` by ``__setitem__``/``update``), a patcher of
    :data:`PATCHERS` given one (``monkeypatch.setattr(sys, "path_hooks", [...])``,
    ``mock.patch("sys.meta_path", [...])``, ``monkeypatch.setitem(sys.path_importer_cache,
    ...)``), or ``FileFinder.path_hook(...)``.

    Args:
        call: any call.
        last: its callable's last name.
        env: the strings the file's names hold (:func:`string_env`).
    """
    func = call.func
    if isinstance(func, ast.Attribute):
        package = _search_path_of(func.value)
        if package is not None and last in _HOOK_METHODS:
            # ``verl.trainer.__path__.insert(0, folder)`` (trial 26i, I-B1)
            return _path_hook(package, call.lineno, f".{last}")
        hook = _hook_name(func.value, env)
        if hook is not None and last in _HOOK_METHODS:
            return Replacement("*", None, None, "modules", call.lineno, f"{_HOOK_FORM}{_dotted(func) or hook + '.' + last}")
        if last == "path_hook" and _last(func.value) == "FileFinder":
            return Replacement("*", None, None, "modules", call.lineno, f"{_HOOK_FORM}{_dotted(func) or last}")
    how = PATCHERS.get(last)
    if how is None or not call.args:
        return None
    first = call.args[0]
    if how == "owner-key" and len(call.args) > 1 and _string(call.args[1], env) == "__path__":
        # ``setattr(verl.trainer, "__path__", [...])``, ``monkeypatch.setattr(pkg, "__path__", ...)``
        form = last if isinstance(func, ast.Name) else f"{_dotted(func) or last}"
        return _path_hook(first, call.lineno, f" ({form})")
    hook = _hook_name(first, env)
    if hook is None and how == "owner-key" and len(call.args) > 1 and _dotted(first) == "sys":
        key = _string(call.args[1], env)
        hook = key if key in IMPORT_HOOKS else None
    if hook is None:
        return None
    form = last if isinstance(func, ast.Name) else f"{_dotted(func) or last}"
    return Replacement("*", None, None, "modules", call.lineno, f"{_HOOK_FORM}{form} of sys.{hook}")


def _search_path_of(node: ast.AST | None) -> ast.expr | None:
    """The package whose search path ``node`` is: ``verl.trainer`` of
    ``verl.trainer.__path__`` (any owner: ``sys.modules["verl.trainer"].__path__``,
    ``importlib.import_module("verl.trainer").__path__``), else ``None``."""
    if isinstance(node, ast.Attribute) and node.attr == "__path__":
        return node.value
    return None


def _path_hook(package: ast.expr, line: int, how: str) -> Replacement:
    """A write to ``package.__path__`` (trial 26i, I-B1), as an import hook of that package
    (``Replacement("*", package, None, "modules", ...)``: :func:`is_import_hook`): the
    folders put on a package's search path serve its submodules (the language reference's
    "The import system", ``__path__``), a folder holding a ``constants_ppo.py`` verl's
    module. :func:`_unknown_name` counts it only on a package holding the function.

    Args:
        package: the package expression, as written.
        line: the statement's line.
        how: what follows ``__path__`` in the form (``".insert"``, ``" assigned"``,
            ``"[...] assigned"``, ``" (setattr)"``).
    """
    spelled = _dotted(package) or ast.unparse(package)
    return Replacement("*", package, None, "modules", line, f"{_HOOK_FORM}{spelled}.__path__{how}")


#: Callables that load a module under the name given as their first argument, from a
#: file or a loader, putting it in ``sys.modules`` (or making it ready to be put there):
#: ``SourceFileLoader("verl.trainer.constants_ppo", path).load_module()`` (trial 26g, G-B3),
#: ``imp.load_source("verl.trainer.constants_ppo", path)`` (G-B5), and their kin of
#: ``importlib.machinery`` and ``imp`` (the standard library's documentation of each: the
#: name given is the module's ``__name__``, the key of ``sys.modules``; a loader's
#: ``load_module()`` puts it there). A fake module loaded under verl's name (or a package
#: above it) is a stand-in in ``sys.modules``, as ``sys.modules[name] = fake`` is. Not
#: ``importlib.util.spec_from_file_location``: it only makes a spec, and the module it
#: gives is put in ``sys.modules`` by an item assigned, a form of its own.
MODULE_LOADERS: frozenset[str] = frozenset({
    "SourceFileLoader", "SourcelessFileLoader", "ExtensionFileLoader",
    "load_source", "load_compiled", "load_package", "load_dynamic", "load_module",
})


def _loader_replacements(call: ast.Call, last: str, env: dict[str, str] | None) -> list[Replacement]:
    """A call of :data:`MODULE_LOADERS`: the module it loads under the name its first
    argument spells (``name=`` or ``fullname=`` too), as a ``sys.modules`` entry
    (``Replacement(last part, None, package, "modules", ...)``); ``[]`` when no string names
    it (``loader.load_module()`` with no argument: the loader's call names it) or the call is
    a method of another object with a name that is no module's (``load_module`` of a loader
    takes the name, or nothing).

    Args:
        call: the call.
        last: its callable's last name (one of :data:`MODULE_LOADERS`).
        env: the strings the file's names hold (:func:`string_env`).
    """
    keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
    first = call.args[0] if call.args else keywords.get("name", keywords.get("fullname"))
    text = _string(first, env)
    if not text or not all(part.isidentifier() for part in text.split(".")):
        return []
    form = last if isinstance(call.func, ast.Name) else f"{_dotted(call.func.value) or '...'}.{last}"
    return [_keyed("modules", None, text, call.lineno, form)]


#: Callables that run a module's code in a namespace seeded by a dictionary: ``runpy``'s
#: ``run_path(path, init_globals=...)`` and ``run_module(name, init_globals=...)`` (the
#: standard library's ``runpy`` documentation: the dictionary's names are the module's
#: globals before its code runs; trial 26g, G-B4 and G-B9). -> the position of
#: ``init_globals`` among their arguments.
RUNNERS: dict[str, int] = {"run_path": 1, "run_module": 1}


def _runner_replacements(call: ast.Call, last: str, env: dict[str, str] | None) -> list[Replacement]:
    """A call of :data:`RUNNERS` with ``init_globals``: the names the dictionary binds in the
    module it runs (``Replacement(name, None, module, "attribute", ...)``: the module
    ``run_module`` names, or the one ``run_path``'s literal ``"pkg/mod.py"`` is, else
    ``None``: any). A dictionary not written out (``init_globals=seed``, ``{**seed}``)
    binds names not known before it runs (``"*"``); no ``init_globals``, nothing.

    Args:
        call: the call.
        last: its callable's last name (a key of :data:`RUNNERS`).
        env: the strings the file's names hold (:func:`string_env`).
    """
    keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
    position = RUNNERS[last]
    seed = call.args[position] if len(call.args) > position else keywords.get("init_globals")
    if seed is None or (isinstance(seed, ast.Constant) and seed.value is None):
        return []
    first = call.args[0] if call.args else keywords.get("path_name" if last == "run_path" else "mod_name")
    text = _string(first, env)
    module: str | None = None
    if text and last == "run_module":
        module = text
    elif text and text.endswith(".py"):
        stem = text[:-3].replace("\\", "/").lstrip("./").replace("/", ".")
        module = stem if all(part.isidentifier() for part in stem.split(".")) else None
    form = f"{_dotted(call.func) or last}(init_globals=...)"
    line = call.lineno
    if isinstance(seed, ast.Dict):
        return [
            Replacement(key if key is not None else "*", None, module, "attribute", line, form)
            for key in (_string(k, env) if k is not None else None for k in seed.keys)
        ]
    if isinstance(seed, ast.Call) and _last(seed.func) == "dict" and not seed.args:
        return [
            Replacement(k.arg if k.arg is not None else "*", None, module, "attribute", line, form)
            for k in seed.keywords
        ]
    return [Replacement("*", None, module, "attribute", line, form)]


#: the form of a replacement made by ``exec(code, globals())``
EXEC_FORM = "exec"
#: The methods of the standard library's ``code`` module that run source in the namespace
#: its interpreter was made with (``InteractiveInterpreter(locals).runsource(source)``,
#: ``runcode(code)``, ``InteractiveConsole(locals).push(line)``; trial 26g,
#: ``n5_interactive_interpreter_runsource``): an ``exec`` in that namespace.
INTERPRETERS: frozenset[str] = frozenset({"runsource", "runcode", "push"})
INTERPRETER_CLASSES: frozenset[str] = frozenset({"InteractiveInterpreter", "InteractiveConsole"})
#: the form of a module's class swapped (``sys.modules[name].__class__ = Compat``)
CLASS_FORM = "a `__class__` assignment"


def _exec_replacements(
    call: ast.Call, env: dict[str, str] | None = None, at: int | None = None
) -> list[Replacement]:
    """``exec(code, globals())`` (or ``vars()``, ``locals()``): the names the code binds in
    the module's namespace (``exec("f = lambda: {}", globals())``: ``f``); ``"*"`` when the
    code is not a string (a constant, or one :func:`string_env`'s names spell:
    ``exec(LEGACY_SRC, ...)``) or cannot be parsed. A bare ``exec(code)`` counts too (at
    module level it runs in the module's namespace; in a function it may not, but a name
    too many only makes a fix unsafe). Run in another object's namespace
    (``exec(code, vars(launcher))``, ``exec(code, constants_ppo.__dict__)``; trial 26g), the
    names are that object's attributes (``space == "attribute"``, ``owner`` the object);
    with fresh namespaces only (``exec(code, {})``), nothing."""
    given = [*call.args[1:3], *(k.value for k in call.keywords if k.arg in ("globals", "locals"))]
    spaces = [_namespace(a) for a in given]
    owners = [space[1] for space in spaces if space is not None and space[0] == "attribute"]
    if given and not owners and not any(space is not None and space[0] == "globals" for space in spaces):
        return []
    line = call.lineno if at is None else at  # ``at``: the line of a call standing for ``exec``
    source = call.args[0] if call.args else None
    if isinstance(source, ast.Call) and _last(source.func) == "compile" and source.args:
        source = source.args[0]  # ``exec(compile("f = g", "<s>", "exec"), ns)``: its text
    code = _string(source, env)
    try:
        tree = ast.parse(code) if code is not None else None
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    if tree is None:
        if owners:
            return [Replacement("*", owner, None, "attribute", line, EXEC_FORM) for owner in owners]
        return [Replacement("*", None, None, "globals", line, EXEC_FORM)]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.Call):  # ``exec`` of code rebinding by a patcher of its own
            names.update(r.name for r in call_replacements(node))
    if owners:
        return [Replacement(n, owner, None, "attribute", line, EXEC_FORM) for owner in owners for n in sorted(names)]
    return [Replacement(n, None, None, "globals", line, EXEC_FORM) for n in sorted(names)]


#: statements (and the comprehension's clause) binding targets besides the assignments:
#: ``for launcher.f in fakes:`` and ``with ctx(fake) as launcher.f:`` replace ``f`` as
#: ``launcher.f = fake`` does (trial 26f, h4_for_target_double, h4_with_as_target_double)
_BINDING_STATEMENTS = (ast.For, ast.AsyncFor, ast.comprehension, ast.With, ast.AsyncWith)


def _bound_targets(node: ast.AST) -> list[ast.expr]:
    """The targets ``node`` binds: an assignment's (``=``, ``+=``, annotated), a ``for``'s
    or a comprehension's, each ``with`` item's ``as``; ``[]`` for anything else."""
    if isinstance(node, ast.Assign):
        return node.targets
    if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.comprehension)):
        return [node.target]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [item.optional_vars for item in node.items if item.optional_vars is not None]
    return []


class _Nodes:
    """The nodes of a tree the tables here look at, from one walk (``ast.walk``'s order).

    Attributes:
        changes: calls, assignments and the other statements binding targets (``for``,
            ``async for``, a comprehension's ``for``, ``with ... as``: :func:`_bound_targets`;
            :func:`replacements`).
        imports: ``import`` and ``from ... import`` statements.
        generic: calls and string constants (:func:`_patches_in`'s spellings).
        assigns: ``=`` and ``+=`` assignments (``__all__``'s).
        keyed: subscripts by a string constant (``globals()["f"]``: :func:`_read_keys`).
        replaced: :func:`replacements`'s answer, once asked (``None`` before).
        bound_modules: :func:`_imported_modules`'s answer, once asked (``None`` before).

    The last two are asked of a file's tree by its own analysis
    (:func:`own_replacement`) and again by the run's look-out for test doubles
    (:func:`target_patches`): made once (~5% of benchmark item 9's ``check``).

    Args:
        walked: the tree's nodes in ``ast.walk``'s order, or any part of them holding
            every node of the types sorted here (:attr:`ppo_migrate.rules.module.ModuleFacts.table`
            in that order: :func:`_nodes`).
    """

    __slots__ = ("assigns", "bound_modules", "changes", "generic", "imports", "keyed", "replaced", "__weakref__")

    def __init__(self, walked: Iterable[ast.AST]) -> None:
        changes: list[ast.AST] = []
        imports: list[ast.AST] = []
        generic: list[ast.AST] = []
        assigns: list[ast.AST] = []
        keyed: list[ast.Subscript] = []
        call, assign, import_ = ast.Call, (ast.Assign, ast.AugAssign, ast.AnnAssign), (ast.Import, ast.ImportFrom)
        binding = _BINDING_STATEMENTS
        for node in walked:
            if isinstance(node, call):
                changes.append(node)
                generic.append(node)
            elif isinstance(node, assign):
                changes.append(node)
                if not isinstance(node, ast.AnnAssign):
                    assigns.append(node)
            elif isinstance(node, binding):
                changes.append(node)
            elif isinstance(node, ast.Subscript):
                key = node.slice
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    keyed.append(node)
            elif isinstance(node, import_):
                imports.append(node)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                generic.append(node)
        self.changes, self.imports, self.generic, self.assigns = changes, imports, generic, assigns
        self.keyed = keyed
        self.replaced: tuple[Replacement, ...] | None = None
        self.bound_modules: dict[str | None, str | None] | None = None


def _read_keys(tree: ast.AST) -> set[int]:
    """The ids of the string constants ``tree`` only reads a name by: the key of a
    namespace read (``globals()["f"]()``, ``vars(cp)["f"]``, ``cp.__dict__["f"]``) and the
    name given to ``getattr``/``hasattr`` (``getattr(cp, "f")()``): a look-up replaces
    nothing (trial 26f, W3: ``globals()["get_..."]()`` was read as a replacement)."""
    nodes = _nodes(tree)
    out = {
        id(s.slice) for s in nodes.keyed
        if isinstance(s.ctx, ast.Load) and _namespace(s.value) not in (None, ("modules", None))
    }
    out.update(
        id(c.args[1]) for c in nodes.generic
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in ("getattr", "hasattr")
        and len(c.args) >= 2
    )
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        if isinstance(node.left, ast.Constant) and all(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops) \
                and all(_namespace(c) is not None or _namespace_call(c) for c in node.comparators):
            out.add(id(node.left))  # ``"f" not in globals()`` (trial 26g, G-W4): reads the namespace
        elif all(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops):
            # ``if name == "f":`` in a module ``__getattr__`` (trial 26h, WRONG): an equality
            # test reads a name; what replaces is the hook's installation (``delattr``, the
            # ``__getattr__`` assignment), named instead
            out.update(
                id(side) for side in (node.left, *node.comparators)
                if isinstance(side, ast.Constant) and isinstance(side.value, str)
            )
    return out


#: node type -> the fields that may hold child nodes: ``_fields`` less the leaf singletons
#: (``ctx``: ``Load()``; ``op``, ``ops``: ``Add()``, ``Eq()``), which hold none of the nodes
#: looked for
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _walk(tree: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk(tree)``'s nodes in its order (breadth first, each node's children in
    field order), the leaf singletons left out; without its generator per node."""
    from collections import deque

    todo = deque([tree])
    pop, push, AST = todo.popleft, todo.append, ast.AST
    fields_of = _CHILD_FIELDS
    while todo:
        node = pop()
        yield node
        t = type(node)
        fields = fields_of.get(t)
        if fields is None:
            fields = fields_of[t] = tuple(f for f in t._fields if f not in ("ctx", "op", "ops"))
        for name in fields:
            value = getattr(node, name, None)
            if isinstance(value, AST):
                push(value)
            elif type(value) is list:
                for item in value:
                    if isinstance(item, AST):
                        push(item)


#: tree -> its :class:`_Nodes`, while the tree lives (the run's snapshot keeps a file's tree
#: for every phase that asks: the re-exports, the test doubles, the file's own analysis)
_NODES: weakref.WeakKeyDictionary[ast.AST, _Nodes] = weakref.WeakKeyDictionary()


def _nodes(tree: ast.AST) -> _Nodes:
    """``tree``'s :class:`_Nodes`, made once however often asked, from the one walk of the
    tree that gives its module facts (:func:`ppo_migrate.rules.module.facts_of`: the file's
    own analysis walks it too; its ``table``, put in ``ast.walk``'s order); a tree nested
    too deeply for that walk to finish is walked here."""
    found = _NODES.get(tree)
    if found is None:
        problem, facts = facts_of(tree)
        found = _NODES[tree] = _Nodes(_walk(tree) if problem is not None else facts.table_in_walk_order())
    return found


def replacements(tree: ast.AST) -> Iterator[Replacement]:
    """Every replacement in ``tree`` by a form of the table: the calls of
    :data:`PATCHERS`, an attribute assigned, an item of a namespace assigned; a target of a
    list (``launcher.f, calls = fake, []``), of a ``for`` or a ``with ... as`` counts as
    assigned (form ``"an assignment"``). Found once a tree, however often asked."""
    nodes = _nodes(tree)
    if nodes.replaced is None:
        nodes.replaced = tuple(_replacements(tree, nodes))
    return iter(nodes.replaced)


def _object_aliases(tree: ast.AST, nodes: _Nodes) -> dict[str, ast.expr]:
    """The names ``tree`` binds once (by ``=``; ``+=`` changes the object in place and is
    not counted) to an import hook's list or dictionary (``hooks = sys.meta_path``:
    :func:`_hook_name`) or to a namespace (``ns = vars(cp)``, ``ns = cp.__dict__``,
    ``ns = globals()``: :func:`_namespace`), name -> that expression (fresh40, B6:
    ``hooks.insert(0, F())`` adds to ``sys.meta_path`` and ``exec(CODE, ns)`` runs in
    ``cp``'s namespace, as the direct forms do). A name bound any other way besides (a
    parameter, a ``for`` target, an import, a second ``=``) is left out.

    Args:
        tree (ast.AST): the file's tree.
        nodes (_Nodes): its nodes (:func:`_nodes`).

    Raises:
        Nothing.
    """
    candidates: dict[str, ast.expr] = {}
    for node in nodes.assigns:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if _hook_name(value, None) is not None or _namespace(value) is not None:
                name = node.targets[0].id
                candidates[name] = value if name not in candidates else None  # twice: none
    candidates = {k: v for k, v in candidates.items() if v is not None}
    if not candidates:
        return {}
    stores: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in candidates and isinstance(node.ctx, (ast.Store, ast.Del)):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id in candidates:
            stores[node.target.id] = stores.get(node.target.id, 0) - 1  # in place: no new binding
        elif isinstance(node, ast.arg) and node.arg in candidates:
            stores[node.arg] = stores.get(node.arg, 0) + 2
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".", 1)[0]
                if bound in candidates:
                    stores[bound] = stores.get(bound, 0) + 2
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in candidates:
            stores[node.name] = stores.get(node.name, 0) + 2
    return {k: v for k, v in candidates.items() if stores.get(k) == 1}


def _unaliased(node: ast.expr, aliases: Mapping[str, ast.expr]) -> ast.expr:
    """``node`` with a name of ``aliases`` (:func:`_object_aliases`) put back as the object
    it stands for, where the forms read it: a call's owner (``hooks.insert``), its
    arguments (``exec(CODE, ns)``) and a subscript's value (``hooks[:0] = ...``)."""

    def back(part):
        return aliases[part.id] if isinstance(part, ast.Name) and part.id in aliases else part

    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in aliases:
            func = ast.copy_location(ast.Attribute(back(func.value), func.attr, ast.Load()), func)
        args = [back(a) for a in node.args]
        keywords = [ast.keyword(k.arg, back(k.value)) for k in node.keywords]
        if func is node.func and all(a is b for a, b in zip(args, node.args)) \
                and all(k.value is j.value for k, j in zip(keywords, node.keywords)):
            return node
        return ast.copy_location(ast.Call(func, args, keywords), node)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in aliases:
        return ast.copy_location(ast.Subscript(back(node.value), node.slice, node.ctx), node)
    return node


def _call_forms() -> frozenset[str]:
    """The last names of the callables :func:`call_replacements` may find a replacement in
    (``[]`` for a call of any other): :data:`RUN_CODE`, the import hooks' methods
    (:data:`_HOOK_METHODS`, ``FileFinder.path_hook``: :func:`_import_hook`),
    :data:`INTERPRETERS`, :data:`MODULE_LOADERS`, :data:`RUNNERS` and :data:`PATCHERS`, in
    the order :func:`call_replacements` tries them."""
    return frozenset(
        (*RUN_CODE, *_HOOK_METHODS, "path_hook", *INTERPRETERS, *MODULE_LOADERS, *RUNNERS, *PATCHERS)
    )


#: :func:`_call_forms`: a call of another callable replaces nothing (:func:`_replacements`)
_CALL_FORMS: frozenset[str] = _call_forms()


def _replacements(tree: ast.AST, nodes: _Nodes) -> Iterator[Replacement]:
    """:func:`replacements`, found: ``nodes`` is ``tree``'s :class:`_Nodes`. A name bound
    once to an import hook or a namespace counts as it (:func:`_object_aliases`).

    A call whose callable's last name is none of :data:`_CALL_FORMS` replaces nothing
    (:func:`call_replacements` answers ``[]`` whatever its arguments, and
    :func:`_unaliased` keeps that name), and an attribute assigned reads no string: the
    file's strings (:func:`string_env`) and aliases are made only when a call of the
    forms or an item assigned asks (most modules: ``self.x = v`` and other calls only;
    ~40% of this table's time on benchmark item 9's trainer modules)."""
    env: dict[str, str] | None = None
    aliases: dict[str, ast.expr] | None = None
    forms = _CALL_FORMS
    for node in nodes.changes:
        if isinstance(node, ast.Call):
            func = node.func
            if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) not in forms:
                continue
            if env is None:
                env = string_env(tree)
            if aliases is None:
                aliases = _object_aliases(tree, nodes)
            yield from call_replacements(_unaliased(node, aliases) if aliases else node, env)
        else:
            for target in _bound_targets(node):
                for t in _flat(target):
                    if isinstance(t, ast.Subscript):
                        if aliases is None:
                            aliases = _object_aliases(tree, nodes)
                        if env is None:
                            env = string_env(tree)
                    if aliases:  # ``hooks[:0] = [finder]``, ``ns["f"] = g`` (fresh40, B6)
                        t = _unaliased(t, aliases)
                    package = _search_path_of(t.value if isinstance(t, ast.Subscript) else t)
                    if package is not None:
                        # ``verl.trainer.__path__ = [...]``, ``+= [...]``, ``[:0] = [...]`` (I-B1)
                        how = "[...] assigned" if isinstance(t, ast.Subscript) else " assigned"
                        yield _path_hook(package, t.lineno, how)
                    elif isinstance(t, ast.Attribute) and t.attr == "__class__":
                        # ``sys.modules[name].__class__ = Compat``: any attribute of the
                        # object may now be the class's (a property giving a function)
                        yield Replacement("*", t.value, None, "attribute", t.lineno, CLASS_FORM)
                    elif isinstance(t, ast.Attribute) and t.attr in IMPORT_HOOKS and _dotted(t.value) == "sys":
                        # ``sys.meta_path = [finder, *sys.meta_path]``, ``sys.path_hooks += [...]``
                        yield Replacement("*", None, None, "modules", t.lineno, f"{_HOOK_FORM}sys.{t.attr} assigned")
                    elif isinstance(t, ast.Subscript) and _hook_name(t.value, None) is not None:
                        # ``sys.path_importer_cache[entry] = finder``, ``sys.meta_path[:0] = [...]``
                        hook = _hook_name(t.value, None)
                        yield Replacement("*", None, None, "modules", t.lineno, f"{_HOOK_FORM}sys.{hook}[...] assigned")
                    elif isinstance(t, ast.Attribute):
                        # ``lib.f.__code__ = g.__code__``: ``f`` replaced in place
                        yield _swapped(t.value, t.attr, t.lineno, "an assignment") or Replacement(
                            t.attr, t.value, None, "attribute", t.lineno, "an assignment"
                        )
                    elif isinstance(t, ast.Subscript):
                        space = _namespace(t.value)
                        if space is not None:
                            yield _keyed(space[0], space[1], _string(t.slice, env), t.lineno, "an assignment", t.slice)


def _flat(target: ast.expr) -> Iterator[ast.expr]:
    if isinstance(target, (ast.Tuple, ast.List)):
        for e in target.elts:
            yield from _flat(e)
    elif isinstance(target, ast.Starred):
        yield from _flat(target.value)
    else:
        yield target


def replaced_names(call: ast.Call, env: dict[str, str] | None = None) -> list[str]:
    """The names a call replaces by a form of :data:`PATCHERS` (``"*"``: any), for the
    caller plan's run-time bindings; a module put in ``sys.modules`` under ``"a.b"``
    counts as ``"b"``. ``env``: :func:`call_replacements`'s (names built at run time)."""
    return [r.name for r in call_replacements(call, env)]


#: the classic double's reason (a fake of the function itself)
_REPLACES = "replaces the runtime function, whose replacement may take no config"


class Patch(NamedTuple):
    """A replacement in a file of the run that may reach other modules' calls.

    Attributes:
        module: the module of the run whose calls it reaches (and the modules importing
            from it), or ``"*"``: any (verl's module itself, an object the imports cannot
            tell, a module replaced in ``sys.modules``).
        path, line: where it is.
        kind: ``"patched"`` (a test double: a patcher, ``sys.modules``, a fake package)
            or ``"rebound"`` (an assignment run outside the tests).
        what: what it does, for the reason (``"replaces the runtime function"``).
    """

    module: str
    path: str
    line: int
    kind: str = "patched"
    what: str = "replaces the runtime function, whose replacement may take no config"

    def reason(self) -> str:
        """The reason as the message words it: ``"tests/t.py:5 replaces the runtime
        function, whose replacement may take no config"``."""
        return f"{self.path}:{self.line} {self.what}"


class Names(NamedTuple):
    """The names a replacement must spell to reach a call of the runtime function.

    Attributes:
        functions: the function's names and its aliases (``make_env =
            get_ppo_ray_runtime_env``): a string spelling one counts wherever it stands
            in a file that patches.
        through: the modules and module aliases calls go through (``constants_ppo``,
            ``cp`` of ``import verl.trainer.constants_ppo as cp``, ``verl``): only a form of
            the table replacing one counts.
        target_modules: the modules holding the function (the targets' own, and the
            project's modules re-exporting it): replacing the function there reaches
            every importer.
        held: those of ``through`` an assignment binds to a module the calls go through
            (``cp = constants_ppo``, in a class body above all: ``Env.cp.get_...()``,
            ``self.cp.get_...()``, issue 26 family 6): replaced on any object (a class
            or an instance: ``launcher.cp = fake``), or bound again in a class body (a
            subclass overriding it), they reach the calls.
    """

    functions: frozenset[str]
    through: frozenset[str]
    target_modules: frozenset[str]
    held: frozenset[str] = frozenset()

    def all(self) -> frozenset[str]:
        return self.functions | self.through | self.held


#: `` as `` with a blank each side: in every match of :func:`through_names`'s aliases
_AS_SEPARATORS = (b" as ", b" as\t", b"\tas ", b"\tas\t")

#: an indented ``import`` statement on one line: group 1 the ``from`` part, group 2 the names
_INDENTED_IMPORT = lazy_pattern(rb"[ \t]+(from[ \t]+[\w.]+[ \t]+)?import[ \t]+([^\n#;]*)")


def _from_search(pattern: re.Pattern[bytes], data: bytes) -> bool:
    """``pattern.search(data) is not None`` for a pattern starting ``\\bfrom``, tried only
    where ``from`` stands: ``re`` finds no literal prefix after ``\\b`` and tries the
    pattern at every byte otherwise. Exact: a match starts at a ``from``, and ``match``
    at a position sees the byte before it (``\\b``) as ``search`` does."""
    at = data.find(b"from")
    while at != -1:
        if pattern.match(data, at) is not None:
            return True
        at = data.find(b"from", at + 1)
    return False


#: ``from <dotted name> import`` at a ``from`` (:func:`_from_imported`)
_FROM_IMPORT = lazy_pattern(rb"\bfrom\s+([\w.]+)\s+import\s")
#: a package spelled with ASCII word characters and dots only
_DOTTED_WORDS = lazy_pattern(r"[A-Za-z0-9_.]+")


def _from_imported(data: bytes) -> set[bytes]:
    """The dotted names ``data``'s ``from <name> import`` statements import from: the
    packages whose ``\\bfrom\\s+<package>\\s+import\\s`` pattern (:class:`_TargetForms`'s
    ``from_package``) finds a match, for a package of ASCII word characters and dots. Each
    ``from`` is tried (overlapping ones too): at each, the greedy name is the whole run of
    word characters and dots, the only run such a pattern can match there."""
    out: set[bytes] = set()
    at = data.find(b"from")
    while at != -1:
        m = _FROM_IMPORT.match(data, at)
        if m is not None:
            out.add(m.group(1))
        at = data.find(b"from", at + 1)
    return out


#: ``from <dotted name> import`` and the blanks after it, at a ``from``
#: (:func:`_from_imported_words`)
_FROM_IMPORT_LIST = lazy_pattern(rb"\bfrom\s+([\w.]+)\s+import\s+")
#: a run of ASCII word characters (``\w`` of a bytes pattern)
_WORD_RUN = lazy_pattern(rb"\w+")
#: a name of ASCII word characters only
_ASCII_WORD = lazy_pattern(r"[A-Za-z0-9_]+")


def _from_imported_words(data: bytes) -> dict[bytes, set[bytes]]:
    """The dotted names ``data``'s ``from <name> import`` statements import from (as
    :func:`_from_imported`), each with the words its statements' import lists spell: the
    words a ``\\bfrom\\s+<package>\\s+import\\s+(?:\\([^)]*|[^\\n]*)\\b<last>\\b`` pattern
    (:func:`through_names`'s ``imports_last``) may find there, for a ``<last>`` of ASCII word
    characters: the rest of the line after ``import`` and its blanks, and when that rest
    opens with ``(``, everything up to the first ``)`` (over lines). A word there is a
    maximal run of word characters, as ``\\b<last>\\b`` matches it: each region is bounded
    by bytes that are no word characters (a blank, ``(``, ``)``, a line end, or the end).

    One scan of a file's ``from`` statements for every package and last name, instead of
    one pattern compiled for each (package, last name): item 9's 76 target modules (the
    project's re-exports) compiled 76 patterns, ~1.5% of its ``check``."""
    out: dict[bytes, set[bytes]] = {}
    at = data.find(b"from")
    while at != -1:
        m = _FROM_IMPORT_LIST.match(data, at)
        if m is not None:
            words = out.setdefault(m.group(1), set())
            start = m.end()
            end = data.find(b"\n", start)
            words.update(_WORD_RUN.findall(data, start, len(data) if end == -1 else end))
            if data[start : start + 1] == b"(":
                end = data.find(b")", start + 1)
                words.update(_WORD_RUN.findall(data, start + 1, len(data) if end == -1 else end))
        at = data.find(b"from", at + 1)
    return out


class _TargetForms(NamedTuple):
    """What :func:`through_names` makes of the targets alone, whatever the files: made once
    per set of targets (:func:`_target_forms`), not once per file (a run's targets grow
    with the project's re-exports: item 9's 76 targets rebuilt and escaped every pattern
    for each of its 135 files, ~15% of its ``check``).

    Attributes:
        functions: the targets' last names.
        modules: the modules holding them.
        parts: every dotted part of ``modules``.
        by_package: package -> the last names of its target modules.
        from_package: package -> (its name encoded, ``from <package> import`` pattern,
            compiled when first asked: ``None`` until then). Only a file whose packages
            one scan of its ``from`` statements cannot tell (``plain_packages`` false)
            searches it (benchmark item 9's run compiled 58 of them, at its first
            files, and searched none).
        patterns: ``(package, last)`` -> ``from <package> import ... <last>`` pattern,
            compiled when first asked (filled as the files ask).
        aliased: ``<function or part> as <alias>`` (compiled when first searched).
        assigned: ``<name> = [<dotted>.]<function>`` on a line (compiled when first
            searched).
        fn_encoded: ``functions`` encoded.
        named_modules: those of ``modules`` whose every part is an identifier (the values a
            module alias may hold).
        plain_packages: whether every package of ``by_package`` is spelled with ASCII word
            characters and dots (then one scan of a file's ``from ... import`` statements
            answers for all of them: :func:`_from_imported`).
        bound: the sorted module values -> (their ``<name> = <value>`` pattern, their last
            names encoded, the search for those), made when first asked (filled as the
            files ask).
    """

    functions: frozenset[str]
    modules: frozenset[str]
    parts: frozenset[str]
    by_package: dict[str, list[str]]
    from_package: dict[str, tuple[bytes, re.Pattern[bytes] | None]]
    patterns: dict[tuple[str, str], re.Pattern[bytes]]
    aliased: LazyPattern
    assigned: LazyPattern
    fn_encoded: list[bytes]
    named_modules: frozenset[str]
    plain_packages: bool
    bound: dict[tuple[str, ...], tuple[re.Pattern[bytes], list[bytes], Words]]


#: how many sets of targets :func:`_target_forms` keeps (a run has one, growing once with
#: the project's re-exports)
_TARGET_FORMS_KEPT = 8
_target_forms_kept: dict[tuple[str, ...], _TargetForms] = {}


def _target_forms(targets: tuple[str, ...]) -> _TargetForms:
    """The :class:`_TargetForms` of ``targets`` (qualified names), made once per set of
    targets (at most :data:`_TARGET_FORMS_KEPT` kept, the oldest dropped first)."""
    forms = _target_forms_kept.get(targets)
    if forms is not None:
        return forms
    functions = frozenset(t.rsplit(".", 1)[-1] for t in targets)
    modules = frozenset(t.rsplit(".", 1)[0] for t in targets if "." in t)
    # by the module's package: a file that never says ``from <package> import`` imports none
    # of its modules by their last names, and a module's own pattern is compiled only for a
    # file that does (a run's targets grow with the project's re-exports: hundreds of
    # modules, which ``re``'s cache of 512 patterns no longer held)
    by_package: dict[str, list[str]] = {}
    for m in modules:
        if "." in m:
            package, last = m.rsplit(".", 1)
            by_package.setdefault(package, []).append(last)
    from_package: dict[str, tuple[bytes, re.Pattern[bytes] | None]] = {
        package: (package.encode(), None) for package in by_package
    }
    parts = frozenset(part for m in modules for part in m.split("."))
    words = b"|".join(re.escape(w.encode()) for w in sorted(functions | parts))
    # both compiled when first searched (a file's own analysis searches ``assigned`` only,
    # and ``aliased`` on a line spelling a function and `` as ``)
    aliased = lazy_pattern(rb"\b(?:" + words + rb")[ \t]+as[ \t]+(\w+)")
    fn_words = b"|".join(re.escape(w.encode()) for w in sorted(functions))
    assigned = lazy_pattern(
        rb"(?m)^[ \t]*(\w+)[ \t]*(?::[^=\n]*)?=[ \t]*(?:staticmethod\([ \t]*)?(?:[\w.]+\.)?(?:" + fn_words
        + rb")[ \t]*\)?[ \t]*(?:#[^\n]*)?$"
    )
    forms = _TargetForms(
        functions, modules, parts, by_package, from_package, {}, aliased, assigned,
        [w.encode() for w in functions],
        frozenset(m for m in modules if all(p.isidentifier() for p in m.split("."))),
        all(_DOTTED_WORDS.fullmatch(package) for package in by_package),
        {},
    )
    while len(_target_forms_kept) >= _TARGET_FORMS_KEPT:
        del _target_forms_kept[next(iter(_target_forms_kept))]
    _target_forms_kept[targets] = forms
    return forms


def through_names(datas: Iterable[bytes], targets: Iterable[str], *, with_held: bool = True) -> Names:
    """The :class:`Names` of the runtime function in files holding ``datas`` (bytes;
    read by regular expressions, generously: a name too many only makes a fix unsafe).

    Args:
        datas: the bytes of the files naming the function.
        targets: its qualified names (the settings' targets, and re-exports found).
        with_held: whether :attr:`Names.held` is looked for (``False``: left empty, for a
            caller that judges the class attributes otherwise: :func:`own_replacement`).
    """
    forms = _target_forms(tuple(targets))
    datas = list(datas)
    functions = set(forms.functions)
    modules = forms.modules
    # a module the files import by its last name (``from verl.trainer import
    # constants_ppo``), not every target module's (``env`` of ``ppo_runtime.env`` is a
    # common word: ``self.env = ...``), nor its packages' (``verl``, ``trainer``); an
    # alias of any of them is found below
    through: set[str] = set()
    by_package, from_package, patterns = forms.by_package, forms.from_package, forms.patterns

    def imports_last(package: str, last: str, data: bytes) -> bool:
        """``from <package> import (..., <last>`` / ``... <last>`` on the line."""
        pattern = patterns.get((package, last))
        if pattern is None:
            pattern = patterns[(package, last)] = re.compile(
                rb"\bfrom\s+" + re.escape(package.encode()) + rb"\s+import\s+(?:\([^)]*|[^\n]*)\b"
                + re.escape(last.encode()) + rb"\b"
            )
        return _from_search(pattern, data)

    parts = forms.parts
    aliased, assigned, fn_encoded = forms.aliased, forms.assigned, forms.fn_encoded
    for data in datas:
        # the packages the file imports from (one scan of its ``from`` statements), or
        # ``None``: each package's own pattern is tried
        imported = _from_imported(data) if forms.plain_packages else None
        # the words of each package's import lists, read once when first needed
        # (:func:`_from_imported_words`: exact for a last name of ASCII word characters)
        listed: dict[bytes, set[bytes]] | None = None
        for package, lasts in by_package.items():
            spelled, statement = from_package[package]
            if imported is not None:
                if spelled not in imported:
                    continue
            elif spelled not in data:
                continue
            else:
                if statement is None:
                    statement = re.compile(rb"\bfrom\s+" + re.escape(spelled) + rb"\s+import\s")
                    from_package[package] = (spelled, statement)
                if not _from_search(statement, data):
                    continue
            for last in lasts:
                if last in through:
                    continue
                encoded = last.encode()
                if encoded not in data:
                    continue
                if imported is not None and _ASCII_WORD.fullmatch(last):
                    if listed is None:
                        listed = _from_imported_words(data)
                    if encoded in listed.get(spelled, ()):
                        through.add(last)
                elif imports_last(package, last, data):
                    through.add(last)
        # `` as `` (a blank each side) in the file, or no alias to find: the alternation
        # of words is tried at every position otherwise (seconds on a 30 MB file)
        # a match is one line, holding one of them: only those lines are tried (the
        # alternation of the targets' modules, 80 on item 9's tree, was ~5% of its run)
        for start, end in _lines_holding(data, _AS_SEPARATORS):
            for m in aliased.finditer(data, start, end):
                word = m.group(0).split()[0].decode()
                (functions if word in functions else through).add(m.group(1).decode("utf-8", "replace"))
        # a match is one line, which spells a function: only those lines are tried
        spans = _lines_holding(data, fn_encoded) if fn_encoded else [(0, len(data))]
        for start, end in spans:
            for m in assigned.finditer(data, start, end):
                functions.add(m.group(1).decode("utf-8", "replace"))
    if not with_held:
        return Names(frozenset(functions), frozenset(through - functions), frozenset(modules))
    # ``cp = constants_ppo`` (a class body's, above all): a module alias on any object
    # (the value a module alias of the files, or a target module spelled in full)
    held: set[str] = set()
    values = sorted(
        forms.named_modules.union(w for w in through if all(p.isidentifier() for p in w.split(".")))
    )
    if values:
        made = forms.bound.get(tuple(values))
        if made is None:
            if len(forms.bound) >= 64:
                forms.bound.clear()
            lasts = sorted({w.rsplit(".", 1)[-1].encode() for w in values})
            made = forms.bound[tuple(values)] = (
                frozenset(w.encode() for w in values),
                lasts,
                Words(lasts),
            )
        valued, lasts, spelling = made
        for data in datas:
            # a match is one line, which spells a module: only those lines are tried (the
            # modules' names the file holds found first: hundreds once the project's
            # re-exports join the targets, :class:`ppo_migrate.prefilter.Words`)
            for start, end in _lines_holding(data, spelling.spelled(data)):
                if data.find(b"=", start, end) != -1:  # the assignment's ``=``
                    held.update(
                        m.group(1).decode("utf-8", "replace")
                        for m in _HELD_ASSIGN.finditer(data, start, end) if m.group(2) in valued
                    )
                # an indented import (a class body's: ``from verl.trainer import constants_ppo
                # as cp``): the names it binds to a module
                if data[start:start + 1] not in (b" ", b"\t"):  # its indent
                    continue
                m = _INDENTED_IMPORT.match(data, start, end)
                if m is None:
                    continue
                for item in m.group(2).strip(b" \t()\\").split(b","):
                    words = item.split()
                    if not words or words[0].rsplit(b".", 1)[-1] not in lasts:
                        continue
                    if len(words) == 3 and words[1] == b"as":
                        held.add(words[2].decode("utf-8", "replace"))
                    elif len(words) == 1 and m.group(1):
                        held.add(words[0].decode("utf-8", "replace"))
    held -= functions | parts
    return Names(frozenset(functions), frozenset(through - functions), frozenset(modules), frozenset(held))


#: ``cp = constants_ppo`` (a line binding one name, its value one dotted name, a comment
#: after it or not): group 1 the name, group 2 the value, which :func:`through_names` looks
#: up among the module aliases it knows. The value's alternation compiled into the pattern
#: (76 target modules on benchmark item 9's tree, 600 once item 10's re-exports join them)
#: cost a compile of its own per run; a value ends where a blank, ``#`` or the line does, so
#: the line matches this pattern with a known value exactly when it matched that one.
_HELD_ASSIGN = lazy_pattern(rb"(?m)^[ \t]*(\w+)[ \t]*(?::[^=\n]*)?=[ \t]*([^\s#]+)[ \t]*(?:#[^\n]*)?$")

#: folders of test doubles: a copy of verl's module under one is a fake a test may put
#: first on ``sys.path`` (one list with the callee's walk for stray copies)
_DOUBLES_FOLDERS = DOUBLES_FOLDERS


def _is_test_file(path: str) -> bool:
    parts = os.path.normpath(path).split(os.sep)
    base = parts[-1]
    return (
        base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py"
        or any(p in ("tests", "test", "testing") for p in parts[:-1])
    )


def is_test_file(path: str) -> bool:
    """Whether ``path`` (``str``) is a test's file: pytest's default ``test_*.py`` and
    ``*_test.py``, a ``conftest.py``, or any file under a ``tests``/``test``/``testing``
    folder. A replacement there is a test double ("patched"), elsewhere a rebinding."""
    return _is_test_file(path)


#: ``NAME = "pkg.lib.get_..."`` at the start of a line: a patch target kept in a constant
#: another file may import (``mock.patch(NAME, fake)``)
def _constants(data: bytes, functions: Iterable[str]) -> Iterator[tuple[str, str, int]]:
    functions = sorted(functions)
    # a match holds ``.<function>'`` or ``.<function>"``: without one, nothing to find
    if functions and not any(b"." + w.encode() + q in data for w in functions for q in (b"'", b'"')):
        return
    words = b"|".join(re.escape(w.encode()) for w in functions)
    pattern = re.compile(rb"(?m)^(\w+)[ \t]*(?::[^=\n]*)?=[ \t]*[rbuRBU]?['\"]([\w.]+)\.(?:" + words + rb")['\"]")
    for m in pattern.finditer(data):
        line = data.count(b"\n", 0, m.start()) + 1
        yield m.group(1).decode(), m.group(2).decode(), line


#: a module-level assignment that may compute a string: ``A + B``, an f-string, ``'.'.join``
_COMPUTED_ASSIGN = lazy_pattern(
    rb"(?m)^\w+[ \t]*(?::[^=\n]*)?=[^=\n][^\n]*(?:\+|\b[fF][rR]?['\"]|\.join\s*\(|\.format\s*\(|['\"]\s*%)"
)


def _str_value(node: ast.AST, env: dict[str, str]) -> str | None:
    """The string ``node`` evaluates to, from string constants and the names of ``env``:
    ``A + B``, ``f"{A}.{B}"``, ``".".join([A, "b"])``; ``None`` if it cannot tell."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _str_value(node.left, env), _str_value(node.right, env)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                if value.format_spec is not None or value.conversion not in (-1, ord("s")):
                    return None
                text = _str_value(value.value, env)
            else:
                text = _str_value(value, env)
            if text is None:
                return None
            parts.append(text)
        return "".join(parts)
    if (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join"
        and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], (ast.List, ast.Tuple))
    ):
        sep = _str_value(node.func.value, env)
        items = [_str_value(e, env) for e in node.args[0].elts]
        return None if sep is None or None in items else sep.join(items)  # type: ignore[arg-type]
    return None


def _spells_function(value: ast.AST, functions: set[str]) -> bool:
    """Whether a string part of ``value`` is one of ``functions`` or ends with ``.<function>``."""
    for node in ast.walk(value):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.strip()
            if text in functions or any(text.endswith("." + f) for f in functions):
                return True
    return False


def _computed_constants(tree: ast.AST, functions: Iterable[str]) -> Iterator[tuple[str, str | None, int]]:
    """``(name, module, line)`` of each module-level name bound once to a string, computed
    from other such names (``ENV = MOD + ".get_..."``, ``f"{MOD}.{FN}"``, ``".".join([...])``),
    that names the function in a module: a patch target another file may import. A value
    computed from what cannot be read here that still spells the function
    (``os.environ.get("M", "app.launcher") + ".get_..."``) gives module ``None``: any module."""
    functions = set(functions)
    bound: dict[str, int] = {}
    for node in getattr(tree, "body", ()):
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
        for target in targets:
            for t in _flat(target):
                if isinstance(t, ast.Name):
                    bound[t.id] = bound.get(t.id, 0) + 1
    env: dict[str, str] = {}
    for node in getattr(tree, "body", ()):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if not isinstance(target, ast.Name) or bound.get(target.id) != 1:
            continue
        text = _str_value(value, env)
        if text is None:
            # computed from what cannot be read here (``os.environ.get(...) + ".get_..."``,
            # ``"{}.get_...".format(m)``): a target in a module nobody can tell, which may
            # be the calls' (issue 26, family 4)
            if _spells_function(value, functions):
                yield target.id, None, node.lineno
            continue
        env[target.id] = text
        module, _, name = text.rpartition(".")
        if name in functions and module and not isinstance(value, ast.Constant):
            yield target.id, module, node.lineno


def target_patches(
    candidates: Iterable[str], paths: Sequence[str], settings: Settings,
    reexports: Mapping[str, str] | None = None,
) -> tuple[Patch, ...]:
    """Where files of the run replace the runtime function, or a module or alias its calls
    go through, by a form of the table (:func:`replacements`).

    Args:
        candidates: the files naming the runtime function (the prefilter's): the only
            ones that can call it, alias it or define a fake of it.
        paths: every file of the run: a file replacing an alias (``make_env``), a module
            (``launcher.constants_ppo = Fake``) or a target kept in another file's
            constant need not name the function.
        settings: the run's settings (the targets' names).
        reexports: the project's own re-exports among the targets, name -> target (the
            run's reference index's: :attr:`ppo_migrate.project.references.References.reexports`);
            ``None``: none.

    Returns:
        The patches, in path and line order: ``Patch("pkg.lib", path, line, ...)`` for a
        replacement in a module of the run (it reaches that module and its importers),
        else ``Patch("*", ...)`` (``setattr(lib, "get_ppo_ray_runtime_env", f)`` on an
        object the imports cannot tell, ``mock.patch("verl.trainer.constants_ppo.get_...")``,
        ``sys.modules["verl.trainer.constants_ppo"] = fake``, a fake
        ``verl/trainer/constants_ppo.py`` defining the function without a config).
    """
    read_bytes = current().read_bytes  # each file read once a run
    candidates = list(candidates)
    datas: dict[str, bytes] = {}
    for path in candidates:
        try:
            datas[path] = read_bytes(path)
        except (OSError, ValueError):
            continue
    targets = tuple(settings.targets)
    reexports = reexports or {}
    names = through_names(datas.values(), targets)
    # a patch of the function in a module re-exporting it reaches that module's importers
    # (:func:`reaching_patch`), not every module
    names = names._replace(
        target_modules=frozenset(t.rsplit(".", 1)[0] for t in targets if "." in t and t not in reexports)
    )
    constants: dict[str, tuple[str, str, int]] = {}
    for path, data in datas.items():
        for name, module, line in _constants(data, names.functions):
            constants.setdefault(name, (module, path, line))
        if _COMPUTED_ASSIGN.search(data):  # ``ENV = MOD + ".get_..."``, an f-string, a join
            tree = parse_file(path, data)
            if tree is not None:
                for name, module, line in _computed_constants(tree, names.functions):
                    constants.setdefault(name, (module, path, line))
    wanted = names.all() | constants.keys()
    encoded = [n.encode() for n in wanted]
    # a file not naming the function must name what it replaces where a replacement does:
    # in a string, as an attribute or keyword assigned, or a constant holding a target
    alternatives = b"|".join(re.escape(n) for n in sorted(encoded))
    strict = lazy_pattern(  # searched in a file spelling one of them only
        rb"['\"][\w.]*\b(?:" + alternatives + rb")['\"]|\b(?:" + alternatives + rb")\s*=[^=]"
        + (b"".join(rb"|\b" + re.escape(c.encode()) + rb"\b" for c in sorted(constants)))
    )
    # ``sys.modules["verl.trainer.constants_ppo"] = fake``: a target module (or a package
    # above it) named in a string
    module_keys = [
        q + p.encode() + q for m in names.target_modules for p in _prefixes(m) for q in (b"'", b'"')
    ]
    found: list[tuple[str | None, str, int, str, str]] = []
    used: set[tuple[str, int]] = set()  # constants another file's patch reads a target from

    held = [n.encode() for n in sorted(names.held)]
    function_words = [n.encode() for n in sorted(names.functions)]
    spelled_names = [n.encode() for n in sorted(names.all())]  # :func:`string_code`'s

    def look(path: str, data: bytes) -> None:
        if held and any(n in data for n in held):  # a subclass overriding ``cp``
            held_tree = parse_file(path, data)
            if held_tree is not None:
                test = _is_test_file(path)
                found.extend((m, path, line, kind, what) for m, line, kind, what in _held_overrides(held_tree, names, test))
        # Python in a string constant (trial 26g); a file the per-file phase did not parse
        # is parsed only when its literals may hold such code
        if _may_hold_code(data, function_words, None if path in _ANALYSED else spelled_names):
            code_tree = parse_file(path, data)
            if code_tree is not None:
                found.extend(_string_code_patches(path, code_tree, names, constants, used))
        if _STAR in data and not _holds_target(module_name(path), names.target_modules):
            star_tree = parse_file(path, data)
            if star_tree is not None:
                found.extend(star_rebindings(path, star_tree, names))
        if (
            not any(n in data for n in [*encoded, *module_keys]) and not _unknown_forms(data)
        ) or not (_may_patch(data) or _binds_as_target(data, encoded)):
            found.extend(_fake_definitions(path, data, names))
            return
        tree = parse_file(path, data)
        if tree is None:  # it may run all the same (a newer Python, the tool's size limit)
            if path.endswith((".py", ".pyw")):  # not a Hydra YAML file of the run
                line, what = _unparsed(data, [*encoded, *module_keys], parse_problem(data))
                found.append((None, path, line, "patched", what))
            return
        found.extend(_fake_definitions(path, data, names, tree))
        patches = list(_patches_in(tree, names, constants, _is_test_file(path), used=used, own_module=module_name(path)))
        if b">>>" in data:  # its doctests are test code (:func:`doctest_tree`)
            doctests = doctest_tree(tree)
            if doctests is not None:
                patches += _patches_in(doctests, names, constants, True, used=used)
        for module, line, kind, what in patches:
            if module == "<own>":  # ``globals()[...] = f``: the file's own module
                module = module_name(path)
            elif module == "<package>":  # ``setattr(sys.modules[__package__], k, f)``
                module = ".".join(module_package(path)) or module_name(path)
            found.append((module, path, line, kind, what))

    for path in candidates:
        if path in datas:
            look(path, datas[path])
    found.extend(_helper_patches(paths, names, read_bytes))
    found.extend(_package_getattrs(paths, names.target_modules, read_bytes))
    seen = set(candidates)
    for path in paths:  # the other files, one at a time
        path = os.fspath(path)
        if path in seen:
            continue
        try:
            data = read_bytes(path)
        except (OSError, ValueError):
            continue
        if (
            any(k in data for k in module_keys)
            or (any(n in data for n in encoded) and strict.search(data))
            or _unknown_forms(data)
        ):
            look(path, data)
    # the text files pytest runs as doctests (``--doctest-glob``; ``test*.txt`` by
    # default) and every documentation file (``doctest.testfile``, ``python -m doctest``;
    # trial 26d): their examples are test code, read when they spell a name looked for
    texts = _doctest_files(candidates, encoded, read_bytes)
    texts += [t for t in doc_doctest_files(candidates, encoded, read_bytes) if t not in texts]
    for path, data in texts:
        doctests = doctest_file_tree(data.decode("utf-8", "replace"))
        if doctests is not None:
            for module, line, kind, what in _patches_in(doctests, names, constants, True, used=used):
                found.append((None if module in ("<own>", "<package>") else module, path, line, kind, what))
    # a string naming the function that a dynamic patcher of the repository may be given
    # (``@override("verl.trainer.constants_ppo:get_...")``; trial 26h, H-B5)
    found.extend(dynamic_patch_targets(candidates, names.functions, read_bytes))
    # a test's data file naming a target (``launcher.get_...`` in ``tests/fakes.yaml``, which
    # a conftest hands to ``monkeypatch.setattr``): as a string constant in a test file is
    # (trial 26e)
    for path, module, line in data_targets(candidates, names.functions, read_bytes):
        found.append((module or None, path, line, "patched", _REPLACES))
    # notebooks' code cells, ``python -c`` strings of Makefiles, scripts and workflows,
    # scripts without ``.py`` run by their shebang (trial 26e, D): the same table
    for code in embedded_python(candidates, encoded, read_bytes):
        if code.tree is None:
            if _may_patch(read_bytes(_absolute(code.path))):
                what = _UNPARSED.format(problem=code.problem, word=_spelled(code, encoded, read_bytes))
                found.append((None, code.path, code.line, "patched", f"{code.form}: {what}"))
            continue
        for module, line, kind, what in _patches_in(code.tree, names, constants, True, used=used):
            found.append((None if module in ("<own>", "<package>") else module, code.path, line, kind, what))
    # a zip of a fake verl a conftest puts on sys.path (trial 26f): read inside the archive
    found.extend(archive_doubles(candidates, targets, settings.respect_gitignore))
    # a test plugin the repository loads from outside it (``pytest_plugins``, ``-p NAME``,
    # ``from NAME import *`` in a conftest; trial 26e, H): read from the repository's own
    # environment when it is there, else unread (its fixture may replace the function)
    verl_packages = {t.split(".", 1)[0] for t in targets}  # its star imports: star_rebindings
    for path, line, module, found_at in external_plugins(paths, read_bytes, verl_packages):
        if found_at is None:
            found.append(("*", path, line, "patched", _UNREAD_PLUGIN.format(module=module)))
        else:
            try:
                look(found_at, read_bytes(found_at))
            except (OSError, ValueError):
                found.append(("*", path, line, "patched", _UNREAD_PLUGIN.format(module=module)))
    # the constant a patch elsewhere reads its target from is not a replacement itself: the
    # patch is, and its reason names the constant
    found = [f for f in found if not ((f[1], f[2]) in used and f[4] == _REPLACES)]
    if not found:
        return ()
    modules = _run_modules(paths)
    out: list[Patch] = []
    for module, path, line, kind, what in found:
        if module is not None and module != "*":
            if _holds_target(module, names.target_modules) or module not in modules:
                module = None
        out.append(Patch(module or "*", path, line, kind, what))
    return tuple(sorted(set(out), key=lambda p: (p.path, p.line, p.module, p.what)))


#: The callables giving a module by its name at run time: ``importlib.import_module(name)``
#: and the builtin ``__import__(name)`` (``sys.modules[name]`` is the third form:
#: :func:`_by_name`).
BY_NAME: frozenset[str] = frozenset({"import_module", "__import__"})
#: the patchers of :data:`PATCHERS` given an owner and a name (:func:`dynamic_patchers`)
_OWNER_NAME_PATCHERS = frozenset({"setattr", "object"})
#: the bytes a file holding a dynamic patcher spells (:func:`dynamic_patchers`)
_BY_NAME_WORDS = (b"import_module", b"__import__", b"modules")
#: the bytes of a dynamic patcher's two parts (:func:`dynamic_patchers`), tested before a
#: file is parsed: an attribute set by a patcher given an owner and a name, or an item of a
#: namespace assigned; a module obtained by name
_PATCHER_BYTES = lazy_pattern(rb"\bsetattr\s*\(|\bobject\s*\(|(?:\bvars\s*\(|__dict__)[^\n]*\]\s*=[^=]")
_BY_NAME_BYTES = lazy_pattern(rb"import_module|__import__|\bmodules\s*\[")
#: a module's Python source files
_PYTHON_SUFFIXES = (".py", ".pyw")
#: a Python file larger than this is not read for dynamic patchers (a generated module)
_MAX_PATCHER_BYTES = 4 * MAX_SOURCE_CHARS


def _by_name(node: ast.AST | None) -> bool:
    """Whether ``node`` is a module obtained by name at run time: a call of :data:`BY_NAME`
    (``importlib.import_module(module)``, ``__import__(name, fromlist=[...])``) or an item
    of ``sys.modules`` (``sys.modules[module]``), whatever names it."""
    if isinstance(node, ast.Call):
        return _last(node.func) in BY_NAME
    return isinstance(node, ast.Subscript) and _namespace(node.value) == ("modules", None)


def _gives_by_name(value: ast.AST, givers: set[str]) -> bool:
    """Whether an expression ``value`` holds a module obtained by name (:func:`_by_name`),
    or a call of a function of ``givers`` (those whose body holds one)."""
    for node in ast.walk(value):
        if _by_name(node) or (isinstance(node, ast.Call) and _last(node.func) in givers):
            return True
    return False


def dynamic_patchers(tree: ast.AST) -> list[int]:
    """The lines of ``tree``'s dynamic patchers (trial 26h, H-B5): a ``setattr`` (or
    ``monkeypatch.setattr``, ``mock.patch.object``) whose attribute is no string constant,
    on a module obtained by name (:func:`_by_name`) directly
    (``setattr(importlib.import_module(module), attr, fn)``) or through a name bound, in the
    file, to an expression holding one or a call of a function of the file whose body holds
    one (``owner, name = _resolve(target)``). Such a function sets whatever attribute its
    caller names, on whatever module: a string naming the runtime function anywhere may
    reach it (:func:`dynamic_patch_targets`).

    Args:
        tree: a module's tree.

    Returns:
        The lines, sorted.
    """
    nodes = _nodes(tree)
    givers = {
        n.name for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(_by_name(x) for x in ast.walk(n))
    }
    bound: set[str] = set()
    for node in nodes.assigns:
        if isinstance(node, ast.Assign) and _gives_by_name(node.value, givers):
            bound.update(t.id for target in node.targets for t in _flat(target) if isinstance(t, ast.Name))
    lines: list[int] = []
    for node in nodes.changes:
        if isinstance(node, ast.Call):
            if _last(node.func) not in _OWNER_NAME_PATCHERS or len(node.args) < 2:
                continue
            owner, key = node.args[0], node.args[1]
            if isinstance(key, ast.Constant):
                continue
        elif isinstance(node, ast.Assign):  # ``vars(import_module(m))[attr] = fn``
            spaces = [
                (_namespace(t.value), t.slice) for target in node.targets for t in _flat(target)
                if isinstance(t, ast.Subscript)
            ]
            found = [(space[1], key) for space, key in spaces if space is not None and space[0] == "attribute"]
            if not found or isinstance(found[0][1], ast.Constant):
                continue
            owner = found[0][0]
        else:
            continue
        if owner is not None and (_by_name(owner) or (isinstance(owner, ast.Name) and owner.id in bound)):
            lines.append(node.lineno)
    return sorted(lines)


def _mention_pattern(functions: Iterable[str]) -> re.Pattern[bytes]:
    """A quoted string that may name one of ``functions`` by a qualified name (``"mod.f"``,
    ``"mod:f"``) or alone (``"f"``): :func:`dynamic_patch_targets`' byte test of a file."""
    words = b"|".join(re.escape(f.encode()) for f in sorted(functions))
    return re.compile(rb"['\"](?:[A-Za-z_][\w.]*[.:])?(?:" + words + rb")['\"]")


_MODULE_NAME = lazy_pattern(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def _qualified_mentions(tree: ast.AST, functions: frozenset[str]) -> Iterator[tuple[str | None, int, str]]:
    """``(module, line, text)`` for each string constant of ``tree`` naming one of
    ``functions`` with its module: ``"pkg.mod.f"``, ``"pkg.mod:f"`` (the entry-point
    notation), or ``"f"`` beside a module's name among the same call's arguments, tuple,
    list or dictionary (``override("pkg.mod", "f")``). A docstring, and a name only read
    (``getattr(m, "f")``: :func:`_read_keys`), names nothing to replace."""
    docstrings = {
        id(n.body[0].value) for n in ast.walk(tree)
        if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
        and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)
    }
    reads = _read_keys(tree)
    skip = docstrings | reads
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            text = node.value.strip()
            head, sep, name = text.rpartition(":") if ":" in text else text.rpartition(".")
            if sep and name in functions and _MODULE_NAME.fullmatch(head):
                yield head, node.lineno, text
        elif isinstance(node, (ast.Call, ast.Tuple, ast.List, ast.Dict)):
            if isinstance(node, ast.Call):
                items = [*node.args, *(k.value for k in node.keywords)]
            elif isinstance(node, ast.Dict):
                items = [*(k for k in node.keys if k is not None), *node.values]
            else:
                items = list(node.elts)
            texts = [
                (i.value, i.lineno) for i in items
                if isinstance(i, ast.Constant) and isinstance(i.value, str) and id(i) not in skip
            ]
            named = [(t, line) for t, line in texts if t in functions]
            modules = [t for t, _ in texts if t not in functions and "." in t and _MODULE_NAME.fullmatch(t)]
            for t, line in named:
                if modules:
                    yield modules[0], line, f"{modules[0]}, {t}"


#: the files of the repository never read for a string naming the function a dynamic patcher
#: may be given (:func:`dynamic_patch_targets`): documentation prose, compiled sources, and
#: binary data (images, archives, weights); a text table (``.csv``, ``.jsonl``) is read
_NOT_TARGET_TEXT = PROSE_SUFFIXES + COMPILED_SUFFIXES + tuple(
    s for s in MENTION_DATA_SUFFIXES if s not in (".csv", ".tsv", ".jsonl", ".log")
)
#: a qualified name (a module's path): ``verl.trainer.constants_ppo``, ``launcher``
_QUALIFIED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
#: a dotted name anywhere on a line: a module's path beside the function's name
_DOTTED_ON_LINE = lazy_pattern(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
#: a qualified name right before the function's name, joined by ``.`` or ``:``
_JOINED_BEFORE = lazy_pattern("(" + _QUALIFIED + r")[.:]$")
#: a qualified name right before the function's name, apart by spaces, commas, quotes or ``=``
_APART_BEFORE = lazy_pattern("(" + _QUALIFIED + r")['\"]?[\s,=/'\"]+$")


def _may_name_target(name: str) -> bool:
    """Whether a file named ``name`` may hold a string naming the function that a dynamic
    patcher is given (:func:`dynamic_patch_targets`): any file but documentation prose
    (:data:`ppo_migrate.project.mentions.PROSE_SUFFIXES`, ``README``, ``LICENSE``...),
    compiled sources and binary data."""
    lower = name.lower()
    if lower.endswith(_NOT_TARGET_TEXT):
        return False
    base, _, extension = name.partition(".")
    return not (base.upper() in PROSE_NAMES and extension.lower() in ("", "txt"))


def line_mentions(text: str, functions: frozenset[str]) -> Iterator[tuple[str | None, int, str]]:
    """``(module, line offset, line)`` for each line of ``text`` naming one of ``functions``
    with a module's path, in any separator form (trial fresh40, B5): qualified with ``.`` or
    ``:`` (``verl.trainer.constants_ppo:get_ppo_ray_runtime_env``), after a module's path
    and spaces, commas, quotes or ``=`` (``"verl.trainer.constants_ppo get_..."`` that a
    conftest splits, ``launcher, get_...``), or with a dotted module path elsewhere on the
    same line. A line holding the name alone (no module's path) names nothing to replace.

    Args:
        text: a data file's text, or a Python string constant's value.
        functions: the function's names (:attr:`Names.functions`).

    Yields:
        The module named (the one joined to the name, else the first dotted name of the
        line, else the word before it), the 0-based line offset in ``text``, and the line
        stripped (at most 120 characters); one per line.
    """
    if not functions:
        return
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(f) for f in sorted(functions)) + r")(?!\w)")
    for offset, line in enumerate(text.splitlines()):
        for m in pattern.finditer(line):
            before = line[: m.start()]
            joined = _JOINED_BEFORE.search(before)
            module: str | None = joined.group(1) if joined is not None else None
            if module is None:
                dotted = [
                    d.group() for d in _DOTTED_ON_LINE.finditer(line)
                    if d.group().rpartition(".")[2] not in functions
                ]
                if dotted:
                    module = dotted[0]
            if module is None:
                apart = _APART_BEFORE.search(before)
                if apart is not None and not keyword.iskeyword(apart.group(1)):
                    module = apart.group(1)
            if module is not None:
                yield module, offset, line.strip()[:120]
                break


def _string_mentions(tree: ast.AST, functions: frozenset[str]) -> Iterator[tuple[str | None, int, str]]:
    """``(module, line, text)`` for each string constant of ``tree`` naming one of
    ``functions`` with a module's path in any separator form (:func:`line_mentions`), and
    each constant holding a name alone beside another constant of the same line holding a
    dotted module path (``M, F = "verl.trainer.constants_ppo", "get_..."``); docstrings and
    names only read (:func:`_read_keys`) aside, as :func:`_qualified_mentions` skips them."""
    docstrings = {
        id(n.body[0].value) for n in ast.walk(tree)
        if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
        and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)
    }
    skip = docstrings | _read_keys(tree)
    alone: dict[int, str] = {}
    modules: dict[int, str] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) or id(node) in skip:
            continue
        value = node.value.strip()
        if value in functions:
            alone[node.lineno] = value
        elif _MODULE_NAME.fullmatch(value) and "." in value:
            modules.setdefault(node.lineno, value)
        for module, offset, text in line_mentions(node.value, functions):
            yield module, node.lineno + offset, text
    for line, name in sorted(alone.items()):
        if line in modules:
            yield modules[line], line, f"{modules[line]}, {name}"


def _first_patcher(candidates: Sequence[str], read) -> tuple[str, int] | None:
    """``(display path, line)`` of the repository's first dynamic patcher
    (:func:`dynamic_patchers`), in the listing's order, or ``None``."""
    for path, shown, data in files_holding(
        candidates, lambda name: name.endswith(_PYTHON_SUFFIXES), _BY_NAME_WORDS, _MAX_PATCHER_BYTES, read
    ):
        if _PATCHER_BYTES.search(data) is None or _BY_NAME_BYTES.search(data) is None:
            continue
        tree = parse_file(path, data)
        lines = dynamic_patchers(tree) if tree is not None else []
        if lines:
            return shown, lines[0]
    return None


def dynamic_patch_targets(
    candidates: Sequence[str], functions: frozenset[str], read
) -> list[tuple[str | None, str, int, str, str]]:
    """The strings naming the runtime function that a dynamic patcher of the repository may
    be given (trial 26h, H-B5: ``@override("verl.trainer.constants_ppo:get_ppo_ray_runtime_env")``
    whose body runs ``setattr(importlib.import_module(module), attr, fn)``).

    Rule: a function of the repository that sets an attribute named at run time on a module
    obtained by name (:func:`dynamic_patchers`) replaces whatever its caller names. When the
    repository holds one, any file of the repository may hand it the function's name
    (trial fresh40, B5: a ``pytest.ini`` option a conftest reads with ``getini``, a root
    ``doubles.json``, ``"verl.trainer.constants_ppo get_...".split()``), so each of these
    names it: a string constant of a Python file naming the function with its module
    (:func:`_qualified_mentions`, :func:`_string_mentions`: any separator), and a line of
    any other file but documentation prose, compiled sources and binary data
    (:func:`_may_name_target`) doing so (:func:`line_mentions`). Which string reaches which
    patcher is not followed (decorators, tables, option readers, other files):
    conservatively, both existing in the repository is enough. The sibling of the override
    tables in data files (:func:`ppo_migrate.rules.data_targets.data_targets`, trial 26g,
    G-B13).

    Args:
        candidates: the files naming the runtime function (the prefilter's); the repository
            is the one the look-out for doubles walks
            (:func:`ppo_migrate.project.repository.files_holding`), each of its files read
            once through ``read`` and only when a patcher was found.
        functions: the function's names (:attr:`Names.functions`).
        read: the run's reader (:meth:`ppo_migrate.project.snapshot.Snapshot.read_bytes`).

    Returns:
        ``(module, path, line, kind, what)`` as :func:`target_patches` collects them, one per
        string or line, its reason naming the first patcher's ``path:line``; ``[]`` when the
        repository holds no such string or no patcher. Never raises ``OSError``.
    """
    if not functions:
        return []
    patcher = _first_patcher(candidates, read)
    if patcher is None:
        return []
    functions = frozenset(functions)
    words = [f.encode() for f in sorted(functions)]
    mentions: list[tuple[str | None, str, int, str]] = []
    done: set[str] = set()

    def python(path: str, shown: str, data: bytes) -> None:
        tree = parse_file(path, data)
        if tree is None:
            return
        seen: set[int] = set()
        for module, line, text in [*_qualified_mentions(tree, functions), *_string_mentions(tree, functions)]:
            if line not in seen:
                seen.add(line)
                mentions.append((module, shown, line, text))

    for path in candidates:
        if not path.endswith(_PYTHON_SUFFIXES):
            continue
        try:
            data = read(path)
        except (OSError, ValueError):
            continue
        done.add(os.path.abspath(path))
        if any(w in data for w in words):
            python(path, path, data)
    for path, shown, data in files_holding(candidates, _may_name_target, words, _MAX_PATCHER_BYTES, read):
        if path in done:
            continue
        if path.endswith(_PYTHON_SUFFIXES):
            python(path, shown, data)
        elif len(data) <= MAX_DATA_BYTES and b"\0" not in data:
            text = decode_text(data, "replace")
            for module, offset, written in line_mentions(text, functions):
                mentions.append((module, shown, offset + 1, written))
    if not mentions:
        return []
    where = f"{patcher[0]}:{patcher[1]}"
    return [
        (module, path, line, "patched" if _is_test_file(path) else "rebound", (
            f"names the runtime function (`{text}`) where a patcher setting attributes named at run "
            f"time on modules imported by name ({where}) may be given it, to replace it with one "
            "taking no config"
        ))
        for module, path, line, text in mentions
    ]


#: bytes a string constant holding statements spells besides a name (:func:`_may_hold_code`)
_CODE_STRING_MARKS = (b'"""', b"'''", b"\\n", b";")


def _may_hold_code(data: bytes, functions: Sequence[bytes], spelled: Sequence[bytes] | None = None) -> bool:
    """Whether a Python file's bytes may hold a string of code naming the runtime function
    (:func:`ppo_migrate.rules.embedded_python.string_code`): a name of ``functions`` and a
    triple quote, an escaped line break or a ``;``, or ``def NAME`` (a fake module's text);
    with ``spelled`` (the names that code must spell: :meth:`Names.all`, encoded), also a
    string literal that may hold one of them and a mark of code (:func:`_code_strings`).
    A byte test: the tree is walked only for such a file.

    Args:
        data: the file's bytes.
        functions: the runtime function's names (:attr:`Names.functions`), encoded.
        spelled: the names :func:`~ppo_migrate.rules.embedded_python.string_code` is given,
            encoded; ``None``: the literals are not read (the file's bytes decide).

    Raises:
        Nothing.
    """
    if not any(f in data for f in functions):
        return False
    if not (any(m in data for m in _CODE_STRING_MARKS) or any(b"def " + f in data for f in functions)):
        return False
    return spelled is None or _code_strings(data, spelled)


#: a comment, or a string literal from its opening quote (its prefix, ``rb``/``f``, before
#: it) to its closing one, its body in the group of its quotes: the lexical analysis of
#: the language reference ("String and Bytes literals": a backslash escapes the next
#: character, a raw string's too; a short string ends at its line's end; "Comments")
_LITERAL = lazy_pattern(
    rb"#[^\r\n]*"
    rb'|"""((?:[^"\\]|\\.|"(?!""))*)"""'
    rb"|'''((?:[^'\\]|\\.|'(?!''))*)'''"
    rb'|"((?:[^"\\\r\n]|\\.)*)"'
    rb"|'((?:[^'\\\r\n]|\\.)*)'",
    re.DOTALL,
)
#: what may stand between two string literals Python joins into one constant (``"a" "b"``,
#: over lines in brackets, after a ``\`` continuation): blanks, line breaks, backslashes;
#: the next literal's prefix (``f``, ``rb``) is cut first
_JOINING = b" \t\f\r\n\\"
#: bytes a code string's value holds (:data:`ppo_migrate.rules.embedded_python._CODE_MARKS`
#: as a literal's body spells them; a body with an escape sequence is read as anything)
_CODE_BODY_MARKS = (b"\n", b";", b"=", b"def ", b"import ")
#: f-strings nest quotes like their own from Python 3.12 (PEP 701): a literal cut there
#: is read as anything
_NESTED_FSTRINGS = sys.version_info >= (3, 12)


def _code_strings(data: bytes, spelled: Sequence[bytes]) -> bool:
    """Whether a Python file's string literals may make a constant that spells one of
    ``spelled`` and a mark of code (:data:`_CODE_BODY_MARKS`): what
    :func:`~ppo_migrate.rules.embedded_python.string_code` asks of each string constant of
    the tree, asked of the literals' bytes before the file is parsed (benchmark item 12:
    every module has docstrings and names the function, so the serial look-out before
    the pool parsed and walked every module for strings of code none held). Literals
    Python joins (``"get_" "f"``) are read together; a literal holding a backslash (an
    escape may spell anything), an f-string holding ``{`` where quotes nest (Python
    3.12) and a file declaring its encoding (its bytes need not be ASCII's) answer
    ``True``: generous, as a parse too many costs time only.

    Args:
        data: the file's bytes.
        spelled: the names a code string must spell, encoded.

    Raises:
        Nothing.
    """
    second = data.find(b"\n", data.find(b"\n") + 1)
    if b"coding" in (data[:second] if second >= 0 else data):
        return True
    bodies: list[bytes] = []
    end = -1  # where the literals being joined end (-1: none)

    def code(parts: list[bytes]) -> bool:
        body = parts[0] if len(parts) == 1 else b"".join(parts)
        return any(n in body for n in spelled) and any(m in body for m in _CODE_BODY_MARKS)

    for m in _LITERAL.finditer(data):
        start = m.start()
        if end >= 0 and data[end:start].rstrip(b"rRbBuUfF").strip(_JOINING):
            if code(bodies):
                return True
            bodies, end = [], -1
        group = m.lastindex
        if group is None:  # a comment: between joined literals, it keeps them joined
            if end >= 0:
                end = m.end()
            continue
        body = m.group(group)
        if b"\\" in body:
            return True
        if _NESTED_FSTRINGS and b"{" in body and b"f" in data[max(start - 2, 0):start].lower():
            return True
        bodies.append(body)
        end = m.end()
    return bool(bodies) and code(bodies)


def _string_code_patches(
    path: str, tree: ast.AST, names: Names, constants: dict[str, tuple[str, str, int]],
    used: set[tuple[str, int]] | None,
) -> list[tuple[str | None, str, int, str, str]]:
    """The replacements in the strings of Python code of a module (trial 26g: G-B6, G-B7,
    G-B8): each constant :func:`ppo_migrate.rules.embedded_python.string_code` reads is
    code the project may run (by ``exec``, as a ``.pth`` a conftest writes, as a module a
    fixture writes and puts on ``sys.path``), read with the table as test code is; and a
    function of the runtime function's names defined there without a ``config`` parameter
    (nor ``**kwargs``) is a definition a call may reach: module ``"*"`` (any).

    Args:
        path: the module's path.
        tree: its tree.
        names: the names looked for.
        constants: :func:`target_patches`' constants holding targets.
        used: :func:`_patches_in`'s set of constants a patch read.

    Returns:
        ``(module, path, line, kind, what)`` as :func:`target_patches` collects them; kind
        ``"patched"`` in a test file, else ``"rebound"``.
    """
    test = _is_test_file(path)
    out: list[tuple[str | None, str, int, str, str]] = []
    strings = [n for n in _nodes(tree).generic if isinstance(n, ast.Constant)]
    for code, line in string_code(tree, names.all(), strings):
        for module, at, kind, what in _patches_in(code, names, constants, True, used=used):
            module = None if module in ("<own>", "<package>") else module
            out.append((module, path, at, kind if test else "rebound", f"in a string of Python code: {what}"))
        for node in code.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names.functions:
                a = node.args
                params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
                if "config" not in params and a.kwarg is None:
                    out.append(("*", path, node.lineno, "patched" if test else "rebound", (
                        f"defines a `{node.name}` taking no config in a string of Python code "
                        f"(line {line}), which may run in place of verl's"
                    )))
    return out


def _absolute(path: str) -> str:
    return os.path.abspath(path)


def _spelled(code, words: Sequence[bytes], read) -> str:
    """The first of ``words`` on the line of ``code`` (an :class:`ppo_migrate.rules.embedded_python.Embedded`)."""
    try:
        lines = read(_absolute(code.path)).split(b"\n")
    except (OSError, ValueError):
        return ""
    text = lines[code.line - 1] if 0 < code.line <= len(lines) else b""
    return next((w for w in words if w in text), words[0] if words else b"").decode("utf-8", "replace")


def _doctest_files(candidates: Sequence[str], words: Sequence[bytes], read) -> list[tuple[str, bytes]]:
    """The repository's text files pytest runs as doctests (:func:`doctest_globs` of the
    calling files' folders) that hold an example (``>>>``) and spell one of ``words``, with
    their bytes: ``(display path, bytes)``, in the listing's order. The listing is the
    run's root's (:func:`ppo_migrate.project.tree.repository_listing`, walked once)."""
    folders = sorted({os.path.dirname(os.path.abspath(p)) for p in candidates})
    if not folders:
        return []
    root = current().root_of(folders[0])
    if root is None:
        return []
    globs = {os.path.basename(g) for g in doctest_globs(folders)}
    listing = repository_listing(root)
    out: list[tuple[str, bytes]] = []
    cwd = os.getcwd()
    for path in listing.files(lambda n: not n.endswith(".py") and any(fnmatch.fnmatch(n, g) for g in globs)):
        try:
            data = read(path)
        except (OSError, ValueError):
            continue
        if b">>>" in data and any(w in data for w in words):
            shown = os.path.relpath(path, cwd) if path.startswith(cwd.rstrip(os.sep) + os.sep) else path
            out.append((shown, data))
    return out


#: a star import (``from .legacy import *``): it binds every public name of its module
_STAR = b"import *"


def _exported_names(tree: ast.Module) -> tuple[dict[str, ast.stmt], list[ast.ImportFrom], bool]:
    """``(bound, stars, listed)`` of a module a star import reads: each public name it binds
    at module level with the statement binding it last (``__all__``'s names only, when it is
    a literal list or tuple: ``listed``), and its own star imports (which may bind more)."""
    bound: dict[str, ast.stmt] = {}
    stars: list[ast.ImportFrom] = []
    listed: set[str] | None = None
    for stmt in _statements(tree.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound[stmt.name] = stmt
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                if alias.name == "*":
                    stars.append(stmt)  # type: ignore[arg-type]
                else:
                    bound[alias.asname or alias.name.split(".")[0]] = stmt
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                for t in _flat(target):
                    if isinstance(t, ast.Name):
                        if t.id == "__all__" and isinstance(stmt.value, (ast.List, ast.Tuple)):
                            items = {_string(e) for e in stmt.value.elts}
                            listed = (listed or set()) | {i for i in items if i} if isinstance(
                                stmt, ast.AugAssign) else {i for i in items if i}
                        bound[t.id] = stmt
        elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
            targets = [stmt.target] if isinstance(stmt, (ast.For, ast.AsyncFor)) else [
                i.optional_vars for i in stmt.items if i.optional_vars is not None]
            for target in targets:
                for t in _flat(target):
                    if isinstance(t, ast.Name):
                        bound[t.id] = stmt
    if listed is not None:
        return {n: bound.get(n, tree) for n in listed}, [], True
    return {n: s for n, s in bound.items() if not n.startswith("_")}, stars, False


def star_rebindings(path: str, tree: ast.Module, names: Names, read=None, depth: int = 3) -> list:
    """``(module, path, line, kind, what)`` for each module-level star import of ``path``
    that comes after the module binds one of the function's names and may rebind it: a
    module of the project binding that name to anything but an import of the function
    (``from .legacy import *`` where ``legacy.py`` defines a ``get_...`` of its own), or a
    module whose names cannot be told (not found, its own star imports unresolved). The
    calls going through the module (``from mypkg import get_...``) may then reach the
    star-imported callable, which may take no config: their fixes are unsafe.

    Args:
        path: the module's file.
        tree: its parsed tree.
        names: the function's names (:func:`through_names`).
        read: ``path -> bytes`` (the run's snapshot's, by default).
        depth: how many star imports of star imports are followed.
    """
    if read is None:
        read = current().read_bytes
    module = module_name(path)
    package = module_package(path)
    # the folder the module's top package sits in: absolute imports of the project from there
    top = os.path.dirname(os.path.abspath(path))
    for _ in range(len(module.split(".")) - (0 if os.path.basename(path) == "__init__.py" else 1)):
        top = os.path.dirname(top)
    roots = [top]
    tops = {m.split(".", 1)[0] for m in names.target_modules}
    import sys as _sys

    def verdict(base: str, wanted: set[str], level: int) -> str | None:
        """``"binds"``, ``"may"`` or ``None``: whether ``import *`` of ``base`` rebinds one of
        ``wanted`` to something other than the function."""
        head = base.split(".", 1)[0]
        if head in tops or head in _sys.stdlib_module_names:
            return None  # verl's own module: its names are the function's; the stdlib's: not these
        found = next((os.fspath(f) for f in (module_file(r, base) for r in roots) if f is not None), None)
        if found is None:
            return "may"
        try:
            star_tree = parse_file(found, read(found))
        except (OSError, ValueError):
            star_tree = None
        if star_tree is None:
            return "may"
        bound, stars, _ = _exported_names(star_tree)
        for name in wanted & bound.keys():
            stmt = bound[name]
            if isinstance(stmt, ast.ImportFrom) and not stmt.level and stmt.module and any(
                _holds_target(stmt.module, [m]) or m == stmt.module for m in names.target_modules
            ):
                continue  # the function itself, re-exported
            if isinstance(stmt, ast.Assign) and _last(stmt.value) in names.functions and isinstance(
                stmt.value, (ast.Name, ast.Attribute)
            ):
                continue  # an alias of it (``make_env = get_...``)
            return "binds"
        rest = wanted - bound.keys()
        if not rest or not stars:
            return None
        if level >= depth:
            return "may"
        star_package = module_package(found)
        for star in stars:
            inner = resolve_relative("." * star.level + (star.module or ""), star_package)
            answer = verdict(inner, rest, level + 1) if inner else "may"
            if answer:
                return answer
        return None

    out = []
    bound_here: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom):
            if any(a.name == "*" for a in stmt.names):
                if not bound_here:
                    continue
                base = resolve_relative("." * stmt.level + (stmt.module or ""), package)
                answer = verdict(base, set(bound_here), 0) if base else "may"
                if answer is not None:
                    shown = "." * stmt.level + (stmt.module or "")
                    what = (
                        f"star-imports `{shown}`, which rebinds the runtime function's name to a "
                        "callable that may take no config"
                        if answer == "binds" else
                        f"star-imports `{shown}`, whose names cannot be told: it may rebind the "
                        "runtime function's name to a callable taking no config"
                    )
                    out.append((module, path, stmt.lineno, "rebound", what))
                continue
            bound_here.update(a.asname or a.name for a in stmt.names if (a.asname or a.name) in names.functions)
        elif isinstance(stmt, ast.Import):
            continue
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:
                if isinstance(t, ast.Name) and t.id in names.functions:
                    bound_here.add(t.id)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound_here.discard(stmt.name)
    return out


def _module_names(path: str) -> set[str]:
    """Every name the module at ``path`` may be imported by (its own, and under the
    folders above its outermost package: :func:`_run_modules`)."""
    return _run_modules([path])


#: callables loading the module a string names: ``importlib.import_module("pkg.lib")``,
#: ``__import__("pkg.lib")``
_LOADERS = frozenset({"import_module", "__import__"})
_STATEMENT_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def _statements(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Every statement under ``nodes``, nested ones included (a function's, a branch's,
    a handler's): imports are statements, so no expression is visited."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        for field in _STATEMENT_FIELDS:
            stack.extend(getattr(node, field, ()))


def loaded_modules(tree: ast.AST, package: tuple[str, ...], data: bytes = b"") -> set[str]:
    """The modules running ``tree`` may load, with every package above each: its imports
    anywhere (relative ones resolved against ``package``) and, when ``data`` (the file's
    bytes) spells a loader, the dotted names given to ``importlib.import_module`` or
    ``__import__``.

    Args:
        tree: a parsed module.
        package: its package's parts (:func:`ppo_migrate.project.modules.module_package`).
        data: its bytes, to skip the walk of its expressions when no loader is named.

    Returns:
        Dotted module names: ``import a.b``: ``a``, ``a.b``; ``from a.b import c``: ``a``,
        ``a.b``, ``a.b.c`` (``c`` may be a module); ``import_module("a.b")``: ``a``, ``a.b``.
    """
    from ppo_migrate.project.modules import resolve_relative

    out: set[str] = set()
    for node in _statements(getattr(tree, "body", ())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                out.update(_prefixes(alias.name))
        elif isinstance(node, ast.ImportFrom):
            base = resolve_relative("." * node.level + (node.module or ""), package)
            if base:
                out.update(_prefixes(base))
                out.update(f"{base}.{a.name}" for a in node.names if a.name != "*")
    if b"import_module" in data or b"__import__" in data:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and node.args and _last(node.func) in _LOADERS:
                text = _string(node.args[0])
                if text and all(part.isidentifier() for part in text.split(".")):
                    out.update(_prefixes(text))
    return out


def reachable_files(
    calling: Sequence[str], others: Sequence[str], target_modules: Iterable[str] = (), read=None,
    *, rounds: int = 8, run: Sequence[str] = (),
) -> list[str]:
    """Which of ``others`` a test process exercising ``calling``'s calls may load: where a
    replacement of the function reaches those calls from (a run on a few files, the
    repository's other files: :func:`ppo_migrate.project.repository.repository_files`).

    A test replaces the function and then runs the call: it loads the calling module,
    itself or through a module that does (``test_x`` imports ``main``, which imports
    ``launcher``). So the files that count are the *importers* of the calling modules,
    followed upwards (an importer's own importers; :func:`loaded_modules`, a file parsed
    only when its import statements spell such a module's last name:
    :data:`IMPORT_STATEMENT`); the
    modules an importer loads in turn (a helper installing a fake, a file holding a
    patch target in a constant); each ``conftest.py`` in a folder at or above a calling
    file, an importer or a file of the run (``run``), with what it loads and the plugins
    it names; and a fake package (``tests/fakes/verl/...``) under the same folder of test
    doubles as one of those. Strings naming the function in a file no test of the call
    loads cannot reach it: the tool's own tests, a benchmark; nor can a file under a
    calling module's own name (another copy of it: Python loads one of the two).

    The ``conftest.py`` rule is pytest's own (its documentation, "conftest.py: local
    per-directory plugins"; ``_pytest.config.PytestPluginManager._getconftestmodules``):
    a test's collection loads every ``conftest.py`` in the test's folder and in each
    folder above it up to the rootdir (``confcutdir``), whether or not another file
    imports the calling module. A test exercising the call may be a file of the run
    (``ppo-migrate check services`` run inside a monorepo, or a hook's staged
    ``app/launcher.py tests/unit/test_l.py``): a ``conftest.py`` above the analysed folder
    (the repository root's) is loaded by it and is not among the run's files (trial 26h,
    H-B4). So it counts with no importer among ``others``; which of the files counted
    really replace the function reaching the call is :func:`target_patches`' question.

    Args:
        calling: the files whose calls may be reached (the run's candidates).
        others: files beyond the run (display paths).
        target_modules: the modules holding the function (``verl.trainer.constants_ppo``):
            a file at such a path under a folder of test doubles is a fake package.
        read: ``path -> bytes`` (the run's snapshot's, by default); a file that
            cannot be read, decoded or parsed loads nothing (it cannot run either).
        rounds: how many times importers are followed upwards, and loaded modules
            downwards, at most.
        run: the run's other files (display paths; the calling files need not be among
            them): a ``conftest.py`` or a fake package above one of them counts.

    Returns:
        The reachable files of ``others``, in their order.
    """
    if not calling or not others:
        return []
    if read is None:
        read = current().read_bytes  # each file read once a run

    reach: set[str] = set()
    for path in calling:
        reach |= _module_names(path)
    # a file under a calling module's own name is another copy of it (a sample tree beside
    # the migrated one), not a file that may load it: Python loads one of the two
    names_of = {path: names for path in others if not ((names := _module_names(path)) & reach)}
    others = [path for path in others if path in names_of]
    loads: dict[str, set[str]] = {}

    def loads_of(path: str) -> set[str]:
        if path not in loads:
            try:
                data = read(path)
            except (OSError, ValueError):
                data = None
            tree = parse_file(path, data) if data is not None else None
            loads[path] = set() if tree is None else loaded_modules(tree, module_package(path), data)
        return loads[path]

    # upwards: the importers of what reaches the call (the run's reference index answers
    # which files import a module; what a file loads is this module's rule)
    index = current_references()
    found: set[str] = set(index.importers_of(reach, others, loads_of, names_of.__getitem__, rounds=rounds))
    by_module: dict[str, str] = {}
    for path in others:
        for name in names_of[path]:
            by_module.setdefault(name, path)

    def downwards(todo: list[str]) -> None:
        for _ in range(rounds):  # what the importers load in turn
            more = []
            for path in todo:
                for module in loads_of(path):
                    other = by_module.get(module)
                    if other is not None and other not in found:
                        found.add(other)
                        more.append(other)
            if not more:
                break
            todo = more

    # the calling modules' own imports too: a module the call goes through may rebind the
    # function (``exec("get_... = lambda: {}", globals())`` in ``app/shim.py``)
    downwards([*found, *calling])
    # ``conftest.py`` above a reachable file or a file of the run (pytest loads it before
    # the tests below it, importers or not: trial 26h, H-B4); a fake package beside them
    folders = {os.path.dirname(os.path.abspath(p)) for p in [*found, *calling]}
    above = _folders_above([*folders, *{os.path.dirname(os.path.abspath(p)) for p in run}])
    tails = [m.replace(".", "/") for m in target_modules]

    def near(top: str) -> bool:
        return top in above

    conftests = []
    for path in others:
        if path in found:
            continue
        absolute = os.path.abspath(path)
        if os.path.basename(absolute) == "conftest.py":
            if near(os.path.dirname(absolute)):
                found.add(path)
                conftests.append(path)
            continue
        norm = absolute.replace(os.sep, "/")
        tail = next((t for t in tails if norm.endswith((f"/{t}.py", f"/{t}/__init__.py"))), None)
        if tail is None:
            continue
        parts = norm[: norm.rindex("/" + tail)].split("/")
        doubles = next((i for i, part in enumerate(parts) if part in _DOUBLES_FOLDERS), None)
        if doubles is not None and near(os.sep.join(parts[: doubles + 1])):
            found.add(path)
    # what a conftest counted loads (a helper installing the fake)
    downwards(conftests)
    # pytest plugins: ``pytest_plugins = ["tests.plugins.stub"]`` in a conftest (or a module
    # it names) and ``-p tests.plugins.stub`` in the ini options load a module no import
    # statement names, whose fixture may patch the function for every test
    plugins = _ini_plugins(folders)
    checked: set[str] = set()
    for _ in range(rounds):
        for path in [*calling, *found]:
            if path not in checked:
                checked.add(path)
                plugins |= _declared_plugins(path, read)
        more = [by_module[m] for m in plugins if m in by_module and by_module[m] not in found]
        if not more:
            break
        found.update(more)
        downwards(more)
    return [p for p in others if p in found]


def _folders_above(folders: Iterable[str]) -> frozenset[str]:
    """Every folder at or above one of ``folders`` (absolute, normalised): the folders whose
    ``conftest.py`` pytest loads for a test in one of them (:func:`reachable_files`). Each
    folder is visited once, however many of ``folders`` share it (the run's files of a big
    tree share their ancestors)."""
    out: set[str] = set()
    for folder in folders:
        while folder not in out:
            out.add(folder)
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    return frozenset(out)


#: ``-p NAME`` / ``-pNAME`` / ``"-p", "NAME"`` in a file of pytest's options
_PLUGIN_OPTION = lazy_pattern(r"""(?<![\w-])-p(?:[ \t]+|['"],?[ \t]*['"]|)([\w.:]+)""")
#: the files pytest reads its ini options from
_INI_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini")


def _ini_plugins(folders: Iterable[str]) -> set[str]:
    """The modules ``-p NAME`` names in the ini files (``pytest.ini``, ``pyproject.toml``,
    ``setup.cfg``, ``tox.ini``) of ``folders`` and the folders above them, up to a git
    top level (:func:`ppo_migrate.project.root.up_to_git_top`); ``-p no:NAME`` left out. Generous: a name too many only
    makes a file count."""
    out: set[str] = set()
    for text in _ini_texts(folders):
        if "-p" in text:
            out.update(
                m.group(1).rstrip(".") for m in _PLUGIN_OPTION.finditer(text)
                if not m.group(1).startswith("no:") and ":" not in m.group(1)
            )
    return out


def _ini_texts(folders: Iterable[str]) -> Iterator[str]:
    """The text (first megabyte, UTF-8 with errors replaced) of each pytest ini file
    (:data:`_INI_FILES`) in ``folders`` and the folders above them, up to a git top level
    (:func:`ppo_migrate.project.root.up_to_git_top`), each folder once, read through the
    run's snapshot; a file that cannot be read is skipped."""
    read_bytes = current().read_bytes
    seen: set[str] = set()
    for folder in folders:
        for here in up_to_git_top(folder):
            if here in seen:
                break
            seen.add(here)
            for name in _INI_FILES:
                try:
                    yield read_bytes(os.path.join(here, name))[: 1 << 20].decode("utf-8", "replace")
                except (OSError, ValueError):
                    continue


def _declared_plugins(path: str, read) -> set[str]:
    """The modules a module-level ``pytest_plugins = "a.b"`` / ``["a.b", ...]`` of ``path``
    names (in a ``conftest.py``, or in a plugin module it names)."""
    try:
        data = read(path)
    except (OSError, ValueError):
        return set()
    if b"pytest_plugins" not in data:
        return set()
    return {text for _, text in _plugins_named(getattr(parse_file(path, data), "body", ()))}


def _plugins_named(body: list[ast.stmt]) -> Iterator[tuple[int, str]]:
    """``(line, module)`` for each module a module-level ``pytest_plugins = "a.b"`` /
    ``["a.b", ...]`` (also annotated or ``+=``) among the statements ``body`` names."""
    for node in body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == "pytest_plugins" for t in targets):
            items = value.elts if isinstance(value, (ast.List, ast.Tuple, ast.Set)) else [value]
            for item in items:
                if text := _string(item):
                    yield getattr(item, "lineno", node.lineno), text


#: the reason of a test plugin the tests load that neither the repository nor its own
#: environment holds (trial 26e, H)
_UNREAD_PLUGIN = (
    "loads the test plugin `{module}`, which is not in the repository; if it replaces the "
    "runtime function, passing the config fails"
)
#: pytest's own plugins (``_pytest.<name>``; ``-p pytester``, ``pytest_plugins = ["pytester"]``)
_PYTEST_OWN_PLUGINS = frozenset({
    "assertion", "cacheprovider", "capture", "debugging", "doctest", "faulthandler", "fixtures",
    "freeze_support", "helpconfig", "junitxml", "legacypath", "logging", "lsof", "main", "mark",
    "monkeypatch", "nose", "pastebin", "pytester", "pytester_assertions", "python", "python_path",
    "recwarn", "reports", "runner", "setuponly", "setupplan", "skipping", "stepwise", "terminal",
    "threadexception", "tmpdir", "unittest", "unraisableexception", "warnings", "pytest",
})
#: published plugins known to patch nothing of a project's (besides ``pytest_*``/``pytest-*``)
_PUBLISHED_PLUGINS = frozenset({"xdist", "anyio", "hypothesis", "pytest_mock", "_pytest"})


def _may_be_project_plugin(module: str) -> bool:
    """Whether a plugin module the tests load may be the project's own (or its lab's):
    not ``no:NAME``, not one of pytest's own (:data:`_PYTEST_OWN_PLUGINS`, anything
    under ``_pytest``), not a standard-library module (``sys.stdlib_module_names``), not a
    published plugin (a top-level module starting ``pytest_``/``pytest-``, or one of
    :data:`_PUBLISHED_PLUGINS`). Source: the decided rule of trial 26e, H."""
    import sys

    if not module or ":" in module:
        return False
    top = module.split(".", 1)[0]
    if module in _PYTEST_OWN_PLUGINS or top in _PUBLISHED_PLUGINS:
        return False
    if top in getattr(sys, "stdlib_module_names", ()):
        return False
    return not top.startswith(("pytest_", "pytest-"))


def _plugin_loads(paths: Iterable[str], read) -> Iterator[tuple[str, int, str]]:
    """``(file, line, module)`` for each plugin module the tests load: ``pytest_plugins``
    and ``from NAME import *`` at module level of each ``conftest.py`` of ``paths``, and
    ``-p NAME`` in the pytest ini files (:data:`_INI_FILES`) of their folders and the folders
    above them, up to a git top level.

    Args:
        paths: the files of the run (display paths).
        read: ``path -> bytes``; a file that cannot be read, decoded or parsed loads nothing.
    """
    folders: set[str] = set()
    for path in paths:
        path = os.fspath(path)
        folders.add(os.path.dirname(os.path.abspath(path)))
        if os.path.basename(path) != "conftest.py":
            continue
        try:
            data = read(path)
        except (OSError, ValueError):
            continue
        if b"pytest_plugins" not in data and _STAR not in data:
            continue
        body = getattr(parse_file(path, data), "body", ())
        stars = [
            (node.lineno, node.module) for node in body
            if isinstance(node, ast.ImportFrom) and not node.level and node.module
            and any(a.name == "*" for a in node.names)
        ]
        for line, text in sorted([*stars, *_plugins_named(body)], key=lambda found: found[0]):
            yield path, line, text
    seen: set[str] = set()
    for folder in sorted(folders):
        for here in up_to_git_top(folder):
            if here in seen:
                break
            seen.add(here)
            for name in _INI_FILES:
                ini = os.path.join(here, name)
                try:
                    text = read(ini)[: 1 << 20].decode("utf-8", "replace")
                except (OSError, ValueError):
                    continue
                if "-p" not in text:
                    continue
                shown = os.path.relpath(ini) if not os.path.relpath(ini).startswith("..") else ini
                for start, end in _pytest_sections(name, text):
                    for m in _PLUGIN_OPTION.finditer(text, start, end):
                        yield shown, text.count("\n", 0, m.start()) + 1, m.group(1).rstrip(".")


#: the section holding pytest's options in each ini file (``None``: the whole file)
_PYTEST_SECTIONS = {
    "pytest.ini": None, ".pytest.ini": None, "tox.ini": "pytest", "setup.cfg": "tool:pytest",
    "pyproject.toml": "tool.pytest.ini_options",
}
#: a section header at the start of a line: ``[pytest]``, ``[tool.pytest.ini_options]``
_SECTION_HEADER = lazy_pattern(r"^[ \t]*\[([^\]\n]+)\][ \t]*(?:#.*)?$", re.MULTILINE)


def _pytest_sections(name: str, text: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of the part of ini file ``name``'s ``text`` pytest reads
    its options from (:data:`_PYTEST_SECTIONS`): a ``mkdir -p build`` of a script in
    ``pyproject.toml`` names no plugin."""
    section = _PYTEST_SECTIONS.get(name)
    if section is None:
        return [(0, len(text))]
    headers = list(_SECTION_HEADER.finditer(text))
    return [
        (h.end(), headers[i + 1].start() if i + 1 < len(headers) else len(text))
        for i, h in enumerate(headers) if h.group(1).strip().strip('"') == section
    ]


def _plugin_file(module: str, bases: Iterable[str], read) -> str | None:
    """The file of ``module`` (``a/b.py`` or ``a/b/__init__.py``) under one of ``bases``
    that ``read`` can read, or ``None``."""
    tail = module.replace(".", os.sep)
    for base in bases:
        for rel in (os.path.join(tail, "__init__.py"), tail + ".py"):  # the package first, as Python
            candidate = os.path.join(base, rel)
            try:
                read(candidate)
            except (OSError, ValueError):
                continue
            return candidate
    return None


def external_plugins(
    paths: Sequence[str], read, skip: Iterable[str] = (),
) -> list[tuple[str, int, str, str | None]]:
    """The plugin modules the tests load (:func:`_plugin_loads`) that the repository does
    not hold: ``(file, line, module, found)``, ``found`` the module's file in one of the
    repository's own environments (``.venv``/``venv``/``.direnv`` site-packages:
    :func:`ppo_migrate.project.tree._environment_sites`) or ``None`` (unread). pytest's own
    plugins, standard-library modules and published plugins are left out
    (:func:`_may_be_project_plugin`). Source: trial 26e, H (decided rule).

    Args:
        paths: the files of the run (display paths).
        read: ``path -> bytes`` (the run's snapshot's); raises ``OSError``/``ValueError``
            for a file that is not there.
        skip: top-level packages left out (verl's: the targets' own modules, whose star
            imports :func:`star_rebindings` reads).
    """
    from ppo_migrate.project.tree import ENVIRONMENT_NAMES, MAX_FOLDER_ENTRIES, Listing, _environment_sites, _scan

    skip = set(skip)
    loads = [
        (f, n, m) for f, n, m in _plugin_loads(paths, read)
        if _may_be_project_plugin(m) and m.split(".", 1)[0] not in skip
    ]
    if not loads:
        return []
    own = {n for path in paths for n in _module_names(os.fspath(path))}
    out: list[tuple[str, int, str, str | None]] = []
    for path, line, module in loads:
        if module in own:
            continue
        tops = list(up_to_git_top(os.path.dirname(os.path.abspath(path))))
        if _plugin_file(module, [*tops, *(os.path.join(t, "src") for t in tops)], read) is not None:
            continue  # the repository's own (beyond the run): read by :func:`reachable_files`
        environments = tuple(
            os.path.join(top, name) for top in tops for name in sorted(ENVIRONMENT_NAMES)
            if current().fs.is_dir(os.path.join(top, name))
        )
        sites = [
            site for _, site in _environment_sites(
                Listing(tops[-1], {}, environments=environments), lambda f: _scan(f, MAX_FOLDER_ENTRIES)[:2]
            )
        ]
        found = _plugin_file(module, sites, read)
        if found is not None:
            found = os.path.relpath(found) if not os.path.relpath(found).startswith("..") else found
        out.append((path, line, module, found))
    return out


def _prefixes(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:k]) for k in range(1, len(parts) + 1)]


def _holds_target(module: str, target_modules: Iterable[str]) -> bool:
    """Whether ``module`` is (or is a package above) a module holding the function."""
    return any(t == module or t.startswith(module + ".") for t in target_modules)


def archive_doubles(
    candidates: Sequence[str], targets: Iterable[str], respect_gitignore: bool = True
) -> list[tuple[str, str, int, str, str]]:
    """``("*", path, line, "patched", what)`` for each archive in a folder of test doubles
    that a file of the repository puts on ``sys.path`` (``sys.path.insert(0,
    str(Path(__file__).parent / "fixtures" / "verl_stub.zip"))`` in a conftest; any form
    :func:`ppo_migrate.project.import_roots.declared_roots` reads) and whose copy of a
    target's module defines the function without a ``config`` parameter, or that cannot be
    read: a fake package as :func:`_fake_definitions` finds in a folder, zipped (trial 26f,
    g4_fake_verl_zip_on_path). The callee in effect leaves such a copy to this table
    (:meth:`ppo_migrate.rules.signatures.SignatureResolver._repository_copies`).

    Args:
        candidates: the files naming the runtime function; the repository is their root's
            (:meth:`ppo_migrate.project.snapshot.Snapshot.root_of` of the first one's
            folder; neither a git top level nor a project marker: nothing is read). None:
            nothing is read.
        targets: the function's qualified names (``"verl.trainer.constants_ppo.get_..."``).
        respect_gitignore: the run's ``respect-gitignore``, for the repository's walk.

    Returns:
        One entry per declaring line and archive, at the declaration (its path relative to
        the working directory when below it). The archive's members are read in memory
        through the run's file system (:func:`ppo_migrate.rules.signatures.archive_definitions`:
        :mod:`zipfile` in :mod:`ppo_migrate.project.filesystem`; nothing extracted). A file
        there that is no zip archive (a Git LFS pointer not pulled) and whose name names the
        package or ends as an archive's (:data:`ppo_migrate.project.import_roots.ARCHIVE_SUFFIXES`),
        or an archive that cannot be opened, is a double that cannot be read. Never raises.
    """
    if not candidates:
        return []
    from ppo_migrate.project.import_roots import ARCHIVE_SUFFIXES, declared_roots
    from ppo_migrate.project.tree import in_doubles_folder
    from ppo_migrate.rules.signatures import Unreadable, archive_definitions

    snapshot = current()
    root = snapshot.root_of(os.path.dirname(os.path.abspath(candidates[0])))
    if root is None:
        return []
    root = os.fspath(root)
    wanted = [t.rpartition(".") for t in targets if "." in t]
    fs = snapshot.fs
    cwd = os.getcwd().rstrip(os.sep) + os.sep
    out: list[tuple[str, str, int, str, str]] = []
    for declared in declared_roots(root, respect_gitignore):
        archive = declared.path
        if not in_doubles_folder(archive, root) or not fs.is_file(archive):
            continue  # a folder: its files are the run's (:func:`_fake_definitions`)
        shown = os.path.relpath(archive, cwd) if archive.startswith(cwd) else archive
        source = declared.source
        source = os.path.relpath(source, cwd) if source.startswith(cwd) else source
        puts = f"puts `{shown}` on sys.path ({declared.form}), "
        if not fs.is_zip(archive):
            base = os.path.basename(archive).lower()
            if base.endswith(ARCHIVE_SUFFIXES) or any(m.split(".", 1)[0] in base for m, _, _ in wanted):
                out.append(("*", source, declared.line, "patched",
                            puts + "a test double that cannot be read (no zip archive here); "
                            "its runtime function may take no config"))
            continue
        for module, _, name in wanted:
            for found in archive_definitions(archive, module, name):
                if isinstance(found, Unreadable):
                    what = (f"a test double that cannot be read ({found.why}); its `{name}` may "
                            "take no config")
                elif not found.keyword:
                    member = os.path.relpath(found.path, archive).replace(os.sep, "/")
                    what = (f"a test double whose `{name}` ({member}:{found.line} inside it) "
                            "takes no config")
                else:
                    continue
                out.append(("*", source, declared.line, "patched", puts + what))
                break
    return list(dict.fromkeys(out))


def _fake_definitions(path: str, data: bytes, names: Names, tree: ast.AST | None = None) -> list:
    """A file at a target module's path (``tests/fakes/verl/trainer/constants_ppo.py``), or
    named as its module (``tests/fixtures/fake_rlcore/trainer/constants_ppo.py``), under a
    folder of test doubles, that defines the function without a ``config`` parameter: a
    fake package a test may put first on ``sys.path`` (or copy there as ``verl``, or load
    under verl's module name)."""
    norm = os.path.normpath(os.path.abspath(path)).replace(os.sep, "/")
    tails = [m.replace(".", "/") for m in names.target_modules]
    # a fake under another folder's name, copied or loaded as verl's module by a test
    # (trial 26g: ``shutil.copytree(FIXTURES / "fake_rlcore", tmp_path / "verl")``,
    # ``SourceFileLoader("verl.trainer.constants_ppo", "tests/fakes/constants_ppo.py")``):
    # the module's own file name is enough under a folder of test doubles
    tails += [t.rsplit("/", 1)[1] for t in tails if "/" in t]
    tail = next(
        (t for t in tails if norm.endswith(f"/{t}.py") or norm.endswith(f"/{t}/__init__.py")), None
    )
    if tail is None:
        return []
    # under a folder of test doubles (``tests/fakes/verl/...``), not a copy of verl the
    # project runs (that one decides the signature in effect: PPO005)
    above = norm[: norm.rindex("/" + tail)].split("/")
    if not _DOUBLES_FOLDERS.intersection(above):
        return []
    if tree is None:
        tree = parse_file(path, data)
        if tree is None:
            return []
    out = []
    for node in getattr(tree, "body", ()):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names.functions:
            a = node.args
            params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
            if "config" not in params and a.kwarg is None:
                out.append(("*", path, node.lineno, "patched",
                            f"defines a `{node.name}` taking no config, which a test may put first on sys.path"))
    return out


def _patches_in(
    tree: ast.AST, names: Names, constants: dict[str, tuple[str, str, int]] | None = None,
    test: bool = True, generic: bool = True, used: set[tuple[str, int]] | None = None,
    own_module: str | None = None,
) -> Iterable[tuple[str | None, int, str, str]]:
    """``(module, line, kind, what)`` for each replacement in ``tree`` that may reach a call
    of the function: the module a target string names (``"pkg.lib.get_..."``) or the
    replaced object is imported as (``import pkg.lib as lib``), else ``None`` (any module).

    Besides the table's forms, in a file with a patcher any string spelling one of the
    function's names counts, wherever it stands (a constant ``TARGET = "pkg.lib.get_..."``,
    a helper's default, an f-string's part, a patcher imported under another name), and so
    does a keyword of that name (``SimpleNamespace(get_...=f)`` put in ``sys.modules``);
    ``__all__``'s do not (``generic=False``: only where the file replaces a name it
    computes, ``monkeypatch.setattr(lib, NAME, f)``). A patch of a name a constant holds
    (``mock.patch(ENV_TARGET, f)``) counts at the patch's line, with that constant's module;
    the constant itself then does not (the replacement is the patch, not the string):
    one of this file is skipped, one of another file's is added to ``used`` as
    ``(path, line)`` for :func:`target_patches` to leave out. ``own_module``: the
    module the tree is (:func:`ppo_migrate.project.modules.module_name`), where known: a
    ``sys.modules`` key built on ``__name__`` is read with it (trial 26i, I-B7)."""
    constants = constants or {}
    imported = _imported_modules(tree)
    wanted = names.all()
    counted: set[int] = set()
    for r in replacements(tree):
        module: str | None
        name = r.name
        if name != "*" and _of_globals(r.owner):
            # a name of a function's namespace (``fn.__globals__["f"] = g``, trial 26g, G-B2):
            # on any module, as before the namespace kept its owner (:func:`_namespace`)
            r = r._replace(owner=None)
        if name == "*" and r.form == EXEC_FORM and r.space == "globals":
            # ``exec(code, globals())`` of code not known before it runs: it may rebind any
            # name of the module, the function's too
            counted.add(r.line)
            yield "<own>", r.line, "rebound", (
                "runs `exec` in the module's namespace, which may rebind the runtime function "
                "to one taking no config"
            )
            continue
        if name == "*" and r.swapped is not None:
            # ``fns[0].__code__ = ...`` in a file naming the function: it may be the function
            counted.add(r.line)
            yield None, r.line, "patched" if test else "rebound", (
                f"replaces the `{r.swapped}` of a function not known before it runs, which may be "
                "the runtime function, with one that may take no config"
            )
            continue
        if r.swapped is not None and isinstance(r.key, ast.Name) and name not in names.functions \
                and not _another_function(tree, name):
            # ``for _fn in (cp.get_...,): _fn.__code__ = ...`` (trial 26i, I-B6): a name not
            # known to be another function may be the runtime function
            counted.add(r.line)
            yield None, r.line, "patched" if test else "rebound", (
                f"replaces the `{r.swapped}` of `{name}`, a function not known before it runs, which may be "
                "the runtime function, with one that may take no config"
            )
            continue
        if name == "*":
            generic = True
            unknown = _unknown_name(r, imported, names, tree, own_module)
            if unknown is not None:
                counted.add(r.line)
                yield unknown[0], r.line, "patched" if test else "rebound", unknown[1]
            continue
        if r.space == "modules":
            if name not in wanted and not _holds_target(f"{r.module}.{name}" if r.module else name, names.target_modules):
                continue
            counted.add(r.line)
            module_name = f"{r.module}.{name}" if r.module else name
            yield None, r.line, "patched", f"puts a stand-in for `{module_name}` in sys.modules, whose function may take no config"
            continue
        if name == "__getattr__" and r.space == "attribute" and r.owner is not None and r.swapped is None:
            # ``verl.trainer.__getattr__ = _lazy``, ``monkeypatch.setattr(verl.trainer,
            # "__getattr__", serve)`` (trial 26i, I-B8): a module ``__getattr__`` (PEP 562)
            # given to a package holding the function serves what it lacks, a submodule
            # not yet imported (``from verl.trainer import constants_ppo``) included
            package = imported.get(_dotted(r.owner)) or _running_module(r.owner, tree)
            if package is not None and _holds_target(package, names.target_modules):
                counted.add(r.line)
                yield None, r.line, "patched" if test or r.form not in ("an assignment", "setattr") else "rebound", (
                    f"gives `{_dotted(r.owner) or package}` a module `__getattr__` ({r.form}), which may serve "
                    "verl's module or the runtime function as one taking no config"
                )
            continue
        if name not in wanted or (r.swapped is not None and name not in names.functions):
            continue  # (a module has no code to swap: ``constants_ppo.__code__ = ...``)
        if r.space == "globals":
            module = "<own>"
        elif r.module is not None:
            module = r.module
        elif r.owner is not None and name not in names.functions:
            # a module or alias the calls go through: on an imported module only
            # (``launcher.constants_ppo = Fake``; not ``self.cp = ...``), but on any object
            # for one bound by an assignment (``Env.cp = fake``, ``launcher.cp = fake``)
            owner = _dotted(r.owner)
            if owner not in imported and name not in names.held:
                continue
            module = imported.get(owner)
        else:
            module = imported.get(_dotted(r.owner)) if r.owner is not None else None
        counted.add(r.line)
        # an assignment, or the builtin ``setattr``, outside the tests rebinds at run time
        # (``setattr(pkg, "get_" + "...", _legacy)`` in ``pkg/_compat.py``)
        patcher = r.form not in ("an assignment", EXEC_FORM, "setattr", "delattr") or test
        kind = "patched" if patcher else "rebound"
        if r.form == EXEC_FORM:
            kind = "rebound"
            what = f"runs `exec` rebinding `{name}` at run time, to one that may take no config"
        elif r.swapped is not None:  # the function object itself: every module holding it
            what = (
                f"replaces the `{r.swapped}` of `{name}`, whose replacement may take no config"
                if patcher else
                f"swaps the `{r.swapped}` of `{name}` at run time, for one that may take no config"
            )
        elif name in names.functions and name not in names.through:
            what = _REPLACES if patcher else f"rebinds `{name}` at run time to a function that may take no config"
            at = _bound_at(tree, r.held) if r.held is not None and patcher else None
            if at is not None and at != r.line:  # ``mock.patch(TARGET, f)``: the constant named
                what = (
                    f"replaces the runtime function named by `{r.held}` (line {at}), whose "
                    "replacement may take no config"
                )
        else:
            what = (
                f"{'replaces' if patcher else 'rebinds'} `{name}`, which the runtime function's "
                "calls go through, with an object whose function may take no config"
            )
        yield module, r.line, kind, what
    if not generic:
        return
    exported = {
        id(e)
        for node in _nodes(tree).assigns
        if any(
            isinstance(t, ast.Name) and t.id == "__all__"
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        )
        for e in ast.walk(node.value)
    }
    functions = names.functions
    # ``NAME = "pkg.lib.get_..."`` in this file, and the names a patcher is given
    local: dict[str, tuple[str | None, int, int]] = {}
    patched_names: set[str] = set()
    for node in _nodes(tree).changes:  # calls and assignments, in ``ast.walk``'s order
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Constant):
            text = _string(node.value)
            module, _, name = (text or "").rpartition(".")
            if name in functions:
                for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(t, ast.Name):
                        local[t.id] = (module or None, node.lineno, id(node.value))
        elif isinstance(node, ast.Call) and node.args and PATCHERS.get(_last(node.func)):
            held = _held(node.args[0])
            if held is not None:
                patched_names.add(held)
    skipped = {local[n][2] for n in patched_names if n in local}
    reads: set[int] | None = None  # :func:`_read_keys`, made when a string spells a function
    for node in _nodes(tree).generic:
        line = getattr(node, "lineno", None)
        if line in counted or id(node) in skipped:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in exported:
            module, _, name = node.value.rpartition(".")
            if name in functions:
                if reads is None:
                    reads = _read_keys(tree)
                if id(node) in reads:
                    continue
                counted.add(line)
                yield module or None, line, "patched", _REPLACES
        elif isinstance(node, ast.Call):
            if any(k.arg in functions for k in node.keywords):  # ``SimpleNamespace(f=fake)``
                owner = node.args[0] if node.args else None
                counted.add(line)
                yield (imported.get(_dotted(owner)) if owner is not None else None), line, "patched", _REPLACES
            elif (constants or local) and PATCHERS.get(_last(node.func)) and node.args:
                held = _held(node.args[0])
                if held in local:
                    module, at, _ = local[held]
                    counted.add(line)
                    yield module, line, "patched", _REPLACES if at == line else (
                        f"replaces the runtime function named by `{held}` (line {at}), whose "
                        "replacement may take no config"
                    )
                elif held in constants:
                    module, path, at = constants[held]
                    counted.add(line)
                    if used is not None:
                        used.add((path, at))
                    yield module, line, "patched", (
                        f"replaces the runtime function named by `{held}` ({path}:{at}), whose "
                        "replacement may take no config"
                    )


def _held_overrides(tree: ast.AST, names: Names, test: bool) -> Iterator[tuple[str | None, int, str, str]]:
    """``(module, line, kind, what)`` for each class with a base whose body binds a name of
    ``names.held`` (``class FakeLauncher(Launcher): cp = fake_cp``): a subclass overriding
    the class attribute ``self.cp.get_...()`` goes through (issue 26, family 6). One binding
    it to a module the calls go through again (``cp = constants_ppo``) is none. ``module``:
    the module the first base is imported from, else ``None`` (any)."""
    imported = _imported_modules(tree)
    again = names.through | names.held
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef) or not node.bases:
            continue
        base = _dotted(node.bases[0])
        module = None
        if base is not None:
            if base in imported:  # ``from app import Launcher``: ``app.Launcher``
                module = (imported[base] or "").rpartition(".")[0] or None
            else:  # ``app.Launcher`` of ``import app``
                module = imported.get(base.rpartition(".")[0]) if "." in base else None
        for stmt in node.body:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                value = _dotted(stmt.value) if stmt.value is not None else None
                if value is not None and (value.rsplit(".", 1)[-1] in again or value in names.target_modules):
                    continue
                bound = [t.id for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
                         if isinstance(t, ast.Name)]
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                bound = [stmt.name]
            else:
                continue
            for name in bound:
                if name in names.held:
                    yield module, stmt.lineno, "patched" if test else "rebound", (
                        f"binds `{name}` in class `{node.name}`, overriding the class attribute the "
                        "runtime function's calls go through with an object whose function may take no config"
                    )


def computed_bindings(path: str, data: bytes, wanted: Iterable[str]) -> list[tuple[str, int]]:
    """``(name, line)`` for each replacement in ``path`` (bytes ``data``) whose name or
    target is built at run time and may be one of ``wanted`` (qualified names of
    functions, ``"launcher.init_ray"``), for ``--thread-config``'s refusal of a function
    rebound at run time in a file that never spells its name:
    ``mock.patch.object(launcher, "init_" + "ray", fake)`` (read: ``"init_ray"``), or a
    name not known on a module holding wanted functions (``setattr(launcher, name, f)``,
    ``mock.patch(f"launcher.{name}", f)``: each of that module's wanted functions).
    Only files holding such a form (:func:`_unknown_forms`) are parsed (trial 26b,
    t_wrapper_patched_concat).

    Args:
        path: the file's display path.
        data: its bytes.
        wanted: the functions' qualified names.

    Returns:
        The pairs, in the tree's order; ``[]`` for a file that cannot be parsed.
    """
    if not _unknown_forms(data):
        return []
    tree = parse_file(path, data)
    if tree is None:
        return []
    lasts: set[str] = set()
    by_module: dict[str, set[str]] = {}
    for fq in wanted:
        module, _, last = fq.rpartition(".")
        lasts.add(last)
        by_module.setdefault(module, set()).add(last)
    env = string_env(tree)
    imported = _imported_modules(tree)
    out: list[tuple[str, int]] = []
    for node in _nodes(tree).changes:
        if not isinstance(node, ast.Call):
            continue
        for r in call_replacements(node, env):
            if r.space != "attribute":
                continue
            if r.name in lasts:
                out.append((r.name, r.line))
            elif r.name == "*":
                module = r.module if r.owner is None else imported.get(_dotted(r.owner))
                out.extend((last, r.line) for last in sorted(by_module.get(module or "", ())))
    return out


def _bound_at(tree: ast.AST, name: str) -> int | None:
    """The line of the ``=`` binding ``name`` in ``tree`` (:func:`string_env`'s), or ``None``."""
    for node in _nodes(tree).assigns:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return node.lineno
    return None


def _unknown_name(
    r: Replacement, imported: dict[str | None, str | None], names: Names, tree: ast.AST,
    own_module: str | None = None,
) -> tuple[str | None, str] | None:
    """``(module, what)`` for a replacement of a name not known before it runs that may
    reach a call of the function: ``globals().update(vars(legacy))`` (the module's own
    names: ``"<own>"``), ``setattr(cp, name, f)`` or ``cp.__dict__.update(...)`` on an
    imported module (that module), ``sys.modules[name] = m`` in a file spelling verl's
    module in a string (``for name in ["verl.trainer.constants_ppo"]: ...``; not a file
    loading another under a name of its own) and ``sys.meta_path.insert(0, finder)``
    (``None``: any module); ``None`` for anything else (``self.__dict__.update``)."""
    if r.space == "globals":
        return "<own>", (
            "updates the module's namespace with names not known before it runs, "
            "which may rebind the runtime function to one taking no config"
        )
    if r.space == "modules":
        if is_import_hook(r) and r.owner is not None:
            # a package's ``__path__`` written: an import hook of verl's packages only
            package = imported.get(_dotted(r.owner)) or _running_module(r.owner, tree)
            if package is None or not _holds_target(package, names.target_modules):
                return None
            return None, (
                f"adds an import hook ({r.form[len(_HOOK_FORM):]}), which may serve verl's module "
                "with a function taking no config"
            )
        if is_import_hook(r):
            return None, (
                f"adds an import hook ({r.form[len(_HOOK_FORM):]}), which may serve verl's module "
                "with a function taking no config"
            )
        unknown = (
            "puts a module under a name not known before it runs in sys.modules, whose "
            "function may take no config"
        )
        if r.key is not None:
            # ``sys.modules[spec.name] = m``, ``sys.modules[name] = m`` in a helper given an
            # f-string (trial 26i, I-B2): any key not certainly another module's
            env = string_env(tree)
            kind, values = _module_key(r.key, tree, env)
            if kind == "unknown" and _local_modules_name(r.key, tree):
                return None  # ``modules[i] = ...`` of a list of the file's own: no sys.modules
            if kind == "unknown" and _loads_itself(r.key, tree):
                return None  # ``find_spec(name)``'s module under ``name``: an import of it
            if kind == "unknown" and own_module and _in_target_package(own_module, names.target_modules) \
                    and _is_parameter(r.key, tree):
                # verl's own loaders (``verl/utils/import_utils.py``'s ``load_module(path,
                # module_name)``: custom reward functions and tools named by a run's
                # config) in a copy of verl: every fix of a vendored verl's tree was unsafe
                return None
            if kind == "unknown" and _other_module_key(r.key, tree, names.target_modules):
                kind = "known"  # ``"_verl_function_tools_" + path``: never verl's module
            if kind == "unknown" or any(_holds_target(v, names.target_modules) for v in values):
                return None, unknown
            if kind == "own" and own_module and _holds_target(own_module, names.target_modules):
                # ``sys.modules[f"{__name__}.constants_ppo"] = legacy`` in a fork's
                # ``verl/trainer/__init__.py`` (trial 26i, I-B7): read with the module's name
                text = _string(r.key, {**env, "__name__": own_module})
                if text is None:
                    return None, unknown
                if _holds_target(text, names.target_modules):
                    return None, f"puts a stand-in for `{text}` in sys.modules, whose function may take no config"
        if not _spells_target_module(tree, names.target_modules):
            return None
        return None, unknown
    if r.owner is None:
        if r.module is None:
            return None
        # ``mock.patch(f"launcher.{name}", f)``: an attribute of the module its readable
        # prefix names
        return r.module, (
            f"replaces an attribute of `{r.module}` named at run time ({r.form}), which may be "
            "the runtime function or a module its calls go through, with one taking no config"
        )
    owner = _dotted(r.owner)
    if _of_globals(r.owner):
        module = _globals_module(r.owner.value, imported, tree)
    else:
        module = imported.get(owner) or _running_module(r.owner, tree)
    if module is None or module.rsplit(".", 1)[-1] in names.functions:
        return None
    if r.form == EXEC_FORM:
        return module, (
            f"runs code not known before it runs in the namespace of `{owner or module}` (`exec`, or "
            "`eval` of code compiled for `exec`), which may rebind the runtime function or a module "
            "its calls go through to one taking no config"
        )
    if r.form == CLASS_FORM:
        return module, (
            f"swaps the class of `{owner or module}` ({r.form}), whose attributes may then give "
            "the runtime function as one taking no config"
        )
    return module, (
        f"replaces an attribute of `{owner or module}` named at run time ({r.form}), which may be the "
        "runtime function or a module its calls go through, with one taking no config"
    )


def _of_globals(owner: ast.expr | None) -> bool:
    """Whether a replacement's ``owner`` is a function's namespace (``fn.__globals__``:
    :func:`_namespace`), whose module the imports cannot tell."""
    return isinstance(owner, ast.Attribute) and owner.attr == "__globals__"


def _globals_module(function: ast.expr, imported: Mapping[str | None, str | None], tree: ast.AST) -> str | None:
    """The module whose namespace ``function.__globals__`` is (trial 26i, I-B3b): for
    ``cp.get_ppo_ray_runtime_env`` the module ``cp`` is (:func:`_imported_modules`,
    :func:`_running_module`): a function reached through a module is taken as defined
    there; for a name imported from a module (``from pkg.lib import f``), ``"pkg.lib"``;
    for a function the file defines, ``"<own>"``; else ``None`` (not known).

    Args:
        function (ast.expr): the expression ``__globals__`` is read on.
        imported: the file's :func:`_imported_modules`.
        tree (ast.AST): the file's tree.

    Raises:
        Nothing.
    """
    if isinstance(function, ast.Attribute):
        return imported.get(_dotted(function.value)) or _running_module(function.value, tree)
    if isinstance(function, ast.Name):
        bound = imported.get(function.id)
        if bound is not None and bound.endswith("." + function.id):
            return bound.rpartition(".")[0]
        if any(
            isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == function.id
            for n in getattr(tree, "body", ())
        ):
            return "<own>"
    return None


def _another_function(tree: ast.AST, name: str) -> bool:
    """Whether ``name`` is known in ``tree`` to be a function other than the runtime
    function (its names are judged before): every binding of it a ``def``, a class, an
    import, a lambda or a dotted name assigned (``f = helpers.legacy``), and one at
    least. A ``for`` target, a parameter, a ``with ... as``, a name assigned anything else
    (``f = fns[0]``, ``f = getattr(cp, n)``) or bound nowhere in the file may be any
    function (trial 26i, I-B6).

    Args:
        tree (ast.AST): the file's tree.
        name (str): the name whose function body is written.

    Raises:
        Nothing.
    """
    known = 0
    targets: set[int] = set()  # the names of the assignments counted
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            known += 1
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and any(
            (a.asname or a.name.split(".")[0]) == name for a in node.names
        ):
            known += 1
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for target in node.targets for t in _flat(target)
        ):
            if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
                return False
            if not (isinstance(node.value, ast.Lambda) or _dotted(node.value) is not None):
                return False
            known += 1
            targets.add(id(node.targets[0]))
        elif isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)) \
                and id(node) not in targets:
            return False  # a ``for`` or ``with`` target, a comprehension's, ``+=``, ``:=``
        elif isinstance(node, ast.arg) and node.arg == name:
            return False
    return known > 0


#: the running module's own names: a ``sys.modules`` key led by one (``__name__ + ".rt"``,
#: ``f"{__package__}.compat"``) names a module under the running module's, not verl's
_OWN_MODULE_NAMES: frozenset[str] = frozenset({"__name__", "__package__", "__spec__"})
#: callables making a module or a spec under the name their first argument (or this
#: keyword) gives (the standard library's ``types.ModuleType(name)``, ``importlib.util``'s
#: ``spec_from_file_location(name, ...)``, ``spec_from_loader(name, ...)``,
#: ``find_spec(name)``, ``importlib.machinery.ModuleSpec(name, ...)``); ``None``: the
#: module ``module_from_spec(spec)`` makes is named by its spec's ``name``
_MODULE_NAMERS: dict[str, str | None] = {
    "ModuleType": "name", "spec_from_file_location": "name", "spec_from_loader": "name",
    "find_spec": "name", "ModuleSpec": "name", "module_from_spec": None,
}


def _leading_part(node: ast.expr) -> ast.expr:
    """The expression a string built by ``+`` or an f-string starts with: ``__name__`` of
    ``__name__ + ".rt"`` and of ``f"{__name__}.rt"``; ``node`` itself otherwise."""
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        node = node.left
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.FormattedValue):
        return node.values[0].value
    return node


def _only_binding(tree: ast.AST, name: str) -> ast.AST | None:
    """The one statement binding ``name`` in ``tree``: an ``=`` with ``name`` its only
    target, or a ``for`` (or a comprehension's ``for``) whose target is ``name``; ``None``
    when ``name`` is bound otherwise or more than once (a parameter, an import, a second
    binding)."""
    found: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for target in node.targets for t in _flat(target)
        ):
            found.append(node if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) else tree)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and any(
            isinstance(t, ast.Name) and t.id == name for t in _flat(node.target)
        ):
            found.append(node if isinstance(node.target, ast.Name) else tree)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)) and isinstance(node.target, ast.Name) \
                and node.target.id == name:
            found.append(tree)
        elif isinstance(node, ast.arg) and node.arg == name:
            found.append(tree)
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and any(
            (a.asname or a.name.split(".")[0]) == name for a in node.names
        ):
            found.append(tree)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            found.append(tree)
        elif isinstance(node, (ast.With, ast.AsyncWith)) and any(
            isinstance(t, ast.Name) and t.id == name
            for item in node.items if item.optional_vars is not None for t in _flat(item.optional_vars)
        ):
            found.append(tree)
    return found[0] if len(found) == 1 and found[0] is not tree else None


def _leading_text(node: ast.AST | None) -> str | None:
    """The literal text a string expression starts with: a constant's whole text, the
    leftmost operand's of a ``+`` chain, an f-string's parts before its first placeholder;
    ``None`` when it starts with nothing literal."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _leading_text(node.left)
    if isinstance(node, ast.JoinedStr):
        lead = []
        for part in node.values:
            if not (isinstance(part, ast.Constant) and isinstance(part.value, str)):
                break
            lead.append(part.value)
        return "".join(lead) or None
    return None


def _binds(stmt: ast.stmt, name: str) -> bool:
    """Whether ``stmt`` (or a statement inside it) may bind ``name``."""
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
            (a.asname or a.name.split(".", 1)[0]) == name for a in node.names
        ):
            return True
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return True
    return False


def _last_assigned(block: Sequence[ast.stmt], name: str) -> tuple[int, ast.expr] | None:
    """``(index, value)`` of the plain ``name = value`` that last binds ``name`` in the
    straight-line statements ``block``, when no statement after it may bind ``name``
    again; else ``None``."""
    for i in range(len(block) - 1, -1, -1):
        stmt = block[i]
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name:
            return i, stmt.value
        if _binds(stmt, name):
            return None
    return None


def _is_importlib_find_spec(func: ast.expr) -> bool:
    """Whether ``func`` spells ``importlib.util.find_spec`` (``importlib.util.find_spec``,
    ``util.find_spec``, or a bare ``find_spec``), not a finder's own method."""
    if isinstance(func, ast.Name):
        return func.id == "find_spec"
    return isinstance(func, ast.Attribute) and func.attr == "find_spec" and (
        (isinstance(func.value, ast.Name) and func.value.id == "util")
        or (isinstance(func.value, ast.Attribute) and func.value.attr == "util"
            and isinstance(func.value.value, ast.Name) and func.value.value.id == "importlib")
    )


def _loads_itself(key: ast.expr, tree: ast.AST) -> bool:
    """Whether ``sys.modules[name] = module`` puts under ``name`` the module the import
    system finds for ``name`` itself (importlib's documented recipe, "Importing
    programmatically": ``spec = importlib.util.find_spec(name)``, ``module =
    importlib.util.module_from_spec(spec)``, ``sys.modules[name] = module``,
    ``spec.loader.exec_module(module)``), read in the block holding the assignment: an
    import of ``name``, no stand-in for it. verl 0.9's own ``verl/tools/tool_registry.py``
    loads tool classes so; a vendored verl made every fix of its project unsafe (trial
    26i's rule, I-B2)."""
    if not isinstance(key, ast.Name):
        return False
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for i, stmt in enumerate(block):
                if not (isinstance(stmt, ast.Assign) and any(
                    isinstance(t, ast.Subscript) and t.slice is key for t in stmt.targets
                )):
                    continue
                if not isinstance(stmt.value, ast.Name):
                    return False
                made = _last_assigned(block[:i], stmt.value.id)
                if made is None or not isinstance(made[1], ast.Call) or _last(made[1].func) != "module_from_spec" \
                        or len(made[1].args) != 1 or not isinstance(made[1].args[0], ast.Name):
                    return False
                found = _last_assigned(block[: made[0]], made[1].args[0].id)
                if found is None or not isinstance(found[1], ast.Call) or not _is_importlib_find_spec(found[1].func) \
                        or not found[1].args or not isinstance(found[1].args[0], ast.Name) \
                        or found[1].args[0].id != key.id:
                    return False
                return not any(_binds(s, key.id) for s in block[found[0] + 1 : i])
    return False


def _local_modules_name(key: ast.expr, tree: ast.AST) -> bool:
    """Whether the item keyed by ``key`` is one of a plain name ``modules`` that no
    ``from sys import modules`` binds (verl's ``modules[i] = apply_qat(modules[i], ...)``
    over a list of model chunks): not ``sys.modules``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and node.slice is key:
            if not (isinstance(node.value, ast.Name) and node.value.id == "modules"):
                return False
            return not any(
                (isinstance(n, ast.ImportFrom) and n.module == "sys"
                 and any((a.asname or a.name) == "modules" for a in n.names))
                or (isinstance(n, (ast.Assign, ast.AnnAssign, ast.NamedExpr))  # ``modules = sys.modules``
                    and isinstance(n.value, ast.Attribute) and n.value.attr == "modules")
                for n in ast.walk(tree)
            )
    return False


def _in_target_package(module: str, target_modules: Iterable[str]) -> bool:
    """Whether ``module`` is a module of the top-level package holding the function
    (``verl.utils.import_utils`` for ``verl.trainer.constants_ppo``): a copy's own code."""
    return any(module.split(".", 1)[0] == t.split(".", 1)[0] for t in target_modules)


def _is_parameter(key: ast.expr, tree: ast.AST) -> bool:
    """Whether ``key`` is a name that a function enclosing it takes as a parameter (bound
    again or not: its values are the function's callers')."""
    if not isinstance(key, ast.Name):
        return False
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        args = node.args
        params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
        if key.id in params and any(n is key for n in ast.walk(node)):
            return True
    return False


def _other_module_key(node: ast.expr, tree: ast.AST, target_modules: Iterable[str]) -> bool:
    """Whether a ``sys.modules`` key that cannot be read whole certainly names no module
    holding the function nor a package above one: it starts with literal text none of
    their names starts with, itself or through a name the file binds once to it. verl 0.9's
    own ``verl/tools/function_tool.py`` loads tools under ``"_verl_function_tools_" +
    path``: a vendored verl made every fix of its project unsafe (trial 26i's rule, I-B2,
    on trials 26d and 26e's vendored 0.9.0 trees)."""
    lead = _leading_text(node)
    if lead is None and isinstance(node, ast.Name):
        bound = _only_binding(tree, node.id)
        if isinstance(bound, ast.Assign) and len(bound.targets) == 1:
            lead = _leading_text(bound.value)
    if not lead:
        return False
    names = {t for t in target_modules}
    names |= {t.rsplit(".", i)[0] for t in list(names) for i in range(1, t.count(".") + 1)}
    return not any(n.startswith(lead) for n in names)


def _module_key(node: ast.expr, tree: ast.AST, env: dict[str, str], depth: int = 0) -> tuple[str, frozenset[str]]:
    """What a ``sys.modules`` key not read as one string names (trial 26i, I-B2):
    ``("own", ...)`` for a key led by the running module's name (``__name__ + ".rt"``);
    ``("known", modules)`` for one whose values can be told: a string (:func:`_string`),
    the readable dotted prefix of one built at run time (``f"plugins.{name}"``:
    ``"plugins"``), a ``for`` target over a literal of such strings, the ``__name__`` of a
    module or the ``name`` of a spec made under such a name (``types.ModuleType(...)``,
    ``spec_from_file_location(...)``: :data:`_MODULE_NAMERS`); else ``("unknown", ())``:
    a parameter, an attribute of anything else, a call.

    Args:
        node (ast.expr): the key.
        tree (ast.AST): the file's tree (the names' bindings).
        env (dict[str, str]): the file's strings (:func:`string_env`).
        depth (int): how many bindings were followed (at most 4).

    Raises:
        Nothing.
    """
    text = _string(node, env)
    if text is not None:
        return "known", frozenset({text})
    lead = _leading_part(node)
    while isinstance(lead, ast.Attribute):
        lead = lead.value
    if isinstance(lead, ast.Name) and lead.id in _OWN_MODULE_NAMES:
        return "own", frozenset()
    prefix = _leading_module(node, env)
    if prefix is not None:
        return "known", frozenset({prefix})
    if depth >= 4:
        return "unknown", frozenset()
    if isinstance(node, ast.Attribute) and node.attr in ("__name__", "name") and isinstance(node.value, ast.Name):
        bound = _only_binding(tree, node.value.id)
        if isinstance(bound, ast.Assign) and isinstance(bound.value, ast.Call):
            call = bound.value
            last = _last(call.func)
            if last in _MODULE_NAMERS:
                keyword = _MODULE_NAMERS[last]
                first = call.args[0] if call.args else next(
                    (k.value for k in call.keywords if k.arg in (keyword, "spec")), None
                )
                if first is not None:
                    if keyword is None:  # ``module_from_spec(spec)``: the spec's name
                        first = ast.Attribute(first, "name", ast.Load())
                    return _module_key(first, tree, env, depth + 1)
    elif isinstance(node, ast.Name):
        bound = _only_binding(tree, node.id)
        if isinstance(bound, (ast.For, ast.AsyncFor, ast.comprehension)):
            items = bound.iter
            if isinstance(items, ast.Name):
                held = _only_binding(tree, items.id)
                items = held.value if isinstance(held, ast.Assign) else None
            if isinstance(items, (ast.List, ast.Tuple, ast.Set)) and items.elts:
                values = [_string(e, env) for e in items.elts]
                if None not in values:
                    return "known", frozenset(values)  # type: ignore[arg-type]
    return "unknown", frozenset()


def _package_getattrs(paths: Sequence[str], target_modules: Iterable[str], read) -> list:
    """``(module, path, line, kind, what)`` for each module ``__getattr__`` (PEP 562: a
    ``def __getattr__`` or a name ``__getattr__`` bound at its top level) of a package of
    the run above a module holding the function (an in-tree fork's
    ``verl/trainer/__init__.py``; trial 26i, I-B8): ``from verl.trainer import
    constants_ppo`` asks the package's attribute first, so such a hook may serve the
    submodule (a kept legacy module whose function takes no config) before the file is
    imported. ``module`` is ``"*"``: every call may go through it.

    Args:
        paths: every file of the run.
        target_modules: the modules holding the function.
        read: ``path -> bytes`` (the run's snapshot's).

    Raises:
        Nothing: a file that cannot be read or parsed is left out.
    """
    out = []
    targets = tuple(target_modules)
    for path in paths:
        path = os.fspath(path)
        if not path.endswith("__init__.py"):
            continue
        try:
            data = read(path)
        except (OSError, ValueError):
            continue
        if b"__getattr__" not in data:
            continue
        package = module_name(path)
        if not any(t.startswith(package + ".") for t in targets):
            continue
        tree = parse_file(path, data)
        # the lazy-import idiom and a hook serving fixed names only (a deprecation alias)
        # serve no other module: the rule of the in-tree copies' reading
        # (:func:`ppo_migrate.rules.signatures._served_elsewhere`), asked of each hook
        from ppo_migrate.rules.signatures import _serves_by_name, _serves_own_submodules

        for node in getattr(tree, "body", ()):
            defines = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "__getattr__"
            if defines:
                nxt = [t[len(package) + 1:].split(".", 1)[0] for t in targets if t.startswith(package + ".")]
                named = any(f'"{n}"'.encode() in data or f"'{n}'".encode() in data for n in nxt)
                if _serves_own_submodules(node) or not (named or _serves_by_name(node)):
                    continue
            binds = isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__getattr__" for target in node.targets for t in _flat(target)
            )
            if defines or binds:
                out.append(("*", path, node.lineno, "rebound", (
                    f"defines a module `__getattr__` of `{package}` (PEP 562), which may serve its submodule "
                    "holding the runtime function with one taking no config"
                )))
    return out


#: a patcher given two names: ``mock.patch.object(mod, attr, ...)``, ``setattr(o, name, v)``
_HELPER_PATCHER = lazy_pattern(rb"(?:patch\.object|setattr)\s*\(\s*\w+\s*,\s*\w+\s*[,)]")


def _helper_patches(paths: Sequence[str], names: Names, read) -> list:
    """``(module, path, line, kind, what)`` for each call of a patch helper (a function
    handing two of its parameters to a patcher as the owner and the name:
    ``def fake(mod, attr): return mock.patch.object(mod, attr, ...)``) whose name argument
    reads, as a literal or a module constant built of literals
    (``NAME = "get_ppo_ray_" + "runtime_env"``), one of the function's names, and whose
    owner is an imported module (``fake(train, NAME)``; trial 26,
    f3_mock_side_effect_helper)."""
    helpers: dict[str, tuple[int, int, str, int]] = {}
    datas: dict[str, bytes] = {}
    for path in paths:
        path = os.fspath(path)
        try:
            data = read(path)
        except (OSError, ValueError):
            continue
        datas[path] = data
        if (b"setattr" not in data and b"patch" not in data) or not _HELPER_PATCHER.search(data):
            continue
        tree = parse_file(path, data)
        if tree is None:
            continue
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
            for node in ast.walk(fn):
                if not isinstance(node, ast.Call) or len(node.args) < 2:
                    continue
                if not any(r.name == "*" and r.space == "attribute" for r in call_replacements(node)):
                    continue
                owner, key = node.args[0], node.args[1]
                if isinstance(owner, ast.Name) and isinstance(key, ast.Name) and owner.id in params \
                        and key.id in params:
                    helpers.setdefault(fn.name, (params.index(owner.id), params.index(key.id), path, node.lineno))
    if not helpers:
        return []
    spelled = [h.encode() for h in helpers]
    wanted = names.all()
    out = []
    for path, data in datas.items():
        if not any(h in data for h in spelled):
            continue
        tree = parse_file(path, data)
        if tree is None:
            continue
        env: dict[str, str] = {}
        for stmt in getattr(tree, "body", ()):
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                text = _str_value(stmt.value, env)
                if text is not None:
                    env[stmt.targets[0].id] = text
        imported = _imported_modules(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or _last(node.func) not in helpers:
                continue
            at_owner, at_key, hpath, hline = helpers[_last(node.func)]
            if len(node.args) <= max(at_owner, at_key):
                continue
            key = _str_value(node.args[at_key], env)
            module = imported.get(_dotted(node.args[at_owner]))
            if key not in wanted or module is None:
                continue
            out.append((module, path, node.lineno, "patched" if _is_test_file(path) else "rebound",
                        f"calls `{_last(node.func)}` ({hpath}:{hline}), which replaces `{key}` of "
                        f"`{_dotted(node.args[at_owner])}` with a callable that may take no config"))
    return out


def _running_module(owner: ast.expr, tree: ast.AST) -> str | None:
    """``"<own>"`` or ``"<package>"`` when ``owner`` is the running module or its package
    taken from ``sys.modules`` (``sys.modules[__name__]``, ``sys.modules[__package__]``),
    directly or through a name assigned it in ``tree`` (``pkg = sys.modules[__package__]``);
    else ``None``."""
    def of(node: ast.AST | None) -> str | None:
        if isinstance(node, ast.Subscript) and _namespace(node.value) == ("modules", None):
            key = node.slice
            if isinstance(key, ast.Name) and key.id in ("__name__", "__package__"):
                return {"__name__": "<own>", "__package__": "<package>"}[key.id]
        # ``sys.modules["pkg.lib"]``, ``importlib.import_module("pkg.lib")``,
        # ``__import__("pkg.lib", fromlist=["x"])``, ``sys.modules.get("pkg.lib")``: that module
        return _module_by_name(node, None)

    found = of(owner)
    if found is not None or not isinstance(owner, ast.Name):
        return found
    for node in _nodes(tree).assigns:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == owner.id for t in node.targets):
            found = of(node.value)
            if found is not None:
                return found
    return None


def _spells_target_module(tree: ast.AST, target_modules: Iterable[str]) -> bool:
    """Whether a string of ``tree`` names a module holding the function, or a package above
    it other than the top one (``"verl.trainer.constants_ppo"``, ``"verl.trainer"``)."""
    for node in _nodes(tree).generic:
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "." in node.value:
            if any(t == node.value or t.startswith(node.value + ".") for t in target_modules):
                return True
    return False


def _held(node: ast.expr) -> str | None:
    """The name a patcher's first argument reads a target from: ``TARGET`` of
    ``mock.patch(TARGET, f)`` or of ``mock.patch(targets.TARGET, f)``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _last(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


#: a doctest example's first line and its continuation lines (doctest's own syntax:
#: ``>>>`` or ``...`` then a space or the line's end)
_DOCTEST_PROMPT = lazy_pattern(r"^([ \t]*)>>>(?: |$)")
_DOCTEST_MORE = "..."


def doctest_tree(tree: ast.AST) -> ast.Module | None:
    """The doctest examples of ``tree``'s docstrings (the module's, each class's and
    function's: what ``doctest``'s finder collects, and pytest's ``--doctest-modules`` runs)
    as one module of test code, each statement at its line in the file; ``None`` when no
    docstring holds one.

    A doctest is test code (trial 26c, section E: ``>>> launcher.get_ppo_ray_runtime_env =
    lambda: ...`` run by ``pytest --doctest-modules`` replaces the function the rewritten
    call then passes a config to), so the replacement table reads it like a test file's.
    An example that does not parse on its own is left out (doctest would fail on it too).
    The lines are those of the docstring's literal: a docstring whose escapes make lines
    (``"\\n"`` in a one-line string) gives the examples the string's first line.

    Args:
        tree: a parsed module.
    """
    body: list[ast.stmt] = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        first = node.body[0] if node.body else None
        if not (
            isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str) and ">>>" in first.value.value
        ):
            continue
        one_line = first.value.end_lineno == first.value.lineno
        body += _doctest_examples(first.value.value, first.value.lineno, one_line)
    return ast.Module(body=body, type_ignores=[]) if body else None


def _doctest_examples(text: str, start: int, one_line: bool = False) -> list[ast.stmt]:
    """The statements of the doctest examples in ``text`` (a docstring's value, or a doctest
    text file's), each at its line: ``text``'s first line is line ``start``; ``one_line``:
    every example at ``start`` (a one-line literal whose escapes make lines)."""
    body: list[ast.stmt] = []
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        match = _DOCTEST_PROMPT.match(lines[index])
        if match is None:
            index += 1
            continue
        indent = match.group(1)
        at = index
        source = [lines[index][len(indent) + 4:]]
        index += 1
        while index < len(lines) and lines[index].startswith(indent + _DOCTEST_MORE) and (
            lines[index][len(indent) + 3:len(indent) + 4] in ("", " ")
        ):
            source.append(lines[index][len(indent) + 4:])
            index += 1
        try:
            example = ast.parse("\n".join(source))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        ast.increment_lineno(example, start - 1 + (0 if one_line else at))
        body.extend(example.body)
    return body


def doctest_file_tree(text: str) -> ast.Module | None:
    """The doctest examples of a text file pytest runs as a doctest (``--doctest-glob``;
    ``test*.txt`` by default) as one module of test code, each statement at its line;
    ``None`` when it holds none (:func:`doctest_tree` for docstrings)."""
    body = _doctest_examples(text, 1)
    return ast.Module(body=body, type_ignores=[]) if body else None


#: ``--doctest-glob=PATTERN`` / ``--doctest-glob PATTERN`` in pytest's ini options
_DOCTEST_GLOB = lazy_pattern(r"""--doctest-glob(?:=|[ \t]+)['"]?([^\s'",\]]+)""")
#: the text files pytest runs as doctests without any option (its ``--doctest-glob`` default)
DOCTEST_GLOB_DEFAULT = "test*.txt"


def doctest_globs(folders: Iterable[str]) -> set[str]:
    """The name patterns of the text files pytest runs as doctests: its default
    (:data:`DOCTEST_GLOB_DEFAULT`) and each ``--doctest-glob`` of the ini files
    (:data:`_INI_FILES`) of ``folders`` and the folders above them, up to a git top level.
    Generous: a pattern too many only makes a file read.

    Args:
        folders: absolute folders (the calling files').
    """
    out = {DOCTEST_GLOB_DEFAULT}
    for text in _ini_texts(folders):
        if "--doctest-glob" in text:
            out.update(m.group(1) for m in _DOCTEST_GLOB.finditer(text))
    return out


#: the exceptions a module catches when a name it reads is not bound yet
_UNBOUND_ERRORS = frozenset({"NameError", "UnboundLocalError"})
#: what a module's text spells where :func:`seeded_names` may find something
_SEEDED_WORDS = ("globals()", "vars()", "locals()", "dir()", "NameError", "UnboundLocalError")


def _namespace_call(node: ast.AST) -> bool:
    """``globals()``, ``vars()``, ``locals()`` or ``dir()`` (the module's own names)."""
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args
        and node.func.id in ("globals", "vars", "locals", "dir")
    )


def seeded_names(tree: ast.AST, functions: Iterable[str]) -> list[tuple[int, str]]:
    """Where a module binds one of ``functions`` only when its globals lack it: ``if "f" not
    in globals(): from verl... import f`` (or ``in``), ``try: f`` / ``except NameError:``
    (trial 26g, G-B4 and G-B9). Such a module declares that a runner may seed the name
    (``runpy.run_path/run_module(..., init_globals={...})``, ``exec(code, namespace)``),
    from wherever it is run, with a function that may take no config.

    Args:
        tree: the module's tree.
        functions: the runtime function's names (and aliases).

    Returns:
        ``(line, name)`` of each test, in order.
    """
    wanted = set(functions)
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            left = node.left
            if (isinstance(left, ast.Constant) and left.value in wanted and _namespace_call(node.comparators[0])):
                out.append((node.lineno, left.value))
        elif isinstance(node, ast.Try) and any(
            (isinstance(h.type, ast.Name) and h.type.id in _UNBOUND_ERRORS)
            or (isinstance(h.type, ast.Tuple) and any(getattr(e, "id", None) in _UNBOUND_ERRORS for e in h.type.elts))
            for h in node.handlers
        ):
            for stmt in node.body:
                for sub in ast.walk(stmt):
                    if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id in wanted:
                        out.append((sub.lineno, sub.id))
                        break
    return sorted(set(out))


#: path -> the tree a module's own analysis read (:func:`own_replacement`), while it lives:
#: the look-out (:func:`target_patches`) run after the per-file phase (a scouted ``check``)
#: finds such a file parsed already, and reads its strings of code from the tree rather
#: than its literals' bytes first (:func:`_code_strings`, for a file not yet parsed: the
#: look-out before ``apply``'s pool)
_ANALYSED: weakref.WeakValueDictionary[str, ast.AST] = weakref.WeakValueDictionary()


def own_replacement(
tree: ast.AST, text: str, targets: Iterable[str], path: str = "") -> Patch | None:
    """The first replacement, in a module's own tree, of the runtime function or of a
    module or alias its calls go through (:func:`replacements`'s forms, and
    ``globals()["get_..."] = shim``), as a :class:`Patch` of ``path``; ``None`` if none.
    The module's calls may then reach a replacement taking no config: a fix there is
    unsafe. A module whose replacements certainly reach none (:func:`_may_replace_own`:
    attributes of objects no import binds, named by no function's name) and that spells
    none of :data:`_SEEDED_WORDS` is answered without reading it for the names."""
    # a class attribute rebound in the module itself: judged per call by its analysis
    # (:meth:`ppo_migrate.rules.targets.TargetFinder.held_rebindings`)
    data = text.encode("utf-8", "surrogateescape")
    targets = tuple(targets)
    if path:
        _ANALYSED[path] = tree
    seeded = any(word in text for word in _SEEDED_WORDS)
    if ">>>" not in text and not seeded and not _may_replace_own(tree, data, targets):
        return None
    names = through_names([data], targets, with_held=False)
    found = sorted(
        (line, kind, what)
        for _, line, kind, what in _patches_in(
            tree, names, None, _is_test_file(path), generic=False, own_module=module_name(path) if path else None
        )
    )
    if ">>>" in text:  # the module's doctests are test code (:func:`doctest_tree`)
        doctests = doctest_tree(tree)
        if doctests is not None:
            found += sorted((line, kind, what) for _, line, kind, what in _patches_in(doctests, names, None, True))
            found.sort()
    if seeded:
        # a name the module binds only when a runner did not seed it (trial 26g)
        found += [(line, "rebound", (
            f"binds `{name}` only where the module's globals lack it: a runner seeding them "
            "(runpy's `init_globals`) may give one taking no config"
        )) for line, name in seeded_names(tree, names.functions)]
        found.sort()
    if not found:
        return None
    line, kind, what = found[0]
    return Patch("<own>", path, line, kind, what)


def _may_replace_own(tree: ast.AST, data: bytes, targets: Iterable[str]) -> bool:
    """Whether :func:`_patches_in` may find anything in a module's own ``tree`` for
    :func:`own_replacement` (``generic=False``, no held names); ``False`` only when it
    certainly finds nothing, decided without :func:`through_names`' reading of the file.

    Most modules replace nothing but attributes of objects no import binds
    (``self.config = config``: every attribute assigned is a replacement of the table's).
    :func:`_patches_in` counts such a replacement (not a ``"*"``, not of a module, no
    function body swapped, its object no import's name) only when its name is one of
    :attr:`Names.functions`, which only the targets' last names and the aliases
    :func:`through_names` finds with them can be: ``<function> as <alias>`` and
    ``<alias> = [<dotted>.]<function>`` on one line (:func:`_function_aliases`). Any other
    replacement is left to :func:`_patches_in`.

    Args:
        tree: the module's tree.
        data: its text, encoded as :func:`own_replacement` encodes it.
        targets: the runtime function's qualified names.
    """
    found = replacements(tree)
    imported: dict[str | None, str | None] | None = None
    names: set[str] = set()
    for r in found:
        if r.name == "*" or r.space != "attribute" or r.module is not None or r.swapped is not None or r.owner is None \
                or _of_globals(r.owner):
            return True
        if imported is None:
            imported = _imported_modules(tree)
        if _dotted(r.owner) in imported:
            return True  # ``launcher.constants_ppo = Fake``: a module the calls may go through
        names.add(r.name)
    if not names:
        return False
    forms = _target_forms(tuple(targets))
    if not names.isdisjoint(forms.functions):
        return True
    return not names.isdisjoint(_function_aliases(data, forms))


def _function_aliases(data: bytes, forms: _TargetForms) -> set[str]:
    """The aliases of the runtime function :func:`through_names` adds to
    :attr:`Names.functions` for a file of bytes ``data`` (``forms``: the targets'
    :class:`_TargetForms`): the same two searches, less the modules the calls go through
    (which add no function).

    Both search lines spelling a function (an alias ``<function> as <alias>`` or
    ``<alias> = ...<function>`` is one line): the lines holding `` as `` (every ``import
    ... as``: ~70% of this look-up on benchmark item 9) are searched only when an alias
    found there is itself a word of :attr:`_TargetForms.aliased` (``f as constants_ppo``),
    whose own ``as`` lines :func:`through_names` then reads as the function's.

    Raises:
        Nothing.
    """
    if not forms.fn_encoded:
        return _function_aliases_in(data, forms, _lines_holding(data, _AS_SEPARATORS), [(0, len(data))])
    spans = _lines_holding(data, forms.fn_encoded)
    found = _function_aliases_in(data, forms, spans, spans)
    if found.isdisjoint(forms.parts):
        return found
    return _function_aliases_in(data, forms, _lines_holding(data, _AS_SEPARATORS), spans)


def _function_aliases_in(
    data: bytes, forms: _TargetForms, as_spans: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]]
) -> set[str]:
    """:func:`_function_aliases`' two searches: ``<function> as <alias>`` on the lines
    ``as_spans``, ``<alias> = ...<function>`` on the lines ``spans`` (``(start, end)``)."""
    functions = set(forms.functions)
    for start, end in as_spans:
        if not any(data.find(s, start, end) != -1 for s in _AS_SEPARATORS):
            continue  # (a line spelling a function without `` as ``)
        for m in forms.aliased.finditer(data, start, end):
            if m.group(0).split()[0].decode() in functions:
                functions.add(m.group(1).decode("utf-8", "replace"))
    for start, end in spans:
        for m in forms.assigned.finditer(data, start, end):
            functions.add(m.group(1).decode("utf-8", "replace"))
    return functions - forms.functions


def _dotted(node: ast.AST | None) -> str | None:
    """``a.b.c`` for that name or attribute chain, else ``None``."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _module_by_name(node: ast.AST | None, env: dict[str, str] | None) -> str | None:
    """The module an expression gives by its name at run time, when a string names it
    (trial 26i, I-B3): ``importlib.import_module("pkg.lib")`` (not a relative name),
    ``__import__("pkg.lib", fromlist=[...])`` (``"pkg"`` without a ``fromlist``: the top
    package is what it returns), ``sys.modules["pkg.lib"]`` and
    ``sys.modules.get("pkg.lib")``; else ``None``.

    Args:
        node: any expression, or ``None``.
        env: the file's strings (:func:`string_env`), or ``None``.

    Raises:
        Nothing.
    """
    if isinstance(node, ast.Subscript) and _namespace(node.value) == ("modules", None):
        text = _string(node.slice, env)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and _namespace(node.func.value) == ("modules", None) and node.args:
        text = _string(node.args[0], env)
    elif isinstance(node, ast.Call) and _last(node.func) in BY_NAME:
        first = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "name"), None)
        text = _string(first, env)
        if text and _last(node.func) == "__import__":
            fromlist = node.args[3] if len(node.args) > 3 else next(
                (k.value for k in node.keywords if k.arg == "fromlist"), None
            )
            empty = fromlist is None or (isinstance(fromlist, (ast.List, ast.Tuple)) and not fromlist.elts) \
                or (isinstance(fromlist, ast.Constant) and not fromlist.value)
            if empty:
                text = text.split(".", 1)[0]
    else:
        return None
    if not text or not all(part.isidentifier() for part in text.split(".")):
        return None
    return text


def _by_name_bindings(tree: ast.AST, nodes: _Nodes) -> dict[str, str]:
    """The names ``tree`` binds once, by an ``=`` and no other way, to a module given by
    its name (:func:`_module_by_name`): ``{"_T": "verl.trainer.constants_ppo"}`` for
    ``_T = importlib.import_module("verl.trainer.constants_ppo")`` (trial 26i, I-B3):
    read as an import is."""
    candidates: dict[str, str | None] = {}
    env: dict[str, str] | None = None
    for node in nodes.assigns:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        value = node.value
        if not (
            isinstance(value, ast.Subscript)
            or (isinstance(value, ast.Call) and _last(value.func) in (*BY_NAME, "get"))
        ):
            continue
        if env is None:
            env = string_env(tree)
        module = _module_by_name(value, env)
        if module is not None:
            name = node.targets[0].id
            candidates[name] = module if name not in candidates else None
    return {
        name: module for name, module in candidates.items()
        if module is not None and isinstance(_only_binding(tree, name), ast.Assign)
    }


def _imported_modules(tree: ast.AST) -> dict[str | None, str | None]:
    """What names a module may be reached by in ``tree``: ``{"lib": "pkg.lib"}`` for
    ``import pkg.lib as lib`` or ``from pkg import lib``; ``{"pkg.lib": "pkg.lib"}`` for
    ``import pkg.lib``; ``{"lib": "pkg.lib"}`` for ``lib = importlib.import_module("pkg.lib")``
    (and the other forms of :func:`_by_name_bindings`). A name bound twice maps to ``None``
    (any). Made once a tree: the answer is shared, not to be changed."""
    nodes = _nodes(tree)
    if nodes.bound_modules is not None:
        return nodes.bound_modules
    out: dict[str | None, str | None] = {}

    def bind(name: str, module: str) -> None:
        out[name] = module if out.get(name, module) == module else None

    for node in nodes.imports:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bind(alias.asname, alias.name)
                else:
                    parts = alias.name.split(".")
                    for k in range(1, len(parts) + 1):
                        bind(".".join(parts[:k]), ".".join(parts[:k]))
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                bind(alias.asname or alias.name, f"{node.module}.{alias.name}")
    for name, module in _by_name_bindings(tree, nodes).items():  # ``_T = import_module("...")``
        bind(name, module)
    nodes.bound_modules = out
    return out


def _run_modules(paths: Sequence[str]) -> set[str]:
    """Every name a module of the run may be imported by (its own and, above its outermost
    package, the folders' prefixes: :func:`ppo_migrate.project.modules.namespace_prefixes`)."""
    out: set[str] = set()
    for path in paths:
        name = module_name(path)
        out.add(name)
        out.update(f"{prefix}.{name}" for prefix in namespace_prefixes(path))
    return out


def imported_modules(
    tree: ast.AST, package: tuple[str, ...], *, from_packages: bool = False, data: bytes | None = None,
) -> set[str]:
    """The modules ``tree`` imports from, anywhere in it.

    Args:
        tree: a parsed module.
        package: its package's parts, for relative imports.
        from_packages: also the packages above a ``from`` import's module (``from a.b
            import c``: ``a`` too, whose ``__init__`` runs first).
        data: the bytes ``tree`` was parsed from, if at hand: when they spell ``import``
            no more often than the module's top-level statements do, those are all its
            imports, and the tree is not walked (:func:`_top_level_imports`).

    Returns:
        ``import a.b``: ``a``, ``a.b``; ``from a.b import c``: ``a.b`` and ``a.b.c`` (and
        ``a`` with ``from_packages``); relative imports resolved against ``package``.
    """
    out: set[str] = set()
    statements = _top_level_imports(tree, data) if data is not None else None
    for node in _nodes(tree).imports if statements is None else statements:
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                out.update(".".join(parts[:k]) for k in range(1, len(parts) + 1))
        elif isinstance(node, ast.ImportFrom):
            base = resolve_relative("." * node.level + (node.module or ""), package)
            if base:
                parts = base.split(".") if from_packages else [base]
                out.update(".".join(parts[:k]) for k in range(1, len(parts) + 1))
                out.update(f"{base}.{a.name}" for a in node.names)
    return out


def _top_level_imports(tree: ast.AST, data: bytes) -> list[ast.AST] | None:
    """The import statements of ``tree``, when its module's top level holds them all, else
    ``None`` (then a walk finds them). Bytes decide: each ``import``/``from ... import``
    statement spells ``import`` once, so bytes spelling it as often as the top-level
    statements number have no other. Only for bytes in Python's default encoding (no
    coding declaration in the first two lines: in UTF-7 a statement's ``import`` need not
    be these bytes). ``tree``: the module parsed from ``data``."""
    body = getattr(tree, "body", None)
    second = data.find(b"\n", data.find(b"\n") + 1)  # the end of the second line
    if body is None or b"coding" in (data[:second] if second >= 0 else data):
        return None
    statements = [s for s in body if isinstance(s, (ast.Import, ast.ImportFrom))]
    return statements if data.count(b"import") == len(statements) else None


def patched_at(patches: Sequence[Patch] | None, path: str, tree: ast.AST | None = None) -> str | None:
    """:func:`reaching_patch`'s reason, as the message words it: ``"tests/test_x.py:5
    replaces the runtime function, whose replacement may take no config"``."""
    patch = reaching_patch(patches, path, tree)
    return None if patch is None else patch.reason()


def reaching_patch(
    patches: Sequence[Patch] | None, path: str, tree: ast.AST | None = None
) -> Patch | None:
    """The first patch of another file that may reach the module at ``path``: one of any
    module, of that module, or of a module it imports from (``from pkg.lib import
    get_...`` takes the fake a test installed first); ``None`` when there is none.

    Args:
        patches: :func:`target_patches`'s.
        path: the module's file.
        tree: its parsed tree, if at hand (else it is read when a patch needs it).
    """
    if not patches:
        return None

    here = os.path.abspath(path)
    own: set[str] | None = None
    imports: set[str] | None = None
    for patch in patches:
        if os.path.abspath(patch.path) == here:
            continue  # the module's own patches: seen by its own analysis
        if patch.module != "*":
            if own is None:
                name = module_name(path)
                own = {name, *(f"{p}.{name}" for p in namespace_prefixes(path))}
            if patch.module not in own:
                if imports is None:
                    imports = _file_imports(path, tree, module_package)
                if patch.module not in imports:
                    continue
        return patch
    return None


def _file_imports(path: str, tree: ast.AST | None, module_package) -> set[str]:
    if tree is None:
        try:
            tree = parse_file(path, current().read_bytes(path))
        except (OSError, ValueError):
            return set()
        if tree is None:
            return set()
    return imported_modules(tree, module_package(path) if path and path != "-" else ())


def patch_reason(patch: Patch):
    """The structured reason (:class:`ppo_migrate.diagnostics.Reason`) of an unsafe fix a
    patch decided: kind ``"patched"`` or ``"rebound"``, the patch's place."""
    text = f"{patch.what[0].upper()}{patch.what[1:]}"
    return Reason(patch.kind, text, (Related(patch.path, patch.line, 1, patch.what),))


__all__ = [
    "PATCHERS", "Names", "Patch", "computed_bindings", "string_env", "IMPORT_STATEMENT", "import_statements", "import_words", "imported_modules", "line_mentions", "loaded_modules", "reachable_files", "Replacement", "call_replacements", "own_replacement",
    "patch_reason", "patched_at", "reaching_patch", "replaced_names", "replacements", "star_rebindings", "target_patches",
    "through_names",
]
