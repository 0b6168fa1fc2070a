"""A player's history across findings, cases and sanctions."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.cases.models import Case
from api.findings.models import FindingPlayer, FindingRow
from api.sanctions.models import Sanction


@dataclass(frozen=True, slots=True)
class PlayerHistory:
    """Most recent findings and cases naming the player (as subject, partner, victim or target) and
    the player's own sanctions."""

    player_id: str
    findings: list[FindingRow]
    cases: list[Case]
    sanctions: list[Sanction]


def history(session: Session, *, player_id: str, limit: int) -> PlayerHistory:
    """Newest first, `limit` of each."""
    # Two index range scans (as subject, as another named player), merged: an OR would not seek.
    own = session.scalars(select(FindingRow).where(FindingRow.subject_id == player_id)
                          .order_by(FindingRow.ts.desc(), FindingRow.finding_id).limit(limit))
    named = session.scalars(
        select(FindingRow).join(FindingPlayer, FindingPlayer.finding_id == FindingRow.finding_id)
        .where(FindingPlayer.player_id == player_id)
        .order_by(FindingPlayer.ts.desc(), FindingRow.finding_id).limit(limit))
    by_id = {f.finding_id: f for f in (*own, *named)}
    findings = sorted(by_id.values(), key=lambda f: (-f.ts.timestamp(), f.finding_id))[:limit]
    # The same for cases: as subject (`ix_cases_subject`), as a named player (`finding_players`).
    # One query with an OR read every case at 1M cases (0.25 s per player page and case page).
    named_in = select(FindingPlayer.case_id).where(FindingPlayer.player_id == player_id)
    order = (Case.created_at.desc(), Case.id)
    as_subject = session.scalars(select(Case).where(Case.subject_id == player_id).order_by(*order).limit(limit))
    as_named = session.scalars(select(Case).where(Case.id.in_(named_in)).order_by(*order).limit(limit))
    by_case = {c.id: c for c in (*as_subject, *as_named)}
    cases = sorted(by_case.values(), key=lambda c: (-c.created_at.timestamp(), c.id))[:limit]
    sanctions = session.scalars(select(Sanction).where(Sanction.player_id == player_id)
                                .order_by(Sanction.created_at.desc()).limit(limit))
    return PlayerHistory(player_id, findings, cases, list(sanctions))
