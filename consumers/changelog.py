"""Changelog topics: the state that outlives the lookback replay, written and read back per partition.

A detector's `DurableState` (pipeline.detector) reports the keys it changed; after each batch the
keyed processor turns them into records of its stage's changelog topic (`consumers.topics.
changelog_topic`), in the same partition number as the state's input partition, keyed by
`<store>/<state key>` (several stores may share a topic; compaction keeps the last value per key),
the value being the key's whole state or a tombstone. The lane produces them with the batch's
routes and waits for their acknowledgement before committing (consumers/lane.py). On a rebuild the
processor reads the changelog partition to its end, restores every key's last value (without what
came from input positions at or after the committed offset), then replays the lookback as before.
See docs/operations.md, "State".
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from kafka import TopicPartition

from consumers.ports import Message, RecordLike
from pipeline.detector import Detector, DurableDetector, DurableState

log = logging.getLogger("railbird.consumer")

KEY_SEPARATOR = "/"


class ChangelogReader(Protocol):
    """Reads a whole changelog partition (`consumers.history.KafkaHistoryReader.read_all`)."""

    def read_all(self, tp: TopicPartition) -> Iterable[RecordLike]: ...


def stores_of(detectors: Mapping[str, Detector]) -> dict[str, DurableState]:
    """The durable stores of one partition's detectors by name (detectors may share one: the
    offence ledger behind every tap and the repeat-offender ladder). Two different stores under
    one name would overwrite each other's keys: a bug, refused."""
    out: dict[str, DurableState] = {}
    for detector in detectors.values():
        if not isinstance(detector, DurableDetector):
            continue
        store = detector.durable
        known = out.setdefault(store.store_name, store)
        if known is not store:
            raise ValueError(f"two durable stores named {store.store_name!r} in one detector set")
    return out


def changelog_key(store: str, key: str) -> bytes:
    """The record key of a store's state key."""
    return f"{store}{KEY_SEPARATOR}{key}".encode()


@dataclass(frozen=True, slots=True)
class Changelog:
    """One stage topic's changelog: its topic name and how to read it back (None: write only)."""

    topic: str
    reader: ChangelogReader | None

    def drain(self, partition: int, stores: Mapping[str, DurableState]) -> list[Message]:
        """The records of every change the partition's stores made since the last drain."""
        return [
            (self.topic, changelog_key(name, key), value, [], partition)
            for name, store in stores.items()
            for key, value in store.changes()
        ]

    def restore(self, partition: int, stores: Mapping[str, DurableState], *, before: int) -> int:
        """Restore the partition's stores from the last value of each key; the number of keys
        restored. A value a store cannot read (an older format) is logged and skipped: that key
        falls back to what the lookback replay rebuilds."""
        if not stores or self.reader is None:
            return 0
        last: dict[bytes, bytes | None] = {}
        for record in self.reader.read_all(TopicPartition(self.topic, partition)):
            if record.key is not None:
                last[record.key] = record.value
        restored = 0
        for raw, value in last.items():
            name, _, key = raw.decode("utf-8", "replace").partition(KEY_SEPARATOR)
            store = stores.get(name)
            if value is None or store is None:
                continue  # deleted, or a store this process does not run
            try:
                store.restore(key, value, before=before)
            except ValueError as exc:
                log.warning("changelog value not restored: %s", exc,
                            extra={"topic": self.topic, "partition": partition, "detector": name})
                continue
            restored += 1
        return restored
