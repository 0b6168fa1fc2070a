"""Hashed character and word n-gram features computed for a whole batch at once in numpy.

scikit-learn's HashingVectorizer spends ~40 us per chat line in Python slicing (measured); here
every n-gram of every message is hashed with one polynomial prefix-hash pass over the batch's
code points, which is what makes >= 20,000 messages/s on one core possible.
The spaCy token table (end of module) gives the accent-free word features spaCy's tokens.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.base import BaseEstimator, TransformerMixin

try:  # the C kernel of `NgramHasher.scores`, built by `pip install` (setup.py)
    from models.chat import _ngram
except ImportError:  # not built (no compiler, or an unsupported platform): numpy does the same
    _ngram = None  # type: ignore[assignment]
HAS_NATIVE = _ngram is not None
"""Whether `NgramHasher.scores` runs in C (tests require it where CI runs)."""

_P = np.uint64(0x100000001B3)
_P_INV = np.uint64(pow(0x100000001B3, -1, 2**64))
_MIX1 = np.uint64(0xFF51AFD7ED558CCD)
_MIX2 = np.uint64(0xC4CEB9FE1A85EC53)
_SEPARATORS = " \t\n\r.,!?;:\"'()[]{}<>/\\|-_*+=~`^#&%"
_NOT_SEPARATOR = np.array([0 if chr(c) in _SEPARATORS else 1 for c in range(128)] + [1], dtype=np.int8)
"""Lookup by code point (anything past ASCII shares the last slot: a word character)."""
_CHUNK = 512
"""Texts hashed together: a chunk's arrays (~220 n-grams a chat line) stay in the CPU caches
(512 was ~20 % faster than 4,096, measured)."""


def _mix(h: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """murmur3 finaliser: spreads the polynomial hash over all bits. In place (`h` is consumed)
    with one scratch array: a fresh array per step cost more than the arithmetic (measured)."""
    shift = np.uint64(33)
    scratch = h >> shift
    h ^= scratch
    h *= _MIX1
    np.right_shift(h, shift, out=scratch)
    h ^= scratch
    h *= _MIX2
    np.right_shift(h, shift, out=scratch)
    h ^= scratch
    return h


class PackedWeights:
    """A weight matrix (n_features x up to 16 heads) stored as one row per feature, 4 floats (16
    bytes) wide for up to 4 heads, else 16 (64 bytes, one cache line): each n-gram then costs one
    random memory access for every head, not one per head (the gather took half the time with 3
    heads, measured). Gathered values are the same float32 numbers."""

    def __init__(self, weights: NDArray[np.float32]) -> None:
        n_features, width = weights.shape
        if width > MAX_HEADS:
            raise ValueError(f"at most {MAX_HEADS} heads fit a packed row, got {width}")
        self.stride = 4 if width <= 4 else MAX_HEADS
        rows = np.zeros((n_features, self.stride), dtype=np.float32)
        rows[:, :width] = weights
        self.table: NDArray[np.float32] = rows
        self.width = width

    def gather(self, col: NDArray[np.int64]) -> NDArray[np.float32]:
        """Weights of the given features (rows) for every head (columns 0..width-1 of the stride)."""
        if self.stride == 4:  # one 16-byte element per row: numpy's 1-D take is the fast path
            gathered: NDArray[np.float32] = (
                self.table.view(np.complex128).reshape(-1).take(col).view(np.float32).reshape(-1, 4)
            )
            return gathered
        wide: NDArray[np.float32] = self.table.take(col, axis=0)
        return wide


MAX_HEADS = 16
"""Widest packed row (`_ngram.c`'s MAX_WIDTH)."""


class NgramHasher(BaseEstimator, TransformerMixin):  # type: ignore[misc]
    """Stateless transformer: texts -> L2-normalised sparse counts of hashed char and word n-grams."""

    def __init__(
        self, *, n_features: int = 2**19, char_range: tuple[int, int] = (2, 5), word_ngrams: int = 2
    ) -> None:
        self.n_features = n_features
        self.char_range = char_range
        self.word_ngrams = word_ngrams

    def fit(self, texts: Sequence[str], y: object = None) -> NgramHasher:
        """Nothing to learn (hashing); returns self for the estimator contract."""
        return self

    def transform(self, texts: Sequence[str]) -> sp.csr_matrix:
        """Feature matrix, one row per text."""
        row, col, data = self.triples(texts)
        return sp.csr_matrix((data, (row, col)), shape=(len(texts), self.n_features), dtype=np.float32)

    def scores(
        self, texts: Sequence[str], weights: NDArray[np.float32] | PackedWeights, *, native: bool = True
    ) -> NDArray[np.float32]:
        """texts x weights (n_features x heads) without building a sorted sparse matrix: in C
        (`_ngram.c`, ~3x faster, the same float32 numbers bit for bit) when the extension is built
        and the weights are float32, else in numpy (`native=False` forces numpy: tests compare)."""
        if native and _ngram is not None:  # like numpy's join, the kernel refuses non-str (TypeError)
            if isinstance(weights, PackedWeights):
                table, stride, width = weights.table.reshape(-1), weights.stride, weights.width
            elif weights.dtype == np.float32 and weights.ndim == 2 and weights.flags.c_contiguous:
                table, stride, width = weights.reshape(-1), weights.shape[1], weights.shape[1]
            else:
                return self._scores_numpy(texts, weights)
            lo, hi = self.char_range
            raw = _ngram.scores(list(texts), table, stride, width, self.n_features, lo, hi, self.word_ngrams)
            return np.frombuffer(raw, dtype=np.float32).reshape(len(texts), width)
        return self._scores_numpy(texts, weights)

    def _scores_numpy(
        self, texts: Sequence[str], weights: NDArray[np.float32] | PackedWeights
    ) -> NDArray[np.float32]:
        width = weights.width if isinstance(weights, PackedWeights) else weights.shape[1]
        out = np.zeros((len(texts), width), dtype=np.float32)
        for i in range(0, len(texts), _CHUNK):
            chunk = texts[i : i + _CHUNK]
            row, col, scale = self._hashed(chunk)
            if isinstance(weights, PackedWeights):
                gathered = weights.gather(col)
                columns = [gathered[:, h] for h in range(width)]
            else:
                # One 1-D gather per head: numpy's 2-D row gather costs ~5x more (measured).
                columns = [weights[:, h].take(col) for h in range(width)]
            for h, column in enumerate(columns):
                out[i : i + len(chunk), h] = np.bincount(row, weights=column, minlength=len(chunk))
            # Every occurrence of a row weighs the same, so the weighting is applied per row, once.
            out[i : i + len(chunk)] *= scale[:, None]
        return out

    def triples(
        self, texts: Sequence[str]
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float32]]:
        """(row, column, value) of every n-gram occurrence; duplicates are meant to be summed."""
        parts = [self._block(texts[i : i + _CHUNK]) for i in range(0, len(texts), _CHUNK)]
        if not parts:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32)
        offsets = np.cumsum([0] + [min(_CHUNK, len(texts) - i) for i in range(0, len(texts), _CHUNK)])
        row = np.concatenate([p[0] + offsets[k] for k, p in enumerate(parts)])
        return row, np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts])

    def _block(
        self, texts: Sequence[str]
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float32]]:
        row, col, scale = self._hashed(texts)
        return row, col, scale[row]

    def _hashed(
        self, texts: Sequence[str]
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float32]]:
        """(row, column) of every n-gram occurrence and the per-row weight 1/sqrt(n-grams)."""
        padded = " " + "  ".join(texts) + " "
        lengths = np.fromiter((len(t) + 2 for t in texts), dtype=np.int64, count=len(texts))
        codes = np.frombuffer(padded.encode("utf-32-le"), dtype=np.uint32)
        total = len(codes)
        ends = np.cumsum(lengths)
        msg = np.repeat(np.arange(len(texts), dtype=np.int64), lengths)
        # Characters left in a position's message (itself included): an n-gram starting at a
        # position stays inside its message iff this is >= n; one array serves every n.
        left = np.repeat(ends, lengths) - np.arange(total, dtype=np.int64)
        powers, inv = _powers(total + 1)
        prefix = np.zeros(total + 1, dtype=np.uint64)
        np.cumsum((codes.astype(np.uint64) + np.uint64(1)) * powers[:total], dtype=np.uint64, out=prefix[1:])

        rows: list[NDArray[np.int64]] = []
        hashes: list[NDArray[np.uint64]] = []
        lo, hi = self.char_range
        for n in range(lo, hi + 1):
            # Every start position at once from contiguous slices (a gather by index costs ~3x
            # more), then only the n-grams inside one message kept, in position order.
            m = max(0, total + 1 - n)
            keep = left[:m] >= n
            h = prefix[n : n + m] - prefix[:m]
            h *= inv[:m]
            h = h[keep]
            h ^= np.uint64(n)
            rows.append(msg[:m][keep])
            hashes.append(h)
        if self.word_ngrams:
            is_word = np.ones(total + 2, dtype=np.int8)
            is_word[0] = is_word[-1] = 0
            is_word[1:-1] = _NOT_SEPARATOR[np.minimum(codes, len(_NOT_SEPARATOR) - 1)]
            edges = np.diff(is_word)
            starts = np.flatnonzero(edges == 1)
            word_ends = np.flatnonzero(edges == -1)
            for n in range(1, self.word_ngrams + 1):
                if len(starts) < n:
                    continue
                s, e = starts[: len(starts) - n + 1], word_ends[n - 1 :]
                keep_words = np.flatnonzero(msg[s] == msg[e - 1])
                s, e = s[keep_words], e[keep_words]
                rows.append(msg[s])
                hashes.append(((prefix[e] - prefix[s]) * inv[s]) ^ np.uint64(1000 + n))
        counts = np.zeros(len(texts), dtype=np.float32)
        if not rows:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), counts
        row = np.concatenate(rows)
        n = self.n_features
        # One murmur finaliser pass over every n-gram's salted polynomial hash.
        top = _mix(np.concatenate(hashes)) >> np.uint64(16)
        # A power-of-two width is a bit mask, not a 64-bit division per n-gram.
        col = top & np.uint64(n - 1) if n & (n - 1) == 0 else top % np.uint64(n)
        # Each occurrence weighs 1/sqrt(n-grams in its message): a length normalisation that needs
        # no sorting of duplicates (which would double the cost); dot products sum duplicates anyway.
        counts = np.bincount(row, minlength=len(texts)).astype(np.float32)
        scale = (1.0 / np.sqrt(np.maximum(counts, 1.0))).astype(np.float32)
        return row, col.view(np.int64), scale


