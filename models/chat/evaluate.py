"""`railbird eval chat`: the chat model on any labelled CSV, the model-card report, or the whole
chat path on independently written poker chat.

`--csv`: ROC-AUC, precision/recall/F1 at the operating threshold, per detected language.
`--report`: every figure in models/MODEL_CARD.md (shipped model on the public sets' test parts,
the eval-only sets and the authored table-talk and poker corpora).
`--independent [PATH ...]`: recall per category x language, clean lines flagged and automatic-action
precision of every chat detector and policy (`models/chat/independent.py`).
"""

from __future__ import annotations

import argparse
import codecs
import csv
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.metrics import f1_score, precision_score, recall_score, roc_auc_score

from models.chat import load_classifier
from models.chat.classifier import ChatClassifier
from models.chat.corpus.poker import LABELLED
from models.chat.corpus.table_talk import BASE, table_talk
from models.chat.data import EVAL_LOADERS, PUBLIC_TESTS, target_of
from models.chat.overlap import SeenTexts, shipped_training_texts
from railbird.settings import Settings

TOXIC_FAMILY = ("insult", "hate", "threat", "sexual")


def add_chat_eval_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `railbird eval chat`."""
    parser.add_argument("--csv", type=Path, help="labelled CSV/TSV file")
    parser.add_argument("--text-col", default="text", help="text column name (or index with --no-header)")
    parser.add_argument("--label-col", default="label", help="label column name (or index)")
    parser.add_argument(
        "--positive", default="1", help="label value(s) meaning 'should be moderated', comma-separated"
    )
    parser.add_argument("--sep", default=",", help="field separator (\\t for TSV)")
    parser.add_argument("--encoding", default="utf-8")
    parser.add_argument("--no-header", action="store_true", help="columns are 0-based indices")
    parser.add_argument(
        "--category",
        default="toxic",
        help="score to rank by: toxic (insult/hate/threat/sexual), any, or a category",
    )
    parser.add_argument("--model", type=Path, default=None, help="artifact (default: settings / shipped)")
    parser.add_argument("--report", action="store_true", help="print every model-card figure as JSON")
    parser.add_argument(
        "--keep-seen", action="store_true",
        help="keep rows found verbatim (case and spacing folded) in the shipped model's training data "
             "(by default they are dropped from --csv and --report figures and counted)",
    )  # fmt: skip
    parser.add_argument(
        "--independent", type=Path, nargs="*", metavar="PATH", default=None,
        help="lang/label/text TSV files or folders of them, through every chat detector and policy "
             "(default: the dev and report folders of models/chat/evalsets/independent)",
    )
    parser.add_argument("--markdown", action="store_true", help="with --independent: Markdown tables, not JSON")
    parser.add_argument("--out", type=Path, default=None, help="with --independent: also write the JSON here")


def run_chat_eval(args: argparse.Namespace, settings: Settings) -> int:
    """Print evaluation JSON; exit code 2 on unusable input."""
    if args.independent is not None:
        return run_independent_eval(args, settings)
    classifier = load_classifier(args.model or settings.chat_model_path, cache_dir=settings.resolved_cache_dir())
    seen = None if args.keep_seen else shipped_training_texts(settings.datasets_dir)
    if args.report:
        print(json.dumps(model_card_report(classifier, datasets_dir=settings.datasets_dir, seen=seen), indent=2))
        return 0
    if args.csv is None:
        print("eval chat: give --csv PATH (or --report)", file=sys.stderr)
        return 2
    try:
        texts, labels = read_labelled_csv(args)
    except (OSError, KeyError, ValueError, UnicodeDecodeError) as exc:
        print(f"eval chat: cannot read {args.csv}: {exc}", file=sys.stderr)
        return 2
    texts, labels, dropped = drop_seen(texts, labels, seen)
    if not texts:
        print(f"eval chat: every row of {args.csv} is training text (--keep-seen keeps them)", file=sys.stderr)
        return 2
    result = evaluate(classifier, texts, labels, category=args.category)
    print(json.dumps({**result, **seen_counts(dropped, seen)}, indent=2))
    return 0


def drop_seen(
    texts: Sequence[str], labels: Sequence[int], seen: SeenTexts | None
) -> tuple[list[str], list[int], int]:
    """The rows whose text the training data does not hold, and how many were dropped. A figure
    on a row the model trained on says nothing about text it has never seen: 1,253 of ViHSD's
    6,680 test texts are in ViHOS's train and dev splits, which the shipped model learns from."""
    if seen is None:
        return list(texts), list(labels), 0
    kept = [(t, y) for t, y in zip(texts, labels, strict=True) if t not in seen]
    return [t for t, _ in kept], [y for _, y in kept], len(texts) - len(kept)


