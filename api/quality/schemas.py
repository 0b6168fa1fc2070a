"""Request and response shapes of the reviewer-quality API."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from api.schemas import Body, Public, Reason


class RatesPublic(Public):
    """The rates in force (revision 0: never set, both off)."""

    golden_rate: float
    second_review_rate: float
    revision: int
    changed_by: str | None
    changed_at: datetime | None
    reason: str | None


class RatesUpdate(Body):
    """Admin: new rates (each in [0, 0.5]; an omitted one stays), with the reason for the audit."""

    golden_rate: float | None = None
    second_review_rate: float | None = None
    reason: Reason
    expected_revision: int | None = Field(default=None, ge=0)


class GoldenCreate(Body):
    """Senior/admin: use a closed case as a golden item with the correct decision."""

    case_id: str = Field(min_length=1, max_length=40)
    expected: str = Field(min_length=1, max_length=16)
    reason: Reason


class GoldenRetire(Body):
    """Stop seeding copies of a golden item."""

    reason: Reason


class GoldenPublic(Public):
    """A golden source and how often a copy of it was seeded."""

    case_id: str
    family: str
    category: str
    expected: str
    active: bool
    uses: int
    created_by: str
    created_at: datetime
    reason: str


class RatePublic(Public):
    """One row of a quality table: `n` answers (or compared pairs), `hits` of them right (agreeing)."""

    key: str
    """A reviewer's username or a category."""
    n: int
    hits: int
    rate: float | None
    """hits / n, None without a sample; read it with `n`."""
    low: float | None = None
    """Lower end of the 95 % Wilson interval: how far a small sample can be trusted."""


class MetricsPublic(Public):
    """Accuracy on golden items and agreement on second reviews, per reviewer and per category."""

    accuracy_by_reviewer: list[RatePublic]
    accuracy_by_category: list[RatePublic]
    agreement_by_reviewer: list[RatePublic]
    agreement_by_category: list[RatePublic]
    golden_answered: int
    golden_live: int
    reviews_open: int
    reviews_overturned: int


class ReviewPublic(Public):
    """A sampled second review and, on disagreement, the third reviewer's verdict."""

    id: str
    case_id: str
    family: str
    category: str
    first_user_id: str
    first_kind: str
    second_user_id: str | None
    second_kind: str | None
    third_user_id: str | None
    third_kind: str | None
    status: str
    created_at: datetime
    closed_at: datetime | None
