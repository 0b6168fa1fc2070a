"""The games a simulated table deals: no-limit hold'em and pot-limit Omaha.

A `Game` is what the dealer and the players' decisions need to know about the rules: how many hole
cards, how the pot limit caps a raise, who wins at showdown and how strong a hand reads. Omaha's
showdown (exactly two hole cards and three board cards) is the pipeline's own evaluator
(`pipeline.hands.showdown.omaha_rank`), so the simulator and the hand engine cannot disagree on a
winner.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

from pipeline.hands.showdown import omaha_rank
from simulator.cards import category, preflop_top, rank_hand

_OMAHA_CAT = 26
"""`pipeline.hands.cards.rank_hand` keeps the hand category above this bit."""


@dataclass(frozen=True, slots=True)
class Game:
    """Rules of one dealt game: record code, seat-event name, hole cards, betting and showdown."""

    code: str
    """Variant code of `hand.records` (`pipeline.hands.variants`)."""
    seat_variant: str
    """Variant name of `seat.activity`."""
    hole: int
    pot_limit: bool
    showdown: Callable[[Sequence[int], Sequence[int]], int]
    """Showdown strength of hole cards on a complete board (larger wins, equal ties)."""
    made: Callable[[Sequence[int], Sequence[int]], int]
    """Category of the best hand so far (0 high card .. 8 straight flush), board of 3-5 cards."""
    preflop: Callable[[Sequence[int]], float]
    """Place of the starting hand among all of this game's (0 best .. 1 worst)."""

    def max_raise_to(self, *, current: int, to_call: int, pot: int, stack_to: int) -> int:
        """Largest legal raise-to: the whole stack, or under the pot limit the current bet plus
        the pot after calling (`pot` counts every chip in, this street's bets included)."""
        if not self.pot_limit:
            return stack_to
        return min(stack_to, current + pot + to_call)


def _holdem_showdown(hole: Sequence[int], board: Sequence[int]) -> int:
    return rank_hand([*hole, *board])


def _holdem_made(hole: Sequence[int], board: Sequence[int]) -> int:
    return category(rank_hand([*hole, *board]))


def _holdem_preflop(hole: Sequence[int]) -> float:
    return preflop_top(hole[0], hole[1])


def _omaha_made(hole: Sequence[int], board: Sequence[int]) -> int:
    return omaha_rank(hole, board) >> _OMAHA_CAT


def _omaha_preflop(hole: Sequence[int]) -> float:
    """The best two-card combination's hold'em place, spread back over 0..1: the best of six
    pairs is far better than one random pair, so its place p maps to 1 - (1 - p)^6."""
    best = min(preflop_top(a, b) for a, b in combinations(hole, 2))
    return 1.0 - (1.0 - best) ** 6


NLHE = Game("NT", "nlhe", 2, False, _holdem_showdown, _holdem_made, _holdem_preflop)
PLO = Game("PO", "plo", 4, True, omaha_rank, _omaha_made, _omaha_preflop)
GAMES: dict[str, Game] = {g.code: g for g in (NLHE, PLO)}
"""Every game the simulator deals, by record variant code."""


def board_category(board: Sequence[int]) -> int:
    """Category the board alone shows (a paired board, trips on board), whatever the game."""
    return category(rank_hand(board)) if board else 0
