"""rules/targets.py: which calls are target calls, through every import form."""

from __future__ import annotations

import pytest

from ppo_migrate.rules.module import parse
from ppo_migrate.rules.scopes import ScopeTree
from ppo_migrate.rules.targets import TargetFinder, configless_kind
from ppo_migrate.settings_model import Settings
from ppo_migrate.rules.targets import TargetMatcher

T = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"
IMP = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"


def found(src: str, package: tuple[str, ...] = ()) -> list[tuple]:
    module = parse(src, "m.py")
    finder = TargetFinder(module, ScopeTree.build(module.tree), TargetMatcher.of(Settings().targets), package)
    return [(t.verdict.name, t.names, t.callee, t.call.lineno) for t in finder.calls()]


@pytest.mark.parametrize(
    ("src", "callee"),
    [
        (IMP + "get_ppo_ray_runtime_env()\n", "get_ppo_ray_runtime_env"),
        ("from verl.trainer.constants_ppo import get_ppo_ray_runtime_env as g\ng()\n", "g"),
        ("import verl.trainer.constants_ppo as c\nc.get_ppo_ray_runtime_env()\n", "c.get_ppo_ray_runtime_env"),
        ("from verl.trainer import constants_ppo\nconstants_ppo.get_ppo_ray_runtime_env()\n",
         "constants_ppo.get_ppo_ray_runtime_env"),
        ("import verl\nverl.trainer.constants_ppo.get_ppo_ray_runtime_env()\n", f"{T}"),
        ("from verl.trainer.constants_ppo import *\ndef f():\n    get_ppo_ray_runtime_env()\n",
         "get_ppo_ray_runtime_env"),
        ("def f():\n    from verl.trainer.main_ppo import get_ppo_ray_runtime_env as g\n    g()\n", "g"),
        # a ``global`` import in one function binds the name the other one calls
        ("def s():\n    global g\n    from verl.trainer.constants_ppo import get_ppo_ray_runtime_env as g\n"
         "def f():\n    g()\n", "g"),
        (IMP + "(get_ppo_ray_runtime_env)()\n", "(get_ppo_ray_runtime_env)"),
    ],
)
def test_import_forms_are_targets(src: str, callee: str) -> None:
    ((verdict, names, spelled, _),) = found(src)
    assert verdict == "TARGET" and spelled == callee
    assert len(names) == 1 and names[0].endswith(".get_ppo_ray_runtime_env")


@pytest.mark.parametrize(
    "src",
    [
        IMP + "def f(get_ppo_ray_runtime_env):\n    get_ppo_ray_runtime_env()\n",  # a parameter shadows it
        "def get_ppo_ray_runtime_env():\n    pass\nget_ppo_ray_runtime_env()\n",
        "from mylib import get_ppo_ray_runtime_env\nget_ppo_ray_runtime_env()\n",
        "from mylib import *\nget_ppo_ray_runtime_env()\n",
        "get_ppo_ray_runtime_env()\n",
        IMP + "x = get_ppo_ray_runtime_env\nx.get_ppo_ray_runtime_env()()\n",
        # a class body's binding does not enclose its methods: the method sees the global
        "def get_ppo_ray_runtime_env():\n    pass\nclass K:\n    " + IMP + "    def m(self):\n"
        "        get_ppo_ray_runtime_env()\n",
    ],
)
def test_not_targets(src: str) -> None:
    assert [f for f in found(src) if f[0] != "OTHER"] == []


def test_conditional_binding_is_ambiguous() -> None:
    src = (
        "try:\n    " + IMP + "except ImportError:\n    def get_ppo_ray_runtime_env():\n"
        "        return {}\nget_ppo_ray_runtime_env()\n"
    )
    assert found(src) == [("AMBIGUOUS", ("get_ppo_ray_runtime_env", T), "get_ppo_ray_runtime_env", 6)]


