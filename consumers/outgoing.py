"""What a lane produces besides dead letters: re-keyed routes (bundled per partition) and the
processor's changelog records, sent without waiting and awaited before the batch is committed."""

from __future__ import annotations

from kafka.errors import KafkaError

from consumers.bundle import BUNDLE_HEADER, MARKS_HEADER, SOURCE_TOPIC_HEADER, bundles, encode_marks, pack
from consumers.ports import Message, ProducerPort, SendFuture
from consumers.processing import Route
from consumers.retry import TransientError


def bundle_routes(producer: ProducerPort, routes: list[Route]) -> list[Message]:
    """One bundle record per re-key partition (see `consumers.bundle`): every partition of each
    re-key topic the batch routes to gets one, empty where no route goes, all carrying the
    batch's progress marks (newest event time per input partition)."""
    if not routes:
        return []
    sizes = {t: len(producer.partitions_for(t)) for t in {r.topic for r in routes}}
    grouped = bundles(((r.topic, r.key, r.detectors, r.source, r.value) for r in routes), sizes)
    newest: dict[str, dict[str, int]] = {}
    for r in routes:
        source = r.source.decode().rpartition("/")[0]
        marks = newest.setdefault(r.topic, {})
        if r.ts_ms > marks.get(source, -1):
            marks[source] = r.ts_ms
    input_topic = {r.topic: r.input_topic.encode() for r in routes}
    headers = {
        topic: [(BUNDLE_HEADER, b"1"), (SOURCE_TOPIC_HEADER, input_topic[topic]), (MARKS_HEADER, encode_marks(marks))]
        for topic, marks in newest.items()
    }
    return [
        (topic, None, pack(grouped.get((topic, partition), [])), headers[topic], partition)
        for topic, n in sizes.items() for partition in range(n)
    ]


def send(producer: ProducerPort, message: Message) -> SendFuture:
    """Hand one record to the producer."""
    topic, key, value, headers, partition = message
    return producer.send(topic, value=value, key=key, headers=headers or None, partition=partition)


def start_sends(producer: ProducerPort, messages: list[Message]) -> list[SendFuture] | KafkaError:
    """Hand the messages to the producer without waiting; the error if one send already failed."""
    try:
        return [send(producer, m) for m in messages]
    except KafkaError as exc:
        return exc


def await_sends(producer: ProducerPort, futures: list[SendFuture], timeout_s: float) -> None:
    """Wait until the broker acknowledged every one; the first failure raises its `KafkaError`."""
    producer.flush(timeout=timeout_s)
    for f in futures:
        f.get(timeout=timeout_s)


def send_all(producer: ProducerPort, messages: list[Message], timeout_s: float) -> None:
    """Send and wait for every ack; any failure is transient and re-sends all (stage 2 drops
    duplicate routes, a changelog record is its key's whole state, a dead letter names its offset)."""
    try:
        await_sends(producer, [send(producer, m) for m in messages], timeout_s)
    except KafkaError as exc:
        raise TransientError(f"produce failed: {type(exc).__name__}: {exc}", kind="produce") from exc
