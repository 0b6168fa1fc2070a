"""A player's history across findings, cases and sanctions."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.cases.models import Case
from api.findings.models import FindingRow
from api.sanctions.models import Sanction


@dataclass(frozen=True, slots=True)
class PlayerHistory:
    """Most recent findings, cases and sanctions where the player is the main subject."""

    player_id: str
    findings: list[FindingRow]
    cases: list[Case]
    sanctions: list[Sanction]


def history(session: Session, *, player_id: str, limit: int) -> PlayerHistory:
    """Newest first, `limit` of each."""
    findings = session.scalars(select(FindingRow).where(FindingRow.subject_id == player_id)
                               .order_by(FindingRow.ts.desc()).limit(limit))
    cases = session.scalars(select(Case).where(Case.subject_id == player_id)
                            .order_by(Case.created_at.desc()).limit(limit))
    sanctions = session.scalars(select(Sanction).where(Sanction.player_id == player_id)
                                .order_by(Sanction.created_at.desc()).limit(limit))
    return PlayerHistory(player_id, list(findings), list(cases), list(sanctions))
