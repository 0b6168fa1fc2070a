"""Recipe check (`railbird train chat --recipe-check`): a strong classical recipe trained and tested
on each public set's OWN split, to compare with the published numbers (datasets/README.md).

Honesty rules: every hyper-parameter below was chosen on validation data carved from the training
split (or the official dev split), decision offsets are tuned on out-of-fold TRAIN scores, and the
test split is scored once. Eval-only sets (Ibrohim, ViHSD) are used exactly as their licences
allow: an experiment whose models are thrown away; nothing from it reaches the shipped artifact.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import f1_score, precision_score, recall_score, roc_auc_score
from sklearn.svm import LinearSVC

from models.chat.corpus.slurs import hate_features
from models.chat.data import (
    LOADERS,
    Sample,
    davidson_agreement,
    davidson_hate_share,
    load_davidson,
    strip_twitter,
)
from models.chat.normalize import Normalizer
from models.chat.recipe_features import (
    CountedFeatures,
    EmbeddingFeatures,
    SentenceEncoder,
    SlangNormalizer,
    TextFeatures,
    require_encoder,
)
from models.chat.recipe_models import (
    Member,
    OneVsRestNB,
    binary_scores,
    macro_f1,
    multiclass_recipe,
)
from models.chat.recipe_stack import floor_objective, stacked_recipe

log = logging.getLogger(__name__)

TARGETS = {
    "vihsd_3class_macro_f1": 0.66,
    "davidson_3class_weighted_f1": 0.90,
    "davidson_hate_f1": 0.51,
    "ibrohim_abusive_roc_auc": 0.975,
    "vihos_roc_auc": 0.96,
}

Recipe = Callable[[Path, int], dict[str, float]]


def _split(samples: list[Sample], train: tuple[str, ...], test: str) -> tuple[list[Sample], list[Sample]]:
    return [s for s in samples if s.split in train], [s for s in samples if s.split == test]


def _texts(samples: Sequence[Sample]) -> list[str]:
    return [s.text for s in samples]


def _labels(samples: Sequence[Sample]) -> NDArray[np.int64]:
    return np.array([s.label for s in samples], dtype=np.int64)


def _toxic(samples: Sequence[Sample]) -> NDArray[np.int64]:
    return np.array([s.toxic for s in samples], dtype=np.int64)


def _auc(
    train: list[Sample],
    test: list[Sample],
    *,
    make_features: Callable[[], TextFeatures],
    c: float,
    seed: int,
    svc_c: float | None = None,
) -> float:
    scores = binary_scores(
        _texts(train), _toxic(train), _texts(test), make_features=make_features, c=c, seed=seed, svc_c=svc_c
    )
    return float(roc_auc_score(_toxic(test), scores))


class _FoldedView:
    """The shipped normaliser's `folded` view (homoglyphs, leetspeak, spaced-out letters undone):
    ru_distorted exists to test exactly those distortions."""

    def __init__(self) -> None:
        self._normalizer = Normalizer()

    def __call__(self, text: str) -> str:
        return self._normalizer.views(text).folded.text


def vihsd(root: Path, seed: int) -> dict[str, float]:
    """ViHSD 3-class on the official test split; trained on train+dev."""
    train, test = _split(LOADERS["vihsd"](root), ("train", "dev"), "test")
    result = multiclass_recipe(
        _texts(train), _labels(train), _texts(test), _labels(test),
        make_features=TextFeatures, objective=macro_f1, seed=seed,
        make_model=partial(OneVsRestNB, c=VIHSD_C, seed=seed, nb=False),
    )  # fmt: skip
    return {"vihsd_3class_macro_f1": macro_f1(result.y_true, result.y_pred)}


def davidson(root: Path, seed: int, encoder: SentenceEncoder | None = None) -> dict[str, float]:
    """Davidson 3-class on the 10 % test split (data.py: stratified, seed 42). Four members,
    stacked (`recipe_stack.stacked_recipe`: a multinomial logistic regression on their 4-fold
    out-of-fold TRAIN scores): one-vs-rest logistic regression on the cleaned tweets, each tweet
    weighted by its annotators' agreement; a linear SVM on the raw tweets (@mentions, RT and emoji
    entities kept); a ridge regression of each tweet's hate-vote share; a multinomial logistic
    regression on each cleaned tweet's sentence embedding (`recipe_features.SentenceEncoder`:
    what a tweet says rather than which n-grams it holds). All four also see the pooled
    hate-lexicon columns (`corpus/slurs.hate_features`, counted on the cleaned tweet).
    Offsets maximise hate-class F1 given weighted F1 >= 0.90 (the two targets) on the stacker's
    out-of-fold TRAIN scores. Model card: how it was chosen (4-fold out-of-fold TRAIN scores).
    `encoder`: where embeddings come from (default: the Universal Sentence Encoder)."""
    samples, raw = LOADERS["davidson"](root), load_davidson(root, clean=False)
    agreement, share = np.array(davidson_agreement(root)), np.array(davidson_hate_share(root))
    train = [i for i, s in enumerate(samples) if s.split == "train"]
    test = [i for i, s in enumerate(samples) if s.split == "test"]
    clean_lexicon = partial(CountedFeatures, hate_features)
    # The raw member counts the lexicon on the cleaned tweet too (an @handle is not a group mention).
    raw_lexicon = partial(CountedFeatures, lambda text: hate_features(strip_twitter(text)))
    clean_train, clean_test = [samples[i].text for i in train], [samples[i].text for i in test]
    members = (
        Member(clean_train, clean_test, make_features=clean_lexicon,
               make_model=partial(OneVsRestNB, c=DAVIDSON_C, seed=seed, nb=False), weights=agreement[train]),
        Member([raw[i].text for i in train], [raw[i].text for i in test], make_features=raw_lexicon,
               make_model=partial(LinearSVC, C=DAVIDSON_SVC_C, class_weight="balanced", random_state=seed)),
        Member(clean_train, clean_test, make_features=clean_lexicon,
               make_model=partial(Ridge, alpha=DAVIDSON_RIDGE_ALPHA), target=share[train]),
        Member(clean_train, clean_test,
               make_features=partial(EmbeddingFeatures, encoder or SentenceEncoder(), hate_features),
               make_model=partial(LogisticRegression, C=DAVIDSON_EMBED_C, class_weight="balanced",
                                  max_iter=3000)),
    )  # fmt: skip
    objective = floor_objective(_hate_f1, _weighted_f1, TARGETS["davidson_3class_weighted_f1"])
    result = stacked_recipe(
        members, _labels([samples[i] for i in train]), _labels([samples[i] for i in test]),
        objective=objective, seed=seed,
    )  # fmt: skip
    log.info("davidson: out-of-fold TRAIN objective %.4f, offsets %s", result.oof_objective, result.offsets)
    y, pred = result.y_true, result.y_pred
    return {
        "davidson_3class_weighted_f1": _weighted_f1(y, pred),
        "davidson_hate_f1": _hate_f1(y, pred),
        # No targets: how the hate F1 splits, so a reader sees how many tweets a margin is.
        "davidson_hate_precision": float(precision_score(y == 0, pred == 0, zero_division=0)),
        "davidson_hate_recall": float(recall_score(y == 0, pred == 0, zero_division=0)),
    }


def _weighted_f1(y: NDArray[np.int64], pred: NDArray[np.int64]) -> float:
    return float(f1_score(y, pred, average="weighted"))


def _hate_f1(y: NDArray[np.int64], pred: NDArray[np.int64]) -> float:
    """F1 of Davidson's class 0 (hate speech)."""
    return float(f1_score(y == 0, pred == 0))


