"""Routes: the model in force and its bytes (every role: the consumers poll them), the admin's
registry (upload, list, promote, roll back, retire)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from fastapi import Path as PathParam
from fastapi.responses import FileResponse, JSONResponse
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from api.db import SessionDep
from api.deps import NowDep, PrincipalDep
from api.errors import InvalidError
from api.models_registry import service
from api.models_registry.models import ModelVersion
from api.models_registry.schemas import (
    InForcePublic,
    PromoteBody,
    PromotionPublic,
    ReasonBody,
    RegisteredPublic,
    RegistryPublic,
    VersionPublic,
)
from api.models_registry.store import ArtifactStore
from api.text import check_text


@dataclass(frozen=True, slots=True)
class RegistryConfig:
    """Where the registry keeps artifacts, which file is the shipped model, where checks cache patterns."""

    store: ArtifactStore
    shipped: Path
    cache_dir: Path | None = None


def registry_config(*, data_dir: Path, chat_model_path: Path | None, cache_dir: Path | None) -> RegistryConfig:
    """The registry of an API process: artifacts under `data_dir/models`."""
    from models.chat.artifact import DEFAULT_PATH

    return RegistryConfig(ArtifactStore(data_dir / "models"), chat_model_path or DEFAULT_PATH, cache_dir)


def config_of(request: Request) -> RegistryConfig:
    """The app's registry configuration (set by create_app)."""
    config: RegistryConfig = request.app.state.model_registry
    return config


def version_view(session: Session, row: ModelVersion, shipped: Path) -> VersionPublic:
    """A version with the warnings an admin must confirm to promote it."""
    warn = service.warnings_for(session, row, shipped=shipped)
    return VersionPublic(
        version=row.version, sha256=row.sha256, size=row.size, format=row.format, status=row.status,
        uploaded_by=row.uploaded_by, uploaded_at=row.uploaded_at, note=row.note, checks=row.checks,
        comparison=row.comparison, compared_at=row.compared_at, regressions=warn.regressions, warnings=warn.notes,
    )


def in_force_view(current: service.InForce) -> InForcePublic:
    """Response body for the model in force."""
    return InForcePublic(version=current.version, sha256=current.sha256, size=current.size, source=current.source,
                         promoted_by=current.promoted_by, promoted_at=current.promoted_at, reason=current.reason)


def registry_view(session: Session, shipped: Path) -> RegistryPublic:
    """Everything the admin page and `GET /v1/models` show."""
    return RegistryPublic(
        in_force=in_force_view(service.in_force(session, shipped=shipped)),
        versions=[version_view(session, v, shipped) for v in service.versions(session)],
        history=[PromotionPublic.model_validate(p) for p in service.history(session)],
    )


VersionNo = Annotated[int, PathParam(ge=0, le=2**31 - 1)]
"""A version in a path: bounded, so a huge number is a 422, not a database overflow."""
NOTE = re.compile(r"^[^\x00-\x1f\x7f]{0,500}$")


def router() -> APIRouter:
    """Model registry routes (fixed paths before `/models/{version}`, which would match them)."""
    r = APIRouter(tags=["models"])

    @r.get("/models/promoted", response_model=InForcePublic)
    def promoted(request: Request, session: SessionDep) -> InForcePublic:
        """The model in force: version (0 = shipped) and sha256; consumers poll this."""
        return in_force_view(service.in_force(session, shipped=config_of(request).shipped))

    @r.get("/models", response_model=RegistryPublic)
    def listing(request: Request, session: SessionDep) -> RegistryPublic:
        """Admin: every version with its checks, comparison and warnings; the promotion history."""
        return registry_view(session, config_of(request).shipped)

    @r.post("/models", response_model=RegisteredPublic, status_code=201)
    async def upload(request: Request, now: NowDep, who: PrincipalDep,
                     sha256: str = Query(pattern=r"^[0-9a-fA-F]{64}$", description="sha256 of the body"),
                     note: str = Query(default="", max_length=500)) -> Response:
        """Admin: the raw artifact as the body (application/octet-stream). It is checked (sha256,
        loads as skops with trusted types only, format version, a head per model-scored category,
        sanity lines) and registered as a candidate: 201, or 200 with the existing version for
        the same bytes; 422 with the reason when a check fails."""
        try:
            if not NOTE.match(check_text(note)):
                raise ValueError("no control characters")
        except ValueError as exc:
            raise InvalidError(f"note: {exc}") from None
        config = config_of(request)
        staged = config.store.staging([chunk async for chunk in request.stream()])
        try:
            row, created = await run_in_threadpool(
                _register, request.app.state.sessions, config, staged, sha256, who.username, note, now)
        finally:
            staged.unlink(missing_ok=True)
        body = RegisteredPublic(**row.model_dump(), created=created)
        return JSONResponse(body.model_dump(mode="json"), status_code=201 if created else 200)

    @r.post("/models/rollback", response_model=InForcePublic)
    def rollback(request: Request, body: ReasonBody, session: SessionDep, now: NowDep,
                 who: PrincipalDep) -> InForcePublic:
        """Admin: back to the version in force before the current promotion (audited)."""
        return in_force_view(service.rollback(session, actor=who.username, reason=body.reason,
                                              shipped=config_of(request).shipped, now=now))

    @r.get("/models/{version}", response_model=VersionPublic)
    def detail(request: Request, version: VersionNo, session: SessionDep) -> VersionPublic:
        """Admin: one version."""
        return version_view(session, service.get(session, version), config_of(request).shipped)

    @r.get("/models/{version}/artifact")
    def artifact(request: Request, version: VersionNo, session: SessionDep) -> FileResponse:
        """The artifact's bytes (0: the shipped one); the consumers verify them against the sha256."""
        config = config_of(request)
        path = service.artifact_path(session, config.store, version=version, shipped=config.shipped)
        return FileResponse(path, media_type="application/octet-stream", filename=f"chat_model_v{version}.skops")

    @r.post("/models/{version}/promote", response_model=InForcePublic)
    def promote(request: Request, version: VersionNo, body: PromoteBody, session: SessionDep, now: NowDep,
                who: PrincipalDep) -> InForcePublic:
        """Admin: put a version in force; 409 listing the warnings unless `confirm_regressions`."""
        config = config_of(request)
        return in_force_view(service.promote(session, config.store, version=version, actor=who.username,
                                             reason=body.reason, confirm=body.confirm_regressions,
                                             shipped=config.shipped, now=now))

    @r.post("/models/{version}/retire", response_model=VersionPublic)
    def retire(request: Request, version: VersionNo, body: ReasonBody, session: SessionDep, now: NowDep,
               who: PrincipalDep) -> VersionPublic:
        """Admin: take a candidate out of consideration (audited)."""
        row = service.retire(session, version=version, actor=who.username, reason=body.reason, now=now)
        return version_view(session, row, config_of(request).shipped)

    return r


def _register(sessions: sessionmaker[Session], config: RegistryConfig, staged: Path, sha256: str, actor: str,
              note: str, now: datetime) -> tuple[VersionPublic, bool]:
    """The upload's checks and write, off the event loop (loading a model takes seconds)."""
    with sessions() as session:
        row, created = service.register(session, config.store, path=staged, expected_sha256=sha256.lower(),
                                        actor=actor, note=note, now=now, cache_dir=config.cache_dir)
        return version_view(session, row, config.shipped), created
