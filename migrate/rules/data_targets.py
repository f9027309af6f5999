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

Trial 26g (G-B13, ``k5_overrides_from_yaml_dotted``): an override table outside the tests
(``conf/overrides.yaml``: ``verl.trainer.constants_ppo:get_ppo_ray_runtime_env:
compat:legacy_ray_env``, applied at start-up by ``setattr(import_module(m), a, ...)``). A
target may be spelled ``module:attr`` (the entry-point notation, ``pkg_resources`` and
``importlib.metadata``'s ``EntryPoint.value``) as well as dotted; in a data file outside the
test folders a line counts when it maps the target to another qualified name (``=`` or
``:`` then ``module:attr`` or ``module.attr``): an override, not a mere mention.
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


#: what follows a target that an override table maps to a replacement: a quote, then ``:``
#: or ``=``, then a qualified name (``module:attr`` or ``module.attr``, quoted or not)
_OVERRIDE_VALUE = re.compile(rb"""['"]?\s*[:=]\s*['"]?[A-Za-z_][\w.]*[.:][A-Za-z_]\w*""")


def dotted_targets(
    data: bytes, functions: Iterable[str], overrides: bool = False
) -> Iterator[tuple[str | None, int]]:
    """The dotted names in ``data`` that end in one of ``functions``: ``(module, line)``.
    ``module:function`` counts as ``module.function`` does.

    Args:
        data: a data file's bytes (any text encoding with ASCII names: UTF-8, Latin-1).
        functions: the function names the replacement table looks for.
        overrides: only a target mapped to another qualified name on its line
            (:data:`_OVERRIDE_VALUE`: a data file outside the test folders).

    Yields:
        ``("launcher", 2)`` for ``launcher.get_ppo_ray_runtime_env`` on line 2 (``None``
        as the module for a bare name after no dot is never yielded: a bare name in data
        names nothing to patch), one per line, skipping lines holding ``_target_``.
    """
    words = sorted({f.encode() for f in functions})
    if not words:
        return
    pattern = re.compile(
        rb"(?<![\w.])((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*[.:])(?:" + b"|".join(map(re.escape, words)) + rb")\b"
    )
    for number, line in enumerate(data.splitlines(), 1):
        if b"_target_" in line:
            continue
        m = pattern.search(line)
        if m is not None and (not overrides or _OVERRIDE_VALUE.match(line, m.end())):
            yield m.group(1)[:-1].decode("ascii", "replace"), number


def data_targets(
    candidates: Sequence[str], functions: Iterable[str], read: Callable[[str], bytes]
) -> list[tuple[str, str | None, int]]:
    """The patch targets the repository's test data files name, and the overrides its other
    data files map (:func:`dotted_targets`).

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
        overrides = not _is_test_data(path)
        out.extend((shown, module, line) for module, line in dotted_targets(data, functions, overrides))
    return out


__all__ = ["DATA_SUFFIXES", "data_targets", "dotted_targets"]
