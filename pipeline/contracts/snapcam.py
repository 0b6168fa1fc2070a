"""`snapcam.reports`: a player's report about another player's SnapCam broadcast."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import StringConstraints, model_validator

from pipeline.contracts.common import MAX_TEXT_CHARS, MAX_TRANSCRIPT_CHARS, Contract, Id

ReportReason = Literal["offensive", "harassment", "hand_influence", "other"]


class SnapCamReport(Contract):
    """One abuse report with the clip it refers to and, if the platform has one, its transcript."""

    report_id: Id
    reporter_id: Id
    reported_id: Id
    reason: ReportReason
    comment: Annotated[str, StringConstraints(max_length=MAX_TEXT_CHARS)]
    clip_ref: Annotated[str, StringConstraints(min_length=1, max_length=512)]
    table_id: Id | None = None
    tournament_id: Id | None = None
    transcript: Annotated[str, StringConstraints(max_length=MAX_TRANSCRIPT_CHARS)] | None = None

    @model_validator(mode="after")
    def _not_self(self) -> SnapCamReport:
        if self.reporter_id == self.reported_id:
            raise ValueError("reporter_id and reported_id are the same player")
        return self
