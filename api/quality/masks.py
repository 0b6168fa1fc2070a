"""What a quality copy's own case page leaves out: the case it was copied from.

The copy keeps its players, so their histories on its page would list the original case, its
findings (the same lines) and the sanction it led to: the answer, one scroll down. On the copy's
page those rows are left out, as they would be absent had the case just arrived; on every other
page the original stays visible (see docs/reviewer-quality.md for what a reviewer can still find).
"""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.players.service import PlayerHistory
from api.quality.models import QualityItem


def source_of(session: Session, *, case_id: str) -> str | None:
    """The case a live copy was made from; None for any other case (one index probe)."""
    return session.scalar(select(QualityItem.source_case_id).where(QualityItem.copy_case_id == case_id,
                                                                   QualityItem.live_source.is_not(None)))


def histories_for(session: Session, *, case_id: str, histories: list[PlayerHistory]) -> list[PlayerHistory]:
    """The players' histories as the page of `case_id` shows them."""
    source = source_of(session, case_id=case_id)
    if source is None:
        return histories
    return [replace(h, findings=[f for f in h.findings if f.case_id != source],
                    cases=[c for c in h.cases if c.id != source],
                    sanctions=[s for s in h.sanctions if s.case_id != source]) for h in histories]
