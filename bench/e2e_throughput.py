"""End to end through the embedded broker: sustained chat msgs/s, and produce-to-effect latency.

Phases (throughput runs repeated `--runs` times, medians reported), all on one broker and backlog:
1. ceiling: a bare kafka-python consume loop (poll, count, nothing else) over the N records;
2. throughput: consumer processes (`--processes`, default 2 = the cores) drain the same backlog with
   a new group, writing findings over HTTP to the ingestion contract's in-memory double; the rate
   counts until every lane (input and re-key) has consumed everything. Two modes:
   `doubles` = the runtime (`serve`) with three cheap test detectors, i.e. the runtime's own cost;
   `registry` = the real `railbird consume` with every registered detector;
3. latency at paced rates (`--rates`, default 1,000 and 200 msg/s; 10% abusive, each from a fresh player)
   with a caught-up runtime:
   produce -> finding acknowledged by the double, per mode; and, unless `--no-real-api`,
   produce -> enforcement event on `enforcement.events` through the real `railbird api` (SQLite)
   and its outbox relay.
Writes bench/results/e2e.json.

    .venv/bin/python -m bench.e2e_throughput [--messages 30000] [--runs 3] [--processes 2]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from kafka import KafkaConsumer, KafkaProducer

from consumers.broker import EmbeddedBroker, free_port
from consumers.runtime import internal_topics, lane_topics
from consumers.topics import ensure_topics
from pipeline.contracts import CHAT, ENFORCEMENT
from railbird.settings import Settings
from railbird.wiring import make_detector_factory
from tests.consumers.review_api_double import TOKEN, IngestStore, serve_review_api

RESULTS = Path(__file__).resolve().parent / "results" / "e2e.json"
ROOT = Path(__file__).resolve().parent.parent
T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
BENIGN = ["nice hand", "gl all", "ty", "wow what a river", "who deals this", "gg wp", "lol", "brb coffee"]
ABUSIVE = ["kys", "fuck you donkey", "you are a retard"]
SAMPLE = re.compile(r'^railbird_events_(in|out)_total\{(?:kind="(\w+)",)?topic="([^"]+)"(?:,kind="(\w+)")?\} (\S+)$')


def chat_value(i: int, *, player: str | None = None, abusive: bool = False, ts: datetime | None = None,
               text: str | None = None) -> bytes:
    """One chat message as JSON bytes; 3,000 players at 300 tables."""
    text = text or (ABUSIVE[i % len(ABUSIVE)] if abusive else BENIGN[i % len(BENIGN)])
    value = {
        "event_id": f"b{i}",
        "ts": (ts or T0 + timedelta(milliseconds=i)).isoformat(),
        "channel": "table",
        "player_id": player or f"p{i % 3000}",
        "nickname": f"nick{i % 3000}",
        "text": text,
        "client": "desktop",
        "table_id": f"t{i % 300}",
    }
    return json.dumps(value).encode()


def produce_backlog(bootstrap: str, n: int) -> None:
    """N chat messages keyed by player (the game servers' key); 5% abusive."""
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=20, batch_size=256 * 1024)
    for i in range(n):
        producer.send(CHAT, key=f"p{i % 3000}".encode(), value=chat_value(i, abusive=i % 20 == 0))
    producer.flush(60)
    producer.close()


def bare_consume(bootstrap: str, n: int, group: str) -> float:
    """The ceiling: msgs/s of a poll-and-count loop over the backlog (from its first record)."""
    consumer = KafkaConsumer(
        CHAT,
        bootstrap_servers=bootstrap,
        group_id=group,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        max_poll_records=500,
        session_timeout_ms=6000,
        heartbeat_interval_ms=1000,
    )
    seen, started = 0, 0.0
    while seen < n:
        for batch in consumer.poll(200).values():
            if not started:
                started = time.perf_counter()
            seen += len(batch)
    elapsed = time.perf_counter() - started
    consumer.close()
    return n / elapsed


