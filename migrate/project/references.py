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
  :attr:`References.classes`);
- which files may refer to a name, and through which module (:meth:`References.referrers`,
  on the byte-level primitives of :mod:`ppo_migrate.project.spelling`): the caller phase's
  and the cross-file judgement's one look at the run's bytes.

A low layer, just above the snapshot (which does not import it: no import cycle inside
``project``, ``tests/integration/test_architecture.py``): it imports no analysis module. What
it holds is made by the analysis and the runner and handed in; it only keeps it, for one run.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path
from typing import NamedTuple

from ppo_migrate.files import utf8_source
from ppo_migrate.prefilter import Words, spells_otherwise
from ppo_migrate.project.modules import (
    ModuleImport,
    absolute_parent,
    import_words,
    module_imports,
    module_name,
    module_package,
    package_for_relative_imports,
)
from ppo_migrate.project.snapshot import active, current
from ppo_migrate.project.spelling import (
    Names,
    binds_by_name,
    encoded,
    hands_on_unspelled,
    identifiers,
    loads_by_name,
    mentions,
    module_import_pattern,
    names as spelling_names,
    plain_word,
    spells,
)

TYPE_CHECKING = False  # ``typing`` is ~3 ms of a plain ``check``'s start: annotations only
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Container, Hashable, Iterable, Iterator, Mapping, Sequence
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
    effect, the build and mapped copies of verl). The package is tried first, as Python's
    path finder does when a folder holds both ``b/__init__.py`` and ``b.py`` (a module left
    beside the package that replaced it is never imported: fresh user 41, B1, where its
    constant decided a fix that the package's then broke).

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
    for candidate in (base / "__init__.py", base.with_suffix(".py")):
        if fs.is_file(candidate):
            return candidate
    return None


def shadowed_by_package(path: str) -> bool:
    """Whether the module file ``path`` (``a/b.py``) is never imported because the folder
    beside it of the same name is a regular package (``a/b/__init__.py``): Python's path
    finder looks for the package first (:func:`module_file`; :mod:`importlib`'s
    ``FileFinder.find_spec`` tries ``b/__init__.py`` before ``b.py``). A folder without
    ``__init__.py`` (a namespace portion) loses to the module.

    Args:
        path (str): a ``.py`` file's path, read through the run's snapshot's file system.
    """
    head, tail = os.path.split(path)
    if not tail.endswith(".py") or tail == "__init__.py":
        return False
    snapshot = current()
    folder = tail[:-3]
    # the folder's listing, once a run (the run's walks list it too), rather than a
    # ``stat`` a module (benchmark item 10: 600 modules in one folder): no folder of that
    # name beside the file (or a link to one) holds no ``__init__.py`` either
    memo = snapshot.memo(_SUBFOLDERS)
    names = memo.get(head)
    if names is None:
        try:
            names = frozenset(e.name for e in snapshot.fs.entries(head or os.curdir) if e.is_dir)
        except (OSError, ValueError):
            names = _UNLISTED  # the folder cannot be listed: the file is asked for itself
        memo[head] = names
    if names is not _UNLISTED and folder not in names:
        return False
    return snapshot.fs.is_file(os.path.join(head, folder, "__init__.py"))


#: :func:`shadowed_by_package`'s memo's name among the run's (folder as spelled -> the
#: names of its sub-folders, links to folders included)
_SUBFOLDERS = "ppo_migrate.project.references.subfolders"
#: a folder that cannot be listed (:func:`shadowed_by_package`)
_UNLISTED: frozenset[str] = frozenset({"\0"})


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
    # one ``Path`` a folder (immutable, so shared): every file of a project asks it of the
    # same root, several times a file, and ``pathlib`` builds one in ~10 us
    found = _ROOT_PATHS.get(directory)
    if found is None:
        if len(_ROOT_PATHS) >= _ROOT_PATHS_KEPT:
            _ROOT_PATHS.clear()
        found = _ROOT_PATHS[directory] = Path(directory)
    return found


#: :func:`package_root`'s ``Path`` of each folder it gave (at most :data:`_ROOT_PATHS_KEPT`)
_ROOT_PATHS: dict[str, Path] = {}
_ROOT_PATHS_KEPT = 4096


class Wanted(NamedTuple):
    """A name other files may refer to (:meth:`References.referrers`).

    Attributes:
        name: its last name, as a file spells it (``launch``; a class's for its methods).
        module: the module holding it (``pkg.lib``); ``None``: no module is asked, its name
            alone decides (a method: its calls ``obj.run()`` name no module).
        home: the file holding it (its definition, or where a re-export, subclass or
            function handing it on was found), ``""`` when not known. A call by its name
            alone reaches it there; a relative import reaches it only from inside that
            file's outermost package.
    """

    name: str
    module: str | None = None
    home: str = ""


class Referrer(NamedTuple):
    """One file's answer to :meth:`References.referrers`.

    Attributes:
        path: the file (as given).
        raw: its bytes, as read (read once a run through the snapshot).
        data: the same in UTF-8 (:func:`ppo_migrate.files.utf8_source`).
        spells: whether it spells a wanted name (as the question reads names).
        refers: whether it may refer to one: it is to be parsed for it.
    """

    path: str
    raw: bytes
    data: bytes
    spells: bool
    refers: bool


class References:
    """The run's reference index (see the module docstring): one a snapshot.

    Attributes:
        reexports: the project's own re-exports of the targets, name -> the target it
            stands for (``{"pkg.get_ppo_ray_runtime_env":
            "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"}``:
            :func:`ppo_migrate.rules.reexports.project_reexports`); ``None``: not looked
            for (standard input, the adapters, or not yet in this run).
        getattr_hooks: the names the run reads through a module of its own whose module
            ``__getattr__`` cannot be read, name -> (that module's file, the hook's line)
            (``{"pkg.get_ppo_ray_runtime_env": ("/repo/pkg/__init__.py", 6)}``:
            :func:`ppo_migrate.rules.reexports.getattr_hooks`); a call of one may or may not
            be the runtime function (PPO003). ``None``: not looked for.
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

    __slots__ = ("caller_verdicts", "classes", "getattr_hooks", "per_file", "records", "reexports", "target_patches")

    def __init__(self) -> None:
        self.reexports: dict[str, str] | None = None
        self.getattr_hooks: dict[str, tuple[str, int]] | None = None
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
        self.getattr_hooks = None
        self.target_patches = None
        self.caller_verdicts = {} if judged else None

    def end_run(self) -> None:
        """The run ended: no table is set (what runs after it in the same command judges
        without them)."""
        self.reexports = self.getattr_hooks = self.target_patches = self.caller_verdicts = None

    def tables(self) -> tuple | None:
        """What a spawned worker process needs of the index (picklable): ``None`` when no
        table is set, else ``(reexports, target_patches, caller_verdicts, getattr_hooks)``
        for :meth:`take_tables`."""
        if self.reexports is None and self.target_patches is None and self.caller_verdicts is None:
            return None
        return self.reexports, self.target_patches, self.caller_verdicts, self.getattr_hooks

    def take_tables(self, tables: tuple | None) -> None:
        """Set the tables :meth:`tables` gave in another process (``None``: nothing)."""
        if tables is not None:
            self.reexports, self.target_patches, self.caller_verdicts, self.getattr_hooks = tables

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

    # -- which files may refer to a name ----------------------------------------------------
    def referrers(
        self, paths: Sequence[str], wanted: Collection[Wanted], *, calls: bool = False,
        read: Collection[str] = (), skip: Mapping[str, str] | None = None,
    ) -> Iterator[Referrer]:
        """Which of ``paths`` may refer to the ``wanted`` names, and through which module:
        the one look at the files' bytes of the caller phase
        (:func:`ppo_migrate.rules.callers.plan`) and of the cross-file judgement of the
        callers (:func:`ppo_migrate.rules.cross_file.judge_callers`). A file refers to a name
        when it spells the name together with a spelling of a module that reaches it: its
        own module's last part (``from pkg.lib import launch``, ``import pkg.lib``), or a
        package's above it whose ``__init__.py`` hands it on (``from pkg import launch``:
        the re-export), or the name alone in the file holding it. Each file is read once a
        run (through the snapshot), and its words once a question
        (:class:`ppo_migrate.prefilter.Words`, :mod:`ppo_migrate.project.spelling`): the
        look is linear in the files, whatever the number of names.

        Args:
            paths: the files asked (display paths), in the order the answer keeps.
            wanted: the names looked for (:class:`Wanted`).
            calls: the caller phase's question, who may call a function: names as
                substrings (in the forms NFKC folds too), the module's last part, ``from .``
                for a package's own function, the name alone in its ``home``; a file that
                may bind names at run time (``setattr``, a mock's ``patch``,
                ``globals()``, ...) refers to every name it spells. Else the judgement's,
                who may use a name at all: names as identifiers (a non-ASCII file that may
                spell one otherwise: any), the module spellings of re-exporting packages
                (``paths``' ``__init__.py`` files), and the forms that reach a name
                without spelling its module: a relative import inside the outermost package
                of a ``home`` (anywhere when one is not known), a module loaded by name
                (``import_module``, ``__import__``, ``sys.modules``) with a part of its
                module spelled, a star import, the module object imported
                (``from pkg import lib``), ``getattr(`` with its module's last part.
            read: (the judgement's) files that refer whenever they spell a name (where a
                re-export, subclass or function handing a name on was found).
            skip: (the judgement's) name -> the one file (absolute path) whose own uses of it
                were judged already: that name does not count there.

        Returns:
            A :class:`Referrer` for each file of ``paths`` that can be read and decoded, in
            their order (a file that cannot is left out: it cannot run either).
        """
        if calls:
            return self._callers(paths, list(wanted))
        return self._users(paths, set(wanted), read, skip or {})

    def _callers(self, paths: Sequence[str], wanted: list[Wanted]) -> Iterator[Referrer]:
        """:meth:`referrers` with ``calls``: the caller phase's look (``callers._scan``'s)."""
        names = sorted({encoded(w.name) for w in wanted})
        # the words looked for in every file, read once per file and not once per word
        # (:class:`ppo_migrate.prefilter.Words`: the wanted names are hundreds on a chain)
        spelling = Words(names)
        alone = sorted({encoded(w.name) for w in wanted if w.module is None})
        alone_words = Words(alone) if 0 < len(alone) < len(names) else None
        # ``(name, home, module parts)`` of each name asked with its module: another file
        # calls ``pkg.mod.f`` only through an import naming ``mod`` (``from pkg.mod import
        # f``, ``from . import mod``, ``import pkg.mod``, ``from pkg.mod import *``), or, for
        # a package's ``__init__.py``, a relative import (``from . import f``); its own file
        # calls it by name
        paired = []
        for w in wanted:
            if w.module is None:
                continue
            parts = [encoded(w.module.rpartition(".")[2])]
            if os.path.basename(w.home) == "__init__.py":
                parts.append(b"from .")
            paired.append((encoded(w.name), w.home, tuple(parts)))
        pairs_of: dict[bytes, list[tuple[str, frozenset[bytes]]]] = {}
        for n, home, modules in paired:
            pairs_of.setdefault(n, []).append((home, frozenset(modules)))
        paired_words = Words({*pairs_of, *(m for pairs in pairs_of.values() for _, ms in pairs for m in ms)})
        read_bytes = current().read_bytes
        for path in paths:
            try:
                raw = read_bytes(path)  # never blocks on a FIFO; once a run
                data = utf8_source(raw)
            except (OSError, ValueError):
                continue
            if data is None:
                continue  # it does not decode: it cannot run, nor call anything
            # (a file with other bytes may spell a name another way: characters NFKC folds,
            # ``_ｅnv`` being ``_env`` to Python: :func:`ppo_migrate.prefilter.is_candidate`'s test)
            if not (spelling.any_in(data) or (not data.isascii() and spells_otherwise(data, names))):
                yield Referrer(path, raw, data, False, False)
                continue
            refers = (
                not alone_words and len(alone) == len(names)  # the names alone decide
                or (alone_words is not None and (
                    alone_words.any_in(data) or (not data.isascii() and spells_otherwise(data, alone))
                ))
                or (bool(paired) and _calls_paired(data, path, paired, pairs_of, paired_words))
                or binds_by_name(data)
            )
            yield Referrer(path, raw, data, True, refers)

    def _users(
        self, paths: Sequence[str], wanted: set[Wanted], read: Collection[str], skip: Mapping[str, str]
    ) -> Iterator[Referrer]:
        """:meth:`referrers` without ``calls``: the cross-file judgement's look (a round of
        ``cross_file._judge``'s)."""
        gate, modules, packages = _name_sets(wanted)
        # a use from another file names the module too (``from pkg.lib import launch``,
        # ``from . import lib``, ``import_module("pkg.lib")``, ``pkg.lib.launch``; a
        # re-export's own file does), or a package above it that re-exports the name
        # (``from pkg import launch``)
        # (each name with its own module: a file spelling ``config``, the name of a script's
        # global, and ``utils``, the package of another wanted function, reaches neither)
        parts_of = self._module_parts(wanted, paths)
        parts = set().union(*parts_of.values())
        imports_module = _ModuleImports(modules)
        # each set of names prepared once for the files (:func:`ppo_migrate.project.spelling.names`)
        gate_names, parts_names = spelling_names(frozenset(gate)), spelling_names(frozenset(parts))
        packages_names, modules_names = spelling_names(frozenset(packages)), spelling_names(frozenset(modules))
        # a relative import (``from .lib import launch``) reaches a wanted module only from a
        # file inside that module's outermost package (none reaches a script's module)
        roots = _package_roots(wanted)
        read_bytes = current().read_bytes
        for path in paths:
            try:
                raw = read_bytes(path)  # read once a run
            except (OSError, ValueError):
                continue
            # the names are read in UTF-8: a cookie's ``latin-1`` file re-encoded
            data = utf8_source(raw)
            if data is None:
                continue
            spelled = identifiers(data, gate_names)
            if spelled:
                here = os.path.abspath(path)
                spelled = {n for n in spelled if skip.get(n) != here}  # not only its own names
            refers = (
                (spelled is None or bool(spelled))
                and (
                    (b"from ." in data and _inside(path, roots)) or path in read
                    or _names_with_their_modules(data, spelled, parts_of, parts_names)
                    or (loads_by_name(data) and mentions(data, packages_names))
                )
                or b"import *" in data  # ``from .lib import *`` re-exports names it never spells
                # ``from pkg.sub import lib as engine``: a module re-exported, names unspelled
                or (b"import" in data and imports_module.found_in(data, modules_names))
                or (b"getattr(" in data and mentions(data, modules_names))  # ``getattr(lib, "la" + "unch")``
            )
            yield Referrer(path, raw, data, spelled is None or bool(spelled), refers)

    def _module_parts(self, wanted: Collection[Wanted], paths: Sequence[str]) -> dict[str, set[str]]:
        """Wanted name -> the module parts a file using it from elsewhere must spell: the last
        part of its module (``lib`` for ``pkg.lib.launch``) and of each package above that
        module whose ``__init__.py`` is among ``paths`` and may hand the name on (it spells the
        name or its module's last part, ``from .lib import launch`` or ``from .sub import lib as
        engine``; imports ``*``; or defines a module ``__getattr__``). Only through such a
        package can a file reach ``pkg.lib.launch`` without naming ``lib``
        (``from pkg import launch``); the others need not be read for it. A package between
        that binds another package (``from . import sub``) hands on nothing by itself: a use
        through it names ``lib``, or a package below that is checked in turn.

        The packages above are walked once a module, not once a name (benchmark item 12's
        3,000 wanted functions live in 200 modules)."""
        #: module -> the wanted names in it
        names_in: dict[str, set[str]] = {}
        for w in wanted:  # no empty set made for each of 9,000 names (benchmark item 12)
            module = w.module or ""
            held = names_in.get(module)
            if held is None:
                held = names_in[module] = set()
            held.add(w.name)
        #: package -> the modules below it holding wanted names
        under: dict[str, list[str]] = {}
        parts_of: dict[str, set[str]] = {}
        for module, names in names_in.items():
            last = module.rpartition(".")[2]
            for name in names:
                parts = parts_of.get(name)
                if parts is None:
                    parts_of[name] = {last}
                else:
                    parts.add(last)
            package = module
            while "." in package:
                package = package.rpartition(".")[0]
                under.setdefault(package, []).append(module)
        read_bytes = current().read_bytes
        for path in paths:
            if os.path.basename(path) != "__init__.py":
                continue
            package = module_name(path)
            if package not in under:
                continue
            try:
                raw = read_bytes(path)  # read once a run
            except (OSError, ValueError):
                continue
            data = utf8_source(raw)
            if data is None:
                continue
            part = package.rpartition(".")[2]
            if hands_on_unspelled(data):
                spelled = None
            else:
                spelled = identifiers(data, set().union(
                    *(names_in[m] for m in under[package]),
                    (m.rpartition(".")[2] for m in under[package]),
                ))
            for module in under[package]:
                # the name itself, or its module's last part (which hands on all its names)
                names = names_in[module]
                if spelled is not None and module.rpartition(".")[2] not in spelled:
                    names = names & spelled
                for name in names:
                    parts_of.setdefault(name, set()).add(part)
        return parts_of

    # -- which file beyond the run spells a name --------------------------------------------
    def spelled_beyond(self, root: str | os.PathLike[str], name: str, files: Sequence[str]) -> str | None:
        """A ``.py`` file under ``root`` that is not one of ``files`` and whose bytes contain
        ``name`` (or any non-ASCII byte: it may spell it another way), relative to the working
        directory, else ``None``: the caller phase's look for an override of a method in a
        file the run did not analyse (:func:`ppo_migrate.rules.callers.plan`; pre-commit
        passes only staged files). Hidden folders and ``__pycache__``, ``node_modules``,
        ``site-packages``, ``build``, ``dist`` are skipped; each folder is listed and each file
        read once a run (through the snapshot)."""
        snapshot = current()
        read_bytes = snapshot.read_bytes
        realpath = snapshot.fs.realpath
        seen = {realpath(os.path.abspath(f)) for f in files}
        needle = name.encode("utf-8")
        for directory, subdirs, filenames in snapshot.fs.walk(root):
            subdirs[:] = sorted(d for d in subdirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
            for filename in sorted(filenames):
                if not filename.endswith(".py"):
                    continue
                full = os.path.join(directory, filename)
                if realpath(full) in seen:
                    continue
                try:
                    data = read_bytes(full)
                except (OSError, ValueError):
                    continue
                if needle in data or not data.isascii():
                    return os.path.relpath(full)
        return None

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


#: Folders :meth:`References.spelled_beyond` does not walk (besides hidden ones).
_SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "build", "dist"})


def _calls_paired(
    data: bytes, path: str, paired: list[tuple[bytes, str, tuple[bytes, ...]]],
    pairs_of: Mapping[bytes, list[tuple[str, frozenset[bytes]]]], words: Words,
) -> bool:
    """Whether the file at ``path`` holding ``data`` may call one of ``paired``
    (``(name, home, module parts)``: it spells the function's name and is its own file or
    spells one of its module's parts). ``pairs_of``: ``paired`` by name; ``words``: every
    name and part of them. An ASCII file's words are read once
    (:class:`ppo_migrate.prefilter.Words`), then met against ``pairs_of``; another file may
    spell them in forms NFKC folds (:func:`ppo_migrate.project.spelling.spells`), asked pair
    by pair."""
    if not data.isascii():
        return any(
            spells(data, n) and (home == path or any(spells(data, m) for m in modules))
            for n, home, modules in paired
        )

    def calls(spelled: set[bytes]) -> bool:
        return any(
            home == path or not modules.isdisjoint(spelled)
            for n in spelled
            for home, modules in pairs_of.get(n, ())
        )

    # the names and parts that are whole tokens decide most files (a module calling the
    # function it defines, or importing it by its module's name); the rest need every word
    return calls(words.whole(data)) or calls(words.spelled(data))


class _ModuleImports:
    """Whether a file imports one of ``modules`` itself (the module object:
    :func:`ppo_migrate.project.spelling.module_import_pattern`), its pattern compiled at the
    first file that may (~6 ms for benchmark item 12's 200 modules, whose files never spell
    them). The pattern matches only where a module stands as a whole word (``\\b`` on either
    side, word characters being ASCII letters, digits and ``_`` in a bytes pattern): when
    every module is such a word, an ASCII file none of whose words is a module
    (:func:`ppo_migrate.project.spelling.identifiers`) cannot match, and is not searched."""

    def __init__(self, modules: set[str]) -> None:
        self.modules = modules
        # (no module: the pattern's empty alternative then matches any import)
        self.plain = bool(modules) and all(plain_word(m) for m in modules)
        self.pattern: re.Pattern[bytes] | None = None

    def found_in(self, data: bytes, names: Names) -> bool:
        """Whether ``data`` imports one of the modules (``names``: the same, prepared for
        :func:`ppo_migrate.project.spelling.identifiers`)."""
        if self.plain and identifiers(data, names) == set():
            return False  # an ASCII file spelling none of them as a word
        if self.pattern is None:
            self.pattern = module_import_pattern(self.modules)
        return self.pattern.search(data) is not None


def _name_sets(wanted: Collection[Wanted]) -> tuple[set[str], set[str], set[str]]:
    """``(names, modules, packages)`` of the wanted names: their last parts (``launch`` of
    ``pkg.lib.launch``), their modules' last parts (``lib``) and every part of their modules
    (``pkg``, ``lib``: a module loaded by a name built at run time,
    ``import_module("pkg." + name)``, may be any module under a package it names). Each
    module is split once (benchmark item 12: 15,000 names in 1,000 module spellings)."""
    names: set[str] = set()
    modules: set[str] = set()
    packages: set[str] = set()
    seen: set[str] = set()
    for w in wanted:
        names.add(w.name)
        module = w.module or ""
        if module in seen:
            continue
        seen.add(module)
        modules.add(module.rpartition(".")[2])
        packages.update(p for p in module.split(".") if p)
    return names, modules, packages


def _package_roots(wanted: Collection[Wanted]) -> set[str] | None:
    """The directories of the outermost packages holding the wanted names' modules (their
    :attr:`Wanted.home`); ``None`` when one's file is not known (then any file may reach it)."""
    roots: set[str] = set()
    seen: set[str] = set()  # a file holds many wanted names (15 calls a file: 9,000 entries)
    for w in wanted:
        where = w.home
        if not where:
            return None
        if where in seen:
            continue
        seen.add(where)
        package = module_package(where)
        if package:  # a module in no package is reached by no relative import
            # the folder the outermost package lives in (the package root), and that
            # package's own folder below it
            root = package_root(where, package)
            if root is not None:
                roots.add(os.path.join(os.fspath(root), package[0]))
    return roots


def _inside(path: str, roots: set[str] | None) -> bool:
    """Whether ``path`` lies in one of ``roots`` (any path when ``roots`` is ``None``)."""
    if roots is None:
        return True
    here = os.path.abspath(path)
    return any(here.startswith(root + os.sep) for root in roots)


def _names_with_their_modules(
    data: bytes, spelled: set[str] | None, parts_of: Mapping[str, set[str]], parts: Names
) -> bool:
    """Whether the file spells a wanted name together with one of that name's module parts
    (:meth:`References._module_parts`); ``spelled``: the wanted names it spells (``None``:
    any)."""
    mentioned = identifiers(data, parts)
    if mentioned is None or spelled is None:
        return mentioned is None or bool(mentioned)
    return any(parts_of.get(n, set()) & mentioned for n in spelled)


def reexported(name: str, wanted: Container[str], aliases: Mapping[str, str]) -> str:
    """``name`` followed through the re-exports known (``aliases``: ``pkg.launch`` ->
    ``pkg.mid.launch`` -> ``pkg.lib.launch``), up to a ``wanted`` name (at most 8 steps):
    the module spelling a use reaches a wanted name through."""
    for _ in range(8):
        if name in wanted or name not in aliases:
            return name
        name = aliases[name]
    return name


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
    "MAX_CLASSES", "MAX_RECORDS", "Referrer", "References", "Wanted", "current_references", "forget_outside",
    "module_file", "of", "package_root", "reexported",
]
