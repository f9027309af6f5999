"""Paths on the command line -> the ``.py`` files (YAML files, notebooks, packaging files) to process.

Rules (ruff's, where ruff has one):

* **Named files** are always returned, whatever their name or extension and even
  when excluded or git-ignored, but for configuration files that are never Python
  (``*.toml``, ``*.ini``, ``*.cfg`` other than ``pyproject.toml`` and ``setup.cfg``,
  ``Pipfile``, ``.flake8``...: :func:`is_config_file`, which the pre-commit hooks pass
  along with the packaging files) — unless ``settings.force_exclude``, in which case
  the file, and every directory above it up to the project root (excludes) or
  the git root (``.gitignore``), is checked like a walked entry. A named file that a
  ``setup.cfg`` or ``pyproject.toml`` above it makes setuptools read entry points from
  (``entry_points = file: ep.cfg``; the ``holders`` of :func:`discover_files`) is replaced
  by those packaging files, whose findings are where ``check .`` reports them (fresh41, M3).
* **Named directories** are walked even if they themselves match an exclude or a
  ``.gitignore`` pattern (unless ``force_exclude``). Inside a walk every entry is
  checked on its own: a directory that is excluded or ignored is not entered; a
  ``*.py`` file that is excluded or ignored is skipped. Only ``*.py`` files are
  collected (not ``*.pyi``), ``*.yaml``/``*.yml`` files (:data:`YAML_SUFFIXES`: a
  Hydra ``_target_`` may name the runtime function, PPO006) and Jupyter notebooks
  (``*.ipynb``: their code cells are judged as a module, as ruff
  0.6+ checks them by default), and the packaging files ``pyproject.toml`` and
  ``setup.cfg`` (:data:`ENTRY_POINT_FILES`: an entry point they declare may name the
  runtime function, PPO006), under the same excludes.
* **Excludes** (``settings.exclude + settings.extend_exclude``) are gitignore-style
  patterns. A pattern containing a ``/`` (other than a trailing one) is anchored
  at ``settings.project_root`` (the cwd when ``None``); any other pattern matches
  the entry's base name at any depth, as ruff's default excludes do. Paths
  outside the project root are matched by base name only.
* **.gitignore** (when ``settings.respect_gitignore``): as git sees it, so only
  inside a git repository (a directory holding ``.git``, found at or above the
  walked path by :func:`ppo_migrate.project.root.git_top`; ruff does the same
  since it reverted ``require_git(false)``).
  The ``.gitignore`` files of the parent directories up to the git root and of
  every walked directory apply, deeper files taking precedence, then
  ``.git/info/exclude``. A nested repository (a directory holding ``.git``)
  starts afresh. The global ``core.excludesFile`` is not read, so results do not
  depend on the user's home directory. A ``.git`` directory is never entered.
* **Symlinks**: ``os.scandir`` without following links, so a walk never enters a
  symlinked directory (no loops, nothing visited twice, nothing outside the
  given paths). A symlink to a regular file met in a walk is returned only if
  its target lies inside the walked directory (resolved); if the target is
  itself collected, only the target's path is returned (a file is never
  returned twice, so it is never rewritten twice). A symlink whose target does
  not exist (broken, or a loop) is returned so that reading it reports PPO901.
  A named path is followed (a named symlink to a directory is walked).
* **Temp files** of :func:`ppo_migrate.files.atomic_write` left by a killed run
  are never returned; met in a walk they are deleted (only names matching
  :func:`ppo_migrate.files.is_temp_file` exactly). Should another run be
  writing in the same tree at that moment, its ``os.replace`` then fails and
  its source file stays untouched: safe, if unhelpful. A named temp file is
  skipped but not deleted.
* Non-regular files named ``*.py`` (a FIFO, a socket) are returned so that
  reading them reports PPO901; they are never opened here.
* The result is de-duplicated (by resolved path) and sorted by the displayed
  path. Paths keep the form given: ``src`` yields ``src/a.py``; ``.`` yields
  ``a.py``; absolute stays absolute.
* ``"-"`` (stdin) is skipped; the caller handles it.

This module does not import libcst; it is on the hot path of every run.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from ppo_migrate.files import TEMP_PREFIX, is_temp_file
from ppo_migrate.patterns import lazy_pattern
from ppo_migrate.project.root import GIT_ENTRY, git_common_dir, git_top, lists_git
from ppo_migrate.settings_model import Settings

__all__ = ["discover"]

#: The suffixes of the YAML files a walk collects besides ``*.py`` (lower-cased): Hydra
#: configs whose ``_target_`` may name the runtime function (PPO006,
#: :mod:`ppo_migrate.rules.hydra_targets`). The byte prefilter turns away those that do
#: not name it, so they cost a read each and are never parsed.
YAML_SUFFIXES: tuple[str, ...] = (".yaml", ".yml")
#: The suffix of a Jupyter notebook (lower-cased): its code cells are judged as one module
#: (:mod:`ppo_migrate.project.notebooks`, trial 26e, M4; ruff checks ``*.ipynb`` by default
#: since 0.6). The byte prefilter turns away those that do not name the function.
NOTEBOOK_SUFFIX = ".ipynb"
#: what a walk collects besides ``*.py`` (lower-cased): YAML files and notebooks
_WALKED_SUFFIXES: tuple[str, ...] = (*YAML_SUFFIXES, NOTEBOOK_SUFFIX)
#: The packaging files a walk collects by name: their declared entry points may name the
#: runtime function (PPO006, :mod:`ppo_migrate.project.entry_points`; trial 26f). The byte
#: prefilter turns away those that do not name it.
ENTRY_POINT_FILES: tuple[str, ...] = ("pyproject.toml", "setup.cfg")


#: Configuration files that are never Python, by suffix and by name (those ``identify``
#: tags ``toml`` or ``ini``, which the pre-commit hooks pass for the packaging files'
#: entry points): named on the command line they are skipped, not parsed as Python
#: (a ``tox.ini`` command or a ``ruff.toml`` banned-api key naming the function was a
#: false PPO902 syntax error). :data:`ENTRY_POINT_FILES` are read for entry points instead.
_CONFIG_SUFFIXES: tuple[str, ...] = (".toml", ".ini", ".cfg")
_CONFIG_NAMES: frozenset[str] = frozenset({
    "Pipfile", ".coveragerc", ".flake8", ".pylintrc", "pylintrc", ".pypirc", ".editorconfig",
    ".gitconfig", ".gitmodules", ".isort.cfg", ".bumpversion.cfg",
})


def is_config_file(path: str) -> bool:
    """Whether ``path`` names a configuration file that is never Python (:data:`_CONFIG_SUFFIXES`,
    any case, or :data:`_CONFIG_NAMES`) and is no packaging file read for its entry points
    (:func:`is_entry_point_file`): a named one is skipped rather than parsed as Python."""
    name = os.path.basename(path)
    if name in ENTRY_POINT_FILES:
        return False
    return name in _CONFIG_NAMES or name.lower().endswith(_CONFIG_SUFFIXES)


def is_yaml_file(path: str) -> bool:
    """Whether ``path`` names a YAML file (:data:`YAML_SUFFIXES`, any case): read by
    :func:`ppo_migrate.rules.hydra_targets.yaml_references`, never as Python."""
    return path.lower().endswith(YAML_SUFFIXES)


def is_notebook(path: str) -> bool:
    """Whether ``path`` names a notebook (:data:`NOTEBOOK_SUFFIX`, any case): its code cells
    are judged as one module and it is never written
    (:func:`ppo_migrate.cli.runner.process_data`)."""
    return path.lower().endswith(NOTEBOOK_SUFFIX)


def is_entry_point_file(path: str) -> bool:
    """Whether ``path`` names a ``pyproject.toml`` or ``setup.cfg`` (:data:`ENTRY_POINT_FILES`):
    read for the entry points it declares
    (:func:`ppo_migrate.rules.entry_point_targets.entry_point_references`), never as Python."""
    return os.path.basename(path) in ENTRY_POINT_FILES


#: named files never taken for a file of entry points (the ``holders`` of :func:`discover_files`
#: are not asked)
_SOURCE_SUFFIXES: tuple[str, ...] = (".py", ".pyi", NOTEBOOK_SUFFIX, *YAML_SUFFIXES)

#: ``holders(path, cache)`` of :func:`discover_files`: the packaging files that make setuptools
#: read entry points from the named file ``path`` (absolute), nearest first
#: (:func:`ppo_migrate.project.entry_points.entry_point_holders`, which this module may not
#: import: it imports this one)
Holders = Callable[[str, dict], list[str]]


def _display(holder: str, given: str, given_abs: str) -> str:
    """``holder`` (absolute) displayed in the form ``given`` was (relative stays relative)."""
    if os.path.isabs(given):
        return holder
    rel = os.path.relpath(holder, os.path.dirname(given_abs))
    return os.path.normpath(os.path.join(os.path.dirname(given), rel))


def python_files(paths: Iterable[str]) -> list[str]:
    """``paths`` without the YAML files (:func:`is_yaml_file`), the notebooks
    (:func:`is_notebook`) and the packaging files read for their entry points
    (:func:`is_entry_point_file`): what the Python-only phases (re-exports, test doubles,
    callers) read. A notebook is no module another file imports."""
    return [
        p for p in paths
        if not is_yaml_file(os.fspath(p)) and not is_notebook(os.fspath(p))
        and not is_entry_point_file(os.fspath(p))
    ]

def _log():
    """The ``ppo_migrate`` logger (``logging`` is imported only when something is logged)."""
    import logging

    return logging.getLogger("ppo_migrate")


def warn(path: str, message: str) -> None:
    """Log a problem met in a walk (a directory that cannot be listed, a leftover temporary
    file that cannot be removed) as a warning of the ``ppo_migrate`` logger: what
    :func:`discover_files` does without an ``on_error``."""
    _log().warning("%s: %s", path, message)


# A pattern that is just a file or directory name (no glob, escape, negation,
# comment or slash) can be matched with a dict lookup on the base name.
_LITERAL = re.compile(r"[A-Za-z0-9_.+@~,=%-]+\Z")
# A base-name glob of such characters and ``*``/``?`` alone (``*.pyc``, ``*.egg-info/``,
# ``.*``): git's wildmatch on one path component, where ``*`` is any run of characters
# but ``/`` (a leading dot included) and ``?`` one such character, translated here
# without importing pathspec (about 20 ms); ``**`` and the rest go to pathspec.
_SIMPLE_GLOB = re.compile(r"[A-Za-z0-9_.+@~,=%*?-]+\Z")
# A path of such names (``/build``, ``docs/_build/``, ``benchmarks/trees/``): a slash at the
# start or in the middle anchors it to the ``.gitignore``'s directory, so it matches
# that one relative path (and, with a trailing slash, only a directory).
_LITERAL_PATH = lazy_pattern(r"/?[A-Za-z0-9_.+@~,=%-]+(?:/[A-Za-z0-9_.+@~,=%-]+)*\Z")
# A path of such base-name globs (``/libexec/*.dylib``, ``/bats-*/``, ``docs/*.py``,
# ``*/build``), ``**`` left out: anchored like a literal path, each ``*`` and ``?`` within
# one component. Translated here too: pyenv's own ``.gitignore`` (three such lines) made
# every walk below it import pathspec (~50 ms of CPU, benchmark item 1: torch's sources in
# a pyenv checkout), in the scout and again in the parent's walk of the repository.
_GLOB_PATH = lazy_pattern(r"/?[A-Za-z0-9_.+@~,=%*?-]+(?:/[A-Za-z0-9_.+@~,=%*?-]+)*\Z")
_NAMED_GROUP = lazy_pattern(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")

# A layer list  is tuple[tuple[str, _Matcher], ...] | None (None: not in a
# git repo). No ``typing`` here: it is ~3 ms of the scout's start (issue 13, item 6).


def _glob(name: str) -> str:
    """The regex of a base-name glob of :data:`_SIMPLE_GLOB`'s characters: git's wildmatch
    on one path component (``*`` any run of characters but ``/``, a leading dot included;
    ``?`` one such character)."""
    return "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in name)


class _Matcher:
    """Gitignore-style patterns matched against one entry at a time.

    Pattern syntax and translation are pathspec's ``GitIgnoreSpec``. ``match``
    answers for the entry itself, as git and ruff do while walking: the pattern
    ``dist`` matches the directory ``dist`` (so the walk does not enter it) but
    does not match ``dist/a.py`` through its parent — which matters when the user
    names ``dist`` on the command line and it is walked anyway. The last
    matching pattern wins; a negated pattern (``!x``) un-ignores.

    For speed, patterns are split three ways: plain names (a dict lookup on the
    base name), other patterns without a ``/`` (one combined regex on the base
    name), and patterns with a ``/`` (checked on the relative path, usually few).
    A 150-line ``.gitignore`` thus costs two dict lookups and one or two regex
    calls per entry instead of 150 regex calls.
    """

    __slots__ = ("lit_any", "lit_dir", "name_re", "path_rules", "empty")

    def __init__(self, lines: Iterable[str]) -> None:
        self.lit_any: dict[str, tuple[int, bool]] = {}
        self.lit_dir: dict[str, tuple[int, bool]] = {}
        name_alts: list[tuple[int, str]] = []
        # (index, regex, include, flags): flags 1 = directories only, 2 = contents only
        self.path_rules: list[tuple[int, re.Pattern[str], bool, int]] = []
        others: list[tuple[int, str]] = []
        for idx, line in enumerate(lines):
            raw = line.rstrip()  # git strips trailing (unescaped) spaces
            if not raw or raw.startswith("#"):
                continue
            include = not raw.startswith("!")
            body = raw if include else raw[1:]
            dir_only = body.endswith("/")
            body = body.rstrip("/")
            if _LITERAL.match(body) and body not in (".", ".."):
                (self.lit_dir if dir_only else self.lit_any)[body] = (idx, include)
            elif (
                "/" in body
                and _LITERAL_PATH.match(body)
                and not {".", ".."} & set(body.lstrip("/").split("/"))
            ):
                exact = re.compile(rf"\A{re.escape(body.lstrip('/'))}{'/' if dir_only else '/?'}\Z")
                self.path_rules.append((idx, exact, include, int(dir_only)))
            elif (
                "/" in body
                and "**" not in body
                and _GLOB_PATH.match(body)
                and not {".", ".."} & set(body.lstrip("/").split("/"))
            ):
                # anchored at the patterns' base; a component of ``*`` alone is one
                # non-empty name (``a/*`` does not match ``a`` itself: git)
                glob = "/".join(
                    "[^/]+" if part.strip("*") == "" else _glob(part)
                    for part in body.lstrip("/").split("/")
                )
                exact = re.compile(rf"\A{glob}{'/' if dir_only else '/?'}\Z")
                self.path_rules.append((idx, exact, include, int(dir_only)))
            elif _SIMPLE_GLOB.match(body) and "**" not in body:
                glob = _glob(body)
                tag = f"r{idx}{'i' if include else 'x'}"
                # matched against ``name`` or, for a directory, ``name/``
                name_alts.append((idx, f"(?P<{tag}>{glob}{'/' if dir_only else '/?'}\\Z)"))
            else:
                others.append((idx, line))
        # pathspec (slow to import) is only needed for patterns that are not plain names.
        for idx, p in self._compile(others):
            include = getattr(p, "include", None)
            regex = getattr(p, "regex", None)
            if include is None or regex is None:
                continue
            raw = str(p.pattern).strip()
            body = raw[1:] if raw.startswith("!") else raw
            dir_only = body.endswith("/")
            body = body.rstrip("/")
            if "/" in body:
                # "x/**" and "x/**/" match what is inside x, not x itself (git).
                inside = 2 if body.endswith("/**") else 0
                self.path_rules.append((idx, regex, bool(include), inside | dir_only))
            else:
                # Matched against a base name only, so a match through a parent
                # directory cannot happen and the regexes can be combined. pathspec
                # applies its regexes with ``search``; ``(?s:.*?)`` in front turns
                # each into an anchored ``match`` so that alternation order decides
                # the winner. Named groups become plain groups (they would clash;
                # the language is unchanged).
                alt = _NAMED_GROUP.sub("(?:", regex.pattern)
                tag = f"r{idx}{'i' if include else 'x'}"
                name_alts.append((idx, f"(?P<{tag}>(?s:.*?)(?:{alt}))"))
        # Python tries alternatives in order: listing them last pattern first
        # makes the first match the last matching pattern, git's winner.
        self.name_re = (
            re.compile("|".join(a for _, a in sorted(name_alts, reverse=True)))
            if name_alts
            else None
        )
        self.path_rules.sort(key=lambda rule: rule[0], reverse=True)  # last pattern first
        self.empty = not (self.lit_any or self.lit_dir or self.name_re or self.path_rules)

    def plain_names(self) -> frozenset[str] | None:
        """The names matched when every pattern is a plain, non-negated name; else None."""
        if self.lit_dir or self.name_re is not None or self.path_rules:
            return None
        if not all(include for _, include in self.lit_any.values()):
            return None
        return frozenset(self.lit_any)

    @staticmethod
    def _compile(lines: list[tuple[int, str]]) -> list[tuple[int, object]]:
        """pathspec patterns for ``(index, line)`` pairs.

        A line pathspec rejects is dropped, as git drops invalid patterns.
        """
        if not lines:
            return []
        import pathspec

        try:
            patterns = pathspec.GitIgnoreSpec.from_lines([ln for _, ln in lines]).patterns
            return [(idx, p) for (idx, _), p in zip(lines, patterns, strict=True)]
        except Exception:
            out: list[tuple[int, object]] = []
            for idx, ln in lines:
                try:
                    out.append((idx, pathspec.GitIgnoreSpec.from_lines([ln]).patterns[0]))
                except Exception:
                    continue
            return out

    def match(self, rel: str | None, name: str, is_dir: bool) -> bool | None:
        """True (ignored), False (re-included by ``!``) or None (no pattern matches).

        Args:
            rel: the entry's path relative to the patterns' base, ``/``-separated,
                or None when it is outside the base (then only patterns without a
                ``/`` apply, to the base name).
            name: the entry's base name.
            is_dir: whether the entry is a directory (for ``dir/`` patterns).
        """
        best = self.lit_any.get(name)
        if is_dir:
            d = self.lit_dir.get(name)
            if d is not None and (best is None or d[0] > best[0]):
                best = d
        if self.name_re is not None:
            m = self.name_re.match(name + "/" if is_dir else name)
            if m is not None:
                g = m.lastgroup or "r-1x"
                idx = int(g[1:-1])
                if best is None or idx > best[0]:
                    best = (idx, g[-1] == "i")
        if self.path_rules and rel is not None:
            s = rel + "/" if is_dir else rel
            n = len(s)
            for idx, rx, include, flags in self.path_rules:  # last pattern first
                if best is not None and idx < best[0]:
                    break
                if flags & 2:
                    # "x/**", "x/**/": whatever is strictly inside x (only
                    # directories for "x/**/"). Without the trailing "/", the
                    # regex (pathspec's "x/") can only match below x.
                    if (flags & 1 and not is_dir) or rx.search(rel) is None:
                        continue
                else:
                    m = rx.search(s)  # pathspec's own way of applying its regexes
                    if m is None:
                        continue
                    # pathspec marks "matched a parent directory of s" with a named
                    # group (ps_d) that ends before the end of s: not this entry.
                    if any(m.start(g) != -1 and m.end(g) != n for g in rx.groupindex):
                        continue
                best = (idx, include)
                break
        return None if best is None else best[1]


def _plain(display: str) -> bool:
    """Whether pathlib would print ``display`` unchanged (no "./", "//", trailing "/")."""
    return not (
        display.startswith("./")
        or "/./" in display
        or "//" in display
        or display.endswith("/")
        or display.endswith("/.")
        or display == "."
    )


def _prefix(abs_dir: str) -> str:
    return abs_dir if abs_dir.endswith(os.sep) else abs_dir + os.sep


class _Discovery:
    def __init__(
        self, settings: Settings, on_error: Callable[[Path, str], None] | None, holders: Holders | None = None,
    ) -> None:
        self.settings = settings
        self.on_error = on_error
        self.holders = holders
        root = settings.project_root if settings.project_root is not None else os.getcwd()
        self.root_abs = os.path.abspath(root)
        self.root_prefix = _prefix(self.root_abs)
        self.exclude = _Matcher(tuple(settings.exclude) + tuple(settings.extend_exclude))
        self.gitignores: dict[str, _Matcher | None] = {}
        self.found: dict[str, tuple[bool, str]] = {}
        #: ``holders``' reading of each packaging file, for the named files
        self.named_files: dict[str, frozenset[str]] = {}

    # ---------------------------------------------------------------- helpers

    def _error(self, path: str, message: str) -> None:
        if self.on_error is not None:
            self.on_error(Path(path), message)
        else:
            warn(path, message)

    def _rel(self, abs_path: str) -> str | None:
        if abs_path == self.root_abs:
            return ""
        if abs_path.startswith(self.root_prefix):
            rel = abs_path[len(self.root_prefix) :]
            return rel if os.sep == "/" else rel.replace(os.sep, "/")
        return None

    def _excluded(self, rel: str | None, name: str, is_dir: bool) -> bool:
        return self.exclude.match(rel, name, is_dir) is True

    def _gitignore(self, path: str) -> _Matcher | None:
        """The matcher for an ignore file (cached); None when missing/empty."""
        if path in self.gitignores:
            return self.gitignores[path]
        matcher: _Matcher | None = None
        try:
            with open(path, "rb") as f:
                text = f.read().decode("utf-8", errors="replace")
        except OSError:
            text = ""
        if text:
            matcher = _Matcher(text.splitlines())
            if matcher.empty:
                matcher = None
        self.gitignores[path] = matcher
        return matcher

    def _info_exclude(self, repo: str) -> str | None:
        """Path of ``info/exclude`` for the repository at ``repo`` (in its common git
        directory: :func:`ppo_migrate.project.root.git_common_dir`, which reads a worktree's
        or submodule's ``gitdir:`` file)."""
        common = git_common_dir(repo)
        return os.path.join(common, "info", "exclude") if common is not None else None

    def _repo_layers(self, repo: str) -> tuple:
        """The layers a repository starts with: its ``info/exclude``."""
        path = self._info_exclude(repo)
        m = self._gitignore(path) if path else None
        return ((_prefix(repo), m),) if m is not None else ()

    def _add_dir_layer(self, layers: tuple, abs_dir: str) -> tuple:
        m = self._gitignore(os.path.join(abs_dir, ".gitignore"))
        return layers + ((_prefix(abs_dir), m),) if m is not None else layers

    @staticmethod
    def _ignored(layers: tuple | None, abs_path: str, name: str, is_dir: bool) -> bool:
        if not layers:
            return False
        for base, matcher in reversed(layers):
            rel = abs_path[len(base) :]
            if os.sep != "/":
                rel = rel.replace(os.sep, "/")
            r = matcher.match(rel, name, is_dir)
            if r is not None:
                return r
        return False

    def _parent_layers(self, abs_dir: str) -> tuple | None:
        """Ignore layers in force for the entries of ``abs_dir``, excluding its own .gitignore."""
        if not self.settings.respect_gitignore:
            return None
        repo = git_top(abs_dir)
        if repo is None:
            return None
        if repo == abs_dir:
            return ()  # the scan of abs_dir sees ".git" and starts the repo's layers
        layers = self._add_dir_layer(self._repo_layers(repo), repo)
        rest = abs_dir[len(_prefix(repo)) :]
        d = repo
        for part in rest.split(os.sep)[:-1]:
            d = os.path.join(d, part)
            layers = self._add_dir_layer(layers, d)
        return layers

    def _force_excluded(self, abs_path: str, is_dir: bool) -> bool:
        """For ``force_exclude``: is a named path, or a directory above it, excluded or ignored?"""
        rel = self._rel(abs_path)
        if rel:  # under the project root: check every component
            parts = rel.split("/")
            for i, part in enumerate(parts):
                last = i == len(parts) - 1
                if self._excluded("/".join(parts[: i + 1]), part, is_dir or not last):
                    return True
        elif rel is None and self._excluded(None, os.path.basename(abs_path), is_dir):
            return True
        if not self.settings.respect_gitignore:
            return False
        repo = git_top(os.path.dirname(abs_path) if not is_dir else abs_path)
        if repo is None or repo == abs_path:
            return False
        layers = self._add_dir_layer(self._repo_layers(repo), repo)
        parts = abs_path[len(_prefix(repo)) :].split(os.sep)
        d = repo
        for i, part in enumerate(parts):
            d = os.path.join(d, part)
            last = i == len(parts) - 1
            if self._ignored(layers, d, part, is_dir or not last):
                return True
            if not last:
                layers = self._add_dir_layer(layers, d)
        return False

    def _add(self, key: str, display: str, is_link: bool) -> None:
        cur = self.found.get(key)
        new = (is_link, display)
        if cur is None or new < cur:  # prefer the real file over a link to it
            self.found[key] = new

    # ---------------------------------------------------------------- entry points

    def add_path(self, arg: str | os.PathLike[str]) -> None:
        s = os.fspath(arg)
        if s == "-":
            return
        if not os.path.lexists(s):
            raise FileNotFoundError(f"{s}: no such file or directory")
        abs_path = os.path.abspath(s)
        force = self.settings.force_exclude
        if os.path.isdir(s):
            if force and self._force_excluded(abs_path, True):
                return
            self._walk(s, abs_path)
            return
        if is_temp_file(os.path.basename(abs_path)):
            return
        if not abs_path.lower().endswith(_SOURCE_SUFFIXES) and not is_entry_point_file(abs_path):
            holders = self.holders(abs_path, self.named_files) if self.holders is not None else ()
            if holders:  # ``ep.cfg`` of ``entry_points = file: ep.cfg``: checked through them
                for holder in holders:
                    self.add_path(_display(holder, s, abs_path))
                return
        if is_config_file(abs_path):
            return
        if force and self._force_excluded(abs_path, False):
            return
        # A broken symlink has no real path; key it by its own (as in a walk).
        key = os.path.realpath(s) if os.path.exists(s) else abs_path
        self._add(key, s, os.path.islink(s))

    def _walk(self, top: str, abs_top: str) -> None:
        real_top = os.path.realpath(top)
        real_prefix = _prefix(real_top)
        n_abs = len(_prefix(abs_top))
        respect = self.settings.respect_gitignore
        excl = self.exclude
        # The common case (ruff's default list, plain names only) is a set lookup.
        excl_names = excl.plain_names()
        ignored = self._ignored
        add = self._add
        # Display paths are built as the user wrote ``top`` (normalised like
        # pathlib: "./src/" -> "src", "." -> "") plus "/"-joined names.
        norm = str(Path(top))
        stack: list[tuple[str, str, tuple | None, str | None]] = [
            (norm if norm != "." else "", abs_top, self._parent_layers(abs_top), self._rel(abs_top))
        ]
        while stack:
            disp, abs_dir, layers, rel_dir = stack.pop()
            try:
                with os.scandir(disp or os.curdir) as it:
                    entries = list(it)
            except OSError as e:
                reason = (e.strerror or str(e)).lower()
                self._error(disp or os.curdir, f"cannot read directory: {reason}")
                continue
            if respect:
                names = {e.name for e in entries}
                if lists_git(names):  # a repository (or a nested one) starts here
                    layers = self._repo_layers(abs_dir)
                if layers is not None and ".gitignore" in names:
                    layers = self._add_dir_layer(layers, abs_dir)
            abs_prefix = _prefix(abs_dir)
            disp_prefix = disp + "/" if disp and not disp.endswith("/") else disp
            rel_prefix = None if rel_dir is None else (rel_dir + "/" if rel_dir else "")
            for entry in entries:
                name = entry.name
                if name[0] == "." and name.startswith(TEMP_PREFIX) and is_temp_file(name):
                    self._remove_temp(entry)
                    continue
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    is_dir = False
                if is_dir:
                    if name == GIT_ENTRY:
                        continue
                elif not name.endswith(".py") and not name.lower().endswith(_WALKED_SUFFIXES) \
                        and name not in ENTRY_POINT_FILES:
                    continue
                rel = None if rel_prefix is None else rel_prefix + name
                if excl_names is not None:
                    if name in excl_names:
                        continue
                elif excl.match(rel, name, is_dir) is True:
                    continue
                abs_path = abs_prefix + name
                if layers and ignored(layers, abs_path, name, is_dir):
                    continue
                if is_dir:
                    stack.append((disp_prefix + name, abs_path, layers, rel))
                elif entry.is_symlink():
                    self._add_link(disp_prefix + name, real_prefix)
                else:
                    add(real_prefix + abs_path[n_abs:], disp_prefix + name, False)

    def _add_link(self, path: str, real_prefix: str) -> None:
        """A symlink named ``*.py`` met in a walk (see the module docstring)."""
        if not os.path.exists(path):  # broken, or a loop: let the reader report it
            self._add(os.path.abspath(path), path, True)
            return
        real = os.path.realpath(path)
        if os.path.isdir(real) or not real.startswith(real_prefix):
            return
        self._add(real, path, True)

    def _remove_temp(self, entry: os.DirEntry[str]) -> None:
        try:
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                _log().info("removed leftover temporary file %s", entry.path)
        except OSError as e:
            self._error(entry.path, f"cannot remove leftover temporary file: {e.strerror}")

    def result(self) -> list[str]:
        # Named paths are normalised here too ("./a.py" -> "a.py"), so every key is
        # the string the caller will display.
        shown = {str(Path(d)) if not _plain(d) else d for _, d in self.found.values()}
        self.found.clear()  # a tree's worth of keys: free before the sorted copy
        out = sorted(shown)
        shown.clear()
        return out


def discover(
    paths: Sequence[str | Path],
    settings: Settings,
    *,
    on_error: Callable[[Path, str], None] | None = None,
) -> list[Path]:
    """The ``.py`` files to process for the given command-line paths.

    See the module docstring for the rules (excludes, ``.gitignore``, named
    files, ``force_exclude``, symlinks, leftover temp files).

    Args:
        paths: files and directories as given on the command line; ``"-"``
            (stdin) is skipped.
        settings: the run's :class:`~ppo_migrate.settings_model.Settings` (``exclude``,
            ``extend_exclude``, ``respect_gitignore``, ``force_exclude``,
            ``project_root``).
        on_error: called with ``(directory, message)`` for a directory inside a
            walk that cannot be listed (e.g. permission denied), or a leftover
            temp file that cannot be removed; by default these are logged as
            warnings on the ``ppo_migrate`` logger and the walk goes on.

    Returns:
        Paths in the form given (relative stays relative), de-duplicated,
        sorted by ``str``.

    Raises:
        FileNotFoundError: a path does not exist; ``str(err)`` is one line,
            ``"<path>: no such file or directory"`` (the path as given).
    """
    return [Path(p) for p in discover_files(paths, settings, on_error=on_error)]


def discover_files(
    paths: Sequence[str | Path],
    settings: Settings,
    *,
    on_error: Callable[[Path, str], None] | None = None,
    holders: Holders | None = None,
) -> list[str]:
    """:func:`discover`, as display strings (what ``check`` and ``apply`` use).

    ``holders``: when given, a named file that is no source (not ``*.py``, ``*.pyi``, a
    notebook or YAML) and that packaging files make setuptools read entry points from
    (:data:`Holders`: ``entry_points = file: ep.cfg``) is replaced by those files (fresh41, M3).

    A ``Path`` costs about three times its string; on a tree of 10,000 files
    that is 3 MB more peak memory for nothing the run needs.

    Raises:
        FileNotFoundError: as :func:`discover`.
    """
    d = _Discovery(settings, on_error, holders)
    for p in paths:
        d.add_path(p)
    return d.result()


class IgnoreRules:
    """Discovery's ``.gitignore`` rules for another walk of a repository (issue 26: the walk
    for copies of verl and the files that put folders on ``sys.path``,
    :mod:`ppo_migrate.project.tree`): the same layers (``info/exclude``, each ``.gitignore``
    from the git root down, a nested repository starting afresh), matched the same way.

    Args:
        settings: gives ``respect_gitignore`` (``False``: nothing is ignored) and the excludes
            (the walk's callers test those themselves).
    """

    __slots__ = ("_d", "_respect")

    def __init__(self, settings: Settings) -> None:
        self._d = _Discovery(settings, lambda path, message: None)
        self._respect = bool(settings.respect_gitignore)

    def start(self, directory: str) -> tuple | None:
        """The layers in force for the entries of ``directory`` (absolute), before its own
        ``.gitignore``; ``None`` outside a git repository or when ignoring is off."""
        return self._d._parent_layers(directory) if self._respect else None

    def enter(self, layers: tuple | None, directory: str, names: Iterable[str]) -> tuple | None:
        """The layers for ``directory``'s entries, given its parent's and its entry ``names``."""
        if not self._respect:
            return None
        names = set(names)
        if lists_git(names):  # a repository (or a nested one) starts here
            layers = self._d._repo_layers(directory)
        if layers is not None and ".gitignore" in names:
            layers = self._d._add_dir_layer(layers, directory)
        return layers

    def ignored(self, layers: tuple | None, path: str, name: str, is_dir: bool) -> bool:
        """Whether the entry ``path`` (absolute; base name ``name``) is ignored under ``layers``."""
        return bool(layers) and self._d._ignored(layers, path, name, is_dir)
