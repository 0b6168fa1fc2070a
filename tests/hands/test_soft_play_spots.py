"""Soft play's chances by class of spot (`pipeline/detectors/hand/soft_spots.py`) and the pooled
test over them: what a PLO hand counts, and which pairs the test flags or leaves alone."""

from __future__ import annotations

import json
from typing import Any

from pipeline.contracts import HAND, HandRecord, decode
from pipeline.detectors.hand.collusion import CollusionThresholds, PairView, soft_play_test
from pipeline.detectors.hand.pairs import Tally
from pipeline.detectors.hand.soft_spots import (
    POST_AIR,
    POST_PAIR,
    POST_STRONG,
    PRE_RAISED,
    PRE_UNOPENED,
    empty_spots,
    soft_spots,
)
from tests.samples import hand_value

# Three-handed PLO: carol folds, alice (small blind) completes, bob checks his option; then both
# check every street (a check-down). Alice holds aces (a pair beyond the 2-7-9 flop), bob flops a set.
CHECK_DOWN = [
    "d dh p1 AcAdKcQd",
    "d dh p2 9s9h4d5c",
    "d dh p3 2c3cJdTd",
    "p3 f",
    "p1 cc",
    "p2 cc",
    "d db 2s7d9c",
    "p1 cc",
    "p2 cc",
    "d db Jc",
    "p1 cc",
    "p2 cc",
    "d db Qh",
    "p1 cc",
    "p2 cc",
    "p1 sm AcAdKcQd",
    "p2 sm 9s9h4d5c",
]


def _record(actions: list[str], **extra: Any) -> HandRecord:
    value = hand_value(
        variant="PO",
        antes=[0, 0, 0],
        blinds_or_straddles=[1, 2, 0],
        min_bet=2,
        starting_stacks=[200, 200, 200],
        players=["alice", "bob", "carol"],
        seats=[1, 2, 3],
        actions=actions,
        finishing_stacks=[198, 202, 200],
        winnings=[0, 4, 0],
    )
    value.update(extra)
    event = decode(HAND, json.dumps(value).encode())
    assert isinstance(event, HandRecord)
    return event


def test_a_plo_check_down_counts_every_heads_up_chance_by_hand_strength() -> None:
    record = _record(CHECK_DOWN)
    assert record.replay is not None
    spots = soft_spots(record.replay)
    alice, bob = spots.pairs[(0, 1)], spots.pairs[(1, 0)]
    # Pre-flop, once carol folded: alice completing and bob's option are chances to raise.
    assert alice[2 * PRE_UNOPENED] == 1 and bob[2 * PRE_UNOPENED] == 1
    # Post-flop: alice's aces are a pair beyond the board on every street; bob's set is strong.
    assert alice[2 * POST_PAIR] == 3 and alice[2 * POST_STRONG] == 0 and alice[2 * POST_AIR] == 0
    assert bob[2 * POST_STRONG] == 3
    assert sum(alice[1::2]) == 0 and sum(bob[1::2]) == 0  # no attack at all
    # Carol's fold came with three players in: her own multiway chance, no pair's evidence.
    assert spots.multiway[2][2 * PRE_UNOPENED] == 1 and (2, 0) not in spots.pairs


def test_facing_the_others_raise_heads_up_is_a_pre_flop_raised_chance_and_a_bet_an_attack() -> None:
    actions = [
        "d dh p1 AcAdKcQd",
        "d dh p2 9s9h4d5c",
        "d dh p3 2c3cJdTd",
        "p3 f",
        "p1 cbr 6",
        "p2 cc",
        "d db 2s7d9c",
        "p1 cc",
        "p2 cbr 6",
        "p1 f",
    ]
    record = _record(actions, finishing_stacks=[194, 206, 200], winnings=[0, 18, 0])
    assert record.replay is not None
    spots = soft_spots(record.replay)
    alice, bob = spots.pairs[(0, 1)], spots.pairs[(1, 0)]
    assert alice[2 * PRE_UNOPENED : 2 * PRE_UNOPENED + 2] == [1, 1]  # alice raised when she could
    assert bob[2 * PRE_RAISED : 2 * PRE_RAISED + 2] == [1, 0]  # bob only called her raise
    assert bob[2 * POST_STRONG : 2 * POST_STRONG + 2] == [1, 1]  # bob bet his set when checked to
    assert alice[2 * POST_PAIR : 2 * POST_PAIR + 2] == [1, 0]  # facing his bet is no chance to attack


