"""Folders a repository's own files put on ``sys.path`` (issue 26, declared import roots).

A copy of verl without a packaging file of its own is imported when something puts its
folder first on the path. Besides the launch scripts of the calling file's folders
(:func:`ppo_migrate.rules.signatures.install_levels`), these forms anywhere in the
repository (:func:`ppo_migrate.project.tree.repository_listing`) declare such a folder:

* **pytest's** ``pythonpath`` ini option: ``[tool.pytest.ini_options]`` (and pytest 9's
  ``[tool.pytest]``) of ``pyproject.toml``, ``[pytest]`` of ``pytest.ini``/``.pytest.ini``,
  ``pytest.toml``/``.pytest.toml`` and ``tox.ini``, ``[tool:pytest]`` of ``setup.cfg``; its
  paths are relative to the ini file's folder (pytest's rootdir);
* ``sys.path.insert(i, P)``, ``sys.path.append(P)``, ``sys.path.extend([...])``,
  ``sys.path[:0] = [...]``, ``sys.path += [...]`` and ``site.addsitedir(P)`` in a Python
  file, where ``P`` is a literal or is built from literals, ``__file__``, ``os.getcwd()``,
  ``os.pardir``/``os.curdir``/``os.sep``, ``os.path.join/dirname/abspath/realpath/normpath``,
  ``pathlib.Path`` (``/``, ``.parent``, ``.parents[n]``, ``.resolve()``, ``.joinpath()``,
  ``.with_name()``), ``str()``/``os.fspath()``, f-strings, ``'%s/x' % a``,
  ``os.environ.get(NAME, default)`` and names the file assigns once to such an expression
  (:class:`ppo_migrate.project.path_expr.PathEvaluator`); ``sys.path[0:0] = ...`` and
  ``sys.path = [...] + sys.path`` too; a glob (``glob.glob(P)``, ``glob.iglob``,
  ``X.glob(P)``/``X.rglob(P)``, in ``sorted()``/``list()``/``map(str, ...)``, a
  comprehension, a ``for`` loop) is expanded against the repository's files, each match a
  root (trial 26j, B3); one the tool cannot evaluate whose last component may name verl
  (``*.egg``), or naming verl and matching nothing here, is a copy not read
  (:func:`names_verl_glob`);
* ``PYTHONPATH=...`` (and ``ENV PYTHONPATH /x``) in a Dockerfile (``Dockerfile``,
  ``Dockerfile.*``, ``*.Dockerfile``, ``Containerfile``), a Makefile (``Makefile``,
  ``GNUmakefile``, ``*.mk``; ``:=``, ``?=``, ``+=``; ``$(CURDIR)``, ``$(PWD)``,
  ``$(shell pwd)`` read as the Makefile's folder) or a shell script (``*.sh``; ``$PWD``,
  ``$(pwd)`` read as the repository root and as the script's folder);
* each path line of a ``.pth`` file;
* each entry of a Bazel rule's ``imports`` (``py_library(name = "verl", srcs = [...],
  imports = ["."])``, ``py_binary``, ``py_test`` and any other rule or macro whose name
  holds ``py``) in a ``BUILD``/``BUILD.bazel`` file, relative to that file's folder (the
  Bazel package: rules_python's ``imports`` attribute, "List of import directories to be
  added to the PYTHONPATH", relative to the package); the file is parsed with :mod:`ast`
  (Starlark is a subset of Python's syntax) and never evaluated: only a literal list of
  strings counts;
* ``monkeypatch.syspath_prepend(P)`` (a conftest fixture), a ``for`` loop over a literal
  tuple or list whose variable feeds ``sys.path.insert``/``append``, and a ``PYTHONPATH`` a
  Python file hands a child process (``env["PYTHONPATH"] = ...``,
  ``os.environ["PYTHONPATH"] = ...``, ``{"PYTHONPATH": ...}``; ``os.pathsep.join([...])``);
* tox's ``setenv``/``set_env`` ``PYTHONPATH`` (``tox.ini``, ``tox.toml``; ``{toxinidir}``),
  ``PYTHONPATH=`` in a ``.env`` file or direnv's ``.envrc`` (``$PWD``), a YAML
  ``PYTHONPATH:`` (a workflow's or job's ``env:``; ``${{ github.workspace }}``) or
  Kubernetes ``- name: PYTHONPATH`` / ``value:`` pair, and a dev container's
  ``"PYTHONPATH"`` (``devcontainer.json``; ``${containerWorkspaceFolder}``; trial 26d).

An archive on the path (a ``.zip``, ``.whl`` or ``.egg`` file, and any other file: Python's
import system reads every file on ``sys.path`` as a zip archive whatever its extension) is a
root too: its copy is read from inside it. A folder a declaration names is read even where the walk does not go (git-ignored, a
``build/`` folder).

A relative path is read against the repository root (scripts run from there) and against
the declaring file's folder; an absolute path that does not exist here (a container's
``/workspace/third_party/verl``) is matched against the repository by its trailing
components (``third_party/verl``); a shell's ``${NAME:-word}`` is ``word`` and its
``${NAME:+word}`` is dropped (``"$PWD/x${PYTHONPATH:+:$PYTHONPATH}"`` is ``$PWD/x``; trial
26d). Parts that expand another variable (``$PYTHONPATH``) are
dropped; ``$(dirname "$PWD")`` is the working directory's parent and ``$(realpath X)`` is
``X``. Only folders that exist count: an entry naming verl that cannot be evaluated
(``$HOME/src/verl``, ``os.environ["VERL_HOME"]``) or names a folder absent here
(``/opt/verl``) is a copy that cannot be read (:func:`unread_roots`; trial 26e, B).
Nothing is imported or executed; files are read
as text and Python files parsed with :mod:`ast` only when their bytes name ``sys.path`` or
``addsitedir``.
"""

from __future__ import annotations

import ast
import os
import re
import warnings
from typing import NamedTuple

from ppo_migrate.files import decode_text, utf8_text
from ppo_migrate.patterns import lazy_pattern
from ppo_migrate.project.path_expr import PathEvaluator
from ppo_migrate.project.snapshot import current


class DeclaredRoot(NamedTuple):
    """A folder a file of the repository puts on ``sys.path``.

    Attributes:
        path: the folder (absolute, normalised).
        source: the declaring file (absolute).
        line: 1-based line of the declaration.
        form: how, for messages: ``"pytest's pythonpath"``, ``"sys.path.insert"``,
            ``"a Dockerfile's PYTHONPATH"``, ``"a .pth file"``, ``"a Makefile's PYTHONPATH"``,
            ``"a shell script's PYTHONPATH"``, ``"monkeypatch.syspath_prepend"``,
            ``"an environment's PYTHONPATH"``, ``"tox's setenv PYTHONPATH"``,
            ``"a .env file's PYTHONPATH"``, ``"direnv's .envrc PYTHONPATH"``,
            ``"a workflow's PYTHONPATH"``, ``"a YAML file's PYTHONPATH"``,
            ``"a dev container's PYTHONPATH"``, ``"a Bazel rule's imports"``.
    """

    path: str
    source: str
    line: int
    form: str


class OpaqueRoot(NamedTuple):
    """A statement of a Python file that puts a folder on ``sys.path`` by a value the tool
    cannot evaluate (:func:`opaque_roots`).

    Attributes:
        source: the file (absolute).
        line: 1-based line of the statement.
        form: how, as :attr:`DeclaredRoot.form` (``"sys.path.insert"`` ...).
    """

    source: str
    line: int
    form: str


class UnreadRoot(NamedTuple):
    """A declaration putting on ``sys.path`` a folder that names verl (its last component:
    ``verl``, ``verl-fork``, ``$VERL_HOME``) which cannot be read here: spelled with what the
    tool cannot evaluate (``$HOME/src/verl``, ``os.environ["VERL_HOME"]``, a command
    substitution), or evaluated to a folder absent on this machine (``/opt/verl``, present
    in the image; ``cd .. && PYTHONPATH=verl python proj/train.py``): a copy of verl the tool
    cannot read (trial 26e, B), as a submodule not checked out is.

    Attributes:
        source: the declaring file (absolute).
        line: 1-based line of the declaration.
        form: how, as :attr:`DeclaredRoot.form`.
        written: the entry as written (``$HOME/src/verl``), or as evaluated
            (``/opt/verl``) when it was.
    """

    source: str
    line: int
    form: str
    written: str


class Unevaluated(str):
    """The text of a path entry the tool cannot evaluate (``$HOME/src/verl``,
    ``os.environ["VERL_HOME"]``), as a reader yields it instead of a path."""


