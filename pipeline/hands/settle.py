"""Side pots and who wins them, from the chips committed and the cards (when all are known)."""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.hands.cards import rank_hand


def side_pots(committed: Sequence[int], folded: Sequence[bool]) -> list[tuple[int, tuple[int, ...]]]:
    """(amount, eligible players) for the main pot and each side pot, main pot first."""
    levels = sorted({c for c in committed if c > 0})
    pots: list[tuple[int, tuple[int, ...]]] = []
    floor = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, floor) for c in committed)
        eligible = tuple(i for i, c in enumerate(committed) if c >= level and not folded[i])
        if eligible:
            pots.append((amount, eligible))
        elif pots:
            # Only folded players reached this level: their chips stay with the previous pot.
            prev_amount, prev_eligible = pots[-1]
            pots[-1] = (prev_amount + amount, prev_eligible)
        floor = level
    return pots


def settle(
    *,
    committed: Sequence[int],
    folded: Sequence[bool],
    holes: Sequence[tuple[int, ...] | None],
    board: Sequence[int],
    rake: int = 0,
) -> list[int] | None:
    """Chips each player wins; None when the cards needed to decide the pot are unknown."""
    n = len(committed)
    pots = side_pots(committed, folded)
    won = [0] * n
    strengths: dict[int, int] = {}
    for amount, eligible in pots:
        if len(eligible) == 1:
            won[eligible[0]] += amount
            continue
        if len(board) < 5:
            return None
        for i in eligible:
            if i not in strengths:
                hole = holes[i]
                if hole is None:
                    return None
                strengths[i] = rank_hand([*hole, *board])
        best = max(strengths[i] for i in eligible)
        winners = [i for i in eligible if strengths[i] == best]
        share, odd = divmod(amount, len(winners))
        for k, i in enumerate(winners):
            won[i] += share + (1 if k < odd else 0)
    if rake:
        top = max(range(n), key=lambda i: won[i])
        won[top] -= min(rake, won[top])
    return won
