"""Directed pair statistics (hero's play against one villain vs against everyone else), bounded.

Pairs and players are remembered for `ttl` of event time after they last interacted, at most
`max_pairs` pairs (least recently seen dropped first); each pair keeps its few most telling hands.
"""

from __future__ import annotations

import heapq
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from pipeline.contracts import HandRecord
from pipeline.detectors.hand.soft_spots import empty_spots
from pipeline.hands.features import PairObs

EVIDENCE_HANDS = 5


@dataclass(slots=True)
class Tally:
    """Sums of pair observations; subtracting a pair's tally from a player's gives the baseline."""

    hands: int = 0
    bet_chances: int = 0
    bets: int = 0
    strong_chances: int = 0
    strong_checks: int = 0
    faced: int = 0
    folds: int = 0
    strong_folds: int = 0
    n_transfer: int = 0
    transfer: float = 0.0
    transfer_sq: float = 0.0
    flow: float = 0.0
    short_flow: float = 0.0
    check_downs: int = 0
    spots: list[int] = field(default_factory=empty_spots)
    """Heads-up chances to attack and attacks by class of spot (`soft_spots.SPOT_CLASSES`)."""

    def add(self, obs: PairObs, spots: list[int] | None = None) -> None:
        """Add one hand's observation (and its chances by class of spot, when computed)."""
        if spots is not None:
            mine = self.spots
            for i, n in enumerate(spots):
                mine[i] += n
        self.hands += 1
        self.bet_chances += obs.bet_chances
        self.bets += obs.bets
        self.strong_chances += obs.strong_chances
        self.strong_checks += obs.strong_checks
        self.faced += obs.faced
        self.folds += obs.folds
        self.strong_folds += obs.strong_folds
        if obs.bet_chances or obs.faced or obs.transfer or obs.check_down:
            self.n_transfer += 1
            self.transfer += obs.transfer
            self.transfer_sq += obs.transfer * obs.transfer
        self.flow += obs.flow
        self.short_flow += obs.short_flow
        self.check_downs += obs.check_down

    def minus(self, other: Tally) -> Tally:
        """This tally without another one (a player's totals without one partner)."""
        return Tally(
            self.hands - other.hands, self.bet_chances - other.bet_chances, self.bets - other.bets,
            self.strong_chances - other.strong_chances, self.strong_checks - other.strong_checks,
            self.faced - other.faced, self.folds - other.folds, self.strong_folds - other.strong_folds,
            self.n_transfer - other.n_transfer, self.transfer - other.transfer,
            self.transfer_sq - other.transfer_sq, self.flow - other.flow, self.short_flow - other.short_flow,
            self.check_downs - other.check_downs, [a - b for a, b in zip(self.spots, other.spots, strict=True)],
        )


@dataclass(slots=True)
class PairEntry:
    """One directed pair: its tally, when it was last seen, and its most telling hands."""

    tally: Tally = field(default_factory=Tally)
    last_seen: datetime | None = None
    evidence: dict[str, list[tuple[float, str, HandRecord]]] = field(default_factory=dict)
    """Category -> a small min-heap of (how telling, hand id, record)."""
    flagged: set[str] = field(default_factory=set)
    last_table: str | None = None
    last_tournament: str | None = None


@dataclass(slots=True)
class PlayerEntry:
    """One player's totals against every opponent."""

    tally: Tally = field(default_factory=Tally)
    last_seen: datetime | None = None


@dataclass(slots=True)
class SpotsEntry:
    """One player's multiway chances to attack by class of spot (`soft_spots.HandSpots.multiway`)."""

    spots: list[int] = field(default_factory=empty_spots)
    last_seen: datetime | None = None


