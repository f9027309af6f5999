"""The verl version a project declares, read from its project files without executing anything.

Source of the rules: issue 12 ("Which definition a call binds to", step 3). verl PR #6976 gave
``get_ppo_ray_runtime_env`` its ``config=None`` parameter; every verl release before 0.9.0 defines
it without one, so the version a project runs decides whether a rewrite is valid. When the tree
does not hold the definition itself, this module answers "which verl does this project declare?":

1. A **lock** decides when there is one: ``uv.lock``, ``poetry.lock``, ``pdm.lock`` (``[[package]]``
   with ``name = "verl"``), PEP 751 ``pylock.toml``/``pylock.<name>.toml`` (``[[packages]]``),
   rye's ``requirements.lock``/``requirements-dev.lock`` (pip's syntax), exact pins (``==``/``===``) in ``requirements*.txt`` (and the files
   they include with ``-r``), and a reference to a verl wheel or sdist whose file name states the
   version (``verl @ https://.../verl-0.8.0-py3-none-any.whl``). Several lock entries: the lowest
   version decides. A lock entry from git/a URL/a path has no version (uv's ``source``, Poetry's
   ``[package.source]``, PDM's ``git``/``url``/``path``).
2. Else a **direct reference** (``verl @ git+...``, ``[tool.uv.sources]``, a Poetry ``git``/``path``
   dependency, ``-e git+...#egg=verl``) decides: no version (``None``), the project runs whatever
   that reference holds. It overrides specifiers, as uv's sources do.
3. Else the **lowest version the specifiers allow**, across every place the project declares verl:
   ``[project] dependencies``, every ``[project.optional-dependencies]`` extra, every PEP 735
   ``[dependency-groups]`` group, ``[tool.poetry.*dependencies]`` (``^``/``~`` translated),
   ``[tool.pdm.dev-dependencies]``, ``[tool.pdm.resolution.overrides]``, ``[tool.uv] dev-dependencies``/``override-dependencies``/``constraint-dependencies``,
   ``requirements*.txt`` (with ``-r`` includes; ``-c`` constraints declare nothing), ``setup.cfg``
   ``[options] install_requires``/``[options.extras_require]`` and literal ``install_requires``/
   ``extras_require`` in ``setup.py`` (read with :mod:`ast`; a module-level name bound once to a
   literal and never imported, mutated or rebound counts as that literal; issue 26: any other
   string literal of ``setup.py`` that is a requirement on verl with a version counts too, and an
   f-string/``.format``/``%`` template naming verl is evaluated from such literals, else it is a
   direct reference whose release cannot be read). A bare ``verl`` only
   decides (with an unknown version) when no other declaration bounds the version. Also read
   (issue 26, :mod:`.pins`): ``environment.yml`` (conda and ``pip:``), ``tox.ini`` deps,
   ``Pipfile``/``Pipfile.lock``, ``pixi.toml``, hatch environments, ``*requirements*.txt``.

Every folder from the calling file to the repository root (the project's own declarations),
every environment folder of the repository (dependency files, no Python code: ``docker/``,
``docs/``), and the install commands of its Dockerfiles, Makefiles, shell scripts and GitHub
workflows (``RUN pip install 'verl==0.8.0'``, ``pip install -r deps/gpu.txt``;
:mod:`.install_pins`) give such a decision; the lowest version before 0.9.0 among them wins
(every pin that could apply must accept). Only the project's own declarations that are in
every environment the code runs in may show that a config is taken: an environment's pin (a
Sphinx build's ``docs/requirements.txt``, a ``continue-on-error`` nightly job, an install under
a shell ``if``, a nox session, another interpreter's ``/opt/venv/bin/pip``) and an optional
declaration (``_Found.optional``, trial 26c, C: an extra, a dependency group, a dev group, a
poetry group, ``extras_require``/``tests_require``, a requirement ``setup.py`` writes only
under a condition (an ``if`` branch, a conditional expression, a ``match`` case, an ``except``
handler, an operand of ``and``/``or``: trial 26d), a tox ``[testenv:X]``, a hatch environment
other than ``default``, a pixi feature, ``Pipfile``'s other categories, a requirements file
other than the root ``requirements.txt``/``.in``/``.lock``, ``pylock.<name>.toml``,
``environment-<name>.yml``) may only lower the release, and when they alone allow only new
releases nothing decides (trial 26b, docs/design/project-model.md; :func:`verl_evidence`).
Trial 26e (I): when every install of a project in the repository's install commands passes
``--no-deps`` (``RUN pip install --no-deps -e .`` in an image that brings its own verl), its
own ``pyproject.toml``/``setup.py``/``setup.cfg`` install nothing there and are optional too
(:func:`_installed_without_dependencies`).

"Lowest allowed" is the lowest of :data:`KNOWN_VERL_RELEASES` and the versions written in the
specifier itself (for ``>=``, ``==``, ``~=``, ``===``) that the specifier set contains; the written
versions are candidates so that ``>=0.8.1`` answers 0.8.1 (a pre-0.9 line) rather than jumping to
the next known release. Taking the lowest is the safe direction: a lower version can only make a
rewrite less likely.

Requirement markers are not evaluated: they describe the machine that runs the trainer, not
this one, so every branch of a marker split (``verl==0.8.0; python_version < '3.11'``) counts
and the lowest version decides. A git reference whose tag names a release (``@v0.8.0``, uv's
and Poetry's ``tag =``) counts as a lock on that release; a path reference (``-e ./verl``,
``path =``, ``file:``) carries its directory so that the definition can be read there.
Anything unparsable (a broken TOML file as a whole, a line, an entry) is skipped; no exception
leaves :func:`declared_verl`.
"""

from __future__ import annotations

import ast
import configparser
import fnmatch
import os
import re
from collections.abc import Iterator, Set as AbstractSet
from pathlib import Path
from typing import Any, NamedTuple

import tomllib
from packaging.version import InvalidVersion, Version
from ppo_migrate.rules.install_pins import install_pins, project_installs, uninstalled_runs
from ppo_migrate.rules.pins import PIN_FILES, pyproject_tool_pins, read_pins
from ppo_migrate.rules.requirements import (
    _UNREADABLE,
    _VERL,
    FIRST_CONFIG_RELEASE,
    KNOWN_VERL_RELEASES,
    _Found,
    _from_reference,
    _from_requirement,
    _is_verl,
    _line_of,
    _line_of_string,
    _line_of_toml_key,
    _local_directory,
    _offset_of_table,
    _pep508_list,
    _read_requirements,
    _read_text,
    _source_line,
    _strings,
    _tag,
    lowest_allowed,
    optional,
    poetry_specifier,
)
from ppo_migrate.files import UnreadableFile
from ppo_migrate.patterns import lazy_pattern
from ppo_migrate.project.root import is_git_top, is_marked, up_to_git_top
from ppo_migrate.project.snapshot import current
from ppo_migrate.project.installed import installed_metadata

__all__ = [
    "KNOWN_VERL_RELEASES",
    "PROJECT_FILES",
    "VerlDeclaration",
    "VerlEvidence",
    "declared_verl",
    "installed_verl",
    "lowest_allowed",
    "verl_evidence",
]


#: Files whose presence makes a directory a project root (``requirements*.txt`` by pattern).
PROJECT_FILES: tuple[str, ...] = (
    "pyproject.toml",
    "setup.cfg",
    "setup.py",
    "uv.lock",
    "poetry.lock",
    "pdm.lock",
    "pylock.toml",
    "*requirements*.txt",
    "requirements*.lock",
    *PIN_FILES,
)

#: Where pip-style requirement files live: ``requirements*.txt``, pip-tools' ``requirements*.in``
#: and a ``requirements/`` directory of them.
_REQUIREMENTS_PATTERNS = (
    "*requirements*.txt",
    "*requirements*.in",
    "requirements/*.txt",
    "requirements/*.in",
    "requirements*.lock",  # rye's requirements.lock/requirements-dev.lock: pip's syntax, exact pins
)
_LOCK_FILES = ("uv.lock", "poetry.lock", "pdm.lock")


