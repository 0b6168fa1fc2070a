"""The shadow part of the enforcement policy: candidates that run beside the live pipeline.

Pure (no database, no HTTP), like `api.policy.rules`. A shadow copy of a detector runs on the same
events as the live one with the candidate configuration (the live policy with the candidate's
category thresholds and rules version on top) and its findings are stored apart, in
`shadow_findings`: they never open a case, propose or apply a sanction, or emit an enforcement
event. The candidate changes only what a detector is told: the same code with the same inputs
gives the same finding ids, so live and shadow compare finding by finding. A candidate model
(`model_version`, a registered version pinned by its sha256) is what a promotion would serve: the
consumers download and verify it as they do a promoted one, and the shadow copies score chat with it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pipeline.rules import RULES_PRESETS
from pipeline.shadow_sample import PER_PLAYER


@dataclass(frozen=True, slots=True)
class ShadowSettings:
    """What runs in shadow: which detectors, with which candidate thresholds and rules version."""

    detectors: tuple[str, ...] = ()
    """Detector names that get a shadow copy (sorted, each once); empty: shadow mode is off."""
    category_thresholds: Mapping[str, float] = field(default_factory=dict)
    """Candidate chat thresholds, over the live overrides (missing: the live value)."""
    rules_version: str | None = None
    """Candidate house-rules preset (None: the live one)."""
    model_version: int | None = None
    """A registered chat model the shadow copies run with instead of the one in force (None: the live
    model); pinned by `model_sha256`, which the API fills in from the registry when it is set."""
    model_sha256: str | None = None
    share: float = 1.0
    """The part of the room the shadow copies see, chosen by a stable hash of each copy's player or
    table (`pipeline.shadow.in_share`): 1 sees every event; a candidate model at 0.2 costs a fifth."""

    @property
    def enabled(self) -> bool:
        """Whether anything runs in shadow."""
        return bool(self.detectors)


@functools.lru_cache(maxsize=1)
def detector_names() -> tuple[str, ...]:
    """Every registered detector's name, in registry order. Built from the registry itself (with
    a stand-in classifier so `chat.classifier` is there), so a new detector can be shadowed the
    day it is registered; imported late: the detectors take seconds to import."""
    from pipeline.registry import build_detectors

    class _NoModel:
        def classify(self, texts: object) -> list[Any]:
            return []

    preset = next(iter(RULES_PRESETS.values()))
    return tuple(build_detectors(rules=preset, classifier=_NoModel()))


def shadow_problems(shadow: ShadowSettings) -> list[str]:
    """Why the shadow part cannot be applied (thresholds are checked with the live ones', in rules.py)."""
    out: list[str] = []
    if shadow.rules_version is not None and shadow.rules_version not in RULES_PRESETS:
        out.append(f"shadow.rules_version {shadow.rules_version!r} is not one of {sorted(RULES_PRESETS)}")
    if len(set(shadow.detectors)) != len(shadow.detectors):
        out.append("shadow.detectors: a detector is named twice")
    if shadow.detectors:
        known = detector_names()
        unknown = [d for d in shadow.detectors if d not in known]
        if unknown:
            out.append(f"shadow.detectors: unknown detector(s) {unknown}; one of {list(known)}")
    elif shadow.category_thresholds or shadow.rules_version is not None or shadow.model_version is not None:
        # A candidate nothing runs would silently measure nothing.
        out.append("shadow.detectors: name the detectors to run with the candidate thresholds, rules version or model")
    if not 0.0 < shadow.share <= 1.0:
        out.append(f"shadow.share must be above 0 and at most 1, not {shadow.share}")
    elif shadow.share < 1.0:
        combined = [d for d in shadow.detectors if d not in PER_PLAYER]
        if combined:
            out.append(f"shadow.share below 1 samples players, and {combined} combine several players' events "
                       f"(a sampled copy would miss what unsampled partners do): use share 1, or only "
                       f"{sorted(PER_PLAYER)}")
    if shadow.model_version is not None:
        if shadow.model_version < 1:
            out.append("shadow.model_version must be a registered version (1 or more)")
        if shadow.model_sha256 is None or len(shadow.model_sha256) != 64:
            out.append("shadow.model_sha256: the model version's sha256 is missing")
        if shadow.detectors and not any(d.startswith("chat.") for d in shadow.detectors):
            out.append("shadow.detectors: a candidate model needs a chat detector in shadow (it scores chat only)")
    return out


def candidate_thresholds(live: Mapping[str, float], shadow: ShadowSettings) -> dict[str, float]:
    """The chat threshold overrides shadow copies run with."""
    return dict(sorted({**live, **shadow.category_thresholds}.items()))


def shadow_document(shadow: ShadowSettings) -> dict[str, Any]:
    """The JSON form (`GET /v1/policy`'s `shadow`, the audit payload)."""
    return {"detectors": list(shadow.detectors), "category_thresholds": dict(shadow.category_thresholds),
            "rules_version": shadow.rules_version, "model_version": shadow.model_version,
            "model_sha256": shadow.model_sha256, "share": shadow.share}


def shadow_from_document(doc: Mapping[str, Any]) -> ShadowSettings:
    """From the JSON form; TypeError/ValueError when it is not shaped like one."""
    detectors = doc.get("detectors") or ()
    if isinstance(detectors, str) or not isinstance(detectors, list | tuple):
        raise TypeError("shadow.detectors must be a list of names")
    version = doc.get("rules_version")
    model, sha = doc.get("model_version"), doc.get("model_sha256")
    return ShadowSettings(
        detectors=tuple(sorted(str(d) for d in detectors)),
        category_thresholds={str(k): float(v) for k, v in dict(doc.get("category_thresholds") or {}).items()},
        rules_version=None if version is None else str(version),
        model_version=None if model is None else int(model),
        model_sha256=None if sha is None else str(sha),
        share=float(doc.get("share", 1.0)),
    )
