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

import pytest
from omegaconf import OmegaConf
from ppo_runtime import get_ppo_ray_runtime_env
from verl_wheels import CONSTANTS, VERSIONS, load_constants_ppo, wheel_tree

pytestmark = pytest.mark.network

DOCS = Path(__file__).resolve().parents[2] / "docs" / "runtime.md"
CUDA = "CUDA_DEVICE_MAX_CONNECTIONS"
CAPABILITIES = ((7, 0), (8, 0), (9, 0), (10, 0), (12, 0), None)
ABSENT = "—"


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
    reward_model: str = "off"  # off | megatron (legacy top-level, enabled)
    tool: str | None = None

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
        return OmegaConf.create(
            {
                "actor_rollout_ref": {
                    "actor": {**engine(self.actor), "use_kl_loss": self.kl == "loss"},
                    "ref": ref,
                },
                "critic": {**engine(self.critic), "enable": self.critic_enable},
                "reward_model": {
                    **engine("megatron" if self.reward_model == "megatron" else "fsdp"),
                    "enable": self.reward_model != "off",
                },
                "algorithm": {"adv_estimator": self.adv, "use_kl_in_reward": self.kl == "reward"},
                "global_profiler": {"tool": self.tool},
            }
        )

    # What verl builds (verl/trainer/ppo/utils.py), written out independently of ppo_runtime.
    def critic_built(self) -> bool:
        return self.critic_enable if self.critic_enable is not None else self.adv == "gae"

    def ref_strategy(self) -> str:
        if self.ref != "inherit":
            return self.ref
        return "megatron" if self.actor == "megatron-fsdp" else self.actor

    def built(self) -> dict[str, str]:
        out = {"actor": self.actor}
        if self.kl != "off":
            out["ref"] = self.ref_strategy()
        if self.critic_built():
            out["critic"] = self.critic
        if self.reward_model != "off":
            out["reward_model"] = self.reward_model
        return out


@dataclass(frozen=True)
class Platform:
    capability: tuple[int, int] | None
    hip: str | None = None
    gb200: bool = False
    driver: tuple[tuple[str, str], ...] = ()
    job: tuple[tuple[str, str], ...] = ()

    def environ(self) -> dict[str, str]:
        env = dict(self.driver)
        if self.gb200:
            env["TLLM_DISABLE_NVLS_MNNVL"] = "1"
        if self.job:
            env["RAY_JOB_CONFIG_JSON_ENV_VAR"] = json.dumps(
                {"runtime_env": {"env_vars": dict(self.job)}}
            )
        return env


STRATEGIES = ("fsdp", "megatron", "megatron-fsdp", "mindspeed")
DETERMINISM = (("VERL_FULL_DETERMINISM", "1"), ("PYTHONHASHSEED", "42"), ("NCCL_ALGO", "Ring"))
DRIVER_VARIANTS = (
    Platform(None),  # placeholders: capability filled in below
    Platform(None, driver=DETERMINISM),
    Platform(None, driver=(("NCCL_DEBUG", "INFO"),)),
    Platform(
        None,
        driver=(("VERL_FULL_DETERMINISM", "1"),),
        job=(("VERL_FULL_DETERMINISM", "1"),),
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
    ]
    return cases


def _platform_grid() -> list[Platform]:
    out = []
    for cap, hip, gb200, variant in itertools.product(
        CAPABILITIES, (None, "6.2.41133"), (False, True), DRIVER_VARIANTS
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
    if name == CUDA:
        # What ppo_runtime must decide, from the grid alone: a built MindSpeed component at
        # any capability, a built Megatron (not Megatron-FSDP) one below 10 or unknown.
        cap = platform.capability
        should_set = "mindspeed" in built.values() or (
            "megatron" in built.values() and (cap is None or cap[0] < 10)
        )
        if (ours == "1") != should_set:
            return f"UNEXPLAINED {name}: ppo_runtime {ours!r} for built {built} on {cap}"
    if name == CUDA and verl == "1" and ours is None:
        return "not-built-or-megatron-fsdp"
    if name == CUDA and verl is None and ours == "1":
        if version == "0.9.1" and "mindspeed" in built.values():
            return "mindspeed-kept"
        if platform.capability is None:
            return "capability-unknown"
        if platform.capability[0] < 8:
            return "capability-below-8"
        return "ref-or-reward-model-megatron"
    if name in ("NCCL_NVLS_ENABLE", "NCCL_MNNVL_ENABLE") and platform.capability is None:
        return "capability-unknown"
    if name == "NVTX_INJECTION64_PATH" and version == "0.9.0":
        return "torch-profiler-0.9.1"
    if dict(platform.job).get(name) is not None:
        return "job-runtime-env"
    if dict(platform.driver).get(name) is not None and ours == dict(platform.driver)[name]:
        return "driver-forwarded"
    return f"UNEXPLAINED {name}: verl {verl!r}, ppo_runtime {ours!r}"


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


def test_every_difference_from_verl_is_a_row_of_the_docs_table(verl_sources, monkeypatch):
    for name in (
        "TLLM_DISABLE_NVLS_MNNVL", "RAY_JOB_CONFIG_JSON_ENV_VAR", "VERL_KEEP_NVTX_INJECTION",
        "NVTX_INJECTION64_PATH", CUDA, "NCCL_DEBUG",
        "VERL_FULL_DETERMINISM", "VLLM_BATCH_INVARIANT", "VERL_RL_INSIGHT_ENABLE",
        "PYTHONHASHSEED", "CUBLAS_WORKSPACE_CONFIG", "FLASH_ATTENTION_DETERMINISTIC",
        "NCCL_DETERMINISTIC", "NCCL_ALGO", "NCCL_NVLS_ENABLE", "NCCL_MNNVL_ENABLE",
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
    modules: dict[tuple, dict] = {}
    configs = {case: case.config() for case, _ in grid}
    for version, (case, platform) in itertools.product(VERSIONS, grid):
        key = (version, platform.capability, platform.hip, platform.gb200)
        if key not in modules:
            modules[key] = load_constants_ppo(
                verl_sources[version],
                capability=platform.capability,
                hip=platform.hip,
                environ=platform.environ(),
            )
        verl_fn = modules[key]["get_ppo_ray_runtime_env"]
        config = configs[case]
        with monkeypatch.context() as mp:
            for name, value in platform.environ().items():
                mp.setenv(name, value)
            theirs = verl_fn(config)
            ours = get_ppo_ray_runtime_env(
                config,
                device_capability=platform.capability or "unknown",
                rocm=platform.hip is not None,
            )
        assert ("working_dir" in theirs) == ("working_dir" in ours)
        a, b = theirs["env_vars"], ours["env_vars"]
        diffs = sorted(n for n in a.keys() | b.keys() if a.get(n) != b.get(n))
        if not diffs:
            identical += 1
        for name in diffs:
            row = _classify(version, case, platform, name, a.get(name), b.get(name))
            assert not row.startswith("UNEXPLAINED"), (version, case, platform, row)
            observed.add((row, version, name, _value(a.get(name)), _value(b.get(name))))

    table = _docs_table()
    assert observed == table, (
        f"observed, not in the table: {sorted(observed - table)}; "
        f"in the table, not observed: {sorted(table - observed)}"
    )
    # Most of the grid is identical: everything no row above explains.
    assert identical > len(grid)
