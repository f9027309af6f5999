"""``operator.methodcaller("get_ppo_ray_runtime_env")(cp)`` calls verl's function with the
arguments given to ``methodcaller`` after the name (trial 26f, MISSED: ``check`` said "All checks
passed!"). It is found as ``cp.get_ppo_ray_runtime_env()`` is, and its fix goes inside
``methodcaller(...)``: ``methodcaller("get_ppo_ray_runtime_env", config)(cp)``, made by ``apply``
only when any other call's fix would be (the config certainly bound, a callee taking it, no
double seen). Every project is *executed* before and after, against a fake verl on the
interpreter's path: 0.9's ``def get_ppo_ray_runtime_env(config=None)`` (it returns the config it
gets) or 0.8's ``def get_ppo_ray_runtime_env()``.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest
from cli_helpers import VERL_08, VERL_09, check_findings, project_ran, run_cli, verl_stub, write_tree

from ppo_migrate.edits.cst_calls import configless_kind, methodcaller_getter, rewrite_call

PIN_09 = '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n'
PIN_08 = '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl==0.8.0"]\n'

TRAIN = '''\
import operator
from operator import methodcaller

from omegaconf import OmegaConf
import verl.trainer.constants_ppo as cp
from verl.trainer import constants_ppo


def main(config):
    a = operator.methodcaller("get_ppo_ray_runtime_env")(cp)
    b = methodcaller("get_ppo_ray_runtime_env", None)(constants_ppo)
    c = methodcaller(
        "get_ppo_ray_runtime_env",
    )(cp)
    return [type(v).__name__ for v in (a, b, c)]


if __name__ == "__main__":
    print("ran", main(OmegaConf.create({"trainer": {"n_gpus_per_node": 1}})))
'''


def _train(tmp_path: Path, pin: str, body: str = TRAIN) -> Path:
    return write_tree(tmp_path / "p", {"pyproject.toml": pin, "train.py": body})


def test_each_spelling_is_found_and_fixed_inside_methodcaller(tmp_path: Path) -> None:
    root = _train(tmp_path, PIN_09)
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran ['NoneType', 'NoneType', 'NoneType']"
    found = [(f["location"]["row"], f["location"]["column"], f["code"], f["fix"]["applicability"])
             for f in check_findings(root)]
    assert found == [(10, 9, "PPO001", "safe"), (11, 9, "PPO001", "safe"), (12, 9, "PPO001", "safe")]
    proc = run_cli("apply", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = (root / "train.py").read_text().splitlines()
    assert lines[9] == '    a = operator.methodcaller("get_ppo_ray_runtime_env", config)(cp)'
    assert lines[10] == '    b = methodcaller("get_ppo_ray_runtime_env", config)(constants_ppo)'
    assert lines[11:14] == ["    c = methodcaller(", '        "get_ppo_ray_runtime_env", config,', "    )(cp)"]
    # the stub returns the config it is given: each call now gets the DictConfig
    assert project_ran(root, site) == "ran ['DictConfig', 'DictConfig', 'DictConfig']"
    assert check_findings(root) == []


def test_the_keyword_setting_passes_config_by_name(tmp_path: Path) -> None:
    root = _train(tmp_path, PIN_09 + "\n[tool.ppo-migrate]\nkeyword = true\n")
    site = verl_stub(tmp_path / "site", VERL_09)
    proc = run_cli("apply", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = (root / "train.py").read_text().splitlines()
    assert lines[9] == '    a = operator.methodcaller("get_ppo_ray_runtime_env", config=config)(cp)'
    assert lines[10] == '    b = methodcaller("get_ppo_ray_runtime_env", config=config)(constants_ppo)'
    assert project_ran(root, site) == "ran ['DictConfig', 'DictConfig', 'DictConfig']"


def test_with_verl_0_8_it_is_a_notice_and_apply_leaves_it(tmp_path: Path) -> None:
    # 0.8's function takes nothing: ``b``'s ``None`` would raise there, so it passes nothing too
    root = _train(tmp_path, PIN_08, TRAIN.replace('"get_ppo_ray_runtime_env", None)', '"get_ppo_ray_runtime_env")'))
    site = verl_stub(tmp_path / "site", VERL_08)
    assert project_ran(root, site) == "ran ['NoneType', 'NoneType', 'NoneType']"
    found = [(f["location"]["row"], f["code"], f["fix"]) for f in check_findings(root)]
    assert found == [(10, "PPO005", None), (11, "PPO005", None), (12, "PPO005", None)]
    (first,) = [f for f in check_findings(root) if f["location"]["row"] == 10]
    assert "pyproject.toml" in first["message"] and "0.8.0" in first["message"]
    # the import move of --use-ppo-runtime does not rewrite it: not advised
    assert first["message"].endswith("require verl>=0.9.0"), first["message"]
    before = (root / "train.py").read_bytes()
    for extra in ((), ("--thread-config",), ("--unsafe-fixes",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert (root / "train.py").read_bytes() == before
    assert project_ran(root, site) == "ran ['NoneType', 'NoneType', 'NoneType']"


POSSIBLY = '''\
from operator import methodcaller

from omegaconf import OmegaConf
from verl.trainer import constants_ppo


def main(path, cold):
    if cold:
        config = OmegaConf.load(path)
    return methodcaller("get_ppo_ray_runtime_env")(constants_ppo)


if __name__ == "__main__":
    print("ran", main("conf.yaml", False))
'''


def test_a_config_only_possibly_bound_gives_an_unsafe_fix_apply_leaves(tmp_path: Path) -> None:
    root = _train(tmp_path, PIN_09, POSSIBLY)
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran None"
    (found,) = check_findings(root)
    assert (found["code"], found["location"]["row"], found["fix"]["applicability"]) == ("PPO001", 10, "unsafe")
    before = (root / "train.py").read_bytes()
    proc = run_cli("apply", ".", cwd=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (root / "train.py").read_bytes() == before
    assert project_ran(root, site) == "ran None"  # ``config`` unbound here: passing it would raise


DOUBLED = {
    "train.py": '''\
from operator import methodcaller

from omegaconf import OmegaConf
from verl.trainer import constants_ppo


def main(config):
    return methodcaller("get_ppo_ray_runtime_env")(constants_ppo)


if __name__ == "__main__":
    print("ran", main(OmegaConf.create({"trainer": 1})))
''',
    "tests/test_train.py": '''\
import train
from verl.trainer import constants_ppo


def test_main(monkeypatch):
    monkeypatch.setattr(constants_ppo, "get_ppo_ray_runtime_env", lambda: {"env_vars": {}})
    assert train.main({"trainer": 1}) == {"env_vars": {}}
''',
}


def test_a_test_double_taking_no_config_makes_the_fix_unsafe(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, **DOUBLED})
    site = verl_stub(tmp_path / "site", VERL_09)
    tests = ("-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")
    assert project_ran(root, site, cmd=tests).startswith("1 passed")
    found = check_findings(root, launcher="train.py")
    assert [(f["code"], f["location"]["row"], f["fix"]["applicability"]) for f in found] == [("PPO001", 8, "unsafe")]
    before = (root / "train.py").read_bytes()
    run_cli("apply", ".", cwd=root)
    assert (root / "train.py").read_bytes() == before
    assert project_ran(root, site, cmd=tests).startswith("1 passed")


THREAD = '''\
from operator import methodcaller

from omegaconf import OmegaConf
from verl.trainer import constants_ppo


def build_env():
    return methodcaller("get_ppo_ray_runtime_env")(constants_ppo)


def main(config):
    return build_env()


if __name__ == "__main__":
    print("ran", main(OmegaConf.create({"trainer": 1})))
'''


def test_thread_config_passes_the_config_inside_methodcaller(tmp_path: Path) -> None:
    root = _train(tmp_path, PIN_09, THREAD)
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran None"
    assert [f["code"] for f in check_findings(root)] == ["PPO002"]
    proc = run_cli("apply", "--thread-config", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = (root / "train.py").read_text().splitlines()
    assert lines[6:8] == ["def build_env(config=None):",
                          '    return methodcaller("get_ppo_ray_runtime_env", config)(constants_ppo)']
    assert lines[11] == "    return build_env(config=config)"
    assert project_ran(root, site) == "ran {'trainer': 1}"


def test_other_methods_and_unreadable_names_are_not_targets(tmp_path: Path) -> None:
    body = textwrap.dedent('''\
        import operator
        import os
        from operator import methodcaller

        NAME = "get_" + "ppo_ray_runtime_env"


        def main(config):
            a = methodcaller("startswith", "get_ppo_ray_runtime_env")("get_ppo_ray_runtime_env_x")
            b = operator.methodcaller("get_ppo_ray_runtime_env")(os.path)
            return a, b


        if __name__ == "__main__":
            try:
                main(None)
            except AttributeError as exc:
                print("ran", type(exc).__name__)
        ''')
    root = _train(tmp_path, PIN_09, body)
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran AttributeError"
    assert check_findings(root) == []


@pytest.mark.parametrize(
    ("source", "kind", "expected"),
    [
        ('methodcaller("get_ppo_ray_runtime_env")(cp)', "empty",
         'methodcaller("get_ppo_ray_runtime_env", config)(cp)'),
        ('operator.methodcaller("get_ppo_ray_runtime_env", None)(cp)', "none",
         'operator.methodcaller("get_ppo_ray_runtime_env", config)(cp)'),
        ('methodcaller("get_ppo_ray_runtime_env", *())(cp)', "unpacked",
         'methodcaller("get_ppo_ray_runtime_env", config)(cp)'),
        ('methodcaller("get_ppo_ray_runtime_env", config=None)(cp)', "config=None",
         'methodcaller("get_ppo_ray_runtime_env", config=config)(cp)'),
        ('methodcaller("get_ppo_ray_runtime_env",)(cp)', "empty",
         'methodcaller("get_ppo_ray_runtime_env", config,)(cp)'),
        ('methodcaller("get_ppo_ray_runtime_env", cfg)(cp)', None, None),
    ],
)
def test_libcst_edit_goes_inside_methodcaller(source: str, kind: str | None, expected: str | None) -> None:
    """The LibCST edit (``--thread-config``, the codemod, the Fixit rule) agrees with the
    byte edit: the kind is read from ``methodcaller``'s arguments, the config goes there."""
    call = cst.parse_expression(source)
    assert isinstance(call, cst.Call) and methodcaller_getter(call) is not None
    assert configless_kind(call) == kind
    if expected is not None:
        new = rewrite_call(call, kind, "config", keyword=False)
        assert cst.Module(body=()).code_for_node(new) == expected


