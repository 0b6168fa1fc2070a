"""hand.soft_play and hand.chip_dumping: one directed pair's play against each other, compared with
each player's own play against everyone else (empirical-Bayes shrunk), with evidence hands."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.categories import rule_of
from pipeline.contracts import HAND, Event, HandRecord
from pipeline.detectors.hand.pairs import PairBook, PairEntry, Tally
from pipeline.detectors.hand.stream import Admitted, HandStream, state_key
from pipeline.findings import Finding, stable_id
from pipeline.hands.stats import binom_lower, binom_upper, fisher, normal_upper, score_from_p, shrunk_rate


@dataclass(frozen=True, slots=True)
class CollusionThresholds:
    """Operating points, tuned on generated play and checked on the Pluribus hands."""

    min_bet_chances: int = 12
    soft_p: float = 1e-6
    soft_min_gap: float = 0.25
    prior_strength: float = 20.0
    min_transfer_hands: int = 8
    dump_z: float = 4.5
    dump_min_mean_bb: float = 3.0
    dump_prior_hands: float = 5.0
    min_sd_bb: float = 4.0


def _rate(num: int, den: int, prior: float, strength: float) -> float:
    return shrunk_rate(num, den, prior=prior, strength=strength)


def soft_play_test(pair: Tally, base: Tally, population: Tally, t: CollusionThresholds) -> dict[str, Any] | None:
    """Statistic when hero bets into the villain far less than into others, else None."""
    if pair.bet_chances < t.min_bet_chances:
        return None
    pop_bet = _rate(population.bets, population.bet_chances, 0.4, 1.0)
    p0 = _rate(base.bets, base.bet_chances, pop_bet, t.prior_strength)
    observed = pair.bets / pair.bet_chances
    if p0 - observed < t.soft_min_gap:
        return None
    p_values = [binom_lower(pair.bets, pair.bet_chances, p0)]
    if pair.strong_chances:
        pop_strong = _rate(population.strong_checks, population.strong_chances, 0.3, 1.0)
        q0 = _rate(base.strong_checks, base.strong_chances, pop_strong, t.prior_strength)
        p_values.append(binom_upper(pair.strong_checks, pair.strong_chances, q0))
    p = fisher(p_values)
    if p > t.soft_p:
        return None
    return {
        "name": "heads_up_bet_rate_vs_partner",
        "value": round(observed, 4),
        "expected": round(p0, 4),
        "p_value": p,
        "null_model": "binomial at the player's own shrunk bet rate against other opponents; "
        "Fisher-combined with checks of strong, leading hands",
        "bet_chances": pair.bet_chances,
        "strong_checks": pair.strong_checks,
        "strong_chances": pair.strong_chances,
        "check_downs": pair.check_downs,
    }


def chip_dumping_test(pair: Tally, base: Tally, population: Tally, t: CollusionThresholds) -> dict[str, Any] | None:
    """Statistic when hero's equity-adjusted transfers to the villain are far above its baseline."""
    n = pair.n_transfer
    if n < t.min_transfer_hands:
        return None
    pop_mean = population.transfer / population.n_transfer if population.n_transfer else 0.0
    base_mean = (base.transfer + pop_mean * t.dump_prior_hands) / (base.n_transfer + t.dump_prior_hands)
    mean = pair.transfer / n
    if mean - base_mean < t.dump_min_mean_bb:
        return None
    shrunk = (pair.transfer + base_mean * t.dump_prior_hands) / (n + t.dump_prior_hands)
    sd = _sd(base) if base.n_transfer >= 30 else _sd(population)
    sd = max(sd, t.min_sd_bb)
    z = (shrunk - base_mean) / (sd / math.sqrt(n + t.dump_prior_hands))
    if z < t.dump_z:
        return None
    return {
        "name": "equity_adjusted_transfer_bb_per_hand",
        "value": round(mean, 3),
        "expected": round(base_mean, 3),
        "p_value": normal_upper(z),
        "z": round(z, 3),
        "null_model": "normal; the player's own shrunk mean transfer to other opponents, their sd",
        "hands": n,
        "actual_flow_bb": round(pair.flow, 2),
        "strong_folds": pair.strong_folds,
        "folds_to_partner": pair.folds,
        "faced_partner_bets": pair.faced,
        "short_stack_flow_bb": round(pair.short_flow, 2),
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

    def key(self, event: Event) -> str:
        """Hand detectors share one key: the tournament, else the table."""
        return state_key(event) if isinstance(event, HandRecord) else event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        """Update the shared pair statistics with this hand and report pairs that crossed."""
        if not isinstance(event, HandRecord):
            return ()
        verdict = self.stream.admit(event)
        if not isinstance(verdict, Admitted):
            return ()
        book = self.stream.pairs
        test = soft_play_test if self.category == "soft_play" else chip_dumping_test
        out: list[Finding] = []
        for hero, villain in verdict.touched:
            entry = book.pairs.get((hero, villain))
            if entry is None or self.category in entry.flagged:
                continue
            if not self._worth_testing(entry.tally):
                continue
            stat = test(entry.tally, book.baseline(hero, villain), book.population, self.thresholds)
            if stat is not None:
                entry.flagged.add(self.category)
                out.append(self._finding(event, hero, villain, entry, stat))
        return out

    def _worth_testing(self, pair: Tally) -> bool:
        """Cheap pre-checks so the baseline is only built for pairs that could cross."""
        t = self.thresholds
        if self.category == "soft_play":
            return pair.bet_chances >= t.min_bet_chances and pair.bets <= pair.bet_chances * 0.5
        return pair.n_transfer >= t.min_transfer_hands and pair.transfer >= t.dump_min_mean_bb * pair.n_transfer

    def _finding(self, record: HandRecord, hero: str, villain: str, entry: PairEntry, stat: dict[str, Any]) -> Finding:
        hands = [r for _, _, r in sorted(entry.evidence, key=lambda e: -e[0])]
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
            table_id=record.table_id,
            tournament_id=record.tournament_id,
            summary=f"{hero} {verb} {villain}: {stat['name']} {stat['value']} vs own baseline {stat['expected']}",
            source_event_ids=tuple(r.event_id for r in hands),
            evidence={
                "hands": [r.model_dump(mode="json") for r in hands],
                "hand_ids": [r.hand_id for r in hands],
                "statistic": stat,
                "partial": sorted({p for r in hands for p in r.partial}),
            },
        )


def build_pair_detectors(stream: HandStream, thresholds: CollusionThresholds) -> list[PairCollusionDetector]:
    """The soft-play and chip-dumping detectors over one shared stream."""
    return [
        PairCollusionDetector(stream, "soft_play", "hand.soft_play", thresholds),
        PairCollusionDetector(stream, "chip_dumping", "hand.chip_dumping", thresholds),
    ]


__all__ = ["CollusionThresholds", "PairBook", "PairCollusionDetector", "build_pair_detectors"]
