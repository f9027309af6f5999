"""The one resolver: the diagnostics (and fixes) of one module, for check, apply, the
LibCST codemod command and the Fixit rule alike.

For each call whose callee resolves to a target (:mod:`.targets`):

* a relative import climbing past the top-level package → PPO903;
* a call that passes a config → nothing;
* an ambiguous callee → PPO003;
* a compatibility shim (:mod:`.shims`) → PPO004 (listed with ``show_shims``);
* a callee in effect that takes no config (:mod:`.signatures`, issue 12: an
  in-tree copy or a verl release before 0.9.0) → PPO005, left as it is;
* a config to pass (:mod:`.configs`) → PPO001 with a fix (an :class:`Edit` in
  1-based code-point positions of the original text; ``applicability`` ``"safe"``
  when the config is certainly bound at the call, ``"unsafe"`` when possibly);
* none → PPO002.

``# noqa`` in a real comment (never inside a string) on a finding's first or last
line suppresses it; ``select``/``ignore`` filter the codes.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ppo_migrate.rules.configs import ConfigFinder
from ppo_migrate.rules.config_model import CANNOT_TELL
from ppo_migrate.rules.hydra_targets import string_message, string_reference
from ppo_migrate.rules.index import ClassIndex
from ppo_migrate.rules.module import (
    ParsedModule,
    SourceProblem,
    parse,
    syntax_problem,
)
from ppo_migrate.rules.names import ModuleNames
from ppo_migrate.project.entry_points import SETUP_PY, setup_py_entry_points
from ppo_migrate.rules.entry_point_targets import entry_point_references
from ppo_migrate.rules.patches import PATCHERS, call_replacements, own_replacement, patch_reason, reaching_patch
from ppo_migrate.rules.reasons import rejection_reason, unsafe_reason
from ppo_migrate.rules.scopes import ScopeKind, ScopeTree, frames
from ppo_migrate.rules.shims import MARKERS, VERSION_MARKERS, ShimDetector
from ppo_migrate.rules.signatures import callee_signature, display_path
from ppo_migrate.rules.targets import (
    TargetFinder, callee_parts, configless_kind, dotted_parts, getattr_default, methodcaller_call,
    methodcaller_name, passed_arguments, spelled_targets,
)
from ppo_migrate.constants import CONFIG_PARAMETER
from ppo_migrate.diagnostics import (
    NOTICE_SEPARATOR,
    Diagnostic,
    Edit,
    Fix,
    Reason,
    Related,
    comment_lines,
    is_suppressed,
    qualname,
)
from ppo_migrate.project.references import current_references, package_root
from ppo_migrate.rules.targets import TargetMatcher, Verdict
from ppo_migrate.project.modules import module_package, resolve_relative

if TYPE_CHECKING:
    from ppo_migrate.rules.configs import ConfigChoice
    from ppo_migrate.rules.signatures import CalleeInEffect
    from ppo_migrate.rules.targets import TargetCall
    from ppo_migrate.settings_model import Settings

def analyse(
    text: str,
    path: str,
    settings: Settings,
    *,
    package: tuple[str, ...] | None = None,
    module: ParsedModule | None = None,
) -> list[Diagnostic]:
    """Every finding of one module, sorted, after ``# noqa`` and rule selection.

    Args:
        text: the decoded module source (no newline translation).
        path: the display path; with ``package`` unset it also decides the
            module's package (``"-"`` or ``""``: no package).
        settings: the run's settings (targets, config names, keyword, select/ignore,
            show_shims).
        package: the module's package parts, when known.
        module: ``text`` already parsed (:func:`ppo_migrate.rules.module.parse`).

    Returns:
        The diagnostics, sorted by position: PPO001 (with a :class:`Fix`),
        PPO002, PPO003, PPO004 (only with ``show_shims``), PPO005, PPO903.

    Raises:
        SourceProblem: the text cannot be analysed (PPO902: a syntax error, too
            large, nested too deeply).
    """
    return ModuleAnalysis(text, path, settings, package=package, module=module).diagnostics()


def _symbol_table_errors(module: ParsedModule) -> None:
    """Raise the PPO902 of text Python's parser accepts and its compiler rejects.

    The symbol table's errors all involve ``global``/``nonlocal`` declarations
    (``nonlocal`` at module level or without a binding, a name declared after its
    use): only a module holding one pays for :func:`symtable.symtable`'s second parse.
    """
    if not module.facts.declarations:
        return
    import symtable
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            symtable.symtable(module.text, module.path, "exec")
    except SyntaxError as exc:
        raise syntax_problem(exc) from None
    except (ValueError, RecursionError, MemoryError):
        pass


def _config_finder(analysis: ModuleAnalysis, settings: Settings, path: str, package) -> ConfigFinder:
    """The module's :class:`ConfigFinder`, made on the first call whose definition takes a
    config (a tree of pre-PR #6976 copies never needs one). ``Settings.follow_values``
    off: the judgement before issue 27 (the differential test's)."""
    return ConfigFinder(
        analysis.module,
        analysis.scopes,
        analysis.targets,
        tuple(settings.config_names),
        analysis.parents,
        ClassIndex(package_root(path, package), settings, ModuleAnalysis),
        follow_values=getattr(settings, "follow_values", True),
    )


class ModuleAnalysis:
    """One module's analysis: scopes, targets, configs and shims built on one parse.

    Args: as :func:`analyse`.

    Raises:
        SourceProblem: see :func:`analyse`.
    """

    def __init__(
        self,
        text: str,
        path: str,
        settings: Settings,
        *,
        package: tuple[str, ...] | None = None,
        module: ParsedModule | None = None,
    ) -> None:
        self.settings = settings
        self.path = path
        self.module = module if module is not None else parse(text, path)
        _symbol_table_errors(self.module)
        try:
            self.scopes = ScopeTree.build(self.module.tree)
        except RecursionError:
            raise SourceProblem("cannot parse: nested too deeply") from None
        if package is None:
            package = module_package(path) if path and path != "-" else ()
        self.package = package
        self.matcher = TargetMatcher.of(settings.targets)
        self.targets = TargetFinder(self.module, self.scopes, self.matcher, package)
        self._configs: ConfigFinder | None = None
        self._patched = None  # a Patch, False (none), None (not looked for)
        self._shim_detector = None
        text = self.module.text
        self._may_hold_shims = any(word in text for word in MARKERS)
        self._may_read_versions = any(word in text for word in VERSION_MARKERS)
        self._make_configs = lambda: _config_finder(self, settings, path, package)
        #: ``id(scope) -> (scope, its frames)`` (:meth:`frames`: asked for each finding's
        #: scope and each caller site's)
        self._frames: dict[int, tuple[object, tuple[tuple[str, str], ...]]] = {}
        #: the callee's qualified names -> (the run's re-exports table asked with, the
        #: definition in effect) (:meth:`in_effect`)
        self._in_effect: dict[tuple[str, ...], tuple[object, CalleeInEffect]] = {}

    @property
    def parents(self) -> dict[int, ast.AST]:
        """``id(name) -> parent`` for the module's ``ast.Name`` nodes."""
        return self.module.facts.parents

    @property
    def configs(self) -> ConfigFinder:
        """The module's :class:`ppo_migrate.rules.configs.ConfigFinder`, built on first need."""
        if self._configs is None:
            self._configs = self._make_configs()
        return self._configs

    def config_at(self, call: ast.Call) -> ConfigChoice | None:
        """The config to pass at a call of this module (:meth:`ConfigFinder.find`)."""
        return self.configs.find(call)

    def frames(self, node: ast.AST) -> tuple[tuple[str, str], ...]:
        """The ``(kind, name)`` frames of the functions, lambdas and classes around ``node``
        (the scope whose code evaluates it, outwards; comprehensions do not count), kept
        per scope."""
        scope = self.scopes.scope_of(node)
        known = self._frames.get(id(scope))
        if known is None or known[0] is not scope:
            known = self._frames[id(scope)] = (scope, frames(scope))
        return known[1]

    def scope_name(self, node: ast.AST) -> str:
        """The enclosing qualified name, as ``__qualname__`` spells it (``"<module>"`` at top)."""
        return qualname(self.frames(node))

    def diagnostics(self) -> list[Diagnostic]:
        """See :func:`analyse`."""
        settings = self.settings
        show_shims = getattr(settings, "show_shims", False)
        out: list[Diagnostic] = []
        for t in self.targets.calls():
            if t.verdict is Verdict.UNRESOLVABLE:
                d = self._diagnostic(
                    t,
                    "PPO903",
                    f"`{t.callee}` comes from a relative import that climbs past the top-level "
                    f"package ({', '.join(t.names)}); cannot tell if it is the runtime function",
                )
            elif t.kind is None:
                continue
            elif t.uncertain is not None:  # trial 26h: a form read but not followed
                d = self._diagnostic(
                    t,
                    "PPO003",
                    f"`{self.written(t)}` may be the runtime function ({', '.join(t.names)}) through "
                    f"{t.uncertain}; not rewritten",
                )
            elif t.verdict is Verdict.AMBIGUOUS:
                d = self._diagnostic(
                    t,
                    "PPO003",
                    f"`{self.written(t)}` may or may not be the runtime function: it is bound to "
                    + " or ".join(n if "." in n else self._other_binding(t.call, n) for n in t.names)
                    + "; not rewritten",
                )
            else:
                d = self._through_getattr_hook(t) or self._configless(t)
            if d is None or not settings.rule_enabled(d.code):
                continue
            if d.code == "PPO004" and not show_shims:
                continue
            out.append(d)
        if settings.rule_enabled("PPO006"):
            out.extend(self._references())
        if out:
            out = self._unsuppressed(out)
        out.sort(key=Diagnostic.sort_key)
        return out

    def _through_getattr_hook(self, t: TargetCall) -> Diagnostic | None:
        """PPO003 for a call read through a module of the run whose module ``__getattr__``
        cannot be read (trial 26g: ``import pkg; pkg.get_ppo_ray_runtime_env()`` where
        ``pkg/__init__.py`` says ``def __getattr__(name): return getattr(_backend(), name)``):
        what the hook returns at run time may or may not be the runtime function, and which
        definition it is cannot be told; never rewritten (no fix, safe or unsafe). The run's
        reference index names such names (:attr:`ppo_migrate.project.references.References.getattr_hooks`,
        :func:`ppo_migrate.rules.reexports.getattr_hooks`); ``None`` for any other call."""
        hooks = current_references().getattr_hooks
        if not hooks:
            return None
        hooked = [(name, hooks[name]) for name in t.names if name in hooks]
        if not hooked:
            return None
        name, (path, line) = hooked[0]
        shown = display_path(path)
        served = (
            f"`{name}` is served by the module `__getattr__` at `{shown}:{line}`, which ppo-migrate "
            "cannot read (cannot tell which definition it returns)"
        )
        return self._diagnostic(
            t, "PPO003", f"`{self.spelled(t.call)}` may or may not be the runtime function: {served}; not rewritten",
        )._replace(
            callee=f"whatever the module `__getattr__` at `{shown}:{line}` returns for `{name.rsplit('.', 1)[-1]}`",
            reason=Reason("uncertain-definition", served, (Related(shown, line, 1, "the module `__getattr__`"),)),
        )

    def _other_binding(self, call: ast.Call, name: str) -> str:
        """How PPO003 names a binding of the callee's head ``name`` that is no import of the
        runtime function (:meth:`ppo_migrate.rules.targets.TargetFinder.qualified_names`
        gives such a binding as the bare name): ``a local `make_env``` in a function;
        ``the module-level `make_env = None` (line 5)`` at module level (trial 26h, WRONG:
        a module global set by ``global make_env`` in another function was called "a
        local"), naming each such statement (``def f`` for a function); ``a class attribute
        `x``` in a class body.

        Args:
            call: the target call.
            name: its callee's head, as :meth:`TargetFinder.qualified_names` gives it.
        """
        holder = self.scopes.scope_of(call.func).lookup(name)
        if holder is None:
            return f"an unbound `{name}`"
        if holder.kind is ScopeKind.CLASS:
            return f"a class attribute `{name}`"
        if holder.kind is not ScopeKind.MODULE:
            return f"a local `{name}`"
        parents = self.module.facts.parents
        said: list[str] = []
        for b in self.targets.bindings_in(holder, name):
            if b.qualified is not None or self.targets.alias_value(b.node) is not None:
                continue  # an import or an alias: named by its qualified name
            statement = parents.get(id(b.node)) if isinstance(b.node, ast.Name) else b.node
            if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                text = " ".join(self.module.source_of(statement).split())
                if len(text) > 60:
                    text = text[:57] + "..."
                said.append(f"`{text}` (line {statement.lineno})")
            elif isinstance(b.node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                keyword = "class" if isinstance(b.node, ast.ClassDef) else "def"
                said.append(f"`{keyword} {name}` (line {b.node.lineno})")
            else:
                said.append(f"a binding of `{name}` (line {getattr(b.node, 'lineno', '?')})")
        if not said:
            return f"a module-level `{name}`"
        return "the module-level " + " or ".join(said)

    def _patches_the_function(self):
        """The module's own replacement of the runtime function, or of a module or alias its
        calls go through (:func:`ppo_migrate.rules.patches.own_replacement`: the one
        table of forms; ``mock.patch.multiple(lib, get_...=f)``, ``mock.patch.dict(
        lib.__dict__, {...})``, ``globals()["get_..."] = shim``, ``m.get_... = f``), as a
        :class:`ppo_migrate.rules.patches.Patch`, else ``None``. Its calls may then
        reach a replacement taking no config, so a fix there is unsafe."""
        if self._patched is None:
            self._patched = own_replacement(
                self.module.tree, self.module.text, self.matcher.targets, self.path
            ) or False
        return self._patched or None

    def replacement(self):
        """The replacement of the runtime function, or of a module or alias its calls go
        through, that may reach this module's calls: its own
        (:func:`ppo_migrate.rules.patches.own_replacement`) or another file's among the
        run's (the run's reference index: :attr:`ppo_migrate.project.references.References.target_patches`,
        :func:`ppo_migrate.rules.patches.reaching_patch`).

        Returns:
            A :class:`ppo_migrate.rules.patches.Patch`, or ``None``: none was found
            (or, for other files, none was looked for: standard input, the codemod).
        """
        patch = self._patches_the_function()
        patches = current_references().target_patches
        if patch is None and patches:
            patch = reaching_patch(patches, self.path, self.module.tree)
        return patch

    def _references(self) -> list[Diagnostic]:
        """PPO006: the runtime function used as a value other than a plain alias (issue 15).

        A call through ``make_env = get_ppo_ray_runtime_env`` is a target call (the alias
        is followed, :meth:`TargetFinder.wanted`); introspection (``inspect.signature(f)``,
        ``f.__code__``, ``callable(f)``, comparisons) is no use of the function. Any other
        reference (``functools.partial(f)``, a default ``factory=f``, a callback, a dict
        value) hands the function to code whose calls cannot be checked; so does a
        ``setup.py``'s ``setup(entry_points=...)`` naming it
        (:mod:`ppo_migrate.rules.entry_point_targets`).
        """
        targets, facts = self.targets, self.module.facts
        wanted = targets.wanted()
        candidates: list[ast.expr] = [n for name in wanted for n in facts.loads.get(name, ())]
        candidates += [
            a for a in facts.attributes
            if a.attr in wanted and isinstance(a.ctx, ast.Load) and dotted_parts(a) is not None
        ]
        out: list[Diagnostic] = []
        called: dict[int, ast.Call] | None = None  # id(func) -> its call: the parent of most
        for node in candidates:
            if isinstance(node, ast.Name):
                if targets.constant_of(node) is not None:
                    # ``from pkg.names import FACTORY`` of ``FACTORY = "get_..."``: a string
                    # naming the function (the re-exports' look-out adds it to the targets
                    # so that ``methodcaller(FACTORY)`` is found), not the function itself
                    # (fresh user 40, W3: a PPO006 that stayed after ``apply``)
                    continue
                parent = facts.parents.get(id(node))
            else:
                if called is None:
                    called = {id(c.func): c for c in facts.calls}
                # ``cp.get_...(...)``: its call, found without descending from the module
                parent = called.get(id(node)) or self.module.ancestors(node)[-1]
            how = self._reference_use(node, parent)
            if how is None:
                continue
            if (isinstance(node, ast.Attribute) and targets.constant_of(node) is not None) \
                    or targets.possible_constant(node) is not None:
                # ``names.FACTORY`` of ``FACTORY = "get_..."`` (fresh user 41, W6), or a name
                # holding that string on some paths only (M7): a string naming the function,
                # as the imported name above, whose call is a PPO003 when it is one
                continue
            found = targets.qualified_names(node)
            if found is None or not found[0]:
                continue
            verdict, _ = self.matcher.classify(found[0], self.package)
            if verdict not in (Verdict.TARGET, Verdict.AMBIGUOUS):
                continue
            spelled = " ".join(self.module.source_of(node).split())
            (line, column), (end_line, end_column) = self.module.start(node), self.module.end(node)
            out.append(
                Diagnostic(
                    path=self.path,
                    line=line,
                    column=column,
                    end_line=end_line,
                    end_column=end_column,
                    code="PPO006",
                    message=f"`{spelled}` is {how}; the calls made through it cannot be checked: "
                    "make sure each passes the config",
                    scope=self.scope_name(node),
                )
            )
        out += self._string_references()
        out += self._methodcaller_values()
        if self.path.replace("\\", "/").rsplit("/", 1)[-1] == SETUP_PY:  # trial 26f
            out += entry_point_references(
                setup_py_entry_points(self.module.tree, self.module.text), self.path, self.matcher.targets
            )
        return out

    def _methodcaller_values(self) -> list[Diagnostic]:
        """PPO006: ``operator.methodcaller("get_ppo_ray_runtime_env")`` (by any name bound to
        it: ``mc``, ``op.methodcaller``) made without the config and not applied at once:
        stored (``f = methodcaller(...)``), passed (``map(methodcaller(...), mods)``),
        returned. It calls ``.get_ppo_ray_runtime_env()`` with the arguments given to it on
        whatever it is later applied to, which the tool cannot pin to one call site: a
        finding with no fix, never a rewrite (trial 26h, MISSED). One that passes a config
        (``methodcaller("get_...", config)``) passes it at every call and is not reported;
        one applied at once (``methodcaller("get_...")(cp)``) is a target call
        (:meth:`ppo_migrate.rules.targets.TargetFinder.calls`).

        Source: the :mod:`operator` documentation (``methodcaller(name, /, *args,
        **kwargs)``: ``f(b)`` returns ``b.name(*args, **kwargs)``)."""
        names = self.matcher.names  # memoised per set of targets
        out: list[Diagnostic] = []
        for call in self.module.facts.calls:
            name = methodcaller_name(call, self.targets.constant_of)
            if name is None or name not in names:
                continue
            chain = self.module.ancestors(call)
            parent = chain[-1] if chain else None
            if isinstance(parent, ast.Call) and parent.func is call \
                    and methodcaller_call(parent, self.targets.constant_of) is not None:
                continue  # applied at once: a target call
            found = self.targets.qualified_names(call.func)
            if found is None or found[1] or not found[0] or any(n != "operator.methodcaller" for n in found[0]):
                continue  # not operator's (a parameter, a function of the project's own)
            if configless_kind(ast.Call(func=call.func, args=call.args[1:], keywords=call.keywords)) is None:
                continue  # ``methodcaller("get_...", config)``: each call gets the config
            reason = None
            if isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is call:
                targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
                how = f"stored in `{self.module.source_of(targets[0])}`" if len(targets) == 1 else "stored"
                if len(targets) == 1 and isinstance(targets[0], ast.Name):
                    reason = self._applied_at(targets[0], name)
            else:
                how = self._reference_use(call, parent)
                if how is None:
                    continue  # introspection, the head of an attribute
            spelled = " ".join(self.module.source_of(call).split())
            (line, column), (end_line, end_column) = self.module.start(call), self.module.end(call)
            out.append(Diagnostic(
                path=self.path, line=line, column=column, end_line=end_line, end_column=end_column,
                code="PPO006",
                message=f"`{spelled}` is {how}: it calls `.{name}()` with no config on whatever it is "
                "applied to, and those calls cannot be checked",
                scope=self.scope_name(call),
                help=f"Pass the config inside it (`methodcaller(\"{name}\", config)`) where it is applied "
                "to verl's module, then mark it `# noqa: PPO006`",
                reason=reason,
            ))
        return out

    def _applied_at(self, stored: ast.Name, method: str) -> Reason | None:
        """The calls of this module through the name a ``methodcaller(...)`` is stored in
        (``f = methodcaller(...)`` then ``f(cp)``), as the places of a note: where the
        function is called with no config. Only calls whose name resolves to the scope that
        stored it count; ``None`` when there are none (it is passed on or returned)."""
        holder = self.scopes.scope_of(stored)
        places = []
        for c in self.module.facts.calls:
            if isinstance(c.func, ast.Name) and c.func.id == stored.id \
                    and self.scopes.scope_of(c.func).lookup(stored.id) is holder:
                line, column = self.module.start(c)
                places.append(Related(self.path, line, column, f"calls `.{method}()` with no config"))
        if not places:
            return None
        return Reason("applied-here", f"`{stored.id}` is applied here", tuple(places))

    def _string_references(self) -> list[Diagnostic]:
        """PPO006: the runtime function named by its qualified name in a string that goes to
        Hydra or an importer (``{"_target_": "verl....get_ppo_ray_runtime_env"}``,
        ``dict(_target_=...)``, ``hydra.utils.call("...")``, ``pydoc.locate("...")``:
        :func:`ppo_migrate.rules.hydra_targets.string_reference`). A patcher's string is a
        test double, not one of these. Only a module whose text spells a target's whole
        qualified name is walked for its strings."""
        targets, text = self.matcher.targets, self.module.text
        wanted = spelled_targets(targets, text)
        if not wanted:
            return []
        out: list[Diagnostic] = []

        def callee(func: ast.expr) -> list[str]:
            found = self.targets.qualified_names(func)
            if found is None:
                return []
            return [r for r in (resolve_relative(n, self.package) for n in found[0]) if r]

        stack: list[tuple[ast.AST, ast.AST | None]] = [(self.module.tree, None)]
        while stack:
            parent, above = stack.pop()
            for child in ast.iter_child_nodes(parent):
                if not isinstance(child, ast.Constant):
                    stack.append((child, parent))
                    continue
                if child.value not in wanted:
                    continue
                where = string_reference(child, parent, above, callee)
                if where is None:
                    continue
                (line, column), (end_line, end_column) = self.module.start(child), self.module.end(child)
                out.append(
                    Diagnostic(
                        path=self.path,
                        line=line,
                        column=column,
                        end_line=end_line,
                        end_column=end_column,
                        code="PPO006",
                        message=string_message(child.value, where),
                        scope=self.scope_name(child),
                    )
                )
        return out

    def _reference_use(self, node: ast.expr, parent: ast.AST | None) -> str | None:
        """How a reference to the runtime function uses it, or ``None`` when it is a call,
        part of a longer dotted name, a plain alias, introspection, or a ``del``."""
        if isinstance(getattr(node, "ctx", None), ast.Del):  # ``del get_...``: no use of it
            return None
        if isinstance(parent, ast.Call):
            if parent.func is node:
                return None
            callee = " ".join(self.module.source_of(parent.func).split())
            if callee.rsplit(".", 1)[-1] in _INTROSPECTION:
                return None
            if self._static_alias(node, parent):
                return None  # ``make = staticmethod(f)`` in a class body: its calls are followed
            if parent.args[:1] == [node] and any(r.swapped for r in call_replacements(parent)):
                # ``setattr(f, "__code__", g.__code__)``: a write to the function, as
                # ``f.__code__ = ...`` is (a replacement: :func:`ppo_migrate.rules.patches._swapped`)
                return None
            return f"passed to `{callee}(...)`"
        if isinstance(parent, ast.Attribute):  # ``f.__code__`` / the head of ``c.f``
            return None
        if isinstance(parent, ast.Compare):
            return None
        if isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is node:
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name):
                scope = self.scopes.scope_of(node)
                if scope.kind is ScopeKind.CLASS:
                    holder = _field_holder(scope.node, parent)
                    if holder is not None:  # trial 26g: no ``self`` is passed to a field's value
                        return (
                            f"the default of a {holder} field (an instance's field holds the function "
                            "itself: calls through it pass no `self`)"
                        )
                    return "stored as a class attribute (called as a method, it gets `self`)"
                return None  # a plain alias: its calls are followed
            return "stored in a container or attribute"
        if isinstance(parent, ast.Dict):
            return "stored in a dict"
        if isinstance(parent, (ast.List, ast.Tuple, ast.Set)):
            return "stored in a collection"
        if isinstance(parent, ast.arguments):
            return "a default argument"
        if isinstance(parent, ast.keyword):
            return f"passed as `{parent.arg}=`" if parent.arg else "passed in `**kwargs`"
        if isinstance(parent, (ast.Return, ast.Yield)):
            return "returned as a value"
        return "used as a value"

    def _static_alias(self, node: ast.expr, call: ast.Call) -> bool:
        """Whether ``call`` is ``staticmethod(node)`` bound to a name by a class body's plain
        assignment (``make = staticmethod(get_...)``): the calls read through it
        (``Launcher.make()``, ``self.make()``) are target calls
        (:meth:`ppo_migrate.rules.targets.TargetFinder.held_by_class`)."""
        if not (isinstance(call.func, ast.Name) and call.func.id == "staticmethod" and call.args == [node]
                and not call.keywords):
            return False
        scope = self.scopes.scope_of(call)
        if scope.kind is not ScopeKind.CLASS or scope.lookup("staticmethod") is not None:
            return False
        chain = self.module.ancestors(call)
        statement = chain[-1] if chain else None
        if isinstance(statement, ast.Assign):
            return len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)
        return isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)

    def written(self, t: TargetCall) -> str:
        """How a message quotes the target call ``t``: ``callee()`` (``cp.get_...()``), or for
        ``methodcaller("get_...")(cp)`` the call as written (:meth:`spelled`: a fresh user's
        try, trial 26h, found ``cp.get_ppo_ray_runtime_env()`` quoted for it, which is
        nowhere in the source)."""
        if isinstance(t.call.func, ast.Call) and methodcaller_call(t.call, self.targets.constant_of) is not None:
            return self.spelled(t.call)
        if t.uncertain is not None and isinstance(t.call.func, ast.Call) \
                and (self.targets.qualified_names(t.call.func.func) or ([], True))[0] == ["operator.methodcaller"]:
            return self.spelled(t.call)  # ``methodcaller(NAME)(*[cp])`` (fresh user 41, M7)
        return f"{t.callee}()"

    def spelled(self, call: ast.Call) -> str:
        """The call as written, on one line (comments left out; runs of whitespace,
        newlines included, become one space; none after ``(`` or before ``)``):
        ``get_ppo_ray_runtime_env(None)``."""
        text = self.module.source_of(call)
        if "#" in text:
            text = _without_comments(text)
        one_line = " ".join(text.split())
        return one_line.replace("( ", "(").replace(" )", ")")

    def _remedy(self, remedy: str) -> str:
        """PPO005's remedy, without advising ``--use-ppo-runtime`` to a run that uses it.

        With the flag, a call still bound to verl's definition is one the import move
        left alone: say why (``ppo_runtime`` is taken in this module) instead.
        """
        if not getattr(self.settings, "use_ppo_runtime", False) or not remedy.endswith(_RUN_WITH_FLAG):
            return remedy
        head = remedy[: -len(_RUN_WITH_FLAG)]
        if self._ppo_runtime_taken():
            why = (
                "`ppo_runtime` is bound to something else in this module, so the import "
                "cannot be moved (rename that binding to let --use-ppo-runtime move it)"
            )
        else:
            why = "--use-ppo-runtime does not move the import this call uses"
        return f"{head}; {why}"

    def _ppo_runtime_taken(self) -> bool:
        """Whether ``--use-ppo-runtime`` refuses this module's ``<verl module>.<function>``
        references because the name ``ppo_runtime`` means something else in it
        (:meth:`ppo_migrate.rules.names.ModuleNames.binds_only_package`, as the move asks)."""
        names = ModuleNames(self.module.text, self.path, self.package, module=self.module)
        if names.binds_only_package(_PPO_RUNTIME):
            return False
        verl = [t for t in self.settings.targets if t.startswith("verl.")]
        return bool(verl and names.attribute_references(verl, _FUNCTION))

    def _configless(self, t: TargetCall) -> Diagnostic | None:
        shim = self._shims().why(t.call) if self._may_hold_shims else None
        if shim is not None:
            return self._diagnostic(
                t, "PPO004", f"`{self.written(t)}` is a compatibility shim ({shim}); left as it is"
            )
        # issue 12: the definition the call binds to decides whether a config may be passed
        in_effect = self.in_effect(t.names)
        if not in_effect.accepts_config:
            remedy = in_effect.remedy
            if (t.held is not None and t.held.rest or isinstance(t.call.func, ast.Call)
                    and methodcaller_call(t.call, self.targets.constant_of) is not None) \
                    and remedy.endswith(_RUN_WITH_FLAG) \
                    and not getattr(self.settings, "use_ppo_runtime", False):
                # ``Env.cp.get_...()``: the import move leaves a module read through a class
                # attribute alone (its calls may reach what a test puts there); nor does it
                # rewrite ``methodcaller("get_...")(cp)`` (trial 26f)
                remedy = remedy[: -len(_RUN_WITH_FLAG)]
            return self._diagnostic(
                t,
                "PPO005",
                f"`{self.spelled(t.call)}`{NOTICE_SEPARATOR}{in_effect.reason}; "
                f"{self._remedy(remedy)}",
            )._replace(callee=in_effect.detail, reason=in_effect.why)
        choice = self.config_at(t.call)
        if not self.settings.rule_enabled("PPO002" if choice is None else "PPO001"):
            # the finding is dropped (:meth:`diagnostics`): nothing below can change that,
            # so its reasons and the replacements of the function are not looked for
            # (the judgement above is kept: the caller index asks it again)
            return None
        if choice is None:
            scope = self.scope_name(t.call)
            where = "at module level" if scope == "<module>" else f"in `{scope}`"
            rejected = self.configs.reason(t.call)  # issue 27: the evidence against a candidate
            against = f" ({rejected.text})" if rejected is not None else ""
            reason = None
            if self.configs.rejected:  # each rejected candidate and its evidence, by line
                reason = rejection_reason(self.configs, self.configs.rejected, t.call, self.path)
            if reason is None:
                reason = rejected
            known = "no training config is in scope"
            if rejected is not None and rejected.text.endswith(CANNOT_TELL):
                known = "no config it can read is in scope"  # trial 26g: YAML text not read
            return self._diagnostic(
                t,
                "PPO002",
                f"`{self.spelled(t.call)}` called without a config and {known} "
                f"{where}{against}; this entry point must obtain the training config and pass it",
            )._replace(
                callee=in_effect.detail,
                # issue 26: a callee not known to take a config is the reason that matters (and
                # the one --thread-config reads): no candidate's evidence changes it
                reason=reason if in_effect.certain else in_effect.why,
            )
        expression = choice.expression
        applicability = choice.applicability
        message = f"`{self.spelled(t.call)}` called without the config in scope; pass `{expression}`"
        evidence = self.configs.reason(t.call, expression)
        reason = evidence
        if evidence is not None and evidence.kind == "conflicting-evidence":
            applicability = "unsafe"  # issue 27: evidence for and against, or an uncomposable file
            message += f" (unsafe fix: {evidence.text})"
        elif evidence is not None and evidence.kind == "unknown-value" and choice.why is not None:
            # trial 27: a maker whose content cannot be read; bound only on some paths, the
            # possibly-bound reason stays the finding's (the message names both)
            message += f" (unsafe fix: {evidence.text})"
            if choice.why.state != "weak":
                reason = unsafe_reason(self.configs, choice.why, t.call, self.path)
        elif choice.why is not None:
            reason = unsafe_reason(self.configs, choice.why, t.call, self.path)
        patch = self._patches_the_function()
        patches = current_references().target_patches if patch is None and applicability == "safe" else None
        if patches:  # another file's (a test's) replacement
            patch = reaching_patch(patches, self.path, self.module.tree)
        if patch is not None:
            # a test or a shim replaces the function (mock.patch, setattr, sys.modules, a
            # module alias swapped): the callable at the call may take no config at all
            if applicability == "safe" or reason is None:
                reason = patch_reason(patch)  # the patch is what makes this fix unsafe
            applicability = "unsafe"
            message += f" (unsafe fix: {patch.reason()})"
        if t.held is not None:
            rebound = self._held_rebound(t)
            if rebound is not None:
                # issue 26, family 6: read through a class attribute something may rebind
                if applicability == "safe" or reason is None:
                    reason = rebound
                applicability = "unsafe"
                message += f" (unsafe fix: {rebound.short()})"
        gate = self._shims().version_gate(t.call) if self._may_read_versions else None
        default = getattr_default(t.call.func)
        for found in (
            # trial 26f: ``if version("verl") >= "0.9": f(config)`` then ``f()``: the branch may
            # be the code's own path for an older verl, where a config raises TypeError
            self._place_reason(
                gate, "version-gated",
                "the call is in a branch chosen by a test of verl's version: on a verl before "
                "0.9 it may be the branch that runs, and passing a config there raises TypeError",
                "`{}` tests verl's version",
            ) if gate is not None else None,
            # ``getattr(cp, "get_...", lambda: {})()`` (trial 26f): where the module lacks
            # the function, the default is called with the config
            self._place_reason(
                default, "getattr-default",
                "`getattr`'s default is called instead where the module lacks the function, "
                "and it may take no config",
                "the default `{}`",
            ) if default is not None and not _takes_one_positional(default) else None,
        ):
            if found is not None:
                if applicability == "safe" or reason is None:
                    reason = found
                applicability = "unsafe"
                message += f" (unsafe fix: {found.short()})"
        if not in_effect.certain and applicability == "safe":
            # issue 26, family 3: nothing says which verl runs, the config may not be accepted
            applicability = "unsafe"
            message += f" (unsafe fix: {in_effect.reason}; {in_effect.remedy})"
            reason = in_effect.why
        fix = Fix(
            message=f"Pass `{expression}`",
            edits=(self._edit(t, expression),),
            applicability=applicability,
            origins=choice.origins if applicability == "safe" else (),
        )
        return self._diagnostic(t, "PPO001", message, fix)._replace(
            callee=in_effect.detail, reason=reason
        )

    def in_effect(self, names: tuple[str, ...]) -> CalleeInEffect:
        """The definition in effect for a call of this module whose callee may be any of
        ``names`` (:func:`ppo_migrate.rules.signatures.callee_signature`, the run's
        re-exports read as their targets), kept per tuple of names: it depends only on the
        module's folder, the names and the run, so the module's calls that import the same
        names from the same place are answered once.

        Args:
            names: the callee's absolute qualified names (:attr:`TargetCall.names`).
        """
        reexports = current_references().reexports  # replaced, never changed, in a run
        known = self._in_effect.get(names)
        if known is None or known[0] is not reexports:
            known = self._in_effect[names] = (
                reexports, callee_signature(self.path, names, self.settings, reexports=reexports)
            )
        return known[1]

    def _place_reason(self, node: ast.expr, kind: str, text: str, place: str) -> Reason:
        """A :class:`Reason` of ``kind`` saying ``text``, naming ``node``'s place in this
        module (``place`` formatted with its source on one line, cut at 60 characters)."""
        line, column = self.module.start(node)
        spelled = " ".join(self.module.source_of(node).split())
        if len(spelled) > 60:
            spelled = spelled[:57] + "..."
        return Reason(kind, text, (Related(self.path, line, column, place.format(spelled)),))

    def _held_rebound(self, t: TargetCall) -> Reason | None:
        """Why a call read through a class attribute (``Env.cp.f()``, ``self.cp.f()``,
        ``Env.make()``: :attr:`TargetCall.held`) may reach another object than the one the
        class body binds, as a :class:`Reason` of kind ``"rebound"`` naming the first place
        (:meth:`ppo_migrate.rules.targets.TargetFinder.held_rebindings`), else ``None``.
        Another file's replacement of it is the run's look-out's
        (:meth:`replacement`)."""
        held = t.held
        assert held is not None
        found = self.targets.held_rebindings(held, PATCHERS)
        if not found:
            return None
        parts = callee_parts(t.call.func) or [held.owner.name]
        spelled = f"{parts[0]}.{held.attribute}"  # ``Env.cp``, ``self.cp``, ``this.cp``
        text = f"`{spelled}` may be rebound to an object whose function takes no config"
        places = []
        for node, what in found:
            line, column = self.module.start(node)
            places.append(Related(self.path, line, column, what))
        return Reason("rebound", text, tuple(places))

    def _shims(self):
        """The module's :class:`ppo_migrate.rules.shims.ShimDetector`, built on first need
        and kept: it remembers what it learnt of each scope's bindings."""
        if self._shim_detector is None:
            self._shim_detector = self._make_shims()
        return self._shim_detector

    def _make_shims(self):
        targets = self.matcher.targets

        def qualified(expr: ast.expr) -> set[str]:
            if isinstance(expr, ast.Call):  # ``methodcaller("f")`` applied to ``x``: ``x.f`` (trial 26f)
                chain = self.module.ancestors(expr)
                outer = chain[-1] if chain else None
                called = methodcaller_call(outer, self.targets.constant_of) \
                    if isinstance(outer, ast.Call) and outer.func is expr else None
                getter = self.targets.qualified_names(expr.func) if called is not None else None
                if getter is None or getter[1] or any(n != "operator.methodcaller" for n in getter[0]):
                    return set()  # trial 26h: any name may be operator's; only its qualified name says
                return {f"{n}.{called[2]}" for n in qualified(called[1])}
            found = self.targets.qualified_names(expr)
            if found is None:
                return set()
            out = set()
            for n in found[0]:
                r = resolve_relative(n, self.package)
                if r is not None:
                    out.add(r)
            return out

        text = self.module.text
        # a test can only be decided through ``inspect.signature``/``getfullargspec``/
        # ``getargspec`` or ``__code__``: qualified names are made of the text's identifiers
        # (NFKC-normalised: any non-ASCII text may spell them) and the package's parts
        may_probe = (
            "inspect" in text or "__code__" in text or not text.isascii()
            or "inspect" in self.package
        )
        return ShimDetector(
            self.module.ancestors,
            qualified,
            lambda names: bool(names) and names <= targets,
            lambda call: configless_kind(passed_arguments(call, self.targets.constant_of)) is not None,
            may_probe=may_probe,
        )

    def _diagnostic(
        self, t: TargetCall, code: str, message: str, fix: Fix | None = None
    ) -> Diagnostic:
        (line, column), (end_line, end_column) = self.module.start(t.call), self.module.end(t.call)
        return Diagnostic(
            path=self.path,
            line=line,
            column=column,
            end_line=end_line,
            end_column=end_column,
            code=code,
            message=message,
            scope=self.scope_name(t.call),
            fix=fix,
        )

    def _edit(self, t: TargetCall, expression: str) -> Edit:
        """The minimal text edit passing ``expression`` (positions in code points); for
        ``methodcaller("f")(x)`` inside ``methodcaller(...)``, after the name."""
        call, kind, m = t.call, t.kind, self.module
        text = f"{CONFIG_PARAMETER}={expression}" if self.settings.keyword else expression
        called = methodcaller_call(call, self.targets.constant_of) if isinstance(call.func, ast.Call) else None
        if called is not None:  # trial 26f: ``methodcaller("f", config)(x)``
            if kind == "empty":  # after the name and the parentheses around it
                end_line, end_column = m.end(called[0])
                line, column = _after_closing_parens(m.lines, m.end(called[0].args[0]), (end_line, end_column - 1))
                return Edit(f", {text}", line, column, line, column)
            call = passed_arguments(call, self.targets.constant_of)
        if kind == "empty":
            line, column = m.end(call)  # just after ``)``: insert before it
            return Edit(text, line, column - 1, line, column - 1)
        if kind == "unpacked":  # ``f(*(), **{})``: the unpackings give way to the config
            first = call.args[0] if call.args else call.keywords[0]
            last = call.keywords[-1] if call.keywords else call.args[-1]
            (line, column), (end_line, end_column) = m.start(first), m.end(last)
            if "#" in "".join(m.lines[line - 1:end_line]):  # a comment may sit among them:
                return Edit(f"{text}, ", line, column, line, column)  # kept, config put first
            return Edit(text, line, column, end_line, end_column)
        if kind == "keywords":
            line, column = m.start(call.keywords[0])
            return Edit(f"{text}, ", line, column, line, column)
        if kind == "none":
            value = call.args[0]
        else:
            value = next(k.value for k in call.keywords if k.arg == CONFIG_PARAMETER)
            text = expression
        (line, column), (end_line, end_column) = m.start(value), m.end(value)
        return Edit(text, line, column, end_line, end_column)

    def _unsuppressed(self, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
        """Drop the findings a ``# noqa`` comment (a real one, not text in a string) covers."""
        lines = self.module.lines
        if not any(
            "noqa" in lines[n - 1].lower()
            for d in diagnostics
            for n in {d.line, d.end_line}
            if 0 < n <= len(lines)
        ):
            return diagnostics
        _, comments = comment_lines(self.module.text)
        per_line = [comments[i][1] if i in comments else "" for i in range(1, len(lines) + 1)]
        return [d for d in diagnostics if not is_suppressed(d, per_line)]


def _after_closing_parens(lines: list[str], start: tuple[int, int], stop: tuple[int, int]) -> tuple[int, int]:
    """The position just after the closing parentheses that follow ``start`` before ``stop``
    (``(line, column)``, 1-based, code points; ``stop`` excluded), across blanks, comments
    and line continuations; ``start`` when none does. ``methodcaller(("f"))(x)``: the name's
    node ends before its own ``)``, and the config goes after it (a fresh user's try:
    ``methodcaller(("f", config))`` passed a tuple as the name)."""
    line, column = start
    best = start
    while (line, column) < stop and line <= len(lines):
        text = lines[line - 1].rstrip("\r\n")
        if column > len(text) or text[column - 1] == "#":
            line, column = line + 1, 1
        elif text[column - 1] in " \t\f\\":
            column += 1
        elif text[column - 1] == ")":
            column += 1
            best = (line, column)
        else:
            break
    return best


#: Calls that look at a function without calling it (a reference passed to them is no use).
_INTROSPECTION = frozenset({
    "signature", "getfullargspec", "getargspec", "getsource", "getmodule", "getfile",
    "callable", "id", "isinstance", "hasattr", "getattr", "repr", "str", "print", "isfunction",
})

#: How PPO005's remedies (:mod:`ppo_migrate.rules.signatures`) end when the import move
#: to ``ppo_runtime`` would give the call a function that takes a config.
_RUN_WITH_FLAG = ", or run with --use-ppo-runtime"
#: The package and function ``--use-ppo-runtime`` moves imports to (as
#: :mod:`ppo_migrate.edits.imports` names them; not imported from there: it needs LibCST).
_PPO_RUNTIME = "ppo_runtime"
_FUNCTION = "get_ppo_ray_runtime_env"


def _field_holder(cls: ast.AST, stmt: ast.AST) -> str | None:
    """``"NamedTuple"`` or ``"dataclass"`` when the class body statement ``stmt`` declares a
    field of the class ``cls`` (an annotated assignment, not a ``ClassVar``, in a class
    deriving ``NamedTuple`` or decorated ``@dataclass``/``@dataclasses.dataclass(...)``),
    else ``None``. A NamedTuple field is a tuple item read through a property and a
    dataclass field's default is set on each instance (Python's ``typing.NamedTuple`` and
    ``dataclasses`` documentation): ``Hooks().make_env()`` calls the function with no
    ``self`` (trial 26g, ``i6_namedtuple_field_default``; trial 26f, W4, the dataclass twin).
    """
    if not isinstance(cls, ast.ClassDef) or not isinstance(stmt, ast.AnnAssign):
        return None
    annotation = stmt.annotation
    if isinstance(annotation, ast.Subscript):
        annotation = annotation.value
    if getattr(annotation, "id", getattr(annotation, "attr", None)) == "ClassVar":
        return None

    def last(node: ast.AST) -> str | None:
        if isinstance(node, ast.Call):
            node = node.func
        return getattr(node, "id", getattr(node, "attr", None))

    if any(last(base) == "NamedTuple" for base in cls.bases):
        return "NamedTuple"
    if any(last(d) == "dataclass" for d in cls.decorator_list):
        return "dataclass"
    return None


def _without_comments(text: str) -> str:
    """``text`` (a call's source) with its comments blanked out (:mod:`tokenize` tells a
    comment from a ``#`` in a string); ``text`` itself where it does not tokenize."""
    import io
    import tokenize

    lines = text.splitlines(keepends=True)
    try:
        comments = [
            t for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type == tokenize.COMMENT
        ]
    except (tokenize.TokenError, SyntaxError):
        return text
    for t in reversed(comments):
        row, start = t.start
        line = lines[row - 1]
        lines[row - 1] = line[:start] + line[t.end[1]:]
    return "".join(lines)


def _takes_one_positional(value: ast.expr) -> bool:
    """Whether ``value`` is a ``lambda`` that accepts one positional argument (a parameter
    without a default to fill, or ``*args``): ``lambda *a: {}``, ``lambda config=None: {}``;
    or ``None``, whose call fails with or without a config."""
    if isinstance(value, ast.Constant) and value.value is None:
        return True
    if not isinstance(value, ast.Lambda):
        return False
    a = value.args
    return a.vararg is not None or bool(a.posonlyargs or a.args)


__all__ = ["ModuleAnalysis", "SourceProblem", "analyse"]


