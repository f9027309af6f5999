"""LibCST codemod command: ``python -m libcst.tool codemod -x ppo_migrate.codemod.PassConfigCommand``.

A thin adapter: :func:`ppo_migrate.rules.check.analyse` decides every finding and
fix; :mod:`ppo_migrate.edits.cst_calls` maps the safe fixes onto the module's
``cst.Call`` nodes. The class is defined on first access (PEP 562), so importing
this module does not import ``libcst.codemod``. Its public path,
``ppo_migrate.codemod.PassConfigCommand``, is kept by :mod:`ppo_migrate.codemod`.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import libcst as cst

from ppo_migrate.rules.check import analyse
from ppo_migrate.rules.module import SourceProblem
from ppo_migrate.edits.cst_calls import _Rewriter, call_positions, replacements
from ppo_migrate.settings_model import DEFAULT_TARGETS, Settings

# installs the model's reader of a folder's own settings (a ``[tool.ppo-migrate]`` table's
# ``verl-version`` nearest a file): the judging modules ask the model, never the loader
import ppo_migrate.cli.settings  # noqa: E402,F401,I001


def _pass_config_command() -> type:
    """Define :class:`PassConfigCommand` (imports ``libcst.codemod`` only now).

    ``libcst.codemod`` imports ``libcst.matchers``, about half a second of start-up
    that ``check`` and ``apply`` never need; only LibCST's own runner uses the class.
    """
    from libcst.codemod import CodemodContext, VisitorBasedCodemodCommand

    class PassConfigCommand(VisitorBasedCodemodCommand):
        """LibCST codemod command: pass the in-scope config to configless calls.

        Usable as ``python -m libcst.tool codemod -x ppo_migrate.codemod.PassConfigCommand
        --no-format PATH``. Same analysis as ``ppo-migrate apply``; calls with no config
        in scope are left alone and reported as warnings on the codemod context.
        """

        DESCRIPTION: str = (
            "Pass the training config in scope to configless get_ppo_ray_runtime_env() "
            "calls (verl PR #6976)."
        )

        def __init__(
            self,
            context: CodemodContext,
            targets: Sequence[str] | None = None,
            keyword: bool = False,
        ) -> None:
            super().__init__(context)
            self.settings = Settings(targets=tuple(targets or DEFAULT_TARGETS), keyword=keyword)

        @staticmethod
        def add_args(arg_parser: argparse.ArgumentParser) -> None:
            """Add ``--target`` (repeatable) and ``--keyword`` to libcst.tool's parser."""
            arg_parser.add_argument(
                "--target",
                dest="targets",
                action="append",
                default=None,
                help="qualified name of the runtime function (repeatable)",
            )
            arg_parser.add_argument(
                "--keyword", action="store_true", help="write config=<expr> instead of positional"
            )

        def transform_module_impl(self, tree: cst.Module) -> cst.Module:
            """Rewrite ``tree``; diagnostics without an applied fix become context warnings."""
            from libcst.metadata import MetadataWrapper

            path = self.context.filename or "<unknown>"
            try:
                diagnostics = analyse(tree.code, path, self.settings)
            except SourceProblem as exc:
                self.warn(f"{path}:{exc.line}:{exc.column}: PPO902 {exc.message}")
                return tree
            calls = call_positions(MetadataWrapper(tree, unsafe_skip_copy=True))
            found = replacements(calls, diagnostics, self.settings)
            for d in diagnostics:
                if d.fix is None or d.fix.applicability != "safe" or (d.line, d.column) not in calls:
                    self.warn(f"{d.path}:{d.line}:{d.column}: {d.code} {d.message}")
            if not found:
                return tree
            return tree.visit(_Rewriter(found))

    PassConfigCommand.__module__ = "ppo_migrate.codemod"
    PassConfigCommand.__qualname__ = "PassConfigCommand"
    return PassConfigCommand


def __getattr__(name: str) -> object:
    """PEP 562: build ``PassConfigCommand`` on first access (see :func:`_pass_config_command`)."""
    if name == "PassConfigCommand":
        cls = _pass_config_command()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["PassConfigCommand"]
