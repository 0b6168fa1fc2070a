"""Server-rendered review console (placeholder until the pages land)."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI


def router() -> APIRouter:
    """Console routes."""
    return APIRouter()


def mount_static(app: FastAPI) -> None:
    """Serve console assets."""
