"""Issue 26, family 6: a call through the project's own re-export is found whichever files
the command line names, also when none of them names the runtime function
(``from pkg.util import make_env``; ``pkg/util.py`` re-exports it): the re-export is
looked for in the repository beyond the named paths."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import warm_python
from cli_helpers import run_cli, verl_stub
from ppo_migrate.rules.reexports import project_reexports

UTIL = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env as make_env\n"
CALLER = (
    "from omegaconf import OmegaConf\n"
    "\n"
    "from pkg.util import make_env\n"
    "\n"
    "\n"
    "def run(config):\n"
    "    return make_env()\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    print('ran', run(OmegaConf.create({'trainer': {'n_gpus_per_node': 1}})))\n"
)


def _project(root: Path) -> Path:
    (root / ".git").mkdir(parents=True)
    files = {
        "requirements.txt": "verl>=0.9\n",
        "pkg/__init__.py": "",
        "pkg/util.py": UTIL,
        "app/__init__.py": "",
        "app/b.py": CALLER,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _ran(root: Path, stub: Path) -> str:
    env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{stub}"}
    proc = warm_python.run([sys.executable, "-m", "app.b"], cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def _found(root: Path) -> list[tuple]:
    """``check``'s findings in ``root``: (file under the project, code, row, fix applicability)."""
    proc = run_cli("check", "--output-format", "json", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    return [(f["filename"].replace(os.sep, "/").rsplit("proj/", 1)[-1], f["code"], f["location"]["row"],
             (f["fix"] or {}).get("applicability")) for f in json.loads(proc.stdout)]


@pytest.mark.parametrize(("where", "target"), [(".", "app/b.py"), (".", "app"), ("app", "b.py"), ("app", ".")])
def test_a_call_through_a_re_export_is_found_from_the_named_file_alone(tmp_path: Path, where: str, target: str) -> None:
    root = _project(tmp_path / "proj")
    stub = verl_stub(tmp_path / "stub")
    assert _ran(root, stub) == "ran None"
    proc = run_cli("check", "--output-format", "json", "--exit-zero", target, cwd=root / where)
    assert proc.returncode == 0, proc.stderr
    found = [(f["code"], f["location"]["row"], f["location"]["column"], (f["fix"] or {}).get("applicability"))
             for f in json.loads(proc.stdout)]
    assert found == [("PPO001", 7, 12, "safe")], proc.stdout
    proc = run_cli("apply", target, cwd=root / where)
    assert proc.returncode == 0, proc.stderr
    assert "    return make_env(config)\n" in (root / "app/b.py").read_text()
    # the stub's 0.9 function returns the config it is given: the rewritten call passes it
    assert _ran(root, stub) == "ran {'trainer': {'n_gpus_per_node': 1}}"


STAR_CALLER = CALLER.replace("from pkg.util import make_env", "from pkg import get_ppo_ray_runtime_env").replace(
    "make_env()", "get_ppo_ray_runtime_env()"
)


@pytest.mark.parametrize(
    ("init", "util"),
    [
        ("from .util import *\n", "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"),
        ("from pkg.util import *\n", "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"),
        ("from verl.trainer.constants_ppo import *\n", ""),
    ],
)
def test_a_star_import_re_exports_the_function(tmp_path: Path, init: str, util: str) -> None:
    """``pkg/__init__.py`` re-exporting by a star import spells no name of the function: the
    call in ``app/b.py`` (``from pkg import get_ppo_ray_runtime_env``) was not found ("All
    checks passed!", a fresh tester's x04). It is, and the rewritten call runs."""
    root = _project(tmp_path / "proj")
    (root / "pkg/__init__.py").write_text(init)
    (root / "pkg/util.py").write_text(util)
    (root / "app/b.py").write_text(STAR_CALLER)
    stub = verl_stub(tmp_path / "stub")
    (stub / "verl/trainer/constants_ppo.py").write_text(
        "__all__ = ['get_ppo_ray_runtime_env']\n\n\ndef get_ppo_ray_runtime_env(config=None):\n    return config\n"
    )
    assert _ran(root, stub) == "ran None"
    assert _found(root) == [("app/b.py", "PPO001", 7, "safe")]
    assert run_cli("apply", "app/b.py", cwd=root).returncode == 0
    assert _ran(root, stub) == "ran {'trainer': {'n_gpus_per_node': 1}}"


@pytest.mark.parametrize(
    ("imports", "call"),
    [
        ("import pkg.deps", "pkg.deps.cp.get_ppo_ray_runtime_env()"),
        ("from pkg import deps", "deps.cp.get_ppo_ray_runtime_env()"),
        ("import sys\nimport verl.trainer.constants_ppo",
         "sys.modules['verl.trainer.constants_ppo'].get_ppo_ray_runtime_env()"),
    ],
)
def test_a_call_through_a_module_alias_of_an_imported_module_is_found(
    tmp_path: Path, imports: str, call: str
) -> None:
    """Trial 26b (family 6, "All checks passed!"): ``pkg/deps.py`` binds verl's module as
    ``cp`` and the caller reaches it through the module it imports (``pkg.deps.cp.f()``), or
    looks the module up in ``sys.modules``. The call is found, and the rewritten call runs."""
    root = _project(tmp_path / "proj")
    (root / "pkg/deps.py").write_text("import verl.trainer.constants_ppo as cp  # noqa: F401\n")
    (root / "app/b.py").write_text(CALLER.replace("from pkg.util import make_env", imports)
                                   .replace("make_env()", call))
    stub = verl_stub(tmp_path / "stub")
    assert _ran(root, stub) == "ran None"
    proc = run_cli("check", "--output-format", "json", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    found = [(f["filename"].replace(os.sep, "/").rsplit("proj/", 1)[-1], f["code"],
              (f["fix"] or {}).get("applicability")) for f in json.loads(proc.stdout)]
    assert found == [("app/b.py", "PPO001", "safe")], proc.stdout
    assert run_cli("apply", ".", cwd=root).returncode == 0
    assert call.replace("()", "(config)") in (root / "app/b.py").read_text()
    assert _ran(root, stub) == "ran {'trainer': {'n_gpus_per_node': 1}}"


def test_re_exports_of_re_exports_through_module_aliases_and_star_imports(tmp_path: Path) -> None:
    """:func:`project_reexports` follows a module re-exported under an alias
    (``pkg/_compat.py``: ``from verl.trainer import constants_ppo as cp``), a star import of
    that module's re-export and a plain alias of it, each found once its owner's names are
    known (the names known are looked up by their owner module; a scan of every name known
    was quadratic in the run), and a private name stays out of the star import."""
    target = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"
    (tmp_path / "pkg").mkdir()
    (tmp_path / "app").mkdir()
    texts = {
        "pkg/__init__.py": "",
        "pkg/_compat.py": "from verl.trainer import constants_ppo as cp\nfrom verl.trainer.constants_ppo import get_ppo_ray_runtime_env as _private\n",
        "pkg/util.py": "from pkg._compat import cp\nmake_env = cp.get_ppo_ray_runtime_env\n",
        "pkg/api.py": "from pkg.util import *\nfrom pkg._compat import *\n",
        "app/__init__.py": "",
        "app/b.py": "from pkg.api import make_env\nfrom pkg.util import cp\nfrom pkg._compat import cp\n",
    }
    datas = {}
    for name, text in texts.items():
        (tmp_path / name).write_text(text)
        datas[str(tmp_path / name)] = text.encode()
    found = project_reexports(datas, lambda words: {}, [target])
    assert found == {
        "pkg._compat.cp.get_ppo_ray_runtime_env": target,
        "pkg._compat._private": target,  # a re-export of its own, but no star import's
        "pkg.util.cp.get_ppo_ray_runtime_env": target,
        "pkg.util.make_env": target,
        "pkg.api.make_env": target,
    }


NAMESPACE_TRAIN = {
    "from": "from myproj.env import get_ppo_ray_runtime_env\n",
    "alias": "import myproj.env as e\n",
}


@pytest.mark.parametrize("init", [False, True])
@pytest.mark.parametrize("form", ["from", "alias"])
@pytest.mark.parametrize("target", [".", "train.py"])
def test_a_re_export_through_a_namespace_package_is_found(tmp_path: Path, init: bool, form: str, target: str) -> None:
    """Trial 26c's MISSED (g6_namespace_pkg_reexport, g6b_namespace_module_alias): PEP 420,
    a folder without ``__init__.py`` under an import root is a namespace package, so
    ``myproj/env.py`` is ``myproj.env`` to ``train.py`` at the root. Its re-export was not
    followed ("All checks passed!"; with an ``__init__.py`` it was). Both are found, from the
    run on the root and on ``train.py`` alone (``myproj/env.py`` then beyond the run), and
    the rewritten call runs."""
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "myproj").mkdir()
    (root / "requirements.txt").write_text("verl>=0.9\n")
    (root / "myproj/env.py").write_text("from verl.trainer.constants_ppo import get_ppo_ray_runtime_env  # noqa: F401\n")
    if init:
        (root / "myproj/__init__.py").write_text("")
    call = "get_ppo_ray_runtime_env()" if form == "from" else "e.get_ppo_ray_runtime_env()"
    (root / "train.py").write_text(
        f"from omegaconf import OmegaConf\n{NAMESPACE_TRAIN[form]}\n\ndef main(config):\n    return {call}\n\n\n"
        "if __name__ == '__main__':\n    print('ran', main(OmegaConf.create({'trainer': {'n_gpus_per_node': 1}})))\n"
    )
    stub = verl_stub(tmp_path / "stub")
    env = {**os.environ, "PYTHONPATH": str(stub)}

    def ran() -> str:
        proc = warm_python.run([sys.executable, "train.py"], cwd=root, env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.strip()

    assert ran() == "ran None"
    proc = run_cli("check", "--output-format", "json", "--exit-zero", target, cwd=root)
    assert proc.returncode == 0, proc.stderr
    found = [(f["filename"].replace(os.sep, "/").rsplit("proj/", 1)[-1], f["code"], f["location"]["row"],
              (f["fix"] or {}).get("applicability")) for f in json.loads(proc.stdout)]
    assert found == [("train.py", "PPO001", 6, "safe")], proc.stdout
    assert run_cli("apply", target, cwd=root).returncode == 0
    assert call.replace("()", "(config)") in (root / "train.py").read_text()
    assert ran() == "ran {'trainer': {'n_gpus_per_node': 1}}"


def test_namespace_modules_are_named_under_the_root_and_verls_own_are_no_re_exports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """:func:`project_reexports` names a namespace folder's module under each folder up to
    the run's root, keeping the names another module imports (``myproj.env``, not ``env``);
    a copy of verl without ``__init__.py`` files is verl under the root (its own modules
    re-export nothing of the project's, as with a regular copy)."""
    target = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"
    (tmp_path / ".git").mkdir()
    texts = {
        "myproj/env.py": "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n",
        "myproj/sub/deep.py": "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env as make_env\n",
        "verl/trainer/constants_ppo.py": "def get_ppo_ray_runtime_env(config=None):\n    return config\n",
        "verl/trainer/main_ppo.py": "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n",
        "verl/utils/shim.py": "from verl.trainer.main_ppo import get_ppo_ray_runtime_env\n",
        "train.py": "from myproj.env import get_ppo_ray_runtime_env\nimport myproj.sub.deep\n"
                    "from verl.utils.shim import get_ppo_ray_runtime_env as g\n",
    }
    datas = {}
    for name, text in texts.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
        datas[str(tmp_path / name)] = text.encode()
    monkeypatch.chdir(tmp_path)
    assert project_reexports(datas, lambda words: {}, [target]) == {
        "myproj.env.get_ppo_ray_runtime_env": target,
        "myproj.sub.deep.make_env": target,
    }


@pytest.mark.parametrize(
    ("util", "imports", "call"),
    [
        ("from verl.trainer import constants_ppo\n\nmake_env = getattr(constants_ppo, 'get_ppo_ray_runtime_env')\n",
         "from pkg.util import make_env", "make_env()"),
        ("import importlib\n\ncp = importlib.import_module('verl.trainer.constants_ppo')\n",
         "from pkg.util import cp", "cp.get_ppo_ray_runtime_env()"),
        ("from importlib import import_module\n\ncp = import_module('verl.trainer.constants_ppo')\n",
         "from pkg import util", "util.cp.get_ppo_ray_runtime_env()"),
        # the re-exporting module loaded by name: only the call's string names it
        ("from verl.trainer.constants_ppo import get_ppo_ray_runtime_env  # noqa: F401\n",
         "import importlib", "importlib.import_module('pkg.util').get_ppo_ray_runtime_env()"),
    ],
)
def test_a_re_export_bound_by_a_constant_look_up_is_found(tmp_path: Path, util: str, imports: str, call: str) -> None:
    """Trial 26d (family 6, "check mentions 0 of 1 calls"): ``pkg/util.py`` binds the function
    by ``getattr`` with a constant name, or verl's module by ``importlib.import_module`` of a
    constant; another module calls it through that name. The call is found (the same look-ups
    in the calling file were found already) and the rewritten call runs."""
    root = _project(tmp_path / "proj")
    (root / "pkg/util.py").write_text(util)
    (root / "app/b.py").write_text(CALLER.replace("from pkg.util import make_env", imports).replace("make_env()", call))
    stub = verl_stub(tmp_path / "stub")
    assert _ran(root, stub) == "ran None"
    assert _found(root) == [("app/b.py", "PPO001", 7, "safe")]
    assert run_cli("apply", ".", cwd=root).returncode == 0
    assert call.replace("()", "(config)") in (root / "app/b.py").read_text()
    assert _ran(root, stub) == "ran {'trainer': {'n_gpus_per_node': 1}}"


@pytest.mark.parametrize(
    "binding",
    [
        "globals().update({n: getattr(_cp, n) for n in ('get_ppo_ray_runtime_env',)})",
        "globals().update({'make_env': getattr(_cp, 'get_ppo_ray_runtime_env')})",
        "globals().update(make_env=_cp.get_ppo_ray_runtime_env)",
        "globals()['make_env'] = _cp.get_ppo_ray_runtime_env",
    ],
)
def test_a_re_export_bound_through_globals_is_found(tmp_path: Path, binding: str) -> None:
    """Trial 26f (g6_globals_update_reexport, "check mentions 0 of 1 calls"): ``pkg/util.py``
    binds the function through its own namespace (``globals().update(...)``, a dict literal,
    keywords, a comprehension over literal names; ``globals()["f"] = ...``); another module
    calls it through that name. The call is found; the namespace write is a run-time binding
    the table cannot judge, so its fix is unsafe, naming it: ``apply`` leaves the call and
    the run passes before and after (and after ``--thread-config``)."""
    root = _project(tmp_path / "proj")
    name = "get_ppo_ray_runtime_env" if "for n in" in binding else "make_env"
    (root / "pkg/util.py").write_text(f"from verl.trainer import constants_ppo as _cp\n\n{binding}\n")
    (root / "app/b.py").write_text(CALLER.replace("make_env", name))
    stub = verl_stub(tmp_path / "stub")
    assert _ran(root, stub) == "ran None"
    assert [f for f in _found(root) if f[0] == "app/b.py"] == [("app/b.py", "PPO001", 7, "unsafe")]
    before = (root / "app/b.py").read_text()
    run_cli("apply", ".", cwd=root)
    assert (root / "app/b.py").read_text() == before
    assert _ran(root, stub) == "ran None"
    run_cli("apply", "--thread-config", ".", cwd=root)
    assert _ran(root, stub) == "ran None"


def test_globals_updates_are_read_as_bindings() -> None:
    """The names a ``globals().update(...)`` binds that can be read, with their values."""
    import ast

    from ppo_migrate.rules.reexports import _global_updates

    def read(source: str) -> list[tuple[str, str]]:
        return [(n, ast.unparse(v)) for n, v in _global_updates(ast.parse(source).body[0].value)]

    assert read("globals().update({n: getattr(cp, n) for n in ('f', 'g', 1)})") == [
        ("f", "getattr(cp, 'f')"), ("g", "getattr(cp, 'g')")]
    assert read("globals().update({n: cp.f for n in ['h']})") == [("h", "cp.f")]
    assert read("globals().update({'f': cp.f, k: v, 'not a name': x}, g=cp.g)") == [("g", "cp.g"), ("f", "cp.f")]
    assert read("globals().update({n: getattr(cp, n) for n in names})") == []
    assert read("globals().update({n: make(n) for n in ('f',)})") == []
    assert read("globals().update(vars(legacy))") == []


RL = (
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "{decorator}class RL{bases}:\n"
    "    get_env = staticmethod(get_ppo_ray_runtime_env)\n"
)


def test_a_static_alias_of_a_plain_class_in_another_module_is_found(tmp_path: Path) -> None:
    """Trial 26d (d6c_staticmethod_class_cross, "check mentions 0 of 1 calls"): ``class RL:
    get_env = staticmethod(get_ppo_ray_runtime_env)`` in ``pkg/util.py`` and ``RL.get_env()``
    in another module. The call is found, rewritten, and the rewritten code runs."""
    root = _project(tmp_path / "proj")
    (root / "pkg/util.py").write_text(RL.format(decorator="", bases=""))
    (root / "app/b.py").write_text(CALLER.replace("from pkg.util import make_env", "from pkg.util import RL")
                                   .replace("make_env()", "RL.get_env()"))
    stub = verl_stub(tmp_path / "stub")
    assert _ran(root, stub) == "ran None"
    assert _found(root) == [("app/b.py", "PPO001", 7, "safe")]
    assert run_cli("apply", ".", cwd=root).returncode == 0
    assert "    return RL.get_env(config)\n" in (root / "app/b.py").read_text()
    assert _ran(root, stub) == "ran {'trainer': {'n_gpus_per_node': 1}}"


@pytest.mark.parametrize(
    "double",
    [
        "monkeypatch.setattr(RL, 'get_env', staticmethod(lambda: None))",
        "monkeypatch.setattr('pkg.util.RL.get_env', lambda: None)",
        "RL.get_env = staticmethod(lambda: None)",
    ],
)
def test_a_double_of_the_class_s_alias_makes_the_fix_unsafe(tmp_path: Path, double: str) -> None:
    root = _project(tmp_path / "proj")
    (root / "pkg/util.py").write_text(RL.format(decorator="", bases=""))
    (root / "app/b.py").write_text(CALLER.replace("from pkg.util import make_env", "from pkg.util import RL")
                                   .replace("make_env()", "RL.get_env()"))
    (root / "tests").mkdir()
    (root / "tests/test_b.py").write_text(
        "from app import b\nfrom pkg.util import RL\n\n\n"
        f"def test_run(monkeypatch):\n    {double}\n    assert b.run({{'trainer': 1}}) is None\n"
    )
    assert _found(root) == [("app/b.py", "PPO001", 7, "unsafe")]


@pytest.mark.parametrize(("decorator", "bases"), [("@dataclass\n", ""), ("", "(Base)")])
def test_a_class_the_tool_cannot_follow_is_no_re_export(tmp_path: Path, decorator: str, bases: str) -> None:
    """A decorator or a base class may replace the attribute: nothing is found, nothing
    rewritten."""
    root = _project(tmp_path / "proj")
    head = "from dataclasses import dataclass\n" if decorator else "class Base:\n    pass\n"
    (root / "pkg/util.py").write_text(head + RL.format(decorator=decorator, bases=bases))
    (root / "app/b.py").write_text(CALLER.replace("from pkg.util import make_env", "from pkg.util import RL")
                                   .replace("make_env()", "RL.get_env()"))
    assert _found(root) == []
