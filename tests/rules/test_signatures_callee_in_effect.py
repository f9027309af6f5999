"""Issue 26: the verl in effect where the tool used to assume the newest signature.

Each case is a small tree written here (not under the repository: a pin in a folder of this
repository would apply to its own files). Its launcher is *executed* against a stub verl
before and after a plain ``apply`` and after ``apply --thread-config``: it must still run.
``check --output-format json`` must report PPO005 naming the pin or definition that decided.

Family 2: pins in files the tool did not read (``environment.yml`` and its ``pip:`` section,
``dev-requirements.txt``, ``docker/requirements.txt``, ``tox.ini``, ``Pipfile``,
``Pipfile.lock``, hatch environments, ``pixi.toml``) and pins that disagree (every pin that
could apply must accept: the lowest wins). Family 3: nothing decides: the fix is unsafe and
says what to declare.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import VERL_08, VERL_09, declare_verl, run_cli, verl_stub
from tree_runs import run_python_per_tree

LAUNCHER = (
    "from omegaconf import OmegaConf\n"
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
    "\n"
    "\n"
    "def run(config):\n"
    "    return get_ppo_ray_runtime_env()\n"
    "\n"
    "\n"
    "def helper():\n"
    "    return get_ppo_ray_runtime_env()\n"
    "\n"
    "\n"
    "def launch(config):\n"
    "    return run(config), helper()\n"
    "\n"
    "\n"
    "print('ran', launch(OmegaConf.create({'trainer': 2})))\n"
)
BEFORE = "ran (None, None)\n"
#: the launcher's folder (scripts/) is not the root: pins are looked for in the repository
RUN = "import runpy, sys; sys.argv = ['train.py']; runpy.run_path('scripts/train.py', run_name='__main__')"

PROJECT_09 = '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9"]\n'
PINS: dict[str, tuple[dict[str, str], str]] = {
    # case -> (files, the place PPO005 must name)
    "environment-yml-conda": (
        {"environment.yml": "name: rl\nchannels: [conda-forge]\ndependencies:\n  - python=3.11\n  - verl=0.8.0\n"},
        "environment.yml:5",
    ),
    "environment-yml-pip": (
        {"environment.yml": "name: rl\ndependencies:\n  - python=3.11\n  - pip\n  - pip:\n    - torch\n    - verl>=0.7.1,<0.9\n"},
        "environment.yml:7",
    ),
    "dev-requirements": (
        {"dev-requirements.txt": "pytest\nverl==0.8.0\n"},
        "dev-requirements.txt:2",
    ),
    "docker-requirements": (
        {"pyproject.toml": "[tool.ruff]\nline-length = 100\n", "docker/Dockerfile": "RUN pip install -r requirements.txt\n",
         "docker/requirements.txt": "ray\nverl==0.8.0\n"},
        "docker/requirements.txt:2",
    ),
    "tox-ini": (
        {"tox.ini": "[tox]\nenvlist = py311\n\n[testenv]\ndeps =\n    pytest\n    verl==0.8.0\ncommands = pytest\n"},
        "tox.ini:7",
    ),
    "pipfile": (
        {"Pipfile": '[[source]]\nname = "pypi"\n\n[packages]\nray = "*"\nverl = ">=0.7,<0.9"\n'},
        "Pipfile:6",
    ),
    "pipfile-lock": (
        {"Pipfile.lock": json.dumps({"_meta": {}, "default": {"verl": {"version": "==0.8.0"}}, "develop": {}}, indent=4)},
        "Pipfile.lock:4",
    ),
    "hatch-env": (
        {"pyproject.toml": '[project]\nname = "rl"\nversion = "0"\n\n[tool.hatch.envs.train]\ndependencies = [\n  "verl==0.8.0",\n]\n'},
        "pyproject.toml:7",
    ),
    "pixi-pypi": (
        {"pixi.toml": '[project]\nname = "rl"\n\n[pypi-dependencies]\nverl = ">=0.8,<0.9"\n'},
        "pixi.toml:5",
    ),
    "pixi-conda": (
        {"pixi.toml": '[project]\nname = "rl"\n\n[dependencies]\npython = "3.11.*"\nverl = "0.8.*"\n'},
        "pixi.toml:6",
    ),
    # a fresh tester's forms: each beside a root `verl>=0.9`, each was a safe rewrite
    "tox-toml": (
        {"requirements.txt": "verl>=0.9\n", "tox.toml": '[env_run_base]\ndeps = ["verl==0.8.0", "omegaconf"]\n'},
        "tox.toml:2",
    ),
    "tox-toml-env": (
        {"requirements.txt": "verl>=0.9\n", "tox.toml": '[env.gpu]\ndeps = [\n  "verl==0.8.0",\n]\n'},
        "tox.toml:3",
    ),
    "setup-cfg-testenv": (
        {"requirements.txt": "verl>=0.9\n", "setup.cfg": "[metadata]\nname = rl\n\n[testenv]\ndeps =\n    verl==0.8.0\n"},
        "setup.cfg:6",
    ),
    "pyproject-legacy-tox-ini": (
        {"requirements.txt": "verl>=0.9\n",
         "pyproject.toml": '[tool.tox]\nlegacy_tox_ini = """\n[testenv]\ndeps = verl==0.8.0\n"""\n'},
        "pyproject.toml:4",
    ),
    "pyproject-tool-tox": (
        {"requirements.txt": "verl>=0.9\n", "pyproject.toml": '[tool.tox.env_run_base]\ndeps = ["verl==0.8.0"]\n'},
        "pyproject.toml:2",
    ),
    "conda-named-environment": (
        {"requirements.txt": "verl>=0.9\n", "environment-gpu.yml": "dependencies:\n  - pip\n  - pip:\n    - verl==0.8.0\n"},
        "environment-gpu.yml:4",
    ),
    "pyproject-tool-pixi": (
        {"pyproject.toml": '[tool.pixi.pypi-dependencies]\nverl = "==0.8.0"\n'},
        "pyproject.toml:2",
    ),
    "uv-constraint-dependencies": (  # uv resolves within its constraints: 0.8 installs
        {"pyproject.toml": '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9"]\n'
                           '[tool.uv]\nconstraint-dependencies = ["verl<0.9"]\n'},
        "pyproject.toml:6",
    ),
    # install commands build the environment that runs: their pins join the others
    "dockerfile-pip-install": (
        {"pyproject.toml": PROJECT_09, "Dockerfile": "FROM python:3.11\nRUN pip install 'verl==0.8.0'\n"},
        "Dockerfile:2",
    ),
    "dockerfile-pip3-continued": (
        {"pyproject.toml": PROJECT_09,
         "docker/Dockerfile.gpu": "FROM python:3.11\nRUN pip3 install --no-cache-dir -U \\\n    torch verl==0.8.0 && echo ok\n"},
        "docker/Dockerfile.gpu:2",
    ),
    "dockerfile-python-m-pip": (
        {"pyproject.toml": PROJECT_09, "Dockerfile": "FROM python:3.11\nRUN python -m pip install -i https://example.org/simple \"verl>=0.7,<0.9\"\n"},
        "Dockerfile:2",
    ),
    "dockerfile-uv-pip-install": (
        {"pyproject.toml": PROJECT_09, "Dockerfile": "FROM python:3.11\nRUN uv pip install --system verl==0.8.0\n"},
        "Dockerfile:2",
    ),
    "shell-script-pip-install": (
        {"pyproject.toml": PROJECT_09, "scripts/setup.sh": "#!/bin/bash\nset -e\npip install verl==0.8.0 omegaconf\n"},
        "scripts/setup.sh:3",
    ),
    "github-workflow-run-step": (
        {"pyproject.toml": PROJECT_09,
         ".github/workflows/ci.yml": "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n"
                                     "      - run: |\n          pip install verl==0.8.0\n          python scripts/train.py\n"},
        ".github/workflows/ci.yml:7",
    ),
    "dockerfile-requirements-of-any-name": (  # copied to the image's workdir, installed with -r
        {"pyproject.toml": PROJECT_09, "deps/gpu.txt": "torch\nverl==0.8.0\n",
         "Dockerfile": "FROM python:3.11\nCOPY deps/gpu.txt .\nRUN pip install -r gpu.txt\n"},
        "deps/gpu.txt:2",
    ),
    "script-requirements-of-any-name": (
        {"pyproject.toml": PROJECT_09, "deps/gpu.txt": "verl>=0.8,<0.9\n",
         "install.sh": "#!/bin/sh\npip install --requirement=deps/gpu.txt\n"},
        "deps/gpu.txt:1",
    ),
    "dockerfile-verl-image": (  # verl's own image: the tag names the release it holds
        {"pyproject.toml": PROJECT_09,
         "Dockerfile": "FROM verlai/verl:app-verl0.8-vllm0.10.0-mcore0.13.0-te2.2\nCOPY . /app\n"},
        "Dockerfile:1",
    ),
    "script-heredoc-requirements": (  # the script writes the file it installs with -r
        {"pyproject.toml": PROJECT_09,
         "setup_env.sh": "#!/bin/bash\ncat > /tmp/req.txt <<REQ\nverl==0.8.0\nREQ\npip install -r /tmp/req.txt\n"},
        "setup_env.sh:3",
    ),
    "dockerfile-exec-form": (  # RUN in exec form: the command it runs
        {"pyproject.toml": PROJECT_09,
         "Dockerfile": 'FROM python:3.11\nRUN ["pip", "install", "verl==0.8.0"]\n'},
        "Dockerfile:2",
    ),
    "dockerfile-arg-variable": (  # the pin's variable takes the ARG's default
        {"pyproject.toml": PROJECT_09,
         "Dockerfile": 'FROM python:3.11\nARG VERL_VERSION=0.8.0\nRUN pip install "verl==${VERL_VERSION}"\n'},
        "Dockerfile:3",
    ),
    # a fresh tester's install commands (issue 26): more files, more installers
    "gitlab-ci-script": (
        {"requirements.txt": "verl>=0.9.0\n", ".gitlab-ci.yml": "test:\n  script:\n    - pip install verl==0.8.0\n    - pytest\n"},
        ".gitlab-ci.yml:3",
    ),
    "justfile-recipe": (
        {"requirements.txt": "verl>=0.9.0\n", "justfile": "install:\n    pip install verl==0.8.0\n"},
        "justfile:2",
    ),
    "compose-command": (
        {"requirements.txt": "verl>=0.9.0\n",
         "docker-compose.yml": "services:\n  train:\n    command: sh -c \"pip install verl==0.8.0 && python t.py\"\n"},
        "docker-compose.yml:3",
    ),
    "devcontainer-post-create": (
        {"requirements.txt": "verl>=0.9.0\n",
         ".devcontainer/devcontainer.json": '{"image": "python:3.11",\n "postCreateCommand": "pip install verl==0.8.0"}\n'},
        ".devcontainer/devcontainer.json:2",
    ),
    "extensionless-shell-script": (
        {"requirements.txt": "verl>=0.9.0\n", "bin/bootstrap": "#!/usr/bin/env bash\npip install verl==0.8.0\n"},
        "bin/bootstrap:2",
    ),
    "bash-extension-script": (  # trial 26d
        {"requirements.txt": "verl>=0.9.0\n", "scripts/install.bash": "set -e\npip install verl==0.8.0\n"},
        "scripts/install.bash:2",
    ),
    "slurm-batch-job": (  # trial 26d
        {"requirements.txt": "verl>=0.9.0\n",
         "jobs/train.slurm": "#!/bin/bash\n#SBATCH --nodes=2\npip install verl==0.8.0\nsrun python train.py\n"},
        "jobs/train.slurm:3",
    ),
    "noxfile-session-install": (
        {"requirements.txt": "verl>=0.9.0\n",
         "noxfile.py": "import nox\n@nox.session\ndef tests(session):\n    session.install('verl==0.8.0', 'pytest')\n"},
        "noxfile.py:4",
    ),
    "conda-install-single-eq": (
        {"requirements.txt": "verl>=0.9.0\n", "setup_env.sh": "#!/bin/bash\nconda install -y -c conda-forge verl=0.8.0\n"},
        "setup_env.sh:2",
    ),
    "uv-add": (
        {"requirements.txt": "verl>=0.9.0\n", "setup_env.sh": "#!/bin/bash\nuv add \"verl==0.8.0\"\n"},
        "setup_env.sh:2",
    ),
    "poetry-add": (
        {"requirements.txt": "verl>=0.9.0\n", "setup_env.sh": "#!/bin/bash\npoetry add verl@0.8.0\n"},
        "setup_env.sh:2",
    ),
    "pip-constraint-variable": (
        {"requirements.txt": "verl>=0.9.0\n", "constraints/train.cst": "verl==0.8.0\n",
         "setup_env.sh": "#!/bin/bash\nexport PIP_CONSTRAINT=constraints/train.cst\npip install verl\n"},
        "constraints/train.cst:1",
    ),
    "github-workflow-matrix": (
        {"requirements.txt": "verl>=0.9.0\n",
         ".github/workflows/ci.yml": "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    strategy:\n      matrix:\n"
                                     "        verl: [\"0.8.0\"]\n    steps:\n      - run: pip install \"verl==${{ matrix.verl }}\"\n"},
        ".github/workflows/ci.yml:9",
    ),
    # a fresh tester's pin files (issue 26)
    "pylock-toml": (
        {"requirements.txt": "verl>=0.9.0\n",
         "pylock.toml": 'lock-version = "1.0"\ncreated-by = "pip"\n[[packages]]\nname = "verl"\nversion = "0.8.0"\n'},
        "pylock.toml:4",
    ),
    "rye-requirements-lock": (
        {"requirements.txt": "verl>=0.9.0\n", "requirements.lock": "# generated by rye\nverl==0.8.0\n"},
        "requirements.lock:2",
    ),
    "pipfile-custom-category": (
        {"requirements.txt": "verl>=0.9.0\n", "Pipfile": '[packages]\nrequests = "*"\n[train]\nverl = "==0.8.0"\n'},
        "Pipfile:4",
    ),
    "pip-conf-constraint": (
        {"requirements.txt": "verl>=0.9.0\n", "constraints.pip": "verl==0.8.0\n",
         "pip.conf": "[global]\nconstraint = constraints.pip\n"},
        "constraints.pip:1",
    ),
    "setup-py-appended-literal": (
        {"requirements.txt": "verl>=0.9.0\n",
         "setup.py": 'from setuptools import setup\nREQS = ["ray"]\nREQS.append("verl==0.8.0")\nsetup(name="p", install_requires=REQS)\n'},
        "setup.py:3",
    ),
    "setup-py-f-string": (
        {"requirements.txt": "verl>=0.9.0\n",
         "setup.py": 'from setuptools import setup\nVERL = "0.8.0"\nsetup(name="p", install_requires=["ray", f"verl=={VERL}"])\n'},
        "setup.py:3",
    ),
    # trial 26c, B: conda hands the pip section to ``pip install -r``: its includes are followed,
    # relative to the environment file's folder
    "environment-yml-pip-r": (
        {"pyproject.toml": PROJECT_09, "deps/cluster.txt": "ray\nverl==0.8.0\n",
         "environment.yml": "name: rl\ndependencies:\n  - python=3.11\n  - pip\n  - pip:\n    - -r deps/cluster.txt\n"},
        "deps/cluster.txt:2",
    ),
    "environment-yml-pip-requirement-eq": (
        {"pyproject.toml": PROJECT_09, "deps/cluster.txt": "verl>=0.7,<0.9\n",
         "environment.yml": "name: rl\ndependencies:\n  - pip\n  - pip:\n    - --requirement=deps/cluster.txt\n"},
        "deps/cluster.txt:1",
    ),
    "environment-yml-pip-constraint": (
        {"pyproject.toml": PROJECT_09, "deps/pins.txt": "omegaconf\nverl==0.8.0\n",
         "environment.yml": "dependencies:\n  - pip:\n    - verl\n    - -c deps/pins.txt\n"},
        "deps/pins.txt:2",
    ),
    "environment-yml-pip-r-beside-the-file": (  # relative to envs/, not to the root
        {"pyproject.toml": PROJECT_09, "envs/cluster.txt": "verl==0.8.0\n", "cluster.txt": "verl>=0.9\n",
         "envs/environment.yml": "dependencies:\n  - pip:\n    - --requirement cluster.txt\n"},
        "envs/cluster.txt:1",
    ),
    "pins-disagree": (  # the root allows 0.9, docker/ installs 0.8: the lowest wins
        {"requirements.txt": "verl>=0.9\n", "docker/requirements.txt": "verl==0.8.0\n"},
        "docker/requirements.txt:1",
    ),
}


def _tree(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True)  # a repository: its root bounds the search
    for name, text in {**files, "scripts/train.py": LAUNCHER}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _runs(root: Path, site: Path) -> str:
    """The launcher's output, run against ``site``: once per content of the tree and the
    site (an apply that changed no file leaves the run before it standing)."""
    proc = run_python_per_tree(RUN, root, site)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _check(root: Path) -> list[dict]:
    proc = run_cli("check", "--output-format", "json", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _apply_keeps_it_running(root: Path, site: Path) -> None:
    before = (root / "scripts" / "train.py").read_text()
    assert _runs(root, site) == BEFORE
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert (root / "scripts" / "train.py").read_text() == before
        assert _runs(root, site) == BEFORE


@pytest.mark.parametrize("case", sorted(PINS))
def test_a_pin_before_0_9_in_any_dependency_file_leaves_the_call_alone(case: str, tmp_path: Path) -> None:
    files, place = PINS[case]
    root = _tree(tmp_path / "proj", files)
    site = verl_stub(tmp_path / "site", VERL_08)
    _apply_keeps_it_running(root, site)
    found = _check(root)
    assert [f["code"] for f in found] == ["PPO005", "PPO005"]
    for f in found:
        assert f"`{place} " in f["message"], f["message"]
        assert "takes no config (pre verl PR #6976)" in f["message"]


def test_the_same_pins_at_0_9_let_the_config_be_passed(tmp_path: Path) -> None:
    """The readers read the version, not only the name: a 0.9 pin in the same formats
    is a safe fix, and the rewritten launcher runs against verl 0.9's signature."""
    files = {
        "environment.yml": "dependencies:\n  - verl>=0.9.0\n  - pip:\n    - verl>=0.9\n",
        "tox.ini": "[testenv]\ndeps = verl>=0.9\n",
        "Pipfile": '[packages]\nverl = ">=0.9"\n',
        "pixi.toml": '[pypi-dependencies]\nverl = ">=0.9.1"\n',
        "docker/requirements.txt": "verl==0.9.1\n",
    }
    root = _tree(tmp_path / "proj", files)
    site = verl_stub(tmp_path / "site", VERL_09)
    assert _runs(root, site) == BEFORE
    found, _ = _check(root)
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "safe")
    proc = run_cli("apply", "--exit-zero", "--thread-config", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    text = (root / "scripts" / "train.py").read_text()
    assert "    return get_ppo_ray_runtime_env(config)\n" in text
    assert "def helper(config):\n    return get_ppo_ray_runtime_env(config)\n" in text.replace(
        "helper(config=None)", "helper(config)"
    ), text
    assert _runs(root, site) == "ran ({'trainer': 2}, {'trainer': 2})\n"


def test_nothing_decides_the_fix_is_unsafe_and_says_what_to_declare(tmp_path: Path) -> None:
    """Family 3: no copy, no pin, no setting, no verl beside the tool: a plain apply
    leaves the call (the project's verl may be 0.8), check says what to declare."""
    root = _tree(tmp_path / "proj", {"pyproject.toml": "[tool.ruff]\nline-length = 100\n"})
    site = verl_stub(tmp_path / "site", VERL_08)
    _apply_keeps_it_running(root, site)
    found, configless = _check(root)
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "unsafe")
    assert "nothing says which verl runs" in found["message"]
    assert "`verl>=0.9`" in found["message"] and "--verl-version" in found["message"]
    assert configless["code"] == "PPO002"
    # declaring it makes the same fix safe, and the rewrite runs against verl 0.9
    declare_verl(root)
    found, _ = _check(root)
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "safe")
    proc = run_cli("apply", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert _runs(root, verl_stub(tmp_path / "site09", VERL_09)) == "ran ({'trainer': 2}, None)\n"


def test_nothing_decides_with_verl_version_given_the_fix_is_safe(tmp_path: Path) -> None:
    root = _tree(tmp_path / "proj", {})
    proc = run_cli("check", "--output-format", "json", "--exit-zero", "--verl-version", "0.9.1", ".", cwd=root)
    found, _ = json.loads(proc.stdout)
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "safe")


