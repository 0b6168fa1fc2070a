"""Training chat written for the room's categories by independent writers (`authored/<lang>.tsv`).

Same format as the independent evaluation sets (`lang<TAB>label<TAB>text`, header first), written
for training by people who had not seen the rules or patterns: every chat category in en, id, vi,
hu, uk and ru, with hard negatives (poker jargon, deal talk, self-deprecation) among the clean
lines. Ours, so the shipped model may train on it. Kept apart from the evaluation sets (a test
checks no line repeats one of theirs).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pipeline.categories import MODEL_SCORED

AUTHORED_DIR = Path(__file__).resolve().parent / "authored"
EVALSETS_DIR = Path(__file__).resolve().parent.parent / "evalsets" / "independent"
CLEAN = "clean"
HEADER = "lang\tlabel\ttext"
"""The first line of every authored and independent file."""
LABELS = frozenset({CLEAN, *MODEL_SCORED})
TOXIC_LABELS = frozenset({"insult", "threat", "sexual"})
"""Authored categories that are abuse at a person (rule chat.3 without hate): the toxic head's
positives, as Davidson's "offensive" class is. Hate lines teach the hate head only (see
`training.head_rows`)."""


@dataclass(frozen=True, slots=True)
class AuthoredLine:
    """One authored training line; `writer` is its file (one writer per language)."""

    lang: str
    label: str
    text: str
    writer: str


def read_authored(folder: Path = AUTHORED_DIR) -> list[AuthoredLine]:
    """Every line of every `*.tsv` in the folder, in file order; a malformed row is an error
    naming its file and line (training must not silently drop or mislabel text)."""
    out: list[AuthoredLine] = []
    for path in sorted(folder.glob("*.tsv")):
        rows = path.read_text(encoding="utf-8-sig").splitlines()
        if not rows or rows[0].split("\t")[:3] != HEADER.split("\t"):
            raise ValueError(f"{path}:1: the header must be lang<TAB>label<TAB>text")
        for number, row in enumerate(rows[1:], start=2):
            if not row.strip():
                continue
            parts = row.split("\t", 2)
            if len(parts) != 3 or not parts[2].strip() or parts[1].strip() not in LABELS:
                raise ValueError(f"{path}:{number}: expected lang<TAB>label<TAB>text with a known label")
            out.append(AuthoredLine(parts[0].strip(), parts[1].strip(), parts[2], path.stem))
    return out


def evaluation_keys(folder: Path = EVALSETS_DIR) -> frozenset[str]:
    """Folded texts (`overlap.fold_text`) of every independent evaluation line (dev and report).
    Authored lines equal to one are left out of training, so the evaluation sets stay unseen
    (writers working apart still wrote a few of the same short questions, such as asking a
    player's real name). Only the folded keys are kept, nothing is printed or logged."""
    keys: set[str] = set()
    for path in sorted(folder.glob("*/*.tsv")):
        keys |= tsv_keys(path)
    return frozenset(keys)


def tsv_keys(path: Path) -> frozenset[str]:
    """Folded texts (`overlap.fold_text`) of one `lang<TAB>label<TAB>text` file; empty if it does not exist."""
    from models.chat.overlap import fold_text

    if not path.is_file():
        return frozenset()
    rows = (row.split("\t", 2) for row in path.read_text(encoding="utf-8-sig").splitlines()[1:])
    return frozenset(fold_text(parts[2]) for parts in rows if len(parts) == 3)
