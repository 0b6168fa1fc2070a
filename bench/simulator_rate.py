"""How fast the simulator produces traffic (target: >= 20,000 events/s excluding hand generation).

Each run generates one room in-process (1,000 players) and serialises every event to its JSONL line
(what `railbird simulate --out` writes), on one core. Two ways to leave hand generation out:

- headline: the room with hands off (`--no-hands`): seat, chat and SnapCam traffic, with each hand
  reduced to what it does to the seats (hands played, now and then a bust) and the chat around it;
- cross-check: the full room with hands on, minus the time of each table's per-hand step (dealing
  and playing the hand, stacks, bounties, eliminations, building and validating the `hand.records`
  event, which replays the hand through the contract's checker) except the chat written around
  the hand, and minus the hand records themselves and the time to serialise them.

Full throughput with hands is reported too. Median of several runs. Times are this process's CPU
time (`time.process_time`), not wall time: the bench machine is shared, and CPU time is what "per
core" means when other processes compete for the cores; the load average is recorded.
Writes bench/results/simulator_rate.json.

    .venv/bin/python -m bench.simulator_rate [--runs 5] [--players 1000] [--minutes 30]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pipeline.contracts import HAND
from simulator.cash import CashTable
from simulator.chatter import Chatter
from simulator.config import RoomConfig
from simulator.room import Room
from simulator.sinks import envelope_text
from simulator.tournament import Tournament

RESULTS = Path(__file__).resolve().parent / "results" / "simulator_rate.json"
TARGET = 20_000.0


def _timed(method: Callable[..., Any], spent: list[float], sign: float) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        began = time.process_time()
        try:
            return method(*args, **kwargs)
        finally:
            spent[0] += sign * (time.process_time() - began)
    return wrapper


HAND_STEPS = ((CashTable, "_hand"), (Tournament, "_deal"))
"""The per-hand work of a table: dealing and playing the hand, stacks, bounties, eliminations and
building/validating its record. The chat written around each hand (`Chatter.talk`) runs inside it
and is subtracted back, since chat is part of the non-hand traffic measured."""


def one_run(config: RoomConfig) -> dict[str, float]:
    """Generate and serialise one room; wall time, time in hand generation, event counts."""
    spent = [0.0]
    originals = [(cls, name, getattr(cls, name)) for cls, name in (*HAND_STEPS, (Chatter, "talk"))]
    for cls, name, method in originals:
        setattr(cls, name, _timed(method, spent, -1.0 if cls is Chatter else 1.0))
    try:
        room = Room(config)
        began = time.process_time()
        total = hands = size = 0
        for topic, event in room.events():
            if topic == HAND:
                # A hand record's JSON (about 1.5 kB) is part of generating the hand.
                started = time.process_time()
                size += len(envelope_text(topic, event))
                spent[0] += time.process_time() - started
                hands += 1
            else:
                size += len(envelope_text(topic, event))
            total += 1
        wall = time.process_time() - began
    finally:
        for cls, name, method in originals:
            setattr(cls, name, method)
    other = total - hands
    return {
        "wall_s": wall, "hand_s": spent[0], "events": total, "hand_records": hands, "bytes": size,
        "events_per_s": total / wall,
        "non_hand_events_per_s_excluding_hand_generation": other / max(1e-9, wall - spent[0]),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the measurements, print them, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--minutes", type=float, default=30.0)
    args = parser.parse_args(argv)
    full = [one_run(RoomConfig(seed=s, players=args.players, minutes=args.minutes)) for s in range(1, args.runs + 1)]
    quick = [one_run(RoomConfig(seed=s, players=args.players, minutes=args.minutes, hands=False))
             for s in range(1, args.runs + 1)]
    headline = statistics.median(r["events_per_s"] for r in quick)
    cross = statistics.median(r["non_hand_events_per_s_excluding_hand_generation"] for r in full)
    result = {
        "python": platform.python_version(), "machine": platform.machine(), "runs": args.runs,
        "load_average_1m_at_end": round(os.getloadavg()[0], 2), "cpus": os.cpu_count(),
        "players": args.players, "room_minutes": args.minutes,
        "no_hands_events_per_s_median": round(headline),
        "no_hands_events_per_s_runs": [round(r["events_per_s"]) for r in quick],
        "no_hands_events_per_run": statistics.median(r["events"] for r in quick),
        "target_events_per_s": TARGET, "ratio_to_target": round(headline / TARGET, 3),
        "with_hands_non_hand_events_per_s_excluding_hand_steps_median": round(cross),
        "with_hands_non_hand_events_per_s_runs": [round(r["non_hand_events_per_s_excluding_hand_generation"]) for r in full],
        "with_hands_events_per_s_median": round(statistics.median(r["events_per_s"] for r in full)),
        "with_hands_events_per_run": statistics.median(r["events"] for r in full),
        "hand_records_per_run": statistics.median(r["hand_records"] for r in full),
        "hand_records_per_s_of_hand_step_time_median": round(statistics.median(r["hand_records"] / max(1e-9, r["hand_s"]) for r in full)),
        "share_of_time_in_hand_steps": round(statistics.median(r["hand_s"] / r["wall_s"] for r in full), 3),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))
    return 0 if headline >= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
