"""`enforcement.events` (outgoing): sanctions and revocations in a CloudEvents 1.0 JSON envelope.

Key on the topic is the player id, so one player's sanctions arrive in order; `id` is stable across
re-publication, so game servers de-duplicate on it.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from pipeline.contracts.common import SCHEMA_VERSION, Id, UtcDatetime

ActionKind = Literal[
    "chat_mute",
    "chat_restriction",
    "chat_ban",
    "comms_suspension",
    "snapcam_revocation",
    "table_block",
    "tournament_disqualification",
    "account_suspension",
    "account_ban",
    "nickname_reset",
]
"""What a sanction does; `comms_suspension` covers chat, emoji and SnapCam (hand-in-play rule)."""

Scope = Literal["blind_level", "table", "tournament", "feature", "account"]
EventKind = Literal["sanction", "revocation"]

STRUCTURED_CONTENT_TYPE = "application/cloudevents+json"
"""The `content-type` header of every `enforcement.events` record: CloudEvents' Kafka protocol
binding in structured mode (the value is the whole event as JSON; docs/game-servers.md)."""

EVENT_TYPE_PREFIX = "railbird.enforcement."
EVENT_SOURCE = "urn:railbird:enforcement"


class EnforcementData(BaseModel):
    """The sanction itself; `expires_at` None means until revoked (permanent)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: int = SCHEMA_VERSION
    action_id: Id
    event_kind: EventKind
    kind: ActionKind
    scope: Scope
    scope_value: Annotated[str, StringConstraints(max_length=128)] | None = None
    player_id: Id
    starts_at: UtcDatetime
    expires_at: UtcDatetime | None
    reason: Annotated[str, StringConstraints(max_length=2_000)]
    rule: Annotated[str, StringConstraints(max_length=128)]
    automatic: bool
    case_id: Id | None = None


class EnforcementEvent(BaseModel):
    """CloudEvents 1.0 structured-mode JSON envelope around `EnforcementData`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    specversion: Literal["1.0"] = "1.0"
    id: Id
    source: str = EVENT_SOURCE
    type: Annotated[str, StringConstraints(pattern=r"^railbird\.enforcement\.[a-z_]+(\.revoked)?$")]
    subject: Id
    time: UtcDatetime
    datacontenttype: Literal["application/json"] = "application/json"
    dataschema: str = Field(default=f"urn:railbird:schema:enforcement-data:v{SCHEMA_VERSION}")
    data: EnforcementData

    @classmethod
    def wrap(cls, event_id: str, data: EnforcementData, *, time: UtcDatetime) -> EnforcementEvent:
        """Build the envelope: type from the action kind, subject = the sanctioned player."""
        suffix = ".revoked" if data.event_kind == "revocation" else ""
        return cls(
            id=event_id,
            type=f"{EVENT_TYPE_PREFIX}{data.kind}{suffix}",
            subject=data.player_id,
            time=time,
            data=data,
        )
