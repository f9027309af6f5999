"""Issue 26, family 3, trial 26c (REPORT.md, C): an optional or other environment alone shows a new verl.

Each project runs verl 0.8 (a stub on ``PYTHONPATH``, as the project's interpreter has it; the
tool never sees it). Its required dependencies do not name verl; only an environment the code
does not run in installs ``verl>=0.9.0``: an optional extra, a PEP 735 dependency group, a tox
``[testenv:verl-next]``, a hatch environment other than ``default``, a nox session, or a
Dockerfile's second interpreter (``/opt/evaltools/bin/pip``). A plain ``apply`` (and
``apply --thread-config``) took that pin as the project's, passed the config, and the launcher
raised ``TypeError``. The rule (docs/callee.md, row 3; ``versions.verl_evidence``): only
declarations present in every environment the code runs in (``[project] dependencies``,
``install_requires``, poetry's main group, the root requirements file) may show that the config
is taken; the others may only lower the release. Here nothing decides: the fix is unsafe and
its reason names the pin set aside (``file:line``). Each case is *executed* before and after
both applies.

The counter-case adds a required ``verl>=0.9`` beside the same optional pin: it decides, the
fix is safe, ``apply`` writes it, and the rewritten launcher runs against verl 0.9.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import (
    LAUNCHER,
    VERL_08,
    VERL_09,
    launcher_project,
    launcher_ran,
    only_finding,
    run_cli,
)

FIXED = LAUNCHER.replace("get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config)")
CALL_LINE = 6

#: a pyproject.toml whose required dependencies are ``{deps}`` and that ends with ``{tail}``
PYPROJECT = '[project]\nname = "proj"\nversion = "0.1.0"\ndependencies = [{deps}]\n\n{tail}'
#: the required dependencies without verl, and with it (the counter-case)
WITHOUT, WITH = '"ray", "omegaconf"', '"ray", "omegaconf", "verl>=0.9"'

#: shape -> (files given the required dependencies, the pin set aside `path:line requirement`,
#:           the required declaration of the counter-case as the callee names it)
SHAPES = {
    "extra": (
        lambda deps: {"pyproject.toml": PYPROJECT.format(
            deps=deps, tail='[project.optional-dependencies]\nverl-next = ["verl>=0.9.0"]\n')},
        "pyproject.toml:7 verl>=0.9.0",
        "pyproject.toml:4 verl>=0.9",
    ),
    "dependency-group": (
        lambda deps: {"pyproject.toml": PYPROJECT.format(
            deps=deps, tail='[dependency-groups]\ncompat-next = ["verl>=0.9.0"]\n')},
        "pyproject.toml:7 verl>=0.9.0",
        "pyproject.toml:4 verl>=0.9",
    ),
    # uv's constraints and overrides bound the verl a dependency brings and install none
    # (trial 26e, e3_uv_constraint_without_dependency: a base image's verl 0.8 ran)
    "uv-constraint": (
        lambda deps: {"pyproject.toml": PYPROJECT.format(
            deps=deps, tail='[tool.uv]\nconstraint-dependencies = ["verl>=0.9.0"]\n')},
        "pyproject.toml:7 verl>=0.9.0",
        "pyproject.toml:4 verl>=0.9",
    ),
    "uv-override": (
        lambda deps: {"pyproject.toml": PYPROJECT.format(
            deps=deps, tail='[tool.uv]\noverride-dependencies = ["verl>=0.9.0"]\n')},
        "pyproject.toml:7 verl>=0.9.0",
        "pyproject.toml:4 verl>=0.9",
    ),
    "uv-toml-constraint": (
        lambda deps: {"pyproject.toml": PYPROJECT.format(deps=deps, tail=""),
                      "uv.toml": 'constraint-dependencies = ["verl>=0.9.0"]\n'},
        "uv.toml:1 verl>=0.9.0",
        "pyproject.toml:4 verl>=0.9",
    ),
    # trial 26e: pdm's overrides, a pip constraints file (``-c``, ``pip.conf``) install
    # nothing either (e3b_pdm_override_only, e3b_pip_constraints_only, e3b_pip_conf_constraint_only)
    "pdm-override": (
        lambda deps: {"pyproject.toml": PYPROJECT.format(
            deps=deps, tail='[tool.pdm.resolution.overrides]\nverl = ">=0.9.0"\n')},
        'pyproject.toml:7 verl = ">=0.9.0"',
        "pyproject.toml:4 verl>=0.9",
    ),
    "pip-constraints-file": (
        lambda deps: {
            "requirements.txt": "omegaconf\n" + ("verl>=0.9\n" if "verl" in deps else "") + "-c constraints.txt\n",
            "constraints.txt": "ray<3\nverl>=0.9.0\n",
        },
        "constraints.txt:2 verl>=0.9.0",
        "requirements.txt:2 verl>=0.9",
    ),
    "pip-conf-constraint": (
        lambda deps: {
            "pyproject.toml": PYPROJECT.format(deps=deps, tail=""),
            "pip.conf": "[global]\nconstraint = constraints.txt\n",
            "constraints.txt": "verl>=0.9.0\n",
        },
        "constraints.txt:1 verl>=0.9.0",
        "pyproject.toml:4 verl>=0.9",
    ),
    "hatch-env": (
        lambda deps: {"pyproject.toml": PYPROJECT.format(
            deps=deps, tail='[tool.hatch.envs.next]\ndependencies = ["verl>=0.9.0"]\n')},
        "pyproject.toml:7 verl>=0.9.0",
        "pyproject.toml:4 verl>=0.9",
    ),
    "tox-env": (
        lambda deps: {
            "requirements.txt": "ray\nomegaconf\n" + ("verl>=0.9\n" if "verl" in deps else ""),
            "tox.ini": (
                "[tox]\nenvlist = py311, verl-next\n\n"
                "[testenv]\ndeps = -rrequirements.txt\ncommands = python train.py\n\n"
                "[testenv:verl-next]\nignore_outcome = true\ndeps =\n    {[testenv]deps}\n    verl>=0.9.0\n"
            ),
        },
        "tox.ini:12 verl>=0.9.0",
        "requirements.txt:3 verl>=0.9",
    ),
    "nox-session": (
        lambda deps: {
            **({"requirements.txt": "ray\nverl>=0.9\n"} if "verl" in deps else {}),
            "noxfile.py": (
                "import nox\n\n\n@nox.session\ndef verl_next(session):\n"
                '    session.install("verl>=0.9.0")\n    session.run("pytest", success_codes=[0, 1])\n'
            ),
        },
        "noxfile.py:6 verl>=0.9.0",
        "requirements.txt:2 verl>=0.9",
    ),
    # trial 26d: a requirement setup.py adds only under a condition (an opt-in variable, a
    # conditional expression, the machine) is installed in some environments only
    "setup-py-conditional-append": (
        lambda deps: {"setup.py": (
            "import os\nfrom setuptools import setup\n\n"
            f"install_requires = [{deps}]\n"
            'if os.environ.get("RL_NEXT") == "1":  # opt in to the next verl\n'
            '    install_requires.append("verl>=0.9.0")\n'
            'setup(name="proj", version="0.1.0", install_requires=install_requires)\n'
        )},
        "setup.py:6 verl>=0.9.0",
        "setup.py:4 verl>=0.9",
    ),
    "setup-py-conditional-expression": (
        lambda deps: {"setup.py": (
            "import os\nfrom setuptools import setup\n\n"
            f'setup(name="proj", version="0.1.0", install_requires=[{deps}]'
            ' + (["verl>=0.9.0"] if os.environ.get("RL_NEXT") else []))\n'
        )},
        "setup.py:4 verl>=0.9.0",
        "setup.py:4 verl>=0.9",
    ),
    "setup-py-platform-if": (
        lambda deps: {"setup.py": (
            "import platform\nfrom setuptools import setup\n\n"
            f"reqs = [{deps}]\n"
            'if platform.machine() == "aarch64":  # GH200 nodes get the new verl\n'
            '    reqs += ["verl>=0.9.0"]\n'
            'setup(name="proj", version="0.1.0", install_requires=reqs)\n'
        )},
        "setup.py:6 verl>=0.9.0",
        "setup.py:4 verl>=0.9",
    ),
    "docker-second-interpreter": (
        lambda deps: {
            **({"requirements.txt": "ray\nverl>=0.9\n"} if "verl" in deps else {}),
            "Dockerfile": (
                "FROM verlai/verl:base\n"
                "RUN python -m venv /opt/evaltools && /opt/evaltools/bin/pip install 'verl>=0.9.0' lm-eval\n"
                "COPY . /app\n"
            ),
        },
        "Dockerfile:2 verl>=0.9.0",
        "requirements.txt:2 verl>=0.9",
    ),
}


#: the project with the verl ``body`` on the launcher's path, the launcher's ``ran ...`` line and the one finding
_project = launcher_project
_runs = launcher_ran
_finding = only_finding


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_an_optional_environment_alone_leaves_the_call_running(tmp_path: Path, shape: str) -> None:
    files, pin, _ = SHAPES[shape]
    root, site = _project(tmp_path, files(WITHOUT), VERL_08)
    assert _runs(root, site) == "ran None"

    found = _finding(root)
    assert (found["code"], found["location"]["row"], found["fix"]["applicability"]) == ("PPO001", CALL_LINE, "unsafe")
    assert found["reason"]["kind"] == "newest-assumed"
    assert f"`{pin}` is an environment's pin, which may only lower the release" in found["reason"]["text"]
    assert "declare the verl the project runs" in found["reason"]["text"]
    path, line = pin.split(" ", 1)[0].rsplit(":", 1)
    assert [(r["filename"], r["location"]["row"]) for r in found["reason"]["lines"]] == [(str(root / path), int(line))]

    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert (root / "train.py").read_text() == LAUNCHER
        assert _runs(root, site) == "ran None"


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_required_verl_beside_the_same_pin_still_decides(tmp_path: Path, shape: str) -> None:
    """The same optional pin and a required ``verl>=0.9``: the required one decides, the fix
    is safe, ``apply`` passes the config, and the rewritten launcher runs against verl 0.9."""
    files, _, required = SHAPES[shape]
    root, site = _project(tmp_path, files(WITH), VERL_09)
    assert _runs(root, site) == "ran None"
    found = _finding(root)
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "safe")
    assert required in found["callee"]
    proc = run_cli("apply", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert (root / "train.py").read_text() == FIXED
    assert _runs(root, site) == "ran {'trainer': 2}"


@pytest.mark.parametrize("marker", ["platform_machine == 'aarch64'", 'python_version >= "3.8"'])
def test_a_marker_on_the_only_pin_is_named_as_the_uncertainty(tmp_path: Path, marker: str) -> None:
    """Trial 26d (WRONG): ``verl>=0.9.0; <marker>`` said the release "cannot be read"; it can,
    only where the marker holds is unknown (markers describe the machine that runs the
    trainer). The call is left alone (PPO005) with that reason, and keeps running."""
    requirement = f"verl>=0.9.0; {marker}"
    root, site = launcher_project(tmp_path, {"pyproject.toml": PYPROJECT.format(deps=repr(requirement), tail="")}, VERL_08)
    assert launcher_ran(root, site) == "ran None"
    found = _finding(root)
    assert (found["code"], found["location"]["row"], found["fix"]) == ("PPO005", CALL_LINE, None)
    assert (f"`pyproject.toml:4 {requirement}`, which applies only where its marker holds: elsewhere nothing "
            "says which release runs") in found["message"]
    assert "cannot be read" not in found["message"]
    assert run_cli("apply", "--exit-zero", ".", cwd=root).returncode == 0
    assert (root / "train.py").read_text() == LAUNCHER
    assert launcher_ran(root, site) == "ran None"
