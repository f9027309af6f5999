"""The cross-file index: classes of other files, found by qualified name.

``self.config`` is often assigned in a base class defined in another file of the
project (``class Launcher(TrainerBase)`` whose ``TrainerBase.__init__`` in
``pkg/base.py`` sets it). When a base class of the method's class resolves to an
import (``from .base import TrainerBase``, ``import pkg.base as b; b.TrainerBase``),
:class:`ClassIndex` finds the module's file the way Python would find it from the
calling file's package root (``<root>/pkg/base.py`` or ``<root>/pkg/base/__init__.py``:
the run's one resolver, :func:`ppo_migrate.project.references.module_file`), parses it
with the same core (:class:`ppo_migrate.rules.check.ModuleAnalysis`, which the index
is handed: check builds the index, so the index does not import check), never importing
or executing it, and hands back the class definition with the analysis that can judge
its assignments. The analyses are kept by the run's reference index
(:attr:`ppo_migrate.project.references.References.classes`; outside a run, the process's):
each file is parsed at most once a run (the pool's workers each keep their own).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ppo_migrate.rules.module import SourceProblem, parsed_source
from ppo_migrate.files import UnreadableFile
from ppo_migrate.project.references import current_references, module_file
from ppo_migrate.project.snapshot import current

if TYPE_CHECKING:
    from ppo_migrate.rules.check import ModuleAnalysis
    from ppo_migrate.settings_model import Settings

#: The analyses are kept under ``(path, st_mtime_ns, st_size, follow_values)``: the analysis
#: a file's settings judge with (``Settings.follow_values``: the differential test's two
#: judgements of one tree, in one process, must not share another file's)


class ClassIndex:
    """Class definitions of the project's other files, by absolute qualified name.

    Args:
        root: the package root the calling file's imports resolve from
            (:func:`ppo_migrate.project.references.package_root`); ``None`` disables
            cross-file lookups.
        settings: the run's settings (the other file's analysis uses them).
        analyse: makes the other file's analysis, called as
            ``analyse(text, path, settings, package=package)``
            (:class:`ppo_migrate.rules.check.ModuleAnalysis`).
    """

    def __init__(
        self, root: Path | None, settings: Settings, analyse: Callable[..., ModuleAnalysis]
    ) -> None:
        self.root = root
        self.settings = settings
        self.analyse = analyse

    def _module_of(self, qualified: str) -> tuple[ModuleAnalysis, str] | None:
        """The analysis of the project module holding ``qualified`` and the name's last part,
        or ``None`` (no project root, no dotted name, no such file, a file that fails)."""
        if self.root is None or "." not in qualified:
            return None
        module, _, name = qualified.rpartition(".")
        path = module_file(self.root, module)
        if path is None:
            return None
        analysis = self._analysis(path, module)
        return None if analysis is None else (analysis, name)

    def find_class(self, qualified: str) -> tuple[ModuleAnalysis, ast.ClassDef] | None:
        """The top-level class ``qualified`` (``pkg.base.TrainerBase``) and its module's
        analysis, or ``None`` when no file of the project defines exactly one such class."""
        found = self._module_of(qualified)
        if found is None:
            return None
        analysis, name = found
        defs = [
            s for s in analysis.module.tree.body if isinstance(s, ast.ClassDef) and s.name == name
        ]
        return (analysis, defs[0]) if len(defs) == 1 else None

    def find_function(self, qualified: str) -> tuple[ModuleAnalysis, ast.FunctionDef] | None:
        """The top-level function ``qualified`` (``pkg.sections.logging_section``) of a
        project module and that module's analysis, or ``None`` when no file of the project
        defines exactly one such ``def`` there (no other binding of the name either)."""
        found = self._module_of(qualified)
        if found is None:
            return None
        analysis, name = found
        defs = [
            s for s in analysis.module.tree.body
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and s.name == name
        ]
        if len(defs) != 1 or not isinstance(defs[0], ast.FunctionDef):
            return None
        assigned = any(
            isinstance(t, ast.Name) and t.id == name
            for s in analysis.module.tree.body if isinstance(s, (ast.Assign, ast.AnnAssign))
            for t in (s.targets if isinstance(s, ast.Assign) else [s.target])
        )
        return None if assigned else (analysis, defs[0])

    def _analysis(self, path: Path, module: str) -> ModuleAnalysis | None:
        try:
            stamp = current().stamp(path)  # once a run; an overlaid file's own stamp in a preview
        except (OSError, ValueError):
            return None
        follow = getattr(self.settings, "follow_values", True)
        key = (str(path), *stamp, follow)
        kept = current_references().classes
        if key in kept:
            return kept[key]
        result: ModuleAnalysis | None
        try:
            source = current().source(path)  # read and parsed once a run
            package = tuple(module.split(".")[:-1]) if path.name != "__init__.py" else tuple(
                module.split(".")
            )
            result = self.analyse(
                source.text, str(path), self.settings, package=package, module=parsed_source(source, str(path))
            )
        except (UnreadableFile, SourceProblem, UnicodeDecodeError, SyntaxError, LookupError,
                ValueError, RecursionError):
            result = None
        current_references().keep_class_module(key, result)
        return result


def parsed_here(path: str, stamp: tuple[int, int] | None, text: str):
    """The parse :class:`ClassIndex` already made of this file in this process, if any.

    A file analysed for itself may have been parsed before as the module of another
    file's base class (issue 13: no file parsed twice in a run); its
    :class:`ppo_migrate.rules.module.ParsedModule` is reused when the file is the same
    (absolute path, ``st_mtime_ns``, ``st_size``) and so is its text. Nothing more is kept
    than the class index keeps already.

    Args:
        path: the display path (``"-"``/``""``: standard input, never cached).
        stamp: ``(st_mtime_ns, st_size)`` of the bytes read, or ``None``.
        text: the decoded text about to be analysed.

    Returns:
        The ``ParsedModule``, or ``None``.
    """
    kept = current_references().classes
    if stamp is None or not path or path == "-" or not kept:
        return None
    where = str(Path(path).absolute())
    found = kept.get((where, *stamp, True)) or kept.get((where, *stamp, False))
    if found is None or found.module.text != text:
        return None
    return found.module


__all__ = ["ClassIndex", "parsed_here"]
