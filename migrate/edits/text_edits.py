"""One file's findings and its rewrite: the core's fixes spliced into the original text.

:func:`process_text` is what ``check`` and ``apply`` run on each candidate file:
:func:`ppo_migrate.rules.check.analyse` decides the findings on Python's own
parser, and with ``fix`` the edits of the fixes that may be applied (safe ones;
unsafe ones too with ``--unsafe-fixes``) are spliced into the original text with
:func:`apply_edits`, so no byte outside them changes. LibCST is imported only for
``apply --use-ppo-runtime`` (moving the imports to ``ppo_runtime``).
"""

from __future__ import annotations

import ast
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from ppo_migrate.rules.callers import index_file
from ppo_migrate.rules.check import ModuleAnalysis, analyse
from ppo_migrate.rules.cross_file import pending_origins, with_verdicts
from ppo_migrate.rules.index import parsed_here
from ppo_migrate.rules.module import parsed_source
from ppo_migrate.rules.names import ModuleNames
from ppo_migrate.rules.patches import is_test_file
from ppo_migrate.rules.signatures import display_path
from ppo_migrate.diagnostics import Diagnostic, Edit
from ppo_migrate.patterns import lazy_pattern
from ppo_migrate.project.constant_uses import runtime_constant_use
from ppo_migrate.project.snapshot import current
from ppo_migrate.project.references import current_references

if TYPE_CHECKING:
    from ppo_migrate.settings_model import Settings

_LINE_SPLIT = lazy_pattern(r"\r\n|\r|\n")  # Python's (and LibCST's) line breaks


class FileResult(NamedTuple):
    """What the analysis found and the rewrite did in one file.

    Attributes:
        path: the file path as displayed.
        diagnostics: findings after ``# noqa`` and ``--select``/``--ignore``, sorted
            (with ``fix``: those not fixed).
        new_text: the rewritten source text, or ``None`` when nothing changed.
        fixed: how many calls the rewrite changed.
        imports: how many imports/references ``use_ppo_runtime`` moved to ``ppo_runtime``.
        index: the file's :class:`ppo_migrate.rules.callers.FileIndex` (built from the same
            parse as the diagnostics) when asked for and the file has a PPO002 entry point.
        origins: the :class:`ppo_migrate.diagnostics.CallerOrigin` records the rewrite's
            safe fixes rest on whose callers in the run's other files are not judged yet
            (the run's :attr:`ppo_migrate.project.references.References.caller_verdicts`):
            the rewrite holds only if none argues against.
        kept: ``apply --use-ppo-runtime`` left the file's imports on verl because a
            replacement of the function, or of a module its calls go through, reaches the
            file: the replacement's reason (``"tests/t.py:5 replaces the runtime function,
            whose replacement may take no config"``), else ``None``.
    """

    path: str
    diagnostics: tuple[Diagnostic, ...] = ()
    new_text: str | None = None
    fixed: int = 0
    imports: int = 0
    index: object | None = None
    origins: tuple = ()
    kept: str | None = None


def fix_applies(d: Diagnostic, settings: Settings) -> bool:
    """Whether ``apply`` makes ``d``'s fix: a safe fix always, an unsafe one only with
    ``--unsafe-fixes`` (``unsafe-fixes = true``), ruff's rule."""
    return d.fix is not None and (
        d.fix.applicability == "safe" or bool(getattr(settings, "unsafe_fixes", False))
    )


