"""Recurring bounty tournaments: the agreement pair registers in each, with a truth row per
tournament; agreements planted without chat leave no agreement talk behind."""

from __future__ import annotations

import random
from functools import cache
from itertools import pairwise

from pipeline.contracts import ChatMessage, HandRecord
from simulator.config import PERSONAS, RoomConfig
from simulator.decisions import Spot, Tactics, decide
from simulator.room import Room


@cache
def _room(every: float | None, chat: bool) -> tuple[Room, tuple[object, ...]]:
    room = Room(RoomConfig(seed=3, players=120, minutes=150, hands=True, bounty_every_minutes=every,
                           agreement_chat=chat))
    events = tuple(event for _, event in room.events())
    return room, events


def _pair(room: Room) -> tuple[str, ...]:
    return room.population.group("bounty")[0].members


def test_series_runs_several_bounty_tournaments_with_the_pair_in_each() -> None:
    room, events = _room(40.0, True)
    pair = _pair(room)
    bounty = [t for t in room.tournaments if t.spec.fmt == "bounty"]
    assert [t.spec.tournament_id for t in bounty] == ["t-bounty-1", "t-bounty-2", "t-bounty-3", "t-bounty-4"]
    assert [t.spec.start_s for t in bounty] == [60.0, 2460.0, 4860.0, 7260.0]
    seated: dict[str, set[str]] = {}
    for e in events:
        if isinstance(e, HandRecord) and e.tournament_id:
            seated.setdefault(e.tournament_id, set()).update(e.players)
    for t in bounty:
        assert set(pair) <= {p.id for p in t.entrants}
        assert set(pair) <= seated[t.spec.tournament_id]  # they actually played in it
    # Consecutive tournaments (which may overlap in time) draw different honest entrants.
    others = [{p.id for p in t.entrants} - set(pair) for t in bounty]
    assert all(not (a & b) for a, b in pairwise(others))
    rows = [r for r in room.truth if r.category == "bounty_agreement"]
    assert sorted(r.tournament_id or "" for r in rows) == sorted(t.spec.tournament_id for t in bounty)
    assert all(r.players == pair and r.detail["chat"] is True for r in rows)
    talk = [r for r in room.truth if r.category == "collusion_talk" and r.players == pair]
    assert len(talk) == len(bounty)
    private = [e for e in events if isinstance(e, ChatMessage) and e.channel == "private"
               and e.player_id in pair and e.recipient_id in pair]
    assert len(private) == 2 * len(bounty)  # the proposal and the "ok" per tournament


def test_default_room_keeps_one_bounty_tournament() -> None:
    room, _ = _room(None, True)
    assert [t.spec.tournament_id for t in room.tournaments] == ["t-bounty-1", "t-turbo-1"]
    assert len([r for r in room.truth if r.category == "bounty_agreement"]) == 1


def test_agreements_without_chat_plant_no_talk() -> None:
    room, events = _room(40.0, False)
    pair = set(_pair(room))
    rows = [r for r in room.truth if r.category == "bounty_agreement"]
    assert len(rows) == 4
    assert all(r.detail["chat"] is False for r in rows)
    ids = {e.event_id: e for e in events if isinstance(e, ChatMessage)}
    assert not any(ref in ids for r in rows for ref in r.event_ids)
    assert not [r for r in room.truth if r.category == "collusion_talk" and set(r.players) == pair]
    private = [e for e in ids.values() if e.channel == "private" and e.player_id in pair and e.recipient_id in pair]
    assert private == []


def _spot(all_in: frozenset[int]) -> Spot:
    # Seat 2 has shoved; seat 0 (a friend of seat 1) faces no bet post-flop.
    return Spot(index=0, street=1, to_call=0, current=0, min_raise_to=100, max_to=5000, pot=3000,
                can_raise=True, live=frozenset({0, 1, 2}), last_aggressor=2, big_blind=100, all_in=all_in)


