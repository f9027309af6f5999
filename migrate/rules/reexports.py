"""The project's own re-exports of the runtime function: more names for the same target.

``pkg/__init__.py`` holding ``from verl.trainer.constants_ppo import get_ppo_ray_runtime_env``
makes ``import pkg; pkg.get_ppo_ray_runtime_env()`` a call of verl's function; so does
``from pkg.util import make_env; make_env()`` when ``pkg/util.py`` says ``make_env =
get_ppo_ray_runtime_env`` (issue 26, family 6: ``check`` said "All checks passed!" on such
calls). A module of the run that binds a target at module level, and that another module of
the run imports, is itself a source of target names: :func:`project_reexports` finds them,
to the fixed point (a re-export of a re-export), and the runner adds them to the targets,
each mapped to the target it stands for (the definition in effect is that target's:
:func:`ppo_migrate.rules.signatures.callee_signature`).
"""

from __future__ import annotations

import ast
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from ppo_migrate.prefilter import STAR_IMPORT as _STAR_IMPORT
from ppo_migrate.rules.patches import import_words, imported_modules, parse_file
from ppo_migrate.rules.targets import forwarded_callee, possible_in, string_constants, top_level_imports
from ppo_migrate.project.references import shadowed_by_package
from ppo_migrate.project.snapshot import current
from ppo_migrate.project.modules import module_name, module_names, resolve_relative

#: the run's memo of each file's :func:`module_name` (path -> name;
#: :meth:`ppo_migrate.project.snapshot.Snapshot.memo`): :func:`project_reexports` makes
#: the names of every module it reads, and the caller records and the caller phase ask
#: the same files' again (:func:`ppo_migrate.rules.callers.run_module_name`)
MODULE_NAMES = "ppo_migrate.rules.reexports.module_names"


