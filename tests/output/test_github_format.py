"""The ``github`` output format: workflow commands with the Actions toolkit's escaping."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from ppo_migrate.diagnostics import Diagnostic, Edit, Fix
from ppo_migrate.output import emit
from ppo_migrate.output.github_format import escape_data, escape_property, format_line

LINE = re.compile(r"^::error (?P<props>[^:]*)::(?P<message>.*)$")


def _diag(path: str, message: str = "m", code: str = "PPO002") -> Diagnostic:
    return Diagnostic(path, 3, 10, 4, 2, code, message, scope="f")


def _parse(line: str) -> tuple[dict[str, str], str]:
    m = LINE.match(line)
    assert m, line
    props = dict(p.split("=", 1) for p in m.group("props").split(","))
    return props, m.group("message")


def _unescape(text: str) -> str:
    for enc, raw in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(enc, raw)
    return text


def test_escape_data() -> None:
    assert escape_data("100% a\r\nb: c, d") == "100%25 a%0D%0Ab: c, d"


def test_escape_property() -> None:
    assert escape_property("a%b,c/x:y\n.py") == "a%25b%2Cc/x%3Ay%0A.py"


def test_escaping_order_percent_first() -> None:
    # an already-escaped-looking text must round-trip, so ``%`` is escaped first
    assert escape_property("%2C,") == "%252C%2C"
    assert _unescape(escape_property("%2C,")) == "%2C,"


def test_line_shape(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    d = Diagnostic(
        "src/trainer.py",
        4,
        26,
        4,
        51,
        "PPO001",
        "pass `config`",
        fix=Fix("Pass `config`", (Edit("config", 4, 50, 4, 50),)),
    )
    assert format_line(d, tmp_path) == (
        "::error title=ppo-migrate (PPO001),file=src/trainer.py,line=4,col=26,"
        "endLine=4,endColumn=51::PPO001 pass `config`"
    )


def test_percent_comma_colon_in_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    emit("github", [_diag("a%b,c/x:y.py", "50% done,\nnext: line")], out, root=tmp_path)
    (line,) = out.getvalue().splitlines()
    props, message = _parse(line)
    assert props["file"] == "a%25b%2Cc/x%3Ay.py"
    assert _unescape(props["file"]) == "a%b,c/x:y.py"
    assert props["title"] == "ppo-migrate (PPO002)"
    assert (props["line"], props["col"], props["endLine"], props["endColumn"]) == ("3", "10", "4", "2")
    # in the message only %, CR and LF are escaped
    assert message == "PPO002 50%25 done,%0Anext: line"


def test_file_relative_to_root_with_forward_slashes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "repo" / "pkg").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "repo" / "pkg")
    props, _ = _parse(format_line(_diag("mod.py"), tmp_path / "repo"))
    assert props["file"] == "pkg/mod.py"
    props, _ = _parse(format_line(_diag(str(tmp_path / "repo" / "pkg" / "mod.py")), tmp_path / "repo"))
    assert props["file"] == "pkg/mod.py"


def test_file_outside_root_keeps_given_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "repo").mkdir()
    monkeypatch.chdir(tmp_path)
    props, _ = _parse(format_line(_diag("other/mod.py"), tmp_path / "repo"))
    assert props["file"] == "other/mod.py"


def test_file_relative_to_the_git_work_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "svc").mkdir()
    monkeypatch.chdir(tmp_path / "repo" / "svc")
    out = io.StringIO()
    emit("github", [_diag("mod.py")], out, root=tmp_path / "repo" / "svc")
    props, _ = _parse(out.getvalue().strip())
    assert props["file"] == "svc/mod.py"


def test_clean_prints_nothing(tmp_path: Path) -> None:
    out = io.StringIO()
    emit("github", [], out, root=tmp_path)
    assert out.getvalue() == ""


def test_one_line_per_finding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    emit("github", [_diag("a.py"), _diag("b.py", "x\ny")], out, root=tmp_path)
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert all(LINE.match(line) for line in lines)


def test_compatibility_shim_is_a_notice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bug: a PPO004 (informational) was an ``::error`` annotation."""
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    emit("github", [_diag("a.py"), _diag("b.py", "shim", code="PPO004")], out, root=tmp_path)
    error, notice = out.getvalue().splitlines()
    assert error.startswith("::error title=ppo-migrate (PPO002),file=a.py,")
    assert notice == (
        "::notice title=ppo-migrate (PPO004),file=b.py,line=3,col=10,endLine=4,endColumn=2"
        "::PPO004 shim"
    )