def test_the_decision_carries_a_structured_reason(tmp_path: Path) -> None:
    """The callee decision's Reason: its kind and the pin's place (issue 26, item 5)."""
    from ppo_migrate.rules.check import analyse
    from ppo_migrate.settings_model import Settings

    root = _tree(tmp_path / "proj", {"tox.ini": "[testenv]\ndeps =\n    verl==0.8.0\n"})
    d, _ = analyse(LAUNCHER, str(root / "scripts" / "train.py"), Settings())
    assert d.code == "PPO005"
    assert d.reason.kind == "pin"
    assert (Path(d.reason.lines[0].path).resolve(), d.reason.lines[0].line) == ((root / "tox.ini").resolve(), 3)
    bare = _tree(tmp_path / "bare", {})
    d, configless = analyse(LAUNCHER, str(bare / "scripts" / "train.py"), Settings())
    assert (d.code, d.fix.applicability, d.reason.kind) == ("PPO001", "unsafe", "newest-assumed")
    assert (configless.code, configless.reason.kind) == ("PPO002", "newest-assumed")



def _copy(prefix: str, body: str = VERL_08) -> dict[str, str]:
    """A copy of verl under ``prefix`` (``""``: the root) whose function is ``body``."""
    return {
        f"{prefix}verl/__init__.py": "",
        f"{prefix}verl/trainer/__init__.py": "",
        f"{prefix}verl/trainer/constants_ppo.py": body,
    }


