"""Write enforcement events into the outbox (same transaction as the sanction) and read them back."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, text, update
from sqlalchemy.orm import Session

from api.outbox.leader import CHANNEL
from api.outbox.models import OutboxEvent
from api.sanctions.models import Sanction
from api.upsert import insert_ignore, insert_many_ignore
from pipeline.contracts.enforcement import EnforcementData, EnforcementEvent, EventKind
from pipeline.findings import stable_id


def event_for(sanction: Sanction, *, event_kind: EventKind, now: datetime) -> EnforcementEvent:
    """The CloudEvent announcing a sanction or its revocation; the id is stable per (sanction, kind)."""
    data = EnforcementData(
        action_id=sanction.id,
        event_kind=event_kind,
        kind=sanction.kind,  # type: ignore[arg-type]
        scope=sanction.scope,  # type: ignore[arg-type]
        scope_value=sanction.scope_value,
        player_id=sanction.player_id,
        starts_at=sanction.starts_at,
        expires_at=sanction.revoked_at if event_kind == "revocation" else sanction.expires_at,
        reason=(sanction.revoke_reason or "revoked") if event_kind == "revocation" else sanction.reason,
        rule=sanction.rule,
        automatic=sanction.automatic,
        case_id=sanction.case_id,
    )
    return EnforcementEvent.wrap(stable_id("enf", sanction.id, event_kind), data, time=now)


ENQUEUED = "outbox_enqueued"
"""`session.info` flag: this transaction added outbox rows (the relay is woken when it commits)."""


def _announce(session: Session) -> None:
    """Wake the relays when this transaction commits: this process's through the after-commit hook;
    on PostgreSQL every worker's leader through NOTIFY (delivered at commit, folded into one)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text(f"NOTIFY {CHANNEL}"))
    session.info[ENQUEUED] = True


def enqueue(session: Session, *, sanction: Sanction, event_kind: EventKind, now: datetime) -> str:
    """Add the event to the outbox unless it is already there; returns its id."""
    event = event_for(sanction, event_kind=event_kind, now=now)
    _announce(session)
    insert_ignore(
        session,
        OutboxEvent,
        {"event_id": event.id, "player_id": sanction.player_id, "sanction_id": sanction.id,
         "body": event.model_dump_json(), "created_at": now, "published_at": None, "attempts": 0},
        ("event_id",),
    )
    return event.id


def enqueue_many(session: Session, *, sanctions: list[Sanction], event_kind: EventKind, now: datetime) -> list[str]:
    """`enqueue` for several sanctions with one multi-row insert; rows keep the given order, so
    their seq (the relay's publishing order) is the order of the sanctions. Returns the event ids."""
    if not sanctions:
        return []
    rows: list[dict[str, object]] = []
    for sanction in sanctions:
        event = event_for(sanction, event_kind=event_kind, now=now)
        rows.append({"event_id": event.id, "player_id": sanction.player_id, "sanction_id": sanction.id,
                     "body": event.model_dump_json(), "created_at": now, "published_at": None, "attempts": 0})
    _announce(session)
    insert_many_ignore(session, OutboxEvent, rows, ("event_id",))
    return [str(r["event_id"]) for r in rows]


def pending(session: Session, *, limit: int) -> list[OutboxEvent]:
    """Oldest unpublished events first."""
    stmt = select(OutboxEvent).where(OutboxEvent.published_at.is_(None)).order_by(OutboxEvent.seq).limit(limit)
    return list(session.scalars(stmt))


def mark_published(session: Session, *, seqs: list[int], now: datetime) -> None:
    """Record that the broker acknowledged these events."""
    if seqs:
        session.execute(update(OutboxEvent).where(OutboxEvent.seq.in_(seqs)).values(published_at=now))
    session.commit()


def mark_failed(session: Session, *, seqs: list[int], error: str) -> None:
    """Count a failed attempt (the relay retries them later)."""
    if seqs:
        session.execute(
            update(OutboxEvent).where(OutboxEvent.seq.in_(seqs))
            .values(attempts=OutboxEvent.attempts + 1, last_error=error[:500])
        )
    session.commit()


def list_events(session: Session, *, player_id: str | None, after_seq: int, limit: int) -> list[OutboxEvent]:
    """Events in outbox order, optionally for one player (for services that poll instead of consuming)."""
    stmt = select(OutboxEvent).where(OutboxEvent.seq > after_seq)
    if player_id:
        stmt = stmt.where(OutboxEvent.player_id == player_id)
    return list(session.scalars(stmt.order_by(OutboxEvent.seq).limit(limit)))


def for_sanctions(session: Session, *, sanction_ids: list[str]) -> list[OutboxEvent]:
    """Events about these sanctions, in order (the case page shows whether they went out)."""
    if not sanction_ids:
        return []
    stmt = select(OutboxEvent).where(OutboxEvent.sanction_id.in_(sanction_ids)).order_by(OutboxEvent.seq)
    return list(session.scalars(stmt))
