"""`hand.records`: one finished hand in the PHH model (pokerkit) with Railbird's own fields."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, PrivateAttr, StringConstraints, model_validator

from pipeline.contracts.common import Contract, Id, UtcDatetime
from pipeline.hands.engine import Replay, replay_actions
from pipeline.hands.errors import HandIntegrityError
from pipeline.hands.variants import Variant

MAX_PLAYERS = 10
MAX_ACTIONS = 400

ACTION_PATTERN = (
    r"^(d dh p\d{1,2} [2-9TJQKA?][cdhs?]([2-9TJQKA?][cdhs?])*"
    r"|d db [2-9TJQKA][cdhs]([2-9TJQKA][cdhs])*"
    r"|p\d{1,2} (f|cc|cbr \d+|sm( [2-9TJQKA?][cdhs?]([2-9TJQKA?][cdhs?])*)?|sd( [2-9TJQKA][cdhs])*))"
    r"( #.*)?$"
)
"""PHH action notation: deals, fold, check/call, complete/bet/raise-to, show/muck, stand pat/discard."""

Action = Annotated[str, StringConstraints(max_length=200, pattern=ACTION_PATTERN)]
Chips = Annotated[int, Field(ge=0, le=10**15)]


class HandRecord(Contract):
    """A finished hand; list fields are indexed by seat order (`players[i]` is player i+1)."""

    hand_id: Id
    table_id: Id
    game: Literal["cash", "tournament"]
    variant: Variant
    antes: list[Chips] = Field(max_length=MAX_PLAYERS)
    blinds_or_straddles: list[Chips] = Field(max_length=MAX_PLAYERS)
    min_bet: Chips
    starting_stacks: list[Chips] = Field(min_length=2, max_length=MAX_PLAYERS)
    players: list[Id] = Field(min_length=2, max_length=MAX_PLAYERS)
    seats: list[Annotated[int, Field(ge=1, le=MAX_PLAYERS)]] = Field(max_length=MAX_PLAYERS)
    actions: list[Action] = Field(max_length=MAX_ACTIONS)
    finishing_stacks: list[Chips] = Field(max_length=MAX_PLAYERS)
    winnings: list[Chips] = Field(max_length=MAX_PLAYERS)
    tournament_id: Id | None = None
    blind_level: Id | None = None
    started_at: UtcDatetime | None = None
    bounties: dict[Id, Chips] = Field(default_factory=dict, max_length=MAX_PLAYERS)
    eliminated: list[Id] = Field(default_factory=list, max_length=MAX_PLAYERS)
    rake: Chips = 0
    """Chips the house took from the pot (PHH `rake`); part of the chip-conservation check."""
    run_count: Annotated[int, Field(ge=1, le=3)] = 1
    """Boards dealt after an all-in (run it twice / three times). The actions carry the first board;
    the pot is then checked for conservation, not against that board's winner."""
    bounties_won: dict[Id, Chips] = Field(default_factory=dict, max_length=MAX_PLAYERS)
    """Bounty prize each player received in this hand as the history states it (minor currency
    units: a split knockout shared, a progressive knockout's cash half only); when present it is
    used instead of deriving the winners from `bounties` and `eliminated`."""
    places: dict[Id, Annotated[int, Field(ge=1, le=100_000)]] = Field(default_factory=dict, max_length=MAX_PLAYERS)
    """Finishing place of each player whose tournament ended in this hand (1 = the winner)."""
    _replay: Replay | None = PrivateAttr(default=None)
    _partial: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="after")
    def _consistent(self) -> HandRecord:
        # Every hand decoded or imported passes here: the usual (valid) hand is told with a few
        # C-level set operations; a check that fails runs the exact test that names the fault.
        players = self.players
        n = len(players)
        known = set(players)
        if len(known) != n:
            raise ValueError("players contains a duplicate id")
        lengths = {len(self.antes), len(self.blinds_or_straddles), len(self.finishing_stacks), len(self.winnings)}
        if len(self.starting_stacks) != n or not lengths <= {0, n}:
            self._name_length_fault(n)
        if self.seats and (len(self.seats) != n or len(set(self.seats)) != n):
            raise ValueError(f"seats must list {n} distinct seat numbers")
        if not (known.issuperset(self.bounties) and known.issuperset(self.eliminated)
                and known.issuperset(self.bounties_won) and known.issuperset(self.places)):
            unknown = (set(self.bounties) | set(self.eliminated) | set(self.bounties_won) | set(self.places)) - known
            raise ValueError(f"bounties/eliminated/places name players not in the hand: {sorted(unknown)}")
        if self.game == "tournament" and self.tournament_id is None:
            raise ValueError("a tournament hand needs tournament_id")
        # One regex pass over all actions finds every actor; the per-action loop (which names the
        # first bad action) runs only when one is not a plain 'p1'..'pn'.
        if not _ACTOR_NUMBERS[n].issuperset(_ACTORS.findall("\n".join(self.actions))):
            for action in self.actions:
                seat = _actor(action)
                if seat is not None and not 1 <= seat <= n:
                    raise ValueError(f"action {action!r} names player p{seat} but the hand has {n}")
        self._replay_once()
        return self

    def _name_length_fault(self, n: int) -> None:
        for name in ("antes", "blinds_or_straddles", "starting_stacks", "finishing_stacks", "winnings"):
            if len(getattr(self, name)) not in (0, n) or (name == "starting_stacks" and len(self.starting_stacks) != n):
                raise ValueError(f"{name} must have one entry per player ({n})")

    def _replay_once(self) -> None:
        """Replay the actions: illegal or inconsistent hands are rejected (dead-lettered) here;
        variants Railbird does not analyse are accepted and marked partial."""
        try:
            replay = replay_actions(
                variant=self.variant,
                antes=self.antes,
                blinds=self.blinds_or_straddles,
                min_bet=self.min_bet,
                stacks=self.starting_stacks,
                actions=self.actions,
                finishing_stacks=self.finishing_stacks,
                winnings=self.winnings,
                rake=self.rake,
                run_count=self.run_count,
            )
        except HandIntegrityError as exc:
            if exc.kind != "unknown_variant":
                raise
            self._set_private(None, ("variant_not_analysed",))
            return
        self._set_private(replay, replay.partial)

    def _set_private(self, replay: Replay | None, partial: tuple[str, ...]) -> None:
        # Written into pydantic's documented store of private values (filled with the defaults
        # before this validator runs): its `__setattr__` takes two Python calls per attribute.
        private = self.__pydantic_private__
        if private is None:
            self._replay, self._partial = replay, partial
        else:
            private["_replay"], private["_partial"] = replay, partial

    @property
    def replay(self) -> Replay | None:
        """The checked replay of the actions (None for a variant that is not analysed)."""
        return self._replay

    @property
    def partial(self) -> tuple[str, ...]:
        """Why analysis of this hand is incomplete (missing cards, variant), empty when complete."""
        return self._partial


_ACTORS = re.compile(r"^(?:d dh )?p(\d+)", re.MULTILINE)
"""The actor's number at the start of each action line ('d dh p3 ...', 'p3 cc'): what `_actor`
reads, for actions that passed `ACTION_PATTERN`."""
_ACTOR_NUMBERS: tuple[frozenset[str], ...] = tuple(frozenset(str(k) for k in range(1, n + 1)) for n in range(MAX_PLAYERS + 1))
"""The actor numbers of a hand of n players, as `_ACTORS` reads them ('1'..'n')."""


def _actor(action: str) -> int | None:
    """Player index (1-based) an action refers to, or None for board deals."""
    parts = action.split(" ")
    token = parts[2] if parts[0] == "d" and parts[1] == "dh" else parts[0]
    return int(token[1:]) if token.startswith("p") else None
