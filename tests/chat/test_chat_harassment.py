"""Harassment: hostile lines aimed at one player across messages; insults at nobody are not it."""

from __future__ import annotations

from pipeline.detectors.chat.harassment import HarassmentDetector
from tests.chat.chat_events import FakeClassifier, msg


def _run(detector, events):
    # Place-keyed detectors hold the last `lateness` seconds back for reordering: flush at the end.
    found = [f for e in events for f in detector.process(e)]
    return found + list(getattr(detector, "flush", list)())


def _introduce():
    return [msg("hi all", at=0, player_id="p2", nickname="Alice"), msg("hey", at=1, player_id="p3", nickname="Carl")]


def test_three_insults_naming_the_same_player_are_harassment() -> None:
    events = [*_introduce(), *(msg(f"@Alice you idiot {i}", at=10 + i * 30, player_id="p1") for i in range(4))]
    (finding,) = _run(HarassmentDetector(), events)
    assert finding.category == "harassment" and finding.players == ("p1", "p2")
    assert finding.evidence["victims"] == ["p2"] and len(finding.evidence["messages"]) == 3
    assert all(m["spans"] for m in finding.evidence["messages"])


def test_private_messages_use_the_recipient() -> None:
    events = [msg(f"dasar goblok {i}", at=i * 60, channel="private", recipient_id="p7", table_id=None) for i in range(3)]
    (finding,) = _run(HarassmentDetector(), events)
    assert finding.players == ("p1", "p7")


def test_left_alone_spread_targets_friendly_mentions_and_old_lines() -> None:
    friendly = [*_introduce(), *(msg(f"Alice nice hand {i}", at=10 + i * 30, player_id="p1") for i in range(5))]
    spread = [*_introduce(), msg("Alice idiot", at=10), msg("Carl idiot", at=20), msg("idiot", at=30)]
    slow = [*_introduce(), *(msg("Alice idiot", at=10 + i * 900, player_id="p1") for i in range(4))]
    for events in (friendly, spread, slow):
        assert _run(HarassmentDetector(), events) == []


def test_classifier_scores_count_when_the_lexicon_has_nothing() -> None:
    events = [*_introduce(), *(msg(f"Alice you are toxic {i}", at=10 + i * 20, player_id="p1") for i in range(3))]
    assert _run(HarassmentDetector(), events) == []
    (finding,) = _run(HarassmentDetector(classifier=FakeClassifier()), events)
    assert finding.score > 0.8


def test_an_at_mention_of_a_silent_player_is_a_target_and_hostile_phrases_count() -> None:
    lines = ["@Quiet nobody likes you", "@Quiet leave the table", "@Quiet you are the worst player, just quit"]
    (finding,) = _run(HarassmentDetector(), [msg(t, at=i * 8, player_id="p1") for i, t in enumerate(lines)])
    assert finding.players == ("p1",) and finding.evidence["target_nickname"] == "quiet"
    assert finding.evidence["victims"] == []


def test_hostile_phrases_in_other_languages() -> None:
    for lines in (
        ["@Budi pergi sana", "@Budi dasar pecundang", "@Budi berhenti aja"],
        ["@Olena заткнись", "@Olena ти невдаха", "@Olena тебе ніхто не любить"],
        ["@Minh biến đi", "@Minh đồ thua cuộc", "@Minh nghỉ đi"],
    ):
        assert len(_run(HarassmentDetector(), [msg(t, at=i * 8) for i, t in enumerate(lines)])) == 1, lines


def test_friendly_at_mentions_are_not_harassment() -> None:
    lines = ["@Quiet nice hand", "@Quiet gl", "@Quiet ty", "@Quiet where are you from?"]
    assert _run(HarassmentDetector(), [msg(t, at=i * 8) for i, t in enumerate(lines)]) == []
