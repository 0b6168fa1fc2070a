"""Classifiers and decision tuning of the recipe check.

NB-weighted logistic regression (Wang & Manning 2012, "NBSVM"): each TF-IDF column is scaled by
its naive-Bayes log-count ratio before a linear model is fitted, which lets a lightly regularised
linear model lean on the strongly class-specific n-grams; on short abusive texts it beats plain
TF-IDF + logistic regression by 0.005-0.01 ROC-AUC on a validation split (see the model card).

Multi-class decisions use per-class additive score offsets, tuned on OUT-OF-FOLD scores of the
training split (k-fold inside TRAIN), never on the test split.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import LinearSVC

from models.chat.recipe_features import TextFeatures, nb_ratios

Objective = Callable[[NDArray[np.int64], NDArray[np.int64]], float]
FeatureFactory = Callable[[], TextFeatures]


class Scorer(Protocol):
    """A multi-class linear model: `OneVsRestNB`, or scikit-learn's `LinearSVC`."""

    classes_: Any

    def fit(self, x: sp.csr_matrix, y: NDArray[np.int64], sample_weight: Any = None) -> Any: ...

    def decision_function(self, x: sp.csr_matrix) -> Any: ...


ModelFactory = Callable[[], Scorer]
Weights = NDArray[np.float64] | None


class NBLogistic:
    """Binary classifier: NB log-count-ratio scaled features -> logistic regression (with
    `nb=False`: plain logistic regression on the TF-IDF features)."""

    def __init__(
        self, *, c: float, seed: int, balanced: bool = False, nb: bool = True, alpha: float = 1.0
    ) -> None:
        self.c = c
        self.seed = seed
        self.balanced = balanced
        self.nb = nb
        self.alpha = alpha
        self._ratios: NDArray[np.float32] | None = None
        self._lr: LogisticRegression | None = None

    def fit(self, x: sp.csr_matrix, y: NDArray[np.int64], sample_weight: Weights = None) -> NBLogistic:
        """Fit on 0/1 labels (optionally weighted per row); both classes must be present."""
        if len(np.unique(y)) != 2:
            raise ValueError("NBLogistic needs both classes in the training labels")
        self._ratios = nb_ratios(x, y, alpha=self.alpha) if self.nb else None
        self._lr = LogisticRegression(
            C=self.c,
            class_weight="balanced" if self.balanced else None,
            solver="liblinear",
            random_state=self.seed,
        )
        self._lr.fit(self._scale(x), y, sample_weight=sample_weight)
        return self

    def _scale(self, x: sp.csr_matrix) -> sp.csr_matrix:
        return x if self._ratios is None else x.multiply(self._ratios).tocsr()

    def decision_function(self, x: sp.csr_matrix) -> NDArray[np.float64]:
        """Signed margin: higher = more likely the positive class."""
        if self._lr is None:
            raise RuntimeError("NBLogistic used before fit")
        return np.asarray(self._lr.decision_function(self._scale(x)), dtype=np.float64)


class OneVsRestNB:
    """One NBLogistic per class (each with its own ratios); scores are the per-class margins."""

    def __init__(self, *, c: float, seed: int, balanced: bool = True, nb: bool = True) -> None:
        self.c = c
        self.seed = seed
        self.balanced = balanced
        self.nb = nb
        self.classes_: NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self._models: list[NBLogistic] = []

    def fit(self, x: sp.csr_matrix, y: NDArray[np.int64], sample_weight: Weights = None) -> OneVsRestNB:
        """Fit one binary model per class present in `y` (at least two classes)."""
        self.classes_ = np.unique(y)
        if len(self.classes_) < 2:
            raise ValueError("OneVsRestNB needs at least two classes")
        self._models = [
            NBLogistic(c=self.c, seed=self.seed, balanced=self.balanced, nb=self.nb).fit(
                x, (y == k).astype(np.int64), sample_weight
            )
            for k in self.classes_
        ]
        return self

    def decision_function(self, x: sp.csr_matrix) -> NDArray[np.float64]:
        """(n_texts, n_classes) margins in `classes_` order."""
        if not self._models:
            raise RuntimeError("OneVsRestNB used before fit")
        return np.column_stack([m.decision_function(x) for m in self._models])


def macro_f1(y: NDArray[np.int64], pred: NDArray[np.int64]) -> float:
    """Macro-averaged F1 (every class counts the same, so rare classes are not ignored)."""
    return float(f1_score(y, pred, average="macro"))


def tune_offsets(
    scores: NDArray[np.float64],
    y: NDArray[np.int64],
    classes: NDArray[np.int64],
    objective: Objective,
    *,
    grid: NDArray[np.float64] | None = None,
    rounds: int = 2,
) -> NDArray[np.float64]:
    """Coordinate ascent over per-class additive score offsets maximising `objective`. The
    first offset stays 0 (only differences between classes matter), which halves the search."""
    steps = np.linspace(-2.0, 2.0, 41) if grid is None else grid
    offsets = np.zeros(scores.shape[1])
    best = objective(y, classes[np.argmax(scores, axis=1)])
    for _ in range(rounds):
        for k in range(1, scores.shape[1]):
            for step in steps:
                trial = offsets.copy()
                trial[k] = step
                value = objective(y, classes[np.argmax(scores + trial, axis=1)])
                if value > best + 1e-12:
                    best, offsets = value, trial
    return offsets


@dataclass(frozen=True, slots=True)
class MulticlassResult:
    """Test predictions plus what was tuned on the training split."""

    y_true: NDArray[np.int64]
    y_pred: NDArray[np.int64]
    offsets: NDArray[np.float64]
    oof_objective: float


