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

from ppo_migrate.project.entry_points import (
    named_outside_entry_points,
    pyproject_entry_points,
    pyproject_problem,
    setup_cfg_entry_points,
    setup_cfg_problem,
)
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


# -- W4: read as strictly as setuptools and tomllib ----------------------------------------------
def test_a_setup_cfg_option_or_section_written_twice_is_a_ppo902(tmp_path: Path) -> None:
    twice = f"[metadata]\nname = x\nname = y\n[options.entry_points]\nconsole_scripts =\n    d = {FN}\n"
    assert setup_cfg_entry_points(twice) == []
    assert setup_cfg_problem(twice) == (
        "the option `name` is written twice in `[metadata]` (setuptools' parser is strict)", 3, 1)
    section = "[metadata]\nname = x\n[metadata]\ndescription = wraps get_ppo_ray_runtime_env\n"
    root = write_tree(tmp_path / "p", {"setup.cfg": twice, "q/setup.cfg": section})
    found = sorted(check_findings(root), key=lambda f: len(Path(f["filename"]).parts))
    assert [(Path(f["filename"]).parts[-2:], f["code"], f["location"]["row"]) for f in found] == [
        (("p", "setup.cfg"), "PPO902", 3), (("q", "setup.cfg"), "PPO902", 3)]
    assert found[0]["message"] == (
        "not valid setup.cfg: the option `name` is written twice in `[metadata]` (setuptools' parser "
        "is strict); its entry points cannot be read")
    # named only in a description: the message says so, and claims no entry points
    assert found[1]["message"] == (
        "not valid setup.cfg: the section `[metadata]` is written twice (setuptools' parser is "
        "strict); it names the runtime function only in `metadata.description`, which declares no "
        "entry point, but packaging tools refuse the file as it stands")


def test_a_pyproject_with_a_byte_order_mark_is_a_ppo902(tmp_path: Path) -> None:
    text = f'[project.scripts]\nd = "{FN}"\n'
    assert pyproject_problem("\ufeff" + text) == (
        "Invalid statement (a UTF-8 byte order mark starts the file)", 1, 1)
    root = write_tree(tmp_path / "p", {})
    (root / "pyproject.toml").write_bytes(b"\xef\xbb\xbf" + text.encode())
    (found,) = check_findings(root)
    assert (found["code"], found["location"]["row"], found["location"]["column"]) == ("PPO902", 1, 1)
    assert found["message"] == (
        "not valid TOML: Invalid statement (a UTF-8 byte order mark starts the file); its entry "
        "points cannot be read")
    # the same text without the mark declares the script
    (root / "pyproject.toml").write_text(text)
    assert [f["code"] for f in check_findings(root)] == ["PPO006"]


def test_invalid_toml_naming_the_function_only_in_a_comment_or_description_says_so() -> None:
    names = {"get_ppo_ray_runtime_env"}
    comment = '# we wrap get_ppo_ray_runtime_env\n[project]\nname = "x\n'
    described = '[project]\nname = "x"\ndescription = "wraps get_ppo_ray_runtime_env"\nversion = 0.1.0\n'
    both = '[project]  # get_ppo_ray_runtime_env\ndescription = "get_ppo_ray_runtime_env"\nx = = 1\n'
    declared = f'[project.scripts]\nd = "{FN}"\nx = = 1\n'
    dotted = f'[project]\nscripts.d = "{FN}"\nx = = 1\n'
    inline = f'[project]\nscripts = {{ d = "{FN}" }}\nx = = 1\n'
    assert named_outside_entry_points("pyproject.toml", comment, names) == "a comment"
    assert named_outside_entry_points("pyproject.toml", described, names) == "`project.description`"
    assert named_outside_entry_points("pyproject.toml", both, names) == "a comment and `project.description`"
    for text in (declared, dotted, inline):
        assert named_outside_entry_points("pyproject.toml", text, names) is None, text
    found = entry_point_references((), "pyproject.toml", [TARGET], text=comment)
    assert [(d.code, d.line, d.column, d.message) for d in found] == [(
        "PPO902", 3, 10, "not valid TOML: Illegal character '\\n'; it names the runtime function only in "
        "a comment, which declares no entry point, but packaging tools refuse the file as it stands")]
    (d,) = entry_point_references((), "pyproject.toml", [TARGET], text=declared)
    assert d.message.endswith("; its entry points cannot be read")
    cfg = f"[options.entry_points]\nconsole_scripts =\n    d = {FN}\n[x]\na = 1\na = 2\n"
    assert named_outside_entry_points("setup.cfg", cfg, names) is None
    assert named_outside_entry_points("setup.cfg", "; get_ppo_ray_runtime_env\n[x]\n", names) == "a comment"


# -- MISSED: setup.cfg interpolation -------------------------------------------------------------
def test_setup_cfg_interpolation_is_expanded_as_setuptools_does(tmp_path: Path) -> None:
    text = textwrap.dedent('''\
        [DEFAULT]
        mod = verl.trainer.constants_ppo
        [metadata]
        name = x
        [options.entry_points]
        fn = get_ppo_ray_runtime_env
        console_scripts =
            a = %(mod)s:%(fn)s
            b = pkg.safe:run
        ''')
    rows = [(e.group, e.name, e.value, e.line, e.column, e.end_column) for e in setup_cfg_entry_points(text)]
    assert rows == [
        ("console_scripts", "a", FN, 8, 9, 23),
        ("console_scripts", "b", "pkg.safe:run", 9, 9, 21),
    ]
    root = write_tree(tmp_path / "p", {"setup.cfg": text})
    (found,) = check_findings(root)
    assert (found["code"], found["location"]["row"], found["location"]["column"]) == ("PPO006", 8, 9)
    assert found["message"].startswith(f"`{FN}` is declared as the script `a` (`console_scripts`)")
    # a name interpolation cannot find: setuptools refuses the file
    broken = text.replace("%(fn)s", "%(nope)s")
    assert setup_cfg_entry_points(broken) == []
    message, line, _ = setup_cfg_problem(broken)
    assert (message.split(":")[0], line) == (
        "the value of `console_scripts` in `[options.entry_points]` cannot be interpolated", 7)
