"""``ppo-migrate check`` through the real executable: exit codes, every output format,
suppression, ``--add-noqa``, rule selection, rule docs, ``--show-files``, standard input.

The sample tree holds one PPO001 (in a directory named ``a%b,c``, on a line with
non-ASCII text before the call, so columns are checked as code points) and one
PPO002, plus a clean call and a file that never names the target.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cli_helpers import declare_verl, run_cli

HERE = Path(__file__).resolve().parents[1]  # tests/
IMPORT = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
CALL = "get_ppo_ray_runtime_env("

TRAINER = (
    IMPORT
    + "\n\n"
    + "def run_ppo(config):\n"
    + '    label = "日本語"; ray.init(runtime_env=get_ppo_ray_runtime_env())\n'
)
SERVER = IMPORT + "\n\n" + "def init_ray(address):\n" + "    ray.init(address, runtime_env=get_ppo_ray_runtime_env())\n"
CLEAN = IMPORT + "\n\n" + "def main(config):\n" + "    return get_ppo_ray_runtime_env(config)\n"
OTHER = "import os\n\nprint(os.getcwd())\n"
BROKEN = IMPORT + "\ndef f(:\n    pass\n"

TRAINER_PATH = "a%b,c/trainer.py"


def _load_sarif_checker():
    spec = importlib.util.spec_from_file_location(
        "_ppo_sarif_checks", HERE / "output" / "test_sarif_format.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.check_sarif


check_sarif = _load_sarif_checker()


def _command() -> list[str]:
    exe = shutil.which("ppo-migrate")
    if exe is None:  # pragma: no cover - installed editable in the dev setup
        return [sys.executable, "-m", "ppo_migrate"]
    return [exe]


def ppo(*args: str, cwd: Path, stdin: str | None = None, process: bool = False):
    """Run ``ppo-migrate ARGS`` in ``cwd`` (in this process unless ``process``); output
    decoded as UTF-8."""
    return run_cli(
        *args,
        cwd=cwd,
        input=None if stdin is None else stdin.encode("utf-8"),
        env={"PYTHONIOENCODING": "utf-8", "NO_COLOR": "1"},
        process=process,
    )


def ppo_many(runs: list[tuple[str, ...]], *, cwd: Path, process: bool = False) -> list:
    """Run several read-only ``ppo-migrate`` invocations, results in order (concurrently
    when they are processes)."""
    if not process:
        return [ppo(*args, cwd=cwd) for args in runs]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1, len(runs))) as pool:
        return list(pool.map(lambda args: ppo(*args, cwd=cwd, process=True), runs))


def write_tree(root: Path, files: dict[str, str], pyproject: str = "[tool.ppo-migrate]\n") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return declare_verl(root)  # issue 26: the tree declares the verl it runs


TREE = {TRAINER_PATH: TRAINER, "server.py": SERVER, "clean.py": CLEAN, "other.py": OTHER}
FORMATS = ("concise", "json", "github", "sarif", "junit")


@pytest.fixture(scope="module")
def shared_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One PPO001, one PPO002, a clean call and an unrelated file; never modified."""
    return write_tree(tmp_path_factory.mktemp("shared") / "proj", TREE)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A private copy of the sample tree, for tests that change files."""
    return write_tree(tmp_path / "proj", TREE)


@pytest.fixture(scope="module")
def outputs(shared_tree: Path) -> dict[str, subprocess.CompletedProcess[str]]:
    """``check --output-format F`` on the sample tree, for every format."""
    runs = ppo_many([("check", "--output-format", f) for f in FORMATS], cwd=shared_tree)
    return dict(zip(FORMATS, runs))


@pytest.fixture(scope="module")
def clean_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tree(tmp_path_factory.mktemp("clean") / "proj", {"clean.py": CLEAN, "other.py": OTHER})


def position(text: str, occurrence: int = 0) -> tuple[int, int, int, int]:
    """1-based (line, column, end_line, end_column) of a ``get_ppo_ray_runtime_env()`` call,
    columns in code points."""
    lines = text.splitlines()
    found = [(i, line) for i, line in enumerate(lines, 1) if CALL in line and "import" not in line]
    lineno, line = found[occurrence]
    start = line.index(CALL)
    end = line.index(")", start) + 1
    return lineno, start + 1, lineno, end + 1


TRAINER_POS = position(TRAINER)
SERVER_POS = position(SERVER)


# ---------------------------------------------------------------- exit codes, concise


def test_findings_exit_1_concise(outputs: dict[str, subprocess.CompletedProcess[str]]) -> None:
    r = outputs["concise"]
    assert r.returncode == 1, r.stderr
    line, col, _, _ = TRAINER_POS
    assert f"{TRAINER_PATH}:{line}:{col}: PPO001 [*] " in r.stdout
    line, col, _, _ = SERVER_POS
    assert f"server.py:{line}:{col}: PPO002 " in r.stdout
    assert "Found 2 errors." in r.stdout
    assert "[*] 1 fixable with `ppo-migrate apply`." in r.stdout
    lines = [x for x in r.stdout.splitlines() if ": PPO" in x]
    assert [x.split(":")[0] for x in lines] == [TRAINER_PATH, "server.py"]  # sorted by path


def test_exit_codes(shared_tree: Path) -> None:
    exit_zero, unknown_option, unknown_format = ppo_many(
        [("check", "--exit-zero"), ("check", "--no-such-option"), ("check", "--output-format", "xml")],
        cwd=shared_tree,
    )
    assert exit_zero.returncode == 0, exit_zero.stderr
    assert "Found 2 errors." in exit_zero.stdout  # still reported
    assert unknown_option.returncode == 2
    assert "No such option" in unknown_option.stderr
    assert unknown_format.returncode == 2


def test_exit_zero_never_hides_a_configuration_error(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "bad", {"server.py": SERVER}, "[tool.ppo-migrate]\nno-such-key = 1\n")
    r = ppo("check", "--exit-zero", cwd=root)
    assert r.returncode == 2
    assert "no-such-key" in r.stderr


def test_clean_tree_every_format(clean_tree: Path) -> None:
    runs = dict(zip(FORMATS, ppo_many([("check", "--output-format", f) for f in FORMATS], cwd=clean_tree)))
    for fmt, r in runs.items():
        assert r.returncode == 0, (fmt, r.stdout, r.stderr)
    assert "All checks passed!" in runs["concise"].stdout
    assert json.loads(runs["json"].stdout) == []
    assert runs["github"].stdout == ""
    log = json.loads(runs["sarif"].stdout)
    check_sarif(log)
    assert log["runs"][0]["results"] == []
    cases = ET.fromstring(runs["junit"].stdout.encode("utf-8")).findall("testsuite/testcase")
    assert len(cases) == 1 and list(cases[0]) == []  # one passing testcase


# ---------------------------------------------------------------- formats


def test_json(shared_tree: Path, outputs: dict[str, subprocess.CompletedProcess[str]]) -> None:
    r = outputs["json"]
    assert r.returncode == 1, r.stderr
    data = json.loads(r.stdout)
    assert [d["code"] for d in data] == ["PPO001", "PPO002"]
    first, second = data
    assert first["filename"] == str(shared_tree / "a%b,c" / "trainer.py")
    assert second["filename"] == str(shared_tree / "server.py")
    line, col, end_line, end_col = TRAINER_POS  # code points: "日本語" counts 3
    assert first["location"] == {"row": line, "column": col}
    assert first["end_location"] == {"row": end_line, "column": end_col}
    assert second["location"] == {"row": SERVER_POS[0], "column": SERVER_POS[1]}
    assert first["scope"] == "run_ppo" and second["scope"] == "init_ray"
    assert first["url"].endswith("/docs/rules/PPO001.md")
    assert second["fix"] is None
    fix = first["fix"]
    assert fix["applicability"] == "safe"
    (edit,) = fix["edits"]
    # applying the edit (code-point columns) gives the rewritten call
    text = TRAINER.splitlines()[edit["location"]["row"] - 1]
    start, end = edit["location"]["column"] - 1, edit["end_location"]["column"] - 1
    assert text[:start] + edit["content"] + text[end:] == text.replace(
        "get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config)"
    )


def test_github(outputs: dict[str, subprocess.CompletedProcess[str]]) -> None:
    r = outputs["github"]
    assert r.returncode == 1, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 2
    line, col, end_line, end_col = TRAINER_POS
    assert lines[0] == (
        f"::error title=ppo-migrate (PPO001),file=a%25b%2Cc/trainer.py,line={line},col={col},"
        f"endLine={end_line},endColumn={end_col}::PPO001 `get_ppo_ray_runtime_env()` called "
        "without the config in scope; pass `config`"
    )
    line, col, end_line, end_col = SERVER_POS
    assert lines[1].startswith(
        f"::error title=ppo-migrate (PPO002),file=server.py,line={line},col={col},"
        f"endLine={end_line},endColumn={end_col}::PPO002 "
    )


def test_sarif(outputs: dict[str, subprocess.CompletedProcess[str]]) -> None:
    r = outputs["sarif"]
    assert r.returncode == 1, r.stderr
    log = json.loads(r.stdout)
    check_sarif(log)
    results = log["runs"][0]["results"]
    assert [x["ruleId"] for x in results] == ["PPO001", "PPO002"]
    phys = results[0]["locations"][0]["physicalLocation"]
    assert phys["artifactLocation"]["uri"] == "a%25b%2Cc/trainer.py"
    line, col, end_line, end_col = TRAINER_POS
    assert phys["region"] == {
        "startLine": line,
        "startColumn": col,
        "endLine": end_line,
        "endColumn": end_col,
    }
    replacement = results[0]["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert replacement["insertedContent"] == {"text": "config"}
    assert "fixes" not in results[1]


def test_junit(outputs: dict[str, subprocess.CompletedProcess[str]]) -> None:
    r = outputs["junit"]
    assert r.returncode == 1, r.stderr
    root = ET.fromstring(r.stdout.encode("utf-8"))
    suite = root.find("testsuite")
    assert suite is not None and suite.get("name") == "ppo-migrate"
    assert (suite.get("tests"), suite.get("failures")) == ("2", "2")
    cases = suite.findall("testcase")
    failures = [c.find("failure") for c in cases]
    assert [f.get("type") for f in failures if f is not None] == ["PPO001", "PPO002"]
    assert cases[0].get("file") == TRAINER_PATH


def test_uris_repository_relative_and_format_from_pyproject(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)  # a sub-project of a git repository
    project = write_tree(
        tmp_path / "repo" / "svc",
        {"pkg/inner.py": SERVER},
        '[tool.ppo-migrate]\noutput-format = "sarif"\n',
    )
    from_file, from_flag = ppo_many(
        [("check", "."), ("check", ".", "--output-format", "github")], cwd=project / "pkg"
    )
    assert from_file.returncode == 1, from_file.stderr
    log = json.loads(from_file.stdout)  # output-format from [tool.ppo-migrate]
    check_sarif(log)
    (result,) = log["runs"][0]["results"]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "svc/pkg/inner.py"
    assert from_flag.stdout.startswith("::error title=ppo-migrate (PPO002),file=svc/pkg/inner.py,")


def test_order_does_not_depend_on_worker_count(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PPO_MIGRATE_TEST_FORCE_POOL", "1")  # -j 4: the pool, small as it is
    files = {f"m{i}/server.py": SERVER for i in range(5)}
    files.update({f"t{i}.py": TRAINER for i in range(5)})
    root = write_tree(tmp_path / "many", files)
    one, four = ppo_many(
        [("check", "-j", "1", "--output-format", "json"), ("check", "-j", "4", "--output-format", "json")],
        cwd=root,
    )
    assert one.returncode == four.returncode == 1
    assert one.stdout == four.stdout
    names = [(d["filename"], d["location"]["row"]) for d in json.loads(one.stdout)]
    assert names == sorted(names) and len(names) == 10


SHIM = (
    IMPORT
    + "\n\ndef run(config):\n"
    + "    try:\n"
    + "        env = get_ppo_ray_runtime_env(config)\n"
    + "    except TypeError:  # verl before PR #6976\n"
    + "        env = get_ppo_ray_runtime_env()\n"
    + "    return env\n"
)


def test_compatibility_shims_are_not_errors_in_any_format(tmp_path: Path) -> None:
    """Bug: a PPO004 listed with --show-shims was an error in every format ("Found 1 error.",
    a JUnit failure, SARIF level "error", a GitHub ``::error``) although the exit code is 0."""
    root = write_tree(tmp_path / "s", {"shim.py": SHIM})
    runs = dict(
        zip(FORMATS, ppo_many([("check", "--show-shims", "--output-format", f) for f in FORMATS], cwd=root))
    )
    for fmt, r in runs.items():
        assert r.returncode == 0, (fmt, r.stdout, r.stderr)
    assert runs["concise"].stdout.splitlines()[1:] == [
        "All checks passed!",
        "1 compatibility shim listed (not an error).",
    ]
    assert runs["concise"].stdout.startswith("shim.py:8:15: PPO004 ")
    assert runs["github"].stdout.startswith("::notice title=ppo-migrate (PPO004),file=shim.py,line=8,")
    log = json.loads(runs["sarif"].stdout)
    check_sarif(log)
    assert [x["level"] for x in log["runs"][0]["results"]] == ["note"]
    suite = ET.fromstring(runs["junit"].stdout.encode("utf-8")).find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("failures")) == ("1", "0")
    assert [d["code"] for d in json.loads(runs["json"].stdout)] == ["PPO004"]


# ---------------------------------------------------------------- unreadable / unparsable


def test_syntax_error_reported_with_position_others_still_checked(tree: Path) -> None:
    (tree / "broken.py").write_text(BROKEN, encoding="utf-8")
    (tree / "broken_other.py").write_text("def f(:\n", encoding="utf-8")  # never names the target
    concise, as_json = ppo_many([("check",), ("check", "--output-format", "json")], cwd=tree)
    assert concise.returncode == 1, concise.stderr
    broken = [x for x in concise.stdout.splitlines() if x.startswith("broken")]
    assert broken == ["broken.py:3:7: PPO902 syntax error: invalid syntax"]
    assert f"{TRAINER_PATH}:" in concise.stdout and "server.py:" in concise.stdout
    assert "Found 3 errors." in concise.stdout
    (entry,) = [d for d in json.loads(as_json.stdout) if d["code"] == "PPO902"]
    assert entry["location"] == {"row": 3, "column": 7}
    assert entry["fix"] is None


def test_syntax_error_alone_still_fails(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "b", {"broken.py": BROKEN})
    r = ppo("check", "--output-format", "github", cwd=root)
    assert r.returncode == 1
    assert r.stdout.startswith("::error title=ppo-migrate (PPO902),file=broken.py,line=3,col=7,")


# ---------------------------------------------------------------- suppression

SUPPRESSING = ["# noqa", "# noqa: PPO002", "# noqa: PPO001, PPO002", "#noqa:PPO002", "# NOQA: ppo002"]


def _multiline(start: str, end: str) -> str:
    return IMPORT + f"\n\ndef init_ray(address):\n    env = get_ppo_ray_runtime_env({start}\n    ){end}\n"


def test_noqa_variants(tmp_path: Path) -> None:
    files = {
        f"s{i}.py": SERVER.replace("get_ppo_ray_runtime_env())", f"get_ppo_ray_runtime_env())  {c}")
        for i, c in enumerate(SUPPRESSING)
    }
    files["first_line.py"] = _multiline("  # noqa: PPO002", "")
    files["last_line.py"] = _multiline("", "  # noqa: PPO002")
    files["other_code.py"] = SERVER.replace(
        "get_ppo_ray_runtime_env())", "get_ppo_ray_runtime_env())  # noqa: PPO001"
    )
    root = write_tree(tmp_path / "n", files)
    r = ppo("check", "--output-format", "json", cwd=root)
    assert r.returncode == 1
    # only the comment naming another code leaves the finding in place
    assert [(Path(d["filename"]).name, d["code"]) for d in json.loads(r.stdout)] == [
        ("other_code.py", "PPO002")
    ]


def test_add_noqa_then_clean(tree: Path) -> None:
    r = ppo("check", "--add-noqa", cwd=tree)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Added 2 noqa directives." in r.stderr
    assert "get_ppo_ray_runtime_env())  # noqa: PPO001" in (tree / TRAINER_PATH).read_text(encoding="utf-8")
    assert (tree / "server.py").read_text(encoding="utf-8").splitlines()[4].endswith(
        "get_ppo_ray_runtime_env())  # noqa: PPO002"
    )
    assert (tree / "clean.py").read_text(encoding="utf-8") == CLEAN
    again, again_noqa = ppo_many([("check",), ("check", "--add-noqa")], cwd=tree)
    assert again.returncode == 0, again.stdout
    assert again_noqa.stderr.strip().endswith("Added 0 noqa directives.")


UNCOMMENTABLE = (
    IMPORT
    + "\n\ndef init_ray(address):\n"
    + "    env = get_ppo_ray_runtime_env() \\\n"  # ends in a backslash continuation
    + "        or {}\n"
    + '    s = f"""{\nget_ppo_ray_runtime_env()\n}"""\n'  # inside a multi-line f-string
)


def test_add_noqa_reports_findings_it_cannot_cover(tmp_path: Path) -> None:
    """Bug: printed "Added 0 noqa directives." and "All checks passed!", exit 0."""
    root = write_tree(tmp_path / "u", {"server.py": UNCOMMENTABLE, "ok.py": SERVER})
    r = ppo("check", "--add-noqa", cwd=root)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Added 1 noqa directive; 2 findings could not be suppressed." in r.stderr
    assert "All checks passed!" not in r.stdout
    assert [x.split(": ")[0] for x in r.stdout.splitlines() if ": PPO" in x] == [
        "server.py:5:11",
        "server.py:8:1",
    ]
    assert "Found 2 errors." in r.stdout
    assert (root / "server.py").read_text(encoding="utf-8") == UNCOMMENTABLE  # untouched
    again = ppo("check", "--add-noqa", "--output-format", "json", cwd=root)
    assert again.returncode == 1
    assert [d["location"]["row"] for d in json.loads(again.stdout)] == [5, 8]
    assert "Added 0 noqa directives; 2 findings could not be suppressed." in again.stderr


def test_add_noqa_reads_only_real_comments(tmp_path: Path) -> None:
    """A ``# noqa`` inside a string suppresses nothing, and a ``# noqa: CODE`` followed by
    text gets the new code merged into it (not a second, ineffective ``# noqa``)."""
    text = (
        IMPORT
        + "\n\ndef init_ray(address):\n"
        + '    x = "# noqa: PPO002"; get_ppo_ray_runtime_env()\n'
        + "    get_ppo_ray_runtime_env()  # noqa: PPO001 legacy\n"
    )
    root = write_tree(tmp_path / "r", {"server.py": text})
    r = ppo("check", "--add-noqa", cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Added 2 noqa directives." in r.stderr
    assert (root / "server.py").read_text(encoding="utf-8").splitlines()[-2:] == [
        '    x = "# noqa: PPO002"; get_ppo_ray_runtime_env()  # noqa: PPO002',
        "    get_ppo_ray_runtime_env()  # noqa: PPO001, PPO002 legacy",
    ]
    assert ppo("check", cwd=root).returncode == 0


# ---------------------------------------------------------------- selection

SELECTIONS: list[tuple[tuple[str, ...], list[str]]] = [
    (("--select", "PPO001"), ["PPO001"]),
    (("--select", "PPO"), ["PPO001", "PPO002"]),
    (("--ignore", "PPO001"), ["PPO002"]),
    (("--ignore", "PPO001,PPO002"), []),
    (("--select", "PPO001", "--select", "PPO002", "--ignore", "PPO002"), ["PPO001"]),
]


def test_select_ignore(shared_tree: Path) -> None:
    runs = ppo_many(
        [("check", *args, "--output-format", "json") for args, _ in SELECTIONS]
        + [("check", "--select", "not-a-code")],
        cwd=shared_tree,
    )
    for (args, codes), r in zip(SELECTIONS, runs):
        assert [d["code"] for d in json.loads(r.stdout)] == codes, args
        assert r.returncode == (1 if codes else 0), args
    assert runs[-1].returncode == 2  # an invalid rule code is a usage error


def test_unknown_rule_code_is_a_configuration_error(shared_tree: Path, tmp_path: Path) -> None:
    """Bug: ``--select XYZ`` selected no rule at all and printed "All checks passed!"."""
    root = write_tree(tmp_path / "p", {"server.py": SERVER}, '[tool.ppo-migrate]\nignore = ["PPO95"]\n')
    select, ignore, from_file, apply_select = (
        ppo("check", "--select", "XYZ", cwd=shared_tree),
        ppo("check", "--ignore", "PPO001,PPO0077", "--exit-zero", cwd=shared_tree),
        ppo("check", cwd=root),
        ppo("apply", "--diff", "--select", "PPO009", cwd=shared_tree),
    )
    for r, needle in (
        (select, "command line: --select: unknown rule code 'XYZ'"),
        (ignore, "command line: --ignore: unknown rule code 'PPO0077'"),
        (from_file, "pyproject.toml: [tool.ppo-migrate] ignore: unknown rule code 'PPO95'"),
        (apply_select, "command line: --select: unknown rule code 'PPO009'"),
    ):
        assert r.returncode == 2, (r.stdout, r.stderr)
        assert r.stdout == ""
        assert len(r.stderr.splitlines()) == 1 and needle in r.stderr, r.stderr


def test_option_errors_name_the_real_flags(shared_tree: Path) -> None:
    """Bug: ``--target foo`` was reported as ``--targets: ...``, ``--config-name`` as ``--config-names``."""
    runs = ppo_many(
        [
            ("check", "--target", "foo"),
            ("check", "--extend-target", "foo"),
            ("check", "--config-name", "a.b"),
            ("check", "--extend-exclude", "!"),
        ],
        cwd=shared_tree,
    )
    for r, option in zip(runs, ("--target", "--extend-target", "--config-name", "--extend-exclude")):
        assert r.returncode == 2
        assert r.stderr.startswith(f"ppo-migrate: error: command line: {option}: "), r.stderr


# ---------------------------------------------------------------- rules, files, stdin


def test_rule_documentation() -> None:
    r, lower, unknown = ppo_many([("rule", "PPO002"), ("rule", "ppo001"), ("rule", "PPO999")], cwd=HERE)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("# configless-call-without-config (PPO002)")
    for needle in (
        "## What it does",
        "## Why is this bad?",
        "CUDA_DEVICE_MAX_CONNECTIONS",
        "PR #6976",
        "Megatron",
        "## How to fix",
        "## Example",
        "get_ppo_ray_runtime_env(config)",
    ):
        assert needle in r.stdout, needle
    assert lower.stdout.startswith("# configless-call-with-config (PPO001)")
    assert unknown.returncode == 2


REPO = HERE.parent


def test_rules_doc_is_the_generators_output(tmp_path) -> None:
    """Bug: JSON/SARIF linked to docs/rules.md, which did not exist. The index (stdout)
    and every page (``--write``) are the generator's output, byte for byte."""
    generated = subprocess.run(
        [sys.executable, "-m", "ppo_migrate.rules_doc"],
        capture_output=True, check=True, cwd=REPO,
    ).stdout
    committed = (REPO / "docs" / "rules.md").read_bytes()
    assert committed == generated, "run: python -m ppo_migrate.rules_doc --write docs"
    subprocess.run(
        [sys.executable, "-m", "ppo_migrate.rules_doc", "--write", str(tmp_path)],
        capture_output=True, check=True, cwd=REPO,
    )
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.md"))
    on_disk = sorted(
        p.relative_to(REPO / "docs").as_posix() for p in (REPO / "docs" / "rules").glob("*.md")
    )
    assert written == ["rules.md", *on_disk]
    assert len(on_disk) == 10
    for name in written:
        assert (tmp_path / name).read_bytes() == (REPO / "docs" / name).read_bytes(), name


def test_rule_urls_point_at_the_rule_pages() -> None:
    from ppo_migrate.rules.codes import RULE_PAGES_URL, RULES

    index = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    assert RULE_PAGES_URL.endswith("/docs/rules")
    for code, rule in RULES.items():
        assert rule.url == f"{RULE_PAGES_URL}/{code}.md"
        assert f"[{code}](rules/{code}.md)" in index
        page = (REPO / "docs" / "rules" / f"{code}.md").read_text(encoding="utf-8")
        assert page.startswith(f"# {rule.name} ({code})\n")
        for needle in ("## What it does", "## How to fix", "## Fix safety", rule.fix.split(" ")[0]):
            assert needle in page, (code, needle)


def test_each_rule_page_states_when_its_fix_is_safe_unsafe_or_absent() -> None:
    """Bug (issue 28): ``ppo-migrate rule PPO001`` said "Fix is always available" while
    the fix is unsafe when the config is only possibly bound."""
    docs = ppo_many([("rule", c) for c in ("PPO001", "PPO002", "PPO005")], cwd=HERE)
    for r in docs:
        assert r.returncode == 0, r.stderr
        assert "always available" not in r.stdout
    ppo001, ppo002, ppo005 = (r.stdout.split("## Fix safety\n", 1)[1] for r in docs)
    assert "Fix is available: safe in some cases, unsafe (`--unsafe-fixes`) in others" in docs[0].stdout
    assert ppo001.startswith("\nSafe when the name passed is certainly bound at the call")
    assert "Unsafe when the name is only possibly bound (assigned on one branch of an `if`" in ppo001
    assert "`ppo-migrate apply --unsafe-fixes`" in ppo001
    assert "Never absent for a PPO001" in ppo001
    assert ppo002.startswith("\nNo fix, neither safe nor unsafe")
    assert ppo005.startswith("\nNo fix: a notice that never fails a run")
    assert "Fix is not available. Informational: never fails a run" in docs[2].stdout


def test_list_rules() -> None:
    r = ppo("check", "--list-rules", cwd=HERE)
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    codes = [x.split()[0] for x in lines]
    assert codes[:3] == ["PPO001", "PPO002", "PPO003"]
    assert "PPO902" in codes
    assert lines[0].startswith("PPO001 [*] configless-call-with-config")
    assert "[*]" not in lines[1]


def test_show_files(tree: Path) -> None:
    (tree / ".venv" / "lib").mkdir(parents=True)
    (tree / ".venv" / "lib" / "x.py").write_text(SERVER, encoding="utf-8")
    (tree / "notes.txt").write_text("get_ppo_ray_runtime_env()", encoding="utf-8")
    r = ppo("check", "--show-files", cwd=tree)
    assert r.returncode == 0, r.stderr
    # the tree's pyproject.toml is walked too: an entry point it declares may name the function
    assert r.stdout.splitlines() == [TRAINER_PATH, "clean.py", "other.py", "pyproject.toml", "server.py"]


def test_stdin_filename(shared_tree: Path) -> None:
    def run(args: tuple[str, ...], text: str) -> subprocess.CompletedProcess[str]:
        return ppo("check", "-", "--stdin-filename", *args, cwd=shared_tree, stdin=text)

    jobs = [
        (("pkg/launch.py",), TRAINER),
        (("pkg/launch.py", "--output-format", "json"), SERVER),
        (("ok.py",), CLEAN),
        (("x.py",), BROKEN),
    ]
    concise, as_json, clean, broken = (run(*j) for j in jobs)
    assert concise.returncode == 1, concise.stderr
    line, col, _, _ = TRAINER_POS
    assert f"pkg/launch.py:{line}:{col}: PPO001 [*] " in concise.stdout
    (entry,) = json.loads(as_json.stdout)
    assert entry["filename"] == str(shared_tree / "pkg" / "launch.py")
    assert entry["code"] == "PPO002"
    assert not (shared_tree / "pkg").exists()  # nothing written
    assert clean.returncode == 0
    assert broken.returncode == 1
    assert "x.py:3:7: PPO902" in broken.stdout


def test_stdin_filename_without_dash_reads_standard_input(shared_tree: Path) -> None:
    """Bug: ``check --stdin-filename x.py`` without ``-`` checked the current directory."""
    r = ppo("check", "--stdin-filename", "pkg/launch.py", cwd=shared_tree, stdin=TRAINER)
    assert r.returncode == 1, r.stderr
    line, col, _, _ = TRAINER_POS
    assert r.stdout.splitlines()[0].startswith(f"pkg/launch.py:{line}:{col}: PPO001 [*] ")
    assert "server.py" not in r.stdout and TRAINER_PATH not in r.stdout
    assert "Found 1 error." in r.stdout
    clean = ppo("check", "--stdin-filename", "ok.py", cwd=shared_tree, stdin=CLEAN)
    assert clean.returncode == 0 and "All checks passed!" in clean.stdout


def test_each_rule_says_its_own_why_and_which_setups_fail_or_slow_down() -> None:
    """Bug: PPO003's and PPO004's "Why is this bad?" were PPO001's, and it said Megatron runs
    "silently lose" the variable while Megatron-LM's validate_args asserts on it."""
    docs = ppo_many([("rule", c) for c in ("PPO001", "PPO002", "PPO003", "PPO004")], cwd=HERE)
    whys = []
    for r in docs:
        assert r.returncode == 0, r.stderr
        whys.append(r.stdout.split("## Why is this bad?\n\n", 1)[1].split("\n## ", 1)[0])
    assert len(set(whys)) == 4  # no two rules share their "why"
    assert not any("silently lose" in w for w in whys)
    ppo001, ppo002, ppo003, ppo004 = whys
    for why in (ppo001, ppo002):  # the loud and the slow setups, each named
        assert "Fails loudly: a worker that goes through Megatron-LM's megatron.training" in why
        assert "validate_args asserts the variable is 1" in why
        assert "tensor or context parallelism > 1" in why
        assert "Loses speed: verl's own Megatron workers" in why
        assert "compute capability below 10" in why
        assert "Unaffected: FSDP" in why
    assert ppo001.startswith("The training config is already in scope")
    assert "someone must decide where the config comes from" in ppo002
    assert "may raise TypeError" in ppo003 and "Fails loudly" not in ppo003
    assert "Not a problem on its own" in ppo004 and "--show-shims" in ppo004


# ---------------------------------------------------------------- the end of the process


def test_everything_printed_reaches_a_pipe_before_the_quick_exit(tmp_path: Path) -> None:
    """The console script ends with ``os._exit`` (no interpreter teardown): what it printed
    must be flushed first, all of it, and the exit code kept."""
    calls = "".join(f"    get_ppo_ray_runtime_env()  # {i}\n" for i in range(1500))
    root = write_tree(tmp_path / "big", {"t.py": IMPORT + "\n\ndef run(config):\n" + calls})
    as_json, concise = ppo_many(
        [("check", "--output-format", "json"), ("check",)], cwd=root, process=True
    )
    assert as_json.returncode == concise.returncode == 1
    found = json.loads(as_json.stdout)
    assert len(found) == 1500
    assert found[-1]["location"]["row"] == 1504  # import, two blank lines, def, 1500 calls
    assert concise.stdout.count(": PPO001 [*] ") == 1500
    assert concise.stdout.rstrip().endswith("[*] 1500 fixable with `ppo-migrate apply`.")


def test_exit_handlers_registered_before_the_run_still_run(tmp_path: Path) -> None:
    """``os._exit`` would skip them: with one registered, the process exits as usual."""
    root = write_tree(tmp_path / "proj", TREE)
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('handler ran', flush=True))\n"
        "sys.argv = ['ppo-migrate', 'check', '.']\n"
        "from ppo_migrate.cli.app import main\n"
        "main()\n"
    )
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("CI", None)
    r = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, env=env, timeout=120
    )
    assert r.returncode == 1, r.stderr
    assert "Found 2 errors." in r.stdout
    assert r.stdout.rstrip().endswith("handler ran")


