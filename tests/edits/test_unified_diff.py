"""``ppo_migrate.edits.unified_diff``: the patience-anchored diff ``apply --diff`` prints.

Oracles: :func:`difflib.unified_diff` (the same bytes where both match lines alike), an
independent applier of unified diffs written here, and ``git apply`` itself.
"""

from __future__ import annotations

import difflib
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppo_migrate.edits.unified_diff import diff_lines, opcodes, unified_diff

_HUNK = re.compile(rb"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n")


def _apply(old: bytes, patch: bytes) -> bytes:
    """``patch`` applied to ``old`` strictly: every context and removed line must be there,
    every hunk's counts must match (an applier independent of the code under test)."""
    if not patch:
        return old
    src = diff_lines(old)
    rows = patch.split(b"\n")
    assert rows[0].startswith(b"--- a/") and rows[1].startswith(b"+++ b/")
    # back to diff lines: a "\ No newline" marker belongs to the line before it
    body: list[bytes] = []
    for row in rows[2:-1]:
        if row.startswith(b"\\ No newline"):
            body[-1] += row + b"\n"
        else:
            body.append(row + b"\n")
    out: list[bytes] = []
    at = 0
    k = 0
    while k < len(body):
        m = _HUNK.fullmatch(body[k])
        assert m, body[k]
        start, count = int(m[1]), int(m[2] if m[2] is not None else 1)
        new_count = int(m[4] if m[4] is not None else 1)
        begin = start - 1 if count else start
        assert begin >= at
        out += src[at:begin]
        at = begin
        k += 1
        seen_old = seen_new = 0
        while k < len(body) and not body[k].startswith(b"@@"):
            tag, line = body[k][:1], body[k][1:]
            if tag in (b" ", b"-"):
                assert src[at] == line, (at, src[at], line)
                at += 1
                seen_old += 1
            if tag in (b" ", b"+"):
                out.append(line)
                seen_new += 1
            k += 1
        assert (seen_old, seen_new) == (count, new_count)
    out += src[at:]
    joined = b"".join(out)
    return joined.replace(b"\n\\ No newline at end of file\n", b"")


def _covers(codes, a, b) -> None:
    """The opcodes cover both sequences in order, equal ones on equal lines."""
    i = j = 0
    for tag, i1, i2, j1, j2 in codes:
        assert (i1, j1) == (i, j)
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
        i, j = i2, j2
    assert (i, j) == (len(a), len(b))
    assert all(x[0] != y[0] for x, y in zip(codes, codes[1:]))


LINES = st.lists(st.sampled_from([b"a", b"b", b"c", b"return f()", b"", b"x = 1"]), max_size=30)


@settings(max_examples=300, deadline=None)
@given(LINES, LINES, st.booleans(), st.booleans())
def test_any_two_texts_patch_into_each_other(a, b, end_a, end_b) -> None:
    """Repeated lines, empty files, a last line without a newline: the patch turns the old
    bytes into the new ones, and the opcodes cover both in order."""
    old = b"\n".join(a) + (b"\n" if end_a and a else b"")
    new = b"\n".join(b) + (b"\n" if end_b and b else b"")
    patch = unified_diff(old, new, "m.py")
    assert (patch == b"") == (old == new)
    assert _apply(old, patch) == new
    _covers(opcodes(diff_lines(old), diff_lines(new)), diff_lines(old), diff_lines(new))


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 400),
    st.lists(st.tuples(st.integers(0, 399), st.sampled_from(["replace", "insert", "delete"])), max_size=12),
)
def test_a_rewrite_of_distinct_lines_is_difflib_s_diff_byte_for_byte(n, changes) -> None:
    """Lines replaced, inserted or deleted among distinct lines (a rewrite's usual shape):
    the same hunks and bytes as :func:`difflib.unified_diff`."""
    a = [b"line %d\n" % i for i in range(n)]
    b = list(a)
    for k, (at, what) in enumerate(sorted(set(changes), reverse=True)):
        if at >= len(b):
            continue
        if what == "replace":
            b[at] = b"changed %d\n" % k
        elif what == "insert":
            b.insert(at, b"inserted %d\n" % k)
        else:
            del b[at]
    old, new = b"".join(a), b"".join(b)
    expected = b"".join(difflib.diff_bytes(difflib.unified_diff, a, b, b"a/m.py", b"b/m.py"))
    assert unified_diff(old, new, "m.py") == expected