#: a component that names verl: ``verl``, ``verl-fork``, ``my_verl``, ``VERL_HOME``, ``verl)``
#: (not ``overlay``, ``verlet``)
_NAMES_VERL = re.compile(r"(?i)(?<![a-z0-9])verl(?![a-z0-9])")


#: a file's suffix ending a path (``verl.bundle``, ``verl.zip``), not a release (``verl-0.8``)
_FILE_SUFFIX = re.compile(r"\.[A-Za-z][A-Za-z0-9]*/?$")


def names_verl_folder(entry: str) -> bool:
    """Whether a path entry's last component names verl (:data:`_NAMES_VERL`):
    ``../verl``, ``$HOME/src/verl/``, ``/opt/verl-0.8``, ``${VERL_HOME}``,
    ``os.environ["VERL_HOME"]``; not ``/opt/overlay`` nor ``src``.

    Args:
        entry: the entry as written or evaluated.
    """
    tail = entry.replace("\\", "/").rstrip("/ \t\"')").rsplit("/", 1)[-1]
    return _NAMES_VERL.search(tail) is not None


#: ``(root, respect_gitignore) -> the declared roots``, one reading per repository per run
_DECLARED: dict[tuple[str, bool], tuple[DeclaredRoot, ...]] = {}
#: ``(root, respect_gitignore) -> the statements whose folder cannot be evaluated``
_OPAQUE: dict[tuple[str, bool], tuple[OpaqueRoot, ...]] = {}
#: ``(root, respect_gitignore) -> the copies of verl put on the path that cannot be read``
_UNREAD: dict[tuple[str, bool], tuple[UnreadRoot, ...]] = {}
#: How much of one file is read at most.
_MAX_BYTES = 1_000_000
#: The snapshot's memo (:meth:`ppo_migrate.project.snapshot.Snapshot.memo`) of ``path ->
#: whether the bytes :func:`declared_roots` read name verl`` (:func:`names_verl`): the
#: search for mentions of an old verl (:mod:`ppo_migrate.project.mentions`) reads again only
#: the files that do.
HOLDS_VERL = "import_roots.holds_verl"
#: The bytes a name is made of (what may not come right before ``verl``).
_IDENTIFIER = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def names_verl(data: bytes) -> bool:
    """Whether ``data`` holds the name ``verl`` where a name may start: not after a letter,
    digit or ``_`` (``overload``, ``overlap``, ``myverl`` hold the letters, not the name;
    Python modules name ``overload`` often). A fast byte search, before any decoding or
    parsing; the name as pip's locks, install commands and requirements write it, in lower
    case (``VERL==0.8.0`` is not looked for: a full case-folded copy of every file cost a
    third more)."""
    at = data.find(b"verl")
    while at >= 0:
        if at == 0 or data[at - 1] not in _IDENTIFIER:
            return True
        at = data.find(b"verl", at + 4)
    return False


def declared_roots(root: str | os.PathLike[str], respect_gitignore: bool = True) -> tuple[DeclaredRoot, ...]:
    """Every folder a file under ``root`` puts on ``sys.path`` by a form of the module's list.

    Args:
        root: the repository root (:func:`ppo_migrate.project.root.search_bound`).
        respect_gitignore: passed to :func:`ppo_migrate.project.tree.repository_listing`.

    Returns:
        The :class:`DeclaredRoot` s in file and line order, each folder once per declaring
        line; kept for the process. Never raises: unreadable or unparsable files declare nothing.
    """
    from ppo_migrate.project.tree import repository_listing

    root = os.path.abspath(os.fspath(root))
    key = (root, bool(respect_gitignore))
    cached = _DECLARED.get(key)
    if cached is not None:
        return cached
    listing = repository_listing(root, respect_gitignore)
    found: list[DeclaredRoot] = []
    opaque: list[OpaqueRoot] = []
    unread: list[UnreadRoot] = []
    holds_verl = current().memo(HOLDS_VERL)
    for directory, names in listing.folders.items():
        for name in names:
            reader = _reader(name)
            if reader is None:
                continue
            path = os.path.join(directory, name)
            data = _read(path)
            if data is not None:  # the search for mentions of verl reads no file twice
                data = utf8_text(data)  # UTF-16/32 text by its byte-order mark (trial 26d)
                holds_verl[path] = names_verl(data)
            # a Python file is parsed only when its bytes name what puts a folder on the path
            if data is None or (reader is _python and not any(w in data for w in _PYTHON_WORDS)):
                continue
            text = decode_text(data, "replace")
            lines = None
            for value, line, form, bases in reader(text, path, root):
                if isinstance(value, Unevaluated):  # a folder the tool cannot evaluate
                    if reader is _python:  # any stray copy may be the one it puts first
                        opaque.append(OpaqueRoot(path, line, form))
                    if names_verl_folder(value) or names_verl_glob(value):  # trial 26e (B), 26j (B3)
                        unread.append(UnreadRoot(path, line, form, str(value)))
                    continue
                folders = _folders(value, bases, root)
                if not folders and not _FILE_SUFFIX.search(value):
                    # absent here (``/opt/verl``); a file's name (``vendor/verl.bundle``) is
                    # an archive Python's import system skips when it is missing. Named for
                    # verl by a component of the path or by the declaring line (trial 26f:
                    # ``VERL_DIR = "/opt/lab/rlcore"; sys.path.insert(0, VERL_DIR)``, the
                    # lab's fork of verl baked into the image)
                    if lines is None:
                        lines = text.splitlines()
                    spelled = lines[line - 1] if 0 < line <= len(lines) else ""
                    if _NAMES_VERL.search(value) or _NAMES_VERL.search(spelled):
                        unread.append(UnreadRoot(path, line, form, value))
                for folder in folders:
                    found.append(DeclaredRoot(folder, path, line, form))
    result = _DECLARED[key] = tuple(dict.fromkeys(found))
    _OPAQUE[key] = tuple(dict.fromkeys(opaque))
    # one per line: ``$PWD/verl`` is tried from the root and from the script's folder
    _UNREAD[key] = tuple({(u.source, u.line): u for u in unread}.values())
    return result


def opaque_roots(root: str | os.PathLike[str], respect_gitignore: bool = True) -> tuple[OpaqueRoot, ...]:
    """The statements of Python files under ``root`` that put a folder on ``sys.path`` (or
    on a child's ``PYTHONPATH``) by a value the tool cannot evaluate: a helper's parameter
    (``def _add(p): sys.path.insert(0, p)``), paths read from a file (``for p in
    json.load(...)``), a call it does not know. Any copy of verl in the repository may be
    the one they put first (trial 26b, :meth:`ppo_migrate.rules.signatures.SignatureResolver._repository_copies`).

    Args:
        root: the repository root, as for :func:`declared_roots`.
        respect_gitignore: as for :func:`declared_roots`.

    Returns:
        :class:`OpaqueRoot` s in file and line order (one reading with
        :func:`declared_roots`, kept for the process). A value that reads the
        ``PYTHONPATH`` already set or ``sys.path`` itself is not one. Never raises.
    """
    root = os.path.abspath(os.fspath(root))
    key = (root, bool(respect_gitignore))
    if key not in _DECLARED or key not in _OPAQUE:  # all made by one reading
        _DECLARED.pop(key, None)
        declared_roots(root, respect_gitignore)
    return _OPAQUE.get(key, ())


def unread_roots(root: str | os.PathLike[str], respect_gitignore: bool = True) -> tuple[UnreadRoot, ...]:
    """The declarations under ``root`` that put on ``sys.path`` a folder naming verl that
    cannot be read here (:class:`UnreadRoot`; trial 26e, B): ``export
    PYTHONPATH=$HOME/src/verl``, ``sys.path.insert(0, os.environ["VERL_HOME"])``,
    ``sys.path.insert(0, "/opt/verl")`` on a machine without ``/opt/verl``, ``cd .. &&
    PYTHONPATH=verl python proj/train.py``. A copy of verl may be there when the project
    runs, whose release the tool cannot read: :meth:`ppo_migrate.rules.signatures.SignatureResolver._repository_copies`
    makes the call a PPO005 notice naming the line, as for a submodule not checked out.

    Args:
        root: the repository root, as for :func:`declared_roots`.
        respect_gitignore: as for :func:`declared_roots`.

    Returns:
        :class:`UnreadRoot` s in file and line order, one per declaring line (one reading
        with :func:`declared_roots`, kept for the process). Never raises.
    """
    root = os.path.abspath(os.fspath(root))
    key = (root, bool(respect_gitignore))
    if key not in _DECLARED or key not in _UNREAD:  # all made by one reading
        _DECLARED.pop(key, None)
        declared_roots(root, respect_gitignore)
    return _UNREAD.get(key, ())


