"""Trial 26h (weak row): verl as a member of the project's uv workspace.

``[tool.uv.sources] verl = { workspace = true }`` with ``[tool.uv.workspace] members =
["packages/*"]`` installs ``packages/verl`` (its ``[project] name`` is ``verl``) into the
project's environment. Its release was "cannot be read"; the member's definition now says
which verl the project runs: a notice naming it where it takes no config, a safe fix where it
takes one. Both projects are *run* after ``apply``, with the member on the path as uv's
editable install puts it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run_cli

ROOT = (
    '[project]\nname = "proj"\nversion = "0.1.0"\ndependencies = ["verl", "omegaconf"]\n\n'
    '[tool.uv.workspace]\nmembers = ["packages/*"]\n{exclude}\n'
    "[tool.uv.sources]\nverl = {{ workspace = true }}\n"
)
MEMBER = '[project]\nname = "{name}"\nversion = "{version}"\n'
#: the definition sits on line 3, so that a reason naming line 1 would fail
OLD = "import os\n\ndef get_ppo_ray_runtime_env():\n    return {'env_vars': {}}\n"
NEW = "import os\n\ndef get_ppo_ray_runtime_env(config=None):\n    return {'env_vars': {}}\n"
ENTRY = (
    "from omegaconf import OmegaConf\n"
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def main(config):\n    env = get_ppo_ray_runtime_env()\n    assert 'env_vars' in env\n    print('OK')\n\n\n"
    "if __name__ == '__main__':\n    main(OmegaConf.create({'trainer': {'n_gpus_per_node': 1}}))\n"
)


def _project(root: Path, body: str, *, member: str = "verl", exclude: str = "", others: dict[str, str] | None = None) -> Path:
    files = {
        "pyproject.toml": ROOT.format(exclude=exclude),
        "train.py": ENTRY,
        f"packages/{member}/pyproject.toml": MEMBER.format(name="verl", version="0.8.0"),
        f"packages/{member}/verl/__init__.py": "",
        f"packages/{member}/verl/trainer/__init__.py": "",
        f"packages/{member}/verl/trainer/constants_ppo.py": body,
        **(others or {}),
    }
    (root / ".git").mkdir(parents=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _run(root: Path, member: str) -> subprocess.CompletedProcess[str]:
    """``train.py`` as ``uv run`` runs it: the member installed (editable) on the path."""
    env = dict(os.environ, PYTHONPATH=str(root / "packages" / member))
    env.pop("PYTHONSAFEPATH", None)
    return subprocess.run([sys.executable, "train.py"], cwd=root, env=env, capture_output=True, text=True, timeout=120)


def _concise(root: Path) -> list[str]:
    proc = run_cli("check", "--output-format", "concise", "--show-notices", ".", cwd=root)
    return [line for line in proc.stdout.splitlines() if ": PPO00" in line]


def test_a_member_without_a_config_is_named_and_never_given_one(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", OLD)
    assert _concise(root) == [
        "train.py:6:11: PPO005 `get_ppo_ray_runtime_env()` left as it is: "
        "`packages/verl/verl/trainer/constants_ppo.py:3` defines `get_ppo_ray_runtime_env()` without a "
        "config parameter (pre verl PR #6976); update that copy, or run with --use-ppo-runtime"
    ]
    text = (root / "train.py").read_text()
    for extra in ((), ("--thread-config",)):
        run_cli("apply", *extra, ".", cwd=root)
        assert (root / "train.py").read_text() == text
        proc = _run(root, "verl")
        assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr


def test_a_member_taking_a_config_gets_a_fix_that_runs(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", NEW)
    assert _concise(root) == [
        "train.py:6:11: PPO001 [*] `get_ppo_ray_runtime_env()` called without the config in scope; pass `config`"
    ]
    run_cli("apply", ".", cwd=root)
    assert "env = get_ppo_ray_runtime_env(config)\n" in (root / "train.py").read_text()
    proc = _run(root, "verl")
    assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr


@pytest.mark.parametrize(
    "exclude, others",
    [
        # the only member named verl is excluded: no member decides
        ('exclude = ["packages/verl"]', {}),
        # two members named verl: uv refuses the workspace, nothing is read from either
        ("", {"packages/fork/pyproject.toml": MEMBER.format(name="verl", version="0.9.0")}),
    ],
    ids=["excluded", "two-members"],
)
def test_no_single_member_leaves_the_release_unknown(tmp_path: Path, exclude: str, others: dict[str, str]) -> None:
    root = _project(tmp_path / "proj", NEW, exclude=exclude, others=others)
    lines = _concise(root)
    assert len(lines) == 1 and lines[0].startswith("train.py:6:11: PPO005 ")
    text = (root / "pyproject.toml").read_text().splitlines()
    if exclude:  # the exclude entry's line is named (fresh user 43, W11)
        line = next(i for i, t in enumerate(text, 1) if t.startswith("exclude"))
        assert f"but `pyproject.toml:{line}` excludes the member `packages/verl` whose project is verl" in lines[0]
        return
    line = text.index("verl = { workspace = true }") + 1
    assert line in (10, 11)
    assert f"`pyproject.toml:{line} verl = {{ workspace = true }}`, whose release cannot be read" in lines[0]
