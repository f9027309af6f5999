"""migrate/project/references.py: one reference index answers the cross-file questions
(issue 26, step 5 of docs/design/project-model.md; acceptance: "one index answers every
cross-file question")."""

from __future__ import annotations

import ast
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from ppo_migrate.cli.app import cli
from ppo_migrate.project import references
from ppo_migrate.project.references import (
    References,
    current_references,
    module_file,
    package_root,
    shadowed_by_package,
)
from ppo_migrate.project.snapshot import Snapshot, recorded, run_scope
from ppo_migrate.settings_model import Settings

PACKAGE = Path(references.__file__).resolve().parents[1]  # migrate/, installed as ppo_migrate


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


# ------------------------------------------------------------------ the one resolver
def test_a_module_is_its_file_under_the_root_a_package_before_a_source_module(tmp_path: Path) -> None:
    """Python's path finder loads ``a/b/__init__.py`` when the folder also holds ``a/b.py``
    (fresh user 41, B1): asked of :mod:`importlib` itself, in a fresh interpreter."""
    _write(tmp_path, {"a/__init__.py": "", "a/b.py": "", "a/b/__init__.py": "", "a/c/__init__.py": "", "a/n.py": "",
                      "a/n/x.txt": ""})
    assert module_file(tmp_path, "a.b") == tmp_path / "a" / "b" / "__init__.py"
    assert module_file(tmp_path, "a.n") == tmp_path / "a" / "n.py"  # a folder without __init__.py loses
    found = subprocess.run(
        [sys.executable, "-c", "import a.b, a.n; print(a.b.__file__); print(a.n.__file__)"],
        cwd=tmp_path, capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": ""},
    ).stdout.split()
    assert [Path(f) for f in found] == [module_file(tmp_path, "a.b"), module_file(tmp_path, "a.n")]
    assert shadowed_by_package(str(tmp_path / "a" / "b.py")) is True
    assert shadowed_by_package(str(tmp_path / "a" / "n.py")) is False
    assert shadowed_by_package(str(tmp_path / "a" / "b" / "__init__.py")) is False
    assert module_file(tmp_path, "a.c") == tmp_path / "a" / "c" / "__init__.py"
    assert module_file(tmp_path, "a") == tmp_path / "a" / "__init__.py"
    assert module_file(tmp_path, "a.missing") is None
    # a name with a part no import can spell names no file
    for name in ("", "a..b", "a.b-c", ".a"):
        assert module_file(tmp_path, name) is None, name
    assert module_file(str(tmp_path), "a.c") == tmp_path / "a" / "c" / "__init__.py"


def test_a_namespace_packages_module_is_its_file_and_the_package_none(tmp_path: Path) -> None:
    """PEP 420: ``myproj/`` without ``__init__.py`` under the root is a namespace package;
    ``myproj.env`` loads ``myproj/env.py``, and the package itself is no file."""
    _write(tmp_path, {"myproj/env.py": "", "myproj/sub/deep.py": "", "myproj/sub/reg/__init__.py": ""})
    assert module_file(tmp_path, "myproj.env") == tmp_path / "myproj" / "env.py"
    assert module_file(tmp_path, "myproj.sub.deep") == tmp_path / "myproj" / "sub" / "deep.py"
    assert module_file(tmp_path, "myproj.sub.reg") == tmp_path / "myproj" / "sub" / "reg" / "__init__.py"
    assert module_file(tmp_path, "myproj") is None and module_file(tmp_path, "myproj.sub") is None


def test_the_resolver_stats_each_path_once_a_run(tmp_path: Path) -> None:
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/mod.py": ""})
    with run_scope() as snapshot:
        for _ in range(3):
            assert module_file(tmp_path, "pkg.mod") == tmp_path / "pkg" / "mod.py"
            assert module_file(tmp_path, "pkg.gone") is None
        assert snapshot.counts_of(tmp_path / "pkg" / "mod.py").stats == 1
        assert snapshot.counts_of(tmp_path / "pkg" / "gone.py").stats == 1
        assert snapshot.counts_of(tmp_path / "pkg" / "gone" / "__init__.py").stats == 1


def test_a_files_package_root_is_the_folder_above_its_top_package(tmp_path: Path) -> None:
    assert package_root(str(tmp_path / "a" / "b" / "m.py"), ("a", "b")) == tmp_path
    assert package_root(str(tmp_path / "script.py"), ()) == tmp_path
    assert package_root("-", ()) is None and package_root("", ()) is None


def test_the_files_of_a_project_share_their_roots_path(tmp_path: Path, monkeypatch) -> None:
    """One ``Path`` a folder: files of the same project ask for their root many times."""
    first = package_root(str(tmp_path / "a" / "b" / "m.py"), ("a", "b"))
    assert first == tmp_path and isinstance(first, Path)
    assert package_root(str(tmp_path / "a" / "n.py"), ("a",)) is first
    monkeypatch.chdir(tmp_path / "..")
    relative = package_root(f"{tmp_path.name}/script.py", ())
    assert relative is first and str(relative) == str(tmp_path)
    assert package_root(str(tmp_path / "a" / "b" / "m.py"), ("b",)) == tmp_path / "a"