def project_reexports(
    datas: Mapping[str, bytes], read_more, targets: Iterable[str], *, rounds: int = 4,
    imports: Mapping[str, frozenset[bytes]] | None = None, loaded: Iterable[str] = (),
    hooks: dict[str, tuple[str, int]] | None = None,
) -> dict[str, str]:
    """The run's re-exports of ``targets``.

    Args:
        datas: path -> bytes of the files known to name a target (the prefilter's
            candidates); more are read through ``read_more`` when an alias brings a new
            name (``make_env``).
        read_more: ``read_more(words) -> Mapping[path, bytes]``: the other files of the
            run spelling one of ``words`` (bytes): the run's reference index answers it
            (:meth:`ppo_migrate.project.references.References.spelling`).
        targets: the targets' qualified names.
        rounds: how many re-exports of re-exports are followed at most.
        imports: the words of the import statements of every file of the run (path ->
            set of bytes: :func:`ppo_migrate.rules.patches.import_words`); a file is parsed only when its module may
            be imported by another or may import another (``None``: every file of
            ``datas`` and of ``read_more`` is parsed).
        loaded: modules that files of the run other than Python ones load by name (a
            Hydra ``_target_``'s module: :func:`ppo_migrate.rules.hydra_targets.loaded_modules`):
            a re-export in one of them counts as imported.
        hooks: when given, filled with the names a module of the run may serve through a
            module ``__getattr__`` that is no literal lazy-import table (:func:`getattr_hooks`):
            name -> (the module's file, the hook's line); each such name is in the answer
            too, mapped to the target it may be, so that its calls are found (and reported
            PPO003: :meth:`ppo_migrate.rules.check.ModuleAnalysis.diagnostics`).

    Returns:
        ``{"pkg.get_ppo_ray_runtime_env": "verl.trainer.constants_ppo.get_ppo_ray_runtime_env",
        "pkg.util.make_env": ...}``: a name bound at module level of a module of the run
        (not one of the targets' own packages) to a target, and imported by another module
        of the run.
    """
    targets = tuple(targets)
    known: dict[str, str] = {t: t for t in targets}
    # ``known`` indexed by owner module: ``{"verl.trainer.constants_ppo": {"get_...": target}}``;
    # each binding asks for its own module's names, not a scan of every name known (that
    # scan was 0.6 s of a ``check`` on item 10's 600-file chain, quadratic in the run)
    by_owner: dict[str, dict[str, str]] = {}
    for qualified, target in known.items():
        owner, _, last = qualified.rpartition(".")
        by_owner.setdefault(owner, {})[last] = target
    # the last names of ``known``: a module's string constant counts only when its string
    # is one of them, and only then is the constant checked to be bound once (a walk of
    # the whole module: :func:`ppo_migrate.rules.targets.string_constants`)
    lasts = {qualified.rsplit(".", 1)[-1] for qualified in known}
    constants: dict[str, dict[str, str]] = {}  # path -> its module's checked string constants
    tops = {t.split(".", 1)[0] for t in targets}
    files: dict[str, bytes] = dict(datas)
    parsed: dict[str, tuple[str, dict[str, str], set[str]] | None] = {}
    trees: dict[str, ast.Module] = {}  # path -> its tree, for its string constants' check
    roots: dict = {}  # the roots of the modules' files (``Path``) -> their spellings
    own_names = current().memo(MODULE_NAMES)  # path -> :func:`module_name`, for the run
    words = {t.rsplit(".", 1)[-1] for t in targets}
    found: dict[str, str] = {}
    exporter: dict[str, str] = {}  # found name -> the module whose binding re-exports it
    # A re-export counts only where a module of the run imports another one, so a file is
    # parsed only when its module's last name is spelled in another file's import
    # statement (it may re-export) or its own imports spell another file's (it may use a
    # re-export): bytes decide, as the index's :meth:`ppo_migrate.project.references.References.importers` does. 200 trainer modules that
    # import only verl were all parsed here, in the parent, before the pool's workers.
    if imports is not None:
        last_names = {p: _last_name(p) for p in imports}  # each file's once
        by_last = Counter(last_names.values())
        by_word = Counter(w for words_ in imports.values() for w in words_)
        by_word.update({part.encode() for m in loaded for part in m.split(".")})
    # a module holding a target may itself be re-exported (``from verl.trainer import
    # constants_ppo as cp`` in ``pkg/_compat.py``), in a file never naming the function
    module_words = {t.rsplit(".", 1)[0].rsplit(".", 1)[-1].encode() for t in targets if "." in t}
    # what each file's bindings looked up in the last round (``depends``: path -> keys) and
    # what that round added (``added``): a file none of whose keys changed finds nothing new
    # in the next round and is not gone over again (every module of item 10's 600-module
    # chain binds the function: all of them were gone over twice, the second time for nothing)
    depends: dict[str, frozenset[str]] = {}
    added: set[str] = set()
    for _ in range(rounds):
        changed = False
        encoded = [w.encode() for w in words] + sorted(module_words)
        settled = {p: keys for p, keys in depends.items() if added.isdisjoint(keys)}
        depends = {}
        added = set()
        for path, data in files.items():
            if path in settled:  # none of its keys changed: it finds what it found
                depends[path] = settled[path]
                continue
            if not any(w in data for w in encoded) and STAR_IMPORT not in data:
                continue
            if (
                imports is not None
                and path not in parsed
                and path in imports
                and not _may_take_part(last_names[path], imports[path], by_last, by_word)
            ):
                continue
            if path not in parsed:
                if shadowed_by_package(path):  # ``pkg/env.py`` beside ``pkg/env/__init__.py``
                    parsed[path] = None  # never imported: its names are the package's
                    continue
                tree = parse_file(path, data)
                if tree is None:
                    parsed[path] = None
                    continue
                # a module in a namespace folder (no ``__init__.py``, PEP 420) has a name
                # under each folder up to the root: ``myproj/env.py`` is ``myproj.env`` to
                # ``train.py`` at the root (trial 26c's MISSED); the last is the root's
                # without a root (no git, no project marker) nothing bounds the namespace
                # folders: the module's own name only, as before (a fixture tree run from
                # its folder once lost its re-export to ``tmp.<...>.pkg.env``)
                root = current().root_of(path)
                if root is not None:  # the run's one root: spelled once, not once a file
                    root = roots.get(root) or roots.setdefault(root, os.fspath(root))
                names = module_names(path, root) if root is not None else (module_name(path),)
                # the first is the module's own name: kept for the run's other askers
                # (each file's caller record, the caller phase: :func:`run_module_name`)
                own_names.setdefault(path, names[0])
                module = names[-1]
                package = tuple(module.split("."))
                if os.path.basename(path) != "__init__.py":
                    package = package[:-1]
                parsed[path] = (names, *_module_bindings(tree, package, module, data))
                trees[path] = tree
                if b"import_module" in data or b"__import__" in data:
                    parsed[path][2].update(_loaded_by_name(tree))
            entry = parsed[path]
            if entry is None:
                continue
            names, bound, _ = entry
            if names[-1].split(".", 1)[0] in tops:
                # verl itself, as a regular package or a namespace one under the root
                # (``verl/trainer/`` without ``__init__.py``): its own modules are not the
                # project's re-exports
                depends[path] = frozenset()
                continue
            depends[path] = _looked_up(bound)
            for name, fq in bound.items():
                if name.startswith(UNBOUND):
                    continue
                members = list(by_owner.get(fq, {}).items())  # the names known in ``fq``
                if name.startswith(CONSTANT):
                    # ``RAY_ENV_FN = "get_..."`` (trial 26e, M3): a file importing it may call
                    # ``getattr(cp, RAY_ENV_FN)()`` without spelling the function's name; the
                    # name joins the targets (the prefilter's words) standing for a target
                    # of that last name. ``TargetFinder`` never takes a call of the string
                    # itself for one (:meth:`ppo_migrate.rules.targets.TargetFinder.classify`)
                    same = sorted(t for q, t in known.items() if q.rsplit(".", 1)[-1] == fq) if fq in lasts else []
                    if same:  # the statement may not be the name's one binding
                        if path not in constants:
                            constants[path] = string_constants(trees[path])
                        if constants[path].get(name[len(CONSTANT):]) != fq \
                                and possible_in(trees[path], name[len(CONSTANT):], (fq,), path) is None:
                            # not its one binding, nor one that may hold it on some paths
                            # only (fresh user 41, M7: ``FACTORY`` rebound under an ``if``:
                            # ``methodcaller(FACTORY)(cp)`` in the importer, a PPO003, was
                            # never analysed); the importers take such a name for no string
                            # (:meth:`ppo_migrate.rules.targets.TargetFinder.possible_constant`)
                            same = []
                    pairs = [(name[len(CONSTANT):], same[0])] if same else []
                elif name.startswith("*"):  # a star import: every public name of it known so far
                    pairs = [
                        (last, target)
                        for last, target in members
                        if not last.startswith("_") and UNBOUND + last not in bound
                    ]
                else:
                    pairs = [(name, known.get(fq))]
                    # a module re-exported (``from verl.trainer import constants_ppo as
                    # cp`` in ``pkg/_compat.py``): ``from pkg._compat import cp;
                    # cp.get_...()`` calls each function of it
                    pairs += [(f"{name}.{last}", target) for last, target in members]
                for last, target in pairs:
                    for module in names:  # each name the module is imported under
                        qualified = f"{module}.{last}"
                        if target is not None and qualified not in known:
                            known[qualified] = target
                            lasts.add(qualified.rsplit(".", 1)[-1])
                            found[qualified] = target
                            exporter[qualified] = module
                            owner, _, tail = qualified.rpartition(".")
                            by_owner.setdefault(owner, {})[tail] = target
                            added.update((qualified, owner, CONSTANT + tail))
                            changed = True
        if not changed:
            break
        new_words = {n.rsplit(".", 1)[-1] for n in found} - words
        if new_words:
            words |= new_words
            for path, data in read_more([w.encode() for w in new_words]).items():
                files.setdefault(path, data)
    opaque: dict[str, str] = {}
    if hooks is not None:
        candidates = list(imports) if imports is not None else list(files)
        unread, forwarded = getattr_hooks(trees, parsed, candidates, known, words, tops)
        for qualified, where in unread.items():
            hooks[qualified] = where
            last = qualified.rsplit(".", 1)[-1]
            opaque[qualified] = min(t for q, t in known.items() if q.rsplit(".", 1)[-1] == last)
        opaque.update(forwarded)  # ``getattr(cp, name)`` of verl's module: a plain re-export
    if not found:
        return opaque
    # kept when another module of the run imports the re-exporting module
    imported = set()
    for path, entry in parsed.items():
        if entry is not None:
            imported.update((entry[0][-1], m) for m in entry[2])
    used = {m for owner, m in imported if owner != m}
    used.update(loaded)
    # the re-exporting module imported, whatever the name's depth in it: ``import pkg.deps;
    # pkg.deps.cp.get_...()`` goes through ``pkg.deps``'s module alias ``cp`` (trial 26b)
    kept = {name: t for name, t in found.items() if exporter[name] in used}
    kept.update(opaque)
    return kept


