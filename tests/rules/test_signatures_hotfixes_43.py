"""Fresh user 43: hotfixes put over the *installed* verl in ways the tool did not read.

The project declares ``verl>=0.9.0`` (the installed verl takes a config, as the pin says),
but a step of its run replaces the installed ``verl/trainer/constants_ppo.py`` with one whose
``get_ppo_ray_runtime_env()`` takes no config. ``apply`` passed the config and the project
raised ``TypeError``. Each project is *run* here: before (the hotfix step, then the entry),
after a plain ``apply`` and after ``apply --thread-config``, each time over a fresh installed
verl (a folder on ``PYTHONPATH`` holding a minimal verl 0.9, which the hotfix overwrites); the
oracle, the call rewritten by hand, fails with ``TypeError``. ``check`` names the hotfix's
file and line.

* B1: the destination is computed from the module itself (``find_spec(...).origin``,
  ``cp.__file__``, ``inspect.getfile(cp)``, ``verl.__file__``, ``importlib.resources``):
  :func:`ppo_migrate.project.import_roots.module_writes`.
* B2: a shell line, Makefile recipe, CI step, tox command or Dockerfile ``COPY`` (``cp``,
  ``install``, ``sed -i``, ``patch``): :func:`ppo_migrate.project.carriers.module_carriers`.
* B3: a wheel or sdist in the repository carrying the module (``SignatureResolver._archived_module``).
* W1: a project's own module of that name imported as such is no hotfix (``own_module_import``).
* W2, W11: a uv workspace's verl member in a src layout is read; an excluded one is named by its
  ``exclude`` entry.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run_cli, verl_stub

PIN = '[project]\nname = "proj"\nversion = "0"\ndependencies = ["verl>=0.9.0", "omegaconf"]\n'
#: the hotfix's definition sits on line 4, so that a reason naming line 1 would fail
OLD = "import os\n\n\ndef get_ppo_ray_runtime_env():\n    return {'env_vars': {'CUDA_DEVICE_MAX_CONNECTIONS': '1'}}\n"
#: the installed verl: takes a config (verl >= 0.9.0)
INSTALLED = "def get_ppo_ray_runtime_env(config=None):\n    return {'env_vars': {}}\n"
ENTRY = (
    "from omegaconf import OmegaConf\n"
    "from verl.trainer import constants_ppo as cp\n\n\n"
    "def main(config):\n    env = cp.get_ppo_ray_runtime_env()\n    assert 'env_vars' in env\n    print('OK')\n\n\n"
    "if __name__ == '__main__':\n    main(OmegaConf.create({'trainer': {'n_gpus_per_node': 1}}))\n"
)
CALL = "cp.get_ppo_ray_runtime_env()"
CALLED = f"train.py:6:11: PPO001 `{CALL}` called without the config in scope; pass `config`"
SAFE = f"train.py:6:11: PPO001 [*] `{CALL}` called without the config in scope; pass `config`"
HEAD = "import importlib.util\nimport inspect\nimport os\nimport pathlib\nimport shutil\n\n"
SRC = "SRC = pathlib.Path(__file__).resolve().parent / 'hotfix' / 'ray_env.py'\n"


def _write(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True)
    for name, text in {"pyproject.toml": PIN, **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _run(root: Path, command: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    """The project's run over a fresh installed verl 0.9 (the hotfix overwrites it)."""
    site = tmp / "site"
    shutil.rmtree(site, ignore_errors=True)
    verl_stub(site, INSTALLED)
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(site)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("PYTHONSAFEPATH", None)
    return subprocess.run(command, shell=True, cwd=root, env=env, capture_output=True, text=True, timeout=120)


def _concise(root: Path) -> list[str]:
    proc = run_cli("check", "--output-format", "concise", "--show-notices", ".", cwd=root)
    return [line for line in proc.stdout.splitlines() if ": PPO00" in line]


def _runs_before_and_after(root: Path, command: str, tmp: Path, caller: str = "train.py") -> None:
    """Runs before, the oracle fails with TypeError, ``apply`` (plain and threaded) leaves
    the call and the project still runs."""
    before = tmp / "before"
    shutil.copytree(root, before)
    proc = _run(before, command, tmp)
    assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr
    oracle = tmp / "oracle"
    shutil.copytree(root, oracle)
    text = (oracle / caller).read_text()
    (oracle / caller).write_text(text.replace(CALL, CALL.replace("()", "(config)")))
    proc = _run(oracle, command, tmp)
    assert proc.returncode != 0 and "TypeError: get_ppo_ray_runtime_env() takes 0 positional arguments" in proc.stderr
    text = (root / caller).read_text()
    for extra in ((), ("--thread-config",)):
        run_cli("apply", *extra, ".", cwd=root)
        assert (root / caller).read_text() == text
        proc = _run(root, command, tmp)
        assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr


# -- B1: the destination computed from the module ------------------------------------------------

