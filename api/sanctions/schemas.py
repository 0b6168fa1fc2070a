"""Sanction request and response shapes."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import StringConstraints

from api.sanctions.models import Sanction
from api.schemas import Body, Public, Reason
from pipeline.contracts.common import UtcDatetime
from pipeline.contracts.enforcement import ActionKind, Scope


class SanctionPublic(Public):
    """A sanction and its lifecycle."""

    id: str
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
    status: str
    created_by: str
    created_at: datetime
    reviewed_by: str | None
    revoked_at: datetime | None
    revoked_by: str | None
    revoke_reason: str | None
    state: str = ""
    """At the time of the response: in_force, scheduled, expired, pending_review, rejected or revoked."""

    @classmethod
    def at(cls, sanction: Sanction, now: datetime) -> SanctionPublic:
        """The sanction with its enforcement state at `now` filled in."""
        out = cls.model_validate(sanction)
        out.state = sanction.state_at(now)
        return out


class SanctionApply(Body):
    """Enforce a confirmed case: omit `kind` to apply policy's proposals, or give a custom sanction."""

    kind: ActionKind | None = None
    scope: Scope | None = None
    scope_value: Annotated[str, StringConstraints(max_length=128)] | None = None
    expires_at: UtcDatetime | None = None
    reason: Reason | None = None
    player_id: Annotated[str, StringConstraints(min_length=1, max_length=128)] | None = None
    """A custom sanction's target: the case's subject (default) or another player its findings name."""


class RevokeRequest(Body):
    """Why the sanction ends early."""

    reason: Reason


class SecondReviewRequest(Body):
    """A senior's verdict on a held account ban or disqualification."""

    approve: bool
    reason: Reason
