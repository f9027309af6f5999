"""Real source corpora for the analysis-core tests: the standard library's and torch's files.

(A module of its own, not ``conftest``: ``tests/runtime`` has a ``conftest`` too, and
``from conftest import ...`` would get whichever pytest imported first.)"""

from __future__ import annotations

import importlib.util
import sysconfig
from pathlib import Path


def python_files(root: Path) -> list[Path]:
    """Every ``.py`` file under ``root``, sorted by path (deterministic samples)."""
    return sorted(p for p in root.rglob("*.py") if p.is_file())


def stdlib_files() -> list[Path]:
    """The standard library's own ``.py`` files (``site-packages`` excluded)."""
    root = Path(sysconfig.get_paths()["stdlib"])
    return [p for p in python_files(root) if "site-packages" not in p.parts]


def torch_files() -> list[Path]:
    """torch's ``.py`` files (the installed CPU wheel), or [] when torch is not installed."""
    spec = importlib.util.find_spec("torch")  # located, not imported (torch is slow to import)
    if spec is None or not spec.submodule_search_locations:  # pragma: no cover - a test extra
        return []
    return python_files(Path(next(iter(spec.submodule_search_locations))))