def _read(path: str) -> bytes | None:
    """The first :data:`_MAX_BYTES` of a regular file, its bytes read once a run (the run's
    snapshot, :meth:`ppo_migrate.project.snapshot.Snapshot.read_bytes`: the files analysed
    are the files searched here); ``None`` for anything else (never opened: a FIFO that
    replaced a listed file must not hang the run). A larger file the snapshot does not hold
    is read here, its head only."""
    import stat

    snapshot = current()
    if not snapshot.holds(path):
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        if st.st_size > _MAX_BYTES:
            return _head(path)
    try:
        return snapshot.read_bytes(path)[:_MAX_BYTES]
    except (OSError, ValueError):
        return None


def _head(path: str) -> bytes | None:
    """The first :data:`_MAX_BYTES` of a regular file (opened without blocking)."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, left = [], _MAX_BYTES
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


#: what a Python file's bytes name when it may put a folder on the path
_PYTHON_WORDS = (b"sys.path", b"addsitedir", b"syspath_prepend", b"PYTHONPATH")
_PYTEST_FILES = frozenset({"pyproject.toml", "pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "tox.ini", "setup.cfg"})


def _reader(name: str):
    """The reader of a file named ``name``, or ``None`` when it declares nothing."""
    if name.endswith(".py"):
        return _python
    if name in ("tox.ini", "tox.toml"):
        return _tox
    if name in _PYTEST_FILES:
        return _pytest
    if name in (".env", ".envrc") or name.startswith(".env."):
        return _dotenv
    if name.endswith((".yml", ".yaml")):
        return _yaml
    if name in ("devcontainer.json", ".devcontainer.json"):
        return _devcontainer
    if name in ("Dockerfile", "Containerfile") or name.startswith("Dockerfile.") or name.endswith((".Dockerfile", ".dockerfile")):
        return _dockerfile
    if name in ("Makefile", "makefile", "GNUmakefile") or name.endswith(".mk"):
        return _makefile
    if name.endswith(".sh"):
        return _shell
    if name.endswith(".pth"):
        return _pth
    if name in _BAZEL_FILES:
        return _bazel
    return None


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


# -- pytest's ``pythonpath`` ------------------------------------------------------------------

_INI_SECTIONS = {"pytest.ini": "pytest", ".pytest.ini": "pytest", "tox.ini": "pytest", "setup.cfg": "tool:pytest"}


def _pytest(text: str, path: str, root: str):
    name = os.path.basename(path)
    here = os.path.dirname(path)
    if name in _INI_SECTIONS:
        section = _INI_SECTIONS[name]
        header = re.search(rf"(?mi)^\s*\[{re.escape(section)}\]\s*$", text)
        if header is None:
            return
        body_end = re.compile(r"(?m)^\s*\[").search(text, header.end())
        body = text[header.end(): body_end.start() if body_end else len(text)]
        m = re.search(r"(?m)^pythonpath\s*[=:](.*(?:\n[ \t]+\S.*)*)", body)
        if m is None:
            return
        line = _line(text, header.end() + m.start())
        for value in m.group(1).split():
            yield value, line, "pytest's pythonpath", (here,)
        return
    import tomllib

    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return
    tables = []
    if name == "pyproject.toml":
        tool = data.get("tool", {})
        pytest = tool.get("pytest", {}) if isinstance(tool, dict) else {}
        if isinstance(pytest, dict):
            tables = [pytest.get("ini_options", {}), pytest]
    else:
        tables = [data.get("pytest", {})]
    for table in tables:
        value = table.get("pythonpath") if isinstance(table, dict) else None
        if value is None:
            continue
        values = value.split() if isinstance(value, str) else [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
        m = re.search(r"(?m)^\s*pythonpath\s*=", text)
        line = _line(text, m.start()) if m else 1
        for v in values:
            yield v, line, "pytest's pythonpath", (here,)


# -- PYTHONPATH in Dockerfiles, Makefiles and shell scripts ------------------------------------

_PYTHONPATH = lazy_pattern(r"PYTHONPATH\s*[:?+!]?=\s*(\"[^\"]*\"|'[^']*'|\S+)")
_DOCKER_ENV = lazy_pattern(r"(?mi)^\s*ENV\s+PYTHONPATH\s+(\"[^\"]*\"|'[^']*'|\S+)\s*$")
_SHELL_CWD = lazy_pattern(r"\$\{?PWD\}?|\$\(\s*pwd\s*\)|`pwd`")
_MAKE_CWD = lazy_pattern(r"\$[({]\s*(?:CURDIR|PWD|shell\s+pwd)\s*[)}]|\$\$\{?PWD\}?|\$\$\(\s*pwd\s*\)")
_HERE = "\x00here\x00"


#: a shell's ``${NAME:-word}`` (``word`` when ``NAME`` is unset) and ``${NAME:+word}``
#: (``word`` when it is set: the idiom ``"$PWD/x${PYTHONPATH:+:$PYTHONPATH}"`` adds the
#: inherited path, a part that expands a variable, never read)
_SHELL_DEFAULT = lazy_pattern(r"\$\{[A-Za-z_]\w*:?-([^}$]*)\}")
_SHELL_ALTERNATE = lazy_pattern(r"\$\{[A-Za-z_]\w*:?\+[^}]*\}")


#: ``$(realpath X)``, ``$(readlink -f X)``: the folder ``X`` (trial 26e, B)
_SHELL_REALPATH = re.compile(r"\$\(\s*(?:realpath|readlink\s+-[fem])\s+[\"']?([^\"'$()\s]+)[\"']?\s*\)")
#: ``$(dirname "$PWD")``, ``$(dirname $(pwd))``: the working directory's parent
_SHELL_PARENT = re.compile(r"\$\(\s*dirname\s+\"?(?:\$\{?PWD\}?|\$\(\s*pwd\s*\))\"?\s*\)")


def _shell_word(text: str, start: int) -> str:
    """The shell word starting at ``start``, its quotes removed (a command substitution's
    text kept as written, quotes and blanks included): ``"$(dirname "$PWD")/verl:$X"`` is
    ``$(dirname "$PWD")/verl:$X``, ``$(realpath ../verl) python`` is ``$(realpath ../verl)``."""
    out: list[str] = []
    depth, quote, i = 0, "", start
    while i < len(text):
        c = text[i]
        if quote == "'":
            if c == "'":
                quote = ""
            else:
                out.append(c)
        elif c == "\\" and i + 1 < len(text):
            out.append(text[i + 1])
            i += 2
            continue
        elif text.startswith("$(", i):
            depth += 1
            out.append("$(")
            i += 2
            continue
        elif c == ")" and depth:
            depth -= 1
            out.append(c)
        elif c == '"' and not depth:
            quote = "" if quote == '"' else '"'
        elif c == "'" and not quote and not depth:
            quote = "'"
        elif not quote and not depth and (c.isspace() or c in ";&|<>"):
            break
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _path_list(text: str, path: str, root: str, pattern: re.Pattern[str], form: str, cwd: re.Pattern[str] | None, bases):
    """The entries of each ``PYTHONPATH`` value ``pattern`` matches, with the folders to read
    them from: ``(entry, line, form, bases)``; an entry naming verl that the tool cannot
    evaluate (``$HOME/src/verl``) as an :class:`Unevaluated` (trial 26e, B)."""
    for m in pattern.finditer(text):
        line = _line(text, m.start())
        raw = m.group(1)
        if pattern is _PYTHONPATH and (raw.startswith('"') or "$(" in raw or "`" in raw):
            raw = _shell_word(text, m.start(1))  # ``"$(dirname "$PWD")/verl"``: one word
        value = _SHELL_ALTERNATE.sub("", _SHELL_DEFAULT.sub(r"\1", raw.strip("\"'")))
        value = _SHELL_REALPATH.sub(r"\1", value)
        for part in value.split(":"):
            part = part.strip()
            if cwd is not None:
                part = cwd.sub(_HERE, _SHELL_PARENT.sub(_HERE + "/..", part))
            if not part or "$" in part or "`" in part:
                if part and names_verl_folder(part):  # ``$HOME/src/verl``: a copy not read
                    yield Unevaluated(part.replace(_HERE, "$PWD")), line, form, bases
                continue
            if part.startswith(_HERE):  # ``$PWD/verl``: from each base
                rest = part[len(_HERE):].lstrip("/")
                for base in bases:
                    yield os.path.join(base, rest), line, form, (base,)
                continue
            yield part, line, form, bases


def _dockerfile(text: str, path: str, root: str):
    bases = (root, os.path.dirname(path))
    yield from _path_list(text, path, root, _PYTHONPATH, "a Dockerfile's PYTHONPATH", None, bases)
    yield from _path_list(text, path, root, _DOCKER_ENV, "a Dockerfile's PYTHONPATH", None, bases)


def _makefile(text: str, path: str, root: str):
    here = os.path.dirname(path)
    yield from _path_list(text, path, root, _PYTHONPATH, "a Makefile's PYTHONPATH", _MAKE_CWD, (here, root))


def _shell(text: str, path: str, root: str):
    bases = (root, os.path.dirname(path))
    yield from _path_list(text, path, root, _PYTHONPATH, "a shell script's PYTHONPATH", _SHELL_CWD, bases)


_TOX_DIR = lazy_pattern(r"\{toxinidir\}|\{tox_root\}")
_WORKSPACE = lazy_pattern(r"\$\{\{\s*github\.workspace\s*\}\}|\$\{?(?:GITHUB_WORKSPACE|CI_PROJECT_DIR|PWD)\}?")
#: ``PYTHONPATH: value`` (a YAML mapping: a workflow's or a job's ``env:``)
_YAML_PYTHONPATH = lazy_pattern(r"(?m)^[ \t-]*[\"']?PYTHONPATH[\"']?[ \t]*:[ \t]+(\"[^\"]*\"|'[^']*'|[^\s#]+)")


def _tox(text: str, path: str, root: str):
    """tox's ``setenv``/``set_env`` ``PYTHONPATH = ...`` (``{toxinidir}`` is the ini's
    folder), and the ``[pytest]`` section's ``pythonpath`` of ``tox.ini``."""
    here = os.path.dirname(path)
    if os.path.basename(path) == "tox.ini":
        yield from _pytest(text, path, root)
    yield from _path_list(text, path, root, _PYTHONPATH, "tox's setenv PYTHONPATH", _TOX_DIR, (here,))


