"""The enforcement half of `bench.e2e_throughput`: produce -> enforcement event through the real
`railbird api` (SQLite) and its outbox relay, with where the time goes (from the outbox rows)."""

from __future__ import annotations

import json
import os
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

from kafka import KafkaConsumer, KafkaProducer, TopicPartition

from bench.e2e_throughput import ROOT, _wait_caught_up, chat_value, start_group, stop_group
from pipeline.contracts import CHAT, ENFORCEMENT
from tests.consumers.review_api_double import TOKEN


def start_real_api(bootstrap: str, port: int, db: Path, log: Path) -> subprocess.Popen[bytes]:
    """`railbird api` on SQLite with the outbox relay publishing to the embedded broker."""
    env = {
        **os.environ,
        "RAILBIRD_KAFKA_BOOTSTRAP": bootstrap,
        "RAILBIRD_DATABASE_URL": f"sqlite:///{db}",
        "RAILBIRD_SERVICE_TOKEN": TOKEN,
        "RAILBIRD_LOG_LEVEL": "WARNING",
    }
    with open(log, "ab") as out:
        proc = subprocess.Popen([sys.executable, "-m", "railbird.cli", "api", "--port", str(port)],
                                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2).status == 200:
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the review API did not start")


def phases(db: Path, sent: dict[str, float], arrived: dict[str, float]) -> dict[str, float]:
    """Where an enforcement event's time goes, split at the outbox row's `created_at` (the API's
    clock when it began the ingestion request): produce -> ingestion request (both consumer stages,
    the HTTP write's queueing), then -> event seen by the watcher (the API's transaction and commit,
    the relay's wake and produce, the broker, the watcher's fetch). p50/p99 in ms of each.
    (`published_at` is not used: the relay's marker thread writes it after the fact.)"""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT player_id, created_at FROM outbox").fetchall()
    created = {p: _epoch(c) for p, c in rows if p in sent and p in arrived}
    parts = {
        "to_ingest": [c - sent[p] for p, c in created.items()],
        "ingest_to_seen": [arrived[p] - c for p, c in created.items()],
    }
    out: dict[str, float] = {}
    for name, values in parts.items():
        values.sort()
        if values:
            out[f"{name}_p50_ms"] = round(1000 * statistics.median(values), 1)
            out[f"{name}_p99_ms"] = round(1000 * values[min(len(values) - 1, int(0.99 * len(values)))], 1)
    return out


def _epoch(value: str) -> float:
    """SQLite's naive UTC timestamp text as epoch seconds."""
    return datetime.fromisoformat(value).replace(tzinfo=UTC).timestamp()


def enforcement_latency(bootstrap: str, api_url: str, prefix: str, rate: int, seconds: float, logdir: Path,
                        backlog: int, processes: int, db: Path, abusive_every: int = 10) -> dict[str, float]:
    """p50/p99 produce -> enforcement event (automatic mute) through the real API and its relay."""
    ports, procs = start_group(processes, bootstrap, api_url, prefix, logdir, mode="registry", detectors="")
    # The game server's side: tansu holds every fetch for fetch.max.wait even when data arrived
    # (Apache Kafka answers at once), so the watcher's 500 ms default would be measured, not Railbird.
    watcher = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, group_id=None,
                            fetch_max_wait_ms=5)
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks=1, linger_ms=0)
    try:
        _wait_caught_up(ports, backlog)
        parts = [TopicPartition(ENFORCEMENT, p) for p in watcher.partitions_for_topic(ENFORCEMENT) or ()]
        watcher.assign(parts)
        watcher.seek_to_end(*parts)
        for tp in parts:
            watcher.position(tp)  # resolve the end now, before producing
        sent: dict[str, float] = {}
        arrived: dict[str, float] = {}
        stop = threading.Event()

        def watch() -> None:
            while not stop.is_set():
                for batch in watcher.poll(50).values():
                    now = time.time()
                    for record in batch:
                        subject = json.loads(record.value).get("subject", "")
                        arrived.setdefault(subject, now)

        thread = threading.Thread(target=watch, daemon=True)
        thread.start()
        total = int(rate * seconds)
        start = time.perf_counter()
        base = 20_000_000 + backlog
        for k in range(total):
            delay = start + k / rate - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            abusive = k % abusive_every == 0
            player = f"enf{base}-{k}" if abusive else None
            if player:
                sent[player] = time.time()
            value = chat_value(base + k, player=player, text="kys" if abusive else None, ts=datetime.now(UTC))
            producer.send(CHAT, key=(player or f"p{k % 3000}").encode(), value=value)
        producer.flush(30)
        achieved = total / (time.perf_counter() - start)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not set(sent) <= set(arrived):
            time.sleep(0.2)
        stop.set()
        thread.join(5)
        values = sorted(arrived[p] - t for p, t in sent.items() if p in arrived) or [float("nan")]
        return {
            "achieved_rate_msgs_per_s": achieved,
            "flagged_sent": len(sent),
            "enforcement_events": sum(p in arrived for p in sent),
            "p50_ms": 1000 * statistics.median(values),
            "p99_ms": 1000 * values[min(len(values) - 1, int(0.99 * len(values)))],
            **phases(db, sent, arrived),
        }
    finally:
        producer.close()
        watcher.close()
        stop_group(procs)


def _phase_text(result: dict[str, float]) -> str:
    return ", ".join(f"{k.removesuffix('_ms')} {v:.0f}" for k, v in result.items() if k.endswith("_ms")
                     and not k.startswith("p"))
