"""Messages trial 26h found false (WRONG rows): PPO003 called a module-level global "a local"
(``make_env = None`` at module level, set to the runtime function by ``global make_env`` in
``setup()``). The finding was right; its text now names the module-level statement."""

from __future__ import annotations

from ppo_migrate.rules.check import analyse
from ppo_migrate.settings_model import Settings

M = "train.py"

GLOBAL = '''\
from verl.trainer.constants_ppo import get_ppo_ray_runtime_env

make_env = None


def setup():
    global make_env
    make_env = get_ppo_ray_runtime_env


def main(config):
    setup()
    return make_env()
'''


def test_ppo003_names_a_module_global_by_its_statement() -> None:
    (diag,) = analyse(GLOBAL, M, Settings())
    assert (diag.code, diag.line, diag.fix) == ("PPO003", 13, None)
    assert diag.message == (
        "`make_env()` may or may not be the runtime function: it is bound to the module-level "
        "`make_env = None` (line 3) or verl.trainer.constants_ppo.get_ppo_ray_runtime_env; not rewritten"
    )


def test_ppo003_still_says_local_for_a_function_local() -> None:
    text = (
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
        "def main(config, flag):\n"
        "    if flag:\n        make_env = get_ppo_ray_runtime_env\n"
        "    else:\n        make_env = dict\n"
        "    return make_env()\n"
    )
    (diag,) = analyse(text, M, Settings())
    assert (diag.code, diag.line) == ("PPO003", 9)
    assert "it is bound to a local `make_env` or verl.trainer" in diag.message


BOOT = '''\
from verl.trainer import constants_ppo

import compat


def _compat_getattr(name):
    if name == "get_ppo_ray_runtime_env":
        return compat.legacy_ray_env
    raise AttributeError(name)


delattr(constants_ppo, "get_ppo_ray_runtime_env")
constants_ppo.__getattr__ = _compat_getattr
'''


def test_a_module_getattr_hook_is_named_by_its_installation_not_its_test(tmp_path) -> None:
    """``delattr`` then a module ``__getattr__`` (trial 26h, WRONG): the unsafe fix named
    ``boot.py:7``, the hook's ``if name == "get_...":``, which replaces nothing; an equality
    test only reads a name, so the ``delattr`` line (12) is named. The fix stays unsafe: the
    hook returns a function that takes no config."""
    from cli_helpers import check_findings, write_tree

    root = write_tree(tmp_path / "p", {
        "pyproject.toml": '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n',
        "boot.py": BOOT,
        "compat.py": "def legacy_ray_env():\n    return {}\n",
        "train.py": "import boot  # noqa: F401\nfrom verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
                    "def main(config):\n    return get_ppo_ray_runtime_env()\n",
        "verl/__init__.py": "", "verl/trainer/__init__.py": "",
        "verl/trainer/constants_ppo.py": "def get_ppo_ray_runtime_env(config=None):\n    return config\n",
    })
    (f,) = check_findings(root)
    assert (f["code"], f["location"]["row"], f["fix"]["applicability"]) == ("PPO001", 6, "unsafe")
    assert f["message"].endswith(
        "(unsafe fix: boot.py:12 rebinds `get_ppo_ray_runtime_env` at run time to a function that may take "
        "no config)"
    )
    assert [(line["filename"].rsplit("/", 1)[-1], line["location"]["row"]) for line in f["reason"]["lines"]] \
        == [("boot.py", 12)]
