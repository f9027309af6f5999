"""Trial 26e (REPORT.md, BREAK I, ``e3c_no_deps_install_lab_image``): the project installed with ``--no-deps``.

``pyproject.toml`` says ``verl>=0.9.0``; the Dockerfile builds on the lab's image (which
brings verl 0.8) and installs the project with ``pip install --no-deps -e .``, to keep the
image's pinned stack. The pin installs nothing there: the image's verl 0.8 runs, and a plain
``apply`` passed the config and the launcher raised ``TypeError``. The rule (docs/callee.md,
row 3; ``versions._installed_without_dependencies``): when every install of the project passes
``--no-deps``, its own ``pyproject.toml``/``setup.py``/``setup.cfg`` may only lower the
release; with nothing else the fix is unsafe and its reason names the ``--no-deps`` line.
Each case is *executed* before and after both applies (verl on ``PYTHONPATH``, as the
image's interpreter has it; the tool never sees it).

Counter-cases: one install of the project without ``--no-deps``, or a root
``requirements.txt`` installed with ``-r``, or a ``--no-deps`` install that is of a verl
checkout, not of the project: the declaration decides, the fix is safe and the rewritten
launcher runs against verl 0.9.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import LAUNCHER, VERL_08, VERL_09, launcher_project, launcher_ran, only_finding, run_cli

FIXED = LAUNCHER.replace("get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config)")
CALL_LINE = 6
PYPROJECT = '[project]\nname = "proj"\nversion = "0.1.0"\ndependencies = ["verl>=0.9.0", "omegaconf"]\n'
#: the lab's image: its verl is 0.8 (the tag does not say so)
IMAGE = "# torch, vllm, megatron and verl, built by the infra team\nFROM ghcr.io/mylab/rl-base:2025.03\n"

#: shape -> (files beside pyproject.toml, the ``--no-deps`` install as ``file:line``)
SHAPES = {
    # the trial's project
    "dockerfile-editable-dot": (
        {"Dockerfile": IMAGE + "COPY . /app\nWORKDIR /app\nRUN pip install --no-deps -e .\n"},
        "Dockerfile:5",
    ),
    # the repro: the folder ``COPY .`` filled, by its path
    "dockerfile-copy-destination": (
        {"Dockerfile": IMAGE + "COPY . /app\nRUN pip install --no-deps -e /app\n"},
        "Dockerfile:4",
    ),
    "script-uv-extras": (
        {"scripts/setup.sh": "#!/bin/bash\nset -e\nuv pip install --no-dependencies '.[dev]'\n"},
        "scripts/setup.sh:3",
    ),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_no_deps_install_of_the_project_leaves_the_call_running(tmp_path: Path, shape: str) -> None:
    files, install = SHAPES[shape]
    root, site = launcher_project(tmp_path, {"pyproject.toml": PYPROJECT, **files}, VERL_08)
    assert launcher_ran(root, site) == "ran None"

    found = only_finding(root)
    assert (found["code"], found["location"]["row"], found["fix"]["applicability"]) == ("PPO001", CALL_LINE, "unsafe")
    assert found["reason"]["kind"] == "newest-assumed"
    assert found["reason"]["text"].startswith(
        f"`{install}` installs the project with --no-deps, so its `pyproject.toml:4 verl>=0.9.0` installs nothing there"
    )
    path, line = install.rsplit(":", 1)
    assert [(r["filename"], r["location"]["row"]) for r in found["reason"]["lines"]] == [(str(root / path), int(line))]

    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert (root / "train.py").read_text() == LAUNCHER
        assert launcher_ran(root, site) == "ran None"


#: counter-case -> files beside pyproject.toml (the project's declaration, or requirements.txt, decides)
DECIDING = {
    # a second install of the project without --no-deps (CI installs it with its dependencies)
    "second-install-with-deps": {
        "Dockerfile": IMAGE + "COPY . /app\nRUN pip install --no-deps -e /app\n",
        "Makefile": "install:\n\tpip install -e .\n",
    },
    # the root requirements file is not the project's declaration: it installs
    "requirements-file": {
        "Dockerfile": IMAGE + "COPY . /app\nWORKDIR /app\nRUN pip install --no-deps -e . && pip install -r requirements.txt\n",
        "requirements.txt": "verl>=0.9\n",
    },
    # a --no-deps install of a verl checkout is verl's, not the project's
    "verl-checkout": {
        "Dockerfile": IMAGE + "RUN git clone -b v0.9.0 https://example.invalid/volcengine/verl.git /opt/verl"
        " && cd /opt/verl && pip install --no-deps -e .\n",
    },
}


@pytest.mark.parametrize("case", sorted(DECIDING))
def test_an_install_that_brings_the_dependencies_still_decides(tmp_path: Path, case: str) -> None:
    root, site = launcher_project(tmp_path, {"pyproject.toml": PYPROJECT, **DECIDING[case]}, VERL_09)
    assert launcher_ran(root, site) == "ran None"
    found = only_finding(root)
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "safe")
    assert "--no-deps" not in found["message"]
    proc = run_cli("apply", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert (root / "train.py").read_text() == FIXED
    assert launcher_ran(root, site) == "ran {'trainer': 2}"
