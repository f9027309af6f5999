"""The package's layers (issue 26): import-linter's contracts of ``pyproject.toml``
(``[tool.importlinter]``: the judging modules import no CLI, runner, output or adapter, nor
an I/O module (tempfile, subprocess, shutil, glob, zipfile); no
cycle between the siblings of any package), no import cycle among ppo_migrate's modules, and
no file-system call in the judging modules (:func:`io_calls`).

The first two read the import graph grimp builds from every import statement, those inside functions
included (:func:`test_grimp_counts_an_import_made_inside_a_function`); imports under
``if TYPE_CHECKING:`` never run and are left out, as the contracts' configuration says.
"""

from __future__ import annotations

import ast
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
    assert "Contracts: 4 kept, 0 broken." in report, report


def test_judging_reads_no_settings_is_a_contract_on_every_analysis_module() -> None:
    """Issue 26: ``judging-reads-no-settings`` forbids ``ppo_migrate.rules`` (the package
    and every module under it, directly or through another module) the settings loader;
    the analysis imports :mod:`ppo_migrate.settings_model` instead (the preview's scratch
    mapping it once also read is gone: issue 26 step 7, the overlay)."""
    import tomllib

    contracts = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]["contracts"]
    found = {c["id"]: c for c in contracts}["judging-reads-no-settings"]
    assert (found["type"], found["source_modules"]) == ("forbidden", ["ppo_migrate.rules"])
    assert found["forbidden_modules"] == ["ppo_migrate.cli.settings"]
    assert not found.get("allow_indirect_imports", False)
    graph = _graph()
    reached = {
        module: graph.find_shortest_chain(importer=module, imported="ppo_migrate.cli.settings")
        for module in sorted(graph.find_children("ppo_migrate.rules"))
    }
    assert {m: chain for m, chain in reached.items() if chain} == {}
    assert graph.find_shortest_chain(
        importer="ppo_migrate.rules.signatures", imported="ppo_migrate.settings_model"
    ) == ("ppo_migrate.rules.signatures", "ppo_migrate.settings_model")


def test_no_import_cycle_among_the_package_s_modules() -> None:
    """Stronger than ``acyclic_siblings`` where it looks: a package's ``__init__`` and its
    own modules (``ppo_migrate.rules`` and ``ppo_migrate.rules.check``) are no
    siblings, and no strongly connected component of the graph may hold two modules."""
    graph = _graph()
    assert "ppo_migrate.rules.check" in graph.modules  # the package's modules were read
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


# -- judging does no I/O (issue 26) ------------------------------------------------------
# ``migrate/rules`` asks the run's snapshot (:mod:`ppo_migrate.project.snapshot`: bytes,
# text) and its :class:`ppo_migrate.project.filesystem.FileSystem` (stat, listings, walks,
# archive members), which answer once a run. The contract ``judging-does-no-io`` forbids the
# I/O *modules* (tempfile, subprocess, shutil, glob, zipfile); the check below forbids the I/O
# *calls* that need no import (a builtin, ``os``, a ``Path`` method): FORBIDDEN_CALLS and
# FORBIDDEN_METHODS, spelled exactly. Such a method is allowed on the snapshot's objects only
# (SNAPSHOT_RECEIVERS: ``current().read_bytes(path)``, ``fs.is_file(path)``). What is not
# converted yet is listed in ALLOWED (``file:function``, with why), so what is left stays
# visible; an entry that no longer has a forbidden call fails the test (the list only shrinks).

ANALYSIS = Path(__file__).resolve().parents[2] / "migrate" / "rules"

