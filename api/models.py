"""Imports every table module so `Base.metadata` is complete (for Alembic and tests)."""

from __future__ import annotations

from api.appeals.models import Appeal
from api.audit.models import AuditEntry
from api.auth.models import ApiToken, User
from api.cases.models import Case, CaseAction, CaseTag
from api.db import Base
from api.decisions.models import Decision
from api.findings.models import FindingPlayer, FindingRow
from api.labels.models import LabelRow
from api.models_registry.models import ModelPromotion, ModelVersion
from api.outbox.models import OutboxEvent
from api.policy.models import PolicyRevision
from api.quality.models import GoldenSource, QualityItem, QualitySettings, SecondReview
from api.retro.models import RetroRun
from api.sanctions.models import Sanction
from api.saved_views.models import SavedView
from api.shadow.models import ShadowFindingRow

__all__ = [
    "ApiToken",
    "Appeal",
    "AuditEntry",
    "Base",
    "Case",
    "CaseAction",
    "CaseTag",
    "Decision",
    "FindingPlayer",
    "FindingRow",
    "GoldenSource",
    "LabelRow",
    "ModelPromotion",
    "ModelVersion",
    "OutboxEvent",
    "PolicyRevision",
    "QualityItem",
    "QualitySettings",
    "RetroRun",
    "Sanction",
    "SavedView",
    "SecondReview",
    "ShadowFindingRow",
    "User",
]