def test_a_profiler_still_reports_at_exit(tmp_path: Path) -> None:
    """Under a profiler (or a debugger, or coverage) the process ends as usual, so that it
    can write its report: ``python -m cProfile -m ppo_migrate check``."""
    root = write_tree(tmp_path / "proj", TREE)
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("CI", None)
    r = subprocess.run(
        [sys.executable, "-m", "cProfile", "-s", "cumulative", "-m", "ppo_migrate", "check", "."],
        cwd=root, capture_output=True, text=True, env=env, timeout=120,
    )
    assert r.returncode == 0, r.stderr  # cProfile's own: it swallows the run's SystemExit
    assert "Found 2 errors." in r.stdout
    assert "function calls" in r.stdout and "Ordered by: cumulative time" in r.stdout


@pytest.mark.skipif(sys.platform != "linux", reason="a file name that is not UTF-8: Linux")
def test_a_file_name_that_is_not_utf8_is_reported_in_every_format(tmp_path: Path) -> None:
    """Bug (a tester's ``bad\\xff.py`` under a UTF-8 locale): standard output's strict
    encoding raised on the name and the run was an internal error, its findings lost.
    The name is printed as its bytes on disk (percent-encoded in SARIF's URI)."""
    root = write_tree(tmp_path / "proj", {"ok.py": "x = 1\n"})
    name = os.fsdecode(b"bad\xff.py")
    (root / name).write_text(TRAINER, encoding="utf-8")
    outputs = {}
    for fmt in FORMATS:
        r = run_cli(
            "check", "--output-format", fmt, ".", cwd=root, text=False,
            env={"NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"},
        )
        assert r.returncode == 1, (fmt, r.stderr)
        assert b"internal error" not in r.stderr
        outputs[fmt] = r.stdout
    assert outputs["concise"].startswith(b"bad\xff.py:") and b"Found 1 error." in outputs["concise"]
    assert json.loads(outputs["json"])[0]["filename"].endswith(name)
    assert b'"uri": "bad%FF.py"' in outputs["sarif"]
    assert outputs["github"].startswith(b"::error title=ppo-migrate (PPO001),file=bad\xff.py,")


