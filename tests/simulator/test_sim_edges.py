"""Short and odd rooms end cleanly: truth refers only to events that were emitted."""

from __future__ import annotations

import pytest

from simulator.config import RoomConfig
from simulator.room import Room


@pytest.mark.parametrize("profile", ["demo", "normal"])
@pytest.mark.parametrize(("seed", "minutes", "players"), [(1, 0.2, 1), (2, 1.0, 60), (3, 2.0, 90), (4, 2.5, 61)])
def test_short_rooms_finish_with_consistent_truth(profile: str, seed: int, minutes: float, players: int) -> None:
    room = Room(RoomConfig.for_profile(profile, seed=seed, minutes=minutes, players=players))  # type: ignore[arg-type]
    events = list(room.events())
    ids = {e.event_id for _, e in events} | {getattr(e, "hand_id", None) for _, e in events}
    end = room.config.start.timestamp() + minutes * 60
    assert all(e.ts.timestamp() <= end for _, e in events)
    for row in room.truth:
        assert set(row.event_ids) <= ids, row.category
    assert room.summary()["players"] >= 60
