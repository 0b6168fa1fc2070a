"""`ModelView` (models/chat/shadow_view.py): a candidate model in shadow scores the live
classifier's analyses with its own heads and thresholds. Its verdicts must be the candidate's own,
as a classifier loaded from the candidate alone gives them, whatever order the live and shadow
copies ask in; a candidate with another word list must never read the live analyses."""

from __future__ import annotations

import dataclasses
from functools import cache
from pathlib import Path

import numpy as np

from models.chat import load_classifier
from models.chat.artifact import ChatModel
from models.chat.classifier import ChatClassifier
from models.chat.independent import read_set
from models.chat.shadow_view import ModelView, candidate_model
from pipeline.contracts import ChatMessage
from simulator import demo_traffic

DEV_SET = Path(__file__).resolve().parents[2] / "models" / "chat" / "evalsets" / "independent" / "dev"


@cache
def texts() -> tuple[str, ...]:
    """Distinct lines of a simulated room and of the independent dev set (many offences)."""
    room = [e.text for _, e in demo_traffic(seed=3, minutes=10, players=40) if isinstance(e, ChatMessage)]
    return tuple(dict.fromkeys([*room, *(line.text for line in read_set(DEV_SET))]))


def candidate_of(model: ChatModel) -> ChatModel:
    """Another model with the same word list: other head weights, intercepts and review points."""
    rng = np.random.default_rng(5)
    noise = rng.normal(1.0, 0.4, size=model.weights.shape).astype(np.float32)
    return dataclasses.replace(
        model,
        weights=model.weights * noise,
        intercepts=model.intercepts + np.float32(0.3),
        thresholds={**model.thresholds, "insult": 0.55, "threat": 0.7},
    )


def test_the_view_gives_the_candidate_verdicts_not_the_live_ones() -> None:
    live = load_classifier()
    model = candidate_of(live.model)
    view = ModelView(live, ChatClassifier(model))
    alone = ChatClassifier(model)
    lines = list(texts())
    half = len(lines) // 2
    live_first = live.classify(lines[:half])  # as the live copy's prefetch does: the view is handed them
    assert view.classify(lines[:half]) == alone.classify(lines[:half])
    assert view.classify(lines[half:]) == alone.classify(lines[half:])  # the view asks first
    assert view.rescored == 0
    differ = sum(a.flagged != b.flagged for a, b in zip(live_first, view.classify(lines[:half]), strict=True))
    assert differ > 10, "the candidate's heads flag other lines than the live model's"
    assert live.classify(lines[:50]) == load_classifier().classify(lines[:50])  # the live model is untouched


def test_analyses_no_longer_held_are_made_again() -> None:
    live = load_classifier()
    model = candidate_of(live.model)
    view = ModelView(live, ChatClassifier(model), pending=40)
    alone = ChatClassifier(model)
    lines = list(texts())[:300]
    live.classify(lines)  # the view keeps the batch's last 40 analyses: the others are dropped
    assert view.classify(lines) == alone.classify(lines)
    assert view.rescored == len(lines) - 40
    assert view.classify(lines[:10]) == alone.classify(lines[:10])  # from the candidate's own cache
    assert view.rescored == len(lines) - 40


def test_a_candidate_with_another_word_list_scores_alone() -> None:
    live = load_classifier()
    terms = dict(live.model.lexicon)
    terms.pop(next(iter(terms)))
    other = ChatClassifier(dataclasses.replace(candidate_of(live.model), lexicon=terms))
    assert not live.analyses_like(other)
    assert candidate_model(live, other) is other
    try:
        ModelView(live, other)
    except ValueError as exc:
        assert "word list" in str(exc)
    else:
        raise AssertionError("a view over another word list's analyses was made")
    same = ChatClassifier(candidate_of(live.model))
    assert isinstance(candidate_model(live, same), ModelView)
    assert not isinstance(candidate_model(live, ChatClassifier(candidate_of(live.model), use_lingua=False)), ModelView)
