"""``bound_at`` against an independent oracle: basedpyright's code-flow analysis.

Two runs of basedpyright (one subprocess each, it is slow to start): generated modules
(both directions checked) and real standard-library modules with injected reads (the
safety direction: CERTAIN is never flagged).

A seeded generator writes ~200 modules of small functions (nested if/try/for/while/with/
match/del/return/break/continue/walrus around bindings of ``config``, and one read of
``config`` at a marked site ``sink(config)`` per function); ``basedpyright --outputjson``
runs ONCE over the directory (it is slow to start). Then, at every marked site:

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
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ppo_migrate.analysis import flow as flow_mod
from ppo_migrate.analysis.flow import Bound, bound_at
from ppo_migrate.analysis.scopes import ScopeTree

N_FILES = 200
FUNCS_PER_FILE = 5
SEED = 13
PYRIGHT_RULES = {"reportPossiblyUnbound", "reportPossiblyUnboundVariable",
                 "reportUnboundVariable", "reportUndefinedVariable"}


def _pyright() -> list[str] | None:
    exe = shutil.which("basedpyright", path=str(Path(sys.executable).parent)) or \
        shutil.which("basedpyright")
    return [exe] if exe else None


class _Gen:
    """Random statement blocks, as source lines, around bindings of ``config``."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def block(self, depth: int, in_loop: bool, fin: bool = False) -> list[str]:
        n = self.rng.randint(1, 3)
        out: list[str] = []
        for _ in range(n):
            out += self.stmt(depth, in_loop, fin)
        return out

    @staticmethod
    def indent(lines: list[str]) -> list[str]:
        return ["    " + line for line in lines]

    def stmt(self, depth: int, in_loop: bool, fin: bool) -> list[str]:
        r = self.rng
        simple = ["config = load()", "config = load()", "pass", "del config",
                  "if (config := load()):\n    pass", "x = load()"]
        choices = ["simple"] * 4
        if depth < 3:
            choices += ["if", "ifelse", "for", "while", "whiletrue", "try", "with", "match"]
        if in_loop:
            choices += ["break", "continue"]
        choices += ["return", "raise"]
        kind = r.choice(choices)
        if kind == "simple":
            return r.choice(simple).split("\n")
        if kind in ("break", "continue"):
            return ["if b:", f"    {kind}"] if fin or r.random() < 0.7 else [kind]
        if kind == "return":
            return ["if a:", "    return None"] if fin or r.random() < 0.7 else ["return None"]
        if kind == "raise":
            return ["if b:", "    raise ValueError"] if fin or r.random() < 0.7 else ["raise ValueError"]
        d = depth + 1
        if kind == "if":
            return ["if a:", *self.indent(self.block(d, in_loop, fin))]
        if kind == "ifelse":
            return ["if b:", *self.indent(self.block(d, in_loop, fin)), "else:",
                    *self.indent(self.block(d, in_loop, fin))]
        if kind == "for":
            out = ["for item in xs:", *self.indent(self.block(d, True, fin))]
            if r.random() < 0.4:
                out += ["else:", *self.indent(self.block(d, in_loop, fin))]
            return out
        if kind == "while":
            return ["while a:", *self.indent(self.block(d, True, fin))]
        if kind == "whiletrue":
            body = self.block(d, True, fin)
            body.insert(r.randint(0, len(body)), "if b:\n    break")
            lines = [ln for chunk in body for ln in chunk.split("\n")]
            return ["while True:", *self.indent(lines)]
        if kind == "try":
            out = ["try:", *self.indent(self.block(d, in_loop, fin))]
            handlers = r.randint(0, 2)
            for i in range(handlers):
                head = r.choice(["except ValueError:", "except Exception:",
                                 "except KeyError as config:"])
                out += [head, *self.indent(self.block(d, in_loop, fin))]
            if handlers and r.random() < 0.3:
                out += ["else:", *self.indent(self.block(d, in_loop, fin))]
            if not handlers or r.random() < 0.3:
                final = [ln.replace("config", "spare") for ln in self.block(d, in_loop, True)]
                out += ["finally:", *self.indent(final)]
            return out
        if kind == "with":
            return ["with contextlib.suppress(ValueError):", *self.indent(self.block(d, in_loop, fin))]
        # match
        out = ["match load():"]  # a fresh subject: no narrowing across nested matches
        cases = r.sample(["case [config]:", "case {'k': config} if config:", "case int():",
                          "case [_, other]:", "case config if a:"], r.randint(1, 3))
        if r.random() < 0.5:
            cases.append("case _:")
        for c in cases:
            out += self.indent([c, *self.indent(self.block(d, in_loop, fin))])
        return out


