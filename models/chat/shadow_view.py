"""A chat classifier with candidate thresholds that never scores a message itself.

Shadow mode (api/policy/shadow.py) runs `chat.classifier` and the other classifier users with
candidate category thresholds beside the live ones. The expensive part of a verdict is the
analysis and the heads' probabilities, which thresholds do not change; only the last step, the
fusion into flagged categories (`ChatClassifier._verdict_maker`), reads them. So the view is
attached to the live classifier: every batch the live one analyses, the view fuses too, with its
own thresholds, from the same analysis and probabilities, and keeps the result. The view's own
`classify` then finds its verdicts ready; a text it has not been handed (evicted from the view's
cache while still in the live one's) is analysed again and counted in `rescored`.
"""

from __future__ import annotations

import copy
import dataclasses
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pipeline.text_model import TextClassifier, TextVerdict

if TYPE_CHECKING:
    from models.chat.classifier import Analysis, ChatClassifier, _Parts


class ThresholdView:
    """The live classifier's analysis with other thresholds (a `TextClassifier`)."""

    def __init__(self, live: ChatClassifier, thresholds: Mapping[str, float]) -> None:
        """`thresholds`: the candidate's whole override map (over the model's own review points),
        which is also the policy floor for pattern and word-backed flags, as the live wiring does."""
        twin = copy.copy(live)
        twin.model = dataclasses.replace(live.model, thresholds={**live.model.thresholds, **thresholds})
        twin.policy_floors = dict(thresholds)
        twin._cache = {}
        twin._lock = threading.Lock()
        twin.views = []
        self._twin = twin
        self._live = live
        self._batch: dict[str, _Parts] = {}
        """The verdicts of the live classifier's latest batch (long texts are not cached)."""
        self.rescored = 0
        """Texts this view had to analyse itself (should stay near 0)."""
        live.views.append(self)

    def receive(self, texts: Sequence[str], analyses: Sequence[Analysis], probs: Sequence[list[float]]) -> None:
        """Fuse a batch the live classifier has just analysed, with this view's thresholds."""
        verdict = self._twin._verdict_maker()
        fresh = {t: verdict(a, p) for t, a, p in zip(texts, analyses, probs, strict=True)}
        self._batch = fresh
        self._twin._remember(fresh)

    def classify(self, texts: Sequence[str]) -> list[TextVerdict]:
        """Verdicts under the candidate thresholds: the live classifier analyses what neither has."""
        from models.chat.classifier import _new_verdict

        keys = [t if isinstance(t, str) else "" for t in texts]
        missing = [k for k in dict.fromkeys(keys) if k not in self._twin._cache and k not in self._batch]
        if missing:
            self._live.classify(missing)  # analyses the live classifier's misses, hands them here
            unseen = [k for k in missing if k not in self._twin._cache and k not in self._batch]
            if unseen:  # in the live cache but not in this view's: analysed once more
                self.rescored += len(unseen)
                self._batch = {**self._batch, **dict(zip(unseen, self._twin._fresh_parts(unseen), strict=True))}
        out: list[TextVerdict] = []
        for k in keys:
            parts = self._batch.get(k) or self._twin._cache.get(k)
            if parts is None:  # emptied by another thread in between
                parts = self._twin._fresh_parts([k])[0]
            scores, spans, language, flagged, automatic = parts
            out.append(_new_verdict(scores.copy(), spans, language, flagged, automatic))
        return out


def candidate_classifier(
    live: TextClassifier, *, live_thresholds: Mapping[str, float], candidate: Mapping[str, float]
) -> TextClassifier:
    """The classifier shadow copies use: the live one when the candidate thresholds are the live
    ones (its verdict cache serves both), else a `ThresholdView` of it. A classifier that is no
    `ChatClassifier` (a test double) has no thresholds to change: it is returned as it is."""
    from models.chat.classifier import ChatClassifier

    if dict(candidate) == dict(live_thresholds) or not isinstance(live, ChatClassifier):
        return live
    return ThresholdView(live, candidate)
