"""PPO006 for the runtime function declared as an entry point (trial 26f, MISSED).

A project that declares::

    [project.entry-points."proj.runtime_envs"]
    ray = "verl.trainer.constants_ppo:get_ppo_ray_runtime_env"

has it called by whatever loads that entry point (``entry_points(group="proj.runtime_envs")
["ray"].load()()``, a plugin host) with the arguments of the loader's choosing, and a
``[project.scripts]`` entry by the wrapper pip writes, which calls it with none. No Python file
names the function as an identifier and no edit of the source can pass a config there, exactly
as for a Hydra ``_target_`` (:mod:`ppo_migrate.rules.hydra_targets`): a PPO006
(``runtime-function-reference``) at the declared value, with no fix; ``apply`` changes nothing.

Pure: the declarations come from the run's snapshot
(:func:`ppo_migrate.project.entry_points.declared_entry_points`: ``pyproject.toml``,
``setup.cfg``; ``setup.py``'s through the module's own analysis) and are matched here against the
run's targets: verl's qualified names and every name the project's own re-exports give the
function (``mypkg:get_env`` where ``mypkg/__init__.py`` imports it; an entry point's module counts
as imported for that search: :func:`loaded_modules`).

``# noqa: PPO006`` on the value's line suppresses the finding in ``pyproject.toml`` (a TOML
comment) and ``setup.py``; for a multi-line TOML string, on its key's line or after its closing
quotes (ruff reads a multi-line string's ``noqa`` on its last line; trial 26h). ``setup.cfg``
has no comment after a value (``configparser``, as setuptools uses it, keeps the ``#`` in the
value, which then is no entry point setuptools accepts: a PPO902, never silence; fresh41, W0),
so its ``# noqa: PPO006`` is read from a full-line comment on the line just above the entry
(:func:`ini_comments_above`; the help line says so), and ``--add-noqa`` writes none in either
packaging file.

A ``setup.py`` value the tool cannot fold into a constant (a name or call built at run time, a
formatted part not a module-level string) that spells the function's name is reported too, as
"cannot tell" (:attr:`ppo_migrate.project.entry_points.EntryPoint.certain`); a
``pyproject.toml`` that :mod:`tomllib` refuses (a UTF-8 byte order mark included), or a
``setup.cfg`` setuptools' strict :mod:`configparser` refuses (a section or option written twice),
and that names the function is a PPO902 at the parser's position: its entry points cannot be
read, or, when it names the function only in a comment or under a key that declares none
(``description``), it says that instead (fresh40, W4).

Each finding's ``= help:`` line is the entry point's own (:func:`entry_point_help`), not
PPO006's remedy for a value in code.

Sources: the packaging guide's "Entry points specification" (a value names ``module:qualname``;
"console_scripts ... the function is called with no arguments") and "pyproject.toml
specification"; setuptools' "Entry Points".
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection, Iterable

from ppo_migrate.diagnostics import Diagnostic, is_suppressed
from ppo_migrate.project.entry_points import (
    TASK_GROUPS,
    EntryPoint,
    declares_entry_points,
    named_outside_entry_points,
    parse_value,
    pyproject_problem,
    setup_cfg_problem,
)

#: :func:`entry_point_references`: ``entries`` carry no parser's verdict (a plain sequence)
_UNREAD = object()

#: the groups whose entry points become commands that call the object with no arguments
SCRIPT_GROUPS = frozenset({"console_scripts", "gui_scripts"})

#: the setuptools release that keeps a ``setup.cfg`` entry point group's dashes (78.0.0:
#: ``options.entry_points`` joined the sections ``Distribution._parse_config_files`` leaves
#: as written; before, ``console-scripts`` was made ``console_scripts``)
LEGACY_BEFORE = 78


def entry_point_message(entry: EntryPoint) -> str:
    """PPO006's message for ``entry``, which names the runtime function. A ``setup.cfg``
    group written with dashes is named as written and as setuptools before 78 named it
    (:attr:`EntryPoint.legacy_group`: ``console-scripts``, a plain group now, was the script
    group ``console_scripts``; fresh42, W1'): a PPO006 either way.

    Args:
        entry: the declaration (its value, name and group).
    """
    value = entry.value.strip()
    declared = "declared"
    if entry.origin:  # written in a file this one makes setuptools read (fresh40, MISSED)
        file, _, line = entry.origin.rpartition(":")
        declared = f"declared in `{file}` (line {line}, read through this `file` reference)"
    if entry.group in TASK_GROUPS:  # pdm's ``call``, poe's ``script`` (fixmiss)
        runner, key = entry.group.split(" ", 1)
        return (
            f"`{value}` is {declared} as the {runner} task `{entry.name}` (`{key}`), which calls it with "
            "no arguments: no edit of the source can pass the config there; make the task call a "
            "function that obtains the training config and passes it"
        )
    if entry.group in SCRIPT_GROUPS:
        return (
            f"`{value}` is {declared} as the script `{entry.name}` (`{entry.group}`), whose wrapper "
            "calls it with no arguments: no edit of the source can pass the config there; declare "
            "a function that obtains the training config and passes it instead"
        )
    group = f"`{entry.group}`"
    if entry.legacy_group:  # setup.cfg's dashes: the group depends on setuptools (fresh42, W1')
        what = (f"a script whose wrapper calls it with no arguments, with setuptools < {LEGACY_BEFORE}"
                if entry.legacy_group in SCRIPT_GROUPS else f"with setuptools < {LEGACY_BEFORE}")
        group += f" (`{entry.legacy_group}`, {what}; a plain group with newer setuptools)"
    return (
        f"`{value}` is {declared} as the entry point `{entry.name}` of group {group}: "
        "whatever loads it (`entry_points(...).load()`) calls it with arguments of its choosing, "
        "and no edit of the source can pass the config there; make sure the loader passes it, or "
        "declare a function that obtains the training config and passes it"
    )


#: how a ``setup.cfg`` entry point is marked: a comment after its value would be part of the
#: value (fresh41, W0), so the noqa comment goes on a line of its own above it
CFG_NOQA = (
    "put `# noqa: PPO006` on a line of its own above it (in setup.cfg a comment after a value is part of the value)"
)


def entry_point_help(entry: EntryPoint, file: str = "") -> str:
    """The ``= help:`` line of ``entry``'s PPO006 (ruff's style: one line, what to do): a
    script's wrapper passes nothing, so the script must name a function of the project that
    obtains the config; a plugin's loader may be made to pass it.

    Args:
        entry: the declaration (its group decides).
        file: the base name of the file declaring it: for ``setup.cfg`` the ``# noqa`` is
            offered on a line of its own above the entry (:data:`CFG_NOQA`), never after the
            value, which it would make invalid (fresh41, W0: setuptools then refused the
            package and the lint passed).
    """
    mark = CFG_NOQA if file == "setup.cfg" else "mark it `# noqa: PPO006`"
    if not entry.certain:
        return f"Declare the entry point with a literal `module:function` value, or {mark}"
    if entry.group in TASK_GROUPS:
        return "Point the task at a function of the project that obtains the training config and passes it"
    if entry.group in SCRIPT_GROUPS:
        return "Point the script at a function of the project that obtains the training config and passes it"
    if entry.legacy_group in SCRIPT_GROUPS:  # ``console-scripts``: a script only for old setuptools
        return (
            f"Write the group `{entry.legacy_group}` (setuptools >= {LEGACY_BEFORE} installs no script "
            f"for `{entry.group}`) and point the script at a function of the project that obtains the "
            "training config and passes it"
        )
    return (
        "Make the loader pass the config, or point the entry point at a function that obtains it "
        f"and passes it; then {mark}"
    )


def invalid_value_message(entry: EntryPoint, file: str) -> str:
    """PPO902's message for an entry point whose value is no ``module:attribute`` reference
    but spells the runtime function (fresh41, W0: ``a = verl...:get_ppo_ray_runtime_env  #
    noqa: PPO006`` in ``setup.cfg``, where the comment is part of the value): setuptools
    refuses the package when it writes its metadata, so the lint must not pass.

    Args:
        entry: the declaration.
        file: the base name of the declaring file.

    Source: the packaging guide's "Entry points specification" (the value's grammar);
    :mod:`configparser` (no inline comments unless ``inline_comment_prefixes`` is set, and
    setuptools sets none).
    """
    where = f"`{entry.name}` of group `{entry.group}`"
    if entry.origin:
        named, _, line = entry.origin.rpartition(":")
        where += f", declared in `{named}` (line {line})"
    message = (f"`{entry.value}` is not a valid entry point value (`module:attribute`) for {where}: "
               "setuptools and pip refuse the package")
    if any(c in entry.value for c in "#;") and (file == "setup.cfg" or entry.origin):
        message += (
            "; a comment after a value is part of the value in this file: move it to a line of "
            "its own above the entry (`# noqa: PPO006` there is read)"
        )
    return message


def refused_file_message(entry: EntryPoint) -> str:
    """PPO902's message for a file of entry points setuptools refuses
    (:attr:`EntryPoint.problem`: not UTF-8, an option written twice; fresh41, W7), named
    where this packaging file makes setuptools read it.

    Args:
        entry: the entry carrying the refusal.
    """
    file, _, line = entry.origin.rpartition(":")
    return (f"not a valid entry points file `{file}` (line {line}, read through this `file` reference): "
            f"{entry.problem}; setuptools refuses the package, and its entry points cannot be read")


def ini_comments_above(text: str) -> list[str]:
    """For each line of an INI text (index 0 is line 1), the full-line ``#`` comment on the
    line above it, ``""`` for none: the place a ``setup.cfg`` entry point's ``# noqa`` is
    read from (:data:`CFG_NOQA`; :mod:`configparser` skips such a line, in a multi-line
    value too)."""
    lines = text.splitlines()
    return [""] + [line if line.lstrip().startswith("#") else "" for line in lines[:-1]]


def uncertain_message(entry: EntryPoint, names: Collection[str] = (), path: str | None = None) -> str:
    """PPO006's message for a ``setup.py`` entry point built at run time whose text spells
    the function (:attr:`EntryPoint.certain` ``False``): the tool cannot tell what it names.

    Args:
        entry: the declaration (its ``value`` is the source text).
        names: the targets' last names: when the value's own text spells none, the message
            names the module-level names whose values do (:func:`spells_target`).
        path: the ``setup.py``'s path, for the modules it imports names from
            (:func:`imported_spelling`).
    """
    what = f"an entry point of group `{entry.group}`" if entry.group else "`setup(entry_points=...)`"
    how = "it spells its name"
    if names and not any(n in entry.value for n in names):
        via = sorted({f"`{name}`" for name, text in entry.context if any(n in text for n in names)})
        via += imported_spelling(entry, names, path)
        if via:
            listed = ", ".join(via)
            how = f"{listed}, which it reads, {'spell' if len(via) > 1 else 'spells'} its name"
    return (
        f"`{entry.value}` is {what} built at run time: cannot tell whether it names the runtime "
        f"function ({how}); if it does, whatever loads it passes no config the "
        "source can give"
    )


def spells_target(entry: EntryPoint, names: Collection[str], path: str | None = None) -> bool:
    """Whether an entry point not :attr:`EntryPoint.certain` may name the runtime function:
    its source text spells one of ``names``, or a value of a module-level name it reads
    does (:attr:`EntryPoint.context`: ``EP`` bound twice, under an ``if``, or put into
    ``kw`` by ``kw["entry_points"] = ...``; fresh40, MISSED).

    Args:
        entry: the declaration.
        names: the targets' last names.
        path: the ``setup.py``'s path: a module of the project it imports a name from is
            read too (:func:`imported_spelling`; fresh41, M5). ``None`` reads none.
    """
    return any(n in entry.value for n in names) or any(
        n in text for _, text in entry.context for n in names
    ) or bool(imported_spelling(entry, names, path))


def imported_spelling(entry: EntryPoint, names: Collection[str], path: str | None) -> list[str]:
    """The names an uncertain ``setup.py`` entry point reads that it imports from a module
    of the project whose text spells one of ``names`` (``from _eps import EPS`` with
    ``_eps.py`` beside ``setup.py`` spelling the function: fresh41, M5), each as
    ``"`EPS` (from `_eps`)"``; ``[]`` when ``path`` is ``None`` or none does. The module is
    looked for beside ``setup.py`` (``_eps.py``, ``_eps/__init__.py``) in the run's snapshot.

    Args:
        entry: the declaration (its :attr:`EntryPoint.context` holds the import statements).
        names: the targets' last names.
        path: the ``setup.py``'s path.
    """
    if path is None or not entry.context:
        return []
    import ast

    from ppo_migrate.project.snapshot import current

    folder = os.path.dirname(os.path.abspath(path))
    out: list[str] = []
    for name, text in entry.context:
        if not text.startswith(("from ", "import ")):
            continue
        try:
            (stmt,) = ast.parse(text).body
        except (SyntaxError, ValueError):
            continue
        if isinstance(stmt, ast.ImportFrom):
            base = folder
            for _ in range(max(stmt.level - 1, 0)):
                base = os.path.dirname(base)
            module = stmt.module or ""
        elif isinstance(stmt, ast.Import):
            base, module = folder, next((a.name for a in stmt.names if (a.asname or a.name).split(".")[0] == name), "")
        else:
            continue
        stem = os.path.join(base, *module.split(".")) if module else base
        for candidate in (os.path.join(stem, "__init__.py"), stem + ".py"):  # the package first
            try:
                read = current().read_text(candidate, errors="replace")
            except (OSError, ValueError):
                continue
            if any(n in read for n in names):
                out.append(f"`{name}` (from `{module or '.'}`)")
            break
    return sorted(set(out))


def entry_point_references(
    entries: Iterable[EntryPoint],
    path: str,
    targets: Collection[str],
    enabled: Callable[[str], bool] = lambda code: True,
    text: str | None = None,
) -> list[Diagnostic]:
    """PPO006 for every declared entry point whose object is one of the run's targets.

    Args:
        entries: the file's declarations
            (:func:`ppo_migrate.project.entry_points.declared_entry_points`).
        path: the file's display path.
        targets: the run's qualified names of the runtime function (verl's and the project's
            re-exports: the settings' ``targets``).
        enabled: whether a rule code is selected (``Settings.rule_enabled``).
        text: the file's text, for ``# noqa`` comments of a ``pyproject.toml``
            (:func:`toml_comment`); ``None`` reads none (a ``setup.py``'s are the module
            analysis's, a ``setup.cfg`` has none).

    Returns:
        The diagnostics, sorted by position; ``[]`` when PPO006 is not selected.
    """
    problem = getattr(entries, "problem", _UNREAD)  # a Declarations' own (a BOM's: fresh40)
    entries = tuple(entries)
    base = os.path.basename(path)
    toml = base == "pyproject.toml"
    if (toml or base == "setup.cfg") and not entries and text is not None and enabled("PPO902") \
            and names_any(text, targets):
        if problem is _UNREAD:
            problem = pyproject_problem(text) if toml else setup_cfg_problem(text)
        if problem is not None:  # trial 26h, WRONG: it gave no diagnostic
            message, line, column = problem
            names = {t.rsplit(".", 1)[-1] for t in targets}
            where = named_outside_entry_points(base, text, names)
            if where is not None and toml and any(
                unescaped(text).count(n) > text.count(n) for n in names
            ):  # a ``\u``-escaped spelling may be an entry point's (fresh41, W5)
                where = None
            if where is None:
                said = "its entry points cannot be read"
            elif declares_entry_points(base, text):  # one may name a re-export (fresh41, W5)
                said = (
                    f"it spells the runtime function's name only in {where}, but it declares entry "
                    "points, which cannot be read: cannot tell whether one names the function (a "
                    "re-export of it, say)"
                )
            else:
                said = (
                    f"it names the runtime function only in {where}, which declares no entry point, "
                    "but packaging tools refuse the file as it stands"
                )
            return [Diagnostic(
                path, line, column, line, column, "PPO902",
                f"not valid {'TOML' if toml else 'setup.cfg'}: {message}; {said}",
            )]
    wanted = frozenset(targets)
    last_names = {t.rsplit(".", 1)[-1] for t in wanted}
    out: list[Diagnostic] = []
    if enabled("PPO902"):  # a file of entry points setuptools refuses (fresh41, W7)
        out += [
            Diagnostic(path, e.line, e.column, e.end_line, e.end_column, "PPO902", refused_file_message(e))
            for e in entries
            if e.problem and any(names_any(t, wanted) for _, t in e.context)
        ]
    if enabled("PPO902"):  # a value setuptools refuses that spells the function (fresh41, W0)
        out += [
            Diagnostic(path, e.line, e.column, e.end_line, e.end_column, "PPO902",
                       invalid_value_message(e, base))
            for e in entries
            if e.certain and parse_value(e.value) is None and any(n in e.value for n in last_names)
        ]
    if enabled("PPO006"):
        out += [
            Diagnostic(path, e.line, e.column, e.end_line, e.end_column, "PPO006", entry_point_message(e),
                       help=entry_point_help(e, base))
            for e in entries
            if e.qualified in wanted
        ]
        out += [
            Diagnostic(path, e.line, e.column, e.end_line, e.end_column, "PPO006",
                       uncertain_message(e, last_names, path), help=entry_point_help(e, base))
            for e in entries
            if not e.certain and spells_target(e, last_names, path)
        ]
    out.sort(key=Diagnostic.sort_key)
    if out and text is not None and "noqa" in text.lower() and toml:
        per_line = toml_comments(text)
        out = [d for d in out if not is_suppressed(d, per_line)]
    elif out and text is not None and "noqa" in text.lower() and base == "setup.cfg":
        above = ini_comments_above(text)  # a comment after the value is the value's (fresh41, W0)
        out = [d for d in out if not is_suppressed(d, above)]
    return out


def names_any(text: str, targets: Iterable[str]) -> bool:
    """Whether ``text`` spells the last name of one of ``targets``, or may once TOML's
    ``\\u``/``\\U`` escapes are read (:func:`unescaped`)."""
    names = {t.rsplit(".", 1)[-1] for t in targets}
    if any(n in text for n in names):
        return True
    return ("\\u" in text or "\\U" in text) and any(n in unescaped(text) for n in names)


_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")


def unescaped(text: str) -> str:
    """``text`` with each ``\\uXXXX`` and ``\\UXXXXXXXX`` escape (TOML's and Python's) read
    as its character (an escape that names no character is left as written): what a
    ``pyproject.toml`` value spells once :mod:`tomllib` decodes it (trial 26h)."""
    def one(m) -> str:
        code = int(m.group(1) or m.group(2), 16)
        return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else m.group()

    return _ESCAPE.sub(one, text)


def toml_comments(text: str) -> list[str]:
    """The comment each line of a TOML text ends with (index 0 is line 1; ``""`` for
    none), strings read as TOML reads them: a ``#`` inside a string, a multi-line one
    (``\"\"\"`` or ``'''``) included, is no comment, and one after a multi-line string's
    closing quotes is (trial 26h: ``x = \"\"\"...\"\"\"  # noqa: PPO006``)."""
    lines = text.splitlines()
    out = [""] * len(lines)
    quote: str | None = None  # the open string's delimiter
    for n, line in enumerate(lines):
        if quote is not None and len(quote) == 1:
            quote = None  # a one-line string does not go on (the parser refuses it)
        i = 0
        while i < len(line):
            if quote is None:
                c = line[i]
                if c == "#":
                    out[n] = line[i:]
                    break
                if c in "\"'":
                    quote = c * 3 if line.startswith(c * 3, i) else c
                    i += len(quote)
                    continue
            elif quote[0] == '"' and line[i] == "\\":
                i += 2
                continue
            elif line.startswith(quote, i):
                i += len(quote)
                while len(quote) == 3 and i < len(line) and line[i] == quote[0]:
                    i += 1  # up to two quotes more end a multi-line string's text
                quote = None
                continue
            i += 1
    return out


def toml_comment(line: str) -> str:
    """The comment a TOML line ends with (from its ``#`` outside any string), ``""`` for none.
    A line inside a multi-line string is read as any other (a ``#`` there after a closing
    quote counts): only a ``noqa`` would be taken for a comment it is not."""
    quote = None
    i = 0
    while i < len(line):
        c = line[i]
        if quote is None:
            if c == "#":
                return line[i:]
            if c in "\"'":
                quote = c
        elif c == "\\" and quote == '"':
            i += 1
        elif c == quote:
            quote = None
        i += 1
    return ""


def loaded_modules(entries: Iterable[EntryPoint]) -> frozenset[str]:
    """The modules the entry points load by name (each dotted prefix of a value's module:
    importing ``a.b`` imports ``a``): a re-export there counts as one the run uses
    (:func:`ppo_migrate.rules.reexports.project_reexports`'s ``loaded``), as a Hydra
    ``_target_``'s module does. An object path (``mod:Obj.f``) adds no module."""
    out: set[str] = set()
    for e in entries:
        module = e.module
        if module:
            parts = module.split(".")
            out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return frozenset(out)


__all__ = [
    "CFG_NOQA", "SCRIPT_GROUPS", "entry_point_help", "entry_point_message", "entry_point_references",
    "imported_spelling", "ini_comments_above", "invalid_value_message", "loaded_modules", "names_any",
    "refused_file_message", "spells_target", "toml_comment", "toml_comments", "uncertain_message", "unescaped",
]
