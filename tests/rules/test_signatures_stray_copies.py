"""Issue 26, family 1, a fresh tester's hole: a verl 0.8 copy the tool did not count.

Each tree declares ``verl>=0.9`` at its root and holds a copy of verl 0.8 (a ``verl/``
package, no packaging file of its own) that the project puts on ``sys.path`` by a form the
tool did not read: pytest's ``pythonpath`` (four ini files), ``sys.path.insert``/``append``
in a project file (literal, ``os.path.join(os.path.dirname(__file__), ...)`` and
``Path(__file__).parent / ...`` forms), a Dockerfile's ``ENV PYTHONPATH``, a ``.pth`` file,
a Makefile's ``PYTHONPATH``. The tool trusted the pin and the rewritten call raised
``TypeError``. Now such a copy is a plausible definition in effect: PPO005 naming the
copy's definition (file and line), and ``apply`` leaves the call.

A copy that nothing known puts on the path (a *stray* copy) makes the fix unsafe, naming
the copy; a copy under a test-data folder (``fixtures/``) is the project's test data and
changes nothing. Without ``.git``, a root ``.gitmodules`` (a project marker) holds the root
above a sub-folder with its own pin, so the submodule's copy decides.

Every case is *executed*: before, after a plain ``apply`` and after
``apply --thread-config``, the launcher runs by the project's own mechanism (the pytest
run, the script's ``sys.path.insert``, ``make``, ``site.addsitedir``), or with the folder a
Dockerfile names on ``PYTHONPATH`` as the container would have it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import warm_python
from cli_helpers import VERL_08, VERL_09, run_cli
from tree_runs import run_per_tree

#: the copy's definition sits on line 4, so that a reason naming line 1 would fail
COPY_08 = "import os\n\n\n" + VERL_08
COPY_LINE = 4
COPY = "third_party/verl"
DEFINITION = f"{COPY}/verl/trainer/constants_ppo.py"

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
    "if __name__ == '__main__':\n"
    "    print('ran', launch(OmegaConf.create({'trainer': 2})))\n"
)
BEFORE = "ran (None, None)"
#: a pytest test of the launcher, for the ``pythonpath`` ini forms
TEST = (
    "import runpy\n\nfrom omegaconf import OmegaConf\n\n\n"
    "def test_launch():\n"
    "    ns = runpy.run_path('scripts/train.py')\n"
    "    print('ran', ns['launch'](OmegaConf.create({'trainer': 2})))\n"
)


def _copy(prefix: str, body: str = COPY_08) -> dict[str, str]:
    return {
        f"{prefix}/verl/__init__.py": "",
        f"{prefix}/verl/trainer/__init__.py": "",
        f"{prefix}/verl/trainer/constants_ppo.py": body,
    }


def _insert(line: str) -> str:
    """The launcher with ``line`` (which puts the copy on the path) at its top."""
    return "import os\nimport sys\nfrom pathlib import Path\n\n" + line + "\n" + LAUNCHER


#: form -> (files besides the copy and the pin, how it runs: "pytest", "python", "make",
#: "site:<folder>", "env:<folder>", the declaring file and its line)
FORMS: dict[str, tuple[dict[str, str], str, tuple[str, int]]] = {
    "pytest-pyproject": (
        {"pyproject.toml": '[tool.ruff]\nline-length = 100\n\n[tool.pytest.ini_options]\npythonpath = ["third_party/verl"]\n'},
        "pytest", ("pyproject.toml", 5),
    ),
    "pytest-ini": (
        {"pytest.ini": "[pytest]\naddopts = -q\npythonpath = third_party/verl\n"},
        "pytest", ("pytest.ini", 3),
    ),
    "pytest-setup-cfg": (
        {"setup.cfg": "[metadata]\nname = rl\n\n[tool:pytest]\npythonpath =\n    third_party/verl\n"},
        "pytest", ("setup.cfg", 5),
    ),
    "pytest-tox-ini": (
        {"tox.ini": "[tox]\nenvlist = py311\n\n[pytest]\npythonpath = third_party/verl\n"},
        "pytest", ("tox.ini", 5),
    ),
    "sys-path-insert-literal": (
        {"scripts/train.py": _insert("sys.path.insert(0, 'third_party/verl')")},
        "python", ("scripts/train.py", 5),
    ),
    "sys-path-insert-os-path-join": (
        {"scripts/train.py": _insert(
            "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'third_party/verl'))")},
        "python", ("scripts/train.py", 5),
    ),
    "sys-path-append-pathlib": (
        {"scripts/train.py": _insert("ROOT = Path(__file__).resolve().parent.parent\n"
                                     "sys.path.append(str(ROOT / 'third_party' / 'verl'))")},
        "python", ("scripts/train.py", 6),
    ),
    "dockerfile-env": (
        {"docker/Dockerfile": "FROM python:3.11\nWORKDIR /workspace\nCOPY . /workspace\n"
                              "ENV PYTHONPATH=/workspace/third_party/verl:$PYTHONPATH\n"
                              "CMD [\"python\", \"scripts/train.py\"]\n"},
        f"env:{COPY}", ("docker/Dockerfile", 4),
    ),
    "pth-file": (
        {"devenv/verl.pth": "# the vendored verl, for `site.addsitedir('devenv')`\n../third_party/verl\n"},
        "site:devenv", ("devenv/verl.pth", 2),
    ),
    "makefile": (
        {"Makefile": ".PHONY: train\n\ntrain:\n\tPYTHONPATH=$(CURDIR)/third_party/verl python scripts/train.py\n"},
        "make", ("Makefile", 4),
    ),    # a tester's second round: forms that declare a root without naming sys.path
    "monkeypatch-syspath-prepend": (
        {"conftest.py": "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef _legacy(monkeypatch):\n"
                        "    monkeypatch.syspath_prepend('third_party/verl')\n"},
        "pytest", ("conftest.py", 6),
    ),
    "sys-path-insert-loop": (
        {"scripts/train.py": _insert("for p in ('third_party/verl',):\n    sys.path.insert(0, p)")},
        "python", ("scripts/train.py", 6),
    ),
    "subprocess-env-pythonpath": (
        {"launch.py": "import os, subprocess, sys\n\nenv = dict(os.environ)\n"
                      "env['PYTHONPATH'] = os.pathsep.join(['third_party/verl', env.get('PYTHONPATH', '')])\n"
                      "subprocess.run([sys.executable, 'scripts/train.py'], env=env, check=True)\n"},
        "launch", ("launch.py", 4),
    ),
    "tox-setenv": (  # tox is not run: its setenv emulated
        {"tox.ini": "[testenv]\nsetenv =\n    PYTHONPATH = {toxinidir}/third_party/verl\ncommands = python scripts/train.py\n"},
        f"env:{COPY}", ("tox.ini", 3),
    ),
    "tox-setenv-gitignored": (  # a folder a declaration names is read though git ignores it
        {"tox.ini": "[testenv]\nsetenv =\n    PYTHONPATH = {toxinidir}/third_party/verl\n",
         ".gitignore": "third_party/\n"},
        f"env:{COPY}", ("tox.ini", 3),
    ),
    "dotenv": (
        {".env": "PYTHONPATH=third_party/verl:${PYTHONPATH}\n",
         "run.sh": "set -a\n. ./.env\nset +a\nexec python scripts/train.py\n"},
        "sh:run.sh", (".env", 1),
    ),
    "envrc": (
        {".envrc": "export PYTHONPATH=$PWD/third_party/verl:$PYTHONPATH\n"},
        "sh:.envrc", (".envrc", 1),
    ),
    # trial 26d: the shell idioms for "prepend, keeping what is set" and "a default"
    "shell-alternate-expansion": (
        {"run.sh": 'export PYTHONPATH="$PWD/third_party/verl${PYTHONPATH:+:$PYTHONPATH}"\n'
                   "exec python scripts/train.py\n"},
        "sh:run.sh", ("run.sh", 1),
    ),
    "devcontainer-container-env": (  # an absolute container path: its trailing components
        {".devcontainer/devcontainer.json": '{\n  "image": "python:3.11",\n  "containerEnv": {\n'
                                            '    "PYTHONPATH": "/workspaces/proj/third_party/verl"\n  }\n}\n'},
        f"env:{COPY}", (".devcontainer/devcontainer.json", 4),
    ),
    "devcontainer-workspace-folder": (
        {".devcontainer/devcontainer.json": '{"remoteEnv": {"PYTHONPATH": "${containerWorkspaceFolder}/third_party/verl"}}\n'},
        f"env:{COPY}", (".devcontainer/devcontainer.json", 1),
    ),
    "k8s-env-name-value": (
        {"k8s/rayjob.yaml": "apiVersion: ray.io/v1\nkind: RayJob\nspec:\n  entrypoint: python /app/scripts/train.py\n"
                            "  submitterPodTemplate:\n    spec:\n      containers:\n        - name: submitter\n"
                            "          env:\n            - name: PYTHONPATH\n              value: /app/third_party/verl\n"},
        f"env:{COPY}", ("k8s/rayjob.yaml", 10),
    ),
    "shell-default-expansion": (
        {"run.sh": 'export PYTHONPATH="${VERL_SRC:-third_party/verl}"\nexec python scripts/train.py\n'},
        "sh:run.sh", ("run.sh", 1),
    ),
    "workflow-env": (
        {".github/workflows/ci.yml": "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    env:\n"
                                     "      PYTHONPATH: third_party/verl\n    steps:\n      - run: python scripts/train.py\n"},
        f"env:{COPY}", (".github/workflows/ci.yml", 6),
    ),
}


def _tree(root: Path, files: dict[str, str | None], git: bool = True) -> Path:
    if git:
        (root / ".git").mkdir(parents=True)  # a repository: its root bounds the search
    files = {"requirements.txt": "verl>=0.9\n", "scripts/train.py": LAUNCHER, **files}
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _runs(root: Path, how: str, launcher: str = "scripts/train.py") -> str:
    """Run the launcher the way the project does; its output's ``ran`` line."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONDONTWRITEBYTECODE": "1"}
    python = sys.executable
    if how == "pytest":
        cmd = [python, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "-p", "no:xdist",
               "-o", "addopts=", "tests/test_train.py"]
        # the sample project's own pytest: not the plugins installed here (hypothesis,
        # benchmark, ...), whose loading was two thirds of each run
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    elif how == "python":
        cmd = [python, launcher]
    elif how == "launch":  # a launcher passing PYTHONPATH to its child
        cmd = [python, "launch.py"]
    elif how.startswith("sh:"):  # ``.env`` sourced by a script, ``.envrc`` sourced by direnv
        script = how[3:]
        cmd = ["bash", script] if script.endswith(".sh") else ["bash", "-c", f". ./{script}; exec python {launcher}"]
        env["PATH"] = os.path.dirname(python) + os.pathsep + env["PATH"]
    elif how.startswith("pkgdir:"):  # ``pip install -e`` of a ``package-dir`` mapping: its finder
        cmd = [python, "-c", "import importlib.util, runpy, sys; "
               f"spec = importlib.util.spec_from_file_location('verl', {how[7:] + '/__init__.py'!r}, "
               f"submodule_search_locations=[{how[7:]!r}]); m = importlib.util.module_from_spec(spec); "
               "sys.modules['verl'] = m; spec.loader.exec_module(m); "
               f"runpy.run_path({launcher!r}, run_name='__main__')"]
    elif how == "make":
        cmd = ["make", "-s", "train"]  # its recipe runs ``python``: this interpreter
        env["PATH"] = os.path.dirname(python) + os.pathsep + env["PATH"]
    elif how.startswith("site:"):
        cmd = [python, "-c", f"import site, runpy; site.addsitedir({how[5:]!r}); "
                              f"runpy.run_path({launcher!r}, run_name='__main__')"]
    else:  # ``env:<folder>``: the folder a container's PYTHONPATH names (or an absolute one)
        env["PYTHONPATH"] = str(root / how[4:])
        cmd = [python, launcher]
    if how.startswith("env:") and not (root / how[4:]).resolve().is_relative_to(root.resolve()):
        # the folder on the path is outside the tree: not part of what run_per_tree compares
        proc = warm_python.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=180)
    else:  # everything the run reads is in the tree: once per content of the tree
        proc = run_per_tree(cmd, root, env=env, timeout=180)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return next(line for line in proc.stdout.splitlines() if line.startswith("ran ")).strip()


