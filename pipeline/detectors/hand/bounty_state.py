"""State and evidence pieces of `hand.bounty_agreement`: its thresholds, the chat clues and bounty
spots it keeps per tournament, the per-pair tournament log behind the retroactive report, and the
tallies' helpers. Split from the detector module to keep each under ~400 lines."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pipeline.contracts import ChatMessage, HandRecord
from pipeline.hands.engine import Replay
from pipeline.hands.features import BountySpot
from pipeline.hands.stats import binom_lower, binom_sum_lower, fisher, shrunk_rate

MAX_CLUES = 50
MAX_NICKS = 1_000
MAX_EVIDENCE = 5
MAX_PAIR_TOURNAMENTS = 20
"""Bounty tournaments remembered per pair for the retroactive report (the most recent ones)."""
NULL_MODEL = (
    "check-down: binomial over chances to bet into the partner after a third player's all-in (all tournaments "
    "seen), at both players' shrunk bet rate in those spots with other opponents in hands without the partner, "
    "and over cooperative spots at their cooperation rate likewise, p = twice the smaller; all-in calls: each "
    "player's calls of a third player's all-in while the partner was in, at his own rate without the partner in; "
    "p_value (with enough cooperative spots) = twice the smaller of the check-down p and Fisher's combination of "
    "it with the all-in-call p"
)
"""`evidence.statistic.null_model` of a finding with play evidence."""


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
    prior_entry_rate: float = 0.3
    """Rate of calling a third player's all-in that the population's own rate is shrunk to."""
    min_tournaments: int = 2
    """Tournaments with a cooperative spot before a pair is first flagged from play: spots of one
    tournament share a table, stacks and opponents, and two honest pairs in 24 extra rooms reached
    the play bound with 4 of 4 spots in one tournament (seeds 158 and 159)."""
    few_spots: int = 3
    """A smaller sample, all of it cooperative, held to the two stricter bounds below."""
    few_spots_p: float = 1e-4
    few_spots_calls_p: float = 1e-2
    """At `few_spots`, the all-in-call test must also point the same way on its own: the check-down
    test alone reaches ~1e-5 for an honest pair of frequent bettors that checked down twice."""


DEFAULT_THRESHOLDS = BountyThresholds()


@dataclass(frozen=True, slots=True)
class Clue:
    """One chat line that states an agreement."""

    message: ChatMessage
    strength: float
    span: tuple[int, int] | None
    target_nick: str | None
    partner_nick: str | None = None
    """The player the line is addressed to by a leading @mention ("@bob let's target @carol")."""
    party: str | None = None
    """The partner's player id once known: the @mentioned nickname seen in the tournament, or the
    player who answered the line with an agreement ("ok, agreed")."""


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


def check_down_p(
    t: BountyThresholds,
    pair: tuple[str, str],
    history: Mapping[tuple[str, str], list[int]],
    player_history: Mapping[str, list[int]],
    population: Sequence[int],
) -> tuple[int, int, float]:
    """(spots, cooperative, check-down p) of a pair across tournaments, from the detector's tallies.
    The test counts chances to bet into the partner after a third player's all-in (each check, bet
    or raise while both were in): P(at most the pair's bets) at both players' own bet rate in the
    same spots with other opponents (hands without the partner), shrunk to the population's. A check-down over three
    streets says more than one over the river alone; a spot with no chance to bet says nothing.
    A second test on the count of cooperative spots covers pairs with few chances per spot."""
    n, k, chances, bets, o_spots, o_coop, o_chances, o_bets = history.get(pair, [0] * 8)
    with_chances = with_bets = with_spots = with_coop = 0
    for p in pair:
        ps, pk, pc, pb = player_history.get(p, [0, 0, 0, 0])
        with_spots += ps - n
        with_coop += pk - k
        with_chances += pc - chances
        with_bets += pb - bets
    # The population without either player (their own checks must not lower the yardstick).
    pop_chances = max(0, population[2] - with_chances - chances)
    pop_bets = max(0, population[3] - with_bets - bets)
    # Each player's own rate only from hands without the partner: a pair that checks down against
    # everyone once both are in would otherwise lower its own yardstick.
    base_chances = max(0, with_chances - o_chances)
    base_bets = min(base_chances, max(0, with_bets - o_bets))
    pop_rate = shrunk_rate(pop_bets, pop_chances, prior=t.prior_bet_rate, strength=t.prior_strength)
    r0 = shrunk_rate(base_bets, base_chances, prior=pop_rate, strength=t.prior_strength)
    p_bets = binom_lower(bets, chances, r0)
    # Second test, on the count of cooperative spots (a pair with few chances per spot): P(at
    # least k of n) at both players' cooperation rate without the partner, shrunk to everyone's.
    pop_spots = max(0, population[0] - with_spots - n)
    pop_coop = max(0, population[1] - with_coop - k)
    pop_coop_rate = shrunk_rate(pop_coop, pop_spots, prior=t.prior_coop_rate, strength=t.prior_strength)
    base_spots = max(0, with_spots - o_spots)
    base_coop = min(base_spots, max(0, with_coop - o_coop))
    c0 = shrunk_rate(base_coop, base_spots, prior=pop_coop_rate, strength=t.prior_strength)
    p_spots = binom_lower(n - k, n, 1.0 - c0)
    return n, k, min(1.0, 2 * min(p_bets, p_spots))  # two tests: Bonferroni


def play_verdict(
    t: BountyThresholds, sample: tuple[int, int, bool], p_check: float, p_calls: float
) -> tuple[bool, float]:
    """(flagged, p-value) of a pair's play with (spots, cooperative, already flagged) over every
    tournament. At the stated sample (>= `play_min_spots`, >= `play_min_rate` cooperative unless
    already flagged) the p-value is twice the smaller (Bonferroni) of the check-down p and Fisher's
    combination of it with the all-in-call p (independent under honest play: joining an all-in pot
    comes before what one does once both are in it), flagged at `play_p`. At `few_spots`, every
    one cooperative, the same p must reach `few_spots_p` and the all-in calls `few_spots_calls_p`
    alone. Below both the check-down p is returned and nothing is flagged."""
    n, k, established = sample
    tested = min(1.0, 2 * min(p_check, fisher([p_check, p_calls])))
    if n >= t.play_min_spots and (k >= t.play_min_rate * n or established):
        return tested <= t.play_p, tested
    if n >= t.few_spots and k == n:
        return tested <= t.few_spots_p and p_calls <= t.few_spots_calls_p, tested
    return False, p_check


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


def narrow(
    table: OrderedDict[tuple[str, str], frozenset[str]], pair: tuple[str, str], dealt: Sequence[str], cap: int
) -> None:
    """Keep, per pair, the other players dealt in at every one of its spots (at most the table's
    size), bounded and least recently used dropped first like the tallies."""
    present = frozenset(dealt) - set(pair)
    kept = table.get(pair)
    if kept is None:
        table[pair] = present
        while len(table) > cap:
            table.popitem(last=False)
    else:
        table[pair] = kept & present
        table.move_to_end(pair)


def first_all_in(replay: Replay) -> tuple[int, int] | None:
    """(target, step index) of the hand's first all-in, the same spot `hand_features` builds its
    bounty spots on; index -1 when the blind or ante put the target all-in before anyone acted."""
    acted = {s.player for s in replay.steps}
    forced = [i for i in range(replay.n) if replay.all_in[i] and i not in acted]
    if forced:
        return forced[0], -1
    return next(((s.player, s.at) for s in replay.steps if s.all_in), None)


def entry_decisions(replay: Replay) -> list[tuple[int, bool, tuple[int, ...]]]:
    """(player, entered, other players still in) for each player's first decision after a third
    player's all-in, when that decision had chips to call: did he put chips in against the target
    (call or raise) or fold, and who else (not the target) had not folded when he chose."""
    start = first_all_in(replay)
    if start is None:
        return []
    target, index = start
    seen: set[int] = set()
    out = []
    for s in replay.steps:
        if s.at <= index or s.player == target or s.player in seen:
            continue
        seen.add(s.player)
        if s.facing > 0:
            out.append(
                (s.player, s.kind != "fold", tuple(o for o in s.active if o not in (s.player, target)))
            )
    return out


@dataclass(slots=True)
class EntryBook:
    """Who joins a third player's all-in pot while a given other player is still in the hand.

    A pair hunting bounties together calls all-ins wider while the partner is in (two callers
    knock the target out more often, and they will not bet each other out of the pot); honest
    players decide on their cards, stacks and price whoever else is in. Tallies (bounded, least
    recently used dropped first): pair -> [a's decisions with b in, a entered, b's with a in, b
    entered]; player -> [decisions, entered]; the population's total."""

    cap: int
    pairs: OrderedDict[tuple[str, str], list[int]] = field(default_factory=OrderedDict)
    players: OrderedDict[str, list[int]] = field(default_factory=OrderedDict)
    population: list[int] = field(default_factory=lambda: [0, 0])

    def add(self, names: Sequence[str], replay: Replay) -> None:
        """Count one hand's decisions after its first all-in."""
        for i, entered, others in entry_decisions(replay):
            me = names[i]
            bump(self.players, me, (1, int(entered)), self.cap)
            self.population[0] += 1
            self.population[1] += entered
            for o in others:
                other = names[o]
                if other == me:
                    continue
                first = me < other
                counts = (1, int(entered), 0, 0) if first else (0, 0, 1, int(entered))
                bump(self.pairs, (me, other) if first else (other, me), counts, self.cap)

    def p_value(self, pair: tuple[str, str], t: BountyThresholds) -> tuple[int, int, float, float]:
        """(decisions, entered, expected, p): P(at least as many entries) when each of the pair
        enters at his own rate in decisions without the partner in the hand (shrunk to the rate of
        everyone else, itself shrunk to the prior). Exact over the two players' rates."""
        n_a, k_a, n_b, k_b = self.pairs.get(pair, [0, 0, 0, 0])
        both = [self.players.get(p, [0, 0]) for p in pair]
        # Everyone else's rate: without either player (the partner's calls with him in are the
        # pattern under test, and must not raise his yardstick).
        pop = shrunk_rate(
            max(0, self.population[1] - both[0][1] - both[1][1]),
            max(0, self.population[0] - both[0][0] - both[1][0]),
            prior=t.prior_entry_rate,
            strength=t.prior_strength,
        )
        groups, expected = [], 0.0
        for (own_n, own_k), n, k in ((both[0], n_a, k_a), (both[1], n_b, k_b)):
            if n == 0:
                continue
            r0 = shrunk_rate(max(0, own_k - k), max(0, own_n - n), prior=pop, strength=t.prior_strength)
            groups.append((n, 1.0 - r0))  # folds: at most (decisions - entries) of them
            expected += n * r0
        n, k = n_a + n_b, k_a + k_b
        if n == 0:
            return 0, 0, 0.0, 1.0
        return n, k, round(expected, 2), binom_sum_lower(groups, n - k)