def _looked_up(bound: Mapping[str, str]) -> frozenset[str]:
    """The keys of :func:`project_reexports`' tables that a module's bindings ``bound``
    (:func:`_module_bindings`) look up: the qualified name each binds (``known``, and the
    module's own names in ``by_owner`` for a module bound: ``cp.get_...``), a star
    import's base (``by_owner``), and ``CONSTANT + string`` for a string constant (the
    known names of that last name). A round that adds none of them (a qualified name, its
    owner, ``CONSTANT`` + its last name) leaves what the module re-exports as it was."""
    keys = set()
    for name, fq in bound.items():
        if name.startswith(UNBOUND):
            continue
        if name.startswith(CONSTANT):
            keys.add(CONSTANT + fq)
        else:  # a star import's ``*base: base``, an alias's or a module's qualified name
            keys.add(fq)
    return frozenset(keys)


def _last_name(path: str) -> bytes:
    """The last name of ``path``'s module: its stem, its folder's for an ``__init__.py``."""
    head, name = os.path.split(path)
    stem = name.rsplit(".", 1)[0]
    # a name that is no identifier (undecodable bytes: ``caf\udcff.py``) is imported by nothing
    return (os.path.basename(head) if stem == "__init__" else stem).encode("utf-8", "surrogateescape")


def _may_take_part(own: bytes, mine: frozenset[bytes], by_last: Counter[bytes], by_word: Counter[bytes]) -> bool:
    """Whether ``path`` (its module's last name ``own``, the words of its import statements
    ``mine``) may re-export (another file's import statement spells ``own``: ``by_word``
    counts the files spelling each word) or import a re-export (``mine`` spells another
    file's last name: ``by_last`` counts the files of each last name)."""
    if by_word[own] - (own in mine) > 0:
        return True
    return any(by_last[w] - (w == own) > 0 for w in mine)


