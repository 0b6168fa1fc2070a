"""The shape every detector has; the explicit registry lives in `pipeline.registry`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Protocol, runtime_checkable

from pipeline.contracts import Event
from pipeline.findings import Finding
from pipeline.rules import RulesConfig


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


@runtime_checkable
class DurableState(Protocol):
    """State that must outlive the runtime's lookback replay, kept durable as a changelog.

    A detector whose state spans more event time than a rebuild can replay (the offence ledger's
    30 days against a 13 h lookback) exposes that state as values per state key. The streaming
    runtime drains `changes` after each batch and writes them to a log-compacted topic (the last
    value per key wins) before committing; on a rebuild it `restore`s every key's last value, then
    replays the lookback as for any detector. Pure: no I/O; the runtime owns the topic.
    """

    @property
    def store_name(self) -> str:
        """Names the state in the changelog (several stores may share one topic)."""
        ...

    def at(self, position: int) -> None:
        """The input position (a partition offset) of the event about to be processed: changes
        it makes are stamped with it, so `restore` can drop what came from unacknowledged input."""
        ...

    def changes(self) -> list[tuple[str, bytes | None]]:
        """(state key, its whole serialized value or None when it is gone) for every key changed
        since the last call; draining."""
        ...

    def restore(self, key: str, value: bytes, *, before: int) -> None:
        """Merge a key's value from the changelog, without what came from positions >= `before`
        (processed but never committed: the input is read again from there). Not a change."""
        ...


@runtime_checkable
class DurableDetector(Detector, Protocol):
    """A detector whose state is (partly) a `DurableState`; detectors may share one store."""

    @property
    def durable(self) -> DurableState:
        """The store this detector reads or writes."""
        ...


# Optional hooks a detector may have. Declared so the type checker sees them (the runtime used to
# look them up by name); each is checked with `isinstance` where it is used.


@runtime_checkable
class PrefetchingDetector(Detector, Protocol):
    """Batches work ahead of `process` (one model call for a poll's texts instead of one each)."""

    def prefetch(self, events: Sequence[Event]) -> None:
        """See a batch before its events are processed one by one; a failure only loses speed."""
        ...


@runtime_checkable
class WrappingDetector(Detector, Protocol):
    """Runs another detector (`inner`) and acts only on what that one finds (a chat ledger tap
    records it as offences): its `process(event)` is `after(event, inner.process(event))` when
    that finds anything, else that empty result. The runner makes the two calls itself, so most
    messages, which find nothing, cost one call per wrapped detector rather than two."""

    @property
    def inner(self) -> Detector:
        """The detector that finds."""
        ...

    def after(self, event: Event, produced: Sequence[Finding]) -> Sequence[Finding]:
        """What `process` returns for `event` when `inner` produced these (never empty) findings."""
        ...


@runtime_checkable
class FlushingDetector(Detector, Protocol):
    """Holds events back (a reorder buffer) and can release them when input has really ended."""

    def flush(self) -> Sequence[Finding]:
        """The findings of what is still held back (a replayed file's end, never a live stream)."""
        ...


@runtime_checkable
class SourceTimedDetector(Detector, Protocol):
    """Puts its input back in event-time order across the input partitions it comes from, and is
    told how far each has got (`pipeline.detectors.chat.order`, "Sources")."""

    def advance(self, source: str, newest: datetime) -> Sequence[Finding]:
        """`source` (an input partition) has delivered everything up to `newest`; the findings of
        what that releases."""
        ...


@runtime_checkable
class RulesDetector(Detector, Protocol):
    """Brings the house rules its findings' actions are proposed under (a shadow copy's candidate
    rules, pipeline/shadow.py) instead of the pipeline's."""

    @property
    def policy_rules(self) -> RulesConfig:
        """The rules policy applies to this detector's findings."""
        ...


@runtime_checkable
class CountingDetector(Detector, Protocol):
    """Counts the inputs it found anomalous (late, duplicate, ...) for the runtime's metrics."""

    @property
    def anomalies(self) -> Counter[str]:
        """kind -> count since the instance was built."""
        ...
