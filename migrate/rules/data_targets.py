"""Patch targets kept in the tests' data files: test code the replacement table reads.

Trial 26e (issue 26, family 4, ``e4e_patch_targets_from_yaml``): a ``conftest.py`` loads
``tests/fakes.yaml`` (``launcher.get_ppo_ray_runtime_env: tests.fakes.no_ray_env``) and
runs ``monkeypatch.setattr(target, fake)`` for each entry: the test replaces the launcher's
function with a zero-argument fake, yet no Python file spells the target. A dotted name
ending in the runtime function's name (or another name the table looks for) in a data file
under a test folder is read as what a string constant holding it in a test file is
(:func:`ppo_migrate.rules.patches.target_patches`): a replacement of the function in the
module it names.

Bounds: the files are the run's one walk of the repository
(:func:`ppo_migrate.project.tree.repository_listing`: ignored folders and test data
folders are not in it) whose path has a test folder (``tests``, ``test``, ``testing``) and
a data suffix (:data:`DATA_SUFFIXES`); each is read once through the run's snapshot, and
only when its bytes spell a name looked for. A Hydra ``_target_`` line is a call site
(PPO006 of :mod:`ppo_migrate.rules.hydra_targets`), not a patch target.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence

from ppo_migrate.project.repository import files_holding

#: The suffixes of data files read for patch targets, lower-cased.
DATA_SUFFIXES: tuple[str, ...] = (".yaml", ".yml", ".json", ".toml", ".ini", ".cfg")
#: The folder names that make a file test code (as :func:`ppo_migrate.rules.patches` counts).
TEST_FOLDERS = frozenset({"tests", "test", "testing"})
#: A data file larger than this (bytes) is a data set, not read.
MAX_DATA_BYTES = 1_000_000


def _is_data_file(name: str) -> bool:
    """Whether a file named ``name`` is a data file (:data:`DATA_SUFFIXES`)."""
    return name.lower().endswith(DATA_SUFFIXES)


def _is_test_data(path: str) -> bool:
    parts = os.path.normpath(path).split(os.sep)
    return parts[-1].lower().endswith(DATA_SUFFIXES) and any(p in TEST_FOLDERS for p in parts[:-1])


def dotted_targets(data: bytes, functions: Iterable[str]) -> Iterator[tuple[str | None, int]]:
    """The dotted names in ``data`` that end in one of ``functions``: ``(module, line)``.

    Args:
        data: a data file's bytes (any text encoding with ASCII names: UTF-8, Latin-1).
        functions: the function names the replacement table looks for.

    Yields:
        ``("launcher", 2)`` for ``launcher.get_ppo_ray_runtime_env`` on line 2 (``None``
        as the module for a bare name after no dot is never yielded: a bare name in data
        names nothing to patch), one per line, skipping lines holding ``_target_``.
    """
    words = sorted({f.encode() for f in functions})
    if not words:
        return
    pattern = re.compile(rb"(?<![\w.])((?:[A-Za-z_]\w*\.)+)(?:" + b"|".join(map(re.escape, words)) + rb")\b")
    for number, line in enumerate(data.splitlines(), 1):
        if b"_target_" in line:
            continue
        m = pattern.search(line)
        if m is not None:
            yield m.group(1)[:-1].decode("ascii", "replace"), number


def data_targets(
    candidates: Sequence[str], functions: Iterable[str], read: Callable[[str], bytes]
) -> list[tuple[str, str | None, int]]:
    """The patch targets the repository's test data files name.

    Args:
        candidates: the files naming the runtime function (the prefilter's); the repository
            is the one the look-out for doubles walks
            (:func:`ppo_migrate.project.repository.doubles_root`).
        functions: the function names the replacement table looks for.
        read: the run's reader (:meth:`ppo_migrate.project.snapshot.Snapshot.read_bytes`).

    Returns:
        ``(display path, module, line)`` for each dotted target, in the listing's order; the
        path relative to the working directory when below it. A file that cannot be read or
        is larger than :data:`MAX_DATA_BYTES` is left out. Never raises ``OSError``.
    """
    functions = frozenset(functions)
    words = [f.encode() for f in functions]
    out: list[tuple[str, str | None, int]] = []
    for path, shown, data in files_holding(candidates, _is_data_file, words, MAX_DATA_BYTES, read):
        if _is_test_data(path):
            out.extend((shown, module, line) for module, line in dotted_targets(data, functions))
    return out


__all__ = ["DATA_SUFFIXES", "data_targets", "dotted_targets"]
