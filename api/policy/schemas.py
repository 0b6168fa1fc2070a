"""Policy request and response shapes."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import Field

from api.policy.rules import (
    MAX_AUTO_MUTE_MINUTES,
    MIN_AUDIT_NEAR_SCORE,
    MIN_AUTO_MUTE_SCORE,
    MIN_THRESHOLD,
    THRESHOLD_CATEGORIES,
)
from api.schemas import Body, Public, Reason

ThresholdCategory = Annotated[str, Field(json_schema_extra={"enum": list(THRESHOLD_CATEGORIES)})]
"""A model-scored category: the catalogue's list (the schema shows it; `rules.problems` refuses others
with the list, 422), so a new head is accepted here without an edit."""
Threshold = Annotated[float, Field(ge=MIN_THRESHOLD, le=1.0)]


class ShadowPublic(Public):
    """The shadow part of the policy (api/policy/shadow.py): candidates that act on nothing."""

    detectors: list[str]
    """Detectors with a shadow copy; empty: shadow mode is off."""
    category_thresholds: dict[str, float]
    """Candidate chat thresholds over the live overrides."""
    rules_version: str | None
    """Candidate house-rules version (None: the live one)."""
    model_version: int | None = None
    """Registered chat model the shadow copies score chat with (None: the model in force)."""
    model_sha256: str | None = None
    """That version's digest: the consumers verify the download against it."""
    share: float = 1.0
    """Part of the room (players, tables; chosen by a stable hash) the shadow copies see."""
    since: datetime | None = None
    """When this shadow configuration took effect (the first revision of the run that has it)."""


class ShadowUpdate(Body):
    """`shadow` in a policy change: replaces the whole shadow part ({} or no detectors: off)."""

    detectors: list[Annotated[str, Field(min_length=1, max_length=128)]] = Field(default_factory=list, max_length=64)
    category_thresholds: dict[str, float] = Field(default_factory=dict)
    """Checked against the categories and bounds of `category_thresholds` (422 with the reason)."""
    rules_version: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    model_version: Annotated[int, Field(ge=1)] | None = None
    """A registered chat model version to run in shadow (its sha256 is pinned from the registry)."""
    share: Annotated[float, Field(gt=0.0, le=1.0)] = 1.0
    """Part of the room the shadow copies see: 1 all of it; below 1 a stable hash-chosen part of
    the players and tables, so the copies cost that much less CPU."""


class AuditPublic(Public):
    """Audit sampling of unflagged chat (pipeline/detectors/chat/audit_sample.py); zero rates: off."""

    rate: float
    """Share of unflagged chat lines sent to analysts as audit cases, uniformly."""
    near_rate: float
    """Share of the unflagged lines whose best model score reached `near_score`."""
    near_score: float


class AuditUpdate(Body):
    """`audit` in a policy change: replaces the whole audit part."""

    rate: Annotated[float, Field(ge=0.0, le=1.0)] = 0.0
    near_rate: Annotated[float, Field(ge=0.0, le=1.0)] = 0.0
    near_score: Annotated[float, Field(ge=MIN_AUDIT_NEAR_SCORE, le=1.0)] = 0.25


class PolicyPublic(Public):
    """The enforcement policy in force: what an admin set, and the rules it produces."""

    revision: int
    """0: never changed (the process settings); every change adds one."""
    rules_version: str
    auto_mute_enabled: bool
    auto_mute_min_score: float | None
    """None: the rules version's own value (see `rules`)."""
    auto_mute_minutes: int | None
    category_thresholds: dict[str, float]
    """Overrides of the chat model's operating thresholds; categories not listed use the model's."""
    changed_by: str | None
    changed_at: datetime | None
    reason: str
    rules: dict[str, Any]
    """The rules the consumers run with under this policy (ladders, windows, exempt formats, ...)."""
    shadow: ShadowPublic
    audit: AuditPublic


class PolicyAdminView(PolicyPublic):
    """What the admin page shows in addition: the choices and the model's own thresholds."""

    available_versions: list[str]
    threshold_categories: list[str]
    model_thresholds: dict[str, float]
    available_detectors: list[str]
    """Detector names that may run in shadow."""


class PolicyUpdate(Body):
    """Fields to change; omitted fields stay. `reason` is recorded in the audit log."""

    rules_version: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    auto_mute_enabled: bool | None = None
    auto_mute_min_score: Annotated[float, Field(ge=MIN_AUTO_MUTE_SCORE, le=1.0)] | None = None
    auto_mute_minutes: Annotated[int, Field(ge=1, le=MAX_AUTO_MUTE_MINUTES)] | None = None
    reset_auto_mute: bool = False
    """Back to the rules version's own auto-mute score and minutes."""
    category_thresholds: dict[ThresholdCategory, Threshold] | None = None
    """Replaces every override ({} = the model's thresholds everywhere)."""
    shadow: ShadowUpdate | None = None
    """Replaces the shadow part when given; omitted: it stays."""
    audit: AuditUpdate | None = None
    """Replaces the audit sampling when given; omitted: it stays."""
    expected_revision: Annotated[int, Field(ge=0)] | None = None
    """Optimistic concurrency: 409 if the policy moved on since the caller read it."""
    reason: Reason
