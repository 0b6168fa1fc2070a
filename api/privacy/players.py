"""Subject access and erasure for one player, and retention of raw evidence.

- `export_player`: every stored record that names the player (findings, cases, proposals,
  sanctions, enforcement events, appeals, decisions, audit entries), as JSON.
- `erase_player`: what the player wrote (chat text, nicknames, report comments, transcripts,
  summaries quoting them) is erased; ids are replaced by a keyed pseudonym everywhere outside the
  audit log. Sanctions, decisions and the audit log are kept for accountability; the audit log is
  append-only and hash-chained, so it is not rewritten: the erasure itself is appended to it,
  naming only the pseudonym, and the chain still verifies.
- `redact_expired`: evidence text of cases closed more than N days ago is redacted; ids,
  decisions and sanctions stay.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import String, cast, or_, select
from sqlalchemy.orm import Session

from api.appeals.models import Appeal
from api.audit import service as audit
from api.audit.models import AuditEntry
from api.cases import tags
from api.cases.models import CLOSED_STATUSES, Case, CaseAction
from api.decisions.models import Decision
from api.errors import ConflictError
from api.findings.models import FindingPlayer, FindingRow
from api.labels import service as labels
from api.outbox.models import OutboxEvent
from api.privacy.policy import FREE_TEXT_KEYS
from api.sanctions.models import Sanction

ERASED = "[erased]"
EXPIRED = "[expired]"
ACTIVE = "active"


def pseudonym(player_id: str, *, key: str) -> str:
    """Keyed, stable pseudonym: the same player always maps to the same id; without the key the
    mapping cannot be reversed by hashing candidate ids."""
    digest = hmac.new(key.encode("utf-8"), player_id.encode("utf-8"), hashlib.sha256).hexdigest()
    return f"anon_{digest[:24]}"


def _mentions(value: Any, player_id: str) -> bool:
    if isinstance(value, str):
        return value == player_id
    if isinstance(value, dict):
        return any(_mentions(v, player_id) for v in value.values())
    if isinstance(value, list):
        return any(_mentions(v, player_id) for v in value)
    return False


def _findings_naming(session: Session, player_id: str) -> list[FindingRow]:
    # A text pre-filter every backend can run, then an exact check on the parsed document.
    like = cast(FindingRow.document, String).like(f'%"{player_id}"%')
    rows = session.scalars(select(FindingRow).where(or_(FindingRow.subject_id == player_id, like)))
    return [r for r in rows if r.subject_id == player_id or _mentions(r.document, player_id)]


def _row(obj: Any) -> dict[str, Any]:
    return {c.key: getattr(obj, c.key) for c in obj.__table__.columns}


def export_player(session: Session, *, player_id: str) -> dict[str, Any]:
    """Everything held about the player, JSON-ready (datetimes as ISO strings by the caller)."""
    findings = _findings_naming(session, player_id)
    named_in = select(FindingPlayer.case_id).where(FindingPlayer.player_id == player_id)
    cases = list(session.scalars(select(Case).where(or_(Case.subject_id == player_id, Case.id.in_(named_in)))))
    case_ids = [c.id for c in cases]
    sanctions = list(session.scalars(select(Sanction).where(Sanction.player_id == player_id)))
    entity_ids = [*case_ids, *(s.id for s in sanctions)]
    audit_rows = session.scalars(select(AuditEntry).where(or_(
        AuditEntry.entity_id.in_(entity_ids), AuditEntry.payload.like(f'%"{player_id}"%'))))
    return {
        "player_id": player_id,
        "findings": [_row(f) for f in findings],
        "cases": [_row(c) for c in cases],
        "proposed_actions": [_row(a) for a in session.scalars(select(CaseAction).where(CaseAction.player_id == player_id))],
        "sanctions": [_row(s) for s in sanctions],
        "enforcement_events": [_row(e) for e in session.scalars(select(OutboxEvent).where(OutboxEvent.player_id == player_id))],
        "decisions": [_row(d) for d in session.scalars(select(Decision).where(Decision.case_id.in_(case_ids)))],
        "appeals": [_row(a) for a in session.scalars(select(Appeal).where(Appeal.case_id.in_(case_ids)))],
        "audit_entries": [_row(e) for e in audit_rows],
    }


def _scrub(value: Any, *, player_id: str, alias: str, erase_all: bool) -> Any:
    """Ids replaced by the alias; free text erased everywhere (`erase_all`) or only in the
    messages and reports the player wrote."""
    if isinstance(value, str):
        return alias if value == player_id else value
    if isinstance(value, list):
        return [_scrub(v, player_id=player_id, alias=alias, erase_all=erase_all) for v in value]
    if not isinstance(value, dict):
        return value
    authored = value.get("player_id") == player_id or value.get("reporter_id") == player_id
    return {k: (ERASED if k in FREE_TEXT_KEYS and isinstance(v, str) and (erase_all or authored)
                else _scrub(v, player_id=player_id, alias=alias, erase_all=erase_all)) for k, v in value.items()}


@dataclass(frozen=True, slots=True)
class ErasureReport:
    """What an erasure changed."""

    pseudonym: str
    findings: int
    cases: int
    sanctions: int
    events: int


def erase_player(session: Session, *, player_id: str, key: str, actor: str, now: datetime,
                 force: bool = False) -> ErasureReport:
    """Erase the player's text and replace their id by a pseudonym; audited; one transaction."""
    active = session.scalars(select(Sanction.id).where(Sanction.player_id == player_id, Sanction.status == ACTIVE,
                                                       or_(Sanction.expires_at.is_(None), Sanction.expires_at > now)))
    if (still := list(active)) and not force:
        raise ConflictError(f"player has {len(still)} sanction(s) in force; erasing would lift them "
                            "(close the account first, or force)")
    alias = pseudonym(player_id, key=key)
    findings = _findings_naming(session, player_id)
    for f in findings:
        about = f.subject_id == player_id or player_id in (f.players or [])
        f.document = _scrub(f.document, player_id=player_id, alias=alias, erase_all=about)
        f.players = [alias if p == player_id else p for p in f.players]
        f.summary = ERASED if about else f.summary
        f.subject_id = alias if f.subject_id == player_id else f.subject_id
    labels.forget_texts(session, finding_ids=[f.finding_id for f in findings])  # labels copy their words
    for named in session.scalars(select(FindingPlayer).where(FindingPlayer.player_id == player_id)):
        named.player_id = alias
    cases = list(session.scalars(select(Case).where(Case.subject_id == player_id)))
    for c in cases:
        c.subject_id, c.summary = alias, ERASED
        c.open_key = None if c.open_key is None else f"{c.family}|{alias}|{c.incident}"
    for a in session.scalars(select(Appeal).where(Appeal.case_id.in_([c.id for c in cases]))):
        a.statement = ERASED
    for action in session.scalars(select(CaseAction).where(CaseAction.player_id == player_id)):
        action.player_id = alias
    sanctions = list(session.scalars(select(Sanction).where(Sanction.player_id == player_id)))
    for s in sanctions:
        s.player_id = alias
    events = list(session.scalars(select(OutboxEvent).where(OutboxEvent.player_id == player_id)))
    for e in events:
        e.player_id = alias
        e.body = json.dumps(_scrub(json.loads(e.body), player_id=player_id, alias=alias, erase_all=False))
    tags.rebuild(session, case_ids={f.case_id for f in findings} | {c.id for c in cases})
    report = ErasureReport(alias, len(findings), len(cases), len(sanctions), len(events))
    audit.append(session, actor=actor, action="player.erase", entity_type="player", entity_id=alias,
                 payload={"findings": report.findings, "cases": report.cases, "sanctions": report.sanctions,
                          "events": report.events, "forced": bool(still)}, now=now)
    session.commit()
    return report


