"""``ppo_migrate.prefilter.Words``: many words looked for in a file's bytes at once, with
the exact answers of ``any(w in data for w in words)`` (the caller phase's and the
re-exports' tests of every file, which were quadratic in the files and the words)."""

from __future__ import annotations

import random

import pytest
from ppo_migrate.prefilter import WORDS_BY_TOKEN, Words

#: enough words that they are read by token (and not one by one)
MANY = [f"helper_{i}".encode() for i in range(40)] + [b"m1", b"m12", b"from ."]


def test_a_word_inside_a_longer_identifier_counts_as_in_bytes() -> None:
    """``b"m1" in b"chainpkg.m10"`` is true: a word that is only part of a token counts."""
    words = Words(MANY)
    assert len(MANY) >= WORDS_BY_TOKEN
    assert words.any_in(b"from chainpkg.m10 import helper_x\n") is True
    assert words.spelled(b"from chainpkg.m10 import helper_x\n") == {b"m1"}
    assert words.spelled(b"x = helper_123 + m12\n") == {b"helper_1", b"helper_12", b"m1", b"m12"}


def test_a_word_that_is_not_an_identifier_is_looked_for_as_it_is() -> None:
    words = Words(MANY)
    assert words.spelled(b"from . import helper_9\n") == {b"from .", b"helper_9"}
    assert words.any_in(b"from .pkg import x\n") is True  # ``from .`` then ``pkg``
    assert words.any_in(b"from  . import x\n") is False  # two blanks: not the word
    assert words.spelled(b"") == set()


def test_non_ascii_bytes_split_tokens_but_not_the_words_found() -> None:
    """A bytes pattern's ``\\w`` is ASCII: ``é`` ends a token, and ``m1`` beside it is found."""
    words = Words(MANY)
    assert words.spelled("café_m1é = helper_3\n".encode()) == {b"m1", b"helper_3"}


@pytest.mark.parametrize("count", [1, WORDS_BY_TOKEN - 1, WORDS_BY_TOKEN, 300])
def test_the_answers_are_those_of_a_search_word_by_word(count: int) -> None:
    """Random identifiers and texts: ``spelled`` and ``any_in`` equal the plain searches,
    below and above the count from which the words are read by token."""
    rng = random.Random(count)
    alphabet = "ab_1"
    words = sorted({"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 5))).encode() for _ in range(count)})
    search = Words(words)
    for _ in range(200):
        data = "".join(rng.choice(alphabet + " .\n(é") for _ in range(rng.randint(0, 40))).encode()
        expected = {w for w in words if w in data}
        assert search.spelled(data) == expected
        assert search.any_in(data) is bool(expected)
