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