def _dotenv(text: str, path: str, root: str):
    """``PYTHONPATH=...`` in a ``.env`` file (``set -a; . ./.env``, docker compose, IDEs)
    or direnv's ``.envrc`` (``export PYTHONPATH=$PWD/...``): relative to its folder."""
    here = os.path.dirname(path)
    form = "direnv's .envrc PYTHONPATH" if os.path.basename(path) == ".envrc" else "a .env file's PYTHONPATH"
    yield from _path_list(text, path, root, _PYTHONPATH, form, _SHELL_CWD, (here, root))


def _yaml(text: str, path: str, root: str):
    """``PYTHONPATH: ...`` of a YAML ``env:`` mapping (a GitHub workflow, GitLab CI, a
    compose file) and ``PYTHONPATH=...`` in its ``run:`` steps or lists; read only when the
    file names ``PYTHONPATH``. ``${{ github.workspace }}`` is the repository root."""
    if "PYTHONPATH" not in text:
        return
    form = "a workflow's PYTHONPATH" if f"{os.sep}.github{os.sep}" in path else "a YAML file's PYTHONPATH"
    bases = (root, os.path.dirname(path))
    yield from _path_list(text, path, root, _YAML_PYTHONPATH, form, _WORKSPACE, bases)
    yield from _path_list(text, path, root, _PYTHONPATH, form, _WORKSPACE, bases)
    yield from _k8s(text, path, root, form, bases)  # trial 26d: ``- name: PYTHONPATH`` / ``value:``


#: ``- name: PYTHONPATH`` then ``value: ...`` (a Kubernetes container's ``env:`` list: a
#: KubeRay ``RayJob``, a ``Job``, a Helm chart's rendered manifest)
_K8S_PYTHONPATH = lazy_pattern(
    r"(?m)^[ \t-]*name:[ \t]*[\"']?PYTHONPATH[\"']?[ \t]*\r?\n[ \t]*value:[ \t]*(\"[^\"]*\"|'[^']*'|[^\s#]+)"
)


def _k8s(text: str, path: str, root: str, form: str, bases):
    yield from _path_list(text, path, root, _K8S_PYTHONPATH, form, _WORKSPACE, bases)


#: ``"PYTHONPATH": "..."`` in a dev container's ``containerEnv``/``remoteEnv``
_JSON_PYTHONPATH = lazy_pattern(r"\"PYTHONPATH\"\s*:\s*(\"[^\"]*\")")
#: the repository's folder inside the dev container
_CONTAINER_DIR = lazy_pattern(r"\$\{(?:containerWorkspaceFolder|localWorkspaceFolder)\}")


def _devcontainer(text: str, path: str, root: str):
    """``"PYTHONPATH": "..."`` of a dev container's ``containerEnv``/``remoteEnv``
    (``devcontainer.json``; trial 26d): ``${containerWorkspaceFolder}`` is the repository
    root, and an absolute ``/workspaces/proj/.deps/verl`` is matched by its trailing
    components as any container path is."""
    if "PYTHONPATH" not in text:
        return
    yield from _path_list(text, path, root, _JSON_PYTHONPATH, "a dev container's PYTHONPATH", _CONTAINER_DIR, (root,))


def _pth(text: str, path: str, root: str):
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(("#", "import ", "import\t")):
            continue
        yield line, number, "a .pth file", (os.path.dirname(path), root)


# -- Bazel's ``imports`` ---------------------------------------------------------------------------

#: the names of a Bazel package's build file (Bazel's "BUILD files": ``BUILD.bazel`` wins
#: when both exist; both are read, an ``imports`` entry of either puts its folder first)
_BAZEL_FILES = frozenset({"BUILD", "BUILD.bazel"})


def _bazel(text: str, path: str, root: str):
    """Each string of a literal ``imports = [...]`` (a list or tuple of strings only) given to
    a rule or macro whose name holds ``py`` (``py_library``, ``py_binary``, ``py_test``,
    ``pytest_test``, ``native.py_library``), relative to the build file's folder: Bazel puts
    ``<package>/<entry>`` on the path of the target and of every target depending on it
    (rules_python's ``imports`` attribute). The file is parsed with :mod:`ast`, never run;
    one that does not parse (Starlark Python rejects) declares nothing; a computed list
    (``imports = IMPORTS``, ``glob``, a concatenation) is skipped.

    Args:
        text (str): the build file's text.
        path (str): the build file (absolute).
        root (str): the repository root (unused: an entry is relative to the package).

    Yields:
        ``(entry, line, form, bases)`` as the other readers do; never raises.
    """
    if "imports" not in text:
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    here = os.path.dirname(path)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        rule = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if "py" not in rule.lower():
            continue
        for keyword in node.keywords:
            value = keyword.value
            if keyword.arg != "imports" or not isinstance(value, (ast.List, ast.Tuple)):
                continue
            if not all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts):
                continue
            for entry in value.elts:
                written = entry.value.strip()
                if written and not written.startswith("/"):  # Bazel refuses an absolute entry
                    yield written, entry.lineno, "a Bazel rule's imports", (here,)


# -- sys.path in Python files -------------------------------------------------------------------

_PATH_METHODS = frozenset({"insert", "append", "extend"})


#: where a statement may put a folder on the path: ``sys.path.insert(``/``append(``/``extend(``,
#: ``sys.path[...] =``, ``sys.path +=``, ``sys.path =``, ``addsitedir(``
_PATH_STATEMENT = lazy_pattern(
    r"sys\.path\s*(?:\.\s*(?:insert|append|extend)\s*\(|\[[^\]\n]*\]\s*=|\+=|=(?!=))|addsitedir\s*\("
    r"|syspath_prepend\s*\(|\[\s*[\"']PYTHONPATH[\"']\s*\]\s*=|[\"']PYTHONPATH[\"']\s*:"
)
#: How many lines one statement may span (a call split over lines).
_MAX_STATEMENT_LINES = 12


