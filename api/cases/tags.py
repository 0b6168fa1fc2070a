"""Search tags of a case: what its findings name (detectors, languages, players, nicknames, tables,
tournaments, hands, reporters), as `kind:value` strings in `case_tags`.

The queue filters (detector, language) and the search box (player id, nickname, table, tournament,
hand id) become one index lookup on `(tag, case_id)` instead of a scan of the findings' JSON. Each
tag row also carries the case's family (which never changes), so a filter within one family seeks
`(tag, family)`: a detector or language that never occurs in a family is an empty range, not a scan
of every tagged case (migration 0007). Tags are append-only: a case only gains findings, so a tag,
once true of a case, stays true.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any, Final

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from api.cases.models import CaseTag
from api.findings.models import FindingRow
from api.upsert import insert_many_ignore

MAX_VALUE = 160
PLACEHOLDERS: Final = frozenset({"[erased]", "[expired]", "[redacted]"})
"""What erasure and retention leave in place of text: never a nickname to search for."""
SEARCH_KINDS: Final = ("player", "nick", "table", "tour", "hand")
"""What the search box matches, besides a case's main subject (a column of `cases`)."""


def fold(value: str) -> str:
    """Nicknames match whatever the case and Unicode form they were typed in (NFKC, casefold)."""
    return unicodedata.normalize("NFKC", value).casefold().strip()


def tag(kind: str, value: str) -> str:
    """`kind:value`, the value folded for nicknames and cut to the column width."""
    v = fold(value) if kind == "nick" else value.strip()
    return f"{kind}:{v[:MAX_VALUE]}"


def search_tags(query: str) -> list[str]:
    """Every tag a search string may mean (player id, nickname, table, tournament, hand id)."""
    return [tag(kind, query) for kind in SEARCH_KINDS]


def tags_of(document: dict[str, Any]) -> set[str]:
    """Tags of one finding (the Finding JSON as stored in `findings.document`)."""
    out = {tag("det", str(document.get("detector", "")))}
    subject = _first(document.get("players"))
    out.update(tag("player", p) for p in _strings(document.get("players")) if p != subject)
    for key, kind in (("table_id", "table"), ("tournament_id", "tour")):
        if isinstance(document.get(key), str) and document[key]:
            out.add(tag(kind, document[key]))
    ev = document.get("evidence")
    out.update(_evidence_tags(ev if isinstance(ev, dict) else {}))
    return {t for t in out if not t.endswith(":") and t.partition(":")[2] not in PLACEHOLDERS}


def _evidence_tags(ev: dict[str, Any]) -> Iterator[str]:
    if isinstance(ev.get("language"), str):
        yield tag("lang", ev["language"].lower()[:16])
    if isinstance(ev.get("nickname"), str):
        yield tag("nick", ev["nickname"])
    for msg in _dicts(ev.get("messages")):
        if isinstance(msg.get("nickname"), str):
            yield tag("nick", msg["nickname"])
        if isinstance(msg.get("table_id"), str):
            yield tag("table", msg["table_id"])
    yield from (tag("hand", h) for h in _strings(ev.get("hand_ids")))
    for hand in _dicts(ev.get("hands")):
        if isinstance(hand.get("hand_id"), str):
            yield tag("hand", hand["hand_id"])
    for rep in _dicts(ev.get("reports")):
        if isinstance(rep.get("reporter_id"), str):
            yield tag("reporter", rep["reporter_id"])


def add(session: Session, *, rows: Iterable[tuple[str, str, dict[str, Any]]]) -> None:
    """Store the tags of (case_id, family, finding document) triples; repeats are ignored."""
    out = sorted({(t, case_id, family[:16]) for case_id, family, doc in rows for t in tags_of(doc)})
    for start in range(0, len(out), 5_000):
        insert_many_ignore(session, CaseTag, [{"tag": t, "case_id": c, "family": f}
                                              for t, c, f in out[start:start + 5_000]], ("tag", "case_id"))


def rebuild(session: Session, *, case_ids: Iterable[str]) -> None:
    """Recompute the tags of cases whose findings changed in place (erasure, retention): what the
    documents no longer say (an erased id, an expired nickname) must not stay searchable."""
    ids = sorted(set(case_ids))
    session.flush()  # the documents just rewritten (sessions do not autoflush)
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        session.execute(delete(CaseTag).where(CaseTag.case_id.in_(chunk)))
        docs = session.execute(select(FindingRow.case_id, FindingRow.family, FindingRow.document)
                               .where(FindingRow.case_id.in_(chunk)))
        add(session, rows=[(c, fam, d) for c, fam, d in docs])


def _first(value: Any) -> str | None:
    items = _strings(value)
    return items[0] if items else None


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str) and v] if isinstance(value, list | tuple) else []


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
