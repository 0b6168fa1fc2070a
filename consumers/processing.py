"""What happens to one record: decode, run detectors, or route it to the detector's state owner.

Two stages share one `Lane` loop:
- `InputProcessor` reads an input topic. A detector whose `key(event)` is the event id keeps no
  state, so it runs right here. Any other detector needs every event of that key in one process:
  the record's original bytes are re-produced to `railbird.rekey.<detector>` keyed by the state key.
- `KeyedProcessor` reads one detector's re-key topic. It keeps a separate detector instance per
  assigned partition, so a partition's state is a function of that partition's records only; on
  assignment it rebuilds the state by replaying the partition's retained lookback (see
  docs/operations.md, "State").
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from kafka import TopicPartition

from consumers.ports import RecordLike
from consumers.topics import rekey_topic
from pipeline.contracts import INPUT_TOPICS, DecodeError, Event, decode
from pipeline.contracts.deadletter import ErrorKind
from pipeline.detector import Detector
from pipeline.findings import Finding
from pipeline.rules import RulesConfig
from pipeline.runner import DetectorError, Pipeline

SOURCE_TOPIC_HEADER = "rb-topic"
SOURCE_HEADER = "rb-src"


@dataclass(frozen=True, slots=True)
class Route:
    """A record to re-produce to a re-key topic before the batch may be committed."""

    topic: str
    key: bytes
    value: bytes
    headers: tuple[tuple[str, bytes], ...]


@dataclass(frozen=True, slots=True)
class Handled:
    """The result of one record: findings, routes, or a dead-letter reason."""

    record: RecordLike
    findings: tuple[Finding, ...] = ()
    routes: tuple[Route, ...] = ()
    dead: tuple[ErrorKind, str] | None = None
    errors: tuple[DetectorError, ...] = ()


class Processor(Protocol):
    """One stage's per-record logic and its reaction to partition moves."""

    def handle(self, record: RecordLike) -> Handled: ...

    def on_revoked(self, partitions: Iterable[TopicPartition]) -> None: ...

    def on_assigned(
        self, partitions: Iterable[TopicPartition], committed: Callable[[TopicPartition], int | None]
    ) -> None: ...


def decode_record(topic: str, record: RecordLike) -> Event | Handled:
    """The decoded event, or a `Handled` carrying the dead-letter reason."""
    if record.value is None:
        return Handled(record, dead=("invalid", "record has no value (tombstone)"))
    try:
        return decode(topic, record.value)
    except DecodeError as exc:
        return Handled(record, dead=(exc.kind, str(exc)))


def _all_failed(record: RecordLike, errors: list[DetectorError]) -> Handled:
    reason = "; ".join(f"{e.detector}: {e.error}" for e in errors)[:2000]
    return Handled(record, dead=("processing", f"every detector raised: {reason}"), errors=tuple(errors))


class InputProcessor:
    """Stage 1: stateless detectors inline, stateful ones routed by their state key."""

    def __init__(self, *, detectors: Mapping[str, Detector], rules: RulesConfig) -> None:
        self._single = {name: Pipeline({name: d}, rules=rules) for name, d in detectors.items()}
        self._by_topic: dict[str, list[tuple[str, Detector]]] = {
            topic: [(n, d) for n, d in detectors.items() if topic in d.topics] for topic in INPUT_TOPICS
        }

    def handle(self, record: RecordLike) -> Handled:
        """Decode, run or route every detector of the record's topic."""
        event = decode_record(record.topic, record)
        if isinstance(event, Handled):
            return event
        findings: list[Finding] = []
        routes: list[Route] = []
        errors: list[DetectorError] = []
        detectors = self._by_topic.get(record.topic, [])
        for name, detector in detectors:
            try:
                key = detector.key(event)
            except Exception as exc:  # noqa: BLE001 - a detector bug is reported per record, never fatal
                errors.append(DetectorError(name, event.event_id, f"key(): {type(exc).__name__}: {exc}"))
                continue
            if key == event.event_id:
                outcome = self._single[name].process(record.topic, event)
                findings.extend(outcome.findings)
                errors.extend(outcome.errors)
            else:
                routes.append(_route(name, key, record))
        if detectors and len(errors) == len(detectors):
            return _all_failed(record, errors)
        return Handled(record, tuple(findings), tuple(routes), errors=tuple(errors))

    def on_revoked(self, partitions: Iterable[TopicPartition]) -> None:
        """Stateless stage: nothing to drop."""

    def on_assigned(
        self, partitions: Iterable[TopicPartition], committed: Callable[[TopicPartition], int | None]
    ) -> None:
        """Stateless stage: nothing to rebuild."""


