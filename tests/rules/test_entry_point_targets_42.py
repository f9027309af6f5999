"""Entry points a fresh user's try found slow or misreported (fresh42: H1', W1', W2'; fresh41: M3).

H1': the entries of ONE inline table of a ``pyproject.toml`` (``scripts = {n1 = ..., n2 = ...}``)
were placed by testing every literal of the same text against each entry, with the text before
it on its (long) line parsed each time: quadratic (2,000 entries 12 s, 20,000 never ended).
Each test asserts the place, code and text the code before these fixes did not give.
"""

from __future__ import annotations

from ppo_migrate.project import entry_points as ep
from ppo_migrate.project.entry_points import pyproject_entry_points

FN = "verl.trainer.constants_ppo:get_ppo_ray_runtime_env"
TARGET = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"


# -- H1': one inline table of many entries is read in one pass -----------------------------------
def _inline_scripts(n: int) -> str:
    body = ", ".join(f'n{i} = "os:getcwd"' for i in range(n))
    return f'[project]\nname = "h1"\nversion = "0.1"\nscripts = {{{body}, z = "{FN}" }}\n'


def _counted(monkeypatch) -> tuple[dict[str, int], list]:
    """Count the per-literal line readings (:func:`ep._key_path`, ``_spells_keys``) and keep
    each :class:`ep._TomlPlaces` made, whose ``examined`` counts the literals looked at."""
    calls = {"key_path": 0, "spells_keys": 0}
    made: list = []
    real_key_path, real_spells = ep._key_path, ep._TomlPlaces._spells_keys

    def key_path(prefix):
        calls["key_path"] += 1
        return real_key_path(prefix)

    def spells(self, start, name, owner):
        calls["spells_keys"] += 1
        return real_spells(self, start, name, owner)

    class Places(ep._TomlPlaces):
        def __init__(self, *args) -> None:
            super().__init__(*args)
            made.append(self)

    monkeypatch.setattr(ep, "_key_path", key_path)
    monkeypatch.setattr(ep._TomlPlaces, "_spells_keys", spells)
    monkeypatch.setattr(ep, "_TomlPlaces", Places)
    return calls, made


def test_one_inline_table_of_many_scripts_examines_each_literal_once(monkeypatch) -> None:
    calls, made = _counted(monkeypatch)
    found = pyproject_entry_points(_inline_scripts(2000))
    assert len(found) == 2001
    # each literal is looked at once (it was each unused one for each entry: ~2,000,000),
    # and no line is read again for a key (each literal's line was parsed up to it)
    assert calls == {"key_path": 0, "spells_keys": 0}
    assert made[0].examined == 2001
    # the places are those the line-by-line reading gave: line 4, character columns
    assert (found[0].name, found[0].line, found[0].column, found[0].end_column) == ("n0", 4, 17, 28)
    assert (found[1].name, found[1].column) == ("n1", 35)
    assert (found[-1].name, found[-1].value, found[-1].line, found[-1].column, found[-1].end_column) == (
        "z", FN, 4, 40_906, 40_958)


def test_one_inline_table_of_many_groups_examines_each_literal_once(monkeypatch) -> None:
    calls, made = _counted(monkeypatch)
    body = ", ".join(f'g{i} = {{n = "os:getcwd"}}' for i in range(3000))
    text = f'[project]\nname = "h1"\nversion = "0.1"\nentry-points = {{{body}, z = {{"ü名" = "{FN}"}} }}\n'
    found = pyproject_entry_points(text)
    assert len(found) == 3001
    assert calls == {"key_path": 0, "spells_keys": 0}
    assert made[0].examined == 3001
    assert [(e.group, e.name, e.column) for e in found[:2]] == [("g0", "n", 27), ("g1", "n", 51)]
    # the column counts characters (code points), the key's two non-ASCII ones as one each
    last = found[-1]
    assert (last.group, last.name, last.line, last.column, last.end_column) == ("z", "ü名", 4, 79_919, 79_971)
    assert text.splitlines()[3][last.column - 1:last.end_column - 1] == f'"{FN}"'


