"""How a simulated player acts in a hand: persona frequencies plus the collusive tactics planted."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from simulator.games import NLHE, Game, board_category

CHECK_DOWN_CALL = 0.45
"""Share of starting hands a bounty hunter calls a third player's all-in with when it costs at most a
third of his stack (his own game calls far fewer: the bounty, and a partner who will not bet into
him, make the call cheaper); 0.2 when it costs more."""
GANG_UP_CALL = 0.9
"""The same once the partner has called: two live hands against the all-in (0.3 when expensive)."""


@dataclass(frozen=True, slots=True)
class Style:
    """Action frequencies of a persona (shares of hands / decisions)."""

    vpip: float
    """Voluntarily puts money in pre-flop: share of starting hands played."""
    pfr: float
    """Pre-flop raise: share of starting hands raised (<= vpip)."""
    aggression: float
    """Chance to bet or raise when the hand allows it, post-flop."""
    fold_to_bet: float
    """Chance to fold a weak hand when facing a bet, post-flop."""
    shove: float = 0.25
    """All-In or Fold: share of starting hands pushed."""


@dataclass(frozen=True, slots=True)
class Tactics:
    """Collusive behaviour inside one hand (player indices are positions in the hand)."""

    friends: frozenset[frozenset[int]] = frozenset()
    """Groups that never bet into each other (soft play)."""
    dump: tuple[int, int] | None = None
    """(dumper, receiver): the dumper feeds chips to the receiver when heads-up."""
    target: int | None = None
    """Player the friends agreed to knock out for the bounty."""
    check_down: bool = False
    """Once a third player is all-in the friends call it with a wide range (wider still when the
    partner is in) and check it down, never betting into each other (the textbook pattern); they
    do not hunt the target with raises. False keeps the "raise to isolate the target" hunt."""


@dataclass(frozen=True, slots=True)
class Spot:
    """What a player sees when it is their turn."""

    index: int
    street: int
    to_call: int
    current: int
    min_raise_to: int
    max_to: int
    pot: int
    can_raise: bool
    live: frozenset[int]
    last_aggressor: int | None
    big_blind: int
    all_in: frozenset[int] = frozenset()
    """Players with no chips behind (they cannot act again this hand)."""
    bets: tuple[int, ...] = ()
    """What each player has put in on this street."""


Decision = tuple[str, int]
"""("f" | "cc" | "cbr", raise-to amount for cbr else 0)."""


def _friends_of(index: int, tactics: Tactics) -> frozenset[int]:
    for group in tactics.friends:
        if index in group:
            return group - {index}
    return frozenset()


def _strength(hole: Sequence[int], board: list[int], game: Game = NLHE) -> int:
    """0 = nothing beyond the board, 1 = one pair, 2 = two pair, 3+ = strong made hand."""
    mine = game.made(hole, board)
    return mine if mine > board_category(board) else 0


def _raise(spot: Spot, target: int) -> Decision:
    """A raise to at least the legal minimum, all-in when most of the stack would go in anyway."""
    amount = max(spot.min_raise_to, target)
    if amount * 10 >= spot.max_to * 7:
        amount = spot.max_to
    return ("cbr", min(amount, spot.max_to)) if spot.can_raise else ("cc", 0)


Tactic = Literal["dump", "soft", "target", "check_down"]
"""Which planted tactic decided an action: chip dumping, soft play between friends, bounty hunting
by raises, checking down a third player's all-in."""


def _check_down(
    spot: Spot, friends: frozenset[int], hole: Sequence[int], board: list[int], game: Game = NLHE,
) -> tuple[Decision, Tactic] | None:
    """A third player is all-in and a partner is still in: every knockout pays a bounty, so the
    friends call with a wide range and check it down between them so that one of them collects it.
    Hands outside the range are left to the player's own game (usually a fold)."""
    if not spot.all_in - friends - {spot.index} or not spot.live & friends:
        return None
    if spot.to_call == 0:
        return ("cc", 0), "check_down"  # never a bet into the partner
    cheap = spot.to_call * 3 <= spot.max_to
    partner_in = any(f in spot.all_in or (f < len(spot.bets) and spot.bets[f] >= spot.current)
                     for f in spot.live & friends)
    if spot.street == 0:
        limit = (GANG_UP_CALL if cheap else 0.3) if partner_in else (CHECK_DOWN_CALL if cheap else 0.2)
        calls = game.preflop(hole) <= limit
    else:
        calls = _strength(hole, board, game) >= 1 or (partner_in and cheap)
    return (("cc", 0), "check_down") if calls else None


