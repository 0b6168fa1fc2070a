"""The partner of bounty-agreement talk at a tournament table: the player it is addressed to by a
leading @mention, or the one who answers it with "ok, agreed", is a party of the finding and links
the pair for the fusion with play (soft play under the agreement)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from pipeline.contracts import CHAT, HAND, ChatMessage
from pipeline.detectors.hand import build_hand_detectors
from pipeline.detectors.hand.bounty_finding import addressee_and_target
from pipeline.findings import Finding
from pipeline.rules import RulesConfig
from tests.hands.generators import T0
from tests.hands.scenarios import run
from tests.hands.test_hand_agreements import _tournament_hand

PROPOSAL = "we don't bet into each other, ok?"


def _table(event_id: str, player: str, text: str, *, seconds: float) -> ChatMessage:
    return ChatMessage(
        event_id=event_id, ts=T0 + timedelta(seconds=seconds), channel="tournament", player_id=player,
        nickname=player.capitalize(), text=text, client="desktop", tournament_id="T1", table_id="T1-t1",
    )  # fmt: skip


def _bounty(findings: Sequence[Finding]) -> list[tuple[str, ...]]:
    return [f.players for f in findings if f.category == "bounty_agreement"]


def test_an_at_mentioned_partner_is_a_party() -> None:
    detectors = build_hand_detectors(rules=RulesConfig())
    run(detectors, [(CHAT, _table("m0", "bob", "gl all", seconds=0))])
    found = run(detectors, [(CHAT, _table("m1", "alice", f"@Bob {PROPOSAL}", seconds=5))])
    assert _bounty(found) == [("alice", "bob")]


def test_the_player_who_agrees_is_a_party() -> None:
    detectors = build_hand_detectors(rules=RulesConfig())
    first = run(detectors, [(CHAT, _table("m1", "alice", PROPOSAL, seconds=0))])
    assert _bounty(first) == [("alice",)]
    agreed = run(detectors, [(CHAT, _table("m2", "bob", "ok, agreed", seconds=20))])
    assert _bounty(agreed) == [("alice", "bob")]
    assert run(detectors, [(CHAT, _table("m3", "carol", "ok", seconds=25))]) == []


def test_an_agreed_table_line_fuses_with_soft_play() -> None:
    detectors = build_hand_detectors(rules=RulesConfig())
    run(detectors, [(CHAT, _table("m1", "alice", PROPOSAL, seconds=0))])
    # Alone, a checked-down pot between the two after a table line to nobody is ordinary play...
    assert not [f for f in run(detectors, [(HAND, _tournament_hand("h0", minutes=1))]) if f.category == "soft_play"]
    # ...but Bob's answer makes the line talk between the two of them: the agreement carried out.
    agreed = run(detectors, [(CHAT, _table("m2", "bob", "ok, agreed", seconds=70))])
    soft = [f for f in agreed if f.category == "soft_play"]
    assert len(soft) == 1 and set(soft[0].players) == {"alice", "bob"}


def test_an_answer_too_late_or_from_someone_else_links_nobody() -> None:
    detectors = build_hand_detectors(rules=RulesConfig())
    run(detectors, [(CHAT, _table("m0", "bob", "hi", seconds=0))])
    run(detectors, [(CHAT, _table("m1", "alice", f"@Bob {PROPOSAL}", seconds=1))])
    assert run(detectors, [(CHAT, _table("m2", "carol", "ok, agreed", seconds=3))]) == []
    detectors = build_hand_detectors(rules=RulesConfig())
    run(detectors, [(CHAT, _table("m1", "alice", PROPOSAL, seconds=0))])
    assert run(detectors, [(CHAT, _table("m2", "bob", "ok, agreed", seconds=600))]) == []


def test_addressee_and_target() -> None:
    assert addressee_and_target("@bob let's both go after @carol") == ("bob", "carol")
    assert addressee_and_target("let's both target @carol, ok?") == (None, "carol")
    assert addressee_and_target("@bob, deal?") == ("bob", None)
    assert addressee_and_target("no mentions here") == (None, None)
