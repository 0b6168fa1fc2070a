"""Bounded, event-time keyed state shared by the stateful detectors of this package.

Every detector keeps at most `max_keys` keys (least recently touched evicted first) and drops items
older than its window as event time moves on, so memory follows active players and tables, never
history. Wall clock is never read: replays give the same state and the same findings.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class BoundedMap(Generic[K, V]):
    """A mapping capped at `max_keys`; touching a key makes it the most recent."""

    def __init__(self, *, max_keys: int) -> None:
        if max_keys < 1:
            raise ValueError("max_keys must be at least 1")
        self._max = max_keys
        self._data: OrderedDict[K, V] = OrderedDict()
        self.view: Mapping[K, V] = MappingProxyType(self._data)
        """Read-only live view: lookups in a hot loop without a method call each (touches nothing)."""
        self.get: Callable[[K], V | None] = self._data.get
        """The value at `key`, without touching it: the mapping's own lookup, bound here, so a
        call is one C call rather than a Python frame around it (several per chat message)."""

    def get_or_create(self, key: K, factory: Callable[[], V]) -> V:
        """The value at `key`, created by `factory` if missing; evicts the oldest key when full."""
        value = self._data.get(key)
        if value is None:
            value = factory()
            self._data[key] = value
            if len(self._data) > self._max:
                self._data.popitem(last=False)
        else:
            self._data.move_to_end(key)
        return value

    def recent(self, key: K) -> V | None:
        """The value at `key`, made the most recent if there is one (a memo's hit, in one call)."""
        value = self._data.get(key)
        if value is not None:
            self._data.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        """Store a value and make it the most recent."""
        self._data[key] = value
        self._data.move_to_end(key)
        if len(self._data) > self._max:
            self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)

    def items(self) -> Iterator[tuple[K, V]]:
        """Key-value pairs, oldest first."""
        return iter(list(self._data.items()))


T = TypeVar("T")


class Window(Generic[T]):
    """Timestamped items of one key within `span` of the newest, at most `max_items`."""

    def __init__(self, *, span: timedelta, max_items: int) -> None:
        self._span = span
        self._items: deque[tuple[datetime, T]] = deque(maxlen=max_items)

    def add(self, ts: datetime, item: T) -> None:
        """Append an item and forget the ones that fell out of the window."""
        items = self._items
        items.append((ts, item))
        cutoff = ts - self._span
        while items and items[0][0] < cutoff:  # `expire(ts)` inline: a call saved per add
            items.popleft()

    def expire(self, now: datetime) -> None:
        """Drop items older than `now - span` (event time)."""
        items = self._items
        cutoff = now - self._span
        while items and items[0][0] < cutoff:
            items.popleft()

    def values(self) -> list[T]:
        """Items in the window, oldest first."""
        return [item for _, item in self._items]

    def view(self) -> Sequence[tuple[datetime, T]]:
        """(timestamp, item) pairs in the window, oldest first, without a copy: not to be held
        across a change of the window."""
        return self._items

    def stamped(self) -> list[tuple[datetime, T]]:
        """(timestamp, item) pairs in the window, oldest first."""
        return list(self._items)

    def __len__(self) -> int:
        return len(self._items)
