"""One declaration of verl, from a PEP 508 string, a path or URL reference or a pip
requirements file: the primitives every reader of a dependency file shares.

:mod:`.versions` (``pyproject.toml``'s standard tables, ``setup.*``, locks,
``requirements*.txt``) and :mod:`.pins` (the other files of issue 26, family 2) both read
their entries with these and yield :class:`_Found` entries; :mod:`.versions` then decides
among them. Kept apart so that neither reader module imports the other (issue 26: no
import cycle). Requirements and specifiers are parsed with :mod:`packaging`; nothing is
executed.
"""

from __future__ import annotations

import configparser
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from ppo_migrate.patterns import lazy_pattern
from ppo_migrate.project.snapshot import current

if TYPE_CHECKING:
    from packaging.requirements import Requirement

# ``packaging.requirements`` and ``packaging.utils`` are imported by the first question that
# needs them (:func:`_parsed_requirement`, :func:`_archive_version`): with ``markers`` and
# ``tags`` they import ``logging``, ``subprocess`` and ``platform`` (~35 ms, 4% of a check of
# benchmark items 9 and 10), and a project declaring ``verl>=0.9`` never needs them.

#: Every verl release on the package index, oldest first, as listed by ``pip index versions verl``
#: on 2026-12-01. Only used to find the lowest version a specifier set allows (a lower bound), so a
#: release published later matters only when a specifier excludes every release listed here.
KNOWN_VERL_RELEASES: tuple[Version, ...] = tuple(
    Version(v)
    for v in (
        "0.1",
        "0.2",
        "0.2.0.post1",
        "0.2.0.post2",
        "0.3.0.post0",
        "0.3.0.post1",
        "0.4.0",
        "0.4.1",
        "0.5.0",
        "0.6.0",
        "0.6.1",
        "0.7.0",
        "0.7.1",
        "0.8.0",
        "0.9.0",
        "0.9.1",
    )
)

#: The first release whose ``get_ppo_ray_runtime_env`` takes a config (verl PR #6976).
FIRST_CONFIG_RELEASE = Version("0.9.0")

_VERL = "verl"
# Errors that mean "this file (or entry) cannot be read": it is skipped, never raised.
_UNREADABLE = (OSError, UnicodeError, ValueError, SyntaxError, RecursionError, MemoryError, OverflowError, configparser.Error)


class _Found(NamedTuple):
    """One declaration of verl found in a file, before the project-wide decision."""

    version: Version | None
    path: Path
    line: int
    requirement: str
    kind: str  # "lock" | "specifier" | "direct-reference"
    bounded: bool  # a specifier that constrains the version (False for a bare ``verl``)
    local_path: Path | None = None  # a direct reference to a local directory
    #: declared for another environment only (an extra, a dependency group, a tox/hatch/
    #: pixi/Pipfile environment other than the default, a requirements file other than the
    #: root one): not in every environment the code runs in, so it may only lower the
    #: release (trial 26c, C; :func:`ppo_migrate.rules.versions.verl_evidence`)
    optional: bool = False
    #: the file an unquoted ``>`` in a shell install's word writes to (``pip install
    #: verl>=0.9.0`` in a script installs any verl and writes ``=0.9.0``: trial 26e, W3),
    #: else ``None``
    redirect: str | None = None
    #: a local folder whose name does not spell verl, taken for verl because it holds a
    #: ``verl/`` package (``-e ./.deps/rlcore`` in an ``environment.yml``'s ``pip:`` section,
    #: trial 26g W2): the line does not say that this is the verl that runs
    inferred: bool = False
    #: a uv workspace source whose only verl member ``[tool.uv.workspace] exclude`` takes out:
    #: that member's folder as written (``packages/verl``); ``line`` is the exclude entry's
    #: (fresh user 43, W11), else ``None``
    excluded: str | None = None


def optional(found: Iterable[_Found]) -> Iterator[_Found]:
    """``found``, each marked as declared for another environment only (:attr:`_Found.optional`).

    Args:
        found: declarations read from an optional table (``[project.optional-dependencies]``,
            ``[dependency-groups]``, ``[testenv:next]``, ...).

    Yields:
        The same ``_Found`` entries with ``optional=True``; never raises.
    """
    for one in found:
        yield one._replace(optional=True)


