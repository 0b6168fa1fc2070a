"""Shadow copies (pipeline/shadow.py): with the live configuration they find exactly what the live
detectors find; with a candidate configuration exactly what the detectors would find live with it;
they never change what the live detectors find, never share a durable store with them, and a
candidate chat threshold never makes the model score a message twice."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from functools import cache

import pytest

from consumers.changelog import stores_of
from models.chat import load_classifier
from models.chat.classifier import ChatClassifier
from models.chat.shadow_view import ThresholdView, candidate_classifier
from pipeline.contracts import Event
from pipeline.detector import Detector
from pipeline.findings import Finding
from pipeline.registry import build_detectors
from pipeline.rules import RULES_PRESETS
from pipeline.runner import Pipeline
from pipeline.shadow import PREFIX, build_with_shadows, live_name
from simulator import demo_traffic

LIVE = RULES_PRESETS["id-vi-2022-09-28"]
CANDIDATE = RULES_PRESETS["uk-2022-09-28"]
LATENESS = timedelta(seconds=30)
STRICTER = {"insult": 0.9, "threat": 0.8, "spam": 0.95}


@cache
def traffic() -> tuple[tuple[str, Event], ...]:
    """A simulated room: chat, SnapCam reports, seat activity and hand records (20 minutes)."""
    return tuple(demo_traffic(seed=3, minutes=20, players=60))


@cache
def model(thresholds: tuple[tuple[str, float], ...] = ()) -> ChatClassifier:
    """The shipped chat model, with threshold overrides applied the way railbird/wiring.py does."""
    import dataclasses

    classifier = load_classifier()
    if thresholds:
        overrides = dict(thresholds)
        classifier.model = dataclasses.replace(classifier.model,
                                               thresholds={**classifier.model.thresholds, **overrides})
        classifier.policy_floors = overrides
    return classifier


def run(detectors: dict[str, Detector], events: Iterable[tuple[str, Event]]) -> list[Finding]:
    """Every finding of the events, in order, with the end-of-input flush."""
    pipeline = Pipeline(detectors, rules=LIVE)
    out: list[Finding] = []
    batch = list(events)
    for topic, event in batch:
        for d in pipeline.detectors_for(topic):
            prefetch = getattr(d, "prefetch", None)  # as the runtime does per batch, one event at a time here
            if prefetch is not None:
                prefetch([event])
        out.extend(pipeline.process(topic, event).findings)
    out.extend(pipeline.flush().findings)
    return out


def by_id(findings: Iterable[Finding]) -> dict[str, dict[str, object]]:
    """Findings as comparable documents (without the shadow mark)."""
    return {f.finding_id: f.model_dump(mode="json", exclude={"shadow"}) for f in findings}


def test_shadow_copies_with_the_live_configuration_find_exactly_what_live_finds() -> None:
    classifier = model()
    names = ("chat.classifier", "chat.banned_words", "chat.repeat_offender", "chat.harassment",
             "seat.hit_and_run", "snapcam.triage", "hand.soft_play")
    both = run(build_with_shadows(rules=LIVE, classifier=classifier, chat_lateness=LATENESS, names=names,
                                  shadow_rules=LIVE, shadow_classifier=classifier), traffic())
    alone = run(build_detectors(rules=LIVE, classifier=classifier, chat_lateness=LATENESS), traffic())
    live = [f for f in both if not f.shadow]
    shadow = [f for f in both if f.shadow]
    assert by_id(live) == by_id(alone), "shadow copies changed what the live detectors find"
    expected = by_id(f for f in alone if f.detector in names)
    assert len(expected) >= 20 and len({f.detector for f in shadow}) >= 3
    # Same ids, categories, scores, spans, evidence (prior offences too) and actions.
    assert by_id(shadow) == expected


def test_every_detector_in_shadow_with_a_candidate_finds_what_it_would_find_live() -> None:
    live_model, candidate_model = model(), model(tuple(sorted(STRICTER.items())))
    live_model.clear_cache()  # warm from the test before; a view attached to a warm model re-scores its hits
    view = candidate_classifier(live_model, live_thresholds={}, candidate=STRICTER)
    assert isinstance(view, ThresholdView)
    names = tuple(build_detectors(rules=LIVE, classifier=live_model))
    both = run(build_with_shadows(rules=LIVE, classifier=live_model, chat_lateness=LATENESS, names=names,
                                  shadow_rules=CANDIDATE, shadow_classifier=view), traffic())
    reference = run(build_detectors(rules=CANDIDATE, classifier=candidate_model, chat_lateness=LATENESS), traffic())
    shadow = by_id(f for f in both if f.shadow)
    assert shadow == by_id(reference)
    live = by_id(f for f in both if not f.shadow)
    assert shadow != live, "the candidate should change something on this traffic"
    assert view.rescored == 0


def test_a_candidate_threshold_never_scores_a_message_twice() -> None:
    chat = [(t, e) for t, e in traffic() if t == "chat.messages"]
    names = ("chat.classifier", "chat.harassment", "nickname.offensive")

    def analysed(with_shadow: bool) -> tuple[int, int]:
        """Texts the model analysed over the chat traffic, and the view's re-scored ones."""
        live_model = load_classifier()
        calls: list[int] = []
        analyze = live_model.analyzer.analyze_many

        def counting(texts):  # type: ignore[no-untyped-def]
            calls.append(len(texts))
            return analyze(texts)

        live_model.analyzer.analyze_many = counting  # type: ignore[method-assign]
        if not with_shadow:
            run(build_detectors(rules=LIVE, classifier=live_model, chat_lateness=LATENESS), chat)
            return sum(calls), 0
        view = ThresholdView(live_model, STRICTER)
        run(build_with_shadows(rules=LIVE, classifier=live_model, chat_lateness=LATENESS, names=names,
                               shadow_rules=LIVE, shadow_classifier=view), chat)
        return sum(calls), view.rescored

    alone, _ = analysed(False)
    shadowed, rescored = analysed(True)
    assert alone > 500 and shadowed == alone and rescored == 0


def test_shadow_copies_keep_their_own_durable_store() -> None:
    classifier = model()
    detectors = build_with_shadows(rules=LIVE, classifier=classifier, chat_lateness=LATENESS,
                                   names=("chat.classifier", "chat.flooding", "chat.repeat_offender"),
                                   shadow_rules=LIVE, shadow_classifier=classifier)
    stores = stores_of(detectors)  # refuses two stores under one name
    assert set(stores) == {"chat.offence_ledger", "shadow:chat.offence_ledger"}
    assert stores["chat.offence_ledger"] is not stores["shadow:chat.offence_ledger"]
    shadows = [n for n in detectors if n.startswith(PREFIX)]
    assert shadows == ["shadow:chat.classifier", "shadow:chat.flooding", "shadow:chat.repeat_offender"]
    # Taps before the live detectors (they read the live ledger as a live tap would), the ladder after.
    assert list(detectors)[:2] == shadows[:2] and list(detectors)[-1] == shadows[2]
    assert all(live_name(n) in detectors for n in shadows)


def test_an_unknown_detector_is_refused() -> None:
    with pytest.raises(ValueError, match="no detector"):
        build_with_shadows(rules=LIVE, classifier=None, chat_lateness=LATENESS, names=("chat.nope",),
                           shadow_rules=LIVE, shadow_classifier=None)
