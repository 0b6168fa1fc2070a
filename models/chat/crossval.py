"""Out-of-fold figures of the category heads on the authored corpus, grouped by writer.

`python -m models.chat.crossval [--datasets PATH] [--public N]`: each authored file (one writer,
one language) is held out in turn; the heads are trained as `training.train` trains them on the
rest (the other writers' lines, the team's corpus lines and the public sets' rows, of which `N` are
sampled to keep the run to minutes) and score the held-out writer's lines. Per category: ROC-AUC
and recall at the review point a clean budget of 1 % of that writer's clean lines allows, for

- `rules`: the best pattern score of the category alone (what the system had before),
- `ngrams`: the head without the rule-score features,
- `ngrams+rules`: the head as shipped.

The `toxic` row is the public sets' head scored against the writer's insult lines.

A writer held out is a language held out too, so this is the harder, cross-lingual figure; the
in-language figure is the dev set's (model card).
"""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.metrics import roc_auc_score

from models.chat.artifact import HEADS
from models.chat.classifier import N_LEX_FEATURES, Analyzer, rule_features
from models.chat.data import Sample
from models.chat.features import NgramHasher, build_token_table
from models.chat.lexicon import Lexicon, build_terms
from models.chat.normalize import Normalizer
from models.chat.rules import RULE_CATEGORIES
from models.chat.training import (
    BARE_WORDS,
    SOURCE_WEIGHTS,
    TrainConfig,
    chunks_by_language,
    design_matrix,
    fit_rows,
    head_rows,
    target,
    training_pool,
    with_authored_terms,
)

log = logging.getLogger(__name__)
VARIANTS = ("rules", "ngrams", "ngrams+rules")


def _sampled_pool(datasets_dir: Path, public: int, seed: int) -> list[Sample]:
    pool = training_pool(datasets_dir)
    authored = [s for s in pool if s.source == "authored"]
    others = [s for s in pool if s.source != "authored"]
    rng = np.random.default_rng(seed)
    keep = rng.choice(len(others), size=min(public, len(others)), replace=False)
    return authored + [others[i] for i in sorted(keep.tolist())]


def recall_at_budget(scores: NDArray[np.float64], positive: NDArray[np.bool_], clean: NDArray[np.bool_]) -> float:
    """Recall at the lowest threshold that flags at most 1 % of the clean lines (floor)."""
    allowed = int(np.floor(0.01 * clean.sum()))
    clean_scores = np.sort(scores[clean])[::-1]
    # Strictly above the (allowed+1)-th highest clean score: at most `allowed` clean lines pass.
    cut = clean_scores[allowed] if allowed < len(clean_scores) else -np.inf
    return float(np.mean(scores[positive] > cut)) if positive.any() else float("nan")


def run(datasets_dir: Path, *, public: int = 10_000, seed: int = 42) -> dict[str, object]:
    cfg = TrainConfig(seed=seed)
    normalizer = Normalizer()
    terms = with_authored_terms(build_terms(datasets_dir / "wordlists", normalizer=normalizer), normalizer)
    analyzer = Analyzer(lexicon=Lexicon(terms))
    pool = _sampled_pool(datasets_dir, public, seed)
    analyses = analyzer.analyze_many([s.text for s in pool])
    hasher = NgramHasher(n_features=cfg.n_features, char_range=cfg.char_range, word_ngrams=cfg.word_ngrams)
    bare = NgramHasher(n_features=cfg.n_features, char_range=BARE_WORDS, word_ngrams=1)
    tables = build_token_table(chunks_by_language(analyses))
    x = design_matrix(hasher, bare, analyses, tables)
    rule_cols = 2 * cfg.n_features + N_LEX_FEATURES
    x_plain = sp.csr_matrix(x[:, :rule_cols])
    rules = rule_features(analyses, RULE_CATEGORIES)
    weights = np.array([SOURCE_WEIGHTS.get(s.source, 1.0) for s in pool])
    writers = sorted({s.lang for s in pool if s.category})
    out: dict[str, object] = {"pool": len(pool), "public_rows_sampled": public, "writers": writers}
    per: dict[str, dict[str, dict[str, float]]] = {}
    for writer in writers:
        held = np.array([bool(s.category) and s.lang == writer for s in pool])
        clean = np.array([s.category == "clean" for s in pool])[held]
        per[writer] = {}
        for head in HEADS:
            category = "insult" if head == "toxic" else head
            y = np.array([target(s, head) for s in pool], dtype=np.int64)
            positive = np.array([s.category == category for s in pool])[held]
            train_rows = np.flatnonzero(head_rows(pool, head) & ~held)
            found: dict[str, NDArray[np.float64]] = {}
            if category in RULE_CATEGORIES:
                found["rules"] = rules[held, RULE_CATEGORIES.index(category)].astype(np.float64)
            for name, design in (("ngrams", x_plain), ("ngrams+rules", x)):
                lr = fit_rows(design, y, weights, train_rows, head=head, cfg=cfg)
                found[name] = lr.decision_function(design[held])
            per[writer][head if head == "toxic" else category] = {
                f"{name} {metric}": round(value, 4)
                for name, s in found.items()
                for metric, value in (
                    ("auc", _auc(positive, s)),
                    ("recall@1%clean", recall_at_budget(s, positive, clean)),
                )
            }
            log.info("%s %s %s", writer, head, per[writer][head if head == "toxic" else category])
    out["by_writer"] = per
    out["mean"] = _means(per)
    return out


def _auc(positive: NDArray[np.bool_], scores: NDArray[np.float64]) -> float:
    return float(roc_auc_score(positive, scores)) if 0 < positive.sum() < len(positive) else float("nan")


def _means(per: dict[str, dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    """Per category, the mean over writers of every figure."""
    out: dict[str, dict[str, float]] = {}
    categories: Sequence[str] = sorted({c for w in per.values() for c in w})
    for category in categories:
        keys = sorted({k for w in per.values() for k in w.get(category, {})})
        out[category] = {
            k: round(float(np.nanmean([w[category][k] for w in per.values() if k in w.get(category, {})])), 4)
            for k in keys
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--public", type=int, default=10_000)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    result = run(args.datasets, public=args.public)
    text = json.dumps(result, indent=1)
    if args.out:
        args.out.write_text(text)
    print(json.dumps(result["mean"], indent=1))


if __name__ == "__main__":
    main()
