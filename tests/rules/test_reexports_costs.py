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


def test_a_module_whose_looked_up_names_did_not_change_is_not_gone_over_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Benchmark item 10: every module of a chain binds the function and is imported by the
    next; the first round finds all the re-exports, and the second went over every module
    again for nothing. Only a module looking up a name the last round added is gone over
    again (here ``pkg/b.py``, whose ``make_env`` reads ``pkg.a``'s new re-export)."""
    gone_over: list[str] = []
    looked_up = reexports._looked_up

    def counting(bound):
        gone_over.append(next((fq for name, fq in bound.items() if name == "marker"), "?"))
        return looked_up(bound)

    monkeypatch.setattr(reexports, "_looked_up", counting)
    texts = {
        "pkg/__init__.py": "",
        "pkg/a.py": "import x_a as marker\nfrom verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n",
        # ``pkg.a.get_...`` is known only after pkg/a.py's turn: found in the second round
        "pkg/b.py": "import x_b as marker\nfrom pkg.a import get_ppo_ray_runtime_env as make_env\n",
        "pkg/c.py": "import x_c as marker\nfrom verl.trainer.constants_ppo import get_ppo_ray_runtime_env\nimport pkg.b\n",
        "pkg/d.py": "import x_d as marker\nimport pkg.c  # for get_ppo_ray_runtime_env\n",
    }
    datas = {}
    for name, text in sorted(texts.items(), reverse=True):  # pkg/d.py first, pkg/a.py last
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
        datas[str(tmp_path / name)] = text.encode()
    found = project_reexports(datas, lambda words: {}, [TARGET])
    assert found == {
        "pkg.a.get_ppo_ray_runtime_env": TARGET,
        "pkg.b.make_env": TARGET,
        "pkg.c.get_ppo_ray_runtime_env": TARGET,
    }
    # round 1: d, c, b (nothing known of pkg.a yet), a; round 2: b only (pkg.a's name is
    # new); round 3: none (pkg.b.make_env is looked up by no module)
    assert gone_over == ["x_d", "x_c", "x_b", "x_a", "x_b"]


def test_the_module_names_the_look_out_makes_are_the_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each module's name is made once a run: the re-exports' look-out keeps the names of
    the modules it reads, and the caller records ask them of the run
    (:func:`ppo_migrate.rules.callers.run_module_name`) instead of making them again; a
    file the look-out did not read is named once, then kept."""
    from ppo_migrate.project.modules import module_name
    from ppo_migrate.project.snapshot import run_scope
    from ppo_migrate.rules import callers

    texts = {
        "pkg/__init__.py": "",
        "pkg/util.py": "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n",
        "pkg/app.py": "from pkg.util import get_ppo_ray_runtime_env\n",
        "pkg/other.py": "x = 1\n",
    }
    datas = {}
    for name, text in texts.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
        datas[str(tmp_path / name)] = text.encode()
    made: list[str] = []

    def counting(path):
        made.append(str(path))
        return module_name(path)

    monkeypatch.setattr(callers, "module_name", counting)
    util, app, other = (str(tmp_path / "pkg" / n) for n in ("util.py", "app.py", "other.py"))
    with run_scope():
        found = project_reexports(datas, lambda words: {}, [TARGET])
        assert found == {"pkg.util.get_ppo_ray_runtime_env": TARGET}
        assert [callers.run_module_name(p) for p in (util, app)] == ["pkg.util", "pkg.app"]
        assert made == []  # the look-out's names
        assert callers.run_module_name(other) == "pkg.other"
        assert callers.run_module_name(other) == "pkg.other"
        assert made == [other]  # named once, then kept
