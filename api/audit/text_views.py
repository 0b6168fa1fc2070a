"""Audit who read players' own words: a reviewer opening a case's chat text is an access to
personal data, and is recorded (`case.view_text`) once per reviewer and case per window.

The record is written in its own short write transaction, never in the page's read-only one, so a
page view can neither fail nor slow down for it beyond one insert; the in-process window keeps a
reviewer paging through one case from writing an entry per click (several API processes may each
write one: an over-count, never a miss).
"""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from api.audit import service as audit

WINDOW = timedelta(minutes=30)
REMEMBERED = 20_000
"""(reviewer, case) pairs kept for the window; the oldest are forgotten first (bounded memory)."""


class TextViewLog:
    """Writes `case.view_text` audit entries, at most one per (reviewer, case) per `WINDOW`."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions
        self._seen: OrderedDict[tuple[str, str], datetime] = OrderedDict()

    def record(self, *, actor: str, case_id: str, surface: str, now: datetime) -> bool:
        """Audit the view unless this reviewer's last one of this case is within the window."""
        key = (actor, case_id)
        last = self._seen.get(key)
        if last is not None and now - last < WINDOW:
            return False
        for _ in range(2):  # a concurrent appender took the chain head: read it again once
            try:
                with self._sessions() as session:
                    audit.append(session, actor=actor, action="case.view_text", entity_type="case",
                                 entity_id=case_id, payload={"surface": surface}, now=now)
                    session.commit()
                break
            except (IntegrityError, OperationalError):
                continue
        self._seen[key] = now
        self._seen.move_to_end(key)
        while len(self._seen) > REMEMBERED:
            self._seen.popitem(last=False)
        return True
