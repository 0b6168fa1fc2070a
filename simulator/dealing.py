"""Plays one hand for a table (full engine or a quick chip-only outcome) and writes its record."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from pipeline.contracts import HAND, HandRecord
from simulator.cards import cards_text
from simulator.decisions import Tactics
from simulator.engine import HandOutcome, HandSetup, Pot, play_hand
from simulator.games import NLHE, Game
from simulator.population import Player
from simulator.world import World


@dataclass(frozen=True, slots=True)
class Deal:
    """One hand to deal: players in PHH order (button last) with their seats and stacks."""

    table_id: str
    game: str
    blind_level: str
    players: tuple[Player, ...]
    seats: tuple[int, ...]
    stacks: tuple[int, ...]
    small_blind: int
    big_blind: int
    ante: int = 0
    active: tuple[bool, ...] = ()
    all_in_or_fold: bool = False
    tactics: Tactics = field(default_factory=Tactics)
    tournament_id: str | None = None
    bounties: dict[str, int] | None = None
    rules: Game = NLHE
    """The game dealt (hold'em or Omaha); `game` is cash or tournament."""


def order_from_button(seat_numbers: Sequence[int], button: int) -> list[int]:
    """Seats in PHH order: first seat after the button first, the button last."""
    ordered = sorted(seat_numbers)
    after = [s for s in ordered if s > button] + [s for s in ordered if s <= button]
    return after


def blinds_list(n: int, small_blind: int, big_blind: int) -> list[int]:
    """What each player posts, read literally: heads-up p1 is the big blind and p2 the button."""
    if n == 2:
        return [big_blind, small_blind]
    return [small_blind, big_blind] + [0] * (n - 2)


def quick_outcome(stacks: Sequence[int], big_blind: int, rng: random.Random) -> HandOutcome:
    """A chip-only result without cards: a few players put in a small pot, one of them wins it."""
    n = len(stacks)
    contributors = rng.sample(range(n), k=min(n, rng.randint(2, 3)))
    all_in = rng.random() < 0.05
    paid = [0] * n
    for i in contributors:
        paid[i] = stacks[i] if all_in else min(stacks[i], big_blind * rng.randint(1, 6))
    winner = contributors[rng.randrange(len(contributors))]
    total = sum(paid)
    winnings = tuple(total if i == winner else 0 for i in range(n))
    finishing = tuple(stacks[i] - paid[i] + winnings[i] for i in range(n))
    pot = Pot(total, tuple(contributors), (winner,))
    return HandOutcome((), (), finishing, winnings, (pot,), ())


def play(world: World, deal: Deal, *, start: float, end: float, hand_id: str) -> HandOutcome:
    """Play the hand; with full hands on, emit its `hand.records` event at `end`."""
    if not world.config.hands:
        return quick_outcome(deal.stacks, deal.big_blind, world.rng)
    n = len(deal.players)
    setup = HandSetup(
        stacks=deal.stacks, styles=tuple(p.persona.style for p in deal.players),
        small_blind=deal.small_blind, big_blind=deal.big_blind, ante=deal.ante, active=deal.active,
        all_in_or_fold=deal.all_in_or_fold, tactics=deal.tactics, game=deal.rules,
    )
    outcome = play_hand(setup, world.rng)
    ids = [p.id for p in deal.players]
    eliminated = [ids[i] for i in range(n) if outcome.finishing[i] == 0] if deal.game == "tournament" else []
    record = HandRecord(
        event_id=world.next_id("hand"), ts=world.ts(end), hand_id=hand_id, table_id=deal.table_id,
        game=deal.game,  # type: ignore[arg-type]
        variant=deal.rules.code,  # type: ignore[arg-type]
        antes=[deal.ante] * n if deal.ante else [],
        blinds_or_straddles=blinds_list(n, deal.small_blind, deal.big_blind), min_bet=deal.big_blind,
        starting_stacks=list(deal.stacks), players=ids, seats=list(deal.seats),
        actions=list(outcome.actions), finishing_stacks=list(outcome.finishing),
        winnings=list(outcome.winnings), tournament_id=deal.tournament_id, blind_level=deal.blind_level,
        started_at=world.ts(start), bounties=dict(deal.bounties or {}), eliminated=eliminated,
    )
    world.emit(end, HAND, record)
    return outcome


def hole_texts(deal: Deal, outcome: HandOutcome) -> dict[str, str]:
    """Player id -> hole cards text (empty for quick outcomes)."""
    return {p.id: cards_text(h) for p, h in zip(deal.players, outcome.holes, strict=False)}


def eliminators(outcome: HandOutcome, loser: int) -> tuple[int, ...]:
    """Winners of the last pot the eliminated player could win: they share the bounty."""
    pots = [pot for pot in outcome.pots if loser in pot.eligible]
    if not pots:
        return ()
    return tuple(w for w in pots[-1].winners if w != loser)
