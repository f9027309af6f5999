"""Files of a repository that are no Python yet put a file in place of a module of an
installed package when the project runs (fresh user 43, B2 and B3).

A hotfix is often carried by the project's shell: a launch script or a CI step runs ``cp
hotfix/constants_ppo.py $SITE/verl/trainer/constants_ppo.py``, a Dockerfile ``COPY``s it
into the image's ``site-packages``, a Makefile target ``sed -i``s the installed file, or a
``.patch`` is applied with ``patch``/``git apply``; or a wheel kept in the repository
(``wheels/verl_hotfix-0.1-py3-none-any.whl``) installs its own
``verl/trainer/constants_ppo.py`` over verl's. :mod:`ppo_migrate.project.import_roots`
reads the Python forms (:func:`ppo_migrate.project.import_roots.module_writes`); this module
reads the others, as text (nothing is run, nothing extracted to disk), and reports them in
the same shape (:class:`ppo_migrate.project.import_roots.ModuleWrite`), for the judging to
read what was put there (:mod:`ppo_migrate.rules.signatures`).

Carriers read (:func:`module_carriers`): shell scripts (``*.sh``, ``*.bash``, and executable
files without an extension whose first line is a shell's ``#!``), Makefiles (``Makefile``,
``makefile``, ``GNUmakefile``, ``*.mk``), Dockerfiles (``Dockerfile``, ``Dockerfile.*``,
``*.Dockerfile``, ``Containerfile``: ``COPY``/``ADD`` and ``RUN``), YAML files (a CI
workflow's ``run:`` steps, a GitLab ``script:``: every line is read as shell) and
``tox.ini`` (``commands``), justfiles and PowerShell scripts (one command a line), and the
commands a Python file runs (``subprocess.run([...])``, nox's ``session.run(...)``,
``os.system(...)``: fresh user 45; parsed only when a quoted command word is in it). A file is read only when its bytes hold the module's last part
(``constants_ppo``) or, for a patch applied, ``patch``/``apply``.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from typing import NamedTuple

from ppo_migrate.files import decode_text
from ppo_migrate.project.import_roots import ModuleWrite, _read

#: shells a ``#!`` line may name for a script without an extension
_SHELLS = ("sh", "bash", "zsh", "dash", "ksh")
#: commands that copy their sources to their last operand
_COPIERS = frozenset({"cp", "install", "mv", "ln", "rsync", "Copy-Item", "copy-item", "Move-Item", "copy", "cpi"})
#: options of those that take a value (``install -m 644 SRC DST``)
_VALUED = frozenset({"-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix", "-Filter", "-Include", "-Exclude"})
#: words before the command that do not change it
_PREFIXES = frozenset({"sudo", "command", "exec", "env", "time", "nohup", "then", "do", "else", "!"})
#: what a command printing a module's file spells (``find_spec(...).origin``, ``m.__file__``)
_FILE_OF_WORDS = ("origin", "__file__", "getfile", "getsourcefile")
#: ``(root, respect_gitignore, module) -> writes``: one search a run
_CARRIED: dict[tuple[str, bool, str], tuple[ModuleWrite, ...]] = {}
#: ``(root, respect_gitignore) -> patch files``: one search a run
_PATCH_FILES: dict[tuple[str, bool], tuple[str, ...]] = {}
#: the header line of a unified diff's new file: ``+++ b/verl/trainer/constants_ppo.py``
_NEW_FILE = re.compile(r"^\+\+\+ (\S+)")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _carrier_kind(name: str) -> str | None:
    """``"shell"``, ``"make"``, ``"docker"``, ``"yaml"``, ``"tox"`` or ``None`` (an
    extensionless file is asked its ``#!`` line later: ``"maybe-shell"``)."""
    if name.endswith((".sh", ".bash")):
        return "shell"
    if name in ("Makefile", "makefile", "GNUmakefile") or name.endswith(".mk"):
        return "make"
    if name in ("Dockerfile", "Containerfile") or name.startswith("Dockerfile.") or name.endswith((".Dockerfile", ".dockerfile")):
        return "docker"
    if name.endswith((".yml", ".yaml")):
        return "yaml"
    if name == "tox.ini":
        return "tox"
    if name in ("justfile", "Justfile", ".justfile") or name.endswith((".just", ".ps1")):
        return "shell"  # a recipe's lines, PowerShell's commands: one command a line (fresh user 45)
    if name.endswith(".py"):
        return "python"
    if "." not in name:
        return "maybe-shell"
    return None


def _executable(path: str) -> bool:
    """Whether ``path`` has an execute bit (the run's stat, :attr:`ppo_migrate.project.snapshot.Snapshot.fs`)."""
    from ppo_migrate.project.snapshot import current

    try:
        return bool(current().fs.stat(path).st_mode & 0o111)
    except (OSError, ValueError):
        return False


def _shell_script(text: str) -> bool:
    first = text.split("\n", 1)[0]
    if not first.startswith("#!"):
        return False
    words = first[2:].split()
    if not words:
        return False
    program = os.path.basename(words[0])
    if program == "env" and len(words) > 1:
        program = os.path.basename(next((w for w in words[1:] if not w.startswith("-")), ""))
    return program in _SHELLS


def _logical_lines(text: str, kind: str) -> list[tuple[int, str]]:
    """``(1-based line, text)`` of each logical line, ``\\``-continued lines joined; comments
    of shell-like files dropped."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if not pending:
            start = number
            if line.lstrip().startswith("#"):
                continue
        if line.endswith("\\"):
            pending.append(line[:-1])
            continue
        pending.append(line)
        out.append((start, " ".join(pending)))
        pending = []
    if pending:
        out.append((start, " ".join(pending)))
    return out


def _substitution_end(text: str, i: int) -> int:
    """The offset after the ``$(...)`` starting at ``i`` (nested parentheses and quotes
    inside it followed), or the end of the text."""
    depth = 0
    quote = ""
    while i < len(text):
        c = text[i]
        if quote:
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"':
                i += 1
        elif c in "'\"":
            quote = c
        elif c == "\\":
            i += 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(text)


def _split(text: str) -> list[list[str]]:
    """The simple commands of a shell line, each as its words with quotes removed: split on
    unquoted ``&&``, ``||``, ``;``, ``|`` and ``&``; a ``$(...)`` (quoted or not) and a
    backquoted command are kept whole in their word; an unquoted ``#`` starting a word ends
    the line; a redirection is its own word (``>``, ``>>``, ``<``, then the target)."""
    commands: list[list[str]] = []
    words: list[str] = []
    word: list[str] = []
    quote = ""
    started = False
    i = 0

    def end_word() -> None:
        nonlocal started
        if started:
            words.append("".join(word))
        word.clear()
        started = False

    while i < len(text):
        c = text[i]
        if text.startswith("$(", i) and quote != "'":
            end = _substitution_end(text, i + 1)
            word.append("$(" + text[i + 2:end])
            started = True
            i = end
            continue
        if c == "`" and quote != "'":
            end = text.find("`", i + 1)
            end = len(text) if end < 0 else end + 1
            word.append(text[i:end])
            started = True
            i = end
            continue
        if quote:
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"' and i + 1 < len(text):
                i += 1
                word.append(text[i])
            else:
                word.append(c)
            i += 1
            continue
        if c in "'\"":
            quote = c
            started = True
        elif c == "\\" and i + 1 < len(text):
            i += 1
            word.append(text[i])
            started = True
        elif c.isspace():
            end_word()
        elif c == "#" and not started:
            break
        elif c in ";&|":
            end_word()
            if words:
                commands.append(words)
            words = []
            while i + 1 < len(text) and text[i + 1] in ";&|":
                i += 1
        elif c in "<>":
            if started and "".join(word).isdigit():  # ``2>``: the descriptor belongs to the operator
                word.clear()
                started = False
            end_word()
            op = c
            while i + 1 < len(text) and text[i + 1] in "<>&|":
                i += 1
                op += text[i]
            words.append(op)
        else:
            word.append(c)
            started = True
        i += 1
    end_word()
    if words:
        commands.append(words)
    return commands


class _Target:
    """What a destination must look like for ``module``: its path (``verl/trainer/constants_ppo.py``),
    the package folder holding it (``verl/trainer``) and the file name."""

    def __init__(self, module: str) -> None:
        parts = module.split(".")
        self.top = parts[0]
        self.file_name = parts[-1] + ".py"
        self.path = "/".join(parts) + ".py"
        self.below = "/".join(parts[1:]) + ".py"  # ``trainer/constants_ppo.py``
        self.folder = "/".join(parts[:-1])
        self.module = module

    def names_file(self, word: str) -> bool:
        """``word`` is the module's file: it ends with ``verl/trainer/constants_ppo.py``, or
        with ``/trainer/constants_ppo.py`` after something naming ``verl`` (``$(python -c
        "import verl...")/trainer/constants_ppo.py``)."""
        w = word.replace("\\", "/")
        if w == self.path or w.endswith("/" + self.path) or w.endswith("}" + self.path):
            return True
        if w.startswith(("$(", "`")) and self.module in w and any(k in w for k in _FILE_OF_WORDS):
            # ``$(python -c '... find_spec("verl.trainer.constants_ppo").origin)')`` (trial 26j, h24)
            return True
        # ``$VERL_DIR/trainer/...``: a variable named for the package (trial 26j, h03); any
        # variable or installed folder before ``trainer/constants_ppo.py`` (fresh user 45, B5:
        # ``$SITE/trainer/...`` with ``SITE`` verl's folder, set outside the repository)
        head = w[: -len(self.below)]
        return w.endswith("/" + self.below) and (self.top in head.lower() or _over(head))

    def names_folder(self, word: str) -> bool:
        """``word`` is the module's package folder (``.../verl/trainer``, ``.../verl/trainer/``)."""
        w = word.replace("\\", "/").rstrip("/")
        return w == self.folder or w.endswith("/" + self.folder)


def _over(word: str) -> bool:
    """A destination that is no path relative to the working folder (``$SITE/verl/...``,
    ``/usr/.../site-packages/verl/...``, ``{envsitepackagesdir}/verl/...``, a path a command
    prints): the installed module, not a copy the launcher made beside the project."""
    return word.startswith(("/", "$", "{", "~", "`")) or any(s in word for s in ("site-packages", "dist-packages"))


def _patch_named(word: str, carrier: str, root: str, patches: tuple[str, ...]) -> list[str]:
    """The repository's patch files ``word`` names: a file found (:func:`_found`), a glob
    matched against ``patches``, or a path led by a variable (``$OLDPWD/patches/x.patch``)
    matched by the components after it."""
    if any(c in word for c in "*?["):
        relative = word.lstrip("./")
        return [p for p in patches if fnmatch.fnmatch(os.path.relpath(p, root), relative) or fnmatch.fnmatch(p, word)]
    hit = _found(word, carrier, root)
    if hit is not None:
        return [hit]
    if "$" in word or "}" in word:
        tail = re.split(r"[$})`]", word)[-1].lstrip("/")
        tail = tail.split("/", 1)[1] if tail.startswith(("{", "(")) else tail
        if tail:
            return [p for p in patches if p.replace(os.sep, "/").endswith("/" + tail)]
    return []


def _found(word: str, carrier: str, root: str) -> str | None:
    """The file of the repository ``word`` names (relative to the carrier's folder or the
    root; a container's absolute path matched by its tail), else ``None``."""
    if not word or "$" in word or "`" in word or "*" in word:
        return None
    bases = (word,) if os.path.isabs(word) else (os.path.dirname(carrier), root)
    for base in bases:
        candidate = os.path.normpath(os.path.join(base, word))
        if os.path.isfile(candidate):
            return candidate
    return None


#: how many folders a copied folder is searched through for the module's file
_MAX_COPIED_FOLDERS = 200


def _folder_writes(
    sources: list[str], dst: str, target: _Target, carrier: str, root: str, line: int, form: str
) -> list[ModuleWrite]:
    """The module's files a copy of whole folders puts in place (``cp -r hotfix/verl "$SITE"/``,
    ``COPY overlay/ /usr/.../site-packages/``, ``rsync -a patches/ "$SITE/verl/trainer/"``):
    for each source that is a folder of the repository, each file named as the module's below
    it (within :data:`_MAX_COPIED_FOLDERS` folders) lands at ``dst/<path below the source>``
    (``cp -r S/. D``, ``COPY S D``) or ``dst/<S's name>/<path below>`` (``cp -r S D``): one of
    them spelling the module's path is a write of that file."""
    from ppo_migrate.project.snapshot import current

    fs = current().fs
    out: list[ModuleWrite] = []
    for source in sources:
        if not source or "$" in source or "`" in source or "*" in source:
            continue
        bases = (source,) if os.path.isabs(source) else (os.path.dirname(carrier), root)
        folder = next(
            (os.path.normpath(os.path.join(b, source)) for b in bases if fs.is_dir(os.path.normpath(os.path.join(b, source)))),
            None,
        )
        if folder is None or not (folder + os.sep).startswith(root.rstrip(os.sep) + os.sep) and folder != root:
            continue
        name = os.path.basename(folder)
        for count, (here, dirs, files) in enumerate(fs.walk(folder)):
            if count >= _MAX_COPIED_FOLDERS:
                break
            dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
            if target.file_name not in files:
                continue
            below = os.path.relpath(os.path.join(here, target.file_name), folder).replace(os.sep, "/")
            landing = (f"{dst.rstrip('/')}/{below}", f"{dst.rstrip('/')}/{name}/{below}")
            if any(target.names_file(x) for x in landing):
                out.append(ModuleWrite(carrier, line, form, os.path.join(here, target.file_name), _over(dst)))
    return out


def _operands(words: list[str]) -> list[str]:
    """The operands of a copying command (options and their values left out)."""
    out: list[str] = []
    skip = False
    for w in words[1:]:
        if skip:
            skip = False
            continue
        if w in _VALUED:
            skip = True
            continue
        if w.startswith("-") and len(w) > 1:
            continue
        out.append(w)
    return out


def _command(words: list[str]) -> list[str]:
    """``words`` without the prefixes that do not change the command (``sudo``, ``env A=b``)."""
    i = 0
    while i < len(words) and (words[i] in _PREFIXES or (("=" in words[i]) and not words[i].startswith("-") and i < len(words) - 1
                                                     and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[i]))):
        i += 1
    return words[i:]


