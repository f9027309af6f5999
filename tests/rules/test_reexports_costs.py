"""Benchmark items 9 and 10 (issue 26): the re-exports' look-out skip work whose answer cheap facts
already decide, and answer exactly as the full work does."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from ppo_migrate.rules import reexports
from ppo_migrate.rules.reexports import project_reexports
from ppo_migrate.rules.targets import string_constants

TARGET = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"


def test_a_string_constant_is_checked_only_when_its_string_names_a_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked: list[ast.Module] = []

    def counting(tree: ast.Module) -> dict[str, str]:
        checked.append(tree)
        return string_constants(tree)

    monkeypatch.setattr(reexports, "string_constants", counting)
    texts = {
        "pkg/__init__.py": "",
        "pkg/names.py": "from verl.trainer import constants_ppo\nMODE = 'fast'\nRAY_ENV_FN = 'get_ppo_ray_runtime_env'\n",
        "pkg/other.py": "from verl.trainer import constants_ppo\nMODE = 'slow'\n",
        "app.py": "from pkg.names import RAY_ENV_FN\nfrom pkg.other import MODE\n",
    }
    datas = {}
    for name, text in texts.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
        datas[str(tmp_path / name)] = text.encode()
    found = project_reexports(datas, lambda words: {}, [TARGET])
    assert found == {
        "pkg.names.RAY_ENV_FN": TARGET,
        # the module aliases are re-exports too (``from pkg.other import constants_ppo``)
        "pkg.names.constants_ppo.get_ppo_ray_runtime_env": TARGET,
        "pkg.other.constants_ppo.get_ppo_ray_runtime_env": TARGET,
    }
    assert len(checked) == 1  # pkg/names.py's, once: ``'fast'`` and ``'slow'`` name no target
