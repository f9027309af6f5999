"""Caller hints and ``apply --thread-config`` (issue #8), through the real CLI."""

from __future__ import annotations

import ast
import json
import shutil
import textwrap
from pathlib import Path

import pytest

from cli_helpers import FIXTURES, run_cli

IMP = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*.py"))
        if "__pycache__" not in p.parts
    }


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))


def test_fixture_hints_name_the_right_callers() -> None:
    proc = run_cli("check", ".", cwd=FIXTURES / "threading" / "legacy")
    assert proc.returncode == 1
    lines = {line.split(":")[0] + ":" + line.split(":")[1]: line for line in proc.stdout.splitlines() if ": PPO" in line}
    assert "its caller `Launcher.launch` (svc/launcher.py:17) has `config`" in lines["svc/launcher.py:13"]
    assert (
        "its caller `serve` (svc/ray_setup.py:14) has no config in scope either, "
        "but `run_server` (svc/start.py:11) further up has `config`" in lines["svc/ray_setup.py:10"]
    )
    assert "its caller `main_task` (svc/start.py:19) has `cfg`" in lines["svc/ray_setup.py:20"]
    assert "run with --thread-config" in lines["svc/ray_setup.py:20"]
    assert "`make_env` cannot be threaded: it is referenced as a value at svc/ray_setup.py:29" in lines["svc/ray_setup.py:26"]
    # shims (compat.py) are neither rewritten nor reported
    assert not any(k.startswith("svc/compat.py") for k in lines)


def test_fixture_hints_as_related_locations_in_json() -> None:
    proc = run_cli("check", "--output-format", "json", ".", cwd=FIXTURES / "threading" / "legacy")
    records = json.loads(proc.stdout)
    by_row = {(Path(r["filename"]).name, r["location"]["row"]): r for r in records}
    related = by_row[("ray_setup.py", 20)]["related"]
    assert [(Path(r["filename"]).name, r["location"]["row"]) for r in related] == [("start.py", 19)]
    assert "main_task" in related[0]["message"]


def test_show_shims_lists_both_shim_forms() -> None:
    proc = run_cli("check", "--show-shims", "svc/compat.py", cwd=FIXTURES / "threading" / "legacy")
    assert proc.returncode == 0, proc.stdout
    found = [line.split(": ")[0] + " " + line.split(": ")[1].split()[0] for line in proc.stdout.splitlines() if "PPO004" in line]
    assert found == ["svc/compat.py:11:12 PPO004", "svc/compat.py:18:16 PPO004"]


def test_thread_config_reproduces_fixture(tmp_path: Path) -> None:
    work = tmp_path / "t"
    shutil.copytree(FIXTURES / "threading" / "legacy", work)
    proc = run_cli("apply", "--thread-config", ".", cwd=work)
    assert proc.returncode == 1  # make_env is referenced as a value and keeps its PPO002
    assert _tree(work) == _tree(FIXTURES / "threading" / "migrated")
    remaining = [line for line in proc.stdout.splitlines() if ": PPO" in line]
    assert len(remaining) == 1 and remaining[0].startswith("svc/ray_setup.py:26:12: PPO002")
    assert "referenced as a value" in remaining[0]
    for text in _tree(work).values():
        ast.parse(text)
    again = run_cli("apply", "--thread-config", ".", cwd=work)
    assert _tree(work) == _tree(FIXTURES / "threading" / "migrated")
    assert "Threaded the config" not in again.stdout + again.stderr
    assert "threaded the config through" not in again.stdout


def test_thread_config_exits_zero_when_everything_was_threaded(tmp_path: Path) -> None:
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/env.py": IMP + "def get_env():\n    return get_ppo_ray_runtime_env()\n",
        "pkg/main.py": "from pkg.env import get_env\ndef main(config):\n    return get_env()\n",
    })
    proc = run_cli("apply", "--thread-config", ".", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "pkg/env.py").read_text() == IMP + "def get_env(config=None):\n    return get_ppo_ray_runtime_env(config)\n"
    assert (tmp_path / "pkg/main.py").read_text() == "from pkg.env import get_env\ndef main(config):\n    return get_env(config=config)\n"