def _module_bindings(
    tree: ast.Module, package: tuple[str, ...], module: str, data: bytes | None = None,
) -> tuple[dict[str, str], set[str]]:
    """``(bound, imports)``: each module-level name bound by an import or a plain alias,
    with the qualified name it stands for (``{"get_...": "verl.trainer.constants_ppo.get_...",
    "make_env": same}``), and every module the tree imports (at any depth). A top-level
    ``NAME = "..."`` is there as ``CONSTANT + name`` with its string
    (:func:`_string_statements`): :func:`project_reexports` checks that it is the name's
    one binding (:func:`ppo_migrate.rules.targets.string_constants`) before it counts.
    ``data``: the bytes ``tree`` was parsed from (its imports are then found without a
    walk where the bytes tell: :func:`ppo_migrate.rules.patches.imported_modules`)."""
    bound: dict[str, str] = {}
    imports: set[str] = set()

    def unbind(name: str) -> None:
        """``name`` deleted or rebound to what no import names after the module's star
        imports: none of them re-exports it (``del get_...`` then a module ``__getattr__``
        serving another callable)."""
        bound.pop(name, None)
        bound[UNBOUND + name] = ""

    def rebind(name: str, fq: str) -> None:
        bound.pop(UNBOUND + name, None)
        bound[name] = fq

    def resolve(node: ast.expr) -> str | None:
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if parts and isinstance(node, ast.Call):
            # ``importlib.import_module("verl.trainer.constants_ppo").get_...`` (trial 26g,
            # M2: the ``else:`` of ``if TYPE_CHECKING:``): an attribute of the module looked up
            head = looked_up(node)
        elif isinstance(node, ast.Name):
            head = bound.get(node.id)
        else:
            return None
        return ".".join([head, *reversed(parts)]) if head else None

    def looked_up(call: ast.Call) -> str | None:
        """What a constant look-up by name binds (trial 26d, family 6): ``getattr(cp,
        "get_...")`` an attribute of a bound module, ``importlib.import_module("a.b")``
        (or ``import_module`` imported from ``importlib``) the module itself."""
        args = call.args
        if call.keywords or not args or any(isinstance(a, ast.Starred) for a in args):
            return None
        name = args[1] if len(args) == 2 else args[0]
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
            return None
        if isinstance(call.func, ast.Name) and call.func.id == "getattr" and len(args) == 2:
            owner = resolve(args[0])
            return f"{owner}.{name.value}" if owner else None
        if len(args) == 1 and resolve(call.func) == "importlib.import_module" and not name.value.startswith("."):
            return name.value
        return None

    def visit(body: Sequence[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, ast.ImportFrom):
                base = resolve_relative("." * stmt.level + (stmt.module or ""), package)
                if not base:
                    continue
                for alias in stmt.names:
                    if alias.name != "*":
                        rebind(alias.asname or alias.name, f"{base}.{alias.name}")
                    else:  # ``from .util import *``: the base's public names, once known
                        for key in [k for k in bound if k.startswith(UNBOUND)]:
                            del bound[key]  # it binds them again
                        bound[f"*{base}"] = base
            elif isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.asname:
                        rebind(alias.asname, alias.name)
                    else:
                        head = alias.name.split(".", 1)[0]
                        rebind(head, head)
            elif isinstance(stmt, ast.Delete):
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        unbind(target.id)
            elif (
                isinstance(stmt, (ast.Assign, ast.AnnAssign))
                and stmt.value is not None
                and isinstance(stmt.value, (ast.Name, ast.Attribute, ast.Call, ast.Lambda))
            ):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                if isinstance(stmt.value, ast.Lambda):
                    # ``make_env = lambda *a, **k: f(*a, **k)`` (trial 26e): forwards as a ``def`` does
                    callee = forwarded_callee(stmt.value)
                    fq = resolve(callee) if callee is not None else None
                elif isinstance(stmt.value, ast.Call):
                    fq = looked_up(stmt.value)
                    if fq is None:
                        continue  # another call's result: the name keeps what it had
                else:
                    fq = resolve(stmt.value)
                for t in targets:
                    name = t.id if isinstance(t, ast.Name) else _globals_key(t)
                    if name is not None:  # ``f = ...``, ``globals()["f"] = ...``
                        if fq is not None:
                            rebind(name, fq)
                        else:
                            unbind(name)
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                    and _updates_globals(stmt.value):
                # ``globals().update({n: getattr(_cp, n) for n in ("get_...",)})`` (trial 26f)
                for name, value in _global_updates(stmt.value):
                    if isinstance(value, ast.Call):
                        fq = looked_up(value)
                    elif isinstance(value, (ast.Name, ast.Attribute)):
                        fq = resolve(value)
                    else:
                        fq = None
                    if fq is not None:
                        rebind(name, fq)
                    else:
                        unbind(name)
            elif isinstance(stmt, (ast.If, ast.Try, ast.With)):
                for field in ("body", "orelse", "finalbody"):
                    if field == "body" and isinstance(stmt, ast.If) and never_runs(stmt.test):
                        continue  # ``if TYPE_CHECKING:``: binds nothing at run time (fresh40, B1)
                    visit(getattr(stmt, field, ()))
                for handler in getattr(stmt, "handlers", ()):
                    visit(handler.body)
            elif isinstance(stmt, ast.ClassDef):
                unbind(stmt.name)
                if not (stmt.decorator_list or stmt.bases or stmt.keywords):
                    # ``class RL: get_env = staticmethod(get_...)`` read as ``RL.get_env()``
                    # in another module (trial 26d): a plain class's static alias
                    for attribute, fq in _static_aliases(stmt, resolve).items():
                        rebind(f"{stmt.name}.{attribute}", fq)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                callee = forwarded_callee(stmt)  # ``def ray_env(*a, **k): return f(*a, **k)``
                fq = resolve(callee) if callee is not None else None
                if fq is not None:
                    rebind(stmt.name, fq)
                else:
                    unbind(stmt.name)
                if stmt.name == "__getattr__":
                    # PEP 562: asked only for a name the module does not bind (trial 26g, M3)
                    for key, owner in _lazy_table(tree, stmt, resolve).items():
                        if key not in bound:
                            rebind(key, f"{owner}.{key}")

    visit(tree.body)
    for name, text in _string_statements(tree).items():
        bound[CONSTANT + name] = text
    imports.update(imported_modules(tree, package, from_packages=True, data=data))
    imports.discard(module)
    return bound, imports


def _lazy_table(tree: ast.Module, hook: ast.FunctionDef | ast.AsyncFunctionDef, resolve) -> dict[str, str]:
    """The names a module ``__getattr__`` serves from a lazy-import table (trial 26g, M3;
    the transformers-style ``_LAZY = {"get_...": "verl.trainer.constants_ppo"}`` with ``def
    __getattr__(name): return getattr(importlib.import_module(_LAZY[name]), name)``), as
    ``{name: module}``; ``{}`` for any other ``__getattr__``.

    The hook must call ``importlib.import_module`` (``resolve(func)`` names it) with
    ``T[name]`` or ``T.get(name)``, ``name`` its one parameter, and return ``getattr(...,
    name)``; ``T`` is the module's last top-level ``T = {...}`` (or annotated), whose entries
    with string keys and values count (PEP 562, "Customization of module attribute access").

    Args:
        tree (ast.Module): the module.
        hook: its top-level ``def __getattr__``.
        resolve: ``resolve(node) -> str | None``, the qualified name a dotted expression
            stands for at that point of the module (:func:`_module_bindings`).
    """
    params = [*hook.args.posonlyargs, *hook.args.args]
    if len(params) != 1:
        return {}
    param = params[0].arg

    def is_param(node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id == param

    def table_of(node: ast.AST) -> str | None:
        """``T`` of ``T[name]`` or ``T.get(name)``."""
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and is_param(node.slice):
            return node.value.id
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                and isinstance(node.func.value, ast.Name) and node.args and is_param(node.args[0])):
            return node.func.value.id
        return None

    tables: set[str] = set()
    returns_attribute = False
    for node in ast.walk(hook):
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
            table = table_of(node.args[0])
            if table is not None and resolve(node.func) == "importlib.import_module":
                tables.add(table)
        if (isinstance(node, ast.Return) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name) and node.value.func.id == "getattr"
                and len(node.value.args) == 2 and is_param(node.value.args[1])):
            returns_attribute = True
    if len(tables) != 1 or not returns_attribute:
        return {}
    (table,) = tables
    value = None
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == table for t in stmt.targets):
            value = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == table:
            value = stmt.value
    if not isinstance(value, ast.Dict):
        return {}
    return {
        k.value: v.value
        for k, v in zip(value.keys, value.values)
        if isinstance(k, ast.Constant) and isinstance(k.value, str)
        and isinstance(v, ast.Constant) and isinstance(v.value, str) and v.value and not v.value.startswith(".")
    }


