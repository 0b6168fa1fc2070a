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
buffer (all places it serves; one per detector set, shared by the three: `SharedOrder`), so a
quiet table's last lines are released by traffic elsewhere; `drain` releases the rest at the end of a replay or on a clean shutdown.

**Sources.** In the streaming runtime a place's lines come through the re-key topic from several
input partitions, and a partition whose consumer failed over lags behind the others by the
failover's length: with the watermark above alone, its lines arrive "late" once that exceeds
`lateness` (and the findings then depend on the interleaving). So the runtime also reports, per
input partition (`source`), the newest event time it has delivered (`advance`), and the watermark
is held at the slowest source's newest minus `lateness`: a lagging partition holds the others back
instead of arriving late. A source more than `hold` behind the newest is treated as idle (a
partition without traffic would otherwise stop every release) and no longer holds anything back,
so a failover longer than `hold` is again the late case, counted. With no sources reported (a
replayed file, which is in event-time order already) the watermark is as above.
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
"""How far behind the newest message of its own input partition a message may arrive and still be
put back in order (disorder within a partition: game servers' clocks and batching); also the
bound across partitions when the runtime reports no sources."""

HOLD_FACTOR = 10
"""`hold` = this x `lateness` unless given: how far a lagging input partition may hold the others
back (5 min at the default lateness; covers a consumer failover and a restart with a margin)."""


@dataclass(slots=True)
class EventTimeOrder:
    """Releases chat messages in event-time order once no earlier one can still arrive."""

    lateness: timedelta = DEFAULT_LATENESS
    dedupe_horizon: timedelta = timedelta(minutes=15)
    """Event time for which ids are remembered to drop redeliveries (longer than every window of
    the detectors using it, so a redelivered line is never counted twice in one episode)."""
    max_ids: int = 500_000
    hold: timedelta | None = None
    """How far behind the newest a reporting source may hold the watermark back (None: `HOLD_FACTOR`
    x `lateness`)."""
    anomalies: Counter[str] = field(default_factory=Counter)
    _heap: list[tuple[datetime, str, ChatMessage]] = field(default_factory=list)
    """Held messages that arrived out of order, as a heap by (`ts`, `event_id`)."""
    _run: deque[tuple[datetime, str, ChatMessage]] = field(default_factory=deque)
    """Held messages that arrived in order (each after the last one held here), oldest first:
    most input, which then costs an append and a pop from the left, not two heap passes."""
    _newest: datetime | None = None
    _sources: dict[str, datetime] = field(default_factory=dict)
    _floor: datetime | None = None
    """The highest watermark applied so far: a message below it is late (something after it is out)."""
    _seen: set[str] = field(default_factory=set)
    _seen_order: deque[tuple[datetime, str]] = field(default_factory=deque)

    def __post_init__(self) -> None:
        if self.lateness < timedelta(0):
            raise ValueError("lateness must not be negative")
        if self.hold is None:
            self.hold = self.lateness * HOLD_FACTOR
        elif self.hold < self.lateness:
            raise ValueError("hold must not be shorter than lateness")

    @property
    def pending(self) -> int:
        """Messages held back, waiting for the watermark."""
        return len(self._heap) + len(self._run)

    def admit(self, message: ChatMessage) -> Sequence[ChatMessage]:
        """Take one message; return those now safe to process, in (`ts`, `event_id`) order."""
        event_id, ts, newest = message.event_id, message.ts, self._newest
        if event_id in self._seen:
            self.anomalies["duplicate"] += 1
            return ()
        self._remember(ts, event_id, ts if newest is None or ts > newest else newest)
        floor = self._floor
        if floor is not None and ts < floor:
            self.anomalies["late"] += 1
            return (message,)
        if newest is None or ts > newest:
            self._newest = ts
        heap = self._heap
        if not self.lateness:
            self._floor = self._newest  # every message is released at once: older ones are late
            if not heap:
                return (message,)  # no reordering asked for: the fast path
            heapq.heappush(heap, (ts, event_id, message))
            return [heapq.heappop(heap)[2] for _ in range(len(heap))]
        run = self._run
        last = run[-1] if run else None
        if last is None or ts > last[0] or (ts == last[0] and event_id > last[1]):
            run.append((ts, event_id, message))
        else:
            heapq.heappush(heap, (ts, event_id, message))
        return self._release()

    def advance(self, source: str, newest: datetime) -> list[ChatMessage]:
        """`source` (an input partition) has delivered every message up to `newest` (event time):
        release what no reporting source can still precede. A source's time never goes back (a
        re-delivered report is older and changes nothing)."""
        known = self._sources.get(source)
        if known is None or newest > known:
            self._sources[source] = newest
        # What a source delivered to other places is delivered too: it moves the newest time here,
        # so a quiet place is released by traffic elsewhere, as with messages.
        if self._newest is None or newest > self._newest:
            self._newest = newest
        return self._release() if self._heap or self._run else []

    def _watermark(self, newest: datetime) -> datetime:
        watermark = newest - self.lateness
        if self._sources:
            assert self.hold is not None  # set in __post_init__
            active = [t for t in self._sources.values() if t >= newest - self.hold]
            if active:
                watermark = min(watermark, min(active) - self.lateness)
        return watermark

    def _release(self) -> list[ChatMessage]:
        newest = self._newest
        assert newest is not None  # only called once a message was admitted
        # Without reporting sources the watermark is a subtraction: no call for it per message.
        watermark = self._watermark(newest) if self._sources else newest - self.lateness
        if self._floor is None or watermark > self._floor:
            self._floor = watermark
        heap, run, out = self._heap, self._run, []
        while True:  # the earlier of the two heads, while it is below the watermark
            if run and run[0][0] < watermark and (not heap or run[0][:2] < heap[0][:2]):
                out.append(run.popleft()[2])
            elif heap and heap[0][0] < watermark:
                out.append(heapq.heappop(heap)[2])
            else:
                return out

    def drain(self) -> list[ChatMessage]:
        """Release everything still held, in order (end of a replay, clean shutdown)."""
        out = [m for _, _, m in sorted([*self._heap, *self._run], key=lambda x: (x[0], x[1]))]
        self._heap.clear()
        self._run.clear()
        return out

    def _remember(self, ts: datetime, event_id: str, newest: datetime) -> None:
        seen, order = self._seen, self._seen_order
        seen.add(event_id)
        order.append((ts, event_id))
        horizon = newest - self.dedupe_horizon
        while order and (order[0][0] < horizon or len(order) > self.max_ids):
            seen.discard(order.popleft()[1])