def lowest_allowed(specifier: SpecifierSet) -> Version | None:
    """The lowest version ``specifier`` allows among verl's known releases and its own versions.

    Args:
        specifier: a PEP 440 specifier set; an empty set allows everything.

    Returns:
        The lowest candidate the set contains, where the candidates are :data:`KNOWN_VERL_RELEASES`
        and the versions written in the set's clauses and their next patch releases (wildcards
        excluded); a known release is preferred when equal (``~=0.9`` gives ``0.9.0``). ``None``
        when no candidate is allowed (``>0.9.5`` today) or the set is empty (no constraint).

    A written ``>X`` also makes the patch release after ``X`` a candidate (one published later
    may exist): the answer must never be above what the project may install.

    Examples: ``>=0.7.1,<0.9.0`` → 0.7.1; ``<0.9`` → 0.1; ``>0.8.0`` → 0.8.1; ``~=0.9`` → 0.9.0.
    """
    if not len(specifier):
        return None
    candidates: dict[Version, Version] = {v: v for v in KNOWN_VERL_RELEASES}
    for clause in specifier:
        if clause.operator in (">=", "==", "~=", "===", ">") and not clause.version.endswith(".*"):
            try:
                written = Version(clause.version)
            except InvalidVersion:
                continue
            candidates.setdefault(written, written)
            if clause.operator == ">":  # ``>0.8.0`` allows a 0.8.1 that may be released later
                major, minor, micro = (*written.release, 0, 0)[:3]
                after = Version(f"{major}.{minor}.{micro + 1}")
                candidates.setdefault(after, after)
    allowed = [v for v in sorted(candidates.values()) if specifier.contains(v, prereleases=True)]
    return allowed[0] if allowed else None


# ---------------------------------------------------------------------------------------------
# Requirements (PEP 508 strings)


def _is_verl(name: str) -> bool:
    """Whether ``name`` is verl's distribution name: ``packaging.utils.canonicalize_name(name)
    == "verl"`` (PEP 503: runs of ``-_.`` become one ``-``, then lower case), which holds
    exactly when ``name.lower()`` is ``"verl"`` (a name holding ``-``, ``_`` or ``.`` keeps a
    ``-``)."""
    return name.lower() == _VERL


#: A requirement that is verl's name and release clauses only (``verl>=0.9``,
#: ``Verl==0.8.0``, ``verl>=0.9,<1.0``; no space, extra, marker, URL, pre-release or
#: wildcard): read without ``packaging``'s requirement parser (:func:`_parsed_requirement`).
_PLAIN_VERL = re.compile(
    r"(?P<name>[Vv][Ee][Rr][Ll])"
    r"(?P<specifier>(?:==|!=|~=|<=|>=|<|>)[0-9]+(?:\.[0-9]+)*(?:,(?:==|!=|~=|<=|>=|<|>)[0-9]+(?:\.[0-9]+)*)*)?"
)


class _PlainRequirement(NamedTuple):
    """What :class:`packaging.requirements.Requirement` holds for a :data:`_PLAIN_VERL` string."""

    name: str
    specifier: SpecifierSet
    url: None = None
    marker: None = None


def _parsed_requirement(text: str):
    """``packaging.requirements.Requirement(text)``, or ``None`` when it raises
    ``InvalidRequirement``; a :data:`_PLAIN_VERL` string is read here to the same name and
    specifier set (its clauses parsed by :class:`SpecifierSet`, as the parser hands them)."""
    plain = _PLAIN_VERL.fullmatch(text)
    if plain is not None:
        try:
            return _PlainRequirement(plain.group("name"), SpecifierSet(plain.group("specifier") or ""))
        except InvalidSpecifier:  # ``verl~=1``: the parser refuses it too, as below
            pass
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        return Requirement(text)
    except InvalidRequirement:
        return None


