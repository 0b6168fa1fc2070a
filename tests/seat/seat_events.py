"""Builders of seat events for the seat-detector tests and generators."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import count
from typing import Any

from pipeline.contracts import SeatActivity

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
_ids = count()


def seat(
    action: str,
    at: float,
    *,
    player: str = "p1",
    table: str = "t1",
    hands: int = 0,
    seated: int = 6,
    others_out: int = 0,
    level: str = "nl100",
    fmt: str = "regular",
    game: str = "cash",
    tournament: str | None = None,
    event_id: str | None = None,
    **extra: Any,
) -> SeatActivity:
    """One validated seat event `at` seconds after T0."""
    return SeatActivity(
        event_id=event_id or f"s{next(_ids)}",
        ts=T0 + timedelta(seconds=at),
        player_id=player,
        table_id=table,
        game=game,  # type: ignore[arg-type]
        format=fmt,  # type: ignore[arg-type]
        variant="nlhe",
        blind_level=level,
        seat=extra.pop("seat_no", 3),
        action=action,  # type: ignore[arg-type]
        hands_played_at_table=hands,
        players_seated=seated,
        others_sitting_out=others_out,
        tournament_id=tournament,
        **extra,
    )


def stint(start: float, hands: int, *, minutes: float = 2.0, **kw: Any) -> list[SeatActivity]:
    """A join then a leave after `hands` hands, `minutes` later."""
    return [seat("join", start, **kw), seat("leave", start + minutes * 60, hands=hands, **kw)]
