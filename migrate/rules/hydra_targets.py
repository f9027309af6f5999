"""PPO006 for the runtime function named by its qualified name in a string (issue 26, family 6).

Hydra calls the object a config node names by ``_target_``: ``hydra.utils.call(node)`` calls
it with the node's other keys as its arguments, ``hydra.utils.instantiate(node)`` too (with
``_partial_: true`` it returns a ``functools.partial`` of it, called later). No Python file
then names the function as an identifier, so a config such as::

    ray:
      runtime_env:
        _target_: verl.trainer.constants_ppo.get_ppo_ray_runtime_env

hands the function to code whose calls cannot be checked, exactly as
``functools.partial(get_ppo_ray_runtime_env)`` does in Python (trial 26d's
``d6_hydra_target_call`` and ``d6b_hydra_instantiate_partial``: MISSED). Both are PPO006
(``runtime-function-reference``), with no fix.

Two readers, both pure (text in, findings out; the text comes from the run's snapshot):

* :func:`yaml_references`: a YAML file among the analysed paths
  (:data:`ppo_migrate.project.discovery.YAML_SUFFIXES`); a
  ``_target_`` key at any depth (in a mapping, in a list, in a flow collection, reached
  through an alias once) whose scalar value is one of the run's targets: verl's own names
  and every name the project's re-exports give the function (the run's
  :class:`ppo_migrate.settings_model.Settings` ``targets``, which the runner extends with
  :attr:`ppo_migrate.project.references.References.reexports`, the same table the Python
  references are matched against). A file that is no YAML (a syntax error, a
  non-printable character, a tag PyYAML's safe loader does not know) is not ours to lint:
  it gives no finding and no PPO901/PPO902.
* :func:`string_reference`: in Python, a string constant equal to a target in a place that
  hands it to Hydra or to an importer: a ``"_target_"`` dict entry, a ``_target_=``
  keyword (``dict(_target_=...)``), the first argument of :data:`LOCATORS`
  (``hydra.utils.call/instantiate/get_method/get_object/get_class``, ``pydoc.locate``).
  A string given to a patcher (``mock.patch("verl....get_ppo_ray_runtime_env")``,
  ``monkeypatch.setattr("...", f)``) is a test double (:mod:`ppo_migrate.rules.patches`
  reads it), never a PPO006: no such place is one of these.

Positions: YAML's are of the value (PyYAML's composed nodes carry marks; the line and
column are counted from the mark's character index with the project's line endings,
``\\r\\n``, ``\\r`` and ``\\n``, as every other finding's: PyYAML also breaks lines at
``\\x85``, ``\\u2028`` and ``\\u2029``). ``# noqa: PPO006`` on the value's line (a YAML
comment, found by :func:`yaml_comment_lines`) suppresses the finding.

Sources: Hydra's instantiate API (``hydra.utils.instantiate``, ``call``, ``get_method``,
``get_object``, ``get_class``; ``_target_``, ``_partial_``, ``_args_``), Python's
``pydoc.locate``; PyYAML's ``compose_all`` and ``scan`` (``Mark.index``, line, column).
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from collections.abc import Callable, Collection, Iterator

from ppo_migrate.diagnostics import Diagnostic, is_suppressed

#: The key Hydra reads the callable's qualified name from.
TARGET_KEY = "_target_"
#: Functions that import and return (or call) the object a qualified name in their first
#: argument names (Hydra's instantiate API, ``pydoc.locate``).
LOCATORS = frozenset({
    "hydra.utils.call", "hydra.utils.instantiate", "hydra.utils.get_method",
    "hydra.utils.get_object", "hydra.utils.get_class", "hydra._internal.utils._locate",
    "pydoc.locate",
})

_LINE_ENDINGS = re.compile(r"\r\n|\r|\n")


def yaml_message(value: str) -> str:
    """PPO006's message for a ``_target_`` naming ``value``."""
    return (
        f"`{value}` is named by a Hydra `{TARGET_KEY}` (`hydra.utils.call`/`instantiate` "
        "call it with the node's other keys only); the calls made through it cannot be "
        "checked: make sure each passes the config"
    )


