"""The chances a hand gave each player to attack one opponent heads-up, by kind of spot (soft play).

`pipeline.hands.features` counts one kind of chance for soft play: a heads-up post-flop decision with
nothing to call. Two things it leaves out matter when a pair meets heads-up only a few times (a
full PLO table, where most pots are multiway):

- **how strong the hand was**. A player bets a made hand beyond what the board shows far more often
  than air, so a checked set says more than a checked miss. Post-flop chances are split by the
  hero's made hand against the board (nothing beyond the board / one pair / two pair or better; the
  variant's own showdown: Omaha's two-plus-three), and each class is judged at the hero's own rate
  for that class against other opponents. Hole cards unknown: a class of their own.
- **the pre-flop heads-up spots**. Once everybody else has folded, each decision of the two that
  could raise (the small blind completing or folded to, the big blind's option, facing the other's
  open or re-raise) is a chance to attack as well; split into unopened pots and pots the other
  raised, each at the hero's own raise rate in such spots against others.

Only heads-up decisions between the two are counted: in a multiway pot a bet is not aimed at one
opponent. Equity is never computed here (cheap: one hand evaluation per heads-up post-flop step).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pipeline.hands.cards import TWO_PAIR, category, rank_hand
from pipeline.hands.engine import BOARD_SIZES, PREFLOP, Replay
from pipeline.hands.showdown import showdown_for

POST_AIR, POST_PAIR, POST_STRONG, POST_UNKNOWN, PRE_UNOPENED, PRE_RAISED = range(6)
SPOT_CLASSES = (
    "post_nothing",
    "post_pair",
    "post_two_pair_plus",
    "post_hole_unknown",
    "pre_unopened",
    "pre_raised",
)
"""Names of the classes, in index order (a tally keeps chances and attacks per class)."""
POST_CLASSES = (POST_AIR, POST_PAIR, POST_STRONG, POST_UNKNOWN)
PRE_CLASSES = (PRE_UNOPENED, PRE_RAISED)
N_CLASSES = len(SPOT_CLASSES)
AGGRESSIVE = frozenset({"bet", "raise"})


def empty_spots() -> list[int]:
    """[chances, attacks] per class, flattened: index 2c is class c's chances, 2c + 1 its attacks."""
    return [0] * (2 * N_CLASSES)


def strength_class(
    hole: tuple[int, ...] | None, board: tuple[int, ...], variant: str, board_made: int | None = None
) -> int:
    """The post-flop class of a hand on this board: what it makes beyond what the board shows.
    `board_made`: the board's own category, if the caller has it (one per street, not per step)."""
    if hole is None:
        return POST_UNKNOWN
    made = category(showdown_for(variant).high(hole, board))
    if made <= (category(rank_hand(board)) if board_made is None else board_made):
        return POST_AIR
    return POST_STRONG if made >= TWO_PAIR else POST_PAIR


@dataclass(slots=True)
class HandSpots:
    """One hand's chances to attack: heads-up ones per directed pair, multiway ones per player."""

    pairs: dict[tuple[int, int], list[int]] = field(default_factory=dict)
    """(hero, villain) -> [chances, attacks] per class, the two alone in the pot."""
    multiway: dict[int, list[int]] = field(default_factory=dict)
    """Player -> [chances, attacks] per class with two or more opponents still in: not aimed at
    anyone, so no pair's evidence, but the player's own aggression measured on far more hands (a
    full PLO table is mostly multiway); the detector scales it to heads-up by the population's
    heads-up / multiway ratio."""


def soft_spots(replay: Replay) -> HandSpots:
    """Every decision of the hand where the player could attack, by class of spot."""
    out = HandSpots()
    boards: dict[int, int] = {}  # street -> the board's own category, ranked once per street
    acted = {s.player for s in replay.steps}
    all_in = {i for i in range(replay.n) if replay.all_in[i] and i not in acted}  # put all-in by a blind
    for step in replay.steps:
        hero = step.player
        # A call that puts the hero all-in could not have been a raise.
        if not (step.all_in and step.kind == "call"):
            if len(step.active) == 2:
                villain = step.active[0] if step.active[1] == hero else step.active[1]
                if villain not in all_in:
                    cls = _class(replay, step.street, step.facing, step.aggressor == villain, hero, boards)
                    if cls is not None:
                        _count(out.pairs, (hero, villain), cls, step.kind)
            elif any(i != hero and i not in all_in for i in step.active):
                cls = _class(replay, step.street, step.facing, step.aggressor is not None, hero, boards)
                if cls is not None:
                    _count(out.multiway, hero, cls, step.kind)
        if step.all_in:
            all_in.add(step.player)
    return out


def _count(table: dict[Any, list[int]], key: Any, cls: int, kind: str) -> None:
    spots = table.get(key)
    if spots is None:
        spots = table[key] = empty_spots()
    spots[2 * cls] += 1
    spots[2 * cls + 1] += kind in AGGRESSIVE


def _class(
    replay: Replay, street: int, facing: int, raised: bool, hero: int, boards: dict[int, int]
) -> int | None:
    if street == PREFLOP:
        return PRE_RAISED if raised else PRE_UNOPENED
    if facing:
        return None  # post-flop, facing a bet: the features' `faced`, not a chance to attack first
    board = replay.board[: BOARD_SIZES[street]]
    made = boards.get(street)
    if made is None:
        made = boards[street] = category(rank_hand(board))
    return strength_class(replay.holes[hero], board, replay.variant, made)
