"""``apply --use-ppo-runtime``: imports of the runtime function move from verl to ppo_runtime."""

from __future__ import annotations

import ast

import libcst as cst
import pytest

from cli_helpers import run_cli
from ppo_migrate.codemod import process_text
from ppo_migrate.edits.imports import use_ppo_runtime
from ppo_migrate.settings_model import Settings


@pytest.fixture(autouse=True)
def _outside_this_repository(tmp_path, monkeypatch) -> None:
    """``process_text(src, "m.py", ...)`` judges ``m.py`` in the working directory's
    repository; this one names verl's ``PPO_RAY_RUNTIME_ENV`` (``ppo_runtime`` re-exports
    it), which keeps ``--use-ppo-runtime`` from moving anything (fresh user 44, B3)."""
    monkeypatch.chdir(tmp_path)

#: ``--use-ppo-runtime`` on files of a project running verl 0.9.1 (said as ``--verl-version``
#: says it: the analysed "m.py" names no tree that declares its verl, issue 26)
SETTINGS = Settings(verl_version="0.9.1", verl_version_from_cli=True).replace(use_ppo_runtime=True)


def moved(src: str) -> str:
    new, _ = use_ppo_runtime(cst.parse_module(src))
    ast.parse(new.code)
    return new.code


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n",
            "from ppo_runtime import get_ppo_ray_runtime_env\n",
        ),
        (
            "from verl.trainer.main_ppo import get_ppo_ray_runtime_env as g  # legacy\n",
            "from ppo_runtime import get_ppo_ray_runtime_env as g  # legacy\n",
        ),
        (
            "from verl.trainer.constants_ppo import PPO_RAY_RUNTIME_ENV, get_ppo_ray_runtime_env\n",
            # placed as isort/ruff sort it (both third-party here: "ppo_runtime" < "verl")
            "from ppo_runtime import get_ppo_ray_runtime_env\nfrom verl.trainer.constants_ppo import PPO_RAY_RUNTIME_ENV\n",
        ),
        (
            "import verl.trainer.constants_ppo as c\nx = c.get_ppo_ray_runtime_env(cfg)\ny = c.PPO_RAY_RUNTIME_ENV\n",
            "import ppo_runtime\nimport verl.trainer.constants_ppo as c\n\nx = ppo_runtime.get_ppo_ray_runtime_env(cfg)\ny = c.PPO_RAY_RUNTIME_ENV\n",
        ),
    ],
)
def test_import_forms(before: str, after: str) -> None:
    assert moved(before) == after


@pytest.mark.parametrize(
    "src",
    [
        "from mylib.constants_ppo import get_ppo_ray_runtime_env\n",
        "from verl.trainer.constants_ppo import PPO_RAY_RUNTIME_ENV\n",
        "from .constants_ppo import get_ppo_ray_runtime_env\n",
        "from ppo_runtime import get_ppo_ray_runtime_env\n",
    ],
)
def test_untouched(src: str) -> None:
    new, count = use_ppo_runtime(cst.parse_module(src))
    assert count == 0 and new.code == src


def test_combined_with_passing_the_config() -> None:
    src = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env as g\ndef run(config):\n    return g()\n"
    result = process_text(src, "m.py", SETTINGS, fix=True)
    assert result.new_text == "from ppo_runtime import get_ppo_ray_runtime_env as g\ndef run(config):\n    return g(config)\n"
    assert (result.fixed, result.imports) == (1, 1)


