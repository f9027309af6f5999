"""``ppo_migrate.prefilter.Words``: many words looked for in a file's bytes at once, with
the exact answers of ``any(w in data for w in words)`` (the caller phase's and the
re-exports' tests of every file, which were quadratic in the files and the words)."""

from __future__ import annotations

import random

import pytest
from ppo_migrate.prefilter import BYTES_A_WORD, WORDS_BY_TOKEN, Words

#: enough words that a short file's tokens are read (and not each word looked for)
MANY = [f"helper_{i}".encode() for i in range(40)] + [b"m1", b"m12", b"from ."]


def test_a_short_file_is_read_by_token_and_a_long_one_word_by_word() -> None:
    words = Words(MANY)
    assert WORDS_BY_TOKEN <= 42 < WORDS_BY_TOKEN + 4000 // BYTES_A_WORD
    assert words.by_token(b"x = 1\n") is True
    assert words.by_token(b"x = 1\n" * 1000) is False
    assert Words([b"m1"]).by_token(b"") is False


@pytest.mark.parametrize("padding", [b"", b"# " + b"pad " * 2000 + b"\n"])
def test_a_word_inside_a_longer_identifier_counts_as_in_bytes(padding: bytes) -> None:
    """``b"m1" in b"chainpkg.m10"`` is true: a word that is only part of a token counts,
    read by token (a short file) or word by word (a long one)."""
    words = Words(MANY)
    assert words.any_in(padding + b"from chainpkg.m10 import helper_x\n") is True
    assert words.spelled(padding + b"from chainpkg.m10 import helper_x\n") == {b"m1"}
    assert words.spelled(padding + b"x = helper_123 + m12\n") == {b"helper_1", b"helper_12", b"m1", b"m12"}
    assert words.any_in(padding + b"x = helper_x + m2\n") is False


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


@pytest.mark.parametrize("count", [1, 10, WORDS_BY_TOKEN, 300])
def test_the_answers_are_those_of_a_search_word_by_word(count: int) -> None:
    """Random identifiers and texts: ``spelled`` and ``any_in`` equal the plain searches,
    for few and many words, short and long texts (both ways of reading them)."""
    rng = random.Random(count)
    alphabet = "ab_1"
    words = sorted({"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 5))).encode() for _ in range(count)})
    search = Words(words)
    ways = set()
    for _ in range(300):
        data = "".join(rng.choice(alphabet + " .\n(é") for _ in range(rng.randint(0, 400))).encode()
        ways.add(search.by_token(data))
        expected = {w for w in words if w in data}
        assert search.spelled(data) == expected
        assert search.any_in(data) is bool(expected)
    if count < WORDS_BY_TOKEN:
        assert ways == {False}
    if count == 300:
        assert ways == {True}


def test_the_whole_tokens_are_a_part_of_the_words_spelled() -> None:
    words = Words(MANY)
    data = b"from chainpkg.m10 import helper_1\n"
    assert words.whole(data) == {b"helper_1"}  # ``m1`` is inside ``m10``: not whole
    assert words.spelled(data) == {b"helper_1", b"m1"}
    assert words.whole(data * 1000) == set()  # a long file: each word looked for instead