class VerlDeclaration(NamedTuple):
    """What one project file says about the verl the project runs.

    Attributes:
        version: the version that decides (a lock's resolved version, the lowest version a
            specifier allows, the installed version); ``None`` when verl is declared but its
            version is unknown (a direct reference, a git URL, a uv source, a bare ``verl``).
        path: absolute path string of the file that decided.
        line: 1-based line of the requirement or lock entry in that file (1 when not known).
        requirement: the declaration as written, e.g. ``"verl>=0.7.1,<0.9.0"``,
            ``"verl 0.9.1 (uv.lock)"``, ``"verl @ git+https://...@abc123"``.
        kind: ``"lock"``, ``"specifier"``, ``"direct-reference"`` or (from :func:`installed_verl`)
            ``"installed"``.
        why: one line for ``--explain``/JSON, e.g.
            ``"lowest version pyproject.toml:31 verl>=0.7.1,<0.9.0 allows"``.
        local_path: for a direct reference to a directory (``-e ./third_party/verl``,
            ``[tool.uv.sources] verl = { path = ... }``, ``file:`` URLs), that directory
            (absolute); the definition can be read there. ``None`` otherwise.
        no_deps: for the project's own declaration that every install of the project skips
            (trial 26e, I: ``pip install --no-deps -e .``), the first such install as
            ``file:line`` (``/repo/Dockerfile:3``, the file's absolute path); for one that a
            Dockerfile running the project's code never installs (trial 26f), that
            Dockerfile's instruction running Python; ``None`` otherwise.
        image: with such a Dockerfile (trial 26f, ``g3_dockerfile_never_installs_project``),
            the image its code runs in (its last ``FROM``), whose verl cannot be known;
            ``None`` otherwise (``no_deps`` is then a ``--no-deps`` install).
        inferred: ``True`` when ``local_path`` was taken for verl because it holds a ``verl/``
            package while the line spells no verl (``-e ./.deps/rlcore``, trial 26g W2).
        redirect: for a shell install whose word holds an unquoted ``>`` (``pip install
            verl>=0.9.0`` in a script: the shell installs an unpinned verl and writes to a
            file ``=0.9.0``; trial 26e, W3), that file's name; ``None`` otherwise.
        via: for a dependent project's pin (trial 26j, B4), the path dependency that makes
            the calling file's project run under it (:class:`PathDependent`); ``None`` otherwise.
    """

    version: Version | None
    path: str
    line: int
    requirement: str
    kind: str
    why: str
    local_path: str | None = None
    no_deps: str | None = None
    redirect: str | None = None
    image: str | None = None
    #: the local folder was taken for verl by its ``verl/`` package, not by a name the line
    #: spells (:attr:`ppo_migrate.rules.requirements._Found.inferred`, trial 26g W2)
    inferred: bool = False
    #: a uv workspace source whose verl member ``exclude`` takes out: that member's pattern
    #: (``line`` is the exclude entry's; fresh user 43, W11), else ``None``
    excluded: str | None = None
    #: the pin is a dependent project's (trial 26j, B4): the path dependency that makes the
    #: calling file's project run under it (:class:`PathDependent`), else ``None``
    via: PathDependent | None = None


def declared_verl(start: str | os.PathLike[str], stop: str | os.PathLike[str] | None = None) -> VerlDeclaration | None:
    """What the project holding ``start`` declares about verl, without executing anything.

    The decision of :func:`verl_evidence` (its ``decided``); see there.

    Args:
        start: a file or directory path (need not exist; a non-directory counts as a file).
        stop: the last directory to look in; when it is not an ancestor of ``start`` the walk goes
            to the filesystem root.

    Returns:
        The deciding :class:`VerlDeclaration`, or ``None`` when nothing the project declares
        decides (no project file declares verl, or only an environment shows a release that
        takes a config).

    Raises:
        Nothing: unreadable or unparsable files and entries are skipped.
    """
    return verl_evidence(start, stop).decided


class VerlEvidence(NamedTuple):
    """What :func:`verl_evidence` found.

    Attributes:
        decided: the declaration that decides, or ``None`` when nothing decides.
        set_aside: the environments' pins (an environment folder's file, an install command)
            that allow only releases taking a config and so decided nothing, in the order
            found (e.g. ``docs/requirements.txt:2 verl>=0.9.0``); shown by the reason of a
            fix that nothing decides.
    """

    decided: VerlDeclaration | None
    set_aside: tuple[VerlDeclaration, ...] = ()


def verl_evidence(start: str | os.PathLike[str], stop: str | os.PathLike[str] | None = None) -> VerlEvidence:
    """Which verl the project holding ``start`` runs, from its files, without executing anything.

    Walks from ``start`` (a file: its directory; a directory: itself) upwards to ``stop``
    (inclusive; default: the filesystem root), and past neither the repository root (the git
    top level: :func:`ppo_migrate.project.root.up_to_git_top`). Every directory on the way
    holding a project file (:data:`PROJECT_FILES`) that declares verl gives its decision, by
    the rules in this module's docstring (lock, else direct reference, else the lowest version
    any specifier allows): these are the project's **own** declarations, except those marked
    optional (an extra, a group, another tox/hatch/pixi environment, ...: :func:`_decide`),
    which count as an environment's (trial 26c, C). Every environment
    folder of the repository (a folder with dependency files and no Python code, e.g.
    ``docker/requirements.txt``, ``docs/requirements.txt``; the repository is the git top level,
    else the highest project folder found) and every install command of its Dockerfiles,
    Makefiles, scripts and workflows (:mod:`.install_pins`) give an **environment's** decision.

    Trial 26j (B4): the own decisions of every project of the repository that depends on
    one of the calling file's project folders by path (:func:`_path_dependents`; a monorepo's
    app on verl 0.8.0 running a library that declares ``verl>=0.9.0``) join the
    environments' decisions, marked with the dependency (:attr:`VerlDeclaration.via`).

    Issue 26 (trial 26b, "an environment's pin alone shows a new verl"; the rule of
    docs/design/project-model.md): every pin that could apply must accept a config, so the
    lowest version before 0.9.0 among all decisions wins, then one whose release cannot be
    read; only the project's own declarations may show that a config is taken (a Sphinx
    build's ``docs/requirements.txt``, a ``continue-on-error`` nightly job or an install under
    a shell ``if`` builds another environment than the one the code runs in). When only an
    environment shows a new release, nothing decides: those pins are returned as
    ``set_aside`` (:func:`_strictest`).

    Args:
        start: a file or directory path (need not exist; a non-directory counts as a file).
        stop: the last directory to look in; when it is not an ancestor of ``start`` the walk goes
            to the filesystem root.

    Returns:
        A :class:`VerlEvidence`: the deciding declaration (``None`` when nothing decides) and
        the environments' pins set aside.

    Raises:
        Nothing: unreadable or unparsable files and entries are skipped (a ``pyproject.toml``
        that ``tomllib`` rejects contributes nothing).
    """
    first = Path(os.path.abspath(os.fspath(start)))
    if not current().fs.is_dir(first):  # the snapshot's stat, once a run
        first = first.parent
    own: list[VerlDeclaration] = []
    environment: list[VerlDeclaration] = []
    ancestors: set[Path] = set()
    top: Path | None = None
    here = first
    marked: list[Path] = []
    for directory in up_to_git_top(first, stop):
        here = Path(directory)
        ancestors.add(here)
        if is_marked(here):
            top = here
            marked.append(here)
    scope = here if is_git_top(here) else top
    skipped = _installed_without_dependencies(scope) if scope is not None else {}
    # trial 26f: a Dockerfile that runs the code uninstalled sets aside every declaration of
    # the folder (a --no-deps install only its pyproject/setup files): it wins
    images = _never_installed(scope) if scope is not None else {}
    skipped.update({folder: where for folder, (where, _) in images.items()})
    for folder in marked:
        decided, elsewhere = _decide(folder, skipped.get(folder), images[folder][1] if folder in images else None)
        if decided is not None:
            own.append(decided)
        if elsewhere is not None:  # an extra, a group, another tox/hatch environment
            environment.append(elsewhere)
    if scope is not None:
        for folder in _environment_folders(scope):
            if folder not in ancestors:
                environment.extend(d for d in _decide(folder) if d is not None)
        # ``RUN pip install 'verl==0.8.0'``, a CI step's or a script's install: they build
        # an environment the code may run in, so their pins join the others (each command
        # installs: every one decides alone, an exact pin elsewhere does not hide it)
        for found in install_pins(scope):
            decided = _choose(scope, [found])
            if decided is not None:
                environment.append(decided)
    if scope is not None and marked:
        # trial 26j (B4): a project of the repository that depends on this one by path runs
        # its calls under its own verl; its pins are plausible definitions too
        environment.extend(_dependents_pins(scope, marked, ancestors))
    return _strictest(own, environment)


class PathDependent(NamedTuple):
    """A project of the repository that depends on another by path (trial 26j, B4).

    Attributes:
        folder: the dependent project's folder.
        path: the file declaring the dependency (``apps/job/pyproject.toml``).
        line: 1-based line of the dependency.
        text: that line, stripped (``rlcore = { path = "../../libs/rlcore", editable = true }``).
    """

    folder: Path
    path: str
    line: int
    text: str


#: the snapshot's memo of ``scope -> {depended-on folder: [PathDependent]}``, once a run
_DEPENDENTS = "versions.path_dependents"
#: a requirements line naming a local folder: ``-e ../lib``, ``./lib``, ``x @ file:...``
_REQUIREMENT_PATH = lazy_pattern(
    r"(?m)^[ \t]*(?:(?:-e|--editable)[ \t=]+([^\s;#]+)|((?:\.{1,2}/|/|file:)[^\s;#]*|[A-Za-z0-9._-]+[ \t]*@[ \t]*file:[^\s;#]+))"
)