def test_each_inline_value_is_placed_at_its_own_key_not_another_with_the_same_text() -> None:
    # the group and Poetry table keys decide, not the first literal of the same text whose
    # line spells the name somewhere before it (placed so before too: the one-pass reading's guard)
    text = (f'[project]\nname = "p"\nentry-points = {{a = {{x = "{FN}"}}, b = {{x = "{FN}"}}}}\n'
            f'[tool.poetry]\nscripts = {{s = {{callable = "{FN}", n = "m:f"}}, n = {{callable = "{FN}"}}}}\n')
    rows = [(e.group, e.name, e.line, e.column) for e in pyproject_entry_points(text)]
    assert rows == [("a", "x", 3, 26), ("b", "x", 3, 90),
                    ("console_scripts", "s", 5, 28), ("console_scripts", "n", 5, 110)]


def test_a_header_inside_a_multi_line_string_or_an_array_value_is_not_taken() -> None:
    # a ``[project.scripts]`` line inside ``description`` opened no table, and a string of
    # an array is no entry: before, both were taken for the entry's place
    text = (f'[project.gui-scripts]\na = """\n{FN}"""\narr = [\n  \'{FN}\',\n  {{a = "{FN}"}},\n]\n'
            f'[project.entry-points.grp]\ndescription = """\n[project.scripts]\nq = "m:f"\n"""\n'
            f'reference = \'\'\'{FN}\'\'\'\n')
    rows = [(e.group, e.name, e.line, e.column, e.end_line) for e in pyproject_entry_points(text)]
    assert rows == [("gui_scripts", "a", 2, 5, 3), ("grp", "description", 9, 15, 12),
                    ("grp", "reference", 13, 13, 13)]


# -- W1': setup.cfg's dashed groups depend on setuptools' version ----------------------------------
def _found(text: str, file: str) -> list[tuple]:
    from ppo_migrate.rules.entry_point_targets import entry_point_references

    entries = ep.setup_cfg_entry_points(text) if file == "setup.cfg" else pyproject_entry_points(text)
    return [(d.line, d.column, d.code, d.message, d.help)
            for d in entry_point_references(entries, file, [TARGET], text=text)]


def test_a_dashed_setup_cfg_group_is_named_as_written_and_as_older_setuptools_named_it() -> None:
    # setuptools >= 78 writes [console-scripts] (pip makes no script for it), < 78 [console_scripts]
    text = (f"[metadata]\nname = w4\nversion = 0.1\n[options.entry_points]\n"
            f"console-scripts = b = {FN}\nmy-grp = a = {FN}\nplain = c = {FN}\n")
    (script, group, plain) = _found(text, "setup.cfg")
    assert script[:3] == (5, 23, "PPO006")
    assert script[3].startswith(
        f"`{FN}` is declared as the entry point `b` of group `console-scripts` (`console_scripts`, a script "
        "whose wrapper calls it with no arguments, with setuptools < 78; a plain group with newer setuptools): "
        "whatever loads it")
    assert script[4] == ("Write the group `console_scripts` (setuptools >= 78 installs no script for "
                         "`console-scripts`) and point the script at a function of the project that obtains the "
                         "training config and passes it")
    assert group[:3] == (6, 14, "PPO006")
    assert group[3].startswith(
        f"`{FN}` is declared as the entry point `a` of group `my-grp` (`my_grp`, with setuptools < 78; a plain "
        "group with newer setuptools): whatever loads it")
    assert group[4].startswith("Make the loader pass the config")
    # a group without dashes, and a dashed pyproject group (kept by every setuptools): no note
    assert plain[3].startswith(f"`{FN}` is declared as the entry point `c` of group `plain`: whatever")
    toml = f'[project]\nname = "w"\nversion = "0.1"\n[project.entry-points."my-grp"]\na = "{FN}"\n'
    ((_, _, _, message, _),) = _found(toml, "pyproject.toml")
    assert message.startswith(f"`{FN}` is declared as the entry point `a` of group `my-grp`: whatever")


