"""Every involved player is actionable: colluders each get a proposal, bumhunted victims are offered
the nickname reset the rules allow, and a plain chat offence targets its speaker alone."""

from __future__ import annotations

from datetime import UTC, datetime

from pipeline.findings import Finding, stable_id
from pipeline.policy import propose_actions
from pipeline.rules import RulesConfig

TS = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _finding(category: str, family: str, players: tuple[str, ...], **evidence: object) -> Finding:
    return Finding(finding_id=stable_id("fnd", category, *players), detector=f"x.{category}", rule="collusion",
                   family=family, category=category, score=0.9, players=players, ts=TS, summary=f"{category} by {players[0]}",
                   tournament_id="mtt-1", evidence=dict(evidence))


def test_chip_dumping_proposes_a_sanction_for_the_receiver_too():
    actions = propose_actions(_finding("chip_dumping", "hand", ("p-dumper", "p-receiver")), rules=RulesConfig())
    assert [(a.player_id, a.role, a.kind) for a in actions] == [
        ("p-dumper", "offender", "account_suspension"), ("p-receiver", "partner", "account_suspension")]
    assert len({a.action_id for a in actions}) == 2
    assert actions[1].reason.startswith("partner of p-dumper")


def test_collusive_sit_out_targets_every_member_in_the_tournament():
    actions = propose_actions(_finding("collusive_sit_out", "seat", ("p-a", "p-b", "p-c", "p-b")), rules=RulesConfig())
    assert [a.player_id for a in actions] == ["p-a", "p-b", "p-c"]
    assert {a.scope_value for a in actions} == {"mtt-1"} and {a.kind for a in actions} == {"tournament_disqualification"}


def test_bumhunting_victims_are_offered_a_nickname_reset_never_a_sanction():
    f = _finding("bumhunting", "seat", ("p-hunter",), victims=["p-weak1", "p-weak2", "p-hunter", 7, "p-weak1"])
    actions = propose_actions(f, rules=RulesConfig())
    assert [(a.player_id, a.role, a.kind) for a in actions] == [
        ("p-hunter", "offender", "account_suspension"), ("p-weak1", "victim", "nickname_reset"),
        ("p-weak2", "victim", "nickname_reset")]
    assert all(a.disposition == "proposed" for a in actions)


def test_a_harassment_target_is_not_sanctioned():
    f = _finding("harassment", "chat", ("p-bully", "p-target"))
    assert [(a.player_id, a.role) for a in propose_actions(f, rules=RulesConfig())] == [("p-bully", "offender")]


def test_no_disqualification_is_proposed_without_a_tournament():
    f = _finding("bounty_agreement", "hand", ("p-a", "p-b")).model_copy(update={"tournament_id": None})
    assert propose_actions(f, rules=RulesConfig()) == ()
    named = _finding("bounty_agreement", "hand", ("p-a", "p-b"))
    assert [(a.kind, a.scope_value) for a in propose_actions(named, rules=RulesConfig())] == [
        ("tournament_disqualification", "mtt-1"), ("tournament_disqualification", "mtt-1")]
