"""ppo_runtime against verl's own ``get_ppo_ray_runtime_env`` from the published wheels.

verl 0.9.0 and 0.9.1 are downloaded once per session (``pip download --no-deps``);
their ``verl/trainer/constants_ppo.py`` runs for real, with only the device probe and
the Ray constant stubbed (tests/verl_wheels.py). Over a grid of configs
(strategies of every component incl. Megatron-FSDP and MindSpeed, ``critic.enable``
true/false/null with each ``adv_estimator``, KL on/off, a legacy reward model, the
profiler tool) and platforms (capability 7.0/8.0/9.0/10.0/12.0/unknown, ROCm, the GB200
opt-in, determinism variables, a driver-set variable, a job runtime_env), every
difference must be a row of the table in docs/runtime.md, and every row must occur:
the test asserts exactly that table.
"""

from __future__ import annotations

import itertools
import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path

import ppo_runtime
import pytest
from omegaconf import OmegaConf
from ppo_runtime import BASE_ENV_VARS, get_ppo_ray_runtime_env
from verl_wheels import CONSTANTS, VERSIONS, load_constants_ppo, wheel_tree

pytestmark = pytest.mark.network

DOCS = Path(__file__).resolve().parents[2] / "docs" / "runtime.md"
CUDA = "CUDA_DEVICE_MAX_CONNECTIONS"
CAPABILITIES = ((7, 0), (8, 0), (9, 0), (10, 0), (12, 0), None)
ABSENT = "—"
#: The stand-in for "a variable a caller adds to PPO_RAY_RUNTIME_ENV["env_vars"]".
ADDED = "ADDED_TO_PPO_RAY_RUNTIME_ENV"


@pytest.fixture(scope="session")
def verl_sources(tmp_path_factory) -> dict[str, str]:
    """``{version: text of verl/trainer/constants_ppo.py}`` for :data:`VERSIONS`."""
    return {
        version: (wheel_tree(version, tmp_path_factory) / CONSTANTS).read_text(encoding="utf-8")
        for version in VERSIONS
    }


@dataclass(frozen=True)
class Case:
    """One config of the grid."""

    actor: str  # fsdp | megatron | megatron-fsdp | mindspeed
    critic: str
    critic_enable: bool | None
    adv: str  # gae | grpo
    ref: str  # inherit (verl's ref.yaml) | megatron | megatron-fsdp
    kl: str  # off | loss | reward
    reward_model: str = "off"  # off | megatron (legacy top-level, enabled) | server (0.9.x reward section)
    tool: str | None = None
    lora: bool = False  # actor_rollout_ref.model.lora.rank 8: verl computes the ref in the actor

    def config(self):
        def engine(strategy: str) -> dict:
            fsdp = strategy == "megatron-fsdp"
            return {
                "strategy": "megatron" if fsdp else strategy,
                "megatron": {"use_megatron_fsdp": fsdp},
            }

        ref = (
            {"strategy": "${actor_rollout_ref.actor.strategy}", "megatron": {"use_megatron_fsdp": False}}
            if self.ref == "inherit"
            else engine(self.ref)
        )
        config = {
            "actor_rollout_ref": {
                "model": {"lora": {"rank": 8 if self.lora else 0}},
                "actor": {**engine(self.actor), "use_kl_loss": self.kl == "loss"},
                "ref": ref,
            },
            "critic": {**engine(self.critic), "enable": self.critic_enable},
            "reward_model": {
                **engine("megatron" if self.reward_model == "megatron" else "fsdp"),
                "enable": self.reward_model == "megatron",
            },
            "algorithm": {"adv_estimator": self.adv, "use_kl_in_reward": self.kl == "reward"},
            "global_profiler": {"tool": self.tool},
        }
        if self.reward_model == "server":
            # verl 0.9.x shape: a reward section (the legacy reward_model is then ignored).
            config["reward"] = {"reward_model": {**engine("megatron"), "enable": True}}
            config["reward_model"]["enable"] = True
        return OmegaConf.create(config)

    # What verl builds (verl/trainer/ppo/utils.py), written out independently of ppo_runtime.
    def critic_built(self) -> bool:
        return self.critic_enable if self.critic_enable is not None else self.adv == "gae"

    def ref_strategy(self) -> str:
        if self.ref != "inherit":
            return self.ref
        return "megatron" if self.actor == "megatron-fsdp" else self.actor

    def built(self) -> dict[str, str]:
        out = {"actor": self.actor}
        if self.kl != "off" and not self.lora:  # LoRA: verl's ref_in_actor, no separate ref
            out["ref"] = self.ref_strategy()
        if self.critic_built():
            out["critic"] = self.critic
        if self.reward_model == "megatron":  # legacy shape: pre-0.9 verl's Megatron worker
            out["reward_model"] = self.reward_model
        return out  # a 0.9.x reward model runs on an inference server: no training engine


