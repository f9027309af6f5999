"""One walk of a repository per run: its folders and the names of their files (issue 26).

The callee in effect asks two questions of the whole repository, not only of the analysed
paths: which files put a folder on ``sys.path`` (:mod:`ppo_migrate.project.import_roots`),
and where copies of verl lie that nothing known puts there (stray copies,
:func:`package_copies`). Both read :func:`repository_listing`, made once per repository
root and kept for the process (``_LISTINGS``).

What the walk does not enter:

* what discovery would not: ruff's default excludes (:data:`ppo_migrate.settings_model.DEFAULT_EXCLUDES`:
  VCS folders, virtual environments, caches, ``site-packages``), build output
  (:data:`NOT_WALKED`), and what ``.gitignore`` ignores inside a git repository
  (:class:`ppo_migrate.project.discovery.IgnoreRules`, the same layers discovery applies); symbolic
  links to folders are not followed;
* **test data** (:data:`TEST_DATA_FOLDERS`): a folder named ``fixtures``, ``testdata``,
  ``test_data`` or ``test-data`` holds inputs of the project's own tests (a tool's sample
  projects: this repository keeps verl 0.8 copies under ``fixtures/callee/``). Nothing in
  it is imported by the project's code: its copies are not stray, and its files declare no
  import root of the project. A file *inside* test data belongs to its sample project,
  walked on its own (:func:`walk_root`). A folder of *test doubles* (:data:`DOUBLES_FOLDERS`:
  ``tests/``, ``fakes/``, ``stubs/`` ...) is walked: a fake package there runs in the
  project's tests, so a zero-argument fake makes the fix unsafe (as
  :mod:`ppo_migrate.rules.patches` says for the fakes it sees).

The rule is a name rule on purpose: it needs no reading of files, holds for any layout,
and a user whose real code sits under ``fixtures/`` can say what runs with
``verl-version`` or a pin.

``.gitignore`` decides which files are *analysed*, not which verl may be *in effect*
(trial 26c, D): a setup script clones verl into an ignored folder by design, and a launch
step the tool does not read (``cd work/rl && python -m app.train``, direnv's ``path_add``,
an editor's or a workflow's ``PYTHONPATH``) puts it first on the path. The walk records
the folders it did not enter because git ignores them (:attr:`Listing.ignored`), the
virtual environments it skipped by name (:attr:`Listing.environments`) and the other folders
it skipped by name that may hold a checkout (:attr:`Listing.skipped`: ``dist/``,
``__pypackages__/``, ``site-packages/`` ...); :func:`unlisted_copies` looks into them for a
copy of verl, hidden folders included (trial 26d: ``.deps/checkouts/volcengine/verl``),
down to :data:`IGNORED_DEPTH` levels, within a budget of folders listed and entries read
(:data:`MAX_IGNORED_FOLDERS`, :data:`MAX_IGNORED_ENTRIES`), once a run. Together with the
walk itself (:func:`package_copies`), every checked-out copy of verl's module in the
repository's tree is seen, wherever a clone script, a ``.pth`` file, ``pip install -e``
or a ``PYTHONPATH`` the tool does not read may have put it, except under VCS internals
(``.git/``), ``node_modules/``, caches and test data.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator
from typing import NamedTuple

from ppo_migrate.files import decode_text, utf8_text
from ppo_migrate.project.references import module_file

#: Folders of test data (inputs of the project's own tests, never imported by its code).
TEST_DATA_FOLDERS: frozenset[str] = frozenset({"fixtures", "testdata", "test_data", "test-data"})
#: Folders of test doubles: a copy of verl's module under one is a fake a test may put first
#: on ``sys.path`` (:mod:`ppo_migrate.rules.patches`).
DOUBLES_FOLDERS: frozenset[str] = frozenset({
    "tests", "test", "testing", "fakes", "fake", "mocks", "mock", "stubs", "stub", "doubles",
    "test_utils", "testutils",
})
#: Folders of build output and caches not in ruff's default excludes.
NOT_WALKED: frozenset[str] = frozenset({"__pycache__", "build", ".eggs", ".hypothesis", ".cache"})
#: Build output whose stale copy of verl is what ``pip install .``/``setup.py build`` left:
#: not walked, but looked into for copies (:func:`build_copies`).
BUILD_FOLDERS: frozenset[str] = frozenset({"build"})
#: How many folders of a repository are listed at most (a walk of a home directory by mistake).
MAX_FOLDERS = 20000
#: How deep below a folder git ignores a copy's install root may lie (``work/`` ignored,
#: ``work/rl/verl/``: 1; ``deps/`` ignored, ``deps/fork/src/verl/``: 2; a GOPATH-like
#: ``build-deps/src/github.com/volcengine/verl/``: 4; trial 26d).
IGNORED_DEPTH = 6
#: How many folders :func:`unlisted_copies` lists at most per repository and run, and how
#: many entries it reads in all of them (a data set or a model cache in an ignored folder is
#: not walked): about 30 ms at most.
MAX_IGNORED_FOLDERS = 600
MAX_IGNORED_ENTRIES = 15000
#: Folders skipped by name (ruff's default excludes, :data:`NOT_WALKED`) that no checkout of
#: verl lies in: VCS internals, ``node_modules``, caches, and tox's and nox's environments
#: (rebuilt from their configuration, whose pins are read). The others the walk skips by
#: name (``dist/``, ``__pypackages__/``, ``site-packages/``, ``.eggs/``, ``_build/`` ...),
#: when no environment, are recorded (:attr:`Listing.skipped`) and looked into.
NO_CHECKOUT: frozenset[str] = frozenset({
    ".git", ".git-rewrite", ".hg", ".svn", ".bzr", "node_modules", "__pycache__", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".pytype", ".ipynb_checkpoints", ".hypothesis", ".cache",
    ".tox", ".nox",
})
#: A folder with more entries than this is data (a clone's folders hold far fewer): not
#: looked into further; its listing stops there.
MAX_FOLDER_ENTRIES = 1000
#: Virtual environments the walk skips by name (ruff's default excludes) whose
#: ``site-packages`` :func:`unlisted_copies` looks into: a project run with ``.venv``
#: (``uv run``, ``poetry run``, an activated environment, direnv's ``layout python`` under
#: ``.direnv/``) imports that environment's verl. ``.tox``/``.nox`` are not among them: tox
#: and nox rebuild their environments from their configuration, whose pins are read.
ENVIRONMENT_NAMES: frozenset[str] = frozenset({".venv", "venv", ".direnv"})
#: Files or folders that make a folder an environment (a virtual environment, a conda one).
ENVIRONMENT_MARKERS: tuple[str, ...] = ("pyvenv.cfg", "conda-meta")


class Listing(NamedTuple):
    """A repository's folders and their files, as :func:`repository_listing` found them.

    Attributes:
        root: the repository root (absolute).
        folders: ``{absolute folder: names of its regular files}`` (links to regular files
            included; FIFOs, sockets and broken links not), in walk order (parents first).
        complete: ``False`` when the walk stopped at :data:`MAX_FOLDERS`.
        builds: the build-output folders (:data:`BUILD_FOLDERS`) the walk found and did not
            enter, ignored by ``.gitignore`` or not: :func:`build_copies` looks into them.
        ignored: the folders the walk did not enter because ``.gitignore`` ignores them
            (sorted): :func:`unlisted_copies` looks into them.
        environments: the folders of :data:`ENVIRONMENT_NAMES` the walk skipped by name
            (sorted): :func:`unlisted_copies` looks into their ``site-packages``.
        skipped: the other folders the walk skipped by name, but for those of
            :data:`NO_CHECKOUT`, :data:`TEST_DATA_FOLDERS` and build output (sorted):
            :func:`unlisted_copies` looks into them as into ignored ones.
        dangling: the symbolic links the walk met whose target is absent here (sorted):
            a committed ``verl -> .cache/verl/verl`` that the launch script fills, or
            ``verl -> /opt/verl/verl`` present only in the image (trial 26e, J).
    """

    root: str
    folders: dict[str, tuple[str, ...]]
    complete: bool = True
    builds: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()
    environments: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    dangling: tuple[str, ...] = ()

    def files(self, predicate) -> list[str]:
        """The absolute paths of the files whose name satisfies ``predicate(name)``."""
        return [os.path.join(d, n) for d, names in self.folders.items() for n in names if predicate(n)]


#: ``(root, respect_gitignore) -> Listing``: one walk per repository per run
_LISTINGS: dict[tuple[str, bool], Listing] = {}


def repository_listing(root: str | os.PathLike[str], respect_gitignore: bool = True) -> Listing:
    """The folders under ``root`` and the names of their files, walked once per process.

    Args:
        root: the repository root (:func:`ppo_migrate.project.root.search_bound`).
        respect_gitignore: honour ``.gitignore`` as discovery does (the run's
            ``respect-gitignore``).

    Returns:
        A :class:`Listing`; an unreadable folder is listed empty. Never raises.

    The rules of what is not entered are the module's (test data, excludes, build output,
    ignored paths, folder links).
    """
    root = os.path.abspath(os.fspath(root))
    key = (root, bool(respect_gitignore))
    cached = _LISTINGS.get(key)
    if cached is not None:
        return cached
    from ppo_migrate.project.discovery import IgnoreRules
    from ppo_migrate.settings_model import DEFAULT_EXCLUDES, Settings

    rules = IgnoreRules(Settings(project_root=root, respect_gitignore=bool(respect_gitignore)))
    skipped = NOT_WALKED | TEST_DATA_FOLDERS | frozenset(DEFAULT_EXCLUDES)
    folders: dict[str, tuple[str, ...]] = {}
    builds: list[str] = []
    ignored: list[str] = []
    environments: list[str] = []
    unentered: list[str] = []  # skipped by name, may hold a checkout
    dangling: list[str] = []  # links whose target is absent
    stack = [(root, rules.start(root))]
    complete = True
    while stack:
        if len(folders) >= MAX_FOLDERS:
            complete = False
            break
        directory, layers = stack.pop()
        try:
            with os.scandir(directory) as it:
                entries = list(it)
        except OSError:
            folders[directory] = ()
            continue
        layers = rules.enter(layers, directory, (e.name for e in entries))
        files: list[str] = []
        below: list[str] = []
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir and (name in skipped or name.endswith(".egg-info")):
                if name in BUILD_FOLDERS:  # recorded before .gitignore: a build is ignored
                    builds.append(entry.path)
                elif name in ENVIRONMENT_NAMES:
                    environments.append(entry.path)
                elif name not in NO_CHECKOUT and name not in TEST_DATA_FOLDERS and not name.endswith(".egg-info"):
                    unentered.append(entry.path)  # ``dist/``, ``__pypackages__/``: ignored or not
                continue
            if layers and rules.ignored(layers, entry.path, name, is_dir):
                if is_dir:  # not analysed, but a copy of verl there may be in effect
                    ignored.append(entry.path)
                continue
            if is_dir:
                below.append(entry.path)
                continue
            try:  # a regular file (or a link to one): never a FIFO, whose open would block
                regular = entry.is_file()
            except OSError:
                regular = False
            if regular:
                files.append(name)
            elif not is_dir and entry.is_symlink() and not os.path.exists(entry.path):
                dangling.append(entry.path)
        folders[directory] = tuple(sorted(files))
        stack.extend((d, layers) for d in sorted(below, reverse=True))
    listing = _LISTINGS[key] = Listing(
        root, folders, complete, tuple(sorted(builds)), tuple(sorted(ignored)), tuple(sorted(environments)),
        tuple(sorted(unentered)), tuple(sorted(dangling)),
    )
    return listing


def package_copies(listing: Listing, package: str, module: str) -> list[str]:
    """The install roots of every copy of ``package`` holding ``module`` in ``listing``.

    Args:
        listing: a :func:`repository_listing`.
        package: the top-level package, e.g. ``"verl"``.
        module: a dotted module of it, e.g. ``"verl.trainer.constants_ppo"``.

    Returns:
        Each folder ``D`` (absolute, walk order) holding ``D/<package>/.../<module>.py`` (or the
        module's package ``__init__.py``) where ``D`` is no package itself (``mylib/verl/`` under
        a ``mylib/__init__.py`` is ``mylib.verl``, not a copy: the rule of
        :func:`ppo_migrate.rules.signatures.install_levels`; such copies are
        :func:`nested_copies`).
    """
    return [parent for parent, nested in _package_folders(listing, package, module) if not nested]


def nested_copies(listing: Listing, package: str, module: str) -> list[str]:
    """The folders ``P`` (absolute, walk order) that are packages themselves (``P/__init__.py``)
    and hold a copy ``P/<package>/`` holding ``module`` (trial 26h, H-B1).

    Imported through the project root such a copy is ``P.<package>`` (``app.verl``), not
    ``<package>``; but a file of ``P`` run as a script (``python app/train.py``, ``cd app &&
    python -m train``) has ``P`` first on ``sys.path`` (Python puts the script's own folder,
    or the working directory for ``-m``, there), and then ``P/<package>/`` *is* ``<package>``
    for every import of the process. Vendored verl needs this: its own modules import
    ``verl.*`` absolutely, so a copy at ``P/verl/`` runs only with ``P`` on the path.

    Args:
        listing: a :func:`repository_listing`.
        package: the top-level package, e.g. ``"verl"``.
        module: a dotted module of it, e.g. ``"verl.trainer.constants_ppo"``.
    """
    return [parent for parent, nested in _package_folders(listing, package, module) if nested]


#: ``(kind, id(listing), package, module) -> (listing, folders)``: one search of a listing per
#: run for :func:`_package_folders` and :func:`renamed_copies` (asked once per calling folder)
_SEARCHED: dict[tuple[str, int, str, str], tuple[Listing, list]] = {}


def _searched(kind: str, listing: Listing, package: str, module: str, search) -> list:
    """``search(listing, package, module)``, kept per listing (the run's, made once)."""
    key = (kind, id(listing), package, module)
    cached = _SEARCHED.get(key)
    if cached is None or cached[0] is not listing:
        cached = _SEARCHED[key] = (listing, search(listing, package, module))
    return cached[1]


def _package_folders(listing: Listing, package: str, module: str) -> list[tuple[str, bool]]:
    """``(D, D is a package)`` for each folder ``D`` of ``listing`` holding
    ``D/<package>/.../<module>.py`` (or the module's package ``__init__.py``), walk order."""
    return _searched("package", listing, package, module, _search_package_folders)


def _search_package_folders(listing: Listing, package: str, module: str) -> list[tuple[str, bool]]:
    parts = module.split(".")
    if parts[0] != package:
        return []
    tail = parts[1:]
    found: list[tuple[str, bool]] = []
    folders = listing.folders
    for directory in folders:
        if os.path.basename(directory) != package:
            continue
        parent = os.path.dirname(directory)
        if _holds_tail(folders, directory, tail):
            found.append((parent, "__init__.py" in folders.get(parent, ())))
    return found


def _holds_tail(folders: dict[str, tuple[str, ...]], directory: str, tail: list[str]) -> bool:
    """Whether ``directory`` (a folder of a listing) holds the module ``tail`` (its parts below
    the top-level package): ``a/b.py`` or ``a/b/__init__.py``; ``[]``: ``__init__.py``."""
    if not tail:
        return "__init__.py" in folders.get(directory, ())
    holder = folders.get(os.path.join(directory, *tail[:-1]), ())
    return f"{tail[-1]}.py" in holder or "__init__.py" in folders.get(os.path.join(directory, *tail), ())


def renamed_copies(listing: Listing, package: str, module: str) -> list[str]:
    """Folders not named ``package`` that hold ``module`` as ``package`` would: candidate
    copies of ``package`` under another name (trial 26h, H-B2).

    A fork kept as ``third_party/rlcore/`` (its ``trainer/constants_ppo.py`` beside an
    ``__init__.py``) becomes ``verl`` when the project runs: a launch script's ``ln -s
    ../../third_party/rlcore build/py/verl``, a Makefile rule, ``os.symlink`` or
    ``shutil.copytree(..., tmp/"verl")`` in the launcher, then ``sys.path.insert`` or
    ``PYTHONPATH``. None of that can be read in general, and in a fresh clone the link or
    copy does not exist yet; so a copy is recognised by its *content*, not its folder's
    name: the caller reads the folder as the package (a ``package-dir`` mapping's reading,
    :func:`ppo_migrate.rules.signatures.mapped_definitions`) and counts it only when the
    module there binds the function.

    Args:
        listing: a :func:`repository_listing`.
        package: the top-level package, e.g. ``"verl"``.
        module: a dotted module below it, e.g. ``"verl.trainer.constants_ppo"`` (the package
            alone, ``"verl"``, names no content: ``[]``).

    Returns:
        Each folder ``X`` (absolute, walk order) whose name is not ``package`` holding
        ``X/<module below package>.py`` (or its package ``__init__.py``), ``X`` not inside a
        folder named ``package`` (that is the package's own sub-folder).
    """
    return _searched("renamed", listing, package, module, _search_renamed)


def _search_renamed(listing: Listing, package: str, module: str) -> list[str]:
    parts = module.split(".")
    if parts[0] != package or len(parts) < 2:
        return []
    tail = parts[1:]
    folders = listing.folders
    found: list[str] = []
    for directory in folders:
        if os.path.basename(directory) == package or package in relative_parts(directory, listing.root):
            continue
        if _holds_tail(folders, directory, tail):
            found.append(directory)
    return found


def lone_module_files(listing: Listing, package: str, module: str) -> list[str]:
    """Files named as ``module``'s own file that belong to no copy of ``package``: candidate
    replacements of that one module (trial 26i, I-B5).

    A hotfix kept as ``patches/constants_ppo.py`` is put in the place of
    ``verl/trainer/constants_ppo.py`` when the project runs: copied over a copy of the installed
    verl that the launcher makes (``shutil.copytree`` of ``find_spec("verl")``'s folder, then
    ``shutil.copy``, then ``sys.path.insert``), as :func:`renamed_copies` says for a whole fork.
    The copy does not exist in a fresh clone and the copying cannot be read in general, so the
    file is recognised by its *name* and the caller by its content (it counts only when it
    defines the function).

    Files judged as part of a copy are not among them: those whose folders spell the module's
    package path (``X/trainer/constants_ppo.py``: :func:`package_copies`,
    :func:`nested_copies`, :func:`renamed_copies`) and those inside a folder named
    ``package`` (``verl/utils/constants_ppo.py`` is another module of verl's own tree). Nor
    are fakes under a folder of test doubles (:data:`DOUBLES_FOLDERS`:
    ``tests/fakes/constants_ppo.py``): the doubles table of :mod:`ppo_migrate.rules.patches`
    reads how the tests load them (``SourceFileLoader``, ``spec_from_file_location``,
    ``sys.modules``) and names that line; a fake the tests load otherwise breaks the tests,
    not the trainer.

    Args:
        listing: a :func:`repository_listing` (only the folders it walked: test data,
            build output and what git ignores are not searched).
        package: the top-level package, e.g. ``"verl"``.
        module: a dotted module below it, e.g. ``"verl.trainer.constants_ppo"`` (the package
            alone, or a module that is a package's ``__init__.py``, names no file: ``[]``).

    Returns:
        The absolute paths of the files ``<last part of module>.py``, in walk order. Never raises.
    """
    return _searched("lone", listing, package, module, _search_lone)


def _search_lone(listing: Listing, package: str, module: str) -> list[str]:
    parts = module.split(".")
    if parts[0] != package or len(parts) < 3:
        return []  # ``verl.x``: any folder holding ``x.py`` is already a renamed copy
    file_name = parts[-1] + ".py"
    holder = os.sep + os.path.join(*parts[1:-1])
    found: list[str] = []
    for directory, names in listing.folders.items():
        if file_name not in names or directory.endswith(holder):
            continue  # ``X/trainer/constants_ppo.py``: a copy's module (the copies' rules)
        parts_below = relative_parts(directory, listing.root)
        if package in parts_below:
            continue  # verl's own tree, or a copy named ``package``: its other modules
        if DOUBLES_FOLDERS.intersection(parts_below):
            continue  # a test's fake: the doubles table reads how the tests load it
        found.append(os.path.join(directory, file_name))
    return found


def own_module_import(listing: Listing, path: str) -> tuple[str, int] | None:
    """Where project code imports ``path`` as a module of the project's own packages, or
    ``None`` (fresh user 43, W1: ``app/compat/constants_ppo.py`` in the package ``app.compat``,
    imported by ``app/train.py`` as ``app.compat.constants_ppo``, is the project's module,
    not a hotfix of verl's that merely shares its name).

    Rule: ``path`` must lie in a package (its folder holds ``__init__.py``:
    :func:`ppo_migrate.project.modules.module_name` gives its dotted name), and another Python
    file of ``listing`` must import that name: ``import a.b.c``, ``from a.b import c``, ``from
    a.b.c import x``, a relative ``from .b import c`` resolved against the importer's package,
    or ``importlib.import_module("a.b.c")``. An importer that also touches ``sys.modules`` or a
    ``__path__`` may install the module under another name: it does not count. Files are
    parsed only when their bytes hold the module's last part.

    Args:
        listing: a :func:`repository_listing`.
        path: the file (absolute).

    Returns:
        ``(importing file, 1-based line)`` of the first import found, in walk order. Never raises.
    """
    import ast
    import warnings

    from ppo_migrate.project.modules import module_name, module_package, package_for_relative_imports, resolve_relative
    from ppo_migrate.project.snapshot import current

    if not module_package(path):
        return None
    dotted = module_name(path)
    word = dotted.rsplit(".", 1)[-1].encode()
    snapshot = current()
    for other in listing.files(lambda n: n.endswith(".py")):
        if other == path:
            continue
        try:
            data = snapshot.read_bytes(other)
        except (OSError, ValueError):
            continue
        if word not in data or b"sys.modules" in data or b"__path__" in data:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(decode_text(data, errors="replace"))
        except (SyntaxError, ValueError, RecursionError):
            continue
        package: tuple[str, ...] | None = None
        for node in ast.walk(tree):
            if isinstance(node, ast.Import) and any(a.name == dotted or a.name.startswith(dotted + ".") for a in node.names):
                return other, node.lineno
            if isinstance(node, ast.ImportFrom):
                if node.level and package is None:
                    package = package_for_relative_imports(other)
                base = "." * node.level + (node.module or "")
                source = resolve_relative(base, package or ()) if node.level else node.module
                if source is None:
                    continue
                if source == dotted or any(f"{source}.{a.name}" == dotted for a in node.names):
                    return other, node.lineno
            if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)) \
                    and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) == "import_module" \
                    and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == dotted:
                return other, node.lineno
    return None


