"""What `railbird import` tells at the end: per file, hands imported and rejected (by reason, with the
first line numbers), and how many of the file's bounty and chat lines reached the output.

`Tally` counts one file (or, added up, the run). Lines are counted per hand block as the importer
reads it (`count_block`), so "carried" means: in a hand that was imported and written out. A bounty
or chat line in a rejected hand, or outside any hand, is counted and reported as not carried rather
than silently missing from the totals. `summary_json` is the `--summary FILE` document; `render_text`
the same for a person, on stderr.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pipeline.hands import stars_lines as grammar
from pipeline.hands.ids import safe_id

FIRST_REJECTS = 5
"""Rejected hands kept with their reason per file (all are counted; `--rejects FILE` lists every one)."""
FIRST_LINES = 5
"""Line numbers kept per rejection reason per file."""
TEXT_FILES = 50
"""Files listed one by one in the text summary; the JSON summary lists them all."""


@dataclass(slots=True)
class Tally:
    """Counts of one file (or of the whole run)."""

    imported: int = 0
    rejected: int = 0
    chats: int = 0
    """Chat lines carried (written as chat.messages)."""
    seat_events: int = 0
    junk_lines: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    first: list[dict[str, Any]] = field(default_factory=list)
    first_lines: dict[str, list[int]] = field(default_factory=dict)
    """Reason -> the first line numbers rejected for it (per file; not kept in a run's total)."""
    chat_lines: int = 0
    """Chat lines seen in the file (in hands, imported or not, and outside any hand)."""
    bounty_lines: int = 0
    bounties: int = 0
    """Bounty lines carried (in an imported hand's `bounties_won`)."""
    bytes: int = 0

    def add(self, other: Tally) -> None:
        self.imported += other.imported
        self.rejected += other.rejected
        self.chats += other.chats
        self.seat_events += other.seat_events
        self.junk_lines += other.junk_lines
        self.reasons.update(other.reasons)
        self.first.extend(other.first[: max(0, FIRST_REJECTS - len(self.first))])
        self.chat_lines += other.chat_lines
        self.bounty_lines += other.bounty_lines
        self.bounties += other.bounties
        self.bytes += other.bytes

    def note_line(self, reason: str, line: int) -> None:
        lines = self.first_lines.setdefault(reason, [])
        if len(lines) < FIRST_LINES:
            lines.append(line)


def count_block(lines: list[str]) -> tuple[int, list[str]]:
    """(chat lines, the winner named by each bounty line) of one block. A cheap substring count
    first: nearly every hand has neither, and this runs on every hand of every file."""
    text = "\n".join(lines)
    chats = text.count(' said, "')
    if chats:
        chats = sum(1 for line in lines if grammar.CHAT.match(line))
    winners: list[str] = []
    if " for eliminating " in text or " for splitting the elimination of " in text:
        winners = [m["winner"] for line in lines if (m := grammar.BOUNTY.match(line))]
    return chats, winners


def bounties_carried(hand_json: str, winners: list[str]) -> int:
    """How many of an imported hand's bounty lines reached its `bounties_won` (a line whose winner
    is not seated, or in a cash hand, does not)."""
    if not winners:
        return 0
    won = json.loads(hand_json).get("bounties_won", {})
    return sum(1 for w in winners if safe_id(w) in won)


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def file_json(path: str, tally: Tally) -> dict[str, Any]:
    """One file's entry of the `--summary` document."""
    hands = tally.imported + tally.rejected
    return {
        "file": path,
        "bytes": tally.bytes,
        "imported": tally.imported,
        "rejected": tally.rejected,
        "imported_share": _share(tally.imported, hands),
        "rejected_by_reason": {k: {"hands": n, "first_lines": tally.first_lines.get(k, [])}
                               for k, n in sorted(tally.reasons.items())},
        "bounty_lines": tally.bounty_lines,
        "bounty_lines_carried": tally.bounties,
        "chat_lines": tally.chat_lines,
        "chat_lines_carried": tally.chats,
        "seat_events": tally.seat_events,
        "junk_lines": tally.junk_lines,
        "first_rejects": tally.first,
    }


def summary_json(
    files: list[tuple[str, Tally]], total: Tally, seconds: float, seat: dict[str, int]
) -> dict[str, Any]:
    """The whole `--summary FILE` document: every file, then the run's totals."""
    rate = total.imported / seconds if seconds > 0 else 0.0
    whole = file_json("", total)
    for key in ("file", "first_rejects"):
        whole.pop(key)
    whole["rejected_by_reason"] = dict(sorted(total.reasons.items()))  # line numbers are per file
    whole |= {"files": len(files), "seconds": round(seconds, 3), "hands_per_s": round(rate, 1), "seat": seat}
    return {"files": [file_json(path, tally) for path, tally in files], "total": whole}


def _carried(part: int, whole: int, what: str) -> str:
    return f"{part}/{whole} {what} lines carried" if whole else f"no {what} lines"


def _reasons(tally: Tally) -> str:
    parts = []
    for reason, count in sorted(tally.reasons.items()):
        lines = tally.first_lines.get(reason, [])
        where = f" (line {', '.join(map(str, lines))}{', ...' if count > len(lines) else ''})" if lines else ""
        parts.append(f"{reason} {count}{where}")
    return "; ".join(parts)


def file_text(path: str, tally: Tally) -> str:
    """One file's line of the text summary."""
    text = (f"{path}: {tally.imported} imported, {tally.rejected} rejected"
            f"{' [' + _reasons(tally) + ']' if tally.reasons else ''}; "
            f"{_carried(tally.bounties, tally.bounty_lines, 'bounty')}, {_carried(tally.chats, tally.chat_lines, 'chat')}")
    if tally.junk_lines:
        text += f"; {tally.junk_lines} lines outside any hand"
    return text


def render_text(summary: dict[str, Any], files: list[tuple[str, Tally]], total: Tally) -> str:
    """The summary for a person: one line per file (the first `TEXT_FILES`), then the totals."""
    lines = ["railbird import: summary per file"]
    lines += [f"  {file_text(path, tally)}" for path, tally in files[:TEXT_FILES]]
    if len(files) > TEXT_FILES:
        lines.append(f"  ... {len(files) - TEXT_FILES} more files (all of them in --summary FILE)")
    whole = summary["total"]
    lines.append(f"total: {whole['files']} files, {file_text('', total).removeprefix(': ')};"
                 f" {total.seat_events} seat events; {whole['seconds']} s, {whole['hands_per_s']:,.0f} hands/s")
    return "\n".join(lines) + "\n"
