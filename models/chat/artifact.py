"""The shipped model's parameters and their safe (skops, no pickle) file format."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zipfile import ZIP_DEFLATED, BadZipFile

import numpy as np
from numpy.typing import NDArray

from pipeline.categories import MODEL_SCORED

LEGACY_HEADS = ("toxic", "hate", "spam")
"""The heads of format 2-4 artifacts (every other category was rules only)."""
HEADS = (*LEGACY_HEADS, *(c for c in MODEL_SCORED if c not in ("hate", "spam")))
"""Statistical heads of format 5: one per category of `MODEL_SCORED` (pipeline/categories.py),
plus `toxic`, the public sets' offensive-or-not head, kept as a score of its own (the public-set
figures and the hate gate read it). Trained on Davidson's offensive tweets, it read swearing at
the cards ("anjing river", "b@szd meg river") as insults; the `insult` head learns the room's
meaning of insult from the authored chat."""


def head_categories(heads: tuple[str, ...]) -> tuple[str, ...]:
    """The score name of each head column: its own name, except that in an artifact without an
    `insult` head (format 2-4) the toxic head scores insult."""
    return tuple("insult" if h == "toxic" and "insult" not in heads else h for h in heads)
FORMAT_VERSION = 5
READABLE_VERSIONS = (2, 3, 4, 5)
DEFAULT_PATH = Path(__file__).resolve().parent.parent / "artifacts" / "chat_classifier.skops"


@dataclass(frozen=True)
class LanguageHead:
    """A toxic head of one language, trained on that language's own labelled set (same feature
    layout as the shared heads). For messages detected as that language the toxic probability is
    (1 - share) * shared head + share * this head: ru_distorted marks insults aimed at people,
    often without swearing, while the other sets and the word lists teach swearing as abuse."""

    weights: NDArray[np.float32]
    """n_features: folded-view n-grams."""
    bare_weights: NDArray[np.float32]
    """n_features: accent-free spaCy words."""
    lex_weights: NDArray[np.float32]
    intercept: float
    platt: tuple[float, float]
    share: float = 0.5
    """Weight of this head's probability against the shared toxic head's (chosen in training)."""


@dataclass(frozen=True)
class ChatModel:
    """Learned parameters: hashed n-gram weights, lexicon-feature weights, Platt scaling,
    per-category operating thresholds and the word-list lexicon."""

    n_features: int
    char_range: tuple[int, int]
    word_ngrams: int
    weights: NDArray[np.float32]
    """n_features x len(HEADS)."""
    lex_weights: NDArray[np.float32]
    """n_lexicon_features x len(HEADS)."""
    bare_weights: NDArray[np.float32]
    """n_features x len(HEADS): accent-free word unigrams (Vietnamese typed either way)."""
    intercepts: NDArray[np.float32]
    platt: NDArray[np.float32]
    """len(HEADS) x 2: probability = sigmoid(a * margin + b)."""
    thresholds: dict[str, float]
    lexicon: dict[str, int]
    meta: dict[str, Any]
    token_table: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per language: chunk -> its spaCy words (see `features.build_token_table`)."""
    language_heads: dict[str, LanguageHead] = field(default_factory=dict)
    """Per detected language: a toxic head of its own (format 4; none before)."""
    heads: tuple[str, ...] = LEGACY_HEADS
    """Names of the weight columns, in order (format 5: `HEADS`)."""
    rule_features: tuple[str, ...] = ()
    """Rule categories whose best pattern score per message is an input of every head (format 5)."""
    rule_weights: NDArray[np.float32] | None = None
    """len(rule_features) x len(heads); None before format 5."""
    auto_thresholds: dict[str, float] = field(default_factory=dict)
    """Automatic-action point per category (precision first); `thresholds` is the review point."""


def save_model(model: ChatModel, path: Path) -> None:
    """Write the model as a skops archive of plain arrays and dicts."""
    import skops.io as sio

    terms = sorted(model.lexicon)
    state: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "n_features": model.n_features,
        "char_range": list(model.char_range),
        "word_ngrams": model.word_ngrams,
        "weights": model.weights.astype(np.float32),
        "lex_weights": model.lex_weights.astype(np.float32),
        "bare_weights": model.bare_weights.astype(np.float32),
        "intercepts": model.intercepts.astype(np.float32),
        "platt": model.platt.astype(np.float32),
        "thresholds": dict(model.thresholds),
        # One UTF-8 blob + a mask array: loads in milliseconds, unlike a 100k-entry dict.
        "lexicon_blob": np.frombuffer("\n".join(terms).encode("utf-8"), dtype=np.uint8).copy(),
        "lexicon_masks": np.array([model.lexicon[t] for t in terms], dtype=np.int16),
        "meta": model.meta,
        "token_table_blob": np.frombuffer(
            _table_blob(model.token_table).encode("utf-8"), dtype=np.uint8
        ).copy(),
        "language_heads": {lang: _head_state(h) for lang, h in model.language_heads.items()},
        "heads": list(model.heads),
        "rule_features": list(model.rule_features),
        "rule_weights": _rule_weights(model).astype(np.float32),
        "auto_thresholds": dict(model.auto_thresholds),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    sio.dump(state, path, compression=ZIP_DEFLATED, compresslevel=6)


