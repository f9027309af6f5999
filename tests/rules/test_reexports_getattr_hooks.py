"""Trial 26g (issue 26, family 1 and 6): a module ``__getattr__`` that is no literal table.

``tests/data/fixtures/trial26g/getattr_hook``: ``pkg/__init__.py`` serves every name from a backend
module it imports by a name computed at run time (``import_module(f"._impl_{BACKEND}",
__name__)``); the backend re-exports verl's function, a 0.8-style one (no config) on the
interpreter the project runs with, while ``requirements.txt`` declares ``verl>=0.9``. Its
callers (``import pkg; pkg.get_ppo_ray_runtime_env()`` and ``from pkg import
get_ppo_ray_runtime_env``) were not reported at all; the callee cannot be decided, so each is
a PPO003 naming the hook, with no fix, and the project still runs after ``apply``.
"""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

from cli_helpers import VERL_08, launcher_ran, run_cli, verl_stub
from ppo_migrate.project import snapshot
from ppo_migrate.rules.reexports import _opaque_hook, getattr_hooks

PROJECT = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "trial26g" / "getattr_hook"
HOOKED = (
    "`{call}` may or may not be the runtime function: `pkg.get_ppo_ray_runtime_env` is served by "
    "the module `__getattr__` at `pkg/__init__.py:8`, which ppo-migrate cannot read (cannot tell "
    "which definition it returns); not rewritten"
)


