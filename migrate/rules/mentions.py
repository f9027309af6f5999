"""Mentions of an old verl in files whose format ppo-migrate does not read (issue 26, trial
26b: pins in formats the tool cannot read).

A project can install verl 0.8 from a file no pin reader understands (``hatch.toml``,
``pixi.lock``, ``conda-lock.yml``, an Apptainer ``%post``, SkyPilot's ``setup:``, a Ray
``runtime_env`` or ``--runtime-env-json``, KubeRay's ``runtimeEnvYAML``, invoke's
``c.run("pip install verl==0.8.0")``, ``subprocess.run([..., "pip", "install",
"verl==0.8"])``) while the files the tool does read say ``verl>=0.9`` or nothing. Reading each
such format would never end; their *text* is enough to be careful: a requirement-looking
mention of a verl release before 0.9.0 anywhere in such a file makes a fix whose verl a pin
(or nothing, or the verl installed beside the tool) decided unsafe, naming the file and line
(:meth:`ppo_migrate.rules.signatures.SignatureResolver.callee`).

What counts as a mention (:func:`text_mentions`), the name ``verl`` in any case, not part of
a longer name (``myverl``, ``verl-recipe``, ``verl_tools`` are other packages):

* a **requirement**: ``verl`` (extras allowed) then a PEP 440 specifier set:
  ``verl==0.8.0``, ``verl<0.9``, ``verl~=0.8.0``, ``verl==0.7.*``, ``verl[vllm] >= 0.7, < 0.9``;
* a **name and its version as key and value**: ``verl = "0.8.0"``, ``verl: ==0.8``,
  ``"verl": "^0.8"`` (a bare version is that release; ``^``/``~`` are Poetry's), a TOML
  inline table's ``version`` (``verl = { version = "0.8.0" }``), conda's ``verl=0.8.0``,
  Poetry's ``verl@0.8.0``, and the name and its specifier as two strings in a row:
  ``"verl", "==0.8"``;
* a **distribution file** naming its release: ``verl-0.8.0-py3-none-any.whl``,
  ``verl-0.8.0.tar.gz``, ``verl-0.8.0-pyhd8ed1ab_0.conda``;
* a **git tag** naming a release: ``.../verl.git@v0.8.0`` (``@v0.8.0-backport`` is a branch:
  its release cannot be read);
* a **lock entry**: a line ``name: verl`` (``name = "verl"``, ``"name": "verl"``) and, within
  the next :data:`_ENTRY_LINES` lines and before another ``name``, its ``version: 0.8.0``;
* an **environment named after a release** (trial 26f, HPC clusters): an environment module
  ``verl/0.8.0`` (``module load``), spack's ``py-verl@0.8.0``, a path component or file name
  ``verl-0.8.0``/``verl_0.8.0``/``verl0.8`` (a shared venv's ``bin/activate``, ``conda
  activate verl-0.8.0``, an Apptainer ``verl-0.8.0.sif``, an enroot ``verl_0.8.0.sqsh``), in
  the text formats, not in a Python string (a path to a checkout there is a test's or a
  benchmark's);
* an **image of verl's own** whose tag names its release (trial 26e), in any image
  reference: ``verlai/verl:app-verl0.8-vllm0.10.2-...`` holds verl 0.8 wherever it is named
  (a KubeRay or compose ``image:``, a workflow's ``container:``, SkyPilot's ``image_id:
  docker:...``, ``srun --container-image=``, an Apptainer ``From:``, a Python string), as a
  Dockerfile's ``FROM`` of it is a pin (:mod:`ppo_migrate.rules.install_pins`);
* an **archive of verl's repository** at a tag naming an old release
  (``.../verl/archive/refs/tags/v0.8.0.tar.gz``: as a git tag), and a **wheel glob**
  (``verl-*.whl``, trial 26e), any release, since which one the build copies in cannot be
  read (in Python only where it is installed, as a template); a branch or a commit
  (``@main``, ``.../archive/<sha>.zip``) says nothing of the release, as above;
* a **requirement whose version is a template** (trial 26c), any release, since which one the
  build fills in cannot be read: ``verl==${VERL_VERSION}``, ``verl==$V``, ``verl==$(V)``,
  ``verl=={{verl_version}}``, ``verl>=@V@``, ``verl==%(v)s``, ``verl=={}``, an f-string's
  ``f"verl=={version}"`` (:data:`ppo_migrate.rules.requirements.TEMPLATED_VERL`); in
  Python only where it is installed (an install command's text, or beside ``"install"``
  in a list or call: ``pip download verl=={v}`` installs nothing).

"Old" (all but the templates) means that the specifier allows some release and none from
:data:`ppo_migrate.rules.requirements.FIRST_CONFIG_RELEASE` (0.9.0, verl PR #6976) on,
decided with :mod:`packaging` (:func:`excludes_config_releases`): ``verl<0.9``,
``verl==0.8.*``, ``verl~=0.8.0`` are old; ``verl>=0.9``, ``verl!=0.9.0``, ``verl~=0.8``
(which allows 0.9) and ``verl<0.5,>0.9`` (which allows nothing) are not.

What does not count: a mention in a comment (``#`` at a line's start or after white space in
the text formats; a Python comment), which installs nothing, and in a project that moved to
0.9 is often the old pin kept for the record (``# was verl==0.8.0``); in a ``*.txt``/``*.in``
file, a line that is not a whole requirement (prose); in Python, a docstring and a string
line that is prose rather than code (a message, a help text: only a single token, a whole
requirement or an install command counts; the strings of one call or list that together spell
an install command count too: nbconvert's ``get_ipython().run_line_magic('pip', 'install
verl==0.8.0')``, trial 26d); in a notebook, its markdown cells and outputs
(:func:`notebook_mentions`). Which files are searched is :mod:`ppo_migrate.project.mentions`'
(every file by name but the files the pin readers read, documentation, data, binaries and
the tests' Python files).

Pure functions of text and trees, but :func:`unread_mentions`, which asks the collect layer
for the files' text once a run (:meth:`ppo_migrate.project.snapshot.Snapshot.memo`).
"""

