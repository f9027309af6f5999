"""Settings: ``[tool.ppo-migrate]`` in ``pyproject.toml``, overridden by command-line flags.

The nearest ``pyproject.toml`` at or above the first path that has a
``[tool.ppo-migrate]`` table is used (like ruff, which ignores ``pyproject.toml``
files without ``[tool.ruff]``). Keys are kebab-case::

    [tool.ppo-migrate]
    targets = ["verl.trainer.constants_ppo.get_ppo_ray_runtime_env"]   # replaces the defaults
    extend-targets = ["mylib.env.get_ppo_ray_runtime_env"]            # adds to them
    config-names = ["config", "cfg"]
    keyword = false              # write f(config=...) instead of f(...)
    unsafe-fixes = false         # apply also makes unsafe fixes (a config only possibly bound)
    exclude = [".venv", "..."]   # gitignore-style; replaces the defaults
    extend-exclude = ["fixtures"]
    respect-gitignore = true
    force-exclude = false
    output-format = "full"       # full | concise | json | github | sarif | junit
    verl-version = "0.8.0"       # the verl the project runs (target version); see PPO005
    select = ["PPO"]             # rule-code prefixes; empty = every rule
    ignore = ["PPO002"]

Every problem is a :class:`ConfigError` with a one-line message naming the file
and the key.

This module is the loader only: :class:`Settings`, its defaults and :class:`ConfigError` are
in :mod:`ppo_migrate.settings_model`, which the judging modules import instead of this one
(issue 26). When imported it installs :func:`directory_settings` as the model's reader of a
folder's own settings (:func:`ppo_migrate.settings_model.set_directory_reader`).
"""

from __future__ import annotations

import keyword as _keyword
import os
import re
from collections.abc import Sequence
from pathlib import Path

from ppo_migrate.patterns import lazy_pattern
from ppo_migrate.project.snapshot import current
from ppo_migrate.settings_model import (
    DEFAULT_EXCLUDES,
    DEFAULT_TARGETS,
    OUTPUT_FORMATS,
    ConfigError,
    Settings,
    set_directory_reader,
)

TYPE_CHECKING = False  # ``typing`` is ~3 ms of a plain ``check``'s start: annotations only
if TYPE_CHECKING:
    from typing import Any

__all__ = ["directory_settings", "find_pyproject", "load_settings"]

TABLE = "tool.ppo-migrate"
_RULE_CODE = lazy_pattern(r"[A-Z]+[0-9]*\Z")


# --------------------------------------------------------------------------- pyproject


def _display(path: Path) -> str:
    """``path`` relative to the cwd when it is below it, else absolute."""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # pragma: no cover - other drive on Windows
        return str(path)
    return str(path) if rel.startswith("..") else rel


def _start_dir(path: str | Path) -> str:
    if str(path) == "-":
        return os.getcwd()
    p = os.path.abspath(path)
    return p if os.path.isdir(p) else os.path.dirname(p)


def _read_config(path: str | Path) -> bytes:
    """The bytes of a configuration file, read through the run's snapshot
    (:meth:`ppo_migrate.project.snapshot.Snapshot.read_bytes`: each file read once a run;
    outside a run, from the disk). The loader imports the snapshot, never the reverse:
    ``project`` imports only :mod:`ppo_migrate.settings_model`."""
    return current().read_bytes(path)


def _parse_pyproject(path: Path) -> dict[str, Any]:
    """Parse ``path`` with tomllib; syntax errors become :class:`ConfigError`."""
    import tomllib  # here: most runs find no pyproject.toml that may hold our table

    try:
        raw = _read_config(path)  # read once a run (issue 26)
        return tomllib.loads(raw.decode("utf-8"))
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = re.search(r"\(at line (\d+), column (\d+)\)$", msg)
        if m:
            msg = msg[: m.start()].rstrip()
            raise ConfigError(
                f"{_display(path)}:{m.group(1)}:{m.group(2)}: invalid TOML: {msg}"
            ) from None
        m = re.search(r"\(at end of document\)$", msg)
        if m:  # report the line the document ends on
            msg = msg[: m.start()].rstrip()
            line = raw.count(b"\n") + 1
            raise ConfigError(
                f"{_display(path)}:{line}: invalid TOML: {msg} at end of file"
            ) from None
        raise ConfigError(f"{_display(path)}: invalid TOML: {msg}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{_display(path)}: invalid TOML: not UTF-8 ({e.reason})") from None
    except OSError as e:
        raise ConfigError(f"{_display(path)}: cannot read: {e.strerror or e}") from None


