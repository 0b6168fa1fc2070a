"""Valid sample events as JSON-ready dicts; tests override single fields to make them bad."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def chat_value(**overrides: Any) -> dict[str, Any]:
    """A valid chat.messages value as JSON-ready dict; override any field."""
    value: dict[str, Any] = {
        "event_id": "chat-1",
        "ts": T0.isoformat(),
        "channel": "table",
        "player_id": "p1",
        "nickname": "Bob",
        "text": "nice hand",
        "client": "desktop",
        "table_id": "t1",
    }
    value.update(overrides)
    return value


def seat_value(**overrides: Any) -> dict[str, Any]:
    """A valid seat.activity value."""
    value: dict[str, Any] = {
        "event_id": "seat-1",
        "ts": T0.isoformat(),
        "player_id": "p1",
        "table_id": "t1",
        "game": "cash",
        "format": "regular",
        "variant": "nlhe",
        "blind_level": "nl100",
        "seat": 3,
        "action": "join",
        "hands_played_at_table": 0,
        "players_seated": 4,
        "others_sitting_out": 0,
    }
    value.update(overrides)
    return value


def snapcam_value(**overrides: Any) -> dict[str, Any]:
    """A valid snapcam.reports value."""
    value: dict[str, Any] = {
        "event_id": "snap-1",
        "ts": T0.isoformat(),
        "report_id": "r1",
        "reporter_id": "p2",
        "reported_id": "p1",
        "reason": "harassment",
        "comment": "he keeps making rude gestures",
        "clip_ref": "clip://t1/123",
    }
    value.update(overrides)
    return value


def hand_value(**overrides: Any) -> dict[str, Any]:
    """A valid heads-up hand.records value: p1 raises, p2 folds."""
    value: dict[str, Any] = {
        "event_id": "hand-ev-1",
        "ts": (T0 + timedelta(minutes=1)).isoformat(),
        "hand_id": "h1",
        "table_id": "t1",
        "game": "cash",
        "variant": "NT",
        "antes": [0, 0],
        "blinds_or_straddles": [50, 100],
        "min_bet": 100,
        "starting_stacks": [10000, 10000],
        "players": ["p1", "p2"],
        "seats": [1, 2],
        "actions": ["d dh p1 AcKd", "d dh p2 ????", "p1 cbr 300", "p2 f"],
        "finishing_stacks": [10100, 9900],
        "winnings": [400, 0],
    }
    value.update(overrides)
    return value
