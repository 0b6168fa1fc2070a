"""The numpy n-gram hasher: deterministic, position-independent, same figures both ways."""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from models.chat.features import NgramHasher, build_token_table, token_words


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


def test_scores_equal_the_sparse_product_for_a_width_that_is_not_a_power_of_two() -> None:
    hasher = NgramHasher(n_features=1000)
    texts = ["gg wp", "ты идиот", "a" * 30]
    weights = np.random.default_rng(1).normal(size=(1000, 2)).astype(np.float32)
    assert np.allclose(hasher.scores(texts, weights), hasher.transform(texts) @ weights, atol=1e-4)
    assert hasher.transform(texts).indices.max() < 1000


def test_spacy_words_keep_masked_and_abbreviated_tokens_whole() -> None:
    tables = build_token_table({"ru": {"по%уй", "т.е.", "привет,"}, "en": {"don't", "gg"}})
    # spaCy keeps a masked word as one token and expands abbreviations; plain words need no entry.
    assert "по%уй" in tables["ru"] and "привет," not in tables["ru"] and "gg" not in tables["en"]
    words = NgramHasher(n_features=2**16, char_range=(99, 98), word_ngrams=1)
    masked = words.transform([token_words("по%уй", tables["ru"])])
    assert masked.nnz == 1  # one word, not "по" + "уй"
    assert token_words("ну т.е. да", tables["ru"]).split()[1:3] == ["то", "есть"]
    assert token_words("don't", tables["en"]).split() == ["do", "not"]


def test_token_words_leave_text_without_known_chunks_untouched() -> None:
    text = "nice  hand, gg"
    assert token_words(text, {"wp": "w p"}) is text
    assert token_words(text, None) is text


def test_huge_batches_score_the_same_and_leave_no_huge_table_behind() -> None:
    from models.chat import features

    hasher = NgramHasher(n_features=2**12)
    weights = np.random.default_rng(2).normal(size=(2**12, 1)).astype(np.float32)
    texts = ["x" * 2000 + str(i) for i in range(600)] + ["gg wp"]  # > 1M characters in one chunk
    assert np.allclose(hasher.scores(texts, weights)[-1], hasher.scores(["gg wp"], weights)[0], atol=1e-5)
    assert all(len(p) <= features._POWER_CACHE_MAX for table in features._POWER_CACHE for p in table)
