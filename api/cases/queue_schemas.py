"""Request and response shapes of the queue's filters, tab counts and bulk close."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from fastapi import Depends, Query
from pydantic import BaseModel, Field, model_validator

from api.cases.params import ME
from api.cases.queue import MAX_QUERY, QueueFilter
from api.schemas import Body, Public, Reason
from pipeline.findings import Family

QueueStatus = Literal["open", "escalated", "on_hold", "confirmed", "appealed", "actioned", "dismissed", "active",
                      "all"]
QueueSort = Literal["priority", "oldest", "newest", "findings", "score"]
Age = Literal["lt1h", "lt24h", "gt24h", "gt7d"]
Text = Annotated[str | None, Query(min_length=1, max_length=MAX_QUERY)]
BULK_MAX = 1_000
"""Cases one bulk action closes at most."""


class QueueParams(BaseModel):
    """The queue's filters (the same names as the console's query string and saved views)."""

    family: Family | None = None
    status: QueueStatus = "open"
    category: str | None = Field(None, min_length=1, max_length=MAX_QUERY)
    detector: str | None = Field(None, min_length=1, max_length=MAX_QUERY)
    language: str | None = Field(None, min_length=1, max_length=16)
    age: Age | None = None
    assignee_id: str | None = Field(None, min_length=1, max_length=MAX_QUERY,
                                    description="a user id, `me` or `none` (unclaimed or lapsed)")
    automatic: bool | None = Field(None, description="true: every proposal was applied automatically")
    q: str | None = Field(None, max_length=MAX_QUERY,
                          description="player id or nickname, table, tournament, hand or case id")
    subject_id: str | None = Field(None, min_length=1, max_length=MAX_QUERY)

    def to_filter(self, *, me: str, created_before: datetime | None = None) -> QueueFilter:
        """The service's filter; `me` resolves `assignee_id=me`."""
        return QueueFilter(family=self.family, status=self.status, category=self.category, detector=self.detector,
                           language=self.language, age=self.age,
                           assignee=me if self.assignee_id == ME else self.assignee_id, automatic=self.automatic,
                           q=self.q, subject_id=self.subject_id, created_before=created_before)


def queue_params(family: Family | None = None, status: QueueStatus = "open", category: Text = None,
                 detector: Text = None, language: Annotated[str | None, Query(min_length=1, max_length=16)] = None,
                 age: Age | None = None, assignee_id: Text = None, automatic: bool | None = None,
                 q: Annotated[str | None, Query(max_length=MAX_QUERY)] = None,
                 subject_id: Text = None) -> QueueParams:
    """Query-string filters of GET /cases and /cases/counts."""
    return QueueParams(family=family, status=status, category=category, detector=detector, language=language,
                       age=age, assignee_id=assignee_id, automatic=automatic, q=q, subject_id=subject_id)


QueueQuery = Annotated[QueueParams, Depends(queue_params)]


class TabCountsPublic(Public):
    """Matching cases per family and per status; unless `exact`, a value above `cap` means "more than cap"."""

    families: dict[str, int]
    statuses: dict[str, int]
    cap: int
    exact: bool = False
    """True with no filter but family and status: exact counts from the per-(family, status) counters."""


class BulkFilter(QueueParams):
    """The filter a bulk action selects by (as in the queue), plus the snapshot time."""

    model_config = {"extra": "forbid"}

    created_before: datetime | None = Field(None, description="only cases opened at or before (what the user saw)")


class BulkCloseRequest(Body):
    """Close the listed cases, or every case matching `filter` (then `expected` must match the count)."""

    case_ids: list[Annotated[str, Field(min_length=1, max_length=64)]] | None = Field(None, max_length=BULK_MAX)
    filter: BulkFilter | None = None
    expected: int | None = Field(None, ge=1, le=BULK_MAX,
                                 description="how many cases the user saw match; a different count is a 409")
    outcome: Literal["actioned", "dismissed"]
    reason: Reason

    @model_validator(mode="after")
    def _one_selection(self) -> BulkCloseRequest:
        if (self.case_ids is None) == (self.filter is None):
            raise ValueError("give either case_ids or filter")
        if self.filter is not None and self.expected is None:
            raise ValueError("a filter selection needs expected (the count the user confirmed)")
        if self.case_ids is not None and not self.case_ids:
            raise ValueError("case_ids is empty")
        return self


class Skipped(Public):
    """A case the bulk action left alone, and why."""

    case_id: str
    reason: str


class BulkCloseResult(Public):
    """What a bulk close did: one id for the whole action (in every case's audit entry)."""

    bulk_id: str
    outcome: str
    closed: list[str]
    skipped: list[Skipped]