def test_check_down_friends_never_bet_around_a_third_players_all_in() -> None:
    rng = random.Random(5)
    style = PERSONAS["regular"].style
    check = Tactics(friends=frozenset({frozenset({0, 1})}), check_down=True)
    hunt = Tactics(friends=frozenset({frozenset({0, 1})}), target=2)
    for _ in range(50):
        decision, tactic = decide(_spot(frozenset({2})), hole=(0, 1), board=[2, 3, 4], style=style, tactics=check,
                                  active=True, all_in_or_fold=False, rng=rng)
        assert decision == ("cc", 0) and tactic == "check_down"
    # Without the all-in, or without the option, the friends are free to bet (the isolation hunt).
    free = {decide(_spot(frozenset()), hole=(0, 1), board=[2, 3, 4], style=style, tactics=check, active=True,
                   all_in_or_fold=False, rng=rng)[1] for _ in range(50)}
    assert free == {None}
    hunted = {decide(_spot(frozenset({2})), hole=(0, 1), board=[2, 3, 4], style=style, tactics=hunt, active=True,
                     all_in_or_fold=False, rng=rng)[0][0] for _ in range(50)}
    assert "cbr" in hunted


def test_check_down_calls_with_a_range_wider_once_the_partner_is_in() -> None:
    """Facing a third player's all-in pre-flop, a hunter calls a wide range (not any two cards: the
    pair must survive to play the series); once the partner has called he gangs up wider still."""
    rng = random.Random(2)
    style = PERSONAS["regular"].style
    check = Tactics(friends=frozenset({frozenset({0, 1})}), check_down=True)

    def facing(partner_bet: int) -> Spot:
        return Spot(index=0, street=0, to_call=400, current=400, min_raise_to=800, max_to=5000, pot=700,
                    can_raise=True, live=frozenset({0, 1, 2}), last_aggressor=2, big_blind=100,
                    all_in=frozenset({2}), bets=(0, partner_bet, 400))

    def calls(hole: tuple[int, int], partner_bet: int) -> bool:
        decision, tactic = decide(facing(partner_bet), hole=hole, board=[], style=style, tactics=check,
                                  active=True, all_in_or_fold=False, rng=rng)
        return decision == ("cc", 0) and tactic == "check_down"

    trash = (0, 14)  # 2c5h, among the worst starting hands
    middling = (8, 32)  # 4cTc: outside a lone caller's range, inside the gang-up one
    assert not calls(trash, 0) and not calls(middling, 0)
    assert calls(middling, 400)  # the partner called the all-in
    aces = (48, 49)
    assert calls(aces, 0)


def test_truth_rows_say_whether_the_agreement_was_acted_on() -> None:
    room = Room(RoomConfig(seed=3, players=120, minutes=150, hands=True, bounty_every_minutes=40,
                           agreement_chat=False, bounty_check_down=True))
    for _ in room.events():
        pass
    rows = [r for r in room.truth if r.category == "bounty_agreement"]
    assert rows and all(isinstance(r.detail["acted_on"], int) for r in rows)
    assert any(r.detail["acted_on"] > 0 for r in rows)


def test_sit_and_go_series_seats_the_pair_together() -> None:
    room = Room(RoomConfig(seed=4, players=120, minutes=100, hands=True, bounty_every_minutes=30,
                           agreement_chat=False, bounty_check_down=True, bounty_sit_and_go=True))
    events = [e for _, e in room.events()]
    pair = set(_pair(room))
    series = [t for t in room.tournaments if t.spec.fmt == "bounty" and t.spec.tournament_id != "t-bounty-1"]
    assert series and all(t.spec.entrants == 9 and pair <= {p.id for p in t.entrants} for t in series)
    tables: dict[str, set[str]] = {}
    for e in events:
        if isinstance(e, HandRecord) and e.tournament_id in {t.spec.tournament_id for t in series}:
            tables.setdefault(e.tournament_id, set()).add(e.table_id)
    assert tables and all(len(ids) == 1 for ids in tables.values())  # one table: they sit together
    first = next(t for t in room.tournaments if t.spec.tournament_id == "t-bounty-1")
    assert first.spec.entrants > 9  # the room's own bounty tournament stays a multi-table one
