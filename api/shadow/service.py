"""Shadow findings: stored apart, listed, and compared with the live findings per detector.

Nothing here creates a case, a proposal, a sanction or an outbox event: a shadow finding's actions
are kept in its document only, to show what it would have done.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import ColumnElement, and_, exists, func, select
from sqlalchemy.orm import InstrumentedAttribute, Session

from api.findings.models import FindingRow
from api.policy.models import PolicyRevision
from api.policy.service import ActivePolicy, shadow_of
from api.shadow.models import ShadowFindingRow
from api.upsert import insert_many_ignore
from pipeline.findings import Finding
from pipeline.shadow_sample import in_share

EXAMPLES = 3
"""Examples per kind (agreeing, extra, missing) in a comparison."""


@dataclass(slots=True)
class ShadowIngest:
    """What one batch's shadow findings did."""

    accepted: int = 0
    duplicates: int = 0


def store(session: Session, *, findings: list[Finding], now: datetime) -> ShadowIngest:
    """Insert the shadow findings not stored yet (by finding id); the caller commits."""
    result = ShadowIngest()
    rows = sorted((_row(f, now) for f in {f.finding_id: f for f in findings}.values()),
                  key=lambda r: str(r["finding_id"]))
    inserted = insert_many_ignore(session, ShadowFindingRow, rows, ("finding_id",))
    result.accepted = len(inserted)
    result.duplicates = len(findings) - result.accepted
    return result


def _row(finding: Finding, now: datetime) -> dict[str, object]:
    return {
        "finding_id": finding.finding_id, "detector": finding.detector, "rule": finding.rule,
        "family": finding.family, "category": finding.category, "score": finding.score,
        "subject_id": finding.subject, "players": list(finding.players), "ts": finding.ts,
        "table_id": finding.table_id, "tournament_id": finding.tournament_id, "summary": finding.summary,
        "automatic": sum(1 for a in finding.actions if a.disposition == "automatic"),
        "document": finding.model_dump(mode="json"), "ingested_at": now,
    }


def since(session: Session, policy: ActivePolicy) -> datetime | None:
    """When the shadow configuration in force took effect: the time of the first revision of the
    unbroken run of revisions that have it (None: shadow mode is off, or came from no revision)."""
    current = policy.settings.shadow
    if not current.enabled:
        return None
    start: datetime | None = None
    for row in session.scalars(select(PolicyRevision).order_by(PolicyRevision.revision.desc())):
        if shadow_of(row) != current:
            break
        start = row.changed_at
    return start


def search(session: Session, *, detector: str | None, family: str | None, category: str | None,
           player_id: str | None, start: datetime | None, end: datetime | None,
           limit: int, offset: int) -> list[ShadowFindingRow]:
    """Shadow findings filtered by detector, family, category, subject and event time; newest first."""
    stmt = select(ShadowFindingRow)
    for column, value in ((ShadowFindingRow.detector, detector), (ShadowFindingRow.family, family),
                          (ShadowFindingRow.category, category), (ShadowFindingRow.subject_id, player_id)):
        if value:
            stmt = stmt.where(column == value)
    if start is not None:
        stmt = stmt.where(ShadowFindingRow.ts >= start)
    if end is not None:
        stmt = stmt.where(ShadowFindingRow.ts < end)
    stmt = stmt.order_by(ShadowFindingRow.ts.desc(), ShadowFindingRow.finding_id).limit(limit).offset(offset)
    return list(session.scalars(stmt))


@dataclass(frozen=True, slots=True)
class Example:
    """One finding of a comparison, as the console lists it."""

    finding_id: str
    ts: datetime
    category: str
    score: float
    subject_id: str
    summary: str


@dataclass(slots=True)
class DetectorComparison:
    """Live against shadow for one detector over a period (findings by event time)."""

    detector: str
    agreeing: int = 0
    """Found by both (same finding id)."""
    extra: int = 0
    """Found by the shadow copy only."""
    missing: int = 0
    """Found live only: the candidate would have missed them."""
    examples: dict[str, list[Example]] = field(default_factory=dict)


def compare(session: Session, *, detectors: list[str], start: datetime | None, end: datetime | None,
            examples: int = EXAMPLES, share: float = 1.0) -> list[DetectorComparison]:
    """Per detector: agreeing, extra and missing findings in [start, end), with a few examples each.
    Three counts and three short example queries per detector, on the (detector, ts) indexes.
    `share` below 1: the shadow copies saw only the sampled players, so a live finding is missing
    only when its player is one of them (`pipeline.shadow.in_share`, the consumers' own choice)."""
    return [_compare(session, name, start, end, examples, share) for name in detectors]


def _compare(session: Session, name: str, start: datetime | None, end: datetime | None,
             examples: int, share: float) -> DetectorComparison:
    s, f = ShadowFindingRow, FindingRow
    live_has = exists().where(f.finding_id == s.finding_id)
    shadow_has = exists().where(s.finding_id == f.finding_id)
    shadow_in = and_(s.detector == name, *_period(s.ts, start, end))
    live_in = and_(f.detector == name, *_period(f.ts, start, end))
    out = DetectorComparison(detector=name)
    out.agreeing, out.examples["agreeing"] = _kind(session, s, and_(shadow_in, live_has), examples)
    out.extra, out.examples["extra"] = _kind(session, s, and_(shadow_in, ~live_has), examples)
    if share >= 1.0:
        out.missing, out.examples["missing"] = _kind(session, f, and_(live_in, ~shadow_has), examples)
    else:
        out.missing, out.examples["missing"] = _sampled_missing(session, and_(live_in, ~shadow_has), examples, share)
    return out


def _sampled_missing(session: Session, where: ColumnElement[bool], examples: int,
                     share: float) -> tuple[int, list[Example]]:
    """Live-only findings of the sampled players: read and chosen here, since the choice is a hash
    of the player the database cannot compute (the rows are those of one period and detector)."""
    f = FindingRow
    rows = session.execute(
        select(f.finding_id, f.ts, f.category, f.score, f.subject_id, f.summary)
        .where(where).order_by(f.ts.desc(), f.finding_id)
    ).all()
    kept = [Example(*row) for row in rows if in_share(row.subject_id, share)]
    return len(kept), kept[:examples]


def _kind(session: Session, model: type[ShadowFindingRow] | type[FindingRow], where: ColumnElement[bool],
          examples: int) -> tuple[int, list[Example]]:
    """How many rows of `model` match, and the newest few."""
    count = session.scalar(select(func.count()).select_from(model).where(where)) or 0
    rows = session.execute(
        select(model.finding_id, model.ts, model.category, model.score, model.subject_id, model.summary)
        .where(where).order_by(model.ts.desc(), model.finding_id).limit(examples)
    ).all()
    return int(count), [Example(*row) for row in rows]


def _period(column: InstrumentedAttribute[datetime], start: datetime | None,
            end: datetime | None) -> list[ColumnElement[bool]]:
    out: list[ColumnElement[bool]] = []
    if start is not None:
        out.append(column >= start)
    if end is not None:
        out.append(column < end)
    return out


def detectors_seen(session: Session) -> list[str]:
    """Detectors that have shadow findings (the comparison's default besides the policy's)."""
    return list(session.scalars(select(ShadowFindingRow.detector).distinct().order_by(ShadowFindingRow.detector)))
