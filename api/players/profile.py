"""A player's page: one timeline of cases, findings, sanctions and appeals; linked players; nicknames.

Everything is bounded (the newest `limit` of each kind, linked players from those), so the page
costs a fixed number of index range scans however long the player's history is.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.appeals.models import Appeal
from api.cases.models import Case, CaseTag
from api.cases.tags import tag
from api.findings.models import FindingRow
from api.players.service import history
from api.sanctions.models import Sanction

LINKS_SHOWN = 12
PEERS_SCANNED = 500
"""Rows read per kind of link (shared tables, shared reporters): the graph shows the strongest."""


@dataclass(frozen=True, slots=True)
class TimelineItem:
    """One dated thing on the player's timeline."""

    ts: datetime
    kind: str
    title: str
    status: str
    case_id: str | None


@dataclass(slots=True)
class Link:
    """Another player and what ties them to this one (counts per kind, pair statistics quoted)."""

    player_id: str
    kinds: Counter[str] = field(default_factory=Counter)
    stats: list[str] = field(default_factory=list)

    @property
    def weight(self) -> int:
        """How strongly linked: the number of ties of every kind."""
        return sum(self.kinds.values())


@dataclass(frozen=True, slots=True)
class Nickname:
    """A nickname the player was seen with in evidence, and when."""

    nickname: str
    first_seen: str
    last_seen: str
    times: int


@dataclass(frozen=True, slots=True)
class Profile:
    """Everything the player page shows."""

    player_id: str
    timeline: list[TimelineItem]
    links: list[Link]
    nicknames: list[Nickname]
    counts: dict[str, int]
    limit: int


def profile(session: Session, *, player_id: str, limit: int = 100) -> Profile:
    """The player's page, newest `limit` of each kind."""
    h = history(session, player_id=player_id, limit=limit)
    appeals = list(session.scalars(select(Appeal).where(Appeal.case_id.in_([c.id for c in h.cases]))
                                   .order_by(Appeal.created_at.desc()).limit(limit))) if h.cases else []
    timeline = sorted([*_case_items(h.cases), *_finding_items(h.findings), *_sanction_items(h.sanctions),
                       *_appeal_items(appeals)], key=lambda t: t.ts, reverse=True)
    links = linked_players(session, player_id=player_id, findings=h.findings)
    counts = {"cases": len(h.cases), "findings": len(h.findings), "sanctions": len(h.sanctions),
              "appeals": len(appeals)}
    return Profile(player_id, timeline, links, nicknames_of(h.findings, player_id=player_id), counts, limit)


def _case_items(cases: list[Case]) -> list[TimelineItem]:
    return [TimelineItem(c.created_at, "case", f"{c.category} case ({c.family}, {c.finding_count} findings)",
                         c.status, c.id) for c in cases]


def _finding_items(findings: list[FindingRow]) -> list[TimelineItem]:
    return [TimelineItem(f.ts, "finding", f"{f.detector}: {f.category} ({f.score:.2f})", "", f.case_id)
            for f in findings]


def _sanction_items(sanctions: list[Sanction]) -> list[TimelineItem]:
    return [TimelineItem(s.created_at, "sanction", f"{s.kind} ({s.scope}{': ' + s.scope_value if s.scope_value else ''})"
                         f"{' automatic' if s.automatic else ''}", s.status, s.case_id) for s in sanctions]


def _appeal_items(appeals: list[Appeal]) -> list[TimelineItem]:
    return [TimelineItem(a.created_at, "appeal", "appeal", a.status, a.case_id) for a in appeals]


def linked_players(session: Session, *, player_id: str, findings: list[FindingRow]) -> list[Link]:
    """Players named with this one, met at the same tables, or reported by the same reporters."""
    links: dict[str, Link] = defaultdict(lambda: Link(""))

    def tie(other: str, kind: str, stat: str | None = None) -> None:
        if other and other != player_id:
            link = links[other]
            link.player_id = other
            link.kinds[kind] += 1
            if stat and stat not in link.stats and len(link.stats) < 4:
                link.stats.append(stat)

    for f in findings:
        for other in f.players or []:
            tie(other, "named together", _pair_stat(f.document))
    tables = sorted({f.table_id for f in findings if f.table_id})[:20]
    for other in _subjects_tagged(session, [tag("table", t) for t in tables]):
        tie(other, "shared table")
    reporters = sorted({r for f in findings for r in _reporters_of(f.document, player_id)})[:20]
    for reporter in reporters:
        tie(reporter, "reported them")
    for other in _subjects_tagged(session, [tag("reporter", r) for r in reporters]):
        tie(other, "shared reporter")
    return sorted(links.values(), key=lambda lk: (-lk.weight, lk.player_id))[:LINKS_SHOWN]


def _subjects_tagged(session: Session, tags: list[str]) -> list[str]:
    if not tags:
        return []
    stmt = (select(Case.subject_id).join(CaseTag, CaseTag.case_id == Case.id).where(CaseTag.tag.in_(tags))
            .limit(PEERS_SCANNED))
    return list(session.scalars(stmt))


def _pair_stat(document: dict[str, Any]) -> str | None:
    """'name value (expected e) over n hands' from a finding's statistic, if it carries one."""
    ev = _evidence(document)
    stat = ev.get("statistic")
    if not isinstance(stat, dict) or "name" not in stat:
        return None
    text = f"{stat['name']} {_num(stat.get('value'))}"
    if stat.get("expected") is not None:
        text += f" (expected {_num(stat['expected'])})"
    hands = ev.get("hand_ids")
    if isinstance(hands, list) and hands:
        text += f" over {len(hands)} hands"
    return text[:160]


def _num(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)[:40]


def _evidence(document: dict[str, Any]) -> dict[str, Any]:
    ev = document.get("evidence")
    return ev if isinstance(ev, dict) else {}


def _reporters_of(document: dict[str, Any], player_id: str) -> list[str]:
    reports = _evidence(document).get("reports")
    if not isinstance(reports, list):
        return []
    return [str(r["reporter_id"]) for r in reports
            if isinstance(r, dict) and r.get("reported_id") == player_id and isinstance(r.get("reporter_id"), str)]


def nicknames_of(findings: list[FindingRow], *, player_id: str) -> list[Nickname]:
    """Nicknames in the evidence of the player's findings (their own chat lines, nickname findings)."""
    seen: dict[str, list[str]] = defaultdict(list)
    for f in findings:
        ev = _evidence(f.document)
        if f.subject_id == player_id and isinstance(ev.get("nickname"), str):
            seen[ev["nickname"]].append(f.ts.isoformat())
        for m in ev.get("messages") or []:
            if isinstance(m, dict) and m.get("player_id") == player_id and isinstance(m.get("nickname"), str) \
                    and m["nickname"]:
                seen[m["nickname"]].append(str(m.get("ts") or f.ts.isoformat()))
    out = [Nickname(n, min(ts), max(ts), len(ts)) for n, ts in seen.items()]
    return sorted(out, key=lambda n: n.last_seen, reverse=True)
