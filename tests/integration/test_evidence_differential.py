"""No fix that was safe before issue 27 becomes unsafe (issue 27's last acceptance item).

Each tree is judged twice in one process, as ``ppo-migrate check .`` run from its root judges
it (:func:`ppo_migrate.cli.runner.run`, one job, the cross-file phase included): with the
evidence of the value, the tool as it is, and with the name-only judgement that preceded
issue 27 (``Settings.follow_values=False``: :class:`ppo_migrate.rules.configs.ConfigFinder`
reads no OmegaConf/Hydra maker, YAML file, click/typer/``@hydra.main`` decorator or
section-returning helper, and makes no class an origin for other files' subclasses). Every
safe fix of the name-only judgement must be a safe fix with the evidence too, at the same
file, line and column, with the same replacement; any other demotion fails the test, listed
with its code and reason. The demotions the evidence must make are :data:`DEMOTED`, each a
value that is provably not a training config (the fixtures were written to show them, and
their stub ``get_ppo_ray_runtime_env`` asserts it gets a verl section or ``None``).

The trees:

* verl 0.8.0's wheel (verl's tree before PR #6976): its one call,
  ``verl/trainer/main_ppo.py:67``, binds to the wheel's own zero-argument definition
  (PPO005), so the tree is judged as ``apply --use-ppo-runtime`` judges it, after the tool's
  own move of the import to ``ppo_runtime``: one safe fix, ``config`` of ``run_ppo``, whose
  caller ``main`` is ``@hydra.main`` composing the wheel's ``ppo_trainer.yaml``;
* every fixture tree under ``fixtures/``, as the other tests run them (each rule case's
  ``input/``, and that input with its ``expected/``/``expected-unsafe/`` laid over it: the tree
  an ``apply`` leaves); :func:`test_every_fixture_call_is_in_a_judged_tree` fails on a file
  calling the function that no tree holds;
* verl-recipe, which no package registry has: only when ``PPO_MIGRATE_RECIPE_TREE`` names a
  checkout, judged with ``--verl-version 0.9.1`` (nothing in it declares a verl that takes a
  config, so every fix would be unsafe either way). At verl-recipe 48ea0a7: ten configless
  calls, nine safe fixes passing ``config`` (:data:`RECIPE_FIXES`) in both judgements, and
  ``verl_tinker``'s ``init_ray`` a PPO002 in both.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from cli_helpers import FIXTURES, _fresh_caches

from ppo_migrate.diagnostics import Diagnostic

RECIPE_ENV = "PPO_MIGRATE_RECIPE_TREE"

#: (path, line, column) of a finding
Place = tuple[str, int, int]

#: tree (relative to ``fixtures/``) -> (configless calls found: PPO001 and PPO002, safe fixes
#: with the evidence, safe fixes name-only); every tree :func:`_fixture_trees` finds is here
FIXTURE_COUNTS: dict[str, tuple[int, int, int]] = {
    "legacy": (10, 7, 7),
    "migrated": (3, 0, 0),
    "evidence": (13, 2, 11),
    "callee/legacy": (3, 3, 3),
    "callee/migrated": (0, 0, 0),
    "threading/legacy": (4, 0, 0),
    "threading/migrated": (1, 0, 0),
}
#: rule cases (``fixtures/rules/<code>/<case>/input``) with a safe fix, one each; every other
#: case has none (the safe fix of an ``expected*/`` overlay is made already: none either)
RULE_SAFE_FIXES = {
    "PPO001/safe_parameter", "PPO001/safe_self_config", "PPO002/valid_loads_config",
    "PPO003/valid_both_runtime_functions", "PPO004/valid_wrong_branch",
    "PPO005/valid_in_tree_copy_decides", "PPO006/valid_alias_followed",
    "PPO901/valid_latin1_declared", "PPO903/valid_relative_within_package",
}
#: rule cases with more than one safe fix: case -> how many (both `methodcaller` aliases)
RULE_SAFE_FIX_COUNTS = {"PPO001/methodcaller_alias": 2}
#: rule cases whose one safe fix name-only the evidence takes away
RULE_DEMOTED = {"PPO002/rejected_candidate"}

#: tree -> place -> (code, reason kind, words of the reason): the demotions issue 27 makes,
#: each a value that is not a training config
DEMOTED: dict[str, dict[Place, tuple[str, str, str]]] = {
    "evidence": {
        # ``config = OmegaConf.create({"level": "INFO", "handlers": ["console"]})``: logging
        ("logging_create/main.py", 9, 11): (
            "PPO002", "evidence-against", '"handlers": ["console"]})` has no verl section'),
        # ``config = OmegaConf.load("ray_cluster.yaml")``: keys address, num_cpus
        ("ray_cluster_load/main.py", 9, 29): (
            "PPO002", "evidence-against",
            "loads `ray_cluster_load/ray_cluster.yaml`, which has no verl section"),
        # ``@hydra.main(config_name="logging")``: composes a logging config
        ("hydra_logging/main.py", 9, 11): (
            "PPO002", "evidence-against",
            "composes `hydra_logging/conf/logging.yaml`, which has no verl section"),
        # ``@click.option("--config")``: a string
        ("click_option/main.py", 10, 11): (
            "PPO002", "evidence-against", '`config` is the click option `click.option("--config"'),
        # ``if (config := OmegaConf.create({"enabled": True}))``: a feature flag
        ("walrus_flag/main.py", 9, 16): (
            "PPO002", "evidence-against", '`OmegaConf.create({"enabled": True})` has no verl section'),
        # (``config = sections.logging_section(training)``, ``return cfg.logging``: no safe
        # fix name-only either since trial 26f: what another module's function makes of a
        # parameter the config names do not vouch for is not known)
        # a test's ``OmegaConf.create({"foo": {}})``: no verl section
        ("test_configs/main.py", 9, 20): (
            "PPO002", "evidence-against", '`OmegaConf.create({"foo": {}})` has no verl section'),
        # ``Base`` builds its own config; ``LoggingBase(Base)`` in another file rebinds
        # ``self.config = LoggingConfig()`` after ``super().__init__()`` (an unsafe fix)
        ("subclass_own_config/base.py", 12, 16): (
            "PPO001", "caller-passes", "sets `self.config` in subclass `LoggingBase`"),
        # trial 27: ``# @package wrapped`` nests the composed config under ``wrapped``
        ("hydra_package/main.py", 9, 11): (
            "PPO002", "evidence-against",
            "composes `hydra_package/conf/wrapped.yaml`, which has no verl section"),
        # trial 27: ``OmegaConf.merge(OmegaConf.load(<ROOT>/logging.yaml), {...})``
        ("logging_merge/main.py", 13, 26): (
            "PPO002", "evidence-against",
            "loads `logging_merge/logging.yaml`, which has no verl section"),
    },
    "rules/PPO002/rejected_candidate/input": {
        # ``config = OmegaConf.create({"level": "INFO"})``
        ("main.py", 8, 12): (
            "PPO002", "evidence-against", '`OmegaConf.create({"level": "INFO"})` has no verl section'),
    },
}

#: verl-recipe 48ea0a7's safe fixes (each passes ``config``, the Hydra config of ``main``)
RECIPE_FIXES: dict[str, tuple[int, int]] = {
    "async_flow/grpo_main.py": (59, 31),
    "atropos/main_atropos.py": (24, 31),
    "dance_grpo/dance_grpo_fsdp/main_dance.py": (45, 31),
    "dance_grpo/dance_grpo_mindspeed_mm/main_dance.py": (45, 31),
    "dapo/dapo_transfer_queue/main_dapo.py": (43, 31),
    "gvpo/gvpo_main_ppo.py": (61, 31),
    "rep_exp/main_rep_exp.py": (63, 31),
    "specRL/histoSpec/main_ppo.py": (61, 31),
    "spo/spo_main_ppo.py": (63, 31),
}


# -- the two judgements -------------------------------------------------------------------


def _judge(tree: Path, follow_values: bool, **overrides) -> dict[Place, Diagnostic]:
    """The findings of ``check .`` run from ``tree``'s root, by place, the caches emptied first
    (as a new process starts), with ``Settings.follow_values`` as given."""
    from ppo_migrate.cli.commands import discover
    from ppo_migrate.cli.modes import Mode
    from ppo_migrate.cli.runner import run
    from ppo_migrate.cli.settings import load_settings

    _fresh_caches()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(tree)
        settings = load_settings(["."], **overrides).replace(follow_values=follow_values)
        result = run(discover(["."], settings), settings, Mode.CHECK, jobs=1, given=["."])
    assert not result.interrupted
    assert [o.internal_error for o in result.outcomes if o.internal_error] == []
    return {(d.path, d.line, d.column): d for o in result.outcomes for d in o.diagnostics}


def _safe(found: dict[Place, Diagnostic]) -> dict[Place, tuple]:
    """place -> the safe fix's edits (the replacement and where it goes)."""
    return {
        p: tuple(d.fix.edits) for p, d in found.items()
        if d.fix is not None and d.fix.applicability == "safe"
    }


