"""Trial 26h, H-B7: an in-tree copy of verl that takes a config, beside a pin of a verl
that takes none.

A 0.9-style ``verl/`` at the repository root (an upstream snapshot, installed by nothing)
decided "takes a config" before the project's ``requirements.txt: verl==0.8.0`` was asked;
but ``python examples/train.py`` puts ``examples/`` first on ``sys.path``, not the root, and
``PYTHONSAFEPATH=1 python -m proj.train`` puts nothing of the tree there: the installed
0.8.0 runs and the rewritten call raised ``TypeError``. Issue 26's rule: a safe fix only
when every plausible definition, every copy and every pin, takes a config; where they
disagree, a PPO005 naming them. Each entry is *run* before and after a plain ``apply``,
``apply --thread-config`` and ``--unsafe-fixes``; the oracle: the call with the config raises.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from cli_helpers import run_cli
from tree_runs import run_per_tree

NEW = "def get_ppo_ray_runtime_env(config=None):\n    return {'got_config': config is not None}\n"
OLD = "def get_ppo_ray_runtime_env():\n    return {'env_vars': {}}\n"
TRAIN = (
    "from omegaconf import OmegaConf\nfrom verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def main(config):\n    return get_ppo_ray_runtime_env()\n\n\n"
    "print(main(OmegaConf.create({'trainer': {}})))\n"
)
#: the installed verl 0.8.0 (outside the project, on PYTHONPATH as site-packages would be)
SITE = {"verl/__init__.py": "", "verl/trainer/__init__.py": "", "verl/trainer/constants_ppo.py": OLD}
ROOT_COPY = {"verl/__init__.py": "", "verl/trainer/__init__.py": "", "verl/trainer/constants_ppo.py": NEW,
             "requirements.txt": "verl==0.8.0\n"}

#: name -> (project files, the caller, the entry's command, extra environment)
CASES: dict[str, tuple[dict[str, str], str, list[str], dict[str, str]]] = {
    "script-in-a-sub-folder": ({**ROOT_COPY, "examples/train.py": TRAIN}, "examples/train.py",
                               ["examples/train.py"], {}),
    "pythonsafepath-module-run": ({**ROOT_COPY, "src/proj/__init__.py": "", "src/proj/train.py": TRAIN},
                                  "src/proj/train.py", ["-m", "proj.train"], {"PYTHONSAFEPATH": "1"}),
}


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_root_copy_beside_an_older_pin_keeps_the_entry_running(tmp_path: Path, name: str) -> None:
    files, caller, argv, extra = CASES[name]
    project, site = tmp_path / "proj", tmp_path / "site"
    _write(project, files)
    _write(site, SITE)
    (project / ".git").mkdir()
    env = {"PYTHONPATH": f"{project / 'src'}:{site}", "PATH": "/usr/bin:/bin", **extra}

    def entry():
        return run_per_tree([sys.executable, *argv], project, env=env, reads=(site,))

    before = entry()
    assert before.returncode == 0 and before.stdout.strip() == "{'env_vars': {}}", before.stderr
    checked = run_cli("check", "--output-format", "json", ".", cwd=project)
    found = [d for d in json.loads(checked.stdout) if d["filename"].endswith(caller)]
    assert [(d["code"], d["fix"]) for d in found] == [("PPO005", None)], found
    assert found[0]["message"].startswith(
        "`get_ppo_ray_runtime_env()` left as it is: the in-tree copy `verl/trainer/constants_ppo.py:1` "
        "takes a config, but `requirements.txt:1 verl==0.8.0` declares a verl release whose "
        "`get_ppo_ray_runtime_env()` takes none"
    ), found
    original = (project / caller).read_text()
    for extra in ((), ("--thread-config",), ("--unsafe-fixes",)):
        run_cli("apply", *extra, ".", cwd=project)
        assert (project / caller).read_text() == original, extra
        after = entry()
        assert after.returncode == 0, (extra, after.stderr)
    # the oracle: the installed 0.8.0 runs, so passing the config would raise
    (project / caller).write_text(original.replace("get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config)"))
    broken = entry()
    assert broken.returncode == 1 and "TypeError" in broken.stderr, broken.stderr


def test_a_root_copy_with_a_pin_that_takes_a_config_stays_safe(tmp_path: Path) -> None:
    """Both take a config (``verl>=0.9.0``): the copy decides, the fix stays safe."""
    files = {**ROOT_COPY, "requirements.txt": "verl>=0.9.0\n", "examples/train.py": TRAIN}
    _write(tmp_path, files)
    (tmp_path / ".git").mkdir()
    checked = run_cli("check", "--output-format", "json", ".", cwd=tmp_path)
    assert [(d["filename"].rsplit("/", 2)[-2:], d["code"], d["fix"]["applicability"])
            for d in json.loads(checked.stdout)] == [(["examples", "train.py"], "PPO001", "safe")], checked.stdout
