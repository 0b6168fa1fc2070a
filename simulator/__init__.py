"""Traffic simulator: a poker room with personas and planted, labelled offences.

`Room(RoomConfig(...)).events()` yields (topic, event) pairs in event-time order; `room.truth` and
`room.summary()` are complete once the generator is exhausted.
"""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.contracts import Event
from simulator.config import RoomConfig
from simulator.room import Room
from simulator.truth import TruthRow


def demo_traffic(seed: int = 1, *, minutes: float = 30.0, players: int = 150) -> Iterator[tuple[str, Event]]:
    """Demo-profile traffic: every kind of planted case shows up within about a minute."""
    room = Room(RoomConfig.for_profile("demo", seed=seed, minutes=minutes, players=players))
    return room.events()


__all__ = ["Room", "RoomConfig", "TruthRow", "demo_traffic"]
