"""`seat.activity`: a player's seat changing state at a cash table or tournament table."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

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

    @model_validator(mode="after")
    def _consistent(self) -> SeatActivity:
        if self.game == "tournament" and self.tournament_id is None:
            raise ValueError("a tournament seat event needs tournament_id")
        if self.others_sitting_out > self.players_seated - 1:
            raise ValueError("others_sitting_out must be at most players_seated - 1")
        return self
