"""Argument types the commands share (argparse `type=` callables: a clear error, never a traceback)."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime


def utc_time(value: str) -> datetime:
    """An ISO 8601 time with a UTC offset, as UTC; refused without an offset (a bare time would be
    read in the machine's zone, which the room's events never use)."""
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 time: {value!r}") from exc
    if parsed.tzinfo is None:
        raise argparse.ArgumentTypeError(f"give a UTC offset (e.g. {value}+00:00)")
    return parsed.astimezone(UTC)
