"""Diagnostics, rule codes and ``# noqa`` suppression.

A :class:`Diagnostic` is what every part of ppo-migrate speaks: the LibCST pass
produces them, ``check`` prints them in one of several formats and ``apply``
applies the fixes they carry. Positions are 1-based lines and 1-based columns
counted in Unicode code points, as in ruff's JSON output and SARIF's
``columnKind: "unicodeCodePoints"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

DOCS_URL = "https://github.com/ppo-migrate/ppo-migrate/blob/main/docs/rules.md"


@dataclass(frozen=True)
class Rule:
    """One rule code and its documentation.

    Attributes:
        code: the rule code, e.g. ``"PPO001"``.
        name: a kebab-case name, e.g. ``"configless-call-with-config"``.
        summary: one line (the SARIF ``shortDescription``).
        description: what it finds and why it matters (paragraphs of text).
        fix: how to fix it.
        example: a before/after example (Python source).
        fixable: whether ``ppo-migrate apply`` fixes it.
    """

    code: str
    name: str
    summary: str
    description: str
    fix: str
    example: str
    fixable: bool = False

    @property
    def url(self) -> str:
        """The rule's documentation URL (a fragment of the rules page)."""
        return f"{DOCS_URL}#{self.code.lower()}"


_WHY = (
    "verl PR #6976 made CUDA_DEVICE_MAX_CONNECTIONS=1 conditional: "
    "get_ppo_ray_runtime_env(config) sets it only when a component runs Megatron on a "
    "GPU that needs it. Called with no config, the function cannot see the strategy, so "
    "Megatron runs silently lose the variable and with it the ordering of their "
    "all-gather/reduce-scatter before compute (Megatron's validate_args asserts on it)."
)

RULES: dict[str, Rule] = {
    r.code: r
    for r in (
        Rule(
            "PPO001",
            "configless-call-with-config",
            "get_ppo_ray_runtime_env() is called without the config that is in scope",
            "Finds a call of the runtime function (get_ppo_ray_runtime_env, resolved by "
            "qualified name through any import form) made with no argument or with None "
            "as the config, where a training config is visible at the call: a parameter, "
            "an earlier local, a closure variable, self.config or a module global.\n\n" + _WHY,
            "Run `ppo-migrate apply`: it passes the config in scope, "
            "get_ppo_ray_runtime_env() -> get_ppo_ray_runtime_env(config).",
            "def run_ppo(config):\n"
            "    ray.init(runtime_env=get_ppo_ray_runtime_env())        # PPO001\n"
            "    ray.init(runtime_env=get_ppo_ray_runtime_env(config))  # fixed\n",
            fixable=True,
        ),
        Rule(
            "PPO002",
            "configless-call-without-config",
            "get_ppo_ray_runtime_env() is called where no config is in scope",
            "Finds a configless call of the runtime function where no training config is "
            "visible: an entry point (a server's init_ray(address), a test, a script) "
            "that must obtain the config before it can pass it.\n\n" + _WHY,
            "Give the enclosing function the training config (a parameter, or load it) "
            "and pass it: get_ppo_ray_runtime_env(config). Where the caller has it, "
            "`ppo-migrate apply --thread-config` threads it through.",
            "def init_ray(address):\n"
            "    ray.init(address, runtime_env=get_ppo_ray_runtime_env())  # PPO002\n\n"
            "def init_ray(address, config):\n"
            "    ray.init(address, runtime_env=get_ppo_ray_runtime_env(config))\n",
        ),
        Rule(
            "PPO003",
            "ambiguous-runtime-env-callee",
            "the callee may or may not be get_ppo_ray_runtime_env",
            "Finds a configless call whose callee is bound conditionally: on one path it is "
            "the runtime function, on another something else (a local fallback, another "
            "module's function). ppo-migrate does not rewrite it, because passing a config "
            "to the other function may be wrong.\n\n" + _WHY,
            "Make the binding unambiguous, or pass the config by hand if both callees "
            "accept it; then suppress with `# noqa: PPO003` if needed.",
            "try:\n"
            "    from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
            "except ImportError:\n"
            "    def get_ppo_ray_runtime_env():\n"
            "        return {}\n"
            "get_ppo_ray_runtime_env()  # PPO003\n",
        ),
        Rule(
            "PPO004",
            "compatibility-shim",
            "a configless call that only runs against a runtime function without parameters",
            "Lists a configless call on the branch taken when the runtime function has no "
            "parameters (an `if` testing inspect.signature(...).parameters or "
            "__code__.co_argcount), or in an `except TypeError:` fallback whose `try` passes "
            "a config. Such a call is right for old verl releases and never runs on new ones, "
            "so it is neither rewritten nor reported unless `check --show-shims` asks for it; "
            "it never changes the exit code.\n\n" + _WHY,
            "Nothing to fix. Remove the shim once every deployment runs verl with PR #6976.",
            "try:\n"
            "    env = get_ppo_ray_runtime_env(config)\n"
            "except TypeError:  # verl before PR #6976\n"
            "    env = get_ppo_ray_runtime_env()  # PPO004 (shown with --show-shims)\n",
        ),
        Rule(
            "PPO901",
            "unreadable-file",
            "the file cannot be read or decoded",
            "The file could not be read (permissions, not a regular file, a broken "
            "symlink) or its bytes are not valid in its declared encoding. It was not "
            "checked, so it may still hold configless calls.",
            "Fix the file's permissions or encoding, or exclude it.",
            "",
        ),
        Rule(
            "PPO902",
            "syntax-error",
            "the file names the runtime function but cannot be parsed",
            "A file that names the runtime function could not be parsed as Python 3, so "
            "its calls could not be checked.",
            "Fix the syntax error, or exclude the file.",
            "",
        ),
        Rule(
            "PPO903",
            "unresolvable-relative-import",
            "a relative import climbs past the top-level package",
            "A relative import in a file that names the runtime function climbs above the "
            "outermost directory holding __init__.py, so the module it names cannot be "
            "known and calls through it are not resolved.",
            "Fix the import or add the missing __init__.py files.",
            "",
        ),
        Rule(
            "PPO904",
            "file-changed-during-run",
            "the file changed on disk while it was being rewritten",
            "The file's size, modification time or content changed between reading and "
            "writing it; it was not overwritten so that no edit is lost.",
            "Run again once nothing else is writing the file.",
            "",
        ),
    )
}