def _shown(d: Diagnostic | None) -> str:
    if d is None:
        return "no finding"
    fix = f" {d.fix.applicability} fix {d.fix.message!r}" if d.fix is not None else ""
    reason = f" ({d.reason.kind}: {d.reason.text})" if d.reason is not None else ""
    return f"{d.code}{fix}{reason}"


class Judged:
    """One tree judged both ways."""

    def __init__(self, tree: Path, **overrides) -> None:
        self.name_only = _judge(tree, False, **overrides)
        self.evidence = _judge(tree, True, **overrides)
        self.safe_name_only = _safe(self.name_only)
        self.safe = _safe(self.evidence)

    @property
    def calls(self) -> int:
        """The configless calls found (PPO001 and PPO002), with the evidence."""
        return sum(d.code in ("PPO001", "PPO002") for d in self.evidence.values())

    def demoted(self) -> dict[Place, Diagnostic | None]:
        """The name-only safe fixes that are not the same safe fix with the evidence."""
        return {
            p: self.evidence.get(p) for p, edits in self.safe_name_only.items()
            if self.safe.get(p) != edits
        }

    def assert_demoted_only(self, expected: dict[Place, tuple[str, str, str]]) -> None:
        """Every demotion is one of ``expected`` (code, reason kind, words), and each of
        ``expected`` happens (the differential can tell)."""
        demoted = self.demoted()
        unexpected = {p: d for p, d in demoted.items() if p not in expected}
        assert not unexpected, "safe name-only, not with the evidence:\n" + "\n".join(
            f"  {p[0]}:{p[1]}:{p[2]} {self.name_only[p].fix.message} -> {_shown(d)}"  # type: ignore[union-attr]
            for p, d in sorted(unexpected.items())
        )
        assert sorted(demoted) == sorted(expected)
        for p, (code, kind, words) in expected.items():
            d = demoted[p]
            assert d is not None and d.code == code and d.reason is not None, _shown(d)
            assert d.reason.kind == kind, _shown(d)
            assert words in d.reason.text + "".join(r.message for r in d.reason.lines), _shown(d)


