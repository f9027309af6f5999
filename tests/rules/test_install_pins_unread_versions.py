"""Issue 26, family 2, trial 26c (A): an install of verl whose version the tool cannot evaluate.

``verl=={{verl_version}}`` in a justfile, ``V="${V:-0.8.0}"`` then ``pip install verl==${V}``,
``PKGS=(ray "verl==0.8.0")`` then ``pip install "${PKGS[@]}"``, a requirements file's
``verl==${VERL_VERSION}``, a Dockerfile's ``ARG V=${V}``: each used to be dropped without a
word, so ``pyproject.toml``'s ``verl>=0.9.0`` decided and the fix was written; the launcher then
raised ``TypeError`` on the project's verl 0.8. The rule: an install of verl is read
(:mod:`ppo_migrate.rules.install_pins` evaluates the file's own assignments, just's
variables and shell arrays) or, when its release cannot be read, refuses the fix (PPO005
naming the file and line); a verl requirement with a template version in a file no pin
reader reads is a mention (:mod:`ppo_migrate.rules.mentions`) that makes the fix unsafe.

Each project is *executed* before, after a plain ``apply`` and after ``apply --thread-config``.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest
from cli_helpers import (
    LAUNCHER,
    VERL_08,
    VERL_09,
    check_findings,
    launcher_ran,
    run_cli,
    run_launcher,
    verl_stub,
    write_tree,
)
from packaging.version import Version
from ppo_migrate.rules.install_pins import (
    _arrays,
    _assignments,
    _expanded,
    install_pins,
)
from ppo_migrate.rules.mentions import python_mentions, text_mentions
from ppo_migrate.rules.requirements import _read_requirements, templated_verl

BEFORE = "ran None"
NEW_PIN = {"pyproject.toml": '[project]\nname = "proj"\nversion = "0.1.0"\ndependencies = ["verl>=0.9.0"]\n'}

#: case -> (files, the file and line PPO005 names, what its message says of the release)
REFUSED: dict[str, tuple[dict[str, str], str, int, str]] = {
    "justfile-variable": ({
        "justfile": 'verl_version := "0.8.0"\n\nsetup:\n    pip install verl=={{verl_version}}\n',
    }, "justfile", 4, "runs verl 0.8.0"),
    "justfile-unknown-variable": ({
        "justfile": "setup:\n    pip install verl=={{ verl_version }}\n",
    }, "justfile", 2, "whose release cannot be read"),
    "shell-default-expansion": ({
        "scripts/setup_env.sh": '#!/bin/bash\nset -e\nVERL_VERSION="${VERL_VERSION:-0.8.0}"\npip install "verl==${VERL_VERSION}"\n',
    }, "scripts/setup_env.sh", 4, "runs verl 0.8.0"),
    "shell-array": ({
        "scripts/install.sh": '#!/bin/bash\nset -e\nPKGS=(ray "verl==0.8.0" omegaconf)\npip install "${PKGS[@]}"\n',
    }, "scripts/install.sh", 4, "runs verl 0.8.0"),
    "requirements-environment-variable": ({
        "Dockerfile": "FROM python:3.11\nENV VERL_VERSION=0.8.0\nCOPY requirements-cluster.txt .\n"
                      "RUN pip install -r requirements-cluster.txt\n",
        "requirements-cluster.txt": "verl==${VERL_VERSION}\n",
    }, "requirements-cluster.txt", 1, "whose release cannot be read"),
    "dockerfile-arg-refers-to-itself": ({
        "Dockerfile": "FROM python:3.11\nARG V=${V}\nARG W=${V}${W}\nRUN pip install verl==${W}\n",
    }, "Dockerfile", 4, "whose release cannot be read"),
    "make-shell-function": ({
        "Makefile": "V := $(shell cat VERSION)\nsetup:\n\tpip install verl==$(V)\n",
    }, "Makefile", 3, "whose release cannot be read"),
    # trial 26f: an install command in Python is read (install_pins.python_commands), its
    # f-string's hole filled by the name the file binds
    "python-f-string": ({
        "setup_env.py": "import subprocess, sys\nV = '0.8.0'\n"
                        "subprocess.check_call([sys.executable, '-m', 'pip', 'install', f'verl=={V}'])\n",
    }, "setup_env.py", 3, "runs verl 0.8.0"),
    "python-f-string-unknown-hole": ({
        "setup_env.py": "import os, subprocess, sys\n"
                        "subprocess.check_call([sys.executable, '-m', 'pip', 'install', f'verl=={os.environ[\"V\"]}'])\n",
    }, "setup_env.py", 2, "whose release cannot be read"),
}

#: case -> (files, the file and line the unsafe fix's reason names): formats no pin reader reads
MENTIONED: dict[str, tuple[dict[str, str], str, int]] = {
    "setup-py-opens-a-requirements-file": ({
        "requirements.txt": "verl>=0.9.0\n",
        "setup.py": 'from setuptools import setup\nwith open("deps/runtime.txt") as f:\n'
                    '    reqs = f.read().split()\nsetup(name="proj", install_requires=reqs)\n',
        "deps/runtime.txt": "ray>=2.40\nverl==${VERL_VERSION}\n",
    }, "deps/runtime.txt", 2),
    "hatch-toml-template": ({
        "hatch.toml": '[envs.default]\ndependencies = ["verl=={{ env.VERL }}"]\n',
    }, "hatch.toml", 2),
    "autoconf-template": ({
        "deps/train.txt.in": "# filled in by configure\nverl==@VERL_VERSION@\n",
    }, "deps/train.txt.in", 2),
    "python-percent-template": ({
        "tasks.py": "from invoke import task\n\nV = '0.8.0'\n\n\n@task\ndef setup(c):\n"
                    "    c.run('pip install verl==%(v)s' % {'v': V})\n",
    }, "tasks.py", 8),
}


def _tree(root: Path, files: dict[str, str]) -> Path:
    return write_tree(root, {**NEW_PIN, **files, "train.py": LAUNCHER})


#: the launcher run with ``site`` (the project's interpreter's verl) on its path, within
#: 120 s, and its whole output
_run = functools.partial(run_launcher, timeout=120)
_ran = functools.partial(launcher_ran, timeout=120, whole_output=True)


def _check(root: Path) -> list[dict]:
    return check_findings(root, launcher="train.py")


def _rel(root: Path, filename: str) -> str:
    return Path(filename).resolve().relative_to(root.resolve()).as_posix()


def _applies_nothing(root: Path, site: Path) -> None:
    """The entry runs before, after a plain ``apply`` and after ``apply --thread-config``,
    which leave the launcher byte for byte as it was."""
    before = (root / "train.py").read_text()
    assert _ran(root, site) == BEFORE
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert (root / "train.py").read_text() == before, extra
        assert _ran(root, site) == BEFORE


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_an_install_whose_version_is_a_variable_refuses_the_fix(tmp_path: Path, case: str) -> None:
    """PPO005 naming the install's file and line: the release the file's own assignments
    give it, or "cannot be read"; never the pyproject's ``verl>=0.9.0``."""
    files, where, line, says = REFUSED[case]
    root, site = _tree(tmp_path / "proj", files), verl_stub(tmp_path / "site", VERL_08)
    _applies_nothing(root, site)
    (found,) = _check(root)
    assert found["code"] == "PPO005", found
    assert found["fix"] is None, found
    assert f"`{where}:{line} " in found["message"], found["message"]
    assert says in found["message"], found["message"]
    assert "pyproject.toml" not in found["message"], found["message"]


