"""`<topic>.dlq`: a record that could not be processed, kept byte for byte with the reason."""

from __future__ import annotations

import base64
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from pipeline.contracts.common import SCHEMA_VERSION, UtcDatetime

ErrorKind = Literal["oversized", "not_json", "invalid", "unknown_topic", "processing", "undecodable"]
"""`undecodable`: an offset of a batch the consumer could not decode (codec, checksum), skipped by
an operator (`railbird skip`); such a dead letter has no key and an empty value."""


class DeadLetter(BaseModel):
    """Where a record came from, why it failed, and its original key and value (base64)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: int = SCHEMA_VERSION
    topic: str
    partition: int = Field(ge=0)
    offset: int = Field(ge=0)
    error_kind: ErrorKind
    error: str
    failed_at: UtcDatetime
    key_b64: str | None
    value_b64: str

    @staticmethod
    def encode_bytes(raw: bytes | None) -> str | None:
        """Base64 text of raw bytes, None stays None."""
        return None if raw is None else base64.b64encode(raw).decode("ascii")

    def original_value(self) -> bytes:
        """The exact bytes that failed."""
        return base64.b64decode(self.value_b64)
