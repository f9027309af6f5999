"""A notebook's code cells read as one module (trial 26e, M4): the joined text, the map back
to cell and line, the magics, and the lines of the file GitHub and SARIF point at."""

from __future__ import annotations

import json

import pytest

from ppo_migrate.project.discovery import is_notebook, python_files
from ppo_migrate.project.notebooks import NotebookError, file_line, notebook_module


def notebook(*cells: tuple[str, object], indent: int | None = 1) -> str:
    """A notebook's JSON text holding ``cells`` (``(cell_type, source)``)."""
    return json.dumps(
        {
            "cells": [
                {"cell_type": kind, "metadata": {}, "source": source}
                | ({"execution_count": None, "outputs": []} if kind == "code" else {})
                for kind, source in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=indent,
    )


def test_code_cells_are_joined_and_mapped_back_to_cell_and_line() -> None:
    text = notebook(
        ("markdown", ["# Train\n"]),
        ("code", ["import os\n", "x = 1"]),  # the last line without a newline
        ("raw", "x = 2\n"),
        ("code", "def run(config):\n    return 3\n"),  # a source written as one string
    )
    module = notebook_module(text)
    assert module.text == "import os\nx = 1\ndef run(config):\n    return 3\n"
    assert module.rows == ((2, 1), (2, 2), (4, 1), (4, 2))
    assert [module.position(n) for n in (1, 2, 3, 4)] == [(2, 1), (2, 2), (4, 1), (4, 2)]
    assert module.position(6) == (4, 4)  # past the end: the last cell's lines go on
    assert module.cells == {2: ["import os", "x = 1"], 4: ["def run(config):", "    return 3"]}


def test_magics_are_replaced_by_pass_keeping_lines_and_cell_magics_are_left_out() -> None:
    text = notebook(
        ("code", ["%pip install verl\n", "files = !ls\n", "if True:\n", "    !nvidia-smi\n", "y = 2 % 1\n"]),
        ("code", ["%%bash\n", "echo get_ppo_ray_runtime_env\n"]),
        ("code", ["z = 3\n"]),
    )
    module = notebook_module(text)
    assert module.text == "pass\npass\nif True:\n    pass\ny = 2 % 1\nz = 3\n"
    assert module.rows == ((1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (3, 1))
    assert module.cells[1][0] == "%pip install verl"  # the frame shows the cell as written
    assert 2 not in module.cells


def test_windows_line_endings_and_empty_cells() -> None:
    module = notebook_module(notebook(("code", "a = 1\r\nb = 2\r\n"), ("code", []), ("code", "")))
    assert module.text == "a = 1\nb = 2\n"
    assert module.rows == ((1, 1), (1, 2))
    assert notebook_module(notebook(("markdown", "text"))).text == ""


@pytest.mark.parametrize(
    ("text", "message", "where"),
    [
        ('{"cells": [\n  get_ppo_ray_runtime_env', "Expecting value", (2, 3)),
        ("[1, 2]", "no `cells` list", (1, 1)),
        ('{"cells": {}}', "no `cells` list", (1, 1)),
        ('{"cells": [1]}', "cell 1 is not an object", (1, 1)),
        ('{"cells": [{"cell_type": "code", "source": 3}]}', "cell 1's source is not a string or a list", (1, 1)),
        ('{"cells": [{"cell_type": "code", "source": ["a", 1]}]}', "cell 1's source is not a list of strings", (1, 1)),
    ],
)
def test_a_malformed_notebook_raises_one_line(text: str, message: str, where: tuple[int, int]) -> None:
    with pytest.raises(NotebookError) as raised:
        notebook_module(text)
    assert (raised.value.message, raised.value.line, raised.value.column) == (message, *where)


def test_file_line_of_a_list_source_and_of_a_string_source() -> None:
    text = notebook(
        ("markdown", ["# a\n"]),
        ("code", ["import os\n", "x = (1,\n", "     2)\n"]),
        ("code", "def f():\n    return 1\n"),
    )
    lines = text.splitlines()
    # each string of a list source on its own line of the file
    assert lines[file_line(text, 2, 1) - 1].strip() == '"import os\\n",'
    assert lines[file_line(text, 2, 3) - 1].strip() == '"     2)\\n"'
    # a string source: the line where it starts
    assert lines[file_line(text, 3, 2) - 1].strip().startswith('"source": "def f():')
    # a notebook on one line: line 1; a cell that is not there: 1
    assert file_line(notebook(("code", ["a\n", "b\n"]), indent=None), 1, 2) == 1
    assert file_line(text, 9, 1) == 1
    assert file_line("not json", 1, 1) == 1


def test_a_piece_holding_several_lines_and_a_line_split_over_pieces() -> None:
    text = notebook(("code", ["a = 1\nb = 2\n", "c = ", "3\n", "d = 4\n"]))
    lines = text.splitlines()
    assert lines[file_line(text, 1, 2) - 1].strip() == '"a = 1\\nb = 2\\n",'  # b = 2 starts there
    assert lines[file_line(text, 1, 3) - 1].strip() == '"c = ",'  # c = 3 starts there
    assert lines[file_line(text, 1, 4) - 1].strip() == '"d = 4\\n"'


def test_notebooks_are_no_module_of_the_python_only_phases() -> None:
    assert is_notebook("nb/Train.IPYNB") and not is_notebook("train.py")
    assert python_files(["a.py", "conf/x.yaml", "train.ipynb", "b.py"]) == ["a.py", "b.py"]
