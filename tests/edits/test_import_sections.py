"""``ppo_migrate.edits.import_sections``: the section and order isort/ruff give an import."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_helpers import run_cli
from ppo_migrate.edits.import_sections import (
    FIRST_PARTY,
    FUTURE,
    LOCAL,
    STDLIB,
    THIRD_PARTY,
    read_import_sections,
)


def test_sections_from_ruff_isort_and_src(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.ruff.lint.isort]\nknown-first-party = ["mylab"]\nknown-third-party = ["verl"]\n'
    )
    (tmp_path / "verl").mkdir()  # a source root's package, but listed as third-party
    (tmp_path / "src" / "tools").mkdir(parents=True)  # ruff's default src: ".", "src"
    s = read_import_sections(tmp_path)
    assert [s.section(m) for m in ("__future__", "os.path", "ppo_runtime", "mylab.x", "verl.a", "tools")] == [
        FUTURE, STDLIB, THIRD_PARTY, FIRST_PARTY, THIRD_PARTY, FIRST_PARTY,
    ]
    assert s.section("x", relative=True) == LOCAL
    # `import b` before `from a import c` within a section; names compared without case
    assert s.key("b", is_from=False) < s.key("a", is_from=True)
    assert s.key("Ppo_runtime", is_from=True) < s.key("ray", is_from=True)


def test_isort_settings_and_ruff_toml(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.isort]\nknown_first_party = ["ppo_runtime"]\nforce_sort_within_sections = true\n'
    )
    s = read_import_sections(tmp_path)
    assert s.section("ppo_runtime") == FIRST_PARTY and s.force_sort_within_sections
    assert s.key("b", is_from=False) > s.key("a", is_from=True)  # sorted together
    (tmp_path / "ruff.toml").write_text('[lint.isort]\nknown-first-party = ["verl"]\n')
    s = read_import_sections(tmp_path)  # ruff.toml wins over pyproject's [tool.isort]
    assert s.section("verl") == FIRST_PARTY and s.section("ppo_runtime") == THIRD_PARTY


def test_apply_places_ppo_runtime_by_the_project_settings(tmp_path: Path) -> None:
    """Through the CLI: with ppo_runtime first-party in [tool.isort], the new import goes
    to the first-party section, after the third-party one, separated by a blank line."""
    (tmp_path / "pyproject.toml").write_text('[tool.isort]\nknown_first_party = ["ppo_runtime"]\n')
    src = (
        "import os\n\nimport ray\nfrom verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
        "def run(config):\n    return get_ppo_ray_runtime_env(), os, ray\n"
    )
    (tmp_path / "m.py").write_text(src)
    proc = run_cli("apply", "--use-ppo-runtime", "m.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "m.py").read_text() == (
        "import os\n\nimport ray\n\nfrom ppo_runtime import get_ppo_ray_runtime_env\n\n\n"
        "def run(config):\n    return get_ppo_ray_runtime_env(config), os, ray\n"
    )


@pytest.mark.parametrize(
    "isort",
    [
        "from-first = true",
        "no-sections = true",
        'known-local-folder = ["ppo_runtime"]',
        'known-first-party = ["ppo_runtime"]',
        "force-sort-within-sections = true",
    ],
)
def test_ruff_clean_input_stays_ruff_clean_under_each_isort_setting(tmp_path: Path, isort: str) -> None:
    """ruff itself is the oracle: a file ruff's I001 accepts under the project's isort
    setting is still accepted after the import move (a fresh tester found three settings
    that were not read: from-first, no-sections, known-local-folder)."""
    import shutil
    import subprocess
    import sys

    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff (a test extra) is not installed")
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.ruff.lint]\nselect = ["I", "F"]\n\n[tool.ruff.lint.isort]\n{isort}\n'
    )
    src = (
        "import os\nimport sys\nfrom pathlib import Path\n\nimport ray\n"
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n"
        "from . import sibling\n\n\n"
        "def run(config):\n    return get_ppo_ray_runtime_env(), os, sys, Path, ray, sibling\n"
    )
    (tmp_path / "m.py").write_text(src)
    fixed = subprocess.run([ruff, "check", "--no-cache", "--fix", "m.py"], cwd=tmp_path, capture_output=True, text=True)
    src = (tmp_path / "m.py").read_text()  # the file as the project's own settings sort it
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    proc = run_cli("apply", "--use-ppo-runtime", "m.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = (tmp_path / "m.py").read_text()
    assert "from ppo_runtime import get_ppo_ray_runtime_env" in out and out != src
    check = subprocess.run([ruff, "check", "--no-cache", "m.py"], cwd=tmp_path, capture_output=True, text=True)
    assert check.returncode == 0, out + check.stdout