def test_libcst_reads_no_other_call_as_methodcaller() -> None:
    for source in ('methodcaller("f")(cp, x)', 'a.b.methodcaller("f")(cp)',
                   'methodcaller("f")(*xs)', 'f()(cp)', 'op.other("f")(cp)', 'mc("a.b")(cp)'):
        call = cst.parse_expression(source)
        assert methodcaller_getter(call) is None, source
    # the shape only: the analysis decides by qualified name that the getter is operator's
    # (trial 26h: ``mc`` and ``op.methodcaller`` after ``import ... as``)
    # trial 26h (H-M2): a name, which the analysis read as a module-level string constant
    # (``FACTORY = "get_..."``); a name it cannot read makes no target call, so never reaches here
    for source in ('mc("f")(cp)', 'op.methodcaller("f")(cp)', 'methodcaller(FACTORY)(cp)'):
        assert methodcaller_getter(cst.parse_expression(source)) is not None, source


SHIM = '''\
from operator import methodcaller

from omegaconf import OmegaConf
from verl.trainer import constants_ppo


def main(config):
    try:
        return methodcaller("get_ppo_ray_runtime_env", config)(constants_ppo)
    except TypeError:  # verl before 0.9
        return methodcaller("get_ppo_ray_runtime_env")(constants_ppo)


if __name__ == "__main__":
    print("ran", main(OmegaConf.create({"trainer": 1})))
'''


