"""Model registry request and response shapes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from api.schemas import Body, Public, Reason


class InForcePublic(Public):
    """The model the consumers serve: they compare `sha256` with their own and download on a change."""

    version: int
    """0: the shipped artifact (nothing promoted, or rolled back to it)."""
    sha256: str
    size: int
    source: str
    promoted_by: str | None
    promoted_at: datetime | None
    reason: str


class VersionPublic(Public):
    """One registered version with its checks, its comparison and what promoting it needs confirmed."""

    version: int
    sha256: str
    size: int
    format: str
    status: str
    uploaded_by: str
    uploaded_at: datetime
    note: str
    checks: dict[str, Any]
    comparison: dict[str, Any] | None
    compared_at: datetime | None
    regressions: list[dict[str, Any]]
    warnings: list[str]


class PromotionPublic(Public):
    """One promotion or rollback."""

    seq: int
    version: int
    action: str
    actor: str
    at: datetime
    reason: str
    confirmed_regressions: list[str]


class RegistryPublic(Public):
    """The registry at a glance."""

    in_force: InForcePublic
    versions: list[VersionPublic]
    history: list[PromotionPublic]


class RegisteredPublic(VersionPublic):
    """The answer to an upload: the version, and whether this upload created it."""

    created: bool


class PromoteBody(Body):
    """`confirm_regressions` must be true when the version has warnings (the 409 lists them)."""

    reason: Reason
    confirm_regressions: bool = False


class ReasonBody(Body):
    """A rollback or retirement: the reason goes to the audit log."""

    reason: Reason
