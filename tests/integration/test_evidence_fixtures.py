"""Pass only a training config (issue 27), on the projects of ``fixtures/evidence``.

Each project binds a name the tool looks for (``config``, ``cfg``, ``self.config``) to
something that is not verl's training config: a logging config made with
``OmegaConf.create``, a Ray cluster YAML read with ``OmegaConf.load``, a logging config
``@hydra.main`` composes, a click option's string, a feature flag bound by ``:=``, a
section a helper of another module hands back, a subclass in another file rebinding
``self.config``, a test config without a verl section. The fixtures' stub verl
(``fixtures/evidence/verl``) asserts that its function gets ``None`` or a mapping with a
verl top-level section. Each entry point runs before and after a plain ``apply``;
``check --output-format json`` reports PPO002 or an unsafe PPO001 whose message names
the evidence. Two projects give evidence for: ``OmegaConf.create({"data": {}})`` and a
Hydra config inheriting a training config through ``defaults``; their safe fixes run.
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
from cli_helpers import FIXTURES, declare_verl, run_cli

EVIDENCE = FIXTURES / "evidence"

#: (directory, entry point) -> (code, applicability or None, words the message must hold)
EXPECTED = {
    ("logging_create", "main.py"): (
        "PPO002", None,
        ['`OmegaConf.create({"level": "INFO", "handlers": ["console"]})` has no verl section',
         "keys: handlers, level"],
    ),
    ("ray_cluster_load", "main.py"): (
        "PPO002", None,
        ['`OmegaConf.load("ray_cluster.yaml")` loads `evidence/ray_cluster_load/ray_cluster.yaml`',
         "keys: address, num_cpus"],
    ),
    ("hydra_logging", "main.py"): (
        "PPO002", None,
        ["composes `evidence/hydra_logging/conf/logging.yaml`, which has no verl section",
         "keys: handlers, level"],
    ),
    ("click_option", "main.py"): (
        "PPO002", None,
        ['`config` is the click option `click.option("--config", default="ppo.yaml")`'],
    ),
    ("walrus_flag", "main.py"): (
        "PPO002", None, ['`OmegaConf.create({"enabled": True})` has no verl section (keys: enabled)'],
    ),
    ("section_helper", "main.py"): (
        "PPO002", None,
        ["`sections.logging_section(training)` returns a part of its argument",
         "evidence/section_helper/sections.py:4 returns `cfg.logging`"],
    ),
    ("subclass_rebind", "main.py"): (
        "PPO001", "unsafe",
        ["unsafe fix: evidence/subclass_rebind/logging_trainer.py:12 sets `self.config` in subclass "
         "`LoggingTrainer`"],
    ),
    ("subclass_own_config", "main.py"): (
        "PPO001", "unsafe",
        ["unsafe fix: evidence/subclass_own_config/logging_base.py:12 sets `self.config` in "
         "subclass `LoggingBase`"],
    ),
    # trial 27: the header nests the composed config under ``wrapped`` (r05)
    ("hydra_package", "main.py"): (
        "PPO002", None,
        ["composes `evidence/hydra_package/conf/wrapped.yaml`, which has no verl section",
         "keys: wrapped"],
    ),
    # trial 27: a merge none of whose parts has a verl section (r01), the file's path
    # built from ``__file__`` (r03)
    ("logging_merge", "main.py"): (
        "PPO002", None,
        ["loads `evidence/logging_merge/logging.yaml`, which has no verl section",
         "keys: level, version"],
    ),
}
#: the findings in files other than the entry point (path -> line of the call)
CALL_FILES = {"subclass_rebind": "trainer.py", "subclass_own_config": "base.py"}


def _run(case_dir: Path, entry: str, root: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root), "HYDRA_FULL_ERROR": "1"}
    return warm_python.run(
        [sys.executable, entry], cwd=case_dir, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def applied(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, dict]:
    """A copy of the fixtures, each entry point run before and after a plain ``apply``,
    and the JSON findings of ``check`` on the fixtures themselves."""
    work = tmp_path_factory.mktemp("evidence") / "evidence"
    shutil.copytree(EVIDENCE, work)
    entries = [*EXPECTED, ("test_configs", "main.py"), ("hydra_inherits", "main.py")]
    before = {e: _run(work / e[0], e[1], work) for e in entries}
    proc = run_cli("apply", ".", cwd=work)
    assert proc.returncode in (0, 1), proc.stderr
    after = {e: _run(work / e[0], e[1], work) for e in entries}
    check = run_cli("check", "evidence", "--output-format", "json", cwd=FIXTURES)
    findings = {}
    for d in json.loads(check.stdout):
        findings.setdefault(os.path.relpath(d["filename"], FIXTURES).replace(os.sep, "/"), []).append(d)
    return work, {"before": before, "after": after}, findings


#: the tests of ``applied`` share one worker (pytest-xdist): its 20 runs are made once, not
#: once on each worker that happens to take one of them
uses_applied = pytest.mark.xdist_group("evidence-applied")


@uses_applied
@pytest.mark.parametrize("case", sorted(EXPECTED), ids=lambda c: c[0])
def test_wrong_value_is_not_passed(applied, case) -> None:
    work, runs, findings = applied
    for when in ("before", "after"):
        proc = runs[when][case]
        assert proc.returncode == 0, (when, proc.stdout, proc.stderr)
        assert proc.stdout.startswith("ran"), (when, proc.stdout)
    code, applicability, words = EXPECTED[case]
    path = f"evidence/{case[0]}/{CALL_FILES.get(case[0], case[1])}"
    (found,) = [d for d in findings[path] if d["code"] in ("PPO001", "PPO002")]
    assert found["code"] == code
    if applicability is not None:
        assert found["fix"]["applicability"] == applicability
    for w in words:
        assert w in found["message"], found["message"]


@uses_applied
def test_evidence_for_keeps_its_safe_fix(applied) -> None:
    work, runs, findings = applied
    for entry in (("test_configs", "main.py"), ("hydra_inherits", "main.py")):
        for when in ("before", "after"):
            proc = runs[when][entry]
            assert proc.returncode == 0, (entry, when, proc.stderr)
    text = (work / "test_configs" / "main.py").read_text()
    assert "config = OmegaConf.create({\"data\": {}})\n    return get_ppo_ray_runtime_env(config)" in text
    assert "return config, get_ppo_ray_runtime_env()\n" in text  # the ``foo`` one is left
    assert "env = get_ppo_ray_runtime_env(cfg)" in (work / "hydra_inherits" / "main.py").read_text()
    by_line = {d["location"]["row"]: d for d in findings["evidence/test_configs/main.py"]}
    assert by_line[9]["code"] == "PPO002"
    assert "`OmegaConf.create({\"foo\": {}})` has no verl section (keys: foo)" in by_line[9]["message"]
    assert by_line[14]["code"] == "PPO001" and by_line[14]["fix"]["applicability"] == "safe"


# -- verl's own trainer configs, composed with Hydra -------------------------------------------


def test_verl_trainer_configs_compose_to_a_training_config(tmp_path: Path) -> None:
    from ppo_migrate.rules.evidence import (
        VERL_TRAINER_CONFIGS,
        VERL_TRAINER_KEYS,
        composed_keys,
    )
    from verl_wheels import unpack

    config_dir = unpack("0.9.1", tmp_path / "wheel") / "verl" / "trainer" / "config"
    shipped = sorted(n for n in VERL_TRAINER_CONFIGS if (config_dir / f"{n}.yaml").is_file())
    assert "ppo_trainer" in shipped and "ppo_megatron_trainer" in shipped and len(shipped) >= 4
    for name in shipped:
        found = composed_keys(config_dir, name)
        assert found.problem is None, name
        assert {"actor_rollout_ref", "critic", "algorithm", "trainer", "data"} <= found.keys, name
        assert VERL_TRAINER_KEYS <= found.keys


def test_recipe_config_inheriting_verl_through_its_checkout(tmp_path: Path) -> None:
    """A recipe's config (verl-recipe's shape: ``hydra.searchpath: [file://verl/trainer/config]``,
    run from verl's checkout, ``defaults: [ppo_trainer, _self_]``) is a training config
    though verl's directory is not beside it; an unknown inherited name is not."""
    declare_verl(tmp_path)
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "recipe_trainer.yaml").write_text(
        "hydra:\n  searchpath:\n    - file://verl/trainer/config\n"
        "defaults:\n  - ppo_trainer\n  - _self_\nrecipe:\n  k: 1\n"
    )
    (tmp_path / "config" / "other.yaml").write_text(
        "hydra:\n  searchpath:\n    - file://verl/trainer/config\n"
        "defaults:\n  - my_logging\n  - _self_\nlevel: 1\n"
    )
    (tmp_path / "main_recipe.py").write_text(
        "import hydra\n"
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n"
        '@hydra.main(config_path="config", config_name="recipe_trainer", version_base=None)\n'
        "def run_recipe(config):\n    return get_ppo_ray_runtime_env()\n\n"
        '@hydra.main(config_path="config", config_name="other", version_base=None)\n'
        "def run_other(config):\n    return get_ppo_ray_runtime_env()\n"
    )
    proc = run_cli("check", "main_recipe.py", "--output-format", "json", cwd=tmp_path)
    by_row = {d["location"]["row"]: d for d in json.loads(proc.stdout)}
    assert by_row[6]["code"] == "PPO001" and by_row[6]["fix"]["applicability"] == "safe"
    assert by_row[10]["code"] == "PPO001" and by_row[10]["fix"]["applicability"] == "unsafe"
    assert "cannot be composed: Hydra cannot compose `other`" in by_row[10]["message"]