@pytest.mark.parametrize("case", sorted(MENTIONED))
def test_a_template_version_in_an_unread_file_makes_the_fix_unsafe(tmp_path: Path, case: str) -> None:
    """A verl requirement whose version a build fills in, in a file no pin reader reads:
    an unsafe PPO001 whose reason (``unread-pin``) names the file and line; with
    ``--unsafe-fixes`` the fix is written and the launcher raises, as the reason says."""
    files, where, line = MENTIONED[case]
    root, site = _tree(tmp_path / "proj", files), verl_stub(tmp_path / "site", VERL_08)
    _applies_nothing(root, site)
    (found,) = _check(root)
    assert (found["code"], found["fix"]["applicability"], found["reason"]["kind"]) == ("PPO001", "unsafe", "unread-pin")
    place = found["reason"]["lines"][0]
    assert (_rel(root, place["filename"]), place["location"]["row"]) == (where, line), found["reason"]
    assert f"`{where}:{line}` mentions verl" in found["message"], found["message"]
    assert "in a line ppo-migrate does not read as a pin or an install" in found["message"], found["message"]
    proc = run_cli("apply", "--exit-zero", "--unsafe-fixes", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    failed = _run(root, site)
    assert failed.returncode != 0 and "TypeError" in failed.stderr, failed.stderr


@pytest.mark.parametrize(("name", "text"), [
    ("justfile", 'verl_version := "0.9.1"\n\nsetup:\n    pip install verl=={{verl_version}}\n'),
    ("setup.sh", '#!/bin/sh\nV="${V:-0.9.1}"\npip install "verl==${V}"\n'),
    ("install.sh", '#!/bin/bash\nPKGS=(ray "verl>=0.9.1")\npip install "${PKGS[@]}"\n'),
    ("deps/notes.txt", "Pin verl==${VERL_VERSION} in the image.\n"),  # prose in a .txt
    ("ci/env.yaml", "# pip install verl==${VERL_VERSION}\nimage: x\n"),  # a comment
    ("tool.py", "print('using verl={}'.format(1))\nprint(f'using verl {2}')\n"),  # messages
])
def test_a_new_verl_or_no_install_leaves_the_fix_safe(tmp_path: Path, name: str, text: str) -> None:
    """No over-caution: an install the file's assignments make 0.9.1, and templates in
    prose, comments and messages, leave the pin's safe fix; the rewritten launcher runs
    against verl 0.9."""
    root, site = _tree(tmp_path / "proj", {name: text}), verl_stub(tmp_path / "site", VERL_09)
    (found,) = _check(root)
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "safe"), found
    proc = run_cli("apply", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "return get_ppo_ray_runtime_env(config)" in (root / "train.py").read_text()
    assert _ran(root, site) == "ran {'trainer': 2}"


def test_nothing_deciding_says_what_is_assumed(tmp_path: Path) -> None:
    """Trial 26c, WRONG: with nothing declared, JSON ``callee`` says the config may not be
    accepted (the fix is unsafe), not that the newest signature is assumed; the reason
    rules out only the pins ppo-migrate reads."""
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "train.py").write_text(LAUNCHER)
    (found,) = _check(root)
    assert found["fix"]["applicability"] == "unsafe"
    assert found["callee"] == (
        "nothing says which verl runs (no in-tree copy, no verl pin in a file ppo-migrate reads, "
        "no verl-version, no installed verl): the config may not be accepted, so passing it is an unsafe fix"
    ), found["callee"]
    assert "newest" not in found["callee"]
    assert "no verl pin in a file ppo-migrate reads" in found["reason"]["text"], found["reason"]["text"]
    (root / "deps").mkdir()
    (root / "deps/runtime.txt").write_text("verl==0.8.0\n")
    (found,) = _check(root)
    assert found["callee"] == (
        "nothing ppo-migrate reads says which verl runs, and `deps/runtime.txt:1` mentions verl==0.8.0 "
        "in a line ppo-migrate does not read as a pin or an install: passing the config is an unsafe fix"
    ), found["callee"]


