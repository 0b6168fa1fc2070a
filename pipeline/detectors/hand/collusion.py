"""hand.soft_play and hand.chip_dumping: one directed pair's play against each other, compared with
each player's own play against everyone else (empirical-Bayes shrunk), with evidence hands."""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from pipeline.categories import rule_of
from pipeline.contracts import HAND, Event, HandRecord
from pipeline.detectors.hand.pairs import PairBook, PairEntry, Tally
from pipeline.detectors.hand.soft_spots import N_CLASSES, POST_CLASSES, SPOT_CLASSES
from pipeline.detectors.hand.stream import Admitted, HandStream, state_key
from pipeline.findings import Finding, stable_id
from pipeline.hands.stats import binom_sum_lower, normal_upper, score_from_p, shrunk_rate


@dataclass(frozen=True, slots=True)
class CollusionThresholds:
    """Operating points, tuned on generated play and checked on the Pluribus hands."""

    min_bet_chances: int = 10
    soft_p: float = 1e-6
    soft_each_p: float = 1e-2
    soft_min_gap: float = 0.08
    soft_max_ratio: float = 0.4
    """Soft play is near-total avoidance: the observed bet rate is at most this share of expected..."""
    soft_max_ratio_reverse: float = 0.5
    """...and the partner's rate back at most this share."""
    soft_min_z: float = 2.0
    """Normal-approximation pre-screen of one direction before its exact tail."""
    prior_strength: float = 20.0
    villain_prior_strength: float = 60.0
    min_transfer_hands: int = 8
    dump_z: float = 5.0
    dump_min_mean_bb: float = 8.0
    dump_prior_hands: float = 5.0
    min_sd_bb: float = 6.0


@dataclass(frozen=True, slots=True)
class PairView:
    """A directed pair's tally and the references it is judged against."""

    pair: Tally
    base: Tally
    """The hero against everyone else."""
    others: Tally
    """Everyone else against the villain."""
    population: Tally
    hero_median: float | None = None
    """Median over the hero's other opponents of the hero's bet rate against them."""
    villain_median: float | None = None
    """Median over the villain's other opponents of their bet rate against the villain."""
    hero_multiway: list[int] | None = None
    """The hero's multiway chances and attacks per class of spot (`PairBook.multiway`)."""
    population_multiway: list[int] | None = None


def _rate(num: float, den: float, prior: float, strength: float) -> float:
    return shrunk_rate(num, den, prior=prior, strength=strength)


def _expected_bet_rate(v: PairView, t: CollusionThresholds) -> float:
    """Hero's own bet rate, scaled by how much everyone else bets into this villain (a maniac
    villain is checked to by everybody; that is not soft play)."""
    pop = _rate(v.population.bets, v.population.bet_chances, 0.4, 1.0)
    hero = _rate(v.base.bets, v.base.bet_chances, pop, t.prior_strength)
    # The villain factor only corrects for villains everybody checks to; shrunk hard, because the
    # noise of a few dozen chances would otherwise halve the expectation (and the test's power).
    villain = _rate(v.others.bets, v.others.bet_chances, pop, t.villain_prior_strength)
    # A median over opponents resists one colluding opponent (a dumper's partner inflates a mean).
    if v.hero_median is not None:
        hero = min(hero, v.hero_median)
    if v.villain_median is not None:
        villain = min(villain, max(v.villain_median, villain * 0.75))
    return min(0.99, hero * min(1.5, max(0.3, villain / pop)))


def _soft_direction(v: PairView, t: CollusionThresholds) -> tuple[float, float, float]:
    """(p-value, observed rate, expected rate) of one direction on its own; p is 1.0 when the cheap
    checks on its post-flop chances (effect size, normal approximation) already rule it out, so
    exact tails run rarely. The p-value is the exact one over every chance of the direction, each
    class of spot at its own expected rate (`_chance_groups`)."""
    p0 = _expected_bet_rate(v, t)
    n = v.pair.bet_chances
    observed = v.pair.bets / n if n else 1.0
    if p0 - observed < t.soft_min_gap or observed > t.soft_max_ratio_reverse * p0:
        return 1.0, observed, p0
    if (p0 * n - v.pair.bets) / math.sqrt(n * p0 * (1 - p0)) < t.soft_min_z:
        return 1.0, observed, p0
    groups = _chance_groups(v, t)
    return binom_sum_lower([(c, rate) for c, _, rate in groups if c > 0], sum(k for _, k, _ in groups)), observed, p0


_POP_PRIOR = (0.2, 0.35, 0.5, 0.3, 0.15, 0.08)
"""Weak priors of the population's attack rate per class of spot (`soft_spots.SPOT_CLASSES`);
one pseudo-chance each, so only an empty population leans on them."""


