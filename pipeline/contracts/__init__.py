"""Versioned event contracts for every Railbird topic and the strict decoder that guards them."""

from __future__ import annotations

from typing import Final

from pydantic import ValidationError

from pipeline.contracts.chat import ChatMessage
from pipeline.contracts.common import MAX_RECORD_BYTES, SCHEMA_VERSION, Contract
from pipeline.contracts.deadletter import DeadLetter, ErrorKind
from pipeline.contracts.enforcement import EnforcementData, EnforcementEvent
from pipeline.contracts.hand import HandRecord
from pipeline.contracts.seat import SeatActivity
from pipeline.contracts.snapcam import SnapCamReport

CHAT: Final = "chat.messages"
SNAPCAM: Final = "snapcam.reports"
SEAT: Final = "seat.activity"
HAND: Final = "hand.records"
ENFORCEMENT: Final = "enforcement.events"

INPUT_TOPICS: Final[dict[str, type[Contract]]] = {
    CHAT: ChatMessage,
    SNAPCAM: SnapCamReport,
    SEAT: SeatActivity,
    HAND: HandRecord,
}
"""Every input topic and the one contract its records must satisfy."""

Event = ChatMessage | SnapCamReport | SeatActivity | HandRecord


def dlq_topic(topic: str) -> str:
    """Name of the dead-letter topic for an input topic."""
    return f"{topic}.dlq"


class DecodeError(ValueError):
    """A record that can never be processed; `kind` and the message go to the dead letter."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind


def decode(topic: str, raw: bytes) -> Event:
    """Validate raw record bytes against the topic's contract or raise `DecodeError` with a reason."""
    model = INPUT_TOPICS.get(topic)
    if model is None:
        raise DecodeError("unknown_topic", f"no contract for topic {topic!r}")
    if len(raw) > MAX_RECORD_BYTES:
        raise DecodeError("oversized", f"record is {len(raw)} bytes, limit {MAX_RECORD_BYTES}")
    try:
        event = model.model_validate_json(raw)
    except ValidationError as exc:
        raise DecodeError(_kind_of(exc), _reason(exc)) from None
    except (UnicodeDecodeError, RecursionError) as exc:
        raise DecodeError("not_json", f"record is not UTF-8 JSON: {type(exc).__name__}") from None
    return event  # type: ignore[return-value]


def _kind_of(exc: ValidationError) -> ErrorKind:
    return "not_json" if any(e["type"] == "json_invalid" for e in exc.errors()) else "invalid"


def _reason(exc: ValidationError, limit: int = 5) -> str:
    """Short, readable reason: field path and message of the first few errors, never the input."""
    errors = exc.errors(include_url=False, include_input=False)
    parts = [f"{'.'.join(str(p) for p in e['loc']) or '<record>'}: {e['msg']}" for e in errors[:limit]]
    more = f" (+{len(errors) - limit} more)" if len(errors) > limit else ""
    return "; ".join(parts) + more


__all__ = [
    "CHAT",
    "ENFORCEMENT",
    "HAND",
    "INPUT_TOPICS",
    "SCHEMA_VERSION",
    "SEAT",
    "SNAPCAM",
    "ChatMessage",
    "DeadLetter",
    "DecodeError",
    "EnforcementData",
    "EnforcementEvent",
    "Event",
    "HandRecord",
    "SeatActivity",
    "SnapCamReport",
    "decode",
    "dlq_topic",
]
