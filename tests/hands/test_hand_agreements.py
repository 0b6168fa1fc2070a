"""Agreement talk joined with play: private lines that name no tournament, soft play under a stated
agreement, and the pooled exact test the soft-play statistic uses."""

from __future__ import annotations

import itertools
from datetime import timedelta
from typing import Any

from pipeline.contracts import CHAT, HAND, ChatMessage, HandRecord
from pipeline.detectors.hand import build_hand_detectors
from pipeline.hands.stats import binom_pmf, binom_sum_lower
from pipeline.rules import RulesConfig
from tests.hands.generators import T0
from tests.hands.scenarios import run
from tests.hands.test_hand_parsing import THREE_WAY, _decode, _hand

RULES = RulesConfig()
BOUNTIES = {"alice": 1000, "bob": 1000, "carol": 1000}
CHECKED_DOWN = [
    "d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 7h2c", "p3 f", "p1 cbr 6", "p2 cc",
    "d db 2s3s4d", "p1 cc", "p2 cc", "d db 9h", "p1 cc", "p2 cc", "d db Jc", "p1 cc", "p2 cc",
    "p2 sm KcKd", "p1 sm AcAd",
]


def _tournament_hand(hand_id: str, *, actions: list[str] | None = None, minutes: int = 5) -> HandRecord:
    checked = actions is None
    return _decode(_hand(
        event_id=f"ev-{hand_id}", hand_id=hand_id, game="tournament", tournament_id="T1", table_id="T1-t1",
        ts=(T0 + timedelta(minutes=minutes)).isoformat(), bounties=BOUNTIES,
        actions=CHECKED_DOWN if checked else actions,
        finishing_stacks=[206, 194, 200] if checked else THREE_WAY["finishing_stacks"],
        winnings=[12, 0, 0] if checked else THREE_WAY["winnings"],
    ))


def _private(event_id: str, text: str, *, tournament: str | None = None, minutes: int = 0) -> ChatMessage:
    return ChatMessage(
        event_id=event_id, ts=T0 + timedelta(minutes=minutes), channel="private", player_id="alice",
        nickname="alice", text=text, client="desktop", recipient_id="bob", tournament_id=tournament,
    )


def _by_category(findings: list[Any], category: str) -> list[Any]:
    return [f for f in findings if f.category == category]


def test_private_agreement_naming_no_tournament_is_reported_once_and_fused_later() -> None:
    detectors = build_hand_detectors(rules=RULES)
    first = run(detectors, [(CHAT, _private("m1", "we don't bet into each other, ok?"))])
    assert [(f.category, f.players, f.tournament_id) for f in first] == [("bounty_agreement", ("alice", "bob"), None)]
    assert first[0].score < 0.5 and first[0].evidence["messages"][0]["event_id"] == "m1"
    again = run(detectors, [(CHAT, _private("m2", "We don't bet into each other,  ok?", minutes=1))])
    assert again == [], "one chat-level finding per pair and agreement"
    other = run(detectors, [(CHAT, _private("m3", "let's both target @carol for her bounty", minutes=2))])
    assert [f.evidence["messages"][0]["event_id"] for f in other] == ["m3"], "a new target is a new agreement"
    assert other[0].finding_id != first[0].finding_id
    assert run(detectors, [(CHAT, _private("m4", "so we both target @Carol, right", minutes=3))]) == []
    soft = _by_category(run(detectors, [(HAND, _tournament_hand("h1"))]), "soft_play")
    assert len(soft) == 1 and set(soft[0].players) == {"alice", "bob"} and soft[0].tournament_id == "T1"
    assert soft[0].evidence["hand_ids"] == ["h1"] and "m1" in soft[0].source_event_ids


def test_checked_down_pot_without_agreement_talk_is_ordinary() -> None:
    detectors = build_hand_detectors(rules=RULES)
    small_talk = _private("m1", "gl in the bounty tonight")
    assert run(detectors, [(CHAT, small_talk), (HAND, _tournament_hand("h1"))]) == []


def test_agreement_then_a_contested_pot_is_not_soft_play() -> None:
    detectors = build_hand_detectors(rules=RULES)
    talk = _private("m1", "we don't bet into each other", tournament="T1")
    bet_into = _tournament_hand("h1", actions=list(THREE_WAY["actions"]))  # alice bets the flop into bob
    findings = run(detectors, [(CHAT, talk), (HAND, bet_into)])
    assert _by_category(findings, "soft_play") == []
    assert _by_category(findings, "bounty_agreement"), "the talk itself is still reported"


def test_talk_arriving_after_the_checked_down_pot_still_joins_it_but_table_talk_does_not() -> None:
    """A private line between the two joins their pot; a table line naming a target links its sender
    with anyone (enough for a bounty hunt, too loose for soft play)."""
    nick = ChatMessage(event_id="m0", ts=T0, channel="tournament", player_id="carol", nickname="carol",
                       text="gl", client="desktop", tournament_id="T1")
    table = ChatMessage(
        event_id="m1", ts=T0 + timedelta(minutes=9), channel="tournament", player_id="alice", nickname="alice",
        text="let's both target @carol and take her bounty", client="desktop", tournament_id="T1",
    )
    detectors = build_hand_detectors(rules=RULES)
    findings = run(detectors, [(CHAT, nick), (HAND, _tournament_hand("h1")), (CHAT, table)])
    assert _by_category(findings, "soft_play") == [] and _by_category(findings, "bounty_agreement")
    private = _private("m2", "remember, we never bet into each other", tournament="T1", minutes=10)
    later = run(detectors, [(CHAT, private)])
    assert [f.players for f in _by_category(later, "soft_play")] == [("alice", "bob")]


def test_pooled_lower_tail_matches_enumeration() -> None:
    groups = [(4, 0.3), (3, 0.6), (5, 0.1)]
    for k in range(0, 6):
        exact = 0.0
        for counts in itertools.product(*(range(n + 1) for n, _ in groups)):
            if sum(counts) <= k:
                prob = 1.0
                for c, (n, p) in zip(counts, groups, strict=True):
                    prob *= binom_pmf(c, n, p)
                exact += prob
        assert abs(binom_sum_lower(groups, k) - exact) < 1e-12, k
    assert binom_sum_lower(groups, -1) == 0.0 and abs(binom_sum_lower(groups, 12) - 1.0) < 1e-12
