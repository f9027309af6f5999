"""Why a PPO001's fix is unsafe, why a PPO002 found no config: the :class:`Reason` of a finding
(issue 28), worded from what :class:`ppo_migrate.rules.configs.ConfigFinder` kept of
its candidates (:class:`ppo_migrate.rules.configs.Why`).

Only a finding that needs a reason pays for one: a safe fix has none, and the wording walks
the candidate's bindings again (their enclosing statements, their values) only here, after
the finder has decided. Pure: the module's tree and the finder's helpers, no I/O.

Kinds (:attr:`Reason.kind`):

* ``"possibly-bound"``: the config is bound on some paths only; ``lines`` are its bindings,
  each naming the branch that binds it (``"`config` is assigned under the `if` at line 4"``);
* ``"unknown-value"``: bound for sure, to a value not known to be a training config;
* ``"evidence-against"``: a PPO002's rejected candidates, one line each with the evidence
  (``"`cfg` is `config.actor_rollout_ref`, a section of the config"``);
* ``"version-gated"``: the call is on a branch chosen by a test of verl's version
  (:meth:`ppo_migrate.rules.shims.ShimDetector.version_gate`);
* ``"patched"`` and ``"caller-passes"`` are made where those judgements are
  (:mod:`ppo_migrate.rules.check`, :mod:`ppo_migrate.rules.cross_file`).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ppo_migrate.rules.configs import _PATH_CALLS, VERL_SECTIONS, _default_of, _stringish
from ppo_migrate.diagnostics import Reason, Related

from ppo_migrate.rules.scopes import ScopeKind

if TYPE_CHECKING:
    from ppo_migrate.rules.configs import ConfigFinder, Why
    from ppo_migrate.rules.scopes import Scope

_BRANCHES = (
    ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith,
    ast.ExceptHandler, ast.match_case,
)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)

#: Why a plain dict is no config for verl >= 0.9 (PR #6976): its ``get_ppo_ray_runtime_env``
#: reads the config with ``OmegaConf.select`` on every call given one (0.9.0's
#: ``_uses_mindspeed``, 0.9.1's ``_uses_torch_profiler``: ``verl/trainer/constants_ppo.py``
#: of both wheels), and ``OmegaConf.select`` raises ``AttributeError`` on a ``dict``
#: (omegaconf 2.3: ``'dict' object has no attribute '_is_none'``).
DICT_RAISES = (
    "verl 0.9's `get_ppo_ray_runtime_env` reads its config with `OmegaConf.select`, which "
    "raises `AttributeError` on a plain dict: it needs an OmegaConf `DictConfig`"
)


def unsafe_reason(finder: ConfigFinder, why: Why, call: ast.Call, path: str) -> Reason:
    """The reason of an unsafe PPO001 fix the finder chose (``why``: its :class:`Why`).

    Args:
        finder: the module's config finder (its tree, scopes, bindings).
        why: the chosen candidate's record (state ``"possible"``, ``"weak"``,
            ``"attribute"`` or ``"attribute-weak"``).
        call: the target call.
        path: the display path for the places.

    Returns:
        ``possibly-bound`` or ``unknown-value`` (see the module docstring).
    """
    name, expr = why.name, why.expression
    if why.state in ("attribute", "attribute-weak"):
        lines = tuple(_attribute_writes(finder, why, path))
        if why.state == "attribute":
            return Reason(
                "possibly-bound",
                f"`{expr}` is set outside `__init__` (or not on every path of it): maybe not "
                "yet when the call runs",
                lines,
            )
        return Reason(
            "unknown-value",
            f"`{expr}` is set to a value not known to be a training config",
            lines,
        )
    bindings = _bindings(finder, why)
    if why.state == "weak":
        weak = [
            b for b in bindings
            if finder._binding_trust(b.node, b.qualified, why.holder) != "strong"  # type: ignore[arg-type]
        ] or bindings
        dicts = [
            b for b in weak
            if not isinstance(b.node, ast.arg) and _dict_value(finder, b.node, why.holder) is not None
        ]
        text = (
            f"`{name}` is bound at the call, but to a plain dict, not an OmegaConf `DictConfig`"
            if dicts and len(dicts) == len(weak)
            else f"`{name}` is bound at the call, but to a value not known to be a training config"
        )
        return Reason(
            "unknown-value",
            text,
            tuple(
                _place(finder, path, b.node, _value_words(finder, name, b.node, why.holder))
                for b in weak
            ),
        )
    guard = bindings and all(_main_guard(finder, b.node) is not None for b in bindings)
    if guard:
        text = (
            f"`{name}` is a module global bound only under `if __name__ == \"__main__\":`, "
            "not when the module is imported"
        )
    else:
        text = f"`{name}` is only possibly bound at the call"
    before = [b for b in bindings if _line(b.node) <= call.lineno] or bindings
    defined = None
    if not guard and finder.scopes.scope_of(call) is not why.holder and why.holder is not None:
        before = bindings  # read later (a def run after): any binding of it may count
        if why.holder.kind is ScopeKind.MODULE:
            defined = _top_definition(finder, call)
    return Reason(
        "possibly-bound",
        text,
        tuple(
            _place(finder, path, b.node, _branch_words(finder, name, b.node, defined))
            for b in before
        ),
    )


def _top_definition(finder: ConfigFinder, node: ast.AST) -> ast.AST | None:
    """The module-level ``def``/``class`` whose body holds ``node`` (it runs when called, so
    a module global it reads is bound then only if bound before it is defined and not
    rebound after), or ``None``."""
    chain = finder.module.ancestors(node)
    if len(chain) > 1 and isinstance(chain[1], (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return chain[1]
    return None


def rejection_reason(finder: ConfigFinder, rejected: list[Why], call: ast.Call, path: str) -> Reason | None:
    """The reason of a PPO002 whose scope held candidates the finder rejected
    (:attr:`ConfigFinder.rejected`), or ``None`` when it rejected none (no config name,
    no ``DictConfig`` parameter in scope at all).

    Each rejected candidate gives one place: the binding that is evidence against a
    training config (an annotation with another type, a section of the config, a dict
    literal without a verl section, a path, ...), or its bindings when none reaches the
    call (a module global bound only under ``if __name__ == "__main__":``)."""
    lines: list[Related] = []
    named_by_evidence = False
    for why in rejected:
        before = len(lines)
        _rejected_places(finder, why, call, path, lines)
        found = finder.reason(call, why.expression)  # issue 27's evidence, where it named one
        if found is not None and found.kind == "evidence-against" and found.lines and (
            found.text != f"`{why.expression}` is not a training config"
        ) and all(_generic(p.message) for p in lines[before:]):
            lines[before:] = found.lines  # the YAML file, the option, the helper, the literal
            named_by_evidence = True
    if not lines:
        return None
    names = list(dict.fromkeys(f"`{w.expression}`" for w in rejected))
    if named_by_evidence and len(lines) == 1 and lines[0].message == _evidence_text_of(
        finder, call, rejected
    ):
        text = lines[0].message  # one candidate, named by its evidence (issue 27)
    elif len(names) == 1:
        text = f"{names[0]} is in scope but is not the training config"
    else:
        text = f"none of {', '.join(names[:-1])} and {names[-1]} in scope is the training config"
    return Reason("evidence-against", text, tuple(lines))


#: How the words of :func:`_evidence` end when they name no particular evidence.
_GENERIC_ENDINGS = (
    "not a training config", "fills with something else", "is in scope but is not the training config",
)


def _generic(words: str) -> bool:
    """Whether a rejected candidate's words name no particular evidence."""
    return words.endswith(_GENERIC_ENDINGS)


