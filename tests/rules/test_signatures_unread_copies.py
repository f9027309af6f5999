"""Issue 26, family 1, trial 26b: copies of verl the tool could not read.

Each tree runs before ``apply``; a plain ``apply`` (and ``apply --thread-config``) used to
pass the config to a verl 0.8 definition that the tool had not read, and the launcher then
raised ``TypeError``. Each case is *executed* before and after both applies, and ``check``
must say why it leaves the call (the finding's code and the file:line the reason names):

* a path on ``sys.path`` spelled with ``os.pardir`` / ``os.sep``, ``'%s/x' % HERE``,
  ``Path(__file__).with_name(...)``, ``os.path.join(*[...])`` or ``os.environ.get(NAME,
  default)`` is evaluated like its literal spelling;
* a module present only as ``.pyc`` (or as an extension module) cannot be read: PPO005;
* any file on ``sys.path`` is a zip archive to Python's import system whatever its name
  (``.bundle``, ``.pyz``): read inside;
* a package whose ``__init__.py`` changes ``__path__`` (``insert``, an assignment,
  ``pkgutil.extend_path`` when its own folder lacks the module) decides which file is
  imported in a way the tool does not read: PPO005 naming that line;
* an in-tree copy decided, a stray old copy lies in the repository, and a Python file puts
  a folder the tool cannot evaluate on ``sys.path`` (a helper's parameter, ``paths.json``):
  the fix is unsafe, naming the copy and the statement;
* trial 26c (D): a copy in a folder git ignores (cloned there by a setup step, put first on
  the path by ``cd X && python -m``, direnv, VS Code's or a workflow's ``PYTHONPATH``), and
  the verl of the repository's ``.venv``, count as stray copies: the fix is unsafe, naming
  the copy and the ignored folder or the environment; trial 26d: so does a clone whose top
  folder is named ``verl``, one under a hidden folder (``.deps/checkouts/volcengine/verl``),
  four levels down, or in a folder the walk skips by name (``__pypackages__/``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import (
    LAUNCHER,
    VERL_08,
    VERL_09,
    launcher_ran,
    only_finding,
    run_cli,
    verl_stub,
    write_tree,
)

#: the old copy's definition sits on line 3, so that a reason naming line 1 would fail
OLD = "import os\n\n" + VERL_08
OLD_LINE = 3
BEFORE = "ran None"


def _copy(prefix: str, body: str = OLD) -> dict[str, str]:
    prefix = f"{prefix}/" if prefix else ""
    return {
        f"{prefix}verl/__init__.py": "",
        f"{prefix}verl/trainer/__init__.py": "",
        f"{prefix}verl/trainer/constants_ppo.py": body,
    }


_tree = write_tree


def _runs(root: Path, cmd: list[str]) -> str:
    """The ``ran ...`` line of ``python cmd`` in ``root``, no ``PYTHONPATH``, no pytest plugins."""
    return launcher_ran(root, None, cmd, env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})


def _apply_leaves_it_running(root: Path, cmd: list[str], launcher: str) -> None:
    before = (root / launcher).read_text()
    assert _runs(root, cmd) == BEFORE
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert (root / launcher).read_text() == before
        assert _runs(root, cmd) == BEFORE


_finding = only_finding


# -- paths spelled with os.pardir, '%s' % HERE, HERE + os.sep, with_name, join(*[...]) ----------

TEST_LAUNCH = (
    "from omegaconf import OmegaConf\nimport launcher\n\n\n"
    "def test_launch():\n    print('ran', launcher.launch(OmegaConf.create({'trainer': 2})))\n"
)

#: spelling -> the line that puts ``vendor`` (beside ``train.py``) first on the path
SPELLINGS = {
    "percent-format": "HERE = os.path.dirname(os.path.abspath(__file__))\nsys.path.insert(0, '%s/vendor' % HERE)",
    "str-concat-os-sep": "HERE = os.path.dirname(os.path.abspath(__file__))\nsys.path.insert(0, HERE + os.sep + 'vendor')",
    "with-name": "sys.path.insert(0, str(Path(__file__).with_name('vendor')))",
    "join-star-list": "sys.path.insert(0, os.path.join(*[os.path.dirname(os.path.abspath(__file__)), 'vendor']))",
    "environ-default": "sys.path.insert(0, os.environ.get('VERL_VENDOR_DIR', 'vendor'))",
}


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_a_path_spelled_another_way_is_evaluated(tmp_path: Path, spelling: str) -> None:
    """The root ``verl/`` takes a config, an old ``vendor/verl`` is put first on the path by
    ``spelling``: PPO005 naming the old definition and the declaring line."""
    head = "import os\nimport sys\nfrom pathlib import Path\n" + SPELLINGS[spelling] + "\n"
    line = head.count("\n")
    root = _tree(tmp_path / "proj", {**_copy(""), **_copy("vendor"), "train.py": head + LAUNCHER})
    (root / "verl/trainer/constants_ppo.py").write_text(VERL_09)
    _apply_leaves_it_running(root, ["train.py"], "train.py")
    found = _finding(root, "train.py")
    assert found["code"] == "PPO005", found
    assert f"`vendor/verl/trainer/constants_ppo.py:{OLD_LINE}`" in found["message"], found["message"]
    assert f"`train.py:{line}`" in found["message"], found["message"]


#: trial 26d: a package's ``__init__.py`` puts its own folder first on the path (pip's
#: ``_vendor`` style); spelling -> the ``__init__.py`` text
OWN_FOLDER = {
    "dunder-path": "import sys\n\nsys.path.insert(0, __path__[0])\n",
    "spec-locations": "import sys\n\nsys.path.insert(0, __spec__.submodule_search_locations[0])\n",
    "resources-files": "import importlib.resources\nimport sys\nsys.path.insert(0, str(importlib.resources.files(__name__)))\n",
}
#: a call inside the vendored copy itself (its ``main_ppo.py``): bound to that copy
VENDORED_MAIN = (
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def run_ppo(config):\n    return get_ppo_ray_runtime_env()\n"
)


@pytest.mark.parametrize("spelling", sorted(OWN_FOLDER))
def test_a_package_putting_its_own_folder_on_the_path(tmp_path: Path, spelling: str) -> None:
    """``myproj/_vendor/__init__.py`` puts ``myproj/_vendor`` (holding a verl 0.8 copy) first
    on the path by ``spelling``; ``pyproject.toml`` asks for verl>=0.9.0. Read as
    ``os.path.dirname(__file__)``: PPO005 for the launcher, naming the ``__init__.py`` line,
    and for the vendored copy's own call (its own copy); the launcher runs before and after
    both applies (a plain ``apply`` rewrote both calls, trial 26d)."""
    root = _tree(tmp_path / "proj", {
        "pyproject.toml": '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n',
        "myproj/__init__.py": "from . import _vendor  # noqa: F401\n",
        "myproj/_vendor/__init__.py": OWN_FOLDER[spelling],
        **_copy("myproj/_vendor"),
        "myproj/_vendor/verl/trainer/main_ppo.py": VENDORED_MAIN,
        "train.py": "import myproj  # noqa: F401\n" + LAUNCHER,
    })
    main = (root / "myproj/_vendor/verl/trainer/main_ppo.py").read_text()
    _apply_leaves_it_running(root, ["train.py"], "train.py")
    assert (root / "myproj/_vendor/verl/trainer/main_ppo.py").read_text() == main
    for launcher in ("train.py", "main_ppo.py"):
        found = _finding(root, launcher)
        assert found["code"] == "PPO005", found
        assert f"`myproj/_vendor/verl/trainer/constants_ppo.py:{OLD_LINE}`" in found["message"], found["message"]
        if launcher == "train.py":  # the vendored copy's own call: its own copy decides
            assert "at `myproj/_vendor/__init__.py:3` puts `myproj/_vendor` on sys.path" in found["message"], found["message"]


@pytest.mark.parametrize("pin", [True, False])
def test_a_call_inside_a_vendored_copy_binds_to_that_copy(tmp_path: Path, pin: bool) -> None:
    """``myproj/_vendor/verl/`` (verl 0.8, under a package: ``myproj._vendor.verl``) with
    nothing the tool reads putting it on the path: its own ``main_ppo.py`` imports
    ``verl.*`` absolutely, so it runs only with ``myproj/_vendor`` first on the path, where
    its own zero-argument definition is the one in effect: PPO005 naming it, pin or not,
    and the vendored code runs after both applies as before (trial 26d: rewritten against
    the pin)."""
    files = {"myproj/__init__.py": "", "myproj/_vendor/__init__.py": "", **_copy("myproj/_vendor"),
             "myproj/_vendor/verl/trainer/main_ppo.py": VENDORED_MAIN}
    if pin:
        files["pyproject.toml"] = PROJECT_09
    root = _tree(tmp_path / "proj", files)
    main = root / "myproj/_vendor/verl/trainer/main_ppo.py"
    text = main.read_text()
    code = "import sys; sys.path.insert(0, 'myproj/_vendor'); from verl.trainer.main_ppo import run_ppo; print('ran', run_ppo({}))"
    assert _runs(root, ["-c", code]) == BEFORE
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert main.read_text() == text
        assert _runs(root, ["-c", code]) == BEFORE
    found = _finding(root, "main_ppo.py")
    assert found["code"] == "PPO005", found
    assert f"`myproj/_vendor/verl/trainer/constants_ppo.py:{OLD_LINE}`" in found["message"], found["message"]


def test_the_own_folder_is_read_in_a_package_init_only() -> None:
    """``__path__[0]`` names the package's folder in its ``__init__.py``; elsewhere (a module
    has no ``__path__``) it is not read."""
    import ast

    from ppo_migrate.project.path_expr import PathEvaluator

    def value(text: str, path: str) -> str | None:
        return PathEvaluator(path, lambda _: None)(ast.parse(text, mode="eval").body)

    assert value("__path__[0]", "/r/pkg/_vendor/__init__.py") == "/r/pkg/_vendor"
    assert value("__spec__.submodule_search_locations[0]", "/r/pkg/__init__.py") == "/r/pkg"
    assert value("str(importlib.resources.files(__name__))", "/r/pkg/__init__.py") == "/r/pkg"
    assert value("__path__[0]", "/r/pkg/mod.py") is None
    assert value("__path__[1]", "/r/pkg/__init__.py") is None
    assert value("importlib.resources.files('other')", "/r/pkg/__init__.py") is None


def test_os_pardir_in_a_conftest_path_is_read_as_dot_dot(tmp_path: Path) -> None:
    """``tests/conftest.py`` puts ``tests/../qa/pkgs`` (spelled with ``os.pardir``) first on
    the path, where an old verl lies; the root ``verl/`` takes a config. The pytest run
    imports the old one: PPO005 naming it and the conftest's line."""
    root = _tree(tmp_path / "proj", {
        **_copy(""), **_copy("qa/pkgs"),
        "pyproject.toml": '[project]\nname = "t"\nversion = "0"\n',
        "launcher.py": LAUNCHER,
        "tests/conftest.py": "import os\nimport sys\n\n"
                             "sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, 'qa', 'pkgs'))\n",
        "tests/test_launch.py": TEST_LAUNCH,
    })
    (root / "verl/trainer/constants_ppo.py").write_text(VERL_09)
    cmd = ["-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "-o", "addopts=", "tests/test_launch.py"]
    _apply_leaves_it_running(root, cmd, "launcher.py")
    found = _finding(root, "launcher.py")
    assert found["code"] == "PPO005", found
    assert f"`qa/pkgs/verl/trainer/constants_ppo.py:{OLD_LINE}`" in found["message"], found["message"]
    assert "`tests/conftest.py:4`" in found["message"], found["message"]


# -- a module present only as bytecode, or as an extension module --------------------------------


def test_a_sourceless_pyc_is_a_copy_that_cannot_be_read(tmp_path: Path) -> None:
    """``verl/trainer/constants_ppo.pyc`` alone (compiled from verl 0.8, no ``.py``), and
    ``requirements.txt`` says ``verl>=0.9.0``: Python imports the bytecode, so the pin does
    not decide; PPO005 naming the ``.pyc``."""
    import py_compile

    files = _copy("")
    root = _tree(tmp_path / "proj", {**files, "requirements.txt": "verl>=0.9.0\n", "train.py": LAUNCHER})
    source = root / "verl/trainer/constants_ppo.py"
    py_compile.compile(str(source), cfile=str(source.with_suffix(".pyc")), doraise=True)
    source.unlink()
    _apply_leaves_it_running(root, ["train.py"], "train.py")
    found = _finding(root, "train.py")
    assert found["code"] == "PPO005", found
    assert found["reason"]["kind"] == "uncertain-definition"
    assert "`verl/trainer/constants_ppo.pyc:1`" in found["message"], found["message"]


@pytest.mark.parametrize("name", ["constants_ppo.cpython-311-x86_64-linux-gnu.so", "constants_ppo.pyd"])
def test_an_extension_module_beats_the_source_beside_it(tmp_path: Path, name: str) -> None:
    """An extension module is tried before ``constants_ppo.py`` by Python's path finder: the
    0.9 source beside it is not what runs, so PPO005 names the extension module (not
    executed: no compiler here to build one)."""
    root = _tree(tmp_path / "proj", {**_copy("", VERL_09), "requirements.txt": "verl>=0.9.0\n", "train.py": LAUNCHER})
    (root / "verl/trainer" / name).write_bytes(b"\x7fELF")
    found = _finding(root, "train.py")
    assert found["code"] == "PPO005", found
    assert f"`verl/trainer/{name}:1`" in found["message"], found["message"]


def test_a_pyc_beside_its_source_is_not_what_runs(tmp_path: Path) -> None:
    """No over-caution: a ``.pyc`` beside its ``.py`` (the source wins) changes nothing."""
    root = _tree(tmp_path / "proj", {**_copy("", VERL_09), "train.py": LAUNCHER})
    (root / "verl/trainer/constants_ppo.pyc").write_bytes(b"")
    found = _finding(root, "train.py")
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "safe"), found


