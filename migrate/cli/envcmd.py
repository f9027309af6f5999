"""``ppo-migrate env``: the Ray runtime_env a training config yields, and why.

Two forms::

    ppo-migrate env CONFIG.yaml [KEY=VALUE ...]
    ppo-migrate env --config-dir DIR --config-name NAME [KEY=VALUE ...]

The first loads one YAML file with OmegaConf -- or, when its top is a Hydra defaults list
(verl's ``ppo_megatron_trainer.yaml``), composes it with its own directory as the config
dir; the second composes the config the way a ``@hydra.main(config_path=DIR,
config_name=NAME)`` entry point would, defaults lists included (both need Hydra:
``pip install 'ppo-migrate[hydra]'``). Then it does what verl 0.9.1's ``main_ppo``
(``run_ppo``) does: it first sets the driver's determinism variables from the config
(:func:`main_ppo_environ`: ``full_determinism`` -> ``VERL_FULL_DETERMINISM``,
``VLLM_BATCH_INVARIANT``, ``PYTHONHASHSEED``; ``rl_insight`` in ``trainer.logger`` ->
``VERL_RL_INSIGHT_ENABLE``), calls ``get_ppo_ray_runtime_env(config)``, and merges
``ray_kwargs.ray_init.runtime_env`` over the result, naming the variables that came
from each step. Overrides are
Hydra-style: ``key=value`` changes an existing key, ``+key=value`` adds a new one,
``++key=value`` adds or changes, ``~key`` deletes. Interpolations (``${...}``, including
``oc.select``) are resolved for the keys :mod:`ppo_runtime` reads; an interpolation
elsewhere in the file that cannot be resolved is not an error, because the runtime
function never reads it either.

Overrides are parsed with Hydra's own override parser when Hydra is installed. Without
Hydra a small fallback parser is used: ``[+|++|~]dotted.key[=value]`` with the value
read as a YAML scalar/flow value (``1``, ``true``, ``null``, ``[1, 2]``, ``{a: 1}``,
``${...}`` stays a string); sweeps (``a=1,2``), ``choice(...)`` and other grammar
functions are not recognised there (``a=1,2`` is the string ``"1,2"``).

A YAML file (the one given, or any file Hydra loads from ``--config-dir``) must be
UTF-8 and its top level a mapping; an empty file (or only comments, or ``null``) is an
empty config, as in Hydra. ``--explain`` adds each component as verl decides it (built
or not, and why), the capability and the variables no rule sets; with
``--output-format json`` (``--format`` is a hidden alias) the reasons too. Warnings that
torch, NumPy or Hydra emit are suppressed.

Errors are one line on stderr and exit code 2, never a traceback: a missing, unreadable
or non-UTF-8 file or directory, a YAML syntax error (with its line and column), a top
level that is not a mapping, a recursive anchor, a malformed interpolation, a bad
override, an interpolation that cannot be resolved (naming the key), an unknown config
name, a malformed defaults list or a defaults cycle (naming the file), a defaults list
without Hydra installed, a malformed ``ray_kwargs.ray_init.runtime_env`` (or a
non-string value in its ``env_vars``, which ``ray.init`` rejects), a bad flag or
strategy value or a component section that is not a mapping (naming the key), a malformed
``--capability``, and click's own usage errors (unknown option, bad ``--output-format``).

Everything here is a plain function except :data:`env_command`, the click command the
``ppo-migrate`` group registers; this module imports only click at import time.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import click

from ppo_migrate.constants import VERL_SECTIONS

__all__ = [
    "EnvCommandError",
    "EnvResult",
    "Override",
    "apply_overrides",
    "compose_config",
    "env_command",
    "hydra_available",
    "load_config",
    "load_or_compose",
    "main_ppo_environ",
    "merge_ray_kwargs",
    "parse_overrides",
    "render_json",
    "render_text",
    "run_env",
]

EXIT_ERROR = 2
HYDRA_INSTALL_HINT = "pip install 'ppo-migrate[hydra]'"


class EnvCommandError(Exception):
    """A user error of ``ppo-migrate env``: printed as one line, exit code 2."""

    def __init__(self, message: str) -> None:
        super().__init__(_one_line(message))


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


@dataclass(frozen=True)
class Override:
    """One parsed command-line override.

    Attributes:
        kind: ``"change"`` (``key=value``), ``"add"`` (``+key=value``), ``"force_add"``
            (``++key=value``) or ``"delete"`` (``~key`` / ``~key=value``).
        key: the dotted key, e.g. ``"actor_rollout_ref.actor.strategy"``.
        value: the parsed value (``str``, ``int``, ``float``, ``bool``, ``None``,
            ``list`` or ``dict``); for ``delete``, the value the key must have or ``None``.
        input_line: the override as typed.
        package: the ``@package`` of a config-group override (``group@pkg=option``),
            else ``None``; only meaningful with ``--config-dir``.
    """

    kind: Literal["change", "add", "force_add", "delete"]
    key: str
    value: Any
    input_line: str
    package: str | None = None


def hydra_available() -> bool:
    """Whether Hydra (``hydra-core``) can be imported."""
    try:
        import hydra  # noqa: F401
    except ImportError:
        return False
    return True


_FALLBACK_RE = re.compile(
    r"^(?P<prefix>~|\+\+|\+)?(?P<key>[A-Za-z0-9_\-]+(?:\.[A-Za-z0-9_\-]+)*)(?:=(?P<value>.*))?$",
    re.DOTALL,
)


_EMPTY_KEY_RE = re.compile(r"^(?:~|\+\+|\+)?(?:@[^=]*)?(?:=.*)?$", re.DOTALL)


def _check_override_shape(text: str) -> None:
    """An empty key (``=x``, ``~``, ``@pkg=x``): Hydra reads it as the key ``''``."""
    if _EMPTY_KEY_RE.match(text):
        raise EnvCommandError(f"bad override {text!r}: the key is empty (expected KEY=VALUE)")


def _no_value_hint(text: str) -> str:
    if "=" not in text and (text.endswith((".yaml", ".yml")) or os.path.isfile(text)):
        return f"bad override {text!r}: expected KEY=VALUE (only one CONFIG.yaml can be given)"
    return ""


def _parse_fallback(text: str) -> Override:
    import yaml  # a dependency of omegaconf

    _check_override_shape(text)
    match = _FALLBACK_RE.match(text)
    if match is None:
        raise EnvCommandError(
            f"bad override {text!r}: expected [+|++|~]dotted.key=value (Hydra is not "
            f"installed, so only this simple syntax is understood; {HYDRA_INSTALL_HINT})"
        )
    prefix, key, raw = match.group("prefix"), match.group("key"), match.group("value")
    kind = {"~": "delete", "+": "add", "++": "force_add", None: "change"}[prefix]
    if raw is None and kind != "delete":
        raise EnvCommandError(_no_value_hint(text) or f"bad override {text!r}: missing '=VALUE'")
    if raw is None:
        value: Any = None
    elif raw.strip() == "":
        value = ""
    else:
        try:
            value = yaml.safe_load(raw)
        except yaml.YAMLError:
            value = raw
    return Override(kind, key, value, text)  # type: ignore[arg-type]


def parse_overrides(
    overrides: list[str] | tuple[str, ...], *, use_hydra: bool | None = None
) -> list[Override]:
    """Parse Hydra-style command-line overrides.

    Args:
        overrides: e.g. ``["actor_rollout_ref.actor.strategy=megatron", "+new.key=1"]``.
        use_hydra: ``True`` to use Hydra's ``OverridesParser`` (the grammar of
            ``@hydra.main``), ``False`` for the fallback parser, ``None`` for Hydra when
            installed.

    Returns:
        One :class:`Override` per input, in order.

    Raises:
        EnvCommandError: a syntax error, or a sweep (``a=1,2``) -- one value is needed.
    """
    if use_hydra is None:
        use_hydra = hydra_available()
    if not overrides:
        return []
    if not use_hydra:
        return [_parse_fallback(o) for o in overrides]
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import OverrideParseException

    parser = OverridesParser.create()
    result = []
    for text in overrides:
        _check_override_shape(text)
        try:
            (parsed,) = parser.parse_overrides([text])
        except OverrideParseException as exc:
            first = str(exc).splitlines()[0] if str(exc) else "syntax error"
            raise EnvCommandError(
                _no_value_hint(text) or f"bad override {text!r}: {first}"
            ) from exc
        if parsed.is_sweep_override():
            raise EnvCommandError(
                f"bad override {text!r}: sweeps are not supported, give a single value"
            )
        if parsed.is_delete():
            kind = "delete"
        elif parsed.is_force_add():
            kind = "force_add"
        elif parsed.is_add():
            kind = "add"
        else:
            kind = "change"
        result.append(Override(kind, parsed.key_or_group, parsed.value(), text, parsed.package))
    return result


def apply_overrides(cfg: Any, overrides: list[Override]) -> None:
    """Apply parsed overrides to an OmegaConf ``DictConfig`` in place, as Hydra does.

    Mirrors ``hydra._internal.config_loader_impl.ConfigLoaderImpl._apply_overrides_to_config``
    (Hydra 1.3) on a struct-mode config: ``key=value`` must name an existing key,
    ``+key=value`` a new one (or a dict/list value to merge), ``++`` either, and ``~key``
    deletes an existing key (``~key=value`` only if it has that value).

    Args:
        cfg: a ``DictConfig``; it is put in struct mode, as ``@hydra.main`` does.
        overrides: from :func:`parse_overrides`.

    Raises:
        EnvCommandError: an override that cannot be applied, naming it.
    """
    from omegaconf import OmegaConf, open_dict
    from omegaconf.errors import (
        ConfigAttributeError,
        ConfigKeyError,
        OmegaConfBaseException,
    )

    OmegaConf.set_struct(cfg, True)
    for o in overrides:
        if o.package is not None:
            raise EnvCommandError(
                f"bad override {o.input_line!r}: a config-group override needs "
                "--config-dir DIR --config-name NAME"
            )
        try:
            if o.kind == "delete":
                current = OmegaConf.select(cfg, o.key, throw_on_missing=False)
                if current is None:
                    raise EnvCommandError(
                        f"bad override {o.input_line!r}: cannot delete {o.key!r}, it does not exist"
                    )
                if o.value is not None and o.value != current:
                    raise EnvCommandError(
                        f"bad override {o.input_line!r}: {o.key!r} is {current!r}, not {o.value!r}"
                    )
                parent_key, _, leaf = o.key.rpartition(".")
                parent = OmegaConf.select(cfg, parent_key) if parent_key else cfg
                with open_dict(cfg):
                    del parent[leaf]
            elif o.kind == "add":
                current = OmegaConf.select(cfg, o.key, throw_on_missing=False)
                if current is not None and not isinstance(o.value, (dict, list)):
                    raise EnvCommandError(
                        f"bad override {o.input_line!r}: {o.key!r} already exists; drop the '+' "
                        f"to change it, or use '+{o.input_line}' to add or change"
                    )
                OmegaConf.update(cfg, o.key, o.value, merge=True, force_add=True)
            elif o.kind == "force_add":
                OmegaConf.update(cfg, o.key, o.value, merge=True, force_add=True)
            else:
                try:
                    OmegaConf.update(cfg, o.key, o.value, merge=True)
                except (ConfigAttributeError, ConfigKeyError) as exc:
                    raise EnvCommandError(
                        f"bad override {o.input_line!r}: {o.key!r} is not in the config; "
                        f"to add it use '+{o.input_line}'"
                    ) from exc
        except OmegaConfBaseException as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise EnvCommandError(f"bad override {o.input_line!r}: {first}") from exc


def _yaml_error_message(path: str, exc: Exception) -> str:
    """``PATH:LINE:COL: YAML syntax error: PROBLEM (CONTEXT at line N)``, 1-based."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or str(exc)
    where = getattr(mark, "name", None) or path
    if where.startswith("<"):
        where = path
    if mark is None:
        return f"{where}: YAML syntax error: {problem}"
    message = f"{where}:{mark.line + 1}:{mark.column + 1}: YAML syntax error: {problem}"
    context, context_mark = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and context_mark is not None and context_mark is not mark:
        message += f" ({context} at line {context_mark.line + 1})"
    return message


