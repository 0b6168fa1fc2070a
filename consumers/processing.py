"""What the two stages share, and stage 2: per-record results, decoding, the keyed stage.

Two stages share one `Lane` loop:
- `consumers.input_stage.InputProcessor` reads an input topic: stateless detectors and those keyed
  by the record's own key run there; the others are routed to the re-key topic by their state key.
- `KeyedProcessor` (here) reads the re-key topic. It keeps separate detector instances per assigned
  partition, so a partition's state is a function of that partition's records only; on assignment
  it rebuilds the state from the partition's changelog (the state that outlives the lookback,
  `consumers.changelog`), then by replaying the partition's retained lookback (see
  docs/operations.md, "State"). Stage 1 uses the same class for its local state, over input
  partitions.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from kafka import TopicPartition

from consumers.bundle import (
    DETECTORS_HEADER,
    MARKS_HEADER,
    SOURCE_TOPIC_HEADER,
    BundleError,
    decode_marks,
    expand,
)
from consumers.changelog import Changelog, stores_of
from consumers.ports import Message, RecordLike
from pipeline.contracts import DecodeError, Event, decode
from pipeline.contracts.deadletter import ErrorKind
from pipeline.detector import CountingDetector, Detector, DurableState, PrefetchingDetector
from pipeline.findings import Finding
from pipeline.rules import RulesConfig
from pipeline.runner import DetectorError, Pipeline


@dataclass(frozen=True, slots=True)
class Route:
    """An event to re-key (bundled per partition by the lane) before the batch may be committed."""

    topic: str
    key: bytes
    detectors: bytes
    source: bytes
    value: bytes
    input_topic: str
    ts_ms: int = 0
    """The event's time (epoch ms): the lane's progress marks are built from it."""


@dataclass(frozen=True, slots=True)
class Handled:
    """The result of one record: findings, routes, or a dead-letter reason."""

    record: RecordLike
    findings: tuple[Finding, ...] = ()
    routes: tuple[Route, ...] = ()
    dead: tuple[ErrorKind, str] | None = None
    errors: tuple[DetectorError, ...] = ()
    skipped: tuple[str, ...] = ()
    """Detectors the route named that this process does not run."""


class Processor(Protocol):
    """One stage's per-record logic and its reaction to partition moves."""

    def handle(self, record: RecordLike) -> Handled: ...

    def handle_batch(self, records: Sequence[RecordLike]) -> list[Handled]: ...

    def on_revoked(self, partitions: Iterable[TopicPartition]) -> None: ...

    def on_assigned(
        self, partitions: Iterable[TopicPartition], committed: Callable[[TopicPartition], int | None]
    ) -> None: ...

    def anomalies(self) -> Mapping[tuple[str, str], int]:
        """(detector, kind) -> inputs the held detector instances counted as anomalous."""
        ...

    def drain_changelog(self) -> list[Message]:
        """Changelog records of the state changed since the last call ([] for a stage without
        durable state): produced and acknowledged before the batch is committed."""
        ...


def decode_record(topic: str, record: RecordLike) -> Event | Handled:
    """The decoded event, or a `Handled` carrying the dead-letter reason."""
    if record.value is None:
        return Handled(record, dead=("invalid", "record has no value (tombstone)"))
    try:
        return decode(topic, record.value)
    except DecodeError as exc:
        return Handled(record, dead=(exc.kind, str(exc)))


class DecodeCache:
    """Decoded events of one batch by (topic, bytes): the keyed stage receives an event once per
    distinct state key (two or three times for chat), and validation is its largest runtime cost.
    Events are frozen models, so sharing one instance between entries is safe."""

    def __init__(self) -> None:
        self._events: dict[tuple[str, bytes], Event | tuple[ErrorKind, str]] = {}

    def decode(self, topic: str, record: RecordLike) -> Event | Handled:
        """As `decode_record`, once per distinct (topic, value) in the batch."""
        if record.value is None:
            return decode_record(topic, record)
        slot = (topic, record.value)
        found = self._events.get(slot)
        if found is None:
            result = decode_record(topic, record)
            if isinstance(result, Handled):
                if result.dead is not None:
                    self._events[slot] = result.dead
                return result
            found = self._events[slot] = result
        if isinstance(found, tuple):
            return Handled(record, dead=found)
        return found


def prefetch(detectors: Iterable[Detector], events: Sequence[Event]) -> None:
    """Offer a batch's events to the detectors that batch work ahead (`prefetch`, e.g. one model
    call for a whole poll instead of one per message); a failure there only loses the speed-up,
    the per-event `process` still runs (and reports the error) as usual."""
    if not events:
        return
    for detector in detectors:
        if not isinstance(detector, PrefetchingDetector):
            continue
        # `process` meets the same error and reports it per event.
        with contextlib.suppress(Exception):
            detector.prefetch(events)


def all_failed(record: RecordLike, errors: list[DetectorError]) -> Handled:
    """Dead-letter reason of a record on which every detector raised."""
    reason = "; ".join(f"{e.detector}: {e.error}" for e in errors)[:2000]
    return Handled(record, dead=("processing", f"every detector raised: {reason}"), errors=tuple(errors))


