"""Readers for the shared labelled chat sets (read from a path, never copied) and their splits.

Each reader returns frozen `Sample`s; `split` follows the set's official split where there is one,
else a stratified 80/20 (Davidson: 90/10, as published) with seed 42.
"""

from __future__ import annotations

import ast
import csv
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split

SEED = 42
SHIPPABLE = ("davidson", "sms_spam", "vihos", "ru_distorted")
"""Sets whose licence allows training the shipped model (datasets/README.md)."""
EVAL_ONLY = ("id_ibrohim", "vihsd")


@dataclass(frozen=True, slots=True)
class Sample:
    """One labelled text: `label` is the set's own class; `toxic`/`spam` the binary targets."""

    text: str
    source: str
    lang: str
    split: str
    label: int
    toxic: int = 0
    hate: int = 0
    spam: int = 0
    category: str = ""
    """The room's chat category of an authored line (`clean` or one of `MODEL_SCORED`); "" for
    the public sets, whose labels are only the binary targets above."""


def _split(n: int, labels: list[int], *, test_size: float) -> list[str]:
    """Stratified train/test assignment, seed 42."""
    idx = np.arange(n)
    _, test_idx = train_test_split(idx, test_size=test_size, random_state=SEED, stratify=labels)
    test = set(test_idx.tolist())
    return ["test" if i in test else "train" for i in range(n)]


def _rows(path: Path, *, delimiter: str = ",", encoding: str = "utf-8") -> list[dict[str, str]]:
    csv.field_size_limit(sys.maxsize)
    with path.open(encoding=encoding, newline="") as fh:
        return list(csv.DictReader(fh, delimiter=delimiter))


_TWITTER = re.compile(r"\bRT\b|@\w+:?|&\w+;|&#\d+;|https?://\S+")


def strip_twitter(text: str) -> str:
    """Tweet artefacts (RT, @mentions, HTML entities, links) that chat never has: left in, the
    model would learn 'RT @' as offensive because most Davidson tweets are."""
    return " ".join(_TWITTER.sub(" ", text).split())


def load_davidson(root: Path, *, clean: bool = True) -> list[Sample]:
    """Davidson et al. 2017 tweets: 0 hate / 1 offensive / 2 neither (MIT)."""
    rows = _rows(root / "davidson" / "labeled_data.csv")
    if clean:
        for r in rows:
            r["tweet"] = strip_twitter(r["tweet"])
    labels = [int(r["class"]) for r in rows]
    splits = _split(len(rows), labels, test_size=0.1)
    return [
        Sample(r["tweet"], "davidson", "en", s, y, toxic=int(y < 2), hate=int(y == 0))
        for r, y, s in zip(rows, labels, splits, strict=True)
    ]


def davidson_agreement(root: Path) -> list[float]:
    """Per Davidson row (file order, as `load_davidson`): the share of its annotators who chose
    its class (1.0 = unanimous, 0.5-0.67 = split). Used as training weights by the recipe check."""
    rows = _rows(root / "davidson" / "labeled_data.csv")
    votes = ("hate_speech", "offensive_language", "neither")
    return [max(int(r[v]) for v in votes) / max(1, int(r["count"])) for r in rows]


def davidson_hate_share(root: Path) -> list[float]:
    """Per Davidson row (file order): the share of its annotators who called it hate speech. The
    recipe check regresses it: a 1-of-3 hate vote is weaker evidence than 3 of 3, which the
    majority class label throws away."""
    rows = _rows(root / "davidson" / "labeled_data.csv")
    return [int(r["hate_speech"]) / max(1, int(r["count"])) for r in rows]


def load_sms_spam(root: Path) -> list[Sample]:
    """SMS Spam Collection: ham/spam (CC BY 4.0)."""
    path = root / "sms_spam" / "SMSSpamCollection"
    with path.open(encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE) if len(r) >= 2]
    labels = [int(r[0] == "spam") for r in rows]
    splits = _split(len(rows), labels, test_size=0.2)
    return [
        Sample(r[1], "sms_spam", "en", s, y, spam=y) for r, y, s in zip(rows, labels, splits, strict=True)
    ]


def load_vihos(root: Path) -> list[Sample]:
    """ViHOS Vietnamese comments with offensive spans; label = has a span (MIT)."""
    files = {
        "train": "Span_Extraction_based_version_train.csv",
        "dev": "Span_Extraction_based_version_dev.csv",
        "test": "Test_data_test.csv",
    }
    out: list[Sample] = []
    for split, name in files.items():
        for r in _rows(root / "vihos" / name):
            spans = ast.literal_eval(r.get("index_spans") or "[]")
            y = int(bool(spans))
            out.append(Sample(r["content"], "vihos", "vi", split, y, toxic=y))
    return out


