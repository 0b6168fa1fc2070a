"""The interface between chat detectors (pure) and the trained text classifier (`models/`).

Detectors receive an object satisfying `TextClassifier`; they never load a model themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pipeline.categories import CATEGORIES, rule_of
from pipeline.findings import Span

AUTOMATIC_POINT = "automatic_point"
"""Finding evidence key set by detectors that consulted a classifier with operating points:
True/False = the automatic-action point of the finding's category was / was not reached."""


def automatic_evidence(verdict: TextVerdict | None, category: str) -> dict[str, bool]:
    """`{AUTOMATIC_POINT: reached}` for a finding of `category`, or {} when the verdict states no
    operating points (policy then uses its score floor)."""
    if verdict is None or verdict.automatic is None:
        return {}
    # The point of any category under the finding's house rule counts: one rule, one sanction.
    # "kys" is fused as a threat (a pattern names it) while the model is sure of an insult; both
    # are rule chat.3, and the model's certainty of a chat.3 offence is what the mute rests on.
    reached_rules = {rule_of(c) for c in verdict.automatic if c in CATEGORIES}
    return {AUTOMATIC_POINT: category in verdict.automatic
            or (category in CATEGORIES and rule_of(category) in reached_rules)}


@dataclass(frozen=True, slots=True)
class TextVerdict:
    """Scores per category in [0, 1], the spans that drove them, and the detected language."""

    scores: dict[str, float]
    spans: tuple[Span, ...] = ()
    language: str = "und"
    flagged: tuple[str, ...] = field(default=())
    """Categories whose score reached their review point (operating threshold), strongest first."""
    automatic: tuple[str, ...] | None = None
    """Flagged categories whose score also reached their automatic-action point (a precision-first
    threshold: policy may act on these without a reviewer), strongest first. None: the classifier
    has no per-category operating points (policy then falls back to its score floor, and the
    rule detectors run without the model's say)."""

    @property
    def top(self) -> tuple[str, float] | None:
        """Strongest flagged category and its score, if any."""
        return (self.flagged[0], self.scores[self.flagged[0]]) if self.flagged else None


class TextClassifier(Protocol):
    """Multi-label, multilingual classifier of short texts (chat, report comments, nicknames)."""

    def classify(self, texts: Sequence[str]) -> list[TextVerdict]:
        """One verdict per text, same order; never raises on odd text (empty, huge, binary-ish)."""
        ...
