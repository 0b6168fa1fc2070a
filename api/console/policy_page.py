"""Console page where an admin reads and changes the enforcement policy (same service as the API)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import ValidationError

from api.console.flash import Flash, redirect_with
from api.console.guard import PREFIX, ConsoleDep
from api.db import SessionDep
from api.deps import NowDep
from api.errors import ServiceError
from api.policy import service
from api.policy.schemas import PolicyUpdate
from api.policy.views import admin_view, change_of, default_version
from api.shadow.service import since

PageFn = Callable[..., HTMLResponse]


def install(r: APIRouter, page: PageFn) -> None:
    """Add GET/POST /console/admin/policy to the console router."""

    @r.get("/admin/policy")
    def policy_page(request: Request, ctx: ConsoleDep, session: SessionDep) -> HTMLResponse:
        policy = service.active(session, default_version=default_version(request))
        return page("policy.html", ctx, p=admin_view(policy, request.app.state.chat_model_path, since(session, policy)))

    @r.post("/admin/policy")
    def change_policy(request: Request, ctx: ConsoleDep, session: SessionDep, now: NowDep) -> Response:
        try:
            body = PolicyUpdate.model_validate(form_to_update(ctx.form))
            _, changed = service.change(session, change=change_of(body), expected_revision=body.expected_revision,
                                        reason=body.reason, actor=ctx.user.username,
                                        default_version=default_version(request), now=now)
            notice = Flash("ok", "Policy changed; consumers pick it up within their refresh interval." if changed
                           else "Nothing changed.")
        except ServiceError as exc:
            notice = Flash("error", exc.message)
        except ValidationError as exc:
            notice = Flash("error", "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                                              for e in exc.errors(include_url=False)))
        return redirect_with(f"{PREFIX}/admin/policy", notice, key=ctx.flash_key, secure=ctx.secure_cookies,
                             path=PREFIX)


def form_to_update(form: dict[str, str]) -> dict[str, Any]:
    """The HTML form as a PolicyUpdate body: empty inputs mean "the default", a checkbox is on/absent."""
    thresholds = {k.removeprefix("threshold_"): v for k, v in form.items() if k.startswith("threshold_") and v.strip()}
    body: dict[str, Any] = {
        "rules_version": form.get("rules_version") or None,
        "auto_mute_enabled": form.get("auto_mute_enabled") == "on",
        "category_thresholds": thresholds,
        "reason": form.get("reason", ""),
        "expected_revision": form.get("expected_revision") or None,
        # The form always shows the whole shadow part, so it is always sent whole (none ticked: off).
        "shadow": {
            "detectors": [k.removeprefix("shadow_detector_") for k, v in form.items()
                          if k.startswith("shadow_detector_") and v == "on"],
            "category_thresholds": {k.removeprefix("shadow_threshold_"): v for k, v in form.items()
                                    if k.startswith("shadow_threshold_") and v.strip()},
            "rules_version": form.get("shadow_rules_version") or None,
            "model_version": form.get("shadow_model_version", "").strip() or None,
            "share": form.get("shadow_share", "").strip() or 1.0,
        },
        # Likewise the audit part (empty inputs: off, and the default near score).
        "audit": {k: v for k in ("rate", "near_rate", "near_score") if (v := form.get(f"audit_{k}", "").strip())},
    }
    score, minutes = form.get("auto_mute_min_score", "").strip(), form.get("auto_mute_minutes", "").strip()
    if score or minutes:
        body.update(auto_mute_min_score=score or None, auto_mute_minutes=minutes or None)
    else:
        body["reset_auto_mute"] = True
    return body
