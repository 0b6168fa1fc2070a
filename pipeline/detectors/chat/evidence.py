"""Building findings the same way in every chat, SnapCam and nickname detector.

One place decides the evidence layout the console reads (`evidence.messages` with spans) and
derives family and house-rule reference from the category, so detectors cannot disagree on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pipeline.categories import CATEGORIES
from pipeline.contracts import ChatMessage
from pipeline.findings import Finding, Span, stable_id


def message_evidence(message: ChatMessage, spans: Sequence[Span] = ()) -> dict[str, Any]:
    """One entry of `evidence.messages` for a chat message; the running hand (and who was in it)
    when there was one, so the console can tie table talk to the hand it was about."""
    entry: dict[str, Any] = {
        "event_id": message.event_id,
        "ts": message.ts.isoformat(),
        "player_id": message.player_id,
        "nickname": message.nickname,
        "channel": message.channel,
        "text": message.text,
        "spans": [s.model_dump() for s in spans],
    }
    if message.hand_id is not None:
        entry["hand_id"] = message.hand_id
        entry["players_in_hand"] = list(message.players_in_hand or ())
    return entry


def make_finding(
    *,
    detector: str,
    category: str,
    score: float,
    players: Sequence[str],
    ts: datetime,
    summary: str,
    id_parts: Sequence[object],
    source_event_ids: Sequence[str],
    evidence: dict[str, Any],
    spans: Sequence[Span] = (),
    window: tuple[datetime, datetime] | None = None,
    table_id: str | None = None,
    tournament_id: str | None = None,
) -> Finding:
    """A finding whose id derives from detector and `id_parts`, rule and family from category."""
    family, rule = CATEGORIES[category]
    return Finding(
        finding_id=stable_id("fnd", detector, *id_parts),
        detector=detector,
        rule=rule,
        family=family,
        category=category,
        score=min(1.0, max(0.0, score)),
        players=tuple(dict.fromkeys(players)),
        ts=ts,
        window_start=window[0] if window else None,
        window_end=window[1] if window else None,
        table_id=table_id,
        tournament_id=tournament_id,
        summary=summary[:500],
        source_event_ids=tuple(dict.fromkeys(source_event_ids)),
        spans=tuple(spans),
        evidence=evidence,
    )


def place_of(message: ChatMessage) -> str:
    """Where a message was said: its table, tournament, the private pair, or the lobby."""
    if message.table_id is not None:
        return f"table:{message.table_id}"
    if message.tournament_id is not None:
        return f"tournament:{message.tournament_id}"
    if message.recipient_id is not None:
        return "private:" + ":".join(sorted((message.player_id, message.recipient_id)))
    return "lobby"
