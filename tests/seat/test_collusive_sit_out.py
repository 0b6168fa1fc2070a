"""Collusive sit-outs: planted groups are found, breaks and honest fields are left alone."""

from __future__ import annotations

import random
from typing import Any

from pipeline.contracts.seat import TournamentStanding
from pipeline.detectors.seat.sit_out import CollusiveSitOutDetector, PayoutContext
from pipeline.findings import Finding
from tests.seat.seat_events import seat
from tests.seat.tournament_sim import simulate

TID = "mtt9"


def tseat(action: str, at: float, player: str, **kw: Any) -> Any:
    return seat(action, at, player=player, game="tournament", tournament=TID, seated=9, **kw)


def run(events: list[Any], **kw: Any) -> tuple[CollusiveSitOutDetector, list[Finding]]:
    det = CollusiveSitOutDetector(lateness=kw.pop("lateness", 0.0), **kw)
    found = [f for ev in sorted(events, key=lambda e: e.ts) for f in det.process(ev)]
    return det, found + det.flush()


def field(n: int, rng: random.Random, hours: float = 3.0) -> list[Any]:
    """An honest field: joins, then a few independent sit-outs each."""
    events = [tseat("join", 0.0, f"h{i}", table=f"t{i // 9}") for i in range(n)]
    for i in range(n):
        for _ in range(3):
            s = rng.uniform(60, hours * 3600)
            events += [tseat("sit_out", s, f"h{i}"), tseat("sit_in", s + rng.uniform(10, 60), f"h{i}")]
    return events


def together(
    players: list[str], times: list[float], rng: random.Random, *, joint_end: bool = True
) -> list[Any]:
    """Players sitting out within 2 s of each other at `times`; back together too if `joint_end`."""
    out = [tseat("join", 0.0, p, table=f"x{k}") for k, p in enumerate(players)]
    for t in times:
        for k, p in enumerate(players):
            s = t + rng.uniform(0, 2)
            back = t + 90 + rng.uniform(0, 2) if joint_end else s + rng.uniform(30, 600)
            out += [tseat("sit_out", s, p, table=f"x{k}"), tseat("sit_in", back, p, table=f"x{k}")]
    return out


def test_a_pair_at_different_tables_is_found_with_its_evidence() -> None:
    rng = random.Random(3)
    events = field(60, rng) + together(["a", "b"], [1000.0, 3000.0, 5000.0, 7000.0, 9000.0], rng)
    _, found = run(events)
    (f,) = found
    assert set(f.players) == {"a", "b"} and f.tournament_id == TID and f.rule == "tournament_sit_out"
    stat = f.evidence["statistic"]
    assert stat["value"] >= 3 and stat["p_adjusted"] < 0.01 and stat["expected"] < 0.5 and stat["null_model"]
    rows = f.evidence["timeline"]
    assert {r["player_id"] for r in rows} == {"a", "b"} and {r["table_id"] for r in rows} == {"x0", "x1"}
    assert f.window_start is not None and f.window_end is not None and f.window_start < f.window_end


def test_one_joint_sit_out_is_not_enough_without_the_bubble() -> None:
    rng = random.Random(4)
    once = field(60, rng) + together(["a", "b"], [1000.0], rng)
    starts_only = field(60, rng) + together(["a", "b"], [1000.0, 3000.0], rng, joint_end=False)
    assert run(once)[1] == [] and run(starts_only)[1] == []


def test_ends_count_as_coincidences_too() -> None:
    rng = random.Random(7)
    events = field(60, rng) + together(["a", "b"], [1000.0, 4000.0], rng)
    (f,) = run(events)[1]
    kinds = [c["transition"] for c in f.evidence["coincidences"]]
    assert kinds.count("start") >= 1 and kinds.count("end") >= 1 and len(kinds) >= 3


