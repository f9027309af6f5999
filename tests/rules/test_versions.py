"""rules/versions.py: the verl version a project declares, and the verl installed.

Every test writes real project files into a temporary tree and asserts the deciding version, file,
1-based line, text and kind. Line numbers are counted by hand in the texts below (each text starts
on line 1 right after the opening quote).
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from ppo_migrate.rules.versions import (
    KNOWN_VERL_RELEASES,
    VerlDeclaration,
    declared_verl,
    installed_verl,
    lowest_allowed,
    verl_evidence,
)


def _write(root: Path, name: str, text: str | bytes) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------
# lowest_allowed


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (">=0.7.1,<0.9.0", "0.7.1"),
        ("<0.9", "0.1"),  # the lowest release of all
        (">0.8.0", "0.8.1"),  # the next known release
        ("~=0.9", "0.9.0"),
        ("==0.8.0", "0.8.0"),
        ("==0.8.*", "0.8.0"),
        ("!=0.1,<0.3", "0.2"),
        (">=0.8.1", "0.8.1"),  # no release 0.8.1 known: the written bound, still the pre-0.9 line
        (">=0.10", "0.10"),  # newer than every known release: the written bound
    ],
)
def test_lowest_allowed(spec: str, expected: str) -> None:
    assert str(lowest_allowed(SpecifierSet(spec))) == expected


def test_lowest_allowed_is_none_without_constraint_or_candidate() -> None:
    assert lowest_allowed(SpecifierSet("")) is None
    assert lowest_allowed(SpecifierSet(">0.9.5,<0.9.6")) is None
    # ``>X`` allows the next patch release of X, which may be published later
    assert lowest_allowed(SpecifierSet(">0.9.5")) == Version("0.9.6")


def test_known_releases_are_sorted_and_hold_the_signature_boundary() -> None:
    assert list(KNOWN_VERL_RELEASES) == sorted(KNOWN_VERL_RELEASES)
    assert Version("0.8.0") in KNOWN_VERL_RELEASES and Version("0.9.0") in KNOWN_VERL_RELEASES


# --------------------------------------------------------------------------------------------
# pyproject.toml

PYPROJECT_EXTRA_AND_GROUP = """\
[project]
name = "recipes"
version = "1.0"
dependencies = [
    "numpy>=1.26",
]

[project.optional-dependencies]
gpu = [
    "verl==0.8.0",
]

[dependency-groups]
dev = ["pytest"]
train = [
    {include-group = "dev"},
    "verl>=0.7.1,<0.9.0",
]
"""


def test_project_dependencies_lowest_allowed(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", '[project]\nname = "p"\ndependencies = [\n    "torch",\n    "verl>=0.7.1,<0.9.0",\n]\n')
    got = declared_verl(tmp_path)
    assert got == VerlDeclaration(
        version=Version("0.7.1"),
        path=str(tmp_path / "pyproject.toml"),
        line=5,
        requirement="verl>=0.7.1,<0.9.0",
        kind="specifier",
        why="lowest version pyproject.toml:5 verl>=0.7.1,<0.9.0 allows",
    )


def test_optional_dependency_extra_alone_decides_nothing(tmp_path: Path) -> None:
    """Trial 26c, C: an extra is installed only where asked for, so alone it may not show
    that a config is taken; it is set aside (named by the reason)."""
    _write(tmp_path, "pyproject.toml", '[project]\nname = "p"\n\n[project.optional-dependencies]\nrl = ["verl~=0.9"]\n')
    got = verl_evidence(tmp_path)
    assert got.decided is None and declared_verl(tmp_path) is None
    assert [(d.version, d.line, d.kind, d.requirement) for d in got.set_aside] == [
        (Version("0.9.0"), 5, "specifier", "verl~=0.9")
    ]


def test_several_declarations_lowest_wins_with_its_line(tmp_path: Path) -> None:
    # the extra pins 0.8.0 (line 10), the group allows >=0.7.1,<0.9.0 (line 17) -> 0.7.1 from the group
    _write(tmp_path, "pyproject.toml", PYPROJECT_EXTRA_AND_GROUP)
    got = declared_verl(tmp_path)
    assert got is not None
    assert got.version == Version("0.7.1")
    assert got.line == 17
    assert got.requirement == "verl>=0.7.1,<0.9.0"
    assert got.why == "lowest version pyproject.toml:17 verl>=0.7.1,<0.9.0 allows"


def test_dependency_group_alone_with_include_group(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "pyproject.toml",
        '[dependency-groups]\nrl = ["verl>=0.9.1"]\nall = [{include-group = "rl"}, {include-group = "missing"}]\n',
    )
    got = verl_evidence(tmp_path)
    assert got.decided is None  # a group alone decides nothing (trial 26c, C)
    assert [(d.version, d.line) for d in got.set_aside] == [(Version("0.9.1"), 2)]


def test_pyproject_equal_pin_is_a_specifier_not_a_lock(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", '[project]\nname = "p"\ndependencies = ["verl==0.8.0"]\n')
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, got.kind, got.line) == (Version("0.8.0"), "specifier", 3)


def test_bare_verl_has_unknown_version(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", '[project]\nname = "p"\ndependencies = ["verl"]\n')
    got = declared_verl(tmp_path)
    assert got is not None
    assert (got.version, got.kind, got.line, got.requirement) == (None, "specifier", 3, "verl")
    assert got.why == "pyproject.toml:3 verl: no version constraint"


def test_bare_verl_yields_to_a_bounded_declaration(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "pyproject.toml",
        '[project]\nname = "p"\ndependencies = ["verl[vllm]"]\n[tool.uv]\nconstraint-dependencies = ["verl>=0.9"]\n',
    )
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, got.line) == (Version("0.9.0"), 5)


def test_bare_verl_does_not_yield_to_a_group(tmp_path: Path) -> None:
    """Trial 26c, C: a group's ``verl>=0.9`` says nothing of the verl installed without the
    group; the bare required ``verl`` decides (its release cannot be read)."""
    _write(
        tmp_path,
        "pyproject.toml",
        '[project]\nname = "p"\ndependencies = ["verl[vllm]"]\n[dependency-groups]\nci = ["verl>=0.9"]\n',
    )
    got = verl_evidence(tmp_path)
    assert got.decided is not None and (got.decided.version, got.decided.line) == (None, 3)
    assert [(d.version, d.line) for d in got.set_aside] == [(Version("0.9.0"), 5)]


@pytest.mark.parametrize("name", ["Verl", "VERL", "verl"])
def test_names_are_normalised(tmp_path: Path, name: str) -> None:
    _write(tmp_path, "pyproject.toml", f'[project]\nname = "p"\ndependencies = ["{name} >= 0.6.0"]\n')
    got = declared_verl(tmp_path)
    assert got is not None and got.version == Version("0.6.0")


def test_other_packages_with_verl_in_their_name_are_not_verl(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", '[project]\nname = "p"\ndependencies = ["verl-tools==0.1", "verl_utils<1", "myverl"]\n')
    assert declared_verl(tmp_path) is None


# --------------------------------------------------------------------------------------------
# markers


def test_markers_are_not_evaluated_every_branch_counts(tmp_path: Path) -> None:
    """A marker describes the trainer's machine, not ppo-migrate's: verl==0.5.0 for
    Python 2 still counts, and the lowest version of every branch decides."""
    _write(
        tmp_path,
        "pyproject.toml",
        '[project]\nname = "p"\ndependencies = [\n'
        '    "verl==0.5.0; python_version < \'3\'",\n'
        '    "verl==0.6.0; sys_platform == \'no-such-platform\'",\n'
        f'    "verl==0.7.0; sys_platform == \'{sys.platform}\'",\n'
        "]\n",
    )
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, got.line) == (Version("0.5.0"), 4)


def test_markers_on_other_variables_keep_the_requirement(tmp_path: Path) -> None:
    # platform_machine / extra are not evaluated: the requirement counts (the lower version is the safe side)
    _write(
        tmp_path,
        "pyproject.toml",
        '[project]\nname = "p"\ndependencies = [\n'
        '    "verl==0.9.0",\n'
        '    "verl==0.5.0; platform_machine == \'no-such-machine\'",\n'
        '    "verl==0.6.0; extra == \'never\' and python_version >= \'3\'",\n'
        "]\n",
    )
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, got.line) == (Version("0.5.0"), 5)


def test_marker_that_cannot_be_evaluated_keeps_the_requirement(tmp_path: Path) -> None:
    # packaging raises UndefinedComparison for ~= with a one-part version: the requirement counts
    _write(tmp_path, "requirements.txt", "verl>=0.9\nverl>=0.6.0 ; python_version ~= '3'\n")
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, got.line) == (Version("0.6.0"), 2)


# --------------------------------------------------------------------------------------------
# locks

UV_LOCK = """\
version = 1
revision = 2
requires-python = ">=3.10"

[[package]]
name = "numpy"
version = "2.1.0"
source = { registry = "https://example.invalid/simple" }

