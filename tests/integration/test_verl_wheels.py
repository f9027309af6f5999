"""Real input: verl's published wheels, each read as the tree it is.

In verl 0.5.0-0.8.0 ``get_ppo_ray_runtime_env()`` takes no argument, and the wheel's own
``verl/trainer/main_ppo.py`` binds to that definition: the call is left alone (PPO005),
no byte of the tree changes and ``check`` passes. In 0.9.x (the first releases with verl
PR #6976) nothing is configless. A pre-0.9 trainer tree taken out of its package and
placed beside a ``pyproject.toml`` requiring ``verl>=0.9`` is rewritten, exactly as PR
#6976 rewrote ``main_ppo.py`` by hand. Needs the package index (CI has it).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli_helpers import run_cli
from verl_wheels import unpack

pytestmark = pytest.mark.network

#: The call in each release's ``verl/trainer/main_ppo.py`` and the line of the definition.
PRE_PR_6976 = {
    "0.5.0": (b"            runtime_env=get_ppo_ray_runtime_env(),\n", 28),
    "0.6.1": (None, None),
    "0.7.1": (None, None),
    "0.8.0": (b"        default_runtime_env = get_ppo_ray_runtime_env()\n", 50),
}


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("version", sorted(PRE_PR_6976))
def test_pre_pr_6976_wheel_binds_to_its_own_zero_argument_definition(tmp_path: Path, version: str) -> None:
    work = unpack(version, tmp_path / "work")
    original = _files(work)
    assert sum(name.endswith(".py") for name in original) > 200

    check = run_cli("check", "verl", "--output-format", "json", cwd=work)
    assert check.returncode == 0, check.stdout + check.stderr
    diagnostics = json.loads(check.stdout)
    assert diagnostics, "the wheel's trainer calls the runtime function without a config"
    assert {d["code"] for d in diagnostics} == {"PPO005"}
    line = PRE_PR_6976[version][1]
    for d in diagnostics:
        assert d["callee"].startswith("`verl/trainer/constants_ppo.py:")
        assert d["callee"].endswith(
            "` defines `get_ppo_ray_runtime_env()` without a config parameter (pre verl PR #6976)"
        )
        if line is not None:
            assert d["callee"].startswith(f"`verl/trainer/constants_ppo.py:{line}`")

    apply = run_cli("apply", "verl", cwd=work)
    assert apply.returncode == 0, apply.stdout + apply.stderr
    assert "Rewrote 0 calls in 0 files; 0 findings remain." in apply.stdout
    assert _files(work) == original


@pytest.mark.parametrize("version", ["0.9.0", "0.9.1"])
def test_pr_6976_wheels_have_nothing_configless(tmp_path: Path, version: str) -> None:
    work = unpack(version, tmp_path / "work")
    check = run_cli("check", "verl", "--output-format", "json", cwd=work)
    assert check.returncode == 0, check.stdout + check.stderr
    assert json.loads(check.stdout) == []


@pytest.mark.parametrize(("version", "before", "after"), [
    ("0.8.0", b"        default_runtime_env = get_ppo_ray_runtime_env()\n",
     b"        default_runtime_env = get_ppo_ray_runtime_env(config)\n"),
    ("0.5.0", b"            runtime_env=get_ppo_ray_runtime_env(),\n",
     b"            runtime_env=get_ppo_ray_runtime_env(config),\n"),
])
def test_trainer_tree_beside_a_verl_0_9_requirement_is_rewritten(
    tmp_path: Path, version: str, before: bytes, after: bytes
) -> None:
    """The trainer modules without their verl package: the project's pin decides, but the
    tree itself holds verl's ``trainer/constants_ppo.py`` (a copy of verl under another
    name, trial 26h: a launch script may link it as ``verl``), whose definition takes no
    config: the fix is unsafe, naming it, and a plain ``apply`` writes nothing;
    ``--unsafe-fixes`` makes the rewrite the pin alone would have made."""
    unpacked = unpack(version, tmp_path / "wheel")
    project = tmp_path / "project"
    shutil.copytree(unpacked / "verl" / "trainer", project / "trainer")
    (project / "pyproject.toml").write_text(
        '[project]\nname = "trainer"\nversion = "0.1.0"\ndependencies = ["verl>=0.9"]\n'
    )
    original = _files(project)
    plain = run_cli("apply", ".", cwd=project)
    assert plain.returncode == 1, plain.stdout + plain.stderr
    assert _files(project) == original
    assert (
        "`./` holds a copy of verl under another name (its `trainer/constants_ppo.py` binds "
        "`get_ppo_ray_runtime_env`), besides the verl that `pyproject.toml:4 verl>=0.9` names"
    ) in plain.stdout
    proc = run_cli("apply", "--unsafe-fixes", ".", cwd=project)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    assert "Rewrote trainer/main_ppo.py (1 call)" in proc.stdout.splitlines()
    migrated = _files(project)
    changed = sorted(k for k in original if original[k] != migrated[k])
    assert changed == ["trainer/main_ppo.py"]
    old, new = original["trainer/main_ppo.py"], migrated["trainer/main_ppo.py"]
    assert old.count(before) == 1
    assert new == old.replace(before, after)


def test_use_ppo_runtime_rewrites_a_pre_pr_6976_wheel(tmp_path: Path) -> None:
    """``--use-ppo-runtime`` moves the import to ppo_runtime, whose function takes a config,
    and passes the config in the same run; the definition itself is never edited."""
    work = unpack("0.8.0", tmp_path / "work")
    original = _files(work)
    proc = run_cli("apply", "verl", "--use-ppo-runtime", cwd=work)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    migrated = _files(work)
    changed = sorted(k for k in original if original[k] != migrated[k])
    assert changed == ["verl/trainer/main_ppo.py"]
    new = migrated["verl/trainer/main_ppo.py"]
    assert b"        default_runtime_env = get_ppo_ray_runtime_env(config)\n" in new
    assert b"from ppo_runtime import get_ppo_ray_runtime_env\n" in new
    assert b"from verl.trainer.constants_ppo import get_ppo_ray_runtime_env" not in new
    assert migrated["verl/trainer/constants_ppo.py"] == original["verl/trainer/constants_ppo.py"]


def test_check_with_the_scout_matches_one_process_on_real_wheels(tmp_path: Path) -> None:
    """The verl 0.8.0 and 0.9.1 wheels side by side (~800 files), a configless call injected
    into a new ``helper(config)`` of 0.9.1's ``main_ppo.py`` (PPO001) and one at the top of its
    ``ray_trainer.py`` (PPO002): ``check`` (its walk in the forked scout) and ``check --jobs 1``
    (one process) print the same."""
    unpack("0.8.0", tmp_path / "v080")
    work = unpack("0.9.1", tmp_path / "v091")
    main_ppo = work / "verl" / "trainer" / "main_ppo.py"
    text = main_ppo.read_text()
    assert text.count("\ndef run_ppo(") == 1
    main_ppo.write_text(text.replace(
        "\ndef run_ppo(", "\ndef helper(config):\n    return get_ppo_ray_runtime_env()\n\n\ndef run_ppo("
    ))
    trainer = work / "verl" / "trainer" / "ppo" / "ray_trainer.py"
    trainer.write_text(
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
        "ENV = get_ppo_ray_runtime_env()\n" + trainer.read_text()
    )
    for fmt in ("json", "concise"):
        scouted = run_cli("check", "--output-format", fmt, "v080", "v091", cwd=tmp_path)
        alone = run_cli("check", "--jobs", "1", "--output-format", fmt, "v080", "v091", cwd=tmp_path)
        assert scouted.returncode == alone.returncode == 1, scouted.stderr
        assert scouted.stdout == alone.stdout
        assert scouted.stderr == alone.stderr
        if fmt == "json":
            found = sorted((d["code"], d["filename"].split("/")[-1]) for d in json.loads(scouted.stdout))
            assert found == [
                ("PPO001", "main_ppo.py"), ("PPO002", "ray_trainer.py"), ("PPO005", "main_ppo.py")
            ]


@pytest.mark.parametrize("version", ["0.9.0", "0.9.1"])
@pytest.mark.parametrize("capability", [(9, 0), (None, None)], ids=["hopper", "no-gpu"])
def test_verl_0_9_raises_on_a_plain_dict_and_takes_a_dictconfig(
    tmp_path_factory: pytest.TempPathFactory, version: str, capability
) -> None:
    """What the reasons say of a plain dict (``ppo_migrate.rules.reasons.DICT_RAISES``),
    checked on the published code: each 0.9 release's ``get_ppo_ray_runtime_env`` reads
    the config with ``OmegaConf.select`` on every call given one (0.9.0's
    ``_uses_mindspeed``, 0.9.1's ``_uses_torch_profiler``), which raises ``AttributeError``
    on a dict, with a GPU or without; an OmegaConf ``DictConfig`` of the same keys works."""
    from omegaconf import OmegaConf

    from ppo_migrate.rules.reasons import DICT_RAISES
    from verl_wheels import CONSTANTS, load_constants_ppo, wheel_tree

    source = (wheel_tree(version, tmp_path_factory) / CONSTANTS).read_text(encoding="utf-8")
    module = load_constants_ppo(source, capability=capability, hip=None, environ={})
    function = module["get_ppo_ray_runtime_env"]
    keys = {"trainer": {"n_gpus_per_node": 8}, "actor_rollout_ref": {"actor": {"strategy": "fsdp"}}}
    with pytest.raises(AttributeError):
        function(keys)
    assert "env_vars" in function(OmegaConf.create(keys))
    assert "OmegaConf.select" in source and "`OmegaConf.select`" in DICT_RAISES
