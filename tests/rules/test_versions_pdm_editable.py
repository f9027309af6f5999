"""Trial 26g (issue 26, family 1): pdm's editable dependency is the project's declared verl.

``tests/data/fixtures/trial26g/pdm_editable``: ``[tool.pdm.dev-dependencies]`` says ``-e
file:///${PROJECT_ROOT}/third_party/verl`` and ``pdm.lock`` holds ``editable = true`` with
``path = "./third_party/verl"``; ``pdm install`` puts that copy (0.8-style: no config) on the
path, whatever ``[project] dependencies`` says (``verl>=0.9.0``). It was seen only as a stray
copy (an unsafe fix, which ``apply --unsafe-fixes`` made, breaking the project); the copy at
that folder decides, as ``pip install -e ./folder`` and ``environment.yml``'s ``-e ./folder``
do: PPO005 naming it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cli_helpers import VERL_09, launcher_ran, run_cli
from ppo_migrate.project import snapshot
from ppo_migrate.rules.requirements import _from_requirement, _local_directory
from ppo_migrate.rules.versions import _pdm_entries, verl_evidence

PROJECT = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "trial26g" / "pdm_editable"
COPY = "third_party/verl/verl/trainer/constants_ppo.py"
NOTICE = (
    f"`get_ppo_ray_runtime_env()` left as it is: `{COPY}:1` defines `get_ppo_ray_runtime_env()` without "
    "a config parameter (pre verl PR #6976); update that copy, or run with --use-ppo-runtime"
)
LOCK_ENTRY = 'editable = true\npath = "./third_party/verl"\n'


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(PROJECT, root)
    (root / ".git").mkdir()
    return root


def _findings(root: Path) -> list[tuple[str, int, str, str | None]]:
    proc = run_cli("check", "--output-format", "json", "--exit-zero", "--show-notices", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    return [
        (f["code"], f["location"]["row"], f["message"], (f["fix"] or {}).get("applicability"))
        for f in json.loads(proc.stdout)
    ]


def _ran(root: Path) -> str:
    # ``pdm install`` installs the editable copy: its folder is on the interpreter's path
    return launcher_ran(root, pythonpath=(root / "third_party" / "verl",))


def test_the_editable_copy_pdm_installs_decides(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    assert _findings(root) == [("PPO005", 6, NOTICE, None)]
    before = (root / "train.py").read_text()
    assert _ran(root) == "ran None"
    for flags in ((), ("--unsafe-fixes",)):
        assert run_cli("apply", *flags, ".", cwd=root).returncode == 0  # a notice only
        assert (root / "train.py").read_text() == before
        assert _ran(root) == "ran None"


def test_the_dev_dependency_alone_decides(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    (root / "pdm.lock").unlink()
    assert _findings(root) == [("PPO005", 6, NOTICE, None)]


def test_the_lock_entry_alone_decides_where_the_folder_names_no_known_checkout(tmp_path: Path) -> None:
    """The lock's ``path`` (and a ``file:`` ``url`` with ``${PROJECT_ROOT}``) is read: the
    copy moved to ``libs/rl/``, which only the lock names."""
    root = _copy(tmp_path)
    text = (root / "pyproject.toml").read_text()
    (root / "pyproject.toml").write_text(text.split("[tool.pdm")[0])
    (root / "third_party").rename(root / "libs")
    (root / "libs" / "verl").rename(root / "libs" / "rl")
    lock = (root / "pdm.lock").read_text()
    notice = NOTICE.replace("third_party/verl/", "libs/rl/")
    for entry in ('editable = true\npath = "./libs/rl"\n', 'url = "file:///${PROJECT_ROOT}/libs/rl"\n'):
        (root / "pdm.lock").write_text(lock.replace(LOCK_ENTRY, entry))
        assert _findings(root) == [("PPO005", 6, notice, None)], entry


def test_an_editable_copy_taking_a_config_gets_the_safe_fix_and_runs(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    (root / COPY).write_text(VERL_09)
    (found,) = _findings(root)
    assert found[:2] == ("PPO001", 6) and found[3] == "safe", found
    assert run_cli("apply", ".", cwd=root).returncode == 0
    assert "get_ppo_ray_runtime_env(config)" in (root / "train.py").read_text()
    assert _ran(root) == "ran {'trainer': 2}"


def test_project_root_is_the_declaring_files_folder(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    pyproject = root / "pyproject.toml"
    with snapshot.run_scope():
        assert _local_directory("file:///${PROJECT_ROOT}/third_party/verl", pyproject) == root / "third_party" / "verl"
        assert _local_directory("file:///${PROJECT_ROOT}/absent", pyproject) is None
        raw = pyproject.read_text()
        entries = ["-e file:///${PROJECT_ROOT}/third_party/verl", "pytest>=8", "-e ./third_party/verl#egg=verl"]
        found = list(_pdm_entries(entries, raw, pyproject, 0))
        assert [(f.line, f.kind, f.local_path, f.inferred) for f in found] == [
            (7, "direct-reference", root / "third_party" / "verl", False),
            (1, "direct-reference", root / "third_party" / "verl", False),
        ]
        # pdm's non-editable form in ``[project] dependencies``: a direct reference to the folder
        pinned = _from_requirement("verl @ file:///${PROJECT_ROOT}/third_party/verl", pyproject, 4, lock_pins=False)
        assert (pinned.kind, pinned.local_path) == ("direct-reference", root / "third_party" / "verl")
        decided = verl_evidence(root / "train.py").decided
        assert (decided.kind, decided.line, decided.local_path) == ("lock", 16, str(root / "third_party" / "verl"))
