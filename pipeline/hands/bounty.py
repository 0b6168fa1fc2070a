"""Who collected which bounty in a hand: the eliminated players' bounties, split between winners."""

from __future__ import annotations

from pipeline.hands.engine import Replay
from pipeline.hands.settle import side_pots


def bounty_awards(*, players: list[str], bounties: dict[str, int], eliminated: list[str], replay: Replay) -> dict[int, int]:
    """Bounty chips won per player index (house rule 6: a split pot splits the bounty equally)."""
    won: dict[int, int] = {}
    index = {p: i for i, p in enumerate(players)}
    pots = side_pots(replay.committed, replay.folded)
    for loser in eliminated:
        t = index.get(loser)
        amount = bounties.get(loser, 0)
        if t is None or amount <= 0:
            continue
        # The bounty goes with the last pot the eliminated player was eligible for.
        contested = [elig for _, elig in pots if t in elig] or [elig for _, elig in pots]
        if not contested:
            continue
        winners = [i for i in contested[-1] if i != t and replay.winnings[i] > 0]
        if not winners:
            winners = [i for i in range(replay.n) if i != t and replay.winnings[i] > 0]
        if not winners:
            continue
        share, odd = divmod(amount, len(winners))
        for k, i in enumerate(winners):
            won[i] = won.get(i, 0) + share + (1 if k < odd else 0)
    return won
