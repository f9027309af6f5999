"""``operator.methodcaller(NAME)`` with ``NAME`` a module-level string constant (trial 26h,
H-M2): ``FACTORY = "get_ppo_ray_runtime_env"; operator.methodcaller(FACTORY)(cp)`` was let
through while the literal spelling was fixed. The name is read as ``getattr(cp, NAME)``'s is
(:meth:`ppo_migrate.rules.targets.TargetFinder.constant_of`: bound once, at module level, to
a string): applied at once it is a target call fixed inside ``methodcaller(...)``; stored, a
PPO006 with no fix. Executed before and after ``apply`` against a fake verl 0.9 whose function
returns the config it gets.
"""

from __future__ import annotations

from pathlib import Path

from cli_helpers import VERL_09, check_findings, project_ran, run_cli, verl_stub, write_tree

PIN_09 = '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n'

TRAIN = '''\
import operator
from operator import methodcaller as mc

from omegaconf import OmegaConf
from verl.trainer import constants_ppo as cp

FACTORY = "get_ppo_ray_runtime_env"


def main(config):
    a = operator.methodcaller(FACTORY)(cp)
    b = mc(FACTORY)(cp)
    return [type(v).__name__ for v in (a, b)]


if __name__ == "__main__":
    print("ran", main(OmegaConf.create({"trainer": {"n_gpus_per_node": 1}})))
'''


def test_a_constant_method_name_is_found_and_fixed(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, "train.py": TRAIN})
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran ['NoneType', 'NoneType']"
    found = [(f["location"]["row"], f["location"]["column"], f["code"], f["fix"]["applicability"], f["message"])
             for f in check_findings(root)]
    assert found == [
        (11, 9, "PPO001", "safe",
         "`operator.methodcaller(FACTORY)(cp)` called without the config in scope; pass `config`"),
        (12, 9, "PPO001", "safe", "`mc(FACTORY)(cp)` called without the config in scope; pass `config`"),
    ]
    proc = run_cli("apply", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = (root / "train.py").read_text().splitlines()
    assert lines[10] == "    a = operator.methodcaller(FACTORY, config)(cp)"
    assert lines[11] == "    b = mc(FACTORY, config)(cp)"
    assert project_ran(root, site) == "ran ['DictConfig', 'DictConfig']"
    assert check_findings(root) == []


def test_a_name_bound_twice_is_not_read_and_a_stored_one_is_reported(tmp_path: Path) -> None:
    """``OTHER`` is bound twice (no constant: no fix, whatever it holds at run time); a
    ``methodcaller(FACTORY)`` stored is a PPO006 with no fix, as the literal one is."""
    text = TRAIN.replace(
        'FACTORY = "get_ppo_ray_runtime_env"\n',
        'FACTORY = "get_ppo_ray_runtime_env"\nOTHER = "get_ppo_ray_runtime_env"\nOTHER = "keys"\n',
    ).replace("    b = mc(FACTORY)(cp)\n", "    f = mc(FACTORY)\n    b = mc(OTHER)(cp)\n    f(cp)\n")
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, "train.py": text})
    found = [(f["location"]["row"], f["code"], f["fix"]["applicability"] if f["fix"] else None)
             for f in check_findings(root)]
    assert found == [(13, "PPO001", "safe"), (14, "PPO006", None)]


NAMES = 'FACTORY = "get_ppo_ray_runtime_env"\n'

IMPORTING = '''\
from operator import methodcaller as mc

from omegaconf import OmegaConf
from verl.trainer import constants_ppo as cp

from pkg.names import FACTORY


def main(config):
    return type(mc(FACTORY)(cp)).__name__, FACTORY


if __name__ == "__main__":
    print("ran", main(OmegaConf.create({"trainer": {"n_gpus_per_node": 1}})))
'''