def _rejected_places(
    finder: ConfigFinder, why: Why, call: ast.Call, path: str, lines: list[Related]
) -> None:
    """Append the places that are evidence against one rejected candidate to ``lines``."""
    if why.state == "against" and why.holder is not None:
        for b in _bindings(finder, why):
            if finder._binding_trust(b.node, b.qualified, why.holder) == "against":
                lines.append(_place(finder, path, b.node, _evidence(finder, why.name, b.node, why.holder)))
                break
    elif why.state == "attribute-against":
        lines.extend(_attribute_writes(finder, why, path, against=True))
    elif why.state == "unbound" and why.holder is not None:
        for b in _bindings(finder, why):
            if _main_guard(finder, b.node) is not None:
                words = (
                    f"`{why.name}` is a module global bound only under "
                    "`if __name__ == \"__main__\":` (not when the module is imported)"
                )
            elif _line(b.node) > call.lineno:
                words = f"`{why.name}` is bound only after the call"
            else:
                words = f"`{why.name}` is not bound on any path reaching the call"
            lines.append(_place(finder, path, b.node, words))
            break


def _evidence_text_of(finder: ConfigFinder, call: ast.Call, rejected: list[Why]) -> str | None:
    """The text issue 27's evidence gave the only rejected candidate, if it gave one."""
    if len(rejected) != 1:
        return None
    found = finder.reason(call, rejected[0].expression)
    return None if found is None else found.text