MODES = {
    "registry": ["railbird.cli", "consume", "--topic", CHAT],
    "doubles": ["tests.consumers.consume_proc", CHAT],
}
"""`registry`: the real command with every registered detector. `doubles`: the same runtime (`serve`)
with three cheap test detectors (one stateless, two keyed), i.e. the runtime's own overhead."""


def start_runtime(bootstrap: str, api_url: str, prefix: str, port: int, log: Path, *, mode: str,
                  detectors: str = "", max_poll: int = 1000, lookback_s: int = 13 * 3600) -> subprocess.Popen[bytes]:
    """A consumer process for chat.messages in the given mode."""
    env = {
        **os.environ,
        "RAILBIRD_KAFKA_BOOTSTRAP": bootstrap,
        "RAILBIRD_API_URL": api_url,
        "RAILBIRD_SERVICE_TOKEN": TOKEN,
        "RAILBIRD_CONSUMER_GROUP_PREFIX": prefix,
        "RAILBIRD_CONSUMER_SESSION_TIMEOUT_MS": "6000",
        "RAILBIRD_CONSUMER_HEARTBEAT_MS": "1000",
        "RAILBIRD_METRICS_PORT": str(port),
        "RAILBIRD_LOG_LEVEL": "WARNING",
        "RAILBIRD_CONSUMER_DETECTORS": detectors,
        "RAILBIRD_CONSUMER_MAX_POLL_RECORDS": str(max_poll),
        "RAILBIRD_CONSUMER_STATE_LOOKBACK_S": str(lookback_s),
        # Also the JoinGroup rebalance timeout: bounds how long a join waits for a member that left
        # without saying so (tansu waits for it; 300 s by default).
        "RAILBIRD_CONSUMER_MAX_POLL_INTERVAL_MS": "30000",
    }
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", *MODES[mode]],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )


def scrape(ports: list[int]) -> tuple[float, dict[str, float]]:
    """Chat records consumed, and per re-key topic records routed minus records consumed."""
    chat_in = 0.0
    pending: dict[str, float] = {}
    for port in ports:
        try:
            text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2).read().decode()
        except OSError:
            continue
        for line in text.splitlines():
            m = SAMPLE.match(line)
            if not m:
                continue
            direction, kind, topic, value = m.group(1), m.group(2) or m.group(4), m.group(3), float(m.group(5))
            if direction == "in" and topic == CHAT:
                chat_in += value
            elif direction == "in":
                pending[topic] = pending.get(topic, 0.0) - value
            elif kind == "rekey":
                pending[topic] = pending.get(topic, 0.0) + value
    return chat_in, pending


def runtime_rate(bootstrap: str, api_url: str, n: int, prefix: str, processes: int, logdir: Path,
                 detectors: str, mode: str) -> dict[str, float]:
    """Msgs/s of the runtime over the backlog, from its first record until every lane is drained."""
    ports = [free_port() for _ in range(processes)]
    procs = [
        start_runtime(bootstrap, api_url, prefix, p, logdir / f"{prefix}-{i}.log", mode=mode, detectors=detectors)
        for i, p in enumerate(ports)
    ]
    try:  # the processes are stopped however this ends
        t0 = c0 = None
        input_done = None
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            chat_in, pending = scrape(ports)
            now = time.perf_counter()
            if t0 is None and chat_in > 0:
                t0, c0 = now, chat_in
            if input_done is None and chat_in >= n:
                input_done = now
            if chat_in >= n and all(v <= 0 for v in pending.values()):
                assert t0 is not None and c0 is not None and input_done is not None
                return {"e2e_msgs_per_s": (n - c0) / (now - t0), "input_stage_msgs_per_s": (n - c0) / (input_done - t0)}
            time.sleep(0.1)
        raise RuntimeError("runtime did not drain the backlog in 600 s")
    finally:
        stop_group(procs)