def test_a_full_disk_on_standard_output_is_a_one_line_error(tmp_path: Path) -> None:
    """``check > /dev/full``: exit 2 and one line naming the cause, as ruff gives (was an
    "internal error" with Python's exception)."""
    root = write_tree(tmp_path / "proj", TREE)
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("CI", None)
    for fmt in ("concise", "json"):
        with open("/dev/full", "w") as full:
            r = subprocess.run(
                [*_command(), "check", "--output-format", fmt, "."], cwd=root, stdout=full,
                stderr=subprocess.PIPE, text=True, env=env, timeout=120,
            )
        assert r.returncode == 2
        assert r.stderr == "ppo-migrate: error: cannot write the output: No space left on device\n"


def test_a_closed_standard_output_is_a_one_line_error(tmp_path: Path) -> None:
    """``check src >&-``: Python starts with ``sys.stdout`` ``None``; the report cannot be
    written (exit 2, one line, as a full disk; was an internal error with a traceback),
    and ``-s``, which prints nothing, still runs (exit 1: a finding)."""
    root = write_tree(tmp_path / "proj", TREE)
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("CI", None)
    closed = "ppo-migrate: error: cannot write the output: standard output is closed\n"
    for args, code, err in (
        (["check", "."], 2, closed),
        (["check", "--jobs", "1", "--output-format", "json", "."], 2, closed),
        (["check", "-s", "."], 1, ""),
    ):
        r = subprocess.run(
            [*_command(), *args], cwd=root, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True, env=env, timeout=120, preexec_fn=lambda: os.close(1),
        )
        assert (r.returncode, r.stderr) == (code, err), args


