"""rules/pins.py and the requirement lines of rules/requirements.py (trial 26c, B).

An ``environment.yml``'s ``pip:`` section is what conda writes into a requirements file
beside the environment file and hands to ``pip install -r``: each entry is a requirement
line, and its ``-r``/``--requirement[=]``/``-c`` includes are read relative to the
environment file's folder. Each test asserts the version, file, line, text and kind found.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from ppo_migrate.rules.pins import read_pins
from ppo_migrate.rules.requirements import requirement_lines


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _found(root: Path, folder: str = "") -> list[tuple[str | None, str, int, str, str]]:
    return [
        (str(f.version) if f.version is not None else None, f.path.relative_to(root).as_posix(), f.line, f.requirement, f.kind)
        for f in read_pins(root / folder if folder else root)
    ]


@pytest.mark.parametrize("entry", ["-r deps/cluster.txt", "--requirement=deps/cluster.txt",
                                   "--requirement deps/cluster.txt", "-rdeps/cluster.txt"])
def test_an_environment_files_pip_include_is_followed(tmp_path: Path, entry: str) -> None:
    root = _write(tmp_path, {
        "environment.yml": f"name: rl\ndependencies:\n  - python=3.11\n  - pip\n  - pip:\n    - {entry}\n",
        "deps/cluster.txt": "# cluster\nray\nverl==0.8.0\n",
    })
    assert _found(root) == [("0.8.0", "deps/cluster.txt", 3, "verl==0.8.0", "lock")]


def test_includes_are_relative_to_the_environment_files_folder(tmp_path: Path) -> None:
    """``envs/environment.yml`` names ``cluster.txt``: conda's requirements file sits in
    ``envs/``, so pip reads ``envs/cluster.txt``, not the root's."""
    root = _write(tmp_path, {
        "envs/environment.yml": "dependencies:\n  - pip:\n    - -r cluster.txt\n    - -c ../constraints.txt\n",
        "envs/cluster.txt": "verl>=0.7,<0.9\n",
        "cluster.txt": "verl>=0.9\n",
        "constraints.txt": "torch\nverl<0.9.1\n",
    })
    assert _found(root, "envs") == [
        ("0.7.0", "envs/cluster.txt", 1, "verl>=0.7,<0.9", "specifier"),
        ("0.1", "constraints.txt", 2, "verl<0.9.1", "specifier"),
    ]


def test_plain_entries_keep_their_lines_and_references(tmp_path: Path) -> None:
    """A requirement, an option line (no requirement) and an editable reference, each with
    the environment file's line; an include that does not exist yields nothing."""
    root = _write(tmp_path, {
        "environment.yml": (
            "dependencies:\n"           # 1
            "  - pip:\n"                # 2
            "    - --index-url https://example.org/simple\n"  # 3
            "    - -r missing.txt\n"    # 4
            "    - verl==0.8.0 --hash=sha256:00\n"  # 5
            "    - -e ./third_party/verl\n"  # 6
        ),
    })
    assert _found(root) == [
        ("0.8.0", "environment.yml", 5, "verl==0.8.0", "lock"),  # options dropped
        (None, "environment.yml", 6, "-e ./third_party/verl", "direct-reference"),
    ]


def test_an_include_cycle_is_read_once(tmp_path: Path) -> None:
    root = _write(tmp_path, {
        "environment.yml": "dependencies:\n  - pip:\n    - -r a.txt\n    - -r b.txt\n",
        "a.txt": "-r b.txt\nverl==0.8.0\n",
        "b.txt": "-r a.txt\n",
    })
    assert _found(root) == [("0.8.0", "a.txt", 2, "verl==0.8.0", "lock")]


def test_requirement_lines_read_includes_relative_to_the_named_file(tmp_path: Path) -> None:
    root = _write(tmp_path, {"sub/pins.txt": "verl===0.8.0\n"})
    found = list(requirement_lines([(7, "--constraint=pins.txt"), (8, "verl>=0.9")], root / "sub" / "x.yml", set()))
    assert [(f.version, f.path, f.line, f.kind) for f in found] == [
        (Version("0.8.0"), root / "sub" / "pins.txt", 1, "lock"),
        (Version("0.9.0"), root / "sub" / "x.yml", 8, "specifier"),
    ]


def test_uv_toml_overrides_and_constraints_are_read(tmp_path: Path) -> None:
    """Trial 26d (``d2_uv_toml_override``): uv reads ``uv.toml`` as the project's
    ``[tool.uv]``; its overrides and constraints apply to every resolution but install
    nothing (trial 26e): they are optional, so they may only lower the release."""
    root = _write(tmp_path, {
        "uv.toml": '# the cluster image is on 0.8\noverride-dependencies = ["verl==0.8.0"]\n'
                   'constraint-dependencies = [\n  "ray<3",\n  "verl<0.9",\n]\n',
    })
    assert _found(root) == [
        ("0.8.0", "uv.toml", 2, "verl==0.8.0", "specifier"),
        ("0.1", "uv.toml", 5, "verl<0.9", "specifier"),
    ]
    assert all(f.optional for f in read_pins(root))