@dataclass(frozen=True)
class Platform:
    capability: tuple[int, int] | None
    hip: str | None = None
    # The GB200 opt-in TLLM_DISABLE_NVLS_MNNVL=1: "off", "on" (at import and call), "call-only"
    # (set after verl was imported), "import-only" (unset after verl was imported).
    gb200: str = "off"
    driver: tuple[tuple[str, str], ...] = ()
    job: tuple[tuple[str, str], ...] = ()

    def environ(self, at: str = "call") -> dict[str, str]:
        """The driver's environment at verl's import (``at="import"``) or at the call."""
        env = dict(self.driver)
        if self.gb200 == "on" or self.gb200 == f"{at}-only":
            env["TLLM_DISABLE_NVLS_MNNVL"] = "1"
        if self.job:
            env["RAY_JOB_CONFIG_JSON_ENV_VAR"] = json.dumps(
                {"runtime_env": {"env_vars": dict(self.job)}}
            )
        return env


STRATEGIES = ("fsdp", "megatron", "megatron-fsdp", "mindspeed")
DETERMINISM = (("VERL_FULL_DETERMINISM", "1"), ("PYTHONHASHSEED", "42"), ("NCCL_ALGO", "Ring"))
#: Every variable ppo_runtime forwards from the driver (the base set and the platform and
#: Megatron variables), each set in the driver.
FORWARDABLE = (
    *BASE_ENV_VARS,
    CUDA,
    "NCCL_NVLS_ENABLE",
    "NCCL_MNNVL_ENABLE",
    "RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO",
)
DRIVER_VALUE = "7"
#: Variables a Ray job's runtime_env sets (with the driver's determinism variables set too).
JOB_SET = (
    "VERL_FULL_DETERMINISM", "VLLM_BATCH_INVARIANT", "PYTHONHASHSEED", "NCCL_DEBUG", CUDA,
    "NCCL_NVLS_ENABLE", "NCCL_MNNVL_ENABLE", "RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO",
)
DRIVER_VARIANTS = (
    Platform(None),  # placeholders: capability filled in below
    Platform(None, driver=DETERMINISM),
    Platform(None, driver=tuple((name, DRIVER_VALUE) for name in FORWARDABLE)),
    Platform(
        None,
        driver=(("VERL_FULL_DETERMINISM", "1"), ("PYTHONHASHSEED", "42")),
        job=tuple((name, "1") for name in JOB_SET),
    ),
)