# -- a zip archive on sys.path whatever its name ---------------------------------------------------


def _zip(path: Path, files: dict[str, str], shebang: bool = False) -> None:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((b"#!/usr/bin/env python3\n" if shebang else b"") + buffer.getvalue())


@pytest.mark.parametrize("archive", ["vendor/verl-0.8.0.bundle", "vendor/verl.pyz"])
def test_a_zip_archive_of_any_name_is_read_inside(tmp_path: Path, archive: str) -> None:
    """``sys.path.insert(0, .../vendor/verl-0.8.0.bundle)`` (or a ``.pyz`` with a shebang
    line): Python imports verl 0.8 from the archive whatever its suffix, ahead of the pin
    ``verl>=0.9.0``. PPO005 naming the member's line and the declaring line."""
    head = f"import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), {archive!r}))\n"
    root = _tree(tmp_path / "proj", {"requirements.txt": "verl>=0.9.0\n", "train.py": head + LAUNCHER})
    _zip(root / archive, _copy(""), shebang=archive.endswith(".pyz"))
    _apply_leaves_it_running(root, ["train.py"], "train.py")
    found = _finding(root, "train.py")
    assert found["code"] == "PPO005", found
    assert f"`{archive}/verl/trainer/constants_ppo.py:{OLD_LINE}`" in found["message"], found["message"]
    assert "`train.py:2`" in found["message"], found["message"]


