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

from models.chat.recipe_features import Featurizer, Matrix, nb_ratios

Objective = Callable[[NDArray[np.int64], NDArray[np.int64]], float]
FeatureFactory = Callable[[], Featurizer]


class Learner(Protocol):
    """Anything fitted on rows: a `Scorer`, or a regressor read through `predict`."""

    def fit(self, x: Matrix, y: Any, sample_weight: Any = None) -> Any: ...


class Scorer(Protocol):
    """A multi-class linear model: `OneVsRestNB`, or scikit-learn's `LinearSVC`."""

    classes_: Any

    def fit(self, x: sp.csr_matrix, y: NDArray[np.int64], sample_weight: Any = None) -> Any: ...

    def decision_function(self, x: sp.csr_matrix) -> Any: ...


ModelFactory = Callable[[], Learner]
ScorerFactory = Callable[[], Scorer]
Weights = NDArray[np.float64] | None
Target = NDArray[np.float64] | NDArray[np.int64] | None


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
    target: Target = None,
) -> NDArray[np.float64]:
    """Scores of every training text from a model that did not see it (k-fold stratified on `y`);
    `weights`: per-row sample weights of the training texts (None: all equal); `target`: what the
    model learns instead of `y` (e.g. a hate-vote share for a regressor; its output may be 1-D)."""
    learn = y if target is None else target
    scores: NDArray[np.float64] | None = None
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    for fit_idx, held_idx in splitter.split(np.zeros(len(y)), y):
        feats = make_features()
        model = _fit(make_model(), feats.fit_transform([texts[i] for i in fit_idx]), learn[fit_idx],
                     None if weights is None else weights[fit_idx])  # fmt: skip
        held = _margins(model, feats.transform([texts[i] for i in held_idx]))
        if scores is None:
            scores = np.zeros((len(texts), *held.shape[1:]))
        scores[held_idx] = held
    if scores is None:
        raise ValueError("out_of_fold_scores needs at least one fold")
    return scores


def _fit(model: Learner, x: Matrix, y: NDArray[Any], weights: Weights) -> Learner:
    if weights is None:
        model.fit(x, y)
    else:
        model.fit(x, y, sample_weight=weights)
    return model


def _margins(model: Learner, x: Matrix) -> NDArray[np.float64]:
    """Class margins, or a regressor's prediction (models without `decision_function`)."""
    score = getattr(model, "decision_function", None) or getattr(model, "predict")  # noqa: B009
    return np.asarray(score(x), dtype=np.float64)


def multiclass_recipe(
    train_texts: Sequence[str],
    train_y: NDArray[np.int64],
    test_texts: Sequence[str],
    test_y: NDArray[np.int64],
    *,
    make_features: FeatureFactory,
    objective: Objective,
    make_model: ScorerFactory,
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
    its features, its model, optional per-row training weights and an optional training target
    other than the class labels (`stacked_recipe` only: e.g. a regressor of the hate-vote share)."""

    train_texts: Sequence[str]
    test_texts: Sequence[str]
    make_features: FeatureFactory
    make_model: ModelFactory
    weights: Weights = None
    target: Target = None


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
    oofs = [member_oof(m, train_y, seed=seed, folds=folds) for m in members]
    scales = [float(o.std()) or 1.0 for o in oofs]
    oof = sum((o / s for o, s in zip(oofs, scales, strict=True)), np.zeros_like(oofs[0])) / len(members)
    classes = np.unique(train_y)
    offsets = tune_offsets(oof, train_y, classes, objective)
    oof_value = objective(train_y, classes[np.argmax(oof + offsets, axis=1)])
    scores = np.zeros((len(test_y), len(classes)))
    for member, scale in zip(members, scales, strict=True):
        scores += refit_and_score(member, train_y) / scale
    pred = classes[np.argmax(scores / len(members) + offsets, axis=1)]
    return MulticlassResult(test_y, np.asarray(pred, dtype=np.int64), offsets, oof_value)


def member_oof(member: Member, train_y: NDArray[np.int64], *, seed: int, folds: int) -> NDArray[np.float64]:
    """`out_of_fold_scores` of one member (its texts, weights and target)."""
    return out_of_fold_scores(
        member.train_texts, train_y, make_features=member.make_features, make_model=member.make_model,
        seed=seed, folds=folds, weights=member.weights, target=member.target,
    )  # fmt: skip


def refit_and_score(member: Member, train_y: NDArray[np.int64]) -> NDArray[np.float64]:
    """The member refitted on all of TRAIN (its own target if it has one), scored on its test texts."""
    feats = member.make_features()
    learn = train_y if member.target is None else member.target
    model = _fit(member.make_model(), feats.fit_transform(member.train_texts), learn, member.weights)
    return _margins(model, feats.transform(member.test_texts))


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
