"""State kept where the record already is: detectors whose state key is the producer's own key.

Game servers key chat by its sender (docs/architecture.md, "Keying"), and most chat detectors keep
their state per sender (flooding, shouting, the offence ledger and every detector tapping it, the
repeat-offender ladder). For those, the input partition already holds every event of a key, so
re-keying would only add a produce, a second fetch and a second decode to each message: one broker
round trip on the path to an automatic mute. The input stage runs them itself, with fresh
instances per input partition, exactly as the keyed stage does per re-key partition, and rebuilds
them the same way on assignment (replaying the input partition's retained lookback).

A detector runs here for a record when it reads only that record's topic and its `key(event)` is
the record's Kafka key. Otherwise, including a record its producer keyed differently, it is
re-keyed as before: where the producer's key differs, the runtime re-keys. A producer that keys
one sender's messages inconsistently splits that sender's state in two (the records keyed by the
sender here, the others in the keyed stage): deterministic, so N processes still find what one
finds, but a flood spread over both halves counts as two smaller ones.
`RAILBIRD_CONSUMER_LOCAL_STATE=false` routes everything through the keyed stage instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Protocol

from kafka import TopicPartition

from consumers.bundle import DETECTORS_HEADER, SOURCE_TOPIC_HEADER, Entry
from consumers.ports import RecordLike
from pipeline.contracts import CHAT, SNAPCAM, Event
from pipeline.detector import Detector


class PartitionReader(Protocol):
    """Reads a partition's recent records (`consumers.processing.HistoryReader`)."""

    def read(self, tp: TopicPartition, *, lookback_s: float, until_offset: int) -> Iterable[RecordLike]: ...


KeysOf = Callable[[str, Event], list[tuple[str, str | Exception]]]
"""(topic, event) -> (detector name, its key or the error `key()` raised) for the topic's detectors."""

DecodeOf = Callable[[str, RecordLike], Event | None]
"""(topic, record) -> the event, or None when the record cannot be decoded."""


LOCAL_STATE_TOPICS = frozenset({CHAT, SNAPCAM})
"""Input topics whose producer key is also a detector's state key (chat: the sender; SnapCam: the
reported player). Seat activity and hand records are keyed by table, which no detector keeps state
by: there, local state would never be used, but every assignment would still replay the lookback."""


def local_names(detectors: Mapping[str, Detector], topic: str) -> frozenset[str]:
    """The detectors that may keep their state in `topic`'s own partitions: those reading only it,
    on a topic of `LOCAL_STATE_TOPICS`."""
    if topic not in LOCAL_STATE_TOPICS:
        return frozenset()
    return frozenset(name for name, d in detectors.items() if d.topics == frozenset({topic}))


def runs_here(name: str, key: str | Exception, event: Event, record_key: bytes | None, eligible: frozenset[str]) -> bool:
    """True when detector `name` keeps this event's state in the record's own partition."""
    return (
        name in eligible
        and record_key is not None
        and isinstance(key, str)
        and key != event.event_id
        and key.encode("utf-8") == record_key
    )


def local_entry(record: RecordLike, names: Sequence[str]) -> Entry:
    """The record as the keyed stage's processor reads a routed one: same offsets, naming the
    detectors to run and the topic the event came from."""
    headers = ((SOURCE_TOPIC_HEADER, record.topic.encode()), (DETECTORS_HEADER, ",".join(names).encode()))
    return Entry(record.topic, record.partition, record.offset, record.timestamp, record.key, record.value, headers)


class LocalHistory:
    """An input partition's retained records as local entries, for rebuilding the local state."""

    def __init__(
        self,
        reader: PartitionReader,
        *,
        eligible: Callable[[str], frozenset[str]],
        keys_of: KeysOf,
        decode: DecodeOf,
    ) -> None:
        self._reader = reader
        self._eligible = eligible
        self._keys_of = keys_of
        self._decode = decode

    def read(self, tp: TopicPartition, *, lookback_s: float, until_offset: int) -> Iterator[RecordLike]:
        """The partition's records in the lookback that have local detectors, as entries naming them."""
        eligible = self._eligible(tp.topic)
        for record in self._reader.read(tp, lookback_s=lookback_s, until_offset=until_offset):
            event = self._decode(tp.topic, record)
            if event is None:
                continue  # dead-lettered when it was first consumed
            names = [n for n, k in self._keys_of(tp.topic, event) if runs_here(n, k, event, record.key, eligible)]
            if names:
                yield local_entry(record, names)