def process_text(
    text: str,
    path: str,
    settings: Settings,
    *,
    fix: bool,
    index_stamp: tuple[int, int] | None = None,
    replaces_file: bool = False,
    source=None,
) -> FileResult:
    """Analyse (and with ``fix``, rewrite) one module's source text.

    Args:
        text: the decoded source (no newline translation).
        path: the display path (it decides the module's package).
        settings: the run's settings.
        fix: rewrite the calls whose fixes apply (:func:`fix_applies`); the
            remaining diagnostics are returned.
        index_stamp: ``(st_mtime_ns, st_size)`` of the file the text was read from;
            given, and the file has a PPO002 entry point (:func:`has_entry_point`),
            the result carries the file's cross-file index record
            (:func:`ppo_migrate.rules.callers.index_file`) of the text as read.
        replaces_file: the rewritten text will replace the file (``apply``): a
            rewritten file gets no record (the caller phase reads its new text).
        source: the run's snapshot's file ``text`` is the text of
            (:class:`ppo_migrate.project.snapshot.SourceFile`): its ``ast`` and LibCST
            parses are used, each made once a run; else ``text`` is parsed here.

    Returns:
        A :class:`FileResult`.

    Raises:
        ppo_migrate.rules.module.SourceProblem: the text cannot be analysed
            (PPO902).
        ppo_migrate.codemod.UnparsableSource, libcst.ParserSyntaxError: only with
            ``use_ppo_runtime``, when LibCST cannot take the text for the import move.
    """
    module = parsed_source(source, path) if source is not None else parsed_here(path, index_stamp, text)
    analysis = ModuleAnalysis(text, path, settings, module=module)
    diagnostics = _judged(analysis.diagnostics())
    run_settings = settings  # the caller phase's (``_use_ppo_runtime`` may change ``settings``)

    def index(remaining: Sequence[Diagnostic]):
        """The record, unless nothing could use it: a file about to be rewritten (the
        caller phase reads its new text), a run in which PPO002, the rule whose hints
        need callers, is disabled, or a file without a PPO002 entry point of its own
        (issue 13, item 6: a record costs about as much as the analysis, and most runs
        have no caller phase at all). A file left without one is read and indexed by
        the caller phase itself if one runs and a name it follows appears in the file
        (:func:`ppo_migrate.rules.callers.plan`); the hints are the same."""
        if index_stamp is None or not run_settings.rule_enabled("PPO002"):
            return None
        if not has_entry_point(remaining):
            return None
        try:
            return index_file(analysis, path, run_settings, index_stamp)
        except Exception:  # noqa: BLE001
            # never this file's finding: the caller phase reads the file itself and
            # leaves it out of the hints as before, if it fails there too
            return None

    moved = 0
    base = text
    kept: str | None = None
    if fix and getattr(settings, "use_ppo_runtime", False):
        base, moved, moved_settings = _use_ppo_runtime(text, settings, analysis.module, source)
        patch = analysis.replacement() if moved else None
        if patch is not None:
            # a test double or a rebinding reaches the calls through verl's module or
            # name (``mock.patch("verl...get_...")``, ``launcher.constants_ppo = Fake``,
            # ``sys.modules[...]``): moved to ``ppo_runtime``, the calls would bypass it
            base, moved, kept = text, 0, patch.reason()
        elif moved and is_test_file(path):
            base, moved, kept = text, 0, TEST_KEEPS_VERL
        elif moved and (use := _constant_use(path, settings)):
            base, moved, kept = text, 0, f"`{display_path(use[0])}:{use[1]}` {CONSTANT_KEEPS_VERL}"
        elif moved:
            settings = moved_settings
            diagnostics = _judged(analyse(base, path, settings))
    if not fix:
        return FileResult(path, tuple(diagnostics), index=index(diagnostics))
    applied = [d for d in diagnostics if fix_applies(d, settings)]
    origins: tuple = ()
    verdicts = current_references().caller_verdicts  # the run's: ``None`` outside a run
    if verdicts is not None and not getattr(settings, "unsafe_fixes", False):
        # safe fixes resting on parameters whose callers in other files are not judged
        # yet: the rewrite is made, and written once they are (``ppo_migrate.cli.runner.run``)
        origins = tuple(sorted(pending_origins(applied, verdicts), key=repr))
    if not applied and not moved:
        return FileResult(path, tuple(diagnostics), index=index(diagnostics), kept=kept)
    remaining = tuple(d for d in diagnostics if not fix_applies(d, settings))
    edits = [e for d in applied for e in d.fix.edits]  # type: ignore[union-attr]
    new_text = apply_edits(base, edits)
    # apply writes ``new_text``: a record of the old text would be dropped unused
    return FileResult(
        path, remaining, new_text, len(applied), moved,
        None if replaces_file else index(remaining), origins, kept,
    )


#: Why ``apply --use-ppo-runtime`` leaves a test's import on verl (fresh user 44, B2): a test
#: calling the function itself may assert verl's own ``env_vars`` (verl drops a variable the
#: driver's shell sets; ``ppo_runtime`` forwards the driver's value), as the bundled
#: fixture's ``test_driver_value_is_not_overridden`` does; the code it launches moves.
#: Why ``apply --use-ppo-runtime`` moves nothing where the repository names verl's constant
#: (fresh user 44, B3: ``PPO_RAY_RUNTIME_ENV["env_vars"]["NCCL_NET"] = ...`` at import time):
#: ``ppo_runtime`` never reads it, so the calls moved would drop what was added to it.
CONSTANT_KEEPS_VERL = (
    "names verl's PPO_RAY_RUNTIME_ENV, which ppo_runtime does not read: what the project adds "
    "to it would be lost"
)
TEST_KEEPS_VERL = (
    "a test's file: it may assert verl's own env_vars, and ppo_runtime forwards the values "
    "the driver sets where verl drops them"
)

def _constant_use(path: str, settings: Settings) -> tuple[str, int] | None:
    """Where the repository of ``path`` names verl's ``PPO_RAY_RUNTIME_ENV``
    (:func:`ppo_migrate.project.constant_uses.runtime_constant_use`), or ``None``."""
    root = current().root_of(path) or os.path.dirname(os.path.abspath(path))
    return runtime_constant_use(root, settings.respect_gitignore)