def _check(root: Path, *paths: str, cwd: Path | None = None) -> list[dict]:
    proc = run_cli("check", "--output-format", "json", "--exit-zero", "--show-notices",
                   *(paths or (".",)), cwd=cwd or root)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _apply_leaves_it_running(root: Path, how: str, launcher: str = "scripts/train.py", cwd: Path | None = None) -> None:
    before = (root / launcher).read_text()
    assert _runs(root, how, launcher) == BEFORE
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=cwd or root)
        assert proc.returncode == 0, proc.stderr
        assert (root / launcher).read_text() == before
        assert _runs(root, how, launcher) == BEFORE


def _names_the_copy(found: dict, root: Path, definition: str = DEFINITION, line: int = COPY_LINE) -> None:
    place = found["reason"]["lines"][0]
    assert Path(place["filename"]).resolve() == (root / definition).resolve(), found["reason"]
    assert place["location"]["row"] == line, found["reason"]


@pytest.mark.parametrize("where", [".", "sub"])
def test_without_git_a_root_gitmodules_beats_a_sub_folder_pin(tmp_path: Path, where: str) -> None:
    """No ``.git``: the root holds only ``.gitmodules`` (a verl submodule checked out at
    ``ext/verl``, release 0.8), ``sub/requirements.txt`` says ``verl>=0.9`` beside the
    calling file. The root is found above the sub-folder, and the submodule's copy decides:
    PPO005 naming its definition, run from the root or from ``sub``."""
    root = tmp_path / "proj"
    _tree(root, {
        ".gitmodules": '[submodule "verl"]\n\tpath = ext/verl\n\turl = https://github.com/volcengine/verl.git\n',
        **_copy("ext/verl"),
        "sub/requirements.txt": "verl>=0.9\n",
        "sub/train.py": LAUNCHER,
    }, git=False)
    (root / "requirements.txt").unlink()
    (root / "scripts" / "train.py").unlink()
    cwd = root / where
    _apply_leaves_it_running(root, "env:ext/verl", "sub/train.py", cwd=cwd)
    found = [f for f in _check(root, cwd=cwd) if f["filename"].endswith("train.py")]
    assert [f["code"] for f in found] == ["PPO005", "PPO005"], found
    for f in found:
        _names_the_copy(f, root, "ext/verl/verl/trainer/constants_ppo.py")




