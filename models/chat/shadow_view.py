"""A chat classifier with candidate thresholds that never scores a message itself.

Shadow mode (api/policy/shadow.py) runs `chat.classifier` and the other classifier users with
candidate category thresholds beside the live ones. The expensive part of a verdict is the
analysis and the heads' probabilities, which thresholds do not change; only the last step, the
fusion into flagged categories (`ChatClassifier._verdict_maker`), reads them. So the view is
attached to the live classifier: every batch the live one analyses is handed to the view too,
with the same analysis and probabilities. Most texts' verdicts the candidate thresholds cannot
change (no score near a moved threshold, `_same_checker`): for those the view takes the live
classifier's own verdict parts from its cache instead of fusing again; the others it fuses with
its own thresholds and keeps. The view's own `classify` then finds its verdicts ready; a text it
has not been handed (evicted from the view's cache while still in the live one's) is analysed
again and counted in `rescored`.

A candidate model (policy `shadow.model_version`) has heads of its own, but when its word list is
the live one's its analysis of a text is the live analysis (`ChatClassifier.analyses_like`), and
the analysis is three quarters of scoring a new line (measured on the independent dev lines:
analysis 40.7 us, probabilities 8.5 us, fusion 5.1 us a line). So `ModelView` is handed the live
classifier's analyses too and scores only what its shadow copy asks for with its own heads and
thresholds; a candidate with another word list runs on its own (`candidate_model`).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from models.chat.classifier import (
    _CACHED_CHARS,
    RULE_THRESHOLD,
    SCORED_CATEGORIES,
    ChatClassifier,
    _gc_paused,
    _new_verdict,
)
from pipeline.text_model import TextClassifier, TextVerdict

if TYPE_CHECKING:
    from models.chat.classifier import Analysis, _Parts

PENDING_TEXTS = 4_096
"""Analyses a `ModelView` keeps for texts its shadow copy has not asked for yet: a few batches (on
a share of the room most are never asked for; the dict is emptied when full, like the caches)."""


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
        self._base = live.model
        """The model the twin copies: the live verdict is only ever taken while it is still live's."""
        self._batch: dict[str, _Parts] = {}
        """The verdicts this view fused itself in the live classifier's latest batch (long texts
        are not cached)."""
        self._same: set[str] = set()
        """Texts whose verdict under this view's thresholds is the live one (held in the live
        classifier's cache, which every batch fills right after handing it here)."""
        self._checker: Callable[[Analysis, list[float]], bool] | None = None
        self._checked: tuple[object, ...] = ()
        """`_same_checker` of the live configuration it was made for (model, thresholds, floors,
        cache size)."""
        self.rescored = 0
        """Texts this view had to analyse itself (should stay near 0)."""
        live.views.append(self)

    def receive(
        self, texts: Sequence[str], analyses: Sequence[Analysis], probs: Sequence[list[float]]
    ) -> None:
        """A batch the live classifier has just analysed (and fused with its own thresholds, and is
        about to cache): texts whose verdict the thresholds cannot change are taken from the live
        cache later, the others fused here with this view's thresholds."""
        live = self._live
        key = (
            live.model,
            tuple(live.model.thresholds.items()),
            tuple(live.policy_floors.items()),
            live.cache_size,
        )
        if key != self._checked:  # the live configuration changed (or first batch)
            self._checker, self._checked = _same_checker(live, self._twin, self._base), key
        same = self._checker
        fresh: dict[str, _Parts] = {}
        kept: list[str] = []
        verdict: Callable[[Analysis, list[float]], _Parts] | None = None
        for t, a, p in zip(texts, analyses, probs, strict=True):
            if same is not None and len(t) <= _CACHED_CHARS and same(a, p):
                kept.append(t)
                continue
            if verdict is None:
                verdict = self._twin._verdict_maker()
            fresh[t] = verdict(a, p)
        self._batch = fresh
        self._twin._remember(fresh)
        if kept:
            with self._twin._lock:
                if len(self._same) + len(kept) > self._twin.cache_size:
                    self._same.clear()
                self._same.update(kept)

    def _parts(self, key: str) -> _Parts | None:
        """This view's verdict parts of a text, if it has them (its own, or the live ones)."""
        parts = self._batch.get(key) or self._twin._cache.get(key)
        if parts is None and key in self._same:
            parts = self._live._cache.get(key)
        return parts

    def classify(self, texts: Sequence[str]) -> list[TextVerdict]:
        """Verdicts under the candidate thresholds: the live classifier analyses what neither has."""
        keys = [t if isinstance(t, str) else "" for t in texts]
        missing = [k for k in dict.fromkeys(keys) if self._parts(k) is None]
        if missing:
            self._live.fill(missing)  # the live classifier's misses, handed here
            unseen = [k for k in missing if self._parts(k) is None]
            if unseen:  # in the live cache but not in this view's: analysed once more
                self.rescored += len(unseen)
                self._batch = {
                    **self._batch,
                    **dict(zip(unseen, self._twin._fresh_parts(unseen), strict=True)),
                }
        out: list[TextVerdict] = []
        for k in keys:
            parts = self._parts(k)
            if parts is None:  # emptied by another thread in between
                parts = self._twin._fresh_parts([k])[0]
            scores, spans, language, flagged, automatic = parts
            out.append(_new_verdict(scores.copy(), spans, language, flagged, automatic))
        return out


