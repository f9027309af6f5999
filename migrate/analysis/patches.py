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

from ppo_migrate.settings import Settings

#: Bytes a file replacing a function by name holds: a patcher (or the name written as an
#: attribute, matched with the names in :func:`target_patches`).
_PATCH_WORDS = rb"setattr|patch|setitem|__dict__"
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
    """``(module named in a target string, or None, line)`` for each replacement of one of
    ``names`` in ``tree``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and node.attr in names:
            yield None, node.lineno
            continue
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if last not in _PATCHERS:
            continue
        values = [*node.args, *(k.value for k in node.keywords)]
        for value in values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                module, _, name = value.value.rpartition(".")
                if name in names:
                    yield module or None, node.lineno
            elif isinstance(value, ast.Dict):  # ``mock.patch.dict(lib.__dict__, {...})``
                if any(isinstance(k, ast.Constant) and k.value in names for k in value.keys):
                    yield None, node.lineno
        if any(k.arg in names for k in node.keywords):  # ``patch.multiple(lib, f=fake)``
            yield None, node.lineno


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


def patched_at(patches: Sequence[Patch] | None, path: str) -> str | None:
    """The first patch of another file that may reach the module at ``path``, as a reason:
    ``"tests/test_x.py:5 replaces the runtime function, ..."``; ``None`` when there is none."""
    if not patches:
        return None
    import os

    from ppo_migrate.analysis.callers import module_name, namespace_prefixes

    here = os.path.abspath(path)
    own: set[str] | None = None
    for module, where, line in patches:
        if os.path.abspath(where) == here:
            continue  # the module's own patches: seen by its own analysis
        if module != "*":
            if own is None:
                name = module_name(path)
                own = {name, *(f"{p}.{name}" for p in namespace_prefixes(path))}
            if module not in own:
                continue
        return (
            f"{where}:{line} replaces the runtime function, whose replacement may take no config"
        )
    return None


__all__ = ["Patch", "patched_at", "target_patches"]
