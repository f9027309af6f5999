"""The files of a repository whose text may mention a verl release in a format the tool does
not read (issue 26, trials 26b and 26d: pins in formats ppo-migrate cannot read).

A project may install its verl from a file no reader of :mod:`ppo_migrate.rules.versions`,
:mod:`ppo_migrate.rules.pins` or :mod:`ppo_migrate.rules.install_pins` understands: a
``hatch.toml``, a ``pixi.lock`` or ``conda-lock.yml``, an Apptainer definition's ``%post``, a
SkyPilot task's ``setup:``, a Ray ``runtime_env`` (YAML, JSON, ``--runtime-env-json``), a
KubeRay ``runtimeEnvYAML``, an invoke ``tasks.py`` or a script that runs pip with
``subprocess``; and (trial 26d) an ``Earthfile``'s ``RUN``, a ``Vagrantfile``'s provisioner, a
Terraform ``user_data`` (``*.tf``), a Nix ``shellHook`` (``*.nix``), an Ansible template
(``*.j2``), a ``Jenkinsfile``, a PowerShell script, a Slurm batch file, a notebook's ``%pip``.
Listing such formats never ends, so the rule is the other way round: **every file of the
repository is searched as text** except the short list below. This module picks the files
in the one walk of the repository (:func:`ppo_migrate.project.tree.repository_listing`) and
hands their text on; :mod:`ppo_migrate.rules.mentions` says what in it mentions an old verl.

How a file is searched (:func:`mention_kind`), from its name alone:

* **as Python** (its string literals, docstrings aside): ``*.py`` outside the tests;
* **as JSON** (no comments): ``*.json``;
* **as a notebook**: ``*.ipynb``, the lines of its code cells only (a markdown cell is prose;
  ``%pip install`` and ``!pip install`` are commands it runs);
* **as requirement lines** (a line counts only when it is a whole PEP 508 requirement, so
  that prose does not): other ``*.txt`` files;
* **as text**, ``#`` starting a comment: **any other file**, with or without an extension
  (YAML, TOML, INI, shell, Dockerfiles, Makefiles, ``Earthfile``, ``Vagrantfile``, ``*.tf``,
  ``*.nix``, ``*.j2``, ``*.ps1``, ``*.sbatch``, a template's ``*.in`` such as ``Dockerfile.in``,
  ...).

Not searched, and why (a short list; being searched costs only a needless unsafe fix, being
skipped a broken launcher):

* the files the readers above read in whole already, where they apply (:data:`READ_NAMES`,
  :data:`READ_PATTERNS`: ``pyproject.toml``, ``setup.cfg``, ``setup.py``,
  ``*requirements*.txt``, the locks the tool reads, ``environment*.yml``, ``tox.ini``,
  ``Pipfile``, ``pixi.toml``, ``pip.conf``...): a pin there keeps its own handling (a
  sub-project's pins apply to its own code only);
* documentation prose (:data:`PROSE_SUFFIXES`: ``*.md``, ``*.rst``, ``*.adoc``, ``*.html``,
  ``*.tex``, ...; :data:`PROSE_NAMES`: ``README``, ``CHANGELOG``, ``LICENSE``, ... without an
  extension or with ``.txt``): "since verl==0.8.0" installs nothing;
* data that installs nothing (:data:`DATA_SUFFIXES`: images, archives, model weights,
  tables, logs), and any file whose first bytes hold a NUL (binary), unless a UTF-16 or
  UTF-32 byte-order mark says it is text;
* sources of compiled languages and type stubs (:data:`COMPILED_SUFFIXES`: ``*.h``,
  ``*.cpp``, ``*.cu``, ``*.rs``, ``*.go``, ``*.pyi``, ...): built into binaries or read by
  a type checker, never run to build an environment (and a C++ tree holds thousands);
* the Python files of the tests (under a folder of
  :data:`ppo_migrate.project.tree.DOUBLES_FOLDERS`, ``test_*.py``, ``*_test.py``,
  ``conftest.py``): their strings are a test's inputs and expectations, not what installs
  the trainer's environment;
* what the walk does not enter (VCS, environment, cache and build folders, test data,
  git-ignored paths).

Cheap on purpose: the names decide without reading; a file is read through the run's
snapshot (:meth:`ppo_migrate.project.snapshot.Snapshot.read_bytes`, the first
:data:`ppo_migrate.project.import_roots._MAX_BYTES` of a larger one, as the other searches
of the repository read it) and handed on only when its bytes hold the name ``verl``
(:func:`ppo_migrate.project.import_roots.names_verl`: not the letters inside ``overload``;
UTF-16/32 text re-encoded first, :func:`ppo_migrate.files.utf8_text`). A file the search for
import roots read this run without the name in it
(:data:`ppo_migrate.project.import_roots.HOLDS_VERL`) is not read again.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator

from ppo_migrate.files import decode_text, utf8_text
from ppo_migrate.patterns import lazy_pattern
from ppo_migrate.project.import_roots import HOLDS_VERL, _read, names_verl
from ppo_migrate.project.snapshot import current
from ppo_migrate.project.tree import DOUBLES_FOLDERS, relative_parts, repository_listing

__all__ = ["READ_NAMES", "READ_PATTERNS", "candidate_texts", "distribution_files", "mention_kind", "names_verl"]

#: Files the tool's pin readers read in whole (:mod:`ppo_migrate.rules.versions`,
#: :mod:`ppo_migrate.rules.pins`): never searched for mentions.
READ_NAMES: frozenset[str] = frozenset({
    "pyproject.toml", "setup.cfg", "setup.py", "uv.lock", "poetry.lock", "pdm.lock", "pylock.toml",
    "tox.ini", "tox.toml", "Pipfile", "Pipfile.lock", "pixi.toml", "pip.conf", "pip.ini", "uv.toml",
})
#: Name patterns of the files those readers read in whole (:func:`fnmatch.fnmatch`).
READ_PATTERNS: tuple[str, ...] = (
    "*requirements*.txt", "*requirements*.in", "requirements*.lock", "pylock.*.toml",
    "environment*.yml", "environment*.yaml",
)
#: The folder whose ``*.txt``/``*.in`` files are requirements files the tool reads.
_REQUIREMENTS_FOLDER = "requirements"

#: Documentation prose: never searched (lower-cased suffixes).
PROSE_SUFFIXES: tuple[str, ...] = (
    ".md", ".markdown", ".mdx", ".rst", ".adoc", ".asciidoc", ".html", ".htm", ".tex", ".org",
    ".rtf", ".textile", ".pod", ".man",
)
#: Documentation by name (``README``, ``LICENSE.txt``; ``CHANGES.rst`` is prose by its suffix):
#: the upper-cased part before the first dot, with no extension or ``.txt``.
PROSE_NAMES: frozenset[str] = frozenset({
    "README", "CHANGELOG", "CHANGES", "HISTORY", "NEWS", "RELEASE_NOTES", "LICENSE", "LICENCE",
    "COPYING", "NOTICE", "AUTHORS", "CONTRIBUTORS", "CONTRIBUTING", "CODE_OF_CONDUCT", "SECURITY",
    "CITATION", "MAINTAINERS", "CODEOWNERS",
})
#: Data that installs nothing: images, documents, archives and packages, model weights and
#: arrays, tables, fonts, media, logs (lower-cased suffixes).
DATA_SUFFIXES: tuple[str, ...] = (
    ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".svg", ".webp", ".tif", ".tiff", ".pdf", ".eps",
    ".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".whl", ".egg", ".jar", ".conda",
    ".pt", ".pth", ".ckpt", ".safetensors", ".bin", ".onnx", ".pkl", ".pickle", ".npy", ".npz", ".h5",
    ".hdf5", ".parquet", ".arrow", ".feather", ".csv", ".tsv", ".jsonl", ".ttf", ".otf", ".woff",
    ".woff2", ".mp3", ".mp4", ".wav", ".log", ".so", ".dylib", ".dll", ".exe", ".o", ".a", ".pyc",
)
#: Sources of compiled languages and type stubs: built into binaries or read by a type checker,
#: never run to build an environment (a C++ tree's thousands of headers are not read: torch's
#: 9,300 ``*.h`` doubled the search's time).
COMPILED_SUFFIXES: tuple[str, ...] = (
    ".h", ".hh", ".hpp", ".hxx", ".inl", ".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh", ".m", ".mm",
    ".rs", ".go", ".java", ".kt", ".scala", ".swift", ".f", ".f90", ".s", ".asm", ".metal", ".cl",
    ".proto", ".pyi",
)
_SKIPPED_SUFFIXES = PROSE_SUFFIXES + DATA_SUFFIXES + COMPILED_SUFFIXES
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
        ``"python"`` (string literals), ``"json"``, ``"notebook"`` (code cells),
        ``"requirements"`` (requirement lines only), ``"text"`` (``#`` comments: every
        other file), or ``None`` when the file is not searched (the module's list: read by
        the pin readers, documentation, data, a test's Python file).
    """
    if name in READ_NAMES or _READ.match(name):
        return None
    lower = name.lower()
    if lower.endswith(".py"):
        if DOUBLES_FOLDERS.intersection(parts) or _TEST_FILE.fullmatch(name):
            return None
        return "python"
    base, _, extension = name.partition(".")
    if lower.endswith(_SKIPPED_SUFFIXES) or (base.upper() in PROSE_NAMES and extension.lower() in ("", "txt")):
        return None
    if parts and parts[-1] == _REQUIREMENTS_FOLDER and name.endswith((".txt", ".in")):
        return None  # requirements/*.txt and *.in: read already
    if lower.endswith(".txt"):
        return "requirements"
    if lower.endswith(".json"):
        return "json"
    if lower.endswith(".ipynb"):
        return "notebook"
    return "text"