# Where a ``pyproject.toml`` can define ``tool.ppo-migrate``: a ``tool.ppo-migrate`` key path
# (``[tool.ppo-migrate]``, ``[[tool.ppo-migrate.x]]``, a dotted key ``tool.ppo-migrate.x = 1``,
# quoted or spaced: ``[ "tool" . 'ppo-migrate' ]``), a ``[tool]`` table, or a top-level ``tool``
# key (``tool = {ppo-migrate = {...}}``).
_TOOL_TABLE = re.compile(
    rb"""["']?tool["']?[ \t]*\.[ \t]*["']?ppo-migrate"""
    rb"""|^[ \t]*\[[ \t]*["']?tool["']?[ \t]*\]"""
    rb"""|^[ \t]*["']?tool["']?[ \t]*=""",
    re.MULTILINE,
)


def _may_hold_our_table(raw: bytes) -> bool:
    """Whether a ``pyproject.toml``'s bytes may define ``[tool.ppo-migrate]``: only then is it
    parsed. A project that merely depends on ppo-migrate (``dev = ["ppo-migrate"]``) or is
    ppo-migrate (``name = "ppo-migrate"``) is not parsed on every run (``tomllib`` and the
    parse were ~6 ms of a ``check``, issue 13, item 6). A quoted key may spell any letter
    with an escape (``"ppo\\u002dmigrate"``, ``"\\u0074ool"``): a file holding one is parsed."""
    if b"\\u" in raw or b"\\U" in raw:
        return True
    return b"ppo-migrate" in raw and _TOOL_TABLE.search(raw) is not None


def _find(paths: Sequence[str | Path]) -> tuple[Path, dict[str, Any]] | None:
    """The nearest pyproject.toml with our table, and that table."""
    start = _start_dir(paths[0]) if paths else os.getcwd()
    d = start
    while True:
        candidate = os.path.join(d, "pyproject.toml")
        if os.path.isfile(candidate):
            try:
                raw = _read_config(candidate)  # read once a run (issue 26)
            except OSError as e:  # it may hold our table: never run without it unsaid
                shown = _display(Path(candidate))
                raise ConfigError(f"{shown}: cannot read: {e.strerror or e}") from None
            # Cheap test first: a pyproject.toml that never mentions us is not ours,
            # even if it is broken TOML (that is some other tool's business).
            if _may_hold_our_table(raw):
                try:
                    doc = _parse_pyproject(Path(candidate))
                except ConfigError:
                    if b"ppo-migrate" in raw:
                        raise
                    doc = {}  # parsed for an escape only: not knowingly ours, not our error
                tool = doc.get("tool")
                if isinstance(tool, dict) and "ppo-migrate" in tool:
                    return Path(candidate), tool["ppo-migrate"]
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def find_pyproject(paths: Sequence[str | Path]) -> Path | None:
    """Find the ``pyproject.toml`` whose ``[tool.ppo-migrate]`` table applies.

    Args:
        paths: the paths given on the command line; only the first is used (its
            directory, or itself when it is a directory; the cwd for ``"-"`` or
            when ``paths`` is empty).

    Returns:
        The absolute path of the nearest ``pyproject.toml`` at or above that
        directory that has a ``[tool.ppo-migrate]`` table, or ``None``.
        ``pyproject.toml`` files without the table are skipped.

    Raises:
        ConfigError: a ``pyproject.toml`` whose bytes may define the table (see
            :func:`_may_hold_our_table`) is not valid TOML.
    """
    found = _find(paths)
    return found[0] if found else None


# --------------------------------------------------------------------------- validation

_LIST_KEYS = {
    "targets": "targets",
    "extend-targets": "extend_targets",
    "config-names": "config_names",
    "exclude": "exclude",
    "extend-exclude": "extend_exclude",
    "select": "select",
    "ignore": "ignore",
}
_BOOL_KEYS = {
    "keyword": "keyword",
    "respect-gitignore": "respect_gitignore",
    "force-exclude": "force_exclude",
    "unsafe-fixes": "unsafe_fixes",
}
_STR_KEYS = {"output-format": "output_format", "verl-version": "verl_version"}
_ALL_KEYS = {**_LIST_KEYS, **_BOOL_KEYS, **_STR_KEYS}
_PY_TO_KEBAB = {v: k for k, v in _ALL_KEYS.items()}
_OVERRIDE_NAMES = frozenset(Settings.FIELDS) | {"extend_targets"}
_CLI_ONLY_BOOLS = frozenset({"show_shims", "use_ppo_runtime", "show_notices"})
#: The command-line option of each override, as error messages name it.
_CLI_OPTIONS = {
    "targets": "--target",
    "extend_targets": "--extend-target",
    "config_names": "--config-name",
    "keyword": "--keyword",
    "exclude": "--exclude",
    "extend_exclude": "--extend-exclude",
    "respect_gitignore": "--respect-gitignore",
    "force_exclude": "--force-exclude",
    "unsafe_fixes": "--unsafe-fixes",
    "output_format": "--output-format",
    "select": "--select",
    "ignore": "--ignore",
    "verl_version": "--verl-version",
}