def test_cli_flag_and_second_run_is_a_no_op(tmp_path) -> None:
    f = tmp_path / "m.py"
    f.write_text("from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\ndef run(config):\n    return get_ppo_ray_runtime_env()\n")
    proc = run_cli("apply", "--use-ppo-runtime", "m.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Rewrote m.py (1 call, 1 import)" in proc.stdout
    assert f.read_text() == "from ppo_runtime import get_ppo_ray_runtime_env\ndef run(config):\n    return get_ppo_ray_runtime_env(config)\n"
    again = run_cli("apply", "--use-ppo-runtime", "m.py", cwd=tmp_path)
    assert "Rewrote 0 calls in 0 files" in again.stdout


# -- regressions ---------------------------------------------------------------


def _apply_twice(src: str, settings: Settings = SETTINGS) -> tuple[str, object]:
    """process_text with --use-ppo-runtime; the output parses and a second run is a no-op."""
    result = process_text(src, "m.py", settings, fix=True)
    out = result.new_text if result.new_text is not None else src
    ast.parse(out)
    again = process_text(out, "m.py", settings, fix=True)
    assert again.new_text in (None, out)
    assert (again.fixed, again.imports) == (0, 0)
    return out, result


def test_splitting_a_parenthesized_import_keeps_each_alias_comment() -> None:
    # tester's repro: `# keep` was lost and `# runtime` moved onto PPO_RAY_RUNTIME_ENV
    src = (
        "from verl.trainer.constants_ppo import (\n"
        "    PPO_RAY_RUNTIME_ENV,  # keep\n"
        "    get_ppo_ray_runtime_env,  # runtime\n"
        ")\n"
    )
    assert moved(src) == (
        "from ppo_runtime import get_ppo_ray_runtime_env\n"  # sorted first (both third-party)
        "from verl.trainer.constants_ppo import (\n"
        "    PPO_RAY_RUNTIME_ENV,  # keep\n"
        ")\n"
    )


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # parenthesized, the runtime function first / in the middle / last without a comma
        (
            "from verl.trainer.constants_ppo import (\n    get_ppo_ray_runtime_env,  # runtime\n    PPO_RAY_RUNTIME_ENV,  # keep\n)\n",
            "from verl.trainer.constants_ppo import (\n    PPO_RAY_RUNTIME_ENV,  # keep\n)\n",
        ),
        (
            "from verl.trainer.constants_ppo import (\n    A,  # a\n    get_ppo_ray_runtime_env,  # runtime\n    B,  # b\n)\n",
            "from verl.trainer.constants_ppo import (\n    A,  # a\n    B,  # b\n)\n",
        ),
        (
            "from verl.trainer.constants_ppo import (\n    PPO_RAY_RUNTIME_ENV,  # keep\n    get_ppo_ray_runtime_env  # runtime\n)\n",
            "from verl.trainer.constants_ppo import (\n    PPO_RAY_RUNTIME_ENV,  # keep\n)\n",
        ),
        (
            "from verl.trainer.constants_ppo import (A, get_ppo_ray_runtime_env)  # both\n",
            "from verl.trainer.constants_ppo import (A)  # both\n",
        ),
        # unparenthesized: other aliases untouched; a now-trailing comma is dropped
        (
            "from verl.trainer.constants_ppo import A,  get_ppo_ray_runtime_env  # both\n",
            "from verl.trainer.constants_ppo import A  # both\n",
        ),
        (
            "from verl.trainer.constants_ppo import A,  get_ppo_ray_runtime_env, B  # all\n",
            "from verl.trainer.constants_ppo import A,  B  # all\n",
        ),
        (
            "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env, A  # both\n",
            "from verl.trainer.constants_ppo import A  # both\n",
        ),
    ],
)
def test_splitting_keeps_the_other_aliases_byte_for_byte(before: str, after: str) -> None:
    # the new import where isort/ruff put it: both third-party here, "ppo_runtime" < "verl"
    assert moved(before) == "from ppo_runtime import get_ppo_ray_runtime_env\n" + after


@pytest.mark.parametrize(
    "binding",
    [
        "def run(config, ppo_runtime=None):\n",  # a parameter
        "ppo_runtime = 'x'\ndef run(config):\n",  # a module-level assignment
        "def run(config):\n    ppo_runtime = 1\n",  # a local
        "from mylib import ppo_runtime\ndef run(config):\n",  # another module of that name
        "import mylib as ppo_runtime\ndef run(config):\n",
        "def run(config):\n    print(ppo_runtime)\n",  # used, never imported here
    ],
)
def test_module_access_is_left_alone_when_ppo_runtime_is_bound_otherwise(binding: str) -> None:
    src = "import verl.trainer.constants_ppo as cp\n" + binding + "    return cp.get_ppo_ray_runtime_env()\n"
    out, result = _apply_twice(src)
    # the reference keeps resolving to verl's function, and the config is passed
    assert out == src.replace("get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config)")
    assert (result.fixed, result.imports) == (1, 0)


def test_from_import_is_still_moved_when_ppo_runtime_is_bound_otherwise() -> None:
    src = (
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
        "def run(config, ppo_runtime=None):\n    return get_ppo_ray_runtime_env()\n"
    )
    out, result = _apply_twice(src)
    assert out == (
        "from ppo_runtime import get_ppo_ray_runtime_env\n"
        "def run(config, ppo_runtime=None):\n    return get_ppo_ray_runtime_env(config)\n"
    )
    assert (result.fixed, result.imports) == (1, 1)


