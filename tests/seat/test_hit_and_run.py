"""Hit-and-run ladder: every rung, the window edge, exemptions, scoping and the not-a-refusal cases."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from pipeline.contracts import SEAT
from pipeline.detectors.seat import HitAndRunDetector
from pipeline.findings import Finding
from pipeline.policy import propose_actions
from pipeline.rules import RULES_PRESETS, RulesConfig
from pipeline.runner import Pipeline
from tests.seat.seat_events import T0, seat, stint

HOUR = 3600.0


def run(events: list[Any], rules: RulesConfig | None = None) -> tuple[HitAndRunDetector, list[Finding]]:
    det = HitAndRunDetector(rules=rules or RulesConfig(), lateness=0)
    out = [f for ev in events for f in det.process(ev)]
    return det, out + det.flush()


def refusals(starts: list[float], hands: int = 3, **kw: Any) -> list[Any]:
    return [ev for s in starts for ev in stint(s, hands, **kw)]


@pytest.mark.parametrize(
    ("n_refusals", "blocks"),
    [
        (1, [0]),
        (2, [0, 5]),
        (3, [0, 5, 15]),
        (4, [0, 5, 15, 30]),
        (5, [0, 5, 15, 30, 60]),
        (7, [0, 5, 15, 30, 60, 60, 60]),
    ],
)
def test_every_rung_of_the_ladder(n_refusals: int, blocks: list[int]) -> None:
    _, found = run(refusals([i * 600.0 for i in range(n_refusals)]))
    # The 1st refusal is on the record with no action: no enforcement event for a no-penalty rung.
    assert [
        (f.actions[0].expires_at - f.actions[0].starts_at) if f.actions else timedelta(0) for f in found
    ] == [timedelta(minutes=m) for m in blocks]
    assert found[0].actions == ()
    assert [f.evidence["refusal"]["count_in_window"] for f in found] == list(range(1, n_refusals + 1))
    for f in found[1:]:
        (action,) = f.actions
        assert (action.kind, action.scope, action.scope_value, action.disposition) == (
            "table_block",
            "blind_level",
            "nl100",
            "automatic",
        )
        assert action.starts_at == f.ts and f.rule == "table_leaving" and f.category == "hit_and_run"
        assert f.evidence["timeline"][0]["state"] == "seated"


def test_first_refusal_can_stay_off_the_record() -> None:
    det = HitAndRunDetector(lateness=0, record_first_refusal=False)
    found = [f for ev in refusals([0.0, 600.0]) for f in det.process(ev)]
    assert [f.evidence["refusal"]["count_in_window"] for f in found] == [2]


def blocked(found: list[Finding]) -> list[Finding]:
    """Findings whose block has a length (2nd refusal on)."""
    return [f for f in found if f.actions and f.actions[0].expires_at != f.actions[0].starts_at]


@pytest.mark.parametrize(
    ("gap", "counted"),
    [(12 * HOUR - 1, True), (12 * HOUR, False), (12 * HOUR + 1, False)],
)
def test_window_edge_is_half_open(gap: float, counted: bool) -> None:
    # Leave of the first stint at 120 s; second leave at 120 + gap.
    _, found = run(refusals([0.0, gap]))
    assert bool(blocked(found)) is counted


@pytest.mark.parametrize(
    ("version", "fmt", "exempt"),
    [
        ("id-vi-2022-09-28", "rush_and_cash", True),
        ("id-vi-2022-09-28", "all_in_or_fold", True),
        ("id-vi-2022-09-28", "vip", False),
        ("id-vi-2022-09-28", "regular", False),
        ("uk-2022-09-28", "rush_and_cash", True),
        ("uk-2022-09-28", "vip", True),
        ("uk-2022-09-28", "all_in_or_fold", False),
        ("uk-2022-09-28", "turbo", False),
    ],
)
def test_exempt_formats_per_rules_version(version: str, fmt: str, exempt: bool) -> None:
    _, found = run(refusals([0.0, 600.0], fmt=fmt), RULES_PRESETS[version])
    assert bool(found) is not exempt


def test_blind_levels_are_counted_and_blocked_separately() -> None:
    events = (
        refusals([0.0], level="nl100") + refusals([600.0], level="nl200") + refusals([1200.0], level="nl100")
    )
    _, found = run(events)
    assert [(f.actions[0].scope_value, f.evidence["refusal"]["count_in_window"]) for f in blocked(found)] == [
        ("nl100", 2)
    ]


@pytest.mark.parametrize(
    ("hands", "seated", "others_out", "refusal"),
    [
        (0, 6, 0, False),  # never played: not a refusal
        (1, 6, 0, True),
        (9, 6, 0, True),
        (10, 6, 0, False),  # played the minimum
        (3, 1, 0, False),  # alone at the table
        (3, 4, 3, False),  # all the others sitting out
        (3, 4, 2, True),  # one other still playing
        (3, 2, 0, True),  # heads-up, opponent playing
        (3, 2, 1, False),  # heads-up, opponent sitting out
    ],
)
def test_what_counts_as_a_refusal(hands: int, seated: int, others_out: int, refusal: bool) -> None:
    first = refusals([0.0])
    probe = [seat("join", 600.0), seat("leave", 700.0, hands=hands, seated=seated, others_out=others_out)]
    _, found = run(first + probe)
    assert bool(blocked(found)) is refusal


def test_sit_out_timeout_removal_ends_a_stint_and_timeline_shows_states() -> None:
    events = [
        *refusals([0.0]),
        seat("join", 600.0),
        seat("sit_out", 650.0),
        seat("sit_out_timeout_removal", 900.0, hands=4),
    ]
    _, (first, f) = run(events)
    assert first.evidence["refusal"]["count_in_window"] == 1
    assert [r["state"] for r in f.evidence["timeline"]] == ["seated", "sitting_out"]
    assert f.window_start == T0 + timedelta(seconds=600) and f.window_end == T0 + timedelta(seconds=900)


def test_tournament_events_are_ignored() -> None:
    _, found = run(refusals([0.0, 600.0], game="tournament", tournament="mtt1"))
    assert found == []


def test_players_and_tables_are_independent() -> None:
    events = (
        refusals([0.0], player="a")
        + refusals([600.0], player="b")
        + refusals([1200.0], player="a", table="t2")
    )
    _, found = run(events)
    assert [f.players for f in blocked(found)] == [("a",)]


def test_bad_input_is_counted_not_fatal() -> None:
    join = seat("join", 0.0)
    events = [
        join,
        join,  # duplicate
        seat("leave", 100.0, player="ghost", hands=3),  # leave without join
        seat("sit_in", 110.0, player="ghost2"),  # event for a table the player is not at
        seat("join", 120.0),  # join while seated
        seat("leave", 50.0, hands=3),  # late beyond lateness 0: processed at once, counted
    ]
    det, found = run(events)
    # The late leave still ends the open stint (the latest join): a 1st refusal, recorded, no action.
    assert [(f.source_event_ids, f.actions) for f in found] == [((events[4].event_id, events[5].event_id), ())]
    assert det.anomalies == {
        "duplicate": 1,
        "leave_without_join": 1,
        "no_stint": 1,
        "join_while_seated": 1,
        "late": 1,
    }


def test_out_of_order_within_lateness_is_reordered() -> None:
    det = HitAndRunDetector(lateness=30.0)
    a = refusals([0.0])
    b = refusals([600.0])
    # The second stint's leave arrives before its join, 20 s apart: still one refusal pair.
    b[1] = b[1].model_copy(update={"ts": b[0].ts + timedelta(seconds=20)})
    shuffled = [a[0], a[1], b[1], b[0]]
    found = [f for ev in shuffled for f in det.process(ev)] + det.flush()
    assert len(blocked(found)) == 1 and det.anomalies["late"] == 0


def test_replay_is_deterministic_and_policy_keeps_the_detector_action() -> None:
    events = refusals([0.0, 600.0, 1200.0])
    _, one = run(events)
    _, two = run(events)
    assert [f.finding_id for f in one] == [f.finding_id for f in two]
    assert propose_actions(one[0], rules=RulesConfig()) == one[0].actions
    pipe = Pipeline({"seat.hit_and_run": HitAndRunDetector(lateness=0)}, rules=RulesConfig())
    found = pipe.process_all((SEAT, ev) for ev in events)
    assert [f.actions for f in found] == [f.actions for f in one]
    assert one[0].actions == () and one[1].actions[0].kind == "table_block"


def test_state_is_bounded_by_the_window() -> None:
    det = HitAndRunDetector(lateness=0)
    for i in range(3000):
        for ev in stint(i * 60.0, 3, player=f"p{i}", minutes=0.5):
            det.process(ev)
    # Only refusals in the last 12 hours survive the periodic sweep.
    assert det.state_size <= 12 * 60 + 1 + 4096 // 2


def _effective(found: list[Finding]) -> dict[str, tuple[int, timedelta]]:
    """The last word per refusal (leave event): its rung and block length."""
    out: dict[str, tuple[int, timedelta]] = {}
    for f in found:
        block = (f.actions[0].expires_at - f.actions[0].starts_at) if f.actions else timedelta(0)
        out[f.source_event_ids[1]] = (f.evidence["refusal"]["count_in_window"], block)
    return out


def _cross_table_backlog(rng_seed: int) -> tuple[list[Any], list[Any]]:
    """Six refusals of one player at one level, at three tables; each table's events stay in order
    (one producer partition per table) but the tables' streams interleave at random (a backlog)."""
    import random

    rng = random.Random(rng_seed)
    stints = [stint(i * 400.0, 3, table=f"t{i % 3}") for i in range(6)]
    in_order = sorted((ev for s in stints for ev in s), key=lambda e: e.ts)
    queues = {t: [ev for ev in in_order if ev.table_id == t] for t in ("t0", "t1", "t2")}
    shuffled: list[Any] = []
    while any(queues.values()):
        table = rng.choice([t for t, q in queues.items() if q])
        shuffled.append(queues[table].pop(0))
    return in_order, shuffled


