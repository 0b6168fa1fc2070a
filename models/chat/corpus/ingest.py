"""Adding an authored round: the writers' files in, training files out, minus every line that would
leak into training text it must stay apart from.

A writer writes `<lang>.tsv` or `<lang>-<x>.tsv` (`lang<TAB>label<TAB>text`, header first) from a
brief and the house rules alone (`authored/README.md`). Before the lines train anything, a line
whose folded form (`overlap.fold_text`) equals one of these is dropped and counted, by code, so
nobody reads the held-out text to do it:

- an independent evaluation line (`evalsets/independent/`, dev and report): the recall figures
  must stay measured on unseen text;
- a `poker_chat_dev` line (the shared development set, for looking at errors, never training);
- a line of a `bench/decision_chat/` round (the learning experiment's held-out room chat);
- a line of an earlier round, or of another writer of this round (a repeat adds weight, not text).

A malformed row, an unknown label or a row in another language than its file's is dropped and
counted too, with its line number (never its text): training must not silently mislabel.

    .venv/bin/python -m models.chat.corpus.ingest --round 7 bench/data/authoring/round-7 [--write [--out DIR]]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from models.chat.corpus.authored import AUTHORED_DIR, HEADER, LABELS, evaluation_keys, read_authored, tsv_keys
from models.chat.overlap import fold_text

POKER_CHAT_DEV = Path("poker_chat_dev") / "poker_chat_dev.tsv"
DECISION_CHAT = Path(__file__).resolve().parents[3] / "bench" / "decision_chat"


@dataclass(frozen=True, slots=True)
class Ingested:
    """One writer's file: what was written, kept and dropped (reason -> count), kept labels."""

    writer: str
    target: str
    as_written: int
    kept: tuple[str, ...]
    dropped: Counter[str] = field(default_factory=Counter)
    problems: tuple[str, ...] = ()
    """`file:line: reason` of each malformed or mislabelled row (no text)."""

    def summary(self) -> dict[str, object]:
        """The counts, for the round's README and the commit message."""
        labels = Counter(row.split("\t", 2)[1] for row in self.kept)
        return {
            "target": self.target, "as_written": self.as_written, "kept": len(self.kept),
            "dropped": dict(self.dropped), "labels": dict(sorted(labels.items())),
            "problems": list(self.problems),
        }


def held_out_keys(datasets_dir: Path, decision_dir: Path = DECISION_CHAT) -> dict[str, frozenset[str]]:
    """Reason -> folded texts a new training line must not equal (first reason wins)."""
    decisions: set[str] = set()
    for path in sorted(decision_dir.glob("*/*.tsv")):
        decisions |= tsv_keys(path)
    return {
        "evaluation": evaluation_keys(),
        "poker_chat_dev": tsv_keys(datasets_dir / POKER_CHAT_DEV),
        "decision_chat": frozenset(decisions),
    }


def target_name(stem: str, round_no: int) -> str:
    """`en` -> `en-7`, `vi-b` -> `vi-7b`: the writer's language, the round, its letter if any."""
    lang, _, letter = stem.partition("-")
    return f"{lang}-{round_no}{letter}"


def round_of(writer: str) -> int:
    """The round of a training file's stem: `en` 1, `en-6` 6, `vi-7b` 7."""
    digits = writer.partition("-")[2].rstrip("abcdefghijklmnopqrstuvwxyz")
    return int(digits) if digits.isdigit() else 1


def ingest_file(
    path: Path, *, round_no: int, held: Mapping[str, frozenset[str]], seen: set[str]
) -> Ingested:
    """One writer's file; `seen` holds the folded texts already in training or kept this round
    (updated with the lines kept here)."""
    lang = path.stem.partition("-")[0]
    rows = path.read_text(encoding="utf-8-sig").splitlines()
    dropped: Counter[str] = Counter()
    problems: list[str] = []
    kept: list[str] = []
    if not rows or rows[0].split("\t")[:3] != HEADER.split("\t"):
        return Ingested(path.stem, target_name(path.stem, round_no), 0, (),
                        Counter({"no_header": 1}), (f"{path}:1: the header must be {HEADER!r}",))
    body = [(n, r) for n, r in enumerate(rows[1:], start=2) if r.strip()]
    for number, row in body:
        parts = [p.strip() for p in row.split("\t", 2)]
        reason = _row_problem(parts, lang)
        if reason is not None:
            dropped[reason] += 1
            problems.append(f"{path}:{number}: {reason}")
            continue
        key = fold_text(parts[2])
        leak = next((name for name, keys in held.items() if key in keys), None)
        if leak is not None or key in seen:
            dropped[leak or "repeat"] += 1
            continue
        seen.add(key)
        kept.append("\t".join(parts))
    return Ingested(path.stem, target_name(path.stem, round_no), len(body), tuple(kept), dropped, tuple(problems))


def _row_problem(parts: Sequence[str], lang: str) -> str | None:
    if len(parts) != 3 or not parts[2]:
        return "malformed"
    if parts[1] not in LABELS:
        return "unknown_label"
    return "other_language" if parts[0] != lang else None


def ingest_round(
    files: Iterable[Path], *, round_no: int, held: Mapping[str, frozenset[str]], earlier: Iterable[str]
) -> list[Ingested]:
    """Every writer's file of a round, in name order, deduplicated against `earlier` (folded
    texts of the rounds already in training) and against each other."""
    seen = set(earlier)
    return [ingest_file(p, round_no=round_no, held=held, seen=seen) for p in sorted(files)]


def write(results: Iterable[Ingested], out_dir: Path = AUTHORED_DIR) -> list[Path]:
    """Each writer's kept lines as `out_dir/<target>.tsv`."""
    paths = []
    for result in results:
        path = out_dir / f"{result.target}.tsv"
        path.write_text("\n".join((HEADER, *result.kept)) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def main(argv: Sequence[str] | None = None) -> int:
    """Ingest a round folder; print the counts; with --write, save the training files."""
    from railbird.settings import load_settings  # the edge: settings only where the command runs

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the round's writer files (<lang>[-x].tsv)")
    parser.add_argument("--round", dest="round_no", type=int, required=True)
    parser.add_argument("--write", action="store_true", help="save the kept lines as <out>/<lang>-<round>.tsv")
    parser.add_argument("--out", type=Path, default=AUTHORED_DIR,
                        help="where --write saves them (default: the training corpus; an evaluation folder for a held-out round)")
    args = parser.parse_args(argv)
    files = sorted(args.folder.glob("*.tsv"))
    if not files:
        parser.error(f"no .tsv file in {args.folder}")
    earlier = (fold_text(ln.text) for ln in read_authored() if round_of(ln.writer) != args.round_no)
    results = ingest_round(files, round_no=args.round_no, held=held_out_keys(load_settings().datasets_dir),
                           earlier=earlier)
    print(json.dumps({r.writer: r.summary() for r in results}, indent=1, ensure_ascii=False))
    if args.write:
        for path in write(results, args.out):
            print(f"wrote {path}")
    return 1 if any(r.problems for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
