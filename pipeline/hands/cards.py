"""Cards as small ints, a lookup-based 5-7 card hand evaluator, and heads-up equity.

Pure Python with precomputed 13-bit rank-mask tables (straights, top-k ranks): a 7-card hand is
ranked with one pass over the cards and a few look-ups, fast enough to price the heads-up decisions
of a stream of hands without pokerkit's much slower general evaluator.
"""

from __future__ import annotations

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


Masks = tuple[int, int, int, int, int, int, int, int]
"""Cards seen as bit masks of ranks: one per suit, then ranks seen once or more, twice or more,
three and four times (`card_masks`); what `rank_masks` ranks."""
NO_CARDS: Masks = (0, 0, 0, 0, 0, 0, 0, 0)


def card_masks(cards: Sequence[int], start: Masks = NO_CARDS) -> Masks:
    """`start` with `cards` added. Equity runouts add one or two cards to each player's hole and
    board, so those are turned into masks once and each runout adds only its own cards."""
    # Layered multiplicity masks (m2 = ranks seen twice or more, ...): no pass over the 13 ranks.
    s0, s1, s2, s3, m1, m2, m3, m4 = start
    for c in cards:
        b = 1 << (c >> 2)
        suit = c & 3
        if suit == 0:
            s0 |= b
        elif suit == 1:
            s1 |= b
        elif suit == 2:
            s2 |= b
        else:
            s3 |= b
        if not m1 & b:
            m1 |= b
        elif not m2 & b:
            m2 |= b
        elif not m3 & b:
            m3 |= b
        else:
            m4 |= b
    return s0, s1, s2, s3, m1, m2, m3, m4


def rank_hand(cards: Sequence[int]) -> int:
    """Strength of the best 5-card hand in 5 to 7 cards: larger is better, equal is a tie."""
    return rank_masks(card_masks(cards))


def rank_masks(masks: Masks) -> int:
    """`rank_hand` of the cards these masks hold."""
    s0, s1, s2, s3, m1, m2, m3, m4 = masks
    for m in (s0, s1, s2, s3):
        if POPCOUNT[m] >= 5:
            sf = STRAIGHT[m]
            return (STRAIGHT_FLUSH << _CAT | sf) if sf else (FLUSH << _CAT | TOP[5][m])
    quads, trips, pairs, singles = m4, m3 & ~m4, m2 & ~m3, m1 & ~m2
    if quads:
        return QUADS << _CAT | quads << 13 | TOP[1][m1 & ~quads]
    if trips:
        top_trip = TOP[1][trips]
        paired = pairs | (trips & ~top_trip)  # a second set plays as the pair of a full house
        if paired:
            return FULL_HOUSE << _CAT | top_trip << 13 | TOP[1][paired]
    st = STRAIGHT[m1]
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
