"""Cards as small ints, a lookup-based 5-7 card hand evaluator, and heads-up equity.

Pure Python with precomputed 13-bit rank-mask tables (straights, top-k ranks): a 7-card hand is
ranked with one pass over the cards and a few look-ups, fast enough to price the heads-up decisions
of a stream of hands without pokerkit's much slower general evaluator.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK: tuple[int, ...] = tuple(range(52))
"""Card = rank * 4 + suit, rank 0 (deuce) .. 12 (ace), suit index into `SUITS`."""


def parse_card(text: str) -> int | None:
    """Card int for a two-character card ('Ah'), None for an unknown one ('??')."""
    if text == "??":
        return None
    r, s = RANKS.find(text[0].upper()), SUITS.find(text[1].lower())
    if r < 0 or s < 0 or len(text) != 2:
        raise ValueError(f"not a card: {text!r}")
    return r * 4 + s


_CARD_INTS: dict[str, int | None] = {"??": None} | {
    r + s: i * 4 + j for i, r in enumerate(RANKS) for j, s in enumerate(SUITS)
} | {r.lower() + s: i * 4 + j for i, r in enumerate(RANKS) for j, s in enumerate(SUITS) if r.isalpha()}


@lru_cache(maxsize=8192)  # pure, returns a tuple; '????' and the 1,326 two-card holes recur all the time
def parse_cards(text: str) -> tuple[int | None, ...]:
    """Cards of a PHH card string ('AcKd', '????'); unknown cards are None."""
    if len(text) % 2:
        raise ValueError(f"odd-length card string: {text!r}")
    try:
        # One dict look-up per card: this runs for every deal of every hand replayed.
        return tuple([_CARD_INTS[text[i : i + 2]] for i in range(0, len(text), 2)])
    except KeyError:
        return tuple(parse_card(text[i : i + 2]) for i in range(0, len(text), 2))


def card_text(card: int) -> str:
    """Two-character form of a card int."""
    return RANKS[card >> 2] + SUITS[card & 3]


def _straight_table() -> list[int]:
    """For each 13-bit rank mask: 1 + rank of the highest straight's top card, or 0."""
    table = [0] * 8192
    for mask in range(8192):
        for top in range(12, 3, -1):
            window = 0b11111 << (top - 4)
            if mask & window == window:
                table[mask] = top + 1
                break
        else:
            wheel = (1 << 12) | 0b1111  # A-2-3-4-5
            if mask & wheel == wheel:
                table[mask] = 4  # five-high
    return table


def _top_bits(mask: int, k: int) -> int:
    """The k highest set bits of a rank mask."""
    out = 0
    for r in range(12, -1, -1):
        if k == 0:
            break
        if mask >> r & 1:
            out |= 1 << r
            k -= 1
    return out


STRAIGHT: list[int] = _straight_table()
POPCOUNT: list[int] = [bin(m).count("1") for m in range(8192)]
TOP: tuple[list[int], ...] = tuple([_top_bits(m, k) for m in range(8192)] for k in range(6))
"""TOP[k][mask]: the k highest ranks of a mask (k = 0..5)."""
HIGH, PAIR, TWO_PAIR, TRIPS, STRAIGHT_CAT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
_CAT = 26  # category sits above two 13-bit fields, so comparing ints compares hands


def rank_hand(cards: Sequence[int]) -> int:
    """Strength of the best 5-card hand in 5 to 7 cards: larger is better, equal is a tie."""
    suit_masks = [0, 0, 0, 0]
    counts = [0] * 13
    for c in cards:
        suit_masks[c & 3] |= 1 << (c >> 2)
        counts[c >> 2] += 1
    for m in suit_masks:
        if POPCOUNT[m] >= 5:
            sf = STRAIGHT[m]
            return (STRAIGHT_FLUSH << _CAT | sf) if sf else (FLUSH << _CAT | TOP[5][m])
    singles = pairs = trips = quads = 0
    for r in range(13):
        n = counts[r]
        if n == 1:
            singles |= 1 << r
        elif n == 2:
            pairs |= 1 << r
        elif n == 3:
            trips |= 1 << r
        elif n == 4:
            quads |= 1 << r
    if quads:
        return QUADS << _CAT | quads << 13 | TOP[1][(singles | pairs | trips) & ~quads]
    if trips:
        top_trip = TOP[1][trips]
        paired = pairs | (trips & ~top_trip)  # a second set plays as the pair of a full house
        if paired:
            return FULL_HOUSE << _CAT | top_trip << 13 | TOP[1][paired]
    st = STRAIGHT[singles | pairs | trips]
    if st:
        return STRAIGHT_CAT << _CAT | st
    if trips:
        return TRIPS << _CAT | trips << 13 | TOP[2][singles]
    if POPCOUNT[pairs] >= 2:
        top2 = TOP[2][pairs]
        return TWO_PAIR << _CAT | top2 << 13 | TOP[1][(singles | pairs) & ~top2]
    if pairs:
        return PAIR << _CAT | pairs << 13 | TOP[3][singles]
    return HIGH << _CAT | TOP[5][singles]


def category(strength: int) -> int:
    """Hand category of a strength (0 high card .. 8 straight flush)."""
    return strength >> _CAT


def equity_heads_up(
    hero: Sequence[int], villain: Sequence[int], board: Sequence[int], *, samples: int, seed: int
) -> float:
    """Hero's share of the pot against villain: exact on the river, else `samples` seeded runouts."""
    missing = 5 - len(board)
    if missing <= 0:
        return _share(rank_hand([*hero, *board]), rank_hand([*villain, *board]))
    used = set(hero) | set(villain) | set(board)
    stub = [c for c in DECK if c not in used]
    runs: list[Sequence[int]]
    if missing == 1 and len(stub) <= samples:
        runs = [(c,) for c in stub]
    elif missing == 1:
        runs = [(c,) for c in random.Random(seed).sample(stub, samples)]
    else:
        # Windows of one shuffled deck per pass: many runouts per shuffle, cheaper than sampling each.
        rng = random.Random(seed)
        runs = []
        while len(runs) < samples:
            rng.shuffle(stub)
            runs.extend(stub[k : k + missing] for k in range(0, len(stub) - missing + 1, missing))
        runs = runs[:samples]
    h, v, b = list(hero), list(villain), list(board)
    total = 0.0
    for run in runs:
        full = [*b, *run]
        total += _share(rank_hand(h + full), rank_hand(v + full))
    return total / len(runs)


def _share(a: int, b: int) -> float:
    return 1.0 if a > b else 0.5 if a == b else 0.0