# -- the parsers ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "written"), [
    ("verl==${VERL_VERSION}", "verl==${VERL_VERSION}"),
    ("verl[vllm]>=${V:-0.8}", "verl[vllm]>=${V:-0.8}"),
    ("pip install verl==$V", "verl==$V"),
    ("verl==$(V)", "verl==$(V)"),
    ("verl=={{ verl_version }}", "verl=={{ verl_version }}"),
    ("verl>=@VERL_VERSION@", "verl>=@VERL_VERSION@"),
    ("verl==%(v)s", "verl==%(v)s"),
    ("verl=={}", "verl=={}"),
    ("verl==0.${MINOR}.0", "verl==0.${MINOR}.0"),
    ("conda install verl=$V", "verl=$V"),
    ("poetry add verl@${V}", "verl@${V}"),
    ("verl==0.8.0", None),
    ("verl={}", None),  # a message's ``name={}``: no PEP 440 operator before a format template
    ("myverl==${V}", None),
    ("verl-tools==${V}", None),
    ("verl", None),
])
def test_templated_verl(text: str, written: str | None) -> None:
    m = templated_verl(text)
    assert (m.group(0) if m else None) == written


def test_assignments_expand_in_order() -> None:
    """Each value sees the values assigned before it; one naming a variable without a value
    leaves its variable without one."""
    text = (
        'VERL_VERSION="${VERL_VERSION:-0.8.0}"\nA=$VERL_VERSION\nB=${B}\nC := $(shell cat V)\n'
        'D ?= ${A}.post1\nverl_version := "0.9.1"\nE=`cat V`\n'
    )
    assert _assignments(text, len(text)) == {
        "VERL_VERSION": "0.8.0", "A": "0.8.0", "D": "0.8.0.post1", "verl_version": "0.9.1",
    }
    values = {"V": "0.8.0", "verl_version": "0.9.1"}
    assert _expanded("verl=={{verl_version}}", values) == "verl==0.9.1"
    assert _expanded("verl=={{ verl_version }}", values) == "verl==0.9.1"
    assert _expanded("verl==${V}", values) == "verl==0.8.0"
    assert _expanded("verl=={{other}}", values) is None
    assert _expanded("verl==${W:-0.7.0}", values) == "verl==0.7.0"
    assert _expanded("verl==$(shell cat V)", values) is None


