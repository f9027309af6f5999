"""The ``json`` output format: ruff's shape plus ``scope`` and ``related``."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from ppo_migrate.diagnostics import Diagnostic, Edit, Fix, Related
from ppo_migrate.output import emit
from ppo_migrate.output.json_format import absolute_filename, to_dict
from ppo_migrate.rules.codes import RULES

FIXABLE = Diagnostic(
    "src/trainer.py",
    4,
    26,
    4,
    51,
    "PPO001",
    "`get_ppo_ray_runtime_env()` called without the config in scope; pass `config`",
    scope="run_ppo",
    fix=Fix("Pass `config`", (Edit("config", 4, 50, 4, 50),)),
)
ENTRY = Diagnostic(
    "server.py",
    7,
    35,
    8,
    2,
    "PPO002",
    "no config in scope in `init_ray` — 日本",
    scope="Server.<locals>.init_ray",
    related=(Related("src/main.py", 12, 5, "caller with `config` in scope"),),
)

RUFF_KEYS = {"code", "message", "filename", "location", "end_location", "fix", "url"}


def _emit(diagnostics, root: Path) -> list:
    out = io.StringIO()
    emit("json", diagnostics, out, root=root)
    text = out.getvalue()
    assert text.endswith("\n")
    return json.loads(text)


def test_clean_is_an_empty_array(tmp_path: Path) -> None:
    out = io.StringIO()
    emit("json", [], out, root=tmp_path)
    assert out.getvalue() == "[]\n"


def test_ruff_shape_plus_scope(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    data = _emit([FIXABLE, ENTRY], tmp_path)
    assert isinstance(data, list) and len(data) == 2
    first, second = data
    assert set(first) == RUFF_KEYS | {"scope"}
    assert first == {
        "code": "PPO001",
        "message": FIXABLE.message,
        "filename": os.path.join(str(tmp_path), "src", "trainer.py"),
        "location": {"row": 4, "column": 26},
        "end_location": {"row": 4, "column": 51},
        "fix": {
            "message": "Pass `config`",
            "applicability": "safe",
            "edits": [
                {
                    "content": "config",
                    "location": {"row": 4, "column": 50},
                    "end_location": {"row": 4, "column": 50},
                }
            ],
        },
        "url": RULES[FIXABLE.code].url,
        "scope": "run_ppo",
    }
    assert second["fix"] is None
    assert second["scope"] == "Server.<locals>.init_ray"
    assert second["message"].endswith("日本")
    assert second["end_location"] == {"row": 8, "column": 2}


def test_output_is_ascii(tmp_path: Path) -> None:
    out = io.StringIO()
    emit("json", [ENTRY], out, root=tmp_path)
    assert out.getvalue().isascii()
    assert json.loads(out.getvalue())[0]["message"] == ENTRY.message


def test_related_only_when_present(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    first, second = _emit([FIXABLE, ENTRY], tmp_path)
    assert "related" not in first
    assert second["related"] == [
        {
            "filename": str(tmp_path / "src" / "main.py"),
            "location": {"row": 12, "column": 5},
            "message": "caller with `config` in scope",
        }
    ]


def test_filename_is_absolute_and_normalised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert absolute_filename("./a/../b.py") == str(tmp_path / "b.py")
    assert absolute_filename(str(tmp_path / "c.py")) == str(tmp_path / "c.py")
    assert absolute_filename("-") == "-"  # standard input without --stdin-filename


def test_root_does_not_change_filename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert _emit([FIXABLE], tmp_path / "elsewhere") == _emit([FIXABLE], tmp_path)


def test_keys_sorted_like_ruff() -> None:
    text = json.dumps(to_dict(FIXABLE), sort_keys=True)
    assert json.loads(text) == to_dict(FIXABLE)
    out = io.StringIO()
    emit("json", [FIXABLE], out, root=Path("."))
    keys = [line.strip().split('"')[1] for line in out.getvalue().splitlines()[2:] if line.startswith('    "')]
    assert keys == sorted(keys)


def test_reason_field_only_when_the_finding_has_one() -> None:
    """Issue 28: ``reason`` is ``{"kind", "text", "lines"}``; absent (never ``null``) without one."""
    from ppo_migrate.diagnostics import Reason

    unsafe = FIXABLE._replace(
        fix=FIXABLE.fix._replace(applicability="unsafe"),  # type: ignore[union-attr]
        reason=Reason(
            "possibly-bound",
            "`config` is only possibly bound at the call",
            (Related("src/trainer.py", 3, 9, "`config` is assigned under the `if` at line 2"),),
        ),
    )
    assert to_dict(unsafe)["reason"] == {
        "kind": "possibly-bound",
        "text": "`config` is only possibly bound at the call",
        "lines": [
            {
                "filename": os.path.abspath("src/trainer.py"),
                "location": {"column": 9, "row": 3},
                "message": "`config` is assigned under the `if` at line 2",
            }
        ],
    }
    assert "reason" not in to_dict(FIXABLE)
    out = io.StringIO()
    emit("json", [unsafe], out, root=Path("."))
    assert json.loads(out.getvalue())[0]["reason"]["kind"] == "possibly-bound"
