"""Where isort and ruff's ``I001`` put an import: its section and its sort key.

Used by ``apply --use-ppo-runtime`` to place ``from ppo_runtime import ...`` where the
project's import sorter would, so that an isort/ruff-clean file stays clean.

Sections, in order (isort's and ruff's defaults): ``__future__``, the standard
library (:data:`sys.stdlib_module_names`), third-party, first-party, local (relative
imports). First-party: a top-level name listed in ``known-first-party``, or a package
or module found in one of the project's source roots (ruff's ``src``, default the
project root and ``src/``; isort's ``src_paths``); ``known-third-party`` wins over
both. Settings are read from ``[tool.ruff.lint.isort]``/``[tool.ruff.isort]`` and
``[tool.ruff] src`` in ``pyproject.toml`` (or ``[lint.isort]``/``[isort]``/``src`` in
``ruff.toml``/``.ruff.toml``), else from ``[tool.isort]``.

Within a section, with ``force-sort-within-sections`` off (the default of both),
every ``import x`` precedes every ``from x import y`` (the other way round with
``from-first``); each kind is ordered by module name, ignoring case. Also read:
``known-local-folder`` (those names go to the local section) and ``no-sections``
(every import but ``__future__`` in one section).
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ppo_migrate.project.snapshot import current

FUTURE, STDLIB, THIRD_PARTY, FIRST_PARTY, LOCAL = range(5)


@dataclass(frozen=True)
class ImportSections:
    """The project's import-sorting settings that decide an import's place.

    Attributes:
        first_party: top-level names listed as first-party.
        third_party: top-level names listed as third-party.
        src: directories whose packages and modules are first-party.
        force_sort_within_sections: sort ``import x`` and ``from x import y`` together.
        local_folder: top-level names listed as local (``known-local-folder``).
        no_sections: one section for every import but ``__future__``.
        from_first: ``from x import y`` before ``import x`` within a section.
    """

    first_party: frozenset[str] = frozenset()
    third_party: frozenset[str] = frozenset()
    src: tuple[Path, ...] = field(default=())
    force_sort_within_sections: bool = False
    local_folder: frozenset[str] = frozenset()
    no_sections: bool = False
    from_first: bool = False

    def section(self, module: str, *, relative: bool = False) -> int:
        """The section rank (``FUTURE`` .. ``LOCAL``) of an import of ``module``."""
        top = module.split(".")[0]
        if top == "__future__" and not relative:
            return FUTURE
        if self.no_sections:
            return STDLIB
        if relative or top in self.local_folder:
            return LOCAL
        if top in self.third_party:
            return THIRD_PARTY
        if top in self.first_party:
            return FIRST_PARTY
        if top in sys.stdlib_module_names:
            return STDLIB
        for root in self.src:
            if (root / top).is_dir() or (root / f"{top}.py").is_file():
                return FIRST_PARTY
        return THIRD_PARTY

    def key(self, module: str, *, is_from: bool, relative: bool = False) -> tuple:
        """Sort key of an import line: section, then kind, then name (case ignored)."""
        kind = 0 if self.force_sort_within_sections else int(is_from != self.from_first)
        return (self.section(module, relative=relative), kind, module.lower(), module)


def _load_toml(path: Path) -> dict:
    import tomllib
    try:
        return tomllib.loads(current().read_text(path))  # read once a run (issue 26)
    except (OSError, ValueError):
        return {}


def import_sections(project_root: Path | None) -> ImportSections:
    """:func:`read_import_sections`, read once per project root and process."""
    return _cached(str(Path(project_root).resolve()) if project_root else "")


@functools.lru_cache(maxsize=16)
def _cached(root: str) -> ImportSections:
    return read_import_sections(Path(root) if root else None)


def read_import_sections(project_root: Path | None) -> ImportSections:
    """Read the import-sorting settings of the project at ``project_root``.

    Args:
        project_root: the directory of the project's ``pyproject.toml``; ``None``
            for no project (defaults: the working directory as the only source root).

    Returns:
        The :class:`ImportSections`; unreadable or absent files give the defaults.
    """
    if project_root:
        root = Path(project_root)
    else:  # the working directory
        root = Path.cwd()
    ruff: dict | None = None
    for name in ("ruff.toml", ".ruff.toml"):
        if (root / name).is_file():
            ruff = _load_toml(root / name)
            break
    pyproject = _load_toml(root / "pyproject.toml") if (root / "pyproject.toml").is_file() else {}
    tool = pyproject.get("tool", {})
    if ruff is None and "ruff" in tool:
        ruff = tool["ruff"]
    if ruff is not None:
        isort = ruff.get("lint", {}).get("isort") or ruff.get("isort") or {}
        src = ruff.get("src", [".", "src"])
        return ImportSections(
            frozenset(isort.get("known-first-party", ())),
            frozenset(isort.get("known-third-party", ())),
            tuple(root / s for s in src),
            bool(isort.get("force-sort-within-sections", False)),
            frozenset(isort.get("known-local-folder", ())),
            bool(isort.get("no-sections", False)),
            bool(isort.get("from-first", False)),
        )
    isort = tool.get("isort", {})
    return ImportSections(
        frozenset(isort.get("known_first_party", ())),
        frozenset(isort.get("known_third_party", ())),
        tuple(root / s for s in isort.get("src_paths", (".",))),
        bool(isort.get("force_sort_within_sections", False)),
        frozenset(isort.get("known_local_folder", ())),
        bool(isort.get("no_sections", False)),
        bool(isort.get("from_first", False)),
    )