def latency_run(bootstrap: str, api_url: str, store: IngestStore, prefix: str, rate: int, seconds: float,
                logdir: Path, detectors: str, backlog: int, mode: str, processes: int,
                abusive_every: int = 10) -> dict[str, float]:
    """p50/p99 produce -> finding written at a paced `rate`, with a caught-up runtime."""
    ports, procs = start_group(processes, bootstrap, api_url, prefix, logdir, mode=mode, detectors=detectors)
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks=1, linger_ms=0)
    try:
        _wait_caught_up(ports, backlog)
        sent: dict[str, float] = {}
        total = int(rate * seconds)
        start = time.perf_counter()
        base = 10_000_000 + backlog
        for k in range(total):
            target = start + k / rate
            delay = target - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            i = base + k
            abusive = k % abusive_every == 0
            player = f"lat{k}" if abusive else None
            value = chat_value(i, player=player, text="kys" if abusive else None, ts=datetime.now(UTC))
            if abusive:
                sent[f"b{i}"] = time.time()
            producer.send(CHAT, key=(player or f"p{i % 3000}").encode(), value=value)
        producer.flush(30)
        achieved = total / (time.perf_counter() - start)
        deadline = time.monotonic() + 30
        latencies: dict[str, float] = {}
        while time.monotonic() < deadline and len(latencies) < len(sent):
            for fid, at in list(store.latencies):
                for source in store.findings[fid]["source_event_ids"]:
                    if source in sent:
                        lat = at - sent[source]
                        latencies[source] = min(latencies.get(source, lat), lat)
            time.sleep(0.2)
        values = sorted(latencies.values()) or [float("nan")]
        return {
            "achieved_rate_msgs_per_s": achieved,
            "flagged_sent": len(sent),
            "flagged_written": len(values),
            "p50_ms": 1000 * statistics.median(values),
            "p99_ms": 1000 * values[min(len(values) - 1, int(0.99 * len(values)))],
        }
    finally:
        producer.close()
        stop_group(procs)


def start_group(n: int, bootstrap: str, api_url: str, prefix: str, logdir: Path, *, mode: str, detectors: str
                ) -> tuple[list[int], list[subprocess.Popen[bytes]]]:
    """n consumer processes in one group, ready; small polls: at 1,000 msg/s a batch is what just
    arrived."""
    ports = [free_port() for _ in range(n)]
    procs = [
        # Short lookback: these processes take over a caught-up group; replaying the whole backlog
        # into the detectors (what a restart costs, measured separately by the tests) is not latency.
        start_runtime(bootstrap, api_url, prefix, port, logdir / f"{prefix}-{time.time_ns()}-{i}.log", mode=mode,
                      detectors=detectors, max_poll=200, lookback_s=30)
        for i, port in enumerate(ports)
    ]
    try:
        for port in ports:
            _wait_ready(port)
    except RuntimeError:
        stop_group(procs)
        raise
    # The first process is ready before the last one joins: let that rebalance finish (tansu
    # completes a join in about half the 6 s session timeout) before measuring.
    time.sleep(8)
    return ports, procs