_DRAINED = ("drain",)
"""`SharedOrder`'s record of a drain as its last operation (unequal to any event id or mark)."""


@dataclass(slots=True)
class SharedOrder:
    """One `EventTimeOrder` for the place-keyed detectors of one detector set, each at a seat.

    They are keyed alike (by place), so the runtime routes them together and every detector set
    (`build_chat_detectors`) feeds each of them the same messages, marks and drain in the same
    order, one detector after the other. Three buffers would then hold, release and count the very
    same things: here the first seat to pass an operation on runs it, and a seat passing on the
    same operation after it (the same event id, mark or drain, not yet taken at that seat) takes
    what it released instead of running it again. A seat that skipped an operation is handed its
    release with its next one (a backlog), so no seat misses a message another seat's call
    released; a seat that never admitted anything releases nothing, as a buffer of its own would.
    A seat whose first call comes after the others have admitted messages (a detector run over
    the stream on its own, after the others) gets a buffer of its own: it shares nothing.
    """

    order: EventTimeOrder
    _serial: int = 0
    """Operations run so far."""
    _last: object = None
    """The last operation run: an event id, a (source, newest) mark or `_DRAINED`."""
    _released: Sequence[ChatMessage] = ()
    _admitted: bool = False
    """Whether any message went through the shared buffer (a seat first seen later goes alone)."""
    _taken: list[int] = field(default_factory=list)
    """Per seat: the last operation whose release it has (-1: it has admitted nothing yet)."""
    _backlog: list[list[ChatMessage]] = field(default_factory=list)
    _alone: list[EventTimeOrder | None] = field(default_factory=list)
    """Per seat: its own buffer, if it came late (see above)."""

    def anomalies_of(self, seat: int) -> Counter[str]:
        """The late and duplicate inputs of the buffer `seat` uses (shared: every seat saw them)."""
        alone = self._alone[seat]
        return self.order.anomalies if alone is None else alone.anomalies

    def seat(self) -> int:
        """A place for one more detector."""
        self._taken.append(-1)
        self._backlog.append([])
        self._alone.append(None)
        return len(self._taken) - 1

    def admit(self, seat: int, message: ChatMessage) -> Sequence[ChatMessage]:
        """As `EventTimeOrder.admit`, for the detector at `seat`."""
        same = self._last == message.event_id
        if same and 0 <= self._taken[seat] < self._serial and not self._backlog[seat]:
            # Lockstep, the common case: the seat before this one ran it. `_take` inline.
            self._taken[seat] = self._serial
            return self._released
        if self._taken[seat] < 0:
            alone = self._alone_at(seat, same)
            if alone is not None:
                return alone.admit(message)
            # Its first message: what earlier operations released is not this seat's.
            self._taken[seat] = self._serial - 1 if same else self._serial
        if same and self._taken[seat] < self._serial:
            return self._take(seat)
        self._admitted = True
        return self._run(seat, message.event_id, self.order.admit(message))

    def advance(self, seat: int, source: str, newest: datetime) -> Sequence[ChatMessage]:
        """As `EventTimeOrder.advance`, for the detector at `seat`."""
        mark = (source, newest)
        same = self._last == mark
        if self._taken[seat] < 0 and (alone := self._alone_at(seat, same)) is not None:
            return alone.advance(source, newest)
        if same and self._taken[seat] < self._serial:
            return self._take(seat)
        return self._run(seat, mark, self.order.advance(source, newest))

    def drain(self, seat: int) -> Sequence[ChatMessage]:
        """As `EventTimeOrder.drain`, for the detector at `seat`."""
        same = self._last == _DRAINED
        if self._taken[seat] < 0 and (alone := self._alone_at(seat, same)) is not None:
            return alone.drain()
        if same and self._taken[seat] < self._serial:
            return self._take(seat)
        return self._run(seat, _DRAINED, self.order.drain())

    def _alone_at(self, seat: int, joining: bool) -> EventTimeOrder | None:
        """The own buffer of a seat not yet in step: made when it first comes after messages went
        through the shared one, other than to pass on the operation just run."""
        alone = self._alone[seat]
        if alone is None and self._admitted and not joining:
            order = self.order
            alone = self._alone[seat] = EventTimeOrder(
                lateness=order.lateness,
                dedupe_horizon=order.dedupe_horizon,
                max_ids=order.max_ids,
                hold=order.hold,
            )
        return alone

    def _take(self, seat: int) -> Sequence[ChatMessage]:
        if self._taken[seat] < 0:
            return ()  # a mark or drain before its first message: the others' messages are not its
        self._taken[seat] = self._serial
        backlog = self._backlog[seat]
        if not backlog:
            return self._released  # lockstep: the common case
        out = [*backlog, *self._released]
        backlog.clear()
        return out

    def _run(self, seat: int, operation: object, released: Sequence[ChatMessage]) -> Sequence[ChatMessage]:
        serial, previous = self._serial, self._released
        for other, taken in enumerate(self._taken):
            if 0 <= taken < serial:  # skipped the previous operation: keep its release for later
                if previous:
                    self._backlog[other].extend(previous)
                self._taken[other] = serial
        self._serial, self._last, self._released = serial + 1, operation, released
        return self._take(seat)