def test_module_access_is_moved_when_ppo_runtime_is_that_module() -> None:
    src = (
        "import verl.trainer.constants_ppo as cp\nimport ppo_runtime\n"
        "def run(config):\n    ppo_runtime.explain_ppo_ray_runtime_env(config)\n    return cp.get_ppo_ray_runtime_env()\n"
    )
    out, result = _apply_twice(src)
    # `cp` is unused after the move: its import goes too (ruff F401)
    assert out == src.replace("cp.get_ppo_ray_runtime_env()", "ppo_runtime.get_ppo_ray_runtime_env(config)").replace(
        "import verl.trainer.constants_ppo as cp\n", ""
    )
    assert (result.fixed, result.imports) == (1, 1)


def test_moved_calls_are_still_fixed_when_targets_name_only_verl(tmp_path) -> None:
    # `targets = [verl's function]` replaces the defaults: after the move the call
    # resolves to ppo_runtime's function and must still get its config ("0 calls" before).
    settings = SETTINGS.replace(targets=("verl.trainer.constants_ppo.get_ppo_ray_runtime_env",))
    for src in (
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\ndef run(config):\n    return get_ppo_ray_runtime_env()\n",
        "import verl.trainer.constants_ppo as cp\ndef run(config):\n    return cp.get_ppo_ray_runtime_env()\n",
    ):
        out, result = _apply_twice(src, settings)
        assert "get_ppo_ray_runtime_env(config)" in out and "ppo_runtime" in out
        assert (result.fixed, result.imports) == (1, 1)
    (tmp_path / "pyproject.toml").write_text('[tool.ppo-migrate]\ntargets = ["verl.trainer.constants_ppo.get_ppo_ray_runtime_env"]\n')
    (tmp_path / "m.py").write_text("from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\ndef run(config):\n    return get_ppo_ray_runtime_env()\n")
    proc = run_cli("apply", "--use-ppo-runtime", "m.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Rewrote m.py (1 call, 1 import)" in proc.stdout
    assert (tmp_path / "m.py").read_text() == "from ppo_runtime import get_ppo_ray_runtime_env\ndef run(config):\n    return get_ppo_ray_runtime_env(config)\n"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "from verl.trainer.constants_ppo import *  # legacy\ndef run(config):\n    return get_ppo_ray_runtime_env()\n",
            # a block of its own that import sorters leave in place: this binding must win
            "from verl.trainer.constants_ppo import *  # legacy\n\nfrom ppo_runtime import get_ppo_ray_runtime_env  # isort: skip (must follow the star import)\n"
            "def run(config):\n    return get_ppo_ray_runtime_env(config)\n",
        ),
        (
            "try:\n    from verl.trainer.main_ppo import *\nexcept ImportError:\n    pass\nx = get_ppo_ray_runtime_env(cfg)\n",
            "try:\n    from verl.trainer.main_ppo import *\n\n    from ppo_runtime import get_ppo_ray_runtime_env  # isort: skip (must follow the star import)\nexcept ImportError:\n    pass\n"
            "x = get_ppo_ray_runtime_env(cfg)\n",
        ),
        (
            "if True: from verl.trainer.constants_ppo import *; y = 1\r\nx = 2\r\n",
            "if True: from verl.trainer.constants_ppo import *; from ppo_runtime import get_ppo_ray_runtime_env; y = 1\r\nx = 2\r\n",
        ),
    ],
)
def test_star_import_is_followed_by_the_ppo_runtime_import(before: str, after: str) -> None:
    out, result = _apply_twice(before)
    assert out == after
    assert result.imports == 1
    # a later binding wins: the name now comes from ppo_runtime
    bound = [
        n.module for n in ast.walk(ast.parse(out))
        if isinstance(n, ast.ImportFrom) and any(a.name in ("*", "get_ppo_ray_runtime_env") for a in n.names)
    ]
    assert bound[-1] == "ppo_runtime"


