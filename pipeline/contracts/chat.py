"""`chat.messages`: one chat line typed by a player, as the game server saw it."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints, model_validator

from pipeline.contracts.common import MAX_TEXT_CHARS, Contract, Id, Nickname

Channel = Literal["table", "tournament", "lobby", "private"]
Client = Literal["desktop", "mobile", "browser"]
ChatText = Annotated[str, StringConstraints(max_length=MAX_TEXT_CHARS)]


class ChatMessage(Contract):
    """A chat message; `hand_id` is the hand running at the table when it was sent."""

    channel: Channel
    player_id: Id
    nickname: Nickname
    text: ChatText
    client: Client
    table_id: Id | None = None
    tournament_id: Id | None = None
    recipient_id: Id | None = None
    hand_id: Id | None = None
    players_in_hand: tuple[Id, ...] | None = Field(default=None, max_length=23)

    @model_validator(mode="after")
    def _channel_fields(self) -> ChatMessage:
        if self.channel == "private" and self.recipient_id is None:
            raise ValueError("a private message needs recipient_id")
        if self.channel == "table" and self.table_id is None:
            raise ValueError("a table message needs table_id")
        if self.channel == "tournament" and self.tournament_id is None:
            raise ValueError("a tournament message needs tournament_id")
        return self
