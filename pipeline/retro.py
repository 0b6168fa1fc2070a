"""Retroactive runs: past events through the same `Pipeline` as the stream, and the diff against
what was flagged at the time. Pure: the caller reads the events (archive, Kafka) and the flagged
findings (the review API's database) and stores the result.

Why every detector runs even when only some are asked for: detectors share state (the chat offence
ledger is fed by the per-player chat detectors and read by `chat.repeat_offender`), so a pipeline
of a subset would not reproduce what the subset flags inside the full pipeline the stream runs.
The run keeps only the findings of the chosen detectors, on both sides of the diff. It skips, before
decoding, the records of topics that no detector of the chosen detectors' families consumes
(`needed_topics`): detectors share state only within a family (the chat ledger, the SnapCam
reporter credibility, the hand stream), so a chat-only run need not replay every hand record,
which costs most of a full run.

Why a warm-up before the range and a tail after it: stateful detectors (hit-and-run counts
refusals over 12 h, the offence ledger 30 days) flag at `t` because of events before `t`; the
place-keyed chat detectors hold messages back by their reorder lateness. Events of
`[start - warmup, end + tail)` are fed, findings are kept only when their time is in `[start, end)`.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final

from pipeline.contracts import CHAT, INPUT_TOPICS, DecodeError, Event, decode
from pipeline.detector import PrefetchingDetector
from pipeline.findings import Finding
from pipeline.registry import build_detectors
from pipeline.rules import RulesConfig
from pipeline.runner import Pipeline
from pipeline.text_model import TextVerdict

BATCH: Final = 500
"""Events decoded and offered to `prefetch` at once (the chat model is ~20x faster per text in
batches), as a lane does with a poll batch."""
EXAMPLES: Final = 5
"""Examples kept per detector and side of the diff."""
ERRORS_KEPT: Final = 20
GC_EVERY: Final = 250_000
"""Records read between two passes of the cyclic collector during a run, each over what is new
since the last (its automatic passes are off then: see `_collector_for_a_run`)."""


@dataclass(frozen=True, slots=True)
class RetroWindow:
    """The range a run reports on, and the event time it feeds around it."""

    start: datetime
    end: datetime
    warmup: timedelta = timedelta(0)
    tail: timedelta = timedelta(0)

    def __post_init__(self) -> None:
        if self.start.tzinfo is None or self.end.tzinfo is None:
            raise ValueError("start and end must carry a time zone")
        if self.end <= self.start:
            raise ValueError(f"end {self.end.isoformat()} is not after start {self.start.isoformat()}")
        if self.warmup < timedelta(0) or self.tail < timedelta(0):
            raise ValueError("warmup and tail cannot be negative")

    @property
    def feed_start(self) -> datetime:
        """First event time fed to the detectors."""
        return self.start - self.warmup

    @property
    def feed_end(self) -> datetime:
        """Event time from which nothing more is fed."""
        return self.end + self.tail

    def feeds(self, ts: datetime) -> bool:
        """Whether an event of this time goes through the detectors."""
        return self.feed_start <= ts < self.feed_end

    def reports(self, ts: datetime) -> bool:
        """Whether a finding of this time is part of the run's result."""
        return self.start <= ts < self.end


