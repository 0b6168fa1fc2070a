"""The case page's label form: a reviewer corrects the category of a chat finding they decided, or
marks the offending span, and it is stored with the label (`api.labels`)."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import ValidationError

from api.console.flash import Flash, redirect_with
from api.console.guard import PREFIX, ConsoleDep
from api.db import SessionDep
from api.deps import NowDep
from api.errors import ServiceError
from api.labels import service
from api.labels.schemas import LabelCorrection

CATEGORY_CHOICES: tuple[str, ...] = (service.CLEAN, *sorted(service.CHAT_CATEGORIES))
"""What the form's category list offers: clean first, then the catalogue's chat categories."""


def install(r: APIRouter) -> None:
    """Add POST /console/cases/{case_id}/labels/{finding_id} to the console router."""

    @r.post("/cases/{case_id}/labels/{finding_id}")
    def correct_label(case_id: str, finding_id: str, ctx: ConsoleDep, session: SessionDep, now: NowDep) -> Response:
        try:
            body = LabelCorrection(category=ctx.form.get("category") or None,
                                   span_start=_int_or_none(ctx.form.get("span_start", "")),
                                   span_end=_int_or_none(ctx.form.get("span_end", "")))
            service.correct(session, correction=service.Correction(
                finding_id=finding_id, category=body.category, span_start=body.span_start, span_end=body.span_end),
                principal=ctx.user, now=now)
            notice = Flash("ok", "Label corrected.")
        except ServiceError as exc:
            notice = Flash("error", exc.message)
        except ValidationError as exc:
            notice = Flash("error", "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                                              for e in exc.errors(include_url=False)))
        except ValueError as exc:
            notice = Flash("error", str(exc))
        return redirect_with(f"{PREFIX}/cases/{quote(case_id, safe='')}#labels", notice, key=ctx.flash_key,
                             secure=ctx.secure_cookies, path=PREFIX)


def _int_or_none(raw: str) -> int | None:
    """An offset typed into the form; blank is "no span"; anything else must be a whole number."""
    raw = raw.strip()
    if not raw:
        return None
    if not raw.isdigit():
        raise ValueError(f"span offsets are whole numbers of characters, not {raw[:20]!r}")
    return int(raw)
