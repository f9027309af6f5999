"""Issue 26, family 2, trial 26b: pins in formats the tool cannot read.

The project's interpreter has verl 0.8 (a stub on ``PYTHONPATH`` that ppo-migrate never
sees), installed by a file no pin reader understands; the files the tool does read say
``verl>=0.9.0`` (or nothing). A plain ``apply`` used to pass the config and the launcher then
raised ``TypeError``. Each case is *executed* before and after a plain ``apply`` and after
``apply --thread-config`` (nothing changes, it still runs), and ``check`` must make the fix
unsafe with a reason naming the file and line of the mention
(:mod:`ppo_migrate.rules.mentions`). With ``--unsafe-fixes`` the fix is written and the
launcher raises, as the reason says.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from cli_helpers import (
    VERL_08,
    VERL_09,
    check_findings,
    launcher_ran,
    run_cli,
    run_launcher,
    verl_stub,
    write_tree,
)

LAUNCHER = (
    "from omegaconf import OmegaConf\n"
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
    "\n"
    "\n"
    "def launch(config):\n"
    "    return get_ppo_ray_runtime_env()\n"
    "\n"
    "\n"
    "def describe():\n"
    "    return get_ppo_ray_runtime_env()\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    print('ran', launch(OmegaConf.create({'trainer': 2})), describe())\n"
)
BEFORE = "ran None None"
NEW_PIN = {"requirements.txt": "verl>=0.9.0\n"}

#: case -> (files, the file and line the reason must name)
FORMATS: dict[str, tuple[dict[str, str], str, int]] = {
    "hatch-toml": ({
        **NEW_PIN,
        "pyproject.toml": '[project]\nname = "t"\nversion = "0"\n',
        "hatch.toml": '[envs.default]\ndependencies = ["verl==0.8.0"]\n',
    }, "hatch.toml", 2),
    "pixi-lock": ({
        **NEW_PIN,
        "pixi.lock": "version: 6\npackages:\n- pypi: https://host/packages/verl-0.8.0-py3-none-any.whl\n"
                     "  name: verl\n  version: 0.8.0\n",
    }, "pixi.lock", 3),
    "conda-lock-alone": ({  # nothing the tool reads declares verl: the reason no longer says "no pin"
        "conda-lock.yml": "version: 1\npackage:\n- name: verl\n  version: 0.8.0\n  manager: pip\n"
                          "  platform: linux-64\n  dependencies: {}\n"
                          "  url: https://host/packages/verl-0.8.0-py3-none-any.whl\n",
    }, "conda-lock.yml", 3),
    "conda-lock-and-requirements": ({
        **NEW_PIN,
        "conda-lock.yml": "version: 1\npackage:\n- name: verl\n  version: 0.8.0\n  manager: pip\n",
    }, "conda-lock.yml", 3),
    "apptainer-post": ({
        **NEW_PIN,
        "verl.def": "Bootstrap: docker\nFrom: python:3.11\n\n%post\n    pip install -r requirements.txt\n"
                    "    pip install --force-reinstall verl==0.8.0\n",
    }, "verl.def", 6),
    "skypilot-setup": ({
        **NEW_PIN,
        "sky.yaml": "resources:\n  accelerators: H100:8\nsetup: |\n  pip install -r requirements.txt\n"
                    "  pip install --force-reinstall verl==0.8.0\nrun: python train.py\n",
    }, "sky.yaml", 5),
    "ray-runtime-env-yaml": ({
        **NEW_PIN,
        "ci/ray_env.yaml": "working_dir: .\n# the cluster's image\npip:\n  - verl==0.8.0\n",
        "submit.sh": "ray job submit --runtime-env ci/ray_env.yaml -- python train.py\n",
    }, "ci/ray_env.yaml", 4),
    "ray-runtime-env-json": ({
        **NEW_PIN,
        "ci/runtime_env.json": '{\n  "working_dir": ".",\n  "pip": ["verl==0.8.0"]\n}\n',
    }, "ci/runtime_env.json", 3),
    "ray-runtime-env-json-option": ({
        **NEW_PIN,
        "submit.sh": "#!/bin/sh\nray job submit --runtime-env-json '{\"pip\": [\"verl==0.8.0\"]}' -- python train.py\n",
    }, "submit.sh", 2),
    "kuberay-runtime-env-yaml": ({
        **NEW_PIN,
        "k8s/rayjob.yaml": "apiVersion: ray.io/v1\nkind: RayJob\nspec:\n  entrypoint: python train.py\n"
                           "  runtimeEnvYAML: |\n    pip:\n      - verl==0.8.0\n",
    }, "k8s/rayjob.yaml", 7),
    "invoke-c-run": ({
        **NEW_PIN,
        "tasks.py": "from invoke import task\n\n\n@task\ndef setup(c):\n    c.run('pip install -r requirements.txt')\n"
                    "    c.run('pip install --force-reinstall verl==0.8.0')\n",
    }, "tasks.py", 7),
    # trial 26d: every file is searched as text, whatever its name (not only known formats)
    "earthfile": ({
        **NEW_PIN,
        "Earthfile": "VERSION 0.8\nFROM python:3.11\n\ndeps:\n    RUN pip install verl==0.8.0 ray[default]\n",
    }, "Earthfile", 5),
    "vagrantfile": ({
        **NEW_PIN,
        "Vagrantfile": 'Vagrant.configure("2") do |config|\n  config.vm.provision "shell", inline: <<-SHELL\n'
                       "    pip install verl==0.8.0\n  SHELL\nend\n",
    }, "Vagrantfile", 3),
    "terraform-user-data": ({
        **NEW_PIN,
        "infra/main.tf": 'resource "aws_instance" "trainer" {\n  user_data = <<-EOF\n    #!/bin/bash\n'
                         "    pip install verl==0.8.0\n  EOF\n}\n",
    }, "infra/main.tf", 4),
    "nix-shell-hook": ({
        **NEW_PIN,
        "shell.nix": "{ pkgs ? import <nixpkgs> {} }:\npkgs.mkShell {\n  shellHook = ''\n"
                     "    pip install verl==0.8.0\n  '';\n}\n",
    }, "shell.nix", 4),
    "ansible-template": ({
        **NEW_PIN,
        "ansible/group_vars/all.yml": 'verl_version: "0.8.0"\n',
        "ansible/roles/trainer/templates/requirements.txt.j2": "ray[default]=={{ ray_version }}\nverl=={{ verl_version }}\n",
    }, "ansible/roles/trainer/templates/requirements.txt.j2", 2),
    "jenkinsfile": ({
        **NEW_PIN,
        "Jenkinsfile": "pipeline {\n  stages {\n    stage('deps') { steps { sh 'pip install verl==0.8.0' } }\n  }\n}\n",
    }, "Jenkinsfile", 3),
    "powershell": ({
        **NEW_PIN,
        "scripts/setup.ps1": "python -m venv .venv\n.\\.venv\\Scripts\\Activate.ps1\npip install verl==0.8.0\n",
    }, "scripts/setup.ps1", 3),
    # (a Slurm job with a shebang is an install pin: test_signatures_callee_in_effect.py)
    "nbconvert-pip-magic": ({
        **NEW_PIN,
        "notebooks/prepare.py": "#!/usr/bin/env python\n# coding: utf-8\n\n# In[1]:\n\n\n"
                                "get_ipython().run_line_magic('pip', 'install verl==0.8.0')\n",
    }, "notebooks/prepare.py", 7),
    "notebook-pip-magic": ({
        **NEW_PIN,
        "notebooks/prepare.ipynb": '{\n "cells": [\n  {\n   "cell_type": "markdown",\n   "metadata": {},\n'
                                   '   "source": ["Made for verl==0.7.1 once.\\n"]\n  },\n  {\n   "cell_type": "code",\n'
                                   '   "metadata": {},\n   "outputs": [],\n   "source": [\n'
                                   '    "%pip install verl==0.8.0\\n"\n   ]\n  }\n ],\n "metadata": {},\n'
                                   ' "nbformat": 4,\n "nbformat_minor": 5\n}\n',
    }, "notebooks/prepare.ipynb", 13),
    "subprocess-pip": ({
        **NEW_PIN,
        "setup_env.py": "import subprocess, sys\n\nsubprocess.check_call([sys.executable, '-m', 'pip', 'install', 'verl==0.8'])\n",
    }, "setup_env.py", 3),
}


# trial 26f (REPORT.md B7): HPC ways of choosing the old release, each alone in a job script
FORMATS.update({
    "lmod-module-load": ({
        **NEW_PIN,
        "jobs/train.sbatch": "#!/bin/bash\n#SBATCH -N 1\nmodule purge\nmodule load cuda/12.4 verl/0.8.0\nsrun python train.py\n",
    }, "jobs/train.sbatch", 4),
    "spack-load": ({**NEW_PIN, "scripts/env.sh": "#!/bin/bash\n# cluster software stack\nspack load py-verl@0.8.0\n"},
                   "scripts/env.sh", 3),
    "apptainer-sif": ({
        **NEW_PIN,
        "jobs/run.sh": "#!/bin/bash\napptainer exec --nv /shared/images/verl-0.8.0.sif python train.py\n",
    }, "jobs/run.sh", 2),
    "shared-venv": ({**NEW_PIN, "jobs/run.sh": "#!/bin/bash\nsource /shared/envs/verl_0.8.0/bin/activate\npython train.py\n"},
                    "jobs/run.sh", 2),
})

#: trial 26f: an install command in Python is read as an install (``install_pins.python_commands``,
#: like a shell script's): the release it installs decides, a PPO005 naming it
READ_IN_PYTHON = {case: FORMATS.pop(case) for case in ("invoke-c-run", "nbconvert-pip-magic", "subprocess-pip")}


def _tree(root: Path, files: dict[str, str]) -> Path:
    return write_tree(root, {**files, "train.py": LAUNCHER})


#: the launcher run with ``site`` (the project's interpreter's verl) on its path, within
#: 120 s, and its whole output
_run = functools.partial(run_launcher, timeout=120)
_ran = functools.partial(launcher_ran, timeout=120, whole_output=True)


_check = check_findings


def _rel(root: Path, filename: str) -> str:
    return Path(filename).resolve().relative_to(root.resolve()).as_posix()


@pytest.mark.parametrize("case", sorted(FORMATS))
def test_an_old_verl_in_an_unread_format_makes_the_fix_unsafe(tmp_path: Path, case: str) -> None:
    """The entry runs before, after a plain ``apply`` and after ``apply --thread-config``
    (which leave the launcher as it is); ``check`` gives an unsafe PPO001 and a PPO002
    whose reason (kind ``unread-pin``) names the mention's file and line."""
    files, where, line = FORMATS[case]
    root, site = _tree(tmp_path / "proj", files), verl_stub(tmp_path / "site", VERL_08)
    before = (root / "train.py").read_text()
    assert _ran(root, site) == BEFORE
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert (root / "train.py").read_text() == before, extra
        assert _ran(root, site) == BEFORE
    found = [f for f in _check(root) if f["filename"].endswith("train.py")]
    assert [(f["code"], (f["fix"] or {}).get("applicability")) for f in found] == [
        ("PPO001", "unsafe"), ("PPO002", None)], found
    for finding in found:
        reason = finding["reason"]
        assert reason["kind"] == "unread-pin", reason
        assert (_rel(root, reason["lines"][0]["filename"]), reason["lines"][0]["location"]["row"]) == (where, line), reason
        assert re.search(rf"`{re.escape(where)}:{line}` mentions (?:py-)?verl", reason["text"]), reason["text"]
        assert "in a line ppo-migrate does not read as a pin or an install" in reason["text"], reason["text"]
    message = found[0]["message"]
    assert "(unsafe fix: " in message and f"`{where}:{line}` mentions" in message, message
    if "requirements.txt" in files:
        assert "rather than the one `requirements.txt:1 verl>=0.9.0` names" in message, message
    else:  # what was false before: "no in-tree copy, verl pin, ..." while conda-lock.yml pins one
        assert "verl pin" not in message and "nothing ppo-migrate reads says which verl runs" in message, message
    # the reason is true: with --unsafe-fixes the fix is written and the launcher raises
    proc = run_cli("apply", "--exit-zero", "--unsafe-fixes", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "return get_ppo_ray_runtime_env(config)" in (root / "train.py").read_text()
    failed = _run(root, site)
    assert failed.returncode != 0 and "TypeError" in failed.stderr, failed.stderr


@pytest.mark.parametrize("case", sorted(READ_IN_PYTHON))
def test_an_install_command_in_python_leaves_the_call(tmp_path: Path, case: str) -> None:
    """The entry runs before and after both applies, which leave the launcher as it is;
    ``check`` gives a PPO005 naming the install's file and line and the release it installs."""
    files, where, line = READ_IN_PYTHON[case]
    root, site = _tree(tmp_path / "proj", files), verl_stub(tmp_path / "site", VERL_08)
    before = (root / "train.py").read_text()
    assert _ran(root, site) == BEFORE
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert (root / "train.py").read_text() == before, extra
        assert _ran(root, site) == BEFORE
    found = [f for f in _check(root) if f["filename"].endswith("train.py")]
    assert [(f["code"], f["fix"]) for f in found] == [("PPO005", None), ("PPO005", None)], found
    place = found[0]["reason"]["lines"][0]
    assert (_rel(root, place["filename"]), place["location"]["row"]) == (where, line), found[0]["reason"]
    assert "the project runs verl 0.8" in found[0]["message"] and f"`{where}:{line} " in found[0]["message"]


def test_the_message_counts_the_other_mentions(tmp_path: Path) -> None:
    """Several mentions: the message names the first and counts the rest; the reason's
    places list each (file order of the walk, then line)."""
    files, _, _ = FORMATS["pixi-lock"]
    root = _tree(tmp_path / "proj", files)
    (finding, _) = [f for f in _check(root) if f["filename"].endswith("train.py")]
    assert "`pixi.lock:3` mentions verl-0.8.0-py3-none-any.whl" in finding["message"], finding["message"]
    assert "(1 more such mention)" in finding["message"], finding["message"]
    assert [(_rel(root, p["filename"]), p["location"]["row"], p["message"]) for p in finding["reason"]["lines"]] == [
        ("pixi.lock", 3, "mentions verl-0.8.0-py3-none-any.whl"), ("pixi.lock", 4, "mentions verl 0.8.0 (a lock entry)")]


# -- no over-caution ------------------------------------------------------------------------------


def _safe_and_runs(root: Path, site: Path, *extra: str) -> None:
    found = [f for f in _check(root, *extra) if f["filename"].endswith("train.py")]
    assert [(f["code"], (f["fix"] or {}).get("applicability")) for f in found] == [
        ("PPO001", "safe"), ("PPO002", None)], found
    proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "return get_ppo_ray_runtime_env(config)" in (root / "train.py").read_text()
    assert _ran(root, site) == "ran {'trainer': 2} None"


@pytest.mark.parametrize(("name", "text"), [
    ("hatch.toml", '[envs.default]\ndependencies = ["verl>=0.9.0"]\n'),  # a new verl mentioned
    ("ci/ray_env.yaml", "pip:\n  # was verl==0.8.0 before the migration\n  - verl>=0.9.0\n"),  # a comment
    ("CHANGELOG.md", "## 2.0\nMoved from verl==0.8.0 to verl 0.9.\n"),  # documentation
    ("tests/test_pins.py", "def test_old():\n    assert 'verl==0.8.0' != 'verl>=0.9'\n"),  # a test's string
    ("NOTES.txt", "Since verl==0.8.0 the runtime env takes no config.\n"),  # prose in a .txt
    ("docs/guide.adoc", "Since verl==0.8.0 the runtime env takes no config.\n"),  # documentation
    ("README", "pip install verl==0.8.0 was the old way.\n"),  # documentation by its name
    ("runs/train.log", "Successfully installed verl==0.8.0\n"),  # a log: data, installs nothing
    ("notebooks/prepare.py", "# In[1]:\n\n\n# !pip install verl==0.8.0\nimport verl\n"),  # a comment: runs nothing
    ("setup_env.py", "import subprocess\nsubprocess.run(['pip', 'install', 'verl-recipe==0.1', 'myverl==0.8'])\n"),
])
def test_what_is_no_mention_leaves_the_fix_safe(tmp_path: Path, name: str, text: str) -> None:
    """No over-caution: the pin decides and the fix stays safe (the rewritten launcher runs
    against verl 0.9) when the repository mentions a new verl, or an old one only in a
    comment, documentation, a test's string, prose or another package's name."""
    root = _tree(tmp_path / "proj", {**NEW_PIN, name: text})
    _safe_and_runs(root, verl_stub(tmp_path / "site", VERL_09))


def test_an_in_tree_copy_or_verl_version_still_decides(tmp_path: Path) -> None:
    """Only a release (a pin, the installed verl) or nothing deciding is made unsafe: an
    in-tree copy of verl 0.9 decides as before, and so does ``--verl-version``."""
    files, _, _ = FORMATS["ray-runtime-env-yaml"]
    root = _tree(tmp_path / "proj", files)
    _safe_and_runs(root, verl_stub(tmp_path / "site", VERL_09), "--verl-version", "0.9.1")
    copy = _tree(tmp_path / "copy", {**files, "verl/__init__.py": "", "verl/trainer/__init__.py": "",
                                     "verl/trainer/constants_ppo.py": VERL_09})
    found = [f for f in _check(copy) if f["filename"].endswith("train.py")]
    assert [(f["code"], (f["fix"] or {}).get("applicability")) for f in found] == [
        ("PPO001", "safe"), ("PPO002", None)], found


def test_a_line_the_tool_reads_already_keeps_its_handling(tmp_path: Path) -> None:
    """``sys.path.insert(0, "vendor/verl-0.8.0.zip")``: when the archive is in the
    repository the tool reads the copy inside it (a verl 0.9 one here: the fix is safe and
    the rewritten launcher runs from it); when it is not, the name is all there is to read:
    a mention of verl 0.8.0 naming that line."""
    import zipfile

    head = "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'vendor/verl-0.8.0.zip'))\n"
    root = _tree(tmp_path / "proj", NEW_PIN)
    (root / "train.py").write_text(head + LAUNCHER)
    found = [f for f in _check(root) if f["filename"].endswith("train.py")]
    assert [(f["code"], (f["fix"] or {}).get("applicability")) for f in found] == [
        ("PPO001", "unsafe"), ("PPO002", None)], found
    assert found[0]["reason"]["kind"] == "unread-pin"
    assert "`train.py:2` mentions verl-0.8.0.zip" in found[0]["message"], found[0]["message"]
    (root / "vendor").mkdir()
    with zipfile.ZipFile(root / "vendor/verl-0.8.0.zip", "w") as zf:
        zf.writestr("verl/__init__.py", "")
        zf.writestr("verl/trainer/__init__.py", "")
        zf.writestr("verl/trainer/constants_ppo.py", VERL_09)
    _safe_and_runs(root, tmp_path / "no-site")
