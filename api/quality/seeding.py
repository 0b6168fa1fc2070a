"""Seeding golden items into the queues as reviewers fetch them.

Each fetch of an open queue checks the family's share of golden copies and, while one more copy
still keeps it at or under the admin's rate, adds one: a copy of the least-used golden source of
that family that has no copy in a queue yet. The share is of the open cases the exact counters
hold (`api.cases.counters`, the tab counts), so a fetch costs one small read and one index probe,
and inserts only while the share is under the rate. Seeding on fetch, not on a timer, keeps copies
arriving at the rhythm real cases are worked; a copy's place in the queue is its priority and age
like any case's.
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlalchemy import func, select, text
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from api.auth.roles import allowed
from api.cases import counters
from api.cases.models import CLOSED_STATUSES, Case
from api.cases.queue import ASSIGNEE_NONE, FAMILIES, QueueFilter
from api.db import lock_for_write
from api.ids import new_id
from api.privacy.players import EXPIRED
from api.quality import service
from api.quality.copies import make_copy
from api.quality.models import GoldenSource, QualityItem

log = logging.getLogger(__name__)
MAX_PER_FETCH = 10
"""A fetch adds at most this many copies: a new rate over a deep queue fills in over a few fetches
instead of holding one page for hundreds of inserts."""
_LOCK_BASE = 7_240_100
"""Advisory lock keys 7240100.. (one per family; the retention job uses 7240002)."""
SEED_STATUSES = frozenset({"open", "active"})
"""Queues a reviewer picks new work from: the only ones a copy is added for."""


def live_golden(session: Session, *, family: str) -> int:
    """Golden copies of `family` waiting in the open queue."""
    stmt = (select(func.count()).select_from(QualityItem).join(Case, Case.id == QualityItem.copy_case_id)
            .where(QualityItem.purpose == "golden", QualityItem.live_source.is_not(None),
                   Case.family == family, Case.status == "open"))
    return int(session.scalar(stmt) or 0)


def wants_one_more(*, golden: int, total: int, rate: float) -> bool:
    """True when one more copy keeps the golden share of the open queue at or under `rate`."""
    return rate > 0 and golden + 1 <= rate * (total + 1) + 1e-9


def top_up(session: Session, *, family: str, rate: float, now: datetime) -> list[str]:
    """Add golden copies to `family`'s open queue while one more keeps it at or under `rate`
    (at most `MAX_PER_FETCH`); the copies' ids. Commits."""
    total, golden = _shares(session, family=family)
    if not wants_one_more(golden=golden, total=total, rate=rate) or not _seeding_lock(session, family=family):
        return []
    total, golden = _shares(session, family=family)  # again, now that no other fetch seeds this family
    added: list[str] = []
    while len(added) < MAX_PER_FETCH and wants_one_more(golden=golden, total=total, rate=rate):
        copy_id = _seed_one(session, family=family, now=now)
        if copy_id is None:
            break  # every active source of the family is in a queue already
        added.append(copy_id)
        golden, total = golden + 1, total + 1
    if added:
        session.commit()
    else:
        session.rollback()  # ends the transaction and with it the lock
    return added


def _shares(session: Session, *, family: str) -> tuple[int, int]:
    """(open cases, golden copies among them) in `family`."""
    total = counters.total(counters.all_counts(session), families=(family,), statuses=("open",))
    return total, live_golden(session, family=family)


def _seeding_lock(session: Session, *, family: str) -> bool:
    """One seeder per family at a time, so two fetches at once cannot both fill the same gap and
    pass the rate. PostgreSQL: a transaction-level advisory lock, skipped (False) when another
    fetch holds it; SQLite: the write lock (`BEGIN IMMEDIATE`), waited for like any write."""
    if session.get_bind().dialect.name == "postgresql":
        key = _LOCK_BASE + FAMILIES.index(family)
        return bool(session.scalar(text("SELECT pg_try_advisory_xact_lock(:k)"), {"k": key}))
    lock_for_write(session)
    return True


def _seed_one(session: Session, *, family: str, now: datetime) -> str | None:
    live = select(QualityItem.live_source).where(QualityItem.live_source.is_not(None))
    # Only sources still closed: one reopened on appeal may be decided differently this time.
    source_id = session.scalar(select(GoldenSource.case_id).join(Case, Case.id == GoldenSource.case_id)
                               .where(GoldenSource.family == family, GoldenSource.active.is_(True),
                                      Case.status.in_(CLOSED_STATUSES), GoldenSource.case_id.not_in(live))
                               .order_by(GoldenSource.uses, GoldenSource.created_at, GoldenSource.case_id).limit(1))
    source = session.get(Case, source_id) if source_id else None
    golden = session.get(GoldenSource, source_id) if source_id else None
    if source is None or golden is None:
        return None
    if source.summary == EXPIRED:
        # Retention redacted its evidence: a copy would show "[expired]" and keep nothing to judge.
        golden.active = False
        session.flush()
        return _seed_one(session, family=family, now=now)
    item_id = new_id("qi")
    copy_id = make_copy(session, source=source, item_id=item_id, now=now)
    session.add(QualityItem(id=item_id, purpose="golden", source_case_id=source.id, copy_case_id=copy_id,
                            live_source=source.id, family=family, category=source.category,
                            expected=golden.expected, excluded_users=[], created_at=now))
    golden.uses += 1
    session.flush()
    return copy_id


def on_queue_fetch(sessions: sessionmaker[Session], *, families: tuple[str, ...], status: str,
                   now: datetime) -> None:
    """Top up each family's open queue before a reviewer's queue page is read; in its own write
    transaction (the page itself reads on an autocommit session). A concurrent fetch that seeded
    the same source wins; this one skips. Seeding never fails the page it runs for."""
    if status not in SEED_STATUSES:
        return
    with sessions() as session:
        rate = service.rates(session).golden_rate
        for family in families if rate > 0 else ():
            try:
                top_up(session, family=family, rate=rate, now=now)
            except IntegrityError:
                session.rollback()
                log.info("quality: a concurrent fetch seeded %s first", family)
            except SQLAlchemyError as exc:  # a busy database: the page is served, the next fetch seeds
                session.rollback()
                log.warning("quality: seeding %s skipped (%s)", family, type(exc).__name__)


def before_page(sessions: sessionmaker[Session], *, f: QueueFilter, role: str, now: datetime) -> None:
    """The queue page's hook (API and console): seed for reviewers picking new work (an open
    queue, not "my cases" or another reviewer's), in the family shown or, unfiltered, in each."""
    if not allowed("decide", role) or f.assignee not in (None, ASSIGNEE_NONE):
        return
    on_queue_fetch(sessions, families=(f.family,) if f.family else FAMILIES, status=f.status, now=now)