def unlisted_renamed_copies(listing: Listing, package: str, module: str) -> list[UnlistedCopy]:
    """:func:`renamed_copies` in the folders the walk did not enter: those git ignores
    (:attr:`Listing.ignored`) and those skipped by name that may hold a checkout
    (:attr:`Listing.skipped`), searched as :func:`unlisted_copies` searches them (level by
    level, :data:`IGNORED_DEPTH` levels down, within :data:`MAX_IGNORED_FOLDERS` folders and
    :data:`MAX_IGNORED_ENTRIES` entries; not entering :data:`NO_CHECKOUT`, build output, test
    data, links to folders or a folder named ``package``). Fresh user 40, B3: a fork kept as
    ``work/rlcore/`` with ``.gitignore: work/``, linked as ``verl`` by a launch script, is as
    plausible as a git-ignored ``work/verl/`` (``.gitignore`` decides what is analysed, not
    which verl may be in effect).

    Args:
        listing: a :func:`repository_listing`.
        package: the top-level package, e.g. ``"verl"``.
        module: a dotted module below it, e.g. ``"verl.trainer.constants_ppo"``.

    Returns:
        Each folder ``X`` found (``kind`` ``"ignored"`` or ``"skipped"``, ``folder`` the top
        folder not entered), whose name is not ``package``, holding ``X/<module below
        package>.py`` (or its package ``__init__.py``), sorted. Never raises.
    """
    parts = module.split(".")
    if parts[0] != package or len(parts) < 2:
        return []
    key = (id(listing), package, "renamed:" + module)
    cached = _UNLISTED.get(key)
    if cached is not None and cached[0] is listing:
        return cached[1]
    from ppo_migrate.project.snapshot import current

    fs = current().fs
    tail = parts[1:]
    budget = [MAX_IGNORED_ENTRIES, MAX_IGNORED_FOLDERS]
    skipped = NOT_WALKED | TEST_DATA_FOLDERS | NO_CHECKOUT
    found: list[UnlistedCopy] = []
    queue: deque[tuple[str, int, str, str]] = deque(
        (t, 0, t, kind) for t, kind in sorted(
            [(t, "ignored") for t in listing.ignored] + [(t, "skipped") for t in listing.skipped]
        )
    )
    while queue and budget[0] > 0 and budget[1] > 0:
        here, depth, top, kind = queue.popleft()
        if os.path.basename(here) == package:
            continue  # the package itself: :func:`unlisted_copies`' rule
        base = os.path.join(here, *tail)
        if fs.is_file(base + ".py") or fs.is_file(os.path.join(base, "__init__.py")):
            found.append(UnlistedCopy(here, top, kind))
            continue  # a copy: its sub-folders are its own
        if depth >= IGNORED_DEPTH:
            continue
        names, dirs, read = _scan(here, MAX_FOLDER_ENTRIES)
        budget[0] -= read + 1
        budget[1] -= 1
        if names.intersection(ENVIRONMENT_MARKERS):
            continue  # an environment: :func:`unlisted_copies` reads its site-packages
        queue.extend(
            (os.path.join(here, d), depth + 1, top, kind) for d in dirs
            if d not in skipped and not d.endswith(".egg-info")
        )
    found.sort()
    _UNLISTED[key] = (listing, found)
    return found


