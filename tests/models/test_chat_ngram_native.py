"""The C kernel of `NgramHasher.scores` (`models/chat/_ngram.c`) gives the numpy path's float32
numbers bit for bit, for every hasher the classifier uses and for odd text; and on the platform CI
runs on it is actually built (a silent build failure would otherwise pass every other test)."""

from __future__ import annotations

import platform
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.chat import features
from models.chat.corpus.poker import LABELLED
from models.chat.corpus.table_talk import BASE, table_talk
from models.chat.features import NgramHasher, PackedWeights

ODD = ["", " ", "a", "x" * 5000, "😀" * 50, "a\x0bb", "\x00\x01", "k y s", "...", "đụ má", "ab  cd\t\tef"]
HASHERS = [
    NgramHasher(n_features=2**14, char_range=(2, 5), word_ngrams=2),  # the folded view's features
    NgramHasher(n_features=2**14, char_range=(99, 98), word_ngrams=1),  # the bare view's words
    NgramHasher(n_features=1000, char_range=(1, 3), word_ngrams=3),  # not a power of two
]


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)


def _weights(n: int, width: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, width)).astype(np.float32)


def test_the_extension_is_built_where_ci_runs() -> None:
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        pytest.skip("built wherever a C compiler is present; required only on the CI platform")
    assert features.HAS_NATIVE


@pytest.fixture(scope="module")
def texts() -> list[str]:
    lines = [t for lang in BASE for t in table_talk(lang)] + [t for t, _, _ in LABELLED] + ODD
    rng = random.Random(5)
    code_points = [c for c in range(1, 0x2FFFF) if not 0xD800 <= c <= 0xDFFF]  # views hold no surrogates
    lines += ["".join(chr(rng.choice(code_points)) for _ in range(rng.randrange(0, 80))) for _ in range(300)]
    return lines


@pytest.mark.parametrize("hasher", HASHERS, ids=["folded", "bare-words", "width-1000"])
@pytest.mark.parametrize("width", [1, 3, 4, 13, 16])
def test_native_scores_equal_numpy_bit_for_bit(hasher: NgramHasher, width: int, texts: list[str]) -> None:
    if not features.HAS_NATIVE:
        pytest.skip("extension not built")
    raw = _weights(hasher.n_features, width, seed=width)
    for weights in (raw, PackedWeights(raw)):
        native = hasher.scores(texts, weights)
        reference = hasher.scores(texts, weights, native=False)
        assert native.shape == reference.shape == (len(texts), width)
        assert np.array_equal(_bits(native), _bits(reference))
        assert np.count_nonzero(native) > len(texts) // 2  # real scores, not zeros on both sides
    native[0, 0] += 1.0  # callers add to the result in place


def test_weights_numpy_reads_differently_go_to_numpy() -> None:
    hasher = HASHERS[0]
    texts = ["gg wp", "you idiot"]
    wide: Any = _weights(hasher.n_features, 2, seed=9).astype(np.float64)  # float64: summed as float64
    strided = _weights(hasher.n_features, 3, seed=9)[:, ::2]  # not contiguous
    for weights in (wide, strided):
        assert np.array_equal(hasher.scores(texts, weights), hasher.scores(texts, weights, native=False))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=120), max_size=6))
def test_any_text_scores_alike(batch: list[str]) -> None:
    if not features.HAS_NATIVE:
        return
    hasher = HASHERS[0]
    weights = PackedWeights(_weights(hasher.n_features, 3, seed=1))
    try:
        reference = hasher.scores(batch, weights, native=False)
    except UnicodeEncodeError:  # numpy's path encodes to UTF-32: lone surrogates never reach it
        return
    assert np.array_equal(_bits(hasher.scores(batch, weights)), _bits(reference))


def test_the_kernel_rejects_sizes_it_cannot_hash() -> None:
    if not features.HAS_NATIVE:
        pytest.skip("extension not built")
    weights = PackedWeights(_weights(2**10, 3, seed=2))
    for char_range, word_ngrams in (((0, 3), 1), ((2, 5), -1), ((1, 100), 1)):
        with pytest.raises(ValueError, match=r"1\.\.64"):
            NgramHasher(n_features=2**10, char_range=char_range, word_ngrams=word_ngrams).scores(["gg"], weights)
