"""A candidate chat model against a baseline (the promoted or shipped one) on every standard
evaluation set, for the registry's promotion page (`railbird models compare`).

Sets, each scored by ROC-AUC and by precision/recall at the review and automatic-action points:
- `public:*`: the public sets' test parts the model card reports (`evaluate.model_card_report`),
  rows found in the shipped model's training data left out the same way;
- `independent_dev:<lang>` (any offence vs clean) and `independent_dev:<category>` (that category vs
  every other line, all languages): the independent DEV files only. The held-out `report` folder is
  never read here: a promotion decision is a choice, and choices are made on dev;
- `decisions:<category>` and `decisions:all`: the most recent share of analysts' decisions
  (`GET /v1/labels/export` JSON lines), a time split: decisions about findings of a category,
  confirmed (that category) vs dismissed (`clean`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.metrics import roc_auc_score

from models.chat.data import EVAL_LOADERS, PUBLIC_TESTS, target_of
from models.chat.overlap import SeenTexts
from pipeline.categories import MODEL_SCORED
from pipeline.text_model import TextClassifier, TextVerdict

INDEPENDENT_DEV = Path(__file__).resolve().parent / "evalsets" / "independent" / "dev"
TOXIC_FAMILY = ("insult", "hate", "threat", "sexual")
RECENT_SHARE = 0.2
"""Share of the decisions, newest first, that form the time split's test part."""


@dataclass(frozen=True, slots=True)
class EvalSet:
    """Texts with 0/1 labels and the categories whose best score ranks them ("toxic": the public
    sets' offensive-or-not head where the model has one, else the toxic family)."""

    name: str
    texts: list[str]
    labels: list[int]
    categories: tuple[str, ...]
    per_row: tuple[str, ...] = ()
    """When given: row i is ranked by category per_row[i] alone (pooled decisions)."""


class DecisionsError(ValueError):
    """A decisions file that cannot be used, with the line at fault."""


def public_sets(datasets_dir: Path, seen: SeenTexts | None) -> list[EvalSet]:
    """The public test sets that are on this machine (a missing one is skipped, not an error)."""
    out: list[EvalSet] = []
    for name, (source, category, split) in PUBLIC_TESTS.items():
        try:
            samples = [s for s in EVAL_LOADERS[source](datasets_dir) if split is None or s.split == split]
        except (OSError, ValueError, KeyError):
            continue
        kept = [s for s in samples if seen is None or s.text not in seen]
        labels = [target_of(s, category) for s in kept]
        out.append(EvalSet(f"public:{name}", [s.text for s in kept], labels,
                           ("toxic",) if category == "toxic" else (category,)))
    return out


def independent_dev_sets(root: Path = INDEPENDENT_DEV) -> list[EvalSet]:
    """Per language (offence vs clean) and per model-scored category (vs every other line)."""
    from models.chat.independent import CLEAN, read_set

    lines = read_set(root)
    out = [EvalSet(f"independent_dev:{lang}", [ln.text for ln in lines if ln.lang == lang],
                   [int(ln.label != CLEAN) for ln in lines if ln.lang == lang], MODEL_SCORED)
           for lang in sorted({ln.lang for ln in lines})]
    for category in MODEL_SCORED:
        if any(ln.label == category for ln in lines):
            out.append(EvalSet(f"independent_dev:{category}", [ln.text for ln in lines],
                               [int(ln.label == category) for ln in lines], (category,)))
    return out


def read_decisions(path: Path) -> list[dict[str, Any]]:
    """The trainable rows of a labels export (JSON lines); DecisionsError names the bad line."""
    rows: list[dict[str, Any]] = []
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DecisionsError(f"{path}: cannot read ({exc})") from None
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            decided = datetime.fromisoformat(row["provenance"]["decided_at"])
            text, category, finding_category = str(row["text"]), str(row["category"]), \
                str(row["provenance"]["finding_category"])
        except (ValueError, KeyError, TypeError) as exc:
            raise DecisionsError(f"{path}:{number}: not a labels export line ({type(exc).__name__}: {exc})") from None
        if row.get("train", True) and text.strip():
            rows.append({"text": text, "category": category, "finding_category": finding_category,
                         "decided_at": decided})
    return rows


