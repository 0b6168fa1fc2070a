"""Append to and verify the hash-chained audit log."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from api.audit.models import AuditEntry

GENESIS = "0" * 64
_ADVISORY_LOCK_KEY = 7_240_001


def canonical(payload: dict[str, Any]) -> str:
    """Deterministic JSON: sorted keys, no whitespace, non-ASCII kept."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def entry_hash(prev_hash: str, *, ts: datetime, actor: str, action: str, entity_type: str,
               entity_id: str, payload: str) -> str:
    """sha256 over the previous hash and every field of the entry."""
    material = "\n".join([prev_hash, ts.isoformat(), actor, action, entity_type, entity_id, payload])
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def append(session: Session, *, actor: str, action: str, entity_type: str, entity_id: str,
           payload: dict[str, Any], now: datetime) -> AuditEntry:
    """Add an entry chained to the newest one, inside the caller's transaction."""
    if session.get_bind().dialect.name == "postgresql":
        # Serialise appenders: without it two transactions could read the same head.
        session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _ADVISORY_LOCK_KEY})
    session.flush()
    prev = session.scalar(select(AuditEntry.hash).order_by(AuditEntry.seq.desc()).limit(1)) or GENESIS
    body = canonical(payload)
    entry = AuditEntry(
        ts=now, actor=actor, action=action, entity_type=entity_type, entity_id=entity_id,
        payload=body, prev_hash=prev,
        hash=entry_hash(prev, ts=now, actor=actor, action=action, entity_type=entity_type,
                        entity_id=entity_id, payload=body),
    )
    session.add(entry)
    session.flush()
    return entry


def append_many(session: Session, *, actor: str, action: str, entity_type: str,
                entries: list[tuple[str, dict[str, Any]]], now: datetime) -> list[AuditEntry]:
    """`append` for several (entity_id, payload) entries of one kind, in order, with one head read
    and one flush: the chain is the same as that many `append` calls (ingestion creates one sanction
    per automatic action; one round trip per entry was most of a batch's cost)."""
    if not entries:
        return []
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _ADVISORY_LOCK_KEY})
    session.flush()
    prev = session.scalar(select(AuditEntry.hash).order_by(AuditEntry.seq.desc()).limit(1)) or GENESIS
    out: list[AuditEntry] = []
    for entity_id, payload in entries:
        body = canonical(payload)
        digest = entry_hash(prev, ts=now, actor=actor, action=action, entity_type=entity_type,
                            entity_id=entity_id, payload=body)
        out.append(AuditEntry(ts=now, actor=actor, action=action, entity_type=entity_type, entity_id=entity_id,
                              payload=body, prev_hash=prev, hash=digest))
        prev = digest
    session.add_all(out)
    session.flush()
    return out


@dataclass(frozen=True, slots=True)
class ChainReport:
    """Outcome of a verification: entries checked and the first bad one, if any."""

    checked: int
    bad_seq: int | None
    problem: str
    head: str

    @property
    def ok(self) -> bool:
        """True when every entry verified."""
        return self.bad_seq is None


def verify(session: Session, *, batch: int = 5_000) -> ChainReport:
    """Walk the chain in order; stop at the first entry whose link or hash does not match."""
    prev, checked = GENESIS, 0
    for entry in _entries(session, batch):
        if entry.prev_hash != prev:
            return ChainReport(checked, entry.seq, "prev_hash does not match the previous entry", prev)
        expected = entry_hash(prev, ts=entry.ts, actor=entry.actor, action=entry.action,
                              entity_type=entry.entity_type, entity_id=entry.entity_id,
                              payload=entry.payload)
        if expected != entry.hash:
            return ChainReport(checked, entry.seq, "hash does not match the entry's contents", prev)
        prev, checked = entry.hash, checked + 1
    return ChainReport(checked, None, "", prev)


def _entries(session: Session, batch: int) -> Iterator[AuditEntry]:
    last = 0
    while True:
        rows = session.scalars(
            select(AuditEntry).where(AuditEntry.seq > last).order_by(AuditEntry.seq).limit(batch)
        ).all()
        if not rows:
            return
        yield from rows
        last = rows[-1].seq


@dataclass(frozen=True, slots=True)
class AuditFilter:
    """What an auditor narrows the log to; every field optional, all given ones must match."""

    actor: str | None = None
    action: str | None = None
    """An action (`decision.dismiss`) or its family with a trailing dot (`decision.`)."""
    entity_type: str | None = None
    entity_id: str | None = None


def list_entries(session: Session, *, limit: int, offset: int, where: AuditFilter | None = None) -> list[AuditEntry]:
    """Newest first, narrowed by `where`."""
    stmt = select(AuditEntry)
    f = where or AuditFilter()
    if f.actor:
        stmt = stmt.where(AuditEntry.actor == f.actor)
    if f.action and f.action.endswith("."):
        stmt = stmt.where(AuditEntry.action.startswith(f.action, autoescape=True))
    elif f.action:
        stmt = stmt.where(AuditEntry.action == f.action)
    if f.entity_type:
        stmt = stmt.where(AuditEntry.entity_type == f.entity_type)
    if f.entity_id:
        stmt = stmt.where(AuditEntry.entity_id == f.entity_id)
    return list(session.scalars(stmt.order_by(AuditEntry.seq.desc()).limit(limit).offset(offset)))
