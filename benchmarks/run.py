#!/usr/bin/env python3
"""Benchmark ppo-migrate against ruff, grep and libcst.tool (issue 6).

One command from a fresh checkout (after ``pip install -e .`` and ``pip install ruff``)::

    python benchmarks/run.py                # everything; about an hour on 2 busy cores
    python benchmarks/run.py --only 1,2,4   # skip the long apply comparison
    python benchmarks/run.py --quick        # small trees, one run: a smoke test only

It builds its input trees reproducibly (one fixed seed per module) under
``benchmarks/trees/`` (git-ignored; rebuilt only when the generator changes), each tree a
git repository of its own (``git init``: the tool's project-wide searches end at the git
top level, which would otherwise be this checkout, its tests and fixtures), runs
the commands of each measurement interleaved (after one untimed warm-up round), and
prints one table of medians and the target ratios with PASS/FAIL; the exit status is
1 when a target is missed.

1. No-hit tree: torch's installed sources -- ``ppo-migrate check`` vs
   ``ruff check --no-cache --select F401 --exit-zero`` vs ``grep -rlF``
   (``--include=*.py``, so grep reads the files the others read, not torch's
   shared libraries).
2. Real-shaped tree: 3,000 generated modules (log-normal sizes, ~250 lines on
   average) of which 1% call the runtime -- the same three commands, on two versions
   of the tree: 2a after migration (every call passes its config: what CI checks on
   every build) and 2b before it (every call configless: each is analysed in full).
3. All-candidates tree: 2,000 generated trainer modules with configless calls --
   ``ppo-migrate apply --jobs 1`` vs ``--jobs 2`` vs ``python -m libcst.tool codemod
   -x ppo_migrate.codemod.PassConfigCommand --no-format -j 2``, each on a fresh copy;
   the rewritten trees are compared (they must be identical).
4. Peak RSS (largest process, via ``getrusage(RUSAGE_CHILDREN)`` in a fresh wrapper)
   of ``ppo-migrate check`` on a 1k-file real-shaped tree and on a 10k-file tree made
   of ten copies of it (same largest file, so only the file count grows); and
   ``python -X importtime -c "import ppo_runtime"`` against a bare interpreter.
5. The analysis core per candidate file against ``ast.parse`` (in-process; issue 13).
6. The real un-migrated tree (issue 13): the files of the verl 0.5.0, 0.6.1, 0.7.1 and
   0.8.0 wheels (``pip download --no-deps``) unpacked side by side --
   ``ppo-migrate check`` vs ``ruff check --no-cache --select F401 --exit-zero``.
7. The caller phase (issue 13): a 400-file chain (each helper's configless call is a
   PPO002 whose caller, in the next file, has the config) -- ``check --jobs 2`` with
   its caller hints vs the same run with ``--ignore PPO002`` (the per-file phase alone).
8. A 1 MB module (issue 13): ~5,500 functions, each making a configless call with its
   ``config`` parameter in scope -- peak RSS of ``check`` and of ``apply --diff``
   (bound 300 MB), beside ``python -c "ast.parse(...)"`` of the same file (the anchor);
   and the wall time of ``apply --diff`` against ``check`` (the diff of 5,500 changed
   lines in a file of repeated lines; ``difflib`` alone took 40 s there).

9-14 are issue 26's targets for the project model (each a ratio measured in one run):

9. All-hit tree: 135 generated trainer modules, every one naming the runtime function --
   ``ppo-migrate check`` vs a ``python -c`` that reads and ``ast.parse``\ s the same files
   (bound 3).
10. The caller phase on 600 files: item 7's chain at 600 modules, ``check`` vs the same
    ``ast.parse`` anchor (bound 4).
11. One PPO002 in a ``def main()`` added to a 1,000-file tree that never names the function:
    ``check`` of that tree vs ``check`` of the tree without it (bound 2).
12. ``apply --diff --jobs 2`` vs ``--jobs 1`` on 200 files that each make 15 configless
    calls (speed-up at least 1.6; the machine's own parallel capacity is printed beside it).
13. ``check`` on verl's tree before PR #6976 (the verl 0.8.0 wheel unpacked, or
    ``--verl-tree PATH`` for a checkout) and, with ``--recipe-tree PATH``, on a verl-recipe
    checkout, vs ``ruff check --no-cache --select F401 --exit-zero`` (bound 3).
14. ``check`` on an empty folder vs ``python -c pass`` (bound 2).

Child processes run without ``PYTHONDONTWRITEBYTECODE`` so that, as in a normal
installation, modules load from cached bytecode (the warm-up round writes it).
Times are wall-clock medians on whatever else the machine is doing; interleaving
the commands of a measurement spreads that noise evenly over them.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
TREES = HERE / "trees"

#: Bump when a generator changes; trees with another stamp are rebuilt.
GENERATOR_VERSION = 7  # 7: every tree a git repository of its own
TARGET_NAME = "get_ppo_ray_runtime_env"

REAL_SHAPED_FILES = 3000
TRAINER_FILES = 2000
RSS_SMALL, RSS_LARGE = 1000, 10000
QUICK_SCALE = 0.05  # --quick: tree sizes x this, under trees/quick/
CANDIDATE_SHARE = 0.01


# =========================================================================== tree generators

_WORDS = (
    "actor critic rollout reward ref model policy value advantage batch token sample "
    "buffer worker shard micro mini epoch step loss grad optim sched config data "
    "dataset loader tokenizer prompt response mask logits prob entropy kl clip ratio "
    "metric timer trace cache device mesh rank world group param weight bias layer "
    "block head embed norm attn mlp seq length pad chunk stream queue job task node "
    "manager engine backend state ckpt save load path dir file url name key item"
).split()
_TYPES = ("int", "float", "str", "bool", "dict[str, Any]", "list[int]", "Optional[str]", "Any")
_STDLIB = (
    "import os",
    "import sys",
    "import json",
    "import math",
    "import time",
    "import logging",
    "import re",
    "import functools",
    "import itertools",
    "from collections import defaultdict",
    "from dataclasses import dataclass, field",
    "from pathlib import Path",
    "from typing import Any, Optional",
    "from contextlib import contextmanager",
)
_THIRD_PARTY = (
    "import numpy as np",
    "import torch",
    "import torch.nn as nn",
    "import torch.distributed as dist",
    "import ray",
    "from omegaconf import DictConfig, OmegaConf",
    "from transformers import AutoTokenizer",
)


class _Gen:
    """Random but reproducible Python source in the shape of an ML training repository."""

    def __init__(self, rng: random.Random) -> None:
        self.r = rng

    def ident(self, parts: int = 2) -> str:
        return "_".join(self.r.choice(_WORDS) for _ in range(parts))

    def cls_name(self) -> str:
        return "".join(self.r.choice(_WORDS).capitalize() for _ in range(2))

    def expr(self, depth: int = 0) -> str:
        r = self.r
        k = r.randrange(9 if depth < 2 else 4)
        if k == 0:
            return str(r.randrange(1000))
        if k == 1:
            return repr(self.ident(r.randrange(1, 3)))
        if k == 2:
            return self.ident(1)
        if k == 3:
            return f"self.{self.ident()}"
        if k == 4:
            return f"{self.expr(depth + 1)} {r.choice('+-*')} {self.expr(depth + 1)}"
        if k == 5:
            args = ", ".join(self.expr(depth + 1) for _ in range(r.randrange(3)))
            return f"{self.ident()}({args})"
        if k == 6:
            return f"[{self.ident(1)} for {self.ident(1)}_i in range({r.randrange(2, 64)})]"
        if k == 7:
            return f'f"{self.ident()}={{{self.ident(1)}}}"'
        return f"{{{repr(self.ident(1))}: {self.expr(depth + 1)}}}"

    def stmts(self, indent: int, n: int, depth: int = 0) -> list[str]:
        r, pad, out = self.r, " " * indent, []
        for _ in range(n):
            k = r.randrange(12 if depth < 2 else 6)
            if k <= 2:
                out.append(f"{pad}{self.ident()} = {self.expr()}")
            elif k == 3:
                out.append(f"{pad}self.{self.ident()} = {self.expr()}")
            elif k == 4:
                out.append(f"{pad}logger.info({self.expr()!s})")
            elif k == 5:
                out.append(
                    f"{pad}# {' '.join(r.choice(_WORDS) for _ in range(r.randrange(4, 12)))}"
                )
                out.append(f"{pad}{self.ident()} = {self.expr()}")
            elif k == 6:
                out.append(f"{pad}if {self.expr()} > {r.randrange(100)}:")
                out += self.stmts(indent + 4, r.randrange(1, 4), depth + 1)
                if r.random() < 0.4:
                    out.append(f"{pad}else:")
                    out += self.stmts(indent + 4, r.randrange(1, 3), depth + 1)
            elif k == 7:
                out.append(f"{pad}for {self.ident(1)} in {self.expr()}:")
                out += self.stmts(indent + 4, r.randrange(1, 4), depth + 1)
            elif k == 8:
                out.append(f"{pad}try:")
                out += self.stmts(indent + 4, r.randrange(1, 3), depth + 1)
                out.append(f"{pad}except (ValueError, KeyError) as exc:")
                out.append(f"{pad}    logger.warning('failed: %s', exc)")
            elif k == 9:
                out.append(f"{pad}with {self.ident()}({self.expr()}) as {self.ident(1)}:")
                out += self.stmts(indent + 4, r.randrange(1, 3), depth + 1)
            elif k == 10:
                out.append(f"{pad}while {self.ident(1)} < {r.randrange(10, 99)}:")
                out += self.stmts(indent + 4, r.randrange(1, 3), depth + 1)
                out.append(f"{pad}    break")
            else:
                out.append(f"{pad}assert {self.expr()}, {repr(self.ident())}")
        return out

    def docstring(self, indent: int) -> list[str]:
        pad = " " * indent
        words = [self.r.choice(_WORDS) for _ in range(self.r.randrange(5, 30))]
        body = textwrap.wrap(" ".join(words).capitalize() + ".", 88 - indent)
        if len(body) == 1:
            return [f'{pad}"""{body[0]}"""']
        return [f'{pad}"""{body[0]}', "", *(pad + b for b in body[1:]), f'{pad}"""']

    def function(self, indent: int, method: bool, name: str | None = None) -> list[str]:
        r, pad = self.r, " " * indent
        params = ["self"] if method else []
        names = dict.fromkeys(self.ident() for _ in range(r.randrange(5)))
        params += [f"{n}: {r.choice(_TYPES)}" for n in names]
        if r.random() < 0.3:
            params.append(f"{self.ident(3)}: int = {r.randrange(64)}")
        out = []
        if r.random() < 0.15:
            out.append(
                f"{pad}@functools.lru_cache(maxsize=None)" if not method else f"{pad}@property"
            )
            if method:
                params = ["self"]
        out.append(f"{pad}def {name or self.ident()}({', '.join(params)}) -> {r.choice(_TYPES)}:")
        if r.random() < 0.7:
            out += self.docstring(indent + 4)
        out += self.stmts(indent + 4, r.randrange(2, 10))
        out.append(f"{pad}    return {self.expr()}")
        return out

    def klass(self) -> list[str]:
        r = self.r
        out = []
        if r.random() < 0.25:
            out.append("@dataclass")
            out.append(f"class {self.cls_name()}:")
            out += self.docstring(4)
            for _ in range(r.randrange(3, 12)):
                out.append(f"    {self.ident()}: {r.choice(_TYPES)} = {self.expr(2)}")
            return out
        base = r.choice(("", "(nn.Module)", "(object)", f"({self.cls_name()})"))
        out.append(f"class {self.cls_name()}{base}:")
        out += self.docstring(4)
        out += ["", *self.function(4, True, "__init__")]
        for _ in range(r.randrange(1, 7)):
            out += ["", *self.function(4, True)]
        return out

    def header(self, package: str, siblings: Sequence[str]) -> list[str]:
        r = self.r
        out = self.docstring(0)
        out += ["", "from __future__ import annotations", ""]
        out += sorted(r.sample(_STDLIB, r.randrange(2, 7)))
        out += [""] + sorted(r.sample(_THIRD_PARTY, r.randrange(0, 4)))
        if siblings:
            out.append("")
            for mod in r.sample(list(siblings), min(len(siblings), r.randrange(0, 4))):
                out.append(f"from {package}.{mod} import {self.ident()}, {self.ident()}")
        out += ["", "logger = logging.getLogger(__name__)"]
        for _ in range(r.randrange(0, 4)):
            out.append(f"{self.ident().upper()} = {self.expr(2)}")
        return out

    def module(self, package: str, siblings: Sequence[str], target_lines: int) -> list[str]:
        out = self.header(package, siblings)
        while len(out) < target_lines:
            out += ["", ""]
            out += self.klass() if self.r.random() < 0.35 else self.function(0, False)
        return out

    def size(self) -> int:
        """Lines per module: log-normal, median ~150, mean ~270 as generated (verl: ~260)."""
        return int(min(2500, max(15, self.r.lognormvariate(5.0, 0.8))))


#: The call sites of the runtime function: (import, code). ``{a}`` is the config argument:
#: empty / ``None`` before migration (configless; a config is in scope through a parameter,
#: ``self.config`` or a closure), the config expression after it.
_CALL_SITES = (
    (
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env",
        """
