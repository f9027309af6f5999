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
assignment (``VERL_VERSION=0.8.0``, ``export ...``, ``?=``, ``:=``), a ``${NAME:-default}``;
each assignment's value is expanded with the ones before it (``V="${V:-0.8.0}"`` is 0.8.0;
``ARG V=${V}`` gives no value). just's ``{{name}}`` takes a ``name := "..."`` of the file, and a
shell array's ``"${PKGS[@]}"`` its words (``PKGS=(ray "verl==0.8.0")``). Trial 26c: an argument
naming verl that still cannot be read (its variable has no such value, a ``$(shell ...)``, a
template the tool does not evaluate) is never dropped: it is a declaration of a verl whose
release cannot be read (the build may pass any), and the fix is then refused, never assumed.
A requirements file's ``verl==${VAR}`` (pip fills in the environment's value) is one too
(:func:`ppo_migrate.rules.requirements.templated_verl`).

A fresh tester's forms (issue 26) are read too: ``.gitlab-ci.yml`` (``script:`` lines),
``justfile``/``Justfile``, ``docker-compose*.yml``/``compose*.yml`` (``command:``),
``devcontainer.json`` (``postCreateCommand`` and the other lifecycle commands: a string, an
array, an object of either), an extensionless script whose first line is a shell's shebang
(``bin/bootstrap``), ``*.bash``/``*.zsh``/``*.ksh`` scripts, a batch job (``*.sbatch``,
``*.slurm``, ``*.pbs``, ``*.qsub``, ``*.job``) whose first line is a shell's shebang (trial
26d), and ``noxfile.py`` (``session.install(...)``, ``session.run("pip",
"install", ...)``, read with :mod:`ast`). Besides pip: ``conda``/``mamba``/``micromamba install``
(conda's single ``=`` is that release: ``verl=0.8.0``), ``uv add`` (PEP 508) and ``poetry add``
(``verl@0.8.0``, ``verl@^0.8``, ``verl==0.8.0``). A ``PIP_CONSTRAINT=file`` the file sets names
a constraint file every install runs within: its pins count. In a workflow, a
``${{ matrix.NAME }}`` takes every value of a literal list under a job's ``strategy: matrix:``
(the lowest decides); any other expression naming verl is a release that cannot be read.

Trial 26e (C): verl's own install instructions are an install of verl
(:func:`checkout_installs`, :func:`workflow_checkout_installs`): a ``git clone`` of a
repository named verl (``-b v0.8.0``), then ``cd``/``pushd``, a Dockerfile's ``WORKDIR``,
``git -C``, a workflow's ``actions/checkout`` of verl (``ref:``, ``path:``) and a step's
``working-directory:``, a ``git checkout``/``switch``/``reset --hard`` of a ref, then ``pip
install [-e] .`` (``.[vllm]``, the checkout's path, ``python setup.py install``) in that
folder: the release the ref spells (``v0.8.0``), else one that cannot be read. An argument
that is a git reference with a ref of any shape (``@release/v0.8.x``), an archive of verl's
repository (``.../verl/archive/<sha>.zip``) or a wheel path or glob ``verl-*.whl`` installs
verl too (:func:`ppo_migrate.rules.requirements._from_reference`). A ``-r`` file pip fetches
(``-r https://.../rl-stack.txt``) installs what cannot be read: a verl whose release cannot be
read (:func:`ppo_migrate.rules.requirements.remote_file`).

Nothing is executed; a command that cannot be tokenised is split on white space. What
runs nothing is not read: an install in a comment (``# pip install verl==0.8.0``) or printed
by ``echo``/``printf`` (a help text); a Makefile recipe's ``@pip install`` is a command.
"""

from __future__ import annotations

import os
import posixpath
import re
import shlex
from collections.abc import Iterable, Iterator
from pathlib import Path

from packaging.version import Version
from ppo_migrate.rules.requirements import (
    _Found,
    _from_reference,
    _from_requirement,
    _is_verl,
    _read_requirements,
    _tag,
    lowest_allowed,
    poetry_specifier,
    remote_file,
)
from ppo_migrate.files import decode_text, utf8_text
from ppo_migrate.patterns import lazy_pattern
from ppo_migrate.project.snapshot import current

__all__ = [
    "checkout_installs",
    "inline_script_pins",
    "install_pins",
    "project_installs",
    "python_commands",
    "uninstalled_runs",
    "workflow_checkout_installs",
]

#: ``scope -> the pins``, one reading per repository per run
_PINS: dict[str, tuple[_Found, ...]] = {}

_INSTALL = lazy_pattern(
    r"(?:^|(?<=[\s;&|(`\"'\[@]))(?:\S*/)?(?:"
    r"(?:(?:python[\d.]*|py)\s+-m\s+pip[\d.]*|pip[\d.]*|uv\s+pip)\s+install"
    r"|(?P<conda>(?:conda|mamba|micromamba)\s+install)"
    r"|uv\s+add"
    r"|(?P<poetry>poetry\s+add)"
    r")\b"
)
#: a comment's start on a line (shell, Dockerfile, Makefile, YAML): ``#`` first or after a space
_COMMENTED = lazy_pattern(r"(?:^|(?<=\s))#")
#: where one command of a line starts: after a separator, a subshell's or substitution's start
_SEPARATOR = lazy_pattern(r"&&|\|\||[;|(`]|\$\(")
#: a command that prints its arguments (a help text, a hint) rather than running them
_PRINTS = lazy_pattern(r"^\s*@?\s*(?:echo|printf)\b")
#: where one command ends: a new line, a separator, a comment
_END = lazy_pattern(r"\n|&&|\|\||[;|]|\s#")
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
    from ppo_migrate.project.import_roots import _read
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
            kind = _kind(name, workflows)
            if kind is None:
                continue
            path = os.path.join(directory, name)
            data = _read(path)
            if data is not None:  # a UTF-16 Dockerfile's words, as UTF-8 bytes (trial 26d)
                data = utf8_text(data)
            if data is not None and b"verl" in data and b"FROM" in data.upper():
                found.extend(_verl_images(decode_text(data, "replace"), path))
            if data is None or not (
                b"install" in data or b"add" in data or b"PIP_CONSTRAINT" in data or b"--with" in data
                or b"--spec" in data or b"pip-run" in data or (kind == "python" and (data.startswith(b"#!") or b"/// script" in data))
            ):
                continue
            if kind == "maybe-script" and not _shell_shebang(data):
                continue
            text = decode_text(data, "replace")
            if kind == "devcontainer":
                for line, command in _devcontainer_commands(text):
                    found.extend(_commands("\n" * (line - 1) + command, path, root, everything, seen))
                continue
            if kind == "noxfile":
                for line, command in _nox_commands(text):
                    found.extend(_commands("\n" * (line - 1) + command, path, root, everything, seen))
                continue
            if kind == "python":
                if _NAMES_VERL.search(data) is None:
                    continue
                if b"install" in data:
                    for line, command in python_commands(path):
                        found.extend(_commands("\n" * (line - 1) + command, path, root, everything, seen))
                if data.startswith(b"#!"):  # ``#!/usr/bin/env -S uv run --with verl==0.8.0 python``
                    shebang = decode_text(data.split(b"\n", 1)[0][2:], "replace")
                    found.extend(_commands(_run_with_installs(shebang, commented=True), path, root, everything, seen))
                if b"/// script" in data:
                    found.extend(inline_script_pins(decode_text(data, "replace"), Path(path)))
                continue
            matrix = _workflow_matrix(text) if workflows else None
            commands = list(_commands(text, path, root, everything, seen, matrix))
            if b"clone" in data or b"actions/checkout" in data:  # verl's own install instructions
                checkouts = list(
                    workflow_checkout_installs(text, path) if workflows
                    else checkout_installs(_exec_form_as_shell(text), path, _style(name))
                )
                # ``pip install -e ./verl`` of a checkout: its tag, not "a direct reference"
                lines = {f.line for f in checkouts}
                commands = [f for f in commands if not (f.line in lines and f.kind == "direct-reference")]
                commands.extend(checkouts)
            found.extend(commands)
            found.extend(_constraint_variables(text, path, root, everything, seen))
            if b"--with" in data or b"--spec" in data or b"pip-run" in data:
                found.extend(_commands(_run_with_installs(text), path, root, everything, seen))
    result = _PINS[root] = tuple(found)
    return result


#: ``FROM verlai/verl:app-verl0.8-vllm0.10.0-...``: verl's own images name the release they
#: hold in the tag (``verl0.8``, ``verl0.8.0``)
_VERL_IMAGE = lazy_pattern(
    r"^[ \t]*FROM[ \t]+(?:--\S+[ \t]+)*(?P<image>\S*verl\S*?:\S*?verl-?v?(?P<version>\d+\.\d+(?:\.\d+)?)\S*)",
    re.MULTILINE | re.IGNORECASE,
)


def _verl_images(text: str, path: str) -> Iterator[_Found]:
    """The verl release each ``FROM`` of a verl image states in its tag (a Dockerfile's base
    image holds that verl): ``verl0.8`` allows any 0.8.x (the lowest decides)."""
    from packaging.specifiers import SpecifierSet

    for m in _VERL_IMAGE.finditer(text):
        version = m.group("version")
        spec = SpecifierSet(f"=={version}.*" if version.count(".") == 1 else f"=={version}")
        line = text.count("\n", 0, m.start()) + 1
        yield _Found(lowest_allowed(spec), Path(path), line, m.group("image"), "specifier", True)


def _style(name: str) -> str:
    """How :func:`checkout_installs` follows the folder a file's commands run in."""
    from ppo_migrate.project.import_roots import _dockerfile, _makefile, _reader

    reader = _reader(name)
    if reader is _dockerfile:
        return "dockerfile"
    if reader is _makefile or name in ("justfile", "Justfile", ".justfile"):
        return "lines"
    return "script"


def _kind(name: str, workflows: bool) -> str | None:
    """How a file named ``name`` is read for install commands, or None when it is not."""
    from ppo_migrate.project.import_roots import _reader

    if _reader(name) in _SCRIPT_READERS() or (workflows and name.endswith((".yml", ".yaml"))):
        return "text"
    if name in (".gitlab-ci.yml", ".gitlab-ci.yaml", "justfile", "Justfile", ".justfile"):
        return "text"
    if re.fullmatch(r"(?:docker-)?compose[\w.-]*\.ya?ml", name):
        return "text"
    if name in ("devcontainer.json", ".devcontainer.json"):
        return "devcontainer"
    if name == "noxfile.py":
        return "noxfile"
    if name.endswith(".py"):
        return "python"
    lower = name.lower()
    if lower.endswith(_SHELL_SUFFIXES):  # a shell's own extension, as ``.sh``
        return "text"
    if "." not in name or lower.endswith(_BATCH_SUFFIXES):
        return "maybe-script"
    return None


#: the other shells' script extensions, read as ``*.sh`` is (trial 26d, ``install.bash``)
_SHELL_SUFFIXES = (".bash", ".zsh", ".ksh")
#: batch-scheduler job files (Slurm's ``sbatch`` and PBS's ``qsub`` run them as scripts; Slurm
#: requires their first line to be a shebang): read when it names a shell (trial 26d)
_BATCH_SUFFIXES = (".sbatch", ".slurm", ".pbs", ".qsub", ".job")


def _shell_shebang(data: bytes) -> bool:
    """Whether ``data`` starts with a shell's shebang (``#!/bin/sh``, ``#!/usr/bin/env bash``)."""
    if not data.startswith(b"#!"):
        return False
    first = data.split(b"\n", 1)[0]
    return b"sh" in first and b"python" not in first


#: the devcontainer.json properties whose value is a command
_DEVCONTAINER_KEYS = (
    "initializeCommand", "onCreateCommand", "updateContentCommand", "postCreateCommand",
    "postStartCommand", "postAttachCommand",
)


def _line_of_text(text: str, needle: str) -> int:
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def _devcontainer_commands(text: str) -> Iterator[tuple[int, str]]:
    """``(line, shell command)`` of a ``devcontainer.json``'s lifecycle commands: a string,
    an array (one command, exec form) or an object of either (commands run in parallel)."""
    import json

    try:
        data = json.loads(text)
    except ValueError:
        try:  # JSON with comments (allowed there): drop whole-line ``//`` comments
            data = json.loads(re.sub(r"(?m)^\s*//.*$", "", text))
        except ValueError:
            return
    if not isinstance(data, dict):
        return
    for key in _DEVCONTAINER_KEYS:
        value = data.get(key)
        values = list(value.values()) if isinstance(value, dict) else [value]
        for one in values:
            if isinstance(one, list) and all(isinstance(w, str) for w in one):
                one = shlex.join(one)
            if isinstance(one, str):
                yield _line_of_text(text, f'"{key}"'), one.replace("\n", " ; ")


def _nox_commands(text: str) -> Iterator[tuple[int, str]]:
    """``(line, shell command)`` of a ``noxfile.py``'s installs: ``session.install(...)``
    (``pip install`` its arguments), ``session.run("pip", "install", ...)`` and
    ``session.run_install(...)``; an argument that is not a string literal is a
    ``$NOX_ARGUMENT`` (its release cannot be read when it names verl)."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        words: list[str] = []
        for arg in node.args:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                words.append(arg.value)
            elif isinstance(arg, ast.JoinedStr):
                words.append("".join(
                    v.value if isinstance(v, ast.Constant) else "${NOX_ARGUMENT}" for v in arg.values
                ))
            else:
                words.append("${NOX_ARGUMENT}")
        if node.func.attr == "install":
            yield node.lineno, "pip install " + " ".join(shlex.quote(w) if "$" not in w else f'"{w}"' for w in words)
        elif node.func.attr in ("run", "run_install", "run_always"):
            yield node.lineno, " ".join(shlex.quote(w) if "$" not in w else f'"{w}"' for w in words)


#: a file that names verl in any case (``verl==0.8.0``, ``CLUSTER_VERL``): the only Python
#: files parsed for install commands
_NAMES_VERL = lazy_pattern(rb"(?i)verl")
#: a command that runs something with packages it installs first: ``uv run --with X``, ``uvx
#: --with X tool``, ``uv tool run --with X``, ``pipx run --spec X``, ``pip-run X -- ...``
_RUN_WITH = lazy_pattern(
    r"(?:^|(?<=[\s;&|(`\"'\[]))(?:\S*/)?(?P<tool>uv[ \t]+run|uvx|uv[ \t]+tool[ \t]+run|pipx[ \t]+run|pip-run)"
    r"(?![\w-])[^\n;&|]*"
)


def _run_with_installs(text: str, commented: bool = False) -> str:
    """``text`` with each command that installs packages before it runs (:data:`_RUN_WITH`;
    trial 26f, ``h2_shebang_uv_run_with``: ``#!/usr/bin/env -S uv run --with verl==0.8.0
    python``) written as the ``pip install`` of those packages, on its own line; every other
    line empty (lines are kept). A commented line is skipped unless ``commented`` (a
    shebang's text, its ``#!`` dropped).

    Args:
        text (str): a shell-like text (a script, a Dockerfile, a workflow, a shebang line).
        commented (bool): read a command after a ``#`` too.

    Returns:
        The text of the installs, as :func:`_commands` reads them. Never raises.
    """
    lines = text.split("\n")
    out = [""] * len(lines)
    for number, line in enumerate(lines):
        for m in _RUN_WITH.finditer(line):
            if not commented and _COMMENTED.search(line[: m.start()]):
                continue
            body = m.group(0)[m.end("tool") - m.start() :]
            try:
                tokens = shlex.split(body)
            except ValueError:
                tokens = body.split()
            tool = re.sub(r"\s+", " ", m.group("tool"))
            packages: list[str] = []
            i = 0
            while i < len(tokens):
                token = tokens[i]
                i += 1
                if tool == "pip-run":  # ``pip-run verl==0.8.0 -- script.py``: the packages come first
                    if token == "--":
                        break
                    if not token.startswith("-"):
                        packages.append(token)
                    continue
                option, eq, value = token.partition("=")
                if option in ("--with", "-w", "--spec", "--with-editable"):
                    if not eq and i < len(tokens):
                        value = tokens[i]
                        i += 1
                    if value:
                        packages.append(value)
            if packages:
                out[number] += " ; pip install " + " ".join(shlex.quote(p) for p in packages)
    return "\n".join(out)


def inline_script_pins(text: str, path: Path) -> Iterator[_Found]:
    """The verl requirements of a script's inline metadata (PEP 723, "Inline script
    metadata": a ``# /// script`` block, TOML after each line's ``# ``, whose
    ``dependencies`` ``uv run``, ``pipx run`` and ``hatch run`` install for the script; trial
    26f, ``h2_pep723_inline_script``).

    The script runs with that environment: the project's code it imports runs there too,
    so its pins count as an install command's (they may lower the release).

    Args:
        text (str): the Python file's text.
        path (Path): the file.

    Yields:
        ``_Found`` per requirement naming verl, at its line. Never raises.
    """
    import tomllib

    lines = text.splitlines()
    for start, line in enumerate(lines):
        if line.rstrip() != "# /// script":
            continue
        body: list[str] = []
        for end in range(start + 1, len(lines)):
            if lines[end].rstrip() == "# ///":
                break
            if lines[end] != "#" and not lines[end].startswith("# "):
                return  # not a metadata block
            body.append(lines[end][2:])
        else:
            return
        try:
            dependencies = tomllib.loads("\n".join(body)).get("dependencies")
        except (tomllib.TOMLDecodeError, ValueError):
            return
        if not isinstance(dependencies, list):
            return
        for requirement in dependencies:
            if not isinstance(requirement, str):
                continue
            line_number = next(
                (start + 2 + k for k, b in enumerate(body) if requirement in b), start + 1
            )
            found = _from_requirement(requirement, path, line_number, lock_pins=True)
            if found is not None:
                yield found
        return


#: the functions (by their last name) whose string arguments are a command they run: ``os``'s,
#: ``subprocess``'s, invoke's and fabric's ``Context.run``/``sudo``/``local``, IPython's
#: ``system``/``run_line_magic``/``getoutput``
_RUNS_COMMANDS = frozenset(
    {
        "system", "popen", "run", "call", "check_call", "check_output", "Popen", "getoutput",
        "getstatusoutput", "sudo", "local", "run_line_magic", "spawnl", "spawnlp", "execl", "execlp",
    }
)
#: what a Python word that cannot be read stands for in a command (it names no package)
_UNREAD_WORD = "${PYTHON_ARGUMENT}"


def python_commands(path: str) -> list[tuple[int, str]]:
    """``(line, shell command)`` of the install commands a Python file runs (trial 26f,
    ``g2_tests_conftest_pip_install``: a session fixture's ``subprocess.check_call(
    [sys.executable, "-m", "pip", "install", CLUSTER_VERL])`` installs verl 0.8.0 where the
    tests run).

    Read with :mod:`ast` (the run's snapshot parses the file once), in any ``*.py`` file, the
    tests' included (their install commands run; only their other strings are a test's data,
    :mod:`ppo_migrate.project.mentions`):

    * a call with a list or tuple argument (``subprocess.run([...])``, ``check_call``,
      ``Popen``, ``os.execv(sys.executable, [...])``), or a name bound to one (``CMD =
      [...]``, ``run(CMD)``): its elements as one command's words;
    * a call of a function that runs a command (:data:`_RUNS_COMMANDS`: ``os.system``,
      ``subprocess.run``, invoke's and fabric's ``c.run``, IPython's ``run_line_magic``)
      whose arguments are all words: two or more are one command's words
      (``run_line_magic("pip", "install verl==0.8.0")``), one is a shell command
      (``os.system("pip install verl==0.8.0")``, ``subprocess.run("pip install ...",
      shell=True)``); ``print("pip install verl==0.8.0")`` is a message.

    A word is a string literal, a name bound once in the file to a string literal
    (``CLUSTER_VERL = "verl==0.8.0"``), ``sys.executable`` (``python``), an f-string (a
    hole that is such a name takes its value, ``V = "0.8.0"``, ``f"verl=={V}"``; any other
    hole cannot be read: ``verl=={v}`` is a verl whose release cannot be read), else an
    argument that cannot be read (it names no package). Only the commands that spell an
    install (:data:`_INSTALL`: ``pip install``, ``python -m pip install``, ``uv pip
    install``, ``conda install`` ...) are returned; what ``echo`` prints is not one.

    Args:
        path (str): the Python file.

    Returns:
        The commands in the order the tree is walked; ``[]`` when the file does not parse or
        is larger than :data:`ppo_migrate.constants.MAX_SOURCE_CHARS`. Never raises.
    """
    import ast

    from ppo_migrate.constants import MAX_SOURCE_CHARS

    try:
        if current().fs.stat(path).st_size > MAX_SOURCE_CHARS:
            return []  # the analysis refuses to parse it too (PPO902): a huge tree takes gigabytes
        tree = current().source(path).tree()
    except Exception:  # noqa: BLE001 - unreadable or not Python: it runs no command
        return []
    constants: dict[str, str | None] = {}
    sequences: dict[str, ast.List | ast.Tuple] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    value = node.value
                    text = value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None
                    # bound twice (or to something else): which value runs cannot be read
                    constants[target.id] = text if target.id not in constants or constants[target.id] == text else None
                    if isinstance(value, (ast.List, ast.Tuple)):  # ``CMD = [...]`` then ``run(CMD)``
                        sequences[target.id] = value

    def word(node: ast.expr) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name) and constants.get(node.id) is not None:
            return constants[node.id]
        if isinstance(node, ast.Attribute) and node.attr == "executable" and isinstance(node.value, ast.Name) and node.value.id == "sys":
            return "python"
        if isinstance(node, ast.JoinedStr):  # ``f"verl=={V}"``: a hole a bound name fills, plain
            return "".join(
                v.value if isinstance(v, ast.Constant) and isinstance(v.value, str)
                else constants[v.value.id]
                if isinstance(v, ast.FormattedValue) and v.conversion == -1 and v.format_spec is None
                and isinstance(v.value, ast.Name) and constants.get(v.value.id) is not None
                else _UNREAD_WORD
                for v in node.values
            )
        return None

    def joined(words: list[str | None]) -> str:
        return " ".join(
            _UNREAD_WORD if w is None else f'"{w}"' if "$" in w else shlex.quote(w) for w in words
        )

    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        commands: list[str] = []
        for arg in node.args:
            if isinstance(arg, ast.Name) and arg.id in sequences:
                arg = sequences[arg.id]
            if isinstance(arg, (ast.List, ast.Tuple)):
                commands.append(joined([word(e) for e in arg.elts]))
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        words = [word(arg) for arg in node.args]
        if commands or called not in _RUNS_COMMANDS:
            pass  # ``print("pip install verl==0.8.0")``: a message, not a command
        elif len(words) > 1 and all(w is not None for w in words):
            commands.append(" ".join(w for w in words if w is not None))  # the magic's line
        elif len(words) == 1 and words[0] is not None:
            commands.append(words[0].replace("\n", " ; "))
        found.extend((node.lineno, c) for c in commands if _INSTALL.search(c) is not None)
    return found


#: ``PIP_CONSTRAINT=file`` (a script's, a Dockerfile's ``ENV``, a workflow's ``env:``)
_PIP_CONSTRAINT = lazy_pattern(r"\bPIP_CONSTRAINTS?[ \t]*(?:=|:[ \t]|[ \t])[ \t]*[\"']?([^\s\"';&|]+)")


def _constraint_variables(text: str, path: str, root: str, everything: list[str], seen: set[Path]) -> Iterator[_Found]:
    """The pins of the constraint files a ``PIP_CONSTRAINT`` the file sets names: every
    ``pip install`` then runs within them."""
    for m in _PIP_CONSTRAINT.finditer(text):
        for value in m.group(1).split():
            for file in _requirement_files(value, path, root, everything):
                yield from _read_requirements(Path(file), seen)


def _workflow_matrix(text: str) -> dict[str, list[str]]:
    """``name -> values`` of the literal lists under the jobs' ``strategy: matrix:`` of a
    GitHub workflow (a name several jobs give: every value of any job, the lowest decides)."""
    import yaml

    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return {}
    jobs = data.get("jobs") if isinstance(data, dict) else None
    values: dict[str, list[str]] = {}
    if not isinstance(jobs, dict):
        return values
    for job in jobs.values():
        strategy = job.get("strategy") if isinstance(job, dict) else None
        matrix = strategy.get("matrix") if isinstance(strategy, dict) else None
        if not isinstance(matrix, dict):
            continue
        for name, listed in matrix.items():
            if isinstance(name, str) and isinstance(listed, list) and all(
                isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in listed
            ):
                values.setdefault(name, []).extend(str(v) for v in listed)
    return values


def _SCRIPT_READERS() -> tuple[object, ...]:  # the readers of import_roots
    from ppo_migrate.project import import_roots

    return (import_roots._dockerfile, import_roots._makefile, import_roots._shell)


#: ``RUN ["pip", "install", ...]``: a Dockerfile instruction in exec form (a JSON array)
_EXEC_FORM = lazy_pattern(r"^([ \t]*RUN[ \t]+)(\[.*\])[ \t]*$", re.MULTILINE | re.IGNORECASE)
#: an assignment a later command of the same file sees: ``ARG N=v``, ``ENV N=v``, ``ENV N v``,
#: ``export N=v``, ``N=v``, ``N ?= v``, ``N := v`` (a value quoted or a single word)
_ASSIGNMENT = lazy_pattern(
    r"^[ \t]*(?:(?:ARG|ENV|export|declare(?:[ \t]+-x)?|readonly)[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)"
    r"[ \t]*[:?+]?=[ \t]*(\"[^\"\n]*\"|'[^'\n]*'|[^\s;&|#]+)?[ \t]*(?:#.*)?$"
    r"|^[ \t]*ENV[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+(\"[^\"\n]*\"|'[^'\n]*'|[^\s#]+)[ \t]*$",
    re.MULTILINE,
)
#: ``$N``, ``${N}``, ``${N:-default}``, ``${N-default}``, ``$(N)`` (make)
_VARIABLE = lazy_pattern(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}|\(([A-Za-z_][A-Za-z0-9_]*)\)|([A-Za-z_][A-Za-z0-9_]*))")


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
    """The variables the file assigns before offset ``before`` (the last assignment wins).

    Each value is expanded with the values assigned before it, as the shell does
    (trial 26c): ``V="${V:-0.8.0}"`` is ``0.8.0``; a value naming a variable that has none
    (``ARG V=${V}``, ``W=$(shell ...)``) leaves the variable without a value, so a version
    written with it cannot be read (never the text of the template)."""
    values: dict[str, str] = {}
    for m in _ASSIGNMENT.finditer(text, 0, before):
        name, value = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        if value is None:
            continue
        value = value.strip("\"'")
        if "$" in value or "`" in value or "{{" in value:
            expanded = _expanded(value, values)
            if expanded is None:
                values.pop(name, None)
                continue
            value = expanded
        values[name] = value
    return values


#: a shell array's assignment: ``PKGS=(ray "verl==0.8.0")``, ``declare -a PKGS=(...)``,
#: ``PKGS+=(...)`` (its words may span lines)
_ARRAY = lazy_pattern(
    r"^[ \t]*(?:(?:declare|local|typeset|readonly)(?:[ \t]+-\w+)*[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)(\+?)=\(([^()]*)\)",
    re.MULTILINE,
)
#: ``${PKGS[@]}``, ``${PKGS[*]}``: every word of an array
_ARRAY_WORDS = lazy_pattern(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\[[@*]\]\}")


def _arrays(text: str, before: int) -> dict[str, list[str]]:
    """The shell arrays the file assigns before offset ``before``: ``name -> words``
    (``+=`` appends; comments dropped; a body that cannot be tokenised is split on white
    space)."""
    arrays: dict[str, list[str]] = {}
    for m in _ARRAY.finditer(text, 0, before):
        body = "\n".join(_COMMENTED.split(line, 1)[0] for line in m.group(3).split("\n"))
        try:
            words = shlex.split(body)
        except ValueError:
            words = [w.strip("\"'") for w in body.split()]
        arrays[m.group(1)] = (arrays.get(m.group(1), []) if m.group(2) else []) + words
    return arrays


def _spread(tokens: list[str], arrays: dict[str, list[str]]) -> list[str]:
    """``tokens`` with each ``${NAME[@]}`` of a known array replaced by its words."""
    out: list[str] = []
    for token in tokens:
        m = _ARRAY_WORDS.fullmatch(token)
        if m is not None and m.group(1) in arrays:
            out.extend(arrays[m.group(1)])
        else:
            out.append(token)
    return out


#: just's and Jinja's ``{{ name }}``
_TEMPLATE_VARIABLE = lazy_pattern(r"\{\{[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*\}\}")


def _expanded(token: str, values: dict[str, str]) -> str | None:
    """``token`` with its variables (``$V``, ``${V}``, ``${V:-d}``, ``$(V)``, just's
    ``{{v}}``) replaced by their values, or None when one has none or a substitution is left
    that cannot be evaluated (a command's output, an array, just's expression)."""
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

    def template(m: re.Match[str]) -> str:
        nonlocal missing
        if m.group(1) in values:
            return values[m.group(1)]
        missing = True
        return ""

    out = _TEMPLATE_VARIABLE.sub(template, _VARIABLE.sub(one, token))
    return None if missing or "`" in out or "$" in out or "{{" in out else out


def _commands(
    text: str,
    path: str,
    root: str,
    everything: list[str],
    seen: set[Path],
    matrix: dict[str, list[str]] | None = None,
) -> Iterator[_Found]:
    text = _exec_form_as_shell(text)
    # a continuation (``\`` at the end of a line) joins the next line; offsets are kept
    joined = re.sub(r"\\\r?\n", lambda m: " " * len(m.group(0)), text)
    here = Path(path)
    for m in _INSTALL.finditer(joined):
        before = joined[joined.rfind("\n", 0, m.start()) + 1 : m.start()]  # the line so far
        if _COMMENTED.search(before):
            continue  # ``# future: pip install 'verl>=0.9'``: a comment runs nothing
        if _PRINTS.search(_SEPARATOR.split(before)[-1]):
            continue  # ``echo "then: pip install verl>=0.9"``: printed, not run
        tool = "conda" if m.group("conda") else "poetry" if m.group("poetry") else "pip"
        line = text.count("\n", 0, m.start()) + 1
        end = _END.search(joined, m.end())
        body = joined[m.end() : end.start() if end else len(joined)]
        expressions: dict[str, str] = {}

        def hide(e: re.Match[str], expressions: dict[str, str] = expressions) -> str:  # ``${{ matrix.verl }}``: one word, read below
            name = f"GHA_EXPRESSION_{len(expressions)}"
            expressions[name] = e.group(1).strip()
            return "${" + name + "}"

        body = re.sub(r"\$\{\{(.*?)\}\}", hide, body)
        try:
            tokens = shlex.split(body)
        except ValueError:
            tokens = [t.strip("\"'") for t in body.split()]
        if "[" in body and "${" in body:  # ``pip install "${PKGS[@]}"``: the array's words
            tokens = _spread(tokens, _arrays(text, m.start()))
        i = 0
        while i < len(tokens):
            token = tokens[i]
            i += 1
            if token.startswith("-"):
                option, eq, value = token.partition("=")
                if not option.startswith("--") and len(option) > 2 and option[:2] in ("-r", "-c", "-e"):
                    option, value, eq = option[:2], token[2:], "="  # ``-rfile``
                with_value = _CONDA_WITH_VALUE if tool == "conda" else _WITH_VALUE
                if option not in _REQUIREMENT_OPTIONS and option not in _EDITABLE and option not in with_value:
                    continue  # a flag: --upgrade, -q, --no-deps ...
                if not eq:
                    if i >= len(tokens):
                        continue
                    value = tokens[i]
                    i += 1
                if tool == "conda" and option in with_value:
                    continue  # conda's -c is a channel, -p a prefix
                if option in _REQUIREMENT_OPTIONS and remote_file(value):
                    if option in ("-r", "--requirement"):  # trial 26e (K): a file pip fetches
                        yield _Found(None, here, line, f"{option} {value}", "direct-reference", True)
                    continue
                if option in _REQUIREMENT_OPTIONS:
                    files = _requirement_files(value, path, root, everything)
                    for file in files:
                        yield from _read_requirements(Path(file), seen)
                    if not files:  # written by the script itself: ``cat > req.txt <<EOF``
                        yield from _heredoc_requirements(text, value, here)
                elif option in _EDITABLE:
                    found = _from_reference(value, here, line, f"-e {value}")
                    if found is not None:
                        yield found
                continue
            for word in _matrix_values(token, expressions, matrix or {}):
                if word is None:
                    if _names_verl(token):  # a verl the workflow chooses: its release cannot be read
                        yield _Found(None, here, line, _shown(token, expressions), "direct-reference", True)
                    break
                written = word
                if "$" in word or "`" in word or "{{" in word:
                    expanded = _expanded(word, _assignments(text, m.start()))
                    if expanded is None:
                        if _names_verl(word):  # a verl the build chooses: its release cannot be read
                            yield _Found(None, here, line, word, "direct-reference", True)
                        continue
                    word = expanded
                found = _argument(tool, word, here, line)
                if found is None and _unread_verl(written):
                    # trial 26c: an install of verl the tool cannot read is never dropped
                    # (another file's ``verl>=0.9.0`` would then decide): its release
                    # cannot be read, which refuses the fix
                    found = _Found(None, here, line, written, "direct-reference", True)
                if found is not None:
                    redirect = _redirect(body, written)
                    yield found if redirect is None else found._replace(redirect=redirect)


def _redirect(body: str, word: str) -> str | None:
    """The file an unquoted ``>`` in the install argument ``word`` writes to, as the shell
    reads ``body`` (the command's text after ``install``), else ``None``.

    ``pip install verl>=0.9.0`` in a script is ``pip install verl`` with its output written
    to a file named ``=0.9.0`` (POSIX shell, "Redirecting Output": ``>`` is an operator
    wherever it is not quoted), so it installs an unpinned verl (trial 26e, W3). A word
    quoted in ``body`` (``"verl>=0.9.0"``, or written quoted by :func:`shlex.join` for an
    exec form or a noxfile) is not spelled bare there, so it gives ``None``.

    Args:
        body: the command's text after ``install`` (continuations already joined).
        word: one argument as :func:`shlex.split` read it.
    """
    if ">" not in word:
        return None
    if re.search(r"(?:^|(?<=\s))" + re.escape(word) + r"(?=\s|$)", body) is None:
        return None  # quoted (or escaped): the ``>`` is part of the word
    # ``>>`` appends to the same file; a later ``<`` is another redirect (from a file)
    return re.split(r"[<>]", word.split(">", 1)[1].lstrip(">"), maxsplit=1)[0].strip() or None


#: options of ``conda``/``mamba``/``micromamba install`` that take a value
_CONDA_WITH_VALUE = frozenset(
    {"-c", "--channel", "-n", "--name", "-p", "--prefix", "--file", "--repodata-fn", "--platform", "--subdir",
     "-r", "--root-prefix", "--solver", "--override-channels-for"}
)


def _argument(tool: str, word: str, here: Path, line: int) -> _Found | None:
    """The verl declaration of one install argument of ``tool`` (pip/uv, conda, poetry)."""
    if tool == "conda":
        from ppo_migrate.rules.pins import _conda

        m = re.fullmatch(r"(?:[\w.-]+::)?([A-Za-z0-9_.-]+)=(\d+(?:\.\d+)*)", word)
        if m is not None and _is_verl(m.group(1)):  # conda's single ``=``: that release
            return _Found(Version(m.group(2)), here, line, word, "lock", True)
        if not re.search(r"[=<>!~]", word) and " " not in word:  # a bare name
            return _conda(word, here, line)
        return _conda(word, here, line) or _from_requirement(word, here, line, lock_pins=True)
    if tool == "poetry":
        m = re.fullmatch(r"([A-Za-z0-9_.-]+(?:\[[^\]]*\])?)@(?!\s*(?:git\+|https?:|file:|/|\.))(.+)", word)
        if m is not None:
            name = re.sub(r"\[.*\]$", "", m.group(1))
            if not _is_verl(name):
                return None

            constraint = m.group(2).strip()
            if constraint in ("latest", "*"):
                return _Found(None, here, line, word, "specifier", False)
            if re.fullmatch(r"\d+(?:\.\d+)*", constraint):
                return _Found(Version(constraint), here, line, word, "lock", True)
            specifier = poetry_specifier(constraint)
            if specifier is None:
                return None
            return _Found(lowest_allowed(specifier), here, line, word, "specifier", True)
    found = _from_requirement(word, here, line, lock_pins=True)
    if found is None:
        found = _from_reference(word, here, line, word)
    return found


def _matrix_values(token: str, expressions: dict[str, str], matrix: dict[str, list[str]]) -> Iterator[str | None]:
    """``token`` once per combination of the values its workflow expressions take (a
    ``matrix.NAME`` with a literal list); ``None`` (once) when one cannot be read."""
    names = [n for n in expressions if "${" + n + "}" in token]
    if not names:
        yield token
        return
    choices: list[list[str]] = []
    for name in names:
        expression = expressions[name]
        m = re.fullmatch(r"matrix\.([A-Za-z_][\w-]*)", expression)
        listed = matrix.get(m.group(1)) if m else None
        if not listed:
            yield None
            return
        choices.append(listed)
    import itertools

    for combination in itertools.islice(itertools.product(*choices), 256):
        word = token
        for name, value in zip(names, combination):
            word = word.replace("${" + name + "}", value)
        yield word


def _shown(token: str, expressions: dict[str, str]) -> str:
    for name, expression in expressions.items():
        token = token.replace("${" + name + "}", "${{ " + expression + " }}")
    return token


def _names_verl(token: str) -> bool:
    """Whether an install argument with an unread variable names verl (``verl==$V``,
    ``verl[vllm]${SPEC}``, ``git+https://.../verl@${REF}``)."""
    head = re.split(r"[=<>!~\[;@ $]", token.strip("\"'"), maxsplit=1)[0]
    return head.lower() == "verl" or bool(re.search(r"[/@]verl(?:\.git)?(?:[@#/]|$)", token, re.IGNORECASE))


def _unread_verl(word: str) -> bool:
    """Whether an install argument the tool could not read installs verl: its name is verl
    (``verl=={{v}}``, ``verl==@V@``, ``verl>=$(shell ...)``), or it holds a variable and names
    verl as :func:`_names_verl` does. A path through a folder named ``verl``
    (``./tools/verl/plugin``) is another package."""
    head = re.split(r"[=<>!~\[;@ $]", word.strip("\"'"), maxsplit=1)[0]
    return head.lower() == "verl" or (any(c in word for c in "$`{") and _names_verl(word))


#: ``cat > FILE <<EOF`` / ``cat <<EOF > FILE`` / ``tee FILE <<EOF``: a file the script
#: writes from the lines up to the closing word
_HEREDOC = lazy_pattern(
    r"^[^\n]*?\b(?:cat|tee)\b(?P<before>[^\n<]*)<<-?[ \t]*(?P<q>['\"]?)(?P<word>\w+)(?P=q)(?P<after>[^\n]*)\n"
    r"(?P<body>.*?)^[ \t]*(?P=word)[ \t]*$",
    re.MULTILINE | re.DOTALL,
)


def _heredoc_requirements(text: str, value: str, here: Path) -> Iterator[_Found]:
    """The verl requirements of the here-documents of ``text`` written to the file a
    ``-r value`` reads (its path, or its last components), each at its line of the script."""
    wanted = value.replace("\\", "/").rstrip("/")
    for m in _HEREDOC.finditer(text):
        redirect = re.search(r"(?:>>?|\btee(?:[ \t]+-a)?)[ \t]*([^\s;&|<>]+)", m.group("before") + " " + m.group("after"))
        if redirect is None:
            continue
        target = redirect.group(1).strip("\"'")
        if not (target == wanted or target.endswith("/" + wanted.lstrip("./")) or wanted.endswith("/" + target.lstrip("./"))):
            continue
        first = text.count("\n", 0, m.start("body")) + 1
        for k, line in enumerate(m.group("body").splitlines()):
            found = _from_requirement(line.split("#", 1)[0].strip(), here, first + k, lock_pins=True)
            if found is not None:
                yield found


def _requirement_files(value: str, path: str, root: str, everything: list[str]) -> list[str]:
    """The repository's files a ``-r value`` of the command in ``path`` may read: ``value``
    against the file's folder and the root, else any file whose trailing components are it."""
    if not value or "$" in value:
        return []
    value = value.replace("\\", "/")
    if not os.path.isabs(value):
        for base in (os.path.dirname(path), root):
            candidate = os.path.normpath(os.path.join(base, value))
            if current().fs.is_file(candidate):  # stat-ed once a run
                return [candidate]
    tail = "/" + value.lstrip("/").removeprefix("./").lstrip("/")
    if tail == "/":
        return []
    return [f for f in everything if f.replace("\\", "/").endswith(tail)]


# -- verl's own install instructions: a checkout of verl, then ``pip install -e .`` in it ---------

#: ``git clone``'s options that take a value (the next word)
_CLONE_WITH_VALUE = frozenset({
    "-b", "--branch", "-o", "--origin", "-c", "--config", "--depth", "--reference", "--reference-if-able",
    "--filter", "-j", "--jobs", "--separate-git-dir", "--template", "-u", "--upload-pack",
    "--shallow-since", "--shallow-exclude", "--server-option", "--bundle-uri",
})
#: where one simple command of a shell line ends
_SIMPLE = re.compile(r"&&|\|\||[;|()`]|\$\(")


def checkout_installs(text: str, path: str, kind: str) -> Iterator[_Found]:
    """The installs of a verl checkout made by the same file (trial 26e, verl's own install
    instructions): ``git clone .../verl.git`` (``-b v0.8.0``), then ``cd verl``
    (a Dockerfile's ``WORKDIR /opt/verl``, ``git -C verl``), ``git checkout v0.8.0``, then
    ``pip install [-e] .`` (or the checkout's path, ``.[vllm]``, ``python setup.py
    install``) installs verl.

    Args:
        text: the file's text (a Dockerfile's exec form already written as shell).
        path: the file.
        kind: ``"dockerfile"`` (each ``RUN`` starts in the ``WORKDIR``), ``"lines"`` (each
            line its own shell: a Makefile's or justfile's recipe) or ``"script"`` (a ``cd``
            holds for the lines after it).

    Yields:
        One ``_Found`` per such install, at its line: a ``lock`` on the release the
        checkout's tag or branch spells (``v0.8.0``), else a ``direct-reference`` whose
        release cannot be read (a branch, a commit, no ref: the default branch). Folders are
        compared as written (``/opt/verl``, ``$HOME/verl``), relative ones joined to the
        folder the commands run in. Never raises.
    """
    yield from _checkout_walk(_command_lines(text, kind), path, {})


def _command_lines(text: str, kind: str) -> Iterator[tuple[int, str, str | None]]:
    """``(line, command text, folder to start in or None to go on)`` of a file's shell lines."""
    joined = re.sub(r"\\\r?\n", lambda m: " " * len(m.group(0)), text)
    workdir = "/"
    for number, line in enumerate(joined.split("\n"), 1):
        if _COMMENTED.match(line.lstrip()) or not line.strip():
            continue
        if kind == "dockerfile":
            instruction = re.match(r"[ \t]*(WORKDIR|RUN)[ \t]+(.*)$", line, re.IGNORECASE)
            if instruction is None:
                continue
            if instruction.group(1).upper() == "WORKDIR":
                workdir = posixpath.normpath(posixpath.join(workdir, instruction.group(2).strip().strip("\"'")))
                continue
            yield number, instruction.group(2), workdir
        else:
            yield number, line, "." if kind == "lines" else None


def _checkout_walk(
    lines: Iterable[tuple[int, str, str | None]], path: str, checkouts: dict[str, tuple[str | None, int]],
    cwd: str = ".",
) -> Iterator[_Found]:
    """:func:`checkout_installs` over ``lines``; ``checkouts`` (folder -> (ref, line)) is
    updated, so that a workflow's steps share their job's checkouts."""
    here = Path(path)
    for number, line, start in lines:
        if start is not None:
            cwd = start
        for command in _SIMPLE.split(line):
            try:
                words = shlex.split(command, comments=True)
            except ValueError:
                words = command.split()
            while words and (re.fullmatch(r"[A-Za-z_]\w*=\S*", words[0]) or words[0] in ("sudo", "env", "exec", "time", "@")):
                words = words[1:]
            if not words:
                continue
            head = words[0].lstrip("@")
            if head in ("cd", "pushd") and len(words) > 1 and not words[1].startswith("-"):
                cwd = posixpath.normpath(posixpath.join(cwd, words[1]))
            elif head == "git":
                cwd = _git(words[1:], cwd, checkouts, number)
            elif checkouts:
                found = _checkout_install(words, command, cwd, checkouts, here, number)
                if found is not None:
                    yield found


def _git(words: list[str], cwd: str, checkouts: dict[str, tuple[str | None, int]], line: int) -> str:
    """Follow one ``git`` command: a clone of verl adds a checkout, a ``checkout``/``switch``/
    ``reset --hard`` in one changes its ref; returns the folder the shell is in after it."""
    target = cwd
    while len(words) >= 2 and words[0] in ("-C", "-c"):
        if words[0] == "-C":
            target = posixpath.normpath(posixpath.join(cwd, words[1]))
        words = words[2:]
    if not words:
        return cwd
    sub, args = words[0], words[1:]
    if sub == "clone":
        ref, plain = None, []
        i = 0
        while i < len(args):
            word = args[i]
            i += 1
            option, eq, value = word.partition("=")
            if option in _CLONE_WITH_VALUE and not eq and i < len(args):
                value = args[i]
                i += 1
            if option in ("-b", "--branch"):
                ref = value
            elif not word.startswith("-"):
                plain.append(word)
        if not plain:
            return cwd
        name = re.sub(r"\.git$", "", plain[0].rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1])
        if _is_verl(name):
            folder = plain[1] if len(plain) > 1 else name
            checkouts[posixpath.normpath(posixpath.join(target, folder))] = (ref, line)
    elif sub in ("checkout", "switch", "reset") and target in checkouts:
        plain = [w for w in args if not w.startswith("-")]
        if sub in ("checkout", "switch") and any(w in ("-b", "-B", "-c", "-C") for w in args) and len(plain) > 1:
            plain = plain[1:]  # ``git checkout -b mine v0.8.0``: the start point
        if plain and plain[0] != "--":
            checkouts[target] = (re.sub(r"^(?:refs/)?tags/", "", plain[0]), checkouts[target][1])
    return cwd


def _checkout_install(
    words: list[str], command: str, cwd: str, checkouts: dict[str, tuple[str | None, int]], here: Path, line: int,
) -> _Found | None:
    """The install of a checkout of verl one command makes, or None."""
    m = _INSTALL.search(command)
    if m is not None and m.group("conda") is None and m.group("poetry") is None:
        try:
            args = shlex.split(command[m.end():], comments=True)
        except ValueError:
            args = command[m.end():].split()
        i = 0
        while i < len(args):
            word = args[i]
            i += 1
            if word in _EDITABLE:
                continue
            option = word.partition("=")[0]
            if word.startswith("-"):
                if option in _WITH_VALUE or option in _REQUIREMENT_OPTIONS:
                    i += "=" not in word
                continue
            folder = posixpath.normpath(posixpath.join(cwd, re.sub(r"\[[^\]]*\]$", "", word)))
            if folder in checkouts:
                return _checkout_found(folder, checkouts, f"{command[m.start():].strip()}", here, line)
        return None
    if "setup.py" in words and any(w in ("install", "develop") for w in words) and cwd in checkouts:
        return _checkout_found(cwd, checkouts, " ".join(words), here, line)
    return None


def _checkout_found(folder: str, checkouts: dict[str, tuple[str | None, int]], written: str, here: Path, line: int) -> _Found:
    """The install of the checkout in ``folder``: a ``lock`` on the release its ref spells,
    else a ``direct-reference`` whose release cannot be read; ``written`` says which."""
    ref, cloned = checkouts[folder]
    version = _tag(ref) if ref is not None else None
    shown = f"{written} (a checkout of verl at {ref}, line {cloned})" if ref else f"{written} (a checkout of verl, line {cloned})"
    return _Found(version, here, line, shown, "lock" if version is not None else "direct-reference", True)


def workflow_checkout_installs(text: str, path: str) -> Iterator[_Found]:
    """:func:`checkout_installs` for a GitHub workflow: per job, an ``actions/checkout``
    step of a repository named verl (``with: repository:``, ``ref:``, ``path:``) is a
    checkout, and each ``run:`` step runs in its ``working-directory`` (else the job's or
    the workflow's ``defaults: run: working-directory``, else the workspace)."""
    import yaml

    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return
    if not isinstance(data, dict) or not isinstance(data.get("jobs"), dict):
        return
    raw = text.split("\n")
    cursor = 0

    def first_line(run: str) -> int:
        """The file's line of ``run``'s first line, searched from the last one found."""
        nonlocal cursor
        head = next((r.strip() for r in run.split("\n") if r.strip()), "")
        for index in range(cursor, len(raw)):
            if head and head in raw[index]:
                cursor = index + 1
                return index + 1
        return 1

    default = _working_directory(data)
    for job in data["jobs"].values():
        if not isinstance(job, dict) or not isinstance(job.get("steps"), list):
            continue
        checkouts: dict[str, tuple[str | None, int]] = {}
        start = _working_directory(job) or default or "."
        for step in job["steps"]:
            if not isinstance(step, dict):
                continue
            uses, run = step.get("uses"), step.get("run")
            if isinstance(uses, str) and uses.startswith("actions/checkout"):
                given = step.get("with") if isinstance(step.get("with"), dict) else {}
                repository = str(given.get("repository") or "")
                if repository and _is_verl(repository.rstrip("/").rsplit("/", 1)[-1]):
                    ref = given.get("ref")
                    checkouts[posixpath.normpath(str(given.get("path") or "."))] = (
                        str(ref) if ref is not None else None, first_line(f"repository: {repository}"))
            elif isinstance(run, str) and checkouts:
                folder = step.get("working-directory")
                cwd = posixpath.normpath(str(folder)) if isinstance(folder, str) else start
                base = first_line(run) - 1
                lines = [(base + k + 1, line, None) for k, line in enumerate(run.split("\n"))]
                yield from _checkout_walk(lines, path, checkouts, cwd)


def _working_directory(table: dict) -> str | None:
    defaults = table.get("defaults")
    run = defaults.get("run") if isinstance(defaults, dict) else None
    folder = run.get("working-directory") if isinstance(run, dict) else None
    return posixpath.normpath(folder) if isinstance(folder, str) else None


#: ``scope -> the installs of a project``, one reading per repository per run
_PROJECT_INSTALLS: dict[str, tuple[tuple[str, int, bool], ...]] = {}
#: pip's (and uv's) options that install a package without its dependencies
_NO_DEPS = frozenset({"--no-deps", "--no-dependencies"})
#: ``COPY . /app``, ``ADD --chown=u . /app/``: where a Dockerfile puts its build context
_COPY_CONTEXT = lazy_pattern(r"^[ \t]*(?:COPY|ADD)[ \t]+(?:--\S+[ \t]+)*\.?/?[ \t]+(\S+)[ \t]*$", re.MULTILINE | re.IGNORECASE)
#: a folder argument that is the checkout itself: ``.``, ``./``, ``$PWD``, a workflow's workspace
_CHECKOUT = frozenset({".", "./", "$PWD", "${PWD}", "$GITHUB_WORKSPACE", "${GITHUB_WORKSPACE}", "${{ github.workspace }}"})


def project_installs(scope: str | os.PathLike[str]) -> tuple[tuple[str, int, bool], ...]:
    """Every install command of the repository at ``scope`` that installs a project of the
    repository itself (trial 26e, I: ``RUN pip install --no-deps -e .`` in an image that brings
    its own verl).

    Read in the same files as :func:`install_pins` (Dockerfiles, Makefiles, shell scripts,
    workflows, GitLab CI, justfiles, compose files, devcontainer.json), by the same commands
    (``pip install``, ``python -m pip install``, ``uv pip install``; not conda, ``uv add`` or
    ``poetry add``, which add to a declaration). An argument (or an ``-e`` value) installs the
    project when it is ``.``, ``./``, ``$PWD``, a workflow's workspace, or the folder a
    Dockerfile's ``COPY . <folder>`` (``ADD``) puts the build context in, each with or without
    extras (``.[dev]``). An install of a verl checkout (:func:`checkout_installs`: ``git clone
    .../verl && cd verl && pip install -e .``) is verl's, not the project's.

    Args:
        scope: the repository root.

    Returns:
        ``(file, line, no_deps)`` per install, in file order; ``no_deps`` when the command
        passes ``--no-deps``/``--no-dependencies`` (pip and uv: the project's own dependencies
        are then not installed). Kept for the process; never raises.
    """
    from ppo_migrate.project.import_roots import _read
    from ppo_migrate.project.tree import repository_listing

    root = os.path.abspath(os.fspath(scope))
    cached = _PROJECT_INSTALLS.get(root)
    if cached is not None:
        return cached
    found: list[tuple[str, int, bool]] = []
    try:
        listing = repository_listing(root)
    except Exception:  # noqa: BLE001 - an unreadable repository installs nothing
        _PROJECT_INSTALLS[root] = ()
        return ()
    for directory, names in listing.folders.items():
        workflows = directory.replace("\\", "/").endswith("/.github/workflows")
        for name in names:
            kind = _kind(name, workflows)
            if kind is None:
                continue
            path = os.path.join(directory, name)
            data = _read(path)
            if data is not None:
                data = utf8_text(data)
            if data is None or b"install" not in data or (kind == "maybe-script" and not _shell_shebang(data)):
                continue
            text = decode_text(data, "replace")
            if kind == "devcontainer":
                pieces = [("\n" * (line - 1) + command) for line, command in _devcontainer_commands(text)]
            elif kind == "noxfile":
                pieces = [("\n" * (line - 1) + command) for line, command in _nox_commands(text)]
            else:
                pieces = [text]
            verl_lines: set[int] = set()
            if kind == "text" and (b"clone" in data or b"actions/checkout" in data):
                verl_lines = {f.line for f in (
                    workflow_checkout_installs(text, path) if workflows
                    else checkout_installs(_exec_form_as_shell(text), path, _style(name))
                )}
            folders = set(_CHECKOUT) | {m.group(1).strip("\"'").rstrip("/") or "/" for m in _COPY_CONTEXT.finditer(text)}
            for piece in pieces:
                for line, no_deps in _installs_of(piece, folders):
                    if line not in verl_lines:
                        found.append((path, line, no_deps))
    result = _PROJECT_INSTALLS[root] = tuple(found)
    return result


def _installs_of(text: str, folders: set[str]) -> Iterator[tuple[int, bool]]:
    """``(line, no_deps)`` of each pip/uv install in ``text`` one of whose arguments is one of
    ``folders`` (with or without extras, a trailing ``/``): see :func:`project_installs`."""
    text = _exec_form_as_shell(text)
    joined = re.sub(r"\\\r?\n", lambda m: " " * len(m.group(0)), text)
    for m in _INSTALL.finditer(joined):
        if m.group("conda") or m.group("poetry") or not m.group(0).rstrip().endswith("install"):
            continue  # conda, ``poetry add``, ``uv add``: not an install of a folder
        before = joined[joined.rfind("\n", 0, m.start()) + 1 : m.start()]
        if _COMMENTED.search(before) or _PRINTS.search(_SEPARATOR.split(before)[-1]):
            continue
        end = _END.search(joined, m.end())
        body = joined[m.end() : end.start() if end else len(joined)]
        try:
            tokens = shlex.split(body)
        except ValueError:
            tokens = [t.strip("\"'") for t in body.split()]
        project, i = False, 0
        while i < len(tokens):
            token = tokens[i]
            i += 1
            if token.startswith("-"):
                option, eq, value = token.partition("=")
                if option in _EDITABLE or option.startswith("-e") and len(option) > 2:
                    value = token[2:] if not option.startswith("--") and len(option) > 2 else value
                    if not eq and not value and i < len(tokens):
                        value = tokens[i]
                        i += 1
                    project = project or _names_folder(value, folders)
                elif option in _WITH_VALUE or option in _REQUIREMENT_OPTIONS:
                    i += not eq
                continue
            project = project or _names_folder(token, folders)
        if project:
            yield text.count("\n", 0, m.start()) + 1, any(t.partition("=")[0] in _NO_DEPS for t in tokens)


def _names_folder(word: str, folders: set[str]) -> bool:
    """Whether the install argument ``word`` is one of ``folders`` (extras and a trailing
    ``/`` aside: ``.[dev]``, ``/app/``)."""
    bare = re.sub(r"\[[^\]]*\]$", "", word.strip())
    return bare in folders or (bare.rstrip("/") or "/") in folders


#: ``scope -> the image runs of code never installed``, one reading per repository per run
_UNINSTALLED_RUNS: dict[str, tuple[tuple[str, int, str], ...]] = {}
#: a Dockerfile's instruction that runs Python: ``CMD python train.py``, ``ENTRYPOINT
#: ["python3", "-m", "app"]``, ``RUN python prepare.py``, ``CMD torchrun ...`` (exec or shell
#: form; ``python -m pip`` is an install, not the project's code)
_RUNS_PYTHON = lazy_pattern(
    r"(?:^[ \t]*(?:CMD|ENTRYPOINT|RUN)[ \t]+(?:\[[ \t]*[\"']?)?|(?:&&|\|\||;)[ \t\\\n]*)"
    r"(?:env[ \t]+(?:\w+=\S*[ \t]+)*)?(?:\S*/)?"
    r"(?:python[\d.]*|torchrun|accelerate[\"', \t]+launch|deepspeed)[\"']?(?![\w.-])"
    r"(?![\"', \t]+-m[\"', \t]+pip\b)",
    re.MULTILINE | re.IGNORECASE,
)
#: installs of a project other than ``pip install .``/``-e .``: a resolver's sync of its lock,
#: setuptools' own install, a wheel the build made
_OTHER_PROJECT_INSTALL = lazy_pattern(
    r"\b(?:uv[ \t]+sync|poetry[ \t]+install|pdm[ \t]+(?:install|sync)|pipenv[ \t]+(?:install|sync)"
    r"|hatch[ \t]+(?:env[ \t]+create|run)|pixi[ \t]+(?:install|run)|conda[ \t]+env[ \t]+(?:create|update)"
    r"|mamba[ \t]+env[ \t]+(?:create|update)|micromamba[ \t]+(?:create|install)[^\n]*[ \t]-f\b"
    r"|setup\.py[ \t]+(?:install|develop)|\.whl\b)",
    re.IGNORECASE,
)
#: a Dockerfile's ``FROM`` and its image (``FROM --platform=... image AS stage``)
_FROM = lazy_pattern(r"^[ \t]*FROM[ \t]+(?:--\S+[ \t]+)*(\S+)", re.MULTILINE | re.IGNORECASE)


def uninstalled_runs(scope: str | os.PathLike[str]) -> tuple[tuple[str, int, str], ...]:
    """The Dockerfiles of the repository at ``scope`` that run the project's code in an image
    whose verl the tool cannot know, and never install the project (trial 26f,
    ``g3_dockerfile_never_installs_project``: ``FROM ghcr.io/mylab/rl-base:2025.03``, ``pip
    install -r requirements.txt`` without verl, ``COPY . /app``, ``CMD python train.py``; the
    verl that runs is the base image's, and ``pyproject.toml``'s ``verl>=0.9.0`` installs
    nothing there).

    A Dockerfile (``Dockerfile``, ``Containerfile``, ``Dockerfile.*``, ``*.Dockerfile``)
    counts when all hold:

    * a ``CMD``, ``ENTRYPOINT`` or ``RUN`` runs Python (``python``, ``python3``,
      ``torchrun``, ``accelerate launch``, ``deepspeed``; exec or shell form; ``python -m pip``
      is not the project's code);
    * it installs no verl the tool reads (:func:`install_pins`' commands of the file, a verl
      checkout's install, a ``FROM`` of verl's own image naming its release: those decide as
      before);
    * it never installs the project: no ``pip install .``/``-e .``/the folder ``COPY .``
      fills (:func:`project_installs`, ``--no-deps`` or not), no ``uv sync``, ``poetry
      install``, ``pdm install``, ``pipenv install``, ``hatch``/``pixi`` environment, ``conda
      env create``, ``setup.py install``/``develop``, wheel install, nor ``pip install <the
      project's name>`` (``[project] name`` of the folder's ``pyproject.toml``).

    Args:
        scope (str | os.PathLike[str]): the repository root.

    Returns:
        ``(Dockerfile, line of the first instruction running Python, the last FROM's
        image)`` per such Dockerfile, in walk order; kept for the process. Never raises.
    """
    from ppo_migrate.project.import_roots import _dockerfile, _read, _reader
    from ppo_migrate.project.tree import repository_listing

    root = os.path.abspath(os.fspath(scope))
    cached = _UNINSTALLED_RUNS.get(root)
    if cached is not None:
        return cached
    try:
        listing = repository_listing(root)
    except Exception:  # noqa: BLE001 - an unreadable repository runs nothing
        _UNINSTALLED_RUNS[root] = ()
        return ()
    everything = [os.path.join(d, n) for d, names in listing.folders.items() for n in names]
    installed = {path for path, _, _ in project_installs(root)}
    found: list[tuple[str, int, str]] = []
    for directory, names in listing.folders.items():
        for name in names:
            if _reader(name) is not _dockerfile:
                continue
            path = os.path.join(directory, name)
            if path in installed:
                continue
            data = _read(path)
            if data is None:
                continue
            text = decode_text(utf8_text(data), "replace")
            shell = _exec_form_as_shell(text)
            run = _RUNS_PYTHON.search(shell)
            images = _FROM.findall(text)
            if run is None or not images:
                continue
            if any(True for _ in _verl_images(text, path)) or any(True for _ in _commands(text, path, root, everything, set())):
                continue  # it installs (or its image states) a verl: that pin decides
            if "clone" in text and any(True for _ in checkout_installs(shell, path, "dockerfile")):
                continue
            if _OTHER_PROJECT_INSTALL.search(shell) is not None or _installs_by_name(shell, directory):
                continue
            found.append((path, shell.count("\n", 0, run.start()) + 1, images[-1]))
    result = _UNINSTALLED_RUNS[root] = tuple(found)
    return result


def _installs_by_name(text: str, directory: str) -> bool:
    """Whether ``text`` runs ``pip install <name>`` of the project whose ``pyproject.toml``
    is in ``directory`` (its ``[project] name`` or poetry's ``[tool.poetry] name``, PEP 503
    normalised, extras and specifiers allowed)."""
    import tomllib

    from ppo_migrate.project.import_roots import _read

    data = _read(os.path.join(directory, "pyproject.toml"))
    if data is None:
        return False
    try:
        table = tomllib.loads(decode_text(data, "replace"))
    except (tomllib.TOMLDecodeError, ValueError):
        return False
    names = {table.get("project", {}).get("name"), table.get("tool", {}).get("poetry", {}).get("name")}
    wanted = {re.sub(r"[-_.]+", "-", n).lower() for n in names if isinstance(n, str)}
    if not wanted:
        return False
    for m in _INSTALL.finditer(text):
        end = _END.search(text, m.end())
        for word in text[m.end() : end.start() if end else len(text)].split():
            bare = re.split(r"[\[<>=!~;@ ]", word.strip("\"'"), maxsplit=1)[0]
            if re.sub(r"[-_.]+", "-", bare).lower() in wanted:
                return True
    return False