#: a template or variable standing for text a build fills in: a shell's or Dockerfile's
#: ``${V}``/``${V:-d}``/``$V``, make's ``$(V)``, just's or Jinja's ``{{ v }}``, autoconf's
#: and CMake's ``@V@``
_VARIABLE_TEMPLATE = r"(?:\$\{[^}\n]*\}|\$\(?[A-Za-z_]\w*\)?|\{\{[^}\n]*\}\}|@[A-Za-z_]\w*@)"
#: Python's format templates, ``{}``/``{v}`` and ``%(v)s``: only after a PEP 440 operator
#: (``"verl={}".format(v)`` is as often a message as a requirement)
_FORMAT_TEMPLATE = r"(?:\{\w*\}|%\(\w+\)[sdr]|%[sdr])"
_VERSION_CHARS = r"[\w.*+!]"
#: A verl requirement whose version is a template or a variable (issue 26, trial 26c):
#: ``verl==${VERL_VERSION}``, ``verl=={{verl_version}}``, ``verl==%(v)s``, ``verl>=@V@``,
#: conda's ``verl=$V``, Poetry's ``verl@${V}``. Its release cannot be read.
TEMPLATED_VERL = lazy_pattern(
    r"(?<![\w.\-/@])(?P<name>verl)(?:[ \t]*\[[^\]\n]*\])?[ \t]*(?P<version>"
    rf"(?:===|==|~=|!=|<=|>=|<|>|=|@)[ \t]*{_VERSION_CHARS}*{_VARIABLE_TEMPLATE}(?:{_VERSION_CHARS}|{_VARIABLE_TEMPLATE})*"
    rf"|(?:===|==|~=|!=|<=|>=|<|>)[ \t]*{_VERSION_CHARS}*{_FORMAT_TEMPLATE}(?:{_VERSION_CHARS}|{_FORMAT_TEMPLATE})*)",
    re.IGNORECASE,
)


def templated_verl(text: str) -> re.Match[str] | None:
    """The first verl requirement of ``text`` whose version is a template (:data:`TEMPLATED_VERL`).

    Args:
        text: a requirement, an install argument or a line of a file.

    Returns:
        The match (``group(0)`` the requirement as written), or ``None``.
    """
    return TEMPLATED_VERL.search(text) if "verl" in text.lower() else None



def _from_requirement(text: str, path: Path, line: int, *, lock_pins: bool) -> _Found | None:
    """A PEP 508 string: a verl declaration, or None (another package, unparsable).

    ``lock_pins``: an exact ``==``/``===`` pin counts as a lock (requirements files)."""
    req = _parsed_requirement(text)
    if req is None:
        return None
    if not _is_verl(req.name):  # markers are not evaluated: every branch of a split counts
        return None
    found = _requirement_found(req, text.strip(), path, line, lock_pins=lock_pins)
    if req.marker is not None and found.kind != "direct-reference" and (
        found.version is None or found.version >= FIRST_CONFIG_RELEASE
    ):
        # ``verl>=0.9; python_version < "3.0"``: where the marker is false, nothing here
        # constrains verl. Such a line can lower the release in effect, never show a new
        # one: it counts as a bare ``verl``.
        return found._replace(version=None, kind="specifier", bounded=False)
    return found


def _requirement_found(req: Requirement, written: str, path: Path, line: int, *, lock_pins: bool) -> _Found:
    """The declaration a parsed verl requirement makes, its marker aside."""
    if req.url:
        archived = _archive_version(req.url) or _git_tag_version(req.url) or _repository_archive(req.url)[1]
        if archived is not None:
            return _Found(archived, path, line, written, "lock", True)
        return _Found(None, path, line, written, "direct-reference", True, _local_directory(req.url, path))
    if lock_pins:
        pinned = _exact_pin(req.specifier)
        if pinned is not None:
            return _Found(pinned, path, line, written, "lock", True)
    if not len(req.specifier):
        return _Found(None, path, line, written, "specifier", False)
    return _Found(lowest_allowed(req.specifier), path, line, written, "specifier", True)



def _archive_version(reference: str) -> Version | None:
    """The version a verl wheel or sdist file name states (``.../verl-0.8.0-py3-none-any.whl``), else None."""
    from packaging.utils import (
        InvalidSdistFilename,
        InvalidWheelFilename,
        parse_sdist_filename,
        parse_wheel_filename,
    )

    base = re.split(r"[/\\]", re.split(r"[#?]", reference, maxsplit=1)[0].rstrip("/\\"))[-1]
    try:
        if base.endswith(".whl"):
            name, version, _, _ = parse_wheel_filename(base)
        elif base.endswith((".tar.gz", ".zip")):
            name, version = parse_sdist_filename(base)
        else:
            return None
    except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
        return None
    return version if name == _VERL else None



