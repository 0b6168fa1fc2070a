"""The enforcement policy an admin may change, and the pipeline configuration it produces.

Pure (no database, no HTTP): the API validates and stores a `PolicySettings`; the consumers fetch
it and turn it into the `RulesConfig` and classifier thresholds they run with. Everything else in
`RulesConfig` (ladders, windows, exempt formats) comes with the chosen rules-version preset: those
numbers are the house rules, changed by selecting another version, not edited one by one.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from api.policy.shadow import ShadowSettings, candidate_thresholds, shadow_from_document, shadow_problems
from pipeline.categories import MODEL_SCORED
from pipeline.rules import RULES_PRESETS, RulesConfig

THRESHOLD_CATEGORIES: Final = MODEL_SCORED
"""Categories the chat classifier scores, each with an operating threshold an admin may override:
the category catalogue's list (pipeline/categories.py), so a new head appears here by itself."""
MIN_THRESHOLD: Final = 0.05
MIN_AUTO_MUTE_SCORE: Final = 0.5
"""Below this an automatic mute would act on evidence weaker than a coin toss."""
MAX_AUTO_MUTE_MINUTES: Final = 24 * 60


MIN_AUDIT_NEAR_SCORE: Final = 0.05


@dataclass(frozen=True, slots=True)
class AuditSampling:
    """How much unflagged chat analysts get as audit cases (pipeline/detectors/chat/audit_sample.py):
    the operator's choice, so it lives in the policy rather than in a rules-version preset."""

    rate: float = 0.0
    """Share of unflagged lines, uniformly (0: none)."""
    near_rate: float = 0.0
    """Share of the unflagged lines whose best model score reached `near_score`."""
    near_score: float = 0.25


def audit_from_document(doc: Mapping[str, Any]) -> AuditSampling:
    """The audit part of a policy document (missing or empty: off); ValueError if unusable."""
    default = AuditSampling()
    return AuditSampling(rate=float(doc.get("rate", default.rate)),
                         near_rate=float(doc.get("near_rate", default.near_rate)),
                         near_score=float(doc.get("near_score", default.near_score)))


def audit_document(audit: AuditSampling) -> dict[str, float]:
    """The audit part as JSON-ready data (the API's `audit`, the stored column, the audit log)."""
    return {"rate": audit.rate, "near_rate": audit.near_rate, "near_score": audit.near_score}


def audit_problems(audit: AuditSampling) -> list[str]:
    """Why the audit sampling cannot be applied (empty when it can)."""
    out = [f"audit.{name} must be within [0.0, 1.0]" for name, value in (("rate", audit.rate),
           ("near_rate", audit.near_rate)) if not 0.0 <= value <= 1.0]
    if not MIN_AUDIT_NEAR_SCORE <= audit.near_score <= 1.0:
        out.append(f"audit.near_score must be within [{MIN_AUDIT_NEAR_SCORE}, 1.0]")
    return out


@dataclass(frozen=True, slots=True)
class PolicySettings:
    """The changeable part of the enforcement policy."""

    rules_version: str
    auto_mute_enabled: bool = True
    auto_mute_min_score: float | None = None
    """None: the preset's value."""
    auto_mute_minutes: int | None = None
    """None: the preset's value."""
    category_thresholds: Mapping[str, float] = field(default_factory=dict)
    """Overrides of the chat model's operating thresholds (missing: the model's own)."""
    shadow: ShadowSettings = field(default_factory=lambda: ShadowSettings())
    """Candidates that run beside the live pipeline and act on nothing (api/policy/shadow.py)."""
    audit: AuditSampling = field(default_factory=AuditSampling)
    """Unflagged chat sampled for analysts' verdicts (off by default)."""


def problems(policy: PolicySettings) -> list[str]:
    """Why the policy cannot be applied (empty when it can)."""
    out: list[str] = []
    if policy.rules_version not in RULES_PRESETS:
        out.append(f"rules_version {policy.rules_version!r} is not one of {sorted(RULES_PRESETS)}")
    score = policy.auto_mute_min_score
    if score is not None and not MIN_AUTO_MUTE_SCORE <= score <= 1.0:
        out.append(f"auto_mute_min_score must be within [{MIN_AUTO_MUTE_SCORE}, 1.0]")
    minutes = policy.auto_mute_minutes
    if minutes is not None and not 1 <= minutes <= MAX_AUTO_MUTE_MINUTES:
        out.append(f"auto_mute_minutes must be within [1, {MAX_AUTO_MUTE_MINUTES}]")
    out.extend(threshold_problems("category_thresholds", policy.category_thresholds))
    out.extend(shadow_problems(policy.shadow))
    out.extend(audit_problems(policy.audit))
    out.extend(threshold_problems("shadow.category_thresholds", policy.shadow.category_thresholds))
    return out