def seen_counts(dropped: int, seen: SeenTexts | None) -> dict[str, Any]:
    """What an evaluation's output says about the rows it dropped."""
    if seen is None:
        return {"seen_in_training_dropped": None}
    return {"seen_in_training_dropped": dropped, "training_texts_checked": seen.describe()}


def read_labelled_csv(args: argparse.Namespace) -> tuple[list[str], list[int]]:
    """Texts and 0/1 labels from the CSV described by the arguments."""
    sep = "\t" if args.sep in ("\\t", "tab") else args.sep
    positives = {p.strip() for p in str(args.positive).split(",")}
    csv.field_size_limit(sys.maxsize)
    texts: list[str] = []
    labels: list[int] = []
    with Path(args.csv).open(encoding=reading_encoding(args.encoding), newline="") as fh:
        if args.no_header:
            t, lab = int(args.text_col), int(args.label_col)
            for row in csv.reader(fh, delimiter=sep):
                if len(row) > max(t, lab):
                    texts.append(row[t])
                    labels.append(int(row[lab].strip() in positives))
        else:
            reader = csv.DictReader(fh, delimiter=sep)
            for column in (args.text_col, args.label_col):
                if column not in (reader.fieldnames or ()):
                    raise ValueError(f"no column {column!r}; the header has {list(reader.fieldnames or ())}")
            for drow in reader:
                texts.append(drow[args.text_col] or "")
                labels.append(int((drow[args.label_col] or "").strip() in positives))
    if not texts:
        raise ValueError("no rows")
    return texts, labels


def reading_encoding(name: str) -> str:
    """The codec to open a file with: UTF-8 files from spreadsheet exports start with a byte-order
    mark, which plain "utf-8" keeps as part of the first column's name ("\ufeffinput_text")."""
    try:
        canonical = codecs.lookup(name).name
    except LookupError:
        raise ValueError(f"unknown encoding {name!r}") from None
    return "utf-8-sig" if canonical == "utf-8" else name


def category_scores(
    classifier: ChatClassifier, texts: Sequence[str], category: str
) -> tuple[list[float], list[bool], list[str]]:
    """Ranking score, flagged-at-operating-threshold and language per text."""
    scores: list[float] = []
    flags: list[bool] = []
    langs: list[str] = []
    for i in range(0, len(texts), 2048):
        for v in classifier.classify(texts[i : i + 2048]):
            cats = (
                TOXIC_FAMILY if category == "toxic" else tuple(v.scores) if category == "any" else (category,)
            )
            # The public sets' offensive-or-not head is `toxic` where the model has one of its own.
            ranked = ("toxic", *cats[1:]) if category == "toxic" and "toxic" in v.scores else cats
            scores.append(max(v.scores.get(c, 0.0) for c in ranked))
            flags.append(any(c in v.flagged for c in cats))
            langs.append(v.language)
    return scores, flags, langs


def binary_metrics(labels: Sequence[int], scores: Sequence[float], flags: Sequence[bool]) -> dict[str, Any]:
    """n, positives, ROC-AUC and precision/recall/F1 at the operating threshold."""
    y = np.asarray(labels)
    out: dict[str, Any] = {"n": len(y), "positives": int(y.sum())}
    out["roc_auc"] = round(float(roc_auc_score(y, scores)), 4) if 0 < y.sum() < len(y) else None
    for name, fn in (("precision", precision_score), ("recall", recall_score), ("f1", f1_score)):
        out[name] = round(float(fn(y, np.asarray(flags), zero_division=0)), 4)
    return out


