"""Replays generated hands through pokerkit: the reference for legality and chip arithmetic."""

from __future__ import annotations

from pokerkit import HandHistory


def pokerkit_finishing(record: dict) -> list[int]:
    """Finishing stacks pokerkit computes for a hand record (raises on an illegal action)."""
    hh = HandHistory(
        variant="NT",
        antes=record["antes"] or [0] * len(record["players"]),
        blinds_or_straddles=record["blinds_or_straddles"],
        min_bet=record["min_bet"],
        starting_stacks=record["starting_stacks"],
        actions=record["actions"],
    )
    state = None
    for state in hh:
        pass
    assert state is not None
    return list(state.stacks)
