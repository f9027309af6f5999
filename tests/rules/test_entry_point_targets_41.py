"""Entry points a fresh user's try found slow, misreported or missed (fresh41: H1, W0-W5, W7,
MISSED M1, M2, M4-M6).

H1: placing the entry points of a ``pyproject.toml`` searched the whole text for each value
and parsed every occurrence's key: quadratic (1,000 scripts 13.7 s, 60,000 never finished).
Each test asserts the place, code and text the code before these fixes did not give.
"""

from __future__ import annotations

import time

import tomllib
from ppo_migrate.project import entry_points as ep
from ppo_migrate.project.entry_points import pyproject_entry_points

FN = "verl.trainer.constants_ppo:get_ppo_ray_runtime_env"
TARGET = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"


# -- H1: linear time ------------------------------------------------------------------------------
def _many_scripts(n: int) -> str:
    body = "".join(f'n{i} = "os:getcwd"\n' for i in range(n))
    return f'[project]\nname = "h1"\nversion = "0.1"\n[project.scripts]\n{body}z = "{FN}"\n'


def test_five_thousand_scripts_are_placed_in_well_under_a_second(monkeypatch) -> None:
    text = _many_scripts(5000)
    calls = []
    real = tomllib.loads
    monkeypatch.setattr(tomllib, "loads", lambda s, **kw: (calls.append(len(s)), real(s, **kw))[1])
    start = time.process_time()
    found = pyproject_entry_points(text)
    spent = time.process_time() - start
    assert spent < 2.0, spent
    assert len(found) == 5001
    # each entry at its own line and column, the last one the function's
    assert (found[0].name, found[0].line, found[0].column, found[0].end_column) == ("n0", 5, 6, 17)
    assert (found[-1].name, found[-1].value, found[-1].line, found[-1].column) == ("z", FN, 5005, 5)
    assert [e.line for e in found] == list(range(5, 5006))
    # tomllib reads the file once and each header once: no parse per value or occurrence
    assert len(calls) == 3, calls[:5]


def test_placing_is_linear_in_the_number_of_entries() -> None:
    def spent(n: int) -> float:
        text = _many_scripts(n)
        start = time.process_time()
        pyproject_entry_points(text)
        return time.process_time() - start

    small, large = min(spent(1000) for _ in range(2)), min(spent(8000) for _ in range(2))
    # 8 times the entries: linear is about 8 times the time; the quadratic search was ~64
    assert large < 25 * small + 0.05, (small, large)


def test_a_broken_file_s_many_mentions_are_placed_by_look_up() -> None:
    text = "".join(f'# get_ppo_ray_runtime_env {i}\nk{i} = "x"\n' for i in range(5000)) + "x = = 1\n"
    start = time.process_time()
    assert ep.named_outside_entry_points("pyproject.toml", text, ["get_ppo_ray_runtime_env"]) == "a comment"
    assert time.process_time() - start < 2.0


# -- W0: setup.cfg's noqa goes above the entry; a comment after the value is a PPO902 ---------------
def _cfg(entries: str) -> str:
    return f"[metadata]\nname = w0\nversion = 0.1\n[options]\npy_modules =\n[options.entry_points]\n{entries}"


def _cfg_found(text: str) -> list[tuple]:
    from ppo_migrate.project.entry_points import setup_cfg_entry_points
    from ppo_migrate.rules.entry_point_targets import entry_point_references

    return [(d.line, d.column, d.code, d.message, d.help) for d in entry_point_references(
        setup_cfg_entry_points(text), "setup.cfg", [TARGET], text=text)]


def test_setup_cfg_help_offers_a_noqa_line_above_the_entry() -> None:
    ((line, column, code, _, help_line),) = _cfg_found(_cfg(f"grp =\n    a = {FN}\n"))
    assert (line, column, code) == (8, 9, "PPO006")
    assert help_line == (
        "Make the loader pass the config, or point the entry point at a function that obtains it and "
        "passes it; then put `# noqa: PPO006` on a line of its own above it (in setup.cfg a comment "
        "after a value is part of the value)")
    # pyproject keeps its own help
    from ppo_migrate.rules.entry_point_targets import entry_point_references

    text = f'[project.entry-points.grp]\na = "{FN}"\n'
    (d,) = entry_point_references(pyproject_entry_points(text), "pyproject.toml", [TARGET], text=text)
    assert d.help.endswith("then mark it `# noqa: PPO006`")