def build_copies(listing: Listing, package: str, module: str) -> list[str]:
    """The install roots of copies of ``package`` holding ``module`` in the build output
    the walk skipped: ``build/lib/`` and ``build/lib.<platform>/`` (setuptools' ``build_py``).

    Args:
        listing: a :func:`repository_listing` (its :attr:`Listing.builds`).
        package: the top-level package, e.g. ``"verl"``.
        module: a dotted module of it, e.g. ``"verl.trainer.constants_ppo"``.

    Returns:
        Each ``build/lib*`` folder (absolute) holding ``<package>/.../<module>.py`` (or the
        module's package ``__init__.py``). A stale build is a copy of the release it was
        built from, and a conftest or a tox ``setenv`` may put it first on the path; the
        walk itself still skips build folders (their other files declare nothing).
    """
    parts = module.split(".")
    if parts[0] != package:
        return []
    found: list[str] = []
    for build in listing.builds:
        try:
            names = sorted(n for n in os.listdir(build) if n == "lib" or n.startswith("lib."))
        except OSError:
            continue
        for name in names:
            lib = os.path.join(build, name)
            if module_file(lib, module) is not None:  # the one resolver
                found.append(lib)
    return found


def mapped_copies(listing: Listing, package: str, module: str) -> list[tuple[str, str]]:
    """Copies of ``package`` a sub-project installs from a folder of another name.

    ``[tool.setuptools.package-dir] verl = "legacy_verl"`` in ``third_party/fork/pyproject.toml``
    makes ``pip install -e third_party/fork`` import ``verl`` from ``legacy_verl/``, which no
    folder named ``verl`` shows.

    Args:
        listing: a :func:`repository_listing`.
        package: the top-level package, e.g. ``"verl"``.
        module: a dotted module of it, e.g. ``"verl.trainer.constants_ppo"``.

    Returns:
        ``(pyproject.toml, mapped folder)`` (absolute) for each mapping of ``package`` to a
        folder not named ``package`` that holds ``module`` (its file or package
        ``__init__.py``); a ``pyproject.toml`` is parsed only when it names ``package-dir``.
    """
    import tomllib

    parts = module.split(".")
    if parts[0] != package:
        return []
    found: list[tuple[str, str]] = []
    for directory, names in listing.folders.items():
        if "pyproject.toml" not in names:
            continue
        path = os.path.join(directory, "pyproject.toml")
        try:
            with open(path, "rb") as f:
                data = utf8_text(f.read(1_000_000))  # by its byte-order mark (trial 26d)
            if b"package-dir" not in data:
                continue
            table = tomllib.loads(decode_text(data, "replace"))
        except (OSError, ValueError, tomllib.TOMLDecodeError):
            continue
        tool = table.get("tool")
        setuptools = tool.get("setuptools") if isinstance(tool, dict) else None
        mapping = setuptools.get("package-dir") if isinstance(setuptools, dict) else None
        target = mapping.get(package) if isinstance(mapping, dict) else None
        if not isinstance(target, str) or not target.strip() or os.path.isabs(target):
            continue
        folder = os.path.normpath(os.path.join(directory, target))
        if os.path.basename(folder) == package or not folder.startswith(directory + os.sep):
            continue
        # ``import verl.a.b`` loads ``folder/a/b.py``: the one resolver, from the folder
        # above the mapped one under the package's own name (``verl`` alone: its ``__init__.py``)
        if (
            module_file(folder, ".".join(parts[1:])) if len(parts) > 1
            else module_file(folder, "__init__")
        ) is not None:
            found.append((path, folder))
    return found


