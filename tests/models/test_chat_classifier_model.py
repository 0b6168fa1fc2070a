"""The shipped chat classifier: fused verdicts, spans into the original text, odd input."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.chat import ChatClassifier, load_classifier
from models.chat.artifact import load_model
from models.chat.classifier import SCORED_CATEGORIES


@pytest.fixture(scope="module")
def clf() -> ChatClassifier:
    return load_classifier(None)


def test_one_verdict_per_text_in_order(clf: ChatClassifier) -> None:
    verdicts = clf.classify(["you are a fucking idiot", "nice hand", "he has aces, fold"])
    assert len(verdicts) == 3
    assert "insult" in verdicts[0].flagged
    assert verdicts[1].flagged == ()
    assert "hand_in_play" in verdicts[2].flagged
    assert set(verdicts[1].scores) == {*SCORED_CATEGORIES, "toxic"}  # every head: defamation, misleading, and the public sets' toxic score


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("ok f u c k you", "f u c k"),
        ("you stupid sh1t", "sh1t"),
        ("fuuuuuck off", "fuuuuuck"),
        ("bi\u200btch", "bi\u200btch"),
    ],
)
def test_obfuscated_words_are_found_and_spans_point_into_the_original(
    clf: ChatClassifier, text: str, word: str
) -> None:
    verdict = clf.classify([text])[0]
    assert verdict.flagged, verdict.scores
    assert any(word in text[s.start : s.end] for s in verdict.spans), verdict.spans


def test_rule_spans_point_at_the_phrase(clf: ChatClassifier) -> None:
    text = "gl all. Add me on Telegram please"
    verdict = clf.classify([text])[0]
    assert "personal_info" in verdict.flagged
    spans = [text[s.start : s.end] for s in verdict.spans if s.label == "personal_info"]
    assert spans == ["Add me on Telegram"]


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("thanks for the game everyone", "en"),
        ("makasih bang, main bagus", "id"),
        ("cảm ơn bạn nhé", "vi"),
        ("köszi, szép volt", "hu"),
        ("дякую, гарна гра", "uk"),
        ("спасибо, хорошая игра", "ru"),
        ("😀😀", "und"),
    ],
)
def test_language(clf: ChatClassifier, text: str, lang: str) -> None:
    assert clf.classify([text])[0].language == lang


ODD = [
    "",
    "   \n\t ",
    "a" * 1_000_000,
    "\x00\x01\x02\xff\ufffd" * 50,
    "hello привет xin chào 你好",
    "مرحبا بالجميع שלום",
    "f\u200du\u200dc\u200dk",
    "👍👍👍🔥🔥",
    "\ud800 lone surrogate",
    "\u202eevil",
]


@pytest.mark.timeout(20)
def test_odd_input_is_classified_without_crashing(clf: ChatClassifier) -> None:
    verdicts = clf.classify(ODD)
    assert len(verdicts) == len(ODD)
    assert verdicts[0].flagged == () and verdicts[0].language == "und"
    assert verdicts[7].flagged == ()
    for text, v in zip(ODD, verdicts, strict=True):
        assert all(0 <= s.start <= s.end <= len(text) for s in v.spans)


def test_non_strings_are_treated_as_empty(clf: ChatClassifier) -> None:
    verdict = clf.classify([None, 42])  # type: ignore[list-item]
    assert [v.flagged for v in verdict] == [(), ()]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(max_size=200), max_size=5))
def test_property_scores_bounded_and_flags_consistent(texts: list[str]) -> None:
    clf = _shared()
    verdicts = clf.classify(texts)
    assert len(verdicts) == len(texts)
    for text, v in zip(texts, verdicts, strict=True):
        assert all(0.0 <= s <= 1.0 for s in v.scores.values())
        for c in v.flagged:
            limit = clf.model.thresholds.get(c, 0.6)
            if c == "insult" and any(s.label in ("insult", "sexual") for s in v.spans):
                # A listed word backs an insult at the toxic head's point, which may lie below
                # the insult head's own review point (classifier.py: word-backed insult).
                limit = min(limit, clf.model.thresholds.get("toxic", limit))
            assert v.scores[c] >= limit, (text, c)
        assert list(v.flagged) == sorted(v.flagged, key=lambda c: -v.scores[c])
        assert all(0 <= s.start <= s.end <= len(text) for s in v.spans)


_CACHE: list[ChatClassifier] = []


def _shared() -> ChatClassifier:
    if not _CACHE:
        _CACHE.append(load_classifier(None))
    return _CACHE[0]


def test_loading_something_else_is_refused(tmp_path: Path) -> None:
    import skops.io as sio

    path = tmp_path / "other.skops"
    sio.dump({"format_version": 99}, path)
    with pytest.raises(ValueError, match="not a chat model"):
        load_model(path)


def test_repeated_texts_get_equal_verdicts_with_their_own_scores(clf: ChatClassifier) -> None:
    first, again = clf.classify(["gg wp", "gg wp"])
    later = clf.classify(["gg wp"])[0]
    assert first.scores == again.scores == later.scores
    first.scores["insult"] = 1.0  # a caller scribbling on its verdict must not reach the cache
    assert clf.classify(["gg wp"])[0].scores["insult"] == later.scores["insult"] != 1.0


def test_cache_changes_nothing_but_the_work(clf: ChatClassifier) -> None:
    texts = ["you are a fucking idiot", "nice hand", "add me on telegram @pokerking77", "nice hand"]
    uncached = load_classifier(None)
    uncached.cache_size = 0
    for a, b in zip(clf.classify(texts), uncached.classify(texts), strict=True):
        assert (a.scores, a.spans, a.flagged, a.language) == (b.scores, b.spans, b.flagged, b.language)
    assert uncached._cache == {}


def test_garbage_collection_is_resumed_after_a_batch(clf: ChatClassifier) -> None:
    import gc

    assert gc.isenabled()
    clf.classify(["one more line", "and another"])
    assert gc.isenabled()
    gc.disable()
    try:
        clf.classify(["a line while the caller paused collection"])
        assert not gc.isenabled()  # a caller's own choice is left alone
    finally:
        gc.enable()