def _collusive(
    spot: Spot, tactics: Tactics, rng: random.Random, hole: Sequence[int] = (0, 1), board: list[int] | None = None,
    game: Game = NLHE,
) -> tuple[Decision, Tactic] | None:
    """The planted tactic for this spot and its name, or None to play the persona's normal game."""
    i = spot.index
    if tactics.dump is not None and spot.live == frozenset(tactics.dump):
        dumper, _ = tactics.dump
        if i == dumper:
            if spot.to_call == 0:
                # Bet big but never all-in: the dumper must be able to fold the river and lose.
                bet = min(max(spot.big_blind * 3, spot.pot * 4 // 5), spot.big_blind * 25)
                amount = min(spot.current + bet, spot.max_to - spot.big_blind)
                return (("cbr", amount) if spot.can_raise and amount >= spot.min_raise_to else ("cc", 0)), "dump"
            return (("f", 0) if spot.street == 3 or spot.to_call * 2 > spot.max_to else ("cc", 0)), "dump"
        if spot.to_call > 0 and spot.street == 3:
            return _raise(spot, spot.current * 5 // 2), "dump"
        return ("cc", 0), "dump"
    friends = _friends_of(i, tactics)
    if not friends:
        return None
    others = spot.live - {i}
    if others and others <= friends:
        # Soft play: friends check it down and never raise each other.
        return (("cc", 0) if spot.to_call <= spot.big_blind * 2 or spot.street > 0 else ("f", 0)), "soft"
    if tactics.check_down:
        return _check_down(spot, friends, hole, board or [], game)
    if tactics.target is not None and tactics.target in spot.live and tactics.target != i:
        if spot.last_aggressor in friends:
            return ("cc", 0), "target"
        if spot.to_call == 0 or spot.last_aggressor == tactics.target:
            hunt = _raise(spot, spot.current + max(spot.big_blind * 2, spot.pot * 3 // 4))
            return (hunt if rng.random() < 0.7 else ("cc", 0)), "target"
    return None


def decide(
    spot: Spot, *, hole: Sequence[int], board: list[int], style: Style, tactics: Tactics,
    active: bool, all_in_or_fold: bool, rng: random.Random, game: Game = NLHE,
) -> tuple[Decision, Tactic | None]:
    """The action a player takes and which planted tactic chose it (None: the persona's own game);
    callers enforce legality."""
    if not active:
        return (("cc", 0) if spot.to_call == 0 else ("f", 0)), None
    planted = _collusive(spot, tactics, rng, hole, board, game)
    if planted is not None:
        return planted
    if spot.street == 0 and 0 < spot.to_call * 10 <= spot.max_to and spot.live & _friends_of(spot.index, tactics) \
            and rng.random() < 0.5:
        # Colluders call along when a partner is in the pot: more hands played together.
        return ("cc", 0), None
    return _persona(spot, hole=hole, board=board, style=style, all_in_or_fold=all_in_or_fold, rng=rng, game=game), None


def _persona(
    spot: Spot, *, hole: Sequence[int], board: list[int], style: Style, all_in_or_fold: bool,
    rng: random.Random, game: Game = NLHE,
) -> Decision:
    if all_in_or_fold:
        top = game.preflop(hole)
        if spot.to_call == 0:
            return ("cc", 0)
        limit = style.shove if spot.current <= spot.big_blind else style.shove * 0.6
        if top <= limit:
            return ("cbr", spot.max_to) if spot.can_raise and spot.max_to > spot.current else ("cc", 0)
        return ("f", 0)
    if spot.street == 0:
        return _preflop(spot, game.preflop(hole) * rng.uniform(0.8, 1.25), style)
    return _postflop(spot, _strength(hole, board, game), style, rng)


def _preflop(spot: Spot, top: float, style: Style) -> Decision:
    bb = spot.big_blind
    if spot.to_call == 0:
        return _raise(spot, bb * 3) if top <= style.pfr * 0.5 else ("cc", 0)
    if spot.current <= bb:
        if top <= style.pfr:
            return _raise(spot, bb * 3)
        return ("cc", 0) if top <= style.vpip else ("f", 0)
    if top <= style.pfr * 0.25:
        return _raise(spot, spot.current * 3)
    cheap = spot.to_call * 8 <= spot.max_to
    return ("cc", 0) if top <= style.vpip * (0.6 if cheap else 0.25) else ("f", 0)


def _postflop(spot: Spot, strength: int, style: Style, rng: random.Random) -> Decision:
    roll = rng.random()
    bet_to = spot.current + max(spot.big_blind, int(spot.pot * rng.uniform(0.4, 0.8)))
    if spot.to_call == 0:
        chance = style.aggression * (0.3, 0.6, 0.85)[min(strength, 2)]
        return _raise(spot, bet_to) if roll < chance else ("cc", 0)
    if strength == 0:
        if roll < style.fold_to_bet:
            return ("f", 0)
        return _raise(spot, spot.current * 3) if roll > 1 - style.aggression * 0.08 else ("cc", 0)
    if strength == 1:
        if roll < style.fold_to_bet * 0.4:
            return ("f", 0)
        return _raise(spot, spot.current * 3) if roll > 1 - style.aggression * 0.15 else ("cc", 0)
    return _raise(spot, spot.current * 3) if roll < style.aggression * 0.5 else ("cc", 0)