def _config_grid() -> list[Case]:
    cases = [
        Case(actor, critic, enable, adv, ref, kl)
        for actor, critic, enable, adv, ref, kl in itertools.product(
            STRATEGIES,
            STRATEGIES,
            (True, False, None),
            ("gae", "grpo"),
            ("inherit", "megatron", "megatron-fsdp"),
            ("off", "loss"),
        )
    ]
    cases += [
        Case("fsdp", "fsdp", None, "grpo", "inherit", "reward"),
        Case("fsdp", "fsdp", None, "grpo", "megatron", "reward"),
        Case("fsdp", "fsdp", None, "grpo", "inherit", "off", reward_model="megatron"),
        Case("fsdp", "fsdp", None, "grpo", "inherit", "off", reward_model="server"),
        Case("fsdp", "fsdp", None, "grpo", "mindspeed", "loss"),
        Case("fsdp", "fsdp", None, "grpo", "mindspeed", "reward"),
    ]
    # LoRA: verl computes the ref inside the actor, whatever the ref's strategy says.
    cases += [
        Case(actor, "fsdp", None, "grpo", ref, kl, lora=True)
        for actor in ("fsdp", "megatron")
        for ref in ("megatron", "mindspeed")
        for kl in ("loss", "reward")
    ]
    return cases


def _platform_grid() -> list[Platform]:
    out = []
    for cap, hip, gb200, variant in itertools.product(
        CAPABILITIES, (None, "6.2.41133"), ("off", "on", "call-only", "import-only"), DRIVER_VARIANTS
    ):
        out.append(Platform(cap, hip, gb200, variant.driver, variant.job))
    return out


REPRESENTATIVE = (
    Case("fsdp", "fsdp", None, "grpo", "inherit", "off"),
    Case("megatron", "megatron", None, "gae", "inherit", "loss"),
    Case("megatron-fsdp", "megatron", None, "grpo", "inherit", "off"),
    Case("mindspeed", "fsdp", None, "grpo", "inherit", "off"),
    Case("fsdp", "fsdp", None, "grpo", "inherit", "off", tool="torch"),
    Case("megatron", "fsdp", None, "grpo", "inherit", "off", tool="nsys"),
)


def _classify(version: str, case: Case, platform: Platform, name: str, verl, ours) -> str:
    """The docs row that explains one difference (rows are tried in table order)."""
    built = case.built()
    driver, job = dict(platform.driver), dict(platform.job)
    if name == CUDA:
        # What ppo_runtime must decide, from the grid alone: a built MindSpeed component at
        # any capability, a built Megatron (not Megatron-FSDP) one below 10 or unknown; the
        # job's value left to the job, the driver's forwarded.
        cap = platform.capability
        should_set = "mindspeed" in built.values() or (
            "megatron" in built.values() and (cap is None or cap[0] < 10)
        )
        expected = None if name in job else (driver.get(name, "1") if should_set else None)
        if ours != expected:
            return f"UNEXPLAINED {name}: ppo_runtime {ours!r} for built {built} on {cap}"
    if name in job:
        return "job-runtime-env"
    if name in driver and ours == driver[name]:
        return "driver-forwarded"
    if name == CUDA and verl == "1" and ours is None:
        verl_megatron = platform.capability is not None and platform.capability[0] in (8, 9) and (
            "megatron" in (case.actor, case.critic)
            or "megatron-fsdp" in (case.actor, case.critic)
        )
        if verl_megatron:
            return "not-built-or-megatron-fsdp"
        if version == "0.9.0" and "mindspeed" in (case.actor, case.critic):
            return "mindspeed-not-built-0.9.0"
    if name == CUDA and verl is None and ours == "1":
        if "mindspeed" in built.values():
            return "mindspeed-kept" if version == "0.9.1" else "mindspeed-ref-0.9.0"
        if platform.capability is None:
            return "capability-unknown"
        if platform.capability[0] < 8:
            return "capability-below-8"
        if built.get("ref") == "megatron":
            return "ref-megatron"
        if built.get("reward_model") == "megatron":
            return "legacy-reward-model-megatron"
    if name in ("NCCL_NVLS_ENABLE", "NCCL_MNNVL_ENABLE"):
        if platform.capability is None and ours == "0":
            return "capability-unknown"
        if platform.gb200 in ("call-only", "import-only"):
            return "gb200-read-per-call"
    if name == "NVTX_INJECTION64_PATH" and version == "0.9.0":
        return "torch-profiler-0.9.1"
    return f"UNEXPLAINED {name}: verl {verl!r}, ppo_runtime {ours!r}"


