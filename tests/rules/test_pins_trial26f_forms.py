"""Trial 26f (REPORT.md B11, family 2): pins in forms the tool did not read.

* ``h2_tox_env_substitution_default``: tox's ``verl{env:VERL_SPEC:==0.8.0}`` is its default
  unless the variable is set (``pins.tox_ini_pins``);
* ``h2_mise_pipx_verl``: mise's ``[tools] "pipx:verl" = "0.8.0"`` (and ``.tool-versions``'
  ``pipx:verl 0.8.0``) installs that release (``pins._mise``, ``pins._tool_versions``);
* ``h2_pep723_inline_script``: a script's ``# /// script`` block (PEP 723) declares the
  environment ``uv run`` builds for it (``install_pins.inline_script_pins``);
* ``h2_shebang_uv_run_with``: ``#!/usr/bin/env -S uv run --with verl==0.8.0 python`` installs
  verl 0.8.0 before it runs the script, as ``uv run --with`` in a script does
  (``install_pins._run_with_installs``).

Each was a safe ``PPO001`` and the rewritten launcher raised ``TypeError`` against verl 0.8.
Each project is *executed* before and after ``apply`` and ``apply --thread-config`` (verl 0.8
on ``PYTHONPATH``, never seen by the tool); each reader has its unit test.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import LAUNCHER, VERL_08, launcher_project, launcher_ran, only_finding, run_cli
from packaging.version import Version
from ppo_migrate.project.snapshot import run_scope
from ppo_migrate.rules.install_pins import _run_with_installs, inline_script_pins
from ppo_migrate.rules.pins import _mise, _tool_versions, tox_ini_pins

CALL_LINE = 6
PYPROJECT = '[project]\nname = "proj"\nversion = "0.1.0"\ndependencies = ["verl>=0.9.0", "omegaconf"]\n'

#: shape -> (files beside pyproject.toml, the pin as ``file:line written``)
FORMS = {
    "tox-env-default": (
        {"tox.ini": "[tox]\nenv_list = py311\n\n[testenv]\ndeps =\n    omegaconf\n    verl{env:VERL_SPEC:==0.8.0}\n"},
        "tox.ini:7 verl{env:VERL_SPEC:==0.8.0}",
    ),
    "mise-pipx": ({"mise.toml": '[tools]\npython = "3.11"\n"pipx:verl" = "0.8.0"\n'}, 'mise.toml:3 "pipx:verl" = "0.8.0"'),
    "tool-versions": ({".tool-versions": "python 3.11.7\npipx:verl 0.8.0\n"}, ".tool-versions:2 pipx:verl 0.8.0"),
    "pep723-block": (
        {"scripts/run.py": '# /// script\n# requires-python = ">=3.10"\n# dependencies = ["verl==0.8.0", "omegaconf"]\n'
                           "# ///\nimport train\n"},
        "scripts/run.py:3 verl==0.8.0",
    ),
    "shebang-uv-run-with": (
        {"scripts/run.py": "#!/usr/bin/env -S uv run --with verl==0.8.0 --with omegaconf python\nimport train\n"},
        "scripts/run.py:1 verl==0.8.0",
    ),
    "script-uvx-with": (
        {"jobs/run.sh": "#!/bin/bash\n# uv run --with verl==0.9.1 python train.py  (next quarter)\n"
                        "uv run --with 'verl==0.8.0' python train.py\n"},
        "jobs/run.sh:3 verl==0.8.0",
    ),
}


@pytest.mark.parametrize("shape", sorted(FORMS))
def test_a_pin_in_these_forms_leaves_the_call(tmp_path: Path, shape: str) -> None:
    files, pin = FORMS[shape]
    root, site = launcher_project(tmp_path, {"pyproject.toml": PYPROJECT, **files}, VERL_08)
    assert launcher_ran(root, site) == "ran None"

    found = only_finding(root, launcher="train.py")
    assert (found["code"], found["location"]["row"], found["fix"]) == ("PPO005", CALL_LINE, None)
    assert f"the project runs verl 0.8.0 (`{pin}`)" in found["message"], found["message"]
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert (root / "train.py").read_text() == LAUNCHER
        assert launcher_ran(root, site) == "ran None"


def test_tox_substitutions(tmp_path: Path) -> None:
    ini = "[testenv]\ndeps =\n    verl{env:V:>=0.7.1,<0.9}\n\n[testenv:next]\ndeps =\n    verl=={env:V}\n"
    found = list(tox_ini_pins(ini, tmp_path / "tox.ini", ini))
    assert [(f.version, f.line, f.requirement, f.kind, f.optional) for f in found] == [
        (Version("0.7.1"), 3, "verl{env:V:>=0.7.1,<0.9}", "specifier", False),
        (None, 7, "verl=={env:V}", "direct-reference", True),
    ]


def test_mise_and_tool_versions(tmp_path: Path) -> None:
    (tmp_path / "mise.toml").write_text(
        '[tools]\nnode = "20"\n"pipx:verl" = ["0.9.1", "0.8"]\n"pipx:verl-tools" = "0.1.0"\n"pip:ray" = "2.40.0"\n'
    )
    (tmp_path / ".tool-versions").write_text("# tools\npipx:verl latest\npython 3.11\n")
    with run_scope():
        mise = list(_mise(tmp_path / "mise.toml"))
        asdf = list(_tool_versions(tmp_path / ".tool-versions"))
    assert [(f.version, f.line, f.kind) for f in mise] == [(Version("0.9.1"), 3, "lock"), (Version("0.8.0"), 3, "specifier")]
    assert [(f.version, f.line, f.kind, f.bounded) for f in asdf] == [(None, 2, "specifier", False)]


def test_run_with_installs_and_inline_metadata(tmp_path: Path) -> None:
    text = (
        "uv run --with=verl==0.8.0 -w ray python a.py && pipx run --spec 'verl<0.9' tool\n"
        "# uv run --with verl==0.7.0 python b.py\n"
        "echo ok; pip-run verl==0.6.0 omegaconf -- c.py\n"
        "uv run python d.py\n"
    )
    assert _run_with_installs(text).split("\n") == [
        " ; pip install verl==0.8.0 ray ; pip install 'verl<0.9'",
        "",
        " ; pip install verl==0.6.0 omegaconf",
        "",
        "",
    ]
    script = '#!/usr/bin/env python\n# /// script\n# dependencies = [\n#   "ray",\n#   "verl>=0.7,<0.9",\n# ]\n# ///\n'
    found = list(inline_script_pins(script, tmp_path / "s.py"))
    assert [(f.version, f.line, f.requirement) for f in found] == [(Version("0.7.0"), 5, "verl>=0.7,<0.9")]
    assert list(inline_script_pins(script.replace("# ///\n", "x = 1\n"), tmp_path / "s.py")) == []