@dataclass(frozen=True, slots=True)
class FlaggedFinding:
    """The part of a finding a diff compares and shows, whichever side it comes from."""

    finding_id: str
    detector: str
    ts: datetime
    subject: str
    category: str
    score: float
    summary: str
    actions: tuple[str, ...] = ()
    """Kinds of the actions policy proposed (`mute:automatic`), to show what a change would do."""

    @staticmethod
    def of(finding: Finding) -> FlaggedFinding:
        """Summary of a pipeline finding."""
        return FlaggedFinding(
            finding.finding_id, finding.detector, finding.ts, finding.subject, finding.category, finding.score,
            finding.summary, tuple(f"{a.kind}:{a.disposition}" for a in finding.actions),
        )

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (for the stored diff)."""
        return {"finding_id": self.finding_id, "detector": self.detector, "ts": self.ts.isoformat(),
                "subject": self.subject, "category": self.category, "score": round(self.score, 4),
                "summary": self.summary[:300], "actions": list(self.actions)}


@dataclass(frozen=True, slots=True)
class Progress:
    """How far a run is: events read from the source and the event time reached."""

    events_read: int
    events_fed: int
    findings: int
    reached: datetime | None

    def fraction(self, window: RetroWindow) -> float:
        """Share of the fed event time covered, in [0, 1]."""
        if self.reached is None:
            return 0.0
        span = (window.feed_end - window.feed_start).total_seconds()
        done = (self.reached - window.feed_start).total_seconds()
        return min(1.0, max(0.0, done / span))


@dataclass(slots=True)
class RetroResult:
    """What a run found in its range, and what it met on the way."""

    findings: list[FlaggedFinding] = field(default_factory=list)
    events_read: int = 0
    events_fed: int = 0
    events_in_range: int = 0
    dead_letters: int = 0
    skipped: int = 0
    """Records of topics no chosen detector's family consumes (not decoded)."""
    detector_errors: int = 0
    errors: list[str] = field(default_factory=list)
    """The first few dead letters and detector errors, with their reason."""

    def note(self, error: str) -> None:
        """Keep an error's text (the first `ERRORS_KEPT` only: the counts hold the rest)."""
        if len(self.errors) < ERRORS_KEPT:
            self.errors.append(error)


ProgressFn = Callable[[Progress], None]


class _NoVerdicts:
    """A classifier that flags nothing: only for listing the detectors a real one would add to."""

    def classify(self, texts: Sequence[str]) -> list[TextVerdict]:
        return [TextVerdict(scores={}) for _ in texts]


def detector_names(rules: RulesConfig) -> tuple[str, ...]:
    """Every registered detector's name, as the stream runs them (the chat classifier included)."""
    return tuple(build_detectors(rules=rules, classifier=_NoVerdicts()))


def unknown_detectors(wanted: Iterable[str], known: Iterable[str]) -> list[str]:
    """Names in `wanted` that no registered detector has, sorted."""
    return sorted(set(wanted) - set(known))


def family(detector: str) -> str:
    """A detector's family: the part of its name before the first dot (`chat.flooding` -> `chat`)."""
    return detector.split(".", 1)[0]


def needed_topics(pipeline: Pipeline, detectors: frozenset[str] | None) -> frozenset[str]:
    """Topics consumed by any detector of the chosen detectors' families (every topic for None)."""
    if detectors is None:
        return frozenset(INPUT_TOPICS)
    families = {family(name) for name in detectors}
    return frozenset(topic for topic in INPUT_TOPICS
                     if any(family(d.name) in families for d in pipeline.detectors_for(topic)))


def run_window(
    pipeline: Pipeline,
    records: Iterable[tuple[str, bytes]],
    window: RetroWindow,
    *,
    detectors: frozenset[str] | None = None,
    progress: ProgressFn | None = None,
    progress_every: int = 20_000,
) -> RetroResult:
    """Decode and feed the records (topic, raw value) whose event time the window feeds, in the
    order given (per partition offset order, as the stream read them), flush at the end, and keep
    the findings of `detectors` (None: all) whose time the window reports on. Records of topics
    the chosen detectors' families do not consume are counted and skipped undecoded."""
    with _collector_for_a_run():
        return _run(pipeline, records, window, detectors, progress, progress_every)


_gc_lock = threading.Lock()
_gc_runs = 0
_gc_was_enabled = True


