"""``ppo_migrate.rules.scopes`` against the compiler's own ``symtable``.

Oracle: :func:`symtable.symtable` — the same scope tree (kinds, names, nesting, order) and,
for every name of every scope, the same ``Symbol`` flags. Inputs: hand-written cases for
each scoping rule, then real corpora (the standard library, torch, verl 0.8.0 / 0.9.1):
a deterministic every-k-th-file sample in the default run, every file under ``-m slow``.
"""

from __future__ import annotations

import ast
import gc
import operator
import symtable
import sys
import textwrap
import time
import warnings
from pathlib import Path

import pytest
from corpora import python_files, stdlib_files, torch_files

from ppo_migrate.rules.scopes import ScopeKind, ScopeTree

FLAGS = ("is_local", "is_global", "is_declared_global", "is_nonlocal", "is_free",
         "is_parameter", "is_assigned", "is_referenced", "is_imported")
KIND = {ScopeKind.MODULE: "module", ScopeKind.CLASS: "class", ScopeKind.FUNCTION: "function",
        ScopeKind.LAMBDA: "function", ScopeKind.COMPREHENSION: "function"}


def _is_module(table: symtable.SymbolTable) -> bool:
    """Whether symtable's Symbols of ``table`` have ``module_scope``, minus its quirk of
    treating any *function named* ``top`` as the module (``symtable.py`` decides it by the
    table's name)."""
    return table.get_type() == "module" and table.get_name() == "top"


#: (the compiler's flags of a name, module scope) -> the values of FLAGS symtable's Symbol
#: gives for them. Each of its FLAGS methods reads only those two (neither the name nor
#: the namespaces: ``table.lookup`` builds the same Symbol plus the child tables of the
#: name, which cost a third of the comparison's time on torch), so one Symbol answers for
#: every name with the same flags: a corpus has a few dozen distinct ones for ~10^6
#: names, and asking each name's own Symbol nine questions was a third of what was left.
_ORACLE_FLAGS: dict[tuple[int, bool], tuple[bool, ...]] = {}
_our_flags = operator.attrgetter(*FLAGS)


def _oracle_flags(raw: int, module_scope: bool) -> tuple[bool, ...]:
    key = (raw, module_scope)
    if key not in _ORACLE_FLAGS:
        sym = symtable.Symbol("name", raw, module_scope=module_scope)
        _ORACLE_FLAGS[key] = tuple(getattr(sym, flag)() for flag in FLAGS)
    return _ORACLE_FLAGS[key]


#: Python 3.12+ changed the compiler's table, not the language's scoping: PEP 709 inlines list/
#: set/dict comprehensions into the parent's table, and type-parameter blocks carry implicit
#: names (``.defaults``, ``.type_params``, ``__type_params__``). The tree keeps the language
#: level scopes of the 3.10/3.11 table (what name resolution follows on every version), so
#: the equality with ``symtable`` is asserted on 3.10/3.11.
same_table_as_symtable = pytest.mark.skipif(
    sys.version_info >= (3, 12),
    reason="3.12+ symtable inlines comprehensions (PEP 709); the tree is the 3.10/3.11 table")


def scope_differences(ours, theirs: symtable.SymbolTable, path: str = "") -> list[str]:
    """Every difference between our scope and symtable's table, recursively (empty: equal)."""
    where = f"{path}/{theirs.get_name()}"
    if KIND[ours.kind] != theirs.get_type() or ours.name != theirs.get_name():
        return [f"{where}: ours {ours.kind.value} {ours.name!r}"]
    out = []
    symbols = ours.symbols
    names = set(theirs.get_identifiers())
    if names != symbols.keys():
        out.append(f"{where}: extra {sorted(symbols.keys() - names)} "
                   f"missing {sorted(names - symbols.keys())}")
    raw, module_scope = theirs._table.symbols, _is_module(theirs)
    for name in sorted(names & symbols.keys()):
        mine, oracle = _our_flags(symbols[name]), _oracle_flags(raw[name], module_scope)
        if mine != oracle:  # each differing flag, in FLAGS order
            out += [f"{where}: {name}.{flag} ours={m}"
                    for flag, m, o in zip(FLAGS, mine, oracle) if m != o]
    kids = theirs.get_children()
    if [c.get_name() for c in kids] != [c.name for c in ours.children]:
        return [*out, f"{where}: children {[c.name for c in ours.children]} vs "
                      f"{[c.get_name() for c in kids]}"]
    for a, b in zip(ours.children, kids):
        out += scope_differences(a, b, where)
    return out


