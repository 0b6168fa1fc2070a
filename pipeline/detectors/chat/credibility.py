"""How much a SnapCam reporter's word counts: a Beta-binomial estimate from their past reports.

The pipeline never sees review decisions, so the caller passes in what it knows (confirmed and
dismissed report counts per reporter, e.g. a nightly snapshot from the review database). A reporter
with no history gets the prior mean: neutral, neither trusted nor discounted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class ReportHistory:
    """Outcomes of a reporter's earlier reports, as decided by reviewers."""

    confirmed: int = 0
    dismissed: int = 0


@dataclass(frozen=True, slots=True)
class ReporterCredibility:
    """Posterior mean of P(report is confirmed) under a Beta(alpha, beta) prior, per reporter."""

    history: Mapping[str, ReportHistory] = field(default_factory=dict)
    alpha: float = 2.0
    beta: float = 2.0

    def of(self, reporter_id: str) -> float:
        """Credibility in (0, 1); the prior mean alpha / (alpha + beta) for an unknown reporter."""
        seen = self.history.get(reporter_id, ReportHistory())
        confirmed = max(0, seen.confirmed)
        dismissed = max(0, seen.dismissed)
        return (self.alpha + confirmed) / (self.alpha + self.beta + confirmed + dismissed)

    def prior(self) -> float:
        """Credibility of a reporter nobody has decided about."""
        return self.alpha / (self.alpha + self.beta)