# -- (b) the fixtures -----------------------------------------------------------------------


def _rule_cases() -> list[str]:
    return sorted(
        str(case.relative_to(FIXTURES / "rules")) for case in (FIXTURES / "rules").glob("*/*")
        if (case / "input").is_dir()
    )


def _fixture_trees() -> list[str]:
    """Every tree judged, relative to ``fixtures/``: :data:`FIXTURE_COUNTS`' and each rule case's
    ``input`` and overlays (``rules/<code>/<case>/expected`` is its input with ``expected/``
    laid over it)."""
    trees = list(FIXTURE_COUNTS)
    for case in _rule_cases():
        trees.append(f"rules/{case}/input")
        trees += [
            f"rules/{case}/{over}" for over in ("expected", "expected-unsafe")
            if (FIXTURES / "rules" / case / over).is_dir()
        ]
    return trees


def _copy(tree: str, dest: Path) -> Path:
    """The tree copied to ``dest`` (an overlay: its case's input, then the overlay on it)."""
    root = FIXTURES / tree
    if root.name in ("expected", "expected-unsafe"):
        shutil.copytree(root.parent / "input", dest)
        shutil.copytree(root, dest, dirs_exist_ok=True)
    else:
        shutil.copytree(root, dest)
    return dest


def test_every_fixture_call_is_in_a_judged_tree() -> None:
    """No fixture file naming the runtime function is left out (none is skipped silently)."""
    roots = [FIXTURES / t for t in _fixture_trees()]
    files = [p for p in FIXTURES.rglob("*.py") if b"get_ppo_ray_runtime_env" in p.read_bytes()]
    assert len(files) > 100
    assert [str(p.relative_to(FIXTURES)) for p in files if not any(p.is_relative_to(r) for r in roots)] == []
    assert set(_rule_cases()) >= RULE_SAFE_FIXES | RULE_DEMOTED | set(RULE_SAFE_FIX_COUNTS)


