"""Produce -> acknowledgement on the embedded broker, per game-server client, nothing else running.

Issue 21's enforcement latency with librdkafka producers (p99 408 ms against kafka-python's 251 ms
in the same window, 7 December) was all in the produce -> ack leg, before any Railbird code sees a
record. This bench isolates that leg: a fresh broker per run holding only `chat.messages`, one
paced producer (the latency phases' settings: acks=1, linger 5 ms, keyed by player), no consumer,
and each client's own account of what it sent:
- librdkafka: its statistics (`statistics.interval.ms`): Produce requests sent, message batches
  and their sizes, the broker round trip (`rtt`) and the time a message waited inside the client
  before its request was written (`int_latency`, `outbuf_latency`);
- kafka-python: its metrics (records per request, request latency, record queue time).
The producers are the e2e bench's paced game servers (`bench._rdkafka_producer`): the ack time of
each record is taken by the client's delivery callback (librdkafka's is served by `poll(0)` after
every record).

    python -m bench.produce_ack --runs 3 --seconds 30 --rate 1000
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import time
from pathlib import Path
from typing import Any

from kafka import KafkaConsumer

from bench._e2e_rig import PLAYERS, chat_value, pace
from bench._machine import loop_seconds
from bench._rdkafka_producer import GAME_SERVER_LINGER_MS, KafkaPythonPaced, LibrdkafkaPaced, PacedProducer
from consumers.broker import EmbeddedBroker, free_port
from consumers.topics import ensure_topics
from pipeline.contracts import CHAT

OUT = Path(__file__).resolve().parent / "results" / "produce_ack.json"


def _quantiles(values: list[float]) -> dict[str, float]:
    values = sorted(values)
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50_ms": round(1000 * statistics.median(values), 2),
        "p99_ms": round(1000 * values[min(len(values) - 1, int(0.99 * len(values)))], 2),
        "max_ms": round(1000 * values[-1], 2),
    }


def _window_ms(stats: list[dict[str, Any]], field: str, quantile: str) -> float | None:
    """The median over the statistics windows of the leader broker's `field[quantile]` (us -> ms)."""
    values = []
    for snapshot in stats:
        for name, broker in snapshot.get("brokers", {}).items():
            if "bootstrap" in name or broker.get(field, {}).get("cnt", 0) == 0:
                continue
            values.append(broker[field][quantile] / 1000)
    return round(statistics.median(values), 2) if values else None


def _batches(stats: list[dict[str, Any]]) -> int:
    """Message batches (one per partition per request) over the statistics windows."""
    return sum(int(s.get("topics", {}).get(CHAT, {}).get("batchcnt", {}).get("cnt", 0)) for s in stats)


def _paced(producer: PacedProducer, rate: int, seconds: float) -> tuple[float, dict[bytes, float]]:
    """Keyed chat at `rate` for `seconds` through a game server's paced producer, every record
    acknowledged (`finish`); the achieved rate and when each key was sent (epoch s, as `acked`)."""
    sent: dict[bytes, float] = {}

    def send(k: int) -> None:
        key = f"k{k}".encode()
        sent[key] = time.time()
        producer.send(key, chat_value(k, player=f"p{k % PLAYERS}"))

    achieved = pace(rate, seconds, send)
    producer.finish({})
    return achieved, sent


def _acks(sent: dict[bytes, float], acked: dict[bytes, float]) -> dict[str, Any]:
    return {"ack": _quantiles([acked[k] - t for k, t in sent.items() if k in acked]),
            "unacked": sum(k not in acked for k in sent)}


def run_librdkafka(bootstrap: str, rate: int, seconds: float, codec: str, extra: dict[str, Any]) -> dict[str, Any]:
    stats: list[dict[str, Any]] = []
    producer = LibrdkafkaPaced(bootstrap, GAME_SERVER_LINGER_MS, codec, **{
        "statistics.interval.ms": 1000, "stats_cb": lambda text: stats.append(json.loads(text)), **extra})
    achieved, sent = _paced(producer, rate, seconds)
    time.sleep(1.2)
    producer.producer.poll(0)  # one more statistics window, after the flush
    producer.close()
    last = stats[-1] if stats else {}
    brokers = [b for n, b in last.get("brokers", {}).items() if "bootstrap" not in n]
    produce_requests = sum(b.get("req", {}).get("Produce", 0) for b in brokers)
    return {
        "client": "librdkafka",
        "achieved_rate": round(achieved, 1),
        **_acks(sent, producer.acked),
        "produce_requests": produce_requests,
        "records_per_request": round(len(sent) / produce_requests, 2) if produce_requests else None,
        "records_per_batch": round(len(sent) / batches, 2) if (batches := _batches(stats)) else None,
        "rtt_p50_ms_median_window": _window_ms(stats, "rtt", "p50"),
        "rtt_p99_ms_median_window": _window_ms(stats, "rtt", "p99"),
        "rtt_max_ms_median_window": _window_ms(stats, "rtt", "max"),
        "int_latency_p99_ms_median_window": _window_ms(stats, "int_latency", "p99"),
        "outbuf_latency_p99_ms_median_window": _window_ms(stats, "outbuf_latency", "p99"),
    }


