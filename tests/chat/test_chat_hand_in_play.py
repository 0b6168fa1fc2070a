"""Hand-in-play: cards, reads and advice during a running hand, by language and by who said it."""

from __future__ import annotations

import pytest

from pipeline.contracts import CHAT
from pipeline.detectors.chat.hand_in_play import HandInPlayDetector
from pipeline.registry import build_pipeline
from pipeline.rules import RulesConfig
from tests.chat.chat_events import msg

IN_HAND = ("p2", "p3")

FLAGGED = [
    "he has aces",
    "fold, he's got the nuts",
    "call!",
    "AK",
    "pocket kings",
    "Ah Kd",
    "dont call, he has a set",
    "dia pegang as raja, lipat aja",
    "jangan call, dia punya flush",
    "nó có đôi A, úp đi",
    "đừng theo",
    "dobd el, neki van ászai",
    "ne add meg",
    "у нього тузи, скидай",
    "в нього кишенькові королі",
    "у него натс, сбрасывай",
    "у него карманные короли",
]
NOT_FLAGGED = ["nh", "gg wp", "ty", "nice hand", "ship it", "lag again?", "nice call", "I fold",
               "I had aces", "good luck", "ok", "JK", "хорошая раздача", "szép hívás", "cảm ơn"]


@pytest.mark.parametrize("text", FLAGGED)
def test_cards_reads_and_advice_during_a_hand_are_flagged(text: str) -> None:
    (finding,) = HandInPlayDetector().process(msg(text, player_id="p9", hand_id="h1", players_in_hand=IN_HAND))
    assert finding.category == "hand_in_play" and finding.rule == "hand_in_play"
    assert finding.evidence["hand_ids"] == ["h1"]
    assert finding.evidence["messages"][0]["spans"], text
    assert finding.spans and all(0 <= s.start < s.end <= len(text) for s in finding.spans)


@pytest.mark.parametrize("text", FLAGGED)
def test_the_same_text_after_the_hand_is_left_alone(text: str) -> None:
    assert HandInPlayDetector().process(msg(text, player_id="p9", hand_id=None)) == ()


@pytest.mark.parametrize("text", NOT_FLAGGED)
def test_table_talk_during_a_hand_is_left_alone(text: str) -> None:
    assert HandInPlayDetector().process(msg(text, player_id="p9", hand_id="h1", players_in_hand=IN_HAND)) == ()


def test_severity_is_higher_from_outside_the_hand_and_in_private_to_a_player_in_it() -> None:
    detector = HandInPlayDetector()
    text = "fold"
    (inside,) = detector.process(msg(text, player_id="p2", hand_id="h1", players_in_hand=IN_HAND))
    (outside,) = detector.process(msg(text, player_id="p9", hand_id="h1", players_in_hand=IN_HAND))
    (private,) = detector.process(
        msg(text, player_id="p9", hand_id="h1", players_in_hand=IN_HAND, channel="private", recipient_id="p3")
    )
    assert inside.score < outside.score < private.score
    assert outside.evidence["outsider"] is True and inside.evidence["outsider"] is False
    assert private.players == ("p9", "p3") and private.evidence["private_to_player_in_hand"] is True


def test_policy_proposes_suspension_of_all_communication_and_escalates() -> None:
    pipeline = build_pipeline(rules=RulesConfig(), classifier=None)
    first = pipeline.process(CHAT, msg("he has aces", at=0, player_id="p9", hand_id="h1", players_in_hand=IN_HAND))
    second = pipeline.process(CHAT, msg("call!", at=600, player_id="p9", hand_id="h2", players_in_hand=IN_HAND))
    (a1,) = next(f for f in first.findings if f.category == "hand_in_play").actions
    (a2,) = next(f for f in second.findings if f.category == "hand_in_play").actions
    assert a1.kind == a2.kind == "comms_suspension" and a1.scope_value == "chat,emoji,snapcam"
    assert a1.disposition == "proposed"
    assert a1.expires_at is not None and a2.expires_at is not None
    assert (a1.expires_at - a1.starts_at).total_seconds() == 24 * 3600
    assert (a2.expires_at - a2.starts_at).total_seconds() == 168 * 3600
