"""The settings' data model: :class:`Settings` (one run's resolved settings), its defaults,
:class:`ConfigError`, and the hook through which the judging modules get a directory's own
settings. No file is read here: :mod:`ppo_migrate.cli.settings` is the loader (it reads the
``[tool.ppo-migrate]`` tables of ``pyproject.toml``).

Issue 26: the judging modules (``ppo_migrate.rules``) import this module, never the
loader (the import-linter contract ``judging-reads-no-settings`` in ``pyproject.toml``).
A judgement that needs a setting of the folder a file is in (ruff's hierarchical
configuration: the ``verl-version`` of the nearest table above a file) asks
:func:`directory_settings`, which calls the reader the loader installs when it is imported
(:func:`set_directory_reader`); every run imports the loader (the commands, the runner and
its workers, the adapters), and without it no folder has settings of its own.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

TYPE_CHECKING = False  # ``typing`` is ~3 ms of a plain ``check``'s start: annotations only
if TYPE_CHECKING:
    import os
    from typing import Any

__all__ = [
    "DEFAULT_TARGETS",
    "DEFAULT_CONFIG_NAMES",
    "DEFAULT_EXCLUDES",
    "OUTPUT_FORMATS",
    "ConfigError",
    "Settings",
    "directory_settings",
    "set_directory_reader",
]

DEFAULT_TARGETS: tuple[str, ...] = (
    "verl.trainer.constants_ppo.get_ppo_ray_runtime_env",
    "verl.trainer.main_ppo.get_ppo_ray_runtime_env",
    "ppo_runtime.get_ppo_ray_runtime_env",
    "ppo_runtime.env.get_ppo_ray_runtime_env",
)
DEFAULT_CONFIG_NAMES: tuple[str, ...] = ("config", "cfg")
#: ruff's default ``exclude`` list.
DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pyenv",
    ".pytest_cache",
    ".pytype",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    ".vscode",
    "__pypackages__",
    "_build",
    "buck-out",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)
OUTPUT_FORMATS: tuple[str, ...] = ("full", "concise", "json", "github", "sarif", "junit")

class ConfigError(Exception):
    """Invalid configuration; ``str(err)`` is one line naming the file and the key.

    Example: ``pyproject.toml: [tool.ppo-migrate] targets: expected a list of
    strings, got int``. Errors in command-line overrides name ``command line``
    and the option instead of a file.
    """


class Settings:
    """Resolved settings for one run.

    Attributes:
        targets: qualified names of the runtime function.
        config_names: names that count as the training config, in preference order.
        keyword: write ``f(config=...)`` instead of ``f(...)``.
        exclude: gitignore-style patterns of files and directories to skip
            (ruff's default list unless configured).
        extend_exclude: more patterns, added to ``exclude``.
        respect_gitignore: skip what ``.gitignore`` files ignore.
        force_exclude: apply exclusions to paths named on the command line too.
        output_format: one of :data:`OUTPUT_FORMATS`.
        select: rule-code prefixes to enable; empty means every rule.
        ignore: rule-code prefixes to disable.
        project_root: directory of the ``pyproject.toml`` the settings came from;
            exclude patterns are relative to it. ``None`` means the current directory.
        show_shims: report compatibility shims (PPO004); command line only
            (not a pyproject key).
        use_ppo_runtime: ``apply`` also moves imports of the runtime function from
            verl to ``ppo_runtime``; command line only (not a pyproject key).
        unsafe_fixes: ``apply`` also makes unsafe fixes (ruff's term: the config
            passed is only possibly bound at the call); ``unsafe-fixes`` key or
            ``--unsafe-fixes``.
        verl_version: the verl release the project runs (``X.Y`` or ``X.Y.Z``), which
            decides whether the callee takes a config when no in-tree copy does
            (see :mod:`ppo_migrate.rules.signatures`); ``None``: not set.
        verl_version_from_cli: ``verl_version`` came from ``--verl-version``, which
            beats the ``verl-version`` of every ``[tool.ppo-migrate]`` table (without
            it each file takes its nearest table's, as ruff's settings are per file).
        show_notices: list notices (PPO005) in concise output too; command line only.
        follow_values: never set by the user (no key, no option): ``False`` judges each
            config candidate as before issue 27, by its name, without the evidence of its
            value issue 27 added (:class:`ppo_migrate.rules.configs.ConfigFinder`'s
            ``follow_values``); the differential test
            (``tests/integration/test_evidence_differential.py``) compares the two.

    Immutable and compared by value, as a frozen dataclass: :meth:`replace` gives a copy with
    some fields changed. A plain class, not a dataclass: ``dataclasses`` imports ``inspect``,
    ~5 ms of a plain ``check``'s start before its scout can fork (issue 13, item 6).
    """


    #: The fields, in order, with their defaults.
    FIELDS: dict[str, object] = {
        "targets": DEFAULT_TARGETS,
        "config_names": DEFAULT_CONFIG_NAMES,
        "keyword": False,
        "exclude": DEFAULT_EXCLUDES,
        "extend_exclude": (),
        "respect_gitignore": True,
        "force_exclude": False,
        "output_format": "full",
        "select": (),
        "ignore": (),
        "project_root": None,
        "show_shims": False,
        "use_ppo_runtime": False,
        "unsafe_fixes": False,
        "verl_version": None,
        "verl_version_from_cli": False,
        "show_notices": False,
        "follow_values": True,
    }
    __slots__ = tuple(FIELDS)

    targets: tuple[str, ...]
    config_names: tuple[str, ...]
    keyword: bool
    exclude: tuple[str, ...]
    extend_exclude: tuple[str, ...]
    respect_gitignore: bool
    force_exclude: bool
    output_format: str
    select: tuple[str, ...]
    ignore: tuple[str, ...]
    project_root: Path | None
    show_shims: bool
    use_ppo_runtime: bool
    unsafe_fixes: bool
    verl_version: str | None
    verl_version_from_cli: bool
    show_notices: bool
    follow_values: bool

    def __init__(self, **values: Any) -> None:
        """Keyword arguments only, each a field (:data:`FIELDS`); the others take their defaults.

        Raises:
            TypeError: a name that is not a field.
        """
        unknown = values.keys() - self.FIELDS.keys()
        if unknown:
            raise TypeError(f"Settings() got an unexpected keyword argument {sorted(unknown)[0]!r}")
        for name, default in self.FIELDS.items():
            object.__setattr__(self, name, values.get(name, default))

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self.FIELDS)

    def replace(self, **changes: Any) -> Settings:
        """A copy with ``changes`` (field names and values), as ``dataclasses.replace``.

        Raises:
            TypeError: a name that is not a field.
        """
        return Settings(**{**dict(zip(self.FIELDS, self._values())), **changes})

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: Settings are immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: Settings are immutable")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={v!r}" for n, v in zip(self.FIELDS, self._values()))
        return f"Settings({fields})"

    def __reduce__(self):
        return (_settings_from, (self._values(),))

    @property
    def target_names(self) -> frozenset[str]:
        """The last dotted component of each target (the prefilter words).

        Returns:
            e.g. ``frozenset({"get_ppo_ray_runtime_env"})`` for the defaults.
        """
        return _last_names(self.targets)

    @property
    def receiver_words(self) -> frozenset[str]:
        """The longest part of the first target's module name, the function's home (the
        prefilter's second look: a file that names that module and reads an attribute by a
        computed name, :func:`ppo_migrate.prefilter.builds_name`). One word: each is one
        more search of every file of a tree that never names the function (benchmark item
        1); a name built for another target's module (``main_ppo``) is found where the file
        spells the name too.

        Returns:
            ``frozenset({"constants_ppo"})`` for the defaults; empty with no dotted target.
        """
        return _module_last_names(self.targets[:1])

    def rule_enabled(self, code: str) -> bool:
        """Whether rule ``code`` is enabled, with ruff's prefix semantics.

        A rule is enabled when ``select`` is empty or one of its entries is a
        prefix of ``code`` (``"PPO"``, ``"PPO00"``, ``"PPO002"``; ``"ALL"`` matches
        every code), and no entry of ``ignore`` is a prefix of ``code``
        (``"ALL"`` in ``ignore`` disables everything).

        Args:
            code: a rule code such as ``"PPO001"``.

        Returns:
            True when diagnostics with this code should be reported.
        """
        if self.select and not any(s == "ALL" or code.startswith(s) for s in self.select):
            return False
        return not any(i == "ALL" or code.startswith(i) for i in self.ignore)


@functools.lru_cache(maxsize=32)
def _last_names(targets: tuple[str, ...]) -> frozenset[str]:
    """:attr:`Settings.target_names` of ``targets``, made once: asked for by every file's
    analysis, and a run's targets grow with the project's re-exports (one a module of a
    chain whose modules import the function and each other: 600 in issue 26's item 10)."""
    return frozenset(t.rsplit(".", 1)[-1] for t in targets)


@functools.lru_cache(maxsize=32)
def _module_last_names(targets: tuple[str, ...]) -> frozenset[str]:
    """:attr:`Settings.receiver_words` of ``targets``, made once: the longest part of each
    target's module (``constants_ppo`` of ``verl.trainer.constants_ppo``, ``ppo_runtime`` of
    ``ppo_runtime.env``), which any import of the module spells; a short last part
    (``env``) would be in nearly every file."""
    return frozenset(max(t.rsplit(".", 1)[0].split("."), key=len) for t in targets if "." in t)


def _settings_from(values: tuple) -> Settings:
    """Unpickle :class:`Settings` (the pool's workers receive the run's)."""
    return Settings(**dict(zip(Settings.FIELDS, values)))


#: The reader of a folder's own settings (:func:`set_directory_reader`); ``None``: none
#: installed, no folder has settings of its own.
_directory_reader: Callable[[Path], Settings | None] | None = None


def set_directory_reader(read: Callable[[Path], Settings | None] | None) -> None:
    """Install ``read`` as the reader of a folder's own settings (``None``: remove it).

    :mod:`ppo_migrate.cli.settings` installs :func:`ppo_migrate.cli.settings.directory_settings`
    when it is imported; a test may install another.

    Args:
        read: called with a directory; returns the settings of the nearest
            ``[tool.ppo-migrate]`` table at or above it, or ``None`` when there is none or
            it cannot be read (the run's own settings report a broken file).
    """
    global _directory_reader
    _directory_reader = read


def directory_settings(directory: str | os.PathLike[str]) -> Settings | None:
    """The settings of the nearest ``[tool.ppo-migrate]`` table at or above ``directory``,
    through the installed reader (:func:`set_directory_reader`); ``None`` when there is no
    such table, it is broken, or no reader is installed.

    Args:
        directory: a directory path.

    Raises:
        Nothing the installed reader does not raise (the loader's returns ``None`` for a
        broken table).
    """
    read = _directory_reader
    return read(Path(directory)) if read is not None else None

