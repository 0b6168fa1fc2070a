"""Who wins at showdown in each flop game: hold'em, short deck, Omaha (exactly two hole cards) and
the 8-or-better low of the hi/lo games; heads-up equity on top of that.

One `Showdown` per variant family (`showdown_for`), so settlement, the winner check and the
collusion features price a PLO hand with Omaha's rules rather than hold'em's.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations

from pipeline.hands.cards import DECK, card_masks, rank_hand, rank_masks
from pipeline.hands.variants import VariantSpec, variant_spec

_CAT = 26
# Short deck (36 cards, 6 to ace): a flush beats a full house, three of a kind beats a straight,
# and A-6-7-8-9 is the lowest straight (the ace plays low below the six). GGPoker's and PokerStars'
# rules; the ranks below are rank_hand's categories re-ordered.
_SHORT_ORDER = {8: 8, 7: 7, 5: 6, 6: 5, 3: 4, 4: 3, 2: 2, 1: 1, 0: 0}
_A6789 = (1 << 12) | 0b11110000
SHORT_DECK: tuple[int, ...] = tuple(c for c in DECK if c >> 2 >= 4)


def short_rank(cards: Sequence[int]) -> int:
    """Strength of the best 5-card short-deck hand in 5-7 cards (larger is better)."""
    counts = [0] * 13
    suits = [0, 0, 0, 0]
    for c in cards:
        counts[c >> 2] += 1
        suits[c & 3] |= 1 << (c >> 2)
    for m in suits:
        if m & _A6789 == _A6789 and bin(m).count("1") >= 5:
            strength = rank_hand([c for c in cards if suits[c & 3] == m])
            if strength >> _CAT < 8:  # no higher straight flush: A-6-7-8-9 suited is the lowest one
                return 8 << _CAT | 4
    strength = rank_hand(cards)
    cat = strength >> _CAT
    mask = sum(1 << r for r in range(13) if counts[r])
    if cat <= 3 and mask & _A6789 == _A6789 and 3 not in counts:
        return 3 << _CAT | 4  # A-6-7-8-9 as a straight below 6-7-8-9-T (value 9 for T high)
    if cat == 4 and 3 in counts:
        # Trips beat a straight here: rank the cards as if no straight existed.
        trips = max(r for r in range(13) if counts[r] == 3)
        kickers = sorted((r for r in range(13) if counts[r] and r != trips), reverse=True)[:2]
        return 4 << _CAT | (1 << trips) << 13 | sum(1 << r for r in kickers)
    return _SHORT_ORDER[cat] << _CAT | (strength & ((1 << _CAT) - 1))


@cache
def _splits(hole: int, board: int) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """Index pairs (two hole cards, three board cards) of every Omaha hand."""
    return tuple((h, b) for h in combinations(range(hole), 2) for b in combinations(range(board), 3))


def omaha_rank(hole: Sequence[int], board: Sequence[int]) -> int:
    """Best Omaha high hand: exactly two hole cards and three board cards."""
    best = 0
    for (a, b), (x, y, z) in _splits(len(hole), len(board)):
        s = rank_hand((hole[a], hole[b], board[x], board[y], board[z]))
        if s > best:
            best = s
    return best


def _low_value(ranks: Sequence[int]) -> int | None:
    """8-or-better low of five cards' ranks (ace low), larger is better; None if it does not qualify."""
    lows = {1 if r == 12 else r + 2 for r in ranks}
    if len(lows) != 5 or max(lows) > 8:
        return None
    value = 0
    for r in sorted(lows, reverse=True):
        value = value * 16 + r
    return -value


def omaha_low(hole: Sequence[int], board: Sequence[int]) -> int | None:
    """Best 8-or-better Omaha low (two hole + three board), None when none qualifies."""
    best: int | None = None
    for (a, b), (x, y, z) in _splits(len(hole), len(board)):
        v = _low_value([hole[a] >> 2, hole[b] >> 2, board[x] >> 2, board[y] >> 2, board[z] >> 2])
        if v is not None and (best is None or v > best):
            best = v
    return best