from __future__ import annotations

import ast
import itertools
import json
import os
import re
from typing import NamedTuple

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version
from ppo_migrate.constants import MAX_SOURCE_CHARS
from ppo_migrate.patterns import lazy_pattern
from ppo_migrate.rules.requirements import (
    FIRST_CONFIG_RELEASE,
    KNOWN_VERL_RELEASES,
    TEMPLATED_VERL,
    poetry_specifier,
    templated_verl,
)
from ppo_migrate.project.snapshot import current

__all__ = [
    "Mention",
    "excludes_config_releases",
    "notebook_mentions",
    "python_mentions",
    "text_mentions",
    "unread_mentions",
]


class Mention(NamedTuple):
    """A mention of an old verl in a file whose format the tool does not read.

    Attributes:
        path: the file (absolute).
        line: 1-based line of the mention.
        written: the mention as written, e.g. ``"verl==0.8.0"``,
            ``"verl-0.8.0-py3-none-any.whl"``, ``"verl 0.8.0 (a lock entry)"``.
    """

    path: str
    line: int
    written: str


# -- what is old ---------------------------------------------------------------------------------


def excludes_config_releases(specifier: SpecifierSet) -> bool:
    """Whether ``specifier`` allows some verl release but none that takes a config.

    Args:
        specifier: a PEP 440 specifier set (an empty one allows everything: not old).

    Returns:
        ``True`` when a release before 0.9.0 is allowed (a known one or one written in the
        set, or the one right after such a version) and no candidate from 0.9.0 on is:
        0.9.0, the known releases after it, each version written in the set from 0.9.0 on
        and the one right after it, and a far release (10000). Pre-releases count as
        releases.
    """
    if not len(specifier):
        return False
    written: list[Version] = []
    for clause in specifier:
        text = clause.version.removesuffix(".*")
        try:
            written.append(Version(text))
        except InvalidVersion:
            continue
    high = {FIRST_CONFIG_RELEASE, Version("10000"), *(v for v in KNOWN_VERL_RELEASES if v >= FIRST_CONFIG_RELEASE)}
    for v in written:
        if v >= FIRST_CONFIG_RELEASE:
            high.add(v)
            high.add(Version(".".join(str(p) for p in (*v.release, 1))))
    if any(specifier.contains(v, prereleases=True) for v in high):
        return False
    low = {v for v in KNOWN_VERL_RELEASES if v < FIRST_CONFIG_RELEASE}
    for v in written:  # ``>0.8.0,<0.9`` allows 0.8.0.1 (a 0.8.1 published later)
        if v < FIRST_CONFIG_RELEASE:
            low.add(v)
            low.add(Version(".".join(str(p) for p in (*v.release, 1))))
    return any(specifier.contains(v, prereleases=True) for v in low)


