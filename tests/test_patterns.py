"""ppo_migrate.patterns: regular expressions compiled on their first use."""

from __future__ import annotations

import re

import pytest

from ppo_migrate.patterns import LazyPattern, lazy_pattern


def test_a_lazy_pattern_compiles_at_its_first_use_and_answers_as_re() -> None:
    """Nothing is compiled until an attribute is asked for; then every answer is the
    compiled pattern's own."""
    lazy = lazy_pattern(r"(?P<name>\w+)=(\d+)", re.ASCII)
    assert "_compiled" not in lazy.__dict__
    m = lazy.search("  key=42 other=7")
    assert "_compiled" in lazy.__dict__
    assert (m.group("name"), m.group(2), m.span()) == ("key", "42", (2, 8))
    assert lazy.findall("a=1 b=2") == [("a", "1"), ("b", "2")]
    assert [x.group(0) for x in lazy.finditer("x=1,y=22")] == ["x=1", "y=22"]
    assert lazy.sub(r"\2", "k=5;") == "5;"
    assert lazy.pattern == r"(?P<name>\w+)=(\d+)"
    assert lazy.flags == re.compile(r"(?P<name>\w+)=(\d+)", re.ASCII).flags
    assert lazy.groups == 2 and lazy.groupindex == {"name": 1}
    assert lazy.compiled is re.compile(r"(?P<name>\w+)=(\d+)", re.ASCII)  # re's cache


def test_a_lazy_bytes_pattern_matches_bytes() -> None:
    lazy = lazy_pattern(rb"\bfrom\s+([\w.]+)")
    assert lazy.match(b"from a.b import c").group(1) == b"a.b"
    assert lazy.match(b"xfrom a") is None
    assert isinstance(lazy, LazyPattern)


def test_an_invalid_pattern_raises_at_its_first_use() -> None:
    lazy = lazy_pattern(r"(unclosed")
    with pytest.raises(re.error):
        lazy.search("text")


def test_no_module_level_lazy_pattern_is_compiled_by_the_imports() -> None:
    """The package's own lazy constants wait for their first use: a fresh process that
    imports the modules holding them has compiled none (a module reading one at import
    would make it useless)."""
    import subprocess
    import sys

    code = (
        "import sys, importlib\n"
        "from ppo_migrate.patterns import LazyPattern\n"
        "for n in ('ppo_migrate.rules.install_pins', 'ppo_migrate.rules.mentions',\n"
        "          'ppo_migrate.project.import_roots', 'ppo_migrate.rules.patches',\n"
        "          'ppo_migrate.rules.versions', 'ppo_migrate.diagnostics'):\n"
        "    importlib.import_module(n)\n"
        "held = [v for k, m in list(sys.modules.items()) if k.startswith('ppo_migrate.')\n"
        "        for v in vars(m).values() if isinstance(v, LazyPattern)]\n"
        "print(len(held), sum('_compiled' in v.__dict__ for v in held))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    held, compiled = map(int, out.stdout.split())
    assert held >= 35
    assert compiled == 0
