"""Entry points a fresh user's try found misplaced, read too leniently or missed (fresh40,
W2, W4 and MISSED).

W2: a dotted TOML key (``entry-points.grp.b = ...`` in ``[project]``, ``grp.b = ...`` in
``[project.entry-points]``, ``scripts.c = ...`` in ``[tool.poetry]``) was placed at its table's
header, so a ``# noqa`` on its own line was not read. Each test asserts the place, code and
text the code before these fixes did not give.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from cli_helpers import check_findings, write_tree

from ppo_migrate.project.entry_points import pyproject_entry_points
from ppo_migrate.rules.entry_point_targets import entry_point_references

FN = "verl.trainer.constants_ppo:get_ppo_ray_runtime_env"
TARGET = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"


def _found(text: str, path: str = "pyproject.toml") -> list[tuple]:
    return [(d.line, d.column, d.code) for d in entry_point_references(
        pyproject_entry_points(text), path, [TARGET], text=text)]


# -- W2: dotted keys -----------------------------------------------------------------------------
DOTTED = textwrap.dedent(f'''\
    [project]
    name = "x"
    scripts."a.b" = "{FN}"

    [project.entry-points]
    grp.b = "{FN}"
    "q.r".d = '{FN}'

    [tool.poetry]
    scripts.e = "{FN}"
    plugins.g = {{ f = "{FN}" }}
    ''')


def test_a_dotted_key_is_placed_at_its_own_line() -> None:
    rows = [(e.group, e.name, e.line, e.column) for e in pyproject_entry_points(DOTTED)]
    assert rows == [
        ("console_scripts", "a.b", 3, 17),
        ("grp", "b", 6, 9),
        ("q.r", "d", 7, 11),
        ("console_scripts", "e", 10, 13),
        ("g", "f", 11, 19),
    ]


def test_a_dotted_key_takes_the_noqa_of_its_own_line() -> None:
    assert _found(DOTTED) == [(3, 17, "PPO006"), (6, 9, "PPO006"), (7, 11, "PPO006"),
                              (10, 13, "PPO006"), (11, 19, "PPO006")]
    quiet = DOTTED.replace(f'b = "{FN}"', f'b = "{FN}"  # noqa: PPO006').replace(
        f'scripts.e = "{FN}"', f'scripts.e = "{FN}" #noqa:PPO006')
    assert _found(quiet) == [(3, 17, "PPO006"), (7, 11, "PPO006"), (11, 19, "PPO006")]
    # a noqa on the header's line no longer covers a key below it
    header = DOTTED.replace("[project.entry-points]\n", "[project.entry-points]  # noqa: PPO006\n")
    assert (6, 9, "PPO006") in _found(header)
    project = f'[project]\nname = "x"\nentry-points.grp.b = "{FN}"  # noqa: PPO006\nentry-points.grp.c = "{FN}"\n'
    assert _found(project) == [(4, 22, "PPO006")]


def test_the_same_value_under_two_dotted_keys_gets_each_key_s_line() -> None:
    text = f'[project]\nentry-points.g.one = "{FN}"\nentry-points.g.two = "{FN}"\n'
    assert [(e.name, e.line) for e in pyproject_entry_points(text)] == [("one", 2), ("two", 3)]
    # the key spelled inside another key's path is not that key: ``g.b`` is not ``b``'s line
    text = f'[project.entry-points]\nb.x = "{FN}"\ng.b = "{FN}"\n'
    assert [(e.group, e.name, e.line) for e in pyproject_entry_points(text)] == [("b", "x", 2), ("g", "b", 3)]


def test_check_reads_the_dotted_key_s_noqa(tmp_path: Path) -> None:
    text = (f'[project]\nname="x"\nversion="0"\ndependencies=["verl>=0.9"]\n'
            f'entry-points.grp.b = "{FN}"  # noqa: PPO006\nentry-points.grp.c = "{FN}"\n')
    root = write_tree(tmp_path / "p", {"pyproject.toml": text})
    found = check_findings(root)
    assert [(f["location"]["row"], f["location"]["column"], f["code"]) for f in found] == [(6, 22, "PPO006")]
    assert "entry point `c` of group `grp`" in found[0]["message"]
