"""Python code in files not parsed as Python modules: test code the replacement table reads.

Trial 26e (issue 26, family 4): a project's checks run Python that no ``.py`` file holds,
and a zero-argument fake there fails once ``apply`` passes the config:

* a notebook's code cells (``.ipynb``: CI runs notebooks with ``nbmake``/``nbval``);
* ``python -c "..."`` strings in a Makefile, a shell script, a YAML workflow, ``tox.ini`` or
  any other build file (``make smoke``: ``python -c "import launcher;
  launcher.get_ppo_ray_runtime_env = lambda: {}; launcher.launch({})"``);
* a script run by its shebang without a ``.py`` suffix (``bin/smoke``,
  ``#!/usr/bin/env python3``);
* Python fed to the interpreter by a shell heredoc (trial 26f, g4_heredoc_python_smoke):
  ``python - <<'EOF'``, ``python3 <<PY``, ``python -u - arg <<-EOF`` (tabs stripped), and
  ``cat <<'EOF' | python -``, in the same command files as ``python -c`` (a shell script, a
  Dockerfile's ``RUN``, a workflow's ``run: |`` block, whose indentation is removed);
* the ``import`` lines of a ``.pth`` file anywhere in the repository (trial 26g, G-B1 and
  G-B10: a conftest's or a launcher's ``site.addsitedir(folder)`` runs them, as ``site``
  runs those of site-packages: the standard library's ``site`` module documentation, "Lines
  starting with ``import`` (followed by space or tab) are executed").

:func:`string_code` reads the string constants of a Python module the same way (trial 26g,
G-B6, G-B7, G-B8): a constant naming a name looked for that parses as Python and binds or
replaces something (``FAKE_SRC = "import launcher\nlauncher.get_... = lambda: {}"`` run by
``exec``, the text of a ``.pth`` a conftest writes, a fake ``constants_ppo.py`` a fixture
writes from a ``textwrap.dedent`` constant) is code the project may run.

:func:`embedded_python` gives their code as :mod:`ast` trees, each statement at its line in
the file (a notebook's cell lines are found in the notebook's JSON text), so that
:func:`ppo_migrate.rules.patches.target_patches` runs the same replacement table on them as
on a test file. Code that does not parse (IPython syntax in a cell, a ``-c`` string built
with shell variables) is given with the reason, and the look-out makes the fixes unsafe
naming it when it spells a name the table looks for.

Bounds (benchmark item 1: a tree that never names the function costs nothing more): only
when some file of the run names the function; only the files of the run's one walk of the
repository (:func:`ppo_migrate.project.tree.repository_listing`) of the kinds above, each
read once through the run's snapshot, and parsed only when its bytes spell one of the names
looked for; a file larger than :data:`MAX_BYTES` is not read.
"""

from __future__ import annotations

import ast
import bisect
import json
import os
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple

from ppo_migrate.project.repository import files_holding

#: A file larger than this (bytes) is data, not read.
MAX_BYTES = 2_000_000
#: Suffixes of the files whose ``python -c`` strings are read (lower-cased): shell scripts,
#: Makefile includes, YAML (workflows, CI), tox/setup/pytest configuration, justfiles.
COMMAND_SUFFIXES: tuple[str, ...] = (".sh", ".bash", ".zsh", ".mk", ".yml", ".yaml", ".ini", ".toml", ".cfg", ".just")
#: Names of the files whose ``python -c`` strings are read besides those suffixes (a file
#: without a suffix is read too: a Makefile, a Dockerfile, a script run by its shebang).
COMMAND_PREFIXES: tuple[str, ...] = ("Dockerfile", "Containerfile", "Makefile", "GNUmakefile", "makefile", "justfile", "Justfile")
NOTEBOOK_SUFFIX = ".ipynb"
#: a path configuration file (the standard library's ``site``): its ``import`` lines run
PTH_SUFFIX = ".pth"
#: what starts a ``.pth`` line ``site`` executes (``site.addpackage``: ``import`` followed
#: by a space or a tab)
_PTH_IMPORT = ("import ", "import\t")

