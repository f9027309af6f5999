"""One test per case of ``fixtures/rules/<CODE>/<case>/`` (issue 28, part 3), as ruff keeps
``resources/test/fixtures/<linter>/<CODE>.py`` with its snapshot and Fixit its VALID/INVALID.

A case folder holds:

- ``input/``: a tiny project (a ``.py`` file or a few, and what decides the callee in effect:
  a stub ``verl/trainer/constants_ppo.py``, a ``requirements.txt`` or ``pyproject.toml`` pin);
- ``expected.json``: what ``check --output-format json .`` finds there, one record per finding
  (``filename`` relative to ``input/``, ``code``, ``row``, ``column``, the fix's
  ``applicability`` or ``null`` without a fix, and the ``reason`` kind where there is one);
- ``expected/``: the files a plain ``apply .`` changes, as it writes them (byte for byte;
  every other file must stay as it is; no folder: nothing changes);
- ``expected-unsafe/``: the same for ``apply --unsafe-fixes .``, where an unsafe fix exists;
- ``case.toml``: a comment saying what the case shows, ``check-args`` (extra arguments of
  ``check``, e.g. ``--show-shims``) and, where the case has an entry point, ``[run]``:
  ``entry`` and, for each tree (``input``, ``apply``, ``unsafe``), whether it must run
  (``true``: the stub verl of the case is called and its assertions hold) or fail in the
  stub (``false``: the stub's ``AssertionError``, the bug the rule finds). A rewrite is
  tested by running it, not only by comparing its text.

A case whose name starts with ``valid_`` is a near miss: its folder's code must not be
found there; every other case must find it.

``PPO_MIGRATE_UPDATE_FIXTURES=1 python -m pytest -n0 tests/integration/test_rule_fixtures.py`` rewrites
``expected.json``, ``expected/`` and ``expected-unsafe/`` from what the tool does now (as
ruff's ``cargo insta`` / ``--update``); read every changed file before committing it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import runpy
import shutil
import sys
import tomllib
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest

from cli_helpers import FIXTURES, run_cli

from ppo_migrate.diagnostics import INFORMATIONAL_CODES
from ppo_migrate.rules.codes import RULES

RULE_FIXTURES = FIXTURES / "rules"
UPDATE_ENV = "PPO_MIGRATE_UPDATE_FIXTURES"
UPDATE = os.environ.get(UPDATE_ENV) == "1"
#: rules no input file can produce: PPO904 is a file changed on disk during the run
NOT_FROM_A_FILE = {"PPO904"}
#: what each stub prints when it is called (a run that never reaches it proves nothing)
STUB_CALLED = "stub: "


@dataclass(frozen=True)
class Case:
    """One folder ``fixtures/rules/<code>/<name>/``."""

    code: str
    name: str

    @property
    def root(self) -> Path:
        return RULE_FIXTURES / self.code / self.name

    @property
    def input(self) -> Path:
        return self.root / "input"

    @property
    def valid(self) -> bool:
        return self.name.startswith("valid_")

    @property
    def settings(self) -> dict:
        path = self.root / "case.toml"
        return tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}

    def __str__(self) -> str:
        return f"{self.code}/{self.name}"


def _cases() -> list[Case]:
    return [
        Case(code.name, case.name)
        for code in sorted(RULE_FIXTURES.iterdir())
        if code.is_dir()
        for case in sorted(code.iterdir())
        if (case / "input").is_dir()
    ]


CASES = _cases()


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def _copy(case: Case, where: Path) -> Path:
    shutil.copytree(case.input, where)
    return where


def _findings(stdout: str, root: Path) -> list[dict]:
    """``check --output-format json``'s findings, as ``expected.json`` keeps them."""
    out = []
    for d in json.loads(stdout):
        record = {
            "filename": Path(d["filename"]).resolve().relative_to(root.resolve()).as_posix(),
            "code": d["code"],
            "row": d["location"]["row"],
            "column": d["location"]["column"],
            "applicability": d["fix"]["applicability"] if d["fix"] else None,
        }
        if d.get("reason"):
            record["reason"] = d["reason"]["kind"]
        out.append(record)
    return out


def _write_tree(folder: Path, files: dict[str, bytes]) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    for rel, data in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)


def _check_apply(case: Case, work: Path, flags: tuple[str, ...], expected: Path) -> None:
    """Run ``apply FLAGS .`` in ``work`` and compare the tree with ``input/`` overlaid with
    ``expected`` (or, updating, store the files that changed there)."""
    proc = run_cli("apply", *flags, ".", cwd=work)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    before, after = _tree(case.input), _tree(work)
    assert sorted(after) == sorted(before), "apply added or removed a file"
    changed = {rel: data for rel, data in after.items() if before[rel] != data}
    if UPDATE:
        if changed:
            _write_tree(expected, changed)
        elif expected.exists():
            shutil.rmtree(expected)
        return
    want = {**before, **(_tree(expected) if expected.exists() else {})}
    command = " ".join(("apply", *flags))
    for rel in sorted(after):
        assert after[rel] == want[rel], f"{case}: {expected.name}/{rel} is not what `{command}` made"