class UnlistedCopy(NamedTuple):
    """A copy of a package the walk did not list (:func:`unlisted_copies`).

    Attributes:
        root: the copy's install root (absolute): the folder holding ``<package>/``.
        folder: the folder the walk did not enter that holds it: a folder git ignores, a
            virtual environment, or a folder skipped by name (:attr:`Listing.skipped`).
        kind: ``"ignored"`` (under a folder git ignores), ``"environment"`` (an
            environment's ``site-packages``) or ``"skipped"`` (under a folder the walk
            skipped by name: ``dist/``, ``__pypackages__/``).
    """

    root: str
    folder: str
    kind: str


#: ``(id(listing), package, module) -> (listing, copies)``: one search per listing
_UNLISTED: dict[tuple[int, str, str], tuple[Listing, list[UnlistedCopy]]] = {}


def _environment_sites(
    listing: Listing, entries: Callable[[str], tuple[set[str], list[str]]]
) -> Iterator[tuple[str, str]]:
    """``(environment, site-packages folder)`` of each environment of the repository: a
    folder of :attr:`Listing.environments` holding one of :data:`ENVIRONMENT_MARKERS`, else
    each child of it that does (``.direnv/python-3.11/``); its ``Lib/site-packages``, then
    each ``lib/python*/site-packages``, whether they exist or not.

    Args:
        listing: a :func:`repository_listing`.
        entries: ``entries(folder) -> (names, sorted sub-folder names)``, as :func:`_scan`
            gives them (a caller may charge them to a budget).
    """
    for folder in listing.environments:
        names, dirs = entries(folder)
        if names.intersection(ENVIRONMENT_MARKERS):
            environments = [(folder, names)]
        else:  # one environment per child
            environments = [(os.path.join(folder, child), None) for child in dirs]
        for where, inner in environments:
            inner = entries(where)[0] if inner is None else inner
            if inner.intersection(ENVIRONMENT_MARKERS):
                yield from ((where, site) for site in _site_folders(where, inner, entries))


