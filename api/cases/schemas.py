"""Response and request shapes for cases and the queue."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from api.appeals.schemas import AppealPublic
from api.decisions.schemas import DecisionPublic
from api.findings.schemas import FindingPublic
from api.sanctions.schemas import SanctionPublic
from api.schemas import Body, Public, Reason

CaseStatus = Literal["open", "escalated", "on_hold", "confirmed", "appealed", "actioned", "dismissed"]


class CasePublic(Public):
    """A case as the queue lists it; `sla_age_s` is seconds since it was opened."""

    id: str
    family: str
    category: str
    rule: str
    subject_id: str
    incident: str
    status: str
    priority: int
    max_score: float
    finding_count: int
    summary: str
    assignee_id: str | None
    claim_expires_at: datetime | None
    created_at: datetime
    updated_at: datetime
    decided_at: datetime | None
    reopened: int
    sla_age_s: int = 0
    sla_state: Literal["ok", "due", "breached", "closed"] = "ok"
    """Against the family's SLA (`api/cases/sla.py`): ok, due (past half), breached, closed."""
    sla_due_at: datetime | None = None


class CasePage(Public):
    """One queue page; pass `next_cursor` back as `cursor` for the next one."""

    items: list[CasePublic]
    next_cursor: str | None


class ActionPublic(Public):
    """A sanction policy proposed (or applied automatically) for the case."""

    action_id: str
    finding_id: str
    disposition: str
    kind: str
    scope: str
    scope_value: str | None
    player_id: str
    starts_at: datetime
    expires_at: datetime | None
    reason: str
    rule: str
    status: str
    role: str = "offender"


class CaseDetail(Public):
    """Everything about one case."""

    case: CasePublic
    findings: list[FindingPublic]
    actions: list[ActionPublic]
    decisions: list[DecisionPublic]
    sanctions: list[SanctionPublic]
    appeals: list[AppealPublic]


class ReassignRequest(Body):
    """Hand the case to another user, saying why (audited)."""

    user_id: str
    reason: Reason


class TakeOverRequest(Body):
    """Take a case someone else has claimed, saying why (audited)."""

    reason: Reason
