"""Service levels: how long a case may wait for review, per family, and how close it is."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Final, Literal

from api.cases.models import CLOSED_STATUSES, Case

SLA: Final[dict[str, timedelta]] = {
    "chat": timedelta(hours=4), "snapcam": timedelta(hours=4), "nickname": timedelta(hours=24),
    "seat": timedelta(hours=24), "hand": timedelta(hours=72),
}
"""Time to a first decision: chat and SnapCam while the table still plays; collusion reviews take
hand histories and a longer look."""
DUE_SHARE: Final = 0.5
"""A case past this share of its SLA is 'due' (amber); past the whole of it, 'breached' (red)."""

SlaState = Literal["ok", "due", "breached", "closed"]


def sla_of(family: str) -> timedelta:
    """The family's SLA (24 h for a family without its own)."""
    return SLA.get(family, timedelta(hours=24))


def state(case: Case, *, now: datetime) -> SlaState:
    """Where the case stands against its SLA (closed cases are out of it)."""
    if case.status in CLOSED_STATUSES:
        return "closed"
    waited = (now - case.created_at) / sla_of(case.family)
    return "breached" if waited >= 1 else "due" if waited >= DUE_SHARE else "ok"


def due_at(case: Case) -> datetime:
    """When the case breaches its SLA."""
    return case.created_at + sla_of(case.family)