def test_standard_input_alone_or_a_usage_error(tmp_path: Path) -> None:
    """``-`` is standard input only alone: ``check - -`` passed with a finding on standard
    input, ``check - a.py`` reported ``a.py`` alone (a tester's false passes)."""
    root = write_tree(tmp_path / "proj", TREE)
    finding = (root / TRAINER_PATH).read_bytes()
    for args in (["check", "-", "-"], ["check", "-", "clean.py"], ["check", "clean.py", "-"],
                 ["apply", "--diff", "-", "clean.py"]):
        r = run_cli(*args, cwd=root, input=finding, env={"NO_COLOR": "1"})
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert r.stdout == ""
        assert r.stderr.endswith("Error: '-' (standard input) cannot be combined with other paths\n")
    alone = run_cli("check", "-", cwd=root, input=finding, env={"NO_COLOR": "1"})
    assert alone.returncode == 1 and "PPO001" in alone.stdout, alone.stderr


def test_closed_standard_input_and_error(tmp_path: Path) -> None:
    """``check - <&-`` was an internal error (AttributeError); ``check . 2>&-`` lost its
    report (the progress bar asked the missing stream whether it is a terminal: exit 2 and
    nothing on stdout). Now: a one-line error; the report on stdout and its exit code."""
    root = write_tree(tmp_path / "proj", TREE)
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("CI", None)
    no_stdin = subprocess.run(
        [*_command(), "check", "-"], cwd=root, capture_output=True, env=env, timeout=120,
        preexec_fn=lambda: os.close(0),
    )
    assert no_stdin.returncode == 2 and no_stdin.stdout == b""
    assert no_stdin.stderr == b"ppo-migrate: error: cannot read standard input: it is closed\n"
    with_stderr = subprocess.run(
        [*_command(), "check", "."], cwd=root, stdin=subprocess.DEVNULL, capture_output=True,
        env=env, timeout=120,
    )
    assert with_stderr.returncode == 1 and b"PPO001" in with_stderr.stdout
    for args in (["check", "."], ["check", "--jobs", "1", "."], ["check", TRAINER_PATH]):
        r = subprocess.run(
            [*_command(), *args], cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            env=env, timeout=120, preexec_fn=lambda: os.close(2),
        )
        assert r.returncode == 1, args
        if args[-1] == ".":
            assert r.stdout == with_stderr.stdout, args
        else:
            assert TRAINER_PATH.encode() in r.stdout and b"Found 1 error" in r.stdout


