"""Stage 1 of the runtime: what happens to a record of an input topic.

Detectors whose `key(event)` is the event id keep no state: they run right here. Detectors keyed by
the record's own Kafka key keep their state in this partition's instances (`consumers.local_stage`).
Any other detector needs every event of its key in one process: the record's original bytes are
routed to the deployment's re-key topic (`consumers.topics.rekey_topic`), keyed by the state key,
once per distinct key (detectors that share the key share the route; it lists them), and the lane
packs a batch's routes into one record per partition (`consumers/bundle.py`), because a
kafka-python produce costs ~50 us. Stage 2 is `consumers.processing.KeyedProcessor`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from kafka import TopicPartition

from consumers.changelog import Changelog, ChangelogReader
from consumers.local_stage import LocalHistory, local_entry, local_names, runs_here
from consumers.ports import Message, RecordLike
from consumers.processing import (
    DecodeCache,
    Handled,
    HistoryReader,
    KeyedProcessor,
    Route,
    all_failed,
    decode_record,
    prefetch,
)
from consumers.topics import changelog_topic, rekey_topic
from pipeline.contracts import INPUT_TOPICS, Event
from pipeline.detector import Detector
from pipeline.findings import Finding
from pipeline.rules import RulesConfig
from pipeline.runner import DetectorError, Pipeline


class InputProcessor:
    """Stage 1: stateless detectors inline; stateful ones keyed by the record's own key in this
    partition's instances (`consumers.local_stage`, when `make_detectors` is given); the rest
    routed by their state key."""

    def __init__(
        self,
        *,
        detectors: Mapping[str, Detector],
        rules: RulesConfig,
        prefix: str = "railbird",
        make_detectors: Callable[[], Mapping[str, Detector]] | None = None,
        history: HistoryReader | None = None,
        lookback_s: float = 0.0,
        changelog: ChangelogReader | None = None,
    ) -> None:
        """`changelog`: keep the local states' durable stores in the input topic's changelog topic
        (`consumers.changelog`), restored with this reader; None: replay only."""
        self._prefix = prefix
        self._detectors = dict(detectors)
        self._single = {name: Pipeline({name: d}, rules=rules) for name, d in detectors.items()}
        self._by_topic: dict[str, list[tuple[str, Detector]]] = {
            topic: [(n, d) for n, d in detectors.items() if topic in d.topics] for topic in INPUT_TOPICS
        }
        self._eligible = {
            t: local_names(self._detectors, t) if make_detectors is not None else frozenset() for t in INPUT_TOPICS
        }
        self._local: dict[str, KeyedProcessor] = {}
        self._make_local = make_detectors
        self._local_args = (rules, history, lookback_s)
        self._changelog = changelog

    def handle(self, record: RecordLike) -> Handled:
        """Decode, run or route every detector of the record's topic."""
        return self.handle_batch([record])[0]

    def handle_batch(self, records: Sequence[RecordLike]) -> list[Handled]:
        """Decode a poll batch, ask every detector for its key, let each detector prefetch the events
        it runs inline, then run or route record by record."""
        cache = DecodeCache()
        decoded = [cache.decode(r.topic, r) for r in records]
        keyed = [d if isinstance(d, Handled) else (d, self._keys(r.topic, d)) for r, d in zip(records, decoded, strict=True)]
        inline: dict[str, list[Event]] = {}
        for item in keyed:
            if isinstance(item, Handled):
                continue
            event, keys = item
            for name, key in keys:
                if key == event.event_id:
                    inline.setdefault(name, []).append(event)
        for name, events in inline.items():
            prefetch([self._detectors[name]], events)
        handled: list[Handled] = []
        here: list[tuple[int, RecordLike, list[str]]] = []
        for record, item in zip(records, keyed, strict=True):
            if isinstance(item, Handled):
                handled.append(item)
                continue
            result, names = self._handle(record, *item)
            if names:
                here.append((len(handled), record, names))
            handled.append(result)
        if here:
            self._run_local(here, handled, cache)
        return handled

    def _run_local(self, here: list[tuple[int, RecordLike, list[str]]], handled: list[Handled], cache: DecodeCache) -> None:
        """Run the local detectors of a batch (per topic, in partition order) and fold their
        outcome into each record's result."""
        for topic in dict.fromkeys(r.topic for _, r, _ in here):
            part = [(i, r, n) for i, r, n in here if r.topic == topic]
            outcomes = self._local_for(topic).handle_batch([local_entry(r, n) for _, r, n in part], cache)
            for (i, _, _names), outcome in zip(part, outcomes, strict=True):
                handled[i] = _merge(handled[i], outcome, len(self._by_topic.get(topic, [])))

    def _local_for(self, topic: str) -> KeyedProcessor:
        found = self._local.get(topic)
        if found is None:
            assert self._make_local is not None  # only asked for when local names exist
            rules, history, lookback_s = self._local_args
            reader = None if history is None else LocalHistory(
                history, eligible=lambda t: self._eligible.get(t, frozenset()), keys_of=self._keys,
                decode=lambda t, r: None if isinstance(e := decode_record(t, r), Handled) else e,
            )
            log = None if self._changelog is None else Changelog(changelog_topic(topic, self._prefix), self._changelog)
            found = self._local[topic] = KeyedProcessor(
                make_detectors=self._make_local, rules=rules, history=reader, lookback_s=lookback_s, changelog=log
            )
        return found

    def _keys(self, topic: str, event: Event) -> list[tuple[str, str | Exception]]:
        out: list[tuple[str, str | Exception]] = []
        for name, detector in self._by_topic.get(topic, []):
            try:
                out.append((name, detector.key(event)))
            except Exception as exc:  # noqa: BLE001 - a detector bug is reported per record, never fatal
                out.append((name, exc))
        return out

    def _handle(
        self, record: RecordLike, event: Event, keys: list[tuple[str, str | Exception]]
    ) -> tuple[Handled, list[str]]:
        """Stateless detectors run, routes built; the names of the detectors to run locally."""
        findings: list[Finding] = []
        by_key: dict[str, list[str]] = {}
        errors: list[DetectorError] = []
        here: list[str] = []
        eligible = self._eligible.get(record.topic, frozenset())
        for name, key in keys:
            if isinstance(key, Exception):
                errors.append(DetectorError(name, event.event_id, f"key(): {type(key).__name__}: {key}"))
            elif key == event.event_id:
                outcome = self._single[name].process(record.topic, event)
                findings.extend(outcome.findings)
                errors.extend(outcome.errors)
            elif runs_here(name, key, event, record.key, eligible):
                here.append(name)
            else:
                by_key.setdefault(key, []).append(name)
        if keys and not here and len(errors) == len(keys):
            return all_failed(record, errors), []
        routes = tuple(_route(names, key, record, event, self._prefix) for key, names in by_key.items())
        return Handled(record, tuple(findings), routes, errors=tuple(errors)), here

    def anomalies(self) -> dict[tuple[str, str], int]:
        """The local detectors' anomaly counters (see `KeyedProcessor.anomalies`)."""
        out: dict[tuple[str, str], int] = {}
        for local in self._local.values():
            for slot, n in local.anomalies().items():
                out[slot] = out.get(slot, 0) + n
        return out

    def drain_changelog(self) -> list[Message]:
        """The local states' changelog records since the last call (see `KeyedProcessor`)."""
        return [m for local in self._local.values() for m in local.drain_changelog()]

    def on_revoked(self, partitions: Iterable[TopicPartition]) -> None:
        """Local states are kept until the next assignment says whether they are still ours."""

    def on_assigned(
        self, partitions: Iterable[TopicPartition], committed: Callable[[TopicPartition], int | None]
    ) -> None:
        """Local states: keep the current ones, drop the others, rebuild new ones from the lookback."""
        if self._make_local is None:
            return
        assigned = list(partitions)
        for topic in {tp.topic for tp in assigned} | set(self._local):
            if self._eligible.get(topic):
                self._local_for(topic).on_assigned([tp for tp in assigned if tp.topic == topic], committed)


def _merge(base: Handled, local: Handled, detectors: int) -> Handled:
    """A record's stage-1 result with its local detectors' outcome folded in; dead-lettered when
    every one of the topic's `detectors` raised."""
    errors = (*base.errors, *local.errors)
    if detectors and len(errors) == detectors:
        return all_failed(base.record, list(errors))
    return Handled(base.record, (*base.findings, *local.findings), base.routes, errors=errors,
                   skipped=(*base.skipped, *local.skipped))


def _route(detectors: list[str], key: str, record: RecordLike, event: Event, prefix: str) -> Route:
    return Route(
        topic=rekey_topic(record.topic, prefix),
        input_topic=record.topic,
        key=key.encode("utf-8"),
        detectors=",".join(detectors).encode(),
        source=f"{record.topic}/{record.partition}/{record.offset}".encode(),
        value=record.value or b"",
        ts_ms=int(event.ts.timestamp() * 1000),
    )