#: an archive of a repository's tree at a ref (trial 26e): ``.../verl/archive/<sha>.zip``,
#: ``.../verl/archive/refs/tags/v0.8.0.tar.gz``, GitLab's ``.../verl/-/archive/v0.8.0/verl-v0.8.0.zip``
_REPOSITORY_ARCHIVE = re.compile(
    r"/(?P<repository>[^/?#]+?)(?:\.git)?/(?:-/)?archive/(?:refs/(?:tags|heads)/)?(?P<ref>[^/?#]+?)"
    r"(?:\.tar\.gz|\.tgz|\.tar\.bz2|\.tar|\.zip)?(?:/[^?#]*)?(?:[?#].*)?$"
)


def _repository_archive(reference: str) -> tuple[bool, Version | None]:
    """Whether ``reference`` is an archive URL of a repository named verl, and the release
    its ref names (``v0.8.0``: 0.8.0; a commit or a branch: ``None``).

    Args:
        reference: a URL or path, as an install argument or a requirement's URL spells it.

    Returns:
        ``(True, version or None)`` for such an archive (trial 26e,
        ``e2b_dockerfile_archive_sha``: ``pip install .../verl/archive/<sha>.zip`` installs
        verl, whatever the archive's file name says), else ``(False, None)``.
    """
    m = _REPOSITORY_ARCHIVE.search(reference.strip())
    if m is None or not _is_verl(m.group("repository")):
        return False, None
    return True, _tag(m.group("ref"))


def _vcs_split(reference: str) -> tuple[str, str | None]:
    """``reference`` without its fragment and VCS ref, and the ref: pip's ``vcs+scheme://
    host/path@ref`` puts the ref after the last ``@`` of the path, and a ref may hold ``/``
    (``@release/v0.8.x``: trial 26e, ``e2b_dockerfile_git_ref_slash``)."""
    bare = reference.strip().split("#", 1)[0]
    scheme, sep, rest = bare.partition("://")
    if not sep:
        scheme, rest = "", bare
    host, slash, path = rest.partition("/")
    if not slash and sep:
        return bare, None
    target = path if sep else rest
    if "@" not in target:
        return bare, None
    base, ref = target.rsplit("@", 1)
    prefix = f"{scheme}://{host}/" if sep else ""
    return prefix + base, ref or None


def _distribution_glob(reference: str) -> tuple[bool, Version | None]:
    """Whether ``reference``'s last component is a verl wheel or sdist file name that
    :func:`_archive_version` cannot read (a glob ``verl-*.whl``, a made-up version), and
    the release it spells when it does (``verl-0.8.0-*.whl``: 0.8.0)."""
    base = re.split(r"[/\\]", reference.strip().split("#", 1)[0].rstrip("/\\"))[-1]
    m = re.fullmatch(r"(?i)verl(?P<rest>[-*?\[][^/\\]*)?\.(?:whl|tar\.gz|zip)", base)
    if m is None:
        return False, None
    spelled = re.match(r"-v?(\d+(?:\.\d+)+)(?:-|\.(?:whl|tar|zip)|$)", m.group("rest") or "")
    try:
        return True, Version(spelled.group(1)) if spelled else None
    except InvalidVersion:
        return True, None


def _git_tag_version(reference: str) -> Version | None:
    """The release a git reference's tag names (``git+https://.../verl@v0.8.0``), else None.

    Only a tag spelled as a release (``v0.8.0``, ``0.8``, ``v0.9.1``) counts; a branch or a
    commit says nothing about the release it derives from."""
    m = re.search(r"@v?(\d+\.\d+(?:\.\d+)?)(?=$|[#?])", reference.strip())
    return _tag(m.group(1)) if m else None



def _tag(text: object) -> Version | None:
    if not isinstance(text, str):
        return None
    m = re.fullmatch(r"v?(\d+\.\d+(?:\.\d+)?)", text.strip())
    try:
        return Version(m.group(1)) if m else None
    except InvalidVersion:
        return None



