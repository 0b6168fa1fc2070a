"""Hit-and-run on a generated population: planted refusals found exactly, honest stints left alone.

Honest players (stated in docs/seat-integrity.md) play 10-200 hands per stint, sometimes leave
without playing (0 hands), leave early only when alone or when everyone else sits out, and play
exempt formats however they like. Planted hit-and-runners leave after 1-9 hands `k` times at one
blind level, 20-50 minutes apart, so the ladder position of every refusal is known in advance.
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from pipeline.detectors.seat import HitAndRunDetector
from pipeline.rules import LADDER_MINUTES, RULES_PRESETS
from tests.seat.seat_events import seat

LEVELS = ("nl10", "nl25", "nl50", "nl100")


def population(
    rng: random.Random, exempt: frozenset[str], *, honest: int = 300, runners: int = 30
) -> tuple[list[Any], dict[str, int]]:
    """Events sorted by time and the expected refusal count per planted leave event id."""
    events: list[Any] = []
    expected: dict[str, int] = {}
    for i in range(honest):
        t = rng.uniform(0, 3600)
        for k in range(rng.randint(3, 12)):
            kind = rng.random()
            fmt = rng.choice(sorted(exempt)) if kind < 0.1 else "regular"
            hands, seated, out = rng.randint(10, 200), rng.randint(2, 9), 0
            if 0.1 <= kind < 0.2:
                hands = 0
            elif 0.2 <= kind < 0.25:
                hands, seated = rng.randint(1, 9), 1
            elif 0.25 <= kind < 0.3:
                hands, seated = rng.randint(1, 9), rng.randint(2, 9)
                out = seated - 1
            elif kind < 0.1:
                hands = rng.randint(1, 9)
            kw = {"player": f"h{i}", "table": f"t{i}-{k}", "level": rng.choice(LEVELS), "fmt": fmt}
            events += [
                seat("join", t, **kw),
                seat("leave", t + 60 + hands * 40, hands=hands, seated=seated, others_out=out, **kw),
            ]
            t += 60 + hands * 40 + rng.uniform(60, 3600)
    for i in range(runners):
        level, t = rng.choice(LEVELS), rng.uniform(0, 3600)
        for k in range(rng.randint(1, 7)):
            kw = {"player": f"r{i}", "table": f"rt{i}-{k}", "level": level}
            leave = seat("leave", t + 200, hands=rng.randint(1, 9), seated=rng.randint(2, 9), **kw)
            events += [seat("join", t, **kw), leave]
            expected[leave.event_id] = k + 1
            t += rng.uniform(1200, 3000)
    return sorted(events, key=lambda e: e.ts), expected


def test_planted_refusals_found_exactly_and_nothing_else() -> None:
    for seed, (version, rules) in enumerate(RULES_PRESETS.items()):
        events, expected = population(random.Random(seed), rules.exempt_formats)
        det = HitAndRunDetector(rules=rules, lateness=5.0)
        found = [f for ev in events for f in det.process(ev)] + det.flush()
        got = {f.source_event_ids[1]: f for f in found}
        assert set(got) == set(expected), version  # precision and recall 1.0
        for leave_id, count in expected.items():
            f = got[leave_id]
            assert f.evidence["refusal"]["count_in_window"] == count
            minutes = LADDER_MINUTES[min(count, len(LADDER_MINUTES)) - 1]
            block = f.actions[0].expires_at - f.actions[0].starts_at if f.actions else timedelta(0)
            assert block == timedelta(minutes=minutes)
        assert not det.anomalies