def run_kafka_python(bootstrap: str, rate: int, seconds: float) -> dict[str, Any]:
    producer = KafkaPythonPaced(bootstrap, GAME_SERVER_LINGER_MS)
    achieved, sent = _paced(producer, rate, seconds)
    metrics = producer.producer.metrics()["producer-metrics"]
    producer.close()
    per_request = metrics.get("records-per-request-avg") or 0.0
    return {
        "client": "kafka-python",
        "achieved_rate": round(achieved, 1),
        **_acks(sent, producer.acked),
        "produce_requests_estimate": round(len(sent) / per_request) if per_request else None,
        "records_per_request": round(per_request, 2),
        "request_latency_max_ms_last_window": round(metrics.get("request-latency-max", 0.0), 2),
        "record_queue_time_max_ms_last_window": round(1000 * metrics.get("record-queue-time-max", 0.0), 2),
    }


def _fetch_loop(bootstrap: str, group: str, wait_ms: int) -> None:
    """A consumer-group member reading the topic as Railbird's lanes do (own process)."""
    consumer = KafkaConsumer(CHAT, bootstrap_servers=bootstrap, group_id=group, fetch_max_wait_ms=wait_ms,
                             auto_offset_reset="earliest", enable_auto_commit=False)
    while True:
        for _ in consumer.poll(200).values():
            pass


def one_run(client: str, rate: int, seconds: float, partitions: int, codec: str,
            extra: dict[str, Any], fetchers: int) -> dict[str, Any]:
    with EmbeddedBroker(port=free_port()) as broker:
        ensure_topics(broker.bootstrap, partitions=partitions, topics=[CHAT])
        readers = [multiprocessing.Process(target=_fetch_loop, args=(broker.bootstrap, "readers", 20), daemon=True)
                   for _ in range(fetchers)]
        for reader in readers:
            reader.start()
        if readers:
            time.sleep(5)  # the group's first rebalance, before the measured window
        try:
            result = (run_librdkafka(broker.bootstrap, rate, seconds, codec, extra) if client == "librdkafka"
                      else run_kafka_python(broker.bootstrap, rate, seconds))
        finally:
            for reader in readers:
                reader.kill()
                reader.join(5)
        result["fetchers"] = fetchers
        return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--rate", type=int, default=1000)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--codec", default="lz4", help="librdkafka's compression.type (kafka-python sends none)")
    parser.add_argument("--rdkafka", action="append", default=[], metavar="KEY=VALUE",
                        help="an extra librdkafka setting for its runs (repeatable)")
    parser.add_argument("--fetchers", type=int, default=0,
                        help="consumer-group members (own processes) reading the topic meanwhile")
    parser.add_argument("--clients", default="kafka-python,librdkafka")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    extra = dict(item.split("=", 1) for item in args.rdkafka)
    loop_before = loop_seconds()
    runs: list[dict[str, Any]] = []
    for i in range(args.runs):
        for client in args.clients.split(","):  # alternated, so both see the same drift of the box
            result = one_run(client, args.rate, args.seconds, args.partitions, args.codec, extra, args.fetchers)
            result["run"] = i + 1
            runs.append(result)
            print(json.dumps(result), flush=True)
    summary: dict[str, Any] = {}
    for client in args.clients.split(","):
        mine = [r for r in runs if r["client"] == client]
        summary[client] = {
            "ack_p50_ms_median": statistics.median(r["ack"]["p50_ms"] for r in mine),
            "ack_p99_ms_median": statistics.median(r["ack"]["p99_ms"] for r in mine),
            "records_per_request_median": statistics.median(r["records_per_request"] or 0 for r in mine),
        }
    if len(summary) == 2:
        a, b = (summary[c]["ack_p99_ms_median"] for c in args.clients.split(","))
        summary["p99_ratio_second_to_first"] = round(b / a, 2) if a else None
    out = {"args": {k: str(v) for k, v in vars(args).items()}, "runs": runs, "summary": summary,
           "machine_loop_s_before_after": [loop_before, loop_seconds()]}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