#: the interpreter: ``python``, ``python3``, ``python3.11``, ``/usr/bin/python``, a variable
#: ``$(PYTHON)``, ``"$PY"``, ``${PYTHON_BIN}``
_INTERPRETER = r"(?:(?:[\w./-]*/)?python(?:[23](?:\.\d+)?)?|\$[({]?\w*PY\w*[)}]?\"?)"
#: ``python -c CODE`` (``python3``, ``python3.11``, ``/usr/bin/python``, an interpreter
#: variable ``$(PYTHON)``, ``"$PY"``, ``${PYTHON_BIN}``; options before ``-c``): the code's
#: first character follows the match
_PYTHON_C = re.compile(
    r"(?:^|(?<=[\s;&|(`'\"=]))" + _INTERPRETER + r"(?:[ \t]+-[A-Za-bd-z]+)*[ \t]+-c[ \t]*"
)
#: a heredoc operator: ``<<WORD``, ``<<'WORD'``, ``<<"WORD"``, ``<<-WORD`` (group ``strip``:
#: the ``-``; ``quote``: the quote; ``word``: the delimiter)
_HEREDOC = r"<<(?P<strip>-?)[ \t]*(?P<quote>['\"]?)(?P<word>[A-Za-z_][\w.-]*)(?P=quote)"
#: Python reading its program from a heredoc: the interpreter with options only, then ``-``
#: and the script's arguments or nothing, then the operator (``python - "$@" <<'EOF'``); or
#: the heredoc piped to it (``cat <<'EOF' | python3 -``). Not ``python train.py <<EOF``,
#: whose standard input is the script's data.
#: (each repetition bounded: a long line of a generated file costs a bounded scan per match)
_PYTHON_HEREDOC = re.compile(
    r"(?:^|(?<=[\s;&|(`'\"=]))" + _INTERPRETER + r"(?:[ \t]+-[A-Za-bd-z]+){0,8}"
    r"(?:[ \t]+-(?:[ \t]+[^\s<>;&|]+){0,8})?[ \t]*" + _HEREDOC
    + r"|" + _HEREDOC.replace("?P<", "?P<p_").replace("(?P=quote)", "(?P=p_quote)")
    + r"[^\n|<]{0,200}\|[ \t]*[\"']?" + _INTERPRETER + r"(?:[ \t]+-[A-Za-bd-z]+){0,8}(?:[ \t]+-)?[ \t]*(?:$|[;&)#])",
    re.MULTILINE,
)
#: the escapes of an unquoted heredoc's body (POSIX: ``\\`` before ``$ ` \\`` and a newline)
_HEREDOC_ESCAPE = re.compile(r"\\([$`\\\n])")
#: a shebang naming Python (``#!/usr/bin/env python3``, ``#!/usr/bin/python -u``)
_SHEBANG = re.compile(rb"#![^\n]*\bpython[\d.]*\b")
#: the escapes of a shell's double-quoted string (POSIX: ``\\`` before ``$ ` " \\`` and a newline)
_DOUBLE_ESCAPE = re.compile(r'\\([$`"\\\n])')


class Embedded(NamedTuple):
    """Python code in a file not parsed as a Python module.

    Attributes:
        path: the file (relative to the working directory when below it, else absolute).
        tree: the code, each statement at its line in the file; ``None`` when it does not
            parse.
        line: where the code starts (for code that does not parse: the first line spelling
            a name looked for).
        problem: why it does not parse (``"invalid syntax (line 2)"``), else ``None``.
        form: what holds it, for messages: ``"a notebook cell"``, ``"a python -c string"``,
            ``"a Python script without .py"``.
    """

    path: str
    tree: ast.Module | None
    line: int
    problem: str | None
    form: str


def is_embedding_file(name: str) -> bool:
    """Whether a file named ``name`` may hold Python that is not a module: a notebook, a
    file of :data:`COMMAND_SUFFIXES` or :data:`COMMAND_PREFIXES`, or one without a suffix."""
    if name.endswith((".py", ".pyi")):
        return False
    lower = name.lower()
    return (
        lower.endswith(NOTEBOOK_SUFFIX) or lower.endswith(PTH_SUFFIX) or lower.endswith(COMMAND_SUFFIXES)
        or name.startswith(COMMAND_PREFIXES) or "." not in name.lstrip(".")
    )


