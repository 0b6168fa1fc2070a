"""`railbird import hands PATH`: PHH or PokerStars hand histories -> hand.records JSON lines.

The output is the replay envelope (`{"topic": "hand.records", "value": {...}}`), so it feeds
`railbird replay` directly. Every hand is validated with the same contract the consumers use; a hand
that fails is counted with its reason on stderr and left out, never a crash.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from pipeline.contracts import HAND, DecodeError, decode
from pipeline.hands.errors import HandIntegrityError
from pipeline.hands.phh import parse_phh, parse_phh_all
from pipeline.hands.pokerstars import parse_hand, split_hands
from pipeline.replay import envelope_line
from railbird.settings import Settings

SUFFIXES = {".txt": "pokerstars", ".phh": "phh", ".phhs": "phh"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`hands PATH [--format] [--out]`."""
    parser.add_argument("what", choices=["hands"], help="what to import")
    parser.add_argument("path", help="a hand-history file or a folder of them")
    parser.add_argument("--format", choices=["auto", "phh", "pokerstars"], default="auto")
    parser.add_argument("--out", help="output JSON lines file (default: stdout)")


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Import every hand under PATH; exit 0 if at least one hand imported, 1 if none, 2 on bad PATH."""
    root = Path(args.path)
    if not root.exists():
        print(f"railbird import: no such path: {root}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    reasons: Counter[str] = Counter()
    written = 0
    out: TextIO = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout  # noqa: SIM115
    try:
        for value in iter_values(root, fmt=args.format, reasons=reasons):
            try:
                decode(HAND, json.dumps(value).encode("utf-8"))
            except DecodeError as exc:
                reasons[_reason_key(str(exc))] += 1
                continue
            out.write(envelope_line(HAND, value) + "\n")
            written += 1
    finally:
        if args.out:
            out.close()
    elapsed = time.perf_counter() - started
    rate = written / elapsed if elapsed > 0 else 0.0
    summary = {"imported": written, "rejected": sum(reasons.values()), "reasons": dict(reasons),
               "seconds": round(elapsed, 3), "hands_per_s": round(rate, 1)}
    print(json.dumps(summary), file=sys.stderr)
    return 0 if written else 1


def iter_values(root: Path, *, fmt: str, reasons: Counter[str]) -> Iterator[dict[str, Any]]:
    """hand.records values from every file under root; unreadable hands are counted in reasons."""
    files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
    for path in files:
        kind = fmt if fmt != "auto" else SUFFIXES.get(path.suffix.lower())
        if kind is None:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if kind == "pokerstars":
            for block in split_hands(text):
                try:
                    yield parse_hand(block, source="ps")
                except HandIntegrityError as exc:
                    reasons[exc.kind] += 1
        else:
            try:
                values = parse_phh_all(text, name=path.stem) if path.suffix == ".phhs" else [parse_phh(text, name=path.stem)]
            except HandIntegrityError as exc:
                reasons[exc.kind] += 1
                continue
            yield from values


def _reason_key(message: str) -> str:
    """Error kind of a decode failure ('illegal_action', ...) for the summary counts."""
    for part in message.replace(",", " ").split():
        if part.endswith(":") and part[:-1].isidentifier() and "_" in part:
            return part[:-1]
    return "invalid"
