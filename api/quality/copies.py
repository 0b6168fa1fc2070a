"""Copies of past cases for the queue (golden items, blind second reviews), and their removal.

A copy must look like a case that just arrived: a new case row, its findings, named players,
tags and proposals under new ids, the players' ids kept as they were, every time moved forward by
the copy's age so the evidence is as recent as a new case's would be. It must also never merge with
the player's real work: `open_key` is NULL, so new findings about the player open or join their
real case, never the copy.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from api.cases.models import Case, CaseAction, CaseTag
from api.cases.service import priority_of
from api.decisions.models import Decision
from api.findings.models import FindingPlayer, FindingRow
from api.labels.models import LabelRow
from pipeline.findings import stable_id


def shifted(value: Any, delta: timedelta) -> Any:
    """A JSON document with every ISO-8601 time in it moved by `delta` (ids and text untouched)."""
    if isinstance(value, dict):
        return {k: shifted(v, delta) for k, v in value.items()}
    if isinstance(value, list):
        return [shifted(v, delta) for v in value]
    if isinstance(value, str) and 19 <= len(value) <= 35 and value[4:5] == "-" and value[10:11] in ("T", " "):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            return value
        if parsed.tzinfo is not None:
            return (parsed + delta).isoformat()
    return value


def make_copy(session: Session, *, source: Case, item_id: str, now: datetime) -> str:
    """Insert a copy of `source` as a new open case; returns the copy's id. Does not commit."""
    copy_id = stable_id("case", "quality", item_id)[:40]
    findings = list(session.scalars(select(FindingRow).where(FindingRow.case_id == source.id)
                                    .order_by(FindingRow.ts, FindingRow.finding_id)))
    last = max((f.ts for f in findings), default=source.created_at)
    delta = now - last
    session.add(Case(
        id=copy_id, family=source.family, category=source.category, rule=source.rule,
        subject_id=source.subject_id, incident=source.incident, open_key=None, status="open",
        priority=priority_of(max_score=source.max_score, category=source.category,
                             count=max(1, source.finding_count)),
        max_score=source.max_score, finding_count=source.finding_count, summary=source.summary,
        created_at=now, updated_at=now, reopened=0))
    session.flush()  # the case row first: findings, tags and proposals refer to it
    new_ids = {f.finding_id: stable_id("fnd", "quality", item_id, f.finding_id) for f in findings}
    for f in findings:
        session.add(FindingRow(
            finding_id=new_ids[f.finding_id], case_id=copy_id, detector=f.detector, rule=f.rule,
            family=f.family, category=f.category, score=f.score, subject_id=f.subject_id, players=list(f.players),
            ts=f.ts + delta, table_id=f.table_id, tournament_id=f.tournament_id, summary=f.summary,
            document=_document(f.document, new_id=new_ids[f.finding_id], delta=delta), ingested_at=now))
    session.flush()
    _copy_rows(session, source=source, copy_id=copy_id, new_ids=new_ids, delta=delta)
    return copy_id


def _document(doc: dict[str, Any], *, new_id: str, delta: timedelta) -> dict[str, Any]:
    out: dict[str, Any] = shifted(doc, delta)
    out["finding_id"] = new_id
    out["actions"] = [{**a, "action_id": stable_id("act", new_id, a.get("action_id"))}
                      for a in out.get("actions") or [] if isinstance(a, dict)]
    return out


def _copy_rows(session: Session, *, source: Case, copy_id: str, new_ids: dict[str, str],
               delta: timedelta) -> None:
    for p in session.scalars(select(FindingPlayer).where(FindingPlayer.case_id == source.id)):
        session.add(FindingPlayer(finding_id=new_ids[p.finding_id], player_id=p.player_id, case_id=copy_id,
                                  position=p.position, ts=p.ts + delta))
    for t in session.scalars(select(CaseTag).where(CaseTag.case_id == source.id)):
        session.add(CaseTag(tag=t.tag, case_id=copy_id, family=t.family))
    for a in session.scalars(select(CaseAction).where(CaseAction.case_id == source.id)):
        new_fid = new_ids.get(a.finding_id)
        if new_fid is None:
            continue
        # A copy's proposals wait for the reviewer like a new case's; automatic ones read as
        # applied, as they do on the case that arrived (no sanction stands behind them: see docs).
        session.add(CaseAction(
            action_id=stable_id("act", new_fid, a.action_id), case_id=copy_id, finding_id=new_fid,
            disposition=a.disposition, kind=a.kind, scope=a.scope, scope_value=a.scope_value,
            player_id=a.player_id, starts_at=a.starts_at + delta,
            expires_at=None if a.expires_at is None else a.expires_at + delta, reason=a.reason, rule=a.rule,
            status="applied" if a.disposition == "automatic" else "pending", role=a.role))
    session.flush()


def remove_copy(session: Session, *, copy_id: str) -> None:
    """Delete the copy and everything under it (the delete trigger takes it off the counters).
    Does not commit."""
    # Labels first: none should exist (an answer never reaches the labels hook), but a stray one
    # must not block the delete.
    for model in (LabelRow, FindingPlayer, CaseTag, CaseAction, FindingRow, Decision):
        session.execute(delete(model).where(model.case_id == copy_id))  # type: ignore[attr-defined]
    session.execute(delete(Case).where(Case.id == copy_id))