#: name -> (the hotfix step's body after HEAD and SRC, the line of the write, its form, copied)
B1: dict[str, tuple[str, int, str, bool]] = {
    "find_spec origin": (
        "shutil.copyfile(SRC, importlib.util.find_spec('verl.trainer.constants_ppo').origin)\n",
        8, "shutil.copyfile", True,
    ),
    "module __file__ under an alias": (
        "import verl.trainer.constants_ppo as _target\n\nshutil.copy(SRC, _target.__file__)\n",
        10, "shutil.copy", True,
    ),
    "Path(module.__file__).write_text": (
        "from verl.trainer import constants_ppo as vcp\n\npathlib.Path(vcp.__file__).write_text(SRC.read_text())\n",
        10, ".write_text", True,
    ),
    "inspect.getfile bound to a name": (
        "from verl.trainer import constants_ppo\n\nDST = inspect.getfile(constants_ppo)\nshutil.copy2(SRC, DST)\n",
        11, "shutil.copy2", True,
    ),
    "dirname(verl.__file__) + a suffix": (
        "import verl\n\nshutil.copy(SRC, os.path.dirname(verl.__file__) + '/trainer/constants_ppo.py')\n",
        10, "shutil.copy", True,
    ),
    "Path(module.__file__).write_text of built text": (
        "from verl.trainer import constants_ppo as vcp\n\nTEXT = SRC.read_text().replace('x', 'x')\n"
        "pathlib.Path(vcp.__file__).write_text(TEXT)\n",
        11, ".write_text", False,
    ),
    "importlib.resources.files": (
        "import importlib.resources\n\nwith open(importlib.resources.files('verl.trainer') / 'constants_ppo.py', 'w') as f:\n"
        "    f.write(SRC.read_text())\n",
        10, "open", False,
    ),
}


@pytest.mark.parametrize("name", sorted(B1))
def test_a_hotfix_written_over_the_installed_module_is_never_given_a_config(name: str, tmp_path: Path) -> None:
    body, line, form, copied = B1[name]
    hotfix = HEAD + SRC + body
    assert hotfix.splitlines()[line - 1].lstrip().startswith(("shutil", "pathlib", "with"))
    root = _write(tmp_path / "proj", {"tools/apply_hotfix.py": hotfix.replace("parent /", "parent.parent /"),
                                      "hotfix/ray_env.py": OLD, "train.py": ENTRY})
    where = "over verl's module `verl/trainer/constants_ppo.py` itself (the file of the verl installed)"
    if copied:
        why = (
            "`hotfix/ray_env.py:4` defines `get_ppo_ray_runtime_env()` without a config parameter (pre verl PR "
            f"#6976): `tools/apply_hotfix.py:{line}` ({form}) copies `hotfix/ray_env.py` {where} when the project "
            "runs, besides the verl that `pyproject.toml:4 verl>=0.9.0` names; if that file is the module imported, "
            "passing the config raises TypeError; update the file copied, or run with --use-ppo-runtime"
        )
    else:
        why = (
            f"`tools/apply_hotfix.py:{line}` ({form}) writes a file the tool cannot read {where} when the project "
            "runs, besides the verl that `pyproject.toml:4 verl>=0.9.0` names; if that file is the module imported "
            "and its `get_ppo_ray_runtime_env` takes no config, passing the config raises TypeError; copy a file "
            "whose `get_ppo_ray_runtime_env` takes a config, or run with --use-ppo-runtime"
        )
    assert _concise(root) == [f"{CALLED} (unsafe fix: {why})"]
    _runs_before_and_after(root, "python tools/apply_hotfix.py && python train.py", tmp_path)


def test_a_hotfix_taking_a_config_written_over_the_installed_module_keeps_the_safe_fix(tmp_path: Path) -> None:
    hotfix = HEAD + SRC + B1["find_spec origin"][0]
    root = _write(tmp_path / "proj", {"tools/apply_hotfix.py": hotfix.replace("parent /", "parent.parent /"),
                                      "hotfix/ray_env.py": INSTALLED, "train.py": ENTRY})
    assert _concise(root) == [SAFE]
    run_cli("apply", ".", cwd=root)
    assert "cp.get_ppo_ray_runtime_env(config)" in (root / "train.py").read_text()
    proc = _run(root, "python tools/apply_hotfix.py && python train.py", tmp_path)
    assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr


# -- B2: non-Python carriers ---------------------------------------------------------------------

SITE = "SITE=$(python -c 'import os, verl; print(os.path.dirname(os.path.dirname(verl.__file__)))')\n"
#: the hotfix as a patch: its added ``def`` is on line 9 of the patch
PATCH = (
    "From the lab: keep the old runtime env\n"
    "---\n"
    "--- a/verl/trainer/constants_ppo.py\n"
    "+++ b/verl/trainer/constants_ppo.py\n"
    "@@ -1,2 +1,3 @@\n"
    "-def get_ppo_ray_runtime_env(config=None):\n"
    "-    return {'env_vars': {}}\n"
    "+\n"
    "+def get_ppo_ray_runtime_env():\n"
    "+    return {'env_vars': {'CUDA_DEVICE_MAX_CONNECTIONS': '1'}}\n"
)
DEF = "`hotfix/ray_env.py:4` defines `get_ppo_ray_runtime_env()` without a config parameter (pre verl PR #6976)"
OVER = "over verl's module `verl/trainer/constants_ppo.py` itself (the file of the verl installed)"
BESIDES = "besides the verl that `pyproject.toml:4 verl>=0.9.0` names"
COPIED = f"copies `hotfix/ray_env.py` {OVER} when the project runs, {BESIDES}; if that file is the module imported, passing the config raises TypeError; update the file copied, or run with --use-ppo-runtime"