def _insert_sink(lines: list[str], rng: random.Random) -> list[str]:
    """Put ``sink(config)`` at a random statement position (any block, any depth)."""
    spots = []
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        ind = len(line) - len(stripped)
        spots.append((i, ind))
        if stripped.endswith(":"):
            spots.append((i + 1, ind + 4))
    spots.append((len(lines), 0))
    i, ind = rng.choice(spots)
    # only a position where that indentation continues the block above (or opens one)
    return [*lines[:i], " " * ind + "sink(config)", *lines[i:]]


def _module(rng: random.Random) -> str:
    gen = _Gen(rng)
    out = ["import contextlib", ""]
    for k in range(FUNCS_PER_FILE):
        body = [ln for chunk in gen.block(0, False) for ln in chunk.split("\n")]
        body = _insert_sink(body, rng)
        out += [f"def f{k}(a, b, xs, v, load, sink):", *("    " + ln for ln in body), ""]
    return "\n".join(out) + "\n"


def _valid(src: str) -> bool:
    try:
        compile(src, "<gen>", "exec")
    except SyntaxError:
        return False
    return True


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("pyright_flow")
    rng = random.Random(SEED)
    sources: dict[str, str] = {}
    while len(sources) < N_FILES:
        src = _module(rng)
        if _valid(src):
            name = f"gen_{len(sources):03d}.py"
            (root / name).write_text(src, encoding="utf-8")
            sources[name] = src
    config = {"typeCheckingMode": "off", "reportPossiblyUnboundVariable": "error",
              "reportUnboundVariable": "error", "reportUndefinedVariable": "error",
              "pythonVersion": f"{sys.version_info[0]}.{sys.version_info[1]}"}
    (root / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    return root, sources


def _pyright_diagnostics(root: Path) -> set[tuple[str, int, int]]:
    exe = _pyright()
    if exe is None:
        pytest.skip("basedpyright is not installed (pip install -e '.[test]')")
    proc = subprocess.run([*exe, "--outputjson", str(root)], capture_output=True, text=True,
                          timeout=300, cwd=root)
    report = json.loads(proc.stdout)
    assert report["summary"]["filesAnalyzed"] == N_FILES
    return {(Path(d["file"]).name, d["range"]["start"]["line"] + 1, d["range"]["start"]["character"])
            for d in report["generalDiagnostics"] if d.get("rule") in PYRIGHT_RULES}


def test_bound_at_agrees_with_basedpyright(generated) -> None:
    root, sources = generated
    flagged = _pyright_diagnostics(root)
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


def test_certain_on_real_files_is_never_flagged_by_basedpyright(tmp_path) -> None:
    """Standard-library modules with a read of a local injected in every function: where
    ``bound_at`` says CERTAIN, pyright reports nothing (the safety direction; pyright's extra
    knowledge — NoReturn inference, platform checks — only makes it flag less)."""
    from conftest import stdlib_files

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
            (tmp_path / name).write_text(src, encoding="utf-8")
            written[name] = src
    config = {"typeCheckingMode": "off", "reportPossiblyUnboundVariable": "error",
              "reportUnboundVariable": "error", "reportUndefinedVariable": "error",
              "pythonVersion": f"{sys.version_info[0]}.{sys.version_info[1]}"}
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    exe = _pyright()
    if exe is None:
        pytest.skip("basedpyright is not installed (pip install -e '.[test]')")
    proc = subprocess.run([*exe, "--outputjson", str(tmp_path)], capture_output=True,
                          text=True, timeout=300, cwd=tmp_path)
    report = json.loads(proc.stdout)
    flagged = {(Path(d["file"]).name, d["range"]["start"]["line"] + 1,
                d["range"]["start"]["character"])
               for d in report["generalDiagnostics"] if d.get("rule") in PYRIGHT_RULES}
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