def embedded_python(
    candidates: Sequence[str], words: Sequence[bytes], read: Callable[[str], bytes]
) -> list[Embedded]:
    """The Python code of the repository's notebooks, ``python -c`` strings and scripts
    without ``.py`` (see the module docstring) whose bytes spell one of ``words``.

    Args:
        candidates: the files naming the runtime function (the prefilter's); the repository
            is the one the look-out for doubles walks
            (:func:`ppo_migrate.project.repository.files_holding`). None: nothing is read.
        words: the names the replacement table looks for (encoded).
        read: the run's reader (:meth:`ppo_migrate.project.snapshot.Snapshot.read_bytes`).

    Returns:
        :class:`Embedded` code, in the listing's order, then by line. Never raises ``OSError``:
        a file that cannot be read, or larger than :data:`MAX_BYTES`, is left out.
    """
    out: list[Embedded] = []
    for path, shown, data in files_holding(candidates, is_embedding_file, words, MAX_BYTES, read):
        text = data.decode("utf-8", "replace")
        if path.lower().endswith(NOTEBOOK_SUFFIX):
            out += _notebook(shown, text, words)
        elif path.lower().endswith(PTH_SUFFIX):
            out += _pth_lines(shown, text, words)
        elif "." not in os.path.basename(path).lstrip(".") and _SHEBANG.match(data):
            out.append(_script(shown, text, words))
        else:
            makefile = os.path.basename(path).endswith((".mk", "akefile"))
            out += _commands(shown, text, words, makefile)
            out += _heredocs(shown, text, words)
    return out