def _dependents_pins(scope: Path, marked: list[Path], ancestors: set[Path]) -> list[VerlDeclaration]:
    """The verl pins of the projects that depend on a project folder of ``marked`` by path
    (and of those depending on them, transitively), as environments' declarations whose
    ``why`` names the path dependency: every one must accept a config (issue 26)."""
    dependents = _path_dependents(scope)
    out: list[VerlDeclaration] = []
    queue = list(marked)
    done = set(marked)
    while queue and len(done) < 64:
        target = queue.pop(0)
        for dep in dependents.get(target, ()):
            if dep.folder in done or dep.folder in ancestors:
                continue
            done.add(dep.folder)
            queue.append(dep.folder)
            # its optional pins too (a dev group's verl runs the library in that environment)
            out.extend(d._replace(via=dep) for d in _decide(dep.folder) if d is not None)
    return out


def _path_dependents(scope: Path) -> dict[Path, list[PathDependent]]:
    """Every path dependency the repository's ``pyproject.toml`` and requirements files
    declare, by the folder depended on: uv's ``[tool.uv.sources] x = { path = ... }``,
    poetry's ``x = { path = ..., develop = true }`` (any dependency table of
    ``[tool.poetry]``), a PEP 508 ``x @ file:///${PROJECT_ROOT}/...`` (``[project]``,
    pdm's ``dev-dependencies``), and a requirements line ``-e ../../libs/x`` / ``./x``
    (relative to the file's folder and to the repository root). One walk of the snapshot's
    listing (as :func:`_environment_folders`'s) a run; a file that does not spell ``path``
    or ``file:`` (a pyproject) or a local path (requirements) is not parsed."""
    memo = current().memo(_DEPENDENTS)
    cached = memo.get(scope)
    if cached is not None:
        return cached
    found: dict[Path, list[PathDependent]] = {}
    seen = 0
    for directory, dirs, files in current().fs.walk(scope):
        seen += 1
        if seen > _MAX_FOLDERS:
            break
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIPPED]
        for name in files:
            path = Path(directory) / name
            if name == "pyproject.toml":
                declared = _pyproject_path_dependencies(path)
            elif fnmatch.fnmatch(name, "*requirements*.txt") or fnmatch.fnmatch(name, "*requirements*.in"):
                declared = _requirements_path_dependencies(path, scope)
            else:
                continue
            for target, line, text in declared:
                found.setdefault(target, []).append(PathDependent(Path(directory), str(path), line, text))
    memo[scope] = found
    return found


def _line_spelling(raw: str, spelled: str) -> tuple[int, str]:
    at = raw.find(spelled)
    if at < 0:
        return 1, spelled
    line = raw.count("\n", 0, at) + 1
    return line, raw.splitlines()[line - 1].strip()


def _pyproject_path_dependencies(path: Path) -> list[tuple[Path, int, str]]:
    try:
        raw = _read_text(path)
    except _UNREADABLE:
        return []
    if "path" not in raw and "file:" not in raw:
        return []
    loaded = _load_toml(path)
    if loaded is None:
        return []
    data, raw = loaded
    out: list[tuple[Path, int, str]] = []

    def table(value: Any) -> dict[str, Any]:
        return value if isinstance(value, dict) else {}

    tool = table(data.get("tool"))
    poetry = table(tool.get("poetry"))
    tables = [table(table(tool.get("uv")).get("sources")), table(poetry.get("dependencies")),
              table(poetry.get("dev-dependencies"))]
    tables += [table(table(g).get("dependencies")) for g in table(poetry.get("group")).values()]
    for entries in tables:
        for entry in entries.values():
            for e in entry if isinstance(entry, list) else [entry]:
                folder = e.get("path") if isinstance(e, dict) else None
                if isinstance(folder, str):
                    local = _local_directory(folder, path)
                    if local is not None:
                        out.append((local, *_line_spelling(raw, folder)))
    project = table(data.get("project"))
    strings = _strings(project.get("dependencies"))
    for values in table(project.get("optional-dependencies")).values():
        strings += _strings(values)
    for values in table(data.get("dependency-groups")).values():
        strings += _strings(values)
    for values in table(table(tool.get("pdm")).get("dev-dependencies")).values():
        strings += _strings(values)
    for text in strings:
        m = re.search(r"(?:@|^\s*-e)\s*(file:\S+|\.{1,2}/\S*)", text)
        if m is None:
            continue
        local = _local_directory(m.group(1).split(";", 1)[0], path)
        if local is not None:
            out.append((local, *_line_spelling(raw, text)))
    return out


def _requirements_path_dependencies(path: Path, scope: Path) -> list[tuple[Path, int, str]]:
    try:
        raw = _read_text(path)
    except _UNREADABLE:
        return []
    out: list[tuple[Path, int, str]] = []
    for m in _REQUIREMENT_PATH.finditer(raw):
        group = 1 if m.group(1) is not None else 2
        reference = m.group(group)
        if "@" in reference and not reference.startswith(("file:", ".", "/")):
            reference = reference.split("@", 1)[1].strip()
        line = raw.count("\n", 0, m.start(group)) + 1
        text = raw.splitlines()[line - 1].strip()
        # pip reads a relative path against the working directory: the file's folder or the root
        for declared_in in (path, scope / path.name):
            local = _local_directory(reference, declared_in)
            if local is not None:
                out.append((local, line, text))
    return out


def _strictest(own: list[VerlDeclaration], environment: list[VerlDeclaration]) -> VerlEvidence:
    """The declaration that decides when several pins could apply (issue 26): every one must
    accept a config, so a version before 0.9.0 (the lowest, from anywhere) wins, then a
    reference whose release cannot be read (the project's own first), then the nearest of the
    project's own known versions, then a bare ``verl``. An environment's pin may only lower
    the release (trial 26b): one that allows only releases taking a config decides nothing
    and is set aside."""
    decisions = own + environment
    known = [d for d in decisions if d.version is not None]
    lowest = min(known, key=lambda d: d.version) if known else None
    if lowest is not None and lowest.version < FIRST_CONFIG_RELEASE:
        return VerlEvidence(lowest)
    unread = [d for d in decisions if d.version is None and d.kind != "specifier"]
    if unread:
        return VerlEvidence(unread[0])
    mine = [d for d in own if d.version is not None]
    if mine:  # every one accepts: the nearest (the calling file's own project) is shown
        return VerlEvidence(mine[0])
    set_aside = tuple(d for d in environment if d.version is not None)
    bare = [d for d in decisions if d.version is None]
    return VerlEvidence(bare[0] if bare else None, set_aside)


#: Folders never searched for dependency files (environments, caches, build output).
_SKIPPED = frozenset({"node_modules", "__pycache__", "site-packages", "venv", "build", "dist"})
#: How many folders of a repository are looked at for environment folders at most.
_MAX_FOLDERS = 20000
_FOLDERS: dict[Path, list[Path]] = {}


def _environment_folders(scope: Path) -> list[Path]:
    """Folders under ``scope`` (the repository root) whose dependency files install for the
    whole repository: they hold a dependency file and no Python file in their subtree
    (``docker/requirements.txt`` installed by a Dockerfile, ``envs/environment.yml``). A
    folder holding Python code with its own requirements is a sub-project: its pins apply
    to the files below it only (found by the upward walk). Hidden folders and those of
    :data:`_SKIPPED` are not entered. Cached per ``scope`` for the process."""
    cached = _FOLDERS.get(scope)
    if cached is not None:
        return cached
    has_py: dict[str, bool] = {}
    candidates: list[str] = []
    seen = 0
    for directory, dirs, files in current().fs.walk(scope):  # each folder listed once a run
        seen += 1
        if seen > _MAX_FOLDERS:
            break
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIPPED]
        has_py[directory] = any(f.endswith(".py") for f in files)
        if any(
            f in _PIN_NAMES
            or fnmatch.fnmatch(f, "*requirements*.txt")
            or fnmatch.fnmatch(f, "*requirements*.in")
            or fnmatch.fnmatch(f, "requirements*.lock")
            or fnmatch.fnmatch(f, "pylock.*toml")
            for f in files
        ):
            candidates.append(directory)
    for directory in sorted(has_py, key=len, reverse=True):  # children before parents
        if has_py[directory]:
            parent = os.path.dirname(directory)
            if parent in has_py:
                has_py[parent] = True
    found = [Path(d) for d in candidates if not has_py.get(d, True)]
    _FOLDERS[scope] = found
    return found


_PIN_NAMES = frozenset(
    {"pyproject.toml", "setup.cfg", "setup.py", "uv.lock", "poetry.lock", "pdm.lock", "pylock.toml", *PIN_FILES}
)


