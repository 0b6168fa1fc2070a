"""Executes retroactive runs: reads the range from the archive and/or Kafka, runs it through the
pipeline built for the run's policy revision (as `railbird consume` builds it), diffs it against
the findings stored at the time and records progress, result or error (api/retro/service.py)."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from api.retro import service
from api.retro.models import RetroRun
from consumers.archive import ArchivedRecord, coverage, read_range
from pipeline.retro import Progress, RetroWindow, diff, run_window
from pipeline.runner import Pipeline
from railbird.settings import Settings
from railbird.wiring import chat_lateness, make_detector_factory, rules_from

log = logging.getLogger("railbird.retro")

RECORD_SLACK = timedelta(minutes=5)
"""Kafka record time may trail the event time (a game server's retry, a producer's batch): the
sources read this much more record time on each side; events are then picked by their own time."""
TAIL_EXTRA = timedelta(seconds=60)
PROGRESS_EVERY_S = 2.0


class NoDataError(Exception):
    """The range holds no stored events: the run fails with this reason."""


def archive_root(settings: Settings) -> Path:
    """Where `railbird archive` keeps its hour directories."""
    return settings.data_dir / "archive"


def worker_name() -> str:
    """This process, as recorded on the runs it holds."""
    return f"{socket.gethostname()}-{os.getpid()}"


@dataclass(frozen=True, slots=True)
class Sources:
    """Where a run's records come from; the Kafka reader is built only when it is needed."""

    archive: Path
    kafka: Callable[[int, int], Iterator[ArchivedRecord]]

    def read(self, source: str, start: datetime, end: datetime, used: Usage) -> Iterator[ArchivedRecord]:
        """Records of record time [start, end): `archive`, `kafka`, or `auto` (Kafka for the time
        before the archive's first hour, the archive from there). With `auto`, Kafka failing on its
        part (unreachable, or retention gone) is a warning on the result, not the run's failure:
        that part is mostly warm-up, and the warning says why stateful findings may then differ."""
        lo, hi = _ms(start), _ms(end)
        held = coverage(self.archive) if source != "kafka" else None
        split = hi if source == "kafka" or held is None else min(hi, max(lo, _ms(held[0])))
        if source == "archive":
            split = lo
        if split > lo:
            try:
                for record in self.kafka(lo, split):
                    used.counts["kafka"] = used.counts.get("kafka", 0) + 1
                    yield record
            except Exception as exc:
                if source != "auto":
                    raise
                used.warnings.append(f"Kafka could not be read before the archive's first hour "
                                     f"({_iso(lo)} to {_iso(split)}): {type(exc).__name__}: {exc}")
        if split < hi:
            for record in read_range(self.archive, split, hi):
                used.counts["archive"] = used.counts.get("archive", 0) + 1
                yield record


@dataclass(slots=True)
class Usage:
    """Records read per source, and what a run should know about its sources."""

    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat()


def _ms(ts: datetime) -> int:
    return int(ts.timestamp() * 1000)


def kafka_reader(settings: Settings) -> Callable[[int, int], Iterator[ArchivedRecord]]:
    """A time-range reader of the input topics (kafka-python imported only when used)."""
    def read(lo: int, hi: int) -> Iterator[ArchivedRecord]:
        from consumers.archiver import KafkaRangeReader

        return KafkaRangeReader(settings.kafka_bootstrap).read(lo, hi)
    return read


def execute(run: RetroRun, *, settings: Settings, session: Session, sources: Sources, worker: str,
            clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> dict[str, Any]:
    """Run one claimed run to its result (stored, audited); raises on failure (the caller records it)."""
    wall, cpu = time.perf_counter(), time.process_time()
    policy = service.revision_policy(session, run.policy_revision, default_version=settings.rules_version)
    rules = rules_from(settings, policy)
    pipeline = Pipeline(make_detector_factory(settings, policy)(), rules=rules)
    window = RetroWindow(run.range_start, run.range_end, warmup=timedelta(seconds=run.warmup_s),
                         tail=chat_lateness(settings) + TAIL_EXTRA)
    wanted = frozenset(run.detectors) if run.detectors is not None else None
    used = Usage()
    records = sources.read(run.source, window.feed_start - RECORD_SLACK, window.feed_end + RECORD_SLACK, used)
    last = [time.monotonic()]

    def report(p: Progress) -> None:
        if time.monotonic() - last[0] >= PROGRESS_EVERY_S:
            last[0] = time.monotonic()
            service.progress(session, run.id, fraction=p.fraction(window), events_read=p.events_read,
                             findings=p.findings, now=clock())

    result = run_window(pipeline, ((r.topic, r.value) for r in records), window, detectors=wanted,
                        progress=report, progress_every=5_000)
    if result.events_in_range == 0:
        raise NoDataError(f"no stored events between {run.range_start.isoformat()} and {run.range_end.isoformat()} "
                          f"(source {run.source}; records read: {result.events_read})")
    flagged = service.flagged_between(session, run.range_start, run.range_end, run.detectors)
    changes = diff(result.findings, flagged)
    wall_s, cpu_s = time.perf_counter() - wall, time.process_time() - cpu
    out = {
        "diff": changes.to_json(),
        "flagged_then": len(flagged), "found_now": len(result.findings),
        "events_read": result.events_read, "events_fed": result.events_fed,
        "events_in_range": result.events_in_range, "dead_letters": result.dead_letters,
        "skipped_other_topics": result.skipped,
        "detector_errors": result.detector_errors, "errors": result.errors,
        "records_by_source": used.counts, "warnings": used.warnings, "wall_s": round(wall_s, 2), "cpu_s": round(cpu_s, 2),
        "events_per_s": round(result.events_read / wall_s) if wall_s > 0 else None,
        "rules_version": rules.version,
    }
    service.finish(session, run.id, result=out, events_read=result.events_read, findings=len(result.findings),
                   worker=worker, now=clock())
    return out


def run_claimed(run: RetroRun, *, settings: Settings, sessions: sessionmaker[Session], sources: Sources,
                worker: str, clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> RetroRun:
    """Execute a claimed run; a failure of any kind is recorded on the run with its reason."""
    with sessions() as session:
        try:
            execute(run, settings=settings, session=session, sources=sources, worker=worker, clock=clock)
        except NoDataError as exc:
            return service.fail(session, run.id, error=str(exc), worker=worker, now=clock())
        except (Exception, SystemExit) as exc:  # a run's failure (a model that cannot load too) is its result
            log.exception("retroactive run %s failed", run.id)
            return service.fail(session, run.id, error=f"{type(exc).__name__}: {exc}", worker=worker, now=clock())
        return service.get(session, run.id)


def work(*, settings: Settings, sessions: sessionmaker[Session], sources: Sources, stop: threading.Event,
         once: bool = False, poll_s: float = 2.0) -> int:
    """Execute queued runs one after another until `stop` (or, `once`, until the queue is empty);
    returns how many ran."""
    worker, done = worker_name(), 0
    while not stop.is_set():
        with sessions() as session:
            run = service.claim(session, worker=worker, now=datetime.now(UTC))
            if run is not None:
                session.expunge(run)
        if run is None:
            if once:
                break
            stop.wait(poll_s)
            continue
        log.info("retroactive run %s: %s to %s", run.id, run.range_start, run.range_end)
        finished = run_claimed(run, settings=settings, sessions=sessions, sources=sources, worker=worker)
        log.info("retroactive run %s %s", run.id, finished.status)
        done += 1
    return done
