"""The shared clock of a simulated room: actors scheduled by room time, events released in order."""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Protocol

from pipeline.contracts import CHAT, SEAT, ChatMessage, Event, SeatActivity
from simulator.config import RoomConfig
from simulator.population import Player, Population
from simulator.truth import RefusalAuditor, TruthRow


class Actor(Protocol):
    """A part of the room that acts at some room time and says when it acts next."""

    def step(self, now: float) -> float | None:
        """Act at `now` (seconds of room time); the next time to act, or None when finished."""
        ...


class World:
    """Clock, id counters, event buffer and ground truth shared by every actor of one room."""

    def __init__(self, config: RoomConfig, population: Population, rng: random.Random) -> None:
        self.config = config
        self.population = population
        self.rng = rng
        self.end = config.minutes * 60.0
        self.truth: list[TruthRow] = []
        self.auditor = RefusalAuditor()
        self.counts: dict[str, int] = {}
        self._seq = 0
        self._events: list[tuple[float, int, str, Event]] = []
        self._actors: list[tuple[float, int, Actor]] = []
        self._ts_cache: dict[int, datetime] = {}

    def ts(self, t: float) -> datetime:
        """Room time in seconds -> aware UTC timestamp (millisecond precision)."""
        ms = int(t * 1000)
        cached = self._ts_cache.get(ms)
        if cached is None:
            cached = self.config.start + timedelta(milliseconds=ms)
            if len(self._ts_cache) > 4096:
                self._ts_cache.clear()
            self._ts_cache[ms] = cached
        return cached

    def next_id(self, prefix: str) -> str:
        """A new id, unique within the room and identical for the same seed."""
        self._seq += 1
        return f"{prefix}-{self.config.seed}-{self._seq}"

    def emit(self, t: float, topic: str, event: Event) -> None:
        """Buffer an event; it is released once no actor can emit anything earlier."""
        self._seq += 1
        heapq.heappush(self._events, (t, self._seq, topic, event))
        if topic == SEAT and isinstance(event, SeatActivity):
            row = self.auditor.observe(event)
            if row is not None:
                self.truth.append(row)

    def plant(self, row: TruthRow) -> None:
        """Record a planted offence, unless part of it falls after the end of the run."""
        if row.end <= self.ts(self.end):
            self.truth.append(row)

    def schedule(self, t: float, actor: Actor) -> None:
        """Let an actor act at room time t."""
        self._seq += 1
        heapq.heappush(self._actors, (t, self._seq, actor))

    def run(self) -> Iterator[tuple[str, Event]]:
        """Step actors in time order, yielding events as soon as their order is settled."""
        actors, events, counts, end = self._actors, self._events, self.counts, self.end
        pop, push = heapq.heappop, heapq.heappush
        while actors:
            t, _, actor = pop(actors)
            if t > end:
                break
            following = actor.step(t)
            if following is not None:
                self._seq += 1
                push(actors, (following, self._seq, actor))
            horizon = min(actors[0][0] if actors else end, end)
            # Inlined release (this loop runs once per table hand; a nested generator costs more).
            while events and events[0][0] <= horizon:
                _, _, topic, event = pop(events)
                counts[topic] = counts.get(topic, 0) + 1
                yield topic, event
        yield from self._release(end)

    def _release(self, horizon: float) -> Iterator[tuple[str, Event]]:
        events = self._events
        while events and events[0][0] <= horizon:
            _, _, topic, event = heapq.heappop(events)
            self.counts[topic] = self.counts.get(topic, 0) + 1
            yield topic, event
        if horizon >= self.end:
            self._events.clear()

    def chat(
        self, t: float, player: Player, text: str, *, channel: str = "table", table_id: str | None = None,
        tournament_id: str | None = None, hand_id: str | None = None,
        in_hand: tuple[str, ...] | None = None, recipient: str | None = None,
    ) -> ChatMessage:
        """Emit one chat message and return it (planting code records its id)."""
        message = ChatMessage(
            event_id=self.next_id("chat"), ts=self.ts(t), channel=channel,  # type: ignore[arg-type]
            player_id=player.id, nickname=player.nickname, text=text,
            client=player.client,  # type: ignore[arg-type]
            table_id=table_id, tournament_id=tournament_id, recipient_id=recipient,
            hand_id=hand_id, players_in_hand=in_hand,
        )
        self.emit(t, CHAT, message)
        return message