def test_relative_imports_resolve_against_the_package() -> None:
    src = "from ..trainer import constants_ppo as c\nc.get_ppo_ray_runtime_env()\n"
    assert found(src, ("verl", "utils"))[0][:2] == ("TARGET", (T,))
    src = "from . import constants_ppo\nconstants_ppo.get_ppo_ray_runtime_env()\n"
    assert found(src, ("verl", "trainer"))[0][:2] == ("TARGET", (T,))
    assert found(src, ("mypkg",)) == []
    src = "from ...up import get_ppo_ray_runtime_env\nget_ppo_ray_runtime_env()\n"
    assert found(src, ("pkg",))[0][:2] == ("UNRESOLVABLE", ("...up.get_ppo_ray_runtime_env",))


def test_configless_kinds() -> None:
    import ast

    def kind(code: str):
        return configless_kind(ast.parse(code, mode="eval").body)

    assert [kind(c) for c in ("f()", "f(None)", "f(config=None)", "f(x=1)", "f(c)", "f(*a)",
                              "f(**k)", "f(config=c)", "f(x=1, config=None)")] == [
        "empty", "none", "config=None", "keywords", None, None, None, None, "config=None"]
    # empty literal unpackings pass nothing: the call is ``f()`` (issue 26); any that may
    # pass something, or any other argument beside them, is not configless
    assert [kind(c) for c in ("f(*())", "f(*[])", "f(**{})", "f(*(), **{})", "f(*(), *[])",
                              "f(*(c,))", "f(**{'config': c})", "f(*(), c)", "f(*(), x=1)",
                              "f(*a, **{})")] == [
        "unpacked", "unpacked", "unpacked", "unpacked", "unpacked", None, None, None, None, None]


def test_module_names_of_a_namespace_folder_go_up_to_the_import_root(tmp_path) -> None:
    """PEP 420: a folder without ``__init__.py`` under an import root is a namespace package;
    a module has a name under each such folder up to the root, the root's last."""
    from ppo_migrate.project.modules import module_names

    for name in ("myproj/env.py", "myproj/pkg/__init__.py", "myproj/pkg/mod.py", "a/b/c.py", "top.py",
                 "reg/__init__.py", "reg/m.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    assert module_names(tmp_path / "myproj/env.py", tmp_path) == ("env", "myproj.env")
    assert module_names(tmp_path / "myproj/pkg/mod.py", tmp_path) == ("pkg.mod", "myproj.pkg.mod")
    assert module_names(tmp_path / "myproj/pkg/__init__.py", tmp_path) == ("pkg", "myproj.pkg")
    assert module_names(tmp_path / "a/b/c.py", tmp_path) == ("c", "b.c", "a.b.c")
    assert module_names(tmp_path / "a/b/c.py", tmp_path / "a") == ("c", "b.c")
    assert module_names(tmp_path / "top.py", tmp_path) == ("top",)
    assert module_names(tmp_path / "reg/m.py", tmp_path) == ("reg.m",)
    # a file outside the root: its own name only
    assert module_names(tmp_path / "a/b/c.py", tmp_path / "myproj") == ("c",)
    # no root: as far as namespace_prefixes goes
    assert module_names(tmp_path / "a/b/c.py")[:3] == ("c", "b.c", "a.b.c")


def test_a_matcher_is_built_once_for_the_same_tuple_of_targets() -> None:
    """The settings' targets are asked for a matcher once a file: the same tuple gives the
    same matcher; another tuple of names, or a list, gives its own."""
    targets = ("verl.trainer.constants_ppo.get_ppo_ray_runtime_env", "pkg.mod.get_ppo_ray_runtime_env")
    first = TargetMatcher.of(targets)
    assert TargetMatcher.of(targets) is first
    assert first.targets == frozenset(targets)
    other = TargetMatcher.of(targets[:1])
    assert other is not first and other.targets == frozenset(targets[:1])
    listed = ["pkg.mod.f"]
    assert TargetMatcher.of(listed).targets == {"pkg.mod.f"}
    listed.append("pkg.mod.g")
    assert TargetMatcher.of(listed).targets == {"pkg.mod.f", "pkg.mod.g"}  # a list is never kept