[[package]]
name = "verl"
version = "0.9.1"
source = { registry = "https://example.invalid/simple" }
dependencies = [
    { name = "numpy" },
]
"""


def test_uv_lock_beats_the_specifiers(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", '[project]\nname = "p"\ndependencies = ["verl>=0.7.1"]\n')
    _write(tmp_path, "uv.lock", UV_LOCK)
    got = declared_verl(tmp_path)
    assert got == VerlDeclaration(
        version=Version("0.9.1"),
        path=str(tmp_path / "uv.lock"),
        line=11,
        requirement="verl 0.9.1 (uv.lock)",
        kind="lock",
        why="uv.lock:11 resolves verl 0.9.1",
    )


def test_uv_lock_git_source_is_a_direct_reference(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "uv.lock",
        'version = 1\n\n[[package]]\nname = "verl"\nversion = "0.9.0.dev0"\n'
        'source = { git = "https://example.invalid/verl.git?rev=abc123#abc123" }\n',
    )
    got = declared_verl(tmp_path)
    assert got is not None
    assert (got.version, got.kind, got.line) == (None, "lock", 4)
    assert got.why == "uv.lock:4 resolves verl to a direct reference: version unknown"


def test_poetry_lock(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "poetry.lock",
        '[[package]]\nname = "Verl"\nversion = "0.6.1"\ndescription = ""\noptional = false\n'
        'python-versions = ">=3.10"\nfiles = []\n\n[metadata]\nlock-version = "2.0"\n',
    )
    got = declared_verl(tmp_path)
    assert got is not None
    assert (got.version, got.kind, got.line, got.requirement) == (Version("0.6.1"), "lock", 2, "verl 0.6.1 (poetry.lock)")


def test_pdm_lock(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "pdm.lock",
        '[metadata]\ngroups = ["default"]\n\n[[package]]\nname = "torch"\nversion = "2.4.0"\n\n'
        '[[package]]\nname = "verl"\nversion = "0.7.0"\nrequires_python = ">=3.10"\n',
    )
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, got.kind, got.line) == (Version("0.7.0"), "lock", 9)


def test_lock_line_is_the_entry_not_a_dependency_naming_verl(tmp_path: Path) -> None:
    # an older uv.lock layout lists dependencies as [[...dependencies]] tables with their own name lines
    _write(
        tmp_path,
        "uv.lock",
        'version = 1\n\n[[package]]\nname = "recipes"\nversion = "1.0"\n\n'  # 1-6
        '[[package.dependencies]]\nname = "verl"\n\n'  # 7-9
        '[[package]]\nname = "verl"\nversion = "0.8.0"\n\n'  # 10-13
        '[[package]]\nname = "verl"\nversion = "0.7.0"\nresolution-markers = ["python_full_version < \'3.12\'"]\n',  # 14-17
    )
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, got.line) == (Version("0.7.0"), 15)


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("poetry.lock", '[[package]]\nname = "verl"\nversion = "0.8.0"\n\n[package.source]\ntype = "git"\n'
         'url = "https://example.invalid/verl.git"\nreference = "main"\n', 2),
        ("pdm.lock", '[metadata]\n\n[[package]]\nname = "verl"\nversion = "0.8.0"\ngit = "https://example.invalid/verl.git"\n'
         'revision = "abc"\n', 4),
        ("pdm.lock", '[[package]]\nname = "verl"\nversion = "0.9.0"\npath = "./verl"\neditable = true\n', 2),
    ],
)
def test_lock_entries_from_git_or_paths_have_no_version(tmp_path: Path, name: str, text: str, line: int) -> None:
    _write(tmp_path, name, text)
    got = declared_verl(tmp_path)
    assert got is not None
    assert (got.version, got.kind, got.line, got.requirement) == (None, "lock", line, f"verl {'0.9.0' if 'editable' in text else '0.8.0'} ({name})")


def test_registry_entry_beats_a_direct_one_in_locks(tmp_path: Path) -> None:
    _write(tmp_path, "pdm.lock", '[[package]]\nname = "verl"\nversion = "0.9.0"\ngit = "https://example.invalid/verl.git"\n')
    _write(tmp_path, "requirements.txt", "verl==0.8.0\n")
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, Path(got.path).name) == (Version("0.8.0"), "requirements.txt")


def test_requirements_exact_pin_is_a_lock_and_beats_pyproject(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", '[project]\nname = "p"\ndependencies = ["verl>=0.5"]\n')
    _write(tmp_path, "requirements.txt", "# pinned\ntorch==2.4.0\nverl==0.8.0\n")
    got = declared_verl(tmp_path)
    assert got == VerlDeclaration(
        version=Version("0.8.0"),
        path=str(tmp_path / "requirements.txt"),
        line=3,
        requirement="verl==0.8.0",
        kind="lock",
        why="requirements.txt:3 verl==0.8.0 pins verl 0.8.0",
    )


def test_two_locks_lowest_decides(tmp_path: Path) -> None:
    _write(tmp_path, "uv.lock", UV_LOCK)
    _write(tmp_path, "requirements-cuda.txt", "verl===0.8.0\n")
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, Path(got.path).name, got.line) == (Version("0.8.0"), "requirements-cuda.txt", 1)


# --------------------------------------------------------------------------------------------
# requirements*.txt


def test_requirements_hashes_comments_continuations_options(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "requirements.txt",
        "--index-url https://example.invalid/simple\n"  # 1
        "-f ./wheels\n"  # 2
        "numpy==2.1.0 \\\n"  # 3
        "    --hash=sha256:0000\n"  # 4
        "# verl==0.5.0 is commented out\n"  # 5
        "verl==0.7.1 \\\n"  # 6
        "    --hash=sha256:1111 \\\n"  # 7
        "    --hash=sha256:2222  # trailing comment\n"  # 8
        "this is not a requirement ((\n",  # 9
    )
    got = declared_verl(tmp_path)
    assert got is not None
    assert (got.version, got.kind, got.line, got.requirement) == (Version("0.7.1"), "lock", 6, "verl==0.7.1")


def test_requirements_specifier_is_lowest_allowed(tmp_path: Path) -> None:
    _write(tmp_path, "requirements-dev.txt", "pytest\nverl>=0.7.1,<0.9.0 ; python_version >= '3'\n")
    got = declared_verl(tmp_path)
    assert got is not None
    assert (got.version, got.kind, got.line) == (Version("0.7.1"), "specifier", 2)
    assert got.why == "lowest version requirements-dev.txt:2 verl>=0.7.1,<0.9.0 ; python_version >= '3' allows"


def test_requirements_includes_relative_to_the_including_file_with_a_cycle(tmp_path: Path) -> None:
    _write(tmp_path, "requirements.txt", "-r reqs/base.txt\n")
    _write(tmp_path, "reqs/base.txt", "numpy\n--requirement=../requirements.txt\n-r more.txt\n")
    _write(tmp_path, "reqs/more.txt", "\n\nverl>0.8.0\n-rbase.txt\n")
    got = declared_verl(tmp_path)
    assert got is not None
    assert (got.version, got.path, got.line) == (Version("0.8.1"), str(tmp_path / "reqs" / "more.txt"), 3)
    assert got.why == f"lowest version {os.path.join('reqs', 'more.txt')}:3 verl>0.8.0 allows"


def test_requirements_missing_include_is_skipped(tmp_path: Path) -> None:
    _write(tmp_path, "requirements.txt", "-r nowhere.txt\nverl==0.6.0\n")
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, got.line) == (Version("0.6.0"), 2)


def test_constraints_files_pin_what_the_project_installs(tmp_path: Path) -> None:
    _write(tmp_path, "requirements.txt", "verl\n-c constraints.txt\n")
    _write(tmp_path, "constraints.txt", "verl==0.5.0\n")
    got = declared_verl(tmp_path)
    assert got is not None
    assert (got.version, got.kind, got.path) == (Version("0.5.0"), "lock", str(tmp_path / "constraints.txt"))


# --------------------------------------------------------------------------------------------
# direct references


def test_git_url_pin_is_a_direct_reference(tmp_path: Path) -> None:
    url = "verl @ git+https://example.invalid/volcengine/verl.git@abc123"
    _write(tmp_path, "pyproject.toml", f'[project]\nname = "p"\ndependencies = [\n  "{url}",\n]\n')
    got = declared_verl(tmp_path)
    assert got == VerlDeclaration(
        version=None,
        path=str(tmp_path / "pyproject.toml"),
        line=4,
        requirement=url,
        kind="direct-reference",
        why=f"pyproject.toml:4 {url} is a direct reference: version unknown",
    )


def test_direct_reference_overrides_specifiers(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", PYPROJECT_EXTRA_AND_GROUP + "\n[tool.uv.sources]\nverl = { git = \"https://example.invalid/verl.git\", rev = \"abc\" }\n")
    got = declared_verl(tmp_path)
    assert got is not None
    assert (got.version, got.kind, got.line) == (None, "direct-reference", 21)
    assert got.requirement == 'verl = { git = "https://example.invalid/verl.git", rev = "abc" }'


def test_uv_index_source_is_not_a_direct_reference(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", '[project]\nname = "p"\ndependencies = ["verl>=0.8"]\n[tool.uv.sources]\nverl = { index = "internal" }\n')
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, got.kind) == (Version("0.8.0"), "specifier")


@pytest.mark.parametrize(
    "line",
    [
        "-e git+https://example.invalid/verl.git@abc#egg=verl",
        "--editable=./verl",
        "-e ./third_party/verl[gpu]",
        "./verl",
        "git+https://example.invalid/fork.git#egg=Verl",
    ],
)
def test_requirements_editable_and_url_lines_are_direct_references(tmp_path: Path, line: str) -> None:
    _write(tmp_path, "requirements.txt", "verl>=0.7\n" + line + "\n")
    got = declared_verl(tmp_path)
    assert got is not None
    assert (got.version, got.kind, got.line, got.requirement) == (None, "direct-reference", 2, line)


def test_editable_of_another_package_is_not_verl(tmp_path: Path) -> None:
    _write(tmp_path, "requirements.txt", "-e ./recipes\n-e git+https://example.invalid/x.git#egg=verl-tools\n")
    assert declared_verl(tmp_path) is None


# --------------------------------------------------------------------------------------------
# Poetry and PDM tables in pyproject.toml


def test_poetry_caret(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", '[tool.poetry]\nname = "p"\n\n[tool.poetry.dependencies]\npython = "^3.10"\nverl = "^0.8"\n')
    got = declared_verl(tmp_path)
    assert got is not None
    assert (got.version, got.kind, got.line, got.requirement) == (Version("0.8.0"), "specifier", 6, 'verl = "^0.8"')


def test_poetry_tilde_table_in_a_group(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "pyproject.toml",
        '[tool.poetry.dependencies]\nverl = "^0.9"\n\n[tool.poetry.group.old.dependencies]\n'
        'verl = { version = "~0.7.1", optional = true }\n',
    )
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, got.line) == (Version("0.7.1"), 5)


def test_poetry_git_is_a_direct_reference_unless_its_tag_names_a_release(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", '[tool.poetry.dependencies]\nverl = { git = "https://example.invalid/verl.git", branch = "main" }\n')
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, got.kind, got.line) == (None, "direct-reference", 2)
    _write(tmp_path, "pyproject.toml", '[tool.poetry.dependencies]\nverl = { git = "https://example.invalid/verl.git", tag = "v0.8.0" }\n')
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, got.kind, got.line) == (Version("0.8.0"), "lock", 2)


def test_pdm_dev_dependencies(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", '[project]\nname = "p"\n\n[tool.pdm.dev-dependencies]\nrl = [\n  "verl<0.9,>=0.6",\n]\n')
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, got.line) == (Version("0.6.0"), 6)


# --------------------------------------------------------------------------------------------
# setup.cfg and setup.py


def test_setup_cfg_install_requires_and_extras(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "setup.cfg",
        "[metadata]\nname = p\n\n[options]\ninstall_requires =\n    numpy\n    verl>=0.8.0\n\n"
        "[options.extras_require]\nold =\n    verl>=0.6.1,<0.7  # old recipes\n",
    )
    got = declared_verl(tmp_path)
    assert got is not None
    assert (got.version, got.line, got.requirement, Path(got.path).name) == (Version("0.6.1"), 11, "verl>=0.6.1,<0.7", "setup.cfg")


def test_setup_cfg_one_line_value_splits_on_semicolons(tmp_path: Path) -> None:
    _write(tmp_path, "setup.cfg", "[options]\npackages = find:\ninstall_requires = numpy; verl>=0.8.0\n")
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, got.line, got.requirement) == (Version("0.8.0"), 3, "verl>=0.8.0")


@pytest.mark.parametrize(
    ("cfg", "expected", "line", "version"),
    [
        ("[metadata]\nname = p\n[options]\ninstall_requires = numpy; verl>=0.8.0\n", "verl>=0.8.0", 4, "0.8.0"),
        ("[metadata]\nname = p\n[options]\ninstall_requires =\n    numpy\n\n    verl[gpu]~=0.7.0\n", "verl[gpu]~=0.7.0", 7, "0.7.0"),
        ("[metadata]\nname = p\n[options.extras_require]\nrl = verl==0.6.1\nold =\n    torch\n    verl<0.6\n", "verl<0.6", 7, "0.1"),
    ],
)
def test_setup_cfg_agrees_with_setuptools_own_reader(tmp_path: Path, cfg: str, expected: str, line: int, version: str) -> None:
    from setuptools.config.setupcfg import read_configuration  # the oracle: setuptools reads the same file

    _write(tmp_path, "setup.cfg", cfg)
    options = read_configuration(str(tmp_path / "setup.cfg"))["options"]
    theirs = list(options.get("install_requires", [])) + [r for reqs in options.get("extras_require", {}).values() for r in reqs]
    assert expected in theirs
    got = declared_verl(tmp_path)
    assert got is not None
    assert (got.requirement, got.line, got.version) == (expected, line, Version(version))


def test_setup_py_literal_read_with_ast_and_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    _write(
        tmp_path,
        "setup.py",
        "from setuptools import setup\n"  # 1
        f"open({str(marker)!r}, 'w').close()\n"  # 2
        "REQUIRES = [\n"  # 3
        "    'torch',\n"  # 4
        "    'verl>=0.7.0',\n"  # 5
        "]\n"  # 6
        "setup(\n"  # 7
        "    name='p',\n"  # 8
        "    install_requires=REQUIRES,\n"  # 9
        "    extras_require={'pin': ['verl==0.8.0'], 'dyn': [f'verl=={V}']},\n"  # 10
        ")\n",
    )
    got = declared_verl(tmp_path)
    assert not marker.exists()
    assert got is not None
    # issue 26: the f-string naming verl whose value is unknown is a release that cannot be read,
    # the literal is never run; it is an extra's (trial 26c, C), so the lowest release that
    # any declaration allows decides: install_requires' 0.7.0
    assert (got.version, got.line, got.kind) == (Version("0.7.0"), 5, "specifier")


def test_setup_py_literals_in_non_literal_values_count(tmp_path: Path) -> None:
    """Issue 26: any string literal of setup.py that is a requirement on verl counts, even
    in a value that is not a literal (a rebound name, a sum): it may be installed."""
    _write(
        tmp_path,
        "setup.py",
        "from setuptools import setup\nreqs = open('requirements.in').read().splitlines()\n"
        "extra = ['verl==0.5.0']\nextra = extra + []\n"
        "setup(install_requires=reqs + ['verl==0.6.0'], extras_require={'x': extra})\n",
    )
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, got.line) == (Version("0.5.0"), 3)


def test_setup_py_warnings_do_not_leak(tmp_path: Path) -> None:
    _write(tmp_path, "setup.py", "import re\nPAT = '\\.d'\nsetup(install_requires=['verl>=0.6.0'])\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = declared_verl(tmp_path)
    assert got is not None and (got.version, got.line) == (Version("0.6.0"), 3)


def test_setup_py_mutated_or_imported_names_are_not_literals(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "setup.py",
        "from setuptools import setup\nA = ['verl>=0.9.0']\nA.append('verl==0.5.0')\n"
        "B = ['verl>=0.9.0']\nfrom reqs import B\n"
        "setup(install_requires=A, extras_require={'b': B})\n",
    )
    got = declared_verl(tmp_path)  # issue 26: the appended literal counts
    assert got is not None and (got.version, got.line) == (Version("0.5.0"), 3)


def test_specifier_no_known_release_satisfies(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", '[project]\nname = "p"\ndependencies = ["verl>0.9.5,<0.9.6"]\n')
    got = declared_verl(tmp_path)
    assert got is not None
    assert (got.version, got.kind, got.line) == (None, "specifier", 3)
    assert got.why == "no known verl release satisfies pyproject.toml:3 verl>0.9.5,<0.9.6"


@pytest.mark.parametrize(
    ("name", "text", "line", "version"),
    [
        ("requirements.txt", "numpy\nhttps://example.invalid/wheels/verl-0.8.0-py3-none-any.whl#sha256=00\n", 2, "0.8.0"),
        ("requirements.txt", "verl @ https://example.invalid/verl-0.6.1.tar.gz\n", 1, "0.6.1"),
        ("pyproject.toml", '[project]\nname = "p"\ndependencies = ["verl>=0.9", "verl @ file:///wheels/verl-0.8.0-py3-none-any.whl"]\n', 3, "0.8.0"),
        ("requirements.txt", "https://example.invalid/wheels/verl_tools-0.1.0-py3-none-any.whl\nverl>=0.9\n", 2, None),
    ],
)
def test_archive_file_name_states_the_version(tmp_path: Path, name: str, text: str, line: int, version: str | None) -> None:
    _write(tmp_path, name, text)
    got = declared_verl(tmp_path)
    assert got is not None
    if version is None:  # another package's wheel: the specifier decides
        assert (got.kind, got.line, got.version) == ("specifier", line, Version("0.9.0"))
        return
    assert (got.kind, got.line, got.version) == ("lock", line, Version(version))
    assert version in got.requirement


def test_uv_dev_and_override_dependencies(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "pyproject.toml",
        '[project]\nname = "p"\ndependencies = ["verl>=0.9"]\n\n[tool.uv]\n'
        'dev-dependencies = ["verl>=0.8"]\noverride-dependencies = ["verl==0.7.0"]\n',
    )
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, got.line) == (Version("0.7.0"), 7)


def test_uv_constraint_dependencies_bound_the_version(tmp_path: Path) -> None:
    """uv resolves within ``constraint-dependencies``: ``verl<0.9`` there installs a 0.8."""
    _write(
        tmp_path,
        "pyproject.toml",
        '[project]\nname = "p"\ndependencies = ["verl>=0.9"]\n\n[tool.uv]\n'
        'constraint-dependencies = ["verl<0.9"]\n',
    )
    got = declared_verl(tmp_path)
    assert got is not None and got.line == 6 and got.version < Version("0.9")


def test_poetry_markers_are_not_evaluated(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "pyproject.toml",
        '[tool.poetry.dependencies]\nverl = [\n  { version = "^0.5", markers = "sys_platform == \'no-such\'" },\n'
        '  { version = "^0.9", markers = "python_version >= \'3\'" },\n]\n',
    )
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, got.line) == (Version("0.5.0"), 2)


def test_requirements_include_paths_are_normalised(tmp_path: Path) -> None:
    _write(tmp_path, "app/requirements.txt", "-r ../shared/base.txt\n")
    _write(tmp_path, "shared/base.txt", "verl==0.8.0\n")
    got = declared_verl(tmp_path / "app")
    assert got is not None
    assert (got.path, got.line) == (str(tmp_path / "shared" / "base.txt"), 1)
    assert got.why == f"{os.path.join('..', 'shared', 'base.txt')}:1 verl==0.8.0 pins verl 0.8.0"


# --------------------------------------------------------------------------------------------
# walking


def test_walks_up_from_a_file_to_the_project_root(tmp_path: Path) -> None:
    _write(tmp_path, "requirements.txt", "verl==0.8.0\n")
    trainer = _write(tmp_path, "src/recipe/trainer/main_ppo.py", "")
    got = declared_verl(trainer)
    assert got is not None and got.path == str(tmp_path / "requirements.txt")


def test_a_project_file_declaring_nothing_lets_the_walk_go_on(tmp_path: Path) -> None:
    """A ``pyproject.toml`` configuring tools only, or a sub-project without verl, does not
    hide the workspace's pin above it; the repository root (``.git``) ends the walk."""
    _write(tmp_path, "repo/requirements.txt", "verl==0.8.0\n")
    _write(tmp_path, "repo/sub/pyproject.toml", '[tool.ruff]\nline-length = 100\n')
    got = declared_verl(tmp_path / "repo" / "sub" / "pkg" / "x.py")
    assert got is not None and (got.version, got.path) == (Version("0.8.0"), str(tmp_path / "repo" / "requirements.txt"))
    _write(tmp_path, "repo/sub/pyproject.toml", '[project]\nname = "sub"\ndependencies = ["verl>=0.9"]\n')
    got = declared_verl(tmp_path / "repo" / "sub")
    # issue 26: every pin that could apply must accept: the workspace's 0.8.0 still applies
    assert got is not None and (got.version, got.path) == (Version("0.8.0"), str(tmp_path / "repo" / "requirements.txt"))
    _write(tmp_path, "repo/requirements.txt", "verl>=0.9.1\n")
    got = declared_verl(tmp_path / "repo" / "sub")
    assert got is not None and (got.version, got.path) == (Version("0.9.0"), str(tmp_path / "repo" / "sub" / "pyproject.toml"))  # both accept: the nearest is shown
    _write(tmp_path, "requirements.txt", "verl==0.5.0\n")
    (tmp_path / "repo" / ".git").mkdir()
    _write(tmp_path, "repo/requirements.txt", "numpy\n")
    _write(tmp_path, "repo/sub/pyproject.toml", '[tool.ruff]\n')
    assert declared_verl(tmp_path / "repo" / "sub") is None  # not past the repository root