def _python(text: str, path: str, root: str):
    """Only the statements around a match of :data:`_PATH_STATEMENT` are parsed (a test
    module naming ``sys.path`` in its data costs a regex, not a parse of the file); a match
    inside a string parses as no such statement."""
    matches = list(_PATH_STATEMENT.finditer(text))
    if not matches:
        return
    lines = text.splitlines(keepends=True)
    starts = _line_starts(lines)
    bases = (root, os.path.dirname(path))
    names = _NamesOf(text, lines, starts)
    evaluate = PathEvaluator(path, lambda node: names.get(node.id))
    done: set[int] = set()
    for m in matches:
        index = _index_of(starts, m.start())
        if index in done:
            continue
        done.add(index)
        parsed = _statement(lines, index)
        if parsed is None:
            continue
        for node in ast.walk(parsed):
            values: list[ast.expr] = []
            form = "sys.path"
            if isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute) and func.attr in _PATH_METHODS and _is_sys_path(func.value):
                    form = f"sys.path.{func.attr}"
                    if func.attr == "insert" and len(node.args) >= 2:
                        values = [node.args[1]]
                    elif func.attr == "append" and node.args:
                        values = [node.args[0]]
                    elif func.attr == "extend" and node.args:
                        values = _elements(node.args[0])
                elif (isinstance(func, ast.Attribute) and func.attr == "addsitedir") or (
                    isinstance(func, ast.Name) and func.id == "addsitedir"
                ):
                    form = "site.addsitedir"
                    values = node.args[:1]
                elif isinstance(func, ast.Attribute) and func.attr == "syspath_prepend" and node.args:
                    form = "monkeypatch.syspath_prepend"
                    values = node.args[:1]
            elif isinstance(node, ast.Dict):  # ``env={"PYTHONPATH": ...}``
                form = "an environment's PYTHONPATH"
                values = [_pythonpath_parts(v) for k, v in zip(node.keys, node.values) if _is_pythonpath(k)]
                values = [e for group in values for e in group]
            elif isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(_is_sys_path(t) or (isinstance(t, ast.Subscript) and _is_sys_path(t.value)) for t in targets):
                    values = [e for e in _elements(node.value) if not _is_sys_path(e)]
                elif any(isinstance(t, ast.Subscript) and _is_pythonpath(t.slice) for t in targets):
                    form = "an environment's PYTHONPATH"  # ``env["PYTHONPATH"] = ...``
                    values = _pythonpath_parts(node.value)
            for value in values:
                candidates = [value]
                inner = value
                if (  # ``sys.path.insert(0, str(egg))``
                    isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords
                    and ((isinstance(value.func, ast.Name) and value.func.id == "str")
                         or (isinstance(value.func, ast.Attribute) and value.func.attr == "fspath"))
                ):
                    inner = value.args[0]
                if isinstance(inner, ast.Name) and names.get(inner.id) is None:
                    # ``for p in ("build/lib",): sys.path.insert(0, p)``: a literal loop's items
                    candidates = _loop_items(text, inner.id) or candidates
                for candidate in candidates:
                    globbed = _glob_of(candidate)
                    if globbed is not None:  # trial 26j (B3): ``sys.path[:0] = glob.glob(...)``
                        yield from _expand_glob(globbed, evaluate, path, root, index + 1, form, bases)
                        continue
                    result = evaluate(candidate)
                    if result is None:
                        if not _reads_pythonpath(candidate):  # a folder the tool cannot tell
                            yield Unevaluated(ast.unparse(candidate)), index + 1, form, bases
                        continue
                    parts = result.split(os.pathsep) if form == "an environment's PYTHONPATH" else [result]
                    for part in parts:
                        if part and "$" not in part:
                            yield part, index + 1, form, bases


class _Glob(NamedTuple):
    """A glob a path entry expands (:func:`_glob_of`).

    Attributes:
        pattern: the pattern's expression (``glob.glob``'s first argument, ``Path.glob``'s).
        folder: the folder ``Path.glob`` is called on, ``None`` for ``glob.glob``.
        recursive: whether ``**`` spans folders (``Path.glob``, ``rglob``,
            ``glob.glob(..., recursive=True)``).
        prefix: ``"**/"`` for ``rglob``, else ``""``.
    """

    pattern: ast.expr
    folder: ast.expr | None
    recursive: bool
    prefix: str


#: calls that keep a glob's matches as the entries (``sorted(glob.glob(...))``)
_GLOB_WRAPPERS = frozenset({"sorted", "list", "tuple", "reversed", "set"})


def _glob_of(node: ast.expr) -> _Glob | None:
    """The glob whose matches ``node`` puts on the path, or ``None``: ``glob.glob(P)``,
    ``glob.iglob(P)``, ``glob(P)`` (``from glob import glob``), ``X.glob(P)`` /
    ``X.rglob(P)`` on a path ``X``, wrapped in ``sorted``/``list``/``reversed``..., a
    ``map(str, ...)``, an item (``glob.glob(P)[0]``: any match), a starred item, or the
    iterable of a comprehension (``[str(p) for p in X.glob(P)]``)."""
    for _ in range(8):  # unwrap
        if isinstance(node, ast.Starred):
            node = node.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)) and len(node.generators) == 1:
            node = node.generators[0].iter
        elif (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args
            and (node.func.id in _GLOB_WRAPPERS or (node.func.id == "map" and len(node.args) == 2))
        ):
            node = node.args[-1]
        else:
            break
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    recursive = any(
        k.arg == "recursive" and not (isinstance(k.value, ast.Constant) and not k.value.value) for k in node.keywords
    )
    if isinstance(func, ast.Name) and func.id in ("glob", "iglob"):
        return _Glob(node.args[0], None, recursive, "")
    if isinstance(func, ast.Attribute) and func.attr in ("glob", "iglob", "rglob"):
        owner = func.value
        if isinstance(owner, ast.Name) and owner.id == "glob":  # the module
            return _Glob(node.args[0], None, recursive, "")
        return _Glob(node.args[0], owner, True, "**/" if func.attr == "rglob" else "")
    return None


#: how many matches of one glob are read at most
_MAX_GLOB_MATCHES = 200


def _expand_glob(globbed: _Glob, evaluate, path: str, root: str, line: int, form: str, bases):
    """The entries of a glob (trial 26j, B3), as :func:`_python` yields them: each existing
    match, tried against ``bases`` as a relative entry is (the process's working directory is
    not known); a pattern the tool cannot evaluate, or one naming verl that matches nothing
    here, is an :class:`Unevaluated` entry holding ``*`` (:func:`names_verl_glob`)."""
    import glob as _globbing

    pattern = evaluate(globbed.pattern)
    folder = evaluate(globbed.folder) if globbed.folder is not None else ""
    if pattern is None or folder is None:
        spelled = ast.unparse(globbed.pattern) if globbed.folder is None else (
            f"{ast.unparse(globbed.folder)}/{globbed.prefix}{ast.unparse(globbed.pattern)}"
        )
        yield Unevaluated(f"glob {spelled}"), line, form, bases
        return
    pattern = globbed.prefix + pattern
    full = os.path.join(os.path.expanduser(folder), pattern) if folder else os.path.expanduser(pattern)
    tries = [full] if os.path.isabs(full) else [os.path.join(base, full) for base in bases]
    found: list[str] = []
    for attempt in dict.fromkeys(tries):  # not normalised: ``plugins/*/`` matches folders only
        try:
            matches = _globbing.glob(attempt, recursive=globbed.recursive)
        except (OSError, ValueError, RecursionError):
            matches = []
        found.extend(os.path.normpath(m) for m in sorted(matches)[:_MAX_GLOB_MATCHES])
    for match in dict.fromkeys(found):
        yield match, line, form, bases
    if not found and _NAMES_VERL.search(full):  # ``vendor/verl-*.egg``, built at run time
        yield Unevaluated(f"glob {full}"), line, form, bases


def names_verl_glob(entry: str) -> bool:
    """Whether an entry the tool cannot evaluate is a glob (``glob ...``, :func:`_expand_glob`)
    that may name verl: its last component names verl or holds a wildcard (``*.egg``, ``*``:
    any archive or folder, ``verl-0.8.0-py3.11.egg`` among them)."""
    if not entry.startswith("glob "):
        return False
    tail = entry.replace("\\", "/").rstrip("/ \t\"')").rsplit("/", 1)[-1]
    return _NAMES_VERL.search(tail) is not None or any(c in tail for c in "*?[")


def _reads_pythonpath(node: ast.expr) -> bool:
    """Whether ``node`` reads the ``PYTHONPATH`` already set (``env.get("PYTHONPATH", "")``)
    or ``sys.path`` itself: it adds no folder of its own."""
    return any(_is_pythonpath(n) or _is_sys_path(n) for n in ast.walk(node))


