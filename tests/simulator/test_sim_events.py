"""Every generated event is valid on the wire, in time order, and seat counts match the table."""

from __future__ import annotations

from collections import defaultdict

from pipeline.contracts import HAND, SEAT, HandRecord, SeatActivity, decode
from pipeline.replay import envelope_line, split_envelope
from simulator.sinks import envelope_text
from tests.simulator.sim_rooms import generated


def test_every_event_decodes_from_its_jsonl_line() -> None:
    events = generated().events
    assert len(events) > 500
    topics = {topic for topic, _ in events}
    assert topics == {"chat.messages", "seat.activity", "hand.records", "snapcam.reports"}
    for topic, event in events:
        line = envelope_text(topic, event)
        assert line == envelope_line(topic, event.model_dump(mode="json"))
        parsed_topic, raw = split_envelope(line)
        assert parsed_topic == topic
        assert decode(topic, raw) == event


def test_events_come_in_event_time_order_with_unique_ids() -> None:
    events = generated().events
    stamps = [event.ts for _, event in events]
    assert stamps == sorted(stamps)
    ids = [event.event_id for _, event in events]
    assert len(ids) == len(set(ids))


def test_seat_counts_follow_the_table_state() -> None:
    """Replaying joins/leaves/sit-outs per table gives exactly the counts each event carries."""
    present: dict[str, dict[str, str]] = defaultdict(dict)
    hands: dict[tuple[str, str], int] = defaultdict(int)
    checked = 0
    for topic, event in generated().events:
        if topic == HAND:
            assert isinstance(event, HandRecord)
            for player in event.players:
                hands[(event.table_id, player)] += 1
            continue
        if topic != SEAT:
            continue
        assert isinstance(event, SeatActivity)
        table = present[event.table_id]
        if event.action == "join":
            assert event.player_id not in table
            table[event.player_id] = "seated"
            hands[(event.table_id, event.player_id)] = 0
        assert event.player_id in table
        away = sum(1 for p, s in table.items() if p != event.player_id and s != "seated")
        assert event.players_seated == len(table)
        assert event.others_sitting_out == away
        assert event.hands_played_at_table == hands[(event.table_id, event.player_id)]
        checked += 1
        if event.action in ("leave", "sit_out_timeout_removal"):
            del table[event.player_id]
        elif event.action in ("sit_out", "disconnect"):
            table[event.player_id] = event.action
        elif event.action in ("sit_in", "reconnect"):
            table[event.player_id] = "seated"
    assert checked > 100


def test_cash_hands_only_deal_in_seated_players_and_stacks_carry_over() -> None:
    last_stack: dict[tuple[str, str], int] = {}
    carried = 0
    for topic, event in generated().events:
        if topic != HAND or not isinstance(event, HandRecord) or event.game != "tournament":
            continue
        for player, start, finish in zip(event.players, event.starting_stacks, event.finishing_stacks, strict=True):
            key = (event.tournament_id or "", player)
            if key in last_stack:
                assert start == last_stack[key]
                carried += 1
            last_stack[key] = finish
        assert set(event.eliminated) == {p for p, f in zip(event.players, event.finishing_stacks, strict=True) if f == 0}
    assert carried > 50
