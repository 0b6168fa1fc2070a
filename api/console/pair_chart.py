"""Chips moving between two players across a case's hands: the chart soft play and chip dumping
are judged by, with its sample size.

Pure, like `render`: it reads the replayed hands of the merged evidence (in time order) and
returns plain geometry.
Per hand, the transfer from A to B is what A lost that B won (min of the two), negative when it
went the other way, zero when both won or both lost (the chips went to third players).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class TransferChart:
    """Cumulative A -> B chips after each hand, as an SVG polyline with its axis labels."""

    giver: str
    taker: str
    hands: int
    total: int
    points: str
    width: int
    height: int
    zero_y: float
    top_label: str
    bottom_label: str


def net_transfer(hand: dict[str, Any], giver: str, taker: str) -> int:
    """Chips from `giver` to `taker` in one replayed hand (see module docstring); 0 if either is
    absent or a stack is unknown."""
    seats = {str(s.get("player")): s for s in hand.get("seats") or [] if isinstance(s, dict)}
    if giver not in seats or taker not in seats:
        return 0
    try:
        gave = int(seats[giver]["starting_stack"]) - int(seats[giver]["finishing_stack"])
        took = int(seats[taker]["finishing_stack"]) - int(seats[taker]["starting_stack"])
    except (KeyError, TypeError, ValueError):
        return 0
    if gave > 0 and took > 0:
        return min(gave, took)
    if gave < 0 and took < 0:
        return -min(-gave, -took)
    return 0


def transfer_chart(hands: list[dict[str, Any]], giver: str, taker: str, *, width: int = 520,
                   height: int = 140) -> TransferChart | None:
    """The cumulative chart over `hands` in time order; None when they share no hand."""
    shared = [h for h in hands if {giver, taker} <= {str(s.get("player")) for s in h.get("seats") or []}]
    if not shared:
        return None
    running, series = 0, [0]
    for hand in shared:
        running += net_transfer(hand, giver, taker)
        series.append(running)
    top, bottom = max(series), min(series)
    span = max(top - bottom, 1)
    step = (width - 20) / max(len(series) - 1, 1)

    def y(v: int) -> float:
        return round(10 + (top - v) / span * (height - 20), 1)

    points = " ".join(f"{round(10 + k * step, 1)},{y(v)}" for k, v in enumerate(series))
    return TransferChart(giver, taker, len(shared), running, points, width, height, y(0), f"{top:,}", f"{bottom:,}")
