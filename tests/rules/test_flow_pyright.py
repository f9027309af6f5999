"""``bound_at`` against an independent oracle: basedpyright's code-flow analysis.

basedpyright's answers come from the one run of ``pyright_oracle.py`` (it is slow to
start): generated modules (both directions checked) and real standard-library modules with
injected reads (the safety direction: CERTAIN is never flagged).

A seeded generator writes ~200 modules of small functions (nested if/try/for/while/with/
match/del/return/break/continue/walrus around bindings of ``config``, and one read of
``config`` at a marked site ``sink(config)`` per function); ``basedpyright --outputjson``
runs once over them and the other cases. Then, at every marked site:

1. where ``bound_at`` says CERTAIN, pyright reports neither possibly-unbound, unbound nor
   undefined there;
2. where pyright reports nothing there and the function binds ``config`` somewhere,
   ``bound_at`` says CERTAIN.

Known, deliberate differences, kept out of the generated code rather than papered over:
- ``with`` bodies: ``bound_at`` assumes any context manager may swallow the body's exceptions
  (Python allows it); pyright assumes so only when ``__exit__`` is declared to return
  ``bool``. The generator therefore uses ``contextlib.suppress(...)`` (declared ``-> bool``),
  where both agree.
- a ``finally`` that always ends abruptly (``finally: raise``): pyright still flows the
  exception edges of the code after that ``try`` into later handlers (e.g. an
  ``except E as config: pass`` that unbinds), though that code is unreachable; the flow
  pass treats it as unreachable. The generator makes every exit inside a ``finally``
  conditional.
- a ``finally`` that binds or deletes the name: pyright analyses the code after the ``try``
  with the finally run from the abrupt exits' states too (``try: if a: return; config = x``
  ``finally: if b: del config; config = y`` → "possibly unbound" after it); the flow pass
  runs the finally separately for the normal exit, as the interpreter does. The generator
  keeps ``config`` out of ``finally`` blocks (they use ``spare``).
- ``match`` subjects: pyright narrows a variable subject across nested ``match``
  statements (``case int():`` then an inner ``case [x, y]:`` on the same variable is
  unreachable to it); the generator matches on a fresh ``load()`` each time.
- unreachable sites: pyright reports nothing in code it finds unreachable; ``bound_at``
  never says CERTAIN there (POSSIBLE when the name has a binding). Sites the flow pass finds
  unreachable are skipped for check 2.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from ppo_migrate.rules import flow as flow_mod
from ppo_migrate.rules.flow import Bound, bound_at
from ppo_migrate.rules.scopes import ScopeTree

from flow_programs import FUNCS_PER_FILE, compiles as _valid, generate_module as _module
from pyright_oracle import Prepared, case

N_FILES = 200
SEED = 13


@case("flow_generated")
def _write_generated(folder: Path) -> Prepared:
    """N_FILES generated modules: name -> source."""
    rng = random.Random(SEED)
    sources: dict[str, str] = {}
    while len(sources) < N_FILES:
        src = _module(rng)
        if _valid(src):
            name = f"gen_{len(sources):03d}.py"
            (folder / name).write_text(src, encoding="utf-8")
            sources[name] = src
    return Prepared(N_FILES, sources)


@pytest.mark.xdist_group("basedpyright")  # the one run of pyright_oracle
def test_bound_at_agrees_with_basedpyright(basedpyright_cases) -> None:
    sources, flagged = basedpyright_cases["flow_generated"]
    checked = certain = skipped = 0
    wrong_certain, missed_certain = [], []
    for name, src in sources.items():
        tree = ast.parse(src)
        scopes = ScopeTree.build(tree)
        for call in ast.walk(tree):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                    and call.func.id == "sink"):
                continue
            site = call.args[0]
            answer = bound_at(scopes, "config", site)
            scope = scopes.scope_of(site)
            bits = flow_mod._bits_at(scopes, scope, "config", site)
            pyright_says = (name, site.lineno, site.col_offset) in flagged
            has_binding = "config" in scope.symbols and scope.symbols["config"].is_local
            checked += 1
            if answer is Bound.CERTAIN:
                certain += 1
                if pyright_says:
                    wrong_certain.append(f"{name}:{site.lineno}")
            elif not pyright_says and has_binding:
                if bits == 0:
                    skipped += 1  # unreachable: pyright is silent there
                else:
                    missed_certain.append(f"{name}:{site.lineno} {answer.value}")
    assert checked == N_FILES * FUNCS_PER_FILE
    assert certain > 100  # the generator reaches both answers often
    assert wrong_certain == []
    assert missed_certain == [], "\n".join(missed_certain)


# -- real files with injected reads ------------------------------------------------------------
N_REAL = 60


def _inject_reads(text: str, rng: random.Random) -> str | None:
    """Insert ``sink(NAME)`` before one random statement of every function (at the
    statement's own indentation), NAME a random non-parameter local of that function.
    Reads never bind, so several injections in one module do not disturb each other."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    lines = text.split("\n")
    scopes = ScopeTree.build(tree)
    inserts: dict[int, tuple[int, str]] = {}
    for scope in scopes.scopes():
        if scope.kind.value != "function":
            continue
        names = sorted(n for n, s in scope.symbols.items()
                       if s.is_local and not s.is_parameter and n.isidentifier()
                       and not n.startswith("__"))
        spots = [s for s in ast.walk(scope.node) if isinstance(s, ast.stmt)
                 and s is not scope.node and scopes.scope_of(s) is scope
                 and not getattr(s, "decorator_list", None)
                 and not lines[s.lineno - 1][:s.col_offset].strip()]
        if names and spots:
            spot = rng.choice(spots)
            inserts.setdefault(spot.lineno, (spot.col_offset, rng.choice(names)))
    if not inserts:
        return None
    for lineno in sorted(inserts, reverse=True):
        col, name = inserts[lineno]
        lines.insert(lineno - 1, " " * col + f"sink({name})")
    out = "\n".join(lines)
    return out if _valid(out) else None


@case("flow_real")
def _write_real(folder: Path) -> Prepared:
    """N_REAL standard-library modules with a read of a local injected in every function:
    name -> source."""
    from corpora import stdlib_files

    rng = random.Random(SEED)
    files = [p for p in stdlib_files() if "test" not in p.parts and "idlelib" not in p.parts]
    rng.shuffle(files)
    written: dict[str, str] = {}
    for path in files:
        if len(written) >= N_REAL:
            break
        src = _inject_reads(path.read_text(encoding="utf-8"), rng)
        if src is not None:
            name = f"real_{len(written):03d}.py"
            (folder / name).write_text(src, encoding="utf-8")
            written[name] = src
    return Prepared(len(written), written)


@pytest.mark.xdist_group("basedpyright")  # the one run of pyright_oracle
@pytest.mark.slow
def test_certain_on_real_files_is_never_flagged_by_basedpyright(basedpyright_cases) -> None:
    """Standard-library modules with a read of a local injected in every function: where
    ``bound_at`` says CERTAIN, pyright reports nothing (the safety direction; pyright's extra
    knowledge — NoReturn inference, platform checks — only makes it flag less)."""
    written, flagged = basedpyright_cases["flow_real"]
    counts: dict[tuple[str, bool], int] = {}
    wrong = []
    for name, src in written.items():
        tree = ast.parse(src)
        scopes = ScopeTree.build(tree)
        for call in ast.walk(tree):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) \
                    and call.func.id == "sink" and len(call.args) == 1 \
                    and isinstance(call.args[0], ast.Name):
                site = call.args[0]
                answer = bound_at(scopes, site.id, site)
                said = (name, site.lineno, site.col_offset) in flagged
                counts[(answer.value, said)] = counts.get((answer.value, said), 0) + 1
                if answer is Bound.CERTAIN and said:
                    wrong.append(f"{name}:{site.lineno} {site.id}")
    assert wrong == [], counts
    assert counts.get(("certain", False), 0) > 100, counts
    assert counts.get(("unbound", True), 0) > 50, counts
    # every UNBOUND is also an error to pyright (or code it finds unreachable)
    assert counts.get(("unbound", False), 0) <= counts.get(("unbound", True), 0) // 20, counts