def run_ppo_{i}(config) -> None:
    \"\"\"Initialise Ray with the PPO runtime env and start the task runner.\"\"\"
    if not ray.is_initialized():
        ray.init(
            runtime_env=get_ppo_ray_runtime_env({a}),
            num_cpus=config.ray_init.num_cpus,
        )
    runner = TaskRunner{i}.remote()
    ray.get(runner.run.remote(config))
""",
    ),
    (
        "from verl.trainer import constants_ppo",
        """
class TaskRunner{i}:
    \"\"\"Ray actor that builds the workers and runs the trainer.\"\"\"

    def __init__(self, config) -> None:
        self.config = config

    def run(self) -> dict:
        env = constants_ppo.get_ppo_ray_runtime_env({a})
        env.setdefault("env_vars", {{}})["RUNNER"] = "{i}"
        return env
""",
    ),
    (
        "import verl.trainer.constants_ppo as cppo",
        """
def make_launcher_{i}(cfg):
    def launch(num_gpus: int = 8) -> dict:
        return dict(runtime_env=cppo.get_ppo_ray_runtime_env({a}), num_gpus=num_gpus)

    return launch
""",
    ),
)
_CONFIGLESS_ARGS = ("", "None", "")
_MIGRATED_ARGS = ("config", "self.config", "cfg")
#: A script's entry point with no config in scope (PPO002, reported, not rewritten).
_MAIN_BLOCK = """
if __name__ == "__main__":
    ray.init(runtime_env=get_ppo_ray_runtime_env())
