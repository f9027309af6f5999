"""``ppo-migrate apply`` through the real executable: ``--diff`` output that patch tools apply."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cli_helpers import ppo_migrate_exe, run_cli

IMP = b"from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
CALL, FIXED = b"get_ppo_ray_runtime_env()", b"get_ppo_ray_runtime_env(config)"


def _module(eol: bytes, final: bool, head: bytes = b"", body: bytes = b"") -> bytes:
    lines = [IMP.rstrip(b"\n"), b"", b"def main(config):", body or b"    x = 1",
             b"    return " + CALL]
    return head + eol.join(lines) + (eol if final else b"")


# Every file gets the same rewrite; each tests one way a diff can be unappliable.
DIFF_CASES: dict[str, bytes] = {
    "lf.py": _module(b"\n", True),
    "no_final_newline.py": _module(b"\n", False),
    "crlf_no_final_newline.py": _module(b"\r\n", False),
    "cr_only.py": _module(b"\r", True),
    "cr_only_no_final_newline.py": _module(b"\r", False),
    "form_feed.py": _module(b"\n", False, body=b"    x = 1\x0c  # page"),
    "bom.py": _module(b"\n", True, head=b"\xef\xbb\xbf"),
    "latin1.py": _module(b"\n", False, head=b"# -*- coding: latin-1 -*-\n", body=b'    x = "\xe9"'),
}


def _apply_patch(patch_text: bytes, tree: Path) -> None:
    """Apply a ``-p1`` diff with GNU patch, or with ``git apply`` where patch is missing."""
    if shutil.which("patch"):
        proc = subprocess.run(
            ["patch", "-p1", "--batch", "--fuzz=0", "--no-backup-if-mismatch"],
            input=patch_text, cwd=tree, capture_output=True,
        )
    else:
        if not shutil.which("git"):
            pytest.skip("neither patch nor git is installed")
        subprocess.run(["git", "init", "-q", "."], cwd=tree, check=True)
        proc = subprocess.run(["git", "apply", "-p1", "-"], input=patch_text, cwd=tree,
                              capture_output=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert b"fuzz" not in proc.stdout.lower() and b"offset" not in proc.stdout.lower()


def test_diff_applies_with_patch_and_reproduces_apply(tmp_path: Path) -> None:
    """Bug: a file with no final newline (or CR-only line endings) got a broken diff:
    ``-old+new`` on one line, no ``\\ No newline at end of file``, the next file's header
    glued on; ``patch -p1`` refused it."""
    src = tmp_path / "diffed" / "src"
    src.mkdir(parents=True)
    for name, data in DIFF_CASES.items():
        (src / name).write_bytes(data)
    expected = tmp_path / "applied"
    shutil.copytree(tmp_path / "diffed", expected)

    proc = subprocess.run([*ppo_migrate_exe(), "apply", "--diff", "src"],
                          cwd=tmp_path / "diffed", capture_output=True)
    assert proc.returncode == 1, proc.stderr
    patch_text = proc.stdout
    for name, data in DIFF_CASES.items():  # --diff writes nothing
        assert (src / name).read_bytes() == data
    assert patch_text.count(b"\n--- a/src/") == len(DIFF_CASES) - 1
    body = patch_text[: patch_text.rindex(b"\nWould rewrite")]
    for line in body.split(b"\n"):  # every line is a header, hunk, context, -/+ or marker
        assert line[:1] in (b"-", b"+", b" ", b"@", b"\\"), line
    # the last line changes in every file: a marker after its - and its + line
    assert patch_text.count(b"\n\\ No newline at end of file\n") == 2 * sum(
        not data.endswith(b"\n") for data in DIFF_CASES.values()
    )

    assert run_cli("apply", "src", cwd=expected).returncode == 0
    _apply_patch(body + b"\n", tmp_path / "diffed")
    for name in DIFF_CASES:
        assert (src / name).read_bytes() == (expected / "src" / name).read_bytes(), name
        assert FIXED in (src / name).read_bytes()
