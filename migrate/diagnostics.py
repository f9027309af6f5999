"""Diagnostics and ``# noqa`` suppression.

A :class:`Diagnostic` is what every part of ppo-migrate speaks: the LibCST pass
produces them, ``check`` prints them in one of several formats and ``apply``
applies the fixes they carry. Positions are 1-based lines and 1-based columns
counted in Unicode code points, as in ruff's JSON output and SARIF's
``columnKind: "unicodeCodePoints"``.

:class:`Edit`, :class:`Fix`, :class:`Related` and :class:`Diagnostic` are immutable
records compared by value (``typing.NamedTuple``s, which cost a fraction of a frozen
dataclass to create at import): ``d._replace(message=...)`` makes a changed copy. A
diagnostic names its rule by its code; the rules' records are
:data:`ppo_migrate.rules.codes.RULES` (one module per rule).
"""


import re
from collections.abc import Sequence
from typing import NamedTuple

from ppo_migrate.patterns import lazy_pattern

#: Codes whose findings never change the exit code.
INFORMATIONAL_CODES = frozenset({"PPO004", "PPO005"})
#: Informational codes the concise output lists only when asked (``--show-notices``).
NOTICE_CODES = frozenset({"PPO005"})
#: What separates a notice's call from its reason in its message (the concise output's
#: summary of notices takes the reason after it).
NOTICE_SEPARATOR = " left as it is: "

#: What a notebook's finding says instead of the fix a ``.py`` file would get (trial 26e, M4:
#: ``check`` reports the calls of a notebook's code cells, ``apply`` never writes a notebook).
NOT_REWRITTEN = "not fixed: notebooks are not rewritten, edit the cell"
#: what a finding in a ``python -c`` string of a ``pyproject.toml`` says instead of a fix
COMMAND_NOT_REWRITTEN = "in a `python -c` string: not fixed, edit the command"


class Edit(NamedTuple):
    """A replacement of the text between two positions.

    Attributes:
        content: the new text.
        line, column: 1-based start (column in code points).
        end_line, end_column: 1-based end, exclusive.
    """

    content: str
    line: int
    column: int
    end_line: int
    end_column: int


class CallerOrigin(NamedTuple):
    """A parameter a safe fix's config comes from, whose callers in other files decide it.

    A safe fix that passes ``config`` where ``config`` is a parameter of a module-level
    function (or ``self.config`` set from a parameter of a class's ``__init__``) is only as
    good as what every caller passes there. The callers in the same file are judged by
    the analysis of that file; those in the run's other files by
    :func:`ppo_migrate.rules.cross_file.judge_callers` after the per-file phase.

    Attributes:
        path: the display path of the file defining the function or class.
        qualname: the function's or the class's ``__qualname__`` (``"run_ppo"``,
            ``"Trainer"``), as a caller in another file imports it.
        position: the argument position a call passes the parameter at (for a class,
            ``self`` not counted), or ``None`` for a keyword-only parameter.
        keyword: the parameter's name (a call may pass it by keyword).
        kind: ``"call"`` (a function: its calls pass it), ``"init"`` (a class whose
            ``__init__`` or dataclass field sets ``self.<name>``: its calls pass it, and
            another file may write the attribute), ``"method"`` / ``"staticmethod"``
            (``qualname`` is ``Class.method``: the ``<obj>.method(...)`` calls of files
            that name the class pass it) or ``"global"`` (``qualname`` is a module
            global: another file may assign it, ``pkg.mod.config = d``).
        decorators: for a function, the qualified names of its imported decorators
            (``"pkg.deco.with_cfg"``; a factory ``@with_cfg(d)`` ends in ``"()"``): one
            defined in another file of the run must hand the arguments on unchanged.
    """

    path: str
    qualname: str
    position: int | None
    keyword: str
    kind: str = "call"
    decorators: tuple[str, ...] = ()