_BYTE_ORDER_MARKS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)
# Anchors and aliases may expand a small file into a huge config (a "billion laughs"
# file); OmegaConf copies every expansion. Refuse beyond this many values when the
# aliases, not the file itself, account for almost all of them.
_MAX_EXPANDED_VALUES = 1_000_000


def _decode_utf8(path: str, data: bytes) -> str:
    """The file's text; Hydra and OmegaConf read YAML as UTF-8, so must we."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        for bom, encoding in _BYTE_ORDER_MARKS:
            if data.startswith(bom):
                raise EnvCommandError(
                    f"{path}: not UTF-8 text: it starts with a {encoding} byte-order mark; "
                    "save it as UTF-8"
                ) from exc
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise EnvCommandError(
            f"{path}:{line}:{column}: not UTF-8 text (byte 0x{data[exc.start]:02x}); "
            "save it as UTF-8"
        ) from exc


_OMEGACONF_TRAILER_RE = re.compile(r"^\s*(full_key|reference_type|object_type)[:=]")


def _without_omegaconf_trailer(text: str) -> str:
    """An OmegaConf message without its ``full_key: ...``/``object_type=...`` lines."""
    return "\n".join(line for line in text.splitlines() if not _OMEGACONF_TRAILER_RE.match(line))


def _short_repr(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _scalar_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return type(value).__name__


def _node_children(node: Any, where: str) -> Iterator[tuple[str, Any]]:
    import yaml

    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            label = key.value if isinstance(key, yaml.ScalarNode) else "?"
            label = f"{where}.{label}" if where else str(label)
            yield f"{label} (key)", key
            yield label, value
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            yield f"{where}[{index}]", item


def _alias_problem(root: Any) -> str | None:
    """A recursive anchor, or aliases expanding past :data:`_MAX_EXPANDED_VALUES`.

    Walks the node graph of ``yaml.compose`` (where an alias is the anchored node
    itself) without recursion: a training config may be deep, and this check must not
    be what overflows the stack.
    """
    import yaml

    on_path = {id(root)}
    distinct = {id(root)}  # every node of the file, each counted once
    expanded: dict[int, int] = {}  # finished collection node -> values it expands to
    stack: list[list[Any]] = [[root, _node_children(root, ""), 1]]
    while stack:
        frame = stack[-1]
        child = next(frame[1], None)
        if child is None:
            stack.pop()
            on_path.discard(id(frame[0]))
            expanded[id(frame[0])] = frame[2]
            if stack:
                stack[-1][2] += frame[2]
            total = frame[2]
            if total > _MAX_EXPANDED_VALUES and total > 100 * len(distinct):
                return (
                    f"its anchors and aliases expand to more than {_MAX_EXPANDED_VALUES} "
                    "values (an alias bomb?)"
                )
            continue
        label, node = child
        if id(node) in on_path:
            return (
                f"the alias at '{label}' refers to a node that contains it (a recursive "
                "anchor); a config cannot contain itself"
            )
        if id(node) in expanded:
            frame[2] += expanded[id(node)]
        elif isinstance(node, yaml.CollectionNode):
            on_path.add(id(node))
            distinct.add(id(node))
            stack.append([node, _node_children(node, label), 1])
        else:
            distinct.add(id(node))
            frame[2] += 1
    return None


def _load_yaml_file(path: str, shown: str | None = None) -> Any:
    """Read one YAML config file the way OmegaConf (and so Hydra) would, minus the tracebacks.

    The file must be UTF-8 and hold one document whose top level is a mapping; an
    empty document (an empty file, only comments, or ``null``) is an empty config, as
    in Hydra.

    Args:
        path: the file to read.
        shown: how messages name it (default ``path``).

    Returns:
        A ``DictConfig`` (not in struct mode, interpolations unresolved).

    Raises:
        EnvCommandError: one line naming the file (and the line, or the key, where known).
    """
    import yaml
    from omegaconf import DictConfig, OmegaConf
    from omegaconf.errors import GrammarParseError, OmegaConfBaseException

    text = _checked_yaml_text(path, shown)
    if text is None:
        return OmegaConf.create({})
    path = shown or path
    too_deep = f"{path}: nested too deeply to load (OmegaConf recurses once per level)"
    try:
        cfg = OmegaConf.load(io.StringIO(text))
    except yaml.YAMLError as exc:
        raise EnvCommandError(_yaml_error_message(path, exc)) from exc
    except RecursionError as exc:
        raise EnvCommandError(too_deep) from exc
    except GrammarParseError as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        key = getattr(exc, "full_key", None)
        where = f" at '{key}'" if key else ""
        raise EnvCommandError(f"{path}: bad interpolation{where}: {first}") from exc
    except OmegaConfBaseException as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        key = getattr(exc, "full_key", None)
        raise EnvCommandError(f"{path}: {first}" + (f" (at '{key}')" if key else "")) from exc
    except OSError as exc:  # OmegaConf: "Invalid loaded object type: set" and the like
        kind = str(exc).rpartition(": ")[2] or "non-mapping"
        raise EnvCommandError(f"{path}: the top level must be a mapping, got a {kind}") from exc
    if not isinstance(cfg, DictConfig):
        raise EnvCommandError(f"{path}: the top level must be a mapping, got a list")
    return cfg


def _checked_yaml_text(path: str, shown: str | None = None) -> str | None:
    """The checks of :func:`_load_yaml_file` that come before OmegaConf loads the file:
    readable, UTF-8, YAML syntax, a mapping at the top, no recursive anchor or alias bomb
    (which OmegaConf would follow). Returns the text, or ``None`` for an empty document.

    Raises:
        EnvCommandError: as :func:`_load_yaml_file`.
    """
    import yaml

    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise EnvCommandError(f"cannot read {shown or path}: {exc.strerror or exc}") from exc
    path = shown or path
    text = _decode_utf8(path, data)
    too_deep = f"{path}: nested too deeply to load (OmegaConf recurses once per level)"
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise EnvCommandError(_yaml_error_message(path, exc)) from exc
    except RecursionError as exc:
        raise EnvCommandError(too_deep) from exc
    if root is None or (isinstance(root, yaml.ScalarNode) and root.tag == "tag:yaml.org,2002:null"):
        return None
    if isinstance(root, yaml.SequenceNode):
        raise EnvCommandError(f"{path}: the top level must be a mapping, got a list")
    if isinstance(root, yaml.ScalarNode):
        try:
            value: Any = yaml.safe_load(text)
        except yaml.YAMLError:  # a tag safe_load cannot build: OmegaConf says which below
            value = root.value
        else:
            raise EnvCommandError(
                f"{path}: the top level must be a mapping, got a {_scalar_kind(value)}: "
                f"{_short_repr(value)}"
            )
    problem = _alias_problem(root)
    if problem is not None:
        raise EnvCommandError(f"{path}: {problem}")
    return text


def _read_config_file(path: str) -> Any:
    """The file's config, checked (exists, not a directory, UTF-8 YAML mapping)."""
    if not path:
        raise EnvCommandError("the config file path is empty")
    if not os.path.exists(path):
        raise EnvCommandError(f"config file not found: {path}")
    if os.path.isdir(path):
        raise EnvCommandError(
            f"{path} is a directory; pass a YAML file, or --config-dir DIR --config-name NAME"
        )
    return _load_yaml_file(path)