def test_the_walk_skips_what_discovery_skips_and_test_data(tmp_path: Path) -> None:
    """One walk per repository (cached): VCS, environment, cache and build folders are not
    entered, ``.gitignore`` is honoured as discovery honours it, test data (``fixtures/``...)
    is skipped; a ``verl/`` under a package is that package's, not a copy."""
    from ppo_migrate.project import tree

    root = _tree(tmp_path / "proj", {
        **_copy("libs"), **_copy(".venv/lib"), **_copy("build/lib"), **_copy("node_modules/x"),
        **_copy("ignored/vendor"), **_copy("fixtures/old"), **_copy("tests/testdata/old"),
        **_copy("mylib"), "mylib/__init__.py": "", ".gitignore": "ignored/\n",
    })
    tree._LISTINGS.clear()
    listing = tree.repository_listing(root)
    assert tree.repository_listing(root) is listing  # once per repository and run
    copies = tree.package_copies(listing, "verl", "verl.trainer.constants_ppo")
    assert [Path(c).relative_to(root).as_posix() for c in copies] == ["libs"]
    everything = tree.repository_listing(root, respect_gitignore=False)
    assert [Path(c).relative_to(root).as_posix() for c in tree.package_copies(everything, "verl", "verl.trainer")] == [
        "ignored/vendor", "libs"]


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_copy_a_project_file_puts_on_the_path_is_a_definition_in_effect(tmp_path: Path, form: str) -> None:
    """(a)-(e): the copy is on a declared import root: PPO005 for both calls, naming the
    copy's definition (file and line) and the file that puts it on the path."""
    files, how, (declaring, line) = FORMS[form]
    if how == "make" and shutil.which("make") is None:
        pytest.skip("make is not installed")
    extra = {"tests/test_train.py": TEST} if how == "pytest" else {}
    root = _tree(tmp_path / "proj", {**_copy(COPY), **extra, **files})
    _apply_leaves_it_running(root, how)
    found = [f for f in _check(root) if f["filename"].endswith("train.py") and "tests" not in f["filename"]]
    assert [f["code"] for f in found] == ["PPO005", "PPO005"], found
    for f in found:
        assert f["reason"]["kind"] == "in-tree-definition"
        _names_the_copy(f, root)
        assert f"`{DEFINITION}:{COPY_LINE}`" in f["message"], f["message"]
        assert f"`{declaring}:{line}`" in f["message"], f["message"]


