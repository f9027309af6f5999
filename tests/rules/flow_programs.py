"""Random small programs around bindings of ``config``, for the flow oracles.

Each module holds ``FUNCS_PER_FILE`` functions ``f0..f4(a, b, xs, v, load, sink)`` built of
nested if/else, for/else, while, ``while True`` (always with a reachable ``break``),
try/except/else/finally, ``with contextlib.suppress(...)``, match (on a fresh ``load()``),
``del``, walrus, ``return``/``raise``/``break``/``continue`` around bindings of ``config``,
and exactly one read ``sink(config)`` at a random statement position. ``finally`` blocks
never touch ``config`` and never end abruptly unconditionally (see test_flow_pyright.py
for why: pyright's handling of those differs, by design).
"""

from __future__ import annotations

import random

FUNCS_PER_FILE = 5


class ProgramGenerator:
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


def insert_sink(lines: list[str], rng: random.Random) -> list[str]:
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


def generate_module(rng: random.Random) -> str:
    gen = ProgramGenerator(rng)
    out = ["import contextlib", ""]
    for k in range(FUNCS_PER_FILE):
        body = [ln for chunk in gen.block(0, False) for ln in chunk.split("\n")]
        body = insert_sink(body, rng)
        out += [f"def f{k}(a, b, xs, v, load, sink):", *("    " + ln for ln in body), ""]
    return "\n".join(out) + "\n"


def compiles(src: str) -> bool:
    try:
        compile(src, "<gen>", "exec")
    except SyntaxError:
        return False
    return True