# ------------------------------------------------------------------ the run's tables
def test_the_tables_are_a_runs_and_travel_to_a_spawned_worker() -> None:
    index = References()
    assert index.tables() is None and index.caller_verdicts is None
    index.start_run()
    assert (index.reexports, index.target_patches, index.caller_verdicts) == (None, None, {})
    index.reexports = {"pkg.f": "verl.trainer.constants_ppo.f"}
    index.target_patches = ()
    worker = References()
    worker.take_tables(pickle.loads(pickle.dumps(index.tables())))
    assert worker.reexports == {"pkg.f": "verl.trainer.constants_ppo.f"}
    assert worker.target_patches == () and worker.caller_verdicts == {}
    index.end_run()
    assert index.tables() is None
    index.start_run(judged=False)  # standard input, add-noqa: no caller is consulted
    assert index.caller_verdicts is None


def test_the_records_are_bounded() -> None:
    index = References()
    for i in range(references.MAX_RECORDS + 3):
        index.keep_record(("p", i), i)
    assert len(index.records) == references.MAX_RECORDS and ("p", 0) not in index.records
    assert index.records[("p", references.MAX_RECORDS + 2)] == references.MAX_RECORDS + 2
    for i in range(references.MAX_CLASSES + 1):
        index.keep_class_module(("c", i), None)
    assert len(index.classes) == references.MAX_CLASSES and ("c", 0) not in index.classes


def test_outside_a_run_one_index_of_the_process_holds_records_and_no_table() -> None:
    outside = current_references()
    assert outside is current_references()
    assert outside.tables() is None
    with run_scope() as snapshot:
        inside = current_references()
        assert inside is not outside and inside is snapshot.references
        assert current_references() is inside and snapshot.reference_builds == 1


def test_the_files_spelling_a_word_are_read_once_a_run(tmp_path: Path) -> None:
    _write(tmp_path, {"a.py": "make_env = f\n", "b.py": "x = 1\n", "c.py": "from m import make_env, other\n"})
    paths = [str(tmp_path / n) for n in ("a.py", "b.py", "c.py", "gone.py")]
    with run_scope() as snapshot:
        read_more = snapshot_index(snapshot).spelling(paths, skip=[paths[0]])
        assert read_more([b"make_env"]) == {paths[2]: b"from m import make_env, other\n"}
        assert read_more([b"x =", b"other"]) == {paths[1]: b"x = 1\n", paths[2]: b"from m import make_env, other\n"}
        assert [snapshot.counts_of(p).reads for p in paths[1:3]] == [1, 1]
        assert snapshot.counts_of(paths[0]).reads == 0  # skipped: never read


def snapshot_index(snapshot: Snapshot) -> References:
    return references.of(snapshot)


def test_settings_carry_no_table_of_the_run() -> None:
    assert not {"caller_verdicts", "target_patches", "reexports"} & set(Settings.FIELDS)


UTIL = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env as make_env\n"
CALLER = "from pkg.util import make_env\n\n\ndef run(config):\n    return make_env()\n"
DOUBLE = (
    "from unittest import mock\n\nfrom app import b\n\n\n"
    "def test_run():\n    with mock.patch('pkg.util.make_env', lambda: {}):\n        b.run({})\n"
)


