"""Service-layer errors and how they map to HTTP: every failure is a 4xx or a 503, never a 500."""

from __future__ import annotations

import html
import logging

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from sqlalchemy.exc import DataError, IntegrityError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger(__name__)

RETRY_AFTER_S = 5


class ServiceError(Exception):
    """A request the service refuses, with the HTTP status and a message for the caller."""

    status_code = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFoundError(ServiceError):
    """The thing named in the path does not exist."""

    status_code = 404


class ConflictError(ServiceError):
    """The request contradicts the current state (stale claim, closed case, duplicate)."""

    status_code = 409


class InvalidError(ServiceError):
    """Well-formed but semantically invalid input."""

    status_code = 422


class UnauthorizedError(ServiceError):
    """No credentials, or credentials that are unknown, expired or revoked."""

    status_code = 401


class ForbiddenError(ServiceError):
    """Authenticated, but the role does not allow this."""

    status_code = 403


def install_error_handlers(app: FastAPI) -> None:
    """Register the mappings on `app`."""
    app.add_exception_handler(ServiceError, _service_error)  # type: ignore[arg-type]
    app.add_exception_handler(StarletteHTTPException, _http_error)  # type: ignore[arg-type]
    app.add_exception_handler(OperationalError, _unavailable)  # type: ignore[arg-type]
    app.add_exception_handler(PoolTimeoutError, _unavailable)  # type: ignore[arg-type]
    app.add_exception_handler(IntegrityError, _integrity)  # type: ignore[arg-type]
    app.add_exception_handler(DataError, _data)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, _validation)  # type: ignore[arg-type]


async def _validation(_request: Request, exc: RequestValidationError) -> JSONResponse:
    # Never echo the input back: it may be huge, or hold text (lone surrogates) JSON cannot encode.
    errors = [{"loc": list(e.get("loc", ())), "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))}
              for e in exc.errors()[:20]]
    return JSONResponse({"detail": errors}, status_code=422)


async def _service_error(request: Request, exc: ServiceError) -> Response:
    if _is_console(request):
        return console_error_page(exc.status_code, exc.message)
    headers = {"WWW-Authenticate": "Bearer"} if exc.status_code == 401 else None
    return JSONResponse({"detail": exc.message}, status_code=exc.status_code, headers=headers)


async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
    if _is_console(request):
        message = "No such console page." if exc.status_code == 404 else str(exc.detail)
        return console_error_page(exc.status_code, message)
    return await http_exception_handler(request, exc)


def _is_console(request: Request) -> bool:
    return request.url.path == "/console" or request.url.path.startswith("/console/")


def console_error_page(status: int, message: str) -> HTMLResponse:
    """People in the console get a page with its navigation, not JSON; the message is escaped."""
    nav = "".join(f'<a href="{href}">{label}</a> ' for href, label in (
        ("/console/", "Queue"), ("/console/appeals", "Appeals &amp; second review"),
        ("/console/dashboard", "Detectors"), ("/console/login", "Log in")))
    body = (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{status} · Railbird review</title>'
            f'<link rel="stylesheet" href="/console/static/console.css"></head><body>'
            f'<header class="top"><a class="brand" href="/console/">Railbird</a><nav>{nav}</nav></header><main>'
            f'<h1>{status}</h1><p class="error" role="alert">{html.escape(message)}</p></main></body></html>')
    return HTMLResponse(body, status_code=status, headers={"Cache-Control": "no-store"})


async def _unavailable(_request: Request, exc: Exception) -> JSONResponse:
    # The database is down or locked: the caller should retry, so this is 503, not 500.
    log.warning("database unavailable: %s", type(exc).__name__)
    return JSONResponse(
        {"detail": "database unavailable, retry later"},
        status_code=503,
        headers={"Retry-After": str(RETRY_AFTER_S)},
    )


async def _integrity(_request: Request, exc: IntegrityError) -> JSONResponse:
    log.info("integrity conflict: %s", exc.orig)
    return JSONResponse({"detail": "conflicts with existing data (concurrent change?)"}, status_code=409)


async def _data(_request: Request, exc: DataError) -> JSONResponse:
    log.info("data rejected by the database: %s", exc.orig)
    return JSONResponse({"detail": "value rejected by the database (out of range or bad text)"}, status_code=422)