class PlaceOrdered:
    """What every place-keyed chat detector does around its own `_judge`: keys a message by its
    place, admits it to the event-time order and judges what that releases, drains the order at
    the end of a replay. A subclass (a slots dataclass) declares `shared`, `_order` and `_seat` and
    sets the last two from `_take_seat` in `__post_init__`: the order is `shared` (one per detector
    set, see `SharedOrder`) or, without one, its own, built from its `lateness` and `hold`."""

    __slots__ = ()
    _order: SharedOrder
    _seat: int

    @staticmethod
    def _take_seat(
        shared: SharedOrder | None, lateness: timedelta, hold: timedelta | None
    ) -> tuple[SharedOrder, int]:
        """The order (`shared`, or a new one of the detector's own) and the detector's seat at it."""
        if shared is None:
            shared = SharedOrder(EventTimeOrder(lateness=lateness, hold=hold))
        elif shared.order.lateness != lateness or shared.order.hold != (
            hold if hold is not None else lateness * HOLD_FACTOR
        ):
            raise ValueError("a shared event-time order must have the detector's lateness and hold")
        return shared, shared.seat()

    @property
    def anomalies(self) -> Counter[str]:
        """Inputs the event-time order could not put in place: `late` (beyond `lateness`, judged at
        once, so findings may differ from in-order delivery) and `duplicate` (dropped)."""
        return self._order.anomalies_of(self._seat)

    def key(self, event: Event) -> str:
        """State is per table / tournament / private pair."""
        return place_of(event) if isinstance(event, ChatMessage) else event.event_id

    def process(self, event: Event) -> Sequence[Finding]:
        """Take a message; judge every message the event-time order releases."""
        if not isinstance(event, ChatMessage):
            return ()
        released = self._order.admit(self._seat, event)
        if not released:
            return ()
        if len(released) == 1:
            return self._judge(released[0])  # most calls, once the buffer is full: no list built
        return [f for message in released for f in self._judge(message)]

    def advance(self, source: str, newest: datetime) -> list[Finding]:
        """An input partition's progress (see `EventTimeOrder.advance`): judge what it releases."""
        return [
            f for message in self._order.advance(self._seat, source, newest) for f in self._judge(message)
        ]

    def flush(self) -> list[Finding]:
        """Judge the messages still held back (end of a replay or a clean shutdown)."""
        return [f for message in self._order.drain(self._seat) for f in self._judge(message)]

    def _judge(self, message: ChatMessage) -> Sequence[Finding]:
        raise NotImplementedError
