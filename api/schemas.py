"""Shared schema building blocks: strict request bodies, ORM-readable responses, safe text."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, StringConstraints

from api.text import check_text


class Body(BaseModel):
    """Base of every request body: unknown fields are a 422, not silently ignored."""

    model_config = ConfigDict(extra="forbid")


class Public(BaseModel):
    """Base of every response model; reads ORM objects."""

    model_config = ConfigDict(from_attributes=True)


Reason = Annotated[str, StringConstraints(min_length=1, max_length=2_000, strip_whitespace=True),
                   AfterValidator(check_text)]
"""A reviewer's free-text reason: required, bounded, storable."""

Name = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.@\-]+$")]