def _forget_modules(root: Path) -> dict[str, object]:
    """Take out of ``sys.modules`` (and return) every ``verl`` module and every module
    imported from ``root``: the case's stub verl must be the one its entry point imports."""
    prefix = str(root.resolve())
    taken = {}
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None) or ""
        if name == "verl" or name.startswith("verl.") or file.startswith(prefix):
            taken[name] = sys.modules.pop(name)
    return taken


def _run_entry(root: Path, entry: str) -> tuple[BaseException | None, str]:
    """Run ``root/entry`` as ``__main__`` in this process, ``root`` first on ``sys.path`` and
    the working directory: the exception it raised (or ``None``) and what it printed. The
    modules it imported from ``root`` are dropped after, those it hid put back."""
    saved_path, saved_cwd, saved_bytecode = list(sys.path), os.getcwd(), sys.dont_write_bytecode
    hidden = _forget_modules(root)
    sys.path.insert(0, str(root))
    os.chdir(root)
    sys.dont_write_bytecode = True
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(str(root / entry), run_name="__main__")
        return None, out.getvalue()
    except Exception as exc:  # noqa: BLE001 - what the entry point raised is the result
        return exc, out.getvalue()
    finally:
        sys.path[:] = saved_path
        os.chdir(saved_cwd)
        sys.dont_write_bytecode = saved_bytecode
        _forget_modules(root)
        sys.modules.update(hidden)


def _assert_runs(case: Case, tree: str, root: Path) -> None:
    """The entry point of ``root`` runs (``true``) or fails in its stub (``false``), as
    ``case.toml``'s ``[run]`` says for ``tree``."""
    run = case.settings.get("run", {})
    if tree not in run:
        return
    exc, printed = _run_entry(root, run["entry"])
    where = f"{case}: {run['entry']} of the {tree} tree"
    if run[tree]:
        assert exc is None, f"{where} raised:\n" + "".join(traceback.format_exception(exc))
        assert STUB_CALLED in printed, f"{where} never called the stub: {printed!r}"
    else:
        assert isinstance(exc, AssertionError), f"{where} should fail in the stub, got {exc!r}"
        last = traceback.extract_tb(exc.__traceback__)[-1]
        assert Path(last.filename).name == "constants_ppo.py", f"{where} failed elsewhere: {last}"


@pytest.mark.parametrize("case", CASES, ids=str)
def test_rule_fixture(case: Case, tmp_path: Path) -> None:
    settings = case.settings
    work = _copy(case, tmp_path / "check")
    args = settings.get("check-args", ())
    proc = run_cli("check", "--output-format", "json", *args, ".", cwd=work)
    assert "Traceback" not in proc.stderr, proc.stderr
    found = _findings(proc.stdout, work)
    errors = [f for f in found if f["code"] not in INFORMATIONAL_CODES]
    assert proc.returncode == (1 if errors else 0), proc.stdout + proc.stderr
    expected_json = case.root / "expected.json"
    if UPDATE:
        expected_json.write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    else:
        expected = json.loads(expected_json.read_text(encoding="utf-8"))
        assert found == expected, f"{case}: if intended, regenerate ({UPDATE_ENV}=1), read the diff"
    codes = {f["code"] for f in found}
    if case.valid:
        assert case.code not in codes, f"{case} is a near miss, yet {case.code} was found"
    else:
        assert case.code in codes, f"{case} must find {case.code}"
    _assert_runs(case, "input", work)

    _check_apply(case, _copy(case, tmp_path / "apply"), (), case.root / "expected")
    _assert_runs(case, "apply", tmp_path / "apply")
    unsafe = any(f["applicability"] == "unsafe" for f in found)
    if unsafe or "unsafe" in settings.get("run", {}):
        unsafe_tree = _copy(case, tmp_path / "unsafe")
        _check_apply(case, unsafe_tree, ("--unsafe-fixes",), case.root / "expected-unsafe")
        _assert_runs(case, "unsafe", unsafe_tree)
    elif UPDATE and (case.root / "expected-unsafe").exists():
        shutil.rmtree(case.root / "expected-unsafe")
    else:
        assert not (case.root / "expected-unsafe").exists(), f"{case} has no unsafe fix"


def test_every_rule_from_a_file_has_cases_that_fire_and_near_misses() -> None:
    """Each rule an input file can produce has a folder with a case finding it and a near
    miss (``valid_*``); no folder names an unknown code."""
    by_code: dict[str, list[Case]] = {}
    for case in CASES:
        by_code.setdefault(case.code, []).append(case)
    assert set(by_code) == set(RULES) - NOT_FROM_A_FILE
    for code, cases in by_code.items():
        assert any(c.valid for c in cases) and any(not c.valid for c in cases), code