#: name -> (files, the command the project runs, the ``(unsafe fix: ...)`` text)
B2: dict[str, tuple[dict[str, str], str, str]] = {
    "cp in a launch script": (
        {"run.sh": "set -e\n" + SITE + 'cp hotfix/ray_env.py "$SITE/verl/trainer/constants_ppo.py"\npython train.py\n'},
        "bash run.sh", f"{DEF}: `run.sh:3` (cp) {COPIED}",
    ),
    "install in a script without extension": (
        {"scripts/launch": "#!/usr/bin/env bash\nset -e\n"
         "sudo_if() { \"$@\"; }\n"
         "install -m 644 hotfix/ray_env.py \\\n"
         "  \"$(python -c 'import os, verl; print(os.path.dirname(verl.__file__))')/trainer/constants_ppo.py\"\n"
         "python train.py\n"},
        "bash scripts/launch", f"{DEF}: `scripts/launch:4` (install) {COPIED}",
    ),
    "cp in a Makefile recipe": (
        {"Makefile": "SITE := $(shell python -c 'import os, verl; print(os.path.dirname(os.path.dirname(verl.__file__)))')\n\n"
         ".PHONY: hotfix train\n\nhotfix:\n\t@cp hotfix/ray_env.py $(SITE)/verl/trainer/constants_ppo.py\n\n"
         "train: hotfix\n\tpython train.py\n"},
        "make -s train", f"{DEF}: `Makefile:6` (cp) {COPIED}",
    ),
    "sed -i of the installed module": (
        {"run.sh": "set -e\n" + SITE + "sed -i 's/(config=None)/()/' \"$SITE/verl/trainer/constants_ppo.py\"\npython train.py\n"},
        "bash run.sh",
        f"`run.sh:3` (sed -i) edits verl's module `verl/trainer/constants_ppo.py` in place when the project runs, "
        f"which the tool cannot read, {BESIDES}; if its `get_ppo_ray_runtime_env` then takes no config, passing the "
        "config raises TypeError; ship a module whose `get_ppo_ray_runtime_env` takes a config instead of the edit, "
        "or run with --use-ppo-runtime",
    ),
    "patch of the installed module": (
        {"run.sh": "set -e\n" + SITE + 'patch -s -d "$SITE" -p1 < patches/ray_env.patch\npython train.py\n',
         "patches/ray_env.patch": PATCH},
        "bash run.sh",
        "`patches/ray_env.patch:9` defines `get_ppo_ray_runtime_env()` without a config parameter (pre verl PR "
        "#6976): `run.sh:3` (patch) applies `patches/ray_env.patch` to verl's module "
        f"`verl/trainer/constants_ppo.py` when the project runs, {BESIDES}; passing the config raises TypeError; "
        "patch `get_ppo_ray_runtime_env` to take a config, or run with --use-ppo-runtime",
    ),
    "a CI step's run": (
        {".github/workflows/train.yml": "on: push\njobs:\n  train:\n    runs-on: ubuntu-latest\n    steps:\n"
         "      - uses: actions/checkout@v4\n      - name: hotfix\n        run: |\n          " + SITE.strip() + "\n"
         '          cp hotfix/ray_env.py "$SITE/verl/trainer/constants_ppo.py"\n      - run: python train.py\n'},
        # the workflow's two steps, as the runner runs them
        SITE.strip() + ' && cp hotfix/ray_env.py "$SITE/verl/trainer/constants_ppo.py" && python train.py',
        f"{DEF}: `.github/workflows/train.yml:10` (cp) {COPIED}",
    ),
    # fresh user 45, B1 and B2: an argument vector a Python file runs; a justfile's recipe
    "cp run by subprocess from Python": (
        {"fix.py": "import os\nimport subprocess\n\nimport verl\n\nSITE = os.path.dirname(os.path.dirname(verl.__file__))\n"
         "subprocess.run(['cp', 'hotfix/ray_env.py', SITE + '/verl/trainer/constants_ppo.py'], check=True)\n"},
        "python fix.py && python train.py", f"{DEF}: `fix.py:7` (cp) {COPIED}",
    ),
    "cp in a justfile recipe": (
        {"justfile": "hotfix:\n    cp hotfix/ray_env.py {{env_var('SITE')}}/verl/trainer/constants_ppo.py\n"},
        # the recipe's line as just runs it, SITE being the folder verl is installed in
        SITE.strip() + ' && cp hotfix/ray_env.py "$SITE/verl/trainer/constants_ppo.py" && python train.py',
        f"{DEF}: `justfile:2` (cp) {COPIED}",
    ),
    "tox commands": (
        {"tox.ini": "[tox]\nenv_list = py\n\n[testenv]\ncommands =\n"
         "    cp hotfix/ray_env.py {envsitepackagesdir}/verl/trainer/constants_ppo.py\n    python train.py\n"},
        # tox's commands, {envsitepackagesdir} being the folder verl is installed in
        SITE.strip() + ' && cp hotfix/ray_env.py "$SITE/verl/trainer/constants_ppo.py" && python train.py',
        f"{DEF}: `tox.ini:6` (cp) {COPIED}",
    ),
}