@pytest.mark.parametrize("argv", [["check"], ["apply", "--diff"]])
def test_the_index_is_made_once_a_run_and_holds_its_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    """One reference index a run (counted on the snapshot, as the root's decisions), holding
    the re-exports the runner found (``pkg.util.make_env``) and the test double that replaces
    one (``mock.patch('pkg.util.make_env', ...)`` in ``tests/test_b.py``): the call's fix is
    unsafe for it. The tables are the run's: cleared when it ends."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    _write(repo, {
        "requirements.txt": "verl>=0.9\n",
        "pkg/__init__.py": "", "pkg/util.py": UTIL,
        "app/__init__.py": "", "app/b.py": CALLER,
        "tests/test_b.py": DOUBLE,
    })
    seen: list[tuple] = []
    end_run = References.end_run

    def ending(self: References) -> None:
        seen.append((dict(self.reexports or {}), self.target_patches, self.caller_verdicts))
        end_run(self)

    monkeypatch.setattr(References, "end_run", ending)
    monkeypatch.chdir(repo)
    with recorded() as made:
        result = CliRunner().invoke(
            cli, [*argv, "--no-progress", "--jobs", "1", "--output-format", "concise", "app"]
        )
    assert result.exit_code in (0, 1), result.output
    assert len(made) == 1 and made[0].reference_builds == 1
    assert made[0].references.tables() is None  # the run ended: no table left set
    assert len(seen) == 1
    reexports, patches, verdicts = seen[0]
    assert reexports == {"pkg.util.make_env": "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"}
    assert [(p.path.replace("\\", "/").rsplit("repo/", 1)[-1], p.line) for p in patches] == [
        ("tests/test_b.py", 7)
    ]
    assert verdicts == {}
    assert "app/b.py:5:12: PPO001" in result.output and "unsafe fix" in result.output.lower()


# ------------------------------------------------------------------ the guard
#: Functions that resolve a module name to its file, or search the run's files for a word
#: (``reexports.words_reader`` was one): only the index defines them. The
#: install-root trees of the callee in effect keep a method of that name that asks the
#: index (``_ArchiveTree``'s finds a zip archive's members, no file).
RESOLVERS = {"module_file", "_module_file", "package_root", "words_reader", "spelled_modules", "importers",
             "importers_of"}
#: The file -> module direction (a file's module names, the words of its import statements):
#: defined in ``project/modules.py`` alone, below the index (``targets`` re-exports them).
FILE_MODULE = {"module_name", "module_names", "module_package", "namespace_prefixes", "package_for_relative_imports",
               "resolve_relative", "import_words", "import_statements", "absolute_parent", "module_level",
               "_module_level"}
#: Reading the words of import statements is the first step of "which files import a
#: module": only the index (and the module defining it) does it.
IMPORT_READERS = {"import_words", "import_statements"}
#: Who must ask the index which files import a module, where a file's package lives and
#: what a module imports at its level (the re-exports it may make).
IMPORTER_DELEGATES = {
    ("rules/patches.py", "reachable_files"): "importers_of",
    ("rules/cross_file.py", "_FileJudge.collect_reexports"): "module_imports",
}
DELEGATES = {
    ("rules/signatures.py", "_DiskTree.module_file"),
    ("rules/signatures.py", "_MappedTree.module_file"),
}
#: resolvers of no folder: an archive's members, one lone file read as one module (trial 26i)
ARCHIVE = {("rules/signatures.py", "_ArchiveTree.module_file"), ("rules/signatures.py", "_LoneFileTree.module_file")}
#: The builders of the run's cross-file tables: the runner alone calls them, and keeps what
#: they give on the run's index.
TABLE_BUILDERS = {"project_reexports", "target_patches", "judge_callers"}
#: What left Settings for the index.
TABLES = {"caller_verdicts", "target_patches", "reexports"}


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _defs(tree: ast.Module):
    """``(qualname, node)`` of each function, methods as ``Class.name``."""
    def walk(body, prefix):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield f"{prefix}{node.name}", node
                yield from walk(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.ClassDef):
                yield from walk(node.body, f"{prefix}{node.name}.")

    yield from walk(tree.body, "")


def _called(node: ast.AST) -> set[str]:
    return {
        n.func.id if isinstance(n.func, ast.Name) else n.func.attr
        for n in ast.walk(node)
        if isinstance(n, ast.Call) and isinstance(n.func, (ast.Name, ast.Attribute))
    }


def test_no_module_but_the_index_resolves_modules_or_builds_cross_file_tables() -> None:
    resolvers, delegates, builders, tables, caches = [], set(), [], [], []
    file_module, readers, asking = [], [], set()
    for name, tree in _modules():
        if name != "project/modules.py":
            file_module += [f"{name}: {q}" for q, node in _defs(tree) if node.name in FILE_MODULE]
            if name != "project/references.py":
                readers += [
                    f"{name}:{n.lineno} calls {n.func.id if isinstance(n.func, ast.Name) else n.func.attr}"
                    for n in ast.walk(tree)
                    if isinstance(n, ast.Call)
                    and (n.func.id if isinstance(n.func, ast.Name) else getattr(n.func, "attr", None)) in IMPORT_READERS
                ]
        for qualname, node in _defs(tree):
            wanted = IMPORTER_DELEGATES.get((name, qualname))
            if wanted is not None and wanted in _called(node):
                asking.add((name, qualname))
        if name == "project/references.py":
            continue
        for qualname, node in _defs(tree):
            if node.name in RESOLVERS and (name, qualname) not in ARCHIVE:
                if (name, qualname) in DELEGATES and "module_file" in _called(node):
                    delegates.add((name, qualname))
                else:
                    resolvers.append(f"{name}: {qualname}")
        if name != "cli/runner.py":
            builders += [
                f"{name}:{n.lineno} calls {n.func.id}"
                for n in ast.walk(tree)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in TABLE_BUILDERS
            ]
        for n in ast.walk(tree):
            # ``settings.reexports``, ``getattr(settings, "target_patches", ...)``,
            # ``settings.replace(caller_verdicts=...)``
            if isinstance(n, ast.Attribute) and n.attr in TABLES and "settings" in ast.unparse(n.value).lower():
                tables.append(f"{name}:{n.lineno} {ast.unparse(n)}")
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("getattr", "hasattr"):
                if len(n.args) > 1 and isinstance(n.args[1], ast.Constant) and n.args[1].value in TABLES:
                    tables.append(f"{name}:{n.lineno} {ast.unparse(n)}")
            elif isinstance(n, ast.Call) and (
                (isinstance(n.func, ast.Attribute) and n.func.attr == "replace")
                or (isinstance(n.func, ast.Name) and n.func.id == "Settings")
            ):
                tables += [f"{name}:{n.lineno} {k.arg}=" for k in n.keywords if k.arg in TABLES]
            if isinstance(n, ast.Call) and any(k.arg == "indexes" for k in n.keywords):
                # the per-file phase's records handed around by hand: the run files them
                # on its index, where the caller phase finds them
                tables.append(f"{name}:{n.lineno} passes indexes=")
        if name.startswith("rules/"):
            # a process-wide table of other files' records (the caller phase's, the class
            # index's) kept by a module of the analysis: the index keeps them
            caches += [
                f"{name}:{s.lineno} {ast.unparse(s.targets[0] if isinstance(s, ast.Assign) else s.target)}"
                for s in tree.body
                if isinstance(s, (ast.Assign, ast.AnnAssign))
                and isinstance(s.value, ast.Dict) and not s.value.keys
                and any(w in ast.unparse(s.targets[0] if isinstance(s, ast.Assign) else s.target)
                        for w in ("INDEX", "CACHE", "RECORD", "CLASSES"))
            ]
    assert resolvers == [], "resolve a module to its file with ppo_migrate.project.references.module_file"
    assert delegates == DELEGATES  # each asks the index
    assert builders == [], "only the runner builds the run's cross-file tables"
    assert tables == [], "the run's tables are on its reference index, not in Settings"
    assert caches == [], "the reference index keeps the per-file records"
    assert file_module == [], "a file's module names are ppo_migrate.project.modules'"
    assert readers == [], "ask the reference index which files import a module (References.imports/importers)"
    assert asking == set(IMPORTER_DELEGATES)


def test_the_guard_sees_a_resolver_by_hand(tmp_path: Path) -> None:
    """The guard's own check: a ``def module_file`` of another module and a builder called
    outside the runner are seen."""
    tree = ast.parse(
        "def module_file(root, module):\n    return None\n\n"
        "class T:\n    def package_root(self):\n        return target_patches([], [], None)\n"
    )
    assert [q for q, node in _defs(tree) if node.name in RESOLVERS] == ["module_file", "T.package_root"]
    assert "target_patches" in _called(tree)


def test_the_snapshot_counts_its_index() -> None:
    snapshot = Snapshot()
    assert snapshot.references is None and snapshot.reference_builds == 0
    first = references.of(snapshot)
    assert references.of(snapshot) is first and snapshot.reference_builds == 1


def _tables_here() -> tuple | None:
    """In a pool worker: the tables of the index it judges with."""
    return current_references().tables()


def test_a_spawned_worker_judges_with_the_runs_tables() -> None:
    """Where workers are spawned (not Linux) they inherit no index: the parent hands them its
    tables, and the worker's analysis reads them from its own run's index."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from ppo_migrate.cli import runner

    tables = (
        {"pkg.make_env": "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"}, (), {},
        {"hooked.get_ppo_ray_runtime_env": ("/repo/hooked/__init__.py", 6)},  # the module ``__getattr__`` table
    )
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, context, initializer=runner._worker_init, initargs=(None, None, None, tables)) as pool:
        assert pool.submit(_tables_here).result(120) == tables
    with ProcessPoolExecutor(1, context, initializer=runner._worker_init, initargs=(None, None, None, None)) as pool:
        assert pool.submit(_tables_here).result(120) is None  # outside a run: no table


