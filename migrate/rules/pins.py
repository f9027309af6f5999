"""Declarations of verl in the dependency files :mod:`ppo_migrate.rules.versions` read
besides ``pyproject.toml``'s standard tables, ``setup.*``, locks and ``requirements*.txt``.

Issue 26, family 2: a project that pins verl only in one of these files had its pin ignored
and the newest signature assumed. Each reader yields the ``_Found`` entries of
:mod:`.requirements` (version, file, 1-based line, the requirement as written, kind):

* ``environment.yml``/``environment.yaml`` (conda, read with PyYAML): a conda spec
  (``verl=0.8.0``, ``verl>=0.8``, ``conda-forge::verl 0.8.0``) and its ``pip:`` section,
  whose entries are pip requirement lines (``-r``/``--requirement=`` and ``-c`` files
  followed, relative to the environment file's folder, as conda has pip read them);
* ``tox.ini`` (:mod:`configparser`): ``deps`` of ``[testenv]`` and every ``[testenv:*]``
  (``-r file`` includes read as requirement files);
* ``Pipfile`` (:mod:`tomllib`): ``[packages]``/``[dev-packages]`` and any custom category
  (every table but ``[[source]]``, ``[requires]``, ``[scripts]``, ``[pipenv]``), a version string or a
  table (``git``/``path``: a direct reference); ``Pipfile.lock`` (JSON): an exact version
  is a lock;
* ``pixi.toml``: ``[pypi-dependencies]`` (PEP 440), ``[dependencies]`` (conda specs), and
  those of every ``[feature.*]``;
* hatch environments in ``pyproject.toml``: ``[tool.hatch.envs.*] dependencies`` and
  ``extra-dependencies``;
* a fresh tester's forms (issue 26): any ``environment*.yml``/``.yaml`` (``environment-gpu.yml``),
  tox 4's ``tox.toml`` (``[env_run_base]``/``[env.*]`` ``deps``) and the same tables under
  ``[tool.tox]`` of ``pyproject.toml`` (with its ``legacy_tox_ini`` string), tox's
  ``[testenv]`` sections in ``setup.cfg``, and pixi's tables under ``[tool.pixi]`` of
  ``pyproject.toml``;
* ``pip.conf``/``pip.ini`` (:mod:`configparser`): the files its ``constraint`` (or
  ``requirement``) option names, read as requirements files (every install runs within them);
* ``uv.toml`` (trial 26d): ``override-dependencies`` and ``constraint-dependencies``, which
  apply to every resolution of the project as ``[tool.uv]``'s do.

Trial 26c (C): an entry of an environment other than the default one (a ``[testenv:X]``,
tox 4's ``[env.X]``, a hatch environment other than ``default``, a pixi feature, a ``Pipfile``
category other than ``[packages]``, ``Pipfile.lock``'s ``develop``, an ``environment-X.yml``)
is marked ``optional``: it may only lower the release (:mod:`.versions`).

Requirements and specifiers are parsed with :mod:`packaging`; nothing is executed.
"""

from __future__ import annotations

import configparser
import fnmatch
import json
import os
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from ppo_migrate.patterns import lazy_pattern
from ppo_migrate.rules.requirements import (
    _Found,
    _from_requirement,
    _is_verl,
    _line_of_toml_key,
    _local_directory,
    _offset_of_table,
    _pep508_list,
    _read_requirements,
    requirement_lines,
    _source_line,
    _strings,
    _tag,
    lowest_allowed,
    optional,
)
from ppo_migrate.project.snapshot import current

#: The file names these readers look at in a directory.
PIN_FILES: tuple[str, ...] = (
    "environment.yml",
    "environment.yaml",
    "tox.ini",
    "tox.toml",
    "Pipfile",
    "Pipfile.lock",
    "pixi.toml",
    "pip.conf",
    "pip.ini",
    "uv.toml",
    "mise.toml",
    ".mise.toml",
    ".tool-versions",
)

