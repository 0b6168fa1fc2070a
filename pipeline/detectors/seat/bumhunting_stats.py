"""The three avoidance statistics of the bumhunting detector, as pure functions.

Each returns a JSON-ready dict for `evidence.statistic` with `p_value` and `p_adjusted`
(Bonferroni over `n_tests` players), or `{"p_adjusted": 1.0}` when the player cannot pass: too few
observations, or a cheap bound already rules out significance (saves the tail computation on the
hot path).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from scipy.stats import betabinom, binom, norm

NULL_MODEL = (
    "leaving is independent of who arrives: both classes share the player's flight rate; flights after "
    "strong arrivals ~ BetaBinomial(exposures, a, b), the posterior predictive of the player's flights "
    "after other arrivals (a = flights + k*pop, b = non-flights + k*(1-pop), k = prior strength) so the "
    "uncertainty of the player's own rate widens the tail; Bonferroni over players testable"
)


@dataclass(frozen=True, slots=True)
class BumhuntConfig:
    """Thresholds of the bumhunting statistics; defaults justified in docs/seat-integrity.md."""

    flight_window: float = 300.0
    strong_z: float = 0.5
    weak_z: float = -0.8
    min_exposures: int = 8
    min_flights: int = 5
    min_flight_rate: float = 0.5
    prior_strength: float = 20.0
    min_joins: int = 10
    alpha: float = 0.01
    victim_min: int = 2
    player_ttl: float = 30 * 86_400.0


def flight_test(
    *,
    flights: int,
    exposures: int,
    other_flights: int,
    other_exposures: int,
    pop_rate: float,
    n_tests: int,
    cfg: BumhuntConfig,
    name: str = "flight_after_strong_arrival",
) -> dict[str, Any]:
    """Flights after strong arrivals against the player's own shrunk rate after other arrivals (and
    the same test for leaving unplayed after joining a table with a strong player seated)."""
    k, n = flights, exposures
    if n < cfg.min_exposures or k < cfg.min_flights or k < cfg.min_flight_rate * n:
        return {"p_adjusted": 1.0}
    pop = min(max(pop_rate, 1e-3), 0.999)
    a = other_flights + cfg.prior_strength * pop
    b = other_exposures - other_flights + cfg.prior_strength * (1 - pop)
    p0 = a / (a + b)
    # Posterior predictive, not a plug-in binomial: the player's own rate is estimated from a few
    # dozen episodes, and treating it as known made chance gaps look significant (an honest player
    # with 1/18 other flights and 7/11 strong ones was flagged at p_adj 0.002).
    p_value = float(betabinom.sf(k - 1, n, a, b))
    return {
        "name": name,
        "value": round(k / n, 4),
        "flights": k,
        "exposures": n,
        "expected": round(p0, 4),
        "other_flights": other_flights,
        "other_exposures": other_exposures,
        "p_value": p_value,
        "p_adjusted": min(1.0, p_value * max(n_tests, 1)),
        "n_tests": n_tests,
        "null_model": NULL_MODEL,
    }


def selection_test(
    *, joins: int, mean: float, mean_all: float, sd_all: float, n_tests: int
) -> dict[str, Any]:
    """Opponents' mean skill at the player's joins against all joins (one-sided z-test)."""
    z = (mean - mean_all) / (sd_all / math.sqrt(joins))
    if z > -3.0:
        return {"p_adjusted": 1.0}  # cannot pass any Bonferroni threshold
    p_value = float(norm.cdf(z))
    return {
        "name": "opponent_skill_at_join",
        "value": round(mean, 4),
        "expected": round(mean_all, 4),
        "z": round(z, 3),
        "joins": joins,
        "p_value": p_value,
        "p_adjusted": min(1.0, p_value * max(n_tests, 1)),
        "n_tests": n_tests,
        "null_model": "opponents' mean skill at join ~ Normal(mean over all joins, sd/sqrt(joins))",
    }


def avoidance_test(*, joins: int, with_strong: int, share_all: float, n_tests: int) -> dict[str, Any]:
    """How few of the player's joins had a strong opponent seated (binomial lower tail)."""
    base = min(max(share_all, 1e-3), 0.999)
    if with_strong > joins * base - 2.0 * math.sqrt(joins * base * (1 - base)):
        return {"p_adjusted": 1.0}  # within two standard deviations
    p_value = float(binom.cdf(with_strong, joins, base))
    return {
        "name": "joins_with_a_strong_opponent",
        "value": round(with_strong / joins, 4),
        "expected": round(base, 4),
        "joins": joins,
        "p_value": p_value,
        "p_adjusted": min(1.0, p_value * max(n_tests, 1)),
        "n_tests": n_tests,
        "null_model": "joins with a strong opponent seated ~ Binomial(joins, share over all joins)",
    }