def getattr_hooks(
    trees: Mapping[str, ast.Module],
    parsed: Mapping[str, tuple | None],
    paths: Iterable[str],
    known: Mapping[str, str],
    words: Iterable[str],
    tops: Iterable[str],
) -> tuple[dict[str, tuple[str, int]], dict[str, str]]:
    """The names the run's modules read through another module of the run whose module
    ``__getattr__`` may serve them, when that hook cannot be read (trial 26g, M3's second
    half; issue 26: "a module ``__getattr__`` ... a PPO005 notice"): ``def
    __getattr__(name): return getattr(importlib.import_module(f"._impl_{VERSION}",
    __name__), name)``, ``return getattr(_backend(), name)``, lazy_loader's
    ``__getattr__, __dir__, __all__ = lazy.attach(...)``. The callee of ``import pkg;
    pkg.get_ppo_ray_runtime_env()`` or ``from pkg import get_ppo_ray_runtime_env`` is then
    whatever the hook returns at run time: it may or may not be the runtime function.

    A name counts only when it is spelled as one of ``words`` (a target's last name, or an
    alias the re-export search found: ``make_env``), the module does not bind it otherwise
    at module level (PEP 562: the hook is asked only for a name the module's namespace
    lacks), the module is no copy of a target's package (verl's own ``__getattr__`` is the
    definitions' business: :func:`ppo_migrate.rules.signatures.callee_signature`) and the
    hook is not a literal lazy-import table (:func:`_lazy_table`, whose entries are plain
    re-exports).

    Args:
        trees: path -> parsed tree of the files :func:`project_reexports` parsed (the
            callers: they spell one of ``words``).
        parsed: path -> ``(module names, bindings, imports)`` of the same files, ``None``
            for one that did not parse (:func:`_module_bindings`).
        paths: the run's Python files, where the hooked modules are looked for (read
            through the run's snapshot, parsed once a run: :func:`parse_file`).
        known: the targets and re-exports found so far, qualified name -> target: a name
            already known is no hook's.
        words: the last names that count.
        tops: the targets' top-level packages.

    Returns:
        ``(unread, forwarded)``: ``unread`` is ``{"pkg.get_ppo_ray_runtime_env":
        ("/abs/pkg/__init__.py", 6)}``, qualified name -> the hooked module's file and the
        hook's line; ``forwarded`` the names a hook reads from a module holding a target
        (``return getattr(cp, name)``, ``cp`` verl's ``constants_ppo``), qualified name ->
        that target: plain re-exports (:func:`_forwarded_module`; a hook reading another
        module's names gives neither). Never raises: an unreadable file has no hook.
    """
    words = set(words)
    tops = set(tops)
    snapshot = current()
    # the files that may hold a hook, by bytes first (each read once a run through the
    # snapshot: the run's import words read them already); none, and no tree is walked
    by_last: dict[bytes, list[str]] = {}
    for path in paths:
        if not path.endswith(".py"):
            continue
        try:
            if b"__getattr__" not in snapshot.read_bytes(path):
                continue
        except (OSError, ValueError):
            continue
        by_last.setdefault(_last_name(path), []).append(path)
    if not by_last:
        return {}, {}
    lasts = {last.decode("utf-8", "surrogateescape") for last in by_last}
    reached: set[tuple[str, str]] = set()  # (module, name) read by a caller
    for path, tree in trees.items():
        entry = parsed.get(path)
        if entry is None or entry[0][-1].split(".", 1)[0] in tops:
            continue
        bound = {k: v for k, v in entry[1].items() if not k.startswith((UNBOUND, CONSTANT, "*"))}
        if lasts.isdisjoint(part for fq in bound.values() for part in fq.split(".")):
            continue  # it imports no module whose file may hold a hook
        for fq in bound.values():  # ``from pkg import get_...``
            module, _, last = fq.rpartition(".")
            if module and last in words and fq not in known:
                reached.add((module, last))
        for node in ast.walk(tree):  # ``import pkg; pkg.get_...()``
            if not (isinstance(node, ast.Attribute) and node.attr in words):
                continue
            parts: list[str] = []
            base = node.value
            while isinstance(base, ast.Attribute):
                parts.append(base.attr)
                base = base.value
            if not isinstance(base, ast.Name) or base.id not in bound:
                continue
            module = ".".join([bound[base.id], *reversed(parts)])
            if f"{module}.{node.attr}" not in known:
                reached.add((module, node.attr))
    if not reached:
        return {}, {}
    out: dict[str, tuple[str, int]] = {}
    forwarded: dict[str, str] = {}
    hooked: dict[str, tuple | None] = {}  # path -> (tree, hook line, forward, served): _opaque_hook
    for module, name in sorted(reached):
        if module.split(".", 1)[0] in tops:
            continue
        for path in by_last.get(module.rsplit(".", 1)[-1].encode(), ()):
            root = snapshot.root_of(path)
            if module not in (module_names(path, root) if root is not None else (module_name(path),)):
                continue
            if path not in hooked:
                hooked[path] = _opaque_hook(path, module)
            found = hooked[path]
            if found is None or _binds_at_module_level(found[0], name):
                continue
            served = found[3].get(name) or (f"{found[2]}.{name}" if found[2] is not None else None)
            if served is None:
                out[f"{module}.{name}"] = (path, found[1])
            elif served in known:  # ``getattr(cp, name)``, ``if name == ...: from verl... import``
                forwarded[f"{module}.{name}"] = known[served]
            break  # else another module's own name: no target
    return out, forwarded


