"""A reviewer's answer on a quality copy, and the sampling of closed cases for a second review.

`intercept` runs first in every decision (`api.decisions.service.decide`): on a real case it is one
index probe and returns None; on a copy it grades the answer, deletes the copy and returns the
decision the reviewer would have seen, so no proposal is applied, no sanction or enforcement event
is written and nothing is recorded against the players. A hold (and, on a second-review copy, an
escalation) is not an answer: it takes the normal path, which never sanctions, and the copy waits
for whoever decides it next, as a real case would.
"""

from __future__ import annotations

import hashlib
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.audit import service as audit
from api.auth.service import Principal
from api.cases import service as cases
from api.cases.models import Case
from api.decisions import four_eyes
from api.decisions.models import Decision
from api.errors import ConflictError
from api.ids import new_id
from api.quality import service
from api.quality.copies import make_copy, remove_copy
from api.quality.models import QualityItem, SecondReview

VERDICTS = frozenset({"confirm", "dismiss"})


def intercept(session: Session, *, case_id: str, kind: str, reason: str, principal: Principal,
              now: datetime) -> Decision | None:
    """Grade a decision on a live quality copy (commits) and return it; None for any other case."""
    item = session.scalar(select(QualityItem).where(QualityItem.copy_case_id == case_id,
                                                    QualityItem.live_source.is_not(None)))
    if item is None or kind == "hold" or (item.purpose != "golden" and kind not in VERDICTS):
        return None
    cases.require_claim(cases.get(session, case_id=case_id), principal=principal, now=now)
    if principal.user_id in (item.excluded_users or []):
        raise ConflictError(f"case {case_id} is a second review of a case you decided; another reviewer must "
                            "answer it: release it")
    decision = Decision(id=new_id("dec"), case_id=case_id, kind=kind, reason=reason, user_id=principal.user_id,
                        created_at=now)  # shown to the reviewer, never stored under the copy
    _grade(session, item=item, kind=kind, reason=reason, principal=principal, now=now)
    session.commit()
    return decision


def _grade(session: Session, *, item: QualityItem, kind: str, reason: str, principal: Principal,
           now: datetime) -> None:
    """Record the answer, delete the copy, audit. Does not commit."""
    item.answer, item.answered_by, item.answered_at = kind, principal.user_id, now
    item.correct = kind == item.expected
    item.live_source = None
    session.flush()  # frees the source for the third reviewer's copy below
    if item.purpose != "golden":
        _vote(session, item=item, kind=kind, principal=principal, now=now)
    remove_copy(session, copy_id=item.copy_case_id)
    audit.append(session, actor=principal.username, action=f"quality.answer.{item.purpose}",
                 entity_type="quality_item", entity_id=item.id, now=now,
                 payload={"copy_case_id": item.copy_case_id, "source_case_id": item.source_case_id, "answer": kind,
                          "expected": item.expected, "correct": item.correct, "reason": reason})


def closed_in_bulk(session: Session, *, case_ids: list[str], kind: str, reason: str, principal: Principal,
                   now: datetime) -> None:
    """After a bulk close (`api.cases.bulk`): grade the copies it closed as that answer and delete
    them, as a single decision would; a second-review copy closed by one of its excluded reviewers
    is not an answer and goes back to the queue as a fresh copy. Does not commit."""
    if not case_ids:
        return
    items = list(session.scalars(select(QualityItem).where(QualityItem.copy_case_id.in_(case_ids),
                                                           QualityItem.live_source.is_not(None))))
    for item in items:
        if principal.user_id not in (item.excluded_users or []):
            _grade(session, item=item, kind=kind, reason=reason, principal=principal, now=now)
            continue
        item.live_source = None
        session.flush()
        remove_copy(session, copy_id=item.copy_case_id)
        review = session.get(SecondReview, item.review_id) if item.review_id else None
        if review is not None:
            _new_item(session, review=review, purpose=item.purpose, excluded=item.excluded_users, now=now)


def _vote(session: Session, *, item: QualityItem, kind: str, principal: Principal, now: datetime) -> None:
    """Record a second or third reviewer's verdict and what it decides (four-eyes majority rules)."""
    review = session.get(SecondReview, item.review_id) if item.review_id else None
    if review is None:
        return
    votes = [four_eyes.Vote(review.first_user_id, review.first_kind)]  # type: ignore[arg-type]
    if item.purpose == "second":
        review.second_user_id, review.second_kind = principal.user_id, kind
    else:
        review.third_user_id, review.third_kind = principal.user_id, kind
        votes.append(four_eyes.Vote(review.second_user_id or "", review.second_kind))  # type: ignore[arg-type]
    result = four_eyes.outcome([*votes, four_eyes.Vote(principal.user_id, kind)])  # type: ignore[arg-type]
    if result == "needs_third" and item.purpose == "second":
        review.status = "third"
        _new_item(session, review=review, purpose="third", now=now,
                  excluded=[*item.excluded_users, principal.user_id])
        return
    if item.purpose == "second":
        review.status = "agreed"
    else:
        review.status = "upheld" if result == review.first_kind else "overturned"
    review.closed_at = now


def _new_item(session: Session, *, review: SecondReview, purpose: str, excluded: list[str],
              now: datetime) -> QualityItem | None:
    """A blind copy of the reviewed case in the queue; None when a copy of it is already there."""
    source = session.get(Case, review.case_id)
    taken = session.scalar(select(QualityItem.id).where(QualityItem.live_source == review.case_id))
    if source is None or taken is not None:
        return None
    item_id = new_id("qi")
    copy_id = make_copy(session, source=source, item_id=item_id, now=now)
    item = QualityItem(id=item_id, purpose=purpose, source_case_id=source.id, copy_case_id=copy_id,
                       live_source=source.id, family=source.family, category=source.category,
                       expected=review.first_kind, review_id=review.id,
                       excluded_users=list(dict.fromkeys(excluded)), created_at=now)
    session.add(item)
    session.flush()
    return item


def draw(case_id: str, decided_at: datetime) -> float:
    """A uniform number in [0, 1) fixed by the case and its closing: the sample is reproducible,
    and a case reopened on appeal and closed again is drawn afresh."""
    digest = hashlib.sha256(f"{case_id}|{decided_at.isoformat()}".encode()).hexdigest()
    return int(digest[:13], 16) / 16**13


def sample_second_review(session: Session, *, case: Case, now: datetime) -> SecondReview | None:
    """After a case closes: at the admin's rate, queue a blind copy for a second reviewer (the
    case's own reviewers excluded). Does not commit: part of the decision's transaction."""
    first_kind = service.OUTCOME_OF.get(case.status)
    if first_kind is None or case.decided_at is None or service.copy_ids(session, [case.id]):
        return None
    rate = service.rates(session).second_review_rate
    if rate <= 0 or draw(case.id, case.decided_at) >= rate:
        return None
    session.flush()
    decided = list(session.scalars(select(Decision).where(Decision.case_id == case.id,
                                                          Decision.kind.in_(("confirm", "dismiss", "escalate")))
                                   .order_by(Decision.created_at, Decision.id)))
    verdicts = [d for d in decided if d.kind in VERDICTS]
    if not verdicts:
        return None
    review = SecondReview(id=new_id("qr"), case_id=case.id, family=case.family, category=case.category,
                          first_user_id=verdicts[-1].user_id, first_kind=first_kind, status="second",
                          created_at=now)
    session.add(review)
    session.flush()
    if _new_item(session, review=review, purpose="second", excluded=[d.user_id for d in decided], now=now) is None:
        session.delete(review)
        return None
    return review