def _same_checker(
    live: ChatClassifier, twin: ChatClassifier, base: object
) -> Callable[[Analysis, list[float]], bool] | None:
    """A test of one analysed text: True only if the twin's fusion (`_verdict_maker`) gives the
    same verdict parts as the live one's; None if the live verdict cannot be used at all (another
    model, or no live cache). Follows the fusion step by step; each threshold it reads is compared
    with the value it is compared with there (or an upper bound of it), and the text passes only
    if both thresholds give the same answer:

    - the scores are made from the probabilities and the hits alone (hate gate, spam cap, sexual
      from words, rule scores) until the heads are checked: a head's score there is at most its
      probability (the gate and cap only lower it), or its best rule hit's score where rules
      score heads directly (older artifacts);
    - a head is past its review point (`scores[c] >= limit`, on both paths): the same answer if
      that bound is under both thresholds, or the thresholds are equal;
    - the word-backed insult (listed words only) reads the toxic probability, the toxic review
      point and the insult floor: both answers computed exactly;
    - a head's own pattern hit reads the category's floor: both answers computed exactly for every
      rule hit (the best one per category is among them);
    - a category without a head is flagged by its final score, which is 0, a rule hit's score or
      at most the toxic probability (sexual from words, 0.9 x toxic): the same bound test;
    - the plain path (no hits) is taken by both only if both have it (`heads_only`); a text with
      hits takes the full path in both.
    Everything else (spans, language, automatic points, the order of flags) depends on these
    answers and the scores only, so equal answers give equal parts (tests/models/test_shadow_view.py
    compares the two fusions on random texts and thresholds)."""
    if live.model is not base or live.cache_size <= 0 or live.categories != twin.categories:
        return None
    columns = live.categories
    heads = frozenset(columns)
    live_limits = {c: live.model.thresholds.get(c, RULE_THRESHOLD) for c in SCORED_CATEGORIES}
    twin_limits = {c: twin.model.thresholds.get(c, RULE_THRESHOLD) for c in SCORED_CATEGORIES}
    live_plain = all(live_limits[c] > 0.0 for c in SCORED_CATEGORIES if c not in heads)
    twin_plain = all(twin_limits[c] > 0.0 for c in SCORED_CATEGORIES if c not in heads)
    column = {c: j for j, c in enumerate(columns)}  # the last column of a name is its score
    head_cuts = tuple(
        (c, column[c], min(live_limits[c], twin_limits[c]))
        for c in column
        if c in live_limits and live_limits[c] != twin_limits[c]
    )
    other_cuts = tuple(
        (c, min(live_limits[c], twin_limits[c]))
        for c in SCORED_CATEGORIES
        if c not in heads and live_limits[c] != twin_limits[c]
    )
    own_insult = "toxic" in heads and "insult" in heads
    gate = column.get("toxic" if "toxic" in heads else "insult")
    live_backed = live.model.thresholds.get("toxic", math.inf) if own_insult else math.inf
    twin_backed = twin.model.thresholds.get("toxic", math.inf) if own_insult else math.inf
    live_floors, twin_floors = dict(live.policy_floors), dict(twin.policy_floors)
    live_insult, twin_insult = live_floors.get("insult", 0.0), twin_floors.get("insult", 0.0)
    moved_floors = {
        c
        for c in live_floors.keys() | twin_floors.keys()
        if live_floors.get(c, 0.0) != twin_floors.get(c, 0.0)
    }
    backed_same = live_backed == twin_backed and live_insult == twin_insult
    plain_cuts = tuple((j, cut) for _, j, cut in head_cuts)

    def same(analysis: Analysis, probs: list[float]) -> bool:
        lexicon_hits, rule_hits = analysis.lexicon_hits, analysis.rule_hits
        if not lexicon_hits and not rule_hits:
            if live_plain and twin_plain:
                return all(probs[j] < cut for j, cut in plain_cuts)  # (False for NaN too)
            if live_plain or twin_plain:
                return False
        best: dict[str, float] = {}
        for rh in rule_hits:
            c = rh.category
            if rh.score > best.get(c, 0.0):
                best[c] = rh.score
            moved = c in moved_floors and rh.score >= RULE_THRESHOLD
            if moved and (rh.score >= live_floors.get(c, 0.0)) != (rh.score >= twin_floors.get(c, 0.0)):
                return False
        toxic = probs[gate] if gate is not None else 0.0
        if lexicon_hits and not backed_same:
            backed = (
                toxic >= live_backed and toxic >= live_insult,
                toxic >= twin_backed and toxic >= twin_insult,
            )
            if backed[0] != backed[1]:
                return False
        for c, j, cut in head_cuts:
            if not max(probs[j], best.get(c, 0.0)) < cut:
                return False
        words = toxic if lexicon_hits else 0.0
        return all(max(best.get(c, 0.0), words, 0.0) < cut for c, cut in other_cuts)

    return same