def _writes_of(words: list[str], target: _Target, carrier: str, root: str, line: int) -> list[ModuleWrite]:
    """The writes of one simple shell command (see :func:`module_carriers`)."""
    out: list[ModuleWrite] = []
    # a redirection onto the file: ``cat fix.py > $SITE/verl/trainer/constants_ppo.py``
    for i, w in enumerate(words[:-1]):
        if w in (">", ">>", ">|", "&>") and target.names_file(words[i + 1]):
            dst = words[i + 1]
            src = None
            if words and words[0] == "cat" and i == 2:
                src = _found(words[1], carrier, root)
            out.append(ModuleWrite(carrier, line, "a redirection", src, _over(dst)))
    words = [w for i, w in enumerate(words) if not (w in (">", ">>", "<", ">|", "&>", "2>") or (i and words[i - 1] in (">", ">>", "<", ">|", "&>", "2>")))]
    words = _command(words)
    if not words:
        return out
    program = os.path.basename(words[0])
    if program in _COPIERS:
        operands = _operands(words)
        directory = next((words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-t", "--target-directory")), None)
        if directory is not None:
            sources, dst = operands, directory
        elif len(operands) >= 2:
            sources, dst = operands[:-1], operands[-1]
        else:
            return out
        if program == "mv" and len(sources) == 1 and target.names_file(sources[0]):
            return out  # moving the module away: nothing put there
        if target.names_file(dst):
            src = _found(sources[-1], carrier, root) if len(sources) == 1 else None
            out.append(ModuleWrite(carrier, line, program, src, _over(dst)))
        elif target.names_folder(dst) and any(os.path.basename(s.rstrip("/")) == target.file_name for s in sources):
            for s in sources:
                if os.path.basename(s.rstrip("/")) == target.file_name:
                    out.append(ModuleWrite(carrier, line, program, _found(s, carrier, root), _over(dst)))
        elif program in ("cp", "rsync") and target.top in dst or target.names_folder(dst):
            out += _folder_writes(sources, dst, target, carrier, root, line, program)  # a folder copied whole
    elif program == "sed" and any(w == "-i" or w.startswith(("-i", "--in-place")) for w in words[1:]) \
            or program == "perl" and any(w.startswith("-") and "i" in w and not w.startswith("--") for w in words[1:]):
        if any(target.names_file(w) for w in words[1:]):
            out.append(ModuleWrite(carrier, line, f"{program} -i", None, True, "edit"))
    elif program == "tee" or program == "dd" or program in ("curl", "wget"):
        for i, w in enumerate(words[1:], 1):
            value = w.split("=", 1)[1] if w.startswith(("of=", "--output=", "--output-document=")) else w
            if target.names_file(value) and (program == "tee" or "=" in w or words[i - 1] in ("-o", "-O", "--output")):
                out.append(ModuleWrite(carrier, line, program, None, _over(value)))
    return out


def _docker_writes(words: list[str], target: _Target, carrier: str, root: str, line: int) -> list[ModuleWrite]:
    """``COPY``/``ADD`` (options, the JSON form) onto the module's file or folder."""
    instruction = words[0].upper()
    rest = " ".join(words[1:]).strip()
    if rest.startswith("["):
        try:
            operands = [str(x) for x in json.loads(rest)]
        except ValueError:
            return []
        stage = False
    else:
        stage = any(w.startswith("--from") for w in words[1:])
        operands = [w for w in words[1:] if not w.startswith("--")]
    if len(operands) < 2:
        return []
    sources, dst = operands[:-1], operands[-1]
    form = instruction
    if target.names_file(dst):
        src = None if stage or len(sources) != 1 else _found(sources[0], carrier, root)
        return [ModuleWrite(carrier, line, form, src, True)]
    named = [s for s in sources if os.path.basename(s.rstrip("/")) == target.file_name]
    if target.names_folder(dst) and named:
        return [ModuleWrite(carrier, line, form, None if stage else _found(s, carrier, root), True) for s in named]
    if not stage and (target.top in dst or "site-packages" in dst or "dist-packages" in dst):
        return _folder_writes(sources, dst, target, carrier, root, line, form)  # ``COPY overlay/ .../site-packages/``
    return []


def _patch_applied(words: list[str], redirected: list[str]) -> list[str] | None:
    """The patch files a ``patch``/``git apply``/``git am`` command applies (its words
    naming a ``.patch``/``.diff`` file, ``-i FILE``, ``< FILE``), ``[]`` when it names none the
    tool can tell, ``None`` when it applies no patch."""
    words = _command(words)
    if not words:
        return None
    program = os.path.basename(words[0])
    if program == "patch":
        named = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-i", "--input")]
        named += [w.split("=", 1)[1] for w in words if w.startswith("--input=")]
        named += [w for w in words[1:] if w.endswith((".patch", ".diff")) and not w.startswith("-")]
        return list(dict.fromkeys(named + redirected))
    if program == "git" and len(words) > 1 and words[1] in ("apply", "am"):
        return [w for w in words[2:] if not w.startswith("-")]
    return None


def patch_files(root: str | os.PathLike[str], respect_gitignore: bool = True) -> tuple[str, ...]:
    """The ``.patch``/``.diff`` files of the repository (absolute, walk order)."""
    from ppo_migrate.project.tree import repository_listing

    root = os.path.abspath(os.fspath(root))
    key = (root, bool(respect_gitignore))
    if key not in _PATCH_FILES:
        listing = repository_listing(root, respect_gitignore)
        _PATCH_FILES[key] = tuple(listing.files(lambda n: n.endswith((".patch", ".diff"))))
    return _PATCH_FILES[key]


class PatchLine(NamedTuple):
    """A line a patch adds or removes in a file.

    Attributes:
        line: 1-based line in the patch file.
        sign: ``"+"`` or ``"-"``.
        text: the line without its sign.
    """

    line: int
    sign: str
    text: str


def patch_changes(path: str, module: str) -> list[PatchLine] | None:
    """The lines the unified diff ``path`` adds to and removes from ``module``'s file (a
    section whose ``+++`` header ends with ``trainer/constants_ppo.py``, ``a/``/``b/``
    prefixes or none: ``patch -p1``, ``-p0`` and ``-d site/verl`` read it so; or is the bare
    ``constants_ppo.py``, as ``patch <file> fix.diff`` reads it: trial 26j, h18), in order;
    ``None`` when the patch names no such file (or cannot be read). Hunks are read by their
    ``@@ -a,b +c,d @@`` counts, so an added line starting ``++`` is no header.

    Args:
        path: the patch file (absolute).
        module: the dotted module, e.g. ``"verl.trainer.constants_ppo"``.
    """
    data = _read(path)
    if data is None:
        return None
    below = "/".join(module.split(".")[1:]) + ".py"
    file_name = module.rsplit(".", 1)[-1] + ".py"
    # ``patch -N <the module's file> fix.diff`` reads a diff of the bare file (trial 26j, h18)
    bare = {file_name, f"a/{file_name}", f"b/{file_name}"}
    changes: list[PatchLine] | None = None
    inside = False
    old = new = 0  # lines left in the current hunk
    for number, text in enumerate(decode_text(data, errors="replace").splitlines(), 1):
        if old > 0 or new > 0:
            sign = text[:1]
            if sign == "\\":
                continue
            if sign == "+":
                new -= 1
            elif sign == "-":
                old -= 1
            else:
                old, new = old - 1, new - 1
            if inside and sign in ("+", "-") and changes is not None:
                changes.append(PatchLine(number, sign, text[1:]))
            continue
        m = _NEW_FILE.match(text)
        if m:
            name = m.group(1).replace("\\", "/")
            inside = name == below or name.endswith("/" + below) or name in bare
            if inside and changes is None:
                changes = []
            continue
        h = _HUNK.match(text)
        if h:
            old = int(h.group(2)) if h.group(2) is not None else 1
            new = int(h.group(4)) if h.group(4) is not None else 1
    return changes


def module_carriers(
    root: str | os.PathLike[str], module: str, respect_gitignore: bool = True
) -> tuple[ModuleWrite, ...]:
    """The lines of the repository's shell-like files that put something in place of
    ``module``'s file (fresh user 43, B2), as :class:`ppo_migrate.project.import_roots.ModuleWrite`:

    * ``cp``/``install``/``mv``/``ln``/``rsync`` (after ``sudo``, ``env X=y``), a Dockerfile's
      ``COPY``/``ADD`` (``--from`` a stage: the source is not the repository's), a redirection
      (``cat fix.py > ...``), ``tee``, ``dd of=``, ``curl -o``/``wget -O``, whose destination
      ends with ``verl/trainer/constants_ppo.py`` (or is ``.../verl/trainer/`` and a source is
      named ``constants_ppo.py``): ``copied`` is the source when it is a file of the repository;
      ``kind`` ``"write"``;
    * ``sed -i``/``perl -pi`` of that file: ``kind`` ``"edit"``, its effect is not read;
    * ``patch``/``git apply``/``git am`` of a ``.patch``/``.diff`` file that changes the
      module (:func:`patch_changes`; a glob is matched against the repository's patch files):
      ``kind`` ``"patch"``, ``copied`` the patch file; an applied patch the tool cannot find,
      on a line naming the package (``patch -d $SITE/verl < $FIX``): ``copied`` ``None``.

    Not searched: folders of test doubles and what the walk does not enter
    (:func:`ppo_migrate.project.tree.repository_listing`).

    Args:
        root: the repository root.
        module: the dotted module, e.g. ``"verl.trainer.constants_ppo"``.
        respect_gitignore: the run's ``respect-gitignore``.

    Returns:
        The writes, by file in walk order then line. Never raises.
    """
    from ppo_migrate.project.tree import in_doubles_folder, repository_listing

    root = os.path.abspath(os.fspath(root))
    key = (root, bool(respect_gitignore), module)
    cached = _CARRIED.get(key)
    if cached is not None:
        return cached
    if module.count(".") < 1:
        _CARRIED[key] = ()
        return ()
    target = _Target(module)
    listing = repository_listing(root, respect_gitignore)
    word = module.rsplit(".", 1)[-1].encode()
    patches = patch_files(root, respect_gitignore)
    touching = {p for p in patches if patch_changes(p, module) is not None}
    found: list[ModuleWrite] = []
    for path in listing.files(lambda n: _carrier_kind(n) is not None):
        kind = _carrier_kind(os.path.basename(path))
        if in_doubles_folder(path, root):
            continue
        if kind == "maybe-shell" and not _executable(path):
            continue  # a script run by its ``#!`` is executable (git keeps the bit): LICENSE is read no more
        data = _read(path)
        if data is None or (word not in data and not (touching and (b"patch" in data or b"apply" in data or b" am" in data))):
            continue
        if kind == "python":
            if _RUNS_A_COMMAND.search(data):  # a quoted command word: few files parse here
                found.extend(_python_commands(path, root, target))
            continue
        text = decode_text(data, errors="replace")
        if kind == "maybe-shell":
            if not _shell_script(text):
                continue
            kind = "shell"
        found.extend(_carried_in(text, kind or "shell", path, root, target, module, patches))
    result = _CARRIED[key] = tuple(found)
    return result


#: ``NAME=value`` (shell), ``NAME := value`` / ``NAME ?= value`` / ``NAME = value`` (make),
#: ``ENV NAME=value`` / ``ARG NAME=value`` (Dockerfile), ``NAME: value`` (YAML ``env:``)
_ASSIGNMENT = re.compile(r"^\s*(?:export\s+|ENV\s+|ARG\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*(?::?=|\?=|:\s)\s*(.*)$")


def _expanded(word: str, values: dict[str, str]) -> str:
    """``word`` with ``$NAME``, ``${NAME}`` and ``$(NAME)`` of ``values`` replaced by their
    text (one level), for matching a destination only (``VERL_DIR=$(python -c "import verl
    ...")`` then ``"$VERL_DIR/trainer/constants_ppo.py"``)."""
    if "$" not in word:
        return word

    def value(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2) or m.group(3)
        return values.get(name, m.group(0))

    return re.sub(r"\$\{([A-Za-z_]\w*)\}|\$\(([A-Za-z_]\w*)\)|\$([A-Za-z_]\w*)", value, word)


def _carried_in(text: str, kind: str, path: str, root: str, target: _Target, module: str,
                patches: tuple[str, ...]) -> list[ModuleWrite]:
    found: list[ModuleWrite] = []
    values: dict[str, str] = {}
    for _, logical in _logical_lines(text, kind):
        m = _ASSIGNMENT.match(logical)
        if m is not None:
            words = _split(m.group(2))
            values.setdefault(m.group(1), " ".join(words[0]) if len(words) == 1 else m.group(2).strip())
    for line, logical in _logical_lines(text, kind):
        body = logical.strip()
        if kind == "make":
            body = body.lstrip("@-+").strip()
        elif kind == "yaml":
            body = re.sub(r"^(?:-\s+)?(?:[A-Za-z_][\w-]*\s*:\s*(?:[|>][-+]?)?)?\s*", "", body, count=1)
            body = body.lstrip("- ").strip()
        elif kind == "tox":
            body = re.sub(r"^(?:commands(?:_pre|_post)?\s*=)\s*", "", body)
        if kind == "docker":
            words = body.split()
            if not words:
                continue
            head = words[0].upper()
            if head in ("COPY", "ADD"):
                found.extend(_docker_writes(words, target, path, root, line))
                continue
            if head != "RUN":
                continue
            body = body[len(words[0]):].strip()
        for words in _split(body):
            words = [_expanded(w, values) for w in words] if values else words
            found.extend(_writes_of(words, target, path, root, line))
            redirected = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "<"]
            applied = _patch_applied([w for i, w in enumerate(words) if w != "<" and not (i and words[i - 1] == "<")], redirected)
            if applied is None:
                continue
            files: list[str] = []
            for name in applied:
                files += _patch_named(name, path, root, patches)
            relevant = [p for p in files if patch_changes(p, module) is not None]
            program = _command(words)
            form = "patch" if os.path.basename(program[0]) == "patch" else f"git {program[1]}"
            for p in relevant:
                found.append(ModuleWrite(path, line, form, p, True, "patch"))
            if not files and target.top in body:
                found.append(ModuleWrite(path, line, form, None, True, "patch"))
    return found


#: a Python file's quoted command word that copies, edits or patches: only such files are parsed
_RUNS_A_COMMAND = re.compile(rb"""["'](?:cp|install|mv|ln|rsync|sed|perl|tee|dd|curl|wget|patch|git|cat)\b""")

#: the calls of a Python file that run a command: ``subprocess.run([...])`` (and ``call``,
#: ``check_call``, ``check_output``, ``Popen``), nox's ``session.run(*argv)``, ``os.system(str)``
_RUNNERS = frozenset({"run", "call", "check_call", "check_output", "Popen", "system", "run_always", "run_install"})


def _python_commands(path: str, root: str, target: _Target) -> list[ModuleWrite]:
    """The writes of the commands a Python file runs (fresh user 45, B1 and B3): an argument
    vector (``subprocess.run(["cp", src, dst])``, nox's ``session.run("cp", src, dst)``) or a
    command line (``os.system("cp a b")``, ``subprocess.run("...", shell=True)``) read as one
    shell command; an expression the tool does not evaluate (``os.environ["SP"] + "/verl/..."``)
    is a ``$`` word, so a destination led by it is the installed module (:func:`_over`)."""
    import ast

    from ppo_migrate.project.snapshot import current

    try:
        tree = current().source(path).tree()  # the run's one parse of the file
    except Exception:  # noqa: BLE001 -- unreadable or not Python as written: it runs nothing
        return []
    out: list[ModuleWrite] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name not in _RUNNERS:
            continue
        first = node.args[0]
        if isinstance(first, (ast.List, ast.Tuple)):
            argv = [_word(e) for e in first.elts]
        elif isinstance(first, ast.Constant) and isinstance(first.value, str) and len(node.args) == 1:
            for words in _split(first.value):
                out.extend(_writes_of(words, target, path, root, node.lineno))
            continue
        else:
            argv = [_word(e) for e in node.args]
        out.extend(_writes_of(argv, target, path, root, node.lineno))
    return out


def _word(node) -> str:
    """A Python expression as a shell word: a string's text, ``+`` and f-strings joined,
    ``os.path.join``/``/`` with ``/``, anything else ``$?`` (a value the tool does not know)."""
    import ast

    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _word(node.left) + _word(node.right)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return _word(node.left) + "/" + _word(node.right)
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "$?" for v in node.values)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join" and node.args:
        if isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "path":
            return "/".join(_word(a) for a in node.args)
    if isinstance(node, ast.Call) and node.args and isinstance(node.func, ast.Name) and node.func.id in ("str", "Path"):
        return _word(node.args[0])
    return "$?"