def _old_specifier(text: str) -> bool:
    """``text`` (``"==0.8.0"``, ``">=0.7, <0.9"``) is a specifier set that is old."""
    text = re.sub(r"\s+", "", text).rstrip(".,")
    try:
        return excludes_config_releases(SpecifierSet(text))
    except InvalidSpecifier:
        return False


def _old_value(text: str) -> bool:
    """A key's value naming verl's version: a bare release (``0.8.0``, ``0.8.*``), a
    specifier set (``==0.8``, ``<0.9``) or a Poetry constraint (``^0.8``, ``~0.8.0``)."""
    text = text.strip().rstrip(".,")
    if not text:
        return False
    if text[0].isdigit():
        return _old_specifier("==" + text)
    if text[0] in "=<>!~" and not text.startswith("~") or text.startswith("~="):
        return _old_specifier(text)
    specifier = poetry_specifier(text)
    return specifier is not None and excludes_config_releases(specifier)


def _tag_release(ref: str) -> Version | None:
    """The release a git ref or archive name spells (``v0.8.0``, ``0.9``), else ``None``."""
    m = re.fullmatch(r"v?(\d+\.\d+(?:\.\d+)?)", ref)
    try:
        return Version(m.group(1)) if m else None
    except InvalidVersion:
        return None


def _unread_form(written: str) -> bool:
    """``written`` is a mention whose release cannot be read (a template, a wheel glob): in
    Python it counts only where it is installed."""
    return TEMPLATED_VERL.fullmatch(written) is not None or _DISTRIBUTION_GLOB.fullmatch(written) is not None


def _old_release(text: str) -> bool:
    try:
        return Version(text) < FIRST_CONFIG_RELEASE
    except InvalidVersion:
        return False


# -- the forms ------------------------------------------------------------------------------------

