"""Routes: the policy in force (every role; consumers poll it) and the admin's view and change."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from fastapi import APIRouter, Request

from api.db import SessionDep
from api.deps import NowDep, PrincipalDep
from api.policy import service
from api.policy.rules import THRESHOLD_CATEGORIES, AuditSampling, audit_document, describe, effective_rules
from api.policy.schemas import (
    AuditPublic,
    AuditUpdate,
    PolicyAdminView,
    PolicyPublic,
    PolicyUpdate,
    ShadowPublic,
    ShadowUpdate,
)
from api.policy.shadow import ShadowSettings, detector_names, shadow_document
from api.shadow.service import since
from pipeline.rules import RULES_PRESETS


def default_version(request: Request) -> str:
    """RAILBIRD_RULES_VERSION of this process: the policy until an admin changes it."""
    return str(request.app.state.default_rules_version)


def public(policy: service.ActivePolicy, *, shadow_since: datetime | None = None) -> PolicyPublic:
    """Response body for a policy."""
    s = policy.settings
    return PolicyPublic(
        shadow=ShadowPublic(**shadow_document(s.shadow), since=shadow_since), audit=AuditPublic(**audit_document(s.audit)),
        revision=policy.revision, rules_version=s.rules_version, auto_mute_enabled=s.auto_mute_enabled,
        auto_mute_min_score=s.auto_mute_min_score, auto_mute_minutes=s.auto_mute_minutes,
        category_thresholds=dict(s.category_thresholds), changed_by=policy.changed_by,
        changed_at=policy.changed_at, reason=policy.reason, rules=describe(effective_rules(s)),
    )


def admin_view(policy: service.ActivePolicy, model_path: Path | None,
               shadow_since: datetime | None = None) -> PolicyAdminView:
    """The policy with the choices an admin has."""
    return PolicyAdminView(**public(policy, shadow_since=shadow_since).model_dump(),
                           available_versions=sorted(RULES_PRESETS),
                           threshold_categories=list(THRESHOLD_CATEGORIES),
                           model_thresholds=service.model_thresholds(model_path),
                           available_detectors=list(detector_names()))


def shadow_change(body: ShadowUpdate | None) -> ShadowSettings | None:
    """The shadow part a change body asks for, normalised (sorted, so equal settings compare equal)."""
    if body is None:
        return None
    return ShadowSettings(detectors=tuple(sorted(body.detectors)),
                          category_thresholds=dict(sorted(body.category_thresholds.items())),
                          rules_version=body.rules_version, model_version=body.model_version,
                          share=body.share)


def audit_change(body: AuditUpdate | None) -> AuditSampling | None:
    """The audit sampling a change body asks for (None: keep the current one)."""
    if body is None:
        return None
    return AuditSampling(rate=body.rate, near_rate=body.near_rate, near_score=body.near_score)


def change_of(body: PolicyUpdate) -> service.PolicyChange:
    """The service's change for a request body (the API's PATCH and the console's form)."""
    return service.PolicyChange(
        rules_version=body.rules_version, auto_mute_enabled=body.auto_mute_enabled,
        auto_mute_min_score=body.auto_mute_min_score, auto_mute_minutes=body.auto_mute_minutes,
        category_thresholds=None if body.category_thresholds is None
        else {str(k): v for k, v in body.category_thresholds.items()},
        reset_auto_mute=body.reset_auto_mute, shadow=shadow_change(body.shadow), audit=audit_change(body.audit),
    )


def router() -> APIRouter:
    """Policy routes."""
    r = APIRouter(tags=["policy"])

    @r.get("/policy", response_model=PolicyPublic)
    def current(request: Request, session: SessionDep) -> PolicyPublic:
        """The enforcement policy in force (the consumers read it at start and poll it)."""
        policy = service.active(session, default_version=default_version(request))
        return public(policy, shadow_since=since(session, policy))

    @r.get("/admin/policy", response_model=PolicyAdminView)
    def admin_get(request: Request, session: SessionDep) -> PolicyAdminView:
        """Admin: the policy, the rules versions to choose from and the model's own thresholds."""
        policy = service.active(session, default_version=default_version(request))
        return admin_view(policy, request.app.state.chat_model_path, since(session, policy))

    @r.patch("/admin/policy", response_model=PolicyPublic)
    def admin_change(request: Request, body: PolicyUpdate, session: SessionDep, now: NowDep,
                     who: PrincipalDep) -> PolicyPublic:
        """Admin: change the rules version, auto-mute or category thresholds (validated, audited)."""
        policy, _ = service.change(session, change=change_of(body), expected_revision=body.expected_revision,
                                   reason=body.reason, actor=who.username,
                                   default_version=default_version(request), now=now)
        return public(policy, shadow_since=since(session, policy))  # not the admin view: that reads the chat model (seconds, first time)

    return r