def out_of_fold_scores(
    texts: Sequence[str],
    y: NDArray[np.int64],
    *,
    make_features: FeatureFactory,
    make_model: ModelFactory,
    seed: int,
    folds: int,
    weights: Weights = None,
) -> NDArray[np.float64]:
    """Scores of every training text from a model that did not see it (stratified k-fold);
    `weights`: per-row sample weights of the training texts (None: all equal)."""
    n_classes = len(np.unique(y))
    scores = np.zeros((len(texts), n_classes))
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    for fit_idx, held_idx in splitter.split(np.zeros(len(y)), y):
        feats = make_features()
        x_fit = feats.fit_transform([texts[i] for i in fit_idx])
        model = make_model()
        if weights is None:
            model.fit(x_fit, y[fit_idx])
        else:
            model.fit(x_fit, y[fit_idx], sample_weight=weights[fit_idx])
        scores[held_idx] = model.decision_function(feats.transform([texts[i] for i in held_idx]))
    return scores


def multiclass_recipe(
    train_texts: Sequence[str],
    train_y: NDArray[np.int64],
    test_texts: Sequence[str],
    test_y: NDArray[np.int64],
    *,
    make_features: FeatureFactory,
    objective: Objective,
    make_model: ModelFactory,
    seed: int,
    folds: int = 4,
) -> MulticlassResult:
    """Offsets tuned on out-of-fold TRAIN scores; the final model is refitted on all of TRAIN and
    the offsets applied to its test scores."""
    oof = out_of_fold_scores(
        train_texts, train_y, make_features=make_features, make_model=make_model, seed=seed, folds=folds
    )
    classes = np.unique(train_y)
    offsets = tune_offsets(oof, train_y, classes, objective)
    oof_value = objective(train_y, classes[np.argmax(oof + offsets, axis=1)])
    feats = make_features()
    model = make_model().fit(feats.fit_transform(train_texts), train_y)
    scores = model.decision_function(feats.transform(test_texts)) + offsets
    pred = np.asarray(model.classes_[np.argmax(scores, axis=1)], dtype=np.int64)
    return MulticlassResult(test_y, pred, offsets, oof_value)


@dataclass(frozen=True, slots=True)
class Member:
    """One model of a multi-class ensemble, with its own view of the texts (e.g. cleaned or raw),
    its features, its model and optional per-row training weights."""

    train_texts: Sequence[str]
    test_texts: Sequence[str]
    make_features: FeatureFactory
    make_model: ModelFactory
    weights: Weights = None


def ensemble_recipe(
    members: Sequence[Member],
    train_y: NDArray[np.int64],
    test_y: NDArray[np.int64],
    *,
    objective: Objective,
    seed: int,
    folds: int = 4,
) -> MulticlassResult:
    """Average of the members' per-class margins, each divided by the spread of its own
    out-of-fold TRAIN scores (so no member dominates by scale); offsets tuned on the averaged
    out-of-fold scores; every member then refitted on all of TRAIN and scored on the test texts."""
    oofs = [
        out_of_fold_scores(
            m.train_texts, train_y, make_features=m.make_features, make_model=m.make_model,
            seed=seed, folds=folds, weights=m.weights,
        )
        for m in members
    ]  # fmt: skip
    scales = [float(o.std()) or 1.0 for o in oofs]
    oof = sum((o / s for o, s in zip(oofs, scales, strict=True)), np.zeros_like(oofs[0])) / len(members)
    classes = np.unique(train_y)
    offsets = tune_offsets(oof, train_y, classes, objective)
    oof_value = objective(train_y, classes[np.argmax(oof + offsets, axis=1)])
    scores = np.zeros((len(test_y), len(classes)))
    for member, scale in zip(members, scales, strict=True):
        feats = member.make_features()
        model = member.make_model()
        x_train = feats.fit_transform(member.train_texts)
        if member.weights is None:
            model.fit(x_train, train_y)
        else:
            model.fit(x_train, train_y, sample_weight=member.weights)
        scores += np.asarray(model.decision_function(feats.transform(member.test_texts))) / scale
    pred = classes[np.argmax(scores / len(members) + offsets, axis=1)]
    return MulticlassResult(test_y, np.asarray(pred, dtype=np.int64), offsets, oof_value)


def _standardised(train_margins: NDArray[np.float64], margins: NDArray[np.float64]) -> NDArray[np.float64]:
    """Margins on the scale of the training margins, so two models can be averaged."""
    spread = float(train_margins.std()) or 1.0
    return (margins - float(train_margins.mean())) / spread


def binary_scores(
    train_texts: Sequence[str],
    train_y: NDArray[np.int64],
    test_texts: Sequence[str],
    *,
    make_features: FeatureFactory,
    c: float,
    seed: int,
    svc_c: float | None = None,
) -> NDArray[np.float64]:
    """Test-text margins of an NBLogistic fitted on the training texts; with `svc_c`, averaged
    (after standardising each on its training margins) with a linear SVM on the plain TF-IDF
    features, whose errors differ from the NB-weighted model's."""
    feats = make_features()
    x_train = feats.fit_transform(train_texts)
    x_test = feats.transform(test_texts)
    nb = NBLogistic(c=c, seed=seed).fit(x_train, train_y)
    scores = nb.decision_function(x_test)
    if svc_c is None:
        return scores
    svm = LinearSVC(C=svc_c, random_state=seed).fit(x_train, train_y)
    svm_scores = np.asarray(svm.decision_function(x_test), dtype=np.float64)
    svm_train = np.asarray(svm.decision_function(x_train), dtype=np.float64)
    return _standardised(nb.decision_function(x_train), scores) + _standardised(svm_train, svm_scores)