def _site_folders(
    environment: str, names: set[str], entries: Callable[[str], tuple[set[str], list[str]]]
) -> list[str]:
    """An environment's ``Lib/site-packages`` and each ``lib/python*/site-packages``
    (``names``: the environment folder's own; ``entries`` as for :func:`_environment_sites`)."""
    sites = [os.path.join(environment, "Lib", "site-packages")]
    if "lib" in names:
        lib = os.path.join(environment, "lib")
        sites += [os.path.join(lib, d, "site-packages") for d in entries(lib)[1] if d.startswith("python")]
    return sites


class EnvironmentDistribution(NamedTuple):
    """A distribution installed in one of the repository's environments, by its metadata
    (:func:`environment_distributions`).

    Attributes:
        version: the ``Version:`` of its ``METADATA`` as written, e.g. ``"0.8.0"``.
        metadata: the ``METADATA`` file (absolute).
        environment: the environment folder, e.g. ``/repo/.venv``.
    """

    version: str
    metadata: str
    environment: str


def environment_distributions(listing: Listing, name: str) -> list[EnvironmentDistribution]:
    """The distributions of ``name`` installed in the repository's environments
    (:attr:`Listing.environments` holding ``pyvenv.cfg`` or ``conda-meta``), read from their
    ``<name>-<version>.dist-info/METADATA`` in ``lib/python*/site-packages`` or
    ``Lib/site-packages``: an editable install (``uv pip install -e ../verl``: a
    ``.pth`` file or a PEP 660 finder, no package folder) is found this way too (trial 26d).

    Args:
        listing: a :func:`repository_listing`.
        name: the distribution's name, normalised (``"verl"``).

    Returns:
        In the listing's order. Never raises: an unreadable file is skipped.
    """
    from ppo_migrate.project.snapshot import current

    fs = current().fs
    found: list[EnvironmentDistribution] = []
    prefix = f"{name}-"
    for folder, site in _environment_sites(listing, lambda f: _scan(f, MAX_FOLDER_ENTRIES)[:2]):
        for entry in fs.subdirectories(site):
            base = os.path.basename(entry)
            if not (base.lower().startswith(prefix) and base.endswith(".dist-info")):
                continue
            metadata = os.path.join(entry, "METADATA")
            try:
                text = current().read_text(metadata)
            except (OSError, ValueError):
                continue
            for line in text.splitlines():
                if line.startswith("Version:"):
                    found.append(EnvironmentDistribution(line[len("Version:"):].strip(), metadata, folder))
                    break
                if not line.strip():
                    break  # the headers end at the first blank line
    return found


