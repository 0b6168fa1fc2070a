"""The review workflow's decisions: confirm, dismiss, escalate, hold; and applying sanctions."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from api.audit import service as audit
from api.auth.roles import allowed
from api.auth.service import Principal
from api.cases import service as cases
from api.cases.models import Case, CaseAction
from api.decisions import four_eyes
from api.decisions.models import Decision
from api.errors import ConflictError, ForbiddenError, InvalidError
from api.findings.models import FindingRow
from api.ids import new_id
from api.labels import service as labels
from api.quality import answers as quality
from api.sanctions import service as sanctions
from api.sanctions.models import Sanction
from pipeline.findings import stable_id

DECISION_KINDS = ("confirm", "dismiss", "escalate", "hold")
SCOPES_NEEDING_A_VALUE = frozenset({"tournament", "table", "blind_level"})
"""Scopes a sanction names the place of; the feature and account scopes stand alone."""
REASON_TEMPLATES: tuple[str, ...] = (
    "Confirmed: the evidence shows the rule broken as the finding says.",
    "Confirmed: repeated after an earlier sanction.",
    "Dismissed: false positive (poker jargon / banter among friends).",
    "Dismissed: the player was the target, not the offender.",
    "Dismissed: not enough evidence in the hands shown.",
    "Escalated: collusion suspected; needs a senior's review of the hands.",
    "Escalated: language I do not read; needs a native reviewer.",
    "On hold: waiting for more hands / the tournament to finish.",
)
"""Reasons the console offers as you type (a reviewer may always write their own)."""


def decide(session: Session, *, case_id: str, kind: str, reason: str, apply: bool, principal: Principal,
           now: datetime) -> tuple[Decision, list[Sanction]]:
    """Record a decision by the claim holder and move the case; `apply` also enforces the proposals."""
    if graded := quality.intercept(session, case_id=case_id, kind=kind, reason=reason, principal=principal, now=now):
        return graded, []  # a golden or second-review copy: graded against its answer, never enforced
    case = cases.get(session, case_id=case_id)
    cases.require_claim(case, principal=principal, now=now)
    if kind == "confirm" and case.status == "confirmed":
        raise ConflictError(f"case {case_id} is already confirmed; apply a sanction or dismiss it")
    effect = _effect(session, case=case, kind=kind, principal=principal)
    decision = Decision(id=new_id("dec"), case_id=case_id, kind=kind, reason=reason,
                        user_id=principal.user_id, created_at=now)
    session.add(decision)
    session.flush()
    labels.on_decision(session, decision=decision, case=case, principal=principal, now=now)
    # A moderator who confirms is the next role themself: they keep the claim to enforce at once.
    keeps_claim = effect == "confirm" and allowed("sanction", principal.role)
    _transition(session, case=case, kind=effect, now=now, keep_claim=keeps_claim)
    payload = {"decision_id": decision.id, "reason": reason, "status": case.status}
    if effect != kind:
        payload["four_eyes"] = "waiting for another reviewer"
    audit.append(session, actor=principal.username, action=f"decision.{kind}", entity_type="case",
                 entity_id=case_id, payload=payload, now=now)
    applied: list[Sanction] = []
    if effect == "confirm" and apply:
        if not allowed("sanction", principal.role):
            raise ForbiddenError("only moderators and seniors apply sanctions; confirm without apply")
        applied = _apply_pending(session, case=case, principal=principal, now=now)
    quality.sample_second_review(session, case=case, now=now)
    session.commit()
    return decision, applied


def _effect(session: Session, *, case: Case, kind: str, principal: Principal) -> str:
    """What the decision does to the case: itself, or (clearing collusion) an escalation until
    enough distinct reviewers agree (`four_eyes`)."""
    if kind not in ("confirm", "dismiss") or not four_eyes.needs_four_eyes(case.category):
        return kind
    earlier = [four_eyes.Vote(d.user_id, d.kind) for d in session.scalars(  # type: ignore[arg-type]
        select(Decision).where(Decision.case_id == case.id, Decision.kind.in_(("confirm", "dismiss")))
        .order_by(Decision.created_at, Decision.id))]
    result = four_eyes.outcome([*earlier, four_eyes.Vote(principal.user_id, kind)])  # type: ignore[arg-type]
    if result in ("confirm", "dismiss"):
        return result
    if any(v.user_id == principal.user_id for v in earlier) and four_eyes.outcome(earlier) == result:
        raise ConflictError(f"case {case.id} needs {'a second' if result == 'needs_second' else 'a third'} "
                            "reviewer: you have already decided it")
    return "escalate"


def _transition(session: Session, *, case: Case, kind: str, now: datetime, keep_claim: bool = False) -> None:
    if kind == "dismiss":
        cases.close(case, status="dismissed", now=now)
        session.execute(update(CaseAction).where(CaseAction.case_id == case.id, CaseAction.status == "pending")
                        .values(status="dropped"))
        return
    case.updated_at = now
    # Every decision hands the case on: a confirmed case goes to the moderators' queue, an escalated
    # one to the seniors', a held one back to the pool. Keeping an analyst's claim stalled the
    # hand-off for the claim's whole TTL.
    if not keep_claim:
        case.assignee_id, case.claim_expires_at = None, None
    if kind == "confirm":
        # A confirmed case stops absorbing findings: what the player does after the decision opens a
        # follow-up case (same family, subject and incident; the case page links it), so the case a
        # moderator enforces is the one the analyst read, and its page stops growing.
        case.status, case.decided_at, case.open_key = "confirmed", now, None
    elif kind == "escalate":
        case.status = "escalated"
        case.priority = cases.priority_of(max_score=case.max_score, category=case.category,
                                          count=case.finding_count, escalated=True)
    else:
        case.status = "on_hold"


def _apply_pending(session: Session, *, case: Case, principal: Principal, now: datetime) -> list[Sanction]:
    pending = list(session.scalars(select(CaseAction).where(CaseAction.case_id == case.id,
                                                             CaseAction.status == "pending")))
    if not pending:
        raise ConflictError(f"case {case.id} has no pending proposed action; apply a custom sanction instead")
    # Several findings usually propose the same measure: apply each distinct (player, kind, scope)
    # once. The player is part of the key: a colluder's partner gets a sanction of their own.
    seen: set[tuple[str, str, str, str | None]] = set()
    out: list[Sanction] = []
    for action in pending:
        key = (action.player_id, action.kind, action.scope, action.scope_value)
        action.status = "applied" if key not in seen else "superseded"
        if key in seen:
            continue
        seen.add(key)
        out.append(_sanction_from(session, action=action, case=case, principal=principal, now=now))
    cases.close(case, status="actioned", now=now)
    return out


def _sanction_from(session: Session, *, action: CaseAction, case: Case, principal: Principal,
                   now: datetime) -> Sanction:
    spec = sanctions.SanctionSpec(
        sanction_id=action.action_id, case_id=case.id, player_id=action.player_id, kind=action.kind,
        scope=action.scope, scope_value=action.scope_value, starts_at=action.starts_at,
        expires_at=action.expires_at, reason=action.reason, rule=action.rule, automatic=False,
    ).applied_at(now)
    sanction, _ = sanctions.create(session, spec=spec, actor=principal.username, now=now)
    return sanction


def apply_custom(session: Session, *, case_id: str, kind: str, scope: str, scope_value: str | None,
                 expires_at: datetime | None, reason: str, principal: Principal, now: datetime,
                 player_id: str | None = None) -> Sanction:
    """A moderator enforces a confirmed case with a sanction of their choosing, on its subject or
    on another player its findings name (a partner in collusion)."""
    case = cases.get(session, case_id=case_id)
    cases.require_claim(case, principal=principal, now=now)
    if case.status != "confirmed":
        raise ConflictError(f"case {case_id} is {case.status}; confirm it before sanctioning")
    if expires_at is not None and expires_at <= now:
        raise InvalidError("expires_at must be in the future")
    if scope in SCOPES_NEEDING_A_VALUE and not scope_value:
        raise InvalidError(f"a {scope}-scoped sanction needs scope_value (which {scope}); game servers cannot "
                           "enforce it otherwise")
    target = player_id or case.subject_id
    if target != case.subject_id and target not in _named_players(session, case_id=case_id):
        raise InvalidError(f"player {target!r} is not named by case {case_id}'s findings")
    spec = sanctions.SanctionSpec(
        sanction_id=stable_id("sanc", case_id, target, kind, scope, scope_value, now.isoformat()),
        case_id=case_id, player_id=target, kind=kind, scope=scope, scope_value=scope_value,
        starts_at=now, expires_at=expires_at, reason=reason, rule=case.rule, automatic=False,
    )
    sanction, _ = sanctions.create(session, spec=spec, actor=principal.username, now=now)
    session.execute(update(CaseAction).where(CaseAction.case_id == case_id, CaseAction.status == "pending")
                    .values(status="superseded"))
    cases.close(case, status="actioned", now=now)
    quality.sample_second_review(session, case=case, now=now)
    session.commit()
    return sanction


def _named_players(session: Session, *, case_id: str) -> set[str]:
    rows = session.scalars(select(FindingRow.players).where(FindingRow.case_id == case_id))
    return {p for players in rows for p in (players or [])}


def apply_confirmed(session: Session, *, case_id: str, principal: Principal, now: datetime) -> list[Sanction]:
    """A moderator enforces the proposals of a case an analyst confirmed."""
    case = cases.get(session, case_id=case_id)
    cases.require_claim(case, principal=principal, now=now)
    if case.status != "confirmed":
        raise ConflictError(f"case {case_id} is {case.status}; confirm it before sanctioning")
    out = _apply_pending(session, case=case, principal=principal, now=now)
    quality.sample_second_review(session, case=case, now=now)
    session.commit()
    return out


def add_note(session: Session, *, case_id: str, text: str, principal: Principal, now: datetime) -> Decision:
    """An internal note on any case, open or closed, by any reviewer; no claim needed, the case
    does not move. Stored beside the decisions (kind `note`, which every vote and statistic
    ignores) so the case's history reads in one list; audited."""
    cases.get(session, case_id=case_id)
    note = Decision(id=new_id("dec"), case_id=case_id, kind="note", reason=text, user_id=principal.user_id,
                    created_at=now)
    session.add(note)
    session.flush()
    audit.append(session, actor=principal.username, action="case.note", entity_type="case", entity_id=case_id,
                 payload={"decision_id": note.id}, now=now)
    session.commit()
    return note


def for_case(session: Session, *, case_id: str) -> list[Decision]:
    """Decisions on a case, oldest first."""
    cases.get(session, case_id=case_id)
    return list(session.scalars(select(Decision).where(Decision.case_id == case_id).order_by(Decision.created_at)))
