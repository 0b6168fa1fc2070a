"""One publishing relay among several API workers on PostgreSQL, woken by NOTIFY.

Why: with more than one API worker process, every worker starts a relay. Two relays reading the same
unpublished rows would publish each event twice (allowed by at-least-once, but wasteful and it
breaks per-player order across the two producers). So the relays elect one leader with a
session-level advisory lock held on a dedicated connection: the worker holding it publishes, the
others wait and take over within `retry_s` if its connection (or process) dies, because PostgreSQL
releases a session lock with its session.

Waking: the after-commit hook only reaches the relay of the worker that committed. Ingestion on
PostgreSQL also sends `NOTIFY railbird_outbox` in the transaction that enqueued events (delivered
at commit, never for a rolled-back one); the leader's connection LISTENs and wakes its relay, so an
event committed by any worker leaves within a round trip instead of the fallback poll.

The connection is owned by this class's thread alone (a psycopg connection is not for concurrent
use); the relay only reads `leading()`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import psycopg

log = logging.getLogger(__name__)

CHANNEL = "railbird_outbox"
LOCK_KEY = 7_240_002
"""Advisory lock id of the relay leader (the audit chain uses 7_240_001)."""


def libpq_url(sqlalchemy_url: str) -> str:
    """`postgresql+psycopg://...` (SQLAlchemy) as the plain URL libpq takes."""
    scheme, sep, rest = sqlalchemy_url.partition("://")
    return f"postgresql://{rest}" if sep and scheme.startswith("postgresql") else sqlalchemy_url


class PgLeadership:
    """Holds (or keeps trying for) the relay-leader lock; while leading, LISTENs and calls `wake`."""

    def __init__(self, url: str, *, wake: Callable[[], None], retry_s: float = 1.0) -> None:
        self._url = libpq_url(url)
        self._wake = wake
        self._retry_s = retry_s
        self._leading = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def leading(self) -> bool:
        """True while this process holds the lock (its relay may publish)."""
        return self._leading.is_set()

    def start(self) -> None:
        """Run the election and the listener in a daemon thread."""
        self._thread = threading.Thread(target=self._run, name="outbox-leader", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        """Give up leadership (the session ends, the lock with it) and stop the thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                with psycopg.connect(self._url, autocommit=True, connect_timeout=5) as conn:
                    self._serve(conn)
            except psycopg.Error as exc:
                log.warning("outbox leader: %s: %s; retrying", type(exc).__name__, exc)
            finally:
                self._leading.clear()
            self._stop.wait(self._retry_s)

    def _serve(self, conn: psycopg.Connection[tuple[object, ...]]) -> None:
        while not self._stop.is_set():
            row = conn.execute("SELECT pg_try_advisory_lock(%s)", (LOCK_KEY,)).fetchone()
            if row is not None and row[0]:
                break
            self._stop.wait(self._retry_s)
        else:
            return
        conn.execute(f"LISTEN {CHANNEL}")
        self._leading.set()
        self._wake()  # rows enqueued before we led (or while another leader died) go out now
        log.info("outbox relay: this worker publishes")
        while not self._stop.is_set():
            for _ in conn.notifies(timeout=0.5, stop_after=1):
                self._wake()
