"""Builds the objects a process needs from its settings: the only place that happens."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping
from datetime import timedelta
from pathlib import Path

import httpx

from api.policy.rules import PolicySettings, effective_rules, from_document, shadow_rules, shadow_thresholds
from api.policy.shadow import ShadowSettings
from pipeline.detector import Detector
from pipeline.registry import build_detectors, build_pipeline
from pipeline.rules import RULES_PRESETS, RulesConfig
from pipeline.runner import Pipeline
from pipeline.shadow import build_with_shadows
from pipeline.text_model import TextClassifier
from railbird.model_watch import (
    ApiModelSource,
    ModelSource,
    ModelUnavailableError,
    ModelWatch,
    ServingModel,
    initial,
    obtain,
)
from railbird.settings import Settings

log = logging.getLogger(__name__)


def fetch_policy(settings: Settings) -> tuple[int, PolicySettings] | None:
    """(revision, policy) an admin set in the review API, or None when it cannot be had (the
    settings' rules version applies; the consumers poll again and restart when it appears)."""
    try:
        resp = httpx.get(f"{settings.api_url.rstrip('/')}/v1/policy", timeout=settings.api_timeout_s,
                         headers={"Authorization": f"Bearer {settings.service_token}"})
        resp.raise_for_status()
        doc = resp.json()
        return int(doc["revision"]), from_document(doc)
    except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
        log.warning("enforcement policy unavailable from the API (%s); using RAILBIRD_RULES_VERSION", exc)
        return None


def rules_from(settings: Settings, policy: PolicySettings | None = None) -> RulesConfig:
    """The admin's policy if given, else the configured house-rules version (or a clear error)."""
    if policy is not None:
        return effective_rules(policy)
    try:
        return RULES_PRESETS[settings.rules_version]
    except KeyError:
        raise SystemExit(
            f"unknown RAILBIRD_RULES_VERSION {settings.rules_version!r}; one of {sorted(RULES_PRESETS)}"
        ) from None


def load_chat_classifier(
    settings: Settings,
    thresholds: Mapping[str, float] | None = None,
    automatic: Mapping[str, float] | None = None,
) -> TextClassifier:
    """The chat classifier artifact (settings.chat_model_path, else the shipped one), loaded once;
    `thresholds` override the model's review points per category (the admin policy's
    `category_thresholds`), `automatic` its automatic-action points (for the admin policy to pass
    once it carries them; the model's own points apply until then)."""
    from models.chat import load_classifier
    from models.chat.classifier import ChatClassifier

    try:
        classifier = load_classifier(settings.chat_model_path, cache_dir=settings.resolved_cache_dir())
    except (OSError, ValueError) as exc:
        raise SystemExit(f"cannot load the chat model ({exc}); run `railbird train chat`") from None
    if thresholds or automatic:
        model = classifier.model
        classifier.model = dataclasses.replace(
            model,
            thresholds={**model.thresholds, **(thresholds or {})},
            auto_thresholds={**model.auto_thresholds, **(automatic or {})},
        )
        if isinstance(classifier, ChatClassifier):
            classifier.policy_floors = dict(thresholds or {})
    return classifier


def make_pipeline(settings: Settings) -> Pipeline:
    """A pipeline with every detector, fresh state, configured for this process."""
    return build_pipeline(
        rules=rules_from(settings), classifier=load_chat_classifier(settings), chat_lateness=chat_lateness(settings)
    )


def make_detector_factory(
    settings: Settings, policy: PolicySettings | None = None, shadow_model: Path | None = None
) -> Callable[[], dict[str, Detector]]:
    """Builds every detector with fresh state, as often as the streaming runtime needs (once per
    lane and per owned partition); models must be loaded once, here, and shared by the instances.
    `shadow_model`: the verified file of the policy's candidate model (`shadow_model_file`), which
    a policy naming one requires: shadow copies on the live model would be reported as the candidate's."""
    rules = rules_from(settings, policy)
    classifier = load_chat_classifier(settings, policy.category_thresholds if policy else None)
    lateness = chat_lateness(settings)
    if policy is None or not policy.shadow.enabled:
        return lambda: build_detectors(rules=rules, classifier=classifier, chat_lateness=lateness)
    from models.chat.shadow_view import ModelView, candidate_classifier, candidate_model

    names, candidate_rules = policy.shadow.detectors, shadow_rules(policy)
    candidate: TextClassifier
    if policy.shadow.model_version is not None:
        if shadow_model is None:
            raise ValueError(f"the policy runs chat model version {policy.shadow.model_version} in shadow: "
                             "pass its verified file (shadow_model_file)")
        # A second model scores every chat message with its own heads: what promoting it would serve,
        # with the policy's live overrides and the candidate thresholds on top (as a promotion would
        # apply them); with the live word list it scores the live analyses (ModelView).
        candidate = candidate_model(classifier, load_chat_classifier(
            settings.model_copy(update={"chat_model_path": shadow_model}), shadow_thresholds(policy)))
    else:
        # Shadow copies share the live model: candidate thresholds are a view of it that fuses the
        # live analysis again, so no message is scored twice (models/chat/shadow_view.py).
        candidate = candidate_classifier(classifier, live_thresholds=policy.category_thresholds,
                                         candidate=shadow_thresholds(policy))
    log.info("shadow copies of %s", ", ".join(names), extra={
        "rules_version": candidate_rules.version, "shadow_model_version": policy.shadow.model_version,
        "shadow_model_shares_analysis": isinstance(candidate, ModelView)})
    return lambda: build_with_shadows(rules=rules, classifier=classifier, chat_lateness=lateness, names=names,
                                      shadow_rules=candidate_rules, shadow_classifier=candidate,
                                      share=policy.shadow.share)


def model_source(settings: Settings) -> ApiModelSource:
    """The review API as the source of the promoted chat model."""
    return ApiModelSource(settings.api_url, settings.service_token, settings.api_timeout_s)


def initial_model(settings: Settings) -> ServingModel:
    """The chat model to start serving: the promoted one, verified, else the configured artifact."""
    from models.chat.artifact import DEFAULT_PATH

    return initial(model_source(settings), cache_dir=settings.resolved_cache_dir(),
                   configured=settings.chat_model_path or DEFAULT_PATH)


def make_model_watch(settings: Settings, current: ServingModel) -> ModelWatch:
    """Polls the promoted model as often as the policy (`policy_refresh_s`)."""
    return ModelWatch(model_source(settings), settings.resolved_cache_dir(), current, every_s=settings.policy_refresh_s)


def shadow_model_file(settings: Settings, policy: PolicySettings | None,
                      source: ModelSource | None = None) -> tuple[PolicySettings | None, Path | None]:
    """(policy to run, verified file of its candidate model). The candidate is downloaded and checked
    as a promoted model is (`railbird.model_watch.obtain`); one that cannot be had turns the shadow
    part off for this run, with the reason in the log, rather than shadowing with the live model."""
    version = None if policy is None else policy.shadow.model_version
    if policy is None or version is None:
        return policy, None
    try:
        model = obtain(source or model_source(settings), version=version,
                       sha256=policy.shadow.model_sha256 or "", cache_dir=settings.resolved_cache_dir())
    except ModelUnavailableError as exc:
        log.error("chat model version %d cannot run in shadow (%s): no shadow copies until the policy changes",
                  version, exc)
        return dataclasses.replace(policy, shadow=ShadowSettings()), None
    return policy, model.path


def with_model(settings: Settings, model: ServingModel) -> Settings:
    """The settings with a downloaded model as the chat artifact (version 0: unchanged)."""
    return settings if model.path is None else settings.model_copy(update={"chat_model_path": model.path})


def chat_lateness(settings: Settings) -> timedelta:
    """The place-keyed chat detectors' reorder lateness, the same for the stream and its replays."""
    return timedelta(seconds=settings.chat_reorder_lateness_s)