def test_the_same_declared_copy_taking_a_config_lets_the_fix_through(tmp_path: Path) -> None:
    """No over-caution: a declared copy of verl 0.9 is a safe fix, and the rewritten launcher
    runs against it (pytest's ``pythonpath`` puts it on the path)."""
    files, how, _ = FORMS["pytest-pyproject"]
    root = _tree(tmp_path / "proj", {**_copy(COPY, VERL_09), "tests/test_train.py": TEST, **files})
    found = [f for f in _check(root) if f["filename"].endswith("scripts/train.py")]
    assert [(f["code"], (f["fix"] or {}).get("applicability")) for f in found] == [
        ("PPO001", "safe"), ("PPO002", None)], found
    proc = run_cli("apply", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "return get_ppo_ray_runtime_env(config)" in (root / "scripts/train.py").read_text()
    assert _runs(root, how) == "ran ({'trainer': 2}, None)"


def test_a_stray_copy_makes_the_fix_unsafe_naming_it(tmp_path: Path) -> None:
    """A copy no file of the repository is seen to put on the path (here a CI variable the
    tool cannot read puts ``libs`` there): the pin decides "takes a config", but the fix is
    unsafe, its reason naming the copy's file and line; a plain apply leaves the call."""
    root = _tree(tmp_path / "proj", _copy("libs"))
    _apply_leaves_it_running(root, "env:libs")
    found = [f for f in _check(root) if f["filename"].endswith("train.py")]
    assert [(f["code"], (f["fix"] or {}).get("applicability")) for f in found] == [
        ("PPO001", "unsafe"), ("PPO002", None)], found
    unsafe = found[0]
    assert unsafe["reason"]["kind"] == "uncertain-definition"
    _names_the_copy(unsafe, root, "libs/verl/trainer/constants_ppo.py")
    assert "(unsafe fix: `libs/verl/trainer/constants_ppo.py:4` defines" in unsafe["message"], unsafe["message"]
    assert "requirements.txt:1 verl>=0.9" in unsafe["message"]
    # --unsafe-fixes writes it: the user's choice, and then it raises as the reason says
    proc = run_cli("apply", "--exit-zero", "--unsafe-fixes", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "get_ppo_ray_runtime_env(config)" in (root / "scripts/train.py").read_text()


@pytest.mark.parametrize("archive", ["vendor/verl-0.8.0.zip", "wheels/verl-0.8.0-py3-none-any.whl"])
@pytest.mark.parametrize("body", ["0.8", "0.9"])
def test_an_archive_on_the_path_is_read_inside(tmp_path: Path, archive: str, body: str) -> None:
    """``sys.path.insert(0, "vendor/verl-0.8.0.zip")``: zipimport imports verl from the
    archive, so its ``constants_ppo.py`` is read inside it: a 0.8 copy gives PPO005 naming
    the member and the declaring line; a 0.9 copy lets the fix through and the rewritten
    launcher runs against it."""
    import zipfile

    line = f"sys.path.insert(0, {archive!r})"
    root = _tree(tmp_path / "proj", {"scripts/train.py": _insert(line)})
    (root / archive).parent.mkdir(parents=True)
    with zipfile.ZipFile(root / archive, "w") as zf:
        for name, text in _copy("", COPY_08 if body == "0.8" else VERL_09).items():
            zf.writestr(name.lstrip("/"), text)
    found = [f for f in _check(root) if f["filename"].endswith("train.py")]
    if body == "0.9":
        assert [f["code"] for f in found] == ["PPO001", "PPO002"], found
        proc = run_cli("apply", "--exit-zero", ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert _runs(root, "python") == "ran ({'trainer': 2}, None)"
        return
    assert [f["code"] for f in found] == ["PPO005", "PPO005"], found
    assert f"`{archive}/verl/trainer/constants_ppo.py:{COPY_LINE}`" in found[0]["message"], found[0]["message"]
    assert "`scripts/train.py:5`" in found[0]["message"], found[0]["message"]
    _apply_leaves_it_running(root, "python")


def test_a_package_dir_mapping_is_a_stray_copy(tmp_path: Path) -> None:
    """``[tool.setuptools.package-dir] verl = "legacy_verl"`` in a fork's pyproject: ``pip
    install -e third_party/verlfork`` imports ``verl`` from ``legacy_verl/``, which no folder
    named ``verl`` shows. Its 0.8 definition makes the fix unsafe, naming the mapped file."""
    fork = "third_party/verlfork"
    root = _tree(tmp_path / "proj", {
        **{k.replace("/verl/", "/legacy_verl/"): v for k, v in _copy(fork).items()},
        f"{fork}/pyproject.toml": '[project]\nname = "verl"\nversion = "0.8.0"\n\n'
                                  '[tool.setuptools.package-dir]\nverl = "legacy_verl"\n',
        "setup_env.sh": f"pip install -e {fork}\n",
    })
    _apply_leaves_it_running(root, f"pkgdir:{fork}/legacy_verl")
    found = [f for f in _check(root) if f["filename"].endswith("train.py")]
    assert [(f["code"], (f["fix"] or {}).get("applicability")) for f in found] == [
        ("PPO001", "unsafe"), ("PPO002", None)], found
    _names_the_copy(found[0], root, f"{fork}/legacy_verl/trainer/constants_ppo.py")


@pytest.mark.parametrize("lib", ["build/lib", "build/lib.linux-x86_64-cpython-311"])
def test_a_stale_build_copy_is_stray_though_the_walk_skips_build(tmp_path: Path, lib: str) -> None:
    """setuptools' ``build/lib*/verl`` (git-ignored, as builds are) is a copy of the release
    it was built from: the walk does not enter ``build/``, but a copy there makes the fix
    unsafe, naming it; a plain apply leaves the call and the launcher keeps running."""
    root = _tree(tmp_path / "proj", {**_copy(lib), ".gitignore": "build/\n"})
    _apply_leaves_it_running(root, f"env:{lib}")
    found = [f for f in _check(root) if f["filename"].endswith("train.py")]
    assert [(f["code"], (f["fix"] or {}).get("applicability")) for f in found] == [
        ("PPO001", "unsafe"), ("PPO002", None)], found
    _names_the_copy(found[0], root, f"{lib}/verl/trainer/constants_ppo.py")


@pytest.mark.parametrize("where", ["sub", "."])
def test_a_sub_project_s_settings_do_not_hide_the_root_copy(tmp_path: Path, where: str) -> None:
    """A git repository whose top level holds a verl 0.8 copy, and a sub-project with its
    own ``[tool.ppo-migrate]`` settings and a ``verl>=0.9`` pin. Run from the top level as
    ``python -m sub.train``, the launcher imports the root copy; the settings' folder used
    to end the search for copies, so the pin decided and the rewrite raised TypeError.
    The repository (the git top level) is searched whatever folder the settings are in:
    the fix is unsafe, naming the root copy, from either working directory."""
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    files = {
        **_copy("."),
        "sub/__init__.py": "",
        "sub/pyproject.toml": '[project]\nname = "sub"\nversion = "0"\ndependencies = ["verl>=0.9"]\n\n[tool.ppo-migrate]\n',
        "sub/train.py": LAUNCHER,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    cwd = root / where
    target = "train.py" if where == "sub" else "sub"
    proc = warm_python.run([sys.executable, "-m", "sub.train"], cwd=root, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and BEFORE in proc.stdout, proc.stderr
    found = [f for f in _check(root, target, cwd=cwd) if f["filename"].endswith("train.py")]
    assert [(f["code"], (f["fix"] or {}).get("applicability")) for f in found] == [
        ("PPO001", "unsafe"), ("PPO002", None)], found
    assert found[0]["reason"]["kind"] == "uncertain-definition"
    _names_the_copy(found[0], root, "verl/trainer/constants_ppo.py")
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, target, cwd=cwd)
        assert proc.returncode == 0, proc.stderr
        assert (root / "sub/train.py").read_text() == LAUNCHER
    proc = warm_python.run([sys.executable, "-m", "sub.train"], cwd=root, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and BEFORE in proc.stdout, proc.stderr


@pytest.mark.parametrize("folder", ["fixtures/legacy", "examples/testdata/old", "test_data"])
def test_a_copy_in_test_data_changes_nothing(tmp_path: Path, folder: str) -> None:
    """The test-data rule: a copy under ``fixtures/``, ``testdata/``, ``test_data/`` is
    input of the project's own tests (as this repository's ``fixtures/callee/``): the pin
    decides, the fix stays safe and the rewritten launcher runs against verl 0.9."""
    root = _tree(tmp_path / "proj", _copy(folder))
    (stub := tmp_path / "site").mkdir()
    for rel, text in _copy(".", VERL_09).items():
        (stub / rel).parent.mkdir(parents=True, exist_ok=True)
        (stub / rel).write_text(text)
    found = [f for f in _check(root) if f["filename"].endswith("train.py")]
    assert [(f["code"], (f["fix"] or {}).get("applicability")) for f in found] == [
        ("PPO001", "safe"), ("PPO002", None)], found
    proc = run_cli("apply", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert _runs(root, f"env:{stub}") == "ran ({'trainer': 2}, None)"


def test_a_fake_package_a_conftest_declares_is_an_unsafe_fix_not_a_notice(tmp_path: Path) -> None:
    """A copy under a folder of test doubles that a ``conftest.py`` puts first on the path is
    a fake for the tests: the fix is unsafe (the doubles table's rule), naming the fake."""
    root = _tree(tmp_path / "proj", {
        **_copy("tests/fakes"),
        "tests/conftest.py": "import pathlib\nimport sys\n\nsys.path.insert(0, str(pathlib.Path(__file__).parent / 'fakes'))\n",
    })
    found = [f for f in _check(root) if f["filename"].endswith("scripts/train.py")]
    assert [(f["code"], (f["fix"] or {}).get("applicability")) for f in found] == [
        ("PPO001", "unsafe"), ("PPO002", None)], found
    assert "tests/fakes/verl/trainer/constants_ppo.py:4" in found[0]["message"], found[0]["message"]


def test_a_sample_project_in_test_data_is_judged_on_its_own(tmp_path: Path) -> None:
    """A file inside test data belongs to its sample project (the highest folder with a marker
    below ``fixtures/``), walked on its own: its own stray copy makes its fix unsafe; another
    sample's copy and the repository's code outside test data are not touched by it (this
    repository's ``fixtures/callee/legacy`` beside ``fixtures/callee/migrated``)."""
    root = _tree(tmp_path / "proj", {
        "fixtures/a/requirements.txt": "verl>=0.9\n", "fixtures/a/train.py": LAUNCHER, **_copy("fixtures/a/libs"),
        "fixtures/b/requirements.txt": "verl>=0.9\n", "fixtures/b/train.py": LAUNCHER,
    })
    found = {(Path(f["filename"]).resolve().relative_to(root.resolve()).as_posix(), f["code"]):
             (f["fix"] or {}).get("applicability") for f in _check(root)}
    assert found == {
        ("fixtures/a/train.py", "PPO001"): "unsafe", ("fixtures/a/train.py", "PPO002"): None,
        ("fixtures/b/train.py", "PPO001"): "safe", ("fixtures/b/train.py", "PPO002"): None,
        ("scripts/train.py", "PPO001"): "safe", ("scripts/train.py", "PPO002"): None,
    }, found
    (unsafe,) = [f for f in _check(root, "fixtures/a") if f["code"] == "PPO001"]
    _names_the_copy(unsafe, root, "fixtures/a/libs/verl/trainer/constants_ppo.py")
    assert _runs(root / "fixtures" / "a", "env:libs", "train.py") == BEFORE


def test_the_walk_never_opens_a_fifo(tmp_path: Path) -> None:
    """A FIFO named like a file the walk reads (``*.py``, ``Makefile``, ``x.pth``) is not
    listed and never opened: opening one blocks until a writer comes (test_safety's bad tree
    hung ``check --jobs 2`` here). The run ends, the stray copy still found."""
    from ppo_migrate.project import import_roots, tree

    root = _tree(tmp_path / "proj", _copy("libs"))
    for name in ("fifo.py", "Makefile", "x.pth", "docker/Dockerfile"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(root / name)
    tree._LISTINGS.clear()
    listing = tree.repository_listing(root)
    assert "fifo.py" not in listing.folders[str(root)] and "Makefile" not in listing.folders[str(root)]
    assert import_roots._read(str(root / "fifo.py")) is None
    proc = subprocess.run(
        [sys.executable, "-m", "ppo_migrate", "check", "--output-format", "json", "--exit-zero", "--jobs", "2", "."],
        cwd=root, capture_output=True, text=True, timeout=120,
    )
    found = [f for f in json.loads(proc.stdout) if f["filename"].endswith("train.py")]
    assert [(f["code"], (f["fix"] or {}).get("applicability")) for f in found] == [
        ("PPO001", "unsafe"), ("PPO002", None)], found


REJECTED = (
    "from omegaconf import OmegaConf\n"
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
    "\n"
    "\n"
    "def helper():\n"
    "    config = 'tokenizer.json'  # a candidate the evidence rejects\n"
    "    return get_ppo_ray_runtime_env()\n"
    "\n"
    "\n"
    "def launch(config):\n"
    "    return helper()\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    print('ran', launch(OmegaConf.create({'trainer': 2})))\n"
)


@pytest.mark.parametrize("case", ["stray-copy", "nothing-declared"])
def test_thread_config_never_threads_into_a_callee_not_known_to_take_it(tmp_path: Path, case: str) -> None:
    """A PPO002 whose scope also has a rejected candidate gave that evidence as its reason,
    so ``--thread-config`` (which reads the reason) threaded a config into a call whose
    callee was not known to take one: ``TypeError``. The callee's uncertainty is the reason."""
    root = _tree(tmp_path / "proj", {"scripts/train.py": REJECTED, **(_copy("libs") if case == "stray-copy" else {})})
    how = "env:libs"
    if case == "nothing-declared":  # no pin; the interpreter's verl (outside the tree) is 0.8
        (root / "requirements.txt").unlink()
        for rel, text in _copy(str(tmp_path / "site")).items():
            Path(rel).parent.mkdir(parents=True, exist_ok=True)
            Path(rel).write_text(text)
        how = f"env:{tmp_path / 'site'}"
    before = (root / "scripts/train.py").read_text()
    assert _runs(root, how) == "ran None"
    found = [f for f in _check(root) if f["filename"].endswith("train.py")]
    assert [f["code"] for f in found] == ["PPO002"], found
    kind = "uncertain-definition" if case == "stray-copy" else "newest-assumed"
    assert found[0]["reason"]["kind"] == kind, found[0]["reason"]
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert (root / "scripts/train.py").read_text() == before
        assert _runs(root, how) == "ran None"
