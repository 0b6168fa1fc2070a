"""The word tokenizers (`models/chat/tokens.py`, C in `_tokens.c`) give exactly the lists the
regexes they replace give: checked on every code point, on runs that mix them, on the corpora
and on hypothesis text; and on the CI platform the extension is really built."""

from __future__ import annotations

import platform
import random
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.chat import tokens
from models.chat.corpus.poker import LABELLED
from models.chat.corpus.table_talk import BASE, table_talk
from models.chat.tokens import ALNUM_WORD, LETTER_WORD, alnum_words, letter_words

EVERY = [chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF]


def test_the_extension_is_built_where_ci_runs() -> None:
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        pytest.skip("built wherever a C compiler is present; required only on the CI platform")
    assert alnum_words is not ALNUM_WORD.findall and letter_words is not LETTER_WORD.findall


def test_every_code_point_is_classified_as_the_regexes_classify_it() -> None:
    alone = [c for c in EVERY if alnum_words(c) != ALNUM_WORD.findall(c) or letter_words(c) != LETTER_WORD.findall(c)]
    assert alone == []
    # Joined: runs across every boundary between word and non-word characters of all scripts.
    text = "".join(EVERY)
    assert alnum_words(text) == ALNUM_WORD.findall(text)
    assert letter_words(text) == LETTER_WORD.findall(text)
    assert len(letter_words(text)) > 500 and len(alnum_words(text)) > 500  # the scripts do hold words


def test_chat_lines_and_shuffled_characters_give_the_same_words() -> None:
    lines = [t for lang in BASE for t in table_talk(lang)] + [t for t, _, _ in LABELLED]
    rng = random.Random(11)
    lines += ["".join(rng.choice(EVERY) for _ in range(rng.randrange(60))) for _ in range(2000)]
    lines += ["", " ", "3bet 4x", "đụ má", "ｆｏｌｄ", "k_y_s", "a\u0301b", "١٢٣abc٤", "x" * 10_000]
    assert [t for t in lines if alnum_words(t) != ALNUM_WORD.findall(t)] == []
    assert [t for t in lines if letter_words(t) != LETTER_WORD.findall(t)] == []


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_gives_the_same_words(text: str) -> None:
    assert alnum_words(text) == ALNUM_WORD.findall(text)
    assert letter_words(text) == LETTER_WORD.findall(text)


def test_the_extension_refuses_what_is_not_text() -> None:
    if tokens.alnum_words is ALNUM_WORD.findall:
        pytest.skip("extension not built")
    with pytest.raises(TypeError):
        alnum_words(b"bytes")  # type: ignore[arg-type]