def _type_name(value: object) -> str:
    return {
        bool: "bool",
        int: "int",
        float: "float",
        str: "string",
        list: "list",
        dict: "table",
    }.get(type(value), type(value).__name__)


def _check_dotted(value: str) -> bool:
    parts = value.split(".")
    return len(parts) >= 2 and all(p.isidentifier() and not _keyword.iskeyword(p) for p in parts)


def _known_code_prefix(code: str) -> bool:
    """``ALL``, or a prefix of some rule code (an unknown code would select nothing)."""
    from ppo_migrate.rules.codes import RULES

    return code == "ALL" or any(known.startswith(code) for known in RULES)


def _validate_list(
    where: str, key: str, value: object, label: str | None = None
) -> tuple[str, ...]:
    """Validate a list-of-strings setting; ``key`` is the kebab name, ``label`` what to print."""
    label = label or key
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise ConfigError(f"{where} {label}: expected a list of strings, got {_type_name(value)}")
    for item in value:
        if not isinstance(item, str):
            raise ConfigError(
                f"{where} {label}: expected a list of strings, got a list containing "
                f"{_type_name(item)} {item!r}"
            )
    items = tuple(value)
    if key in ("targets", "extend-targets"):
        for t in items:
            if not _check_dotted(t):
                raise ConfigError(
                    f"{where} {label}: {t!r} is not a qualified name "
                    "(dotted identifiers, e.g. 'pkg.module.function')"
                )
    elif key == "config-names":
        for n in items:
            if not n.isidentifier() or _keyword.iskeyword(n):
                raise ConfigError(f"{where} {label}: {n!r} is not a Python identifier")
    elif key in ("select", "ignore"):
        for c in items:
            if not _RULE_CODE.match(c):
                raise ConfigError(
                    f"{where} {label}: {c!r} is not a rule code or prefix "
                    "(upper-case letters then digits, e.g. 'PPO' or 'PPO001')"
                )
            if not _known_code_prefix(c):
                raise ConfigError(
                    f"{where} {label}: unknown rule code {c!r} (neither ALL nor a prefix of "
                    "a rule code; see `ppo-migrate rule --all`)"
                )
    elif key in ("exclude", "extend-exclude") and items and items != DEFAULT_EXCLUDES:
        import pathspec  # local: keeps `import ppo_migrate.cli.settings` light

        for pattern in items:
            try:
                pathspec.GitIgnoreSpec.from_lines([pattern])
            except Exception as e:  # pathspec raises several types for bad patterns
                raise ConfigError(f"{where} {label}: invalid pattern {pattern!r}: {e}") from None
    return items


def _validate(where: str, key: str, value: object, label: str | None = None) -> object:
    """Validate one setting given by its kebab-case ``key``; ``label`` is what to print."""
    if key in _LIST_KEYS:
        return _validate_list(where, key, value, label)
    label = label or key
    if key in _BOOL_KEYS:
        if not isinstance(value, bool):
            raise ConfigError(f"{where} {label}: expected a bool, got {_type_name(value)}")
        return value
    if not isinstance(value, str):
        raise ConfigError(f"{where} {label}: expected a string, got {_type_name(value)}")
    if key == "verl-version":
        from packaging.version import InvalidVersion, Version

        try:
            version = Version(value)
        except InvalidVersion:
            version = None
        if version is None or len(version.release) not in (2, 3):
            raise ConfigError(
                f"{where} {label}: {value!r} is not a verl release (X.Y or X.Y.Z, e.g. '0.8.0')"
            )
        return str(version)
    # output-format
    if value not in OUTPUT_FORMATS:
        raise ConfigError(
            f"{where} {label}: expected one of {', '.join(OUTPUT_FORMATS)}, got {value!r}"
        )
    return value


