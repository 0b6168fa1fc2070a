"""The shape every detector has; the explicit registry lives in `pipeline.registry`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Protocol, runtime_checkable

from pipeline.contracts import Event
from pipeline.findings import Finding


@runtime_checkable
class Detector(Protocol):
    """A named, typed callable over events of some topics; no I/O, no globals.

    `key` names the state a stateful detector needs for this event (a player, a tournament, a
    table): the streaming runtime routes every event with the same key to the same process, so N
    processes find what one finds. Stateless detectors return the event id.
    """

    @property
    def name(self) -> str:
        """Stable name; it flows into logs, metrics, findings and cases."""
        ...

    @property
    def topics(self) -> frozenset[str]:
        """Input topics this detector consumes."""
        ...

    def key(self, event: Event) -> str:
        """State key this event belongs to."""
        ...

    def process(self, event: Event) -> Sequence[Finding]:
        """Feed one event; return the findings it completes (often none)."""
        ...


@runtime_checkable
class StatefulDetector(Detector, Protocol):
    """A detector that says how much event time its state spans (optional, additive).

    The streaming runtime rebuilds a stateful detector after a restart or a partition move by
    replaying this much of its re-key topic; detectors that do not declare it get the configured
    default lookback (`RAILBIRD_CONSUMER_STATE_LOOKBACK_S`).
    """

    @property
    def state_window(self) -> timedelta:
        """The longest span of events one state key remembers."""
        ...