def test_a_file_on_the_path_that_is_no_zip(tmp_path: Path) -> None:
    """A file on ``sys.path`` that is no zip: named for verl, what it holds cannot be told
    (PPO005 naming it and the declaring line); named otherwise, Python's import system skips
    it and the pin decides (a safe fix)."""
    head = "import sys\nsys.path.insert(0, 'vendor/verl.bundle')\nsys.path.insert(0, 'tools/run.cfg')\n"
    root = _tree(tmp_path / "proj", {"requirements.txt": "verl>=0.9.0\n", "train.py": head + LAUNCHER,
                                     "vendor/verl.bundle": "not a zip\n", "tools/run.cfg": "[x]\n"})
    found = _finding(root, "train.py")
    assert found["code"] == "PPO005", found
    assert "`vendor/verl.bundle:1`" in found["message"] and "`train.py:2`" in found["message"], found["message"]
    (root / "vendor/verl.bundle").unlink()
    found = _finding(root, "train.py")
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "safe"), found


# -- a package that changes its __path__ -------------------------------------------------------------

#: case -> (files besides the root verl 0.9 copy, the package __init__ that changes __path__, its line)
OVERLAYS = {
    "verl-insert-pardir": ({
        "verl/__init__.py": "import os\n__path__.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, 'overlay', 'verl'))\n",
        "overlay/verl/trainer/__init__.py": "", "overlay/verl/trainer/constants_ppo.py": OLD,
    }, "verl/__init__.py", 2),
    "trainer-insert": ({
        "verl/trainer/__init__.py": "import os\n\n__path__.insert(0, os.path.join(os.path.dirname(__file__), '_legacy'))\n",
        "verl/trainer/_legacy/constants_ppo.py": OLD,
    }, "verl/trainer/__init__.py", 3),
    "trainer-assign": ({
        "verl/trainer/__init__.py": "import os\n__path__ = [os.path.join(os.path.dirname(__file__), '_legacy')] + __path__\n",
        "verl/trainer/_legacy/constants_ppo.py": OLD,
    }, "verl/trainer/__init__.py", 2),
    "append-elsewhere": ({  # the own folder lacks the module: it comes from the appended one
        "verl/trainer/__init__.py": "import os\n__path__.append(os.path.join(os.path.dirname(__file__), '_legacy'))\n",
        "verl/trainer/constants_ppo.py": None,
        "verl/trainer/_legacy/constants_ppo.py": OLD,
    }, "verl/trainer/__init__.py", 2),
}


