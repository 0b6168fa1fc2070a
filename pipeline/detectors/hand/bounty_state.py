"""State and evidence pieces of `hand.bounty_agreement`: its thresholds, the chat clues and bounty
spots it keeps per tournament, the per-pair tournament log behind the retroactive report, and the
tallies' helpers. Split from the detector module to keep each under ~400 lines."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pipeline.contracts import ChatMessage, HandRecord
from pipeline.hands.features import BountySpot

MAX_CLUES = 50
MAX_NICKS = 1_000
MAX_EVIDENCE = 5
MAX_PAIR_TOURNAMENTS = 20
"""Bounty tournaments remembered per pair for the retroactive report (the most recent ones)."""


@dataclass(frozen=True, slots=True)
class BountyThresholds:
    """Operating points of the fusion."""

    classifier_min: float = 0.8
    play_min_spots: int = 4
    play_p: float = 1e-3
    play_min_rate: float = 0.8
    fused_min_coop: int = 1
    prior_bet_rate: float = 0.3
    """Bet rate, after a third player's all-in, that the population's own rate is shrunk to."""
    prior_coop_rate: float = 0.5
    """Cooperation rate in bounty spots that the population's own rate is shrunk to."""
    prior_strength: float = 20.0
    """Pseudo-chances of each shrinkage (population to the prior, players to the population)."""


DEFAULT_THRESHOLDS = BountyThresholds()


@dataclass(frozen=True, slots=True)
class Clue:
    """One chat line that states an agreement."""

    message: ChatMessage
    strength: float
    span: tuple[int, int] | None
    target_nick: str | None


@dataclass(slots=True)
class PairSpots:
    """A pair's bounty spots in one tournament."""

    spots: int = 0
    cooperative: int = 0
    bounty: int = 0
    hands: list[HandRecord] = field(default_factory=list)


@dataclass(slots=True)
class TournamentLog:
    """A pair's bounty spots in one tournament, kept after the tournament's own state expires: the
    pattern is reported over every tournament once it is established (ids and times, no records)."""

    tournament_id: str
    spots: int = 0
    cooperative: int = 0
    bounty: int = 0
    hand_ids: list[str] = field(default_factory=list)
    first_ts: datetime | None = None
    last_ts: datetime | None = None

    def add(self, record: HandRecord, cooperative: bool, bounty: int) -> None:
        """One more bounty spot of the pair in this tournament."""
        self.spots += 1
        self.cooperative += cooperative
        self.bounty += bounty
        if cooperative:
            if len(self.hand_ids) < MAX_EVIDENCE:
                self.hand_ids.append(record.hand_id)
            self.first_ts = min(self.first_ts or record.ts, record.ts)
            self.last_ts = max(self.last_ts or record.ts, record.ts)

    def to_json(self) -> dict[str, Any]:
        """The entry of `evidence.tournaments`."""
        return {
            "tournament_id": self.tournament_id,
            "spots": self.spots,
            "cooperative": self.cooperative,
            "bounty_to_pair": self.bounty,
            "hand_ids": list(self.hand_ids),
            "first": self.first_ts.isoformat() if self.first_ts else None,
            "last": self.last_ts.isoformat() if self.last_ts else None,
        }


@dataclass(slots=True)
class TournamentState:
    """Everything the detector keeps for one tournament."""

    last_ts: datetime
    clues: list[Clue] = field(default_factory=list)
    nicks: dict[str, str] = field(default_factory=dict)
    pairs: dict[tuple[str, str], PairSpots] = field(default_factory=dict)
    players: dict[str, list[int]] = field(default_factory=dict)
    """player -> [spots, cooperative] with anyone."""
    emitted: set[tuple[str, ...]] = field(default_factory=set)
    soft: dict[tuple[str, str], list[HandRecord]] = field(default_factory=dict)
    """Pair -> heads-up hands in which neither bet into the other (a few, as evidence)."""


def message_evidence(c: Clue) -> dict[str, Any]:
    m = c.message
    return {
        "event_id": m.event_id,
        "ts": m.ts.isoformat(),
        "player_id": m.player_id,
        "nickname": m.nickname,
        "channel": m.channel,
        "text": m.text,
        "spans": [{"start": c.span[0], "end": c.span[1], "label": "collusion_talk"}] if c.span else [],
    }


def overlap(pair: tuple[str, str], named: Sequence[tuple[tuple[str, ...], BountySpot]]) -> tuple[int, ...]:
    """(spots, cooperative, chances, bets) of the hand's other spots that hold one of the pair: the
    part of each player's tally "with others" played while the partner was in the pot too."""
    out = [0, 0, 0, 0]
    for other, s in named:
        if other != pair and (pair[0] in other or pair[1] in other):
            for i, c in enumerate((1, int(s.cooperative), s.chances, s.bets)):
                out[i] += c
    return tuple(out)


def bump(table: OrderedDict[Any, list[int]], key: Any, counts: tuple[int, ...], cap: int) -> None:
    """Add one spot to a bounded tally (least recently used dropped first)."""
    tally = table.get(key)
    if tally is None:
        tally = table[key] = [0] * len(counts)
        while len(table) > cap:
            table.popitem(last=False)
    else:
        table.move_to_end(key)
    for i, c in enumerate(counts):
        tally[i] += c
