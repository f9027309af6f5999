"""An entry point the project declares naming the runtime function (trial 26f, MISSED): whatever
loads it calls it with no config and no source edit can pass one, so it is a PPO006 at the
declared value (as a Hydra ``_target_`` is), with no fix; ``apply`` changes nothing.

The declarations are read by :mod:`ppo_migrate.project.entry_points` (``pyproject.toml`` with
``tomllib``, ``setup.cfg`` with ``configparser``, ``setup.py``'s ``ast``) and judged by
:mod:`ppo_migrate.rules.entry_point_targets`. The executed case loads the entry point the way a
plugin host does (``importlib.metadata``, from an installed copy's ``entry_points.txt`` beside
the launcher) with a fake 0.9-style verl on the interpreter's path, before and after ``apply``.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from cli_helpers import VERL_09, check_findings, project_ran, run_cli, verl_stub, write_tree

from ppo_migrate.project.discovery import discover, python_files
from ppo_migrate.project.entry_points import (
    EntryPoint,
    parse_value,
    pyproject_entry_points,
    setup_cfg_entry_points,
    setup_py_entry_points,
)
from ppo_migrate.rules.entry_point_targets import entry_point_references, loaded_modules, toml_comment
from ppo_migrate.settings_model import Settings

FN = "verl.trainer.constants_ppo:get_ppo_ray_runtime_env"
TARGET = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"


def _rows(entries) -> list[tuple]:
    return [(e.group, e.name, e.value, e.line, e.column, e.end_column) for e in entries]


# -- reading the declarations -------------------------------------------------------------------
def test_pyproject_tables_and_positions() -> None:
    text = textwrap.dedent(f'''\
        [project]
        name = "p"
        version = "0"
        gui-scripts = {{ gui = "{FN}" }}

        [project.scripts]
        env = "{FN}"
        other = "proj.cli:main"

        [project.entry-points."proj.runtime_envs"]
        ray = '{FN} [extra]'

        [tool.poetry.scripts]
        pe = {{ reference = "{FN}", type = "console" }}

        [tool.poetry.plugins."poetry.group"]
        pp = "{FN}"

        [tool.other]
        not_one = "{FN}"
        ''')
    found = _rows(pyproject_entry_points(text))
    assert found == [
        ("gui_scripts", "gui", FN, 4, 23, 23 + len(FN) + 2),
        ("console_scripts", "env", FN, 7, 7, 7 + len(FN) + 2),
        ("console_scripts", "other", "proj.cli:main", 8, 9, 9 + len("proj.cli:main") + 2),
        ("proj.runtime_envs", "ray", f"{FN} [extra]", 11, 7, 7 + len(FN) + 10),
        ("console_scripts", "pe", FN, 14, 20, 20 + len(FN) + 2),
        ("poetry.group", "pp", FN, 17, 6, 6 + len(FN) + 2),
    ]


def test_the_same_value_twice_gets_two_places() -> None:
    text = f'[project.scripts]\na = "{FN}"\nb = "{FN}"\n'
    assert [(e.name, e.line) for e in pyproject_entry_points(text)] == [("a", 2), ("b", 3)]


def test_a_toml_file_tomllib_refuses_declares_nothing() -> None:
    assert pyproject_entry_points(f'[project.scripts]\nenv = "{FN}\n') == []
    assert pyproject_entry_points("[project]\nname = 1\nname = 2\n") == []


def test_setup_cfg_groups_and_positions() -> None:
    text = textwrap.dedent(f'''\
        [metadata]
        name = p

        [options.entry_points]
        console_scripts =
            env = {FN}
            other = proj.cli:main
        proj.runtime_envs = ray = {FN}

        [other]
        key = {FN}
        ''')
    assert _rows(setup_cfg_entry_points(text)) == [
        ("console_scripts", "env", FN, 6, 11, 11 + len(FN)),
        ("console_scripts", "other", "proj.cli:main", 7, 13, 13 + len("proj.cli:main")),
        ("proj.runtime_envs", "ray", FN, 8, 27, 27 + len(FN)),
    ]
    assert setup_cfg_entry_points("[options.entry_points\nx = y\n") == []
    assert setup_cfg_entry_points(f"[other]\nenv = {FN}\n") == []


def test_setup_py_forms() -> None:
    text = textwrap.dedent(f'''\
        import setuptools
        from setuptools import setup

        EPS = {{"console_scripts": ["env = {FN}"]}}

        setup(name="p", entry_points=EPS)
        setuptools.setup(entry_points={{"g": ("ray = {FN}", "x = a.b:c"), "h": "one = {FN}"}})
        setup(entry_points="""
        [ini.group]
        ray = {FN}
        """)
        print(entry_points={{"g": ["no = {FN}"]}})
        setup(entry_points=dict(gui_scripts=["gui = {FN}"]))
        ''')
    found = [(e.group, e.name, e.qualified, e.line, e.column) for e in setup_py_entry_points(ast.parse(text), text)]
    assert found == [
        ("console_scripts", "env", TARGET, 4, 28),
        ("g", "ray", TARGET, 7, 38),
        ("g", "x", "a.b.c", 7, 98),
        ("h", "one", TARGET, 7, 117),
        ("ini.group", "ray", TARGET, 8, 20),
        ("gui_scripts", "gui", TARGET, 13, 38),
    ]


def test_a_rebound_value_is_uncertain_and_a_constant_sum_is_folded() -> None:
    """A name bound twice is no constant: kept as uncertain; its text, ``EPS``, spells no
    function, but one of the values ``EPS`` is bound to does, so it is a "cannot tell"
    (fresh40, MISSED); ``"a = " + "..."`` is folded (trial 26h)."""
    text = textwrap.dedent(f'''\
        from setuptools import setup

        EPS = {{"console_scripts": ["env = {FN}"]}}
        EPS = {{}}
        setup(entry_points=EPS)
        setup(entry_points={{"g": ["a = " + "{FN}"]}})
        ''')
    found = setup_py_entry_points(ast.parse(text), text)
    assert [(e.group, e.name, e.value, e.line, e.column, e.certain) for e in found] == [
        ("", "", "EPS", 5, 20, False),
        ("g", "a", FN, 6, 27, True),
    ]
    reported = entry_point_references(found, "setup.py", [TARGET])
    assert [d.line for d in reported] == [5, 6]
    assert "(`EPS`, which it reads, spells its name)" in reported[0].message


def test_parse_value_follows_the_specification() -> None:
    assert parse_value(FN) == ("verl.trainer.constants_ppo", "get_ppo_ray_runtime_env")
    assert parse_value(" a . b : c . d [x, y] ") == ("a.b", "c.d")
    assert parse_value("a.b") == ("a.b", None)
    assert parse_value("a-b:c") is None and parse_value("a:c # note") is None


# -- judging them -------------------------------------------------------------------------------
def _entry(value: str, group: str = "g", line: int = 3) -> EntryPoint:
    return EntryPoint(group, "n", value, line, 7, line, 7 + len(value))


def test_only_the_targets_and_the_project_reexports_are_reported() -> None:
    entries = [_entry(FN, "console_scripts", 2), _entry("pkg:get_env", line=3), _entry("pkg:other", line=4),
               _entry("verl.trainer.constants_ppo", line=5)]
    found = entry_point_references(entries, "pyproject.toml", (TARGET, "pkg.get_env"))
    assert [(d.line, d.code, d.fix) for d in found] == [(2, "PPO006", None), (3, "PPO006", None)]
    assert found[0].message.startswith(f"`{FN}` is declared as the script `n` (`console_scripts`), whose "
                                       "wrapper calls it with no arguments")
    assert "the entry point `n` of group `g`" in found[1].message
    assert entry_point_references(entries, "pyproject.toml", (TARGET,), enabled=lambda code: code != "PPO006") == []


def test_noqa_on_the_value_line_of_a_pyproject() -> None:
    text = (f'[project]\ngui-scripts = {{ g = "{FN}", h = "# noqa" }}\n'
            f'[project.scripts]\na = "{FN}"  # noqa: PPO006\nb = "{FN}"  # no qa\nc = "{FN}"  # noqa: PPO001\n')
    found = entry_point_references(pyproject_entry_points(text), "pyproject.toml", (TARGET,), text=text)
    assert [d.line for d in found] == [2, 5, 6]  # a ``# noqa`` in a string is no comment
    assert toml_comment('a = "x # y" # real') == "# real"
    assert toml_comment('a = "x \\" # y"') == ""  # an escaped quote does not end a basic string
    assert toml_comment("a = 'x \\' # y") == "# y"  # a literal string has no escapes


def test_loaded_modules_are_each_dotted_prefix() -> None:
    assert loaded_modules([_entry("pkg.sub:get_env"), _entry("other:Obj.f"), _entry("bad value")]) == frozenset(
        {"pkg", "pkg.sub", "other"})


def test_discovery_walks_the_packaging_files_and_keeps_them_from_python(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {
        "pyproject.toml": "", "setup.cfg": "", "setup.py": "", "a.py": "", "sub/pyproject.toml": "",
        "notes.toml": "", "setup.cfg.bak": "", ".venv/pyproject.toml": "",
    })
    found = sorted(Path(p).relative_to(root).as_posix() for p in discover([root], Settings()))
    assert found == ["a.py", "pyproject.toml", "setup.cfg", "setup.py", "sub/pyproject.toml"]
    assert sorted(Path(p).name for p in python_files(found)) == ["a.py", "setup.py"]


# -- executed: the project runs before and after; nothing is rewritten ----------------------------
PROJECT = {
    "pyproject.toml": textwrap.dedent(f'''\
        [project]
        name = "proj"
        version = "0"
        dependencies = ["verl>=0.9.0"]

        [project.entry-points."proj.runtime_envs"]
        ray = "{FN}"
        local = "proj.envs:make_env"
        '''),
    # what ``pip install .`` would make of it, beside the launcher (on its path)
    "proj-0.dist-info/METADATA": "Metadata-Version: 2.1\nName: proj\nVersion: 0\n",
    "proj-0.dist-info/entry_points.txt": f"[proj.runtime_envs]\nray = {FN}\nlocal = proj.envs:make_env\n",
    "proj/__init__.py": "",
    "proj/envs.py": "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env as make_env\n",
    "train.py": textwrap.dedent('''\
        from importlib.metadata import entry_points


        def runtime_envs(config):
            return {e.name: e.load()() for e in entry_points(group="proj.runtime_envs")}


        if __name__ == "__main__":
            print("ran", runtime_envs({"trainer": 1}))
        '''),
}


def test_an_entry_point_is_reported_and_nothing_is_rewritten(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", PROJECT)
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran {'ray': None, 'local': None}"  # no config reaches verl
    found = [(f["filename"].rsplit("/", 1)[-1], f["location"]["row"], f["location"]["column"], f["code"], f["fix"])
             for f in check_findings(root)]
    assert found == [("pyproject.toml", 7, 7, "PPO006", None), ("pyproject.toml", 8, 9, "PPO006", None)]
    before = {p: (root / p).read_bytes() for p in PROJECT}
    for extra in ((), ("--thread-config",), ("--unsafe-fixes",)):
        proc = run_cli("apply", *extra, ".", cwd=root)
        assert proc.returncode == 1, proc.stdout + proc.stderr  # the findings remain
        assert "Rewrote 0 calls in 0 files; 2 findings remain." in proc.stderr + proc.stdout
        assert {p: (root / p).read_bytes() for p in PROJECT} == before
    assert project_ran(root, site) == "ran {'ray': None, 'local': None}"
    # named alone (a pre-commit hook's staged file), the re-export is still known
    proc = run_cli("check", "--output-format", "concise", "pyproject.toml", cwd=root)
    assert proc.stdout.count("PPO006") == 2, proc.stdout + proc.stderr


def test_setup_cfg_and_setup_py_are_reported_at_their_values(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {
        "setup.cfg": f"[metadata]\nname = p\n\n[options.entry_points]\nconsole_scripts =\n    env = {FN}\n",
        "setup.py": f'from setuptools import setup\n\nsetup(entry_points={{"g": ["ray = {FN}"]}})\n',
        "requirements.txt": "verl>=0.9.0\n",
    })
    found = [(f["filename"].rsplit("/", 1)[-1], f["location"]["row"], f["location"]["column"], f["code"])
             for f in check_findings(root)]
    assert found == [("setup.cfg", 6, 11, "PPO006"), ("setup.py", 3, 27, "PPO006")]
    (root / "setup.py").write_text(f'from setuptools import setup\n\nsetup(entry_points={{"g": ["ray = {FN}"]}})  # noqa: PPO006\n')
    assert [f["filename"].rsplit("/", 1)[-1] for f in check_findings(root)] == ["setup.cfg"]


def test_a_value_written_another_way_takes_no_other_key_s_line() -> None:
    """A fresh user's try (stop 39): a ``\"\"\"\\``-continued value was placed at the next
    key's line, shifting every later one (so a ``# noqa`` there silenced the wrong entry);
    in ``setup.cfg`` a commented-out entry took the first finding."""
    ref = "verl.trainer.constants_ppo:get_ppo_ray_runtime_env"
    toml = (
        '[project]\nname = "p"\n[project.scripts]\ni = """\\\n    ' + ref + '"""\n'
        f'x = "{ref}"  # noqa: PPO006\ny = "{ref}"\n'
    )
    # the continued value spans its literal, key line to closing quotes (trial 26h)
    assert [(e.name, e.line, e.column, e.end_line) for e in pyproject_entry_points(toml)] == [
        ("i", 4, 5, 5), ("x", 6, 5, 6), ("y", 7, 5, 7),
    ]
    cfg = (
        "[metadata]\nname = proj\n[options.entry_points]\n"
        f"# old: a = {ref}\nconsole_scripts = a = {ref}\nx.group =\n    b = {ref}\n"
    )
    assert [(e.name, e.line, e.column) for e in setup_cfg_entry_points(cfg)] == [("a", 5, 23), ("b", 7, 9)]
