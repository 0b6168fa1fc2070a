"""Console page of reviewer quality for seniors and admins: accuracy on golden items, agreement on
second reviews (each with its sample size), the golden sources and the reviews the majority
overturned; forms to use a closed case as golden (senior/admin) and to set the rates (admin)."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response
from pydantic import ValidationError

from api.console.flash import Flash, redirect_with
from api.console.guard import PREFIX, ConsoleDep
from api.db import SessionDep
from api.deps import NowDep
from api.errors import InvalidError, ServiceError
from api.quality import metrics, service
from api.quality.schemas import GoldenCreate

PageFn = Callable[..., HTMLResponse]


def _rate(raw: str | None) -> float | None:
    """A form's rate: empty keeps the current one; anything else must be a number."""
    if raw is None or not raw.strip():
        return None
    try:
        return float(raw)
    except ValueError as exc:
        raise InvalidError(f"rate: {raw[:20]!r} is not a number") from exc


def install(r: APIRouter, page: PageFn) -> None:
    """Add GET /console/quality and its two forms to the console router."""

    @r.get("/quality")
    def quality_page(ctx: ConsoleDep, session: SessionDep) -> HTMLResponse:
        return page("quality.html", ctx, m=metrics.compute(session), rates=service.rates(session),
                    golden=service.golden_sources(session, limit=100),
                    reviews=metrics.reviews(session, status=None, limit=50),
                    rate_max=service.RATE_MAX,
                    escalate_families=", ".join(f for f, a in service.GOLDEN_ANSWERS.items() if "escalate" in a))

    def done(notice: Flash, ctx: ConsoleDep) -> Response:
        return redirect_with(f"{PREFIX}/quality", notice, key=ctx.flash_key, secure=ctx.secure_cookies, path=PREFIX)

    @r.post("/quality/golden")
    def mark_golden(ctx: ConsoleDep, session: SessionDep, now: NowDep) -> Response:
        try:
            body = GoldenCreate(case_id=ctx.form.get("case_id", "").strip(), expected=ctx.form.get("expected", ""),
                                reason=ctx.form.get("reason", ""))
            g = service.mark_golden(session, case_id=body.case_id, expected=body.expected, reason=body.reason,
                                    principal=ctx.user, now=now)
            notice = Flash("ok", f"Case {g.case_id} is a golden item (answer: {g.expected}).")
        except ServiceError as exc:
            notice = Flash("error", exc.message)
        except ValidationError as exc:
            notice = Flash("error", "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                                              for e in exc.errors(include_url=False)))
        return done(notice, ctx)

    @r.post("/quality/rates")
    def set_rates(ctx: ConsoleDep, session: SessionDep, now: NowDep) -> Response:
        try:
            reason = ctx.form.get("reason", "").strip()
            if not reason:
                raise InvalidError("reason: required (audited)")
            expected = ctx.form.get("expected_revision", "").strip()
            _, changed = service.set_rates(
                session, golden_rate=_rate(ctx.form.get("golden_rate")),
                second_review_rate=_rate(ctx.form.get("second_review_rate")), reason=reason[:2000],
                expected_revision=int(expected) if expected.isdigit() else None, actor=ctx.user.username, now=now)
            notice = Flash("ok", "Rates changed." if changed else "Nothing changed.")
        except ServiceError as exc:
            notice = Flash("error", exc.message)
        return done(notice, ctx)