@pytest.mark.parametrize("case", sorted(OVERLAYS))
def test_a_package_changing_its_path_makes_the_module_unreadable(tmp_path: Path, case: str) -> None:
    """The root verl's ``constants_ppo.py`` takes a config, but ``verl/__init__.py`` (or
    ``verl/trainer/__init__.py``) changes ``__path__`` so that an old ``constants_ppo`` is
    imported: PPO005 naming the line that changes ``__path__``."""
    extra, init, line = OVERLAYS[case]
    files = {**_copy("", VERL_09), "train.py": LAUNCHER, **{k: v for k, v in extra.items() if v is not None}}
    root = _tree(tmp_path / "proj", files)
    for k, v in extra.items():
        if v is None:
            (root / k).unlink()
    _apply_leaves_it_running(root, ["train.py"], "train.py")
    found = _finding(root, "train.py")
    assert found["code"] == "PPO005", found
    assert f"`{init}:{line}`" in found["message"], found["message"]
    assert "__path__" in found["message"], found["message"]


def test_a_path_appended_after_the_own_folder_changes_nothing(tmp_path: Path) -> None:
    """No over-caution: ``__path__.append(...)`` (or ``pkgutil.extend_path``) adds folders
    *after* the package's own, which holds ``constants_ppo.py`` (verl 0.9): that one is
    imported, the fix is safe and the rewritten launcher runs."""
    root = _tree(tmp_path / "proj", {
        **_copy("", VERL_09), "train.py": LAUNCHER,
        "verl/trainer/__init__.py": "import os, pkgutil\n__path__ = pkgutil.extend_path(__path__, __name__)\n"
                                    "__path__.append(os.path.join(os.path.dirname(__file__), '_legacy'))\n",
        "verl/trainer/_legacy/constants_ppo.py": OLD,
    })
    found = _finding(root, "train.py")
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "safe"), found
    proc = run_cli("apply", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert _runs(root, ["train.py"]) == "ran {'trainer': 2}"


# -- an in-tree copy decided, a sys.path change the tool cannot evaluate, a stray old copy ------------

#: case -> (the launcher's head, the line of the sys.path change, extra files)
OPAQUE = {
    "helper-function": (
        "import os, sys\n\n\ndef _add(p):\n    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), p))\n\n\n"
        "_add('vendor')\n", 5, {}),
    "paths-from-json": (
        "import json, os, sys\nHERE = os.path.dirname(os.path.abspath(__file__))\n"
        "for p in json.load(open(os.path.join(HERE, 'paths.json'))):\n    sys.path.insert(0, os.path.join(HERE, p))\n",
        4, {"paths.json": '["vendor"]\n'}),
}


@pytest.mark.parametrize("case", sorted(OPAQUE))
def test_an_unreadable_sys_path_change_makes_a_stray_copy_count(tmp_path: Path, case: str) -> None:
    """The root ``verl/`` takes a config and decides, but the launcher puts ``vendor`` (an
    old copy) first on the path by a value the tool cannot evaluate (a helper's parameter,
    paths read from ``paths.json``): the fix is unsafe, its reason naming the old copy's
    definition and the sys.path change; a plain apply leaves the call."""
    head, line, extra = OPAQUE[case]
    root = _tree(tmp_path / "proj", {**_copy("", VERL_09), **_copy("vendor"), "train.py": head + LAUNCHER, **extra})
    _apply_leaves_it_running(root, ["train.py"], "train.py")
    found = _finding(root, "train.py")
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "unsafe"), found
    assert found["reason"]["kind"] == "uncertain-definition"
    assert [(Path(p["filename"]).resolve().relative_to(root.resolve()).as_posix(), p["location"]["row"])
            for p in found["reason"]["lines"]] == [
        ("vendor/verl/trainer/constants_ppo.py", OLD_LINE), ("train.py", line)], found["reason"]
    assert f"`vendor/verl/trainer/constants_ppo.py:{OLD_LINE}`" in found["message"], found["message"]
    assert f"`train.py:{line}`" in found["message"], found["message"]