def test_a_noqa_after_a_setup_cfg_value_is_a_ppo902_not_a_suppression() -> None:
    ((line, column, code, message, _),) = _cfg_found(_cfg(f"grp =\n    a = {FN}  # noqa: PPO006\n"))
    assert (line, column, code) == (8, 9, "PPO902")
    assert message == (
        f"`{FN}  # noqa: PPO006` is not a valid entry point value (`module:attribute`) for `a` of "
        "group `grp`: setuptools and pip refuse the package; a comment after a value is part of the "
        "value in this file: move it to a line of its own above the entry (`# noqa: PPO006` there is read)")


def test_a_noqa_line_above_a_setup_cfg_entry_suppresses_that_entry_only() -> None:
    text = _cfg(f"grp =\n    # noqa: PPO006\n    a = {FN}\n    b = {FN}\n")
    assert [(line, code) for line, _, code, _, _ in _cfg_found(text)] == [(10, "PPO006")]
    # configparser (and so setuptools) reads both entries: the comment line is skipped
    from ppo_migrate.project.entry_points import setup_cfg_entry_points

    assert [(e.name, e.value) for e in setup_cfg_entry_points(text)] == [("a", FN), ("b", FN)]


# -- W1: Poetry table scripts as a dotted key or a sub-table ----------------------------------------
POETRY = f'''[tool.poetry]
name = "w1"
scripts.d = {{ reference = "{FN}", type = "console" }}
scripts."e".callable = "{FN}"

[tool.poetry.scripts.f]
reference = "{FN}"
'''
POETRY_TABLE = f'''[tool.poetry]
name = "w1"

[tool.poetry.scripts]
g = {{ reference = "{FN}" }}
h.callable = "{FN}"  # noqa: PPO006
'''


def _placed(text: str) -> list[tuple]:
    from ppo_migrate.rules.entry_point_targets import entry_point_references

    return [(d.line, d.column, d.code) for d in entry_point_references(
        pyproject_entry_points(text), "pyproject.toml", [TARGET], text=text)]


def test_poetry_table_scripts_are_placed_at_their_reference() -> None:
    rows = [(e.name, e.line, e.column, e.end_column) for e in pyproject_entry_points(POETRY)]
    assert rows == [("d", 3, 27, 79), ("e", 4, 24, 76), ("f", 7, 13, 65)]
    rows = [(e.name, e.line, e.column, e.end_column) for e in pyproject_entry_points(POETRY_TABLE)]
    assert rows == [("g", 5, 19, 71), ("h", 6, 14, 66)]
    # each key's own noqa is read; one on line 1 or a header no longer hides them
    assert _placed(POETRY) == [(3, 27, "PPO006"), (4, 24, "PPO006"), (7, 13, "PPO006")]
    assert _placed(POETRY_TABLE) == [(5, 19, "PPO006")]
    header = POETRY.replace("[tool.poetry]\n", "[tool.poetry]  # noqa: PPO006\n")
    assert len(_placed(header)) == 3


# -- W2, W3, W4, M4: setup.cfg read as configparser and setuptools read it ------------------------
def _cfg_rows(text: str) -> list[tuple]:
    from ppo_migrate.project.entry_points import setup_cfg_entry_points

    return [(e.group, e.name, e.line, e.column, e.end_column) for e in setup_cfg_entry_points(text)]


def test_a_comment_after_the_section_header_keeps_each_entry_at_its_line() -> None:
    text = f"[metadata]\nname = w2\n\n[options.entry_points]  # our plugins\ngrp =\n    a = {FN}\n"
    assert _cfg_rows(text) == [("grp", "a", 6, 9, 59)]


def test_interpolated_lines_are_placed_at_their_own_line() -> None:
    text = (f"[metadata]\nname = w3\n\n[options.entry_points]\nbase = r = {FN}\n"
            f"console_scripts =\n    %(base)s\n    b = {FN}\n")
    assert _cfg_rows(text) == [("base", "r", 5, 12, 62), ("console_scripts", "r", 7, 5, 13),
                               ("console_scripts", "b", 8, 9, 59)]
    # a one-line value read from [DEFAULT] is at its own line, not the header
    text = f"[metadata]\nname = w3\n[DEFAULT]\nep = a = {FN}\n[options.entry_points]\nconsole_scripts = %(ep)s\n"
    assert _cfg_rows(text) == [("console_scripts", "a", 6, 19, 25), ("ep", "a", 4, 10, 60)]