LAUNCH = (
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def start():\n    return get_ppo_ray_runtime_env()\n"
)
MAIN = "from app.launch import start\n\n\ndef main(config):\n    return start()\n"


def test_the_caller_phase_reads_the_runs_records_from_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The per-file phase's record of ``app/launch.py`` (a PPO002 entry point) is filed on the
    run's index; the caller phase finds it there and parses only the caller ``app/main.py``
    (the record of a file never naming the function is its own: no per-file phase made it)."""
    from ppo_migrate.rules import callers

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    _write(repo, {"requirements.txt": "verl>=0.9\n", "app/__init__.py": "", "app/launch.py": LAUNCH,
                  "app/main.py": MAIN})
    parsed: list[str] = []
    real = callers._analysis

    def counted(path, *args):
        parsed.append(Path(path).name)
        return real(path, *args)

    monkeypatch.setattr(callers, "_analysis", counted)
    monkeypatch.chdir(repo)
    with recorded() as made:
        result = CliRunner().invoke(cli, ["check", "--no-progress", "--jobs", "1", "--output-format", "concise", "app"])
    assert result.exit_code == 1, result.output
    assert "app/launch.py:5:12: PPO002" in result.output and "app/main.py:5" in result.output
    per_file = made[0].references.per_file
    assert sorted(per_file) == ["app/launch.py"] and per_file["app/launch.py"].stamp is not None
    assert parsed == ["main.py"]


def test_the_guard_sees_a_file_module_function_or_an_import_reader_by_hand() -> None:
    tree = ast.parse("def module_name(path):\n    return import_words(b'')\n")
    assert [q for q, node in _defs(tree) if node.name in FILE_MODULE] == ["module_name"]
    assert IMPORT_READERS & _called(tree) == {"import_words"}


# ------------------------------------------------------------------ which files import a module
def test_the_files_a_run_imports_are_found_by_the_words_of_its_import_statements(tmp_path: Path) -> None:
    """``importers`` (once ``reexports.spelled_modules``): the files of ``others`` whose
    module a source, or in turn a file found, may import; verl's own modules and a file no
    import can name are left out; each file read once a run."""
    _write(tmp_path, {
        "app/__init__.py": "", "app/main.py": "from pkg.util import make_env\n",
        "pkg/__init__.py": "", "pkg/util.py": "from pkg.deep import make_env\n",
        "pkg/deep.py": "make_env = 1\n", "pkg/unused.py": "x = 1\n",
        "verl/__init__.py": "", "verl/util.py": "",
    })
    p = {n: str(tmp_path / n) for n in ("app/main.py", "pkg/util.py", "pkg/deep.py", "pkg/unused.py", "verl/util.py")}
    others = [p["pkg/unused.py"], p["pkg/deep.py"], p["verl/util.py"], p["pkg/util.py"]]
    with run_scope() as snapshot:
        index = references.of(snapshot)
        assert index.importers([p["app/main.py"]], others, {"verl"}) == [p["pkg/deep.py"], p["pkg/util.py"]]
        assert index.importers([p["app/main.py"]], others, {"verl"}, rounds=1) == [p["pkg/util.py"]]
        assert index.imports([p["app/main.py"], str(tmp_path / "gone.py")]) == {
            p["app/main.py"]: frozenset({b"from", b"pkg", b"util", b"import", b"make_env"})
        }
        assert snapshot.counts_of(p["app/main.py"]).reads == 1
        assert snapshot.counts_of(p["pkg/unused.py"]).reads == 0  # no import spells ``unused``


def test_the_importers_of_a_module_are_followed_upwards(tmp_path: Path) -> None:
    """``importers_of``: a file is asked what it loads only when its import statements spell
    a wanted module's last name; an importer found is reached under its own names in turn."""
    _write(tmp_path, {
        "tests/test_x.py": "import main\n", "main.py": "from app import launcher\n",
        "other.py": "import launcher_notes\n", "app/__init__.py": "", "app/launcher.py": "",
    })
    files = {n: str(tmp_path / n) for n in ("tests/test_x.py", "main.py", "other.py")}
    loads = {files["tests/test_x.py"]: {"main"}, files["main.py"]: {"app", "app.launcher"}, files["other.py"]: set()}
    asked: list[str] = []

    def loads_of(path: str) -> set[str]:
        asked.append(Path(path).name)
        return loads[path]

    with run_scope() as snapshot:
        index = references.of(snapshot)
        others = [files["tests/test_x.py"], files["other.py"], files["main.py"]]
        found = index.importers_of({"app.launcher"}, others, loads_of, lambda path: {Path(path).stem})
        assert found == [files["tests/test_x.py"], files["main.py"]]
        assert "other.py" not in asked  # ``launcher_notes`` is not the word ``launcher``
        assert index.importers_of({"app.launcher"}, others, loads_of, lambda path: set(), rounds=1) == [files["main.py"]]