@pytest.mark.parametrize("name", sorted(B2))
def test_a_hotfix_carried_by_a_shell_line_is_never_given_a_config(name: str, tmp_path: Path) -> None:
    files, command, why = B2[name]
    root = _write(tmp_path / "proj", {**files, "hotfix/ray_env.py": OLD, "train.py": ENTRY})
    for name in files:
        if "." not in os.path.basename(name):
            (root / name).chmod(0o755)  # a script run by its ``#!`` (git keeps the bit)
    assert _concise(root) == [f"{CALLED} (unsafe fix: {why})"]
    _runs_before_and_after(root, command, tmp_path)


def test_a_dockerfile_copying_a_hotfix_into_site_packages_is_never_given_a_config(tmp_path: Path) -> None:
    """B2: ``COPY`` into the image's verl (the image is not built here: ``apply`` leaves the
    call, and the copy made by hand shows the oracle)."""
    docker = (
        "FROM python:3.11-slim\nRUN pip install 'verl>=0.9.0' omegaconf\nWORKDIR /app\nCOPY . /app\n"
        "COPY --chown=0:0 hotfix/ray_env.py /usr/local/lib/python3.11/site-packages/verl/trainer/constants_ppo.py\n"
        'CMD ["python", "train.py"]\n'
    )
    root = _write(tmp_path / "proj", {"Dockerfile": docker, "hotfix/ray_env.py": OLD, "train.py": ENTRY})
    assert _concise(root) == [f"{CALLED} (unsafe fix: {DEF}: `Dockerfile:5` (COPY) {COPIED})"]
    command = SITE.strip() + ' && cp hotfix/ray_env.py "$SITE/verl/trainer/constants_ppo.py" && python train.py'
    _runs_before_and_after(root, command, tmp_path)


@pytest.mark.parametrize(
    "files",
    [
        # the file copied takes a config
        {"run.sh": SITE + 'cp hotfix/ray_env.py "$SITE/verl/trainer/constants_ppo.py"\n', "hotfix/ray_env.py": INSTALLED},
        # a patch applied that does not touch the function
        {"run.sh": SITE + 'patch -d "$SITE" -p1 < fix.patch\n',
         "fix.patch": "--- a/verl/trainer/constants_ppo.py\n+++ b/verl/trainer/constants_ppo.py\n@@ -1,1 +1,2 @@\n"
         "+import os\n def get_ppo_ray_runtime_env(config=None):\n"},
        # a patch adding the def with a config
        {"run.sh": SITE + 'patch -d "$SITE" -p1 < fix.patch\n',
         "fix.patch": PATCH.replace("+def get_ppo_ray_runtime_env():", "+def get_ppo_ray_runtime_env(config=None, *, extra=None):")},
        # a patch kept in the repository, applied by no line, whose effect is not read
        {"fix.patch": PATCH.replace("+def get_ppo_ray_runtime_env():", "+get_ppo_ray_runtime_env = _legacy")},
        # copying the installed module away, reading it, another module's file
        {"run.sh": SITE + 'cp "$SITE/verl/trainer/constants_ppo.py" /tmp/saved.py\ncat "$SITE/verl/trainer/constants_ppo.py"\n'
         'cp hotfix/ray_env.py "$SITE/verl/trainer/main_ppo.py"\n', "hotfix/ray_env.py": OLD},
    ],
)
def test_a_carrier_leaving_a_config_keeps_the_safe_fix(files: dict[str, str], tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {**files, "train.py": ENTRY})
    assert _concise(root) == [SAFE]


def test_a_patch_of_the_module_applied_by_no_line_is_evidence_of_an_old_signature(tmp_path: Path) -> None:
    """A ``.patch`` in the repository that makes the function take no config is a hotfix of
    it, applied by hand or by a step outside the repository: unsafe, naming its ``def``."""
    root = _write(tmp_path / "proj", {"patches/ray_env.patch": PATCH, "train.py": ENTRY})
    assert _concise(root) == [
        f"{CALLED} (unsafe fix: `patches/ray_env.patch:9` defines `get_ppo_ray_runtime_env()` without a config "
        f"parameter (pre verl PR #6976): `patches/ray_env.patch` patches verl's module `verl/trainer/constants_ppo.py`, "
        f"{BESIDES}; if it is applied when the project runs, passing the config raises TypeError; patch "
        "`get_ppo_ray_runtime_env` to take a config (or remove that patch), or run with --use-ppo-runtime)"
    ]
    command = SITE.strip() + ' && patch -s -d "$SITE" -p1 < patches/ray_env.patch && python train.py'
    _runs_before_and_after(root, command, tmp_path)


# -- B3: a wheel or sdist in the repository carrying the module ---------------------------------