def test_dashed_group_names_are_read_with_the_name_older_setuptools_gave_them() -> None:
    # fresh41 W4 made them underscores, as setuptools < 78 does; fresh42 W1': 78.0.0 and later
    # keep them as written, so both names are kept (the message: test_entry_point_targets_42)
    text = f"[metadata]\nname = w4\n[options.entry_points]\nconsole-scripts = b = {FN}\nmy-grp = a = {FN}\n"
    assert [(e.group, e.legacy_group, e.name, e.line, e.column, e.end_column)
            for e in ep.setup_cfg_entry_points(text)] == [("console-scripts", "console_scripts", "b", 4, 23, 73),
                                                          ("my-grp", "my_grp", "a", 5, 14, 64)]
    ((_, _, _, message, help_line), _) = _cfg_found(text)
    assert message.startswith(f"`{FN}` is declared as the entry point `b` of group `console-scripts` "
                              "(`console_scripts`, a script whose wrapper calls it with no arguments, with ")
    assert help_line.startswith("Write the group `console_scripts` (setuptools >= 78 installs no script")
    # of two options setuptools < 78 took for one group it kept the later; newer ones keep both
    both = (f"[metadata]\nname = w4\n[options.entry_points]\nconsole_scripts = a = os:getcwd\n"
            f"console-scripts = b = {FN}\n")
    assert _cfg_rows(both) == [("console_scripts", "a", 4, 23, 32), ("console-scripts", "b", 5, 23, 73)]


def test_entry_points_given_as_ini_text_in_options_are_read() -> None:
    text = (f"[metadata]\nname = m4\n[options]\npy_modules =\nentry_points =\n    [console_scripts]\n"
            f"    a = {FN}\n    # b = {FN}\n")
    assert _cfg_rows(text) == [("console_scripts", "a", 7, 9, 59)]
    ((line, column, code, message, _),) = _cfg_found(text)
    assert (line, column, code) == (7, 9, "PPO006") and "the script `a` (`console_scripts`)" in message


# -- M1, M2, M6, W7: the files setuptools reads entry points from ----------------------------------
TOML_DYNAMIC = ('[project]\nname = "m1"\nversion = "0.1"\ndynamic = ["entry-points"]\n[tool.setuptools]\n'
                'py-modules = []\n[tool.setuptools.dynamic]\nentry-points = {file = ["ep.cfg"]}\n')
CFG_FILES = "[metadata]\nname = m2\nversion = 0.1\n[options]\npy_modules =\nentry_points = file: a.cfg, b.cfg\n"


def _rows(found: list[dict], root) -> list[tuple]:
    from pathlib import Path

    return [(Path(f["filename"]).relative_to(root).as_posix(), f["location"]["row"], f["location"]["column"],
             f["code"]) for f in sorted(found, key=lambda f: f["filename"])]


def test_a_pyproject_entry_points_file_is_interpolated(tmp_path) -> None:
    from cli_helpers import check_findings, write_tree

    ep_cfg = "[grp]\nmod = verl.trainer.constants_ppo\na = %(mod)s:get_ppo_ray_runtime_env\n"
    root = write_tree(tmp_path / "p", {"pyproject.toml": TOML_DYNAMIC, "ep.cfg": ep_cfg})
    (found,) = check_findings(root)
    assert _rows([found], root) == [("pyproject.toml", 8, 25, "PPO006")]
    assert found["message"].startswith(
        f"`{FN}` is declared in `ep.cfg` (line 3, read through this `file` reference) as the entry point "
        "`a` of group `grp`")


