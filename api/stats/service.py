"""Detector statistics: volume, confirm rate (from decisions) and time to decision."""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from api.cases.models import Case
from api.decisions.models import Decision
from api.findings.models import FindingRow


@dataclass(frozen=True, slots=True)
class DetectorStats:
    """One detector's numbers since `since`."""

    detector: str
    findings: int
    cases: int
    confirmed: int
    dismissed: int
    confirm_rate: float | None
    median_hours_to_decision: float | None


def detector_stats(session: Session, *, since: datetime | None) -> list[DetectorStats]:
    """Per detector; a case counts as confirmed/dismissed by its first such decision."""
    volume = select(FindingRow.detector, func.count(), func.count(func.distinct(FindingRow.case_id)))
    if since:
        volume = volume.where(FindingRow.ingested_at >= since)
    counts = {d: (int(n), int(c)) for d, n, c in session.execute(volume.group_by(FindingRow.detector))}
    first = (
        select(Decision.case_id, Decision.kind, func.min(Decision.created_at).label("at"))
        .where(Decision.kind.in_(("confirm", "dismiss")))
        .group_by(Decision.case_id, Decision.kind).subquery()
    )
    rows = session.execute(
        select(FindingRow.detector, first.c.case_id, first.c.kind, first.c.at, Case.created_at)
        .join(first, first.c.case_id == FindingRow.case_id)
        .join(Case, Case.id == FindingRow.case_id)
        .distinct()
    )
    outcome: dict[str, dict[str, tuple[str, datetime, datetime]]] = defaultdict(dict)
    for detector, case_id, kind, at, created in rows:
        seen = outcome[detector].get(case_id)
        if seen is None or at < seen[1]:
            outcome[detector][case_id] = (kind, at, created)
    return [_stats_for(d, counts.get(d, (0, 0)), outcome.get(d, {})) for d in sorted(counts)]


def _stats_for(detector: str, volume: tuple[int, int],
               outcome: dict[str, tuple[str, datetime, datetime]]) -> DetectorStats:
    confirmed = sum(1 for kind, _, _ in outcome.values() if kind == "confirm")
    dismissed = len(outcome) - confirmed
    hours = [(at - created).total_seconds() / 3600 for _, at, created in outcome.values()]
    return DetectorStats(
        detector, volume[0], volume[1], confirmed, dismissed,
        round(confirmed / len(outcome), 4) if outcome else None,
        round(statistics.median(hours), 3) if hours else None,
    )


def summary(session: Session) -> dict[str, int]:
    """Totals for dashboards and the demo's status line."""
    return {
        "findings": int(session.scalar(select(func.count()).select_from(FindingRow)) or 0),
        "cases": int(session.scalar(select(func.count()).select_from(Case)) or 0),
        "open_cases": int(session.scalar(select(func.count()).select_from(Case).where(Case.status == "open")) or 0),
    }