def load_config(path: str, overrides: list[str] | tuple[str, ...] = ()) -> Any:
    """Load one YAML config with OmegaConf and apply overrides (no defaults list composed).

    Args:
        path: a UTF-8 YAML file whose top level is a mapping; an empty file (or one with
            only comments, or ``null``) is an empty config, as in Hydra.
        overrides: Hydra-style overrides (see :func:`parse_overrides`).

    Returns:
        An OmegaConf ``DictConfig`` in struct mode, interpolations unresolved (they are
        resolved when read).

    Raises:
        EnvCommandError: missing/unreadable file, not UTF-8, YAML syntax error (with line
            and column), a top level that is not a mapping, a recursive anchor, a
            malformed interpolation, a bad override.
    """
    parsed = parse_overrides(overrides)  # syntax errors first, before touching the file
    cfg = _read_config_file(path)
    apply_overrides(cfg, parsed)
    return cfg


def load_or_compose(path: str, overrides: list[str] | tuple[str, ...] = ()) -> Any:
    """Load ``path``, or compose it with Hydra when its top is a defaults list.

    A file such as verl's ``ppo_megatron_trainer.yaml`` (``defaults: [ppo_trainer,
    override model_engine: megatron, _self_]``) means nothing loaded flat: it is composed
    as ``@hydra.main(config_path=<its directory>, config_name=<its stem>)`` would, so
    overrides (``model_engine=megatron``, ``+x=1``, ``group@pkg=option``) work as there.

    Args:
        path: a UTF-8 YAML file whose top level is a mapping.
        overrides: Hydra-style overrides.

    Returns:
        A ``DictConfig`` in struct mode.

    Raises:
        EnvCommandError: as :func:`load_config` and :func:`compose_config`; a file with a
            defaults list needs Hydra (the message says how to install it) and a
            ``.yaml`` name.
    """
    from omegaconf import ListConfig

    parsed = parse_overrides(overrides)
    cfg = _read_config_file(path)
    if not isinstance(cfg.get("defaults"), ListConfig):
        apply_overrides(cfg, parsed)
        return cfg
    directory, name = os.path.split(path)
    if not name.endswith(".yaml"):
        raise EnvCommandError(
            f"{path} has a defaults list, and Hydra composes only .yaml files: rename it, "
            "or use --config-dir DIR --config-name NAME"
        )
    return compose_config(directory or ".", name, overrides)


