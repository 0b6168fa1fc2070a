"""Cases (the unit of review) and the actions policy proposed for them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base, UtcDateTime

OPEN_STATUSES = ("open", "escalated", "on_hold", "confirmed", "appealed")
CLOSED_STATUSES = ("actioned", "dismissed")


class Case(Base):
    """Findings about one player, one offence family and one incident, reviewed together."""

    __tablename__ = "cases"
    __table_args__ = (
        Index("ix_cases_status_created", "status", "created_at"),
        Index("ix_cases_subject", "subject_id", "created_at"),
        Index("ix_cases_category", "category", "family", "status", "id"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    family: Mapped[str] = mapped_column(String(16))
    category: Mapped[str] = mapped_column(String(64))
    rule: Mapped[str] = mapped_column(String(128))
    subject_id: Mapped[str] = mapped_column(String(128))
    incident: Mapped[str] = mapped_column(String(160))
    open_key: Mapped[str | None] = mapped_column(String(320), unique=True)
    """family|subject|incident while the case accepts new findings, NULL once closed: the unique
    constraint is what lets concurrent ingesters agree on one open case."""
    status: Mapped[str] = mapped_column(String(16))
    priority: Mapped[int] = mapped_column(Integer)
    max_score: Mapped[float] = mapped_column(Float)
    finding_count: Mapped[int] = mapped_column(Integer, default=0)
    summary: Mapped[str] = mapped_column(Text)
    assignee_id: Mapped[str | None] = mapped_column(ForeignKey("users.id"))
    claim_expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    decided_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    reopened: Mapped[int] = mapped_column(Integer, default=0)


class CaseAction(Base):
    """An ActionProposal attached to a case; `status` pending until confirmed, applied or dropped."""

    __tablename__ = "case_actions"

    action_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    case_id: Mapped[str] = mapped_column(ForeignKey("cases.id"), index=True)
    finding_id: Mapped[str] = mapped_column(ForeignKey("findings.finding_id"))
    disposition: Mapped[str] = mapped_column(String(16))
    kind: Mapped[str] = mapped_column(String(32))
    scope: Mapped[str] = mapped_column(String(16))
    scope_value: Mapped[str | None] = mapped_column(String(128))
    player_id: Mapped[str] = mapped_column(String(128))
    starts_at: Mapped[datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    reason: Mapped[str] = mapped_column(Text)
    rule: Mapped[str] = mapped_column(String(128))
    status: Mapped[str] = mapped_column(String(16))
    role: Mapped[str] = mapped_column(String(16), default="offender", server_default="offender")
    """offender (the finding's subject), partner (a co-offender it names) or victim (offered a remedy)."""


QUEUE_RANK = -Case.priority
"""Queue order is (-priority, created_at, id), all ascending, so a row-value comparison can seek the
index directly for any page (mixed ASC/DESC orders cannot be expressed as one row comparison)."""

Index("ix_cases_queue_rank", Case.family, Case.status, QUEUE_RANK, Case.created_at, Case.id)
Index("ix_cases_status_rank", Case.status, QUEUE_RANK, Case.created_at, Case.id)
Index("ix_cases_family_status_age", Case.family, Case.status, Case.created_at, Case.id)
"""The queue sorted by age (oldest or newest first), keyset-paginated like the priority order."""
Index("ix_cases_assignee", Case.assignee_id, Case.status)
"""'My cases': the few cases one reviewer holds."""


class CaseTag(Base):
    """What a case's findings name, as `kind:value` (`api.cases.tags`): detector, language, other
    players, nicknames, tables, tournaments, hands, reporters. One index seek per filter or search."""

    __tablename__ = "case_tags"
    __table_args__ = (Index("ix_case_tags_case", "case_id"),
                      Index("ix_case_tags_family", "tag", "family", "case_id"))

    tag: Mapped[str] = mapped_column(String(200), primary_key=True)
    case_id: Mapped[str] = mapped_column(ForeignKey("cases.id"), primary_key=True)
    family: Mapped[str | None] = mapped_column(String(16))
    """The case's family (fixed for its life): the queue's tag filters within a family seek
    `(tag, family)` (migration 0007)."""

Index("ix_cases_findings_rank", Case.family, Case.status, Case.finding_count, Case.id)
Index("ix_cases_score_rank", Case.family, Case.status, Case.max_score, Case.id)
"""The `findings` and `score` sorts (descending: the index read backwards) within one family and status."""


class CaseCount(Base):
    """Cases per (family, status) as signed deltas, written by database triggers on `cases`
    (migration 0007, `api.cases.counters`): every insert, delete and change of family or status adds
    rows here in the same transaction, so the exact tab counts are a sum over a few hundred rows.

    Append-only (no row is updated), so concurrent writers never wait on or deadlock over a
    counter; readers fold the deltas into one row per group now and then. A migration that rebuilds
    `cases` on SQLite (batch mode copies the table) must recreate the triggers.
    """

    __tablename__ = "case_counts"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer(), "sqlite"), primary_key=True,
                                    autoincrement=True)
    family: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    n: Mapped[int] = mapped_column(BigInteger().with_variant(Integer(), "sqlite"))
