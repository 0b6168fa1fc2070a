"""The interface between chat detectors (pure) and the trained text classifier (`models/`).

Detectors receive an object satisfying `TextClassifier`; they never load a model themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pipeline.findings import Span


@dataclass(frozen=True, slots=True)
class TextVerdict:
    """Scores per category in [0, 1], the spans that drove them, and the detected language."""

    scores: dict[str, float]
    spans: tuple[Span, ...] = ()
    language: str = "und"
    flagged: tuple[str, ...] = field(default=())
    """Categories whose score reached their operating threshold, strongest first."""

    @property
    def top(self) -> tuple[str, float] | None:
        """Strongest flagged category and its score, if any."""
        return (self.flagged[0], self.scores[self.flagged[0]]) if self.flagged else None


class TextClassifier(Protocol):
    """Multi-label, multilingual classifier of short texts (chat, report comments, nicknames)."""

    def classify(self, texts: Sequence[str]) -> list[TextVerdict]:
        """One verdict per text, same order; never raises on odd text (empty, huge, binary-ish)."""
        ...