@pytest.mark.parametrize("head", [
    "",  # nothing changes sys.path: the in-tree copy decides, whatever stray copy lies around
    "import os, sys\nsys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\n",  # evaluated: no copy there
    "import os, sys\nsys.path.insert(0, os.environ.get('PYTHONPATH', ''))\n",  # reads PYTHONPATH: adds nothing
])
def test_an_in_tree_decision_stays_safe_without_an_unreadable_change(tmp_path: Path, head: str) -> None:
    """No over-caution: with a stray old copy but no sys.path change the tool cannot
    evaluate, the root copy decides and the fix stays safe; the rewritten launcher runs."""
    root = _tree(tmp_path / "proj", {**_copy("", VERL_09), **_copy("libs"), "train.py": head + LAUNCHER})
    found = _finding(root, "train.py")
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "safe"), found
    proc = run_cli("apply", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert _runs(root, ["train.py"]) == "ran {'trainer': 2}"


# -- a copy in a folder git ignores, or in the repository's virtual environment (trial 26c, D) -------
# ``.gitignore`` decides which files are analysed, not which verl may be in effect: a setup
# script clones verl into an ignored folder, and a launch step the tool does not read puts it
# first on the path. Each case runs the launcher as that step would (the folder ``cd`` makes
# the working directory of ``python -m``, the PYTHONPATH direnv, VS Code or the workflow sets).

PROJECT_09 = '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n'
#: case -> (files, launcher, working directory of the run, PYTHONPATH of the run, the
#: copy's folder, the ignored folder the reason names)
IGNORED: dict[str, tuple[dict[str, str], str, str, tuple[str, ...], str, str]] = {
    "cd-then-python-m": ({
        ".gitignore": "/work/\n__pycache__/\n", "app/__init__.py": "", "app/train.py": LAUNCHER,
        "run.sh": 'ROOT=$(pwd)\ncd work/rl && PYTHONPATH=$ROOT python -m app.train\n',
    }, "app/train.py", "work/rl", (".",), "work/rl", "work"),
    "direnv-path-add": ({
        ".gitignore": "/libs/\n", "train.py": LAUNCHER, ".envrc": "path_add PYTHONPATH libs/rlcore\n",
    }, "train.py", ".", ("libs/rlcore",), "libs/rlcore", "libs"),
    "vscode-workspace-folder": ({
        ".gitignore": "/deps/\n", "train.py": LAUNCHER,
        ".vscode/settings.json": '{"terminal.integrated.env.linux": {"PYTHONPATH": "${workspaceFolder}/deps/rl"}}\n',
    }, "train.py", ".", ("deps/rl",), "deps/rl", "deps"),
    "workflow-github-workspace": ({
        ".gitignore": "deps/\n", "train.py": LAUNCHER,
        ".github/workflows/train.yml": "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    env:\n"
                                       "      PYTHONPATH: ${{ github.workspace }}/deps/rl\n    steps:\n      - run: python train.py\n",
    }, "train.py", ".", ("deps/rl",), "deps/rl", "deps"),
    "ignored-package-folder-itself": ({  # no packaging file beside it: a plain folder
        ".gitignore": "third_party/verl/\n", "train.py": LAUNCHER,
        # a value the tool does not evaluate (``"third""_party"`` is read since trial 26e)
        "tools/run.sh": 'cd "$(dirname "$0")/.." && PYTHONPATH="$(echo third_party)" python train.py\n',
    }, "train.py", ".", ("third_party",), "third_party", "third_party/verl"),
    # trial 26d: a clone's top folder named ``verl`` (holding ``verl/``), under a hidden
    # folder, deeper than three levels, or in a folder the walk skips by name
    "pth-written-by-script": ({
        ".gitignore": "/vendor/src/\n", "train.py": LAUNCHER, "vendor/src/github/verl/setup.py": "",
        "scripts/dev_setup.sh": "git clone https://example.invalid/verl vendor/src/github/verl\n"
                                'echo "$PWD/vendor/src/github/verl" > "$SITE/verl-dev.pth"\n',
    }, "train.py", ".", ("vendor/src/github/verl",), "vendor/src/github/verl", "vendor/src"),
    "hidden-deep-devcontainer": ({
        ".gitignore": "/.deps/\n", "train.py": LAUNCHER, ".deps/checkouts/volcengine/verl/setup.py": "",
        ".devcontainer/clone.sh": "git clone https://example.invalid/verl .deps/checkouts/volcengine/verl\n",
    }, "train.py", ".", (".deps/checkouts/volcengine/verl",), ".deps/checkouts/volcengine/verl", ".deps"),
    "gopath-layout-four-deep": ({
        ".gitignore": "/build-deps/\n", "train.py": LAUNCHER,
    }, "train.py", ".", ("build-deps/src/github.com/volcengine/verl",),
        "build-deps/src/github.com/volcengine/verl", "build-deps"),
    "pep582-pypackages": ({  # skipped by name (ruff's excludes), not ignored by git
        "train.py": LAUNCHER,
    }, "train.py", ".", ("__pypackages__/3.11/lib",), "__pypackages__/3.11/lib", "__pypackages__"),
}
#: the cases whose folder the walk skips by name (not one git ignores)
SKIPPED_BY_NAME = frozenset({"pep582-pypackages"})


def _runs_as(root: Path, cmd: list[str], cwd: str, pythonpath: tuple[str, ...], python: str = sys.executable) -> str:
    """The launcher's ``ran ...`` line, run from ``root/cwd`` with ``root/p`` for each ``p``
    of ``pythonpath`` on ``PYTHONPATH``."""
    return launcher_ran(root, None, cmd, pythonpath=[root / p for p in pythonpath], cwd=root / cwd, python=python)


@pytest.mark.parametrize("case", sorted(IGNORED))
def test_a_copy_in_a_folder_git_ignores_makes_the_fix_unsafe(tmp_path: Path, case: str) -> None:
    """``pyproject.toml`` declares ``verl>=0.9.0``; an old copy lies in a folder git ignores,
    put first on the path by a step the tool does not read: the launcher runs before and
    after both applies, and ``check`` gives an unsafe fix naming the copy's definition and the
    ignored folder (before trial 26c: a safe fix, and ``TypeError`` after ``apply``)."""
    files, launcher, cwd, pythonpath, copy, ignored = IGNORED[case]
    root = _tree(tmp_path / "proj", {"pyproject.toml": PROJECT_09, **_copy(copy), **files})
    cmd = ["-m", launcher[:-3].replace("/", ".")] if cwd != "." else [launcher]
    before = (root / launcher).read_text()
    assert _runs_as(root, cmd, cwd, pythonpath) == BEFORE
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert (root / launcher).read_text() == before
        assert _runs_as(root, cmd, cwd, pythonpath) == BEFORE
    found = _finding(root, launcher)
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "unsafe"), found
    assert found["reason"]["kind"] == "uncertain-definition"
    assert [(Path(p["filename"]).resolve().relative_to(root.resolve()).as_posix(), p["location"]["row"])
            for p in found["reason"]["lines"]] == [(f"{copy}/verl/trainer/constants_ppo.py", OLD_LINE)], found["reason"]
    assert f"`{copy}/verl/trainer/constants_ppo.py:{OLD_LINE}`" in found["message"], found["message"]
    which = "which the analysis skips" if case in SKIPPED_BY_NAME else "which git ignores"
    assert f"a copy in `{ignored}`, {which}" in found["message"], found["message"]
    assert "`pyproject.toml:4 verl>=0.9.0`" in found["message"], found["message"]


