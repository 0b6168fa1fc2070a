"""Side pots and who wins them, from the chips committed and the cards (when all are known)."""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.hands.showdown import HOLDEM, Showdown


def side_pots(committed: Sequence[int], folded: Sequence[bool]) -> list[tuple[int, tuple[int, ...]]]:
    """(amount, eligible players) for the main pot and each side pot, main pot first."""
    levels = sorted({c for c in committed if c > 0})
    pots: list[tuple[int, tuple[int, ...]]] = []
    floor = 0
    for level in levels:
        # Levels are the distinct amounts committed, so no player's amount lies strictly between
        # `floor` and `level`: each player who reached the level adds (level - floor), the rest
        # nothing (the sum over min(c, level) - min(c, floor), without its two passes).
        reached = [i for i, c in enumerate(committed) if c >= level]
        amount = len(reached) * (level - floor)
        eligible = tuple([i for i in reached if not folded[i]])
        if eligible:
            pots.append((amount, eligible))
        elif pots:
            # Only folded players reached this level: their chips stay with the previous pot.
            prev_amount, prev_eligible = pots[-1]
            pots[-1] = (prev_amount + amount, prev_eligible)
        floor = level
    return pots


def _split(amount: int, winners: list[int], won: list[int]) -> None:
    share, odd = divmod(amount, len(winners))
    for k, i in enumerate(winners):
        won[i] += share + (1 if k < odd else 0)


def settle(
    *,
    committed: Sequence[int],
    folded: Sequence[bool],
    holes: Sequence[tuple[int, ...] | None],
    board: Sequence[int],
    rake: int = 0,
    showdown: Showdown = HOLDEM,
) -> list[int] | None:
    """Chips each player wins; None when the cards needed to decide the pot are unknown.

    Hi/lo games split each contested pot: the low half to the best qualifying low, the high half
    (and the odd chip) to the best high; with no qualifying low the high hand scoops."""
    n = len(committed)
    won = [0] * n
    live = [i for i in range(n) if not folded[i]]
    if len(live) == 1 and committed[live[0]] > 0:
        # Everyone else folded (most hands): every pot's only eligible player is the one left, and
        # the chips of levels only folded players reached join the pot below, so it wins them all.
        won[live[0]] = sum(committed)
        pots: list[tuple[int, tuple[int, ...]]] = []
    else:
        pots = side_pots(committed, folded)
    highs: dict[int, int] = {}
    lows: dict[int, int | None] = {}
    for amount, eligible in pots:
        if len(eligible) == 1:
            won[eligible[0]] += amount
            continue
        if len(board) < 5:
            return None
        for i in eligible:
            if i not in highs:
                hole = holes[i]
                if hole is None:
                    return None
                highs[i] = showdown.high(hole, board)
                lows[i] = showdown.low(hole, board) if showdown.low else None
        best = max(highs[i] for i in eligible)
        high_winners = [i for i in eligible if highs[i] == best]
        qualified = [lows[i] for i in eligible if lows[i] is not None]
        if not qualified:
            _split(amount, high_winners, won)
            continue
        best_low = max(v for v in qualified if v is not None)
        low_winners = [i for i in eligible if lows[i] == best_low]
        low_half = amount // 2
        _split(amount - low_half, high_winners, won)
        _split(low_half, low_winners, won)
    if rake:
        top = max(range(n), key=lambda i: won[i])
        won[top] -= min(rake, won[top])
    return won