def _big(n: int, call: str) -> bytes:
    head = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    return (head + "".join(
        f"def run_{i}(config):\n    value = {i}\n    return {call}\n\n\n" for i in range(n)
    )).encode()


def test_a_thousand_changed_lines_among_repeated_ones_are_matched_line_for_line(monkeypatch) -> None:
    """The shape that took ``difflib`` 40 s in a 1 MB module: every changed line is its own
    one-line replace, and ``SequenceMatcher`` sees only the short stretches between the
    unique lines, never the file."""
    seen: list[tuple[int, int]] = []

    class Counting(difflib.SequenceMatcher):
        def __init__(self, isjunk, a, b):
            seen.append((len(a), len(b)))
            super().__init__(isjunk, a, b)

    monkeypatch.setattr(difflib, "SequenceMatcher", Counting)
    old = _big(1000, "get_ppo_ray_runtime_env()")
    new = _big(1000, "get_ppo_ray_runtime_env(config)")
    a, b = diff_lines(old), diff_lines(new)
    codes = opcodes(a, b)
    # the changed line and the two blank lines after it (repeated, so no anchors; the
    # last function's are the common end)
    assert len(seen) == 1000 and set(seen) == {(3, 3), (1, 1)}
    _covers(codes, a, b)
    changed = [c for c in codes if c[0] != "equal"]
    assert len(changed) == 1000
    assert all(c[0] == "replace" and c[2] - c[1] == 1 and c[4] - c[3] == 1 for c in changed)
    patch = unified_diff(old, new, "m.py")
    assert patch.count(b"\n-    return get_ppo_ray_runtime_env()\n") == 1000
    assert _apply(old, patch) == new


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_apply_takes_the_patch(tmp_path: Path) -> None:
    """``git apply`` (the real tool) turns the old file into the new one, a CRLF file and one
    without a last newline included."""
    cases = {
        "big.py": (_big(300, "get_ppo_ray_runtime_env()"), _big(300, "get_ppo_ray_runtime_env(config)")),
        "crlf.py": (b"import x\r\n\r\ndef f(config):\r\n    return g()\r\n", b"import x\r\n\r\ndef f(config):\r\n    return g(config)\r\n"),
        "noeol.py": (b"a = 1\nb = g()", b"a = 1\nb = g(config)"),
    }
    subprocess.run(["git", "init", "-q", "."], cwd=tmp_path, check=True)
    patch = b""
    for name, (old, new) in cases.items():
        (tmp_path / name).write_bytes(old)
        patch += unified_diff(old, new, name)
    proc = subprocess.run(["git", "apply", "-"], input=patch, cwd=tmp_path, capture_output=True)
    assert proc.returncode == 0, proc.stderr
    for name, (_, new) in cases.items():
        assert (tmp_path / name).read_bytes() == new


_ODD_NAMES = ["my dir/m x.py", "a\tb.py", "new\nline.py", 'q"uote.py', "back\\slash.py", "caf\u00e9.py"]


@pytest.mark.parametrize("tool", ["git", "patch"])
def test_odd_file_names_are_written_as_git_writes_them(tmp_path: Path, tool: str) -> None:
    """A fresh tester: with a space in a name ``patch -p1`` could not find the file, with a tab
    or a newline ``git apply`` failed. Names are quoted (C escapes) or followed by a tab as
    ``git diff`` writes them, and both tools apply the patch."""
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")
    old, new = b"a = 1\nb = g()\n", b"a = 1\nb = g(config)\n"
    patch = b""
    for name in _ODD_NAMES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(old)
        patch += unified_diff(old, new, name)
    assert b'--- "a/a\\tb.py"\n' in patch and b"--- a/my dir/m x.py\t\n" in patch
    assert b'+++ "b/q\\"uote.py"\n' in patch and b'+++ "b/back\\\\slash.py"\n' in patch
    if tool == "git":
        subprocess.run(["git", "init", "-q", "."], cwd=tmp_path, check=True)
        cmd = ["git", "apply", "-"]
    else:
        cmd = ["patch", "-p1", "--batch", "--silent"]
    proc = subprocess.run(cmd, input=patch, cwd=tmp_path, capture_output=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in _ODD_NAMES:
        assert (tmp_path / name).read_bytes() == new, name
