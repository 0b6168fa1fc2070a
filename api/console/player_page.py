"""Console page of one player: timeline, linked-players graph, nickname history."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from api.console.guard import ConsoleDep
from api.console.player_graph import KIND_COLOURS, graph
from api.db import SessionDep
from api.deps import NowDep
from api.players.profile import profile
from api.sanctions.models import Sanction
from api.sanctions.service import active_for_player

PageFn = Callable[..., HTMLResponse]
MAX_PLAYER_ID = 128


def install(r: APIRouter, page: PageFn) -> None:
    """Add GET /console/players/{player_id} to the console router."""

    @r.get("/players/{player_id}")
    def player_page(player_id: str, ctx: ConsoleDep, session: SessionDep, now: NowDep) -> HTMLResponse:
        if not player_id.strip() or len(player_id) > MAX_PLAYER_ID:
            return page("error.html", ctx, 422, message=f"player id: 1..{MAX_PLAYER_ID} characters")
        p = profile(session, player_id=player_id)
        in_force: list[Sanction] = active_for_player(session, player_id=player_id, now=now)
        return page("player.html", ctx, p=p, g=graph(player_id, p.links), colours=KIND_COLOURS,
                    in_force=in_force, now=now, when=_when)


def _when(ts: datetime) -> str:
    return ts.strftime("%Y-%m-%d %H:%M")
