"""Every judgement carries its reason (issue 28): the structured :class:`Reason` the analysis
gives an unsafe PPO001 fix and a PPO002 that rejected candidates, asserted word for word."""

from __future__ import annotations

import pytest
from ppo_migrate.rules.check import analyse
from ppo_migrate.diagnostics import Reason, Related
from ppo_migrate.settings_model import Settings

#: verl 0.9.1 decides the callee (issue 26: where nothing declares verl every fix is unsafe)
DECIDED = Settings(verl_version="0.9.1", verl_version_from_cli=True)

IMP = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"


def _one(text: str, path: str = "m.py"):
    found = [d for d in analyse(text, path, DECIDED) if d.code in ("PPO001", "PPO002")]
    assert len(found) == 1, found
    return found[0]


def test_possibly_bound_names_the_assignment_under_the_if() -> None:
    d = _one(
        IMP
        + "\n\ndef run(flag, p):\n"  # line 4
        + "    if flag:\n"  # line 5
        + "        config = load(p)\n"  # line 6
        + "    return get_ppo_ray_runtime_env()\n"
    )
    assert d.code == "PPO001" and d.fix is not None and d.fix.applicability == "unsafe"
    assert d.reason == Reason(
        "possibly-bound",
        "`config` is only possibly bound at the call",
        (Related("m.py", 6, 9, "`config` is assigned under the `if` at line 5"),),
    )
    assert d.reason.short() == "`config` is only possibly bound at the call (m.py:6)"


def test_possibly_bound_in_a_loop_and_an_else() -> None:
    loop = _one(
        IMP + "def run(paths):\n    for p in paths:\n        config = load(p)\n"
        "    return get_ppo_ray_runtime_env()\n"
    )
    assert loop.reason is not None and loop.reason.lines == (
        Related("m.py", 4, 9, "`config` is assigned in the `for` loop at line 3, which may run no time"),
    )
    other = _one(
        IMP + "def run(flag, p):\n    if flag:\n        pass\n    else:\n        config = load(p)\n"
        "    return get_ppo_ray_runtime_env()\n"
    )
    assert other.reason is not None and other.reason.lines == (
        Related("m.py", 6, 9, "`config` is assigned under the `else` of the `if` at line 3"),
    )


def test_a_global_bound_only_under_the_main_guard() -> None:
    d = _one(
        IMP
        + "def main():\n"
        + "    return get_ppo_ray_runtime_env()\n"  # line 3
        + 'if __name__ == "__main__":\n'  # line 4
        + "    config = load()\n"  # line 5
        + "    main()\n"
    )
    assert d.code == "PPO001" and d.fix is not None and d.fix.applicability == "unsafe"
    assert d.reason == Reason(
        "possibly-bound",
        '`config` is a module global bound only under `if __name__ == "__main__":`, not when '
        "the module is imported",
        (Related("m.py", 5, 5, '`config` is assigned under `if __name__ == "__main__":` at line 4'),),
    )


def test_a_global_bound_on_every_path_is_not_said_bound_on_some_paths_only() -> None:
    """Bug: a module global assigned at module level, unconditionally, before the function
    reading it is called was described as "assigned at line 9, on some paths only": no
    statement may skip that assignment. What leaves it only possibly bound where the
    function runs is the order (the function is defined before it, a later rebinding, a
    ``global`` write elsewhere; ``flow.bound_at``), and the places now say which."""
    after = _one(
        "from omegaconf import OmegaConf\n" + IMP
        + "\n\ndef main():\n"  # line 5
        + "    return get_ppo_ray_runtime_env()\n"
        + "\n\nconfig = OmegaConf.load('config.yaml')\n"  # line 9
        + "main()\n"
    )
    assert after.reason == Reason(
        "possibly-bound",
        "`config` is only possibly bound at the call",
        (Related(
            "m.py", 9, 1,
            "`config` is assigned at line 9 on every path, but after `main` is defined at "
            "line 5: a call of `main` made before line 9 does not see this value",
        ),),
    )
    writer = _one(
        "from omegaconf import OmegaConf\n" + IMP
        + "\nconfig = OmegaConf.load('a.yaml')\n"  # line 4
        + "\n\ndef reset():\n    global config\n"
        + "    config = OmegaConf.load('b.yaml')\n"  # line 9
        + "\n\ndef main():\n"  # line 12
        + "    return get_ppo_ray_runtime_env()\n"
        + "\n\nmain()\n"
    )
    assert writer.reason is not None and writer.reason.lines == (
        Related(
            "m.py", 4, 1,
            "`config` is assigned at line 4 on every path, before `main` is defined at line 12; "
            "the module may bind it again before `main` runs",
        ),
        Related(
            "m.py", 9, 5,
            "`config` is assigned at line 9 in `reset` (a `global` write), which may run "
            "before `main` does",
        ),
    )
    assert all("on some paths only" not in p.message for d in (after, writer) for p in d.reason.lines)


