"""Which definition a target call binds to, and whether it accepts a config.

verl PR #6976 changed ``get_ppo_ray_runtime_env()`` into
``get_ppo_ray_runtime_env(config=None)``; the first release with it is verl
0.9.0 (0.5.0-0.8.0 define it without a parameter). Passing a config to the old
definition raises ``TypeError`` at trainer start-up, so every rewrite asks first
which definition is *in effect* for the calling file. The sources, in order
(the first that knows decides, and the answer records which one did):

1. ``in-tree``: the definition in a copy of the callee's top-level package that
   the calling file may import (:func:`install_levels`, issue 26): up to the
   repository root, a ``verl/`` package directory at a level that is no package
   itself, a ``src/`` layout, a checkout ``X/verl/...`` or one under
   ``third_party/``, ``vendor/`` or ``external/`` with its own packaging file
   (``pip install -e X``), a folder launch scripts put on ``PYTHONPATH``, a
   ``.gitmodules`` submodule (not checked out: uncertain); the nearest level whose
   copies hold the module wins and several copies at one level must all accept. The
   binding is read with :mod:`ast` through re-exports (``main_ppo`` imports it
   from ``constants_ppo``; star imports honour ``__all__``); nothing is imported
   or executed. A copy that binds the name in a way that cannot be read (an
   assignment, a decorator, an import from outside the copy, a module
   ``__getattr__``) is *uncertain*: the call is left alone. A first parameter not
   named for a config (``extra_env_vars=None``) does not take one.
2. ``setting``: ``--verl-version``, else ``verl-version`` in the nearest
   ``[tool.ppo-migrate]`` table above the calling file.
3. ``declared``: the verl the project declares (a lock's version, else the lowest
   version its specifiers allow), see :mod:`ppo_migrate.rules.versions`; a
   path reference (``-e ./third_party/verl``) is read as in 1, and a direct
   reference whose version cannot be read is uncertain.
4. ``installed``: the verl installed in the interpreter running ppo-migrate (its
   source read as in 1, else its metadata version).
5. ``unknown``: nothing says which verl runs: the config may not be accepted
   (``certain=False``): the fix is unsafe and says what to declare
   (issue 26; ruff and pyupgrade assume the oldest target for the same reason).

Whatever source decided "takes a config", the whole repository is asked too (issue 26, a
fresh tester's forms; :meth:`SignatureResolver._repository_copies`): a copy on a folder that
a file of the repository puts on ``sys.path`` (pytest's ``pythonpath``, ``sys.path.insert``,
a Dockerfile's, a Makefile's or a shell script's ``PYTHONPATH``, a ``.pth`` file;
:mod:`ppo_migrate.project.import_roots`) that takes no config refuses (PPO005), and when a
release decided, a *stray* copy (anywhere under the root but in test data, in a folder git
ignores too, and the verl of the repository's virtual environment: trial 26c;
:mod:`ppo_migrate.project.tree`) that takes none makes the fix unsafe. Trial 26h: a copy
``P/verl/`` in a package folder ``P`` is ``verl`` for a process running a file of ``P`` as a
script (the script's folder is first on ``sys.path``): for a call under ``P`` it refuses
(PPO005, :meth:`SignatureResolver._script_folder_copy`, whatever decided), elsewhere it is a
stray copy; and a folder of another name holding verl's module and function
(``third_party/rlcore/``, linked or copied as ``verl`` at run time) is recognised by its
content (:meth:`SignatureResolver._renamed_copy`): taking no config, the fix is unsafe. Trial
26i: so is a lone file named as verl's module, in no copy of verl and no folder of test doubles
(``patches/constants_ppo.py``, copied over a copy of verl the launcher makes at run time),
that defines the function without a config (:meth:`SignatureResolver._lone_module_file`), and a
Python file that writes a file named as the module at run time (``shutil.copy(SRC,
<...>/constants_ppo.py)``) of content taking none or that cannot be read
(:meth:`SignatureResolver._written_module`). A package on the module's way whose ``__init__.py``
registers another module under its name in ``sys.modules`` or serves it from a ``__getattr__``
makes the binding unreadable (:func:`_served_elsewhere`); a Python file setting such a
``__getattr__`` from outside makes the fix unsafe (:meth:`SignatureResolver._package_hook`).
Fresh user 43: so does a hotfix put over the *installed* module: a Python write whose
destination is computed from the module (``find_spec(...).origin``, ``cp.__file__``, B1); a
shell line, Makefile recipe, CI step, tox command or Dockerfile ``COPY`` copying a file taking
no config onto ``.../verl/trainer/constants_ppo.py``, ``sed -i``-ing it or applying a patch
that changes the function (:mod:`ppo_migrate.project.carriers`, B2; a kept ``.patch`` that
makes it take none counts unapplied); a wheel or sdist in the repository carrying the module
(:meth:`SignatureResolver._archived_module`, B3). A module of the project's own packages that
the project imports under its name is no hotfix (W1); a local folder's ``src/`` layout is read (W2).

Each answer carries a structured :class:`ppo_migrate.diagnostics.Reason` (``why``)
naming its kind and the definition's or pin's file and line.

Every source is looked up around the calling file's place in the tree (a preview,
``apply --thread-config --diff``, runs at the files' own paths: its edits are in the
snapshot's overlay, :mod:`ppo_migrate.project.snapshot`), and paths in messages are
relative to the working directory.

Sources 2-4 speak of verl's releases only; a target outside ``verl`` is decided
by its in-tree definition or assumed to accept a config (``ppo_runtime``'s does).
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ppo_migrate.constants import CONFIG_PARAMETER
from ppo_migrate.diagnostics import Reason, Related
from ppo_migrate.patterns import lazy_pattern
from ppo_migrate.project.references import module_file
from ppo_migrate.project.root import search_bound
from ppo_migrate.settings_model import directory_settings
from ppo_migrate.project.modules import absolute_parent

if TYPE_CHECKING:
    from packaging.version import Version

    from ppo_migrate.rules.versions import VerlDeclaration


def __getattr__(name: str) -> object:
    """PEP 562: ``FIRST_CONFIG_RELEASE``, the first verl release whose
    ``get_ppo_ray_runtime_env`` takes a config (verl PR #6976), made on first use:
    ``packaging`` is imported only when a release number has to be compared."""
    if name == "FIRST_CONFIG_RELEASE":
        return _first_config_release()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _first_config_release() -> Version:
    """``FIRST_CONFIG_RELEASE``: verl 0.9.0."""
    from packaging.version import Version

    return Version("0.9.0")


#: Files that make a directory an installable checkout (``pip install -e verl``).
_CHECKOUT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
#: How many mentions of an old verl a reason lists as its places (the message counts the rest).
_MAX_MENTIONS = 5
#: How many re-exports are followed before giving up (a cycle, or a long chain).
_MAX_REEXPORTS = 8
_PRE_PR = " (pre verl PR #6976)"
#: A parameter name that says it holds a config: ``config``, ``cfg``, ``conf``, ``ppo_config``.
_CONFIG_NAME = lazy_pattern(r"(^|_)(config|cfg|conf)($|_)", re.IGNORECASE)


class Definition(NamedTuple):
    """One definition of the runtime function found in source.

    Attributes:
        path: the defining file (absolute).
        line: 1-based line of the ``def`` (or ``lambda`` assignment).
        positional: the call ``f(x)`` binds (a positional parameter or ``*args``).
        keyword: the call ``f(config=x)`` binds (a parameter named ``config`` that
            is not positional-only, or ``**kwargs``).
        spelled: the signature as written, e.g. ``get_ppo_ray_runtime_env()``.
    """

    path: str
    line: int
    positional: bool
    keyword: bool
    spelled: str

    def accepts(self, keyword: bool) -> bool:
        """Whether the call ppo-migrate would write binds without ``TypeError``.

        Args:
            keyword: the rewrite passes ``config=<expr>`` (else ``<expr>``).
        """
        return self.keyword if keyword else self.positional


class Unreadable(NamedTuple):
    """A copy binds the name in a way that cannot be read statically.

    Attributes:
        path: the file (absolute).
        line: 1-based line of the binding.
        why: what it is, e.g. ``"an assignment"``, ``"a decorated def (@cache)"``.
    """

    path: str
    line: int
    why: str


class CalleeInEffect(NamedTuple):
    """The answer for one target call.

    Attributes:
        accepts_config: ``False`` when passing the config would raise ``TypeError``
            or cannot be known not to.
        source: which source decided: ``"in-tree"``, ``"setting"``, ``"declared"``,
            ``"installed"`` or ``"unknown"``.
        where: what decided, for messages: ``"verl/trainer/constants_ppo.py:38"``,
            ``"pyproject.toml:31 verl>=0.7.1,<0.9.0"``, ``"verl-version 0.8.0"``.
        detail: one line saying how it was decided (JSON ``callee``).
        reason: for a refusal, why the config is not passed (PPO005's message).
        remedy: for a refusal, what the user can do about it.
        why: the structured reason (:class:`ppo_migrate.diagnostics.Reason`): its kind
            (``"in-tree-definition"``, ``"uncertain-definition"``, ``"pin"``,
            ``"installed"``, ``"setting"``, ``"newest-assumed"``) and the place that
            decided (the definition's or the pin's file and line).
        certain: ``False`` when nothing decided which verl runs and a config is only
            assumed to be accepted (``"newest-assumed"``): a fix is then unsafe.
    """

    accepts_config: bool
    source: str
    where: str
    detail: str
    reason: str = ""
    remedy: str = ""
    why: Reason | None = None
    certain: bool = True


#: The kind of :class:`Reason` each source gives.
_KINDS = {
    "in-tree": "in-tree-definition",
    "declared": "pin",
    "installed": "installed",
    "setting": "setting",
    "unknown": "newest-assumed",
}

#: What to do when nothing says which verl runs (issue 26, family 3).
DECLARE_VERL = (
    "declare the verl the project runs (e.g. `verl>=0.9` in requirements.txt or "
    "pyproject.toml), or pass --verl-version"
)
#: What nothing said (trial 26c: a pin in a file the tool does not follow, a setup.py's
#: ``open("deps/runtime.txt")``, is still a pin: only the ones it reads are ruled out).
_NOTHING_READ = (
    "no in-tree copy, no verl pin in a file ppo-migrate reads, no verl-version, no installed verl"
)
#: The reason given when nothing says which verl runs.
NEWEST_ASSUMED = f"nothing says which verl runs ({_NOTHING_READ}), so the config may not be accepted"
#: How the callee was decided then (JSON ``callee``): what the tool assumes, which is not
#: the newest signature (trial 26c: the field said so while the fix was unsafe).
UNKNOWN_CALLEE = (
    f"nothing says which verl runs ({_NOTHING_READ}): the config may not be accepted, "
    "so passing it is an unsafe fix"
)


def _newest_assumed(
    set_aside: tuple[VerlDeclaration, ...], lacking: str | None = None
) -> tuple[str, tuple[str | None, int]]:
    """The reason of a fix that nothing decides, and the place it names (``(None, 1)``: none).

    Args:
        set_aside: the environments' pins that allow only new releases
            (:class:`ppo_migrate.rules.versions.VerlEvidence`'s ``set_aside``), in the order found.
        lacking: what an in-tree copy that does not hold the callee's module lacks
            (:func:`_lacking_copy`, trial 26e W1), said instead of "no in-tree copy".

    Returns:
        :data:`NEWEST_ASSUMED`, or (trial 26b, "an environment's pin alone shows a new verl")
        that text naming the first three such pins as ``path:line requirement``, e.g.
        ``docs/requirements.txt:2 verl>=0.9.0``, with the first one's file and line; or
        (trial 26e, I) when one of them is the project's own declaration that every install of
        the project skips (``VerlDeclaration.no_deps``), a text naming that install
        (```Dockerfile:6` installs the project with --no-deps, so its `pyproject.toml:4
        verl>=0.9.0` installs nothing there``) with the install's file and line; (trial 26f)
        when a Dockerfile runs the project's code without installing it
        (``VerlDeclaration.image``), a text naming its instruction and image (```Dockerfile:6`
        runs the project's code in `ghcr.io/lab/rl-base:2025.03`, whose verl ppo-migrate
        cannot know, and never installs the project, so its ...``). A shell
        install whose word holds an unquoted ``>`` (``VerlDeclaration.redirect``, trial 26e,
        W3) is named as one that installs an unpinned verl (```setup.sh:2` installs an
        unpinned verl (the unquoted `>` of `verl>=0.9.0` redirects the output to a file named
        `=0.9.0`)``), never as a pin.
    """
    if not set_aside:
        if lacking is not None:
            return NEWEST_ASSUMED.replace("no in-tree copy", lacking, 1), (None, 1)
        return NEWEST_ASSUMED, (None, 1)
    skipped = next((d for d in set_aside if d.no_deps is not None), None)
    if skipped is not None and skipped.no_deps is not None:  # trial 26e, I; trial 26f
        path, _, line = skipped.no_deps.rpartition(":")
        how = (
            "installs the project with --no-deps" if skipped.image is None
            else f"runs the project's code in `{skipped.image}`, whose verl ppo-migrate cannot know, and never installs the project"
        )
        reason = (
            f"`{display_path(path)}:{line}` {how}, so its "
            f"`{display_path(skipped.path)}:{skipped.line} {skipped.requirement}` installs nothing there and nothing "
            f"else the project declares says which verl runs ({lacking or 'no in-tree copy'}, verl-version or "
            "installed verl), so the config may not be accepted"
        )
        return reason, (path, int(line))
    # trial 26e, W3: a shell's unquoted ``verl>=0.9.0`` is no pin (the ``>`` redirects)
    pins = [d for d in set_aside[:3] if d.redirect is None]
    clauses = []
    if pins:
        shown = ", ".join(f"`{display_path(d.path)}:{d.line} {d.requirement}`" for d in pins)
        more = f" and {len(set_aside) - 3} more" if len(set_aside) > 3 else ""
        verb = "is an environment's pin" if len(pins) == 1 and not more else "are environments' pins"
        clauses.append(f"{shown}{more} {verb}, which may only lower the release")
    for d in set_aside[:3]:
        if d.redirect is not None:
            clauses.append(
                f"`{display_path(d.path)}:{d.line}` installs an unpinned verl (the unquoted `>` of "
                f"`{d.requirement}` redirects the output to a file named `{d.redirect}`)"
            )
    if not pins and len(set_aside) > 3:
        clauses.append(f"and {len(set_aside) - 3} more")
    reason = (
        f"nothing the project declares says which verl runs ({lacking or 'no in-tree copy'}, verl pin of the "
        f"project, verl-version or installed verl; {'; '.join(clauses)}), so the config may not be accepted"
    )
    return reason, (set_aside[0].path, set_aside[0].line)


def _no_lower_bound(requirement: str) -> bool:
    """Whether the PEP 508 ``requirement`` (``verl<0.9.0.dev0``) has no clause bounding
    the release from below (``>=``, ``>``, ``==``, ``~=``, ``===``); ``False`` when it does not
    parse.

    Read by :func:`ppo_migrate.rules.requirements._parsed_requirement`: a plain
    ``verl>=0.9`` (the common pin) without importing ``packaging.requirements`` (with its
    markers and tags it imports ``logging``, ``subprocess`` and ``platform``: ~35 ms of a
    check of benchmark item 9 that the pin reader had already avoided), anything else by
    that parser, as before.
    """
    from ppo_migrate.rules.requirements import _parsed_requirement

    parsed = _parsed_requirement(requirement)
    if parsed is None:
        return False
    specifier = parsed.specifier
    return len(specifier) > 0 and all(c.operator in ("<", "<=", "!=") for c in specifier)


def _namespace_beside(copy: str | Path, top: str, directory: Path) -> bool:
    """Whether the stray copy at the install root ``copy`` is a namespace package (no
    ``<top>/__init__.py``) in the calling file's own folder ``directory`` (trial 26e, W4)."""
    fs = _fs()
    folder = os.path.join(os.fspath(copy), top)
    return (
        os.path.abspath(os.fspath(copy)) == os.path.abspath(os.fspath(directory))
        and fs.is_dir(folder)
        and not fs.is_file(os.path.join(folder, "__init__.py"))
    )


def _lacking_copy(roots, top: str, module: str) -> str | None:
    """``"the in-tree copy `verl/` has no `verl/trainer/main_ppo.py`"`` when one of the
    install roots ``roots`` holds a folder of the package ``top`` that does not hold
    ``module`` (trial 26e, W1: the reason said "no in-tree copy" while there was one), else
    ``None``."""
    fs = _fs()
    for root in roots:
        folder = Path(root) / top
        if fs.is_dir(folder):
            wanted = "/".join(module.split(".")) + ".py"
            return f"the in-tree copy `{display_path(folder)}/` has no `{wanted}`"
    return None


def _why(source: str, text: str, path: str | Path | None = None, line: int = 1, kind: str = "") -> Reason:
    """The :class:`Reason` of an answer: ``path:line`` (shown relative) is the place that decided."""
    places: tuple[Related, ...] = ()
    if path:
        places = (Related(display_path(path), max(int(line or 1), 1), 1, text),)
    return Reason(kind or _KINDS.get(source, source), text, places)


def _refuse(
    source: str, where: str, reason: str, remedy: str, why: Reason | None = None
) -> CalleeInEffect:
    return CalleeInEffect(False, source, where, reason, reason, remedy, why or _why(source, reason))


def _through_dependent(decided: CalleeInEffect, via) -> CalleeInEffect:
    """``decided`` (a dependent project's pin decided, trial 26j B4), its reason naming the
    path dependency ``via`` (:class:`ppo_migrate.rules.versions.PathDependent`) that makes
    that project run the calling file's code under its verl; unchanged when it accepts."""
    if decided.accepts_config:
        return decided
    how = (
        f"{decided.reason}: `{display_path(via.path)}:{via.line}` ({via.text}) makes "
        f"`{display_path(via.folder)}` run this project's code under its own verl"
    )
    lines = (decided.why.lines if decided.why is not None else ()) + (
        Related(display_path(via.path), via.line, 1, "depends on the calling file's project by path"),
    )
    kind = decided.why.kind if decided.why is not None else "pin"
    return decided._replace(reason=how, detail=how, why=Reason(kind, how, lines))


def display_path(path: str | Path) -> str:
    """``path`` (``str`` or ``Path``) as messages show it: relative to the working directory
    when inside it, else absolute. Never raises for a path on another drive (Windows)."""

    path = os.path.abspath(path)
    try:
        rel = os.path.relpath(path, os.getcwd())
    except ValueError:  # another drive (Windows)
        return path
    return path if rel.startswith("..") else rel


def _parse(path: Path) -> ast.Module | None:
    """The file's ``ast``, read and parsed once a run (:mod:`ppo_migrate.project.snapshot`);
    ``None`` when it cannot be read, decoded or parsed."""
    from ppo_migrate.files import UnreadableFile
    from ppo_migrate.project.snapshot import current

    try:
        return current().source(path).tree()
    except (UnreadableFile, SyntaxError, ValueError, RecursionError, MemoryError, LookupError,
            OverflowError):
        return None


def _read_text(path: str | os.PathLike[str], errors: str = "strict") -> str:
    """``open(path, encoding="utf-8", errors=errors).read()``, the bytes read once a run
    (:meth:`ppo_migrate.project.snapshot.Snapshot.read_text`); a file opening with a
    byte-order mark is decoded by it, the mark dropped (trial 26d: a UTF-16 or UTF-8-BOM
    ``pyproject.toml``, ``.gitmodules`` or launch script).

    Raises:
        OSError, ValueError (a NUL in the path), UnicodeDecodeError: as ``open`` would.
    """
    from ppo_migrate.project.snapshot import current

    return current().read_text(path, None, errors)


def _fs():
    """The run's file-system answers (:attr:`ppo_migrate.project.snapshot.Snapshot.fs`:
    each path stat-ed, each folder listed once a run); this module asks nothing of ``os``."""
    from ppo_migrate.project.snapshot import current

    return current().fs


class _DiskTree:
    """An install root on disk, as :func:`_find` reads it: ``import module`` loads
    ``root/a/b.py`` or ``root/a/b/__init__.py``; trees parsed once a run (:func:`_parse`).

    Args:
        root: the install root (the directory holding the top-level package).
    """

    def __init__(self, root: Path) -> None:
        self.root = root

    def module_file(self, module: str) -> Path | None:
        """The file ``import module`` loads, or ``None`` (the run's one resolver:
        :func:`ppo_migrate.project.references.module_file`)."""
        return module_file(self.root, module, _fs())

    def parse(self, path: Path) -> ast.Module | None:
        """The file's ``ast`` (:func:`_parse`), ``None`` when it cannot be read or parsed."""
        return _parse(path)


class _MappedTree(_DiskTree):
    """A package installed from another folder (a ``package-dir`` mapping): ``import
    top.a.b`` loads ``folder/a/b.py``; no other top-level package is found.

    Args:
        folder: the folder the package is mapped to.
        top: the top-level package, e.g. ``"verl"``.
    """

    def __init__(self, folder: str, top: str) -> None:
        super().__init__(Path(folder))
        self.top = top

    def module_file(self, module: str) -> Path | None:
        first, _, rest = module.partition(".")
        if first != self.top:
            return None
        fs = _fs()
        if not rest:
            candidate = self.root / "__init__.py"
            return candidate if fs.is_file(candidate) else None
        return module_file(self.root, rest, fs)


class _LoneFileTree(_DiskTree):
    """One file read as one module of a package (trial 26i, I-B5: ``patches/constants_ppo.py``
    copied over ``verl/trainer/constants_ppo.py``): ``import module`` loads ``path``; no other
    module is found (an import from elsewhere is outside the file).

    Args:
        path: the file (absolute).
        module: the dotted module it stands for, e.g. ``"verl.trainer.constants_ppo"``.
    """

    def __init__(self, path: str, module: str) -> None:
        super().__init__(Path(path).parent)
        self.path = Path(path)
        self.module = module

    def module_file(self, module: str) -> Path | None:
        return self.path if module == self.module else None


class _ArchiveTree:
    """The Python files of a zip archive on ``sys.path``, read in memory
    (:meth:`ppo_migrate.project.filesystem.FileSystem.archive_members`): ``import a.b``
    loads the member ``a/b.py`` or ``a/b/__init__.py``, whose path is spelled
    ``<archive>/<member>``.

    Args:
        archive: the archive (absolute).
        members: ``{member name: bytes}``.
    """

    def __init__(self, archive: str, members: dict[str, bytes]) -> None:
        self.archive = archive
        self.members = members
        self._trees: dict[str, ast.Module | None] = {}

    def module_file(self, module: str) -> Path | None:
        base = module.replace(".", "/")
        for member in (f"{base}/__init__.py", f"{base}.py"):  # the package first, as zipimport
            if member in self.members:
                return Path(f"{self.archive}/{member}")
        return None

    def parse(self, path: Path) -> ast.Module | None:
        """The member's ``ast`` (decoded as a source file, :func:`ppo_migrate.files.decode_source`),
        parsed once; ``None`` when it does not decode or parse."""
        member = os.path.relpath(path, self.archive).replace(os.sep, "/")
        if member not in self._trees:
            import warnings

            from ppo_migrate.files import decode_source

            try:
                text = decode_source(self.members[member])[0]
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    tree = compile(text, str(path), "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
            except (KeyError, UnicodeDecodeError, SyntaxError, LookupError, ValueError, RecursionError,
                    MemoryError, OverflowError):
                tree = None
            self._trees[member] = tree
        return self._trees[member]


#: suffixes of an extension module (``constants_ppo.cpython-311-x86_64-linux-gnu.so``,
#: ``constants_ppo.abi3.so``, ``constants_ppo.cp311-win_amd64.pyd``)
_EXTENSION_SUFFIXES = (".so", ".pyd")


def _compiled_module(root: Path, module: str) -> Path | None:
    """A file ``import module`` loads from ``root`` whose source cannot be read: an
    extension module (``<name>[.<tag>].so``/``.pyd``, which Python's path finder tries
    *before* ``<name>.py``), or a sourceless ``<name>.pyc`` beside no ``<name>.py`` (the
    path finder's order: extensions, source, bytecode; ``importlib.machinery``'s
    ``EXTENSION_SUFFIXES``, ``SOURCE_SUFFIXES``, ``BYTECODE_SUFFIXES``). The package form
    (``<name>/__init__.so``, ``<name>/__init__.pyc``) counts the same. ``None`` when the
    module is read from source or not there.

    Args:
        root: the install root (the directory holding the top-level package).
        module: the dotted module, e.g. ``"verl.trainer.constants_ppo"``.
    """
    *packages, last = module.split(".")
    fs = _fs()
    for folder, stem in ((root.joinpath(*packages), last), (root.joinpath(*packages, last), "__init__")):
        try:
            names = fs.list_dir(folder)
        except (OSError, ValueError):
            continue
        for n in names:  # sorted
            if n.startswith(stem + ".") and n.endswith(_EXTENSION_SUFFIXES) and fs.is_file(folder / n):
                return folder / n
        if f"{stem}.pyc" in names and f"{stem}.py" not in names and fs.is_file(folder / f"{stem}.pyc"):
            return folder / f"{stem}.pyc"
    return None


def _definition(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, name: str, path: Path, line: int) -> Definition:
    args = node.args
    first = (*args.posonlyargs, *args.args)[:1]
    # issue 26: ``def get_ppo_ray_runtime_env(extra_env_vars=None)`` binds a positional
    # config to another parameter: only a first parameter named for a config (or *args) takes it
    positional = bool(_CONFIG_NAME.search(first[0].arg)) if first else args.vararg is not None
    keyword = args.kwarg is not None or any(
        a.arg == CONFIG_PARAMETER for a in (*args.args, *args.kwonlyargs)
    )
    try:
        spelled = f"{name}({ast.unparse(args)})"
    except Exception:  # ast.unparse of odd defaults: the name is enough
        spelled = f"{name}(...)"
    return Definition(str(path), line, positional, keyword, spelled)


def _top_level(body: list[ast.stmt]):
    """Statements that run at import: the module body and its if/try/with blocks."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If):
            yield from _top_level(stmt.body)
            yield from _top_level(stmt.orelse)
        elif isinstance(stmt, ast.Try) or (
            hasattr(ast, "TryStar") and isinstance(stmt, getattr(ast, "TryStar"))
        ):
            yield from _top_level(stmt.body)
            for handler in stmt.handlers:
                yield from _top_level(handler.body)
            yield from _top_level(stmt.orelse)
            yield from _top_level(stmt.finalbody)
        elif isinstance(stmt, (ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)):
            yield from _top_level(stmt.body)
            yield from _top_level(getattr(stmt, "orelse", []))


def _absolute(module: str, node: ast.ImportFrom, is_package: bool) -> str | None:
    if not node.level:
        return node.module
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    if node.level - 1 >= len(parts):
        return None  # climbs past the top-level package
    base = parts[: len(parts) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _exports(tree: ast.Module, name: str) -> bool:
    """Whether ``from module import *`` binds ``name``: a literal ``__all__`` decides,
    else every public name does."""
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets
        ):
            if isinstance(stmt.value, (ast.List, ast.Tuple)):
                return any(
                    isinstance(e, ast.Constant) and e.value == name for e in stmt.value.elts
                )
            return True  # not a literal: it may export it
    return not name.startswith("_")


Found = tuple[Definition | Unreadable, ...]


def find_definitions(root: Path, module: str, name: str) -> Found | None:
    """What ``from module import name`` binds, read from source under ``root``.

    Args:
        root: the install root (the directory holding the top-level package).
        module: the dotted module, e.g. ``"verl.trainer.main_ppo"``.
        name: the function's name, e.g. ``"get_ppo_ray_runtime_env"``.

    Returns:
        ``None`` when the module is not under ``root`` or never binds the name (the
        copy says nothing: the next source decides). An :class:`Unreadable` naming the
        file when the module is an extension module or a ``.pyc`` without its source
        (:func:`_compiled_module`: the tool cannot read what runs), or naming the line
        where a package on the way changes its ``__path__`` (:func:`_overlaid`). Otherwise every binding the
        name may have at import (more than one when the module binds it on several
        branches): a :class:`Definition` for a ``def`` or a ``lambda`` assignment
        (followed through ``from ... import`` re-exports, star imports that export
        it, and ``name = other`` aliases of a def in the same module), an
        :class:`Unreadable` for any other binding (an assignment of another value,
        a decorated ``def``, a class, ``import x as name``, a re-export from outside
        ``root``, a chain longer than 8 or a file that does not parse).
    """
    return _find(_DiskTree(root), module, name, 0)

#: How much an archive may hold, uncompressed, of the package looked for.
_MAX_ARCHIVE_BYTES = 50_000_000
#: Names of the archives of a repository that may carry an installed module (fresh user 43, B3).
_ARCHIVE_NAMES = (".whl", ".egg", ".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")


def archive_definitions(archive: str, module: str, name: str) -> list[Definition | Unreadable]:
    """The bindings of ``name`` in ``module`` inside a zip archive on ``sys.path``
    (``.zip``/``.whl``/``.egg``, and any other name: ``.pyz``, ``.bundle``; zipimport
    imports from it as from a folder).

    Args:
        archive: the archive file (absolute).
        module: the dotted module, e.g. ``"verl.trainer.constants_ppo"``.
        name: the function, e.g. ``"get_ppo_ray_runtime_env"``.

    Returns:
        What :func:`find_definitions` finds in the archive's ``<package>/`` Python files
        (read in memory once a run, :meth:`ppo_migrate.project.filesystem.FileSystem.archive_members`;
        parsed with ``ast`` only; nothing extracted), their paths spelled
        ``<archive>/<member>``; ``[]`` when the archive does not hold the module; an
        :class:`Unreadable` naming the archive when it cannot be read or holds more than
        :data:`_MAX_ARCHIVE_BYTES` of the package.
    """
    top = module.split(".", 1)[0]
    try:
        members = _fs().archive_members(archive, f"{top}/", ".py", _MAX_ARCHIVE_BYTES)
    except (OSError, ValueError):
        return [Unreadable(archive, 1, "an archive that cannot be read")]
    return list(_find(_ArchiveTree(archive, members), module, name, 0) or ())


def mapped_definitions(folder: str, module: str, name: str) -> list[Definition | Unreadable]:
    """The bindings of ``name`` in ``module`` where the module's top-level package is
    installed from ``folder`` (a ``package-dir`` mapping, :func:`ppo_migrate.project.tree.mapped_copies`).

    Args:
        folder: the folder the package is mapped to (absolute), e.g. ``.../legacy_verl``.
        module: the dotted module, e.g. ``"verl.trainer.constants_ppo"``.
        name: the function, e.g. ``"get_ppo_ray_runtime_env"``.

    Returns:
        What :func:`find_definitions` finds when ``import <package>`` loads ``folder``
        (:class:`_MappedTree`: ``verl.trainer.x`` is ``folder/trainer/x.py``), paths spelled
        inside ``folder``; ``[]`` when the module is not there.
    """
    top = module.split(".", 1)[0]
    return list(_find(_MappedTree(folder, top), module, name, 0) or ())


#: ``__path__.<method>(...)`` calls that add folders after the package's own one
_PATH_APPENDS = frozenset({"append", "extend"})


def _path_changes(init: Path) -> list[tuple[int, str, bool]]:
    """Where a package's ``__init__.py`` changes its ``__path__`` (read with :mod:`ast`; the
    file is parsed only when its text names ``__path__``).

    Args:
        init: the package's ``__init__.py``.

    Returns:
        ``(line, form, ahead)`` for each change: ``ahead`` when the folders it adds may come
        before the package's own folder (``__path__.insert(...)``, ``__path__ = [...]``,
        ``__path__[:0] = ...``, any other rebinding), not when they only come after it
        (``__path__.append``/``.extend``, ``__path__ += ...``,
        ``__path__ = pkgutil.extend_path(__path__, __name__)``: the import system's rule,
        the first folder of ``__path__`` holding the submodule wins).
    """
    try:
        text = _read_text(init, errors="replace")
    except OSError:
        return []
    if "__path__" not in text:
        return []
    tree = _parse(init)
    if tree is None:
        return []

    def is_path(node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id == "__path__"

    changes: list[tuple[int, str, bool]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and is_path(node.func.value):
            method = node.func.attr
            if method in _PATH_APPENDS or method == "insert":
                changes.append((node.lineno, f"__path__.{method}", method not in _PATH_APPENDS))
        elif isinstance(node, ast.AugAssign) and is_path(node.target):
            changes.append((node.lineno, "__path__ +=" if isinstance(node.op, ast.Add) else "__path__ op=",
                            not isinstance(node.op, ast.Add)))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if is_path(t):
                    value = node.value
                    func = value.func if isinstance(value, ast.Call) else None
                    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
                    if called == "extend_path":
                        changes.append((node.lineno, "pkgutil.extend_path", False))
                    else:
                        changes.append((node.lineno, "__path__ =", True))
                elif isinstance(t, ast.Subscript) and is_path(t.value):
                    changes.append((node.lineno, "__path__[...] =", True))
    return sorted(changes)


def _overlaid(root: Path, module: str) -> Unreadable | None:
    """A package on the way to ``module`` under ``root`` whose ``__init__.py`` changes its
    ``__path__`` so that which file ``module`` is imported from cannot be read (trial 26b:
    ``verl/__init__.py`` doing ``__path__.insert(0, .../overlay/verl)``): a change that may
    put a folder ahead of the package's own (:func:`_path_changes`), or one that adds folders
    after it when the own folder does not hold the next component. ``None`` when no package
    of the chain changes its ``__path__`` that way.

    Args:
        root: the install root (the directory holding the top-level package).
        module: the dotted module, e.g. ``"verl.trainer.constants_ppo"``.
    """
    parts = module.split(".")
    for i in range(1, len(parts)):
        folder = root.joinpath(*parts[:i])
        init = folder / "__init__.py"
        fs = _fs()
        if not fs.is_file(init):
            continue
        for line, form, ahead in _path_changes(init):
            nxt = parts[i]
            own = fs.is_file(folder / f"{nxt}.py") or fs.is_dir(folder / nxt) or fs.is_file(folder / f"{nxt}.pyc")
            if ahead or not own:
                package = ".".join(parts[:i])
                return Unreadable(
                    str(init), line,
                    f"a change of `{package}.__path__` (`{form}`) that decides which `{parts[-1]}` is imported",
                )
    return None


def _fold_name(node: ast.AST | None, package: str, constants: dict[str, str]) -> str | None:
    """The string ``node`` evaluates to in the ``__init__.py`` of ``package``, or ``None``:
    string constants, ``__name__``/``__package__``/``__spec__.name`` (the package's dotted
    name), module-level names bound once to such a string (``constants``), f-strings and
    ``+`` of those."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.Name):
        if node.id in ("__name__", "__package__"):
            return package
        return constants.get(node.id)
    if isinstance(node, ast.Attribute) and node.attr == "name" and isinstance(node.value, ast.Name) \
            and node.value.id == "__spec__":
        return package
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _fold_name(node.left, package, constants), _fold_name(node.right, package, constants)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.JoinedStr):
        pieces = []
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                if value.format_spec is not None or value.conversion not in (-1, ord("s")):
                    return None
                value = value.value
            piece = _fold_name(value, package, constants)
            if piece is None:
                return None
            pieces.append(piece)
        return "".join(pieces)
    return None


def _module_writes(tree: ast.Module, package: str) -> list[tuple[int, str, str | None, bool]]:
    """The writes to ``sys.modules`` in a package's ``__init__.py``: ``(line, form, key,
    known)`` with ``key`` the folded key (:func:`_fold_name`) and ``known`` whether it could
    be folded (``sys.modules.update(mapping)`` and ``|=`` of a non-literal: not known)."""
    sys_names: set[str] = set()
    modules_names: set[str] = set()
    constants: dict[str, str] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            sys_names.update(a.asname or a.name for a in stmt.names if a.name == "sys")
        elif isinstance(stmt, ast.ImportFrom) and stmt.module == "sys" and not stmt.level:
            modules_names.update(a.asname or a.name for a in stmt.names if a.name == "modules")
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            value = _fold_name(stmt.value, package, constants)
            if value is not None and stmt.targets[0].id not in constants:
                constants[stmt.targets[0].id] = value
    if not sys_names and not modules_names:
        return []

    def is_modules(node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in modules_names
        return isinstance(node, ast.Attribute) and node.attr == "modules" and isinstance(node.value, ast.Name) \
            and node.value.id in sys_names

    def keyed(line: int, form: str, key: ast.AST | None) -> tuple[int, str, str | None, bool]:
        folded = _fold_name(key, package, constants) if key is not None else None
        return (line, form, folded, folded is not None)

    writes: list[tuple[int, str, str | None, bool]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Subscript) and is_modules(target.value):
                    writes.append(keyed(node.lineno, "sys.modules[...] =", target.slice))
        elif isinstance(node, ast.AugAssign) and is_modules(node.target):
            if isinstance(node.value, ast.Dict) and all(k is not None for k in node.value.keys):
                writes.extend(keyed(node.lineno, "sys.modules |=", k) for k in node.value.keys)
            else:
                writes.append((node.lineno, "sys.modules |=", None, False))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and is_modules(node.func.value):
            method = node.func.attr
            if method in ("__setitem__", "setdefault"):
                writes.append(keyed(node.lineno, f"sys.modules.{method}", node.args[0] if node.args else None))
            elif method == "update":
                mapping = node.args[0] if node.args else None
                if isinstance(mapping, ast.Dict) and all(k is not None for k in mapping.keys):
                    writes.extend(keyed(node.lineno, "sys.modules.update", k) for k in mapping.keys)
                elif mapping is not None:
                    writes.append((node.lineno, "sys.modules.update", None, False))
    return writes


def _imported_elsewhere(path: str, top: str, name: str) -> tuple[int, str] | None:
    """``(line, statement)`` of a top-level ``from X import name`` (or ``... as name``) in the
    file at ``path`` whose ``X`` is relative or outside the package ``top``: put in the place
    of ``top``'s module, the file gives a function of a module the tool does not read there
    (``from .legacy_env import get_ppo_ray_runtime_env`` with ``legacy_env.py`` copied beside
    it); ``None`` for none, or an unreadable file. An import from ``top`` itself (a wrapper
    re-exporting verl's function) is none."""
    tree = _parse(Path(path))  # read and parsed once a run
    if tree is None:
        return None  # unreadable or not Python: the other rules decide
    for stmt in _top_level(tree.body):
        if not isinstance(stmt, ast.ImportFrom):
            continue
        if not any((a.asname or a.name) == name for a in stmt.names):
            continue
        if stmt.level or not (stmt.module == top or (stmt.module or "").startswith(top + ".")):
            spelled = "from " + "." * (stmt.level or 0) + (stmt.module or "") + f" import {name}"
            return stmt.lineno, spelled
    return None


#: The packages outside verl whose function is known to take a config: this package's
#: runtime (``ppo_runtime.get_ppo_ray_runtime_env(config)``), a default target.
_KNOWN_TO_ACCEPT = frozenset({"ppo_runtime"})


def _outside_verl(qualified: str) -> CalleeInEffect:
    """The answer for a target outside verl (``extend-targets``) with no in-tree definition.

    Rule (fresh user 44, B1): no pin, setting or release speaks for a package that is not
    verl (an installed ``mylab.launch.get_ppo_ray_runtime_env`` wrapper may take no config,
    ``os.getcwd`` takes none), so nothing decides and passing the config is an unsafe fix
    whose reason says so; only :data:`_KNOWN_TO_ACCEPT` is known to take one.

    Args:
        qualified: the target's qualified name, e.g. ``"mylab.launch.get_ppo_ray_runtime_env"``.
    """
    if qualified.split(".", 1)[0] in _KNOWN_TO_ACCEPT:
        return CalleeInEffect(True, "unknown", "", f"`{qualified}` is ppo-migrate's runtime, which takes a config")
    reason = (
        f"`{qualified}` has no definition in the tree and is not verl's, so nothing shows that it "
        "takes a config"
    )
    remedy = "check that it takes a config, then apply with --unsafe-fixes; or add its definition to the analysed tree"
    detail = f"no in-tree definition of `{qualified}`: the config may not be accepted, so passing it is an unsafe fix"
    return CalleeInEffect(True, "unknown", "", detail, reason, remedy, _why("unknown", f"{reason}: {remedy}", None, 1), certain=False)


def _made_uncertain(answer: CalleeInEffect, reason: str, remedy: str, places) -> CalleeInEffect:
    """``answer`` (a callee taking a config) made uncertain: an unsafe fix whose reason
    (``reason``, at ``places``: :class:`ppo_migrate.diagnostics.Related`) says which
    definition may be the one in effect instead, and ``remedy`` what to do (issue 26:
    "where nothing decides, an unsafe fix whose reason says so")."""
    why = Reason("uncertain-definition", reason, places)
    return CalleeInEffect(
        True, answer.source, answer.where, answer.detail, reason, remedy, why, certain=False
    )


def _serves_own_submodules(hook: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a package's ``__getattr__`` only ever returns its own submodule of the name
    asked (the lazy-import idiom: ``return importlib.import_module("." + name, __name__)``,
    ``f".{name}"``, ``f"{__name__}.{name}"``) or raises: then the file is what it serves."""
    params = [*hook.args.posonlyargs, *hook.args.args]
    if not params:
        return False
    asked = params[0].arg

    def own(arg: ast.AST) -> bool:
        folded = _fold_name(arg, "\x00pkg", {asked: "\x00name"})
        return folded in (".\x00name", "\x00pkg.\x00name")

    for node in ast.walk(hook):
        if not isinstance(node, ast.Return):
            continue
        value = node.value
        if not isinstance(value, ast.Call) or not value.args:
            return False
        func = value.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if called != "import_module" or not own(value.args[0]):
            return False
    return True


def _serves_by_name(hook: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a ``__getattr__`` returns something computed from the name asked
    (``getattr(_legacy, name)``, ``import_module(_ALIASES[name], __name__)``): it may serve
    any name, a submodule's included."""
    params = [*hook.args.posonlyargs, *hook.args.args]
    if not params:
        return False
    asked = params[0].arg
    return any(
        isinstance(node, ast.Return) and node.value is not None
        and any(isinstance(n, ast.Name) and n.id == asked for n in ast.walk(node.value))
        for node in ast.walk(hook)
    )


def _served_elsewhere(root: Path, module: str) -> Unreadable | None:
    """A package on the way to ``module`` under ``root`` whose ``__init__.py`` may serve
    another module in its place (trial 26i, family 1), else ``None``:

    * I-B7: a write to ``sys.modules`` (``sys.modules[K] = M``, ``__setitem__``,
      ``setdefault``, ``update``, ``|=``) whose key is ``module`` or a package on its way
      (``f"{__name__}.constants_ppo"``, ``__name__ + ".constants_ppo"``,
      ``sys.modules[__name__] = _Lazy(...)``), or cannot be folded (:func:`_fold_name`): the
      import system returns that entry and never reads the file;
    * I-B8: a module ``__getattr__`` (PEP 562; a ``def`` or an assignment) in a package on the
      way that may return something else than its own submodule of the name asked
      (:func:`_serves_own_submodules`): ``from verl.trainer import constants_ppo`` asks the
      package's attribute first, and only imports the file when that fails. A ``def`` counts
      when the file names the next component as a string (``{"constants_ppo": ...}``,
      ``name == "constants_ppo"``) or it returns something computed from the name asked
      (:func:`_serves_by_name`: ``getattr(_legacy, name)``); one serving fixed names only (a
      deprecation alias ``if name == "old": return new``) does not.

    The files are read with :mod:`ast`, parsed only when their text names ``modules`` or
    ``__getattr__``; verl's own ``__init__.py`` files (0.8.0, 0.9.0) hold neither.

    Args:
        root: the install root (the directory holding the top-level package).
        module: the dotted module, e.g. ``"verl.trainer.constants_ppo"``.
    """
    parts = module.split(".")
    fs = _fs()
    for i in range(1, len(parts)):
        init = root.joinpath(*parts[:i], "__init__.py")
        if not fs.is_file(init):
            continue
        try:
            text = _read_text(init, errors="replace")
        except OSError:
            continue
        if "modules" not in text and "__getattr__" not in text:
            continue
        tree = _parse(init)
        if tree is None:
            continue
        package = ".".join(parts[:i])
        for line, form, key, known in _module_writes(tree, package):
            if not known or key == module or module.startswith(f"{key}."):
                shown = f"`{key}`" if known else "a name the tool cannot evaluate"
                return Unreadable(
                    str(init), line,
                    f"a `sys.modules` entry (`{form}`, under {shown}) that decides which "
                    f"`{parts[-1]}` is imported",
                )
        named = f'"{parts[i]}"' in text or f"'{parts[i]}'" in text
        for stmt in _top_level(tree.body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == "__getattr__":
                if _serves_own_submodules(stmt) or not (named or _serves_by_name(stmt)):
                    continue  # the lazy-import idiom, or fixed names (a deprecation alias)
            elif not (isinstance(stmt, (ast.Assign, ast.AnnAssign)) and any(
                isinstance(t, ast.Name) and t.id == "__getattr__"
                for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
            )):
                continue
            return Unreadable(
                str(init), stmt.lineno,
                f"a module `__getattr__` of `{package}` that may serve `{parts[i]}` in place of "
                "its file",
            )
    return None


def _find(root: _DiskTree | _ArchiveTree, module: str, name: str, depth: int) -> Found | None:
    """:func:`find_definitions` in the install root (or archive, or mapped folder) ``root``."""
    if type(root) is _DiskTree:  # an install root on disk (trial 26b): what the path finder
        overlay = _overlaid(root.root, module)  # loads may be no source the tool reads
        if overlay is not None:  # ``__path__.insert(0, overlay)`` in a package
            return (overlay,)
        compiled = _compiled_module(root.root, module)
        if compiled is not None:  # a ``.pyc`` alone, or an extension module
            kind = "a sourceless bytecode file" if compiled.suffix == ".pyc" else "an extension module"
            return (Unreadable(str(compiled), 1, f"{kind} (`{compiled.name}`) that runs instead of any source"),)
    path = root.module_file(module)
    if path is None:
        return None
    if type(root) is _DiskTree:  # trial 26i (I-B7, I-B8): the package serves another module
        served = _served_elsewhere(root.root, module)
        if served is not None:
            return (served,)
    if depth > _MAX_REEXPORTS:
        return (Unreadable(str(path), 1, "a chain of re-exports too long to follow"),)
    tree = root.parse(path)
    if tree is None:
        return (Unreadable(str(path), 1, "a file Python cannot parse"),)
    is_package = path.name == "__init__.py"
    defs = {
        s.name: s
        for s in tree.body
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and not s.decorator_list
    }
    found: list[Definition | Unreadable] = []
    for stmt in _top_level(tree.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
            if stmt.decorator_list:
                try:
                    decorator = ast.unparse(stmt.decorator_list[0])
                except Exception:
                    decorator = "..."
                found.append(Unreadable(str(path), stmt.lineno, f"a decorated def (@{decorator})"))
            else:
                found.append(_definition(stmt, name, path, stmt.lineno))
        elif isinstance(stmt, ast.ClassDef) and stmt.name == name:
            found.append(Unreadable(str(path), stmt.lineno, "a class"))
        elif isinstance(stmt, ast.ImportFrom):
            source = _absolute(module, stmt, is_package)
            for alias in stmt.names:
                if alias.name == "*":
                    if source is None:
                        continue
                    source_path = root.module_file(source)
                    source_tree = root.parse(source_path) if source_path is not None else None
                    if source_tree is None or not _exports(source_tree, name):
                        continue
                    inner = _find(root, source, name, depth + 1)
                    if inner:
                        found.extend(inner)
                    continue
                if (alias.asname or alias.name) != name:
                    continue
                inner = _find(root, source, alias.name, depth + 1) if source else None
                found.extend(
                    inner or (Unreadable(str(path), stmt.lineno, f"an import from `{source or '.'}`, outside the copy"),)
                )
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if (alias.asname or alias.name.split(".")[0]) == name:
                    found.append(Unreadable(str(path), stmt.lineno, "an import of a module"))
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if not any(name in _stored(t) for t in targets):
                continue
            value = stmt.value
            if isinstance(stmt, ast.Assign) and len(targets) == 1 and isinstance(targets[0], ast.Name):
                if isinstance(value, ast.Lambda):
                    found.append(_definition(value, name, path, stmt.lineno))
                    continue
                if isinstance(value, ast.Name) and value.id in defs:
                    found.append(_definition(defs[value.id], name, path, stmt.lineno))
                    continue
            found.append(Unreadable(str(path), stmt.lineno, "an assignment"))
        elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
            targets = (
                [stmt.target]
                if isinstance(stmt, (ast.For, ast.AsyncFor))
                else [i.optional_vars for i in stmt.items if i.optional_vars is not None]
            )
            if any(name in _stored(t) for t in targets):
                found.append(Unreadable(str(path), stmt.lineno, "a loop or with target"))
    if not found:  # PEP 562: a module ``__getattr__`` may answer the name (issue 26)
        hook = next(
            (s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__getattr__"),
            None,
        )
        if hook is not None:
            found.append(Unreadable(str(path), hook.lineno, "a module `__getattr__`"))
    return tuple(found) or None


def _stored(target: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def install_roots(
    start: Path,
    package: str,
    stop: Path | None = None,
    *,
    memo: dict[str, Path | None] | None = None,
) -> list[Path]:
    """The install roots of ``package`` at the nearest level of :func:`install_levels`
    (sorted), or ``[]``: the copies a file in ``start`` sees first.

    Args:
        start: the calling file's directory (absolute or relative).
        package: the top-level package, e.g. ``"verl"``.
        stop: a directory where the walk ends in any case (the settings' project root).
        memo: unused (kept for callers of the earlier signature).
    """
    for roots, _ in install_levels(start, package, stop):
        if roots:
            return roots
    return []


#: Folders whose sub-folders are checkouts of other projects (``third_party/verl``).
_VENDOR_FOLDERS = ("third_party", "third-party", "3rdparty", "vendor", "external", "externals", "deps", "submodules")
_PYTHONPATH = lazy_pattern(r"PYTHONPATH\s*=\s*(\"[^\"]*\"|'[^']*'|\S+)")
_CWD = lazy_pattern(r"\$\{?PWD\}?|\$\(\s*pwd\s*\)|`pwd`")


def install_levels(
    start: Path, package: str, stop: Path | None = None
) -> list[tuple[list[Path], list[Unreadable]]]:
    """Every copy of ``package`` a file in ``start`` may import, level by level, nearest first.

    The walk goes up from ``start`` to the run's root (decided once a run,
    ``Snapshot.root_of``; a submodule's top level within it; without a root the highest
    folder with a dependency file, else ``stop``: :func:`ppo_migrate.project.root.search_bound`),
    so a sub-folder with its own ``requirements.txt`` does not end it (issue 26). Without
    any, to the working directory when ``start`` is inside it, else ``start`` alone. At each
    level ``D`` the install roots are:

    * ``D`` when ``D/package/__init__.py`` exists and ``D`` is no package itself
      (``mylib/verl/`` is ``mylib.verl``, not ``verl``), or when the calling file lies inside
      ``D/package/``: a call in a copy of verl binds to that copy's own definition (its
      modules import ``verl.*`` absolutely, so a vendored ``myproj/_vendor/verl/`` runs only
      with ``myproj/_vendor`` on the path; trial 26d: never rewritten against a pin);
    * ``D/src`` for a ``src/`` layout (``D/src/package/__init__.py``);
    * ``D/X`` and ``D/V/X`` for ``V`` in :data:`_VENDOR_FOLDERS` when they hold
      ``package/__init__.py`` and a packaging file (``pip install -e third_party/verl``);
    * the folders the launch scripts of ``D`` and ``D/scripts`` (``*.sh``) put on
      ``PYTHONPATH`` (``export PYTHONPATH=$PWD/verl:$PYTHONPATH``);
    * the submodules ``D/.gitmodules`` lists: a checked-out one holding the package is a
      root; one naming the package and not checked out gives an :class:`Unreadable`.

    Args:
        start: the calling file's directory.
        package: the top-level package, e.g. ``"verl"``.
        stop: a folder where the walk ends in any case (the settings' project root).

    Returns:
        ``(roots, unreadable)`` per level that has any, nearest level first; roots sorted.
    """
    start = start.absolute()
    from ppo_migrate.project.snapshot import current

    boundary = search_bound(start, current().root_of(start), stop)
    if boundary is None:
        cwd = Path.cwd()
        boundary = cwd if start == cwd or cwd in start.parents else start
    end, directory = str(boundary), str(start)
    start_s = directory
    levels: list[tuple[list[Path], list[Unreadable]]] = []
    while True:
        own = os.path.join(directory, package)
        roots, problems = _roots_at(directory, package, start_s == own or start_s.startswith(own + os.sep))
        if roots or problems:
            levels.append((sorted(set(roots)), problems))
        parent = os.path.dirname(directory)
        # the package project the file belongs to ends the walk: a sibling project's copy
        # is not on its path (a folder with requirements or a tools-only pyproject is none)
        if directory == end or parent == directory or _package_project(directory):
            return levels
        directory = parent


def _package_project(directory: str) -> bool:
    """Whether ``directory`` holds an installable project: ``setup.py``, ``setup.cfg``, or a
    ``pyproject.toml`` with a ``[project]``, ``[tool.poetry]`` or ``[build-system]`` table."""
    join = os.path.join
    fs = _fs()
    if fs.is_file(join(directory, "setup.py")) or fs.is_file(join(directory, "setup.cfg")):
        return True
    try:
        text = _read_text(join(directory, "pyproject.toml"), errors="replace")
    except OSError:
        return False
    return re.search(r"^\s*\[(project|tool\.poetry|build-system)\]", text, re.MULTILINE) is not None


def _holds(directory: str, package: str) -> bool:
    return _fs().is_file(os.path.join(directory, package, "__init__.py"))


def _checkout(directory: str) -> bool:
    fs = _fs()
    return any(fs.is_file(os.path.join(directory, f)) for f in _CHECKOUT_FILES)


def _subdirectories(directory: str) -> list[str]:
    """The sub-folders of ``directory`` (links to folders included) but hidden ones, sorted;
    listed once a run (:meth:`ppo_migrate.project.filesystem.FileSystem.subdirectories`)."""
    return [p for p in _fs().subdirectories(directory) if not os.path.basename(p).startswith(".")]


def _roots_at(directory: str, package: str, own: bool = False) -> tuple[list[Path], list[Unreadable]]:
    """The install roots (and unreadable submodules) of one level of :func:`install_levels`;
    ``own``: the calling file lies inside ``directory/package/`` (its own copy, a root even
    when ``directory`` is a package)."""
    join = os.path.join
    roots: list[str] = []
    fs = _fs()
    if _holds(directory, package) and (own or not fs.is_file(join(directory, "__init__.py"))):
        roots.append(directory)
    src = join(directory, "src")
    if _holds(src, package) and not fs.is_file(join(src, "__init__.py")):
        roots.append(src)
    for child in _subdirectories(directory):
        if _holds(child, package) and _checkout(child):
            roots.append(child)
        if os.path.basename(child).lower() in _VENDOR_FOLDERS:
            roots.extend(g for g in _subdirectories(child) if _holds(g, package) and _checkout(g))
    roots.extend(p for p in _script_paths(directory) if _holds(p, package))
    found, problems = _submodules(directory, package)
    roots.extend(found)
    return [Path(r) for r in roots], problems


def _script_paths(directory: str) -> list[str]:
    """Folders the shell scripts of ``directory`` and ``directory/scripts`` put on
    ``PYTHONPATH`` (``$PWD``/``$(pwd)`` read as ``directory``: scripts run from the root)."""
    paths: list[str] = []
    scripts: list[str] = []
    fs = _fs()
    for folder in (directory, os.path.join(directory, "scripts")):
        try:  # as ``glob("*.sh")``: names not starting with a dot; the folder listed once a run
            names = fs.list_dir(folder)
        except (OSError, ValueError):
            continue
        scripts.extend(os.path.join(folder, n) for n in names if n.endswith(".sh") and not n.startswith("."))
    for script in sorted(scripts):
        try:
            text = _read_text(script, errors="replace")[:200_000]
        except OSError:
            continue
        for m in _PYTHONPATH.finditer(text):
            for part in m.group(1).strip("\"'").split(":"):
                part = _CWD.sub(lambda _: directory, part).strip()
                if not part or "$" in part or "`" in part:
                    continue
                paths.append(os.path.normpath(part if os.path.isabs(part) else os.path.join(directory, part)))
    return list(dict.fromkeys(paths))


def _package_content(where: str, package: str) -> bool:
    """Whether a submodule's folder holds the package: ``where/package/__init__.py`` (also
    under ``src/``), or ``where`` is the package itself (``__init__.py`` beside
    ``trainer/constants_ppo.py``). A ``.git`` file or a placeholder (``.keep``) is no content:
    such a folder is not checked out."""
    join = os.path.join
    if _holds(where, package) or _holds(join(where, "src"), package):
        return True
    fs = _fs()
    return fs.is_file(join(where, "__init__.py")) and fs.is_file(join(where, "trainer", "constants_ppo.py"))


def _submodules(directory: str, package: str) -> tuple[list[str], list[Unreadable]]:
    """Submodules of ``directory/.gitmodules``: checked-out roots of ``package``, and those
    whose path or URL mentions it (``verl``, ``verl-fork``, ``my_verl``) whose folder lacks
    the package content (:func:`_package_content`; absent, empty, only a ``.git`` file or a
    placeholder): not checked out, their definition cannot be read."""
    import configparser

    gitmodules = os.path.join(directory, ".gitmodules")
    if not _fs().is_file(gitmodules):
        return [], []
    try:
        raw = _read_text(gitmodules)
        parser = configparser.ConfigParser(interpolation=None)
        parser.read_string(raw, source=gitmodules)
    except (OSError, UnicodeError, configparser.Error):
        return [], []
    roots: list[str] = []
    problems: list[Unreadable] = []
    for section in parser.sections():
        path = parser.get(section, "path", fallback="").strip()
        if not path:
            continue
        url = parser.get(section, "url", fallback="")
        where = os.path.normpath(os.path.join(directory, path))
        held = [c for c in (where, os.path.join(where, "src")) if _holds(c, package)]
        roots.extend(held)
        # a candidate: its path or URL mentions the package in any form (`verl-fork`, `my_verl`)
        candidate = package in path.lower() or package in url.lower()
        if candidate and not held and not _package_content(where, package):
            line = next((i for i, text in enumerate(raw.splitlines(), 1) if text.strip().startswith("path") and path in text), 1)
            problems.append(Unreadable(gitmodules, line, f"a submodule (`{path}`) that is not checked out"))
    return roots, problems


class SignatureResolver:
    """Decides :class:`CalleeInEffect` for target calls; caches per directory.

    Attributes:
        keyword: the rewrite passes ``config=<expr>`` (settings ``keyword``).
        verl_version: ``--verl-version`` (beats every ``verl-version`` setting), or ``None``.
        stop: where the searches stop (the settings' project root), or ``None``.
        respect_gitignore: the walk of the repository for copies of verl and declared
            import roots honours ``.gitignore`` (settings ``respect-gitignore``).

    A plain class, not a dataclass: one ``@dataclass`` costs ~1 ms at import, a share of
    every run's start (issue 13, item 6).
    """

    def __init__(
        self,
        keyword: bool = False,
        verl_version: Version | None = None,
        stop: Path | None = None,
        respect_gitignore: bool = True,
    ) -> None:
        self.keyword = keyword
        self.verl_version = verl_version
        self.stop = stop
        self.respect_gitignore = respect_gitignore
        self._cache: dict[tuple[str, str], CalleeInEffect] = {}
        #: ``(directory, qualified names) -> `` :meth:`callee_of`'s choice among their answers
        self._chosen: dict[tuple[str, tuple[str, ...]], CalleeInEffect] = {}
        self._settings: dict[str, tuple[Version, str] | None] = {}

    def callee(self, path: str, qualified: str) -> CalleeInEffect:
        """The definition in effect for a call of ``qualified`` made in ``path``.

        Args:
            path: the calling file's path (``"-"`` for standard input: the working
                directory stands in for its directory).
            qualified: the callee's absolute qualified name, e.g.
                ``"verl.trainer.main_ppo.get_ppo_ray_runtime_env"``.

        Returns:
            A :class:`CalleeInEffect`; never raises for unreadable or odd trees.
        """
        directory = absolute_parent(path) if path and path != "-" else os.getcwd()
        return self._callee_in(directory, qualified)

    def _callee_in(self, directory: str, qualified: str) -> CalleeInEffect:
        """:meth:`callee` for a call made in ``directory`` (absolute), kept per folder and name."""
        key = (directory, qualified)
        answer = self._cache.get(key)
        if answer is None:
            answer = self._cache[key] = self._decide(Path(directory), qualified)
        return answer

    def callee_of(self, path: str, qualified_names: tuple[str, ...]) -> CalleeInEffect:
        """The definition in effect for a call made in ``path`` whose callee may be any of
        ``qualified_names`` (:func:`callee_signature`'s choice among their
        :meth:`callee` answers), kept per folder and tuple of names: the answer depends on
        nothing else, so the calls of one module (or of one folder's modules) that import
        the same names from the same place are answered once a run (benchmark item 9: four
        calls a module, 540 in all, three folders).

        Args:
            path: the calling file's path (``"-"``: standard input, the working directory).
            qualified_names: the callee's absolute qualified names, in the order of the
                bindings that reach the call (a project re-export already read as its target).

        Returns:
            The first answer that refuses a config, else the first that is not certain,
            else the first answer; with no name, a certain answer of source ``"unknown"``.
        """
        directory = absolute_parent(path) if path and path != "-" else os.getcwd()
        key = (directory, qualified_names)
        chosen = self._chosen.get(key)
        if chosen is None:
            chosen = self._chosen[key] = _choose([self._callee_in(directory, q) for q in qualified_names])
        return chosen

    def _decide(self, directory: Path, qualified: str) -> CalleeInEffect:
        answer = self._first_source(directory, qualified)
        module, _, name = qualified.rpartition(".")
        if not module or not answer.accepts_config:
            return answer
        top = qualified.split(".", 1)[0]
        answer = self._repository_copies(directory, top, module, name, answer)
        return self._unread_mentions(directory, top, answer)

    def _repository(self, directory: Path) -> str | None:
        """The repository whose files decide for ``directory``: the one walk's root
        (:func:`ppo_migrate.project.tree.walk_root`) within the run's search bound, else
        ``None``. Asked by the repository-wide look-outs (mentions, the environment's verl)."""
        from ppo_migrate.project.snapshot import current
        from ppo_migrate.project.tree import walk_root

        here = directory.absolute()
        boundary = search_bound(here, current().root_of(here), self.stop)
        return walk_root(here, boundary) if boundary is not None else None

    def _unread_mentions(self, directory: Path, top: str, answer: CalleeInEffect) -> CalleeInEffect:
        """``answer``, unless a release decided it (a pin, the verl installed beside the
        tool) or nothing did, and a file of the repository in a format ppo-migrate does not
        read mentions a verl before 0.9.0 (trial 26b: ``hatch.toml``, ``pixi.lock``,
        ``conda-lock.yml``, an Apptainer ``%post``, a Ray ``runtime_env``...;
        :mod:`ppo_migrate.rules.mentions`): then the fix is unsafe (``certain=False``,
        reason kind ``"unread-pin"``), its reason naming the file and line. An in-tree copy,
        ``verl-version`` and an answer a stray copy already made unsafe are left as they are.
        The repository is the one :meth:`_repository_copies` walks."""
        if top != "verl" or not answer.accepts_config or answer.source not in ("declared", "installed", "unknown"):
            return answer
        if not answer.certain and answer.source != "unknown":  # a stray copy's reason stays
            return answer
        root = self._repository(directory)
        if root is None:
            return answer
        from ppo_migrate.rules.install_pins import install_pins
        from ppo_migrate.rules.mentions import unread_mentions
        from ppo_migrate.project.import_roots import declared_roots

        # a line the tool reads already keeps its own handling: ``sys.path.insert(0,
        # "vendor/verl-0.8.0.zip")`` is read inside the archive, an install command as a pin
        read = {(os.path.abspath(d.source), d.line) for d in declared_roots(root, self.respect_gitignore)}
        read.update((os.path.abspath(p.path), p.line) for p in install_pins(root))
        mentions = [m for m in unread_mentions(root, self.respect_gitignore) if (m.path, m.line) not in read]
        if not mentions:
            return answer
        first = mentions[0]
        place = f"`{display_path(first.path)}:{first.line}` mentions {first.written} in a line ppo-migrate does not read as a pin or an install"
        if len(mentions) > 1:
            place += f" ({len(mentions) - 1} more such mention{'s' if len(mentions) > 2 else ''})"
        if answer.source == "unknown":
            reason = f"nothing ppo-migrate reads says which verl runs, and {place}; if that verl runs, passing the config raises TypeError"
            # JSON ``callee``: what is assumed, as the reason says it (trial 26c)
            detail = f"nothing ppo-migrate reads says which verl runs, and {place}: passing the config is an unsafe fix"
        else:
            reason = f"{place}; if that verl runs rather than the one `{answer.where}` names, passing the config raises TypeError"
            detail = f"{answer.detail}; but {place}: passing the config is an unsafe fix"
        remedy = (
            "require verl>=0.9.0 there, or say which verl runs with verl-version (or --verl-version), "
            "or run with --use-ppo-runtime"
        )
        places = tuple(Related(display_path(m.path), m.line, 1, f"mentions {m.written}") for m in mentions[:_MAX_MENTIONS])
        why = Reason("unread-pin", reason, places)
        return CalleeInEffect(True, answer.source, answer.where, detail, reason, remedy, why, certain=False)

    def _repository_copies(
        self, directory: Path, top: str, module: str, name: str, answer: CalleeInEffect
    ) -> CalleeInEffect:
        """``answer`` (which accepts a config), unless another copy of ``top`` in the
        repository may be the one in effect (issue 26, a fresh tester's forms):

        1. a copy on a declared import root (:func:`ppo_migrate.project.import_roots.declared_roots`:
           pytest's ``pythonpath``, ``sys.path.insert``, a Dockerfile's, a Makefile's or a
           shell script's ``PYTHONPATH``, a ``.pth`` file) is a plausible definition in
           effect: one that takes no config (or cannot be read) refuses, certainly (PPO005
           naming the definition and the declaration);
        2. when a release decided (``setting``, ``declared``, ``installed``), or an in-tree
           copy decided while a Python file of the repository puts a folder the tool cannot
           evaluate on ``sys.path`` (:func:`ppo_migrate.project.import_roots.opaque_roots`:
           ``_add('vendor')``, paths read from ``paths.json``; trial 26b), a *stray* copy
           of verl (:func:`ppo_migrate.project.tree.package_copies`: anywhere in the
           repository but its test data, on no import root the walk knows; and
           :func:`ppo_migrate.project.tree.build_copies`: a stale ``build/lib/``;
           :func:`ppo_migrate.project.tree.mapped_copies`: a ``package-dir`` mapping;
           :func:`ppo_migrate.project.tree.unlisted_copies`: a copy in a folder git ignores
           (hidden or not, a clone's top folder named ``verl`` included, trial 26d), in a
           folder skipped by name (``dist/``, ``__pypackages__/``), or in the
           ``site-packages`` of the repository's virtual environment, trial 26c) that
           takes no config makes the answer uncertain: the fix is unsafe, its reason naming the
           copy (and the ignored folder or the environment).

        The repository is the one walk of :func:`ppo_migrate.project.tree.repository_listing`
        from the search root (:func:`ppo_migrate.project.tree.walk_root`: a file in test data
        is judged within its sample project).

        A copy under a folder of test doubles (``tests/fakes/verl``) is a fake the tests put
        on the path: case 2 whether or not a file declares it (the doubles table's rule,
        :mod:`ppo_migrate.rules.patches`: an unsafe fix, never a notice)."""
        # the repository is the run's root (the git top level, even above the settings'
        # folder: a sub-project's ``[tool.ppo-migrate]`` does not hide a root copy that
        # ``python -m sub.launcher`` from the top level imports), a submodule's within it
        root = self._repository(directory)  # a sample project in test data: its own
        if root is None:
            return answer
        from ppo_migrate.project.import_roots import declared_roots
        from ppo_migrate.project.tree import (
            build_copies,
            in_doubles_folder,
            mapped_copies,
            nested_copies,
            package_copies,
            repository_listing,
            unlisted_copies,
        )

        verl = top == "verl"
        checked: set[str] = set()
        for declared in declared_roots(root, self.respect_gitignore):
            if declared.path in checked or in_doubles_folder(declared.path, root):
                continue
            checked.add(declared.path)
            if _fs().is_file(declared.path):  # ``sys.path.insert(0, "vendor/verl.zip")``
                if _fs().is_zip(declared.path):  # any name: ``.pyz``, ``verl-0.8.0.bundle``
                    bindings = archive_definitions(declared.path, module, name)
                elif top in os.path.basename(declared.path).lower():
                    # not a zip, yet named for the package: what it holds cannot be told
                    bindings = [Unreadable(declared.path, 1, "a file on sys.path that is no zip archive")]
                else:  # a script or a data file: Python's import system skips it
                    continue
                found = self._read([], module, name, "in-tree", verl, bindings)
            else:
                found = self._read([Path(declared.path)], module, name, "in-tree", verl)
            if found is None or found.accepts_config:
                continue
            how = (
                f"{found.reason}; {declared.form} at `{display_path(declared.source)}:{declared.line}` "
                f"puts `{display_path(declared.path)}` on sys.path"
            )
            lines = (found.why.lines if found.why is not None else ()) + (
                Related(display_path(declared.source), declared.line, 1, f"{declared.form} puts the copy on sys.path"),
            )
            kind = found.why.kind if found.why is not None else "in-tree-definition"
            return found._replace(reason=how, detail=how, why=Reason(kind, how, lines))
        if verl:  # trial 26e (B): a copy put on the path that cannot be read here
            from ppo_migrate.project.import_roots import unread_roots

            for unread in unread_roots(root, self.respect_gitignore):
                return self._unread_root(unread, name)
            from ppo_migrate.project.tree import repository_listing as _listing

            walked = _listing(root, self.respect_gitignore)
            folders = walked.folders
            for link in walked.dangling:
                # trial 26e (J): ``verl -> .cache/verl/verl`` filled by the launch script
                if os.path.basename(link) == top and "__init__.py" not in folders.get(os.path.dirname(link), ()):
                    return self._dangling_copy(link, name)
        # trial 26h: a copy in a package folder of the caller, or under another name
        shadowing = self._script_folder_copy(root, directory, top, module, name)
        if shadowing is None and verl and answer.certain:
            shadowing = self._renamed_copy(root, top, module, name, answer)
        if shadowing is None and verl and answer.certain:
            # trial 26i (I-B5): a lone ``patches/constants_ppo.py`` copied over verl's module
            shadowing = self._lone_module_file(root, top, module, name, answer)
        if shadowing is None and verl and answer.certain:
            # trial 26i (I-B5): ``shutil.copy(SRC, <...>/constants_ppo.py)`` at run time
            shadowing = self._written_module(root, top, module, name, answer)
        if shadowing is None and verl and answer.certain:
            # fresh user 43 (B3): a wheel or sdist in the repository carrying the module
            shadowing = self._archived_module(root, top, module, name, answer)
        if shadowing is None and verl and answer.certain:
            # fresh user 43 (B2): a patch of the module kept in the repository, applied by hand
            shadowing = self._unapplied_patch(root, top, module, name, answer)
        if shadowing is None and verl and answer.certain:
            # trial 26i (I-B8): ``verl.trainer.__getattr__ = _lazy`` set from outside
            shadowing = self._package_hook(root, top, module, answer)
        if shadowing is not None:
            return shadowing
        if verl and answer.source == "unknown" and answer.accepts_config and not answer.certain:
            return self._unknown_with_copies(root, top, module, name, answer)
        if not (verl and answer.certain):
            return answer
        opaque = None
        nested_only = False
        if answer.source == "in-tree":
            # trial 26b: an in-tree copy decided, but a statement puts a folder the tool cannot
            # evaluate on sys.path: any stray copy may be the one it puts first
            from ppo_migrate.project.import_roots import opaque_roots

            opaque = next(iter(opaque_roots(root, self.respect_gitignore)), None)
            # fresh40 B2: else a copy in a package folder still counts (below)
            nested_only = opaque is None
        elif answer.source not in ("setting", "declared", "installed"):
            return answer
        listing = repository_listing(root, self.respect_gitignore)
        copies = [] if nested_only else package_copies(listing, top, module) + build_copies(listing, top, module)
        # trial 26h (H-B1): ``lib/verl/`` in a package folder is ``verl`` for a process that
        # runs a file of ``lib/`` as a script, and so for every module that process imports;
        # fresh40 B2: whatever decided (``app/train.py`` imports ``lib/x.py``, the root
        # ``verl/`` decided for ``lib/``), but for a call inside that copy (its own modules)
        here = os.path.abspath(os.fspath(directory))
        nested = [
            c for c in nested_copies(listing, top, module)
            if c not in copies and not (here + os.sep).startswith(os.path.join(c, top) + os.sep)
        ]
        copies += nested
        if nested_only and not nested:
            return answer
        # trial 26c (D): .gitignore decides what is analysed, not which verl may be in effect
        unlisted = {} if nested_only else {c.root: c for c in unlisted_copies(listing, top, module)}
        copies += [c for c in unlisted if c not in copies]
        mapped = {} if nested_only else {folder: pyproject for pyproject, folder in mapped_copies(listing, top, module)}
        for copy in copies + list(mapped):
            if copy in checked:
                continue
            if copy in mapped:  # ``package-dir``: ``verl`` installed from ``legacy_verl/``
                found = self._read([], module, name, "in-tree", verl, mapped_definitions(copy, module, name))
            else:
                found = self._read([Path(copy)], module, name, "in-tree", verl)
            if found is None or found.accepts_config:
                continue
            place = found.why.lines[0] if found.why is not None and found.why.lines else None
            if place is not None and in_doubles_folder(copy, root):
                # worded as the doubles table words the fakes it sees (patches.py)
                reason = f"{place.path}:{place.line} defines a `{name}` taking no config, which a test may put first on sys.path"
                remedy = f"give the fake a `{CONFIG_PARAMETER}=None` parameter, or run with --use-ppo-runtime"
            elif opaque is not None:
                reason = (
                    f"{found.reason}: a copy in the repository besides the one at `{answer.where}`, "
                    f"and {opaque.form} at `{display_path(opaque.source)}:{opaque.line}` puts a folder "
                    "the tool cannot evaluate on sys.path; if that is this copy's, passing the "
                    "config raises TypeError"
                )
                remedy = (
                    "update or remove that copy, spell the sys.path change with literals, "
                    "or run with --use-ppo-runtime"
                )
            elif copy in unlisted and unlisted[copy].kind == "environment":
                reason = (
                    f"{found.reason}: verl installed in the environment `{display_path(unlisted[copy].folder)}` "
                    f"of the repository, besides the verl that `{answer.where}` names; if the project "
                    "runs with that environment (`uv run`, an activated virtual environment), passing "
                    "the config raises TypeError"
                )
                remedy = (
                    f"install verl>={_first_config_release()} in that environment (or remove it), "
                    "or run with --use-ppo-runtime"
                )
            elif copy in unlisted:
                which = "which git ignores" if unlisted[copy].kind == "ignored" else "which the analysis skips"
                reason = (
                    f"{found.reason}: a copy in `{display_path(unlisted[copy].folder)}`, {which}, "
                    f"besides the verl that `{answer.where}` names; if anything puts it on sys.path "
                    "(`cd` into its folder before `python -m`, direnv, an editor's or a workflow's "
                    "PYTHONPATH, a launch script), passing the config raises TypeError"
                )
                remedy = "update or remove that copy, or run with --use-ppo-runtime"
            elif copy in nested:
                shown, folder = display_path(os.path.join(copy, top)), display_path(copy)
                reason = (
                    f"{found.reason}: `{shown}/` is a package `{top}` inside the package folder "
                    f"`{folder}/`, besides the verl that `{answer.where}` names; a file of "
                    f"`{folder}/` run as a script puts `{folder}/` first on sys.path, and then "
                    f"`{shown}/` is the {top} of every module that process imports: passing the "
                    "config raises TypeError"
                )
                remedy = "update or remove that copy, or run with --use-ppo-runtime"
            elif _namespace_beside(copy, top, directory):
                # trial 26e (W4): the script's own folder is first on sys.path; a namespace
                # package there loses only to a regular one found on the path
                shown = display_path(os.path.join(copy, top))
                reason = (
                    f"{found.reason}: `{shown}/` (no `__init__.py`: a namespace package) is in the "
                    "calling file's folder, which `python <file>` puts first on sys.path: where no "
                    "regular verl is installed it is the verl imported and passing the config raises "
                    f"TypeError (where the verl that `{answer.where}` names is installed, that one wins)"
                )
                remedy = (
                    "update or remove that copy, or run with --use-ppo-runtime"
                )
            else:
                reason = (
                    f"{found.reason}: a copy in the repository besides the verl that `{answer.where}` "
                    "names; if anything puts it on sys.path (pytest's pythonpath, sys.path.insert, "
                    "a Dockerfile, a .pth file), passing the config raises TypeError"
                )
                remedy = (
                    "update or remove that copy (test data belongs under a `fixtures/` folder), "
                    "or run with --use-ppo-runtime"
                )
            places = (place,) if place is not None else ()
            if opaque is not None:
                places += (Related(display_path(opaque.source), opaque.line, 1, f"{opaque.form} of a folder the tool cannot evaluate"),)
            return _made_uncertain(answer, reason, remedy, places)
        return answer

    def _unknown_with_copies(
        self, root: Path, top: str, module: str, name: str, answer: CalleeInEffect
    ) -> CalleeInEffect:
        """``answer`` (nothing says which verl runs: an unsafe fix whose reason says "no
        in-tree copy"), its texts naming the copy of ``top`` the repository holds on no import
        root the tool knows, when there is one (trial 26g, W1: ``libs/verl/`` or
        ``third_party/rlcore/verl/`` beside a ``BUILD.bazel``, a snapshot in
        ``tools/upstream/verl/``, a git-ignored checkout: "no in-tree copy" was false, while
        with a pin added the same copy was named).

        The copies are the ones :meth:`_repository_copies` weighs against a release
        (:func:`ppo_migrate.project.tree.package_copies`, ``build_copies``,
        ``unlisted_copies``), in that order; the first one whose ``name`` takes no config is
        named with its definition, else the first one read at all. The answer stays as unsafe
        as it was (``certain=False``): this only makes its reason true.

        Args:
            root: the repository's root (:meth:`_repository`).
            top: the top-level package (``"verl"``).
            module: the dotted module holding the function.
            name: the function's name.
            answer: the ``"unknown"`` answer of :meth:`_first_source`.

        Returns:
            ``answer``, or a copy of it whose ``reason``, ``detail`` and ``why`` name the copy.
        """
        from ppo_migrate.project.import_roots import declared_roots
        from ppo_migrate.project.tree import build_copies, package_copies, repository_listing, unlisted_copies

        listing = repository_listing(root, self.respect_gitignore)
        unlisted = {c.root: c for c in unlisted_copies(listing, top, module)}
        copies = package_copies(listing, top, module) + build_copies(listing, top, module)
        copies += [c for c in unlisted if c not in copies]
        first = None  # (copy, the answer read there)
        for copy in copies:
            found = self._read([Path(copy)], module, name, "in-tree", True)
            if found is None:
                continue
            if not found.accepts_config:
                first = (copy, found)
                break
            first = first or (copy, found)
        if first is None:
            return answer
        copy, found = first
        shown = display_path(os.path.join(copy, top))
        if copy in unlisted:
            which = "which git ignores" if unlisted[copy].kind == "ignored" else "which the analysis skips"
            where = f"`{shown}/` (in `{display_path(unlisted[copy].folder)}`, {which})"
        else:
            where = f"`{shown}/`"
        said = f"{where} is a copy on no import root ppo-migrate knows"
        on_root = next((d for d in declared_roots(root, self.respect_gitignore) if d.path == copy), None)
        if on_root is not None:
            # trial 26g: a Bazel rule's ``imports``, pytest's ``pythonpath``: a root the tool
            # knows, which puts the copy first only where it applies (a Bazel target, a
            # pytest run): the fix stays unsafe, the text says where the root comes from
            put = f"{on_root.form} at `{display_path(on_root.source)}:{on_root.line}` puts on sys.path"
            said = f"{where} is a copy that {put} (not every run)"
        if found.accepts_config:
            said += f", whose `{name}` takes a config"
            note = (
                f"the copy {where}, which {put}, takes a config" if on_root is not None
                else f"the copy {where}, on no import root ppo-migrate knows, takes a config"
            )
        else:
            note = (
                f"{found.reason}: if anything puts that copy on sys.path (a build rule's `imports`, "
                "pytest's pythonpath, sys.path.insert, a Dockerfile, a .pth file), passing the config "
                "raises TypeError"
            )
        reason = answer.reason.replace("no in-tree copy", said, 1)
        detail = answer.detail.replace("no in-tree copy", said, 1)
        if reason == answer.reason or not found.accepts_config:
            # "the in-tree copy `verl/` has no ...": kept, the copy added
            reason = f"{reason}; {note}"
        places = tuple(answer.why.lines) if answer.why is not None else ()
        if found.why is not None and found.why.lines:
            places += (found.why.lines[0],)
        kind = answer.why.kind if answer.why is not None else "newest-assumed"
        # the message joins reason and remedy with "; " (check.py): the concise form then
        # says it once
        text = f"{reason}; {answer.remedy}" if answer.remedy else reason
        return answer._replace(reason=reason, detail=detail, why=Reason(kind, text, places))

    def _inferred_install(self, declared, where: str, decided: CalleeInEffect) -> CalleeInEffect:
        """The answer for a line installing a local folder that holds a ``verl/`` package
        while spelling no verl (:attr:`ppo_migrate.rules.versions.VerlDeclaration.inferred`:
        ``- -e ./.deps/checkouts/lab/rlcore`` in an ``environment.yml``'s ``pip:`` section,
        trial 26g W2), from ``decided``, the answer read in that copy.

        A copy taking no config refuses (PPO005), its reason naming the line first; one
        taking a config gives an unsafe fix (``certain=False``): the line does not say that
        its verl is the one that runs, and before this rule nothing decided there (never a
        safer outcome than before).

        Args:
            declared: the :class:`ppo_migrate.rules.versions.VerlDeclaration`.
            where: ``path:line written`` of the line, as shown.
            decided: :meth:`_read`'s answer in ``declared.local_path``.
        """
        folder = display_path(declared.local_path)
        installs = f"`{where}` installs `{folder}/`, which holds a `verl/` package"
        places = (Related(display_path(declared.path), declared.line, 1, f"installs `{folder}/`"),)
        if decided.why is not None:
            places = tuple(decided.why.lines) + places
        if not decided.accepts_config:
            reason = f"{installs}: {decided.reason}"
            kind = decided.why.kind if decided.why is not None else "in-tree-definition"
            return decided._replace(reason=reason, detail=reason, why=Reason(kind, reason, places))
        reason = (
            f"{installs}, whose `{decided.where}` takes a config; the line does not name verl, "
            "so ppo-migrate cannot tell that this copy is the verl that runs"
        )
        why = Reason("uncertain-definition", f"{reason}; {DECLARE_VERL}", places)
        return CalleeInEffect(True, "declared", where, reason, reason, DECLARE_VERL, why, certain=False)

    def _unread_root(self, unread, name: str) -> CalleeInEffect:
        """The PPO005 answer for a declaration putting a copy of verl on ``sys.path`` that
        cannot be read here (:class:`ppo_migrate.project.import_roots.UnreadRoot`: trial 26e,
        B): worded as for a submodule not checked out, naming the declaring line."""
        where = f"{display_path(unread.source)}:{unread.line}"
        reason = (
            f"{unread.form} at `{where}` puts `{unread.written}` on sys.path: a copy of verl "
            f"ppo-migrate cannot read here (not evaluated, or absent on this machine), whose "
            f"`{name}` may take no config"
        )
        remedy = (
            "spell the path so that it names the copy in the repository, set verl-version if it "
            "is a verl release, or run with --use-ppo-runtime"
        )
        return _refuse("in-tree", where, reason, remedy, _why("in-tree", reason, unread.source, unread.line, "uncertain-definition"))

    def _dangling_copy(self, link: str, name: str) -> CalleeInEffect:
        """The PPO005 answer for a symbolic link named ``verl`` whose target is absent here
        (trial 26e, J): on a fresh clone the link dangles, and the copy it names when the
        project runs (a cache its launch script fills, a folder of the image) cannot be read."""
        try:
            target = os.readlink(link)
        except OSError:
            target = "?"
        where = f"{display_path(link)}:1"
        reason = (
            f"`{display_path(link)}` is a symbolic link to `{target}`, absent here: a copy of verl "
            f"ppo-migrate cannot read, whose `{name}` may take no config"
        )
        remedy = "run where the link's target exists, set verl-version if it is a verl release, or run with --use-ppo-runtime"
        return _refuse("in-tree", where, reason, remedy, _why("in-tree", reason, link, 1, "uncertain-definition"))

    def _script_folder_copy(
        self, root: Path, directory: Path, top: str, module: str, name: str
    ) -> CalleeInEffect | None:
        """The PPO005 answer when a package folder ``P`` holding the calling folder
        ``directory`` (``P`` itself or one above it, within ``root``) holds a copy ``P/<top>/``
        whose ``name`` takes no config, else ``None`` (trial 26h, H-B1).

        Rule: imported from the root, ``app/verl/`` is ``app.verl``; but any file of ``app/``
        may run as a script (``python app/train.py``, ``cd app && python -m train``), which
        puts ``app/`` first on ``sys.path``: then ``app/verl/`` is ``verl`` for that file and
        every module it imports (its siblings, its sub-packages). Both are plausible, so the
        copy is a plausible definition in effect for every call under ``P``; one that takes
        no config refuses (:func:`ppo_migrate.project.tree.nested_copies`). A call inside the
        copy itself is its own copy's (:func:`install_levels`); a copy under a folder of test
        doubles (``tests/verl/``) is a fake, left to the stray copies' rule (an unsafe fix)."""
        from ppo_migrate.project.tree import in_doubles_folder, nested_copies, repository_listing

        here = os.path.abspath(os.fspath(directory))
        listing = repository_listing(root, self.respect_gitignore)
        for folder in nested_copies(listing, top, module):
            own = os.path.join(folder, top)
            if not (here == folder or here.startswith(folder + os.sep)):
                continue
            if in_doubles_folder(own, os.fspath(root)):
                continue  # a fake (``tests/verl/``): the doubles' rule, an unsafe fix, never a notice
            if here == own or here.startswith(own + os.sep):
                continue
            found = self._read([Path(folder)], module, name, "in-tree", top == "verl")
            if found is None or found.accepts_config:
                continue
            shown, place = display_path(own), display_path(folder)
            how = (
                f"{found.reason}; `{shown}/` is a package `{top}` inside the package folder "
                f"`{place}/`: a file of `{place}/` run as a script (`python {place}/<file>.py`, "
                f"`cd {place} && python -m <module>`) puts `{place}/` first on sys.path, and then "
                f"`{shown}/` is the {top} this call imports"
            )
            lines = found.why.lines if found.why is not None else ()
            kind = found.why.kind if found.why is not None else "in-tree-definition"
            return found._replace(reason=how, detail=how, why=Reason(kind, how, lines))
        return None

    def _renamed_copy(
        self, root: Path, top: str, module: str, name: str, answer: CalleeInEffect
    ) -> CalleeInEffect | None:
        """``answer`` made uncertain (an unsafe fix) when a folder of the repository not named
        ``top`` holds ``module`` as ``top`` would and its ``name`` takes no config, else
        ``None`` (trial 26h, H-B2).

        Rule: a copy of verl is recognised by its content, not its folder's name
        (:func:`ppo_migrate.project.tree.renamed_copies`, read as a ``package-dir`` mapping
        reads it: :func:`mapped_definitions`): ``third_party/rlcore/`` becomes ``verl`` at run
        time through a symbolic link, a copy or a mapping the tool cannot read in general (a
        launch script's ``ln -s``, ``os.symlink``/``shutil.copytree`` in the launcher, then
        ``sys.path.insert``), absent in a fresh clone. Folders a ``package-dir`` mapping names
        are left to that rule (:func:`ppo_migrate.project.tree.mapped_copies`). Folders git
        ignores are searched too (:func:`ppo_migrate.project.tree.unlisted_renamed_copies`,
        fresh user 40, B3: ``work/rlcore/`` with ``.gitignore: work/``), as for stray copies
        named ``top`` (:func:`ppo_migrate.project.tree.unlisted_copies`)."""
        from ppo_migrate.project.tree import (
            mapped_copies,
            renamed_copies,
            repository_listing,
            unlisted_renamed_copies,
        )

        listing = repository_listing(root, self.respect_gitignore)
        mapped = {folder for _, folder in mapped_copies(listing, top, module)}
        # fresh40 B3: in folders git ignores too, as for copies named ``top``
        unlisted = {c.root: c for c in unlisted_renamed_copies(listing, top, module)}
        for folder in renamed_copies(listing, top, module) + list(unlisted):
            if folder in mapped:
                continue
            found = self._read([], module, name, "in-tree", True, mapped_definitions(folder, module, name))
            if found is None or found.accepts_config:
                continue
            where = f"`{display_path(folder)}/`"
            if folder in unlisted:
                which = "which git ignores" if unlisted[folder].kind == "ignored" else "which the analysis skips"
                where += f" (in `{display_path(unlisted[folder].folder)}/`, {which})"
            reason = (
                f"{found.reason}: {where} holds a copy of {top} under another name (its "
                f"`{'/'.join(module.split('.')[1:])}.py` binds `{name}`), besides the {top} that "
                f"`{answer.where}` names; if anything makes it `{top}` when the project runs (a "
                "symbolic link or a copy named "
                f"`{top}` made by a launch script, a Makefile or the launcher, then sys.path or "
                "PYTHONPATH), passing the config raises TypeError"
            )
            remedy = "update or remove that copy, or run with --use-ppo-runtime"
            places = found.why.lines[:1] if found.why is not None else ()
            return _made_uncertain(answer, reason, remedy, places)
        return None

    def _lone_module_file(
        self, root: Path, top: str, module: str, name: str, answer: CalleeInEffect
    ) -> CalleeInEffect | None:
        """``answer`` made uncertain (an unsafe fix) when a file of the repository named as
        ``module``'s own file, in no copy of ``top``, defines ``name`` taking no config, else
        ``None`` (trial 26i, I-B5).

        Rule: a hotfix kept as a lone ``patches/constants_ppo.py`` is put in the place of
        ``verl/trainer/constants_ppo.py`` when the project runs (a launcher copying the
        installed verl with ``shutil.copytree``, the file over its module with ``shutil.copy``,
        then ``sys.path.insert``; a ``__path__`` entry or an import hook naming its folder):
        what puts it there cannot be read in general and leaves nothing in a fresh clone, so
        the file is recognised by its name (:func:`ppo_migrate.project.tree.lone_module_files`)
        and counts only when its module body defines ``name`` with a plain ``def`` that takes
        no config (:func:`_definition`; one in an ``if``/``try`` block counts too), or when it
        imports ``name`` from a module outside ``top`` or a relative one, which the tool does
        not follow from there (:func:`_imported_elsewhere`; fresh user 43, B4). A file that
        imports ``name`` from ``top`` (a project's wrapper module re-exporting verl's), binds
        it otherwise or defines it with a config is no replacement: ``None``; a fake under a
        folder of test doubles is the doubles table's (:mod:`ppo_migrate.rules.patches` names
        the line that loads it). Fresh user 43, W1: a file that is a module of the project's own
        packages and that project code imports under that name
        (:func:`ppo_migrate.project.tree.own_module_import`: ``app/compat/constants_ppo.py``
        imported as ``app.compat.constants_ppo``) is the project's module, no hotfix: evidence
        over names (copying it over verl's module is a write, :meth:`_written_module`). The renamed-copy rule
        (:meth:`_renamed_copy`) is asked first, and this one in the same cases (a release or an
        in-tree copy decided, certainly).

        Args:
            root: the repository's root (:meth:`_repository`).
            top: the top-level package (``"verl"``).
            module: the callee's module, e.g. ``"verl.trainer.constants_ppo"``.
            name: the callee, e.g. ``"get_ppo_ray_runtime_env"``.
            answer: the answer so far (it accepts a config, certainly).
        """
        from ppo_migrate.project.tree import lone_module_files, own_module_import, repository_listing

        listing = repository_listing(root, self.respect_gitignore)
        shown_module = "/".join(module.split(".")) + ".py"
        for path in lone_module_files(listing, top, module):
            if own_module_import(listing, path) is not None:
                continue  # fresh user 43, W1: the project's own module (a copy over verl's is a write)
            found = _find(_LoneFileTree(path, module), module, name, 0) or ()
            own = [d for d in found if isinstance(d, Definition) and d.path == path]
            refusing = [d for d in own if not d.accepts(self.keyword)]
            shown = display_path(path)
            named = f"`{shown}` is named as {top}'s module `{shown_module}` but lies in no copy of {top}"
            if refusing:
                read = self._read([], module, name, "in-tree", True, refusing[:1])
                if read is None or read.accepts_config:  # not reached: ``refusing`` refuses
                    continue
                reason = (
                    f"{read.reason}: {named}, besides the {top} that `{answer.where}` names; if anything "
                    f"puts it in that module's place when the project runs (copied over a copy of {top} "
                    "made by the launcher, a `__path__` entry, an import hook), passing the config raises "
                    "TypeError"
                )
                places = read.why.lines[:1] if read.why is not None else ()
            else:  # fresh user 43, B4: a hotfix re-exporting a module copied beside it
                imported = _imported_elsewhere(path, top, name)
                if imported is None:
                    continue
                line, statement = imported
                reason = (
                    f"{named}, and binds `{name}` by `{statement}` (line {line}), which the tool does not "
                    f"follow from there, besides the {top} that `{answer.where}` names; if anything puts "
                    "it in that module's place when the project runs, the function it gives may take no "
                    "config"
                )
                places = (Related(shown, line, 1, f"imports `{name}`"),)
            remedy = "update or remove that file, or run with --use-ppo-runtime"
            return _made_uncertain(answer, reason, remedy, places)
        return None

    def _written_module(
        self, root: Path, top: str, module: str, name: str, answer: CalleeInEffect
    ) -> CalleeInEffect | None:
        """``answer`` made uncertain (an unsafe fix) when a Python file of the repository
        writes a file named as ``module``'s own file at run time (trial 26i, I-B5: a launcher
        copying the installed verl to ``.overlay/verl``, then ``shutil.copy(ROOT / "patches" /
        "ray_env.py", dst / "trainer" / "constants_ppo.py")``), else ``None``.

        Rule (:func:`ppo_migrate.project.import_roots.module_writes`): a write whose source
        evaluates to a file whose ``name`` takes a config is harmless; one whose source's
        ``name`` takes none names that definition and the write; one whose source cannot be
        told (a path the tool cannot evaluate, text written with ``write_text``) or holds no
        plain ``def`` of ``name`` names the write. Asked after :meth:`_lone_module_file` (a
        hotfix keeping the module's name is named by its definition there), in the same cases.
        Fresh user 43, B1: a destination computed from the module itself
        (``find_spec("verl.trainer.constants_ppo").origin``, ``cp.__file__``,
        ``inspect.getfile(cp)``, ``os.path.dirname(verl.__file__) + "/trainer/constants_ppo.py"``,
        ``importlib.resources.files("verl.trainer") / "constants_ppo.py"``) replaces the
        installed module: the reason says so (``ModuleWrite.over``).

        Args:
            root: the repository's root (:meth:`_repository`).
            top: the top-level package (``"verl"``).
            module: the callee's module, e.g. ``"verl.trainer.constants_ppo"``.
            name: the callee, e.g. ``"get_ppo_ray_runtime_env"``.
            answer: the answer so far (it accepts a config, certainly).
        """
        parts = module.split(".")
        if len(parts) < 2:
            return None
        from ppo_migrate.project.carriers import module_carriers
        from ppo_migrate.project.import_roots import module_writes

        file_name = parts[-1] + ".py"
        shown_module = "/".join(parts) + ".py"
        writes = module_writes(root, file_name, self.respect_gitignore, module) + module_carriers(
            root, module, self.respect_gitignore
        )
        for write in writes:
            at = f"`{display_path(write.source)}:{write.line}` ({write.form})"
            places = [Related(display_path(write.source), write.line, 1, f"{write.form} writes `{file_name}`")]
            # fresh user 43, B1: the destination is the installed module's own file
            onto = (
                f"over {top}'s module `{shown_module}` itself (the file of the {top} installed)"
                if write.over else f"to a file named as {top}'s module `{shown_module}`"
            )
            placed = (
                "that file is the module imported" if write.over
                else f"that file is in the module's place (a copy of {top} made by the launcher)"
            )
            if write.kind != "write":  # fresh user 43, B2: ``sed -i``, ``patch``
                changed = self._changed_module(write, top, module, name, shown_module, at, answer)
                if changed is not None:
                    return changed
                continue
            own: list[Definition] = []
            if write.copied is not None:
                found = _find(_LoneFileTree(write.copied, module), module, name, 0) or ()
                own = [d for d in found if isinstance(d, Definition) and d.path == write.copied]
            refusing = [d for d in own if not d.accepts(self.keyword)]
            if own and not refusing:
                continue  # the file copied there takes a config
            if refusing:
                read = self._read([], module, name, "in-tree", True, refusing[:1])
                first = read.reason if read is not None else ""
                reason = (
                    f"{first}: {at} copies `{display_path(write.copied)}` {onto} when the project runs, "
                    f"besides the {top} that `{answer.where}` names; if {placed}, passing the config "
                    "raises TypeError"
                )
                if read is not None and read.why is not None:
                    places = list(read.why.lines[:1]) + places
                remedy = "update the file copied, or run with --use-ppo-runtime"
            else:
                what = f"`{display_path(write.copied)}`" if write.copied is not None else "a file the tool cannot read"
                reason = (
                    f"{at} writes {what} {onto} when the project runs, besides the {top} that "
                    f"`{answer.where}` names; if {placed} and its `{name}` takes no config, passing "
                    "the config raises TypeError"
                )
                remedy = f"copy a file whose `{name}` takes a config, or run with --use-ppo-runtime"
            why = Reason("uncertain-definition", reason, places)
            return CalleeInEffect(
                True, answer.source, answer.where, answer.detail, reason, remedy, why, certain=False
            )
        from ppo_migrate.project.carriers import module_mentions

        for mention in module_mentions(root, module, self.respect_gitignore)[:1]:
            # fresh user 45: a line naming the module's file that no reading explains (a task
            # runner's table, a Slurm script, a mount, a heredoc, a patch under another name)
            at = f"`{display_path(mention.path)}:{mention.line}`"
            reason = (
                f"{at} names {top}'s module file `{file_name}` (`{mention.text}`) in a way the tool "
                f"cannot read, besides the {top} that `{answer.where}` names; if it puts another file "
                f"there when the project runs and its `{name}` takes no config, passing the config "
                "raises TypeError"
            )
            places = [Related(display_path(mention.path), mention.line, 1, f"names `{file_name}`")]
            remedy = "make sure what it puts there takes a config, or run with --use-ppo-runtime"
            return _made_uncertain(answer, reason, remedy, places)
        return None

    def _changed_module(
        self, write, top: str, module: str, name: str, shown_module: str, at: str, answer: CalleeInEffect
    ) -> CalleeInEffect | None:
        """For an edit in place or a patch of ``module``'s file (fresh user 43, B2;
        :func:`ppo_migrate.project.carriers.module_carriers`): ``answer`` made uncertain, or
        ``None`` when the patch is seen to leave ``name`` taking a config.

        Rule: ``sed -i``/``perl -pi`` of the module's file change it in a way the tool does not
        read: unsafe, naming the line. A patch's changes to the module (:func:`_patch_effect`):
        one that changes no line naming ``name`` leaves its signature as the release has it
        (harmless); one that adds a ``def`` of ``name`` taking a config (and binds it nowhere
        else) too; one that adds a ``def`` taking none names that line of the patch; any
        other change of a line naming ``name`` (an assignment, the ``def`` removed), or a
        patch the tool cannot find, names the line applying it.

        Args:
            write: the :class:`ppo_migrate.project.import_roots.ModuleWrite` (kind ``"edit"``
                or ``"patch"``).
            top: the top-level package (``"verl"``).
            module: the callee's module, e.g. ``"verl.trainer.constants_ppo"``.
            name: the callee, e.g. ``"get_ppo_ray_runtime_env"``.
            shown_module: the module's path as shown, ``verl/trainer/constants_ppo.py``.
            at: the write as shown, ```run.sh:3` (patch)``.
            answer: the answer so far (it accepts a config, certainly).
        """
        places = [Related(display_path(write.source), write.line, 1, f"{write.form} changes `{shown_module}`")]
        besides = f"besides the {top} that `{answer.where}` names"
        if write.kind == "edit":
            reason = (
                f"{at} edits {top}'s module `{shown_module}` in place when the project runs, which the tool "
                f"cannot read, {besides}; if its `{name}` then takes no config, passing the config raises TypeError"
            )
            remedy = f"ship a module whose `{name}` takes a config instead of the edit, or run with --use-ppo-runtime"
        else:
            effect = _patch_effect(write.copied, module, name) if write.copied is not None else ("unread", None, None)
            kind, line, definition = effect
            if kind == "harmless":
                return None
            patch = f"`{display_path(write.copied)}`" if write.copied is not None else "a patch the tool cannot find"
            if kind == "defines" and definition is not None and not definition.accepts(self.keyword):
                read = self._read([], module, name, "in-tree", True, [definition])
                first = read.reason if read is not None else ""
                reason = (
                    f"{first}: {at} applies {patch} to {top}'s module `{shown_module}` when the project runs, "
                    f"{besides}; passing the config raises TypeError"
                )
                places = [Related(display_path(definition.path), definition.line, 1, f"defines `{name}`")] + places
            elif kind == "defines":
                return None  # the def the patch adds takes the config as it is passed
            else:
                which = f" (`{display_path(write.copied)}:{line}`)" if line is not None and write.copied else ""
                reason = (
                    f"{at} applies {patch} to {top}'s module `{shown_module}` when the project runs, changing "
                    f"`{name}` in a way the tool cannot read{which}, {besides}; if its `{name}` then takes no "
                    "config, passing the config raises TypeError"
                )
            remedy = f"patch `{name}` to take a config, or run with --use-ppo-runtime"
        why = Reason("uncertain-definition", reason, tuple(places))
        return CalleeInEffect(True, answer.source, answer.where, answer.detail, reason, remedy, why, certain=False)

    def _archived_module(
        self, root: Path, top: str, module: str, name: str, answer: CalleeInEffect
    ) -> CalleeInEffect | None:
        """``answer`` made uncertain (an unsafe fix) when an archive of the repository carries
        ``module``'s file and its ``name`` takes no config or cannot be read, else ``None``
        (fresh user 43, B3: ``wheels/verl_hotfix-0.1-py3-none-any.whl`` holding its own
        ``verl/trainer/constants_ppo.py``, installed over verl with ``pip install``).

        Rule: the archives are the repository's files named ``*.whl``, ``*.egg``, ``*.zip``,
        ``*.tar``, ``*.tar.gz``/``*.tgz``, ``*.tar.bz2``, ``*.tar.xz`` (by name: a tree without
        them opens nothing; those directly in a ``dist/`` or ``wheelhouse/`` folder the walk
        skips count too); each is opened once a run and only its members named
        ``verl/trainer/constants_ppo.py`` (an sdist's ``pkg-1.0/src/verl/...`` too) are read, in
        memory (:meth:`ppo_migrate.project.filesystem.FileSystem.archive_files_ending`). The
        member's definition decides as a copied file's does (:meth:`_written_module`); one that
        takes a config is harmless. An archive that cannot be read (damaged, larger than
        :data:`_MAX_ARCHIVE_BYTES`) counts when a wheel (``.whl``/``.egg``: installed code) or
        named for ``top`` (``verl-hotfix.tar.gz``), the reason saying why; another (a data set's
        ``.tar.gz``) says nothing of verl. Archives under a folder of test doubles are fixtures.
        """
        from ppo_migrate.project.tree import in_doubles_folder, repository_listing

        listing = repository_listing(root, self.respect_gitignore)
        archives = listing.files(lambda n: n.endswith(_ARCHIVE_NAMES))
        fs = _fs()
        for folder in listing.skipped:  # ``dist/``, skipped by the walk, is where a built wheel is kept
            if os.path.basename(folder) in ("dist", "wheelhouse"):
                try:
                    names = fs.list_dir(folder)
                except (OSError, ValueError):
                    continue
                archives += [os.path.join(folder, n) for n in names if n.endswith(_ARCHIVE_NAMES)
                             and fs.is_file(os.path.join(folder, n))]
        if not archives:
            return None
        below = "/".join(module.split(".")) + ".py"
        besides = f"besides the {top} that `{answer.where}` names"
        for archive in archives:
            if in_doubles_folder(archive, root):
                continue
            shown = display_path(archive)
            try:
                members = fs.archive_files_ending(archive, below, _MAX_ARCHIVE_BYTES)
            except (OSError, ValueError) as exc:
                base = os.path.basename(archive).lower()
                if not (base.endswith((".whl", ".egg")) or top in base):
                    continue
                why = "it is larger than the tool reads" if "too large" in str(exc) else "it cannot be read"
                reason = (
                    f"`{shown}` may carry its own {top} module `{below}` (an archive installed over {top}), but "
                    f"{why}, {besides}; if it is installed and its `{name}` takes no config, passing the config "
                    "raises TypeError"
                )
                remedy = "remove that archive or make it readable, or run with --use-ppo-runtime"
                return _made_uncertain(answer, reason, remedy, (Related(shown, 1, 1, "an archive"),))
            for member, data in sorted(members.items()):
                prefix = member[: -len(below)].rstrip("/")
                base = f"{archive}/{prefix}" if prefix else archive
                found = _find(_ArchiveTree(base, {below: data}), module, name, 0) or ()
                own = [d for d in found if isinstance(d, Definition)]
                refusing = [d for d in own if not d.accepts(self.keyword)]
                if own and not refusing:
                    continue
                carried = (
                    f"`{shown}` carries its own {top} module `{member}` (a wheel or archive installed over "
                    f"{top}'s, or put on sys.path)"
                )
                if refusing:
                    read = self._read([], module, name, "in-tree", True, refusing[:1])
                    first = read.reason if read is not None else ""
                    reason = f"{first}: {carried}, {besides}; if it is installed, passing the config raises TypeError"
                    places = read.why.lines[:1] if read is not None and read.why is not None else ()
                else:
                    reason = (
                        f"{carried}, whose `{name}` the tool cannot read, {besides}; if it is installed and its "
                        f"`{name}` takes no config, passing the config raises TypeError"
                    )
                    places = (Related(shown, 1, 1, f"carries `{member}`"),)
                remedy = f"rebuild that archive with a `{name}` taking a config (or remove it), or run with --use-ppo-runtime"
                return _made_uncertain(answer, reason, remedy, places)
        return None

    def _unapplied_patch(
        self, root: Path, top: str, module: str, name: str, answer: CalleeInEffect
    ) -> CalleeInEffect | None:
        """``answer`` made uncertain when a ``.patch``/``.diff`` file of the repository that no
        carrier is seen to apply (fresh user 43, B2: applied by hand, by a CI step outside the
        repository, by a loop the tool cannot read) adds a ``def`` of ``name`` to ``module``'s
        file that takes no config, else ``None``.

        Rule: a patch is evidence of what runs only by its content: one that makes the
        function take no config is a hotfix of an old signature and counts wherever it is
        applied; one whose effect cannot be read, or that leaves a config, says nothing
        without a line applying it (else every patch kept for the record would make fixes
        unsafe). A patch under a folder of test doubles is a fixture.
        """
        from ppo_migrate.project.carriers import patch_files
        from ppo_migrate.project.tree import in_doubles_folder

        shown_module = "/".join(module.split(".")) + ".py"
        for patch in patch_files(root, self.respect_gitignore):
            if in_doubles_folder(patch, root):
                continue
            kind, _, definition = _patch_effect(patch, module, name)
            if kind != "defines" or definition is None or definition.accepts(self.keyword):
                continue
            read = self._read([], module, name, "in-tree", True, [definition])
            first = read.reason if read is not None else ""
            reason = (
                f"{first}: `{display_path(patch)}` patches {top}'s module `{shown_module}`, besides the {top} that "
                f"`{answer.where}` names; if it is applied when the project runs, passing the config raises TypeError"
            )
            remedy = f"patch `{name}` to take a config (or remove that patch), or run with --use-ppo-runtime"
            places = (Related(display_path(definition.path), definition.line, 1, f"defines `{name}`"),)
            return _made_uncertain(answer, reason, remedy, places)
        return None

    def _package_hook(self, root: Path, top: str, module: str, answer: CalleeInEffect) -> CalleeInEffect | None:
        """``answer`` made uncertain (an unsafe fix) when a Python file of the repository sets a
        module ``__getattr__`` on a package on ``module``'s way (trial 26i, I-B8:
        ``verl.trainer.__getattr__ = _lazy`` in a boot module; ``from verl.trainer import
        constants_ppo`` asks the package's attribute first, so the hook may serve another
        module in the file's place: :func:`ppo_migrate.project.import_roots.package_hooks`),
        else ``None``. A package's own ``def __getattr__`` is read with the copy
        (:func:`_served_elsewhere`).

        Args:
            root: the repository's root (:meth:`_repository`).
            top: the top-level package (``"verl"``).
            module: the callee's module, e.g. ``"verl.trainer.constants_ppo"``.
            answer: the answer so far (it accepts a config, certainly).
        """
        from ppo_migrate.project.import_roots import package_hooks

        parts = module.split(".")
        chain = {".".join(parts[:i]) for i in range(1, len(parts))}
        for hook in package_hooks(root, top, self.respect_gitignore):
            if hook.package not in chain:
                continue
            at = f"`{display_path(hook.source)}:{hook.line}`"
            nxt = parts[len(hook.package.split("."))]
            reason = (
                f"{at} sets a module `__getattr__` on `{hook.package}`, which `from {hook.package} "
                f"import {nxt}` asks before it imports the file, besides the {top} that "
                f"`{answer.where}` names; if it serves another `{nxt}` whose function takes no "
                "config, passing the config raises TypeError"
            )
            remedy = "serve a module whose function takes a config, or run with --use-ppo-runtime"
            places = (Related(display_path(hook.source), hook.line, 1, f"sets `{hook.package}.__getattr__`"),)
            return _made_uncertain(answer, reason, remedy, places)
        return None

    def _single_module(self, directory: Path, module: str, name: str) -> CalleeInEffect | None:
        """A target outside verl whose module is one file, ``mylab_env.py`` beside the calling
        file or in a folder above it up to the run's root (the folders Python puts first when
        a script or ``python -m`` runs there): its definition decides, read with ``ast`` as a
        copy's (:meth:`_read`); ``None`` when no such file defines ``name`` (fresh user 45's
        row 3: ``extend-targets`` naming a single-module file).

        Args:
            directory: the calling file's folder.
            module: the target's module, e.g. ``"mylab_env"`` (a dotted one: ``None``).
            name: the target's function, e.g. ``"get_env"``.
        """
        if not module or "." in module:
            return None
        from ppo_migrate.project.snapshot import current

        here = directory.absolute()
        boundary = search_bound(here, current().root_of(here), self.stop)
        for level in (here, *here.parents):
            path = level / f"{module}.py"
            if current().fs.is_file(path):
                found = _find(_LoneFileTree(str(path), module), module, name, 0) or ()
                own = [d for d in found if isinstance(d, Definition) and d.path == str(path)]
                if own:
                    return self._read([], module, name, "in-tree", False, own)
            if boundary is None or level == boundary:
                break
        return None

    def _first_source(self, directory: Path, qualified: str) -> CalleeInEffect:
        """The first source of the module docstring's list that decides."""
        module, _, name = qualified.rpartition(".")
        top = qualified.split(".", 1)[0]
        verl = top == "verl"
        lacking = None  # an in-tree copy without the module (its reason says so)
        if module:  # a dotted name: its top-level package may have a copy in the tree
            # issue 26: every level up to the repository root; a copy that does not hold
            # the module (``tests/verl/`` without ``constants_ppo``) hides nothing
            for roots, problems in install_levels(directory, top, self.stop):
                decided = self._read(roots, module, name, "in-tree", verl, problems)
                if decided is not None:
                    # a call inside the copy (verl's own modules) is that copy's; any other
                    # caller may run without the copy on sys.path (fresh user 40, B4:
                    # ``PYTHONSAFEPATH=1``, a Dockerfile copying only ``main.py``,
                    # ``python pkg/main.py``): a declared release is as plausible
                    here = os.fspath(directory.absolute()) + os.sep
                    inside = any(here.startswith(os.path.join(os.path.abspath(r), top) + os.sep) for r in roots)
                    return self._against_release(directory, decided) if verl and not inside else decided
                lacking = lacking or _lacking_copy(roots, top, module)
        if not verl:
            return self._single_module(directory, module, name) or _outside_verl(qualified)
        setting = self._setting(directory)
        if setting is not None:
            version, where, place = setting
            return self._by_version(version, "setting", where, where, "runs", place)
        # not a cycle (versions imports nothing of this module): imported on the first call
        # no in-tree copy or setting decides, as versions pulls packaging's requirement
        # parser and importlib.metadata (~60 ms of start-up that such a run never needs)
        from ppo_migrate.rules.versions import installed_verl, verl_evidence

        evidence = verl_evidence(directory, self.stop)
        declared = evidence.decided
        if declared is not None:
            where = f"{display_path(declared.path)}:{declared.line} {declared.requirement}"
            if declared.version is not None:
                exact = declared.kind == "lock" or declared.requirement.replace(" ", "").startswith(
                    tuple(f"{n}==" for n in ("verl", "Verl", "VERL"))
                )
                decided = self._by_version(
                    declared.version, "declared", where, declared.why, "runs" if exact else "may run",
                    (declared.path, declared.line),
                    floorless=declared.kind == "specifier" and _no_lower_bound(declared.requirement),
                )
                return _through_dependent(decided, declared.via) if declared.via is not None else decided
            if declared.local_path is not None:
                # fresh user 43, W2: a member (or any local folder) in a src layout, ``src/verl/``
                local = Path(declared.local_path)
                decided = self._read([local, local / "src"], module, name, "declared", verl)
                if decided is not None and declared.inferred:
                    return self._inferred_install(declared, where, decided)
                if decided is not None:
                    return decided
            reason = f"the project takes verl from `{where}`, whose release cannot be read"
            if declared.excluded is not None:  # fresh user 43, W11: the exclude entry's line
                reason = (
                    f"the project takes verl from its uv workspace (`{declared.requirement}`), but "
                    f"`{display_path(declared.path)}:{declared.line}` excludes the member "
                    f"`{declared.excluded}` whose project is verl, so the release it runs cannot be read"
                )
            if declared.kind == "specifier" and ";" in declared.requirement:
                # ``verl>=0.9.0; platform_machine == 'aarch64'`` (trial 26d): the release is
                # read; markers describe the machine that runs the trainer, not this one
                reason = (
                    f"the project takes verl from `{where}`, which applies only where its marker "
                    "holds: elsewhere nothing says which release runs"
                )
            return _refuse(
                "declared",
                where,
                reason,
                "set verl-version (or --verl-version) to the release it holds, or run with --use-ppo-runtime",
                _why("declared", reason, declared.path, declared.line),
            )
        installed = installed_verl()
        if installed is not None:
            decided = self._installed(module, name, installed)
            if decided is not None:
                return decided
        decided = self._environment_installed(directory)
        if decided is not None:
            return decided
        # issue 26, family 3: ruff and pyupgrade assume the oldest target when nothing says;
        # a config is passed only by an unsafe fix that says what would decide
        reason, place = _newest_assumed(evidence.set_aside, lacking)
        return CalleeInEffect(
            True, "unknown", "",
            UNKNOWN_CALLEE.replace("no in-tree copy", lacking, 1) if lacking else UNKNOWN_CALLEE,
            reason,
            DECLARE_VERL,
            _why("unknown", f"{reason}: {DECLARE_VERL}", *place),
            certain=False,
        )

    def _against_release(self, directory: Path, copy: CalleeInEffect) -> CalleeInEffect:
        """``copy`` (an in-tree copy of verl's that decided, for a call outside that copy),
        unless it takes a config while the project pins a verl release whose function takes
        none (trial 26h: a 0.9-style ``verl/`` at the root, an upstream snapshot nobody
        installs, beside ``requirements.txt`` pinning a 0.8 release; ``python
        examples/train.py`` runs the pinned release, as the root is not on its
        ``sys.path``). Which one runs depends on ``sys.path`` at run time: the two plausible
        definitions disagree, so the call is a PPO005 naming both (issue 26: "where they
        disagree, a PPO005 notice that names them"). A pin of the copy itself (``-e
        ./verl``, a path) is no release and agrees.

        Fresh user 40, B4: this holds for a caller under the copy's own import root too
        (``main.py`` beside ``verl/``): ``PYTHONSAFEPATH=1 python main.py``, a Dockerfile
        copying only ``main.py`` into an image that installs the pin, or ``python
        pkg/main.py`` (``pkg/`` first on ``sys.path``) run the release. Only a call inside
        the copy (verl's own modules) is left to the copy.

        Args:
            directory: the calling file's folder.
            copy: the in-tree copy's answer (:meth:`_read`, source ``"in-tree"``).

        Returns:
            ``copy``, or a refusal (source ``"declared"``) whose reason names the copy's
            definition and the pin.
        """
        if not copy.accepts_config or not copy.certain:
            return copy
        from ppo_migrate.rules.versions import verl_evidence

        declared = verl_evidence(directory, self.stop).decided
        if declared is None or declared.version is None:
            return copy
        where = f"{display_path(declared.path)}:{declared.line} {declared.requirement}"
        release = self._by_version(
            declared.version, "declared", where, declared.why, "may run", (declared.path, declared.line),
            floorless=declared.kind == "specifier" and _no_lower_bound(declared.requirement),
        )
        if release.accepts_config:
            return copy
        reason = (
            f"the in-tree copy `{copy.where}` takes a config, but `{where}` declares a verl "
            "release whose `get_ppo_ray_runtime_env()` takes none; which of them runs depends "
            "on sys.path when the trainer starts"
        )
        remedy = (
            "require verl>=0.9.0 where the release is declared (or install the copy), set "
            "verl-version (or --verl-version) to the verl that runs, or run with --use-ppo-runtime"
        )
        places = tuple(r for w in (copy.why, release.why) if w is not None for r in w.lines)
        return CalleeInEffect(
            False, "declared", where, reason, reason, remedy, Reason("pin", reason, places)
        )

    def _environment_installed(self, directory: Path) -> CalleeInEffect | None:
        """When nothing else decides: the lowest verl release installed in one of the
        repository's own environments (``.venv``, ``venv``, ``.direnv``: the interpreter the
        project runs with under ``uv run`` or once activated), by its ``dist-info`` metadata
        (:func:`ppo_migrate.project.tree.environment_distributions`), an editable install
        included (trial 26d: ``uv pip install -e work/src/upstream/verl`` leaves no package
        folder there). ``None`` when there is none or no release can be read."""
        from packaging.version import InvalidVersion, Version

        from ppo_migrate.project.tree import environment_distributions, repository_listing

        root = self._repository(directory)
        if root is None:
            return None
        releases = []
        for found in environment_distributions(repository_listing(root, self.respect_gitignore), "verl"):
            try:
                releases.append((Version(found.version), found))
            except InvalidVersion:
                continue
        if not releases:
            return None
        version, found = min(releases, key=lambda pair: pair[0])
        metadata = display_path(found.metadata)
        where = f"verl {version} (installed in {display_path(found.environment)})"
        return self._by_version(version, "installed", where, f"`{metadata}`", "runs", (found.metadata, 1))

    def _installed(self, module: str, name: str, installed) -> CalleeInEffect | None:
        from ppo_migrate.project.installed import package_locations

        locations = package_locations("verl")  # the collect layer asks importlib
        decided = self._read([Path(loc).parent for loc in locations], module, name, "installed", True)
        if decided is not None:
            return decided
        if installed.version is not None:
            where = f"verl {installed.version} (installed)"
            return self._by_version(
                installed.version, "installed", where, installed.why, "runs", (installed.path, 1)
            )
        return None

    def _setting(self, directory: Path) -> tuple[Version, str, tuple[str, int] | None] | None:
        """``--verl-version``, else ``verl-version`` of the nearest ``[tool.ppo-migrate]``:
        the version, how it is shown, and the file and line that set it (``None``: the CLI)."""
        if self.verl_version is not None:
            return self.verl_version, f"--verl-version {self.verl_version}", None
        key = str(directory)
        if key not in self._settings:
            self._settings[key] = _nearest_setting(directory)
        return self._settings[key]

    def _by_version(
        self,
        version: Version,
        source: str,
        where: str,
        why: str,
        runs: str,
        place: tuple[str, int] | None = None,
        floorless: bool = False,
    ) -> CalleeInEffect:
        """The answer for a verl release ``version`` (a setting, a pin, the installed one).

        Args:
            version: the release that decides (a specifier's lowest allowed one).
            source: ``"setting"``, ``"declared"`` or ``"installed"``.
            where: what decided, as shown (``pyproject.toml:4 verl>=0.8``).
            why: how the release was read (JSON ``callee``).
            runs: ``"runs"`` or ``"may run"``, as the reason says it.
            place: the deciding file and line, or ``None``.
            floorless: the specifier sets no lower bound (``verl<0.9.0.dev0``): its lowest
                release is a floor ppo-migrate made up, so the reason names the requirement
                as written, not that release (trial 26g).

        A pre-release of 0.9.0 or later (``verl==0.9.0rc1``) is not taken as a release
        with a config (as before), but the reason says that it *may* take none: whether verl
        PR #6976 is in it cannot be known (trial 26g).
        """
        path, line = place if place is not None else (None, 1)
        if version >= _first_config_release():
            detail = f"verl {version} ({why}) takes a config"
            return CalleeInEffect(True, source, where, detail, why=_why(source, detail, path, line))
        if source == "setting":
            reason = f"`{where}` names a verl release whose `get_ppo_ray_runtime_env()` takes no config"
            remedy = "raise verl-version once the project runs verl>=0.9.0, or run with --use-ppo-runtime"
        elif version.is_prerelease and type(version)(version.base_version) >= _first_config_release():
            reason = (
                f"the project {runs} verl {version} (`{where}`), a pre-release of "
                f"{version.base_version} whose `get_ppo_ray_runtime_env()` may take no config "
                "(ppo-migrate cannot tell whether verl PR #6976 is in it)"
            )
            remedy = "require verl>=0.9.0, or run with --use-ppo-runtime"
            return _refuse(source, where, reason, remedy, _why(source, reason, path, line))
        elif floorless:
            reason = (
                f"the project may run a verl release before {_first_config_release()} (`{where}` sets no "
                "lower bound), whose `get_ppo_ray_runtime_env()` takes no config"
            )
            remedy = "require verl>=0.9.0, or run with --use-ppo-runtime"
        else:
            reason = (
                f"the project {runs} verl {version} (`{where}`), whose "
                "`get_ppo_ray_runtime_env()` takes no config"
            )
            remedy = "require verl>=0.9.0, or run with --use-ppo-runtime"
        return _refuse(source, where, reason + _PRE_PR, remedy, _why(source, reason + _PRE_PR, path, line))

    def _read(
        self,
        roots: list[Path],
        module: str,
        name: str,
        source: str,
        verl: bool,
        problems: list[Unreadable] = (),  # type: ignore[assignment]
    ) -> CalleeInEffect | None:
        bindings: list[Definition | Unreadable] = list(problems)
        for root in roots:
            bindings.extend(find_definitions(root, module, name) or ())
        if not bindings:
            return None
        copy = "update that copy, or run with --use-ppo-runtime" if verl else (
            f"give `{name}` a config parameter (`ppo-migrate apply --thread-config` threads one "
            "through wrappers)"
        )
        unreadable = [b for b in bindings if isinstance(b, Unreadable)]
        if unreadable:
            u = unreadable[0]
            where = f"{display_path(u.path)}:{u.line}"
            reason = f"`{where}` binds `{name}` by {u.why}, so its signature cannot be read"
            return _refuse(
                source, where,
                reason,
                "make it a plain def, set verl-version if it is a verl release, or run with "
                "--use-ppo-runtime" if verl else copy,
                _why(source, reason, u.path, u.line, "uncertain-definition"),
            )
        definitions = [b for b in bindings if isinstance(b, Definition)]
        refusing = [d for d in definitions if not d.accepts(self.keyword)]
        if not refusing:
            d = definitions[0]
            where = f"{display_path(d.path)}:{d.line}"
            detail = f"`{where}` defines `{d.spelled}`"
            return CalleeInEffect(True, source, where, detail, why=_why(source, detail, d.path, d.line))
        d = refusing[0]  # one copy or branch the call may bind to refuses: never written
        where = f"{display_path(d.path)}:{d.line}"
        if not self.keyword and d.keyword:
            reason = f"`{where}` defines `{d.spelled}`, which takes the config by keyword only"
            remedy = "run with --keyword (keyword = true)"
        elif self.keyword and d.positional:
            reason = f"`{where}` defines `{d.spelled}`, which takes no `{CONFIG_PARAMETER}=` keyword"
            remedy = "run without --keyword (keyword = false)"
        else:
            reason = f"`{where}` defines `{d.spelled}` without a config parameter" + (_PRE_PR if verl else "")
            remedy = copy
        return _refuse(source, where, reason, remedy, _why(source, reason, d.path, d.line))


def _patch_effect(path: str, module: str, name: str) -> tuple[str, int | None, Definition | None]:
    """What the patch ``path`` does to ``name`` in ``module``'s file (fresh user 43, B2;
    :func:`ppo_migrate.project.carriers.patch_changes`): ``("harmless", None, None)`` when no
    line it adds or removes names ``name`` (or it does not change the module);
    ``("defines", line, definition)`` when it adds one plain ``def`` of ``name`` (its added
    lines up to the one ending with ``:`` parsed with :mod:`ast`) and names ``name`` on no
    other added line, ``definition`` placed at that line of the patch; else ``("unread",
    line, None)``, ``line`` the first changed line naming ``name``."""
    from ppo_migrate.project.carriers import patch_changes

    changes = patch_changes(path, module)
    if not changes:
        return "harmless", None, None
    word = re.compile(rf"\b{re.escape(name)}\b")
    naming = [c for c in changes if word.search(c.text)]
    if not naming:
        return "harmless", None, None
    added = [c for c in changes if c.sign == "+"]
    defs = [i for i, c in enumerate(added) if re.match(rf"\s*(?:async\s+)?def\s+{re.escape(name)}\s*\(", c.text)]
    others = [c for c in added if word.search(c.text) and not re.match(rf"\s*(?:async\s+)?def\s+{re.escape(name)}\b", c.text)]
    if len(defs) != 1 or others:
        return "unread", naming[0].line, None
    first = defs[0]
    header = []
    for c in added[first:first + 20]:
        header.append(c.text.split("#", 1)[0].rstrip())
        if header[-1].endswith(":"):
            break
    try:
        tree = ast.parse("\n".join(h.strip() for h in header) + "\n    pass\n")
    except (SyntaxError, ValueError):
        return "unread", added[first].line, None
    node = tree.body[0] if tree.body else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.decorator_list:
        return "unread", added[first].line, None
    if first and re.match(r"\s*@", added[first - 1].text):
        return "unread", added[first - 1].line, None  # a decorator added above it
    return "defines", added[first].line, _definition(node, name, Path(path), added[first].line)


def _nearest_setting(directory: Path) -> tuple[Version, str, tuple[str, int] | None] | None:
    """``verl-version`` of the nearest ``pyproject.toml`` with a ``[tool.ppo-migrate]`` table
    above ``directory`` (ruff's hierarchical configuration), or ``None``: read by the
    loader's reader (:func:`ppo_migrate.settings_model.directory_settings`)."""
    # one read, through the loader's reader (no import of the loader here, issue 26): the
    # settings' project root is the directory of the table's pyproject
    settings = directory_settings(directory)
    if settings is None:
        return None  # no table, or a broken one (the run's own settings report it)
    value = settings.verl_version
    if value is None or settings.project_root is None:
        return None
    from packaging.version import Version

    pyproject = Path(settings.project_root) / "pyproject.toml"
    line = 1
    try:
        for number, text in enumerate(_read_text(pyproject).splitlines(), 1):
            if text.strip().startswith(("verl-version", "verl_version")):
                line = number
                break
    except (OSError, UnicodeError):
        pass
    return Version(value), f"{display_path(pyproject)}: verl-version = {value}", (str(pyproject), line)


_RESOLVERS: dict[tuple[bool, str | None, str | None, bool], SignatureResolver] = {}


def resolver_for(settings) -> SignatureResolver:
    """The process's :class:`SignatureResolver` for a run's settings (one per run's
    ``keyword``, command-line ``verl_version`` and ``project_root``, so its cache is
    shared by every file a process analyses).

    Args:
        settings: a :class:`ppo_migrate.settings_model.Settings`.
    """
    version = getattr(settings, "verl_version", None) if getattr(settings, "verl_version_from_cli", False) else None
    root = getattr(settings, "project_root", None)
    respect = bool(getattr(settings, "respect_gitignore", True))
    key = (bool(settings.keyword), version, str(root) if root else None, respect)
    resolver = _RESOLVERS.get(key)
    if resolver is None:
        verl_version = None
        if version:
            from packaging.version import Version

            verl_version = Version(version)
        resolver = _RESOLVERS[key] = SignatureResolver(
            keyword=bool(settings.keyword),
            verl_version=verl_version,
            stop=Path(root).absolute() if root else None,
            respect_gitignore=respect,
        )
    return resolver


def callee_signature(path: str, qualified_names, settings, reexports=None) -> CalleeInEffect:
    """The definition in effect for a target call whose callee may be any of
    ``qualified_names`` (one per binding that reaches the call).

    Args:
        path: the calling file's path (``"-"``: standard input).
        qualified_names: iterable of absolute qualified names of the callee (a name of
            ``reexports`` is read as the target it re-exports).
        settings: the run's :class:`ppo_migrate.settings_model.Settings`.
        reexports: the project's own re-exports of the targets, name -> target (the run's
            reference index's: :attr:`ppo_migrate.project.references.References.reexports`);
            ``None``: none known.

    Returns:
        The first answer that refuses a config (one binding that would raise is
        enough to leave the call alone), else the first that is not certain (issue 26:
        nothing decided which verl runs), else the first answer.
    """
    resolver = resolver_for(settings)
    # the project's own re-export (``pkg.get_...``) stands for the target it re-exports
    if reexports:
        names = tuple(reexports.get(q, q) for q in qualified_names)
    else:
        names = tuple(qualified_names)
    return resolver.callee_of(path, names)


def _choose(answers: list[CalleeInEffect]) -> CalleeInEffect:
    """The answer that decides for a call whose callee may be any of several names: the
    first that refuses a config (one binding that would raise is enough to leave the call
    alone), else the first that is not certain (issue 26: nothing decided which verl
    runs), else the first; with none, a certain answer of source ``"unknown"``."""
    if not answers:
        return CalleeInEffect(True, "unknown", "", "")
    return next(
        (a for a in answers if not a.accepts_config),
        next((a for a in answers if not a.certain), answers[0]),  # then one nothing decided
    )
