"""Routes: admins queue retroactive runs and read their progress and diff (`railbird retro work` runs them)."""

from __future__ import annotations

import functools
from datetime import timedelta
from pathlib import Path

from fastapi import APIRouter, Request

from api.db import SessionDep
from api.deps import NowDep, PrincipalDep
from api.retro import service
from api.retro.schemas import RetroRunCreate, RetroRunList, RetroRunPublic
from pipeline.retro import detector_names
from pipeline.rules import RULES_PRESETS


@functools.lru_cache(maxsize=4)
def known_detectors(rules_version: str) -> tuple[str, ...]:
    """Every registered detector (built once per process: the names do not change while it runs)."""
    return detector_names(RULES_PRESETS[rules_version])


def limits_of(request: Request) -> service.RetroLimits:
    """What a request is checked against, from the app's settings."""
    state = request.app.state
    return service.RetroLimits(archive_root=Path(state.retro_archive_root), retention_days=int(state.retention_days),
                               known_detectors=known_detectors(str(state.default_rules_version)))


def request_of(body: RetroRunCreate) -> service.RetroRequest:
    """The service's request from the API body."""
    return service.RetroRequest(
        start=body.start, end=body.end, detectors=None if body.detectors is None else tuple(body.detectors),
        policy_revision=body.policy_revision, source=body.source, warmup=timedelta(hours=body.warmup_hours),
        reason=body.reason,
    )


def router() -> APIRouter:
    """Retroactive run routes."""
    r = APIRouter(prefix="/retro-runs", tags=["retro"])

    @r.post("", response_model=RetroRunPublic, status_code=201)
    def create(request: Request, body: RetroRunCreate, session: SessionDep, now: NowDep,
               who: PrincipalDep) -> RetroRunPublic:
        """Admin: queue a run over a past range (422 with the reason for a range with no data, an
        inverted or future one, an unknown detector or policy revision). Audited."""
        run = service.create(session, request=request_of(body), limits=limits_of(request), actor=who.username, now=now)
        return RetroRunPublic.model_validate(run)

    @r.get("", response_model=RetroRunList)
    def recent(session: SessionDep) -> RetroRunList:
        """Admin: the 20 newest runs."""
        return RetroRunList(runs=[RetroRunPublic.model_validate(run) for run in service.recent(session)])

    @r.get("/{run_id}", response_model=RetroRunPublic)
    def get(run_id: str, session: SessionDep) -> RetroRunPublic:
        """Admin: a run's status, progress and (when done) its diff, or its error."""
        return RetroRunPublic.model_validate(service.get(session, run_id))

    return r
