"""Hand detectors: duplicates, soft play, chip dumping, bounty agreements (flagged and left alone)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from pipeline.contracts import CHAT, HAND, ChatMessage, HandRecord
from pipeline.detectors.hand import build_hand_detectors
from pipeline.hands.errors import HandIntegrityError
from pipeline.registry import build_pipeline
from pipeline.rules import RulesConfig
from tests.hands.generators import T0
from tests.hands.scenarios import bounty_scenario, cash_scenario, precision_recall, run
from tests.hands.test_hand_parsing import _decode, _hand

RULES = RulesConfig()


@pytest.fixture(scope="module")
def cash() -> tuple:
    sc = cash_scenario(tables=12, hands=300, seed=3)
    return sc, run(build_hand_detectors(rules=RULES), sc.events)


@pytest.fixture(scope="module")
def bounty() -> tuple:
    sc = bounty_scenario(pairs=5, tournaments_per_pair=8, clean=6, seed=4)
    return sc, run(build_hand_detectors(rules=RULES), sc.events)


def test_duplicate_hand_id_is_rejected_once_with_a_reason() -> None:
    detectors = build_hand_detectors(rules=RULES)
    first = _decode(_hand())
    again = _decode(_hand(event_id="other-event"))
    assert run(detectors, [(HAND, first)]) == []
    with pytest.raises(HandIntegrityError, match="duplicate_hand_id"):
        detectors[0].process(again)
    for d in detectors[1:]:  # the others skip the duplicate instead of counting it twice
        assert d.process(again) == ()


def test_pipeline_reports_duplicate_as_detector_error() -> None:
    pipeline = build_pipeline(rules=RULES)
    record = _decode(_hand())
    assert pipeline.process(HAND, record).errors == ()
    errors = pipeline.process(HAND, _decode(_hand(event_id="again"))).errors
    assert [e.detector for e in errors] == ["hand.integrity"] and "duplicate_hand_id" in errors[0].error


def test_duplicate_guard_forgets_after_its_ttl() -> None:
    detectors = build_hand_detectors(rules=RULES)
    run(detectors, [(HAND, _decode(_hand()))])
    later = _decode(_hand(hand_id="h2", ts=(T0 + timedelta(days=2)).isoformat()))
    run(detectors, [(HAND, later)])
    assert detectors[0].stream.remembered_ids == 1  # type: ignore[attr-defined]


def test_soft_play_and_chip_dumping_are_found_and_clean_tables_left_alone(cash) -> None:
    sc, findings = cash
    for category in ("soft_play", "chip_dumping"):
        precision, recall, flagged = precision_recall(findings, sc.planted, category)
        assert precision >= 0.9 and recall >= 0.9, (category, precision, recall, flagged)
    clean_tables = {f"c{t}x" for t in range(12) if t % 3 == 2}
    assert not [f for f in findings if f.players[0][:4] in clean_tables or f.players[0][:3] in clean_tables]


def test_collusion_finding_carries_evidence_hands_and_statistic(cash) -> None:
    _, findings = cash
    dump = next(f for f in findings if f.category == "chip_dumping")
    ev = dump.evidence
    assert 3 <= len(ev["hands"]) <= 5 and len(ev["hand_ids"]) == len(ev["hands"])
    assert {"name", "value", "expected", "p_value", "null_model"} <= set(ev["statistic"])
    assert ev["statistic"]["actual_flow_bb"] > 0 and dump.family == "hand" and dump.rule == "collusion"
    assert HandRecord.model_validate_json(json.dumps(ev["hands"][0])).hand_id == ev["hand_ids"][0]


def test_bounty_agreements_found_with_and_without_chat(bounty) -> None:
    sc, findings = bounty
    precision, recall, _ = precision_recall(findings, sc.planted, "bounty_agreement")
    assert precision >= 0.95 and recall >= 0.8, (precision, recall)
    fused = [f for f in findings if f.evidence["statistic"]["level"] == "fused"]
    assert fused and min(f.score for f in fused) >= 0.9
    play_only = [f for f in findings if f.evidence["statistic"]["level"] == "play"]
    assert play_only and max(f.score for f in play_only) < 0.9


def _msg(event_id: str, player: str, text: str, *, recipient: str | None = None) -> ChatMessage:
    return ChatMessage(
        event_id=event_id, ts=T0, channel="private" if recipient else "tournament", player_id=player,
        nickname=player, text=text, client="mobile", tournament_id="T9", recipient_id=recipient,
    )


def test_final_table_deal_talk_is_not_collusion() -> None:
    detectors = build_hand_detectors(rules=RULES)
    talk = ["ICM deal? everyone agree to chop", "let's chop it 4 ways", "ok deal", "bagi hadiah rata?",
            "chia giải đều nhé", "делим призовые поровну?"]
    assert run(detectors, [(CHAT, _msg(f"d{i}", "p1", t)) for i, t in enumerate(talk)]) == []


@pytest.mark.parametrize(
    "text",
    ["let's both go after Bob's bounty", "kita berdua incar Bob buat bounty-nya", "đừng cược vào nhau, mình kẹp Bob",
     "ne fogadjunk egymás ellen", "не ставимо один проти одного", "давай вместе выбьем Боба ради баунти"],
)
def test_agreement_talk_alone_is_a_low_priority_finding(text: str) -> None:
    detectors = build_hand_detectors(rules=RULES)
    findings = run(detectors, [(CHAT, _msg("m1", "p1", text, recipient="p2"))])
    assert len(findings) == 1
    f = findings[0]
    assert f.category == "bounty_agreement" and f.players == ("p1", "p2") and f.score < 0.5
    assert f.evidence["messages"][0]["text"] == text and f.tournament_id == "T9"


class _FakeClassifier:
    def __init__(self, score: float) -> None:
        self.score = score

    def classify(self, texts):
        from pipeline.text_model import TextVerdict

        return [TextVerdict(scores={"collusion_talk": self.score}) for _ in texts]


def test_classifier_score_counts_as_chat_evidence() -> None:
    msg = _msg("m2", "p1", "you know what to do with him later", recipient="p2")
    strong = build_hand_detectors(rules=RULES, classifier=_FakeClassifier(0.95))
    weak = build_hand_detectors(rules=RULES, classifier=_FakeClassifier(0.3))
    assert len(run(strong, [(CHAT, msg)])) == 1
    assert run(weak, [(CHAT, msg)]) == []
