"""Benchmark items 9 and 10 (issue 26): the cross-file look-outs skip work whose answer
cheap facts already decide, and answer exactly as the full work does."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from ppo_migrate.project import modules
from ppo_migrate.project.snapshot import run_scope
from ppo_migrate.rules import patches, reexports
from ppo_migrate.rules.patches import _top_level_imports, imported_modules
from ppo_migrate.rules.reexports import project_reexports
from ppo_migrate.rules.targets import TargetMatcher, string_constants

TARGET = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"


def test_the_targets_a_module_spells_are_those_it_holds_as_substrings() -> None:
    targets = frozenset({TARGET, "pkg.get_ppo_ray_runtime_env", "pkg.util.make_env", "make_env", "a.b"})
    matcher = TargetMatcher(targets)
    text = (
        "from mypkg.get_ppo_ray_runtime_env import x\n"  # holds pkg.get_... inside a longer word
        "CFG = {'_target_': 'pkg.util.make_env'}\n"
        "make_env()\n"  # the dotless target is never one
        "ab.a.bb\n"  # ``a.b`` inside ``ab.a.bb``: at its last name's second place
    )
    assert matcher.spelled_in(text) == frozenset({"pkg.get_ppo_ray_runtime_env", "pkg.util.make_env", "a.b"})
    assert matcher.spelled_in(text) == frozenset(t for t in targets if "." in t and t in text)
    assert matcher.spelled_in("get_ppo_ray_runtime_env()\nconstants_ppo.get_ppo_ray_runtime_env\n") == frozenset()
    assert matcher.spelled_in(f"x = '{TARGET}'") == frozenset({TARGET})


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


def test_a_module_without_a_top_level_string_assignment_has_no_string_constant() -> None:
    assert string_constants(ast.parse("MODE = 1\n\ndef f():\n    global MODE\n    MODE = 'x'\n")) == {}
    assert string_constants(ast.parse("MODE = 'fast'\nOTHER: str = 'b'\n")) == {"MODE": "fast", "OTHER": "b"}


def test_a_string_constant_is_checked_only_when_its_string_names_a_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked: list[ast.Module] = []

    def counting(tree: ast.Module) -> dict[str, str]:
        checked.append(tree)
        return string_constants(tree)

    monkeypatch.setattr(reexports, "string_constants", counting)
    texts = {
        "pkg/__init__.py": "",
        "pkg/names.py": "from verl.trainer import constants_ppo\nMODE = 'fast'\nRAY_ENV_FN = 'get_ppo_ray_runtime_env'\n",
        "pkg/other.py": "from verl.trainer import constants_ppo\nMODE = 'slow'\n",
        "app.py": "from pkg.names import RAY_ENV_FN\nfrom pkg.other import MODE\n",
    }
    datas = {}
    for name, text in texts.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
        datas[str(tmp_path / name)] = text.encode()
    found = project_reexports(datas, lambda words: {}, [TARGET])
    assert found == {
        "pkg.names.RAY_ENV_FN": TARGET,
        # the module aliases are re-exports too (``from pkg.other import constants_ppo``)
        "pkg.names.constants_ppo.get_ppo_ray_runtime_env": TARGET,
        "pkg.other.constants_ppo.get_ppo_ray_runtime_env": TARGET,
    }
    assert len(checked) == 1  # pkg/names.py's, once: ``'fast'`` and ``'slow'`` name no target


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


def test_namespace_prefixes_are_worked_out_once_a_folder_in_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "ns" / "pkg").mkdir(parents=True)
    (tmp_path / "ns" / "pkg" / "__init__.py").write_text("")
    a, b = tmp_path / "ns" / "pkg" / "a.py", tmp_path / "ns" / "pkg" / "b.py"
    outside = modules.namespace_prefixes(a)
    assert outside[:2] == ["ns", f"{tmp_path.name}.ns"]
    assert modules.module_names(b, tmp_path) == ("pkg.b", "ns.pkg.b")
    asked: list[object] = []
    package = modules.module_package

    def counting(path):
        asked.append(path)
        return package(path)

    monkeypatch.setattr(modules, "module_package", counting)
    with run_scope():
        first = modules.namespace_prefixes(a)
        first.append("changed by its caller")
        assert modules.namespace_prefixes(b) == outside  # the same folder: the same answer
        assert modules.module_names(b, tmp_path) == ("pkg.b", "ns.pkg.b")
        assert modules.module_names(a, tmp_path) == ("pkg.a", "ns.pkg.a")
    # the folders climbed once: ``namespace_prefixes`` and the depth below the root, a
    # folder each, and ``module_name``'s own package of each file
    assert len(asked) == 4


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


def test_a_file_s_own_names_leave_the_held_aliases_alone() -> None:
    data = (
        b"from verl.trainer import constants_ppo\n\n"
        b"class Launcher:\n    cp = constants_ppo\n\n"
        b"    def run(self):\n        return self.cp.get_ppo_ray_runtime_env()\n"
    )
    full = patches.through_names([data], [TARGET])
    assert full.held == frozenset({"cp"})
    assert patches.through_names([data], [TARGET], with_held=False) == full._replace(held=frozenset())


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
