"""Which definition a target call binds to, and whether it accepts a config.

verl PR #6976 changed ``get_ppo_ray_runtime_env()`` into
``get_ppo_ray_runtime_env(config=None)``; the first release with it is verl
0.9.0 (0.5.0-0.8.0 define it without a parameter). Passing a config to the old
definition raises ``TypeError`` at trainer start-up, so every rewrite asks first
which definition is *in effect* for the calling file. The sources, in order
(the first that knows decides, and the answer records which one did):

1. ``in-tree``: the definition in a copy of the callee's top-level package that
   the calling file sees (a ``verl/`` package directory next to it or above it,
   the nearest when the tree holds several; a checkout ``verl/verl/...`` with its
   own ``pyproject.toml``/``setup.py``). The ``def`` is read with :mod:`ast` and
   followed through re-exports (``main_ppo`` imports it from ``constants_ppo``);
   nothing is imported or executed.
2. ``setting``: ``verl-version`` in ``[tool.ppo-migrate]`` or ``--verl-version``.
3. ``declared``: the verl version the project declares (a lock file's version,
   else the lowest version its specifiers allow), see
   :mod:`ppo_migrate.analysis.versions`.
4. ``installed``: the verl installed in the interpreter running ppo-migrate (its
   source read as in 1, else its metadata version).
5. ``unknown``: the newest signature is assumed (a config is accepted).

Sources 2-4 speak of verl's releases only; a target outside ``verl`` is decided
by its in-tree definition or assumed to accept a config (``ppo_runtime``'s does).
"""

from __future__ import annotations

import ast
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import Version

from ppo_migrate.constants import CONFIG_PARAMETER

#: The first verl release whose ``get_ppo_ray_runtime_env`` takes a config (verl PR #6976).
FIRST_CONFIG_RELEASE = Version("0.9.0")
#: Files that make a directory an installable checkout (``pip install -e verl``).
_PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
#: How many re-exports are followed before giving up (a cycle, or a long chain).
_MAX_REEXPORTS = 8


