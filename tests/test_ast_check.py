"""The AST fast path (ppo_migrate.ast_check) against the LibCST pass it stands in for.

Every test here runs both on the same text: wherever ``decide`` answers, its answer
must equal ``process_text(..., fix=False).diagnostics`` exactly (codes, messages,
positions, scopes, fixes); where it cannot be sure it must say so (``None``).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import itertools
import random
import sys
from pathlib import Path

import pytest

from ppo_migrate import ast_check
from ppo_migrate.codemod import process_text
from ppo_migrate.diagnostics import Edit
from ppo_migrate.settings import Settings

REPO = Path(__file__).resolve().parents[1]
IMPORT = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
IMP_ = IMPORT


def _libcst(text: str, path: str, settings: Settings) -> tuple:
    return process_text(text, path, settings, fix=False).diagnostics


def _agrees(text: str, path: str = "m.py", settings: Settings | None = None) -> bool:
    """Assert the fast path matches the LibCST pass; True when it decided the file."""
    settings = settings or Settings()
    fast = ast_check.decide(text, path, settings)
    if fast is None:
        return False
    assert tuple(fast) == _libcst(text, path, settings), text
    return True


# ------------------------------------------------------------------- what it decides


def test_a_parameter_is_passed_exactly_as_libcst_says() -> None:
    text = IMPORT + "def run(config):\n    return get_ppo_ray_runtime_env()\n"
    (diag,) = ast_check.decide(text, "m.py", Settings())
    assert (diag.code, diag.line, diag.column, diag.end_line, diag.end_column) == (
        "PPO001", 3, 12, 3, 37,
    )
    assert diag.scope == "run"
    assert diag.message == (
        "`get_ppo_ray_runtime_env()` called without the config in scope; pass `config`"
    )
    assert diag.fix.edits == (Edit("config", 3, 36, 3, 36),)
    assert _agrees(text)


def test_self_config_and_a_closure_are_decided() -> None:
    text = (
        "from verl.trainer import constants_ppo\n"
        "import verl.trainer.constants_ppo as cppo\n"
        "class Runner:\n"
        "    def __init__(self, config):\n"
        "        self.config = config\n"
        "    def run(self):\n"
        "        return constants_ppo.get_ppo_ray_runtime_env(None)\n"
        "def make(cfg):\n"
        "    def launch(n=8):\n"
        "        return cppo.get_ppo_ray_runtime_env(), n\n"
        "    return launch\n"
    )
    diags = ast_check.decide(text, "m.py", Settings())
    assert [(d.line, d.scope, d.fix.edits[0].content) for d in diags] == [
        (7, "Runner.run", "self.config"),
        (10, "make.<locals>.launch", "cfg"),
    ]
    assert diags[0].fix.edits == (Edit("self.config", 7, 54, 7, 58),)  # replaces ``None``
    assert _agrees(text)


def test_no_possible_finding_is_decided_empty_without_libcst() -> None:
    text = IMPORT + "def run(config):\n    return get_ppo_ray_runtime_env(config)\n"
    assert ast_check.decide(text, "m.py", Settings()) == []
    assert _libcst(text, "m.py", Settings()) == ()


def test_keyword_mode_ignored_rules_and_other_config_names_follow_the_settings() -> None:
    text = IMPORT + "def run(cfg, config):\n    return get_ppo_ray_runtime_env(x=1)\n"
    keyword = dataclasses.replace(Settings(), keyword=True)
    (diag,) = ast_check.decide(text, "m.py", keyword)
    assert diag.fix.edits == (Edit("config=config, ", 3, 36, 3, 36),)
    assert _agrees(text, settings=keyword)
    cfg_first = dataclasses.replace(Settings(), config_names=("cfg", "config"))
    (diag,) = ast_check.decide(text, "m.py", cfg_first)
    assert diag.fix.edits[0].content == "cfg, "
    assert _agrees(text, settings=cfg_first)
    ignored = dataclasses.replace(Settings(), ignore=("PPO001",))
    assert ast_check.decide(text, "m.py", ignored) == []
    assert _agrees(text, settings=ignored)


def test_columns_count_code_points_not_bytes() -> None:
    text = IMPORT + "def run(config):\n    é = 'ü'; env = get_ppo_ray_runtime_env(None)\n"
    (diag,) = ast_check.decide(text, "m.py", Settings())
    assert (diag.column, diag.end_column) == (20, 49)
    assert _agrees(text)


# ------------------------------------------------------------- what it leaves to LibCST


@pytest.mark.parametrize(
    "text",
    [
        # a config bound by an assignment: position and branches matter
        IMPORT + "def run():\n    config = load()\n    return get_ppo_ray_runtime_env()\n",
        IMPORT + "def run(config):\n    config = 1\n    return get_ppo_ray_runtime_env()\n",
        # no config in scope: PPO002 (its callers are looked up)
        IMPORT + "def run():\n    return get_ppo_ray_runtime_env()\n",
        IMPORT + "get_ppo_ray_runtime_env()\n",
        # a module global config
        IMPORT + "config = 1\ndef run():\n    return get_ppo_ray_runtime_env()\n",
        # shims
        IMPORT + "def run(config):\n    try:\n        return get_ppo_ray_runtime_env(config)\n"
        "    except TypeError:\n        return get_ppo_ray_runtime_env()\n",
        # the callee bound twice, from a star import, or parenthesized
        IMPORT + IMPORT + "def run(config):\n    return get_ppo_ray_runtime_env()\n",
        "from verl.trainer.constants_ppo import *\n"
        "def run(config):\n    return get_ppo_ray_runtime_env()\n",
        IMPORT + "def run(config):\n    return (get_ppo_ray_runtime_env)()\n",
        # lambdas, comprehensions, defaults, global declarations, DictConfig
        IMPORT + "f = lambda config: get_ppo_ray_runtime_env()\n",
        IMPORT + "def run(config):\n    return [get_ppo_ray_runtime_env() for _ in 'ab']\n",
        IMPORT + "def run(config, env=get_ppo_ray_runtime_env()):\n    return env\n",
        IMPORT + "def run(config):\n    global config2\n    return get_ppo_ray_runtime_env()\n"
        "config2 = 1\ndef g():\n    global config\n",
        IMPORT + "from omegaconf import DictConfig\n"
        "class T:\n    def __init__(self, config):\n        self.config = config\n"
        "    def run(self, c: DictConfig):\n        return get_ppo_ray_runtime_env()\n",
        # a noqa comment, and characters LibCST may not print back exactly
        IMPORT + "def run(config):\n    return get_ppo_ray_runtime_env()  # noqa\n",
        IMPORT + "def run(config):\n\f    return get_ppo_ray_runtime_env()\n",
        IMPORT + "def run(config):\r    return get_ppo_ray_runtime_env()\r",
        # a relative import past the top-level package (PPO903)
        "from ...up import get_ppo_ray_runtime_env\n"
        "def run(config):\n    return get_ppo_ray_runtime_env()\n",
        # identifiers Python normalizes (NFKC) and LibCST keeps as written
        IMP_ + "def run(\uff43onfig):\n    return get_ppo_ray_runtime_env()\n",
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env as \uff47\n"
        "def run(config):\n    return g()\n",
        IMP_ + "def train_\u00b5s(config):\n    return get_ppo_ray_runtime_env()\n",
        IMP_ + "def train_e\u0301(config):\n    return get_ppo_ray_runtime_env()\n",
        # valid Python LibCST's parser rejects, and a compile error LibCST's scopes raise on
        IMP_ + "(x): int = 1\ndef run(config):\n    return get_ppo_ray_runtime_env()\n",
        IMP_ + "def run(config):\n    \\\n    return get_ppo_ray_runtime_env()\n",
        IMP_ + "nonlocal x\ndef run(config):\n    return get_ppo_ray_runtime_env()\n",
        # indentation mixing tabs and spaces: LibCST's tokenizer compares characters
        IMP_ + "def run(config):\n    if config:\n\t    return get_ppo_ray_runtime_env()\n",
        IMP_ + "def run(config):\n\t \tget_ppo_ray_runtime_env()\n \t\tget_ppo_ray_runtime_env()\n",
        # flat in Python's AST, one level a part in LibCST's tree
        IMP_ + "X = (\n" + "    'text'\n" * 400 + ")\n"
        "def run(config):\n    return get_ppo_ray_runtime_env()\n",
        IMP_ + "X = " + "'a' " * 400 + "\ndef run(config):\n    return get_ppo_ray_runtime_env()\n",
        IMP_ + "import " + ".".join(f"m{i}" for i in range(60)) + "\n"
        "def run(config):\n    return get_ppo_ray_runtime_env()\n",
        # not Python: LibCST reports the PPO902
        IMPORT + "def run(config:\n    return get_ppo_ray_runtime_env()\n",
    ],
)
def test_what_it_cannot_be_sure_of_goes_to_libcst(text: str) -> None:
    assert ast_check.decide(text, "m.py", Settings()) is None


def test_long_docstrings_and_tab_indentation_do_not_stop_the_fast_path() -> None:
    doc = '    """' + "A line of documentation.\n" * 60 + '    """\n'
    assert _agrees(IMPORT + "def run(config):\n" + doc + "    return get_ppo_ray_runtime_env()\n")
    tabs = IMPORT + "def run(config):\n\tif config:\n\t\treturn get_ppo_ray_runtime_env()\n"
    assert _agrees(tabs)


def test_cjk_comments_and_strings_do_not_stop_the_fast_path() -> None:
    text = (
        IMPORT + "# \u4e2d\u6587\u6ce8\u91ca\uff0c\u5168\u89d2\uff08ok\uff09\n"
        "def run(config):\n    s = '\u4e2d\u6587\uff01'\n    return get_ppo_ray_runtime_env()\n"
    )
    assert _agrees(text)


#: shapes LibCST's visitors recurse deepest on, nested ``n`` times
_NESTINGS = {
    "lambda defaults": lambda n: "f = " + "lambda a=" * n + "1" + "" + ": a" * n + "\n",
    "lists": lambda n: "x = " + "[" * n + "]" * n + "\n",
    "dicts": lambda n: "x = " + "{1: " * n + "1" + "}" * n + "\n",
    "subscripts": lambda n: "x = " + "a[" * n + "0" + "]" * n + "\n",
    "calls": lambda n: "x = " + "f(" * n + ")" * n + "\n",
    "comprehensions": lambda n: "x = " + "[a for a in " * n + "b" + "]" * n + "\n",
    "ifs": lambda n: "".join("    " * i + "if a:\n" for i in range(n)) + "    " * n + "pass\n",
}


@pytest.mark.parametrize("shape", sorted(_NESTINGS))
def test_nesting_the_fast_path_decides_is_nesting_libcst_analyses(shape: str) -> None:
    """Up to the depth LibCST gives up at (PPO902) and beyond, the answers agree."""
    from ppo_migrate.runner import _libcst_pass, Mode

    call = "def run(config):\n    return get_ppo_ray_runtime_env()\n"
    decided = []
    for n in range(5, 160, 9):
        text = IMPORT + _NESTINGS[shape](n) + call
        fast = ast_check.decide(text, "m.py", Settings())
        if fast is None:
            continue
        decided.append(n)
        outcome = _libcst_pass("m.py", text, Settings(), Mode.CHECK)
        assert tuple(fast) == outcome.diagnostics, (shape, n)
    assert decided and decided[0] == 5  # shallow nesting is decided here


def test_deep_nesting_goes_to_libcst() -> None:
    deep = "x = " + "(" * 150 + "1" + ")" * 150 + "\n"
    chain = "y = " + " or ".join(["a"] * 250) + "\n"
    call = "def run(config):\n    return get_ppo_ray_runtime_env()\n"
    assert _agrees(IMPORT + deep + call)  # parentheses add no depth to either tree
    assert ast_check.decide(IMPORT + chain + call, "m.py", Settings()) is None
    lists = IMPORT + "z = " + "[" * 210 + "]" * 210 + "\n" + call
    assert ast_check.decide(lists, "m.py", Settings()) is None


# ------------------------------------------------------------------ the wide comparison

#: import line -> callee spelling
_IMPORTS = {
    IMPORT: "get_ppo_ray_runtime_env",
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env as g\n": "g",
    "from verl.trainer import constants_ppo\n": "constants_ppo.get_ppo_ray_runtime_env",
    "from verl.trainer import constants_ppo as c\n": "c.get_ppo_ray_runtime_env",
    "import verl.trainer.constants_ppo\n": "verl.trainer.constants_ppo.get_ppo_ray_runtime_env",
    "import verl.trainer.constants_ppo as c\n": "c.get_ppo_ray_runtime_env",
    "import verl.trainer\n": "verl.trainer.constants_ppo.get_ppo_ray_runtime_env",
    "import verl\n": "verl.trainer.constants_ppo.get_ppo_ray_runtime_env",
    "from .constants_ppo import get_ppo_ray_runtime_env\n": "get_ppo_ray_runtime_env",
    "from . import constants_ppo\n": "constants_ppo.get_ppo_ray_runtime_env",
    "from elsewhere import get_ppo_ray_runtime_env\n": "get_ppo_ray_runtime_env",
    "import verl.trainer.constants_ppo\nimport verl.utils\n": (
        "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"
    ),
}
_ARGS = ("()", "(None)", "(config=None)", "(x=1)", "( )", "(\n    )", "((None))",
         "(x=1, config=None)", "(config)", "(*a)", "(\n  x=1,  # why\n  y=2)")
#: code with ``CALL`` where the call goes
_PLACES = (
    "def run(config):\n    env = CALL\n",
    "def run(cfg):\n    return CALL\n",
    "def run(config, cfg):\n    return CALL\n",
    "def run(*, config):\n    return CALL\n",
    "def run(config, /):\n    return CALL\n",
    "def run(*config):\n    return CALL\n",
    "async def run(config):\n    return CALL\n",
    "def run(config: 'DictConfig'):\n    return CALL\n",
    "def run(x: int, config):\n    if x:\n        return CALL\n    return None\n",
    "def run(config):\n    del config\n    return CALL\n",
    "def run(config):\n    def inner(a, b=1):\n        return CALL\n    return inner\n",
    "def outer(cfg):\n    class K:\n        def m(self):\n            return CALL\n    return K\n",
    "class T:\n    def __init__(self, config):\n        self.config = config\n"
    "    def run(self):\n        return CALL\n",
    "class T:\n    config = None\n    def run(self):\n        return CALL\n",
    "class T:\n    cfg: object\n    def run(self, x):\n        return CALL\n",
    "class T:\n    def setup(self):\n        self.a, self.cfg = 1, 2\n"
    "    def run(self):\n        def inner():\n            return CALL\n        return inner\n",
    "class T:\n    @staticmethod\n    def run(self):\n        return CALL\n",
    "class T:\n    def run(this):\n        this.config = 1\n        return CALL\n",
    "class T:\n    class U:\n        config = 1\n    def run(self):\n        return CALL\n",
    "def run(config):\n    return {'env': CALL}\n",
    "def run(config):\n    ray.init(runtime_env=CALL, num_cpus=2)\n",
    "def run(config):\n\tif config:\n\t\treturn CALL\n",
    "def run(config):\n    x = [c := 1 for _ in 'a']\n    return CALL\n",
    "def run(config):\n    match config:\n        case {'a': cfg}:\n            return CALL\n",
    "def run(config):\n    try:\n        pass\n    except Exception as cfg:\n        return CALL\n",
    "def run(conf):\n    return CALL\n",
    "def outer(config):\n    def inner():\n        nonlocal config\n        config = 1\n"
    "        return CALL\n    return inner\n",
    "def outer(cfg):\n    x = 1\n    def inner():\n        nonlocal x\n        return CALL\n"
    "    return inner\n",
    "CALL\n",
)


def test_fast_path_equals_libcst_over_imports_arguments_and_scopes(tmp_path: Path) -> None:
    package = tmp_path / "verl" / "trainer"
    package.mkdir(parents=True)
    (tmp_path / "verl" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    path = str(package / "mod.py")
    decided = deferred = 0
    rng = random.Random(6)
    combos = list(itertools.product(_IMPORTS.items(), _ARGS, _PLACES))
    for (imp, callee), args, place in rng.sample(combos, 900):
        text = imp + place.replace("CALL", callee + args)
        if _agrees(text, path):
            decided += 1
        else:
            deferred += 1
    assert decided > 300 and deferred > 100  # both sides really exercised


def test_fast_path_equals_libcst_on_the_repository_and_the_benchmark_shapes() -> None:
    spec = importlib.util.spec_from_file_location("bench_run", REPO / "benchmarks" / "run.py")
    bench = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = bench
    spec.loader.exec_module(bench)
    texts = [
        p.read_text(encoding="utf-8")
        for root in ("fixtures", "migrate", "runtime")
        for p in sorted((REPO / root).rglob("*.py"))
    ]
    generated = {}
    for kind, i in itertools.product(("real", "real-migrated", "trainers"), range(8)):
        g = bench._Gen(random.Random(f"{kind}-test-{i}"))
        lines = g.module("repo.pkg", ["a", "b"], g.size())
        imports, blocks = bench._trainer_sections(g, i, kind)
        at = lines.index("logger = logging.getLogger(__name__)")
        lines[at:at] = [*imports, ""]
        generated[kind, i] = "\n".join([*lines, *blocks]) + "\n"
    for text in texts:
        _agrees(text)
    verdicts = {key: _agrees(text) for key, text in generated.items()}
    # the configless and the migrated real-shaped modules are decided here; the
    # trainers' ``__main__`` entry point has no config (PPO002), so LibCST decides them
    assert [k for k, v in verdicts.items() if v] == [
        (kind, i) for kind in ("real", "real-migrated") for i in range(8)
    ]
    assert all(ast_check.decide(generated["real", i], "m.py", Settings()) for i in range(8))
