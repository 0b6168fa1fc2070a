"""Read and change the enforcement policy: validated, versioned, audited."""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from api.audit import service as audit
from api.errors import ConflictError, InvalidError
from api.policy.models import PolicyRevision
from api.policy.rules import AuditSampling, PolicySettings, audit_document, audit_from_document, problems
from api.policy.shadow import ShadowSettings, shadow_document

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ActivePolicy:
    """The policy in force and where it came from (revision 0: the process settings, never changed)."""

    settings: PolicySettings
    revision: int
    changed_by: str | None
    changed_at: datetime | None
    reason: str


def active(session: Session, *, default_version: str) -> ActivePolicy:
    """The newest revision, or the defaults (`default_version` = RAILBIRD_RULES_VERSION)."""
    row = session.scalar(select(PolicyRevision).order_by(PolicyRevision.revision.desc()).limit(1))
    if row is None:
        return ActivePolicy(PolicySettings(rules_version=default_version), 0, None, None, "")
    policy = PolicySettings(
        rules_version=row.rules_version, auto_mute_enabled=row.auto_mute_enabled,
        auto_mute_min_score=row.auto_mute_min_score, auto_mute_minutes=row.auto_mute_minutes,
        category_thresholds=dict(row.category_thresholds or {}), shadow=shadow_of(row),
        audit=audit_from_document(row.audit_sampling or {}),
    )
    return ActivePolicy(policy, row.revision, row.changed_by, row.changed_at, row.reason)


def shadow_of(row: PolicyRevision) -> ShadowSettings:
    """A revision's shadow part (revisions from before shadow mode have none: off)."""
    return ShadowSettings(detectors=tuple(row.shadow_detectors or ()),
                          category_thresholds=dict(row.shadow_category_thresholds or {}),
                          rules_version=row.shadow_rules_version, model_version=row.shadow_model_version,
                          model_sha256=row.shadow_model_sha256,
                          share=1.0 if row.shadow_share is None else row.shadow_share)


def pin_shadow_model(session: Session, shadow: ShadowSettings) -> ShadowSettings:
    """The shadow part with its candidate model pinned to the registered version's sha256; 422 with
    the reason for an unknown version or the one in force (it would compare the model with itself)."""
    if shadow.model_version is None:
        return replace(shadow, model_sha256=None)
    from api.models_registry.models import ModelVersion  # the registry is another feature's tables
    from api.models_registry.service import current_version

    row = session.get(ModelVersion, shadow.model_version)
    if row is None:
        raise InvalidError(f"shadow.model_version: no model version {shadow.model_version} in the registry")
    if current_version(session) == row.version:
        raise InvalidError(f"shadow.model_version: version {row.version} is the model in force; "
                           "shadow a candidate against it")
    return replace(shadow, model_sha256=row.sha256)


@dataclass(frozen=True, slots=True)
class PolicyChange:
    """Fields to change (None: keep); thresholds replace the whole override map when given."""

    rules_version: str | None = None
    auto_mute_enabled: bool | None = None
    auto_mute_min_score: float | None = None
    auto_mute_minutes: int | None = None
    category_thresholds: dict[str, float] | None = None
    reset_auto_mute: bool = False
    """Back to the preset's score and minutes."""
    shadow: ShadowSettings | None = None
    """Replaces the whole shadow part when given (no detectors: shadow mode off)."""
    audit: AuditSampling | None = None
    """Replaces the audit sampling when given."""


def change(session: Session, *, change: PolicyChange, expected_revision: int | None, reason: str,
           actor: str, default_version: str, now: datetime) -> tuple[ActivePolicy, bool]:
    """Write a new revision if anything changes; (policy in force, whether it changed). Audited."""
    current = active(session, default_version=default_version)
    if expected_revision is not None and expected_revision != current.revision:
        raise ConflictError(f"policy is at revision {current.revision}, not {expected_revision}; reload and retry")
    before = current.settings
    after = replace(
        before,
        rules_version=change.rules_version or before.rules_version,
        auto_mute_enabled=before.auto_mute_enabled if change.auto_mute_enabled is None else change.auto_mute_enabled,
        auto_mute_min_score=None if change.reset_auto_mute else (change.auto_mute_min_score or before.auto_mute_min_score),
        auto_mute_minutes=None if change.reset_auto_mute else (change.auto_mute_minutes or before.auto_mute_minutes),
        category_thresholds=before.category_thresholds if change.category_thresholds is None
        else dict(sorted(change.category_thresholds.items())),
        shadow=before.shadow if change.shadow is None else pin_shadow_model(session, change.shadow),
        audit=before.audit if change.audit is None else change.audit,
    )
    if bad := problems(after):
        raise InvalidError("; ".join(bad))
    if after == before:
        return current, False
    revision = current.revision + 1
    session.add(PolicyRevision(
        revision=revision, rules_version=after.rules_version, auto_mute_enabled=after.auto_mute_enabled,
        auto_mute_min_score=after.auto_mute_min_score, auto_mute_minutes=after.auto_mute_minutes,
        category_thresholds=dict(after.category_thresholds), changed_by=actor, changed_at=now, reason=reason,
        shadow_detectors=list(after.shadow.detectors),
        shadow_category_thresholds=dict(after.shadow.category_thresholds),
        shadow_rules_version=after.shadow.rules_version,
        shadow_model_version=after.shadow.model_version, shadow_model_sha256=after.shadow.model_sha256,
        shadow_share=after.shadow.share,
        audit_sampling=audit_document(after.audit),
    ))
    try:
        session.flush()
    except IntegrityError:
        session.rollback()
        raise ConflictError("the policy was changed at the same time; reload and retry") from None
    audit.append(session, actor=actor, action="policy.change", entity_type="policy", entity_id=str(revision),
                 payload={"before": _doc(before), "after": _doc(after), "reason": reason}, now=now)
    session.commit()
    return ActivePolicy(after, revision, actor, now, reason), True


def _doc(policy: PolicySettings) -> dict[str, object]:
    return {"rules_version": policy.rules_version, "auto_mute_enabled": policy.auto_mute_enabled,
            "auto_mute_min_score": policy.auto_mute_min_score, "auto_mute_minutes": policy.auto_mute_minutes,
            "category_thresholds": dict(policy.category_thresholds), "shadow": shadow_document(policy.shadow),
            "audit": audit_document(policy.audit)}


@functools.lru_cache(maxsize=4)
def model_thresholds(path: Path | None) -> dict[str, float]:
    """The chat model's own operating thresholds (read once per process; {} when it cannot be read)."""
    from models.chat.artifact import DEFAULT_PATH, load_model  # heavy: only admin pages need it

    try:
        return dict(sorted(load_model(path or DEFAULT_PATH).thresholds.items()))
    except (OSError, ValueError, KeyError) as exc:
        log.warning("chat model thresholds unavailable: %s", exc)
        return {}
