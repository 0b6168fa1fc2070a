"""Runs events through the registered detectors and policy; shared by streaming and replay."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from pipeline.contracts import INPUT_TOPICS, Event
from pipeline.detector import Detector, FlushingDetector, RulesDetector, SourceTimedDetector, WrappingDetector
from pipeline.findings import ActionProposal, Finding
from pipeline.policy import propose_actions
from pipeline.rules import RulesConfig

_Run = Callable[[Event], Sequence[Finding]]
_After = Callable[[Event, Sequence[Finding]], Sequence[Finding]]


@dataclass(frozen=True, slots=True)
class DetectorError:
    """A detector raised on an event: recorded and reported, the other detectors still run."""

    detector: str
    event_id: str
    error: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """Findings (with actions) for one event, and any detector that failed on it."""

    findings: tuple[Finding, ...]
    errors: tuple[DetectorError, ...] = ()


def _twin_actions(
    shadowed: Mapping[str, tuple[Finding, RulesConfig, tuple[ActionProposal, ...]]] | None,
    finding: Finding,
    rules: RulesConfig,
) -> tuple[ActionProposal, ...] | None:
    """The actions already proposed for this event's shadow finding that equals `finding` but for
    its shadow mark, under equal rules; None if there is none. Policy is a function of the finding
    and the rules that never reads the mark (tests/pipeline/test_runner_twins.py), and a shadow copy
    with the live configuration finds what the live detector finds: proposing once for both saves
    the second copy of a finding its policy work (about a fifth of a shadow copy's cost)."""
    if shadowed is None or finding.shadow:
        return None
    twin = shadowed.get(finding.finding_id)
    if twin is None:
        return None
    seen, seen_rules, actions = twin
    if not (seen_rules is rules or seen_rules == rules):
        return None
    mine = finding.__dict__
    return actions if {**seen.__dict__, "shadow": mine["shadow"]} == mine else None


class Pipeline:
    """Dispatches each event to the detectors of its topic, then applies policy."""

    def __init__(self, detectors: Mapping[str, Detector], *, rules: RulesConfig) -> None:
        self._rules = rules
        self._by_topic: dict[str, list[Detector]] = {topic: [] for topic in INPUT_TOPICS}
        # What `process` calls per detector: its own `process`, or for a wrapper (a ledger tap)
        # the wrapped detector's and then `after` only on findings (`WrappingDetector`).
        self._steps: dict[str, list[tuple[Detector, _Run, _After | None]]] = {topic: [] for topic in INPUT_TOPICS}
        # A shadow copy proposes under its candidate rules (pipeline/shadow.py); looked up once here.
        self._rules_of: dict[str, RulesConfig] = {}
        for name, detector in detectors.items():
            if name != detector.name:
                raise ValueError(f"detector registered as {name!r} calls itself {detector.name!r}")
            self._rules_of[name] = detector.policy_rules if isinstance(detector, RulesDetector) else rules
            step = (
                (detector, detector.inner.process, detector.after)
                if isinstance(detector, WrappingDetector)
                else (detector, detector.process, None)
            )
            for topic in detector.topics:
                self._by_topic[topic].append(detector)
                self._steps[topic].append(step)
        # Told each input partition's progress (`advance`), looked up once here, not per mark.
        self._timed = [d for d in detectors.values() if isinstance(d, SourceTimedDetector)]

    def detectors_for(self, topic: str) -> tuple[Detector, ...]:
        """Detectors that consume a topic, in registry order."""
        return tuple(self._by_topic.get(topic, ()))

    def process(self, topic: str, event: Event) -> Outcome:
        """Run one decoded event through every detector of its topic."""
        # Lists only once something is found or fails: most events produce nothing, and two
        # empty lists per event were two allocations per message for nothing.
        findings: list[Finding] | None = None
        errors: list[DetectorError] | None = None
        shadowed: dict[str, tuple[Finding, RulesConfig, tuple[ActionProposal, ...]]] | None = None
        for detector, run, after in self._steps.get(topic, ()):
            try:
                produced = run(event)
                if produced and after is not None:
                    produced = after(event, produced)
            except Exception as exc:  # noqa: BLE001 - one detector's bug must not drop the others' findings
                if errors is None:
                    errors = []
                errors.append(DetectorError(detector.name, event.event_id, f"{type(exc).__name__}: {exc}"))
                continue
            if not produced:
                continue  # most detectors find nothing in most events: skip the policy lookups
            rules = self._rules_of[detector.name]
            if findings is None:
                findings = []
            for f in produced:
                actions = _twin_actions(shadowed, f, rules)
                if actions is None:
                    actions = propose_actions(f, rules=rules)
                    if f.shadow:
                        if shadowed is None:
                            shadowed = {}
                        shadowed[f.finding_id] = (f, rules, actions)
                findings.append(f.with_actions(actions))
        return Outcome(tuple(findings) if findings else (), tuple(errors) if errors else ())

    def advance(self, source: str, newest: datetime) -> Outcome:
        """An input partition's progress (`SourceTimedDetector`), told to every detector that
        orders by it: the findings of what it releases, with their actions."""
        findings: list[Finding] = []
        errors: list[DetectorError] = []
        for detector in self._timed:
            try:
                produced = detector.advance(source, newest)
            except Exception as exc:  # noqa: BLE001 - as in `process`: report, keep the others
                errors.append(
                    DetectorError(detector.name, f"(progress of {source})", f"{type(exc).__name__}: {exc}")
                )
                continue
            rules = self._rules_of[detector.name]
            findings.extend(f.with_actions(propose_actions(f, rules=rules)) for f in produced)
        return Outcome(tuple(findings), tuple(errors))

    def flush(self) -> Outcome:
        """End of input: the findings of events the detectors still hold back (reorder buffers of
        the place-keyed chat detectors and the seat detectors), with their actions. Only for a
        stream that has really ended, such as a replayed file: a live stream never ends, and the
        runtime's partitions move on to another process with their state instead."""
        findings: list[Finding] = []
        errors: list[DetectorError] = []
        seen: set[str] = set()
        for detector in (d for ds in self._by_topic.values() for d in ds):
            if detector.name in seen or not isinstance(detector, FlushingDetector):
                continue
            seen.add(detector.name)
            try:
                produced = detector.flush()
            except Exception as exc:  # noqa: BLE001 - as in `process`: report, keep the others
                errors.append(DetectorError(detector.name, "(end of input)", f"{type(exc).__name__}: {exc}"))
                continue
            rules = self._rules_of[detector.name]
            findings.extend(f.with_actions(propose_actions(f, rules=rules)) for f in produced)
        return Outcome(tuple(findings), tuple(errors))

    def process_all(self, events: Iterable[tuple[str, Event]]) -> list[Finding]:
        """Run a sequence of (topic, event) pairs; the findings in order."""
        out: list[Finding] = []
        for topic, event in events:
            out.extend(self.process(topic, event).findings)
        return out
