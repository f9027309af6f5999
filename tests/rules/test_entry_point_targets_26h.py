"""Entry points a fresh user's try found missed or misplaced (trial 26h, issue 26).

MISSED: ``setup.py`` values written as ``setup(**kw)``, ``"b = " + EP`` or ``f"b = {EP}"`` (``EP``
a module-level string constant) or through ``from setuptools import setup as s``; Poetry's
``x = { callable = "..." }``; a ``pyproject.toml`` value written with ``\\u`` escapes. WRONG: a
``pyproject.toml`` that :mod:`tomllib` refuses gave no diagnostic; the ``= help:`` line was
PPO006's remedy for a value in code; a multi-line TOML value was placed at its table's header,
so a ``# noqa`` after its closing quotes was not read. Each test asserts the place, code and
text that the code before these fixes did not give.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from cli_helpers import VERL_09, check_findings, project_ran, run_cli, verl_stub, write_tree

from ppo_migrate.diagnostics import Diagnostic
from ppo_migrate.output.full_format import block
from ppo_migrate.prefilter import is_candidate, spells_escaped
from ppo_migrate.project.entry_points import (
    poetry_reference,
    pyproject_entry_points,
    pyproject_problem,
    setup_py_entry_points,
)
from ppo_migrate.rules.entry_point_targets import (
    entry_point_references,
    loaded_modules,
    names_any,
    toml_comments,
    unescaped,
)

FN = "verl.trainer.constants_ppo:get_ppo_ray_runtime_env"
TARGET = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"
NAME = b"get_ppo_ray_runtime_env"


def _setup_rows(text: str) -> list[tuple]:
    return [(e.group, e.name, e.qualified, e.line, e.column, e.certain)
            for e in setup_py_entry_points(ast.parse(text), text)]


# -- setup.py (item 2) ---------------------------------------------------------------------------
def test_setup_kw_concatenation_f_strings_and_an_alias_of_setup() -> None:
    text = textwrap.dedent(f'''\
        from setuptools import setup as s

        EP = "{FN}"
        MOD = "verl.trainer.constants_ppo"
        kw = dict(name="p", entry_points={{"console_scripts": ["a = " + EP, f"b = {{MOD}}:get_ppo_ray_runtime_env"]}})
        s(**kw)
        s(entry_points={{"g": [f"c = {{EP!s}}", "d = " + MOD + ":other"]}})
        ''')
    assert _setup_rows(text) == [
        ("console_scripts", "a", TARGET, 5, 55, True),
        ("console_scripts", "b", TARGET, 5, 68, True),
        ("g", "c", TARGET, 7, 23, True),
        ("g", "d", "verl.trainer.constants_ppo.other", 7, 38, True),
    ]


def test_setup_kw_as_a_dict_literal() -> None:
    text = f'from setuptools import setup\nKW = {{"entry_points": {{"console_scripts": ["a = {FN}"]}}}}\nsetup(**KW)\n'
    assert _setup_rows(text) == [("console_scripts", "a", TARGET, 2, 44, True)]


def test_what_cannot_be_folded_is_uncertain_and_reported_when_it_spells_the_name() -> None:
    text = textwrap.dedent('''\
        import os
        from setuptools import setup

        MOD = os.environ["MOD"]
        EP = "verl.trainer.constants_ppo:get_ppo_ray_runtime_env"
        EP = EP.strip()
        setup(entry_points={"console_scripts": [
            f"a = {MOD}:get_ppo_ray_runtime_env",
            f"b = {EP!r}",
            "c = " + EP,
            "d = " + MOD + ":main",
        ]})
        ''')
    rows = _setup_rows(text)
    assert [(g, q, line, certain) for g, _, q, line, _, certain in rows] == [
        ("console_scripts", None, 8, False),
        ("console_scripts", None, 9, False),
        ("console_scripts", None, 10, False),
        ("console_scripts", None, 11, False),
    ]
    found = entry_point_references(setup_py_entry_points(ast.parse(text), text), "setup.py", [TARGET])
    # the one whose text spells the function's name, and those reading ``EP``, one of whose
    # values does (fresh40, MISSED); ``MOD`` (from the environment) names nothing the tool can read
    assert [(d.line, d.column, d.code) for d in found] == [(8, 5, "PPO006"), (9, 5, "PPO006"), (10, 5, "PPO006")]
    assert "(`EP`, which it reads, spells its name)" in found[2].message
    assert found[0].message.startswith(
        '`f"a = {MOD}:get_ppo_ray_runtime_env"` is an entry point of group `console_scripts` built at '
        "run time: cannot tell whether it names the runtime function"
    )
    assert found[0].help.startswith("Declare the entry point with a literal `module:function` value")


def test_a_constant_bound_again_anywhere_is_not_folded() -> None:
    """``EP`` set again in an ``if`` block or through ``global`` in a function: its value at
    the ``setup`` call is not certain, so the entry is uncertain, not folded into the first
    value (which would report, or miss, the wrong function)."""
    text = textwrap.dedent(f'''\
        import sys
        from setuptools import setup
        EP = "a.b:c"
        if sys.argv:
            EP = "{FN}"
        A = "{FN}"
        def later():
            global A
            A = "x:y"
        setup(entry_points={{"g": ["x = " + EP, "y = " + A]}})
        ''')
    found = setup_py_entry_points(ast.parse(text), text)
    assert [(e.value, e.certain) for e in found] == [('"x = " + EP', False), ('"y = " + A', False)]
    # source text is no reference: it names no module an entry point loads
    rebound = textwrap.dedent('''\
        from setuptools import setup
        EPS = {}
        EPS = {"g": []}
        setup(entry_points=EPS)
        ''')
    (entry,) = setup_py_entry_points(ast.parse(rebound), rebound)
    assert (entry.value, entry.module, entry.qualified) == ("EPS", None, None)
    assert loaded_modules([entry]) == frozenset()


def test_setup_py_forms_are_reported_by_check_and_left_by_apply(tmp_path: Path) -> None:
    setup = textwrap.dedent(f'''\
        from setuptools import setup as s

        EP = "{FN}"
        KW = dict(name="p", entry_points={{"console_scripts": ["ray-env = " + EP]}})

        if __name__ == "__main__":
            s(**KW)
        ''')
    root = write_tree(tmp_path / "p", {"setup.py": setup, "requirements.txt": "verl>=0.9.0\n"})
    found = check_findings(root)
    assert [(f["location"]["row"], f["location"]["column"], f["code"], f["fix"]) for f in found] == [
        (4, 55, "PPO006", None),
    ]
    proc = run_cli("apply", "--unsafe-fixes", ".", cwd=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (root / "setup.py").read_text() == setup


# -- Poetry (item 3) -----------------------------------------------------------------------------
def test_poetry_callable_reference_and_file_scripts() -> None:
    assert poetry_reference({"callable": FN}) == FN
    assert poetry_reference({"reference": FN, "type": "console"}) == FN
    assert poetry_reference({"reference": "bin/run.sh", "type": "file"}) is None
    assert poetry_reference({"extras": ["a"]}) is None
    text = textwrap.dedent(f'''\
        [tool.poetry.scripts]
        x = {{ callable = "{FN}" }}
        y = {{ reference = "{FN}", type = "console" }}
        z = {{ reference = "{FN}", type = "file" }}
        ''')
    assert [(e.name, e.line, e.column) for e in pyproject_entry_points(text)] == [("x", 2, 18), ("y", 3, 19)]


# -- escapes (item 4) ----------------------------------------------------------------------------
ESCAPED = f'[project]\nname = "p"\nversion = "0"\n\n[project.scripts]\nx = "{FN[:-1]}\\u0076"\n'


def test_an_escaped_value_is_placed_at_its_key_s_line() -> None:
    (entry,) = pyproject_entry_points(ESCAPED)
    assert (entry.value, entry.line, entry.column, entry.end_column) == (FN, 6, 5, 5 + len(FN) + 7)


def test_the_prefilter_reads_a_pyproject_s_escapes_only() -> None:
    data = ESCAPED.encode()
    assert NAME not in data
    assert spells_escaped("a/pyproject.toml", data, [NAME]) and is_candidate(data, [NAME], "pyproject.toml")
    assert not is_candidate(data, [NAME]) and not is_candidate(data, [NAME], "a/setup.cfg")
    assert not spells_escaped("a/xpyproject.toml", data, [NAME])
    assert not spells_escaped("pyproject.toml", b'x = "\\uD800get_ppo_ray_runtime_en"', [NAME])
    assert unescaped("a\\u0062\\U00000063\\uZZZZ") == "abc\\uZZZZ"
    assert names_any("x = \"get_ppo_ray_runtime_en\\u0076\"", [TARGET])


def test_an_escaped_value_is_reported_by_check(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"pyproject.toml": ESCAPED})
    found = check_findings(root)
    assert [(f["location"]["row"], f["location"]["column"], f["code"]) for f in found] == [(6, 5, "PPO006")]


# -- invalid TOML (item 5) -----------------------------------------------------------------------
def test_invalid_toml_naming_the_function_is_a_ppo902_at_the_parser_s_position(tmp_path: Path) -> None:
    text = f'[project]\nname = "p"\n\n[project.scripts]\nx = "{FN}\n'
    assert pyproject_problem(text) == ("Illegal character '\\n'", 5, 5 + len(FN) + 1)
    assert pyproject_problem('[a]\nb = """\nfoo') == ("Unterminated string", 3, 4)
    assert pyproject_problem(f'x = "{FN}"\n') is None
    root = write_tree(tmp_path / "p", {"pyproject.toml": text})
    (found,) = check_findings(root)
    assert (found["code"], found["location"]["row"], found["location"]["column"]) == ("PPO902", 5, 5 + len(FN) + 1)
    assert found["message"] == "not valid TOML: Illegal character '\\n'; its entry points cannot be read"
    # one that does not name the function is not read at all
    assert entry_point_references((), "pyproject.toml", [TARGET], text='[x\ny = "other"\n') == []