def installed_verl() -> VerlDeclaration | None:
    """The verl distribution installed in this interpreter, from its metadata (verl is not imported).

    Returns:
        A :class:`VerlDeclaration` of kind ``"installed"`` (``path``: the ``.dist-info``/``.egg-info``
        directory, ``line`` 1; ``version`` ``None`` when the metadata's version is not PEP 440), or
        ``None`` when :func:`importlib.metadata.distribution` finds no ``verl`` on ``sys.path``.
    """
    found = installed_metadata(_VERL)  # the collect layer asks importlib
    if found is None:
        return None
    raw, path = found
    try:
        version: Version | None = Version(raw)
    except InvalidVersion:
        version = None
    return VerlDeclaration(
        version=version,
        path=path,
        line=1,
        requirement=f"verl {raw} (installed)",
        kind="installed",
        why=f"verl {raw} installed in this interpreter ({path})",
    )


# ---------------------------------------------------------------------------------------------
# The file system, asked through the run's snapshot (issue 26: the analysis does no I/O)


def _is_file(path: Path) -> bool:
    """``path.is_file()``, stat-ed once a run (:class:`ppo_migrate.project.filesystem.FileSystem`)."""
    return current().fs.is_file(path)


def _glob(root: Path, pattern: str) -> list[Path]:
    """The regular files ``root.glob(pattern)`` gives for a ``pattern`` whose last part only
    holds wildcards (``"requirements/*.txt"``): names matched case-sensitively as
    :meth:`pathlib.Path.glob` matches them on POSIX (hidden names included), from the
    folder's listing (once a run).

    Raises:
        Nothing: a folder that cannot be listed gives ``[]``.
    """
    *folders, last = pattern.split("/")
    folder = root.joinpath(*folders)
    try:
        names = current().fs.list_dir(folder)
    except (OSError, ValueError):
        return []
    return [folder / n for n in names if fnmatch.fnmatchcase(n, last) and _is_file(folder / n)]


# ---------------------------------------------------------------------------------------------
# Walking and deciding


#: the files whose dependencies ``pip install .`` of their folder installs (trial 26e, I)
_PROJECT_DECLARATIONS = frozenset({"pyproject.toml", "setup.py", "setup.cfg"})


def _installed_without_dependencies(scope: Path) -> dict[Path, str]:
    """The project folders of the repository at ``scope`` that every install of the
    repository's projects installs with ``--no-deps`` (trial 26e, I; :func:`.install_pins.project_installs`),
    each with its first such install as ``file:line`` (the file's absolute path).

    An install belongs to the nearest folder at or above its file (up to ``scope``) that
    holds a project file (:func:`ppo_migrate.project.root.is_marked`): a root Dockerfile's
    ``pip install --no-deps -e .`` installs the root project, a workflow's too. A folder with
    one install without ``--no-deps``, or none, is not returned (its declarations install).
    Never raises."""
    installs: dict[Path, list[tuple[str, int, bool]]] = {}
    for path, line, no_deps in project_installs(scope):
        installs.setdefault(_owning_project(path, scope), []).append((path, line, no_deps))
    skipped: dict[Path, str] = {}
    for folder, found in installs.items():
        if all(no_deps for _, _, no_deps in found):
            path, line, _ = found[0]
            skipped[folder] = f"{os.path.abspath(path)}:{line}"
    return skipped


def _never_installed(scope: Path) -> dict[Path, tuple[str, str]]:
    """The project folders of the repository at ``scope`` whose code a Dockerfile runs in an
    image whose verl cannot be known, never installing the project (trial 26f;
    :func:`.install_pins.uninstalled_runs`), each with the first such Dockerfile's
    instruction running Python as ``file:line`` (absolute path) and its image.

    A Dockerfile belongs to the nearest folder at or above it (up to ``scope``) holding a
    project file, as an install does (:func:`_installed_without_dependencies`). Never raises.
    """
    found: dict[Path, tuple[str, str]] = {}
    for path, line, image in uninstalled_runs(scope):
        found.setdefault(_owning_project(path, scope), (f"{os.path.abspath(path)}:{line}", image))
    return found


def _owning_project(path: str, scope: Path) -> Path:
    """The project folder a file of the repository at ``scope`` belongs to: the nearest
    folder at or above it (up to ``scope``) holding a project file
    (:func:`ppo_migrate.project.root.is_marked`), else ``scope``."""
    folder = Path(path).parent
    while folder != scope and not is_marked(folder) and scope in folder.parents:
        folder = folder.parent
    return folder if is_marked(folder) else scope


def _decide(
    root: Path, no_deps: str | None = None, image: str | None = None
) -> tuple[VerlDeclaration | None, VerlDeclaration | None]:
    """The decisions of ``root``'s own files: ``(required, optional)``.

    ``required`` comes from the declarations installed wherever the project is
    (``[project] dependencies``, ``install_requires``, poetry's main group, the root
    requirements file, locks, ...), ``optional`` from those installed only in another
    environment (``_Found.optional``: an extra, a dependency group, a tox/hatch/pixi/Pipfile
    environment other than the default, another requirements file), which may only lower the
    release (trial 26c, C). A lock file's entry (``uv.lock``, ``poetry.lock``, ``pdm.lock``,
    ``pylock.toml``) is optional too when only optional tables of the folder declare verl:
    the lock then resolves it for those environments only.

    Trial 26e (I): when every install of the project passes ``--no-deps`` (``no_deps`` names
    the first, :func:`_installed_without_dependencies`), the project's own dependency
    declarations (``pyproject.toml``, ``setup.py``, ``setup.cfg``) install nothing where it
    runs: they are optional too, and the decision they give carries ``no_deps``. A root
    requirements file still decides; a lock that only resolves them is optional with them.

    Trial 26f: when a Dockerfile runs the project's code in an image whose verl cannot be
    known and never installs the project (``image`` names it, ``no_deps`` the instruction
    running Python: :func:`_never_installed`), none of the folder's own declarations
    installs there: every one is optional, and the decision they give carries both.

    Args:
        root: a directory.
        no_deps: the install of the project with ``--no-deps``, or the Dockerfile instruction
            that runs it uninstalled (``file:line``), or ``None``.
        image: the image of that Dockerfile (then ``no_deps`` is its instruction), or ``None``.

    Returns:
        Each decision by :func:`_choose`, ``None`` where nothing of that side declares verl.
    """
    found: list[_Found] = []
    for reader in (
        _read_locks,
        _read_pylock,
        _read_pyproject,
        _read_setup_cfg,
        _read_setup_py,
        _read_requirements_files,
        read_pins,
    ):
        found.extend(reader(root))
    skipped: set[tuple[Path, int]] = set()
    if no_deps is not None:  # ``pip install --no-deps .``: the project's own dependencies install nothing
        skipped = {
            (f.path, f.line) for f in found
            if not f.optional and (image is not None or f.path.name in _PROJECT_DECLARATIONS)
        }
        found = [f._replace(optional=True) if (f.path, f.line) in skipped else f for f in found]
    required = [f for f in found if not f.optional]
    elsewhere = [f for f in found if f.optional]
    if elsewhere and all(_is_lock_file(f.path) for f in required):
        required, elsewhere = [], elsewhere + required
    other = _choose(root, elsewhere)
    if other is not None and (Path(other.path), other.line) in skipped:
        other = other._replace(no_deps=no_deps, image=image)
    return _choose(root, required), other


def _is_lock_file(path: Path) -> bool:
    """Whether ``path`` is a lock file of a resolver (``uv.lock``, ``poetry.lock``,
    ``pdm.lock``, ``pylock.toml``/``pylock.<name>.toml``), not a requirements file's pin."""
    return path.name in _LOCK_FILES or path.name.startswith("pylock.")


def _choose(root: Path, found: list[_Found]) -> VerlDeclaration | None:
    """The decision of one folder's declarations (lock, else direct reference, else the
    lowest version a specifier allows, else a bare ``verl``). A folder taken for verl by
    its ``verl/`` package (:attr:`ppo_migrate.rules.requirements._Found.inferred`, trial
    26g) decides only when nothing else of the folder declares verl: it never overrides a
    pin that said more (never a safer outcome than before it was read)."""
    spelled = [f for f in found if not f.inferred]
    if spelled and len(spelled) < len(found):
        return _choose(root, spelled)
    locks = [f for f in found if f.kind == "lock"]
    if locks:
        known = [f for f in locks if f.version is not None]
        if known:
            best = _lowest(known)
            if _is_lock_file(best.path):
                return _declaration(best, f"{_where(root, best)} resolves verl {best.version}")
            return _declaration(best, f"{_where(root, best)} {best.requirement} pins verl {best.version}")
        best = locks[0]
        return _declaration(best, f"{_where(root, best)} resolves verl to a direct reference: version unknown")
    direct = [f for f in found if f.kind == "direct-reference"]
    if direct:
        best = direct[0]
        return _declaration(best, f"{_where(root, best)} {best.requirement} is a direct reference: version unknown")
    bounded = [f for f in found if f.kind == "specifier" and f.bounded]
    if bounded:
        known = [f for f in bounded if f.version is not None]
        if known:
            best = _lowest(known)
            return _declaration(best, f"lowest version {_where(root, best)} {best.requirement} allows")
        best = bounded[0]
        return _declaration(best, f"no known verl release satisfies {_where(root, best)} {best.requirement}")
    if found:
        best = found[0]
        return _declaration(best, f"{_where(root, best)} {best.requirement}: no version constraint")
    return None


