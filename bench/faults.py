"""Fault-injection run at the issue's size: 100,000 chat events through the real stack (embedded
broker, `railbird api`, two `railbird consume` processes) while 10 random SIGKILLs hit the
consumers; then every effect is counted against the offline oracle (`pipeline.replay`). The
traffic's event time runs 150x faster than the wall clock while it is produced, so the consumers'
chat reorder lateness is scaled by the same factor (`tests.faults.traffic.reorder_lateness_s`).

Writes bench/results/faults.json (faults-librdkafka.json with `--client librdkafka`).

    .venv/bin/python -m bench.faults [--events 100000] [--kills 10] [--rate 1500] [--seed 7]
                                     [--client librdkafka]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import tempfile
import time
from collections import Counter
from pathlib import Path

from consumers.broker import EmbeddedBroker, free_port
from railbird.settings import Settings
from railbird.wiring import make_pipeline
from tests.faults.checks import (
    assert_exactly_once,
    end_traffic,
    order_sensitive_difference,
    wait_for_all_effects,
)
from tests.faults.rig import account, make_rig
from tests.faults.traffic import chat_traffic, oracle, reorder_lateness_s, watermark_tail

RESULTS = Path(__file__).resolve().parent / "results" / "faults.json"


def anomalies_logged(logs: Path) -> dict[str, int]:
    """`<detector> <kind>` -> messages the consumers logged as anomalous (`late`: beyond the reorder
    lateness, so judged out of order) over every consumer process of the run, killed ones included."""
    found: Counter[str] = Counter()
    for path in sorted(logs.glob("consume-*.log")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            marker = '"detector anomalies: '
            if marker in line:
                detector, kind, plus = line.split(marker, 1)[1].split('"', 1)[0].split()
                found[f"{detector} {kind}"] += int(plus.lstrip("+"))
    return dict(found)


def run(*, events: int, kills: int, rate: float, seed: int, workdir: Path, client: str = "kafka-python") -> dict[str, object]:
    """One run; the figures (raises AssertionError if an effect was lost or duplicated)."""
    lateness = reorder_lateness_s(rate)
    records = chat_traffic(events, seed=seed)
    tail = watermark_tail(events, lateness_s=lateness, seed=seed)
    began = time.monotonic()
    expected = oracle(records + tail, make_pipeline(Settings(chat_reorder_lateness_s=lateness)))
    oracle_s = time.monotonic() - began
    rng = random.Random(seed)
    with EmbeddedBroker(port=free_port(), log_path=workdir / "logs" / "broker.log") as broker:
        rig = make_rig(workdir, broker)
        rig.chat_lateness_s = lateness
        rig.client = client
        try:
            rig.start_api()
            slots = [rig.start_consumer(), rig.start_consumer()]
            started = time.monotonic()
            traffic = rig.produce_in_background(records, rate_per_s=rate)
            window = events / rate
            moments = sorted(rng.uniform(2.0, window) for _ in range(kills))
            for at in moments:
                time.sleep(max(0.0, at - (time.monotonic() - started)))
                victim = rng.choice(slots)
                rig.kill_consumer(victim)
                time.sleep(rng.uniform(0.0, 1.5))
                rig.start_consumer(victim)
            traffic.join()
            end_traffic(rig, tail, produced=events, timeout_s=900)
            verdict = "ok"
            try:
                wait_for_all_effects(rig, expected, n=events + len(tail), timeout_s=900)
            except AssertionError as exc:  # counted below: which effects are missing, by detector
                verdict = f"FAILED: {exc}"
            elapsed = time.monotonic() - started
            acc = account(rig, input_records=events + len(tail))
            try:
                assert_exactly_once(acc, expected)
            except AssertionError as exc:
                verdict = f"FAILED: {exc}" if verdict == "ok" else f"{verdict}; {exc}"
            missing = Counter(expected.findings[f]["detector"] for f in set(expected.findings) - acc.findings)
            extra = Counter(acc.detector_of[f] for f in acc.findings - set(expected.findings))
        finally:
            rig.stop_all()
    figures = acc.figures()
    duplicated = sum(n - 1 for n in acc.enforcement_ids.values()) + figures["dead_letter_records"] - figures["dead_letters"]
    return {
        "bench": "faults", "client": client, "events": events, "watermark_tail_events": len(tail), "kills": rig.kills,
        "consumer_processes": 2, "rate_per_s": rate, "seed": seed,
        "chat_reorder_lateness_event_s": lateness, "verdict": verdict, "seconds_to_all_effects": round(elapsed, 1), "oracle_seconds": round(oracle_s, 1),
        "oracle_findings": len(expected.findings), "oracle_dead_letters": expected.dead,
        "oracle_automatic_sanctions": len(expected.automatic_actions),
        "lost_findings": len(set(expected.findings) - acc.findings), "duplicated_effects": duplicated,
        "missing_by_detector": dict(missing), "extra_by_detector": dict(extra),
        "anomalies_logged": anomalies_logged(workdir / "logs"),
        "order_sensitive": order_sensitive_difference(acc, expected), **figures,
        "machine": {"python": platform.python_version(), "cpus": __import__("os").cpu_count()},
    }


def main(argv: list[str] | None = None) -> int:
    """Run, print, write the JSON; exit 1 if any effect was lost or duplicated."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--rate", type=float, default=1500.0, help="produce rate (events/s)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--client", choices=["kafka-python", "librdkafka"], default="kafka-python",
                        help="the game servers' client (librdkafka: idempotent, a random codec per 100 records)")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="keep the run's logs and database here (default: a temporary folder, removed)")
    args = parser.parse_args(argv)
    if args.workdir is not None:
        args.workdir.mkdir(parents=True, exist_ok=True)
        result = run(events=args.events, kills=args.kills, rate=args.rate, seed=args.seed, workdir=args.workdir,
                     client=args.client)
    else:
        with tempfile.TemporaryDirectory(prefix="railbird-faults-") as tmp:
            result = run(events=args.events, kills=args.kills, rate=args.rate, seed=args.seed, workdir=Path(tmp),
                         client=args.client)
    print(json.dumps(result, indent=2))
    out = RESULTS if args.client == "kafka-python" else RESULTS.with_name(f"faults-{args.client}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    return 0 if result["verdict"] == "ok" else 1


if __name__ == "__main__":
    raise SystemExit(main())
