"""Saved view request and response shapes."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field, StringConstraints

from api.schemas import Body, Public

ViewName = Annotated[str, StringConstraints(min_length=1, max_length=64, strip_whitespace=True,
                                            pattern=r"^[^\x00-\x1f<>]+$")]


class SavedViewCreate(Body):
    """Save the queue parameters under a name (the same name again replaces the view)."""

    name: ViewName
    params: dict[Annotated[str, Field(max_length=32)], Annotated[str, Field(max_length=128)]] = Field(max_length=16)


class SavedViewPublic(Public):
    """A saved view."""

    id: str
    name: str
    params: dict[str, str]
    created_at: datetime
    updated_at: datetime
