"""End to end through the embedded broker: sustained chat msgs/s, and produce-to-effect latency.

Phases (throughput runs repeated `--runs` times, medians reported), all on one broker:
1. ceiling: a bare kafka-python consume loop (poll, count, nothing else) over N records;
2. throughput: consumer processes (`--processes`, default 2 = the cores) in a new group that starts
   at the topic's end; once every process is ready and the group has settled, N messages are
   produced as fast as one producer (`--client`) goes, and the rate counts from the group's first
   record until every lane (input and re-key) has consumed everything, findings written over HTTP
   to the ingestion contract's in-memory double. A sustained rate: no start-up rebalance or state
   replay inside the measurement (see `bench._e2e_rig`). Two modes:
   `doubles` = the runtime (`serve`) with three cheap test detectors, i.e. the runtime's own cost;
   `registry` = the real `railbird consume` with every registered detector;
3. latency at paced rates (`--rates`, default 1,000 and 200 msg/s; `--abusive-every` N: every Nth
   message abusive, each from a fresh player) with a settled group, each run on a new embedded
   broker (`bench._e2e_rig.fresh_broker`: tansu's fetches slow down as its in-memory topics grow,
   so the throughput runs' backlog must not be in it):
   produce -> finding acknowledged by the double, per mode; and, unless `--no-real-api`,
   produce -> enforcement event on `enforcement.events` through the real `railbird api` and its
   outbox relay (`bench.e2e_enforcement`: SQLite and/or PostgreSQL, the chosen mix and a heavier one).
Writes bench/results/e2e.json.

    .venv/bin/python -m bench.e2e_throughput [--messages 30000] [--runs 3] [--processes 2]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench._e2e_rig import (
    PLAYERS,
    Ends,
    bare_consume,
    bench_gc_off,
    chat_value,
    cpu_seconds,
    fresh_broker,
    pace,
    produce_chat,
    scrape,
    start_group,
    stop_group,
    warm_up,
)
from bench._rdkafka_producer import game_server_linger_ms, paced_producer
from consumers.broker import EmbeddedBroker, free_port
from consumers.runtime import internal_topics, lane_topics
from consumers.topics import ensure_topics
from pipeline.contracts import CHAT, ENFORCEMENT
from railbird.settings import Settings
from railbird.wiring import make_detector_factory
from tests.consumers.review_api_double import IngestStore, serve_review_api

RESULTS = Path(__file__).resolve().parent / "results" / "e2e.json"
WARMUP_S = 4.0
"""Latency phases: benign traffic at the same rate before measuring (see `bench._e2e_rig.warm_up`)."""


class Traffic:
    """The chat topic as this bench filled it: next event number and the partitions' ends."""

    def __init__(self, client: str = "kafka-python", codec: str = "none", linger_ms: int | None = None) -> None:
        self.next_id = 0
        self.ends: Ends = {}
        self.client, self.codec = client, codec
        """Who produces the chat (`--client`, `--codec`): the throughput runs' and, with the same
        client, the paced latency phases' (`bench._rdkafka_producer.paced_producer`)."""
        self.linger_ms = game_server_linger_ms(client) if linger_ms is None else linger_ms
        """The paced latency producer's linger (`--linger-ms`; by default the client's documented one)."""

    def take(self, n: int) -> int:
        """Reserve n event numbers; the first."""
        first, self.next_id = self.next_id, self.next_id + n
        return first


def runtime_rate(bootstrap: str, api_url: str, traffic: Traffic, n: int, prefix: str, processes: int,
                 logdir: Path, detectors: str, mode: str, broker_pid: int) -> dict[str, float]:
    """Msgs/s of a settled group over n messages produced after it settled, from its first record
    until every lane is drained; the producer's own rate; CPU seconds per message of the consumer
    processes, the broker and this process (producer + ingestion double), which unlike the rates
    do not depend on what else the machine runs."""
    ports, procs = start_group(processes, bootstrap, api_url, prefix, logdir, traffic.ends, mode=mode,
                               detectors=detectors)
    pids = [p.pid for p in procs]
    cpu0 = (cpu_seconds(pids), cpu_seconds([broker_pid]), time.process_time())
    try:  # the processes are stopped however this ends
        produced: dict[str, float] = {}

        def produce() -> None:
            produced["rate"] = produce_chat(bootstrap, traffic.take(n), n, traffic.ends, client=traffic.client,
                                            codec=traffic.codec)

        # The producer runs beside the watch loop, as game servers would.
        thread = threading.Thread(target=produce, daemon=True)
        thread.start()
        t0 = None
        input_done = None
        before_first = time.perf_counter()  # the last scrape that saw no record yet
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            chat_in, pending = scrape(ports)
            now = time.perf_counter()
            if t0 is None and chat_in == 0:
                before_first = now
            if t0 is None and chat_in > 0:
                t0 = now
            if input_done is None and chat_in >= n:
                input_done = now
            if chat_in >= n and all(v <= 0 for v in pending.values()):
                assert t0 is not None and input_done is not None
                if input_done <= t0:
                    # A run small enough to land within one scrape interval: its duration is
                    # bounded by the scrape before the first record, not measurable below it.
                    t0 = before_first
                thread.join(60)
                cpu = (cpu_seconds(pids) - cpu0[0], cpu_seconds([broker_pid]) - cpu0[1], time.process_time() - cpu0[2])
                return {"e2e_msgs_per_s": n / (now - t0), "input_stage_msgs_per_s": n / (input_done - t0),
                        "producer_msgs_per_s": produced.get("rate", float("nan")),
                        "consumer_cpu_us_per_msg": 1e6 * cpu[0] / n, "broker_cpu_us_per_msg": 1e6 * cpu[1] / n,
                        "bench_process_cpu_us_per_msg": 1e6 * cpu[2] / n}
            time.sleep(0.05)
        raise RuntimeError("runtime did not drain the messages in 600 s")
    finally:
        stop_group(procs)


