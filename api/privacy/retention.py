"""Evidence retention as a background job of the API process (`railbird player purge-expired` is
the same step, run by hand): every interval, redact the evidence text of cases closed longer ago
than the retention period. Idempotent, audited, and one runner at a time on PostgreSQL."""

from __future__ import annotations

import logging
import threading

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from api.ids import Clock, utc_now
from api.privacy.players import redact_expired

log = logging.getLogger(__name__)
_LOCK_KEY = 7_240_002


def purge_once(session: Session, *, days: int, clock: Clock = utc_now) -> int | None:
    """One retention pass; None when another API process is running one right now (PostgreSQL)."""
    if session.get_bind().dialect.name == "postgresql" and not session.scalar(
            text("SELECT pg_try_advisory_xact_lock(:k)"), {"k": _LOCK_KEY}):
        session.rollback()
        return None
    return redact_expired(session, days=days, now=clock())


class RetentionJob:
    """Daemon thread running `purge_once` every `interval_s` (the first pass right at start)."""

    def __init__(self, *, sessions: sessionmaker[Session], days: int, interval_s: float,
                 clock: Clock = utc_now) -> None:
        if days <= 0:
            raise ValueError("retention job needs a period of at least one day")
        self.sessions, self.days, self.interval_s, self.clock = sessions, days, interval_s, clock
        self.redacted = 0
        self.passes = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Run in a daemon thread."""
        self._thread = threading.Thread(target=self.run, name="retention", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 10.0) -> None:
        """Finish the current pass and end."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def run(self) -> None:
        """Pass, wait, repeat until stopped; a database failure waits for the next interval."""
        while not self._stop.is_set():
            try:
                with self.sessions() as session:
                    count = purge_once(session, days=self.days, clock=self.clock)
                self.passes += 1
                if count:
                    self.redacted += count
                    log.info("retention: redacted the evidence of %d findings (cases closed > %d days)",
                             count, self.days)
            except SQLAlchemyError as exc:
                log.warning("retention: %s: %s; next pass in %.0fs", type(exc).__name__, exc, self.interval_s)
            self._stop.wait(self.interval_s)
