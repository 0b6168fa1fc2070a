"""Reviewers' decisions on chat findings as labelled examples: written when a chat case is
confirmed or dismissed, corrected from the case page, exported for `railbird train chat`.

A confirmation labels each chat finding's message with the finding's category, a dismissal with
`clean`; the reviewer may then correct the category or mark the offending span. Provenance
(decision, case, finding, reviewer, role, time, detector, score) travels with every example, so a
trained model can say which decisions taught it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.audit import service as audit
from api.auth.models import User
from api.auth.service import Principal
from api.cases.models import Case
from api.decisions.models import Decision
from api.errors import ConflictError, ForbiddenError, InvalidError, NotFoundError
from api.findings.models import FindingRow
from api.labels.models import LabelRow
from pipeline.categories import AUDIT_SAMPLE, CHAT_OFFENCES
from pipeline.findings import stable_id

CLEAN = "clean"
VERDICTS = {"confirm": None, "dismiss": CLEAN}
"""Decisions that say something about the text: None = the finding's own category."""
CHAT_CATEGORIES: frozenset[str] = CHAT_OFFENCES
LABEL_CATEGORIES: frozenset[str] = CHAT_CATEGORIES | {CLEAN}
EXPORT_LIMIT = 200_000
"""Most rows one export returns (newest decisions last); `since` pages through more."""


def on_decision(session: Session, *, decision: Decision, case: Case, principal: Principal,
                now: datetime) -> list[LabelRow]:
    """The decisions hook: label every chat finding of a confirmed or dismissed chat case (other
    decisions and families teach the text model nothing). Idempotent per (decision, finding)."""
    if decision.kind not in VERDICTS or case.family != "chat":
        return []
    user = _active_user(session, principal, doing="decide")
    findings = session.scalars(select(FindingRow).where(FindingRow.case_id == case.id, FindingRow.family == "chat"))
    out: list[LabelRow] = []
    for finding in findings:
        message = _message_of(finding)
        if message is None:
            continue  # a chat finding without text (a nickname's or SnapCam's): nothing to learn
        label_id = stable_id("lbl", decision.id, finding.finding_id)
        row = session.get(LabelRow, label_id)
        if row is None:
            row = LabelRow(
                id=label_id, finding_id=finding.finding_id, case_id=case.id, decision_id=decision.id,
                reviewer_id=user.id, reviewer=user.username, role=principal.role, verdict=decision.kind,
                decided_at=now, detector=finding.detector, finding_category=finding.category,
                score=float(finding.score), event_id=_str_or_none(message.get("event_id")),
                text=str(message.get("text", "")), language=_language_of(finding),
                category=VERDICTS[decision.kind] or _confirmed_category(finding), status="ok", status_reason="",
            )
            session.add(row)
        out.append(row)
    session.flush()
    refresh_conflicts(session, finding_ids={r.finding_id for r in out})
    return out


@dataclass(frozen=True, slots=True)
class Correction:
    """What a reviewer changes on their own label of a finding: the category, the span, or both."""

    finding_id: str
    category: str | None = None
    span_start: int | None = None
    span_end: int | None = None


def correct(session: Session, *, correction: Correction, principal: Principal, now: datetime) -> LabelRow:
    """Amend the caller's newest label of the finding (decide the case first); audited."""
    user = _active_user(session, principal, doing="correct a label")
    c = correction
    row = session.scalar(select(LabelRow).where(LabelRow.finding_id == c.finding_id, LabelRow.reviewer_id == user.id)
                         .order_by(LabelRow.decided_at.desc(), LabelRow.id.desc()).limit(1))
    if row is None:
        if session.get(FindingRow, c.finding_id) is None:
            raise NotFoundError(f"finding {c.finding_id} not found")
        raise ConflictError(f"you have not decided finding {c.finding_id}'s case: a correction amends the label "
                            "your own confirm or dismiss made")
    category = c.category.strip() if c.category else row.category
    if category not in LABEL_CATEGORIES:
        raise InvalidError(f"unknown category {category!r}: use clean or a chat category "
                           f"({', '.join(sorted(CHAT_CATEGORIES))})")
    start, end = _span(c, text=row.text, category=category, keep=(row.span_start, row.span_end))
    row.category, row.span_start, row.span_end = category, start, end
    row.corrected_by, row.corrected_at = user.username, now
    session.flush()
    refresh_conflicts(session, finding_ids={row.finding_id})
    audit.append(session, actor=principal.username, action="label.correct", entity_type="finding",
                 entity_id=row.finding_id, payload={"label_id": row.id, "category": category,
                                                    "span": [start, end] if start is not None else None},
                 now=now)
    session.commit()
    return row


