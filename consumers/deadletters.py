"""Dead letters: a record that cannot be processed, wrapped with its reason for `<topic>.dlq`."""

from __future__ import annotations

import hashlib
from datetime import datetime

from consumers.ports import Message, RecordLike
from pipeline.contracts import DeadLetter, dlq_topic
from pipeline.contracts.deadletter import ErrorKind

DLQ_VALUE_LIMIT = 600_000
"""Bytes of the original value a dead letter carries. Base64 grows it by 4/3 and the producer's
largest request is 1 MiB: a bigger record could never be dead-lettered and would block its
partition forever (found by tests/hostile). The rest is named by its size and sha256."""


def truncation_note(value: bytes | None) -> str:
    """What the reason says when the value was cut to `DLQ_VALUE_LIMIT` bytes ("" when it was not)."""
    raw = value or b""
    if len(raw) <= DLQ_VALUE_LIMIT:
        return ""
    digest = hashlib.sha256(raw).hexdigest()
    return f" (value truncated to its first {DLQ_VALUE_LIMIT} of {len(raw)} bytes, sha256 {digest})"


def letter_message(record: RecordLike, kind: ErrorKind, reason: str, now: datetime) -> Message:
    """The dead letter of `record` as a record for its topic's DLQ, keyed like the original."""
    letter = DeadLetter(
        topic=record.topic,
        partition=record.partition,
        offset=record.offset,
        error_kind=kind,
        error=reason + truncation_note(record.value),
        failed_at=now,
        key_b64=DeadLetter.encode_bytes(record.key),
        value_b64=DeadLetter.encode_bytes((record.value or b"")[:DLQ_VALUE_LIMIT]) or "",
    )
    return (dlq_topic(record.topic), record.key, letter.model_dump_json().encode(), [], None)


def skipped_message(topic: str, partition: int, offset: int, reason: str, now: datetime) -> Message:
    """The dead letter of an offset skipped unread (an undecodable batch, `railbird skip`): its
    position and the reason; no key or value, since nothing of it could be read."""
    letter = DeadLetter(
        topic=topic,
        partition=partition,
        offset=offset,
        error_kind="undecodable",
        error=reason,
        failed_at=now,
        key_b64=None,
        value_b64="",
    )
    return (dlq_topic(topic), None, letter.model_dump_json().encode(), [], None)