@contextlib.contextmanager
def _checked_config_files(config_dir: str, abs_dir: str) -> Iterator[None]:
    """While composing, read every config file Hydra loads through :func:`_load_yaml_file` first.

    Hydra gives a non-UTF-8 file a bare ``UnicodeDecodeError``, a malformed defaults list
    a ``ValueError`` without the file, and accepts a top level that is a string (OmegaConf
    turns ``just a string`` into ``{'just a string': None}``). Checking each file as
    Hydra asks for it (and not the whole directory: files the config does not use may
    be anything) names the file in one line, as ``config_dir/...`` when it is under
    ``abs_dir``. Hydra's internals are used only if they are where Hydra 1.3 has them;
    otherwise composing goes on unchecked.
    """
    try:
        from hydra._internal.config_repository import ConfigRepository
        from hydra.core.object_type import ObjectType
        from hydra.plugins.config_source import ConfigSource

        original = ConfigRepository.load_config
        find_source = ConfigRepository._find_object_source
        normalize = ConfigSource._normalize_file_name
    except (ImportError, AttributeError):  # pragma: no cover - another Hydra layout
        yield
        return

    def load_config(self: Any, config_path: str) -> Any:
        source = find_source(self, config_path=config_path, object_type=ObjectType.CONFIG)
        shown = None
        # By scheme, not class: Hydra's plugin discovery imports the source classes
        # a second time, so isinstance(source, FileConfigSource) is False.
        if isinstance(source, ConfigSource) and source.scheme() == "file":
            path = os.path.join(source.path, normalize(config_path))
            shown = path
            if os.path.abspath(source.path) == abs_dir:
                shown = os.path.join(config_dir, normalize(config_path))
            # the checks before OmegaConf's load; Hydra's own load is the one that counts,
            # so the file is loaded once more only when Hydra fails (for the one-line error
            # _load_yaml_file gives): a compose of verl's config spent 40% on loading twice
            _checked_yaml_text(path, shown)
        try:
            return original(self, config_path)
        except Exception as exc:
            if shown is not None:
                _load_yaml_file(path, shown)  # raises the error it finds in this file
            if not isinstance(exc, ValueError):
                raise
            # a malformed defaults list
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise EnvCommandError(f"{shown or config_path}: {first}") from exc

    ConfigRepository.load_config = load_config  # type: ignore[method-assign]
    try:
        yield
    finally:
        ConfigRepository.load_config = original  # type: ignore[method-assign]


def _check_group_overrides(abs_dir: str, parsed: list[Override]) -> None:
    """A config-group override needs an option name; Hydra raises a bare ValueError."""
    for o in parsed:
        group_dir = os.path.join(abs_dir, o.key)
        if o.kind == "delete" or not (o.package is not None or os.path.isdir(group_dir)):
            continue
        values = o.value if isinstance(o.value, list) else [o.value]
        if all(isinstance(v, str) for v in values):
            continue
        options = ""
        if os.path.isdir(group_dir):
            names = sorted(f[:-5] for f in os.listdir(group_dir) if f.endswith(".yaml"))
            options = f" (available: {', '.join(names) or 'none'})"
        raise EnvCommandError(
            f"bad override {o.input_line!r}: {o.key!r} is a config group, so its value must "
            f"be an option name{options}, got {_short_repr(o.value)}"
        )