def _is_pythonpath(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value == "PYTHONPATH"


def _pythonpath_parts(node: ast.expr) -> list[ast.expr]:
    """The items a ``PYTHONPATH`` value joins: ``os.pathsep.join([...])``, ``":".join(...)``,
    ``a + os.pathsep + b``, else the value itself (split on ``os.pathsep`` once evaluated)."""
    if (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join"
        and node.args and isinstance(node.args[0], (ast.List, ast.Tuple))
        and not (isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "path")
    ):
        return list(node.args[0].elts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _pythonpath_parts(node.left) + _pythonpath_parts(node.right)
    return [node]


def _loop_items(text: str, name: str) -> list[ast.expr]:
    """The items of every ``for name in (<literal>, ...):`` / ``[...]`` loop of the file, and
    the glob of a ``for name in glob.glob(...):`` / ``sorted(Path(...).glob(...))`` loop
    (:func:`_glob_of`)."""
    items: list[ast.expr] = []
    for m in re.finditer(rf"(?m)^[ \t]*for[ \t]+{re.escape(name)}[ \t]+in[ \t]+([^\n]*?glob\([^\n]*\))[ \t]*:", text):
        try:
            node = ast.parse(m.group(1), mode="eval").body
        except (SyntaxError, ValueError, RecursionError):
            continue
        if _glob_of(node) is not None:
            items.append(node)
    for m in re.finditer(rf"(?m)^[ \t]*for[ \t]+{re.escape(name)}[ \t]+in[ \t]+([(\[][^\n]*?[)\]])[ \t]*:", text):
        try:
            node = ast.parse(m.group(1), mode="eval").body
        except (SyntaxError, ValueError, RecursionError):
            continue
        if isinstance(node, (ast.Tuple, ast.List)):
            items.extend(e for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return items


def _line_starts(lines: list[str]) -> list[int]:
    starts, offset = [], 0
    for line in lines:
        starts.append(offset)
        offset += len(line)
    return starts


def _index_of(starts: list[int], offset: int) -> int:
    import bisect

    return bisect.bisect_right(starts, offset) - 1


def _statement(lines: list[str], index: int) -> ast.Module | None:
    """The statement starting on line ``index`` (0-based), dedented, spanning up to
    :data:`_MAX_STATEMENT_LINES` lines; ``None`` when no such span parses."""
    import textwrap

    for end in range(index + 1, min(len(lines), index + _MAX_STATEMENT_LINES) + 1):
        chunk = textwrap.dedent("".join(lines[index:end]))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return ast.parse(chunk)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return None


def _is_sys_path(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute) and node.attr == "path"
        and isinstance(node.value, ast.Name) and node.value.id == "sys"
    )


def _elements(node: ast.expr) -> list[ast.expr]:
    """The items a list, tuple or concatenation of them holds (``[a] + sys.path``)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return list(node.elts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _elements(node.left) + _elements(node.right)
    return [node]


class _NamesOf:
    """The value of a name the file binds exactly once, by a plain ``name = value`` at the
    start of a line (any scope), found by a regex and that statement parsed; ``None`` for
    any other name (bound twice, by ``for``/``with``/``def``/an import, or not at all)."""

    def __init__(self, text: str, lines: list[str], starts: list[int]) -> None:
        self.text, self.lines, self.starts = text, lines, starts
        self.cache: dict[str, ast.expr | None] = {}

    def get(self, name: str) -> ast.expr | None:
        if name not in self.cache:
            self.cache[name] = self._find(name)
        return self.cache[name]

    def _find(self, name: str) -> ast.expr | None:
        word = re.escape(name)
        bound = re.findall(rf"(?m)^[ \t]*{word}[ \t]*(?::[^=\n]*)?(?:[-+*/|&]?=)(?!=)", self.text)
        # bound otherwise too: a loop or ``with ... as``/import target, a def or a class
        # (a comprehension's ``for p in (HERE / 'x').glob(...)`` binds ``p``, not ``HERE``)
        other = re.search(
            rf"\b(?:as|def|class|import)\b[^\n]*\b{word}\b|\bfor\b(?:(?!\bin\b)[^\n])*\b{word}\b", self.text
        )
        if len(bound) != 1 or other is not None:
            return None
        m = re.search(rf"(?m)^[ \t]*{word}[ \t]*(?::[^=\n]*)?=(?!=)", self.text)
        if m is None:
            return None
        parsed = _statement(self.lines, _index_of(self.starts, m.start()))
        stmt = parsed.body[0] if parsed is not None and parsed.body else None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            return stmt.value
        if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            return stmt.value
        return None


# -- from a declared path to folders of this repository -----------------------------------------


#: the usual names of archives ``zipimport`` imports from on ``sys.path`` (any file on it is
#: tried as one: :func:`_is_root`)
ARCHIVE_SUFFIXES = (".zip", ".whl", ".egg")


def _is_root(path: str) -> bool:
    """A folder, or a regular file: zipimport's path hook is asked for *every* file on
    ``sys.path`` whatever its name (``vendor/verl-0.8.0.bundle``, ``vendor/verl.pyz``; the
    ``zipimport`` docs: "any item of sys.path that is a path to a ZIP archive"), so the
    judging decides from its content (:func:`zipfile.is_zipfile`), not its suffix."""
    return os.path.isdir(path) or os.path.isfile(path)


def _folders(value: str, bases, root: str) -> list[str]:
    """The existing folders (or archives, :data:`ARCHIVE_SUFFIXES`) ``value`` may name (see
    the module docstring)."""
    value = os.path.expanduser(value.strip())
    if not value:
        return []
    out: list[str] = []
    if os.path.isabs(value):
        candidates = [value]
        if not _is_root(value):  # a container's path: match its tail in the repository
            parts = [p for p in os.path.normpath(value).split(os.sep) if p]
            candidates = [os.path.join(root, *parts[k:]) for k in range(len(parts))]
        for c in candidates:
            c = os.path.normpath(c)
            if _is_root(c):
                out.append(c)
                break
    else:
        for base in bases:
            c = os.path.normpath(os.path.join(base, value))
            if _is_root(c):
                out.append(c)
    return list(dict.fromkeys(out))


# -- files written over a module at run time (trial 26i, I-B5) -------------------------------


class ModuleWrite(NamedTuple):
    """A statement of a Python file of the repository that writes a file named as a module's
    own file (``shutil.copy(SRC, <...>/constants_ppo.py)``): an overlay of a copy of verl made
    at run time (:func:`module_writes`).

    Attributes:
        source: the writing file (absolute).
        line: 1-based line of the statement.
        form: how, for messages: ``"shutil.copy"``, ``"os.replace"``, ``".write_text"`` ...
        copied: the file copied there (absolute, normalised) when the source evaluates to a
            file of this machine, else ``None`` (written text, a path the tool cannot tell).
        over: the destination is computed from the module itself (fresh user 43, B1:
            ``find_spec("verl.trainer.constants_ppo").origin``, ``cp.__file__``,
            ``inspect.getfile(cp)``): the write replaces the file of the module that is
            installed, whatever copy of it the project imports.
        kind: ``"write"`` (the destination gets ``copied``'s content), ``"edit"`` (``sed -i``:
            an edit in place the tool does not read) or ``"patch"`` (``copied`` is a patch file
            that changes the module; :mod:`ppo_migrate.project.carriers`).
    """

    source: str
    line: int
    form: str
    copied: str | None
    over: bool = False
    kind: str = "write"


#: ``shutil.<f>(src, dst)`` / ``os.<f>(src, dst)`` that put ``src``'s content at ``dst``
_COPY_FUNCTIONS = frozenset({"copy", "copy2", "copyfile", "move", "replace", "rename", "symlink", "link"})
#: ``dst.<m>(...)`` that write ``dst`` (``pathlib.Path``)
_WRITE_METHODS = frozenset({"write_text", "write_bytes", "symlink_to", "hardlink_to"})
#: ``src.<m>(dst)`` that put ``src`` at ``dst`` (``pathlib.Path``)
_MOVE_METHODS = frozenset({"rename", "replace", "copy"})
#: test files: what they write is a test's fixture (the doubles table's, rules/patches.py)
_TEST_FILE = re.compile(r"^(?:test_.*|.*_test|conftest)\.py$")
#: ``(root, respect_gitignore, file name, module) -> writes``: one search a run
_WRITES: dict[tuple[str, bool, str, str | None], tuple[ModuleWrite, ...]] = {}
#: words of a destination computed from a module (fresh user 43, B1): a file holding the
#: module's last part is parsed only when it holds one of them (or the file name)
_FROM_MODULE_WORDS = (b"__file__", b"origin", b"getfile", b"getsourcefile", b"getabsfile")
#: words of a call that writes a file (:data:`_COPY_FUNCTIONS`, :data:`_WRITE_METHODS`,
#: :data:`_MOVE_METHODS`, ``open``): with :data:`_FROM_MODULE_WORDS`, what a file must hold
#: to be parsed when its bytes do not hold the file name itself (the all-hit tree's trainer
#: modules import the module and use ``__file__``, and write nothing)
_WRITE_WORDS = (b"copy", b"move", b"replace", b"rename", b"link", b"write_", b"open")
#: ``open(dst, mode)`` modes that write ``dst``
_WRITE_MODES = frozenset("wax+")
#: calls that give a module's file: ``inspect.getfile(m)`` and its kin
_FILE_OF = frozenset({"getfile", "getsourcefile", "getabsfile"})
#: calls and methods that keep a path as it is for the question "which file": ``Path(p)``,
#: ``str(p)``, ``os.path.realpath(p)``, ``p.resolve()``
_SAME_PATH = frozenset({"Path", "PurePath", "PosixPath", "str", "fspath", "realpath", "abspath", "normpath", "resolve", "absolute", "expanduser"})


def module_writes(
    root: str | os.PathLike[str], file_name: str, respect_gitignore: bool = True, module: str | None = None
) -> tuple[ModuleWrite, ...]:
    """The statements of the repository's Python files that write a file named ``file_name``
    (trial 26i, I-B5: a launcher copying the installed verl to ``.overlay/verl`` and a hotfix
    over its ``trainer/constants_ppo.py``, whatever the hotfix's own name).

    A statement counts when it is a call of :data:`_COPY_FUNCTIONS` on ``shutil``/``os`` (or
    imported from them), of :data:`_MOVE_METHODS` on a path, or of :data:`_WRITE_METHODS` on
    a path, and its destination names ``file_name``: a string constant in it is
    ``file_name`` or ends with ``/file_name``, or it evaluates to such a path
    (:class:`ppo_migrate.project.path_expr.PathEvaluator`). The source is evaluated the same
    way (a relative path from the file's folder or the root, whichever exists). ``open(dst,
    "w")`` (any writing mode) writes ``dst`` too; its text is never read (``copied`` is ``None``).

    Fresh user 43, B1: with ``module`` given, a destination computed from the module itself
    counts too (``over`` is set): ``importlib.util.find_spec("<module>").origin`` (and a name
    bound to that spec), ``X.__file__`` / ``X.__spec__.origin`` / ``inspect.getfile(X)`` where
    ``X`` is the module (``import a.b.c as X``, ``from a.b import c as X``,
    ``importlib.import_module("a.b.c")``, ``sys.modules["a.b.c"]``, the dotted ``a.b.c``),
    through ``Path()``, ``str()``, ``os.fspath()``, ``os.path.realpath()``, ``.resolve()``
    and names assigned once. ``os.path.dirname(verl.__file__) + "/trainer/constants_ppo.py"``
    and ``importlib.resources.files("verl.trainer") / "constants_ppo.py"`` name the file by
    their constant already.

    Not searched: a folder of test doubles and what the walk does not enter
    (:func:`ppo_migrate.project.tree.repository_listing`); the tests' files (``test_*.py``,
    ``*_test.py``, ``conftest.py``) count only for writes over the installed module
    (``over``: trial 26j, h02, a conftest writing a hotfix next to ``verl.trainer.__file__``),
    what else they write being a test's fixture. A file is parsed only when its bytes hold
    ``file_name``, or the module's last part, a word of :data:`_FROM_MODULE_WORDS` and one of
    :data:`_WRITE_WORDS`. ``dst.write_text(SRC.read_text())`` copies ``SRC``.

    Args:
        root: the repository root.
        file_name: the module's file name, e.g. ``"constants_ppo.py"``.
        respect_gitignore: the run's ``respect-gitignore``.
        module: the module's dotted name, e.g. ``"verl.trainer.constants_ppo"`` (``None``:
            destinations named by their file name only).

    Returns:
        The writes, by file in walk order then line. Never raises.
    """
    from ppo_migrate.project.tree import in_doubles_folder, repository_listing

    root = os.path.abspath(os.fspath(root))
    key = (root, bool(respect_gitignore), file_name, module)
    cached = _WRITES.get(key)
    if cached is not None:
        return cached
    listing = repository_listing(root, respect_gitignore)
    word = file_name.encode()
    # fresh user 43, B1: ``find_spec("...constants_ppo").origin``, ``cp.__file__``: the module's
    # last part and a word that computes a file from a module
    stem = module.rsplit(".", 1)[-1].encode() if module else None
    found: list[ModuleWrite] = []
    for path in listing.files(lambda n: n.endswith(".py")):
        if in_doubles_folder(path, root):
            continue
        data = _read(path)
        if data is None or (word not in data and not (
            stem is not None and stem in data and any(w in data for w in _FROM_MODULE_WORDS)
            and any(w in data for w in _WRITE_WORDS)
        )):
            continue
        writes = _writes_in(decode_text(data, errors="replace"), path, root, file_name, module)
        if _TEST_FILE.match(os.path.basename(path)):
            # a test's file written elsewhere is its fixture; one written over the installed
            # module changes the verl every later run imports (trial 26j, h02: a conftest)
            writes = [w for w in writes if w.over]
        found.extend(writes)
    result = _WRITES[key] = tuple(found)
    return result


def _module_aliases(tree: ast.Module, module: str) -> tuple[set[str], set[str]]:
    """The names ``tree`` binds to ``module`` (``import a.b.c as X``, ``from a.b import c as
    X``, ``X = importlib.import_module("a.b.c")``) and to its top-level package (``import a``,
    ``import a.b.c``: the dotted ``a.b.c`` reaches it)."""
    package, _, last = module.rpartition(".")
    top = module.split(".", 1)[0]
    aliases: set[str] = set()
    tops: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == module and a.asname:
                    aliases.add(a.asname)
                elif not a.asname and a.name.split(".")[0] == top:
                    tops.add(top)
                elif a.name == top and a.asname:
                    tops.add(a.asname)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module == package:
            aliases.update(a.asname or a.name for a in node.names if a.name == last)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and _imports_module(node.value, module):
            aliases.add(node.targets[0].id)
    return aliases, tops


def _imports_module(node: ast.AST, module: str) -> bool:
    """``importlib.import_module("<module>")`` (or ``import_module`` imported)."""
    return (
        isinstance(node, ast.Call) and _called(node) == "import_module" and bool(node.args)
        and isinstance(node.args[0], ast.Constant) and node.args[0].value == module
    )


def _called(node: ast.Call) -> str:
    """The last part of a call's function: ``"find_spec"`` for ``importlib.util.find_spec(...)``."""
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _module_file_of(node: ast.AST, module: str, aliases: set[str], tops: set[str], names: _NamesOf, depth: int = 0) -> bool:
    """Whether ``node`` evaluates to ``module``'s own file (see :func:`module_writes`)."""
    if depth > 12:
        return False

    def again(n: ast.AST) -> bool:
        return _module_file_of(n, module, aliases, tops, names, depth + 1)

    def is_module(n: ast.AST) -> bool:
        if isinstance(n, ast.Name):
            if n.id in aliases:
                return True
            value = names.get(n.id)
            return value is not None and depth < 12 and _imports_module(value, module)
        if isinstance(n, ast.Attribute):
            spelled = []
            inner: ast.AST = n
            while isinstance(inner, ast.Attribute):
                spelled.append(inner.attr)
                inner = inner.value
            return isinstance(inner, ast.Name) and inner.id in tops and \
                ".".join([module.split(".", 1)[0], *reversed(spelled)]) == module
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute) and n.value.attr == "modules":
            return isinstance(n.slice, ast.Constant) and n.slice.value == module
        return _imports_module(n, module)

    def is_spec(n: ast.AST) -> bool:
        if isinstance(n, ast.Call) and _called(n) == "find_spec" and n.args:
            return isinstance(n.args[0], ast.Constant) and n.args[0].value == module
        if isinstance(n, ast.Attribute) and n.attr == "__spec__":
            return is_module(n.value)
        if isinstance(n, ast.Name):
            value = names.get(n.id)
            return value is not None and is_spec(value)
        return False

    if isinstance(node, ast.Name):
        value = names.get(node.id)
        return value is not None and again(value)
    if isinstance(node, ast.Attribute):
        if node.attr == "__file__":
            return is_module(node.value)
        if node.attr == "origin":
            return is_spec(node.value)
        return False
    if isinstance(node, ast.Call):
        called = _called(node)
        if called in _FILE_OF and node.args:
            return is_module(node.args[0])
        if called in _SAME_PATH:
            if node.args:
                return again(node.args[0])
            return isinstance(node.func, ast.Attribute) and again(node.func.value)  # ``p.resolve()``
    return False