# -- the places -----------------------------------------------------------------------------
def _bindings(finder: ConfigFinder, why: Why) -> list:
    if why.holder is None:
        return []
    return sorted(finder.finder.bindings_in(why.holder, why.name), key=lambda b: _line(b.node))


def _line(node: ast.AST) -> int:
    return getattr(node, "lineno", 0) or 0


def _place(finder: ConfigFinder, path: str, node: ast.AST, message: str) -> Related:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return Related(path, node.lineno, node.col_offset + 1, message)
    if not hasattr(node, "lineno"):
        return Related(path, 0, 0, message)
    line, column = finder.module.start(node)
    return Related(path, line, column, message)


def _src(finder: ConfigFinder, node: ast.AST) -> str:
    text = " ".join(finder.module.source_of(node).split())
    return text if len(text) <= 60 else text[:57] + "..."


def _stmt_ancestors(finder: ConfigFinder, node: ast.AST) -> list[ast.AST]:
    """The nodes enclosing ``node`` inside its own scope, innermost first."""
    out = []
    for up in reversed(finder.module.ancestors(node)):
        if isinstance(up, _SCOPES):
            break
        out.append(up)
    return out


def _main_guard(finder: ConfigFinder, node: ast.AST) -> ast.If | None:
    """The ``if __name__ == "__main__":`` whose body holds ``node``, if any."""
    for up in _stmt_ancestors(finder, node):
        if isinstance(up, ast.If) and _is_main_test(up.test):
            return up
    return None


def _is_main_test(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, *test.comparators]
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides
    )


def _branch_words(
    finder: ConfigFinder, name: str, node: ast.AST, defined: ast.AST | None = None
) -> str:
    """``"`config` is assigned under the `if` at line 4"``: the binding and the innermost
    statement that may skip it.

    ``defined``: for a module global read in a function or class, its module-level
    ``def``/``class`` (:func:`_top_definition`). A binding no statement may skip is then
    bound on every path: what leaves the global only possibly bound when the code runs
    is the order (``flow.bound_at``: certain only when bound before the definition and
    never rebound after), and the words say so instead of "on some paths only"."""
    verb = "a parameter" if isinstance(node, ast.arg) else "assigned"
    for up in _stmt_ancestors(finder, node):
        if not isinstance(up, _BRANCHES):
            continue
        # ast.match_case has no position of its own: its pattern has
        line = up.pattern.lineno if isinstance(up, ast.match_case) else up.lineno
        if isinstance(up, ast.If):
            if _is_main_test(up.test):
                return f"`{name}` is {verb} under `if __name__ == \"__main__\":` at line {line}"
            where = "the `else` of " if _in_orelse(up, node) else ""
            return f"`{name}` is {verb} under {where}the `if` at line {line}"
        if isinstance(up, (ast.For, ast.AsyncFor, ast.While)):
            loop = "for" if isinstance(up, (ast.For, ast.AsyncFor)) else "while"
            if _in_orelse(up, node):
                return f"`{name}` is {verb} in the `else` of the `{loop}` loop at line {line}"
            return f"`{name}` is {verb} in the `{loop}` loop at line {line}, which may run no time"
        if isinstance(up, ast.Try):
            return f"`{name}` is {verb} in the `try` at line {line}, which an exception may leave first"
        if isinstance(up, ast.ExceptHandler):
            return f"`{name}` is {verb} in the `except` at line {line}, which runs only on an exception"
        if isinstance(up, (ast.With, ast.AsyncWith)):
            return (
                f"`{name}` is {verb} in the `with` at line {line}, whose `__exit__` may "
                "swallow an exception raised before"
            )
        if isinstance(up, ast.match_case):
            return f"`{name}` is {verb} in the `case` at line {line}, which may not match"
    if defined is not None:
        what = f"`{getattr(defined, 'name', '')}`"
        writer = _top_definition(finder, node)
        if writer is not None:  # ``global config`` in another function
            return (
                f"`{name}` is {verb} at line {_line(node)} in `{getattr(writer, 'name', '')}` "
                f"(a `global` write), which may run before {what} does"
            )
        if _line(node) > defined.lineno:
            return (
                f"`{name}` is {verb} at line {_line(node)} on every path, but after {what} is "
                f"defined at line {defined.lineno}: a call of {what} made before line "
                f"{_line(node)} does not see this value"
            )
        return (
            f"`{name}` is {verb} at line {_line(node)} on every path, before {what} is defined "
            f"at line {defined.lineno}; the module may bind it again before {what} runs"
        )
    return f"`{name}` is {verb} at line {_line(node)}, on some paths only"


