"""Trial 26e (family 6, M1): a star import after verl's import silenced the call, whatever
its module held. The star import's module is read now (:mod:`ppo_migrate.rules.stars`): one
that surely does not bind the name leaves the call judged as before (PPO001, fixed, and the
project runs after ``apply`` and ``apply --thread-config``); one that binds it keeps the
reading before (nothing reported, nothing rewritten); one that cannot be read makes the
call PPO003 naming the module, never silence. Every project is executed before and after.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_helpers import project_ran, run_cli, verl_stub, write_tree

TRAIN = (
    "from omegaconf import OmegaConf\n"
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
    "from {star} import *  # noqa: F403\n"
    "\n\n"
    "def main(config):\n"
    "    return get_ppo_ray_runtime_env()\n"
    "\n\n"
    "if __name__ == '__main__':\n"
    "    print('ran', main(OmegaConf.create({{'trainer': 1}})))\n"
)
ZERO_ARG = "def get_ppo_ray_runtime_env():\n    return 'own'\n"


def _project(root: Path, files: dict[str, str]) -> Path:
    return write_tree(root, {"requirements.txt": "verl>=0.9\n", **files})


_ran = project_ran


def _found(root: Path) -> list[tuple]:
    proc = run_cli("check", "--output-format", "json", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    return sorted(
        (f["filename"].replace(os.sep, "/").rsplit("proj/", 1)[-1], f["code"], f["location"]["row"],
         (f["fix"] or {}).get("applicability"), f["message"])
        for f in json.loads(proc.stdout)
    )


NOT_BOUND = {
    "binds-other-names": {"train.py": TRAIN.format(star="helpers"), "helpers.py": "SEED = 1\n"},
    "stdlib": {"train.py": TRAIN.format(star="os.path")},
    "all-excludes-it": {
        "train.py": TRAIN.format(star="helpers"),
        "helpers.py": '__all__ = ["SEED"]\nSEED = 1\n\n\n' + ZERO_ARG,
    },
    "private-name-only": {"train.py": TRAIN.format(star="helpers"), "helpers.py": "_get = 1\nSEED = 2\n"},
    "package-chain": {
        "train.py": TRAIN.format(star="pkg"),
        "pkg/__init__.py": "from .util import *  # noqa: F403\n",
        "pkg/util.py": "SEED = 1\n",
    },
}


@pytest.mark.parametrize("thread", [False, True], ids=["apply", "apply-thread-config"])
@pytest.mark.parametrize("files", list(NOT_BOUND.values()), ids=list(NOT_BOUND))
def test_a_star_import_that_does_not_bind_the_name_leaves_the_call_found(
    tmp_path: Path, files: dict[str, str], thread: bool
) -> None:
    root = _project(tmp_path / "proj", files)
    stub = verl_stub(tmp_path / "stub")
    assert _ran(root, stub) == "ran None"  # verl 0.9's stub returns the config it gets
    assert [f[:4] for f in _found(root)] == [("train.py", "PPO001", 7, "safe")]
    options = ("--thread-config",) if thread else ()
    assert run_cli("apply", *options, ".", cwd=root).returncode == 0
    assert "    return get_ppo_ray_runtime_env(config)\n" in (root / "train.py").read_text()
    assert _ran(root, stub) == "ran {'trainer': 1}"


BOUND = {
    "binds-it": {"train.py": TRAIN.format(star="helpers"), "helpers.py": ZERO_ARG},
    "all-lists-it": {
        "train.py": TRAIN.format(star="helpers"),
        "helpers.py": '__all__ = ["get_ppo_ray_runtime_env"]\n\n\n' + ZERO_ARG,
    },
    "package-chain": {
        "train.py": TRAIN.format(star="pkg"),
        "pkg/__init__.py": "from .legacy import *  # noqa: F403\n",
        "pkg/legacy.py": ZERO_ARG,
    },
}


@pytest.mark.parametrize("files", list(BOUND.values()), ids=list(BOUND))
def test_a_star_import_that_binds_the_name_keeps_the_call_alone(tmp_path: Path, files: dict[str, str]) -> None:
    """The project's own zero-argument function is the one called: ``(config)`` would fail."""
    root = _project(tmp_path / "proj", files)
    stub = verl_stub(tmp_path / "stub")
    assert _ran(root, stub) == "ran own"
    assert _found(root) == []
    before = (root / "train.py").read_text()
    run_cli("apply", "--thread-config", ".", cwd=root)
    assert (root / "train.py").read_text() == before
    assert _ran(root, stub) == "ran own"


@pytest.mark.parametrize(
    ("files", "module"),
    [
        ({"train.py": TRAIN.format(star="omegaconf")}, "omegaconf"),  # installed: not read
        ({"train.py": TRAIN.format(star="helpers"), "helpers.py": "__all__ = ['SEED'] + []\nSEED = 1\n"},
         "helpers"),  # ``__all__`` not a literal
        ({"train.py": TRAIN.format(star="helpers"), "helpers.py": "globals()['SEED'] = 1\n"},
         "helpers"),  # writes its namespace at run time
    ],
    ids=["installed-package", "computed-all", "globals"],
)
def test_a_star_import_that_cannot_be_read_gives_a_notice(tmp_path: Path, files: dict[str, str], module: str) -> None:
    root = _project(tmp_path / "proj", files)
    stub = verl_stub(tmp_path / "stub")
    assert _ran(root, stub) == "ran None"
    assert _found(root) == [(
        "train.py", "PPO003", 7, None,
        "`get_ppo_ray_runtime_env()` may or may not be the runtime function: it is bound to "
        f"{module}.get_ppo_ray_runtime_env or verl.trainer.constants_ppo.get_ppo_ray_runtime_env; not rewritten",
    )]
    before = (root / "train.py").read_text()
    run_cli("apply", "--thread-config", ".", cwd=root)
    assert (root / "train.py").read_text() == before
    assert _ran(root, stub) == "ran None"


def test_a_star_import_of_verl_itself_is_read_as_before(tmp_path: Path) -> None:
    """``from verl.trainer.constants_ppo import *`` then a star import that binds nothing of
    the name: verl's function is the one called (fixed, and runs); an in-tree verl that
    does not define it is the callee in effect's question, not a reason to drop the star."""
    train = TRAIN.format(star="helpers").replace(
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n",
        "from verl.trainer.constants_ppo import *  # noqa: F403\n",
    )
    root = _project(tmp_path / "proj", {"train.py": train, "helpers.py": "SEED = 1\n"})
    stub = verl_stub(tmp_path / "stub")
    assert _ran(root, stub) == "ran None"
    assert [f[:4] for f in _found(root)] == [("train.py", "PPO001", 7, "safe")]
    assert run_cli("apply", "--thread-config", ".", cwd=root).returncode == 0
    assert "    return get_ppo_ray_runtime_env(config)\n" in (root / "train.py").read_text()
    assert _ran(root, stub) == "ran {'trainer': 1}"