@contextlib.contextmanager
def _collector_for_a_run() -> Iterator[None]:
    """A run allocates a few objects per event (decoded events, detector state, findings) and
    keeps most of them for hours of event time, so the cyclic collector's automatic passes walk
    live objects for nothing: on the 1,630-player day they took 29.3 s of a 271.6 s run even with
    the first generation collected every 50,000 allocations (522 young, 47 middle and 5 full
    passes; `gc.callbacks` probe), and found no garbage (a full pass after a 6-hour run with the
    collector off collects 0 objects). So during a run the objects that exist before it (the model,
    the pipeline) are frozen out of collection (`gc.freeze`), automatic collection is off, and
    `_run` makes one pass every `GC_EVERY` records over what is new since the last and freezes its
    survivors (full passes over the whole heap instead, 4 in the day, cost 23 s themselves). A
    cycle created meanwhile, by the run or (in the API process) by a request, is reclaimed by the
    next pass; one among frozen objects only once the last concurrent run ends, which undoes all
    of this. Only the work changes, never a result."""
    global _gc_runs, _gc_was_enabled
    with _gc_lock:
        if _gc_runs == 0:
            _gc_was_enabled = gc.isenabled()
            # Garbage left by earlier work (a finished run's pipeline is full of cycles) would be
            # frozen with the rest and kept until the end: collect it first.
            gc.collect()
            gc.freeze()
            gc.disable()
        _gc_runs += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_runs -= 1
            if _gc_runs == 0:
                if _gc_was_enabled:
                    gc.enable()
                gc.unfreeze()


def _collect_and_freeze() -> None:
    """The run's own pass of the cyclic collector (`_collector_for_a_run`)."""
    gc.collect()
    gc.freeze()


def _run(pipeline: Pipeline, records: Iterable[tuple[str, bytes]], window: RetroWindow,
         detectors: frozenset[str] | None, progress: ProgressFn | None, progress_every: int) -> RetroResult:
    result = RetroResult()
    batch: list[tuple[str, Event]] = []
    reached: datetime | None = None
    next_report = progress_every
    wanted_topics = needed_topics(pipeline, detectors)
    for topic, raw in records:
        result.events_read += 1
        if result.events_read % GC_EVERY == 0:
            _collect_and_freeze()
        if topic not in wanted_topics and topic in INPUT_TOPICS:
            result.skipped += 1
            continue
        try:
            event = decode(topic, raw)
        except DecodeError as exc:
            result.dead_letters += 1
            result.note(f"dead letter on {topic}: {exc.kind}: {exc}")
            continue
        if not window.feeds(event.ts):
            continue
        batch.append((topic, event))
        if len(batch) >= BATCH:
            _feed(pipeline, batch, window, detectors, result)
            reached = batch[-1][1].ts
            batch.clear()
        if progress is not None and result.events_read >= next_report:
            next_report += progress_every
            progress(Progress(result.events_read, result.events_fed, len(result.findings), reached))
    _feed(pipeline, batch, window, detectors, result)
    if batch:
        reached = batch[-1][1].ts
    outcome = pipeline.flush()
    _keep(outcome.findings, window, detectors, result)
    for err in outcome.errors:
        result.detector_errors += 1
        result.note(f"{err.detector} at end of input: {err.error}")
    if progress is not None:
        progress(Progress(result.events_read, result.events_fed, len(result.findings), reached))
    return result


def _feed(pipeline: Pipeline, batch: list[tuple[str, Event]], window: RetroWindow,
          detectors: frozenset[str] | None, result: RetroResult) -> None:
    if not batch:
        return
    chats = [e for t, e in batch if t == CHAT]
    if chats:
        for detector in pipeline.detectors_for(CHAT):
            if isinstance(detector, PrefetchingDetector):
                # as in the lanes: a failed prefetch only loses speed, `process` classifies again
                with contextlib.suppress(Exception):
                    detector.prefetch(chats)
    for topic, event in batch:
        result.events_fed += 1
        if window.reports(event.ts):
            result.events_in_range += 1
        outcome = pipeline.process(topic, event)
        _keep(outcome.findings, window, detectors, result)
        for err in outcome.errors:
            result.detector_errors += 1
            result.note(f"{err.detector} on {err.event_id}: {err.error}")


