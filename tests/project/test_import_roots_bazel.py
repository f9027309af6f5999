"""Trial 26g (issue 26, family 1): a Bazel rule's ``imports`` puts a folder on ``sys.path``.

``tests/data/fixtures/trial26g/bazel_imports``: ``third_party/rlcore/BUILD.bazel`` holds
``py_library(name = "verl", ..., imports = ["."])`` and the root ``py_binary`` depends on it,
so ``bazel run //:train`` imports the 0.8-style copy in ``third_party/rlcore/verl/``. The copy
was a stray one (an unsafe fix that ``apply --unsafe-fixes`` made, breaking the target); each
``imports`` entry is now an import root, relative to the build file's folder, like a launch
script's ``PYTHONPATH``: the copy there is in effect, PPO005 naming it and the rule's line.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cli_helpers import VERL_09, launcher_ran, run_cli
from ppo_migrate.project import snapshot
from ppo_migrate.project.import_roots import _bazel, declared_roots

PROJECT = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "trial26g" / "bazel_imports"
COPY = "third_party/rlcore/verl/trainer/constants_ppo.py"
NOTICE = (
    f"`get_ppo_ray_runtime_env()` left as it is: `{COPY}:1` defines `get_ppo_ray_runtime_env()` without a "
    "config parameter (pre verl PR #6976); a Bazel rule's imports at `{build}:{line}` puts "
    "`third_party/rlcore` on sys.path; update that copy, or run with --use-ppo-runtime"
)


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
    # what ``bazel run //:train`` puts on the path: the library's ``imports`` folder
    return launcher_ran(root, pythonpath=(root / "third_party" / "rlcore",))


def test_the_copy_a_bazel_library_puts_on_the_path_decides(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    notice = NOTICE.format(build="third_party/rlcore/BUILD.bazel", line=4)
    assert _findings(root) == [("PPO005", 6, notice, None)]
    before = (root / "train.py").read_text()
    assert _ran(root) == "ran None"
    for flags in ((), ("--unsafe-fixes",), ("--thread-config",)):
        assert run_cli("apply", *flags, ".", cwd=root).returncode == 0, flags  # a notice only
        assert (root / "train.py").read_text() == before
        assert _ran(root) == "ran None"


def test_an_entry_is_relative_to_its_build_files_folder(tmp_path: Path) -> None:
    """The binary's own ``imports = ["third_party/rlcore"]`` (the root package) and a
    ``BUILD`` file (no ``.bazel`` suffix) name the same folder."""
    root = _copy(tmp_path)
    (root / "third_party" / "rlcore" / "BUILD.bazel").unlink()
    (root / "BUILD.bazel").unlink()
    (root / "BUILD").write_text(
        'load("@rules_python//python:defs.bzl", "py_binary")\n\n'
        'py_binary(\n    name = "train",\n    srcs = ["train.py"],\n    imports = ["third_party/rlcore"],\n)\n'
    )
    assert _findings(root) == [("PPO005", 6, NOTICE.format(build="BUILD", line=6), None)]


def test_a_copy_taking_a_config_stays_an_unsafe_fix_naming_the_rule(tmp_path: Path) -> None:
    """The rule puts the copy first for its targets only (``python train.py`` outside Bazel
    imports another verl): nothing else declaring verl, the fix stays unsafe, and its reason
    no longer says the copy is on no import root the tool knows."""
    root = _copy(tmp_path)
    (root / COPY).write_text(VERL_09)
    ((code, row, message, fix),) = _findings(root)
    assert (code, row, fix) == ("PPO001", 6, "unsafe")
    assert (
        "`third_party/rlcore/verl/` is a copy that a Bazel rule's imports at "
        "`third_party/rlcore/BUILD.bazel:4` puts on sys.path (not every run), whose "
        "`get_ppo_ray_runtime_env` takes a config"
    ) in message
    assert "no import root ppo-migrate knows" not in message


def test_only_literal_string_lists_of_python_rules_count(tmp_path: Path) -> None:
    build = tmp_path / "pkg" / "BUILD.bazel"
    build.parent.mkdir()
    text = (
        'IMPORTS = ["computed"]\n'
        'py_library(name = "a", imports = [".", "../sibling"])\n'
        'py_test(name = "b", imports = IMPORTS)\n'
        'py_binary(name = "c", imports = ["x"] + IMPORTS)\n'
        'native.py_library(name = "d", imports = ("src",))\n'
        'cc_library(name = "e", imports = ["not_python"])\n'
        'py_library(name = "f", imports = ["/abs", glob(["*"])])\n'
    )
    found = [(value, line, bases) for value, line, _, bases in _bazel(text, str(build), str(tmp_path))]
    here = (str(build.parent),)
    assert found == [(".", 2, here), ("../sibling", 2, here), ("src", 5, here)]
    assert list(_bazel("py_library(name = 'a', imports = [\n", str(build), str(tmp_path))) == []  # no parse


def test_declared_roots_reads_build_files(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    with snapshot.run_scope():
        roots = [(r.path, r.source, r.line, r.form) for r in declared_roots(root)]
    assert roots == [(
        str(root / "third_party" / "rlcore"), str(root / "third_party" / "rlcore" / "BUILD.bazel"), 4,
        "a Bazel rule's imports",
    )]
