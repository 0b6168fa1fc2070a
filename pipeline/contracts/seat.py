"""`seat.activity`: a player's seat changing state at a cash table or tournament table."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pipeline.contracts.common import Contract, Id

Game = Literal["cash", "tournament"]
TableFormat = Literal["regular", "rush_and_cash", "all_in_or_fold", "vip", "turbo", "bounty"]
SeatAction = Literal[
    "join",
    "leave",
    "sit_out",
    "sit_in",
    "disconnect",
    "reconnect",
    "sit_out_timeout_removal",
]


class TournamentStanding(BaseModel):
    """Where a tournament stands when a seat event happens: how many are left and where the money
    starts. Optional (schema v1 stays compatible); collusive sit-out cases use it to show and weigh
    coincidences near the bubble and pay jumps."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    players_remaining: int = Field(ge=1, le=1_000_000)
    paid_places: int = Field(ge=1, le=1_000_000)
    pay_jumps: tuple[int, ...] = Field(default=(), max_length=64)
    """Players-remaining counts below which the payout steps up (e.g. 9 for the final table)."""


class SeatActivity(Contract):
    """One seat transition; the counts describe the table as the event happened, counting this
    player among `players_seated` (a leaver still counts) and never among `others_sitting_out`."""

    player_id: Id
    table_id: Id
    game: Game
    format: TableFormat
    variant: Literal["nlhe", "plo", "plo5", "short_deck", "other"]
    blind_level: Id
    seat: int = Field(ge=1, le=10)
    action: SeatAction
    hands_played_at_table: int = Field(ge=0, le=1_000_000)
    players_seated: int = Field(ge=1, le=10)
    others_sitting_out: int = Field(ge=0, le=9)
    tournament_id: Id | None = None
    standing: TournamentStanding | None = None
    """Tournament events only, when the game server sends it (see TournamentStanding)."""

    @model_validator(mode="after")
    def _consistent(self) -> SeatActivity:
        if self.game == "tournament" and self.tournament_id is None:
            raise ValueError("a tournament seat event needs tournament_id")
        if self.others_sitting_out > self.players_seated - 1:
            raise ValueError("others_sitting_out must be at most players_seated - 1")
        if self.standing is not None and self.game != "tournament":
            raise ValueError("standing is for tournament seat events only")
        return self