def _dedupe(items: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _read_table(path: Path, table: object) -> dict[str, object]:
    """Validate a ``[tool.ppo-migrate]`` table; return python-named values."""
    where = f"{_display(path)}: [{TABLE}]"
    if not isinstance(table, dict):
        raise ConfigError(f"{_display(path)}: {TABLE}: expected a table, got {_type_name(table)}")
    out: dict[str, object] = {}
    for key, value in table.items():
        if key not in _ALL_KEYS:
            hint = ""
            if key.replace("_", "-") in _ALL_KEYS:
                hint = f" (did you mean {key.replace('_', '-')!r}?)"
            raise ConfigError(
                f"{where} {key}: unknown key{hint}; expected one of {', '.join(sorted(_ALL_KEYS))}"
            )
        out[_ALL_KEYS[key]] = _validate(where, key, value)
    return out


def load_settings(paths: Sequence[str | Path], **overrides: Any) -> Settings:
    """Build the :class:`Settings` for a run.

    Reads ``[tool.ppo-migrate]`` from :func:`find_pyproject` ``(paths)`` (if any),
    validates it, then applies ``overrides``.

    Args:
        paths: the paths given on the command line (see :func:`find_pyproject`).
        **overrides: command-line values under their Settings field names
            (``targets``, ``config_names``, ``keyword``, ``exclude``,
            ``extend_exclude``, ``respect_gitignore``, ``force_exclude``,
            ``output_format``, ``select``, ``ignore``, ``project_root``,
            ``show_shims``, ``use_ppo_runtime``) plus ``extend_targets``.
            ``None`` means "not given". An empty sequence is also treated as
            "not given" (what click's ``multiple=True`` yields when the option
            is absent; an empty list cannot be spelled on a command line anyway).
            ``targets``, ``exclude``, ``select``, ``ignore`` and ``config_names``
            replace the configured value; ``extend_targets`` and
            ``extend_exclude`` append to it.

    Returns:
        The resolved, validated settings. ``project_root`` is the directory of the
        ``pyproject.toml`` used, else ``None`` (unless overridden).

    Raises:
        ConfigError: invalid TOML (message has file, line and column), an
            unknown key, a value of the wrong type, an invalid target, config
            name, rule code, pattern or output format — in the file or in an
            override (then the message names ``command line`` and the option).
        TypeError: an override name that is not a setting (a programming error).
    """
    unknown = set(overrides) - _OVERRIDE_NAMES
    if unknown:
        raise TypeError(f"load_settings() got unknown overrides: {', '.join(sorted(unknown))}")

    values: dict[str, object] = {}
    found = _find(paths)
    if found is not None:
        path, table = found
        values = _read_table(path, table)
        values["project_root"] = path.parent

    targets = tuple(values.pop("targets", DEFAULT_TARGETS))  # type: ignore[arg-type]
    targets += tuple(values.pop("extend_targets", ()))  # type: ignore[arg-type]

    where = "command line:"
    for name, value in overrides.items():
        if value is None:
            continue
        if name == "project_root":
            values[name] = Path(value)
            continue
        if name in _CLI_ONLY_BOOLS:
            if not isinstance(value, bool):
                raise ConfigError(
                    f"{where} --{name.replace('_', '-')}: expected a bool, got {_type_name(value)}"
                )
            values[name] = value
            continue
        kebab = _PY_TO_KEBAB[name]
        if kebab in _LIST_KEYS and isinstance(value, (list, tuple)) and not value:
            continue  # empty multiple-option: not given
        value = _validate(where, kebab, value, _CLI_OPTIONS[name])
        if name == "verl_version":
            values["verl_version_from_cli"] = True
        if name == "targets":
            targets = value  # type: ignore[assignment]
        elif name == "extend_targets":
            targets += value  # type: ignore[operator]
        elif name == "extend_exclude":
            values[name] = tuple(values.get(name, ())) + value  # type: ignore[operator]
        else:
            values[name] = value

    if not targets:
        raise ConfigError(
            f"{_display(found[0]) if found else 'command line'}: [{TABLE}] targets: "
            "no targets left (give at least one qualified name)"
        )
    return Settings(**{**values, "targets": _dedupe(targets)})


def directory_settings(directory: str | Path) -> Settings | None:
    """The settings of the nearest ``[tool.ppo-migrate]`` table at or above ``directory``
    (:func:`load_settings` of it, no override), for a judgement that needs a folder's own
    setting (the ``verl-version`` of the table nearest a file: ruff's hierarchical
    configuration).

    Args:
        directory: a directory path.

    Returns:
        The settings, with ``project_root`` the table's folder; ``None`` when no table is
        found (``project_root`` is then ``None``: the defaults are no folder's settings) or
        it is broken (the run's own settings report a broken file).
    """
    try:
        settings = load_settings([directory])
    except ConfigError:
        return None
    return settings if settings.project_root is not None else None


# the judging modules ask :mod:`ppo_migrate.settings_model` for a folder's settings; every
# run imports this loader (the commands, the runner and so its workers, the adapters)
set_directory_reader(directory_settings)
