"""Ingestion: idempotent batch insert of findings, grouping into cases, automatic sanctions."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from api.cases import service as cases
from api.cases import tags
from api.cases.models import CaseAction
from api.db import lock_for_write
from api.errors import InvalidError, NotFoundError
from api.findings.models import FindingPlayer, FindingRow
from api.sanctions import service as sanctions
from api.shadow import service as shadow_findings
from api.text import bad_text
from api.upsert import insert_many_ignore
from pipeline.findings import ActionProposal, Finding

POLICY_ACTOR = "policy"


@dataclass(slots=True)
class IngestResult:
    """What one batch did."""

    accepted: int = 0
    duplicates: int = 0
    case_ids: list[str] = field(default_factory=list)
    sanction_ids: list[str] = field(default_factory=list)
    shadow: int = 0
    """Of `accepted`, the shadow findings: stored in `shadow_findings` only (api/shadow)."""


def ingest(session: Session, *, findings: list[Finding], now: datetime) -> IngestResult:
    """Store new findings in one transaction; repeats (by finding_id) are counted, not stored."""
    for i, finding in enumerate(findings):
        if (where := bad_text(finding.model_dump(mode="json"))) is not None:
            raise InvalidError(f"findings[{i}].{where}: text contains NUL or an unpaired surrogate")
    result = IngestResult()
    lock_for_write(session)  # the case counters below are read, then written back
    # Shadow findings never reach a case, a proposal, a sanction or the outbox: they are split off here.
    if shadow := [f for f in findings if f.shadow]:
        findings = [f for f in findings if not f.shadow]
        stored = shadow_findings.store(session, findings=shadow, now=now)
        result.shadow = stored.accepted
        result.accepted += stored.accepted
        result.duplicates += stored.duplicates
    # Repeats are found with one query; ON CONFLICT below still catches concurrent writers.
    ids = list({f.finding_id for f in findings})
    seen = set(session.scalars(select(FindingRow.finding_id).where(FindingRow.finding_id.in_(ids))))
    fresh: list[Finding] = []
    for finding in findings:
        if finding.finding_id in seen:
            result.duplicates += 1
        else:
            seen.add(finding.finding_id)
            fresh.append(finding)
    if fresh:
        _store(session, findings=fresh, now=now, result=result)
    session.commit()
    return result


def _store(session: Session, *, findings: list[Finding], now: datetime, result: IngestResult) -> None:
    """Cases, findings and proposals as multi-row inserts; sanctions for new automatic actions."""
    open_cases = cases.open_cases_for(session, findings=findings, now=now)
    case_of = {f.finding_id: open_cases[cases.open_key_of(f)] for f in findings}
    rows = sorted((_row(f, case_id=case_of[f.finding_id].id, now=now) for f in findings),
                  key=lambda r: str(r["finding_id"]))
    inserted = insert_many_ignore(session, FindingRow, rows, ("finding_id",))
    named = sorted((_named_row(f, position=i, player=p, case_id=case_of[f.finding_id].id)
                    for f in findings if f.finding_id in inserted
                    for i, p in enumerate(dict.fromkeys(f.players)) if i > 0),
                   key=lambda r: (str(r["finding_id"]), str(r["player_id"])))
    tags.add(session, rows=[(str(r["case_id"]), str(r["family"]), r["document"]) for r in rows  # type: ignore[misc]
                            if r["finding_id"] in inserted])
    if named:  # only findings this batch inserted: no conflict possible, so a plain insert
        session.execute(insert(FindingPlayer), named)
    actions: list[tuple[ActionProposal, str, str]] = []
    for finding in findings:
        if finding.finding_id not in inserted:  # a concurrent writer stored it first
            result.duplicates += 1
            continue
        result.accepted += 1
        case = case_of[finding.finding_id]
        cases.add_finding(session, case=case, finding=finding, now=now)
        if case.id not in result.case_ids:
            result.case_ids.append(case.id)
        actions.extend((a, case.id, finding.finding_id) for a in finding.actions)
    action_rows = sorted((_action_row(a, case_id=c, finding_id=f) for a, c, f in actions),
                         key=lambda r: str(r["action_id"]))
    new_actions = insert_many_ignore(session, CaseAction, action_rows, ("action_id",))
    # Automatic actions take effect now: sanctions + outbox events commit with the findings or not at
    # all, created together (one insert per table, one audit append) rather than one by one.
    specs = [_spec(a, case_id=c).applied_at(now) for a, c, _ in actions
             if a.disposition == "automatic" and a.action_id in new_actions]
    result.sanction_ids.extend(s.id for s in sanctions.create_many(session, specs=specs, actor=POLICY_ACTOR, now=now))


def _named_row(finding: Finding, *, position: int, player: str, case_id: str) -> dict[str, object]:
    return {"finding_id": finding.finding_id, "player_id": player, "case_id": case_id, "position": position,
            "ts": finding.ts}


def _action_row(action: ActionProposal, *, case_id: str, finding_id: str) -> dict[str, object]:
    return {"action_id": action.action_id, "case_id": case_id, "finding_id": finding_id,
            "disposition": action.disposition, "kind": action.kind, "scope": action.scope,
            "scope_value": action.scope_value, "player_id": action.player_id, "starts_at": action.starts_at,
            "expires_at": action.expires_at, "reason": action.reason, "rule": action.rule, "role": action.role,
            "status": "applied" if action.disposition == "automatic" else "pending"}


def _spec(action: ActionProposal, *, case_id: str) -> sanctions.SanctionSpec:
    return sanctions.SanctionSpec(
        sanction_id=action.action_id, case_id=case_id, player_id=action.player_id, kind=action.kind,
        scope=action.scope, scope_value=action.scope_value, starts_at=action.starts_at,
        expires_at=action.expires_at, reason=action.reason, rule=action.rule, automatic=True,
    )


def _row(finding: Finding, *, case_id: str, now: datetime) -> dict[str, object]:
    return {
        "finding_id": finding.finding_id, "case_id": case_id, "detector": finding.detector,
        "rule": finding.rule, "family": finding.family, "category": finding.category,
        "score": finding.score, "subject_id": finding.subject, "players": list(finding.players),
        "ts": finding.ts, "table_id": finding.table_id, "tournament_id": finding.tournament_id,
        "summary": finding.summary, "document": finding.model_dump(mode="json"), "ingested_at": now,
    }


def get(session: Session, *, finding_id: str) -> FindingRow:
    """The finding or NotFoundError."""
    row = session.get(FindingRow, finding_id)
    if row is None:
        raise NotFoundError(f"no finding {finding_id!r}")
    return row


def search(session: Session, *, detector: str | None, family: str | None, player_id: str | None,
           case_id: str | None, limit: int, offset: int) -> list[FindingRow]:
    """Findings filtered by detector, family, subject and case; newest first."""
    stmt = select(FindingRow)
    if detector:
        stmt = stmt.where(FindingRow.detector == detector)
    if family:
        stmt = stmt.where(FindingRow.family == family)
    if player_id:
        stmt = stmt.where(FindingRow.subject_id == player_id)
    if case_id:
        stmt = stmt.where(FindingRow.case_id == case_id)
    stmt = stmt.order_by(FindingRow.ts.desc(), FindingRow.finding_id).limit(limit).offset(offset)
    return list(session.scalars(stmt))