def test_an_except_type_error_fallback_is_a_shim_left_alone(tmp_path: Path) -> None:
    root = _train(tmp_path, PIN_09, SHIM)
    assert check_findings(root) == []
    (shim,) = check_findings(root, "--show-shims")
    assert (shim["code"], shim["location"]["row"]) == ("PPO004", 11)
    # quoted as written (trial 26h): ``constants_ppo.get_...()`` is nowhere in the source
    assert shim["message"].startswith('`methodcaller("get_ppo_ray_runtime_env")(constants_ppo)` is a compatibility shim')
    old = verl_stub(tmp_path / "old", VERL_08)
    assert project_ran(root, old) == "ran None"  # the fallback is what runs on verl 0.8
    run_cli("apply", "--unsafe-fixes", ".", cwd=root)
    assert (root / "train.py").read_text() == SHIM
    assert project_ran(root, old) == "ran None"


def test_a_receiver_bound_to_verl_on_some_paths_only_is_ambiguous(tmp_path: Path) -> None:
    body = textwrap.dedent('''\
        from operator import methodcaller

        try:
            from verl.trainer import constants_ppo as cp
        except ImportError:
            import types
            cp = types.SimpleNamespace(get_ppo_ray_runtime_env=lambda: {})


        def main(config):
            return methodcaller("get_ppo_ray_runtime_env")(cp)
        ''')
    root = _train(tmp_path, PIN_09, body)
    (found,) = check_findings(root)
    assert (found["code"], found["location"]["row"], found["fix"]) == ("PPO003", 11, None)
    # quoted as written (trial 26h, WRONG: it quoted ``cp.get_ppo_ray_runtime_env()``)
    assert found["message"].startswith('`methodcaller("get_ppo_ray_runtime_env")(cp)` may or may not be the runtime function')