def test_bubble_coincidences_weigh_double() -> None:
    rng = random.Random(5)
    # 20 players left, 18 paid: on the bubble, so one joint sit-out reaches the repetition minimum.
    events = field(18, rng) + together(["a", "b"], [1000.0], rng)
    _, plain = run(events)
    _, bubble = run(events, payouts={TID: PayoutContext(paid_places=18)})
    assert plain == [] and [set(f.players) for f in bubble] == [{"a", "b"}]
    assert bubble[0].evidence["payout_context"]["near_payout_coincidences"] == 2


def test_standing_on_the_events_gives_the_payout_context() -> None:
    rng = random.Random(5)
    events = field(18, rng) + together(["a", "b"], [1000.0], rng)
    near = TournamentStanding(players_remaining=20, paid_places=18, pay_jumps=(9, 3))
    far = TournamentStanding(players_remaining=60, paid_places=18, pay_jumps=(9, 3))
    with_standing = [e.model_copy(update={"standing": near}) for e in events]
    early = [e.model_copy(update={"standing": far}) for e in events]
    (f,) = run(with_standing)[1]
    ctx = f.evidence["payout_context"]
    assert set(f.players) == {"a", "b"} and ctx["source"] == "seat events"
    assert ctx["paid_places"] == 18 and ctx["pay_jumps"] == [9, 3] and ctx["near_payout_coincidences"] == 2
    assert {c["players_remaining"] for c in f.evidence["coincidences"]} == {20}
    # The same single joint sit-out far from the money is not enough.
    assert run(early)[1] == []


def test_field_wide_breaks_are_discounted() -> None:
    rng = random.Random(6)
    events = field(100, rng) + together(["a", "b"], [], rng)
    for hour in range(1, 4):
        for i in [*range(100), -1, -2]:
            p = {-1: "a", -2: "b"}.get(i, f"h{i}")
            s = hour * 3600 - 300 + rng.uniform(0, 3)
            events += [tseat("sit_out", s, p), tseat("sit_in", s + 300, p)]
    det, found = run(events)
    assert found == []
    assert len(det._tournaments[TID].players["a"].field_wide) == 3


def test_a_table_move_while_sitting_out_is_not_a_new_start() -> None:
    events = [
        tseat("join", 0.0, "a"),
        tseat("sit_out", 10.0, "a"),
        tseat("leave", 20.0, "a"),
        tseat("join", 22.0, "a", table="t2"),
        tseat("sit_in", 80.0, "a", table="t2"),
    ]
    det, _ = run(events)
    player = det._tournaments[TID].players["a"]
    assert len(player.events["start"]) == 1 and len(player.events["end"]) == 1
    assert [i[3] for i in player.intervals] == ["t1", "t2"]


def test_impossible_transitions_and_duplicates_are_counted() -> None:
    dup = tseat("sit_out", 5.0, "a")
    events = [tseat("sit_in", 1.0, "a"), dup, dup, tseat("reconnect", 6.0, "a"), tseat("sit_out", 7.0, "a")]
    det, found = run(events)
    assert found == []
    assert det.anomalies == {
        "implicit_join": 1,
        "sit_in_unexpected": 1,
        "duplicate": 1,
        "reconnect_unexpected": 1,
        "sit_out_unexpected": 1,
    }


def test_cash_events_are_ignored() -> None:
    det = CollusiveSitOutDetector(lateness=0)
    assert det.process(seat("sit_out", 0.0)) == () and det.state_size == 0


def test_precision_and_recall_on_simulated_tournaments() -> None:
    tp = fp = hit = planted = 0
    for seed in range(4):
        for n, groups in ((300, (2, 2, 3)), (1000, ())):
            tm = simulate(random.Random(seed), tid=f"m{seed}-{n}", n_players=n, groups=groups)
            _, found = run(tm.events, payouts={tm.tournament_id: tm.payout}, lateness=5.0)
            ok = [any(set(f.players) <= g for g in tm.groups) for f in found]
            tp, fp = tp + sum(ok), fp + len(ok) - sum(ok)
            planted += len(tm.groups)
            hit += sum(any(len(set(f.players) & g) >= 2 for f in found) for g in tm.groups)
    assert fp == 0 and tp >= 1
    assert hit / planted >= 0.95
