"""What detectors report (`Finding`) and what policy decides to do about it (`ActionProposal`).

Both cross the process boundary to the review API as JSON, so they are frozen pydantic models.
Their ids are derived from their content, which is what makes every write idempotent: replaying
the same events yields the same ids and the API ignores the second copy.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pipeline.contracts.common import Id, UtcDatetime
from pipeline.contracts.enforcement import ActionKind, Scope

Family = Literal["chat", "snapcam", "nickname", "seat", "hand"]
"""Offence family; the review console keeps one queue per family."""

Disposition = Literal["automatic", "proposed"]
Role = Literal["offender", "partner", "victim"]
"""Whom a proposal targets: the finding's main subject, a co-offender it names (a colluder, the
receiver of dumped chips, a sit-out partner), or a victim offered a remedy (a nickname reset)."""


def stable_id(prefix: str, *parts: object) -> str:
    """Deterministic id from its parts: the same inputs always give the same id."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()
    return f"{prefix}_{digest[:24]}"


class Span(BaseModel):
    """Character offsets [start, end) into a piece of evidence text, and why they matter."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    label: str


class ActionProposal(BaseModel):
    """A sanction policy wants: applied at once when `disposition` is automatic, else reviewed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    action_id: Id
    disposition: Disposition
    kind: ActionKind
    scope: Scope
    scope_value: str | None = None
    player_id: Id
    starts_at: UtcDatetime
    expires_at: UtcDatetime | None
    reason: str
    rule: str
    role: Role = "offender"


class Finding(BaseModel):
    """One detector's claim that a house rule was broken, with the evidence that supports it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    finding_id: Id
    detector: str
    rule: str
    """House-rule reference, e.g. `chat.3` or `table_leaving`; the console cites it."""
    family: Family
    category: str
    score: float = Field(ge=0.0, le=1.0)
    players: tuple[Id, ...] = Field(min_length=1)
    """Players the finding is about; the first is the main subject."""
    ts: UtcDatetime
    window_start: UtcDatetime | None = None
    window_end: UtcDatetime | None = None
    table_id: Id | None = None
    tournament_id: Id | None = None
    summary: str
    source_event_ids: tuple[Id, ...] = ()
    spans: tuple[Span, ...] = ()
    evidence: dict[str, Any] = Field(default_factory=dict)
    actions: tuple[ActionProposal, ...] = ()
    shadow: bool = False
    """Found by a shadow copy (pipeline/shadow.py): the review API stores it apart and acts on
    nothing; its id is what the live copy gives the same finding."""

    @property
    def subject(self) -> str:
        """The main player the finding is about."""
        return self.players[0]

    def with_actions(self, actions: tuple[ActionProposal, ...]) -> Finding:
        """Copy with policy's actions attached."""
        return self.model_copy(update={"actions": actions})


def window_of(*times: datetime) -> tuple[datetime, datetime]:
    """Earliest and latest of some timestamps."""
    return min(times), max(times)