def _opaque_hook(path: str, module: str = "") -> tuple[ast.Module, int, str | None, dict[str, str]] | None:
    """``(tree, line, forward, served)`` of ``path``'s module ``__getattr__`` (a top-level ``def``, or a
    module-level assignment of the name: ``__getattr__, __dir__, __all__ = lazy.attach(...)``)
    when it is no literal lazy-import table (:func:`_lazy_table`); ``None`` otherwise, or
    when the file cannot be read or parsed (read through the run's snapshot).

    ``forward`` is the module a ``def`` hook reads every name from when each of its
    ``return`` statements is ``getattr(M, name)`` with ``M`` a module the file imports at
    module level (``from . import legacy as _legacy``; ``module``, the file's module name,
    resolves relative imports): the hook is then read (a name of ``M``), else ``None``.
    ``served``: the names a branch of the hook imports and returns (:func:`_guarded_imports`).

    Args:
        path (str): the module's file (absolute), read through the run's snapshot.
        module (str): its module name (``"pkg"``), for relative imports; ``""`` when unknown
            (no hook is then read as forwarding).

    Raises:
        Nothing: a file that cannot be read or parsed has no hook (``None``).
    """
    try:
        data = current().read_bytes(path)
    except (OSError, ValueError):
        return None
    if b"__getattr__" not in data:
        return None
    tree = parse_file(path, data)
    if tree is None:
        return None
    line = forward = None
    served: dict[str, str] = {}
    for stmt in _module_statements(tree.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == "__getattr__":
            if _lazy_table(tree, stmt, _import_resolver(tree)):
                line = None  # the literal table: its entries are re-exports (or nothing)
                continue
            line, forward = stmt.lineno, _forwarded_module(tree, stmt, path, module)
            served = _guarded_imports(stmt, path, module)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(n, ast.Name) and n.id == "__getattr__" for t in targets for n in ast.walk(t)):
                line, forward, served = stmt.lineno, None, {}
    return (tree, line, forward, served) if line is not None else None


def _guarded_imports(hook: ast.FunctionDef | ast.AsyncFunctionDef, path: str, module: str) -> dict[str, str]:
    """The names a hook serves by a branch of its own (trial 26b, ``f6_lazy_getattr_pkg``):
    ``if name == "get_...":`` whose body imports a name (``from verl.trainer.constants_ppo
    import get_...``) and returns it, as ``{"get_...": "verl.trainer.constants_ppo.get_..."}``
    (the key is the string compared with the hook's one parameter; relative imports resolved
    with ``module``, the file's module name). Any other branch serves nothing read here.

    Args:
        hook (ast.FunctionDef | ast.AsyncFunctionDef): the module's ``def __getattr__``.
        path (str): the module's file (an ``__init__.py`` is its own package).
        module (str): the module's name.

    Raises:
        Nothing.
    """
    params = [*hook.args.posonlyargs, *hook.args.args]
    if len(params) != 1:
        return {}
    param = params[0].arg
    package = tuple(module.split(".")) if module else ()
    if os.path.basename(path) != "__init__.py":
        package = package[:-1]
    out: dict[str, str] = {}
    for node in ast.walk(hook):
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1
                and isinstance(node.test.ops[0], ast.Eq)):
            continue
        sides = [node.test.left, node.test.comparators[0]]
        keys = [n.value for n in sides if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        if len(keys) != 1 or not any(isinstance(n, ast.Name) and n.id == param for n in sides):
            continue
        imported: dict[str, str] = {}
        for stmt in node.body:
            if isinstance(stmt, ast.ImportFrom):
                base = resolve_relative("." * stmt.level + (stmt.module or ""), package)
                for alias in stmt.names:
                    if base and alias.name != "*":
                        imported[alias.asname or alias.name] = f"{base}.{alias.name}"
            elif isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Name) and stmt.value.id in imported:
                out.setdefault(keys[0], imported[stmt.value.id])
                break
    return out


