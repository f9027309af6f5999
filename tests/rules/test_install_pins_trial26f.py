"""Trial 26f (REPORT.md, families 2 and 3): installs of verl the tool did not read.

* ``g2_vcs_monorepo_subdirectory`` / ``g2_requirements_vcs_subdirectory``: a Dockerfile's
  ``pip install "git+https://.../rl-stack.git@v2#subdirectory=third_party/verl"`` (or the same
  line in ``requirements.txt``) installs verl from a folder of a monorepo; its ref ``@v2`` is
  the monorepo's, so the release cannot be read (``requirements._from_reference``). It was not
  read as verl at all: the Dockerfile case was a safe fix, and the rewritten launcher raised
  ``TypeError`` against the verl 0.8 it installs.
* ``g2_tests_conftest_pip_install``: the only install of verl 0.8.0 is a test's
  ``subprocess.check_call([sys.executable, "-m", "pip", "install", CLUSTER_VERL])``: an
  install command in Python (``install_pins.python_commands``), read in every ``*.py`` file,
  the tests' included.

Each project is *executed* before and after ``apply`` and ``apply --thread-config`` with
verl 0.8 on ``PYTHONPATH`` (the interpreter's verl; the tool never sees it), and each rule has
its unit test.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import LAUNCHER, VERL_08, VERL_09, launcher_project, launcher_ran, only_finding, run_cli
from ppo_migrate.project.snapshot import run_scope
from ppo_migrate.rules.install_pins import python_commands
from ppo_migrate.rules.requirements import _from_reference
from packaging.version import Version

FIXED = LAUNCHER.replace("get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config)")
CALL_LINE = 6
PYPROJECT = '[project]\nname = "proj"\nversion = "0.1.0"\ndependencies = ["verl>=0.9.0", "omegaconf"]\n'
MONOREPO = "git+https://example.invalid/mylab/rl-stack.git@v2#subdirectory=third_party/verl"
CONFTEST = (
    "import os\nimport subprocess\nimport sys\n\n"
    'CLUSTER_VERL = "verl==0.8.0"\n\n\n'
    "def pytest_sessionstart(session):\n"
    '    if os.environ.get("E2E_INSTALL") == "1":\n'
    '        subprocess.check_call([sys.executable, "-m", "pip", "install", CLUSTER_VERL])\n'
)


def _applied_and_ran(root: Path, site: Path) -> None:
    """Both applies leave ``train.py`` as it is, and it still runs against ``site``'s verl."""
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert (root / "train.py").read_text() == LAUNCHER
        assert launcher_ran(root, site) == "ran None"


#: shape -> (files beside pyproject.toml, the install as ``file:line``, what the reason quotes)
SUBDIRECTORY = {
    "dockerfile": (
        {"Dockerfile": f'FROM python:3.11\nRUN pip install "{MONOREPO}"\nCOPY . /app\nRUN pip install -e /app\n'},
        "Dockerfile:2",
        MONOREPO,
    ),
    "requirements": ({"requirements.txt": f"omegaconf\n{MONOREPO}\n"}, "requirements.txt:2", MONOREPO),
    "egg-of-another-repository": (
        {"requirements.txt": "git+https://example.invalid/mylab/rl-stack.git@v2.1#egg=verl\n"},
        "requirements.txt:1",
        "git+https://example.invalid/mylab/rl-stack.git@v2.1#egg=verl",
    ),
}


@pytest.mark.parametrize("shape", sorted(SUBDIRECTORY))
def test_a_monorepo_folder_of_verl_is_a_release_that_cannot_be_read(tmp_path: Path, shape: str) -> None:
    files, install, written = SUBDIRECTORY[shape]
    root, site = launcher_project(tmp_path, {"pyproject.toml": PYPROJECT, **files}, VERL_08)
    assert launcher_ran(root, site) == "ran None"

    found = only_finding(root)
    assert (found["code"], found["location"]["row"]) == ("PPO005", CALL_LINE)
    assert f"the project takes verl from `{install} {written}`, whose release cannot be read" in found["message"]
    _applied_and_ran(root, site)


