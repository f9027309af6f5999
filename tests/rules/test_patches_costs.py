"""Benchmark items 9 and 10 (issue 26): the test doubles' look-out and the re-exports' reading of imports skip work whose answer cheap facts
already decide, and answer exactly as the full work does."""

from __future__ import annotations

import ast
import re

import pytest
from ppo_migrate.rules import patches
from ppo_migrate.rules.patches import _top_level_imports, imported_modules

TARGET = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"


@pytest.mark.parametrize(
    ("source", "statements"),
    [
        ("import os\nfrom a.b import c as d\n\ndef f():\n    return os\n", 2),
        ("def f():\n    import sys\n", None),  # an import below the top level: walked
        ("import os\n# import sys later\n", None),  # ``import`` spelled twice: walked
        ("# -*- coding: latin-1 -*-\nimport os\n", None),  # a coding declaration: walked
        ("x = 1\n", 0),
    ],
)
def test_a_module_s_imports_are_its_top_level_ones_when_its_bytes_say_so(source: str, statements) -> None:
    data = source.encode()
    tree = ast.parse(source)
    found = _top_level_imports(tree, data)
    assert (None if found is None else len(found)) == statements
    # the answer with the bytes is the walk's
    assert imported_modules(tree, ("pkg",), from_packages=True, data=data) == imported_modules(
        tree, ("pkg",), from_packages=True
    )


def test_imports_below_the_top_level_are_found_with_the_bytes() -> None:
    source = "import os\n\ndef f():\n    from verl.trainer import constants_ppo\n"
    found = imported_modules(ast.parse(source), (), from_packages=True, data=source.encode())
    assert found == {"os", "verl", "verl.trainer", "verl.trainer.constants_ppo"}


@pytest.mark.parametrize(
    ("data", "found"),
    [
        (b"return dispatch(x)\n", True),  # ``patch`` has no word boundary in the pattern
        (b"cfg.updates = 1\n", False),
        (b"cfg.update(x)\n", True),
        (b"g = globals ()\n", True),
        (b"g = myglobals()\n", False),
        (b"sys.modules\n", True),
        (b"submodules = 1\nexec_fn = 2\n", False),
        (b"", False),
    ],
)
def test_the_patch_words_are_found_as_their_pattern_finds_them(data: bytes, found: bool) -> None:
    assert patches._patch_words(data) is found
    assert (re.search(patches._PATCH_WORDS, data) is not None) is found


def test_the_replacements_of_a_tree_are_found_once() -> None:
    tree = ast.parse(
        "import app.launcher as launcher\n\n"
        "def test_x(monkeypatch):\n"
        "    monkeypatch.setattr(launcher, 'get_ppo_ray_runtime_env', lambda: {})\n"
    )
    first = list(patches.replacements(tree))
    assert [(r.name, r.line) for r in first] == [("get_ppo_ray_runtime_env", 4)]
    assert list(patches.replacements(tree)) == first
    assert patches._imported_modules(tree) is patches._imported_modules(tree)
    assert patches._imported_modules(tree) == {"launcher": "app.launcher"}


def test_the_table_s_nodes_come_from_the_module_s_one_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    from ppo_migrate.rules.module import parse

    source = (
        "import app.launcher as launcher\n"
        "NAME = 'app.launcher.' + 'get_ppo_ray_runtime_env'\n"
        "for launcher.cp in fakes:\n"
        "    globals()['get_ppo_ray_runtime_env'] = shim\n"
        "monkeypatch.setattr(launcher, 'make_env', g(h('x')))\n"
    )
    expected = patches._Nodes(patches._walk(ast.parse(source)))
    module = parse(source, "m.py")

    def no_walk(tree):  # the module's walk already holds every node the table sorts
        raise AssertionError("walked again")

    monkeypatch.setattr(patches, "_walk", no_walk)
    nodes = patches._nodes(module.tree)
    for kind in ("changes", "imports", "generic", "assigns", "keyed"):
        assert [ast.dump(n) for n in getattr(nodes, kind)] == [ast.dump(n) for n in getattr(expected, kind)]
    assert [type(n).__name__ for n in nodes.changes] == ["Assign", "For", "Assign", "Call", "Call", "Call", "Call"]
    assert [n.value for n in nodes.generic if isinstance(n, ast.Constant)] == [
        "app.launcher.", "get_ppo_ray_runtime_env", "make_env", "get_ppo_ray_runtime_env", "x",
    ]
    assert [(r.name, r.line) for r in patches.replacements(module.tree)] == [
        ("cp", 3), ("get_ppo_ray_runtime_env", 4), ("make_env", 5),
    ]


def test_a_file_s_own_names_leave_the_held_aliases_alone() -> None:
    data = (
        b"from verl.trainer import constants_ppo\n\n"
        b"class Launcher:\n    cp = constants_ppo\n\n"
        b"    def run(self):\n        return self.cp.get_ppo_ray_runtime_env()\n"
    )
    full = patches.through_names([data], [TARGET])
    assert full.held == frozenset({"cp"})
    assert patches.through_names([data], [TARGET], with_held=False) == full._replace(held=frozenset())


_OWN_SOURCES = {
    # attributes of the instance only: certainly nothing, the names never read
    "plain": (
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n"
        "class T:\n    def __init__(self, config):\n        self.config = config\n"
        "        self.env = get_ppo_ray_runtime_env()\n",
        None,
    ),
    # an alias of the function assigned on the instance: a replacement of the function
    "alias": (
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env as make_env\n\n"
        "class T:\n    def __init__(self, fake):\n        self.make_env = fake\n",
        (5, "patched"),
    ),
    # ``<alias> = <function>`` on its line: an alias too
    "assigned": (
        "from verl.trainer import constants_ppo\n"
        "make_env = constants_ppo.get_ppo_ray_runtime_env\n\n"
        "def run(obj, fake):\n    obj.make_env = fake\n",
        (5, "patched"),
    ),
    # the function's own name on an instance
    "named": (
        "import verl.trainer.constants_ppo as cp\n\n"
        "def run(obj):\n    obj.get_ppo_ray_runtime_env = lambda: {}\n",
        (4, "patched"),
    ),
    # the module alias the calls go through, replaced on its import's name
    "module": (
        "import app.launcher as launcher\nfrom verl.trainer import constants_ppo\n\n"
        "launcher.constants_ppo = object()\n",
        (4, "patched"),
    ),
    # ``globals()[...]``: left to the full reading
    "globals": (
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n"
        "globals()['get_ppo_ray_runtime_env'] = lambda: {}\n",
        (3, "rebound"),
    ),
}


@pytest.mark.parametrize("case", sorted(_OWN_SOURCES))
def test_a_module_s_own_replacement_is_gated_only_where_it_is_certainly_none(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    source, expected = _OWN_SOURCES[case]
    path = "tests/test_x.py" if case != "globals" else "pkg/x.py"
    gated = patches.own_replacement(ast.parse(source), source, [TARGET], path)
    assert (None if gated is None else (gated.line, gated.kind)) == expected
    may = patches._may_replace_own(ast.parse(source), source.encode(), (TARGET,))
    assert may is (expected is not None)
    if expected is None:  # answered without reading the file for the names
        monkeypatch.setattr(patches, "through_names", lambda *a, **k: (_ for _ in ()).throw(AssertionError))
        assert patches.own_replacement(ast.parse(source), source, [TARGET], path) is None
    # the gate's answer is the full reading's
    monkeypatch.undo()
    monkeypatch.setattr(patches, "_may_replace_own", lambda *a: True)
    assert patches.own_replacement(ast.parse(source), source, [TARGET], path) == gated
