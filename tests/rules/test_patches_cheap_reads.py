"""Benchmark items 9 and 12 (issue 26): the test doubles' look-out reads a file's bytes
before it parses them for strings of code, a module's own replacements make its strings
and aliases only where a call or an item assigned asks, and the patterns of the run's
targets and modules are made cheaply; each answers exactly as the full work does."""

from __future__ import annotations

import ast
import re

import pytest
from ppo_migrate.project.spelling import module_import_pattern
from ppo_migrate.rules import patches
from ppo_migrate.rules.embedded_python import string_code

TARGET = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"
NAMES = [b"get_ppo_ray_runtime_env", b"constants_ppo"]


@pytest.mark.parametrize(
    ("source", "found"),
    [
        # docstrings and a call outside any string: no string spells the function
        ('"""A module."""\nfrom x import get_ppo_ray_runtime_env\n\n'
         'def f(config):\n    """Run it."""\n    return get_ppo_ray_runtime_env()\n', False),
        # a string of code naming the function
        ('CODE = "get_ppo_ray_runtime_env = lambda: {}"\n', True),
        # a triple-quoted one, over lines
        ("CODE = '''\ndef get_ppo_ray_runtime_env():\n    return {}\n'''\n", True),
        # the name in a string without a mark of code: not code
        ('TARGET = "pkg.get_ppo_ray_runtime_env"\n', False),
        # joined literals: the name is cut in two
        ('CODE = ("get_ppo_ray_" "runtime_env = 1")\n', True),
        ('CODE = ("get_ppo_ray_"  # the first half\n    f"runtime_env = {1}")\n', True),
        ('CODE = "get_ppo_ray_" \\\n    "runtime_env = 1"\n', True),
        # not joined: an operator between them
        ('CODE = ("get_ppo_ray_") + ("runtime_env = 1")\n', False),
        # a quote in a comment opens no string
        ("# don't: get_ppo_ray_runtime_env = 1\nx = 'a'\n", False),
        ("x = 1  # it's here\nCODE = 'constants_ppo.x = 1'\n", True),
        # a comment ends at a lone carriage return (old Mac line ends)
        ("# don't\rCODE = 'get_ppo_ray_runtime_env = 1'\r", True),
        # an escape may spell anything: read as code
        ('CODE = "get_ppo_ray_runtime_env\\x3d 1"\n', True),
        # a declared encoding: the bytes are not read
        ("# -*- coding: latin-1 -*-\nx = 'a'\n", True),
        ("", False),
    ],
)
def test_a_file_s_string_literals_say_whether_a_constant_may_hold_code(source: str, found: bool) -> None:
    data = source.encode()
    assert patches._code_strings(data, NAMES) is found
    # never less than the tree's own answer (docstrings counted too)
    constants = [
        n.value for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]
    exact = any(
        any(w.decode() in v for w in NAMES) and any(m in v for m in ("\n", ";", "=", "def ", "import "))
        for v in constants
    )
    assert found or not exact


def test_the_look_out_leaves_a_module_of_docstrings_unparsed(monkeypatch: pytest.MonkeyPatch) -> None:
    data = (
        b'"""Launch."""\nfrom verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n'
        b'def run(config):\n    """Start."""\n    return get_ppo_ray_runtime_env()\n'
    )
    words = [b"get_ppo_ray_runtime_env"]
    # the bytes alone passed it before: a name and a triple quote
    assert patches._may_hold_code(data, words) is True
    assert patches._may_hold_code(data, words, [*words, b"constants_ppo"]) is False
    code = data.replace(b'"""Start."""', b'SRC = """get_ppo_ray_runtime_env = lambda: {}"""')
    assert patches._may_hold_code(code, words, [*words, b"constants_ppo"]) is True
    assert [line for _, line in string_code(ast.parse(code), ["get_ppo_ray_runtime_env"])] == [6]


