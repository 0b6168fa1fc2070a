"""The null model behind collusive sit-out findings: coincident sit-out transitions versus chance.

Transitions are sit-out starts (sit_out/disconnect) and ends (sit_in/reconnect), two lanes tested
the same way and summed. Null hypothesis: players decide independently. Each player's starts form a
Poisson process whose intensity is proportional to the field's own (break-free) sit-out intensity,
lambda_B(t) = n_B * f(t) / F_B, where f(t) is the field's start rate near t (so surges that everyone
shares, such as the bubble, raise every player's chance together) and F_B is the number of field
starts during B's presence. For each of A's starts s_i, the chance that B starts within +-tol of it
is p_i = 1 - exp(-2 tol lambda_B(s_i)); the number of coincidences K is Poisson-binomial, whose upper
tail we take from a Poisson with mean sum(p_i) (accurate for small p_i). Both directions are tested
and the larger expectation kept; the lanes' expectations add (independent Poissons); Bonferroni over
every pair of players who have enough transitions to reach the minimum at all.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scipy.stats import poisson

NULL_MODEL = (
    "independent sit-out decisions: each player's sit-out starts (and, separately, ends) ~ Poisson with intensity proportional to the "
    "field's break-free start rate (+-window) over the player's presence; K ~ Poisson(sum p_i), "
    "p_i = 1-exp(-2*tol*lambda_B(s_i)); max of both directions; Bonferroni over all player pairs"
)


@dataclass(frozen=True, slots=True)
class PairTest:
    """Outcome of the coincidence test for one pair of players."""

    coincidences: int
    expected: float
    p_value: float
    p_adjusted: float
    n_tests: int


def count_in(sorted_ts: Sequence[float], lo: float, hi: float) -> int:
    """How many timestamps fall in [lo, hi]."""
    return bisect_right(sorted_ts, hi) - bisect_left(sorted_ts, lo)


def expected_hits(
    a_starts: Sequence[float],
    *,
    n_b: int,
    b_presence: tuple[float, float],
    field: Sequence[float],
    tol: float,
    window: float,
) -> float:
    """Expected number of A's starts that B matches within tol by chance (sum of p_i)."""
    field_in_presence = max(count_in(field, *b_presence), n_b, 1)
    total = 0.0
    for s in a_starts:
        local_rate = count_in(field, s - window, s + window) / (2 * window)
        lam = n_b * local_rate / field_in_presence
        total += 1.0 - math.exp(-2 * tol * lam)
    return total


def pair_test(
    *,
    coincidences: int,
    a_events: Mapping[str, Sequence[float]],
    b_events: Mapping[str, Sequence[float]],
    a_presence: tuple[float, float],
    b_presence: tuple[float, float],
    field: Mapping[str, Sequence[float]],
    tol: float,
    window: float,
    n_tests: int,
) -> PairTest:
    """Tail probability of at least `coincidences` coincident transitions (starts and ends) by chance."""
    mu = 0.0
    for kind, lane in field.items():
        a, b = a_events.get(kind, ()), b_events.get(kind, ())
        mu_ab = expected_hits(a, n_b=len(b), b_presence=b_presence, field=lane, tol=tol, window=window)
        mu_ba = expected_hits(b, n_b=len(a), b_presence=a_presence, field=lane, tol=tol, window=window)
        mu += max(mu_ab, mu_ba)
    p = float(poisson.sf(coincidences - 1, mu)) if coincidences > 0 else 1.0
    return PairTest(coincidences, mu, p, min(1.0, p * max(n_tests, 1)), n_tests)