def unlisted_copies(listing: Listing, package: str, module: str) -> list[UnlistedCopy]:
    """Copies of ``package`` holding ``module`` in the folders the walk did not enter.

    Trial 26c (D): ``.gitignore`` decides which files are analysed, not which verl may be in
    effect. Searched once per listing (the run's); the folders are listed here, by
    :func:`_scan` (a listing stopped at :data:`MAX_FOLDER_ENTRIES` must not stand for the
    folder in the run's :class:`ppo_migrate.project.filesystem.FileSystem`), and the copies'
    files stat-ed through that ``FileSystem``:

    * each folder git ignores (:attr:`Listing.ignored`) and each folder the walk skipped by
      name that may hold a checkout (:attr:`Listing.skipped`): a folder ``D`` at most
      :data:`IGNORED_DEPTH` levels below it holding ``D/<package>/.../<module>.py`` (or the
      module's package ``__init__.py``; a namespace ``<package>/`` too), ``D`` no package
      itself (``mylib/verl/`` is ``mylib.verl``); the ignored folder itself when it is named
      ``package``. Hidden folders are entered (``.deps/checkouts/volcengine/verl``, trial
      26d), and so is a folder named ``package`` that is no package (a clone's top folder,
      ``vendor/src/github/verl/``, holding ``verl/``). Not entered: VCS internals,
      ``node_modules`` and caches (:data:`NO_CHECKOUT`), build output, test data, links to
      folders, a package named ``package`` (its sub-folders are the package's) and a folder
      holding a copy (one copy a clone: its own sub-folders are not searched further);
    * an environment (a folder holding ``pyvenv.cfg`` or ``conda-meta``: one of
      :attr:`Listing.environments` or a child of it, or one met in an ignored folder): its
      ``lib/python*/site-packages`` and ``Lib/site-packages``. A virtual environment in the
      repository is the interpreter the project runs with (``uv run``, ``poetry run``, an
      activated ``.venv``), so its verl may be the one in effect; an editable install there
      (a ``.pth`` file) holds no copy and is not followed.

    The ignored folders are searched level by level, all of them at once (a shallow clone is
    found before a data set in another ignored folder is listed further); a folder of more
    than :data:`MAX_FOLDER_ENTRIES` entries is data, not looked into; and at most
    :data:`MAX_IGNORED_FOLDERS` folders are listed and :data:`MAX_IGNORED_ENTRIES` entries
    read in all: a data set or a model cache in an ignored folder costs that much at most
    (about 20 ms), its deeper folders nothing.

    Args:
        listing: a :func:`repository_listing`.
        package: the top-level package, e.g. ``"verl"``.
        module: a dotted module of it, e.g. ``"verl.trainer.constants_ppo"``.

    Returns:
        The copies found (environments first, then those in ignored folders, each sorted by
        install root);
        ``[]`` for a module outside ``package``. Never raises.
    """
    parts = module.split(".")
    if parts[0] != package:
        return []
    key = (id(listing), package, module)
    cached = _UNLISTED.get(key)
    if cached is not None and cached[0] is listing:
        return cached[1]
    from ppo_migrate.project.snapshot import current

    fs = current().fs
    budget = [MAX_IGNORED_ENTRIES, MAX_IGNORED_FOLDERS]  # entries, folders

    def entries(folder: str) -> tuple[set[str], list[str]]:
        if budget[0] <= 0 or budget[1] <= 0:
            return set(), []
        names, dirs, read = _scan(folder, MAX_FOLDER_ENTRIES)
        budget[0] -= read + 1
        budget[1] -= 1
        return names, dirs

    def holds(folder: str) -> bool:  # ``folder/<package>/.../<module>`` exists
        base = os.path.join(folder, *parts)
        return fs.is_file(base + ".py") or fs.is_file(os.path.join(base, "__init__.py"))

    def environment(folder: str, names: set[str]) -> list[UnlistedCopy]:
        sites = _site_folders(folder, names, entries)
        return [UnlistedCopy(site, folder, "environment") for site in sites if holds(site)]

    found = [
        UnlistedCopy(site, folder, "environment")
        for folder, site in _environment_sites(listing, entries)
        if holds(site)
    ]
    skipped = NOT_WALKED | TEST_DATA_FOLDERS | NO_CHECKOUT  # environments: by their markers
    folders = listing.folders
    # level by level across every ignored folder: a shallow clone (``work/rl/verl``) is found
    # before a data set in another ignored folder spends the budget
    # (parent, name, depth, top folder, kind)
    queue: deque[tuple[str, str, int, str, str]] = deque()
    ignored: list[UnlistedCopy] = []
    tops = [(t, "ignored") for t in listing.ignored] + [(t, "skipped") for t in listing.skipped]
    for top, kind in sorted(tops):
        if os.path.basename(top) == package:  # ``verl/`` itself ignored
            parent = os.path.dirname(top)
            if "__init__.py" not in folders.get(parent, ()) and holds(parent):
                ignored.append(UnlistedCopy(parent, top, kind))
                continue
        queue.append((os.path.dirname(top), os.path.basename(top), 0, top, kind))
    while queue and budget[0] > 0 and budget[1] > 0:
        parent, name, depth, top, kind = queue.popleft()
        here = os.path.join(parent, name)
        names, dirs = entries(here)
        if names.intersection(ENVIRONMENT_MARKERS):  # a virtual environment git ignores
            ignored += environment(here, names)
            continue
        if name == package and "__init__.py" in names:
            continue  # a package ``verl/``: its sub-folders are its own
        if package in names and "__init__.py" not in names and holds(here):
            ignored.append(UnlistedCopy(here, top, kind))
            continue  # a clone: not searched further
        if depth >= IGNORED_DEPTH:
            continue
        queue.extend(
            (here, d, depth + 1, top, kind) for d in dirs
            if d not in skipped and not d.endswith(".egg-info")
        )
    found += sorted(ignored)
    _UNLISTED[key] = (listing, found)
    return found