def test_a_modules_imports_are_resolved_against_its_package(tmp_path: Path) -> None:
    """``module_imports``: the imports run at module level (in ``try``/``if`` blocks too, not
    in a function), relative ones resolved against the file's package (a namespace
    folder's as far as ``package_for_relative_imports`` goes); one climbing too far: no source."""
    _write(tmp_path, {
        "pkg/__init__.py": "", "pkg/sub/__init__.py": "",
        "pkg/sub/api.py": (
            "import a.b as c, d\ntry:\n    from .lib import launch as start\nexcept ImportError:\n    pass\n"
            "from .. import x\nfrom ...far import y\nfrom .util import *\n\n\ndef f():\n    import hidden\n"
        ),
    })
    path = str(tmp_path / "pkg/sub/api.py")
    tree = ast.parse((tmp_path / "pkg/sub/api.py").read_text())
    with run_scope() as snapshot:
        records = references.of(snapshot).module_imports(path, tree)
    assert [(r.kind, r.name, r.asname, r.source, r.line) for r in records] == [
        ("import", "a.b", "c", "a.b", 1),
        ("import", "d", None, "d", 1),
        ("from", "launch", "start", "pkg.sub.lib.launch", 3),
        ("from", "x", None, "pkg.x", 6),
        ("from", "y", None, None, 7),
        ("star", "*", None, "pkg.sub.util", 8),
    ]


@pytest.mark.parametrize(
    "path",
    ["a.py", "src/a.py", "/x/y/__init__.py", ".hidden", "a.", "a.b.c", "x/.py", "x/..", "..", ".",
     "x/", "x//y.py", "./z.py", "a/./b.py", "name", "d/e.tar.gz", "x/.", "x/...", "x/a.."],
)
def test_a_module_s_stem_is_pathlib_s(path: str) -> None:
    """:func:`ppo_migrate.project.modules._stem` (no ``Path`` for a plain spelling) is
    ``Path(path).stem`` for every spelling."""
    from pathlib import Path

    from ppo_migrate.project.modules import _stem

    assert _stem(path) == Path(path).stem
    assert _stem(Path(path)) == Path(path).stem