_VK_MENTION = re.compile(r"\[id\d+\|[^\]]*\],?\s*")


def strip_vk(text: str) -> str:
    """VKontakte reply mentions ("[id123|Name], ") that chat never has: a user id and a first
    name, noise to the n-grams (like Davidson's @user)."""
    return _VK_MENTION.sub("", text).strip()


def load_ru_distorted(root: Path, *, clean: bool = True) -> list[Sample]:
    """Russian distorted toxicity comments (MIT)."""
    rows = _rows(root / "ru_distorted" / "russian_distorted_toxicity.tsv", delimiter="\t")
    labels = [int(r["toxicity"]) for r in rows]
    splits = _split(len(rows), labels, test_size=0.2)
    return [
        Sample(strip_vk(r["comments"]) if clean else r["comments"], "ru_distorted", "ru", s, y, toxic=y)
        for r, y, s in zip(rows, labels, splits, strict=True)
    ]


def ru_corrected_train(root: Path) -> list[Sample]:
    """The set's own corrections of its distorted TRAIN rows ("по%уй" -> "похуй"), as extra
    training rows with the same label: the model sees each masked word's plain form too."""
    rows = _rows(root / "ru_distorted" / "russian_distorted_toxicity.tsv", delimiter="\t")
    labels = [int(r["toxicity"]) for r in rows]
    splits = _split(len(rows), labels, test_size=0.2)
    return [
        Sample(strip_vk(r["corrected"]), "ru_distorted", "ru", "train", y, toxic=y)
        for r, y, s in zip(rows, labels, splits, strict=True)
        if s == "train" and (r.get("corrected") or "").strip() and r["corrected"] != r["comments"]
    ]


def load_ibrohim(root: Path, *, column: str = "Abusive") -> list[Sample]:
    """Ibrohim & Budi 2019 Indonesian tweets (CC BY-NC-SA: evaluation and recipes only)."""
    rows = _rows(root / "id_ibrohim" / "re_dataset.csv", encoding="latin-1")
    labels = [int(r[column]) for r in rows]
    splits = _split(len(rows), labels, test_size=0.2)
    return [
        Sample(r["Tweet"], "id_ibrohim", "id", s, y, toxic=y)
        for r, y, s in zip(rows, labels, splits, strict=True)
    ]


def load_vihsd(root: Path) -> list[Sample]:
    """ViHSD 0 clean / 1 offensive / 2 hate (research use only: evaluation and recipes only)."""
    out: list[Sample] = []
    for split in ("train", "dev", "test"):
        for r in _rows(root / "vihsd" / f"{split}.csv"):
            y = int(r["label_id"])
            out.append(Sample(r["free_text"], "vihsd", "vi", split, y, toxic=int(y > 0), hate=int(y == 2)))
    return out


LOADERS = {
    "davidson": load_davidson,
    "sms_spam": load_sms_spam,
    "vihos": load_vihos,
    "ru_distorted": load_ru_distorted,
    "id_ibrohim": load_ibrohim,
    "vihsd": load_vihsd,
}


def _ibrohim_hs(root: Path) -> list[Sample]:
    """Ibrohim with its hate-speech column as the target."""
    return load_ibrohim(root, column="HS")


EVAL_LOADERS = {**LOADERS, "id_ibrohim_hs": _ibrohim_hs}
"""Every loader a public test set needs (Ibrohim twice: its abuse and its hate-speech column)."""

PUBLIC_TESTS: dict[str, tuple[str, str, str | None]] = {
    "davidson_test_offensive_or_hate": ("davidson", "toxic", "test"),
    "sms_spam_test": ("sms_spam", "spam", "test"),
    "vihos_test": ("vihos", "toxic", "test"),
    "ru_distorted_test": ("ru_distorted", "toxic", "test"),
    "ibrohim_abusive_all": ("id_ibrohim", "toxic", None),
    "vihsd_test_offensive_or_hate": ("vihsd", "toxic", "test"),
    # The hate score alone: hate vs everything else (incl. plain offensive).
    "davidson_test_hate": ("davidson", "hate", "test"),
    "vihsd_test_hate": ("vihsd", "hate", "test"),
    "ibrohim_hs_all": ("id_ibrohim_hs", "hate", None),
}
"""The model card's public test sets: name -> (source, category scored, split; None = every row).
One list for the model card report (`evaluate`) and the registry's comparison (`compare`)."""


def target_of(sample: Sample, category: str) -> int:
    """The sample's 0/1 target for a reported category (Ibrohim HS rows carry it in `toxic`)."""
    if category == "spam":
        return sample.spam
    if category == "hate" and sample.source != "id_ibrohim":
        return sample.hate
    return sample.toxic