def _lowest(found: list[_Found]) -> _Found:
    """The declaration with the lowest known version; the first one found among equals."""
    return min(found, key=lambda f: f.version or Version("0"))


def _where(root: Path, found: _Found) -> str:
    try:
        name = os.path.relpath(found.path, root)
    except ValueError:  # another drive on Windows
        name = str(found.path)
    return f"{name}:{found.line}"


def _declaration(found: _Found, why: str) -> VerlDeclaration:
    return VerlDeclaration(
        version=found.version,
        path=str(found.path),
        line=found.line,
        requirement=found.requirement,
        kind=found.kind,
        why=why,
        local_path=str(found.local_path) if found.local_path is not None else None,
        redirect=found.redirect,
        inferred=found.inferred,
        excluded=found.excluded,
    )


# ---------------------------------------------------------------------------------------------
# Lock files


def _load_toml(path: Path, needle: str | None = None) -> tuple[dict[str, Any], str] | None:
    """``(data, text)`` of the TOML file ``path``; ``None`` when it cannot be read, or when
    ``needle`` is given and the text does not spell it (case aside): a lock file that never
    names verl is not parsed (a uv.lock is thousands of tables; tomllib is pure Python)."""
    try:
        raw = _read_text(path)
        if needle is not None and needle not in raw.lower():
            return None
        return tomllib.loads(raw), raw
    except _UNREADABLE:
        return None


def _read_locks(root: Path) -> Iterator[_Found]:
    for name in _LOCK_FILES:
        path = root / name
        if not _is_file(path):
            continue
        loaded = _load_toml(path, "verl")
        if loaded is None:
            continue
        data, raw = loaded
        packages = data.get("package")
        if not isinstance(packages, list):
            continue
        # the k-th [[package]] header holds the k-th entry; its first ``name =`` line is the entry's line
        headers = [m.end() for m in re.finditer(r"^[ \t]*\[\[[ \t]*package[ \t]*\]\]", raw, re.MULTILINE)]
        for index, entry in enumerate(packages):
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                continue
            if not _is_verl(entry["name"]):
                continue
            line = _entry_line(raw, headers, index, len(packages))
            raw_version = entry.get("version")
            direct = _lock_entry_is_direct(name, entry)
            version: Version | None = None
            if not direct:
                try:
                    version = Version(raw_version) if isinstance(raw_version, str) else None
                except InvalidVersion:
                    version = None
                if version is None:
                    continue
            shown = f"verl {raw_version} ({name})" if isinstance(raw_version, str) else f"verl ({name})"
            yield _Found(version, path, line, shown, "lock", True, _locked_folder(name, entry, path) if direct else None)


def _locked_folder(lock: str, entry: dict[str, Any], path: Path) -> Path | None:
    """The local folder a ``pdm.lock`` entry installs verl from (trial 26g): its ``path``
    (``path = "./third_party/verl"``, with ``editable = true`` for ``pdm add -e``) or a
    ``file:`` ``url`` (``file:///${PROJECT_ROOT}/third_party/verl``), relative to the
    lock's folder; ``None`` for any other lock or entry, or a folder absent here. The
    definition in effect is then read in that copy, as for ``-e ./third_party/verl``.

    Args:
        lock (str): the lock file's name (``"pdm.lock"``, ``"uv.lock"``, ...).
        entry (dict): the ``[[package]]`` table of verl.
        path (Path): the lock file.

    Raises:
        Nothing.
    """
    if lock != "pdm.lock":
        return None
    for key in ("path", "url"):
        value = entry.get(key)
        if isinstance(value, str) and (key == "path" or value.lower().startswith("file:")):
            folder = _local_directory(value, path)
            if folder is not None:
                return folder
    return None


def _entry_line(raw: str, headers: list[int], index: int, entries: int) -> int:
    """The 1-based line of the ``index``-th array-of-tables entry of a TOML lock: its first
    ``name =`` line after its header (``headers``: the offsets just after each header);
    1 when the headers do not match the entries one for one."""
    if len(headers) != entries:
        return 1
    m = _NAME_KEY.search(raw, headers[index])
    return raw.count("\n", 0, m.start() if m else headers[index]) + 1


_NAME_KEY = lazy_pattern(r"^[ \t]*name[ \t]*=", re.MULTILINE)


def _read_pylock(root: Path) -> Iterator[_Found]:
    """PEP 751 lock files (``pylock.toml``, ``pylock.<name>.toml``): a ``[[packages]]`` entry
    named verl with a ``version`` is a lock on it; one from ``vcs``/``directory``/``archive``
    without a version is a lock whose release cannot be read. ``pylock.<name>.toml`` locks
    the named environment ``<name>`` (PEP 751), another one than the project's: its entries
    are ``optional`` (trial 26c, C: they may only lower the release)."""
    try:
        files = sorted(p for p in _glob(root, "pylock*.toml") if re.fullmatch(r"pylock(\.[^.]+)?\.toml", p.name))
    except OSError:
        return
    for path in files:
        loaded = _load_toml(path, "verl")
        if loaded is None:
            continue
        data, raw = loaded
        packages = data.get("packages")
        if not isinstance(packages, list):
            continue
        headers = [m.end() for m in re.finditer(r"^[ \t]*\[\[[ \t]*packages[ \t]*\]\]", raw, re.MULTILINE)]
        for index, entry in enumerate(packages):
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not _is_verl(entry["name"]):
                continue
            line = _entry_line(raw, headers, index, len(packages))
            raw_version = entry.get("version")
            try:
                version = Version(raw_version) if isinstance(raw_version, str) else None
            except InvalidVersion:
                version = None
            if version is None and not {"vcs", "directory", "archive"} & set(entry):
                continue
            shown = f"verl {raw_version} ({path.name})" if version is not None else f"verl ({path.name})"
            yield _Found(version, path, line, shown, "lock", True, optional=path.name != "pylock.toml")


def _lock_entry_is_direct(lock: str, entry: dict[str, Any]) -> bool:
    """A lock entry from git, a URL or a local path: its version says nothing about a release."""
    if lock == "uv.lock":
        source = entry.get("source")
        return isinstance(source, dict) and not ({"registry"} & set(source))
    if lock == "poetry.lock":
        source = entry.get("source")
        return isinstance(source, dict) and source.get("type") in ("git", "directory", "file", "url")
    return any(key in entry for key in ("git", "url", "path", "editable"))  # pdm.lock


# ---------------------------------------------------------------------------------------------
# pyproject.toml


def _read_pyproject(root: Path) -> Iterator[_Found]:
    path = root / "pyproject.toml"
    if not _is_file(path):
        return
    loaded = _load_toml(path)
    if loaded is None:
        return
    data, raw = loaded
    yield from _pyproject_project(data, raw, path)
    yield from _pyproject_groups(data, raw, path)
    yield from _pyproject_uv_sources(data, raw, path)
    yield from _pyproject_poetry(data, raw, path)
    yield from _pyproject_pdm(data, raw, path)
    yield from _pyproject_setuptools_dynamic(data, path)
    yield from pyproject_tool_pins(data, raw, path)


def _pyproject_setuptools_dynamic(data: dict[str, Any], path: Path) -> Iterator[_Found]:
    """``[tool.setuptools.dynamic] dependencies = {file = [...]}`` (and optional dependencies):
    the requirement files it names, read like ``requirements*.txt``."""
    tool = data.get("tool")
    setuptools = tool.get("setuptools") if isinstance(tool, dict) else None
    dynamic = setuptools.get("dynamic") if isinstance(setuptools, dict) else None
    if not isinstance(dynamic, dict):
        return
    tables: list[tuple[Any, bool]] = [(dynamic.get("dependencies"), False)]
    extras = dynamic.get("optional-dependencies")
    if isinstance(extras, dict):
        tables += [(table, True) for table in extras.values()]
    seen: set[Path] = set()
    for table, extra in tables:  # the required files first: a file both name is required
        files = table.get("file") if isinstance(table, dict) else None
        for name in [files] if isinstance(files, str) else _strings(files):
            found = _read_requirements(Path(os.path.normpath(path.parent / name)), seen)
            yield from optional(found) if extra else found