# -- help line (item 6) --------------------------------------------------------------------------
def test_entry_points_have_their_own_help_line() -> None:
    text = f'[project.scripts]\nx = "{FN}"\n[project.entry-points.g]\ny = "{FN}"\n'
    found = entry_point_references(pyproject_entry_points(text), "pyproject.toml", [TARGET], text=text)
    assert [d.help for d in found] == [
        "Point the script at a function of the project that obtains the training config and passes it",
        "Make the loader pass the config, or point the entry point at a function that obtains it and "
        "passes it; then mark it `# noqa: PPO006`",
    ]
    shown = block(found[0], text.splitlines())
    assert shown.splitlines()[-1] == f"  = help: {found[0].help}"
    # a finding with no help of its own keeps the rule's remedy
    plain = Diagnostic("a.py", 1, 1, 1, 2, "PPO006", "m")
    assert block(plain, None).splitlines()[-1].startswith("  = help: Pass the config where the value is called")


# -- multi-line values and noqa (item 8) ---------------------------------------------------------
MULTI = textwrap.dedent(f'''\
    [project.scripts]
    a = """
    {FN}"""  # noqa: PPO006
    b = """
    {FN}"""
    c = """{FN}"""  # it's "quoted", not a string
    d = \'\'\'{FN}\'\'\'
    e = "{FN}"
    ''')