@pytest.mark.parametrize(
    ("signature", "expected"),
    [
        ("def helper(a):", "def helper(a, config=None):"),
        ("def helper(a, *args):", "def helper(a, *args, config=None):"),
        ("def helper(a, *, b=1):", "def helper(a, *, b=1, config=None):"),
        ("def helper(a, **kw):", "def helper(a, config=None, **kw):"),
        ("def helper():", "def helper(config=None):"),
    ],
)
def test_parameter_placement(tmp_path: Path, signature: str, expected: str) -> None:
    _write(tmp_path, {"m.py": IMP + f"{signature}\n    get_ppo_ray_runtime_env()\ndef main(cfg):\n    helper(1)\n"})
    if "()" in signature:
        (tmp_path / "m.py").write_text(IMP + f"{signature}\n    get_ppo_ray_runtime_env()\ndef main(cfg):\n    helper()\n")
    proc = run_cli("apply", "--thread-config", "m.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = (tmp_path / "m.py").read_text()
    assert expected in text
    assert "get_ppo_ray_runtime_env(config)" in text
    assert "config=cfg)" in text


def test_trailing_comma_layout_is_kept(tmp_path: Path) -> None:
    src = IMP + "def helper(\n    address,\n    port,\n):\n    get_ppo_ray_runtime_env()\ndef main(config):\n    helper(\n        'a',\n        1,\n    )\n"
    _write(tmp_path, {"m.py": src})
    run_cli("apply", "--thread-config", "m.py", cwd=tmp_path)
    assert (tmp_path / "m.py").read_text() == IMP + (
        "def helper(\n    address,\n    port,\n    config=None,\n):\n    get_ppo_ray_runtime_env(config)\n"
        "def main(config):\n    helper(\n        'a',\n        1,\n        config=config,\n    )\n"
    )


def test_different_parameter_name_when_config_is_taken(tmp_path: Path) -> None:
    src = IMP + "config = None\ndef helper():\n    print(config)\n    get_ppo_ray_runtime_env()\n    config2 = 1\n"
    # ``config`` is a global read inside helper, so the new parameter must not shadow it
    src = IMP + "def helper():\n    get_ppo_ray_runtime_env()\n    config = 1\n    return config\ndef main(cfg):\n    helper()\n"
    _write(tmp_path, {"m.py": src})
    proc = run_cli("apply", "--thread-config", "m.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    text = (tmp_path / "m.py").read_text()
    assert "def helper(ppo_config=None):" in text
    assert "get_ppo_ray_runtime_env(ppo_config)" in text
    assert "helper(ppo_config=cfg)" in text


@pytest.mark.parametrize(
    ("files", "reason"),
    [
        ({"m.py": IMP + "import functools\n@functools.lru_cache\ndef helper():\n    get_ppo_ray_runtime_env()\ndef main(config):\n    helper()\n"}, "decorated with `@functools.lru_cache`"),
        ({"m.py": IMP + "__all__ = ['helper']\ndef helper():\n    get_ppo_ray_runtime_env()\ndef main(config):\n    helper()\n"}, "exported in `__all__`"),
        ({"m.py": IMP + "def helper():\n    get_ppo_ray_runtime_env()\n"}, "no call of it was found in the analysed paths"),
        ({"m.py": IMP + "def helper():\n    get_ppo_ray_runtime_env()\nhelper()\n"}, "its caller at m.py:4 (<module>) has no config in scope"),
        ({"m.py": IMP + "def helper():\n    get_ppo_ray_runtime_env()\ncallbacks = [helper]\ndef main(config):\n    helper()\n"}, "referenced as a value at m.py:4"),
    ],
)
def test_never_changes_a_function_whose_calls_cannot_all_be_found(tmp_path: Path, files, reason: str) -> None:
    _write(tmp_path, files)
    before = _tree(tmp_path)
    proc = run_cli("apply", "--thread-config", ".", cwd=tmp_path)
    assert proc.returncode == 1
    assert _tree(tmp_path) == before
    assert reason in proc.stdout


def test_depth_bound(tmp_path: Path) -> None:
    src = IMP + (
        "def h1():\n    get_ppo_ray_runtime_env()\n"
        "def h2():\n    h1()\n"
        "def h3():\n    h2()\n"
        "def h4():\n    h3()\n"
        "def main(config):\n    h4()\n"
    )
    _write(tmp_path, {"m.py": src})
    proc = run_cli("apply", "--thread-config", "--thread-depth", "3", ".", cwd=tmp_path)
    assert proc.returncode == 1
    assert (tmp_path / "m.py").read_text() == src
    assert "deeper than 3" in proc.stdout
    proc = run_cli("apply", "--thread-config", "--thread-depth", "4", ".", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert "def h4(config=None):\n    h3(config=config)" in (tmp_path / "m.py").read_text()
    assert "h4(config=config)\n" in (tmp_path / "m.py").read_text()


def test_thread_config_with_diff_is_a_usage_error(tmp_path: Path) -> None:
    _write(tmp_path, {"m.py": IMP})
    proc = run_cli("apply", "--thread-config", "--diff", ".", cwd=tmp_path)
    assert proc.returncode == 2