def compose_config(
    config_dir: str, config_name: str, overrides: list[str] | tuple[str, ...] = ()
) -> Any:
    """Compose a config with Hydra, as ``@hydra.main(config_path=DIR, config_name=NAME)``.

    Uses ``hydra.initialize_config_dir`` + ``hydra.compose``: defaults lists, config
    groups, ``group@package=option`` overrides and ``+``/``++``/``~`` all behave as in
    a Hydra application. The ``hydra`` node itself is not included.

    Args:
        config_dir: the primary config directory.
        config_name: the primary config's name (``.yaml`` optional).
        overrides: Hydra overrides.

    Returns:
        The composed ``DictConfig`` (struct mode, interpolations unresolved).

    Raises:
        EnvCommandError: Hydra missing (with the install command), directory missing,
            unknown config name or group option, bad override.
    """
    if not hydra_available():
        raise EnvCommandError(
            f"--config-dir/--config-name compose the config with Hydra, which is not "
            f"installed: {HYDRA_INSTALL_HINT}"
        )
    from hydra import compose, initialize_config_dir
    from hydra.errors import (
        HydraException,
        MissingConfigException,
        OverrideParseException,
    )
    from omegaconf.errors import OmegaConfBaseException

    if not config_dir:
        raise EnvCommandError("--config-dir is empty")
    if not config_name:
        raise EnvCommandError("--config-name is empty")
    abs_dir = os.path.abspath(config_dir)
    if not os.path.exists(abs_dir):
        raise EnvCommandError(f"config directory not found: {config_dir}")
    if not os.path.isdir(abs_dir):
        raise EnvCommandError(f"--config-dir {config_dir} is not a directory")
    # one-line syntax errors, sweeps refused, group overrides checked
    _check_group_overrides(abs_dir, parse_overrides(overrides, use_hydra=True))
    name = config_name.removesuffix(".yaml")
    try:
        with (
            _checked_config_files(config_dir, abs_dir),
            initialize_config_dir(
                config_dir=abs_dir, version_base=None, job_name="ppo-migrate-env"
            ),
        ):
            return compose(config_name=name, overrides=list(overrides))
    except EnvCommandError:
        raise
    except MissingConfigException as exc:
        if not os.path.exists(os.path.join(abs_dir, f"{name}.yaml")):
            available = sorted(
                f[:-5] for f in os.listdir(abs_dir) if f.endswith(".yaml") and not f.startswith(".")
            )
            raise EnvCommandError(
                f"unknown config name {name!r} in {config_dir} "
                f"(available: {', '.join(available) or 'none'})"
            ) from exc
        text = str(exc).split("Config search path:")[0]
        head, _, options = text.partition("Available options in")
        message = head.strip()
        if options:
            group, _, names = options.partition(":")
            message += f" (available in {group.strip()}: {', '.join(names.split())})"
        raise EnvCommandError(message) from exc
    except OverrideParseException as exc:
        raise EnvCommandError(f"bad override: {str(exc).splitlines()[0]}") from exc
    except HydraException as exc:
        message = _without_omegaconf_trailer(str(exc))
        cause = exc.__cause__
        if cause is not None and str(cause).strip():
            message += f": {str(cause).splitlines()[0]}"
        raise EnvCommandError(message) from exc
    except OmegaConfBaseException as exc:
        raise EnvCommandError(str(exc).splitlines()[0]) from exc
    except RecursionError as exc:
        raise EnvCommandError(
            f"cannot compose {name!r} from {config_dir}: its defaults lists form a cycle "
            "(a config that includes itself, directly or through other configs)"
        ) from exc
    except (ValueError, TypeError) as exc:  # Hydra's other complaints about a config tree
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise EnvCommandError(f"cannot compose {name!r} from {config_dir}: {first}") from exc
    except Exception as exc:  # yaml errors inside the tree and the like
        import yaml

        if isinstance(exc, yaml.YAMLError):
            raise EnvCommandError(_yaml_error_message(config_dir, exc)) from exc
        raise


def _on_one_line(text: str) -> str:
    """``text``, or its JSON string form when it holds a newline or another control character."""
    return text if text.isprintable() else json.dumps(text)


RAY_KWARGS_RUNTIME_ENV = "ray_kwargs.ray_init.runtime_env"


@dataclass(frozen=True)
class EnvResult:
    """What ``ppo-migrate env`` shows: the function's report and verl ``main_ppo``'s merge.

    Attributes:
        report: the :class:`ppo_runtime.RuntimeEnvReport` of
            ``get_ppo_ray_runtime_env(config)``.
        runtime_env: what ``ray.init`` receives in verl's ``main_ppo``: the function's
            result (plus ``TRANSFER_QUEUE_ENABLE=1`` with ``transfer_queue.enable``),
            with ``ray_kwargs.ray_init.runtime_env`` merged over it by ``OmegaConf.merge``.
        from_ray_kwargs: ``{NAME: value}`` of the ``env_vars`` that came from
            ``ray_kwargs.ray_init.runtime_env.env_vars``.
        other_ray_kwargs: the other non-null keys of ``ray_kwargs.ray_init.runtime_env``
            (e.g. ``py_executable``), as merged.
        main_ppo_added: ``{NAME: value}`` ``main_ppo`` adds itself (``TRANSFER_QUEUE_ENABLE``).
    """

    report: Any
    runtime_env: dict[str, Any]
    from_ray_kwargs: dict[str, Any]
    other_ray_kwargs: dict[str, Any]
    main_ppo_added: dict[str, str]
    #: ``{NAME: (value, why)}``: what ``main_ppo``'s ``run_ppo`` writes into the driver's
    #: ``os.environ`` before it calls the function (see :func:`main_ppo_environ`).
    main_ppo_environ: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: the command's own warnings (a config with no verl training section)
    warnings: tuple[str, ...] = ()


def _no_section_warning(cfg: Any, where: str) -> tuple[str, ...]:
    """A warning when ``cfg`` (the composed config) has none of verl's training sections
    (:data:`ppo_migrate.constants.VERL_SECTIONS`): a sub-config (``actor/
    megatron_actor.yaml``), an empty file or another tool's YAML gets verl's defaults for
    every component, which is rarely what was meant (a fresh user's trial)."""
    keys = set(cfg.keys()) if hasattr(cfg, "keys") else set()
    if keys & VERL_SECTIONS:
        return ()
    return (f"{where} has no verl training section ({', '.join(sorted(VERL_SECTIONS))}): "
            "every component takes verl's defaults",)


def _select(cfg: Any, key: str) -> Any:
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    try:
        return OmegaConf.select(cfg, key, default=None)
    except OmegaConfBaseException as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise EnvCommandError(f"cannot resolve {key!r}: {first}") from exc


