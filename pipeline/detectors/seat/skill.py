"""Player skill estimated from hand records, shrunk towards the population for small samples.

Per player: hands, net result in big blinds (win rate, bb/100), VPIP and PFR from the PHH preflop
actions, and postflop aggression. Small samples are unreliable, so every estimate is shrunk by
empirical Bayes: proportions with a beta prior of `prior_hands` pseudo-hands at the population rate,
the win rate with a normal prior whose variance tau^2 is estimated from the spread of player means
(method of moments). The skill index weighs the population z-score of the shrunk PFR/VPIP ratio (tight-aggressive
regulars score high, loose-passive players low) 3:1 with the shrunk win rate in prior-SD units; it
is a ranking aid for avoidance statistics, not a verdict about anybody.

The table is shared state: in a scaled deployment every bumhunting instance consumes all of
`hand.records` (a broadcast input, ~2,000 hands/s) and keeps its own replica; entries expire after
`ttl` seconds without a hand, so memory follows active players.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from pipeline.contracts import HandRecord

RECOMPUTE_EVERY = 512
STYLE_WEIGHT = 0.75
"""Share of the style z-score in the skill index: PFR/VPIP converges in a few hundred hands, the
win rate needs tens of thousands, so style carries most of the weight at realistic volumes."""


@dataclass(slots=True)
class PlayerStats:
    """Running counts for one player."""

    hands: int = 0
    net_bb: float = 0.0
    net_bb_sq: float = 0.0
    vpip: int = 0
    pfr: int = 0
    aggressive: int = 0
    passive: int = 0
    last_seen: float = 0.0


@dataclass(frozen=True, slots=True)
class Population:
    """Population moments the shrinkage and the z-scores use; recomputed every few hundred hands."""

    vpip: float = 0.3
    pfr: float = 0.12
    winrate: float = 0.0
    tau2: float = 25.0
    hand_var: float = 10_000.0
    ratio_mean: float = 0.4
    ratio_sd: float = 0.2
    wr_mean: float = 0.0
    wr_sd: float = 5.0


@dataclass(slots=True)
class SkillTable:
    """Skill per player from hand records; `skill(player)` is None until enough hands are seen."""

    min_hands: int = 30
    prior_hands: float = 30.0
    ttl: float = 90 * 86_400.0
    players: dict[str, PlayerStats] = field(default_factory=dict)
    population: Population = field(default_factory=Population)
    _since: int = 0

    def add_hand(self, hand: HandRecord, ts: float) -> None:
        """Fold one finished hand into every seated player's counts."""
        bb = max(hand.blinds_or_straddles, default=0) or hand.min_bet or 1
        blind_of = hand.blinds_or_straddles
        n = len(hand.players)
        counts = _seat_counts(hand.actions, n, [bool(blind_of) and blind_of[i] == bb for i in range(n)])
        for i, pid in enumerate(hand.players):
            st = self.players.get(pid)
            if st is None:
                st = self.players[pid] = PlayerStats()
            st.hands += 1
            st.last_seen = ts
            if hand.finishing_stacks:
                net = (hand.finishing_stacks[i] - hand.starting_stacks[i]) / bb
                st.net_bb += net
                st.net_bb_sq += net * net
            voluntary, raised, aggressive, passive = counts[i]
            st.vpip += voluntary
            st.pfr += raised
            st.aggressive += aggressive
            st.passive += passive
        self._since += 1
        if self._since >= RECOMPUTE_EVERY:
            self.recompute()

    def recompute(self) -> None:
        """Re-estimate population moments from players with enough hands."""
        self._since = 0
        rows = [s for s in self.players.values() if s.hands >= self.min_hands]
        if len(rows) < 5:
            return
        hands = sum(s.hands for s in rows)
        vpip = sum(s.vpip for s in rows) / hands
        pfr = sum(s.pfr for s in rows) / hands
        mean_net = sum(s.net_bb for s in rows) / hands
        hand_var = max(sum(s.net_bb_sq for s in rows) / hands - mean_net**2, 1e-6)
        means = [100 * s.net_bb / s.hands for s in rows]
        mu = sum(means) / len(means)
        spread = sum((m - mu) ** 2 for m in means) / len(means)
        noise = sum(10_000 * hand_var / s.hands for s in rows) / len(rows)
        base = Population(vpip=vpip, pfr=pfr, winrate=mu, tau2=max(spread - noise, 1.0), hand_var=hand_var)
        ratios = [_ratio(s, base, self.prior_hands) for s in rows]
        rates = [_winrate(s, base) for s in rows]
        self.population = Population(
            vpip=vpip,
            pfr=pfr,
            winrate=mu,
            tau2=base.tau2,
            hand_var=hand_var,
            ratio_mean=_mean(ratios),
            ratio_sd=_sd(ratios),
            wr_mean=_mean(rates),
            wr_sd=_sd(rates),
        )

    def skill(self, player_id: str) -> float | None:
        """Skill index (population z-score scale) or None for a player with too few hands."""
        st = self.players.get(player_id)
        if st is None or st.hands < self.min_hands:
            return None
        pop = self.population
        z_ratio = (_ratio(st, pop, self.prior_hands) - pop.ratio_mean) / pop.ratio_sd
        # The shrunk win rate in units of the prior's spread: near 0 while results are mostly luck
        # (z-scoring the shrunk values against their own tiny spread would blow the noise back up).
        z_rate = (_winrate(st, pop) - pop.winrate) / math.sqrt(pop.tau2)
        return STYLE_WEIGHT * z_ratio + (1 - STYLE_WEIGHT) * z_rate

    def profile(self, player_id: str) -> dict[str, float | None]:
        """Shrunk estimates for evidence: hands, bb/100, VPIP, PFR, aggression factor, skill."""
        st = self.players.get(player_id, PlayerStats())
        pop = self.population
        k = self.prior_hands
        return {
            "hands": st.hands,
            "bb_per_100": round(_winrate(st, pop), 2),
            "vpip": round((st.vpip + k * pop.vpip) / (st.hands + k), 3),
            "pfr": round((st.pfr + k * pop.pfr) / (st.hands + k), 3),
            "aggression": round(st.aggressive / max(st.passive, 1), 2),
            "skill": round(s, 3) if (s := self.skill(player_id)) is not None else None,
        }

    def expire(self, now: float) -> None:
        """Forget players with no hand for `ttl` seconds."""
        for pid in [p for p, s in self.players.items() if s.last_seen < now - self.ttl]:
            del self.players[pid]