#: Calls by their dotted spelling (as written: ``os.path.isfile(p)``).
FORBIDDEN_CALLS = frozenset({
    "open", "io.open", "builtins.open",
    "os.walk", "os.scandir", "os.listdir", "os.stat", "os.lstat",
    "os.path.isfile", "os.path.isdir", "os.path.exists", "os.path.lexists", "os.path.islink",
    "os.path.getsize", "os.path.getmtime", "os.path.realpath",
    "importlib.metadata.distribution", "importlib.metadata.version",
    "importlib.metadata.distributions", "importlib.util.find_spec",
})
#: Methods of ``pathlib.Path`` that ask the disk (``p.is_file()``, ``root.glob("*.txt")``).
FORBIDDEN_METHODS = frozenset({
    "read_text", "read_bytes", "stat", "lstat", "is_file", "is_dir", "exists", "iterdir",
    "glob", "rglob", "open", "resolve",
})
#: Receivers whose methods of those names are the snapshot's (``current().read_text(p)``).
SNAPSHOT_RECEIVERS = frozenset({
    "current()", "current().fs", "snapshot", "snapshot.fs", "fs", "_fs()", "self.fs",
})

#: ``file:function`` -> why it still does its own I/O. Each is left for a later step.
ALLOWED: dict[str, str] = {}


def _dotted(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def io_calls(source: str) -> list[tuple[str, int, str]]:
    """The forbidden calls of a module's source: ``(enclosing function's qualified name or
    "<module>", line, spelling)``.

    Args:
        source: a module's text.
    """
    found: list[tuple[str, int, str]] = []

    def visit(node: ast.AST, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = child.name if scope == "<module>" else f"{scope}.{child.name}"
                visit(child, inner)
                continue
            if isinstance(child, ast.Call):
                dotted = _dotted(child.func)
                if dotted in FORBIDDEN_CALLS:
                    found.append((scope, child.lineno, f"{dotted}()"))
                elif isinstance(child.func, ast.Attribute) and child.func.attr in FORBIDDEN_METHODS:
                    receiver = ast.unparse(child.func.value)
                    if receiver not in SNAPSHOT_RECEIVERS:
                        found.append((scope, child.lineno, f"{receiver}.{child.func.attr}()"))
            visit(child, scope)

    visit(ast.parse(source), "<module>")
    return found


def _violations() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for path in sorted(ANALYSIS.glob("*.py")):
        for scope, line, spelling in io_calls(path.read_text(encoding="utf-8")):
            out.setdefault(f"{path.name}:{scope}", []).append(f"{path.name}:{line}: {spelling}")
    return out


def test_the_checker_catches_each_spelling() -> None:
    """A negative example: every forbidden form is reported, the snapshot's are not."""
    source = '''
import os
from pathlib import Path

def reads(p):
    with open(p) as f:
        f.read()
    os.path.isfile(p); os.path.exists(p); os.path.lexists(p); os.path.isdir(p)
    for _ in os.walk(p): pass
    os.listdir(p); os.scandir(p)
    Path(p).read_text(); p.read_bytes(); p.stat(); p.is_file(); p.is_dir(); p.exists()
    p.glob("*.txt"); os.path.realpath(p); p.resolve()

class K:
    def m(self, p):
        return self.root.is_file()

def fine(p):
    current().read_bytes(p); current().fs.is_file(p); fs.walk(p); _fs().stat(p); fs.realpath(p)
    os.path.join(p, "x"); p.name.startswith("x")
'''
    found = io_calls(source)
    assert [s for _, _, s in found] == [
        "open()", "os.path.isfile()", "os.path.exists()", "os.path.lexists()", "os.path.isdir()",
        "os.walk()", "os.listdir()", "os.scandir()", "Path(p).read_text()", "p.read_bytes()",
        "p.stat()", "p.is_file()", "p.is_dir()", "p.exists()", "p.glob()", "os.path.realpath()",
        "p.resolve()", "self.root.is_file()",
    ]
    assert {scope for scope, _, _ in found} == {"reads", "K.m"}
    assert found[0][1] == 6


def test_the_analysis_does_no_io_but_the_allowed_sites() -> None:
    """Every forbidden call in ``migrate/rules`` is in :data:`ALLOWED` (``file:function``),
    and every entry of it still has one (what is converted leaves the list)."""
    violations = _violations()
    unexpected = {k: v for k, v in violations.items() if k not in ALLOWED}
    assert not unexpected, "I/O in the analysis (ask the snapshot instead):\n" + "\n".join(
        line for lines in unexpected.values() for line in lines
    )
    stale = sorted(set(ALLOWED) - set(violations))
    assert not stale, f"no longer doing I/O, remove from ALLOWED: {stale}"
