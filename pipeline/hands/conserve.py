"""Chip conservation: winnings + rake equal the pot, the pot went where the cards send it, and each
finishing stack is what the replay gives."""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.hands.errors import HandIntegrityError


def check_chips(
    *,
    n: int,
    committed: list[int],
    returned: list[int],
    stacks: list[int],
    finishing: Sequence[int],
    winnings: Sequence[int],
    computed: list[int] | None,
    rake: int,
) -> tuple[int, ...]:
    """Winnings (net of returned bets) after checking conservation and the finishing stacks."""
    pot = sum(committed)
    if winnings:
        won = list(winnings)
        total_returned: int = sum(returned)
        gross = sum(won) == pot + total_returned - rake and all(w >= r for w, r in zip(won, returned, strict=True))
        if gross and total_returned:
            won = [w - r for w, r in zip(won, returned, strict=True)]  # winnings counted the returned bet
        if sum(won) + rake != pot:
            raise HandIntegrityError("chips_not_conserved", f"winnings {sum(won)} + rake {rake} != pot {pot}")
    elif computed is not None:
        won = computed
    else:
        won = [0] * n
    if computed is not None and winnings:
        winners = {i for i in range(n) if won[i] > 0}
        expected = {i for i in range(n) if computed[i] > 0}
        if winners != expected:
            raise HandIntegrityError(
                "chips_not_conserved",
                f"pot paid to {sorted(p + 1 for p in winners)} but the cards give it to {sorted(p + 1 for p in expected)}",
            )
    if finishing:
        for i in range(n):
            if finishing[i] != stacks[i] + won[i]:
                raise HandIntegrityError(
                    "inconsistent_stacks",
                    f"p{i + 1} finishes with {finishing[i]}, replay gives {stacks[i] + won[i]} (started {stacks[i] + committed[i]})",
                )
    return tuple(won)