INFORMATIONAL_CODES = frozenset({"PPO004"})


@dataclass(frozen=True)
class Edit:
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


@dataclass(frozen=True)
class Fix:
    """A fix: a message and the edits that make it.

    Attributes:
        message: e.g. ``"Pass `config`"``.
        edits: tuple of :class:`Edit`.
        applicability: ruff's term: ``"safe"`` for fixes ``apply`` makes.
    """

    message: str
    edits: tuple[Edit, ...]
    applicability: str = "safe"


@dataclass(frozen=True)
class Related:
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


@dataclass(frozen=True)
class Diagnostic:
    """One finding.

    Attributes:
        path: the file path as discovered (relative if the user gave a relative path).
        line, column: 1-based start; column in Unicode code points.
        end_line, end_column: 1-based end (exclusive column).
        code: a key of :data:`RULES`.
        message: the human message.
        scope: the enclosing qualified name: ``"<module>"``, ``"run_ppo"``,
            ``"Launcher.start"``, ``"main.<locals>.init_cluster"``.
        fix: the fix, or ``None``.
        related: related locations, e.g. callers with a config.
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
    related: tuple[Related, ...] = field(default=())

    @property
    def fixable(self) -> bool:
        """True when the diagnostic carries a fix."""
        return self.fix is not None

    @property
    def rule(self) -> Rule:
        """The :class:`Rule` for :attr:`code`."""
        return RULES[self.code]

    @property
    def informational(self) -> bool:
        """True for findings that never change the exit code (PPO004 shims)."""
        return self.code in INFORMATIONAL_CODES

    def sort_key(self) -> tuple[str, int, int, str]:
        """Key that orders by path, line, column, code."""
        return (self.path, self.line, self.column, self.code)


_NOQA = re.compile(
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