def _seat_counts(actions: list[str], n: int, is_big_blind: list[bool]) -> list[list[int]]:
    """Per seat (index 0 = p1): [voluntarily put money in pre-flop, raised pre-flop, post-flop bets
    and raises, post-flop calls]; the big blind checking is not voluntary. One pass over the
    actions for every seat (the hand path runs this for every hand of the room)."""
    counts = [[0, 0, 0, 0] for _ in range(n)]
    raised_before = postflop = False
    for a in actions:
        if a.startswith("d"):
            postflop = postflop or a.startswith("d db")
            continue
        head, _, verb = a.partition(" ")
        seat = int(head[1:]) - 1 if head[1:].isdigit() else -1
        if 0 <= seat < n:
            mine = counts[seat]
            if postflop:
                if verb.startswith("cbr"):
                    mine[2] += 1
                elif verb == "cc":
                    mine[3] += 1
            elif verb.startswith("cbr"):
                mine[0] = mine[1] = 1
            elif verb == "cc" and (raised_before or not is_big_blind[seat]):
                mine[0] = 1
        # A player's own raise counts for the others only: once he raised, his flags are set.
        raised_before = raised_before or " cbr " in a
    return counts


def _ratio(st: PlayerStats, pop: Population, k: float) -> float:
    vpip = (st.vpip + k * pop.vpip) / (st.hands + k)
    pfr = (st.pfr + k * pop.pfr) / (st.hands + k)
    return pfr / max(vpip, 1e-6)


def _winrate(st: PlayerStats, pop: Population) -> float:
    """Empirical-Bayes win rate in bb/100: the player's mean pulled towards the population."""
    if st.hands == 0:
        return pop.winrate
    noise = 10_000 * pop.hand_var / st.hands
    weight = pop.tau2 / (pop.tau2 + noise)
    return pop.winrate + weight * (100 * st.net_bb / st.hands - pop.winrate)


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def _sd(xs: list[float]) -> float:
    mu = _mean(xs)
    return max(math.sqrt(sum((x - mu) ** 2 for x in xs) / len(xs)), 1e-6)