def _scan(folder: str, limit: int) -> tuple[set[str], list[str], int]:
    """The names in ``folder`` and its sub-folders (links to folders not counted), read with
    :func:`os.scandir` up to ``limit + 1`` entries.

    Args:
        folder: an absolute folder.
        limit: the most entries a folder may have to be looked into.

    Returns:
        ``(names, sorted sub-folder names, entries read)``; ``(set(), [], read)`` for a
        folder of more than ``limit`` entries (data: what was read would depend on the file
        system's order) or one that cannot be listed. Never raises.
    """
    names: set[str] = set()
    dirs: list[str] = []
    try:
        with os.scandir(folder) as it:
            for entry in it:
                if len(names) >= limit:
                    return set(), [], len(names) + 1
                names.add(entry.name)
                try:
                    if entry.is_dir(follow_symlinks=False):
                        dirs.append(entry.name)
                except OSError:
                    continue
    except (OSError, ValueError):
        return set(), [], 0
    return names, sorted(dirs), len(names)


def walk_root(directory: str | os.PathLike[str], root: str | os.PathLike[str]) -> str | None:
    """Where the walk for a file in ``directory`` starts, given its repository ``root``.

    Args:
        directory: the calling file's folder (absolute).
        root: its repository root (:func:`ppo_migrate.project.root.search_bound`).

    Returns:
        ``root``; for a file inside test data (below a folder of :data:`TEST_DATA_FOLDERS`, the
        innermost one counting), its *sample project*: the highest folder with a project
        marker (:func:`ppo_migrate.project.root.is_marked`) between the test-data folder and
        ``directory``, else the test-data folder's child holding the file. Test data is data
        for the code outside it; a sample project in it is a repository of its own (this
        repository's ``fixtures/callee/legacy/vendored`` is judged apart from
        ``fixtures/callee/migrated``). ``None`` for a file directly in a test-data folder.
    """
    directory, root = os.path.abspath(os.fspath(directory)), os.path.abspath(os.fspath(root))
    parts = relative_parts(directory, root)
    inner = max((i for i, p in enumerate(parts) if p in TEST_DATA_FOLDERS), default=None)
    if inner is None:
        return root
    if inner == len(parts) - 1:
        return None
    from ppo_migrate.project.root import is_marked

    for end in range(inner + 2, len(parts) + 1):
        candidate = os.path.join(root, *parts[:end])
        if is_marked(candidate):
            return candidate
    return os.path.join(root, *parts[: inner + 2])


