"""Throughput and memory of the seat detectors (hit-and-run, collusive sit-out, bumhunting).

Throughput: a 1,000-player tournament with breaks and hand-for-hand pauses plus a cash-game day
with bumhunters (the test generators in tests/seat/), every seat event through the runner with only
the seat detectors (policy included), hand records fed to bumhunting but timed apart; median of
runs, one process, one core. The design target (20,000 seat events/s per core) is the peer figure.
Memory: tracemalloc peak while a churning cash population (players come, play stints with
refusals, go, and are replaced by new ids) runs for 36 hours of event time, for several numbers of
concurrently active players; state sizes at 12, 24 and 36 hours show the plateau.
Writes bench/results/seat_detectors.json.

    .venv/bin/python -m bench.seat_detectors [--runs 5] [--players 500,2000,6000]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time
import tracemalloc
from datetime import timedelta
from pathlib import Path
from typing import Any

from pipeline.contracts import HAND, SEAT, HandRecord, SeatActivity
from pipeline.detectors.seat import build_seat_detectors
from pipeline.rules import RulesConfig
from pipeline.runner import Pipeline
from tests.seat import cash_sim, tournament_sim
from tests.seat.seat_events import T0, seat

RESULTS = Path(__file__).resolve().parent / "results" / "seat_detectors.json"
TARGET = 20_000.0


def traffic(seed: int) -> list[SeatActivity | HandRecord]:
    """A 1,000-player tournament and a cash day, merged in event-time order."""
    tm = tournament_sim.simulate(random.Random(seed), tid="bench-mtt", n_players=1000, groups=(2, 3))
    cash = cash_sim.simulate(random.Random(seed), tag="bench", hours=12.0, warmup_hands=60, hand_sample=0.05)
    return sorted([*tm.events, *cash.events], key=lambda e: e.ts)


def throughput(events: list[SeatActivity | HandRecord]) -> dict[str, float]:
    """Seat events per second through every seat detector (fresh state), hands timed apart."""
    pipe = Pipeline({d.name: d for d in build_seat_detectors(rules=RulesConfig())}, rules=RulesConfig())
    seat_s = hand_s = 0.0
    n_seat = n_hand = findings = 0
    # CPU time of this process: "per core" is what the target means, and other processes sharing
    # the machine do not inflate it the way they inflate wall time (reported too).
    clock = time.process_time
    wall0 = time.perf_counter()
    for ev in events:
        topic = SEAT if isinstance(ev, SeatActivity) else HAND
        t0 = clock()
        out = pipe.process(topic, ev)
        dt = clock() - t0
        findings += len(out.findings)
        if topic == SEAT:
            seat_s += dt
            n_seat += 1
        else:
            hand_s += dt
            n_hand += 1
    wall = time.perf_counter() - wall0
    return {
        "seat_per_s": n_seat / seat_s,
        "hand_per_s": n_hand / hand_s,
        "seat_events": n_seat,
        "all_events_per_wall_s": len(events) / wall,
        "hand_records": n_hand,
        "findings": findings,
    }


def churn(active: int, hours: float, seed: int) -> list[SeatActivity]:
    """Cash stints by `active` concurrent players; each id retires after ~6 hours, replaced by a new one."""
    rng = random.Random(seed)
    events: list[SeatActivity] = []
    n = 0
    for slot in range(active):
        t, gen = rng.uniform(0, 600), 0
        while t < hours * 3600:
            pid = f"s{slot}-g{gen}"
            retire = t + rng.uniform(4, 8) * 3600
            while t < min(retire, hours * 3600):
                table = f"t{rng.randrange(active // 4 + 1)}"
                hands = rng.choice([0, 3, 7, 15, 40, 80])
                length = max(60.0, hands * 50.0)
                level = rng.choice(["nl50", "nl100", "nl200"])
                for action, at, h in (("join", t, 0), ("leave", t + length, hands)):
                    n += 1
                    events.append(
                        seat(action, at, player=pid, table=table, hands=h, level=level, event_id=f"c{n}")
                    )
                t += length + rng.uniform(60, 1800)
            gen += 1
    return sorted(events, key=lambda e: e.ts)


def memory(active: int, seed: int) -> dict[str, Any]:
    """tracemalloc peak and state sizes over 36 h of churn for `active` concurrent players."""
    events = churn(active, 36.0, seed)
    detectors = build_seat_detectors(rules=RulesConfig())
    checkpoints = {T0 + timedelta(hours=h): f"{h}h" for h in (12, 24, 36)}
    sizes: dict[str, dict[str, int]] = {}
    pending = sorted(checkpoints)
    tracemalloc.start()
    tracemalloc.reset_peak()
    for ev in events:
        while pending and ev.ts >= pending[0]:
            sizes[checkpoints[pending.pop(0)]] = _sizes(detectors)
        for d in detectors:
            d.process(ev)
    sizes.setdefault("36h", _sizes(detectors))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    ids = len({e.player_id for e in events})
    return {
        "active_players": active,
        "distinct_player_ids": ids,
        "events": len(events),
        "tracemalloc_peak_mib": round(peak / 2**20, 2),
        "state_size": sizes,
    }


def _sizes(detectors: list[Any]) -> dict[str, int]:
    return {d.name: d.state_size for d in detectors}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print medians, write the JSON results."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--players", default="500,2000,6000")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    events = traffic(args.seed)
    runs = [throughput(events) for _ in range(args.runs)]
    seat_rate = statistics.median(r["seat_per_s"] for r in runs)
    hand_rate = statistics.median(r["hand_per_s"] for r in runs)
    print(
        f"seat events per CPU-second (median of {args.runs}): {seat_rate:,.0f}  target {TARGET:,.0f}  ratio {seat_rate / TARGET:.2f}"
    )
    print(f"hand records/s into bumhunting (median): {hand_rate:,.0f}")
    mem = [memory(int(n), args.seed) for n in args.players.split(",")]
    for m in mem:
        print(
            f"active {m['active_players']:>6}  ids {m['distinct_player_ids']:>6}  peak {m['tracemalloc_peak_mib']:>8} MiB  state {m['state_size']}"
        )
    result = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "runs": args.runs,
        "seat_events": runs[0]["seat_events"],
        "hand_records": runs[0]["hand_records"],
        "findings_per_run": runs[0]["findings"],
        "seat_events_per_s_median": round(seat_rate),
        "seat_events_per_s_runs": [round(r["seat_per_s"]) for r in runs],
        "target_seat_events_per_s": TARGET,
        "ratio_to_target": round(seat_rate / TARGET, 3),
        "hand_records_per_s_median": round(hand_rate),
        "all_events_per_wall_s_median": round(statistics.median(r["all_events_per_wall_s"] for r in runs)),
        "load_average_at_end": list(os.getloadavg()),
        "cpu_count": os.cpu_count(),
        "memory": mem,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
