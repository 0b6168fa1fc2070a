"""Persona rates in a generated room: sit-outs, disconnects, stints and chat stay in their bands."""

from __future__ import annotations

from collections import defaultdict

from pipeline.contracts import CHAT, SEAT, ChatMessage, SeatActivity
from simulator.config import HONEST_PERSONAS
from tests.simulator.sim_rooms import generated


def _room():
    return generated("normal", 5, 30.0, 300)


def test_honest_sit_outs_and_disconnects_happen_at_ordinary_rates() -> None:
    g = _room()
    persona = {p.id: p.persona_name for p in g.room.population.players.values()}
    honest = {pid for pid, name in persona.items() if name in HONEST_PERSONAS}
    actions: dict[str, int] = defaultdict(int)
    for topic, event in g.events:
        if topic == SEAT and isinstance(event, SeatActivity) and event.player_id in honest:
            actions[event.action] += 1
    hours = g.room.summary()["honest_player_hours"]
    assert hours > 50
    # Stated rates: a sit-out every 40-90 min of seat time, a dropped connection every 3-5 hours.
    assert 0.4 <= actions["sit_out"] / hours <= 2.5
    assert 0.1 <= actions["disconnect"] / hours <= 0.8
    assert actions["reconnect"] <= actions["disconnect"]


def test_hit_and_runners_never_stay_ten_hands_and_regulars_usually_do() -> None:
    g = _room()
    persona = {p.id: p.persona_name for p in g.room.population.players.values()}
    stints: dict[str, list[int]] = defaultdict(list)
    for topic, event in g.events:
        if topic == SEAT and isinstance(event, SeatActivity) and event.action == "leave" and event.game == "cash" \
                and event.format in ("regular", "vip"):
            stints[persona[event.player_id]].append(event.hands_played_at_table)
    assert stints["hit_and_runner"] and max(stints["hit_and_runner"]) < 10
    regular = stints["regular"]
    # Most regulars' stints pass ten hands; the rest are busts and the 5 % who must leave early.
    assert sum(h >= 10 for h in regular) / len(regular) > 0.7


def test_recreational_players_chat_more_per_hour_than_regulars() -> None:
    g = _room()
    persona = {p.id: p.persona_name for p in g.room.population.players.values()}
    per: dict[str, int] = defaultdict(int)
    for topic, event in g.events:
        if topic == CHAT and isinstance(event, ChatMessage) and event.channel == "table":
            per[persona[event.player_id]] += 1
    hours = {name: sum(p.seat_seconds for p in g.room.population.players.values() if p.persona_name == name) / 3600
             for name in ("recreational", "regular")}
    # Per hour at the table: a recreational player talks about every 4 minutes, a regular every 15,
    # both add the odd "nh"/"gg" after hands they played.
    rec, reg = per["recreational"] / hours["recreational"], per["regular"] / hours["regular"]
    assert 12 < rec < 25 and 4 < reg < 12 and rec > 1.5 * reg