#: verl 0.9's function on a plain dict (both 0.9 wheels: ``OmegaConf.select``), as a reason says it
RAISES_ON_DICT = (
    "verl 0.9's `get_ppo_ray_runtime_env` reads its config with `OmegaConf.select`, which "
    "raises `AttributeError` on a plain dict: it needs an OmegaConf `DictConfig`"
)


@pytest.mark.parametrize(
    ("body", "line", "column", "words"),
    [
        pytest.param(
            "def run():\n    config = {'trainer': {'n_gpus_per_node': 8}}\n", 3, 5,
            "`config = {'trainer': {'n_gpus_per_node': 8}}` is a plain dict: " + RAISES_ON_DICT,
            id="literal",
        ),
        pytest.param(
            "def run():\n    config = dict(trainer={'n_gpus_per_node': 8})\n", 3, 5,
            "`config = dict(trainer={'n_gpus_per_node': 8})` is a plain dict: " + RAISES_ON_DICT,
            id="dict-call",
        ),
    ],
)
def test_a_plain_dict_with_a_verl_section_says_verl_raises_on_it(
    body: str, line: int, column: int, words: str
) -> None:
    """A dict holding a verl section is a plain dict all the same: verl 0.9's function
    reads the config with ``OmegaConf.select``, which raises on a dict (checked on both
    0.9 wheels: tests/test_verl_wheels.py). The reason said "a value of a type not known
    here"; it now says what the value is and why verl rejects it."""
    d = _one(IMP + body + "    return get_ppo_ray_runtime_env()\n")
    assert d.code == "PPO001" and d.fix is not None and d.fix.applicability == "unsafe"
    assert d.reason == Reason(
        "unknown-value",
        "`config` is bound at the call, but to a plain dict, not an OmegaConf `DictConfig`",
        (Related("m.py", line, column, words),),
    )


def test_a_parameter_a_caller_fills_with_a_plain_dict_says_verl_raises_on_it() -> None:
    d = _one(
        IMP + "def launch(config):\n    return get_ppo_ray_runtime_env()\n\n\n"
        "def main():\n    launch({'trainer': {}})\n"  # line 7
    )
    assert d.reason is not None and d.reason.lines == (
        Related(
            "m.py", 2, 12,
            "`config` is a parameter the call at line 7 passes `{'trainer': {}}`, a plain dict: "
            + RAISES_ON_DICT,
        ),
    )


def test_a_value_trusted_by_type_only() -> None:
    d = _one(IMP + "def run(p):\n    config = load_config(p)\n    return get_ppo_ray_runtime_env()\n")
    assert d.fix is not None and d.fix.applicability == "unsafe"
    assert d.reason == Reason(
        "unknown-value",
        "`config` is bound at the call, but to a value not known to be a training config",
        (Related("m.py", 3, 5, "`config = load_config(p)`: a value of a type not known here"),),
    )


def test_a_safe_fix_on_a_bare_parameter_says_it_was_trusted_by_its_name() -> None:
    """Issue 27: a parameter nothing in the project speaks for or against keeps its safe fix,
    and the reason says it was taken for its name (the parameter's place)."""
    d = _one(IMP + "def run(config):\n    return get_ppo_ray_runtime_env()\n")
    assert d.fix is not None and d.fix.applicability == "safe"
    text = "nothing in the project shows what `config` of `run` holds: trusted by its name"
    assert d.reason == Reason("trusted-by-name", text, (Related("m.py", 2, 9, text),))


def test_a_safe_fix_on_an_evidenced_config_has_no_reason() -> None:
    d = _one(
        IMP + "from omegaconf import OmegaConf\n"
        + "def run():\n    config = OmegaConf.create({'trainer': {}})\n"
        + "    return get_ppo_ray_runtime_env()\n"
    )
    assert d.fix is not None and d.fix.applicability == "safe"
    assert d.reason is None


def test_a_module_patching_the_function_names_the_patch() -> None:
    d = _one(
        "from unittest import mock\n" + IMP
        + "def run(config):\n    return get_ppo_ray_runtime_env()\n"
        + 'with mock.patch("verl.trainer.constants_ppo.get_ppo_ray_runtime_env"):\n'  # line 5
        + "    run(None)\n"
    )
    assert d.fix is not None and d.fix.applicability == "unsafe"
    assert d.reason is not None and d.reason.kind == "patched"
    assert d.reason.lines == (
        Related("m.py", 5, 1, "replaces the runtime function, whose replacement may take no config"),
    )