#: the name where a package name may start (not ``myverl``, ``my-verl``, ``x.verl``, ``/verl``)
_START = r"(?<![\w.\-/@])"
_OPERATOR = r"(?:===|==|~=|!=|<=|>=|<|>)"
_VERSION = r"[A-Za-z0-9_.*+!]+"
#: ``verl[extras] <specifier set>``
_REQUIREMENT = lazy_pattern(
    _START + r"(?P<name>verl)(?:\s*\[[^\]\n]*\])?[ \t]*"
    rf"(?P<spec>{_OPERATOR}[ \t]*{_VERSION}(?:[ \t]*,[ \t]*{_OPERATOR}[ \t]*{_VERSION})*)",
    re.IGNORECASE,
)
#: ``verl = "0.8.0"``, ``"verl": "^0.8"``, ``verl: ==0.8``, conda's ``verl=0.8.0``, Poetry's
#: ``verl@0.8.0``, ``"verl", "==0.8"`` (the name a string of its own, then its specifier) and
#: a TOML inline table ``verl = { version = "==0.8.0", ... }``
_KEY_VALUE = lazy_pattern(
    r"(?<![\w.\-/@])(?P<q>[\"']?)(?P<name>verl)(?P=q)[ \t]*"
    r"(?:(?P<sep>=(?!=)|:(?!:)|@)[ \t]*[\"']?(?P<value>[\^~]?[=<>!~]*[ \t]*[0-9][A-Za-z0-9_.*+!]*"
    r"(?:[ \t]*,[ \t]*[=<>!~]+[ \t]*[0-9][A-Za-z0-9_.*+!]*)*)"
    r"|,[ \t]*[\"'](?P<spec>[=<>!~]+[^\"'\n]*)[\"']"
    r"|=[ \t]*\{[^}\n]*\bversion[ \t]*=[ \t]*[\"'](?P<table>[^\"'\n]+)[\"'][^}\n]*\})",
    re.IGNORECASE,
)
#: ``verl-0.8.0-py3-none-any.whl``, ``verl-0.8.0.tar.gz``, ``verl-0.8.0-pyhd8ed1ab_0.conda``
_DISTRIBUTION = lazy_pattern(
    r"(?<![\w.\-])(?P<name>verl)-(?P<version>\d+(?:\.\d+)*(?:(?:a|b|rc|\.post|\.dev)\d+)*)"
    r"(?:-[\w.+]+)*\.(?:whl|tar\.gz|tar\.bz2|zip|conda)(?![\w.])",
    re.IGNORECASE,
)
#: ``.../verl.git@v0.8.0``, ``verl@v0.8.0``: a tag naming a release
_GIT_TAG = lazy_pattern(
    r"(?:/|(?<![\w.\-]))(?P<name>verl)(?:\.git)?@v?(?P<version>\d+(?:\.\d+){1,2})(?![\w.\-])",
    re.IGNORECASE,
)
#: ``verlai/verl:app-verl0.8-vllm0.10.2-...``, ``docker://verlai/verl:app-verl0.8...``,
#: ``docker:verlai/verl:...``: an image whose repository names verl and whose tag names the
#: release it holds (``verl0.8``, ``verl-0.8.0``, ``verlv0.8``), as the Dockerfile reader's
#: ``FROM`` (:data:`ppo_migrate.rules.install_pins._VERL_IMAGE`) reads it
_IMAGE = re.compile(
    r"(?<![\w.\-])(?P<image>[\w.\-/]*verl[\w.\-/]*:[\w.\-]*?verl-?v?(?P<version>\d+\.\d+(?:\.\d+)?)[\w.\-]*)",
    re.IGNORECASE,
)
#: ``.../verl/archive/<sha>.zip``, ``.../verl/archive/refs/tags/v0.8.0.tar.gz``, GitLab's ``/-/archive/``
_ARCHIVE = re.compile(
    r"/(?P<name>verl)(?:\.git)?/(?:-/)?archive/(?:refs/(?:tags|heads)/)?(?P<ref>[^\s\"'/?#]+?)"
    r"(?:\.tar\.gz|\.tgz|\.tar\.bz2|\.zip)?(?=[\s\"'/?#]|$)",
    re.IGNORECASE,
)
#: ``verl-*.whl``: a wheel or sdist of verl whose release a glob leaves open
_DISTRIBUTION_GLOB = re.compile(r"(?<![\w.\-])(?P<name>verl)-\*[\w.*+\-]*\.(?:whl|tar\.gz|zip)(?![\w.])", re.IGNORECASE)
#: trial 26f (REPORT.md B7, HPC ways of choosing a release): an environment module
#: ``verl/0.8.0`` (``module load``), spack's ``py-verl@0.8.0``, and a path component or file
#: name naming verl and its release: ``/shared/envs/verl-0.8.0/bin/activate``, ``conda activate
#: verl-0.8.0``, ``verl-0.8.0.sif``, ``verl_0.8.0.sqsh``, ``verl0.8``
_ENVIRONMENT = re.compile(
    r"(?:(?<![\w.\-/@])|(?<=/))(?P<whole>(?:py-)?(?P<name>verl)(?:[-_/]|@=?)?v?(?P<version>\d+\.\d+(?:\.\d+)?))"
    r"(?![\w\-]|\.\d)",
    re.IGNORECASE,
)
#: a lock entry's name line and version line
_ENTRY_NAME = lazy_pattern(r"^[ \t\-\[{,]*[\"']?name[\"']?[ \t]*[:=][ \t]*[\"']?(?P<name>[\w.\-]+)[\"']?[ \t,}\]]*$")
_ENTRY_VERSION = lazy_pattern(r"^[ \t\-\[{,]*[\"']?version[\"']?[ \t]*[:=][ \t]*[\"']?(?P<version>[0-9][\w.+!]*)[\"']?[ \t,}\]]*$")
#: how many lines after a lock entry's ``name`` its ``version`` may come
_ENTRY_LINES = 8
#: a comment's start in the text formats: ``#`` first on a line or after white space
#: What a Python file must hold before it is parsed for mentions: ``verl`` (perhaps
#: ``.git``, extras) then an operator, ``=``, ``:`` or ``@`` (``"verl==0.8.0"``,
#: ``f"verl=={v}"``, ``verl@v0.8.0``, ``"verl": "^0.8"``), a quote then ``,`` or ``:``
#: (``"verl", "==0.8"``), or ``-`` and a digit (``verl-0.8.0.zip``): a superset of the
#: forms above, each of which spells one; a plain import of verl does not.
_MAY_PIN = re.compile(
    r"verl(?:\.git)?(?:[\"']\s*[:,]|\s*(?:\[[^\]]*\]\s*)?[=<>~!@:]|-\d)", re.IGNORECASE
)
_COMMENT = lazy_pattern(r"(?:^|(?<=\s))#")