GETATTR = "def __getattr__(name):\n    if name == 'get_ppo_ray_runtime_env':\n        return lambda: None\n    raise AttributeError(name)\n"
NOT_A_CONFIG = "def get_ppo_ray_runtime_env(extra_env_vars=None):\n    return None if extra_env_vars is None else 'extra'\n"

#: case -> (files, launcher path, folders on PYTHONPATH, the place PPO005 must name)
COPIES: dict[str, tuple[dict[str, str], str, tuple[str, ...], str]] = {
    "src-layout-fork": (
        {"pyproject.toml": '[project]\nname = "verl"\nversion = "0.8.0"\n', **_copy("src/")},
        "scripts/train.py", ("src",), "src/verl/trainer/constants_ppo.py:1",
    ),
    "third-party-checkout": (
        {"third_party/verl/pyproject.toml": '[project]\nname = "verl"\n', **_copy("third_party/verl/")},
        "scripts/train.py", ("third_party/verl",), "third_party/verl/verl/trainer/constants_ppo.py:1",
    ),
    "vendor-checkout": (
        {"vendor/verl/setup.py": "", **_copy("vendor/verl/")},
        "scripts/train.py", ("vendor/verl",), "vendor/verl/verl/trainer/constants_ppo.py:1",
    ),
    "external-checkout": (
        {"external/verl/pyproject.toml": '[project]\nname = "verl"\n', **_copy("external/verl/")},
        "scripts/train.py", ("external/verl",), "external/verl/verl/trainer/constants_ppo.py:1",
    ),
    "submodule-checked-out": (
        {".gitmodules": '[submodule "verl"]\n\tpath = code/verl\n\turl = https://github.com/volcengine/verl.git\n',
         **_copy("code/verl/")},
        "scripts/train.py", ("code/verl",), "code/verl/verl/trainer/constants_ppo.py:1",
    ),
    "submodule-not-checked-out": (  # the verl that runs is the one installed (site: 0.8)
        {".gitmodules": '[submodule "third_party/verl"]\n\tpath = third_party/verl\n\turl = https://github.com/volcengine/verl.git\n',
         "third_party/verl/.keep-empty": None},
        "scripts/train.py", ("@site",), ".gitmodules:2",
    ),
    "submodule-folder-holds-only-its-git-file": (  # registered, never updated: no package content
        {".gitmodules": '[submodule "deps/verl"]\n\tpath = deps/verl\n\turl = https://github.com/volcengine/verl.git\n',
         "deps/verl/.git": "gitdir: ../../.git/modules/deps/verl\n"},
        "scripts/train.py", ("@site",), ".gitmodules:2",
    ),
    "submodule-folder-holds-a-placeholder": (
        {".gitmodules": '[submodule "deps/verl"]\n\tpath = deps/verl\n\turl = https://github.com/volcengine/verl.git\n',
         "deps/verl/.keep": ""},
        "scripts/train.py", ("@site",), ".gitmodules:2",
    ),
    "submodule-fork-name-absent-folder": (  # verl-fork: a candidate though not named `verl` exactly
        {".gitmodules": '[submodule "third_party/verl-fork"]\n\tpath = third_party/verl-fork\n'
                        '\turl = https://github.com/myorg/verl-fork.git\n',
         "Makefile": "train:\n\tPYTHONPATH=third_party/verl-fork python scripts/train.py\n"},
        "scripts/train.py", ("@site",), ".gitmodules:2",
    ),
    "submodule-my-verl-with-placeholder": (
        {".gitmodules": '[submodule "libs"]\n\tpath = libs/my_verl\n\turl = git@example.org:org/rl.git\n',
         "libs/my_verl/README.keep": ""},
        "scripts/train.py", ("@site",), ".gitmodules:2",
    ),
    "vendored-on-the-path-by-a-launch-script": (
        {"scripts/run.sh": "#!/bin/bash\nexport PYTHONPATH=$PWD/verl:$PYTHONPATH\npython scripts/train.py\n", **_copy("verl/")},
        "scripts/train.py", ("verl",), "verl/verl/trainer/constants_ppo.py:1",
    ),
    "sub-folder-with-its-own-requirements": (
        {"recipe/vla/requirements_vla.txt": "numpy\n", "recipe/pyproject.toml": "[tool.ruff]\nline-length = 120\n", **_copy("")},
        "recipe/vla/main_ppo.py", (".",), "verl/trainer/constants_ppo.py:1",
    ),
    "nested-package-named-verl": (
        {"mylib/__init__.py": "", **_copy("mylib/", VERL_09), **_copy("")},
        "mylib/train.py", (".",), "verl/trainer/constants_ppo.py:1",
    ),
    "test-package-named-verl": (
        {"tests/verl/__init__.py": "", **_copy("")},
        "tests/train_it.py", (".",), "verl/trainer/constants_ppo.py:1",
    ),
    "module-getattr": (
        {**_copy("", GETATTR)},
        "scripts/train.py", (".",), "verl/trainer/constants_ppo.py:1",
    ),
    "first-parameter-not-a-config": (
        {**_copy("", NOT_A_CONFIG)},
        "scripts/train.py", (".",), "verl/trainer/constants_ppo.py:1",
    ),
}