def test_config_inheriting_verl_trainer_through_defaults(tmp_path: Path) -> None:
    """A project config whose own keys hold no verl section but whose ``defaults`` inherit
    verl 0.9.1's ``ppo_trainer`` through a search path: Hydra composes it (evidence for,
    a safe fix); one whose inherited config is missing cannot be composed (unsafe, the
    reason says so); a logging config beside them is evidence against (PPO002)."""
    from verl_wheels import unpack

    config_dir = unpack("0.9.1", tmp_path / "wheel") / "verl" / "trainer" / "config"
    project = declare_verl(tmp_path / "project")
    (project / "conf").mkdir(parents=True)
    (project / "conf" / "mine.yaml").write_text(
        f"defaults:\n  - ppo_trainer\n  - _self_\nhydra:\n  searchpath:\n    - file://{config_dir}\n"
        "project_name: mine\n"
    )
    (project / "conf" / "lost.yaml").write_text("defaults:\n  - not_there\n  - _self_\nlevel: 1\n")
    (project / "conf" / "log.yaml").write_text("defaults:\n  - _self_\nlevel: 1\n")
    source = (
        "import hydra\n"
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n"
        '@hydra.main(config_path="conf", config_name="mine", version_base=None)\n'
        "def run_mine(cfg):\n    return get_ppo_ray_runtime_env()\n\n"
        '@hydra.main(config_path="conf", config_name="lost", version_base=None)\n'
        "def run_lost(cfg):\n    return get_ppo_ray_runtime_env()\n\n"
        '@hydra.main(config_path="conf", config_name="log", version_base=None)\n'
        "def run_log(cfg):\n    return get_ppo_ray_runtime_env()\n"
    )
    (project / "train.py").write_text(source)
    proc = run_cli("check", "train.py", "--output-format", "json", cwd=project)
    by_row = {d["location"]["row"]: d for d in json.loads(proc.stdout)}
    assert by_row[6]["code"] == "PPO001" and by_row[6]["fix"]["applicability"] == "safe"
    assert by_row[10]["code"] == "PPO001" and by_row[10]["fix"]["applicability"] == "unsafe"
    assert "cannot be composed: Hydra cannot compose `lost`" in by_row[10]["message"]
    assert by_row[14]["code"] == "PPO002"
    assert "composes `conf/log.yaml`, which has no verl section (keys: level)" in by_row[14]["message"]