def test_several_files_are_one_text_and_a_semicolon_line_is_an_entry(tmp_path) -> None:
    from cli_helpers import check_findings, write_tree

    root = write_tree(tmp_path / "p", {
        "setup.cfg": CFG_FILES, "a.cfg": "[grp]\nx = os:getcwd\n", "b.cfg": f"y = {FN}\n",
        "q/setup.cfg": CFG_FILES, "q/a.cfg": f"[console_scripts]\n; a = {FN}\n# b = {FN}\n", "q/b.cfg": "\n",
    })
    found = check_findings(root)
    assert _rows(found, root) == [("q/setup.cfg", 6, 22, "PPO006"), ("setup.cfg", 6, 29, "PPO006")]
    messages = sorted(f["message"] for f in found)
    # b.cfg has no header: it continues a.cfg's [grp], as setuptools joins the files
    assert messages[1].startswith(f"`{FN}` is declared in `b.cfg` (line 1, read through this `file` "
                                  "reference) as the entry point `y` of group `grp`")
    # setup.cfg's file: is read by the entry points line reader: `;` starts no comment there
    assert messages[0].startswith(f"`{FN}` is declared in `a.cfg` (line 2, read through this `file` "
                                  "reference) as the script `; a` (`console_scripts`)")


def test_entry_points_files_setuptools_refuses_are_a_ppo902(tmp_path) -> None:
    from cli_helpers import check_findings, write_tree

    twice = f"[grp]\na = {FN}\na = os:getcwd\n"
    root = write_tree(tmp_path / "p", {"pyproject.toml": TOML_DYNAMIC, "ep.cfg": twice,
                                       "u/pyproject.toml": TOML_DYNAMIC, "u/ep.cfg": ""})
    (root / "u" / "ep.cfg").write_bytes(b"[grp]\n# \xff\xfe\na = " + FN.encode() + b"\n")
    found = sorted(check_findings(root), key=lambda f: f["filename"])
    assert _rows(found, root) == [("pyproject.toml", 8, 25, "PPO902"), ("u/pyproject.toml", 8, 25, "PPO902")]
    assert found[0]["message"] == (
        "not a valid entry points file `ep.cfg` (line 3, read through this `file` reference): the option "
        "`a` is written twice in `[grp]` (setuptools' parser is strict); setuptools refuses the package, "
        "and its entry points cannot be read")
    assert found[1]["message"].startswith(
        "not a valid entry points file `ep.cfg` (line 2, read through this `file` reference): it is not "
        "UTF-8 text (invalid start byte at byte 8)")


def test_a_setup_cfg_with_a_byte_order_mark_is_a_ppo902(tmp_path) -> None:
    from cli_helpers import check_findings, write_tree

    root = write_tree(tmp_path / "p", {})
    body = f"[metadata]\nname = f7\n[options.entry_points]\nconsole_scripts = a = {FN}\n"
    (root / "setup.cfg").write_bytes(b"\xef\xbb\xbf" + body.encode())
    (found,) = check_findings(root)
    assert _rows([found], root) == [("setup.cfg", 1, 1, "PPO902")]
    assert found["message"] == (
        "not valid setup.cfg: a UTF-8 byte order mark starts the file, which setuptools reads as text "
        "before the first section header; its entry points cannot be read")


# -- W5: a broken file that declares entry points cannot tell -------------------------------------
def _broken(text: str, path: str) -> list[tuple]:
    from ppo_migrate.rules.entry_point_targets import entry_point_references

    return [(d.line, d.column, d.code, d.message) for d in entry_point_references((), path, [TARGET], text=text)]


def test_a_broken_file_declaring_entry_points_does_not_claim_none() -> None:
    toml = ('[project]\nname = "w5"\n[project.scripts]\nrun-env = "mypkg:get_env"  # wraps get_ppo_ray_runtime_env\n'
            'x = = 1\n')
    assert _broken(toml, "pyproject.toml") == [(5, 5, "PPO902", (
        "not valid TOML: Invalid value; it spells the runtime function's name only in a comment, but it "
        "declares entry points, which cannot be read: cannot tell whether one names the function (a "
        "re-export of it, say)"))]
    escaped = ('[project]\nname = "w5"\n[project.scripts]\n'
               'b = "verl.trainer.constants_ppo:get_ppo_ray_\\u0072untime_env"\n'
               '# get_ppo_ray_runtime_env\nx = = 1\n')
    assert _broken(escaped, "pyproject.toml")[0][3] == "not valid TOML: Invalid value; its entry points cannot be read"
    cfg = ("[metadata]\nname = w5\n[options.entry_points]\n# wraps get_ppo_ray_runtime_env\n"
           "console_scripts = run-env = mypkg:get_env\n[metadata]\n")
    ((line, _, code, message),) = _broken(cfg, "setup.cfg")
    assert (line, code) == (6, "PPO902")
    assert message.endswith("it spells the runtime function's name only in a comment, but it declares entry "
                            "points, which cannot be read: cannot tell whether one names the function (a "
                            "re-export of it, say)")
    # no entry point table: the message still says so
    description = '[project]\nname = "w5"\ndescription = "get_ppo_ray_runtime_env"\nx = = 1\n'
    assert _broken(description, "pyproject.toml")[0][3].endswith(
        "it names the runtime function only in `project.description`, which declares no entry point, but "
        "packaging tools refuse the file as it stands")


