"""Routes: reviewer quality for seniors and admins (rates, golden items, metrics, second reviews)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query

from api.db import SessionDep
from api.deps import NowDep, PrincipalDep
from api.quality import metrics, service
from api.quality.schemas import (
    GoldenCreate,
    GoldenPublic,
    GoldenRetire,
    MetricsPublic,
    RatePublic,
    RatesPublic,
    RatesUpdate,
    ReviewPublic,
)

ReviewStatus = Literal["second", "third", "agreed", "upheld", "overturned"]


def rates_public(r: service.Rates) -> RatesPublic:
    """Response body for the rates."""
    return RatesPublic(golden_rate=r.golden_rate, second_review_rate=r.second_review_rate, revision=r.revision,
                       changed_by=r.changed_by, changed_at=r.changed_at, reason=r.reason)


def _rows(rates: list[metrics.Rate]) -> list[RatePublic]:
    return [RatePublic(key=r.key, n=r.n, hits=r.hits, rate=r.rate, low=r.low) for r in rates]


def metrics_public(m: metrics.Metrics) -> MetricsPublic:
    """Response body for the metrics."""
    return MetricsPublic(
        accuracy_by_reviewer=_rows(m.accuracy_by_reviewer), accuracy_by_category=_rows(m.accuracy_by_category),
        agreement_by_reviewer=_rows(m.agreement_by_reviewer), agreement_by_category=_rows(m.agreement_by_category),
        golden_answered=m.golden_answered, golden_live=m.golden_live, reviews_open=m.reviews_open,
        reviews_overturned=m.reviews_overturned)


def router() -> APIRouter:
    """Quality routes."""
    r = APIRouter(tags=["quality"])

    @r.get("/quality/settings", response_model=RatesPublic)
    def get_rates(session: SessionDep) -> RatesPublic:
        """The golden and second-review rates in force."""
        return rates_public(service.rates(session))

    @r.patch("/admin/quality", response_model=RatesPublic)
    def set_rates(body: RatesUpdate, session: SessionDep, now: NowDep, who: PrincipalDep) -> RatesPublic:
        """Admin: set the rates (each in [0, 0.5]; audited, revisioned)."""
        rates, _ = service.set_rates(session, golden_rate=body.golden_rate,
                                     second_review_rate=body.second_review_rate, reason=body.reason,
                                     expected_revision=body.expected_revision, actor=who.username, now=now)
        return rates_public(rates)

    @r.get("/quality/golden", response_model=list[GoldenPublic])
    def list_golden(session: SessionDep) -> list[GoldenPublic]:
        """Golden sources, newest first."""
        return [GoldenPublic.model_validate(g) for g in service.golden_sources(session)]

    @r.post("/quality/golden", response_model=GoldenPublic)
    def mark(body: GoldenCreate, session: SessionDep, now: NowDep, who: PrincipalDep) -> GoldenPublic:
        """Senior/admin: use a closed case as a golden item with its correct decision (audited)."""
        return GoldenPublic.model_validate(service.mark_golden(session, case_id=body.case_id, expected=body.expected,
                                                               reason=body.reason, principal=who, now=now))

    @r.post("/quality/golden/{case_id}/retire", response_model=GoldenPublic)
    def retire(case_id: str, body: GoldenRetire, session: SessionDep, now: NowDep, who: PrincipalDep) -> GoldenPublic:
        """Senior/admin: stop seeding copies of this golden item (audited)."""
        return GoldenPublic.model_validate(service.retire_golden(session, case_id=case_id, reason=body.reason,
                                                                 principal=who, now=now))

    @r.get("/quality/metrics", response_model=MetricsPublic)
    def get_metrics(session: SessionDep) -> MetricsPublic:
        """Accuracy on golden items and agreement on second reviews, per reviewer and category, with n."""
        return metrics_public(metrics.compute(session))

    @r.get("/quality/reviews", response_model=list[ReviewPublic])
    def list_reviews(session: SessionDep, status: ReviewStatus | None = None,
                     limit: Annotated[int, Query(ge=1, le=500)] = 100) -> list[ReviewPublic]:
        """Sampled second reviews, newest first (`overturned`: the majority disagreed with the case)."""
        return [ReviewPublic.model_validate(x) for x in metrics.reviews(session, status=status, limit=limit)]

    return r