def _wheel(path: Path, body: str, prefix: str = "") -> Path:
    """A zip (a wheel) holding ``{prefix}verl/trainer/constants_ppo.py`` = ``body``."""
    import zipfile

    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"{prefix}verl/trainer/constants_ppo.py", body)
        zf.writestr(f"{prefix}lab_hotfix-0.1.dist-info/METADATA", "Name: lab-hotfix\nVersion: 0.1\n")
    return path


def _sdist(path: Path, body: str) -> Path:
    """A ``.tar.gz`` sdist ``verl_hotfix-0.1/verl/trainer/constants_ppo.py`` = ``body``."""
    import io
    import tarfile

    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as tf:
        for name, text in (("verl_hotfix-0.1/PKG-INFO", "Name: verl-hotfix\n"),
                           ("verl_hotfix-0.1/verl/trainer/constants_ppo.py", body)):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


ARCHIVED = (
    "`{archive}/{prefix}verl/trainer/constants_ppo.py:4` defines `get_ppo_ray_runtime_env()` without a config "
    "parameter (pre verl PR #6976): `{archive}` carries its own verl module `{prefix}verl/trainer/constants_ppo.py` "
    f"(a wheel or archive installed over verl's, or put on sys.path), {BESIDES}; if it is installed, passing the "
    "config raises TypeError; rebuild "
    "that archive with a `get_ppo_ray_runtime_env` taking a config (or remove it), or run with --use-ppo-runtime"
)


def test_a_hotfix_wheel_in_the_repository_is_never_given_a_config(tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {"train.py": ENTRY})
    _wheel(root / "wheels" / "lab_hotfix-0.1-py3-none-any.whl", OLD)
    archive = "wheels/lab_hotfix-0.1-py3-none-any.whl"
    assert _concise(root) == [f"{CALLED} (unsafe fix: {ARCHIVED.format(archive=archive, prefix='')})"]
    # ``pip install wheels/...whl`` over verl: a pure wheel is unpacked into site-packages
    command = SITE.strip() + f' && python -m zipfile -e {archive} "$SITE" && python train.py'
    _runs_before_and_after(root, command, tmp_path)


def test_a_hotfix_sdist_in_the_repository_is_never_given_a_config(tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {"train.py": ENTRY})
    _sdist(root / "dist" / "verl_hotfix-0.1.tar.gz", OLD)
    archive = "dist/verl_hotfix-0.1.tar.gz"
    assert _concise(root) == [f"{CALLED} (unsafe fix: {ARCHIVED.format(archive=archive, prefix='verl_hotfix-0.1/')})"]
    # ``pip install dist/...tar.gz``: its ``verl`` package over the installed one
    command = SITE.strip() + (
        f' && T=$(mktemp -d) && tar -xzf {archive} -C "$T" && cp -r "$T/verl_hotfix-0.1/verl/." "$SITE/verl/"'
        " && python train.py"
    )
    _runs_before_and_after(root, command, tmp_path)


def test_a_wheel_that_cannot_be_read_is_an_unsafe_fix_saying_why(tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {"train.py": ENTRY, "wheels/verl_hotfix-0.1-py3-none-any.whl": "not a zip\n",
                                      # a data set's broken archive says nothing of verl
                                      "data/corpus.zip": "truncated\n"})
    assert _concise(root) == [
        f"{CALLED} (unsafe fix: `wheels/verl_hotfix-0.1-py3-none-any.whl` may carry its own verl module "
        "`verl/trainer/constants_ppo.py` (an archive installed over verl), but it cannot be read, "
        f"{BESIDES}; if it is installed and its `get_ppo_ray_runtime_env` takes no config, passing the config "
        "raises TypeError; remove that archive or make it readable, or run with --use-ppo-runtime)"
    ]
    text = (root / "train.py").read_text()
    for extra in ((), ("--thread-config",)):
        run_cli("apply", *extra, ".", cwd=root)
        assert (root / "train.py").read_text() == text


def test_archives_without_an_old_module_keep_the_safe_fix(tmp_path: Path) -> None:
    """A hotfix wheel whose function takes a config, a data set's archives (one broken) and an
    archive holding another package's file of that name leave the safe fix."""
    import io
    import tarfile
    import zipfile

    root = _write(tmp_path / "proj", {"train.py": ENTRY, "data/corpus.zip": "truncated\n"})
    _wheel(root / "wheels" / "lab_hotfix-0.1-py3-none-any.whl", INSTALLED)
    with tarfile.open(root / "data" / "images.tgz", "w:gz") as tf:
        info = tarfile.TarInfo("images/0001.png")
        info.size = 3
        tf.addfile(info, io.BytesIO(b"png"))
    with zipfile.ZipFile(root / "data" / "other.zip", "w") as zf:
        zf.writestr("rlcore/trainer/constants_ppo.py", OLD)
    assert _concise(root) == [SAFE]
    run_cli("apply", ".", cwd=root)
    proc = _run(root, "python train.py", tmp_path)
    assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr


# -- W1: a project's own module of the same name -------------------------------------------------

