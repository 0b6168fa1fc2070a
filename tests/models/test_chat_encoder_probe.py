"""The sentence-encoder probe's counting: what a second opinion adds, and the threshold it picks."""

from __future__ import annotations

import numpy as np
import pytest

from models.chat.encoder_probe import LABELS, _recall_at, choose_threshold, second_opinion
from models.chat.independent import LabelledLine, LineOutcome


def _line(lang: str, label: str) -> LabelledLine:
    return LabelledLine(lang, label, f"{label} line", "test:1")


def _probs(best: str, p: float) -> np.ndarray:
    row = np.zeros(len(LABELS))
    row[LABELS.index(best)] = p
    return row


def _room() -> tuple[list[LabelledLine], list[LineOutcome], np.ndarray]:
    lines = [_line("en", "spam"), _line("en", "insult"), _line("en", "collusion_talk")]
    lines += [_line("en", "clean"), _line("en", "clean"), _line("hu", "clean")]
    outcomes = [LineOutcome(categories={"spam"})] + [LineOutcome() for _ in range(5)]
    probs = np.stack(
        [
            _probs("spam", 0.1),  # found by the pipeline already
            _probs("hate", 0.8),  # the encoder says hate: same rule as insult (chat.3), found
            _probs("spam", 0.95),  # the encoder says spam for collusion talk: another rule, not found
            _probs("insult", 0.6),  # a clean line the encoder flags at 0.6
            _probs("spam", 0.2),
            _probs("threat", 0.9),  # a clean line the encoder flags from 0.9 down
        ]
    )
    return lines, outcomes, probs


def test_the_second_opinion_counts_by_rule_and_only_on_lines_the_pipeline_left_alone() -> None:
    lines, outcomes, probs = _room()
    at = second_opinion(lines, outcomes, probs, 0.7)
    assert at["recall_pipeline"] == pytest.approx(1 / 3, abs=1e-4)
    assert at["recall_with_encoder"] == pytest.approx(2 / 3, abs=1e-4)
    assert at["clean_flagged_by_language"] == {"en": 0.0, "hu": 1.0}
    low = second_opinion(lines, outcomes, probs, 0.5)
    assert low["clean_flagged_by_language"] == {"en": 0.5, "hu": 1.0}


def test_the_threshold_is_the_lowest_that_adds_no_more_clean_flags_than_allowed() -> None:
    lines, outcomes, probs = _room()
    # No clean line may be added: above the hu clean line's 0.9.
    assert choose_threshold(lines, outcomes, probs, 0.0) == pytest.approx(0.91)
    # Half of en's clean lines may be added, hu's none: still above 0.9.
    assert choose_threshold(lines, outcomes, probs, 0.5) == pytest.approx(0.91)
    # Everything may be added: the lowest threshold tried.
    assert choose_threshold(lines, outcomes, probs, 1.0) == pytest.approx(0.30)


def test_recall_at_a_clean_rate_counts_positives_above_the_clean_quantile() -> None:
    clean = np.linspace(0.0, 0.99, 100)  # the 1 % quantile from the top sits at ~0.98
    positive = np.array([0.5, 0.985, 0.995, 1.0])
    assert _recall_at(positive, clean, 0.01) == pytest.approx(0.75)
