"""Evidence of a case, merged from its findings: chat with spans, reports, seat timeline, hands."""

from __future__ import annotations

from typing import Any

from api.evidence.replay import replay
from api.findings.models import FindingRow


def merge(findings: list[FindingRow]) -> dict[str, Any]:
    """One evidence view for the case page; duplicates across findings collapse by their ids."""
    messages: dict[str, dict[str, Any]] = {}
    reports: dict[str, dict[str, Any]] = {}
    hands: dict[str, dict[str, Any]] = {}
    timeline: list[dict[str, Any]] = []
    statistics: list[dict[str, Any]] = []
    victims: set[str] = set()
    for row in findings:
        ev = row.document.get("evidence") or {}
        for msg in _dicts(ev.get("messages")):
            key = str(msg.get("event_id", len(messages)))
            if key in messages:  # the same line flagged twice: keep every span
                messages[key]["spans"] = _union(messages[key].get("spans"), msg.get("spans"))
            else:
                messages[key] = dict(msg)
        for rep in _dicts(ev.get("reports")):
            reports[str(rep.get("report_id") or rep.get("event_id") or len(reports))] = rep
        for hand in _dicts(ev.get("hands")):
            hands[str(hand.get("hand_id", len(hands)))] = hand
        timeline.extend(s for s in _dicts(ev.get("timeline")) if s not in timeline)
        if isinstance(ev.get("statistic"), dict):
            statistics.append({"finding_id": row.finding_id, **ev["statistic"]})
        victims.update(str(v) for v in ev.get("victims") or [] if isinstance(v, str))
        if row.document.get("spans") and not ev.get("messages"):
            statistics.append({"finding_id": row.finding_id, "name": "spans", "value": row.document["spans"]})
    return {
        "messages": sorted(messages.values(), key=lambda m: str(m.get("ts", ""))),
        "reports": list(reports.values()),
        "timeline": sorted(timeline, key=lambda s: (str(s.get("player_id")), str(s.get("start")))),
        "hands": [replay(h) for h in sorted(hands.values(), key=lambda h: str(h.get("ts", "")))],
        "statistics": statistics,
        "victims": sorted(victims),
    }


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _union(a: Any, b: Any) -> list[Any]:
    out = list(a or [])
    out.extend(s for s in (b or []) if s not in out)
    return out