def latency_run(bootstrap: str, store: IngestStore, api_url: str, traffic: Traffic, prefix: str, rate: int,
                seconds: float, logdir: Path, detectors: str, mode: str, processes: int,
                abusive_every: int) -> dict[str, float]:
    """p50/p99 produce -> finding written at a paced `rate`, with a settled group."""
    _, procs = start_group(processes, bootstrap, api_url, prefix, logdir, traffic.ends, mode=mode,
                           detectors=detectors, max_poll=200)
    producer = paced_producer(bootstrap, traffic.client, traffic.codec, traffic.linger_ms)
    try:
        warm_up(producer, traffic.take, rate, WARMUP_S, traffic.ends)
        sent: dict[str, float] = {}
        base = traffic.take(int(rate * seconds))

        def send(k: int) -> None:
            i = base + k
            abusive = k % abusive_every == 0
            player = f"lat{i}" if abusive else None
            value = chat_value(i, player=player, text="kys" if abusive else None, ts=datetime.now(UTC))
            if abusive:
                sent[f"b{i}"] = time.time()
            producer.send((player or f"p{i % PLAYERS}").encode(), value)

        with bench_gc_off():
            achieved = pace(rate, seconds, send)
            producer.finish(traffic.ends)
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


def measure_mode(mode: str, args: argparse.Namespace, bootstrap: str, url: str, store: IngestStore,
                 logdir: Path, traffic: Traffic, broker_pid: int) -> dict[str, Any]:
    """Throughput and latency runs of one mode; its summary."""
    runtime: list[dict[str, float]] = []
    single: list[dict[str, float]] = []
    for run in range(args.runs):
        runtime.append(runtime_rate(bootstrap, url, traffic, args.messages, f"{mode}-rt-{run}", args.processes,
                                    logdir, args.detectors, mode, broker_pid))
        print(f"{mode} run {run}: {args.processes} processes {runtime[-1]['e2e_msgs_per_s']:,.0f} msg/s "
              f"(input stage {runtime[-1]['input_stage_msgs_per_s']:,.0f}; producer "
              f"{runtime[-1]['producer_msgs_per_s']:,.0f}); CPU us/msg consumers "
              f"{runtime[-1]['consumer_cpu_us_per_msg']:.0f}, broker {runtime[-1]['broker_cpu_us_per_msg']:.0f}, "
              f"bench {runtime[-1]['bench_process_cpu_us_per_msg']:.0f}", flush=True)
        if args.processes > 1 and not args.no_single:
            single.append(runtime_rate(bootstrap, url, traffic, args.messages, f"{mode}-rt1-{run}", 1, logdir,
                                       args.detectors, mode, broker_pid))
            print(f"{mode} run {run}: 1 process {single[-1]['e2e_msgs_per_s']:,.0f} msg/s; CPU us/msg "
                  f"{single[-1]['consumer_cpu_us_per_msg']:.0f}", flush=True)
    latency: dict[str, list[dict[str, float]]] = {}
    for rate in args.rates:
        for run in range(args.latency_runs):
            try:
                with fresh_broker(logdir, args.partitions, traffic.ends) as fresh:
                    result = latency_run(fresh, store, url, traffic, f"{mode}-lat{rate}-{run}", rate, args.seconds,
                                         logdir, args.detectors, mode, args.processes, args.abusive_every)
            except RuntimeError as exc:  # recorded, not fatal: the throughput figures still count
                print(f"{mode} latency at {rate}/s failed: {exc}", flush=True)
                continue
            latency.setdefault(str(rate), []).append(result)
            print(f"{mode} latency at {rate}/s run {run}: p50 {result['p50_ms']:.1f} ms, "
                  f"p99 {result['p99_ms']:.1f} ms (achieved {result['achieved_rate_msgs_per_s']:.0f} msg/s)",
                  flush=True)
    summary: dict[str, Any] = {
        "runtime_e2e_msgs_per_s_median": round(statistics.median(r["e2e_msgs_per_s"] for r in runtime)),
        "consumer_cpu_us_per_msg_median": round(statistics.median(r["consumer_cpu_us_per_msg"] for r in runtime), 1),
        "broker_cpu_us_per_msg_median": round(statistics.median(r["broker_cpu_us_per_msg"] for r in runtime), 1),
        "runtime_input_stage_msgs_per_s_median": round(statistics.median(r["input_stage_msgs_per_s"] for r in runtime)),
        "latency_ms_by_rate": {rate: medians(runs) for rate, runs in latency.items()},
        "runs": {"runtime": runtime, "runtime_1_process": single, "latency": latency},
    }
    if single:
        summary["runtime_1_process_e2e_msgs_per_s_median"] = round(
            statistics.median(r["e2e_msgs_per_s"] for r in single))
    return summary


