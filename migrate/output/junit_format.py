"""``junit``: JUnit XML for CI dashboards.

::

    <?xml version="1.0" encoding="UTF-8"?>
    <testsuites name="ppo-migrate" tests="2" failures="2" errors="0">
      <testsuite name="ppo-migrate" tests="2" failures="2" errors="0" skipped="0">
        <testcase name="src/a.py:3:10 PPO001" classname="ppo-migrate.PPO001" file="src/a.py" line="3">
          <failure message="..." type="PPO001">src/a.py:3:10: PPO001 [*] ...</failure>
        </testcase>
        ...

One testcase with a ``failure`` per finding; with no findings a single passing
testcase (``name="ppo-migrate"``) so dashboards still show that the lint ran.
An informational finding (PPO004, a compatibility shim listed with ``--show-shims``)
is a passing testcase whose ``system-out`` holds the finding: counted in ``tests``,
never in ``failures``.
Paths are as discovered. Characters XML 1.0 cannot hold (most C0 controls) are
replaced by ``\\ufffd``; other non-ASCII characters are written as character
references, so the document is plain ASCII whatever the stream's encoding.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from ppo_migrate.diagnostics import Diagnostic
from ppo_migrate.output.concise_format import format_line

SUITE = "ppo-migrate"
_INVALID_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(text: str) -> str:
    """Replace characters XML 1.0 cannot represent with U+FFFD.

    Args:
        text: any string.
    """
    return _INVALID_XML.sub("\ufffd", text)


def to_element(diagnostics: Sequence[Diagnostic]) -> ET.Element:
    """The ``<testsuites>`` element.

    Args:
        diagnostics: the findings, sorted.
    """
    n = str(len(diagnostics))
    failed = str(sum(1 for d in diagnostics if not d.informational))
    suites = ET.Element("testsuites", name=SUITE, tests=n, failures=failed, errors="0")
    suite = ET.SubElement(
        suites, "testsuite", name=SUITE, tests=n, failures=failed, errors="0", skipped="0"
    )
    if not diagnostics:
        suites.set("tests", "1")
        suite.set("tests", "1")
        ET.SubElement(suite, "testcase", name=SUITE, classname=SUITE)
        return suites
    for d in diagnostics:
        case = ET.SubElement(
            suite,
            "testcase",
            name=xml_safe(f"{d.path}:{d.position} {d.code}"),
            classname=f"{SUITE}.{d.code}",
            file=xml_safe(d.path),
            line=str(d.line),
        )
        body = format_line(d)
        if d.fix is not None:
            body += f"\nfix: {d.fix.message}"
        for r in d.related:
            body += f"\nrelated: {r.path}:{r.line}:{r.column}: {r.message}"
        if d.informational:  # listed, not a failure
            ET.SubElement(case, "system-out").text = xml_safe(body)
            continue
        failure = ET.SubElement(case, "failure", message=xml_safe(d.message), type=d.code)
        failure.text = xml_safe(body)
    return suites


def emit(diagnostics: Sequence[Diagnostic], stream: TextIO, *, root: Path) -> None:
    """Write the JUnit XML document.

    Args:
        diagnostics: the findings, sorted by path, line, column.
        stream: a text stream.
        root: unused; accepted for the emitter signature.
    """
    del root
    element = to_element(diagnostics)
    ET.indent(element)
    stream.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    # character references for non-ASCII: valid under the UTF-8 declaration and
    # writable to a stream of any encoding
    stream.write(ET.tostring(element, encoding="us-ascii", xml_declaration=False).decode("ascii"))
    stream.write("\n")
