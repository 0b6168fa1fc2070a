"""Input hygiene shared by the seat detectors: de-duplication, bounded reordering, counters.

Game servers deliver seat events at least once and roughly in order. Each detector owns one guard:
an event id seen before is dropped and counted; events are held in a small heap until the event-time
watermark (the latest ts seen minus `lateness`) passes them, so arrivals up to `lateness` late are
put back in ts order; anything later than that is processed at once, out of order, and counted as
`late` (never dropped: a late leave is still a leave). Every decision depends only on the event
sequence, never the wall clock, so a replay gives the same result.
"""

from __future__ import annotations

import heapq
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar


class Timed(Protocol):
    """Anything with an event id and an event time in epoch seconds (see `epoch`)."""

    @property
    def event_id(self) -> str: ...


E = TypeVar("E", bound=Timed)


@dataclass(slots=True)
class InputGuard(Generic[E]):
    """Drops duplicates; releases events in event-time order, late ones at once (counted)."""

    lateness: float
    """Seconds an event may arrive behind the newest one and still be put back in order."""
    dedupe_horizon: float = 3_600.0
    """Seconds of event ids remembered; must exceed `lateness` so every duplicate is seen."""
    anomalies: Counter[str] = field(default_factory=Counter)
    _heap: list[tuple[float, int, E]] = field(default_factory=list)
    _seq: int = 0
    _newest: float | None = None
    _seen: set[str] = field(default_factory=set)
    _seen_order: deque[tuple[float, str]] = field(default_factory=deque)

    @property
    def watermark(self) -> float | None:
        """Event time up to which every event has been released."""
        return None if self._newest is None else self._newest - self.lateness

    def admit(self, event: E, ts: float) -> list[tuple[float, E]]:
        """Take one event; return the events (with their ts) now safe to process, oldest first."""
        if event.event_id in self._seen:
            self.anomalies["duplicate"] += 1
            return []
        if self._newest is not None and ts < self._newest - self.lateness:
            self.anomalies["late"] += 1
            self._remember(event.event_id, ts)
            return [(ts, event)]
        self._remember(event.event_id, ts)
        if self._newest is None or ts > self._newest:
            self._newest = ts
        if self.lateness <= 0 and not self._heap:
            return [(ts, event)]
        self._seq += 1
        heapq.heappush(self._heap, (ts, self._seq, event))
        limit = self._newest - self.lateness
        out: list[tuple[float, E]] = []
        while self._heap and self._heap[0][0] <= limit:
            t, _, ev = heapq.heappop(self._heap)
            out.append((t, ev))
        return out

    def drain(self) -> list[tuple[float, E]]:
        """Release everything still buffered (end of a replay or a clean shutdown)."""
        out = [(t, ev) for t, _, ev in sorted(self._heap)]
        self._heap.clear()
        return out

    def _remember(self, event_id: str, ts: float) -> None:
        self._seen.add(event_id)
        self._seen_order.append((ts, event_id))
        horizon = (self._newest if self._newest is not None else ts) - self.dedupe_horizon
        while self._seen_order and self._seen_order[0][0] < horizon:
            self._seen.discard(self._seen_order.popleft()[1])