def _is_verl(name: str) -> bool:
    return name.lower() == "verl"


def text_mentions(text: str, kind: str = "text") -> list[tuple[int, str]]:
    """The mentions of an old verl in ``text``, by the module's forms.

    Args:
        text: a file's text.
        kind: ``"text"`` (``#`` comments are left out), ``"json"`` (no comments),
            ``"requirements"`` (only lines that are a whole PEP 508 requirement on verl, comments
            left out) or ``"plain"`` (a Python string's value: every line counts).

    Returns:
        ``(line, written)`` pairs (1-based line in ``text``), in text order, one per line and
        form place; ``[]`` when there is none.
    """
    if "verl" not in text.lower():
        return []
    lines = text.split("\n")
    if kind in ("text", "requirements"):
        kept = []
        for line in lines:
            m = _COMMENT.search(line)
            kept.append(line[: m.start()] if m else line)
        lines = kept
    if kind == "requirements":
        lines = [line if _whole_requirement(line) or _whole_template(line) else "" for line in lines]
    found: dict[tuple[int, int], str] = {}
    for number, line in enumerate(lines, 1):
        if "verl" not in line.lower():
            continue
        for m in _REQUIREMENT.finditer(line):
            if _old_specifier(m.group("spec")):
                found[(number, m.start())] = m.group(0).strip().rstrip(".,")
        for m in _KEY_VALUE.finditer(line):
            if (number, m.start()) in found or (number, m.start("name")) in found:
                continue
            value, spec, table = m.group("value"), m.group("spec"), m.group("table")
            if value is not None:
                old = _old_value(value)
            else:
                old = _old_specifier(spec) if spec is not None else _old_value(table)
            if old:
                end = m.end()
                if value is not None and m.group("q") == "" and end < len(line) and line[end] in "\"'":
                    end += 1  # ``verl = "0.8.0"``: the value's closing quote
                elif value is not None and m.group("q") and line[end : end + 1] == m.group("q"):
                    end += 1
                found[(number, m.start("name"))] = line[m.start() : end].strip().rstrip(".,")
        for pattern in (_DISTRIBUTION, _GIT_TAG):
            for m in pattern.finditer(line):
                if _old_release(m.group("version")) and (number, m.start("name")) not in found:
                    found[(number, m.start("name"))] = m.group(0).lstrip("/")
        for m in _IMAGE.finditer(line):  # trial 26e: an image of verl's own, by its tag
            if _old_release(m.group("version")):
                found.setdefault((number, m.start("image")), m.group("image").lstrip("/"))
        for m in _ARCHIVE.finditer(line):  # trial 26e: an archive of verl's repository at an old tag
            release = _tag_release(m.group("ref"))
            if release is not None and release < FIRST_CONFIG_RELEASE:
                found.setdefault((number, m.start("name")), m.group(0).lstrip("/"))
        for m in _DISTRIBUTION_GLOB.finditer(line):
            found.setdefault((number, m.start("name")), m.group(0))
        for m in _ENVIRONMENT.finditer(line) if kind != "plain" else ():
            # trial 26f: a module, a spack spec, an env's or image's name, in a job script;
            # not in a Python string (``wheels / "verl-0.8.0"``: a benchmark's checkout)
            if _old_release(m.group("version")) and not any(
                (number, at) in found for at in (m.start("name"), m.start("whole"))
            ):
                found[(number, m.start("name"))] = m.group("whole")
        for m in TEMPLATED_VERL.finditer(line):  # trial 26c: a release that cannot be read
            found.setdefault((number, m.start("name")), m.group(0).rstrip(".,\"'"))
    for number, written in _lock_entries(lines):
        found.setdefault((number, -1), written)
    return [(number, written) for (number, _), written in sorted(found.items())]