def _local_directory(reference: str, declared_in: Path) -> Path | None:
    """The local directory a path reference names (relative to the declaring file), else None.

    pdm's ``${PROJECT_ROOT}`` (``-e file:///${PROJECT_ROOT}/third_party/verl``, pdm's
    documentation, "Dependency specification": "relative paths ... with
    ``${PROJECT_ROOT}``") is the declaring file's folder: the folder of the
    ``pyproject.toml`` or ``pdm.lock`` that spells it."""
    ref = reference.strip().split("#", 1)[0]
    if "${PROJECT_ROOT}" in ref:
        ref = ref.replace("${PROJECT_ROOT}", declared_in.parent.as_posix())
    if ref.startswith("file:"):
        ref = re.sub(r"^file:(//)?", "", ref)
        ref = re.sub(r"^/{2,}", "/", ref)  # ``file:///`` + an absolute folder
    elif re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", ref) or ref.startswith("git+"):
        return None
    ref = re.sub(r"\[.*\]$", "", ref)
    if not ref:
        return None
    directory = Path(ref) if os.path.isabs(ref) else declared_in.parent / ref
    directory = Path(os.path.normpath(directory))
    return directory if current().fs.is_dir(directory) else None  # stat-ed once a run



def _exact_pin(specifier: SpecifierSet) -> Version | None:
    clauses = list(specifier)
    if len(clauses) != 1 or clauses[0].operator not in ("==", "===") or clauses[0].version.endswith(".*"):
        return None
    try:
        return Version(clauses[0].version)
    except InvalidVersion:
        return None


# ---------------------------------------------------------------------------------------------
# Line numbers for values read through tomllib/configparser (which report none)


def _line_of(text: str, needle: str, start: int = 0) -> int:
    """1-based line of the first ``needle`` at or after offset ``start`` (else anywhere, else 1)."""
    at = text.find(needle, start)
    if at < 0:
        at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1



def _offset_of_table(text: str, header: str) -> int:
    """Offset of the TOML table header ``[header]`` (or ``[[header]]``), else 0."""
    m = re.search(r"^\s*\[\[?\s*" + re.escape(header) + r"\s*\]\]?", text, re.MULTILINE)
    return m.start() if m else 0



def _line_of_string(text: str, value: str, start: int) -> int:
    """1-based line of the TOML string ``value`` at or after offset ``start`` (else anywhere,
    else 1): as a basic string, a literal one, a basic one with its quotes and backslashes
    escaped (``"verl>=0.9.1; python_version<\\"3.0\\""``, fresh user 44, W3), or bare."""
    escaped = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    for quoted in (f'"{value}"', f"'{value}'", escaped, value):
        at = text.find(quoted, start)
        if at < 0:
            at = text.find(quoted)
        if at >= 0:
            return text.count("\n", 0, at) + 1
    return 1



def _line_of_toml_key(raw: str, key: str, start: int) -> int:
    pattern = re.compile(r"^\s*[\"']?" + re.escape(key) + r"[\"']?\s*=", re.MULTILINE)
    m = pattern.search(raw, start) or pattern.search(raw)
    return raw.count("\n", 0, m.start()) + 1 if m else 1



def _source_line(raw: str, line: int) -> str:
    lines = raw.splitlines()
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""



def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []



def _pep508_list(values: Iterable[str], raw: str, path: Path, start: int) -> Iterator[_Found]:
    for text in values:
        found = _from_requirement(text, path, _line_of_string(raw, text, start), lock_pins=False)
        if found is not None:
            yield found


# ---------------------------------------------------------------------------------------------
# requirements*.txt (pip's format)


_OPTION_WITH_VALUE = lazy_pattern(r"^(--requirement|--editable|--constraint|-r|-e|-c)(?:\s*=\s*|\s*)(\S.*)$")


