"""Cards as small ints, PHH card text, a 7-card hand ranker and a pre-flop strength table."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK: tuple[int, ...] = tuple(range(52))
"""Card c has rank c >> 2 (0 = deuce .. 12 = ace) and suit c & 3."""

CARD_TEXT: tuple[str, ...] = tuple(RANKS[c >> 2] + SUITS[c & 3] for c in DECK)


def cards_text(cards: Sequence[int]) -> str:
    """PHH text of some cards, e.g. `AcKd`."""
    return "".join(CARD_TEXT[c] for c in cards)


def _straight_high(ranks: set[int]) -> int:
    """Highest rank of a five-card straight among the ranks, -1 if none (the wheel counts)."""
    for high in range(12, 3, -1):
        if all(r in ranks for r in range(high - 4, high + 1)):
            return high
    if {12, 0, 1, 2, 3} <= ranks:
        return 3
    return -1


def _pack(category: int, kickers: Sequence[int]) -> int:
    value = category
    for i in range(5):
        value = value * 16 + (kickers[i] if i < len(kickers) else 0)
    return value


def rank_hand(cards: Sequence[int]) -> int:
    """Strength of the best five of 5-7 cards; higher wins, equal ties."""
    by_suit: list[list[int]] = [[], [], [], []]
    counts = [0] * 13
    for c in cards:
        by_suit[c & 3].append(c >> 2)
        counts[c >> 2] += 1
    for suited in by_suit:
        if len(suited) >= 5:
            high = _straight_high(set(suited))
            if high >= 0:
                return _pack(8, [high])
            flush = sorted(suited, reverse=True)[:5]
            flush_value = _pack(5, flush)
            break
    else:
        flush_value = -1
    groups = sorted(((n, r) for r, n in enumerate(counts) if n), reverse=True)
    top_n, top_r = groups[0]
    if top_n == 4:
        return _pack(7, [top_r, max((r for r in range(13) if counts[r] and r != top_r), default=0)])
    if top_n == 3 and len(groups) > 1 and groups[1][0] >= 2:
        return _pack(6, [top_r, groups[1][1]])
    if flush_value >= 0:
        return flush_value
    high = _straight_high({r for r in range(13) if counts[r]})
    if high >= 0:
        return _pack(4, [high])
    singles = sorted((r for r in range(13) if counts[r] == 1), reverse=True)
    if top_n == 3:
        return _pack(3, [top_r, *singles[:2]])
    pairs = sorted((r for r in range(13) if counts[r] == 2), reverse=True)
    if len(pairs) >= 2:
        rest = max([r for r in range(13) if counts[r] and r not in pairs[:2]], default=0)
        return _pack(2, [pairs[0], pairs[1], rest])
    if pairs:
        return _pack(1, [pairs[0], *singles[:3]])
    return _pack(0, singles[:5])


def category(value: int) -> int:
    """Hand category of a `rank_hand` value: 0 high card .. 8 straight flush."""
    return value >> 20


def _chen(a: int, b: int) -> float:
    """Chen formula score of two hole cards: a quick, well-known pre-flop strength estimate."""
    ra, rb = sorted((a >> 2, b >> 2), reverse=True)
    top = {12: 10.0, 11: 8.0, 10: 7.0, 9: 6.0}.get(ra, (ra + 2) / 2)
    if ra == rb:
        return max(5.0, top * 2)
    score = top + (2.0 if (a & 3) == (b & 3) else 0.0)
    gap = ra - rb - 1
    score -= (0, 1, 2, 4)[gap] if gap < 4 else 5
    if gap <= 1 and ra < 10:
        score += 1
    return score


def _percentiles() -> dict[tuple[int, int], float]:
    """Share of all 1,326 starting hands at least as strong, per (card, card) pair."""
    scores = {pair: _chen(*pair) for pair in combinations(DECK, 2)}
    ordered = sorted(scores.values(), reverse=True)
    total = len(ordered)
    last_index: dict[float, int] = {}
    for i, s in enumerate(ordered):
        last_index[s] = i
    return {pair: (last_index[s] + 1) / total for pair, s in scores.items()}


PREFLOP_TOP: dict[tuple[int, int], float] = _percentiles()
"""(low card, high card) -> the hand's place in the top x of all starting hands (0..1)."""


def preflop_top(a: int, b: int) -> float:
    """Place of a starting hand among all: 0.005 for aces, 1.0 for the worst."""
    return PREFLOP_TOP[(a, b) if a < b else (b, a)]
