"""hand.integrity: the stateful checks a single record cannot carry (duplicated hand ids).

Illegal actions, unknown variants, bad stacks and broken chip conservation are rejected earlier, by
the `hand.records` contract (decode -> dead letter). A duplicate raises `HandIntegrityError`, which
the runner reports as a detector error with its reason and the other hand detectors skip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from pipeline.contracts import HAND, Event, HandRecord
from pipeline.detectors.hand.stream import HandStream, state_key
from pipeline.findings import Finding
from pipeline.hands.errors import HandIntegrityError


@dataclass(slots=True)
class HandIntegrityDetector:
    """Rejects a hand id seen before (at-least-once redelivery or a server bug); emits no findings."""

    stream: HandStream
    name: str = "hand.integrity"
    topics: frozenset[str] = frozenset({HAND})

    @property
    def state_window(self) -> timedelta:
        """How long a hand id is remembered."""
        return self.stream.id_ttl

    def key(self, event: Event) -> str:
        """Same key as every hand detector."""
        return state_key(event) if isinstance(event, HandRecord) else event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        """Nothing for a fresh hand; `HandIntegrityError('duplicate_hand_id')` for a repeat."""
        if isinstance(event, HandRecord):
            verdict = self.stream.admit(event)
            if isinstance(verdict, HandIntegrityError):
                raise verdict
        return ()
