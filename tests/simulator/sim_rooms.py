"""Small generated rooms shared by the simulator tests (generated once per test session)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from pipeline.contracts import Event
from simulator.config import RoomConfig
from simulator.room import Room
from simulator.truth import TruthRow


@dataclass(frozen=True)
class Generated:
    """A finished room: its events in order, its truth, its summary."""

    room: Room
    events: tuple[tuple[str, Event], ...]
    truth: tuple[TruthRow, ...]


@lru_cache(maxsize=4)
def generated(profile: str = "demo", seed: int = 3, minutes: float = 8.0, players: int = 150) -> Generated:
    """Run a room to the end once and keep everything it produced."""
    room = Room(RoomConfig.for_profile(profile, seed=seed, minutes=minutes, players=players))  # type: ignore[arg-type]
    events = tuple(room.events())
    return Generated(room, events, tuple(room.truth))
