"""The review API's application factory: no globals, every dependency handed in."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, FastAPI
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from api import apidocs
from api.appeals import views as appeals
from api.audit import views as audit
from api.audit.text_views import TextViewLog
from api.auth import views as auth
from api.cases import views as cases
from api.console import views as console
from api.db import make_engine, make_read_sessions, make_sessions, migrate
from api.deps import ApiConfig, authorize
from api.errors import install_error_handlers
from api.findings import views as findings
from api.labels import views as labels
from api.middleware import BodyLimit, SecurityHeaders
from api.models_registry import views as models_registry
from api.outbox import views as events
from api.outbox.relay import Relay
from api.players import views as players
from api.policy import views as policy
from api.privacy.retention import RetentionJob
from api.privacy.shaping import PrivacyShaping
from api.quality import views as quality
from api.ratelimit import RateLimit, rate_limits_from
from api.retro import views as retro
from api.sanctions import views as sanctions
from api.saved_views import views as saved_views
from api.shadow import views as shadow_views
from api.stats import views as stats
from railbird.settings import DEV_SERVICE_TOKEN, Settings

log = logging.getLogger(__name__)


def config_from(settings: Settings, **overrides: Any) -> ApiConfig:
    """ApiConfig from the process settings; the dev service token is refused in production."""
    if settings.env == "production" and settings.service_token == DEV_SERVICE_TOKEN:
        raise RuntimeError("RAILBIRD_SERVICE_TOKEN is the dev default; set a real secret in production")
    return ApiConfig(service_token=settings.service_token or None, env=settings.env,
                     clip_url_template=settings.clip_url_template, **overrides)


def origin_of(url: str) -> str:
    """scheme://host[:port] of a URL (empty for an empty one): the CSP names origins, not paths."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def create_app(
    *,
    settings: Settings,
    config: ApiConfig | None = None,
    engine: Engine | None = None,
    sessions: sessionmaker[Session] | None = None,
    run_migrations: bool = True,
    relay_factory: Callable[[sessionmaker[Session]], Relay] | None = None,
    retention: bool | None = None,
) -> FastAPI:
    """Build the app: `/v1` API, console at `/`, migrations and (optionally) the outbox relay on startup."""
    config = config or config_from(settings)
    engine = engine or make_engine(settings.resolved_database_url())
    sessions = sessions or make_sessions(engine)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if run_migrations:
            migrate(engine)
        relay = relay_factory(sessions) if relay_factory else None
        if relay:
            relay.start()
        purge = _app.state.retention = retention_job(settings, sessions, config, retention)
        if purge:
            purge.start()
        try:
            yield
        finally:
            if purge:
                purge.stop()
            if relay:
                relay.stop()

    app = FastAPI(
        title="Railbird review API",
        version="1.0.0",
        description="Findings, cases, decisions, sanctions, appeals and enforcement events.",
        openapi_url="/v1/openapi.json",
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.config, app.state.sessions, app.state.engine = config, sessions, engine
    app.state.read_sessions = make_read_sessions(sessions)
    app.state.text_views = TextViewLog(sessions)
    app.state.default_rules_version, app.state.chat_model_path = settings.rules_version, settings.chat_model_path
    app.state.model_registry = models_registry.registry_config(
        data_dir=settings.data_dir, chat_model_path=settings.chat_model_path, cache_dir=settings.resolved_cache_dir())
    app.state.retro_archive_root, app.state.retention_days = settings.data_dir / "archive", settings.retention_days
    install_error_handlers(app)
    app.add_api_route("/healthz", _health, methods=["GET"], include_in_schema=False)
    apidocs.install(app)
    app.include_router(api_router())
    app.include_router(console.router(), include_in_schema=False)
    console.mount_static(app)
    app.add_middleware(BodyLimit, max_bytes=config.max_body_bytes)
    app.add_middleware(SecurityHeaders, media_origin=origin_of(config.clip_url_template))
    app.add_middleware(PrivacyShaping)
    if limits := rate_limits_from(settings):
        app.add_middleware(RateLimit, limits=limits)
    return app


def retention_job(settings: Settings, sessions: sessionmaker[Session], config: ApiConfig,
                  enabled: bool | None) -> RetentionJob | None:
    """The evidence-retention job, if retention is on (a period > 0; not under env=test unless asked)."""
    on = enabled if enabled is not None else settings.retention_enabled
    if on is None:
        on = settings.env != "test"
    if not on or settings.retention_days <= 0:
        return None
    return RetentionJob(sessions=sessions, days=settings.retention_days, interval_s=settings.retention_interval_s,
                        clock=config.clock)


def api_router() -> APIRouter:
    """Everything under /v1, behind the deny-by-default permission table."""
    v1 = APIRouter(prefix="/v1", dependencies=[Depends(authorize)])
    v1.add_api_route("/health", _health, methods=["GET"], tags=["health"])
    v1.include_router(retro.router())
    for module in (auth, findings, cases, sanctions, players, appeals, stats, audit, events, policy, saved_views,
                   labels, models_registry):
        v1.include_router(module.router())
    v1.include_router(shadow_views.router())
    v1.include_router(quality.router())
    return v1


def _health() -> dict[str, str]:
    """Liveness (no database call)."""
    return {"status": "ok"}
