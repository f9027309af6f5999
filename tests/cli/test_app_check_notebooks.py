"""Calls in Jupyter notebooks (trial 26e, M4), through the command line.

``check .`` on a folder holding only ``train.ipynb`` said "No Python files found", and a
notebook beside ``.py`` files was skipped, while ruff (0.6+) checks ``*.ipynb`` by default.
The code cells are judged as one module and each finding is shown at its cell and its line
there, ruff's way (``train.ipynb:cell 3:3:12``) in every format. Report only: no fix is
offered and ``apply`` never writes a notebook (every byte stays).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import run_cli, write_tree

IMPORT = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
PIN = {"requirements.txt": "verl>=0.9\n"}  # the project declares a verl that takes a config


def notebook(*cells: tuple[str, object]) -> str:
    """A notebook's JSON text (nbformat 4, one space of indent as Jupyter writes it)."""
    return json.dumps(
        {
            "cells": [
                {"cell_type": kind, "metadata": {}, "source": source}
                | ({"execution_count": None, "outputs": []} if kind == "code" else {})
                for kind, source in cells
            ],
            "metadata": {"kernelspec": {"name": "python3"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    ) + "\n"


TRAIN = notebook(
    ("markdown", ["# Training\n"]),
    ("code", [IMPORT]),
    ("code", ["def run(config):\n", "    env = {}\n", "    return get_ppo_ray_runtime_env()\n"]),
)
NOT_FIXED = "(not fixed: notebooks are not rewritten, edit the cell)"
MESSAGE = f"`get_ppo_ray_runtime_env()` called without the config in scope; pass `config` {NOT_FIXED}"


def concise(root: Path, *args: str) -> tuple[int, list[str], str]:
    proc = run_cli("check", "--output-format", "concise", *args, cwd=root)
    return proc.returncode, proc.stdout.splitlines(), proc.stderr


def test_a_folder_holding_only_a_notebook_is_checked(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {**PIN, "train.ipynb": TRAIN})
    code, out, err = concise(root, ".")
    assert (code, out) == (1, [f"train.ipynb:cell 3:3:12: PPO001 {MESSAGE}", "Found 1 error."])
    assert "No Python files found" not in err + "\n".join(out)


def test_a_notebook_beside_python_files_is_checked_and_never_written(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {
        **PIN,
        "train.ipynb": TRAIN,
        "lib.py": IMPORT + "\n\ndef launch(config):\n    return get_ppo_ray_runtime_env()\n",
    })
    code, out, _ = concise(root, ".")
    assert (code, out) == (1, [
        "lib.py:5:12: PPO001 [*] `get_ppo_ray_runtime_env()` called without the config in scope; pass `config`",
        f"train.ipynb:cell 3:3:12: PPO001 {MESSAGE}",
        "Found 2 errors.",
        "[*] 1 fixable with `ppo-migrate apply`.",
    ])
    before = (root / "train.ipynb").read_bytes()
    diff = run_cli("apply", "--diff", "--unsafe-fixes", ".", cwd=root)
    assert "+++ b/lib.py" in diff.stdout and "ipynb" not in diff.stdout.split("Would rewrite")[0]
    proc = run_cli("apply", "--unsafe-fixes", "--output-format", "concise", ".", cwd=root)
    assert proc.returncode == 1  # the notebook's finding remains
    assert "return get_ppo_ray_runtime_env(config)" in (root / "lib.py").read_text()
    assert (root / "train.ipynb").read_bytes() == before
    assert run_cli("check", "--add-noqa", ".", cwd=root).returncode == 1
    assert (root / "train.ipynb").read_bytes() == before
    # standard input named as a notebook: the bytes come back as they were
    stdin = run_cli("apply", "--stdin-filename", "train.ipynb", "-", cwd=root, input=before, text=False)
    assert stdin.stdout == before


def test_magics_keep_the_lines_of_the_cell(tmp_path: Path) -> None:
    nb = notebook(
        ("code", ["%pip install verl\n", "!nvidia-smi\n", IMPORT]),
        ("code", ["%%bash\n", "python -c 'get_ppo_ray_runtime_env()'\n"]),  # a cell magic: not Python
        ("code", ["files = !ls\n", "def run(config):\n", "    %time x = 1\n", "    return get_ppo_ray_runtime_env()\n"]),
    )
    root = write_tree(tmp_path / "p", {**PIN, "train.ipynb": nb})
    code, out, _ = concise(root, ".")
    assert (code, out) == (1, [f"train.ipynb:cell 3:4:12: PPO001 {MESSAGE}", "Found 1 error."])


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('{"cells": [\n  get_ppo_ray_runtime_env\n', "bad.ipynb:2:3: PPO902 not a readable notebook: Expecting value"),
        ('{"cells": {"get_ppo_ray_runtime_env": 1}}\n', "bad.ipynb:1:1: PPO902 not a readable notebook: no `cells` list"),
        ('{"cells": [{"cell_type": "code", "source": [1, "get_ppo_ray_runtime_env()"]}]}\n',
         "bad.ipynb:1:1: PPO902 not a readable notebook: cell 1's source is not a list of strings"),
    ],
)
def test_a_malformed_notebook_is_one_line_naming_the_file(tmp_path: Path, text: str, line: str) -> None:
    root = write_tree(tmp_path / "p", {**PIN, "bad.ipynb": text, "train.ipynb": TRAIN})
    code, out, err = concise(root, ".")
    assert (code, out) == (1, [line, f"train.ipynb:cell 3:3:12: PPO001 {MESSAGE}", "Found 2 errors."])
    assert "Traceback" not in err


def test_a_cell_that_does_not_parse_is_a_ppo902_in_its_cell(tmp_path: Path) -> None:
    nb = notebook(("code", [IMPORT]), ("code", ["x = get_ppo_ray_runtime_env(\n"]))
    root = write_tree(tmp_path / "p", {**PIN, "train.ipynb": nb})
    code, out, _ = concise(root, ".")
    assert code == 1
    assert out[0].startswith("train.ipynb:cell 2:1:") and " PPO902 " in out[0]


def test_a_call_that_passes_the_config_is_no_finding(tmp_path: Path) -> None:
    nb = notebook(
        ("code", [IMPORT, "from omegaconf import OmegaConf\n"]),
        ("code", ["config = OmegaConf.create({'trainer': {}})\n", "env = get_ppo_ray_runtime_env(config)\n"]),
    )
    root = write_tree(tmp_path / "p", {**PIN, "train.ipynb": nb})
    assert concise(root, ".") == (0, ["All checks passed!"], "")


def test_a_project_reexport_called_in_a_cell_is_found(tmp_path: Path) -> None:
    nb = notebook(("code", ["import mylib\n", "\n", "def go(config):\n", "    return mylib.ray_env()\n"]))
    root = write_tree(tmp_path / "p", {
        **PIN,
        "mylib/__init__.py": IMPORT.replace("get_ppo_ray_runtime_env\n", "get_ppo_ray_runtime_env as ray_env\n"),
        "a.ipynb": nb,
    })
    code, out, _ = concise(root, ".")
    assert code == 1
    assert out[0].startswith(
        f"a.ipynb:cell 1:4:12: PPO001 `mylib.ray_env()` called without the config in scope; pass `config` {NOT_FIXED}"
    )


def test_the_positions_in_every_format(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {**PIN, "train.ipynb": TRAIN})
    found = json.loads(run_cli("check", "--output-format", "json", ".", cwd=root).stdout)
    assert [(d["code"], d["cell"], d["location"], d["end_location"], d["fix"]) for d in found] == [
        ("PPO001", 3, {"column": 12, "row": 3}, {"column": 37, "row": 3}, None)
    ]
    assert found[0]["filename"] == str((root / "train.ipynb").resolve())
    # full: ruff's header and the cell's own lines in the frame
    full = run_cli("check", ".", cwd=root).stdout.splitlines()
    assert full[:7] == [
        f"train.ipynb:cell 3:3:12: PPO001 {MESSAGE}",
        "  |",
        "3 |     return get_ppo_ray_runtime_env()",
        "  |            ^^^^^^^^^^^^^^^^^^^^^^^^^ PPO001",
        "  |",
        "  = help: Pass the config in the cell by hand: notebooks are not rewritten",
        "",
    ]
    # github and SARIF: the line of the notebook's file holding the call
    file_line = next(
        n for n, text in enumerate(TRAIN.splitlines(), 1) if "return get_ppo_ray_runtime_env()" in text
    )
    github = run_cli("check", "--output-format", "github", ".", cwd=root).stdout.splitlines()
    assert github == [
        f"::error title=ppo-migrate (PPO001),file=train.ipynb,line={file_line},endLine={file_line}::"
        f"cell 3:3:12: PPO001 {MESSAGE}"
    ]
    sarif = json.loads(run_cli("check", "--output-format", "sarif", ".", cwd=root).stdout)
    result = sarif["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": file_line}
    assert result["message"]["text"] == f"cell 3:3:12: {MESSAGE}"
    junit = run_cli("check", "--output-format", "junit", ".", cwd=root).stdout
    assert 'name="train.ipynb:cell 3:3:12 PPO001"' in junit


def test_noqa_in_a_cell_suppresses_its_finding(tmp_path: Path) -> None:
    nb = notebook(
        ("code", [IMPORT]),
        ("code", ["def run(config):\n", "    return get_ppo_ray_runtime_env()  # noqa: PPO001\n"]),
    )
    root = write_tree(tmp_path / "p", {**PIN, "train.ipynb": nb})
    assert concise(root, ".") == (0, ["All checks passed!"], "")