def load_model(path: Path) -> ChatModel:
    """Read a model written by `save_model`; only plain builtin and numpy types are trusted."""
    import skops.io as sio

    try:
        state = sio.load(path, trusted=[])
    except (OSError, EOFError, BadZipFile, KeyError, TypeError, ValueError) as exc:
        # A truncated or foreign file (skops' untrusted-type refusal is a TypeError): say which, at
        # load, never at the first message.
        raise ValueError(f"{path} is not a readable chat model archive ({type(exc).__name__}: {exc})") from None
    if not isinstance(state, dict) or state.get("format_version") not in READABLE_VERSIONS:
        raise ValueError(f"{path} is not a chat model of format version {FORMAT_VERSION}")
    try:
        model = _model_from(state)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path}: broken chat model ({type(exc).__name__}: {exc})") from None
    _check_shapes(model, path)
    return model


def _model_from(state: dict[str, Any]) -> ChatModel:
    blob = bytes(state["lexicon_blob"]).decode("utf-8")
    terms = blob.split("\n") if blob else []
    masks = state["lexicon_masks"].tolist()
    return ChatModel(
        n_features=int(state["n_features"]),
        char_range=(int(state["char_range"][0]), int(state["char_range"][1])),
        word_ngrams=int(state["word_ngrams"]),
        weights=np.ascontiguousarray(state["weights"], dtype=np.float32),
        lex_weights=np.asarray(state["lex_weights"], dtype=np.float32),
        bare_weights=np.ascontiguousarray(state["bare_weights"], dtype=np.float32),
        intercepts=np.asarray(state["intercepts"], dtype=np.float32),
        platt=np.asarray(state["platt"], dtype=np.float32),
        thresholds={str(k): float(v) for k, v in state["thresholds"].items()},
        lexicon=dict(zip(terms, masks, strict=True)),
        meta=dict(state["meta"]),
        # Version 2 had no spaCy token table: its bare words were the default split.
        token_table=_read_table(bytes(state.get("token_table_blob", b"")).decode("utf-8")),
        language_heads={str(k): _read_head(v) for k, v in state.get("language_heads", {}).items()},
        heads=tuple(str(h) for h in state.get("heads", LEGACY_HEADS)),
        rule_features=tuple(str(c) for c in state.get("rule_features", ())),
        rule_weights=(
            np.asarray(state["rule_weights"], dtype=np.float32) if state.get("rule_features") else None
        ),
        auto_thresholds={str(k): float(v) for k, v in state.get("auto_thresholds", {}).items()},
    )


def _rule_weights(model: ChatModel) -> NDArray[np.float32]:
    if model.rule_weights is None:
        return np.zeros((len(model.rule_features), len(model.heads)), dtype=np.float32)
    return model.rule_weights


def _check_shapes(model: ChatModel, path: Path) -> None:
    """Every array the classifier multiplies agrees with the head list: a mismatch would only
    surface as a numpy error at the first message."""
    n, k = model.n_features, len(model.heads)
    expected = {
        "weights": (model.weights.shape, (n, k)),
        "bare_weights": (model.bare_weights.shape, (n, k)),
        "intercepts": (model.intercepts.shape, (k,)),
        "platt": (model.platt.shape, (k, 2)),
    }
    if model.rule_weights is not None:
        expected["rule_weights"] = (model.rule_weights.shape, (len(model.rule_features), k))
    bad = [f"{name} {got} != {want}" for name, (got, want) in expected.items() if tuple(got) != want]
    if model.lex_weights.shape[1:] != (k,):
        bad.append(f"lex_weights {model.lex_weights.shape} has not {k} columns")
    if bad:
        raise ValueError(f"{path}: chat model arrays do not match its {k} heads: {'; '.join(bad)}")


def _head_state(head: LanguageHead) -> dict[str, Any]:
    return {
        "weights": head.weights.astype(np.float32),
        "bare_weights": head.bare_weights.astype(np.float32),
        "lex_weights": head.lex_weights.astype(np.float32),
        "intercept": float(head.intercept),
        "platt": [float(head.platt[0]), float(head.platt[1])],
        "share": float(head.share),
    }


def _read_head(state: dict[str, Any]) -> LanguageHead:
    return LanguageHead(
        weights=np.ascontiguousarray(state["weights"], dtype=np.float32),
        bare_weights=np.ascontiguousarray(state["bare_weights"], dtype=np.float32),
        lex_weights=np.asarray(state["lex_weights"], dtype=np.float32),
        intercept=float(state["intercept"]),
        platt=(float(state["platt"][0]), float(state["platt"][1])),
        share=float(state["share"]),
    )


def _table_blob(tables: dict[str, dict[str, str]]) -> str:
    """One line per entry: language TAB chunk TAB words (chunks hold no whitespace)."""
    return "\n".join(
        f"{lang}\t{chunk}\t{words}" for lang, t in sorted(tables.items()) for chunk, words in t.items()
    )


def _read_table(blob: str) -> dict[str, dict[str, str]]:
    tables: dict[str, dict[str, str]] = {}
    for line in blob.split("\n") if blob else []:
        lang, chunk, words = line.split("\t")
        tables.setdefault(lang, {})[chunk] = words
    return tables