class Fix(NamedTuple):
    """A fix: a message and the edits that make it.

    Attributes:
        message: e.g. ``"Pass `config`"``.
        edits: tuple of :class:`Edit`.
        applicability: ruff's term: ``"safe"`` for fixes ``apply`` makes.
        origins: the parameters a safe fix's config comes from (:class:`CallerOrigin`):
            until their callers in the run's other files are judged, ``apply`` holds the
            fix back (a run through :func:`ppo_migrate.cli.runner.run`).
    """

    message: str
    edits: tuple[Edit, ...]
    applicability: str = "safe"
    origins: tuple[CallerOrigin, ...] = ()


class Related(NamedTuple):
    """A related location (e.g. a caller that has a config).

    Attributes:
        path: file path as given.
        line, column: 1-based position (column in code points).
        message: what it is.
    """

    path: str
    line: int
    column: int
    message: str


#: Reason kinds saying the callee in effect is not known to take a config (issue 26): nothing
#: decides which verl runs, or a copy of it that may be in effect takes none or cannot be read,
#: or a file in a format the tool does not read mentions a verl before 0.9.0 (``unread-pin``).
#: ``--thread-config`` never threads a config into a PPO002 call with one.
UNSURE_CALLEE_KINDS = frozenset({"newest-assumed", "uncertain-definition", "unread-pin"})


class Reason(NamedTuple):
    """Why a finding is what it is: structured, rendered at the edge (``full``'s ``help:``
    line, JSON/SARIF ``reason``, a short form in ``concise``).

    Attributes:
        kind: a stable kebab-case key of what decided it, e.g. ``"possibly-bound"`` (the
            config is bound on some paths only), ``"evidence-against"`` (a candidate was
            rejected), ``"in-tree-definition"``, ``"pin"``, ``"installed"``,
            ``"newest-assumed"`` (nothing decided which verl runs), ``"trusted-by-name"``,
            ``"patched"`` (a test replaces the function).
        text: one sentence saying why, without the places (they are in ``lines``).
        lines: the places that decided it, each a :class:`Related` (path, 1-based line
            and column, what is there), in the order they matter.
    """

    kind: str
    text: str
    lines: tuple["Related", ...] = ()

    def short(self) -> str:
        """The reason in one line: its text, then ``(path:line)`` of the first place."""
        if not self.lines:
            return self.text
        first = self.lines[0]
        return f"{self.text} ({first.path}:{first.line})"


class Diagnostic(NamedTuple):
    """One finding.

    Attributes:
        path: the file path as discovered (relative if the user gave a relative path).
        line, column: 1-based start; column in Unicode code points.
        end_line, end_column: 1-based end (exclusive column).
        code: the rule code, a key of :data:`ppo_migrate.rules.codes.RULES`.
        message: the human message.
        scope: the enclosing qualified name: ``"<module>"``, ``"run_ppo"``,
            ``"Launcher.start"``, ``"main.<locals>.init_cluster"``.
        fix: the fix, or ``None``.
        related: related locations, e.g. callers with a config.
        callee: for a target call, which definition it binds to and which source
            decided (see :mod:`ppo_migrate.rules.signatures`); empty when
            nothing was known and the newest signature was assumed.
        reason: why the finding is what it is (:class:`Reason`): why a fix is unsafe,
            why a candidate was rejected, which definition or pin decided a PPO005;
            ``None`` where nothing beyond the message decided it.
        cell: in a notebook (``*.ipynb``), the cell the finding is in (1-based, counting
            every cell as ruff does), ``line``/``end_line`` then being lines of that cell
            (:mod:`ppo_migrate.project.notebooks`); ``0`` for any other file.
        help: what to do, one line, for a finding with no fix whose remedy is not the
            rule's own (an entry point's PPO006: the ``= help:`` line of the ``full``
            format); ``""`` uses the first sentence of the rule's remedy
            (:attr:`ppo_migrate.rules.codes.rule.Rule.fix`).
    """

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    message: str
    scope: str = "<module>"
    fix: Fix | None = None
    related: tuple[Related, ...] = ()
    callee: str = ""
    reason: Reason | None = None
    cell: int = 0
    help: str = ""

    @property
    def fixable(self) -> bool:
        """True when the diagnostic carries a fix (safe or unsafe)."""
        return self.fix is not None

    def applicable(self, unsafe_fixes: bool = False) -> bool:
        """Whether ``apply``/``check --fix`` makes its fix: a safe one always, an unsafe one
        only with ``unsafe_fixes`` (ruff's fix applicability)."""
        return self.fix is not None and (self.fix.applicability == "safe" or unsafe_fixes)

    @property
    def informational(self) -> bool:
        """True for findings that never change the exit code (PPO004 shims, PPO005 notices)."""
        return self.code in INFORMATIONAL_CODES

    def sort_key(self) -> tuple[str, int, int, int, str]:
        """Key that orders by path, cell (a notebook's; ``0`` elsewhere), line, column, code."""
        return (self.path, self.cell, self.line, self.column, self.code)

    @property
    def position(self) -> str:
        """``line:column``, or ruff's ``cell N:line:column`` in a notebook (:attr:`cell`)."""
        where = f"{self.line}:{self.column}"
        return f"cell {self.cell}:{where}" if self.cell else where


