"""Benchmark items 9 and 10 (issue 26): the targets' look-ups (the spelled targets, a module's string constants) skip work whose answer cheap facts
already decide, and answer exactly as the full work does."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from ppo_migrate.project.snapshot import run_scope
from ppo_migrate.rules.targets import spelled_targets, string_constants

TARGET = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"


def test_the_targets_a_module_spells_are_those_it_holds_as_substrings() -> None:
    targets = frozenset({TARGET, "pkg.get_ppo_ray_runtime_env", "pkg.util.make_env", "make_env", "a.b"})
    text = (
        "from mypkg.get_ppo_ray_runtime_env import x\n"  # holds pkg.get_... inside a longer word
        "CFG = {'_target_': 'pkg.util.make_env'}\n"
        "make_env()\n"  # the dotless target is never one
        "ab.a.bb\n"  # ``a.b`` inside ``ab.a.bb``: at its last name's second place
    )
    assert spelled_targets(targets, text) == frozenset({"pkg.get_ppo_ray_runtime_env", "pkg.util.make_env", "a.b"})
    assert spelled_targets(targets, text) == frozenset(t for t in targets if "." in t and t in text)
    assert spelled_targets(targets, "get_ppo_ray_runtime_env()\nconstants_ppo.get_ppo_ray_runtime_env\n") == frozenset()
    assert spelled_targets(targets, f"x = '{TARGET}'") == frozenset({TARGET})


def test_a_module_without_a_top_level_string_assignment_has_no_string_constant() -> None:
    assert string_constants(ast.parse("MODE = 1\n\ndef f():\n    global MODE\n    MODE = 'x'\n")) == {}
    assert string_constants(ast.parse("MODE = 'fast'\nOTHER: str = 'b'\n")) == {"MODE": "fast", "OTHER": "b"}


def test_a_module_s_file_and_constants_are_looked_for_once_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ppo_migrate.project import references
    from ppo_migrate.rules.targets import module_constant

    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "names.py").write_text("RAY_ENV_FN = 'get_ppo_ray_runtime_env'\nOTHER = 'x'\n")
    a, b = str(tmp_path / "app" / "a.py"), str(tmp_path / "app" / "b.py")
    looked: list[str] = []
    find = references.module_file

    def counting(root, module, fs=None):
        looked.append(module)
        return find(root, module, fs)

    monkeypatch.setattr(references, "module_file", counting)
    constants: list[ast.Module] = []
    monkeypatch.setattr(
        "ppo_migrate.rules.targets.string_constants", lambda tree: constants.append(tree) or string_constants(tree)
    )
    with run_scope():
        assert module_constant(a, ("app",), "names", "RAY_ENV_FN") == "get_ppo_ray_runtime_env"
        assert module_constant(b, ("app",), "names", "OTHER") == "x"
        assert module_constant(b, ("app",), "names", "MISSING") is None
        assert module_constant(a, ("app",), "verl.trainer.constants_ppo", "get_ppo_ray_runtime_env") is None
        assert module_constant(b, ("app",), "verl.trainer.constants_ppo", "get_ppo_ray_runtime_env") is None
        assert module_constant("-", (), "names", "OTHER") is None
    assert looked == ["names", "verl.trainer.constants_ppo"]
    assert len(constants) == 1


def test_a_module_s_constants_and_bindings_answer_as_the_full_scan_does() -> None:
    """:meth:`TargetFinder.constant_of` answers a name the module never binds without its
    scope's look-up once the bindings are collected, and reads the body's statements and
    star imports once a module (:meth:`TargetFinder._top_statements`); the answers stay
    those of the scans: a top-level constant, one shadowed by a later star import, one
    bound twice, a name bound in a function only, a builtin."""
    from ppo_migrate.rules.module import parse
    from ppo_migrate.rules.scopes import ScopeTree
    from ppo_migrate.rules.targets import TargetFinder, TargetMatcher, _Binding
    from ppo_migrate.settings_model import Settings

    source = (
        "from os import sep\n"
        "C = 'z'\n"
        "from pkg import *\n"
        "A = 'get_ppo_ray_runtime_env'\n"
        "B = 'x'\n"
        "B = 'y'\n"
        "def f(d):\n"
        "    E = 'local'\n"
        "    return A, B, C, E, len, d\n"
    )
    module = parse(source, "m.py")
    finder = TargetFinder(module, ScopeTree.build(module.tree), TargetMatcher.of(Settings().targets), ())
    loads = {
        n.id: n for n in ast.walk(module.tree)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }
    assert finder.constant_of(loads["A"]) == "get_ppo_ray_runtime_env"
    assert finder._bindings is not None  # collected by the first module-level name
    assert finder.constant_of(loads["B"]) is None  # bound twice
    assert finder.constant_of(loads["C"]) is None  # a star import after it may rebind it
    assert finder.constant_of(loads["E"]) is None  # a function's local
    assert finder.constant_of(loads["len"]) is None  # never bound: no look-up
    assert finder.constant_of(loads["d"]) is None  # a parameter
    top, stars = finder._top_statements()
    assert stars == [(3, "pkg")]
    assert top == {id(stmt) for stmt in module.tree.body}
    # in the binders' order (the facts' walk: the last statement first)
    assert finder.bindings_of("B") == [_Binding(module.tree.body[5].targets[0], None),
                                       _Binding(module.tree.body[4].targets[0], None)]
    assert finder.bindings_of("sep") == [_Binding(module.tree.body[0], "os.sep")]
    assert [type(b) for b in finder.bindings_of("d")] == [_Binding]
