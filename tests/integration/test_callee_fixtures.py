"""The callee in effect decides every rewrite (issue 12), on the trees of ``fixtures/callee``.

Each project under ``fixtures/callee/legacy`` binds its calls to another definition: a
vendored zero-argument copy installed from a ``verl/`` checkout, two copies in one
repository (one before verl PR #6976, one after), a ``pyproject.toml`` pinning
``verl>=0.7.1,<0.9.0``, a ``requirements.txt`` pinning ``verl==0.8.0``, a ``uv.lock``
resolving 0.9.1, a git-URL pin to a commit (release unknown: left alone), a git tag naming
0.9.1 and a checkout under ``third_party/`` installed by ``-e ./third_party/verl``. ``apply`` must reproduce ``fixtures/callee/migrated``
byte for byte, and every trainer must still run afterwards against the definition it
binds to (the in-tree copy, or the real wheel's function).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli_helpers import FIXTURES, run_cli
from verl_wheels import run_entry_point, run_entry_points, unpack

LEGACY = FIXTURES / "callee" / "legacy"
MIGRATED = FIXTURES / "callee" / "migrated"

PPO005_VENDORED = (
    "`get_ppo_ray_runtime_env()` left as it is: `vendored/verl/verl/trainer/constants_ppo.py:12` "
    "defines `get_ppo_ray_runtime_env()` without a config parameter (pre verl PR #6976); "
    "update that copy, or run with --use-ppo-runtime"
)
EXPECTED = {  # file -> (code, the callee's definition in effect as JSON's "callee" says it)
    "git_pin/train.py": (
        "PPO005",
        "the project takes verl from `git_pin/pyproject.toml:5 verl @ git+https://github.com/"
        "volcengine/verl@3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e`, whose release cannot be read",
    ),
    "git_tag/train.py": ("PPO001", "verl 0.9.1 (pyproject.toml:5 verl @ git+https://github.com/volcengine/"
                         "verl@v0.9.1 pins verl 0.9.1) takes a config"),
    "pinned_range/train.py": (
        "PPO005",
        "the project may run verl 0.7.1 (`pinned_range/pyproject.toml:7 verl>=0.7.1,<0.9.0`), "
        "whose `get_ppo_ray_runtime_env()` takes no config (pre verl PR #6976)",
    ),
    "requirements_pin/train.py": (
        "PPO005",
        "the project runs verl 0.8.0 (`requirements_pin/requirements.txt:3 verl==0.8.0`), "
        "whose `get_ppo_ray_runtime_env()` takes no config (pre verl PR #6976)",
    ),
    "third_party/recipe/main_grpo.py": (
        "PPO005",
        "`third_party/third_party/verl/verl/trainer/constants_ppo.py:12` defines "
        "`get_ppo_ray_runtime_env()` without a config parameter (pre verl PR #6976)",
    ),
    "third_party/third_party/verl/verl/trainer/main_ppo.py": (
        "PPO005",
        "`third_party/third_party/verl/verl/trainer/constants_ppo.py:12` defines "
        "`get_ppo_ray_runtime_env()` without a config parameter (pre verl PR #6976)",
    ),
    "two_copies/verl_distillation/recipe/run_distill.py": (
        "PPO001",
        "`two_copies/verl_distillation/verl/trainer/constants_ppo.py:17` defines "
        "`get_ppo_ray_runtime_env(config=None)`",
    ),
    "two_copies/verl_rl/recipe/run_rl.py": (
        "PPO005",
        "`two_copies/verl_rl/verl/trainer/constants_ppo.py:12` defines "
        "`get_ppo_ray_runtime_env()` without a config parameter (pre verl PR #6976)",
    ),
    "uv_lock/train.py": ("PPO001", "verl 0.9.1 (uv.lock:17 resolves verl 0.9.1) takes a config"),
    "vendored/recipe/main_grpo.py": (
        "PPO005",
        "`vendored/verl/verl/trainer/constants_ppo.py:12` defines `get_ppo_ray_runtime_env()` "
        "without a config parameter (pre verl PR #6976)",
    ),
    "vendored/verl/verl/trainer/main_ppo.py": (
        "PPO005",
        "`vendored/verl/verl/trainer/constants_ppo.py:12` defines `get_ppo_ray_runtime_env()` "
        "without a config parameter (pre verl PR #6976)",
    ),
}


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_check_decides_each_call_by_its_definition_in_effect() -> None:
    proc = run_cli("check", ".", "--output-format", "json", cwd=LEGACY)
    assert proc.returncode == 1, proc.stderr  # three PPO001 remain; PPO005 never fails
    found = {
        str(Path(d["filename"]).relative_to(LEGACY)): (d["code"], d.get("callee"))
        for d in json.loads(proc.stdout)
    }
    assert found == EXPECTED


def test_concise_lists_notices_only_when_asked_and_always_sums_them_up() -> None:
    plain = run_cli("check", "--output-format", "concise", "vendored", "pinned_range", cwd=LEGACY)
    assert plain.returncode == 0, plain.stdout + plain.stderr  # notices never fail the run
    assert plain.stdout.splitlines() == [
        "All checks passed!",
        "1 call left as it is: the project may run verl 0.7.1 "
        "(`pinned_range/pyproject.toml:7 verl>=0.7.1,<0.9.0`), whose `get_ppo_ray_runtime_env()` "
        "takes no config (pre verl PR #6976); require verl>=0.9.0, or run with --use-ppo-runtime",
        "2 calls left as they are: `vendored/verl/verl/trainer/constants_ppo.py:12` defines "
        "`get_ppo_ray_runtime_env()` without a config parameter (pre verl PR #6976); update that "
        "copy, or run with --use-ppo-runtime",
    ]
    shown = run_cli("check", "--output-format", "concise", "vendored", "--show-notices", cwd=LEGACY)
    assert shown.returncode == 0
    assert shown.stdout.splitlines()[:2] == [
        f"vendored/recipe/main_grpo.py:5:28: PPO005 {PPO005_VENDORED}",
        f"vendored/verl/verl/trainer/main_ppo.py:5:39: PPO005 {PPO005_VENDORED}",
    ]
    sarif = json.loads(run_cli("check", "vendored", "--output-format", "sarif", cwd=LEGACY).stdout)
    levels = {r["ruleId"]: r["level"] for r in sarif["runs"][0]["results"]}
    assert levels == {"PPO005": "note"}
    ignored = run_cli("check", "--output-format", "concise", "vendored", "--ignore", "PPO005", cwd=LEGACY)
    assert ignored.stdout.splitlines() == ["All checks passed!"]


def test_apply_reproduces_the_migrated_trees_byte_for_byte(tmp_path: Path) -> None:
    work = tmp_path / "legacy"
    shutil.copytree(LEGACY, work)
    proc = run_cli("apply", ".", cwd=work)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _tree(work) == _tree(MIGRATED)
    lines = proc.stdout.splitlines()
    assert sorted(line for line in lines if line.startswith("Rewrote ") and " in " not in line) == [
        "Rewrote git_tag/train.py (1 call)",  # printed as written: in write order
        "Rewrote two_copies/verl_distillation/recipe/run_distill.py (1 call)",
        "Rewrote uv_lock/train.py (1 call)",
    ]
    assert "Rewrote 3 calls in 3 files; 0 findings remain." in lines
    assert sum("left as" in line for line in proc.stdout.splitlines()) == 6  # one line per reason


def test_verl_version_setting_decides_when_no_copy_is_in_the_tree(tmp_path: Path) -> None:
    """``--verl-version`` beats the declared pin; an in-tree copy beats the setting."""
    work = tmp_path / "legacy"
    shutil.copytree(LEGACY, work)
    proc = run_cli("apply", "pinned_range", "vendored", "--verl-version", "0.9.0", cwd=work)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert b"get_ppo_ray_runtime_env(config)" in (work / "pinned_range/train.py").read_bytes()
    assert _tree(work / "vendored") == _tree(LEGACY / "vendored")
    (work / "pinned_range" / "pyproject.toml").write_text(
        '[project]\nname = "t"\nversion = "0"\ndependencies = ["verl>=0.9"]\n'
        '[tool.ppo-migrate]\nverl-version = "0.8"\n'
    )
    (work / "pinned_range" / "train.py").write_bytes((LEGACY / "pinned_range/train.py").read_bytes())
    check = run_cli("check", "pinned_range", "--show-notices", cwd=work)
    assert check.returncode == 0
    assert (
        "`pinned_range/pyproject.toml: verl-version = 0.8` names a verl release whose "
        "`get_ppo_ray_runtime_env()` takes no config" in check.stdout
    ), check.stdout
    bad = run_cli("check", "pinned_range", "--verl-version", "latest", cwd=work)
    assert bad.returncode == 2
    assert bad.stderr.strip() == (
        "ppo-migrate: error: command line: --verl-version: 'latest' is not a verl release "
        "(X.Y or X.Y.Z, e.g. '0.8.0')"
    )


IN_TREE = [  # (caller, install root, entry point, rewritten by apply)
    ("vendored/recipe/main_grpo.py", "vendored/verl", "main", False),
    ("vendored/verl/verl/trainer/main_ppo.py", "vendored/verl", "run_ppo", False),
    ("two_copies/verl_rl/recipe/run_rl.py", "two_copies/verl_rl", "main", False),
    ("two_copies/verl_distillation/recipe/run_distill.py", "two_copies/verl_distillation", "main", True),
    ("third_party/recipe/main_grpo.py", "third_party/third_party/verl", "main", False),
]


@pytest.mark.parametrize(("caller", "root", "function", "rewritten"), IN_TREE)
def test_rewritten_code_runs_against_its_in_tree_copy(
    tmp_path: Path, caller: str, root: str, function: str, rewritten: bool
) -> None:
    before = run_entry_point(LEGACY / root, LEGACY / caller, function, stub=False)
    after = run_entry_point(MIGRATED / root, MIGRATED / caller, function, stub=False)
    assert before.returncode == 0, before.stderr
    assert after.returncode == 0, after.stderr
    env_before, env_after = json.loads(before.stdout), json.loads(after.stdout)
    if rewritten:  # the Megatron config now reaches the PR #6976 copy
        assert "CUDA_DEVICE_MAX_CONNECTIONS" not in env_before
        assert env_after["CUDA_DEVICE_MAX_CONNECTIONS"] == "1"
    else:  # left alone: a config here would have raised TypeError
        assert env_after == env_before
        forced = (MIGRATED / caller).read_text().replace(
            "get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config)"
        )
        probe = tmp_path / "forced.py"
        probe.write_text(forced)
        crash = run_entry_point(MIGRATED / root, probe, function, stub=False)
        assert crash.returncode == 1
        assert "TypeError: get_ppo_ray_runtime_env() takes 0 positional arguments but 1 was given" in crash.stderr


WHEELS = [  # (caller, the verl release it binds to, rewritten by apply)
    ("pinned_range/train.py", "0.8.0", False),
    ("requirements_pin/train.py", "0.8.0", False),
    ("uv_lock/train.py", "0.9.1", True),
    ("git_tag/train.py", "0.9.1", True),
    ("git_pin/train.py", "0.8.0", False),  # a commit: its release is unknown, so never rewritten
]


@pytest.mark.network
@pytest.mark.parametrize(("caller", "version", "rewritten"), WHEELS)
def test_rewritten_code_runs_against_the_real_wheel(
    tmp_path_factory: pytest.TempPathFactory, caller: str, version: str, rewritten: bool
) -> None:
    root = tmp_path_factory.getbasetemp() / f"verl-{version}"
    if not root.exists():
        unpack(version, root)
    before, after = run_entry_points(
        root, [(LEGACY / caller, "run_ppo"), (MIGRATED / caller, "run_ppo")], stub=True
    )
    assert before.returncode == 0, before.stderr
    assert after.returncode == 0, after.stderr
    env_before, env_after = json.loads(before.stdout), json.loads(after.stdout)
    if rewritten:  # verl 0.9.1 sets it for Megatron on a Hopper only when it sees the config
        assert "CUDA_DEVICE_MAX_CONNECTIONS" not in env_before
        assert env_after["CUDA_DEVICE_MAX_CONNECTIONS"] == "1"
    else:  # verl 0.8.0 sets it unconditionally and takes no config
        assert env_before == env_after
        assert env_after["CUDA_DEVICE_MAX_CONNECTIONS"] == "1"


RECIPE = (
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def run(config):\n    return get_ppo_ray_runtime_env()\n"
)


def _files_at(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_a_clone_beside_the_project_is_not_its_copy(tmp_path: Path) -> None:
    """A fresh user's crash: ``ws/verl-latest`` (0.9.1) next to a project pinning 0.8.0 was
    taken for the project's in-tree copy."""
    _files_at(tmp_path, {
        "ws/verl-latest/pyproject.toml": "[project]\nname = 'verl'\n",
        "ws/verl-latest/verl/__init__.py": "",
        "ws/verl-latest/verl/trainer/__init__.py": "",
        "ws/verl-latest/verl/trainer/constants_ppo.py": "def get_ppo_ray_runtime_env(config=None):\n    pass\n",
        "ws/myproj/requirements.txt": "verl==0.8.0\n",
        "ws/myproj/recipe/main.py": RECIPE,
    })
    proc = run_cli("apply", ".", "--show-notices", cwd=tmp_path / "ws" / "myproj")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "ws/myproj/recipe/main.py").read_text() == RECIPE
    assert "the project runs verl 0.8.0 (`requirements.txt:1 verl==0.8.0`)" in proc.stdout