_POWER_CACHE: list[tuple[NDArray[np.uint64], NDArray[np.uint64]]] = []
_POWER_CACHE_MAX = 1 << 20
"""Largest table kept (16 MB): a batch of 4,096 texts of 2,000 characters needs 8M entries
(131 MB), which is computed for that batch and dropped, not kept for the process's life."""


def _powers(n: int) -> tuple[NDArray[np.uint64], NDArray[np.uint64]]:
    """P^i and P^-i (mod 2^64) for i < n, grown by doubling and reused: two cumulative products
    per batch saved. Pure numbers, identical for every caller, so sharing them is safe."""
    if _POWER_CACHE and len(_POWER_CACHE[0][0]) >= n:
        return _POWER_CACHE[0]
    size = max(n, min(_POWER_CACHE_MAX, 2 * len(_POWER_CACHE[0][0]) if _POWER_CACHE else 1 << 16))
    powers = np.full(size, _P, dtype=np.uint64)
    powers[0] = 1
    inv = np.full(size, _P_INV, dtype=np.uint64)
    inv[0] = 1
    table = (np.cumprod(powers, dtype=np.uint64), np.cumprod(inv, dtype=np.uint64))
    if size <= _POWER_CACHE_MAX:
        _POWER_CACHE[:] = [table]
    return table


