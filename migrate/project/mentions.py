"""The files of a repository whose text may mention a verl release in a format the tool does
not read (issue 26, trial 26b: pins in formats ppo-migrate cannot read).

A project may install its verl from a file no reader of :mod:`ppo_migrate.analysis.versions`,
:mod:`ppo_migrate.analysis.pins` or :mod:`ppo_migrate.analysis.install_pins` understands: a
``hatch.toml``, a ``pixi.lock`` or ``conda-lock.yml``, an Apptainer definition's ``%post``, a
SkyPilot task's ``setup:``, a Ray ``runtime_env`` (YAML, JSON, ``--runtime-env-json``), a
KubeRay ``runtimeEnvYAML``, an invoke ``tasks.py`` or a script that runs pip with
``subprocess``. This module finds the files to search, by their names alone, in the one
walk of the repository (:func:`ppo_migrate.project.tree.repository_listing`), and hands
their text on; :mod:`ppo_migrate.analysis.mentions` says what in it mentions an old verl.

Which files (:func:`mention_kind`), and why:

* **searched as text**, ``#`` starting a comment: ``*.yaml``/``*.yml``, ``*.toml``,
  ``*.lock``, ``*.cfg``, ``*.ini``, ``*.conf``, shell scripts (``*.sh``, ``*.bash``,
  ``*.zsh``, an extensionless file with a shell's shebang), Apptainer/Singularity
  definitions (``*.def``, ``Singularity``, ``Singularity.*``), Dockerfiles and
  Containerfiles, Makefiles (``*.mk``), ``justfile``; **as JSON** (no comments):
  ``*.json``; **as requirement lines** (a line counts only when it is a whole PEP 508
  requirement, so that prose does not): other ``*.txt`` and ``*.in`` files; **as Python**
  (its string literals, docstrings aside): ``*.py`` outside the tests.
* **not searched**: the files the readers above read in whole already, where they apply
  (:data:`READ_NAMES`, :data:`READ_PATTERNS`: ``pyproject.toml``, ``setup.cfg``,
  ``setup.py``, ``*requirements*.txt``, the locks the tool reads, ``environment*.yml``,
  ``tox.ini``, ``Pipfile``, ``pixi.toml``, ``pip.conf``...): a pin there keeps its own
  handling (a sub-project's pins apply to its own code only); documentation (``*.md``,
  ``*.rst``, notebooks, any other extension): prose that says "since verl==0.8.0" installs
  nothing; the Python files of the tests (under a folder of
  :data:`ppo_migrate.project.tree.DOUBLES_FOLDERS`, ``test_*.py``, ``*_test.py``,
  ``conftest.py``): their strings are a test's inputs and expectations, not what installs
  the trainer's environment; what the walk does not enter (VCS, environment, cache and
  build folders, test data, git-ignored paths).

Cheap on purpose: the names decide without reading; a file is read through the run's
snapshot (:meth:`ppo_migrate.project.snapshot.Snapshot.read_bytes`, the first
:data:`ppo_migrate.project.import_roots._MAX_BYTES` of a larger one, as the other searches
of the repository read it) and handed on only when its bytes hold the name ``verl``
(:func:`ppo_migrate.project.import_roots.names_verl`: not the letters inside ``overload``).
A file the search for import roots read this run without the name in it
(:data:`ppo_migrate.project.import_roots.HOLDS_VERL`) is not read again.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator

from ppo_migrate.files import decode_text, utf8_text
from ppo_migrate.project.import_roots import HOLDS_VERL, _read, names_verl
from ppo_migrate.project.snapshot import current
from ppo_migrate.project.tree import DOUBLES_FOLDERS, relative_parts, repository_listing

__all__ = ["READ_NAMES", "READ_PATTERNS", "candidate_texts", "distribution_files", "mention_kind", "names_verl"]

#: Files the tool's pin readers read in whole (:mod:`ppo_migrate.analysis.versions`,
#: :mod:`ppo_migrate.analysis.pins`): never searched for mentions.
READ_NAMES: frozenset[str] = frozenset({
    "pyproject.toml", "setup.cfg", "setup.py", "uv.lock", "poetry.lock", "pdm.lock", "pylock.toml",
    "tox.ini", "tox.toml", "Pipfile", "Pipfile.lock", "pixi.toml", "pip.conf", "pip.ini",
})
#: Name patterns of the files those readers read in whole (:func:`fnmatch.fnmatch`).
READ_PATTERNS: tuple[str, ...] = (
    "*requirements*.txt", "*requirements*.in", "requirements*.lock", "pylock.*.toml",
    "environment*.yml", "environment*.yaml",
)
#: The folder whose ``*.txt``/``*.in`` files are requirements files the tool reads.
_REQUIREMENTS_FOLDER = "requirements"

_TEXT_SUFFIXES = (
    ".yaml", ".yml", ".toml", ".lock", ".cfg", ".ini", ".conf", ".sh", ".bash", ".zsh", ".def",
    ".mk", ".dockerfile", ".Dockerfile",
)
_TEXT_NAMES = frozenset({
    "Dockerfile", "Containerfile", "Singularity", "Makefile", "makefile", "GNUmakefile",
    "justfile", "Justfile", ".justfile",
})
#: :data:`READ_PATTERNS` and the tests' file names, each one regular expression (a name is
#: matched once, not once a pattern).
_READ = re.compile("|".join(fnmatch.translate(p) for p in READ_PATTERNS))
_TEST_FILE = re.compile(r"test_.*\.py|.*_test\.py|conftest\.py")


def mention_kind(name: str, parts: tuple[str, ...] | list[str] = ()) -> str | None:
    """How a file is searched for mentions of verl, from its name and folders alone.

    Args:
        name: the file's name, e.g. ``"runtime_env.yaml"``.
        parts: the folders between the repository root and the file (``("ci", "k8s")``).

    Returns:
        ``"text"`` (``#`` comments), ``"json"``, ``"requirements"`` (requirement lines only),
        ``"python"`` (string literals), ``"maybe-script"`` (extensionless: searched as text
        when it starts with a shell's shebang), or ``None`` when the file is not searched
        (the module's list: read by the pin readers, documentation, a test's Python file).
    """
    if name in READ_NAMES or _READ.match(name):
        return None
    if name.endswith(".py"):
        if DOUBLES_FOLDERS.intersection(parts) or _TEST_FILE.fullmatch(name):
            return None
        return "python"
    if name.endswith((".txt", ".in")):
        if parts and parts[-1] == _REQUIREMENTS_FOLDER:  # requirements/*.txt: read already
            return None
        return "requirements"
    if name.endswith(".json"):
        return "json"
    if (
        name in _TEXT_NAMES
        or name.endswith(_TEXT_SUFFIXES)
        or name.startswith(("Dockerfile.", "Containerfile.", "Singularity."))
    ):
        return "text"
    if "." not in name:
        return "maybe-script"
    return None


def candidate_texts(root: str | os.PathLike[str], respect_gitignore: bool = True) -> Iterator[tuple[str, str, str]]:
    """``(path, kind, text)`` of every file under ``root`` to search for mentions whose bytes
    hold the name ``verl``, in walk order.

    Args:
        root: the repository root (absolute or not).
        respect_gitignore: as for :func:`ppo_migrate.project.tree.repository_listing`.

    Returns:
        An iterator; ``kind`` as :func:`mention_kind` gives it (``"maybe-script"`` resolved
        to ``"text"``, or the file skipped when it has no shell shebang); ``text`` the bytes
        decoded as UTF-8 (errors replaced). Never raises: an unreadable file is skipped.
    """
    root = os.path.abspath(os.fspath(root))
    listing = repository_listing(root, respect_gitignore)
    holds_verl = current().memo(HOLDS_VERL)  # what the search for import roots read already
    for directory, names in listing.folders.items():
        parts: tuple[str, ...] | None = None
        for name in names:
            if parts is None:
                parts = tuple(relative_parts(directory, root))
            kind = mention_kind(name, parts)
            if kind is None:
                continue
            path = os.path.join(directory, name)
            if holds_verl.get(path) is False:
                continue
            data = _read(path)
            if data is not None:
                data = utf8_text(data)  # a UTF-16 file's text by its byte-order mark (trial 26d)
            if data is None or not names_verl(data):
                continue
            if kind == "maybe-script":
                first = data.split(b"\n", 1)[0]
                if not (first.startswith(b"#!") and b"sh" in first and b"python" not in first):
                    continue
                kind = "text"
            yield path, kind, decode_text(data, "replace")


#: A distribution file of verl by its name alone: ``verl-0.8.0-py3-none-any.whl``,
#: ``verl-0.8.0.tar.gz``, ``verl-0.8.0.zip`` (the sdist and wheel names of PEP 625/427).
_DISTRIBUTION_NAME = re.compile(
    r"verl-\d[\w.+!-]*\.(?:whl|tar\.gz|tar\.bz2|zip|conda)", re.IGNORECASE
)


def distribution_files(root: str | os.PathLike[str], respect_gitignore: bool = True) -> list[str]:
    """The distribution files of verl kept in the repository at ``root`` (trial 26d: a
    committed ``wheelhouse/verl-0.8.0-py3-none-any.whl`` that the trainer extracts and puts
    first on ``sys.path`` at run time), from the one walk's names alone, in walk order.

    Such a file is a copy of that release the code may run: its name is a mention of it
    (:func:`ppo_migrate.analysis.mentions.unread_mentions`), whatever reads it.

    Args:
        root: the repository root (absolute or not).
        respect_gitignore: as for :func:`ppo_migrate.project.tree.repository_listing`.

    Returns:
        Absolute paths. Never raises.
    """
    root = os.path.abspath(os.fspath(root))
    listing = repository_listing(root, respect_gitignore)
    return [
        os.path.join(directory, name)
        for directory, names in listing.folders.items()
        for name in names
        if name[:5].lower() == "verl-" and _DISTRIBUTION_NAME.fullmatch(name)
    ]