def test_star_import_through_the_cli(tmp_path) -> None:
    f = tmp_path / "m.py"
    f.write_text("from verl.trainer.constants_ppo import *\ndef run(config):\n    return get_ppo_ray_runtime_env()\n")
    proc = run_cli("apply", "--use-ppo-runtime", "m.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Rewrote m.py (1 call, 1 import)" in proc.stdout
    assert f.read_text() == (
        "from verl.trainer.constants_ppo import *\n\nfrom ppo_runtime import get_ppo_ray_runtime_env  # isort: skip (must follow the star import)\n"
        "def run(config):\n    return get_ppo_ray_runtime_env(config)\n"
    )
    again = run_cli("apply", "--use-ppo-runtime", "m.py", cwd=tmp_path)
    assert "Rewrote 0 calls in 0 files" in again.stdout


# -- lint-clean code stays lint-clean: ruff on a real verl file ----------------------

# verl's own ruff settings (its pyproject.toml): line length 120, E/F/UP/B/I/G, verl
# first-party. RUF100 (unused noqa) is added to see a `# noqa: F405` that suppresses nothing.
VERL_RUFF = """\
[tool.ruff]
line-length = 120

[tool.ruff.lint]
isort = {known-first-party = ["verl"]}
select = ["E", "F", "UP", "B", "I", "G", "RUF100"]
ignore = ["E731", "B007", "UP032", "UP007", "G004"]
"""
IMPORT = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
CALL = "get_ppo_ray_runtime_env()"


@pytest.fixture(scope="module")
def verl_main_ppo(tmp_path_factory) -> str:
    """``verl/trainer/main_ppo.py`` of the published verl 0.8.0 wheel."""
    import subprocess
    import sys
    import zipfile

    dest = tmp_path_factory.mktemp("verl-0.8.0")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(dest), "verl==0.8.0"],
        capture_output=True, text=True, timeout=600,
    )
    if proc.returncode != 0:
        pytest.fail(f"could not download verl==0.8.0: {proc.stderr.strip().splitlines()[-1:]}")
    (wheel,) = dest.glob("verl-0.8.0-*.whl")
    text = zipfile.ZipFile(wheel).read("verl/trainer/main_ppo.py").decode()
    assert IMPORT in text and text.count(CALL) == 1
    return text


def _ruff(root, *paths):
    import shutil
    import subprocess
    import sys

    exe = shutil.which("ruff", path=str(__import__("pathlib").Path(sys.executable).parent)) or shutil.which("ruff")
    if exe is None:
        pytest.skip("ruff (a test extra) is not installed")
    return subprocess.run([exe, "check", "--no-cache", "--output-format", "concise", *paths],
                          cwd=root, capture_output=True, text=True, timeout=120)


@pytest.mark.network
def test_rewritten_real_verl_files_stay_ruff_clean(verl_main_ppo, tmp_path) -> None:
    """Bug: on a ruff-clean verl file the rewrite left an unsorted import block (I001),
    `import verl.trainer.constants_ppo as c` unused (F401), and a `# noqa: F405` that
    suppressed nothing (RUF100). Five spellings of the real main_ppo.py of verl 0.8.0."""
    text = verl_main_ppo
    first_verl = "from verl.experimental.reward_loop import migrate_legacy_reward_impl\n"
    variants = {
        "from_import.py": text,
        "module_alias.py": text.replace(IMPORT, "").replace(
            first_verl, "import verl.trainer.constants_ppo as c\n" + first_verl
        ).replace(CALL, "c." + CALL),
        "dotted.py": text.replace(IMPORT, "").replace(
            first_verl, "import verl.trainer.constants_ppo\n" + first_verl
        ).replace(CALL, "verl.trainer.constants_ppo." + CALL),
        "from_package.py": text.replace(IMPORT, "from verl.trainer import constants_ppo\n").replace(
            CALL, "constants_ppo." + CALL
        ),
        "star.py": text.replace(IMPORT, "from verl.trainer.constants_ppo import *  # noqa: F403\n").replace(
            CALL, CALL + "  # noqa: F405"
        ),
    }
    (tmp_path / "pyproject.toml").write_text(VERL_RUFF)
    pkg = tmp_path / "verl" / "trainer"
    pkg.mkdir(parents=True)
    for name, variant in variants.items():
        (pkg / name).write_text(variant)
    names = [f"verl/trainer/{n}" for n in variants]
    before = _ruff(tmp_path, *names)
    assert before.returncode == 0, before.stdout  # every spelling is ruff-clean to begin with
    proc = run_cli("apply", "--use-ppo-runtime", *names, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("(1 call, 1 import)") == 5
    after = _ruff(tmp_path, *names)
    assert after.returncode == 0, after.stdout  # nothing new: I001, F401, RUF100 all clean
    out = {n: (pkg / n).read_text() for n in variants}
    third_party = "from omegaconf import OmegaConf\nfrom ppo_runtime import get_ppo_ray_runtime_env\n\n"
    assert third_party in out["from_import.py"]  # third-party section, sorted, verl's left
    assert IMPORT not in out["from_import.py"]
    assert "import ppo_runtime\n" in out["module_alias.py"]
    assert "constants_ppo" not in out["module_alias.py"]  # its import went with its last use
    assert "constants_ppo" not in out["from_package.py"]
    assert "constants_ppo" not in out["dotted.py"]
    assert "# noqa: F405" not in out["star.py"] and "# noqa: F403" in out["star.py"]
    assert "get_ppo_ray_runtime_env(config)\n" in out["star.py"]
    for variant in out.values():
        compile(variant, "main_ppo.py", "exec")
