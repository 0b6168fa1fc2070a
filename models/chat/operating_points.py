"""Two operating points per chat category, chosen on the independent DEV set (never on `report/`).

- **Review point** (`ChatModel.thresholds`): as low as the clean lines allow. The constraint is the
  issue's: per language, at most `max_clean_rate` of the clean lines get any category flagged.
  Thresholds are lowered greedily, one category at a time, to the score of the next line of that
  category's house rule not yet found, always taking the move that finds the most such lines
  and keeps every language within its clean budget.
- **Automatic-action point** (`ChatModel.auto_thresholds`): the lowest score at or above the
  review point from which every higher slice of the dev lines scored past it is at least
  `min_precision` right (the line breaks the category's house rule; for hate and sexual, which
  past this point need no span to tell them from an insult, the line is of that category), with at least
  `min_support` lines past it. Categories that never reach it get no automatic point.

Dev lines are also what errors are read from, so these figures are optimistic on dev; the
held-out `report/` set is what tells (model card).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from models.chat.artifact import ChatModel
from models.chat.classifier import (
    ADVERTISED,
    HATE_GATE,
    RULE_THRESHOLD,
    STAT_ONLY_SPAM,
    UNSURE_SPAM,
    ChatClassifier,
)
from pipeline.categories import MODEL_SCORED, rule_of
from pipeline.detectors.chat.fusion import NAMED_BY_EVIDENCE

CLEAN = "clean"


@dataclass(frozen=True, slots=True)
class PointTargets:
    """What the operating points must reach on the dev lines."""

    max_clean_rate: float = 0.01
    min_precision: float = 0.98
    min_support: int = 10
    floor: float = 0.5
    """No review point below this: a review point tuned on a few hundred dev lines went as low
    as 0.15-0.22 for spam and hate, and then flagged short table talk the dev set happens not to
    hold ("only 20 left", "треба кави"); below even odds the head is not saying "offence"."""
    auto_floor: float = 0.5


GUARD_LINES: tuple[tuple[str, str], ...] = (
    ("I hate rivers", "hate"),
    ("I hate this site", "hate"),
    ("butuh kopi", "criminal"),
    ("cần cà phê", "criminal"),
    ("anyone watching football?", "criminal"),
    ("jam berapa di sana?", "personal_info"),
)
"""The team's own regression lines (never evaluation text) that a category's review point must
leave alone: everyday talk the heads of a retrained model scored past a dev-chosen point ("I hate
rivers" 0.62 as hate, "butuh kopi" 0.83 as criminal, 2 Dec). The dev set holds no such line, so
the chooser alone cannot see them; before this list the points were raised by hand after
training, which a retrain did not reproduce. A guarded point is the guard's score + 0.0001
(model card, "operating points")."""


@dataclass(frozen=True, slots=True)
class DevLine:
    """A dev line as the chooser needs it."""

    lang: str
    label: str
    text: str


def score_matrix(classifier: ChatClassifier, lines: Sequence[DevLine]) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Head probabilities of every `MODEL_SCORED` category (columns) per line (rows), as the
    verdict uses them (hate gated by the toxic head), and which categories a pattern flags on its
    own (rule score >= `RULE_THRESHOLD`): those flags stand whatever the review point."""
    analyses = classifier.analyzer.analyze_many([ln.text for ln in lines])
    probs = classifier.head_probabilities(analyses).astype(np.float64)
    columns = {c: j for j, c in enumerate(classifier.categories)}
    heads = np.zeros((len(lines), len(MODEL_SCORED)))
    for j, category in enumerate(MODEL_SCORED):
        if category in columns:
            heads[:, j] = probs[:, columns[category]]
    # The same adjustments as the verdict's (classifier.py `_verdict_maker`; a test compares).
    own_insult = "toxic" in columns and "insult" in columns
    toxic = probs[:, columns.get("toxic", columns.get("insult", 0))]
    hate, spam, insult = (MODEL_SCORED.index(c) for c in ("hate", "spam", "insult"))
    if not own_insult:
        heads[:, hate] = np.minimum(heads[:, hate], toxic / HATE_GATE)
    word_backed = classifier.model.thresholds.get("toxic", math.inf) if own_insult else math.inf
    ruled = np.zeros((len(lines), len(MODEL_SCORED)), dtype=bool)
    for i, analysis in enumerate(analyses):
        advertised = False
        for hit in analysis.rule_hits:
            advertised |= hit.category in ADVERTISED
            if hit.category in MODEL_SCORED and hit.score >= RULE_THRESHOLD:
                ruled[i, MODEL_SCORED.index(hit.category)] = True
        if own_insult and not advertised and heads[i, spam] < STAT_ONLY_SPAM:
            heads[i, spam] = min(heads[i, spam], UNSURE_SPAM)
        if analysis.lexicon_hits and toxic[i] >= word_backed:
            ruled[i, insult] = True
            heads[i, insult] = max(heads[i, insult], toxic[i])  # the verdict's word-backed insult score
    return heads, ruled


def review_points(
    scores: NDArray[np.float64],
    lines: Sequence[DevLine],
    targets: PointTargets,
    ruled: NDArray[np.bool_] | None = None,
) -> dict[str, float]:
    """Greedy review thresholds under the per-language clean budget (module docstring); `ruled`:
    categories patterns flag regardless (they count against the budget from the start)."""
    langs = sorted({ln.lang for ln in lines})
    clean = np.array([ln.label == CLEAN for ln in lines])
    lang_of = np.array([langs.index(ln.lang) for ln in lines])
    budget = np.array([math.floor(targets.max_clean_rate * np.sum(clean & (lang_of == k))) for k in range(len(langs))])
    rules = np.array([rule_of(ln.label) if ln.label != CLEAN else "" for ln in lines])
    cat_rules = [rule_of(c) for c in MODEL_SCORED]
    limits = np.full(len(MODEL_SCORED), np.inf)
    base = ruled if ruled is not None else np.zeros(scores.shape, dtype=bool)
    flagged = base.any(axis=1)
    found = np.zeros(len(lines), dtype=bool)
    for j, rule in enumerate(cat_rules):
        found |= base[:, j] & (rules == rule)
    # Where the patterns alone exceed a language's budget, the heads may add no clean line there.
    allowed = np.maximum(budget, np.bincount(lang_of[clean & flagged], minlength=len(langs)))
    while True:
        best: tuple[int, int, int, float] | None = None  # (gain, -cost, column, threshold)
        for j, rule in enumerate(cat_rules):
            waiting = (rules == rule) & ~found & (scores[:, j] < limits[j]) & (scores[:, j] >= targets.floor)
            if not waiting.any():
                continue
            t = float(scores[waiting, j].max())
            past = scores[:, j] >= t
            new_flags = flagged | past
            per_lang = np.bincount(lang_of[clean & new_flags], minlength=len(langs))
            if np.any(per_lang > allowed):
                continue
            gain = int(np.sum(past & (rules == rule) & ~found))
            cost = int(np.sum(new_flags & clean)) - int(np.sum(flagged & clean))
            move = (gain, -cost, j, t)
            if best is None or move[:2] > best[:2]:
                best = move
        if best is None:
            break
        _, _, j, t = best
        limits[j] = t
        past = scores[:, j] >= t
        flagged |= past
        found |= past & (rules == cat_rules[j])
    # A category never lowered keeps a point no dev line reaches (1.0: only certainty flags).
    return {c: round(float(min(limits[j], 1.0)), 4) for j, c in enumerate(MODEL_SCORED)}


def automatic_points(
    scores: NDArray[np.float64], lines: Sequence[DevLine], review: dict[str, float], targets: PointTargets
) -> dict[str, float]:
    """Per category the lowest threshold whose every upper slice is `min_precision` right."""
    rules = [rule_of(ln.label) if ln.label != CLEAN else "" for ln in lines]
    labels = [ln.label for ln in lines]
    out: dict[str, float] = {}
    for j, category in enumerate(MODEL_SCORED):
        if category in NAMED_BY_EVIDENCE:
            # Past its automatic point hate (or sexual) stands without the span that tells it
            # from an insult (fusion), so there the line must be of the category itself: an
            # insult scored as hate is right by rule (chat.3) but mislabels the case and its
            # sanction ("fuck you" muted as hate).
            right = np.array([label == category for label in labels])
        else:
            right = np.array([r == rule_of(category) for r in rules])
        order = np.argsort(-scores[:, j], kind="stable")
        ranked, correct = scores[order, j], right[order]
        hits = np.cumsum(correct)
        precision = hits / np.arange(1, len(ranked) + 1)
        # The lowest cut whose every prefix (higher slice) is precise enough.
        ok = np.minimum.accumulate(precision) >= targets.min_precision
        lowest = max(review.get(category, 1.0), targets.auto_floor)
        usable = [k for k in range(len(ranked)) if ok[k] and ranked[k] >= lowest and k + 1 >= targets.min_support]
        # Lines tied with the cut's score are all past it: the cut must be precise with them.
        usable = [k for k in usable if k + 1 == len(ranked) or ranked[k + 1] < ranked[k]]
        if usable:
            out[category] = round(float(ranked[max(usable)]), 4)
    return out


def read_dev(path: Path) -> list[DevLine]:
    """The dev lines (a TSV file or a folder of them; `independent.read_set`)."""
    from models.chat.independent import read_set

    return [DevLine(ln.lang, ln.label, ln.text) for ln in read_set(path)]


def on_dev(model: ChatModel, dev: Path, targets: PointTargets | None = None) -> ChatModel:
    """`with_operating_points` on the dev set at `dev`, scored by a classifier of `model`."""
    return with_operating_points(model, ChatClassifier(model, cache_size=0), read_dev(dev), targets)


def with_operating_points(
    model: ChatModel, classifier: ChatClassifier, lines: Sequence[DevLine], targets: PointTargets | None = None
) -> ChatModel:
    """The model with both points of every scored category chosen on the dev lines; categories
    without a head keep their thresholds. The classifier must wrap `model` (scores don't depend
    on thresholds)."""
    goals = targets or PointTargets()
    scores, ruled = score_matrix(classifier, lines)
    review = guarded(review_points(scores, lines, goals, ruled), classifier, GUARD_LINES)
    automatic = automatic_points(scores, lines, review, goals)
    return dataclasses.replace(
        model, thresholds={**model.thresholds, **review}, auto_thresholds=automatic
    )


def guarded(review: dict[str, float], classifier: ChatClassifier, guards: Sequence[tuple[str, str]]) -> dict[str, float]:
    """The review points raised just above every guard line's score in its category (see
    `GUARD_LINES`); the automatic points are then chosen at or above these."""
    if not guards:
        return review
    heads, _ = score_matrix(classifier, [DevLine("", CLEAN, text) for text, _ in guards])
    out = dict(review)
    for row, (_, category) in enumerate(guards):
        score = float(heads[row, MODEL_SCORED.index(category)])
        if out.get(category, 1.0) <= score:
            out[category] = round(min(score + 0.0001, 1.0), 4)
    return out