"""


def _trainer_sections(g: _Gen, i: int, kind: str) -> tuple[list[str], list[str]]:
    """Import lines and code blocks calling the runtime function.

    ``trainers``: every call site, configless, and a ``__main__`` entry point.
    ``real``: the ``run_ppo`` site and one other, configless. ``real-migrated``:
    the same sites passing their config, as ``ppo-migrate apply`` leaves them.
    """
    picks = [0, 1, 2] if kind == "trainers" else [0, g.r.choice((1, 2))]
    args = _MIGRATED_ARGS if kind == "real-migrated" else _CONFIGLESS_ARGS
    imports = sorted({_CALL_SITES[k][0] for k in picks} | {"import ray", _CALL_SITES[0][0]})
    blocks = [
        textwrap.dedent(_CALL_SITES[k][1]).strip("\n").format(i=i, a=args[k]).splitlines()
        for k in picks
    ]
    if kind == "trainers":
        blocks.append(_MAIN_BLOCK.strip("\n").splitlines())
    return imports, [line for b in blocks for line in ["", "", *b]]


def _stamp_ok(root: Path, stamp: dict) -> bool:
    try:
        return json.loads((root / ".bench-tree.json").read_text()) == stamp
    except (OSError, ValueError):
        return False


def _own_repository(root: Path) -> None:
    """Make ``root`` (created if missing) a git repository of its own, unless it is one.

    The trees live inside this checkout's work tree; without their own ``.git`` the git top
    level of a run on them is this checkout, and the project-wide searches (callers,
    overrides, copies of verl, pins) read this project's tests and fixtures."""
    root.mkdir(parents=True, exist_ok=True)
    if not (root / ".git").exists():
        subprocess.run(["git", "init", "-q", str(root)], check=True)


def _fresh_root(root: Path, kind: str) -> None:
    if root.exists():
        shutil.rmtree(root)
    (root / "src").mkdir(parents=True)
    _own_repository(root)
    (root / "pyproject.toml").write_text(
        # the verl the trees run is declared: since issue 26, a project that declares none
        # gets unsafe fixes only ("nothing says which verl runs"), and the trees meant to be
        # rewritten (items 3, 9, 12) were timed on a run that rewrote nothing
        f'[project]\nname = "bench-{kind}"\nversion = "0"\ndependencies = ["verl>=0.9"]\n'
        '\n[tool.ruff]\nline-length = 100\n'
        "\n[tool.ppo-migrate]\n"
    )
    (root / ".gitignore").write_text("__pycache__/\n*.egg-info/\nbuild/\n")