def _pyproject_project(data: dict[str, Any], raw: str, path: Path) -> Iterator[_Found]:
    project = data.get("project")
    if not isinstance(project, dict):
        return
    start = _offset_of_table(raw, "project")
    yield from _pep508_list(_strings(project.get("dependencies")), raw, path, start)
    extras = project.get("optional-dependencies")
    if isinstance(extras, dict):
        start = _offset_of_table(raw, "project.optional-dependencies") or start
        for values in extras.values():  # an extra is installed only where asked for
            yield from optional(_pep508_list(_strings(values), raw, path, start))


def _pyproject_groups(data: dict[str, Any], raw: str, path: Path) -> Iterator[_Found]:
    # PEP 735: every group is read, so ``{include-group = ...}`` entries add nothing new and are skipped.
    groups = data.get("dependency-groups")
    if not isinstance(groups, dict):
        return
    start = _offset_of_table(raw, "dependency-groups")
    for values in groups.values():  # a group is installed only where asked for (trial 26c, C)
        yield from optional(_pep508_list(_strings(values), raw, path, start))


def _pyproject_uv_sources(data: dict[str, Any], raw: str, path: Path) -> Iterator[_Found]:
    tool = data.get("tool")
    uv = tool.get("uv") if isinstance(tool, dict) else None
    sources = uv.get("sources") if isinstance(uv, dict) else None
    if isinstance(uv, dict):  # uv's legacy dev group, overrides and constraints bound versions too
        start = _offset_of_table(raw, "tool.uv")
        # the dev group is installed only where asked for (trial 26c, C); overrides and
        # constraints apply to every resolution of the project but install nothing: they
        # bound the verl a dependency brings, so without verl in ``[project] dependencies``
        # they may only lower the release (trial 26e: a base image's verl 0.8 beside
        # ``constraint-dependencies = ["verl>=0.9.0"]``)
        yield from optional(_pep508_list(_strings(uv.get("dev-dependencies")), raw, path, start))
        project = data.get("project")
        required = isinstance(project, dict) and _names_verl(project.get("dependencies"))
        for key in ("override-dependencies", "constraint-dependencies"):
            bounds = _pep508_list(_strings(uv.get(key)), raw, path, start)
            yield from bounds if required else optional(bounds)
    if not isinstance(sources, dict):
        return
    # a source applies to the declarations of verl: when only extras, groups or the dev
    # group declare it, the source's release is installed only where they are
    only_optional = _verl_only_optional(data)
    for name, source in sources.items():
        if not isinstance(name, str) or not _is_verl(name):
            continue
        entries = source if isinstance(source, list) else [source]
        for e in entries:
            if not (isinstance(e, dict) and {"git", "url", "path", "workspace"} & set(e)):
                continue
            line = _line_of_toml_key(raw, name, _offset_of_table(raw, "tool.uv.sources"))
            tagged = _tag(e.get("tag")) if "git" in e else None
            if tagged is not None:
                yield _Found(tagged, path, line, _source_line(raw, line), "lock", True, optional=only_optional)
                continue
            local = _local_directory(e["path"], path) if isinstance(e.get("path"), str) else None
            if e.get("workspace") is True:
                local, excluded = _uv_workspace_member(uv, path, raw)
                if local is None and excluded is not None:  # fresh user 43, W11: name the exclude entry
                    folder, excluded_line = excluded
                    yield _Found(None, path, excluded_line, _source_line(raw, line), "direct-reference", True,
                                 None, only_optional, excluded=folder)
                    continue
            yield _Found(None, path, line, _source_line(raw, line), "direct-reference", True, local, only_optional)


def _uv_workspace_member(
    uv: dict[str, Any], path: Path, raw: str = ""
) -> tuple[Path | None, tuple[str, int] | None]:
    """The folder of the uv workspace member whose ``[project] name`` is verl's, for a
    source ``{ workspace = true }`` of the ``pyproject.toml`` at ``path`` (uv's
    documentation, "Workspaces": ``[tool.uv.workspace] members`` are glob patterns of
    folders relative to the workspace root, each holding a ``pyproject.toml``; ``exclude``
    takes folders out). ``None`` when no member (or more than one) has that name: its
    release then cannot be read (trial 26h: the member's definition, read as a local
    directory's, says which verl the project runs). A member in a src layout
    (``packages/verl/src/verl/``) is read there too (fresh user 43, W2:
    :meth:`ppo_migrate.rules.signatures.SignatureResolver` reads ``<member>/src``).

    Args:
        uv: the ``[tool.uv]`` table.
        path: the workspace root's ``pyproject.toml``.
        raw: that file's text (for the line of an ``exclude`` entry).

    Returns:
        ``(member, None)``; or, when no member is found but one named verl is taken out by
        ``exclude`` (fresh user 43, W11), ``(None, (its pattern as written, the exclude
        entry's 1-based line))``; else ``(None, None)``.

    Raises:
        Nothing: an unreadable or invalid member file is no member of that name.
    """
    workspace = uv.get("workspace")
    if not isinstance(workspace, dict):
        return None, None
    root = path.parent
    excluded: dict[Path, str] = {}
    for pattern in _strings(workspace.get("exclude")):
        for folder in _glob_folders(root, pattern):
            excluded.setdefault(folder, pattern)
    found: list[Path] = []
    left_out: list[Path] = []
    for pattern in _strings(workspace.get("members")):
        for folder in _glob_folders(root, pattern):
            if folder in found or folder in left_out:
                continue
            member = folder / "pyproject.toml"
            loaded = _load_toml(member, "verl") if _is_file(member) else None
            project = loaded[0].get("project") if loaded is not None else None
            member_name = project.get("name") if isinstance(project, dict) else None
            if isinstance(member_name, str) and _is_verl(member_name):
                (left_out if folder in excluded else found).append(folder)
    if len(found) == 1:
        return found[0], None
    if not found and left_out:
        pattern = excluded[left_out[0]]
        start = _offset_of_table(raw, "tool.uv.workspace")
        exclude_at = raw.find("exclude", start)
        return None, (pattern, _line_of_string(raw, pattern, exclude_at if exclude_at >= 0 else start))
    return None, None


def _glob_folders(root: Path, pattern: str) -> list[Path]:
    """The folders under ``root`` a glob ``pattern`` of ``/``-separated parts names (``*``,
    ``?`` and ``[...]`` within a part, as :func:`fnmatch.fnmatchcase`; a part without them
    is a plain name), from the snapshot's listings (once a run); ``**`` matches nothing
    here (no such member has been seen)."""
    folders = [root]
    for part in pattern.strip().strip("/").split("/"):
        if part in ("", "."):
            continue
        if part == "**":
            return []
        nxt: list[Path] = []
        for folder in folders:
            if not any(c in part for c in "*?["):
                if current().fs.is_dir(folder / part):
                    nxt.append(folder / part)
                continue
            try:
                names = current().fs.list_dir(folder)
            except (OSError, ValueError):
                continue
            nxt.extend(
                folder / n for n in sorted(names)
                if fnmatch.fnmatchcase(n, part) and current().fs.is_dir(folder / n)
            )
        folders = nxt
    return [Path(os.path.normpath(f)) for f in folders]


def _names_verl(values: Any) -> bool:
    """Whether a list of PEP 508 strings holds a requirement on verl (by its name)."""
    for text in _strings(values):
        m = _VERL_NAME.match(text)
        if m is not None and _is_verl(m.group(1)):
            return True
    return False