class PairBook:
    """Tallies per directed pair and per player, plus the population's totals for priors."""

    def __init__(self, *, ttl: timedelta = timedelta(days=30), max_pairs: int = 100_000) -> None:
        self.ttl = ttl
        self.max_pairs = max_pairs
        self.pairs: OrderedDict[tuple[str, str], PairEntry] = OrderedDict()
        self.players: OrderedDict[str, PlayerEntry] = OrderedDict()
        self.against: OrderedDict[str, PlayerEntry] = OrderedDict()
        """Everyone's tally against one villain: how opponents in general play against them."""
        self.population = Tally()
        self.multiway: OrderedDict[str, SpotsEntry] = OrderedDict()
        """Each player's multiway chances to attack: his own aggression, from every pot he plays."""
        self.population_multiway = empty_spots()
        # Each pair's entry under its hero and under its villain: the medians walk every opponent
        # of a player, and a walk over entries needs no (hero, villain) key built and hashed per
        # opponent (a player meets hundreds of opponents in a day of a large room).
        self.by_hero: dict[str, dict[str, PairEntry]] = {}
        self.by_villain: dict[str, dict[str, PairEntry]] = {}

    def add(self, hero: str, villain: str, obs: PairObs, record: HandRecord, spots: list[int] | None = None) -> PairEntry:
        """Record one directed observation (with its chances by class of spot); returns the pair's entry."""
        key = (hero, villain)
        entry = self.pairs.get(key)
        if entry is None:
            entry = self.pairs[key] = PairEntry()
            self.by_hero.setdefault(hero, {})[villain] = entry
            self.by_villain.setdefault(villain, {})[hero] = entry
        else:
            self.pairs.move_to_end(key)
        entry.tally.add(obs, spots)
        entry.last_seen = record.ts
        entry.last_table, entry.last_tournament = record.table_id, record.tournament_id
        for category, weight in (("soft_play", obs.soft_evidence), ("chip_dumping", obs.dump_evidence)):
            if weight <= 0:
                continue
            heap = entry.evidence.setdefault(category, [])
            item = (weight, record.hand_id, record)
            if len(heap) < EVIDENCE_HANDS:
                heapq.heappush(heap, item)
            elif item[0] > heap[0][0]:
                heapq.heapreplace(heap, item)
        player = self.players.get(hero)
        if player is None:
            player = self.players[hero] = PlayerEntry()
        else:
            self.players.move_to_end(hero)
        player.tally.add(obs, spots)
        player.last_seen = record.ts
        target = self.against.get(villain)
        if target is None:
            target = self.against[villain] = PlayerEntry()
        else:
            self.against.move_to_end(villain)
        target.tally.add(obs, spots)
        target.last_seen = record.ts
        self.population.add(obs, spots)
        return entry

    def add_multiway(self, player: str, spots: list[int], ts: datetime) -> None:
        """Record one hand's multiway chances of a player."""
        entry = self.multiway.get(player)
        if entry is None:
            entry = self.multiway[player] = SpotsEntry()
        else:
            self.multiway.move_to_end(player)
        entry.last_seen = ts
        for table in (entry.spots, self.population_multiway):
            for i, n in enumerate(spots):
                table[i] += n

    def multiway_of(self, player: str) -> list[int]:
        """A player's multiway chances and attacks per class (zeros when unseen)."""
        entry = self.multiway.get(player)
        return entry.spots if entry is not None else empty_spots()

    def baseline(self, hero: str, villain: str) -> Tally:
        """Hero's tally against everyone but the villain."""
        entry = self.pairs.get((hero, villain))
        player = self.players.get(hero)
        if player is None:
            return Tally()
        return player.tally.minus(entry.tally) if entry else player.tally

    def others_against(self, hero: str, villain: str) -> Tally:
        """Everyone but the hero, against the villain."""
        entry = self.pairs.get((hero, villain))
        target = self.against.get(villain)
        if target is None:
            return Tally()
        return target.tally.minus(entry.tally) if entry else target.tally

    def expire(self, now: datetime) -> None:
        """Forget pairs and players not seen within the TTL, and the oldest pairs beyond the cap."""
        horizon = now - self.ttl
        while self.pairs and _stale(next(iter(self.pairs.values())).last_seen, horizon):
            self._drop_oldest_pair()
        for table in (self.players, self.against):
            while table and _stale(next(iter(table.values())).last_seen, horizon):
                table.popitem(last=False)
        while self.multiway and _stale(next(iter(self.multiway.values())).last_seen, horizon):
            self.multiway.popitem(last=False)
        while len(self.multiway) > self.max_pairs:
            self.multiway.popitem(last=False)
        while len(self.pairs) > self.max_pairs:
            self._drop_oldest_pair()

    def _drop_oldest_pair(self) -> None:
        (hero, villain), _ = self.pairs.popitem(last=False)
        for index, key, member in ((self.by_hero, hero, villain), (self.by_villain, villain, hero)):
            members = index.get(key)
            if members is not None:
                members.pop(member, None)
                if not members:
                    del index[key]

    def median_bet_rate(self, *, hero: str | None = None, villain: str | None = None, exclude: str,
                        prior: float, strength: float = 5.0, min_chances: int = 5,
                        min_opponents: int = 3) -> float | None:
        """Median over opponents of the shrunk heads-up bet rate: of `hero` against each villain, or of
        each hero against `villain`; one colluding opponent cannot move a median. None below
        `min_opponents` opponents with `min_chances`: the median of one or two is no guard against
        one of them, only noise (and the detector takes the lower of mean and median, so that noise
        only ever lowered the expectation; on a full PLO table most players have 1-2 such opponents)."""
        # One list comprehension over the entries, not nested generators: this walks every opponent.
        entries = self.by_hero.get(hero, {}) if hero is not None else self.by_villain.get(villain or "", {})
        pseudo = prior * strength
        rates = sorted([(t.bets + pseudo) / (t.bet_chances + strength)
                        for other, e in entries.items() if other != exclude and (t := e.tally).bet_chances >= min_chances])
        if len(rates) < max(1, min_opponents):
            return None
        mid = len(rates) // 2
        return rates[mid] if len(rates) % 2 else (rates[mid - 1] + rates[mid]) / 2


def _stale(last_seen: datetime | None, horizon: datetime) -> bool:
    return last_seen is not None and last_seen < horizon
