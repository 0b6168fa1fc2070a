"""Shared building blocks of every event contract: strictness, limits and id types."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

SCHEMA_VERSION = 1
"""Version of every contract in this package; bumped on an incompatible change."""

MAX_TEXT_CHARS = 2_000
"""Chat text and report comments longer than this are rejected, not truncated: a game server
never sends more, so a longer one is a bug or an attack and an analyst should see it in the DLQ."""

MAX_TRANSCRIPT_CHARS = 20_000
MAX_RECORD_BYTES = 1_000_000
"""Any record above this size is dead-lettered before JSON parsing."""

Id = Annotated[
    str,
    StringConstraints(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:@\-]*$"),
]
"""Identifier of a player, table, tournament, hand, event: printable ASCII, no spaces."""

Nickname = Annotated[str, StringConstraints(min_length=1, max_length=64)]


def _require_tz(value: datetime) -> datetime:
    if value.tzinfo is None:
        raise ValueError("timestamp must carry a timezone (use Z or +00:00)")
    return value.astimezone(UTC)


UtcDatetime = Annotated[datetime, AfterValidator(_require_tz)]
"""An aware timestamp, normalised to UTC; naive timestamps are rejected."""


class Contract(BaseModel):
    """Base of every topic payload: unknown fields and loose types are errors."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, str_strip_whitespace=False)

    schema_version: int = Field(default=SCHEMA_VERSION, ge=1, le=SCHEMA_VERSION)
    event_id: Id
    ts: UtcDatetime
