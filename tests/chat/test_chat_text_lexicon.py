"""Normalisation and the abuse lexicon: disguises are caught, harmless words are left alone."""

from __future__ import annotations

import pytest

from pipeline.detectors.chat.banned_words import BannedWordsDetector
from pipeline.detectors.chat.lexicon import compile_lexicon
from pipeline.detectors.chat.text import caps_ratio, emoji_count, fold, is_emoji_only, longest_run, squash
from tests.chat.chat_events import msg

LEXICON = compile_lexicon()


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("fuck you donk", "fuck you"),
        ("F U C K   Y O U", "F U C K   Y O U"),
        ("you iiiidiot", "iiiidiot"),
        ("1d10t", "1d10t"),
        ("id\u200biot", "id\u200biot"),
        ("ты д\u0435бил", "д\u0435бил"),
        ("đồ NGU", "đồ NGU"),
        ("dasar goblok", "goblok"),
        ("kurva anyád", "kurva anyád"),
        ("ти ідіот", "ідіот"),
    ],
)
def test_lexicon_sees_through_disguises_and_spans_point_at_the_original(text: str, term: str) -> None:
    spans = LEXICON.find(text)
    assert spans, text
    assert text[spans[0].start : spans[0].end] == term


@pytest.mark.parametrize(
    "text",
    ["Scunthorpe kysely", "nice hand", "đi ngủ đây", "skill issue", "анжинг", "classic", "raspberry", "ship it"],
)
def test_lexicon_leaves_harmless_text_alone(text: str) -> None:
    assert LEXICON.find(text) == []


def test_surface_measures() -> None:
    assert fold("ĐỒ Ngốc") == "do ngoc"
    assert squash("F.u_c-k Y0u") == "fuckyou"
    assert caps_ratio("NICE HAND") == 1.0 and caps_ratio("nice HAND") == 0.5 and caps_ratio("123") == 0.0
    assert is_emoji_only("😂😂 😂") and not is_emoji_only("gg 😂") and not is_emoji_only("")
    assert emoji_count("👍🏻 ok 🔥") == 3
    assert longest_run("aaaab  ") == 4


def test_banned_words_detector_uses_the_convention_evidence() -> None:
    (finding,) = BannedWordsDetector().process(msg("gg, F*U*C*K Y0U idiot", event_id="e1"))
    assert finding.category == "insult" and finding.rule == "chat.3" and finding.family == "chat"
    (message,) = finding.evidence["messages"]
    assert message["event_id"] == "e1" and message["spans"]
    assert BannedWordsDetector().process(msg("gg wp")) == ()