OWN_ENTRY = (
    "from omegaconf import OmegaConf\n"
    "from verl.trainer import constants_ppo as cp\n"
    "{import_line}\n\n\n"
    "def main(config):\n    env = cp.get_ppo_ray_runtime_env()\n"
    "    env['env_vars'].update(compat.get_ppo_ray_runtime_env()['env_vars'])\n    print('OK')\n\n\n"
    "if __name__ == '__main__':\n    main(OmegaConf.create({'trainer': {'n_gpus_per_node': 1}}))\n"
)
#: the project's compatibility layer: the old runtime env, for its own workers
COMPAT = "import os\n\n\ndef get_ppo_ray_runtime_env():\n    return {'env_vars': {'LAB_COMPAT': '1'}}\n"


@pytest.mark.parametrize(
    "import_line",
    ["from app.compat import constants_ppo as compat", "from .compat import constants_ppo as compat",
     "import app.compat.constants_ppo as compat"],
)
def test_a_project_module_imported_under_its_own_name_is_no_hotfix(import_line: str, tmp_path: Path) -> None:
    """W1: ``app/compat/constants_ppo.py`` in the package ``app.compat``, imported by the
    project as such: the project's module, the fix stays safe, and the project runs after it."""
    root = _write(tmp_path / "proj", {
        "app/__init__.py": "", "app/compat/__init__.py": "", "app/compat/constants_ppo.py": COMPAT,
        "app/train.py": OWN_ENTRY.replace("{import_line}", import_line),
    })
    assert _concise(root) == [SAFE.replace("train.py:6:", "app/train.py:7:")]
    before = tmp_path / "before"
    shutil.copytree(root, before)
    proc = _run(before, "python -m app.train", tmp_path)
    assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr
    for extra in ((), ("--thread-config",)):
        run_cli("apply", *extra, ".", cwd=root)
        assert "cp.get_ppo_ray_runtime_env(config)" in (root / "app" / "train.py").read_text()
        proc = _run(root, "python -m app.train", tmp_path)
        assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr


@pytest.mark.parametrize(
    "files",
    [
        # a package never imported: a hotfix kept as one
        {"hotfix/__init__.py": "", "hotfix/constants_ppo.py": OLD},
        # no package: imported by its folder on sys.path, not as a module of the project's packages
        {"overrides/constants_ppo.py": OLD, "boot.py": "import sys\nsys.path.insert(0, 'overrides')\nimport constants_ppo\n"},
        # imported, then installed in verl's place in sys.modules
        {"hotfix/__init__.py": "", "hotfix/constants_ppo.py": OLD,
         "boot.py": "import sys\nfrom hotfix import constants_ppo\nsys.modules['verl.trainer.constants_ppo'] = constants_ppo\n"},
    ],
)
def test_a_hotfix_module_of_the_same_name_stays_unsafe(files: dict[str, str], tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {**files, "train.py": ENTRY})
    (line,) = _concise(root)
    assert line.startswith(CALLED + " (unsafe fix: ")
    hotfix = next(name for name in files if name.endswith("constants_ppo.py"))
    assert f"{hotfix}:4" in line or "sys.modules" in line


# -- W2, W11: a uv workspace's verl member ------------------------------------------------------

WORKSPACE = (
    '[project]\nname = "proj"\nversion = "0"\ndependencies = ["verl", "omegaconf"]\n\n'
    "[tool.uv.sources]\nverl = { workspace = true }\n\n"
    '[tool.uv.workspace]\nmembers = ["packages/*"]\nexclude = [\n    "packages/scratch",\n{more}]\n'
)


