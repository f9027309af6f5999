"""verl pins in the install commands a repository runs (issue 26, pins the tool did not read).

A project that declares ``verl>=0.9`` may still build its image or CI environment with
``RUN pip install 'verl==0.8.0'``; the call then runs against verl 0.8. These forms are read,
anywhere in the repository (:func:`ppo_migrate.project.tree.repository_listing`), in the files
:mod:`ppo_migrate.project.import_roots` reads for ``PYTHONPATH`` (Dockerfiles, Makefiles, shell
scripts) and in GitHub workflows (``.github/workflows/*.yml``, their ``run:`` steps):

* ``pip install``, ``pip3 install``, ``python -m pip install``, ``uv pip install``: every
  argument that is a PEP 508 requirement (parsed with :mod:`packaging`, an exact pin counts as
  a lock: it installs that release), ``-e``/a URL or path naming verl (a direct reference);
* ``-r``/``--requirement`` and ``-c``/``--constraint`` files of any name (``deps/gpu.txt``),
  read as requirements files; a path that does not exist as written (a container's
  ``/app/gpu.txt``, copied there by ``COPY deps/gpu.txt .``) is matched against the
  repository by its trailing components.

A Dockerfile's exec form (``RUN ["pip", "install", "verl==0.8.0"]``) is read as the command
it runs. A variable in an argument (``verl==${VERL_VERSION}``) takes the value the file itself
gives it before the command: a Dockerfile's ``ARG``/``ENV`` default, a script's or Makefile's
assignment (``VERL_VERSION=0.8.0``, ``export ...``, ``?=``, ``:=``), a ``${NAME:-default}``. An
argument naming verl whose variable has no such value is a declaration of a verl whose
release cannot be read (the build may pass any): the fix is then refused, never assumed.

Nothing is executed; a command that cannot be tokenised is split on white space.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

from ppo_migrate.analysis.requirements import (
    _Found,
    _from_reference,
    _from_requirement,
    _read_requirements,
)

__all__ = ["install_pins"]

#: ``scope -> the pins``, one reading per repository per run
_PINS: dict[str, tuple[_Found, ...]] = {}

_INSTALL = re.compile(
    r"(?:^|(?<=[\s;&|(`\"'\[]))(?:\S*/)?(?:(?:python[\d.]*|py)\s+-m\s+pip[\d.]*|pip[\d.]*|uv\s+pip)\s+install\b"
)
#: where one command ends: a new line, a separator, a comment
_END = re.compile(r"\n|&&|\|\||[;|]|\s#")
#: options of ``pip install`` (and ``uv pip install``) that take a value
_WITH_VALUE = frozenset(
    {
        "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "-t", "--target", "--prefix",
        "--root", "--python", "-p", "--platform", "--python-version", "--implementation", "--abi",
        "--src", "--upgrade-strategy", "--progress-bar", "--log", "--cache-dir", "--trusted-host",
        "--no-binary", "--only-binary", "--config-settings", "-C", "--global-option", "--index",
        "--default-index", "--extra-index", "--index-strategy", "--keyring-provider", "--resolution",
        "--prerelease", "--exclude-newer", "--group", "--extra", "--override", "--build-constraint",
        "-b", "--report", "--root-user-action", "--timeout", "--retries", "--proxy", "--cert",
        "--client-cert", "--exists-action", "--editable-mode", "--python-platform",
    }
)
_REQUIREMENT_OPTIONS = frozenset({"-r", "--requirement", "-c", "--constraint", "--constraints"})
_EDITABLE = frozenset({"-e", "--editable"})


def install_pins(scope: str | os.PathLike[str]) -> tuple[_Found, ...]:
    """Every verl declaration of an install command in the repository at ``scope``.

    Args:
        scope: the repository root.

    Returns:
        The declarations (path: the declaring file, or the requirements file a ``-r`` names;
        line: its line), in file order; kept for the process. Never raises.
    """
    from ppo_migrate.project.import_roots import _read, _reader
    from ppo_migrate.project.tree import repository_listing

    root = os.path.abspath(os.fspath(scope))
    cached = _PINS.get(root)
    if cached is not None:
        return cached
    found: list[_Found] = []
    try:
        listing = repository_listing(root)
    except Exception:  # noqa: BLE001 - an unreadable repository declares nothing
        _PINS[root] = ()
        return ()
    everything = [os.path.join(d, n) for d, names in listing.folders.items() for n in names]
    seen: set[Path] = set()
    for directory, names in listing.folders.items():
        workflows = directory.replace("\\", "/").endswith("/.github/workflows")
        for name in names:
            if not (_reader(name) in _SCRIPT_READERS() or (workflows and name.endswith((".yml", ".yaml")))):
                continue
            path = os.path.join(directory, name)
            data = _read(path)
            if data is None or b"install" not in data:
                continue
            text = data.decode("utf-8", "replace")
            found.extend(_commands(text, path, root, everything, seen))
    result = _PINS[root] = tuple(found)
    return result


def _SCRIPT_READERS() -> tuple[object, ...]:  # the readers of import_roots
    from ppo_migrate.project import import_roots

    return (import_roots._dockerfile, import_roots._makefile, import_roots._shell)


#: ``RUN ["pip", "install", ...]``: a Dockerfile instruction in exec form (a JSON array)
_EXEC_FORM = re.compile(r"^([ \t]*RUN[ \t]+)(\[.*\])[ \t]*$", re.MULTILINE | re.IGNORECASE)
#: an assignment a later command of the same file sees: ``ARG N=v``, ``ENV N=v``, ``ENV N v``,
#: ``export N=v``, ``N=v``, ``N ?= v``, ``N := v`` (a value quoted or a single word)
_ASSIGNMENT = re.compile(
    r"^[ \t]*(?:(?:ARG|ENV|export|declare(?:[ \t]+-x)?|readonly)[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)"
    r"[ \t]*[:?+]?=[ \t]*(\"[^\"\n]*\"|'[^'\n]*'|[^\s;&|#]+)?[ \t]*(?:#.*)?$"
    r"|^[ \t]*ENV[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+(\"[^\"\n]*\"|'[^'\n]*'|[^\s#]+)[ \t]*$",
    re.MULTILINE,
)
#: ``$N``, ``${N}``, ``${N:-default}``, ``${N-default}``, ``$(N)`` (make)
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}|\(([A-Za-z_][A-Za-z0-9_]*)\)|([A-Za-z_][A-Za-z0-9_]*))")


def _exec_form_as_shell(text: str) -> str:
    """``text`` with each ``RUN [...]`` exec-form instruction written as the shell command it
    runs (same line; a JSON array that cannot be read is left as it is)."""
    import json

    def one(m: re.Match[str]) -> str:
        try:
            words = json.loads(m.group(2))
        except ValueError:
            return m.group(0)
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            return m.group(0)
        return m.group(1) + shlex.join(words)

    return _EXEC_FORM.sub(one, text)


def _assignments(text: str, before: int) -> dict[str, str]:
    """The variables the file assigns before offset ``before`` (the last assignment wins)."""
    values: dict[str, str] = {}
    for m in _ASSIGNMENT.finditer(text, 0, before):
        name, value = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        if value is not None:
            values[name] = value.strip("\"'")
    return values


def _expanded(token: str, values: dict[str, str]) -> str | None:
    """``token`` with its variables replaced by their values, or None when one has none."""
    missing = False

    def one(m: re.Match[str]) -> str:
        nonlocal missing
        name = m.group(1) or m.group(3) or m.group(4)
        if name in values:
            return values[name]
        if m.group(2) is not None:
            return m.group(2)
        missing = True
        return ""

    out = _VARIABLE.sub(one, token)
    return None if missing or "`" in out else out


def _commands(text: str, path: str, root: str, everything: list[str], seen: set[Path]) -> Iterator[_Found]:
    text = _exec_form_as_shell(text)
    # a continuation (``\`` at the end of a line) joins the next line; offsets are kept
    joined = re.sub(r"\\\r?\n", lambda m: " " * len(m.group(0)), text)
    here = Path(path)
    for m in _INSTALL.finditer(joined):
        line = text.count("\n", 0, m.start()) + 1
        end = _END.search(joined, m.end())
        body = joined[m.end() : end.start() if end else len(joined)]
        try:
            tokens = shlex.split(body)
        except ValueError:
            tokens = [t.strip("\"'") for t in body.split()]
        i = 0
        while i < len(tokens):
            token = tokens[i]
            i += 1
            if token.startswith("-"):
                option, eq, value = token.partition("=")
                if not option.startswith("--") and len(option) > 2 and option[:2] in ("-r", "-c", "-e"):
                    option, value, eq = option[:2], token[2:], "="  # ``-rfile``
                if option not in _REQUIREMENT_OPTIONS and option not in _EDITABLE and option not in _WITH_VALUE:
                    continue  # a flag: --upgrade, -q, --no-deps ...
                if not eq:
                    if i >= len(tokens):
                        continue
                    value = tokens[i]
                    i += 1
                if option in _REQUIREMENT_OPTIONS:
                    for file in _requirement_files(value, path, root, everything):
                        yield from _read_requirements(Path(file), seen)
                elif option in _EDITABLE:
                    found = _from_reference(value, here, line, f"-e {value}")
                    if found is not None:
                        yield found
                continue
            if "$" in token or "`" in token:
                expanded = _expanded(token, _assignments(text, m.start()))
                if expanded is None:
                    if _names_verl(token):  # a verl the build chooses: its release cannot be read
                        yield _Found(None, here, line, token, "direct-reference", True)
                    continue
                token = expanded
            found = _from_requirement(token, here, line, lock_pins=True)
            if found is None:
                found = _from_reference(token, here, line, token)
            if found is not None:
                yield found


def _names_verl(token: str) -> bool:
    """Whether an install argument with an unread variable names verl (``verl==$V``,
    ``verl[vllm]${SPEC}``, ``git+https://.../verl@${REF}``)."""
    head = re.split(r"[=<>!~\[;@ $]", token.strip("\"'"), maxsplit=1)[0]
    return head.lower() == "verl" or bool(re.search(r"[/@]verl(?:\.git)?(?:[@#/]|$)", token, re.IGNORECASE))


def _requirement_files(value: str, path: str, root: str, everything: list[str]) -> list[str]:
    """The repository's files a ``-r value`` of the command in ``path`` may read: ``value``
    against the file's folder and the root, else any file whose trailing components are it."""
    if not value or "$" in value:
        return []
    value = value.replace("\\", "/")
    if not os.path.isabs(value):
        for base in (os.path.dirname(path), root):
            candidate = os.path.normpath(os.path.join(base, value))
            if os.path.isfile(candidate):
                return [candidate]
    tail = "/" + value.lstrip("/").removeprefix("./").lstrip("/")
    if tail == "/":
        return []
    return [f for f in everything if f.replace("\\", "/").endswith(tail)]