def notebook_mentions(text: str) -> list[tuple[int, str]]:
    """The mentions of an old verl in a Jupyter notebook's code cells (trial 26d).

    Args:
        text: the ``.ipynb`` file's text (nbformat's JSON).

    Returns:
        ``(line, written)`` pairs, the line counted in ``text`` (the first line from the
        cell's start that spells ``written``), in cell order. Each line of a code cell is
        searched as ``"text"`` (a ``#`` comment is left out); a ``%pip``/``%conda`` magic or
        a ``!`` shell line is searched as the command it runs. Markdown and raw cells (prose)
        and outputs (what ran once, not what installs) are left out. A notebook that is not
        JSON (the head of a larger one) is searched as JSON text.
    """
    try:
        data = json.loads(text)
    except ValueError:
        return text_mentions(text, "json")
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        return []
    raw = text.split("\n")
    cursor = 0

    def locate(line: str) -> int | None:
        """The first raw line from ``cursor`` on that holds ``line`` as JSON writes it."""
        nonlocal cursor
        if not line.strip():
            return None
        for fragment in dict.fromkeys((json.dumps(line, ensure_ascii=False)[1:-1], json.dumps(line)[1:-1])):
            for index in range(cursor, len(raw)):
                if fragment in raw[index]:
                    cursor = index
                    return index
        return None

    found: list[tuple[int, str]] = []
    for cell in cells:  # every cell's lines are located, so that the lines of a code cell are its own
        if not isinstance(cell, dict):
            continue
        source = cell.get("source")
        lines = [p for p in source if isinstance(p, str)] if isinstance(source, list) else (
            source.splitlines(keepends=True) if isinstance(source, str) else [])
        code = cell.get("cell_type") == "code"
        for line in lines:
            at = locate(line)
            if not code or "verl" not in line.lower():
                continue
            command = line.strip()
            if command.startswith(("%", "!")):  # ``%pip install ...``, ``!pip install ...``
                command = command.lstrip("%!")
            for _, written in text_mentions(command, "text"):
                found.append(((at if at is not None else cursor) + 1, written))
    return found


def _whole_requirement(line: str) -> bool:
    """``line`` (a comment already cut) is one PEP 508 requirement on verl."""
    from packaging.requirements import InvalidRequirement, Requirement

    stripped = line.strip()
    if not stripped or "verl" not in stripped.lower():
        return False
    try:
        return _is_verl(Requirement(stripped).name)
    except InvalidRequirement:
        return False


def _whole_template(line: str) -> bool:
    """``line`` (a comment already cut) is one verl requirement whose version is a template
    (``verl==${VERL_VERSION}``, ``verl[vllm]=={{ v }}; python_version >= "3.10"``)."""
    stripped = line.strip()
    m = templated_verl(stripped)
    return m is not None and m.start() == 0 and (m.end() == len(stripped) or stripped[m.end()] in " \t;")


def _lock_entries(lines: list[str]) -> list[tuple[int, str]]:
    """``(line of the name, "verl X (a lock entry)")`` of each lock entry on verl whose
    version, on one of the next :data:`_ENTRY_LINES` lines, is old."""
    found = []
    for index, line in enumerate(lines):
        m = _ENTRY_NAME.match(line)
        if m is None or not _is_verl(m.group("name")):
            continue
        for after in lines[index + 1 : index + 1 + _ENTRY_LINES]:
            if _ENTRY_NAME.match(after):
                break
            v = _ENTRY_VERSION.match(after)
            if v is not None:
                if _old_release(v.group("version")):
                    found.append((index + 1, f"{m.group('name')} {v.group('version')} (a lock entry)"))
                break
    return found


