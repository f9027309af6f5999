"""basedpyright as an oracle for the flow and config tests, run once for all of them.

basedpyright is slow to start (its own start-up and the standard library's stubs: seconds
of CPU before the first file), so the tests that ask it do not run it each. Each registers
a *case* (:func:`case`): a function that writes its modules into a folder of its own and
returns what its test needs afterwards. The session fixture ``basedpyright_cases``
(``tests/rules/conftest.py``) makes every registered case's folder under one root, runs
``basedpyright --outputjson`` once over the root, and hands each test its own state and the
diagnostics basedpyright gave in its folder. The tests that use it share one pytest-xdist
worker (``xdist_group("basedpyright")``), so the run is made once.

(A module of its own, not ``conftest``: the test modules import it, see ``corpora.py``.)
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

#: basedpyright's rules of a name that may not be bound where it is read: the
#: possibly-unbound rule under both of its names (pyright renamed it; basedpyright >= 1.20
#: knows only ``reportPossiblyUnboundVariable``, and ignored the old name alone)
RULES = frozenset({"reportPossiblyUnbound", "reportPossiblyUnboundVariable",
                   "reportUnboundVariable", "reportUndefinedVariable"})
#: the configuration of the one run: every other check off; an import it cannot resolve
#: (``verl`` is not installed beside the generated modules) is no diagnostic
CONFIG = {
    "typeCheckingMode": "off",
    **{rule: "error" for rule in sorted(RULES)},
    "reportMissingImports": "none",
    "pythonVersion": f"{sys.version_info[0]}.{sys.version_info[1]}",
}


class Prepared(NamedTuple):
    """What a case's writer returns: the number of modules it wrote into its folder (the
    run must analyse exactly these) and the state its test reads afterwards."""

    files: int
    state: Any


class Answer(NamedTuple):
    """One case's part of the run: its writer's state and, for every diagnostic of
    :data:`RULES` in its folder, ``(file name, 1-based line, 0-based column)``."""

    state: Any
    flagged: frozenset[tuple[str, int, int]]


_CASES: dict[str, Callable[[Path], Prepared]] = {}


def case(name: str) -> Callable[[Callable[[Path], Prepared]], Callable[[Path], Prepared]]:
    """Register ``write(folder) -> Prepared`` as the case ``name`` (a folder name)."""

    def register(write: Callable[[Path], Prepared]) -> Callable[[Path], Prepared]:
        assert name not in _CASES or _CASES[name] is write, f"two cases named {name!r}"
        _CASES[name] = write
        return write

    return register


def _executable() -> str | None:
    return shutil.which("basedpyright", path=str(Path(sys.executable).parent)) or shutil.which(
        "basedpyright")


def run_cases(root: Path) -> dict[str, Answer]:
    """Write every registered case into ``root/<name>/``, run basedpyright once over
    ``root`` and split its diagnostics by case. Skips (pytest) without basedpyright;
    fails when basedpyright analysed another number of files than the cases wrote."""
    exe = _executable()
    if exe is None:
        pytest.skip("basedpyright is not installed (pip install -e '.[test]')")
    prepared = {}
    for name, write in sorted(_CASES.items()):
        folder = root / name
        folder.mkdir()
        prepared[name] = write(folder)
    (root / "pyrightconfig.json").write_text(json.dumps(CONFIG), encoding="utf-8")
    proc = subprocess.run([exe, "--outputjson", str(root)], capture_output=True, text=True,
                          timeout=900, cwd=root, check=False)  # exit 1: it found errors
    report = json.loads(proc.stdout)
    assert report["summary"]["filesAnalyzed"] == sum(p.files for p in prepared.values())
    flagged: dict[str, set[tuple[str, int, int]]] = {name: set() for name in prepared}
    for d in report["generalDiagnostics"]:
        if d.get("rule") not in RULES:
            continue
        path = Path(d["file"]).relative_to(root)
        flagged[path.parts[0]].add(
            (path.name, d["range"]["start"]["line"] + 1, d["range"]["start"]["character"]))
    return {name: Answer(p.state, frozenset(flagged[name])) for name, p in prepared.items()}
