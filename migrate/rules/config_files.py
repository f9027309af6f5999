"""The config files a maker reads: ``OmegaConf.load(<path>)`` of a repository file (the
path a literal, built from ``__file__``, or an opened file) and Hydra's composed
configs (``initialize`` + ``compose``), read through :mod:`ppo_migrate.rules.evidence`.
"""

from __future__ import annotations

import ast
from pathlib import Path

from ppo_migrate.rules.config_model import _FILE_OPENERS, _FUNCTIONS
from ppo_migrate.rules.config_syntax import (
    _display, _keyword_or_arg, _literal_path, _repository_top, _walk_here,
)
from ppo_migrate.rules.evidence import VERL_SECTIONS, composed_keys, file_keys, find_file
from ppo_migrate.project.path_expr import PathEvaluator
from ppo_migrate.project.snapshot import current


class ConfigFileEvidence:
    """The evidence of a loaded or composed config file: its top-level keys.

    A part of :class:`ppo_migrate.rules.configs.ConfigFinder` (mixed into it, which holds
    the state: ``module``, ``scopes``, ``finder``, ``names``, ``parents``, ``classes``,
    ``follow_values`` and the memo, evidence and origins of the judgement under way);
    it uses :class:`ppo_migrate.rules.config_notes.EvidenceNotes` and
    :class:`ppo_migrate.rules.config_lookup.NameLookup`.
    """

    def _module_dir(self) -> Path | None:
        path = self.module.path
        if not path or path == "-":
            return None
        return Path(path).absolute().parent

    def _loaded_file_evidence(self, call: ast.Call) -> str:
        """``OmegaConf.load(<file>)`` of a file found in the repository (the module's
        directory and those above it): its top-level keys decide (:mod:`.evidence`); a
        file that cannot be told or found is ``"weak"``."""
        spelled = self._spelled(call)
        directory = self._module_dir()
        name = self._path_of(call.args[0]) if len(call.args) == 1 and not call.keywords else None
        if name is None or directory is None:
            self._note("unread", f"`{spelled}`: which file it loads cannot be told here", call)
            return "weak"
        root = self.classes.root if self.classes is not None else None
        found = find_file(name, directory, _repository_top(directory, root))
        if not found:
            self._note(
                "unread",
                f"`{spelled}`: `{name}` is not in the repository: what it holds cannot be read",
                call,
            )
            return "weak"
        results = [file_keys(f) for f in found]
        trusts = set()
        for r in results:
            shown = _display(r.path)
            if r.keys is None:
                self._note("weak", f"`{spelled}`: {r.problem}", call)
                trusts.add("weak")
            elif r.keys & VERL_SECTIONS:
                self._note("strong", f"`{shown}` has a verl section", (shown, 1))
                trusts.add("strong")
            else:
                self._note(
                    "against",
                    f"`{spelled}` loads `{shown}`, which has no verl section "
                    f"(keys: {', '.join(sorted(r.keys)) or 'none'})",
                    (shown, 1),
                )
                trusts.add("against")
        if len(trusts) > 1:
            self._note(
                "weak",
                f"`{spelled}` may load any of "
                + ", ".join(f"`{_display(r.path)}`" for r in results)
                + ", which disagree",
                call,
            )
            return "weak"
        return trusts.pop()

    def _path_of(self, node: ast.expr) -> str | None:
        """The file name an ``OmegaConf.load`` argument names: a literal, a path built
        from literals, ``__file__`` and names bound once here
        (:class:`ppo_migrate.project.path_expr.PathEvaluator`), or the file a file object
        from ``open(<path>)`` reads (``with open("a.yaml") as f: OmegaConf.load(f)``)."""
        literal = _literal_path(node)
        if literal is not None:
            return literal
        opened = self._opened(node)
        if opened is not None:
            node = opened
        path = self.module.path
        if not path or path == "-":
            return None
        return PathEvaluator(str(Path(path).absolute()), self._single_value)(node)

    def _opened(self, node: ast.expr) -> ast.expr | None:
        """The path argument of ``open(<path>)`` a file object comes from: the call
        itself, or a name bound once by ``with open(<path>) as f``."""
        if isinstance(node, ast.Name):
            holder = self.scopes.scope_of(node).lookup(node.id)
            bindings = list(self.finder.bindings_in(holder, node.id)) if holder is not None else []
            if len(bindings) != 1:
                return None
            parent = self.parents.get(id(bindings[0].node))
            if not (isinstance(parent, ast.withitem) and parent.optional_vars is bindings[0].node):
                return None
            node = parent.context_expr
        if isinstance(node, ast.Call) and node.args and (
            self._qualified(node.func) & _FILE_OPENERS or self._builtin(node.func) & {"open"}
        ):
            return node.args[0]
        return None

    def _compose_evidence(self, call: ast.Call) -> str | None:
        """Hydra's compose API: ``compose(config_name="x")`` under ``with
        initialize(config_path="conf")`` (or ``initialize_config_dir(config_dir=...)``),
        or after one such call in the same function: the composed config's keys decide
        (:meth:`_composed_evidence`)."""
        name = _keyword_or_arg(call, "config_name", 0)
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
            return None
        directory = self._module_dir()
        if directory is None:
            return None
        initializers: list[ast.Call] = []
        for up in reversed(self.module.ancestors(call)):
            if isinstance(up, (ast.With, ast.AsyncWith)):
                initializers += [
                    i.context_expr for i in up.items if isinstance(i.context_expr, ast.Call)
                ]
            if isinstance(up, (*_FUNCTIONS, ast.Module)):
                initializers += [
                    n for n in _walk_here(up) if isinstance(n, ast.Call) and n is not call
                ]
                break
        dirs = set()
        for init in initializers:
            names = self._library_names(init.func)
            if names & {"hydra.initialize", "hydra.initialize.initialize",
                        "hydra.experimental.initialize"}:
                path = _keyword_or_arg(init, "config_path", 0)
                if isinstance(path, ast.Constant) and isinstance(path.value, str):
                    dirs.add(directory / path.value)
                else:
                    return None
            elif names & {"hydra.initialize_config_dir", "hydra.experimental.initialize_config_dir"}:
                path = _keyword_or_arg(init, "config_dir", 0)
                literal = _literal_path(path) if path is not None else None
                if literal is None:
                    return None
                dirs.add(directory / literal)
        if len(dirs) != 1:
            return None
        return self._composed_evidence(call, dirs.pop(), name.value)

    def _composed_evidence(self, call: ast.Call, config_dir: Path, name: str) -> str | None:
        """The evidence of config ``name`` of ``config_dir`` composed
        (:func:`ppo_migrate.rules.evidence.composed_keys`); ``None`` when the file is not
        in the repository."""
        result = composed_keys(config_dir, name)
        shown = _display(result.path)
        if result.keys is None:
            if not current().fs.is_file(result.path):  # stat-ed once a run
                return None  # not in the repository: nothing to go on
            self._note("weak", f"`{self._spelled(call)}` cannot be composed: {result.problem}", call)
            return "weak"
        if result.keys & VERL_SECTIONS:
            self._note("strong", f"`{shown}` composes a verl section", (shown, 1))
            return "strong"
        self._note(
            "against",
            f"`{self._spelled(call)}` composes `{shown}`, which has no verl section "
            f"(keys: {', '.join(sorted(result.keys)) or 'none'})",
            (shown, 1),
        )
        return "against"