def test_a_folder_without_python_files_is_warned_about_as_ruff_does(tmp_path: Path) -> None:
    """A fresh user's trial: ``check empty/`` said only "All checks passed!". As ruff, the run
    still passes (exit 0) and one warning on stderr says nothing was checked; ``-s`` silences
    it, and a folder with a Python file gets no warning."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("pip install verl\n")
    proc = run_cli("check", "empty", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "All checks passed!\n")
    assert proc.stderr == "ppo-migrate: warning: No Python files found under the given path(s)\n"
    assert run_cli("check", "-s", "empty", cwd=tmp_path).stderr == ""
    (tmp_path / "empty" / "a.py").write_text("x = 1\n")
    assert run_cli("check", "empty", cwd=tmp_path).stderr == ""


def test_an_internal_error_is_reported_and_never_all_checks_passed(tmp_path: Path, monkeypatch) -> None:
    """Trial 26i, I-C1: ``check`` printed "All checks passed!" above a file's internal
    error. The file's analysis is made to fail here (the crash itself is fixed)."""
    from ppo_migrate.rules import check as check_module

    declare_verl(tmp_path)
    (tmp_path / "boom.py").write_text(IMPORT + "\n\ndef run(config):\n    return get_ppo_ray_runtime_env()\n")
    original = check_module.ModuleAnalysis.diagnostics

    def diagnostics(self, *args, **kwargs):
        if self.path.endswith("boom.py"):
            raise IndexError("list index out of range")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(check_module.ModuleAnalysis, "diagnostics", diagnostics)
    r = run_cli("check", "--jobs", "1", "--output-format", "concise", ".", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stdout.splitlines() == ["No errors found in the files analysed; 1 file could not be analysed."]
    assert r.stderr.splitlines()[-1] == "ppo-migrate: boom.py: internal error: IndexError: list index out of range"