#: The conda environment files of the project's own environment; ``environment-gpu.yml`` and
#: the like build another one (trial 26c, C: they may only lower the release).
_DEFAULT_CONDA = frozenset({"environment.yml", "environment.yaml"})

_CONDA = lazy_pattern(r"^\s*(?:[\w.-]+::)?(?P<name>[A-Za-z0-9_.-]+)\s*(?P<spec>.*?)\s*$")


def read_pins(root: Path) -> Iterator[Any]:
    """Every declaration of verl in ``root``'s files of :data:`PIN_FILES`.

    Args:
        root: a directory.

    Yields:
        ``requirements._Found`` entries; unreadable files and entries are skipped.
    """
    try:  # environment.yml, environment-gpu.yml, environment_dev.yaml, ... (``root.glob``'s
        # names, from the folder's listing: once a run)
        conda = sorted(
            root / n for n in current().fs.list_dir(root)
            if fnmatch.fnmatchcase(n, "environment*.y*ml") and n.endswith((".yml", ".yaml"))
        )
    except (OSError, ValueError):
        conda = []
    for path in conda:  # ``environment.yml`` is the project's; ``environment-next.yml`` another one
        found = _environment(path)
        yield from found if path.name in _DEFAULT_CONDA else optional(found)
    yield from _tox(root / "tox.ini")
    yield from _tox_toml(root / "tox.toml")
    yield from _setup_cfg_tox(root / "setup.cfg")
    yield from _pipfile(root / "Pipfile")
    yield from _pipfile_lock(root / "Pipfile.lock")
    yield from _pixi(root / "pixi.toml")
    for name in ("pip.conf", "pip.ini"):
        yield from _pip_conf(root / name)
    yield from _uv_toml(root / "uv.toml")
    for name in ("mise.toml", ".mise.toml"):
        yield from _mise(root / name)
    yield from _tool_versions(root / ".tool-versions")


#: mise's and asdf's tool names that install a Python package: ``pipx:verl`` (mise's pipx
#: backend, "Backends" in mise's documentation), ``pip:verl``, ``pypi:verl``
_MISE_TOOL = lazy_pattern(r"(?:pipx|pip|pypi):(?P<name>[A-Za-z0-9_.-]+)")


def _mise_version(value: Any, path: Path, line: int, written: str):
    """One mise tool version: ``"0.8.0"`` (that release), ``"0.8"`` (mise's prefix match:
    the newest 0.8.x, its lowest 0.8.0 counted), ``"latest"`` (no constraint), a list (each
    version is installed: every one counts), a table's ``version``."""
    if isinstance(value, dict):
        value = value.get("version")
    values = value if isinstance(value, list) else [value]
    for one in values:
        if not isinstance(one, str):
            continue
        text = one.strip()
        if re.fullmatch(r"\d+(?:\.\d+){2,}", text):
            yield _Found(Version(text), path, line, written, "lock", True)
        elif re.fullmatch(r"\d+(?:\.\d+)?", text):
            yield _Found(lowest_allowed(SpecifierSet(f"=={text}.*")), path, line, written, "specifier", True)
        elif text in ("latest", ""):
            yield _Found(None, path, line, written, "specifier", False)
        else:  # ``ref:<sha>``, ``prefix:0.8``, a path: a release that cannot be read
            yield _Found(None, path, line, written, "direct-reference", True)


def _mise(path: Path):
    """A ``mise.toml``'s ``[tools]`` entries that install verl (trial 26f,
    ``h2_mise_pipx_verl``: ``"pipx:verl" = "0.8.0"`` installs verl 0.8.0 in the tool's
    environment, the one ``mise exec``/``mise run`` put first on ``PATH``)."""
    loaded = _toml(path)
    if loaded is None:
        return
    data, raw = loaded
    tools = data.get("tools")
    if not isinstance(tools, dict):
        return
    for name, value in tools.items():
        m = _MISE_TOOL.fullmatch(name) if isinstance(name, str) else None
        if m is not None and _is_verl(m.group("name")):
            line = _line(raw, name)
            yield from _mise_version(value, path, line, f"{name} = {value!r}" if not isinstance(value, str) else f'"{name}" = "{value}"')


