"""A Fixit 2 lint rule running the same LibCST pass as ``ppo-migrate check``.

Enable it in a project's ``pyproject.toml`` (needs the ``fixit`` extra)::

    [tool.fixit]
    enable = ["ppo_migrate.fixit:ConfiglessRuntimeEnvCall"]

then ``fixit lint src/`` reports every configless call and ``fixit fix src/``
passes the config in scope. The rule does not re-implement anything: on each
module it runs :func:`ppo_migrate.rules.check.analyse` once on the module's
code — the target resolver, the config-in-scope resolver and ``# noqa``
handling of ``ppo-migrate`` — and reports each diagnostic at its call node, with
the rewritten call as the autofix for a PPO001 whose fix is safe (an unsafe one,
a config only possibly bound at the call, is reported without an autofix unless
``unsafe-fixes = true``). Targets, config names and ``select``/``ignore`` come from
``[tool.ppo-migrate]`` in the nearest ``pyproject.toml`` above the file, as for
the ``ppo-migrate`` command. Besides ``# noqa: PPO001``, Fixit's own
``# lint-ignore: ConfiglessRuntimeEnvCall`` suppresses a report.

The public import path is ``ppo_migrate.fixit`` (see :mod:`ppo_migrate.fixit`).
"""

from __future__ import annotations

import functools
import logging
from pathlib import Path
from typing import ClassVar

import libcst as cst
from fixit import Invalid, LintRule, Valid
from libcst.metadata import CodeRange, FilePathProvider, PositionProvider

from ppo_migrate.rules.check import analyse
from ppo_migrate.rules.module import SourceProblem
from ppo_migrate.edits.cst_calls import configless_kind, fix_expression, rewrite_call
from ppo_migrate.cli.settings import load_settings
from ppo_migrate.settings_model import ConfigError, Settings

LOG = logging.getLogger(__name__)

_Range = tuple[int, int, int, int]


@functools.lru_cache(maxsize=256)
def settings_for(directory: str | None) -> Settings:
    """The ppo-migrate settings that apply to files in ``directory``.

    Args:
        directory: an absolute directory path, or ``None`` (no file path known:
            the defaults).

    Returns:
        The settings from the nearest ``[tool.ppo-migrate]`` table, or the
        defaults. An invalid table is logged as a warning and the defaults are
        used, so that one bad configuration does not stop a Fixit run.
    """
    if directory is None:
        return Settings()
    try:
        return load_settings([directory])
    except ConfigError as exc:
        LOG.warning("ppo-migrate: %s; using the default settings", exc)
        return Settings()


def _key(rng: CodeRange) -> _Range:
    return (rng.start.line, rng.start.column + 1, rng.end.line, rng.end.column + 1)


