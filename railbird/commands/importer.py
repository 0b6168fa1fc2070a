"""`railbird import hands PATH`: GGPoker, PokerStars and PHH histories -> topic-tagged JSON lines.

The output is the replay envelope (`{"topic": ..., "value": {...}}`): `hand.records` for every hand
that passes the contract and `chat.messages` for the chat lines in the files (with the running
hand's id and players), so it feeds `railbird replay` directly. Every hand is imported or rejected
with the line and the rule it breaks (`--rejects FILE` lists each); a JSON summary per file and one
for the whole run go to stderr. Never a crash on a bad file.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from pipeline.contracts import CHAT, HAND, SEAT
from pipeline.hands.importing import Imported, Junk, Rejected, Seats, file_outcomes
from pipeline.hands.seating import SeatTracker
from railbird.settings import Settings

SUFFIXES = {".txt", ".hh", ".phh", ".phhs"}
"""Files a folder import reads; a file named on the command line is read whatever its suffix."""
FIRST_REJECTS = 5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`hands PATH [--format] [--out] [--rejects]`."""
    parser.add_argument("what", choices=["hands"], help="what to import")
    parser.add_argument("path", help="a hand-history file or a folder of them")
    parser.add_argument("--format", choices=["auto", "phh", "pokerstars", "ggpoker"], default="auto",
                        help="auto: PHH by suffix, otherwise each hand by its header (PokerStars or GGPoker)")
    parser.add_argument("--out", help="output JSON lines file (default: stdout)")
    parser.add_argument("--rejects", help="write every rejected hand as a JSON line (file, line, kind, reason)")


@dataclass(slots=True)
class Tally:
    """Counts of one file (or of the whole run)."""

    imported: int = 0
    rejected: int = 0
    chats: int = 0
    seat_events: int = 0
    junk_lines: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    first: list[dict[str, Any]] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.imported += other.imported
        self.rejected += other.rejected
        self.chats += other.chats
        self.seat_events += other.seat_events
        self.junk_lines += other.junk_lines
        self.reasons.update(other.reasons)
        self.first.extend(other.first[: max(0, FIRST_REJECTS - len(self.first))])


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Import every hand under PATH; exit 0 if at least one hand imported, 1 if none, 2 on bad PATH."""
    del settings
    root = Path(args.path)
    if not root.exists():
        print(f"railbird import: no such path: {root}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    total = Tally()
    files = 0
    out: TextIO = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout  # noqa: SIM115
    rejects: TextIO | None = open(args.rejects, "w", encoding="utf-8") if getattr(args, "rejects", None) else None  # noqa: SIM115
    seats = SeatTracker()  # one for the run: a table's hands may continue in the next file
    try:
        for path in _files(root):
            tally = import_file(path, getattr(args, "format", "auto"), out, rejects, seats)
            files += 1
            total.add(tally)
            print(json.dumps(_summary(tally) | {"file": str(path)}, ensure_ascii=False), file=sys.stderr)
    finally:
        if args.out:
            out.close()
        if rejects is not None:
            rejects.close()
    elapsed = time.perf_counter() - started
    rate = total.imported / elapsed if elapsed > 0 else 0.0
    summary = _summary(total) | {"files": files, "seconds": round(elapsed, 3), "hands_per_s": round(rate, 1)}
    summary.pop("first_rejects")
    summary["seat"] = seat_summary(seats)
    print(json.dumps(summary), file=sys.stderr)
    return 0 if total.imported else 1


def _files(root: Path) -> Iterator[Path]:
    if root.is_file():
        yield root
        return
    yield from sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)


def seat_summary(seats: SeatTracker) -> dict[str, int]:
    """What the seat derivation could and could not see over the run."""
    return {**{k: seats.counts[k] for k in sorted(seats.counts)}, "open_stints_at_end": seats.open_stints()}


def import_file(
    path: Path, fmt: str, out: TextIO, rejects: TextIO | None, seats: SeatTracker | None = None
) -> Tally:
    """Write one file's events to `out` (seat events and chat lines before the hand they belong to)."""
    tally = Tally()
    hand_prefix = f'{{"topic":"{HAND}","value":'
    chat_prefix = f'{{"topic":"{CHAT}","value":'
    seat_prefix = f'{{"topic":"{SEAT}","value":'
    try:
        for outcome in file_outcomes(path, fmt, seats):
            if isinstance(outcome, Seats):
                for value in outcome.values:
                    out.write(f"{seat_prefix}{value}}}\n")
                tally.seat_events += len(outcome.values)
            elif isinstance(outcome, Imported):
                for chat in outcome.chats:
                    out.write(f"{chat_prefix}{chat}}}\n")
                tally.chats += len(outcome.chats)
                out.write(f"{hand_prefix}{outcome.hand_json}}}\n")
                tally.imported += 1
            elif isinstance(outcome, Rejected):
                _reject(tally, path, outcome, rejects)
            elif isinstance(outcome, Junk):
                tally.junk_lines += outcome.count
    except OSError as exc:
        _reject(tally, path, Rejected(0, "unreadable", f"{type(exc).__name__}: {exc}"), rejects)
    return tally


def _reject(tally: Tally, path: Path, outcome: Rejected, rejects: TextIO | None) -> None:
    entry = {"file": str(path), "line": outcome.line, "topic": outcome.topic, "hand_id": outcome.hand_id,
             "kind": outcome.kind, "reason": outcome.reason}
    if outcome.topic == HAND:
        tally.rejected += 1
        tally.reasons[outcome.kind] += 1
    else:
        tally.reasons[f"{'chat' if outcome.topic == CHAT else 'seat'}_{outcome.kind}"] += 1
    if len(tally.first) < FIRST_REJECTS:
        tally.first.append(entry)
    if rejects is not None:
        rejects.write(json.dumps(entry, ensure_ascii=False) + "\n")


def _summary(tally: Tally) -> dict[str, Any]:
    hands = tally.imported + tally.rejected
    return {
        "imported": tally.imported, "rejected": tally.rejected, "reasons": dict(tally.reasons),
        "imported_share": round(tally.imported / hands, 4) if hands else None,
        "chat_messages": tally.chats, "seat_events": tally.seat_events, "junk_lines": tally.junk_lines, "first_rejects": tally.first,
    }