def test_a_multi_line_value_spans_its_literal_and_takes_noqa_on_either_line() -> None:
    entries = pyproject_entry_points(MULTI)
    assert [(e.name, e.line, e.column, e.end_line) for e in entries] == [
        ("a", 2, 5, 3), ("b", 4, 5, 5), ("c", 6, 5, 6), ("d", 7, 5, 7), ("e", 8, 5, 8),
    ]
    comments = toml_comments(MULTI)
    assert comments[2] == "# noqa: PPO006" and comments[1] == "" and comments[4] == ""
    assert comments[5] == '# it\'s "quoted", not a string'
    found = entry_point_references(entries, "pyproject.toml", [TARGET], text=MULTI)
    assert [d.line for d in found] == [4, 6, 7, 8]
    on_key = MULTI.replace('b = """\n', 'b = """  # noqa: PPO006\n')
    assert toml_comments(on_key)[3] == ""  # inside the string: no comment, and no noqa
    key_line = MULTI.replace('b = """\n', 'b = """\\\n')
    assert [d.line for d in entry_point_references(
        pyproject_entry_points(key_line), "pyproject.toml", [TARGET], text=key_line)] == [4, 6, 7, 8]


def test_noqa_after_the_closing_quotes_is_read_by_check(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"pyproject.toml": MULTI})
    found = check_findings(root)
    assert [(f["location"]["row"], f["end_location"]["row"]) for f in found] == [(4, 5), (6, 6), (7, 7), (8, 8)]


def test_the_project_still_loads_its_entry_point_after_apply(tmp_path: Path) -> None:
    """Nothing is rewritten: the packaging file's bytes are the same after ``apply`` and the
    entry point, loaded as a plugin host does, still reaches verl's function."""
    root = write_tree(tmp_path / "p", {
        "pyproject.toml": ESCAPED,
        "train.py": textwrap.dedent('''\
            import tomllib
            from importlib import import_module

            with open("pyproject.toml", "rb") as f:
                value = tomllib.load(f)["project"]["scripts"]["x"]
            module, _, name = value.partition(":")
            print("ran", getattr(import_module(module), name)())
            '''),
    })
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran None"
    before = (root / "pyproject.toml").read_bytes()
    proc = run_cli("apply", "--unsafe-fixes", ".", cwd=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (root / "pyproject.toml").read_bytes() == before
    assert project_ran(root, site) == "ran None"


def test_a_setup_cfg_configparser_refuses_is_a_ppo902_too(tmp_path: Path) -> None:
    text = f"console_scripts = env = {FN}\n[metadata]\nname = p\n"
    root = write_tree(tmp_path / "p", {"setup.cfg": text})
    (found,) = check_findings(root)
    assert (found["code"], found["location"]["row"], found["location"]["column"]) == ("PPO902", 1, 1)
    assert found["message"] == (
        "not valid setup.cfg: no section header before the first line; its entry points cannot be read"
    )
    broken = f"[options.entry_points]\nconsole_scripts =\n    env = {FN}\nstray\n"
    (d,) = entry_point_references((), "setup.cfg", [TARGET], text=broken)
    assert (d.code, d.line) == ("PPO902", 4)
