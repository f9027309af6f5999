"""Jupyter notebooks (``*.ipynb``) read as one Python module (trial 26e, M4).

ruff checks ``*.ipynb`` by default since 0.6 and so does ``check``: a notebook's code cells
are joined into one module text, judged by the same analysis as a ``.py`` file, and each
finding is mapped back to its cell and its line in the cell (ruff's
``train.ipynb:cell 2:3:5``).

The notebook format (nbformat 4, "The notebook file format" of the Jupyter documentation):
a JSON object whose ``cells`` is a list of objects with a ``cell_type`` (``"code"``,
``"markdown"``, ``"raw"``) and a ``source`` that is a string or a list of strings (the
lines, each with its newline). Rules here, as ruff's (``ruff_notebook``):

* cells are numbered from 1 among **all** the cells, markdown ones included (ruff's
  ``NotebookIndex`` numbers a code cell by its index in ``cells``);
* only code cells are read; a cell whose first line is a cell magic (``%%bash``,
  ``%%time``) is left out (IPython runs it through the magic, not as a module);
* a line that is an IPython line magic or shell escape (``%pip install verl``,
  ``!nvidia-smi``, ``files = !ls``, ``%time x = f()``) is replaced by ``pass`` at its
  indentation, so every other line keeps its line number and columns;
* each cell's text ends with a newline before the next cell's starts.

Pure: text in, text out (the snapshot reads the bytes).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ppo_migrate.project.discovery import NOTEBOOK_SUFFIX, is_notebook  # noqa: F401 - this module's API too

__all__ = [
    "NOTEBOOK_SUFFIX",
    "NotebookError",
    "NotebookModule",
    "file_line",
    "is_notebook",
    "notebook_module",
]


#: an IPython line magic or shell escape (``%pip ...``, ``!ls``), alone or assigned
#: (``files = !ls``, ``out = %sx ls``): not Python, replaced by ``pass``
_MAGIC = re.compile(r"^([ \t]*)(?:[%!]|[A-Za-z_][\w.]*[ \t]*=[ \t]*[%!])")


class NotebookError(ValueError):
    """The text is not a notebook ``check`` can read (not JSON, no ``cells`` list, a
    ``source`` that is neither a string nor a list of strings).

    Attributes:
        message: one line, e.g. ``"Expecting value"``, ``"no `cells` list"``.
        line, column: where in the file's text (1-based; ``1, 1`` when not known).
    """

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class NotebookModule(NamedTuple):
    """A notebook's code cells as one module.

    Attributes:
        text: the code cells joined (magics replaced), each ending with a newline.
        rows: for each line of ``text`` (index 0 is line 1), ``(cell, line in the cell)``,
            both 1-based; ``cell`` counts every cell of the notebook.
        cells: cell number -> the cell's source lines as written (magics kept, no line
            endings), for the code frames of the ``full`` format.
    """

    text: str
    rows: tuple[tuple[int, int], ...]
    cells: dict[int, list[str]]

    def position(self, line: int) -> tuple[int, int]:
        """``(cell, line in the cell)`` of ``line`` of :attr:`text` (1-based); a line past
        the end is the last cell's last line plus the excess (``(0, line)`` without cells)."""
        if not self.rows:
            return 0, line
        if 1 <= line <= len(self.rows):
            return self.rows[line - 1]
        cell, last = self.rows[-1]
        return cell, last + max(line - len(self.rows), 0)


def _lines(source: object, number: int) -> list[str]:
    """A cell's ``source`` (a string or a list of strings) as lines without endings."""
    if isinstance(source, list):
        if not all(isinstance(piece, str) for piece in source):
            raise NotebookError(f"cell {number}'s source is not a list of strings")
        code = "".join(source)
    elif isinstance(source, str):
        code = source
    else:
        raise NotebookError(f"cell {number}'s source is not a string or a list")
    code = code.replace("\r\n", "\n").replace("\r", "\n")
    lines = code.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def notebook_module(text: str) -> NotebookModule:
    """The code cells of the notebook ``text`` as one module (see the module docstring).

    Args:
        text: the notebook file's text (JSON).

    Returns:
        A :class:`NotebookModule`; its ``text`` is empty for a notebook without code cells.

    Raises:
        NotebookError: ``text`` is not JSON, or not an object with a ``cells`` list of
            objects, or a code cell's ``source`` is not a string or a list of strings.
    """
    import json  # not at import: discovery imports this module on every run's hot path

    try:
        document = json.loads(text)
    except ValueError as error:  # json.JSONDecodeError, and a lone surrogate's error
        line, column = getattr(error, "lineno", 1), getattr(error, "colno", 1)
        reason = getattr(error, "msg", None) or str(error).splitlines()[0]
        raise NotebookError(f"{reason}", line, column) from None
    except RecursionError:
        raise NotebookError("nested too deeply") from None
    cells = document.get("cells") if isinstance(document, dict) else None
    if not isinstance(cells, list):
        raise NotebookError("no `cells` list")
    pieces: list[str] = []
    rows: list[tuple[int, int]] = []
    kept: dict[int, list[str]] = {}
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            raise NotebookError(f"cell {number} is not an object")
        if cell.get("cell_type") != "code":
            continue
        lines = _lines(cell.get("source", ""), number)
        if not lines or lines[0].lstrip().startswith("%%"):
            continue
        kept[number] = lines
        for index, line in enumerate(lines, 1):
            magic = _MAGIC.match(line)
            pieces.append(f"{magic.group(1)}pass" if magic else line)
            rows.append((number, index))
    module = "\n".join(pieces) + "\n" if pieces else ""
    return NotebookModule(module, tuple(rows), kept)


#: a ``"source"`` key of the notebook's JSON text (a key: a string's own ``"`` is escaped)
_SOURCE_KEY = re.compile(r'"source"\s*:\s*')
#: one JSON string
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def file_line(text: str, cell: int, line: int) -> int:
    """The line of the notebook's file ``text`` that holds ``line`` of ``cell`` (both
    1-based, as :class:`NotebookModule` numbers them): for the formats whose positions must
    be lines of the file itself (GitHub annotations, SARIF regions). A source written as a
    list of strings (nbformat's usual, one string a line) gives the string's line; a source
    written as one string gives the line where it starts (its newlines are ``\\n`` escapes).

    Never raises: a notebook that cannot be read, or whose ``"source"`` keys cannot be told
    apart from the cells (a metadata key named ``source``), gives 1.

    Args:
        text: the notebook file's text (JSON).
        cell: the cell's number among all the cells (1-based).
        line: the line in the cell (1-based).
    """
    import json

    try:
        cells = json.loads(text).get("cells")
    except (ValueError, RecursionError, AttributeError):
        return 1
    if not isinstance(cells, list) or not 1 <= cell <= len(cells):
        return 1
    keys = list(_SOURCE_KEY.finditer(text))
    having = [i for i, c in enumerate(cells, 1) if isinstance(c, dict) and "source" in c]
    if len(keys) != len(having) or cell not in having:
        return 1
    at = keys[having.index(cell)].end()
    if text.startswith("[", at):
        before = 0  # the cell's newlines ahead of the string read
        position = at
        for m in _JSON_STRING.finditer(text, at):
            if text.find("]", position, m.start()) >= 0:
                break  # past the list's end
            try:
                piece = json.loads(m.group(0))
            except ValueError:
                return 1
            count = piece.count("\n")
            if before == line - 1 or before <= line - 1 < before + count:  # the line starts here
                return text.count("\n", 0, m.start()) + 1
            before += count
            position = m.end()
    return text.count("\n", 0, at) + 1
