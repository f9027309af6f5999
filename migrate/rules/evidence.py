"""Evidence from the repository's YAML files: the top-level keys of a config file a module
loads (``OmegaConf.load("ray_cluster.yaml")``) or composes (``@hydra.main(config_path=...,
config_name=...)``, Hydra's ``compose`` API), to tell a training config from another one.

A training config is a mapping with one of verl's top-level sections (verl
``verl/trainer/config/ppo_trainer.yaml``: ``actor_rollout_ref``, ``critic``, ...;
:data:`VERL_SECTIONS`). The keys of a composed config are
its own keys and, through its ``defaults`` list, the keys of the configs it inherits
(``- ppo_trainer``: that file's keys, found in the same config directory) and the packages
of the config groups it selects (``- actor@actor_rollout_ref.actor: dp_actor`` puts
``actor_rollout_ref``; ``- data: legacy_data`` puts ``data``). When a ``defaults`` entry
cannot be found beside the file (a search path, a package), or a ``# @package`` header
moves a file's keys elsewhere (``# @package wrapped`` nests the config under ``wrapped``),
Hydra itself (``hydra.compose``) is asked; a file that neither can compose is reported as such.

Files are read (PyYAML) and composed at most once per process, keyed by path, modification
time and size; the analysis that asks stays a function of the files' contents. Their bytes
and ``stat`` come from the run's snapshot (:mod:`ppo_migrate.project.snapshot`, its
:class:`~ppo_migrate.project.filesystem.FileSystem`): this module opens, stats and walks
nothing itself (issue 26). Hydra's own composition (:func:`_hydra_compose`) still reads the
config directory itself.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import NamedTuple

from ppo_migrate.constants import VERL_SECTIONS
from ppo_migrate.project.snapshot import current

#: Keys a Hydra primary config may hold that are not part of the composed config's content.
_HYDRA_KEYS = frozenset({"defaults", "hydra"})
#: Levels above a module's directory searched for a relative file name (up to the root).
_MAX_UP = 8
#: verl's own trainer configs (``verl/trainer/config/<name>.yaml`` of the 0.9.x wheels),
#: each composing to a training config
VERL_TRAINER_CONFIGS = frozenset({
    "ppo_trainer", "ppo_megatron_trainer", "ppo_torchtitan_trainer", "ppo_veomni_trainer",
    "_generated_ppo_trainer", "_generated_ppo_megatron_trainer",
    "_generated_ppo_torchtitan_trainer", "_generated_ppo_veomni_trainer",
})
#: the top-level sections every one of them composes (tested on the 0.9.1 wheel)
VERL_TRAINER_KEYS = frozenset({"actor_rollout_ref", "critic", "algorithm", "trainer", "data"})


class ConfigKeys(NamedTuple):
    """What a config file shows.

    Attributes:
        path: the file read (the primary config for a composition).
        keys: its top-level keys once composed; ``None`` when it could not be read or composed.
        problem: why not (``None`` when ``keys`` is known).
    """

    path: Path
    keys: frozenset[str] | None
    problem: str | None = None


def find_file(name: str, directory: Path, root: Path | None) -> list[Path]:
    """The files a relative file name given to ``OmegaConf.load`` may be: the name under
    the module's directory and each directory above it up to ``root`` (the package root, or
    the repository's top), first found first. An absolute name is itself, if it exists.

    Args:
        name: the file name as written (``"ray_cluster.yaml"``, ``"conf/ppo.yaml"``).
        directory: the loading module's directory.
        root: the highest directory to search (``None``: the module's directory and
            :data:`_MAX_UP` levels above).
    """
    p = Path(name)
    fs = current().fs
    if p.is_absolute():
        return [p] if fs.is_file(p) else []
    found: list[Path] = []
    d = directory
    for _ in range(_MAX_UP + 1):
        candidate = d / p
        if fs.is_file(candidate) and candidate not in found:
            found.append(candidate)
        if root is not None and d == root or d.parent == d:
            break
        d = d.parent
    return found


def _stamp(path: Path) -> tuple[str, int, int] | None:
    try:
        st = current().fs.stat(path)  # once a run
    except (OSError, ValueError):
        return None
    return (current().fs.realpath(path), st.st_mtime_ns, st.st_size)


def file_keys(path: Path) -> ConfigKeys:
    """The top-level keys of one YAML file as ``OmegaConf.load`` would read it (no
    composition: ``OmegaConf.load`` does not read ``defaults``)."""
    stamp = _stamp(path)
    if stamp is None:
        return ConfigKeys(path, None, f"`{path}` cannot be read")
    data, problem = _read(*stamp)
    if problem is not None:
        return ConfigKeys(path, None, problem)
    if not isinstance(data, dict):
        return ConfigKeys(path, None, f"`{path.name}` does not hold a mapping")
    return ConfigKeys(path, frozenset(str(k) for k in data))


@functools.lru_cache(maxsize=512)
def _read(path: str, mtime: int, size: int) -> tuple[object, str | None]:
    import yaml

    try:
        text = current().read_text(path)  # as ``open(path, encoding="utf-8")``, read once a run
        # libyaml's safe loader where PyYAML has it: the pure-Python one took 0.05 s a
        # verl trainer config (half of a check of verl-recipe, benchmark item 13)
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)), None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return None, f"`{Path(path).name}` cannot be read as YAML ({first})"


def composed_keys(config_dir: Path, config_name: str) -> ConfigKeys:
    """The top-level keys of config ``config_name`` of directory ``config_dir`` once Hydra
    composes it (see the module's docstring).

    Args:
        config_dir: the config directory (``config_path`` resolved against the module's
            directory, as ``@hydra.main`` resolves it).
        config_name: the config's name, with or without ``.yaml``.
    """
    name = config_name[:-5] if config_name.endswith(".yaml") else config_name
    primary = config_dir / f"{name}.yaml"
    stamp = _stamp(primary)
    if stamp is None:
        return ConfigKeys(primary, None, f"`{primary}` does not exist")
    keys, problem = _own_composition(config_dir, name, ())
    if keys is not None:
        return ConfigKeys(primary, keys)
    own = _own_keys(primary)
    if own & sections():
        # composing only adds keys: a section the primary file holds itself stays
        return ConfigKeys(primary, own)
    hydra_keys, hydra_problem = _hydra_compose(current().fs.realpath(config_dir), name, _dir_stamp(config_dir))
    if hydra_keys is not None:
        return ConfigKeys(primary, hydra_keys)
    return ConfigKeys(primary, None, hydra_problem or problem)


def sections() -> frozenset[str]:
    """verl's top-level sections (:data:`VERL_SECTIONS`)."""
    return VERL_SECTIONS


def _package_header(path: Path) -> str | None:
    """The package a Hydra config file's ``# @package <package>`` header names (Hydra reads
    it from the comment lines opening the file), or ``None`` without one."""
    try:
        text = current().read_text(path, "utf-8", "replace")  # read once a run
    except (OSError, ValueError):
        return None
    for line in text.split("\n", 50)[:50]:
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            break
        words = stripped.lstrip("#").split()
        if len(words) == 2 and words[0] == "@package":
            return words[1]
    return None


def _moved(path: Path, default: str) -> str | None:
    """Why a config file's keys do not land where its place in the composition puts them
    (``default``: ``"_global_"`` for a primary or inherited config, ``"_group_"`` for a
    config group's option): a ``# @package`` header naming another package (trial 27, r05:
    ``# @package wrapped`` nests the whole config under ``wrapped``); ``None`` otherwise."""
    header = _package_header(path)
    if header is None or header == default:
        return None
    return f"`{path.name}` has a `# @package {header}` header"


def _own_keys(path: Path) -> frozenset[str]:
    """The keys a config file holds itself and the packages its ``defaults`` entries of
    the form ``group@package: option`` (or ``group: option``) fill: what any composition
    of it has, whatever its other entries bring."""
    stamp = _stamp(path)
    if stamp is None or _moved(path, "_global_") is not None:
        return frozenset()
    data, problem = _read(*stamp)
    if problem is not None or not isinstance(data, dict):
        return frozenset()
    keys = {str(k) for k in data if k not in _HYDRA_KEYS}
    for entry in data.get("defaults") or []:
        if isinstance(entry, dict) and len(entry) == 1:
            group = str(next(iter(entry))).removeprefix("optional ").removeprefix("override ").strip()
            group, _, package = group.partition("@")
            target = package or group.replace("/", ".")
            if group.split("/")[0] != "hydra" and not target.startswith(("_here_", "_global_")):
                keys.add(target.split(".", 1)[0])
    return frozenset(keys)


def _dir_stamp(directory: Path) -> tuple:
    """The modification stamps of the YAML files of a config directory (a cache key)."""
    out = []
    for dirpath, _, files in current().fs.walk(directory):  # each folder listed once a run
        for f in sorted(files):
            if f.endswith((".yaml", ".yml")):
                s = _stamp(Path(dirpath) / f)
                if s is not None:
                    out.append(s)
    return tuple(sorted(out))


def _searches_verl(data: dict) -> bool:
    """Whether a primary config's ``hydra.searchpath`` names verl's trainer configs
    (``file://verl/trainer/config``, ``pkg://verl.trainer.config``)."""
    hydra = data.get("hydra")
    paths = hydra.get("searchpath") if isinstance(hydra, dict) else None
    if not isinstance(paths, list):
        return False
    return any(
        isinstance(p, str) and ("verl/trainer/config" in p or "verl.trainer.config" in p)
        for p in paths
    )


def _own_composition(
    config_dir: Path, name: str, seen: tuple[str, ...], verl_search: bool = False
) -> tuple[frozenset[str] | None, str | None]:
    """The keys of a config and the configs its ``defaults`` list inherits from the same
    directory, or verl's own trainer configs (:data:`VERL_TRAINER_CONFIGS`) through a
    search path naming verl's config directory; ``(None, why)`` when an entry is not found
    (another search path, a package, an interpolated name) or a file cannot be read."""
    path = config_dir / f"{name}.yaml"
    stamp = _stamp(path)
    if stamp is None or name in seen:
        return None, f"`{path.name}` is not in `{config_dir}`"
    data, problem = _read(*stamp)
    if problem is not None:
        return None, problem
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return None, f"`{path.name}` does not hold a mapping"
    moved = _moved(path, "_global_")
    if moved is not None:
        return None, moved  # Hydra itself composes it
    keys = {str(k) for k in data if k not in _HYDRA_KEYS}
    defaults = data.get("defaults") or []
    if not isinstance(defaults, list):
        return None, f"`{path.name}`'s defaults is not a list"
    verl_search = verl_search or _searches_verl(data)
    for entry in defaults:
        if entry == "_self_":
            continue
        if isinstance(entry, str):
            option = entry.removeprefix("optional ").removeprefix("override ").strip()
            if "/" in option or "@" in option or "$" in option:
                return None, f"`{path.name}`'s defaults entry `{entry}` is not read here"
            inherited, why = _own_composition(config_dir, option, (*seen, name), verl_search)
            if inherited is None and verl_search and option in VERL_TRAINER_CONFIGS:
                # ``- ppo_trainer`` found through ``hydra.searchpath: [file://verl/trainer/config]``
                # (a recipe run from verl's checkout): verl's own trainer config
                inherited = VERL_TRAINER_KEYS
            if inherited is None:
                return None, why
            keys |= inherited
        elif isinstance(entry, dict) and len(entry) == 1:
            group, _ = next(iter(entry.items()))
            group = str(group).removeprefix("optional ").removeprefix("override ").strip()
            group, _, package = group.partition("@")
            if group.startswith(("hydra/", "hydra")) and group.split("/")[0] == "hydra":
                continue  # Hydra's own settings
            target = package or group.replace("/", ".")
            if target in ("_here_", "_global_") or target.startswith(("_here_", "_global_")):
                return None, f"`{path.name}`'s defaults entry `{group}@{package}` is not read here"
            option = next(iter(entry.values()))
            if not package and isinstance(option, str) and "$" not in option:
                # the option's own ``# @package`` header decides where its keys go
                moved = _moved(config_dir / group / f"{option}.yaml", "_group_")
                if moved is not None:
                    return None, moved
            keys.add(target.split(".", 1)[0])
        else:
            return None, f"`{path.name}`'s defaults entry `{entry}` is not read here"
    return frozenset(keys), None


@functools.lru_cache(maxsize=64)
def _hydra_compose(config_dir: str, name: str, stamp: tuple) -> tuple[frozenset[str] | None, str | None]:
    """Hydra's own composition of config ``name`` of ``config_dir`` (its top-level keys)."""
    try:
        from hydra import compose, initialize_config_dir
        from hydra.core.global_hydra import GlobalHydra
    except ImportError:
        return None, "Hydra is not installed to compose it"
    if GlobalHydra.instance().is_initialized():
        return None, "Hydra is initialised in this process"
    import warnings

    try:
        with warnings.catch_warnings(), initialize_config_dir(config_dir=config_dir, version_base=None):
            warnings.simplefilter("ignore")
            cfg = compose(config_name=name)
        return frozenset(str(k) for k in cfg.keys()), None
    except Exception as exc:  # Hydra raises many kinds for a config it cannot compose
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return None, f"Hydra cannot compose `{name}` from `{config_dir}` ({first})"
    finally:
        if GlobalHydra.instance().is_initialized():
            GlobalHydra.instance().clear()


__all__ = ["VERL_SECTIONS", "ConfigKeys", "composed_keys", "file_keys", "find_file"]