def _logical_lines(raw: str) -> Iterator[tuple[int, str]]:
    """pip's logical lines: backslash continuations joined, comments removed; (first line, text)."""
    pending: list[str] = []
    first = 0
    for number, physical in enumerate(raw.splitlines(), start=1):
        if not pending:
            first = number
        if physical.endswith("\\"):
            pending.append(physical[:-1])
            continue
        pending.append(physical)
        text = re.sub(r"(^|\s)#.*$", "", " ".join(pending)).strip()
        pending = []
        if text:
            yield first, text
    if pending:
        text = re.sub(r"(^|\s)#.*$", "", " ".join(pending)).strip()
        if text:
            yield first, text



def _read_text(path: Path) -> str:
    """``path.read_text(encoding="utf-8")``, the bytes read once a run
    (:meth:`ppo_migrate.project.snapshot.Snapshot.read_text`), decoded by the file's
    byte-order mark when it has one (UTF-8, UTF-16, UTF-32: pip's ``auto_decode``, trial 26d),
    the mark dropped: every dependency file's reader reads through here or ``read_text``.

    Raises:
        OSError, ValueError, UnicodeDecodeError: as :meth:`~ppo_migrate.project.snapshot.Snapshot.read_text`.
    """
    return current().read_text(path)


def _read_requirements(path: Path, seen: set[Path]) -> Iterator[_Found]:
    """The declarations of verl in the pip requirements file ``path`` and the files its
    ``-r``/``-c`` lines include (:func:`requirement_lines`).

    Args:
        path: the requirements file.
        seen: the (resolved) files already read in this search, updated: an include cycle,
            or a file reached twice, is read once.

    Yields:
        ``_Found`` entries; a file that cannot be read yields nothing (never raises). A
        constraints file's entries are ``optional`` when no requirement of the resolution
        names verl (:func:`_resolved`).
    """
    yield from _resolved(_file_pairs(path, seen))


def _file_pairs(path: Path, seen: set[Path]) -> Iterator[tuple[_Found, bool]]:
    """``(found, constrained)`` of the requirements file ``path`` and its includes
    (:func:`_line_pairs`); nothing when it cannot be read or was read already."""
    try:
        resolved = Path(current().fs.realpath(path))  # ``path.resolve()``, once a run
    except (OSError, RuntimeError, ValueError):
        return
    if resolved in seen:
        return  # an include cycle, or a file already read through another include
    seen.add(resolved)
    try:
        raw = _read_text(path)
    except _UNREADABLE:
        return
    yield from _line_pairs(_logical_lines(raw), path, seen)


def _resolved(pairs: Iterable[tuple[_Found, bool]]) -> Iterator[_Found]:
    """The declarations of one pip resolution: ``pairs`` are ``(found, constrained)``, the
    second true for an entry of a constraints file (``-c``/``--constraint``, however deep).

    A constraint installs nothing: it narrows the verl a requirement installs (pip's user
    guide, "Constraints Files"). With a requirement on verl in the same resolution the
    constraints count as they are; without one they decide nothing and are ``optional``:
    they may only lower the release (trial 26e, ``e3b_pip_constraints_only``: a base
    image's verl 0.8 beside ``-c constraints.txt`` holding ``verl>=0.9.0``).
    """
    pairs = list(pairs)
    installs = any(not constrained for _, constrained in pairs)
    for found, constrained in pairs:
        yield found._replace(optional=True) if constrained and not installs else found


def requirement_lines(lines: Iterable[tuple[int, str]], path: Path, seen: set[Path]) -> Iterator[_Found]:
    """The declarations of verl in pip requirement lines, as pip reads a requirements file.

    Args:
        lines: ``(line number, logical line)`` pairs (comments and continuations already
            handled: :func:`_logical_lines`), counted in ``path``.
        path: the file the lines are written in; ``-r``/``--requirement[=]`` and
            ``-c``/``--constraint[=]`` includes are read relative to its folder, as pip
            reads them relative to the requirements file (a constraints file's pins bound
            the versions the project installs: they count when a requirement of the same
            lines or their includes names verl, else they are ``optional``: :func:`_resolved`).
        seen: the files already read (:func:`_read_requirements`), updated by includes.

    Yields:
        ``_Found`` entries: a requirement (``--hash`` options dropped), an ``-e``/
        ``--editable`` reference, or a path or URL naming verl; options that name no
        requirement (``--index-url``, ``-f``) are skipped. Never raises.

    Also used for the entries of an ``environment.yml``'s ``pip:`` section, which conda
    writes into a requirements file beside the environment file and hands to ``pip install
    -r`` (conda's ``conda/env/installers/pip.py``; trial 26c, B).
    """
    yield from _resolved(_line_pairs(lines, path, seen))


