"""Offsets committed without waiting for the broker's answer, and the ones still to be settled.

Why asynchronous: a lane commits after every batch, and a synchronous commit is a round trip to
the group coordinator (7-11 ms median on tansu, up to 100 ms on a loaded machine) on the path of
every record's latency. What is committed, and when it may be, does not change: offsets only ever
follow a batch's acknowledged effects. The broker's answer arrives later on kafka-python's IO
thread; a failed commit (or one unanswered when the lane stops) is re-sent synchronously by the
lane, with the newest offsets of each partition, before its next poll or before it closes.
"""

from __future__ import annotations

import threading

from kafka import TopicPartition
from kafka.structs import OffsetAndMetadata

Offsets = dict[TopicPartition, OffsetAndMetadata]


class PendingCommits:
    """The newest offsets sent per partition until the broker confirms them; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._unconfirmed: Offsets = {}
        self._failed = False

    @property
    def failed(self) -> bool:
        """True when an answer was an error since the last `take`."""
        return self._failed

    def sent(self, offsets: Offsets) -> None:
        """Remember offsets handed to `commit_async`."""
        with self._lock:
            self._unconfirmed.update(offsets)

    def answered(self, offsets: Offsets, response: object) -> None:
        """kafka-python's commit callback (IO thread): record the outcome, never block."""
        with self._lock:
            if isinstance(response, Exception):
                self._failed = True
                return
            for tp, om in offsets.items():
                if self._unconfirmed.get(tp) == om:  # a newer commit of the partition stays pending
                    del self._unconfirmed[tp]

    def take(self, assigned: set[TopicPartition]) -> tuple[bool, Offsets]:
        """(whether one failed, the unconfirmed offsets of assigned partitions); forgets them all:
        the caller commits them synchronously, and offsets of revoked partitions belong to their
        new owner."""
        with self._lock:
            failed, self._failed = self._failed, False
            offsets = {tp: om for tp, om in self._unconfirmed.items() if tp in assigned}
            self._unconfirmed.clear()
        return failed, offsets