def _keep(findings: Iterable[Finding], window: RetroWindow, detectors: frozenset[str] | None,
          result: RetroResult) -> None:
    for finding in findings:
        if window.reports(finding.ts) and (detectors is None or finding.detector in detectors):
            result.findings.append(FlaggedFinding.of(finding))


@dataclass(frozen=True, slots=True)
class DetectorDiff:
    """One detector's side by side: flagged both times, only by the run, only at the time."""

    detector: str
    same: int
    new: int
    gone: int
    changed_actions: int
    """Flagged both times, but policy now proposes other actions (a mute threshold moved)."""
    new_examples: tuple[FlaggedFinding, ...] = ()
    gone_examples: tuple[FlaggedFinding, ...] = ()
    changed_examples: tuple[tuple[FlaggedFinding, FlaggedFinding], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"detector": self.detector, "same": self.same, "new": self.new, "gone": self.gone,
                "changed_actions": self.changed_actions,
                "new_examples": [f.to_json() for f in self.new_examples],
                "gone_examples": [f.to_json() for f in self.gone_examples],
                "changed_examples": [{"then": a.to_json(), "now": b.to_json()} for a, b in self.changed_examples]}


@dataclass(frozen=True, slots=True)
class RetroDiff:
    """The run's findings against the ones flagged at the time, by finding id and by detector."""

    same: int
    new: int
    gone: int
    changed_actions: int
    detectors: tuple[DetectorDiff, ...]

    @property
    def empty(self) -> bool:
        """True when the run flags exactly what was flagged (actions may still differ)."""
        return self.new == 0 and self.gone == 0

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (what the API stores and serves)."""
        return {"same": self.same, "new": self.new, "gone": self.gone, "changed_actions": self.changed_actions,
                "empty": self.empty, "detectors": [d.to_json() for d in self.detectors]}


def diff(run: Iterable[FlaggedFinding], flagged: Iterable[FlaggedFinding], *, examples: int = EXAMPLES) -> RetroDiff:
    """Compare by finding id (content-derived: the same events give the same id), per detector.
    A finding flagged twice on one side (it cannot be, ids are unique; a stream's redelivery is
    collapsed by the API) counts once."""
    now = {f.finding_id: f for f in run}
    then = {f.finding_id: f for f in flagged}
    names = sorted({f.detector for f in now.values()} | {f.detector for f in then.values()})
    same: Counter[str] = Counter()
    changed: dict[str, list[tuple[FlaggedFinding, FlaggedFinding]]] = {n: [] for n in names}
    new: dict[str, list[FlaggedFinding]] = {n: [] for n in names}
    gone: dict[str, list[FlaggedFinding]] = {n: [] for n in names}
    for fid, f in now.items():
        before = then.get(fid)
        if before is None:
            new[f.detector].append(f)
            continue
        same[f.detector] += 1
        if before.actions != f.actions:
            changed[f.detector].append((before, f))
    for fid, f in then.items():
        if fid not in now:
            gone[f.detector].append(f)
    per = tuple(
        DetectorDiff(
            detector=n, same=same[n], new=len(new[n]), gone=len(gone[n]), changed_actions=len(changed[n]),
            new_examples=tuple(_strongest(new[n], examples)), gone_examples=tuple(_strongest(gone[n], examples)),
            changed_examples=tuple(changed[n][:examples]),
        )
        for n in names
    )
    return RetroDiff(same=sum(same.values()), new=sum(d.new for d in per), gone=sum(d.gone for d in per),
                     changed_actions=sum(d.changed_actions for d in per), detectors=per)


def _strongest(findings: list[FlaggedFinding], n: int) -> list[FlaggedFinding]:
    """The examples an admin should see first: highest score, then earliest."""
    return sorted(findings, key=lambda f: (-f.score, f.ts, f.finding_id))[:n]