def _in_installed(node: ast.AST, module: str, tops: set[str], names: _NamesOf, depth: int = 0) -> bool:
    """Whether ``node`` builds its path from where a package of ``module``'s is installed:
    ``verl.__file__``, ``verl.__path__``, ``find_spec("verl")``, ``importlib.resources.files(
    "verl.trainer")`` (a name assigned once is followed). Asked of a destination that names
    the module's file (``os.path.dirname(verl.__file__) + "/trainer/constants_ppo.py"``)."""
    parts = module.split(".")
    packages = {".".join(parts[:i]) for i in range(1, len(parts))}
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and n.attr in ("__file__", "__path__"):
            inner = n.value
            while isinstance(inner, ast.Attribute):  # ``verl.trainer.__file__``
                inner = inner.value
            if isinstance(inner, ast.Name) and inner.id in tops:
                return True
        if isinstance(n, ast.Call) and _called(n) in ("find_spec", "files", "import_module") and n.args \
                and isinstance(n.args[0], ast.Constant) and n.args[0].value in packages:
            return True
        if isinstance(n, ast.Name) and depth < 6:
            value = names.get(n.id)
            if value is not None and _in_installed(value, module, tops, names, depth + 1):
                return True
    return False


def _writes_in(text: str, path: str, root: str, file_name: str, module: str | None = None) -> list[ModuleWrite]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    lines = text.splitlines(keepends=True)
    names = _NamesOf(text, lines, _line_starts(lines))
    evaluate = PathEvaluator(path, lambda node: names.get(node.id))
    imported = {
        a.asname or a.name
        for s in ast.walk(tree) if isinstance(s, ast.ImportFrom) and s.module in ("shutil", "os") and not s.level
        for a in s.names if a.name in _COPY_FUNCTIONS
    }

    aliases, tops = _module_aliases(tree, module) if module else (set(), set())

    def over(node: ast.expr) -> bool:
        return module is not None and (
            _module_file_of(node, module, aliases, tops, names) or _in_installed(node, module, tops, names)
        )

    def names_file(node: ast.expr) -> bool:
        if over(node):
            return True
        for n in ast.walk(node):
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and (
                n.value == file_name or n.value.replace("\\", "/").endswith("/" + file_name)
            ):
                return True
        value = evaluate(node)
        return value is not None and os.path.basename(value) == file_name

    def copied(node: ast.expr | None) -> str | None:
        value = evaluate(node) if node is not None else None
        if value is None:
            return None
        for base in ((value,) if os.path.isabs(value) else (os.path.dirname(path), root)):
            candidate = os.path.normpath(os.path.join(base, value))
            if os.path.isfile(candidate):
                return candidate
        return None

    found: list[ModuleWrite] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        src: ast.expr | None = None
        dst: ast.expr | None = None
        form = ""
        if isinstance(func, ast.Attribute) and func.attr in _COPY_FUNCTIONS and isinstance(func.value, ast.Name) \
                and func.value.id in ("shutil", "os") and len(node.args) >= 2:
            src, dst, form = node.args[0], node.args[1], f"{func.value.id}.{func.attr}"
        elif isinstance(func, ast.Name) and func.id in imported and len(node.args) >= 2:
            src, dst, form = node.args[0], node.args[1], func.id
        elif isinstance(func, ast.Attribute) and func.attr in _WRITE_METHODS:
            dst, form = func.value, f".{func.attr}"
            if func.attr in ("symlink_to", "hardlink_to") and node.args:
                src = node.args[0]
            elif node.args and isinstance(node.args[0], ast.Call) and isinstance(node.args[0].func, ast.Attribute) \
                    and node.args[0].func.attr in ("read_text", "read_bytes"):
                src = node.args[0].func.value  # ``dst.write_text(SRC.read_text())``: SRC's content
        elif isinstance(func, ast.Attribute) and func.attr in _MOVE_METHODS and len(node.args) == 1 \
                and not (isinstance(func.value, ast.Name) and func.value.id in ("shutil", "os")):
            src, dst, form = func.value, node.args[0], f".{func.attr}"
        elif _called(node) == "open" and not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                                               and func.value.id == "os"):  # ``os.open`` takes flags
            plain = isinstance(func, ast.Name) or (
                isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("io", "codecs", "builtins")
            )
            target = (node.args[0] if node.args else None) if plain else func.value  # ``Path(p).open("w")``
            rest = node.args[1:2] if plain else node.args[:1]
            mode = rest[0] if rest else next((k.value for k in node.keywords if k.arg == "mode"), None)
            if target is not None and isinstance(mode, ast.Constant) and isinstance(mode.value, str) \
                    and _WRITE_MODES & set(mode.value):
                dst, form = target, "open"
        if dst is None or not names_file(dst):
            continue
        found.append(ModuleWrite(path, node.lineno, form, copied(src), over(dst)))
    found.sort(key=lambda w: w.line)
    return found