#: the distribution name a PEP 508 string starts with
_VERL_NAME = lazy_pattern(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _verl_only_optional(data: dict[str, Any]) -> bool:
    """Whether a ``pyproject.toml`` declares verl in an extra, a ``[dependency-groups]`` group
    or uv's dev group, and not in ``[project] dependencies`` (trial 26c, C: a
    ``[tool.uv.sources]`` entry then gives the release of those environments only)."""
    project = data.get("project")
    project = project if isinstance(project, dict) else {}
    if _names_verl(project.get("dependencies")):
        return False
    tables: list[Any] = []
    extras = project.get("optional-dependencies")
    if isinstance(extras, dict):
        tables += list(extras.values())
    groups = data.get("dependency-groups")
    if isinstance(groups, dict):
        tables += list(groups.values())
    tool = data.get("tool")
    uv = tool.get("uv") if isinstance(tool, dict) else None
    if isinstance(uv, dict):
        tables.append(uv.get("dev-dependencies"))
    return any(_names_verl(values) for values in tables)


def _pyproject_poetry(data: dict[str, Any], raw: str, path: Path) -> Iterator[_Found]:
    tool = data.get("tool")
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    if not isinstance(poetry, dict):
        return
    # only the main group is in every environment; the dev group and other groups are
    # installed only where asked for (trial 26c, C)
    tables: list[tuple[str, Any, bool]] = [
        ("tool.poetry.dependencies", poetry.get("dependencies"), False),
        ("tool.poetry.dev-dependencies", poetry.get("dev-dependencies"), True),
    ]
    groups = poetry.get("group")
    if isinstance(groups, dict):
        for group_name, group in groups.items():
            if isinstance(group, dict):
                tables.append((f"tool.poetry.group.{group_name}.dependencies", group.get("dependencies"), True))
    for header, table, in_group in tables:
        if not isinstance(table, dict):
            continue
        for name, constraint in table.items():
            if not isinstance(name, str) or not _is_verl(name):
                continue
            line = _line_of_toml_key(raw, name, _offset_of_table(raw, header))
            written = _source_line(raw, line)
            for one in constraint if isinstance(constraint, list) else [constraint]:
                found = _from_poetry(one, path, line, written)
                if found is not None:
                    # ``verl = {version = ">=0.9", optional = true}``: installed by an extra only
                    extra = isinstance(one, dict) and one.get("optional") is True
                    yield found._replace(optional=in_group or extra)


def _from_poetry(constraint: Any, path: Path, line: int, written: str) -> _Found | None:
    if isinstance(constraint, dict):
        if {"git", "path", "url"} & set(constraint):
            tagged = _tag(constraint.get("tag")) if "git" in constraint else None
            if tagged is not None:
                return _Found(tagged, path, line, written, "lock", True)
            local = _local_directory(constraint["path"], path) if isinstance(constraint.get("path"), str) else None
            return _Found(None, path, line, written, "direct-reference", True, local)
        constraint = constraint.get("version")
    if not isinstance(constraint, str):
        return None
    specifier = poetry_specifier(constraint)
    if specifier is None:
        return None
    if not len(specifier):
        return _Found(None, path, line, written, "specifier", False)
    return _Found(lowest_allowed(specifier), path, line, written, "specifier", True)


def _pyproject_pdm(data: dict[str, Any], raw: str, path: Path) -> Iterator[_Found]:
    tool = data.get("tool")
    pdm = tool.get("pdm") if isinstance(tool, dict) else None
    if not isinstance(pdm, dict):
        return
    project = data.get("project")
    required = isinstance(project, dict) and _names_verl(project.get("dependencies"))
    overrides = _pdm_overrides(pdm, raw, path)
    yield from overrides if required else optional(overrides)
    groups = pdm.get("dev-dependencies")
    if not isinstance(groups, dict):
        return
    start = _offset_of_table(raw, "tool.pdm.dev-dependencies")
    for values in groups.values():  # a dev group is installed only where asked for
        yield from optional(_pdm_entries(_strings(values), raw, path, start))


def _pdm_entries(values: list[str], raw: str, path: Path, start: int) -> Iterator[_Found]:
    """The verl declarations of a pdm dev group: PEP 508 strings, and pdm's editable entries
    ``-e <path or URL>`` (pdm's documentation, "Editable dependencies": ``-e
    file:///${PROJECT_ROOT}/third_party/verl``, ``-e ./third_party/verl``,
    ``-e git+https://...#egg=verl``), read as a requirements file's ``-e`` line is
    (:func:`ppo_migrate.rules.requirements._from_reference`: a folder holding verl is the
    copy installed; ``${PROJECT_ROOT}`` is the ``pyproject.toml``'s folder, trial 26g).

    Args:
        values: the group's strings.
        raw: the ``pyproject.toml`` text, for line numbers.
        path: the ``pyproject.toml``.
        start: the offset of ``[tool.pdm.dev-dependencies]`` in ``raw``.

    Yields:
        ``_Found`` entries (a path reference carries its folder); never raises.
    """
    for text in values:
        stripped = text.strip()
        m = re.match(r"(?:-e|--editable)(?:\s*=\s*|\s+)(\S+)", stripped)
        if m is None:
            yield from _pep508_list([text], raw, path, start)
            continue
        found = _from_reference(m.group(1), path, _line_of_string(raw, text, start), stripped)
        if found is not None:
            yield found


def _pdm_overrides(pdm: dict[str, Any], raw: str, path: Path) -> Iterator[_Found]:
    """``[tool.pdm.resolution.overrides] verl = "0.8.0"``: pdm installs what an override says
    whatever the dependencies ask (trial 26b). A bare version is that release, a specifier
    (``">=0.8,<0.9"``) bounds it, anything else is a URL (a direct reference). An override
    replaces the requirement a dependency makes and installs nothing by itself:
    :func:`_pyproject_pdm` marks its entries ``optional`` unless ``[project] dependencies``
    names verl (trial 26e, ``e3b_pdm_override_only``; as uv's overrides)."""
    resolution = pdm.get("resolution")
    overrides = resolution.get("overrides") if isinstance(resolution, dict) else None
    if not isinstance(overrides, dict):
        return
    start = _offset_of_table(raw, "tool.pdm.resolution.overrides")
    for name, value in overrides.items():
        if not (isinstance(name, str) and _is_verl(name) and isinstance(value, str) and value.strip()):
            continue
        text = value.strip()
        requirement = (f"{name}=={text}" if text[0].isdigit()
                       else f"{name}{text}" if text[0] in "<>=!~" else f"{name} @ {text}")
        found = _from_requirement(requirement, path, _line_of_toml_key(raw, name, start), lock_pins=True)
        if found is not None:
            yield found._replace(requirement=f'{name} = "{text}"')


# ---------------------------------------------------------------------------------------------
# setup.cfg and setup.py


def _read_setup_cfg(root: Path) -> Iterator[_Found]:
    path = root / "setup.cfg"
    if not _is_file(path):
        return
    parser = configparser.ConfigParser(interpolation=None)
    try:
        raw = _read_text(path)
        parser.read_string(raw, source=str(path))
    except _UNREADABLE:
        return
    values: list[tuple[str, str]] = []
    if parser.has_option("options", "install_requires"):
        values.append(("options", parser.get("options", "install_requires")))
    if parser.has_section("options.extras_require"):
        values += [("options.extras_require", v) for _, v in parser.items("options.extras_require")]
    for section, value in values:
        extra = section == "options.extras_require"  # installed only where asked for
        start = _offset_of_table(raw, section)
        # setuptools' list-semi: a dangling list is one requirement a line, a one-line value splits on ";"
        for text in value.splitlines() if "\n" in value else value.split(";"):
            text = text.split(" #", 1)[0].strip()
            if not text or text.startswith("#"):
                continue
            found = _from_requirement(text, path, _line_of(raw, text, start), lock_pins=False)
            if found is not None:
                yield found._replace(optional=extra)


def _read_setup_py(root: Path) -> Iterator[_Found]:
    path = root / "setup.py"
    if not _is_file(path):
        return
    try:  # read and parsed once a run (the project's invalid escapes are not the tool's to report)
        tree = current().source(path).tree()
    except (UnreadableFile, *_UNREADABLE):
        return
    literals = _single_literal_assignments(tree)
    conditional = _conditional_nodes(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for kw in node.keywords:
            if kw.arg == "install_requires":
                for found in _setup_py_requirements(kw.value, literals, path):
                    yield found._replace(optional=id(kw.value) in conditional)
            elif kw.arg == "extras_require":  # an extra is installed only where asked for
                value = literals.get(kw.value.id, kw.value) if isinstance(kw.value, ast.Name) else kw.value
                if isinstance(value, ast.Dict):
                    for item in value.values:
                        yield from optional(_setup_py_requirements(item, literals, path))
    yield from _setup_py_strings(tree, literals, path, _optional_setup_nodes(tree, literals) | conditional)


def _conditional_nodes(tree: ast.Module) -> set[int]:
    """The ``id`` of every node of ``setup.py`` that runs only under a condition (trial 26d,
    ``d3_setup_py_conditional_append``): the branches of an ``if`` (but the body of
    ``if __name__ == "__main__":``, which a build runs), of a conditional expression and of a
    ``match``, an ``except`` handler's body, and the operands of ``and``/``or`` after the
    first. A requirement written there (``if os.environ.get("X") == "1":
    install_requires.append("verl>=0.9.0")``, ``["verl>=0.9"] if NEXT else []``, ``if
    platform.machine() == "aarch64": reqs += [...]``) is installed in some environments only:
    it is an optional environment's, like an extra's, and may only lower the release
    (:func:`_decide`; the condition is never evaluated).

    Args:
        tree: the parsed ``setup.py``.

    Returns:
        A set of ``id(node)`` (the condition itself and the statement holding it are not in
        it). Never raises.
    """
    branches: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            if not _is_main_guard(node.test):
                branches += [*node.body, *node.orelse]
            else:
                branches += node.orelse
        elif isinstance(node, ast.IfExp):
            branches += [node.body, node.orelse]
        elif isinstance(node, ast.Match):
            branches += [stmt for case in node.cases for stmt in case.body]
        elif isinstance(node, ast.Try | getattr(ast, "TryStar", ast.Try)):
            branches += [stmt for handler in node.handlers for stmt in handler.body]
        elif isinstance(node, ast.BoolOp):
            branches += node.values[1:]
    ids: set[int] = set()
    for branch in branches:
        if id(branch) not in ids:
            ids.update(id(n) for n in ast.walk(branch) if not isinstance(n, ast.expr_context))
    return ids


def _is_main_guard(test: ast.expr) -> bool:
    """``__name__ == "__main__"`` (either side first)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = (test.left, test.comparators[0])
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides
    )


#: ``setup()`` keywords whose requirements are not installed with the project: extras, the
#: test runner's and the build's (another environment; trial 26c, C)
_OPTIONAL_KEYWORDS = frozenset({"extras_require", "tests_require", "setup_requires"})
#: the statements whose strings :func:`_optional_setup_nodes` may mark
_SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)


def _optional_setup_nodes(tree: ast.Module, literals: dict[str, ast.expr]) -> set[int]:
    """The ``id`` of every node of ``setup.py`` that declares requirements for another
    environment only (trial 26c, C): the values of :data:`_OPTIONAL_KEYWORDS`, the literals
    their names are bound to (:func:`_single_literal_assignments`), and each simple statement
    outside such a call that names one of those names and no name ``install_requires`` uses
    (``EXTRAS["next"] = ["verl>=0.9"]``, ``TESTS.append("verl>=0.9")``).

    Args:
        tree: the parsed ``setup.py``.
        literals: its module-level names bound once to a literal.

    Returns:
        A set of ``id(node)``; empty when no call passes those keywords. Never raises.
    """
    required: set[str] = set()
    values: list[ast.expr] = []
    calls: list[ast.Call] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg == "install_requires":
                    required |= {n.id for n in ast.walk(kw.value) if isinstance(n, ast.Name)}
                elif kw.arg in _OPTIONAL_KEYWORDS:
                    values.append(kw.value)
                    calls.append(node)
    ids: set[int] = set()
    names: set[str] = set()
    while values:
        for n in ast.walk(values.pop()):
            if id(n) in ids:
                continue
            ids.add(id(n))
            if isinstance(n, ast.Name) and n.id not in required and n.id not in names:
                names.add(n.id)
                if n.id in literals:
                    values.append(literals[n.id])
    if not names:
        return ids
    setups = {id(call) for call in calls}  # (``ast.Load()`` is one shared node: ids of calls only)
    for stmt in ast.walk(tree):
        if not isinstance(stmt, _SIMPLE):
            continue
        nodes = list(ast.walk(stmt))
        if any(id(n) in setups for n in nodes):
            continue  # the statement holding ``setup(...)`` itself
        mentioned = {n.id for n in nodes if isinstance(n, ast.Name)}
        if mentioned & names and not mentioned & required:
            ids |= {id(n) for n in nodes}
    return ids


#: a requirement template naming verl: ``verl==``, ``verl[vllm]>=``, ``verl @``
_VERL_TEMPLATE = lazy_pattern(r"\s*verl\s*(?:\[[^\]]*\])?\s*(?:===?|[<>!~]=?|@)", re.IGNORECASE)


def _setup_py_strings(
    tree: ast.Module, literals: dict[str, ast.expr], path: Path, extras: AbstractSet[int] = frozenset()
) -> Iterator[_Found]:
    """Every other string of ``setup.py`` that declares verl with a version (issue 26):
    a literal that parses as a PEP 508 requirement (``REQS.append("verl==0.8.0")``), and an
    f-string, ``.format`` or ``%`` template naming verl: evaluated when its values are
    module-level literals bound once, else a declaration whose release cannot be read.
    A node whose ``id`` is in ``extras`` (:func:`_optional_setup_nodes`) is declared for
    another environment only (``_Found.optional``)."""

    def value_of(node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            node = literals.get(node.id, node)
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float)):
            return str(node.value)
        return None

    for node in ast.walk(tree):
        text: str | None = None
        template: str | None = None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.strip()
        elif isinstance(node, ast.JoinedStr):
            parts: list[str] = []
            pieces: list[str | None] = []
            for v in node.values:
                if isinstance(v, ast.Constant):
                    parts.append(str(v.value))
                    pieces.append(str(v.value))
                else:
                    plain = isinstance(v, ast.FormattedValue) and v.conversion == -1 and v.format_spec is None
                    parts.append("${VALUE}")
                    pieces.append(value_of(v.value) if plain else None)
            template = "".join(parts)
            text = None if None in pieces else "".join(p for p in pieces if p is not None)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format"
            and isinstance(node.func.value, ast.Constant)
            and isinstance(node.func.value.value, str)
        ):
            template = node.func.value.value
            values = [value_of(a) for a in node.args]
            try:
                text = None if None in values or node.keywords else template.format(*values)
            except (IndexError, KeyError, ValueError):
                text = None
        elif (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Mod)
            and isinstance(node.left, ast.Constant)
            and isinstance(node.left.value, str)
        ):
            template = node.left.value
            right = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
            values = [value_of(a) for a in right]
            try:
                text = None if None in values else template % tuple(values)
            except (TypeError, ValueError):
                text = None
        extra = id(node) in extras
        if text is not None:
            found = _from_requirement(text, path, node.lineno, lock_pins=False)
            if found is not None and found.bounded:  # a bare "verl" (``name="verl"``) says nothing
                yield found._replace(optional=extra)
                continue
        if template is not None and text is None and _VERL_TEMPLATE.match(template):
            shown = ast.unparse(node) if hasattr(ast, "unparse") else template
            yield _Found(None, path, node.lineno, shown, "direct-reference", True, optional=extra)


def _single_literal_assignments(tree: ast.Module) -> dict[str, ast.expr]:
    """Module-level names bound exactly once in the whole module, by ``NAME = <expr>``, and never
    imported, defined, deleted or touched through an attribute or subscript (``REQS.append(...)``)."""
    counts: dict[str, int] = {}

    def bump(name: str, by: int = 1) -> None:
        counts[name] = counts.get(name, 0) + by

    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bump(node.id)
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.value, ast.Name):
            bump(node.value.id, 2)
        elif isinstance(node, ast.alias):
            bump((node.asname or node.name).split(".")[0], 2)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bump(node.name, 2)
    values: dict[str, ast.expr] = {}
    for stmt in tree.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and counts.get(stmt.targets[0].id) == 1
        ):
            values[stmt.targets[0].id] = stmt.value
    return values


def _setup_py_requirements(node: ast.expr, literals: dict[str, ast.expr], path: Path) -> Iterator[_Found]:
    if isinstance(node, ast.Name):
        node = literals.get(node.id, node)
    items: list[ast.expr] = list(node.elts) if isinstance(node, (ast.List, ast.Tuple)) else [node]
    for item in items:
        if not (isinstance(item, ast.Constant) and isinstance(item.value, str)):
            continue  # not a literal: ignored, never evaluated
        for offset, text in enumerate(item.value.splitlines()):
            text = text.split(" #", 1)[0].strip()
            if not text:
                continue
            found = _from_requirement(text, path, item.lineno + offset, lock_pins=False)
            if found is not None:
                yield found


# ---------------------------------------------------------------------------------------------
# requirements*.txt (pip's format)


def _read_requirements_files(root: Path) -> Iterator[_Found]:
    """The declarations of verl in ``root``'s pip requirements files (:data:`_REQUIREMENTS_PATTERNS`).

    The root requirements file (:data:`_ROOT_REQUIREMENTS`: ``requirements.txt``, pip-tools'
    ``requirements.in``, rye's ``requirements.lock``) and the files it includes are installed
    wherever the code runs; every other one (``requirements-dev.txt``, ``requirements/gpu.txt``,
    ``requirements-next.txt``) builds another environment, so its entries are marked
    ``optional`` (trial 26c, C: it may only lower the release). The root ones are read first,
    so a file they include is theirs even when its name matches a pattern too.

    Args:
        root: a directory.

    Yields:
        ``_Found`` entries; never raises (an unreadable folder or file yields nothing).
    """
    seen: set[Path] = set()
    try:
        files = sorted(p for pattern in _REQUIREMENTS_PATTERNS for p in _glob(root, pattern))
    except OSError:
        return
    for path in sorted(files, key=lambda p: p.name not in _ROOT_REQUIREMENTS):  # stable: sorted within
        found = _read_requirements(path, seen)
        yield from found if path.name in _ROOT_REQUIREMENTS and path.parent == root else optional(found)


#: The requirements files installed with the project itself (trial 26c, C): the root one,
#: pip-tools' input and rye's lock of the default environment.
_ROOT_REQUIREMENTS = frozenset({"requirements.txt", "requirements.in", "requirements.lock"})