def header(record: RecordLike, name: str) -> str | None:
    """A header's value as text, or None."""
    for key, value in record.headers or ():
        if key == name and value is not None:
            return value.decode("utf-8", "replace")
    return None


class HistoryReader(Protocol):
    """Reads a partition's recent records for state rebuilds (a group-less consumer in production)."""

    def read(self, tp: TopicPartition, *, lookback_s: float, until_offset: int) -> Iterable[RecordLike]: ...




@dataclass(frozen=True, slots=True)
class Marks:
    """A bundle's progress marks: input partition -> newest event time it delivered."""

    newest: tuple[tuple[str, datetime], ...]


Parsed = tuple[str, list[str], Event] | Marks | Handled
"""A re-keyed entry's source topic, detector names and event; progress marks; or its dead-letter
reason."""


def _parse(record: RecordLike, cache: DecodeCache) -> Parsed:
    marks = header(record, MARKS_HEADER)
    if marks is not None:
        try:
            decoded = decode_marks(marks)
        except BundleError as exc:
            return Handled(record, dead=("invalid", f"re-keyed bundle: {exc}"))
        return Marks(tuple((s, datetime.fromtimestamp(ms / 1000, UTC)) for s, ms in decoded.items()))
    source = header(record, SOURCE_TOPIC_HEADER)
    names = (header(record, DETECTORS_HEADER) or "").split(",")
    if source is None or not names[0]:
        return Handled(record, dead=("invalid", "re-keyed record without its rb-topic/rb-detectors headers"))
    return (source, names, event) if not isinstance(event := cache.decode(source, record), Handled) else event


REPLAY_CHUNK = 500
"""Entries replayed per `_apply_all` call: batches for `prefetch` without holding the whole lookback."""


class SeenIds:
    """The last `capacity` event ids: drops the duplicates a stage-1 retry can re-produce."""

    def __init__(self, capacity: int) -> None:
        self._ids: OrderedDict[str, None] = OrderedDict()
        self._capacity = capacity

    def add(self, event_id: str) -> bool:
        """True when the id is new (and remember it)."""
        if event_id in self._ids:
            return False
        self._ids[event_id] = None
        if len(self._ids) > self._capacity:
            self._ids.popitem(last=False)
        return True


@dataclass
class PartitionState:
    """One partition's detector instances, its recent routes, and the next offset it expects."""

    detectors: dict[str, Detector]
    seen: SeenIds
    next_offset: int = 0
    routes: dict[tuple[str, ...], tuple[Pipeline, int, tuple[str, ...]]] = field(default_factory=dict)
    """Pipelines by detector list (see `KeyedProcessor._pipeline_for`)."""
    stores: dict[str, DurableState] = field(default_factory=dict)
    """The detectors' durable stores (only with a changelog)."""
    everything: Pipeline | None = None
    """All the partition's detectors, for progress marks (built at the first)."""