def string_message(value: str, where: str) -> str:
    """PPO006's message for a Python string naming ``value``, ``where`` it is
    (``"a `_target_` entry"``, ``"passed to `hydra.utils.call(...)`"``)."""
    return (
        f"`{value}` is named by a string ({where}); the calls made through it cannot be "
        "checked: make sure each passes the config"
    )


class _Lines:
    """1-based line and code-point column of a character index, lines broken as the
    project breaks them (:data:`_LINE_ENDINGS`)."""

    def __init__(self, text: str) -> None:
        self.starts = [0, *(m.end() for m in _LINE_ENDINGS.finditer(text))]

    def position(self, index: int) -> tuple[int, int]:
        line = bisect_right(self.starts, index)
        return line, index - self.starts[line - 1] + 1


def _composed(text: str):
    """The composed documents of ``text`` (PyYAML's safe loader, pure Python so that marks
    count characters), or ``None`` when it is no YAML PyYAML reads."""
    import yaml  # here: only a YAML file naming the function needs it (~15 ms to import)

    try:
        return list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except (yaml.YAMLError, RecursionError, ValueError, TypeError):
        return None


def _target_values(documents) -> Iterator:
    """Every scalar node that is the value of a ``_target_`` key in ``documents``, once
    (an anchored node reached again through an alias is the same node)."""
    import yaml

    seen: set[int] = set()
    stack = [d for d in documents if d is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if (
                    isinstance(key, yaml.ScalarNode) and key.value == TARGET_KEY
                    and isinstance(value, yaml.ScalarNode)
                ):
                    yield value
                stack.append(value)
                stack.append(key)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)


def yaml_comment_lines(text: str) -> tuple[set[int], dict[int, tuple[int, str]]]:
    """:func:`ppo_migrate.diagnostics.comment_lines` for YAML: the lines (1-based) that end
    outside any scalar (a comment may be put at their end), and the comment of each line
    that has one (``line -> (0-based column, text)``).

    A line ends inside a scalar when a token of PyYAML's scanner starts on it and ends on
    a later line (a block scalar, a multi-line flow scalar); a comment is the text from
    the first ``#`` after the last token ending on the line (the scanner skips comments,
    a ``#`` in a scalar is part of its token). ``(set(), {})`` for text that does not scan.
    """
    import yaml

    try:
        tokens = list(yaml.scan(text, Loader=yaml.SafeLoader))
    except (yaml.YAMLError, RecursionError, ValueError, TypeError):
        return set(), {}
    lines = _Lines(text)
    count = len(lines.starts)
    inside: set[int] = set()
    last_end: dict[int, int] = {}  # line -> the character index where its last token ends
    for tok in tokens:
        start, end = tok.start_mark.index, tok.end_mark.index
        first, _ = lines.position(start)
        last, _ = lines.position(end)
        inside.update(range(first, last))
        last_end[last] = max(last_end.get(last, 0), end)
    ok = set(range(1, count + 1)) - inside
    comments: dict[int, tuple[int, str]] = {}
    for line in range(1, count + 1):
        begin = lines.starts[line - 1]
        stop = lines.starts[line] if line < count else len(text)
        body = _LINE_ENDINGS.sub("", text[begin:stop])
        if line in inside or "#" not in body:
            continue
        # a line ending a scalar begun above: only the text after its end may comment
        after = max(last_end.get(line, begin), begin) - begin
        found = body.find("#", after)
        # YAML: a comment's ``#`` starts the line or follows white space
        while found > 0 and body[found - 1] not in " \t":
            found = body.find("#", found + 1)
        if found >= 0:
            comments[line] = (found, body[found:])
    return ok, comments