def candidate_classifier(
    live: TextClassifier, *, live_thresholds: Mapping[str, float], candidate: Mapping[str, float]
) -> TextClassifier:
    """The classifier shadow copies use: the live one when the candidate thresholds are the live
    ones (its verdict cache serves both), else a `ThresholdView` of it. A classifier that is no
    `ChatClassifier` (a test double) has no thresholds to change: it is returned as it is."""
    if dict(candidate) == dict(live_thresholds) or not isinstance(live, ChatClassifier):
        return live
    return ThresholdView(live, candidate)


class ModelView:
    """A candidate model scoring the live classifier's analyses (a `TextClassifier`)."""

    def __init__(self, live: ChatClassifier, candidate: ChatClassifier, *, pending: int = PENDING_TEXTS) -> None:
        """`candidate`: the candidate model's classifier, with its thresholds; `ValueError` when it
        does not analyse texts as the live one does (`candidate_model` then runs it alone)."""
        if not live.analyses_like(candidate):
            raise ValueError("the candidate model analyses texts differently (another word list): score it alone")
        self._live = live
        self._candidate = candidate
        self._pending: dict[str, Analysis] = {}
        self._limit = pending
        self.rescored = 0
        """Texts analysed again because their live analysis was no longer held (should stay near 0)."""
        live.views.append(self)

    def receive(
        self, texts: Sequence[str], analyses: Sequence[Analysis], probs: Sequence[list[float]]
    ) -> None:
        """A batch the live classifier has just analysed: kept until the shadow copy asks, since
        on a share of the room most texts are never asked for and scoring them would be waste."""
        pending, limit = self._pending, self._limit
        if len(pending) + len(texts) > limit:
            pending.clear()
        start = max(0, len(texts) - limit)  # a batch over the limit: its last texts
        pending.update(zip(texts[start:], analyses[start:], strict=True))

    def classify(self, texts: Sequence[str]) -> list[TextVerdict]:
        """The candidate's verdicts: texts it has not scored get the live analysis (the live
        classifier analyses those it has not seen, and hands them here), then its own heads."""
        candidate = self._candidate
        keys = [t if isinstance(t, str) else "" for t in texts]
        missing = [k for k in dict.fromkeys(keys) if k not in candidate._cache]
        fresh: dict[str, _Parts] = {}
        if missing:
            self._live.fill(missing)
            pending = self._pending
            ready = {k: a for k in missing if (a := pending.pop(k, None)) is not None}
            with _gc_paused():
                if ready:
                    fresh = candidate.fuse(list(ready), list(ready.values()))
                del ready
                unseen = [k for k in missing if k not in fresh]
                if unseen:  # in the live cache, but their analyses no longer held here
                    self.rescored += len(unseen)
                    fresh.update(zip(unseen, candidate._fresh_parts(unseen), strict=True))
            candidate._remember(fresh)
        out: list[TextVerdict] = []
        for k in keys:
            parts = fresh.get(k) or candidate._cache.get(k)
            if parts is None:  # emptied by another thread in between
                parts = candidate._fresh_parts([k])[0]
            scores, spans, language, flagged, automatic = parts
            out.append(_new_verdict(scores.copy(), spans, language, flagged, automatic))
        return out


def candidate_model(live: TextClassifier, candidate: TextClassifier) -> TextClassifier:
    """The classifier shadow copies of a candidate model use: a `ModelView` on the live analyses
    where it can be one, else the candidate scoring every text itself."""
    if isinstance(live, ChatClassifier) and isinstance(candidate, ChatClassifier) and live.analyses_like(candidate):
        return ModelView(live, candidate)
    return candidate
