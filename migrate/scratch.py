"""Where a preview's scratch copy stands: paths in the copy mapped back to the real tree.

``apply --thread-config --diff`` runs the rewrite in a scratch copy of the files
(:func:`ppo_migrate.preview.run_in_copy`). Everything that reads the project around
a file (the verl version it pins, an in-tree copy of verl, import-sorting settings)
must read the real project, not the copy: it asks :func:`original_path` and
:func:`original_cwd`. Outside a preview both are plain (an environment lookup, no
other import), so the hot path of every run pays nothing for them.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Set while a preview's job runs: JSON ``[scratch working directory, original working
#: directory]`` (both absolute); see :func:`original_path`.
PREVIEW_ENV = "PPO_MIGRATE_PREVIEW_OF"


def _mapping() -> tuple[Path, Path] | None:
    raw = os.environ.get(PREVIEW_ENV)
    if not raw:
        return None
    import json

    try:
        scratch, original = json.loads(raw)
    except (ValueError, TypeError):
        return None
    return Path(scratch), Path(original)


def original_path(path: str | os.PathLike[str]) -> Path:
    """The path in the real tree that ``path`` stands for.

    Args:
        path: a file or directory path (relative paths are taken from the working
            directory).

    Returns:
        During a preview (:func:`run_in_copy`), a path inside the scratch copy mapped
        to the original file or directory at the same relative path under the real
        working directory; otherwise (and for paths outside the copy) ``path`` made
        absolute. Never resolves symlinks.
    """
    absolute = Path(os.path.abspath(path))
    mapping = _mapping()
    if mapping is None:
        return absolute
    scratch, original = mapping
    try:
        rel = absolute.relative_to(scratch)
    except ValueError:
        return absolute
    return original / rel if rel.parts else original


def original_cwd() -> Path:
    """The working directory of the real run: during a preview the directory the scratch
    copy mirrors, else the current working directory (display paths are relative to it)."""
    mapping = _mapping()
    return mapping[1] if mapping is not None else Path.cwd()


def in_preview() -> bool:
    """Whether a preview's job is running in this process (or its parent)."""
    return bool(os.environ.get(PREVIEW_ENV))


__all__ = ["PREVIEW_ENV", "in_preview", "original_cwd", "original_path"]