def _span(c: Correction, *, text: str, category: str, keep: tuple[int | None, int | None]) -> tuple[int | None, int | None]:
    """The span to store: the new one (checked against the text), else the old one; a clean line has none."""
    if (c.span_start is None) != (c.span_end is None):
        raise InvalidError("a span needs both span_start and span_end")
    start, end = (c.span_start, c.span_end) if c.span_start is not None else keep
    if category == CLEAN:
        if c.span_start is not None:
            raise InvalidError("a clean line has no offending span: clear the span or choose a category")
        return None, None
    if start is None or end is None:
        return None, None
    if not 0 <= start < end <= len(text):
        raise InvalidError(f"span {start}-{end} is outside the message (0-{len(text)} characters) or empty")
    return start, end


def refresh_conflicts(session: Session, *, finding_ids: Iterable[str]) -> None:
    """Mark every label of a finding `conflicting` when its labels disagree on the category, with
    who said what; back to `ok` when a correction makes them agree. Both stay stored."""
    ids = sorted(set(finding_ids))
    for start in range(0, len(ids), 500):
        rows = list(session.scalars(select(LabelRow).where(LabelRow.finding_id.in_(ids[start:start + 500]))
                                    .order_by(LabelRow.decided_at, LabelRow.id)))
        by_finding: dict[str, list[LabelRow]] = {}
        for r in rows:
            by_finding.setdefault(r.finding_id, []).append(r)
        for group in by_finding.values():
            said = dict.fromkeys(f"{r.reviewer} ({r.role}) {r.category}" for r in group)
            disagree = len({r.category for r in group}) > 1
            for r in group:
                r.status = "conflicting" if disagree else "ok"
                r.status_reason = ("reviewers disagree: " + "; ".join(said)) if disagree else ""
    session.flush()


def for_case(session: Session, *, case_id: str) -> list[LabelRow]:
    """A case's labels, oldest decision first (the case page's correction form)."""
    return list(session.scalars(select(LabelRow).where(LabelRow.case_id == case_id)
                                .order_by(LabelRow.decided_at, LabelRow.id)))


def export(session: Session, *, since: datetime | None, principal: Principal, now: datetime) -> list[dict[str, Any]]:
    """Every label (decided at or after `since`) as one JSON object each, with whether training may
    use it and why not; the export is audited (it holds players' own words) and committed."""
    stmt = select(LabelRow, User.active).join(User, User.id == LabelRow.reviewer_id)
    if since is not None:
        stmt = stmt.where(LabelRow.decided_at >= since)
    rows = session.execute(stmt.order_by(LabelRow.decided_at, LabelRow.id).limit(EXPORT_LIMIT)).all()
    out = [export_row(row, reviewer_active=bool(active)) for row, active in rows]
    audit.append(session, actor=principal.username, action="labels.export", entity_type="labels",
                 entity_id="export", payload={"rows": len(out), "since": since.isoformat() if since else None,
                                              "trainable": sum(1 for r in out if r["train"])}, now=now)
    session.commit()
    return out