def _forwarded_module(tree: ast.Module, hook: ast.FunctionDef | ast.AsyncFunctionDef, path: str, module: str) -> str | None:
    """The module ``M`` a hook reads every name from (each ``return`` is ``getattr(M,
    name)``, ``name`` its one parameter, ``M`` bound to a module by the file's module-level
    imports: :func:`_module_bindings`), else ``None`` (trial 26, ``f5s_getattr_pep562``:
    ``del get_...`` then ``return getattr(_legacy, name)`` serves ``pkg.legacy``'s own
    function, no target).

    Args:
        tree (ast.Module): the module holding the hook.
        hook (ast.FunctionDef | ast.AsyncFunctionDef): its ``def __getattr__``.
        path (str): the module's file (an ``__init__.py`` is its own package).
        module (str): the module's name (``""``: none is read).

    Raises:
        Nothing.
    """
    params = [*hook.args.posonlyargs, *hook.args.args]
    if len(params) != 1 or not module:
        return None
    param = params[0].arg
    returns = [n for n in ast.walk(hook) if isinstance(n, ast.Return)]
    owners = set()
    for ret in returns:
        value = ret.value
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "getattr"
                and len(value.args) == 2 and not value.keywords and isinstance(value.args[1], ast.Name)
                and value.args[1].id == param and isinstance(value.args[0], (ast.Name, ast.Attribute))):
            return None
        owners.add(ast.unparse(value.args[0]))
    if len(owners) != 1:
        return None
    package = tuple(module.split("."))
    if os.path.basename(path) != "__init__.py":
        package = package[:-1]
    bound, _ = _module_bindings(tree, package, module)
    (owner,) = owners
    head, _, rest = owner.partition(".")
    if head not in bound or head in {n.id for n in ast.walk(hook) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}:
        return None
    return f"{bound[head]}.{rest}" if rest else bound[head]


def never_runs(test: ast.expr) -> bool:
    """Whether an ``if`` test is one whose body never runs: ``TYPE_CHECKING``,
    ``typing.TYPE_CHECKING`` (any ``X.TYPE_CHECKING``), ``False``, ``0`` or ``None``
    (fresh40, B1: ``if TYPE_CHECKING: from verl... import get_...`` beside a module
    ``__getattr__`` binds nothing at run time, so the hook serves the name; PEP 484 says
    ``typing.TYPE_CHECKING`` is ``False`` at run time).

    Args:
        test (ast.expr): the ``if`` statement's test.

    Raises:
        Nothing.
    """
    if isinstance(test, ast.Constant):
        return test.value is None or test.value is False or (type(test.value) is int and test.value == 0)
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _module_statements(body: Sequence[ast.stmt]) -> Iterable[ast.stmt]:
    """The statements run at module level: ``body`` and the bodies of its ``if``/``try``/
    ``with``/``for``/``while`` statements, at any depth (not those of a ``def`` or ``class``),
    but not the body of an ``if`` that never runs (:func:`never_runs`: ``if TYPE_CHECKING:``)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)):
            for field in ("body", "orelse", "finalbody"):
                if field == "body" and isinstance(stmt, ast.If) and never_runs(stmt.test):
                    continue
                yield from _module_statements(getattr(stmt, field, ()))
            for handler in getattr(stmt, "handlers", ()):
                yield from _module_statements(handler.body)


def _binds_at_module_level(tree: ast.Module, name: str) -> bool:
    """Whether ``tree`` binds ``name`` at module level (an import, a ``def``/``class``, an
    assignment or any other store, ``globals()["name"] = ...``): then its module
    ``__getattr__`` is never asked for it (PEP 562). A star import is not counted (what it
    binds is read by :func:`project_reexports` as a re-export, or cannot be told).

    Args:
        tree (ast.Module): the module.
        name (str): the name asked for.
    """
    for stmt in _module_statements(tree.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if stmt.name == name:
                return True
            continue
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name.split(".", 1)[0]) == name for a in stmt.names):
                return True
            continue
        for field in ("targets", "target", "items"):
            value = getattr(stmt, field, None)
            nodes = value if isinstance(value, list) else [value] if value is not None else []
            for node in nodes:
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, ast.Store):
                        return True
                    if isinstance(sub, ast.Subscript) and _globals_key(sub) == name:
                        return True
    return False


def _import_resolver(tree: ast.Module):
    """``resolve(node) -> str | None`` for :func:`_lazy_table`: the qualified name a dotted
    expression stands for by the module's top-level imports (``importlib.import_module``
    for ``importlib.import_module``, ``il.import_module`` after ``import importlib as il``,
    ``import_module`` after ``from importlib import import_module``)."""
    names = top_level_imports(tree)

    def resolve(node: ast.expr) -> str | None:
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in names:
            return None
        return ".".join([names[node.id], *reversed(parts)])

    return resolve


def _is_module_namespace(node: ast.AST) -> bool:
    """``globals()`` or ``vars()`` (no argument): the module's own namespace at module level."""
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("globals", "vars")
        and not node.args and not node.keywords
    )


