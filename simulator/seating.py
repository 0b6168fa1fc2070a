"""Seats at a table and the `seat.activity` events their changes produce, counts kept consistent."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pipeline.contracts import SEAT, SeatActivity
from pipeline.contracts.seat import TournamentStanding
from simulator.population import Player
from simulator.world import World


@dataclass(slots=True)
class Seat:
    """A player in a seat: stack, hands played in this stint, and whether they are dealt in."""

    player: Player
    number: int
    stack: int
    joined_at: float
    target_hands: int = 10**6
    hands: int = 0
    state: str = "seated"
    """seated | sitting_out | disconnected."""
    back_at: float = 0.0
    removal_at: float | None = None
    join_event: str = ""
    waited: bool = False
    """A bumhunter who sat out to wait for a weak player (and leaves if none comes)."""
    watching: bool = False
    """Joined but waiting for the big blind (rule 9), so not dealt in yet: a bumhunter looking."""


@dataclass(frozen=True, slots=True)
class TableInfo:
    """What every seat event of a table repeats."""

    table_id: str
    game: str
    format: str
    blind_level: str
    tournament_id: str | None = None
    variant: str = "nlhe"
    """The game dealt, as seat events name it (nlhe, plo)."""


class Seating:
    """The seats of one table; every change goes through here so the counts stay right."""

    def __init__(self, world: World, info: TableInfo, max_seats: int) -> None:
        self.world = world
        self.info = info
        self.max_seats = max_seats
        self.seats: dict[int, Seat] = {}
        self.standing: Callable[[], TournamentStanding] | None = None
        """A tournament table's current standing (players left, paid places), sent on its events."""

    def free_seats(self) -> list[int]:
        """Empty seat numbers."""
        return [n for n in range(1, self.max_seats + 1) if n not in self.seats]

    def dealt(self) -> list[Seat]:
        """Seats dealt into the next cash hand (present and not sitting out)."""
        return [s for s in self.seats.values() if s.state == "seated" and not s.watching]

    def event(self, t: float, seat: Seat, action: str) -> SeatActivity:
        """Emit one seat event for a seat that is (still) at the table."""
        away = sum(1 for s in self.seats.values() if s is not seat and s.state != "seated")
        info = self.info
        event = SeatActivity(
            event_id=self.world.next_id("seat"), ts=self.world.ts(t), player_id=seat.player.id,
            table_id=info.table_id, game=info.game,  # type: ignore[arg-type]
            format=info.format,  # type: ignore[arg-type]
            variant=info.variant,  # type: ignore[arg-type]
            blind_level=info.blind_level, seat=seat.number,
            action=action,  # type: ignore[arg-type]
            hands_played_at_table=seat.hands, players_seated=len(self.seats), others_sitting_out=away,
            tournament_id=info.tournament_id, standing=self.standing() if self.standing else None,
        )
        self.world.emit(t, SEAT, event)
        return event

    def join(self, t: float, player: Player, stack: int, number: int | None = None) -> Seat:
        """Seat a player (first free seat unless given) and emit the join."""
        chosen = number if number is not None else self.free_seats()[0]
        seat = Seat(player=player, number=chosen, stack=stack, joined_at=t)
        self.seats[chosen] = seat
        player.tables.add(self.info.table_id)
        seat.join_event = self.event(t, seat, "join").event_id
        return seat

    def leave(self, t: float, seat: Seat, action: str = "leave") -> SeatActivity:
        """Emit the leave (the leaver still counted) and free the seat."""
        event = self.event(t, seat, action)
        del self.seats[seat.number]
        seat.player.tables.discard(self.info.table_id)
        seat.player.seat_seconds += t - seat.joined_at
        seat.player.rest_until = t + self.world.rng.uniform(20.0, 600.0)
        return event

    def change(self, t: float, seat: Seat, action: str, state: str) -> SeatActivity:
        """Sit out / sit in / disconnect / reconnect: the event shows the table before the change."""
        event = self.event(t, seat, action)
        seat.state = state
        return event