# --- spaCy tokenisation of the word features -------------------------------------------------
_KEEP_WHOLE = str.maketrans({c: chr(0xE000 + ord(c)) for c in _SEPARATORS})
"""Punctuation inside a spaCy token ("3.5bb", "т.е.", "по%уй") mapped to private-use letters,
so the hasher's word splitter keeps the token whole."""
SPACY_LANG = {"en": "en", "id": "id", "hu": "hu", "uk": "uk", "ru": "ru", "vi": "xx", "und": "xx"}
"""spaCy blank pipeline per detected language. Vietnamese uses the multi-language tokenizer:
spaCy's own `vi` tokenizer without pyvi splits on whitespace only (punctuation stays glued)."""


def default_words(chunk: str) -> list[str]:
    """Words the hasher reads from a whitespace-free chunk (split at every separator)."""
    return [w for w in _SPLIT_WORDS.split(chunk) if w]


_SPLIT_WORDS = re.compile("[" + re.escape(_SEPARATORS) + "]+")


def build_token_table(chunks_by_lang: dict[str, set[str]]) -> dict[str, dict[str, str]]:
    """TRAINING time: each chunk (whitespace-delimited piece of a bare view) tokenised and
    normalised (`norm_`: "т.е." -> "то есть", "n't" -> "not") by the spaCy blank pipeline of its
    message's language. Kept only where spaCy's words differ from the default split, as
    chunk -> space-joined words; the run time applies the table without loading spaCy (a blank
    Indonesian pipeline alone takes ~15 s to build, measured)."""
    import spacy

    tables: dict[str, dict[str, str]] = {}
    pipelines: dict[str, Any] = {}
    for lang, chunks in sorted(chunks_by_lang.items()):
        code = SPACY_LANG.get(lang, "xx")
        nlp = pipelines.get(code) or pipelines.setdefault(code, spacy.blank(code))
        table: dict[str, str] = {}
        ordered = sorted(chunks)
        for chunk, doc in zip(ordered, nlp.tokenizer.pipe(ordered), strict=True):
            words = [
                w
                for t in doc
                if not t.is_space and not _SPLIT_WORDS.fullmatch(t.text)
                for w in t.norm_.lower().split()
            ]
            if words and words != default_words(chunk):
                table[chunk] = " ".join(w.translate(_KEEP_WHOLE) for w in words)
        tables[lang] = table
    return tables


def token_words(text: str, table: dict[str, str] | None) -> str:
    """`text` with every chunk the table knows replaced by its spaCy words (run and train time)."""
    if not table:
        return text
    chunks = text.split()
    if table.keys().isdisjoint(chunks):
        return text
    return " ".join([table.get(c, c) for c in chunks])
