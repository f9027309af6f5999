"""``operator.methodcaller`` by another spelling, or stored and passed (trial 26h, MISSED).

A fresh user's try after trial 26f found three gaps: an alias of ``operator.methodcaller``
(``import operator as op; op.methodcaller(...)``, ``from operator import methodcaller as mc``)
was not read, since the getter was known by its spelling; a ``methodcaller("get_...")`` stored
(``f = methodcaller(...); f(cp)``) or passed (``map(methodcaller(...), mods)``) was not reported
at all; and PPO003 quoted ``cp.get_ppo_ray_runtime_env()`` for a call written
``methodcaller("get_ppo_ray_runtime_env")(cp)``. Aliases now resolve by qualified name (a direct
call through one is fixed as the plain spelling is); a stored or passed one that passes no
config is a PPO006 with no fix (its calls cannot be pinned to one call site), and ``apply``
leaves it. Every project is executed before and after ``apply`` against a fake verl 0.9 whose
function returns the config it gets.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from cli_helpers import VERL_09, check_findings, project_ran, run_cli, verl_stub, write_tree

PIN_09 = '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n'

ALIASES = '''\
import operator as op
from operator import methodcaller as mc

from omegaconf import OmegaConf
import verl.trainer.constants_ppo as cp


def main(config):
    a = op.methodcaller("get_ppo_ray_runtime_env")(cp)
    b = mc("get_ppo_ray_runtime_env")(cp)
    return [type(v).__name__ for v in (a, b)]


if __name__ == "__main__":
    print("ran", main(OmegaConf.create({"trainer": {"n_gpus_per_node": 1}})))
'''


def test_aliases_of_operator_methodcaller_are_found_and_fixed(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, "train.py": ALIASES})
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran ['NoneType', 'NoneType']"
    found = [(f["location"]["row"], f["location"]["column"], f["code"], f["fix"]["applicability"])
             for f in check_findings(root)]
    assert found == [(9, 9, "PPO001", "safe"), (10, 9, "PPO001", "safe")]
    proc = run_cli("apply", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = (root / "train.py").read_text().splitlines()
    assert lines[8] == '    a = op.methodcaller("get_ppo_ray_runtime_env", config)(cp)'
    assert lines[9] == '    b = mc("get_ppo_ray_runtime_env", config)(cp)'
    assert project_ran(root, site) == "ran ['DictConfig', 'DictConfig']"
    assert check_findings(root) == []


def test_a_getter_named_like_an_alias_but_not_operators_is_left_alone(tmp_path: Path) -> None:
    """Resolved by qualified name, not by spelling: a project's own ``mc`` or ``op`` is no
    ``operator.methodcaller``, and passing it a config would raise."""
    body = textwrap.dedent('''\
        import types

        import verl.trainer.constants_ppo as cp

        op = types.SimpleNamespace(methodcaller=lambda name: lambda obj: getattr(obj, name)())


        def mc(name):
            return lambda obj: getattr(obj, name)()


        def main(config):
            return op.methodcaller("get_ppo_ray_runtime_env")(cp), mc("get_ppo_ray_runtime_env")(cp)


        if __name__ == "__main__":
            print("ran", main({"trainer": 1}))
        ''')
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, "train.py": body})
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran (None, None)"
    assert check_findings(root) == []
    run_cli("apply", "--unsafe-fixes", ".", cwd=root)
    assert (root / "train.py").read_text() == body
    assert project_ran(root, site) == "ran (None, None)"


STORED = '''\
import operator
from operator import methodcaller

from omegaconf import OmegaConf
import verl.trainer.constants_ppo as cp


def main(config, mods):
    f = methodcaller("get_ppo_ray_runtime_env")
    a = f(cp)
    b = list(map(operator.methodcaller("get_ppo_ray_runtime_env"), mods))
    g = methodcaller("get_ppo_ray_runtime_env", config)  # passes it: each call gets it
    c = g(cp)
    return [type(v).__name__ for v in (a, *b, c)]


if __name__ == "__main__":
    print("ran", main(OmegaConf.create({"trainer": 1}), [cp]))
'''


def test_a_stored_or_passed_methodcaller_is_reported_with_no_fix(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, "train.py": STORED})
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran ['NoneType', 'NoneType', 'DictConfig']"
    found = check_findings(root)
    assert [(f["location"]["row"], f["location"]["column"], f["code"], f["fix"]) for f in found] == [
        (9, 9, "PPO006", None), (11, 18, "PPO006", None),
    ]
    assert found[0]["message"].startswith('`methodcaller("get_ppo_ray_runtime_env")` is stored in `f`: ')
    # the call through the stored name is named (file:line), where the config is not passed
    reason = found[0]["reason"]
    assert (reason["kind"], reason["text"]) == ("applied-here", "`f` is applied here")
    assert [(r["filename"].rsplit("/", 1)[-1], r["location"]["row"]) for r in reason["lines"]] == [("train.py", 10)]
    assert found[1].get("reason") is None
    assert found[1]["message"].startswith(
        '`operator.methodcaller("get_ppo_ray_runtime_env")` is passed to `map(...)`: '
    )
    text = run_cli("check", "--output-format", "full", ".", cwd=root).stdout
    assert '  = help: Pass the config inside it (`methodcaller("get_ppo_ray_runtime_env", config)`)' in text
    for extra in ((), ("--unsafe-fixes",), ("--thread-config",)):
        proc = run_cli("apply", *extra, ".", cwd=root)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert (root / "train.py").read_text() == STORED
    assert project_ran(root, site) == "ran ['NoneType', 'NoneType', 'DictConfig']"
    # marked, it is quiet
    marked = STORED.replace(
        'f = methodcaller("get_ppo_ray_runtime_env")', 'f = methodcaller("get_ppo_ray_runtime_env")  # noqa: PPO006'
    )
    (root / "train.py").write_text(marked)
    assert [f["location"]["row"] for f in check_findings(root)] == [11]


def test_ppo003_quotes_the_methodcaller_call_as_written(tmp_path: Path) -> None:
    body = textwrap.dedent('''\
        from operator import methodcaller as mc

        try:
            from verl.trainer import constants_ppo as cp
        except ImportError:
            import types
            cp = types.SimpleNamespace(get_ppo_ray_runtime_env=lambda: {})


        def main(config):
            return mc("get_ppo_ray_runtime_env")(cp)
        ''')
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, "train.py": body})
    (found,) = check_findings(root)
    assert (found["code"], found["location"]["row"], found["fix"]) == ("PPO003", 11, None)
    assert found["message"].startswith('`mc("get_ppo_ray_runtime_env")(cp)` may or may not be the runtime function')


THREADED = '''\
import operator as op
from operator import methodcaller as mc

from omegaconf import OmegaConf
import verl.trainer.constants_ppo as cp


def build():
    a = op.methodcaller("get_ppo_ray_runtime_env")(cp)
    b = mc("get_ppo_ray_runtime_env")(cp)
    return [type(v).__name__ for v in (a, b)]


def main(config):
    return build()


if __name__ == "__main__":
    print("ran", main(OmegaConf.create({"trainer": 1})))
'''


def test_thread_config_passes_the_config_inside_an_aliased_methodcaller(tmp_path: Path) -> None:
    """LibCST's edit reads the aliases' shape too: it once put the config in place of the
    receiver (``mc("get_...")(config)``), an ``AttributeError`` at run time."""
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, "train.py": THREADED})
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran ['NoneType', 'NoneType']"
    proc = run_cli("apply", "--thread-config", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = (root / "train.py").read_text().splitlines()
    assert lines[7:10] == [
        "def build(config=None):",
        '    a = op.methodcaller("get_ppo_ray_runtime_env", config)(cp)',
        '    b = mc("get_ppo_ray_runtime_env", config)(cp)',
    ]
    assert project_ran(root, site) == "ran ['DictConfig', 'DictConfig']"
