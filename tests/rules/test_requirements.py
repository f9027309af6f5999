"""``ppo_migrate.rules.requirements``: a plain ``verl>=0.9`` is read without packaging's
requirement parser, to what that parser gives (checked against it)."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from ppo_migrate.rules import requirements

_OPERATORS = ["==", "!=", "~=", "<=", ">=", "<", ">", "===", "=", " >=", ">= "]
_VERSIONS = ["0", "0.9", "0.9.0", "1", "1.0.0.0", "01.2", "0.9.*", "0.9a1", "x", "", "\u0660.\u0669", "0.9.", "10.20.30"]
_NAMES = ["verl", "VERL", "Verl", "vErL", "verl_", "ver-l", "verls", "v", "pkg"]
_TAILS = ["", "", "", " ", ",", ";python_version<'3'", "[x]", " @ file:///v"]


def _as_packaging_reads(text: str):
    try:
        req = Requirement(text)
    except InvalidRequirement:
        return None
    return req.name, str(req.specifier), req.url, req.marker is None


def test_a_requirement_is_read_as_packaging_reads_it() -> None:
    rng = random.Random(26)
    plain = 0
    for _ in range(20_000):
        clauses = ",".join(rng.choice(_OPERATORS) + rng.choice(_VERSIONS) for _ in range(rng.randrange(4)))
        text = rng.choice(_NAMES) + clauses + rng.choice(_TAILS)
        got = requirements._parsed_requirement(text)
        if got is not None:
            got = (got.name, str(got.specifier), got.url, got.marker is None)
        assert got == _as_packaging_reads(text), text
        plain += requirements._PLAIN_VERL.fullmatch(text) is not None
    assert plain > 1_000  # the plain reading was exercised, not only the parser's


def test_the_plain_forms_and_the_parser_s_refusals() -> None:
    read = requirements._parsed_requirement
    assert (read("verl>=0.9").name, str(read("verl>=0.9").specifier)) == ("verl", ">=0.9")
    assert str(read("Verl>=0.9,<1.0").specifier) == "<1.0,>=0.9"
    assert len(read("VERL").specifier) == 0 and read("VERL").url is None
    assert read("verl~=1") is None  # a compatible release needs two parts: refused by both
    assert read("verl>=0.9; python_version<'3'").marker is not None  # the parser's reading


def test_verl_s_name_is_packaging_s_canonical_verl() -> None:
    for name in ["verl", "VERL", "Verl", "v.e.r.l", "verl.", "_verl", "ve_rl", "verl--", "verL", "vert"]:
        assert requirements._is_verl(name) == (canonicalize_name(name) == "verl"), name


def test_a_plain_declaration_imports_no_requirement_parser() -> None:
    """``packaging.requirements`` pulls ``markers``, ``tags`` and ``logging`` (whose ``atexit``
    handler keeps the process from ending at once): a ``verl>=0.9`` needs none of them."""
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from ppo_migrate.rules.requirements import _from_requirement\n"
        "found = _from_requirement('verl>=0.9', Path('pyproject.toml'), 4, lock_pins=False)\n"
        "print(found.version, found.kind, found.bounded,"
        " [m for m in ('packaging.requirements', 'packaging.utils', 'logging') if m in sys.modules])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout == "0.9.0 specifier True []\n", done.stderr


def test_a_requirement_with_escaped_quotes_names_its_own_line(tmp_path: Path) -> None:
    """Fresh user 44, W3: a dependency string holding TOML escapes (``\\"3.0\\"``) was named as
    ``pyproject.toml:1``: its text as tomllib gives it is not the text in the file."""
    from cli_helpers import run_cli

    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "p"\nversion = "0"\ndependencies = [\n  "omegaconf",\n'
        '  "verl>=0.9.1; python_version<\\"3.0\\"",\n]\n'
    )
    (tmp_path / "main.py").write_text(
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
        "def m(config):\n    return get_ppo_ray_runtime_env()\n"
    )
    proc = run_cli("check", "--output-format", "concise", "--show-notices", ".", cwd=tmp_path)
    assert "`pyproject.toml:6 verl>=0.9.1; python_version<\"3.0\"`" in proc.stdout, proc.stdout