def test_stop_is_inclusive(tmp_path: Path) -> None:
    _write(tmp_path, "requirements.txt", "verl==0.8.0\n")
    start = tmp_path / "a" / "b"
    start.mkdir(parents=True)
    assert declared_verl(start, stop=tmp_path / "a") is None
    got = declared_verl(start, stop=tmp_path)
    assert got is not None and got.version == Version("0.8.0")


def test_no_project_file_anywhere_up_to_stop(tmp_path: Path) -> None:
    assert declared_verl(tmp_path / "x.py", stop=tmp_path) is None


# --------------------------------------------------------------------------------------------
# broken files


def test_broken_pyproject_contributes_nothing(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", '[project]\ndependencies = ["verl==0.5.0"]\n[project\n')
    _write(tmp_path, "requirements.txt", "verl>=0.8\n")
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, Path(got.path).name) == (Version("0.8.0"), "requirements.txt")


def test_every_broken_file_is_skipped(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", "= nonsense\n")
    _write(tmp_path, "uv.lock", '[[package]]\nname = "verl"\nversion = "not a version"\n')
    _write(tmp_path, "poetry.lock", b"\xff\xfe\x00binary")
    _write(tmp_path, "pdm.lock", 'package = "not a list"\n')
    _write(tmp_path, "setup.cfg", "no section header\ninstall_requires = verl==0.5.0\n")
    _write(tmp_path, "setup.py", "setup(install_requires=['verl==0.5.0'\n")
    _write(tmp_path, "requirements.txt", b"\xff\xfeverl==0.5.0\n")
    _write(tmp_path, "requirements.in", "verl @ \nverl >>= 1\nverl==0.9.1\n")
    got = declared_verl(tmp_path)
    assert got is not None
    assert (got.version, Path(got.path).name, got.line) == (Version("0.9.1"), "requirements.in", 3)


_TOKENS = [*'verl=<>~^!.,;@#-\\ \n"\'[]{}01789_:/+*|', "verl", "\n-r requirements.txt\n", "\n-e ", "[project]\n",
           "dependencies = ", "[[package]]\nname = ", "version = ", "install_requires", "setup(", "[options]\n",
           "[tool.poetry.dependencies]\n", "[tool.uv.sources]\n", "git+https://x/verl#egg=verl", "python_version"]
_TEXT = st.lists(st.sampled_from(_TOKENS), max_size=40).map("".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.sampled_from(["pyproject.toml", "setup.cfg", "setup.py", "uv.lock", "poetry.lock", "pdm.lock", "requirements.txt"]),
    text=_TEXT,
)
def test_arbitrary_text_never_raises(tmp_path: Path, name: str, text: str) -> None:
    root = tmp_path / "fuzz"
    root.mkdir(exist_ok=True)
    for old in root.iterdir():
        old.unlink()
    _write(root, name, text)
    got = declared_verl(root)
    assert got is None or isinstance(got, VerlDeclaration)


# --------------------------------------------------------------------------------------------
# installed_verl


def _fake_distribution(site: Path, version: str) -> Path:
    info = site / f"verl-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: verl\nVersion: {version}\n", encoding="utf-8")
    return info


