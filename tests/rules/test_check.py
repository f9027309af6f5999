"""rules/check.py: ``analyse`` — codes, messages, positions, scopes and fixes exactly.

The expectation cases of the former ``tests/test_ast_check.py`` (the fast path's
answers, which equalled the LibCST pass's), now against the one resolver.
"""

from __future__ import annotations


import pytest

from ppo_migrate.rules.check import analyse
from ppo_migrate.rules.module import SourceProblem
from ppo_migrate.diagnostics import Edit
from ppo_migrate.settings_model import Settings

from cli_helpers import declared

#: the analysed file's path: in a tree that declares verl>=0.9 (issue 26)
M = declared("m.py")

IMPORT = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"


def test_a_parameter_is_passed() -> None:
    text = IMPORT + "def run(config):\n    return get_ppo_ray_runtime_env()\n"
    (diag,) = analyse(text, M, Settings())
    assert (diag.code, diag.line, diag.column, diag.end_line, diag.end_column) == (
        "PPO001", 3, 12, 3, 37,
    )
    assert diag.scope == "run"
    assert diag.message == (
        "`get_ppo_ray_runtime_env()` called without the config in scope; pass `config`"
    )
    assert diag.fix.edits == (Edit("config", 3, 36, 3, 36),)
    assert diag.fix.applicability == "safe"
    assert diag.fix.message == "Pass `config`"


def test_self_config_and_a_closure() -> None:
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
    diags = analyse(text, M, Settings())
    assert [(d.line, d.scope, d.fix.edits[0].content, d.fix.applicability) for d in diags] == [
        (7, "Runner.run", "self.config", "safe"),
        (10, "make.<locals>.launch", "cfg", "safe"),
    ]
    assert diags[0].fix.edits == (Edit("self.config", 7, 54, 7, 58),)  # replaces ``None``


def test_no_finding_when_the_config_is_passed() -> None:
    text = IMPORT + "def run(config):\n    return get_ppo_ray_runtime_env(config)\n"
    assert analyse(text, M, Settings()) == []


def test_keyword_mode_ignored_rules_and_other_config_names_follow_the_settings() -> None:
    text = IMPORT + "def run(cfg, config):\n    return get_ppo_ray_runtime_env(x=1)\n"
    keyword = Settings().replace(keyword=True)
    (diag,) = analyse(text, M, keyword)
    assert diag.fix.edits == (Edit("config=config, ", 3, 36, 3, 36),)
    cfg_first = Settings().replace(config_names=("cfg", "config"))
    (diag,) = analyse(text, M, cfg_first)
    assert diag.fix.edits[0].content == "cfg, "
    ignored = Settings().replace(ignore=("PPO001",))
    assert analyse(text, M, ignored) == []


def test_columns_count_code_points_not_bytes() -> None:
    text = IMPORT + "def run(config):\n    é = 'ü'; env = get_ppo_ray_runtime_env(None)\n"
    (diag,) = analyse(text, M, Settings())
    assert (diag.column, diag.end_column) == (20, 49)
    assert diag.fix.edits == (Edit("config", 3, 44, 3, 48),)


def test_no_config_is_ppo002_with_its_scope_and_message() -> None:
    text = IMPORT + "def init_ray(address):\n    return get_ppo_ray_runtime_env()\n"
    (diag,) = analyse(text, M, Settings())
    assert (diag.code, diag.scope, diag.fix) == ("PPO002", "init_ray", None)
    assert diag.message == (
        "`get_ppo_ray_runtime_env()` called without a config and no training config is in scope in "
        "`init_ray`; this entry point must obtain the training config and pass it"
    )
    (top,) = analyse(IMPORT + "get_ppo_ray_runtime_env()\n", M, Settings())
    assert "no training config is in scope at module level;" in top.message


