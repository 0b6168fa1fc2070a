"""Event-time order for the place-keyed chat detectors (`chat.harassment`, `chat.shouting_match`,
`chat.collusion_parties`), and `PlaceOrdered`, the part of them that feeds it.

Game servers key chat by player, so one table's messages reach a place-keyed detector from several
input partitions, interleaved however the partitions happen to be read. Those detectors count
lines in windows and report an episode once, so their verdicts would depend on that interleaving.
`EventTimeOrder` holds messages until the watermark (newest `ts` seen minus `lateness`) has passed
them and releases them in (`ts`, `event_id`) order: for any arrival order in which no message is
more than `lateness` behind the newest one seen before it, the released sequence, and so every
finding and its stable id, is the same. A message later than that is released at once (counted as
`late`, never dropped); a repeated event id is dropped (counted as `duplicate`).

Release is strict (`ts < watermark`): a message exactly `lateness` behind the newest could still
be followed by one with the same `ts` and a smaller id, so it waits. The watermark is one per
detector instance (all places it serves), so a quiet table's last lines are released by traffic
elsewhere; `drain` releases the rest at the end of a replay or on a clean shutdown.
"""

from __future__ import annotations

import heapq
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from pipeline.contracts import ChatMessage, Event
from pipeline.detectors.chat.evidence import place_of
from pipeline.findings import Finding

DEFAULT_LATENESS = timedelta(seconds=30)
"""How far behind the newest message a message may arrive and still be put back in order: a
consumer failover (session timeout 10 s, rebalance, one batch) delays one input partition's
messages behind the others' by up to ~15 s; 30 s covers it with a margin."""


@dataclass(slots=True)
class EventTimeOrder:
    """Releases chat messages in event-time order once no earlier one can still arrive."""

    lateness: timedelta = DEFAULT_LATENESS
    dedupe_horizon: timedelta = timedelta(minutes=15)
    """Event time for which ids are remembered to drop redeliveries (longer than every window of
    the detectors using it, so a redelivered line is never counted twice in one episode)."""
    max_ids: int = 500_000
    anomalies: Counter[str] = field(default_factory=Counter)
    _heap: list[tuple[datetime, str, ChatMessage]] = field(default_factory=list)
    _newest: datetime | None = None
    _seen: set[str] = field(default_factory=set)
    _seen_order: deque[tuple[datetime, str]] = field(default_factory=deque)

    def __post_init__(self) -> None:
        if self.lateness < timedelta(0):
            raise ValueError("lateness must not be negative")

    @property
    def pending(self) -> int:
        """Messages held back, waiting for the watermark."""
        return len(self._heap)

    def admit(self, message: ChatMessage) -> Sequence[ChatMessage]:
        """Take one message; return those now safe to process, in (`ts`, `event_id`) order."""
        event_id, ts, newest = message.event_id, message.ts, self._newest
        if event_id in self._seen:
            self.anomalies["duplicate"] += 1
            return ()
        self._remember(ts, event_id, ts if newest is None or ts > newest else newest)
        if newest is not None and ts < newest - self.lateness:
            self.anomalies["late"] += 1
            return (message,)
        if newest is None or ts > newest:
            self._newest = newest = ts
        heap = self._heap
        if not self.lateness:
            if not heap:
                return (message,)  # no reordering asked for: the fast path
            heapq.heappush(heap, (ts, event_id, message))
            return [heapq.heappop(heap)[2] for _ in range(len(heap))]
        heapq.heappush(heap, (ts, event_id, message))
        watermark = newest - self.lateness
        out: list[ChatMessage] = []
        while heap and heap[0][0] < watermark:
            out.append(heapq.heappop(heap)[2])
        return out

    def drain(self) -> list[ChatMessage]:
        """Release everything still held, in order (end of a replay, clean shutdown)."""
        out = [m for _, _, m in sorted(self._heap, key=lambda x: (x[0], x[1]))]
        self._heap.clear()
        return out

    def _remember(self, ts: datetime, event_id: str, newest: datetime) -> None:
        seen, order = self._seen, self._seen_order
        seen.add(event_id)
        order.append((ts, event_id))
        horizon = newest - self.dedupe_horizon
        while order and (order[0][0] < horizon or len(order) > self.max_ids):
            seen.discard(order.popleft()[1])


class PlaceOrdered:
    """What every place-keyed chat detector does around its own `_judge`: keys a message by its
    place, admits it to the detector's `EventTimeOrder` and judges what that releases, drains the
    order at the end of a replay. A subclass (a slots dataclass) declares `_order` and builds it
    from its `lateness` in `__post_init__`."""

    __slots__ = ()
    _order: EventTimeOrder

    @property
    def anomalies(self) -> Counter[str]:
        """Inputs the event-time order could not put in place: `late` (beyond `lateness`, judged at
        once, so findings may differ from in-order delivery) and `duplicate` (dropped)."""
        return self._order.anomalies

    def key(self, event: Event) -> str:
        """State is per table / tournament / private pair."""
        return place_of(event) if isinstance(event, ChatMessage) else event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        """Take a message; judge every message the event-time order releases."""
        if not isinstance(event, ChatMessage):
            return ()
        return [f for message in self._order.admit(event) for f in self._judge(message)]

    def flush(self) -> list[Finding]:
        """Judge the messages still held back (end of a replay or a clean shutdown)."""
        return [f for message in self._order.drain() for f in self._judge(message)]

    def _judge(self, message: ChatMessage) -> Sequence[Finding]:
        raise NotImplementedError
