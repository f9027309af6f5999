"""Issue 26, family 3, trial 26b: an environment's pin alone showed a new verl.

Each project runs verl 0.8 (a stub on ``PYTHONPATH``, as the project's interpreter has it;
the tool never sees it) and declares nothing of its own; only an environment of the
repository installs ``verl>=0.9``: the Sphinx build's ``docs/requirements.txt``, a
``continue-on-error`` nightly workflow, an install under a shell ``if``. A plain ``apply``
(and ``apply --thread-config``) took that pin as the project's, passed the config, and the
launcher raised ``TypeError``. The rule (docs/design/project-model.md, "Trial 26b"): only the
project's own declarations may show that a config is taken; an environment's pin may only
lower the release. Nothing decides here, so the fix is unsafe, and its reason names the
pin set aside (file:line) and what to declare. Each case is *executed* before and after
both applies.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import LAUNCHER, launcher_project, launcher_ran, only_finding, run_cli

BEFORE = "ran None"
CALL_LINE = 6

#: shape -> (the environment's files, the pin set aside as the reason shows it: `path:line requirement`)
SHAPES = {
    "docs-requirements": (
        {"docs/requirements.txt": "sphinx\nsphinx-autodoc-typehints\nverl>=0.9.0  # autodoc of the new API\n"},
        "docs/requirements.txt:3 verl>=0.9.0",
    ),
    "continue-on-error-workflow": (
        {
            ".github/workflows/nightly.yml": (
                "name: nightly-compat\n"
                'on: {schedule: [{cron: "0 3 * * *"}]}\n'
                "jobs:\n"
                "  future:\n"
                "    runs-on: ubuntu-latest\n"
                "    continue-on-error: true\n"
                "    steps:\n"
                '      - run: pip install "verl>=0.9.0" && python -c "import verl"\n'
            )
        },
        ".github/workflows/nightly.yml:8 verl>=0.9.0",
    ),
    "shell-if": (
        {"install.sh": '#!/bin/sh\npip install ray\nif [ "$NIGHTLY" = 1 ]; then\n  pip install "verl>=0.9"\nfi\n'},
        "install.sh:4 verl>=0.9",
    ),
}


#: the project with verl 0.8 on the launcher's path, the launcher's ``ran ...`` line and the one finding
_project = launcher_project
_runs = launcher_ran
_finding = only_finding


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_an_environment_pin_alone_leaves_the_call_running(tmp_path: Path, shape: str) -> None:
    files, pin = SHAPES[shape]
    root, site = _project(tmp_path, files)
    assert _runs(root, site) == BEFORE

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
        assert _runs(root, site) == BEFORE


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_project_own_declaration_still_decides(tmp_path: Path, shape: str) -> None:
    """The same repository whose own ``requirements.txt`` declares ``verl>=0.9``: that
    decides, the fix is safe and ``apply`` passes the config (the environment sets nothing aside)."""
    files, _ = SHAPES[shape]
    root, _site = _project(tmp_path, {**files, "requirements.txt": "ray\nverl>=0.9\n"})
    found = _finding(root)
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "safe")
    assert "requirements.txt:2 verl>=0.9" in found["callee"]
    proc = run_cli("apply", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert (root / "train.py").read_text() == LAUNCHER.replace("get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config)")