def _workspace(root: Path, body: str, excluded: bool = False) -> Path:
    (root / ".git").mkdir(parents=True)
    more = '    "packages/verl",\n' if excluded else ""
    files = {
        "pyproject.toml": WORKSPACE.replace("{more}", more), "train.py": ENTRY,
        "packages/verl/pyproject.toml": '[project]\nname = "verl"\nversion = "0.9.1.dev0"\n',
        "packages/verl/src/verl/__init__.py": "", "packages/verl/src/verl/trainer/__init__.py": "",
        "packages/verl/src/verl/trainer/constants_ppo.py": body,
        "packages/scratch/pyproject.toml": '[project]\nname = "scratch"\nversion = "0"\n',
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _run_member(root: Path) -> subprocess.CompletedProcess[str]:
    """The project as ``uv run`` runs it: the member installed editable (its ``src/`` on the path)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root / "packages" / "verl" / "src")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run([sys.executable, "train.py"], cwd=root, env=env, capture_output=True, text=True, timeout=120)


def test_a_workspace_member_in_a_src_layout_is_read(tmp_path: Path) -> None:
    """W2: ``packages/verl/src/verl/`` is read: taking a config, the fix is safe and the
    project runs after it; taking none, the call is left alone naming the member's ``def``."""
    root = _workspace(tmp_path / "new", INSTALLED)
    assert _concise(root) == [SAFE]
    for extra in ((), ("--thread-config",)):
        run_cli("apply", *extra, ".", cwd=root)
        assert "cp.get_ppo_ray_runtime_env(config)" in (root / "train.py").read_text()
        proc = _run_member(root)
        assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr

    root = _workspace(tmp_path / "old", OLD)
    assert _concise(root) == [
        f"train.py:6:11: PPO005 `{CALL}` left as it is: `packages/verl/src/verl/trainer/constants_ppo.py:4` defines "
        "`get_ppo_ray_runtime_env()` without a config parameter (pre verl PR #6976); update that copy, or run with "
        "--use-ppo-runtime"
    ]
    run_cli("apply", "--thread-config", ".", cwd=root)
    assert (root / "train.py").read_text() == ENTRY
    proc = _run_member(root)
    assert (proc.returncode, proc.stdout.strip()) == (0, "OK"), proc.stderr


def test_an_excluded_workspace_member_is_named_by_its_exclude_entry(tmp_path: Path) -> None:
    """W11: the only verl member is excluded: the notice names the ``exclude`` entry's line
    (13), not the source's (7)."""
    root = _workspace(tmp_path / "proj", INSTALLED, excluded=True)
    assert _concise(root) == [
        f"train.py:6:11: PPO005 `{CALL}` left as it is: the project takes verl from its uv workspace (`verl = "
        "{ workspace = true }`), but `pyproject.toml:13` excludes the member `packages/verl` whose project is verl, "
        "so the release it runs cannot be read; set verl-version (or --verl-version) to the release it holds, or "
        "run with --use-ppo-runtime"
    ]
    run_cli("apply", ".", cwd=root)
    assert (root / "train.py").read_text() == ENTRY


# -- trial 26j: a conftest and a test script putting the hotfix over the installed verl ----------

TEST_ENTRY = "from train import main\n\n\ndef test_main():\n    main({'trainer': {}})\n"
#: name -> (files, the command, the ``(unsafe fix: ...)`` text)
TESTS_26J: dict[str, tuple[dict[str, str], str, str]] = {
    "h02 a conftest writing next to verl.trainer.__file__": (
        {"conftest.py": "from pathlib import Path\n\nimport verl.trainer\n\n"
         "SRC = Path(__file__).parent / 'ops' / 'constants_ppo.py.txt'\n"
         "Path(verl.trainer.__file__).with_name('constants_ppo.py').write_text(SRC.read_text())\n",
         "ops/constants_ppo.py.txt": OLD},
        "python -m pytest -q -p no:cacheprovider tests",
        "`ops/constants_ppo.py.txt:4` defines `get_ppo_ray_runtime_env()` without a config parameter (pre verl PR "
        f"#6976): `conftest.py:6` (.write_text) copies `ops/constants_ppo.py.txt` {OVER} when the project runs, "
        f"{BESIDES}; if that file is the module imported, passing the config raises TypeError; update the file "
        "copied, or run with --use-ppo-runtime",
    ),
    "h03 sed -i through a variable named for verl": (
        {"scripts/test.sh": "#!/bin/bash\nset -euo pipefail\n"
         "VERL_DIR=$(python -c 'import os, verl; print(os.path.dirname(verl.__file__))')\n"
         "sed -i 's/def get_ppo_ray_runtime_env(config=None):/def get_ppo_ray_runtime_env():\\n    config = None/' "
         '"$VERL_DIR/trainer/constants_ppo.py"\npython -m pytest -q -p no:cacheprovider tests\n'},
        "bash scripts/test.sh",
        "`scripts/test.sh:4` (sed -i) edits verl's module `verl/trainer/constants_ppo.py` in place when the project "
        f"runs, which the tool cannot read, {BESIDES}; if its `get_ppo_ray_runtime_env` then takes no config, passing "
        "the config raises TypeError; ship a module whose `get_ppo_ray_runtime_env` takes a config instead of the "
        "edit, or run with --use-ppo-runtime",
    ),
}


TESTS_26J["h04 patch -p1 -N -d $(SITE) in a Makefile"] = (
    {"Makefile": "SITE := $(shell python -c 'import os, verl; print(os.path.dirname(os.path.dirname(verl.__file__)))')\n"
     ".PHONY: test\ntest:\n\tpatch -s -p1 -N -d $(SITE) < patches/0001-legacy-env.patch\n"
     "\tpython -m pytest -q -p no:cacheprovider tests\n",
     "patches/0001-legacy-env.patch": PATCH},
    "make -s test",
    "`patches/0001-legacy-env.patch:9` defines `get_ppo_ray_runtime_env()` without a config parameter (pre verl PR "
    "#6976): `Makefile:4` (patch) applies `patches/0001-legacy-env.patch` to verl's module "
    f"`verl/trainer/constants_ppo.py` when the project runs, {BESIDES}; passing the config raises TypeError; "
    "patch `get_ppo_ray_runtime_env` to take a config, or run with --use-ppo-runtime",
)
TESTS_26J["h08 a .pth putting a zip of verl first"] = (
    {"conftest.py": "import pathlib\nimport site\n\nsite.addsitedir(str(pathlib.Path(__file__).parent / 'devsite'))\n",
     "devsite/legacy.pth": "import sys, os; sys.path.insert(0, os.path.join(sitedir, 'verl-legacy.zip'))\n"},
    "python -m pytest -q -p no:cacheprovider tests",
    "`devsite/verl-legacy.zip/verl/trainer/constants_ppo.py:4` defines `get_ppo_ray_runtime_env()` without a config "
    "parameter (pre verl PR #6976): `devsite/verl-legacy.zip` carries its own verl module "
    "`verl/trainer/constants_ppo.py` (a wheel or archive installed over verl's, or put on sys.path), "
    f"{BESIDES}; if it is installed, passing the config raises TypeError; rebuild that archive with a "
    "`get_ppo_ray_runtime_env` taking a config (or remove it), or run with --use-ppo-runtime",
)

TESTS_26J["h18 a conftest running patch on the module's origin"] = (
    {"conftest.py": "import importlib.util\nimport pathlib\nimport subprocess\n\n"
     "_target = importlib.util.find_spec('verl.trainer.constants_ppo').origin\n"
     "subprocess.run(['patch', '-s', '-N', _target, str(pathlib.Path(__file__).parent / 'ci' / 'legacy.diff')], check=False)\n",
     # ``patch <file> <diff>``: the diff names the bare file
     "ci/legacy.diff": PATCH.replace("a/verl/trainer/constants_ppo.py", "constants_ppo.py")
     .replace("b/verl/trainer/constants_ppo.py", "constants_ppo.py")},
    "python -m pytest -q -p no:cacheprovider tests",
    "`ci/legacy.diff:9` defines `get_ppo_ray_runtime_env()` without a config parameter (pre verl PR #6976): "
    "`ci/legacy.diff` patches verl's module `verl/trainer/constants_ppo.py`, "
    f"{BESIDES}; if it is applied when the project runs, passing the config raises TypeError; patch "
    "`get_ppo_ray_runtime_env` to take a config (or remove that patch), or run with --use-ppo-runtime",
)
TESTS_26J["h24 cp onto a variable holding find_spec's origin"] = (
    {"scripts/setup_env.sh": "#!/bin/bash\nset -euo pipefail\n"
     "DEST=$(python -c 'import importlib.util as u; print(u.find_spec(\"verl.trainer.constants_ppo\").origin)')\n"
     'cp hotfix/ray_env.py "$DEST"\npython -m pytest -q -p no:cacheprovider tests\n',
     "hotfix/ray_env.py": OLD},
    "bash scripts/setup_env.sh",
    f"{DEF}: `scripts/setup_env.sh:4` (cp) {COPIED}",
)


@pytest.mark.parametrize("name", sorted(TESTS_26J))
def test_a_hotfix_put_over_verl_by_the_tests_is_never_given_a_config(name: str, tmp_path: Path) -> None:
    """Trial 26j, h02/h03/h04/h08: the project's tests run after a conftest (a test file, yet
    writing over the *installed* module, no fixture), a test script (``sed -i`` on
    ``$VERL_DIR/...``), a Makefile's ``patch`` or a ``.pth`` putting a zip of verl first made
    the hotfix the module imported: unsafe, and the tests pass before and after ``apply``."""
    files, command, why = TESTS_26J[name]
    root = _write(tmp_path / "proj", {**files, "train.py": ENTRY, "tests/test_train.py": TEST_ENTRY})
    if "devsite/legacy.pth" in files:  # h08: the zip holds a whole verl 0.8
        import zipfile

        with zipfile.ZipFile(root / "devsite" / "verl-legacy.zip", "w") as zf:
            zf.writestr("verl/__init__.py", "")
            zf.writestr("verl/trainer/__init__.py", "")
            zf.writestr("verl/trainer/constants_ppo.py", OLD)
    assert _concise(root) == [f"{CALLED} (unsafe fix: {why})"]

    def passes(folder: Path) -> subprocess.CompletedProcess[str]:
        proc = _run(folder, command, tmp_path)
        return proc

    proc = passes(root)
    assert proc.returncode == 0 and "1 passed" in proc.stdout, proc.stdout + proc.stderr
    oracle = tmp_path / "oracle"
    shutil.copytree(root, oracle)
    (oracle / "train.py").write_text(ENTRY.replace(CALL, CALL.replace("()", "(config)")))
    proc = passes(oracle)
    assert proc.returncode != 0 and "takes 0 positional arguments" in proc.stdout + proc.stderr
    for extra in ((), ("--thread-config",)):
        run_cli("apply", *extra, ".", cwd=root)
        assert (root / "train.py").read_text() == ENTRY
        proc = passes(root)
        assert proc.returncode == 0 and "1 passed" in proc.stdout, proc.stdout + proc.stderr


def test_a_carrier_no_reading_knows_is_named_and_never_given_a_config(tmp_path: Path) -> None:
    """Fresh user 45: a Slurm batch script (or a Jenkinsfile, a mount, a patch kept as
    ``.txt``...) copying a hotfix over the installed module; the forms have no end, so a line
    naming the module's file that no reading explains makes the fix unsafe, naming it."""
    sbatch = "#!/bin/bash\n#SBATCH -N 1\n" + SITE + 'cp hotfix/ray_env.py "$SITE/verl/trainer/constants_ppo.py"\npython train.py\n'
    root = _write(tmp_path / "proj", {"train.sbatch": sbatch, "hotfix/ray_env.py": OLD, "train.py": ENTRY})
    (lines,) = _concise(root)
    assert lines.startswith(f"{CALLED} (unsafe fix: `train.sbatch:4` names verl's module file `constants_ppo.py`")
    _runs_before_and_after(root, "bash train.sbatch", tmp_path)
