"""Findings for API tests, built like the detectors build them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from pipeline.findings import ActionProposal, Finding, stable_id

T0 = datetime(2026, 3, 1, 11, 0, tzinfo=UTC)


def chat_finding(n: int = 0, *, player: str = "p-alice", table: str | None = "t-1", tournament: str | None = None,
                 score: float = 0.9, category: str = "insult", automatic: bool = False,
                 kind: str = "chat_ban", text: str = "you are an idiot", **extra: Any) -> Finding:
    """A chat finding with one message and one span; `automatic` adds a 15-minute mute instead of a ban."""
    fid = stable_id("fnd", "chat", player, n, table, tournament, category)
    ts = T0 + timedelta(seconds=n)
    action = ActionProposal(
        action_id=stable_id("act", fid, kind), disposition="automatic" if automatic else "proposed",
        kind=kind,  # type: ignore[arg-type]
        scope="feature" if kind.startswith("chat") else "account", scope_value="chat" if kind.startswith("chat") else None,
        player_id=player, starts_at=ts, expires_at=ts + timedelta(minutes=15) if automatic else None,
        reason=f"{category} in chat", rule="chat.3",
    )
    return Finding(
        finding_id=fid, detector="chat.banned_words", rule="chat.3", family="chat", category=category,
        score=score, players=(player,), ts=ts, table_id=table, tournament_id=tournament,
        summary=f"{category}: {text}", source_event_ids=(f"msg-{n}",),
        evidence={"messages": [{"event_id": f"msg-{n}", "ts": ts.isoformat(), "player_id": player,
                                "nickname": "Alice", "channel": "table", "text": text,
                                "spans": [{"start": 13, "end": 18, "label": category}]}]},
        actions=(action,), **extra,
    )


def batch(*findings: Finding) -> dict[str, Any]:
    """Request body for POST /v1/findings/batch."""
    return {"findings": [f.model_dump(mode="json") for f in findings]}