def _in_orelse(stmt: ast.AST, node: ast.AST) -> bool:
    line = _line(node)
    return any(_line(s) <= line <= (getattr(s, "end_lineno", 0) or 0) for s in getattr(stmt, "orelse", ()))


def _value_of(finder: ConfigFinder, node: ast.AST) -> ast.expr | None:
    parent = finder.parents.get(id(node))
    if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
        return parent.value
    return None


def is_plain_dict(finder: ConfigFinder, value: ast.AST | None) -> bool:
    """Whether ``value`` makes a plain ``dict``, which verl 0.9's function raises on
    (:data:`DICT_RAISES`).

    Args:
        finder: the module's config finder (it resolves what ``dict`` names there).
        value: an expression of the module, or ``None``.

    Returns:
        ``True`` for a literal (``{...}``), a dict comprehension, or a call of the builtin
        ``dict`` (``dict(trainer=...)``, not one imported from elsewhere); else ``False``.
    """
    if isinstance(value, (ast.Dict, ast.DictComp)):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        names = finder._qualified(func)
        if names:  # an import: ``builtins.dict`` itself, or another ``dict``
            return names == {"builtins.dict"}
        return isinstance(func, ast.Name) and func.id == "dict"
    return False


def _dict_value(finder: ConfigFinder, node: ast.AST, holder: Scope | None) -> ast.expr | None:
    """The plain dict (:func:`is_plain_dict`) a binding holds: its assigned value, or for a
    parameter the first a same-file caller passes; ``None`` when it holds none."""
    if isinstance(node, ast.arg):
        if holder is None:
            return None
        return next(
            (v for v in finder.caller_values(node, holder) or () if is_plain_dict(finder, v)), None
        )
    value = _value_of(finder, node)
    return value if is_plain_dict(finder, value) else None


def _value_words(finder: ConfigFinder, name: str, node: ast.AST, holder: Scope | None = None) -> str:
    """What a binding trusted by type only holds (an unknown-value reason's place)."""
    plain = _dict_value(finder, node, holder)
    if plain is not None:
        if isinstance(node, ast.arg):
            return (
                f"`{name}` is a parameter the call at line {plain.lineno} passes "
                f"`{_src(finder, plain)}`, a plain dict: {DICT_RAISES}"
            )
        return f"`{name} = {_src(finder, plain)}` is a plain dict: {DICT_RAISES}"
    if isinstance(node, ast.arg):
        return (
            f"`{name}` is a parameter that a caller in this file (or its default) fills with "
            "a value not known to be a training config"
        )
    value = _value_of(finder, node)
    if value is not None:
        return f"`{name} = {_src(finder, value)}`: a value of a type not known here"
    parent = finder.parents.get(id(node))
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)):
        return f"`{name}` is an element of `{_src(finder, parent.iter)}`"
    if isinstance(parent, ast.withitem):
        return f"`{name}` is what `{_src(finder, parent.context_expr)}` gives on entering a `with`"
    return f"`{name}` is bound at line {_line(node)} to a value not known to be a training config"