@pytest.mark.parametrize("case", sorted(COPIES))
def test_a_copy_of_verl_the_call_may_import_decides(case: str, tmp_path: Path) -> None:
    """Family 1: each tree declares ``verl>=0.9`` (so the tool would rewrite if it did not
    see the copy), yet the copy in effect takes no config: apply leaves the launcher
    running, check names the copy's definition (or the submodule it cannot read)."""
    files, launcher, paths, place = COPIES[case]
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    for name, text in {**files, "requirements.txt": "verl>=0.9\n", launcher: LAUNCHER}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if text is None:
            continue  # an empty folder (a submodule not checked out)
        path.write_text(text)
    site = [verl_stub(tmp_path / "site", VERL_08) if p == "@site" else root / p for p in paths]
    run = f"import runpy, sys; sys.argv = ['x']; runpy.run_path({launcher!r}, run_name='__main__')"

    def runs() -> str:  # once per content of the tree and the site (tests/tree_runs.py)
        proc = run_python_per_tree(run, root, *site)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    before = (root / launcher).read_text()
    assert runs() == BEFORE
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert (root / launcher).read_text() == before
        assert runs() == BEFORE
    found = [f for f in _check(root) if f["filename"].endswith(launcher)]
    assert [f["code"] for f in found] == ["PPO005", "PPO005"], found
    for f in found:
        assert f"`{place}`" in f["message"], f["message"]