def _write_tree(root: Path, kind: str, n: int, seed: int) -> None:
    """(Re)build a generated tree of ``n`` modules unless its stamp says it is current.

    Every module comes from its own seeded generator, so a tree is the same on
    every machine. Modules sit in packages of 40 under ``src/repo/``.
    """
    stamp = {"version": GENERATOR_VERSION, "kind": kind, "files": n, "seed": seed}
    if _stamp_ok(root, stamp):
        return
    t0 = time.perf_counter()
    _fresh_root(root, kind)
    rng = random.Random(f"{kind}-{seed}")
    n_pkgs = max(1, n // 40)
    packages = [f"{rng.choice(_WORDS)}_{k}" for k in range(n_pkgs)]
    if kind == "trainers":
        candidates = set(range(n))
    else:
        candidates = set(rng.sample(range(n), max(1, round(n * CANDIDATE_SHARE))))
    by_pkg: dict[str, list[str]] = {p: [] for p in packages}
    layout = []
    for i in range(n):
        pkg = packages[i % n_pkgs]
        mod = f"{rng.choice(_WORDS)}_{rng.choice(_WORDS)}_{i}"
        by_pkg[pkg].append(mod)
        layout.append((i, pkg, mod))
    for pkg in packages:
        (root / "src" / "repo" / pkg).mkdir(parents=True)
        (root / "src" / "repo" / pkg / "__init__.py").write_text(f'"""The {pkg} package."""\n')
    for i, pkg, mod in layout:
        g = _Gen(random.Random(f"{kind}-{seed}-{i}"))
        siblings = [m for m in by_pkg[pkg][:8] if m != mod]
        size = g.size() if kind != "trainers" else 5 + g.r.randrange(25)
        lines = g.module(f"repo.{pkg}", siblings, size)
        if i in candidates:
            imports, blocks = _trainer_sections(g, i, kind)
            at = lines.index("logger = logging.getLogger(__name__)")
            lines[at:at] = [*imports, ""]
            lines += blocks
        (root / "src" / "repo" / pkg / f"{mod}.py").write_text("\n".join(lines) + "\n")
    (root / ".bench-tree.json").write_text(json.dumps(stamp))
    print(f"  built {root}: {n} modules in {time.perf_counter() - t0:.1f} s", file=sys.stderr)


def _write_copies(root: Path, source: Path, copies: int) -> None:
    """A tree of ``copies`` copies of ``source``'s modules (for the RSS comparison)."""
    stamp = {"version": GENERATOR_VERSION, "kind": "copies", "of": source.name, "copies": copies}
    if _stamp_ok(root, stamp):
        return
    _fresh_root(root, "copies")
    for k in range(copies):
        shutil.copytree(source / "src" / "repo", root / "src" / f"repo{k}")
    (root / ".bench-tree.json").write_text(json.dumps(stamp))


# =========================================================================== measuring


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # cached bytecode, as in a normal install
    env.pop("CI", None)
    return env


def _script(name: str) -> list[str] | None:
    """A console script of this interpreter's environment (not a version-manager shim)."""
    cand = Path(sysconfig.get_path("scripts")) / name
    if cand.exists():
        return [str(cand)]
    found = shutil.which(name)
    return [found] if found else None


def _ruff() -> list[str] | None:
    try:
        from ruff.__main__ import find_ruff_bin  # the binary itself, not a wrapper

        return [os.fsdecode(find_ruff_bin())]
    except Exception:
        return _script("ruff")


def _ppo() -> list[str]:
    return _script("ppo-migrate") or [sys.executable, "-m", "ppo_migrate"]


_last_cpu: list[float] = [0.0]  # CPU seconds (user + sys) of the last _run, children included


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _run(cmd: Sequence[str], cwd: Path, ok: Sequence[int] = (0,)) -> float:
    """Wall time of one run of ``cmd`` (output discarded); exits on an unexpected code.

    The CPU time it used, its worker processes included, is left in ``_last_cpu``.
    """
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run(
        cmd, cwd=cwd, env=_child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    elapsed = time.perf_counter() - t0
    _last_cpu[0] = _children_cpu() - cpu0
    if proc.returncode not in ok:
        sys.exit(f"benchmark: {' '.join(cmd)} exited {proc.returncode} (expected {ok})")
    # a crash exits 1 as findings do: a traceback is never a figure (an editable install
    # pointing at a deleted checkout once gave item 9 a ratio of 0.38)
    if b"Traceback (most recent call last)" in proc.stderr:
        tail = proc.stderr.decode(errors="replace").strip().splitlines()[-1]
        sys.exit(f"benchmark: {' '.join(cmd)} crashed: {tail}")
    return elapsed


_BUSY = "x = 0\nfor i in range(8_000_000):\n    x += i * i\n"


def _parallel_capacity() -> float:
    """How much faster 2 processes finish 2 units of pure-CPU work than 1 process 1 unit x2.

    2.0 on two idle cores; less while other work competes for them. This is the
    ceiling for any ``--jobs 2`` speed-up measured at the same time.
    """
    cmd = [sys.executable, "-c", _BUSY]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True)
    one = time.perf_counter() - t0
    t0 = time.perf_counter()
    procs = [subprocess.Popen(cmd) for _ in range(2)]
    for p in procs:
        p.wait()
    two = time.perf_counter() - t0
    return 2 * one / two


_RSS_WRAPPER = """
import resource, subprocess, sys
p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def _peak_rss_kib(cmd: Sequence[str], cwd: Path, ok: Sequence[int]) -> int:
    """Peak RSS (KiB) of the largest process of ``cmd`` and its waited-for children.

    Measured in a fresh wrapper process, because ``RUSAGE_CHILDREN`` accumulates
    over all children ever waited for.
    """
    out = subprocess.run(
        [sys.executable, "-c", _RSS_WRAPPER, *cmd],
        cwd=cwd,
        env=_child_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    code, rss = int(out[0]), int(out[1])
    if code not in ok:
        sys.exit(f"benchmark: {' '.join(cmd)} exited {code} (expected {ok})")
    return rss


@dataclass
class Row:
    """One line of the result table."""

    item: str
    what: str
    values: list[float] = field(default_factory=list)
    unit: str = "s"
    cpu: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    def cell(self) -> str:
        m = self.median
        if self.unit == "s":
            return f"{m:8.3f} s" if m < 100 else f"{m:8.1f} s"
        if self.unit == "ms":
            return f"{m:8.1f} ms"
        return f"{m / 1024:8.1f} MiB"

    def cpu_cell(self) -> str:
        return f"{statistics.median(self.cpu):7.2f} s" if self.cpu else ""

    def spread(self) -> str:
        if len(self.values) < 2:
            return ""
        lo, hi = min(self.values), max(self.values)
        if self.unit == "KiB":
            return f"{lo / 1024:.1f}-{hi / 1024:.1f}"
        return f"{lo:.3f}-{hi:.3f}" if self.unit == "s" else f"{lo:.1f}-{hi:.1f}"


def _interleaved(
    label: str,
    runs: int,
    commands: dict[str, Callable[[], float]],
    rows: dict[str, Row],
    warm_up: bool = True,
) -> None:
    """Run every command once untimed (page cache, bytecode), then ``runs`` rounds of all."""
    if warm_up:
        for fn in commands.values():
            fn()
    for k in range(runs):
        for name, fn in commands.items():
            rows[name].values.append(fn())
            if rows[name].unit == "s":
                rows[name].cpu.append(_last_cpu[0])
        print(f"  {label}: run {k + 1}/{runs} done", file=sys.stderr)


def _tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py")):
        h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def _count_py(root: Path) -> int:
    return sum(1 for _ in root.rglob("*.py"))


def _importtime_us(module: str) -> int:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        env=_child_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    for line in proc.stderr.splitlines():
        parts = [p.strip() for p in line.split("|")]
        if len(parts) == 3 and parts[2] == module:
            return int(parts[1])
    raise RuntimeError(f"no importtime line for {module}")


# =========================================================================== the benchmark


@dataclass
class Report:
    """Rows of the table, target lines and notes."""

    rows: list[Row] = field(default_factory=list)
    targets: list[tuple[str, float, str, bool]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def target(self, name: str, value: float, bound: str, ok: bool) -> None:
        self.targets.append((name, value, bound, ok))


def _check_trio(rep: Report, item: str, tree: Path, runs: int, ppo_ok: Sequence[int]) -> None:
    """Item 1 and 2: ppo-migrate check vs ruff vs grep on one tree, interleaved."""
    rep.notes.append(f"{item.split()[0]}: load average at start {_load()}")
    ppo, ruff = _ppo(), _ruff()
    assert ruff is not None
    grep = shutil.which("grep") or "grep"
    grep_ok = (0, 1)  # 1: no file names it (tree 1)
    r = {
        "ppo": Row(item, "ppo-migrate check"),
        "ruff": Row(item, "ruff check --no-cache --select F401 --exit-zero"),
        "grep": Row(item, f"grep -rlF --include=*.py {TARGET_NAME}"),
    }
    _interleaved(
        item,
        runs,
        {
            "ppo": lambda: _run([*ppo, "check", str(tree)], tree, ppo_ok),
            "ruff": lambda: _run(
                [*ruff, "check", "--no-cache", "--select", "F401", "--exit-zero", str(tree)], tree
            ),
            "grep": lambda: _run(
                [grep, "-rlF", "--include=*.py", TARGET_NAME, str(tree)], tree, grep_ok
            ),
        },
        r,
    )
    rep.rows.extend(r.values())
    ratio = r["ppo"].median / r["ruff"].median
    rep.target(f"{item.split()[0]}: check / ruff", ratio, "<= 0.50", ratio <= 0.5)


def _item3(rep: Report, trainers: Path, runs: int) -> None:
    """Item 3: apply --jobs 1 / --jobs 2 / libcst.tool -j 2, each on a fresh copy."""
    rep.notes.append(f"3: load average at start {_load()}")
    ppo = _ppo()
    work = trainers.parent / "trainers-work"
    item = "3 all-candidates"
    r = {
        "j1": Row(item, "ppo-migrate apply --jobs 1"),
        "j2": Row(item, "ppo-migrate apply --jobs 2"),
        "cst": Row(item, "libcst.tool codemod -j 2 --no-format"),
    }
    digests: dict[str, set[str]] = {}
    capacity: list[float] = []

    def fresh_run(name: str, cmd: list[str], ok: Sequence[int]) -> Callable[[], float]:
        def fn() -> float:
            if work.exists():
                shutil.rmtree(work)
            shutil.copytree(trainers, work)
            t = _run(cmd, work, ok)
            cpu = _last_cpu[0]
            digests.setdefault(name, set()).add(_tree_digest(work))
            if name == "j2":
                capacity.append(_parallel_capacity())
            _last_cpu[0] = cpu
            return t

        return fn

    libcst_cmd = [
        sys.executable, "-m", "libcst.tool", "codemod", "-x",
        "ppo_migrate.codemod.PassConfigCommand", "--no-format", "--hide-progress",
        "-j", "2", str(work),
    ]  # fmt: skip
    _interleaved(
        item,
        runs,
        {
            "j1": fresh_run("j1", [*ppo, "apply", "--jobs", "1", str(work)], (1,)),
            "j2": fresh_run("j2", [*ppo, "apply", "--jobs", "2", str(work)], (1,)),
            "cst": fresh_run("cst", libcst_cmd, (0, 1)),
        },
        r,
        warm_up=False,  # minutes per run; the copy warms the page cache
    )
    shutil.rmtree(work, ignore_errors=True)
    rep.rows.extend(r.values())
    all_digests = set().union(*digests.values())
    same = len(all_digests) == 1 and _tree_digest(trainers) not in all_digests
    rep.notes.append(
        f"3: the rewritten trees are {'identical' if same else 'NOT identical'} for all three "
        "commands and all runs"
    )
    rep.notes.append(
        "3: 2 processes vs 1 on pure-CPU work, measured after each --jobs 2 run (2.0 on two "
        f"idle cores; the ceiling for the speed-up): median {statistics.median(capacity):.2f}, "
        f"runs {', '.join(f'{c:.2f}' for c in capacity)}"
    )
    speedup = r["j1"].median / r["j2"].median
    rep.target("3: apply --jobs 1 / --jobs 2", speedup, ">= 1.60", speedup >= 1.6)
    vs = r["cst"].median / r["j2"].median
    rep.target("3: libcst.tool -j 2 / apply --jobs 2", vs, ">= 1.00", vs >= 1.0)


def _item4(rep: Report, small: Path, large: Path, runs: int, import_runs: int) -> None:
    """Item 4: peak RSS of check at 1k and 10k files; import ppo_runtime vs bare start."""
    ppo = _ppo()
    r = {
        "1k": Row("4 peak RSS", f"ppo-migrate check, {_count_py(small)} files", unit="KiB"),
        "10k": Row("4 peak RSS", f"ppo-migrate check, {_count_py(large)} files", unit="KiB"),
    }
    _interleaved(
        "4 peak RSS",
        runs,
        {
            "1k": lambda: _peak_rss_kib([*ppo, "check", str(small)], small, (1,)),
            "10k": lambda: _peak_rss_kib([*ppo, "check", str(large)], large, (1,)),
        },
        r,
        warm_up=False,
    )
    rep.rows.extend(r.values())
    growth = r["10k"].median / r["1k"].median
    rep.target("4: peak RSS 10k / 1k files", growth, "<= 1.20", growth <= 1.2)

    imp = {
        "bare": Row("4 import", "python -c pass"),
        "rt": Row("4 import", 'python -c "import ppo_runtime"'),
        "it": Row("4 import", "-X importtime: ppo_runtime cumulative", unit="ms"),
    }
    _interleaved(
        "4 import",
        import_runs,
        {
            "bare": lambda: _run([sys.executable, "-c", "pass"], REPO),
            "rt": lambda: _run([sys.executable, "-c", "import ppo_runtime"], REPO),
            "it": lambda: _importtime_us("ppo_runtime") / 1000,
        },
        imp,
    )
    rep.rows.extend(imp.values())
    it = imp["it"].median
    rep.target("4: import ppo_runtime, -X importtime (ms)", it, "< 30", it < 30)
    delta = (imp["rt"].median - imp["bare"].median) * 1000
    rep.target("4: import ppo_runtime, wall - bare (ms)", delta, "< 30", delta < 30)


def main(argv: Sequence[str] | None = None) -> int:
    """Build the trees, run the measurements, print the table; exit 1 if a target fails."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="timed runs of items 1 and 2 (median)")
    ap.add_argument("--apply-runs", type=int, default=3, help="timed runs of item 3 (long)")
    ap.add_argument("--rss-runs", type=int, default=3, help="runs of the peak-RSS measurement")
    ap.add_argument("--import-runs", type=int, default=20, help="runs of the import timing")
    ap.add_argument(
        "--only",
        default="1,2,3,4,5,6,7,8,9,10,11,12,13,14",
        help="items to run, e.g. 1,2 (default: all)",
    )
    ap.add_argument("--verl-tree", type=Path, help="item 13: a verl checkout before PR #6976")
    ap.add_argument("--recipe-tree", type=Path, help="item 13: a verl-recipe checkout")
    ap.add_argument(
        "--quick", action="store_true", help="small trees and one run each (smoke test only)"
    )
    args = ap.parse_args(argv)
    only = {s.strip() for s in args.only.split(",")}
    scale = 1.0
    trees = TREES
    if args.quick:
        scale, trees = QUICK_SCALE, TREES / "quick"
        args.runs = args.apply_runs = args.rss_runs = 1
        args.import_runs = 3

    def n(files: int) -> int:
        return max(20, round(files * scale))

    if _ruff() is None:
        sys.exit("benchmark: ruff not found (pip install ruff)")
    trees.mkdir(parents=True, exist_ok=True)
    rep = Report()
    real = trees / "real-shaped"
    migrated = trees / "real-shaped-migrated"
    trainers = trees / "trainers"
    small, large = trees / "rss-1k", trees / "rss-10k"
    print("building trees (once; rebuilt only when the generator changes) ...", file=sys.stderr)
    if "2" in only:
        _write_tree(real, "real", n(REAL_SHAPED_FILES), 2)
        _write_tree(migrated, "real-migrated", n(REAL_SHAPED_FILES), 2)
    if "3" in only:
        _write_tree(trainers, "trainers", n(TRAINER_FILES), 3)
    if "4" in only:
        _write_tree(small, "real", n(RSS_SMALL), 4)
        _write_copies(large, small, RSS_LARGE // RSS_SMALL)

    if "1" in only:
        spec = importlib.util.find_spec("torch")
        if spec is None or not spec.origin:
            sys.exit("benchmark: torch is not installed (item 1 checks its sources)")
        torch_dir = Path(spec.origin).parent
        rep.notes.append(f"1: {torch_dir} ({_count_py(torch_dir)} .py files)")
        _check_trio(rep, "1 torch (no hit)", torch_dir, args.runs, (0,))
    if "2" in only:
        for tree, label in ((migrated, "2a migrated (1%)"), (real, "2b configless (1%)")):
            rep.notes.append(
                f"{label.split()[0]}: {tree.relative_to(REPO)} ({_count_py(tree)} .py files, "
                f"{_lines(tree)} lines; {_naming(tree)} name the runtime function)"
            )
        _check_trio(rep, "2a migrated (1%)", migrated, args.runs, (0,))
        _check_trio(rep, "2b configless (1%)", real, args.runs, (1,))
    if "3" in only:
        rep.notes.append(
            f"3: {trainers.relative_to(REPO)} ({_count_py(trainers)} .py files, "
            f"{_lines(trainers)} lines)"
        )
        _item3(rep, trainers, max(1, args.apply_runs))
    if "4" in only:
        rep.notes.append(
            f"4: {small.relative_to(REPO)} ({_naming(small)} of {_count_py(small)} files name the "
            f"runtime function); {large.relative_to(REPO)} = {RSS_LARGE // RSS_SMALL} copies of it"
        )
        _item4(rep, small, large, max(1, args.rss_runs), max(3, args.import_runs))
    if "5" in only:
        _item5(rep, n(ALL_CANDIDATE_FILES), 3)
    if "6" in only:
        verl_tree = _verl_tree(trees / "verl-wheels", TREES / "verl-wheels")
        rep.notes.append(
            f"6: {verl_tree.relative_to(REPO)} (verl {', '.join(VERL_VERSIONS)} wheels unpacked "
            f"side by side: {_count_py(verl_tree)} .py files, {_lines(verl_tree)} lines; "
            f"{_naming(verl_tree)} name the runtime function)"
        )
        _item6(rep, verl_tree, args.runs)
    if "7" in only:
        chain = trees / "caller-chain"
        _write_chain(chain, n(CHAIN_FILES))
        rep.notes.append(
            f"7: {chain.relative_to(REPO)} ({_count_py(chain)} .py files: each helper makes a "
            "configless call, its caller in the next file has `config`)"
        )
        _item7(rep, chain, args.runs)
    if "8" in only:
        big = trees / "one-mb" / "big.py"
        _write_big_module(big, round(BIG_MODULE_BYTES * scale))
        rep.notes.append(
            f"8: {big.relative_to(REPO)} ({big.stat().st_size:,} bytes, "
            f"{big.read_bytes().count(TARGET_NAME.encode() + b'()')} configless calls)"
        )
        _item8(rep, big, max(1, args.rss_runs))

    _project_model_items(rep, args, trees, only, n)

    _print_report(rep, args)
    return 0 if all(t[3] for t in rep.targets) else 1


ALL_CANDIDATE_FILES = 2000  # item 5: real files with a call injected into every function


def _inject_calls(text: str, rng: random.Random) -> str | None:
    """``text`` with a configless call before one random statement of every function (at
    the statement's indentation) and the import at the end; ``None`` when that is not
    valid Python (or the file is not)."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    lines = text.split("\n")
    inserts: dict[int, int] = {}
    for func in ast.walk(tree):
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stmts = [
                s for s in ast.walk(func)
                if isinstance(s, ast.stmt) and s is not func
                and not getattr(s, "decorator_list", None)
                and not lines[s.lineno - 1][: s.col_offset].strip()
            ]
            if stmts:
                spot = rng.choice(stmts)
                inserts.setdefault(spot.lineno, spot.col_offset)
    if not inserts:
        return None
    for lineno in sorted(inserts, reverse=True):
        lines.insert(lineno - 1, " " * inserts[lineno] + f"{TARGET_NAME}()")
    out = "\n".join(lines) + f"\nfrom verl.trainer.constants_ppo import {TARGET_NAME}\n"
    try:
        compile(out, "<bench>", "exec", ast.PyCF_ONLY_AST)
    except (SyntaxError, ValueError):
        return None
    return out


def _item5(rep: Report, n_files: int, runs: int) -> None:
    """Item 5 (issue 13): the analysis of a candidate file against Python's own parse of it,
    on real files (the standard library's and torch's) with a call injected into every
    function; per file the best of ``runs`` timings of each, the median ratio is the target."""
    import ast
    import sysconfig
    import time

    from ppo_migrate.rules.check import analyse
    from ppo_migrate.settings_model import Settings

    roots = [Path(sysconfig.get_paths()["stdlib"])]
    spec = importlib.util.find_spec("torch")
    if spec is not None and spec.origin:
        roots.append(Path(spec.origin).parent)
    paths = sorted(
        p for r in roots for p in r.rglob("*.py")
        if "site-packages" not in p.relative_to(r).parts and "test" not in p.parts
        and "tests" not in p.parts
    )
    rng = random.Random(5)
    rng.shuffle(paths)
    settings = Settings()
    parse_row, analyse_row = Row("5 all-candidate", "ast.parse per file"), Row(
        "5 all-candidate", "analyse per file (the check core)"
    )
    parse_row.unit = analyse_row.unit = "ms"
    ratios: list[float] = []
    rep.notes.append(f"5: load average at start {_load()}")
    for p in paths:
        if len(ratios) >= n_files:
            break
        try:
            text = _inject_calls(p.read_text(encoding="utf-8"), rng)
        except (OSError, UnicodeDecodeError):
            continue
        if text is None or len(text) > 1 << 20:
            continue
        best_parse = best_analyse = float("inf")
        for _ in range(runs):
            t0 = time.perf_counter()
            compile(text, "bench.py", "exec", ast.PyCF_ONLY_AST)
            t1 = time.perf_counter()
            analyse(text, "bench.py", settings)
            t2 = time.perf_counter()
            best_parse, best_analyse = min(best_parse, t1 - t0), min(best_analyse, t2 - t1)
        parse_row.values.append(best_parse * 1000)
        analyse_row.values.append(best_analyse * 1000)
        ratios.append(best_analyse / best_parse)
    rep.rows += [parse_row, analyse_row]
    ratio = statistics.median(ratios)
    rep.target("5: analyse / ast.parse per candidate (median)", ratio, "<= 4.00", ratio <= 4.0)
    rep.notes.append(
        f"5: {len(ratios)} files of {', '.join(str(r) for r in roots)} with a call injected "
        f"into every function; ratio quartiles {statistics.quantiles(ratios, n=4)}"
    )


#: Item 6: the verl releases whose wheels make the real un-migrated tree (issue 13).
VERL_VERSIONS = ("0.5.0", "0.6.1", "0.7.1", "0.8.0")


def _verl_tree(wheels: Path, shared: Path) -> Path:
    """``<wheels>/tree/verl-<v>/`` for each of :data:`VERL_VERSIONS`: the wheel's files
    unpacked side by side (the sources as published, not migrated). The wheels come from
    ``pip download --no-deps verl==<v>`` (once, into ``shared``: ``--quick`` reuses them)."""
    import zipfile

    shared.mkdir(parents=True, exist_ok=True)
    tree = wheels / "tree"
    _own_repository(tree)  # item 6's root: the four versions side by side
    for v in VERL_VERSIONS:
        found = sorted(shared.glob(f"verl-{v}-*.whl"))
        if not found:
            print(f"  pip download --no-deps verl=={v} ...", file=sys.stderr)
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(shared),
                 f"verl=={v}"],
                check=True,
            )
            found = sorted(shared.glob(f"verl-{v}-*.whl"))
        dest = tree / f"verl-{v}"
        stamp = dest / ".unpacked-from"
        if stamp.is_file() and stamp.read_text() == found[0].name and (dest / ".git").is_dir():
            continue
        shutil.rmtree(dest, ignore_errors=True)
        with zipfile.ZipFile(found[0]) as zf:
            zf.extractall(dest)
        _own_repository(dest)  # item 13's root: one version alone
        stamp.write_text(found[0].name)
    return tree


def _item6(rep: Report, tree: Path, runs: int) -> None:
    """Item 6 (issue 13): the real un-migrated tree, ``check`` against ruff, interleaved."""
    rep.notes.append(f"6: load average at start {_load()}")
    ppo, ruff = _ppo(), _ruff()
    assert ruff is not None
    item = "6 verl 0.5-0.8"
    r = {
        "ppo": Row(item, "ppo-migrate check"),
        "ruff": Row(item, "ruff check --no-cache --select F401 --exit-zero"),
    }
    _interleaved(
        item,
        runs,
        {
            "ppo": lambda: _run([*ppo, "check", str(tree)], tree, (0, 1)),
            "ruff": lambda: _run(
                [*ruff, "check", "--no-cache", "--select", "F401", "--exit-zero", str(tree)], tree
            ),
        },
        r,
    )
    rep.rows.extend(r.values())
    ratio = r["ppo"].median / r["ruff"].median
    rep.target("6: verl check / ruff", ratio, "<= 0.50", ratio <= 0.5)


CHAIN_FILES = 400  # item 7: files of the caller chain


def _write_chain(root: Path, n: int) -> None:
    """``n`` modules of one package: ``m<i>.helper_<i>(address)`` calls the runtime without
    a config (a PPO002 whose hint needs the callers) and ``m<i>.run_<i>(config)`` calls
    ``helper_<i-1>`` (its caller, with the config); the shape the caller phase took more
    than 9 minutes on before issue 13."""
    stamp = {"version": GENERATOR_VERSION, "kind": "chain", "files": n}
    if _stamp_ok(root, stamp):
        return
    _fresh_root(root, "chain")
    pkg = root / "src" / "chainpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    imp = f"from verl.trainer.constants_ppo import {TARGET_NAME}\n"
    for i in range(n):
        text = imp
        if i:
            text += f"from chainpkg.m{i - 1} import helper_{i - 1}\n"
        text += f"\n\ndef helper_{i}(address):\n    return {TARGET_NAME}()\n"
        if i:
            text += f"\n\ndef run_{i}(config):\n    return helper_{i - 1}(config.trainer)\n"
        (pkg / f"m{i}.py").write_text(text)
    (root / ".bench-tree.json").write_text(json.dumps(stamp))


def _item7(rep: Report, tree: Path, runs: int) -> None:
    """Item 7 (issue 13): the caller phase against the per-file phase, ``check --jobs 2``
    with PPO002's caller hints against the same run with ``--ignore PPO002`` (no entry
    point: the per-file phase alone, index records included), interleaved."""
    rep.notes.append(f"7: load average at start {_load()}")
    ppo = _ppo()
    item = "7 caller chain"
    r = {
        "full": Row(item, "ppo-migrate check --jobs 2 (with hints)"),
        "file": Row(item, "ppo-migrate check --jobs 2 --ignore PPO002"),
    }
    _interleaved(
        item,
        runs,
        {
            "full": lambda: _run([*ppo, "check", "--jobs", "2", str(tree)], tree, (1,)),
            "file": lambda: _run(
                [*ppo, "check", "--jobs", "2", "--ignore", "PPO002", str(tree)], tree, (0, 1)
            ),
        },
        r,
    )
    rep.rows.extend(r.values())
    whole = r["full"].median / r["file"].median
    caller = (r["full"].median - r["file"].median) / r["file"].median
    rep.target("7: caller phase / per-file phase", caller, "<= 2.00", caller <= 2.0)
    rep.target("7: check with hints / per-file phase alone", whole, "<= 2.00", whole <= 2.0)


BIG_MODULE_BYTES = 1_000_000  # item 8


def _write_big_module(path: Path, size: int) -> None:
    """A module of ``size`` bytes or a little more: functions with a ``config`` parameter,
    a docstring, and a configless call (rewritten only when the generator changes)."""
    head = f"from verl.trainer.constants_ppo import {TARGET_NAME}\n\n\n"
    parts, total, i = [head], len(head), 0
    while total < size:
        part = (
            f"def run_{i}(config, other_argument_{i}=None):\n"
            f'    """A docstring that makes the file bigger, number {i}."""\n'
            f"    value = other_argument_{i}\n"
            f"    return {TARGET_NAME}()\n\n\n"
        )
        parts.append(part)
        total += len(part)
        i += 1
    text = "".join(parts)
    if path.is_file() and path.read_text() == text and (path.parent / ".git").is_dir():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    _own_repository(path.parent)
    path.write_text(text)


def _item8(rep: Report, big: Path, runs: int) -> None:
    """Item 8 (issue 13): a 1 MB module, peak RSS and time of ``check`` and ``apply --diff``."""
    rep.notes.append(f"8: load average at start {_load()}")
    ppo = _ppo()
    item = "8 1 MB module"
    parse = [sys.executable, "-c", "import ast, sys; ast.parse(open(sys.argv[1], 'rb').read())", big.name]
    check = [*ppo, "check", "--no-progress", big.name]
    diff = [*ppo, "apply", "--diff", "--no-progress", big.name]
    rss = {
        "parse": Row(item, "peak RSS: python -c ast.parse(file)", unit="KiB"),
        "check": Row(item, "peak RSS: ppo-migrate check", unit="KiB"),
        "diff": Row(item, "peak RSS: ppo-migrate apply --diff", unit="KiB"),
    }
    for _ in range(runs):
        rss["parse"].values.append(_peak_rss_kib(parse, big.parent, (0,)))
        rss["check"].values.append(_peak_rss_kib(check, big.parent, (1,)))
        rss["diff"].values.append(_peak_rss_kib(diff, big.parent, (1,)))
    times = {
        "check": Row(item, "ppo-migrate check"),
        "diff": Row(item, "ppo-migrate apply --diff"),
    }
    _interleaved(
        item,
        runs,
        {
            "check": lambda: _run(check, big.parent, (1,)),
            "diff": lambda: _run(diff, big.parent, (1,)),
        },
        times,
    )
    rep.rows.extend([*rss.values(), *times.values()])
    for key in ("check", "diff"):
        mb = rss[key].median * 1024 / 1e6  # the bound is in MB (10^6 bytes)
        rep.notes.append(
            f"8: {key} peak RSS / ast.parse's: {rss[key].median / rss['parse'].median:.2f}"
        )
        rep.target(f"8: peak RSS of {key}, 1 MB module (MB)", mb, "< 300", mb < 300)
    ratio = times["diff"].median / times["check"].median
    rep.target("8: apply --diff / check, 1 MB module", ratio, "<= 2.00", ratio <= 2.0)


# =========================================================================== issue 26

ALL_HIT_FILES = 135  # item 9
CALLER_FILES = 600  # item 10
NO_HIT_FILES = 1000  # item 11
JOBS_FILES, JOBS_CALLS = 200, 15  # item 12

_PARSE_ALL = (
    "import ast, pathlib, sys\n"
    "for p in sorted(pathlib.Path(sys.argv[1]).rglob('*.py')):\n"
    "    ast.parse(p.read_bytes())\n"
)


def _parse_anchor(tree: Path) -> list[str]:
    """A process that reads and ``ast.parse``\ s every ``.py`` file of ``tree``: the anchor
    the analysis is measured against (same interpreter start, same files)."""
    return [sys.executable, "-c", _PARSE_ALL, str(tree)]


def _write_no_hit(root: Path, n: int, with_main: bool) -> None:
    """``n`` real-shaped modules none of which names the runtime function; with
    ``with_main`` one more module, ``entry.py``, whose ``def main()`` makes a configless
    call with no config in scope (one PPO002 whose hint looks for callers)."""
    stamp = {"version": GENERATOR_VERSION, "kind": "no-hit", "files": n, "main": with_main}
    if _stamp_ok(root, stamp):
        return
    _fresh_root(root, "no-hit")
    rng = random.Random(f"no-hit-{n}")
    pkgs = [f"{rng.choice(_WORDS)}_{k}" for k in range(max(1, n // 40))]
    for k, pkg in enumerate(pkgs):
        (root / "src" / "repo" / pkg).mkdir(parents=True)
        (root / "src" / "repo" / pkg / "__init__.py").write_text("")
    for i in range(n):
        g = _Gen(random.Random(f"no-hit-{i}"))
        pkg = pkgs[i % len(pkgs)]
        lines = g.module(f"repo.{pkg}", [], g.size())
        (root / "src" / "repo" / pkg / f"mod_{i}.py").write_text("\n".join(lines) + "\n")
    if with_main:
        (root / "src" / "repo" / "entry.py").write_text(
            f"import ray\nfrom verl.trainer.constants_ppo import {TARGET_NAME}\n\n\n"
            f"def main():\n    ray.init(runtime_env={TARGET_NAME}())\n\n\n"
            'if __name__ == "__main__":\n    main()\n'
        )
    (root / ".bench-tree.json").write_text(json.dumps(stamp))


def _write_many_calls(root: Path, n: int, calls: int) -> None:
    """``n`` modules of ``calls`` functions, each with a ``config`` parameter and a
    configless call (every call a safe PPO001)."""
    stamp = {"version": GENERATOR_VERSION, "kind": "many-calls", "files": n, "calls": calls}
    if _stamp_ok(root, stamp):
        return
    _fresh_root(root, "many-calls")
    pkg = root / "src" / "many"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for i in range(n):
        body = "".join(
            f"\n\ndef run_{i}_{k}(config, steps={k}):\n"
            f'    """Start run {k} of module {i}."""\n'
            f"    for _ in range(steps):\n        pass\n"
            f"    return {TARGET_NAME}()\n"
            for k in range(calls)
        )
        (pkg / f"m{i}.py").write_text(
            f"from verl.trainer.constants_ppo import {TARGET_NAME}\n{body}"
        )
    (root / ".bench-tree.json").write_text(json.dumps(stamp))


def _ratio_item(
    rep: Report, item: str, runs: int, tree: Path, a: tuple[str, list[str], tuple[int, ...]],
    b: tuple[str, list[str], tuple[int, ...]], target: str, bound: float, at_most: bool = True,
) -> float:
    """Time commands ``a`` and ``b`` (label, argv, accepted exit codes) interleaved in
    ``tree``; record the target ``median(a) / median(b)`` against ``bound``."""
    rep.notes.append(f"{item.split()[0]}: load average at start {_load()}")
    rows = {"a": Row(item, a[0]), "b": Row(item, b[0])}
    _interleaved(
        item, runs,
        {"a": lambda: _run(a[1], tree, a[2]), "b": lambda: _run(b[1], tree, b[2])},
        rows,
    )
    rep.rows.extend(rows.values())
    ratio = rows["a"].median / rows["b"].median
    ok = ratio <= bound if at_most else ratio >= bound
    rep.target(target, ratio, f"{'<=' if at_most else '>='} {bound:.2f}", ok)
    return ratio


def _project_model_items(rep: Report, args, trees: Path, only: set[str], n) -> None:
    """Items 9-14 (issue 26): see the module docstring."""
    ppo = _ppo()
    runs = args.runs
    if "9" in only:
        tree = trees / "all-hit"
        _write_tree(tree, "trainers", n(ALL_HIT_FILES), 9)
        rep.notes.append(f"9: {tree.relative_to(REPO)} ({_count_py(tree)} .py files, "
                         f"{_naming(tree)} name the runtime function)")
        _ratio_item(
            rep, "9 all-hit tree", runs, tree,
            ("ppo-migrate check", [*ppo, "check", "--no-progress", "src"], (0, 1)),
            ("python: read + ast.parse every file", _parse_anchor(tree / "src"), (0,)),
            "9: check / ast.parse, all-hit tree", 3.0,
        )
    if "10" in only:
        tree = trees / "caller-chain-600"
        _write_chain(tree, n(CALLER_FILES))
        _ratio_item(
            rep, "10 caller phase", runs, tree,
            ("ppo-migrate check (caller hints)", [*ppo, "check", "--no-progress", "src"], (1,)),
            ("python: read + ast.parse every file", _parse_anchor(tree / "src"), (0,)),
            "10: check with callers / ast.parse", 4.0,
        )
    if "11" in only:
        bare, with_main = trees / "no-hit-1k", trees / "no-hit-1k-main"
        _write_no_hit(bare, n(NO_HIT_FILES), False)
        _write_no_hit(with_main, n(NO_HIT_FILES), True)
        rep.notes.append(f"11: load average at start {_load()}")
        rows = {
            "main": Row("11 one PPO002", "ppo-migrate check (1,000 files + def main())"),
            "bare": Row("11 one PPO002", "ppo-migrate check (the 1,000 files alone)"),
        }
        _interleaved(
            "11 one PPO002", runs,
            {
                "main": lambda: _run([*ppo, "check", "--no-progress", "src"], with_main, (1,)),
                "bare": lambda: _run([*ppo, "check", "--no-progress", "src"], bare, (0,)),
            },
            rows,
        )
        rep.rows.extend(rows.values())
        ratio = rows["main"].median / rows["bare"].median
        rep.target("11: one def main() PPO002 / no-hit tree", ratio, "<= 2.00", ratio <= 2.0)
    if "12" in only:
        tree = trees / "many-calls"
        _write_many_calls(tree, n(JOBS_FILES), JOBS_CALLS)
        capacity = _parallel_capacity()
        rep.notes.append(f"12: parallel capacity of the machine at start {capacity:.2f} (2.0 idle)")
        diff = [*ppo, "apply", "--diff", "--no-progress"]
        _ratio_item(
            rep, "12 --jobs", runs, tree,
            ("ppo-migrate apply --diff --jobs 1", [*diff, "--jobs", "1", "src"], (1,)),
            ("ppo-migrate apply --diff --jobs 2", [*diff, "--jobs", "2", "src"], (1,)),
            "12: --jobs 1 / --jobs 2 (speed-up)", 1.6, at_most=False,
        )
    if "13" in only:
        ruff = _ruff()
        assert ruff is not None
        verl = args.verl_tree
        if verl is None:
            wheels = _verl_tree(trees / "verl-wheels", TREES / "verl-wheels")
            verl = wheels / "verl-0.8.0"
        named = [("verl before PR #6976", verl)]
        if args.recipe_tree is not None:
            named.append(("verl-recipe", args.recipe_tree))
        for label, tree in named:
            rep.notes.append(f"13: {label}: {tree} ({_count_py(tree)} .py files)")
            _ratio_item(
                rep, f"13 {label}", runs, tree,
                ("ppo-migrate check", [*ppo, "check", "--no-progress", "."], (0, 1)),
                ("ruff check --no-cache --select F401 --exit-zero",
                 [*ruff, "check", "--no-cache", "--select", "F401", "--exit-zero", "."], (0,)),
                f"13: check / ruff F401, {label}", 3.0,
            )
    if "14" in only:
        empty = trees / "empty"
        shutil.rmtree(empty, ignore_errors=True)
        _own_repository(empty)  # empty but for .git: the check reads nothing above it
        _ratio_item(
            rep, "14 empty folder", max(runs, 11), empty,
            ("ppo-migrate check (empty folder)", [*ppo, "check", "."], (0,)),
            ("python -c pass", [sys.executable, "-c", "pass"], (0,)),
            "14: check on an empty folder / python -c pass", 2.0,
        )


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _lines(root: Path) -> int:
    return sum(p.read_bytes().count(b"\n") for p in root.rglob("*.py"))


def _naming(root: Path) -> int:
    needle = TARGET_NAME.encode()
    return sum(1 for p in root.rglob("*.py") if needle in p.read_bytes())


def machine_facts() -> dict[str, str]:
    """nproc, CPU model, Python and tool versions, load average."""
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass

    def version(cmd: list[str]) -> str:
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout
            return out.strip().splitlines()[0] if out.strip() else "?"
        except (OSError, subprocess.SubprocessError):
            return "?"

    from importlib.metadata import version as dist_version

    return {
        "nproc": str(os.cpu_count()),
        "usable cpus": str(len(os.sched_getaffinity(0)))
        if hasattr(os, "sched_getaffinity")
        else "?",
        "cpu": cpu,
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
        "ruff": version([*(_ruff() or ["ruff"]), "--version"]),
        "libcst": dist_version("libcst"),
        "grep": version(["grep", "--version"]),
        "load average (1/5/15 min, at end)": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }


def _print_report(rep: Report, args: argparse.Namespace) -> None:
    print()
    print(
        f"Medians (runs: items 1-2 {args.runs}, item 3 {args.apply_runs}, RSS {args.rss_runs}, "
        f"import {args.import_runs}); min-max of the runs beside them; cpu: median user+sys "
        "CPU time of the command and its worker processes."
    )
    print()
    w = max(44, *(len(r.what) for r in rep.rows)) if rep.rows else 44
    print(f"| {'item':<20} | {'command':<{w}} | {'median':>12} | {'min-max':<15} | {'cpu':>9} |")
    print(f"|{'-' * 22}|{'-' * (w + 2)}|{'-' * 14}|{'-' * 17}|{'-' * 11}|")
    for row in rep.rows:
        print(
            f"| {row.item:<20} | {row.what:<{w}} | {row.cell():>12} | {row.spread():<15} "
            f"| {row.cpu_cell():>9} |"
        )
    print()
    print(f"| {'target':<44} | {'measured':>9} | {'bound':<8} | {'':<4} |")
    print(f"|{'-' * 46}|{'-' * 11}|{'-' * 10}|{'-' * 6}|")
    for name, value, bound, ok in rep.targets:
        print(f"| {name:<44} | {value:>9.2f} | {bound:<8} | {'PASS' if ok else 'FAIL':<4} |")
    print()
    for n in rep.notes:
        print(f"- {n}")
    print(f"- ppo-migrate: {' '.join(_ppo())}; ruff: {' '.join(_ruff() or ['?'])}")
    for k, v in machine_facts().items():
        print(f"- {k}: {v}")


if __name__ == "__main__":
    sys.exit(main())
