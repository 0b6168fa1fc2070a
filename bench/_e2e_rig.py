"""The end-to-end benches' rig: chat traffic, consumer processes, their metrics, and the group's
starting offsets (shared by `bench.e2e_throughput` and `bench.e2e_enforcement`).

Why every measured group starts at the topic's end: a group that joins with records waiting starts
consuming as soon as its first member has joined, and on tansu the second member's join (about
half the session timeout) then revokes everything and moves re-key partitions, whose new owner
replays them. A measurement that includes that start-up measures a rebalance, not sustained
throughput. So the bench commits the group's offsets at the end of the topic before the
processes start (a group-less commit: no member joins), waits until every process is ready and
the group has settled, and only then produces the traffic it measures.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.structs import OffsetAndMetadata

from bench._rdkafka_producer import PacedProducer, produce_librdkafka
from consumers.broker import EmbeddedBroker, free_port
from consumers.runtime import group_of
from consumers.topics import ensure_topics
from pipeline.contracts import CHAT, ENFORCEMENT
from tests.consumers.review_api_double import TOKEN

ROOT = Path(__file__).resolve().parent.parent
T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
BENIGN = ["nice hand", "gl all", "ty", "wow what a river", "who deals this", "gg wp", "lol", "brb coffee",
          "nh", "ship it", "lag again?", "unlucky", "well played", "sick call", "back in 5", "what a cooler"]
PLAYERS = 3000
"""Bench chat: 3,000 players at 300 tables; player k writes message i when i % 3000 == k."""
ABUSIVE = ["kys", "fuck you donkey", "you are a retard"]
SAMPLE = re.compile(
    r'^railbird_events_(in|out)_total\{(?:kind="(\w+)",)?topic="([^"]+)"(?:,kind="(\w+)")?\} (\S+)$'
)
SETTLE_S = 8.0
"""After the last process is ready: tansu completes a join in about half the 6 s session timeout."""

Ends = dict[int, int]
"""Next offset per partition of chat.messages, from the produce acknowledgements (tansu's
ListOffsets answers are wrong after multi-record batches, so they are not asked)."""


def benign_line(i: int) -> str:
    """Message i's table talk. Each player's lines rotate through BENIGN (one step per round of all
    3,000 players), so a line comes back every 16th message of a player: at 1,000 msg/s that is
    every 48 s, twice a minute at most, below the flooding rule's 5 repeats in 60 s. (Until
    2026-11-29, `BENIGN[i % 8]` gave every player one fixed line, every 3 s: the bench's benign
    traffic was itself a flood, ~57 `chat.flooding` findings/s and a case per player at 1,000/s.)"""
    return BENIGN[(i + i // PLAYERS) % len(BENIGN)]


def chat_value(
    i: int,
    *,
    player: str | None = None,
    abusive: bool = False,
    ts: datetime | None = None,
    text: str | None = None,
) -> bytes:
    """One chat message as JSON bytes; 3,000 players at 300 tables."""
    text = text or (ABUSIVE[i % len(ABUSIVE)] if abusive else benign_line(i))
    value = {
        "event_id": f"b{i}",
        "ts": (ts or T0 + timedelta(milliseconds=i)).isoformat(),
        "channel": "table",
        "player_id": player or f"p{i % PLAYERS}",
        "nickname": f"nick{i % PLAYERS}",
        "text": text,
        "client": "desktop",
        "table_id": f"t{i % 300}",
    }
    return json.dumps(value).encode()


def produce_chat(bootstrap: str, start: int, n: int, ends: Ends, *, client: str = "kafka-python",
                 codec: str = "none") -> float:
    """N chat messages (ids from `start`) keyed by player (the game servers' key), 5% abusive, as
    fast as one producer goes; updates `ends`; returns the producer's msgs/s. `client`
    "librdkafka" produces through confluent-kafka (idempotent, `codec`) as most game servers do."""
    values = [(f"p{i % PLAYERS}".encode(), chat_value(i, abusive=i % 20 == 0)) for i in range(start, start + n)]
    if client == "librdkafka":
        return produce_librdkafka(bootstrap, values, ends, codec)
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=20, batch_size=256 * 1024,
                             compression_type=None if codec == "none" else codec)
    began = time.perf_counter()
    futures = [producer.send(CHAT, key=key, value=value) for key, value in values]
    producer.flush(120)
    rate = n / (time.perf_counter() - began)
    producer.close()
    track(ends, futures)
    return rate


def track(ends: Ends, futures: list[Any]) -> None:
    """Fold produce acknowledgements (kafka-python futures) into `ends`."""
    for future in futures:
        meta = future.get(timeout=30)
        ends[meta.partition] = max(ends.get(meta.partition, 0), meta.offset + 1)


def skip_to_end(bootstrap: str, prefix: str, ends: Ends) -> None:
    """Commit the input group's offsets at `ends` without joining it: its members start there."""
    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap, group_id=group_of(prefix, CHAT), enable_auto_commit=False
    )
    try:
        consumer.commit({TopicPartition(CHAT, p): OffsetAndMetadata(o, "", -1) for p, o in ends.items()})
    finally:
        consumer.close()


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


