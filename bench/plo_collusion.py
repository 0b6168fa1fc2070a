"""Planted soft play and chip dumping in pot-limit Omaha rooms: precision and recall (target >= 0.95).

Each seed is one simulated room whose cash tables all deal PLO (`RoomConfig.plo_share = 1.0`; the
All-In or Fold tables and the tournaments stay hold'em), with the usual planted groups: two
soft-play pairs seated together at a regular table and one chip-dumping pair at its reserved
heads-up table, so one room holds two soft-play rows and one chip-dumping row. Every event of the
room goes through the real hand detectors (`build_hand_detectors`, the ones `railbird eval
scenario` runs) inside a `Pipeline`, exactly as `simulator.scenario.run_scenario` feeds it, and is
scored by `simulator.evaluation.score`; the seeds are pooled with `simulator.scenario.combine`.
Writes bench/results/plo_collusion.json.

    .venv/bin/python -m bench.plo_collusion [--seeds 20] [--minutes 240] [--players 120]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from pipeline.contracts import HAND, SEAT
from pipeline.detectors.hand import build_hand_detectors
from pipeline.rules import RulesConfig
from pipeline.runner import Pipeline
from simulator.config import RoomConfig
from simulator.scenario import combine, run_scenario

TARGET = 0.95
KINDS = ("soft_play", "chip_dumping")
OUT = Path(__file__).resolve().parent / "results" / "plo_collusion.json"


def hand_pipeline(rules: RulesConfig) -> tuple[Pipeline, list[str]]:
    """A pipeline holding only the hand detectors (fresh state), and their names."""
    detectors = {d.name: d for d in build_hand_detectors(rules=rules)}
    return Pipeline(detectors, rules=rules), sorted(detectors)


def run_seed(seed: int, *, minutes: float, players: int, rules: RulesConfig) -> dict[str, Any]:
    """One PLO room through the hand detectors, scored against its truth."""
    pipeline, registered = hand_pipeline(rules)
    config = RoomConfig(seed=seed, minutes=minutes, players=players, plo_share=1.0)
    result = run_scenario(pipeline=pipeline, config=config, registered=registered,
                          exempt_formats=rules.exempt_formats)
    assert not result["detector_errors"], result["detector_errors"]
    assert {HAND, SEAT} <= set(result["events"]), result["events"]
    return result


def _kind(entry: dict[str, Any] | None) -> dict[str, Any]:
    """The figures of one planted kind, with whether they reach the target."""
    if entry is None:
        return {"truth": 0, "findings": 0, "precision": None, "recall": None, "meets_target": False}
    keys = ("truth", "findings", "true_findings", "found", "precision", "recall", "median_ttd_s",
            "false_per_10k_honest_hours", "detectors")
    out = {k: entry.get(k) for k in keys}
    p, r = entry.get("precision"), entry.get("recall")
    out["meets_target"] = p is not None and r is not None and p >= TARGET and r >= TARGET
    return out


def per_seed(result: dict[str, Any]) -> dict[str, Any]:
    """What one seed contributed per kind: planted rows found, findings true."""
    cats = result["categories"]
    row: dict[str, Any] = {"seed": result["seed"], "hands": result["events"].get(HAND, 0)}
    for kind in KINDS:
        e = cats.get(kind, {})
        row[kind] = {"found": e.get("found", 0), "truth": e.get("truth", 0),
                     "true_findings": e.get("true_findings", 0), "findings": e.get("findings", 0)}
    return row


def report(results: list[dict[str, Any]], *, minutes: float, players: int, seconds: float) -> dict[str, Any]:
    """Pooled per-kind precision and recall against the target, and each seed's part."""
    pooled = combine(results)
    kinds = {kind: _kind(pooled["categories"].get(kind)) for kind in KINDS}
    return {
        "target": TARGET,
        "rooms": len(results),
        "minutes_per_room": minutes,
        "players_per_room": players,
        "plo_share": 1.0,
        "hand_records": sum(r["events"].get(HAND, 0) for r in results),
        "honest_player_hours": pooled["honest_player_hours"],
        "kinds": kinds,
        "soft_play_by_sample": pooled["soft_play_by_sample"],
        "all_meet_target": all(k["meets_target"] for k in kinds.values()),
        "per_seed": [per_seed(r) for r in results],
        "elapsed_s": round(seconds, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20, help="rooms, seeds 1..N (default 20)")
    parser.add_argument("--minutes", type=float, default=240.0, help="room time per room (default 240)")
    parser.add_argument("--players", type=int, default=120)
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    rules = RulesConfig()
    began = time.perf_counter()
    results = []
    for seed in range(1, args.seeds + 1):
        results.append(run_seed(seed, minutes=args.minutes, players=args.players, rules=rules))
        print(f"seed {seed}: {per_seed(results[-1])}", flush=True)
    out = report(results, minutes=args.minutes, players=args.players, seconds=time.perf_counter() - began)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    for kind, k in out["kinds"].items():
        print(f"{kind}: planted {k['truth']}, findings {k['findings']}, precision {k['precision']}, "
              f"recall {k['recall']} (target {TARGET}: {'met' if k['meets_target'] else 'NOT met'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
