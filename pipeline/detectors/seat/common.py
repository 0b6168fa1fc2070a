"""Small helpers shared by the seat detectors: epoch seconds, ISO strings, timeline entries."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any


def epoch(ts: datetime) -> float:
    """Event time as epoch seconds: the detectors keep floats because they compare them a lot."""
    return ts.timestamp()


def utc(seconds: float) -> datetime:
    """Epoch seconds back to an aware UTC datetime."""
    return datetime.fromtimestamp(seconds, tz=UTC)


def iso(seconds: float) -> str:
    """ISO-8601 UTC string of epoch seconds, as the console expects in evidence."""
    return utc(seconds).isoformat().replace("+00:00", "Z")


def timeline_entry(
    *, player_id: str, table_id: str, tournament_id: str | None, start: float, end: float, state: str
) -> dict[str, Any]:
    """One `evidence.timeline` row in the shared shape."""
    return {
        "player_id": player_id,
        "table_id": table_id,
        "tournament_id": tournament_id,
        "start": iso(start),
        "end": iso(end),
        "state": state,
    }
