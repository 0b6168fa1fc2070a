"""Appeal request and response shapes."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from api.schemas import Body, Public, Reason


class AppealCreate(Body):
    """The player's statement, as recorded by support."""

    statement: Reason


class AppealResolve(Body):
    """upheld (sanctions stand) or overturned (sanctions revoked)."""

    outcome: Literal["upheld", "overturned"]
    reason: Reason


class AppealPublic(Public):
    """An appeal."""

    id: str
    case_id: str
    statement: str
    status: str
    created_by: str
    created_at: datetime
    resolved_by: str | None
    resolved_at: datetime | None
    resolution: str | None