def test_arrays() -> None:
    text = 'PKGS=(ray "verl==0.8.0"  # pinned\n  omegaconf)\nPKGS+=(torch)\nOTHER=(a b)\npip install "${PKGS[@]}"\n'
    assert _arrays(text, len(text)) == {"PKGS": ["ray", "verl==0.8.0", "omegaconf", "torch"], "OTHER": ["a", "b"]}


def test_install_pins_read_or_refuse(tmp_path: Path) -> None:
    """Every verl install of a file: evaluated (``lock`` 0.8.0) or a release that cannot be
    read (``None``, ``direct-reference``) at the install's line; other packages give nothing."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.sh").write_text(
        '#!/bin/bash\nV="${V:-0.8.0}"\npip install "verl==${V}"\nPKGS=(ray "verl==0.7.0")\npip install "${PKGS[@]}"\n'
        "pip install verl=={{nothing}}\npip install ray==${RAY} ./tools/verl/plugin\n"
    )
    (tmp_path / "justfile").write_text('v := "0.6.0"\nx:\n    pip install verl=={{v}} verl=={{w}}\n')
    found = sorted(((f.path.name, f.line, f.requirement), f.version, f.kind) for f in install_pins(tmp_path))
    assert found == [
        (("a.sh", 3, "verl==0.8.0"), Version("0.8.0"), "lock"),
        (("a.sh", 5, "verl==0.7.0"), Version("0.7.0"), "lock"),
        (("a.sh", 6, "verl=={{nothing}}"), None, "direct-reference"),
        (("justfile", 3, "verl==0.6.0"), Version("0.6.0"), "lock"),
        (("justfile", 3, "verl=={{w}}"), None, "direct-reference"),
    ]


def test_a_requirements_files_template_is_a_release_that_cannot_be_read(tmp_path: Path) -> None:
    path = tmp_path / "requirements.txt"
    path.write_text("ray==${RAY}\nverl[vllm]==${VERL_VERSION} ; python_version >= '3.10'\n")
    found = [(f.line, f.version, f.kind, f.requirement) for f in _read_requirements(path, set())]
    assert found == [(2, None, "direct-reference", "verl[vllm]==${VERL_VERSION} ; python_version >= '3.10'")]


def test_text_and_python_mentions_of_a_template() -> None:
    assert text_mentions("pip install verl==${V}\n# verl==${X}\nx: verl=={{ v }}\n") == [
        (1, "verl==${V}"), (3, "verl=={{ v }}")]
    assert text_mentions("verl==${VERL_VERSION}\nSince verl==${X} it runs\nverl>=@V@ ; python_version > '3'\n",
                         "requirements") == [(1, "verl==${VERL_VERSION}"), (3, "verl>=@V@")]
    tree = ast.parse(
        "import subprocess\nV = '0.8.0'\nsubprocess.run(['pip', 'install', f'verl=={V}'])\n"
        "subprocess.run(f'pip install verl=={cfg.v}', shell=True)\nc.run('pip install verl==%(v)s' % {'v': V})\n"
        "print(f'using verl {V}')\nlog(f'installed verl=={V} on the cluster')\n"
        "subprocess.run(['pip', 'download', f'verl=={V}'])\nx = 'verl==%(v)s' % {'v': V}\n"
        "subprocess.run(['pip', 'install', 'verl==0.8.0'])\n"
    )
    # a template version counts only where it is installed; an old release anywhere code is
    assert python_mentions(tree) == [(3, "verl=={V}"), (4, "verl=={}"), (5, "verl==%(v)s"), (10, "verl==0.8.0")]