# -- W2': an interpolation that fails is placed at the failing option's line ------------------------
TOML_DYNAMIC = ('[project]\nname = "m1"\nversion = "0.1"\ndynamic = ["entry-points"]\n[tool.setuptools]\n'
                'py-modules = []\n[tool.setuptools.dynamic]\nentry-points = {file = ["a.cfg", "ep.cfg"]}\n')


def test_an_interpolation_error_in_an_entry_points_file_names_the_option_s_line(tmp_path) -> None:
    from cli_helpers import check_findings, write_tree

    # [DEFAULT] is a plain section for setuptools' parser here (default_section=None): `m`
    # is no option of [grp], so `a` (line 4 of ep.cfg, joined after a.cfg) cannot be expanded
    root = write_tree(tmp_path / "p", {"pyproject.toml": TOML_DYNAMIC, "a.cfg": "[x]\nb = os:getcwd\n",
                                       "ep.cfg": f"[DEFAULT]\nm = verl.trainer.constants_ppo\n[grp]\n"
                                                 f"a = %(m)s:get_ppo_ray_runtime_env\n"})
    (found,) = check_findings(root)
    assert (found["code"], found["location"]["row"], found["location"]["column"]) == ("PPO902", 8, 34)
    assert found["message"].startswith(
        "not a valid entry points file `ep.cfg` (line 4, read through this `file` reference): Bad value "
        "substitution: option 'a' in section 'grp' contains an interpolation key 'm' which is not a valid")


# -- M3: a named file of entry points is checked through the packaging file naming it ---------------
def test_a_named_entry_points_file_reports_the_packaging_file_s_finding(tmp_path) -> None:
    import json

    from cli_helpers import run_cli, write_tree

    cfg = "[metadata]\nname = m3\nversion = 0.1\n[options]\npy_modules =\nentry_points = file: ep.cfg\n"
    bad = f"[grp]\nx = {FN}\n"
    root = write_tree(tmp_path / "p", {"setup.cfg": cfg, "ep.cfg": bad, "sub/pyproject.toml": TOML_DYNAMIC,
                                       "sub/a.cfg": "[x]\nb = os:getcwd\n", "sub/ep.cfg": bad,
                                       "unrelated.cfg": bad})

    def rows(*named: str) -> list[tuple]:
        proc = run_cli("check", "--output-format", "json", "--exit-zero", *named, cwd=root)
        assert proc.returncode == 0, proc.stderr
        return sorted((f["filename"].replace(str(root) + "/", ""), f["location"]["row"], f["location"]["column"],
                       f["code"]) for f in json.loads(proc.stdout))

    # as pre-commit names a changed file: the finding `check .` gives, at the `file:` reference
    assert rows("ep.cfg") == [("setup.cfg", 6, 22, "PPO006")]
    assert rows("sub/ep.cfg") == [("sub/pyproject.toml", 8, 34, "PPO006")]
    assert rows("ep.cfg", "setup.cfg", "sub/a.cfg") == [("setup.cfg", 6, 22, "PPO006"),
                                                       ("sub/pyproject.toml", 8, 34, "PPO006")]
    assert rows(".") == [("setup.cfg", 6, 22, "PPO006"), ("sub/pyproject.toml", 8, 34, "PPO006")]
    # a file no packaging file names is still skipped, as any configuration file is
    assert rows("unrelated.cfg") == []
    # the same `# noqa` line above `entry_points = file: ...` suppresses it both ways
    (root / "setup.cfg").write_text(cfg.replace("entry_points", "# noqa: PPO006\nentry_points"))
    assert rows("ep.cfg") == []
    assert rows(".") == [("sub/pyproject.toml", 8, 34, "PPO006")]
