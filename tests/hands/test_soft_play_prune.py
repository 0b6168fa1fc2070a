"""The soft-play detector rules a pair out before building the medians over opponents when its
forward direction is not low at the expectation without them. That is only sound if the medians can
never make a direction low that was not: these tests check the monotonicity it rests on, on random
tallies (the planted pairs the detector still flags are in test_hand_detectors.py)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.detectors.hand.collusion import CollusionThresholds, PairView, _forward_low
from pipeline.detectors.hand.pairs import Tally
from pipeline.detectors.hand.soft_spots import N_CLASSES

THRESHOLDS = CollusionThresholds()


@st.composite
def tallies(draw: st.DrawFn, *, most: int, passive: bool = False) -> Tally:
    """A tally whose per-class chances add up to its bet chances, attacks never above chances
    (`passive`: at most a fifth of them, so that many pairs look low and the property is tested)."""
    spots: list[int] = []
    for _ in range(N_CLASSES):
        chances = draw(st.integers(0, most))
        spots += [chances, draw(st.integers(0, chances // 5 if passive else chances))]
    chances = sum(spots[0::2])
    bets = draw(st.integers(0, chances // 5 if passive else chances))
    return Tally(hands=max(1, chances // 2), bet_chances=chances, bets=bets, spots=spots)


medians = st.one_of(st.none(), st.floats(0.0, 1.0, allow_nan=False))


@settings(max_examples=400, deadline=None)
@given(pair=tallies(most=30, passive=True), base=tallies(most=300), others=tallies(most=300), population=tallies(most=3000),
       multiway=tallies(most=300), hero_median=medians, villain_median=medians)
def test_medians_never_make_a_direction_low_that_was_not(
    pair: Tally, base: Tally, others: Tally, population: Tally, multiway: Tally,
    hero_median: float | None, villain_median: float | None,
) -> None:
    plain = PairView(pair, base, others, population, hero_multiway=multiway.spots,
                     population_multiway=population.spots)
    with_medians = replace(plain, hero_median=hero_median, villain_median=villain_median)
    if _forward_low(with_medians, THRESHOLDS) is not None:
        assert _forward_low(plain, THRESHOLDS) is not None


def test_a_low_median_can_clear_a_pair_but_the_pruned_check_keeps_it() -> None:
    # The hero bets a third of his chances against others, but into most opponents he hardly bets:
    # 2 bets in 40 chances into the villain is low against his mean, not against his median. The
    # check without medians keeps the pair for the full test, which clears it.
    spots = [0] * (2 * N_CLASSES)
    spots[0], spots[1] = 40, 2
    pair = Tally(hands=20, bet_chances=40, bets=2, spots=spots)
    base_spots = [0] * (2 * N_CLASSES)
    base_spots[0], base_spots[1] = 600, 200
    base = Tally(hands=300, bet_chances=600, bets=200, spots=base_spots)
    population = Tally(hands=3000, bet_chances=6000, bets=2000, spots=[6000 if i == 0 else 2000 if i == 1 else 0
                                                                      for i in range(2 * N_CLASSES)])
    plain = PairView(pair, base, base, population)
    assert _forward_low(plain, THRESHOLDS) is not None
    assert _forward_low(replace(plain, hero_median=0.04), THRESHOLDS) is None