@pytest.mark.parametrize("rng_seed", range(8))
def test_ladder_follows_event_time_whatever_the_arrival_order_across_tables(rng_seed: int) -> None:
    in_order, shuffled = _cross_table_backlog(rng_seed)
    # The whole backlog (6 stints 400 s apart) lies within the ladder's lateness.
    reference = HitAndRunDetector(lateness=0, ladder_lateness=HOUR)
    expected = [f for ev in in_order for f in reference.process(ev)]
    det = HitAndRunDetector(lateness=0, ladder_lateness=HOUR)
    found = [f for ev in shuffled for f in det.process(ev)]
    assert det.anomalies["late"] > 0 and det.anomalies["late_refusal"] == 0
    assert _effective(found) == _effective(expected)
    assert sorted(r for r, _ in _effective(found).values()) == [1, 2, 3, 4, 5, 6]
    # Re-ranked refusals are new findings with the higher block, never a lower one.
    for f in found:
        amended = f.evidence["refusal"]["amended_from"]
        assert amended is None or amended < f.evidence["refusal"]["count_in_window"]


def test_a_refusal_later_than_ladder_lateness_reranks_nothing() -> None:
    first, second = stint(0.0, 3, table="t1"), stint(600.0, 3, table="t2")
    later = [seat("join", 5000.0, player="other"), seat("leave", 5100.0, player="other", hands=20)]
    det = HitAndRunDetector(lateness=0, ladder_lateness=300.0)
    found = [f for ev in [*second, *later, *first] for f in det.process(ev)]
    # The late refusal gets its own event-time rung (#1); the one issued before it keeps #1 too.
    assert [f.evidence["refusal"]["count_in_window"] for f in found] == [1, 1]
    assert det.anomalies["late_refusal"] == 1