def yaml_references(
    text: str, path: str, targets: Collection[str], enabled: Callable[[str], bool] = lambda c: True
) -> list[Diagnostic]:
    """PPO006 for every ``_target_`` of a YAML file naming the runtime function.

    Args:
        text: the file's decoded text (from the run's snapshot; no newline translation).
        path: its display path.
        targets: the run's qualified names of the runtime function (verl's and the
            project's re-exports: the settings' ``targets``).
        enabled: whether a rule code is selected (``Settings.rule_enabled``).

    Returns:
        The PPO006 diagnostics, sorted by position, after ``# noqa`` on their line; ``[]``
        when PPO006 is not selected, the text names no target's last name (nothing is
        parsed then), or it is no YAML PyYAML reads (never raises for a bad file).
    """
    if not enabled("PPO006") or TARGET_KEY not in text:
        return []
    wanted = {t for t in targets if "." in t}
    last_names = {t.rsplit(".", 1)[1] for t in wanted}
    if not any(name in text for name in last_names):
        return []
    documents = _composed(text)
    if not documents:
        return []
    lines = _Lines(text)
    out: list[Diagnostic] = []
    for node in _target_values(documents):
        value = node.value.strip() if isinstance(node.value, str) else None
        if value not in wanted:
            continue
        line, column = lines.position(node.start_mark.index)
        end_line, end_column = lines.position(node.end_mark.index)
        out.append(Diagnostic(path, line, column, end_line, end_column, "PPO006", yaml_message(value)))
    if not out:
        return []
    out.sort(key=Diagnostic.sort_key)
    if "noqa" in text.lower():
        _, comments = yaml_comment_lines(text)
        per_line = [comments[i][1] if i in comments else "" for i in range(1, len(lines.starts) + 1)]
        out = [d for d in out if not is_suppressed(d, per_line)]
    return out


def string_reference(
    node: ast.Constant, parent: ast.AST | None, grandparent: ast.AST | None,
    callee: Callable[[ast.expr], Collection[str]],
) -> str | None:
    """Where a string constant naming a target hands it to Hydra or an importer, as
    PPO006's message words it, else ``None``.

    Args:
        node: the string constant (its value is a target: the caller checks).
        parent: its parent node; ``grandparent``: the parent's (for a keyword's call).
        callee: ``callee(func) -> qualified names`` of a call's function (the module's
            import resolution: :meth:`ppo_migrate.rules.targets.TargetFinder.qualified_names`).

    Returns:
        ``"a `_target_` entry"`` (``{"_target_": "..."}``, ``dict(_target_="...")``),
        ``"passed to `hydra.utils.call(...)`"`` (the first argument of one of
        :data:`LOCATORS`), or ``None`` anywhere else: a patcher's string
        (``mock.patch("...")``), a comparison, a docstring.
    """
    if isinstance(parent, ast.Dict):
        for key, value in zip(parent.keys, parent.values):
            if value is node and isinstance(key, ast.Constant) and key.value == TARGET_KEY:
                return f"a `{TARGET_KEY}` entry"
        return None
    if isinstance(parent, ast.keyword):
        if parent.arg == TARGET_KEY and isinstance(grandparent, ast.Call):
            return f"a `{TARGET_KEY}` entry"
        return None
    if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node:
        names = set(callee(parent.func))
        hit = sorted(names & LOCATORS)
        if hit:
            return f"passed to `{hit[0]}(...)`"
    return None


def same_documents(before: str, after: str) -> bool:
    """Whether two YAML texts hold the same documents for PyYAML's safe loader (both read,
    and equal): a comment added to a line changed nothing that a loader sees."""
    import yaml

    try:
        return list(yaml.safe_load_all(before)) == list(yaml.safe_load_all(after))
    except (yaml.YAMLError, RecursionError, ValueError, TypeError):
        return False


#: A ``_target_`` key and its plain or quoted dotted value, in a YAML file's bytes.
_TARGET_VALUE = re.compile(rb"""(?<![\w.])_target_['"]?[ \t]*:[ \t]*['"]?([A-Za-z_][\w.]*)""")


def loaded_modules(data: bytes) -> frozenset[str]:
    """The modules a YAML file's Hydra ``_target_`` values load by name (Hydra imports the
    longest importable prefix of the value: each dotted prefix of it is a candidate), found
    in its bytes without parsing: ``_target_: mypkg.util.make_env`` gives ``{"mypkg",
    "mypkg.util"}``. The re-export search (:func:`ppo_migrate.rules.reexports.project_reexports`)
    counts a re-export in such a module as one the run uses.

    Args:
        data: the file's bytes.

    Returns:
        The module names (empty when the bytes hold no ``_target_``).
    """
    if b"_target_" not in data:
        return frozenset()
    out: set[str] = set()
    for m in _TARGET_VALUE.finditer(data):
        parts = m.group(1).decode("ascii").split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return frozenset(out)