def test_installed_verl_from_a_dist_info_on_sys_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    info = _fake_distribution(tmp_path / "site", "0.8.0")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "site"), *sys.path])
    importlib.invalidate_caches()
    got = installed_verl()
    assert got == VerlDeclaration(
        version=Version("0.8.0"),
        path=str(info),
        line=1,
        requirement="verl 0.8.0 (installed)",
        kind="installed",
        why=f"verl 0.8.0 installed in this interpreter ({info})",
    )
    assert "verl" not in sys.modules  # metadata only, never imported


def test_installed_verl_none_when_absent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    importlib.invalidate_caches()
    assert installed_verl() is None


@pytest.mark.network
def test_installed_verl_from_the_real_published_wheel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(tmp_path / "dl"), "verl==0.7.1"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0:
        pytest.fail(f"could not download verl==0.7.1: {proc.stderr.strip().splitlines()[-1:]}")
    (wheel,) = (tmp_path / "dl").glob("verl-0.7.1-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(tmp_path / "site")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "site")])
    importlib.invalidate_caches()
    got = installed_verl()
    assert got is not None
    assert (got.version, got.kind, got.path) == (Version("0.7.1"), "installed", str(tmp_path / "site" / "verl-0.7.1.dist-info"))
    assert "verl" not in sys.modules


@pytest.mark.network
def test_known_releases_hold_every_published_release_up_to_the_newest_known() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", "verl"], capture_output=True, text=True, timeout=300
    )
    if proc.returncode != 0:
        pytest.fail(f"pip index versions verl failed: {proc.stderr.strip().splitlines()[-1:]}")
    (listing,) = [line for line in proc.stdout.splitlines() if line.startswith("Available versions:")]
    published = {Version(v.strip()) for v in listing.split(":", 1)[1].split(",")}
    newest_known = max(KNOWN_VERL_RELEASES)
    assert {v for v in published if v <= newest_known} == set(KNOWN_VERL_RELEASES)


# --------------------------------------------------------------------------------------------
# uv as an independent oracle (network): its own lowest resolution and a real uv.lock


def _uv(*args: str, cwd: Path, stdin: str | None = None) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "uv", *args], input=stdin, capture_output=True, text=True, timeout=600, cwd=cwd
    )
    if proc.returncode != 0:
        pytest.fail(f"uv {' '.join(args)} failed: {proc.stderr.strip().splitlines()[-1:]}")
    return proc.stdout


@pytest.mark.network
@pytest.mark.parametrize("spec", [">=0.7.1,<0.9.0", ">0.8.0", "~=0.9", "<0.9", "==0.8.*", "!=0.1,<0.3", ">=0.8.1"])
def test_lowest_allowed_agrees_with_uv_lowest_resolution(tmp_path: Path, spec: str) -> None:
    out = _uv(
        "pip", "compile", "-", "--no-deps", "--resolution", "lowest", "--python-version", "3.11",
        "--no-header", "--no-annotate", "-q", cwd=tmp_path, stdin=f"verl{spec}\n",
    )
    (pinned,) = [line for line in out.splitlines() if line.startswith("verl==")]
    uv_lowest = Version(pinned.split("==", 1)[1])
    _write(tmp_path, "pyproject.toml", f'[project]\nname = "p"\ndependencies = ["verl{spec}"]\n')
    got = declared_verl(tmp_path)
    assert got is not None and got.version is not None
    if spec in (">=0.8.1", ">0.8.0"):  # a 0.8.1 (not released yet) is lower than any release uv can pick
        assert (got.version, uv_lowest) == (Version("0.8.1"), Version("0.9.0"))
    else:
        assert got.version == uv_lowest


@pytest.mark.network
def test_real_uv_lock(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "pyproject.toml",
        '[project]\nname = "p"\nversion = "0"\nrequires-python = ">=3.11"\ndependencies = ["verl>=0.7.1,<0.9.0"]\n'
        '[tool.uv]\noverride-dependencies = []\nconstraint-dependencies = ["verl==0.8.0"]\n',
    )
    _uv("lock", "-q", cwd=tmp_path)
    lock_lines = (tmp_path / "uv.lock").read_text(encoding="utf-8").splitlines()
    got = declared_verl(tmp_path / "src" / "trainer.py")
    assert got is not None
    assert (got.version, got.kind, got.path) == (Version("0.8.0"), "lock", str(tmp_path / "uv.lock"))
    assert got.requirement == "verl 0.8.0 (uv.lock)"
    assert lock_lines[got.line - 1] == 'name = "verl"'
    assert lock_lines[got.line] == 'version = "0.8.0"'


# --------------------------------------------------------------------------------------------
# a fresh user's findings: tags, local paths, more places requirements live


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pyproject.toml", '[project]\nname = "p"\ndependencies = ["verl @ git+https://example.invalid/verl.git@v0.8.0"]\n'),
        ("requirements.txt", "verl @ git+https://example.invalid/verl.git@0.8.0#egg=verl\n"),
        ("requirements.txt", "-e git+https://example.invalid/verl.git@v0.8.0#egg=verl\n"),
        ("pyproject.toml", '[project]\nname = "p"\ndependencies = ["verl"]\n\n[tool.uv.sources]\nverl = { git = "https://example.invalid/verl.git", tag = "v0.8.0" }\n'),
    ],
)
def test_a_git_tag_naming_a_release_is_that_release(tmp_path: Path, name: str, text: str) -> None:
    _write(tmp_path, name, text)
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, got.kind) == (Version("0.8.0"), "lock")


def test_a_branch_or_commit_says_nothing(tmp_path: Path) -> None:
    _write(tmp_path, "requirements.txt", "verl @ git+https://example.invalid/verl.git@3f2e1d0c9b8a\n")
    got = declared_verl(tmp_path)
    assert got is not None and (got.version, got.kind, got.local_path) == (None, "direct-reference", None)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("requirements.txt", "-e ./third_party/verl\n"),
        ("requirements.txt", "./third_party/verl\n"),
        ("pyproject.toml", '[project]\nname = "p"\ndependencies = ["verl"]\n\n[tool.uv.sources]\nverl = { path = "third_party/verl", editable = true }\n'),
        ("pyproject.toml", '[tool.poetry.dependencies]\nverl = { path = "third_party/verl", develop = true }\n'),
    ],
)
def test_a_path_reference_carries_its_directory(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / "third_party" / "verl" / "verl").mkdir(parents=True)
    _write(tmp_path, name, text)
    got = declared_verl(tmp_path)
    assert got is not None
    assert (got.version, got.kind, got.local_path) == (None, "direct-reference", str(tmp_path / "third_party" / "verl"))