def python_mentions(tree: ast.Module) -> list[tuple[int, str]]:
    """The mentions of an old verl in a Python module's string literals.

    Args:
        tree: the module's :mod:`ast`.

    Returns:
        ``(line, written)`` pairs, in line order: each line of a string literal that is
        code (:func:`_code_line`: one token, a whole requirement, an install command)
        searched as ``"plain"`` text (:func:`text_mentions`; a multi-line string's mention at
        its own line), and the name and its version as two literals: ``["verl", "==0.8"]``
        (two elements of a list, tuple or call in a row), ``{"verl": "0.8.0"}``. Docstrings
        (a module's, a class's, a function's first statement), messages and other prose are
        left out (a tool's own help text names old pins); comments are not in the tree.
    """
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                docstrings.add(id(first.value))
    # a template version counts only where it is installed (trial 26c): an install command's
    # text, or an argument of a list or call holding "install"/"add" (``pip download
    # verl=={v}`` of a benchmark fetches wheels, it installs nothing)
    installing: set[int] = set()
    # the strings of a call or list that together spell an install command: a notebook's
    # ``get_ipython().run_line_magic('pip', 'install verl==0.8.0')`` (nbconvert's ``%pip``,
    # trial 26d), ``run(["pip", "install verl==0.8.0"])``: each is code, not prose
    commands: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple, ast.Call)):
            items = node.args if isinstance(node, ast.Call) else node.elts
            strings = [text for text in map(_string, items) if text is not None]
            if any(text in ("install", "add") for text in strings):
                installing.update(id(item) for item in items)
            if len(strings) > 1 and _INSTALLS.search(" ".join(strings)) is not None:
                commands.update(id(item) for item in items)
                installing.update(id(item) for item in items)
    found: dict[tuple[int, str], None] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            if "verl" in node.value.lower():
                spans_lines = (node.end_lineno or node.lineno) > node.lineno  # not ``"a\\nb"``
                for offset, line in enumerate(node.value.split("\n")):
                    if _code_line(line) or id(node) in commands:
                        for _, written in text_mentions(line, "plain"):
                            if _installed(written, line, id(node) in installing):
                                found[(node.lineno + (offset if spans_lines else 0), written)] = None
        elif isinstance(node, ast.JoinedStr):  # ``f"verl=={version}"``: a release that cannot be read
            text = "".join(
                v.value if isinstance(v, ast.Constant) and isinstance(v.value, str)
                else "{%s}" % (v.value.id if isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name) else "")
                for v in node.values
            )
            if "verl" in text.lower() and "\n" not in text and _code_line(text):
                for m in TEMPLATED_VERL.finditer(text):
                    if _installed(m.group(0), text, id(node) in installing):
                        found[(node.lineno, m.group(0))] = None
        if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Call)):
            items = node.args if isinstance(node, ast.Call) else node.elts
            for a, b in itertools.pairwise(items):
                name, spec = _string(a), _string(b)
                if name is not None and spec is not None and _is_verl(name.strip()) \
                        and spec.strip()[:1] in tuple("=<>!~") and _old_value(spec):
                    found[(a.lineno, f"{name!r}, {spec!r}")] = None
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                name, spec = _string(key), _string(value)
                if key is not None and name is not None and spec is not None and _is_verl(name.strip()) \
                        and _old_value(spec):
                    found[(key.lineno, f"{name!r}: {spec!r}")] = None
    return sorted(found)


#: a command that installs: ``pip install``, ``uv pip install``, ``uv add``, ``conda install``,
#: ``poetry add``, ``python -m pip install`` (the words in a row, options between allowed)
_INSTALLS = lazy_pattern(r"\b(?:pip[\d.]*|uv|conda|mamba|micromamba|poetry|pipx)\b.*?\b(?:install|add)\b")


def _installed(written: str, line: str, in_install: bool) -> bool:
    """A mention ``written`` found in a Python string's ``line`` counts: an old release
    always; a template version only in an install (the line is an install command, or the
    string an argument beside ``"install"``)."""
    return not _unread_form(written) or in_install or _INSTALLS.search(line) is not None