class ModuleMention(NamedTuple):
    """A line of a repository file naming a module's file that no reading explains.

    Attributes:
        path: the file (absolute).
        line: the 1-based line.
        text: the line, stripped (cut at 120 characters).
    """

    path: str
    line: int
    text: str


#: commands that only read the file they name (a line running one puts nothing there)
_READERS = frozenset({
    "cat", "grep", "egrep", "fgrep", "rg", "echo", "printf", "less", "more", "head", "tail", "diff",
    "cmp", "ls", "stat", "test", "[", "[[", "wc", "md5sum", "sha256sum", "sha1sum", "file",
    "black", "ruff", "flake8", "mypy", "realpath", "readlink",
})
#: files read as documentation, never run
_DOC_ENDINGS = (".md", ".rst", ".adoc", ".html", ".htm", ".tex", ".ipynb", ".py", ".pyi", ".svg", ".csv", ".json")
#: files never text
_BINARY_ENDINGS = (
    ".whl", ".zip", ".gz", ".tgz", ".bz2", ".xz", ".egg", ".pyz", ".tar", ".png", ".jpg", ".jpeg", ".gif",
    ".pdf", ".so", ".pt", ".pth.tar", ".bin", ".safetensors", ".pkl", ".npy", ".npz", ".parquet", ".arrow",
)