@pytest.mark.parametrize(
    ("files", "where"),
    [
        ({"requirements/train.txt": "verl==0.8.0\n"}, "requirements/train.txt"),
        ({"requirements.in": "verl>=0.7.1,<0.9\n"}, "requirements.in"),
        ({"pyproject.toml": '[project]\nname = "p"\ndynamic = ["dependencies"]\n\n[tool.setuptools.dynamic]\n'
          'dependencies = { file = ["deps/base.txt"] }\n', "deps/base.txt": "verl==0.8.0\n"}, "deps/base.txt"),
    ],
)
def test_more_places_requirements_live(tmp_path: Path, files: dict[str, str], where: str) -> None:
    for name, text in files.items():
        _write(tmp_path, name, text)
    got = declared_verl(tmp_path)
    assert got is not None and got.path == str(tmp_path / where)
    assert got.version in (Version("0.8.0"), Version("0.7.1"))


def test_install_commands_pins_join_the_others(tmp_path: Path) -> None:
    """A Dockerfile's, a script's or a workflow's ``pip install`` builds the environment:
    its pin joins the project's (the lowest before 0.9 wins); at 0.9 it lets the fix be."""
    for name in ("at09", "at08"):
        (tmp_path / name / ".git").mkdir(parents=True)
        _write(tmp_path / name, "pyproject.toml", '[project]\nname = "p"\ndependencies = ["verl>=0.9"]\n')
        _write(tmp_path / name, "Dockerfile", "FROM python:3.11\nRUN pip install -e . && pip install -U verl==0.9.1\n")
    got = declared_verl(tmp_path / "at09" / "src" / "trainer.py")
    assert got is not None and got.version >= Version("0.9")
    _write(
        tmp_path / "at08",
        "ci/run.sh",
        "#!/bin/sh\npython3 -m pip install --index-url https://example.org/simple \\\n  'verl>=0.8,<0.9'\n",
    )
    got = declared_verl(tmp_path / "at08" / "src" / "trainer.py")
    assert got is not None and (Path(got.path).name, got.line, got.version) == ("run.sh", 2, Version("0.8.0"))


@pytest.mark.parametrize(
    ("name", "text", "line", "version"),
    [
        # a Dockerfile's exec form is the command it runs
        ("Dockerfile", 'FROM python:3.11\nRUN ["pip", "install", "verl==0.8.0"]\n', 2, "0.8.0"),
        ("Dockerfile", 'FROM python:3.11\nRUN ["python", "-m", "pip", "install", "-U", "verl>=0.7.1,<0.9"]\n', 2, "0.7.1"),
        # a variable takes the value the file gives it before the command
        ("Dockerfile", "FROM python:3.11\nARG VERL_VERSION=0.8.0\nRUN pip install \"verl==${VERL_VERSION}\"\n", 3, "0.8.0"),
        ("Dockerfile", "FROM python:3.11\nENV VERL_VERSION 0.7.1\nRUN pip install verl==$VERL_VERSION\n", 3, "0.7.1"),
        ("scripts/setup.sh", "#!/bin/sh\nexport VERL=0.8.0\npip install \"verl==${VERL}\" torch\n", 3, "0.8.0"),
        ("scripts/setup.sh", "#!/bin/sh\npip install \"verl==${VERL_VERSION:-0.6.1}\"\n", 2, "0.6.1"),
        ("Makefile", "VERL_VERSION ?= 0.8.0\ninstall:\n\tpip install verl==$(VERL_VERSION)\n", 3, "0.8.0"),
        # verl's own image states its release in the tag
        ("Dockerfile", "FROM verlai/verl:app-verl0.8-vllm0.10.0-mcore0.13.0-te2.2\nCOPY . /app\n", 1, "0.8.0"),
        # requirements the script writes itself, then installs with -r
        ("scripts/setup.sh", "#!/bin/bash\ncat > /tmp/req.txt <<REQ\nverl==0.8.0\nREQ\npip install -r /tmp/req.txt\n", 3, "0.8.0"),
        ("scripts/setup.sh", "#!/bin/sh\ncat <<'EOF' > deps/r.txt\ntorch\nverl>=0.8,<0.9  # gpu\nEOF\npip install -r deps/r.txt\n", 4, "0.8.0"),
        # a variable with no value here: a verl the build chooses, its release unread
        ("Dockerfile", "FROM python:3.11\nARG VERL_VERSION\nRUN pip install verl==${VERL_VERSION}\n", 3, None),
        ("scripts/setup.sh", "#!/bin/sh\npip install \"git+https://github.com/volcengine/verl@${REF}\"\n", 2, None),
    ],
)
def test_install_commands_in_exec_form_and_with_variables(
    tmp_path: Path, name: str, text: str, line: int, version: str | None
) -> None:
    """Holes found after issue 26's pin families: ``RUN ["pip", "install", ...]`` was not read
    as a command, and an argument holding a variable was skipped, so the project's
    ``verl>=0.9`` decided alone and the fix was made for a build that installs verl 0.8."""
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "pyproject.toml", '[project]\nname = "p"\ndependencies = ["verl>=0.9"]\n')
    _write(tmp_path, name, text)
    got = declared_verl(tmp_path / "src" / "trainer.py")
    assert got is not None
    assert (Path(got.path).name, got.line) == (Path(name).name, line)
    assert got.version == (Version(version) if version else None)
    if version is None:
        assert got.kind == "direct-reference" and "$" in got.requirement


def test_a_variable_of_another_package_or_an_unrelated_assignment_decides_nothing(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "pyproject.toml", '[project]\nname = "p"\ndependencies = ["verl>=0.9"]\n')
    _write(tmp_path, "Dockerfile", "FROM python:3.11\nENV VERL_HOME /opt/verl\n"
                                   "RUN pip install torch==${TORCH_VERSION} ${EXTRA}\n")
    got = declared_verl(tmp_path / "src" / "trainer.py")
    assert got is not None and got.path == str(tmp_path / "pyproject.toml")
    assert got.version is not None and got.version >= Version("0.9")


@pytest.mark.parametrize(
    ("name", "text", "line", "version"),
    [
        # install commands in more files
        (".gitlab-ci.yml", "test:\n  script:\n    - pip install verl==0.8.0\n    - pytest\n", 3, "0.8.0"),
        ("justfile", "install:\n    pip install verl==0.8.0\n", 2, "0.8.0"),
        ("docker-compose.yml", "services:\n  t:\n    command: sh -c \"pip install verl==0.8.0 && python t.py\"\n", 3, "0.8.0"),
        ("compose.gpu.yaml", "services:\n  t:\n    command: pip install 'verl>=0.7.1,<0.9'\n", 3, "0.7.1"),
        (".devcontainer/devcontainer.json", '{\n  "image": "python:3.11",\n  "postCreateCommand": "pip install verl==0.8.0"\n}\n', 3, "0.8.0"),
        ("devcontainer.json", '{"onCreateCommand": {"a": ["pip", "install", "verl==0.7.1"]}}\n', 1, "0.7.1"),
        ("bin/bootstrap", "#!/usr/bin/env bash\npip install verl==0.8.0\n", 2, "0.8.0"),
        # trial 26d: another shell's extension (no shebang needed), a batch job with a shebang
        ("scripts/install.bash", "set -e\npip install verl==0.8.0\n", 2, "0.8.0"),
        ("jobs/ppo.sbatch", "#!/bin/bash\n#SBATCH --nodes=1\npip install verl==0.8.0\n", 3, "0.8.0"),
        ("jobs/train.slurm", "#!/usr/bin/env bash\nsource venv/bin/activate\npip install verl==0.7.1\n", 3, "0.7.1"),
        ("noxfile.py", "import nox\n@nox.session\ndef t(session):\n    session.install('verl==0.8.0', 'pytest')\n", 4, "0.8.0"),
        ("noxfile.py", "def t(session):\n    session.run('python', '-m', 'pip', 'install', 'verl<0.9')\n", 2, "0.1"),
        ("noxfile.py", "def t(session, v):\n    session.install(f'verl=={v}')\n", 2, None),
        # other installers
        ("setup_env.sh", "#!/bin/bash\nconda install -y -c conda-forge verl=0.8.0\n", 2, "0.8.0"),
        ("setup_env.sh", "#!/bin/bash\nmicromamba install -n rl conda-forge::verl=0.7.1 python=3.11\n", 2, "0.7.1"),
        ("setup_env.sh", "#!/bin/bash\nuv add \"verl==0.8.0\"\n", 2, "0.8.0"),
        ("setup_env.sh", "#!/bin/bash\npoetry add verl@0.8.0\n", 2, "0.8.0"),
        ("setup_env.sh", "#!/bin/bash\npoetry add --group train verl@^0.8\n", 2, "0.8"),
        ("setup_env.sh", "#!/bin/bash\npoetry add 'verl==0.7.1'\n", 2, "0.7.1"),
        # PIP_CONSTRAINT names the file every install runs within
        ("setup_env.sh", "#!/bin/bash\nexport PIP_CONSTRAINT=constraints/train.cst\npip install verl\n", 1, "0.8.0"),
        # a workflow's matrix: every value counts, an unreadable expression is no release
        (".github/workflows/ci.yml", "jobs:\n  t:\n    strategy:\n      matrix:\n        verl: ['0.9.1', '0.8.0']\n"
                                     "    steps:\n      - run: pip install \"verl==${{ matrix.verl }}\"\n", 7, "0.8.0"),
        (".github/workflows/ci.yml", "jobs:\n  t:\n    steps:\n      - run: pip install verl==${{ inputs.verl }}\n", 4, None),
    ],
)
def test_install_commands_of_more_files_and_installers(
    tmp_path: Path, name: str, text: str, line: int, version: str | None
) -> None:
    """A fresh tester's install commands (issue 26): CI, task-runner, compose, devcontainer,
    extensionless scripts, nox sessions, conda/uv add/poetry add, ``PIP_CONSTRAINT`` and a
    workflow's matrix were not read, so ``verl>=0.9`` decided alone."""
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "pyproject.toml", '[project]\nname = "p"\ndependencies = ["verl>=0.9"]\n')
    _write(tmp_path, "constraints/train.cst", "verl==0.8.0\n")
    _write(tmp_path, name, text)
    got = declared_verl(tmp_path / "src" / "trainer.py")
    assert got is not None
    expected = "train.cst" if "PIP_CONSTRAINT" in text else Path(name).name
    assert (Path(got.path).name, got.line) == (expected, line)
    assert got.version == (Version(version) if version else None)
    if version is None:
        assert got.kind == "direct-reference"


