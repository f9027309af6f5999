"""Issue 26, family 2, trial 26e (REPORT.md, F): verl's own image named outside a Dockerfile's ``FROM``.

verl publishes images tagged by the release they hold (``verlai/verl:app-verl0.8-...`` holds
verl 0.8). A Dockerfile's ``FROM`` of one is read as a pin (PPO005, "may run verl 0.8.0"); the
same image named in a KubeRay ``RayJob``, a compose service, a workflow's ``container:``, a
SkyPilot task's ``image_id``, an ``srun --container-image=`` or an Apptainer ``From:`` was
neither a pin nor a mention, so ``pyproject.toml``'s ``verl>=0.9.0`` decided, a plain ``apply``
passed the config and the trainer raised ``TypeError`` in the image. The rule
(:mod:`ppo_migrate.rules.mentions`, docs/callee.md): the image form is a mention of its release
in every file of the walk, so the fix is unsafe and its reason names ``file:line``. Each case is
*executed* before, after a plain ``apply`` and after ``apply --thread-config``; the counter-case
names a 0.9 image and keeps the safe fix.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import (
    LAUNCHER,
    VERL_08,
    VERL_09,
    launcher_project,
    launcher_ran,
    only_finding,
    run_cli,
)
from ppo_migrate.rules.mentions import text_mentions

FIXED = LAUNCHER.replace("get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config)")
PYPROJECT = '[project]\nname = "proj"\nversion = "0.1.0"\ndependencies = ["verl>=0.9.0", "omegaconf"]\n'
IMAGE = "verlai/verl:app-verl{release}-transformers4.56.1-vllm0.10.2-mcore0.13.0-te2.2"

#: shape -> (file, its text given the image, the line naming it)
SHAPES: dict[str, tuple[str, str, int]] = {
    "kuberay-rayjob": ("k8s/rayjob.yaml", (
        "apiVersion: ray.io/v1\nkind: RayJob\nspec:\n  entrypoint: python train.py\n  rayClusterSpec:\n"
        "    headGroupSpec:\n      template:\n        spec:\n          containers:\n"
        "            - name: ray-head\n              image: {image}\n"), 11),
    "compose-image": ("compose.yaml", "services:\n  trainer:\n    image: \"{image}\"\n    command: python train.py\n", 3),
    "workflow-container": (".github/workflows/gpu.yml", (
        "on: [push]\njobs:\n  train:\n    runs-on: [self-hosted, gpu]\n    container:\n"
        "      image: {image}\n    steps:\n      - run: python train.py\n"), 6),
    "skypilot-image-id": ("sky.yaml", "resources:\n  accelerators: H100:8\n  image_id: docker:{image}\nrun: python train.py\n", 3),
    "slurm-pyxis": ("train.sbatch", "#!/bin/bash\n#SBATCH -N 1\nsrun --container-image={image} python train.py\n", 3),
    "apptainer-from": ("verl.def", "Bootstrap: docker\nFrom: {image}\n\n%runscript\n    python train.py\n", 2),
    "python-submit-script": ("scripts/submit.py", 'IMAGE = "{image}"\n\n\ndef submit():\n    return IMAGE\n', 1),
}


def _project(tmp_path: Path, shape: str, release: str, verl: str) -> tuple[Path, Path]:
    name, text, _ = SHAPES[shape]
    return launcher_project(tmp_path, {"pyproject.toml": PYPROJECT, name: text.format(image=IMAGE.format(release=release))}, verl)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_an_image_of_an_old_verl_named_anywhere_leaves_the_call_running(tmp_path: Path, shape: str) -> None:
    root, site = _project(tmp_path, shape, "0.8", VERL_08)
    assert launcher_ran(root, site) == "ran None"
    name, _, line = SHAPES[shape]
    found = only_finding(root)
    assert (found["code"], found["location"]["row"], found["fix"]["applicability"]) == ("PPO001", 6, "unsafe"), found
    assert found["reason"]["kind"] == "unread-pin"
    assert [(r["filename"], r["location"]["row"]) for r in found["reason"]["lines"]] == [(str(root / name), line)]
    assert f"`{name}:{line}` mentions {IMAGE.format(release='0.8')} in a line" in found["message"], found["message"]
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert (root / "train.py").read_text() == LAUNCHER
        assert launcher_ran(root, site) == "ran None"


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_an_image_of_verl_0_9_keeps_the_safe_fix(tmp_path: Path, shape: str) -> None:
    """The same file naming ``app-verl0.9``: the required ``verl>=0.9.0`` decides, ``apply``
    passes the config and the rewritten launcher runs against verl 0.9."""
    root, site = _project(tmp_path, shape, "0.9", VERL_09)
    found = only_finding(root)
    assert (found["code"], found["fix"]["applicability"]) == ("PPO001", "safe"), found
    assert run_cli("apply", "--exit-zero", ".", cwd=root).returncode == 0
    assert (root / "train.py").read_text() == FIXED
    assert launcher_ran(root, site) == "ran {'trainer': 2}"


@pytest.mark.parametrize(("text", "written"), [
    ("image: verlai/verl:app-verl0.8-vllm0.10.2", ["verlai/verl:app-verl0.8-vllm0.10.2"]),
    ("enroot import docker://verlai/verl:app-verl0.7.1-sglang", ["verlai/verl:app-verl0.7.1-sglang"]),
    ("image_id: docker:nvcr.io/me/verl:base-verl0.5-cu126", ["nvcr.io/me/verl:base-verl0.5-cu126"]),
    ("image: verlai/verl:app-verl0.9-vllm0.11", []),  # takes a config
    ("image: verlai/verl:vllm011.latest", []),  # no release in the tag
    # not verl's repository, but a tag naming a release as an environment does (trial 26f:
    # ``verl-0.8.0.sif``, ``module load verl/0.8.0``): a mention, the fix unsafe
    ("image: my/trainer:verl0.8", ["verl0.8"]),
    ("# image: verlai/verl:app-verl0.8", []),  # a comment
])
def test_the_image_form(text: str, written: list[str]) -> None:
    assert [w for _, w in text_mentions(text)] == written