@pytest.mark.parametrize(
    "source",
    [
        # calls of no form, attributes assigned: no strings, no aliases needed
        "class A:\n    def f(self, x):\n        self.x = x\n        items.append(x)\n        print(x)\n",
        # a hook's list under another name, a namespace under another name (fresh40, B6)
        "import sys\nhooks = sys.meta_path\nhooks.insert(0, F())\nns = vars(cp)\nns['f'] = g\n",
        # a target built from strings (trial 26b)
        "T = 'launcher.' + 'get_ppo_ray_runtime_env'\nmock.patch(T, f)\nd['k'] = 1\n",
        "sys.modules['verl.trainer.constants_ppo'] = fake\nglobals()['f'] = g\n",
        "exec(SRC, globals())\nSRC = 'f = 1'\n",
    ],
)
def test_a_module_s_replacements_are_the_full_reading_s(source: str) -> None:
    tree = ast.parse(source)
    nodes = patches._nodes(tree)
    env = patches.string_env(tree)
    aliases = patches._object_aliases(tree, nodes)
    full = []  # every call read, with the strings and aliases made first
    for node in nodes.changes:
        if isinstance(node, ast.Call):
            full += patches.call_replacements(patches._unaliased(node, aliases) if aliases else node, env)
    got = [r for r in patches.replacements(tree) if r.form != "an assignment"]
    assert [(r.name, r.space, r.module, r.line, r.form) for r in got] == [
        (r.name, r.space, r.module, r.line, r.form) for r in full
    ]


def test_the_call_forms_are_the_table_s_callables() -> None:
    forms = patches._CALL_FORMS
    assert {"setattr", "patch", "multiple", "exec", "eval", "append", "insert", "path_hook", "runsource",
            "load_module", "run_path"} <= forms
    assert "print" not in forms and "get" not in forms
    # a call of another callable replaces nothing, whatever its arguments
    call = ast.parse("obj.configure(sys.modules, 'pkg.get_ppo_ray_runtime_env', globals())").body[0].value
    assert patches.call_replacements(call, {}) == []


@pytest.mark.parametrize(
    ("source", "aliases"),
    [
        ("from verl.trainer.constants_ppo import get_ppo_ray_runtime_env as make_env\n", {"make_env"}),
        ("make_env = constants_ppo.get_ppo_ray_runtime_env\n", {"make_env"}),
        ("import verl.trainer.constants_ppo as cppo\nself.x = 1\n", set()),
        # an alias that is a module's name: its own ``as`` lines make aliases too
        ("from x import get_ppo_ray_runtime_env as constants_ppo\nimport a.constants_ppo as f2\n", {"constants_ppo", "f2"}),
        # ... only after it (the lines in order)
        ("import a.constants_ppo as f2\nfrom x import get_ppo_ray_runtime_env as constants_ppo\n", {"constants_ppo"}),
    ],
)
def test_the_function_s_aliases_are_found_on_its_lines(source: str, aliases: set[str]) -> None:
    forms = patches._target_forms((TARGET,))
    assert patches._function_aliases(source.encode(), forms) == aliases
    # as :func:`through_names` finds them
    assert patches.through_names([source.encode()], [TARGET]).functions - forms.functions == aliases


@pytest.mark.parametrize(
    ("data", "found"),
    [
        (b"import lib\n", True),
        (b"import pkg.lib as l\n", True),
        (b"from pkg import (a,\n    lib)\n", True),
        (b"from pkg import(lib)\n", True),
        (b"from pkg.lib import x\n", False),
        (b"import library\n", False),
        (b"reimport lib\n", False),
        (b"import x  # lib\n", False),
        (b"import x; lib = 1\n", False),
        (b"import_module('lib')\n", False),
        (b"import (a,\n b\n", False),
        (b"import (a,\n lib\n", True),  # no ``)``: to the end, as ``[^)]*``
        (b"", False),
    ],
)
def test_a_module_s_import_is_found_as_the_expression_finds_it(data: bytes, found: bool) -> None:
    modules = {"lib", "other"}
    assert (module_import_pattern(modules).search(data) is not None) is found
    alternatives = b"lib|other"
    expression = re.compile(
        rb"\bimport[ \t]+[^\n;#]*\b(?:" + alternatives + rb")\b|\bimport[ \t]*\([^)]*\b(?:" + alternatives + rb")\b"
    )
    assert (expression.search(data) is not None) is found
    # a module that is no plain word keeps the expression
    assert (module_import_pattern({"lib", "my-lib"}).search(data) is not None) is found
