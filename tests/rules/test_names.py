"""``analysis.names``: the core's answers for ``apply --use-ppo-runtime``'s import move.

Each case is judged by running the module before and after the move (a stub verl whose
function takes no argument, and the real ``ppo_runtime``), not by comparing text alone.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import warm_python
from ppo_migrate.rules.names import ModuleNames
from ppo_migrate.codemod import process_text
from ppo_migrate.settings_model import Settings


@pytest.fixture(autouse=True)
def _outside_this_repository(tmp_path, monkeypatch) -> None:
    """``process_text(src, "m.py", ...)`` judges ``m.py`` in the working directory's
    repository; this one names verl's ``PPO_RAY_RUNTIME_ENV`` (``ppo_runtime`` re-exports
    it), which keeps ``--use-ppo-runtime`` from moving anything (fresh user 44, B3)."""
    monkeypatch.chdir(tmp_path)

# verl 0.9.1 decides the callee (issue 26: where nothing declares verl every fix is unsafe)
SETTINGS = Settings(verl_version="0.9.1", verl_version_from_cli=True).replace(use_ppo_runtime=True)
# verl 0.9's signature; ``typing`` so that the annotation ``"cp.typing.Any"`` resolves
STUB = "import typing\ndef get_ppo_ray_runtime_env(config=None):\n    return {'env_vars': {'FROM': 'verl'}}\n"


def _run(tmp_path: Path, name: str, text: str) -> subprocess.CompletedProcess:
    stub = tmp_path / "stub" / "verl" / "trainer"
    stub.mkdir(parents=True, exist_ok=True)
    (tmp_path / "stub" / "verl" / "__init__.py").write_text("")
    (stub / "__init__.py").write_text("")
    (stub / "constants_ppo.py").write_text(STUB)
    (tmp_path / f"{name}.py").write_text(text)
    code = (
        f"import typing, {name} as m; "
        "print(typing.get_type_hints(m.run) if m.run.__annotations__ else '', end=' '); "
        "print(m.run({'trainer': {}})['env_vars'].get('FROM', 'ppo_runtime'))"
    )
    env = {"PYTHONPATH": f"{tmp_path}:{tmp_path / 'stub'}", "PATH": "/usr/bin:/bin"}
    return warm_python.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def _move(src: str) -> str:
    result = process_text(src, "m.py", SETTINGS, fix=True)
    return result.new_text if result.new_text is not None else src


CASES = {
    # `ｐpo_runtime` is `ppo_runtime` to the compiler (NFKC): a local of run, so
    # `ppo_runtime.get_ppo_ray_runtime_env` there would read the int -> left alone
    "nfkc_local": """\
        import verl.trainer.constants_ppo as cp
        def run(config):
            ｐpo_runtime = 1
            return cp.get_ppo_ray_runtime_env()
        """,
    # a `global` in another function rebinds the module's name at run time
    "global_elsewhere": """\
        import verl.trainer.constants_ppo as cp
        def setup():
            global ppo_runtime
            ppo_runtime = None
        def run(config):
            setup()
            return cp.get_ppo_ray_runtime_env()
        """,
    # the only other use of `cp` is a string annotation: the import must stay
    "string_annotation": """\
        import verl.trainer.constants_ppo as cp
        def run(config) -> "cp.typing.Any":
            return cp.get_ppo_ray_runtime_env()
        """,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_move_never_breaks_a_module_that_ran(tmp_path: Path, case: str) -> None:
    src = textwrap.dedent(CASES[case])
    before = _run(tmp_path, "before", src)
    assert before.returncode == 0, before.stderr
    assert before.stdout.split()[-1] == "verl"
    out = _move(src)
    after = _run(tmp_path, "after", out)
    assert after.returncode == 0, (out, after.stderr)
    if case == "string_annotation":
        assert "import verl.trainer.constants_ppo as cp\n" in out  # still read by the annotation
        assert "ppo_runtime.get_ppo_ray_runtime_env(config)" in out
        assert after.stdout.split()[-1] == "ppo_runtime"  # the moved call runs ppo_runtime's
    else:
        assert "cp.get_ppo_ray_runtime_env(config)" in out  # fixed, through verl's module
        assert "import ppo_runtime" not in out
        assert after.stdout.split()[-1] == "verl"


def test_attribute_references_follow_imports_and_skip_other_bindings() -> None:
    names = ModuleNames(textwrap.dedent("""\
        import verl.trainer.constants_ppo as cp
        import verl.trainer.constants_ppo
        from . import constants_ppo as rel
        a = cp.get_ppo_ray_runtime_env
        b = verl.trainer.constants_ppo.get_ppo_ray_runtime_env
        c = rel.get_ppo_ray_runtime_env
        def f(cp):
            return cp.get_ppo_ray_runtime_env
        x = (
            cp
        ).get_ppo_ray_runtime_env
        """))
    ends = names.attribute_references({"verl.trainer.constants_ppo.get_ppo_ray_runtime_env"}, "get_ppo_ray_runtime_env")
    # line 4 (alias), line 5 (full dotted name), line 11 (parenthesised head): not the
    # relative import (line 6) nor the parameter `cp` (line 8)
    assert ends == {(4, 31), (5, 55), (11, 26)}


def test_binds_only_package() -> None:
    assert ModuleNames("import ppo_runtime\nppo_runtime.x\n").binds_only_package("ppo_runtime")
    assert ModuleNames("import ppo_runtime.env\n").binds_only_package("ppo_runtime")
    assert ModuleNames("def f():\n    import ppo_runtime as ppo_runtime\n").binds_only_package("ppo_runtime")
    for src in (
        "import ppo_runtime.env as ppo_runtime\n",
        "import mylib as ppo_runtime\n",
        "print(ppo_runtime)\n",  # read, bound nowhere
        "class A:\n    ppo_runtime = 1\n",
        "def f():\n    global ppo_runtime\n    ppo_runtime = 2\n",
        "[ppo_runtime for ppo_runtime in ()]\n",
        "try:\n    pass\nexcept E as ppo_runtime:\n    pass\n",
        "ｐpo_runtime = 0\n",
    ):
        assert not ModuleNames(src).binds_only_package("ppo_runtime"), src


def test_module_import_uses() -> None:
    names = ModuleNames(textwrap.dedent("""\
        import verl.trainer.constants_ppo as cp
        import verl.trainer.constants_ppo
        from verl.trainer import constants_ppo as cp2
        from verl.trainer import main_ppo
        import os
        def f(x: "cp2.T"):
            cp = 1
            return cp, verl.utils
        """))
    uses = names.module_import_uses({"verl.trainer.constants_ppo", "verl.trainer.main_ppo"})
    # `cp` in f is its own local; `verl.utils` reads the `verl` the dotted import binds
    assert uses == {"cp": 0, "verl.trainer.constants_ppo": 1, "cp2": 1, "main_ppo": 0}


def test_lines_with_only_bound_names() -> None:
    names = ModuleNames(textwrap.dedent("""\
        from verl.trainer.constants_ppo import *
        from ppo_runtime import get_ppo_ray_runtime_env
        a = get_ppo_ray_runtime_env(len([]))
        b = get_ppo_ray_runtime_env(PPO_RAY_RUNTIME_ENV)
        c = PPO_RAY_RUNTIME_ENV
        """))
    # line 4 also reads a name only the star import can give
    assert names.lines_with_only_bound_names("get_ppo_ray_runtime_env") == {3}