def test_an_extensionless_file_without_a_shell_shebang_is_not_read(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "pyproject.toml", '[project]\nname = "p"\ndependencies = ["verl>=0.9"]\n')
    _write(tmp_path, "NOTES", "to downgrade: pip install verl==0.8.0\n")
    _write(tmp_path, "bin/tool", "#!/usr/bin/env python\nos.system('pip install verl==0.8.0')\n")
    _write(tmp_path, "jobs/notes.job", "to downgrade: pip install verl==0.8.0\n")  # a batch name, no shebang
    got = declared_verl(tmp_path / "src" / "trainer.py")
    assert got is not None and got.path == str(tmp_path / "pyproject.toml")


@pytest.mark.parametrize(
    ("name", "text", "line", "version"),
    [
        ("pylock.toml", 'lock-version = "1.0"\n\n[[packages]]\nname = "ray"\nversion = "2.0"\n\n[[packages]]\nname = "verl"\nversion = "0.8.0"\n', 8, "0.8.0"),
        ("pylock.gpu.toml", 'lock-version = "1.0"\n[[packages]]\nname = "verl"\nversion = "0.7.1"\n', 3, "0.7.1"),
        ("requirements.lock", "# generated by rye\n-e file:.\nverl==0.8.0\n", 3, "0.8.0"),
        ("requirements-dev.lock", "# generated by rye\nverl==0.7.1\n", 2, "0.7.1"),
        ("Pipfile", '[packages]\nrequests = "*"\n\n[train]\nverl = "==0.8.0"\n', 5, "0.8.0"),
        ("pip.conf", "[global]\nconstraint = constraints.pip\n", 1, "0.8.0"),
        ("pip.ini", "[install]\nconstraint = constraints.pip\n", 1, "0.8.0"),
    ],
)
def test_pylock_rye_lock_pipfile_categories_and_pip_conf(
    tmp_path: Path, name: str, text: str, line: int, version: str
) -> None:
    """A fresh tester's pin files (issue 26): a PEP 751 lock, rye's locks, a Pipfile custom
    category and a pip configuration's constraint file were not read."""
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "requirements.txt", "verl>=0.9.0\n")
    _write(tmp_path, "constraints.pip", "verl==0.8.0\n")
    _write(tmp_path, name, text)
    got = declared_verl(tmp_path / "src" / "trainer.py")
    assert got is not None
    expected = "constraints.pip" if name.startswith("pip.") else name
    assert (Path(got.path).name, got.line, got.version) == (expected, line, Version(version))


def test_pipfile_scripts_are_not_packages(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "Pipfile", '[packages]\nverl = ">=0.9"\n\n[scripts]\nverl = "python -m verl==0.8.0"\n')
    got = declared_verl(tmp_path / "src" / "trainer.py")
    assert got is not None and got.version is not None and got.version >= Version("0.9")


@pytest.mark.parametrize(
    ("text", "line", "version"),
    [
        ('from setuptools import setup\nREQS = ["ray"]\nREQS.append("verl==0.8.0")\nsetup(name="p", install_requires=REQS)\n', 3, "0.8.0"),
        ('from setuptools import setup\nVERL = "0.8.0"\nsetup(name="p", install_requires=["ray", f"verl=={VERL}"])\n', 3, "0.8.0"),
        ('from setuptools import setup\nsetup(name="p", install_requires=["verl>={}".format("0.7.1")])\n', 2, "0.7.1"),
        ('import os\nfrom setuptools import setup\nV = os.environ["V"]\nsetup(name="p", install_requires=[f"verl=={V}"])\n', 4, None),
        ('from setuptools import setup\nsetup(name="p", install_requires=["verl==%s" % get()])\n', 2, None),
    ],
)
def test_setup_py_strings_naming_verl(tmp_path: Path, text: str, line: int, version: str | None) -> None:
    """Any string of setup.py that is a requirement on verl counts; a computed one is
    evaluated from literals, else it is a verl whose release cannot be read (issue 26)."""
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "requirements.txt", "verl>=0.9.0\n")
    _write(tmp_path, "setup.py", text)
    got = declared_verl(tmp_path / "src" / "trainer.py")
    assert got is not None
    assert (Path(got.path).name, got.line) == ("setup.py", line)
    assert got.version == (Version(version) if version else None)
    if version is None:
        assert got.kind == "direct-reference"


@pytest.mark.parametrize("text", [
    "from setuptools import setup\nif __name__ == '__main__':\n    setup(install_requires=['verl>=0.9'])\n",
    "from setuptools import setup\nif '__main__' == __name__:\n    REQS = ['verl>=0.9']\n    setup(install_requires=REQS)\n",
    "from setuptools import setup\nREQS = ['verl>=0.9']\nif not REQS:\n    raise SystemExit('none')\nsetup(install_requires=REQS)\n",
])
def test_setup_py_requirements_outside_a_condition_still_decide(tmp_path: Path, text: str) -> None:
    """Trial 26d's rule leaves the unconditional requirements required: the body of the
    ``__main__`` guard runs in every build, and a condition elsewhere in the file does not
    make the requirement optional."""
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "setup.py", text)
    got = verl_evidence(tmp_path / "train.py")
    assert got.decided is not None and got.set_aside == ()
    assert (Path(got.decided.path).name, got.decided.version) == ("setup.py", Version("0.9.0"))


def test_setup_py_name_verl_and_messages_are_not_declarations(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "requirements.txt", "verl>=0.9.0\n")
    _write(tmp_path, "setup.py", 'from setuptools import setup\nv = input()\nprint(f"verl {v}")\nsetup(name="verl")\n')
    got = declared_verl(tmp_path / "src" / "trainer.py")
    assert got is not None and got.path == str(tmp_path / "requirements.txt")


def _repository(root: Path, files: dict[str, str]) -> Path:
    """A git work tree at ``root`` holding ``files`` (a fresh folder per state: the pins of
    a repository are read once a process)."""
    (root / ".git").mkdir(parents=True)
    for name, text in files.items():
        _write(root, name, text)
    return root / "train.py"


@pytest.mark.parametrize(
    ("name", "commented", "uncommented"),
    [
        ("install.sh", "#!/bin/sh\n# downgrade: pip install verl==0.8.0\npip install ray\n",
         "#!/bin/sh\npip install verl==0.8.0\npip install ray\n"),
        ("Dockerfile", "FROM python:3.11\n# TODO: RUN pip install verl==0.8.0\nRUN pip install ray\n",
         "FROM python:3.11\nRUN pip install verl==0.8.0\nRUN pip install ray\n"),
        (".github/workflows/ci.yml", "jobs:\n  t:\n    steps:\n      # - run: pip install verl==0.8.0\n"
                                     "      - run: pip install ray\n",
         "jobs:\n  t:\n    steps:\n      - run: pip install verl==0.8.0\n      - run: pip install ray\n"),
    ],
)
def test_an_install_in_a_comment_runs_nothing(
    tmp_path: Path, name: str, commented: str, uncommented: str
) -> None:
    """Trial 26b: ``# downgrade: pip install verl==0.8.0`` in a script, a Dockerfile or a
    workflow runs nothing; the same line uncommented is a pin that decides."""
    own = {"requirements.txt": "verl>=0.9.1\n"}
    got = declared_verl(_repository(tmp_path / "commented", {**own, name: commented}))
    assert (Path(got.path).name, got.version) == ("requirements.txt", Version("0.9.1"))
    got = declared_verl(_repository(tmp_path / "uncommented", {**own, name: uncommented}))
    assert (Path(got.path).name, got.line, got.version) == (Path(name).name, 4 if name.endswith(".yml") else 2,
                                                            Version("0.8.0"))


def test_a_marker_makes_a_new_verl_a_bare_verl_and_keeps_an_old_one(tmp_path: Path) -> None:
    """``verl>=0.9; python_version < "3.0"`` constrains nothing where its marker is false:
    it cannot show a new verl (its release is not known); an old pin under a marker still
    counts (every branch of a split may run)."""
    got = declared_verl(_repository(tmp_path / "never", {"requirements.txt": 'verl>=0.9.0; python_version < "3.0"\n'}))
    assert (got.version, got.kind, got.requirement) == (
        None, "specifier", 'verl>=0.9.0; python_version < "3.0"')
    split = "verl==0.8.0; python_version < '3.11'\nverl>=0.9; python_version >= '3.11'\n"
    got = declared_verl(_repository(tmp_path / "split", {"requirements.txt": split}))
    assert (got.version, got.line) == (Version("0.8.0"), 1)


@pytest.mark.parametrize(
    ("name", "printed", "run"),
    [
        ("install.sh", "#!/bin/sh\necho 'next: pip install \"verl==0.8.0\"'\n",
         "#!/bin/sh\necho start && pip install \"verl==0.8.0\"\n"),
        ("Makefile", "help:\n\t@echo \"  pip install verl==0.8.0   downgrade\"\n",
         "setup:\n\t@pip install verl==0.8.0\n"),
        ("install.sh", "#!/bin/sh\nprintf '%s\\n' 'pip install verl==0.8.0'\n",
         "#!/bin/sh\nprintf 'go\\n'; pip install verl==0.8.0\n"),
    ],
)
def test_an_install_that_is_only_printed_runs_nothing(tmp_path: Path, name: str, printed: str, run: str) -> None:
    """Trial 26b: ``echo``/``printf`` of an install line (a help text) installs nothing; the
    same install run after a separator on that line does."""
    own = {"requirements.txt": "verl>=0.9.1\n"}
    got = declared_verl(_repository(tmp_path / "printed", {**own, name: printed}))
    assert (Path(got.path).name, got.version) == ("requirements.txt", Version("0.9.1"))
    got = declared_verl(_repository(tmp_path / "run", {**own, name: run}))
    assert (Path(got.path).name, got.line, got.version) == (name, 2, Version("0.8.0"))