def redact_expired(session: Session, *, days: int, now: datetime, actor: str = "retention") -> int:
    """Redact evidence text of cases closed before now - days; the number of findings redacted."""
    cutoff = now - timedelta(days=days)
    # Already-expired cases are skipped in SQL: the job runs every hour over a growing table.
    cases = list(session.scalars(select(Case).where(Case.status.in_(CLOSED_STATUSES), Case.decided_at < cutoff,
                                                    Case.summary != EXPIRED)))
    redacted = 0
    touched: set[str] = set()
    for case in cases:
        for f in session.scalars(select(FindingRow).where(FindingRow.case_id == case.id)):
            if f.document.get("retention_redacted_at"):
                continue
            f.document = {**_expire(f.document), "retention_redacted_at": now.isoformat()}
            f.summary = EXPIRED
            redacted += 1
            touched.add(case.id)
        case.summary = EXPIRED
    labels.forget_case_texts(session, case_ids=touched)  # a label's text is a copy of the evidence
    tags.rebuild(session, case_ids=touched)
    if redacted:
        audit.append(session, actor=actor, action="retention.redact", entity_type="retention",
                     entity_id=cutoff.date().isoformat(), payload={"findings": redacted, "days": days}, now=now)
    session.commit()
    return redacted


def _expire(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: (EXPIRED if k in FREE_TEXT_KEYS and isinstance(v, str) else _expire(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_expire(v) for v in value]
    return value
