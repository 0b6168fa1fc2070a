"""Identifiers and the clock: the two things every service needs and tests want to control."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The real clock (aware UTC)."""
    return datetime.now(UTC)


def new_id(prefix: str) -> str:
    """A random id for things people create (decisions, appeals, users); content ids come from stable_id."""
    return f"{prefix}_{uuid.uuid4().hex[:24]}"
