"""Server-rendered review console: login, queue, case page, forms, appeals, detector dashboard."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from sqlalchemy.orm import Session

from api.appeals import service as appeals
from api.appeals.schemas import AppealCreate, AppealResolve
from api.auth import service as auth
from api.cases import service as cases
from api.cases.models import Case
from api.cases.schemas import TakeOverRequest
from api.console import audit_page, flash, labels_page, models_page, pair_chart, policy_page, render
from api.console.flash import Flash
from api.console.guard import (
    LOGIN_CSRF_COOKIE,
    PREFIX,
    SESSION_COOKIE,
    ConsoleContext,
    ConsoleDep,
    install_login_redirect,
    safe_next,
)
from api.console.player_page import install as install_player_page
from api.console.quality_page import install as install_quality_page
from api.console.queue_page import install as install_queue_page
from api.console.queue_page import player_url
from api.console.retro_page import install as install_retro_page
from api.console.rules import cite
from api.console.shadow_page import dashboard_comparison
from api.console.shadow_page import install as install_shadow_page
from api.db import SessionDep
from api.decisions import service as decisions
from api.decisions.schemas import DecisionCreate, NoteCreate
from api.deps import ConfigDep, NowDep
from api.errors import ServiceError, UnauthorizedError
from api.evidence import hand_lookup
from api.evidence.replay import replay
from api.evidence.service import merge
from api.labels import service as label_store
from api.outbox import service as outbox
from api.players import service as players
from api.privacy.policy import redact
from api.quality import masks as quality_masks
from api.sanctions import service as sanctions
from api.sanctions.schemas import RevokeRequest, SanctionApply, SecondReviewRequest
from api.stats import service as stats

HERE = Path(__file__).resolve().parent
FAMILIES = ("chat", "snapcam", "nickname", "seat", "hand")
STATUSES = ("open", "escalated", "on_hold", "confirmed", "appealed", "actioned", "dismissed")
MESSAGES_SHOWN = 200
"""Newest chat messages a case page shows (the API's evidence endpoint has them all)."""


def _templates() -> jinja2.Environment:
    # Autoescape everything: evidence text is attacker-controlled (players type it).
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True,
                             undefined=jinja2.StrictUndefined)
    env.globals["player_url"] = player_url  # every player id in the console links to its page
    return env


def mount_static(app: FastAPI) -> None:
    """Serve /console/static and send anonymous console visitors to the login page."""
    app.mount(f"{PREFIX}/static", StaticFiles(directory=HERE / "static"), name="console-static")
    install_login_redirect(app)


