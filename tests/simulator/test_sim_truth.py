"""Ground truth agrees with the events it points at; the demo profile shows every kind early."""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta

from pipeline.categories import CATEGORIES
from pipeline.contracts import ChatMessage, HandRecord, SeatActivity, SnapCamReport
from tests.simulator.sim_rooms import generated

CHAT_PLANTED = {
    "insult", "hate", "threat", "sexual", "spam", "malicious_link", "personal_info", "impersonation",
    "collusion_talk", "hand_in_play", "criminal", "flooding", "emoji_spam", "shouting", "harassment",
    "defamation", "illegal_disclosure", "misleading", "confidential",
}


def _by_id():
    return {event.event_id: event for _, event in generated().events}


def test_every_truth_row_points_at_real_events_of_its_offenders() -> None:
    events = _by_id()
    hand_ids = {e.hand_id: e for e in events.values() if isinstance(e, HandRecord)}
    for row in generated().truth:
        assert row.category in CATEGORIES
        assert row.start <= row.end
        assert row.event_ids
        for ref in row.event_ids:
            event = events.get(ref) or hand_ids.get(ref)
            assert event is not None, (row.category, ref)
            if isinstance(event, ChatMessage) and row.category != "repeat_offender":
                assert event.player_id == row.players[0]
            if isinstance(event, SeatActivity):
                assert event.player_id in row.players
            if isinstance(event, SnapCamReport):
                assert event.reported_id in row.players or event.reporter_id in row.players


def test_hit_and_run_rows_are_cash_stints_of_one_to_nine_hands() -> None:
    events = _by_id()
    hands_at = defaultdict(list)
    for event in events.values():
        if isinstance(event, HandRecord) and event.game == "cash":
            for player in event.players:
                hands_at[(event.table_id, player)].append(event.ts)
    rows = [r for r in generated().truth if r.category == "hit_and_run"]
    assert rows
    for row in rows:
        join, leave = (events[e] for e in row.event_ids)
        assert isinstance(join, SeatActivity) and isinstance(leave, SeatActivity)
        # A stint ends at a leave or at removal by the sit-out timer (issue #5).
        assert join.action == "join" and leave.action in ("leave", "sit_out_timeout_removal")
        assert join.game == "cash"
        played = [t for t in hands_at[(row.table_id, row.players[0])] if join.ts <= t <= leave.ts]
        assert 1 <= len(played) <= 9 and len(played) == leave.hands_played_at_table
        assert leave.players_seated > 1 and leave.others_sitting_out < leave.players_seated - 1


def test_collusive_sit_outs_are_repeated_joint_sit_outs_within_seconds() -> None:
    events = _by_id()
    rows = [r for r in generated().truth if r.category == "collusive_sit_out"]
    assert rows
    for row in rows:
        outs = sorted((events[e] for e in row.event_ids if events[e].action == "sit_out"), key=lambda e: e.ts)
        assert {e.player_id for e in outs} <= set(row.players)
        assert all(e.tournament_id == row.tournament_id for e in outs)
        # One row per agreement: at least two episodes, each 2+ members going out within seconds.
        episodes: list[list[SeatActivity]] = []
        for e in outs:
            if episodes and e.ts - episodes[-1][0].ts <= timedelta(seconds=10):
                episodes[-1].append(e)
            else:
                episodes.append([e])
        assert len(episodes) == row.detail["episodes"] >= 2
        assert all(len({e.player_id for e in ep}) >= 2 for ep in episodes)


def test_chip_dumping_hands_move_chips_from_dumper_to_receiver() -> None:
    hands = {e.hand_id: e for e in _by_id().values() if isinstance(e, HandRecord)}
    rows = [r for r in generated().truth if r.category == "chip_dumping"]
    assert rows
    for row in rows:
        dumper, receiver = row.players
        for hand_id in row.event_ids:
            hand = hands[hand_id]
            i, j = hand.players.index(dumper), hand.players.index(receiver)
            assert hand.finishing_stacks[i] < hand.starting_stacks[i]
            assert hand.finishing_stacks[j] > hand.starting_stacks[j]


def test_bounty_agreement_has_its_chat_and_names_a_target() -> None:
    events = _by_id()
    rows = [r for r in generated().truth if r.category == "bounty_agreement"]
    assert len(rows) == 1
    chat = events[rows[0].event_ids[0]]
    assert isinstance(chat, ChatMessage) and chat.channel == "private"
    target = generated().room.population.players[rows[0].detail["target"]]
    assert target.nickname in chat.text


def test_demo_profile_plants_every_kind_early() -> None:
    truth = generated().truth
    start = generated().room.config.start
    # Each chat kind is some abuser's first plant, due 3-30 s in; a seated abuser says it during
    # the first hand that starts after that (hands last 35-80 s), so two minutes bound it for
    # every one of the 16 table categories, while the mean is well under one.
    two_minutes = {r.category for r in truth if r.start - start <= timedelta(minutes=2)}
    assert CHAT_PLANTED | {"snapcam_abuse", "false_reporting", "offensive_nickname"} <= two_minutes
    first_minute = [r for r in truth if r.category in CHAT_PLANTED and r.start - start <= timedelta(minutes=1)]
    assert len({r.category for r in first_minute}) >= len(CHAT_PLANTED) - 2
    assert {"hit_and_run", "collusive_sit_out", "bounty_agreement", "chip_dumping"} <= two_minutes
    assert {"soft_play", "repeat_offender"} <= {r.category for r in truth}


def test_a_normal_half_hour_has_every_pattern_offence() -> None:
    """Bumhunting and soft play are patterns over many stints and hands: a longer room has them."""
    categories = {r.category for r in generated("normal", 5, 30.0, 300).truth}
    assert {"bumhunting", "soft_play", "chip_dumping", "collusive_sit_out", "bounty_agreement"} <= categories


def test_planted_chat_violations_are_in_five_languages() -> None:
    languages = defaultdict(set)
    for row in generated("normal", 5, 30.0, 300).truth:
        if "language" in row.detail:
            languages[row.category].add(row.detail["language"])
    assert set().union(*languages.values()) == {"en", "id", "vi", "hu", "uk"}


def test_every_truth_row_spans_all_of_its_events() -> None:
    # A row whose end precedes one of its events would be kept by a run cut short before that
    # event was sent (and mis-time the matching window of the evaluation).
    events = _by_id() | {e.hand_id: e for _, e in generated().events if isinstance(e, HandRecord)}
    for row in generated().truth:
        times = [events[e].ts for e in row.event_ids if e in events]
        assert times and max(times) <= row.end, (row.category, row.start, row.end)
        if row.category != "repeat_offender":  # starts at the offence that makes it a repeat
            assert row.start <= min(times), (row.category, row.start, row.end)