def medians(runs: list[dict[str, float]]) -> dict[str, float]:
    """Median p50 and p99 over runs."""
    return {
        "p50": round(statistics.median(r["p50_ms"] for r in runs), 1),
        "p99": round(statistics.median(r["p99_ms"] for r in runs), 1),
    }


def parse_args() -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=30_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--latency-runs", type=int, default=1)
    parser.add_argument("--processes", type=int, default=2, help="consumer processes in the group (2 cores)")
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--rates", type=lambda v: [int(x) for x in v.split(",")], default=[1000, 200],
                        help="paced rates of the latency phases (msg/s): the target's and one below capacity")
    parser.add_argument("--seconds", type=float, default=40.0,
                        help="each latency phase; 40 s at 1,000/s and 1%% abusive = 400 events, so the p99 is not the 2nd-slowest")
    parser.add_argument("--modes", default="doubles,registry", help="comma-separated: doubles, registry")
    parser.add_argument("--detectors", default="", help="RAILBIRD_CONSUMER_DETECTORS in registry mode (default: all)")
    parser.add_argument("--abusive-every", type=int, default=100,
                        help="latency phases: every Nth message is abusive from a fresh player (100 = 1%%, "
                             "the chosen mix: docs/operations.md)")
    parser.add_argument("--heavy-abusive-every", type=int, default=10,
                        help="enforcement phase: also run this heavier mix (10 = 10%%; 0 = skip)")
    parser.add_argument("--databases", default="sqlite,postgresql",
                        help="enforcement phase: the review API's databases (sqlite, postgresql)")
    parser.add_argument("--api-workers", type=lambda v: [int(x) for x in v.split(",")], default=[1, 2],
                        help="enforcement phase on PostgreSQL: API worker counts to run (comma-separated)")
    parser.add_argument("--no-single", action="store_true", help="skip the 1-process throughput runs")
    parser.add_argument("--no-real-api", action="store_true", help="skip produce -> enforcement event via `railbird api`")
    parser.add_argument("--client", choices=["kafka-python", "librdkafka"], default="kafka-python",
                        help="the game servers' producer, in the throughput runs and the paced latency phases")
    parser.add_argument("--codec", choices=["none", "gzip", "snappy", "lz4", "zstd"], default="none",
                        help="the game servers' compression.type in the throughput runs (and the librdkafka "
                             "latency producer's; the kafka-python latency producer stays uncompressed)")
    parser.add_argument("--linger-ms", type=int, default=None,
                        help="the paced latency producer's linger (default: the client's in docs/game-servers.md, "
                             "5 ms for kafka-python, 40 for librdkafka, which sends one partition per request)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results file (default bench/results/e2e.json)")
    return parser.parse_args()


def main() -> None:
    """Run the phases and print/write the medians."""
    from bench.e2e_enforcement import measure_enforcement  # imports the rig only

    args = parse_args()
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
    traffic = Traffic(args.client, args.codec, args.linger_ms)
    with EmbeddedBroker(port=free_port(), log_path=logdir / "broker.log") as broker, serve_review_api(store) as url:
        ensure_topics(broker.bootstrap, partitions=args.partitions,
                      topics=[*topics, *internal_topics(topics), ENFORCEMENT])
        produce_chat(broker.bootstrap, traffic.take(args.messages), args.messages, traffic.ends,
                     client=traffic.client, codec=traffic.codec)
        bare = [bare_consume(broker.bootstrap, args.messages, f"bench-bare-{run}") for run in range(args.runs)]
        print(f"bare kafka-python loop: {statistics.median(bare):,.0f} msg/s", flush=True)
        for mode in [m for m in args.modes.split(",") if m]:
            assert broker.process is not None
            modes[mode] = measure_mode(mode, args, broker.bootstrap, url, store, logdir, traffic, broker.process.pid)
        enforcement = {} if args.no_real_api else measure_enforcement(args, logdir, traffic)
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
        "producer_client": args.client,
        "producer_codec": args.codec,
        "latency_producer_client": args.client,
        "latency_producer_linger_ms": traffic.linger_ms,
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
        "enforcement_latency": enforcement,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    brief = {m: {k: v for k, v in r.items() if k != "runs"} for m, r in modes.items()}
    enf = {k: v for k, v in enforcement.items() if k != "runs"}
    skip = ("modes", "registry_detectors", "bare_runs", "enforcement_latency")
    print(json.dumps({**{k: v for k, v in result.items() if k not in skip}, "modes": brief,
                      "enforcement_latency": enf}, indent=2))


if __name__ == "__main__":
    main()
