"""Which texts the training code has seen: the guard of every held-out figure.

A text "occurs in the training data" when its folded form (Unicode NFC, case-folded, runs of
whitespace made one space, ends trimmed) equals the folded form of a training text. Two uses:
`railbird eval chat` drops such rows from zero-shot figures and counts them (a public test split
often repeats texts of another public set the model trained on: 1,387 of ViHSD's test texts are in
ViHOS), and the independent evaluation sets are checked to share no line with any of it.
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from models.chat.corpus.poker import LABELLED
from models.chat.corpus.table_talk import BASE, table_talk
from models.chat.data import EVAL_ONLY, LOADERS, SHIPPABLE, ru_corrected_train

log = logging.getLogger(__name__)

TRAINING_SPLITS = ("train", "dev")
"""Splits the shipped model and the recipes train (or tune) on; `test` is only ever scored."""


def fold_text(text: str) -> str:
    """The comparison key: NFC, case-folded, whitespace runs made one space, ends trimmed."""
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


@dataclass(frozen=True, slots=True)
class SeenTexts:
    """Folded training texts, and which sources were read (and which could not be)."""

    keys: frozenset[str]
    sources: tuple[str, ...]
    missing: tuple[str, ...] = ()

    def __contains__(self, text: object) -> bool:
        return isinstance(text, str) and fold_text(text) in self.keys

    def describe(self) -> dict[str, object]:
        """What the check compared against, for an evaluation's output."""
        return {"texts": len(self.keys), "sources": list(self.sources), "unavailable": list(self.missing)}


def authored_texts() -> list[str]:
    """Every line the team wrote that the training code trains on (`training.authored_samples`)."""
    # Imported here: training.py pulls in the whole training stack, which a reader of the
    # shipped model's figures should not pay for unless it asks what the model has seen.
    from models.chat.training import authored_samples

    return [s.text for s in authored_samples()]


def authored_test_texts() -> SeenTexts:
    """The team's own test lines (the rules' labelled examples and the table-talk set): not
    training text, but the rules were written to pass them, so an evaluation counts the lines it
    shares with them (and keeps them)."""
    texts = [t for t, _, _ in LABELLED] + [t for lang in BASE for t in table_talk(lang)]
    return SeenTexts(
        frozenset(fold_text(t) for t in texts), ("authored_poker_labelled", "authored_table_talk")
    )


def shipped_training_texts(datasets_dir: Path) -> SeenTexts:
    """What the shipped model trained on (`training.training_pool`): the licensed sets' train and
    dev splits, ru_distorted's corrections, and the authored lines. A set that cannot be read is
    listed as unavailable rather than failing the evaluation that asked."""
    return _collect(datasets_dir, SHIPPABLE, with_corrections=True)


def all_training_texts(datasets_dir: Path) -> SeenTexts:
    """Everything any training code here fits on: the shipped model's pool plus the train and
    dev splits of the eval-only sets the recipe check trains its throw-away models on."""
    return _collect(datasets_dir, (*SHIPPABLE, *EVAL_ONLY), with_corrections=True)


def _collect(datasets_dir: Path, names: Iterable[str], *, with_corrections: bool) -> SeenTexts:
    keys: set[str] = {fold_text(t) for t in authored_texts()}
    sources = ["authored"]
    missing: list[str] = []
    readers: list[tuple[str, Callable[[Path], list[str]]]] = [(name, _split_reader(name)) for name in names]
    if with_corrections:
        readers.append(("ru_distorted_corrected", lambda root: [s.text for s in ru_corrected_train(root)]))
    for name, read in readers:
        try:
            texts = read(datasets_dir)
        except (OSError, KeyError, ValueError, UnicodeDecodeError) as exc:
            log.warning("training set %s unreadable under %s (%s): not checked", name, datasets_dir, exc)
            missing.append(name)
            continue
        keys.update(fold_text(t) for t in texts)
        sources.append(name)
    keys.discard("")
    return SeenTexts(frozenset(keys), tuple(sources), tuple(missing))


def _split_reader(name: str) -> Callable[[Path], list[str]]:
    loader = LOADERS[name]
    return lambda root: [s.text for s in loader(root) if s.split in TRAINING_SPLITS]