def _tool_versions(path: Path):
    """A ``.tool-versions`` line ``pipx:verl 0.8.0`` (asdf's format, read by mise too): the
    first version listed is the one in use."""
    raw = _text(path)
    if raw is None:
        return
    for number, text in enumerate(raw.splitlines(), 1):
        words = text.split("#", 1)[0].split()
        m = _MISE_TOOL.fullmatch(words[0]) if words else None
        if m is not None and _is_verl(m.group("name")) and len(words) > 1:
            yield from _mise_version(words[1], path, number, " ".join(words[:2]))


def _uv_toml(path: Path):
    """A ``uv.toml``'s ``override-dependencies`` and ``constraint-dependencies`` (uv reads the
    file beside the project as its ``[tool.uv]`` table; both apply to every resolution of the
    project, as in ``pyproject.toml``: trial 26d, ``d2_uv_toml_override``). Both install
    nothing, so they are optional here: they may only lower the release (trial 26e)."""
    loaded = _toml(path)
    if loaded is None:
        return
    data, raw = loaded
    for key in ("override-dependencies", "constraint-dependencies"):
        values = data.get(key)
        start = raw.find(key)
        yield from optional(_pep508_list(_strings(values), raw, path, max(start, 0)))


def _pip_conf(path: Path):
    """A ``pip.conf``/``pip.ini``'s ``constraint``/``requirement`` files (any section): every
    ``pip install`` run with that configuration installs within their pins. A ``constraint``
    file installs nothing (it narrows what a requirement brings), so its entries are
    ``optional``: they may only lower the release (trial 26e, ``e3b_pip_conf_constraint_only``:
    a base image's verl 0.8 beside a ``constraint = constraints.txt`` holding ``verl>=0.9.0``)."""
    raw = _text(path)
    if raw is None:
        return
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(raw, source=str(path))
    except configparser.Error:
        return
    seen: set[Path] = set()
    for section in parser.sections():
        for option in ("constraint", "constraints", "requirement"):
            if not parser.has_option(section, option):
                continue
            for name in parser.get(section, option).split():
                found = _read_requirements(Path(os.path.normpath(path.parent / os.path.expanduser(name))), seen)
                yield from found if option == "requirement" else optional(found)


def _text(path: Path) -> str | None:
    """The file's text (as ``path.read_text(encoding="utf-8")``, decoded by its byte-order
    mark when it has one: :meth:`ppo_migrate.project.snapshot.Snapshot.read_text`), its bytes
    read once a run; ``None`` when it cannot be had."""
    try:
        snapshot = current()
        return snapshot.read_text(path) if snapshot.fs.is_file(path) else None
    except (OSError, UnicodeError):
        return None


def conda_specifier(spec: str) -> SpecifierSet | None:
    """A conda version spec as a PEP 440 set for its lowest version: ``=0.8`` (0.8.*) and a
    bare ``0.8.0`` become ``>=`` their version; ``None`` when unparsable.

    Args:
        spec: the part after the package name, e.g. ``"=0.8.0"``, ``">=0.8,<0.9"``, ``""``.
    """
    spec = spec.strip().split("[", 1)[0].strip()
    if " " in spec:  # "0.8.0 py311_0": the build string says nothing of the version
        spec = spec.split()[0]
    if not spec or spec == "*":
        return SpecifierSet()
    clauses = []
    for part in re.split(r"\s*,\s*", spec):
        part = part.strip().rstrip(".*").rstrip("*")
        if re.fullmatch(r"=?\d[\w.]*", part):
            clauses.append(">=" + part.lstrip("="))
        else:
            clauses.append(part)
    try:
        return SpecifierSet(",".join(clauses))
    except InvalidSpecifier:
        return None


def _conda(text: str, path: Path, line: int):
    m = _CONDA.match(text)
    if m is None or not _is_verl(m.group("name")):
        return None
    specifier = conda_specifier(m.group("spec"))
    if specifier is None:
        return None
    if not len(specifier):
        return _Found(None, path, line, text.strip(), "specifier", False)
    return _Found(lowest_allowed(specifier), path, line, text.strip(), "specifier", True)