@pytest.mark.parametrize(
    ("override", "version", "kind"),
    [('"0.8.0"', "0.8.0", "lock"), ('">=0.7.1,<0.9"', "0.7.1", "specifier"),
     ('"https://example.invalid/verl-0.8.0-py3-none-any.whl"', "0.8.0", "lock")],
)
def test_a_pdm_override_decides_over_the_dependencies(
    tmp_path: Path, override: str, version: str, kind: str
) -> None:
    """Trial 26b: pdm installs what ``[tool.pdm.resolution.overrides]`` says, whatever the
    dependencies ask: ``verl>=0.9`` beside an override of 0.8.0 runs verl 0.8.0."""
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "pyproject.toml", '[project]\nname = "t"\ndependencies = ["verl>=0.9.0"]\n\n'
                                       f"[tool.pdm.resolution.overrides]\nverl = {override}\n")
    got = declared_verl(tmp_path / "train.py")
    assert (got.version, got.line, got.kind) == (Version(version), 6, kind)
    assert got.requirement == f"verl = {override}"


# --------------------------------------------------------------------------------------------
# trial 26b: an environment's pin may only lower the release

#: the project's own declaration of a verl that takes a config
OWN_09 = '[project]\nname = "p"\ndependencies = ["verl>=0.9"]\n'
#: environment -> (files, the pin that is set aside: file, line, requirement)
ENVIRONMENTS = {
    "docs-requirements": ({"docs/requirements.txt": "sphinx\nverl>=0.9.0  # autodoc\n"},
                          ("docs/requirements.txt", 2, "verl>=0.9.0")),
    "continue-on-error-workflow": (
        {".github/workflows/nightly.yml": "on: {schedule: [{cron: '0 3 * * *'}]}\njobs:\n  future:\n"
         "    runs-on: ubuntu-latest\n    continue-on-error: true\n    steps:\n"
         "      - run: pip install \"verl>=0.9.0\" && python -c 'import verl'\n"},
        (".github/workflows/nightly.yml", 7, "verl>=0.9.0")),
    "shell-if": ({"install.sh": "#!/bin/sh\nif [ \"$NIGHTLY\" = 1 ]; then\n  pip install 'verl>=0.9.0'\nfi\n"},
                 ("install.sh", 3, "verl>=0.9.0")),
    "dockerfile": ({"docker/Dockerfile": "FROM python:3.11\nRUN pip install verl==0.9.1\n"},
                   ("docker/Dockerfile", 2, "verl==0.9.1")),
}


@pytest.mark.parametrize("environment", sorted(ENVIRONMENTS))
def test_an_environment_alone_showing_a_new_verl_decides_nothing(tmp_path: Path, environment: str) -> None:
    """Only the project's own declarations may show that a config is taken; an environment's
    pin (a Sphinx build, a nightly job, an install under a shell ``if``, an image) that allows
    only new releases decides nothing and is set aside, named for the reason."""
    (tmp_path / ".git").mkdir()
    files, (name, line, requirement) = ENVIRONMENTS[environment]
    for file, text in files.items():
        _write(tmp_path, file, text)
    _write(tmp_path, "train.py", "")
    got = verl_evidence(tmp_path / "train.py")
    assert got.decided is None
    assert declared_verl(tmp_path / "train.py") is None
    assert [(d.path, d.line, d.requirement) for d in got.set_aside] == [(str(tmp_path / name), line, requirement)]
    assert got.set_aside[0].version >= Version("0.9.0")


@pytest.mark.parametrize("environment", sorted(ENVIRONMENTS))
def test_the_project_own_declaration_decides_beside_a_new_environment(tmp_path: Path, environment: str) -> None:
    (tmp_path / ".git").mkdir()
    for file, text in ENVIRONMENTS[environment][0].items():
        _write(tmp_path, file, text)
    _write(tmp_path, "pyproject.toml", OWN_09)
    got = verl_evidence(tmp_path / "src" / "train.py")
    assert got.decided is not None
    assert (got.decided.path, got.decided.line, got.decided.version) == (str(tmp_path / "pyproject.toml"), 3, Version("0.9.0"))


@pytest.mark.parametrize(
    ("name", "text", "line", "version"),
    [
        ("docs/requirements.txt", "sphinx\nverl==0.8.0\n", 2, "0.8.0"),
        ("install.sh", "#!/bin/sh\nif [ \"$OLD\" = 1 ]; then\n  pip install 'verl>=0.7.1,<0.9'\nfi\n", 3, "0.7.1"),
        (".github/workflows/ci.yml", "jobs:\n  t:\n    steps:\n      - run: pip install verl==0.8.0\n", 4, "0.8.0"),
    ],
)
def test_an_environment_may_still_lower_the_release(tmp_path: Path, name: str, text: str, line: int, version: str) -> None:
    """The project declares ``verl>=0.9``; an environment installing an old verl still wins."""
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "pyproject.toml", OWN_09)
    _write(tmp_path, name, text)
    got = verl_evidence(tmp_path / "train.py")
    assert got.decided is not None and got.set_aside == ()
    assert (got.decided.path, got.decided.line, got.decided.version) == (str(tmp_path / name), line, Version(version))


def test_an_old_own_pin_wins_over_a_new_environment(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "requirements.txt", "ray\nverl==0.8.0\n")
    _write(tmp_path, "docs/requirements.txt", "verl>=0.9.0\n")
    got = verl_evidence(tmp_path / "train.py")
    assert got.decided is not None
    assert (got.decided.path, got.decided.line, got.decided.version) == (str(tmp_path / "requirements.txt"), 2, Version("0.8.0"))


def test_requirements_beside_the_analysed_code_are_its_own(tmp_path: Path) -> None:
    """``docs/requirements.txt`` is an environment for ``train.py`` at the root, and the
    project's own declaration for a file under ``docs/`` (on the way up from it)."""
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "docs/requirements.txt", "sphinx\nverl>=0.9.0\n")
    assert declared_verl(tmp_path / "train.py") is None
    got = declared_verl(tmp_path / "docs" / "conf.py")
    assert got is not None and (got.path, got.line, got.version) == (str(tmp_path / "docs" / "requirements.txt"), 2, Version("0.9.0"))


# --------------------------------------------------------------------------------------------
# trial 26c, C: an optional or other environment alone shows a new verl

