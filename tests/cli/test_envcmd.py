"""``ppo-migrate env`` (issue 7), run through the real ``ppo-migrate`` executable.

Configs are the verl-shaped files under tests/data/configs: flat FSDP / Megatron trainer
configs and a Hydra config directory whose primary configs use defaults lists.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from cli_helpers import run_cli
from ppo_migrate.cli.envcmd import (
    EnvCommandError,
    Override,
    env_command,
    load_config,
    parse_overrides,
)
from ppo_runtime import (
    ALWAYS_FORWARDED_ENV_VARS,
    BASE_ENV_VARS,
    FORWARDED_WHEN_SET_ENV_VARS,
    RAY_JOB_CONFIG_JSON_ENV_VAR,
)

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "configs"
HYDRA_DIR = CONFIGS / "hydra"
FSDP = str(CONFIGS / "ppo_trainer.yaml")
MEGATRON = str(CONFIGS / "ppo_megatron_trainer.yaml")
CUDA = "CUDA_DEVICE_MAX_CONNECTIONS"
MANAGED = (
    *BASE_ENV_VARS,
    CUDA,
    RAY_JOB_CONFIG_JSON_ENV_VAR,
    *ALWAYS_FORWARDED_ENV_VARS,
    *FORWARDED_WHEN_SET_ENV_VARS,
    "TLLM_DISABLE_NVLS_MNNVL",
    "VERL_KEEP_NVTX_INJECTION",
    "NVTX_INJECTION64_PATH",
)
#: verl 0.9.1 writes these on every call (driver value or "0").
DETERMINISM_DEFAULTS = dict.fromkeys(ALWAYS_FORWARDED_ENV_VARS, "0")
#: Lines of the text format with nothing set: every set variable, CUDA_DEVICE_MAX_CONNECTIONS
#: (set or not) and working_dir.
DEFAULT_LINES = len(BASE_ENV_VARS) + len(ALWAYS_FORWARDED_ENV_VARS) + 2
MEGATRON_FSDP_EVERYWHERE = (
    "actor_rollout_ref.actor.megatron.use_megatron_fsdp=true",
    "actor_rollout_ref.ref.megatron.use_megatron_fsdp=true",
    "critic.megatron.use_megatron_fsdp=true",
)


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in MANAGED}
    env.update(extra)
    return env


def run(*args: str, env: dict[str, str] | None = None, block_hydra: bool = False, process: bool = False):
    """Run ``ppo-migrate env ARGS`` with the environment ``env`` (default: this one without
    the variables the command manages), Hydra made unimportable if asked; in this process
    unless ``process``."""
    return run_cli(
        "env",
        *args,
        environ=env if env is not None else _clean_env(),
        blocked=("hydra",) if block_hydra else (),
        process=process,
    )


def text_lines(stdout: str) -> dict[str, str]:
    """``{NAME: rest of line}`` from the text format."""
    out = {}
    for line in stdout.splitlines():
        left, _, right = line.partition("  ")
        name = left.split("=")[0].split(" ")[0]
        out[name] = line
    return out


def assert_one_line_error(proc, *fragments: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("ppo-migrate: error: ")
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


# --- CONFIG.yaml form -----------------------------------------------------------------


def test_megatron_hopper_sets_the_variable_naming_the_components():
    proc = run(MEGATRON, "--capability", "9.0")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    line = text_lines(proc.stdout)[CUDA]
    assert line.startswith("CUDA_DEVICE_MAX_CONNECTIONS=1 ")
    assert line.endswith(
        "megatron: Megatron in actor_rollout_ref.actor, actor_rollout_ref.ref, critic "
        "on compute capability 9.0 (given; < 10)"
    )
    lines = text_lines(proc.stdout)
    assert lines["NCCL_DEBUG"].startswith("NCCL_DEBUG=WARN ")
    assert "base-default" in lines["NCCL_DEBUG"]
    assert lines["working_dir"].startswith("working_dir=None ")
    assert len(proc.stdout.splitlines()) == DEFAULT_LINES


def test_megatron_fsdp_for_every_megatron_component_leaves_it_out():
    proc = run(MEGATRON, *MEGATRON_FSDP_EVERYWHERE, "--capability", "9.0")
    assert proc.returncode == 0, proc.stderr
    line = text_lines(proc.stdout)[CUDA]
    assert line.startswith("CUDA_DEVICE_MAX_CONNECTIONS (left out) ")
    assert "no-megatron" in line


def test_megatron_fsdp_on_the_actor_only_still_sets_it_for_ref_and_critic():
    proc = run(MEGATRON, MEGATRON_FSDP_EVERYWHERE[0], "--capability", "9.0")
    assert "Megatron in actor_rollout_ref.ref, critic on" in text_lines(proc.stdout)[CUDA]


def test_megatron_blackwell_leaves_it_out():
    proc = run(MEGATRON, "--capability", "10.0")
    assert proc.returncode == 0, proc.stderr
    line = text_lines(proc.stdout)[CUDA]
    assert line.startswith("CUDA_DEVICE_MAX_CONNECTIONS (left out) ")
    assert "capability-10-or-newer" in line and "10.0" in line


def test_override_switches_fsdp_actor_and_its_ref_to_megatron():
    # use_kl_loss: verl builds the ref only with a KL term.
    proc = run(
        FSDP,
        "actor_rollout_ref.actor.strategy=megatron",
        "actor_rollout_ref.actor.use_kl_loss=true",
        "--capability",
        "8.0",
    )
    assert proc.returncode == 0, proc.stderr
    line = text_lines(proc.stdout)[CUDA]
    assert "CUDA_DEVICE_MAX_CONNECTIONS=1" in line
    assert (
        "Megatron in actor_rollout_ref.actor, actor_rollout_ref.ref on compute capability 8.0"
        in line
    )


def test_fsdp_alone_leaves_it_out():
    proc = run(FSDP, "--capability", "9.0")
    assert proc.returncode == 0, proc.stderr
    assert text_lines(proc.stdout)[CUDA].startswith("CUDA_DEVICE_MAX_CONNECTIONS (left out) ")


def test_plus_adds_a_new_key():
    # The FSDP config has no top-level reward_model: `+` adds one (older verl location).
    # It counts only in a legacy config (no reward section), as pre-0.9 verl built it.
    added = ("+reward_model.strategy=megatron", "+reward_model.enable=true", "--capability", "9.0")
    proc = run(FSDP, "~reward", *added)
    assert proc.returncode == 0, proc.stderr
    assert "Megatron in reward_model on" in text_lines(proc.stdout)[CUDA]
    # With the reward section, verl 0.9.1 reads only reward.reward_model.enable.
    assert text_lines(run(FSDP, *added).stdout)[CUDA].startswith(f"{CUDA} (left out) ")


def test_oc_select_interpolation_in_an_override_is_resolved():
    proc = run(
        FSDP,
        "actor_rollout_ref.ref.strategy=${oc.select:actor_rollout_ref.ref.engine,megatron}",
        "actor_rollout_ref.actor.use_kl_loss=true",
        "--capability",
        "9.0",
    )
    assert proc.returncode == 0, proc.stderr
    assert "Megatron in actor_rollout_ref.ref on" in text_lines(proc.stdout)[CUDA]


def test_a_file_with_a_defaults_list_is_composed_with_its_own_directory():
    # Was: loaded flat, "no-megatron", exit 0 and a note on stderr.
    proc = run(str(HYDRA_DIR / "ppo_megatron_trainer.yaml"), "--capability", "9.0")
    assert (proc.returncode, proc.stderr) == (0, "")
    composed = run(
        "--config-dir", str(HYDRA_DIR), "--config-name", "ppo_megatron_trainer", "--capability", "9.0"
    )
    assert proc.stdout == composed.stdout
    assert "Megatron in actor_rollout_ref.actor, critic on" in text_lines(proc.stdout)[CUDA]
    # Overrides apply to the composed config, group overrides included.
    grpo = run(
        str(HYDRA_DIR / "ppo_megatron_trainer.yaml"),
        "algorithm.adv_estimator=grpo",
        "critic=dp_critic",
        "--capability",
        "9.0",
    )
    assert grpo.returncode == 0, grpo.stderr
    assert "Megatron in actor_rollout_ref.actor on" in text_lines(grpo.stdout)[CUDA]


def test_a_file_with_a_defaults_list_without_hydra_is_an_error():
    proc = run(str(HYDRA_DIR / "ppo_megatron_trainer.yaml"), "--capability", "9.0", block_hydra=True)
    assert_one_line_error(proc, "compose the config with Hydra", "pip install")


# --- --config-dir/--config-name form (Hydra compose, defaults lists) -------------------


def test_compose_megatron_trainer():
    proc = run(
        "--config-dir",
        str(HYDRA_DIR),
        "--config-name",
        "ppo_megatron_trainer",
        "--capability",
        "9.0",
    )
    assert proc.returncode == 0, proc.stderr
    line = text_lines(proc.stdout)[CUDA]
    assert "CUDA_DEVICE_MAX_CONNECTIONS=1" in line
    # use_kl_loss is false in the directory's actor.yaml: verl builds no ref.
    assert "Megatron in actor_rollout_ref.actor, critic on" in line


def test_compose_megatron_fsdp_everywhere_leaves_it_out():
    proc = run(
        "--config-dir",
        str(HYDRA_DIR),
        "--config-name",
        "ppo_megatron_trainer",
        *MEGATRON_FSDP_EVERYWHERE,
        "--capability",
        "9.0",
    )
    assert proc.returncode == 0, proc.stderr
    assert text_lines(proc.stdout)[CUDA].startswith("CUDA_DEVICE_MAX_CONNECTIONS (left out)")


def test_compose_fsdp_trainer_with_a_group_override():
    base = run(
        "--config-dir", str(HYDRA_DIR), "--config-name", "ppo_trainer", "--capability", "9.0"
    )
    assert text_lines(base.stdout)[CUDA].startswith("CUDA_DEVICE_MAX_CONNECTIONS (left out)")
    proc = run(
        "--config-dir",
        str(HYDRA_DIR),
        "--config-name",
        "ppo_trainer",
        "actor@actor_rollout_ref.actor=megatron_actor",
        "actor_rollout_ref.actor.use_kl_loss=true",
        "--capability",
        "9.0",
    )
    assert proc.returncode == 0, proc.stderr
    # The ref's strategy is ${actor_rollout_ref.actor.strategy}: it follows the actor.
    assert (
        "Megatron in actor_rollout_ref.actor, actor_rollout_ref.ref on"
        in text_lines(proc.stdout)[CUDA]
    )


# --- formats and device/driver options ----------------------------------------------------


def test_json_is_exactly_the_runtime_env():
    proc = run(MEGATRON, "--capability", "9.0", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {
        "env_vars": {**BASE_ENV_VARS, CUDA: "1", **DETERMINISM_DEFAULTS},
        "working_dir": None,
    }


def test_json_explain():
    proc = run(MEGATRON, "--capability", "10.0", "--format", "json", "--explain")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["runtime_env"] == {
        "env_vars": {**BASE_ENV_VARS, **DETERMINISM_DEFAULTS},
        "working_dir": None,
    }
    assert doc["function_runtime_env"] == doc["runtime_env"] and doc["from_ray_kwargs"] == {}
    (cuda,) = [v for v in doc["variables"] if v["name"] == CUDA]
    assert (cuda["value"], cuda["included"], cuda["reason"]) == (
        None,
        False,
        "capability-10-or-newer",
    )
    assert doc["megatron_components"] == [
        "actor_rollout_ref.actor",
        "actor_rollout_ref.ref",
        "critic",
    ]
    assert doc["capability"] == {
        "value": "10.0",
        "source": "override",
        "detail": "device_capability=10.0 was passed",
    }
    assert [v["name"] for v in doc["variables"]][: len(BASE_ENV_VARS)] == list(BASE_ENV_VARS)
    assert doc["warnings"] == []
    critic = [c for c in doc["components"] if c["path"] == "critic"][0]
    assert (critic["built"], critic["why"]) == (True, "critic built: enable is null and adv_estimator gae")


def test_no_gpu_sets_it_and_warns():
    proc = run(MEGATRON, "--no-gpu")
    assert proc.returncode == 0, proc.stderr
    line = text_lines(proc.stdout)[CUDA]
    assert line.startswith("CUDA_DEVICE_MAX_CONNECTIONS=1 ") and "capability-unknown" in line
    (warning,) = proc.stderr.strip().splitlines()
    assert warning.startswith("ppo-migrate: warning: Setting CUDA_DEVICE_MAX_CONNECTIONS=1")
    assert "device_capability=(major, minor)" in warning


def test_real_probe_on_this_machine():
    import torch

    if torch.cuda.is_available():
        pytest.skip("needs a machine without a CUDA GPU")
    proc = run(MEGATRON)
    assert proc.returncode == 0, proc.stderr
    line = text_lines(proc.stdout)[CUDA]
    assert "capability-unknown" in line and "torch.cuda.is_available() is False" in line


def test_driver_value_forwarded_or_dropped():
    env = _clean_env(NCCL_DEBUG="INFO")
    forwarded = run(FSDP, "--capability", "9.0", env=env)
    line = text_lines(forwarded.stdout)["NCCL_DEBUG"]
    assert line.startswith("NCCL_DEBUG=INFO ") and "driver-forwarded" in line
    dropped = run(FSDP, "--capability", "9.0", "--no-forward-driver-env", env=env)
    line = text_lines(dropped.stdout)["NCCL_DEBUG"]
    assert line.startswith("NCCL_DEBUG (left out) ") and "driver-dropped" in line
    assert (
        "NCCL_DEBUG"
        not in json.loads(run(FSDP, "--format", "json", "--no-forward-driver-env", env=env).stdout)[
            "env_vars"
        ]
    )


# --- errors: one line, exit 2 --------------------------------------------------------


def test_error_missing_file(tmp_path):
    assert_one_line_error(run(str(tmp_path / "nope.yaml")), "config file not found", "nope.yaml")


def test_error_yaml_syntax_with_its_line(tmp_path):
    bad = tmp_path / "trainer.yaml"
    bad.write_text("actor_rollout_ref:\n  actor:\n    strategy: [megatron\n  ref: {}\n")
    line = assert_one_line_error(run(str(bad)), "YAML syntax error")
    assert f"{bad}:4:" in line  # where the parser gave up
    assert "line 3" in line  # where the unclosed sequence starts


@pytest.mark.parametrize(
    "override, fragment",
    [
        (
            "actor_rollout_ref.actor.strategy=[megatron",
            "bad override 'actor_rollout_ref.actor.strategy=[megatron'",
        ),
        (
            "actor_rollout_ref.actor.engine=megatron",
            "to add it use '+actor_rollout_ref.actor.engine=megatron'",
        ),
        ("+trainer.nnodes=2", "'trainer.nnodes' already exists"),
        ("~trainer.nope", "cannot delete 'trainer.nope'"),
        ("critic.strategy=fsdp,megatron", "sweeps are not supported"),
        (
            "actor@actor_rollout_ref.actor=megatron_actor",
            "needs --config-dir DIR --config-name NAME",
        ),
    ],
)
def test_error_bad_override(override, fragment):
    assert_one_line_error(run(FSDP, override, "--capability", "9.0"), fragment)


def test_error_bad_override_in_compose_form():
    assert_one_line_error(
        run("--config-dir", str(HYDRA_DIR), "--config-name", "ppo_trainer", "critic.engine=x"),
        "Could not override 'critic.engine'",
    )


def test_error_unresolvable_interpolation_names_the_key(tmp_path):
    cfg = tmp_path / "trainer.yaml"
    cfg.write_text(
        "actor_rollout_ref:\n  actor:\n    strategy: ${model_engine}\n"
        "  ref:\n    strategy: ${actor_rollout_ref.actor.strategy}\n"
    )
    assert_one_line_error(
        run(str(cfg), "--capability", "9.0"),
        "cannot resolve the interpolation at 'actor_rollout_ref.actor.strategy'",
        "model_engine",
    )


def test_error_unknown_config_name():
    assert_one_line_error(
        run("--config-dir", str(HYDRA_DIR), "--config-name", "ppo_trainr"),
        "unknown config name 'ppo_trainr'",
        "available: ppo_megatron_trainer, ppo_trainer",
    )


def test_error_unknown_group_option():
    assert_one_line_error(
        run(
            "--config-dir",
            str(HYDRA_DIR),
            "--config-name",
            "ppo_trainer",
            "actor@actor_rollout_ref.actor=ds_actor",
        ),
        "Could not find 'actor/ds_actor'",
        "dp_actor, megatron_actor",
    )


def test_error_missing_config_dir(tmp_path):
    assert_one_line_error(
        run("--config-dir", str(tmp_path / "conf"), "--config-name", "x"),
        "config directory not found",
    )


@pytest.mark.parametrize(
    "args, fragment",
    [
        (("--capability", "hopper"), "--capability: invalid compute capability 'hopper'"),
        (("--capability", "9.0", "--no-gpu"), "mutually exclusive"),
        (("--config-name", "ppo_trainer"), "--config-dir and --config-name go together"),
    ],
)
def test_error_bad_options(args, fragment):
    assert_one_line_error(run(FSDP, *args), fragment)


def test_error_no_config():
    assert_one_line_error(run(), "missing config")


def test_error_malformed_ray_job_config():
    env = _clean_env(**{RAY_JOB_CONFIG_JSON_ENV_VAR: "{oops"})
    assert_one_line_error(run(FSDP, env=env), RAY_JOB_CONFIG_JSON_ENV_VAR, "malformed JSON")


# --- without Hydra ------------------------------------------------------------------


def test_without_hydra_compose_says_how_to_install():
    assert_one_line_error(
        run("--config-dir", str(HYDRA_DIR), "--config-name", "ppo_trainer", block_hydra=True),
        "pip install 'ppo-migrate[hydra]'",
    )


def test_without_hydra_the_fallback_parser_applies_overrides():
    proc = run(
        FSDP,
        "actor_rollout_ref.actor.strategy=megatron",
        "actor_rollout_ref.actor.use_kl_loss=true",
        "+trainer.extra=[1, 2]",
        "--capability",
        "9.0",
        block_hydra=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert (
        "Megatron in actor_rollout_ref.actor, actor_rollout_ref.ref on"
        in text_lines(proc.stdout)[CUDA]
    )


def test_without_hydra_bad_override_is_one_line():
    assert_one_line_error(run(FSDP, "=megatron", block_hydra=True), "bad override '=megatron'")


# --- the plain functions, in process ---------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a.b=megatron", Override("change", "a.b", "megatron", "a.b=megatron")),
        ("+new.key=1", Override("add", "new.key", 1, "+new.key=1")),
        ("++x=true", Override("force_add", "x", True, "++x=true")),
        ("~a.c", Override("delete", "a.c", None, "~a.c")),
        ("k=null", Override("change", "k", None, "k=null")),
        ("k=", Override("change", "k", "", "k=")),
        ("k=[1, 2]", Override("change", "k", [1, 2], "k=[1, 2]")),
        ("k=${a.b}", Override("change", "k", "${a.b}", "k=${a.b}")),
    ],
)
@pytest.mark.parametrize("use_hydra", [True, False])
def test_parse_overrides_hydra_and_fallback_agree(text, expected, use_hydra):
    assert parse_overrides([text], use_hydra=use_hydra) == [expected]


def test_load_config_applies_overrides_in_struct_mode():
    from omegaconf import OmegaConf

    cfg = load_config(FSDP, ["critic.enable=false", "+critic.megatron.use_megatron_fsdp=true"])
    assert OmegaConf.is_struct(cfg)
    assert cfg.critic.enable is False
    assert cfg.critic.megatron.use_megatron_fsdp is True
    with pytest.raises(EnvCommandError, match="is not in the config"):
        load_config(FSDP, ["critic.nope=1"])


def test_click_command_in_process():
    runner = CliRunner()
    result = runner.invoke(
        env_command,
        [MEGATRON, "--capability", "9.0", "--format", "json"],
        env={k: None for k in MANAGED},
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["env_vars"][CUDA] == "1"
    result = runner.invoke(env_command, ["/nonexistent/trainer.yaml"])
    assert result.exit_code == 2


def test_python_dash_m_envcmd():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ppo_migrate.cli.envcmd",
            MEGATRON,
            "--capability",
            "10.0",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        env=_clean_env(),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert CUDA not in json.loads(proc.stdout)["env_vars"]


# --- bad input found by testing: still one line and exit 2 (or a correct result) --------


def _hydra_dir(root: Path, files: dict[str, str | bytes]) -> Path:
    """A config directory: ``{"main.yaml": text, "grp/x.yaml": b"..."}``."""
    for name, content in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)
    return root


def compose(conf: Path, *args: str, name: str = "main"):
    return run("--config-dir", str(conf), "--config-name", name, *args)


@pytest.mark.parametrize(
    "content, fragments",
    [
        # the tester's file: a UTF-32 (or UTF-16 + NUL) byte-order mark
        (b"\xff\xfe\x00\x00", ("not UTF-8", "UTF-32 byte-order mark")),
        ("actor_rollout_ref: {}\n".encode("utf-16"), ("not UTF-8", "UTF-16 byte-order mark")),
        # Latin-1 in a comment on line 3: the position of the bad byte
        (b"a: 1\nb: 2\n# caf\xe9\n", (":3:6: not UTF-8 text (byte 0xe9)",)),
    ],
    ids=["utf32-bom", "utf16", "latin1"],
)
def test_error_yaml_file_not_utf8(tmp_path, content, fragments):
    bad = tmp_path / "b.yaml"
    bad.write_bytes(content)
    assert_one_line_error(run(str(bad)), str(bad), *fragments)


def test_error_yaml_file_not_utf8_in_config_dir(tmp_path):
    conf = _hydra_dir(
        tmp_path, {"main.yaml": "defaults:\n  - grp: x\n", "grp/x.yaml": b"\xff\xfe\x00\x00"}
    )
    assert_one_line_error(compose(conf), str(conf / "grp" / "x.yaml"), "not UTF-8")
    primary = _hydra_dir(tmp_path / "p", {"main.yaml": b"a: 1\n# \xff\n"})
    assert_one_line_error(compose(primary), f"{primary / 'main.yaml'}:2:3: not UTF-8")


def test_a_non_utf8_file_the_config_does_not_use_is_fine(tmp_path):
    conf = _hydra_dir(tmp_path, {"main.yaml": "a: 1\n", "junk.yaml": b"\xff\xfe\x00\x00"})
    proc = compose(conf, "--capability", "9.0")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(
    "defaults, fragment",
    [
        ("defaults: 5", "defaults must be a list (got int)"),
        ("defaults: abc", "defaults must be a list (got str)"),
        ("defaults:\n  - 5", "Unsupported type in defaults : int"),
        ("defaults:\n  - null", "Unsupported type in defaults : NoneType"),
        ("defaults:\n  - [a]", "Unsupported type in defaults : ListConfig"),
        ("defaults:\n  - {a: x, b: y}", "Too many keys in default item"),
    ],
    ids=["int", "str", "int-item", "null-item", "list-item", "two-key-item"],
)
def test_error_hydra_malformed_defaults_list(tmp_path, defaults, fragment):
    conf = _hydra_dir(tmp_path, {"main.yaml": f"{defaults}\na: 1\n"})
    assert_one_line_error(compose(conf), str(conf / "main.yaml"), fragment)


def test_error_hydra_malformed_defaults_list_in_a_group_file_names_that_file(tmp_path):
    conf = _hydra_dir(
        tmp_path, {"main.yaml": "defaults:\n  - grp: x\n", "grp/x.yaml": "defaults: 5\nb: 1\n"}
    )
    assert_one_line_error(
        compose(conf), str(conf / "grp" / "x.yaml"), "defaults must be a list (got int)"
    )


@pytest.mark.parametrize(
    "files",
    [
        {"main.yaml": "defaults:\n  - main\n"},
        {"main.yaml": "defaults:\n  - grp: x\n", "grp/x.yaml": "defaults:\n  - /main\n"},
    ],
    ids=["self", "through-a-group"],
)
def test_error_hydra_defaults_cycle(tmp_path, files):
    conf = _hydra_dir(tmp_path, files)
    assert_one_line_error(compose(conf), "cannot compose 'main'", "cycle")


@pytest.mark.parametrize(
    "content, fragment",
    [
        ("just a string\n", "got a string: 'just a string'"),
        ("5\n", "got a number: 5"),
        ("true\n", "got a boolean: True"),
        ("- a\n- b\n", "got a list"),
        ("!!set {a, b}\n", "got a set"),
    ],
    ids=["string", "number", "boolean", "list", "set"],
)
def test_error_top_level_must_be_a_mapping(tmp_path, content, fragment):
    bad = tmp_path / "trainer.yaml"
    bad.write_text(content)
    assert_one_line_error(run(str(bad)), f"{bad}: the top level must be a mapping", fragment)


@pytest.mark.parametrize("where", ["main.yaml", "grp/x.yaml"])
@pytest.mark.parametrize("content", ["just a string\n", "- a\n"], ids=["string", "list"])
def test_error_top_level_must_be_a_mapping_in_config_dir(tmp_path, where, content):
    files = {"main.yaml": "defaults:\n  - grp: x\n", "grp/x.yaml": "b: 1\n"}
    files[where] = content
    conf = _hydra_dir(tmp_path, files)
    assert_one_line_error(compose(conf), f"{conf / where}: the top level must be a mapping")


@pytest.mark.parametrize(
    "content",
    ["", "# only a comment\n", "null\n", "\n\n"],
    ids=["empty", "comment", "null", "blank"],
)
def test_an_empty_file_is_an_empty_config(tmp_path, content):
    empty = tmp_path / "trainer.yaml"
    empty.write_text(content)
    proc = run(str(empty), "+critic.strategy=megatron", "--capability", "9.0")
    assert proc.returncode == 0, proc.stderr
    assert "Megatron in critic on" in text_lines(proc.stdout)[CUDA]
    conf = _hydra_dir(tmp_path / "conf", {"main.yaml": content})
    proc = compose(conf, "+critic.strategy=megatron", "--capability", "9.0")
    assert proc.returncode == 0, proc.stderr
    assert "Megatron in critic on" in text_lines(proc.stdout)[CUDA]


def test_explain_in_text_shows_each_component_as_verl_decides_it():
    plain = run(MEGATRON, "algorithm.adv_estimator=grpo", "--capability", "9.0")
    explained = run(MEGATRON, "algorithm.adv_estimator=grpo", "--capability", "9.0", "--explain")
    assert explained.returncode == 0, explained.stderr
    lines = explained.stdout.splitlines()
    components = {
        line.split()[1]: line.split("  ", 1)[1].strip()
        for line in lines
        if line.startswith("component ")
    }
    assert components == {
        "actor_rollout_ref.actor": "actor built: verl always builds the actor; strategy=megatron",
        "actor_rollout_ref.ref": "ref built: actor_rollout_ref.actor.use_kl_loss is true; "
        "strategy=megatron",
        "critic": "critic not built: adv_estimator grpo",
        "reward_model": "reward model not built: reward_model.enable is false",
        "reward.reward_model": "reward model not built: reward.reward_model is not configured",
        "distillation": "teacher not built: distillation.enabled is not true",
    }
    assert lines[-1].startswith("capability ") and "9.0 (override" in lines[-1]
    # The variables no rule sets, which the plain text leaves out.
    assert "NCCL_NVLS_ENABLE (left out)" in explained.stdout
    assert "NCCL_NVLS_ENABLE" not in plain.stdout
    help_text = " ".join(run("--help").stdout.split())
    assert "--explain Also show each component as verl decides it" in help_text


def test_output_format_and_its_hidden_alias():
    new = run(MEGATRON, "--capability", "9.0", "--output-format", "json")
    old = run(MEGATRON, "--capability", "9.0", "--format", "json")
    assert new.returncode == old.returncode == 0
    assert new.stdout == old.stdout and json.loads(new.stdout)["env_vars"][CUDA] == "1"
    help_text = run("--help").stdout
    assert "--output-format" in help_text and "--format" not in help_text.replace("--output-format", "")
    assert_one_line_error(
        run(MEGATRON, "--output-format", "json", "--format", "text"), "alias of --output-format"
    )

def test_error_directory_as_the_yaml_file(tmp_path):
    assert_one_line_error(run(str(tmp_path)), f"{tmp_path} is a directory", "--config-dir")


def test_error_unreadable_yaml_file(tmp_path):
    # Tests run as root, which reads a mode-000 file anyway; a UNIX socket exists but
    # cannot be opened, which takes the same "cannot read" path as EACCES would.
    import socket

    path = tmp_path / "trainer.yaml"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        assert_one_line_error(run(str(path)), f"cannot read {path}")


@pytest.mark.parametrize(
    "content, fragments",
    [
        ("a: 1\na: 2\n", (":2:1: YAML syntax error: found duplicate key a",)),
        ("a:\n\tb: 1\n", (":2:1: YAML syntax error", "'\\t'")),
        ("a: &x\n  b: *x\n", ("recursive anchor", "'a.b'")),
        ("a: &x [1, *x]\n", ("recursive anchor", "'a[1]'")),
        (
            "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
            + "".join(
                f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n"
                for p, c in zip("abcdef", "bcdefg", strict=True)
            ),
            ("aliases expand to more than",),
        ),
        ("a: " + "[" * 300 + "]" * 300 + "\n", ("nested too deeply",)),
        ("a: " + "[" * 3000 + "]" * 3000 + "\n", ("nested too deeply",)),
        (
            "actor_rollout_ref:\n  actor:\n    strategy: ${bad\n",
            ("bad interpolation at 'actor_rollout_ref.actor.strategy'", "${bad"),
        ),
    ],
    ids=[
        "duplicate-key",
        "tab",
        "alias-loop",
        "alias-loop-list",
        "alias-bomb",
        "deep",
        "deeper",
        "broken-interpolation",
    ],
)
def test_error_bad_yaml_content(tmp_path, content, fragments):
    bad = tmp_path / "trainer.yaml"
    bad.write_text(content)
    assert_one_line_error(run(str(bad), "--capability", "9.0"), str(bad), *fragments)


def test_error_bad_yaml_content_in_config_dir(tmp_path):
    conf = _hydra_dir(
        tmp_path,
        {
            "main.yaml": "defaults:\n  - grp: x\n  - _self_\n",
            "grp/x.yaml": "actor_rollout_ref:\n  actor:\n    strategy: ${bad\n",
        },
    )
    assert_one_line_error(
        compose(conf),
        str(conf / "grp" / "x.yaml"),
        "bad interpolation at 'actor_rollout_ref.actor.strategy'",
    )
    loop = _hydra_dir(tmp_path / "loop", {"main.yaml": "a: &x\n  b: *x\n"})
    assert_one_line_error(compose(loop), str(loop / "main.yaml"), "recursive anchor")


def test_shared_anchors_and_huge_numbers_are_fine(tmp_path):
    cfg = tmp_path / "trainer.yaml"
    cfg.write_text(
        "engine: &engine megatron\n"
        "actor_rollout_ref:\n  actor: &actor {strategy: *engine, lr: 1e999999, use_kl_loss: true}\n"
        "  ref: *actor\n"
        "trainer: {steps: 123456789012345678901234567890}\n"
    )
    proc = run(str(cfg), "--capability", "9.0")
    assert proc.returncode == 0, proc.stderr
    assert (
        "Megatron in actor_rollout_ref.actor, actor_rollout_ref.ref on"
        in (text_lines(proc.stdout)[CUDA])
    )


@pytest.mark.parametrize(
    "value, fragment",
    [
        ("9.0.1", "invalid compute capability '9.0.1'"),
        ("abc", "invalid compute capability 'abc'"),
        ("-1.0", "invalid compute capability '-1.0'"),
        ("", "invalid compute capability ''"),
        ("unknown", "for an unknown device use --no-gpu"),
    ],
)
def test_error_bad_capability(value, fragment):
    assert_one_line_error(run(FSDP, "--capability", value), "--capability", fragment)


@pytest.mark.parametrize("value, shown", [("9", "9.0"), ("10.0", "10.0"), (" 8.6 ", "8.6")])
def test_capability_forms(value, shown):
    proc = run(MEGATRON, "--capability", value)
    assert proc.returncode == 0, proc.stderr
    assert f"compute capability {shown} (given;" in text_lines(proc.stdout)[CUDA]


@pytest.mark.parametrize(
    "override, fragment",
    [
        ("=x", "bad override '=x': the key is empty"),
        ("+=", "bad override '+=': the key is empty"),
        ("~", "bad override '~': the key is empty"),
        ("a..b=1", "bad override 'a..b=1'"),
        ("a=${bad", "bad override 'a=${bad'"),
        ("~missing", "cannot delete 'missing', it does not exist"),
        ("x=1=2", "bad override 'x=1=2'"),
        (
            "actor_rollout_ref.actor.strategy=${actor_rollout_ref.actor.engine}",
            "cannot resolve the interpolation at 'actor_rollout_ref.actor.strategy'",
        ),
    ],
)
@pytest.mark.parametrize("block_hydra", [False, True], ids=["hydra", "fallback"])
def test_error_bad_override_edge_cases(override, fragment, block_hydra):
    assert_one_line_error(
        run(FSDP, override, "--capability", "9.0", block_hydra=block_hydra), fragment
    )


def test_plus_key_with_an_empty_value_adds_an_empty_string():
    proc = run(FSDP, "+critic.note=", "--capability", "9.0")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(
    "override, fragment",
    [
        ("=x", "bad override '=x': the key is empty"),
        ("@x=1", "bad override '@x=1': the key is empty"),
        ("actor=null", "'actor' is a config group"),
        ("actor@actor_rollout_ref.actor=5", "'actor' is a config group"),
    ],
)
def test_error_bad_override_in_compose_form_edge_cases(override, fragment):
    assert_one_line_error(
        run("--config-dir", str(HYDRA_DIR), "--config-name", "ppo_trainer", override), fragment
    )


def test_error_two_yaml_files():
    assert_one_line_error(run(FSDP, MEGATRON), f"bad override {MEGATRON!r}", "one CONFIG.yaml")


def test_error_config_dir_is_a_file():
    assert_one_line_error(
        run("--config-dir", FSDP, "--config-name", "ppo_trainer"),
        f"--config-dir {FSDP} is not a directory",
    )


@pytest.mark.parametrize(
    "args, fragment",
    [
        (("",), "the config file path is empty"),
        (("--config-dir", "", "--config-name", "ppo_trainer"), "--config-dir is empty"),
        (("--config-dir", str(HYDRA_DIR), "--config-name", ""), "--config-name is empty"),
    ],
)
def test_error_empty_paths(args, fragment):
    assert_one_line_error(run(*args), fragment)


@pytest.mark.parametrize(
    "args, fragment",
    [
        ((FSDP, "--format", "xml"), "Invalid value for '--format'"),
        ((FSDP, "--bogus"), "No such option: --bogus"),
        ((FSDP, "--capability"), "'--capability' requires an argument"),
    ],
)
def test_error_usage_errors_are_one_line_too(args, fragment):
    assert_one_line_error(run(*args), fragment, "ppo-migrate env -h")


def test_text_format_keeps_a_multi_line_driver_value_on_one_line():
    proc = run(FSDP, "--capability", "9.0", env=_clean_env(NCCL_DEBUG="INFO\nTRACE"))
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) == DEFAULT_LINES
    assert text_lines(proc.stdout)["NCCL_DEBUG"].startswith('NCCL_DEBUG="INFO\\nTRACE" ')
    env_vars = json.loads(
        run(FSDP, "--format", "json", env=_clean_env(NCCL_DEBUG="INFO\nTRACE")).stdout
    )
    assert env_vars["env_vars"]["NCCL_DEBUG"] == "INFO\nTRACE"


# --- verl's own configs: the 0.9.1 wheel's verl/trainer/config (needs the registry) ------

#: The overrides of verl's Megatron-FSDP GRPO example scripts (examples/grpo_trainer/...):
#: the Megatron engine everywhere, GRPO (no critic), no KL (no ref), Megatron-FSDP actor.
MEGATRON_FSDP_GRPO = (
    "model_engine=megatron",
    "algorithm.adv_estimator=grpo",
    "algorithm.use_kl_in_reward=False",
    "actor_rollout_ref.actor.use_kl_loss=False",
    "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=4",
    "actor_rollout_ref.actor.megatron.use_mbridge=True",
    "actor_rollout_ref.actor.megatron.use_megatron_fsdp=True",
)


@pytest.fixture(scope="module")
def _verl_wheel_config_dir(tmp_path_factory) -> str:
    from verl_wheels import wheel_tree

    return str(wheel_tree("0.9.1", tmp_path_factory) / "verl" / "trainer" / "config")


#: (directory, its YAML files' digest, config name, overrides) -> the composed config
_COMPOSED: dict[tuple, Any] = {}


@pytest.fixture
def verl_config_dir(_verl_wheel_config_dir, monkeypatch) -> str:
    """``verl/trainer/config`` of the published verl 0.9.1 wheel.

    Hydra composes verl's trainer config in ~1 s (PyYAML's pure-Python scanner over some
    hundred files), and a test here composes the same config up to four times (its
    oracle, then each output format). While it runs, ``compose_config`` is Hydra's
    composition done once per (directory and its files' content, name, overrides) in
    this process: the first call is the real one; each call gets its own deep copy
    (OmegaConf's ``__deepcopy__``: flags and interpolations as composed); errors are not
    kept, and propagate each time."""
    import copy
    import hashlib

    from ppo_migrate.cli import envcmd

    real = envcmd.compose_config

    def composed_once(config_dir, config_name, overrides=()):
        digest = hashlib.sha256()
        for path in sorted(Path(config_dir).rglob("*.yaml")):
            digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
        key = (os.path.abspath(config_dir), digest.hexdigest(), config_name, tuple(overrides))
        if key not in _COMPOSED:
            _COMPOSED[key] = real(config_dir, config_name, overrides)
        return copy.deepcopy(_COMPOSED[key])

    monkeypatch.setattr(envcmd, "compose_config", composed_once)
    return _verl_wheel_config_dir


# (row, args after the config, CUDA_DEVICE_MAX_CONNECTIONS line must start with, and contain)
WHEEL_ROWS = [
    ("fsdp-default", ("--capability", "9.0"), "CUDA_DEVICE_MAX_CONNECTIONS (left out)", "no-megatron"),
    (
        "megatron-gae-hopper",
        ("model_engine=megatron", "--capability", "9.0"),
        "CUDA_DEVICE_MAX_CONNECTIONS=1",
        "Megatron in actor_rollout_ref.actor, critic on compute capability 9.0",
    ),
    (
        "megatron-volta",
        ("model_engine=megatron", "--capability", "7.0"),
        "CUDA_DEVICE_MAX_CONNECTIONS=1",
        "on compute capability 7.0",
    ),
    (
        "megatron-blackwell",
        ("model_engine=megatron", "--capability", "10.0"),
        "CUDA_DEVICE_MAX_CONNECTIONS (left out)",
        "capability-10-or-newer",
    ),
    (
        "megatron-fsdp-grpo-example",
        (*MEGATRON_FSDP_GRPO, "--capability", "9.0"),
        "CUDA_DEVICE_MAX_CONNECTIONS (left out)",
        "no component verl builds runs Megatron",
    ),
    (
        "megatron-fsdp-grpo-with-kl-loss",  # the ref has its own use_megatron_fsdp: false
        (*MEGATRON_FSDP_GRPO, "actor_rollout_ref.actor.use_kl_loss=True", "--capability", "9.0"),
        "CUDA_DEVICE_MAX_CONNECTIONS=1",
        "Megatron in actor_rollout_ref.ref on",
    ),
    (
        "megatron-fsdp-grpo-with-kl-loss-fsdp-ref",
        (
            *MEGATRON_FSDP_GRPO,
            "actor_rollout_ref.actor.use_kl_loss=True",
            "actor_rollout_ref.ref.megatron.use_megatron_fsdp=True",
            "--capability",
            "9.0",
        ),
        "CUDA_DEVICE_MAX_CONNECTIONS (left out)",
        "no-megatron",
    ),
    (
        "megatron-grpo-critic-enabled",
        ("model_engine=megatron", "algorithm.adv_estimator=grpo", "critic.enable=True", "--capability", "8.0"),
        "CUDA_DEVICE_MAX_CONNECTIONS=1",
        "Megatron in actor_rollout_ref.actor, critic on",
    ),
    (
        "megatron-fsdp-grpo-with-reward-model",  # 0.9.x: served by an inference server
        (*MEGATRON_FSDP_GRPO, "reward.reward_model.enable=True", "--capability", "9.0"),
        "CUDA_DEVICE_MAX_CONNECTIONS (left out)",
        "no component verl builds runs Megatron",
    ),
    (
        "megatron-fsdp-grpo-kl-loss-with-lora",  # verl ref_in_actor: no separate Megatron ref
        (
            *MEGATRON_FSDP_GRPO,
            "actor_rollout_ref.actor.use_kl_loss=True",
            "actor_rollout_ref.model.lora.rank=8",
            "--capability",
            "9.0",
        ),
        "CUDA_DEVICE_MAX_CONNECTIONS (left out)",
        "no component verl builds runs Megatron",
    ),
    (
        "megatron-no-gpu",
        ("model_engine=megatron", "--no-gpu"),
        "CUDA_DEVICE_MAX_CONNECTIONS=1",
        "capability-unknown",
    ),
]


@pytest.mark.network
@pytest.mark.parametrize(("row", "args", "starts", "contains"), WHEEL_ROWS, ids=[r[0] for r in WHEEL_ROWS])
def test_verl_wheel_config_gives_the_rules_answer(verl_config_dir, row, args, starts, contains):
    proc = run("--config-dir", verl_config_dir, "--config-name", "ppo_trainer", *args)
    assert proc.returncode == 0, proc.stderr
    line = text_lines(proc.stdout)[CUDA]
    assert line.startswith(starts + " "), line
    assert contains in line, line
    warned = [w for w in proc.stderr.splitlines() if w.startswith("ppo-migrate: warning:")]
    assert proc.stderr == "".join(w + "\n" for w in warned)  # nothing from torch/NumPy/Hydra
    assert len(warned) == (1 if row == "megatron-no-gpu" else 0)


@pytest.mark.network
def test_verl_wheel_megatron_trainer_file_is_composed(verl_config_dir):
    # verl's ppo_megatron_trainer.yaml is only a defaults list over ppo_trainer.
    proc = run(str(Path(verl_config_dir) / "ppo_megatron_trainer.yaml"), "--capability", "9.0")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert "Megatron in actor_rollout_ref.actor, critic on" in text_lines(proc.stdout)[CUDA]


@pytest.mark.network
def test_verl_wheel_explain_says_why_the_critic_is_not_built(verl_config_dir):
    proc = run(
        "--config-dir", verl_config_dir, "--config-name", "ppo_trainer", *MEGATRON_FSDP_GRPO,
        "--capability", "9.0", "--output-format", "json", "--explain",
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    by_path = {c["path"]: c for c in doc["components"]}
    assert by_path["critic"]["why"] == "critic not built: adv_estimator grpo"
    assert by_path["critic"]["strategy"] == "megatron" and by_path["critic"]["built"] is False
    assert by_path["actor_rollout_ref.ref"]["built"] is False
    assert by_path["actor_rollout_ref.actor"]["use_megatron_fsdp"] is True
    assert CUDA not in doc["runtime_env"]["env_vars"]


@pytest.mark.network
def test_verl_wheel_torch_profiler_sets_nvtx(verl_config_dir):
    proc = run(
        "--config-dir", verl_config_dir, "--config-name", "ppo_trainer",
        "global_profiler.tool=torch", "--capability", "9.0", "--output-format", "json",
    )
    assert proc.returncode == 0, proc.stderr
    env_vars = json.loads(proc.stdout)["env_vars"]
    assert env_vars["NVTX_INJECTION64_PATH"] == "/nonexistent/verl-disabled-nvtx-injection.so"


@pytest.mark.network
def test_verl_wheel_ray_kwargs_are_merged_and_named(verl_config_dir):
    args = (
        "--config-dir", verl_config_dir, "--config-name", "ppo_trainer",
        "+ray_kwargs.ray_init.runtime_env.env_vars.NCCL_DEBUG=INFO",
        "+ray_kwargs.ray_init.runtime_env.env_vars.MY_FLAG='1'",  # a string, as Ray requires
        "--capability", "9.0",
    )
    text = run(*args)
    assert text.returncode == 0, text.stderr
    lines = text_lines(text.stdout)
    assert lines["NCCL_DEBUG"].startswith("NCCL_DEBUG=INFO ")
    assert "ray-kwargs:" in lines["NCCL_DEBUG"] and "(over WARN from get_ppo_ray_runtime_env)" in lines["NCCL_DEBUG"]
    assert lines["MY_FLAG"].startswith("MY_FLAG=1 ") and "ray-kwargs:" in lines["MY_FLAG"]
    doc = json.loads(run(*args, "--output-format", "json").stdout)
    assert doc["env_vars"]["NCCL_DEBUG"] == "INFO" and doc["env_vars"]["MY_FLAG"] == "1"
    assert doc["py_executable"] is None  # verl's own ray_kwargs.ray_init.runtime_env key


# --- the documented examples are the real output -------------------------------------------


def _documented_env_examples() -> list[tuple[str, str, str]]:
    """``(file, command line, output shown)`` of every one-command ``console`` block that
    runs ``ppo-migrate env`` in README.md and docs/runtime.md (a block of several commands
    is run by tests/integration/test_docs.py)."""
    import re

    root = CONFIGS.parent.parent.parent
    found = []
    for name in ("README.md", "docs/runtime.md"):
        text = (root / name).read_text(encoding="utf-8")
        for command, output in re.findall(r"```console\n\$ (.*?)\n(.*?)```", text, re.S):
            if "ppo-migrate env" in command and "\n$ " not in output and "|" not in command:
                found.append((name, command, output))
    return found


@pytest.mark.parametrize(("doc", "command", "shown"), _documented_env_examples())
def test_documented_example_is_the_real_output(doc, command, shown):
    import shlex

    words = shlex.split(command)
    extra = {}
    while "=" in words[0] and not words[0].startswith("ppo-migrate"):
        key, _, value = words.pop(0).partition("=")
        extra[key] = value
    assert words[:2] == ["ppo-migrate", "env"]
    root = CONFIGS.parent.parent.parent
    proc = run_cli(*words[1:], environ=_clean_env(**extra), cwd=root)
    assert proc.stderr + proc.stdout == shown, (doc, command)


# --- only the command's own output ---------------------------------------------------------


def test_hydra_warnings_do_not_leak(tmp_path):
    # Hydra warns "Defaults list is missing `_self_`" for this primary config.
    # (``trainer`` makes it a training config: a config without one gets a warning of ours)
    conf = _hydra_dir(tmp_path, {"main.yaml": "defaults:\n  - grp: x\ntrainer: {}\n", "grp/x.yaml": "b: 1\n"})
    for proc in (compose(conf, "--capability", "9.0"), run(str(conf / "main.yaml"), "--capability", "9.0")):
        assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
        assert text_lines(proc.stdout)[CUDA].startswith("CUDA_DEVICE_MAX_CONNECTIONS (left out)")


def test_torch_and_numpy_warnings_of_the_probe_do_not_leak():
    # No --capability: the device is probed, which imports torch (whose CPU build warns
    # "Failed to initialize NumPy" when NumPy is missing).
    # a process: PYTHONWARNINGS is read at start-up
    proc = run(MEGATRON, env=_clean_env(PYTHONWARNINGS="default"), process=True)
    assert proc.returncode == 0
    (line,) = proc.stderr.splitlines()
    assert line.startswith("ppo-migrate: warning: Setting CUDA_DEVICE_MAX_CONNECTIONS=1")


@pytest.mark.parametrize(
    "override, fragment",
    [
        ("++ray_kwargs.ray_init.runtime_env=5", "ray_kwargs.ray_init.runtime_env must be a mapping, got int"),
        ("++ray_kwargs.ray_init.runtime_env.env_vars=[1,2]", "ray_kwargs.ray_init.runtime_env: Cannot merge"),
        (
            "++ray_kwargs.ray_init.runtime_env.env_vars.X=${nope}",
            "ray_kwargs.ray_init.runtime_env: Interpolation key 'nope' not found",
        ),
    ],
)
def test_error_malformed_ray_kwargs_runtime_env_is_one_line(override, fragment):
    assert_one_line_error(run(FSDP, override, "--capability", "9.0"), fragment)


def test_ray_kwargs_and_transfer_queue_are_merged_as_main_ppo_does():
    proc = run(
        FSDP,
        "++ray_kwargs.ray_init.runtime_env.env_vars.NCCL_DEBUG=INFO",
        "++transfer_queue.enable=true",
        "--capability",
        "9.0",
        "--output-format",
        "json",
        "--explain",
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["runtime_env"]["env_vars"]["NCCL_DEBUG"] == "INFO"
    assert doc["runtime_env"]["env_vars"]["TRANSFER_QUEUE_ENABLE"] == "1"
    assert doc["function_runtime_env"]["env_vars"]["NCCL_DEBUG"] == "WARN"
    assert doc["from_ray_kwargs"] == {"NCCL_DEBUG": "INFO"}
    assert doc["added_by_main_ppo"] == {"TRANSFER_QUEUE_ENABLE": "1"}


# --- verl main_ppo's environment setup before the call (issue 14 follow-up) ----------------


def _run_ppo_env_setup(main_ppo_source: str):
    """The statements of verl's real ``run_ppo`` before ``if not ray.is_initialized()``,
    compiled from the wheel's ``main_ppo.py``: ``setup(config) -> {NAME: value}`` runs
    them against a private ``os.environ``."""
    import ast
    import types

    tree = ast.parse(main_ppo_source)
    (run_ppo,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "run_ppo"]
    body = []
    for stmt in run_ppo.body:
        if isinstance(stmt, ast.If) and "ray.is_initialized" in ast.unparse(stmt.test):
            break
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
            body.append(stmt)
    assert any("VERL_FULL_DETERMINISM" in ast.unparse(s) for s in body)  # the block we mean
    code = compile(ast.Module(body=body, type_ignores=[]), "verl/trainer/main_ppo.py", "exec")

    def setup(config) -> dict[str, str]:
        fake_os = types.SimpleNamespace(environ={})
        exec(code, {"os": fake_os, "config": config})
        return fake_os.environ

    return setup


MAIN_PPO_CASES = [
    ("rollout-determinism", ("actor_rollout_ref.rollout.full_determinism=true",)),
    ("rollout-determinism-seed", ("actor_rollout_ref.rollout.full_determinism=true", "actor_rollout_ref.rollout.seed=7")),
    (
        "reward-model-determinism",
        ("reward.reward_model.enable=true", "reward.reward_model.rollout.full_determinism=true"),
    ),
    ("reward-model-determinism-disabled", ("reward.reward_model.rollout.full_determinism=true",)),
    ("rl-insight-list", ("trainer.logger=[console,rl_insight]",)),
    ("rl-insight-string", ("trainer.logger=rl_insight",)),
    ("nothing", ()),
]


@pytest.mark.network
@pytest.mark.parametrize(("case", "overrides"), MAIN_PPO_CASES, ids=[c[0] for c in MAIN_PPO_CASES])
def test_env_sets_what_verl_main_ppo_sets_before_the_call(verl_config_dir, case, overrides):
    from ppo_migrate.cli.envcmd import compose_config

    source = (Path(verl_config_dir).parents[0] / "main_ppo.py").read_text(encoding="utf-8")
    expected = _run_ppo_env_setup(source)(compose_config(verl_config_dir, "ppo_trainer", list(overrides)))
    args = ("--config-dir", verl_config_dir, "--config-name", "ppo_trainer", *overrides, "--capability", "9.0")
    proc = run(*args, "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    env_vars = json.loads(proc.stdout)["env_vars"]
    for name in ALWAYS_FORWARDED_ENV_VARS:
        assert env_vars[name] == expected.get(name, "0"), name
    assert env_vars.get("PYTHONHASHSEED") == expected.get("PYTHONHASHSEED")
    want = {
        "rollout-determinism": {"VERL_FULL_DETERMINISM": "1", "VLLM_BATCH_INVARIANT": "1", "PYTHONHASHSEED": "42"},
        "rollout-determinism-seed": {"VERL_FULL_DETERMINISM": "1", "VLLM_BATCH_INVARIANT": "1", "PYTHONHASHSEED": "7"},
        "reward-model-determinism": {"VERL_FULL_DETERMINISM": "1", "VLLM_BATCH_INVARIANT": "1", "PYTHONHASHSEED": "42"},
        "rl-insight-list": {"VERL_RL_INSIGHT_ENABLE": "1"},
        "rl-insight-string": {"VERL_RL_INSIGHT_ENABLE": "1"},
    }.get(case, {})
    assert expected == want  # the oracle ran verl's code on the config we meant
    explained = json.loads(run(*args, "--output-format", "json", "--explain").stdout)
    assert {k: v["value"] for k, v in explained["set_before_call_by_main_ppo"].items()} == want
    lines = text_lines(run(*args, "--explain").stdout)
    for name, value in want.items():
        assert lines[name].startswith(f"{name}={value} "), lines[name]
        assert "main-ppo: verl main_ppo's run_ppo sets it in the driver before the call" in lines[name]


def test_env_with_a_driver_value_main_ppo_overwrites_shows_main_ppos(tmp_path):
    # run_ppo assigns os.environ[...] = "1": a driver's 0 does not survive.
    cfg = tmp_path / "c.yaml"
    cfg.write_text("actor_rollout_ref:\n  rollout: {full_determinism: true, seed: 3}\n", encoding="utf-8")
    proc = run(str(cfg), "--capability", "9.0", "--output-format", "json", env={"VERL_FULL_DETERMINISM": "0"})
    env_vars = json.loads(proc.stdout)["env_vars"]
    assert (env_vars["VERL_FULL_DETERMINISM"], env_vars["PYTHONHASHSEED"]) == ("1", "3")


def test_error_determinism_without_a_seed_names_the_key(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("actor_rollout_ref:\n  rollout: {full_determinism: true}\n", encoding="utf-8")
    assert_one_line_error(
        run(str(cfg), "--capability", "9.0"),
        "actor_rollout_ref.rollout.seed is missing or null, but actor_rollout_ref.rollout.full_determinism is true",
    )


@pytest.mark.parametrize(
    ("value", "shown"), [("8", "8 (int)"), ("true", "True (bool)"), ("null", "null"), ("[a]", "['a'] (list)")]
)
def test_error_non_string_ray_kwargs_env_var_names_the_key(value, shown):
    proc = run(FSDP, f"++ray_kwargs.ray_init.runtime_env.env_vars.MY_FLAG={value}", "--capability", "9.0")
    assert_one_line_error(
        proc, f"ray_kwargs.ray_init.runtime_env.env_vars.MY_FLAG: expected a string, got {shown}", "ray.init"
    )


@pytest.mark.parametrize(
    ("override", "message"),
    [
        (
            "++actor_rollout_ref.actor.megatron.use_megatron_fsdp=maybe",
            "actor_rollout_ref.actor.megatron.use_megatron_fsdp: expected true, false or null, got 'maybe' (str)",
        ),
        ("critic=megatron", "critic: expected a mapping (a config section), got 'megatron' (str)"),
        ("actor_rollout_ref.actor.strategy=5", "actor_rollout_ref.actor.strategy: expected a string, got 5 (int)"),
        (
            "++actor_rollout_ref.rollout.full_determinism=maybe",
            "actor_rollout_ref.rollout.full_determinism: expected true, false or null, got 'maybe' (str)",
        ),
    ],
)
def test_error_bad_values_name_the_key_instead_of_a_guess(override, message):
    proc = run(FSDP, override, "--capability", "9.0")
    assert assert_one_line_error(proc) == f"ppo-migrate: error: {message}"


@pytest.mark.parametrize(
    ("content", "warned"),
    [("foo: 1\n", True), ("", True), ("strategy: megatron\nmegatron: {}\n", True),
     ("trainer:\n  n_gpus_per_node: 1\n", False)],
)
def test_a_config_with_no_verl_section_is_warned_about(tmp_path, content, warned):
    """A fresh user's trial: a sub-config (``actor/megatron_actor.yaml``: ``strategy:
    megatron`` at the top), an empty file or another tool's YAML silently gave verl's
    defaults ("no-megatron ... left out", exit 0). It still does, with one warning line."""
    path = tmp_path / "cfg.yaml"
    path.write_text(content)
    proc = run(str(path), "--capability", "9.0")
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "no verl training section" in line]
    assert lines == ([f"ppo-migrate: warning: {path} has no verl training section (actor_rollout_ref, "
                      "algorithm, critic, data, global_profiler, reward, reward_model, trainer): "
                      "every component takes verl's defaults"] if warned else [])