def _observed_values(row: str, verl, ours) -> tuple[str, str]:
    """The (verl, ppo_runtime) cells of a row: a value, ``—``, or a placeholder for rows
    whose value is whatever the driver or the job set."""
    if row == "driver-forwarded":
        return _value(verl), "driver's value"
    if row == "job-runtime-env":
        return ("set" if verl is not None else ABSENT), _value(ours)
    return _value(verl), _value(ours)


def _docs_table() -> set[tuple[str, str, str, str, str]]:
    """``{(row, version, variable, verl value, ppo_runtime value)}`` from docs/runtime.md."""
    text = DOCS.read_text(encoding="utf-8")
    block = text.split("<!-- differential-table -->")[1].split("<!-- /differential-table -->")[0]
    rows = set()
    for line in block.strip().splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        key, versions, variables, verl, ours = (re.sub(r"`", "", c) for c in cells[:5])
        for version in (v.strip() for v in versions.split(",")):
            for variable in (v.strip() for v in variables.split(",")):
                rows.add((key, version, variable, verl, ours))
    return rows


def _value(text: str | None) -> str:
    return ABSENT if text is None else text


@pytest.mark.slow
def test_every_difference_from_verl_is_a_row_of_the_docs_table(verl_sources, monkeypatch):
    for name in (
        "TLLM_DISABLE_NVLS_MNNVL", "RAY_JOB_CONFIG_JSON_ENV_VAR", "VERL_KEEP_NVTX_INJECTION",
        "NVTX_INJECTION64_PATH", *FORWARDABLE,
        "VERL_FULL_DETERMINISM", "VLLM_BATCH_INVARIANT", "VERL_RL_INSIGHT_ENABLE",
        "PYTHONHASHSEED", "CUBLAS_WORKSPACE_CONFIG", "FLASH_ATTENTION_DETERMINISTIC",
        "NCCL_DETERMINISTIC", "NCCL_ALGO",
    ):
        monkeypatch.delenv(name, raising=False)
    # verl 0.9.1 logs its profiler warning on every call; ppo_runtime's is tested elsewhere.
    monkeypatch.setattr(logging.getLogger("verl.trainer.constants_ppo"), "disabled", True)
    monkeypatch.setattr(logging.getLogger("ppo_runtime"), "disabled", True)
    # Every config on the capabilities that separate the rules (7.x, 8-9, >= 10, unknown);
    # 8.0 and 12.0 come in through the platform grid of the representative configs.
    grid = [
        (case, Platform(cap))
        for case in _config_grid()
        for cap in ((7, 0), (9, 0), (10, 0), None)
    ]
    grid += [(case, platform) for case in REPRESENTATIVE for platform in _platform_grid()]

    observed: set[tuple[str, str, str, str, str]] = set()
    identical = 0
    clean_pairs = 0  # nothing set in the driver, a known capability, FSDP everywhere
    modules: dict[tuple, dict] = {}
    # one config per case (a case comes in on several platforms): the same object for each
    # of its pairs, as before, but built once instead of once per pair
    configs = {case: case.config() for case in dict.fromkeys(case for case, _ in grid)}
    ours_by_pair: dict[tuple, dict] = {}
    for version, (case, platform) in itertools.product(VERSIONS, grid):
        at_import = platform.environ("import").get("TLLM_DISABLE_NVLS_MNNVL")
        key = (version, platform.capability, platform.hip, at_import)
        if key not in modules:
            modules[key] = load_constants_ppo(
                verl_sources[version],
                capability=platform.capability,
                hip=platform.hip,
                environ=platform.environ("import"),
            )
        verl_fn = modules[key]["get_ppo_ray_runtime_env"]
        config = configs[case]
        with monkeypatch.context() as mp:
            for name, value in platform.environ().items():
                mp.setenv(name, value)
            theirs = verl_fn(config)
            if (case, platform) not in ours_by_pair:  # ours reads no version: once a pair
                ours_by_pair[case, platform] = get_ppo_ray_runtime_env(
                    config,
                    device_capability=platform.capability or "unknown",
                    rocm=platform.hip is not None,
                )
            ours = ours_by_pair[case, platform]
        assert ("working_dir" in theirs) == ("working_dir" in ours)
        a, b = theirs["env_vars"], ours["env_vars"]
        diffs = sorted(n for n in a.keys() | b.keys() if a.get(n) != b.get(n))
        if not diffs:
            identical += 1
        clean = (
            not platform.driver and not platform.job and platform.gb200 == "off"
            and platform.capability is not None and case.tool is None
            and {case.actor, case.critic, case.ref_strategy()} == {"fsdp"}
            and case.reward_model != "megatron"
        )
        if clean:
            clean_pairs += 1
            assert not diffs, (version, case, platform, diffs)
        for name in diffs:
            row = _classify(version, case, platform, name, a.get(name), b.get(name))
            assert not row.startswith("UNEXPLAINED"), (version, case, platform, row)
            observed.add((row, version, name, *_observed_values(row, a.get(name), b.get(name))))

    # The constant: upstream's holds the import-time platform entries, and its function
    # reads it (a caller's addition reaches every later call); ppo_runtime's does neither.
    for (version, _cap, _hip, _gb200), module in modules.items():
        theirs = module["PPO_RAY_RUNTIME_ENV"]["env_vars"]
        ours_constant = ppo_runtime.PPO_RAY_RUNTIME_ENV["env_vars"]
        for name in sorted(theirs.keys() | ours_constant.keys()):
            if theirs.get(name) != ours_constant.get(name):
                observed.add(
                    ("constant-import-time-entries", version, name,
                     _value(theirs.get(name)), _value(ours_constant.get(name)))
                )
    for version in VERSIONS:
        module = load_constants_ppo(verl_sources[version], capability=(9, 0), hip=None, environ={})
        with monkeypatch.context() as mp:
            mp.setitem(module["PPO_RAY_RUNTIME_ENV"]["env_vars"], ADDED, "1")
            mp.setitem(ppo_runtime.PPO_RAY_RUNTIME_ENV["env_vars"], ADDED, "1")
            theirs = module["get_ppo_ray_runtime_env"](None)["env_vars"].get(ADDED)
            ours = get_ppo_ray_runtime_env(None, device_capability=(9, 0), rocm=False)["env_vars"].get(ADDED)
        if theirs != ours:
            observed.add(("constant-not-read", version, ADDED, _value(theirs), _value(ours)))

    table = _docs_table()
    assert observed == table, (
        f"observed, not in the table: {sorted(observed - table)}; "
        f"in the table, not observed: {sorted(table - observed)}"
    )
    # Identical wherever nothing in the driver, the job or the platform interferes and
    # every strategy is FSDP; and over the whole grid, a large share is identical.
    assert clean_pairs > 100
    assert identical > len(grid) * 2 * 0.4


def test_verl_0_9_reward_model_has_no_training_strategy(tmp_path_factory):
    # Why ppo_runtime never counts reward.reward_model: in the published 0.9.x wheels the
    # reward model's config has no strategy (it runs on a rollout server), and need_reward_model
    # reads only config.reward.reward_model.enable.
    import ast

    for version in VERSIONS:
        root = wheel_tree(version, tmp_path_factory)
        tree = ast.parse((root / "verl/workers/config/reward.py").read_text(encoding="utf-8"))
        (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "RewardModelConfig"]
        fields = {n.target.id for n in cls.body if isinstance(n, ast.AnnAssign)}
        assert "strategy" not in fields and {"enable", "rollout"} <= fields, (version, fields)
        utils = (root / "verl/trainer/ppo/utils.py").read_text(encoding="utf-8")
        assert "return config.reward.reward_model.enable" in utils, version