def _line(raw: str, needle: str) -> int:
    at = raw.find(needle)
    return raw.count("\n", 0, at) + 1 if at >= 0 else 1


def _environment(path: Path):
    """The declarations of verl in a conda environment file: its conda specs
    (:func:`_conda`) and its ``pip:`` section read as pip requirement lines
    (:func:`ppo_migrate.rules.requirements.requirement_lines`).

    Args:
        path: an ``environment*.yml``/``.yaml`` file.

    Yields:
        ``_Found`` entries; a file that cannot be read or parsed yields nothing.
    """
    raw = _text(path)
    if raw is None:
        return
    import yaml

    try:
        data = yaml.load(raw, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return
    deps = data.get("dependencies") if isinstance(data, dict) else None
    if not isinstance(deps, list):
        return
    for item in deps:
        if isinstance(item, str):
            found = _conda(item, path, _line(raw, item))
            if found is not None:
                yield found
        elif isinstance(item, dict) and isinstance(item.get("pip"), list):
            # conda writes the entries into a requirements file beside the environment file
            # and runs ``pip install -r`` on it: each is a requirement line, ``-r``/
            # ``--requirement=``/``-c`` includes relative to this folder (trial 26c, B)
            entries = [t.strip() for t in item["pip"] if isinstance(t, str) and t.strip()]
            yield from requirement_lines(((_line(raw, t), t) for t in entries), path, set())


def _tox(path: Path):
    raw = _text(path)
    if raw is not None:
        yield from tox_ini_pins(raw, path, raw)


def _setup_cfg_tox(path: Path):
    """tox's ``[testenv]`` sections in ``setup.cfg`` (tox reads them there too)."""
    raw = _text(path)
    if raw is not None and "testenv" in raw:
        yield from tox_ini_pins(raw, path, raw)


def _tox_deps(deps: Any, path: Path, raw: str):
    """The ``deps`` list of a tox 4 TOML environment table."""
    if not isinstance(deps, list):
        return
    for text in deps:
        if not isinstance(text, str):
            continue
        found = _from_requirement(text.strip(), path, _line(raw, text), lock_pins=True)
        if found is not None:
            yield found


def tox_toml_pins(tox: Any, path: Path, raw: str):
    """``deps`` of ``[env_run_base]`` and every ``[env.<name>]`` of tox 4's TOML
    configuration (``tox.toml``, or ``[tool.tox]`` of ``pyproject.toml``: ``tox`` is that
    table), and a ``legacy_tox_ini`` string read as ``tox.ini``."""
    if not isinstance(tox, dict):
        return
    base = tox.get("env_run_base")
    if isinstance(base, dict):
        yield from _tox_deps(base.get("deps"), path, raw)
    envs = tox.get("env")
    if isinstance(envs, dict):
        for env in envs.values():  # a named environment: not the default one (trial 26c, C)
            if isinstance(env, dict):
                yield from optional(_tox_deps(env.get("deps"), path, raw))
    legacy = tox.get("legacy_tox_ini")
    if isinstance(legacy, str):
        yield from tox_ini_pins(legacy, path, raw)


def _tox_toml(path: Path):
    loaded = _toml(path)
    if loaded is not None:
        yield from tox_toml_pins(loaded[0], path, loaded[1])


def pixi_tables(pixi: Any, raw: str, path: Path):
    """pixi's dependency tables (``pixi.toml``'s top level, or ``[tool.pixi]`` of
    ``pyproject.toml``): ``[pypi-dependencies]``, ``[dependencies]`` and every feature's."""
    if not isinstance(pixi, dict):
        return
    tables = [(pixi, False)]
    features = pixi.get("feature")
    if isinstance(features, dict):  # a feature is in the environments that name it only
        tables += [(f, True) for f in features.values() if isinstance(f, dict)]
    for table, feature in tables:
        found = [
            *_entries(table.get("pypi-dependencies"), raw, path),
            *_entries(table.get("dependencies"), raw, path, conda=True),
        ]
        yield from optional(found) if feature else found


#: tox's substitution of an environment variable with a default: ``{env:NAME:default}`` (tox's
#: "Substitutions" documentation, "Environment variable substitutions with default values")
_TOX_ENV_DEFAULT = lazy_pattern(r"\{env:[^:{}]+:([^{}]*)\}")


def tox_ini_pins(ini: str, path: Path, raw: str):
    """``deps`` of ``[testenv]`` and every ``[testenv:*]`` of tox's INI configuration
    ``ini`` (``tox.ini``, ``setup.cfg``, a ``legacy_tox_ini`` string), lines counted in the
    file's text ``raw``. A ``{env:NAME:default}`` is its default (trial 26f); a requirement
    of verl with another substitution (``verl=={env:V}``, ``{posargs}``) is a verl whose
    release cannot be read."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(ini, source=str(path))
    except configparser.Error:
        return
    seen: set[Path] = set()
    # ``[testenv]`` first: a file it and a named environment both include is the default's
    for section in sorted(parser.sections(), key=lambda name: name != "testenv"):
        if section != "testenv" and not section.startswith("testenv:"):
            continue
        if not parser.has_option(section, "deps"):
            continue
        named = section != "testenv"  # ``[testenv:next]``: not the default environment (trial 26c, C)
        installed: list[_Found] = []
        constrained: list[_Found] = []
        for text in parser.get(section, "deps").splitlines():
            text = text.split(" #", 1)[0].strip()
            if not text or text.startswith("#"):
                continue
            text = re.sub(r"^[\w,!-]+:\s*", "", text)  # a factor condition (py311: verl==0.8)
            if text.startswith(("-r", "-c")):
                name = text[2:].strip().lstrip("=").strip().replace("{toxinidir}", str(path.parent))
                included = _read_requirements(Path(os.path.normpath(path.parent / name)), seen)
                (constrained if text.startswith("-c") else installed).extend(included)
                continue
            line, written = _line(raw, text), text
            if "{" in text:
                # trial 26f (``h2_tox_env_substitution_default``): ``verl{env:VERL_SPEC:==0.8.0}``
                # is its default unless the variable is set: the default is read (as the
                # shell's ``${NAME:-word}``); a substitution without one cannot be read
                text = _TOX_ENV_DEFAULT.sub(lambda m: m.group(1), text)
                if "{" in text:
                    if re.match(r"(?i)verl(?![\w.-])", text):
                        installed.append(_Found(None, path, line, written, "direct-reference", True))
                    continue
            found = _from_requirement(text, path, line, lock_pins=True)
            if found is not None:
                installed.append(found._replace(requirement=written) if written != text else found)
        # a ``-c`` file installs nothing: without a requirement on verl in the same deps it
        # may only lower the release (trial 26e, as pip's own constraints files)
        yield from (found._replace(optional=named or found.optional) for found in installed)
        for found in constrained:
            yield found._replace(optional=named or found.optional or not installed)


def _toml(path: Path) -> tuple[dict[str, Any], str] | None:
    raw = _text(path)
    if raw is None:
        return None
    try:
        return tomllib.loads(raw), raw
    except tomllib.TOMLDecodeError:
        return None


def _table_entry(value: Any, path: Path, line: int, written: str, conda: bool = False):
    """One ``verl = ...`` entry of a Pipfile or pixi.toml table."""
    if isinstance(value, dict):
        if {"git", "path", "url", "file"} & set(value):
            tagged = _tag(value.get("tag") or value.get("ref") or value.get("rev")) if "git" in value else None
            if tagged is not None:
                return _Found(tagged, path, line, written, "lock", True)
            local = value.get("path") or value.get("file")
            local_dir = _local_directory(local, path) if isinstance(local, str) else None
            return _Found(None, path, line, written, "direct-reference", True, local_dir)
        value = value.get("version")
    if not isinstance(value, str):
        return None
    if conda:
        specifier = conda_specifier(value)
    else:
        text = value.strip()
        if text == "*":
            text = ""
        elif re.fullmatch(r"\d[\w.]*", text):
            text = "==" + text
        try:
            specifier = SpecifierSet(text)
        except InvalidSpecifier:
            specifier = None
    if specifier is None:
        return None
    if not len(specifier):
        return _Found(None, path, line, written, "specifier", False)
    return _Found(lowest_allowed(specifier), path, line, written, "specifier", True)


def _entries(table: Any, raw: str, path: Path, conda: bool = False):
    if not isinstance(table, dict):
        return
    for name, value in table.items():
        if not isinstance(name, str) or not _is_verl(name):
            continue
        line = _line_of_toml_key(raw, name, 0)
        found = _table_entry(value, path, line, _source_line(raw, line), conda)
        if found is not None:
            yield found


def _pipfile(path: Path):
    loaded = _toml(path)
    if loaded is None:
        return
    data, raw = loaded
    # [packages], [dev-packages] and any custom category (``[train]``): a table of packages
    for key, table in data.items():
        if key in _PIPFILE_NOT_PACKAGES or not isinstance(table, dict):
            continue
        start = _offset_of_table(raw, key)
        for name, value in table.items():
            if not isinstance(name, str) or not _is_verl(name):
                continue
            line = _line_of_toml_key(raw, name, start)
            found = _table_entry(value, path, line, _source_line(raw, line))
            if found is not None:  # ``[dev-packages]``, ``[train]``: installed only where asked for
                yield found._replace(optional=key != "packages")


#: the Pipfile tables that do not list packages
_PIPFILE_NOT_PACKAGES = frozenset({"source", "requires", "scripts", "pipenv"})


def _pipfile_lock(path: Path):
    raw = _text(path)
    if raw is None:
        return
    try:
        data = json.loads(raw)
    except ValueError:
        return
    if not isinstance(data, dict):
        return
    for group in ("default", "develop"):
        develop = group == "develop"  # ``pipenv install --dev`` only (trial 26c, C)
        entries = data.get(group)
        if not isinstance(entries, dict):
            continue
        for name, entry in entries.items():
            if not isinstance(name, str) or not _is_verl(name) or not isinstance(entry, dict):
                continue
            line = _line(raw, f'"{name}"')
            if {"git", "path", "file", "editable"} & set(entry):
                yield _Found(None, path, line, f"verl ({path.name})", "lock", True, optional=develop)
                continue
            version = str(entry.get("version", "")).lstrip("=")
            try:
                yield _Found(Version(version), path, line, f"verl {version} ({path.name})", "lock", True, optional=develop)
            except InvalidVersion:
                continue


def _pixi(path: Path):
    loaded = _toml(path)
    if loaded is not None:
        yield from pixi_tables(loaded[0], loaded[1], path)


def pyproject_tool_pins(data: dict[str, Any], raw: str, path: Path):
    """The other tools' tables of a ``pyproject.toml`` that declare verl: hatch's
    environments, ``[tool.tox]`` and ``[tool.pixi]``."""
    yield from hatch_envs(data, raw, path)
    tool = data.get("tool")
    if isinstance(tool, dict):
        yield from tox_toml_pins(tool.get("tox"), path, raw)
        yield from pixi_tables(tool.get("pixi"), raw, path)


def hatch_envs(data: dict[str, Any], raw: str, path: Path):
    """``[tool.hatch.envs.<name>] dependencies``/``extra-dependencies`` of a ``pyproject.toml``."""
    tool = data.get("tool")
    hatch = tool.get("hatch") if isinstance(tool, dict) else None
    envs = hatch.get("envs") if isinstance(hatch, dict) else None
    if not isinstance(envs, dict):
        return
    for name, env in envs.items():
        if not isinstance(env, dict):
            continue
        start = _offset_of_table(raw, f"tool.hatch.envs.{name}")
        for key in ("dependencies", "extra-dependencies"):
            found = _pep508_list(_strings(env.get(key)), raw, path, start)
            # an environment other than ``default`` is used only where asked for (trial 26c, C)
            yield from found if name == "default" else optional(found)
