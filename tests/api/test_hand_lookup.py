"""The running hand of hand-in-play chat, looked up in the event archive (api/evidence/hand_lookup.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from api.evidence import hand_lookup
from consumers.archive import ArchivedRecord, SegmentWriter
from tests.samples import hand_value

SENT = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _archive(root: Path, *values: dict[str, object], at: datetime, topic: str = "hand.records") -> None:
    writer = SegmentWriter(root, name="t")
    at_ms = int(at.timestamp() * 1000)
    writer.append([ArchivedRecord(topic, 0, n, at_ms, json.dumps(v).encode()) for n, v in enumerate(values)])
    writer.close()


def _message(hand_id: str) -> dict[str, object]:
    return {"event_id": f"m-{hand_id}", "ts": SENT.isoformat(), "hand_id": hand_id, "text": "fold, he has it"}


def test_a_hand_not_archived_yet_is_looked_up_again_only_after_the_miss_ttl(tmp_path: Path) -> None:
    root = tmp_path / "archive"
    root.mkdir()
    assert hand_lookup.running_hands(root, [_message("hx-1")], [], now=SENT) == []
    _archive(root, hand_value(hand_id="hx-1"), at=SENT + timedelta(minutes=2))
    # Within the TTL the miss stands (a reload does not rescan the hour) ...
    assert hand_lookup.running_hands(root, [_message("hx-1")], [], now=SENT + timedelta(seconds=30)) == []
    # ... after it the hand, archived when it ended, is found.
    found = hand_lookup.running_hands(root, [_message("hx-1")], [], now=SENT + timedelta(minutes=2))
    assert [h["hand_id"] for h in found] == ["hx-1"]


def test_only_hand_records_in_the_window_count_and_known_hands_are_skipped(tmp_path: Path) -> None:
    root = tmp_path / "archive"
    # The id in a chat record, and the hand itself but two hours later: neither is this line's hand.
    _archive(root, {"hand_id": "hx-2", "text": "chat about hx-2"}, at=SENT, topic="chat.messages")
    _archive(root, hand_value(hand_id="hx-2"), at=SENT + timedelta(hours=2))
    _archive(root, hand_value(hand_id="hx-3"), at=SENT + timedelta(minutes=1))
    messages = [_message("hx-2"), _message("hx-3")]
    assert hand_lookup.running_hands(root, messages, [], now=SENT) == [hand_value(hand_id="hx-3")]
    assert hand_lookup.running_hands(root, messages, ["hx-3"], now=SENT) == []
    assert hand_lookup.running_hands(None, messages, [], now=SENT) == []