def decision_sets(rows: Sequence[dict[str, Any]], share: float = RECENT_SHARE) -> tuple[list[EvalSet], str | None]:
    """The newest `share` of the decisions, per finding category and pooled; and the cutoff time
    (train on decisions before it for a fair comparison)."""
    ordered = sorted(rows, key=lambda r: r["decided_at"])
    recent = ordered[len(ordered) - max(1, math.ceil(len(ordered) * share)):] if ordered else []
    if not recent:
        return [], None
    out: list[EvalSet] = []
    for category in MODEL_SCORED:
        mine = [r for r in recent if r["finding_category"] == category]
        if mine:
            out.append(EvalSet(f"decisions:{category}", [r["text"] for r in mine],
                               [int(r["category"] == category) for r in mine], (category,)))
    scored = [r for r in recent if r["finding_category"] in MODEL_SCORED]
    if scored:
        # Pooled: each decision ranked by its own finding's category score (one set per category
        # row above; this one says whether the candidate is better on the decisions overall).
        out.append(EvalSet("decisions:all", [r["text"] for r in scored], [int(r["category"] != "clean") for r in scored],
                           MODEL_SCORED, tuple(r["finding_category"] for r in scored)))
    return out, recent[0]["decided_at"].isoformat()


def measure(classifier: TextClassifier, sets: Iterable[EvalSet]) -> dict[str, dict[str, Any]]:
    """ROC-AUC and precision/recall at both operating points, per set."""
    return {s.name: figures(s, classifier.classify(s.texts)) for s in sets}


def figures(s: EvalSet, verdicts: Sequence[TextVerdict]) -> dict[str, Any]:
    """One set's figures from its verdicts."""
    scores, review, auto = [], [], []
    for i, v in enumerate(verdicts):
        ranked, cats = _categories(s, i, v)
        scores.append(max(float(v.scores.get(c, 0.0)) for c in ranked))
        review.append(any(c in v.flagged for c in cats))
        auto.append(any(c in (v.automatic or ()) for c in cats))
    y = np.asarray(s.labels)
    out: dict[str, Any] = {"n": len(y), "positives": int(y.sum())}
    out["roc_auc"] = round(float(roc_auc_score(y, scores)), 4) if 0 < y.sum() < len(y) else None
    out["review"] = _at_point(y, review)
    out["automatic"] = _at_point(y, auto)
    return out


def _categories(s: EvalSet, index: int, verdict: TextVerdict) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(scores that rank the row, categories whose flag counts), as `evaluate.category_scores`: a
    toxic set ranks by the `toxic` head (and hate, threat, sexual) and counts flags of the toxic
    family, since `toxic` is a score, never a flagged category."""
    if s.per_row:
        return (s.per_row[index],), (s.per_row[index],)
    if s.categories == ("toxic",):
        return (("toxic", *TOXIC_FAMILY[1:]) if "toxic" in verdict.scores else TOXIC_FAMILY), TOXIC_FAMILY
    return s.categories, s.categories


def _at_point(y: np.ndarray, flags: Sequence[bool]) -> dict[str, float | None]:
    f = np.asarray(flags, dtype=bool)
    hits = int((f & (y == 1)).sum())
    return {"precision": round(hits / int(f.sum()), 4) if f.sum() else None,
            "recall": round(hits / int(y.sum()), 4) if y.sum() else None}


def compare(candidate: TextClassifier, baseline: TextClassifier, sets: Sequence[EvalSet], *,
            candidate_id: dict[str, Any], baseline_id: dict[str, Any], notes: dict[str, Any] | None = None,
            tolerance: float = 0.01) -> dict[str, Any]:
    """The comparison document the registry stores: both models' figures per set, the ROC-AUC
    delta, and the sets where the candidate loses more than `tolerance`."""
    cand, base = measure(candidate, sets), measure(baseline, sets)
    out: dict[str, Any] = {"candidate": candidate_id, "baseline": baseline_id, "tolerance": tolerance,
                           "sets": {}, **(notes or {})}
    for name in cand:
        c, b = cand[name], base[name]
        delta = None if c["roc_auc"] is None or b["roc_auc"] is None else round(c["roc_auc"] - b["roc_auc"], 4)
        out["sets"][name] = {"n": c["n"], "positives": c["positives"], "candidate": c, "baseline": b,
                             "delta_roc_auc": delta}
    out["regressions"] = sorted(n for n, f in out["sets"].items()
                                if f["delta_roc_auc"] is not None and f["delta_roc_auc"] < -tolerance - 1e-9)
    return out
