"""Thin sinks for the room's events: JSON lines (the replay format) or Kafka; and pacing."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import IO, Any, Protocol

from pipeline.contracts import CHAT, SNAPCAM, ChatMessage, Event, SeatActivity, SnapCamReport
from simulator.truth import TruthRow


class Sink(Protocol):
    """Where events go."""

    def write(self, topic: str, event: Event) -> None:
        """Send one event."""
        ...

    def close(self) -> None:
        """Flush and release."""
        ...


def envelope_text(topic: str, event: Event) -> str:
    """One replay line, identical to `pipeline.replay.envelope_line(topic, event.model_dump(mode="json"))`
    but built from pydantic's JSON directly, which is several times faster."""
    return f'{{"topic":"{topic}","value":{event.model_dump_json()}}}'


def kafka_key(topic: str, event: Event) -> bytes:
    """Partition key: chat by sender, SnapCam by the reported player, seat and hand by table."""
    if topic == CHAT and isinstance(event, ChatMessage):
        return event.player_id.encode()
    if topic == SNAPCAM and isinstance(event, SnapCamReport):
        return event.reported_id.encode()
    if isinstance(event, SeatActivity):
        return event.table_id.encode()
    return str(getattr(event, "table_id", event.event_id)).encode()


class JsonlSink:
    """Writes `{"topic", "value"}` lines to a text stream."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def write(self, topic: str, event: Event) -> None:
        """Append one line."""
        self.stream.write(envelope_text(topic, event) + "\n")

    def close(self) -> None:
        """Flush the stream (the caller owns and closes it)."""
        self.stream.flush()


class KafkaSink:
    """Produces each event to its topic with the partition key of `kafka_key`."""

    def __init__(self, producer: Any, *, topic_prefix: str = "") -> None:
        self.producer = producer
        self.topic_prefix = topic_prefix

    def write(self, topic: str, event: Event) -> None:
        """Send asynchronously; `close` waits for every send."""
        self.producer.send(self.topic_prefix + topic, key=kafka_key(topic, event), value=event.model_dump_json().encode())

    def close(self) -> None:
        """Flush and close the producer."""
        self.producer.flush()
        self.producer.close()


def kafka_sink(bootstrap: str, *, topic_prefix: str = "") -> KafkaSink:
    """A Kafka sink on a kafka-python producer (imported only when used)."""
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=5, acks=1, retries=5)
    return KafkaSink(producer, topic_prefix=topic_prefix)


def paced(
    events: Iterable[tuple[str, Event]], *, rate: float, max_seconds: float | None,
    clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
    wall: Callable[[], datetime] | None = None,
) -> Iterator[tuple[str, Event]]:
    """Events at most `rate` per second (0 = as fast as possible), stopping after `max_seconds`.

    `wall` (live pacing): no event is sent before the wall clock reaches its own timestamp. A room
    that starts in the past streams its history at `rate` until it catches up with the clock, then
    runs at the speed of the clock, so nothing a game server or reviewer sees is dated ahead of now
    (sanction windows, case ages and SLA colours all read the real time)."""
    began = clock()
    for n, item in enumerate(events):
        now = clock()
        due = began + n / rate if rate > 0 else now
        if wall is not None:
            due = max(due, now + (item[1].ts - wall()).total_seconds())
        if max_seconds is not None and max(now, due) - began >= max_seconds:
            return
        if due > now:
            sleep(due - now)
        yield item


def write_truth(rows: Iterable[TruthRow], stream: IO[str]) -> int:
    """Ground-truth JSON lines; returns how many."""
    count = 0
    for row in rows:
        stream.write(json.dumps(row.to_json(), ensure_ascii=False) + "\n")
        count += 1
    return count


def read_truth(lines: Iterable[str]) -> list[TruthRow]:
    """Parse ground-truth JSON lines."""
    return [TruthRow.from_json(json.loads(line)) for line in lines if line.strip()]
