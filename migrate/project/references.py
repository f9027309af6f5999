"""The run's reference index: the one place that answers the questions crossing a file's border.

Issue 26 (step 5 of ``docs/design/project-model.md``: "One reference index"). Before it,
three modules each resolved a module name to its file (``rules/index.py``'s
``module_file``, ``patches._module_file``, the install roots of ``signatures``), the run's
cross-file tables travelled inside :class:`ppo_migrate.settings_model.Settings` (the
re-exports of the targets, the replacements of the function, the verdicts of the callers in
other files), and two process-wide caches held the per-file records of the caller phase and
of the class index. They are all here now:

- :func:`module_file` and :func:`package_root`: a module name to the file ``import`` loads
  from an import root (``<root>/a/b.py``, else ``<root>/a/b/__init__.py``), each path
  stat-ed once a run through the snapshot's :attr:`~ppo_migrate.project.snapshot.Snapshot.fs`;
- :class:`References`: one object a snapshot (:func:`of`, kept as
  :attr:`ppo_migrate.project.snapshot.Snapshot.references`, made on the first demand and
  counted in ``Snapshot.reference_builds``) holding the run's
  tables (:attr:`References.reexports`, :attr:`References.target_patches`,
  :attr:`References.caller_verdicts`) and the per-file records (:attr:`References.records`,
  :attr:`References.classes`).

A low layer, just above the snapshot (which does not import it: no import cycle inside
``project``, ``tests/integration/test_architecture.py``): it imports no analysis module. What
it holds is made by the analysis and the runner and handed in; it only keeps it, for one run.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

from ppo_migrate.project.modules import (
    ModuleImport,
    absolute_parent,
    import_words,
    module_imports,
    module_name,
    package_for_relative_imports,
)
from ppo_migrate.project.snapshot import active, current

TYPE_CHECKING = False  # ``typing`` is ~3 ms of a plain ``check``'s start: annotations only
if TYPE_CHECKING:
    from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
    from typing import Any

    from ppo_migrate.project.filesystem import FileSystem
    from ppo_migrate.project.snapshot import Snapshot

#: Records of files the caller phase indexes itself that :attr:`References.records` keeps
#: (small: no tree is kept); the first ones kept are dropped first beyond it.
MAX_RECORDS = 4096
#: Module analyses :attr:`References.classes` keeps (a few hundred kilobytes each at most).
MAX_CLASSES = 256


def module_file(root: str | os.PathLike[str], module: str, fs: FileSystem | None = None) -> Path | None:
    """The file ``import module`` loads from the import root ``root``: ``<root>/a/b.py`` or
    else ``<root>/a/b/__init__.py`` for ``a.b``, if it is a file. The one resolver of the
    project (the class index, the star imports' modules, the install roots of the callee in
    effect, the build and mapped copies of verl). The source module is tried first, as each
    of the three resolvers it replaced did (Python's path finder prefers the package when a
    folder holds both, a layout that does not run as its author means either way).

    Args:
        root: the import root (the folder holding the top-level package).
        module: the dotted module name; a name with a part that is no identifier (``""``,
            ``a..b``, ``caf\\udcff``) names no file.
        fs: the file-system view to stat through (the run's snapshot's by default: each
            path stat-ed once a run).

    Returns:
        The file's path (``root`` joined with the parts, as :class:`pathlib.Path` joins
        them), or ``None``. A folder on the way needs no ``__init__.py`` (PEP 420: a folder
        without one under an import root is a namespace package, ``myproj.env`` is
        ``<root>/myproj/env.py``); a namespace package itself loads no file (``None``).
    """
    parts = module.split(".")
    if not all(p.isidentifier() for p in parts):
        return None
    if fs is None:
        fs = current().fs
    base = Path(root).joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if fs.is_file(candidate):
            return candidate
    return None


def package_root(path: str, package: tuple[str, ...]) -> Path | None:
    """The folder a file's top-level package (or, for a script, the file) lives in: the
    import root its absolute imports of the project resolve from.

    Args:
        path: the file's path, relative to the working directory or absolute
            (``"-"``/``""``: standard input, no root).
        package: its package parts (``("pkg", "sub")`` for ``pkg/sub/mod.py``).

    Returns:
        The folder (absolute, ``..`` kept as :meth:`pathlib.Path.absolute` keeps it), or
        ``None`` for standard input.
    """
    if not path or path == "-":
        return None
    directory = absolute_parent(path)  # ``str(Path(path).absolute().parent)``
    for _ in package:
        directory = os.path.dirname(directory)
    return Path(directory)


class References:
    """The run's reference index (see the module docstring): one a snapshot.

    Attributes:
        reexports: the project's own re-exports of the targets, name -> the target it
            stands for (``{"pkg.get_ppo_ray_runtime_env":
            "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"}``:
            :func:`ppo_migrate.rules.reexports.project_reexports`); ``None``: not looked
            for (standard input, the adapters, or not yet in this run).
        target_patches: where the repository's files replace the runtime function (the
            replacement table's results: :func:`ppo_migrate.rules.patches.target_patches`,
            a tuple of its ``Patch``); ``None``: not looked for.
        caller_verdicts: what the callers in other files say of the parameters safe fixes
            rest on, origin -> reason or ``None``
            (:func:`ppo_migrate.rules.cross_file.judge_callers`); ``None`` when the run's
            other files are not consulted (outside a run: standard input, the codemod
            command, the Fixit rule), empty while the run has not judged them yet (so
            ``apply`` holds back a file whose safe fixes rest on one).
        per_file: the per-file phase's records, display path ->
            :class:`ppo_migrate.rules.callers.FileIndex` (made from the analysis's own
            parse, in the process that analysed the file, and filed here by the runner as
            each run ends: :meth:`file_records`); the caller phase uses one while the
            file's stamp is the record's, so no file the run analysed is parsed again.
        records: the caller phase's records of the files it indexes itself, by
            ``(path, stamp, targets, config names, unsafe fixes)``
            (:class:`ppo_migrate.rules.callers.FileIndex`, or ``None`` for a file that
            cannot be read or parsed): at most :data:`MAX_RECORDS`.
        classes: the class index's analyses of the project's other modules, by ``(path,
            st_mtime_ns, st_size, follow_values)`` (:class:`ppo_migrate.rules.index.ClassIndex`):
            at most :data:`MAX_CLASSES`.
    """

    __slots__ = ("caller_verdicts", "classes", "per_file", "records", "reexports", "target_patches")

    def __init__(self) -> None:
        self.reexports: dict[str, str] | None = None
        self.target_patches: tuple | None = None
        self.caller_verdicts: dict | None = None
        self.per_file: dict[str, Any] = {}
        self.records: dict[Hashable, Any] = {}
        self.classes: dict[Hashable, Any] = {}

    def module_file(self, root: str | os.PathLike[str], module: str) -> Path | None:
        """:func:`module_file` through the run's file-system view."""
        return module_file(root, module)

    # -- the run's tables ---------------------------------------------------------------
    def start_run(self, *, judged: bool = True) -> None:
        """A run begins (:func:`ppo_migrate.cli.runner.run`): its tables are its own, nothing
        looked for yet. The per-file records stay: they are keyed by the file's stamp.

        Args:
            judged: the callers in other files will be judged (a run on files: an empty
                verdict table); ``False`` (standard input, ``add-noqa``): they are not
                consulted (``None``, as outside a run).
        """
        self.reexports = None
        self.target_patches = None
        self.caller_verdicts = {} if judged else None

    def end_run(self) -> None:
        """The run ended: no table is set (what runs after it in the same command judges
        without them)."""
        self.reexports = self.target_patches = self.caller_verdicts = None

    def tables(self) -> tuple | None:
        """What a spawned worker process needs of the index (picklable): ``None`` when no
        table is set, else ``(reexports, target_patches, caller_verdicts)`` for
        :meth:`take_tables`."""
        if self.reexports is None and self.target_patches is None and self.caller_verdicts is None:
            return None
        return self.reexports, self.target_patches, self.caller_verdicts

    def take_tables(self, tables: tuple | None) -> None:
        """Set the tables :meth:`tables` gave in another process (``None``: nothing)."""
        if tables is not None:
            self.reexports, self.target_patches, self.caller_verdicts = tables

    # -- which files name a word ---------------------------------------------------------
    def spelling(self, paths: Sequence[str], skip: Iterable[str] = ()) -> Callable[[list[bytes]], dict[str, bytes]]:
        """``read_more(words)``: the files of ``paths`` (but ``skip``) whose bytes spell one
        of ``words``, with their bytes (each file read once a run, through the snapshot; a
        file that cannot be read spells nothing). The re-exports' search for the files an
        alias brings in (``make_env``: :func:`ppo_migrate.rules.reexports.project_reexports`).

        Args:
            paths: the files to search, in the order the answer keeps.
            skip: files left out (those the caller holds already).
        """
        read_bytes = current().read_bytes
        skipped = set(skip)

        def read_more(words: list[bytes]) -> dict[str, bytes]:
            pattern = re.compile(rb"|".join(re.escape(w) for w in words))
            out: dict[str, bytes] = {}
            for path in paths:
                if path in skipped:
                    continue
                try:
                    data = read_bytes(path)
                except (OSError, ValueError):
                    continue
                if pattern.search(data):
                    out[path] = data
            return out

        return read_more

    # -- which files import a module ------------------------------------------------------
    def imports(self, paths: Iterable[str]) -> dict[str, frozenset[bytes]]:
        """The words of each file's import statements (the module names it may import, by
        their parts: :func:`ppo_migrate.project.modules.import_words`), path -> words, for
        the files of ``paths`` that can be read (each read once a run, through the
        snapshot). The first step of every "which files import a module": bytes decide
        before any file is parsed."""
        read = current().read_bytes
        out: dict[str, frozenset[bytes]] = {}
        for path in paths:
            if path in out:
                continue
            try:
                out[path] = import_words(read(path))
            except (OSError, ValueError):
                continue
        return out

    def importers(
        self, sources: Sequence[str], others: Sequence[str], skip_tops: Iterable[str] = (), *, rounds: int = 4,
    ) -> list[str]:
        """Which of ``others`` hold a module that ``sources`` (or, in turn, a file found) may
        import: the module's last name (the package's, for an ``__init__.py``) spelled in
        their bytes where an import stands (:data:`ppo_migrate.project.modules.IMPORT_STATEMENT`).
        A call of the run can go through a re-export only in a module the run loads
        (``import pkg; pkg.get_...()``: ``pkg/__init__.py``), so of the repository's files
        beyond the run only those are read for the re-exports
        (:func:`ppo_migrate.rules.reexports.project_reexports`; the tool's own tests,
        naming the function in strings, are not). Once ``reexports.spelled_modules``.

        Args:
            sources: the run's files (display paths).
            others: the repository's files beyond the run naming a target (the prefilter's).
            skip_tops: top-level packages left out (verl itself: its modules are not the
                project's re-exports).
            rounds: how many re-exports of re-exports are followed at most.

        Returns:
            The files of ``others`` found, in their order. Each file is read once a run
            (through the snapshot); one that cannot be read spells nothing.
        """
        tops = set(skip_tops)
        last: dict[str, bytes] = {}
        for path in others:
            module = module_name(path)
            name = module.rsplit(".", 1)[-1]
            # a file no import can name (``caf\udcff.py``: undecodable bytes) loads for nothing
            if module.split(".", 1)[0] not in tops and name.isidentifier():
                last[path] = name.encode()
        found: set[str] = set()
        todo = list(sources)
        for _ in range(rounds):
            wanted = {w for p, w in last.items() if p not in found}
            if not todo or not wanted:
                break
            # the words of the import statements, met against the names wanted as a set: one
            # alternation of a thousand module names was run over every statement (0.9 s of a
            # ``check src`` on 1,000 files that never name the function)
            spelled: set[bytes] = set()
            for words in self.imports(todo).values():
                spelled.update(words)
            spelled &= wanted
            todo = [p for p, w in last.items() if p not in found and w in spelled]
            found.update(todo)
        return [p for p in others if p in found]

    def importers_of(
        self, modules: Iterable[str], others: Sequence[str], loads: Callable[[str], Iterable[str]],
        names: Callable[[str], Iterable[str]], *, rounds: int = 8,
    ) -> list[str]:
        """The files of ``others`` that import one of ``modules``, followed upwards (an
        importer's own importers: ``test_x`` imports ``main``, which imports ``launcher``).
        A file is asked ``loads`` only when its import statements spell the last name of a
        module wanted (bytes decide first: :func:`ppo_migrate.project.modules.import_words`,
        each file read once a run through the snapshot). The test doubles' look-out
        (:func:`ppo_migrate.rules.patches.reachable_files`) asks it, handing in its
        parse-based rule of what a file loads (``import_module("pkg.lib")`` included).

        Args:
            modules: the dotted names reached (the calling modules').
            others: the files to search (display paths), in the order the answer keeps.
            loads: ``path -> modules`` the file loads (read and parsed by the caller; a
                file that cannot be read loads nothing).
            names: ``path -> names`` its module is imported under
                (:func:`ppo_migrate.project.modules.module_names`): an importer found is
                itself reached under them.
            rounds: how many times importers are followed upwards at most.

        Returns:
            The importers found, in the order of ``others``.
        """
        reach = set(modules)
        spelled: dict[str, frozenset[bytes]] = {}
        found: set[str] = set()
        for _ in range(rounds):
            words = {w.encode() for m in reach if (w := m.rsplit(".", 1)[-1]).isidentifier()}
            grown = False
            for path in others:
                if path in found:
                    continue
                if path not in spelled:
                    spelled[path] = self.imports((path,)).get(path, frozenset())
                if not (spelled[path] & words):
                    continue
                if any(m in reach for m in loads(path)):
                    found.add(path)
                    reach.update(names(path))
                    grown = True
            if not grown:
                break
        return [p for p in others if p in found]

    def module_imports(self, path: str, tree: ast.Module) -> list[ModuleImport]:
        """What the module at ``path`` (parsed as ``tree``) imports at its level, each name
        resolved against its package (a namespace folder's as far as
        :func:`ppo_migrate.project.modules.package_for_relative_imports` goes): the
        re-exports it may make (:func:`ppo_migrate.project.modules.module_imports`). The
        cross-file judge's collector of re-exports asks it."""
        return module_imports(tree, package_for_relative_imports(path))

    # -- per-file records ---------------------------------------------------------------
    def file_records(self, records: Mapping[str, Any]) -> None:
        """File the per-file phase's ``records`` (display path -> ``FileIndex``) of a run:
        a later run's record of a path replaces an earlier one (``--thread-config``'s
        re-check of the files it threaded)."""
        self.per_file.update(records)

    def keep_record(self, key: Hashable, record: Any) -> None:
        """Keep the caller phase's ``record`` under ``key`` (see :attr:`records`)."""
        _bounded_put(self.records, key, record, MAX_RECORDS)

    def keep_class_module(self, key: Hashable, analysis: Any) -> None:
        """Keep the class index's ``analysis`` under ``key`` (see :attr:`classes`)."""
        _bounded_put(self.classes, key, analysis, MAX_CLASSES)


