"""The queue: filters, search, sorts with keyset pagination, and capped counts per tab.

Every sort is a keyset over (sort key..., id) in one direction, so the next page is a row-value
comparison the database answers with an index range seek at any depth (`ix_cases_queue_rank` for
priority, `ix_cases_family_status_age` for age, within one family and status). The cursor names its
sort: a cursor from another sort is a 422, not a silently wrong page.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import ColumnElement, Select, and_, exists, func, not_, or_, select, tuple_, union
from sqlalchemy.orm import Session

from api.cases import counters
from api.cases.models import CLOSED_STATUSES, OPEN_STATUSES, QUEUE_RANK, Case, CaseAction, CaseTag
from api.cases.tags import search_tags, tag
from api.errors import InvalidError

FAMILIES: Final = ("chat", "snapcam", "nickname", "seat", "hand")
STATUSES: Final = (*OPEN_STATUSES, *CLOSED_STATUSES)
STATUS_GROUPS: Final[dict[str, tuple[str, ...]]] = {"active": OPEN_STATUSES, "all": STATUSES}
"""Pseudo-statuses: every open status ('active', e.g. for "my cases"), or every status ('all')."""
AGES: Final[dict[str, tuple[timedelta | None, timedelta | None]]] = {
    "lt1h": (None, timedelta(hours=1)), "lt24h": (None, timedelta(hours=24)),
    "gt24h": (timedelta(hours=24), None), "gt7d": (timedelta(days=7), None),
}
"""Age buckets: (at least, less than) since the case opened."""
SORTS: Final = ("priority", "oldest", "newest", "findings", "score")
ASSIGNEE_NONE: Final = "none"
MAX_QUERY = 128
FEW: Final = 2_000
"""A selective filter allowing at most this many cases drives the page from their ids (`_few_ids`)."""
COUNT_CAP: Final = 1_000
"""Filtered tab counts stop at this many ("1000+"): a count reads at most this many matching cases
(twelve of them per filtered page; plain queues' counts are exact, from the counters)."""


@dataclass(frozen=True, slots=True)
class QueueFilter:
    """What the queue shows; every field optional except the status (a status or a pseudo-status)."""

    family: str | None = None
    status: str = "open"
    category: str | None = None
    detector: str | None = None
    language: str | None = None
    age: str | None = None
    assignee: str | None = None
    """A user id, or 'none' for unclaimed cases (no claim or a lapsed one)."""
    automatic: bool | None = None
    """True: cases with proposals, every one applied automatically (e.g. auto-blocked hit-and-runs);
    False: cases with at least one proposal waiting for a person, or none at all."""
    q: str | None = None
    subject_id: str | None = None
    created_before: datetime | None = None
    """Only cases opened at or before this time (a bulk action's snapshot of what the user saw)."""

    def __post_init__(self) -> None:
        _check(self.family, FAMILIES, "family")
        _check(self.status, (*STATUSES, *STATUS_GROUPS), "status")
        _check(self.age, tuple(AGES), "age")
        for name in ("category", "detector", "language", "assignee", "subject_id"):
            value = getattr(self, name)
            if value is not None and (len(value) > MAX_QUERY or not value.strip()):
                raise InvalidError(f"{name}: 1..{MAX_QUERY} characters")
        if self.q is not None and len(self.q) > MAX_QUERY:
            raise InvalidError(f"q: search text is at most {MAX_QUERY} characters")

    def with_(self, **changes: object) -> QueueFilter:
        """A copy with some fields changed (tabs: the same filter in another family or status)."""
        return replace(self, **changes)  # type: ignore[arg-type]


def _check(value: str | None, allowed: tuple[str, ...], name: str) -> None:
    if value is not None and value not in allowed:
        raise InvalidError(f"{name}: unknown value; one of {', '.join(allowed)}")


def where(f: QueueFilter, *, now: datetime) -> list[ColumnElement[bool]]:
    """The WHERE conditions of a filter."""
    statuses = STATUS_GROUPS.get(f.status)
    out: list[ColumnElement[bool]] = []
    if f.status != "all":
        out.append(Case.status.in_(statuses) if statuses else Case.status == f.status)
    if f.family:
        out.append(Case.family == f.family)
    if f.category:
        out.append(Case.category == f.category)
    if f.subject_id:
        out.append(Case.subject_id == f.subject_id)
    for kind, value in (("det", f.detector), ("lang", f.language)):
        if value:
            out.append(Case.id.in_(_tagged(tag(kind, value.lower() if kind == "lang" else value), f.family)))
    if f.age:
        at_least, less_than = AGES[f.age]
        if at_least is not None:
            out.append(Case.created_at <= now - at_least)
        if less_than is not None:
            out.append(Case.created_at > now - less_than)
    if f.created_before is not None:
        out.append(Case.created_at <= f.created_before)
    if f.assignee == ASSIGNEE_NONE:
        out.append(or_(Case.assignee_id.is_(None), Case.claim_expires_at.is_(None), Case.claim_expires_at <= now))
    elif f.assignee:
        out.append(Case.assignee_id == f.assignee)
    if f.automatic is not None:
        out.append(_all_automatic() if f.automatic else not_(_all_automatic()))
    if f.q and f.q.strip():
        out.append(_search(f.q.strip()))
    return out


def _tagged(value: str, family: str | None) -> Select[str]:
    """Ids of the cases with a tag, within one family when given: a seek on (tag, family) that is
    empty at once where the tag never occurs in the family (e.g. a seat detector in the chat queue)."""
    stmt = select(CaseTag.case_id).where(CaseTag.tag == value)
    return stmt.where(CaseTag.family == family) if family else stmt


def _all_automatic() -> ColumnElement[bool]:
    auto = exists().where(CaseAction.case_id == Case.id, CaseAction.disposition == "automatic")
    manual = exists().where(CaseAction.case_id == Case.id, CaseAction.disposition != "automatic")
    return and_(auto, not_(manual))


def _search(q: str) -> ColumnElement[bool]:
    """Player id (main subject or any named player), nickname, table, tournament, hand id, case id."""
    # One IN over a UNION of index lookups: an OR of the three would make PostgreSQL scan every case.
    tagged = select(CaseTag.case_id).where(CaseTag.tag.in_(search_tags(q)))
    hits = union(tagged, select(Case.id).where(Case.subject_id == q), select(Case.id).where(Case.id == q))
    return Case.id.in_(hits)


@dataclass(frozen=True, slots=True)
class _Sort:
    columns: tuple[Any, ...]
    """Column expressions (sort keys, then the id)."""
    kinds: tuple[str, ...]
    descending: bool


_SORTS: Final[dict[str, _Sort]] = {
    "priority": _Sort((QUEUE_RANK, Case.created_at, Case.id), ("int", "dt", "str"), False),
    "oldest": _Sort((Case.created_at, Case.id), ("dt", "str"), False),
    "newest": _Sort((Case.created_at, Case.id), ("dt", "str"), True),
    "findings": _Sort((Case.finding_count, Case.id), ("int", "str"), True),
    "score": _Sort((Case.max_score, Case.id), ("float", "str"), True),
}


@dataclass(frozen=True, slots=True)
class Page:
    """One page of the queue and the cursor of the next one."""

    items: list[Case]
    next_cursor: str | None


def page(session: Session, *, f: QueueFilter, sort: str, limit: int, cursor: str | None, now: datetime) -> Page:
    """A page of cases matching `f` in `sort` order, after `cursor`."""
    _check(sort, SORTS, "sort")
    spec = _SORTS[sort]
    stmt: Select[Case] = select(Case).where(*where(f, now=now))
    few = _few_ids(session, f)
    if few is not None:
        if not few:
            return Page([], None)
        stmt = stmt.where(Case.id.in_(few))
    if cursor:
        values = decode_cursor(cursor, sort=sort)
        row, key = tuple_(*spec.columns), tuple_(*values)
        stmt = stmt.where(row < key if spec.descending else row > key)
    order = [c.desc() for c in spec.columns] if spec.descending else list(spec.columns)
    rows = list(session.scalars(stmt.order_by(*order).limit(limit + 1)))
    items = rows[:limit]
    more = len(rows) > limit and bool(items)
    return Page(items, encode_cursor(items[-1], sort=sort) if more else None)


def _few_ids(session: Session, f: QueueFilter) -> list[str] | None:
    """The ids a selective filter (detector, language, category) allows, when there are at most
    `FEW` of them; None when each allows more.

    A page in priority or age order walks the slice's index and checks each case against the
    filter, which is fast while matches are dense and reads the whole slice when they are rare or
    absent (a seat detector in the chat queue: 60,000 cases at 1M for an empty page, 0.3 s). The
    planner cannot tell these apart from statistics, so the page asks first: a few thousand index
    entries at most, then the page is a lookup of those ids. The filter's own conditions stay in
    the query, so the answer is the same either way."""
    probes: list[Select[str]] = []
    for kind, value in (("det", f.detector), ("lang", f.language)):
        if value:
            probes.append(_tagged(tag(kind, value.lower() if kind == "lang" else value), f.family))
    if f.category:
        cat = select(Case.id).where(Case.category == f.category)
        if f.family:
            cat = cat.where(Case.family == f.family)
        statuses = _statuses_of(f.status)
        probes.append(cat.where(Case.status.in_(statuses)) if statuses else cat)
    best: list[str] | None = None
    for probe in probes:
        ids = list(session.scalars(probe.limit(FEW + 1)))
        if len(ids) <= FEW and (best is None or len(ids) < len(best)):
            best = ids
    return best


def _key_of(case: Case, sort: str) -> list[object]:
    if sort == "priority":
        return [-case.priority, case.created_at.isoformat(), case.id]
    if sort in ("oldest", "newest"):
        return [case.created_at.isoformat(), case.id]
    if sort == "findings":
        return [case.finding_count, case.id]
    return [case.max_score, case.id]


def encode_cursor(case: Case, *, sort: str) -> str:
    """The cursor after `case` in `sort` order."""
    raw = json.dumps([sort, _key_of(case, sort)]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str, *, sort: str) -> list[object]:
    """The key values a cursor carries (422 when malformed or from another sort)."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        name, values = json.loads(raw)
        kinds = _SORTS[sort].kinds
        if name != sort or len(values) != len(kinds):
            raise ValueError("cursor of another sort")
        return [_typed(v, k) for v, k in zip(values, kinds, strict=True)]
    except (ValueError, TypeError, KeyError) as exc:
        raise InvalidError("malformed cursor; use next_cursor from the previous page of the same sort") from exc


def _typed(value: object, kind: str) -> object:
    if kind == "int" and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind == "float" and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if kind == "dt" and isinstance(value, str):
        parsed = datetime.fromisoformat(value)
        if parsed.tzinfo is None:
            raise ValueError("naive time in cursor")
        return parsed
    if kind == "str" and isinstance(value, str):
        return value
    raise ValueError(f"bad {kind} in cursor")


def is_plain(f: QueueFilter) -> bool:
    """True when the filter is only a family and a status (or status group): its counts are exact,
    read from the per-(family, status) counters (`api.cases.counters`), not from the cases."""
    return (f.category is None and f.detector is None and f.language is None and f.age is None
            and f.assignee is None and f.automatic is None and not (f.q and f.q.strip())
            and f.subject_id is None and f.created_before is None)


def _statuses_of(status: str) -> tuple[str, ...] | None:
    return None if status == "all" else STATUS_GROUPS.get(status, (status,))


def count(session: Session, *, f: QueueFilter, now: datetime, cap: int = COUNT_CAP) -> int:
    """How many cases match, up to `cap` (the page shows "cap+"); exact and O(1) for a plain filter."""
    if is_plain(f):
        n = counters.total(counters.all_counts(session), families=None if f.family is None else (f.family,),
                           statuses=_statuses_of(f.status))
        return min(n, cap + 1)
    inner = select(Case.id).where(*where(f, now=now)).limit(cap + 1).subquery()
    return min(int(session.scalar(select(func.count()).select_from(inner)) or 0), cap + 1)


@dataclass(frozen=True, slots=True)
class TabCounts:
    """Cases matching the filter in each family (same status) and in each status (same family)."""

    families: dict[str, int]
    statuses: dict[str, int]
    cap: int
    exact: bool = False
    """True: from the counters (no cap applies); False: each count stopped at `cap` + 1."""


def tab_counts(session: Session, *, f: QueueFilter, now: datetime, cap: int = COUNT_CAP) -> TabCounts:
    """Counts for the family tabs and the status choices: exact from the counters for a plain
    filter (one small read), else each capped at `cap` (one bounded count per tab)."""
    if is_plain(f):
        c = counters.all_counts(session)
        fams = None if f.family is None else (f.family,)
        return TabCounts({fam: counters.total(c, families=(fam,), statuses=_statuses_of(f.status)) for fam in FAMILIES},
                         {st: counters.total(c, families=fams, statuses=(st,)) for st in STATUSES}, cap, exact=True)
    families = {fam: count(session, f=f.with_(family=fam), now=now, cap=cap) for fam in FAMILIES}
    statuses = {st: families[f.family] if st == f.status and f.family else  # that one is counted already
                count(session, f=f.with_(status=st), now=now, cap=cap) for st in STATUSES}
    return TabCounts(families, statuses, cap)


def ids_matching(session: Session, *, f: QueueFilter, now: datetime, limit: int) -> list[str]:
    """Ids of up to `limit` matching cases, oldest first (a bulk action's selection)."""
    stmt = select(Case.id).where(*where(f, now=now)).order_by(Case.created_at, Case.id).limit(limit)
    return list(session.scalars(stmt))
