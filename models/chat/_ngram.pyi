"""Type stub of the C extension `_ngram.c` (hashed n-gram scores, see features.NgramHasher)."""

def scores(
    texts: list[str],
    weights: object,
    stride: int,
    width: int,
    n_features: int,
    lo: int,
    hi: int,
    word_ngrams: int,
    /,
) -> bytearray: ...