def test_the_ref_of_a_subdirectory_install_is_not_verls_release(tmp_path: Path) -> None:
    here = tmp_path / "requirements.txt"
    found = _from_reference(MONOREPO.replace("@v2", "@v0.9.1"), here, 3, "x")
    assert (found.version, found.kind, found.line) == (None, "direct-reference", 3)
    # a folder that is not verl's, and a repository named verl (its tag is verl's release)
    assert _from_reference("git+https://example.invalid/lab/rl-stack.git@v2#subdirectory=tools", here, 1, "x") is None
    tagged = _from_reference("git+https://example.invalid/volcengine/verl.git@v0.8.0#egg=verl", here, 1, "x")
    assert (tagged.version, tagged.kind) == (Version("0.8.0"), "lock")
    nested = _from_reference("git+https://example.invalid/lab/stack.git@main#egg=verl&subdirectory=pkgs/verl/", here, 1, "x")
    assert (nested.version, nested.kind) == (None, "direct-reference")


#: shape -> the Python file installing verl 0.8.0, as ``path: text``, and the line of the install
PYTHON_INSTALLS = {
    "conftest-argv-constant": ("tests/e2e/conftest.py", CONFTEST, 10),
    "script-os-system": ("tools/bootstrap.py", 'import os\n\nos.system("pip install verl==0.8.0 ray")\n', 3),
    "script-shell-string": (
        "tools/bootstrap.py",
        'import subprocess\nsubprocess.run("python -m pip install -U \'verl<0.9\'", shell=True, check=True)\n',
        2,
    ),
}


@pytest.mark.parametrize("shape", sorted(PYTHON_INSTALLS))
def test_a_pip_install_in_python_is_an_install(tmp_path: Path, shape: str) -> None:
    path, text, line = PYTHON_INSTALLS[shape]
    root, site = launcher_project(tmp_path, {"pyproject.toml": PYPROJECT, path: text}, VERL_08)
    assert launcher_ran(root, site) == "ran None"

    found = only_finding(root)
    assert (found["code"], found["location"]["row"]) == ("PPO005", CALL_LINE)
    assert "the project runs verl 0.8.0" in found["message"] or "verl<0.9" in found["message"]
    assert [(r["filename"], r["location"]["row"]) for r in found["reason"]["lines"]] == [(str(root / path), line)]
    _applied_and_ran(root, site)