def qualname(frames: Sequence[tuple[str, str]]) -> str:
    """Spell a scope as ``__qualname__`` does.

    Args:
        frames: ``(kind, name)`` from the outermost scope in, ``kind`` being
            ``"function"`` or ``"class"`` (a lambda is a function named ``<lambda>``).

    Returns:
        e.g. ``"Launcher.start"``, ``"main.<locals>.init_cluster"``, or ``"<module>"``
        for no frames.
    """
    parts: list[str] = []
    for i, (kind, name) in enumerate(frames):
        parts.append(name)
        if kind == "function" and i < len(frames) - 1:
            parts.append("<locals>")
    return ".".join(parts) or "<module>"


_NOQA = lazy_pattern(
    r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?",
    re.IGNORECASE,
)


def noqa_codes(line_text: str) -> frozenset[str] | None:
    """Parse a ``# noqa`` comment on one source line.

    Args:
        line_text: one line of source text.

    Returns:
        ``None`` when the line has no ``# noqa``; an empty frozenset for a bare
        ``# noqa`` (suppresses every code); otherwise the upper-cased codes listed.
    """
    hashpos = line_text.find("#")
    if hashpos < 0:
        return None
    m = _NOQA.search(line_text, hashpos)
    if m is None:
        return None
    codes = m.group("codes")
    if not codes:
        return frozenset()
    return frozenset(c.strip().upper() for c in codes.split(","))


_LINE_ENDINGS = lazy_pattern(r"(\r\n|\r|\n)")


def comment_lines(text: str) -> tuple[set[int], dict[int, tuple[int, str]]]:
    """Lines (1-based) whose physical end lies outside any string, and the real
    comment of each line (``line -> (column, text)``, columns in code points)."""
    import io
    import tokenize  # here: only a file with a ``noqa`` comment needs it (~1.5 ms to import)

    ok: set[int] = set()
    comments: dict[int, tuple[int, str]] = {}
    # The tokenizer ends lines at "\n" only; count lines as _LINE_ENDINGS (and LibCST's
    # positions) do, so that a file with CR-only or mixed line endings is numbered alike.
    normalized = _LINE_ENDINGS.sub("\n", text)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(normalized).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT):
                ok.add(tok.start[0])
            if tok.type == tokenize.COMMENT:
                comments[tok.start[0]] = (tok.start[1], tok.string)
            elif tok.type == tokenize.ENDMARKER:
                break
    except (tokenize.TokenError, SyntaxError):
        pass
    # a line that ends the file without a newline still ends outside a string
    return ok, comments


def is_suppressed(diag: Diagnostic, lines: list[str]) -> bool:
    """Whether a ``# noqa`` on the diagnostic's first or last line suppresses it.

    Args:
        diag: the diagnostic.
        lines: the file's lines (index 0 is line 1), without line endings.
    """
    for lineno in {diag.line, diag.end_line}:
        if 1 <= lineno <= len(lines):
            codes = noqa_codes(lines[lineno - 1])
            if codes is not None and (not codes or diag.code in codes):
                return True
    return False
