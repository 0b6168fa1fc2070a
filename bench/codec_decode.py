"""What a game server's codec costs Railbird's consumer: librdkafka (confluent-kafka) produces the
same chat records in each Kafka codec, idempotent, 8 partitions of the embedded broker (tansu);
a bare kafka-python poll loop configured like the lanes (read_committed, checksums on) reads them
all and the CPU it took is timed. The records are the bench's chat JSON (~190 bytes, 300 players).
Usage: python -m bench.codec_decode [--records 100000] [--runs 2]
"""

from __future__ import annotations

import argparse
import json
import time

from confluent_kafka import Producer
from kafka import KafkaConsumer, TopicPartition

from consumers.broker import EmbeddedBroker, free_port
from consumers.ports import ISOLATION_LEVEL
from consumers.topics import ensure_topics
from tests.samples import chat_value

CODECS = ("none", "gzip", "snappy", "lz4", "zstd")
PARTITIONS = 8


def records(n: int) -> list[tuple[bytes, bytes]]:
    out = []
    for i in range(n):
        v = chat_value(event_id=f"e{i}", player_id=f"p{i % 300}", table_id=f"t{i % 40}", text=f"nice hand {i % 97} gl")
        out.append((v["player_id"].encode(), json.dumps(v).encode()))
    return out


def produce(bootstrap: str, topic: str, codec: str, data: list[tuple[bytes, bytes]]) -> None:
    p = Producer({"bootstrap.servers": bootstrap, "compression.type": codec, "enable.idempotence": True,
                  "linger.ms": 5, "log_level": 3})
    for key, value in data:
        while True:
            try:
                p.produce(topic, key=key, value=value)
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)
    assert p.flush(60) == 0


def consume(bootstrap: str, topic: str, expect: int) -> tuple[float, float]:
    """(CPU seconds, wall seconds) to read `expect` records."""
    c = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False,
                      isolation_level=ISOLATION_LEVEL, fetch_max_wait_ms=20, max_poll_records=500)
    parts = [TopicPartition(topic, p) for p in range(PARTITIONS)]
    c.assign(parts)
    c.seek_to_beginning(*parts)
    got, cpu0, wall0 = 0, time.process_time(), time.monotonic()
    while got < expect and time.monotonic() - wall0 < 120:
        got += sum(len(v) for v in c.poll(200).values())
    cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
    c.close()
    assert got >= expect, f"read {got} of {expect}"
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    data = records(args.records)
    with EmbeddedBroker(port=free_port()) as broker:
        for run in range(args.runs):
            order = CODECS if run % 2 == 0 else tuple(reversed(CODECS))
            for codec in order:
                topic = f"bench.{codec}.{run}"
                ensure_topics(broker.bootstrap, partitions=PARTITIONS, topics=[topic])
                produce(broker.bootstrap, topic, codec, data)
                cpu, wall = consume(broker.bootstrap, topic, len(data))
                print(json.dumps({"run": run, "codec": codec, "records": len(data), "cpu_s": round(cpu, 2),
                                  "us_per_record": round(cpu / len(data) * 1e6, 1),
                                  "records_per_s": round(len(data) / wall)}), flush=True)


if __name__ == "__main__":
    main()