def candidate_texts(root: str | os.PathLike[str], respect_gitignore: bool = True) -> Iterator[tuple[str, str, str]]:
    """``(path, kind, text)`` of every file under ``root`` to search for mentions whose bytes
    hold the name ``verl``, in walk order.

    Args:
        root: the repository root (absolute or not).
        respect_gitignore: as for :func:`ppo_migrate.project.tree.repository_listing`.

    Returns:
        An iterator; ``kind`` as :func:`mention_kind` gives it; ``text`` the bytes decoded
        by their byte-order mark, else as UTF-8 (errors replaced:
        :func:`ppo_migrate.files.decode_text`). A binary file (a NUL in the bytes read) is
        skipped. Never raises: an unreadable file is skipped.
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
            if data is None or not names_verl(data) or b"\0" in data:
                continue  # (UTF-16/32 text has no NUL left: ``utf8_text`` re-encoded it)
            yield path, kind, decode_text(data, "replace")


#: A distribution file of verl by its name alone: ``verl-0.8.0-py3-none-any.whl``,
#: ``verl-0.8.0.tar.gz``, ``verl-0.8.0.zip`` (the sdist and wheel names of PEP 625/427).
_DISTRIBUTION_NAME = lazy_pattern(
    r"verl-\d[\w.+!-]*\.(?:whl|tar\.gz|tar\.bz2|zip|conda)", re.IGNORECASE
)


def distribution_files(root: str | os.PathLike[str], respect_gitignore: bool = True) -> list[str]:
    """The distribution files of verl kept in the repository at ``root`` (trial 26d: a
    committed ``wheelhouse/verl-0.8.0-py3-none-any.whl`` that the trainer extracts and puts
    first on ``sys.path`` at run time), from the one walk's names alone, in walk order.

    Such a file is a copy of that release the code may run: its name is a mention of it
    (:func:`ppo_migrate.rules.mentions.unread_mentions`), whatever reads it.

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

