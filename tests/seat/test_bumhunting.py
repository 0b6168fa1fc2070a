"""Bumhunting: the skill table, planted hunters found with victims, honest populations left alone."""

from __future__ import annotations

import json
import random
from functools import cache

from pipeline.contracts import HandRecord, SeatActivity
from pipeline.detectors.seat.bumhunting import BumhuntingDetector
from pipeline.detectors.seat.skill import SkillTable, _seat_counts
from pipeline.findings import Finding
from tests.seat.cash_sim import CashWorld, hand, simulate
from tests.seat.seat_events import T0, seat


@cache
def world(seed: int, hunters: int) -> tuple[CashWorld, tuple[Finding, ...], BumhuntingDetector]:
    w = simulate(
        random.Random(seed), tag=f"b{seed}", n_hunters=hunters, hours=12.0, warmup_hands=100, hand_sample=0.05
    )
    det = BumhuntingDetector()
    found = [f for ev in w.events for f in det.process(ev)] + det.flush()
    return w, tuple(found), det


def test_preflop_counts_follow_the_actions() -> None:
    table = SkillTable()
    record = HandRecord.model_validate(
        {
            "event_id": "e1",
            "ts": T0,
            "hand_id": "h1",
            "table_id": "t1",
            "game": "cash",
            "variant": "NT",
            "antes": [0, 0, 0],
            "blinds_or_straddles": [50, 100, 0],
            "min_bet": 100,
            "starting_stacks": [10000] * 3,
            "players": ["a", "b", "c"],
            "seats": [1, 2, 3],
            "actions": ["p3 cbr 300", "p1 f", "p2 cc", "d db 7h8s9c", "p2 cc", "p3 cbr 500", "p2 f"],
            "finishing_stacks": [9950, 9700, 10350],
            "winnings": [],
        }
    )
    table.add_hand(record, 0.0)
    a, b, c = (table.players[p] for p in "abc")
    assert (a.vpip, a.pfr, b.vpip, b.pfr, c.vpip, c.pfr) == (0, 0, 1, 0, 1, 1)
    assert (c.aggressive, b.passive) == (1, 1) and c.net_bb == 3.5 and b.net_bb == -3.0


def test_seat_counts_tell_seats_and_streets_apart() -> None:
    """p1 and p10 are different seats; the big blind calling a raise is voluntary, checking is not;
    post-flop bets and calls are counted on every street after the flop."""
    actions = ["p3 cbr 300", "p10 cc", "p1 f", "p2 cc", "d db 7h8s9c", "p2 cc", "p10 cbr 500", "p2 cc",
               "d db 2c", "p2 cbr 900", "p10 cc", "d db 3d", "p2 cc", "p10 cc"]
    counts = _seat_counts(actions, 10, [i == 1 for i in range(10)])
    assert counts[0] == [0, 0, 0, 0]  # p1 folded
    assert counts[1] == [1, 0, 1, 3]  # the big blind called a raise: voluntary
    assert counts[2] == [1, 1, 0, 0]
    assert counts[9] == [1, 0, 1, 2]
    limped = _seat_counts(["p1 cc", "p2 cc", "d db 7h8s9c"], 2, [False, True])
    assert limped == [[1, 0, 0, 0], [0, 0, 0, 0]]  # the big blind checking is not voluntary


def test_big_blind_check_is_not_voluntary() -> None:
    rng = random.Random(0)
    kinds = {"a": "weak", "b": "weak"}
    table = SkillTable()
    for i in range(200):
        table.add_hand(hand(rng, f"h{i}", "t", ["a", "b"], kinds, 0.0), 0.0)
    b = table.players["b"]
    assert b.vpip < b.hands  # the big blind's free checks were not counted


def test_small_samples_are_shrunk_and_skill_separates_profiles() -> None:
    _, _, det = world(5, 0)
    strong = [s for p in det.skills.players if "strong" in p and (s := det.skills.skill(p)) is not None]
    weak = [s for p in det.skills.players if "weak" in p and (s := det.skills.skill(p)) is not None]
    auc = sum(a > b for a in strong for b in weak) / (len(strong) * len(weak))
    assert auc >= 0.97 and sum(strong) / len(strong) > 0.8 > -0.8 > sum(weak) / len(weak)
    lucky = SkillTable(population=det.skills.population)
    # Five hands with huge wins: the shrunk win rate stays near the population, far below the raw mean.
    rng = random.Random(2)
    for i in range(40):
        lucky.add_hand(hand(rng, f"x{i}", "t", ["z", "y"], {"z": "weak", "y": "weak"}, 0.0), 0.0)
    lucky.players["z"].net_bb = 5 * 40.0
    profile = lucky.profile("z")
    assert profile["bb_per_100"] is not None and profile["bb_per_100"] < 500.0