@pytest.mark.parametrize(
    ("body", "text", "place"),
    [
        pytest.param(
            "def run(trainer):\n    cfg = trainer.config.actor_rollout_ref\n",
            "`cfg` is in scope but is not the training config",
            Related("m.py", 3, 5, "`cfg` is `trainer.config.actor_rollout_ref`, a section of the config, not the whole"),
            id="sub-config",
        ),
        # a fresh user's: a section of a value not named like a config (was an unsafe fix
        # passing the section, "a value of a type not known here")
        pytest.param(
            "def run(rollout_cfg):\n    cfg = rollout_cfg.actor_rollout_ref\n",
            "`cfg` is in scope but is not the training config",
            Related("m.py", 3, 5, "`cfg` is `rollout_cfg.actor_rollout_ref`, a section of the config, not the whole"),
            id="section-of-any-name",
        ),
        pytest.param(
            'def run(full):\n    cfg = full["critic"]\n',
            "`cfg` is in scope but is not the training config",
            Related("m.py", 3, 5, '`cfg` is `full["critic"]`, a section of the config, not the whole'),
            id="section-by-key",
        ),
        pytest.param(
            "from transformers import PretrainedConfig\n\ndef run(config: PretrainedConfig):\n",
            "`config` is in scope but is not the training config",
            Related("m.py", 4, 9, "`config` is annotated `PretrainedConfig`"),
            id="annotation",
        ),
        pytest.param(
            'def run():\n    config = {"num_cpus": 4}\n',
            "`config` is in scope but is not the training config",
            Related(
                "m.py", 3, 5,
                '`config` is `{"num_cpus": 4}`, a dict literal without a verl section '
                "(actor_rollout_ref, algorithm, critic, data, global_profiler, reward, reward_model, trainer); "
                "verl 0.9's `get_ppo_ray_runtime_env` reads its config with `OmegaConf.select`, which "
                "raises `AttributeError` on a plain dict: it needs an OmegaConf `DictConfig`",
            ),
            id="dict-literal",
        ),
        pytest.param(
            'def run(config="ppo.yaml"):\n',
            "`config` is in scope but is not the training config",
            Related("m.py", 2, 9, "`config` defaults to `\"ppo.yaml\"`, a string (a path?), not a config"),
            id="path-default",
        ),
        pytest.param(
            "def build(cfg):\n    return get_ppo_ray_runtime_env()\n\ndef go(config):\n"
            "    build(config.actor_rollout_ref)\n\ndef never(",
            "`cfg` is in scope but is not the training config",
            Related(
                "m.py", 2, 11,
                "`cfg` is a parameter the call at line 6 passes `config.actor_rollout_ref`, "
                "a section of the config, not the whole",
            ),
            id="caller-passes-a-section",
        ),
    ],
)
def test_each_kind_of_evidence_against_in_a_ppo002(body: str, text: str, place: Related) -> None:
    if body.endswith("def never("):  # the call is in ``build`` itself
        source = IMP + body[: -len("\ndef never(")]
    else:
        source = IMP + body + "    return get_ppo_ray_runtime_env()\n"
    d = _one(source)
    assert d.code == "PPO002" and d.fix is None
    assert d.reason == Reason("evidence-against", text, (place,))


def test_a_ppo002_under_the_main_guard_names_the_guard() -> None:
    d = _one(
        IMP
        + "get_ppo_ray_runtime_env()\n"  # line 2: before the guard binds it
        + 'if __name__ == "__main__":\n'
        + "    config = load()\n"  # line 4
    )
    assert d.code == "PPO002"
    assert d.reason == Reason(
        "evidence-against",
        "`config` is in scope but is not the training config",
        (
            Related(
                "m.py", 4, 5,
                '`config` is a module global bound only under `if __name__ == "__main__":` '
                "(not when the module is imported)",
            ),
        ),
    )


def test_several_rejected_candidates_each_get_a_place() -> None:
    d = _one(
        IMP + "def run(trainer):\n    config = [1, 2]\n    cfg = trainer.config.critic\n"
        "    return get_ppo_ray_runtime_env()\n"
    )
    assert d.code == "PPO002" and d.reason is not None
    assert d.reason.text == "none of `config` and `cfg` in scope is the training config"
    assert [(r.line, r.message) for r in d.reason.lines] == [
        (3, "`config` is `[1, 2]`, a list"),
        (4, "`cfg` is `trainer.config.critic`, a section of the config, not the whole"),
    ]