def test_a_uv_override_of_an_old_verl_still_lowers_a_required_pin(tmp_path: Path) -> None:
    """Optional is no weaker where it lowers: ``verl>=0.9.0`` required and a ``uv.toml``
    override to 0.8.0 is a PPO005 naming the override, and ``apply`` changes nothing."""
    import json

    from cli_helpers import run_cli

    launcher = (
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
        "def main(config):\n    return get_ppo_ray_runtime_env()\n"
    )
    root = _write(tmp_path, {
        "pyproject.toml": '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n',
        "uv.toml": 'override-dependencies = ["verl==0.8.0"]\n',
        "train.py": launcher,
    })
    found = json.loads(run_cli("check", "--output-format", "json", "--show-notices", ".", cwd=root).stdout)
    assert [(d["code"], d["location"]["row"]) for d in found] == [("PPO005", 5)]
    assert "(`uv.toml:1 verl==0.8.0`)" in found[0]["message"], found[0]["message"]
    run_cli("apply", "--exit-zero", ".", cwd=root)
    assert (root / "train.py").read_text() == launcher


def _flags(found) -> list[tuple[str, int, str, bool]]:
    return [(f.path.name, f.line, f.requirement, f.optional) for f in found]


def test_a_constraint_without_a_requirement_on_verl_is_optional(tmp_path: Path) -> None:
    """Trial 26e (``e3b_pip_constraints_only``): a ``-c`` file installs nothing; without a
    requirement on verl in the same resolution (the lines and their ``-r`` includes, at any
    depth) its entries are optional: they may only lower the release."""
    root = _write(tmp_path, {
        "constraints.txt": "verl>=0.9.0\n",
        "base.txt": "-c constraints.txt\nray\n",
        "verl.txt": "verl>=0.9\n",
    })
    alone = requirement_lines([(1, "omegaconf"), (2, "-c constraints.txt")], root / "requirements.txt", set())
    assert _flags(alone) == [("constraints.txt", 1, "verl>=0.9.0", True)]
    # the constraint sits two includes deep; the requirement on verl is in another include
    both = requirement_lines([(1, "-r base.txt"), (2, "-r verl.txt")], root / "requirements.txt", set())
    assert _flags(both) == [("constraints.txt", 1, "verl>=0.9.0", False), ("verl.txt", 1, "verl>=0.9", False)]


def test_pip_conf_constraints_are_optional_and_tox_constraints_without_verl_deps(tmp_path: Path) -> None:
    """A ``pip.conf`` ``constraint`` file and a tox ``-c`` file install nothing (trial 26e):
    optional; a tox ``-c`` beside a ``deps`` entry on verl counts as it is."""
    root = _write(tmp_path, {
        "pip.conf": "[global]\nconstraint = constraints.txt\n",
        "constraints.txt": "verl>=0.9.0\n",
        "tox.ini": "[testenv]\ndeps =\n    -c tox-constraints.txt\n    ray\n\n"
                   "[testenv:pinned]\ndeps =\n    -c pinned-constraints.txt\n    verl\n",
        "tox-constraints.txt": "verl>=0.9.0\n",
        "pinned-constraints.txt": "verl==0.9.1\n",
    })
    assert sorted((f.path.name, f.requirement, f.optional) for f in read_pins(root)) == [
        ("constraints.txt", "verl>=0.9.0", True),
        ("pinned-constraints.txt", "verl==0.9.1", True),  # optional as [testenv:pinned]'s
        ("tox-constraints.txt", "verl>=0.9.0", True),
        ("tox.ini", "verl", True),
    ]
    (root / "tox.ini").write_text("[testenv]\ndeps =\n    -c tox-constraints.txt\n    verl\n")
    assert sorted((f.path.name, f.requirement, f.optional) for f in read_pins(root) if f.path.name != "constraints.txt") == [
        ("tox-constraints.txt", "verl>=0.9.0", False),
        ("tox.ini", "verl", False),
    ]


@pytest.mark.parametrize("files", [
    {"requirements.txt": "omegaconf\n-c constraints.txt\n", "constraints.txt": "verl==0.8.0\n"},
    {"pip.conf": "[install]\nconstraint = constraints.txt\n", "constraints.txt": "verl==0.8.0\n"},
    {"pyproject.toml": '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n\n'
                       '[tool.pdm.resolution.overrides]\nverl = "0.8.0"\n'},
])
def test_an_old_constraint_or_override_still_lowers_a_required_pin(tmp_path: Path, files: dict[str, str]) -> None:
    """Optional is no weaker where it lowers: beside a required ``verl>=0.9.0`` an old
    constraint or override is a PPO005 naming it, and ``apply`` changes nothing."""
    import json

    from cli_helpers import run_cli

    launcher = (
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
        "def main(config):\n    return get_ppo_ray_runtime_env()\n"
    )
    required = {"pyproject.toml": '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n'}
    root = _write(tmp_path, {**required, **files, "train.py": launcher})
    (root / ".git").mkdir()
    found = json.loads(run_cli("check", "--output-format", "json", "--show-notices", ".", cwd=root).stdout)
    assert [(d["code"], d["location"]["row"]) for d in found] == [("PPO005", 5)]
    where = "pyproject.toml:7" if "pdm" in files.get("pyproject.toml", "") else "constraints.txt:1"
    assert f"the project runs verl 0.8.0 (`{where} " in found[0]["message"], found[0]["message"]
    run_cli("apply", "--exit-zero", ".", cwd=root)
    assert (root / "train.py").read_text() == launcher