@dataclass(frozen=True)
class Definition:
    """One ``def`` of the runtime function found in source.

    Attributes:
        path: the defining file (absolute).
        line: 1-based line of the ``def`` keyword.
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


@dataclass(frozen=True)
class CalleeInEffect:
    """The answer for one target call.

    Attributes:
        accepts_config: ``False`` when passing the config would raise ``TypeError``.
        source: which source decided: ``"in-tree"``, ``"setting"``, ``"declared"``,
            ``"installed"`` or ``"unknown"``.
        where: what decided, for messages: ``"verl/trainer/constants_ppo.py:38"``,
            ``"pyproject.toml:31 verl>=0.7.1,<0.9.0"``, ``"--verl-version 0.8.0"``.
        detail: one line saying how it was decided (JSON ``callee``); empty when
            nothing was known and the newest signature was assumed.
    """

    accepts_config: bool
    source: str
    where: str
    detail: str

    @property
    def reason(self) -> str:
        """Why a config cannot be passed, for PPO005 (empty when it can)."""
        return "" if self.accepts_config else f"{self.detail} (pre verl PR #6976)"

    @property
    def remedy(self) -> str:
        """What the user can do about a PPO005: update the copy, raise the pin, or move."""
        if self.source in ("in-tree", "installed"):
            return "update that copy, or run with --use-ppo-runtime"
        if self.source == "setting":
            return "raise verl-version once the project runs verl>=0.9.0, or run with --use-ppo-runtime"
        return "require verl>=0.9.0, or run with --use-ppo-runtime"


def _display(path: str | Path) -> str:
    """``path`` relative to the working directory when inside it, else absolute."""
    path = os.path.abspath(path)
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return path
    return path if rel.startswith("..") else rel


def _parse(path: Path) -> ast.Module | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(data, str(path))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _module_file(root: Path, module: str) -> Path | None:
    """The file ``import module`` loads from the install root ``root``, or ``None``."""
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _describe(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Definition:
    args = node.args
    positional = bool(args.posonlyargs or args.args or args.vararg)
    keyword = args.kwarg is not None or any(
        a.arg == CONFIG_PARAMETER for a in (*args.args, *args.kwonlyargs)
    )
    try:
        spelled = f"{node.name}({ast.unparse(args)})"
    except Exception:  # ast.unparse of odd defaults: the name is enough
        spelled = f"{node.name}(...)"
    return Definition("", node.lineno, positional, keyword, spelled)


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
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            yield from _top_level(stmt.body)


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


def find_definitions(root: Path, module: str, name: str) -> tuple[Definition, ...] | None:
    """The ``def``\\ s that ``from module import name`` binds, read from source.

    Args:
        root: the install root (the directory holding the top-level package).
        module: the dotted module, e.g. ``"verl.trainer.main_ppo"``.
        name: the function's name, e.g. ``"get_ppo_ray_runtime_env"``.

    Returns:
        Every definition the name may be bound to at import (more than one when the
        module defines it on several branches or re-exports it conditionally), each
        with its file and line; ``None`` when the module is not under ``root`` or
        binds the name in no way this function can follow (an assignment, a star
        import, a re-export from outside ``root``).
    """
    return _find(root, module, name, 0)


def _find(root: Path, module: str, name: str, depth: int) -> tuple[Definition, ...] | None:
    if depth > _MAX_REEXPORTS:
        return None
    path = _module_file(root, module)
    if path is None:
        return None
    tree = _parse(path)
    if tree is None:
        return None
    found: list[Definition] = []
    for stmt in _top_level(tree.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
            d = _describe(stmt)
            found.append(Definition(str(path), d.line, d.positional, d.keyword, d.spelled))
        elif isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                if (alias.asname or alias.name) != name or alias.name == "*":
                    continue
                source = _absolute(module, stmt, path.name == "__init__.py")
                if source is None:
                    return None
                inner = _find(root, source, alias.name, depth + 1)
                if inner is None:
                    return None
                found.extend(inner)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and any(
            isinstance(t, ast.Name) and t.id == name
            for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
        ):
            return None  # ``get_ppo_ray_runtime_env = ...``: not read statically
    return tuple(found) or None


def install_roots(start: Path, package: str, stop: Path | None = None) -> list[Path]:
    """The install roots of ``package`` that a file in ``start`` sees, nearest first.

    Walks up from ``start`` (a directory) to the project root: the first directory
    holding ``.git``, ``pyproject.toml``, ``setup.py`` or ``setup.cfg`` (itself
    included), or ``stop``. At each level ``D`` a root is ``D`` when
    ``D/package/__init__.py`` exists, or ``D/X`` when ``D/X/package/__init__.py``
    exists and ``D/X`` is an installable checkout (``pyproject.toml``, ``setup.py``
    or ``setup.cfg``: ``pip install -e X``). The first level with any root ends the
    walk; it may hold several (two checkouts side by side).

    Args:
        start: the calling file's directory (absolute or relative).
        package: the top-level package, e.g. ``"verl"``.
        stop: a directory where the walk ends in any case (the settings' project root).

    Returns:
        The roots found at the nearest level (sorted), or ``[]``.
    """
    directory = start.absolute()
    while True:
        roots: list[Path] = []
        if (directory / package / "__init__.py").is_file():
            roots.append(directory)
        try:
            children = sorted(p for p in directory.iterdir() if p.is_dir())
        except OSError:
            children = []
        for child in children:
            if (child / package / "__init__.py").is_file() and any(
                (child / f).is_file() for f in _PROJECT_FILES
            ):
                roots.append(child)
        if roots:
            return roots
        at_root = (directory / ".git").exists() or any(
            (directory / f).is_file() for f in _PROJECT_FILES
        )
        if at_root or directory.parent == directory or (stop is not None and directory == stop):
            return []
        directory = directory.parent


@dataclass
class SignatureResolver:
    """Decides :class:`CalleeInEffect` for target calls; caches per directory.

    Attributes:
        keyword: the rewrite passes ``config=<expr>`` (settings ``keyword``).
        verl_version: the ``verl-version`` setting, or ``None``.
        stop: where the search for a project's declared dependencies stops
            (the settings' project root), or ``None``.
    """

    keyword: bool = False
    verl_version: Version | None = None
    stop: Path | None = None
    _cache: dict[tuple[str, str], CalleeInEffect] = field(default_factory=dict)

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
        directory = str(Path(path).absolute().parent) if path and path != "-" else os.getcwd()
        key = (directory, qualified)
        answer = self._cache.get(key)
        if answer is None:
            answer = self._cache[key] = self._decide(Path(directory), qualified)
        return answer

    def _decide(self, directory: Path, qualified: str) -> CalleeInEffect:
        module, _, name = qualified.rpartition(".")
        top = qualified.split(".", 1)[0]
        if module:  # a dotted name: its top-level package may have a copy in the tree
            decided = self._in_tree(install_roots(directory, top, self.stop), module, name, "in-tree")
            if decided is not None:
                return decided
        if top != "verl":
            return CalleeInEffect(True, "unknown", "", "")
        if self.verl_version is not None:
            return self._by_version(
                self.verl_version, "setting", f"verl-version {self.verl_version}",
                f"verl-version = {self.verl_version}",
            )
        from ppo_migrate.analysis.versions import declared_verl, installed_verl

        notes: list[str] = []
        declared = declared_verl(directory, self.stop)
        if declared is not None:
            where = f"{_display(declared.path)}:{declared.line} {declared.requirement}"
            if declared.version is not None:
                runs = "runs" if declared.kind == "lock" else "may run"
                return self._by_version(declared.version, "declared", where, declared.why, runs)
            notes.append(declared.why)
        installed = installed_verl()
        if installed is not None:
            import importlib.util

            try:
                spec = importlib.util.find_spec("verl")
            except (ImportError, ValueError):
                spec = None
            locations = list(spec.submodule_search_locations or []) if spec else []
            roots = [Path(loc).parent for loc in locations]
            decided = self._in_tree(roots, module, name, "installed") if module else None
            if decided is not None:
                return decided
            if installed.version is not None:
                return self._by_version(
                    installed.version, "installed", f"verl {installed.version} (installed)",
                    installed.why,
                )
        if notes:
            notes.append("newest signature assumed")
        return CalleeInEffect(True, "unknown", "", "; ".join(notes))

    def _by_version(
        self, version: Version, source: str, where: str, why: str, runs: str = "runs"
    ) -> CalleeInEffect:
        if version >= FIRST_CONFIG_RELEASE:
            return CalleeInEffect(True, source, where, f"verl {version} ({why}) takes a config")
        if source == "setting":
            detail = f"`{where}` is a verl release whose `get_ppo_ray_runtime_env()` takes no config"
        else:
            detail = (
                f"the project {runs} verl {version} (`{where}`), whose "
                "`get_ppo_ray_runtime_env()` takes no config"
            )
        return CalleeInEffect(False, source, where, detail)

    def _in_tree(self, roots: list[Path], module: str, name: str, source: str) -> CalleeInEffect | None:
        definitions: list[Definition] = []
        for root in roots:
            found = find_definitions(root, module, name)
            if found:
                definitions.extend(found)
        if not definitions:
            return None
        refusing = [d for d in definitions if not d.accepts(self.keyword)]
        chosen = refusing[0] if refusing else definitions[0]
        where = f"{_display(chosen.path)}:{chosen.line}"
        if refusing:  # one copy the call may bind to refuses: uncertain, never written
            detail = f"`{where}` defines `{chosen.spelled}` without a config parameter"
            return CalleeInEffect(False, source, where, detail)
        return CalleeInEffect(True, source, where, f"`{where}` defines `{chosen.spelled}`")


_RESOLVERS: dict[tuple[bool, str | None, str | None], SignatureResolver] = {}


def resolver_for(settings) -> SignatureResolver:
    """The process's :class:`SignatureResolver` for a run's settings (one per run's
    ``keyword``, ``verl_version`` and ``project_root``, so its cache is shared by
    every file a process analyses).

    Args:
        settings: a :class:`ppo_migrate.settings.Settings`.
    """
    version = getattr(settings, "verl_version", None)
    root = getattr(settings, "project_root", None)
    key = (bool(settings.keyword), version, str(root) if root else None)
    resolver = _RESOLVERS.get(key)
    if resolver is None:
        resolver = _RESOLVERS[key] = SignatureResolver(
            keyword=bool(settings.keyword),
            verl_version=Version(version) if version else None,
            stop=Path(root).absolute() if root else None,
        )
    return resolver


def callee_signature(path: str, qualified_names, settings) -> CalleeInEffect:
    """The definition in effect for a target call whose callee may be any of
    ``qualified_names`` (one per binding that reaches the call).

    Args:
        path: the calling file's path (``"-"``: standard input).
        qualified_names: iterable of absolute qualified names of the callee.
        settings: the run's :class:`ppo_migrate.settings.Settings`.

    Returns:
        The first answer that refuses a config (one binding that would raise is
        enough to leave the call alone), else the first answer.
    """
    resolver = resolver_for(settings)
    answers = [resolver.callee(path, q) for q in qualified_names]
    if not answers:
        return CalleeInEffect(True, "unknown", "", "")
    return next((a for a in answers if not a.accepts_config), answers[0])
