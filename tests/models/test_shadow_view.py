"""`ThresholdView` (models/chat/shadow_view.py) takes the live verdict of a text whenever its test
(`_same_checker`) says the candidate thresholds cannot change it: here the two fusions are compared
wherever the test says so, on real chat lines and on scores and hits moved onto the thresholds, with
random candidate thresholds, policy floors and automatic-free models, so a change to the fusion
that the test does not follow fails here."""

from __future__ import annotations

import dataclasses
import random
from functools import cache

from models.chat import load_classifier
from models.chat.classifier import Analysis, ChatClassifier
from models.chat.shadow_view import ThresholdView, _same_checker
from pipeline.contracts import ChatMessage
from simulator import demo_traffic

CATEGORIES = (
    "insult",
    "threat",
    "spam",
    "hate",
    "sexual",
    "toxic",
    "criminal",
    "personal_info",
    "confidential",
)


@cache
def batch() -> tuple[ChatClassifier, tuple[str, ...], tuple[Analysis, ...], tuple[tuple[float, ...], ...]]:
    """The shipped model, and the distinct chat lines of a simulated room with their analyses."""
    live = load_classifier()
    texts = tuple(
        dict.fromkeys(
            e.text for _, e in demo_traffic(seed=7, minutes=20, players=80) if isinstance(e, ChatMessage)
        )
    )
    analyses = live.analyzer.analyze_many(list(texts))
    probs = live.head_probabilities(analyses).tolist()
    return live, texts, tuple(analyses), tuple(tuple(p) for p in probs)


def _moved(
    rng: random.Random, analysis: Analysis, probs: list[float], cuts: list[float]
) -> tuple[Analysis, list[float]]:
    """The text with some head scores and rule scores put on (or next to) thresholds."""
    probs = [
        rng.choice(cuts) + rng.choice((0.0, 0.0, -1e-6, 1e-6)) if rng.random() < 0.3 else p for p in probs
    ]
    hits = tuple(h._replace(score=rng.choice(cuts)) if rng.random() < 0.5 else h for h in analysis.rule_hits)
    return analysis._replace(rule_hits=hits), probs


def test_the_live_verdict_is_taken_only_where_the_candidate_fusion_gives_it() -> None:
    live, texts, analyses, probs = batch()
    base = live.model
    rng = random.Random(11)
    taken = fused = 0
    for round_ in range(40):
        live.model = base if round_ % 4 else dataclasses.replace(base, auto_thresholds={})
        live.policy_floors = {c: rng.random() for c in rng.sample(CATEGORIES, rng.randint(0, 3))}
        candidate = {
            c: rng.choice((rng.random(), 0.0, 0.6, 0.9)) for c in rng.sample(CATEGORIES, rng.randint(1, 4))
        }
        live.views.clear()
        view = ThresholdView(live, candidate)
        same = _same_checker(live, view._twin, live.model)
        assert same is not None
        live_fusion, twin_fusion = live._verdict_maker(), view._twin._verdict_maker()
        cuts = [*candidate.values(), *live.policy_floors.values(), *live.model.thresholds.values(), 0.6]
        for analysis, p in zip(analyses, probs, strict=True):
            a, q = (analysis, list(p)) if rng.random() < 0.5 else _moved(rng, analysis, list(p), cuts)
            if same(a, q):
                taken += 1
                assert twin_fusion(a, q) == live_fusion(a, q), (candidate, live.policy_floors, a)
            else:
                fused += 1
    live.model, live.policy_floors = base, {}
    live.views.clear()
    assert taken > 10 * len(texts) and fused > 2 * len(texts), (taken, fused)


def test_the_view_gives_the_candidate_verdicts_and_builds_fewer() -> None:
    live = load_classifier()
    texts = list(batch()[1])
    candidate = {"insult": 0.9, "threat": 0.8}
    view = ThresholdView(live, candidate)
    reference = load_classifier()
    reference.model = dataclasses.replace(
        reference.model, thresholds={**reference.model.thresholds, **candidate}
    )
    reference.policy_floors = dict(candidate)
    assert view.classify(texts) == reference.classify(texts)  # the view asks first: the live one analyses
    assert live.classify(texts[:50]) == load_classifier().classify(texts[:50])
    assert view.classify(texts) == reference.classify(texts)  # now from the caches
    assert view._same and len(view._same) < len(texts), "some texts taken from the live verdicts, some fused"
    assert view.rescored == 0
    live.clear_cache()  # the live verdicts gone: the view's taken ones are analysed again by the live one
    assert view.classify(texts[:20]) == reference.classify(texts[:20])
    assert view.rescored == 0