def threshold_problems(name: str, thresholds: Mapping[str, float]) -> list[str]:
    """Why a category -> threshold map cannot be applied (the live one and the shadow candidate)."""
    out: list[str] = []
    for category, value in thresholds.items():
        if category not in THRESHOLD_CATEGORIES:
            out.append(f"{name}: unknown category {category!r}; one of {list(THRESHOLD_CATEGORIES)}")
        elif not MIN_THRESHOLD <= value <= 1.0:
            out.append(f"{name}.{category} must be within [{MIN_THRESHOLD}, 1.0]")
    return out


def effective_rules(policy: PolicySettings) -> RulesConfig:
    """The preset with the policy's auto-mute settings; auto-mute off = a score no finding reaches."""
    if bad := problems(policy):
        raise ValueError("; ".join(bad))
    preset = RULES_PRESETS[policy.rules_version]
    score = preset.auto_mute_min_score if policy.auto_mute_min_score is None else policy.auto_mute_min_score
    return dataclasses.replace(
        preset,
        auto_mute_min_score=score if policy.auto_mute_enabled else math.inf,
        auto_mute_minutes=policy.auto_mute_minutes or preset.auto_mute_minutes,
        chat_audit_rate=policy.audit.rate,
        chat_audit_near_rate=policy.audit.near_rate,
        chat_audit_near_score=policy.audit.near_score,
    )


def shadow_rules(policy: PolicySettings) -> RulesConfig:
    """The rules the shadow copies run with: the live policy with the candidate rules version (if any)."""
    version = policy.shadow.rules_version or policy.rules_version
    return effective_rules(dataclasses.replace(policy, rules_version=version))


def shadow_thresholds(policy: PolicySettings) -> dict[str, float]:
    """The chat thresholds the shadow copies run with: the live overrides with the candidate's on top."""
    return candidate_thresholds(policy.category_thresholds, policy.shadow)


def describe(rules: RulesConfig) -> dict[str, Any]:
    """The rules in force as JSON-ready data (durations in hours/seconds, sets sorted)."""
    return {
        "version": rules.version,
        "min_hands_per_stint": rules.min_hands_per_stint,
        "refusal_window_hours": rules.refusal_window.total_seconds() / 3600,
        "table_leaving_ladder_minutes": list(rules.ladder_minutes),
        "exempt_formats": sorted(rules.exempt_formats),
        "auto_mute_minutes": rules.auto_mute_minutes,
        "auto_mute_min_score": rules.auto_mute_min_score if math.isfinite(rules.auto_mute_min_score) else None,
        "chat_offence_window_days": rules.chat_offence_window.total_seconds() / 86400,
        "chat_restriction_hours": rules.chat_restriction_hours,
        "chat_ban_ladder": [{"episodes": n, "hours": h} for n, h in rules.chat_ban_ladder],
        "hand_in_play_suspension_hours": list(rules.hand_in_play_suspension_hours),
        "flood_max_messages": rules.flood_max_messages,
        "flood_window_seconds": rules.flood_window.total_seconds(),
        "snapcam_report_window_hours": rules.snapcam_report_window.total_seconds() / 3600,
        "snapcam_min_priority": rules.snapcam_min_priority,
        "false_report_alpha": rules.false_report_alpha,
        "false_report_restriction_hours": rules.false_report_restriction_hours,
        "chat_audit_rate": rules.chat_audit_rate,
        "chat_audit_near_rate": rules.chat_audit_near_rate,
        "chat_audit_near_score": rules.chat_audit_near_score,
    }


def from_document(doc: Mapping[str, Any]) -> PolicySettings:
    """A policy from the JSON the API serves (`GET /v1/policy`); ValueError if it is unusable."""
    try:
        policy = PolicySettings(
            rules_version=str(doc["rules_version"]),
            auto_mute_enabled=bool(doc["auto_mute_enabled"]),
            auto_mute_min_score=None if doc.get("auto_mute_min_score") is None else float(doc["auto_mute_min_score"]),
            auto_mute_minutes=None if doc.get("auto_mute_minutes") is None else int(doc["auto_mute_minutes"]),
            category_thresholds={str(k): float(v) for k, v in dict(doc.get("category_thresholds") or {}).items()},
            shadow=shadow_from_document(doc.get("shadow") or {}),
            audit=audit_from_document(doc.get("audit") or {}),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"unusable policy document: {exc}") from None
    if bad := problems(policy):
        raise ValueError("; ".join(bad))
    return policy
