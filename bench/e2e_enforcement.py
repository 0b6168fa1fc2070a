"""The enforcement half of `bench.e2e_throughput`: produce -> enforcement event through the real
`railbird api` and its outbox relay, on SQLite (one API process) and PostgreSQL (`--api-workers`
processes, one relay publishing), at the chosen abusive mix and a heavier one, with where the time
goes (from the outbox rows).

The mix: every Nth message is abusive (`AUTOMATIC_LINE`) from a fresh player, so each one is a new case, an
automatic mute (sanction, audit entry, outbox row) and an enforcement event: the most expensive
message the API ingests. The chosen mix is 1% (`--abusive-every 100`); the heavier one 10%
(`--heavy-abusive-every 10`). Why 1%: docs/operations.md ("Figures").
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kafka import KafkaConsumer, TopicPartition
from sqlalchemy import text

from api.db import make_engine
from bench._e2e_rig import (
    PLAYERS,
    ROOT,
    bench_gc_off,
    chat_value,
    fresh_broker,
    pace,
    start_group,
    stop_group,
    warm_up,
)
from bench._rdkafka_producer import paced_producer
from pipeline.contracts import ENFORCEMENT
from tests.consumers.review_api_double import TOKEN

if TYPE_CHECKING:  # the throughput bench imports this module lazily
    from bench.e2e_throughput import Traffic

AUTOMATIC_LINE = "you are a retard"
"""A line the shipped model mutes automatically by a wide margin (insult head 0.9998 against its
0.9963 automatic point, 2 Dec). It was "kys" until the fifth authored round put "kys" at 0.9958,
just under that point (review, no automatic mute): a run whose line is not automatic measures
nothing, so `_run_once` refuses a run in which no enforcement event arrives."""

PG_SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432"
WARMUP_S = 4.0
"""Benign traffic at the measured rate first (see `bench._e2e_rig.warm_up`)."""


def start_real_api(bootstrap: str, port: int, url: str, log: Path, workers: int = 1) -> subprocess.Popen[bytes]:
    """`railbird api` on `url` with the outbox relay publishing to the embedded broker."""
    env = {
        **os.environ,
        "RAILBIRD_KAFKA_BOOTSTRAP": bootstrap,
        "RAILBIRD_DATABASE_URL": url,
        "RAILBIRD_SERVICE_TOKEN": TOKEN,
        "RAILBIRD_LOG_LEVEL": "WARNING",
    }
    with open(log, "ab") as out:
        proc = subprocess.Popen([sys.executable, "-m", "railbird.cli", "api", "--port", str(port),
                                 "--workers", str(workers)],
                                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2).status == 200:
                time.sleep(2 if workers > 1 else 0)  # every worker up (and one relay leading)
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the review API did not start")


def phases(url: str, sent: dict[str, float], arrived: dict[str, float], acked: dict[bytes, float]) -> dict[str, float]:
    """Where an enforcement event's time goes, split at the outbox row's `created_at` (the API's
    clock when it began the ingestion request): produce -> ingestion request (both consumer stages,
    the HTTP write's queueing), then -> event seen by the watcher (the API's transaction and commit,
    the relay's wake and produce, the broker, the watcher's fetch). p50/p99 in ms of each; and,
    inside the first, produce -> the broker's acknowledgement (the client's batching and linger,
    the broker's append: what neither consumer stage can change)."""
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT player_id, created_at FROM outbox")).all()
    finally:
        engine.dispose()
    created = {p: _epoch(c) for p, c in rows if p in sent and p in arrived}
    parts = {
        "to_ack": [acked[p.encode()] - sent[p] for p in created if p.encode() in acked],
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


def _epoch(value: str | datetime) -> float:
    """A stored timestamp (SQLite: naive UTC text; PostgreSQL: aware) as epoch seconds."""
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def enforcement_latency(bootstrap: str, api_url: str, db_url: str, traffic: Traffic, prefix: str, rate: int,
                        seconds: float, logdir: Path, processes: int, abusive_every: int) -> dict[str, Any]:
    """p50/p99 produce -> enforcement event (automatic mute) through the real API and its relay."""
    _, procs = start_group(processes, bootstrap, api_url, prefix, logdir, traffic.ends, mode="registry",
                           detectors="", max_poll=200)
    # The game server's side: tansu holds every fetch for fetch.max.wait even when data arrived
    # (Apache Kafka answers at once), so the watcher's 500 ms default would be measured, not Railbird.
    watcher = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, group_id=None,
                            fetch_max_wait_ms=5)
    producer = paced_producer(bootstrap, traffic.client, traffic.codec, traffic.linger_ms)
    stop = threading.Event()
    try:
        parts = [TopicPartition(ENFORCEMENT, p) for p in watcher.partitions_for_topic(ENFORCEMENT) or ()]
        watcher.assign(parts)
        watcher.seek_to_end(*parts)
        for tp in parts:
            watcher.position(tp)  # resolve the end now, before producing
        sent: dict[str, float] = {}
        arrived: dict[str, float] = {}

        def watch() -> None:
            while not stop.is_set():
                for batch in watcher.poll(50).values():
                    now = time.time()
                    for record in batch:
                        subject = json.loads(record.value).get("subject", "")
                        arrived.setdefault(subject, now)

        warm_up(producer, traffic.take, rate, WARMUP_S, traffic.ends)
        thread = threading.Thread(target=watch, daemon=True)
        thread.start()
        base = traffic.take(int(rate * seconds))

        def send(k: int) -> None:
            i = base + k
            abusive = k % abusive_every == 0
            player = f"enf{i}" if abusive else None
            if player:
                sent[player] = time.time()
            value = chat_value(i, player=player, text=AUTOMATIC_LINE if abusive else None, ts=datetime.now(UTC))
            producer.send((player or f"p{i % PLAYERS}").encode(), value)

        with bench_gc_off():
            achieved = pace(rate, seconds, send)
            producer.finish(traffic.ends)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not set(sent) <= set(arrived):
                time.sleep(0.2)
        stop.set()
        thread.join(5)
        if sent and not any(p in arrived for p in sent):
            raise RuntimeError(f"no enforcement event for any of {len(sent)} abusive lines: is "
                               f"{AUTOMATIC_LINE!r} still automatic under the shipped model's points?")
        values = sorted(arrived[p] - t for p, t in sent.items() if p in arrived) or [float("nan")]
        # tansu's produce cost grows with the batches a topic holds (docs/operations.md "Figures"),
        # so the run's latency drifts up; the median per 10 s of sending shows by how much.
        first = min(sent.values(), default=0.0)
        by_window: dict[int, list[float]] = {}
        for p, t in sent.items():
            if p in arrived:
                by_window.setdefault(int((t - first) // 10), []).append(arrived[p] - t)
        return {
            "achieved_rate_msgs_per_s": achieved,
            "flagged_sent": len(sent),
            "enforcement_events": sum(p in arrived for p in sent),
            "p50_ms": 1000 * statistics.median(values),
            "p99_ms": 1000 * values[min(len(values) - 1, int(0.99 * len(values)))],
            "p50_ms_per_10s": [round(1000 * statistics.median(v), 1) for _, v in sorted(by_window.items())],
            **phases(db_url, sent, arrived, producer.acked),
        }
    finally:
        stop.set()
        producer.close()
        watcher.close()
        stop_group(procs)


def _phase_text(result: dict[str, Any]) -> str:
    return ", ".join(f"{k.removesuffix('_ms')} {v:.0f}" for k, v in result.items() if k.endswith("_ms")
                     and not k.startswith("p"))


def _pg_database() -> str | None:
    """A new scratch database on the local PostgreSQL server, or None when it does not answer."""
    name = f"bench_e2e_{uuid.uuid4().hex[:8]}"
    try:
        admin = make_engine(f"{PG_SERVER}/test", isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        admin.dispose()
    except Exception as exc:  # noqa: BLE001 - no server: the SQLite figures still count
        print(f"PostgreSQL unavailable ({type(exc).__name__}); skipping it", flush=True)
        return None
    return f"{PG_SERVER}/{name}"


def _drop(url: str) -> None:
    name = url.rsplit("/", 1)[1]
    admin = make_engine(f"{PG_SERVER}/test", isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def _run_once(args: argparse.Namespace, logdir: Path, traffic: Traffic, database: str, workers: int, url: str,
              every: int, rate: int, run: int) -> dict[str, float]:
    """One run on a new broker (`fresh_broker`: tansu slows down as topics, groups and records
    pile up, run after run) with the API started on it; the database carries over."""
    from consumers.broker import free_port

    with fresh_broker(logdir, args.partitions, traffic.ends) as bootstrap:
        port = free_port()
        api = start_real_api(bootstrap, port, url, logdir / f"api-{database}-{workers}.log", workers)
        try:
            return enforcement_latency(bootstrap, f"http://127.0.0.1:{port}", url, traffic,
                                       f"enf-{database}{workers}-{every}-{rate}-{run}", rate,
                                       args.seconds, logdir, args.processes, every)
        finally:
            api.terminate()
            api.wait(30)


def _configuration(args: argparse.Namespace, logdir: Path, traffic: Traffic, database: str, workers: int,
                   url: str, mixes: list[int]) -> list[dict[str, Any]]:
    """Every (mix, rate) of one API configuration, each run on its own broker."""
    from bench.e2e_throughput import medians  # the throughput bench imports this module lazily

    configs: list[dict[str, Any]] = []
    for every in mixes:
        for rate in args.rates:
            runs: list[dict[str, Any]] = []
            for run in range(args.latency_runs):
                try:
                    runs.append(_run_once(args, logdir, traffic, database, workers, url, every, rate, run))
                except RuntimeError as exc:
                    print(f"enforcement latency ({database}, 1/{every}, {rate}/s) failed: {exc}", flush=True)
                    continue
                r = runs[-1]
                print(f"enforcement latency {database} x{workers} 1/{every} abusive at {rate}/s run {run}: "
                      f"p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms "
                      f"({r['enforcement_events']}/{r['flagged_sent']} events); "
                      f"phases {_phase_text(r)}; p50 per 10 s {'/'.join(f'{v:.0f}' for v in r['p50_ms_per_10s'])}",
                      flush=True)
            if runs:
                configs.append({"database": database, "api_workers": workers, "abusive_every": every,
                                "rate": rate, **medians(runs), "runs": runs})
    return configs


def measure_enforcement(args: argparse.Namespace, logdir: Path, traffic: Traffic) -> dict[str, Any]:
    """Every (database, mix, rate) configuration; the chosen mix on the first database is the headline."""
    mixes = [args.abusive_every] + ([args.heavy_abusive_every] if args.heavy_abusive_every else [])
    configs: list[dict[str, Any]] = []
    setups = [(d, 1) if d == "sqlite" else (d, w) for d in args.databases.split(",") if d
              for w in ([1] if d == "sqlite" else args.api_workers)]
    for database, workers in setups:
        url = f"sqlite:///{logdir / f'api-{time.time_ns()}.db'}" if database == "sqlite" else _pg_database()
        if url is None:
            continue
        try:
            configs.extend(_configuration(args, logdir, traffic, database, workers, url, mixes))
        finally:
            if database != "sqlite":
                _drop(url)
    headline = [c for c in configs if c["abusive_every"] == args.abusive_every]
    first = (headline[0]["database"], headline[0]["api_workers"]) if headline else None
    return {
        "measures": "produce -> enforcement.events record (registry runtime -> `railbird api` -> outbox relay "
                    "woken by the commit / NOTIFY); every Nth message an automatic mute of a fresh player",
        "chosen_abusive_every": args.abusive_every,
        "heavy_abusive_every": args.heavy_abusive_every,
        "headline": {"database": first[0], "api_workers": first[1]} if first else None,
        "latency_ms_by_rate": {str(c["rate"]): {"p50": c["p50"], "p99": c["p99"]}
                               for c in headline if (c["database"], c["api_workers"]) == first},
        "configs": [{k: v for k, v in c.items() if k != "runs"} for c in configs],
        "runs": configs,
    }
