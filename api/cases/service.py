"""Cases: grouping findings, the per-family queue (keyset-paginated), and exclusive claims."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, Select, or_, select, tuple_, update
from sqlalchemy.orm import Session

from api.appeals.models import Appeal
from api.audit import service as audit
from api.auth.models import User
from api.auth.roles import allowed
from api.auth.service import Principal
from api.cases.models import CLOSED_STATUSES, QUEUE_RANK, Case, CaseAction
from api.decisions.models import Decision
from api.errors import ConflictError, ForbiddenError, InvalidError, NotFoundError
from api.findings.models import FindingRow
from api.sanctions.models import Sanction
from api.upsert import insert_many_ignore
from pipeline.categories import AUDIT_SAMPLE
from pipeline.findings import Finding, stable_id

CATEGORY_WEIGHT: dict[str, int] = {
    "threat": 25, "hate": 25, "chip_dumping": 25, "soft_play": 25, "collusive_sit_out": 25,
    "bounty_agreement": 25, "hand_in_play": 20, "collusion_talk": 20, "malicious_link": 20,
    "sexual": 15, "insult": 10, "bumhunting": 10, "hit_and_run": 5,
}
"""Extra priority per category: collusion and threats first, etiquette last."""

ESCALATION_BONUS = 20


def incident_of(finding: Finding) -> str:
    """The incident a finding belongs to: its tournament, else its table, else the player at large;
    an audit sample is an incident of its own (a verdict on one line must not confirm or dismiss
    the player's offences at the table, nor they it)."""
    if finding.category == AUDIT_SAMPLE:
        return f"audit:{finding.finding_id}"
    if finding.tournament_id:
        return f"tournament:{finding.tournament_id}"
    if finding.table_id:
        return f"table:{finding.table_id}"
    return "-"


def open_key_of(finding: Finding) -> str:
    """Grouping rule: same family, same main subject, same incident -> same open case."""
    return f"{finding.family}|{finding.subject}|{incident_of(finding)}"


def priority_of(*, max_score: float, category: str, count: int, escalated: bool = False) -> int:
    """0-100: score dominates, then the category's weight, repeat findings and escalation."""
    raw = round(max_score * 60) + CATEGORY_WEIGHT.get(category, 8) + min(count - 1, 10)
    return min(100, raw + (ESCALATION_BONUS if escalated else 0))


def open_cases_for(session: Session, *, findings: list[Finding], now: datetime) -> dict[str, Case]:
    """open_key -> open case for every group in a batch: one SELECT, one multi-row insert, one re-read."""
    first: dict[str, Finding] = {}
    for f in findings:
        first.setdefault(open_key_of(f), f)
    # FOR UPDATE (PostgreSQL; SQLite holds the write lock already, `api.db.lock_for_write`): the
    # counters read here are written back by `add_finding`, so a concurrent batch must wait, not
    # overwrite them. Key order keeps two batches' row locks from deadlocking.
    found = {c.open_key: c for c in session.scalars(_locked(Case.open_key.in_(list(first))))}
    missing = sorted(k for k in first if k not in found)
    if missing:
        insert_many_ignore(session, Case, [_new_case(k, first[k], now) for k in missing], ("open_key",))
        stmt = _locked(Case.open_key.in_(missing)).execution_options(populate_existing=True)
        found.update({c.open_key: c for c in session.scalars(stmt)})
    if len(found) != len(first):  # a case closed between insert and read: rare, and retryable
        raise ConflictError("a case changed concurrently; retry the batch")
    return {k: v for k, v in found.items() if k is not None}


def _locked(where: ColumnElement[bool]) -> Select[Case]:
    return select(Case).where(where).order_by(Case.open_key).with_for_update()


def _new_case(key: str, finding: Finding, now: datetime) -> dict[str, object]:
    return {"id": stable_id("case", key, finding.finding_id)[:40], "family": finding.family,
            "category": finding.category, "rule": finding.rule, "subject_id": finding.subject,
            "incident": incident_of(finding)[:160], "open_key": key, "status": "open",
            "priority": priority_of(max_score=finding.score, category=finding.category, count=1),
            "max_score": finding.score, "finding_count": 0, "summary": finding.summary[:2000],
            "created_at": now, "updated_at": now, "reopened": 0}


def add_finding(session: Session, *, case: Case, finding: Finding, now: datetime) -> None:
    """Fold a new finding into its case's counters and priority."""
    case.finding_count += 1
    case.max_score = max(case.max_score, finding.score)
    # The headline follows the newest finding: detectors restate their running totals in each one
    # ("26 reports from 9 reporters"), so the first finding's summary goes stale as the case grows.
    case.summary = finding.summary[:2000]
    case.priority = priority_of(max_score=case.max_score, category=case.category, count=case.finding_count,
                                escalated=case.status == "escalated")
    case.updated_at = now


@dataclass(frozen=True, slots=True)
class QueuePage:
    """One page of a queue and the cursor of the next one."""

    items: list[Case]
    next_cursor: str | None


def queue(session: Session, *, family: str | None, status: str, assignee_id: str | None,
          subject_id: str | None, limit: int, cursor: str | None) -> QueuePage:
    """Cases by priority (high first) then age (old first), keyset-paginated for any depth."""
    stmt = select(Case).where(Case.status == status)
    if family:
        stmt = stmt.where(Case.family == family)
    if assignee_id:
        stmt = stmt.where(Case.assignee_id == assignee_id)
    if subject_id:
        stmt = stmt.where(Case.subject_id == subject_id)
    if cursor:
        prio, created, case_id = _decode_cursor(cursor)
        stmt = stmt.where(tuple_(QUEUE_RANK, Case.created_at, Case.id) > tuple_(-prio, created, case_id))
    rows = list(session.scalars(stmt.order_by(QUEUE_RANK, Case.created_at, Case.id).limit(limit + 1)))
    more = len(rows) > limit
    items = rows[:limit]
    return QueuePage(items, _encode_cursor(items[-1]) if more and items else None)


def _encode_cursor(case: Case) -> str:
    raw = json.dumps([case.priority, case.created_at.isoformat(), case.id]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[int, datetime, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        prio, created, case_id = json.loads(raw)
        return int(prio), datetime.fromisoformat(created), str(case_id)
    except (ValueError, TypeError) as exc:
        raise InvalidError("malformed cursor; use next_cursor from the previous page") from exc


def get(session: Session, *, case_id: str) -> Case:
    """The case or NotFoundError."""
    case = session.get(Case, case_id)
    if case is None:
        raise NotFoundError(f"no case {case_id!r}")
    return case


@dataclass(frozen=True, slots=True)
class CaseBundle:
    """A case with everything the case page shows."""

    case: Case
    findings: list[FindingRow]
    actions: list[CaseAction]
    decisions: list[Decision]
    sanctions: list[Sanction]
    appeals: list[Appeal]


def bundle(session: Session, *, case_id: str) -> CaseBundle:
    """Load a case and its findings, proposals, decisions, sanctions and appeals."""
    case = get(session, case_id=case_id)
    return CaseBundle(
        case,
        list(session.scalars(select(FindingRow).where(FindingRow.case_id == case_id).order_by(FindingRow.ts))),
        list(session.scalars(select(CaseAction).where(CaseAction.case_id == case_id)
                             .order_by(CaseAction.starts_at))),
        list(session.scalars(select(Decision).where(Decision.case_id == case_id).order_by(Decision.created_at))),
        list(session.scalars(select(Sanction).where(Sanction.case_id == case_id).order_by(Sanction.created_at))),
        list(session.scalars(select(Appeal).where(Appeal.case_id == case_id).order_by(Appeal.created_at))),
    )


def claim(session: Session, *, case_id: str, principal: Principal, ttl: timedelta, now: datetime) -> Case:
    """Take the case exclusively until now+ttl; a live claim by someone else is a 409."""
    case = get(session, case_id=case_id)
    if case.status in CLOSED_STATUSES:
        raise ConflictError(f"case {case_id} is closed ({case.status}); open an appeal to reopen it")
    if case.status == "escalated" and principal.role != "senior":
        raise ForbiddenError("escalated cases are worked by seniors")
    result = session.execute(
        update(Case)
        .where(Case.id == case_id, Case.status.not_in(CLOSED_STATUSES), or_(
            Case.assignee_id.is_(None), Case.assignee_id == principal.user_id,
            Case.claim_expires_at.is_(None), Case.claim_expires_at <= now))
        .values(assignee_id=principal.user_id, claim_expires_at=now + ttl, updated_at=now)
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        session.rollback()
        held = get(session, case_id=case_id)
        raise ConflictError(f"case {case_id} is claimed by user {held.assignee_id} until "
                            f"{held.claim_expires_at.isoformat() if held.claim_expires_at else '?'}; "
                            "a moderator or senior can take it over with a reason")
    audit.append(session, actor=principal.username, action="case.claim", entity_type="case", entity_id=case_id,
                 payload={"until": (now + ttl).isoformat()}, now=now)
    session.commit()
    session.refresh(case)
    return case


TAKE_OVER_ROLES = frozenset({"moderator", "senior"})
"""Who may take a live claim from someone else: the next role in the hand-off, and seniors."""


def take_over(session: Session, *, case_id: str, principal: Principal, reason: str, ttl: timedelta,
              now: datetime) -> Case:
    """Take a case whose live claim someone else holds (a stalled hand-off); audited with the reason.

    A claim protects a reviewer's work from a concurrent decision, not the case from the team: a
    moderator must not wait out an analyst's 30-minute claim to enforce what they confirmed.
    """
    case = get(session, case_id=case_id)
    if case.status in CLOSED_STATUSES:
        raise ConflictError(f"case {case_id} is closed ({case.status}); open an appeal to reopen it")
    if principal.role not in TAKE_OVER_ROLES:
        raise ForbiddenError("only moderators and seniors take over a claimed case; ask a senior to reassign it")
    if case.status == "escalated" and principal.role != "senior":
        raise ForbiddenError("escalated cases are worked by seniors")
    previous = case.assignee_id if case.claim_expires_at is not None and case.claim_expires_at > now else None
    case.assignee_id, case.claim_expires_at, case.updated_at = principal.user_id, now + ttl, now
    audit.append(session, actor=principal.username, action="case.take_over", entity_type="case", entity_id=case_id,
                 payload={"from_user_id": previous, "reason": reason}, now=now)
    session.commit()
    return case


def require_claim(case: Case, *, principal: Principal, now: datetime) -> None:
    """409 unless `principal` holds a live claim on the open case."""
    if case.status in CLOSED_STATUSES:
        raise ConflictError(f"case {case.id} is closed ({case.status}); nothing to decide")
    if case.assignee_id != principal.user_id:
        raise ConflictError(f"claim case {case.id} first (it is {'claimed by ' + case.assignee_id if case.assignee_id else 'unclaimed'})")
    if case.claim_expires_at is None or case.claim_expires_at <= now:
        raise ConflictError(f"your claim on case {case.id} expired at "
                       f"{case.claim_expires_at.isoformat() if case.claim_expires_at else '?'}; claim it again")


def release(session: Session, *, case_id: str, principal: Principal, now: datetime) -> Case:
    """Give a claim back (only the holder can)."""
    case = get(session, case_id=case_id)
    if case.assignee_id != principal.user_id:
        raise ConflictError(f"case {case_id} is not claimed by you")
    case.assignee_id, case.claim_expires_at, case.updated_at = None, None, now
    audit.append(session, actor=principal.username, action="case.release", entity_type="case", entity_id=case_id,
                 payload={}, now=now)
    session.commit()
    return case


def reassign(session: Session, *, case_id: str, user_id: str, reason: str, principal: Principal,
             ttl: timedelta, now: datetime) -> Case:
    """A senior hands the case to someone else with a fresh claim; audited with the reason."""
    case = get(session, case_id=case_id)
    if case.status in CLOSED_STATUSES:
        raise ConflictError(f"case {case_id} is closed ({case.status})")
    target = session.get(User, user_id)
    if target is None or not target.active:
        raise NotFoundError(f"no active user {user_id!r}")
    if not allowed("decide", target.role):
        raise InvalidError(f"user {user_id!r} is a {target.role} and does not review cases")
    previous = case.assignee_id
    case.assignee_id, case.claim_expires_at, case.updated_at = user_id, now + ttl, now
    audit.append(session, actor=principal.username, action="case.reassign", entity_type="case", entity_id=case_id,
                 payload={"from_user_id": previous, "to_user_id": user_id, "reason": reason}, now=now)
    session.commit()
    return case


def follow_ups(session: Session, *, case: Case) -> list[Case]:
    """Cases opened for the same family, subject and incident after this one was decided."""
    if case.decided_at is None:
        return []
    stmt = select(Case).where(Case.family == case.family, Case.subject_id == case.subject_id,
                              Case.incident == case.incident, Case.created_at >= case.decided_at,
                              Case.id != case.id)
    return list(session.scalars(stmt.order_by(Case.created_at).limit(20)))


def close(case: Case, *, status: str, now: datetime) -> None:
    """Close the case: stop it absorbing findings (open_key NULL) and drop the claim."""
    case.status, case.open_key, case.decided_at = status, None, now
    case.assignee_id, case.claim_expires_at, case.updated_at = None, None, now
