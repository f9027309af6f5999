"""Files of the run that replace the runtime function itself: a test's fake may take no config.

``monkeypatch.setattr(lib, "get_ppo_ray_runtime_env", lambda: {...})`` in a test makes
``lib``'s call reach a callable taking no argument: a fix passing the config there would
make the test fail (a fresh tester's finding; the module's own patches were already seen by
:meth:`ppo_migrate.analysis.check.ModuleAnalysis._patches_the_function`). The runner looks
for such patches in the run's candidate files (they spell the function's name) before the
per-file phase (:func:`target_patches`); a fix in a module they may reach is unsafe, the
message naming the patch (:func:`patched_at`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence

from ppo_migrate.diagnostics import Reason, Related
from ppo_migrate.settings import Settings

#: Bytes a file replacing a function by name holds: a patcher (or the name written as an
#: attribute, matched with the names in :func:`target_patches`).
_PATCH_WORDS = rb"setattr|patch|setitem|__dict__|\bupdate\b"
#: The last names of the callables that replace an attribute named in a string or keyword:
#: ``setattr``, pytest's ``monkeypatch.setattr/setitem``, ``mock.patch`` and its
#: ``.object``, ``.multiple``, ``.dict``.
_PATCHERS = frozenset({"setattr", "setitem", "patch", "object", "multiple", "dict"})

#: ``(module, path, line)``: a file at ``path`` replaces the runtime function at ``line``, as
#: ``module`` binds it (a module of the run), or ``"*"`` (anywhere: the verl module itself,
#: an object the import cannot tell).
Patch = tuple[str, str, int]


def target_patches(candidates: Iterable[str], paths: Sequence[str], settings: Settings) -> tuple[Patch, ...]:
    """Where files of the run replace the runtime function by name.

    Args:
        candidates: the files naming the runtime function (the prefilter's); only those
            can name it in a patch.
        paths: every file of the run (to tell a module of the run in a patch's target
            string, ``"pkg.lib.get_ppo_ray_runtime_env"``, from another one).
        settings: the run's settings (the targets' names).

    Returns:
        The patches, in path and line order: ``("pkg.lib", path, line)`` for a target
        string naming a module of the run, else ``("*", path, line)`` (``setattr(lib,
        "get_ppo_ray_runtime_env", f)``, ``lib.get_ppo_ray_runtime_env = f``,
        ``mock.patch("verl.trainer.constants_ppo.get_ppo_ray_runtime_env")``).
    """
    from ppo_migrate.files import decode_source
    from ppo_migrate.prefilter import read_bytes

    names = {t.rsplit(".", 1)[-1] for t in settings.targets}
    encoded = [n.encode() for n in names]
    # a patcher, or the function's name written as an attribute (``lib.get_... = fake``)
    patch_bytes = re.compile(
        _PATCH_WORDS + rb"|\.\s*(?:" + b"|".join(re.escape(n) for n in encoded) + rb")\s*=[^=]"
    )
    found: list[tuple[str | None, str, int]] = []
    for path in candidates:
        try:
            data = read_bytes(path)
        except (OSError, ValueError):
            continue
        if not any(n in data for n in encoded) or not patch_bytes.search(data):
            continue
        try:
            tree = ast.parse(decode_source(data)[0])
        except (SyntaxError, ValueError, UnicodeDecodeError):
            continue  # it cannot run either
        for module, line in _patches_in(tree, names):
            found.append((module, path, line))
    if not found:
        return ()
    modules: set[str] | None = None
    out: list[Patch] = []
    for module, path, line in found:
        if module is not None:
            if modules is None:
                modules = _run_modules(paths)
            if module not in modules:
                module = None
        out.append((module or "*", path, line))
    return tuple(sorted(set(out), key=lambda p: (p[1], p[2], p[0])))


def _patches_in(tree: ast.AST, names: set[str]) -> Iterable[tuple[str | None, int]]:
    """``(module, line)`` for each replacement of one of ``names`` in ``tree``: the module a
    target string names (``"pkg.lib.get_ppo_ray_runtime_env"``) or the patched object is
    imported as (``monkeypatch.setattr(lib, "get_...", f)`` with ``import pkg.lib as lib``),
    else ``None`` (any module).

    In a file with a patcher, any string spelling the function's name counts, wherever it
    stands (a constant ``TARGET = "pkg.lib.get_..."``, a helper's default, an f-string's
    part, a patcher imported under another name), and so does a keyword of that name
    (``vars(lib).update(get_...=f)``, ``patch.multiple(lib, get_...=f)``); ``__all__``'s do not."""
    imported = _imported_modules(tree)
    exported = {
        id(e)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Assign, ast.AugAssign))
        and any(
            isinstance(t, ast.Name) and t.id == "__all__"
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        )
        for e in ast.walk(node.value)
    }
    consumed: set[int] = set()  # a patcher's key string, judged with its owner
    for node in ast.walk(tree):  # (breadth first: a call before its arguments)
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and node.attr in names:
            yield imported.get(_dotted(node.value)), node.lineno
        elif (
            isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in exported and id(node) not in consumed
        ):
            module, _, name = node.value.rpartition(".")
            if name in names:
                yield module or None, node.lineno
        elif isinstance(node, ast.Call):
            func = node.func
            last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if any(k.arg in names for k in node.keywords):  # ``patch.multiple(lib, f=fake)``
                owner = node.args[0] if node.args else None
                yield imported.get(_dotted(owner)) if owner is not None else None, node.lineno
            elif last in _PATCHERS and len(node.args) >= 2:
                # ``setattr(lib, "get_...", f)``, ``patch.object(lib, ...)``: the owner's module
                key = node.args[1]
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value in names:
                    consumed.add(id(key))
                    yield imported.get(_dotted(node.args[0])), node.lineno
            if last in _PATCHERS:
                for value in [*node.args, *(k.value for k in node.keywords)]:
                    if isinstance(value, ast.Dict) and any(  # ``patch.dict(lib.__dict__, {...})``
                        isinstance(k, ast.Constant) and k.value in names for k in value.keys
                    ):
                        yield None, node.lineno