def _copy(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "proj"
    shutil.copytree(PROJECT, root)
    (root / ".git").mkdir()
    return root, verl_stub(tmp_path / "site", VERL_08)


def _findings(root: Path, *args: str) -> list[tuple[str, str, int, str, object]]:
    proc = run_cli("check", "--output-format", "json", "--exit-zero", "--show-notices", *args, cwd=root)
    assert proc.returncode == 0, proc.stderr
    return [
        (Path(f["filename"]).name, f["code"], f["location"]["row"], f["message"], f["fix"])
        for f in json.loads(proc.stdout)
    ]


def test_calls_through_an_unreadable_module_getattr_are_ppo003_naming_it(tmp_path: Path) -> None:
    root, site = _copy(tmp_path)
    assert _findings(root, ".") == [
        ("serve.py", "PPO003", 7, HOOKED.format(call="get_ppo_ray_runtime_env()"), None),
        ("train.py", "PPO003", 7, HOOKED.format(call="pkg.get_ppo_ray_runtime_env()"), None),
    ]
    proc = run_cli("check", "--output-format", "json", "train.py", cwd=root)
    (finding,) = json.loads(proc.stdout)
    assert finding["callee"] == "whatever the module `__getattr__` at `pkg/__init__.py:8` returns for `get_ppo_ray_runtime_env`"
    assert finding["reason"]["kind"] == "uncertain-definition"
    assert [(Path(r["filename"]).relative_to(root).as_posix(), r["location"]["row"]) for r in finding["reason"]["lines"]] == [
        ("pkg/__init__.py", 8),
    ]
    # one file named on the command line: the hooked package is found beyond it
    assert _findings(root, "train.py") == [
        ("train.py", "PPO003", 7, HOOKED.format(call="pkg.get_ppo_ray_runtime_env()"), None),
    ]


def test_apply_leaves_the_calls_and_the_project_still_runs(tmp_path: Path) -> None:
    root, site = _copy(tmp_path)
    pythonpath = (root, site)
    before = {name: (root / name).read_text() for name in ("train.py", "serve.py")}
    for name in before:
        assert launcher_ran(root, cmd=(name,), pythonpath=pythonpath) == "ran None"
    for flags in ((), ("--unsafe-fixes",), ("--thread-config",)):
        proc = run_cli("apply", *flags, ".", cwd=root)
        assert proc.returncode == 1, proc.stdout + proc.stderr  # the PPO003 findings remain
        assert {name: (root / name).read_text() for name in before} == before
        for name in before:
            assert launcher_ran(root, cmd=(name,), pythonpath=pythonpath) == "ran None"


def test_a_name_the_module_binds_itself_is_no_hooks(tmp_path: Path) -> None:
    """PEP 562: the hook is asked only for a name the module lacks; a ``def`` of its own (no
    target) leaves the call unreported, as before."""
    root, _ = _copy(tmp_path)
    init = root / "pkg" / "__init__.py"
    init.write_text(init.read_text() + "\n\ndef get_ppo_ray_runtime_env():\n    return {}\n")
    assert _findings(root, ".") == []


def test_another_name_read_through_the_hook_is_no_target(tmp_path: Path) -> None:
    root, _ = _copy(tmp_path)
    for name in ("train.py", "serve.py"):
        path = root / name
        path.write_text(path.read_text().replace("get_ppo_ray_runtime_env", "other_function"))
    assert _findings(root, ".") == []


def test_the_literal_lazy_table_is_still_a_plain_reexport(tmp_path: Path) -> None:
    """Trial 26g, M3 (the last session's form): ``_LAZY[name]`` over a literal dict is read."""
    root, _ = _copy(tmp_path)
    (root / "pkg" / "__init__.py").write_text(
        "import importlib\n\n_LAZY = {\"get_ppo_ray_runtime_env\": \"verl.trainer.constants_ppo\"}\n\n\n"
        "def __getattr__(name):\n    return getattr(importlib.import_module(_LAZY[name]), name)\n"
    )
    found = _findings(root, ".")
    assert [(name, code, row, fix["applicability"]) for name, code, row, _, fix in found] == [
        ("serve.py", "PPO001", 7, "safe"), ("train.py", "PPO001", 7, "safe"),
    ]


def test_the_hook_forms_that_cannot_be_read(tmp_path: Path) -> None:
    """A ``def __getattr__`` over a computed module, and lazy_loader's ``attach`` assigned to
    ``__getattr__``, are hooks; a literal table is none; a file without one neither."""
    forms = {
        "computed.py": "import importlib\n\n\ndef __getattr__(name):\n    return getattr(_backend(), name)\n",
        "attached.py": "import lazy_loader as lazy\n\n__getattr__, __dir__, __all__ = lazy.attach(__name__, {})\n",
        "table.py": (
            "from importlib import import_module\n\nT = {\"f\": \"m\"}\n\n\n"
            "def __getattr__(name):\n    return getattr(import_module(T[name]), name)\n"
        ),
        "plain.py": "def f():\n    return 1\n",
    }
    lines = {}
    for name, text in forms.items():
        (tmp_path / name).write_text(text)
        found = _opaque_hook(str(tmp_path / name))
        lines[name] = found[1] if found is not None else None
    assert lines == {"computed.py": 4, "attached.py": 3, "table.py": None, "plain.py": None}


def test_getattr_hooks_reads_callers_and_skips_known_names(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (tmp_path / ".git").mkdir()
    (pkg / "__init__.py").write_text("def __getattr__(name):\n    return getattr(_backend(), name)\n")
    caller = "import pkg\nfrom pkg import make_env\n\npkg.get_ppo_ray_runtime_env()\npkg.other()\nmake_env()\n"
    tree = ast.parse(caller)
    parsed = {"caller.py": (("caller",), {"pkg": "pkg", "make_env": "pkg.make_env"}, {"pkg"})}
    target = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"
    hooks = getattr_hooks(
        {"caller.py": tree}, parsed, [str(pkg / "__init__.py")], {target: target},
        {"get_ppo_ray_runtime_env", "make_env"}, {"verl"},
    )
    where = (str(pkg / "__init__.py"), 1)
    assert hooks == ({"pkg.get_ppo_ray_runtime_env": where, "pkg.make_env": where}, {})
    known = {target: target, "pkg.make_env": target}  # a re-export found already: not the hook's
    assert getattr_hooks(
        {"caller.py": tree}, parsed, [str(pkg / "__init__.py")], known,
        {"get_ppo_ray_runtime_env", "make_env"}, {"verl"},
    ) == ({"pkg.get_ppo_ray_runtime_env": where}, {})


def test_a_hook_reading_a_module_it_imports_is_read(tmp_path: Path) -> None:
    """``return getattr(M, name)`` with ``M`` imported at module level serves ``M``'s names:
    verl's module makes a plain re-export (no PPO003), the project's own module none."""
    (tmp_path / ".git").mkdir()
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    caller = "import pkg\n\npkg.get_ppo_ray_runtime_env()\n"
    parsed = {"caller.py": (("caller",), {"pkg": "pkg"}, {"pkg"})}
    target = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"
    hook = "\n\ndef __getattr__(name):\n    return getattr(_m, name)\n"
    answers = []
    for imports in ("from verl.trainer import constants_ppo as _m\n", "from . import legacy as _m\n"):
        (pkg / "__init__.py").write_text(imports + hook)
        with snapshot.run_scope():
            answers.append(getattr_hooks(
                {"caller.py": ast.parse(caller)}, parsed, [str(pkg / "__init__.py")], {target: target},
                {"get_ppo_ray_runtime_env"}, {"verl"},
            ))
    assert answers == [({}, {"pkg.get_ppo_ray_runtime_env": target}), ({}, {})]


GUARDED = (
    "def __getattr__(name):\n"
    "    if name == \"get_ppo_ray_runtime_env\":\n"
    "        from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
    "        return get_ppo_ray_runtime_env\n"
    "    return getattr(_backend(), name)\n"
)


def test_a_branch_importing_and_returning_the_name_is_read(tmp_path: Path) -> None:
    """Trial 26b, ``f6_lazy_getattr_pkg``: ``if name == "get_...": from verl... import get_...;
    return get_...`` serves verl's function for that name: a plain re-export (the safe fix
    where the definition takes a config); the same branch guarding another name leaves the
    hook unread for this one (PPO003)."""
    root, _ = _copy(tmp_path)
    (root / "pkg" / "__init__.py").write_text(GUARDED)
    (root / "requirements.txt").write_text("verl>=0.9\n")
    found = _findings(root, ".")
    assert [(name, code, row, fix and fix["applicability"]) for name, code, row, _, fix in found] == [
        ("__init__.py", "PPO006", 4, None),  # the function returned as a value: as before
        ("serve.py", "PPO001", 7, "safe"), ("train.py", "PPO001", 7, "safe"),
    ]
    (root / "pkg" / "__init__.py").write_text(GUARDED.replace('name == "get_ppo_ray_runtime_env"', 'name == "other"'))
    assert [(name, code) for name, code, _, _, _ in _findings(root, ".")] == [
        ("__init__.py", "PPO006"), ("serve.py", "PPO003"), ("train.py", "PPO003"),
    ]
    with snapshot.run_scope():
        assert _opaque_hook(str(root / "pkg" / "__init__.py"), "pkg")[3] == {
            "other": "verl.trainer.constants_ppo.get_ppo_ray_runtime_env",
        }