def _venv(root: Path, body: str = OLD) -> Path:
    """A real virtual environment ``root/.venv`` (no pip; the system's packages visible, for
    omegaconf) whose ``site-packages`` holds a verl defined by ``body``; its interpreter."""
    import venv

    venv.EnvBuilder(system_site_packages=True, with_pip=False, symlinks=True).create(root / ".venv")
    (site,) = (root / ".venv" / "lib").glob("python*/site-packages")
    for name, text in _copy("", body).items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    return root / ".venv" / "bin" / "python"


def test_verl_in_the_repositorys_virtual_environment_makes_the_fix_unsafe(tmp_path: Path) -> None:
    """Decided (trial 26c, D): a ``.venv`` in the repository is the interpreter a project run
    with it uses (``uv run``, an activated environment), so its verl 0.8 may be the one in
    effect although ``pyproject.toml`` asks for 0.9: an unsafe fix naming the environment's
    definition. The launcher, run by that interpreter, runs before and after both applies."""
    root = _tree(tmp_path / "proj", {"pyproject.toml": PROJECT_09, "train.py": LAUNCHER, ".gitignore": ".venv/\n"})
    python = str(_venv(root))
    (site,) = [p.relative_to(root).as_posix() for p in (root / ".venv" / "lib").glob("python*/site-packages")]
    assert _runs_as(root, ["train.py"], ".", (), python) == BEFORE
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert _runs_as(root, ["train.py"], ".", (), python) == BEFORE
    found = _finding(root, "train.py")
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "unsafe"), found
    assert f"`{site}/verl/trainer/constants_ppo.py:{OLD_LINE}`" in found["message"], found["message"]
    assert "verl installed in the environment `.venv`" in found["message"], found["message"]
    assert "install verl>=0.9.0 in that environment" in found["fix"]["message"] + found["message"], found


