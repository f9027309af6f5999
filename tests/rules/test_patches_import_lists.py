"""patches._from_imported_words: the words of each package's ``from ... import`` lists,
read once a file, say what each (package, last name) pattern said."""

from __future__ import annotations

import random
import re

from ppo_migrate.rules.patches import _from_imported_words, _from_search, through_names


def _pattern_says(data: bytes, package: str, last: str) -> bool:
    """The per-(package, last name) pattern ``through_names`` compiled before."""
    pattern = re.compile(
        rb"\bfrom\s+" + re.escape(package.encode()) + rb"\s+import\s+(?:\([^)]*|[^\n]*)\b"
        + re.escape(last.encode()) + rb"\b"
    )
    return _from_search(pattern, data)


def test_the_import_lists_words() -> None:
    data = (
        b"from verl.trainer import (\n    constants_ppo,\n    main_ppo as mp)\n"
        b"from a.b import x, y  # z\n"
        b"xfrom c import w\n"
        b"from d import\\\n    v\n"
    )
    words = _from_imported_words(data)
    assert words == {
        b"verl.trainer": {b"constants_ppo", b"main_ppo", b"as", b"mp"},
        b"a.b": {b"x", b"y", b"z"},
    }


def test_the_words_say_what_each_pattern_said() -> None:
    random.seed(7)
    pieces = [b"from", b" ", b"\n", b"\t", b"(", b")", b"a.b", b"a", b"b", b"import", b"x",
              b"x_y", b",", b"#", b"\\", b"ab", b"from a.b import ", b"from a import (", b"xfrom", b"1"]
    for _ in range(5000):
        data = b"".join(random.choice(pieces) for _ in range(random.randint(1, 14)))
        words = _from_imported_words(data)
        for package in ("a.b", "a", "b", "ab"):
            for last in ("x", "x_y", "b", "a", "ab", "1"):
                assert (last.encode() in words.get(package.encode(), ())) is _pattern_says(data, package, last), data


def test_through_names_finds_a_module_imported_by_its_last_name() -> None:
    """``from verl.trainer import (\\n constants_ppo)`` makes ``constants_ppo`` a name
    the calls go through; ``verl.trainer.main_ppo`` spelled only in a comment does not."""
    data = b"from verl.trainer import (\n    constants_ppo,\n)\n# main_ppo\n"
    targets = ("verl.trainer.constants_ppo.get_ppo_ray_runtime_env", "verl.trainer.main_ppo.get_ppo_ray_runtime_env")
    names = through_names([data], targets)
    assert "constants_ppo" in names.through
    assert "main_ppo" not in names.through


def test_module_aliases_held_on_a_line_of_their_own_with_one_known_value() -> None:
    """``through_names``' held aliases (``cp = constants_ppo``): a line binding one name to
    exactly one of the module names known, a comment after it or not; the value compared
    whole, as the pattern of the values' alternation did (benchmark item 9: that pattern's
    compile went away)."""
    from ppo_migrate.rules.patches import through_names

    data = (
        b"from verl.trainer import constants_ppo\n"
        b"class Launcher:\n"
        b"    cp = constants_ppo  # the module\n"
        b"    full: object = verl.trainer.constants_ppo\n"
        b"    other = constants_ppo_old\n"
        b"    pair = constants_ppo, 1\n"
        b"    same == constants_ppo\n"
        b"    crlf = constants_ppo\r\n"
        b"tail=constants_ppo"
    )
    names = through_names([data], ["verl.trainer.constants_ppo.get_ppo_ray_runtime_env"])
    assert names.held == frozenset({"cp", "full", "tail"})
