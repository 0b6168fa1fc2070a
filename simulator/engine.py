"""A small, fast dealer of no-limit hold'em and pot-limit Omaha (`games.py`) writing PHH action strings.

Conventions follow PHH/pokerkit: players are listed in post-flop order, the last one holds the
button; with three or more players p1 posts the small blind and p2 the big blind; heads-up the
button (p2) posts the small blind. `cbr N` raises *to* N on the street. When betting stops because
at most one live player has chips left, hands are shown before the rest of the board is dealt, in
pokerkit's order (from the street's last aggressor, else its first actor). A test replays generated
hands through pokerkit to keep the two in agreement.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field

from simulator.cards import DECK, cards_text
from simulator.decisions import Spot, Style, Tactics, decide
from simulator.games import NLHE, Game


@dataclass(frozen=True, slots=True)
class HandSetup:
    """Who plays, with what, under which blinds; lists follow the PHH player order."""

    stacks: tuple[int, ...]
    styles: tuple[Style, ...]
    small_blind: int
    big_blind: int
    ante: int = 0
    active: tuple[bool, ...] = ()
    """False for a dealt-in player who is sitting out (tournaments): check/fold only."""
    all_in_or_fold: bool = False
    tactics: Tactics = field(default_factory=Tactics)
    game: Game = NLHE
    """What is dealt: hold'em (2 hole cards, no limit) or Omaha (4, pot limit)."""


@dataclass(frozen=True, slots=True)
class Pot:
    """One main or side pot: its size, who could win it and who did."""

    amount: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HandOutcome:
    """A played hand: PHH actions and the chips each player ends with and won."""

    actions: tuple[str, ...]
    holes: tuple[tuple[int, ...], ...]
    finishing: tuple[int, ...]
    winnings: tuple[int, ...]
    pots: tuple[Pot, ...]
    showdown: tuple[int, ...]
    """Players who showed their cards."""
    planted: bool = False
    """A collusive tactic decided at least one action."""
    soft_played: bool = False
    """Of those, friends left alone in the pot soft-played each other (not only hunted a target)."""
    checked_down: frozenset[int] = frozenset()
    """Players who called or checked a third player's all-in under the check-down tactic and stayed
    in to the end (two friends here = the bounty agreement acted on in this hand)."""


