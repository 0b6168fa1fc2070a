"""Queue, claim, progress and finish retroactive runs; read what was flagged at the time. Audited.

The API only queues and reads runs; `railbird retro work` (railbird/retro_jobs.py) executes them,
so a run over a day of events never holds an API worker, and the API process needs no Kafka.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Final, Literal

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from api.audit import service as audit
from api.errors import InvalidError, NotFoundError
from api.findings.models import FindingRow
from api.ids import new_id
from api.policy.models import PolicyRevision
from api.policy.rules import PolicySettings
from api.retro.models import RetroRun
from consumers.archive import coverage, holds
from pipeline.retro import FlaggedFinding, unknown_detectors

Source = Literal["auto", "archive", "kafka"]
SOURCES: Final = ("auto", "archive", "kafka")
STALE_AFTER: Final = timedelta(minutes=10)
"""A running run whose worker wrote no progress for this long is taken over by another worker."""
MAX_WARMUP: Final = timedelta(days=31)


@dataclass(frozen=True, slots=True)
class RetroRequest:
    """What an admin asks for."""

    start: datetime
    end: datetime
    detectors: tuple[str, ...] | None = None
    policy_revision: int | None = None
    """None: the revision in force now."""
    source: Source = "auto"
    warmup: timedelta = timedelta(hours=13)
    """Event time fed before the range to rebuild detector state (the stream's own lookback)."""
    reason: str = ""


@dataclass(frozen=True, slots=True)
class RetroLimits:
    """What a request is checked against: where events are kept, for how long, which detectors exist."""

    archive_root: Path
    retention_days: int
    known_detectors: tuple[str, ...]


def create(session: Session, *, request: RetroRequest, limits: RetroLimits, actor: str, now: datetime) -> RetroRun:
    """Queue a run after checking it; InvalidError (422) with the reason otherwise. Audited."""
    _check_range(request, limits, now)
    if request.detectors is not None:
        if not request.detectors:
            raise InvalidError("detectors: name at least one detector, or leave it out for every detector")
        if bad := unknown_detectors(request.detectors, limits.known_detectors):
            raise InvalidError(f"unknown detector(s) {bad}; known: {list(limits.known_detectors)}")
    if request.source not in SOURCES:
        raise InvalidError(f"source must be one of {list(SOURCES)}")
    if not timedelta(0) <= request.warmup <= MAX_WARMUP:
        raise InvalidError(f"warmup must be within 0 and {MAX_WARMUP.days} days")
    revision = newest_revision(session) if request.policy_revision is None else request.policy_revision
    if revision < 0 or (revision > 0 and session.get(PolicyRevision, revision) is None):
        raise InvalidError(f"policy revision {revision} does not exist; the newest is {newest_revision(session)}")
    if request.source != "kafka":
        _check_archive(request, limits.archive_root)
    run = RetroRun(
        id=new_id("retro"), status="queued", range_start=request.start, range_end=request.end,
        detectors=sorted(set(request.detectors)) if request.detectors is not None else None,
        policy_revision=revision, source=request.source, warmup_s=int(request.warmup.total_seconds()),
        reason=request.reason, requested_by=actor, requested_at=now, progress=0.0, events_read=0, findings=0,
    )
    session.add(run)
    session.flush()
    audit.append(session, actor=actor, action="retro_run.create", entity_type="retro_run", entity_id=run.id,
                 payload={"start": request.start.isoformat(), "end": request.end.isoformat(),
                          "detectors": run.detectors, "policy_revision": revision, "source": request.source,
                          "warmup_s": run.warmup_s, "reason": request.reason}, now=now)
    session.commit()
    return run


def _check_range(request: RetroRequest, limits: RetroLimits, now: datetime) -> None:
    start, end = request.start, request.end
    if start.tzinfo is None or end.tzinfo is None:
        raise InvalidError("start and end need a UTC offset")
    if end <= start:
        raise InvalidError(f"end ({end.isoformat()}) must be after start ({start.isoformat()})")
    if end > now:
        raise InvalidError(f"end ({end.isoformat()}) is in the future; a retroactive run covers the past")
    if limits.retention_days > 0 and start < now - timedelta(days=limits.retention_days):
        raise InvalidError(f"start ({start.isoformat()}) is older than the {limits.retention_days}-day retention; "
                           "no events are kept that long")


def _check_archive(request: RetroRequest, root: Path) -> None:
    """No data: refused when the archive is asked and holds nothing in the range. `auto` reads Kafka
    for the time before the archive's first hour, so only a range within the archive's time is
    refused for it (an hour without a directory there had no traffic)."""
    if holds(root, request.start, request.end):
        return
    held = coverage(root)
    if request.source == "archive" or (held is not None and request.start >= held[0]):
        where = f"it holds {held[0].isoformat()} to {held[1].isoformat()}" if held else "it is empty"
        raise InvalidError(f"no events are archived between {request.start.isoformat()} and "
                           f"{request.end.isoformat()} ({where})")


def newest_revision(session: Session) -> int:
    """The revision in force (0 when an admin never changed the policy)."""
    return int(session.scalar(select(PolicyRevision.revision).order_by(PolicyRevision.revision.desc()).limit(1)) or 0)


def revision_policy(session: Session, revision: int, *, default_version: str) -> PolicySettings:
    """The live part of a policy revision (0: the process settings' rules version); a revision's
    shadow candidates are not part of a retroactive run: it shows what the live policy would do."""
    if revision == 0:
        return PolicySettings(rules_version=default_version)
    row = session.get(PolicyRevision, revision)
    if row is None:
        raise NotFoundError(f"policy revision {revision} does not exist")
    return PolicySettings(
        rules_version=row.rules_version, auto_mute_enabled=row.auto_mute_enabled,
        auto_mute_min_score=row.auto_mute_min_score, auto_mute_minutes=row.auto_mute_minutes,
        category_thresholds=dict(row.category_thresholds or {}),
    )


def get(session: Session, run_id: str) -> RetroRun:
    """One run, or NotFoundError."""
    run = session.get(RetroRun, run_id)
    if run is None:
        raise NotFoundError(f"no retroactive run {run_id!r}")
    return run


def recent(session: Session, *, limit: int = 20) -> list[RetroRun]:
    """The newest runs first."""
    return list(session.scalars(select(RetroRun).order_by(RetroRun.requested_at.desc(), RetroRun.id).limit(limit)))


def claim(session: Session, *, worker: str, now: datetime, run_id: str | None = None) -> RetroRun | None:
    """Take the oldest queued run (or `run_id`), or one whose worker went silent; None if none.
    A conditional update: two workers never both hold a run."""
    stale = now - STALE_AFTER
    waiting = or_(RetroRun.status == "queued", (RetroRun.status == "running") & (RetroRun.heartbeat_at < stale))
    stmt = select(RetroRun.id, RetroRun.status).where(waiting).order_by(RetroRun.requested_at, RetroRun.id)
    if run_id is not None:
        stmt = stmt.where(RetroRun.id == run_id)
    for candidate, status in session.execute(stmt.limit(5)).all():
        took = session.execute(
            update(RetroRun).where(RetroRun.id == candidate, RetroRun.status == status, waiting)
            .values(status="running", worker=worker, started_at=now, heartbeat_at=now, error=None)
        )
        if took.rowcount == 1:  # type: ignore[attr-defined]
            session.commit()
            return get(session, candidate)
        session.rollback()
    return None


def progress(session: Session, run_id: str, *, fraction: float, events_read: int, findings: int,
             now: datetime) -> None:
    """The worker's heartbeat with how far it is."""
    session.execute(update(RetroRun).where(RetroRun.id == run_id).values(
        progress=round(min(1.0, max(0.0, fraction)), 4), events_read=events_read, findings=findings,
        heartbeat_at=now))
    session.commit()


def finish(session: Session, run_id: str, *, result: dict[str, Any], events_read: int, findings: int,
           worker: str, now: datetime) -> RetroRun:
    """Store the diff; audited with its totals."""
    run = get(session, run_id)
    run.status, run.result, run.progress, run.finished_at = "done", result, 1.0, now
    run.events_read, run.findings, run.heartbeat_at = events_read, findings, now
    diff = result.get("diff", {})
    audit.append(session, actor=worker, action="retro_run.done", entity_type="retro_run", entity_id=run_id,
                 payload={k: diff.get(k) for k in ("same", "new", "gone", "changed_actions")}
                 | {"events_read": events_read}, now=now)
    session.commit()
    return run


def fail(session: Session, run_id: str, *, error: str, worker: str, now: datetime) -> RetroRun:
    """Record why a run failed; audited."""
    session.rollback()
    run = get(session, run_id)
    run.status, run.error, run.finished_at, run.heartbeat_at = "failed", error[:4000], now, now
    audit.append(session, actor=worker, action="retro_run.fail", entity_type="retro_run", entity_id=run_id,
                 payload={"error": error[:500]}, now=now)
    session.commit()
    return run


def flagged_between(session: Session, start: datetime, end: datetime,
                    detectors: Sequence[str] | None = None) -> list[FlaggedFinding]:
    """The findings stored with a time in [start, end): what was flagged at the time."""
    stmt = select(FindingRow.finding_id, FindingRow.detector, FindingRow.ts, FindingRow.subject_id,
                  FindingRow.category, FindingRow.score, FindingRow.summary, FindingRow.document
                  ).where(FindingRow.ts >= start, FindingRow.ts < end)
    if detectors is not None:
        stmt = stmt.where(FindingRow.detector.in_(list(detectors)))
    return [
        FlaggedFinding(fid, det, ts, subject, category, score, summary, _action_kinds(doc))
        for fid, det, ts, subject, category, score, summary, doc in session.execute(stmt)
    ]


def _action_kinds(document: dict[str, Any] | None) -> tuple[str, ...]:
    actions = (document or {}).get("actions") or []
    return tuple(f"{a.get('kind')}:{a.get('disposition')}" for a in actions if isinstance(a, dict))