def test_each_sub_project_takes_its_own_verl_version_and_tools_only_pyprojects_do_not_hide_a_pin(
    tmp_path: Path,
) -> None:
    _files_at(tmp_path, {
        "mono/.git/HEAD": "",
        "mono/requirements.txt": "verl==0.8.0\n",
        "mono/tools_only/pyproject.toml": "[tool.ruff]\nline-length = 100\n",
        "mono/tools_only/recipe/main.py": RECIPE,
        "mono/new/pyproject.toml": '[project]\nname = "new"\n\n[tool.ppo-migrate]\nverl-version = "0.9.1"\n',
        "mono/new/recipe/main.py": RECIPE,
        "mono/old/pyproject.toml": '[project]\nname = "old"\n\n[tool.ppo-migrate]\nverl-version = "0.8.0"\n',
        "mono/old/recipe/main.py": RECIPE,
    })
    mono = tmp_path / "mono"
    for order in (("old", "new", "tools_only"), ("new", "old", "tools_only"), (".",)):
        proc = run_cli("check", *order, "--output-format", "json", cwd=mono)
        codes = {str(Path(d["filename"]).relative_to(mono)): d["code"] for d in json.loads(proc.stdout)}
        assert codes == {
            "new/recipe/main.py": "PPO001",
            "old/recipe/main.py": "PPO005",
            "tools_only/recipe/main.py": "PPO005",
        }, order
    # --verl-version beats every table
    proc = run_cli("check", ".", "--verl-version", "0.9.0", "--output-format", "json", cwd=mono)
    assert {d["code"] for d in json.loads(proc.stdout)} == {"PPO001"}