def test_planted_hunters_are_found_with_victims_and_honest_players_are_not() -> None:
    tp = fp = planted = 0
    for seed in (3, 4):
        w, found, _ = world(seed, 6)
        flagged = {f.subject for f in found}
        tp, fp, planted = (
            tp + len(flagged & w.hunters),
            fp + len(flagged - w.hunters),
            planted + len(w.hunters),
        )
        for f in found:
            assert f.rule == "bumhunting" and f.family == "seat"
            assert set(f.evidence["victims"]) <= w.weak
            assert f.evidence["statistic"]["p_adjusted"] <= 0.01 and f.evidence["statistic"]["null_model"]
            assert f.evidence["timeline"] and f.evidence["sessions"]
    assert fp == 0 and tp / planted >= 0.95
    everything = [f for seed in (3, 4) for f in world(seed, 6)[1]]
    assert any(f.evidence["victims"] for f in everything)
    delays = [s["seconds_after_strong_arrival"] for f in everything for s in f.evidence["sessions"]]
    assert any(d is not None and 0 <= d <= 300 for d in delays)
    for f in everything:
        json.dumps(f.model_dump(mode="json"), allow_nan=False)  # evidence is plain JSON for the API


def test_an_honest_population_raises_nothing() -> None:
    _, found, det = world(5, 0)
    assert found == () and det.state_size > 0


def test_bad_seat_input_is_counted() -> None:
    det = BumhuntingDetector(lateness=0)
    for ev in [seat("leave", 0.0, hands=3), seat("join", 1.0), seat("sit_in", 2.0), seat("join", 3.0)]:
        assert det.process(ev) == []
    assert det.anomalies == {"no_seat": 1, "sit_in_without_sit_out": 1, "join_while_seated": 1}
    assert det.process(seat("join", 4.0, game="tournament", tournament="m")) == ()


class _KnownSkills(SkillTable):
    """A skill table with given indices (the seat statistics are under test, not the estimator)."""

    def __init__(self, levels: dict[str, float]) -> None:
        super().__init__()
        self.levels = levels

    def skill(self, player_id: str) -> float | None:
        return self.levels.get(player_id)


def _looks_world(seed: int) -> tuple[list[SeatActivity], dict[str, float]]:
    """Six-max tables of strong (1.2), average (0.0) and weak (-1.2) players; a hunter who joins a
    new table every few minutes, leaves unplayed when a strong player is seated and plays 40 hands
    otherwise; a hopper who plays 3 hands everywhere; honest players who play 15-80 hands."""
    rng = random.Random(seed)
    levels = {f"s{i}": 1.2 for i in range(20)} | {f"a{i}": 0.0 for i in range(40)}
    levels |= {f"w{i}": -1.2 for i in range(30)}
    levels |= {"hunter": 0.0, "hopper": 0.0}
    events: list[SeatActivity] = []
    regulars = [p for p in levels if p not in ("hunter", "hopper")]
    for k in range(120):
        table, at = f"t{k}", k * 300.0
        seated = rng.sample(regulars, 4)
        events += [seat("join", at + i, player=p, table=table) for i, p in enumerate(seated)]
        for i, p in enumerate(seated):
            events.append(seat("leave", at + 3600 + 60 * i, player=p, table=table, hands=rng.randint(15, 80)))
        visitor = "hunter" if k % 2 == 0 else "hopper"
        strong_there = any(levels[p] >= 0.5 for p in seated)
        if visitor == "hunter":
            hands, stay = (0, 30.0) if strong_there else (40, 2400.0)
        else:
            hands, stay = 3, 200.0
        events += [
            seat("join", at + 10, player=visitor, table=table),
            seat("leave", at + 10 + stay, player=visitor, table=table, hands=hands),
        ]
    return sorted(events, key=lambda e: e.ts), levels


def test_unplayed_leaves_at_tables_with_a_strong_player_flag_the_hunter_only() -> None:
    events, levels = _looks_world(11)
    det = BumhuntingDetector(skills=_KnownSkills(levels), lateness=0)
    found = [f for ev in events for f in det.process(ev)] + det.flush()
    assert [f.players for f in found] == [("hunter",)]
    (f,) = found
    stat = f.evidence["statistic"]
    assert stat["name"] == "unplayed_leave_with_strong_seated" and stat["unplayed"]["p_adjusted"] <= 0.0025
    behaviour = f.evidence["behaviour"]
    assert behaviour["left_unplayed_with_strong_seated"] == behaviour["joins_with_strong_seated"] >= 8
    assert behaviour["left_unplayed_without_strong"] == 0
    # The victims are the weak players the hunter sat down with, and only they.
    assert f.evidence["victims"] and all(levels[v] <= -0.8 for v in f.evidence["victims"])
