"""`railbird import hands PATH`: GGPoker, PokerStars and PHH histories -> topic-tagged JSON lines.

The output is the replay envelope (`{"topic": ..., "value": {...}}`): `hand.records` for every hand
that passes the contract and `chat.messages` for the chat lines in the files (with the running
hand's id and players), so it feeds `railbird replay` directly. Every hand is imported or rejected
with the line and the rule it breaks (`--rejects FILE` lists each). While it runs, progress goes to
stderr (`railbird.progress`); at the end a summary per file (`railbird.import_summary`) goes to
stderr, and as JSON to `--summary FILE`. Never a crash on a bad file.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from pipeline.contracts import CHAT, HAND
from pipeline.hands.history_io import Block
from pipeline.hands.importing import (
    PHH_SUFFIXES,
    Imported,
    Junk,
    Outcome,
    Rejected,
    Seats,
    phh_outcomes,
    text_outcomes,
)
from pipeline.hands.seating import SeatTracker
from railbird.import_sinks import SINKS, ReplayLines, Sink
from railbird.import_summary import (
    FIRST_REJECTS,
    Tally,
    bounties_carried,
    count_block,
    render_text,
    summary_json,
)
from railbird.progress import MODES, Progress, choose_mode
from railbird.settings import Settings

__all__ = ["FIRST_REJECTS", "Tally", "import_file", "run"]

SUFFIXES = {".txt", ".hh", ".phh", ".phhs"}
"""Files a folder import reads; a file named on the command line is read whatever its suffix."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`hands PATH [--format] [--to] [--out] [--rejects] [--summary] [--progress]`."""
    parser.add_argument("what", choices=["hands"], help="what to import")
    parser.add_argument("path", help="a hand-history file or a folder of them")
    parser.add_argument("--format", choices=["auto", "phh", "pokerstars", "ggpoker"], default="auto",
                        help="auto: PHH by suffix, otherwise each hand by its header (PokerStars or GGPoker)")
    parser.add_argument("--to", choices=sorted(SINKS), default="replay",
                        help="replay: topic-tagged JSON lines for `railbird replay`; phh: the hands as one .phhs"
                             " document (PHH holds no chat or seat events)")
    parser.add_argument("--out", help="output file (default: stdout); with --to phh it must end in .phhs")
    parser.add_argument("--rejects", help="write every rejected hand as a JSON line (file, line, kind, reason)")
    parser.add_argument("--summary", help="write the per-file summary (and the run's totals) as JSON here")
    parser.add_argument("--progress", choices=MODES, default="auto",
                        help="auto: a bar when stderr is a terminal (lines when stdout is that terminal too),"
                             " a line every 10 s otherwise")


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Import every hand under PATH; exit 0 if at least one hand imported, 1 if none, 2 on bad PATH."""
    del settings
    root = Path(args.path)
    if not root.exists():
        print(f"railbird import: no such path: {root}", file=sys.stderr)
        return 2
    to = getattr(args, "to", "replay")
    if to == "phh" and args.out and not args.out.lower().endswith(".phhs"):
        # A .phh file holds one hand; the PHH importer reads many only from a .phhs file.
        print(f"railbird import: --to phh writes many hands, so --out must end in .phhs: {args.out}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    paths = list(_files(root))
    total, done = Tally(), []
    writes_stdout = not args.out
    progress = Progress(sys.stderr, choose_mode(getattr(args, "progress", "auto"), sys.stderr, sys.stdout, writes_stdout),
                        files=len(paths), total_bytes=sum(_size(p) for p in paths))
    try:
        out: TextIO = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout  # noqa: SIM115
        rejects: TextIO | None = open(args.rejects, "w", encoding="utf-8") if getattr(args, "rejects", None) else None  # noqa: SIM115
    except OSError as exc:
        print(f"railbird import: cannot write {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2
    sink = SINKS[to](out)
    # One tracker for the run (a table's hands may continue in the next file); none when not written.
    seats = SeatTracker() if sink.side_topics else None
    try:
        for path in paths:
            tally = import_file(path, getattr(args, "format", "auto"), out, rejects, seats, progress, total, sink)
            total.add(tally)
            done.append((str(path), tally))
    finally:
        progress.close()
        if args.out:
            out.close()
        else:
            out.flush()  # the summary on stderr comes after the last JSON line on a shared terminal
        if rejects is not None:
            rejects.close()
    summary = summary_json(done, total, time.perf_counter() - started, seat_summary(seats) if seats is not None else {})
    summary["total"]["to"] = sink.name
    sys.stderr.write(render_text(summary, done, total))
    if not sink.side_topics:
        print(f"railbird import: --to {sink.name}: chat lines and seat events are not written (the format holds"
              " hands only); 'carried' counts them as not carried", file=sys.stderr)
    if getattr(args, "summary", None):
        try:
            Path(args.summary).write_text(json.dumps(summary, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        except OSError as exc:
            print(f"railbird import: cannot write the summary to {args.summary}: {exc.strerror}", file=sys.stderr)
            return 2
    return 0 if total.imported else 1


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # unreadable: import_file rejects it with the reason


def _files(root: Path) -> Iterator[Path]:
    if root.is_file():
        yield root
        return
    yield from sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)


def seat_summary(seats: SeatTracker) -> dict[str, int]:
    """What the seat derivation could and could not see over the run."""
    return {**{k: seats.counts[k] for k in sorted(seats.counts)}, "open_stints_at_end": seats.open_stints()}


def import_file(
    path: Path,
    fmt: str,
    out: TextIO,
    rejects: TextIO | None,
    seats: SeatTracker | None = None,
    progress: Progress | None = None,
    before: Tally | None = None,
    sink: Sink | None = None,
) -> Tally:
    """Write one file's events to `sink` (default: replay lines to `out`, seat events and chat lines
    before the hand they belong to). `progress` is shown as it goes, counting the hands of `before`
    (the files already done) too."""
    sink = sink if sink is not None else ReplayLines(out)
    tally = Tally()
    counts = _BlockCounts()
    earlier = before.imported + before.rejected if before is not None else 0
    try:
        with path.open("rb") as stream:
            # PHH files are TOML documents read whole; the text formats stream in bounded memory.
            phh = fmt == "phh" or (fmt == "auto" and path.suffix.lower() in PHH_SUFFIXES)
            outcomes = phh_outcomes(path) if phh else text_outcomes(stream, seats, counts.see)
            for outcome in outcomes:
                _write(outcome, tally, counts, path, sink, rejects)
                if progress is not None and progress.due():
                    progress.show(earlier + tally.imported + tally.rejected, stream.tell())
    except OSError as exc:
        _reject(tally, path, Rejected(0, "unreadable", f"{type(exc).__name__}: {exc}"), rejects)
    tally.bytes = _size(path)
    if progress is not None:
        progress.file_done(tally.bytes)
    return tally


class _BlockCounts:
    """Chat and bounty lines of the block being read, until its outcome takes them."""

    def __init__(self) -> None:
        self._chats = 0
        self._winners: list[str] = []

    def see(self, block: Block) -> None:
        self._chats, self._winners = count_block(block.lines)

    def take(self) -> tuple[int, list[str]]:
        taken = (self._chats, self._winners)
        self._chats, self._winners = 0, []
        return taken


def _write(outcome: Outcome, tally: Tally, counts: _BlockCounts, path: Path, sink: Sink, rejects: TextIO | None) -> None:
    if isinstance(outcome, Seats):
        sink.seats(outcome.values)
        tally.seat_events += len(outcome.values)
    elif isinstance(outcome, Imported):
        sink.hand(outcome)
        if sink.side_topics:
            tally.chats += len(outcome.chats)
        tally.imported += 1
        chats, winners = counts.take()
        tally.chat_lines += chats
        tally.bounty_lines += len(winners)
        tally.bounties += bounties_carried(outcome.hand_json, winners)
    elif isinstance(outcome, Rejected):
        if outcome.topic == HAND:
            chats, winners = counts.take()
            tally.chat_lines += chats
            tally.bounty_lines += len(winners)
        _reject(tally, path, outcome, rejects)
    elif isinstance(outcome, Junk):
        chats, winners = counts.take()  # none after a hand: its trailing junk was counted with it
        tally.chat_lines += chats
        tally.bounty_lines += len(winners)
        tally.junk_lines += outcome.count


def _reject(tally: Tally, path: Path, outcome: Rejected, rejects: TextIO | None) -> None:
    entry = {"file": str(path), "line": outcome.line, "topic": outcome.topic, "hand_id": outcome.hand_id,
             "kind": outcome.kind, "reason": outcome.reason}
    reason = outcome.kind if outcome.topic == HAND else f"{'chat' if outcome.topic == CHAT else 'seat'}_{outcome.kind}"
    if outcome.topic == HAND:
        tally.rejected += 1
    tally.reasons[reason] += 1
    tally.note_line(reason, outcome.line)
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