def test_reasons_of_the_findings(tmp_path: Path) -> None:
    """The structured reason: ``trusted-by-name`` for a parameter nothing speaks for,
    ``evidence-against`` naming the literal and its line for a rejected one."""
    from ppo_migrate.rules.check import analyse
    from ppo_migrate.settings_model import Settings

    source = (
        "from omegaconf import OmegaConf\n"
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n"
        "def launch(config):\n    return get_ppo_ray_runtime_env()\n\n"
        "def flags():\n"
        "    config = OmegaConf.create({'enabled': True})\n"
        "    return get_ppo_ray_runtime_env()\n"
    )
    path = declare_verl(tmp_path) / "train.py"
    path.write_text(source)
    by_line = {d.line: d for d in analyse(source, str(path), Settings())}
    trusted = by_line[5]
    assert trusted.code == "PPO001" and trusted.fix.applicability == "safe"
    assert trusted.reason.kind == "trusted-by-name"
    assert "`config` of `launch`" in trusted.reason.text
    assert (trusted.reason.lines[0].line, trusted.reason.lines[0].column) == (4, 12)
    against = by_line[9]
    assert against.code == "PPO002" and against.reason.kind == "evidence-against"
    assert against.reason.text == "`OmegaConf.create({'enabled': True})` has no verl section (keys: enabled)"
    assert against.reason.lines[0].line == 8


def test_hydra_compose_api(tmp_path: Path) -> None:
    """``compose(config_name=...)`` under ``with initialize(config_path=...)``: a composed
    training config keeps its safe fix, a logging config is evidence against."""
    declare_verl(tmp_path)
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "ppo.yaml").write_text("trainer:\n  nnodes: 1\n")
    (tmp_path / "conf" / "logs.yaml").write_text("level: INFO\n")
    source = (
        "from hydra import compose, initialize\n"
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n"
        "def training():\n"
        '    with initialize(config_path="conf", version_base=None):\n'
        '        config = compose(config_name="ppo")\n'
        "    return get_ppo_ray_runtime_env()\n\n"
        "def logging_only():\n"
        '    with initialize(config_path="conf", version_base=None):\n'
        '        config = compose(config_name="logs")\n'
        "    return get_ppo_ray_runtime_env()\n"
    )
    (tmp_path / "train.py").write_text(source)
    proc = run_cli("check", "train.py", "--output-format", "json", cwd=tmp_path)
    by_row = {d["location"]["row"]: d for d in json.loads(proc.stdout)}
    assert by_row[7]["code"] == "PPO001" and by_row[7]["fix"]["applicability"] == "safe"
    assert by_row[12]["code"] == "PPO002"
    assert (
        '(`compose(config_name="logs")` composes `conf/logs.yaml`, which has no verl section '
        "(keys: level))" in by_row[12]["message"]
    )