def _code_line(line: str) -> bool:
    """A line of a Python string that is code, not prose: one token (``"verl==0.8"``, a
    path, a URL), a whole PEP 508 requirement (a requirements file's text a script writes) or
    a command that installs (``c.run("pip install verl==0.8.0")``). A message or help text
    ("since verl==0.8.0 the call takes no config") is prose."""
    stripped = line.strip()
    return bool(stripped) and (
        not any(c.isspace() for c in stripped) or _whole_requirement(stripped) or _INSTALLS.search(stripped) is not None
    )


def _size(path: str) -> int:
    """``path``'s size in bytes (the run's file-system view); 0 when it cannot be stat-ed."""
    try:
        return current().fs.stat(path).st_size
    except (OSError, ValueError):
        return 0


def _string(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


# -- the repository's mentions, once a run ---------------------------------------------------------


def _archive_takes_config(path: str) -> bool:
    """Whether the zip archive ``path`` (a wheel, a ``.zip``) holds verl's runtime module
    whose ``get_ppo_ray_runtime_env`` has a ``config`` parameter: then its name names no
    release that would fail (``vendor/verl-0.8.0.zip`` holding a 0.9 copy is read as a copy
    where it is put on the path). ``False`` for anything else: an sdist, no such member, a
    zero-argument definition, an archive that cannot be read."""
    fs = current().fs
    if not path.endswith((".whl", ".zip")) or not fs.is_zip(path):
        return False
    try:
        members = fs.archive_members(path, "verl/trainer/", "constants_ppo.py", 4 * 1024 * 1024)
        tree = ast.parse(members["verl/trainer/constants_ppo.py"])
    except (OSError, ValueError, KeyError, SyntaxError, MemoryError, RecursionError):
        return False
    return any(
        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "get_ppo_ray_runtime_env"
        and any(a.arg == "config" for a in (*node.args.posonlyargs, *node.args.args))
        for node in tree.body
    )


def unread_mentions(root: str | os.PathLike[str], respect_gitignore: bool = True) -> tuple[Mention, ...]:
    """Every mention of an old verl in the repository at ``root``, in the files
    :func:`ppo_migrate.project.mentions.candidate_texts` hands on (the formats the pin
    readers do not read).

    Args:
        root: the repository root (as the copies' search takes it).
        respect_gitignore: as for :func:`ppo_migrate.project.tree.repository_listing`.

    Returns:
        The :class:`Mention` s in walk and line order; kept for the run (the snapshot's memo).
        Never raises: a Python file that does not parse is searched as plain text.
    """
    from ppo_migrate.project.mentions import candidate_texts, distribution_files

    root = os.path.abspath(os.fspath(root))
    memo = current().memo(__name__)
    key = (root, bool(respect_gitignore))
    cached = memo.get(key)
    if cached is not None:
        return cached
    found: list[Mention] = []
    for path, kind, text in candidate_texts(root, respect_gitignore):
        if kind == "python":
            if _MAY_PIN.search(text) is None:
                continue  # names verl (an import, a path) but spells no version of it: no parse
            if _size(path) > MAX_SOURCE_CHARS:
                # the analysis refuses to parse it too (PPO902); a 30 MB module's tree took
                # gigabytes: its text (the first megabyte the search reads) is searched instead
                pairs = text_mentions(text, "text")
                found.extend(Mention(path, line, written) for line, written in pairs)
                continue
            try:
                pairs = python_mentions(current().source(path).tree())
            except Exception:  # noqa: BLE001 - unreadable or no Python: its text is searched
                pairs = text_mentions(text, "text")
        elif kind == "notebook":
            pairs = notebook_mentions(text)
        else:
            pairs = text_mentions(text, kind)
        found.extend(Mention(path, line, written) for line, written in pairs)
    for path in distribution_files(root, respect_gitignore):  # a wheel kept in the tree
        if _archive_takes_config(path):
            continue  # what would run from it takes a config, whatever its name says
        found.extend(Mention(path, 1, written) for _, written in text_mentions(os.path.basename(path), "text"))
    result = memo[key] = tuple(found)
    return result