def _bounded_put(table: dict, key: Hashable, value: Any, most: int) -> None:
    """``table[key] = value``, the first key put dropped first once ``table`` holds ``most``."""
    if key not in table and len(table) >= most:
        table.pop(next(iter(table)))
    table[key] = value


#: The index asked for outside a run (no snapshot current: the codemod and Fixit adapters,
#: a test calling an analysis directly): its records are kept for the process, as the
#: caches before it were; its tables are never set (nothing runs to fill them).
_OUTSIDE = References()


def forget_outside() -> None:
    """Empty the records of the index used outside a run (a test rewriting a file between
    two analyses in one process must see the new text: the keys hold the stamps, and a
    file rewritten within the same clock tick keeps them)."""
    _OUTSIDE.records.clear()
    _OUTSIDE.classes.clear()


def of(snapshot: Snapshot) -> References:
    """``snapshot``'s index, made on the first demand and kept on it
    (:attr:`ppo_migrate.project.snapshot.Snapshot.references`; each making counted in
    :attr:`~ppo_migrate.project.snapshot.Snapshot.reference_builds`: once a run)."""
    found = snapshot.references
    if found is None:
        found = snapshot.references = References()
        snapshot.reference_builds += 1
    return found


def current_references() -> References:
    """The run's index (:func:`of` the current snapshot); outside a run, the process's own
    (no tables, its records kept for the process)."""
    snapshot = active()
    return of(snapshot) if snapshot is not None else _OUTSIDE


__all__ = [
    "MAX_CLASSES", "MAX_RECORDS", "References", "current_references", "forget_outside", "module_file", "of",
    "package_root",
]
