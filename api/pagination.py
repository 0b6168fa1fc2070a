"""Shared list parameters."""

from __future__ import annotations

from typing import Annotated

from fastapi import Query

Limit = Annotated[int, Query(ge=1, le=200, description="page size")]
Offset = Annotated[int, Query(ge=0, le=1_000_000, description="rows to skip")]
Filter = Annotated[str | None, Query(max_length=128)]