def test_a_ppo002_with_no_candidate_has_no_reason() -> None:
    d = _one(IMP + "def run():\n    return get_ppo_ray_runtime_env()\n")
    assert d.code == "PPO002" and d.reason is None


def test_the_finder_keeps_what_it_rejected() -> None:
    """:attr:`ConfigFinder.rejected`: one small record per rejected candidate, in lookup order."""
    import ast

    from ppo_migrate.rules.check import ModuleAnalysis

    text = IMP + "def run(trainer):\n    cfg = trainer.config.critic\n    return get_ppo_ray_runtime_env()\n"
    analysis = ModuleAnalysis(text, "m.py", Settings())
    call = next(
        n for n in ast.walk(analysis.module.tree)
        if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "get_ppo_ray_runtime_env"
    )
    assert analysis.config_at(call) is None
    assert [(w.expression, w.state, w.name) for w in analysis.configs.rejected] == [("cfg", "against", "cfg")]


def test_a_caller_in_another_file_gives_a_caller_passes_reason() -> None:
    """:func:`with_verdicts` makes the fix unsafe and keeps the caller's place structured
    (:class:`CallerVerdict`: still the text the message quotes)."""
    import pickle

    from ppo_migrate.rules.cross_file import CallerVerdict, with_verdicts
    from ppo_migrate.diagnostics import CallerOrigin, Diagnostic, Edit, Fix

    origin = CallerOrigin("pkg/launch.py", "launch", 0, "config")
    verdict = CallerVerdict("pkg/main.py", 3, "passes `{'num_gpus': 8}`, which may not be a training config")
    assert verdict == "pkg/main.py:3 passes `{'num_gpus': 8}`, which may not be a training config"
    assert pickle.loads(pickle.dumps(verdict)).line == 3
    d = Diagnostic(
        "pkg/launch.py", 5, 12, 5, 37, "PPO001", "... pass `config`",
        fix=Fix("Pass `config`", (Edit("config", 5, 36, 5, 36),), origins=(origin,)),
    )
    (judged,) = with_verdicts([d], {origin: verdict})
    assert judged.fix is not None and judged.fix.applicability == "unsafe"
    assert judged.reason == Reason(
        "caller-passes",
        "`config` comes from a parameter that a caller in another file fills with something "
        "else than a training config",
        (Related("pkg/main.py", 3, 1, "passes `{'num_gpus': 8}`, which may not be a training config"),),
    )


def test_a_subclass_s_rebinding_is_no_caller_s_argument() -> None:
    """A subclass in another file that sets ``self.config`` itself fills no parameter: the
    reason says it rebinds the value, naming the subclass's line (it said "a caller ...
    fills" a parameter of an ``__init__`` that takes none)."""
    from ppo_migrate.rules.cross_file import CallerVerdict, with_verdicts
    from ppo_migrate.diagnostics import CallerOrigin, Diagnostic, Edit, Fix

    origin = CallerOrigin("base.py", "Base", 0, "self.config")
    verdict = CallerVerdict("logging_base.py", 9, "sets `self.config` in subclass `LoggingBase`")
    d = Diagnostic(
        "base.py", 12, 16, 12, 41, "PPO001", "... pass `self.config`",
        fix=Fix("Pass `self.config`", (Edit("self.config", 12, 40, 12, 40),), origins=(origin,)),
    )
    (judged,) = with_verdicts([d], {origin: verdict})
    assert judged.fix is not None and judged.fix.applicability == "unsafe"
    assert judged.reason == Reason(
        "caller-passes",
        "`self.config` may hold another value: a subclass in another file rebinds or redefines it",
        (Related("logging_base.py", 9, 1, "sets `self.config` in subclass `LoggingBase`"),),
    )


def test_a_config_bound_in_a_match_case_names_the_case_by_its_pattern_line() -> None:
    """``ast.match_case`` has no ``lineno``: the reason takes its pattern's (was an
    AttributeError, an internal error on any possibly-bound config bound in a ``case``)."""
    d = _one(
        IMP
        + "def run(kind, c):\n"  # line 2
        + "    match kind:\n"
        + "        case 'ppo':\n"  # line 4
        + "            config = c\n"  # line 5
        + "    return get_ppo_ray_runtime_env()\n"
    )
    assert d.fix is not None and d.fix.applicability == "unsafe"
    assert d.reason is not None and d.reason.kind == "possibly-bound"
    assert [(r.line, r.message) for r in d.reason.lines] == [
        (5, "`config` is assigned in the `case` at line 4, which may not match")
    ]