def compare_source(text: str, path: str = "<case>") -> list[str] | None:
    """Differences for one source text, or None when the compiler rejects it."""
    try:
        with warnings.catch_warnings():  # invalid escapes in old sources: not our concern
            warnings.simplefilter("ignore")
            theirs = symtable.symtable(text, path, "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return scope_differences(ScopeTree.build(ast.parse(text)).module, theirs)


CASES = {
    "global_nonlocal": """
        x = 1
        def f(a):
            y = 2
            def g():
                global x
                nonlocal y
                y = x + a
            def h():
                global a
                return a
            return g
    """,
    "class_body_does_not_enclose": """
        def f():
            config = 1
            class C:
                config = 2
                def m(self):
                    return config
                z = [config for _ in range(3)]
            return C
    """,
    "comprehension_and_walrus": """
        def f(xs):
            ys = [y := x for x in xs if (w := x)]
            g = (a for a in xs for b in a)
            d = {k: v for k, v in xs}
            s = {q for q in xs}
            return y, w
        [m := 1 for i in range(3)]
    """,
    "nfkc": "ｃonfig = 2\ndef f():\n    ｃonfig = 3\n    return config\n",
    "except_as_match": """
        def f(v):
            try:
                pass
            except Exception as exc:
                pass
            match v:
                case [a, *rest] if a:
                    pass
                case {"k": b, **kw}:
                    pass
                case P(c, d=e) | P(c, d=e):
                    pass
                case _ as z:
                    pass
    """,
    "lambda_defaults_decorators": """
        def deco(x): return x
        @deco
        def f(a=lambda q=1: q, *, b=[i for i in range(2)], **kw):
            return lambda r, s=a: r + s
        class K(deco(object), metaclass=type):
            @staticmethod
            def m(): pass
    """,
    "annotations": """
        def f(a: int, *args: str, b: list = None, **kw: dict) -> bool:
            x: int
            y: str = 'y'
            (z): int = 1
            return True
        class C:
            field: int
    """,
    "future_annotations": """
        from __future__ import annotations
        def f(a: Alpha, *b: (lambda q: q)) -> Beta:
            x: [z for z in Gamma] = 1
    """,
    "del_star_import": """
        from os.path import *
        import os.path as p, sys
        import collections.abc
        def f():
            v = 1
            del v
        del p
    """,
    "super_class_cell": """
        class A:
            def m(self):
                return super().m()
            def n(self):
                def inner():
                    return __class__
                return inner
            def __private(self):
                __hidden = 1
                return self.__private
        class __Under:
            __x = 1
        class ___:
            __y = 2
    """,
    "async_and_try": """
        async def f(xs):
            async with xs as (a, b):
                async for c in xs:
                    await c
            try:
                pass
            except* ValueError as e:
                pass
            return [d async for d in xs]
    """,
    "function_named_top": """
        def top(self):
            return self
    """,
}


@same_table_as_symtable
@pytest.mark.parametrize("case", sorted(CASES))
def test_hand_written_case_equals_symtable(case: str) -> None:
    diffs = compare_source(textwrap.dedent(CASES[case]))
    if diffs is None:
        pytest.skip(f"this Python ({sys.version_info[:2]}) rejects the syntax of {case}")
    assert diffs == []


def test_nfkc_name_is_the_compilers_name() -> None:
    tree = ScopeTree.build(ast.parse("def f():\n    ｃonfig = 2\n    return config\n"))
    (f,) = tree.module.children
    assert list(f.symbols) == ["config"]
    assert f.symbols["config"].is_local and f.symbols["config"].is_referenced


def test_lookup_follows_python_resolution() -> None:
    src = textwrap.dedent("""
        config = 0
        def outer(config):
            class C:
                a = config
                config = 1
                def m(self):
                    return config
            def g():
                global config
                return config
            h = lambda: config
            return [config for _ in ()]
        def only_builtin():
            return len
    """)
    tree = ScopeTree.build(ast.parse(src))
    module = tree.module
    outer, only_builtin = module.children
    cls, g, lam, comp = outer.children
    (m,) = cls.children
    assert cls.lookup("config") is cls           # a class-local: the class body itself
    assert m.lookup("config") is outer           # methods skip the class body
    assert g.lookup("config") is module          # `global` wins over the parameter
    assert lam.lookup("config") is outer
    assert comp.lookup("config") is outer
    assert outer.lookup("config") is outer
    assert only_builtin.lookup("len") is None
    assert only_builtin.lookup("config") is module  # not referenced there: resolved as Python would


def test_scope_of_evaluation_scope() -> None:
    src = textwrap.dedent("""
        @deco(d1)
        def f(a=dflt, *, b=kwd) -> ret:
            return [x for x in first for y in second]
    """)
    tree = ScopeTree.build(ast.parse(src))
    names = {n.id: n for n in ast.walk(tree.tree) if isinstance(n, ast.Name)}
    f = tree.module.children[0]
    (comp,) = f.children
    for outer in ("d1", "dflt", "kwd", "ret", "deco"):
        assert tree.scope_of(names[outer]) is tree.module, outer
    assert tree.scope_of(names["first"]) is f
    assert tree.scope_of(names["second"]) is comp
    assert tree.scope_of(names["y"]) is comp
    assert [s.kind for s in tree.scopes()] == [ScopeKind.MODULE, ScopeKind.FUNCTION,
                                               ScopeKind.COMPREHENSION]
    assert tree.scope_of(f.node.args.args[0]) is f  # a parameter belongs to its function
    assert tree.scope_for_node(f.node) is f
    assert tree.scope_for_node(comp.node) is comp
    assert tree.scope_for_node(names["first"]) is None
    with pytest.raises(KeyError, match="not in this tree"):
        tree.scope_of(ast.Name(id="zz"))


def test_build_is_cached_per_tree() -> None:
    tree = ast.parse("x = 1\n")
    assert ScopeTree.build(tree) is ScopeTree.build(tree)
    with pytest.raises(TypeError, match="ast.Module"):
        ScopeTree.build(ast.parse("x", mode="eval"))  # type: ignore[arg-type]


#: path -> compare_source's answer (None: not compiled by this Python). The sampled tests
#: check every K-th file of the corpus the whole-corpus tests check: in one process (their
#: xdist group), a file is compared once.
_COMPARED: dict[Path, list[str] | None] = {}


def _compared(path: Path, text: str) -> list[str] | None:
    if path not in _COMPARED:
        # The collector off while one file is compared: ast.parse makes ~10^5 objects a
        # file, and the collections they set off walked the worker's whole heap (half
        # of the parse time on torch). The file's cycles (scope <-> parent) are freed
        # after, by a collection of the youngest generation that holds them all.
        enabled = gc.isenabled()
        gc.disable()
        try:
            _COMPARED[path] = compare_source(text, str(path))
        finally:
            if enabled:
                gc.enable()
            gc.collect(0)
    return _COMPARED[path]


def _corpus_differences(files: list[Path]) -> tuple[list[str], int]:
    bad, checked = [], 0
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        diffs = _compared(path, text)
        if diffs is None:
            continue
        checked += 1
        if diffs:
            bad.append(f"{path}: {diffs[:3]}")
    return bad, checked


# Every K-th file by sorted path in the default run (about 20 s on this 2-core machine);
# every file under `-m slow`.
SAMPLE_EVERY = 6


@pytest.mark.xdist_group("symtable-corpus")  # one process: files compared once
@same_table_as_symtable
@pytest.mark.parametrize("corpus", ["stdlib", "torch"])
def test_corpus_sample_equals_symtable(corpus: str) -> None:
    files = (stdlib_files() if corpus == "stdlib" else torch_files())[::SAMPLE_EVERY]
    bad, checked = _corpus_differences(files)
    assert checked > 50
    assert bad == []


@pytest.mark.xdist_group("symtable-corpus")  # one process: files compared once
@same_table_as_symtable
@pytest.mark.network
def test_verl_wheels_equal_symtable(verl_sources) -> None:
    files = [p for root in verl_sources.values() for p in python_files(root)]
    bad, checked = _corpus_differences(files[::2])
    assert checked > 300
    assert bad == []


@pytest.mark.xdist_group("symtable-corpus")  # one process: files compared once
@same_table_as_symtable
@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["stdlib", "torch"])
def test_full_corpus_equals_symtable(corpus: str) -> None:
    files = stdlib_files() if corpus == "stdlib" else torch_files()
    bad, checked = _corpus_differences(files)
    assert checked > 500
    assert bad == []


@pytest.mark.xdist_group("symtable-corpus")  # one process: files compared once
@same_table_as_symtable
@pytest.mark.slow
@pytest.mark.network
def test_full_verl_wheels_equal_symtable(verl_sources) -> None:
    files = [p for root in verl_sources.values() for p in python_files(root)]
    bad, checked = _corpus_differences(files)
    assert bad == []


@pytest.mark.xdist_group("quiet")  # a timing: one at a time with the others
def test_build_costs_a_small_multiple_of_parse() -> None:
    """One walk: building scopes costs a few ``ast.parse`` of the same text, never more."""
    text = Path(ast.__file__).read_text(encoding="utf-8") * 3
    t0 = time.perf_counter()
    for _ in range(3):
        ast.parse(text)
    parse = time.perf_counter() - t0
    trees = [ast.parse(text) for _ in range(3)]
    t0 = time.perf_counter()
    for tree in trees:
        ScopeTree.build(tree)
    build = time.perf_counter() - t0
    assert build < 6 * parse