def _class_rates(v: PairView, t: CollusionThresholds) -> list[float]:
    """Expected attack rate of the hero against this villain in each class of spot.

    The hero's own heads-up rate for the class against other opponents, shrunk (`prior_strength`)
    towards his own multiway rate for it scaled to heads-up by the population's heads-up / multiway
    ratio, itself shrunk towards the population's multiway rate: on a full table a player is alone
    with one opponent in few pots, and his multiway play measures his aggression on many more.
    Post-flop classes then take the corrections of the overall expectation (the median over
    opponents when lower than the mean, and how everyone else bets into this villain)."""
    pop, base = v.population, v.base
    pop_all = _rate(pop.bets, pop.bet_chances, 0.4, 1.0)
    overall = _rate(base.bets, base.bet_chances, pop_all, t.prior_strength)
    scale = _expected_bet_rate(v, t) / overall if overall > 0 else 1.0
    mw = v.hero_multiway or [0] * (2 * N_CLASSES)
    pop_mw = v.population_multiway or [0] * (2 * N_CLASSES)
    rates = []
    for c in range(N_CLASSES):
        pop_hu = _rate(pop.spots[2 * c + 1], pop.spots[2 * c], _POP_PRIOR[c], 1.0)
        pop_multi = _rate(pop_mw[2 * c + 1], pop_mw[2 * c], pop_hu, 1.0)
        ratio = pop_hu / pop_multi if pop_multi > 0 else 1.0
        multi = _rate(mw[2 * c + 1], mw[2 * c], pop_multi, t.prior_strength)
        prior = min(0.99, multi * ratio)
        own = _rate(base.spots[2 * c + 1], base.spots[2 * c], prior, t.prior_strength)
        rates.append(min(0.99, own * scale) if c in POST_CLASSES else min(0.99, own))
    return rates


def _chance_groups(v: PairView, t: CollusionThresholds) -> list[tuple[int, int, float]]:
    """(chances, attacks, expected attack rate) of one direction per class of spot: post-flop
    chances checked to by the hero's made hand against the board (a checked set says more than a
    checked miss), and the pre-flop heads-up spots where he could raise (`soft_spots`)."""
    spots = v.pair.spots
    return [(spots[2 * c], spots[2 * c + 1], rate) for c, rate in enumerate(_class_rates(v, t))]


def _enough_chances(ab: Tally, ba: Tally, t: CollusionThresholds) -> bool:
    return ab.bet_chances >= t.min_bet_chances and ba.bet_chances >= t.min_bet_chances // 2


def _forward_low(ab: PairView, t: CollusionThresholds) -> tuple[float, float] | None:
    """(observed, expected) bet rate of the hero into the villain when low enough on its own, else None."""
    p_ab, observed, p0 = _soft_direction(ab, t)
    if p0 - observed < t.soft_min_gap or observed > t.soft_max_ratio * p0 or p_ab > t.soft_each_p:
        return None
    return observed, p0


def soft_play_test(ab: PairView, ba: PairView, t: CollusionThresholds) -> dict[str, Any] | None:
    """Statistic when both players bet into each other far less than expected, else None.

    Each direction must be low on its own (soft play is an agreement; a partner who hardly bets into
    anyone only must not contradict it), then one exact test pools
    every chance of both directions: P(total bets <= observed) under each chance's own expected
    rate (strong, leading hands checked weigh more)."""
    if not _enough_chances(ab.pair, ba.pair, t) or (forward := _forward_low(ab, t)) is None:
        return None
    observed, p0 = forward
    p_ba, observed_ba, p0_ba = _soft_direction(ba, t)
    # The partner back: low too, and significant on its own unless he hardly bets into anyone (a
    # passive partner's zero says little alone; the pooled test below still counts his chances).
    if observed_ba > t.soft_max_ratio_reverse * p0_ba or (p_ba > t.soft_each_p and p0_ba >= t.soft_min_gap * 1.5):
        return None
    groups = [*_chance_groups(ab, t), *_chance_groups(ba, t)]
    p = binom_sum_lower([(n, rate) for n, _, rate in groups if n > 0], sum(k for _, k, _ in groups))
    if p > t.soft_p:
        return None
    return {
        "name": "heads_up_bet_rate_vs_partner",
        "value": round(observed, 4),
        "expected": round(p0, 4),
        "reverse_value": round(observed_ba, 4),
        "reverse_expected": round(p0_ba, 4),
        "p_value": p,
        "null_model": "independent binomials per betting chance of both players against each other, at each "
        "player's own shrunk bet rate against others (strong, leading hands at his rate for those), scaled "
        "by how others bet into the partner; pooled lower tail of the total bets",
        "bet_chances": ab.pair.bet_chances,
        "reverse_bet_chances": ba.pair.bet_chances,
        "chances_by_class": _by_class(groups[:N_CLASSES], groups[N_CLASSES:]),
        "strong_checks": ab.pair.strong_checks + ba.pair.strong_checks,
        "strong_chances": ab.pair.strong_chances + ba.pair.strong_chances,
        "check_downs": ab.pair.check_downs,
    }


