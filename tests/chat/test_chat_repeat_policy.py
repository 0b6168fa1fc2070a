"""Offence ledger, repeat offenders and the chat policy: mute a clear first offence, then escalate."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from pipeline.contracts import CHAT
from pipeline.policy import chat_ban_hours, comms_suspension_hours
from pipeline.registry import build_pipeline
from pipeline.rules import RulesConfig
from tests.chat.chat_events import FakeClassifier, msg

RULES = RulesConfig()


def _offences(n: int, *, gap: float = 600.0, player: str = "p1"):
    return [msg(f"idiot number {i}", at=i * gap, player_id=player) for i in range(n)]


def test_first_high_confidence_offence_is_muted_automatically_later_ones_are_proposals() -> None:
    pipeline = build_pipeline(rules=RULES)
    first, second = (pipeline.process(CHAT, e).findings for e in _offences(2))
    (mute,) = first[0].actions
    assert mute.disposition == "automatic" and mute.kind == "chat_mute"
    assert first[0].evidence["prior_offences"] == 0
    (proposal,) = second[0].actions
    assert second[0].evidence["prior_offences"] == 1
    assert proposal.disposition == "proposed" and proposal.kind == "chat_restriction"


def test_low_confidence_first_offence_is_not_muted() -> None:
    pipeline = build_pipeline(rules=RULES, classifier=FakeClassifier())
    findings = pipeline.process(CHAT, msg("that was meanish")).findings
    (finding,) = findings
    assert finding.detector == "chat.classifier" and finding.score == 0.7
    assert [a.disposition for a in finding.actions] == ["proposed"]


def test_two_detectors_on_one_line_make_one_mute_action_id() -> None:
    pipeline = build_pipeline(rules=RULES, classifier=FakeClassifier())
    findings = pipeline.process(CHAT, msg("toxic idiot")).findings
    assert {f.detector for f in findings} == {"chat.banned_words", "chat.classifier"}
    assert len({f.actions[0].action_id for f in findings}) == 1
    assert all(f.evidence["prior_offences"] == 0 for f in findings)


def test_repeat_offender_reports_each_rung_once_with_the_ladder() -> None:
    pipeline = build_pipeline(rules=RULES)
    out = [f for e in _offences(9) for f in pipeline.process(CHAT, e).findings]
    repeats = [f for f in out if f.category == "repeat_offender"]
    assert [f.evidence["offence_count"] for f in repeats] == [3, 5, 8]
    hours = [(a.expires_at - a.starts_at) if a.expires_at else None for f in repeats for a in f.actions]
    assert hours == [timedelta(hours=24), timedelta(hours=168), None]
    assert all(a.kind == "chat_ban" and a.disposition == "proposed" for f in repeats for a in f.actions)


def test_old_offences_expire_and_other_players_do_not_count() -> None:
    pipeline = build_pipeline(rules=replace(RULES, chat_offence_window=timedelta(hours=1)))
    spaced = _offences(5, gap=4000.0)
    others = [msg("idiot", at=i, player_id=f"q{i}") for i in range(5)]
    out = [f for e in [*spaced, *others] for f in pipeline.process(CHAT, e).findings]
    assert [f for f in out if f.category == "repeat_offender"] == []


def test_ladder_helpers_follow_the_rules_config() -> None:
    assert [chat_ban_hours(n, RULES) for n in (1, 3, 4, 5, 8, 20)] == [0, 24, 24, 168, None, None]
    assert [comms_suspension_hours(n, RULES) for n in (0, 1, 2, 9)] == [24, 168, None, None]
    custom = replace(RULES, chat_ban_ladder=((2, 1), (4, None)))
    assert chat_ban_hours(2, custom) == 1 and chat_ban_hours(4, custom) is None


def test_replay_gives_identical_findings_and_actions() -> None:
    events = [*_offences(6), msg("he has aces", at=30, player_id="p9", hand_id="h1", players_in_hand=("p1",))]
    runs = [build_pipeline(rules=RULES).process_all((CHAT, e) for e in events) for _ in range(2)]
    assert runs[0] == runs[1] and len(runs[0]) >= 8


def test_a_rant_is_one_episode_for_escalation() -> None:
    pipeline = build_pipeline(rules=RULES)
    rant = [msg(f"idiot {i}", at=i * 20.0) for i in range(3)]
    later = [msg(f"moron {i}", at=3600.0 * (i + 1)) for i in range(2)]
    out = [f for e in [*rant, *later] for f in pipeline.process(CHAT, e).findings]
    priors = [f.evidence["prior_offences"] for f in out if f.detector == "chat.banned_words"]
    assert priors == [0, 0, 0, 1, 2]
    (repeat,) = [f for f in out if f.category == "repeat_offender"]
    assert repeat.evidence["offence_count"] == 3 and repeat.source_event_ids[-1] == later[-1].event_id


def test_false_reporting_proposes_a_timed_restriction_for_every_linked_reporter() -> None:
    from pipeline.detectors.chat.evidence import make_finding
    from pipeline.policy import propose_actions
    from tests.chat.chat_events import T0

    finding = make_finding(
        detector="snapcam.coordinated_reports", category="false_reporting", score=0.9,
        players=("s1", "s2", "s3"), ts=T0, summary="ring", id_parts=("x",), source_event_ids=("e1",),
        evidence={},
    )
    actions = propose_actions(finding, rules=RULES)
    assert [a.player_id for a in actions] == ["s1", "s2", "s3"]
    assert len({a.action_id for a in actions}) == 3
    assert all(a.disposition == "proposed" and a.scope_value == "snapcam_reports" for a in actions)
    assert all(a.expires_at - a.starts_at == timedelta(hours=168) for a in actions)


def test_repeat_offender_evidence_shows_the_offending_lines_with_spans() -> None:
    pipeline = build_pipeline(rules=RULES)
    out = [f for e in _offences(3) for f in pipeline.process(CHAT, e).findings]
    (repeat,) = [f for f in out if f.category == "repeat_offender"]
    lines = repeat.evidence["messages"]
    assert [m["text"] for m in lines] == ["idiot number 0", "idiot number 1", "idiot number 2"]
    assert all(m["spans"] == [{"start": 0, "end": 5, "label": "insult"}] for m in lines)


def test_offences_against_different_rules_are_separate_episodes() -> None:
    # An insult, a flood and hand-in-play advice within two minutes: three rules broken, three
    # episodes (the rung is reached), whereas three insults in that time are one rant.
    pipeline = build_pipeline(rules=RULES)
    events = [msg("idiot", at=0.0)]
    events += [msg("zzz", at=20.0 + 0.5 * i, event_id=f"flood{i}") for i in range(8)]
    events.append(msg("he has aces, fold", at=60.0, hand_id="h1", players_in_hand=("p2", "p3")))
    out = [f for e in events for f in pipeline.process(CHAT, e).findings]
    assert {f.category for f in out} >= {"insult", "flooding", "hand_in_play"}
    (repeat,) = [f for f in out if f.category == "repeat_offender"]
    assert repeat.evidence["offence_count"] == 3 and repeat.source_event_ids[-1] == events[-1].event_id
    rant = [msg(f"idiot {i}", at=i * 20.0, player_id="p5") for i in range(3)]
    assert not [f for e in rant for f in pipeline.process(CHAT, e).findings if f.category == "repeat_offender"]
