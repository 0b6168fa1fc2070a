"""The numpy n-gram hasher: deterministic, position-independent, same figures both ways."""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from models.chat.features import NgramHasher


def test_estimator_contract_fit_returns_self_and_params_round_trip() -> None:
    hasher = NgramHasher(n_features=2**10)
    assert hasher.fit(["x"]) is hasher
    assert clone(hasher).get_params() == hasher.get_params()


def test_a_row_does_not_depend_on_its_batch() -> None:
    hasher = NgramHasher(n_features=2**12)
    alone = hasher.transform(["nice hand"]).toarray()[0]
    batched = hasher.transform(["something else entirely", "nice hand", ""]).toarray()[1]
    assert np.allclose(alone, batched)
    assert alone.sum() > 0


def test_different_texts_get_different_rows_and_empty_text_gets_little() -> None:
    hasher = NgramHasher(n_features=2**12)
    rows = hasher.transform(["you idiot", "nice hand", ""]).toarray()
    assert not np.allclose(rows[0], rows[1])
    assert np.count_nonzero(rows[2]) <= 1


def test_scores_equal_the_sparse_product() -> None:
    hasher = NgramHasher(n_features=2**12)
    texts = ["gg wp", "dobd el!", "у него тузы", "", "x" * 50]
    weights = np.random.default_rng(0).normal(size=(2**12, 3)).astype(np.float32)
    assert np.allclose(hasher.scores(texts, weights), hasher.transform(texts) @ weights, atol=1e-4)