def test_a_file_s_folder_follows_the_working_directory(tmp_path, monkeypatch) -> None:
    """:func:`ppo_migrate.project.modules.absolute_parent` keeps its answers per spelling
    and working directory: the same relative path in another folder is another folder."""
    from ppo_migrate.project.modules import absolute_parent

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    monkeypatch.chdir(tmp_path / "a")
    assert absolute_parent("pkg/../mod.py") == f"{tmp_path}/a/pkg/.."
    monkeypatch.chdir(tmp_path / "b")
    assert absolute_parent("pkg/../mod.py") == f"{tmp_path}/b/pkg/.."
    assert absolute_parent("/x/y/z.py") == "/x/y"
    assert absolute_parent("./q.py") == f"{tmp_path}/b"  # pathlib's spelling


# ------------------------------------------------------------------ which files may refer to a name
def _referrers(tmp_path: Path, files: dict[str, bytes], wanted, **kw) -> tuple[dict[str, tuple[bool, bool]], Snapshot]:
    """``{file: (spells, refers)}`` of :meth:`References.referrers` over ``files`` (written
    under ``tmp_path``, asked by their paths relative to it), and the run's snapshot."""
    for name, data in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    with run_scope() as snapshot:
        answer = {
            str(Path(r.path).relative_to(tmp_path)): (r.spells, r.refers)
            for r in references.of(snapshot).referrers([str(tmp_path / n) for n in files], wanted, **kw)
        }
    return answer, snapshot


def test_a_file_may_call_a_wanted_function_only_by_its_name_and_module(tmp_path: Path) -> None:
    """The caller phase's question (``calls=True``, once ``callers._calls_paired``): a file
    calls ``pkg.m3.helper_3`` when it spells the name and a part of its module (``m3``, as
    bytes go: ``m30`` holds it) or is its own file; ``from .`` for a package's
    ``__init__.py``; a name spelled with characters NFKC folds counts; a file binding
    names at run time refers to every name it spells."""
    from ppo_migrate.project.references import Wanted

    wanted = [Wanted(f"helper_{i}", f"pkg.m{i}", str(tmp_path / f"pkg/m{i}.py")) for i in range(30)]
    wanted.append(Wanted("launch", "pkg", str(tmp_path / "pkg/__init__.py")))
    files = {
        "a.py": b"from pkg.m3 import helper_3\nhelper_3()\n",
        "b.py": b"helper_3()\n",  # no module of it named
        "pkg/m3.py": b"helper_3()\n",  # its own file
        "c.py": b"from pkg.m30 import helper_3\n",  # ``m3`` inside ``m30``
        "d.py": b"from . import launch\n",
        "e.py": b"launch()\n",
        "f.py": "from pkg.m4 import ｈelper_4\n".encode(),
        "g.py": "from pkg.m4 import ｈelper_5\n".encode(),
        "h.py": b"setattr(x, 'a', helper_5)\n",  # binds by name
        "i.py": b"x = 1\n",  # spells no name
        "j.py": b"\xff\xfe\x00",  # does not decode: left out
    }
    answer, snapshot = _referrers(tmp_path, files, wanted, calls=True)
    assert answer == {
        "a.py": (True, True), "b.py": (True, False), "pkg/m3.py": (True, True), "c.py": (True, True),
        "d.py": (True, True), "e.py": (True, False), "f.py": (True, True), "g.py": (True, False),
        "h.py": (True, True), "i.py": (False, False),
    }
    # the names alone (a method's: no module asked) decide
    alone, _ = _referrers(tmp_path, {"b.py": files["b.py"], "i.py": files["i.py"]}, [Wanted("helper_3")], calls=True)
    assert alone == {"b.py": (True, True), "i.py": (False, False)}
    assert all(snapshot.counts_of(tmp_path / n).reads == 1 for n in files)


