"""fresh40, BREAKs 1, 6 and 7: forms the recognisers read wrongly, so that ``check`` gave a
safe fix and the code that ran before a plain ``apply`` raised ``TypeError`` after it.

* B1: ``if TYPE_CHECKING:`` (or ``if typing.TYPE_CHECKING:``, ``if False:``) imports the name
  beside a module ``__getattr__`` that cannot be read. The import never runs, so the hook
  serves the name: now PPO003 naming the hook's line.
* B6: an import hook or ``exec`` reached through an alias (``hooks = sys.meta_path;
  hooks.insert(0, F())``, ``ns = vars(cp); exec(CODE, ns)``): now an unsafe fix.
* B7: ``sys.modules.get(...)``, ``pkgutil.resolve_name(...)``, ``importlib.import_module(...)``
  when ``sys``/``pkgutil``/``importlib`` is not the stdlib's (rebound in scope, or a project
  file ``pkgutil.py`` beside the script): no safe fix.

Every project is *run* before and after a plain ``apply``, with an installed verl (on
``PYTHONPATH``) that takes a config, as the pin says.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import VERL_09, run_cli, verl_stub

PIN = '[project]\nname = "proj"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n'


def _write(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True)
    for name, text in {"pyproject.toml": PIN, **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _run(root: Path, command: str, site: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = f"{site}{os.pathsep}{root}"
    env.pop("PYTHONSAFEPATH", None)
    return subprocess.run(command, shell=True, cwd=root, env=env, capture_output=True, text=True, timeout=120)


def _concise(root: Path) -> list[str]:
    proc = run_cli("check", "--output-format", "concise", "--show-notices", ".", cwd=root)
    return [line for line in proc.stdout.splitlines() if ": PPO0" in line]


def _before_and_after(root: Path, site: Path, command: str, output: str) -> None:
    """The project runs (printing ``output``) before and after a plain ``apply``, which
    leaves every file as it was."""
    texts = {p: p.read_bytes() for p in root.rglob("*.py")}
    proc = _run(root, command, site)
    assert (proc.returncode, proc.stdout.strip()) == (0, output), proc.stderr
    run_cli("apply", ".", cwd=root)
    assert {p: p.read_bytes() for p in root.rglob("*.py")} == texts
    proc = _run(root, command, site)
    assert (proc.returncode, proc.stdout.strip()) == (0, output), proc.stderr


# -- B1 ---------------------------------------------------------------------------------

HOOK = (
    "\n\ndef __getattr__(name):\n"
    "    return getattr(importlib.import_module('._impl', __name__), name)\n"
)
IMPL = "def get_ppo_ray_runtime_env():\n    return {'impl': True}\n"
TRAIN_ATTR = "import pkg\nfrom omegaconf import OmegaConf\n\n\ndef main(config):\n    return pkg.get_ppo_ray_runtime_env()\n\n\nprint(main(OmegaConf.create({'actor_rollout_ref': {}})))\n"
TRAIN_FROM = (
    "from pkg import get_ppo_ray_runtime_env\nfrom omegaconf import OmegaConf\n\n\n"
    "def main(config):\n    return get_ppo_ray_runtime_env()\n\n\nprint(main(OmegaConf.create({'actor_rollout_ref': {}})))\n"
)
IMPORT = "    from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"

#: name -> (pkg/__init__.py, train.py, the hook's line)
LAZY: dict[str, tuple[str, str, int]] = {
    "TYPE_CHECKING": (
        "import importlib\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n" + IMPORT + HOOK, TRAIN_ATTR, 7,
    ),
    "typing.TYPE_CHECKING, from-import": (
        "import importlib\nimport typing\nif typing.TYPE_CHECKING:\n" + IMPORT + HOOK, TRAIN_FROM, 7,
    ),
    "if False": ("import importlib\nif False:\n" + IMPORT + HOOK, TRAIN_ATTR, 6),
    "hook in the else branch": (
        "import importlib\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n" + IMPORT
        + "else:\n    def __getattr__(name):\n"
        "        return getattr(importlib.import_module('._impl', __name__), name)\n",
        TRAIN_ATTR, 6,
    ),
}


@pytest.mark.parametrize("name", sorted(LAZY))
def test_an_import_that_never_runs_does_not_hide_a_module_getattr(name: str, tmp_path: Path) -> None:
    init, train, hook_line = LAZY[name]
    root = _write(tmp_path / "proj", {"pkg/__init__.py": init, "pkg/_impl.py": IMPL, "train.py": train})
    site = verl_stub(tmp_path / "site", VERL_09)
    called = "pkg.get_ppo_ray_runtime_env" if train is TRAIN_ATTR else "get_ppo_ray_runtime_env"
    line = train.splitlines().index(f"    return {called}()") + 1
    assert _concise(root) == [
        f"train.py:{line}:12: PPO003 `{called}()` may or may not be the runtime function: "
        f"`pkg.get_ppo_ray_runtime_env` is served by the module `__getattr__` at `pkg/__init__.py:{hook_line}`, "
        "which ppo-migrate cannot read (cannot tell which definition it returns); not rewritten"
    ]
    _before_and_after(root, site, "python train.py", "{'impl': True}")


def test_an_import_that_runs_still_binds_the_name(tmp_path: Path) -> None:
    """The same package with the import run (``if not TYPE_CHECKING:``): a plain re-export,
    fixed as safe."""
    init = "import importlib\nfrom typing import TYPE_CHECKING\nif not TYPE_CHECKING:\n" + IMPORT + HOOK
    root = _write(tmp_path / "proj", {"pkg/__init__.py": init, "pkg/_impl.py": IMPL, "train.py": TRAIN_ATTR})
    assert _concise(root) == [
        "train.py:6:12: PPO001 [*] `pkg.get_ppo_ray_runtime_env()` called without the config in scope; pass `config`"
    ]


# -- B6 ---------------------------------------------------------------------------------

APP = "from verl.trainer import constants_ppo as cp\n\n\ndef main(config):\n    return cp.get_ppo_ray_runtime_env()\n"
TEST = (
    "from omegaconf import OmegaConf\nfrom app.train import main\n\n\n"
    "def test_main():\n    assert main(OmegaConf.create({'actor_rollout_ref': {}})) == {'fake': True}\n"
)
FINDER = (
    "import importlib.abc\nimport importlib.util\nimport sys\n\n"
    "FAKES = {'get_ppo_ray_' + 'runtime_env': lambda: {'fake': True}}\n\n\n"
    "class FakeVerl(importlib.abc.MetaPathFinder, importlib.abc.Loader):\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name == 'verl.trainer.' + 'constants_ppo':\n"
    "            return importlib.util.spec_from_loader(name, self)\n"
    "        return None\n\n"
    "    def create_module(self, spec):\n        return None\n\n"
    "    def exec_module(self, module):\n"
    "        module.__dict__.update(FAKES)\n\n\n"
)

def _hook(line: int, form: str) -> str:
    return (f"conftest.py:{line} adds an import hook ({form}), which may serve verl's module with a "
            "function taking no config")


EXEC_REASON = (
    "conftest.py:5 runs code not known before it runs in the namespace of `cp` (`exec`, or `eval` of code "
    "compiled for `exec`), which may rebind the runtime function or a module its calls go through to one "
    "taking no config"
)
UNSAFE = (
    "app/train.py:5:12: PPO001 `cp.get_ppo_ray_runtime_env()` called without the config in scope; "
    "pass `config` (unsafe fix: {reason})"
)

#: name -> (conftest.py, the reason the fix is unsafe)
ALIASED: dict[str, tuple[str, str]] = {
    "ns = vars(cp); exec(CODE, ns)": (
        "import pathlib\nfrom verl.trainer import constants_ppo as cp\n\n"
        "ns = vars(cp)\nexec((pathlib.Path(__file__).parent / 'fake_env.txt').read_text(), ns)\n",
        EXEC_REASON,
    ),
    "hooks = sys.meta_path; hooks.insert(0, F())": (
        FINDER + "hooks = sys.meta_path\nhooks.insert(0, FakeVerl())\n", _hook(22, "sys.meta_path.insert"),
    ),
    "hooks[:0] = [F()]": (
        FINDER + "hooks = sys.meta_path\nhooks[:0] = [FakeVerl()]\n", _hook(22, "sys.meta_path[...] assigned"),
    ),
    "getattr(sys, 'meta_path').insert": (
        FINDER + "getattr(sys, 'meta_path').insert(0, FakeVerl())\n", _hook(21, "meta_path.insert"),
    ),
    "vars(sys)['meta_path'].insert": (
        FINDER + "vars(sys)['meta_path'].insert(0, FakeVerl())\n", _hook(21, "meta_path.insert"),
    ),
}


@pytest.mark.parametrize("name", sorted(ALIASED))
def test_a_hook_or_exec_through_an_alias_makes_the_fix_unsafe(name: str, tmp_path: Path) -> None:
    conftest, reason = ALIASED[name]
    root = _write(tmp_path / "proj", {
        "app/__init__.py": "", "app/train.py": APP, "conftest.py": conftest, "tests/test_train.py": TEST,
        "fake_env.txt": "def get_ppo_ray_runtime_env():\n    return {'fake': True}\n",
    })
    site = verl_stub(tmp_path / "site", VERL_09)
    assert _concise(root) == [UNSAFE.format(reason=reason)]
    _before_and_after(root, site, "python -m pytest -q -p no:cacheprovider tests 2>&1 | tail -1 | cut -c1-8", "1 passed")


# -- B7 ---------------------------------------------------------------------------------

MAIN = "\n\nprint(main(OmegaConf.create({'actor_rollout_ref': {}})))\n"

#: name -> (files, train.py's output)
SHADOWED: dict[str, tuple[dict[str, str], str]] = {
    "sys = Registry in the function": ({"train.py": (
        "import sys\nimport types\nfrom omegaconf import OmegaConf\n\n\n"
        "class Registry:\n    modules = {'verl.trainer.constants_ppo': "
        "types.SimpleNamespace(get_ppo_ray_runtime_env=lambda: {'fake': 1})}\n\n\n"
        "def main(config):\n    sys = Registry\n"
        "    return sys.modules.get('verl.trainer.constants_ppo').get_ppo_ray_runtime_env()\n" + MAIN
    )}, "{'fake': 1}"),
    "sys = Registry, sys.modules[...]": ({"train.py": (
        "import sys\nimport types\nfrom omegaconf import OmegaConf\n\n\n"
        "class Registry:\n    modules = {'verl.trainer.constants_ppo': "
        "types.SimpleNamespace(get_ppo_ray_runtime_env=lambda: {'fake': 3})}\n\n\n"
        "def main(config):\n    sys = Registry\n"
        "    return sys.modules['verl.trainer.constants_ppo'].get_ppo_ray_runtime_env()\n" + MAIN
    )}, "{'fake': 3}"),
    "pkgutil rebound at module level": ({"train.py": (
        "import pkgutil\nimport types\nfrom omegaconf import OmegaConf\n\n\n"
        "def main(config):\n    return pkgutil.resolve_name('verl.trainer.constants_ppo:get_ppo_ray_runtime_env')()\n\n\n"
        "pkgutil = types.SimpleNamespace(resolve_name=lambda name: lambda: {'fake': name})\n" + MAIN
    )}, "{'fake': 'verl.trainer.constants_ppo:get_ppo_ray_runtime_env'}"),
    "importlib rebound at module level": ({"train.py": (
        "import importlib\nimport types\nfrom omegaconf import OmegaConf\n\n\n"
        "def main(config):\n"
        "    return importlib.import_module('.constants_ppo', package='verl.trainer').get_ppo_ray_runtime_env()\n\n\n"
        "importlib = types.SimpleNamespace(import_module=lambda name, package=None: "
        "types.SimpleNamespace(get_ppo_ray_runtime_env=lambda: {'fake': 2}))\n" + MAIN
    )}, "{'fake': 2}"),
    "a project pkgutil.py beside the script": ({
        "pkgutil.py": "def resolve_name(name):\n    return lambda: {'local': name}\n",
        "train.py": (
            "import pkgutil\nfrom omegaconf import OmegaConf\n\n\n"
            "def main(config):\n    return pkgutil.resolve_name('verl.trainer.constants_ppo:get_ppo_ray_runtime_env')()\n"
            + MAIN
        ),
    }, "{'local': 'verl.trainer.constants_ppo:get_ppo_ray_runtime_env'}"),
}


@pytest.mark.parametrize("name", sorted(SHADOWED))
def test_a_loader_that_is_not_the_stdlib_s_gets_no_fix(name: str, tmp_path: Path) -> None:
    files, output = SHADOWED[name]
    root = _write(tmp_path / "proj", files)
    site = verl_stub(tmp_path / "site", VERL_09)
    assert _concise(root) == []  # not the stdlib's loader: no target read, no fix
    _before_and_after(root, site, "python train.py", output)


def test_the_stdlib_s_loaders_are_still_read(tmp_path: Path) -> None:
    """The same calls with ``pkgutil``/``importlib``/``sys`` the stdlib's and no project module
    of that name: fixed as safe, and the fixed call runs with verl 0.9."""
    body = (
        "import importlib\nimport pkgutil\nimport sys\nfrom omegaconf import OmegaConf\n\n\n"
        "def main(config):\n"
        "    a = pkgutil.resolve_name('verl.trainer.constants_ppo:get_ppo_ray_runtime_env')()\n"
        "    b = importlib.import_module('.constants_ppo', package='verl.trainer').get_ppo_ray_runtime_env()\n"
        "    c = sys.modules.get('verl.trainer.constants_ppo').get_ppo_ray_runtime_env()\n"
        "    return [a, b, c]\n" + MAIN
    )
    root = _write(tmp_path / "proj", {"train.py": body})
    site = verl_stub(tmp_path / "site", VERL_09)
    fix = "PPO001 [*] `{}` called without the config in scope; pass `config`"
    assert _concise(root) == [
        "train.py:8:9: " + fix.format("pkgutil.resolve_name('verl.trainer.constants_ppo:get_ppo_ray_runtime_env')()"),
        "train.py:9:9: " + fix.format(
            "importlib.import_module('.constants_ppo', package='verl.trainer').get_ppo_ray_runtime_env()"),
        "train.py:10:9: " + fix.format("sys.modules.get('verl.trainer.constants_ppo').get_ppo_ray_runtime_env()"),
    ]
    run_cli("apply", ".", cwd=root)
    assert (root / "train.py").read_text().count("get_ppo_ray_runtime_env(config)") == 2
    assert "get_ppo_ray_runtime_env')(config)" in (root / "train.py").read_text()
    proc = _run(root, "python train.py", site)
    assert (proc.returncode, proc.stdout.strip()) == (0, str([{"actor_rollout_ref": {}}] * 3)), proc.stderr
