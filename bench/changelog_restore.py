"""Cost of restoring the chat offence ledger from its changelog (the embedded broker, tansu).

Writes `--players` ledger values (3 offences each, as `OffenceLedger.changes` encodes them) to one
partition of a changelog topic, then times `Changelog.restore` into a fresh ledger (read to the
end + decode + merge) and the read of an empty partition (what every rebuild pays when a stage has
a durable store but nothing in its changelog). Usage: python -m bench.changelog_restore --players 20000
"""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime, timedelta

from kafka import KafkaProducer, TopicPartition

from consumers.broker import EmbeddedBroker, free_port
from consumers.changelog import Changelog, changelog_key
from consumers.history import KafkaHistoryReader
from consumers.topics import changelog_topic, ensure_topics
from pipeline.detectors.chat import OffenceLedger
from pipeline.detectors.chat.offences import Offence, encode
from pipeline.findings import Span

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def value(i: int) -> bytes:
    """Player i's history: three insults on three days, with their line and one span each."""
    line = ("table", f"Nick{i}", "you are such an idiot, seriously", (Span(start=16, end=21, label="insult"),))
    return encode([
        (T0 + timedelta(days=d), Offence(f"e{i}-{d}", "insult", f"fnd_{i:020d}{d}", "chat.banned_words", line, 1000 + d))
        for d in range(3)
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=20_000)
    args = parser.parse_args()
    topic = changelog_topic("chat.messages")
    with EmbeddedBroker(port=free_port()) as broker:
        ensure_topics(broker.bootstrap, partitions=2, topics=[topic])
        producer = KafkaProducer(bootstrap_servers=broker.bootstrap, acks="all", linger_ms=5)
        size = 0
        for i in range(args.players):
            raw = value(i)
            size += len(raw)
            producer.send(topic, key=changelog_key(OffenceLedger.store_name, f"p{i}"), value=raw, partition=0)
        producer.flush()
        producer.close()
        reader = KafkaHistoryReader(bootstrap=broker.bootstrap)
        started = time.perf_counter()
        assert list(reader.read_all(TopicPartition(topic, 1))) == []
        empty_s = time.perf_counter() - started
        ledger = OffenceLedger(window=timedelta(days=30))
        started = time.perf_counter()
        restored = Changelog(topic, reader).restore(0, {OffenceLedger.store_name: ledger}, before=10**9)
        restore_s = time.perf_counter() - started
    print(f"players={args.players} mean value={size / args.players:.0f} B restored={restored} "
          f"restore={restore_s:.2f} s ({restored / restore_s:,.0f} players/s) empty partition={empty_s * 1000:.0f} ms")


if __name__ == "__main__":
    main()