def test_a_file_may_use_a_wanted_name_through_its_module_or_a_re_export(tmp_path: Path) -> None:
    """The judgement's question (``calls=False``, once ``cross_file._judge``'s gate): names
    as identifiers with a spelling of a module reaching them: the module's last part, or a
    package whose ``__init__.py`` re-exports the name (``from pkg import run_7``); a star
    import, the module object imported, ``getattr(`` beside the module's part, a module
    loaded by name beside a package's part, a relative import inside the package; ``skip``:
    a name judged in its own file; ``read``: a file whose names suffice."""
    from ppo_migrate.project.references import Wanted

    home = str(tmp_path / "pkg/lib.py")
    wanted = {Wanted(f"run_{k}", "pkg.lib", home) for k in range(12)} | {Wanted("Engine", "pkg.core", home)}
    files = {
        "pkg/__init__.py": b"from .lib import run_7\n",
        "pkg/lib.py": b"def run_7(config):\n    return run_8(config)\n",
        "pkg/core.py": b"",
        "caller.py": b"from pkg import run_7\n\nrun_7({})\n",  # through the re-export
        "direct.py": b"from pkg.lib import run_3\n",
        "other.py": b"def run_7(x):\n    return x\n",  # no module of it
        "longer.py": b"from pkg.lib import run_77\n",  # ``run_7`` is not an identifier here
        "unexported.py": b"from pkg import Engine\n",  # ``pkg`` hands on ``lib``'s names only
        "star.py": b"from pkg.lib import *\n",
        "module.py": b"from pkg import lib as engine\n",
        "attr.py": b"import x\ngetattr(lib, 'run_' + '3')\n",
        "by_name.py": b"import importlib\nm = importlib.import_module('pkg.' + n)\nm.run_3()\n",
        "pkg/rel.py": b"from .core import Engine\n",
        "judged.py": b"from pkg.core import Engine\n",
        "found.py": b"run_2 = 1\n",
    }
    answer, snapshot = _referrers(
        tmp_path, files, wanted, skip={"Engine": str(tmp_path / "judged.py")}, read={str(tmp_path / "found.py")}
    )
    refers = sorted(n for n, (_, r) in answer.items() if r)
    assert refers == [
        "attr.py", "by_name.py", "caller.py", "direct.py", "found.py", "module.py", "pkg/__init__.py", "pkg/rel.py",
        "star.py",
    ]
    assert answer["pkg/lib.py"] == (True, False)  # its own names, no module spelled: its analysis judges them
    assert answer["other.py"] == (True, False) and answer["longer.py"] == (False, False)
    assert answer["unexported.py"] == (True, False)
    assert answer["judged.py"] == (False, False)  # its only name judged there
    assert snapshot.counts_of(tmp_path / "pkg/__init__.py").reads == 1  # the re-exports' look and the files'


def test_identifiers_are_the_same_in_a_small_file_and_a_large_one() -> None:
    """Many names (more than ``MANY_NAMES``) are met with a small file's words and looked for
    in a large file with their regex: both give the whole identifiers, a name with a
    character no identifier has (a module ``my-lib`` from ``my-lib.py``) included, and
    neither finds ``run_3`` in ``run_3x`` nor ``run_1`` in ``xrun_1``."""
    from ppo_migrate.project import spelling

    names = {f"run_{i}" for i in range(20)} | {"my-lib"}
    assert len(names) > spelling.MANY_NAMES
    text = b"x = run_1 + run_12\nrun_3x = xrun_1\nimport my-lib\nrun_100(run_19)\n"
    expected = {"run_1", "run_12", "run_19", "my-lib"}
    assert len(text) <= spelling.WORDS_UP_TO
    assert spelling.identifiers(text, names) == expected
    large = text + b"# padding\n" * (spelling.WORDS_UP_TO // 10)
    assert len(large) > spelling.WORDS_UP_TO
    assert spelling.identifiers(large, names) == expected
    prepared = spelling.names(frozenset(names))
    assert prepared.other == (b"my-lib",)
    assert spelling.identifiers(text, prepared) == expected
    assert spelling.identifiers(b"run_1 = 2\n", {"run_1", "run"}) == {"run_1"}  # few names: ``\b``
    # a non-ASCII file may spell a name otherwise (NFKC): ``None`` when its bytes hold one
    assert spelling.identifiers("# \u00e9\nrun_2()\n".encode(), names) is None
    assert spelling.identifiers("# \u00e9\nother()\n".encode(), names) == set()


#: The caller phase's plan and the cross-file judgement ask the index which files may refer
#: to a name (``References.referrers``), which file beyond the run spells one
#: (``References.spelled_beyond``) and which name a re-export stands for (``reexported``).
REFERRER_DELEGATES = {
    ("rules/callers.py", "_scan"): "referrers",
    ("rules/callers.py", "plan.overridden"): "spelled_beyond",
    ("rules/cross_file.py", "_judge"): "referrers",
    ("rules/cross_file.py", "_FileJudge._resolved"): "reexported",
}
#: What reads a file's bytes for names or modules: the prefilter's and the index's word
#: readers, regular expressions, a byte string's own searches.
BYTE_SCANNERS = {
    "Words", "spells_otherwise", "is_candidate", "utf8_source", "spells", "identifiers", "mentions",
    "binds_by_name", "loads_by_name", "module_import_pattern", "compile", "search", "finditer", "findall",
    "match", "fullmatch", "translate", "isascii",
}
#: The engines the two had of their own (gone: the index answers).
ENGINES = {
    "_spells", "_calls_paired", "_binds_by_name", "_paired_names", "_unanalysed_mention", "_module_import_pattern",
    "_module_parts", "_names_with_their_modules", "_mentions", "_spelled", "_words", "_any_of", "_package_roots",
    "_loads_by_name", "_inside", "_names", "_name_sets", "_whole", "_resolved",
}
#: The caller phase's functions reached from ``plan`` (``callers.py`` also holds the per-file
#: records, ``_AstFacts``, which read a parsed file's text, not the run's bytes).
PLAN_ROOTS = {"plan", "_scan"}


def _byte_scans(node: ast.AST) -> list[str]:
    """Where ``node`` scans bytes: a bytes literal (``b"from ." in data``) or a call of
    :data:`BYTE_SCANNERS`."""
    found = []
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, bytes):
            found.append((n.lineno, n.col_offset, f"{n.lineno}: {n.value!r}"))
        elif isinstance(n, ast.Call):
            name = n.func.id if isinstance(n.func, ast.Name) else getattr(n.func, "attr", None)
            if name in BYTE_SCANNERS:
                found.append((n.lineno, n.col_offset, f"{n.lineno}: {name}()"))
    return [text for *_, text in sorted(found)]