def start_runtime(
    bootstrap: str,
    api_url: str,
    prefix: str,
    port: int,
    log: Path,
    *,
    mode: str,
    detectors: str = "",
    max_poll: int = 1000,
    lookback_s: int = 13 * 3600,
) -> subprocess.Popen[bytes]:
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
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def start_group(
    n: int,
    bootstrap: str,
    api_url: str,
    prefix: str,
    logdir: Path,
    ends: Ends,
    *,
    mode: str,
    detectors: str,
    max_poll: int = 1000,
) -> tuple[list[int], list[subprocess.Popen[bytes]]]:
    """n consumer processes in one new group that starts at `ends`, ready and settled."""
    skip_to_end(bootstrap, prefix, ends)
    ports = [free_port() for _ in range(n)]
    procs = [
        # Short lookback: the group starts at the end, there is nothing of its own to replay.
        start_runtime(
            bootstrap,
            api_url,
            prefix,
            port,
            logdir / f"{prefix}-{time.time_ns()}-{i}.log",
            mode=mode,
            detectors=detectors,
            max_poll=max_poll,
            lookback_s=30,
        )
        for i, port in enumerate(ports)
    ]
    try:
        for port in ports:
            _wait_ready(port)
    except RuntimeError:
        stop_group(procs)
        raise
    time.sleep(SETTLE_S)
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
            direction, kind, topic, value = (
                m.group(1),
                m.group(2) or m.group(4),
                m.group(3),
                float(m.group(5)),
            )
            if direction == "in" and topic == CHAT:
                chat_in += value
            elif direction == "in":
                pending[topic] = pending.get(topic, 0.0) - value
            elif kind == "rekey":
                pending[topic] = pending.get(topic, 0.0) + value
    return chat_in, pending


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


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds the processes used so far (Linux /proc; 0 for a vanished one)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime (fields 14 and 15)
    return total


def warm_up(
    producer: PacedProducer, traffic_take: Callable[[int], int], rate: int, seconds: float, ends: Ends
) -> None:
    """Benign chat at `rate` for `seconds` before a latency measurement: 3,000 players at 1,000 msg/s
    need 3 s to have spoken once, and a fresh group meets every nickname for the first time (the
    nickname detector classifies it then), which is start-up, not the steady state being measured."""
    base = traffic_take(int(rate * seconds))

    def send(k: int) -> None:
        i = base + k
        producer.send(f"p{i % PLAYERS}".encode(), chat_value(i, ts=datetime.now(UTC)))

    pace(rate, seconds, send)
    producer.finish(ends)
    time.sleep(1.0)


@contextlib.contextmanager
def bench_gc_off() -> Iterator[None]:
    """The bench process's own cyclic collector off while it stamps send and arrival times.

    The bench holds the generated traffic and every send/arrival stamp; with Python's default
    thresholds its full collections paused it for 100-400 ms (measured with a `gc.callbacks`
    probe during the enforcement runs), and a pause between stamping a message and sending it, or
    between a record's arrival and its stamp, was counted as Railbird's latency. The measured
    processes (consumers, API) keep their own collector as configured in production
    (`railbird.gc_tuning`)."""
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()
        gc.collect()


def pace(rate: int, seconds: float, send: Callable[[int], object]) -> float:
    """Call `send(k)` for k in range(rate * seconds) at `rate` per second; the achieved rate."""
    total = int(rate * seconds)
    start = time.perf_counter()
    for k in range(total):
        delay = start + k / rate - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        send(k)
    return total / (time.perf_counter() - start)


@contextlib.contextmanager
def fresh_broker(logdir: Path, partitions: int, ends: Ends) -> Iterator[str]:
    """A new embedded broker holding only the chat and enforcement topics, for one latency phase;
    `ends` describes its chat topic meanwhile and the main broker's again afterwards. Why a new one: tansu keeps topics in memory and
    its fetches get slower as they grow (measured on a fresh broker at 1,000 msg/s: one hop's p50
    4.8 ms and p99 14 ms; after 600,000 more records p50 21 ms and p99 52 ms), so a latency phase
    run after the throughput runs' backlog measured that backlog, growing from phase to phase.
    Apache Kafka's fetch cost does not grow with the log (offset index per segment)."""
    saved = dict(ends)  # the main broker's ends, for the phases after this one
    ends.clear()
    try:
        with EmbeddedBroker(port=free_port(), log_path=logdir / f"broker-{time.time_ns()}.log") as broker:
            ensure_topics(broker.bootstrap, partitions=partitions, topics=[CHAT, ENFORCEMENT])
            yield broker.bootstrap
    finally:
        ends.clear()
        ends.update(saved)
