"""Routes for labelled examples: a case's labels, a reviewer's correction, the training export."""

from __future__ import annotations

import json
from datetime import datetime

from fastapi import APIRouter, Query
from fastapi.responses import Response

from api.db import SessionDep
from api.deps import NowDep, PrincipalDep
from api.labels import service
from api.labels.schemas import LabelCorrection, LabelPublic

NDJSON = "application/x-ndjson"


def router() -> APIRouter:
    """Label routes."""
    r = APIRouter(prefix="/labels", tags=["labels"])

    @r.get("", response_model=list[LabelPublic])
    def list_labels(session: SessionDep, case_id: str = Query(min_length=1, max_length=40)) -> list[LabelPublic]:
        """A case's labels, oldest decision first, with whether reviewers disagree and why."""
        return [LabelPublic.model_validate(r) for r in service.for_case(session, case_id=case_id)]

    @r.post("/{finding_id}/correction", response_model=LabelPublic)
    def correct(finding_id: str, body: LabelCorrection, session: SessionDep, now: NowDep,
                who: PrincipalDep) -> LabelPublic:
        """Correct the category or mark the span of the label your decision gave the finding (audited)."""
        fix = service.Correction(finding_id=finding_id, category=body.category, span_start=body.span_start,
                                 span_end=body.span_end)
        return LabelPublic.model_validate(service.correct(session, correction=fix, principal=who, now=now))

    @r.get("/export", response_class=Response,
           responses={200: {"content": {NDJSON: {}}, "description": "one labelled example per line"}})
    def export(session: SessionDep, now: NowDep, who: PrincipalDep, since: datetime | None = None) -> Response:
        """Every label as JSON lines (text, category, span, provenance, `train` and why not) for
        `railbird train chat --decisions FILE`; seniors and admins; audited (`labels.export`)."""
        rows = service.export(session, since=since, principal=who, now=now)
        body = "".join(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n" for row in rows)
        return Response(body, media_type=NDJSON, headers={"Cache-Control": "no-store"})

    return r
