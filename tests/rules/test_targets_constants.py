"""Trial 26e (family 6, M3): ``getattr(constants_ppo, RAY_ENV_FN)()`` where ``RAY_ENV_FN``
is a module-level string constant bound once, in the same module or imported from another
module of the project, is read as ``getattr(constants_ppo, "get_ppo_ray_runtime_env")()``
(:meth:`ppo_migrate.rules.targets.TargetFinder.constant_of`): found and fixed, and the
rewritten project runs. A name that may hold another string is left alone. Every case is
executed before and after a plain ``apply`` and ``apply --thread-config``.
"""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import pytest
from cli_helpers import project_ran, run_cli, verl_stub, write_tree
from ppo_migrate.rules.targets import string_constants

CALLER = (
    "from omegaconf import OmegaConf\n"
    "from verl.trainer import constants_ppo\n"
    "{binding}"
    "\n\n"
    "def main(config):\n"
    "    return getattr(constants_ppo, RAY_ENV_FN)()\n"
    "\n\n"
    "if __name__ == '__main__':\n"
    "    print('ran', main(OmegaConf.create({{'trainer': 1}})))\n"
)
SAME_FILE = CALLER.format(binding='\nRAY_ENV_FN = "get_ppo_ray_runtime_env"\n')
IMPORTED = CALLER.format(binding="\nfrom names import RAY_ENV_FN\n")
NAMES = 'RAY_ENV_FN = "get_ppo_ray_runtime_env"\n'


def _project(root: Path, files: dict[str, str]) -> Path:
    return write_tree(root, {"requirements.txt": "verl>=0.9\n", **files})


_ran = project_ran


def _found(root: Path) -> list[tuple]:
    proc = run_cli("check", "--output-format", "json", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    return sorted(
        (f["filename"].replace(os.sep, "/").rsplit("proj/", 1)[-1], f["code"], f["location"]["row"],
         (f["fix"] or {}).get("applicability"))
        for f in json.loads(proc.stdout)
    )


@pytest.mark.parametrize("thread", [False, True], ids=["apply", "apply-thread-config"])
@pytest.mark.parametrize(
    ("files", "row"),
    [({"train.py": SAME_FILE}, 8), ({"train.py": IMPORTED, "names.py": NAMES}, 8)],
    ids=["same-module", "imported"],
)
def test_getattr_with_a_constant_name_is_found_fixed_and_runs(
    tmp_path: Path, files: dict[str, str], row: int, thread: bool
) -> None:
    root = _project(tmp_path / "proj", files)
    stub = verl_stub(tmp_path / "stub")
    assert _ran(root, stub) == "ran None"  # verl 0.9's stub returns the config it gets
    assert _found(root) == [("train.py", "PPO001", row, "safe")]
    options = ("--thread-config",) if thread else ()
    assert run_cli("apply", *options, ".", cwd=root).returncode == 0
    assert "    return getattr(constants_ppo, RAY_ENV_FN)(config)\n" in (root / "train.py").read_text()
    assert _ran(root, stub) == "ran {'trainer': 1}"


@pytest.mark.parametrize(
    ("files", "found"),
    [
        # bound twice at the top: the last binding, another string, is in effect
        ({"train.py": CALLER.format(binding='\nRAY_ENV_FN = "get_ppo_ray_runtime_env"\nRAY_ENV_FN = "__name__"\n')},
         []),
        # rebound by a function under ``global``: the function's name on some paths only, a
        # PPO003 with no fix (fresh user 41, M7: it was silent)
        ({"train.py": SAME_FILE.replace("\n\ndef main", "\n\ndef pick():\n    global RAY_ENV_FN\n"
                                        "    RAY_ENV_FN = 'x'\n\n\ndef main")},
         [("train.py", "PPO003", 13, None)]),
        # the other module binds it twice, once under an ``if``: the same
        ({"train.py": IMPORTED, "names.py": NAMES + "if False:\n    RAY_ENV_FN = 'x'\n"},
         [("train.py", "PPO003", 8, None)]),
        # the other module is not the project's
        ({"train.py": IMPORTED.replace("from names", "from os.path")}, []),
    ],
    ids=["bound-twice", "global-in-function", "imported-bound-twice", "not-the-projects"],
)
def test_a_name_that_may_hold_another_string_is_not_read(tmp_path: Path, files: dict[str, str], found: list) -> None:
    root = _project(tmp_path / "proj", files)
    assert _found(root) == found


def test_string_constants_reads_only_names_bound_once() -> None:
    tree = ast.parse(
        'from m import *\nA = "a"\nB: str = "b"\nC = "c"\nC = "d"\nD = 1\nE = "e"\nE += "x"\n'
        'F = "f"\ndef g():\n    global F\n    F = "g"\nfor H in "ab":\n    pass\nH = "h"\n'
    )
    assert string_constants(tree) == {"A": "a", "B": "b"}
    # a star import after the statement may rebind the name
    assert string_constants(ast.parse('A = "a"\nfrom m import *\nB = "b"\n')) == {"B": "b"}


def test_module_constant_finds_the_file_once_a_run_per_folder(tmp_path: Path, monkeypatch) -> None:
    """:func:`module_constant` looks up the file of a module once a run for every file of
    a folder (a run makes and removes no files), and reads only a module that assigns the
    name at its top level."""
    from ppo_migrate.project import references
    from ppo_migrate.project.snapshot import run_scope
    from ppo_migrate.rules.targets import module_constant

    write_tree(tmp_path, {
        "names.py": 'A: str = "a"\nB = "b"\nB = "c"\n',
        "late.py": 'def f():\n    global A\n    A = "x"\n',
        "a.py": "", "b.py": "",
    })
    monkeypatch.chdir(tmp_path)
    looked: list[str] = []
    real = references.module_file

    def counted(root, module, fs=None):
        looked.append(module)
        return real(root, module, fs)

    monkeypatch.setattr(references, "module_file", counted)
    with run_scope():
        assert module_constant("a.py", (), "names", "A") == "a"
        assert module_constant("b.py", (), "names", "A") == "a"
        assert module_constant("b.py", (), "names", "B") is None  # bound twice
        assert module_constant("a.py", (), "late", "A") is None  # only in a function
        assert module_constant("a.py", (), "verl.trainer.constants_ppo", "A") is None
        assert module_constant("b.py", (), "verl.trainer.constants_ppo", "A") is None
        assert module_constant("-", (), "names", "A") is None
    assert looked == ["names", "late", "verl.trainer.constants_ppo"]
