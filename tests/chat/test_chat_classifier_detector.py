"""The classifier detector and the verdict cache, with a hand-written fake model."""

from __future__ import annotations

from pipeline.detectors.chat.classifier import CachedClassifier, ClassifierDetector
from pipeline.findings import Span
from pipeline.text_model import TextVerdict
from tests.chat.chat_events import FakeClassifier, msg


def test_one_finding_per_flagged_message_with_top_category_score_and_spans() -> None:
    detector = ClassifierDetector(FakeClassifier())
    (finding,) = detector.process(msg("you are threatening me"))
    assert finding.category == "threat" and finding.score == 0.9 and finding.rule == "chat.3"
    assert finding.evidence["messages"][0]["spans"] == [{"start": 8, "end": 19, "label": "threat"}]
    assert finding.evidence["language"] == "en"
    assert detector.process(msg("nice hand")) == ()


def test_batches_make_one_model_call() -> None:
    model = FakeClassifier()
    out = ClassifierDetector(model).process_batch([msg(t, at=i) for i, t in enumerate(["toxic", "gg", "meanish"])])
    assert [f.category for f in out] == ["insult", "insult"] and model.calls == 1


def test_cache_classifies_each_text_once() -> None:
    model = FakeClassifier()
    cached = CachedClassifier(model, max_texts=2)
    cached.classify(["a", "b", "a"])
    cached.classify(["a", "b"])
    assert model.texts == 2
    cached.classify(["c", "a"])  # evicts b
    cached.classify(["b"])
    assert model.texts == 4


class _OddModel:
    """Flags categories the pipeline does not know, or seat categories, and spans past the end."""

    def classify(self, texts):
        return [
            TextVerdict(
                scores={"toxicity": 0.99, "hit_and_run": 0.9, "spam": 0.8},
                spans=(Span(start=0, end=10_000, label="spam"),),
                flagged=("toxicity", "hit_and_run", "spam"),
            )
            for _ in texts
        ]


def test_unknown_and_non_chat_categories_are_skipped_and_bad_spans_dropped() -> None:
    (finding,) = ClassifierDetector(_OddModel()).process(msg("buy chips cheap"))
    assert finding.category == "spam" and finding.rule == "chat.5" and finding.spans == ()


def test_cache_smaller_than_a_batch_still_answers_every_text() -> None:
    cached = CachedClassifier(FakeClassifier(), max_texts=2)
    verdicts = cached.classify(["toxic 1", "ok", "toxic 2", "fine", "meanish"])
    assert [v.flagged for v in verdicts] == [("insult",), (), ("insult",), (), ("insult",)]


class _HandTalkModel:
    """Flags every text as hand talk first, insult second."""

    def classify(self, texts):
        return [
            TextVerdict(scores={"hand_in_play": 0.95, "insult": 0.92}, flagged=("hand_in_play", "insult"))
            for _ in texts
        ]


def test_model_hand_talk_counts_only_while_a_hand_is_running() -> None:
    detector = ClassifierDetector(_HandTalkModel())
    (during,) = detector.process(msg("he had aces", hand_id="h1"))
    (after,) = detector.process(msg("he had aces", hand_id=None))
    assert during.category == "hand_in_play"
    assert after.category == "insult"


def test_prefetch_classifies_a_poll_batch_in_one_call_then_process_hits_the_cache() -> None:
    from pipeline.detectors.chat import build_chat_detectors
    from pipeline.rules import RulesConfig

    model = FakeClassifier()
    detectors = build_chat_detectors(rules=RulesConfig(), classifier=model)
    batch = [msg(f"line {i} toxic" if i % 3 == 0 else f"line {i}", at=i, player_id=f"p{i}") for i in range(30)]
    for detector in detectors:
        prefetch = getattr(detector, "prefetch", None)
        if prefetch is not None:
            prefetch(batch)
    assert model.calls == 1 and model.texts == 30
    flagged = [f for e in batch for d in detectors if d.name == "chat.classifier" for f in d.process(e)]
    assert len(flagged) == 10 and model.calls == 1