def _globals_key(target: ast.expr) -> str | None:
    """``"f"`` of a target ``globals()["f"]``, else ``None``."""
    if isinstance(target, ast.Subscript) and _is_module_namespace(target.value):
        key = target.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.isidentifier():
            return key.value
    return None


def _updates_globals(call: ast.Call) -> bool:
    """Whether ``call`` is ``globals().update(...)`` (or ``vars().update``)."""
    func = call.func
    return isinstance(func, ast.Attribute) and func.attr == "update" and _is_module_namespace(func.value)


def _global_updates(call: ast.Call) -> list[tuple[str, ast.expr]]:
    """``(name, value)`` for each name a ``globals().update(...)`` binds that can be read
    (trial 26f, g6_globals_update_reexport): its keywords (``update(f=cp.f)``), a dict
    literal's string keys (``update({"f": cp.f})``), and a dict comprehension over a
    literal tuple or list of strings whose value reads that name
    (``update({n: getattr(cp, n) for n in ("f",)})``: ``("f", getattr(cp, "f"))``, the
    loop's name replaced by each string). Anything else binds names not known: none read."""
    out: list[tuple[str, ast.expr]] = [(k.arg, k.value) for k in call.keywords if k.arg is not None]
    for arg in call.args[:1]:
        if isinstance(arg, ast.Dict):
            out += [
                (k.value, v) for k, v in zip(arg.keys, arg.values)
                if isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value.isidentifier()
            ]
        elif isinstance(arg, ast.DictComp) and len(arg.generators) == 1:
            loop = arg.generators[0]
            if not (isinstance(loop.target, ast.Name) and isinstance(arg.key, ast.Name)
                    and arg.key.id == loop.target.id and not loop.ifs and not loop.is_async
                    and isinstance(loop.iter, (ast.Tuple, ast.List))):
                continue
            var = loop.target.id
            for item in loop.iter.elts:
                if not (isinstance(item, ast.Constant) and isinstance(item.value, str) and item.value.isidentifier()):
                    continue
                value = _substituted(arg.value, var, item.value)
                if value is not None:
                    out.append((item.value, value))
    return out


def _substituted(node: ast.expr, var: str, text: str) -> ast.expr | None:
    """``node`` with each load of the name ``var`` replaced by the string ``text``
    (``getattr(cp, n)`` -> ``getattr(cp, "f")``); ``None`` when ``node`` is not a
    ``getattr`` of that name nor a name or attribute without it."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
            and len(node.args) == 2 and isinstance(node.args[1], ast.Name) and node.args[1].id == var:
        return ast.Call(node.func, [node.args[0], ast.Constant(text)], [])
    if isinstance(node, (ast.Name, ast.Attribute)) and not any(
        isinstance(n, ast.Name) and n.id == var for n in ast.walk(node)
    ):
        return node
    return None


def _string_statements(tree: ast.Module) -> dict[str, str]:
    """Each top-level ``NAME = "..."`` (or annotated) of ``tree`` with its string, the
    later statement's for a name bound twice: the statements
    :func:`ppo_migrate.rules.targets.string_constants` keeps, before its walk of the
    whole module checks that each is the name's one binding (done by
    :func:`project_reexports` only for a string that names a target: ~10% of a ``check``
    of 135 trainer modules went to that walk, benchmark item 9)."""
    out: dict[str, str] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            target = stmt.target
        else:
            continue
        value = stmt.value
        if isinstance(target, ast.Name) and isinstance(value, ast.Constant) and isinstance(value.value, str):
            out[target.id] = value.value
    return out


def _static_aliases(node: ast.ClassDef, resolve) -> dict[str, str]:
    """The attributes a plain class body binds once, by ``name = staticmethod(<dotted>)``,
    to what ``resolve`` makes of the dotted name; an attribute bound more than once, or
    otherwise too, is left out (the call may reach something else)."""
    bound: dict[str, str | None] = {}
    for stmt in node.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(
            stmt, (ast.AnnAssign, ast.AugAssign)) else []
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [stmt.name]
        for name in names:
            value = getattr(stmt, "value", None)
            fq = None
            if (
                name not in bound and isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                and isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                and value.func.id == "staticmethod" and len(value.args) == 1 and not value.keywords
            ):
                fq = resolve(value.args[0])
            bound[name] = fq if name not in bound else None
    return {name: fq for name, fq in bound.items() if fq is not None}


def _loaded_by_name(tree: ast.Module) -> set[str]:
    """The modules ``tree`` loads by a constant name anywhere in it (trial 26d, family 6:
    ``importlib.import_module("pkg.env").get_...()`` calls ``pkg/env.py``'s re-export, as
    ``import pkg.env`` would): ``import_module("a.b")`` (however ``importlib`` or the
    function is bound) and ``__import__("a.b")``, absolute names only."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and not node.keywords:
            func = node.func
            last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            name = node.args[0]
            if last in ("import_module", "__import__") and isinstance(name, ast.Constant) \
                    and isinstance(name.value, str) and name.value and not name.value.startswith("."):
                found.add(name.value)
    return found


#: the prefix of a name :func:`_module_bindings` saw deleted or rebound after the module's
#: star imports (no star import re-exports it)
UNBOUND = "-"

#: the prefix of a module-level string constant's name in :func:`_module_bindings`'s
#: answer (its value is the string, not a qualified name)
CONSTANT = "="

#: a star import re-exports without spelling the name (``from .util import *``)
STAR_IMPORT = _STAR_IMPORT  # the prefilter's, whose scout lists the files holding it


__all__ = ["STAR_IMPORT", "getattr_hooks", "import_words", "project_reexports"]
