"""Issue 26, family 2, trial 26d: dependency files that open with a byte-order mark.

pip reads a requirements file by its BOM (``auto_decode``: UTF-8, UTF-16 and UTF-32, either
byte order): ``pip freeze > requirements.txt`` in Windows PowerShell 5 writes UTF-16 LE with a
BOM, and an editor may put a UTF-8 BOM before the first line. The tool read such a file as
UTF-8, so ``\\ufeffverl==0.8.0`` named another project (or UTF-16 did not decode at all): the
pin of verl 0.8 was not seen, the newest signature was assumed, and a plain ``apply`` broke a
launcher that ran. Every dependency file is now decoded by its BOM in one place
(:func:`ppo_migrate.files.decode_text`, through
:meth:`ppo_migrate.project.snapshot.Snapshot.read_text` and the byte searches'
:func:`ppo_migrate.files.utf8_text`). The executed cases run before and after both applies.
"""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from cli_helpers import LAUNCHER, VERL_08, launcher_project, launcher_ran, only_finding, run_cli

from ppo_migrate.rules.mentions import unread_mentions
from ppo_migrate.rules.versions import verl_evidence
from ppo_migrate.files import decode_text, text_bom, utf8_text
from ppo_migrate.project.snapshot import run_scope

#: encoding name -> how a file's text is written to bytes (mark first)
ENCODINGS = {
    "utf-8-bom": lambda text: codecs.BOM_UTF8 + text.encode("utf-8"),
    "utf-16-le": lambda text: codecs.BOM_UTF16_LE + text.encode("utf-16-le"),
    "utf-16-be": lambda text: codecs.BOM_UTF16_BE + text.encode("utf-16-be"),
    "utf-32-le": lambda text: codecs.BOM_UTF32_LE + text.encode("utf-32-le"),
    "utf-32-be": lambda text: codecs.BOM_UTF32_BE + text.encode("utf-32-be"),
}

#: format -> (file name, its text: verl 0.8.0 on the first line where the format allows, the
#:            line the pin is read at, the requirement as written, the kind)
FORMATS = {
    "requirements": ("requirements.txt", "verl==0.8.0\r\nray==2.40.0\r\n", 1, "verl==0.8.0", "lock"),
    "constraints": ("constraints.txt", "verl==0.8.0\n", 1, "verl==0.8.0", "lock"),
    "pyproject": ("pyproject.toml", '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.8,<0.9"]\n',
                  4, "verl>=0.8,<0.9", "specifier"),
    "setup-cfg": ("setup.cfg", "[metadata]\nname = p\n\n[options]\ninstall_requires =\n    verl==0.8.0\n",
                  6, "verl==0.8.0", "specifier"),
    "environment-yml": ("environment.yml", "name: rl\ndependencies:\n  - pip\n  - pip:\n    - verl==0.8.0\n",
                        5, "verl==0.8.0", "lock"),
    "tox-ini": ("tox.ini", "[testenv]\ndeps =\n    verl==0.8.0\n", 3, "verl==0.8.0", "lock"),
    "pipfile": ("Pipfile", '[packages]\nverl = "==0.8.0"\n', 2, 'verl = "==0.8.0"', "specifier"),
    "dockerfile": ("Dockerfile", "FROM python:3.11\nRUN pip install verl==0.8.0\n", 2, "verl==0.8.0", "lock"),
}


@pytest.mark.parametrize(("data", "codec", "length"), [
    (b"\xef\xbb\xbfverl", "utf-8", 3),
    (b"\xff\xfev\x00", "utf-16-le", 2),
    (b"\xfe\xff\x00v", "utf-16-be", 2),
    (b"\xff\xfe\x00\x00v\x00\x00\x00", "utf-32-le", 4),  # not UTF-16 LE: its mark begins UTF-32 LE's
    (b"\x00\x00\xfe\xff\x00\x00\x00v", "utf-32-be", 4),
    (b"verl==0.8.0", "utf-8", 0),
    (b"", "utf-8", 0),
])
def test_the_mark_names_the_codec(data: bytes, codec: str, length: int) -> None:
    assert text_bom(data) == (codec, length)


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_the_text_and_its_utf8_bytes_drop_the_mark(encoding: str) -> None:
    data = ENCODINGS[encoding]("verl==0.8.0\n")
    assert decode_text(data) == "verl==0.8.0\n"
    assert utf8_text(data) == (data if encoding == "utf-8-bom" else b"verl==0.8.0\n")


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_reader_decodes_a_dependency_file_by_its_mark(tmp_path: Path, fmt: str, encoding: str) -> None:
    """verl 0.8.0 pinned in a file with a BOM decides, at its line, whatever the reader
    (requirements, a constraints file it includes, ``pyproject.toml``, ``setup.cfg``,
    ``environment.yml``, ``tox.ini``, ``Pipfile``, a Dockerfile's install)."""
    name, text, line, written, kind = FORMATS[fmt]
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / name).write_bytes(ENCODINGS[encoding](text))
    if fmt == "constraints":  # read through the root requirements file's ``-c`` (plain UTF-8)
        (root / "requirements.txt").write_text("-c constraints.txt\nverl\n")
    with run_scope():
        decided = verl_evidence(root / "train.py").decided
    assert decided is not None
    assert (str(decided.version), Path(decided.path).name, decided.line, decided.requirement, decided.kind) == (
        "0.8.0", name, line, written, kind)


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-8-bom"])
def test_a_mention_in_a_file_with_a_mark_is_found(tmp_path: Path, encoding: str) -> None:
    """The mention search decodes by the mark too: a UTF-16 ``hatch.toml`` (whose bytes hold
    ``v\\x00e\\x00r\\x00l``, not ``verl``) is searched."""
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "hatch.toml").write_bytes(ENCODINGS[encoding]('[envs.default]\ndependencies = ["verl<0.9"]\n'))
    with run_scope():
        found = unread_mentions(root)
    assert [(Path(m.path).name, m.line, m.written) for m in found] == [("hatch.toml", 2, "verl<0.9")]


@pytest.mark.parametrize("encoding", ["utf-8-bom", "utf-16-le"])
def test_a_requirements_file_with_a_mark_keeps_the_launcher_running(tmp_path: Path, encoding: str) -> None:
    """Trial 26d (``d2_req_utf8_bom_first_line``, ``d2_req_utf16_powershell``): the
    project's ``pyproject.toml`` says ``verl>=0.9.0`` but its ``requirements.txt`` (with a
    BOM) pins the verl 0.8.0 its interpreter has. ``check`` gives PPO005 naming that pin;
    both applies leave the launcher as it is, and it still runs."""
    root, site = launcher_project(tmp_path, {
        "pyproject.toml": '[project]\nname = "proj"\nversion = "0.1.0"\ndependencies = ["verl>=0.9.0", "omegaconf"]\n',
    }, VERL_08)
    (root / "requirements.txt").write_bytes(ENCODINGS[encoding]("verl==0.8.0\r\nomegaconf\r\n"))
    assert launcher_ran(root, site) == "ran None"
    found = only_finding(root)
    assert (found["code"], found["fix"]) == ("PPO005", None), found
    assert "requirements.txt:1 verl==0.8.0" in found["message"], found["message"]
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert (root / "train.py").read_text() == LAUNCHER
        assert launcher_ran(root, site) == "ran None"