def _route(detector: str, key: str, record: RecordLike) -> Route:
    source = f"{record.topic}/{record.partition}/{record.offset}".encode()
    return Route(
        topic=rekey_topic(detector),
        key=key.encode("utf-8"),
        value=record.value or b"",
        headers=((SOURCE_TOPIC_HEADER, record.topic.encode()), (SOURCE_HEADER, source)),
    )


def header(record: RecordLike, name: str) -> str | None:
    """A header's value as text, or None."""
    for key, value in record.headers or ():
        if key == name and value is not None:
            return value.decode("utf-8", "replace")
    return None


class HistoryReader(Protocol):
    """Reads a partition's recent records for state rebuilds (a group-less consumer in production)."""

    def read(self, tp: TopicPartition, *, lookback_s: float, until_offset: int) -> Iterable[RecordLike]: ...


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
    """One partition's detector instance, its recent ids, and the next offset it expects."""

    pipeline: Pipeline
    seen: SeenIds
    next_offset: int = 0


class KeyedProcessor:
    """Stage 2: one stateful detector, one instance per assigned partition of its re-key topic."""

    def __init__(
        self,
        *,
        detector: str,
        make_detector: Callable[[], Detector],
        rules: RulesConfig,
        history: HistoryReader | None,
        lookback_s: float,
        seen_capacity: int = 50_000,
    ) -> None:
        self.detector = detector
        self._make = make_detector
        self._rules = rules
        self._history = history
        self._lookback_s = lookback_s
        self._seen_capacity = seen_capacity
        self._parts: dict[int, PartitionState] = {}
        self.replayed = 0

    def handle(self, record: RecordLike) -> Handled:
        """Run the partition's detector instance on the routed event, once per event id."""
        state = self._parts.get(record.partition)
        if state is None:
            state = self._parts[record.partition] = self._fresh()
        state.next_offset = record.offset + 1
        source = header(record, SOURCE_TOPIC_HEADER)
        if source is None:
            return Handled(
                record, dead=("invalid", f"re-keyed record without the {SOURCE_TOPIC_HEADER} header")
            )
        event = decode_record(source, record)
        if isinstance(event, Handled):
            return event
        if not state.seen.add(event.event_id):
            return Handled(record)
        outcome = state.pipeline.process(source, event)
        if outcome.errors:
            return _all_failed(record, list(outcome.errors))
        return Handled(record, outcome.findings)

    def on_revoked(self, partitions: Iterable[TopicPartition]) -> None:
        """Keep the states: if the same partitions come back untouched, no replay is needed."""

    def on_assigned(
        self, partitions: Iterable[TopicPartition], committed: Callable[[TopicPartition], int | None]
    ) -> None:
        """Keep still-current states, drop the others, rebuild new ones from the lookback."""
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
        detector = self._make()
        return PartitionState(
            Pipeline({self.detector: detector}, rules=self._rules), SeenIds(self._seen_capacity)
        )

    def _rebuild(self, tp: TopicPartition, until: int | None) -> PartitionState:
        state = self._fresh()
        if until is None or until == 0 or self._history is None:
            return state  # never committed: the consumer starts at the beginning anyway
        for record in self._history.read(tp, lookback_s=self._lookback_s, until_offset=until):
            self.handle_into(state, record)
        state.next_offset = until
        return state

    def handle_into(self, state: PartitionState, record: RecordLike) -> None:
        """Feed a replayed record into `state`; its findings were written before, so drop them."""
        source = header(record, SOURCE_TOPIC_HEADER)
        event = decode_record(source, record) if source else None
        if event is None or isinstance(event, Handled) or not state.seen.add(event.event_id):
            return
        state.pipeline.process(source or "", event)
        self.replayed += 1