def test_an_install_of_a_new_verl_in_a_test_keeps_the_fix_safe(tmp_path: Path) -> None:
    conftest = CONFTEST.replace("verl==0.8.0", "verl==0.9.1")
    root, site = launcher_project(tmp_path, {"pyproject.toml": PYPROJECT, "tests/conftest.py": conftest}, VERL_09)
    found = only_finding(root)
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "safe")
    proc = run_cli("apply", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert (root / "train.py").read_text() == FIXED
    assert launcher_ran(root, site) == "ran {'trainer': 2}"


def test_python_commands_reads_argv_lists_strings_and_constants(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "import os, subprocess, sys\n"
        'PKG = "verl==0.8.0"\n'
        'TWICE = "a"\nTWICE = "b"\n'
        'subprocess.check_call([sys.executable, "-m", "pip", "install", PKG])\n'
        'os.system("uv pip install verl==0.8.1 && echo done")\n'
        'subprocess.run(["pip", "install", TWICE, *extra])\n'
        'get_ipython().run_line_magic("pip", "install verl==0.7.0")\n'
        'print("pip install verl==0.6.0", file=sys.stderr)\n'
        'subprocess.run(["pip", "download", "verl==0.5.0"])\n'
        'subprocess.run(["pip", "install", f"verl=={v}"])\n'
        'CMD = ("conda", "install", "-y", "verl=0.4.0")\n'
        "subprocess.Popen(CMD)\n"
    )
    with run_scope():
        commands = python_commands(str(source))
    assert commands == [
        (5, "python -m pip install verl==0.8.0"),
        (6, "uv pip install verl==0.8.1 && echo done"),
        (7, "pip install ${PYTHON_ARGUMENT} ${PYTHON_ARGUMENT}"),
        (8, "pip install verl==0.7.0"),
        (11, 'pip install "verl==${PYTHON_ARGUMENT}"'),
        (13, "conda install -y verl=0.4.0"),
    ]


#: the lab's image: its verl is 0.8 (the tag does not say so)
IMAGE = "FROM ghcr.io/mylab/rl-base:2025.03\n"

#: shape -> (files beside pyproject.toml, the instruction running Python as ``file:line``)
NEVER_INSTALLED = {
    # the trial's project
    "requirements-without-verl": (
        {
            "Dockerfile": IMAGE + "COPY requirements.txt /tmp/requirements.txt\nRUN pip install -r /tmp/requirements.txt\n"
            'COPY . /app\nWORKDIR /app\nCMD ["python", "train.py"]\n',
            "requirements.txt": "omegaconf\n",
        },
        "Dockerfile:6",
    ),
    # shell form, in a folder of its own; a requirements file naming verl>=0.9 it never installs
    "docker-folder-shell-form": (
        {
            "docker/Dockerfile": IMAGE + "COPY . /workspace\nRUN cd /workspace && \\\n    python -c 'import train'\n",
            "requirements.txt": "verl>=0.9.0\n",
        },
        "docker/Dockerfile:3",
    ),
}


@pytest.mark.parametrize("shape", sorted(NEVER_INSTALLED))
def test_an_image_that_never_installs_the_project_is_not_decided_by_its_pins(tmp_path: Path, shape: str) -> None:
    files, run = NEVER_INSTALLED[shape]
    root, site = launcher_project(tmp_path, {"pyproject.toml": PYPROJECT, **files}, VERL_08)
    assert launcher_ran(root, site) == "ran None"

    found = only_finding(root)
    assert (found["code"], found["location"]["row"], found["fix"]["applicability"]) == ("PPO001", CALL_LINE, "unsafe")
    assert found["reason"]["kind"] == "newest-assumed"
    assert found["reason"]["text"].startswith(
        f"`{run}` runs the project's code in `ghcr.io/mylab/rl-base:2025.03`, whose verl ppo-migrate cannot know, "
        "and never installs the project, so its `"
    )
    path, line = run.rsplit(":", 1)
    assert [(r["filename"], r["location"]["row"]) for r in found["reason"]["lines"]] == [(str(root / path), int(line))]
    _applied_and_ran(root, site)


#: counter-case -> files beside pyproject.toml: the image installs the project or a verl, or runs no Python
DECIDING = {
    "installs-the-project": {"Dockerfile": IMAGE + "COPY . /app\nRUN pip install /app\nCMD python /app/train.py\n"},
    "uv-sync": {"Dockerfile": IMAGE + "COPY . /app\nWORKDIR /app\nRUN uv sync --frozen\nCMD python train.py\n"},
    "installs-by-name": {"Dockerfile": IMAGE + "RUN pip install 'proj[gpu]==0.1.0'\nCOPY train.py .\nCMD python train.py\n"},
    "installs-verl": {"Dockerfile": IMAGE + "RUN pip install 'verl>=0.9.1'\nCOPY . /app\nCMD python /app/train.py\n"},
    "runs-no-python": {"Dockerfile": "FROM nginx:1.27\nCOPY docs/ /usr/share/nginx/html\nCMD nginx -g 'daemon off;'\n"},
}


@pytest.mark.parametrize("case", sorted(DECIDING))
def test_an_image_that_installs_the_project_or_verl_keeps_the_fix(tmp_path: Path, case: str) -> None:
    root, site = launcher_project(tmp_path, {"pyproject.toml": PYPROJECT, **DECIDING[case]}, VERL_09)
    found = only_finding(root)
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "safe"), found["message"]
    assert "never installs" not in found["message"]
    proc = run_cli("apply", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert (root / "train.py").read_text() == FIXED
    assert launcher_ran(root, site) == "ran {'trainer': 2}"


def test_uninstalled_runs_names_the_instruction_and_the_last_image(tmp_path: Path) -> None:
    from ppo_migrate.rules.install_pins import uninstalled_runs

    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "Containerfile").write_text(
        "FROM python:3.11 AS build\nRUN apt-get install -y python3 python3-pip\n"
        "FROM --platform=linux/amd64 ghcr.io/lab/base:1 AS run\nRUN python3 -m pip install ray\n"
        'COPY . /srv\nENTRYPOINT ["/usr/bin/python3", "-m", "train"]\n'
    )
    (root / "Dockerfile.dev").write_text(IMAGE + "COPY . /app\nRUN pip install -e /app\nCMD python /app/train.py\n")
    with run_scope():
        assert uninstalled_runs(str(root)) == ((str(root / "Containerfile"), 6, "ghcr.io/lab/base:1"),)
