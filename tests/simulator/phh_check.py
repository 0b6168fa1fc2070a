"""Replays generated hands through pokerkit: an outside reference for legality and chip arithmetic."""

from __future__ import annotations

from collections import deque
from typing import Any

from pokerkit import HandHistory


def pokerkit_finishing(record: dict[str, Any]) -> list[int]:
    """Finishing stacks pokerkit computes for a hand record (raises on an illegal action)."""
    blinds = list(record["blinds_or_straddles"])
    if len(blinds) == 2:
        blinds.reverse()  # the record lists what each player posts; pokerkit swaps heads-up itself
    hh = HandHistory(
        variant="NT",
        antes=record["antes"] or [0] * len(record["starting_stacks"]),
        blinds_or_straddles=blinds,
        min_bet=record["min_bet"],
        starting_stacks=record["starting_stacks"],
        actions=record["actions"],
    )
    last = deque(hh, maxlen=1)
    return list(last[0].stacks)
