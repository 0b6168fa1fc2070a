"""Routes for the queue, cases, evidence, claims, decisions and sanctions on a case."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from api.appeals import service as appeals
from api.appeals.schemas import AppealCreate, AppealPublic
from api.cases import bulk, service, sla
from api.cases import queue as queue_service
from api.cases.models import Case
from api.cases.queue_schemas import BulkCloseRequest, BulkCloseResult, QueueQuery, QueueSort, TabCountsPublic
from api.cases.schemas import (
    ActionPublic,
    CaseDetail,
    CasePage,
    CasePublic,
    ReassignRequest,
    TakeOverRequest,
)
from api.db import SessionDep
from api.decisions import service as decisions
from api.decisions.schemas import DecisionCreate, DecisionPublic, DecisionResult, NoteCreate
from api.deps import ConfigDep, NowDep, PrincipalDep
from api.errors import InvalidError
from api.evidence.service import merge
from api.findings.schemas import FindingPublic
from api.privacy.policy import may_read_chat
from api.quality import seeding as quality_seeding
from api.sanctions.schemas import SanctionApply, SanctionPublic


def public(case: Case, now: datetime) -> CasePublic:
    """Case with its SLA age, state and due time filled in."""
    out = CasePublic.model_validate(case)
    out.sla_age_s = max(0, int((now - case.created_at).total_seconds()))
    out.sla_state, out.sla_due_at = sla.state(case, now=now), sla.due_at(case)
    return out


def router() -> APIRouter:
    """Case routes."""
    r = APIRouter(prefix="/cases", tags=["cases"])

    @r.get("", response_model=CasePage)
    def queue(request: Request, session: SessionDep, now: NowDep, who: PrincipalDep, filters: QueueQuery,
              sort: QueueSort = "priority", limit: Annotated[int, Query(ge=1, le=200)] = 50,
              cursor: Annotated[str | None, Query(max_length=512)] = None) -> CasePage:
        """The queue: filters and search (one status or `active`/`all`), sorted, keyset-paginated."""
        f = filters.to_filter(me=who.user_id)
        quality_seeding.before_page(request.app.state.sessions, f=f, role=who.role, now=now)
        page = queue_service.page(session, f=f, sort=sort, limit=limit, cursor=cursor, now=now)
        return CasePage(items=[public(c, now) for c in page.items], next_cursor=page.next_cursor)

    @r.get("/counts", response_model=TabCountsPublic)
    def counts(session: SessionDep, now: NowDep, who: PrincipalDep, filters: QueueQuery) -> TabCountsPublic:
        """Matching cases per family (same status) and per status (same family), each capped."""
        c = queue_service.tab_counts(session, f=filters.to_filter(me=who.user_id), now=now)
        return TabCountsPublic(families=c.families, statuses=c.statuses, cap=c.cap, exact=c.exact)

    @r.post("/bulk-close", response_model=BulkCloseResult)
    def bulk_close(body: BulkCloseRequest, session: SessionDep, now: NowDep, who: PrincipalDep) -> BulkCloseResult:
        """Moderator/senior: close many cases at once with one reason (each case audited)."""
        return bulk.run(session, request=body, principal=who, now=now)

    @r.get("/{case_id}", response_model=CaseDetail)
    def get_case(case_id: str, request: Request, session: SessionDep, now: NowDep, who: PrincipalDep) -> CaseDetail:
        """A case with findings, proposals, decisions, sanctions and appeals."""
        b = service.bundle(session, case_id=case_id)
        if may_read_chat(who.role):
            request.app.state.text_views.record(actor=who.username, case_id=case_id, surface="api", now=now)
        return CaseDetail(
            case=public(b.case, now),
            findings=[FindingPublic.model_validate(f) for f in b.findings],
            actions=[ActionPublic.model_validate(a) for a in b.actions],
            decisions=[DecisionPublic.model_validate(d) for d in b.decisions],
            sanctions=[SanctionPublic.at(s, now) for s in b.sanctions],
            appeals=[AppealPublic.model_validate(a) for a in b.appeals],
        )

    @r.get("/{case_id}/evidence")
    def get_evidence(case_id: str, request: Request, session: SessionDep, now: NowDep,
                     who: PrincipalDep) -> dict[str, Any]:
        """Merged evidence: chat messages with spans, reports, seat timeline, hand replays."""
        evidence = merge(service.bundle(session, case_id=case_id).findings)
        if may_read_chat(who.role):
            request.app.state.text_views.record(actor=who.username, case_id=case_id, surface="api", now=now)
        return evidence

    @r.post("/{case_id}/claim", response_model=CasePublic)
    def claim(case_id: str, session: SessionDep, config: ConfigDep, now: NowDep, who: PrincipalDep) -> CasePublic:
        """Claim the case exclusively (409 if someone else holds a live claim)."""
        return public(service.claim(session, case_id=case_id, principal=who, ttl=config.claim_ttl, now=now), now)

    @r.post("/{case_id}/release", response_model=CasePublic)
    def release(case_id: str, session: SessionDep, now: NowDep, who: PrincipalDep) -> CasePublic:
        """Give the claim back."""
        return public(service.release(session, case_id=case_id, principal=who, now=now), now)

    @r.post("/{case_id}/reassign", response_model=CasePublic)
    def reassign(case_id: str, body: ReassignRequest, session: SessionDep, config: ConfigDep,
                 now: NowDep, who: PrincipalDep) -> CasePublic:
        """Senior: hand the case to another reviewer, with a reason (audited)."""
        case = service.reassign(session, case_id=case_id, user_id=body.user_id, reason=body.reason,
                                principal=who, ttl=config.claim_ttl, now=now)
        return public(case, now)

    @r.post("/{case_id}/take-over", response_model=CasePublic)
    def take_over(case_id: str, body: TakeOverRequest, session: SessionDep, config: ConfigDep,
                  now: NowDep, who: PrincipalDep) -> CasePublic:
        """Moderator or senior: take a case claimed by someone else, with a reason (audited)."""
        case = service.take_over(session, case_id=case_id, principal=who, reason=body.reason,
                                 ttl=config.claim_ttl, now=now)
        return public(case, now)

    @r.post("/{case_id}/decisions", response_model=DecisionResult)
    def decide(case_id: str, body: DecisionCreate, session: SessionDep, now: NowDep,
               who: PrincipalDep) -> DecisionResult:
        """Decide the claimed case; moderators may `apply` the proposals on confirm."""
        decision, applied = decisions.decide(session, case_id=case_id, kind=body.kind, reason=body.reason,
                                             apply=body.apply, principal=who, now=now)
        return DecisionResult(decision=DecisionPublic.model_validate(decision),
                              sanctions=[SanctionPublic.at(s, now) for s in applied])

    @r.post("/{case_id}/notes", response_model=DecisionPublic)
    def add_note(case_id: str, body: NoteCreate, session: SessionDep, now: NowDep, who: PrincipalDep) -> DecisionPublic:
        """An internal note for the next reviewer (no claim needed; the case does not move)."""
        return DecisionPublic.model_validate(
            decisions.add_note(session, case_id=case_id, text=body.text, principal=who, now=now))

    @r.get("/{case_id}/decisions", response_model=list[DecisionPublic])
    def list_decisions(case_id: str, session: SessionDep) -> list[DecisionPublic]:
        """Decisions on the case, oldest first."""
        return [DecisionPublic.model_validate(d) for d in decisions.for_case(session, case_id=case_id)]

    @r.post("/{case_id}/sanctions", response_model=list[SanctionPublic])
    def apply_sanction(case_id: str, body: SanctionApply, session: SessionDep, now: NowDep,
                       who: PrincipalDep) -> list[SanctionPublic]:
        """Moderator: enforce a confirmed, claimed case (proposals, or a custom sanction)."""
        if body.kind is None:
            applied = decisions.apply_confirmed(session, case_id=case_id, principal=who, now=now)
            return [SanctionPublic.at(s, now) for s in applied]
        if body.scope is None or body.reason is None:
            raise InvalidError("a custom sanction needs kind, scope and reason")
        sanction = decisions.apply_custom(session, case_id=case_id, kind=body.kind, scope=body.scope,
                                          scope_value=body.scope_value, expires_at=body.expires_at,
                                          reason=body.reason, principal=who, now=now, player_id=body.player_id)
        return [SanctionPublic.at(sanction, now)]

    @r.post("/{case_id}/appeals", response_model=AppealPublic)
    def appeal(case_id: str, body: AppealCreate, session: SessionDep, now: NowDep,
               who: PrincipalDep) -> AppealPublic:
        """Senior: reopen a closed case on appeal, with its original evidence."""
        return AppealPublic.model_validate(
            appeals.open_appeal(session, case_id=case_id, statement=body.statement, principal=who, now=now))

    return r