def test_a_ppo005_reason_names_the_in_tree_definition_by_file_and_line(tmp_path: Path) -> None:
    """Issue 28: a PPO005 decided by an in-tree copy carries the definition's file and line in
    its JSON ``reason``, and ``full`` prints them under ``= note:``."""
    root = _tree(tmp_path / "proj", {
        "verl/__init__.py": "",
        "verl/trainer/__init__.py": "",
        "verl/trainer/constants_ppo.py": "import os\n\n\n" + VERL_08,  # the def at line 4
    })
    proc = run_cli("check", "--output-format", "json", "--show-notices", ".", cwd=root)
    (found,) = [d for d in json.loads(proc.stdout) if d["code"] == "PPO005"][:1]
    reason = found["reason"]
    assert reason["kind"] == "in-tree-definition"
    place = reason["lines"][0]
    assert Path(place["filename"]) == (root / "verl" / "trainer" / "constants_ppo.py").resolve()
    assert place["location"]["row"] == 4
    full = run_cli("check", "--show-notices", ".", cwd=root).stdout
    assert "  = note: " in full and "verl/trainer/constants_ppo.py:4" in full


def test_a_pin_whose_version_a_build_variable_chooses_is_never_assumed(tmp_path: Path) -> None:
    """``ARG VERL_VERSION`` without a default: the image may install any verl. The project's
    ``verl>=0.9`` does not decide alone: the call is left as it is, the run says which
    line could not be read, and the launcher still runs against verl 0.8."""
    files = {"pyproject.toml": PROJECT_09,
             "Dockerfile": 'FROM python:3.11\nARG VERL_VERSION\nRUN pip install "verl==${VERL_VERSION}"\n'}
    root = _tree(tmp_path / "proj", files)
    site = verl_stub(tmp_path / "site", VERL_08)
    _apply_keeps_it_running(root, site)
    proc = run_cli("check", "--output-format", "concise", ".", cwd=root)
    assert "the project takes verl from `Dockerfile:3 verl==${VERL_VERSION}`, whose release cannot be read" in (
        proc.stdout + proc.stderr
    )
