"""Create, review, revoke and query sanctions; every change is audited and announced via the outbox."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from api.audit import service as audit
from api.errors import ConflictError, NotFoundError
from api.outbox import service as outbox
from api.sanctions.models import SECOND_REVIEW_KINDS, Sanction
from api.upsert import insert_ignore, insert_many_ignore


@dataclass(frozen=True, slots=True)
class SanctionSpec:
    """Everything that defines a sanction before it exists."""

    sanction_id: str
    case_id: str | None
    player_id: str
    kind: str
    scope: str
    scope_value: str | None
    starts_at: datetime
    expires_at: datetime | None
    reason: str
    rule: str
    automatic: bool

    def applied_at(self, now: datetime) -> SanctionSpec:
        """The same measure with its window starting at `now` and keeping its length.

        Proposals carry a window computed at detection, on the game server's clock. A review hours
        later, a consumer that lags, or a server clock ahead of ours must not shift the window so
        that it has ended (or not yet begun) when a game server asks: a sanction is in force from
        the moment it is applied, for as long as policy (or the moderator) said.
        """
        return replace(self, starts_at=now, expires_at=_shifted_expiry(self.starts_at, self.expires_at, now))


def _shifted_expiry(starts_at: datetime, expires_at: datetime | None, now: datetime) -> datetime | None:
    """The expiry of a window of the same length starting at `now` (None: until revoked)."""
    return None if expires_at is None else now + max(expires_at - starts_at, timedelta(0))


def create(session: Session, *, spec: SanctionSpec, actor: str, now: datetime) -> tuple[Sanction, bool]:
    """Insert the sanction if absent; active at once unless its kind needs a second review.

    Returns (sanction, created). Does not commit: callers fold it into their own transaction.
    """
    needs_review = spec.kind in SECOND_REVIEW_KINDS
    created = insert_ignore(
        session,
        Sanction,
        {"id": spec.sanction_id, "case_id": spec.case_id, "player_id": spec.player_id, "kind": spec.kind,
         "scope": spec.scope, "scope_value": spec.scope_value, "starts_at": spec.starts_at,
         "expires_at": spec.expires_at, "reason": spec.reason, "rule": spec.rule,
         "automatic": spec.automatic, "status": "pending_review" if needs_review else "active",
         "created_by": actor, "created_at": now},
        ("id",),
    )
    sanction = session.get(Sanction, spec.sanction_id, populate_existing=True)
    assert sanction is not None  # inserted or already there
    if created:
        audit.append(session, actor=actor, action="sanction.create", entity_type="sanction",
                     entity_id=sanction.id, payload=_payload(sanction), now=now)
        if sanction.status == "active":
            outbox.enqueue(session, sanction=sanction, event_kind="sanction", now=now)
    return sanction, created


def create_many(session: Session, *, specs: list[SanctionSpec], actor: str, now: datetime) -> list[Sanction]:
    """`create` for a batch, with one multi-row insert, one read, one audit append and one outbox
    insert instead of five round trips per sanction; returns the sanctions this call created, in
    `specs` order (a repeated or already stored id is not created again). Does not commit."""
    first: dict[str, SanctionSpec] = {}
    for spec in specs:
        first.setdefault(spec.sanction_id, spec)
    if not first:
        return []
    # Sorted: concurrent batches take the primary-key locks in one order (no deadlock on PostgreSQL).
    rows = [_row(first[i], actor=actor, now=now) for i in sorted(first)]
    created = insert_many_ignore(session, Sanction, rows, ("id",))
    if not created:
        return []
    stmt = select(Sanction).where(Sanction.id.in_(sorted(created))).execution_options(populate_existing=True)
    loaded = {s.id: s for s in session.scalars(stmt)}
    new = [loaded[i] for i in first if i in created]
    audit.append_many(session, actor=actor, action="sanction.create", entity_type="sanction",
                      entries=[(s.id, _payload(s)) for s in new], now=now)
    outbox.enqueue_many(session, sanctions=[s for s in new if s.status == "active"], event_kind="sanction", now=now)
    return new


def _row(spec: SanctionSpec, *, actor: str, now: datetime) -> dict[str, object]:
    return {"id": spec.sanction_id, "case_id": spec.case_id, "player_id": spec.player_id, "kind": spec.kind,
            "scope": spec.scope, "scope_value": spec.scope_value, "starts_at": spec.starts_at,
            "expires_at": spec.expires_at, "reason": spec.reason, "rule": spec.rule,
            "automatic": spec.automatic,
            "status": "pending_review" if spec.kind in SECOND_REVIEW_KINDS else "active",
            "created_by": actor, "created_at": now}


def second_review(session: Session, *, sanction_id: str, approve: bool, reason: str, actor: str,
                  now: datetime) -> Sanction:
    """A senior other than the creator approves (-> active, announced) or rejects a held sanction."""
    sanction = get(session, sanction_id=sanction_id)
    if sanction.status != "pending_review":
        raise ConflictError(f"sanction {sanction_id} is {sanction.status}, not waiting for a second review")
    if sanction.created_by == actor:
        raise ConflictError("a second review must be done by someone other than the moderator who applied it")
    sanction.status = "active" if approve else "rejected"
    sanction.reviewed_by = actor
    if approve:  # held until now: its window starts at the approval and keeps its length
        sanction.starts_at, sanction.expires_at = now, _shifted_expiry(sanction.starts_at, sanction.expires_at, now)
    audit.append(session, actor=actor, action="sanction.second_review", entity_type="sanction",
                 entity_id=sanction.id, payload={"approve": approve, "reason": reason}, now=now)
    if approve:
        outbox.enqueue(session, sanction=sanction, event_kind="sanction", now=now)
    session.commit()
    return sanction


def revoke(session: Session, *, sanction_id: str, reason: str, actor: str, now: datetime,
           commit: bool = True) -> Sanction:
    """End an active (or held) sanction now and announce the revocation to the game servers."""
    sanction = get(session, sanction_id=sanction_id)
    if sanction.status not in ("active", "pending_review"):
        raise ConflictError(f"sanction {sanction_id} is {sanction.status}; only active or held ones can be revoked")
    was_active = sanction.status == "active"
    sanction.status, sanction.revoked_at, sanction.revoked_by = "revoked", now, actor
    sanction.revoke_reason = reason
    audit.append(session, actor=actor, action="sanction.revoke", entity_type="sanction",
                 entity_id=sanction.id, payload={"reason": reason}, now=now)
    if was_active:
        outbox.enqueue(session, sanction=sanction, event_kind="revocation", now=now)
    if commit:
        session.commit()
    return sanction


def get(session: Session, *, sanction_id: str) -> Sanction:
    """The sanction or NotFoundError."""
    sanction = session.get(Sanction, sanction_id)
    if sanction is None:
        raise NotFoundError(f"no sanction {sanction_id!r}")
    return sanction


def active_for_player(session: Session, *, player_id: str, now: datetime) -> list[Sanction]:
    """Sanctions in force for a player right now (what a game server enforces)."""
    stmt = select(Sanction).where(
        Sanction.player_id == player_id,
        Sanction.status == "active",
        Sanction.starts_at <= now,
        or_(Sanction.expires_at.is_(None), Sanction.expires_at > now),
    )
    return list(session.scalars(stmt.order_by(Sanction.starts_at)))


def search(session: Session, *, player_id: str | None, case_id: str | None, status: str | None,
           limit: int, offset: int) -> list[Sanction]:
    """Sanctions filtered by player, case and status; newest first."""
    stmt = select(Sanction)
    if player_id:
        stmt = stmt.where(Sanction.player_id == player_id)
    if case_id:
        stmt = stmt.where(Sanction.case_id == case_id)
    if status:
        stmt = stmt.where(Sanction.status == status)
    return list(session.scalars(stmt.order_by(Sanction.created_at.desc(), Sanction.id).limit(limit).offset(offset)))


def _payload(s: Sanction) -> dict[str, object]:
    return {"case_id": s.case_id, "player_id": s.player_id, "kind": s.kind, "scope": s.scope,
            "scope_value": s.scope_value, "starts_at": s.starts_at.isoformat(),
            "expires_at": s.expires_at.isoformat() if s.expires_at else None, "status": s.status,
            "reason": s.reason, "rule": s.rule, "automatic": s.automatic}