def ibrohim(root: Path, seed: int) -> dict[str, float]:
    """Ibrohim `Abusive`, 80/20 stratified seed 42; slang normalised with the set's own dictionary."""
    train, test = _split(LOADERS["id_ibrohim"](root), ("train",), "test")
    slang = SlangNormalizer.from_csv(root / "id_ibrohim" / "new_kamusalay.csv")
    make = partial(TextFeatures, prep=slang)
    return {"ibrohim_abusive_roc_auc": _auc(train, test, make_features=make, c=BINARY_C, seed=seed)}


def vihos(root: Path, seed: int) -> dict[str, float]:
    """ViHOS has-span on the official test split; trained on train+dev. NB-LR averaged with a linear
    SVM (dev split: 0.9678 vs 0.9654 for NB-LR alone)."""
    train, test = _split(LOADERS["vihos"](root), ("train", "dev"), "test")
    auc = _auc(train, test, make_features=TextFeatures, c=BINARY_C, seed=seed, svc_c=VIHOS_SVC_C)
    return {"vihos_roc_auc": auc}


def ru_distorted(root: Path, seed: int) -> dict[str, float]:
    """Russian distorted toxicity, 80/20 stratified seed 42 (no target; reported for reference)."""
    train, test = _split(LOADERS["ru_distorted"](root), ("train",), "test")
    folded = _FoldedView()
    make = partial(TextFeatures, prep=folded)
    return {"ru_distorted_roc_auc": _auc(train, test, make_features=make, c=BINARY_C, seed=seed)}


# Chosen on validation data (model card, "Recipe check"): Ibrohim 15 % of TRAIN, ViHOS and ViHSD
# their official dev splits, Davidson 5-fold scores on TRAIN. NB-weighted binary models want little
# regularisation; Davidson's rare hate class wants more (C 2 -> 1: out-of-fold hate F1 0.44 -> 0.46).
BINARY_C = 16.0
VIHSD_C = 16.0
DAVIDSON_C = 1.0
DAVIDSON_SVC_C = 0.3
DAVIDSON_RIDGE_ALPHA = 1.0
DAVIDSON_EMBED_C = 0.3
"""4-fold out-of-fold TRAIN, stacked with the other three (cross-fitted weighted / hate F1):
C 0.3 0.904 / 0.494, 1 0.904 / 0.489, 3 0.904 / 0.494; without the lexicon columns 0.903 / 0.490."""
VIHOS_SVC_C = 1.0

RECIPES: dict[str, Recipe] = {
    "vihsd": vihsd,
    "davidson": davidson,
    "id_ibrohim": ibrohim,
    "vihos": vihos,
    "ru_distorted": ru_distorted,
}


def _verdict(name: str, value: float) -> dict[str, Any]:
    target = TARGETS.get(name)
    return {"value": round(value, 4), "target": target, "met": None if target is None else value >= target}


def run_recipes(datasets_dir: Path, *, seed: int = 42, only: Sequence[str] | None = None) -> dict[str, Any]:
    """Every recipe figure beside its target, plus the CPU seconds each recipe took."""
    names = list(only) if only else list(RECIPES)
    unknown = [n for n in names if n not in RECIPES]
    if unknown:
        raise ValueError(f"unknown recipe(s) {unknown}; known: {sorted(RECIPES)}")
    if "davidson" in names:  # before minutes of other recipes, not after them
        require_encoder()
    results: dict[str, float] = {}
    cpu: dict[str, float] = {}
    for name in names:
        start = time.process_time()
        results.update(RECIPES[name](datasets_dir, seed))
        cpu[name] = round(time.process_time() - start, 1)
        log.info("recipe %s: %.1f s CPU", name, cpu[name])
    out: dict[str, Any] = {name: _verdict(name, value) for name, value in results.items()}
    out["cpu_seconds"] = cpu
    return out
