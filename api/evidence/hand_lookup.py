"""The running hand of hand-in-play chat, read from the event archive for the case page.

`chat.hand_in_play` judges a message the moment it is typed, before its hand has ended, so its
finding can only name the hand (`hand_ids`, `players_in_hand`). The hand record reaches Kafka when
the hand ends, and the archive (`consumers/archive.py`, `railbird archive`) keeps it for the
evidence retention period: the case page looks it up there and shows it in the hand replayer
beside the line, so the analyst sees who was in the hand and what was shown.

Why here and not in the detector: holding every hand-in-play finding until its hand ends would
delay the review of the one chat category that is about a live hand, and tie a chat detector to
the hand topic's partitions. Without an archive (not started, or the hand's hour purged) the page
names the hand as before.

The window is by Kafka timestamp, which is the producer's clock: the hand's record is produced
minutes after the message (a hand lasts one to three), and a room that streams a backlog (the
demo's first hour) produces records up to an hour after their own time. 15 minutes before the
message to 75 after covers both; at most `MAX_HANDS` hands per page, hits cached per process, a
miss remembered for `MISS_TTL` (the hand may still be running) so reloads do not rescan.

Cost: a lookup reads the archive's hours in the window (every topic: the files are by hour, not by
topic) and stops after `MAX_SCANNED` records. Fine for the demo's room (about 14,000 records an
hour); a room producing millions of records an hour needs an index by hand id written beside the
archive, which is not built (docs/shadow-and-retro.md, "Event archive").
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from api.findings.models import FindingRow
from consumers.archive import read_range

HAND_TOPIC = "hand.records"
BEFORE = timedelta(minutes=15)
AFTER = timedelta(minutes=75)
MAX_HANDS = 5
MAX_SCANNED = 200_000
MISS_TTL = timedelta(seconds=60)
_CACHE_SIZE = 1024
_found: OrderedDict[str, dict[str, Any]] = OrderedDict()
"""Hand records found, by hand id (a hand record never changes once written)."""
_missed: OrderedDict[str, datetime] = OrderedDict()
"""Hand ids looked up in vain, with when: not looked up again before `MISS_TTL` has passed."""


def in_play_messages(findings: Sequence[FindingRow]) -> list[dict[str, Any]]:
    """The messages of a case's hand-in-play findings (other chat typed during a hand, an insult
    say, is not about the hand: no lookup for it)."""
    out: list[dict[str, Any]] = []
    for row in findings:
        if row.category == "hand_in_play":
            messages = (row.document.get("evidence") or {}).get("messages")
            out.extend(m for m in messages or [] if isinstance(m, dict))
    return out


def running_hands(root: Path | None, messages: Iterable[dict[str, Any]],
                  known: Iterable[str], *, now: datetime) -> list[dict[str, Any]]:
    """Hand records of the hands messages were typed in, oldest message first, skipping hands in
    `known` (already evidence); [] without an archive."""
    if root is None or not root.is_dir():
        return []
    wanted: dict[str, datetime] = {}
    have = set(known)
    for message in messages:
        hand_id, ts = message.get("hand_id"), _time(message.get("ts"))
        if isinstance(hand_id, str) and hand_id and hand_id not in have and ts is not None:
            wanted.setdefault(hand_id, ts)
    out: list[dict[str, Any]] = []
    for hand_id, ts in list(wanted.items())[:MAX_HANDS]:
        record = _found.get(hand_id)
        missed = _missed.get(hand_id)
        if record is None and (missed is None or now - missed >= MISS_TTL):
            record = _search(root, hand_id, ts)
            if record is None:
                _missed[hand_id] = now
                while len(_missed) > _CACHE_SIZE:
                    _missed.popitem(last=False)
        if record is not None:
            out.append(record)
    return out


def _search(root: Path, hand_id: str, ts: datetime) -> dict[str, Any] | None:
    needle = json.dumps(hand_id).encode()  # the id as it appears in the JSON value, quotes included
    start, end = int((ts - BEFORE).timestamp() * 1000), int((ts + AFTER).timestamp() * 1000)
    for scanned, record in enumerate(read_range(root, start, end)):
        if scanned >= MAX_SCANNED:
            return None
        if record.topic != HAND_TOPIC or needle not in record.value:
            continue
        try:
            value = json.loads(record.value)
        except ValueError:
            continue  # a record the consumers dead-lettered: not evidence
        if isinstance(value, dict) and value.get("hand_id") == hand_id:
            _remember(hand_id, value)
            _missed.pop(hand_id, None)
            return value
    return None  # not archived (yet): not cached, the hand may still be running


def _remember(hand_id: str, value: dict[str, Any]) -> None:
    _found[hand_id] = value
    while len(_found) > _CACHE_SIZE:
        _found.popitem(last=False)


def _time(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None