def router() -> APIRouter:
    """Console routes (HTML)."""
    env = _templates()
    r = APIRouter(prefix=PREFIX, default_response_class=HTMLResponse)

    def page(name: str, ctx: ConsoleContext, code: int = 200, **data: Any) -> HTMLResponse:
        html = env.get_template(name).render(ctx=ctx, **data)
        resp = HTMLResponse(html, status_code=code, headers={"Cache-Control": "no-store"})
        if ctx.flash is not None:
            flash.consumed(resp, path=PREFIX)
        return resp

    @r.get("/login")
    def login_form(ctx: ConsoleDep, config: ConfigDep, next: str = "") -> HTMLResponse:
        nonce = secrets.token_urlsafe(24)
        resp = page("login.html", ctx, login_csrf=nonce, error="", next=safe_next(next) or "")
        resp.set_cookie(LOGIN_CSRF_COOKIE, nonce, httponly=True, samesite="strict", path=PREFIX,
                        secure=config.secure_cookies, max_age=3600)
        return resp

    @r.post("/login")
    def login(request: Request, ctx: ConsoleDep, session: SessionDep, config: ConfigDep, now: NowDep) -> Response:
        nonce = request.cookies.get(LOGIN_CSRF_COOKIE, "")
        target = safe_next(ctx.form.get("next", "")) or ""
        if not nonce or not secrets.compare_digest(nonce, ctx.form.get("csrf", "")):
            return page("login.html", ctx, 403, login_csrf=nonce, error="Form expired; reload the page.", next=target)
        try:
            raw, _ = auth.login(session, username=ctx.form.get("username", "")[:64],
                                   password=ctx.form.get("password", "")[:256], ttl=config.session_ttl, now=now)
        except UnauthorizedError as exc:
            return page("login.html", ctx, 401, login_csrf=nonce, error=exc.message, next=target)
        resp = RedirectResponse(target or f"{PREFIX}/", status_code=303)
        resp.set_cookie(SESSION_COOKIE, raw, httponly=True, samesite="strict", path=PREFIX,
                        secure=config.secure_cookies, max_age=int(config.session_ttl.total_seconds()))
        resp.delete_cookie(LOGIN_CSRF_COOKIE, path=PREFIX)
        return resp

    @r.post("/logout")
    def logout(request: Request, ctx: ConsoleDep, session: SessionDep, now: NowDep) -> Response:
        auth.revoke_raw(session, raw=request.cookies.get(SESSION_COOKIE, ""), now=now)
        resp = RedirectResponse(f"{PREFIX}/login", status_code=303)
        resp.delete_cookie(SESSION_COOKIE, path=PREFIX)
        return resp

    @r.get("/cases/{case_id}")
    def case_page(case_id: str, request: Request, ctx: ConsoleDep, session: SessionDep, now: NowDep,
                  config: ConfigDep) -> HTMLResponse:
        try:
            b = cases.bundle(session, case_id=case_id)
        except ServiceError as exc:
            return page("error.html", ctx, exc.status_code, message=exc.message)
        # Same redaction as the API's JSON: roles that do not review cases see no player-written text.
        ev = merge(b.findings)
        # Hand-in-play chat names its hand; the record itself comes from the event archive.
        ev["hands"] += [replay(h) for h in hand_lookup.running_hands(
            request.app.state.retro_archive_root, hand_lookup.in_play_messages(b.findings),
            (str(h.get("hand_id")) for h in ev["hands"]), now=now)]
        ev = ev if ctx.reads_chat else redact(ev)
        if ctx.reads_chat and (ev["messages"] or ev["reports"]):
            request.app.state.text_views.record(actor=ctx.user.username, case_id=case_id, surface="console",
                                                now=now)
        # Everyone the case's findings name (pairs, groups, victims), subject first, at most four.
        everyone = list(dict.fromkeys([b.case.subject_id, *(p for f in b.findings for p in f.players or [])]))
        histories = [players.history(session, player_id=p, limit=20) for p in everyone[:4]]
        histories = quality_masks.histories_for(session, case_id=case_id, histories=histories)
        events = outbox.for_sanctions(session, sanction_ids=[s.id for s in b.sanctions])
        ids = {d.user_id for d in b.decisions} | ({b.case.assignee_id} if b.case.assignee_id else set())
        names = auth.usernames(session, user_ids=ids)
        return page(
            "case.html", ctx, b=b, ev=ev, now=now, rule_text=cite(b.case.rule),
            messages=[(m, render.segments(str(m.get("text", "")), m.get("spans") if ctx.reads_chat else None))
                      for m in ev["messages"][-MESSAGES_SHOWN:]],
            messages_hidden=max(0, len(ev["messages"]) - MESSAGES_SHOWN), human=render.human,
            statistic_items=render.statistic_items,
            clip_url=lambda ref: render.clip_url(config.clip_url_template, ref),
            transfer=_transfer(b.case, everyone, ev), reason_templates=decisions.REASON_TEMPLATES,
            timeline=render.timeline_chart(ev["timeline"]), histories=histories, events=events, age=_age, names=names,
            claimed_by_me=_holds_claim(b.case, ctx.user.user_id, now),
            claimed_by_other=_claimed_by_other(b.case, ctx.user.user_id, now),
            groups=render.collapse_findings(b.findings), groups_shown=render.FINDING_GROUPS_SHOWN,
            follow_ups=cases.follow_ups(session, case=b.case), everyone=everyone,
            labels=label_store.for_case(session, case_id=case_id), label_categories=labels_page.CATEGORY_CHOICES,
        )

    def act(case_id: str, fn: Callable[[], object], done: str, ctx: ConsoleContext) -> RedirectResponse:
        try:
            fn()
            notice = Flash("ok", done)
        except ServiceError as exc:
            notice = Flash("error", exc.message)
        except ValidationError as exc:
            notice = Flash("error", validation_text(exc))
        return back(ctx, f"{PREFIX}/cases/{quote(case_id, safe='')}", notice)

    @r.post("/cases/{case_id}/claim")
    def claim(case_id: str, ctx: ConsoleDep, session: SessionDep, config: ConfigDep, now: NowDep) -> Response:
        return act(case_id, lambda: cases.claim(session, case_id=case_id, principal=ctx.user, ttl=config.claim_ttl,
                                                now=now), "Claimed.", ctx)

    @r.post("/cases/{case_id}/take-over")
    def take_over(case_id: str, ctx: ConsoleDep, session: SessionDep, config: ConfigDep, now: NowDep) -> Response:
        def run() -> None:
            body = TakeOverRequest(reason=ctx.form.get("reason", ""))
            cases.take_over(session, case_id=case_id, principal=ctx.user, reason=body.reason, ttl=config.claim_ttl,
                            now=now)
        return act(case_id, run, "Taken over.", ctx)

    @r.post("/cases/{case_id}/release")
    def release(case_id: str, ctx: ConsoleDep, session: SessionDep, now: NowDep) -> Response:
        return act(case_id, lambda: cases.release(session, case_id=case_id, principal=ctx.user, now=now), "Released.", ctx)

    @r.post("/cases/{case_id}/decide")
    def decide(case_id: str, ctx: ConsoleDep, session: SessionDep, now: NowDep) -> Response:
        def run() -> None:
            body = DecisionCreate(kind=ctx.form.get("kind", ""), reason=ctx.form.get("reason", ""),  # type: ignore[arg-type]
                                  apply=ctx.form.get("apply") == "on")
            decisions.decide(session, case_id=case_id, kind=body.kind, reason=body.reason, apply=body.apply,
                             principal=ctx.user, now=now)
        return act(case_id, run, "Decision recorded.", ctx)

    @r.post("/cases/{case_id}/note")
    def note(case_id: str, ctx: ConsoleDep, session: SessionDep, now: NowDep) -> Response:
        def run() -> None:
            body = NoteCreate(text=ctx.form.get("text", ""))
            decisions.add_note(session, case_id=case_id, text=body.text, principal=ctx.user, now=now)
        return act(case_id, run, "Note added.", ctx)

    @r.post("/cases/{case_id}/sanction")
    def sanction(case_id: str, ctx: ConsoleDep, session: SessionDep, now: NowDep) -> Response:
        def run() -> None:
            if not ctx.form.get("kind"):
                decisions.apply_confirmed(session, case_id=case_id, principal=ctx.user, now=now)
                return
            hours = ctx.form.get("expires_hours", "")
            body = SanctionApply(
                kind=ctx.form["kind"], scope=ctx.form.get("scope") or None,  # type: ignore[arg-type]
                scope_value=ctx.form.get("scope_value") or None, reason=ctx.form.get("reason") or None,
                player_id=ctx.form.get("player_id") or None,
                expires_at=now + timedelta(hours=float(hours)) if hours.replace(".", "", 1).isdigit() else None,
            )
            decisions.apply_custom(session, case_id=case_id, kind=body.kind or "", scope=body.scope or "",
                                   scope_value=body.scope_value, expires_at=body.expires_at,
                                   reason=body.reason or "", principal=ctx.user, now=now, player_id=body.player_id)
        return act(case_id, run, "Sanction applied.", ctx)

    @r.post("/cases/{case_id}/appeal")
    def appeal(case_id: str, ctx: ConsoleDep, session: SessionDep, now: NowDep) -> Response:
        def run() -> None:
            body = AppealCreate(statement=ctx.form.get("statement", ""))
            appeals.open_appeal(session, case_id=case_id, statement=body.statement, principal=ctx.user, now=now)
        return act(case_id, run, "Appeal opened; the case is back in review.", ctx)

    @r.post("/sanctions/{sanction_id}/revoke")
    def revoke(sanction_id: str, ctx: ConsoleDep, session: SessionDep, now: NowDep) -> Response:
        case_id = _case_of(session, sanction_id)

        def run() -> None:
            body = RevokeRequest(reason=ctx.form.get("reason", ""))
            sanctions.revoke(session, sanction_id=sanction_id, reason=body.reason, actor=ctx.user.username, now=now)
        return act(case_id, run, "Sanction revoked.", ctx)

    @r.post("/sanctions/{sanction_id}/second-review")
    def second_review(sanction_id: str, ctx: ConsoleDep, session: SessionDep, now: NowDep) -> Response:
        case_id = _case_of(session, sanction_id)

        def run() -> None:
            body = SecondReviewRequest(approve=ctx.form.get("approve") == "yes", reason=ctx.form.get("reason", ""))
            sanctions.second_review(session, sanction_id=sanction_id, approve=body.approve, reason=body.reason,
                                    actor=ctx.user.username, now=now)
        return act(case_id, run, "Second review recorded.", ctx)

    @r.post("/appeals/{appeal_id}/resolve")
    def resolve(appeal_id: str, ctx: ConsoleDep, session: SessionDep, now: NowDep) -> Response:
        def run() -> str:
            body = AppealResolve(outcome=ctx.form.get("outcome", ""), reason=ctx.form.get("reason", ""))  # type: ignore[arg-type]
            return appeals.resolve(session, appeal_id=appeal_id, outcome=body.outcome, reason=body.reason,
                                   principal=ctx.user, now=now).case_id
        try:
            case_id = run()
            return back(ctx, f"{PREFIX}/cases/{quote(case_id, safe='')}", Flash("ok", "Appeal resolved."))
        except (ServiceError, ValidationError) as exc:
            text = exc.message if isinstance(exc, ServiceError) else "outcome and reason are required"
            return back(ctx, f"{PREFIX}/appeals", Flash("error", text))

    @r.get("/appeals")
    def appeals_page(ctx: ConsoleDep, session: SessionDep) -> HTMLResponse:
        return page("appeals.html", ctx, appeals=appeals.search(session, status=None, limit=100, offset=0),
                    held=sanctions.search(session, player_id=None, case_id=None, status="pending_review",
                                          limit=100, offset=0))

    @r.get("/dashboard")
    def dashboard(request: Request, ctx: ConsoleDep, session: SessionDep) -> HTMLResponse:
        rows = stats.detector_stats(session, since=None)
        volume = render.bar_chart([(s.detector, float(s.findings)) for s in rows])
        rate = render.bar_chart([(s.detector, round((s.confirm_rate or 0) * 100, 1)) for s in rows], fill="#2e7d32")
        return page("dashboard.html", ctx, rows=rows, volume=volume, rate=rate, summary=stats.summary(session),
                    comparison=dashboard_comparison(request, session))

    policy_page.install(r, page)
    install_retro_page(r, page)
    install_shadow_page(r, page)
    models_page.install(r, page)
    audit_page.install(r, page)
    labels_page.install(r)
    install_quality_page(r, page)
    install_queue_page(r, page)
    install_player_page(r, page)
    return r