def module_mentions(
    root: str | os.PathLike[str], module: str, respect_gitignore: bool = True
) -> tuple[ModuleMention, ...]:
    """The lines of the repository's text files (no Python source, no documentation) that name
    ``module``'s file (``trainer/constants_ppo.py``, or ``constants_ppo.py``) in a way
    :func:`module_carriers` does not read (fresh user 45: a hotfix put over the installed verl
    by a task runner's table, a Slurm script, a Jenkinsfile, a mount, a heredoc, a patch
    under another extension, a ``cd`` then a relative ``cp``...). The forms of putting a file
    in place of a module have no end; what the tool cannot read as harmless is uncertain.

    A line is harmless when it is a comment (``#``, ``//``, ``;``, ``REM``), when a reading
    explains it (:func:`module_carriers` already returns its writes, and a copying command
    whose destination is not the module copies from it), or when its command only reads the
    file (:data:`_READERS`; ``sed`` without ``-i``). Not searched: test doubles' folders, what
    the walk does not enter, files named as documentation or binary (:data:`_DOC_ENDINGS`,
    :data:`_BINARY_ENDINGS`), a copy of the module's package (its own files), the patch files
    :func:`patch_changes` reads (a patch keeping the config is no hotfix).

    Args:
        root: the repository root.
        module: the dotted module, e.g. ``"verl.trainer.constants_ppo"``.
        respect_gitignore: the run's ``respect-gitignore``.

    Returns:
        The mentions, by file in walk order then line. Never raises.
    """
    from ppo_migrate.project.tree import in_doubles_folder, repository_listing

    root = os.path.abspath(os.fspath(root))
    key = (root, bool(respect_gitignore), "mentions:" + module)
    cached = _CARRIED.get(key)
    if cached is not None:
        return cached  # type: ignore[return-value]
    parts = module.split(".")
    if len(parts) < 2:
        _CARRIED[key] = ()
        return ()
    file_name = parts[-1] + ".py"
    word = file_name.encode()
    carried = {(w.source, w.line) for w in module_carriers(root, module, respect_gitignore)}
    patches = set(patch_files(root, respect_gitignore))  # read as patches (:func:`patch_changes`)
    found: list[ModuleMention] = []
    listing = repository_listing(root, respect_gitignore)
    for path in listing.files(lambda n: not n.lower().endswith(_DOC_ENDINGS + _BINARY_ENDINGS)):
        if in_doubles_folder(path, root) or path in patches:
            continue
        if (os.sep + parts[0] + os.sep) in path[len(root):]:
            continue  # a copy of the package: its own files name its modules
        data = _read(path)
        if data is None or word not in data or b"\0" in data[:8192]:
            continue
        text = decode_text(data, errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if file_name not in line or (path, number) in carried or _harmless(line, file_name):
                continue
            found.append(ModuleMention(path, number, line.strip()[:120]))
    result = _CARRIED[key] = tuple(found)  # type: ignore[assignment]
    return result


def _harmless(line: str, file_name: str) -> bool:
    """Whether a line naming ``file_name`` is a comment or a command that only reads it."""
    body = line.strip()
    if body.startswith(("#", "//", ";", "REM ", "rem ", "::")):
        return True
    if body.startswith(("---", "+++", "diff ")):
        return False  # a diff's header: a patch of the module, under any file name
    body = re.sub(r"^(?:-\s+)?(?:[A-Za-z_][\w-]*\s*:\s*(?:[|>][-+]?)?)?\s*", "", body, count=1)  # a YAML step
    body = re.sub(r"^(?:RUN|CMD|ENTRYPOINT)\s+", "", body.lstrip("@-+\t ").strip())  # a Dockerfile's
    try:
        commands = _split(body)
    except Exception:  # noqa: BLE001 -- not shell: not known harmless
        return False
    relevant = [c for c in commands if any(file_name in w for w in c)]
    if not relevant:
        return False
    for words in relevant:
        words = _command(words)
        if not words:
            return False
        if len(words) == 1 and ":" not in words[0] and not words[0].startswith(("/", "$", "~", "{")):
            continue  # a relative path listed as data (a workflow's ``paths:`` filter), no command
        program = os.path.basename(words[0])
        if program == "sed" and not any(w == "-i" or w.startswith(("-i", "--in-place")) for w in words[1:]):
            continue
        if program in _READERS and not any(w in (">", ">>", "-o", "of=") or w.startswith(("of=", "-o")) for w in words[1:]):
            continue
        if program in _COPIERS:
            operands = _operands(words)
            if operands and not operands[-1].rstrip("/\"'").endswith(file_name):
                continue  # copied from the module (a backup): the destination is elsewhere
        return False
    return True
