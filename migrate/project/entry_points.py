"""The entry points a project declares in its packaging files (collect phase; trial 26f, MISSED).

An entry point names an object by ``module:attribute``; whatever loads it (``importlib.metadata``'s
``entry_points(group=...)[name].load()``, a plugin host, the console-script wrapper pip writes,
which runs ``sys.exit(attribute())``) calls it with the arguments of its own choosing, none for a
script. Declared as ``verl.trainer.constants_ppo:get_ppo_ray_runtime_env`` (or the project's own
re-export of it), the runtime function is then called with no config by code no source edit can
reach: :mod:`ppo_migrate.rules.entry_point_targets` reports each one (PPO006, no fix).

Read here, from the text the run's snapshot holds (:meth:`ppo_migrate.project.snapshot.SourceFile.derived`:
each file's declarations are made once a run):

* ``pyproject.toml`` (with :mod:`tomllib`): ``[project.scripts]`` (group ``console_scripts``),
  ``[project.gui-scripts]`` (``gui_scripts``) and ``[project.entry-points."group"]`` (PEP 621,
  the packaging guide's "pyproject.toml specification"), and Poetry's ``[tool.poetry.scripts]``
  (a string, or a table's ``reference`` or ``callable``: :func:`poetry_reference`) and
  ``[tool.poetry.plugins."group"]``; a text :mod:`tomllib` refuses declares nothing, and
  :func:`pyproject_problem` says why (PPO902);
* ``setup.cfg`` (with :mod:`configparser`, as setuptools reads it: strict, ``%(name)s``
  interpolated): the ``[options.entry_points]`` section, one ``group = name = value`` line per
  group or a group's value spread over indented lines; a text setuptools refuses (a section or
  option written twice, an interpolation that fails) declares nothing, and
  :func:`setup_cfg_problem` says why (PPO902);
* ``setup.py`` (its ``ast``): the ``entry_points=`` keyword of a call of ``setup`` (a name its
  import binds, ``from setuptools import setup as s``, or an attribute ``setuptools.setup``),
  given directly or in ``setup(**kw)``: a dict (a literal, ``**`` of such spliced, or
  ``dict(group=...)``) of group to a list, tuple or set of ``"name = value"`` strings (or one
  string of such lines), a string in the ``setup.cfg``-like INI form
  (``"[group]\\nname = value"``), or a module-level name bound once (and a dict never changed
  in place) to such a value; strings are folded from module-level string constants
  (``"b = " + EP``, ``f"b = {EP}"``, ``"b=%s" % EP``), and a value that cannot be folded is
  kept as uncertain (:attr:`EntryPoint.certain`; trial 26h), with the values of the names it
  reads (:attr:`EntryPoint.context`; fresh40).

Entry points setuptools reads from another file (``setup.cfg``'s ``[options] entry_points =
file: ep.cfg``, ``pyproject.toml``'s ``[tool.setuptools.dynamic] entry-points = {file = [...]}``:
:func:`entry_point_files`) are read from the run's snapshot, analysed or not, and placed where
the packaging file names that file, their own file and line kept (:attr:`EntryPoint.origin`).

Positions: a value's line and column in the file (code points, 1-based), found in the text
(TOML and INI parsers give none): for TOML, the string literal whose whole key (the header
above it, the dotted key its line assigns, ``entry-points.grp.b =`` under ``[project]``, and the
keys of the inline tables around it, read in one pass: :func:`_toml_value_paths`) is the
entry's and whose text is the value, else the one that decodes to it (``\\u`` escapes, a
multi-line string, which
then spans key line to closing quotes; a Poetry table's at its ``reference`` key); for
``setup.cfg``, the line of the section holding the value, as :mod:`configparser` lays the
section out (:func:`_ini_layout`); for ``setup.py``, the string constant holding it. A
value whose text cannot be found is placed at the table's header (TOML) or section's header
(``setup.cfg``).

Sources: the packaging guide's "Entry points specification" (the value's syntax,
``module:qualname [extras]``) and "pyproject.toml specification"; setuptools' "Entry Points" and
"Configuring setuptools using setup.cfg files"; Poetry's "The pyproject.toml file" (``scripts``,
``plugins``).
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

# the packaging files read besides ``setup.py`` (a Python file, judged with the module's
# analysis), by these exact names: defined in discovery, which every run imports and which
# imports nothing of this module
from ppo_migrate.project.discovery import ENTRY_POINT_FILES, is_entry_point_file

#: ``setup.py``: its ``setup(entry_points=...)``.
SETUP_PY = "setup.py"

#: An entry point's value: ``module.path:object.attr`` with optional ``[extras]`` (the
#: specification's grammar; white space around the parts allowed).
_VALUE = re.compile(
    r"\s*(?P<module>[A-Za-z_][\w]*(?:\s*\.\s*[A-Za-z_]\w*)*)"
    r"\s*(?::\s*(?P<attr>[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*))?\s*(?:\[[^\]]*\])?\s*\Z"
)
_LINE_ENDINGS = re.compile(r"\r\n|\r|\n")


class EntryPoint(NamedTuple):
    """One declared entry point.

    Attributes:
        group: its group (``console_scripts`` for ``[project.scripts]``).
        name: its name.
        value: the value as declared (``verl.trainer.constants_ppo:get_ppo_ray_runtime_env``).
        line: 1-based line of the value in the file; ``column``: 1-based column (code
            points); ``end_line``/``end_column``: just past it (a multi-line TOML string
            ends on its closing line: a ``# noqa`` there is read, as ruff reads one after
            a multi-line string).
        certain: ``False`` for a ``setup.py`` value built at run time (a name, call or
            formatted part the tool cannot fold into a constant): ``value`` is then its
            source text, one line, and says only what it may name.
        context: for a value not :attr:`certain`, ``(name, value)`` for each module-level
            name it reads and each value that name is bound to anywhere in the module
            (under an ``if``, twice, by ``kw["entry_points"] = ...``: the source text, one
            line), followed through the names those values read (fresh40, MISSED: ``"c = " + EP``
            with ``EP`` bound twice names the function only through ``EP``).
        origin: ``"ep.cfg:2"`` for an entry point written in another file that this one
            makes setuptools read (:func:`entry_point_files`: ``entry_points = file: ep.cfg``):
            the file as named here and the line there; the position is then this file's,
            the file's name where it is named (fresh40, MISSED). ``""`` for one written here.
        problem: for a file of entry points setuptools refuses (not UTF-8, an option
            written twice), why: the entry then declares nothing (no group, name or value),
            :attr:`origin` names the file and line, and :attr:`context` holds ``("text",
            the file's text)`` (fresh41, W7). ``""`` for an entry point.
        legacy_group: for a ``setup.cfg`` group written with dashes (``console-scripts``),
            the name setuptools before 78.0.0 gave it, its dashes made underscores
            (``console_scripts``, a script then); 78.0.0 and later keep the name as
            written, :attr:`group` (fresh42, W1'). ``""`` for any other.
    """

    group: str
    name: str
    value: str
    line: int
    column: int
    end_line: int
    end_column: int
    certain: bool = True
    context: tuple[tuple[str, str], ...] = ()
    origin: str = ""
    problem: str = ""
    legacy_group: str = ""

    @property
    def qualified(self) -> str | None:
        """The object's qualified name (``module.attr``; the module alone when no attribute
        is named), ``None`` for a value that is no entry point reference or not
        :attr:`certain`."""
        if not self.certain:
            return None
        parsed = parse_value(self.value)
        if parsed is None:
            return None
        module, attr = parsed
        return f"{module}.{attr}" if attr else module

    @property
    def module(self) -> str | None:
        """The module loading the entry point imports, ``None`` for a malformed value or
        one not :attr:`certain` (its ``value`` is source text, no reference)."""
        if not self.certain:
            return None
        parsed = parse_value(self.value)
        return parsed[0] if parsed is not None else None


def parse_value(value: str) -> tuple[str, str | None] | None:
    """``(module, attribute or None)`` of an entry point's value (``"a.b:c.d [x]"`` gives
    ``("a.b", "c.d")``), ``None`` when it does not follow the specification's grammar.

    Args:
        value: the value as declared.
    """
    m = _VALUE.match(value)
    if m is None:
        return None
    module = re.sub(r"\s+", "", m.group("module"))
    attr = m.group("attr")
    return module, re.sub(r"\s+", "", attr) if attr else None


class Declarations(tuple):
    """A packaging file's entry points (a tuple of :class:`EntryPoint`, in file order) and
    why its parser refuses the file as the packaging tools read it (:attr:`problem`).

    Attributes:
        problem: ``(message, line, column)`` when the parser refuses the file (then there
            are no entry points), ``None`` when it reads it.
    """

    problem: tuple[str, int, int] | None

    def __new__(cls, entries: Iterable[EntryPoint] = (), problem: tuple[str, int, int] | None = None):
        self = super().__new__(cls, entries)
        self.problem = problem
        return self


def declared_entry_points(source) -> Declarations:
    """The entry points a packaging file of the run's snapshot declares, made once a run
    (:meth:`ppo_migrate.project.snapshot.SourceFile.derived`).

    Args:
        source: the file's :class:`ppo_migrate.project.snapshot.SourceFile` (its ``key`` or
            display path decides the format: ``pyproject.toml``, ``setup.cfg``, ``setup.py``).

    Returns:
        The declarations in file order; ``()`` for another file or one its parser refuses
        (:attr:`Declarations.problem` then says why: read from the file's bytes, so a
        ``pyproject.toml`` starting with a UTF-8 byte order mark, which :mod:`tomllib`
        refuses, is refused here too, though the decoded text has no mark; fresh40, W4; and a
        ``setup.cfg`` starting with one, which setuptools opens as ``utf-8`` and whose parser
        then finds no section header; fresh41, W7).
    """
    return source.derived(__name__, _build)


def _build(source) -> Declarations:
    name = os.path.basename(source.key)
    if name == SETUP_PY:
        try:
            return Declarations(setup_py_entry_points(source.tree(), source.text))
        except (SyntaxError, ValueError, RecursionError):
            return Declarations()
    text = source.text
    if name == "pyproject.toml" and source.data.startswith(b"\xef\xbb\xbf"):
        return Declarations((), pyproject_problem("\ufeff" + text))
    if name == "setup.cfg" and source.data.startswith(b"\xef\xbb\xbf"):
        # setuptools opens it as ``utf-8``, the mark kept: no section header (fresh41, W7)
        why = ("a UTF-8 byte order mark starts the file, which setuptools reads as text before the "
               "first section header")
        return Declarations((), (why, 1, 1))
    entries = tuple(entry_points_of(name, text))
    referenced = tuple(_referenced_entry_points(source.key, name, text))
    if referenced:
        entries = tuple(sorted((*entries, *referenced), key=lambda e: (e.line, e.column)))
    if entries:
        return Declarations(entries)
    if name == "pyproject.toml":
        return Declarations((), pyproject_problem(text))
    if name == "setup.cfg":
        return Declarations((), setup_cfg_problem(text))
    return Declarations()


def entry_points_of(name: str, text: str) -> Iterator[EntryPoint]:
    """The entry points of a packaging file's ``text`` by its base ``name``
    (``pyproject.toml`` or ``setup.cfg``; nothing for another name). Never raises for a
    file its parser refuses: it declares nothing."""
    if name == "pyproject.toml":
        return iter(pyproject_entry_points(text))
    if name == "setup.cfg":
        return iter(setup_cfg_entry_points(text))
    return iter(())


# -- entry points read from another file ---------------------------------------------------------
#: the fields of ``project.dynamic`` that make setuptools read ``[tool.setuptools.dynamic]``'s
#: ``entry-points`` (``_obtain_entry_points``)
_DYNAMIC_FIELDS = ("entry-points", "scripts", "gui-scripts")


def entry_point_files(name: str, text: str) -> list[tuple[str, int, int, int, int]]:
    """The files a packaging file makes setuptools read its entry points from, as named
    (relative to the file's folder), each with the place it is named at (``line, column,
    end_line, end_column``): ``setup.cfg``'s ``[options] entry_points = file: a.cfg, b.cfg``
    (interpolated, as setuptools reads it) and ``pyproject.toml``'s
    ``[tool.setuptools.dynamic] entry-points = {file = [...]}`` when ``project.dynamic``
    lists ``entry-points``, ``scripts`` or ``gui-scripts`` (else setuptools reads none).
    ``[]`` for another file, none named, or a text the parser refuses.

    Args:
        name: the file's base name.
        text: its decoded text.

    Source: setuptools' "Configuring setuptools using setup.cfg files" (``file:``) and
    "Configuring setuptools using pyproject.toml files" (``[tool.setuptools.dynamic]``);
    its ``config.expand.read_files`` (comma-separated paths, relative to the folder).
    """
    if "file" not in text:
        return []
    if name == "setup.cfg":
        return _setup_cfg_files(text)
    if name == "pyproject.toml":
        return _pyproject_files(text)
    return []


def entry_point_holders(path: str, cache: dict[str, frozenset[str]] | None = None) -> list[str]:
    """The packaging files that make setuptools read entry points from the file ``path``
    (fresh41, M3: ``check ep.cfg``, as pre-commit passes a changed file, said "All checks
    passed!" while ``check .`` reported ``setup.cfg``'s ``entry_points = file: ep.cfg``):
    each ``setup.cfg`` and ``pyproject.toml`` in ``path``'s folder and the folders above it,
    up to the repository's top folder (one holding ``.git``) or the file system's root, whose
    ``file:`` references (:func:`entry_point_files`; a path
    setuptools reads relative to the packaging file's folder, never outside it) name
    ``path``. Discovery then checks those files in its place (the ``holders`` of
    :func:`ppo_migrate.project.discovery.discover_files`): their findings, where ``check .``
    puts them (at the reference), suppressed by the same ``# noqa``.

    Args:
        path: an absolute path of a named file.
        cache: the files each packaging file names (real paths), by its path, kept across
            the calls of one discovery (pre-commit may name many files of one folder).

    Returns:
        The packaging files' absolute paths, nearest first; ``[]`` for none (a file that
        cannot be read, or is not UTF-8, names none).
    """
    from ppo_migrate.project import snapshot
    from ppo_migrate.project.root import GIT_ENTRY

    real = os.path.realpath(path)
    folder = os.path.dirname(path)
    out: list[str] = []
    while True:
        for name in ENTRY_POINT_FILES:
            candidate = os.path.join(folder, name)
            named = cache.get(candidate) if cache is not None else None
            if named is None:
                named = frozenset()
                if os.path.isfile(candidate):
                    try:
                        text = snapshot.current().read_bytes(candidate, keep=True).decode("utf-8")
                    except (OSError, ValueError):  # UnicodeDecodeError too
                        text = ""
                    named = frozenset(os.path.realpath(os.path.join(folder, file))
                                      for file, *_ in entry_point_files(name, text))
                if cache is not None:
                    cache[candidate] = named
            if real in named:
                out.append(candidate)
        parent = os.path.dirname(folder)
        if parent == folder or os.path.lexists(os.path.join(folder, GIT_ENTRY)):
            return out
        folder = parent


def _setup_cfg_files(text: str) -> list[tuple[str, int, int, int, int]]:
    import configparser

    try:
        parser = _setup_cfg_parser(text)
        option = next((o for o in ("entry_points", "entry-points") if parser.has_option("options", o)), None)
        value = parser.get("options", option) if option is not None else ""
    except (configparser.Error, ValueError):
        return []
    if not value.startswith("file:"):
        return []
    lines = _Lines(text)
    line = _option_line(text, "options", option)  # type: ignore[arg-type]
    out = []
    for path in (p.strip() for p in value[len("file:"):].split(",")):
        if not path:
            continue
        at = text.find(path, lines.starts[line - 1])
        if at < 0:
            out.append((path, line, 1, line, 1 + len(lines.line_text(line))))
            continue
        (first, column), (last, end) = lines.position(at), lines.position(at + len(path))
        out.append((path, first, column, last, end))
    return out


def _pyproject_files(text: str) -> list[tuple[str, int, int, int, int]]:
    import tomllib

    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):
        return []
    dynamic = _descend(data, ("project", "dynamic"))
    if not isinstance(dynamic, list) or not any(f in dynamic for f in _DYNAMIC_FIELDS):
        return []
    table = ("tool", "setuptools", "dynamic")
    spec = _descend(data, (*table, "entry-points"))
    files = spec.get("file") if isinstance(spec, dict) else None
    files = [files] if isinstance(files, str) else files
    if not isinstance(files, list):
        return []
    lines = _Lines(text)
    headers = _toml_headers(text, lines)
    literals = _toml_literals(text)
    used: set[int] = set()
    out = []
    for path in files:
        if not isinstance(path, str) or not path.strip():
            continue
        place = None
        for start, end, decoded in literals:
            if decoded != path or start in used:
                continue
            above = [p for at, p in headers if at < start]
            holder = above[-1] if above else ()
            if table[: len(holder)] != holder:
                continue  # a string of another table (``[project]``'s ``readme``, say)
            used.add(start)
            place = (*lines.position(start), *lines.position(end))
            break
        out.append((path, *(place or _toml_header(lines, headers, table))))
    return out


def _referenced_entry_points(key: str, name: str, text: str) -> Iterator[EntryPoint]:
    """The entry points of the files :func:`entry_point_files` names, read from the run's
    snapshot as setuptools reads them (UTF-8; a path not below the file's folder, or not a
    file, is skipped: setuptools refuses or skips it), each placed where its file is named.

    setuptools joins the files' texts into one (``"\\n".join``), so a file with no header of
    its own continues the previous file's last group (fresh41, MISSED M2), then reads it:
    for ``setup.cfg``'s ``file:`` with the entry points line reader (:func:`_entry_points_text`:
    ``#`` comments only, no interpolation: a ``; a = ...`` line is an entry point named
    ``; a``, fresh41, M6); for ``pyproject.toml``'s ``[tool.setuptools.dynamic]`` with a
    strict :class:`configparser.ConfigParser` (``%(name)s`` interpolated, ``#``/``;``
    comments, an option written twice refused: fresh41, M1 and W7). A file setuptools
    refuses (not UTF-8, or a text its parser refuses) gives one entry carrying the reason
    (:attr:`EntryPoint.problem`), at the place the first such file is named, with its text
    as :attr:`EntryPoint.context` (the rule reports it when that text names the function).

    Args:
        key: the packaging file's absolute path.
        name: its base name.
        text: its decoded text.

    Source: setuptools' ``config.expand.read_files`` and ``entry_points`` (the pyproject
    path), ``config.setupcfg`` (``_parse_file``) and ``_entry_points.load`` (the line reader).
    """
    named = entry_point_files(name, text)
    if not named:
        return
    from ppo_migrate.project import snapshot

    folder = os.path.dirname(key)
    texts: list[tuple[str, str, tuple[int, int, int, int]]] = []  # (path as named, text, place)
    for path, line, column, end_line, end_column in named:
        place = (line, column, end_line, end_column)
        full = os.path.normpath(os.path.join(folder, path))
        if not full.startswith(folder.rstrip(os.sep) + os.sep):
            continue  # setuptools: "Cannot access ... (or anything outside ...)"
        try:
            data = snapshot.current().read_bytes(full)
        except (OSError, ValueError):
            continue  # setuptools: "File ... cannot be found", skipped
        try:
            content = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            bad_line = data[: exc.start].count(b"\n") + 1
            yield EntryPoint("", "", "", *place, origin=f"{path}:{bad_line}",
                             context=(("text", data.decode("utf-8", "replace")),),
                             problem=f"it is not UTF-8 text ({exc.reason} at byte {exc.start}), as "
                             "setuptools reads it")
            return
        texts.append((path, content, place))
    if not texts:
        return
    # the joined text's line n -> (file's index, its line there)
    where: list[tuple[int, int]] = []
    for i, (_, content, _) in enumerate(texts):
        where += [(i, n) for n in range(1, content.count("\n") + 2)]
    joined = "\n".join(content for _, content, _ in texts)

    def located(n: int) -> tuple[str, tuple[int, int, int, int], int]:
        i, at = where[n - 1] if 0 < n <= len(where) else (len(texts) - 1, n)
        return texts[i][0], texts[i][2], at

    if name == "setup.cfg":
        for group, entry, value, at in _entry_points_text(joined):
            path, place, line = located(at)
            yield EntryPoint(group, entry, value, *place, origin=f"{path}:{line}")
        return
    entries, problem = _entry_points_config(joined)
    if problem is not None:
        message, at = problem
        path, place, line = located(at)
        yield EntryPoint("", "", "", *place, origin=f"{path}:{line}", context=(("text", joined),),
                         problem=message)
        return
    for group, entry, value, at in entries:
        path, place, line = located(at)
        yield EntryPoint(group, entry, value, *place, origin=f"{path}:{line}")


def _entry_points_text(text: str) -> Iterator[tuple[str, str, str, int]]:
    """``(group, name, value, line)`` of a text of entry points read as setuptools reads
    the one ``setup.cfg``'s ``file:`` names (importlib's ``Sectioned`` line reader: each
    line stripped, blank lines and ``#`` lines skipped, ``[group]`` a header, ``name =
    value`` split at the first ``=``; a ``;`` line is no comment there: fresh41, M6)."""
    group = None
    for n, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            group = line.strip("[]")
            continue
        if group is not None and "=" in line:
            entry, _, value = line.partition("=")
            yield group, entry.strip(), value.strip(), n


def _entry_points_config(text: str) -> tuple[list[tuple[str, str, str, int]], tuple[str, int] | None]:
    """The entry points of a text setuptools reads for ``[tool.setuptools.dynamic]
    entry-points`` (``config.expand.entry_points``: ``ConfigParser(default_section=None,
    delimiters=("=",))``, option names as written, strict, ``%(name)s`` interpolated):
    ``([(group, name, value, line)], None)``, or ``([], (why, line))`` for a text it refuses
    (fresh41, W7: an option written twice), an interpolation that fails at the line of
    the option whose value it is (:class:`configparser.InterpolationError` names the
    section and option, no line: fresh42, W2')."""
    import configparser

    parser = configparser.ConfigParser(default_section=None, delimiters=("=",))  # type: ignore[call-overload]
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        parser.read_string(text)
        groups = {g: dict(parser.items(g)) for g in parser.sections()}
    except configparser.DuplicateOptionError as exc:
        why = f"the option `{exc.option}` is written twice in `[{exc.section}]` (setuptools' parser is strict)"
        return [], (why, exc.lineno or 1)
    except configparser.DuplicateSectionError as exc:
        return [], (f"the section `[{exc.section}]` is written twice (setuptools' parser is strict)",
                    exc.lineno or 1)
    except configparser.InterpolationError as exc:  # no line of its own: the option's (fresh42, W2')
        rows = _ini_layout(text, "=").get(exc.section, {}).get(exc.option)
        return [], (str(exc).splitlines()[0], rows[0][0] if rows else 1)
    except (configparser.Error, ValueError) as exc:
        return [], (str(exc).splitlines()[0], getattr(exc, "lineno", None) or 1)
    layout = _ini_layout(text, "=")
    out: list[tuple[str, str, str, int]] = []
    for group, options in groups.items():
        rows = layout.get(group, {})
        for entry, value in options.items():
            at = rows.get(entry)
            out.append((group, entry, value.strip(), at[0][0] if at else 1))
    return out, None


class _Lines:
    """1-based line and column of a character index, lines broken at ``\\r\\n``, ``\\r`` and
    ``\\n`` (as every finding's position counts them)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0, *(m.end() for m in _LINE_ENDINGS.finditer(text))]
        #: a ``setup.py``'s values of each name (:func:`_readers`), for an uncertain entry's
        #: :attr:`EntryPoint.context`; empty for another file
        self.readers: dict[str, list[ast.expr]] = {}

    def position(self, index: int) -> tuple[int, int]:
        from bisect import bisect_right

        line = bisect_right(self.starts, index)
        return line, index - self.starts[line - 1] + 1

    def line_text(self, line: int) -> str:
        begin = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        return _LINE_ENDINGS.sub("", self.text[begin:end])


# -- pyproject.toml -----------------------------------------------------------------------------
#: The tables (as key paths) whose string values are entry points, and the group each gives
#: (``None``: the table's own key below it is the group).
_TOML_TABLES: dict[tuple[str, ...], str | None] = {
    ("project", "scripts"): "console_scripts",
    ("project", "gui-scripts"): "gui_scripts",
    ("project", "entry-points"): None,
    ("tool", "poetry", "scripts"): "console_scripts",
    ("tool", "poetry", "plugins"): None,
}


def pyproject_entry_points(text: str) -> list[EntryPoint]:
    """The entry points of a ``pyproject.toml`` (see the module's docstring); ``[]`` for a
    text :mod:`tomllib` refuses.

    Args:
        text: the file's decoded text.
    """
    import tomllib

    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):
        return []
    # (table, group, name, value, where): ``where`` is the key path below the table that
    # holds the string, ``(name,)``, or ``(name, "reference")`` for a Poetry table
    declared: list[tuple[tuple[str, ...], str, str, str, tuple[str, ...]]] = []
    for path, group in _TOML_TABLES.items():
        table = _descend(data, path)
        if not isinstance(table, dict):
            continue
        groups = {group: table} if group is not None else {
            g: t for g, t in table.items() if isinstance(t, dict)
        }
        for g, entries in groups.items():
            for name, value in entries.items():
                where: tuple[str, ...] = (name,)
                if isinstance(value, dict) and path[:2] == ("tool", "poetry"):
                    value, where = poetry_reference(value), (name, _poetry_key(value))
                if isinstance(value, str):
                    declared.append((path if group is not None else (*path, g), g, name, value, where))
    for path, (group, key) in _TASK_TABLES.items():  # a task runner's call of a function
        table = _descend(data, path)
        if not isinstance(table, dict):
            continue
        for name, task in table.items():
            value = task.get(key) if isinstance(task, dict) else None
            if isinstance(value, str) and task_reference(value) is not None:
                declared.append((path, group, name, value, (name, key)))
    if not declared:
        return []
    lines = _Lines(text)
    headers = _toml_headers(text, lines)
    spots = _TomlPlaces(text, lines, headers)
    # a Poetry table's string is placed as the value of its ``reference`` (or ``callable``)
    # key in the script's table: ``scripts.d = { reference = ... }``, ``scripts.e.callable =
    # ...``, ``[tool.poetry.scripts.f]`` (fresh41, W1: these went to 1:1 or the header)
    keys = [((*table, *where[:-1]), where[-1], where[0] if len(where) > 1 else "")
            for table, _, _, _, where in declared]
    # first each value written under its own table's header, then those written in a table
    # above it (``gui-scripts = {...}`` in ``[project]``): an occurrence is placed once
    places: list[tuple[int, int, int, int] | None] = [
        spots.written(holder, key, value, exact=True, owner=owner)
        for (holder, key, owner), (_, _, _, value, _) in zip(keys, declared)
    ]
    for i, ((holder, key, owner), (_, _, _, value, _)) in enumerate(zip(keys, declared)):
        if places[i] is None:
            places[i] = spots.written(holder, key, value, exact=False, owner=owner)
    for i, ((holder, key, owner), (_, _, _, value, _)) in enumerate(zip(keys, declared)):
        if places[i] is None:  # escaped or multi-line: its decoded string literal
            places[i] = spots.decoded(holder, key, value, owner=owner) or _toml_header(lines, headers, holder)
    out = [
        EntryPoint(group, name, task_reference(value) if group in TASK_GROUPS else value, *place)  # type: ignore[misc]
        for (_, group, name, value, _), place in zip(declared, places)
    ]
    out.sort(key=lambda e: (e.line, e.column))
    return out


#: the task runners' tables whose tasks call a Python function by reference: table ->
#: (the group an :class:`EntryPoint` of it gets, the task's key naming the function)
_TASK_TABLES: dict[tuple[str, ...], tuple[str, str]] = {
    ("tool", "pdm", "scripts"): ("pdm call", "call"),
    ("tool", "poe", "tasks"): ("poe script", "script"),
}
#: the groups of :data:`_TASK_TABLES`' tasks
TASK_GROUPS = frozenset(g for g, _ in _TASK_TABLES.values())
_TASK_CALL = re.compile(r"\s*([\w.]+\s*:\s*[\w.]+)\s*(?:\(\s*\))?\s*\Z")


def task_reference(value: str) -> str | None:
    """The ``module:function`` a task runner's task calls with no arguments, else ``None``:
    pdm's ``call = "pkg.mod:fn"`` (or ``"pkg.mod:fn()"``) and poe's ``script =
    "pkg.mod:fn()"`` (or without the parentheses). A call given arguments
    (``"pkg.mod:fn(cfg)"``) passes what the task says, and is not read.

    Args:
        value: the task's string, as :mod:`tomllib` gives it.

    Source: pdm's "PDM Scripts" (``call``: "the function ... with the arguments given in
    the parentheses") and poethepoet's "Script tasks" (``script``: ``module:function(...)``).
    """
    m = _TASK_CALL.match(value)
    return re.sub(r"\s+", "", m.group(1)) if m else None


def poetry_reference(table: dict) -> str | None:
    """The entry point a Poetry script or plugin written as a table names: its
    ``reference`` (``x = { reference = "m:f", type = "console" }``, poetry-core's form) or
    its ``callable`` (``x = { callable = "m:f" }``, the older form poetry-core still reads);
    ``None`` for a ``type = "file"`` script (a file installed as a script, no object) or a
    table naming none.

    Args:
        table: the value of the script's key, as :mod:`tomllib` gives it.

    Source: Poetry's "The pyproject.toml file" (``scripts``) and poetry-core's
    ``Factory._configure_entry_points`` (``reference``, then the ``callable`` it warns of).
    """
    if table.get("type", "console") != "console":
        return None
    for key in ("reference", "callable"):
        value = table.get(key)
        if isinstance(value, str):
            return value
    return None


def _poetry_key(table: dict) -> str:
    """The key of a Poetry table whose string :func:`poetry_reference` returns."""
    return "reference" if isinstance(table.get("reference"), str) else "callable"


#: ``(at line N, column M)`` at the end of a :class:`tomllib.TOMLDecodeError`'s message
_TOML_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*\Z")
_TOML_AT_END = re.compile(r"\s*\(at end of document\)\s*\Z")


def pyproject_problem(text: str) -> tuple[str, int, int] | None:
    """Why :mod:`tomllib` refuses a ``pyproject.toml`` (its entry points then cannot be read:
    PPO902), ``None`` when it reads it.

    Args:
        text: the file's decoded text; starting with ``"\\ufeff"`` when the file's bytes
            start with a UTF-8 byte order mark (:mod:`tomllib` reads bytes as UTF-8, the mark
            included, and refuses it: the message then names it).

    Returns:
        ``(message, line, column)``: the parser's message without its position, and the
        1-based position it names (``(at line N, column M)``; the last line's end for
        ``(at end of document)``; ``1, 1`` when it names none).
    """
    import tomllib

    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        m = _TOML_AT.search(message)
        if m is not None and text.startswith("\ufeff") and (m.group(1), m.group(2)) == ("1", "1"):
            # pip and the build backends read the file's bytes as UTF-8, the mark included
            return f"{message[: m.start()]} (a UTF-8 byte order mark starts the file)", 1, 1
        if m is not None:
            return message[: m.start()], int(m.group(1)), int(m.group(2))
        m = _TOML_AT_END.search(message)
        if m is not None:
            lines = _Lines(text)
            last = len(lines.starts)
            return message[: m.start()], last, len(lines.line_text(last)) + 1
        return message, 1, 1
    except (ValueError, RecursionError) as exc:  # nesting past tomllib's limits
        return f"{type(exc).__name__}: {exc}", 1, 1
    return None


def named_outside_entry_points(name: str, text: str, names: Iterable[str]) -> str | None:
    """Where a packaging file the parser refuses spells one of ``names``, when no place
    could be an entry point's declaration: ``"a comment"``, ``"`project.description`"``
    (the keys holding it), for the PPO902's message, which then does not claim entry points
    it cannot read (fresh40, W4: a broken ``pyproject.toml`` naming the function only in a
    comment was told "its entry points cannot be read"). ``None`` when a place may declare
    one, or is not understood (the text is broken there): the message then says they cannot
    be read.

    Args:
        name: the file's base name (``pyproject.toml`` or ``setup.cfg``).
        text: its decoded text.
        names: the function's names to look for (the targets' last names).
    """
    spots = [m.start() for n in set(names) if n for m in re.finditer(re.escape(n), text)]
    if not spots:
        return None
    if name == "setup.cfg":
        places = _ini_places(text, spots)
    elif name == "pyproject.toml":
        places = _toml_places(text, spots)
    else:
        return None
    if places is None:
        return None
    ordered = sorted(set(places), key=lambda p: (p != "a comment", p))
    return ordered[0] if len(ordered) == 1 else ", ".join(ordered[:-1]) + " and " + ordered[-1]


def declares_entry_points(name: str, text: str) -> bool:
    """Whether a packaging file, read line by line (it may be one its parser refuses), has
    a key where an entry point is declared: a key of an entry point table of a
    ``pyproject.toml`` (``[project.scripts]``, ``scripts.x =`` under ``[project]``,
    ``[tool.setuptools.dynamic]``'s ``entry-points``), or an option of ``setup.cfg``'s
    ``[options.entry_points]`` or ``[DEFAULT]``, or its ``[options] entry_points``. A broken
    file that names the function only in a comment may still declare an entry point naming
    a re-export of it, which the tool cannot read (fresh41, W5).

    Args:
        name: the file's base name.
        text: its decoded text.
    """
    if name == "setup.cfg":
        layout = _ini_layout(text)
        return bool(layout.get(_SECTION)) or bool(layout.get("DEFAULT")) or any(
            o.replace("-", "_") == "entry_points" for o in layout.get("options", {}))
    if name != "pyproject.toml":
        return False
    lines = _Lines(text)
    headers = _toml_headers(text, lines)
    tables = [*_TOML_TABLES, ("tool", "setuptools", "dynamic", "entry-points")]
    from bisect import bisect_left

    starts = [at for at, _ in headers]
    for n in range(1, len(lines.starts) + 1):
        body = lines.line_text(n)
        stripped = body.strip()
        if not stripped or stripped.startswith(("#", "[")) or "=" not in stripped:
            continue
        at = lines.starts[n - 1]
        h = bisect_left(starts, at)
        path = headers[h - 1][1] if h else ()
        written = _key_path(body[: body.index("=") + 1])
        key = (*path, *(written or ()))
        if any(key[: len(t)] == t or (written and t[: len(key)] == key) for t in tables):
            return True
    return False


def _ini_places(text: str, spots: list[int]) -> list[str] | None:
    """Each spot's place in an INI text (``"a comment"``, ``"`section.option`"``);
    ``None`` when one may be an entry point (``[options.entry_points]``, ``[DEFAULT]``, whose
    options every section has, ``[options] entry_points``, or a line not understood)."""
    lines = _Lines(text)
    section: str | None = None
    option: str | None = None
    where: dict[int, str | None] = {}
    for n in range(1, len(lines.starts) + 1):
        body = lines.line_text(n)
        stripped = body.strip()
        if stripped.startswith(("#", ";")):
            where[n] = "a comment"
            continue
        header = _ini_header(body)
        if header is not None:
            section, option = header, None
            where[n] = None
            continue
        if not body[:1].isspace() and stripped:
            key = re.match(r"([^=:]+?)\s*[=:]", body)
            option = key.group(1).strip() if key else None
        if section is None or option is None or section in (_SECTION, "DEFAULT") \
                or (section == "options" and option == "entry_points"):
            where[n] = None
        else:
            where[n] = f"`{section}.{option}`"
    places = [where.get(lines.position(at)[0]) for at in spots]
    return None if any(p is None for p in places) else places  # type: ignore[return-value]


def _toml_places(text: str, spots: list[int]) -> list[str] | None:
    """Each spot's place in a TOML text (``"a comment"``, ``"`project.description`"``);
    ``None`` when one may be an entry point (in or above an entry point table, a key not
    understood, or outside any string and comment)."""
    lines = _Lines(text)
    headers = _toml_headers(text, lines)
    tokens = [(m.start(), m.end(), m.group().startswith("#")) for m in _TOML_TOKEN.finditer(text)]
    tables = [*_TOML_TABLES, ("tool", "setuptools", "dynamic", "entry-points")]
    from bisect import bisect_left, bisect_right

    token_starts = [start for start, _, _ in tokens]
    header_starts = [where for where, _ in headers]
    places: list[str] = []
    for at in spots:  # each a look-up, not a scan (fresh41, H1)
        i = bisect_right(token_starts, at) - 1
        if i < 0 or not at < tokens[i][1]:
            return None
        start, _, comment = tokens[i]
        if comment:
            places.append("a comment")
            continue
        h = bisect_left(header_starts, start)
        path = headers[h - 1][1] if h else ()
        written = _key_path(text[text.rfind("\n", 0, start) + 1:start])
        if written is None:
            return None
        key = (*path, *written)
        if any(key[: len(t)] == t or t[: len(key)] == key for t in tables):
            return None
        places.append(f"`{'.'.join(key)}`")
    return places


def _descend(data: dict, path: Iterable[str]):
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)  # type: ignore[assignment]
    return data


def _toml_headers(text: str, lines: _Lines) -> list[tuple[int, tuple[str, ...]]]:
    """``(character index, key path)`` of each ``[table]`` header of the text (array-of-tables
    headers ``[[...]]`` too), in order; a header is read by :mod:`tomllib` itself (the key
    path of the one table it opens), so quoting and white space are TOML's."""
    import tomllib

    out: list[tuple[int, tuple[str, ...]]] = []
    for m in re.finditer(r"^[ \t]*\[\[?[^\r\n]*", text, re.M):
        header = m.group().strip()
        if header.startswith("[["):
            close = header.find("]]")
            snippet = header[: close + 2] if close >= 0 else header
        else:
            close = header.find("]")
            snippet = header[: close + 1] if close >= 0 else header
        try:
            data = tomllib.loads(snippet + "\n")
        except (tomllib.TOMLDecodeError, ValueError):
            continue
        path: list[str] = []
        while isinstance(data, dict) and len(data) == 1:
            key, data = next(iter(data.items()))
            path.append(key)
            if isinstance(data, list):
                data = data[0] if data else None
        out.append((m.start(), tuple(path)))
    return out


class _TomlPlaces:
    """Where the string values of a ``pyproject.toml`` are written, for placing its entry
    points: each string literal of the text (:data:`_TOML_TOKEN`) with its whole key path
    (:func:`_toml_value_paths`: header, the line's key and the keys of the inline tables
    around it; a key or a string of an array has none), indexed once by its text as
    written and, when needed, as decoded. A value is then found by one look-up of its key
    path, and each literal is read at most once, so placing ``n`` entry points takes time
    linear in the file (fresh41, H1: each value was searched for through the whole text
    with a parse of every occurrence's key, quadratic: a 1.2 MB file did not finish;
    fresh42, H1': the same for the entries of one inline table, each tested against every
    literal of its text with its line parsed up to it: 20,000 entries never finished).

    When that one pass does not understand the text, the line-by-line reading is kept: a
    literal on a whole ``key =`` line (:func:`_key_path`) is keyed with the header above
    it, any other is "loose", matched by a line that spells the entry's name before ``=``.

    Attributes:
        used: the character indexes of the literals placed already (each is placed once).
        examined: the literals looked at so far (each indexed once, and each tested as a
            loose candidate): linear in the file (the tests count it).
    """

    def __init__(self, text: str, lines: _Lines, headers: list[tuple[int, tuple[str, ...]]]) -> None:
        self.text, self.lines = text, lines
        self._header_at = [at for at, _ in headers]
        self._header_path = [path for _, path in headers]
        self.used: set[int] = set()
        self._tokens = [
            (m.start(), m.end(), m.group()) for m in _TOML_TOKEN.finditer(text) if not m.group().startswith("#")
        ]
        self._raw: dict[str, list[tuple[int, int]]] | None = None
        self._decoded: dict[str, list[tuple[int, int]]] | None = None
        # (text, whole key path) -> literals a plain ``key =`` line assigns, in order; and
        # text -> the other literals (in an inline table, an array), with a read pointer each
        self._keyed: dict[tuple[str, str, tuple[str, ...]], list[int]] = {}
        self._loose: dict[tuple[str, str], list[int]] = {}
        self._pointer: dict[object, int] = {}
        self._indexed: set[tuple[str, str]] = set()
        self._ends: dict[int, int] = {}
        #: each string value's whole key path (:func:`_toml_value_paths`), read at the first
        #: look-up; ``None`` when that reading fails: the line-by-line reading then
        self._paths: dict[int, tuple[str, ...]] | None | bool = False
        self.examined = 0

    def _path_at(self, start: int) -> tuple[str, ...]:
        """The key path of the last table header before ``start`` (``()``: none)."""
        from bisect import bisect_left

        i = bisect_left(self._header_at, start)
        return self._header_path[i - 1] if i else ()

    def _prefix(self, start: int) -> str:
        return self.text[self.text.rfind("\n", 0, start) + 1:start]

    def _index(self, kind: str, value: str) -> None:
        """Sort the literals whose text (``kind`` ``"raw"``: as written, quotes included;
        ``"decoded"``: as :mod:`tomllib` decodes it) is ``value`` into keyed and loose ones."""
        if (kind, value) in self._indexed:
            return
        self._indexed.add((kind, value))
        if kind == "raw":
            if self._raw is None:
                self._raw = {}
                for start, end, raw in self._tokens:
                    self._raw.setdefault(raw, []).append((start, end))
            found = self._raw.get(value, [])
        else:
            if self._decoded is None:
                self._decoded = {}
                for start, end, raw in self._tokens:
                    decoded = _decode_toml_literal(raw)
                    if decoded is not None:
                        self._decoded.setdefault(decoded, []).append((start, end))
            found = self._decoded.get(value, [])
        if self._paths is False:
            self._paths = _toml_value_paths(self.text)
        for start, end in found:
            self._ends[start] = end
            self.examined += 1
            if self._paths is not None:  # each literal's whole key, from one pass (fresh42, H1')
                whole = self._paths.get(start)
                if whole is not None:
                    self._keyed.setdefault((kind, value, whole), []).append(start)
                continue  # a key, or a string in an array: no entry point's value
            written = _key_path(self._prefix(start))
            if written is not None:
                whole = (*self._path_at(start), *written)
                self._keyed.setdefault((kind, value, whole), []).append(start)
            else:
                self._loose.setdefault((kind, value), []).append(start)

    def _unused_from(self, key: tuple, starts: list[int]) -> int:
        """The index of the first of ``starts`` not used yet, kept for ``key``: each start
        is passed over once (linear in the entries, fresh user 41's H1)."""
        i = self._pointer.get(key, 0)
        while i < len(starts) and starts[i] in self.used:
            i += 1
        self._pointer[key] = i
        return i

    def _first_keyed(self, key: tuple[str, str, tuple[str, ...]]) -> int | None:
        starts = self._keyed.get(key)
        if not starts:
            return None
        i = self._unused_from(key, starts)
        return starts[i] if i < len(starts) else None

    def _first_loose(self, key: tuple[str, str], fits) -> int | None:
        starts = self._loose.get(key)
        if not starts:
            return None
        i = self._unused_from(key, starts)
        for s in starts[i:]:
            if s not in self.used:
                self.examined += 1
                if fits(s):
                    return s
        return None

    def _take(self, start: int) -> tuple[int, int, int, int]:
        self.used.add(start)
        return (*self.lines.position(start), *self.lines.position(self._ends[start]))

    def written(
        self, table: tuple[str, ...], name: str, value: str, *, exact: bool, owner: str = "",
    ) -> tuple[int, int, int, int] | None:
        """Where ``value`` (a string of ``table``, the value of the key ``name``) is written
        as its plain quoted text: the first literal not placed yet on a ``key =`` line
        whose whole key (header and dotted key) is ``(*table, name)``, or, in an inline
        table or array, whose header above it is ``table`` (``exact``) or a table above
        it and whose line spells ``name`` before an ``=``; ``None`` when there is none (an
        escaped or multi-line value: :meth:`decoded`). ``owner``: the script whose table
        ``table`` is (a Poetry ``{ reference = ... }``), whose name an inline table's line
        must spell too."""
        for quote in ('"', "'"):
            needle = f"{quote}{value}{quote}"
            self._index("raw", needle)
            best = self._first_keyed(("raw", needle, (*table, name)))
            loose = self._first_loose(("raw", needle), lambda s: self._loose_fits(s, table, name, exact, owner))
            if loose is not None and (best is None or loose < best):
                best = loose
            if best is not None:
                return self._take(best)
        return None

    def _loose_fits(self, start: int, table: tuple[str, ...], name: str, exact: bool, owner: str = "") -> bool:
        path = self._path_at(start)
        fits = path == table if exact else (path != table and table[: len(path)] == path)
        return fits and self._spells_keys(start, name, owner)

    def _spells_keys(self, start: int, name: str, owner: str) -> bool:
        """Whether the text before ``start`` on its line ends with ``=`` and spells the key
        ``name`` (and ``owner``, as a part of a dotted key too)."""
        if not name:
            return True
        prefix = self._prefix(start)
        key = re.compile(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])")
        if not (prefix.rstrip().endswith("=") and key.search(prefix) is not None):
            return False
        return not owner or re.search(rf"(?<![\w-]){re.escape(owner)}(?![\w-])", prefix) is not None

    def decoded(
        self, table: tuple[str, ...], name: str, value: str, owner: str = "",
    ) -> tuple[int, int, int, int] | None:
        """Where ``value`` is written as a literal whose text is not the value's own
        (``\\u`` escapes, a multi-line ``\"\"\"`` string, a ``\\``-continued line): the
        first literal not placed yet that decodes to it, under ``table``'s header or a
        table above it, whose line assigns the key ``name`` (or spells it before an ``=``).
        It spans the literal: a multi-line one ends on its closing line (trial 26h: a
        ``# noqa`` after the closing quotes is read there)."""
        self._index("decoded", value)
        best = self._first_keyed(("decoded", value, (*table, name)))

        def fits(start: int) -> bool:
            path = self._path_at(start)
            return table[: len(path)] == path and self._spells_keys(start, name, owner)

        loose = self._first_loose(("decoded", value), fits)
        if loose is not None and (best is None or loose < best):
            best = loose
        return self._take(best) if best is not None else None


def _decode_toml_literal(raw: str) -> str | None:
    """The string a TOML string literal (as written, quotes included) decodes to: its text
    between the quotes when that is the value (a one-line literal string, or a basic one
    with no escape), else :mod:`tomllib`'s reading; ``None`` when it refuses it alone."""
    import tomllib

    if raw[:3] not in ('"""', "'''") and (raw[0] == "'" or "\\" not in raw):
        return raw[1:-1]
    try:
        decoded = tomllib.loads(f"v = {raw}\n")["v"]
    except (tomllib.TOMLDecodeError, ValueError):
        return None
    return decoded if isinstance(decoded, str) else None


#: a ``key =`` statement of bare key parts (``entry-points.grp.b =``), read without a parser
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+(?:[ \t]*\.[ \t]*[A-Za-z0-9_-]+)*[ \t]*=")


def _key_path(prefix: str) -> tuple[str, ...] | None:
    """The key path a line's ``prefix`` (the text before a value on its line) assigns when
    it is a whole ``key =`` statement, dotted keys (``entry-points.grp.b =``) and quoted
    parts read by :mod:`tomllib` itself; ``None`` for any other prefix (a key inside an
    inline table, ``x = { b = ``, or one continuing an array), whose key is then matched by
    name alone (W2 of the fresh user's report: a dotted key was placed at its table's
    header, so its own line's ``# noqa`` was not read).

    Args:
        prefix: the text from the line's start to the value's opening quote.
    """
    import tomllib

    stripped = prefix.strip()
    if not stripped.endswith("=") or stripped.startswith(("[", "#")):
        return None
    if _BARE_KEY.fullmatch(stripped):  # bare parts only: no parse needed (fresh41, H1)
        return tuple(part.strip() for part in stripped[:-1].split("."))
    try:
        data = tomllib.loads(stripped + ' ""\n')
    except (tomllib.TOMLDecodeError, ValueError):
        return None
    path: list[str] = []
    while isinstance(data, dict) and len(data) == 1:
        key, data = next(iter(data.items()))
        path.append(key)
    return tuple(path) if data == "" and path else None


#: a TOML comment or string literal (multi-line forms first); a comment is matched so that
#: quotes in it are skipped
_TOML_TOKEN = re.compile(
    r'#[^\r\n]*|"""(?:[^\\]|\\[\s\S])*?"""(?!")|\'\'\'[\s\S]*?\'\'\'(?!\')'
    r'|"(?:[^"\\\r\n]|\\.)*"|\'[^\'\r\n]*\''
)


def _toml_literals(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, decoded)`` of each string literal of a TOML text (basic, literal and
    their multi-line forms), decoded by :mod:`tomllib` itself (escapes such as ``\\u0076``,
    a multi-line string's first newline and ``\\``-continued lines are TOML's), in order.
    A literal the parser refuses alone is left out."""
    import tomllib

    out: list[tuple[int, int, str]] = []
    for m in _TOML_TOKEN.finditer(text):
        raw = m.group()
        if raw.startswith("#"):
            continue
        try:
            decoded = tomllib.loads(f"v = {raw}\n")["v"]
        except (tomllib.TOMLDecodeError, ValueError):
            continue
        out.append((m.start(), m.end(), decoded))
    return out


#: the tokens of a TOML text, for :func:`_toml_value_paths`: white space, a line break, a
#: comment, a string literal (multi-line forms first, as :data:`_TOML_TOKEN`), one of the
#: punctuation marks that give a document its structure, or a run of anything else (a bare
#: key, or a number, date, boolean as a value)
_TOML_LEX = re.compile(
    r'(?P<space>[ \t]+)|(?P<newline>\r?\n)|(?P<comment>#[^\r\n]*)'
    r'|(?P<string>"""(?:[^\\]|\\[\s\S])*?"""(?!")|\'\'\'[\s\S]*?\'\'\'(?!\')'
    r'|"(?:[^"\\\r\n]|\\.)*"|\'[^\'\r\n]*\')'
    r'|(?P<mark>[\[\]{}=,.])|(?P<word>[^\s\[\]{}=,.#"\']+)'
)


def _toml_value_paths(text: str) -> dict[int, tuple[str, ...]] | None:
    """The whole key path of each string value of a TOML text the parser reads, by the
    character index of its literal: the table header above it, the key its line assigns
    and, inside inline tables, their keys (``scripts = {a = "m:f"}`` under ``[project]``:
    ``("project", "scripts", "a")``). A string in an array, or used as a key, has none.

    One pass over the text (fresh42, H1': one inline table of 20,000 entries was searched
    literal by literal, with the text before each on its line parsed each time: quadratic).

    Args:
        text: a text :mod:`tomllib` reads (a document it refuses may be misread).

    Returns:
        ``{literal's start: key path}``; ``None`` when the text is not understood (a token
        where the grammar has none), for the callers' line-by-line reading.

    Source: the TOML 1.0.0 specification (keys bare, quoted and dotted; tables, arrays of
    tables, inline tables and arrays).
    """
    out: dict[int, tuple[str, ...]] = {}
    # frames: [kind, base key path (None in an array), state, key parts]; kind "top",
    # "inline" or "array"; states: "key" (a key may start), "dot" (after a key part),
    # "part" (after a dot), "value" (after "="), "after" (after a value), and "header"
    # / "header-dot" / "header-part" while a ``[table]`` header is read
    frames: list[list] = [["top", (), "key", []]]
    header: list[str] = []
    double = False
    at, size = 0, len(text)
    match = _TOML_LEX.match
    while at < size:
        m = match(text, at)
        if m is None:
            return None
        kind, token, start = m.lastgroup, m.group(), at
        at = m.end()
        frame = frames[-1]
        where, base, state, parts = frame
        if kind == "space":
            continue
        if kind in ("newline", "comment"):
            if where == "top":
                if state in ("header", "header-dot", "header-part"):
                    return None
                if kind == "newline":
                    if state not in ("key", "after"):
                        return None
                    frame[2] = "key"
            continue  # a line break inside an array (or TOML 1.1's inline table)
        if state.startswith("header"):
            if kind == "word" or kind == "string":
                if state == "header-dot":
                    return None
                part = token if kind == "word" else _decode_toml_literal(token)
                if part is None:
                    return None
                header.append(part)
                frame[2] = "header-dot"
            elif token == "." and state == "header-dot":
                frame[2] = "header-part"
            elif token == "]" and state == "header-dot":
                if double:
                    if text[at:at + 1] != "]":
                        return None
                    at += 1
                frame[1], frame[2], frame[3] = tuple(header), "after", []
            else:
                return None
            continue
        if state in ("key", "part") and where != "array":
            if token == "[" and where == "top" and state == "key":
                double = text[at:at + 1] == "["
                at += double
                header = []
                frame[2] = "header"
                continue
            if token == "}" and where == "inline" and state == "key":
                frames.pop()
                continue
            if kind in ("word", "string"):
                part = token if kind == "word" else _decode_toml_literal(token)
                if part is None:
                    return None
                parts.append(part)
                frame[2] = "dot"
                continue
            return None
        if state == "dot":
            if token == ".":
                frame[2] = "part"
            elif token == "=":
                frame[2] = "value"
            else:
                return None
            continue
        if state == "value" or (where == "array" and state == "key"):
            path = None if base is None else (*base, *parts)
            if where == "array" and token == "]":
                frames.pop()
                continue
            frame[2] = "after"
            if where != "array":
                frame[3] = []
            if kind == "string":
                if path is not None:
                    out[start] = path
            elif token == "{":
                frames.append(["inline", path, "key", []])
            elif token == "[":
                frames.append(["array", None, "key", []])
            elif kind != "word":
                return None
            continue
        # after a value: the rest of a number or date (``1.5``, ``1979-05-27 07:32:00``),
        # the next entry, or the end of the table or array
        if kind == "word" or token == ".":
            continue
        if token == ",":
            if where == "top":
                return None
            frame[2] = "key"
        elif (token == "}" and where == "inline") or (token == "]" and where == "array"):
            frames.pop()
        else:
            return None
    return out if len(frames) == 1 else None


def _toml_header(
    lines: _Lines, headers: list[tuple[int, tuple[str, ...]]], table: tuple[str, ...]
) -> tuple[int, int, int, int]:
    """The place of the header of the table holding ``table`` (the deepest one written),
    for a value whose text is not found (escapes in its string); the file's start else."""
    holders = [(len(path), at) for at, path in headers if path and table[: len(path)] == path]
    if not holders:
        return 1, 1, 1, 1
    _, at = max(holders, key=lambda item: (item[0], -item[1]))
    line, column = lines.position(at)
    return line, column, line, column + len(lines.line_text(line).strip())


# -- setup.cfg ----------------------------------------------------------------------------------
_SECTION = "options.entry_points"


def _setup_cfg_parser(text: str):
    """A :class:`configparser.ConfigParser` holding ``text`` as setuptools reads a
    ``setup.cfg`` (``Distribution.parse_config_files``: a plain ``ConfigParser()``, so strict
    (a section or an option written twice is an error) and with its basic ``%(name)s``
    interpolation, option names kept as written).

    Raises:
        configparser.Error, ValueError: the parser refuses the text.
    """
    import configparser  # here: only a setup.cfg naming the function needs it

    parser = configparser.ConfigParser()
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # as setuptools sets it
    parser.read_string(text)
    return parser


def setup_cfg_entry_points(text: str) -> list[EntryPoint]:
    """The entry points of a ``setup.cfg``'s ``[options.entry_points]`` section, read with
    :mod:`configparser` as setuptools reads it (:func:`_setup_cfg_parser`: strict, ``=`` and
    ``:`` separate a key from its value, so a group's first line may be ``group =`` or
    ``group:``; ``%(name)s`` expanded from the section or ``[DEFAULT]``, whose options every
    section has); ``[]`` for a text it refuses (:func:`setup_cfg_problem` says why).

    Each value is placed where it is written: a value built by interpolation at the text
    of its line as written (``%(mod)s:get_ppo_ray_runtime_env``; a line ``%(base)s`` at
    itself: fresh41, W3), read by :func:`_ini_layout` as :mod:`configparser` reads the text
    (a comment after a section's header kept out: fresh41, W2). A group's name is kept as
    written, as setuptools 78.0.0 and later keep it (``console-scripts`` is a plain group,
    for which pip makes no script), with the name older setuptools gave it, its dashes made
    underscores (``console_scripts``, a script), as :attr:`EntryPoint.legacy_group`
    (fresh41, W4; fresh42, W1': the message names both). Each option is read: of two that
    older setuptools took for one group (``console_scripts`` and ``console-scripts``) it
    kept the later, newer ones keep both.
    ``[options] entry_points =`` given as INI text (no ``file:``) declares entry points too,
    read as setuptools reads that text (fresh41, MISSED M4).

    Args:
        text: the file's decoded text.

    Source: setuptools' ``Distribution._parse_config_files``: before 78.0.0
    ``warn_dash_deprecation`` made ``opt.replace('-', '_')`` of each option but those of
    ``options.extras_require`` and ``options.data_files``; 78.0.0 (its changelog: "no longer
    accepts options containing uppercase or dash characters in ``setup.cfg``") added
    ``options.entry_points`` to the sections left as written
    (``_skip_setupcfg_normalization`` since); and ``config.setupcfg`` (``_parse_file``: a
    value without ``file:`` is the text itself).
    """
    import configparser

    try:
        parser = _setup_cfg_parser(text)
        has_section = parser.has_section(_SECTION)
        inline = _inline_entry_points_option(parser)
        if not has_section and inline is None:
            return []
        interpolation = configparser.BasicInterpolation()
        options: list[str] = []  # each a group, as written (setuptools >= 78)
        raw: dict[str, str] = {}
        if has_section:
            raw = dict(parser.items(_SECTION, raw=True))
            options = parser.options(_SECTION)
        inline_value = parser.get("options", inline) if inline is not None else ""
    except (configparser.Error, ValueError):
        return []
    layout = _ini_layout(text)
    text_lines = _Lines(text)
    header = next((n for n in range(1, len(text_lines.starts) + 1)
                   if _ini_header(text_lines.line_text(n)) == _SECTION), 1)
    out: list[EntryPoint] = []
    for option in options:
        group, legacy = option, option.replace("-", "_") if "-" in option else ""
        rows = layout.get(_SECTION, {}).get(option)
        if rows is None:
            rows = layout.get("DEFAULT", {}).get(option, [])  # an option of ``[DEFAULT]``

        def expand(line: str, option: str = option) -> str:
            return interpolation.before_get(parser, _SECTION, option, line, raw)

        try:
            placed = list(_placed_ini_rows(rows, expand, group))
        except (configparser.Error, ValueError):
            return []
        if not placed and raw.get(option, "").strip():  # not found as written: at the header
            for line in raw[option].splitlines():
                for name, value in _ini_lines(expand(line)):
                    placed.append((group, name, value, header, 1, 1 + len(f"[{_SECTION}]")))
        out += [EntryPoint(g, name, value, line, column, line, end, legacy_group=legacy)
                for g, name, value, line, column, end in placed]
    if inline is not None and not inline_value.startswith("file:"):
        rows = layout.get("options", {}).get(inline, [])
        out += [EntryPoint(g, name, value, line, column, line, end)
                for g, name, value, line, column, end in _inline_ini_rows(rows, parser, inline)]
    return out


def _inline_entry_points_option(parser) -> str | None:
    """The option of ``[options]`` giving the entry points (``entry_points``, or
    ``entry-points``, which setuptools reads as it; the later one when both are written),
    ``None`` for none."""
    if not parser.has_section("options"):
        return None
    found = [o for o in parser.options("options") if o.replace("-", "_") == "entry_points"]
    return found[-1] if found else None


def _inline_ini_rows(rows: list[tuple[int, str, int]], parser, option: str):
    """The entry points of ``[options] entry_points =`` written as INI text over the
    value's lines (``[console_scripts]`` then ``a = m:f``), read as setuptools reads a
    text of entry points (:func:`_entry_points_text`: ``[group]`` headers, ``#`` comments
    only), each line interpolated as the whole value is (fresh41, MISSED M4)."""
    import configparser

    interpolation = configparser.BasicInterpolation()
    raw = dict(parser.items("options", raw=True))
    group: str | None = None
    for line, written, column in rows:
        try:
            expanded = interpolation.before_get(parser, "options", option, written, raw)
        except (configparser.Error, ValueError):
            return
        for piece in expanded.splitlines():
            piece = piece.strip()
            if piece.startswith("[") and piece.endswith("]"):
                group = piece[1:-1].strip()
                continue
            if group is None or not piece or piece.startswith("#") or "=" not in piece:
                continue
            name, _, value = piece.partition("=")
            eq = written.find("=")
            start = column + eq + 1 + len(written[eq + 1:]) - len(written[eq + 1:].lstrip()) if eq >= 0 else column
            width = len(written[eq + 1:].strip()) if eq >= 0 else len(written)
            yield group, name.strip(), value.strip(), line, start + 1, start + 1 + max(width, 1)


def _ini_layout(text: str, delimiters: str = "=:") -> dict[str, dict[str, list[tuple[int, str, int]]]]:
    """Where each option of an INI text is written, read as :mod:`configparser` reads it
    (its own section and option patterns: a header is ``[name]`` at the start of a line's
    text, whatever follows the ``]``; a line indented deeper than its option's continues
    the value; a line whose text starts with ``#`` or ``;`` is a comment, in a value too):
    ``{section: {option: [(line, text, column), ...]}}``, one row per non-blank line of the
    value as written (its first line's text after the delimiter, then each continuation),
    ``column`` 0-based where ``text`` starts on the line. A section written twice keeps its
    rows in order (the parser refuses it anyway).

    Args:
        text: the file's decoded text.
        delimiters: the characters that end an option's name (``"="`` for the parser
            setuptools reads a pyproject's entry points file with).

    Source: :class:`configparser.RawConfigParser` (``SECTCRE``, ``OPTCRE``, ``_read``).
    """
    import configparser

    sections = configparser.RawConfigParser.SECTCRE
    options = configparser.RawConfigParser.OPTCRE if delimiters == "=:" else re.compile(
        configparser.RawConfigParser._OPT_TMPL.format(delim="|".join(map(re.escape, delimiters))), re.VERBOSE)
    lines = _Lines(text)
    out: dict[str, dict[str, list[tuple[int, str, int]]]] = {}
    section: dict[str, list[tuple[int, str, int]]] | None = None
    option: str | None = None
    indent = 0
    for n in range(1, len(lines.starts) + 1):
        body = lines.line_text(n)
        stripped = body.strip()
        if not stripped or stripped.startswith(("#", ";")):
            continue
        level = len(body) - len(body.lstrip())
        if section is not None and option is not None and level > indent:
            section[option].append((n, stripped, level))
            continue
        indent = level
        header = sections.match(stripped)
        if header is not None:
            section, option = out.setdefault(header.group("header"), {}), None
            continue
        found = options.match(stripped) if section is not None else None
        if found is None:
            option = None
            continue
        option = found.group("option").rstrip()
        value = found.group("value").strip()
        rows = section.setdefault(option, [])
        if value:
            rows.append((n, value, level + found.start("value")))
    return out


def _ini_header(body: str) -> str | None:
    """The section a line of an INI text opens as :mod:`configparser` reads it (``[x]  #
    note`` opens ``x``: fresh41, W2), ``None`` for another line (an indented one continues
    a value)."""
    import configparser

    if body[:1].isspace():
        return None
    m = configparser.RawConfigParser.SECTCRE.match(body.strip())
    return m.group("header") if m is not None else None


def _placed_ini_rows(
    rows: list[tuple[int, str, int]], expand, group: str,
) -> Iterator[tuple[str, str, str, int, int, int]]:
    """``(group, name, value, line, column, end column)`` of the entry points one option's
    value rows declare (:func:`_ini_layout`), each row's text expanded by ``expand`` (the
    interpolation, which may make it several entries, all placed at the row) and placed at
    its value as written (``b = %(mod)s:f`` at ``%(mod)s:f``; ``%(base)s`` at itself)."""
    for line, written, column in rows:
        expanded = expand(written)
        eq = written.find("=")
        if eq >= 0:
            value_text = written[eq + 1:]
            start = column + eq + 1 + len(value_text) - len(value_text.lstrip())
            width = len(value_text.strip())
        else:
            start, width = column, len(written)
        for name, value in _ini_lines(expanded):
            yield group, name, value, line, start + 1, start + 1 + max(width, 1)


def setup_cfg_problem(text: str) -> tuple[str, int, int] | None:
    """Why setuptools' reading of a ``setup.cfg`` (:func:`_setup_cfg_parser`, then each
    option's value, interpolated) refuses the text (its entry points then cannot be read:
    PPO902), ``None`` when it reads it. A section or option written twice is refused, as
    the strict parser setuptools uses refuses it (fresh40, W4).

    Args:
        text: the file's decoded text.

    Returns:
        ``(message, line, column)``: what is wrong and the first line it names (column 1).
    """
    import configparser

    try:
        parser = _setup_cfg_parser(text)
    except configparser.MissingSectionHeaderError as exc:
        return "no section header before the first line", exc.lineno, 1
    except configparser.ParsingError as exc:
        line = exc.errors[0][0] if exc.errors else 1
        return "a line that is neither a section, a key nor a continuation", line, 1
    except configparser.DuplicateSectionError as exc:
        return f"the section `[{exc.section}]` is written twice (setuptools' parser is strict)", exc.lineno or 1, 1
    except configparser.DuplicateOptionError as exc:
        return (f"the option `{exc.option}` is written twice in `[{exc.section}]` (setuptools' parser "
                "is strict)"), exc.lineno or 1, 1
    except (configparser.Error, ValueError) as exc:
        line = getattr(exc, "lineno", None) or 1
        return str(exc).splitlines()[0], line, 1
    for section in parser.sections():  # setuptools reads every option of every section
        for option in parser.options(section):
            try:
                parser.get(section, option)
            except (configparser.Error, ValueError) as exc:
                return (f"the value of `{option}` in `[{section}]` cannot be interpolated: "
                        f"{str(exc).splitlines()[0]}"), _option_line(text, section, option), 1
    return None


def _option_line(text: str, section: str, option: str) -> int:
    """The line of ``option`` in ``section`` (or ``[DEFAULT]``, whose options every
    section has) of an INI text; the section's header, else 1, when not found."""
    lines = _Lines(text)
    current, header = None, 1
    key = re.compile(rf"{re.escape(option)}\s*[=:]")
    for n in range(1, len(lines.starts) + 1):
        body = lines.line_text(n)
        m = _ini_header(body)
        if m is not None:
            current = m
            if current == section:
                header = n
            continue
        if current in (section, "DEFAULT") and not body[:1].isspace() and key.match(body):
            return n
    return header


def _value_at(line: str, value: str) -> int | None:
    """The 0-based column of ``value`` after an ``=`` of ``line``, else ``None``."""
    equals = line.find("=")
    if equals < 0:
        return None
    at = line.find(value, equals + 1)
    return at if at >= 0 else None


def _ini_lines(value: str) -> Iterator[tuple[str, str]]:
    """``(name, value)`` of each ``name = value`` line of a group's value (setuptools' form:
    one entry point a line; blank lines and comments skipped)."""
    for raw in value.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")) or "=" not in line:
            continue
        name, _, target = line.partition("=")
        yield name.strip(), target.strip()


# -- setup.py -----------------------------------------------------------------------------------
#: the modules whose ``setup`` a ``setup.py`` calls (``from setuptools import setup as s``)
_SETUP_MODULES = frozenset({"setuptools", "distutils.core"})
#: how deep a module-level string constant may refer to another when folded
_FOLD_DEPTH = 16


def setup_py_entry_points(tree: ast.Module, text: str) -> list[EntryPoint]:
    """The entry points of a ``setup.py``'s ``setup(entry_points=...)`` (see the module's
    docstring). What is statically certain is read: a call of ``setup`` by any name bound
    to it (``from setuptools import setup as s``), ``entry_points`` given directly or
    in ``**kw`` (a dict literal or ``dict(...)`` bound once at module level), and strings
    folded from module-level string constants (``"b = " + EP``, ``f"b = {EP}"``: constant
    parts, no conversion but ``!s`` and no format spec). A value built any other way is
    kept as uncertain (:attr:`EntryPoint.certain` ``False``, its source text as ``value``):
    the judge reports it when that text spells the function's name (trial 26h).

    Args:
        tree: the module's ``ast`` (the run's parse).
        text: its text (for positions in code points).
    """
    lines = _Lines(text)
    bound = _module_bindings(tree)
    names = _setup_names(tree)
    lines.readers = _readers(tree)
    out: list[EntryPoint] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _is_setup(node.func, names)):
            continue
        for keyword in node.keywords:
            if keyword.arg == "entry_points":
                out.extend(_from_setup_value(keyword.value, lines, bound))
            elif keyword.arg is None:  # ``setup(**kw)``: its ``entry_points`` key, when known
                mapping = _pairs(_bound_value(keyword.value, bound), bound)
                if mapping is None:
                    out.extend(_uncertain("", keyword.value, lines))
                    continue
                for key, value in mapping:
                    if _fold(key, bound) == "entry_points":
                        out.extend(_from_setup_value(value, lines, bound))
    out.sort(key=lambda e: (e.line, e.column))
    return out


def _setup_names(tree: ast.Module) -> frozenset[str]:
    """The names a module binds to setuptools' (or distutils') ``setup`` by an import
    (``from setuptools import setup as s`` gives ``s``), besides ``setup`` itself."""
    out = {"setup"}
    for stmt in ast.walk(tree):
        if isinstance(stmt, ast.ImportFrom) and stmt.module in _SETUP_MODULES and not stmt.level:
            out.update(a.asname or a.name for a in stmt.names if a.name == "setup")
    return frozenset(out)


def _is_setup(func: ast.expr, names: frozenset[str] = frozenset({"setup"})) -> bool:
    """Whether ``func`` calls ``setup``: a name bound to it (``names``) or an attribute
    ``x.setup`` (``setuptools.setup``, ``import setuptools as st; st.setup``)."""
    return (isinstance(func, ast.Name) and func.id in names) or (
        isinstance(func, ast.Attribute) and func.attr == "setup"
    )


def _module_bindings(tree: ast.Module) -> dict[str, ast.expr]:
    """Module-level names bound once, by a plain (or annotated) assignment of the module's
    body, and their value. A name bound anywhere else too (in an ``if`` or ``try`` block, a
    function, by an import, a ``def``, a ``for``, a ``with``, an augmented assignment, a
    walrus) is left out: its value at the ``setup`` call is not certain."""
    bound: dict[str, list[ast.expr]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            bound.setdefault(stmt.targets[0].id, []).append(stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            bound.setdefault(stmt.target.id, []).append(stmt.value)
    stores: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names = [node.id]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [(a.asname or a.name).split(".")[0] for a in node.names]
        elif isinstance(node, ast.Global):
            names = list(node.names)
            stores.update((n, stores.get(n, 0) + 2) for n in names)  # rebound at run time
            continue
        else:
            continue
        for name in names:
            stores[name] = stores.get(name, 0) + 1
    changed = _mutated(tree)
    return {
        name: values[0] for name, values in bound.items() if len(values) == 1 and stores.get(name) == 1
        and (name not in changed or isinstance(values[0], (ast.Constant, ast.JoinedStr)))
    }


def _root_name(node: ast.expr) -> str | None:
    """The name an attribute or subscript chain starts from (``kw`` of ``kw["a"].b``)."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _mutated(tree: ast.Module) -> frozenset[str]:
    """Names whose value may be changed in place somewhere in the module: the root of a
    subscript or attribute assigned or deleted (``kw["entry_points"] = ...``), or of a
    method called (``kw.update(...)``). A dict bound once and changed so is not the value
    ``setup(**kw)`` sees (fresh40, MISSED: its ``entry_points`` key, set later, was missed)."""
    out: set[str] = set()
    setup_names = _setup_names(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            name = _root_name(node)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name = _root_name(node.func.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id not in _PURE_CALLS and not _is_setup(node.func, setup_names):
            # ``add(EPS)``: a helper of the module may change the dict in place (fresh41, M5)
            out.update(a.id for a in (*node.args, *(k.value for k in node.keywords)) if isinstance(a, ast.Name))
            continue
        else:
            continue
        if name is not None:
            out.add(name)
    return frozenset(out)


#: calls that never change their arguments: a name given to one stays as bound
_PURE_CALLS = frozenset({
    "dict", "list", "tuple", "set", "frozenset", "str", "repr", "len", "print", "sorted", "isinstance",
    "open", "find_packages", "find_namespace_packages", "iter", "next", "map", "filter", "zip", "any", "all",
})


def _readers(tree: ast.Module) -> dict[str, list[ast.expr]]:
    """Every value the module may give each name, wherever it is bound: a plain, annotated
    or augmented assignment or a walrus, in any block, and the values put into it in place
    (``kw["entry_points"] = v``, ``kw.update(entry_points=v)``: the arguments)."""
    out: dict[str, list[ast.AST]] = {}
    for node in ast.walk(tree):
        pairs: list[tuple[ast.expr, ast.AST]] = []
        if isinstance(node, ast.Assign):
            for t in node.targets:
                pairs += _unpacked(t, node.value)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
            pairs = [(node.target, node.value)]
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            pairs = _unpacked(node.target, node.iter)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            pairs = [(node.func.value, v) for v in (*node.args, *(k.value for k in node.keywords))]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            # ``add(EPS)``: a helper may change what it is given (fresh41, M5)
            pairs = [(a, node) for a in (*node.args, *(k.value for k in node.keywords)) if isinstance(a, ast.Name)]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            # a function's value: its whole text, returns and all (fresh41, M5: ``more()``)
            out.setdefault(node.name, []).append(node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            # an imported name: the import, whose module the rule reads (fresh41, M5)
            for alias in node.names:
                out.setdefault((alias.asname or alias.name).split(".")[0], []).append(node)
        for target, value in pairs:
            name = target.id if isinstance(target, ast.Name) else _root_name(target)
            if name is not None:
                out.setdefault(name, []).append(value)
    return out


def _unpacked(target: ast.expr, value: ast.expr) -> list[tuple[ast.expr, ast.expr]]:
    """``(target, value)`` pairs of an assignment, a tuple or list target unpacked: element
    by element against a tuple or list of the same length (``EP, X = "m:f", 1`` gives ``EP``
    ``"m:f"``; fresh41, M5), else each name of the target against the whole value."""
    if not isinstance(target, (ast.Tuple, ast.List)):
        return [(target, value)]
    if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) \
            and not any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts)):
        out: list[tuple[ast.expr, ast.expr]] = []
        for t, v in zip(target.elts, value.elts):
            out += _unpacked(t, v)
        return out
    return [(n, value) for n in ast.walk(target) if isinstance(n, ast.Name)]


#: how many values an uncertain entry's context holds at most
_CONTEXT_VALUES = 64


def _context(node: ast.expr, lines: _Lines) -> tuple[tuple[str, str], ...]:
    """:attr:`EntryPoint.context` of an uncertain value: the values of the names it reads,
    followed through the names those read (each name once)."""
    readers = lines.readers
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    todo = [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]
    while todo and len(out) < _CONTEXT_VALUES:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        for value in readers.get(name, ()):
            segment = ast.get_source_segment(lines.text, value)
            if segment is not None:
                out.append((name, " ".join(segment.split())))
            todo += [n.id for n in ast.walk(value) if isinstance(n, ast.Name)]
    return tuple(out[:_CONTEXT_VALUES])


def _bound_value(expr: ast.expr, bound: dict[str, ast.expr]) -> ast.expr:
    """``expr``, or the value a module-level name is bound to once (followed through names)."""
    for _ in range(_FOLD_DEPTH):
        if not (isinstance(expr, ast.Name) and expr.id in bound):
            break
        expr = bound[expr.id]
    return expr


def _fold(expr: ast.expr, bound: dict[str, ast.expr], depth: int = 0) -> str | None:
    """The string ``expr`` certainly is: a string constant, a module-level name bound once
    to one, a ``+`` of such, or an f-string whose parts are (``!s`` and no format spec
    only: other conversions and specs change the text); ``None`` for anything else."""
    if depth > _FOLD_DEPTH:
        return None
    if isinstance(expr, ast.Constant):
        return expr.value if isinstance(expr.value, str) else None
    if isinstance(expr, ast.Name):
        value = bound.get(expr.id)
        return _fold(value, bound, depth + 1) if value is not None else None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left = _fold(expr.left, bound, depth + 1)
        right = _fold(expr.right, bound, depth + 1) if left is not None else None
        return left + right if right is not None else None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod):  # ``"c=%s" % EP``
        form = _fold(expr.left, bound, depth + 1)
        if form is None or _PERCENT.sub("", form).count("%"):
            return None  # only ``%s`` and ``%%``: another conversion changes the text
        parts = expr.right.elts if isinstance(expr.right, ast.Tuple) else [expr.right]
        args = [_fold(p, bound, depth + 1) for p in parts]
        if any(a is None for a in args):
            return None
        try:
            return form % tuple(args)
        except (TypeError, ValueError):
            return None
    if isinstance(expr, ast.JoinedStr):
        parts: list[str] = []
        for part in expr.values:
            if isinstance(part, ast.FormattedValue):
                if part.conversion not in (-1, ord("s")) or part.format_spec is not None:
                    return None
                folded = _fold(part.value, bound, depth + 1)
            else:
                folded = _fold(part, bound, depth + 1)
            if folded is None:
                return None
            parts.append(folded)
        return "".join(parts)
    return None


#: the ``%`` conversions :func:`_fold` reads (``%s``, and ``%%``, a percent sign)
_PERCENT = re.compile(r"%[s%]")


def _pairs(
    value: ast.expr, bound: dict[str, ast.expr], depth: int = 0,
) -> list[tuple[ast.expr, ast.expr]] | None:
    """The ``(key, value)`` nodes of a dict literal or of ``dict(k=...)`` (keys as string
    constants), a ``**`` unpacking in a literal spliced when it is such a value itself
    (``{**{"g": [...]}}``, ``{**BASE, "g": [...]}`` with ``BASE`` bound once); ``None`` for
    any other value."""
    if depth > _FOLD_DEPTH:
        return None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" \
            and not value.args and "dict" not in bound:
        if any(k.arg is None for k in value.keywords):
            return None
        return [(ast.Constant(k.arg), k.value) for k in value.keywords]
    if isinstance(value, ast.Dict):
        out: list[tuple[ast.expr, ast.expr]] = []
        for key, item in zip(value.keys, value.values):
            if key is not None:
                out.append((key, item))
                continue
            spliced = _pairs(_bound_value(item, bound), bound, depth + 1)
            if spliced is None:
                return None
            out += spliced
        return out
    return None


def _from_setup_value(value: ast.expr, lines: _Lines, bound: dict[str, ast.expr]) -> Iterator[EntryPoint]:
    written = value
    value = _bound_value(value, bound)
    folded = _fold(value, bound)
    if folded is not None:  # the INI string form
        yield from _from_ini_string(folded, value if isinstance(value, ast.Constant) else written, lines)
        return
    pairs = _pairs(value, bound)
    if pairs is None:
        yield from _uncertain("", written, lines)
        return
    for key, entries in pairs:
        group = _fold(key, bound)
        if group is None:
            yield from _uncertain("", entries, lines)
            continue
        entries = _bound_value(entries, bound)
        items = entries.elts if isinstance(entries, (ast.List, ast.Tuple, ast.Set)) else [entries]
        for item in items:
            text = _fold(item, bound)
            if text is None:
                yield from _uncertain(group, item, lines)
                continue
            for name, target in _ini_lines(text):
                yield _at_node(group, name, target, item, lines)


def _uncertain(group: str, node: ast.expr, lines: _Lines) -> Iterator[EntryPoint]:
    """A value built at run time, kept with its source text (one line) as ``value``."""
    if not hasattr(node, "lineno"):
        return
    segment = ast.get_source_segment(lines.text, node)
    if segment is None:
        return
    found = _at_node(group, "", " ".join(segment.split()), node, lines)
    yield found._replace(certain=False, context=_context(node, lines))


def _from_ini_string(text: str, node: ast.expr, lines: _Lines) -> Iterator[EntryPoint]:
    """``entry_points="[group]\\nname = value\\n"``: setuptools parses it as INI sections."""
    group = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("[") and line.endswith("]"):
            group = line[1:-1].strip()
            continue
        if group is None:
            continue
        for name, target in _ini_lines(line):
            yield _at_node(group, name, target, node, lines)


def _at_node(group: str, name: str, value: str, node: ast.expr, lines: _Lines) -> EntryPoint:
    """An entry point placed at the expression holding it (``ast``'s columns count UTF-8
    bytes; the finding's count code points)."""
    end_line = node.end_lineno or node.lineno
    end = node.end_col_offset if node.end_col_offset is not None else node.col_offset
    return EntryPoint(
        group, name, value, node.lineno, _code_points(lines, node.lineno, node.col_offset) + 1,
        end_line, _code_points(lines, end_line, end) + 1,
    )


def _code_points(lines: _Lines, line: int, byte_offset: int) -> int:
    """The number of code points in the first ``byte_offset`` UTF-8 bytes of ``line``."""
    if line > len(lines.starts):
        return byte_offset
    return len(lines.line_text(line).encode("utf-8")[:byte_offset].decode("utf-8", "replace"))



#: the packaging files that may make setuptools read entry points from another file
_REFERRING_FILES = ("setup.cfg", "pyproject.toml")


def spells_by_reference(path: str, data: bytes, names: Sequence[bytes]) -> bool:
    """Whether a ``setup.cfg`` or ``pyproject.toml`` makes setuptools read its entry points
    from another file (``[options] entry_points = file: ep.cfg``, ``[tool.setuptools.dynamic]
    entry-points = {file = [...]}``: :func:`ppo_migrate.project.entry_points.entry_point_files`)
    that spells one of ``names``: the packaging file, which does not spell it, is then
    analysed, and its PPO006 placed where it names that file (fresh40, MISSED). Any other
    file answers ``False`` at once; the files named are read through the run's snapshot.

    Args:
        path: the packaging file's path (its base name decides).
        data: its raw bytes.
        names: the targets' last names, encoded.
    """
    base = os.path.basename(path)
    if base not in _REFERRING_FILES or b"file" not in data:
        return False
    from ppo_migrate.project.snapshot import current

    folder = os.path.dirname(os.path.abspath(path))
    for named, *_ in entry_point_files(base, data.decode("utf-8", "replace")):
        try:
            read = current().read_bytes(os.path.join(folder, named))
        except (OSError, ValueError):
            continue
        if any(n in read for n in names):
            return True
    return False


_SETUP_PY = "setup.py"
#: a module a ``setup.py`` imports by name (``from _eps import EPS``, ``import _eps``)
_IMPORTED = re.compile(rb"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import|import[ \t]+([\w.]+))", re.MULTILINE)


def spells_by_import(path: str, data: bytes, names: Sequence[bytes]) -> bool:
    """Whether a ``setup.py`` imports from a module beside it (``from _eps import EPS``:
    ``_eps.py`` or ``_eps/__init__.py``) whose bytes spell one of ``names``: its
    ``setup(entry_points=...)`` may then take the function from there, and the file is
    analysed for a "cannot tell" PPO006 (fresh41, MISSED M5). Any other file answers
    ``False`` at once; the modules are read through the run's snapshot.

    Args:
        path: the file's path (its base name decides).
        data: its raw bytes.
        names: the targets' last names, encoded.
    """
    if os.path.basename(path) != _SETUP_PY or b"import" not in data:
        return False

    from ppo_migrate.project.snapshot import current

    folder = os.path.dirname(os.path.abspath(path))
    for m in _IMPORTED.finditer(data):
        module = (m.group(1) or m.group(2) or b"").lstrip(b".").decode("ascii", "replace")
        if not module or module.split(".")[0] in ("setuptools", "distutils", "os", "sys", "re", "io"):
            continue
        stem = os.path.join(folder, *module.split("."))
        for candidate in (os.path.join(stem, "__init__.py"), stem + ".py"):  # the package first
            try:
                read = current().read_bytes(candidate)
            except (OSError, ValueError):
                continue
            if any(n in read for n in names):
                return True
            break
    return False


def spells_elsewhere(path: str, data: bytes, names: Sequence[bytes]) -> bool:
    """The byte prefilter's look at other files for a packaging file
    (:func:`ppo_migrate.prefilter.is_candidate`'s ``elsewhere``): a ``setup.cfg`` or
    ``pyproject.toml`` naming an entry-points file that spells one of ``names``
    (:func:`spells_by_reference`), a ``setup.py`` importing from a module beside it that
    does (:func:`spells_by_import`). Any other file answers ``False`` at once.

    Args:
        path: the file's path (its base name decides).
        data: its raw bytes.
        names: the targets' last names, encoded.
    """
    if path.endswith(_REFERRING_FILES) and spells_by_reference(path, data, names):
        return True
    return path.endswith(_SETUP_PY) and spells_by_import(path, data, names)


__all__ = [
    "TASK_GROUPS",
    "task_reference",
    "ENTRY_POINT_FILES",
    "SETUP_PY",
    "Declarations",
    "EntryPoint",
    "declared_entry_points",
    "declares_entry_points",
    "entry_point_files",
    "spells_elsewhere",
    "entry_points_of",
    "is_entry_point_file",
    "named_outside_entry_points",
    "parse_value",
    "poetry_reference",
    "pyproject_entry_points",
    "pyproject_problem",
    "setup_cfg_entry_points",
    "setup_cfg_problem",
    "setup_py_entry_points",
]