def back(ctx: ConsoleContext, url: str, notice: Flash) -> RedirectResponse:
    """The 303 after a console form, with its outcome as a one-shot signed notice."""
    return flash.redirect_with(url, notice, key=ctx.flash_key, secure=ctx.secure_cookies, path=PREFIX)


def validation_text(exc: ValidationError) -> str:
    """A form's validation errors in one line."""
    return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors(include_url=False))


def _transfer(case: Case, everyone: list[str], ev: dict[str, Any]) -> pair_chart.TransferChart | None:
    """Soft play and chip dumping are about chips moving inside a pair: chart subject -> partner."""
    if case.category not in ("soft_play", "chip_dumping") or len(everyone) < 2:
        return None
    return pair_chart.transfer_chart(list(ev.get("hands", [])), everyone[0], everyone[1])


def _case_of(session: Session, sanction_id: str) -> str:
    try:
        return sanctions.get(session, sanction_id=sanction_id).case_id or ""
    except ServiceError:
        return ""


def _holds_claim(case: Case, user_id: str, now: datetime) -> bool:
    return case.assignee_id == user_id and case.claim_expires_at is not None and case.claim_expires_at > now


def _claimed_by_other(case: Case, user_id: str, now: datetime) -> bool:
    return case.assignee_id not in (None, user_id) and case.claim_expires_at is not None and case.claim_expires_at > now


def _age(seconds: float) -> str:
    """Compact age: 45s, 12m, 5h, 3d."""
    s = int(seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if s >= size:
            return f"{s // size}{unit}"
    return f"{s}s"
