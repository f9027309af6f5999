"""What an entry point's decorators show of its parameter: a click option or argument, a
typer command's parameter (command-line values), ``@hydra.main``'s composed config or
ConfigStore node (issue 27).
"""

from __future__ import annotations

import ast
from pathlib import Path

from ppo_migrate.rules.config_model import _FUNCTIONS
from ppo_migrate.rules.config_syntax import _dataclass_fields, _display
from ppo_migrate.rules.evidence import VERL_SECTIONS
from ppo_migrate.rules.scopes import Scope


def _click_name(declared: list[str]) -> str | None:
    """The parameter name click derives from an option's or argument's declarations: a
    bare identifier if one is given, else the longest ``--`` (or ``-``) name, dashes
    turned to underscores, lower-cased (click ``Option._parse_decls``)."""
    for d in declared:
        if d.isidentifier():
            return d
    dashed = [d for d in declared if d.startswith("-")]
    if not dashed:
        return declared[0].replace("-", "_").lower() if declared else None
    longs = [d for d in dashed if d.startswith("--")] or dashed
    best = max(longs, key=lambda d: len(d.lstrip("-")))
    return best.split("/")[0].lstrip("-").replace("-", "_").lower()


class EntryPointEvidence:
    """The evidence a function's decorators give of its parameters.

    A part of :class:`ppo_migrate.rules.configs.ConfigFinder` (mixed into it, which holds
    the state: ``module``, ``scopes``, ``finder``, ``names``, ``parents``, ``classes``,
    ``follow_values`` and the memo, evidence and origins of the judgement under way);
    it uses :class:`ppo_migrate.rules.config_files.ConfigFileEvidence` (the
    composed file) and :class:`ppo_migrate.rules.config_makers.MakerEvidence` (a stored node).
    """

    def _decorator_evidence(self, arg: ast.arg, holder: Scope) -> str | None:
        """What a parameter's function's decorators show of it: ``"against"`` for a CLI
        value (``@click.option("--config")``/``@click.argument("config")``, a ``typer``
        command's parameter: a string or a path) and for ``@hydra.main(config_path=...,
        config_name=...)`` composing a config without a verl section from the
        repository; ``"strong"`` for one with a section; ``"weak"`` for one that cannot be
        composed; ``None``: nothing to say (no such decorator, the config not found;
        always without :attr:`follow_values`)."""
        func = holder.node
        if not self.follow_values or not isinstance(func, _FUNCTIONS):
            return None
        for d in func.decorator_list:
            call = d if isinstance(d, ast.Call) else None
            names = self._library_names(d.func if call is not None else d)
            if call is not None and names & {"click.option", "click.argument",
                                             "click.decorators.option", "click.decorators.argument"}:
                declared = [
                    a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                ]
                if _click_name(declared) == arg.arg:
                    kind = "option" if names & {"click.option", "click.decorators.option"} else "argument"
                    self._note(
                        "against",
                        f"`{arg.arg}` is the click {kind} `{self._spelled(d)}`: a string, "
                        "not a training config",
                        d,
                    )
                    return "against"
            if any(n == "typer" or n.startswith("typer.") for n in self._qualified(d)) or (
                call is not None and self._typer_command(call)
            ):
                self._note(
                    "against",
                    f"`{arg.arg}` is a parameter of the typer command `{self._spelled(d)}`: "
                    "a command-line value, not a training config",
                    d,
                )
                return "against"
            if call is not None and names & {"hydra.main", "hydra.main.main"}:
                return self._hydra_main_evidence(call, arg, func)
        return None

    def _typer_command(self, call: ast.Call) -> bool:
        """``@app.command(...)``/``@app.callback(...)`` with ``app = typer.Typer(...)`` here."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr in ("command", "callback")
                and isinstance(func.value, ast.Name)):
            return False
        holder = self.scopes.scope_of(func.value).lookup(func.value.id)
        if holder is None:
            return False
        for b in self.finder.bindings_in(holder, func.value.id):
            parent = self.parents.get(id(b.node))
            if isinstance(parent, ast.Assign) and isinstance(parent.value, ast.Call) and any(
                n.startswith("typer.") for n in self._qualified(parent.value.func)
            ):
                return True
        return False

    def _hydra_main_evidence(self, call: ast.Call, arg: ast.arg, func: ast.AST) -> str | None:
        """``@hydra.main(config_path=..., config_name=...)``: the composed config's top-level
        keys (:func:`ppo_migrate.rules.evidence.composed_keys`) decide for the
        function's first parameter (the one Hydra passes)."""
        params = (*func.args.posonlyargs, *func.args.args)  # type: ignore[attr-defined]
        if not params or params[0] is not arg:
            return None
        values = {k.arg: k.value for k in call.keywords if k.arg}
        for i, key in enumerate(("config_path", "config_name")):
            if key not in values and len(call.args) > i:
                values[key] = call.args[i]
        path, name = values.get("config_path"), values.get("config_name")
        directory = self._module_dir()
        if (path is None or isinstance(path, ast.Constant) and path.value is None) and (
            isinstance(name, ast.Constant) and isinstance(name.value, str)
        ):
            return self._stored_config_evidence(call, name.value)
        if not (
            isinstance(path, ast.Constant) and isinstance(path.value, str)
            and isinstance(name, ast.Constant) and isinstance(name.value, str)
            and directory is not None
        ):
            return None
        if path.value.startswith(("pkg://", "file://")):
            return None
        return self._composed_evidence(call, directory / path.value, name.value)

    def _stored_config_evidence(self, call: ast.Call, name: str) -> str:
        """``@hydra.main(config_path=None, config_name=name)``: no file; the config is a
        node of Hydra's ``ConfigStore`` (``ConfigStore.instance().store(name=name,
        node=AppCfg)``, trial 27 r06). The stored dataclass's fields decide when this
        module stores it; otherwise it cannot be read (``"weak"``)."""
        spelled = self._spelled(call)
        for node in ast.walk(self.module.tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "store"):
                continue
            stored = {k.arg: k.value for k in node.keywords if k.arg}
            key = stored.get("name")
            if not (isinstance(key, ast.Constant) and key.value == name) or "group" in stored:
                continue
            value = stored.get("node")
            if value is None:
                break
            keys = self._mapping_keys(value)
            if keys is not None:
                return self._keys_evidence(value, keys) if keys else "weak"
            cls_expr = value.func if isinstance(value, ast.Call) else value
            found = self._base_class(cls_expr) if isinstance(cls_expr, (ast.Name, ast.Attribute)) else None
            fields = _dataclass_fields(found, set()) if found is not None else None
            if fields is None:
                break
            finder, class_def = found  # type: ignore[misc]
            where = (_display(Path(finder.module.path)), class_def.lineno)
            if fields & VERL_SECTIONS:
                self._note("strong", f"`{spelled}` composes the stored dataclass `{class_def.name}`, "
                           "which has a verl section", where)
                return "strong"
            self._note(
                "against",
                f"`{spelled}` composes the ConfigStore node `{name}`, dataclass `{class_def.name}`, "
                f"which has no verl section (fields: {', '.join(sorted(fields)) or 'none'})",
                where,
            )
            return "against"
        self._note(
            "unread",
            f"`{spelled}` composes the ConfigStore node `{name}`, which cannot be read here",
            call,
        )
        return "weak"
