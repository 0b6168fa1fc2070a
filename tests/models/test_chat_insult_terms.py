"""The team's ru/uk insult list (corpus/insults.py): inflected forms reach the shipped lexicon,
match inside messages (also when disguised), and leave table talk and poker words alone."""

from __future__ import annotations

import pytest

from models.chat.artifact import DEFAULT_PATH, load_model
from models.chat.corpus.insults import insult_terms
from models.chat.corpus.table_talk import table_talk
from models.chat.lexicon import LANG_BIT, Lexicon
from models.chat.normalize import Normalizer
from models.chat.training import with_authored_terms


def test_paradigms_inflect_lemmas_and_drop_bare_stems() -> None:
    terms = insult_terms()
    for form in ("выродок", "выродки", "выродков", "дураку", "тупого", "мразью", "сволочи", "заткнись"):
        assert form in terms["ru"]
    for form in ("виродок", "виродки", "падлюкою", "тупий", "стули пельку"):
        assert form in terms["uk"]
    assert not {"туп", "дур"} & (terms["ru"] | terms["uk"])  # stems are not words


def test_authored_terms_are_added_with_their_language_and_keep_the_licensed_ones() -> None:
    licensed = {"сука": LANG_BIT["ru"], "fuck": LANG_BIT["en"]}
    merged = with_authored_terms(licensed, Normalizer())
    assert merged["fuck"] == LANG_BIT["en"] and merged["сука"] == LANG_BIT["ru"]
    assert merged["выродок"] & LANG_BIT["ru"] and merged["виродок"] & LANG_BIT["uk"]
    assert merged["баран"] == LANG_BIT["ru"] | LANG_BIT["uk"]  # in both lists


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return Lexicon(with_authored_terms({}, Normalizer()))


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("ты выродок и дурак", "выродок"),
        ("гнусный ВЫРОДОК", "выродок"),
        ("вот ты дeбил", "дебил"),  # Latin e inside a Cyrillic word
        ("ти тупий баран", "тупий"),
    ],
)
def test_insults_match_in_messages(lexicon: Lexicon, text: str, word: str) -> None:
    folded = Normalizer().views(text).folded
    assert word in [folded.text[h.start : h.end] for h in lexicon.find(folded)]


def test_no_table_talk_line_holds_an_authored_insult(lexicon: Lexicon) -> None:
    normalizer = Normalizer()
    for lang in ("ru", "uk"):
        lines = table_talk(lang)
        hits = [t for t in lines if lexicon.find(normalizer.views(t).folded)]
        assert hits == [], (lang, hits[:5])


def test_shipped_lexicon_holds_the_authored_insults() -> None:
    terms = load_model(DEFAULT_PATH).lexicon
    assert {"выродок", "кремлебот", "виродок", "покидьок"} <= terms.keys()