# -- M5: setup.py values from imports, functions, tuple unpacking, helpers --------------------------
def _setup_rows(tmp_path, setup_py: str, extra: dict | None = None) -> list[tuple]:
    from cli_helpers import check_findings, write_tree

    root = write_tree(tmp_path / "p", {"setup.py": setup_py, **(extra or {})})
    return [(f["location"]["row"], f["location"]["column"], f["code"], f["message"]) for f in check_findings(root)]


def test_a_setup_py_value_from_an_imported_module_is_a_cannot_tell(tmp_path) -> None:
    setup_py = ("from setuptools import setup\nfrom _eps import EPS\n"
                "setup(name='m5', version='0.1', py_modules=[], entry_points=EPS)\n")
    eps = f'EPS = {{"grp": ["z = {FN}"]}}\n'
    ((line, column, code, message),) = _setup_rows(tmp_path, setup_py, {"_eps.py": eps})
    assert (line, column, code) == (3, 61, "PPO006")
    assert message.startswith("`EPS` is `setup(entry_points=...)` built at run time: cannot tell whether it "
                              "names the runtime function (`EPS` (from `_eps`), which it reads, spells its name)")


def test_function_tuple_and_helper_values_are_a_cannot_tell(tmp_path) -> None:
    setup_py = (
        "from setuptools import setup\n"
        "def more():\n"
        f"    return ['a = {FN}']\n"
        f"EP, X = '{FN}', 1\n"
        "setup(name='m5', py_modules=[], entry_points={'grp2': more(), 'grp3': ['b = ' + EP]})\n"
    )
    rows = _setup_rows(tmp_path, setup_py)
    assert [(line, column, code) for line, column, code, _ in rows] == [(5, 55, "PPO006"), (5, 72, "PPO006")]
    assert rows[0][3].startswith("`more()` is an entry point of group `grp2` built at run time: cannot tell "
                                 "whether it names the runtime function (`more`, which it reads, spells its name)")
    assert rows[1][3].startswith("`'b = ' + EP` is an entry point of group `grp3` built at run time: cannot "
                                 "tell whether it names the runtime function (`EP`, which it reads, spells its name)")
    helper = (
        "from setuptools import setup\nEPS = {'grp': ['x = os:getcwd']}\n"
        f"def add(d):\n    d['grp'] = ['a = {FN}']\nadd(EPS)\n"
        "setup(name='m5', py_modules=[], entry_points=EPS)\n"
    )
    ((line, column, code, message),) = _setup_rows(tmp_path / "h", helper)
    assert (line, column, code) == (6, 46, "PPO006")
    assert message.startswith("`EPS` is `setup(entry_points=...)` built at run time: cannot tell")


# -- W8: --stdin-filename of a configuration file is not parsed as Python ---------------------------
def test_stdin_named_as_a_config_file_is_not_parsed_as_python(tmp_path) -> None:
    from cli_helpers import run_cli

    body = f"[grp]\na = {FN}\n".encode()
    proc = run_cli("check", "--output-format", "concise", "--stdin-filename", "ep.cfg", "-", cwd=tmp_path, input=body)
    assert (proc.returncode, proc.stdout.strip()) == (0, "All checks passed!"), proc.stdout + proc.stderr
    proc = run_cli("apply", "--stdin-filename", "ep.cfg", "-", cwd=tmp_path, input=body)
    assert proc.returncode == 0 and proc.stdout == body.decode(), proc.stdout + proc.stderr
    # a Python name is still analysed
    code = b"from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\nget_ppo_ray_runtime_env()\n"
    proc = run_cli("check", "--output-format", "concise", "--stdin-filename", "a.py", "-", cwd=tmp_path, input=code)
    assert proc.returncode == 1 and "a.py:2:1: PPO002" in proc.stdout, proc.stdout + proc.stderr
