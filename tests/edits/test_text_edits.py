"""Before/after tests of the LibCST pass, compared byte for byte.

One case per import form and per scoping rule of issue #3; every rewritten
output must also parse. LibCST's own ``assertCodemod`` normalises whitespace,
so these compare exact strings instead.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from ppo_migrate.edits.cst_calls import configless_kind
from ppo_migrate.edits.text_edits import process_text
from ppo_migrate.settings_model import Settings

from cli_helpers import declare_verl

IMP = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
#: with omegaconf's ``OmegaConf``: ``config = OmegaConf.create({'trainer': p})`` is certainly a training config (a written-out mapping with a verl section; ``OmegaConf.load(p)`` of a path not known is weak since issue 27)
IMPC = IMP + "from omegaconf import OmegaConf\n"


#: What these cases assume: the analysed "mod.py" runs verl 0.9.1, whose function takes a
#: config (as ``--verl-version 0.9.1`` says; without it nothing would decide and every fix
#: passing the config would be unsafe, issue 26)
VERL_091 = {"verl_version": "0.9.1", "verl_version_from_cli": True}


def run(src: str, **settings) -> tuple[str, list[tuple[int, str, str]]]:
    """(rewritten text, [(line, code, scope)]) for ``src``, analysed as ``mod.py`` of a project
    running verl 0.9.1 (:data:`VERL_091`, unless ``settings`` says otherwise)."""
    src = textwrap.dedent(src)
    result = process_text(src, "mod.py", Settings(**{**VERL_091, **settings}), fix=True)
    out = src if result.new_text is None else result.new_text
    ast.parse(out)  # every output parses
    return out, [(d.line, d.code, d.scope) for d in result.diagnostics]


def rewrite(before: str, after: str, **settings) -> None:
    out, diags = run(before, **settings)
    assert out == textwrap.dedent(after)
    assert all(code != "PPO001" for _, code, _ in diags)
    # a second run changes nothing
    again, _ = run(out, **settings)
    assert again == out


def untouched(src: str, **settings) -> list[tuple[int, str, str]]:
    out, diags = run(src, **settings)
    assert out == textwrap.dedent(src)
    return diags


# --------------------------------------------------------------------- import forms

IMPORT_FORMS = {
    "from-import": (
        IMP + "def f(config):\n    get_ppo_ray_runtime_env()\n",
        IMP + "def f(config):\n    get_ppo_ray_runtime_env(config)\n",
    ),
    "from-import-as": (
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env as g\n"
        "def f(config):\n    g()\n",
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env as g\n"
        "def f(config):\n    g(config)\n",
    ),
    "from-package-import-module": (
        "from verl.trainer import constants_ppo\n"
        "def f(config):\n    constants_ppo.get_ppo_ray_runtime_env()\n",
        "from verl.trainer import constants_ppo\n"
        "def f(config):\n    constants_ppo.get_ppo_ray_runtime_env(config)\n",
    ),
    "import-as": (
        "import verl.trainer.constants_ppo as c\ndef f(config):\n    c.get_ppo_ray_runtime_env()\n",
        "import verl.trainer.constants_ppo as c\n"
        "def f(config):\n    c.get_ppo_ray_runtime_env(config)\n",
    ),
    "fully-dotted": (
        "import verl.trainer.constants_ppo\n"
        "def f(config):\n    verl.trainer.constants_ppo.get_ppo_ray_runtime_env()\n",
        "import verl.trainer.constants_ppo\n"
        "def f(config):\n    verl.trainer.constants_ppo.get_ppo_ray_runtime_env(config)\n",
    ),
    "function-local-import": (
        "def f(config):\n"
        "    from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
        "    return get_ppo_ray_runtime_env()\n",
        "def f(config):\n"
        "    from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
        "    return get_ppo_ray_runtime_env(config)\n",
    ),
    "try-except-importerror-alternatives": (
        "try:\n    from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
        "except ImportError:\n    from verl.trainer.main_ppo import get_ppo_ray_runtime_env\n"
        "def f(config):\n    get_ppo_ray_runtime_env()\n",
        "try:\n    from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
        "except ImportError:\n    from verl.trainer.main_ppo import get_ppo_ray_runtime_env\n"
        "def f(config):\n    get_ppo_ray_runtime_env(config)\n",
    ),
    "star-import": (
        "from verl.trainer.constants_ppo import *\ndef f(config):\n    get_ppo_ray_runtime_env()\n",
        "from verl.trainer.constants_ppo import *\n"
        "def f(config):\n    get_ppo_ray_runtime_env(config)\n",
    ),
    "main_ppo-re-export": (
        "from verl.trainer.main_ppo import get_ppo_ray_runtime_env\n"
        "def f(config):\n    get_ppo_ray_runtime_env()\n",
        "from verl.trainer.main_ppo import get_ppo_ray_runtime_env\n"
        "def f(config):\n    get_ppo_ray_runtime_env(config)\n",
    ),
    "ppo_runtime": (
        "from ppo_runtime import get_ppo_ray_runtime_env\ndef f(config):\n    get_ppo_ray_runtime_env()\n",
        "from ppo_runtime import get_ppo_ray_runtime_env\n"
        "def f(config):\n    get_ppo_ray_runtime_env(config)\n",
    ),
}


@pytest.mark.parametrize("form", sorted(IMPORT_FORMS))
def test_import_form(form: str) -> None:
    before, after = IMPORT_FORMS[form]
    rewrite(before, after)


def _package(tmp_path, layout: dict[str, str]):
    for rel, text in layout.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    declare_verl(tmp_path)  # issue 26: the tree declares the verl it runs


def test_relative_import_one_level(tmp_path) -> None:
    _package(tmp_path, {"verl/__init__.py": "", "verl/trainer/__init__.py": ""})
    path = tmp_path / "verl/trainer/main_x.py"
    src = "from .constants_ppo import get_ppo_ray_runtime_env\ndef f(config):\n    get_ppo_ray_runtime_env()\n"
    result = process_text(src, str(path), Settings(), fix=True)
    assert result.new_text == src.replace("env()", "env(config)")


def test_relative_import_two_levels(tmp_path) -> None:
    _package(tmp_path, {"verl/__init__.py": "", "verl/trainer/__init__.py": "", "verl/utils/__init__.py": ""})
    path = tmp_path / "verl/utils/ray_utils.py"
    src = "from ..trainer import constants_ppo as c\ndef f(cfg):\n    c.get_ppo_ray_runtime_env()\n"
    result = process_text(src, str(path), Settings(), fix=True)
    assert result.new_text == src.replace("env()", "env(cfg)")


def test_relative_import_past_top_package_is_a_diagnostic(tmp_path) -> None:
    _package(tmp_path, {"pkg/__init__.py": ""})
    path = tmp_path / "pkg/mod.py"
    src = "from ...constants_ppo import get_ppo_ray_runtime_env\ndef f(config):\n    get_ppo_ray_runtime_env()\n"
    result = process_text(src, str(path), Settings(), fix=True)
    assert result.new_text is None
    assert [(d.code, d.line) for d in result.diagnostics] == [("PPO903", 3)]


def test_relative_import_of_another_module_is_not_a_target(tmp_path) -> None:
    _package(tmp_path, {"mypkg/__init__.py": ""})
    path = tmp_path / "mypkg/mod.py"
    src = "from .constants_ppo import get_ppo_ray_runtime_env\ndef f(config):\n    get_ppo_ray_runtime_env()\n"
    result = process_text(src, str(path), Settings(), fix=True)
    assert result.new_text is None and result.diagnostics == ()


# --------------------------------------------------------------------- not targets


NOT_TARGETS = {
    "local-definition": "def get_ppo_ray_runtime_env():\n    return {}\ndef f(config):\n    get_ppo_ray_runtime_env()\n",
    "other-module": "from mylib.env import get_ppo_ray_runtime_env\ndef f(config):\n    get_ppo_ray_runtime_env()\n",
    "unbound-name": "def f(config):\n    get_ppo_ray_runtime_env()\n",
    "method-of-other-object": "def f(config, obj):\n    obj.get_ppo_ray_runtime_env()\n",
    "star-import-from-other-module": "from mylib import *\ndef f(config):\n    get_ppo_ray_runtime_env()\n",
    "definition-itself": "def get_ppo_ray_runtime_env(config=None):\n    return {'config': config}\n",
    "passes-config": IMP + "def f(config):\n    get_ppo_ray_runtime_env(config)\n",
    "passes-other-expression": IMP + "def f(config):\n    get_ppo_ray_runtime_env(config.trainer)\n",
    "passes-star-args": IMP + "def f(config, *a):\n    get_ppo_ray_runtime_env(*a)\n",
    "passes-double-star": IMP + "def f(config, **kw):\n    get_ppo_ray_runtime_env(**kw)\n",
    "passes-config-keyword": IMP + "def f(config):\n    get_ppo_ray_runtime_env(config=config)\n",
    "string-mention": "def f(config):\n    return 'get_ppo_ray_runtime_env()'\n",
}


@pytest.mark.parametrize("name", sorted(NOT_TARGETS))
def test_not_a_target_or_not_configless_is_untouched(name: str) -> None:
    assert untouched(NOT_TARGETS[name]) == []


def test_conditional_binding_is_ambiguous_and_not_rewritten() -> None:
    src = (
        "try:\n    from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
        "except ImportError:\n    def get_ppo_ray_runtime_env():\n        return {}\n"
        "def f(config):\n    get_ppo_ray_runtime_env()\n"
    )
    assert untouched(src) == [(7, "PPO003", "f")]


# --------------------------------------------------------------------- configless forms


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ("get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config)"),
        ("get_ppo_ray_runtime_env(None)", "get_ppo_ray_runtime_env(config)"),
        ("get_ppo_ray_runtime_env(config=None)", "get_ppo_ray_runtime_env(config=config)"),
        ("get_ppo_ray_runtime_env( )", "get_ppo_ray_runtime_env( config)"),
        ("get_ppo_ray_runtime_env(None, )", "get_ppo_ray_runtime_env(config, )"),
    ],
)
def test_configless_forms(call: str, expected: str) -> None:
    rewrite(IMP + f"def f(config):\n    {call}\n", IMP + f"def f(config):\n    {expected}\n")


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ("get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config=cfg)"),
        ("get_ppo_ray_runtime_env(None)", "get_ppo_ray_runtime_env(config=cfg)"),
        ("get_ppo_ray_runtime_env(config=None)", "get_ppo_ray_runtime_env(config=cfg)"),
    ],
)
def test_keyword_setting(call: str, expected: str) -> None:
    rewrite(IMP + f"def f(cfg):\n    {call}\n", IMP + f"def f(cfg):\n    {expected}\n", keyword=True)


def test_multiline_call_keeps_comments_and_layout() -> None:
    before = IMP + "def f(config):\n    ray.init(\n        runtime_env=get_ppo_ray_runtime_env(  # why\n        ),\n    )\n"
    after = IMP + "def f(config):\n    ray.init(\n        runtime_env=get_ppo_ray_runtime_env(  # why\n        config),\n    )\n"
    rewrite(before, after)


def test_configless_kind_none_only_as_first_positional() -> None:
    import libcst as cst

    def kind(code: str):
        return configless_kind(cst.parse_expression(code))  # type: ignore[arg-type]

    assert kind("f()") == "empty"
    assert kind("f(None)") == "none"
    assert kind("f(config=None)") == "config=None"
    assert kind("f(config=c)") is None
    assert kind("f(c)") is None
    assert kind("f(*a)") is None
    assert kind("f(**k)") is None
    # the same answers as the ``ast`` side (tests/rules/test_targets.py)
    assert [kind(c) for c in ("f(*())", "f(*[])", "f(**{})", "f(*(), **{})", "f(*(c,))",
                              "f(**{'config': c})", "f(*(), c)", "f(*(), x=1)")] == [
        "unpacked", "unpacked", "unpacked", "unpacked", None, None, None, None]


def test_rewrite_call_replaces_empty_unpackings_and_keeps_a_comment_among_them() -> None:
    import libcst as cst

    from ppo_migrate.edits.cst_calls import rewrite_call

    def rewritten(code: str, keyword: bool = False) -> str:
        call = cst.parse_expression(code)
        return cst.Module(body=()).code_for_node(
            rewrite_call(call, configless_kind(call), "cfg", keyword=keyword))  # type: ignore[arg-type]

    assert rewritten("f(*())") == "f(cfg)"
    assert rewritten("f(*[], **{})") == "f(cfg)"
    assert rewritten("f(**{})", keyword=True) == "f(config=cfg)"
    assert rewritten("f(*(  # why\n))") == "f(cfg, *(  # why\n))"


def test_empty_unpackings_give_way_to_the_config() -> None:
    rewrite(IMP + "def f(config):\n    get_ppo_ray_runtime_env(*(), **{})\n",
            IMP + "def f(config):\n    get_ppo_ray_runtime_env(config)\n")
    rewrite(IMP + "def f(config):\n    get_ppo_ray_runtime_env(*[  # none yet\n    ])\n",
            IMP + "def f(config):\n    get_ppo_ray_runtime_env(config, *[  # none yet\n    ])\n")
    rewrite(IMP + "def f(config):\n    get_ppo_ray_runtime_env.__call__()\n",
            IMP + "def f(config):\n    get_ppo_ray_runtime_env.__call__(config)\n")


# --------------------------------------------------------------------- scoping rules


def test_parameter_of_enclosing_function() -> None:
    rewrite(IMP + "def f(cfg):\n    get_ppo_ray_runtime_env()\n", IMP + "def f(cfg):\n    get_ppo_ray_runtime_env(cfg)\n")


def test_parameter_of_lambda() -> None:
    # a lambda's callers are not followed: whatever it is given (an unsafe fix since issue 13)
    unsafe_only(IMP + "h = lambda config: get_ppo_ray_runtime_env()\n", IMP + "h = lambda config: get_ppo_ray_runtime_env(config)\n")


def test_default_value_runs_in_outer_scope() -> None:
    src = IMP + "def f(config, env=get_ppo_ray_runtime_env()):\n    return env\n"
    assert untouched(src) == [(2, "PPO002", "<module>")]


def test_decorator_runs_in_outer_scope() -> None:
    src = IMP + "@register(get_ppo_ray_runtime_env())\ndef f(config):\n    pass\n"
    assert untouched(src) == [(2, "PPO002", "<module>")]


def test_config_names_order_prefers_config_over_cfg() -> None:
    rewrite(IMP + "def f(cfg, config):\n    get_ppo_ray_runtime_env()\n", IMP + "def f(cfg, config):\n    get_ppo_ray_runtime_env(config)\n")


def test_config_names_setting() -> None:
    rewrite(
        IMP + "def f(trainer_conf):\n    get_ppo_ray_runtime_env()\n",
        IMP + "def f(trainer_conf):\n    get_ppo_ray_runtime_env(trainer_conf)\n",
        config_names=("trainer_conf",),
    )


@pytest.mark.parametrize(
    "annotation",
    ["DictConfig", "Optional[DictConfig]", "DictConfig | None", "omegaconf.DictConfig"],
)
def test_dictconfig_annotated_parameter_under_any_name(annotation: str) -> None:
    head = IMP + "import omegaconf\nfrom typing import Optional\nfrom omegaconf import DictConfig\n"
    rewrite(
        head + f"def f(trainer: {annotation}):\n    get_ppo_ray_runtime_env()\n",
        head + f"def f(trainer: {annotation}):\n    get_ppo_ray_runtime_env(trainer)\n",
    )


def test_dictconfig_annotation_resolved_by_qualified_name() -> None:
    src = IMP + "class DictConfig: ...\ndef f(trainer: DictConfig):\n    get_ppo_ray_runtime_env()\n"
    assert untouched(src) == [(4, "PPO002", "f")]


@pytest.mark.parametrize(
    ("binding", "expected"),
    [
        ("config = OmegaConf.create({'trainer': p})", "config"),
        ("config: DictConfig = OmegaConf.create({'trainer': p})", "config"),
        ("(config := OmegaConf.create({'trainer': p}))", "config"),
    ],
)
def test_earlier_local_binding(binding: str, expected: str) -> None:
    rewrite(
        IMPC + f"def f(p):\n    {binding}\n    get_ppo_ray_runtime_env()\n",
        IMPC + f"def f(p):\n    {binding}\n    get_ppo_ray_runtime_env({expected})\n",
    )


@pytest.mark.parametrize(
    "binding",
    [  # never a training config (a fresh tester's crashing rewrites: each was a safe fix)
        "import config",
        "import json as config",
        "from omegaconf import DictConfig as cfg",
        "def config(): pass",
        "class config: pass",
        "config = 1",
        "config = model.config",
        "config = LlamaConfig.from_dict({})",
        "config = parser.parse_args()",
        "config = copy.deepcopy(cfg.actor_rollout_ref)",
        "config = cfg.get('actor_rollout_ref')",
        "config = getattr(cfg, 'actor_rollout_ref')",
        "config = OmegaConf.select(cfg, 'actor_rollout_ref.rollout')",
        "for config in ['ppo_trainer.yaml']: pass",
        "with open('c.yaml') as config: pass",
        "rollout = cfg.actor_rollout_ref\n    config = rollout",
    ],
)
def test_a_binding_that_is_no_training_config_is_never_passed(binding: str) -> None:
    src = IMP + f"def f(cfg):\n    {binding}\n    get_ppo_ray_runtime_env()\n"
    result = process_text(src, "mod.py", Settings(), fix=True)
    assert result.new_text is None or "get_ppo_ray_runtime_env(config)" not in result.new_text
    assert all(
        not (d.fix and "`config`" in d.fix.message) for d in result.diagnostics
    ), result.diagnostics


@pytest.mark.parametrize(
    "binding",
    [  # bound for sure, to something that may or may not be a config: an unsafe fix at most
        "config, tokenizer = load()",
        "config = {'num_cpus': 4, **extra}",
    ],
)
def test_a_binding_of_unknown_kind_is_an_unsafe_fix(binding: str) -> None:
    src = IMP + f"def f():\n    {binding}\n    get_ppo_ray_runtime_env()\n"
    result = process_text(src, "mod.py", Settings(), fix=True)
    assert result.new_text is None
    assert [(d.code, d.fix.applicability) for d in result.diagnostics] == [("PPO001", "unsafe")]


def unsafe_only(before: str, after: str) -> None:
    """A possibly bound config: an unsafe fix, made only with ``unsafe_fixes`` (issue 13)."""
    result = process_text(before, "mod.py", Settings(), fix=True)
    assert result.new_text is None
    assert [(d.code, d.fix.applicability) for d in result.diagnostics] == [("PPO001", "unsafe")]
    rewrite(before, after, unsafe_fixes=True)


@pytest.mark.parametrize(
    ("binding", "expected"),
    [
        # the loop body may not run (an empty iterable): possibly bound (was a safe fix)
        ("for config in configs: pass", "config"),
        # a value of a type not known here: the name alone does not vouch (issue 13)
        ("config = load()", "config"),
        ("config: DictConfig = load()", "config"),
        ("(config := load())", "config"),
        ("with open_config() as config: pass", "config"),  # whatever __enter__ returns
        # the comprehension may be empty: its walrus possibly binds (was a safe fix)
        ("[(cfg := c) for c in cs]", "cfg"),
    ],
)
def test_loop_binding_is_an_unsafe_fix(binding: str, expected: str) -> None:
    unsafe_only(
        IMP + f"def f():\n    {binding}\n    get_ppo_ray_runtime_env()\n",
        IMP + f"def f():\n    {binding}\n    get_ppo_ray_runtime_env({expected})\n",
    )


def test_match_capture_binds() -> None:
    # a capture may be a leaf, a list or a plain dict: an unsafe fix (issue 13)
    unsafe_only(
        IMP + "def f(x):\n    match x:\n        case {'c': cfg}:\n            get_ppo_ray_runtime_env()\n",
        IMP + "def f(x):\n    match x:\n        case {'c': cfg}:\n            get_ppo_ray_runtime_env(cfg)\n",
    )


def test_match_as_capture_binds() -> None:
    # a capture may be a leaf, a list or a plain dict: an unsafe fix (issue 13)
    unsafe_only(
        IMP + "def f(x):\n    match x:\n        case Cfg() as config:\n            get_ppo_ray_runtime_env()\n",
        IMP + "def f(x):\n    match x:\n        case Cfg() as config:\n            get_ppo_ray_runtime_env(config)\n",
    )


def test_binding_after_call_does_not_count() -> None:
    assert untouched(IMP + "def f():\n    get_ppo_ray_runtime_env()\n    config = load()\n") == [(3, "PPO002", "f")]


def test_local_bound_later_hides_global() -> None:
    src = IMP + "config = load()\ndef f():\n    get_ppo_ray_runtime_env()\n    config = 2\n"
    assert untouched(src) == [(4, "PPO002", "f")]


def test_annotation_without_value_binds_nothing() -> None:
    src = IMP + "def f():\n    config: DictConfig\n    get_ppo_ray_runtime_env()\n"
    assert untouched(src) == [(4, "PPO002", "f")]


def test_assignment_from_the_call_itself_does_not_count() -> None:
    src = IMP + "def f():\n    config = get_ppo_ray_runtime_env()\n"
    assert untouched(src) == [(3, "PPO002", "f")]


def test_del_undoes_binding() -> None:
    src = IMP + "def f(config):\n    del config\n    get_ppo_ray_runtime_env()\n"
    assert untouched(src) == [(4, "PPO002", "f")]


def test_rebinding_after_del_counts() -> None:
    rewrite(
        IMPC + "def f(config, p):\n    del config\n    config = OmegaConf.create({'trainer': p})\n    get_ppo_ray_runtime_env()\n",
        IMPC + "def f(config, p):\n    del config\n    config = OmegaConf.create({'trainer': p})\n    get_ppo_ray_runtime_env(config)\n",
    )


def test_except_as_binding_only_inside_handler() -> None:
    rewrite(
        IMP + "def f(cfg):\n    try:\n        pass\n    except E as config:\n        get_ppo_ray_runtime_env()\n",
        IMP + "def f(cfg):\n    try:\n        pass\n    except E as config:\n        get_ppo_ray_runtime_env(cfg)\n",
    )  # an exception is never the config: the parameter is passed (a fresh tester's crash)
    src = IMP + "def f():\n    try:\n        pass\n    except E as cfg:\n        pass\n    get_ppo_ray_runtime_env()\n"
    assert untouched(src) == [(7, "PPO002", "f")]


def test_closure_variable() -> None:
    rewrite(
        IMP + "def main(config):\n    def init_cluster():\n        get_ppo_ray_runtime_env()\n    init_cluster()\n",
        IMP + "def main(config):\n    def init_cluster():\n        get_ppo_ray_runtime_env(config)\n    init_cluster()\n",
    )


def test_scope_qualified_name_of_nested_function() -> None:
    src = IMP + "def main():\n    def init_cluster():\n        get_ppo_ray_runtime_env()\n"
    assert untouched(src) == [(4, "PPO002", "main.<locals>.init_cluster")]


def test_comprehension_variable_inside_comprehension() -> None:
    # an element of anything: bound for sure, maybe not to a config (unsafe since a fresh
    # tester's `for config in paths` crash)
    unsafe_only(
        IMP + "def f(cfgs):\n    return [get_ppo_ray_runtime_env() for cfg in cfgs]\n",
        IMP + "def f(cfgs):\n    return [get_ppo_ray_runtime_env(cfg) for cfg in cfgs]\n",
    )


def test_comprehension_variable_not_visible_after() -> None:
    src = IMP + "def f(cfgs):\n    [c for cfg in cfgs]\n    get_ppo_ray_runtime_env()\n"
    assert untouched(src) == [(4, "PPO002", "f")]


def test_class_body_name_directly_in_class_body() -> None:
    rewrite(
        IMPC + "class Launcher:\n    config = OmegaConf.create({'trainer': p})\n    ENV = get_ppo_ray_runtime_env()\n",
        IMPC + "class Launcher:\n    config = OmegaConf.create({'trainer': p})\n    ENV = get_ppo_ray_runtime_env(config)\n",
    )


def test_class_body_name_not_visible_in_methods() -> None:
    src = IMP + "class Launcher:\n    cfg = load()\n    @staticmethod\n    def start():\n        get_ppo_ray_runtime_env()\n"
    assert untouched(src) == [(6, "PPO002", "Launcher.start")]


def test_self_attribute_assigned_in_a_method() -> None:
    rewrite(
        IMP + "class TaskRunner:\n    def __init__(self, c):\n        self.config = c\n    def run(self):\n        get_ppo_ray_runtime_env()\n",
        IMP + "class TaskRunner:\n    def __init__(self, c):\n        self.config = c\n    def run(self):\n        get_ppo_ray_runtime_env(self.config)\n",
    )


def test_self_attribute_declared_in_class_body() -> None:
    rewrite(
        IMP + "@dataclass\nclass Runner:\n    cfg: DictConfig\n    def run(self):\n        get_ppo_ray_runtime_env()\n",
        IMP + "@dataclass\nclass Runner:\n    cfg: DictConfig\n    def run(self):\n        get_ppo_ray_runtime_env(self.cfg)\n",
    )


def test_self_attribute_not_for_static_or_class_methods() -> None:
    src = (
        IMP + "class R:\n    def __init__(self, c):\n        self.config = c\n"
        "    @staticmethod\n    def s():\n        get_ppo_ray_runtime_env()\n"
        "    @classmethod\n    def k(cls):\n        get_ppo_ray_runtime_env()\n"
    )
    assert untouched(src) == [(7, "PPO002", "R.s"), (10, "PPO002", "R.k")]


def test_self_attribute_when_class_never_assigns_it() -> None:
    src = IMP + "class R:\n    def run(self):\n        get_ppo_ray_runtime_env()\n"
    assert untouched(src) == [(4, "PPO002", "R.run")]


def test_function_scope_wins_over_self_attribute() -> None:
    rewrite(
        IMP + "class R:\n    def __init__(self, c):\n        self.config = c\n    def run(self, cfg):\n        get_ppo_ray_runtime_env()\n",
        IMP + "class R:\n    def __init__(self, c):\n        self.config = c\n    def run(self, cfg):\n        get_ppo_ray_runtime_env(cfg)\n",
    )


def test_self_attribute_wins_over_global() -> None:
    rewrite(
        IMP + "config = 1\nclass R:\n    def __init__(self, c):\n        self.cfg = c\n    def run(self):\n        get_ppo_ray_runtime_env()\n",
        IMP + "config = 1\nclass R:\n    def __init__(self, c):\n        self.cfg = c\n    def run(self):\n        get_ppo_ray_runtime_env(self.cfg)\n",
    )


def test_global_bound_anywhere_for_calls_inside_functions() -> None:
    # bound after the ``def``: the function may run before it (an unsafe fix since issue 13)
    unsafe_only(
        IMP + "def f():\n    get_ppo_ray_runtime_env()\nconfig = load()\n",
        IMP + "def f():\n    get_ppo_ray_runtime_env(config)\nconfig = load()\n",
    )


def test_global_bound_earlier_for_module_level_calls() -> None:
    rewrite(IMPC + "config = OmegaConf.create({'trainer': p})\nget_ppo_ray_runtime_env()\n", IMPC + "config = OmegaConf.create({'trainer': p})\nget_ppo_ray_runtime_env(config)\n")
    assert untouched(IMP + "get_ppo_ray_runtime_env()\nconfig = load()\n") == [(2, "PPO002", "<module>")]


def test_global_declaration_is_respected() -> None:
    # bound only when ``setup()`` has run: possibly bound (an unsafe fix since issue 13)
    unsafe_only(
        IMP + "def setup():\n    global cfg\n    cfg = load()\ndef f():\n    get_ppo_ray_runtime_env()\n",
        IMP + "def setup():\n    global cfg\n    cfg = load()\ndef f():\n    get_ppo_ray_runtime_env(cfg)\n",
    )


def test_global_declaration_skips_local_scope() -> None:
    # the function itself rebinds the global: possibly bound (an unsafe fix since issue 13)
    unsafe_only(
        IMP + "config = load()\ndef f():\n    global config\n    get_ppo_ray_runtime_env()\n    config = load()\n",
        IMP + "config = load()\ndef f():\n    global config\n    get_ppo_ray_runtime_env(config)\n    config = load()\n",
    )


def test_noqa_suppresses_and_prevents_the_fix() -> None:
    src = IMP + "def f(config):\n    get_ppo_ray_runtime_env()  # noqa: PPO001\n"
    assert untouched(src) == []
    src = IMP + "def f():\n    get_ppo_ray_runtime_env()  # noqa\n"
    assert untouched(src) == []
    src = IMP + "def f():\n    get_ppo_ray_runtime_env()  # noqa: PPO001\n"
    assert untouched(src) == [(3, "PPO002", "f")]


def test_module_level_scope_name_and_positions() -> None:
    src = IMP + "x = 1; get_ppo_ray_runtime_env()\n"
    result = process_text(src, "m.py", Settings(), fix=False)
    (d,) = result.diagnostics
    assert (d.line, d.column, d.end_line, d.end_column, d.scope) == (2, 8, 2, 33, "<module>")


def test_columns_are_code_points() -> None:
    src = IMP + "def f(config):\n    é = 'ü'; get_ppo_ray_runtime_env()\n"
    (d,) = process_text(src, "m.py", Settings(), fix=False).diagnostics
    assert (d.line, d.column) == (3, 14)
    assert d.fix is not None
    (edit,) = d.fix.edits
    assert (edit.content, edit.line, edit.column, edit.end_column) == ("config", 3, 38, 38)


def test_custom_target(tmp_path, monkeypatch) -> None:
    # its definition in the tree decides a target outside verl (fresh user 44, B1)
    (tmp_path / "mylab").mkdir()
    (tmp_path / "mylab" / "__init__.py").write_text("")
    (tmp_path / "mylab" / "env.py").write_text("def make_env(config=None):\n    return {}\n")
    monkeypatch.chdir(tmp_path)
    rewrite(
        "from mylab.env import make_env\ndef f(config):\n    make_env()\n",
        "from mylab.env import make_env\ndef f(config):\n    make_env(config)\n",
        targets=("mylab.env.make_env",),
    )


# --------------------------------------------------------------------- branches


@pytest.mark.parametrize(
    ("src", "line"),
    [
        # bound on one branch of an if only
        ("def f(load, flag):\n    if flag:\n        config = load()\n    return get_ppo_ray_runtime_env()\n", 5),
        # bound in the try body, used in the handler
        ("def f(load):\n    try:\n        config = load()\n    except OSError:\n        return get_ppo_ray_runtime_env()\n", 6),
        # a match capture of another case
        ("def f(obj):\n    match obj:\n        case {'config': config}:\n            pass\n        case _:\n            return get_ppo_ray_runtime_env()\n", 7),
        # a walrus in the right operand of ``and`` may not run
        ("def f(a, load):\n    a and (config := load())\n    return get_ppo_ray_runtime_env()\n", 4),
        # module level: bound in the if branch, called in the else branch
        ("if flag:\n    cfg = load()\nelse:\n    env = get_ppo_ray_runtime_env()\n", 5),
    ],
)
def test_binding_on_another_branch_does_not_count(src: str, line: int) -> None:
    """Never a safe fix; where some path binds the name, an unsafe one (issue 13)."""
    scope = "<module>" if src.startswith("if") else "f"
    code = "PPO002" if src.startswith("if") else "PPO001"
    assert untouched(IMP + src) == [(line, code, scope)]
    result = process_text(IMP + src, "mod.py", Settings(), fix=False)
    assert [d.fix.applicability for d in result.diagnostics if d.fix] == (
        [] if code == "PPO002" else ["unsafe"]
    )


def test_binding_on_the_same_branch_counts() -> None:
    rewrite(
        IMPC + "def f(p, flag):\n    if flag:\n        config = OmegaConf.create({'trainer': p})\n        return get_ppo_ray_runtime_env()\n",
        IMPC + "def f(p, flag):\n    if flag:\n        config = OmegaConf.create({'trainer': p})\n        return get_ppo_ray_runtime_env(config)\n",
    )


def test_binding_in_if_test_counts_in_both_branches() -> None:
    rewrite(
        IMPC + "def f(p):\n    if (config := OmegaConf.create({'trainer': p})) is None:\n        pass\n    return get_ppo_ray_runtime_env()\n",
        IMPC + "def f(p):\n    if (config := OmegaConf.create({'trainer': p})) is None:\n        pass\n    return get_ppo_ray_runtime_env(config)\n",
    )


def test_call_of_the_result_is_not_a_second_target_call() -> None:
    rewrite(
        IMP + "def f(config):\n    return get_ppo_ray_runtime_env()()\n",
        IMP + "def f(config):\n    return get_ppo_ray_runtime_env(config)()\n",
    )


def test_noqa_inside_a_string_does_not_suppress() -> None:
    src = IMP + "def f():\n    msg = 'see # noqa'; return get_ppo_ray_runtime_env()\n"
    assert untouched(src) == [(3, "PPO002", "f")]