def holdem_low(hole: Sequence[int], board: Sequence[int]) -> int | None:
    """Best 8-or-better low from any five of hole + board (hold'em-style hi/lo)."""
    best: int | None = None
    for five in combinations([c >> 2 for c in (*hole, *board)], 5):
        v = _low_value(five)
        if v is not None and (best is None or v > best):
            best = v
    return best


@dataclass(frozen=True, slots=True)
class Showdown:
    """Showdown rules of one variant: high strength, optional low, and the deck it is dealt from."""

    high: Callable[[Sequence[int], Sequence[int]], int]
    low: Callable[[Sequence[int], Sequence[int]], int | None] | None
    deck: tuple[int, ...]

    def share(self, hero: Sequence[int], villain: Sequence[int], board: Sequence[int]) -> float:
        """Hero's share of a heads-up pot on a complete board (halves for split high and low)."""
        high = _share(self.high(hero, board), self.high(villain, board))
        if self.low is None:
            return high
        lh, lv = self.low(hero, board), self.low(villain, board)
        if lh is None and lv is None:
            return high
        low = 1.0 if lv is None else 0.0 if lh is None else _share(lh, lv)  # type: ignore[arg-type]
        return (high + low) / 2

    def equity(self, hero: Sequence[int], villain: Sequence[int], board: Sequence[int], *, samples: int, seed: int) -> float:
        """Hero's expected share: exact on a complete board, else `samples` seeded runouts."""
        missing = 5 - len(board)
        if missing <= 0:
            return self.share(hero, villain, board)
        used = {*hero, *villain, *board}
        stub = [c for c in self.deck if c not in used]
        rng = random.Random(seed)
        runs: list[Sequence[int]]
        if missing == 1:
            runs = [(c,) for c in (stub if len(stub) <= samples else rng.sample(stub, samples))]
        else:
            runs = []
            while len(runs) < samples:  # windows of one shuffled deck: many runouts per shuffle
                rng.shuffle(stub)
                runs.extend(stub[k : k + missing] for k in range(0, len(stub) - missing + 1, missing))
            runs = runs[:samples]
        if self.high is _holdem_high and self.low is None:
            # Hold'em high only: each player's hole and board become masks once, and a runout
            # adds its own one or two cards (the same strengths, a fraction of the work).
            mine, theirs = card_masks([*hero, *board]), card_masks([*villain, *board])
            return sum(_share(rank_masks(card_masks(run, mine)), rank_masks(card_masks(run, theirs)))
                       for run in runs) / len(runs)
        return sum(self.share(hero, villain, [*board, *run]) for run in runs) / len(runs)


def _share(a: int, b: int) -> float:
    return 1.0 if a > b else 0.5 if a == b else 0.0


def _holdem_high(hole: Sequence[int], board: Sequence[int]) -> int:
    return rank_hand([*hole, *board])


def _short_high(hole: Sequence[int], board: Sequence[int]) -> int:
    return short_rank([*hole, *board])


HOLDEM = Showdown(_holdem_high, None, DECK)
_SHOWDOWNS: dict[tuple[str, bool], Showdown] = {
    ("holdem", False): HOLDEM,
    ("holdem", True): Showdown(_holdem_high, holdem_low, DECK),
    ("short", False): Showdown(_short_high, None, SHORT_DECK),
    ("omaha", False): Showdown(omaha_rank, None, DECK),
    ("omaha", True): Showdown(omaha_rank, omaha_low, DECK),
}


def showdown_for(spec: VariantSpec | str) -> Showdown:
    """The showdown rules of a flop-game variant (hold'em's for anything unknown)."""
    resolved = variant_spec(spec) if isinstance(spec, str) else spec
    if resolved is None:
        return HOLDEM
    return _SHOWDOWNS.get((resolved.family, resolved.hi_lo), HOLDEM)
