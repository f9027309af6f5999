"""The ``junit`` output format: valid XML, one failing testcase per finding."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from pathlib import Path

from ppo_migrate.diagnostics import Diagnostic, Edit, Fix, Related
from ppo_migrate.output import emit
from ppo_migrate.output.junit_format import xml_safe

FIXABLE = Diagnostic(
    "src/trainer.py",
    4,
    26,
    4,
    51,
    "PPO001",
    "pass `config` <now> & \"here\"",
    fix=Fix("Pass `config`", (Edit("config", 4, 50, 4, 50),)),
)
ENTRY = Diagnostic(
    "a%b,c/server.py",
    7,
    35,
    7,
    60,
    "PPO002",
    "no config in scope \x0c\x00 日本",
    related=(Related("src/main.py", 12, 5, "caller with `config`"),),
)


def _emit(diagnostics) -> tuple[str, ET.Element]:
    out = io.StringIO()
    emit("junit", diagnostics, out, root=Path("."))
    text = out.getvalue()
    return text, ET.fromstring(text.encode("utf-8"))


def test_declaration_and_suite() -> None:
    text, root = _emit([FIXABLE])
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "ppo-migrate"
    assert suite.get("tests") == "1" and suite.get("failures") == "1"


def test_one_failing_testcase_per_finding() -> None:
    _, root = _emit([FIXABLE, ENTRY])
    suite = root.find("testsuite")
    assert suite is not None
    assert (root.get("tests"), root.get("failures")) == ("2", "2")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "2", "0")
    cases = suite.findall("testcase")
    assert len(cases) == 2
    first, second = cases
    assert first.get("name") == "src/trainer.py:4:26 PPO001"
    assert first.get("classname") == "ppo-migrate.PPO001"
    assert first.get("file") == "src/trainer.py" and first.get("line") == "4"
    failure = first.find("failure")
    assert failure is not None
    assert failure.get("type") == "PPO001"
    assert failure.get("message") == FIXABLE.message  # <, &, " escaped and parsed back
    assert failure.text is not None and "fix: Pass `config`" in failure.text
    assert second.get("file") == "a%b,c/server.py"
    failure = second.find("failure")
    assert failure is not None and failure.text is not None
    assert "related: src/main.py:12:5: caller with `config`" in failure.text


def test_characters_xml_cannot_hold_are_replaced() -> None:
    text, root = _emit([ENTRY])
    assert "\x00" not in text and "\x0c" not in text
    assert text.isascii()  # non-ASCII as character references
    failure = root.find("testsuite/testcase/failure")
    assert failure is not None
    assert failure.get("message") == "no config in scope \ufffd\ufffd 日本"
    assert xml_safe("a\tb\nc\rd\x1b\ud800") == "a\tb\nc\rd\ufffd\ufffd"


def test_clean_has_one_passing_testcase() -> None:
    _, root = _emit([])
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures")) == ("1", "0")
    (case,) = suite.findall("testcase")
    assert case.get("name") == "ppo-migrate"
    assert list(case) == []  # no failure, error or skipped child: a pass


SHIM = Diagnostic(
    "shim.py", 8, 15, 8, 40, "PPO004", "a compatibility shim; left as it is", scope="run"
)


def test_compatibility_shim_is_a_passing_testcase() -> None:
    """Bug: a PPO004 (informational, never fails the run) counted as a failure."""
    _, root = _emit([FIXABLE, SHIM])
    suite = root.find("testsuite")
    assert suite is not None
    assert (root.get("tests"), root.get("failures")) == ("2", "1")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "1", "0")
    shim = [c for c in suite.findall("testcase") if c.get("classname") == "ppo-migrate.PPO004"]
    (case,) = shim
    assert case.find("failure") is None and case.find("error") is None
    out = case.find("system-out")
    assert out is not None and out.text is not None and "PPO004" in out.text
    _, only = _emit([SHIM])
    assert only.get("failures") == "0"