def _tally(post: tuple[int, int, int], pre: int, *, attacks: float = 0.0) -> Tally:
    """A directed tally with `post` heads-up post-flop chances (nothing, pair, strong) and `pre`
    unopened pre-flop chances; `attacks` the share of them attacked."""
    spots = empty_spots()
    for cls, n in ((POST_AIR, post[0]), (POST_PAIR, post[1]), (POST_STRONG, post[2]), (PRE_UNOPENED, pre)):
        spots[2 * cls] = n
        spots[2 * cls + 1] = round(n * attacks)
    chances = sum(post)
    return Tally(hands=chances // 3 + pre, bet_chances=chances, bets=sum(spots[1:8:2]), spots=spots)


def _population() -> Tally:
    # A regular's room: bets 0.2 of air, 0.35 of pairs, 0.5 of strong hands checked to heads-up.
    spots = empty_spots()
    for cls, n, rate in (
        (POST_AIR, 2000, 0.2),
        (POST_PAIR, 2000, 0.35),
        (POST_STRONG, 2000, 0.5),
        (PRE_UNOPENED, 3000, 0.18),
    ):
        spots[2 * cls], spots[2 * cls + 1] = n, round(n * rate)
    return Tally(bet_chances=6000, bets=2100, spots=spots)


def _views(pair_ab: Tally, pair_ba: Tally) -> tuple[PairView, PairView]:
    pop = _population()
    base = Tally(bet_chances=60, bets=22, spots=[20, 4, 20, 7, 20, 11, 0, 0, 30, 6, 0, 0])
    others = Tally(bet_chances=60, bets=21)
    return PairView(pair_ab, base, others, pop), PairView(pair_ba, base, others, pop)


def test_six_checked_down_pots_with_strong_hands_are_flagged() -> None:
    # Six heads-up pots checked down: 18 chances each way, a third of them with two pair or better.
    ab, ba = _views(_tally((6, 6, 6), 6), _tally((6, 6, 6), 6))
    stat = soft_play_test(ab, ba, CollusionThresholds())
    assert stat is not None and stat["p_value"] <= 1e-6
    assert stat["chances_by_class"]["post_two_pair_plus"]["chances"] == [6, 6]
    assert stat["chances_by_class"]["pre_unopened"]["attacks"] == [0, 0]


def test_the_same_pots_with_ordinary_betting_are_left_alone() -> None:
    ab, ba = _views(_tally((6, 6, 6), 6, attacks=0.34), _tally((6, 6, 6), 6, attacks=0.34))
    assert soft_play_test(ab, ba, CollusionThresholds()) is None


def test_three_checked_down_pots_are_below_the_sample_and_left_alone() -> None:
    # Nine chances each way: even with no bet, not enough to tell from an honest pair's cold run.
    ab, ba = _views(_tally((3, 3, 3), 3), _tally((3, 3, 3), 3))
    assert soft_play_test(ab, ba, CollusionThresholds()) is None


def test_weak_hands_checked_say_less_than_strong_ones() -> None:
    weak = soft_play_test(*_views(_tally((14, 4, 0), 4), _tally((14, 4, 0), 4)), CollusionThresholds())
    strong = soft_play_test(*_views(_tally((0, 4, 14), 4), _tally((0, 4, 14), 4)), CollusionThresholds())
    assert strong is not None
    assert weak is None or weak["p_value"] > strong["p_value"] * 100