def relative_parts(path: str, root: str) -> list[str]:
    """The components of ``path`` below ``root`` (both absolute); ``[]`` outside it.

    Two absolute POSIX paths already in normal form (no ``.``/``..`` part, no doubled or
    trailing separator: a listing's) are compared as strings, which is what
    :func:`os.path.relpath` answers for them; anything else goes through it. The callee's
    first decision asks this of every file of the repository several times (benchmark item
    12: ~400 calls, ~15% of that decision's time in ``relpath``)."""
    if _plain_absolute(path) and _plain_absolute(root):
        if path == root:
            return []
        if root == "/":
            return path[1:].split("/")
        if path.startswith(root) and path[len(root)] == "/":
            return path[len(root) + 1:].split("/")
        return []  # outside ``root``: ``relpath`` starts with ``..``
    rel = os.path.relpath(path, root)
    if rel == os.curdir or rel.startswith(os.pardir):
        return []
    return rel.split(os.sep)


def _plain_absolute(path: object) -> bool:
    """Whether ``path`` is an absolute POSIX path (a ``str``) in the form
    :func:`os.path.normpath` leaves unchanged, by a test that may say no to some that are
    (a hidden folder's ``/.git``): no ``.`` or ``..`` part, no doubled separator, no trailing
    one but the root's."""
    return (
        type(path) is str and os.sep == "/" and os.altsep is None and path.startswith("/")
        and "/." not in path and "//" not in path and (path == "/" or not path.endswith("/"))
        and "\0" not in path
    )


def in_doubles_folder(path: str, root: str) -> bool:
    """Whether ``path`` lies under a folder of test doubles (:data:`DOUBLES_FOLDERS`) below
    ``root``: a fake package a test puts on ``sys.path``, not the project's copy."""
    return bool(DOUBLES_FOLDERS.intersection(relative_parts(path, root)))
