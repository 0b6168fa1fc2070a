"""Routes for ingestion and findings."""

from __future__ import annotations

from fastapi import APIRouter

from api.db import SessionDep
from api.deps import NowDep
from api.findings import service
from api.findings.schemas import FindingBatch, FindingPublic, IngestResponse
from api.pagination import Filter, Limit, Offset


def router() -> APIRouter:
    """Findings routes."""
    r = APIRouter(prefix="/findings", tags=["findings"])

    @r.post("/batch", response_model=IngestResponse,
            responses={503: {"description": "database unavailable; retry after Retry-After seconds"}})
    def ingest_batch(body: FindingBatch, session: SessionDep, now: NowDep) -> IngestResponse:
        """Idempotent ingestion of up to 1,000 findings (service token)."""
        result = service.ingest(session, findings=body.findings, now=now)
        return IngestResponse(accepted=result.accepted, duplicates=result.duplicates,
                              case_ids=result.case_ids, sanction_ids=result.sanction_ids, shadow=result.shadow)

    @r.get("", response_model=list[FindingPublic])
    def list_findings(session: SessionDep, detector: Filter = None, family: Filter = None,
                      player_id: Filter = None, case_id: Filter = None, limit: Limit = 50,
                      offset: Offset = 0) -> list[FindingPublic]:
        """Findings, newest first, filtered."""
        rows = service.search(session, detector=detector, family=family, player_id=player_id,
                              case_id=case_id, limit=limit, offset=offset)
        return [FindingPublic.model_validate(r) for r in rows]

    @r.get("/{finding_id}", response_model=FindingPublic)
    def get_finding(finding_id: str, session: SessionDep) -> FindingPublic:
        """One finding with its full document."""
        return FindingPublic.model_validate(service.get(session, finding_id=finding_id))

    return r