def stop_group(procs: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM every process and reap it (SIGKILL after 30 s): no consumer outlives the bench."""
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _wait_caught_up(ports: list[int], backlog: int, timeout_s: float = 600) -> None:
    """Wait until a fresh group has consumed the `backlog`, stopped moving and drained its routes."""
    deadline = time.monotonic() + timeout_s
    last = -1.0
    while True:
        chat_in, pending = scrape(ports)
        if chat_in >= backlog and chat_in == last and all(v <= 0 for v in pending.values()):
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"the runtime never caught up with the backlog of {backlog}")
        last = chat_in
        time.sleep(1.0)


def _wait_ready(port: int, timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2).status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError("runtime never became ready")


def measure_mode(mode: str, args: argparse.Namespace, bootstrap: str, url: str, store: IngestStore,
                 logdir: Path, backlog: int) -> tuple[dict[str, Any], int]:
    """Throughput and latency runs of one mode; its summary and the topic's new record count."""
    runtime: list[dict[str, float]] = []
    single: list[dict[str, float]] = []
    for run in range(args.runs):
        runtime.append(runtime_rate(bootstrap, url, backlog, f"{mode}-rt-{run}", args.processes, logdir,
                                    args.detectors, mode))
        print(f"{mode} run {run}: {args.processes} processes {runtime[-1]['e2e_msgs_per_s']:,.0f} msg/s "
              f"(input stage {runtime[-1]['input_stage_msgs_per_s']:,.0f})", flush=True)
        if args.processes > 1 and not args.no_single:
            single.append(runtime_rate(bootstrap, url, backlog, f"{mode}-rt1-{run}", 1, logdir, args.detectors, mode))
            print(f"{mode} run {run}: 1 process {single[-1]['e2e_msgs_per_s']:,.0f} msg/s", flush=True)
    latency: dict[str, list[dict[str, float]]] = {}
    for rate in args.rates:
        for run in range(args.latency_runs):
            # A fresh group (it first drains the backlog): on tansu, a group whose members closed
            # cleanly waits up to max.poll.interval.ms before the next join completes.
            try:
                result = latency_run(bootstrap, url, store, f"{mode}-lat{rate}-{run}", rate, args.seconds,
                                     logdir, args.detectors, backlog, mode, args.processes, args.abusive_every)
            except RuntimeError as exc:  # recorded, not fatal: the throughput figures still count
                print(f"{mode} latency at {rate}/s failed: {exc}", flush=True)
                continue
            latency.setdefault(str(rate), []).append(result)
            backlog += int(rate * args.seconds)
            print(f"{mode} latency at {rate}/s run {run}: p50 {result['p50_ms']:.1f} ms, "
                  f"p99 {result['p99_ms']:.1f} ms (achieved {result['achieved_rate_msgs_per_s']:.0f} msg/s)",
                  flush=True)
    summary = {
        "runtime_e2e_msgs_per_s_median": round(statistics.median(r["e2e_msgs_per_s"] for r in runtime)),
        "runtime_input_stage_msgs_per_s_median": round(statistics.median(r["input_stage_msgs_per_s"] for r in runtime)),
        "latency_ms_by_rate": {rate: _medians(runs) for rate, runs in latency.items()},
        "runs": {"runtime": runtime, "runtime_1_process": single, "latency": latency},
    }
    if single:
        summary["runtime_1_process_e2e_msgs_per_s_median"] = round(
            statistics.median(r["e2e_msgs_per_s"] for r in single))
    return summary, backlog


def _medians(runs: list[dict[str, float]]) -> dict[str, float]:
    return {
        "p50": round(statistics.median(r["p50_ms"] for r in runs), 1),
        "p99": round(statistics.median(r["p99_ms"] for r in runs), 1),
    }


def main() -> None:
    """Run the phases and print/write the medians."""
    from bench.e2e_enforcement import _phase_text, enforcement_latency, start_real_api  # imports this module
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=30_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--latency-runs", type=int, default=1)
    parser.add_argument("--processes", type=int, default=2, help="consumer processes in the group (2 cores)")
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--rates", type=lambda v: [int(x) for x in v.split(",")], default=[1000, 200],
                        help="paced rates of the latency phases (msg/s): the target's and one below capacity")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--modes", default="doubles,registry", help="comma-separated: doubles, registry")
    parser.add_argument("--detectors", default="", help="RAILBIRD_CONSUMER_DETECTORS in registry mode (default: all)")
    parser.add_argument("--abusive-every", type=int, default=10,
                        help="latency phases: every Nth message is abusive from a fresh player (10 = 10%%)")
    parser.add_argument("--no-single", action="store_true", help="skip the 1-process throughput runs")
    parser.add_argument("--no-real-api", action="store_true", help="skip produce -> enforcement event via `railbird api`")
    args = parser.parse_args()

    logdir = Path(tempfile.mkdtemp(prefix="railbird-e2e-"))
    try:
        detectors = make_detector_factory(Settings())()
    except SystemExit as exc:  # the registry cannot load (e.g. a model being retrained): doubles still run
        if "registry" in args.modes.split(",") or not args.no_real_api:
            raise
        print(f"registry unavailable: {exc}", flush=True)
        detectors = {}
    topics = lane_topics([CHAT], "railbird")
    store = IngestStore()
    modes: dict[str, Any] = {}
    with EmbeddedBroker(port=free_port(), log_path=logdir / "broker.log") as broker, serve_review_api(store) as url:
        ensure_topics(broker.bootstrap, partitions=args.partitions,
                      topics=[*topics, *internal_topics(topics), ENFORCEMENT])
        produce_backlog(broker.bootstrap, args.messages)
        bare = [bare_consume(broker.bootstrap, args.messages, f"bench-bare-{run}") for run in range(args.runs)]
        print(f"bare kafka-python loop: {statistics.median(bare):,.0f} msg/s", flush=True)
        backlog = args.messages
        for mode in [m for m in args.modes.split(",") if m]:
            modes[mode], backlog = measure_mode(mode, args, broker.bootstrap, url, store, logdir, backlog)
        enforcement: dict[str, list[dict[str, float]]] = {}
        if not args.no_real_api:
            api_port = free_port()
            api = start_real_api(broker.bootstrap, api_port, logdir / "api.db", logdir / "api.log")
            try:
                for rate in args.rates:
                    for run in range(args.latency_runs):
                        try:
                            enf = enforcement_latency(broker.bootstrap, f"http://127.0.0.1:{api_port}",
                                                      f"enf{rate}-{run}", rate, args.seconds,
                                                      logdir, backlog, args.processes, logdir / "api.db",
                                                      args.abusive_every)
                        except RuntimeError as exc:
                            print(f"enforcement latency at {rate}/s failed: {exc}", flush=True)
                            continue
                        enforcement.setdefault(str(rate), []).append(enf)
                        backlog += int(rate * args.seconds)
                        print(f"enforcement latency at {rate}/s run {run}: p50 {enf['p50_ms']:.1f} ms, "
                              f"p99 {enf['p99_ms']:.1f} ms; phases {_phase_text(enf)}", flush=True)
            finally:
                api.send_signal(signal.SIGTERM)
                api.wait(30)
    bare_median = statistics.median(bare)
    for summary in modes.values():
        summary["ratio_runtime_to_bare"] = round(summary["runtime_e2e_msgs_per_s_median"] / bare_median, 3)
        if "runtime_1_process_e2e_msgs_per_s_median" in summary:
            summary["ratio_1_process_to_bare"] = round(
                summary["runtime_1_process_e2e_msgs_per_s_median"] / bare_median, 3)
    result: dict[str, Any] = {
        "bench": "e2e_throughput",
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "loadavg_at_end": os.getloadavg()},
        "messages": args.messages,
        "partitions": args.partitions,
        "processes": args.processes,
        "registry_detectors": sorted(detectors),
        "lanes": topics,
        "bare_kafka_python_msgs_per_s_median": round(bare_median),
        "bare_runs": bare,
        "target_msgs_per_s": 5000,
        "latency_rates_msgs_per_s": args.rates,
        "latency_abusive_every": args.abusive_every,
        "latency_measures": "produce -> finding acknowledged by the ingestion double (not enforcement event)",
        "target_p99_ms": 250,
        "modes": modes,
        "enforcement_latency": {
            "measures": "produce -> enforcement.events record (registry runtime -> `railbird api` on SQLite -> "
                        "outbox relay woken by the commit), automatic mutes of 10% abusive messages",
            "latency_ms_by_rate": {rate: _medians(runs) for rate, runs in enforcement.items()},
            "runs": enforcement,
        },
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    brief = {m: {k: v for k, v in r.items() if k != "runs"} for m, r in modes.items()}
    enf = {k: v for k, v in result["enforcement_latency"].items() if k != "runs"}
    skip = ("modes", "registry_detectors", "bare_runs", "enforcement_latency")
    print(json.dumps({**{k: v for k, v in result.items() if k not in skip}, "modes": brief,
                      "enforcement_latency": enf}, indent=2))


if __name__ == "__main__":
    main()
