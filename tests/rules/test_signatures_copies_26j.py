"""Trial 26j, B3: a copy of verl in an archive a glob puts first on ``sys.path``.

h20: the project declares ``verl>=0.9.0`` (the installed verl takes a config) and its
``conftest.py`` does ``sys.path[:0] = glob.glob(os.path.join(os.path.dirname(__file__),
"eggs", "*.egg"))``; ``eggs/verl-0.8.0-py3.11.egg`` (a zip holding verl 0.8.0) is then first.
The tool read the glob as a folder it cannot evaluate and took the pin's verl as certain
(``PPO001 [*]``); the fixed call raised ``TypeError``. Now a glob (``glob.glob``,
``Path.glob``, ``rglob``, in a slice assignment, a concatenation, a comprehension, a loop) is
expanded against the repository's files (:func:`ppo_migrate.project.import_roots._expand_glob`)
and each archive or folder it matches is a declared import root; a glob the tool cannot
evaluate whose last component may name verl (``*.egg``) is a copy that cannot be read
(PPO005 naming the line).

Every project is *run* with pytest: before, after a plain ``apply`` and after ``apply
--thread-config``; the oracle, the call rewritten by hand in a copy, fails with ``TypeError``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from cli_helpers import run_cli, verl_stub
from ppo_migrate.project.import_roots import declared_roots, unread_roots

PIN = '[project]\nname = "proj"\nversion = "0"\ndependencies = ["verl>=0.9.0", "omegaconf"]\n'
#: verl 0.8.0's definition, on line 4 so that a reason naming line 1 would fail
OLD = "import os\n\n\ndef get_ppo_ray_runtime_env():\n    return {'env_vars': {'CUDA_DEVICE_MAX_CONNECTIONS': '1'}}\n"
#: verl 0.9.0's: takes a config (the installed verl, and the archive of the safe side)
NEW = "def get_ppo_ray_runtime_env(config=None):\n    return {'env_vars': {}}\n"
TRAIN = (
    "from omegaconf import OmegaConf\n"
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def main(config):\n    env = get_ppo_ray_runtime_env()\n    assert 'env_vars' in env\n    return env\n"
)
TEST = (
    "from omegaconf import OmegaConf\n\nfrom train import main\n\n\n"
    "def test_main():\n    assert 'env_vars' in main(OmegaConf.create({'trainer': {'n_gpus_per_node': 1}}))\n"
)
RUN = "python -m pytest -q -p no:cacheprovider"

#: name -> (conftest.py, the archive's path, the extra environment of the run)
GLOBS: dict[str, tuple[str, str, dict[str, str]]] = {
    "h20 sys.path[:0] = glob.glob(... '*.egg')": (
        "import glob\nimport os\nimport sys\n\n"
        "sys.path[:0] = glob.glob(os.path.join(os.path.dirname(__file__), \"eggs\", \"*.egg\"))\n",
        "eggs/verl-0.8.0-py3.11.egg", {},
    ),
    "sys.path[0:0] = [str(p) for p in Path.glob(...)]": (
        "import pathlib\nimport sys\n\nHERE = pathlib.Path(__file__).resolve().parent\n"
        "sys.path[0:0] = [str(p) for p in (HERE / 'vendor').glob('*.whl')]\n",
        "vendor/verl-0.8.0-py3-none-any.whl", {},
    ),
    "sys.path = sorted(glob(...)) + sys.path, relative": (
        "import sys\nfrom glob import glob\n\nsys.path = sorted(glob('third_party/*.zip')) + sys.path\n",
        "third_party/legacy.zip", {},
    ),
    "a loop over Path.rglob": (
        "import pathlib\nimport sys\n\n"
        "for egg in sorted(pathlib.Path(__file__).parent.rglob('*.egg')):\n    sys.path.insert(0, str(egg))\n",
        "build/eggs/verl.egg", {},
    ),
}

#: name -> (conftest.py, the archive's path, the extra environment of the run)
UNEVALUATED: dict[str, tuple[str, str, dict[str, str]]] = {
    "a glob of an environment variable's folder": (
        "import glob\nimport os\nimport sys\n\n"
        "sys.path[:0] = glob.glob(os.path.join(os.environ['EGG_DIR'], '*.egg'))\n",
        "eggs/verl-0.8.0-py3.11.egg", {"EGG_DIR": "eggs"},
    ),
}


def _archive(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("verl/__init__.py", "")
        z.writestr("verl/trainer/__init__.py", "")
        z.writestr("verl/trainer/constants_ppo.py", body)


def _project(root: Path, conftest: str, archive: str, body: str) -> Path:
    (root / ".git").mkdir(parents=True)
    for name, text in {"pyproject.toml": PIN, "conftest.py": conftest, "train.py": TRAIN,
                       "tests/test_train.py": TEST}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    _archive(root / archive, body)
    return root


def _run(root: Path, site: Path, extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **extra}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(site)
    env.pop("PYTHONSAFEPATH", None)
    return subprocess.run(RUN, shell=True, cwd=root, env=env, capture_output=True, text=True, timeout=120)


def _concise(root: Path) -> list[str]:
    proc = run_cli("check", "--output-format", "concise", "--show-notices", ".", cwd=root)
    return [line for line in proc.stdout.splitlines() if ": PPO00" in line]


def _runs_before_and_after(tmp_path: Path, root: Path, extra: dict[str, str], refused: bool) -> None:
    """Run the project before, by the oracle (the call fixed by hand: fails when ``refused``)
    and after a plain ``apply`` and ``apply --thread-config`` (left as it is when ``refused``,
    else rewritten): it passes each time."""
    site = verl_stub(tmp_path / "site", NEW)
    before = tmp_path / "before"
    shutil.copytree(root, before)
    proc = _run(before, site, extra)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    oracle = tmp_path / "oracle"
    shutil.copytree(root, oracle)
    (oracle / "train.py").write_text(TRAIN.replace("get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config)"))
    proc = _run(oracle, site, extra)
    if refused:
        assert proc.returncode != 0
        assert "TypeError: get_ppo_ray_runtime_env() takes 0 positional arguments" in proc.stdout
    else:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    for flags in ((), ("--thread-config",)):
        run_cli("apply", *flags, ".", cwd=root)
        text = (root / "train.py").read_text()
        assert ("get_ppo_ray_runtime_env()" in text) is refused
        proc = _run(root, site, extra)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        (root / "train.py").write_text(TRAIN)


@pytest.mark.parametrize("name", sorted(GLOBS))
def test_an_archive_a_glob_puts_first_is_read(name: str, tmp_path: Path) -> None:
    conftest, archive, extra = GLOBS[name]
    root = _project(tmp_path / "proj", conftest, archive, OLD)
    line, form = next(
        (i, "sys.path.insert" if ".insert(" in text else "sys.path")
        for i, text in enumerate(conftest.splitlines(), 1) if "sys.path" in text
    )
    assert _concise(root) == [
        f"train.py:6:11: PPO005 `get_ppo_ray_runtime_env()` left as it is: `{archive}/verl/trainer/"
        f"constants_ppo.py:4` defines `get_ppo_ray_runtime_env()` without a config parameter (pre verl "
        f"PR #6976); {form} at `conftest.py:{line}` puts `{archive}` on sys.path; update that copy, or "
        "run with --use-ppo-runtime"
    ]
    _runs_before_and_after(tmp_path, root, extra, refused=True)


@pytest.mark.parametrize("name", sorted(UNEVALUATED))
def test_a_glob_the_tool_cannot_evaluate_is_a_copy_not_read(name: str, tmp_path: Path) -> None:
    conftest, archive, extra = UNEVALUATED[name]
    root = _project(tmp_path / "proj", conftest, archive, OLD)
    assert _concise(root) == [
        "train.py:6:11: PPO005 `get_ppo_ray_runtime_env()` left as it is: sys.path at `conftest.py:5` puts "
        "`glob os.path.join(os.environ['EGG_DIR'], '*.egg')` on sys.path: a copy of verl ppo-migrate cannot "
        "read here (not evaluated, or absent on this machine), whose `get_ppo_ray_runtime_env` may take no "
        "config; spell the path so that it names the copy in the repository, set verl-version if it is a "
        "verl release, or run with --use-ppo-runtime"
    ]
    _runs_before_and_after(tmp_path, root, extra, refused=True)


def test_an_archive_taking_a_config_keeps_the_safe_fix(tmp_path: Path) -> None:
    conftest, archive, extra = GLOBS["h20 sys.path[:0] = glob.glob(... '*.egg')"]
    root = _project(tmp_path / "proj", conftest, archive, NEW)
    assert _concise(root) == [
        "train.py:6:11: PPO001 [*] `get_ppo_ray_runtime_env()` called without the config in scope; pass `config`"
    ]
    _runs_before_and_after(tmp_path, root, extra, refused=False)


def test_globs_expand_against_the_repository_s_files(tmp_path: Path) -> None:
    """Each match is a root (an archive or a folder); a glob matching nothing declares none,
    unless its pattern names verl (built at run time: a copy not read); a glob of another
    variable's value is opaque, not unread, unless its last component may name verl."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "plugins" / "a").mkdir(parents=True)
    (root / "plugins" / "b").mkdir(parents=True)
    (root / "plugins" / "notes.txt").write_text("x")
    (root / "boot.py").write_text(
        "import glob, os, sys\n"
        "sys.path.extend(glob.glob(os.path.join(os.path.dirname(__file__), 'plugins', '*', '')))\n"
        "sys.path[:0] = glob.glob('nothing/*.egg')\n"
        "sys.path[:0] = glob.glob('dist/verl-*.egg')\n"
        "sys.path[:0] = glob.glob(PLUGIN_DIRS)\n"
    )
    roots = [(os.path.relpath(d.path, root), d.line) for d in declared_roots(root)]
    assert roots == [(os.path.join("plugins", "a"), 2), (os.path.join("plugins", "b"), 2)]
    assert [(u.line, u.written) for u in unread_roots(root)] == [(4, "glob dist/verl-*.egg")]