class _Table:
    """Mutable state of one hand being dealt; lives only inside `play_hand`."""

    def __init__(self, setup: HandSetup, rng: random.Random) -> None:
        self.setup = setup
        self.rng = rng
        self.n = len(setup.stacks)
        self.stacks = list(setup.stacks)
        self.committed = [0] * self.n
        self.bets = [0] * self.n
        self.folded = [False] * self.n
        self.actions: list[str] = []
        self.board: list[int] = []
        self.opener = 0
        self.street = 0
        self.planted = False
        self.soft_played = False
        self.checked_down: set[int] = set()
        deck = list(DECK)
        rng.shuffle(deck)
        self.deck = deck
        hole = setup.game.hole
        self.holes = [tuple(deck.pop() for _ in range(hole)) for _ in range(self.n)]

    def put(self, i: int, amount: int) -> None:
        paid = min(amount, self.stacks[i])
        self.stacks[i] -= paid
        self.bets[i] += paid
        self.committed[i] += paid

    def live(self) -> list[int]:
        return [i for i in range(self.n) if not self.folded[i]]

    def can_act(self, i: int) -> bool:
        return not self.folded[i] and self.stacks[i] > 0

    def post(self) -> None:
        s = self.setup
        for i in range(self.n):
            self.put(i, s.ante)
        self.bets = [0] * self.n
        sb, bb = (1, 0) if self.n == 2 else (0, 1)
        self.put(sb, s.small_blind)
        self.put(bb, s.big_blind)
        for i, hole in enumerate(self.holes):
            self.actions.append(f"d dh p{i + 1} {cards_text(hole)}")

    def betting(self) -> None:
        """One betting round from the street's first actor until everyone has matched or folded."""
        n = self.n
        if self.street == 0:
            first = 2 % n if n > 2 else 1
            current = max(self.bets)
        else:
            first, current = 0, 0
        self.opener = first
        min_raise = self.setup.big_blind
        order = [(first + k) % n for k in range(n)]
        pending = deque(i for i in order if self.can_act(i))
        if len(pending) == 1 and self.bets[pending[0]] >= current:
            pending.clear()  # alone with chips and owing nothing: no betting round at all
        may_raise = set(pending)
        aggressor: int | None = None
        while pending:
            i = pending.popleft()
            live = self.live()
            if len(live) == 1 or not self.can_act(i):
                continue
            to_call = current - self.bets[i]
            # A raise needs someone who could still put in more than the current bet (pokerkit's rule).
            others = any(j != i and self.can_act(j) and self.bets[j] + self.stacks[j] > current for j in live)
            max_to = self.setup.game.max_raise_to(
                current=current, to_call=max(0, to_call), pot=sum(self.committed), stack_to=self.bets[i] + self.stacks[i],
            )
            spot = Spot(
                index=i, street=self.street, to_call=max(0, to_call), current=current,
                min_raise_to=min(current + min_raise, max_to), max_to=max_to, pot=sum(self.committed),
                can_raise=others and i in may_raise and max_to > current, live=frozenset(live),
                last_aggressor=aggressor, big_blind=self.setup.big_blind,
                all_in=frozenset(j for j in live if self.stacks[j] == 0), bets=tuple(self.bets),
            )
            (kind, amount), tactic = decide(
                spot, hole=self.holes[i], board=self.board, style=self.setup.styles[i],
                tactics=self.setup.tactics, active=not self.setup.active or self.setup.active[i],
                all_in_or_fold=self.setup.all_in_or_fold, rng=self.rng, game=self.setup.game,
            )
            self.planted = self.planted or tactic is not None
            self.soft_played = self.soft_played or tactic == "soft"
            if tactic == "check_down":
                self.checked_down.add(i)
            may_raise.discard(i)
            if kind == "f" and to_call > 0:
                self.folded[i] = True
                self.actions.append(f"p{i + 1} f")
            elif kind == "cbr" and spot.can_raise:
                amount = max(spot.min_raise_to, min(amount, max_to))
                if amount - current >= min_raise:
                    min_raise = amount - current
                    may_raise = {j for j in live if j != i}
                self.put(i, amount - self.bets[i])
                current = amount
                aggressor = i
                self.opener = i
                self.actions.append(f"p{i + 1} cbr {amount}")
                pending = deque(j for j in ((i + k) % n for k in range(1, n)) if self.can_act(j))
            else:
                self.put(i, max(0, to_call))
                self.actions.append(f"p{i + 1} cc")
        self.bets = [0] * n

    def deal_board(self, count: int) -> None:
        cards = [self.deck.pop() for _ in range(count)]
        self.board.extend(cards)
        self.actions.append(f"d db {cards_text(cards)}")

    def show(self) -> list[int]:
        live = self.live()
        order = [(self.opener + k) % self.n for k in range(self.n)]
        shown = [i for i in order if i in live]
        for i in shown:
            self.actions.append(f"p{i + 1} sm {cards_text(self.holes[i])}")
        return shown

    def pots(self) -> list[Pot]:
        """Main and side pots from what each player put in, each awarded to its best hands."""
        live = self.live()
        showdown = self.setup.game.showdown
        strength = {i: showdown(self.holes[i], self.board) for i in live} if len(live) > 1 else {}
        levels = sorted({self.committed[i] for i in live})
        pots: list[Pot] = []
        previous = 0
        for level in levels:
            amount = sum(min(c, level) - min(c, previous) for c in self.committed)
            eligible = tuple(i for i in live if self.committed[i] >= level)
            if amount > 0:
                winners: tuple[int, ...]
                if len(eligible) == 1:
                    winners = eligible
                else:
                    best = max(strength[i] for i in eligible)
                    winners = tuple(i for i in eligible if strength[i] == best)
                pots.append(Pot(amount, eligible, winners))
            previous = level
        # Chips committed above every live player's level (a folder's overbet) go to the top pot.
        leftover = sum(self.committed) - sum(p.amount for p in pots)
        if leftover and pots:
            top = pots[-1]
            pots[-1] = Pot(top.amount + leftover, top.eligible, top.winners)
        return pots


def play_hand(setup: HandSetup, rng: random.Random) -> HandOutcome:
    """Deal and play one hand to the end."""
    table = _Table(setup, rng)
    table.post()
    shown: list[int] = []
    for street, cards in ((0, 0), (1, 3), (2, 1), (3, 1)):
        if cards:
            table.deal_board(cards)
        table.street = street
        table.betting()
        live = table.live()
        if len(live) == 1:
            break
        if street == 3 or sum(1 for i in live if table.stacks[i] > 0) <= 1:
            shown = table.show()
            while len(table.board) < 5:
                table.deal_board(3 if not table.board else 1)
            break
    pots = table.pots()
    winnings = [0] * table.n
    for pot in pots:
        share, rest = divmod(pot.amount, len(pot.winners))
        for k, w in enumerate(pot.winners):
            winnings[w] += share + (rest if k == 0 else 0)
    finishing = tuple(s + w for s, w in zip(table.stacks, winnings, strict=True))
    return HandOutcome(
        actions=tuple(table.actions), holes=tuple(table.holes), finishing=finishing,
        winnings=tuple(winnings), pots=tuple(pots), showdown=tuple(shown), planted=table.planted,
        soft_played=table.soft_played,
        checked_down=frozenset(i for i in table.checked_down if not table.folded[i]),
    )
