"""A light state machine for every flop game (hold'em, short deck, Omaha, hi/lo; no-limit,
pot-limit and fixed-limit): replays a PHH action list, checks it, and keeps the per-action facts the
detectors and the analyst replay need. The game's rules come from `variants.VARIANTS`.

Written for speed (a 6-max hand replays in tens of microseconds) instead of driving pokerkit's
general `State`, and lenient where real clients differ (a fold when checking is possible is legal;
an all-in raise below a full raise does not re-open betting checks). `blinds_or_straddles[i]` is read
literally as what player i posts; heads-up, the player posting the smaller blind is the button.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, cast

from pipeline.hands.cards import parse_cards
from pipeline.hands.conserve import check_chips
from pipeline.hands.errors import HandIntegrityError
from pipeline.hands.settle import settle
from pipeline.hands.showdown import showdown_for
from pipeline.hands.variants import VARIANTS, VariantSpec, variant_spec

PREFLOP, FLOP, TURN, RIVER = range(4)
STREET_NAMES = ("preflop", "flop", "turn", "river")
BOARD_SIZES = (0, 3, 4, 5)
_UNKNOWN_HOLES: dict[str, tuple[int | None, ...]] = {"??" * k: (None,) * k for k in range(1, 7)}
"""Hole cards nobody saw, 1 to 6 of them: what `_cards` would return for them."""


class Step(NamedTuple):
    """One player's betting action as replayed (0-based player index).

    A named tuple rather than a frozen dataclass: every hand is replayed when it is decoded, and a
    frozen dataclass of eleven fields costs ~1 us more to build per action (six times a tuple's)."""

    at: int
    """Position of the action in the hand's action list."""
    street: int
    player: int
    kind: str
    """fold | check | call | bet | raise"""
    amount: int
    """Chips this action put in."""
    facing: int
    """Chips the player needed to call before acting."""
    aggressor: int | None
    """Last player to bet or raise on this street before this action."""
    pot_before: int
    pot_after: int
    active: tuple[int, ...]
    """Players not folded just before the action."""
    all_in: bool


_new_step = tuple.__new__
"""Builds a `Step` from its fields in order, without the Python-level `__new__` a named tuple's
call goes through (one per betting action of every hand replayed)."""


class Replay(NamedTuple):
    """Everything learned by replaying a hand; `partial` lists what could not be checked.

    A named tuple, immutable like the frozen dataclass it was, built in a third of the time
    (a frozen dataclass sets each of its fields through `object.__setattr__`): one per hand decoded."""

    n: int
    big_blind: int
    holes: tuple[tuple[int, ...] | None, ...]
    board: tuple[int, ...]
    steps: tuple[Step, ...]
    committed: tuple[int, ...]
    """Chips each player put in the pot, after uncalled bets were returned."""
    returned: tuple[int, ...]
    folded: tuple[bool, ...]
    all_in: tuple[bool, ...]
    showdown: tuple[int, ...]
    """Players still in at the end when two or more were (their hands decide the pot)."""
    winnings: tuple[int, ...]
    """Chips pushed to each player from the pot (net of returned bets)."""
    shown: tuple[int, ...] = ()
    partial: tuple[str, ...] = ()
    variant: str = "NT"
    """The game's code (`variants.VARIANTS`): which showdown rules price its equity."""

    @property
    def pot(self) -> int:
        """Total chips contested (returned bets excluded)."""
        return sum(self.committed)


def replay_actions(
    *,
    variant: str,
    antes: Sequence[int],
    blinds: Sequence[int],
    min_bet: int,
    stacks: Sequence[int],
    actions: Sequence[str],
    finishing_stacks: Sequence[int] = (),
    winnings: Sequence[int] = (),
    rake: int = 0,
    run_count: int = 1,
) -> Replay:
    """Replay and check a hand; `HandIntegrityError` says why a hand cannot be trusted.

    `run_count` > 1 (run it twice / three times): the actions carry the first board only, so the
    pot is checked for conservation but not against that board's winner."""
    spec = variant_spec(variant)
    if spec is None or not spec.analysed:
        raise HandIntegrityError("unknown_variant", f"variant {variant!r} is carried but not replayed")
    table = HandState(antes=antes, blinds=blinds, min_bet=min_bet, stacks=stacks, spec=spec)
    # `HandState.apply`'s dispatch, inlined with one try around the loop: a hand is replayed on
    # every decode and this saves a call per action; the error is the same (`_action_error`).
    deal, act = table._deal, table._act
    index, action = 0, ""
    try:
        for index, action in enumerate(actions):
            if " #" in action:  # a comment; most actions have none, so the split is skipped
                action = action.split(" #", 1)[0]
            parts = action.split(" ")
            if parts[0] == "d":
                deal(parts)
            else:
                act(index, int(parts[0][1:]) - 1, parts[1], parts[2:])
    except (IndexError, ValueError) as exc:
        raise _action_error(exc, index, action) from None
    return table.finish(finishing_stacks=finishing_stacks, winnings=winnings, rake=rake, run_count=run_count)


def _action_error(exc: IndexError | ValueError, index: int, action: str) -> HandIntegrityError:
    """What a failed action raises: its own `HandIntegrityError` with the action's index (lets an
    importer point at the source line), or an `illegal_action` one for a malformed action."""
    if isinstance(exc, HandIntegrityError):
        if exc.action is None:
            exc.action = index
        return exc
    error = HandIntegrityError("illegal_action", f"action {index} {action!r}: {exc}")
    error.action = index
    return error


class HandState:
    """Mutable state of one hand being replayed; generators drive it one action at a time."""

    def __init__(
        self, *, antes: Sequence[int], blinds: Sequence[int], min_bet: int, stacks: Sequence[int],
        spec: VariantSpec = VARIANTS["NT"],
    ) -> None:
        n = self.n = len(stacks)
        self.spec = spec
        self.min_bet = max(min_bet, 1)
        self.stacks = list(stacks)
        self.committed = [0] * n
        self.bets = [0] * n
        self.pot = 0
        """sum(committed), kept as chips go in."""
        self.top = 0
        """max(bets) on this street, kept as bets are made."""
        self.folded = [False] * n
        self._live: tuple[int, ...] = tuple(range(n))
        """Players not folded (kept as folds happen: every action's Step records it)."""
        self.holes: list[tuple[int, ...] | None] = [None] * n
        self.dealt = [False] * n
        self.seen_cards: set[int] = set()
        self.board: list[int] = []
        self.steps: list[Step] = []
        self.shown: list[int] = []
        self.partial: list[str] = []
        self.street = PREFLOP
        blinds = list(blinds) or [0] * n
        posted = [*blinds[:n], *[0] * (n - len(blinds))]
        # Antes and dead blinds are not bets: an uncalled bet is measured without them. Putting in
        # 0 chips changes nothing, so only the players who post are visited.
        dead = self.dead = [0] * n
        if any(antes):
            # `_put(i, ante, street_bet=False)` for each ante, inlined: every tournament hand has one per player.
            stacks, committed = self.stacks, self.committed
            for i, ante in enumerate(antes[:n]):
                paid = dead[i] = min(ante, stacks[i])
                stacks[i] -= paid
                committed[i] += paid
            self.pot += sum(dead)
        for i, blind in enumerate(posted):
            if blind:
                self._put(i, blind, street_bet=True)
        self.big_blind = max([*blinds, min_bet, 1])
        self.min_raise = self.big_blind
        self.aggressor: int | None = None
        # The first player (from the button) posting the largest blind or straddle closes pre-flop:
        # a player posting a second big blind out of position (new to the table) acts in turn. With
        # no blinds at all (ante-only, bomb pot) the first player after the button is first.
        top_blind = max(posted)
        biggest = posted.index(top_blind) if top_blind else n - 1
        if n == 2 and top_blind:
            biggest = max(range(n), key=lambda i: (posted[i], i))
        # Postflop the first player after the button acts first; heads-up that is the big blind.
        self.post_order = [biggest, 1 - biggest] if n == 2 else list(range(n))
        pre_start = (biggest + 1) % n
        self.order: list[int] = [*range(pre_start, n), *range(pre_start)]
        self._position = dict(zip(self.order, range(n), strict=True))
        self.need = {i for i, stack in enumerate(self.stacks) if stack > 0}  # nobody has folded yet
        if len(self.need) == 1 and self.to_call(next(iter(self.need))) == 0:
            self.need = set()  # everyone else is all-in on the blinds and nothing is owed
        self.cursor = -1

    def _can_act(self, i: int) -> bool:
        return not self.folded[i] and self.stacks[i] > 0

    def to_call(self, i: int) -> int:
        """Chips player i must add to call (capped at their stack)."""
        return min(self.top - self.bets[i], self.stacks[i])

    def _put(self, i: int, amount: int, *, street_bet: bool) -> int:
        amount = min(amount, self.stacks[i])
        self.stacks[i] -= amount
        self.committed[i] += amount
        self.pot += amount
        if street_bet:
            bet = self.bets[i] = self.bets[i] + amount
            if bet > self.top:
                self.top = bet
        return amount

    def min_raise_to(self) -> int:
        """Smallest legal raise-to amount on this street."""
        return self.top + self.min_raise

    def live(self) -> list[int]:
        """Players not folded."""
        return self._active()

    def _active(self) -> list[int]:
        return list(self._live)

    def next_actor(self) -> int | None:
        """Player whose turn it is, None when the betting round is closed."""
        if not self.need:
            return None
        k = len(self.order)
        start = self._position.get(self.cursor, -1) + 1
        for step in range(k):
            i = self.order[(start + step) % k]
            if i in self.need:
                return i
        return None

    def apply(self, index: int, parts: list[str]) -> None:
        """Apply one PHH action (already split on spaces)."""
        try:
            if parts[0] == "d":
                self._deal(parts)
            else:
                self._act(index, int(parts[0][1:]) - 1, parts[1], parts[2:])
        except (IndexError, ValueError) as exc:
            raise _action_error(exc, index, " ".join(parts)) from None

    def _cards(self, text: str) -> tuple[int | None, ...]:
        try:
            cards = parse_cards(text)
        except ValueError as exc:
            raise HandIntegrityError("bad_cards", str(exc)) from None
        seen = self.seen_cards
        known: Sequence[int] = cast("tuple[int, ...]", cards) if None not in cards else [c for c in cards if c is not None]
        before = len(seen)
        seen.update(known)
        if len(seen) != before + len(known):  # a card seen before, or twice in this deal
            raise HandIntegrityError("duplicate_card", f"card {text} dealt twice")
        return cards

    def _deal(self, parts: list[str]) -> None:
        if parts[1] == "dh":
            i = int(parts[2][1:]) - 1
            if self.dealt[i]:
                raise HandIntegrityError("illegal_action", f"p{i + 1} dealt hole cards twice")
            self.dealt[i] = True
            text = parts[3]
            if text in _UNKNOWN_HOLES:
                # Opponents' cards not shown ('????', most deals in a GGPoker file): no card to
                # check against the others, so `_cards` and its set update are skipped.
                cards: tuple[int | None, ...] = _UNKNOWN_HOLES[text]
            else:
                cards = self._cards(text)
            want = self.spec.hole
            if len(cards) != want:
                raise HandIntegrityError(
                    "illegal_action", f"p{i + 1} dealt {len(cards)} hole cards, {self.spec.code} deals {want}"
                )
            # All known (no None): the tuple itself is the hole, no copy needed.
            self.holes[i] = None if None in cards else cast("tuple[int, ...]", cards)
            return
        if self.need and self._bomb_pot():
            self.need = set()  # no blinds and nobody acted: the flop comes at once (bomb pot)
        if self.need:
            raise HandIntegrityError("illegal_action", f"board dealt while p{self._next_actor_str()} must act")
        if len(self._active()) < 2:
            raise HandIntegrityError("illegal_action", "board dealt after the hand was won")
        if self.street == RIVER:
            raise HandIntegrityError("illegal_action", "board dealt after the river")
        cards = self._cards(parts[2])
        want = BOARD_SIZES[self.street + 1] - BOARD_SIZES[self.street]
        if len(cards) != want or None in cards:
            raise HandIntegrityError("illegal_action", f"{STREET_NAMES[self.street + 1]} needs {want} known cards")
        self.board.extend(c for c in cards if c is not None)
        self._new_street()

    def _bomb_pot(self) -> bool:
        return self.street == PREFLOP and not self.steps and self.top == 0

    def _next_actor_str(self) -> str:
        nxt = self.next_actor()
        return "?" if nxt is None else str(nxt + 1)

    def _new_street(self) -> None:
        self.street += 1
        self.bets = [0] * self.n
        self.top = 0
        self.min_raise = self.big_blind
        self.aggressor = None
        self.order = self.post_order
        self._position = dict(zip(self.order, range(len(self.order)), strict=True))
        self.cursor = -1
        folded, stacks = self.folded, self.stacks
        able = [i for i in range(self.n) if not folded[i] and stacks[i] > 0]  # `_can_act`, inlined
        self.need = set(able) if len(able) >= 2 else set()

    def _act(self, index: int, i: int, verb: str, rest: list[str]) -> None:
        if not 0 <= i < self.n:
            raise HandIntegrityError("illegal_action", f"no player p{i + 1}")
        if verb == "sm":
            self._show(i, rest)
            return
        if verb == "sd":
            raise HandIntegrityError("illegal_action", "discards are not part of hold'em")
        order = self.order
        # The usual turn: the player after the last actor is owed an action (what `next_actor`
        # would find first); anything else asks `next_actor`.
        if i not in self.need or order[(self._position.get(self.cursor, -1) + 1) % len(order)] != i:
            expected = self.next_actor()
        else:
            expected = i
        if expected != i:
            who = "nobody" if expected is None else f"p{expected + 1}"
            raise HandIntegrityError("illegal_action", f"action {index}: p{i + 1} acted but {who} was to act")
        facing = min(self.top - self.bets[i], self.stacks[i])  # self.to_call(i), inlined
        pot_before = self.pot
        active = self._live
        aggressor = self.aggressor
        if verb == "f":
            self.folded[i] = True
            live = list(active)  # i is in it (owed an action, so not folded): removed in C,
            live.remove(i)  # no comprehension frame
            self._live = tuple(live)
            kind, amount = "fold", 0
            self.need.discard(i)
            if len(self._live) == 1:
                self.need = set()
        elif verb == "cc":
            amount = self._put(i, facing, street_bet=True)
            kind = "call" if facing else "check"
            self.need.discard(i)
        elif verb == "cbr":
            target = int(rest[0])
            kind, amount = self._raise(i, target)
        else:
            raise HandIntegrityError("illegal_action", f"unknown verb {verb!r}")
        self.cursor = i
        self.steps.append(
            _new_step(Step, (index, self.street, i, kind, amount, facing, aggressor, pot_before,
                             self.pot, active, self.stacks[i] == 0 and amount > 0))
        )

    def _raise(self, i: int, target: int) -> tuple[str, int]:
        top = self.top
        add = target - self.bets[i]
        if target <= top:
            raise HandIntegrityError("illegal_action", f"p{i + 1} raises to {target}, not above {top}")
        if add > self.stacks[i]:
            raise HandIntegrityError("illegal_action", f"p{i + 1} bets {add} with a stack of {self.stacks[i]}")
        all_in = add == self.stacks[i]
        if self.spec.betting == "fixed":
            size = self.min_bet * (2 if self.street >= TURN else 1)
            if target - top != size and not (all_in and target - top < size):
                raise HandIntegrityError("illegal_action", f"p{i + 1} raises by {target - top}, the fixed limit is {size}")
        elif target - top < self.min_raise and not all_in:
            raise HandIntegrityError("illegal_action", f"p{i + 1} raises by {target - top}, minimum {self.min_raise}")
        if self.spec.betting == "pot":
            limit = top + self.pot + (top - self.bets[i])
            if target > limit:
                raise HandIntegrityError("illegal_action", f"p{i + 1} raises to {target}, the pot limit is {limit}")
        self.min_raise = max(self.min_raise, target - top)
        kind = "bet" if top == 0 else "raise"
        self._put(i, add, street_bet=True)
        self.aggressor = i
        folded, stacks = self.folded, self.stacks
        self.need = {j for j in range(self.n) if j != i and not folded[j] and stacks[j] > 0}  # `_can_act`, inlined
        return kind, add

    def _show(self, i: int, rest: list[str]) -> None:
        if self.need:
            raise HandIntegrityError("illegal_action", f"p{i + 1} shows while betting is open")
        if not rest or rest[0] in ("-", ""):
            return
        known = tuple(c for c in parse_cards(rest[0]) if c is not None)
        if len(known) != self.spec.hole:
            return
        hole = self.holes[i]
        if hole is not None and set(hole) != set(known):
            raise HandIntegrityError("bad_cards", f"p{i + 1} shows cards that were not dealt to them")
        if hole is None:
            for c in known:
                if c in self.seen_cards:
                    raise HandIntegrityError("duplicate_card", f"p{i + 1} shows a card already dealt")
                self.seen_cards.add(c)
            self.holes[i] = known
        self.shown.append(i)

    def finish(
        self, *, finishing_stacks: Sequence[int], winnings: Sequence[int], rake: int, run_count: int = 1
    ) -> Replay:
        """Check the hand is complete and its chips add up; build the `Replay`."""
        active = self._active()
        if self.need:
            raise HandIntegrityError("truncated", f"hand ends while p{self._next_actor_str()} must act")
        if len(active) >= 2 and self.street != RIVER:
            raise HandIntegrityError("truncated", f"hand ends on the {STREET_NAMES[self.street]} with {len(active)} players in")
        returned = [0] * self.n
        live = [c - d for c, d in zip(self.committed, self.dead, strict=True)]
        ordered = sorted(live, reverse=True)
        top = live.index(ordered[0])  # the first player with the most in
        if self.n > 1 and ordered[0] > ordered[1]:
            returned[top] = ordered[0] - ordered[1]
            self.committed[top] -= returned[top]
            self.stacks[top] += returned[top]
        partial = list(self.partial)
        if not all(self.dealt):
            partial.append("missing_hole_cards")
        elif len(active) >= 2 and any([self.holes[i] is None for i in active]):
            partial.append("missing_showdown_cards")
        elif None in self.holes:
            partial.append("missing_hole_cards")
        showdown = tuple(active) if len(active) >= 2 else ()
        computed = settle(
            committed=self.committed, folded=self.folded, holes=self.holes, board=self.board, rake=rake,
            showdown=showdown_for(self.spec),
        )
        if run_count > 1 and len(active) >= 2:
            computed = None  # the later boards are not in the actions: only conservation is checked
            partial.append("run_multiple_boards")
        final = check_chips(
            n=self.n, committed=self.committed, returned=returned, stacks=self.stacks,
            finishing=finishing_stacks, winnings=winnings, computed=computed, rake=rake,
        )
        return Replay(
            n=self.n, big_blind=self.big_blind, holes=tuple(self.holes), board=tuple(self.board),
            steps=tuple(self.steps), committed=tuple(self.committed), returned=tuple(returned),
            folded=tuple(self.folded), all_in=tuple([s == 0 for s in self.stacks]), showdown=showdown,
            winnings=final, shown=tuple(self.shown), partial=tuple(dict.fromkeys(partial)),
            variant=self.spec.code,
        )