def _scanners(name: str, tree: ast.Module) -> list[str]:
    """The byte scans of ``cross_file.py`` (all of it) or of ``callers.py``'s plan (the
    module-level functions :data:`PLAN_ROOTS` call, in turn), and the engines defined."""
    top = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    out = [f"{name}: defines {n}" for n in top if n in ENGINES]
    if name == "rules/cross_file.py":
        return out + [f"{name}:{s}" for s in _byte_scans(tree)]
    todo, seen = list(PLAN_ROOTS), set()
    while todo:
        fn = todo.pop()
        if fn in seen or fn not in top:
            continue
        seen.add(fn)
        out += [f"{name} {fn}:{s}" for s in _byte_scans(top[fn])]
        todo += [c for c in _called(top[fn]) if c in top]
    assert {"plan", "_scan", "_indexer"} <= seen
    return out


def test_the_caller_phase_and_the_judgement_ask_the_index_which_files_refer() -> None:
    """Issue 26's acceptance, "one index answers every cross-file question": the caller
    phase's plan and the cross-file judgement read no file's bytes for names or modules
    themselves (no bytes literal, no word reader or regex, none of their old engines);
    they ask :meth:`References.referrers` (and ``spelled_beyond``, ``reexported``)."""
    trees = dict(_modules())
    scans = [s for name in ("rules/callers.py", "rules/cross_file.py") for s in _scanners(name, trees[name])]
    assert scans == [], "ask the reference index which files may refer to a name (References.referrers)"
    asking = {
        (name, q) for name, tree in trees.items() for q, node in _defs(tree)
        if REFERRER_DELEGATES.get((name, q)) in _called(node)
    }
    assert asking == set(REFERRER_DELEGATES)


def test_the_guard_sees_a_byte_scan_by_hand() -> None:
    tree = ast.parse(
        "def plan(files):\n    return _scan(files)\n\n"
        "def _scan(files):\n    return [f for f in files if _look(f)]\n\n"
        "def _look(data):\n    return b'import *' in data or _WORDS.search(data)\n\n"
        "def _spelled(data):\n    return data\n"
    )
    assert _byte_scans(tree.body[2]) == ["8: b'import *'", "8: search()"]
    with pytest.raises(AssertionError):  # ``_indexer``: not in this plan
        _scanners("rules/callers.py", tree)
    assert _scanners("rules/cross_file.py", tree) == [
        "rules/cross_file.py: defines _spelled", "rules/cross_file.py:8: b'import *'", "rules/cross_file.py:8: search()",
    ]


@pytest.mark.parametrize(
    ("data", "imports"),
    [
        (b"from pkg import lib\n", True),
        (b"from pkg import (a,\n    lib)\n", True),
        (b"import pkg.lib as engine\n", True),
        (b"from pkg.lib import launch\n", False),  # a name of it, not the module
        (b"import os\nlib_dir = 1  # lib\n", False),  # spelled, never imported
        (b"import os\nfrom pkg import library\n", False),
        ("import os\n# caf\u00e9\nfrom pkg import lib\n".encode(), True),  # not ASCII
        ("import os\n# caf\u00e9\n".encode(), False),
    ],
)
def test_a_module_imported_itself_is_searched_only_in_files_spelling_it(
    data: bytes, imports: bool
) -> None:
    """The judgement's look for a module imported as an object (``from pkg import lib``)
    compiled a pattern of every wanted module (~6 ms for benchmark item 12's 200) and
    searched each file with it; a file none of whose words is one of them cannot match it,
    and is not searched: the pattern is compiled at the first file that may."""
    from ppo_migrate.project.references import _ModuleImports
    from ppo_migrate.project.spelling import module_import_pattern, names

    modules = {"lib", "other_mod"}
    look = _ModuleImports(modules)
    assert look.plain
    assert look.found_in(data, names(frozenset(modules))) is imports
    assert (module_import_pattern(modules).search(data) is not None) is imports
    silent = _ModuleImports(modules)
    silent.found_in(b"import os\nimport sys\n", names(frozenset(modules)))
    assert silent.pattern is None  # no file spelled a module: nothing compiled
    assert not _ModuleImports({"lib", ""}).plain  # a script's module: the pattern decides
    assert not _ModuleImports(set()).plain  # no module: the pattern's empty alternative