def _by_class(ab: list[tuple[int, int, float]], ba: list[tuple[int, int, float]]) -> dict[str, Any]:
    """Per class of spot, both directions: chances, attacks and the expected attack rate."""
    return {
        name: {"chances": [ab[c][0], ba[c][0]], "attacks": [ab[c][1], ba[c][1]],
               "expected_rate": [round(ab[c][2], 4), round(ba[c][2], 4)]}
        for c, name in enumerate(SPOT_CLASSES)
        if ab[c][0] or ba[c][0]
    }


def chip_dumping_test(v: PairView, t: CollusionThresholds) -> dict[str, Any] | None:
    """Statistic when hero's equity-adjusted transfers to the villain are far above expectation."""
    n = v.pair.n_transfer
    if n < t.min_transfer_hands or v.pair.flow <= 0:
        return None
    pop_mean = v.population.transfer / v.population.n_transfer if v.population.n_transfer else 0.0
    k = t.dump_prior_hands
    hero_mean = (v.base.transfer + pop_mean * k) / (v.base.n_transfer + k)
    villain_mean = (v.others.transfer + pop_mean * k) / (v.others.n_transfer + k)
    expected = hero_mean + (villain_mean - pop_mean)  # a strong villain takes chips from everyone
    mean = v.pair.transfer / n
    if mean - expected < t.dump_min_mean_bb:
        return None
    shrunk = (v.pair.transfer + expected * k) / (n + k)
    sd = max(_sd(v.base), _sd(v.population), t.min_sd_bb)
    z = (shrunk - expected) / (sd / math.sqrt(n + k))
    if z < t.dump_z:
        return None
    return {
        "name": "equity_adjusted_transfer_bb_per_hand",
        "value": round(mean, 3),
        "expected": round(expected, 3),
        "p_value": normal_upper(z),
        "z": round(z, 3),
        "null_model": "normal; the player's own shrunk mean transfer to others plus the partner's "
        "shrunk intake from others, sd of the player's transfers",
        "hands": n,
        "actual_flow_bb": round(v.pair.flow, 2),
        "strong_folds": v.pair.strong_folds,
        "folds_to_partner": v.pair.folds,
        "faced_partner_bets": v.pair.faced,
        "short_stack_flow_bb": round(v.pair.short_flow, 2),
    }


def _sd(t: Tally) -> float:
    if t.n_transfer < 2:
        return 0.0
    mean = t.transfer / t.n_transfer
    return math.sqrt(max(0.0, t.transfer_sq / t.n_transfer - mean * mean))


