"""Reviewers' decisions as training rows: `GET /v1/labels/export` (JSON lines) -> `Sample`s.

What a row must pass to teach the model, each refusal counted by its reason:
- the export says it may train (`train`: no reviewer disagreement, reviewer still active, text kept);
- its category is one the text model learns (`clean` or a `MODEL_SCORED` head): flooding, shouting
  or a repeat offence is about many messages, not this text;
- its text is no line of an evaluation set (`evaluation_keys`, folded as `overlap.fold_text`): the
  independent sets stay unseen whatever the reviewers decided;
- its folded text is not disputed among the decisions on it: repeats collapse to one row (the room
  repeats lines: a planted spam line is decided hundreds of times) with the category at least
  `MAJORITY` of at least `MIN_VOTES` decisions gave it (one analyst's slip in twenty decisions of
  the same words must not throw the words away); any other split (one insult, one clean) teaches
  nothing and is left out.
The provenance of every row kept (labels, decisions, reviewers) is returned beside the samples.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from models.chat.corpus.authored import LABELS, TOXIC_LABELS, evaluation_keys
from models.chat.data import Sample
from models.chat.overlap import fold_text

MAJORITY = 0.75
MIN_VOTES = 3
SOURCE = "decisions"
"""`Sample.source` of a decision row (training weighs and routes it like the authored lines)."""


class DecisionFileError(ValueError):
    """An export line that is not a label object; names the file and line."""


@dataclass(frozen=True, slots=True)
class DecisionExample:
    """One exported label: the words, the verdict, and who gave it when."""

    text: str
    category: str
    language: str
    train: bool
    excluded_reason: str
    provenance: dict[str, Any]
    label_id: str


@dataclass(frozen=True, slots=True)
class DecisionRows:
    """The training rows made from an export, their provenance, and what was left out and why."""

    samples: tuple[Sample, ...]
    provenance: tuple[dict[str, Any], ...]
    """Per sample (same order): label ids, decision ids, reviewers, categories given."""
    excluded: dict[str, int] = field(default_factory=dict)
    read: int = 0

    def summary(self, *, digest: str = "") -> dict[str, Any]:
        """What the artifact's meta records about the decisions it trained on."""
        decided = sorted(str(d) for p in self.provenance for d in p["decided_at"])
        return {
            "export_sha256": digest,
            "labels_read": self.read,
            "rows": len(self.samples),
            "labels_used": sum(len(p["label_ids"]) for p in self.provenance),
            "excluded": dict(sorted(self.excluded.items())),
            "by_category": dict(sorted(Counter(s.category for s in self.samples).items())),
            "reviewers": len({r for p in self.provenance for r in p["reviewers"]}),
            "decided_between": [decided[0], decided[-1]] if decided else None,
        }


def read_export(path: Path) -> list[DecisionExample]:
    """Every label of an export file; a line that is not a label object is an error naming it."""
    out: list[DecisionExample] = []
    with path.open(encoding="utf-8") as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            out.append(parse_line(raw, origin=f"{path}:{number}"))
    return out


def parse_line(raw: str, *, origin: str) -> DecisionExample:
    """One export line as a `DecisionExample`."""
    try:
        obj = json.loads(raw)
    except ValueError as exc:
        raise DecisionFileError(f"{origin}: not JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise DecisionFileError(f"{origin}: expected a label object")
    missing = [k for k in ("text", "category", "train", "provenance") if k not in obj]
    if missing:
        raise DecisionFileError(f"{origin}: missing {', '.join(missing)} (is this a /v1/labels/export file?)")
    if not isinstance(obj["text"], str) or not isinstance(obj["category"], str) or not isinstance(obj["train"], bool):
        raise DecisionFileError(f"{origin}: text and category must be strings, train a boolean")
    prov = obj["provenance"] if isinstance(obj["provenance"], dict) else {}
    return DecisionExample(
        text=obj["text"], category=obj["category"], language=str(obj.get("language") or ""), train=obj["train"],
        excluded_reason=str(obj.get("excluded_reason") or ""), provenance=prov, label_id=str(obj.get("label_id", "")),
    )


def decision_rows(examples: Iterable[DecisionExample], *, held: frozenset[str] | None = None) -> DecisionRows:
    """Training rows from exported labels (module docstring); `held` defaults to every
    independent evaluation line (dev and report), folded."""
    held_keys = evaluation_keys() if held is None else held
    excluded: Counter[str] = Counter()
    groups: dict[str, list[DecisionExample]] = {}
    read = 0
    for ex in examples:
        read += 1
        key = fold_text(ex.text)
        if not ex.train:
            excluded["not trainable in the export: " + _reason_kind(ex.excluded_reason)] += 1
        elif ex.category not in LABELS:
            excluded[f"category {ex.category} is not learned from one message's text"] += 1
        elif not key:
            excluded["empty text"] += 1
        elif key in held_keys:
            excluded["repeats an evaluation line"] += 1
        else:
            groups.setdefault(key, []).append(ex)
    samples: list[Sample] = []
    provenance: list[dict[str, Any]] = []
    for group in groups.values():
        votes = Counter(ex.category for ex in group)
        top, n = votes.most_common(1)[0]
        if len(votes) > 1 and (len(group) < MIN_VOTES or n < MAJORITY * len(group)):
            excluded["the same text labelled differently by different decisions"] += len(group)
            continue
        if len(votes) > 1:
            excluded["outvoted by the other decisions on the same text"] += len(group) - n
        kept = [ex for ex in group if ex.category == top]
        samples.append(to_sample(kept[0]))
        provenance.append(_provenance(kept))
    return DecisionRows(tuple(samples), tuple(provenance), dict(excluded), read)


def to_sample(ex: DecisionExample) -> Sample:
    """A training row: the public heads' binary targets as the authored lines set them."""
    cat = ex.category
    return Sample(ex.text, SOURCE, ex.language, "train", int(cat != "clean"), toxic=int(cat in TOXIC_LABELS),
                  hate=int(cat == "hate"), spam=int(cat == "spam"), category=cat)


def _provenance(group: Sequence[DecisionExample]) -> dict[str, Any]:
    return {
        "label_ids": [ex.label_id for ex in group],
        "decision_ids": sorted({str(ex.provenance.get("decision_id", "")) for ex in group}),
        "reviewers": sorted({str(ex.provenance.get("reviewer", "")) for ex in group}),
        "decided_at": sorted({str(ex.provenance.get("decided_at", "")) for ex in group}),
        "category": group[0].category,
        "text_sha256": hashlib.sha256(group[0].text.encode("utf-8")).hexdigest(),
    }


def _reason_kind(reason: str) -> str:
    """The reason without names (`reviewers disagree: ann (analyst) ...` -> `reviewers disagree`):
    the counts go into the artifact's meta, reviewers' names do not."""
    if "deactivated" in reason:
        return "reviewer deactivated"
    return reason.split(":", 1)[0].strip() or "no reason given"


def file_digest(path: Path) -> str:
    """sha256 of the export file, recorded with the model it trained."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_provenance(rows: DecisionRows, path: Path) -> None:
    """One JSON line per training row made from decisions (no text: the export holds it)."""
    with path.open("w", encoding="utf-8") as fh:
        for prov in rows.provenance:
            fh.write(json.dumps(prov, ensure_ascii=False, sort_keys=True) + "\n")
