"""``ppo_migrate.analysis.patches``: another file (a test) replacing the runtime function makes
the fixes it may reach unsafe. Each end-to-end case runs the test before and after ``apply``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import declare_verl, run_cli

from ppo_migrate.analysis.patches import patched_at, target_patches
from ppo_migrate.settings import Settings

IMP = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
LIB = IMP + "\n\ndef launch(config):\n    return get_ppo_ray_runtime_env()\n"
STRICT_VERL = (
    "def get_ppo_ray_runtime_env(config=None):\n"
    "    if config is not None and 'trainer' not in config:\n"
    "        raise TypeError(f'not a config: {config!r}')\n"
    "    return {}\n"
)

#: How a test replaces the function (the fake takes no argument), and which modules it reaches.
TESTS = {
    # the object patched is ``lib`` of ``from pkg import lib``: pkg/lib.py's fixes only
    "monkeypatch-object": ("monkeypatch.setattr(lib, 'get_ppo_ray_runtime_env', fake)", "pkg.lib"),
    "monkeypatch-string": ("monkeypatch.setattr('pkg.lib.get_ppo_ray_runtime_env', fake)", "pkg.lib"),
    "mock-patch-module": ("mock.patch('pkg.lib.get_ppo_ray_runtime_env', fake).start()", "pkg.lib"),
    "mock-patch-verl": ("mock.patch('verl.trainer.constants_ppo.get_ppo_ray_runtime_env', fake).start()", "*"),
    "patch-object": ("mock.patch.object(lib, 'get_ppo_ray_runtime_env', fake).start()", "pkg.lib"),
    "patch-multiple": ("mock.patch.multiple(lib, get_ppo_ray_runtime_env=fake).start()", "pkg.lib"),
    "patch-dict": ("mock.patch.dict(lib.__dict__, {'get_ppo_ray_runtime_env': fake}).start()", "*"),
    "assignment": ("lib.get_ppo_ray_runtime_env = fake", "pkg.lib"),
    # a third tester's forms: the patcher under another name, the target in a variable,
    # an f-string, a helper's default, the namespace updated, an object not an import
    "patch-alias": ("P('pkg.lib.get_ppo_ray_runtime_env', fake).start()", "pkg.lib"),
    "target-constant": ("TARGET = 'pkg.lib.get_ppo_ray_runtime_env'; mock.patch(TARGET, fake).start()", "pkg.lib"),
    "f-string": ("FN = 'get_ppo_ray_runtime_env'; mock.patch(f'{lib.__name__}.{FN}', fake).start()", "*"),
    "helper-default": (
        "install = lambda mp, m, name='get_ppo_ray_runtime_env': mp.setattr(m, name, fake); "
        "install(monkeypatch, lib)", "*",
    ),
    "vars-update": ("vars(lib).update(get_ppo_ray_runtime_env=fake)", "*"),
    "computed-owner": (
        "FN = 'get_ppo_ray_runtime_env'; "
        "monkeypatch.setattr(importlib.import_module('pkg.lib'), FN, fake)", "*",
    ),
}


#: above every test: the imports the forms use
_HEAD = (
    "import importlib\nfrom unittest import mock\nfrom unittest.mock import patch as P\n"
    "from omegaconf import OmegaConf\nfrom pkg import lib\n\n\n"
)


def _test_file(line: str) -> str:
    return (
        _HEAD + "def fake():\n    return {'fake': 1}\n\n\n"
        f"def test_x(monkeypatch):\n    {line}\n"
        "    assert lib.launch(OmegaConf.create({'trainer': {}})) == {'fake': 1}\n"
    )


def _tree(root: Path, line: str) -> None:
    for rel, text in {
        "pkg/__init__.py": "", "pkg/lib.py": LIB, "tests/test_x.py": _test_file(line),
        "stub/verl/__init__.py": "", "stub/verl/trainer/__init__.py": "",
        "stub/verl/trainer/constants_ppo.py": STRICT_VERL, "pyproject.toml": "",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    declare_verl(root)  # issue 26: the tree declares the verl it runs


@pytest.mark.parametrize("name", sorted(TESTS))
def test_target_patches_finds_each_form_and_the_module_it_names(tmp_path: Path, name: str, monkeypatch) -> None:
    line, module = TESTS[name]
    _tree(tmp_path, line)
    monkeypatch.chdir(tmp_path)
    files = ["pkg/__init__.py", "pkg/lib.py", "tests/test_x.py"]
    at = _test_file(line).splitlines().index("    " + line) + 1
    assert target_patches(files, files, Settings()) == ((module, "tests/test_x.py", at),)
    reason = f"tests/test_x.py:{at} replaces the runtime function, whose replacement may take no config"
    assert patched_at(target_patches(files, files, Settings()), "pkg/lib.py") == reason
    assert patched_at(target_patches(files, files, Settings()), "tests/test_x.py") is None  # its own


def test_a_patch_of_another_module_leaves_a_module_s_fixes_safe(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    for rel, text in {"pkg/__init__.py": "", "pkg/lib.py": LIB, "pkg/other.py": LIB,
                      "t.py": "from unittest import mock\nmock.patch('pkg.other.get_ppo_ray_runtime_env')\n"}.items():
        (tmp_path / rel).write_text(text)
    files = ["pkg/__init__.py", "pkg/lib.py", "pkg/other.py", "t.py"]
    patches = target_patches(files, files, Settings())
    assert patches == (("pkg.other", "t.py", 2),)
    assert patched_at(patches, "pkg/lib.py") is None
    assert patched_at(patches, "pkg/other.py") is not None
    # an object imported by its dotted name is that module (a third tester: every module's
    # fixes were made unsafe by ``monkeypatch.setattr(lib, ...)``)
    for spelled in ("import pkg.other as lib", "from pkg import other as lib", "import pkg.other"):
        owner = "pkg.other" if spelled == "import pkg.other" else "lib"
        (tmp_path / "t.py").write_text(
            f"{spelled}\n\n\ndef test(monkeypatch):\n"
            f"    monkeypatch.setattr({owner}, 'get_ppo_ray_runtime_env', lambda: 1)\n"
        )
        patches = target_patches(files, files, Settings())
        assert patches == (("pkg.other", "t.py", 5),), spelled
        assert patched_at(patches, "pkg/lib.py") is None
    # a name bound twice may be either module: any
    (tmp_path / "t.py").write_text(
        "import pkg.other as lib\nif x:\n    import pkg.lib as lib\n"
        "setattr(lib, 'get_ppo_ray_runtime_env', f)\n"
    )
    assert target_patches(files, files, Settings()) == (("*", "t.py", 4),)
    # a file without a patcher or the name written is not even parsed
    (tmp_path / "t.py").write_text("get_ppo_ray_runtime_env = 1\nx.get_ppo_ray_runtime_env == 2\n")
    assert target_patches(files, files, Settings()) == ()


@pytest.mark.parametrize(
    "name",
    ["monkeypatch-object", "mock-patch-module", "patch-multiple", "patch-alias", "target-constant",
     "helper-default", "vars-update"],
)
@pytest.mark.parametrize("lane", [("check", "."), ("check", "--no-progress", "pkg", "tests")])
def test_a_test_replacing_the_function_keeps_passing_after_apply(
    tmp_path: Path, name: str, lane: tuple[str, ...]
) -> None:
    """A fresh tester: ``apply`` made the safe fix in ``pkg/lib.py`` and the test, whose fake
    takes no argument, failed after it. ``check`` says why in both lanes (the plain
    ``check .`` analyses files as its scout finds them, the other before any)."""
    _tree(tmp_path, TESTS[name][0])
    at = _test_file(TESTS[name][0]).splitlines().index("    " + TESTS[name][0]) + 1
    env = {"PYTHONPATH": f"{tmp_path / 'stub'}:{tmp_path}", "PATH": "/usr/bin:/bin"}

    def pytest_run() -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
        )

    assert pytest_run().returncode == 0
    checked = run_cli(*lane, cwd=tmp_path)
    assert checked.stdout.splitlines()[0] == (
        "pkg/lib.py:5:12: PPO001 `get_ppo_ray_runtime_env()` called without the config in scope; "
        f"pass `config` (unsafe fix: tests/test_x.py:{at} replaces the runtime function, whose "
        "replacement may take no config)"
    ), checked.stdout
    applied = run_cli("apply", ".", cwd=tmp_path)
    assert applied.returncode == 1
    assert (tmp_path / "pkg/lib.py").read_text() == LIB
    assert pytest_run().returncode == 0
    # the oracle: the fix, made anyway, fails the test
    assert run_cli("apply", "--unsafe-fixes", ".", cwd=tmp_path).returncode == 0
    after = pytest_run()
    assert after.returncode == 1 and "takes 0 positional arguments but 1 was given" in after.stdout