@pytest.mark.parametrize("tree", _fixture_trees())
def test_no_safe_fix_is_lost_on_a_fixture_tree(tree: str, tmp_path: Path) -> None:
    judged = Judged(_copy(tree, tmp_path / "tree"))
    judged.assert_demoted_only(DEMOTED.get(tree, {}))
    if tree in FIXTURE_COUNTS:
        assert (judged.calls, len(judged.safe), len(judged.safe_name_only)) == FIXTURE_COUNTS[tree]
        return
    case, _, part = tree.removeprefix("rules/").rpartition("/")
    safe = RULE_SAFE_FIX_COUNTS.get(case, 1 if case in RULE_SAFE_FIXES else 0) if part == "input" else 0
    name_only = safe + (part == "input" and case in RULE_DEMOTED)
    assert (len(judged.safe), len(judged.safe_name_only)) == (safe, name_only)


def test_the_fixtures_have_safe_fixes_to_lose() -> None:
    """The differential is not vacuous: the fixture trees hold safe fixes of both kinds
    (kept, and taken away by the evidence)."""
    kept = sum(c[1] for c in FIXTURE_COUNTS.values()) + len(RULE_SAFE_FIXES)
    lost = sum(len(v) for v in DEMOTED.values())
    assert kept == 21 and lost == 10
    # fixtures/evidence: eleven calls; subclass_rebind's and section_helper's have no safe fix either way, hydra_inherits'
    # and test_configs' second safe both ways, the other seven safe name-only only
    assert FIXTURE_COUNTS["evidence"][2] - FIXTURE_COUNTS["evidence"][1] == len(DEMOTED["evidence"])


# -- (a) verl 0.8.0's wheel -------------------------------------------------------------------


@pytest.mark.network
def test_no_safe_fix_is_lost_on_verl_0_8_0(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    from verl_wheels import wheel_tree

    from ppo_migrate.edits.text_edits import _use_ppo_runtime
    from ppo_migrate.settings_model import Settings

    work = tmp_path / "verl-0.8.0"
    shutil.copytree(wheel_tree("0.8.0", tmp_path_factory) / "verl", work / "verl")
    moved = []
    for path in sorted(work.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "get_ppo_ray_runtime_env" in text:
            new, count, _ = _use_ppo_runtime(text, Settings())  # as apply --use-ppo-runtime
            if count:
                path.write_text(new, encoding="utf-8")
                moved.append(str(path.relative_to(work)))
    assert moved == ["verl/trainer/main_ppo.py"]
    judged = Judged(work)
    judged.assert_demoted_only({})
    assert judged.calls == 1
    assert judged.safe == judged.safe_name_only
    (place, edits), = judged.safe.items()
    assert place == ("verl/trainer/main_ppo.py", 67, 31)
    assert [e.content for e in edits] == ["config"]


# -- (c) verl-recipe --------------------------------------------------------------------------


def test_no_safe_fix_is_lost_on_verl_recipe() -> None:
    tree = os.environ.get(RECIPE_ENV)
    if not tree:
        pytest.skip(f"verl-recipe is on no package registry: set {RECIPE_ENV} to a checkout")
    root = Path(tree)
    assert root.is_dir(), f"{RECIPE_ENV}={tree} is not a directory"
    judged = Judged(root, verl_version="0.9.1")
    judged.assert_demoted_only({})
    assert judged.safe, "verl-recipe has safe fixes to lose"
    assert all([e.content for e in edits] == ["config"] for edits in judged.safe.values())
    # the fixes verified at 48ea0a7, where the checkout still holds those calls
    for path, (line, column) in RECIPE_FIXES.items():
        lines = (root / path).read_text(encoding="utf-8").splitlines() if (root / path).is_file() else []
        if len(lines) >= line and lines[line - 1][column - 1:].startswith("get_ppo_ray_runtime_env()"):
            assert (path, line, column) in judged.safe, path
