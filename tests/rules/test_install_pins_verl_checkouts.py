"""Issue 26, family 2, trial 26e (REPORT.md, C): installs of verl whose form was not read.

verl's own install instructions (``git clone`` of verl, ``cd verl``/``WORKDIR /opt/verl``/a
workflow's ``working-directory:``, ``git checkout v0.8.0`` or ``clone -b v0.8.0``, then ``pip
install -e .``), a git ref holding ``/`` (``@release/v0.8.x``), an archive of verl's repository
(``.../verl/archive/<sha>.zip``) and a wheel glob (``/wheels/verl-*.whl``) each install verl; each
was dropped, so ``pyproject.toml``'s ``verl>=0.9.0`` decided, a plain ``apply`` passed the config
and the trainer raised ``TypeError`` on the image's verl 0.8. The rule
(:mod:`ppo_migrate.rules.install_pins`, docs/callee.md row 3): such an install whose release
cannot be read is PPO005 naming its line ("cannot be read"); one whose tag spells a release
decides like a pin of it. Each project is *executed* before, after a plain ``apply`` and after
``apply --thread-config``; the counter-cases install 0.9.1 the same ways and keep the safe fix.
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
from packaging.version import Version
from ppo_migrate.rules.install_pins import checkout_installs, workflow_checkout_installs
from ppo_migrate.rules.requirements import _from_reference

FIXED = LAUNCHER.replace("get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config)")
PYPROJECT = '[project]\nname = "proj"\nversion = "0.1.0"\ndependencies = ["verl>=0.9.0", "omegaconf"]\n'
URL = "https://github.com/volcengine/verl"

#: shape -> (files given the release tag (``v0.8.0``), the file and line PPO005 names, what it says)
SHAPES: dict[str, tuple[object, str, int, str]] = {
    "dockerfile-checkout-tag-separate": (lambda tag: {"Dockerfile": (
        f"FROM verlai/verl:base\nWORKDIR /opt\nRUN git clone {URL}.git\nWORKDIR /opt/verl\n"
        f"RUN git checkout {tag} && pip install --no-deps -e .\nCOPY . /app\n")}, "Dockerfile", 5, "runs verl {v}"),
    "dockerfile-clone-branch-workdir": (lambda tag: {"Dockerfile": (
        f"FROM python:3.11\nRUN git clone -b {tag} {URL}.git /opt/verl\nWORKDIR /opt/verl\n"
        "RUN pip install --no-deps -e .[vllm]\n")}, "Dockerfile", 4, "runs verl {v}"),
    "shell-cd-verl-pip-e-dot": (lambda tag: {"scripts/install.sh": (
        f"#!/bin/bash\nset -euo pipefail\ngit clone {URL}.git\ncd verl\ngit checkout {tag}\n"
        "pip install --no-deps -e .\n")}, "scripts/install.sh", 6, "runs verl {v}"),
    "shell-git-dash-c": (lambda tag: {"setup.sh": (
        f"#!/bin/sh\ngit clone {URL}.git deps/verl\ngit -C deps/verl checkout tags/{tag}\n"
        "pip install -e ./deps/verl\n")}, "setup.sh", 4, "runs verl {v}"),
    "workflow-checkout-working-directory": (lambda tag: {".github/workflows/gpu.yml": (
        "on: [push]\njobs:\n  train:\n    runs-on: [self-hosted, gpu]\n    steps:\n"
        "      - uses: actions/checkout@v4\n      - uses: actions/checkout@v4\n        with:\n"
        f"          repository: volcengine/verl\n          ref: {tag}\n          path: verl-src\n"
        "      - run: pip install --no-deps -e .\n        working-directory: verl-src\n"
        "      - run: python train.py\n")}, ".github/workflows/gpu.yml", 12, "runs verl {v}"),
    # no release spelled: the ref is a branch, a commit, or none (the default branch)
    "shell-clone-default-branch": (lambda tag: {"install.sh": (
        f"#!/bin/bash\ngit clone --depth 1 {URL}.git\ncd verl && pip install -e .\n")},
        "install.sh", 3, "whose release cannot be read"),
    "dockerfile-git-ref-slash": (lambda tag: {"Dockerfile": (
        f'FROM python:3.11\nRUN pip install "git+{URL}.git@release/{tag[:-2]}.x"\nCOPY . /app\n')},
        "Dockerfile", 2, "whose release cannot be read"),
    "dockerfile-archive-sha": (lambda tag: {"Dockerfile": (
        f"FROM python:3.11\nRUN pip install {URL}/archive/4f8e2a1c9b7d.zip\nCOPY . /app\n")},
        "Dockerfile", 2, "whose release cannot be read"),
    "dockerfile-archive-tag": (lambda tag: {"Dockerfile": (
        f"FROM python:3.11\nRUN pip install {URL}/archive/refs/tags/{tag}.tar.gz\n")},
        "Dockerfile", 2, "runs verl {v}"),
    "dockerfile-wheel-glob": (lambda tag: {"Dockerfile": (
        "FROM python:3.11\nCOPY wheels/ /wheels/\nRUN pip install /wheels/verl-*.whl\nCOPY . /app\n")},
        "Dockerfile", 3, "whose release cannot be read"),
}


def _project(tmp_path: Path, shape: str, tag: str, verl: str) -> tuple[Path, Path]:
    files = SHAPES[shape][0](tag)  # type: ignore[operator]
    return launcher_project(tmp_path, {"pyproject.toml": PYPROJECT, **files}, verl)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_an_install_of_verl_in_these_forms_leaves_the_call_running(tmp_path: Path, shape: str) -> None:
    root, site = _project(tmp_path, shape, "v0.8.0", VERL_08)
    assert launcher_ran(root, site) == "ran None"
    _, where, line, says = SHAPES[shape]
    found = only_finding(root)
    assert (found["code"], found["location"]["row"], found["fix"]) == ("PPO005", 6, None), found
    assert f"`{where}:{line} " in found["message"], found["message"]
    assert says.format(v="0.8.0") in found["message"], found["message"]
    assert "pyproject.toml" not in found["message"], found["message"]
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert (root / "train.py").read_text() == LAUNCHER
        assert launcher_ran(root, site) == "ran None"


@pytest.mark.parametrize("shape", sorted(s for s, (_, _, _, says) in SHAPES.items() if "runs verl" in says))
def test_the_same_install_of_verl_0_9_1_keeps_the_safe_fix(tmp_path: Path, shape: str) -> None:
    """The tag says ``v0.9.1``: that install takes a config, the required ``verl>=0.9.0``
    decides, ``apply`` passes the config and the launcher runs against verl 0.9."""
    root, site = _project(tmp_path, shape, "v0.9.1", VERL_09)
    found = only_finding(root)
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "safe"), found
    assert run_cli("apply", "--exit-zero", ".", cwd=root).returncode == 0
    assert (root / "train.py").read_text() == FIXED
    assert launcher_ran(root, site) == "ran {'trainer': 2}"


def test_a_checkout_is_followed_only_into_its_own_folder(tmp_path: Path) -> None:
    """``pip install -e .`` counts in the checkout's folder only: in another folder, before
    the clone, or in a later ``RUN`` of a Dockerfile that did not ``WORKDIR`` into it."""
    text = (
        "#!/bin/bash\npip install -e .\ngit clone -b v0.8.0 https://example.org/org/verl.git vendor/verl\n"
        "pip install -e .\ncd vendor/verl\npip install -e '.[gpu]'\ncd ../..\npip install -e vendor/verl/\n"
        "git clone https://example.org/org/verl-tools.git\ncd verl-tools && pip install -e .\n"
    )
    found = [(f.line, f.version, f.kind) for f in checkout_installs(text, str(tmp_path / "s.sh"), "script")]
    assert found == [(6, Version("0.8.0"), "lock"), (8, Version("0.8.0"), "lock")]
    docker = "FROM x\nRUN git clone https://example.org/verl.git /opt/verl\nRUN cd /opt/verl\nRUN pip install -e .\n" \
             "RUN cd /opt/verl && git checkout main && pip install .\n"
    found = [(f.line, f.version, f.kind, f.requirement) for f in checkout_installs(docker, "Dockerfile", "dockerfile")]
    assert found == [(5, None, "direct-reference", "pip install . (a checkout of verl at main, line 2)")]


def test_a_workflow_checkout_of_another_repository_installs_no_verl() -> None:
    text = (
        "jobs:\n  a:\n    steps:\n      - uses: actions/checkout@v4\n        with:\n          path: verl\n"
        "      - run: pip install -e .\n        working-directory: verl\n"
    )
    assert list(workflow_checkout_installs(text, "gpu.yml")) == []


@pytest.mark.parametrize(("reference", "version", "kind"), [
    ("git+https://example.org/org/verl.git@release/v0.8.x", None, "direct-reference"),
    ("git+https://example.org/org/verl.git@v0.8.0#egg=verl", Version("0.8.0"), "lock"),
    ("git+ssh://git@example.org/org/verl.git@feature/x", None, "direct-reference"),
    ("https://example.org/org/verl/archive/4f8e2a1c9b7d.zip", None, "direct-reference"),
    ("https://example.org/org/verl/archive/refs/tags/v0.8.0.tar.gz", Version("0.8.0"), "lock"),
    ("https://example.org/group/verl/-/archive/v0.7.1/verl-v0.7.1.zip", Version("0.7.1"), "lock"),
    ("/wheels/verl-*.whl", None, "direct-reference"),
    ("/wheels/verl-0.8.0-*.whl", Version("0.8.0"), "lock"),
])
def test_the_references_that_install_verl(reference: str, version: Version | None, kind: str) -> None:
    found = _from_reference(reference, Path("Dockerfile"), 2, reference)
    assert found is not None and (found.version, found.kind) == (version, kind)


@pytest.mark.parametrize("reference", [
    "git+https://example.org/org/verl-tools.git@release/v1", "https://example.org/org/ray/archive/abc.zip",
    "/wheels/verl_tools-*.whl", "/wheels/*.whl",
])
def test_the_references_of_other_packages(reference: str) -> None:
    assert _from_reference(reference, Path("Dockerfile"), 2, reference) is None


@pytest.mark.parametrize(("text", "written"), [
    ("%post\n    pip install /wheels/verl-*.whl\n", ["verl-*.whl"]),
    ("pip install https://example.org/org/verl/archive/refs/tags/v0.8.0.tar.gz", ["verl/archive/refs/tags/v0.8.0.tar.gz"]),
    ("pip install https://example.org/org/verl/archive/v0.9.1.zip", []),  # takes a config
    ("pip install https://example.org/org/verl/archive/4f8e2a1c9b7d.zip", []),  # a commit: as a branch, no mention
    ("pip install /wheels/verl_tools-*.whl", []),  # another package
])
def test_the_forms_as_mentions_in_files_no_reader_reads(text: str, written: list[str]) -> None:
    from ppo_migrate.rules.mentions import text_mentions

    assert [w for _, w in text_mentions(text)] == written


def test_a_wheel_glob_in_an_apptainer_post_makes_the_fix_unsafe(tmp_path: Path) -> None:
    """An Apptainer ``%post`` is read by no pin reader: its ``verl-*.whl`` is a mention (the
    release the build copies in cannot be read), so the fix is unsafe naming the line."""
    files = {"pyproject.toml": PYPROJECT, "verl.def": "Bootstrap: docker\nFrom: python:3.11\n\n%post\n    pip install /wheels/verl-*.whl\n"}
    root, site = launcher_project(tmp_path, files, VERL_08)
    found = only_finding(root)
    assert (found["code"], found["fix"]["applicability"], found["reason"]["kind"]) == ("PPO001", "unsafe", "unread-pin")
    assert [(r["filename"], r["location"]["row"]) for r in found["reason"]["lines"]] == [(str(root / "verl.def"), 5)]
    for extra in ((), ("--thread-config",)):
        assert run_cli("apply", "--exit-zero", *extra, ".", cwd=root).returncode == 0
        assert (root / "train.py").read_text() == LAUNCHER
        assert launcher_ran(root, site) == "ran None"


#: trial 26e (K): a requirements file pip fetches by URL (a lab's shared stack pinning verl 0.8)
REMOTE = "https://example.org/mylab/infra/main/requirements/rl-stack.txt"


@pytest.mark.parametrize(("files", "where"), [
    ({"requirements.txt": f"omegaconf\n# the lab's RL stack\n-r {REMOTE}\n"}, "requirements.txt:3"),
    ({"Dockerfile": f"FROM python:3.11\nRUN pip install -r {REMOTE}\nCOPY . /app\n"}, "Dockerfile:2"),
])
def test_a_requirements_file_fetched_by_url_refuses_the_fix(tmp_path: Path, files: dict[str, str], where: str) -> None:
    root, site = launcher_project(tmp_path, {"pyproject.toml": PYPROJECT, **files}, VERL_08)
    assert launcher_ran(root, site) == "ran None"
    found = only_finding(root)
    assert (found["code"], found["location"]["row"], found["fix"]) == ("PPO005", 6, None), found
    assert f"`{where} -r {REMOTE}`, whose release cannot be read" in found["message"], found["message"]
    for extra in ((), ("--thread-config",)):
        assert run_cli("apply", "--exit-zero", *extra, ".", cwd=root).returncode == 0
        assert (root / "train.py").read_text() == LAUNCHER
        assert launcher_ran(root, site) == "ran None"


def test_a_constraints_file_fetched_by_url_installs_nothing(tmp_path: Path) -> None:
    """``-c https://...`` bounds what something else installs: the required ``verl>=0.9.0``
    still decides, and the rewritten launcher runs against verl 0.9."""
    files = {"pyproject.toml": PYPROJECT, "requirements.txt": f"omegaconf\n-c {REMOTE}\n"}
    root, site = launcher_project(tmp_path, files, VERL_09)
    found = only_finding(root)
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "safe"), found
    assert run_cli("apply", "--exit-zero", ".", cwd=root).returncode == 0
    assert (root / "train.py").read_text() == FIXED
    assert launcher_ran(root, site) == "ran {'trainer': 2}"