def _judged(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    """``diagnostics`` with the run's judgement of callers in other files applied
    (:func:`ppo_migrate.rules.cross_file.with_verdicts`), when it has one (the run's
    reference index holds it: :attr:`ppo_migrate.project.references.References.caller_verdicts`)."""
    verdicts = current_references().caller_verdicts
    if not verdicts:
        return list(diagnostics)
    return with_verdicts(diagnostics, verdicts)


def has_entry_point(diagnostics: Sequence[Diagnostic]) -> bool:
    """Whether ``diagnostics`` hold a PPO002 inside a function (an entry point): what makes
    a run follow callers (:func:`ppo_migrate.rules.callers.follow_callers`)."""
    return any(d.code == "PPO002" and d.scope != "<module>" for d in diagnostics)


def _use_ppo_runtime(
    text: str, settings: Settings, parsed=None, source=None
) -> tuple[str, int, Settings]:
    """Move the runtime function's imports to ``ppo_runtime`` with LibCST.

    ``parsed``: ``text``'s :class:`ppo_migrate.rules.module.ParsedModule`: a module that
    imports nothing the move could move (:func:`_may_move`) is left without a LibCST parse.
    ``source``: the run's snapshot's file of ``text`` (its LibCST parse is made once a run).

    Returns:
        ``(text, moved, settings)``: the text with the imports moved (a tail LibCST
        does not print back is kept), how many were moved, and the settings with
        ``ppo_runtime``'s function among the targets (the moved calls resolve to it).
    """
    # not a cycle: only --use-ppo-runtime needs these (LibCST; import_sections' dataclasses)
    from ppo_migrate.edits.cst_calls import _exact_prefix, parse_module
    from ppo_migrate.edits.import_sections import import_sections
    from ppo_migrate.edits.imports import (
        FUNCTION,
        PPO_RUNTIME,
        VERL_MODULES,
        use_ppo_runtime,
    )

    if parsed is not None and not _may_move(parsed.facts, VERL_MODULES, FUNCTION):
        return text, 0, settings  # LibCST parses only a file that gets a structural edit
    module = source.cst(parse_module) if source is not None else parse_module(text)
    names = None
    if parsed is not None and module.code == text:  # the core's view of it, parsed already
        names = ModuleNames(text, module=parsed)
    targets = [t for t in settings.targets if t.startswith("verl.")]
    new_module, moved = use_ppo_runtime(
        module, targets, import_sections(settings.project_root), names=names
    )
    if not moved:
        return text, 0, settings
    _exact_prefix(text, module.code)
    moved_target = f"{PPO_RUNTIME}.{FUNCTION}"
    if moved_target not in settings.targets:
        settings = settings.replace(targets=(*settings.targets, moved_target))
    return new_module.code + text[len(module.code) :], moved, settings


def _may_move(facts, modules, function: str) -> bool:
    """Whether ``--use-ppo-runtime``'s move (:func:`ppo_migrate.edits.imports.use_ppo_runtime`)
    may change a module (its :class:`ppo_migrate.rules.module.ModuleFacts`): it imports
    ``function`` or ``*`` from one of ``modules``, or reads an attribute named ``function``
    (``c.get_ppo_ray_runtime_env``). A superset of what the move changes, judged on the
    ``ast`` (NFKC-folded names: more, never fewer)."""
    if any(a.attr == function for a in facts.attributes):
        return True
    return any(
        isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in modules
        and any(a.name in (function, "*") for a in node.names)
        for node in facts.imports
    )


def line_starts(text: str) -> list[int]:
    """Offsets at which each line of ``text`` starts (lines split at ``\\r\\n``, ``\\r``, ``\\n``)."""
    return [0, *(m.end() for m in _LINE_SPLIT.finditer(text))]


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """Splice edits into the original text; every other character stays as it was.

    Args:
        text: the text the edits' positions refer to.
        edits: non-overlapping edits; lines are split at ``\\r\\n``, ``\\r`` and
            ``\\n`` (as Python's tokenizer counts them), columns are 1-based code points.

    Returns:
        The edited text.

    Raises:
        ValueError: two edits overlap or one lies outside the text.
    """
    starts = line_starts(text)

    def offset(line: int, column: int) -> int:
        if not 1 <= line <= len(starts):
            raise ValueError(f"edit outside the text: line {line}")
        line_end = starts[line] if line < len(starts) else len(text)
        at = starts[line - 1] + column - 1
        if not starts[line - 1] <= at <= line_end:
            raise ValueError(f"edit outside the text: line {line}, column {column}")
        return at

    spans = sorted(
        (offset(e.line, e.column), offset(e.end_line, e.end_column), e.content) for e in edits
    )
    out: list[str] = []
    last = 0
    for begin, end, content in spans:
        if begin < last or end < begin:
            raise ValueError("overlapping edits")
        out.append(text[last:begin])
        out.append(content)
        last = end
    out.append(text[last:])
    return "".join(out)


__all__ = [
    "FileResult", "apply_edits", "fix_applies", "has_entry_point", "line_starts", "process_text",
]
