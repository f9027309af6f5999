"""Trial 26j, B4: a library of a monorepo whose calls a sibling app runs under its own verl.

l01: ``libs/rlcore/pyproject.toml`` declares ``verl>=0.9.0``; ``apps/legacy_job`` pins
``verl==0.8.0`` and depends on ``rlcore`` by path (``[tool.uv.sources] rlcore = { path =
"../../libs/rlcore", editable = true }``). The tool read only the library's pin and fixed its
call safely; the app's tests then failed with ``TypeError``. Now a project of the repository
that depends on the calling file's project by path (uv and poetry path sources, a PEP 508
``file:`` reference with pdm's ``${PROJECT_ROOT}``, pdm's dev-dependencies, ``-e`` in a
requirements file) makes its own verl pins plausible definitions
(:func:`ppo_migrate.rules.versions._dependents_pins`): one taking no config is a PPO005
naming the app's pin and the path dependency line; an app pinning ``verl>=0.9`` keeps the
fix safe.

Every project is *run*: the app's tests, before, after a plain ``apply`` and after ``apply
--thread-config``; the oracle, the call rewritten by hand in a copy, fails with ``TypeError``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run_cli, verl_stub

OLD = "import os\n\n\ndef get_ppo_ray_runtime_env():\n    return {'env_vars': {'CUDA_DEVICE_MAX_CONNECTIONS': '1'}}\n"
NEW = "def get_ppo_ray_runtime_env(config=None):\n    return {'env_vars': {}}\n"
LIB = '[project]\nname = "rlcore"\nversion = "0.1.0"\ndependencies = ["verl>=0.9.0", "omegaconf"]\n'
LAUNCHER = (
    "from omegaconf import OmegaConf\n"
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n"
    "def run_ppo(config):\n"
    "    runtime_env = get_ppo_ray_runtime_env()\n"
    "    extra = config.ray_kwargs.get('runtime_env', {})\n"
    "    return OmegaConf.to_container(OmegaConf.merge(runtime_env, extra))\n"
)
CONFTEST = "import pathlib, sys\nsys.path.insert(0, str(pathlib.Path(__file__).parents[2] / 'libs' / 'rlcore'))\n"
TEST = (
    "from omegaconf import OmegaConf\n\nfrom rlcore.launcher import run_ppo\n\n\n"
    "def test_run_ppo():\n"
    "    cfg = OmegaConf.create({'ray_kwargs': {'runtime_env': {}}, 'trainer': {'n_gpus_per_node': 1}})\n"
    "    assert 'env_vars' in run_ppo(cfg)\n"
)
CALLER = "libs/rlcore/rlcore/launcher.py"
RUN = "cd apps/legacy_job && python -m pytest -q -p no:cacheprovider"

#: name -> (the app's files, (pin file, line, requirement), (dependency file, line, its text))
APPS: dict[str, tuple[dict[str, str], tuple[str, int, str], tuple[str, int, str]]] = {
    "l01 uv path source": (
        {"apps/legacy_job/pyproject.toml": '[project]\nname = "legacy_job"\nversion = "0.1.0"\n'
         'dependencies = ["verl==0.8.0", "rlcore", "omegaconf"]\n\n'
         '[tool.uv.sources]\nrlcore = { path = "../../libs/rlcore", editable = true }\n'},
        ("apps/legacy_job/pyproject.toml", 4, "verl==0.8.0"),
        ("apps/legacy_job/pyproject.toml", 7, 'rlcore = { path = "../../libs/rlcore", editable = true }'),
    ),
    "PEP 508 file: reference with ${PROJECT_ROOT}": (
        {"apps/legacy_job/pyproject.toml": '[project]\nname = "legacy_job"\nversion = "0.1.0"\ndependencies = [\n'
         '    "verl==0.8.0",\n    "rlcore @ file:///${PROJECT_ROOT}/../../libs/rlcore",\n    "omegaconf",\n]\n'},
        ("apps/legacy_job/pyproject.toml", 5, "verl==0.8.0"),
        ("apps/legacy_job/pyproject.toml", 6, '"rlcore @ file:///${PROJECT_ROOT}/../../libs/rlcore",'),
    ),
    "-e in a requirements file": (
        {"apps/legacy_job/requirements.txt": "omegaconf\nverl==0.8.0\n-e ../../libs/rlcore\n"},
        ("apps/legacy_job/requirements.txt", 2, "verl==0.8.0"),
        ("apps/legacy_job/requirements.txt", 3, "-e ../../libs/rlcore"),
    ),
    "--editable= read from the root, in a dev requirements file": (
        {"apps/legacy_job/requirements-dev.txt": "verl==0.8.0\n--editable=libs/rlcore\nomegaconf\n"},
        ("apps/legacy_job/requirements-dev.txt", 1, "verl==0.8.0"),
        ("apps/legacy_job/requirements-dev.txt", 2, "--editable=libs/rlcore"),
    ),
    "poetry path dependency, develop = true": (
        {"apps/legacy_job/pyproject.toml": '[tool.poetry]\nname = "legacy_job"\nversion = "0.1.0"\n\n'
         '[tool.poetry.dependencies]\npython = "^3.10"\nverl = "0.8.0"\n'
         'rlcore = { path = "../../libs/rlcore", develop = true }\n'},
        ("apps/legacy_job/pyproject.toml", 7, 'verl = "0.8.0"'),
        ("apps/legacy_job/pyproject.toml", 8, 'rlcore = { path = "../../libs/rlcore", develop = true }'),
    ),
    "pdm dev-dependencies -e file:": (
        {"apps/legacy_job/pyproject.toml": '[project]\nname = "legacy_job"\nversion = "0.1.0"\n'
         'dependencies = ["verl==0.8.0", "omegaconf"]\n\n'
         '[tool.pdm.dev-dependencies]\ndev = ["-e file:///${PROJECT_ROOT}/../../libs/rlcore#egg=rlcore"]\n'},
        ("apps/legacy_job/pyproject.toml", 4, "verl==0.8.0"),
        ("apps/legacy_job/pyproject.toml", 7, 'dev = ["-e file:///${PROJECT_ROOT}/../../libs/rlcore#egg=rlcore"]'),
    ),
}


def _repo(root: Path, app: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True)
    files = {
        "libs/rlcore/pyproject.toml": LIB, "libs/rlcore/rlcore/__init__.py": "", CALLER: LAUNCHER,
        "apps/legacy_job/conftest.py": CONFTEST, "apps/legacy_job/tests/test_job.py": TEST, **app,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _run(root: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(site)
    env.pop("PYTHONSAFEPATH", None)
    return subprocess.run(RUN, shell=True, cwd=root, env=env, capture_output=True, text=True, timeout=120)


def _concise(root: Path) -> list[str]:
    proc = run_cli("check", "--output-format", "concise", "--show-notices", ".", cwd=root)
    return [line for line in proc.stdout.splitlines() if ": PPO00" in line]


def _runs_before_and_after(tmp_path: Path, root: Path, site: Path, refused: bool) -> None:
    before = tmp_path / "before"
    shutil.copytree(root, before)
    proc = _run(before, site)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    oracle = tmp_path / "oracle"
    shutil.copytree(root, oracle)
    (oracle / CALLER).write_text(LAUNCHER.replace("get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config)"))
    proc = _run(oracle, site)
    if refused:
        assert proc.returncode != 0
        assert "TypeError: get_ppo_ray_runtime_env() takes 0 positional arguments" in proc.stdout
    else:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    for flags in ((), ("--thread-config",)):
        run_cli("apply", *flags, ".", cwd=root)
        text = (root / CALLER).read_text()
        assert ("get_ppo_ray_runtime_env()" in text) is refused
        proc = _run(root, site)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        (root / CALLER).write_text(LAUNCHER)


@pytest.mark.parametrize("name", sorted(APPS))
def test_an_app_depending_on_the_library_by_path_makes_its_pin_count(name: str, tmp_path: Path) -> None:
    app, (pin_file, pin_line, pin), (dep_file, dep_line, dep_text) = APPS[name]
    root = _repo(tmp_path / "repo", app)
    [line] = _concise(root)
    assert line.startswith(f"{CALLER}:5:19: PPO005 `get_ppo_ray_runtime_env()` left as it is: the project ")
    assert f"verl 0.8.0 (`{pin_file}:{pin_line} {pin}`), whose `get_ppo_ray_runtime_env()` takes no config" in line
    assert (
        f"(pre verl PR #6976): `{dep_file}:{dep_line}` ({dep_text}) makes `apps/legacy_job` run this project's "
        "code under its own verl; require verl>=0.9.0, or run with --use-ppo-runtime"
    ) in line
    _runs_before_and_after(tmp_path, root, verl_stub(tmp_path / "site", OLD), refused=True)


def test_an_app_pinning_a_config_taking_verl_keeps_the_fix_safe(tmp_path: Path) -> None:
    app, _, _ = APPS["l01 uv path source"]
    app = {k: v.replace("verl==0.8.0", "verl>=0.9") for k, v in app.items()}
    root = _repo(tmp_path / "repo", app)
    assert _concise(root) == [
        f"{CALLER}:5:19: PPO001 [*] `get_ppo_ray_runtime_env()` called without the config in scope; pass `config`"
    ]
    _runs_before_and_after(tmp_path, root, verl_stub(tmp_path / "site", NEW), refused=False)


def test_an_app_that_does_not_depend_on_the_library_does_not_count(tmp_path: Path) -> None:
    """A sibling pinning verl 0.8.0 without a path dependency on the library (its own code
    only) leaves the library's pin to decide."""
    root = _repo(tmp_path / "repo", {
        "apps/legacy_job/pyproject.toml": '[project]\nname = "legacy_job"\nversion = "0.1.0"\n'
        'dependencies = ["verl==0.8.0", "omegaconf"]\n\n[tool.uv.sources]\nother = { path = "../other" }\n',
        "apps/other/pyproject.toml": '[project]\nname = "other"\nversion = "0"\n',
    })
    assert _concise(root) == [
        f"{CALLER}:5:19: PPO001 [*] `get_ppo_ray_runtime_env()` called without the config in scope; pass `config`"
    ]
