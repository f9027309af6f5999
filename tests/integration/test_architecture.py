"""The package's layers (issue 26): import-linter's contracts of ``pyproject.toml``
(``[tool.importlinter]``: the judging modules import no CLI, runner, output or adapter, nor
an I/O module (tempfile, subprocess, shutil, glob, zipfile); no
cycle between the siblings of any package) and no import cycle among ppo_migrate's modules.

Both read the import graph grimp builds from every import statement, those inside functions
included (:func:`test_grimp_counts_an_import_made_inside_a_function`); imports under
``if TYPE_CHECKING:`` never run and are left out, as the contracts' configuration says.
"""

from __future__ import annotations

from pathlib import Path

import grimp  # the test extra installs import-linter, and grimp with it
import pytest
from importlinter import api  # noqa: F401  (configures import-linter, as lint-imports does)
from importlinter.application import use_cases

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def _graph(package: str = "ppo_migrate"):
    return grimp.build_graph(package, cache_dir=None, exclude_type_checking_imports=True)


def cycles(graph) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """The import cycles of ``graph``: for each strongly connected component of more than
    one module, its modules (sorted) and the shortest cycle through them found (importer
    first, back to it). An import ``a -> b`` lies on a cycle when ``b`` reaches ``a``."""
    groups: list[tuple[set[str], tuple[str, ...]]] = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is None:
                continue
            cycle = (importer, *back)
            members = set(cycle)
            joined = [g for g in groups if g[0] & members]  # cycles sharing a module: one component
            for g in joined:
                groups.remove(g)
                members |= g[0]
            groups.append((members, min([*(g[1] for g in joined), cycle], key=len)))
    return sorted((tuple(sorted(m)), c) for m, c in groups)


def _shown(found) -> str:
    return "\n".join(f"{len(m)} modules {', '.join(m)}; e.g. {' -> '.join(c)}" for m, c in found)


def test_the_import_linter_contracts_are_kept(capsys: pytest.CaptureFixture[str]) -> None:
    """``lint-imports`` in process: a broken contract prints the imports that break it."""
    kept = use_cases.lint_imports(config_filename=str(PYPROJECT), cache_dir=None)
    report = capsys.readouterr().out
    assert kept, report
    assert "Contracts: 3 kept, 0 broken." in report, report


def test_no_import_cycle_among_the_package_s_modules() -> None:
    """Stronger than ``acyclic_siblings`` where it looks: a package's ``__init__`` and its
    own modules (``ppo_migrate.analysis`` and ``ppo_migrate.analysis.check``) are no
    siblings, and no strongly connected component of the graph may hold two modules."""
    graph = _graph()
    assert "ppo_migrate.analysis.check" in graph.modules  # the package's modules were read
    found = cycles(graph)
    assert not found, "import cycles:\n" + _shown(found)


def test_grimp_counts_an_import_made_inside_a_function(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The premise of both tests: a cycle hidden in a function-local import is a cycle."""
    package = tmp_path / "hidden_cycle"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from hidden_cycle import b\n")
    (package / "b.py").write_text("def later():\n    from hidden_cycle.a import b\n    return b\n")
    (package / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from hidden_cycle import a\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = _graph("hidden_cycle")
    assert graph.find_modules_directly_imported_by("hidden_cycle.b") == {"hidden_cycle.a"}
    assert graph.find_modules_directly_imported_by("hidden_cycle.c") == set()
    assert cycles(graph) == [
        (("hidden_cycle.a", "hidden_cycle.b"), ("hidden_cycle.a", "hidden_cycle.b", "hidden_cycle.a"))
    ]