@dataclass(slots=True)
class PairCollusionDetector:
    """Flags a directed pair once its statistic crosses the threshold; players = (hero, villain)."""

    stream: HandStream
    category: str
    name: str
    thresholds: CollusionThresholds = CollusionThresholds()
    topics: frozenset[str] = frozenset({HAND})
    candidates: OrderedDict[tuple[str, str], None] = field(default_factory=OrderedDict)
    """Pairs that passed the pre-checks but not the test: baselines move as other hands arrive, so a
    few are re-tested on every hand (round robin), not only when the pair itself plays."""
    retest_per_hand: int = 2
    max_candidates: int = 5_000

    @property
    def state_window(self) -> timedelta:
        """How long a pair is remembered after it last played."""
        return self.stream.pairs.ttl

    def key(self, event: Event) -> str:
        """Hand detectors share one key, `HANDS_KEY` (pair baselines span every table)."""
        return state_key(event) if isinstance(event, HandRecord) else event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        """Update the shared pair statistics with this hand and report pairs that crossed."""
        if not isinstance(event, HandRecord):
            return ()
        verdict = self.stream.admit(event)
        if not isinstance(verdict, Admitted):
            return ()
        book = self.stream.pairs
        retest = []
        for _ in range(min(self.retest_per_hand, len(self.candidates))):
            key, _ = self.candidates.popitem(last=False)
            retest.append(key)
        out: list[Finding] = []
        for hero, villain in dict.fromkeys([*verdict.touched, *retest]):
            entry = book.pairs.get((hero, villain))
            if entry is None or self.category in entry.flagged:
                continue
            if self.category == "soft_play" and (villain, hero) in book.pairs and "soft_play" in book.pairs[(villain, hero)].flagged:
                continue
            if not self._worth_testing(entry.tally):
                continue
            stat = self._test(book, hero, villain)
            if stat is None:
                self.candidates[(hero, villain)] = None
                self.candidates.move_to_end((hero, villain))
                while len(self.candidates) > self.max_candidates:
                    self.candidates.popitem(last=False)
                continue
            entry.flagged.add(self.category)
            out.append(self._finding(event, hero, villain, entry, stat))
        return out

    def _test(self, book: PairBook, hero: str, villain: str) -> dict[str, Any] | None:
        if self.category == "chip_dumping":
            return chip_dumping_test(_view(book, hero, villain), self.thresholds)
        if (villain, hero) not in book.pairs:
            return None
        cheap = _view(book, hero, villain)
        p0 = _expected_bet_rate(cheap, self.thresholds)  # medians can only lower it: rule out first
        observed = cheap.pair.bets / cheap.pair.bet_chances
        if p0 - observed < self.thresholds.soft_min_gap or observed > self.thresholds.soft_max_ratio * p0:
            return None
        # The medians walk every opponent of both players: build them only for a pair the test
        # could still flag, and the reverse direction's only once the forward one is low. Every
        # check of `_forward_low` passes more easily at a higher expectation, and the class rates
        # its exact test uses rise with it, so a direction not low at the expectation without
        # medians is not low with them (most pairs stop here; in a day of a large room the
        # medians cost more than every other part of the test).
        if not _enough_chances(cheap.pair, book.pairs[(villain, hero)].tally, self.thresholds):
            return None
        if _forward_low(cheap, self.thresholds) is None:
            return None
        ab = _view(book, hero, villain, medians=True)
        if _forward_low(ab, self.thresholds) is None:
            return None
        return soft_play_test(ab, _view(book, villain, hero, medians=True), self.thresholds)

    def _worth_testing(self, pair: Tally) -> bool:
        """Cheap pre-checks so the baseline is only built for pairs that could cross."""
        t = self.thresholds
        if self.category == "soft_play":
            return pair.bet_chances >= t.min_bet_chances and pair.bets <= pair.bet_chances * 0.5
        return pair.n_transfer >= t.min_transfer_hands and pair.transfer >= t.dump_min_mean_bb * pair.n_transfer

    def _finding(self, record: HandRecord, hero: str, villain: str, entry: PairEntry, stat: dict[str, Any]) -> Finding:
        hands = [r for _, _, r in sorted(entry.evidence.get(self.category, []), key=lambda e: -e[0])]
        verb = "rarely bets into" if self.category == "soft_play" else "passes chips to"
        return Finding(
            finding_id=stable_id("fnd", self.name, hero, villain),
            detector=self.name,
            rule=rule_of(self.category),
            family="hand",
            category=self.category,
            score=score_from_p(stat["p_value"], floor=0.6, ceiling=0.95),
            players=(hero, villain),
            ts=record.ts,
            window_start=min((r.ts for r in hands), default=record.ts),
            window_end=record.ts,
            # A re-test can fire on another table's hand: cite where the pair last played.
            table_id=entry.last_table,
            tournament_id=entry.last_tournament,
            summary=f"{hero} {verb} {villain}: {stat['name']} {stat['value']} vs own baseline {stat['expected']}",
            source_event_ids=tuple(r.event_id for r in hands),
            evidence={
                "hands": [r.model_dump(mode="json") for r in hands],
                "hand_ids": [r.hand_id for r in hands],
                "statistic": stat,
                "partial": sorted({p for r in hands for p in r.partial}),
            },
        )


def _view(book: PairBook, hero: str, villain: str, *, medians: bool = False) -> PairView:
    entry = book.pairs[(hero, villain)]
    multiway = book.multiway_of(hero), book.population_multiway
    view = PairView(entry.tally, book.baseline(hero, villain), book.others_against(hero, villain), book.population,
                    hero_multiway=multiway[0], population_multiway=multiway[1])
    if not medians:
        return view
    pop = _rate(book.population.bets, book.population.bet_chances, 0.4, 1.0)
    return PairView(
        view.pair, view.base, view.others, view.population,
        hero_median=book.median_bet_rate(hero=hero, exclude=villain, prior=pop),
        villain_median=book.median_bet_rate(villain=villain, exclude=hero, prior=pop),
        hero_multiway=multiway[0], population_multiway=multiway[1],
    )


def build_pair_detectors(stream: HandStream, thresholds: CollusionThresholds) -> list[PairCollusionDetector]:
    """The soft-play and chip-dumping detectors over one shared stream."""
    return [
        PairCollusionDetector(stream, "soft_play", "hand.soft_play", thresholds),
        PairCollusionDetector(stream, "chip_dumping", "hand.chip_dumping", thresholds),
    ]


__all__ = ["CollusionThresholds", "PairBook", "PairCollusionDetector", "build_pair_detectors"]