def main_ppo_environ(cfg: Any) -> dict[str, tuple[str, str]]:
    """What verl 0.9.1 ``main_ppo.run_ppo`` writes into ``os.environ`` before it calls
    ``get_ppo_ray_runtime_env(config)`` (``verl/trainer/main_ppo.py`` ~44-53), so that the
    function forwards it to every Ray worker:

    * ``actor_rollout_ref.rollout.full_determinism``, or the reward model's
      (``reward.reward_model.enable`` and ``reward.reward_model.rollout.full_determinism``)
      -> ``VERL_FULL_DETERMINISM=1``, ``VLLM_BATCH_INVARIANT=1``,
      ``PYTHONHASHSEED=<actor_rollout_ref.rollout.seed>``;
    * ``trainer.logger`` (a string or a list) containing ``rl_insight`` ->
      ``VERL_RL_INSIGHT_ENABLE=1``.

    Args:
        cfg: the composed ``DictConfig``. Missing keys count as false / empty.

    Returns:
        ``{NAME: (value, why)}`` in the order ``main_ppo`` sets them; empty when neither
        rule applies.

    Raises:
        EnvCommandError: a flag that is not a boolean or null, a missing
            ``actor_rollout_ref.rollout.seed`` under full determinism, or an
            unresolvable interpolation (each naming the key).
    """
    from ppo_runtime.engines import as_flag

    def flag(key: str) -> bool:
        try:
            return as_flag(_select(cfg, key), default=False, key=key)
        except ValueError as exc:
            raise EnvCommandError(str(exc)) from exc

    out: dict[str, tuple[str, str]] = {}
    why = None
    if flag("actor_rollout_ref.rollout.full_determinism"):
        why = "actor_rollout_ref.rollout.full_determinism is true"
    elif flag("reward.reward_model.enable") and flag("reward.reward_model.rollout.full_determinism"):
        why = "reward.reward_model.enable and reward.reward_model.rollout.full_determinism are true"
    if why is not None:
        seed = _select(cfg, "actor_rollout_ref.rollout.seed")
        if seed is None:
            raise EnvCommandError(
                f"actor_rollout_ref.rollout.seed is missing or null, but {why}: verl main_ppo "
                "sets PYTHONHASHSEED from it"
            )
        out["VERL_FULL_DETERMINISM"] = ("1", why)
        out["VLLM_BATCH_INVARIANT"] = ("1", why)
        out["PYTHONHASHSEED"] = (str(seed), f"{why}: actor_rollout_ref.rollout.seed is {seed}")
    loggers = _select(cfg, "trainer.logger")
    if isinstance(loggers, str):
        loggers = [loggers]
    if loggers is not None and not isinstance(loggers, str):
        try:
            names = list(loggers)
        except TypeError:
            names = []
        if "rl_insight" in names:
            out["VERL_RL_INSIGHT_ENABLE"] = ("1", "trainer.logger contains rl_insight")
    return out


def merge_ray_kwargs(cfg: Any, runtime_env: dict[str, Any]) -> EnvResult:
    """Apply verl ``main_ppo``'s merge (verl 0.9.1, ``run_ppo``) to the function's result.

    ``main_ppo`` sets ``env_vars["TRANSFER_QUEUE_ENABLE"] = "1"`` when
    ``transfer_queue.enable`` is true, then passes
    ``OmegaConf.merge(default_runtime_env, config.ray_kwargs.ray_init.runtime_env)`` to
    ``ray.init``: values of ``ray_kwargs`` win.

    Args:
        cfg: the composed ``DictConfig``.
        runtime_env: the dict ``get_ppo_ray_runtime_env(cfg)`` returned (not modified).

    Returns:
        An :class:`EnvResult` whose ``report`` is ``None`` (the caller sets it).

    Raises:
        EnvCommandError: ``ray_kwargs.ray_init.runtime_env`` is not a mapping, or an
            interpolation in it cannot be resolved (naming the key).
    """
    from omegaconf import DictConfig, OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    defaults = json.loads(json.dumps(runtime_env))
    added: dict[str, str] = {}
    try:
        tq = OmegaConf.select(cfg, "transfer_queue.enable", default=None)
        kwargs = OmegaConf.select(cfg, RAY_KWARGS_RUNTIME_ENV, default=None)
        if tq is True or (isinstance(tq, str) and tq.lower() == "true"):
            defaults.setdefault("env_vars", {})["TRANSFER_QUEUE_ENABLE"] = "1"
            added["TRANSFER_QUEUE_ENABLE"] = "1"
        if kwargs is None:
            return EnvResult(None, defaults, {}, {}, added)
        if not isinstance(kwargs, DictConfig):
            raise EnvCommandError(
                f"{RAY_KWARGS_RUNTIME_ENV} must be a mapping, got {type(kwargs).__name__}"
            )
        given = OmegaConf.to_container(kwargs, resolve=True)
        merged = OmegaConf.to_container(OmegaConf.merge(defaults, kwargs), resolve=True)
    except OmegaConfBaseException as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise EnvCommandError(f"{RAY_KWARGS_RUNTIME_ENV}: {first}") from exc
    env_vars = given.get("env_vars") or {}
    if not isinstance(env_vars, dict):
        raise EnvCommandError(
            f"{RAY_KWARGS_RUNTIME_ENV}.env_vars must be a mapping, got {type(env_vars).__name__}"
        )
    for name, value in env_vars.items():
        if not isinstance(value, str):
            shown = "null" if value is None else f"{value!r} ({type(value).__name__})"
            raise EnvCommandError(
                f"{RAY_KWARGS_RUNTIME_ENV}.env_vars.{name}: expected a string, got {shown}; "
                f"ray.init accepts only strings (quote it: {name}: '{value}')"
            )
    other = {k: merged[k] for k, v in given.items() if k != "env_vars" and v is not None}
    return EnvResult(None, merged, dict(env_vars), other, added)


def _on_one_line(text: str) -> str:
    """``text``, or its JSON string form when it holds a newline or another control character."""
    return text if text.isprintable() else json.dumps(text)


def _shown(decision: Any, explain: bool) -> bool:
    """Without ``--explain``: what is set, the Megatron variable, and what the driver or
    the job decided; the variables whose rule does not apply only with it."""
    if explain or decision.included or decision.name == "CUDA_DEVICE_MAX_CONNECTIONS":
        return True
    return decision.reason.value != "not-applicable"