class KeyedProcessor:
    """Stage 2: the keyed detectors of one input topic, fresh instances per re-key partition."""

    def __init__(
        self,
        *,
        make_detectors: Callable[[], Mapping[str, Detector]],
        rules: RulesConfig,
        history: HistoryReader | None,
        lookback_s: float,
        seen_capacity: int = 50_000,
        changelog: Changelog | None = None,
    ) -> None:
        self._make = make_detectors
        self._changelog = changelog
        self._rules = rules
        self._history = history
        self._lookback_s = lookback_s
        self._seen_capacity = seen_capacity
        self._parts: dict[int, PartitionState] = {}
        self.replayed = 0
        self.restored = 0
        """Keys restored from the changelog, over every rebuild."""

    def handle(self, record: RecordLike) -> Handled:
        """Run the listed detectors of the partition on the routed event, once per route."""
        return self.handle_batch([record])[0]

    def handle_batch(self, records: Sequence[RecordLike], cache: DecodeCache | None = None) -> list[Handled]:
        """Decode a poll batch (each distinct event once; `cache`: the events stage 1 decoded when
        it runs this stage locally), let every partition's detectors prefetch their events, then
        apply record by record in order."""
        items: list[tuple[PartitionState, RecordLike]] = []
        for record in records:
            state = self._parts.get(record.partition)
            if state is None:
                state = self._parts[record.partition] = self._fresh()
            state.next_offset = record.offset + 1
            items.append((state, record))
        return self._apply_all(items, cache)

    def _apply_all(self, items: Sequence[tuple[PartitionState, RecordLike]], cache: DecodeCache | None = None) -> list[Handled]:
        cache = cache or DecodeCache()
        parsed = [(state, record, _parse(record, cache)) for state, record in items]
        wanted: dict[tuple[int, str], tuple[Detector, list[Event]]] = {}
        for state, _, p in parsed:
            if isinstance(p, Handled | Marks):
                continue
            _, names, event = p
            for name in names:
                detector = state.detectors.get(name)
                if detector is not None:
                    wanted.setdefault((id(state), name), (detector, []))[1].append(event)
        for detector, events in wanted.values():
            prefetch([detector], events)
        return [
            p if isinstance(p, Handled) else self._advance(state, record, p) if isinstance(p, Marks)
            else self._apply(state, record, *p)
            for state, record, p in parsed
        ]

    def _advance(self, state: PartitionState, record: RecordLike, marks: Marks) -> Handled:
        """Tell the partition's ordering detectors how far each input partition has got; the
        findings of what that releases belong to this (bundle) record."""
        if state.everything is None:
            state.everything = Pipeline(state.detectors, rules=self._rules)
        for store in state.stores.values():
            store.at(record.offset)
        findings: list[Finding] = []
        errors: list[DetectorError] = []
        for source, newest in marks.newest:
            outcome = state.everything.advance(source, newest)
            findings.extend(outcome.findings)
            errors.extend(outcome.errors)
        return Handled(record, tuple(findings), errors=tuple(errors))

    def _apply(self, state: PartitionState, record: RecordLike, source: str, names: list[str], event: Event) -> Handled:
        # One event reaches a partition once per distinct state key: dedupe on (key, event).
        if not state.seen.add(f"{record.key!r}/{event.event_id}"):
            return Handled(record)
        pipeline, known, skipped = self._pipeline_for(state, names)
        for store in state.stores.values():
            store.at(record.offset)
        outcome = pipeline.process(source, event)
        if known and len(outcome.errors) == known:
            return all_failed(record, list(outcome.errors))
        return Handled(record, outcome.findings, errors=outcome.errors, skipped=skipped)

    def _pipeline_for(self, state: PartitionState, names: list[str]) -> tuple[Pipeline, int, tuple[str, ...]]:
        """One pipeline per distinct detector list (a route names the same few lists over and over),
        over the partition's instances, in the route's order (the repeat-offender ledger runs after
        the detectors it counts); how many of the names it runs and the ones it skips.

        A detector this process does not run (switched off, or a rolling deploy where stage 1 is
        newer) is skipped and counted, not dead-lettered: the event is fine."""
        key = tuple(names)
        found = state.routes.get(key)
        if found is None:
            known = {n: state.detectors[n] for n in names if n in state.detectors}
            skipped = tuple(n for n in names if n not in state.detectors)
            found = state.routes[key] = (Pipeline(known, rules=self._rules), len(known), skipped)
        return found

    def anomalies(self) -> dict[tuple[str, str], int]:
        """(detector, kind) -> count over every partition's instances that keep an `anomalies`
        counter (late or duplicate inputs: what an operator must see when the reorder lateness is
        exceeded, docs/operations.md)."""
        out: dict[tuple[str, str], int] = {}
        for state in self._parts.values():
            for name, detector in state.detectors.items():
                if isinstance(detector, CountingDetector):
                    for kind, n in detector.anomalies.items():
                        out[(name, kind)] = out.get((name, kind), 0) + n
        return out

    def drain_changelog(self) -> list[Message]:
        """The changelog records of every change since the last call (the lane produces them and
        waits for their acks before committing the batch)."""
        if self._changelog is None:
            return []
        return [m for number, state in self._parts.items() for m in self._changelog.drain(number, state.stores)]

    def on_revoked(self, partitions: Iterable[TopicPartition]) -> None:
        """Keep the states: if the same partitions come back untouched, no replay is needed."""

    def on_assigned(
        self, partitions: Iterable[TopicPartition], committed: Callable[[TopicPartition], int | None]
    ) -> None:
        """Keep still-current states, drop the others, rebuild new ones (changelog, lookback)."""
        assigned = {tp.partition: tp for tp in partitions}
        for number in set(self._parts) - set(assigned):
            del self._parts[number]
        for number, tp in assigned.items():
            start = committed(tp)
            current = self._parts.get(number)
            if current is not None and start is not None and current.next_offset == start:
                continue  # nobody else processed it meanwhile: our state is exact
            self._parts[number] = self._rebuild(tp, start)

    def _fresh(self) -> PartitionState:
        detectors = dict(self._make())
        stores = stores_of(detectors) if self._changelog is not None else {}
        return PartitionState(detectors, SeenIds(self._seen_capacity), stores=stores)

    def _rebuild(self, tp: TopicPartition, until: int | None) -> PartitionState:
        state = self._fresh()
        if until is None or until == 0:
            return state  # never committed: the consumer starts at the beginning anyway
        if self._changelog is not None:
            # Offences of records at or after `until` were processed but never committed: they are
            # read again from there, so the restore leaves them out. Restored keys are not changes;
            # what the replay adds that the changelog lacked is, and goes out with the next batch.
            self.restored += self._changelog.restore(tp.partition, state.stores, before=until)
        if self._history is None:
            state.next_offset = until
            return state
        # The findings of replayed records were written before their offsets were committed.
        chunk: list[tuple[PartitionState, RecordLike]] = []
        for record in self._history.read(tp, lookback_s=self._lookback_s, until_offset=until):
            chunk.extend((state, entry) for entry in expand([record]))
            if len(chunk) >= REPLAY_CHUNK:
                self._apply_all(chunk)
                self.replayed += len(chunk)
                chunk = []
        self._apply_all(chunk)
        self.replayed += len(chunk)
        state.next_offset = until
        return state
