"""PPO006 for a Hydra ``_target_`` naming the runtime function, through the command line
(issue 26, family 6: trial 26d's ``d6_hydra_target_call`` and
``d6b_hydra_instantiate_partial`` were MISSED). The projects are executed before and after a
plain ``apply`` with the real ``hydra.utils`` (hydra-core is a test dependency here), and
``check`` reports the YAML value's line and column in every output format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import VERL_08, VERL_09, run_cli, run_launcher, verl_stub, write_tree

pytest.importorskip("hydra.utils")

VERL = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"
STUB = (
    "def get_ppo_ray_runtime_env(config=None):\n"
    "    print('stub: got', 'nothing' if config is None else 'a config')\n"
    "    return {'env_vars': {}}\n"
)
CALL = (
    "import hydra.utils\n"
    "from omegaconf import OmegaConf\n"
    "\n"
    "\n"
    "def main(config):\n"
    "    env = hydra.utils.call(config.ray.runtime_env)\n"
    "    assert 'env_vars' in env\n"
    "    print('OK')\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    main(OmegaConf.load('conf/config.yaml'))\n"
)
PARTIAL = CALL.replace(
    "    env = hydra.utils.call(config.ray.runtime_env)\n    assert 'env_vars' in env\n",
    "    make_env = hydra.utils.instantiate(config.ray.runtime_env)\n    assert 'env_vars' in make_env()\n",
)
CONFIG = f"ray:\n  runtime_env:\n    _target_: {VERL}\n"


def project(tmp_path: Path, files: dict[str, str], body: str = STUB) -> Path:
    root = write_tree(tmp_path / "project", files)
    verl_stub(root, body)
    return root


def findings(root: Path, *extra: str) -> list[dict]:
    proc = run_cli("check", "--output-format", "json", "--exit-zero", *extra, ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    return [
        {
            "file": Path(d["filename"]).resolve().relative_to(root.resolve()).as_posix(),
            "code": d["code"],
            "at": (d["location"]["row"], d["location"]["column"], d["end_location"]["row"],
                   d["end_location"]["column"]),
        }
        for d in json.loads(proc.stdout)
    ]


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts
    }


def ran(root: Path) -> str:
    proc = run_launcher(root, pythonpath=[root])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.mark.parametrize(
    ("main", "config"),
    [(CALL, CONFIG), (PARTIAL, CONFIG + "    _partial_: true\n")],
    ids=["call", "instantiate-partial"],
)
def test_trial_shapes_run_before_and_after_apply_and_check_finds_the_yaml_line(
    tmp_path: Path, main: str, config: str
) -> None:
    root = project(tmp_path, {"train.py": main, "conf/config.yaml": config})
    assert ran(root) == "stub: got nothing\nOK\n"
    assert findings(root) == [
        {"file": "conf/config.yaml", "code": "PPO006", "at": (3, 15, 3, 15 + len(VERL))}
    ]
    before = tree(root)
    proc = run_cli("apply", ".", cwd=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the finding remains, no fix
    assert "Rewrote 0 calls in 0 files; 1 finding remains." in proc.stdout + proc.stderr
    assert tree(root) == before
    assert ran(root) == "stub: got nothing\nOK\n"
    diff = run_cli("apply", "--diff", ".", cwd=root)
    assert "config.yaml" not in diff.stdout


def test_a_reexported_name_no_python_file_imports(tmp_path: Path) -> None:
    root = project(tmp_path, {
        "mypkg/__init__.py": f"from {VERL.rsplit('.', 1)[0]} import get_ppo_ray_runtime_env as get_env\n",
        "conf/config.yaml": "ray:\n  runtime_env:\n    _target_: mypkg.get_env\n",
        "train.py": CALL,
    })
    assert ran(root) == "stub: got nothing\nOK\n"
    assert findings(root) == [
        {"file": "conf/config.yaml", "code": "PPO006", "at": (3, 15, 3, 28)}
    ]
    # the YAML file named alone (a pre-commit hook's staged file): the re-exporting module is
    # found in the repository beyond the run
    proc = run_cli("check", "--output-format", "concise", "conf/config.yaml", cwd=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[0].startswith("conf/config.yaml:3:15: PPO006 `mypkg.get_env` ")


def test_near_misses_give_nothing_and_no_file_error(tmp_path: Path) -> None:
    root = project(tmp_path, {
        "conf/other.yaml": f"env:\n  _target_: {VERL.rsplit('.', 1)[0]}.something_else\n",
        "conf/plain.yml": "trainer:\n  nnodes: 1\n",
        "conf/broken.yaml": f"env: [\n  _target_: {VERL}\n",
        "conf/mentions.yaml": f"# see {VERL}\nnote: {VERL}\n",
        "tests/test_env.py": (
            "from unittest import mock\n\n\n"
            "def test_env():\n"
            f"    with mock.patch('{VERL}', return_value={{}}):\n"
            "        pass\n"
        ),
    })
    assert findings(root) == []
    proc = run_cli("check", ".", cwd=root)
    assert (proc.returncode, proc.stdout) == (0, "All checks passed!\n")


@pytest.mark.parametrize("body", [VERL_08, VERL_09], ids=["no-config", "config"])
def test_the_yaml_reference_is_judged_as_a_python_partial(tmp_path: Path, body: str) -> None:
    """Whatever ``functools.partial(get_ppo_ray_runtime_env)`` gets in a project (the callee
    in effect taking a config or not), a ``_target_`` naming the function gets the same."""
    root = project(tmp_path, {
        "conf/config.yaml": CONFIG,
        "make.py": (
            "import functools\n\n"
            f"from {VERL.rsplit('.', 1)[0]} import get_ppo_ray_runtime_env\n\n"
            "make_env = functools.partial(get_ppo_ray_runtime_env)\n"
        ),
    }, body=body)
    found = findings(root, "--show-notices")
    by_file = {f["file"]: f["code"] for f in found}
    assert by_file == {"conf/config.yaml": "PPO006", "make.py": "PPO006"}
    assert len(found) == 2


def test_output_formats_render_the_yaml_finding(tmp_path: Path) -> None:
    root = project(tmp_path, {"conf/config.yaml": CONFIG, "train.py": CALL})
    full = run_cli("check", "--output-format", "full", ".", cwd=root)
    assert full.returncode == 1
    assert full.stdout.startswith(f"conf/config.yaml:3:15: PPO006 `{VERL}` is named by a Hydra `_target_`")
    assert f"3 |     _target_: {VERL}\n" in full.stdout
    assert "  |               " + "^" * len(VERL) + " PPO006" in full.stdout

    concise = run_cli("check", "--output-format", "concise", ".", cwd=root)
    assert concise.stdout.splitlines()[0].startswith("conf/config.yaml:3:15: PPO006 ")

    sarif = json.loads(run_cli("check", "--output-format", "sarif", ".", cwd=root).stdout)
    (result,) = sarif["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]
    assert result["ruleId"] == "PPO006"
    assert location["artifactLocation"]["uri"].endswith("conf/config.yaml")
    assert (location["region"]["startLine"], location["region"]["startColumn"]) == (3, 15)
    assert location["region"]["endColumn"] == 15 + len(VERL)

    github = run_cli("check", "--output-format", "github", ".", cwd=root).stdout
    assert "file=conf/config.yaml,line=3,col=15," in github
    junit = run_cli("check", "--output-format", "junit", ".", cwd=root).stdout
    assert 'file="conf/config.yaml" line="3"' in junit


def test_selection_exclusion_and_noqa(tmp_path: Path) -> None:
    root = project(tmp_path, {"conf/config.yaml": CONFIG, "train.py": CALL})
    assert findings(root, "--ignore", "PPO006") == []
    assert findings(root, "--select", "PPO001") == []
    assert [f["code"] for f in findings(root, "--select", "PPO006")] == ["PPO006"]
    assert findings(root, "--extend-exclude", "conf") == []
    assert findings(root, "--extend-exclude", "*.yaml") == []
    (root / "pyproject.toml").write_text('[tool.ppo-migrate]\nextend-exclude = ["conf/"]\n')
    assert findings(root) == []
    (root / "pyproject.toml").unlink()
    (root / "conf/config.yaml").write_text(CONFIG.replace(VERL, VERL + "  # noqa: PPO006"))
    assert findings(root) == []


def test_add_noqa_comments_the_yaml_line_and_apply_never_writes_it(tmp_path: Path) -> None:
    root = project(tmp_path, {"conf/config.yaml": CONFIG, "train.py": CALL})
    proc = run_cli("check", "--add-noqa", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (root / "conf/config.yaml").read_text() == CONFIG.replace(VERL, VERL + "  # noqa: PPO006")
    assert findings(root) == []
    assert ran(root) == "stub: got nothing\nOK\n"  # the config still loads, the same node


def test_a_named_yaml_file_is_read_as_yaml(tmp_path: Path) -> None:
    root = project(tmp_path, {"conf/config.yaml": CONFIG})
    proc = run_cli("check", "--output-format", "concise", "conf/config.yaml", cwd=root)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0].startswith("conf/config.yaml:3:15: PPO006 ")
    # names the function, yet is neither YAML nor Python: skipped, no PPO902
    (root / "conf/plain.yaml").write_text("a: [get_ppo_ray_runtime_env, 2\n")
    proc = run_cli("check", "conf/plain.yaml", cwd=root)
    assert (proc.returncode, proc.stdout) == (0, "All checks passed!\n")