def _dotted(node: ast.AST | None) -> str | None:
    """``a.b.c`` for that name or attribute chain, else ``None``."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _imported_modules(tree: ast.AST) -> dict[str | None, str | None]:
    """What names a module may be reached by in ``tree``: ``{"lib": "pkg.lib"}`` for
    ``import pkg.lib as lib`` or ``from pkg import lib``; ``{"pkg.lib": "pkg.lib"}`` for
    ``import pkg.lib``. A name bound twice maps to ``None`` (any)."""
    out: dict[str | None, str | None] = {}

    def bind(name: str, module: str) -> None:
        out[name] = module if out.get(name, module) == module else None

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bind(alias.asname, alias.name)
                else:
                    parts = alias.name.split(".")
                    for k in range(1, len(parts) + 1):
                        bind(".".join(parts[:k]), ".".join(parts[:k]))
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                bind(alias.asname or alias.name, f"{node.module}.{alias.name}")
    return out


def _run_modules(paths: Sequence[str]) -> set[str]:
    """Every name a module of the run may be imported by (its own and, above its outermost
    package, the folders' prefixes: :func:`ppo_migrate.analysis.callers.namespace_prefixes`)."""
    from ppo_migrate.analysis.callers import module_name, namespace_prefixes

    out: set[str] = set()
    for path in paths:
        name = module_name(path)
        out.add(name)
        out.update(f"{prefix}.{name}" for prefix in namespace_prefixes(path))
    return out


def patch_reaching(patches: Sequence[Patch] | None, path: str) -> Patch | None:
    """The first patch of another file that may reach the module at ``path`` (a module
    named by the patch's target, or ``"*"``: any), or ``None`` when there is none."""
    if not patches:
        return None
    import os

    from ppo_migrate.analysis.callers import module_name, namespace_prefixes

    here = os.path.abspath(path)
    own: set[str] | None = None
    for patch in patches:
        module, where, _ = patch
        if os.path.abspath(where) == here:
            continue  # the module's own patches: seen by its own analysis
        if module != "*":
            if own is None:
                name = module_name(path)
                own = {name, *(f"{p}.{name}" for p in namespace_prefixes(path))}
            if module not in own:
                continue
        return patch
    return None


def patched_at(patches: Sequence[Patch] | None, path: str) -> str | None:
    """The first patch of another file that may reach the module at ``path``, as a reason:
    ``"tests/test_x.py:5 replaces the runtime function, ..."``; ``None`` when there is none."""
    patch = patch_reaching(patches, path)
    if patch is None:
        return None
    _, where, line = patch
    return f"{where}:{line} replaces the runtime function, whose replacement may take no config"


def patch_reason(patches: Sequence[Patch] | None, path: str) -> Reason | None:
    """:func:`patched_at` as a structured ``patched`` :class:`Reason` (issue 28): the
    patch's file and line in ``lines``; ``None`` when no patch reaches ``path``."""
    patch = patch_reaching(patches, path)
    if patch is None:
        return None
    module, where, line = patch
    target = "any module" if module == "*" else f"`{module}`"
    return Reason(
        "patched",
        f"another file replaces the runtime function of {target}: the replacement may "
        "take no config",
        (Related(where, line, 1, "replaces the runtime function"),),
    )


__all__ = ["Patch", "patch_reaching", "patch_reason", "patched_at", "target_patches"]
