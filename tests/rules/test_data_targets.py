"""rules/data_targets.py: patch targets a test's data file names (trial 26e). The executed
project is ``patch-targets-in-a-test-data-file`` in tests/rules/test_patches_doubles.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ppo_migrate.project.snapshot import run_scope
from ppo_migrate.rules.data_targets import data_targets, dotted_targets

NAMES = frozenset({"get_ppo_ray_runtime_env"})


def test_dotted_names_ending_in_the_function_are_targets_by_line() -> None:
    data = (
        b"# targets\n"
        b"app.launcher.get_ppo_ray_runtime_env: tests.fakes.no_env\n"
        b"get_ppo_ray_runtime_env: bare\n"  # a bare name names no module to patch
        b"_target_: verl.trainer.constants_ppo.get_ppo_ray_runtime_env\n"  # a Hydra call site
        b'{"launcher.get_ppo_ray_runtime_envs": 1}\n'  # another name
        b'["x.y.get_ppo_ray_runtime_env"]\n'
    )
    assert list(dotted_targets(data, NAMES)) == [("app.launcher", 2), ("x.y", 6)]


def test_only_data_files_under_a_test_folder_are_read(tmp_path: Path, monkeypatch) -> None:
    files = {
        "app/launcher.py": "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n",
        "tests/fakes.yaml": "app.launcher.get_ppo_ray_runtime_env: f\n",
        "tests/unit/targets.json": '{"t": "app.launcher.get_ppo_ray_runtime_env"}\n',
        "conf/app.yaml": "app.launcher.get_ppo_ray_runtime_env: f\n",  # not a test's
        "tests/notes.md": "app.launcher.get_ppo_ray_runtime_env\n",  # not data
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    subprocess.run(["git", "init", "-q", "."], cwd=tmp_path, check=True)
    monkeypatch.chdir(tmp_path)
    with run_scope() as snapshot:
        found = data_targets(["app/launcher.py"], NAMES, snapshot.read_bytes)
    assert sorted(found) == [("tests/fakes.yaml", "app.launcher", 1), ("tests/unit/targets.json", "app.launcher", 1)]