class ConfiglessRuntimeEnvCall(LintRule):
    """Pass the training config to ``get_ppo_ray_runtime_env`` (verl PR #6976).

    A call made with no config (or ``None``) cannot tell whether a component
    runs Megatron, so ``CUDA_DEVICE_MAX_CONNECTIONS=1`` is silently dropped.
    Reports PPO001 (a config is in scope; autofix passes it), PPO002 (no
    config in scope: the entry point must obtain one), PPO003 (the callee is
    bound ambiguously) and PPO903 (an unresolvable relative import of it).
    """

    METADATA_DEPENDENCIES = (PositionProvider, FilePathProvider)
    TAGS: ClassVar[set[str]] = {"ppo-migrate", "ray", "verl"}

    VALID: ClassVar[list[str | Valid]] = [
        Valid(
            """
            from verl.trainer.constants_ppo import get_ppo_ray_runtime_env

            def run_ppo(config):
                ray.init(runtime_env=get_ppo_ray_runtime_env(config))
            """
        ),
        Valid(
            """
            def get_ppo_ray_runtime_env():
                return {}

            get_ppo_ray_runtime_env()
            """
        ),
        Valid(
            """
            from verl.trainer.constants_ppo import get_ppo_ray_runtime_env

            def init_ray(address):
                ray.init(address, runtime_env=get_ppo_ray_runtime_env())  # noqa: PPO002
            """
        ),
        Valid(
            """
            from verl.trainer.constants_ppo import get_ppo_ray_runtime_env

            def init_ray(**kwargs):
                return get_ppo_ray_runtime_env(**kwargs)
            """
        ),
        Valid(
            """
            from verl.trainer.constants_ppo import get_ppo_ray_runtime_env

            def init_ray(address):
                # lint-ignore: ConfiglessRuntimeEnvCall
                ray.init(address, runtime_env=get_ppo_ray_runtime_env())
            """
        ),
    ]

    INVALID: ClassVar[list[str | Invalid]] = [
        Invalid(
            """
            from verl.trainer.constants_ppo import get_ppo_ray_runtime_env

            def run_ppo(config):
                ray.init(runtime_env=get_ppo_ray_runtime_env())
            """,
            expected_replacement="""
            from verl.trainer.constants_ppo import get_ppo_ray_runtime_env

            def run_ppo(config):
                ray.init(runtime_env=get_ppo_ray_runtime_env(config))
            """,
        ),
        Invalid(
            """
            import verl.trainer.constants_ppo as constants

            class Launcher:
                def __init__(self, config):
                    self.config = config

                def start(self):
                    return constants.get_ppo_ray_runtime_env(None)
            """,
            expected_replacement="""
            import verl.trainer.constants_ppo as constants

            class Launcher:
                def __init__(self, config):
                    self.config = config

                def start(self):
                    return constants.get_ppo_ray_runtime_env(self.config)
            """,
        ),
        Invalid(
            """
            from ppo_runtime import get_ppo_ray_runtime_env as runtime_env

            def main(cfg):
                env = runtime_env(config=None)
            """,
            expected_replacement="""
            from ppo_runtime import get_ppo_ray_runtime_env as runtime_env

            def main(cfg):
                env = runtime_env(config=cfg)
            """,
        ),
        Invalid(
            """
            from verl.trainer.constants_ppo import get_ppo_ray_runtime_env

            def init_ray(address):
                ray.init(address, runtime_env=get_ppo_ray_runtime_env())
            """,
            range=CodeRange((4, 34), (4, 59)),
        ),
        Invalid(
            # an unsafe fix (the config is only possibly bound): reported, no autofix
            """
            from verl.trainer.constants_ppo import get_ppo_ray_runtime_env

            def run_ppo(flag, load):
                if flag:
                    config = load()
                ray.init(runtime_env=get_ppo_ray_runtime_env())
            """
        ),
        Invalid(
            """
            try:
                from verl.trainer.constants_ppo import get_ppo_ray_runtime_env
            except ImportError:
                def get_ppo_ray_runtime_env():
                    return {}

            get_ppo_ray_runtime_env()
            """
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._found: dict[_Range, tuple[str, str | None]] = {}
        self._settings = Settings()

    def visit_Module(self, node: cst.Module) -> None:
        """Run the ppo-migrate pass over the whole module once.

        Args:
            node: the module Fixit is linting (the same node objects it visits).
        """
        path: Path | None = self.get_metadata(FilePathProvider, node, None)
        settings = settings_for(str(path.parent) if path is not None else None)
        self._settings = settings
        self._found = {}
        try:
            diagnostics = analyse(node.code, str(path) if path is not None else "", settings)
        except SourceProblem as exc:
            LOG.warning("ppo-migrate: %s:%s:%s: %s", path, exc.line, exc.column, exc.message)
            return
        unsafe = bool(getattr(settings, "unsafe_fixes", False))
        for d in diagnostics:
            if d.informational:  # a notice (PPO005) never fails a run; Fixit has no lower level
                continue
            key = (d.line, d.column, d.end_line, d.end_column)
            expression = fix_expression(d)
            if expression is not None and d.fix.applicability != "safe" and not unsafe:  # type: ignore[union-attr]
                expression = None
            self._found[key] = (f"{d.code} {d.message}", expression)

    def visit_Call(self, node: cst.Call) -> None:
        """Report the diagnostic (and its fix) found at this call, if any.

        Args:
            node: a call node.
        """
        if not self._found:
            return
        found = self._found.pop(_key(self.get_metadata(PositionProvider, node)), None)
        if found is None:
            return
        message, expression = found
        replacement = None
        if expression is not None:
            kind = configless_kind(node)
            if kind is not None:
                replacement = rewrite_call(node, kind, expression, keyword=self._settings.keyword)
        self.report(node, message, replacement=replacement)


__all__ = ["ConfiglessRuntimeEnvCall", "settings_for"]