LAUNCHER = (
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def launch(config):\n    return {\"runtime_env\": get_ppo_ray_runtime_env()}\n\n\n"
    "def run_ppo(config):\n    launch(config)\n    return launch({CALL})\n"
)


@pytest.mark.slow
@pytest.mark.network
@pytest.mark.parametrize(
    ("argument", "rewritten"),
    [
        ('{"num_cpus": 4}', False),  # ray.init's keyword arguments: verl 0.9.1 raises on a dict
        ("config", True),  # every caller passes the training config
    ],
)
def test_a_parameter_a_caller_fills_with_a_dict_is_not_passed_on(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path, argument: str, rewritten: bool
) -> None:
    """``launch(config)`` called once with the config and once with a dict: passing the
    parameter on would crash the second call on verl 0.9.1's real function
    (``OmegaConf.select`` of a dict), so ``apply`` leaves it and reports PPO002."""
    root = tmp_path_factory.getbasetemp() / "verl-0.9.1"
    if not root.exists():
        unpack("0.9.1", root)
    source = LAUNCHER.replace("{CALL}", argument)
    _files_at(tmp_path, {"requirements.txt": "verl==0.9.1\n", "trainer/launch.py": source})
    # each version of the trainer is kept in a file of its own (outside the project apply
    # reads), and all are run at the end in one interpreter (run_entry_points: torch and
    # Ray imported once, not four times)
    kept = tmp_path_factory.mktemp("versions")
    before = kept / "before.py"
    before.write_text(source)
    # the rewrite a name-based fixer would make, run against the real function
    by_name = tmp_path / "by_name.py"
    by_name.write_text(source.replace("get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config)"))
    proc = run_cli("apply", "trainer", cwd=tmp_path)
    applied = (tmp_path / "trainer/launch.py").read_text()
    after = kept / "after.py"
    after.write_text(applied)
    runs = [before, by_name, after]
    if not rewritten:
        # the hint's way: a parameter of its own, filled with the config by both calls
        threaded = run_cli("apply", "--thread-config", "trainer", cwd=tmp_path)
        runs.append(tmp_path / "trainer/launch.py")
    before, crashed, after, *final = run_entry_points(root, [(p, "run_ppo") for p in runs], stub=True)
    assert before.returncode == 0, before.stderr
    assert after.returncode == 0, after.stderr
    if rewritten:
        assert crashed.returncode == 0, crashed.stderr
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "Rewrote trainer/launch.py (1 call)" in proc.stdout
        assert json.loads(after.stdout)["CUDA_DEVICE_MAX_CONNECTIONS"] == "1"
    else:
        assert crashed.returncode != 0 and "AttributeError" in crashed.stderr
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert applied == source
        assert "trainer/launch.py:5:28: PPO002" in proc.stdout
        assert "run with --thread-config" in proc.stdout
        assert "CUDA_DEVICE_MAX_CONNECTIONS" not in json.loads(after.stdout)
        assert threaded.returncode == 0, threaded.stdout + threaded.stderr
        text = (tmp_path / "trainer/launch.py").read_text()
        assert "return launch({\"num_cpus\": 4}, ppo_config=config)" in text
        (final,) = final
        assert final.returncode == 0, final.stderr
        assert json.loads(final.stdout)["CUDA_DEVICE_MAX_CONNECTIONS"] == "1"
