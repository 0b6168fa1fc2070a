"""Appeals: reopen a closed case with its original evidence; a senior upholds or overturns it."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.appeals.models import Appeal
from api.audit import service as audit
from api.auth.service import Principal
from api.cases import service as cases
from api.cases.models import CLOSED_STATUSES
from api.errors import ConflictError, NotFoundError
from api.ids import new_id
from api.sanctions import service as sanctions
from api.sanctions.models import Sanction


def open_appeal(session: Session, *, case_id: str, statement: str, principal: Principal, now: datetime) -> Appeal:
    """Reopen a closed case for review; it keeps its findings and does not absorb new ones."""
    case = cases.get(session, case_id=case_id)
    if case.status not in CLOSED_STATUSES:
        raise ConflictError(f"case {case_id} is {case.status}; only closed cases can be appealed")
    if session.scalar(select(Appeal.id).where(Appeal.case_id == case_id, Appeal.status == "open")):
        raise ConflictError(f"case {case_id} already has an open appeal")
    appeal = Appeal(id=new_id("apl"), case_id=case_id, statement=statement, status="open",
                    created_by=principal.user_id, created_at=now)
    session.add(appeal)
    case.status, case.reopened, case.updated_at = "appealed", case.reopened + 1, now
    session.flush()
    audit.append(session, actor=principal.username, action="appeal.open", entity_type="case", entity_id=case_id,
                 payload={"appeal_id": appeal.id, "statement": statement}, now=now)
    session.commit()
    return appeal


def resolve(session: Session, *, appeal_id: str, outcome: str, reason: str, principal: Principal,
            now: datetime) -> Appeal:
    """Upheld: sanctions stand, case closes as actioned. Overturned: sanctions revoked, case dismissed."""
    appeal = session.get(Appeal, appeal_id)
    if appeal is None:
        raise NotFoundError(f"no appeal {appeal_id!r}")
    if appeal.status != "open":
        raise ConflictError(f"appeal {appeal_id} is already {appeal.status}")
    case = cases.get(session, case_id=appeal.case_id)
    live = list(session.scalars(select(Sanction).where(Sanction.case_id == case.id,
                                                       Sanction.status.in_(("active", "pending_review")))))
    if outcome == "overturned":
        for s in live:
            sanctions.revoke(session, sanction_id=s.id, reason=f"appeal overturned: {reason}",
                             actor=principal.username, now=now, commit=False)
    appeal.status, appeal.resolution, appeal.resolved_by, appeal.resolved_at = outcome, reason, principal.user_id, now
    final = "actioned" if outcome == "upheld" and live else "dismissed"
    cases.close(case, status=final, now=now)
    audit.append(session, actor=principal.username, action=f"appeal.{outcome}", entity_type="case",
                 entity_id=case.id, payload={"appeal_id": appeal.id, "reason": reason}, now=now)
    session.commit()
    return appeal


def search(session: Session, *, status: str | None, limit: int, offset: int) -> list[Appeal]:
    """Appeals, newest first."""
    stmt = select(Appeal)
    if status:
        stmt = stmt.where(Appeal.status == status)
    return list(session.scalars(stmt.order_by(Appeal.created_at.desc()).limit(limit).offset(offset)))
