"""Where the repository uses verl's ``PPO_RAY_RUNTIME_ENV`` (``apply --use-ppo-runtime``).

verl's ``get_ppo_ray_runtime_env`` builds its ``env_vars`` from the module constant
``PPO_RAY_RUNTIME_ENV``; projects add to it at import time
(``PPO_RAY_RUNTIME_ENV["env_vars"]["NCCL_NET"] = "IB"``, ``.update(...)``). ``ppo_runtime``
never reads verl's constant, so moving the calls to it would drop those additions silently
(fresh user 44, B3): where any file of the repository but verl's own module names the
constant, ``--use-ppo-runtime`` moves nothing.
"""

from __future__ import annotations

import ast
import os

from ppo_migrate.project.snapshot import current
from ppo_migrate.project.tree import repository_listing

#: the constant verl's function reads (verl/trainer/constants_ppo.py, verl 0.5.0-0.9.1)
CONSTANT = "PPO_RAY_RUNTIME_ENV"
_WORD = CONSTANT.encode()
_MEMO = "ppo_migrate.project.constant_uses"


def runtime_constant_use(root: str | os.PathLike[str], respect_gitignore: bool = True) -> tuple[str, int] | None:
    """The first place (walk order) where a Python file of the repository names verl's
    ``PPO_RAY_RUNTIME_ENV`` (a name, an attribute or an imported name), outside a module
    that defines it at module level (verl's own ``constants_ppo.py``, in any copy).

    Args:
        root: the repository root.
        respect_gitignore: the run's ``respect-gitignore``.

    Returns:
        ``(path, line)`` (absolute path, 1-based line), or ``None``. Asked once a run (the
        snapshot's memo); a file is parsed only when its bytes hold the name; one that
        cannot be read or parsed is passed over. Never raises.
    """
    root = os.path.abspath(os.fspath(root))
    memo = current().memo(_MEMO)
    key = (root, bool(respect_gitignore))
    if key not in memo:
        memo[key] = _first_use(root, respect_gitignore)
    return memo[key]


def _first_use(root: str, respect_gitignore: bool) -> tuple[str, int] | None:
    snapshot = current()
    for path in repository_listing(root, respect_gitignore).files(lambda n: n.endswith(".py")):
        try:
            data = snapshot.read_bytes(path)
        except Exception:  # noqa: BLE001 -- unreadable: the per-file phase names it
            continue
        if _WORD not in data:
            continue
        try:
            tree = snapshot.source(path).tree()
        except Exception:  # noqa: BLE001 -- not Python as written: nothing it runs
            continue
        if any(_defines(stmt) for stmt in tree.body):
            continue
        line = _first_line(tree)
        if line is not None:
            return path, line
    return None


def _defines(stmt: ast.stmt) -> bool:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
    return any(isinstance(t, ast.Name) and t.id == CONSTANT for t in targets)


def _first_line(tree: ast.Module) -> int | None:
    lines = [
        node.lineno for node in ast.walk(tree)
        if (isinstance(node, ast.Name) and node.id == CONSTANT)
        or (isinstance(node, ast.Attribute) and node.attr == CONSTANT)
        or (isinstance(node, (ast.Import, ast.ImportFrom)) and any(a.name.rpartition(".")[2] == CONSTANT for a in node.names))
    ]
    return min(lines) if lines else None