def export_row(row: LabelRow, *, reviewer_active: bool) -> dict[str, Any]:
    """One JSON-lines object: the example, its provenance, and whether training may use it."""
    excluded = exclusion(row, reviewer_active=reviewer_active)
    return {
        "label_id": row.id,
        "text": row.text,
        "category": row.category,
        "language": row.language,
        "span": [row.span_start, row.span_end] if row.span_start is not None else None,
        "status": row.status,
        "train": excluded == "",
        "excluded_reason": excluded,
        "provenance": {
            "decision_id": row.decision_id, "case_id": row.case_id, "finding_id": row.finding_id,
            "event_id": row.event_id, "reviewer": row.reviewer, "role": row.role, "verdict": row.verdict,
            "decided_at": row.decided_at.isoformat(), "detector": row.detector,
            "finding_category": row.finding_category, "score": row.score,
            "corrected_by": row.corrected_by,
            "corrected_at": row.corrected_at.isoformat() if row.corrected_at else None,
        },
    }


def exclusion(row: LabelRow, *, reviewer_active: bool) -> str:
    """Why training must not use a label ("" when it may)."""
    if row.status == "conflicting":
        return row.status_reason or "reviewers disagree"
    if not reviewer_active:
        # A deactivated account may have been compromised or misused: its verdicts stay on
        # record but teach the model nothing until someone re-decides the case.
        return f"reviewer {row.reviewer} is deactivated"
    if not row.text.strip():
        return "text erased (player erasure or evidence retention)"
    return ""


def forget_texts(session: Session, *, finding_ids: Iterable[str]) -> int:
    """Blank the text of the findings' labels (player erasure, evidence retention): a label is a
    copy of the player's words and goes when the evidence does; its provenance stays."""
    ids = sorted(set(finding_ids))
    n = 0
    for start in range(0, len(ids), 500):
        for row in session.scalars(select(LabelRow).where(LabelRow.finding_id.in_(ids[start:start + 500]))):
            row.text, row.span_start, row.span_end, n = "", None, None, n + 1
    return n


def forget_case_texts(session: Session, *, case_ids: Iterable[str]) -> int:
    """`forget_texts` for every finding of the cases (retention redacts by case)."""
    ids = sorted(set(case_ids))
    findings = [f for start in range(0, len(ids), 500)
                for f in session.scalars(select(LabelRow.finding_id).where(LabelRow.case_id.in_(ids[start:start + 500])))]
    return forget_texts(session, finding_ids=findings)


def _active_user(session: Session, principal: Principal, *, doing: str) -> User:
    user = session.get(User, principal.user_id)
    if user is None:
        raise ForbiddenError(f"only a reviewer account may {doing}: {principal.username} is not one")
    if not user.active:
        raise ForbiddenError(f"user {user.username} is deactivated: they may not {doing}")
    return user


def _message_of(finding: FindingRow) -> dict[str, Any] | None:
    """The message a chat finding is about: the one its spans mark, else its only (first) one."""
    ev = (finding.document or {}).get("evidence") or {}
    messages = [m for m in ev.get("messages") or [] if isinstance(m, dict) and str(m.get("text", "")).strip()]
    if not messages:
        return None
    return next((m for m in messages if m.get("spans")), messages[0])


def _confirmed_category(finding: FindingRow) -> str:
    """What a confirmation says the line is: the finding's category, or for an audit sample (whose
    category says only "nobody flagged this") the category the model came closest to; the analyst
    corrects it on the case page when it is another one."""
    if finding.category != AUDIT_SAMPLE:
        return finding.category
    ev = (finding.document or {}).get("evidence") or {}
    guess = ev.get("suspected")
    if isinstance(guess, str) and guess in CHAT_OFFENCES:
        return guess
    scores = {k: v for k, v in (ev.get("scores") or {}).items() if k in CHAT_OFFENCES and isinstance(v, int | float)}
    return max(sorted(scores), key=scores.__getitem__) if scores else "insult"  # a hand-made row: any offence


def _language_of(finding: FindingRow) -> str | None:
    ev = (finding.document or {}).get("evidence") or {}
    return _str_or_none(ev.get("language"))


def _str_or_none(value: object) -> str | None:
    return str(value)[:128] if isinstance(value, str) and value else None