def evaluate(
    classifier: ChatClassifier, texts: Sequence[str], labels: Sequence[int], *, category: str
) -> dict[str, Any]:
    """Overall and per-language figures."""
    scores, flags, langs = category_scores(classifier, texts, category)
    result = binary_metrics(labels, scores, flags)
    result["category"] = category
    per: dict[str, Any] = {}
    for lang in sorted(set(langs)):
        idx = [i for i, lg in enumerate(langs) if lg == lang]
        per[lang] = binary_metrics(
            [labels[i] for i in idx], [scores[i] for i in idx], [flags[i] for i in idx]
        )
    result["per_language"] = per
    return result


def model_card_report(
    classifier: ChatClassifier, *, datasets_dir: Path, seen: SeenTexts | None = None
) -> dict[str, Any]:
    """Every figure of the model card, recomputed; public test rows found in the training data
    (`seen`) are left out and counted per set."""
    report: dict[str, Any] = {}
    if seen is not None:
        report["training_texts_checked"] = seen.describe()
    for name, (source, category, split) in PUBLIC_TESTS.items():
        samples = [s for s in EVAL_LOADERS[source](datasets_dir) if split is None or s.split == split]
        texts, labels, dropped = drop_seen([s.text for s in samples], [target_of(s, category) for s in samples], seen)
        report[name] = evaluate(classifier, texts, labels, category=category)
        report[name].pop("per_language")
        report[name]["seen_in_training_dropped"] = dropped if seen is not None else None
    report["table_talk_flag_rate"] = {}
    for lang in BASE:
        flagged = [v.flagged for v in classifier.classify(table_talk(lang))]
        report["table_talk_flag_rate"][lang] = {
            "n": len(flagged),
            "flagged": sum(1 for f in flagged if f),
            "rate": round(sum(1 for f in flagged if f) / len(flagged), 4),
        }
    verdicts = classifier.classify([t for t, _, _ in LABELLED])
    hits = [cat in v.flagged for (_, _, cat), v in zip(LABELLED, verdicts, strict=True)]
    report["authored_poker_categories_recall"] = round(sum(hits) / len(hits), 4)
    return report


INDEPENDENT_DIR = Path(__file__).resolve().parent / "evalsets" / "independent"
DEFAULT_INDEPENDENT = (INDEPENDENT_DIR / "dev", INDEPENDENT_DIR / "report", INDEPENDENT_DIR / "report-7")
"""`dev` is for looking at errors; `report` and `report-7` (eight more writers, harder clean lines)
are held out: only their aggregate figures are read."""


def run_independent_eval(args: argparse.Namespace, settings: Settings) -> int:
    """Every set through a fresh pipeline built as `railbird replay` builds it."""
    from models.chat.independent import EvalSetError, evaluate_set, iter_sets, markdown, read_set
    from models.chat.overlap import all_training_texts, authored_test_texts
    from railbird.wiring import make_pipeline

    explicit = bool(args.independent)
    paths = list(args.independent) if explicit else list(DEFAULT_INDEPENDENT)
    if args.model is not None:
        settings = settings.model_copy(update={"chat_model_path": args.model})
    seen, tests = all_training_texts(settings.datasets_dir), authored_test_texts()
    results: dict[str, dict[str, Any]] = {}
    for name, path in iter_sets(paths):
        try:
            lines = read_set(path)
        except EvalSetError as exc:
            if explicit or path.is_file() or not path.parent.is_dir():
                print(f"eval chat: {exc}", file=sys.stderr)
                return 2
            results[name] = {"note": f"{exc} yet: nothing to evaluate"}
            continue
        results[name] = evaluate_set(lines, make_pipeline(settings), seen=seen, tests=tests)
        results[name]["training_texts_checked"] = seen.describe()
    text = json.dumps(results, indent=2, ensure_ascii=False)
    if args.out is not None:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(markdown(results) if args.markdown else text)
    return 0
