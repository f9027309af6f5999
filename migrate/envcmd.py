"""``ppo-migrate env``: the Ray runtime_env a training config yields, and why.

Two forms::

    ppo-migrate env CONFIG.yaml [KEY=VALUE ...]
    ppo-migrate env --config-dir DIR --config-name NAME [KEY=VALUE ...]

The first loads one YAML file with OmegaConf; the second composes the config the way
a ``@hydra.main(config_path=DIR, config_name=NAME)`` entry point would, defaults lists
included (needs Hydra: ``pip install 'ppo-migrate[hydra]'``). Overrides are
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

Errors are one line on stderr and exit code 2: a missing file or directory, a YAML
syntax error (with its line and column), a bad override, an interpolation that cannot
be resolved (naming the key), an unknown config name, a malformed ``--capability``.

Everything here is a plain function except :data:`env_command`, the click command the
``ppo-migrate`` group registers; this module imports only click at import time.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass
from typing import Any, Literal

import click

__all__ = [
    "EnvCommandError",
    "Override",
    "apply_overrides",
    "compose_config",
    "env_command",
    "hydra_available",
    "load_config",
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


def _parse_fallback(text: str) -> Override:
    import yaml  # a dependency of omegaconf

    match = _FALLBACK_RE.match(text)
    if match is None:
        raise EnvCommandError(
            f"bad override {text!r}: expected [+|++|~]dotted.key=value (Hydra is not "
            f"installed, so only this simple syntax is understood; {HYDRA_INSTALL_HINT})"
        )
    prefix, key, raw = match.group("prefix"), match.group("key"), match.group("value")
    kind = {"~": "delete", "+": "add", "++": "force_add", None: "change"}[prefix]
    if raw is None and kind != "delete":
        raise EnvCommandError(f"bad override {text!r}: missing '=VALUE'")
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
        try:
            (parsed,) = parser.parse_overrides([text])
        except OverrideParseException as exc:
            first = str(exc).splitlines()[0] if str(exc) else "syntax error"
            raise EnvCommandError(f"bad override {text!r}: {first}") from exc
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


def load_config(path: str, overrides: list[str] | tuple[str, ...] = ()) -> Any:
    """Load one YAML config with OmegaConf and apply overrides.

    Args:
        path: a YAML file whose top level is a mapping.
        overrides: Hydra-style overrides (see :func:`parse_overrides`).

    Returns:
        An OmegaConf ``DictConfig`` in struct mode, interpolations unresolved (they are
        resolved when read).

    Raises:
        EnvCommandError: missing/unreadable file, YAML syntax error (with line and
            column), a top level that is not a mapping, a bad override.
    """
    import yaml
    from omegaconf import DictConfig, OmegaConf

    parsed = parse_overrides(overrides)  # syntax errors first, before touching the file
    if not os.path.exists(path):
        raise EnvCommandError(f"config file not found: {path}")
    if os.path.isdir(path):
        raise EnvCommandError(
            f"{path} is a directory; pass a YAML file, or --config-dir DIR --config-name NAME"
        )
    try:
        cfg = OmegaConf.load(path)
    except yaml.YAMLError as exc:
        raise EnvCommandError(_yaml_error_message(path, exc)) from exc
    except OSError as exc:
        raise EnvCommandError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if not isinstance(cfg, DictConfig):
        raise EnvCommandError(f"{path}: the top level must be a mapping, got a list")
    apply_overrides(cfg, parsed)
    return cfg


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

    abs_dir = os.path.abspath(config_dir)
    if not os.path.isdir(abs_dir):
        raise EnvCommandError(f"config directory not found: {config_dir}")
    parse_overrides(overrides, use_hydra=True)  # one-line syntax errors, sweeps refused
    name = config_name[:-5] if config_name.endswith(".yaml") else config_name
    try:
        with initialize_config_dir(
            config_dir=abs_dir, version_base=None, job_name="ppo-migrate-env"
        ):
            return compose(config_name=name, overrides=list(overrides))
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
        message = str(exc)
        cause = exc.__cause__
        if cause is not None and str(cause).strip():
            message += f": {str(cause).splitlines()[0]}"
        raise EnvCommandError(message) from exc
    except OmegaConfBaseException as exc:
        raise EnvCommandError(str(exc).splitlines()[0]) from exc
    except Exception as exc:  # yaml errors inside the tree and the like
        import yaml

        if isinstance(exc, yaml.YAMLError):
            raise EnvCommandError(_yaml_error_message(config_dir, exc)) from exc
        raise


def render_text(report: Any) -> str:
    """One line per variable: ``NAME=VALUE`` (or ``NAME (left out)``), reason, detail.

    Args:
        report: a :class:`ppo_runtime.RuntimeEnvReport`.

    Returns:
        The text, ending with a ``working_dir`` line and a newline.
    """
    rows = []
    for d in report.variables:
        left = f"{d.name}={d.value}" if d.included else f"{d.name} (left out)"
        rows.append((left, f"{d.reason.value}: {d.detail}"))
    if "working_dir" in report.runtime_env:
        rows.append(("working_dir=None", report.working_dir))
    else:
        rows.append(("working_dir (left out)", report.working_dir))
    width = max(len(left) for left, _ in rows)
    return "".join(f"{left:<{width}}  {right}\n" for left, right in rows)


def render_json(report: Any, *, explain: bool = False) -> str:
    """The runtime_env as JSON; with ``explain`` the reasons too.

    Args:
        report: a :class:`ppo_runtime.RuntimeEnvReport`.
        explain: ``False``: exactly the dict ``get_ppo_ray_runtime_env`` returns.
            ``True``: ``{"runtime_env": ..., "variables": [{"name", "value", "included",
            "reason", "detail", "default"}, ...], "megatron_components": [...],
            "components": [{"path", "present", "strategy", "enabled",
            "use_megatron_fsdp", "runs_megatron"}, ...], "capability": null |
            {"value": "9.0" | null, "source", "detail"}, "working_dir": str,
            "warning": str | null}``.

    Returns:
        Indented JSON text ending with a newline.
    """
    if not explain:
        return json.dumps(report.runtime_env, indent=2) + "\n"
    cap = report.capability
    doc = {
        "runtime_env": report.runtime_env,
        "variables": [d.to_dict() for d in report.variables],
        "megatron_components": list(report.megatron_components),
        "components": [
            {
                "path": c.path,
                "present": c.present,
                "strategy": c.strategy
                if isinstance(c.strategy, (str, type(None)))
                else str(c.strategy),
                "enabled": c.enabled,
                "use_megatron_fsdp": c.use_megatron_fsdp,
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
        "working_dir": report.working_dir,
        "warning": report.warning,
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
    forward_driver_env: bool = True,
) -> Any:
    """Load or compose the config and build its report; the logic behind the command.

    Args:
        config_path: a YAML file (first form), or ``None`` with ``config_name``.
        overrides: Hydra-style overrides.
        config_dir, config_name: the Hydra form (both needed).
        capability: ``"MAJOR.MINOR"`` to decide the device instead of probing.
        no_gpu: treat the device as unknown without probing (a CPU-only head node).
        forward_driver_env: as in :func:`ppo_runtime.get_ppo_ray_runtime_env`.

    Returns:
        A :class:`ppo_runtime.RuntimeEnvReport`.

    Raises:
        EnvCommandError: any user error (one line).
    """
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
            raise EnvCommandError(f"--capability: {exc}") from exc
    elif no_gpu:
        device_capability = CAPABILITY_UNKNOWN

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
        cfg = load_config(config_path, overrides)
        if "defaults" in cfg:
            click.echo(
                f"ppo-migrate: note: {config_path} has a defaults list, which a plain load "
                "ignores; compose it with --config-dir DIR --config-name NAME",
                err=True,
            )
    try:
        return ppo_ray_runtime_env_report(
            cfg, device_capability=device_capability, forward_driver_env=forward_driver_env
        )
    except (TypeError, ValueError) as exc:
        raise EnvCommandError(str(exc)) from exc


@click.command("env", context_settings={"help_option_names": ["-h", "--help"]})
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
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: one line per variable with its reason; json: the runtime_env dict.",
)
@click.option("--explain", is_flag=True, help="With --format json: include the reasons.")
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
    output_format: str,
    explain: bool,
    no_forward_driver_env: bool,
) -> None:
    """Show the Ray runtime_env a training config yields, and why.

    \b
      ppo-migrate env trainer.yaml actor_rollout_ref.actor.strategy=megatron --capability 9.0
      ppo-migrate env --config-dir conf --config-name ppo_megatron_trainer --format json
    """
    config_path: str | None = None
    overrides = list(args)
    if config_name is None and config_dir is None and overrides:
        config_path = overrides.pop(0)
    elif overrides and "=" not in overrides[0] and not overrides[0].startswith("~"):
        # `env trainer.yaml --config-dir d --config-name n`: a file where overrides go
        config_path = overrides.pop(0)
    try:
        report = run_env(
            config_path,
            overrides,
            config_dir=config_dir,
            config_name=config_name,
            capability=capability,
            no_gpu=no_gpu,
            forward_driver_env=not no_forward_driver_env,
        )
    except EnvCommandError as exc:
        click.echo(f"ppo-migrate: error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    if report.warning:
        click.echo(f"ppo-migrate: warning: {report.warning}", err=True)
    if output_format == "json":
        click.echo(render_json(report, explain=explain), nl=False)
    else:
        click.echo(render_text(report), nl=False)


if __name__ == "__main__":
    env_command()
