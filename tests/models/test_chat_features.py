"""The numpy n-gram hasher: deterministic, position-independent, same figures both ways."""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from models.chat.features import NgramHasher, PackedWeights, build_token_table, token_words


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


# --- the vectorised hashing against a plain per-n-gram reference --------------------------------
_MASK64 = (1 << 64) - 1
_SEPARATOR_CHARS = " \t\n\r.,!?;:\"'()[]{}<>/\\|-_*+=~`^#&%"


def _reference_hash(piece: str, salt: int, n_features: int) -> int:
    """The polynomial hash of one n-gram, its salt and the murmur3 finaliser, in Python ints."""
    h = 0
    for i, ch in enumerate(piece):
        h = (h + (ord(ch) + 1) * pow(0x100000001B3, i, 1 << 64)) & _MASK64
    h ^= salt
    for mult in (0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53):
        h ^= h >> 33
        h = (h * mult) & _MASK64
    h ^= h >> 33
    return (h >> 16) % n_features


def _reference_columns(text: str, hasher: NgramHasher) -> list[int]:
    """Columns of every n-gram of one text in the hasher's order (char n by n, then words)."""
    padded = f" {text} "
    lo, hi = hasher.char_range
    cols = [
        _reference_hash(padded[p : p + n], n, hasher.n_features)
        for n in range(lo, hi + 1)
        for p in range(len(padded) - n + 1)
    ]
    spans, start = [], None
    for i, ch in enumerate(padded + " "):
        inside = ch not in _SEPARATOR_CHARS
        if inside and start is None:
            start = i
        elif not inside and start is not None:
            spans.append((start, i))
            start = None
    for n in range(1, hasher.word_ngrams + 1):
        for k in range(len(spans) - n + 1):
            piece = padded[spans[k][0] : spans[k + n - 1][1]]
            cols.append(_reference_hash(piece, 1000 + n, hasher.n_features))
    return cols


TRICKY = [
    "", " ", "a", "gg wp", "nice hand, sir!!", "у него тузы", "đụ má mày", "😀😀🔥", "a\u200db", "x" * 700,
    "...,,,", "3.5bb raise", "kys\tnow\n", "𝐟𝐮𝐜𝐤", "שלום idiot", "\x00\x01", "ab  cd",
]  # fmt: skip


def test_hashing_equals_a_plain_per_ngram_reference_on_many_texts() -> None:
    """Every n-gram's column, in order, and the scores summed one n-gram at a time in float64
    then scaled in float32: exactly what the batch path gives, on chunks of mixed texts."""
    rng = np.random.default_rng(4)
    alphabet = [*"abcdefghij .,!đưяж😀0123", "\u200d", "\U0001d41f"]
    texts = TRICKY + ["".join(rng.choice(alphabet, size=rng.integers(0, 90))) for _ in range(600)]
    for hasher in (
        NgramHasher(n_features=2**19),
        NgramHasher(n_features=1000, char_range=(1, 3), word_ngrams=3),
        NgramHasher(n_features=2**19, char_range=(99, 98), word_ngrams=1),
    ):
        weights = rng.normal(size=(hasher.n_features, 3)).astype(np.float32)
        row, col, _ = hasher._hashed(texts)
        expected_rows: list[int] = []
        expected_cols: list[int] = []
        for i, text in enumerate(texts):
            cols = _reference_columns(text, hasher)
            expected_cols += cols
            expected_rows += [i] * len(cols)
        order = np.argsort(row, kind="stable")
        assert row[order].tolist() == expected_rows
        assert col[order].tolist() == expected_cols
        expected = np.zeros((len(texts), 3), dtype=np.float32)
        for i, text in enumerate(texts):
            cols = _reference_columns(text, hasher)
            for h in range(3):
                total = 0.0
                for c in cols:
                    total += float(weights[c, h])
                expected[i, h] = np.float32(total) * (np.float32(1) / np.sqrt(np.float32(max(len(cols), 1))))
        for packed in (weights, PackedWeights(weights)):
            assert np.array_equal(hasher.scores(texts, packed), expected)