def test_ambiguous_callee_is_ppo003_naming_both_bindings() -> None:
    text = (
        "try:\n    from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
        "except ImportError:\n    def get_ppo_ray_runtime_env():\n        return {}\n"
        "def f(config):\n    get_ppo_ray_runtime_env()\n"
    )
    (diag,) = analyse(text, M, Settings())
    assert (diag.code, diag.line, diag.scope) == ("PPO003", 7, "f")
    assert diag.message == (
        "`get_ppo_ray_runtime_env()` may or may not be the runtime function: it is bound to "
        "the module-level `def get_ppo_ray_runtime_env` (line 4) or verl.trainer.constants_ppo.get_ppo_ray_runtime_env"
        "; not rewritten"
    )


def test_relative_import_past_the_top_is_ppo903(tmp_path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/__init__.py").write_text("")
    text = "from ...up import get_ppo_ray_runtime_env\nget_ppo_ray_runtime_env(config)\n"
    (diag,) = analyse(text, str(tmp_path / "pkg/m.py"), Settings())
    assert diag.code == "PPO903"
    assert diag.message == (
        "`get_ppo_ray_runtime_env` comes from a relative import that climbs past the top-level "
        "package (...up.get_ppo_ray_runtime_env); cannot tell if it is the runtime function"
    )


def test_parenthesized_callee_keeps_its_parentheses_in_the_message() -> None:
    text = IMPORT + "def run(config):\n    return (get_ppo_ray_runtime_env)()\n"
    (diag,) = analyse(text, M, Settings())
    assert diag.message.startswith("`(get_ppo_ray_runtime_env)()` called without the config")
    assert (diag.column, diag.end_column) == (12, 39)


def test_comments_inside_the_call_are_left_out_of_the_message() -> None:
    """A tester's finding: a comment inside the parentheses was squashed into the quoted
    call (`get_ppo_ray_runtime_env(# no config yet None, # later)`)."""
    text = IMPORT + (
        "def run(config):\n"
        "    a = get_ppo_ray_runtime_env(  # no config yet\n        None,  # later\n    )\n"
        "    b = get_ppo_ray_runtime_env(\n        # nothing\n    )\n"
        "    return get_ppo_ray_runtime_env(\n        config=None,  # 'a' #\n    ), a, b\n"
    )
    spelled = [d.message.split("` called")[0] for d in analyse(text, M, Settings())]
    assert spelled == [
        "`get_ppo_ray_runtime_env(None,)",
        "`get_ppo_ray_runtime_env()",
        "`get_ppo_ray_runtime_env(config=None,)",
    ]


def test_noqa_only_in_a_real_comment() -> None:
    text = IMPORT + "def run(config):\n    return get_ppo_ray_runtime_env()  # noqa: PPO001\n"
    assert analyse(text, M, Settings()) == []
    text = IMPORT + "def f():\n    msg = '# noqa'; return get_ppo_ray_runtime_env()\n"
    assert [d.code for d in analyse(text, M, Settings())] == ["PPO002"]


@pytest.mark.parametrize(
    "text",
    [
        # valid Python LibCST rejects: analysed now (no PPO902)
        IMPORT + "(x): int = 1\ndef run(config):\n    return get_ppo_ray_runtime_env()\n",
        IMPORT + "def run(config):\n    \\\n    return get_ppo_ray_runtime_env()\n",
        IMPORT + "def run(config):\n\x0c  if 1:\n    return get_ppo_ray_runtime_env()\n",
        IMPORT + "def run(config):\n    if config:\n\t    return get_ppo_ray_runtime_env()\n",
        IMPORT + "def run(config):\r    return get_ppo_ray_runtime_env()\r",
    ],
)
def test_valid_python_libcst_rejected_is_analysed(text: str) -> None:
    (diag,) = analyse(text, M, Settings())
    assert (diag.code, diag.fix.edits[0].content) == ("PPO001", "config")


def test_compile_errors_of_the_symbol_table_are_ppo902() -> None:
    with pytest.raises(SourceProblem) as info:
        analyse(IMPORT + "nonlocal x\n", M, Settings())
    assert info.value.message.startswith("syntax error: nonlocal declaration not allowed at module")
    assert info.value.line == 2


def test_nfkc_names_are_the_compilers() -> None:
    text = IMPORT + "def run(\uff43onfig):\n    return get_ppo_ray_runtime_env()\n"
    (diag,) = analyse(text, M, Settings())
    assert diag.fix.edits[0].content == "config"  # Python binds ``config``
    text = (
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env as \uff47\n"
        "def run(config):\n    return g()\n"
    )
    (diag,) = analyse(text, M, Settings())
    assert diag.code == "PPO001"


def test_a_module_asks_the_callee_in_effect_once_per_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """Benchmark item 9: the module's calls whose callee resolves to the same qualified
    names (``get_...`` imported by name, or read through the module alias ``cppo``) share
    one answer of the callee in effect, asked once; the findings stay each call's."""
    from ppo_migrate.rules import check

    asked: list[tuple[str, ...]] = []
    real = check.callee_signature

    def counting(path, names, settings, reexports=None):
        asked.append(tuple(names))
        return real(path, names, settings, reexports=reexports)

    monkeypatch.setattr(check, "callee_signature", counting)
    text = (
        IMPORT
        + "import verl.trainer.constants_ppo as cppo\n"
        + "def a(config):\n    return get_ppo_ray_runtime_env()\n"
        + "def b(config):\n    return get_ppo_ray_runtime_env()\n"
        + "def c(cfg):\n    return cppo.get_ppo_ray_runtime_env()\n"
    )
    diags = analyse(text, M, Settings())
    assert [(d.code, d.scope, d.fix.edits[0].content) for d in diags] == [
        ("PPO001", "a", "config"), ("PPO001", "b", "config"), ("PPO001", "c", "cfg"),
    ]
    assert asked == [("verl.trainer.constants_ppo.get_ppo_ray_runtime_env",)]


@pytest.mark.parametrize(
    ("ignore", "codes", "looked_for"),
    [
        ((), ["PPO001", "PPO002"], True),
        (("PPO001",), ["PPO002"], False),  # the fix's replacements are never asked for
        (("PPO002",), ["PPO001"], True),
    ],
)
def test_a_dropped_finding_asks_nothing_more(monkeypatch: pytest.MonkeyPatch, ignore, codes, looked_for) -> None:
    """A configless call whose finding the rule selection drops asks neither the module's
    own replacements of the function nor the reasons: they can only change that finding."""
    from ppo_migrate.rules import check

    asked: list[str] = []
    real = check.own_replacement

    def counting(tree, text, targets, path=""):
        asked.append(path)
        return real(tree, text, targets, path)

    monkeypatch.setattr(check, "own_replacement", counting)
    text = IMPORT + "def run(config):\n    return get_ppo_ray_runtime_env()\n" + "get_ppo_ray_runtime_env()\n"
    diags = analyse(text, M, Settings(ignore=ignore))
    assert [d.code for d in diags] == codes
    assert bool(asked) is looked_for


def test_references_in_decorators_are_judged_in_the_enclosing_scope() -> None:
    """Trial 26i, I-C1: a reference through a module alias in a decorator's arguments ended
    ``check`` with an internal error (no enclosing node was found for it)."""
    text = (
        "import verl.trainer.constants_ppo as cp\n\n\n"
        "@print(cp.get_ppo_ray_runtime_env)\ndef f():\n    pass\n\n\n"
        "@cp.get_ppo_ray_runtime_env\ndef g():\n    pass\n\n\n"
        "def run(config):\n    @decorate(cp.get_ppo_ray_runtime_env())\n    def h():\n        pass\n"
    )
    found = [(d.code, d.line, d.column, d.scope) for d in analyse(text, M, Settings())]
    assert found == [("PPO006", 9, 2, "<module>"), ("PPO001", 15, 15, "run")]