# -- a package's __getattr__ set from outside (trial 26i, I-B8) --------------------------------


class PackageHook(NamedTuple):
    """A statement of a Python file of the repository that sets a module ``__getattr__``
    (PEP 562) on a package from outside it (:func:`package_hooks`).

    Attributes:
        source: the file (absolute).
        line: 1-based line of the statement.
        package: the package's dotted name, e.g. ``"verl.trainer"``.
    """

    source: str
    line: int
    package: str


_HOOKS: dict[tuple[str, bool, str], tuple[PackageHook, ...]] = {}


def package_hooks(root: str | os.PathLike[str], top: str, respect_gitignore: bool = True) -> tuple[PackageHook, ...]:
    """The statements of the repository's Python files (not the tests, as
    :func:`module_writes`) that set ``__getattr__`` on a package of ``top``: ``verl.trainer.__getattr__
    = _lazy``, ``setattr(vt, "__getattr__", _lazy)`` with ``import verl.trainer as vt``, ``from
    verl import trainer; trainer.__getattr__ = ...``, ``sys.modules["verl.trainer"].__getattr__
    = ...`` (trial 26i, I-B8: ``from verl.trainer import constants_ppo`` asks the package's
    attribute first, so the hook may serve another module in the file's place).

    Args:
        root: the repository root.
        top: the top-level package, e.g. ``"verl"``.
        respect_gitignore: the run's ``respect-gitignore``.

    Returns:
        The statements, by file in walk order then line; a file is parsed only when its bytes
        hold ``__getattr__``. Never raises.
    """
    from ppo_migrate.project.tree import in_doubles_folder, repository_listing

    root = os.path.abspath(os.fspath(root))
    key = (root, bool(respect_gitignore), top)
    cached = _HOOKS.get(key)
    if cached is not None:
        return cached
    listing = repository_listing(root, respect_gitignore)
    found: list[PackageHook] = []
    for path in listing.files(lambda n: n.endswith(".py") and not _TEST_FILE.match(n)):
        if in_doubles_folder(path, root):
            continue
        data = _read(path)
        if data is None or b"__getattr__" not in data or top.encode() not in data:
            continue
        found.extend(_hooks_in(decode_text(data, errors="replace"), path, top))
    result = _HOOKS[key] = tuple(found)
    return result


def _hooks_in(text: str, path: str, top: str) -> list[PackageHook]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    aliases: dict[str, str] = {}  # a name -> the dotted module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == top:
                    aliases[a.asname or top] = a.name if a.asname else top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level and node.module.split(".")[0] == top:
            for a in node.names:
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"

    def package(node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            inner = package(node.value)
            return f"{inner}.{node.attr}" if inner else None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "modules" \
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str) \
                and node.slice.value.split(".")[0] == top:
            return node.slice.value  # ``sys.modules["verl.trainer"]``
        return None

    found: list[PackageHook] = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(t, ast.Attribute) and t.attr == "__getattr__":
                    targets.append(t.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and node.args[1].value == "__getattr__":
            targets.append(node.args[0])
        for target in targets:
            named = package(target)
            if named is not None and named.split(".")[0] == top:
                found.append(PackageHook(path, node.lineno, named))
    found.sort(key=lambda h: h.line)
    return found