@pytest.mark.parametrize("case", ["ignored-copy-takes-config", "venv-takes-config", "ignored-under-a-package", "tox-environment"])
def test_no_over_caution_for_what_cannot_be_in_effect_with_an_old_signature(tmp_path: Path, case: str) -> None:
    """An ignored copy or a ``.venv`` verl that takes a config, ``build_cache/mylib/verl``
    (``mylib.verl``: no copy of ``verl``) and a tox environment's old verl (tox rebuilds it
    from ``tox.ini``, whose pins are read) leave the pin deciding: a safe fix, and the
    rewritten launcher runs against verl 0.9."""
    files = {"pyproject.toml": PROJECT_09, "train.py": LAUNCHER, ".gitignore": "/deps/\n/build_cache/\n"}
    if case == "ignored-copy-takes-config":
        files.update(_copy("deps/rl", VERL_09))
    elif case == "ignored-under-a-package":
        files.update({**_copy("build_cache/mylib"), "build_cache/mylib/__init__.py": ""})
    elif case == "tox-environment":
        files.update(_copy(".tox/py311/lib/python3.11/site-packages"))
        files[".tox/py311/pyvenv.cfg"] = "home = /usr/bin\n"
    root = _tree(tmp_path / "proj", files)
    python = str(_venv(root, VERL_09)) if case == "venv-takes-config" else sys.executable
    found = _finding(root, "train.py")
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "safe"), found
    proc = run_cli("apply", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "get_ppo_ray_runtime_env(config)" in (root / "train.py").read_text()
    site = verl_stub(tmp_path / "site09", VERL_09)
    if case == "venv-takes-config":
        assert _runs_as(root, ["train.py"], ".", (), python) == "ran {'trainer': 2}"
    else:
        env_path = (os.path.relpath(site, root),)
        assert _runs_as(root, ["train.py"], ".", env_path) == "ran {'trainer': 2}"


# -- trial 26e (B): a copy outside the repository, put on the path by a spelling not evaluated --

#: case -> (the launch script's text (``run.sh``, run with ``bash`` from the repository) or
#: ``None``, the head of ``train.py``, the environment of the run, the entry the reason
#: quotes or ``None`` (the sibling copy read: its definition named), the declaring file)
OUTSIDE: dict[str, tuple[str | None, str, dict[str, str], str | None, str]] = {
    "shell-dirname-pwd": ('export PYTHONPATH="$(dirname "$PWD")/verl:$PYTHONPATH"\n"$PY" train.py\n',
                          "", {}, None, "run.sh"),
    "shell-realpath": ('PYTHONPATH=$(realpath ../verl) "$PY" train.py\n', "", {}, None, "run.sh"),
    "shell-cd-up": ('cd .. && PYTHONPATH=verl "$PY" proj/train.py\n', "", {}, "verl", "run.sh"),
    "shell-home-src": ('export PYTHONPATH=$HOME/src/verl:$PYTHONPATH\n"$PY" train.py\n', "",
                       {"HOME": "{ws}/home"}, "$HOME/src/verl", "run.sh"),
    "python-environ": (None, 'import os\nimport sys\nsys.path.insert(0, os.environ["VERL_HOME"])\n',
                       {"VERL_HOME": "{ws}/verl"}, "os.environ['VERL_HOME']", "train.py"),
    "python-expanduser": (None, 'import os\nimport sys\nsys.path.insert(0, os.path.expanduser("~/src/verl"))\n',
                          {"HOME": "{ws}/home"}, "~/src/verl", "train.py"),
    # absent on this machine, present in the image (here: the image's verl is on PYTHONPATH)
    "python-absolute-absent": (None, 'import sys\nsys.path.insert(0, "/opt/verl-absent-here/verl")\n',
                               {"PYTHONPATH": "{ws}/verl"}, "/opt/verl-absent-here/verl", "train.py"),
    # trial 26f (B8): named for verl by the declaring line (the lab's fork baked in the image)
    "python-constant-names-verl": (
        None, 'import sys\nVERL_DIR = "/opt/lab-absent-here/rlcore"\nsys.path.insert(0, VERL_DIR)\n',
        {"PYTHONPATH": "{ws}/verl"}, "/opt/lab-absent-here/rlcore", "train.py"),
    # ... or by a folder above the entry's last one
    "python-inner-component": (None, 'import sys\nsys.path.insert(0, "/opt/verl-absent-here/lib")\n',
                               {"PYTHONPATH": "{ws}/verl"}, "/opt/verl-absent-here/lib", "train.py"),
}


@pytest.mark.parametrize("case", sorted(OUTSIDE))
def test_a_copy_outside_the_repository_on_an_unevaluated_path_is_a_notice(tmp_path: Path, case: str) -> None:
    """Trial 26e (B): ``pyproject.toml`` declares ``verl>=0.9.0``; a verl 0.8 checkout lies
    beside the repository (``../verl/verl``, also ``$HOME/src/verl``) and the launch script or
    ``train.py`` puts it first on the path by a spelling the tool did not evaluate: a plain
    ``apply`` passed the config and the launcher raised ``TypeError``. Now the sibling is read
    (``$(dirname "$PWD")``, ``$(realpath X)``) or, when the entry cannot be evaluated or is
    absent here, it is a copy that cannot be read: PPO005 naming the declaring line; the
    launcher runs before and after ``apply`` and ``apply --thread-config``."""
    script, head, env, quoted, declaring = OUTSIDE[case]
    ws = tmp_path / "ws"
    for base in (ws, ws / "home" / "src"):
        for name, text in _copy("verl").items():
            (base / name).parent.mkdir(parents=True, exist_ok=True)
            (base / name).write_text(text)
    root = _tree(ws / "proj", {"pyproject.toml": PROJECT_09, "train.py": head + LAUNCHER,
                               **({"run.sh": script} if script else {})})
    environ = {"PATH": "/usr/bin:/bin", "PY": sys.executable, **{k: v.format(ws=ws) for k, v in env.items()}}
    cmd = ["bash", "run.sh"] if script else [sys.executable, "train.py"]

    def runs() -> str:
        proc = subprocess.run(cmd, cwd=root, env=environ, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout.strip()

    assert runs() == BEFORE
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert (root / "train.py").read_text() == head + LAUNCHER
        assert runs() == BEFORE
    found = _finding(root, "train.py")
    assert found["code"] == "PPO005", found
    line = 1 if script else head.count("\n")
    if quoted is None:  # the sibling read: its definition, and the script putting it there
        assert f"{ws}/verl/verl/trainer/constants_ppo.py:{OLD_LINE}`" in found["message"], found["message"]
    else:
        assert found["reason"]["kind"] == "uncertain-definition", found["reason"]
        assert f"at `{declaring}:{line}` puts `{quoted}` on sys.path: a copy of verl" in found["message"], found["message"]
        assert [(Path(p["filename"]).resolve().relative_to(root.resolve()).as_posix(), p["location"]["row"])
                for p in found["reason"]["lines"]] == [(declaring, line)], found["reason"]


def test_an_absent_folder_nothing_names_for_verl_is_no_copy(tmp_path: Path) -> None:
    """Trial 26f (B8)'s rule reaches no further: ``sys.path.insert(0, "/opt/tools-absent")``
    names no verl, and the declared ``verl>=0.9.0`` decides (a safe fix)."""
    head = 'import sys\nTOOLS = "/opt/tools-absent-here/lib"\nsys.path.insert(0, TOOLS)\n'
    root = _tree(tmp_path / "proj", {"pyproject.toml": PROJECT_09, "train.py": head + LAUNCHER})
    found = _finding(root, "train.py")
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "safe"), found


#: trial 26e (J): the launch script fills the cache a committed link ``verl`` points into
FILL_CACHE = (
    'mkdir -p .cache/verl/verl/trainer\ntouch .cache/verl/verl/__init__.py .cache/verl/verl/trainer/__init__.py\n'
    "printf 'def get_ppo_ray_runtime_env():\\n    return None\\n' > .cache/verl/verl/trainer/constants_ppo.py\n"
    '"$PY" train.py\n'
)


def test_a_dangling_link_named_verl_is_a_copy_that_cannot_be_read(tmp_path: Path) -> None:
    """Trial 26e (J): ``verl -> .cache/verl/verl`` is committed, ``.cache/`` is ignored and
    ``run.sh`` fills it on the first run with verl 0.8. On a fresh clone (where ``apply``
    runs in CI) the link dangles: the fix was safe and the launcher then raised ``TypeError``.
    Now PPO005 names the link; after both applies on the fresh clone, ``run.sh`` runs."""
    root = _tree(tmp_path / "proj", {"pyproject.toml": PROJECT_09, ".gitignore": ".cache/\n",
                                     "train.py": LAUNCHER, "run.sh": FILL_CACHE})
    (root / "verl").symlink_to(".cache/verl/verl")
    found = _finding(root, "train.py")
    assert (found["code"], found["reason"]["kind"]) == ("PPO005", "uncertain-definition"), found
    assert "`verl` is a symbolic link to `.cache/verl/verl`, absent here" in found["message"], found["message"]
    assert [(Path(p["filename"]).name, p["location"]["row"]) for p in found["reason"]["lines"]] == [("verl", 1)]
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert (root / "train.py").read_text() == LAUNCHER
    proc = subprocess.run(["bash", "run.sh"], cwd=root, env={"PATH": "/usr/bin:/bin", "PY": sys.executable},
                          capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout.strip()) == (0, BEFORE), proc.stdout + proc.stderr