def _line_pairs(lines: Iterable[tuple[int, str]], path: Path, seen: set[Path]) -> Iterator[tuple[_Found, bool]]:
    """``(found, constrained)`` of :func:`requirement_lines`' lines: ``constrained`` for
    what a ``-c`` include (at any depth) declares."""
    for line, text in lines:
        if text.startswith("-"):
            m = _OPTION_WITH_VALUE.match(text)
            if m is None:
                continue  # --index-url, --hash, -f ...: no requirement
            option, value = m.group(1), m.group(2).strip()
            if not value:
                continue
            if option in ("-r", "--requirement", "-c", "--constraint") and remote_file(value.split()[0]):
                if option in ("-r", "--requirement"):  # trial 26e (K): what it installs cannot be read
                    yield _Found(None, path, line, text, "direct-reference", True), False
                continue  # a remote constraints file installs nothing
            if option in ("-r", "--requirement", "-c", "--constraint"):
                included = _file_pairs(Path(os.path.normpath(path.parent / value.split()[0])), seen)
                constraint = option in ("-c", "--constraint")
                yield from ((f, constrained or constraint) for f, constrained in included)
            elif option in ("-e", "--editable"):
                found = _from_reference(value.split()[0], path, line, text)
                if found is not None:
                    yield found, False
            continue
        requirement = re.split(r"\s+--?[A-Za-z]", text, maxsplit=1)[0].strip()  # drop --hash=... options
        found = _from_requirement(requirement, path, line, lock_pins=True)
        if found is None and not _parses(requirement):
            found = _from_reference(requirement.split()[0], path, line, text)
        if found is None and templated_verl(requirement) is not None:
            # ``verl==${VERL_VERSION}``: pip fills in the environment's value (trial 26c); the
            # release cannot be read, which refuses the fix (never dropped)
            found = _Found(None, path, line, requirement, "direct-reference", True)
        if found is not None:
            yield found, False