def _evidence(finder: ConfigFinder, name: str, node: ast.AST, holder: Scope) -> str:
    """The evidence a binding is not a training config, in words (a PPO002's place)."""
    if isinstance(node, ast.arg):
        if node.annotation is not None and finder._annotation(node.annotation, holder) == "other":
            return f"`{name}` is annotated `{_src(finder, node.annotation)}`"
        args = getattr(holder.node, "args", None)
        if args is not None and node is args.vararg:
            return f"`*{name}` is a tuple of arguments"
        if args is not None and node is args.kwarg:
            return f"`**{name}` is a dict of keyword arguments"
        default = _default_of(holder.node, node)
        if default is not None and finder._passed_trust(default) == "against":
            return f"`{name}` defaults to `{_src(finder, default)}`, {_value_kind(finder, default)}"
        for value in finder.caller_values(node, holder) or ():
            if hasattr(value, "lineno") and finder._passed_trust(value) == "against":
                return (
                    f"`{name}` is a parameter the call at line {value.lineno} passes "
                    f"`{_src(finder, value)}`, {_value_kind(finder, value)}"
                )
        return f"`{name}` is a parameter a caller in this file fills with something else"
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return f"`{name}` is a function"
    if isinstance(node, ast.ClassDef):
        return f"`{name}` is a class"
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return f"`{name}` is an import (`{_src(finder, node)}`)"
    if isinstance(node, ast.ExceptHandler):
        return f"`{name}` is an exception (`except ... as {name}`)"
    parent = finder.parents.get(id(node))
    if isinstance(parent, ast.AnnAssign) and parent.target is node:
        if finder._annotation(parent.annotation, holder) == "other":
            return f"`{name}` is annotated `{_src(finder, parent.annotation)}`"
    value = _value_of(finder, node)
    if value is not None:
        return f"`{name}` is `{_src(finder, value)}`, {_value_kind(finder, value)}"
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)):
        return f"`{name}` is an element of `{_src(finder, parent.iter)}`, not a training config"
    if isinstance(parent, ast.withitem):
        return f"`{name}` is a file opened by `{_src(finder, parent.context_expr)}`"
    return f"`{name}` is bound at line {_line(node)} to something that is not a training config"


def _value_kind(finder: ConfigFinder, value: ast.expr) -> str:
    """What kind of value ``value`` is, as evidence against a training config."""
    if isinstance(value, ast.Dict):
        return (
            f"a dict literal without a verl section ({', '.join(sorted(VERL_SECTIONS))}); "
            f"{DICT_RAISES}"
        )
    if isinstance(value, (ast.List, ast.ListComp)):
        return "a list"
    if isinstance(value, (ast.Tuple, ast.Set, ast.SetComp, ast.GeneratorExp)):
        return "a sequence"
    if isinstance(value, ast.Lambda):
        return "a function"
    if isinstance(value, ast.JoinedStr) or (isinstance(value, ast.Constant) and isinstance(value.value, str)):
        return "a string (a path?), not a config"
    if isinstance(value, ast.Constant):
        return "a constant"
    if isinstance(value, ast.BinOp) and _stringish(value):
        return "a path"
    if finder._is_config_part(value) or finder._sub_config(value):
        return "a section of the config, not the whole"
    if isinstance(value, ast.Attribute) and value.attr in finder.names:
        return "another object's config"
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr == "from_pretrained":
            return "a pretrained model's config"
        names = finder._qualified(func)
        if any(n == "transformers" or n.startswith("transformers.") for n in names):
            return "a `transformers` object"
        if isinstance(func, ast.Name) and func.id == "dict" or names == {"builtins.dict"}:
            return f"a dict without a verl section; {DICT_RAISES}"
        if isinstance(func, ast.Attribute) and func.attr in ("parse_args", "parse_known_args"):
            return "command-line arguments"
        if names & _PATH_CALLS:
            return "a path"
    if isinstance(value, ast.Name) and value.id.lower().endswith(("path", "file", "dir", "yaml", "yml")):
        return "a path"
    return "not a training config"


def _attribute_writes(finder: ConfigFinder, why: Why, path: str, against: bool = False) -> list[Related]:
    """The writes of ``self.<name>`` in this module's classes (``against``: only those that
    are evidence against a training config)."""
    out: list[Related] = []
    name = why.name
    for node in finder.module.facts.attributes:
        if node.attr != name or not isinstance(node.ctx, ast.Store):
            continue
        if not (isinstance(node.value, ast.Name)):
            continue
        parent = finder.module.ancestors(node)
        stmt = parent[-1] if parent else None
        value = getattr(stmt, "value", None) if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
        if against:
            made = finder.maker_against(value)
            if made is not None:
                words = f"`{_src(finder, node)}` is set to `{_src(finder, value)}`: {made}"
            elif value is None or not finder._value_against(value):
                continue
            else:
                words = f"`{_src(finder, node)}` is set to `{_src(finder, value)}`, {_value_kind(finder, value)}"
        else:
            shown = f" = {_src(finder, value)}" if value is not None else ""
            words = f"`{_src(finder, node)}{shown}` is set here"
        line, column = finder.module.start(node)
        out.append(Related(path, line, column, words))
    return out
