"""Entry points a fresh user's try found misplaced, read too leniently or missed (fresh40,
W2, W4 and MISSED).

W2: a dotted TOML key (``entry-points.grp.b = ...`` in ``[project]``, ``grp.b = ...`` in
``[project.entry-points]``, ``scripts.c = ...`` in ``[tool.poetry]``) was placed at its table's
header, so a ``# noqa`` on its own line was not read. Each test asserts the place, code and
text the code before these fixes did not give.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from cli_helpers import VERL_09, check_findings, project_ran, run_cli, verl_stub, write_tree

from ppo_migrate.project.entry_points import (
    entry_point_files,
    named_outside_entry_points,
    pyproject_entry_points,
    pyproject_problem,
    setup_cfg_entry_points,
    setup_cfg_problem,
    setup_py_entry_points,
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
    message = ("not valid TOML: Illegal character '\\n'; it names the runtime function only in "
               "a comment, which declares no entry point, but packaging tools refuse the file as it stands")
    assert [(d.code, d.line, d.column, d.message) for d in found] == [("PPO902", 3, 10, message)]
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


# -- MISSED: setup.py values built other ways ----------------------------------------------------
def _setup(body: str) -> str:
    return "from setuptools import setup\nEP = \"" + FN + "\"\n" + textwrap.dedent(body)


def _setup_found(text: str) -> list[tuple]:
    return [(d.line, d.column, d.code, d.message.split(" is ", 1)[0])
            for d in entry_point_references(setup_py_entry_points(ast.parse(text), text), "setup.py", [TARGET])]


def test_percent_and_a_spliced_dict_are_folded() -> None:
    percent = _setup('setup(entry_points={"console_scripts": ["c=%s" % EP, "d = %s:%s" % ("m", "f"), "e=%r" % EP]})\n')
    rows = [(e.name, e.qualified, e.certain) for e in setup_py_entry_points(ast.parse(percent), percent)]
    assert rows == [("c", TARGET, True), ("d", "m.f", True), ("", None, False)]
    assert _setup_found(percent) == [(3, 41, "PPO006", f"`{FN}`"), (3, 80, "PPO006", '`"e=%r" % EP`')]
    spliced = _setup('BASE = {"gui_scripts": []}\nsetup(entry_points={**BASE, **{"console_scripts": ["c = " + EP]}})\n')
    assert [(e.group, e.name, e.qualified, e.line, e.column) for e in
            setup_py_entry_points(ast.parse(spliced), spliced)] == [("console_scripts", "c", TARGET, 4, 52)]


def test_a_value_read_through_a_rebound_or_mutated_name_is_a_cannot_tell() -> None:
    twice = _setup('EP = "pkg.safe:run"\nEP = "' + FN + '"\nsetup(entry_points={"console_scripts": ["c = " + EP]})\n')
    assert _setup_found(twice) == [(5, 41, "PPO006", '`"c = " + EP`')]
    (d,) = entry_point_references(setup_py_entry_points(ast.parse(twice), twice), "setup.py", [TARGET])
    assert "cannot tell whether it names the runtime function (`EP`, which it reads, spells its name)" in d.message
    kw_twice = _setup('KW = dict(name="x")\nKW = dict(entry_points={"console_scripts": ["c = " + EP]})\nsetup(**KW)\n')
    assert _setup_found(kw_twice) == [(5, 9, "PPO006", "`KW`")]
    item = _setup('kw = {"name": "x"}\nkw["entry_points"] = {"console_scripts": ["c = " + EP]}\nsetup(**kw)\n')
    assert _setup_found(item) == [(5, 9, "PPO006", "`kw`")]
    updated = _setup('kw = {"name": "x"}\nkw.update(entry_points={"console_scripts": ["c = " + EP]})\nsetup(**kw)\n')
    assert _setup_found(updated) == [(5, 9, "PPO006", "`kw`")]
    under_if = ("import sys\nfrom setuptools import setup\nif sys.argv:\n    EP2 = \"" + FN + "\"\n"
                'setup(entry_points={"console_scripts": ["c = " + EP2]})\n')
    assert _setup_found(under_if) == [(5, 41, "PPO006", '`"c = " + EP2`')]
    # a module that names the function nowhere the value reads stays quiet
    quiet = ("from setuptools import setup\nNOTE = \"get_ppo_ray_runtime_env\"\nEP = \"a:b\"\nEP = \"c:d\"\n"
             'setup(entry_points={"console_scripts": ["c = " + EP]})\n')
    assert _setup_found(quiet) == []


def test_setup_py_forms_are_reported_and_the_project_runs_the_same_after_apply(tmp_path: Path) -> None:
    setup = _setup('''\
        kw = {"name": "p"}
        kw["entry_points"] = {"console_scripts": ["c = " + EP, "d=%s" % EP]}

        if __name__ == "__main__":
            setup(**kw)
        ''')
    train = textwrap.dedent('''\
        import ast
        from importlib import import_module

        tree = ast.parse(open("setup.py").read())
        ep = next(n.value.value for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "EP")
        module, _, name = ep.partition(":")
        print("ran", getattr(import_module(module), name)())
        ''')
    root = write_tree(tmp_path / "p", {"setup.py": setup, "train.py": train, "requirements.txt": "verl>=0.9.0\n"})
    found = check_findings(root)
    assert [(f["filename"].rsplit("/", 1)[-1], f["location"]["row"], f["location"]["column"], f["code"])
            for f in found] == [("setup.py", 7, 13, "PPO006")]
    assert found[0]["message"].startswith(
        "`kw` is `setup(entry_points=...)` built at run time: cannot tell whether it names the runtime "
        "function (`EP`, which it reads, spells its name)")
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran None"
    proc = run_cli("apply", "--unsafe-fixes", ".", cwd=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (root / "setup.py").read_text() == setup
    assert project_ran(root, site) == "ran None"


# -- MISSED: entry points read from another file -------------------------------------------------
EP_CFG = f"# entry points\n[console_scripts]\nd = {FN}\n\n[proj.plugins]\nsafe = pkg.safe:run\n"
CFG_REF = "[metadata]\nname = x\n[options]\npackages = find:\nentry_points = file: ep.cfg, more.cfg\n"
TOML_REF = ('[project]\nname = "x"\nversion = "0"\ndynamic = ["entry-points"]\n\n'
            '[tool.setuptools.dynamic]\nentry-points = {file = ["ep.cfg"]}\n')


def test_the_files_setuptools_reads_entry_points_from() -> None:
    assert entry_point_files("setup.cfg", CFG_REF) == [("ep.cfg", 5, 22, 5, 28), ("more.cfg", 5, 30, 5, 38)]
    assert entry_point_files("pyproject.toml", TOML_REF) == [("ep.cfg", 7, 25, 7, 33)]
    # setuptools reads the table only when project.dynamic names an entry point field
    assert entry_point_files("pyproject.toml", TOML_REF.replace('dynamic = ["entry-points"]\n', "")) == []
    assert entry_point_files("pyproject.toml", TOML_REF.replace('"entry-points"]', '"scripts"]')) != []
    interpolated = "[DEFAULT]\nd = eps\n[options]\nentry_points = file: %(d)s/ep.cfg\n"
    assert [f[0] for f in entry_point_files("setup.cfg", interpolated)] == ["eps/ep.cfg"]
    assert entry_point_files("setup.cfg", "[options]\nentry_points =\n    console_scripts = a = b:c\n") == []


def test_an_entry_point_in_a_referenced_file_is_reported_where_the_file_is_named(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {
        "setup.cfg": CFG_REF, "ep.cfg": EP_CFG,
        "t/pyproject.toml": TOML_REF, "t/ep.cfg": EP_CFG,
        "q/pyproject.toml": TOML_REF.replace('["ep.cfg"]}', '["ep.cfg"]}  # noqa: PPO006'), "q/ep.cfg": EP_CFG,
        "o/setup.cfg": CFG_REF.replace("file: ep.cfg", "file: ../ep.cfg"),
    })
    found = sorted(check_findings(root), key=lambda f: f["filename"])
    assert [(Path(f["filename"]).relative_to(root).as_posix(), f["location"]["row"], f["location"]["column"],
             f["code"]) for f in found] == [("setup.cfg", 5, 22, "PPO006"), ("t/pyproject.toml", 7, 25, "PPO006")]
    assert found[0]["message"].startswith(
        f"`{FN}` is declared in `ep.cfg` (line 3, read through this `file` reference) as the script `d` "
        "(`console_scripts`), whose wrapper calls it with no arguments")
    # the referenced file need not be among the analysed paths
    proc = run_cli("check", "--output-format", "concise", "setup.cfg", cwd=root)
    assert proc.returncode == 1 and "setup.cfg:5:22: PPO006" in proc.stdout, proc.stdout + proc.stderr


def test_a_referenced_file_s_entry_point_still_loads_after_apply(tmp_path: Path) -> None:
    train = textwrap.dedent('''\
        import configparser
        from importlib import import_module

        parser = configparser.ConfigParser()
        parser.read("ep.cfg")
        module, _, name = parser["console_scripts"]["d"].partition(":")
        print("ran", getattr(import_module(module), name)())
        ''')
    root = write_tree(tmp_path / "p", {"setup.cfg": CFG_REF, "ep.cfg": EP_CFG, "train.py": train})
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran None"
    before = {name: (root / name).read_bytes() for name in ("setup.cfg", "ep.cfg", "train.py")}
    proc = run_cli("apply", "--unsafe-fixes", ".", cwd=root)
    assert proc.returncode == 1 and "PPO006" in proc.stdout, proc.stdout + proc.stderr
    assert {name: (root / name).read_bytes() for name in before} == before
    assert project_ran(root, site) == "ran None"
