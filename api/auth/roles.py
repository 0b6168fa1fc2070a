"""Roles, permissions and the explicit table of which permission each endpoint needs.

Deny by default: an endpoint missing from `ENDPOINT_PERMISSIONS` answers 403 to everybody, and a
test fails until someone decides who may call it.
"""

from __future__ import annotations

from typing import Final, Literal

Role = Literal["analyst", "moderator", "senior", "service", "admin"]
ROLES: Final[tuple[Role, ...]] = ("analyst", "moderator", "senior", "service", "admin")
HUMAN_ROLES: Final[tuple[Role, ...]] = ("analyst", "moderator", "senior", "admin")

Permission = Literal[
    "public", "view", "decide", "sanction", "senior", "ingest", "read_sanctions", "read_policy", "admin", "self",
    "export_labels",
    "quality",
]

GRANTS: Final[dict[Permission, frozenset[Role]]] = {
    "public": frozenset(ROLES),
    "self": frozenset(ROLES),
    "view": frozenset({"analyst", "moderator", "senior", "admin"}),
    "decide": frozenset({"analyst", "moderator", "senior"}),
    "sanction": frozenset({"moderator", "senior"}),
    "senior": frozenset({"senior"}),
    "ingest": frozenset({"service"}),
    "read_sanctions": frozenset({"service", "analyst", "moderator", "senior", "admin"}),
    "read_policy": frozenset(ROLES),
    "admin": frozenset({"admin"}),
    "export_labels": frozenset({"senior", "admin"}),  # players' words leave as training data: audited
    "quality": frozenset({"senior", "admin"}),  # reviewers' own scores: not for the reviewers themselves
}
"""Which roles hold each permission: analyst < moderator < senior for review work; service and
admin are separate so a leaked service token cannot decide cases and an admin cannot sanction."""

ENDPOINT_PERMISSIONS: Final[dict[tuple[str, str], Permission]] = {
    ("POST", "/v1/auth/login"): "public",
    ("POST", "/v1/auth/logout"): "self",
    ("GET", "/v1/auth/me"): "self",
    ("GET", "/v1/health"): "public",
    ("POST", "/v1/findings/batch"): "ingest",
    ("GET", "/v1/findings"): "view",
    ("GET", "/v1/findings/{finding_id}"): "view",
    ("GET", "/v1/cases"): "view",
    ("GET", "/v1/cases/counts"): "view",
    ("POST", "/v1/cases/bulk-close"): "sanction",
    ("GET", "/v1/cases/{case_id}"): "view",
    ("GET", "/v1/cases/{case_id}/evidence"): "view",
    ("POST", "/v1/cases/{case_id}/claim"): "decide",
    ("POST", "/v1/cases/{case_id}/release"): "decide",
    ("POST", "/v1/cases/{case_id}/reassign"): "senior",
    ("POST", "/v1/cases/{case_id}/take-over"): "decide",
    ("POST", "/v1/cases/{case_id}/decisions"): "decide",
    ("GET", "/v1/cases/{case_id}/decisions"): "view",
    ("POST", "/v1/cases/{case_id}/notes"): "decide",
    ("POST", "/v1/cases/{case_id}/sanctions"): "sanction",
    ("POST", "/v1/cases/{case_id}/appeals"): "senior",
    ("GET", "/v1/sanctions"): "read_sanctions",
    ("GET", "/v1/sanctions/{sanction_id}"): "read_sanctions",
    ("POST", "/v1/sanctions/{sanction_id}/revoke"): "sanction",
    ("POST", "/v1/sanctions/{sanction_id}/second-review"): "senior",
    ("GET", "/v1/players/{player_id}"): "view",
    ("GET", "/v1/players/{player_id}/sanctions/active"): "read_sanctions",
    ("GET", "/v1/appeals"): "view",
    ("POST", "/v1/appeals/{appeal_id}/resolve"): "senior",
    ("GET", "/v1/stats/detectors"): "view",
    ("GET", "/v1/stats/summary"): "read_sanctions",
    ("GET", "/v1/audit"): "admin",
    ("GET", "/v1/audit/verify"): "admin",
    ("GET", "/v1/events"): "read_sanctions",
    ("GET", "/v1/users"): "admin",
    ("POST", "/v1/users"): "admin",
    ("PATCH", "/v1/users/{user_id}"): "admin",
    ("POST", "/v1/tokens"): "admin",
    ("POST", "/v1/tokens/{token_id}/revoke"): "admin",
    ("GET", "/v1/saved-views"): "view",
    ("POST", "/v1/saved-views"): "view",
    ("DELETE", "/v1/saved-views/{view_id}"): "view",
    ("GET", "/v1/policy"): "read_policy",
    ("GET", "/v1/admin/policy"): "admin",
    ("PATCH", "/v1/admin/policy"): "admin",
    ("GET", "/v1/quality/settings"): "quality",
    ("PATCH", "/v1/admin/quality"): "admin",
    ("GET", "/v1/quality/golden"): "quality",
    ("POST", "/v1/quality/golden"): "quality",
    ("POST", "/v1/quality/golden/{case_id}/retire"): "quality",
    ("GET", "/v1/quality/metrics"): "quality",
    ("GET", "/v1/quality/reviews"): "quality",
    ("POST", "/v1/retro-runs"): "admin",
    ("GET", "/v1/retro-runs"): "admin",
    ("GET", "/v1/retro-runs/{run_id}"): "admin",
    ("GET", "/v1/shadow/findings"): "view",
    ("GET", "/v1/shadow/comparison"): "view",
    ("GET", "/v1/labels"): "view",
    ("POST", "/v1/labels/{finding_id}/correction"): "decide",
    ("GET", "/v1/labels/export"): "export_labels",
    ("GET", "/v1/models/promoted"): "read_policy",
    ("GET", "/v1/models"): "admin",
    ("POST", "/v1/models"): "admin",
    ("POST", "/v1/models/rollback"): "admin",
    ("GET", "/v1/models/{version}"): "admin",
    ("GET", "/v1/models/{version}/artifact"): "read_policy",
    ("POST", "/v1/models/{version}/promote"): "admin",
    ("POST", "/v1/models/{version}/retire"): "admin",
}
"""(method, route path) -> permission; the router-level dependency enforces it on every call."""


def allowed(permission: Permission, role: str) -> bool:
    """Whether `role` holds `permission`."""
    return role in GRANTS[permission]
