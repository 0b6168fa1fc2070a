"""The chat path's per-text memos are invisible: a detector finds the same with or without the others.

The chat detectors share work on each line (folding, word-list matches, shout measures, the
classifier's verdict) through memos keyed by text, filled by whichever detector asks first; the
place-keyed ones ask `lateness` after the per-player ones. Each detector run alone, on a fresh build
with the memos emptied, must report exactly what it reports beside all the others on a simulated
room's traffic: same findings, ids, spans, evidence and order. The offence ledger's counts
(`prior_offences`, and the actions policy derives from them) are left out: they are meant to
depend on the other detectors; `chat.repeat_offender` is nothing but them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import pytest

from pipeline.contracts import Event
from pipeline.detector import Detector
from pipeline.detectors.chat import build_chat_detectors, shouting, text
from pipeline.findings import Finding, Span
from pipeline.rules import RulesConfig
from pipeline.runner import Pipeline
from pipeline.text_model import TextClassifier, TextVerdict
from simulator import demo_traffic

LEDGER_KEYS = ("prior_offences", "prior_same_category")


class KeywordClassifier:
    """A deterministic stand-in for the model that flags a few categories the room's lines hold,
    so the fused paths (classifier, collusion parties, harassment) take part."""

    KEYWORDS = (("chop", "collusion_talk", 0.9), ("soft", "collusion_talk", 0.85), ("fold", "hand_in_play", 0.8),
                ("call", "hand_in_play", 0.7), ("idiot", "insult", 0.95), ("fish", "insult", 0.6))

    def classify(self, texts: Sequence[str]) -> list[TextVerdict]:
        return [self._one(t) for t in texts]

    def _one(self, line: str) -> TextVerdict:
        lowered = line.lower()
        hits = [(c, s, lowered.find(k), len(k)) for k, c, s in self.KEYWORDS if k in lowered]
        if not hits:
            return TextVerdict(scores={"insult": 0.01}, language="en")
        scores = {c: s for c, s, _, _ in reversed(hits)}
        spans = tuple(Span(start=at, end=at + n, label=c) for c, _, at, n in hits)
        flagged = tuple(sorted(scores, key=lambda c: -scores[c]))
        return TextVerdict(scores=scores, spans=spans, language="en", flagged=flagged)


@cache
def room() -> tuple[tuple[str, Event], ...]:
    return tuple(demo_traffic(seed=5, minutes=15, players=80))


def _classifier(kind: str) -> TextClassifier | None:
    return KeywordClassifier() if kind == "keywords" else None


def _forget_memos() -> None:
    text.fold.cache_clear()
    text._fold_mapped_plain.cache_clear()
    text._fold_mapped_leet.cache_clear()
    shouting._loudness.cache_clear()


def _comparable(finding: Finding) -> dict[str, Any]:
    dumped = finding.model_dump(mode="json", exclude={"actions"})
    dumped["evidence"] = {k: v for k, v in dumped["evidence"].items() if k not in LEDGER_KEYS}
    return dumped


def _findings(detectors: list[Detector]) -> dict[str, list[dict[str, Any]]]:
    pipeline = Pipeline({d.name: d for d in detectors}, rules=RulesConfig())
    out: dict[str, list[dict[str, Any]]] = {}
    for topic, event in room():
        for finding in pipeline.process(topic, event).findings:
            out.setdefault(finding.detector, []).append(_comparable(finding))
    for finding in pipeline.flush().findings:
        out.setdefault(finding.detector, []).append(_comparable(finding))
    return out


@pytest.mark.parametrize("kind", ["none", "keywords"])
def test_each_chat_detector_alone_finds_what_it_finds_beside_the_others(kind: str) -> None:
    _forget_memos()
    together = _findings(build_chat_detectors(rules=RulesConfig(), classifier=_classifier(kind)))
    # The room exercises the shared paths: word lists, floods, hand talk, harassment, nicknames.
    assert {"chat.banned_words", "chat.flooding", "chat.hand_in_play", "nickname.offensive"} <= set(together)
    names = [d.name for d in build_chat_detectors(rules=RulesConfig()) if d.name != "chat.repeat_offender"]
    for name in names:
        _forget_memos()
        fresh = build_chat_detectors(rules=RulesConfig(), classifier=_classifier(kind))
        alone = _findings([d for d in fresh if d.name == name])
        assert alone.get(name, []) == together.get(name, []), name
