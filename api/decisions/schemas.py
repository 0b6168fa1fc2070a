"""Decision request and response shapes."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from api.sanctions.schemas import SanctionPublic
from api.schemas import Body, Public, Reason


class DecisionCreate(Body):
    """confirm | dismiss | escalate | hold, with a reason; `apply` (moderators) enforces on confirm."""

    kind: Literal["confirm", "dismiss", "escalate", "hold"]
    reason: Reason
    apply: bool = False


class NoteCreate(Body):
    """An internal note on a case: for the next reviewer, never shown to the player."""

    text: Reason


class DecisionPublic(Public):
    """A recorded decision (kind `note` for an internal note, which decides nothing)."""

    id: str
    case_id: str
    kind: str
    reason: str
    user_id: str
    created_at: datetime


class DecisionResult(Public):
    """The decision and any sanctions it applied."""

    decision: DecisionPublic
    sanctions: list[SanctionPublic]