def test_an_imported_constant_is_a_string_not_the_function(tmp_path: Path) -> None:
    """``from pkg.names import FACTORY`` of ``FACTORY = "get_ppo_ray_runtime_env"``: the
    re-exports' look-out adds ``pkg.names.FACTORY`` to the targets so that
    ``mc(FACTORY)(cp)`` is found; the name itself is a string, so neither passing it to
    ``mc`` nor returning it is a PPO006 (fresh user 40, W3: one stayed after ``apply`` and
    kept CI red)."""
    root = write_tree(tmp_path / "p", {
        "pyproject.toml": PIN_09, "pkg/__init__.py": "", "pkg/names.py": NAMES, "pkg/train.py": IMPORTING,
    })
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site, cmd=("pkg/train.py",)) == "ran ('NoneType', 'get_ppo_ray_runtime_env')"
    found = [(f["location"]["row"], f["location"]["column"], f["code"], f["fix"]["applicability"] if f["fix"] else None)
             for f in check_findings(root)]
    assert found == [(10, 17, "PPO001", "safe")]
    proc = run_cli("apply", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (root / "pkg/train.py").read_text().splitlines()[9] == \
        "    return type(mc(FACTORY, config)(cp)).__name__, FACTORY"
    assert project_ran(root, site, cmd=("pkg/train.py",)) == "ran ('DictConfig', 'get_ppo_ray_runtime_env')"
    assert check_findings(root) == []


def test_a_module_beside_a_package_of_its_name_is_never_read(tmp_path: Path) -> None:
    """``pkg/names.py`` beside ``pkg/names/__init__.py``: Python imports the package, whose
    ``FACTORY`` names another method, and a re-export in ``pkg/env.py`` beside a package
    ``pkg/env/`` defining its own ``make()`` is never imported either (fresh user 41, B1:
    the module's constant and re-export decided fixes that then raised ``TypeError``).
    Nothing is rewritten and both still run."""
    train = (
        "import operator\nimport verl.trainer.constants_ppo as cp\nfrom pkg.names import FACTORY\n"
        "from pkg.env import make\n\n\ndef run(config):\n"
        "    return type(operator.methodcaller(FACTORY)(cp)).__name__, make()\n\n\n"
        'if __name__ == "__main__":\n    print("ran", run({}))\n'
    )
    root = write_tree(tmp_path / "p", {
        "pyproject.toml": PIN_09, "pkg/__init__.py": "",
        "pkg/names.py": NAMES, "pkg/names/__init__.py": 'FACTORY = "__dir__"\n',
        "pkg/env.py": "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env as make\n",
        "pkg/env/__init__.py": "def make():\n    return 1\n",
        "pkg/train.py": train,
    })
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site, cmd=("-m", "pkg.train")) == "ran ('list', 1)"
    assert check_findings(root) == []
    proc = run_cli("apply", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (root / "pkg/train.py").read_text() == train
    assert project_ran(root, site, cmd=("-m", "pkg.train")) == "ran ('list', 1)"


def test_a_constant_of_a_module_that_rebinds_its_globals_is_not_read(tmp_path: Path) -> None:
    """``globals().update(FACTORY="keys")`` rebinds the name without spelling a store of it:
    the call is ``cp.keys()`` at run time, never the runtime function, and is left alone
    (fresh user 40, B8: it was fixed as safe and then raised ``TypeError``). The same
    module without that line is a PPO001."""
    text = TRAIN.replace(
        'FACTORY = "get_ppo_ray_runtime_env"\n',
        'FACTORY = "get_ppo_ray_runtime_env"\nglobals().update(FACTORY="__dir__")\n',
    )
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, "train.py": text})
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran ['list', 'list']"
    assert check_findings(root) == []
    proc = run_cli("apply", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (root / "train.py").read_text() == text
    assert project_ran(root, site) == "ran ['list', 'list']"
    for spelling in ('globals()["FACTORY"] = "__dir__"', 'sys.modules[__name__].FACTORY = "__dir__"'):
        other = text.replace('globals().update(FACTORY="__dir__")', f"import sys\n{spelling}")
        (root / "train.py").write_text(other)
        assert check_findings(root) == [], spelling