def _parse(code: str) -> tuple[ast.Module | None, str | None]:
    """``(tree, None)``, or ``(None, why)`` when ``code`` does not parse."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(code), None
    except SyntaxError as error:
        return None, f"{error.msg} (line {error.lineno})"
    except (ValueError, RecursionError, MemoryError) as error:
        return None, str(error) or type(error).__name__


def _first_line(text: str, words: Sequence[bytes], start: int = 1) -> int:
    """The first line of ``text`` (numbered from ``start``) spelling one of ``words``."""
    decoded = [w.decode("utf-8", "replace") for w in words]
    for number, line in enumerate(text.splitlines(), start):
        if any(w in line for w in decoded):
            return number
    return start


def _script(path: str, text: str, words: Sequence[bytes]) -> Embedded:
    """A script run by its Python shebang, parsed whole."""
    tree, problem = _parse(text)
    line = 1 if tree is not None else _first_line(text, words)
    return Embedded(path, tree, line, problem, "a Python script without .py")


def _commands(path: str, text: str, words: Sequence[bytes], makefile: bool) -> Iterator[Embedded]:
    """Each ``python -c`` string of a command file that spells one of ``words``: a quoted
    string read as the shell reads it (``\\"`` in double quotes; ``$$`` of a Makefile is
    ``$``), an unquoted word up to a blank."""
    decoded = [w.decode("utf-8", "replace") for w in words]
    for m in _PYTHON_C.finditer(text):
        start = m.end()
        code, end = _shell_string(text, start)
        if not code or not any(w in code for w in decoded):
            continue
        if makefile:
            code = code.replace("$$", "$")
        first = text.count("\n", 0, start) + 1
        yield _embedded(path, code, first, "a python -c string", lambda: _first_line(code, words, first))


def python_c_strings(text: str, words: Sequence[str]) -> Iterator[tuple[str, int, int]]:
    """``(code, start, end)`` of each ``python -c`` string of a command text (a task
    runner's command in a ``pyproject.toml``: pdm's ``cmd``/``shell``, poe's ``cmd``/``shell``,
    hatch's ``scripts``) that spells one of ``words``: the code as the shell hands it over
    (:func:`_shell_string`), and the offsets in ``text`` of the shell word holding it (its
    quote included). The same reading as the look-out for doubles' (:func:`_commands`).

    Args:
        text: the file's text.
        words: the names looked for.
    """
    for m in _PYTHON_C.finditer(text):
        start = m.end()
        code, end = _shell_string(text, start)
        if code and any(w in code for w in words):
            yield code, start, end


def _embedded(path: str, code: str, first: int, form: str, problem_line: Callable[[], int]) -> Embedded:
    """``code`` (which starts at line ``first`` of ``path``) as :class:`Embedded` code of
    ``form``, each statement at its line in the file; when it does not parse, the reason,
    placed at ``problem_line()`` (the first line naming a function, for a block)."""
    tree, problem = _parse(code)
    if tree is not None:
        ast.increment_lineno(tree, first - 1)
        return Embedded(path, tree, first, None, form)
    return Embedded(path, None, problem_line(), problem, form)


def _heredocs(path: str, text: str, words: Sequence[bytes]) -> Iterator[Embedded]:
    """Each heredoc of a command file whose body Python runs (:data:`_PYTHON_HEREDOC`) and
    spells one of ``words``, as the shell hands it over.

    Args:
        path: the file, as :attr:`Embedded.path` shows it.
        text: its text.
        words: the names looked for (encoded).

    Returns:
        :class:`Embedded` code (form ``"a python heredoc"``), each statement at its line in
        the file. The body runs from the line after the operator to the first line that is
        the delimiter alone (blanks around it allowed: a workflow's ``run: |`` block indents
        it); ``<<-`` strips leading tabs (POSIX); the common indentation is removed (the
        block's); an unquoted delimiter's body has its ``\\$``, ``\\```, ``\\\\`` and
        ``\\``-newline escapes undone (its ``$x`` expansions stay: code they make unparsable
        is given with the reason).
    """
    import textwrap

    decoded = [w.decode("utf-8", "replace") for w in words]
    for m in _PYTHON_HEREDOC.finditer(text):
        word = m.group("word") or m.group("p_word")
        strip = (m.group("strip") if m.group("word") else m.group("p_strip")) == "-"
        quoted = bool(m.group("quote") if m.group("word") else m.group("p_quote"))
        start = text.find("\n", m.end())
        if start < 0:
            continue
        start += 1
        first = text.count("\n", 0, start) + 1
        lines: list[str] = []
        for line in text[start:].splitlines():
            if line.strip() == word:
                break
            lines.append(line.lstrip("\t") if strip else line)
        code = textwrap.dedent("\n".join(lines)) + "\n"
        if not quoted:
            code = _HEREDOC_ESCAPE.sub(lambda e: "" if e.group(1) == "\n" else e.group(1), code)
        if not any(w in code for w in decoded):
            continue
        yield _embedded(path, code, first, "a python heredoc", lambda: _first_line(code, words, first))


def _pth_lines(path: str, text: str, words: Sequence[bytes]) -> Iterator[Embedded]:
    """Each line of a ``.pth`` file that ``site`` executes (one starting with ``import`` and
    a blank: :data:`_PTH_IMPORT`) and spells one of ``words``, parsed alone at its line.

    Args:
        path: the file, as :attr:`Embedded.path` shows it.
        text: its text.
        words: the names looked for (encoded).

    Returns:
        :class:`Embedded` code (form ``"a .pth file's import line"``); a line that does not
        parse is given with the reason (``site`` then stops at it, but what ran before it
        ran). Lines of folders to add to ``sys.path`` and comments are not code.
    """
    decoded = [w.decode("utf-8", "replace") for w in words]
    for number, line in enumerate(text.splitlines(), 1):
        if not line.startswith(_PTH_IMPORT) or not any(w in line for w in decoded):
            continue
        yield _embedded(path, line.rstrip() + "\n", number, "a .pth file's import line", lambda: number)


#: what a string holding statements spells besides a name: a line break, a ``;``, an ``=``
#: (``"f = lambda: {}"``), a ``def`` or an ``import``
_CODE_MARKS = ("\n", ";", "=", "def ", "import ")


def string_code(tree: ast.AST, functions: Iterable[str], nodes: Iterable[ast.AST] | None = None) -> Iterator[tuple[ast.Module, int]]:
    """The string constants of a Python module's ``tree`` that hold Python code naming one
    of ``functions`` (trial 26g: ``exec(FAKE_SRC, {})``, a ``.pth`` or a fake module written
    from a constant), parsed.

    Args:
        tree: the module's tree.
        functions: the names a constant must spell (the runtime function's names, the
            modules and aliases the calls go through).
        nodes: the tree's string constants when known (the replacement table's walk),
            else the tree is walked.

    Returns:
        ``(code, line)`` for each constant that spells a name of ``functions`` and one of
        :data:`_CODE_MARKS`, and parses as statements other than one bare expression (a
        patch target ``"pkg.lib.get_..."`` parses too, and is read as a target elsewhere):
        its statements at the constant's lines (a constant on one line: every statement at
        it; a triple-quoted one: at the line it spans). Docstrings are left out (prose that
        happens to parse is not run). Never raises.
    """
    import textwrap

    names = tuple(functions)
    docstrings: set[int] | None = None  # made once a constant spells a name
    for node in (nodes if nodes is not None else ast.walk(tree)):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        value = node.value
        if not any(n in value for n in names) or not any(m in value for m in _CODE_MARKS):
            continue
        if docstrings is None:
            docstrings = _docstrings(tree)
        if id(node) in docstrings:
            continue
        code, _ = _parse(textwrap.dedent(value))
        if code is None or (len(code.body) == 1 and isinstance(code.body[0], ast.Expr)):
            continue
        first = getattr(node, "lineno", 1)
        if getattr(node, "end_lineno", first) == first:
            for sub in ast.walk(code):
                if "lineno" in sub._attributes:
                    sub.lineno = sub.end_lineno = first
        else:
            ast.increment_lineno(code, first - 1)
        yield code, first


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants of ``tree`` (a module's, a class's, a function's)."""
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
    }


def _shell_string(text: str, start: int) -> tuple[str, int]:
    """The shell word at ``start`` (one quoted string, or up to a blank): ``(value, end)``."""
    if start >= len(text):
        return "", start
    quote = text[start]
    if quote == "'":
        end = text.find("'", start + 1)
        end = len(text) if end < 0 else end
        return text[start + 1:end], end + 1
    if quote == '"':
        i = start + 1
        while i < len(text) and text[i] != '"':
            i += 2 if text[i] == "\\" else 1
        body = text[start + 1:min(i, len(text))]
        return _DOUBLE_ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), body), i + 1
    m = re.compile(r"[^\s;&|]+").match(text, start)
    return (m.group(0), m.end()) if m else ("", start)


#: an IPython line magic or shell escape (``%pip install x``, ``!ls``): not Python
_MAGIC = re.compile(r"^([ \t]*)[%!]")


def _notebook(path: str, text: str, words: Sequence[bytes]) -> Iterator[Embedded]:
    """The code cells of a notebook (nbformat 4 JSON), each at its lines in the notebook's
    text; a cell magic (``%%bash``) cell is left out, a line magic is read as ``pass``."""
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        return
    cells = document.get("cells") if isinstance(document, dict) else None
    if not isinstance(cells, list):
        return
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    decoded = [w.decode("utf-8", "replace") for w in words]
    cursor = 0
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        source = cell.get("source", "")
        lines = source if isinstance(source, list) else str(source).splitlines(keepends=True)
        lines = [line for line in lines if isinstance(line, str)]
        at = text.find('"source"', cursor)
        cursor = at + 1 if at >= 0 else cursor
        if cell.get("cell_type") != "code" or not lines:
            continue
        code = "".join(lines)
        if code.lstrip().startswith("%%") or not any(w in code for w in decoded):
            continue
        # each line of the cell at the line of the notebook's text holding it
        numbers: list[int] = []
        for line in lines:
            for pieces in line.splitlines() or [""]:
                spelled = json.dumps(pieces)[1:-1]
                found = text.find(spelled, cursor) if spelled else -1
                if found >= 0:
                    cursor = found
                numbers.append(bisect.bisect_right(starts, cursor) - 1 + 1)
        cleaned = "\n".join(_MAGIC.sub(r"\1pass  # ", line) for line in code.splitlines())
        tree, problem = _parse(cleaned)
        if tree is None:
            index = _first_line(code, words) - 1
            yield Embedded(path, None, numbers[min(index, len(numbers) - 1)], problem, "a notebook cell")
            continue
        for node in ast.walk(tree):
            for field in ("lineno", "end_lineno"):
                value = getattr(node, field, None)
                if isinstance(value, int) and numbers:
                    setattr(node, field, numbers[min(value, len(numbers)) - 1])
        yield Embedded(path, tree, numbers[0], None, "a notebook cell")


__all__ = ["Embedded", "MAX_BYTES", "embedded_python", "is_embedding_file", "string_code"]