def render_text(result: EnvResult, *, explain: bool = False) -> str:
    """One line per variable: ``NAME=VALUE`` (or ``NAME (left out)``), reason, detail.

    Args:
        result: an :class:`EnvResult`.
        explain: also the variables whose rule does not apply, each component as verl
            decides it (built or not, and why) and the capability.

    Returns:
        The text, ending with a ``working_dir`` line (and, with ``explain``, the
        components and the capability) and a newline.
    """
    report = result.report
    final_vars = result.runtime_env.get("env_vars", {})
    rows = []
    for d in report.variables:
        if d.name in result.from_ray_kwargs:
            continue
        if not _shown(d, explain):
            continue
        left = f"{d.name}={_on_one_line(d.value)}" if d.included else f"{d.name} (left out)"
        right = f"{d.reason.value}: {d.detail}"
        set_by_main_ppo = result.main_ppo_environ.get(d.name)
        if set_by_main_ppo is not None and d.value == set_by_main_ppo[0]:
            right = (
                f"main-ppo: verl main_ppo's run_ppo sets it in the driver before the call "
                f"({set_by_main_ppo[1]}); the function forwards it"
            )
        rows.append((left, _on_one_line(right)))
    function_vars = report.runtime_env.get("env_vars", {})
    for name, value in result.main_ppo_added.items():
        rows.append((f"{name}={value}", "main-ppo: verl main_ppo sets it when transfer_queue.enable is true"))
    for name in result.from_ray_kwargs:
        value = final_vars.get(name)
        over = (
            f" (over {function_vars[name]} from get_ppo_ray_runtime_env)"
            if name in function_vars
            else ""
        )
        rows.append(
            (
                f"{name}={_on_one_line(str(value))}",
                f"ray-kwargs: {RAY_KWARGS_RUNTIME_ENV}.env_vars sets it; verl main_ppo merges "
                f"it over the function's result{over}",
            )
        )
    for key, value in result.other_ray_kwargs.items():
        rows.append(
            (
                f"runtime_env.{key}={_on_one_line(json.dumps(value))}",
                f"ray-kwargs: {RAY_KWARGS_RUNTIME_ENV}.{key}",
            )
        )
    if "working_dir" in result.runtime_env:
        rows.append(("working_dir=None", report.working_dir))
    else:
        rows.append(("working_dir (left out)", report.working_dir))
    if explain:
        for c in report.components:
            rows.append((f"component {c.path}", _on_one_line(c.describe())))
        cap = report.capability
        rows.append(
            (
                "capability",
                "not needed (no rule asked for it)"
                if cap is None
                else f"{cap.describe()} ({cap.source}: {cap.detail})",
            )
        )
    width = max(len(left) for left, _ in rows)
    return "".join(f"{left:<{width}}  {right}\n" for left, right in rows)


def render_json(result: EnvResult, *, explain: bool = False) -> str:
    """The runtime_env as JSON; with ``explain`` the reasons too.

    Args:
        result: an :class:`EnvResult`.
        explain: ``False``: exactly what ``ray.init`` receives in verl's ``main_ppo``
            (``get_ppo_ray_runtime_env(config)`` with ``ray_kwargs.ray_init.runtime_env``
            merged over it; the function's own dict when that is empty). ``True``:
            ``{"runtime_env": ..., "function_runtime_env": ..., "from_ray_kwargs": {...},
            "added_by_main_ppo": {...}, "set_before_call_by_main_ppo": {NAME: {"value",
            "why"}},
            "variables": [{"name", "value", "included", "reason", "detail", "default"}, ...],
            "megatron_components": [...], "mindspeed_components": [...], "components":
            [{"path", "role", "present", "strategy", "built", "why", "enabled",
            "use_megatron_fsdp", "runs_megatron"}, ...], "capability": null | {"value":
            "9.0" | null, "source", "detail"}, "rocm": bool, "working_dir": str,
            "warnings": [str, ...]}``.

    Returns:
        Indented JSON text ending with a newline.
    """
    report = result.report
    if not explain:
        return json.dumps(result.runtime_env, indent=2) + "\n"
    cap = report.capability
    doc = {
        "runtime_env": result.runtime_env,
        "function_runtime_env": report.runtime_env,
        "from_ray_kwargs": result.from_ray_kwargs,
        "added_by_main_ppo": result.main_ppo_added,
        "set_before_call_by_main_ppo": {
            name: {"value": value, "why": why} for name, (value, why) in result.main_ppo_environ.items()
        },
        "variables": [d.to_dict() for d in report.variables],
        "megatron_components": list(report.megatron_components),
        "mindspeed_components": list(report.mindspeed_components),
        "components": [
            {
                "path": c.path,
                "role": c.role,
                "present": c.engine.present,
                "strategy": c.engine.strategy
                if isinstance(c.engine.strategy, (str, type(None)))
                else str(c.engine.strategy),
                "built": c.built,
                "why": c.why,
                "enabled": c.engine.enabled,
                "use_megatron_fsdp": c.engine.use_megatron_fsdp,
                "runs_megatron": c.runs_megatron,
            }
            for c in report.components
        ],
        "capability": None
        if cap is None
        else {
            "value": None if cap.capability is None else cap.describe(),
            "source": cap.source,
            "detail": cap.detail,
        },
        "rocm": report.rocm,
        "working_dir": report.working_dir,
        "warnings": list(report.warnings),
    }
    return json.dumps(doc, indent=2) + "\n"


def run_env(
    config_path: str | None = None,
    overrides: list[str] | tuple[str, ...] = (),
    *,
    config_dir: str | None = None,
    config_name: str | None = None,
    capability: str | None = None,
    no_gpu: bool = False,
    rocm: bool = False,
    forward_driver_env: bool = True,
) -> EnvResult:
    """Load or compose the config, build its report and apply ``main_ppo``'s merge.

    Warnings that torch, NumPy or Hydra emit meanwhile (e.g. torch's "Failed to
    initialize NumPy" when the device is probed) are suppressed: the output is only
    the command's.

    Args:
        config_path: a YAML file (first form; composed with Hydra when its top is a
            defaults list), or ``None`` with ``config_name``.
        overrides: Hydra-style overrides.
        config_dir, config_name: the Hydra form (both needed).
        capability: ``"MAJOR.MINOR"`` to decide the device instead of probing.
        no_gpu: treat the device as unknown without probing (a CPU-only head node).
        rocm: treat torch as a ROCm build. Without it, ``--capability``/``--no-gpu``
            mean "not ROCm", and otherwise the installed torch is asked.
        forward_driver_env: as in :func:`ppo_runtime.get_ppo_ray_runtime_env`.

    Returns:
        An :class:`EnvResult`.

    Raises:
        EnvCommandError: any user error (one line).
    """
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _run_env(
            config_path,
            overrides,
            config_dir=config_dir,
            config_name=config_name,
            capability=capability,
            no_gpu=no_gpu,
            rocm=rocm,
            forward_driver_env=forward_driver_env,
        )