def remote_file(value: str) -> bool:
    """Whether a ``-r``/``-c`` value names a file pip fetches (``https://.../rl-stack.txt``)
    rather than one of the repository: its requirements cannot be read (trial 26e, K: a
    lab's shared stack file pinning verl 0.8), so a ``-r`` of one is an install of a verl
    whose release cannot be read. A ``file:`` URL is local."""
    return bool(re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", value)) and not value.lower().startswith("file:")


def _parses(text: str) -> bool:
    return _parsed_requirement(text) is not None



def _from_reference(reference: str, path: Path, line: int, written: str) -> _Found | None:
    """A URL or path (``-e git+...#egg=verl``, ``./verl``): verl when its ``egg=`` fragment, its
    ``subdirectory=`` fragment's last component or its last path component names verl.

    Trial 26f (``g2_vcs_monorepo_subdirectory``, ``g2_requirements_vcs_subdirectory``): pip's
    ``#subdirectory=third_party/verl`` builds the package in that folder of the repository
    (pip's "VCS Support" documentation, "subdirectory" fragment), so
    ``git+https://.../rl-stack.git@v2#subdirectory=third_party/verl`` installs verl. Its ref
    (``@v2``) is the monorepo's, not verl's release: such a declaration (a subdirectory, or an
    ``egg=verl`` of a repository not named verl) is a verl whose release cannot be read.

    Args:
        reference (str): the URL or path as written (one argument, one requirements entry).
        path (Path): the file that declares it.
        line (int): its line in ``path``.
        written (str): the text quoted in messages.

    Returns:
        ``_Found`` or ``None`` when it does not name verl. Never raises.
    """
    egg = re.search(r"[#&]egg=([A-Za-z0-9._-]+)", reference)
    subdirectory = re.search(r"[#&]subdirectory=([^&#\s]+)", reference)
    base, ref = _vcs_split(reference)
    repository = re.sub(r"\.git$", "", re.split(r"[/\\]", base.rstrip("/\\"))[-1]) if base else ""
    monorepo = subdirectory is not None or (egg is not None and not _is_verl(repository))
    if egg:
        name = egg.group(1)
    elif subdirectory is not None:
        name = subdirectory.group(1).rstrip("/").split("/")[-1]
    else:
        bare = re.sub(r"\[.*\]$", "", base).rstrip("/\\")
        name = re.split(r"[/\\]", bare)[-1] if bare else ""
        name = re.sub(r"\.git$", "", name)
    archived = _archive_version(reference)
    if archived is not None:
        return _Found(archived, path, line, written, "lock", True)
    # trial 26e: an archive of verl's repository (``.../verl/archive/<sha>.zip``) and a wheel
    # glob (``/wheels/verl-*.whl``) install verl; the release is the one their ref or name
    # spells, else it cannot be read (never dropped)
    for is_verl, version in (_repository_archive(reference), _distribution_glob(reference)):
        if is_verl:
            kind = "lock" if version is not None else "direct-reference"
            return _Found(version, path, line, written, kind, True)
    if not name or not re.fullmatch(r"[A-Za-z0-9._-]+", name) or not _is_verl(name):
        # trial 26g (W2): ``-e ./.deps/checkouts/lab/rlcore`` installs the folder, which holds
        # a ``verl/`` package: the verl installed is that copy, whatever the folder's name
        local = None if egg else _local_directory(reference, path)
        if (
            local is not None
            and local != Path(os.path.normpath(path.parent))  # ``-e .``: the project itself
            and current().fs.is_file(os.path.join(local, _VERL, "__init__.py"))
        ):
            return _Found(None, path, line, written, "direct-reference", True, local, inferred=True)
        return None
    if monorepo and re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", re.sub(r"^[a-z]+\+", "", reference.strip())) \
            and not reference.strip().lower().startswith("file:"):
        # the ref names the repository's release, not verl's (trial 26f); a ``file:`` URL
        # names a folder here (pdm's ``-e file:///${PROJECT_ROOT}/.deps/rlcore#egg=verl``,
        # trial 26g): the copy in it is read below
        return _Found(None, path, line, written, "direct-reference", True)
    tagged = _git_tag_version(reference) or (_tag(ref) if ref is not None else None)
    if tagged is not None:
        return _Found(tagged, path, line, written, "lock", True)
    return _Found(None, path, line, written, "direct-reference", True, _local_directory(reference, path))


def poetry_specifier(constraint: str) -> SpecifierSet | None:
    """Poetry's constraint syntax as a PEP 440 set: ``^X``/``~X``/bare ``X``/``*``/comma lists;
    ``a || b`` keeps the alternative with the lowest bound. ``None`` when unparsable."""
    options: list[SpecifierSet] = []
    for alternative in constraint.split("||"):
        clauses: list[str] = []
        for part in re.split(r"\s*,\s*|\s+(?=[<>=!~^])", alternative.strip()):
            part = part.strip()
            if not part or part == "*":
                continue
            m = re.fullmatch(r"([\^~])\s*(\d+(?:\.\d+)*)(.*)", part)
            if m:  # ``~=`` does not match: its second character is not a digit
                op, base, rest = m.groups()
                nums = [int(n) for n in base.split(".")]
                if op == "^":  # up to the first non-zero component
                    first = next((i for i, n in enumerate(nums) if n != 0), len(nums) - 1)
                    upper = nums[: first + 1]
                else:  # ~X.Y[.Z] up to the minor, ~X up to the major
                    upper = nums[:2] if len(nums) >= 2 else nums[:1]
                upper = upper[:-1] + [upper[-1] + 1]
                clauses += [f">={base}{rest}", "<" + ".".join(map(str, upper))]
            elif re.fullmatch(r"\d+(\.\d+)*(\.\*)?", part):
                clauses.append(f"=={part}")
            else:
                clauses.append(part)
        try:
            spec = SpecifierSet(",".join(clauses))
        except InvalidSpecifier:
            return None
        if not len(spec):
            return spec  # one alternative allows anything
        options.append(spec)
    if not options:
        return None
    # the alternative with the lowest bound (one with no known bound only when none has one)
    return min(options, key=lambda s: (lowest_allowed(s) is None, lowest_allowed(s) or Version("0")))
