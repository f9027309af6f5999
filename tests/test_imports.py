"""``apply --use-ppo-runtime``: imports of the runtime function move from verl to ppo_runtime."""

from __future__ import annotations

import ast
import dataclasses

import libcst as cst
import pytest

from cli_helpers import run_cli
from ppo_migrate.codemod import process_text
from ppo_migrate.imports import use_ppo_runtime
from ppo_migrate.settings import Settings

SETTINGS = dataclasses.replace(Settings(), use_ppo_runtime=True)


def moved(src: str) -> str:
    new, _ = use_ppo_runtime(cst.parse_module(src))
    ast.parse(new.code)
    return new.code


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n",
            "from ppo_runtime import get_ppo_ray_runtime_env\n",
        ),
        (
            "from verl.trainer.main_ppo import get_ppo_ray_runtime_env as g  # legacy\n",
            "from ppo_runtime import get_ppo_ray_runtime_env as g  # legacy\n",
        ),
        (
            "from verl.trainer.constants_ppo import PPO_RAY_RUNTIME_ENV, get_ppo_ray_runtime_env\n",
            "from verl.trainer.constants_ppo import PPO_RAY_RUNTIME_ENV\nfrom ppo_runtime import get_ppo_ray_runtime_env\n",
        ),
        (
            "import verl.trainer.constants_ppo as c\nx = c.get_ppo_ray_runtime_env(cfg)\ny = c.PPO_RAY_RUNTIME_ENV\n",
            "import verl.trainer.constants_ppo as c\nimport ppo_runtime\n\nx = ppo_runtime.get_ppo_ray_runtime_env(cfg)\ny = c.PPO_RAY_RUNTIME_ENV\n",
        ),
    ],
)
def test_import_forms(before: str, after: str) -> None:
    assert moved(before) == after


@pytest.mark.parametrize(
    "src",
    [
        "from mylib.constants_ppo import get_ppo_ray_runtime_env\n",
        "from verl.trainer.constants_ppo import PPO_RAY_RUNTIME_ENV\n",
        "from verl.trainer.constants_ppo import *\n",
        "from .constants_ppo import get_ppo_ray_runtime_env\n",
        "from ppo_runtime import get_ppo_ray_runtime_env\n",
    ],
)
def test_untouched(src: str) -> None:
    new, count = use_ppo_runtime(cst.parse_module(src))
    assert count == 0 and new.code == src


def test_combined_with_passing_the_config() -> None:
    src = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env as g\ndef run(config):\n    return g()\n"
    result = process_text(src, "m.py", SETTINGS, fix=True)
    assert result.new_text == "from ppo_runtime import get_ppo_ray_runtime_env as g\ndef run(config):\n    return g(config)\n"
    assert (result.fixed, result.imports) == (1, 1)


def test_cli_flag_and_second_run_is_a_no_op(tmp_path) -> None:
    f = tmp_path / "m.py"
    f.write_text("from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\ndef run(config):\n    return get_ppo_ray_runtime_env()\n")
    proc = run_cli("apply", "--use-ppo-runtime", "m.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Rewrote m.py (1 call, 1 import)" in proc.stdout
    assert f.read_text() == "from ppo_runtime import get_ppo_ray_runtime_env\ndef run(config):\n    return get_ppo_ray_runtime_env(config)\n"
    again = run_cli("apply", "--use-ppo-runtime", "m.py", cwd=tmp_path)
    assert "Rewrote 0 calls in 0 files" in again.stdout