def _run_env(
    config_path: str | None,
    overrides: list[str] | tuple[str, ...],
    *,
    config_dir: str | None,
    config_name: str | None,
    capability: str | None,
    no_gpu: bool,
    rocm: bool,
    forward_driver_env: bool,
) -> EnvResult:
    from ppo_runtime import (
        CAPABILITY_UNKNOWN,
        parse_capability,
        ppo_ray_runtime_env_report,
    )

    if capability is not None and no_gpu:
        raise EnvCommandError("--capability and --no-gpu are mutually exclusive")
    device_capability: Any = None
    if capability is not None:
        try:
            device_capability = parse_capability(capability)
        except ValueError as exc:
            hint = ""
            if capability.strip().lower() == CAPABILITY_UNKNOWN:
                hint = "; for an unknown device use --no-gpu"
            raise EnvCommandError(f"--capability: {exc}{hint}") from exc
    elif no_gpu:
        device_capability = CAPABILITY_UNKNOWN
    is_rocm: bool | None = True if rocm else (False if device_capability is not None else None)

    if config_name is not None or config_dir is not None:
        if config_name is None or config_dir is None:
            raise EnvCommandError("--config-dir and --config-name go together")
        if config_path is not None:
            raise EnvCommandError("give either CONFIG.yaml or --config-dir/--config-name, not both")
        cfg = compose_config(config_dir, config_name, overrides)
    else:
        if config_path is None:
            raise EnvCommandError(
                "missing config: give CONFIG.yaml, or --config-dir DIR --config-name NAME"
            )
        cfg = load_or_compose(config_path, overrides)
    try:
        set_before_call = main_ppo_environ(cfg)
        report = ppo_ray_runtime_env_report(
            cfg,
            device_capability=device_capability,
            forward_driver_env=forward_driver_env,
            rocm=is_rocm,
            environ={**os.environ, **{k: v for k, (v, _) in set_before_call.items()}},
        )
    except (TypeError, ValueError) as exc:
        raise EnvCommandError(str(exc)) from exc
    merged = merge_ray_kwargs(cfg, report.runtime_env)
    return EnvResult(
        report,
        merged.runtime_env,
        merged.from_ray_kwargs,
        merged.other_ray_kwargs,
        merged.main_ppo_added,
        set_before_call,
        _no_section_warning(cfg, config_path or f"{config_dir}/{config_name}"),
    )


class _OneLineUsageError(click.UsageError):
    """A click usage error shown as the command's other errors are: one line, exit 2."""

    def show(self, file: Any = None) -> None:
        hint = f" (see '{self.ctx.command_path} -h')" if self.ctx is not None else ""
        click.echo(f"ppo-migrate: error: {_one_line(self.format_message())}{hint}", err=True)


class _EnvCommand(click.Command):
    """``click.Command`` whose usage errors (bad option, bad ``--format``...) are one line."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            raise _OneLineUsageError(exc.format_message(), exc.ctx or ctx) from exc


@click.command("env", cls=_EnvCommand, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("args", nargs=-1, metavar="[CONFIG.yaml] [KEY=VALUE]...")
@click.option(
    "--config-dir",
    metavar="DIR",
    help="Hydra config directory (with --config-name): compose like @hydra.main.",
)
@click.option(
    "--config-name", metavar="NAME", help="Hydra primary config name (with --config-dir)."
)
@click.option(
    "--capability",
    metavar="MAJOR.MINOR",
    help="GPU compute capability to decide with instead of probing, e.g. 9.0 (Hopper), 10.0 (Blackwell).",
)
@click.option(
    "--no-gpu",
    is_flag=True,
    help="Do not probe: treat the capability as unknown (Megatron then gets the variable, with a warning).",
)
@click.option(
    "--rocm",
    is_flag=True,
    help="Treat torch as a ROCm build (RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO=0). Without it, "
    "--capability/--no-gpu mean not ROCm; otherwise the installed torch is asked.",
)
@click.option(
    "--output-format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default=None,
    help="text (default): one line per variable with its reason; json: the runtime_env "
    "ray.init receives.",
)
@click.option(
    "--format",
    "legacy_format",
    type=click.Choice(["text", "json"]),
    default=None,
    hidden=True,
    help="Alias of --output-format.",
)
@click.option(
    "--explain",
    is_flag=True,
    help="Also show each component as verl decides it (built or not, and why), the "
    "capability, and the variables no rule sets; with --output-format json, the reasons.",
)
@click.option(
    "--no-forward-driver-env",
    is_flag=True,
    help="Drop variables already set in this shell instead of forwarding them (upstream behaviour).",
)
def env_command(
    args: tuple[str, ...],
    config_dir: str | None,
    config_name: str | None,
    capability: str | None,
    no_gpu: bool,
    rocm: bool,
    output_format: str | None,
    legacy_format: str | None,
    explain: bool,
    no_forward_driver_env: bool,
) -> None:
    """Show the Ray runtime_env a training config yields, and why.

    \b
      ppo-migrate env trainer.yaml actor_rollout_ref.actor.strategy=megatron --capability 9.0
      ppo-migrate env --config-dir conf --config-name ppo_megatron_trainer --output-format json
    """
    if output_format is not None and legacy_format is not None and output_format != legacy_format:
        click.echo(
            "ppo-migrate: error: --format is an alias of --output-format; give one of them "
            "(see 'ppo-migrate env -h')",
            err=True,
        )
        sys.exit(EXIT_ERROR)
    output_format = output_format or legacy_format or "text"
    config_path: str | None = None
    overrides = list(args)
    if config_name is None and config_dir is None and overrides:
        config_path = overrides.pop(0)
    elif overrides and "=" not in overrides[0] and not overrides[0].startswith("~"):
        # `env trainer.yaml --config-dir d --config-name n`: a file where overrides go
        config_path = overrides.pop(0)
    try:
        result = run_env(
            config_path,
            overrides,
            config_dir=config_dir,
            config_name=config_name,
            capability=capability,
            no_gpu=no_gpu,
            rocm=rocm,
            forward_driver_env=not no_forward_driver_env,
        )
    except EnvCommandError as exc:
        click.echo(f"ppo-migrate: error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    for warning in (*result.report.warnings, *result.warnings):
        click.echo(f"ppo-migrate: warning: {warning}", err=True)
    if output_format == "json":
        click.echo(render_json(result, explain=explain), nl=False)
    else:
        click.echo(render_text(result, explain=explain), nl=False)


if __name__ == "__main__":
    env_command()
