"""A module's quoted words (:func:`ppo_migrate.rules.config_callers._quoted`): the first
names asked are searched in the text, the later ones in the set of every quoted word; the
answers are the same (issue 26, benchmark item 9)."""

from __future__ import annotations

import functools
from types import SimpleNamespace

from ppo_migrate.rules import config_callers
from ppo_migrate.rules.config_callers import CallerValues, _quoted

TEXT = (
    'launch = 1\nx = "launch"\ny = \'run\'\nz = "a"b"\n'
    "w = \"train \"step\"\nv = 'mixed\"\nu = \"notclosed\nt = f\"{go}\"\ns = '''doc'''\n"
)


class _Values:
    """The state :func:`_quoted` reads: the module and the set it falls back to."""

    _quoted_words = CallerValues._quoted_words

    def __init__(self, text: str) -> None:
        self.module = SimpleNamespace(text=text)


def test_quoted_names_answer_as_the_set_of_quoted_words_before_and_after_it_is_made() -> None:
    assert isinstance(CallerValues.__dict__["_quoted_words"], functools.cached_property)
    names = ["launch", "run", "a", "b", "step", "train", "mixed", "notclosed", "go", "doc", "x", "launc", "aunch", "u"]
    expected = [True, True, True, True, True, False, False, False, False, True, False, False, False, False]
    values = _Values(TEXT)
    asked = [_quoted(values, n) for n in names]
    assert asked == expected
    assert asked == [n in values._quoted_words for n in names]  # the set, made after the 8th
    assert values.__dict__["_quote_asks"] == config_callers._DIRECT_ASKS == 8
    fresh = _Values(TEXT)
    assert [_quoted(fresh, n) for n in names[:3]] == expected[:3]
    assert "_quoted_words" not in fresh.__dict__  # three names: the text searched, no set made
