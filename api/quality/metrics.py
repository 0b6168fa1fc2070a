"""Accuracy (golden items) and agreement (second reviews), per reviewer and per category.

Every figure comes with its sample size and the lower end of a 95 % Wilson interval, because a
reviewer with 3 of 3 right is not yet known to be better than one with 95 of 100.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from api.auth.service import usernames
from api.quality.models import QualityItem, SecondReview


@dataclass(frozen=True, slots=True)
class Rate:
    """`hits` of `n`; `rate` None without a sample."""

    key: str
    n: int
    hits: int

    @property
    def rate(self) -> float | None:
        return None if self.n == 0 else self.hits / self.n

    @property
    def low(self) -> float | None:
        """Wilson lower bound at 95 %."""
        if self.n == 0:
            return None
        z, p, n = 1.96, self.hits / self.n, self.n
        centre = p + z * z / (2 * n)
        margin = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return max(0.0, (centre - margin) / (1 + z * z / n))


@dataclass(frozen=True, slots=True)
class Metrics:
    """What /console/quality and GET /v1/quality/metrics show."""

    accuracy_by_reviewer: list[Rate]
    accuracy_by_category: list[Rate]
    agreement_by_reviewer: list[Rate]
    agreement_by_category: list[Rate]
    golden_answered: int
    golden_live: int
    reviews_open: int
    reviews_overturned: int


def _rates(pairs: Iterable[tuple[str, bool]]) -> list[Rate]:
    n: dict[str, int] = defaultdict(int)
    hits: dict[str, int] = defaultdict(int)
    for key, ok in pairs:
        n[key] += 1
        hits[key] += int(ok)
    return sorted((Rate(k, n[k], hits[k]) for k in n), key=lambda r: (-r.n, r.key))


def compute(session: Session) -> Metrics:
    """All four tables from the answered golden items and the second reviews."""
    golden = list(session.execute(
        select(QualityItem.answered_by, QualityItem.category, QualityItem.correct)
        .where(QualityItem.purpose == "golden", QualityItem.answered_at.is_not(None))).all())
    reviews = list(session.scalars(select(SecondReview).where(SecondReview.second_kind.is_not(None))))
    # Each review compares every pair of its reviewers: first-second, and third with each of them.
    pairs: list[tuple[str, str, bool]] = []
    for r in reviews:
        votes = [(r.first_user_id, r.first_kind), (r.second_user_id, r.second_kind)]
        if r.third_user_id and r.third_kind:
            votes.append((r.third_user_id, r.third_kind))
        for i, (a, ka) in enumerate(votes):
            for b, kb in votes[i + 1:]:
                pairs.append((a or "", b or "", ka == kb))
    ids = {u for u, _, _ in golden if u} | {u for a, b, _ in pairs for u in (a, b)}
    names = usernames(session, user_ids=ids)

    def name(user_id: str | None) -> str:
        return names.get(user_id or "", user_id or "?")

    live = session.scalar(select(func.count()).select_from(QualityItem)
                          .where(QualityItem.purpose == "golden", QualityItem.live_source.is_not(None)))
    open_reviews = session.scalar(select(func.count()).select_from(SecondReview)
                                  .where(SecondReview.status.in_(("second", "third"))))
    overturned = session.scalar(select(func.count()).select_from(SecondReview)
                                .where(SecondReview.status == "overturned"))
    return Metrics(
        accuracy_by_reviewer=_rates((name(u), bool(ok)) for u, _, ok in golden),
        accuracy_by_category=_rates((c, bool(ok)) for _, c, ok in golden),
        agreement_by_reviewer=_rates([(name(a), ok) for a, _, ok in pairs] + [(name(b), ok) for _, b, ok in pairs]),
        agreement_by_category=_rates((r.category, r.second_kind == r.first_kind) for r in reviews),
        golden_answered=len(golden), golden_live=int(live or 0), reviews_open=int(open_reviews or 0),
        reviews_overturned=int(overturned or 0),
    )


def reviews(session: Session, *, status: str | None, limit: int) -> list[SecondReview]:
    """Second reviews, newest first, optionally of one status."""
    stmt = select(SecondReview)
    if status:
        stmt = stmt.where(SecondReview.status == status)
    return list(session.scalars(stmt.order_by(SecondReview.created_at.desc(), SecondReview.id).limit(limit)))