#: shape -> (files, the pin set aside: file, line, version). Each installs verl>=0.9 only in
#: an environment the code need not run in; the required dependencies name no verl.
OPTIONAL = {
    "extra": ({"pyproject.toml": '[project]\nname = "p"\ndependencies = ["ray"]\n\n'
               '[project.optional-dependencies]\nnext = ["verl>=0.9.0"]\n'}, ("pyproject.toml", 6, "0.9.0")),
    "dependency-group": ({"pyproject.toml": '[project]\nname = "p"\n[dependency-groups]\nnext = ["verl>=0.9.1"]\n'},
                         ("pyproject.toml", 4, "0.9.1")),
    "uv-dev-dependencies": ({"pyproject.toml": '[project]\nname = "p"\n[tool.uv]\ndev-dependencies = ["verl>=0.9"]\n'},
                            ("pyproject.toml", 4, "0.9.0")),
    "uv-source-of-a-group": (
        {"pyproject.toml": '[project]\nname = "p"\n[dependency-groups]\nnext = ["verl"]\n'
         '[tool.uv.sources]\nverl = { git = "https://example.invalid/verl.git", tag = "v0.9.1" }\n'},
        ("pyproject.toml", 6, "0.9.1")),
    "uv-lock-of-an-extra": (
        {"pyproject.toml": '[project]\nname = "p"\n[project.optional-dependencies]\nnext = ["verl>=0.9"]\n',
         "uv.lock": 'version = 1\n\n[[package]]\nname = "verl"\nversion = "0.9.1"\n'},
        ("uv.lock", 4, "0.9.1")),
    "poetry-group": ({"pyproject.toml": '[tool.poetry.dependencies]\npython = "^3.10"\n\n'
                      '[tool.poetry.group.next.dependencies]\nverl = "^0.9"\n'}, ("pyproject.toml", 5, "0.9.0")),
    "poetry-optional": ({"pyproject.toml": '[tool.poetry.dependencies]\npython = "^3.10"\n'
                         'verl = { version = ">=0.9", optional = true }\n'}, ("pyproject.toml", 3, "0.9.0")),
    "pdm-dev": ({"pyproject.toml": '[project]\nname = "p"\n[tool.pdm.dev-dependencies]\nnext = ["verl>=0.9"]\n'},
                ("pyproject.toml", 4, "0.9.0")),
    "hatch-env": ({"pyproject.toml": '[project]\nname = "p"\n[tool.hatch.envs.next]\ndependencies = ["verl>=0.9"]\n'},
                  ("pyproject.toml", 4, "0.9.0")),
    "pyproject-tox-env": ({"pyproject.toml": '[project]\nname = "p"\n[tool.tox.env.next]\ndeps = ["verl>=0.9"]\n'},
                          ("pyproject.toml", 4, "0.9.0")),
    "pyproject-pixi-feature": (
        {"pyproject.toml": '[project]\nname = "p"\n[tool.pixi.feature.next.pypi-dependencies]\nverl = ">=0.9"\n'},
        ("pyproject.toml", 4, "0.9.0")),
    "setuptools-dynamic-extra": (
        {"pyproject.toml": '[project]\nname = "p"\ndynamic = ["optional-dependencies"]\n'
         '[tool.setuptools.dynamic.optional-dependencies]\nnext = { file = ["next.txt"] }\n',
         "next.txt": "verl>=0.9\n"}, ("next.txt", 1, "0.9.0")),
    "setup-py-extras": ({"setup.py": "from setuptools import setup\nsetup(\n    install_requires=['ray'],\n"
                         "    extras_require={'next': ['verl>=0.9']},\n)\n"}, ("setup.py", 4, "0.9.0")),
    "setup-py-extras-name": ({"setup.py": "from setuptools import setup\nEXTRAS = {'next': ['verl>=0.9']}\n"
                              "setup(install_requires=['ray'], extras_require=EXTRAS)\n"}, ("setup.py", 2, "0.9.0")),
    "setup-py-extras-mutated": ({"setup.py": "from setuptools import setup\nEXTRAS = {}\nEXTRAS['next'] = ['verl>=0.9']\n"
                                 "setup(install_requires=['ray'], extras_require=EXTRAS)\n"}, ("setup.py", 3, "0.9.0")),
    "setup-py-tests-require": ({"setup.py": "from setuptools import setup\n"
                                "setup(install_requires=['ray'], tests_require=['verl>=0.9'])\n"}, ("setup.py", 2, "0.9.0")),
    # trial 26d: a requirement setup.py writes only under a condition (never evaluated)
    "setup-py-if-append": ({"setup.py": "import os\nfrom setuptools import setup\nREQS = ['ray']\n"
                            "if os.environ.get('NEXT') == '1':\n    REQS.append('verl>=0.9')\n"
                            "setup(install_requires=REQS)\n"}, ("setup.py", 5, "0.9.0")),
    "setup-py-else": ({"setup.py": "import sys\nfrom setuptools import setup\nif sys.platform == 'win32':\n"
                       "    REQS = ['ray']\nelse:\n    REQS = ['ray', 'verl>=0.9']\nsetup(install_requires=REQS)\n"},
                      ("setup.py", 6, "0.9.0")),
    "setup-py-ifexp": ({"setup.py": "import os\nfrom setuptools import setup\n"
                        "setup(install_requires=['ray'] + (['verl>=0.9'] if os.environ.get('NEXT') else []))\n"},
                       ("setup.py", 3, "0.9.0")),
    "setup-py-and": ({"setup.py": "import os\nfrom setuptools import setup\n"
                      "setup(install_requires=['ray'] + (os.environ.get('NEXT') and ['verl>=0.9'] or []))\n"},
                     ("setup.py", 3, "0.9.0")),
    "setup-py-except": ({"setup.py": "from setuptools import setup\nREQS = ['ray']\ntry:\n    import torch\n"
                         "except ImportError:\n    REQS += ['verl>=0.9']\nsetup(install_requires=REQS)\n"},
                        ("setup.py", 6, "0.9.0")),
    "setup-py-match": ({"setup.py": "import os\nfrom setuptools import setup\nREQS = ['ray']\n"
                        "match os.environ.get('TRACK'):\n    case 'next':\n        REQS.append('verl>=0.9')\n"
                        "setup(install_requires=REQS)\n"}, ("setup.py", 6, "0.9.0")),
    "setup-py-call-under-if": ({"setup.py": "import os\nfrom setuptools import setup\nif os.environ.get('NEXT'):\n"
                                "    setup(install_requires=['verl>=0.9'])\n"}, ("setup.py", 4, "0.9.0")),
    "setup-cfg-extras": ({"setup.cfg": "[options]\ninstall_requires =\n    ray\n\n[options.extras_require]\n"
                          "next =\n    verl>=0.9\n"}, ("setup.cfg", 7, "0.9.0")),
    "requirements-next": ({"requirements.txt": "ray\n", "requirements-next.txt": "verl>=0.9\n"},
                          ("requirements-next.txt", 1, "0.9.0")),
    "requirements-folder": ({"requirements/next.txt": "verl>=0.9\n"}, ("requirements/next.txt", 1, "0.9.0")),
    "rye-dev-lock": ({"requirements-dev.lock": "# generated by rye\nverl==0.9.1\n"}, ("requirements-dev.lock", 2, "0.9.1")),
    "pylock-named": ({"pylock.next.toml": 'lock-version = "1.0"\n[[packages]]\nname = "verl"\nversion = "0.9.1"\n'},
                     ("pylock.next.toml", 3, "0.9.1")),
    "tox-env": ({"tox.ini": "[testenv]\ndeps = ray\n\n[testenv:next]\ndeps =\n    verl>=0.9\n"}, ("tox.ini", 6, "0.9.0")),
    "tox-env-include": ({"tox.ini": "[testenv]\ndeps = ray\n\n[testenv:next]\ndeps = -rnext.txt\n",
                         "next.txt": "verl>=0.9\n"}, ("next.txt", 1, "0.9.0")),
    "tox-toml-env": ({"tox.toml": '[env_run_base]\ndeps = ["ray"]\n[env.next]\ndeps = ["verl>=0.9"]\n'}, ("tox.toml", 4, "0.9.0")),
    "pixi-feature": ({"pixi.toml": '[dependencies]\npython = "3.11"\n[feature.next.pypi-dependencies]\nverl = ">=0.9"\n'},
                     ("pixi.toml", 4, "0.9.0")),
    "pipfile-dev": ({"Pipfile": '[packages]\nray = "*"\n\n[dev-packages]\nverl = ">=0.9"\n'}, ("Pipfile", 5, "0.9.0")),
    "pipfile-lock-develop": ({"Pipfile.lock": '{"default": {}, "develop": {"verl": {"version": "==0.9.1"}}}\n'},
                             ("Pipfile.lock", 1, "0.9.1")),
    "conda-other-environment": ({"environment-next.yml": "dependencies:\n  - pip\n  - pip:\n    - verl>=0.9\n"},
                                ("environment-next.yml", 4, "0.9.0")),
}


@pytest.mark.parametrize("shape", sorted(OPTIONAL))
def test_an_optional_environment_alone_decides_nothing(tmp_path: Path, shape: str) -> None:
    """Only declarations in every environment the code runs in may show that a config is
    taken; the others are set aside, named for the reason (trial 26c, C)."""
    (tmp_path / ".git").mkdir()
    files, (name, line, version) = OPTIONAL[shape]
    for file, text in files.items():
        _write(tmp_path, file, text)
    got = verl_evidence(tmp_path / "train.py")
    assert got.decided is None
    assert [(d.path, d.line, d.version) for d in got.set_aside] == [(str(tmp_path / name), line, Version(version))]


@pytest.mark.parametrize("shape", sorted(OPTIONAL))
def test_a_required_verl_beside_an_optional_pin_decides(tmp_path: Path, shape: str) -> None:
    """The same optional pin and ``verl>=0.9`` in the root requirements file: that decides."""
    (tmp_path / ".git").mkdir()
    files, _ = OPTIONAL[shape]
    for file, text in files.items():
        _write(tmp_path, file, text)
    _write(tmp_path, "requirements.txt", "ray\nverl>=0.9\n")
    got = verl_evidence(tmp_path / "train.py")
    assert got.decided is not None and got.set_aside == ()
    # a lock resolves the required declaration too: its version decides
    expected = ("uv.lock", 4, "0.9.1") if shape == "uv-lock-of-an-extra" else ("requirements.txt", 2, "0.9.0")
    assert (got.decided.path, got.decided.line, got.decided.version) == (
        str(tmp_path / expected[0]), expected[1], Version(expected[2])
    )


@pytest.mark.parametrize(
    ("files", "where", "line", "version"),
    [
        # the default environments stay the project's own
        ({"tox.ini": "[testenv]\ndeps =\n    verl>=0.9\n"}, "tox.ini", 3, "0.9.0"),
        ({"pyproject.toml": '[tool.hatch.envs.default]\ndependencies = ["verl>=0.9"]\n'}, "pyproject.toml", 2, "0.9.0"),
        ({"Pipfile": '[packages]\nverl = ">=0.9"\n'}, "Pipfile", 2, "0.9.0"),
        ({"pixi.toml": '[pypi-dependencies]\nverl = ">=0.9"\n'}, "pixi.toml", 2, "0.9.0"),
        ({"environment.yml": "dependencies:\n  - pip:\n    - verl>=0.9\n"}, "environment.yml", 3, "0.9.0"),
        ({"pylock.toml": 'lock-version = "1.0"\n[[packages]]\nname = "verl"\nversion = "0.9.1"\n'}, "pylock.toml", 3, "0.9.1"),
        ({"pyproject.toml": '[tool.poetry.dependencies]\nverl = "^0.9"\n'}, "pyproject.toml", 2, "0.9.0"),
        ({"setup.cfg": "[options]\ninstall_requires =\n    verl>=0.9\n"}, "setup.cfg", 3, "0.9.0"),
        # a file the root requirements file includes is installed with it
        ({"requirements.txt": "-r requirements-gpu.txt\n", "requirements-gpu.txt": "verl>=0.9\n"},
         "requirements-gpu.txt", 1, "0.9.0"),
        # a lock beside a required declaration is the project's (it resolves that one)
        ({"pyproject.toml": '[project]\nname = "p"\ndependencies = ["verl>=0.9"]\n'
          '[project.optional-dependencies]\nnext = ["verl>=0.9"]\n',
          "uv.lock": 'version = 1\n\n[[package]]\nname = "verl"\nversion = "0.9.1"\n'}, "uv.lock", 4, "0.9.1"),
        # a setup.py name used by install_requires and an extra is required
        ({"setup.py": "from setuptools import setup\nREQS = ['verl>=0.9']\n"
          "setup(install_requires=REQS, extras_require={'all': REQS})\n"}, "setup.py", 2, "0.9.0"),
    ],
)
def test_the_default_environment_is_the_project_own(
    tmp_path: Path, files: dict[str, str], where: str, line: int, version: str
) -> None:
    (tmp_path / ".git").mkdir()
    for file, text in files.items():
        _write(tmp_path, file, text)
    got = verl_evidence(tmp_path / "train.py")
    assert got.set_aside == () and got.decided is not None
    assert (got.decided.path, got.decided.line, got.decided.version) == (str(tmp_path / where), line, Version(version))


@pytest.mark.parametrize("shape", ["extra", "dependency-group", "tox-env", "setup-py-extras", "pipfile-dev"])
def test_an_optional_environment_may_still_lower_the_release(tmp_path: Path, shape: str) -> None:
    """The same optional places pinning an old verl beside a required ``verl>=0.9``: the old
    one decides (every environment that could run the code must accept a config)."""
    (tmp_path / ".git").mkdir()
    files, (name, line, _) = OPTIONAL[shape]
    for file, text in files.items():
        _write(tmp_path, file, text.replace(">=0.9.1", "==0.8.0").replace(">=0.9.0", "==0.8.0").replace(">=0.9", "==0.8.0"))
    _write(tmp_path, "requirements.txt", "verl>=0.9\n")
    got = verl_evidence(tmp_path / "train.py")
    assert got.decided is not None
    assert (got.decided.path, got.decided.line, got.decided.version) == (str(tmp_path / name), line, Version("0.8.0"))