def test_the_libcst_codemod_puts_the_config_inside_methodcaller(tmp_path: Path) -> None:
    """LibCST's own runner (``python -m libcst.tool codemod``) with the project's command
    makes the same edit as ``apply``, and the project then runs on verl 0.9."""
    import subprocess
    import sys

    root = _train(tmp_path, PIN_09)
    site = verl_stub(tmp_path / "site", VERL_09)
    proc = subprocess.run(
        [sys.executable, "-m", "libcst.tool", "codemod", "-x", "ppo_migrate.codemod.PassConfigCommand",
         "--no-format", "-j", "1", "train.py"],
        cwd=root, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    lines = (root / "train.py").read_text().splitlines()
    assert lines[9] == '    a = operator.methodcaller("get_ppo_ray_runtime_env", config)(cp)'
    assert lines[10] == '    b = methodcaller("get_ppo_ray_runtime_env", config)(constants_ppo)'
    assert lines[11:14] == ["    c = methodcaller(", '        "get_ppo_ray_runtime_env", config,', "    )(cp)"]
    assert project_ran(root, site) == "ran ['DictConfig', 'DictConfig', 'DictConfig']"


SHAPES = '''\
import operator
from operator import methodcaller

from omegaconf import OmegaConf
from verl.trainer import constants_ppo as cp


def main(config):
    a = operator.methodcaller(("get_ppo_ray_runtime_env"))(cp)
    b = methodcaller(("get_ppo_ray_runtime_env"),)(cp)
    c = methodcaller((  # a comment
        "get_ppo_ray_runtime_env"
    ) \\
    )(cp)
    return [type(v).__name__ for v in (a, b, c)]


def given(config, operator=operator):
    return operator.methodcaller("get_ppo_ray_runtime_env")(cp)


def own(config):
    def methodcaller(name):
        return lambda obj: getattr(obj, name)()
    return methodcaller("get_ppo_ray_runtime_env")(cp)


if __name__ == "__main__":
    cfg = OmegaConf.create({"trainer": {"n_gpus_per_node": 1}})
    print("ran", main(cfg), type(given(cfg)).__name__, type(own(cfg)).__name__)
'''


def test_a_parenthesised_name_gets_the_config_after_its_parentheses(tmp_path: Path) -> None:
    """A fresh user's try (stop 39): ``methodcaller(("f"))(cp)`` was rewritten to
    ``methodcaller(("f", config))(cp)``, a tuple as the name (TypeError); and a
    ``methodcaller`` that is no ``operator.methodcaller`` (a parameter, a local function)
    got a safe fix that passed it a second argument. Both run after ``apply`` now."""
    root = _train(tmp_path, PIN_09, SHAPES)
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran ['NoneType', 'NoneType', 'NoneType'] NoneType NoneType"
    found = [(f["location"]["row"], f["code"], f["fix"]["applicability"]) for f in check_findings(root)]
    assert found == [(9, "PPO001", "safe"), (10, "PPO001", "safe"), (11, "PPO001", "safe")]
    for extra in ((), ("--thread-config",)):
        root = _train(tmp_path / f"run{len(extra)}", PIN_09, SHAPES)
        proc = run_cli("apply", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        lines = (root / "train.py").read_text().splitlines()
        assert lines[8] == '    a = operator.methodcaller(("get_ppo_ray_runtime_env"), config)(cp)'
        assert lines[9] == '    b = methodcaller(("get_ppo_ray_runtime_env"), config,)(cp)'
        assert project_ran(root, site) == "ran ['DictConfig', 'DictConfig', 'DictConfig'] NoneType NoneType"
