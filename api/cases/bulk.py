"""Bulk close: many cases, one reason, one transaction; a decision and an audit entry per case.

The common use: a seat queue full of hit-and-runs the policy already blocked automatically. Each case
gets the Decision a single close would (confirm for `actioned`, dismiss for `dismissed`) and a
`case.bulk_close` audit entry naming the shared bulk id, so every case's history says who closed it,
why, and together with which others. Cases the action must not touch are skipped with the reason:
already closed, claimed live by someone else, escalated (seniors only), or (for `actioned`)
proposals still waiting for a person, which need their own decision.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from api.audit import service as audit
from api.auth.roles import allowed
from api.auth.service import Principal
from api.cases import queue
from api.cases import service as cases
from api.cases.models import CLOSED_STATUSES, Case, CaseAction
from api.cases.queue_schemas import BULK_MAX, BulkCloseRequest, BulkCloseResult, Skipped
from api.db import lock_for_write
from api.decisions.models import Decision
from api.errors import ConflictError, ForbiddenError
from api.ids import new_id
from api.quality import answers as quality

DECISION_OF = {"actioned": "confirm", "dismissed": "dismiss"}


def selection(session: Session, *, request: BulkCloseRequest, principal: Principal, now: datetime) -> list[str]:
    """The case ids the request means; a filter whose count moved since the user saw it is a 409."""
    if request.case_ids is not None:
        return list(dict.fromkeys(request.case_ids))
    assert request.filter is not None and request.expected is not None
    f = request.filter.to_filter(me=principal.user_id, created_before=request.filter.created_before or now)
    ids = queue.ids_matching(session, f=f, now=now, limit=BULK_MAX + 1)
    if len(ids) != request.expected:
        shown = f"more than {BULK_MAX}" if len(ids) > BULK_MAX else str(len(ids))
        raise ConflictError(f"the selection changed: {shown} cases match now, {request.expected} did when you "
                            "looked; review the queue again")
    return ids


def run(session: Session, *, request: BulkCloseRequest, principal: Principal, now: datetime) -> BulkCloseResult:
    """Close the selected cases (moderators and seniors); returns what was closed and skipped."""
    if not allowed("sanction", principal.role):
        raise ForbiddenError("bulk close is for moderators and seniors")
    lock_for_write(session)  # SQLite: read the cases and close them as one serial unit
    ids = selection(session, request=request, principal=principal, now=now)
    found = {c.id: c for c in session.scalars(select(Case).where(Case.id.in_(ids)).order_by(Case.id)
                                               .with_for_update())}
    waiting = _with_pending(session, ids) if request.outcome == "actioned" else set()
    bulk_id = new_id("bulk")
    closed: list[str] = []
    skipped: list[Skipped] = []
    entries: list[tuple[str, dict[str, object]]] = []
    for case_id in ids:
        case = found.get(case_id)
        why = _why_not(case, principal=principal, waiting=case_id in waiting, now=now)
        if why is not None or case is None:
            skipped.append(Skipped(case_id=case_id, reason=why or "no such case"))
            continue
        decision = _close(session, case=case, outcome=request.outcome, reason=request.reason,
                          principal=principal, now=now)
        closed.append(case_id)
        entries.append((case_id, {"bulk_id": bulk_id, "outcome": request.outcome, "reason": request.reason,
                                  "decision_id": decision.id, "selected": len(ids)}))
    audit.append_many(session, actor=principal.username, action="case.bulk_close", entity_type="case",
                      entries=entries, now=now)
    quality.closed_in_bulk(session, case_ids=closed, kind=DECISION_OF[request.outcome], reason=request.reason,
                           principal=principal, now=now)  # quality copies: graded and removed
    session.commit()
    return BulkCloseResult(bulk_id=bulk_id, outcome=request.outcome, closed=closed, skipped=skipped)


def _with_pending(session: Session, ids: list[str]) -> set[str]:
    stmt = select(CaseAction.case_id).where(CaseAction.case_id.in_(ids), CaseAction.status == "pending")
    return set(session.scalars(stmt))


def _why_not(case: Case | None, *, principal: Principal, waiting: bool, now: datetime) -> str | None:
    if case is None:
        return "no such case"
    if case.status in CLOSED_STATUSES:
        return f"already closed ({case.status})"
    live = case.claim_expires_at is not None and case.claim_expires_at > now
    if live and case.assignee_id not in (None, principal.user_id):
        return f"claimed by user {case.assignee_id}; take it over on its page first"
    if case.status == "escalated" and principal.role != "senior":
        return "escalated: a senior decides it"
    if waiting:
        return "proposals wait for review; decide it on its page"
    return None


def _close(session: Session, *, case: Case, outcome: str, reason: str, principal: Principal,
           now: datetime) -> Decision:
    decision = Decision(id=new_id("dec"), case_id=case.id, kind=DECISION_OF[outcome], reason=reason,
                        user_id=principal.user_id, created_at=now)
    session.add(decision)
    if outcome == "dismissed":
        session.execute(update(CaseAction).where(CaseAction.case_id == case.id, CaseAction.status == "pending")
                        .values(status="dropped"))
    cases.close(case, status=outcome, now=now)
    return decision
