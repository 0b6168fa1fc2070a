"""Small statistics for the collusion detectors: shrinkage and exact tails, no scipy on the hot path."""

from __future__ import annotations

import math


def shrunk_rate(successes: float, trials: float, *, prior: float, strength: float) -> float:
    """Empirical-Bayes rate: the observed rate pulled towards `prior` by `strength` pseudo-trials."""
    return (successes + prior * strength) / (trials + strength)


def binom_upper(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    p = min(max(p, 1e-9), 1 - 1e-9)
    lp, lq = math.log(p), math.log1p(-p)
    terms = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lp + (n - i) * lq for i in range(k, n + 1)]
    top = max(terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms))


def binom_lower(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p)."""
    return binom_upper(n - k, n, 1.0 - p)


def normal_upper(z: float) -> float:
    """P(Z >= z) for a standard normal."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def fisher(p_values: list[float]) -> float:
    """Fisher's combined p-value of independent tests (chi-square with 2k degrees of freedom)."""
    x = -2.0 * sum(math.log(max(p, 1e-300)) for p in p_values)
    k = len(p_values)
    # Survival function of chi2(2k) at x has a closed form: exp(-x/2) * sum_{i<k} (x/2)^i / i!
    half = x / 2.0
    term, total = 1.0, 1.0
    for i in range(1, k):
        term *= half / i
        total += term
    return min(1.0, math.exp(-half) * total)


def score_from_p(p: float, *, floor: float, ceiling: float) -> float:
    """Map a p-value to a review score in [floor, ceiling]: 1e-4 -> floor, 1e-12 or less -> ceiling."""
    strength = min(1.0, max(0.0, (-math.log10(max(p, 1e-300)) - 4.0) / 8.0))
    return round(floor + (ceiling - floor) * strength, 4)


def binom_pmf(k: int, n: int, p: float) -> float:
    """P(X = k) for X ~ Binomial(n, p)."""
    if k < 0 or k > n:
        return 0.0
    p = min(max(p, 1e-12), 1 - 1e-12)
    return math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * math.log(p) + (n - k) * math.log1p(-p))


def binom_sum_lower(groups: list[tuple[int, float]], k: int) -> float:
    """P(X_1 + ... + X_m <= k) for independent X_i ~ Binomial(n_i, p_i): one exact test over chances
    that differ in their expected rate (a pooled test loses less power than combining p-values)."""
    if k < 0:
        return 0.0
    dist = [1.0] + [0.0] * k
    for n, p in groups:
        pmf = [binom_pmf(i, n, p) for i in range(min(n, k) + 1)]
        dist = [sum(dist[i - j] * pmf[j] for j in range(min(i, len(pmf) - 1) + 1)) for i in range(k + 1)]
    return min(1.0, sum(dist))
